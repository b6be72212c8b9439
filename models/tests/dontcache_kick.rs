//! Why dontcache-kick's counterexamples fail: each names its configuration and shows the steps
//! the finding rests on (the verdicts themselves are in wb-checks' `expectations.rs`).

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_kick::{DontcacheKick, EXPEDITION, NO_IDLE_SPIN};
use wb_models::harness::{Model, ShuttleSchedule};
use wb_models::outcome::{Checker, Outcome};
use wb_models::scenario::Scenario;

fn run(revision: &str, checker: Checker) -> Outcome {
    let bounds = Bounds::from_env(Tier::Quick).expect("valid WBCHECK_* / LOOM_* variables");
    DontcacheKick.run(revision, checker, &bounds).expect("known revision")
}

/// The lost expedition of `revision` under `checker`: its counterexample names its configuration
/// and shows the kick and the functions that decide it (`names`); a shuttle one keeps its
/// configuration on replay.
fn lost_wakeup(revision: &str, checker: Checker, names: &[&str]) -> Outcome {
    let o = run(revision, checker);
    let cx = o.counterexample(EXPEDITION).unwrap_or_else(|| panic!("{revision} {checker:?}: no lost expedition"));
    assert!(cx.configuration.contains("dontcache-writer"), "{revision}: configuration not named: {cx:?}");
    let functions: BTreeSet<&str> = cx.steps.iter().map(|s| s.function.as_str()).collect();
    for f in ["filemap_dontcache_kick_writeback"].iter().chain(names) {
        assert!(functions.contains(f), "no step in {f}; steps: {functions:?}");
    }
    assert!(cx.message.contains("WB_start_dontcache"), "{}", cx.message);
    if checker != Checker::Loom {
        let replay = cx.replay.as_deref().expect("a shuttle counterexample has a replay string");
        let replayed = DontcacheKick
            .replay(revision, checker, ShuttleSchedule::Recorded(replay), &Bounds::defaults(Tier::Quick))
            .unwrap();
        assert_eq!(replayed.configuration, cx.configuration);
    }
    o
}

/// `v7-fix-kick-hold-short` with two threads: an inode-dirtier holds the clean inode between
/// `i_lock` and `list_lock` while the writer, seeing it dirty, kicks; the kick's run consumes the
/// bit, finds no inode listed and leaves the bit clear, so the dirtier's first-dirty test only
/// arms the timer (docs/findings.md). loom's deep search found it (smallest bound 3) before the
/// flusher's call boundaries became visible to the search; this replays the same execution as
/// the byte-driven scheduler found it (`fuzz/regressions/sched_dontcache_kick/`), sequentially
/// consistent: the bug needs no weak memory.
#[test]
fn the_short_consume_loses_the_kick_to_a_dirtier_in_its_window() {
    let bytes = include_bytes!("../../fuzz/regressions/sched_dontcache_kick/v7-fix-kick-hold-short.expedition");
    let r = DontcacheKick
        .replay(
            "v7-fix-kick-hold-short",
            Checker::ShuttleRandom,
            ShuttleSchedule::Bytes(bytes),
            &Bounds::defaults(Tier::Quick),
        )
        .unwrap();
    assert_eq!(r.configuration, "dontcache-writer(i0 f0) + inode-dirtier(i0); every inode clean, WB_has_dirty_io 0");
    assert!(r.violations.iter().any(|v| v.property == EXPEDITION), "{:?}", r.violations);
    let at =
        |detail: &str| r.steps.iter().position(|s| s.detail.contains(detail)).unwrap_or_else(|| panic!("no {detail}"));
    let window = at("was clean -> drop i_lock, take list_lock");
    let kick = at("test_and_set_bit(WB_start_dontcache) = 0 -> wake");
    let empty = at("0 inode(s) -> b_io");
    let listed = at("first dirty inode of wb0: test_bit(WB_start_dontcache) = 0");
    assert!(window < kick && kick < empty && empty < listed, "{:#?}", r.steps);
}

/// v7 with only the rescuer fixed: the kick skipped in the window of `__mark_inode_dirty` where
/// another task has set the inode's dirty bits but not yet put it on `b_dirty` (WB_has_dirty_io
/// still clear).
#[test]
fn the_guard_skips_the_kick_in_the_dirty_io_window() {
    let o = lost_wakeup("v7-fix-rescuer-requeue", Checker::Loom, &["__mark_inode_dirty"]);
    let cx = o.counterexample(EXPEDITION).unwrap();
    assert!(cx.steps.iter().any(|s| s.detail.contains("wb_has_dirty_io = 0 -> no kick")), "{cx:#?}");
    lost_wakeup("v7-fix-rescuer-requeue", Checker::ShuttlePct, &["__mark_inode_dirty"]);
}

/// v7 with only the kick fixed: a flusher run on bdi_wq's rescuer writes back without consuming
/// the kick, and a later kick finds the bit set; `wb_workfn`'s end does not queue the run the set
/// bit waits for, and only the timer's run (dirty_writeback_interval later) consumes it.
#[test]
fn the_rescuer_absorbs_the_kick_without_the_requeue() {
    for revision in ["v7-fix-kick", "v7-fix-kick-posted"] {
        let o = lost_wakeup(revision, Checker::Loom, &["wb_workfn", "rescuer_thread"]);
        let cx = o.counterexample(EXPEDITION).unwrap();
        assert!(cx.steps.iter().any(|s| s.detail.contains("WB_start_dontcache untouched")), "{revision}: {cx:#?}");
        assert!(cx.steps.iter().any(|s| s.detail.contains("(WB_start_dontcache) = 1 -> skip")), "{revision}: {cx:#?}");
        assert!(cx.message.contains("timer"), "{revision}: {}", cx.message);
    }
}

/// v7-fix-kick-requeue (issue 32): a run on the rescuer that finds WB_start_dontcache set and
/// nothing to write queues itself again: the spin `no-idle-spin` reports with its first repeat
/// (loom, the fairness bound K = 1 then hands the next run to a worker).
#[test]
fn the_requeue_spins_on_the_rescuer() {
    for revision in ["v7-fix-kick-requeue", "v7-fix-kick-posted-requeue"] {
        let o = run(revision, Checker::Loom);
        let cx = o.counterexample(NO_IDLE_SPIN).unwrap_or_else(|| panic!("{revision}: no spin"));
        assert!(cx.message.contains("rescuer") && cx.message.contains("wrote nothing"), "{}", cx.message);
        assert!(cx.steps.iter().any(|s| s.detail.contains("wrote 0 page(s); WB_start_dontcache untouched")), "{cx:#?}");
        assert!(
            cx.steps.iter().any(|s| s.detail.contains("(fix) WB_start_dontcache still set -> wb_wakeup")),
            "{cx:#?}"
        );
    }
}

/// v7-fix-kick-requeue (issue 32): the kick's run comes while another task is between
/// `__mark_inode_dirty`'s `i_lock` and `list_lock`: its consume reads a budget, writes nothing (the
/// inode is on no list yet), and the first dirtier then only arms the timer.
#[test]
fn the_kick_run_can_come_too_early() {
    let o = run("v7-fix-kick-requeue", Checker::ShuttlePct);
    let cx = o.counterexample(EXPEDITION).expect("the early consume");
    let consumed = cx.steps.iter().position(|s| s.detail.contains("test_and_clear_bit(WB_start_dontcache) = 1"));
    let listed = cx.steps.iter().rposition(|s| s.detail.contains("-> wb0 b_dirty"));
    assert!(consumed.is_some() && listed.is_some() && consumed < listed, "{cx:#?}");
    assert!(cx.steps.iter().any(|s| s.detail.contains("was clean -> drop i_lock, take list_lock")), "{cx:#?}");
}

/// v5-late-clear: the writer's test falls between the flusher's sum and its clear (shuttle's
/// shortest counterexample may be v7's own window instead: v5 has the guard too).
#[test]
fn v5_late_clear_loses_the_kick_to_the_late_clear() {
    lost_wakeup("v5-late-clear", Checker::Loom, &["wb_check_start_dontcache"]);
    lost_wakeup("v5-late-clear", Checker::ShuttleRandom, &[]);
}

/// Without `__mark_inode_dirty`'s `smp_mb()` the posted early-out is store buffering: the writer
/// reads the bit still set while the flusher's sum misses its add.
#[test]
fn posted_kick_without_the_barrier_is_store_buffering() {
    let o = lost_wakeup(
        "v7-fix-kick-posted-requeue-no-mb",
        Checker::Loom,
        &["__mark_inode_dirty", "percpu_counter_add_batch", "wb_check_start_dontcache"],
    );
    let cx = o.counterexample(EXPEDITION).unwrap();
    assert!(cx.steps.iter().any(|s| s.detail.contains("test_bit(WB_start_dontcache) = 1 -> skip")), "{cx:#?}");
}

/// The fix passes under loom, `dirty-tracking` included: an `__mark_inode_dirty(I_DIRTY_SYNC)`
/// that lands while the flusher writes the inode leaves it to `requeue_inode`, which must keep it
/// on the lists (an inode taken off them with I_DIRTY_SYNC set is never written back).
#[test]
fn v7_fix_kick_hold_passes_with_a_dirtier_inside_writeback() {
    let o = run("v7-fix-kick-hold", Checker::Loom);
    assert!(o.violated().is_empty(), "{o:#?}");
}

#[test]
fn the_scope_holds_every_configuration_once() {
    use wb_models::dontcache_kick::{kick_scope, shuttle_kick_scope, Role};
    let scope = kick_scope();
    // Hand count: D alone (2 initial states); D+D on one folio (2), one inode two folios (2), two
    // inodes (3: clean/clean, one dirty, both); D+B, D+I and D+F on one inode (2 each) or two (4
    // each): 27 configurations (the kind of each flusher run is a choice inside each).
    assert_eq!(scope.len(), 27);
    let labels: BTreeSet<String> = scope.iter().map(|s| s.label()).collect();
    assert_eq!(labels.len(), scope.len(), "two configurations are renamings of each other");
    for roles in [
        [Role::Dontcache, Role::Buffered],
        [Role::Dontcache, Role::InodeDirtier],
        [Role::Dontcache, Role::DropbehindFault],
    ] {
        assert!(scope
            .iter()
            .any(|s| s.threads.iter().map(|t| t.role).eq(roles) && s.threads[0].inode == s.threads[1].inode));
    }
    assert!(scope.iter().any(|s| s.dirty_at_start.iter().all(|d| !d)) && scope.iter().any(|s| s.dirty_at_start[0]));
    assert!(shuttle_kick_scope().len() > scope.len());
}

/// Every tier runs every configuration; the quick tier bounds consecutive rescuer runs by K = 1
/// and runs two adders to WB_DONTCACHE_DIRTY on two CPUs only, the scope and deep tiers K = 2 and
/// both placements (one CPU: the second add folds; two CPUs).
#[test]
fn loom_tiers_cover_the_scope_as_declared() {
    use wb_core::ctx::CpuPlan;
    use wb_models::dontcache_kick::kick_scope;
    for tier in [Tier::Quick, Tier::Scope, Tier::Deep] {
        let model = DontcacheKick::model_for(wb_core::revision::KickRevision::V7, Checker::Loom, tier);
        assert_eq!(model.loom_variants().len(), kick_scope().len(), "{tier:?}");
        assert_eq!(model.bounds.flusher.rescuer_streak, if tier == Tier::Quick { 1 } else { 2 });
        assert!(model.bounds.flusher.max_runs > 2 * model.bounds.flusher.looks + model.bounds.flusher.after_others());
        for variant in model.loom_variants() {
            let setup = &variant.setups[0];
            let adders = setup.threads.iter().filter(|t| t.role.adds()).count();
            let placements = variant.loom_placements();
            let both = adders == 2 && tier != Tier::Quick;
            assert_eq!(placements.len(), if both { 2 } else { 1 }, "{tier:?} {}", setup.label());
            if adders == 2 {
                assert!(placements[0].contains(&CpuPlan::Fixed(1)), "two CPUs first: {}", setup.label());
            }
        }
    }
}

#[test]
fn unknown_revision_is_an_error_naming_the_valid_ones() {
    let err = DontcacheKick.run("no-such-revision", Checker::Loom, &Bounds::defaults(Tier::Quick)).unwrap_err();
    assert!(err.contains("'no-such-revision'") && err.contains("v7-posted-no-mb"), "{err}");
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

/// The dropbehind-fault (a write fault on a clean PG_dropbehind folio: counted, no kick) over its
/// configurations alone: it is a first dirtier that does not kick, so the guard's window loses the
/// kick with it as with an inode dirtier; the fix passes with its pages counted among the writer's
/// (they are not owed an expedition).
#[test]
fn a_fault_counts_without_kicking_and_the_fix_still_holds() {
    use std::sync::Arc;
    use wb_core::revision::KickRevision;
    use wb_models::dontcache_kick::Role;
    use wb_models::harness::run_loom;
    let bounds = Bounds::from_env(Tier::Quick).expect("valid WBCHECK_* / LOOM_* variables");
    let with_fault = |revision: KickRevision| {
        let mut model = DontcacheKick::model_for(revision, Checker::Loom, Tier::Quick);
        let setups = model.setups.iter().filter(|s| s.threads.iter().any(|t| t.role == Role::DropbehindFault));
        model.setups = Arc::new(setups.cloned().collect());
        assert_eq!(model.setups.len(), 6, "D+F: one inode (2 starts) or two (4)");
        run_loom(&model, &Bounds { loom_preemptions: model.loom_preemptions(Tier::Quick), ..bounds.clone() })
    };
    let o = with_fault(KickRevision::V7FixRescuerRequeue);
    let cx = o.counterexample(EXPEDITION).expect("the guard's window with a fault as the first dirtier");
    assert!(cx.configuration.contains("dropbehind-fault"), "{}", cx.configuration);
    assert!(cx.steps.iter().any(|s| s.detail.contains("wb_has_dirty_io = 0 -> no kick")), "{cx:#?}");
    let o = with_fault(KickRevision::V7FixKickHold);
    assert!(o.violated().is_empty(), "{o:#?}");
}
