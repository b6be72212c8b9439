//! Expected verdicts of `foreign-policy` under loom and both shuttle checkers (the oracle column is
//! tested in wb-checks).

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::foreign_policy::{ForeignPolicyScenario, FLUSH_SCOPE, PRESSURE_RELIEF};
use wb_models::outcome::{Checker, Outcome};
use wb_models::scenario::Scenario;

const CONCURRENT: [Checker; 3] = [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom];

fn run(revision: &str, checker: Checker) -> Outcome {
    let o = ForeignPolicyScenario.run(revision, checker, &Bounds::from_env(Tier::Quick).unwrap()).unwrap();
    assert!(!o.bounded);
    o
}

fn functions(o: &Outcome, property: &str) -> BTreeSet<String> {
    o.counterexample(property).unwrap().steps.iter().map(|s| s.function.clone()).collect()
}

#[test]
fn baseline_flushes_the_whole_owner_wb() {
    for c in CONCURRENT {
        let o = run("baseline", c);
        assert_eq!(o.violated(), BTreeSet::from([FLUSH_SCOPE]), "{c:?}");
        let f = functions(&o, FLUSH_SCOPE);
        for name in ["mem_cgroup_track_foreign_dirty_slowpath", "mem_cgroup_flush_foreign", "cgroup_writeback_by_id"] {
            assert!(f.contains(name), "{c:?}: {f:?}");
        }
    }
}

#[test]
fn skip_bdev_requests_no_bdev_writeback() {
    for c in CONCURRENT {
        let o = run("skip-bdev", c);
        assert_eq!(o.violated(), BTreeSet::from([PRESSURE_RELIEF]), "{c:?}");
        assert!(functions(&o, PRESSURE_RELIEF).contains("mem_cgroup_track_foreign_dirty_slowpath"));
    }
}

#[test]
fn separate_bdev_passes_both() {
    for c in CONCURRENT {
        let o = run("separate-bdev", c);
        assert!(o.violated().is_empty(), "{c:?}: {:#?}", o.counterexamples.first());
        assert!(o.executions > 1, "{c:?}");
    }
}

#[test]
fn unknown_policy_is_an_error() {
    let e = ForeignPolicyScenario.run("v9", Checker::Loom, &Bounds::from_env(Tier::Quick).unwrap()).unwrap_err();
    assert!(e.contains("separate-bdev"), "{e}");
}
