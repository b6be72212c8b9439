//! Expected verdicts of the `oracle` checker (every interleaving of whole kernel calls on the
//! reference model, cross-checked against wb-core), written out per revision.

use std::collections::BTreeSet;
use wb_checks::oracle_check::{check_kick, ORACLE_DIVERGENCE};
use wb_models::bounds::Tier;
use wb_models::dontcache_kick::LOST_WAKEUP;

fn violated(revision: &str) -> BTreeSet<&'static str> {
    let o = check_kick(revision, Tier::Quick).unwrap();
    assert!(o.executions > 1000, "the oracle explored only {} sequences", o.executions);
    assert!(!o.violated().contains(ORACLE_DIVERGENCE), "{revision}: {:#?}", o.counterexample(ORACLE_DIVERGENCE));
    o.violated()
}

#[test]
fn v7_passes_sequentially() {
    // Its lost wakeup needs a kick inside another task's __mark_inode_dirty, between i_lock and
    // list_lock: no sequence of whole calls has it.
    for revision in ["v7", "v7-posted", "v7-posted-no-mb", "v7-no-mb"] {
        assert!(violated(revision).is_empty(), "{revision}");
    }
}

#[test]
fn v5_late_clear_passes_sequentially() {
    // Its bug needs a writer between the flusher's counter read and its clear_bit.
    assert!(violated("v5-late-clear").is_empty());
}

#[test]
fn v5_approx_read_fails_sequentially() {
    assert_eq!(violated("v5-approx-read"), BTreeSet::from([LOST_WAKEUP]));
    let o = check_kick("v5-approx-read", Tier::Quick).unwrap();
    let cx = o.counterexample(LOST_WAKEUP).unwrap();
    assert!(cx.steps.iter().any(|s| s.function == "wb_workfn" && s.detail.contains("budget read = 0")), "{cx:#?}");
    assert!(cx.configuration.contains("dontcache-writer"), "{}", cx.configuration);
}

#[test]
fn the_fixes_pass() {
    for revision in ["v7-fix-kick", "v7-fix-kick-posted", "v7-fix-kick-posted-no-mb", "v7-fix-kick-no-mb"] {
        assert!(violated(revision).is_empty(), "{revision}");
    }
}

#[test]
fn kick_rescuer_v7_loses_the_kick_and_the_fix_passes() {
    use wb_checks::oracle_check::check_rescuer;
    let o = check_rescuer("v7", Tier::Quick).unwrap();
    assert_eq!(o.violated(), BTreeSet::from([LOST_WAKEUP]));
    let cx = o.counterexample(LOST_WAKEUP).unwrap();
    assert!(cx.steps.iter().any(|s| s.detail.contains("run on the rescuer")), "{cx:#?}");
    let o = check_rescuer("v7-fix-rescuer-requeue", Tier::Quick).unwrap();
    assert!(o.violated().is_empty(), "{:#?}", o.counterexamples.first());
    assert!(check_rescuer("v8", Tier::Quick).unwrap_err().contains("v7-fix-rescuer-requeue"));
}

#[test]
fn unknown_revision_is_an_error() {
    let err = check_kick("v9", Tier::Quick).unwrap_err();
    assert!(err.contains("'v9'") && err.contains("v5-approx-read"), "{err}");
}

mod wb_pin {
    use std::collections::BTreeSet;
    use wb_checks::oracle_check::{check_pin, ORACLE_DIVERGENCE};
    use wb_models::bounds::Tier;

    fn violated(revision: &str) -> BTreeSet<&'static str> {
        let o = check_pin(revision, Tier::Quick).unwrap();
        assert!(o.executions > 1000);
        assert!(!o.violated().contains(ORACLE_DIVERGENCE), "{revision}: {:#?}", o.counterexample(ORACLE_DIVERGENCE));
        o.violated()
    }

    #[test]
    fn v7_loses_the_kick_sequentially() {
        assert_eq!(violated("v7"), BTreeSet::from(["lost-wakeup"]));
    }

    #[test]
    fn v7_fix_switch_kick_passes() {
        assert!(violated("v7-fix-switch-kick").is_empty());
    }

    #[test]
    fn v6_unpinned_cannot_split_its_kick_sequentially() {
        assert_eq!(violated("v6-unpinned"), BTreeSet::from(["lost-wakeup"]));
    }

    #[test]
    fn v5_wakeup_in_section_between_the_two_switch_calls() {
        assert_eq!(violated("v5-wakeup-in-section"), BTreeSet::from(["irq-enabled-under-lock", "lost-wakeup"]));
    }

    #[test]
    fn put_before_wakeup_cannot_split_its_kick_sequentially() {
        assert_eq!(violated("put-before-wakeup"), BTreeSet::from(["lost-wakeup"]));
    }
}

mod dontcache_accounting {
    use wb_checks::oracle_check::{check_accounting, ORACLE_DIVERGENCE};
    use wb_models::bounds::Tier;

    fn fails(revision: &str) -> bool {
        let o = check_accounting(revision, Tier::Quick).unwrap();
        assert!(o.executions > 1000);
        assert!(!o.violated().contains(ORACLE_DIVERGENCE), "{revision}: {:#?}", o.counterexample(ORACLE_DIVERGENCE));
        !o.violated().is_empty()
    }

    #[test]
    fn sequential_defects_fail_under_the_oracle() {
        for r in ["v5-no-guard", "v6-no-switch-transfer", "v6-split-drops-flag", "v6-u32-negate-32bit"] {
            assert!(fails(r), "{r}");
        }
    }

    #[test]
    fn v7_its_races_and_the_64bit_negation_pass_sequentially() {
        for r in [
            "v7",
            "v5-double-dec",
            "v6-u32-negate-64bit",
            "v7-partial-flag-snapshot",
            "v7-partial-snapshot-in-section",
            "v7-fix-counted-bit",
        ] {
            assert!(!fails(r), "{r}");
        }
    }
}

mod percpu_counter {
    use wb_checks::oracle_check::{check_percpu, ORACLE_DIVERGENCE};

    #[test]
    fn verdicts() {
        for (r, fails) in [("kernel", false), ("unlocked-fold", false), ("sum-as-read", true)] {
            let o = check_percpu(r).unwrap();
            assert!(!o.violated().contains(ORACLE_DIVERGENCE));
            assert_eq!(!o.violated().is_empty(), fails, "{r}");
        }
    }
}

mod bdev_slots {
    use std::collections::BTreeSet;
    use wb_checks::oracle_check::{check_slots, ORACLE_DIVERGENCE};

    fn violated(revision: &str) -> BTreeSet<&'static str> {
        let o = check_slots(revision).unwrap();
        assert!(o.executions > 1000);
        assert!(!o.violated().contains(ORACLE_DIVERGENCE), "{revision}: {:#?}", o.counterexample(ORACLE_DIVERGENCE));
        o.violated()
    }

    #[test]
    fn v6_and_packed_pass_sequentially() {
        assert!(violated("v6").is_empty());
        assert!(violated("packed").is_empty());
    }

    #[test]
    fn slot0_and_the_missing_guard_fail_sequentially() {
        assert_eq!(violated("v5-slot0"), BTreeSet::from(["all-tracked-within-capacity", "no-inflight-overwrite"]));
        assert_eq!(violated("no-inflight-guard"), BTreeSet::from(["no-inflight-overwrite"]));
    }
}

mod foreign_policy {
    use std::collections::BTreeSet;
    use wb_checks::oracle_check::check_policy;

    fn violated(revision: &str) -> BTreeSet<&'static str> {
        let o = check_policy(revision).unwrap();
        assert!(o.executions > 1);
        o.violated()
    }

    #[test]
    fn each_policy_fails_what_it_gives_up() {
        assert_eq!(violated("baseline"), BTreeSet::from(["flush-scope"]));
        assert_eq!(violated("skip-bdev"), BTreeSet::from(["pressure-relief"]));
        assert!(violated("separate-bdev").is_empty());
        assert!(check_policy("packed").is_err());
    }
}
