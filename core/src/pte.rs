//! One page-table entry mapping a folio of a shared file mapping, with its page-table lock
//! (PTL) and the folio's map count for it: the write fault that dirties it
//! (`finish_mkwrite_fault`), the unmap-time dirtier `zap_pte_range` (mm/memory.c) and writeback's
//! `folio_mkclean` (mm/rmap.c), 6.12.
//!
//! The PTE is one atomic word (present, dirty) so that a walk can read it without the PTL, as
//! `page_vma_mapped_walk` does for walks without `PVMW_SYNC`. `page_mkclean_one` walks with
//! `PVMW_SYNC` (since 479db0bf408e, "mm: dirty page tracking race fix", 2.6.25, then
//! `page_check_address(.., sync = 1)`): it always takes the PTL, so it cannot miss a PTE that
//! `zap_pte_range` has cleared but whose dirty bit it has not yet passed to `folio_mark_dirty`.
//! The map count (`folio->_mapcount` for this mapping) is what `folio_mapped()` reads before any
//! walk; `zap_pte_range` drops it (`folio_remove_rmap_ptes`) after `folio_mark_dirty`, still
//! under the PTL.

use crate::ctx::Ctx;
use crate::spinlock::SpinLock;
use crate::sync::{Ordering, Platform, Traced};
use crate::trace::Name;

const PRESENT: usize = 1;
const DIRTY: usize = 2;

/// The state of a PTE when a model starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PteState {
    /// Not mapped.
    None,
    /// Mapped, clean (write-protected since the last `folio_mkclean`).
    Clean,
    /// Mapped, dirty (the user stored through it after a write fault).
    Dirty,
}

impl PteState {
    pub fn name(self) -> &'static str {
        match self {
            PteState::None => "unmapped",
            PteState::Clean => "pte clean",
            PteState::Dirty => "pte dirty",
        }
    }
}

pub struct Pte<P: Platform> {
    word: Traced<P, P::AtomicUsize>,
    mapcount: Traced<P, P::AtomicUsize>,
    ptl: SpinLock<P, ()>,
}

impl<P: Platform> Pte<P> {
    pub fn with_state(state: PteState) -> Self {
        let word = match state {
            PteState::None => 0,
            PteState::Clean => PRESENT,
            PteState::Dirty => PRESENT | DIRTY,
        };
        Pte {
            word: Traced::new(word, Name::int("pte", 0)),
            mapcount: Traced::new(usize::from(state != PteState::None), Name::int("pte.mapcount", 0)),
            ptl: SpinLock::new(()),
        }
    }

    /// A present PTE, dirty if the user stored through it (after `->page_mkwrite` made it
    /// writable: `iomap_page_mkwrite` has then marked every block of the folio dirty).
    pub fn new(dirty: bool) -> Self {
        Pte::with_state(if dirty { PteState::Dirty } else { PteState::Clean })
    }

    /// Put the PTE in `state` (a model's setup, before any thread runs).
    pub fn set_state(&self, state: PteState) {
        let fresh = Pte::<P>::with_state(state);
        self.word.store(fresh.word.load(Ordering::Relaxed), Ordering::Relaxed);
        self.mapcount.store(fresh.mapcount.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// The PTE now (quiescence checks).
    pub fn state(&self) -> PteState {
        match self.word.load(Ordering::Relaxed) {
            0 => PteState::None,
            w if w & DIRTY != 0 => PteState::Dirty,
            _ => PteState::Clean,
        }
    }
}

/// `finish_mkwrite_fault()` / `finish_fault()` for a write fault on a shared file mapping
/// (after `->page_mkwrite` locked the folio): under the PTL, map the folio if it was not
/// (`folio_add_file_rmap_pte`) and make the PTE writable and dirty.
pub fn pte_mkwrite_dirty<P: Platform>(ctx: &Ctx<P>, pte: &Pte<P>) {
    let _ptl = pte.ptl.lock();
    let old = pte.word.swap(PRESENT | DIRTY, Ordering::Relaxed);
    if old & PRESENT == 0 {
        pte.mapcount.fetch_add(1, Ordering::Relaxed);
    }
    ctx.event(
        "finish_mkwrite_fault",
        "under the PTL: PTE present {} -> 1, writable and dirty",
        &[(old & PRESENT) as i64],
    );
}

/// `remove_migration_ptes()`: the PTE a migration took down (`try_to_migrate`, whose dirty bit
/// went to the folio like [`zap_pte_range`]'s) comes back mapping `pte`'s folio, dirty if the
/// entry was dirty and the folio still is.
pub fn remove_migration_pte<P: Platform>(ctx: &Ctx<P>, pte: &Pte<P>, was: PteState, folio_dirty: bool) {
    if was == PteState::None {
        return;
    }
    let _ptl = pte.ptl.lock();
    let dirty = was == PteState::Dirty && folio_dirty;
    pte.word.store(PRESENT | if dirty { DIRTY } else { 0 }, Ordering::Relaxed);
    pte.mapcount.fetch_add(1, Ordering::Relaxed);
    ctx.event("remove_migration_ptes", "PTE restored: dirty {}", &[dirty as i64]);
}

/// `zap_pte_range()` for this PTE (munmap, exit, truncation's `unmap_mapping_folio`): under the
/// PTL, `ptep_get_and_clear_full`, then if the old PTE was dirty `folio_mark_dirty`
/// (`mark_dirty`), then `folio_remove_rmap_ptes`, still under the PTL. The folio lock is not
/// taken (truncation holds it; munmap does not).
pub fn zap_pte_range<P: Platform, R>(ctx: &Ctx<P>, pte: &Pte<P>, mark_dirty: impl FnOnce() -> R) -> Option<R> {
    let _ptl = pte.ptl.lock();
    let old = pte.word.swap(0, Ordering::Relaxed);
    ctx.event(
        "zap_pte_range",
        "ptep_get_and_clear_full: present {} dirty {}",
        &[(old & PRESENT) as i64, (old & DIRTY != 0) as i64],
    );
    let r = (old & DIRTY != 0).then(mark_dirty);
    if old & PRESENT != 0 {
        pte.mapcount.fetch_sub(1, Ordering::Relaxed);
    }
    r
}

/// `folio_mkclean()` -> `page_mkclean_one()` for this PTE: if `folio_mapped()` (a lockless read
/// of the map count), write-protect and clean it, returning whether it was dirty. `sync` is
/// `PVMW_SYNC` (the kernel): the PTL is taken before the PTE is read. Without it (the mutant of
/// the race 479db0bf408e fixed) a PTE read as not present is skipped without the lock.
pub fn folio_mkclean<P: Platform>(ctx: &Ctx<P>, pte: &Pte<P>, sync: bool) -> bool {
    if pte.mapcount.load(Ordering::Relaxed) == 0 {
        return false;
    }
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
