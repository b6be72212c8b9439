#![doc = include_str!("per_block_charge.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::iomap::{
    iomap_dirty_folio, iomap_write_end, write_folio, Cleaned, Dirtied, DirtyCharge, DirtyStats, IomapFolio,
};
use wb_core::pte::{folio_mkclean, zap_pte_range, Pte};
use wb_core::sync::{Ordering, Platform};
use wb_core::trace::Trace;

pub const NAME: &str = "per-block-charge";
pub const CHARGE_DISCHARGE_MATCH: &str = "charge-discharge-match";
const PROPERTIES: &[&str] = &[CHARGE_DISCHARGE_MATCH];

/// The folio: 4 blocks (16 KiB). The writer writes block 1.
pub const FOLIO_PAGES: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockRevision {
    Baseline,
    Series,
    SeriesMkcleanNosync,
    SeriesDischargeNrPages,
}

impl BlockRevision {
    pub const ALL: [BlockRevision; 4] = [
        BlockRevision::Baseline,
        BlockRevision::Series,
        BlockRevision::SeriesMkcleanNosync,
        BlockRevision::SeriesDischargeNrPages,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BlockRevision::Baseline => "baseline",
            BlockRevision::Series => "series",
            BlockRevision::SeriesMkcleanNosync => "series-mkclean-nosync",
            BlockRevision::SeriesDischargeNrPages => "series-discharge-nr-pages",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    pub fn summary(self) -> &'static str {
        match self {
            BlockRevision::Baseline => "6.12: whole-folio charge on the clean-to-dirty transition, folio_nr_pages discharge",
            BlockRevision::Series => "seed 003's series, reconstructed from the cover letter: per-page charge, accounted_dirty_pages() discharge",
            BlockRevision::SeriesMkcleanNosync => "mutant: the series with folio_mkclean's walk skipping the PTL for a PTE read as none (the race 479db0bf408e fixed)",
            BlockRevision::SeriesDischargeNrPages => "mutant: the series' per-page charge with the discharge left at folio_nr_pages",
        }
    }

    pub fn charge(self) -> DirtyCharge {
        match self {
            BlockRevision::Baseline => DirtyCharge::PerFolio,
            BlockRevision::Series | BlockRevision::SeriesMkcleanNosync => DirtyCharge::PerPage,
            BlockRevision::SeriesDischargeNrPages => DirtyCharge::PerPageDischargeNrPages,
        }
    }

    /// `folio_mkclean`'s `PVMW_SYNC`.
    pub fn mkclean_sync(self) -> bool {
        self != BlockRevision::SeriesMkcleanNosync
    }
}

/// Ghost ledger: pages charged and discharged per dirty cycle of the folio.
#[derive(Default)]
struct Ledger(Mutex<BTreeMap<usize, (i64, i64)>>);

impl Ledger {
    fn dirtied(&self, d: Dirtied) {
        self.0.lock().expect("ghost").entry(d.cycle).or_default().0 += d.charged;
    }

    fn cleaned(&self, c: Cleaned) {
        if let Some((cycle, nr)) = c {
            self.0.lock().expect("ghost").entry(cycle).or_default().1 += nr;
        }
    }

    fn record(&self, (redirtied, cleaned): (Option<Dirtied>, Cleaned)) {
        redirtied.into_iter().for_each(|d| self.dirtied(d));
        self.cleaned(cleaned);
    }
}

/// The state before the threads start: the folio is mapped through one PTE of a shared mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The user stored through the mapping: `iomap_page_mkwrite` marked every block dirty
    /// (charged as the revision charges) and the PTE is dirty.
    MappedDirty,
    /// The folio is clean and its PTE clean (write-protected by the last writeback).
    MappedClean,
}

#[derive(Debug, Clone)]
pub struct BlockModel {
    pub revision: BlockRevision,
    pub start: Start,
}

impl Model for BlockModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        let (rev, charge) = (self.revision, self.revision.charge());
        let start =
            if P::NAME == "shuttle" { [Start::MappedDirty, Start::MappedClean][P::choose(2)] } else { self.start };
        let folio = Arc::new(IomapFolio::<P>::new(0, FOLIO_PAGES));
        let stats = Arc::new(DirtyStats::<P>::default());
        let ledger = Arc::new(Ledger::default());
        let pte = Arc::new(Pte::<P>::new(start == Start::MappedDirty));
        if start == Start::MappedDirty {
            let _lock = folio.folio.lock();
            setup.event("iomap_page_mkwrite", "folio_mark_dirty under the folio lock", &[]);
            ledger.dirtied(iomap_dirty_folio(&setup, &stats, &folio, charge));
        }
        let writer = {
            let (folio, stats, ledger, trace, plan) =
                (folio.clone(), stats.clone(), ledger.clone(), trace.clone(), plans[0]);
            P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "writer", plan);
                let _lock = folio.folio.lock();
                ledger.dirtied(iomap_write_end(&ctx, &stats, &folio, 1, 1, charge));
            })
        };
        let zapper = {
            let (folio, stats, ledger, pte, trace, plan) =
                (folio.clone(), stats.clone(), ledger.clone(), pte.clone(), trace.clone(), plans[1]);
            P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "munmap", plan);
                if let Some(d) = zap_pte_range(&ctx, &pte, || iomap_dirty_folio(&ctx, &stats, &folio, charge)) {
                    ledger.dirtied(d);
                }
            })
        };
        let flusher = {
            let (folio, stats, ledger, pte, trace, plan) =
                (folio.clone(), stats.clone(), ledger.clone(), pte.clone(), trace.clone(), plans[2]);
            P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "flusher", plan);
                ledger.record(write_folio(&ctx, &stats, &folio, charge, || {
                    folio_mkclean(&ctx, &pte, rev.mkclean_sync())
                }));
            })
        };
        [writer, zapper, flusher].into_iter().for_each(P::join);
        // Quiescence: a final sync writes whatever is still dirty.
        let sync = Ctx::<P>::new(trace.clone(), "sync", CpuPlan::Fixed(0));
        ledger.record(write_folio(&sync, &stats, &folio, charge, || folio_mkclean(&sync, &pte, rev.mkclean_sync())));
        let ledger = ledger.0.lock().expect("ghost");
        let bad: Vec<String> = ledger
            .iter()
            .filter(|(_, (c, d))| c != d)
            .map(|(cycle, (c, d))| format!("dirty cycle {cycle}: {c} pages charged, {d} discharged"))
            .collect();
        let left = stats.nr_file_dirty.load(Ordering::Relaxed);
        if bad.is_empty() && left == 0 {
            return Vec::new();
        }
        vec![Violation {
            property: CHARGE_DISCHARGE_MATCH,
            message: format!("{}; NR_FILE_DIRTY after the final sync = {left}", bad.join("; ")),
        }]
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        vec![vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1), CpuPlan::Fixed(0)]]
    }

    fn loom_variants(&self) -> Vec<Self> {
        [Start::MappedDirty, Start::MappedClean].map(|start| BlockModel { start, ..self.clone() }).to_vec()
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1), CpuPlan::Fixed(0)]
    }

    fn configuration(&self) -> String {
        format!("writer + munmap + flusher; start {:?}", self.start)
    }

    fn placement_label(&self, _plans: &[CpuPlan]) -> String {
        format!("start {:?}; writer, munmap, flusher", self.start)
    }

    fn size(&self) -> Vec<(String, u64)> {
        vec![("threads".into(), 3), ("folio_pages".into(), u64::from(FOLIO_PAGES))]
    }
}

/// The declared scope of per-block-charge.
pub fn scope_decl() -> ScopeDecl {
    let role = |name, runs, callers| RoleDecl { name, runs, callers };
    ScopeDecl {
        roles: vec![
            role("writer", "__iomap_write_end of one block (folio locked)", "iomap_file_buffered_write"),
            role("munmap", "zap_pte_range: a dirty PTE's bit to iomap_dirty_folio (PTL only)", "munmap, exit, MADV_DONTNEED"),
            role("flusher", "writeback_iter: folio_mkclean, folio_clear_dirty_for_io, iomap_writepage_map", "the flusher's writeback"),
        ],
        counts: "one of each",
        sharing: "one 4-block folio mapped through one PTE of a shared mapping",
        initial: "mapped dirty (iomap_page_mkwrite marked every block, PTE dirty) or mapped clean (PTE write-protected)",
        excluded: "GUP-pinned dirtiers (set_page_dirty after DMA without the PTL)",
        bounds: "loom: the tier's preemption bound; shuttle: the tier's iterations; oracle: every interleaving of whole calls from both starts, then a final sync",
        configurations: vec!["writer + munmap + flusher; mapped dirty".into(), "writer + munmap + flusher; mapped clean".into()],
    }
}

pub struct PerBlockCharge;

/// Expected violations per revision and checker (loom, shuttle-pct, shuttle-random, oracle).
pub fn expected(rev: BlockRevision) -> [&'static [&'static str]; 4] {
    const F: &[&str] = &[CHARGE_DISCHARGE_MATCH];
    const P: &[&str] = &[];
    match rev {
        BlockRevision::Baseline | BlockRevision::Series | BlockRevision::SeriesMkcleanNosync => [P, P, P, P],
        BlockRevision::SeriesDischargeNrPages => [F, F, F, F],
    }
}

impl ModelScenario for PerBlockCharge {
    type Model = BlockModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "the series' per-page charge and accounted_dirty_pages() discharge under a folio-locked writer, a PTL-only unmap dirtier and writeback (seed 003)",
            header: include_str!("per_block_charge.md"),
            properties: &[(CHARGE_DISCHARGE_MATCH, "the pages discharged for a dirty cycle equal the pages charged for it")],
            scope: scope_decl(),
            revisions: revision_infos(expected),
        }
    }

    fn model(&self, revision: &str, _checker: Checker, _tier: Tier) -> Result<BlockModel, String> {
        Ok(BlockModel { revision: parse_revision(NAME, revision)?, start: Start::MappedDirty })
    }
}
