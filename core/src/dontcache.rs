//! The RWF_DONTCACHE flusher kick and its consumer (seed 002 patch 3, fs/fs-writeback.c), and
//! the flusher's work function around them.
//!
//! Writers set WB_start_dontcache and wake the flusher; the flusher consumes the bit and writes
//! back as many pages as WB_DONTCACHE_DIRTY holds. The bit coalesces kicks, like WB_start_all,
//! so correctness rests on the order "consume the bit, then read the counter" on one side and
//! "add to the counter, then test the bit" on the other.

use crate::ctx::Ctx;
use crate::fs_writeback::{wb_writeback, WbReason};
use crate::inode::{unlocked_inode_to_wb_begin, unlocked_inode_to_wb_end, Inode};
use crate::revision::{Consume, Kick, KickGuard, KickPin, KickProtocol, Requeue, ShortConsume};
use crate::sync::Platform;
use crate::wb::{
    process_one_work, process_one_work_done, wb_get, wb_put, wb_stat, wb_stat_sum, wb_wakeup, wb_wakeup_delayed,
    Access, Wb, WbStatItem, WB_REGISTERED, WB_START_DONTCACHE,
};

/// `filemap_dontcache_kick_writeback()` (seed 002 patch 3; v7 as posted with [`Kick::Posted`],
/// as applied with [`Kick::Fold`], our fix with [`KickGuard::None`]; the pinning of v5, v6 and
/// v7 with [`KickPin`]), as the inode's bdi selects. Called from `generic_write_sync()` after an
/// IOCB_DONTCACHE write. Returns whether it woke the flusher.
pub fn filemap_dontcache_kick_writeback<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>) -> bool {
    let knobs = inode.bdi.knobs;
    let pin = knobs.pin;
    let (wb, cookie) = unlocked_inode_to_wb_begin(ctx, inode);
    let set = kick_bit(ctx, wb, &knobs.kick);
    if set {
        match pin {
            KickPin::GetWakePut | KickPin::PutBeforeWakeup => wb_get(ctx, wb),
            KickPin::WakeInSection => wb_wakeup(ctx, wb),
            KickPin::Unpinned => {}
        }
    }
    unlocked_inode_to_wb_end(ctx, inode, cookie);
    if set {
        match pin {
            KickPin::GetWakePut => {
                wb_wakeup(ctx, wb);
                wb_put(ctx, wb);
            }
            KickPin::PutBeforeWakeup => {
                wb_put(ctx, wb);
                wb_wakeup(ctx, wb);
            }
            KickPin::Unpinned => wb_wakeup(ctx, wb),
            KickPin::WakeInSection => {}
        }
    }
    set
}

/// The kick's test of the bits: whether this call set WB_start_dontcache.
fn kick_bit<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, proto: &KickProtocol) -> bool {
    const F: &str = "filemap_dontcache_kick_writeback";
    let id = wb.id as i64;
    match proto.guard {
        KickGuard::HasDirtyIo => {
            if !wb.touch(ctx, F, Access::Memory, || wb.has_dirty_io()) {
                ctx.event(F, "wb{}: wb_has_dirty_io = 0 -> no kick", &[id]);
                return false;
            }
            ctx.event(F, "wb{}: wb_has_dirty_io = 1", &[id]);
        }
        KickGuard::None => ctx.event(F, "wb{}: (fix) no wb_has_dirty_io test", &[id]),
    }
    if proto.kick == Kick::Posted {
        if wb.touch(ctx, F, Access::Memory, || wb.state.test_bit(WB_START_DONTCACHE)) {
            ctx.event(F, "wb{}: test_bit(WB_start_dontcache) = 1 -> skip", &[id]);
            return false;
        }
        ctx.event(F, "wb{}: test_bit(WB_start_dontcache) = 0", &[id]);
    }
    if wb.touch(ctx, F, Access::Memory, || wb.state.test_and_set_bit(WB_START_DONTCACHE)) {
        ctx.event(F, "wb{}: test_and_set_bit(WB_start_dontcache) = 1 -> skip", &[id]);
        return false;
    }
    ctx.event(F, "wb{}: test_and_set_bit(WB_start_dontcache) = 0 -> wake", &[id]);
    true
}

/// What a consume that cleared WB_start_dontcache read and wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Consumed {
    /// The budget: the WB_DONTCACHE_DIRTY count it read.
    pub budget: i64,
    /// The pages its writeback wrote (0 if the budget was 0).
    pub wrote: i64,
    /// Ghost: its place among the wb's consumes ([`Wb::consumes`], 1 for the first), and the
    /// exact WB_DONTCACHE_DIRTY total when it read the budget (the budget is complete if it is at
    /// least that).
    pub seq: u64,
    pub exact: i64,
}

/// `wb_check_start_dontcache()` (seed 002 patch 3), in the consume shape the revision selects:
/// consume the bit, read WB_DONTCACHE_DIRTY, and if it is not zero run a `WB_REASON_DONTCACHE`
/// work of that many pages. `None` if this call did not consume the kick (the bit was clear).
/// `inodes` are the inodes the work's `wb_writeback` may find on the wb's lists. With
/// [`ShortConsume::KeepKick`], a writeback that wrote fewer pages than the budget sets the bit
/// again for the pages it could not reach.
pub fn wb_check_start_dontcache<P: Platform>(
    ctx: &Ctx<P>,
    wb: &Wb<P>,
    proto: &KickProtocol,
    inodes: &[&Inode<P>],
) -> Option<Consumed> {
    const F: &str = "wb_check_start_dontcache";
    const ITEM: WbStatItem = WbStatItem::DontcacheDirty;
    let writeback = |nr: i64| if nr != 0 { wb_writeback(ctx, wb, nr, WbReason::Dontcache, inodes) } else { 0 };
    let (budget, wrote, (seq, exact)) = match proto.consume {
        Consume::ClearThenSum | Consume::ClearThenApproxRead => {
            if !wb.touch(ctx, F, Access::Memory, || wb.state.test_and_clear_bit(WB_START_DONTCACHE)) {
                ctx.event(F, "test_and_clear_bit(WB_start_dontcache) = 0 -> return", &[]);
                return None;
            }
            ctx.event(F, "test_and_clear_bit(WB_start_dontcache) = 1", &[]);
            let nr = if proto.consume == Consume::ClearThenSum {
                wb_stat_sum(ctx, wb, ITEM)
            } else {
                wb_stat(ctx, wb, ITEM)
            };
            let ghost = wb.count_consume();
            (nr, writeback(nr), ghost)
        }
        Consume::LateClear => {
            if !wb.touch(ctx, F, Access::Memory, || wb.state.test_bit(WB_START_DONTCACHE)) {
                ctx.event(F, "test_bit(WB_start_dontcache) = 0 -> return", &[]);
                return None;
            }
            ctx.event(F, "test_bit(WB_start_dontcache) = 1", &[]);
            let nr = wb_stat_sum(ctx, wb, ITEM);
            let ghost = wb.count_consume();
            let wrote = writeback(nr);
            wb.state.clear_bit(WB_START_DONTCACHE);
            ctx.event(F, "clear_bit(WB_start_dontcache) after writeback", &[]);
            (nr, wrote, ghost)
        }
    };
    if proto.short == ShortConsume::KeepKick && wrote < budget {
        wb.state.set_bit(WB_START_DONTCACHE);
        ctx.event(F, "(fix) wrote {} of {} page(s): set_bit(WB_start_dontcache) again", &[wrote, budget]);
    }
    Some(Consumed { budget, wrote, seq, exact })
}

/// `wb_do_writeback()` reduced to the check these models exercise: `wb_check_start_dontcache`
/// where v7 inserts it (after `wb_check_start_all`, before the periodic and background checks;
/// those and the work list are left out). The `set_bit`/`clear_bit(WB_writeback_running)` around
/// the run are left out too: relaxed RMWs of a bit nothing here reads, with no barrier, that
/// carry every other bit of `wb->state` forward unchanged; under loom they multiplied the
/// executions of `dontcache-kick` by five (425k to 81k for v7) without adding an outcome.
pub fn wb_do_writeback<P: Platform>(
    ctx: &Ctx<P>,
    wb: &Wb<P>,
    proto: &KickProtocol,
    inodes: &[&Inode<P>],
) -> Option<Consumed> {
    wb_check_start_dontcache(ctx, wb, proto, inodes)
}

/// Which kind of workqueue worker runs a flusher run (`current_is_workqueue_rescuer()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RunOn {
    /// A normal kworker of `bdi_wq`.
    Worker,
    /// `bdi_wq`'s rescuer thread (WQ_MEM_RECLAIM): it runs the work when the pool cannot create
    /// workers (memory pressure).
    Rescuer,
}

/// One run of the flusher's delayed work: the workqueue starts it ([`process_one_work`]), then
/// `wb_workfn`: on a normal worker (or for an unregistered wb) `wb_do_writeback` once (its loop
/// over the work list has nothing to loop on here); on the rescuer `writeback_inodes_wb(wb, 1024,
/// WB_REASON_FORKER_THREAD)`, which writes the wb's inodes without looking at
/// WB_start_dontcache. At the end, `wb_wakeup` if the revision re-queues for a pending kick
/// ([`Requeue`]; the work list is always empty here), else `wb_wakeup_delayed` if the wb has dirty
/// I/O. `None` if no run is on the worklist; `on` tells which kind of worker took the run, asked
/// only once one started. The consume and the re-queue are the wb's ([`Wb::kick`]).
pub fn wb_workfn<P: Platform>(
    ctx: &Ctx<P>,
    wb: &Wb<P>,
    inodes: &[&Inode<P>],
    on: impl FnOnce() -> RunOn,
) -> Option<FlusherRun> {
    process_one_work(ctx, wb)?;
    let on = on();
    if on == RunOn::Rescuer {
        ctx.event(
            "rescuer_thread",
            "wb{}: bdi_wq's rescuer takes the run (the pool cannot create workers)",
            &[wb.id as i64],
        );
    }
    let proto = wb.kick;
    let (consumed, wrote) = if on == RunOn::Rescuer && wb.state.test_bit(WB_REGISTERED) {
        let written = wb_writeback(ctx, wb, 1024, WbReason::ForkerThread, inodes);
        ctx.event(
            "wb_workfn",
            "rescuer: writeback_inodes_wb wrote {} page(s); WB_start_dontcache untouched",
            &[written],
        );
        (None, written)
    } else {
        let consumed = wb_do_writeback(ctx, wb, &proto, inodes);
        (consumed, consumed.map_or(0, |c| c.wrote))
    };
    let requeue = match proto.requeue {
        Requeue::WorkList => false,
        Requeue::WorkListOrKick => wb.state.test_bit(WB_START_DONTCACHE),
        Requeue::WorkListOrKickWithDirtyIo => wb.state.test_bit(WB_START_DONTCACHE) && wb.has_dirty_io(),
    };
    let has_dirty_io = !requeue && wb.has_dirty_io();
    if requeue {
        ctx.event("wb_workfn", "(fix) WB_start_dontcache still set -> wb_wakeup", &[]);
        wb_wakeup(ctx, wb);
    } else if has_dirty_io {
        ctx.event("wb_workfn", "wb_has_dirty_io -> wb_wakeup_delayed", &[]);
        wb_wakeup_delayed(ctx, wb);
    }
    let listed = wb.nr_io_inodes();
    process_one_work_done(ctx, wb);
    Some(FlusherRun { on, consumed, wrote, listed, requeued: requeue })
}

/// What a flusher run did, for the scenario's bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlusherRun {
    pub on: RunOn,
    /// What its consume read and wrote, if it cleared WB_start_dontcache.
    pub consumed: Option<Consumed>,
    /// The pages the run wrote.
    pub wrote: i64,
    /// Ghost: the inodes on the wb's I/O lists when it ended.
    pub listed: usize,
    /// It queued itself again for immediate execution.
    pub requeued: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::CpuPlan;
    use crate::folio::Folio;
    use crate::inode::Inode;
    use crate::page_writeback::filemap_dirty_folio;
    use crate::sync::Std;
    use crate::trace::Trace;
    use crate::wb::{fire_timer, Bdi};
    use std::sync::Arc;

    /// The writeback steps of a counterexample say what the writeback did: a rescuer run writes
    /// the one dirty page, takes the inode's I_DIRTY bits off (reporting the bits it found) and
    /// finds the inode clean.
    #[test]
    fn a_rescuer_run_reports_what_it_wrote() {
        let trace = Arc::new(Trace::new());
        let ctx = Ctx::<Std>::new(trace.clone(), "t", CpuPlan::Fixed(0));
        let bdi = Arc::new(Bdi::<Std>::new(0, 1, 4, 2));
        let folio = Arc::new(Folio::new(0, 1, false));
        let inode = Inode::new(0, bdi.clone(), 0, true, vec![folio.clone()]);
        filemap_dirty_folio(&ctx, &inode, &folio);
        assert!(fire_timer(&ctx, bdi.wb(0), || true), "the first dirty inode armed the timer");
        wb_workfn(&ctx, bdi.wb(0), &[&inode], || RunOn::Rescuer);
        let steps: Vec<String> = trace.steps().iter().map(|s| format!("{}: {}", s.function, s.detail)).collect();
        let run = steps.iter().position(|s| s.starts_with("process_one_work")).expect("the run's first step");
        assert_eq!(
            steps[run..],
            [
                "process_one_work: wb0: take the run the timer queued (PENDING -> RUNNING); smp_mb(); run wb_workfn",
                "rescuer_thread: wb0: bdi_wq's rescuer takes the run (the pool cannot create workers)",
                "wb_writeback: wb0: WB_REASON_FORKER_THREAD work (rescuer), nr_pages = 1024",
                "queue_io: wb0: 1 inode(s) -> b_io",
                "unlocked_inode_to_wb_begin: rcu_read_lock; I_WB_SWITCH = 0; i_wb = wb0 (live)",
                "folio_clear_dirty_for_io: folio_test_clear_dirty(folio 0) = 1",
                "folio_account_cleaned: folio_test_dropbehind(folio 0) = 0",
                "unlocked_inode_to_wb_end: rcu_read_unlock",
                "__folio_start_writeback: folio 0 written (the I/O completes at once)",
                "__writeback_single_inode: inode 0: wrote 1 page(s); i_state &= ~I_DIRTY (was 4); smp_mb(); \
                 mapping_tagged(DIRTY) = 0",
                "wb_io_lists_depopulated: wb0: I/O lists empty, WB_has_dirty_io 1 -> 0",
                "requeue_inode: inode 0: clean -> off the I/O lists (wb0)",
                "wb_workfn: rescuer: writeback_inodes_wb wrote 1 page(s); WB_start_dontcache untouched",
            ]
        );
    }
}
