//! `struct folio`: the flags word (head page), its page-cache marks, its lock and its size.
//!
//! PG_dirty and PG_dropbehind live in one word, operated on with the
//! bitops of [`crate::bitops`] as the kernel's page-flags.h accessors do. Bit numbers are the
//! model's own; only their being one word matters. The folio lock (PG_locked, a sleeping bit lock)
//! is modelled as a lock object of its own.

use crate::bitops::BitWord;
use crate::pte::{Pte, PteState};
use crate::spinlock::{SpinGuard, SpinLock};
use crate::sync::{Ordering, Platform, Traced};
use crate::trace::Name;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering as Ghost};

pub const PG_LOCKED: u32 = 0;
pub const PG_DIRTY: u32 = 1;
/// PG_dropbehind (6.14, a323281cdfec): the folio came from an RWF_DONTCACHE write.
pub const PG_DROPBEHIND: u32 = 3;
/// Not a kernel flag: our fix `v7-fix-counted-bit` proposes one. Set while the folio's pages are
/// counted in WB_DONTCACHE_DIRTY; every update of the counter flips it in the same RMW.
pub const PG_DONTCACHE_COUNTED: u32 = 4;

/// Xarray marks of the folio's page-cache entry (changed under the i_pages lock).
pub const PAGECACHE_TAG_DIRTY: u32 = 0;
/// Not a mark: the folio is in the page cache (`folio->mapping` is set). Changed under the
/// i_pages lock (insertion, `page_cache_delete`, split).
pub const IN_PAGE_CACHE: u32 = 2;
/// The names of the flags and marks, for traced accesses.
const PG_BITS: &[(u32, &str)] = &[
    (PG_LOCKED, "PG_locked"),
    (PG_DIRTY, "PG_dirty"),
    (PG_DROPBEHIND, "PG_dropbehind"),
    (PG_DONTCACHE_COUNTED, "PG_dontcache_counted"),
];
const MARK_BITS: &[(u32, &str)] = &[(PAGECACHE_TAG_DIRTY, "PAGECACHE_TAG_DIRTY"), (IN_PAGE_CACHE, "in_page_cache")];

/// A folio's flags word and marks, named after its index.
fn flag_words<P: Platform>(index: u64, flags: usize, marks: usize) -> (BitWord<P>, BitWord<P>) {
    let index = index as i64;
    (
        BitWord::new(flags, Name { what: "folio{}.flags", index, bits: PG_BITS }),
        BitWord::new(marks, Name { what: "folio{}.marks", index, bits: MARK_BITS }),
    )
}

pub struct Folio<P: Platform> {
    pub flags: BitWord<P>,
    /// The entry's xarray marks (`PAGECACHE_TAG_*`).
    pub marks: BitWord<P>,
    lock: SpinLock<P, ()>,
    /// Page-cache index of the first page.
    pub index: u64,
    nr_pages: u32,
    /// The folio's PTE in the file's one shared mapping, if the model maps the file (a model that
    /// does not leaves it out: fewer objects for the checkers to track).
    pub pte: Option<Pte<P>>,
    /// References beyond the page cache's own (`folio_try_get` by lookups), or [`FROZEN`] while
    /// migration has frozen the count (`folio_ref_freeze`); tracked only where a model migrates
    /// folios (nothing else reads the count).
    refs: Option<Traced<P, P::AtomicUsize>>,
    /// The dirty half of `folio->private`'s `struct iomap_folio_state` (one bit a block, block =
    /// page), under its `state_lock`: present for a folio of an iomap mapping with more than one
    /// block ([`crate::iomap`]).
    pub ifs: Option<SpinLock<P, Vec<u64>>>,
    /// Ghost, not kernel state: the pages of this folio counted out of WB_DONTCACHE_DIRTY so far
    /// ([`crate::page_writeback::dontcache_count_out`]), so a property can tell whose pages the
    /// flusher counted out (dontcache-kick's `lost-wakeup` speaks only for kicked ones).
    counted_out: AtomicI64,
    /// Ghost: the pages of this folio counted into WB_DONTCACHE_DIRTY so far, and the consumes its
    /// wb had made ([`crate::wb::Wb::consumes`]) when they were last counted in, so a property can
    /// tell whether its pages are still counted and which consumes came after the count.
    counted_in: AtomicI64,
    counted_in_after: AtomicU64,
}

/// `folio_ref_freeze`'s zero count, as the model's reference word.
const FROZEN: usize = usize::MAX;

impl<P: Platform> Folio<P> {
    /// A folio as `__filemap_get_folio_mpol(FGP_CREAT)` allocates it: clean, and with
    /// PG_dropbehind set by the non-atomic `__folio_set_dropbehind` when FGP_DONTCACHE was
    /// passed (safe: the folio is not visible yet).
    pub fn new(index: u64, nr_pages: u32, dropbehind: bool) -> Self {
        Self::with_words(index, nr_pages, if dropbehind { 1 << PG_DROPBEHIND } else { 0 }, 1 << IN_PAGE_CACHE)
    }

    /// An unmapped folio with these flags and marks and nothing else attached.
    fn with_words(index: u64, nr_pages: u32, flags: usize, marks: usize) -> Self {
        let (flags, marks) = flag_words(index, flags, marks);
        let lock = SpinLock::new(());
        Folio {
            flags,
            marks,
            lock,
            index,
            nr_pages,
            pte: None,
            refs: None,
            ifs: None,
            counted_out: AtomicI64::new(0),
            counted_in: AtomicI64::new(0),
            counted_in_after: AtomicU64::new(0),
        }
    }

    /// The same folio in a file that is mmapped: its PTE exists, in `state` (a clean folio has no
    /// dirty PTE: a write fault dirties the folio when it dirties the PTE, and writeback cleans
    /// the PTE first); and its references are counted, for migration.
    pub fn mapped(self, state: PteState) -> Self {
        let refs = Traced::new(0, Name::int("folio{}.refcount", self.index as i64));
        Folio { pte: Some(Pte::with_state(state)), refs: Some(refs), ..self }
    }

    /// The same folio with its `iomap_folio_state` attached (`ifs_alloc` from the read path), no
    /// block dirty.
    pub fn with_ifs(self) -> Self {
        let words = (self.nr_pages as usize).div_ceil(64);
        Folio { ifs: Some(SpinLock::new(vec![0; words])), ..self }
    }

    /// A folio not (yet) in the page cache: the new folios a split will create.
    pub fn detached(index: u64, nr_pages: u32) -> Self {
        Self::with_words(index, nr_pages, 0, 0)
    }

    /// `folio->mapping != NULL`: in the page cache.
    pub fn in_page_cache(&self) -> bool {
        self.marks.test_bit(IN_PAGE_CACHE)
    }

    /// Ghost: the pages of this folio counted out of WB_DONTCACHE_DIRTY so far.
    pub fn dontcache_counted_out(&self) -> i64 {
        self.counted_out.load(Ghost::Relaxed)
    }

    /// Ghost: record a count-out of `nr` pages ([`crate::page_writeback::dontcache_count_out`]).
    pub(crate) fn note_counted_out(&self, nr: i64) {
        self.counted_out.fetch_add(nr, Ghost::Relaxed);
    }

    /// Ghost: the pages of this folio counted into WB_DONTCACHE_DIRTY so far.
    pub fn dontcache_counted_in(&self) -> i64 {
        self.counted_in.load(Ghost::Relaxed)
    }

    /// Ghost: how many consumes its wb had made when its pages were last counted in.
    pub fn dontcache_counted_in_after(&self) -> u64 {
        self.counted_in_after.load(Ghost::Relaxed)
    }

    /// Ghost: record a count-in of `nr` pages on a wb that had made `consumes` consumes
    /// ([`crate::page_writeback::dontcache_count_in`]).
    pub(crate) fn note_counted_in(&self, nr: i64, consumes: u64) {
        self.counted_in.fetch_add(nr, Ghost::Relaxed);
        self.counted_in_after.store(consumes, Ghost::Relaxed);
    }

    /// `folio_nr_pages()`.
    pub fn nr_pages(&self) -> i64 {
        i64::from(self.nr_pages)
    }

    /// `folio_test_dropbehind()`: a plain `test_bit`.
    pub fn test_dropbehind(&self) -> bool {
        self.flags.test_bit(PG_DROPBEHIND)
    }

    /// `folio_test_dirty()`: a plain `test_bit`.
    pub fn test_dirty(&self) -> bool {
        self.flags.test_bit(PG_DIRTY)
    }

    /// `folio_lock()`; unlocked when the guard drops (`folio_unlock()`).
    pub fn lock(&self) -> SpinGuard<'_, P, ()> {
        self.lock.lock()
    }

    /// `folio_try_get()`: take a reference unless the count is frozen (`atomic_add_unless`:
    /// fully ordered when it adds, unordered when it does not). As every value-returning kernel
    /// RMW here ([`crate::sync`]): `fence(SeqCst)`, an AcqRel compare-exchange, and `fence(SeqCst)`
    /// after a success; the leading fence runs on failure too (stronger than LKMM there).
    pub fn try_get(&self) -> bool {
        let Some(refs) = &self.refs else { return true };
        P::rmw_begin();
        let mut cur = refs.load(Ordering::Relaxed);
        loop {
            if cur == FROZEN {
                P::rmw_end(false, false);
                return false;
            }
            match refs.compare_exchange(cur, cur + 1, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => {
                    P::rmw_end(true, true);
                    return true;
                }
                Err(now) => cur = now,
            }
        }
    }

    /// `folio_put()` of a reference [`Folio::try_get`] took: `atomic_dec_and_test`, fully
    /// ordered.
    pub fn put(&self) {
        if let Some(refs) = &self.refs {
            P::fence(Ordering::SeqCst);
            refs.fetch_sub(1, Ordering::AcqRel);
            P::fence(Ordering::SeqCst);
        }
    }

    /// `folio_ref_freeze(folio, expected)`: succeeds only if nobody else holds a reference
    /// (`atomic_cmpxchg`: fully ordered on success; mapped as [`Folio::try_get`]).
    pub fn ref_freeze(&self) -> bool {
        let Some(refs) = &self.refs else { return true };
        P::rmw_begin();
        let frozen = refs.compare_exchange(0, FROZEN, Ordering::AcqRel, Ordering::Relaxed).is_ok();
        P::rmw_end(frozen, frozen);
        frozen
    }

    /// `folio_ref_unfreeze()`.
    pub fn ref_unfreeze(&self) {
        if let Some(refs) = &self.refs {
            refs.store(0, Ordering::Release);
        }
    }

    /// `folio_trylock()`.
    pub fn trylock(&self) -> Option<SpinGuard<'_, P, ()>> {
        self.lock.try_lock()
    }
}
