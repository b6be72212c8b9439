//! Both foreign-writeback tables against the independent reference, over random call sequences
//! (proptest): the baseline `cgwb_frn` table keyed by (bdi_id, memcg_id) and the bdev table keyed
//! by (dev, 0), every slot revision, a clock that moves by 0 to 3 per call. After each call the
//! core's slot contents, read directly, must equal the reference's, and the sequentially
//! meaningful properties the reference flags must agree with what the core did.

use proptest::prelude::*;
use std::sync::Arc;
use wb_checks::oracle::slots::{ref_slot_revision, RefKey, RefSlots};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::memcg::{ForeignTable, SlotRevision};
use wb_core::sync::Std;
use wb_core::trace::Trace;

const CAPACITY: usize = 3;
const UPDATE_INTV: i64 = 2;
const EXPIRE_INTV: i64 = 6;

#[derive(Debug, Clone, Copy)]
enum Op {
    Track {
        key: RefKey,
        dt: i64,
    },
    Flush {
        dt: i64,
    },
    /// Complete the oldest queued flush.
    Done,
}

fn ops(keys: BoxedStrategy<RefKey>) -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        4 => (keys, 0i64..=3).prop_map(|(key, dt)| Op::Track { key, dt }),
        2 => (0i64..=3).prop_map(|dt| Op::Flush { dt }),
        2 => Just(Op::Done),
    ];
    prop::collection::vec(op, 1..40)
}

fn agree(rev: SlotRevision, name: &'static str, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut reference = RefSlots::new(ref_slot_revision(rev.name()).unwrap(), CAPACITY, 0);
    let table = ForeignTable::<Std>::new(CAPACITY, rev, name);
    let ctx = Ctx::<Std>::new(Arc::new(Trace::disabled()), "step", CpuPlan::Fixed(0));
    let (mut now, mut queued) = (1i64, std::collections::VecDeque::new());
    for (i, &op) in ops.iter().enumerate() {
        match op {
            Op::Track { key, dt } => {
                now += dt;
                reference.track(key, now, UPDATE_INTV);
                table.track(&ctx, key, now, UPDATE_INTV);
            }
            Op::Flush { dt } => {
                now += dt;
                let want = reference.flush(now, EXPIRE_INTV);
                let got = table.flush(&ctx, now, EXPIRE_INTV);
                prop_assert_eq!(&got, &want, "flush at step {}", i);
                queued.extend(want.into_iter().map(|(slot, _)| slot));
            }
            Op::Done => {
                if let Some(slot) = queued.pop_front() {
                    reference.flush_done(slot);
                    table.flush_done(&ctx, slot);
                }
            }
        }
        prop_assert_eq!(table.contents(), reference.slots.clone(), "after step {} {:?}", i, op);
        prop_assert!(table.torn_slots().is_empty(), "a sequential record tore");
    }
    prop_assert!(!reference.violated.contains(&"inflight-bound"));
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
        let mut m = RefSlots::new(ref_slot_revision(rev.name()).unwrap(), 1, 0);
        m.track((1, 1), 3, UPDATE_INTV);
        m.flush(4, EXPIRE_INTV);
        m.track((2, 1), 5, UPDATE_INTV);
        let flagged = m.violated.contains(&"no-inflight-overwrite");
        assert_eq!(flagged, rev == SlotRevision::NoInflightGuard, "{rev:?}");
    }
}
