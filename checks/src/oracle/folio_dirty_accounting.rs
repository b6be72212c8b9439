//! Reference model of `folio-dirty-accounting`, independent of wb-core: a file as an array of
//! pages, each naming its folio's first page, with per-page dirty bits and a per-folio dirty
//! flag; and its oracle.

use super::{Oracle, Program, ONE_CPU};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use wb_core::address_space::AddressSpace;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::revision::FolioPolicy;
use wb_core::sync::Std;
use wb_core::trace::{Step, Trace};
use wb_models::bounds::Tier;
use wb_models::folio_dirty_accounting::{check, workloads, Measured, GEOMETRY, LIMITS};

pub use wb_models::folio_dirty_accounting::NAME;

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
    pub fn of(policy: FolioPolicy) -> Self {
        match policy {
            FolioPolicy::PerFolio => RefPolicy::PerFolio,
            FolioPolicy::PerPage => RefPolicy::PerPage,
            FolioPolicy::FadvRandom => RefPolicy::FadvRandom,
            FolioPolicy::FadvRandomWrite64k => RefPolicy::FadvRandomWrite64k,
            FolioPolicy::FadvDontneed => RefPolicy::FadvDontneed,
        }
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
            RefPolicy::PerFolio | RefPolicy::PerPage | RefPolicy::FadvDontneed => 32,
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
            RefPolicy::PerFolio | RefPolicy::PerPage | RefPolicy::FadvRandomWrite64k => {}
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

/// A call of the folio-dirty oracle: pgbench's write of `.1` pages at page `.0`, the flusher's
/// pass, and (after every interleaving) the measurement at quiescence and the final sync.
#[derive(Debug, Clone, Copy)]
pub enum FolioOp {
    Write(u64, u64),
    Sync,
    Quiesce,
}

/// The oracle of `folio-dirty-accounting`: every workload, with the flusher's pass before,
/// between or after the writes, on the reference file and on wb-core's address space.
pub struct FolioDirtyOracle;

/// The reference file and what it measured at quiescence.
pub struct FolioRef {
    file: RefFile,
    quiescent: (i64, i64),
}

pub struct FolioCore {
    ctx: Ctx<Std>,
    file: AddressSpace<Std>,
}

impl Oracle for FolioDirtyOracle {
    type Revision = FolioPolicy;
    type Op = FolioOp;
    type Setup = ();
    type Reference = FolioRef;
    type Core = FolioCore;

    fn programs(&self, _: Tier) -> Vec<Program<FolioOp, ()>> {
        workloads()
            .into_iter()
            .map(|w| Program {
                configuration: format!("writes {w:?}"),
                placement: ONE_CPU.into(),
                threads: vec![
                    w.iter().map(|&(page, pages)| FolioOp::Write(page, pages)).collect(),
                    vec![FolioOp::Sync],
                ],
                epilogue: vec![FolioOp::Quiesce],
                setup: (),
            })
            .collect()
    }

    fn bounds(&self, _: Tier) -> Vec<(String, u64)> {
        vec![("file_pages".into(), GEOMETRY.file_pages)]
    }

    fn reference(&self, policy: FolioPolicy, _: &()) -> FolioRef {
        FolioRef { file: RefFile::new(RefPolicy::of(policy), GEOMETRY.file_pages as usize), quiescent: (0, 0) }
    }

    fn core(&self, policy: FolioPolicy, _: &()) -> FolioCore {
        FolioCore {
            ctx: Ctx::new(Arc::new(Trace::disabled()), "core", CpuPlan::Fixed(0)),
            file: AddressSpace::after_read(policy, &GEOMETRY, LIMITS),
        }
    }

    fn apply_reference(&self, r: &mut FolioRef, _: &(), _: usize, op: FolioOp) -> Step {
        let (thread, function, what) = match op {
            FolioOp::Write(page, pages) => {
                r.file.write(page as usize, pages as usize);
                ("pgbench", "iomap_file_buffered_write", format!("pages {page}+{pages}"))
            }
            FolioOp::Sync => {
                r.file.sync();
                ("flusher", "writeback_iter", "a pass".into())
            }
            FolioOp::Quiesce => {
                r.quiescent = (r.file.nr_file_dirty, r.file.dirty_pages());
                r.file.sync();
                (
                    "sync",
                    "writeback_iter",
                    format!("at quiescence NR_FILE_DIRTY {}, then the final sync", r.quiescent.0),
                )
            }
        };
        Step::new(thread, function, format!("{what}: NR_FILE_DIRTY {}", r.file.nr_file_dirty))
    }

    fn apply_core(&self, c: &mut FolioCore, _: usize, op: FolioOp) {
        match op {
            FolioOp::Write(page, pages) => c.file.buffered_write(&c.ctx, page, pages),
            FolioOp::Sync | FolioOp::Quiesce => c.file.writeback(&c.ctx, -1),
        }
    }

    fn diverges(&self, r: &FolioRef, c: &FolioCore) -> Option<String> {
        let st = &c.file.stats;
        let core = (
            st.nr_file_dirty.load(Relaxed),
            st.nr_dirtied.load(Relaxed),
            st.written.load(Relaxed),
            c.file.dirty_block_pages(),
        );
        let reference = (r.file.nr_file_dirty, r.file.dirtied, r.file.written, r.file.dirty_pages());
        (core != reference).then(|| {
            format!("wb-core's (NR_FILE_DIRTY, NR_DIRTIED, written, dirty pages) {core:?} differ from the reference's {reference:?}")
        })
    }

    fn violated(&self, r: &FolioRef, _: &()) -> Vec<(&'static str, String)> {
        let m = Measured {
            quiescent_charged: r.quiescent.0,
            quiescent_dirty_blocks: r.quiescent.1,
            charged: r.file.dirtied,
            written: r.file.written,
            folio_pages: r.file.largest_folio() as i64,
        };
        check(&m).into_iter().map(|v| (v.property, v.message)).collect()
    }
}
