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
//! pages, the seed's case), so "pages holding dirty blocks" is the number of dirty bits. What
//! iomap charges *through* the cover letter leaves open: both readings are modelled
//! ([`ChargeReading`]).
//!
//! Where a model runs cgroup writeback (an inode on a wb that a switch can move), the charge also
//! goes to the wb's `WB_RECLAIMABLE` and [`switch_dirty_stats`] is the stat move of
//! `inode_do_switch_wbs`. The cover letter says `accounted_dirty_pages()` replaces
//! `folio_nr_pages()` in "the discharge and migration paths"; it does not name the switch, so the
//! series as reconstructed leaves the switch at `folio_nr_pages()` ([`SwitchMoves::NrPages`]),
//! and it does not say to which wb or under which lock iomap charges: reconstructed as the
//! kernel's pattern for a stat update outside the i_pages lock, an `unlocked_inode_to_wb_begin/end`
//! section.
//!
//! The counters are `NR_FILE_DIRTY` (charged dirty pages now, what `balance_dirty_pages` compares
//! with the threshold) and `NR_DIRTIED` (pages charged, cumulative: the seed's "159 TB of dirtied
//! pages"); `written` counts the pages writeback sent to the device (the seed's "6 TB").

use crate::ctx::Ctx;
use crate::folio::{Folio, PG_DIRTY};
use crate::inode::{unlocked_inode_to_wb_begin, unlocked_inode_to_wb_end, Inode};
use crate::page_writeback::folio_write_io;
use crate::sync::{Ordering, Platform, Traced};
use crate::trace::Name;
use crate::wb::{wb_stat_mod, Wb, WbStatItem};
use std::sync::atomic::{AtomicUsize as GhostUsize, Ordering as Ghost};
use std::sync::Arc;

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

/// What `inode_do_switch_wbs` moves of WB_RECLAIMABLE, folio by folio.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchMoves {
    /// 6.12 (and the series as reconstructed): `folio_nr_pages()` of every folio with the DIRTY
    /// mark and PG_dirty.
    NrPages,
    /// `accounted_dirty_pages()` of every folio with the DIRTY mark and PG_dirty (the obvious
    /// extension of the series to the switch).
    AccountedMarked,
    /// Our fix: `accounted_dirty_pages()` of every folio with PG_dirty, marked or not (the
    /// dirtier sets PG_dirty inside its charge section; the DIRTY mark follows later).
    AccountedDirty,
}

/// How iomap's per-page charge is made. The cover letter says patch 1's `@accounted` skips "the
/// generic per-folio charge" and patch 2 makes iomap charge per dirty page; it does not say with
/// what, and 6.12's `folio_account_dirtied()` is static. Both readings are modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChargeReading {
    /// Reading (a): iomap charges NR_FILE_DIRTY, NR_DIRTIED and WB_RECLAIMABLE with a helper of
    /// its own. The rest of `folio_account_dirtied()` stays behind in the skipped function:
    /// WB_DIRTIED, `current->nr_dirtied`, `mem_cgroup_track_foreign_dirty()` and, on a kernel with
    /// seed 002 v7, v7's WB_DONTCACHE_DIRTY increment.
    OwnHelper,
    /// Reading (b): `folio_account_dirtied()` takes the page count (or is split so iomap can call
    /// its body) and iomap charges through it: every update of 6.12's body, v7's line included,
    /// for the pages newly dirtied.
    AccountDirtied,
}

impl ChargeReading {
    /// The catalogue's name of the reading.
    pub fn label(self) -> &'static str {
        match self {
            ChargeReading::OwnHelper => "reading (a)",
            ChargeReading::AccountDirtied => "reading (b)",
        }
    }
}

/// How a call charges: the revision's charge, and where a model runs cgroup writeback, the inode
/// whose wb gets WB_RECLAIMABLE (`None`: one wb, WB_RECLAIMABLE left out).
pub struct Charging<'a, P: Platform> {
    pub charge: DirtyCharge,
    /// With a per-page charge: what iomap charges through.
    pub reading: ChargeReading,
    pub inode: Option<&'a Inode<P>>,
    /// Our fix: set the blocks' bits, PG_dirty and the charge inside one
    /// `unlocked_inode_to_wb_begin/end` section, so a switch sees all three or none.
    pub in_section: bool,
    /// Our fix of the two series together: iomap's own per-page charge also adds the pages to
    /// WB_DONTCACHE_DIRTY for a PG_dropbehind folio (v7 adds them only in
    /// `folio_account_dirtied`, which the series' `accounted` path skips).
    pub iomap_charges_dontcache: bool,
}

impl<P: Platform> Clone for Charging<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: Platform> Copy for Charging<'_, P> {}

impl<P: Platform> Charging<'_, P> {
    /// One wb: node counters only.
    pub fn node_only(charge: DirtyCharge) -> Self {
        Charging {
            charge,
            reading: ChargeReading::AccountDirtied,
            inode: None,
            in_section: false,
            iomap_charges_dontcache: false,
        }
    }

    /// What iomap's own per-page charge runs for a folio: the reading's body, with the
    /// WB_DONTCACHE_DIRTY update reading (b) brings along or our fix adds to reading (a).
    fn per_page_body(&self, folio: &Folio<P>) -> Body {
        match self.reading {
            ChargeReading::AccountDirtied => Body::AccountDirtied { dropbehind: folio.test_dropbehind() },
            ChargeReading::OwnHelper => {
                Body::IomapOwn { dontcache: self.iomap_charges_dontcache && folio.test_dropbehind() }
            }
        }
    }
}

/// Which code makes a dirty charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    /// `folio_account_dirtied()` (6.12, with seed 002 v7's `if (folio_test_dropbehind(folio))`
    /// WB_DONTCACHE_DIRTY line, read here as `dropbehind`).
    AccountDirtied { dropbehind: bool },
    /// Reading (a)'s own helper: NR_FILE_DIRTY, NR_DIRTIED, WB_RECLAIMABLE, and WB_DONTCACHE_DIRTY
    /// with `dontcache`.
    IomapOwn { dontcache: bool },
}

/// Model-only ghost of the effects of `folio_account_dirtied()` that no other property reads and
/// whose own races are elsewhere (the foreign-dirty table: foreign-policy, bdev-slots): per wb,
/// the pages and charge calls made to it, WB_DIRTIED, and the calls of
/// `mem_cgroup_track_foreign_dirty(folio, wb)`; summed over tasks, `current->nr_dirtied`. Updated
/// with the charge, invisible to the schedulers.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DirtiedEffects {
    /// wb id -> (pages charged, charge calls, WB_DIRTIED, foreign-dirty hook calls).
    pub per_wb: std::collections::BTreeMap<usize, (i64, i64, i64, i64)>,
    /// Pages charged, and `current->nr_dirtied` summed over the dirtying tasks.
    pub charged: i64,
    pub nr_dirtied: i64,
}

/// The node dirty counters of one file, and the pages written.
pub struct DirtyStats<P: Platform> {
    /// `NR_FILE_DIRTY`: pages charged and not yet discharged.
    pub nr_file_dirty: Traced<P, P::AtomicI64>,
    /// `NR_DIRTIED`: pages charged, cumulative.
    pub nr_dirtied: Traced<P, P::AtomicI64>,
    /// Pages sent to the device by `iomap_writepage_map()`.
    pub written: Traced<P, P::AtomicI64>,
    /// Ghost: what `folio_account_dirtied()`'s other updates did.
    pub effects: std::sync::Mutex<DirtiedEffects>,
}

impl<P: Platform> Default for DirtyStats<P> {
    fn default() -> Self {
        DirtyStats {
            nr_file_dirty: Traced::new(0, Name::int("NR_FILE_DIRTY", 0)),
            nr_dirtied: Traced::new(0, Name::int("NR_DIRTIED", 0)),
            written: Traced::new(0, Name::int("written", 0)),
            effects: Default::default(),
        }
    }
}

impl<P: Platform> DirtyStats<P> {
    /// A charge of `nr` pages by `body`: `node_stat_mod_folio(NR_FILE_DIRTY, +nr)`, `NR_DIRTIED`
    /// and, on `wb`, `wb_stat_mod(WB_RECLAIMABLE, +nr)`, WB_DONTCACHE_DIRTY += nr where the body
    /// updates it; `folio_account_dirtied()` also does WB_DIRTIED, `current->nr_dirtied` and
    /// `mem_cgroup_track_foreign_dirty(folio, wb)` (ghosts: [`DirtiedEffects`]; the folio's memcg
    /// is foreign to the wb in the model that reads them). NR_ZONE_WRITE_PENDING,
    /// `task_io_account_write` and `bdp_ratelimits` follow `nr_dirtied`'s fate and are not kept.
    fn charge(&self, ctx: &Ctx<P>, wb: Option<&Wb<P>>, nr: i64, body: Body) {
        if nr == 0 {
            return;
        }
        self.nr_file_dirty.fetch_add(nr, Ordering::Relaxed);
        self.nr_dirtied.fetch_add(nr, Ordering::Relaxed);
        let (full, dontcache) = match body {
            Body::AccountDirtied { dropbehind } => (true, dropbehind),
            Body::IomapOwn { dontcache } => (false, dontcache),
        };
        wb.into_iter().for_each(|wb| wb_stats_mod(ctx, wb, nr, dontcache));
        let mut e = self.effects.lock().unwrap_or_else(|e| e.into_inner());
        e.charged += nr;
        if full {
            e.nr_dirtied += nr;
        }
        if let Some(wb) = wb {
            let w = e.per_wb.entry(wb.id).or_default();
            w.0 += nr;
            w.1 += 1;
            if full {
                w.2 += nr;
                w.3 += 1;
            }
            let template = if full {
                "folio_account_dirtied: wb{} WB_DIRTIED += {}, current->nr_dirtied += it, mem_cgroup_track_foreign_dirty"
            } else {
                "iomap's own charge: wb{} {} pages; WB_DIRTIED, nr_dirtied and mem_cgroup_track_foreign_dirty not run"
            };
            ctx.event("charge", template, &[wb.id as i64, nr]);
        }
    }

    /// The discharge of `nr` pages; v7's WB_DONTCACHE_DIRTY decrement shares the `nr`.
    fn discharge(&self, ctx: &Ctx<P>, wb: Option<&Wb<P>>, nr: i64, dontcache: bool) {
        if nr != 0 {
            self.nr_file_dirty.fetch_sub(nr, Ordering::Relaxed);
            wb.into_iter().for_each(|wb| wb_stats_mod(ctx, wb, -nr, dontcache));
        }
    }
}

/// `wb_stat_mod(wb, WB_RECLAIMABLE, nr)` and, for a dropbehind folio under seed 002 v7,
/// `wb_stat_mod(wb, WB_DONTCACHE_DIRTY, nr)`.
fn wb_stats_mod<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, nr: i64, dontcache: bool) {
    wb_stat_mod(ctx, wb, WbStatItem::Reclaimable, nr);
    if dontcache {
        wb_stat_mod(ctx, wb, WbStatItem::DontcacheDirty, nr);
    }
}

/// A folio of a file on an iomap filesystem with block size = page size: the folio (PG_dirty,
/// its lock, index, size, and the ifs's per-block dirty bitmap under `state_lock`).
pub struct IomapFolio<P: Platform> {
    pub folio: Arc<Folio<P>>,
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
    /// A clean folio of `nr_pages` at `index`, its ifs attached (`ifs_alloc` from the read path);
    /// with `dropbehind`, created by an FGP_DONTCACHE lookup (PG_dropbehind set).
    pub fn new(index: u64, nr_pages: u32, dropbehind: bool) -> Self {
        let folio = Folio::new(index, nr_pages, dropbehind).with_ifs();
        IomapFolio { folio: Arc::new(folio), cycle: GhostUsize::new(0) }
    }

    pub fn nr_pages(&self) -> i64 {
        self.folio.nr_pages()
    }

    /// Dirty blocks now (`state_lock` taken).
    pub fn dirty_blocks(&self) -> i64 {
        dirty_blocks(&self.folio)
    }
}

fn ifs<P: Platform>(folio: &Folio<P>) -> &crate::spinlock::SpinLock<P, Vec<u64>> {
    folio.ifs.as_ref().expect("an iomap folio has its ifs")
}

fn dirty_blocks<P: Platform>(folio: &Folio<P>) -> i64 {
    ifs(folio).lock().iter().map(|w| i64::from(w.count_ones())).sum()
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
    let newly = set_bits(&mut ifs(&f.folio).lock(), first, nr);
    ctx.event(
        "iomap_set_range_dirty",
        "folio {}: blocks {}+{} dirty, {} newly",
        &[f.folio.index as i64, i64::from(first), i64::from(nr), i64::from(newly)],
    );
    newly
}

/// `folio_test_set_dirty`, and the ghost cycle it opened or joined.
fn test_set_dirty<P: Platform>(f: &IomapFolio<P>) -> (bool, usize) {
    let was_dirty = f.folio.flags.test_and_set_bit(PG_DIRTY);
    (was_dirty, f.cycle.load(Ghost::SeqCst))
}

/// `__filemap_dirty_folio(mapping, folio, accounted)` (series patch 1, reconstructed; 6.12
/// `filemap_dirty_folio` when `accounted` is false): `folio_test_set_dirty`; on the clean-to-dirty
/// transition `__folio_mark_dirty`, under the i_pages lock, charges `folio_nr_pages` to
/// `inode_to_wb` unless the caller `accounted` for the pages itself, and sets the DIRTY mark.
/// Returns the pages charged here and the cycle the RMW saw open.
fn filemap_dirty_folio<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    accounted: bool,
    inode: Option<&Inode<P>>,
) -> (i64, usize) {
    let (was_dirty, cycle) = test_set_dirty(f);
    let charged = if was_dirty || accounted { 0 } else { f.nr_pages() };
    ctx.event(
        "__filemap_dirty_folio",
        "folio_test_set_dirty(folio {}) = {}; folio_account_dirtied charges {} (accounted = {})",
        &[f.folio.index as i64, was_dirty as i64, charged, accounted as i64],
    );
    match inode {
        Some(inode) if !was_dirty => {
            let _xa = inode.i_pages.lock_irqsave(ctx, "__folio_mark_dirty: xa_unlock_irqrestore");
            let body = Body::AccountDirtied { dropbehind: f.folio.test_dropbehind() };
            stats.charge(ctx, Some(inode.inode_to_wb()), charged, body);
            inode.xa_set_dirty_mark(&f.folio);
        }
        _ => stats.charge(ctx, None, charged, Body::AccountDirtied { dropbehind: false }),
    }
    (charged, cycle)
}

/// The series' own charge of `nr` newly dirty pages (patch 2, reconstructed) on the inode's wb
/// inside an `unlocked_inode_to_wb_begin/end` section, by the reading's body
/// ([`ChargeReading`]).
fn iomap_account_dirty_pages<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    how: Charging<'_, P>,
    nr: i64,
) {
    match how.inode {
        Some(inode) => {
            let (wb, cookie) = unlocked_inode_to_wb_begin(ctx, inode);
            stats.charge(ctx, Some(wb), nr, how.per_page_body(&f.folio));
            unlocked_inode_to_wb_end(ctx, inode, cookie);
        }
        None => stats.charge(ctx, None, nr, how.per_page_body(&f.folio)),
    }
}

/// `__iomap_write_end()` (folio locked by the caller, after the copy of a buffered write of
/// blocks `first..first + nr`): `iomap_set_range_dirty`, then `filemap_dirty_folio`. The baseline
/// leaves the charge to `__folio_mark_dirty`; the series charges the newly dirty blocks' pages
/// first and passes `accounted`; our fix does bits, PG_dirty and charge in one wb section and
/// sets the DIRTY mark after it.
pub fn iomap_write_end<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    first: u32,
    nr: u32,
    how: Charging<'_, P>,
) -> Dirtied {
    if let (true, Some(inode)) = (how.in_section, how.inode) {
        let (wb, cookie) = unlocked_inode_to_wb_begin(ctx, inode);
        let newly = i64::from(iomap_set_range_dirty(ctx, f, first, nr));
        let (was_dirty, cycle) = test_set_dirty(f);
        ctx.event(
            "__filemap_dirty_folio",
            "(fix) in the wb section: folio_test_set_dirty(folio {}) = {}; charge {}",
            &[f.folio.index as i64, was_dirty as i64, newly],
        );
        stats.charge(ctx, Some(wb), newly, how.per_page_body(&f.folio));
        unlocked_inode_to_wb_end(ctx, inode, cookie);
        if !was_dirty {
            let _xa = inode.i_pages.lock_irqsave(ctx, "__folio_mark_dirty: xa_unlock_irqrestore");
            inode.xa_set_dirty_mark(&f.folio);
        }
        return Dirtied { charged: newly, cycle };
    }
    let newly = iomap_set_range_dirty(ctx, f, first, nr);
    let per_page = how.charge != DirtyCharge::PerFolio;
    let pages = if per_page { i64::from(newly) } else { 0 };
    if pages != 0 {
        iomap_account_dirty_pages(ctx, stats, f, how, pages);
    }
    let (folio_charge, cycle) = filemap_dirty_folio(ctx, stats, f, per_page, how.inode);
    Dirtied { charged: pages + folio_charge, cycle }
}

/// `iomap_dirty_folio()` (the `->dirty_folio` aop, from `folio_mark_dirty()`; no folio lock
/// required, e.g. `zap_pte_range` holding only the page-table lock, or `iomap_page_mkwrite`):
/// `ifs_alloc` (the ifs exists here), mark **every** block dirty, then `filemap_dirty_folio`;
/// with the series, charge the pages newly dirtied and pass `accounted`.
pub fn iomap_dirty_folio<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    how: Charging<'_, P>,
) -> Dirtied {
    // The same steps as a write of every block.
    iomap_write_end(ctx, stats, f, 0, f.nr_pages() as u32, how)
}

/// `->accounted_dirty_pages()` as the discharge reads it: `iomap_accounted_dirty_pages()` (series
/// patch 2, reconstructed: the pages holding dirty blocks, counted under `state_lock`) for the
/// per-page charge, `folio_nr_pages()` otherwise.
pub fn accounted_dirty_pages<P: Platform>(ctx: &Ctx<P>, folio: &Folio<P>, charge: DirtyCharge) -> i64 {
    if charge != DirtyCharge::PerPage {
        return folio.nr_pages();
    }
    let n = dirty_blocks(folio);
    ctx.event("iomap_accounted_dirty_pages", "folio {}: {} dirty blocks", &[folio.index as i64, n]);
    n
}

/// `folio_clear_dirty_for_io()` (folio locked by the caller; `folio_mkclean` already run by the
/// caller, see [`crate::pte::folio_mkclean`]): inside `unlocked_inode_to_wb_begin/end` where the
/// model runs cgroup writeback, `folio_test_clear_dirty`; if it was dirty, discharge
/// `folio_nr_pages` (6.12) or `->accounted_dirty_pages()` (the series).
pub fn folio_clear_dirty_for_io<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    how: Charging<'_, P>,
) -> Cleaned {
    let section = how.inode.map(|inode| unlocked_inode_to_wb_begin(ctx, inode));
    let was_dirty = f.folio.flags.test_and_clear_bit(PG_DIRTY);
    ctx.event(
        "folio_clear_dirty_for_io",
        "folio_test_clear_dirty(folio {}) = {}",
        &[f.folio.index as i64, was_dirty as i64],
    );
    let cleaned = was_dirty.then(|| {
        let cycle = f.cycle.fetch_add(1, Ghost::SeqCst);
        let nr = accounted_dirty_pages(ctx, &f.folio, how.charge);
        stats.discharge(ctx, section.as_ref().map(|(wb, _)| *wb), nr, f.folio.test_dropbehind());
        ctx.event("folio_account_cleaned", "folio {}: NR_FILE_DIRTY -= {}", &[f.folio.index as i64, nr]);
        (cycle, nr)
    });
    if let (Some(inode), Some((_, cookie))) = (how.inode, section) {
        unlocked_inode_to_wb_end(ctx, inode, cookie);
    }
    cleaned
}

/// `iomap_writepage_map()` (folio locked, already cleared for I/O): `folio_start_writeback` (where
/// the model runs cgroup writeback: [`folio_write_io`], which drops the DIRTY mark), submit the
/// dirty block ranges (`ifs_find_dirty_range`, under `state_lock`), then clear **all** dirty bits
/// (a second `state_lock` section). Returns the pages written.
pub fn iomap_writepage_map<P: Platform>(
    ctx: &Ctx<P>,
    stats: &DirtyStats<P>,
    f: &IomapFolio<P>,
    inode: Option<&Inode<P>>,
) -> i64 {
    if let Some(inode) = inode {
        folio_write_io(ctx, inode, &f.folio);
    }
    let written = f.dirty_blocks();
    stats.written.fetch_add(written, Ordering::Relaxed);
    ifs(&f.folio).lock().iter_mut().for_each(|w| *w = 0);
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
    how: Charging<'_, P>,
    mkclean: impl FnOnce() -> bool,
) -> (Option<Dirtied>, Cleaned) {
    let _lock = f.folio.lock();
    // `folio_mkclean` found a dirty PTE: `folio_mark_dirty` before the clear.
    let redirtied = mkclean().then(|| iomap_dirty_folio(ctx, stats, f, how));
    let cleaned = folio_clear_dirty_for_io(ctx, stats, f, how);
    if cleaned.is_some() {
        iomap_writepage_map(ctx, stats, f, how.inode);
    }
    (redirtied, cleaned)
}

/// The dirty-page stat moves of `inode_do_switch_wbs()` for an inode with a dirty charge (under
/// the i_pages lock, which the caller holds): for each folio in the page cache that `moves`
/// selects, WB_RECLAIMABLE -= n on the old wb and += n on the new one, and for a dropbehind folio
/// WB_DONTCACHE_DIRTY by the same `nr` (seed 002 v7 adds its move inside the same loop, sharing
/// the `nr`). Returns the WB_DONTCACHE_DIRTY pages moved.
pub fn switch_dirty_stats<P: Platform>(
    ctx: &Ctx<P>,
    inode: &Inode<P>,
    old: &Wb<P>,
    new: &Wb<P>,
    charge: DirtyCharge,
    moves: SwitchMoves,
) -> i64 {
    let (mut moved, mut dontcache) = (0, 0);
    for folio in inode.folios.iter().filter(|f| f.in_page_cache()) {
        let marked = || folio.marks.test_bit(crate::folio::PAGECACHE_TAG_DIRTY);
        let selected = match moves {
            SwitchMoves::NrPages | SwitchMoves::AccountedMarked => marked() && folio.test_dirty(),
            SwitchMoves::AccountedDirty => folio.test_dirty(),
        };
        if !selected {
            continue;
        }
        let nr = match moves {
            SwitchMoves::NrPages => folio.nr_pages(),
            SwitchMoves::AccountedMarked | SwitchMoves::AccountedDirty => accounted_dirty_pages(ctx, folio, charge),
        };
        let dropbehind = folio.test_dropbehind();
        wb_stats_mod(ctx, old, -nr, dropbehind);
        wb_stats_mod(ctx, new, nr, dropbehind);
        moved += nr;
        dontcache += if dropbehind { nr } else { 0 };
    }
    ctx.event(
        "inode_do_switch_wbs",
        "moved {} WB_RECLAIMABLE and {} WB_DONTCACHE_DIRTY page(s) wb{} -> wb{}",
        &[moved, dontcache, old.id as i64, new.id as i64],
    );
    dontcache
}
