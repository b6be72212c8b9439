//! The deep exhaustive loom tier, selected by the ecosystem convention
//! `RUSTFLAGS="--cfg loom" cargo test --release`. Same expectations as the quick tier, written
//! out per revision, at the deep sizes of each scenario (see its header) and the deep bounds
//! (`models/src/bounds.rs`; the WBCHECK_* and LOOM_* variables apply).
#![cfg(loom)]

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_kick::{DontcacheKick, DIRTY_TRACKING, LOST_WAKEUP};
use wb_models::outcome::Checker;
use wb_models::scenario::Scenario;

fn violated(revision: &str) -> BTreeSet<&'static str> {
    let bounds = Bounds::from_env(Tier::Deep).expect("valid bounds");
    let o = DontcacheKick.run(revision, Checker::Loom, &bounds).unwrap();
    assert!(!o.bounded, "{revision}: the deep loom search was cut short after {} executions", o.executions);
    eprintln!("{revision}: {} executions in {} ms", o.executions, o.millis);
    o.violated()
}

#[test]
fn dontcache_kick_v7_loses_a_wakeup() {
    assert_eq!(violated("v7"), BTreeSet::from([LOST_WAKEUP]));
}

#[test]
fn dontcache_kick_v7_fix_kick_passes() {
    assert!(violated("v7-fix-kick").is_empty());
}

#[test]
fn dontcache_kick_v7_fix_kick_posted_passes() {
    assert!(violated("v7-fix-kick-posted").is_empty());
}

#[test]
fn dontcache_kick_v7_fix_kick_posted_no_mb_loses_a_wakeup() {
    assert_eq!(violated("v7-fix-kick-posted-no-mb"), BTreeSet::from([DIRTY_TRACKING, LOST_WAKEUP]));
}

#[test]
fn dontcache_kick_v7_fix_kick_no_mb_keeps_the_kick() {
    assert_eq!(violated("v7-fix-kick-no-mb"), BTreeSet::from([DIRTY_TRACKING]));
}

#[test]
fn dontcache_kick_v5_late_clear_loses_a_wakeup() {
    assert_eq!(violated("v5-late-clear"), BTreeSet::from([LOST_WAKEUP]));
}

#[test]
fn dontcache_kick_v5_approx_read_loses_a_wakeup() {
    assert_eq!(violated("v5-approx-read"), BTreeSet::from([LOST_WAKEUP]));
}

mod wb_pin {
    use super::*;
    use wb_models::wb_pin::WbPin;

    fn violated(revision: &str) -> BTreeSet<&'static str> {
        let bounds = Bounds::from_env(Tier::Deep).expect("valid bounds");
        let o = WbPin.run(revision, Checker::Loom, &bounds).unwrap();
        assert!(!o.bounded, "{revision}: the deep loom search was cut short after {} executions", o.executions);
        eprintln!("wb-pin {revision}: {} executions in {} ms", o.executions, o.millis);
        o.violated()
    }

    #[test]
    fn v7_loses_the_kick_across_the_switch() {
        assert_eq!(violated("v7"), BTreeSet::from(["lost-wakeup"]));
    }

    #[test]
    fn v7_fix_switch_kick_passes() {
        assert!(violated("v7-fix-switch-kick").is_empty());
    }

    #[test]
    fn v6_unpinned_use_after_free() {
        assert_eq!(violated("v6-unpinned"), BTreeSet::from(["use-after-free", "lost-wakeup"]));
    }

    #[test]
    fn v5_wakeup_in_section_irq() {
        assert_eq!(violated("v5-wakeup-in-section"), BTreeSet::from(["irq-enabled-under-lock", "lost-wakeup"]));
    }

    #[test]
    fn put_before_wakeup_use_after_free() {
        assert_eq!(violated("put-before-wakeup"), BTreeSet::from(["use-after-free", "lost-wakeup"]));
    }
}
