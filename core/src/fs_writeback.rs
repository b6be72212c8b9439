//! fs/fs-writeback.c: `__mark_inode_dirty` (the part a dirtier of pages runs), the cgroup wb
//! switch (`inode_switch_wbs`, its work function, `inode_do_switch_wbs`), and a minimal
//! `wb_writeback` that cleans the dirty folios of the inodes on a wb.

use crate::ctx::Ctx;
use crate::folio::{PAGECACHE_TAG_DIRTY, PG_DONTCACHE_COUNTED};
use crate::inode::{Inode, I_DIRTY_PAGES, I_WB_SWITCH};
use crate::page_writeback::{__folio_end_writeback, __folio_start_writeback, folio_clear_dirty_for_io};
use crate::revision::{Accounting, SwitchKick};
use crate::sync::{Ordering, Platform, SpinGuard};
use crate::wb::{
    wb_get, wb_put, wb_put_many, wb_stat_mod, wb_wakeup, Access, Wb, WbStatItem, WB_HAS_DIRTY_IO, WB_START_DONTCACHE,
};

/// `locked_inode_to_wb_and_lock_list()`: called with `i_lock` held (passed in, and released
/// here); pin the inode's wb with `wb_get` under `i_lock`, drop `i_lock`, take the wb's
/// `list_lock` (it nests outside `i_lock`), and retry if a switch moved the inode meanwhile.
fn locked_inode_to_wb_and_lock_list<'a, P: Platform>(
    ctx: &Ctx<P>,
    inode: &'a Inode<P>,
    mut i_lock: SpinGuard<'a, P, ()>,
) -> (&'a Wb<P>, SpinGuard<'a, P, ()>) {
    loop {
        let wb = inode.inode_to_wb();
        wb_get(ctx, wb);
        drop(i_lock);
        let list = wb.touch(ctx, "locked_inode_to_wb_and_lock_list", Access::Memory, || wb.list_lock.lock());
        if inode.wb_id() == wb.id {
            wb_put(ctx, wb); // the inode already holds a reference
            return (wb, list);
        }
        drop(list);
        wb_put(ctx, wb);
        i_lock = inode.i_lock.lock();
    }
}

/// `__mark_inode_dirty(inode, I_DIRTY_PAGES)`: an unconditional `smp_mb()` (it pairs with the
/// one in `__writeback_single_inode`), then the lockless "already dirty" return; otherwise under
/// `i_lock` set the flag and, for an inode that was clean, move it to its wb's `b_dirty` under the
/// wb's `list_lock` (`locked_inode_to_wb_and_lock_list`), which sets WB_has_dirty_io
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
        ctx.event(F, "I_DIRTY_PAGES already set on inode {} -> return", &[inode.ino as i64]);
        return;
    }
    let i_lock = inode.i_lock.lock();
    if inode.i_state.test_bit(I_DIRTY_PAGES) {
        ctx.event(F, "I_DIRTY_PAGES set meanwhile on inode {} -> return", &[inode.ino as i64]);
        return;
    }
    inode.i_state.set_bit(I_DIRTY_PAGES);
    let (wb, _list) = locked_inode_to_wb_and_lock_list(ctx, inode, i_lock);
    let had = wb.state.test_bit(WB_HAS_DIRTY_IO);
    if !had {
        wb.state.set_bit(WB_HAS_DIRTY_IO);
    }
    ctx.event(F, "inode {} -> wb{} b_dirty; WB_has_dirty_io {} -> 1", &[inode.ino as i64, wb.id as i64, had as i64]);
}

/// `inode_switch_wbs()` up to queueing its work (Jan Kara's 6.18 llist form, with Baokun Li's
/// RCU extension): return if I_WB_SWITCH is already set (a racy read); take the isw's reference
/// on the new wb (`wb_get_create`); `inode_prepare_wbs_switch`: `smp_mb()`, then under `i_lock`
/// set I_WB_SWITCH (and `__iget`). Returns whether the switch was queued. `isw_nr_in_flight`,
/// the css lookups, DAX and the superblock checks are left out.
pub fn inode_switch_wbs<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, new_wb: usize) -> bool {
    const F: &str = "inode_switch_wbs";
    if inode.i_state.test_bit(I_WB_SWITCH) {
        ctx.event(F, "I_WB_SWITCH already set -> return", &[]);
        return false;
    }
    let bdi = &inode.bdi;
    bdi.rcu.read_lock(ctx);
    let new = bdi.wb(new_wb);
    wb_get(ctx, new);
    P::fence(Ordering::SeqCst);
    let i_lock = inode.i_lock.lock();
    if inode.wb_id() == new_wb {
        drop(i_lock);
        wb_put(ctx, new);
        bdi.rcu.read_unlock(ctx);
        ctx.event(F, "inode {} already on wb{} -> return", &[inode.ino as i64, new_wb as i64]);
        return false;
    }
    inode.i_state.set_bit(I_WB_SWITCH);
    drop(i_lock);
    bdi.rcu.read_unlock(ctx);
    ctx.event(F, "inode {}: I_WB_SWITCH 0 -> 1; queue the switch to wb{}", &[inode.ino as i64, new_wb as i64]);
    true
}

/// `inode_switch_wbs_work_fn()` + `process_inode_switch_wbs()` for one queued inode: take the
/// function's reference on the new wb, `synchronize_rcu()` so every RCU-mode stat updater that
/// could have missed I_WB_SWITCH has finished, lock both wbs' list locks (in id order, standing
/// for address order), switch the inode, then `wb_wakeup(new_wb)` and drop the old association
/// reference; finally drop the isw's and the function's references on the new wb.
pub fn inode_switch_wbs_work_fn<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, new_wb: usize) {
    let bdi = &inode.bdi;
    let rev = bdi.rev;
    let new = bdi.wb(new_wb);
    wb_get(ctx, new);
    bdi.rcu.synchronize(ctx);
    let old = inode.inode_to_wb();
    let switched = {
        let (first, second) = if old.id < new.id { (old, new) } else { (new, old) };
        let _l1 = first.list_lock.lock();
        let _l2 = second.list_lock.lock();
        let _i_lock = inode.i_lock.lock();
        inode_do_switch_wbs(ctx, inode, old, new, rev)
    };
    if switched {
        wb_wakeup(ctx, new);
        wb_put_many(ctx, old, 1, "wb_put_many");
    }
    wb_put(ctx, new);
    wb_put(ctx, new);
}

/// `inode_do_switch_wbs()` (v7 of seed 002 patch 2), under both list locks, `i_lock` and
/// `xa_lock_irq(&mapping->i_pages)`: for every folio in the page cache with the DIRTY mark and
/// PG_dirty, move WB_DONTCACHE_DIRTY from the old to the new wb if it has PG_dropbehind (not in
/// `v6-no-switch-transfer`); take the new
/// association reference; publish `i_wb`; move a dirty inode to the new wb's `b_dirty` (which sets
/// WB_has_dirty_io there); `smp_wmb()`; clear I_WB_SWITCH. Returns true (the inode is switched).
///
/// [`SwitchKick::SetStartDontcache`] is the fix `v7-fix-switch-kick`: when DONTCACHE pages moved,
/// `test_and_set_bit(WB_start_dontcache)` on the new wb (after the stat moves, fully ordered, as
/// the folded kick), so the `wb_wakeup(new_wb)` that follows expedites them.
fn inode_do_switch_wbs<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, old: &Wb<P>, new: &Wb<P>, rev: Accounting) -> bool {
    const F: &str = "inode_do_switch_wbs";
    let _xa = inode.i_pages.lock_irq(ctx, "inode_do_switch_wbs: xa_unlock_irq");
    let mut moved = 0;
    for folio in inode.folios.iter().filter(|f| f.in_page_cache()) {
        let counted = if rev.counted_bit {
            // Our fix: the folios whose pages are counted, whatever their marks.
            folio.flags.test_bit(PG_DONTCACHE_COUNTED)
        } else {
            folio.marks.test_bit(PAGECACHE_TAG_DIRTY) && folio.test_dirty() && folio.test_dropbehind()
        };
        if rev.switch_transfer && counted {
            let nr = folio.nr_pages();
            wb_stat_mod(ctx, old, WbStatItem::DontcacheDirty, -nr);
            wb_stat_mod(ctx, new, WbStatItem::DontcacheDirty, nr);
            moved += nr;
        }
    }
    ctx.event(F, "moved {} WB_DONTCACHE_DIRTY page(s) wb{} -> wb{}", &[moved, old.id as i64, new.id as i64]);
    if moved > 0 && rev.switch_kick == SwitchKick::SetStartDontcache {
        let was = new.state.test_and_set_bit(WB_START_DONTCACHE);
        ctx.event(F, "(fix) test_and_set_bit(WB_start_dontcache) on wb{} = {}", &[new.id as i64, was as i64]);
    }
    wb_get(ctx, new);
    inode.set_wb(new.id);
    if inode.i_state.test_bit(I_DIRTY_PAGES) && !new.state.test_bit(WB_HAS_DIRTY_IO) {
        new.state.set_bit(WB_HAS_DIRTY_IO);
    }
    P::fence(Ordering::Release);
    inode.i_state.clear_bit(I_WB_SWITCH);
    ctx.event(F, "i_wb = wb{}; smp_wmb(); I_WB_SWITCH 1 -> 0", &[new.id as i64]);
    true
}

/// `wb_writeback()` reduced to what the counters see: for each inode on this wb's lists (its
/// `i_wb` is this wb, checked under `list_lock`, and it is dirty, checked under `i_lock`, which
/// also clears I_DIRTY_PAGES as `__writeback_single_inode` does), lock each dirty folio, `folio_clear_dirty_for_io`, and
/// start and complete its writeback, until `nr_pages` pages are written. Returns pages written.
/// Requeueing an inode left dirty, `b_io` ordering and the I/O itself are left out.
pub fn wb_writeback<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, nr_pages: i64, inodes: &[&Inode<P>]) -> i64 {
    if nr_pages != 0 {
        ctx.event("wb_writeback", "wb{}: WB_REASON_DONTCACHE work, nr_pages = {}", &[wb.id as i64, nr_pages]);
    }
    let mut written = 0;
    for inode in inodes {
        {
            let _list = wb.list_lock.lock();
            if inode.wb_id() != wb.id {
                continue;
            }
            let _i_lock = inode.i_lock.lock();
            if !inode.i_state.test_bit(I_DIRTY_PAGES) {
                continue;
            }
            inode.i_state.clear_bit(I_DIRTY_PAGES);
        }
        for folio in inode.folios.iter().filter(|f| f.in_page_cache()) {
            if written >= nr_pages {
                return written;
            }
            let _locked = folio.lock();
            if folio_clear_dirty_for_io(ctx, inode, folio) {
                __folio_start_writeback(ctx, inode, folio);
                __folio_end_writeback(ctx, inode, folio);
                written += folio.nr_pages();
            }
        }
    }
    written
}
