//! fs/fs-writeback.c: `__mark_inode_dirty` (the part a dirtier of pages runs).

use crate::ctx::Ctx;
use crate::inode::{Inode, I_DIRTY_PAGES};
use crate::sync::{Ordering, Platform};
use crate::wb::WB_HAS_DIRTY_IO;

/// `__mark_inode_dirty(inode, I_DIRTY_PAGES)`: an unconditional `smp_mb()` (it pairs with the
/// one in `__writeback_single_inode`), then the lockless "already dirty" return; otherwise, under
/// `i_lock` and `wb->list_lock` (one lock here: nothing else in these models takes `i_lock`),
/// set the flag and move the inode to `b_dirty`, which sets WB_has_dirty_io
/// (`wb_io_lists_populated`, plain `set_bit`).
///
/// Left out: `wb_wakeup_delayed` for the first dirty inode (it arms the periodic timer: the runs
/// it causes are the flusher's unqueued runs), I_SYNC_QUEUED, unhashed and freeing inodes,
/// `dirtied_when`, bandwidth bookkeeping.
pub fn __mark_inode_dirty<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, smp_mb: bool) {
    const F: &str = "__mark_inode_dirty";
    if smp_mb {
        P::fence(Ordering::SeqCst);
        ctx.event(F, "smp_mb()", &[]);
    } else {
        ctx.event(F, "(mutant: no smp_mb())", &[]);
    }
    if inode.i_state.test_bit(I_DIRTY_PAGES) {
        ctx.event(
            F,
            "I_DIRTY_PAGES already set on inode {} -> return",
            &[inode.ino as i64],
        );
        return;
    }
    let wb = inode.inode_to_wb();
    let _list = wb.list_lock.lock();
    inode.i_state.set_bit(I_DIRTY_PAGES);
    let had = wb.state.test_bit(WB_HAS_DIRTY_IO);
    if !had {
        wb.state.set_bit(WB_HAS_DIRTY_IO);
    }
    ctx.event(
        F,
        "inode {} -> b_dirty; WB_has_dirty_io {} -> 1",
        &[inode.ino as i64, had as i64],
    );
}
