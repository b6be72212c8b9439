//! One page-table entry mapping a folio of a shared file mapping, with its page-table lock
//! (PTL): the unmap-time dirtier `zap_pte_range` (mm/memory.c) and writeback's `folio_mkclean`
//! (mm/rmap.c), 6.12.
//!
//! The PTE is one atomic word (present, dirty) so that a walk can read it without the PTL, as
//! `page_vma_mapped_walk` does for walks without `PVMW_SYNC`. `page_mkclean_one` walks with
//! `PVMW_SYNC` (since 479db0bf408e, "mm: dirty page tracking race fix", 2.6.25, then
//! `page_check_address(.., sync = 1)`): it always takes the PTL, so it cannot miss a PTE that
//! `zap_pte_range` has cleared but whose dirty bit it has not yet passed to `folio_mark_dirty`.

use crate::ctx::Ctx;
use crate::sync::{Atomic, Ordering, Platform, SpinLock};

const PRESENT: usize = 1;
const DIRTY: usize = 2;

pub struct Pte<P: Platform> {
    word: P::AtomicUsize,
    ptl: SpinLock<P, ()>,
}

impl<P: Platform> Pte<P> {
    /// A present PTE, dirty if the user stored through it (after `->page_mkwrite` made it
    /// writable: `iomap_page_mkwrite` has then marked every block of the folio dirty).
    pub fn new(dirty: bool) -> Self {
        Pte { word: P::AtomicUsize::new(PRESENT | if dirty { DIRTY } else { 0 }), ptl: SpinLock::new(()) }
    }
}

/// `zap_pte_range()` for this PTE (munmap, exit): under the PTL, `ptep_get_and_clear_full`, then
/// if the old PTE was dirty `folio_mark_dirty` (`mark_dirty`), still under the PTL. The folio lock
/// is not taken.
pub fn zap_pte_range<P: Platform, R>(ctx: &Ctx<P>, pte: &Pte<P>, mark_dirty: impl FnOnce() -> R) -> Option<R> {
    let _ptl = pte.ptl.lock();
    let old = pte.word.swap(0, Ordering::Relaxed);
    ctx.event(
        "zap_pte_range",
        "ptep_get_and_clear_full: present {} dirty {}",
        &[(old & PRESENT) as i64, (old & DIRTY != 0) as i64],
    );
    (old & DIRTY != 0).then(mark_dirty)
}

/// `folio_mkclean()` -> `page_mkclean_one()` for this PTE: write-protect and clean it, returning
/// whether it was dirty. `sync` is `PVMW_SYNC` (the kernel): the PTL is taken before the PTE is
/// read. Without it (the mutant of the race 479db0bf408e fixed) a PTE read as not present is
/// skipped without the lock.
pub fn folio_mkclean<P: Platform>(ctx: &Ctx<P>, pte: &Pte<P>, sync: bool) -> bool {
    if !sync && pte.word.load(Ordering::Relaxed) & PRESENT == 0 {
        ctx.event("folio_mkclean", "page_vma_mapped_walk: PTE not present (read without the PTL) -> skip", &[]);
        return false;
    }
    let _ptl = pte.ptl.lock();
    let old = pte.word.load(Ordering::Relaxed);
    let dirty = old & PRESENT != 0 && old & DIRTY != 0;
    if dirty {
        pte.word.store(PRESENT, Ordering::Relaxed);
    }
    ctx.event(
        "folio_mkclean",
        "page_mkclean_one under the PTL: present {} dirty {}",
        &[(old & PRESENT) as i64, dirty as i64],
    );
    dirty
}
