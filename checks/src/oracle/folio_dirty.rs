//! Reference models of seed 003's accounting, independent of wb-core: a file as an array of
//! pages, each naming its folio's first page, with per-page dirty bits and a per-folio dirty
//! flag; and the one-folio charge/discharge ledger of `per-block-charge` with every call atomic.

use std::collections::BTreeMap;

/// The policies, as the reference knows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefPolicy {
    PerFolio,
    PerPage,
    FadvRandom,
    FadvRandomWrite64k,
    FadvDontneed,
}

impl RefPolicy {
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "per-folio" => RefPolicy::PerFolio,
            "per-page" => RefPolicy::PerPage,
            "fadv-random" => RefPolicy::FadvRandom,
            "fadv-random-write-64k" => RefPolicy::FadvRandomWrite64k,
            "fadv-dontneed" => RefPolicy::FadvDontneed,
            _ => return None,
        })
    }
}

/// The checkers' file: 64 pages, 8 KiB reads, readahead windows 4, 16, 32, 32 ... pages with the
/// folio order stepping 0, 2, 4, then 5 (capped by the 32-page window), 64 KiB cap = 16 pages.
pub struct RefFile {
    /// First page of the folio holding each page (`None`: not cached).
    folio_of: Vec<Option<usize>>,
    folio_pages: BTreeMap<usize, usize>,
    folio_dirty: BTreeMap<usize, bool>,
    page_dirty: Vec<bool>,
    per_page: bool,
    max_pages: usize,
    pub nr_file_dirty: i64,
    pub dirtied: i64,
    pub written: i64,
}

impl RefFile {
    pub fn new(policy: RefPolicy, file_pages: usize) -> Self {
        let max_pages = match policy {
            RefPolicy::FadvRandom => 2,
            RefPolicy::FadvRandomWrite64k => 16,
            _ => 32,
        };
        let mut f = RefFile {
            folio_of: vec![None; file_pages],
            folio_pages: BTreeMap::new(),
            folio_dirty: BTreeMap::new(),
            page_dirty: vec![false; file_pages],
            per_page: policy == RefPolicy::PerPage,
            max_pages,
            nr_file_dirty: 0,
            dirtied: 0,
            written: 0,
        };
        match policy {
            RefPolicy::FadvDontneed => return f,
            RefPolicy::FadvRandom => {
                (0..file_pages).step_by(2).for_each(|p| f.add_folio(p, 2));
                return f;
            }
            _ => {}
        }
        // Readahead: window sizes and folio sizes per round, pages.
        let (mut start, mut window, mut size) = (0usize, 4usize, 1usize);
        while start < file_pages {
            let end = (start + window).min(file_pages);
            let mut p = start;
            while p < end {
                let mut s = size;
                while p % s != 0 || p + s > end {
                    s /= 2;
                }
                f.add_folio(p, s);
                p += s;
            }
            start = end;
            window = if window < 2 { window * 4 } else { (window * 2).min(32) };
            size = (size * 4).min(max_pages).min(window);
        }
        f
    }

    fn add_folio(&mut self, first: usize, pages: usize) {
        (first..first + pages).for_each(|p| self.folio_of[p] = Some(first));
        self.folio_pages.insert(first, pages);
        self.folio_dirty.insert(first, false);
    }

    pub fn largest_folio(&self) -> usize {
        self.max_pages
    }

    /// A buffered write of `pages` pages at `page`.
    pub fn write(&mut self, page: usize, pages: usize) {
        let end = (page + pages).min(self.folio_of.len());
        for p in page..end {
            if self.folio_of[p].is_none() {
                // A new folio sized to what is left of the write, aligned, not overlapping.
                let mut s = (end - p).next_power_of_two();
                if s > end - p {
                    s /= 2;
                }
                s = s.min(self.max_pages);
                while p % s != 0 || (p..p + s).any(|q| q >= self.folio_of.len() || self.folio_of[q].is_some()) {
                    s /= 2;
                }
                self.add_folio(p, s);
            }
            let first = self.folio_of[p].expect("cached");
            if !self.page_dirty[p] && self.per_page {
                self.charge(1);
            }
            self.page_dirty[p] = true;
            if !self.folio_dirty[&first] {
                self.folio_dirty.insert(first, true);
                if !self.per_page {
                    let n = self.folio_pages[&first] as i64;
                    self.charge(n);
                }
            }
        }
    }

    fn charge(&mut self, n: i64) {
        self.nr_file_dirty += n;
        self.dirtied += n;
    }

    /// Write back every dirty folio.
    pub fn sync(&mut self) {
        let dirty: Vec<usize> = self.folio_dirty.iter().filter(|(_, d)| **d).map(|(f, _)| *f).collect();
        for first in dirty {
            let pages = self.folio_pages[&first];
            let blocks = (first..first + pages).filter(|&p| self.page_dirty[p]).count() as i64;
            self.nr_file_dirty -= if self.per_page { blocks } else { pages as i64 };
            self.written += blocks;
            (first..first + pages).for_each(|p| self.page_dirty[p] = false);
            self.folio_dirty.insert(first, false);
        }
    }

    pub fn dirty_pages(&self) -> i64 {
        self.page_dirty.iter().filter(|d| **d).count() as i64
    }
}

/// `per-block-charge` with atomic calls: the folio's PTE, PG_dirty, dirty bits (4 blocks), and
/// the pages charged and discharged per dirty cycle.
#[derive(Debug, Clone, Default)]
pub struct RefBlock {
    pub pte_dirty: bool,
    pub dirty: bool,
    pub bits: [bool; 4],
    pub cycle: usize,
    pub per_page: bool,
    pub discharge_folio: bool,
    pub ledger: BTreeMap<usize, (i64, i64)>,
}

impl RefBlock {
    fn mark(&mut self, blocks: &[usize]) {
        let newly = blocks.iter().filter(|&&b| !self.bits[b]).count() as i64;
        blocks.iter().for_each(|&b| self.bits[b] = true);
        let charge = if self.per_page {
            newly
        } else if self.dirty {
            0
        } else {
            4
        };
        self.dirty = true;
        self.ledger.entry(self.cycle).or_default().0 += charge;
    }

    /// `iomap_page_mkwrite` (setup) and the unmap dirtier's `iomap_dirty_folio`: every block.
    pub fn mark_all(&mut self) {
        self.mark(&[0, 1, 2, 3]);
    }

    /// The buffered writer: block 1.
    pub fn write_block1(&mut self) {
        self.mark(&[1]);
    }

    /// `zap_pte_range`: a dirty PTE dirties the folio.
    pub fn zap(&mut self) {
        if std::mem::take(&mut self.pte_dirty) {
            self.mark_all();
        }
    }

    /// One folio's writeback: `folio_mkclean` (a dirty PTE is cleaned and dirties the folio: on
    /// the ledger the same as the zap's), clear, discharge, write.
    pub fn writeback(&mut self) {
        self.zap();
        if !std::mem::take(&mut self.dirty) {
            return;
        }
        let n =
            if self.per_page && !self.discharge_folio { self.bits.iter().filter(|b| **b).count() as i64 } else { 4 };
        self.ledger.entry(self.cycle).or_default().1 += n;
        self.cycle += 1;
        self.bits = [false; 4];
    }

    pub fn mismatched(&self) -> Vec<(usize, i64, i64)> {
        self.ledger.iter().filter(|(_, (c, d))| c != d).map(|(k, (c, d))| (*k, *c, *d)).collect()
    }
}
