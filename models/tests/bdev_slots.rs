//! Expected verdicts of `bdev-slots` under loom and both shuttle checkers (the oracle column is
//! tested in wb-checks).

use std::collections::BTreeSet;
use wb_models::bdev_slots::{BdevSlots, ALL_TRACKED, RECORD_INTEGRITY};
use wb_models::bounds::{Bounds, Tier};
use wb_models::outcome::{Checker, Outcome};
use wb_models::scenario::Scenario;

const RACES: [&str; 4] = ["no-inflight-overwrite", ALL_TRACKED, "oldest-replaced", RECORD_INTEGRITY];

fn run(revision: &str, checker: Checker) -> Outcome {
    let o = BdevSlots.run(revision, checker, &Bounds::from_env(Tier::Quick).unwrap()).unwrap();
    assert!(!o.bounded);
    o
}

#[test]
fn v6_races_under_every_concurrent_checker_and_keeps_the_kernel_guarantees() {
    for c in [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom] {
        let o = run("v6", c);
        assert_eq!(o.violated(), BTreeSet::from(RACES), "{c:?}");
        let cx = o.counterexample("no-inflight-overwrite").unwrap();
        let functions: BTreeSet<&str> = cx.steps.iter().map(|s| s.function.as_str()).collect();
        assert!(
            functions.contains("mem_cgroup_track_foreign_dirty_slowpath")
                && functions.contains("mem_cgroup_flush_foreign"),
            "{functions:?}"
        );
        assert!(cx.steps.iter().any(|s| s.detail.contains("done.cnt")), "slot state in the trace");
    }
}

#[test]
fn the_mutants_race_too() {
    for r in ["v5-slot0", "no-inflight-guard"] {
        for c in [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom] {
            assert_eq!(run(r, c).violated(), BTreeSet::from(RACES), "{r} {c:?}");
        }
    }
}

#[test]
fn packed_passes_every_property() {
    for c in [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom] {
        let o = run("packed", c);
        assert!(o.violated().is_empty(), "{c:?}: {:#?}", o.counterexamples.first());
    }
}

#[test]
fn a_flush_skips_a_closed_device_and_reaches_reused_numbers() {
    // The device-lifecycle role set: bdev_flush_by_dev runs against close and reuse; no flush of a
    // closed device is ever reported (the check is under open_mutex).
    let o = run("packed", Checker::Loom);
    assert!(!o.violated().contains("no-closed-device-flush"));
}
