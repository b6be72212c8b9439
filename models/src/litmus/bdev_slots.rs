//! bdev-slots: two trackers racing for one idle slot of the per-memcg table.

use super::{loom_reports, Basis, Litmus, Prediction, Proc};
use crate::bdev_slots::{ALL_TRACKED, NAME};
use wb_core::revision::SlotRevision;

pub fn exports() -> Vec<Litmus> {
    [SlotRevision::V6, SlotRevision::Packed].into_iter().map(race).collect()
}

fn tracker(n: usize, dev: u8, locked: bool) -> Proc {
    let (r_at, params) =
        (if n == 0 { "r0" } else { "r1" }, "int *key0, int *at0, int *key1, int *at1, spinlock_t *table_lock");
    let regs: &'static [&'static str] = if n == 0 { &["int r0"] } else { &["int r1"] };
    let mut p = Proc::new(params, regs);
    if locked {
        p = p
            .line("", "no key matches: the seqlock read finds nothing")
            .line("spin_lock(table_lock);", "(packed) the table lock");
    }
    p = p
        .line(format!("{r_at} = *at0;"), "scan: slot 0's time (plain)")
        .line(format!("if ({r_at} == 0) {{"), "the strictly oldest idle slot: 0, until used")
        .line(format!("\t*key0 = {dev};"), "frn->bdi_id, frn->memcg_id = ... (plain)")
        .line("\t*at0 = 10;", "frn->at = now")
        .line("} else {", "slot 1 is then the oldest")
        .line(format!("\t*key1 = {dev};"), "")
        .line("\t*at1 = 10;", "")
        .line("}", "");
    if locked {
        p = p.line("spin_unlock(table_lock);", "");
    }
    p
}

fn race(rev: SlotRevision) -> Litmus {
    let locked = match rev {
        SlotRevision::Packed => true,
        SlotRevision::V6 => false,
        SlotRevision::V5Slot0 | SlotRevision::NoInflightGuard => unreachable!("exported: v6 and packed"),
    };
    let lost = loom_reports(rev, ALL_TRACKED);
    let prediction = if locked { Prediction::sometimes_if(lost) } else { Prediction::sometimes_if(lost).racy() };
    Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: None,
        title: "two trackers racing for one idle slot".into(),
        summary: rev.summary(),
        prediction,
        basis: Basis {
            short: format!("loom: {}", if lost { "fail (all-tracked-within-capacity)" } else { "pass" }),
            long: format!(
                "loom's verdict on all-tracked-within-capacity, {}. {}",
                if lost { "fail" } else { "pass" },
                if locked {
                    "The table lock serialises the two check-then-write passes: the second sees slot 0 taken."
                } else {
                    "The outcome needs no reordering (both scans before either write). DATARACE: the fields \
                     are plain loads and stores with no lock, as in the baseline's cgwb_frn table (\"lockless \
                     and racy\"), so LKMM flags the race; it is the bug, and a torn record \
                     (record-integrity) is its other face."
                }
            ),
        },
        notes: vec![
            "A memcg's table of two slots, both idle (time 0, nothing in flight). P0 and P1 are \
             mem_cgroup_track_foreign_dirty_slowpath for two devices (1 and 2) dirtied by the memcg's tasks \
             at time 10; neither device is in the table. The exists clause: slot 1 is still unused, so both \
             trackers wrote slot 0 and one device has no record although the table had room; throttling cannot \
             ask for its flush until it is dirtied again."
                .into(),
            "Reduced: the scan is unrolled to its choice for this state (slot 0 while its time is 0, else \
             slot 1), the key is one field (the device and memcg ids), done.cnt (1 throughout), the flush side, \
             and for packed the seqlock read of the match path (no key matches, so it writes nothing and falls \
             through to the lock)."
                .into(),
        ],
        init: vec!["key0=0", "at0=0", "key1=0", "at1=0"],
        procs: vec![tracker(0, 1, locked), tracker(1, 2, locked)],
        exists: "key1=0".into(),
    }
}
