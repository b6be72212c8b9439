//! Expected verdicts of `wb-pin` under loom and both shuttle checkers, per property, written out
//! here (the oracle column is tested in wb-checks).

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::outcome::{Checker, Outcome};
use wb_models::scenario::Scenario;
use wb_models::wb_pin::{WbPin, LOST_WAKEUP};

const UAF: &str = "use-after-free";
const IRQ: &str = "irq-enabled-under-lock";

fn run(revision: &str, checker: Checker) -> Outcome {
    let bounds = Bounds::from_env(Tier::Quick).expect("valid bounds");
    WbPin.run(revision, checker, &bounds).expect("known revision")
}

fn assert_violates(revision: &str, checker: Checker, expected: &[&str]) -> Outcome {
    let o = run(revision, checker);
    assert!(!o.bounded, "{revision} {checker:?}: search cut short");
    let want: BTreeSet<&str> = expected.iter().copied().collect();
    assert_eq!(o.violated(), want, "{revision} {checker:?}: {:#?}", o.counterexamples.first().map(|c| &c.message));
    o
}

/// The counterexample names the functions of the lifetime race with the wb's state.
fn assert_names(o: &Outcome, property: &str, functions: &[&str]) {
    let cx = o.counterexample(property).unwrap();
    let seen: BTreeSet<&str> = cx.steps.iter().map(|s| s.function.as_str()).collect();
    for f in functions {
        assert!(seen.contains(f), "{property} counterexample without {f}: {seen:?}");
    }
    assert!(cx.steps.iter().any(|s| s.detail.contains("refcnt")), "no refcount state in the trace");
}

mod v7 {
    use super::*;
    #[test]
    fn loom_loses_the_kick_across_the_switch_and_nothing_else() {
        let o = assert_violates("v7", Checker::Loom, &[LOST_WAKEUP]);
        let cx = o.counterexample(LOST_WAKEUP).unwrap();
        assert!(cx.message.contains("wb2"), "{}", cx.message);
        assert!(cx.steps.iter().any(|s| s.function == "inode_do_switch_wbs"));
    }
    #[test]
    fn shuttle_pct() {
        assert_violates("v7", Checker::ShuttlePct, &[LOST_WAKEUP]);
    }
    #[test]
    fn shuttle_random() {
        assert_violates("v7", Checker::ShuttleRandom, &[LOST_WAKEUP]);
    }
}

mod v7_fix_switch_kick {
    use super::*;
    #[test]
    fn loom_passes_every_property() {
        assert_violates("v7-fix-switch-kick", Checker::Loom, &[]);
    }
    #[test]
    fn shuttle_pct_passes() {
        assert_violates("v7-fix-switch-kick", Checker::ShuttlePct, &[]);
    }
    #[test]
    fn shuttle_random_passes() {
        assert_violates("v7-fix-switch-kick", Checker::ShuttleRandom, &[]);
    }
}

mod v6_unpinned {
    use super::*;
    #[test]
    fn loom_finds_the_use_after_free() {
        let o = assert_violates("v6-unpinned", Checker::Loom, &[UAF, LOST_WAKEUP]);
        assert_names(
            &o,
            UAF,
            &["unlocked_inode_to_wb_end", "wb_wakeup", "wb_put_many", "inode_do_switch_wbs", "cgwb_free_rcu"],
        );
    }
    #[test]
    fn shuttle_pct_finds_the_use_after_free() {
        let o = assert_violates("v6-unpinned", Checker::ShuttlePct, &[UAF, LOST_WAKEUP]);
        assert_names(&o, UAF, &["unlocked_inode_to_wb_end", "wb_wakeup", "cgwb_free_rcu"]);
    }
    #[test]
    fn shuttle_random_misses_the_narrow_window() {
        assert_violates("v6-unpinned", Checker::ShuttleRandom, &[LOST_WAKEUP]);
    }
}

mod v5_wakeup_in_section {
    use super::*;
    #[test]
    fn loom_finds_irqs_enabled_under_the_xa_lock() {
        let o = assert_violates("v5-wakeup-in-section", Checker::Loom, &[IRQ, LOST_WAKEUP]);
        let cx = o.counterexample(IRQ).unwrap();
        assert!(cx.steps.iter().any(|s| s.detail.contains("I_WB_SWITCH = 1 -> xa_lock_irqsave")));
        assert!(cx.message.contains("wb_wakeup"), "{}", cx.message);
    }
    #[test]
    fn shuttle_pct() {
        assert_violates("v5-wakeup-in-section", Checker::ShuttlePct, &[IRQ, LOST_WAKEUP]);
    }
    #[test]
    fn shuttle_random() {
        assert_violates("v5-wakeup-in-section", Checker::ShuttleRandom, &[IRQ, LOST_WAKEUP]);
    }
}

mod put_before_wakeup {
    use super::*;
    #[test]
    fn loom_finds_the_use_after_free() {
        let o = assert_violates("put-before-wakeup", Checker::Loom, &[UAF, LOST_WAKEUP]);
        assert_names(&o, UAF, &["wb_put", "wb_wakeup", "cgwb_free_rcu"]);
    }
    #[test]
    fn shuttle_pct_finds_the_use_after_free() {
        assert_violates("put-before-wakeup", Checker::ShuttlePct, &[UAF, LOST_WAKEUP]);
    }
    #[test]
    fn shuttle_random_misses_the_narrow_window() {
        assert_violates("put-before-wakeup", Checker::ShuttleRandom, &[LOST_WAKEUP]);
    }
}
