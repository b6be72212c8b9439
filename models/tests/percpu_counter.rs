//! Expected verdicts of `percpu-counter` under loom and both shuttle checkers.

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::outcome::Checker;
use wb_models::percpu_counter::{PercpuCounterScenario, NO_LOST_UPDATE, QUIESCENT_EXACT};
use wb_models::scenario::Scenario;

fn violated(revision: &str, checker: Checker) -> BTreeSet<&'static str> {
    let o = PercpuCounterScenario.run(revision, checker, &Bounds::from_env(Tier::Quick).unwrap()).unwrap();
    assert!(!o.bounded);
    o.violated()
}

#[test]
fn kernel_passes_every_checker() {
    for c in [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom] {
        assert!(violated("kernel", c).is_empty(), "{c:?}");
    }
}

#[test]
fn unlocked_fold_loses_updates() {
    for c in [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom] {
        assert_eq!(violated("unlocked-fold", c), BTreeSet::from([QUIESCENT_EXACT, NO_LOST_UPDATE]), "{c:?}");
    }
}

#[test]
fn sum_as_read_misses_the_slots() {
    for c in [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom] {
        assert_eq!(violated("sum-as-read", c), BTreeSet::from([QUIESCENT_EXACT]), "{c:?}");
    }
}
