//! Control tests for the workqueue `PENDING` handshake of the flusher's delayed work
//! (core/src/wb.rs: `wb_wakeup` = `mod_delayed_work(bdi_wq, &wb->dwork, 0)`, a fully ordered
//! test-and-set of PENDING; `process_one_work`, which takes the item and clears PENDING before
//! the work function runs; `process_one_work_done`), in both directions.
//!
//! The roles: the queuer stands for `wb_wakeup`'s callers (`filemap_dontcache_kick_writeback`,
//! `inode_switch_wbs_work_fn`, `wb_workfn`'s re-queue); the request it covers is a bit of
//! `wb->state` set before queueing (WB_start_dontcache, as the DONTCACHE kick sets it); the worker
//! stands for a `bdi_wq` kworker running `wb_workfn`.
//!
//! - Too weak: `control_workqueue_queue_during_a_run_is_not_lost`: a queue that finds PENDING set
//!   is covered by a run that starts after it, so some run sees its request (fails if PENDING is
//!   cleared when the run ends instead of when it starts: the kernel's lost-wakeup shape).
//! - Too strong: `control_workqueue_pending_coalesces_queues_before_the_run`: two queues before
//!   the run starts give one run, not two; `control_workqueue_queue_after_the_run_started_gives_a_second_run`:
//!   a queue after the run cleared PENDING gives a second run (fails if a running item absorbs
//!   a queue as a pending one does).
//! - Too weak: `control_workqueue_a_queued_run_waits_for_the_executing_one`: a run queued while
//!   one executes does not start until that one ends (workqueues are non-reentrant: fails if
//!   taking the item does not mark it running, which also lets `flush_delayed_work` return while
//!   a run still executes). Its other direction is the second-run control above: once the first
//!   run ends, the queued one starts.

mod control_support;

use control_support::{explore, task};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use wb_core::ctx::Ctx;
use wb_core::sync::{Loom, Platform};
use wb_core::trace::Trace;
use wb_core::wb::{process_one_work, process_one_work_done, wb_wakeup, Bdi, WB_START_DONTCACHE};

/// Runs the worker starts in a row at most (a run that never clears PENDING would loop).
const MAX_RUNS: usize = 3;

/// What the last run to start read of the request bit: 0 no run yet, 1 clear, 2 set. Written
/// only by the runs, which the workqueue serialises; a std atomic, out of loom's sight.
type LastRun = Arc<std::sync::atomic::AtomicUsize>;

/// Start queued runs until none is queued (at most [`MAX_RUNS`]); each run reads the request
/// bit into `last`. Returns the runs started.
fn run_queued(ctx: &Ctx<Loom>, bdi: &Bdi<Loom>, last: &LastRun) -> usize {
    let wb = bdi.wb(0);
    let mut runs = 0;
    while runs < MAX_RUNS && process_one_work(ctx, wb).is_some() {
        runs += 1;
        let saw = wb.state.test_bit(WB_START_DONTCACHE);
        last.store(1 + usize::from(saw), Relaxed);
        process_one_work_done(ctx, wb);
    }
    runs
}

/// A run is queued; the worker runs queued runs while the queuer sets the request bit and
/// queues. After both, and after running whatever is still queued, the last run to start must
/// have seen the bit.
#[test]
fn control_workqueue_queue_during_a_run_is_not_lost() {
    let explored = explore(Some(3), || {
        let trace = Arc::new(Trace::disabled());
        let bdi = Arc::new(Bdi::<Loom>::new(0, 1, 8, 3));
        let last = LastRun::default();
        let setup = task(&trace, "setup", 0);
        wb_wakeup(&setup, bdi.wb(0));
        let worker = {
            let (trace, bdi, last) = (trace.clone(), bdi.clone(), last.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "worker", 0);
                run_queued(&ctx, &bdi, &last);
            })
        };
        let queuer = {
            let (trace, bdi) = (trace.clone(), bdi.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "queuer", 0);
                bdi.wb(0).state.set_bit(WB_START_DONTCACHE);
                wb_wakeup(&ctx, bdi.wb(0));
            })
        };
        Loom::join(worker);
        Loom::join(queuer);
        run_queued(&setup, &bdi, &last);
        assert_eq!(
            last.load(Relaxed),
            2,
            "lost work: wb_wakeup queued after setting WB_start_dontcache, but no run that started after \
             it saw the bit (last run saw it clear, or no run at all)"
        );
        false
    });
    assert!(explored.executions > 10, "{explored:?}");
}

/// Two queuers each `wb_wakeup` before any run starts; then the worker runs what is queued:
/// exactly one run (PENDING coalesces the second queue into the first).
#[test]
fn control_workqueue_pending_coalesces_queues_before_the_run() {
    let explored = explore(Some(3), || {
        let trace = Arc::new(Trace::disabled());
        let bdi = Arc::new(Bdi::<Loom>::new(0, 1, 8, 3));
        let queuers: Vec<_> = (0..2)
            .map(|i| {
                let (trace, bdi) = (trace.clone(), bdi.clone());
                Loom::spawn(move || {
                    let ctx = task(&trace, if i == 0 { "queuer0" } else { "queuer1" }, 0);
                    wb_wakeup(&ctx, bdi.wb(0));
                })
            })
            .collect();
        for q in queuers {
            Loom::join(q);
        }
        let worker = task(&trace, "worker", 0);
        let runs = run_queued(&worker, &bdi, &LastRun::default());
        assert_eq!(runs, 1, "two wb_wakeup calls before the run started gave {runs} runs, not one");
        false
    });
    assert!(explored.executions > 1, "{explored:?}");
}

/// A run is queued and the worker starts it (clearing PENDING); while it runs, a second task
/// (its name given) does `during`; then the first run ends and the worker tries to start the
/// next queued run. Returns what that try gave.
fn after_a_run_with(
    name: &'static str,
    during: impl Fn(&Ctx<Loom>, &Bdi<Loom>) + Send + Sync + 'static,
) -> Option<bool> {
    let trace = Arc::new(Trace::disabled());
    let bdi = Arc::new(Bdi::<Loom>::new(0, 1, 8, 3));
    let worker = task(&trace, "worker", 0);
    wb_wakeup(&worker, bdi.wb(0));
    assert_eq!(process_one_work(&worker, bdi.wb(0)), Some(true), "the queued run did not start");
    let other = {
        let (trace, bdi) = (trace.clone(), bdi.clone());
        Loom::spawn(move || during(&task(&trace, name, 0), &bdi))
    };
    Loom::join(other);
    process_one_work_done(&worker, bdi.wb(0));
    let next = process_one_work(&worker, bdi.wb(0));
    if next.is_some() {
        process_one_work_done(&worker, bdi.wb(0));
    }
    next
}

/// While the run executes, the queuer queues again. The workqueue must start a second run once
/// the first is done.
#[test]
fn control_workqueue_queue_after_the_run_started_gives_a_second_run() {
    let explored = explore(Some(3), || {
        let second = after_a_run_with("queuer", |ctx, bdi| wb_wakeup(ctx, bdi.wb(0)));
        assert_eq!(
            second,
            Some(true),
            "wb_wakeup after the run had started (PENDING cleared) was absorbed: no second run"
        );
        false
    });
    assert!(explored.executions >= 1, "{explored:?}");
}

/// While the run executes, the queuer queues another, and a second worker (the `bdi_wq`
/// kworker that picks up the queued item) tries to start it: it must not start until the first
/// run ends, and then must.
#[test]
fn control_workqueue_a_queued_run_waits_for_the_executing_one() {
    let explored = explore(Some(3), || {
        let second = after_a_run_with("second_worker", |ctx, bdi| {
            wb_wakeup(ctx, bdi.wb(0));
            let during = process_one_work(ctx, bdi.wb(0));
            assert_eq!(during, None, "a second run of wb->dwork started while the first was executing");
        });
        assert_eq!(second, Some(true), "the run queued during the first did not start after it ended");
        false
    });
    assert!(explored.executions >= 1, "{explored:?}");
}

/// The timer `wb_wakeup_delayed` arms against `wb_wakeup` (`queue_delayed_work` against
/// `mod_delayed_work(.., 0)`), sequentially on the std platform, in both directions.
/// - Too weak: an armed timer, then `wb_wakeup`: the run that starts is an immediate one and no
///   timer is left to fire (fails if `wb_wakeup` leaves the timer armed, or the run counts as the
///   timer's: a kick would then be late by dirty_writeback_interval).
/// - Too strong: `wb_wakeup_delayed` with a run already queued does not delay it or arm anything
///   after it; without one it arms the timer, nothing starts until it fires, and the run it
///   releases is a timer run (fails if the timer queues a run at once).
#[test]
fn control_workqueue_the_timer_against_wakeups() {
    use wb_core::ctx::CpuPlan;
    use wb_core::sync::Std;
    use wb_core::wb::{fire_timer, wb_wakeup_delayed};
    let ctx = Ctx::<Std>::new(Arc::new(Trace::new()), "t", CpuPlan::Fixed(0));
    let bdi = Bdi::<Std>::new(0, 1, 8, 1);
    let wb = bdi.wb(0);
    // Armed, then woken: immediate, nothing left armed.
    wb_wakeup_delayed(&ctx, wb);
    assert!(wb.timer_armed() && process_one_work(&ctx, wb).is_none(), "the timer queued a run at once");
    wb_wakeup(&ctx, wb);
    assert!(!wb.timer_armed());
    assert_eq!(process_one_work(&ctx, wb), Some(true), "a woken run is an immediate one");
    process_one_work_done(&ctx, wb);
    assert!(!fire_timer(&ctx, wb, || true), "the timer wb_wakeup took back fired");
    // Queued, then delayed: the queued run stays immediate; nothing armed after it.
    wb_wakeup(&ctx, wb);
    wb_wakeup_delayed(&ctx, wb);
    assert!(!wb.timer_armed());
    assert_eq!(process_one_work(&ctx, wb), Some(true));
    process_one_work_done(&ctx, wb);
    assert!(!wb.timer_armed() && process_one_work(&ctx, wb).is_none());
    // Armed alone: the run comes only when the timer fires, and it is the timer's.
    wb_wakeup_delayed(&ctx, wb);
    assert!(!fire_timer(&ctx, wb, || false) && wb.timer_armed(), "a declined firing changed the state");
    assert!(fire_timer(&ctx, wb, || true));
    assert_eq!(process_one_work(&ctx, wb), Some(false), "the timer's run counted as an immediate one");
}
