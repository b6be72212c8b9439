//! The RWF_DONTCACHE flusher kick and its consumer (seed 002 patch 3, fs/fs-writeback.c).
//!
//! Writers set WB_start_dontcache and wake the flusher; the flusher consumes the bit and writes
//! back as many pages as WB_DONTCACHE_DIRTY holds. The bit coalesces kicks, like WB_start_all,
//! so correctness rests on the order "consume the bit, then read the counter" on one side and
//! "add to the counter, then test the bit" on the other.

use crate::ctx::Ctx;
use crate::inode::Inode;
use crate::revision::{Consume, Kick};
use crate::sync::Platform;
use crate::wb::{
    process_one_work, wb_stat, wb_stat_sum, wb_wakeup, Wb, WbStatItem, WB_START_DONTCACHE,
};

/// `filemap_dontcache_kick_writeback()` (seed 002 patch 3; v7 as posted with [`Kick::Posted`],
/// as applied with [`Kick::Fold`]). Called from `generic_write_sync()` after an IOCB_DONTCACHE
/// write. Returns whether it woke the flusher.
///
/// The wb comes from `unlocked_inode_to_wb_begin` in RCU mode: this scenario family never
/// switches wbs, and the root wb's `wb_get`/`wb_put` are no-ops, so the section and the pin
/// (scenario wb-pin) reduce to using `inode_to_wb()`.
pub fn filemap_dontcache_kick_writeback<P: Platform>(
    ctx: &Ctx<P>,
    inode: &Inode<P>,
    kick: Kick,
) -> bool {
    const F: &str = "filemap_dontcache_kick_writeback";
    let wb = inode.inode_to_wb();
    if !wb.has_dirty_io() {
        ctx.event(F, "wb_has_dirty_io = 0 -> no kick", &[]);
        return false;
    }
    if kick == Kick::Posted {
        if wb.state.test_bit(WB_START_DONTCACHE) {
            ctx.event(
                F,
                "wb_has_dirty_io = 1; test_bit(WB_start_dontcache) = 1 -> skip",
                &[],
            );
            return false;
        }
        ctx.event(
            F,
            "wb_has_dirty_io = 1; test_bit(WB_start_dontcache) = 0",
            &[],
        );
    }
    if wb.state.test_and_set_bit(WB_START_DONTCACHE) {
        ctx.event(F, "test_and_set_bit(WB_start_dontcache) = 1 -> skip", &[]);
        return false;
    }
    ctx.event(
        F,
        "test_and_set_bit(WB_start_dontcache) = 0 -> wb_wakeup",
        &[],
    );
    wb_wakeup(ctx, wb);
    true
}

/// `wb_check_start_dontcache()` (seed 002 patch 3), in the consume shape the revision selects.
/// Returns the page count read if this call consumed the kick (cleared the bit), else `None`.
///
/// `wb_writeback()` is recorded but not modelled: it writes the oldest dirty inodes and the
/// properties of this family are about the budget the flusher computes.
pub fn wb_check_start_dontcache<P: Platform>(
    ctx: &Ctx<P>,
    wb: &Wb<P>,
    consume: Consume,
) -> Option<i64> {
    const F: &str = "wb_check_start_dontcache";
    const ITEM: WbStatItem = WbStatItem::DontcacheDirty;
    let nr_pages = match consume {
        Consume::ClearThenSum | Consume::ClearThenApproxRead => {
            if !wb.state.test_and_clear_bit(WB_START_DONTCACHE) {
                ctx.event(
                    F,
                    "test_and_clear_bit(WB_start_dontcache) = 0 -> return",
                    &[],
                );
                return None;
            }
            ctx.event(F, "test_and_clear_bit(WB_start_dontcache) = 1", &[]);
            let nr = if consume == Consume::ClearThenSum {
                wb_stat_sum(ctx, wb, ITEM)
            } else {
                wb_stat(ctx, wb, ITEM)
            };
            wb_writeback(ctx, nr);
            nr
        }
        Consume::LateClear => {
            if !wb.state.test_bit(WB_START_DONTCACHE) {
                ctx.event(F, "test_bit(WB_start_dontcache) = 0 -> return", &[]);
                return None;
            }
            ctx.event(F, "test_bit(WB_start_dontcache) = 1", &[]);
            let nr = wb_stat_sum(ctx, wb, ITEM);
            wb_writeback(ctx, nr);
            wb.state.clear_bit(WB_START_DONTCACHE);
            ctx.event(F, "clear_bit(WB_start_dontcache) after writeback", &[]);
            nr
        }
    };
    Some(nr_pages)
}

fn wb_writeback<P: Platform>(ctx: &Ctx<P>, nr_pages: i64) {
    if nr_pages != 0 {
        ctx.event(
            "wb_writeback",
            "WB_REASON_DONTCACHE work, nr_pages = {}",
            &[nr_pages],
        );
    }
}

/// `wb_do_writeback()` reduced to the checks this family exercises: WB_writeback_running around
/// the run, `wb_check_start_dontcache` where v7 inserts it (after `wb_check_start_all`, before
/// the periodic and background checks, which with the work list are left out).
pub fn wb_do_writeback<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, consume: Consume) -> Option<i64> {
    let consumed = wb_check_start_dontcache(ctx, wb, consume);

    consumed
}

/// One run of the flusher's delayed work: the workqueue starts it ([`process_one_work`]), then
/// `wb_workfn` runs `wb_do_writeback` once (the rescuer path and the re-queue at the end of
/// `wb_workfn` are left out: a further run is a further call).
pub fn wb_workfn<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, consume: Consume) -> FlusherRun {
    let queued = process_one_work(ctx, wb);
    FlusherRun {
        queued,
        consumed: wb_do_writeback(ctx, wb, consume),
    }
}

/// What a flusher run did, for the scenario's bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlusherRun {
    /// A `wb_wakeup` had queued this run (else it stands for a periodic run).
    pub queued: bool,
    /// Pages read by a consume that cleared WB_start_dontcache.
    pub consumed: Option<i64>,
}
