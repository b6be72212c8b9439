//! fs/iomap/buffered-io.c: the per-block dirty state of a large folio (the dirty half of
//! `struct iomap_folio_state`, under its `state_lock`) and the mm dirty charge and discharge
//! around it, in the 6.12 baseline (whole-folio charge) and in seed 003's series (charge per
//! dirty page, discharge through `->accounted_dirty_pages()`).
//!
//! Seed 003 is a review of the cover letter; the patches are not quoted, so the series' code here
//! is **reconstructed from the cover letter**: patch 1's `@accounted` argument to
//! `__folio_mark_dirty()` / `__filemap_dirty_folio()` (skip the generic per-folio charge) and the
//! `accounted_dirty_pages()` aop used by the discharge; patch 2's charge of the pages whose blocks
//! the call newly dirtied, counted under `state_lock`. Blocks are pages here (4 KiB blocks, 4 KiB
//! pages, the seed's case), so "pages holding dirty blocks" is the number of dirty bits.
//!
//! The counters are `NR_FILE_DIRTY` (charged dirty pages now, what `balance_dirty_pages` compares
//! with the threshold) and `NR_DIRTIED` (pages charged, cumulative: the seed's "159 TB of dirtied
//! pages"); `written` counts the pages writeback sent to the device (the seed's "6 TB").

use crate::ctx::Ctx;
use crate::folio::{Folio, PG_DIRTY};
use crate::spinlock::SpinLock;
use crate::sync::{Ordering, Platform, Traced};
use crate::trace::Name;
use std::sync::atomic::{AtomicUsize as GhostUsize, Ordering as Ghost};

/// How dirty pages are charged and discharged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirtyCharge {
    /// 6.12 baseline: `folio_account_dirtied()` charges `folio_nr_pages()` on the folio's
    /// clean-to-dirty transition; `folio_clear_dirty_for_io()` discharges `folio_nr_pages()`.
    PerFolio,
    /// Seed 003's series (reconstructed from the cover letter): iomap charges the pages whose
    /// blocks a call newly dirtied and passes `accounted` to skip the per-folio charge; the
    /// discharge uses `iomap_accounted_dirty_pages()`.
    PerPage,
    /// Mutant: the series' per-page charge with the discharge left at `folio_nr_pages()` (the
    /// `accounted_dirty_pages()` callback not wired into `folio_clear_dirty_for_io()`).
    PerPageDischargeNrPages,
}

/// The node dirty counters of one file, and the pages written.
pub struct DirtyStats<P: Platform> {
    /// `NR_FILE_DIRTY`: pages charged and not yet discharged.
    pub nr_file_dirty: Traced<P, P::AtomicI64>,
    /// `NR_DIRTIED`: pages charged, cumulative.
    pub nr_dirtied: Traced<P, P::AtomicI64>,
    /// Pages sent to the device by `iomap_writepage_map()`.
    pub written: Traced<P, P::AtomicI64>,
}

impl<P: Platform> Default for DirtyStats<P> {
    fn default() -> Self {
        DirtyStats {
            nr_file_dirty: Traced::new(0, Name::int("NR_FILE_DIRTY", 0)),
            nr_dirtied: Traced::new(0, Name::int("NR_DIRTIED", 0)),
            written: Traced::new(0, Name::int("written", 0)),
        }
    }
}

impl<P: Platform> DirtyStats<P> {
    /// `node_stat_mod_folio(NR_FILE_DIRTY, +nr)` and `NR_DIRTIED` (with `wb_stat_mod
    /// (WB_RECLAIMABLE)` and `WB_DIRTIED` left out: one wb, no cgroups).
    fn charge(&self, nr: i64) {
        if nr != 0 {
            self.nr_file_dirty.fetch_add(nr, Ordering::Relaxed);
            self.nr_dirtied.fetch_add(nr, Ordering::Relaxed);
        }
    }

    fn discharge(&self, nr: i64) {
        if nr != 0 {
            self.nr_file_dirty.fetch_sub(nr, Ordering::Relaxed);
        }
    }
}

/// A folio of a file on an iomap filesystem with block size = page size: the folio (PG_dirty,
/// its lock, index, size) and the ifs's per-block dirty bitmap under `state_lock`.
pub struct IomapFolio<P: Platform> {
    pub folio: Folio<P>,
    state: SpinLock<P, Vec<u64>>,
    /// Model-only ghost (not kernel state, invisible to the schedulers): the dirty cycles closed
    /// so far (`folio_test_clear_dirty` calls that returned true), which is the open cycle's id.
    /// Read right after the PG_dirty RMW that decides which cycle a call belongs to.
    cycle: GhostUsize,
}

/// What one dirtying call did: the pages it charged and the dirty cycle its PG_dirty RMW saw
/// open (the cycle those pages are charged to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dirtied {
    pub charged: i64,
    pub cycle: usize,
}

/// What one `folio_clear_dirty_for_io` did: `None` if PG_dirty was clear, else the cycle it
/// closed and the pages it discharged.
pub type Cleaned = Option<(usize, i64)>;

impl<P: Platform> IomapFolio<P> {
    /// A clean folio of `nr_pages` at `index`, its ifs attached (`ifs_alloc` from the read path).
    pub fn new(index: u64, nr_pages: u32) -> Self {
        IomapFolio {
            folio: Folio::new(index, nr_pages, false),
            state: SpinLock::new(vec![0; (nr_pages as usize).div_ceil(64)]),
            cycle: GhostUsize::new(0),
        }
    }

    pub fn nr_pages(&self) -> i64 {
        self.folio.nr_pages()
    }

    /// Dirty blocks now (`state_lock` taken).
    pub fn dirty_blocks(&self) -> i64 {
        self.state.lock().iter().map(|w| i64::from(w.count_ones())).sum()
    }
}

fn set_bits(bits: &mut [u64], first: u32, nr: u32) -> u32 {
    let mut newly = 0;
    for b in first..first + nr {
        let (w, m) = ((b / 64) as usize, 1u64 << (b % 64));
        newly += u32::from(bits[w] & m == 0);
        bits[w] |= m;
    }
    newly
}

/// `iomap_set_range_dirty()`: under `state_lock`, set the dirty bits of blocks
/// `first..first + nr`; returns how many were clean (the series' count of pages to charge).
pub fn iomap_set_range_dirty<P: Platform>(ctx: &Ctx<P>, f: &IomapFolio<P>, first: u32, nr: u32) -> u32 {
    let newly = set_bits(&mut f.state.lock(), first, nr);
    ctx.event(
        "iomap_set_range_dirty",
        "folio {}: blocks {}+{} dirty, {} newly",
        &[f.folio.index as i64, i64::from(first), i64::from(nr), i64::from(newly)],
    );
    newly
}

/// `__filemap_dirty_folio(mapping, folio, accounted)` (series patch 1, reconstructed; 6.12
/// `filemap_dirty_folio` when `accounted` is false): `folio_test_set_dirty`; on the clean-to-dirty
/// transition `__folio_mark_dirty` charges `folio_nr_pages` unless the caller `accounted` for the
/// pages itself. Returns the pages charged here and the cycle the RMW saw open.
fn filemap_dirty_folio<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    accounted: bool,
) -> (i64, usize) {
    let was_dirty = f.folio.flags.test_and_set_bit(PG_DIRTY);
    let cycle = f.cycle.load(Ghost::SeqCst);
    let charged = if was_dirty || accounted { 0 } else { f.nr_pages() };
    ctx.event(
        "__filemap_dirty_folio",
        "folio_test_set_dirty(folio {}) = {}; folio_account_dirtied charges {} (accounted = {})",
        &[f.folio.index as i64, was_dirty as i64, charged, accounted as i64],
    );
    stats.charge(charged);
    (charged, cycle)
}

/// The charge a dirtying call makes after setting block bits: the series charges the newly dirty
/// blocks' pages and passes `accounted`; the baseline leaves it to `__folio_mark_dirty`.
fn dirty_and_charge<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    newly: u32,
    charge: DirtyCharge,
) -> Dirtied {
    let per_page = charge != DirtyCharge::PerFolio;
    let pages = if per_page { i64::from(newly) } else { 0 };
    stats.charge(pages);
    let (folio_charge, cycle) = filemap_dirty_folio(ctx, stats, f, per_page);
    Dirtied { charged: pages + folio_charge, cycle }
}

/// `__iomap_write_end()` (folio locked by the caller, after the copy of a buffered write of
/// blocks `first..first + nr`): `iomap_set_range_dirty`, then `filemap_dirty_folio`; with the
/// series, the pages newly dirtied are charged first and `accounted` is passed.
pub fn iomap_write_end<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    first: u32,
    nr: u32,
    charge: DirtyCharge,
) -> Dirtied {
    let newly = iomap_set_range_dirty(ctx, f, first, nr);
    dirty_and_charge(ctx, stats, f, newly, charge)
}

/// `iomap_dirty_folio()` (the `->dirty_folio` aop, from `folio_mark_dirty()`; no folio lock
/// required, e.g. `zap_pte_range` holding only the page-table lock, or `iomap_page_mkwrite`):
/// `ifs_alloc` (the ifs exists here), mark **every** block dirty, then `filemap_dirty_folio`;
/// with the series, charge the pages newly dirtied and pass `accounted`.
pub fn iomap_dirty_folio<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    charge: DirtyCharge,
) -> Dirtied {
    let newly = iomap_set_range_dirty(ctx, f, 0, f.nr_pages() as u32);
    dirty_and_charge(ctx, stats, f, newly, charge)
}

/// `iomap_accounted_dirty_pages()` (series patch 2, reconstructed): the pages holding dirty
/// blocks, counted under `state_lock`.
pub fn iomap_accounted_dirty_pages<P: Platform>(ctx: &Ctx<P>, f: &IomapFolio<P>) -> i64 {
    let n = f.dirty_blocks();
    ctx.event("iomap_accounted_dirty_pages", "folio {}: {} dirty blocks", &[f.folio.index as i64, n]);
    n
}

/// `folio_clear_dirty_for_io()` (folio locked by the caller; `folio_mkclean` already run by the
/// caller, see [`crate::pte::folio_mkclean`]): `folio_test_clear_dirty`; if it was dirty,
/// discharge `folio_nr_pages` (6.12) or `->accounted_dirty_pages()` (the series).
pub fn folio_clear_dirty_for_io<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    charge: DirtyCharge,
) -> Cleaned {
    let was_dirty = f.folio.flags.test_and_clear_bit(PG_DIRTY);
    ctx.event(
        "folio_clear_dirty_for_io",
        "folio_test_clear_dirty(folio {}) = {}",
        &[f.folio.index as i64, was_dirty as i64],
    );
    if !was_dirty {
        return None;
    }
    let cycle = f.cycle.fetch_add(1, Ghost::SeqCst);
    let nr = match charge {
        DirtyCharge::PerPage => iomap_accounted_dirty_pages(ctx, f),
        DirtyCharge::PerFolio | DirtyCharge::PerPageDischargeNrPages => f.nr_pages(),
    };
    stats.discharge(nr);
    ctx.event("folio_account_cleaned", "folio {}: NR_FILE_DIRTY -= {}", &[f.folio.index as i64, nr]);
    Some((cycle, nr))
}

/// `iomap_writepage_map()` (folio locked, already cleared for I/O): submit the dirty block
/// ranges (`ifs_find_dirty_range`, under `state_lock`), then clear **all** dirty bits (a second
/// `state_lock` section). Returns the pages written. `folio_start_writeback` and the completion
/// are left out (nothing here reads PG_writeback).
pub fn iomap_writepage_map<P: Platform>(ctx: &Ctx<P>, stats: &DirtyStats<P>, f: &IomapFolio<P>) -> i64 {
    let written = f.dirty_blocks();
    stats.written.fetch_add(written, Ordering::Relaxed);
    f.state.lock().iter_mut().for_each(|w| *w = 0);
    ctx.event(
        "iomap_writepage_map",
        "folio {}: {} dirty blocks written, all dirty bits cleared",
        &[f.folio.index as i64, written],
    );
    written
}

/// One folio's writeback as `writeback_iter` + `iomap_writepages` do it, folio lock held:
/// `folio_mkclean` (`mkclean`, the caller's mapping state), `folio_clear_dirty_for_io`, and if it
/// was dirty `iomap_writepage_map`.
pub fn write_folio<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    charge: DirtyCharge,
    mkclean: impl FnOnce() -> bool,
) -> (Option<Dirtied>, Cleaned) {
    let _lock = f.folio.lock();
    // `folio_mkclean` found a dirty PTE: `folio_mark_dirty` before the clear.
    let redirtied = mkclean().then(|| iomap_dirty_folio(ctx, stats, f, charge));
    let cleaned = folio_clear_dirty_for_io(ctx, stats, f, charge);
    if cleaned.is_some() {
        iomap_writepage_map(ctx, stats, f);
    }
    (redirtied, cleaned)
}
