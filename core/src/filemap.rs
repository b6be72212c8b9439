//! mm/filemap.c: the page-cache lookup that clears PG_dropbehind (v7 of seed 002 patch 2),
//! removal from the page cache (`filemap_unaccount_folio`), and the end-of-writeback drop of a
//! dropbehind folio.

use crate::ctx::Ctx;
use crate::folio::{Folio, IN_PAGE_CACHE, PG_DIRTY, PG_DONTCACHE_COUNTED, PG_DROPBEHIND};
use crate::inode::{unlocked_inode_to_wb_begin, unlocked_inode_to_wb_end, Inode};
use crate::page_writeback::{dontcache_count_out, filemap_dirty_folio, folio_account_cleaned};
use crate::pte::zap_pte_range;
use crate::revision::LookupClear;
use crate::spinlock::SpinGuard;
use crate::sync::Platform;
use crate::wb::{wb_stat_mod, WbStatItem};

/// The folio in `inode`'s page cache at `index`, if any (a lockless `xas_load`).
pub fn filemap_folio_at<P: Platform>(inode: &Inode<P>, index: u64) -> Option<&Folio<P>> {
    inode.folios.iter().map(|f| &**f).find(|f| f.index == index && f.in_page_cache())
}

/// A folio a lookup returned: its reference, and its lock with FGP_LOCK. Dropping it unlocks
/// the folio, then puts the reference (`folio_unlock`, `folio_put`).
pub struct FolioRef<'a, P: Platform> {
    pub folio: &'a Folio<P>,
    locked: Option<SpinGuard<'a, P, ()>>,
}

impl<P: Platform> Drop for FolioRef<'_, P> {
    fn drop(&mut self) {
        drop(self.locked.take());
        self.folio.put();
    }
}

/// `filemap_get_entry()`: the folio at `index` with a reference (`folio_try_get`), retrying
/// while migration has its count frozen or has replaced it (`xas_reload`).
fn filemap_get_entry<'a, P: Platform>(ctx: &Ctx<P>, inode: &'a Inode<P>, index: u64) -> Option<&'a Folio<P>> {
    loop {
        let folio = filemap_folio_at(inode, index)?;
        if folio.try_get() {
            if folio.in_page_cache() {
                return Some(folio);
            }
            folio.put();
        } else {
            ctx.event("filemap_get_entry", "folio {}: count frozen (migration) -> retry", &[folio.index as i64]);
        }
        P::yield_now();
    }
}

/// `__filemap_get_folio_mpol(mapping, index, fgp_flags)` for a folio already in the page cache:
/// take a reference (`filemap_get_entry`; not found if nothing is at `index`), with FGP_LOCK lock
/// it and re-check `folio->mapping` (truncated or migrated: not found), then, last, unless
/// FGP_DONTCACHE, the "not an uncached lookup" clear of PG_dropbehind and (v6/v7) the decrement:
/// if the clear found the flag set, `folio_test_dirty` and `mapping_can_writeback(mapping)` of
/// the *lookup's* mapping, then WB_DONTCACHE_DIRTY -= nr inside `unlocked_inode_to_wb_begin/end`.
pub fn __filemap_get_folio_mpol<'a, P: Platform>(
    ctx: &Ctx<P>,
    inode: &'a Inode<P>,
    index: u64,
    fgp_lock: bool,
    fgp_dontcache: bool,
) -> Option<FolioRef<'a, P>> {
    const F: &str = "__filemap_get_folio_mpol";
    let rev = inode.bdi.knobs.accounting;
    let (folio, locked) = loop {
        let Some(folio) = filemap_get_entry(ctx, inode, index) else {
            ctx.event(F, "index {}: no folio in the page cache -> -ENOENT", &[index as i64]);
            return None;
        };
        if !fgp_lock {
            break (folio, None);
        }
        let guard = folio.lock();
        if folio.in_page_cache() {
            break (folio, Some(guard));
        }
        ctx.event(F, "FGP_LOCK: folio {} truncated or migrated meanwhile -> repeat", &[folio.index as i64]);
        drop(guard);
        folio.put();
    };
    let found = FolioRef { folio, locked };
    if fgp_dontcache {
        ctx.event(F, "FGP_DONTCACHE: folio {} found, PG_dropbehind left alone", &[folio.index as i64]);
        return Some(found);
    }
    if let Some(block) = inode.bdi.knobs.block.filter(|b| b.lookup_locked) {
        match found.locked {
            Some(_) => filemap_clear_dropbehind_accounted(ctx, inode, folio, block.charge),
            None => ctx.event(
                F,
                "(fix) no FGP_LOCK: folio {} PG_dropbehind left to the caller's locked clear",
                &[folio.index as i64],
            ),
        }
        return Some(found);
    }
    // Our fix, part 2: the flag change and the stat update inside one wb section.
    let early = rev.lookup_clear_in_section.then(|| unlocked_inode_to_wb_begin(ctx, inode));
    let old = match rev.lookup_clear {
        _ if rev.counted_bit => folio.flags.clear_bits_word(1 << PG_DROPBEHIND | 1 << PG_DONTCACHE_COUNTED),
        LookupClear::TestAndClear => folio.flags.test_and_clear_bit_word(PG_DROPBEHIND),
        LookupClear::TestThenClear => {
            let word = folio.flags.word();
            if word & (1 << PG_DROPBEHIND) != 0 {
                folio.flags.clear_bit(PG_DROPBEHIND);
            }
            word
        }
    };
    let cleared = old & (1 << PG_DROPBEHIND) != 0;
    let template = match (fgp_lock, rev.lookup_clear) {
        (true, LookupClear::TestAndClear) => "FGP_LOCK; folio_test_clear_dropbehind(folio {}) = {}",
        (false, LookupClear::TestAndClear) => "no FGP_LOCK; folio_test_clear_dropbehind(folio {}) = {}",
        (true, LookupClear::TestThenClear) => "FGP_LOCK; folio_test_dropbehind(folio {}) = {} [then clear]",
        (false, LookupClear::TestThenClear) => "no FGP_LOCK; folio_test_dropbehind(folio {}) = {} [then clear]",
    };
    ctx.event(F, template, &[folio.index as i64, cleared as i64]);
    if cleared {
        let dirty = if rev.counted_bit {
            // Our fix: count out exactly what was counted in.
            old & (1 << PG_DONTCACHE_COUNTED) != 0
        } else if rev.flag_snapshot {
            old & (1 << PG_DIRTY) != 0
        } else {
            folio.test_dirty()
        };
        let guard = !rev.lookup_guard || inode.mapping_can_writeback();
        ctx.event(F, "folio_test_dirty = {}; mapping_can_writeback check passes = {}", &[dirty as i64, guard as i64]);
        if dirty && guard {
            let amount = rev.lookup_negate.minus(folio.nr_pages());
            match &early {
                Some((wb, _)) => wb_stat_mod(ctx, wb, WbStatItem::DontcacheDirty, amount),
                None => {
                    let (wb, cookie) = unlocked_inode_to_wb_begin(ctx, inode);
                    wb_stat_mod(ctx, wb, WbStatItem::DontcacheDirty, amount);
                    unlocked_inode_to_wb_end(ctx, inode, cookie);
                }
            }
        }
    }
    if let Some((_, cookie)) = early {
        unlocked_inode_to_wb_end(ctx, inode, cookie);
    }
    Some(found)
}

/// Our fix of v7's lookup for a mapping charged per page (per-block-charge): with the folio locked
/// (so no folio-locked dirtier or discharge runs), inside one `unlocked_inode_to_wb_begin/end`
/// section (so no switch moves the folio between the clear and the decrement),
/// `folio_test_clear_dropbehind`, and for a dirty folio WB_DONTCACHE_DIRTY -= the pages charged,
/// `->accounted_dirty_pages()`, rather than `folio_nr_pages()`. `filemap_fault` calls it after
/// `lock_folio_maybe_drop_mmap`; FGP_LOCK lookups from `__filemap_get_folio`.
pub fn filemap_clear_dropbehind_accounted<P: Platform>(
    ctx: &Ctx<P>,
    inode: &Inode<P>,
    folio: &Folio<P>,
    charge: crate::iomap::DirtyCharge,
) {
    let (wb, cookie) = unlocked_inode_to_wb_begin(ctx, inode);
    let cleared = folio.flags.test_and_clear_bit(PG_DROPBEHIND);
    let dirty = cleared && folio.test_dirty() && inode.mapping_can_writeback();
    let nr = if dirty { crate::iomap::accounted_dirty_pages(ctx, folio, charge) } else { 0 };
    ctx.event(
        "filemap_clear_dropbehind_accounted",
        "(fix) folio {} locked: folio_test_clear_dropbehind = {}, dirty = {}; WB_DONTCACHE_DIRTY -= {}",
        &[folio.index as i64, cleared as i64, dirty as i64, nr],
    );
    if nr != 0 {
        wb_stat_mod(ctx, wb, WbStatItem::DontcacheDirty, -nr);
    }
    unlocked_inode_to_wb_end(ctx, inode, cookie);
}

/// `__filemap_remove_folio()` for a locked folio: under `xa_lock_irq(&mapping->i_pages)`,
/// `filemap_unaccount_folio` (if PG_dirty is still set and the mapping can write back:
/// `folio_account_cleaned` on `inode_to_wb()`, with PG_dirty left set; outside any wb section),
/// then `page_cache_delete` (the folio leaves the page cache, its marks dropped).
pub fn filemap_remove_folio<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) {
    let _xa = inode.i_pages.lock_irq(ctx, "filemap_remove_folio: xa_unlock_irq");
    let dirty = folio.test_dirty();
    ctx.event("filemap_unaccount_folio", "folio {}: folio_test_dirty = {}", &[folio.index as i64, dirty as i64]);
    if inode.bdi.knobs.accounting.counted_bit {
        // Our fix: count out exactly what was counted in.
        let old = folio.flags.clear_bits_word(1 << PG_DONTCACHE_COUNTED);
        folio_account_cleaned(ctx, folio, inode.inode_to_wb(), old & (1 << PG_DONTCACHE_COUNTED) != 0);
    } else if dirty && inode.mapping_can_writeback() {
        // Our fix, part 1: take PG_dropbehind with an RMW, so a lookup still holding the folio
        // cannot count the same pages again after removal.
        let dropbehind = if inode.bdi.knobs.accounting.flag_snapshot {
            folio.flags.test_and_clear_bit(PG_DROPBEHIND)
        } else {
            folio.test_dropbehind()
        };
        folio_account_cleaned(ctx, folio, inode.inode_to_wb(), dropbehind);
    }
    inode.xa_clear_dirty_mark(folio);
    folio.marks.clear_bit(IN_PAGE_CACHE);
    ctx.event("page_cache_delete", "folio {} leaves the page cache", &[folio.index as i64]);
}

/// `truncate_inode_folio()` for one folio: lock it, `truncate_cleanup_folio` (which cancels
/// dirty: `__folio_cancel_dirty`), remove it from the page cache, unlock.
pub fn truncate_inode_folio<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) {
    let _locked = folio.lock();
    if !folio.in_page_cache() {
        return;
    }
    unmap_mapping_folio(ctx, inode, folio);
    crate::page_writeback::__folio_cancel_dirty(ctx, inode, folio);
    filemap_remove_folio(ctx, inode, folio);
}

/// `unmap_mapping_folio()` (folio locked): `zap_pte_range` on the folio's PTE, which passes a
/// dirty PTE's dirty bit to the folio (`folio_mark_dirty`) before removing it. After this no
/// PTE can dirty the folio.
fn unmap_mapping_folio<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) {
    if let Some(pte) = &folio.pte {
        zap_pte_range(ctx, pte, || filemap_dirty_folio(ctx, inode, folio));
    }
}

/// `folio_unmap_invalidate()` (folio locked): unmap it, then under the i_pages lock give up if
/// it is dirty again (-EBUSY), else remove it from the page cache.
fn folio_unmap_invalidate<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) {
    unmap_mapping_folio(ctx, inode, folio);
    if folio.test_dirty() {
        ctx.event("folio_unmap_invalidate", "folio {} dirty again -> -EBUSY, stays cached", &[folio.index as i64]);
        return;
    }
    filemap_remove_folio(ctx, inode, folio);
}

/// `folio_end_dropbehind()` after writeback completes in task context: if PG_dropbehind is set
/// and `folio_trylock` succeeds, `filemap_end_dropbehind`: unless dirty (never under writeback here),
/// `folio_test_clear_dropbehind` and, if it was set, invalidate (remove from the page cache).
pub fn folio_end_dropbehind<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) {
    const F: &str = "folio_end_dropbehind";
    if !folio.test_dropbehind() {
        return;
    }
    let Some(_locked) = folio.trylock() else {
        ctx.event(F, "folio {}: folio_trylock failed -> keep", &[folio.index as i64]);
        return;
    };
    if !folio.in_page_cache() || folio.test_dirty() {
        ctx.event(F, "folio {} gone, under writeback or dirty -> keep", &[folio.index as i64]);
        return;
    }
    if inode.bdi.knobs.accounting.counted_bit {
        // Our fix: the clear and the count-out in one RMW, inside a wb section.
        let (wb, cookie) = unlocked_inode_to_wb_begin(ctx, inode);
        let old = folio.flags.clear_bits_word(1 << PG_DROPBEHIND | 1 << PG_DONTCACHE_COUNTED);
        if old & (1 << PG_DONTCACHE_COUNTED) != 0 {
            dontcache_count_out(ctx, wb, folio);
        }
        unlocked_inode_to_wb_end(ctx, inode, cookie);
        if old & (1 << PG_DROPBEHIND) != 0 {
            folio_unmap_invalidate(ctx, inode, folio);
        }
        return;
    }
    let old = folio.flags.test_and_clear_bit_word(PG_DROPBEHIND);
    if old & (1 << PG_DROPBEHIND) == 0 {
        return;
    }
    // Our fix, part 1: a dirtier may have set PG_dirty since the check above; the pages it
    // counts as dropbehind lose the flag here, so count them out.
    if inode.bdi.knobs.accounting.flag_snapshot && old & (1 << PG_DIRTY) != 0 && inode.mapping_can_writeback() {
        let (wb, cookie) = unlocked_inode_to_wb_begin(ctx, inode);
        dontcache_count_out(ctx, wb, folio);
        unlocked_inode_to_wb_end(ctx, inode, cookie);
    }
    ctx.event(F, "folio {}: dropbehind cleared -> folio_unmap_invalidate", &[folio.index as i64]);
    folio_unmap_invalidate(ctx, inode, folio);
}
