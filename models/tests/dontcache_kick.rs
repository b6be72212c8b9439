//! Expected verdicts of `dontcache-kick` under loom and both shuttle checkers, at the quick tier
//! (the whole declared scope).
//! Each buggy revision has a test that expects its failure (so a checker that stops finding the
//! bug turns the suite red) and each fixed revision one that expects a pass. The expectations are
//! written out here, not read from the registry. The oracle column is tested in wb-checks.

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_kick::{DontcacheKick, DIRTY_TRACKING, LOST_WAKEUP};
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

/// The violations of `revision` under `checker`, each with a readable counterexample that names
/// its configuration; a shuttle one must replay exactly.
fn assert_fails(revision: &str, checker: Checker, expected: &[&str]) -> Outcome {
    let o = run(revision, checker);
    assert_eq!(o.violated(), expected.iter().copied().collect::<BTreeSet<_>>(), "{revision} {checker:?}");
    for cx in &o.counterexamples {
        assert!(cx.steps.len() >= 3, "{revision} {checker:?}: counterexample too short");
        assert!(cx.configuration.contains("dontcache-writer"), "{revision}: configuration not named: {cx:?}");
        if checker != Checker::Loom {
            let replay = cx.replay.as_deref().expect("a shuttle counterexample has a replay string");
            let replayed = DontcacheKick
                .replay(revision, checker, ShuttleSchedule::Recorded(replay), &Bounds::defaults(Tier::Quick))
                .unwrap();
            assert_eq!(replayed.steps, cx.steps, "replay of {revision} {checker:?} produced a different trace");
            assert_eq!(replayed.configuration, cx.configuration);
        }
    }
    o
}

/// A lost wakeup whose counterexample shows the kick and the functions that decide it.
fn assert_lost_wakeup(o: &Outcome, names: &[&str]) {
    let cx = o.counterexample(LOST_WAKEUP).unwrap();
    let functions: BTreeSet<&str> = cx.steps.iter().map(|s| s.function.as_str()).collect();
    for f in ["filemap_dontcache_kick_writeback"].iter().chain(names) {
        assert!(functions.contains(f), "no step in {f}; steps: {functions:?}");
    }
    assert!(cx.message.contains("WB_start_dontcache"), "{}", cx.message);
}

const LW: &[&str] = &[LOST_WAKEUP];
const LW_DT: &[&str] = &[DIRTY_TRACKING, LOST_WAKEUP];

mod v7 {
    use super::*;
    #[test]
    fn loom_finds_the_kick_skipped_in_the_dirty_io_window() {
        let o = assert_fails("v7", Checker::Loom, LW);
        assert_lost_wakeup(&o, &["__mark_inode_dirty"]);
        let cx = o.counterexample(LOST_WAKEUP).unwrap();
        assert!(cx.steps.iter().any(|s| s.detail.contains("wb_has_dirty_io = 0 -> no kick")), "{cx:#?}");
    }
    #[test]
    fn shuttle_pct_finds_it_sequentially() {
        assert_fails("v7", Checker::ShuttlePct, LW);
    }
    #[test]
    fn shuttle_random_finds_it_sequentially() {
        assert_fails("v7", Checker::ShuttleRandom, LW);
    }
}

mod v7_posted {
    use super::*;
    #[test]
    fn loom_fails() {
        assert_fails("v7-posted", Checker::Loom, LW);
    }
    #[test]
    fn shuttle_pct_fails() {
        assert_fails("v7-posted", Checker::ShuttlePct, LW);
    }
    #[test]
    fn shuttle_random_fails() {
        assert_fails("v7-posted", Checker::ShuttleRandom, LW);
    }
}

mod no_mb_mutants {
    use super::*;
    #[test]
    fn v7_posted_no_mb_loom_also_loses_the_inode() {
        assert_fails("v7-posted-no-mb", Checker::Loom, LW_DT);
    }
    #[test]
    fn v7_no_mb_loom_also_loses_the_inode() {
        assert_fails("v7-no-mb", Checker::Loom, LW_DT);
    }
    #[test]
    fn v7_no_mb_shuttle_sees_only_the_window() {
        assert_fails("v7-no-mb", Checker::ShuttlePct, LW);
        assert_fails("v7-posted-no-mb", Checker::ShuttleRandom, LW);
    }
}

mod v5 {
    use super::*;
    #[test]
    fn late_clear_loom_fails() {
        assert_lost_wakeup(&assert_fails("v5-late-clear", Checker::Loom, LW), &["wb_check_start_dontcache"]);
    }
    #[test]
    fn late_clear_shuttle_fails_and_replays() {
        assert_fails("v5-late-clear", Checker::ShuttlePct, LW);
        assert_fails("v5-late-clear", Checker::ShuttleRandom, LW);
    }
    #[test]
    fn approx_read_loom_fails() {
        assert_fails("v5-approx-read", Checker::Loom, LW);
    }
    #[test]
    fn approx_read_shuttle_fails_and_replays() {
        assert_fails("v5-approx-read", Checker::ShuttlePct, LW);
        assert_fails("v5-approx-read", Checker::ShuttleRandom, LW);
    }
}

mod v7_fix_kick {
    use super::*;
    #[test]
    fn loom_passes() {
        assert_passes("v7-fix-kick", Checker::Loom);
    }
    #[test]
    fn shuttle_pct_passes() {
        assert_passes("v7-fix-kick", Checker::ShuttlePct);
    }
    #[test]
    fn shuttle_random_passes() {
        assert_passes("v7-fix-kick", Checker::ShuttleRandom);
    }
    #[test]
    fn posted_loom_passes_because_of_mark_inode_dirty_smp_mb() {
        assert_passes("v7-fix-kick-posted", Checker::Loom);
    }
    #[test]
    fn posted_shuttle_passes() {
        assert_passes("v7-fix-kick-posted", Checker::ShuttlePct);
        assert_passes("v7-fix-kick-posted", Checker::ShuttleRandom);
    }
}

mod v7_fix_kick_no_mb {
    use super::*;
    #[test]
    fn posted_loom_finds_the_store_buffering_lost_wakeup() {
        let o = assert_fails("v7-fix-kick-posted-no-mb", Checker::Loom, LW_DT);
        assert_lost_wakeup(&o, &["__mark_inode_dirty", "percpu_counter_add_batch", "wb_check_start_dontcache"]);
        let cx = o.counterexample(LOST_WAKEUP).unwrap();
        assert!(cx.steps.iter().any(|s| s.detail.contains("test_bit(WB_start_dontcache) = 1 -> skip")), "{cx:#?}");
    }
    #[test]
    fn fold_loom_keeps_the_kick_but_loses_the_inode() {
        assert_fails("v7-fix-kick-no-mb", Checker::Loom, &[DIRTY_TRACKING]);
    }
    #[test]
    fn shuttle_cannot_see_weak_memory() {
        for rev in ["v7-fix-kick-posted-no-mb", "v7-fix-kick-no-mb"] {
            assert_passes(rev, Checker::ShuttlePct);
            assert_passes(rev, Checker::ShuttleRandom);
        }
    }
}

#[test]
fn the_scope_holds_every_configuration_once() {
    use wb_models::dontcache_kick::{kick_scope, shuttle_kick_scope, Role};
    let scope = kick_scope();
    // Hand count: D alone (2 initial states); D+D on one folio (2), one inode two folios (2), two
    // inodes (3: clean/clean, one dirty, both); D+B and D+I on one inode (2 each) or two (4 each).
    assert_eq!(scope.len(), 21);
    let labels: BTreeSet<String> = scope.iter().map(|s| s.label()).collect();
    assert_eq!(labels.len(), scope.len(), "two configurations are renamings of each other");
    for roles in [[Role::Dontcache, Role::Buffered], [Role::Dontcache, Role::InodeDirtier]] {
        assert!(scope.iter().any(|s| s.threads.iter().map(|t| t.role).eq(roles) && s.threads[0].inode == s.threads[1].inode));
    }
    assert!(scope.iter().any(|s| s.dirty_at_start.iter().all(|d| !d)) && scope.iter().any(|s| s.dirty_at_start[0]));
    assert!(shuttle_kick_scope().len() > scope.len());
}

#[test]
fn loom_placements_cover_one_cpu_and_two() {
    use wb_core::ctx::CpuPlan;
    let model = DontcacheKick::model_for(wb_core::revision::KickRevision::V7, Checker::Loom, Tier::Quick);
    for variant in model.loom_variants() {
        let setup = &variant.setups[0];
        let adders = setup.threads.iter().filter(|t| t.role == wb_models::dontcache_kick::Role::Dontcache).count();
        let placements = variant.loom_placements();
        assert_eq!(placements.len(), if adders == 2 { 2 } else { 1 }, "{}", setup.label());
        if adders == 2 {
            assert!(placements.iter().any(|p| p.contains(&CpuPlan::Fixed(1))));
        }
    }
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
