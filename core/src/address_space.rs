//! One file's page cache (`struct address_space`) on an iomap filesystem, driven sequentially
//! by `folio-dirty-accounting`: folios of mixed orders with per-block dirty state, buffered
//! writes (`iomap_write_iter`), dirty throttling (`balance_dirty_pages`, reduced to a throttle
//! event and the background writeback the throttled writer waits for) and writeback
//! (`writeback_iter` from the cyclic `writeback_index`).

use crate::ctx::Ctx;
use crate::fadvise::Geometry;
use crate::iomap::{iomap_write_end, write_folio, Charging, DirtyCharge, DirtyStats, IomapFolio};
use crate::revision::FolioPolicy;
use crate::sync::{Ordering, Platform};
use std::collections::BTreeMap;

/// Dirty limits in pages: above `thresh` a writer is throttled (one throttle event) and waits
/// for background writeback down to `bg_thresh`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirtyLimits {
    pub thresh: i64,
    pub bg_thresh: i64,
}

pub struct AddressSpace<P: Platform> {
    folios: BTreeMap<u64, IomapFolio<P>>,
    pub stats: DirtyStats<P>,
    pub charge: DirtyCharge,
    max_order: u32,
    file_pages: u64,
    limits: DirtyLimits,
    /// `mapping->writeback_index`: where cyclic writeback resumes.
    writeback_index: u64,
    pub throttle_events: u64,
}

impl<P: Platform> AddressSpace<P> {
    /// The file after `policy`'s read phase (and its POSIX_FADV_DONTNEED, if any).
    pub fn after_read(policy: FolioPolicy, g: &Geometry, limits: DirtyLimits) -> Self {
        let mut a = AddressSpace {
            folios: BTreeMap::new(),
            stats: DirtyStats::default(),
            charge: policy.charge(),
            max_order: policy.max_order(g),
            file_pages: g.file_pages,
            limits,
            writeback_index: 0,
            throttle_events: 0,
        };
        if !policy.drops_after_read() {
            for (index, order) in policy.read_phase(g).folios {
                a.folios.insert(index, IomapFolio::new(index, 1 << order, false));
            }
        }
        a
    }

    /// Number of folios cached, and the largest folio's pages.
    pub fn folio_count(&self) -> usize {
        self.folios.len()
    }

    pub fn largest_folio_pages(&self) -> i64 {
        self.folios.values().map(|f| f.nr_pages()).max().unwrap_or(0)
    }

    /// Pages holding dirty blocks, over the whole file.
    pub fn dirty_block_pages(&self) -> i64 {
        self.folios.values().map(|f| f.dirty_blocks()).sum()
    }

    fn folio_at(&self, page: u64) -> Option<u64> {
        let (&start, f) = self.folios.range(..=page).next_back()?;
        (page < start + f.nr_pages() as u64).then_some(start)
    }

    /// `__filemap_get_folio(FGP_CREAT)` with iomap's `fgf_set_order(len)`: a folio sized to the
    /// remaining write length (capped by the mapping's order), lowered to the index's alignment
    /// and until it overlaps no cached folio and ends inside the file.
    fn create_folio(&mut self, page: u64, remaining: u64) -> u64 {
        let mut order = remaining.ilog2().min(self.max_order);
        if page != 0 {
            order = order.min(page.trailing_zeros());
        }
        let overlaps = |a: &Self, o: u32| (page..page + (1 << o)).any(|p| a.folio_at(p).is_some());
        while order > 0 && (page + (1 << order) > self.file_pages || overlaps(self, order)) {
            order -= 1;
        }
        self.folios.insert(page, IomapFolio::new(page, 1 << order, false));
        page
    }

    /// `iomap_file_buffered_write()` of `pages` pages at page `page` (`iomap_write_iter`: per
    /// folio, `__iomap_write_begin` takes the folio locked, `__iomap_write_end` dirties and
    /// charges), then `balance_dirty_pages_ratelimited`.
    pub fn buffered_write(&mut self, ctx: &Ctx<P>, page: u64, pages: u64) {
        let (mut pos, end) = (page, (page + pages).min(self.file_pages));
        while pos < end {
            let start = match self.folio_at(pos) {
                Some(s) => s,
                None => self.create_folio(pos, end - pos),
            };
            let f = &self.folios[&start];
            let nr = (end - pos).min(start + f.nr_pages() as u64 - pos);
            let _lock = f.folio.lock();
            iomap_write_end(ctx, &self.stats, f, (pos - start) as u32, nr as u32, Charging::node_only(self.charge));
            pos += nr;
        }
        self.balance_dirty_pages(ctx);
    }

    /// `balance_dirty_pages()`, reduced: charged dirty pages above the threshold is a throttle
    /// event; the writer waits while background writeback brings them down to `bg_thresh`.
    fn balance_dirty_pages(&mut self, ctx: &Ctx<P>) {
        if self.stats.nr_file_dirty.load(Ordering::Relaxed) <= self.limits.thresh {
            return;
        }
        self.throttle_events += 1;
        ctx.event("balance_dirty_pages", "NR_FILE_DIRTY above the threshold {}: throttled", &[self.limits.thresh]);
        self.writeback(ctx, self.limits.bg_thresh);
    }

    /// Cyclic writeback from `writeback_index` (`writeback_iter`, `WB_SYNC_NONE`) until the
    /// charged dirty pages are at most `goal` or every folio was visited; `goal` < 0 writes
    /// everything dirty (sync). The file has no mappings here: `folio_mkclean` finds nothing.
    pub fn writeback(&mut self, ctx: &Ctx<P>, goal: i64) {
        let order: Vec<u64> = self
            .folios
            .range(self.writeback_index..)
            .chain(self.folios.range(..self.writeback_index))
            .map(|(&i, _)| i)
            .collect();
        for index in order {
            if goal >= 0 && self.stats.nr_file_dirty.load(Ordering::Relaxed) <= goal {
                break;
            }
            let f = &self.folios[&index];
            if f.folio.test_dirty() {
                write_folio(ctx, &self.stats, f, Charging::node_only(self.charge), || false);
                self.writeback_index = index + f.nr_pages() as u64;
            }
        }
    }
}
