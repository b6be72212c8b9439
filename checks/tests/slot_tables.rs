//! Both foreign-writeback tables against the independent reference, over random call sequences
//! (proptest): the baseline `cgwb_frn` table keyed by (bdi_id, memcg_id) and the bdev table keyed
//! by (dev, 0), every slot revision, a clock that moves by 0 to 3 per call. After each call the
//! core's slot contents, read directly, must equal the reference's, and the sequentially
//! meaningful properties the reference flags must agree with what the core did.

use proptest::prelude::*;
use wb_checks::differential::{SlotOp, SlotsPair};
use wb_checks::oracle::bdev_slots::{ref_slot_revision, RefKey, RefSlots};
use wb_core::revision::SlotRevision;

const CAPACITY: usize = 3;
const UPDATE_INTV: i64 = SlotsPair::UPDATE_INTV;
const EXPIRE_INTV: i64 = SlotsPair::EXPIRE_INTV;

fn ops(keys: BoxedStrategy<RefKey>) -> impl Strategy<Value = Vec<SlotOp>> {
    let op = prop_oneof![
        4 => (keys, 0i64..=3).prop_map(|(key, dt)| SlotOp::Track { key, dt }),
        2 => (0i64..=3).prop_map(|dt| SlotOp::Flush { dt }),
        2 => Just(SlotOp::Done),
    ];
    prop::collection::vec(op, 1..40)
}

fn agree(rev: SlotRevision, name: &'static str, ops: &[SlotOp]) -> Result<(), TestCaseError> {
    let mut pair = SlotsPair::new(rev, name, CAPACITY);
    for (i, &op) in ops.iter().enumerate() {
        pair.apply(op).map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
    }
    Ok(())
}

fn frn_keys() -> BoxedStrategy<RefKey> {
    (1i64..=2, 1i64..=3).boxed()
}

fn bdev_keys() -> BoxedStrategy<RefKey> {
    (1i64..=5).prop_map(|dev| (dev, 0)).boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn baseline_table_matches_the_reference(rev in prop::sample::select(SlotRevision::ALL.to_vec()), ops in ops(frn_keys())) {
        agree(rev, "cgwb_frn", &ops)?;
    }

    #[test]
    fn bdev_table_matches_the_reference(rev in prop::sample::select(SlotRevision::ALL.to_vec()), ops in ops(bdev_keys())) {
        agree(rev, "cgwb_bdev", &ops)?;
    }
}

/// The reference is not vacuous: on a sequence that overwrites a slot with its flush in flight,
/// only the revisions without the guard flag it.
#[test]
fn the_reference_flags_an_overwrite_in_flight() {
    for rev in SlotRevision::ALL {
        let mut m = RefSlots::new(ref_slot_revision(rev), 1, 0);
        m.track((1, 1), 3, UPDATE_INTV);
        m.flush(4, EXPIRE_INTV);
        m.track((2, 1), 5, UPDATE_INTV);
        let flagged = m.violated.contains(&"no-inflight-overwrite");
        assert_eq!(flagged, rev == SlotRevision::NoInflightGuard, "{rev:?}");
    }
}
