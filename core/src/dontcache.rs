//! The RWF_DONTCACHE flusher kick and its consumer (seed 002 patch 3, fs/fs-writeback.c).
//!
//! Writers set WB_start_dontcache and wake the flusher; the flusher consumes the bit and writes
//! back as many pages as WB_DONTCACHE_DIRTY holds. The bit coalesces kicks, like WB_start_all,
//! so correctness rests on the order "consume the bit, then read the counter" on one side and
//! "add to the counter, then test the bit" on the other.

use crate::ctx::Ctx;
use crate::fs_writeback::wb_writeback;
use crate::inode::{unlocked_inode_to_wb_begin, unlocked_inode_to_wb_end, Inode};
use crate::revision::{Consume, Kick, KickPin};
use crate::sync::Platform;
use crate::wb::{
    process_one_work, process_one_work_done, wb_get, wb_put, wb_stat, wb_stat_sum, wb_wakeup, Access, Wb, WbStatItem,
    WorkStart, WB_START_DONTCACHE,
};

/// `filemap_dontcache_kick_writeback()` (seed 002 patch 3; v7 as posted with [`Kick::Posted`],
/// as applied with [`Kick::Fold`]; the pinning of v5, v6 and v7 with [`KickPin`]). Called from
/// `generic_write_sync()` after an IOCB_DONTCACHE write. Returns whether it woke the flusher.
pub fn filemap_dontcache_kick_writeback<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, kick: Kick, pin: KickPin) -> bool {
    let (wb, cookie) = unlocked_inode_to_wb_begin(ctx, inode);
    let set = kick_bit(ctx, wb, kick);
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
fn kick_bit<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, kick: Kick) -> bool {
    const F: &str = "filemap_dontcache_kick_writeback";
    let id = wb.id as i64;
    if !wb.touch(ctx, F, Access::Memory, || wb.has_dirty_io()) {
        ctx.event(F, "wb{}: wb_has_dirty_io = 0 -> no kick", &[id]);
        return false;
    }
    if kick == Kick::Posted {
        if wb.state.test_bit(WB_START_DONTCACHE) {
            ctx.event(F, "wb{}: wb_has_dirty_io = 1; test_bit(WB_start_dontcache) = 1 -> skip", &[id]);
            return false;
        }
        ctx.event(F, "wb{}: wb_has_dirty_io = 1; test_bit(WB_start_dontcache) = 0", &[id]);
    }
    if wb.state.test_and_set_bit(WB_START_DONTCACHE) {
        ctx.event(F, "wb{}: test_and_set_bit(WB_start_dontcache) = 1 -> skip", &[id]);
        return false;
    }
    ctx.event(F, "wb{}: test_and_set_bit(WB_start_dontcache) = 0 -> wake", &[id]);
    true
}

/// `wb_check_start_dontcache()` (seed 002 patch 3), in the consume shape the revision selects.
/// Returns the page count read if this call consumed the kick (cleared the bit), else `None`.
/// `inodes` are the inodes the flusher's `wb_writeback` may find on the wb's lists (a scenario
/// that does not model cleaning passes none).
pub fn wb_check_start_dontcache<P: Platform>(
    ctx: &Ctx<P>,
    wb: &Wb<P>,
    consume: Consume,
    inodes: &[&Inode<P>],
) -> Option<i64> {
    const F: &str = "wb_check_start_dontcache";
    const ITEM: WbStatItem = WbStatItem::DontcacheDirty;
    let nr_pages = match consume {
        Consume::ClearThenSum | Consume::ClearThenApproxRead => {
            if !wb.touch(ctx, F, Access::Memory, || wb.state.test_and_clear_bit(WB_START_DONTCACHE)) {
                ctx.event(F, "test_and_clear_bit(WB_start_dontcache) = 0 -> return", &[]);
                return None;
            }
            ctx.event(F, "test_and_clear_bit(WB_start_dontcache) = 1", &[]);
            let nr = if consume == Consume::ClearThenSum { wb_stat_sum(ctx, wb, ITEM) } else { wb_stat(ctx, wb, ITEM) };
            wb_writeback(ctx, wb, nr, inodes);
            nr
        }
        Consume::LateClear => {
            if !wb.touch(ctx, F, Access::Memory, || wb.state.test_bit(WB_START_DONTCACHE)) {
                ctx.event(F, "test_bit(WB_start_dontcache) = 0 -> return", &[]);
                return None;
            }
            ctx.event(F, "test_bit(WB_start_dontcache) = 1", &[]);
            let nr = wb_stat_sum(ctx, wb, ITEM);
            wb_writeback(ctx, wb, nr, inodes);
            wb.state.clear_bit(WB_START_DONTCACHE);
            ctx.event(F, "clear_bit(WB_start_dontcache) after writeback", &[]);
            nr
        }
    };
    Some(nr_pages)
}

/// `wb_do_writeback()` reduced to the check these models exercise: `wb_check_start_dontcache`
/// where v7 inserts it (after `wb_check_start_all`, before the periodic and background checks;
/// those and the work list are left out). The `set_bit`/`clear_bit(WB_writeback_running)` around
/// the run are left out too: relaxed RMWs of a bit nothing here reads, with no barrier, that
/// carry every other bit of `wb->state` forward unchanged; under loom they multiplied the
/// executions of `dontcache-kick` by five (425k to 81k for v7) without adding an outcome.
pub fn wb_do_writeback<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, consume: Consume, inodes: &[&Inode<P>]) -> Option<i64> {
    wb_check_start_dontcache(ctx, wb, consume, inodes)
}

/// One run of the flusher's delayed work: the workqueue starts it ([`process_one_work`]), then
/// `wb_workfn` runs `wb_do_writeback` once (the rescuer path and the re-queue at the end of
/// `wb_workfn` are left out: a further run is a further call). `None` if `start` is
/// [`WorkStart::Queued`] and nothing was queued.
pub fn wb_workfn<P: Platform>(
    ctx: &Ctx<P>,
    wb: &Wb<P>,
    consume: Consume,
    inodes: &[&Inode<P>],
    start: WorkStart,
) -> Option<FlusherRun> {
    let queued = process_one_work(ctx, wb, start)?;
    let consumed = wb_do_writeback(ctx, wb, consume, inodes);
    process_one_work_done(wb);
    Some(FlusherRun { queued, consumed })
}

/// What a flusher run did, for the scenario's bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlusherRun {
    /// A `wb_wakeup` had queued this run (else it stands for a periodic run).
    pub queued: bool,
    /// Pages read by a consume that cleared WB_start_dontcache.
    pub consumed: Option<i64>,
}
