//! mm/huge_memory.c: `__split_folio_to_order()`'s flag copy (seed 002 patch 1).

use crate::ctx::Ctx;
use crate::folio::{Folio, IN_PAGE_CACHE, PAGECACHE_TAG_DIRTY, PG_DIRTY, PG_DONTCACHE_COUNTED, PG_DROPBEHIND};
use crate::inode::Inode;
use crate::sync::Platform;

/// Split `folio` (locked by the caller, its refcount frozen, under the i_pages lock: nothing
/// else can use it meanwhile) into `new_folios`, which together cover its pages: each new folio
/// gets PG_dirty from the allowlist copy, and PG_dropbehind if the bdi's accounting copies it
/// ([`crate::revision::Accounting::split_copies_dropbehind`], v7 patch 1) or if it is the head (before the patch only the head kept it); the DIRTY mark follows the
/// entries; the new folios replace the old one in the page cache. Counters do not change: the
/// pages are the same.
pub fn __split_folio_to_order<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>, new_folios: &[&Folio<P>]) {
    let copy_dropbehind = inode.bdi.knobs.accounting.split_copies_dropbehind;
    let _xa = inode.i_pages.lock_irq(ctx, "__split_folio_to_order: xa_unlock_irq");
    let dirty = folio.test_dirty();
    let dropbehind = folio.test_dropbehind();
    let tagged = folio.marks.test_bit(PAGECACHE_TAG_DIRTY);
    let counted = folio.flags.test_bit(PG_DONTCACHE_COUNTED);
    for (i, new) in new_folios.iter().enumerate() {
        if counted && (copy_dropbehind || i == 0) {
            new.flags.set_bit(PG_DONTCACHE_COUNTED);
        }
        if dirty {
            new.flags.set_bit(PG_DIRTY);
        }
        if dropbehind && (copy_dropbehind || i == 0) {
            new.flags.set_bit(PG_DROPBEHIND);
        }
        if tagged {
            inode.xa_set_dirty_mark(new);
        }
        new.marks.set_bit(IN_PAGE_CACHE);
    }
    folio.marks.clear_bit(IN_PAGE_CACHE);
    inode.xa_clear_dirty_mark(folio);
    ctx.event(
        "__split_folio_to_order",
        "folio {} (dirty {}, dropbehind {}) split into {} folios; PG_dropbehind copied to tails = {}",
        &[folio.index as i64, dirty as i64, dropbehind as i64, new_folios.len() as i64, copy_dropbehind as i64],
    );
}
