//! `struct folio`: the flags word (head page) and the size in pages.
//!
//! PG_dirty, PG_dropbehind, PG_locked and PG_writeback live in one word, operated on with the
//! bitops of [`crate::bitops`] as the kernel's page-flags.h accessors do. Bit numbers are the
//! model's own; only their being one word matters.

use crate::bitops::BitWord;
use crate::sync::Platform;

pub const PG_LOCKED: u32 = 0;
pub const PG_DIRTY: u32 = 1;
pub const PG_WRITEBACK: u32 = 2;
/// PG_dropbehind (6.14, a323281cdfec): the folio came from an RWF_DONTCACHE write.
pub const PG_DROPBEHIND: u32 = 3;

pub struct Folio<P: Platform> {
    pub flags: BitWord<P>,
    /// Page-cache index of the first page.
    pub index: u64,
    nr_pages: u32,
}

impl<P: Platform> Folio<P> {
    /// A folio as `__filemap_get_folio_mpol(FGP_CREAT)` allocates it: clean, and with
    /// PG_dropbehind set by the non-atomic `__folio_set_dropbehind` when FGP_DONTCACHE was
    /// passed (safe: the folio is not visible yet).
    pub fn new(index: u64, nr_pages: u32, dropbehind: bool) -> Self {
        let flags = if dropbehind { 1 << PG_DROPBEHIND } else { 0 };
        Folio {
            flags: BitWord::new(flags),
            index,
            nr_pages,
        }
    }

    /// `folio_nr_pages()`.
    pub fn nr_pages(&self) -> i64 {
        i64::from(self.nr_pages)
    }

    /// `folio_test_dropbehind()`: a plain `test_bit`.
    pub fn test_dropbehind(&self) -> bool {
        self.flags.test_bit(PG_DROPBEHIND)
    }
}
