//! fs/fs-writeback.c (6.12, with seed 002's v7 changes): dirty-inode tracking
//! (`__mark_inode_dirty`, the wb I/O lists and `WB_has_dirty_io`), the flusher's writeback of the
//! inodes on a wb's lists (`wb_writeback`, `writeback_sb_inodes`, `__writeback_single_inode`,
//! `requeue_inode`), and the cgroup wb switch (`inode_switch_wbs`, its work function,
//! `inode_do_switch_wbs`).
//!
//! The I/O lists are each inode's [`IoList`] plus a per-wb count of the inodes on `b_dirty`,
//! `b_io` and `b_more_io` ([`Wb::nr_io_inodes`]), both changed under the wb's `list_lock`;
//! `b_dirty` order is the inodes' `dirtied_when` tick. `b_dirty_time` (lazytime) is left out: no
//! modelled caller dirties only timestamps lazily.

use crate::ctx::Ctx;
use crate::folio::PG_DONTCACHE_COUNTED;
use crate::inode::{Inode, IoList, I_DIRTY, I_DIRTY_PAGES, I_SYNC, I_SYNC_QUEUED, I_WB_SWITCH};
use crate::page_writeback::do_writepages;
use crate::revision::{Accounting, FirstDirty, SwitchKick};
use crate::spinlock::SpinGuard;
use crate::sync::{Ordering, Platform};
use crate::wb::{
    wb_get, wb_put, wb_put_many, wb_stat_mod, wb_wakeup, wb_wakeup_delayed, Access, Wb, WbStatItem, WB_HAS_DIRTY_IO,
    WB_START_DONTCACHE,
};

/// `wb_io_lists_populated()`: if WB_has_dirty_io is clear, `set_bit` it (plain, unordered) and
/// return true (the wb's first dirty inode). Caller holds `list_lock`.
fn wb_io_lists_populated<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) -> bool {
    if wb.has_dirty_io() {
        return false;
    }
    wb.state.set_bit(WB_HAS_DIRTY_IO);
    ctx.event("wb_io_lists_populated", "wb{}: WB_has_dirty_io 0 -> 1", &[wb.id as i64]);
    true
}

/// `wb_io_lists_depopulated()`: if WB_has_dirty_io is set and `b_dirty`, `b_io` and `b_more_io`
/// are empty, `clear_bit` it. Caller holds `list_lock`.
fn wb_io_lists_depopulated<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    if wb.has_dirty_io() && wb.nr_io_inodes() == 0 {
        wb.state.clear_bit(WB_HAS_DIRTY_IO);
        ctx.event("wb_io_lists_depopulated", "wb{}: I/O lists empty, WB_has_dirty_io 1 -> 0", &[wb.id as i64]);
    }
}

/// `inode_io_list_move_locked()` onto `list` (not [`IoList::None`]) of `wb`, under `list_lock` and
/// `i_lock`; returns whether the wb's lists were empty (`wb_io_lists_populated`).
fn inode_io_list_move_locked<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, wb: &Wb<P>, list: IoList) -> bool {
    if inode.io_list() == IoList::None {
        wb.add_io_inodes(1);
    }
    inode.set_io_list(list);
    wb_io_lists_populated(ctx, wb)
}

/// `inode_cgwb_move_to_attached()`: clear I_SYNC_QUEUED, take the inode off the I/O lists
/// (`b_attached` is no list here), `wb_io_lists_depopulated`. Under `list_lock` and `i_lock`.
fn inode_cgwb_move_to_attached<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, wb: &Wb<P>) {
    inode.set_sync_bit(I_SYNC_QUEUED, false);
    if inode.io_list() != IoList::None {
        wb.add_io_inodes(-1);
        inode.set_io_list(IoList::None);
    }
    wb_io_lists_depopulated(ctx, wb);
}

/// `redirty_tail_locked()`: clear I_SYNC_QUEUED and move the inode to the newest end of
/// `b_dirty` (its `dirtied_when` becomes the newest tick: the kernel keeps the old stamp unless it
/// is older than the head's, which only matters for kupdate expiry, left out).
fn redirty_tail_locked<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, wb: &Wb<P>) {
    inode.set_sync_bit(I_SYNC_QUEUED, false);
    inode.set_dirtied_when(wb.tick());
    inode_io_list_move_locked(ctx, inode, wb, IoList::Dirty);
}

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

/// `inode_to_wb_and_lock_list()`: the same, taking `i_lock` first.
fn inode_to_wb_and_lock_list<'a, P: Platform>(ctx: &Ctx<P>, inode: &'a Inode<P>) -> (&'a Wb<P>, SpinGuard<'a, P, ()>) {
    locked_inode_to_wb_and_lock_list(ctx, inode, inode.i_lock.lock())
}

/// `__mark_inode_dirty(inode, flags)` for `flags` = `1 << I_DIRTY_PAGES` (from
/// `filemap_dirty_folio`) or `1 << I_DIRTY_SYNC` (`mark_inode_dirty_sync`: timestamps and
/// metadata): an unconditional `smp_mb()` (it pairs with the one in `__writeback_single_inode`),
/// then the lockless "already dirty" return; otherwise under `i_lock` set the flags and, for an
/// inode that was clean (no `I_DIRTY` bit), pin the wb and trade `i_lock` for the wb's
/// `list_lock` (`locked_inode_to_wb_and_lock_list`) and take `i_lock` again; then, unless
/// `queue_io` has the inode (I_SYNC_QUEUED), put it on `b_dirty`, which sets WB_has_dirty_io if
/// the lists were empty (`inode_io_list_move_locked` -> `wb_io_lists_populated`).
///
/// Between dropping `i_lock` and taking `list_lock`, the inode's dirty bits are set but it is on
/// no list: another dirtier's lockless test sees the bits and returns, and WB_has_dirty_io may
/// still be clear.
///
/// For the wb's first dirty inode (WB_has_dirty_io 0 -> 1) `wb_wakeup_delayed` arms the periodic
/// timer; with [`FirstDirty::KickPending`] (our fix) a pending kick is woken now instead.
///
/// Left out: `->dirty_inode`, I_DIRTY_TIME, unhashed and freeing inodes.
pub fn __mark_inode_dirty<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, flags: usize) {
    const F: &str = "__mark_inode_dirty";
    let ino = inode.ino as i64;
    let kind = if flags == 1 << I_DIRTY_PAGES { 1 } else { 0 };
    if inode.bdi.knobs.kick.writer_smp_mb {
        P::fence(Ordering::SeqCst);
        ctx.event(F, "inode {} {dirty}: smp_mb()", &[ino, kind]);
    } else {
        ctx.event(F, "inode {} {dirty}: (mutant: no smp_mb())", &[ino, kind]);
    }
    if inode.i_state.word() & flags == flags {
        ctx.event(F, "inode {}: {dirty} already set -> return", &[ino, kind]);
        return;
    }
    let i_lock = inode.i_lock.lock();
    let state = inode.i_state.word();
    if state & flags == flags {
        ctx.event(F, "inode {}: {dirty} set meanwhile -> return", &[ino, kind]);
        return;
    }
    let was_dirty = state & I_DIRTY != 0;
    inode.i_state.or_locked(flags);
    if was_dirty {
        ctx.event(F, "inode {}: i_state |= {dirty}; already dirty -> stays where it is", &[ino, kind]);
        return;
    }
    ctx.event(F, "inode {}: i_state |= {dirty}; was clean -> drop i_lock, take list_lock", &[ino, kind]);
    let (wb, _list) = locked_inode_to_wb_and_lock_list(ctx, inode, i_lock);
    let _i_lock = inode.i_lock.lock();
    if inode.sync_bit(I_SYNC_QUEUED) {
        ctx.event(F, "inode {}: I_SYNC_QUEUED -> the flusher requeues it", &[ino]);
        return;
    }
    inode.set_dirtied_when(wb.tick());
    let first = inode_io_list_move_locked(ctx, inode, wb, IoList::Dirty);
    ctx.event(F, "inode {} -> wb{} b_dirty", &[ino, wb.id as i64]);
    if first {
        first_dirty_wakeup(ctx, wb);
    }
}

/// `__mark_inode_dirty`'s wakeup for a wb's first dirty inode (`wakeup_bdi`), under `list_lock`
/// and `i_lock`: `wb_wakeup_delayed` in 6.12; our fix wakes a pending kick now.
fn first_dirty_wakeup<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    const F: &str = "__mark_inode_dirty";
    if wb.kick.first_dirty == FirstDirty::KickPending {
        let pending = wb.state.test_bit(WB_START_DONTCACHE);
        ctx.event(
            F,
            "(fix) first dirty inode of wb{}: test_bit(WB_start_dontcache) = {}",
            &[wb.id as i64, pending as i64],
        );
        if pending {
            wb_wakeup(ctx, wb);
            return;
        }
    }
    wb_wakeup_delayed(ctx, wb);
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
/// for address order), switch the inode, `wb_io_lists_depopulated(old_wb)`, unlock; then
/// `wb_wakeup(new_wb)` and drop the old association reference; finally drop the isw's and the
/// function's references on the new wb.
pub fn inode_switch_wbs_work_fn<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, new_wb: usize) {
    let bdi = &inode.bdi;
    let rev = bdi.knobs.accounting;
    let new = bdi.wb(new_wb);
    wb_get(ctx, new);
    bdi.rcu.synchronize(ctx);
    let old = inode.inode_to_wb();
    let switched = {
        let (first, second) = if old.id < new.id { (old, new) } else { (new, old) };
        let _l1 = first.list_lock.lock();
        let _l2 = second.list_lock.lock();
        let switched = {
            let _i_lock = inode.i_lock.lock();
            inode_do_switch_wbs(ctx, inode, old, new, rev)
        };
        wb_io_lists_depopulated(ctx, old);
        switched
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
/// `v6-no-switch-transfer`); take the new association reference; publish `i_wb`; an inode on the
/// old wb's lists goes to the newest end of the new wb's `b_dirty` if dirty (its `dirtied_when`
/// clobbered: the kernel does not sort it in), else off the lists; `smp_store_release` clears
/// I_WB_SWITCH. Returns true (the inode is switched).
///
/// Where the bdi's knobs select a dirty charge (scenario per-block-charge), WB_RECLAIMABLE and
/// WB_DONTCACHE_DIRTY move together in one loop, as in v7: [`crate::iomap::switch_dirty_stats`].
///
/// [`SwitchKick::SetStartDontcache`] is the fix `v7-fix-switch-kick`: when DONTCACHE pages moved,
/// `test_and_set_bit(WB_start_dontcache)` on the new wb (after the stat moves, fully ordered, as
/// the folded kick), so the `wb_wakeup(new_wb)` that follows expedites them.
fn inode_do_switch_wbs<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, old: &Wb<P>, new: &Wb<P>, rev: Accounting) -> bool {
    const F: &str = "inode_do_switch_wbs";
    let _xa = inode.i_pages.lock_irq(ctx, "inode_do_switch_wbs: xa_unlock_irq");
    let moved = match inode.bdi.knobs.block {
        Some(block) => crate::iomap::switch_dirty_stats(ctx, inode, old, new, block.charge, block.switch_moves),
        None => {
            let mut moved = 0;
            for folio in inode.folios.iter().filter(|f| f.in_page_cache()) {
                let counted = if rev.counted_bit {
                    // Our fix: the folios whose pages are counted, whatever their marks.
                    folio.flags.test_bit(PG_DONTCACHE_COUNTED)
                } else {
                    folio.marks.test_bit(crate::folio::PAGECACHE_TAG_DIRTY)
                        && folio.test_dirty()
                        && folio.test_dropbehind()
                };
                if rev.switch_transfer && counted {
                    let nr = folio.nr_pages();
                    wb_stat_mod(ctx, old, WbStatItem::DontcacheDirty, -nr);
                    wb_stat_mod(ctx, new, WbStatItem::DontcacheDirty, nr);
                    moved += nr;
                }
            }
            ctx.event(F, "moved {} WB_DONTCACHE_DIRTY page(s) wb{} -> wb{}", &[moved, old.id as i64, new.id as i64]);
            moved
        }
    };
    if moved > 0 && rev.switch_kick == SwitchKick::SetStartDontcache {
        let was = new.state.test_and_set_bit(WB_START_DONTCACHE);
        ctx.event(F, "(fix) test_and_set_bit(WB_start_dontcache) on wb{} = {}", &[new.id as i64, was as i64]);
    }
    wb_get(ctx, new);
    inode.set_wb(new.id);
    if inode.io_list() != IoList::None {
        old.add_io_inodes(-1);
        inode.set_io_list(IoList::None);
        if inode.i_state.word() & I_DIRTY != 0 {
            inode.set_dirtied_when(new.tick());
            inode_io_list_move_locked(ctx, inode, new, IoList::Dirty);
        } else {
            inode_cgwb_move_to_attached(ctx, inode, new);
        }
    }
    P::fence(Ordering::Release);
    inode.i_state.clear_bit(I_WB_SWITCH);
    ctx.event(F, "i_wb = wb{}; smp_store_release: I_WB_SWITCH 1 -> 0", &[new.id as i64]);
    true
}

/// Why a writeback runs (`enum wb_reason`), for the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WbReason {
    /// `WB_REASON_DONTCACHE` (seed 002 patch 3): `wb_check_start_dontcache`'s work.
    Dontcache,
    /// `WB_REASON_FORKER_THREAD`: `wb_workfn` on the workqueue's rescuer.
    ForkerThread,
}

/// `wb_writeback()` for a `WB_SYNC_NONE`, `range_cyclic` work of `nr_pages` (the DONTCACHE work;
/// the rescuer's `writeback_inodes_wb` is the same round): under `list_lock`, `queue_io` moves
/// the inodes on `b_more_io` and `b_dirty` to `b_io` (setting I_SYNC_QUEUED), then
/// `writeback_sb_inodes` takes them oldest first: an inode under I_SYNC goes to `b_more_io`;
/// otherwise set I_SYNC, drop the locks, `__writeback_single_inode`, retake the inode's wb's
/// `list_lock` and `i_lock`, `requeue_inode`, clear I_SYNC; stop once `nr_pages` is used up.
/// `inodes` are the inodes that may be on the wb's lists (the kernel walks the lists; the model
/// checks each inode's list under `list_lock`).
///
/// One round: `wb_writeback`'s further rounds (re-queued `b_more_io`, waiting on an I_SYNC inode)
/// are left out; no modelled task other than the flusher sets I_SYNC. Each inode's write chunk
/// (`writeback_chunk_size`: at least MIN_WRITEBACK_PAGES, 1024 pages) exceeds every model's pages,
/// so an inode is written whole. `dirtied_before` is the moment the round starts: an inode put on
/// `b_dirty` later is not queued. Returns the pages written.
pub fn wb_writeback<P: Platform>(
    ctx: &Ctx<P>,
    wb: &Wb<P>,
    nr_pages: i64,
    reason: WbReason,
    inodes: &[&Inode<P>],
) -> i64 {
    let template = match reason {
        WbReason::Dontcache => "wb{}: WB_REASON_DONTCACHE work, nr_pages = {}",
        WbReason::ForkerThread => "wb{}: WB_REASON_FORKER_THREAD work (rescuer), nr_pages = {}",
    };
    ctx.event("wb_writeback", template, &[wb.id as i64, nr_pages]);
    let mut queued: Vec<&Inode<P>> = {
        let _list = wb.touch(ctx, "wb_writeback", Access::Memory, || wb.list_lock.lock());
        let mut q: Vec<&Inode<P>> = inodes
            .iter()
            .copied()
            .filter(|i| i.wb_id() == wb.id && matches!(i.io_list(), IoList::Dirty | IoList::MoreIo | IoList::Io))
            .collect();
        q.sort_by_key(|i| i.dirtied_when());
        for inode in &q {
            let _i_lock = inode.i_lock.lock();
            inode.set_io_list(IoList::Io);
            inode.set_sync_bit(I_SYNC_QUEUED, true);
        }
        ctx.event("queue_io", "wb{}: {} inode(s) -> b_io", &[wb.id as i64, q.len() as i64]);
        q
    };
    let mut written = 0;
    let mut left = nr_pages;
    for inode in queued.drain(..) {
        if left <= 0 {
            break;
        }
        {
            let list = wb.list_lock.lock();
            if inode.wb_id() != wb.id || inode.io_list() != IoList::Io {
                continue;
            }
            let _i_lock = inode.i_lock.lock();
            if inode.sync_bit(I_SYNC) {
                inode_io_list_move_locked(ctx, inode, wb, IoList::MoreIo);
                continue;
            }
            inode.set_sync_bit(I_SYNC, true);
            drop(list);
        }
        let pages = __writeback_single_inode(ctx, inode);
        left -= pages;
        written += pages;
        let (tmp_wb, _list) = inode_to_wb_and_lock_list(ctx, inode);
        let _i_lock = inode.i_lock.lock();
        requeue_inode(ctx, inode, tmp_wb);
        inode.set_sync_bit(I_SYNC, false);
    }
    written
}

/// `__writeback_single_inode()`: `do_writepages`; then under `i_lock` take the `I_DIRTY` bits
/// off, `smp_mb()` (pairs with `__mark_inode_dirty`'s), and set I_DIRTY_PAGES again if the
/// mapping is still tagged dirty: either a dirtier's lockless test sees I_DIRTY_PAGES clear, or
/// this sees its DIRTY mark. `write_inode` for I_DIRTY_SYNC writes nothing the models read.
/// Returns the pages written.
fn __writeback_single_inode<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>) -> i64 {
    let pages = do_writepages(ctx, inode);
    let _i_lock = inode.i_lock.lock();
    let dirty = inode.i_state.andnot_locked(I_DIRTY) & I_DIRTY;
    P::fence(Ordering::SeqCst);
    let tagged = inode.mapping_tagged_dirty();
    if tagged {
        inode.i_state.or_locked(1 << I_DIRTY_PAGES);
    }
    ctx.event(
        "__writeback_single_inode",
        "inode {}: wrote {} page(s); i_state &= ~I_DIRTY (was {}); smp_mb(); mapping_tagged(DIRTY) = {}",
        &[inode.ino as i64, pages, dirty as i64, tagged as i64],
    );
    pages
}

/// `requeue_inode()` after writing (a chunk larger than anything dirty here, so never "slice used
/// up"): still tagged dirty or I_DIRTY -> `redirty_tail_locked`; otherwise clean -> off the lists
/// (`inode_cgwb_move_to_attached`, which may clear WB_has_dirty_io).
fn requeue_inode<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, wb: &Wb<P>) {
    let clean = !inode.mapping_tagged_dirty() && inode.i_state.word() & I_DIRTY == 0;
    if clean {
        inode_cgwb_move_to_attached(ctx, inode, wb);
    } else {
        redirty_tail_locked(ctx, inode, wb);
    }
    ctx.event("requeue_inode", "inode {}: {requeue} (wb{})", &[inode.ino as i64, i64::from(!clean), wb.id as i64]);
}
