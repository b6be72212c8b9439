//! Why wb-pin's counterexamples fail: each shows the steps of the race it reports (the verdicts
//! themselves are in wb-checks' `expectations.rs`).

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::outcome::{Checker, Counterexample};
use wb_models::scenario::Scenario;
use wb_models::wb_pin::{WbPin, EXPEDITION};

const UAF: &str = "use-after-free";
const IRQ: &str = "irq-enabled-under-lock";

/// The counterexample of `property` for `revision` under `checker`.
fn counterexample(revision: &str, checker: Checker, property: &str) -> Counterexample {
    let bounds = Bounds::from_env(Tier::Quick).expect("valid bounds");
    let o = WbPin.run(revision, checker, &bounds).expect("known revision");
    o.counterexample(property).unwrap_or_else(|| panic!("{revision} {checker:?}: no {property}")).clone()
}

/// The use after free names the functions of the lifetime race, with the wb's refcount.
fn assert_use_after_free(revision: &str, checker: Checker, functions: &[&str]) {
    let cx = counterexample(revision, checker, UAF);
    let seen: BTreeSet<&str> = cx.steps.iter().map(|s| s.function.as_str()).collect();
    for f in functions {
        assert!(seen.contains(f), "{UAF} counterexample without {f}: {seen:?}");
    }
    assert!(cx.steps.iter().any(|s| s.detail.contains("refcnt")), "no refcount state in the trace");
}

/// v7: the kick is set on the old wb, and the switch moves the DONTCACHE pages to the new wb
/// without it: no run of the new wb writes the page until its timer fires.
#[test]
fn v7_loses_the_kick_across_the_switch() {
    let cx = counterexample("v7", Checker::Loom, EXPEDITION);
    assert!(cx.message.contains("wb2"), "{}", cx.message);
    assert!(cx.steps.iter().any(|s| s.function == "inode_do_switch_wbs"));
}

#[test]
fn v6_unpinned_wakes_a_freed_wb() {
    let race = ["unlocked_inode_to_wb_end", "wb_wakeup", "wb_put_many", "inode_do_switch_wbs", "cgwb_free_rcu"];
    assert_use_after_free("v6-unpinned", Checker::Loom, &race);
    assert_use_after_free(
        "v6-unpinned",
        Checker::ShuttlePct,
        &["unlocked_inode_to_wb_end", "wb_wakeup", "cgwb_free_rcu"],
    );
}

#[test]
fn put_before_wakeup_wakes_a_freed_wb() {
    assert_use_after_free("put-before-wakeup", Checker::Loom, &["wb_put", "wb_wakeup", "cgwb_free_rcu"]);
}

/// v5: `wb_wakeup`'s `spin_unlock_irq` inside the section re-enables IRQs under the i_pages
/// `xa_lock_irqsave` that the switch in progress made the section take.
#[test]
fn v5_wakeup_in_section_enables_irqs_under_the_xa_lock() {
    let cx = counterexample("v5-wakeup-in-section", Checker::Loom, IRQ);
    assert!(cx.steps.iter().any(|s| s.detail.contains("I_WB_SWITCH = 1 -> xa_lock_irqsave")));
    assert!(cx.message.contains("wb_wakeup"), "{}", cx.message);
}
