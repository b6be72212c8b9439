//! mm/page-writeback.c: the dirtying path (`filemap_dirty_folio`, `__folio_mark_dirty`,
//! `folio_account_dirtied`) and the cleaning path writeback takes (`folio_clear_dirty_for_io`,
//! `__folio_start_writeback`), with v7 of seed 002 patch 2's WB_DONTCACHE_DIRTY updates.

use crate::ctx::Ctx;
use crate::folio::{Folio, PAGECACHE_TAG_DIRTY, PG_DIRTY, PG_DONTCACHE_COUNTED, PG_DROPBEHIND};
use crate::fs_writeback::__mark_inode_dirty;
use crate::inode::{unlocked_inode_to_wb_begin, unlocked_inode_to_wb_end, Inode, I_DIRTY_PAGES};
use crate::pte::folio_mkclean;
use crate::sync::Platform;
use crate::wb::{wb_stat_mod, Wb, WbStatItem};

/// The PG_dropbehind an accounting decision uses: with [`Accounting::flag_snapshot`] (our fix)
/// the value in the old flags word the decision's own RMW returned; otherwise (v7) a plain
/// `folio_test_dropbehind` now.
fn dropbehind_for<P: Platform>(inode: &Inode<P>, folio: &Folio<P>, old_flags: usize) -> bool {
    if inode.bdi.knobs.accounting.flag_snapshot {
        old_flags & (1 << PG_DROPBEHIND) != 0
    } else {
        folio.test_dropbehind()
    }
}

/// `filemap_dirty_folio()`: set PG_dirty first with the fully ordered `folio_test_set_dirty`,
/// outside any lock; only on the clean-to-dirty transition account (`__folio_mark_dirty`) and
/// then `__mark_inode_dirty(I_DIRTY_PAGES)`. Returns whether the folio became dirty.
pub fn filemap_dirty_folio<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) -> bool {
    let old = folio.flags.test_and_set_bit_word(PG_DIRTY);
    if old & (1 << PG_DIRTY) != 0 {
        ctx.event(
            "filemap_dirty_folio",
            "folio_test_set_dirty(folio {}) = 1 -> nothing to account",
            &[folio.index as i64],
        );
        return false;
    }
    ctx.event("filemap_dirty_folio", "folio_test_set_dirty(folio {}) = 0", &[folio.index as i64]);
    __folio_mark_dirty(ctx, inode, folio, old);
    __mark_inode_dirty(ctx, inode, 1 << I_DIRTY_PAGES);
    true
}

/// `__folio_mark_dirty()`: under `xa_lock_irqsave(&mapping->i_pages)`, account the folio if it
/// is still in the page cache ("race with truncate?": a truncated folio stays dirty, unaccounted)
/// and set its DIRTY mark. `old_flags` is the word `folio_test_set_dirty` returned.
pub fn __folio_mark_dirty<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>, old_flags: usize) {
    let _xa = inode.i_pages.lock_irqsave(ctx, "__folio_mark_dirty: xa_unlock_irqrestore");
    if !folio.in_page_cache() {
        ctx.event("__folio_mark_dirty", "folio {} truncated meanwhile -> not accounted", &[folio.index as i64]);
        return;
    }
    folio_account_dirtied(ctx, inode, folio, old_flags);
    inode.xa_set_dirty_mark(folio);
}

/// `folio_account_dirtied()` (v7): for a mapping that can write back, charge the whole folio to
/// `inode_to_wb()` (stable under the i_pages lock); if PG_dropbehind is set (v7: a plain
/// `test_bit` here, inside the xa_lock section) add `folio_nr_pages` to WB_DONTCACHE_DIRTY. The
/// other stats are left out (see [`WbStatItem`]).
pub fn folio_account_dirtied<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>, old_flags: usize) {
    if !inode.mapping_can_writeback() {
        return;
    }
    let wb = inode.inode_to_wb();
    if inode.bdi.knobs.accounting.counted_bit {
        // Our fix: count the pages in only while PG_dirty and PG_dropbehind are still both set.
        const WANT: usize = 1 << PG_DIRTY | 1 << PG_DROPBEHIND;
        let (_, counted) = folio.flags.update(|w| {
            (w & WANT == WANT && w & (1 << PG_DONTCACHE_COUNTED) == 0).then_some(w | 1 << PG_DONTCACHE_COUNTED)
        });
        ctx.event(
            "folio_account_dirtied",
            "(fix) counted bit set = {}; inode_to_wb = wb{}",
            &[counted as i64, wb.id as i64],
        );
        if counted {
            dontcache_count_in(ctx, wb, folio);
        }
        return;
    }
    let dropbehind = dropbehind_for(inode, folio, old_flags);
    ctx.event(
        "folio_account_dirtied",
        "folio_test_dropbehind(folio {}) = {}; inode_to_wb = wb{}",
        &[folio.index as i64, dropbehind as i64, wb.id as i64],
    );
    if dropbehind {
        dontcache_count_in(ctx, wb, folio);
    }
}

/// v7's count-in of a whole folio: WB_DONTCACHE_DIRTY += `folio_nr_pages` on `wb` (with the
/// folio's ghost record of the consumes `wb` had made by then).
fn dontcache_count_in<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, folio: &Folio<P>) {
    wb_stat_mod(ctx, wb, WbStatItem::DontcacheDirty, folio.nr_pages());
    folio.note_counted_in(folio.nr_pages(), wb.consumes());
}

/// `folio_clear_dirty_for_io()` (v7; folio locked by the caller): `folio_mkclean` (with
/// `PVMW_SYNC`) and, if it cleaned a dirty PTE, `folio_mark_dirty` first; then inside
/// `unlocked_inode_to_wb_begin/end`, the fully ordered `folio_test_clear_dirty`; if it was dirty,
/// a plain `folio_test_dropbehind` and, if set, WB_DONTCACHE_DIRTY -= nr on the section's wb.
/// The DIRTY mark is left set until `__folio_start_writeback`, as in the kernel.
pub fn folio_clear_dirty_for_io<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) -> bool {
    if !inode.mapping_can_writeback() {
        return folio.flags.test_and_clear_bit(PG_DIRTY);
    }
    if folio.pte.as_ref().is_some_and(|pte| folio_mkclean(ctx, pte, true)) {
        filemap_dirty_folio(ctx, inode, folio);
    }
    clear_dirty_and_account(ctx, inode, folio, "folio_clear_dirty_for_io")
}

/// The cleaners' common step, inside a wb section: `folio_test_clear_dirty` and, if it was
/// dirty, `folio_account_cleaned` on the section's wb.
fn clear_dirty_and_account<P: Platform>(
    ctx: &Ctx<P>,
    inode: &Inode<P>,
    folio: &Folio<P>,
    function: &'static str,
) -> bool {
    let (wb, cookie) = unlocked_inode_to_wb_begin(ctx, inode);
    let counted_bit = inode.bdi.knobs.accounting.counted_bit;
    let old = if counted_bit {
        folio.flags.clear_bits_word(1 << PG_DIRTY | 1 << PG_DONTCACHE_COUNTED)
    } else {
        folio.flags.test_and_clear_bit_word(PG_DIRTY)
    };
    let was_dirty = old & (1 << PG_DIRTY) != 0;
    ctx.event(function, "folio_test_clear_dirty(folio {}) = {}", &[folio.index as i64, was_dirty as i64]);
    if counted_bit {
        // Our fix: count out exactly what was counted in.
        folio_account_cleaned(ctx, folio, wb, old & (1 << PG_DONTCACHE_COUNTED) != 0);
    } else if was_dirty {
        folio_account_cleaned(ctx, folio, wb, dropbehind_for(inode, folio, old));
    }
    unlocked_inode_to_wb_end(ctx, inode, cookie);
    was_dirty
}

/// `__folio_start_writeback()` and the `__folio_end_writeback()` of its I/O, which completes at
/// once in the models: in one i_pages lock section, drop the DIRTY mark if PG_dirty is still clear.
/// PG_writeback and the WRITEBACK mark would be set and cleared inside that section and the
/// folio lock, where no modelled reader can see them, so they are left out (as are WB_WRITEBACK
/// and the other stats); a folio is never seen under writeback.
pub fn folio_write_io<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) {
    let _xa = inode.i_pages.lock_irqsave(ctx, "__folio_start_writeback: xa_unlock_irqrestore");
    if !folio.test_dirty() {
        inode.xa_clear_dirty_mark(folio);
    }
    ctx.event("__folio_start_writeback", "folio {} written (the I/O completes at once)", &[folio.index as i64]);
}

/// One step of `writeback_iter` for a locked folio (`folio_prepare_writeback`: still in the page
/// cache, still dirty (never under writeback here: see [`folio_write_io`]), then
/// `folio_clear_dirty_for_io`) and the
/// filesystem's write of it, the I/O completing at once ([`folio_write_io`]). Returns whether the
/// folio was written.
pub fn write_locked_folio<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) -> bool {
    if !folio.in_page_cache() || !folio.test_dirty() {
        return false;
    }
    if !folio_clear_dirty_for_io(ctx, inode, folio) {
        return false;
    }
    folio_write_io(ctx, inode, folio);
    true
}

/// `do_writepages()` for a `WB_SYNC_NONE` writeback of the whole file: every folio carrying the
/// DIRTY mark (a lockless walk), locked and written with [`write_locked_folio`]. Returns the
/// pages written.
pub fn do_writepages<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>) -> i64 {
    let mut pages = 0;
    for folio in inode.folios.iter().filter(|f| f.marks.test_bit(PAGECACHE_TAG_DIRTY)) {
        let _locked = folio.lock();
        if write_locked_folio(ctx, inode, folio) {
            pages += folio.nr_pages();
        }
    }
    pages
}

/// `folio_account_cleaned()` (v7): the caller has cleared PG_dirty; if PG_dropbehind is set
/// (v7: a plain `test_bit`, passed in by the caller), WB_DONTCACHE_DIRTY -= nr on `wb`.
pub fn folio_account_cleaned<P: Platform>(ctx: &Ctx<P>, folio: &Folio<P>, wb: &Wb<P>, dropbehind: bool) {
    ctx.event(
        "folio_account_cleaned",
        "folio_test_dropbehind(folio {}) = {}",
        &[folio.index as i64, dropbehind as i64],
    );
    if dropbehind {
        dontcache_count_out(ctx, wb, folio);
    }
}

/// v7's count-out of a whole folio: WB_DONTCACHE_DIRTY -= `folio_nr_pages` on `wb` (with the
/// folio's ghost record of it).
pub fn dontcache_count_out<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, folio: &Folio<P>) {
    wb_stat_mod(ctx, wb, WbStatItem::DontcacheDirty, -folio.nr_pages());
    folio.note_counted_out(folio.nr_pages());
}

/// `__folio_cancel_dirty()` (truncate and invalidate, folio locked by the caller): for a mapping
/// that can write back, inside `unlocked_inode_to_wb_begin/end`, `folio_test_clear_dirty` and,
/// if it was dirty, `folio_account_cleaned` on the section's wb; otherwise just clear PG_dirty.
pub fn __folio_cancel_dirty<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) {
    if !inode.mapping_can_writeback() {
        folio.flags.test_and_clear_bit(PG_DIRTY);
        return;
    }
    clear_dirty_and_account(ctx, inode, folio, "__folio_cancel_dirty");
}

/// `folio_redirty_for_writepage()` (folio locked, from a writepage that cannot write now):
/// `filemap_dirty_folio`, which accounts again; its WB_DIRTIED correction is not modelled.
pub fn folio_redirty_for_writepage<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) -> bool {
    ctx.event("folio_redirty_for_writepage", "folio {}", &[folio.index as i64]);
    filemap_dirty_folio(ctx, inode, folio)
}
