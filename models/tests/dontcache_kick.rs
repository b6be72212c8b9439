//! Expected verdicts of `dontcache-kick` under loom and both shuttle checkers, at the quick tier.
//! Each buggy revision has a test that expects its failure (so a checker that stops finding the
//! bug turns the suite red) and each fixed revision one that expects a pass. The expectations are
//! written out here, not read from the registry. The oracle column is tested in wb-checks.

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_kick::{DontcacheKick, LOST_WAKEUP};
use wb_models::harness::{Model, ShuttleSchedule};
use wb_models::outcome::{Checker, Outcome};
use wb_models::scenario::Scenario;

fn run(revision: &str, checker: Checker) -> Outcome {
    let bounds = Bounds::from_env(Tier::Quick).expect("valid WBCHECK_* / LOOM_* variables");
    DontcacheKick.run(revision, checker, &bounds).expect("known revision")
}

fn assert_passes(revision: &str, checker: Checker) {
    let o = run(revision, checker);
    assert!(!o.bounded, "{revision} {checker:?}: the search was cut short");
    assert!(o.executions > 0);
    assert!(
        o.violated().is_empty(),
        "{revision} {checker:?} should pass, but violated {:?}:\n{:#?}",
        o.violated(),
        o.counterexamples.first()
    );
}

/// A lost wakeup with a readable counterexample naming the functions involved.
fn assert_lost_wakeup(revision: &str, checker: Checker, also_names: &[&str]) -> Outcome {
    let o = run(revision, checker);
    assert_eq!(o.violated(), BTreeSet::from([LOST_WAKEUP]), "{revision} {checker:?}");
    let cx = o.counterexample(LOST_WAKEUP).unwrap();
    assert!(cx.steps.len() >= 3, "{revision} {checker:?}: counterexample too short");
    let functions: BTreeSet<&str> = cx.steps.iter().map(|s| s.function.as_str()).collect();
    for f in ["filemap_dontcache_kick_writeback", "wb_check_start_dontcache"].iter().chain(also_names) {
        assert!(functions.contains(f), "{revision} {checker:?}: no step in {f}; steps: {functions:?}");
    }
    assert!(functions.contains("wb_stat_sum") || functions.contains("wb_stat"));
    assert!(cx.message.contains("WB_start_dontcache"), "{}", cx.message);
    if checker != Checker::Loom {
        assert!(
            cx.replay.as_deref().is_some_and(|r| r.starts_with("shuttle1:")),
            "shuttle counterexample without replay"
        );
    }
    o
}

/// Replaying a shuttle counterexample reproduces its trace exactly.
fn assert_replays(revision: &str, checker: Checker, o: &Outcome) {
    let cx = o.counterexample(LOST_WAKEUP).unwrap();
    let bounds = Bounds::defaults(Tier::Quick);
    let replayed = DontcacheKick
        .replay(revision, checker, ShuttleSchedule::Recorded(cx.replay.as_deref().unwrap()), &bounds)
        .unwrap();
    assert_eq!(replayed.steps, cx.steps, "replay of {revision} {checker:?} produced a different trace");
    assert_eq!(replayed.violations.iter().map(|v| v.property).collect::<Vec<_>>(), vec![LOST_WAKEUP]);
}

mod v7 {
    use super::*;
    #[test]
    fn loom_passes() {
        assert_passes("v7", Checker::Loom);
    }
    #[test]
    fn shuttle_pct_passes() {
        assert_passes("v7", Checker::ShuttlePct);
    }
    #[test]
    fn shuttle_random_passes() {
        assert_passes("v7", Checker::ShuttleRandom);
    }
}

mod v7_posted {
    use super::*;
    #[test]
    fn loom_passes_because_of_mark_inode_dirty_smp_mb() {
        assert_passes("v7-posted", Checker::Loom);
    }
    #[test]
    fn shuttle_pct_passes() {
        assert_passes("v7-posted", Checker::ShuttlePct);
    }
    #[test]
    fn shuttle_random_passes() {
        assert_passes("v7-posted", Checker::ShuttleRandom);
    }
}

mod v7_posted_no_mb {
    use super::*;
    #[test]
    fn loom_finds_the_store_buffering_lost_wakeup() {
        let o =
            assert_lost_wakeup("v7-posted-no-mb", Checker::Loom, &["__mark_inode_dirty", "percpu_counter_add_batch"]);
        let cx = o.counterexample(LOST_WAKEUP).unwrap();
        // The writer skipped the wakeup because it read the bit set.
        assert!(cx.steps.iter().any(|s| s.detail.contains("test_bit(WB_start_dontcache) = 1 -> skip")));
    }
    #[test]
    fn shuttle_pct_cannot_see_weak_memory() {
        assert_passes("v7-posted-no-mb", Checker::ShuttlePct);
    }
    #[test]
    fn shuttle_random_cannot_see_weak_memory() {
        assert_passes("v7-posted-no-mb", Checker::ShuttleRandom);
    }
}

mod v7_no_mb {
    use super::*;
    #[test]
    fn loom_passes_the_fold_needs_no_foreign_barrier() {
        assert_passes("v7-no-mb", Checker::Loom);
    }
    #[test]
    fn shuttle_pct_passes() {
        assert_passes("v7-no-mb", Checker::ShuttlePct);
    }
    #[test]
    fn shuttle_random_passes() {
        assert_passes("v7-no-mb", Checker::ShuttleRandom);
    }
}

mod v5_late_clear {
    use super::*;
    #[test]
    fn loom_fails() {
        assert_lost_wakeup("v5-late-clear", Checker::Loom, &[]);
    }
    #[test]
    fn shuttle_pct_fails_and_replays() {
        let o = assert_lost_wakeup("v5-late-clear", Checker::ShuttlePct, &[]);
        assert_replays("v5-late-clear", Checker::ShuttlePct, &o);
    }
    #[test]
    fn shuttle_random_fails_and_replays() {
        let o = assert_lost_wakeup("v5-late-clear", Checker::ShuttleRandom, &[]);
        assert_replays("v5-late-clear", Checker::ShuttleRandom, &o);
    }
}

mod v5_approx_read {
    use super::*;
    #[test]
    fn loom_fails() {
        assert_lost_wakeup("v5-approx-read", Checker::Loom, &[]);
    }
    #[test]
    fn shuttle_pct_fails_and_replays() {
        let o = assert_lost_wakeup("v5-approx-read", Checker::ShuttlePct, &[]);
        assert_replays("v5-approx-read", Checker::ShuttlePct, &o);
    }
    #[test]
    fn shuttle_random_fails_and_replays() {
        let o = assert_lost_wakeup("v5-approx-read", Checker::ShuttleRandom, &[]);
        assert_replays("v5-approx-read", Checker::ShuttleRandom, &o);
    }
}

#[test]
fn loom_placements_cover_same_cpu_different_cpus_and_migration() {
    use wb_core::ctx::CpuPlan;
    let model = DontcacheKick::model_for(wb_core::revision::KickRevision::V7, Checker::Loom, Tier::Quick);
    let placements = model.loom_placements();
    let writers = |p: &Vec<CpuPlan>| p[..model.config.writers].to_vec();
    assert!(placements.iter().any(|p| writers(p) == vec![CpuPlan::Fixed(0); model.config.writers]));
    assert!(placements.iter().any(|p| writers(p) == vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1)]));
    assert!(placements.iter().any(|p| p.contains(&CpuPlan::Migrate { from: 0, to: 1 })));
}

#[test]
fn unknown_revision_is_an_error_naming_the_valid_ones() {
    let err = DontcacheKick.run("v8", Checker::Loom, &Bounds::defaults(Tier::Quick)).unwrap_err();
    assert!(err.contains("'v8'") && err.contains("v7-posted-no-mb"), "{err}");
}

#[test]
fn malformed_replay_strings_are_errors() {
    let b = Bounds::defaults(Tier::Quick);
    for bad in ["", "0,1,2", "shuttle1:x", "shuttle1:9*3"] {
        assert!(
            DontcacheKick.replay("v7", Checker::ShuttlePct, ShuttleSchedule::Recorded(bad), &b).is_err(),
            "{bad:?} accepted"
        );
    }
}
