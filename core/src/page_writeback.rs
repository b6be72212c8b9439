//! The dirtying path of mm/page-writeback.c: `filemap_dirty_folio`, `__folio_mark_dirty`,
//! `folio_account_dirtied` (v7 of seed 002 patch 2 adds the WB_DONTCACHE_DIRTY increment).

use crate::ctx::Ctx;
use crate::folio::{Folio, PG_DIRTY};
use crate::fs_writeback::__mark_inode_dirty;
use crate::inode::Inode;
use crate::sync::Platform;
use crate::wb::{wb_stat_mod, WbStatItem};

/// `filemap_dirty_folio()`: set PG_dirty first with the fully ordered `folio_test_set_dirty`,
/// outside any lock; only on the clean-to-dirty transition account (`__folio_mark_dirty`) and
/// then `__mark_inode_dirty(I_DIRTY_PAGES)`. Returns whether the folio became dirty.
///
/// `smp_mb_in_mark_inode_dirty` is true in the kernel; false only for the `-no-mb` mutants.
pub fn filemap_dirty_folio<P: Platform>(
    ctx: &Ctx<P>,
    inode: &Inode<P>,
    folio: &Folio<P>,
    smp_mb_in_mark_inode_dirty: bool,
) -> bool {
    if folio.flags.test_and_set_bit(PG_DIRTY) {
        ctx.event(
            "filemap_dirty_folio",
            "folio_test_set_dirty(folio {}) = 1 -> nothing to account",
            &[folio.index as i64],
        );
        return false;
    }
    ctx.event(
        "filemap_dirty_folio",
        "folio_test_set_dirty(folio {}) = 0",
        &[folio.index as i64],
    );
    __folio_mark_dirty(ctx, inode, folio);
    __mark_inode_dirty(ctx, inode, smp_mb_in_mark_inode_dirty);
    true
}

/// `__folio_mark_dirty()`: under `xa_lock_irqsave(&mapping->i_pages)`, account the folio if it
/// is still in the mapping (truncation is not modelled in this family).
pub fn __folio_mark_dirty<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) {
    let _xa = inode.i_pages.lock();
    folio_account_dirtied(ctx, inode, folio);
}

/// `folio_account_dirtied()` (v7): for a mapping that can write back, charge the whole folio to
/// `inode_to_wb()`; if PG_dropbehind is set (plain test_bit, inside the xa_lock section) add
/// `folio_nr_pages` to WB_DONTCACHE_DIRTY. The other stats are left out (see [`WbStatItem`]).
pub fn folio_account_dirtied<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, folio: &Folio<P>) {
    if !inode.mapping_can_writeback() {
        return;
    }
    let wb = inode.inode_to_wb();
    let dropbehind = folio.test_dropbehind();
    ctx.event(
        "folio_account_dirtied",
        "folio_test_dropbehind(folio {}) = {}",
        &[folio.index as i64, dropbehind as i64],
    );
    if dropbehind {
        wb_stat_mod(ctx, wb, WbStatItem::DontcacheDirty, folio.nr_pages());
    }
}
