//! mm/migrate.c (6.12, with 6.14's PG_dropbehind copy): migration of one page-cache folio to a
//! new one, as `migrate_pages(.., MIGRATE_SYNC)` does it through `filemap_migrate_folio`.

use crate::ctx::Ctx;
use crate::folio::{Folio, IN_PAGE_CACHE, PAGECACHE_TAG_DIRTY, PG_DIRTY, PG_DONTCACHE_COUNTED};
use crate::inode::Inode;
use crate::page_writeback::filemap_dirty_folio;
use crate::pte::{remove_migration_pte, zap_pte_range, Pte, PteState};
use crate::sync::Platform;

/// Migrate `old` (in `inode`'s page cache) to `new` (a fresh folio of the same size, not yet in
/// the page cache). Returns whether it moved.
///
/// - `migrate_folio_unmap`: `folio_lock(old)` (a folio is never under writeback here: the I/O
///   completes inside writeback's folio lock); `try_to_migrate` replaces a
///   mapped PTE by a migration entry under the PTL, passing a dirty PTE's bit to the folio
///   (`folio_mark_dirty`), as `zap_pte_range` does; `folio_trylock(new)`.
/// - `__folio_migrate_mapping` under `xas_lock_irq`: `folio_ref_freeze` (fails, -EAGAIN, while a
///   lookup holds a reference); if PG_dirty: `folio_clear_dirty(old)`, `folio_set_dirty(new)`;
///   `xas_store(new)`: the entry, with its marks, now points at `new`. No wb stat moves (the
///   folio stays on its inode's wb); [`crate::revision::Accounting::counted_bit`] (our fix) moves
///   PG_DONTCACHE_COUNTED with PG_dirty.
/// - `folio_migrate_flags`, after the xa_lock is dropped: PG_dropbehind copied to `new` (6.14,
///   "TODO: free the folio on migration?").
/// - `remove_migration_ptes` maps `new`; both folios are unlocked.
pub fn migrate_folio<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, old: &Folio<P>, new: &Folio<P>) -> bool {
    const F: &str = "migrate_folio";
    let _old_lock = old.lock();
    if !old.in_page_cache() {
        ctx.event(F, "folio {} gone -> not migrated", &[old.index as i64]);
        return false;
    }
    let pte = old.pte.as_ref().map_or(PteState::None, Pte::state);
    if let Some(p) = &old.pte {
        zap_pte_range(ctx, p, || filemap_dirty_folio(ctx, inode, old));
    }
    let _new_lock = new.trylock().expect("a new folio is private to its migration");
    let moved = {
        let _xa = inode.i_pages.lock_irq(ctx, "__folio_migrate_mapping: xas_unlock_irq");
        if !old.ref_freeze() {
            ctx.event(F, "folio_ref_freeze(folio {}) failed: a reference is held -> -EAGAIN", &[old.index as i64]);
            false
        } else {
            let dirty = old.test_dirty();
            if dirty {
                old.flags.clear_bit(PG_DIRTY);
                new.flags.set_bit(PG_DIRTY);
            }
            if inode.bdi.knobs.accounting.counted_bit && old.flags.test_and_clear_bit(PG_DONTCACHE_COUNTED) {
                new.flags.set_bit(PG_DONTCACHE_COUNTED);
            }
            if old.marks.test_bit(PAGECACHE_TAG_DIRTY) {
                new.marks.set_bit(PAGECACHE_TAG_DIRTY);
                old.marks.clear_bit(PAGECACHE_TAG_DIRTY);
            }
            new.marks.set_bit(IN_PAGE_CACHE);
            old.marks.clear_bit(IN_PAGE_CACHE);
            old.ref_unfreeze();
            ctx.event(
                F,
                "__folio_migrate_mapping: folio {} -> folio {} in the page cache; PG_dirty moved = {}",
                &[old.index as i64, new.index as i64, dirty as i64],
            );
            true
        }
    };
    if moved {
        let dropbehind = old.test_dropbehind();
        if dropbehind {
            new.flags.set_bit(crate::folio::PG_DROPBEHIND);
        }
        ctx.event(F, "folio_migrate_flags: PG_dropbehind copied = {}", &[dropbehind as i64]);
    }
    let target = if moved { new } else { old };
    if let Some(p) = &target.pte {
        remove_migration_pte(ctx, p, pte, target.test_dirty());
    }
    moved
}
