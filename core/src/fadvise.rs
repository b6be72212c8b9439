//! The folio-size policies of `folio-dirty-accounting` (seed 003): the kernel as is, the series,
//! and the three `fadvise` alternatives Dave Chinner proposes in his review.
//!
//! The FADV policies' folio sizes are **his description taken as model input**, not modelled
//! kernel code: POSIX_FADV_RANDOM "will cap the size of folios in the cache to whatever the
//! postgresql read() IO size is" (the app's read size, one I/O per read, no readahead); the
//! proposed FADV_RANDOM_WRITE "allows full readahead but caps page cache folio size to, say,
//! 64kB" (readahead as usual, folio order capped at 64 KiB for reads and writes); and
//! POSIX_FADV_DONTNEED "between" the read and the write phases drops the clean folios the read
//! left, so the writes create their own (iomap sizes a new folio to the write length).

use crate::iomap::DirtyCharge;
use crate::readahead::sequential_readahead;
use crate::revision::FolioPolicy;

/// The file and readahead geometry (pages of 4 KiB = blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub file_pages: u64,
    /// The application's read() size in pages (PostgreSQL: 8 KiB = 2).
    pub read_pages: u64,
    pub ra_init_pages: u64,
    pub ra_max_pages: u64,
    /// `mapping_max_folio_order()`.
    pub max_order: u32,
}

/// The page cache after the read phase, and what the read phase cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadPhase {
    /// `(first page index, order)` of each cached folio.
    pub folios: Vec<(u64, u32)>,
    /// Read I/Os issued (readahead windows, or one per read() without readahead).
    pub ios: u64,
}

/// FADV_RANDOM_WRITE's folio cap: 64 KiB = order 4 (Chinner's "say, 64kB").
pub const RANDOM_WRITE_CAP_ORDER: u32 = 4;

impl FolioPolicy {
    /// Only the series changes the charge; the FADV policies need no kernel change.
    pub fn charge(self) -> DirtyCharge {
        match self {
            FolioPolicy::PerPage => DirtyCharge::PerPage,
            FolioPolicy::PerFolio
            | FolioPolicy::FadvRandom
            | FolioPolicy::FadvRandomWrite64k
            | FolioPolicy::FadvDontneed => DirtyCharge::PerFolio,
        }
    }

    /// The largest folio order the page cache uses for this file.
    pub fn max_order(self, g: &Geometry) -> u32 {
        match self {
            FolioPolicy::FadvRandom => g.read_pages.ilog2(),
            FolioPolicy::FadvRandomWrite64k => g.max_order.min(RANDOM_WRITE_CAP_ORDER),
            FolioPolicy::PerFolio | FolioPolicy::PerPage | FolioPolicy::FadvDontneed => g.max_order,
        }
    }

    /// The sequential read phase over the whole file.
    pub fn read_phase(self, g: &Geometry) -> ReadPhase {
        if self == FolioPolicy::FadvRandom {
            let order = g.read_pages.ilog2();
            let folios = (0..g.file_pages).step_by(g.read_pages as usize).map(|i| (i, order)).collect();
            return ReadPhase { folios, ios: g.file_pages.div_ceil(g.read_pages) };
        }
        let (folios, ios) = sequential_readahead(g.file_pages, g.ra_init_pages, g.ra_max_pages, self.max_order(g));
        ReadPhase { folios, ios }
    }

    /// POSIX_FADV_DONTNEED between the phases: drop the clean folios.
    pub fn drops_after_read(self) -> bool {
        self == FolioPolicy::FadvDontneed
    }
}
