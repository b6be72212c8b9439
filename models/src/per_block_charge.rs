#![doc = include_str!("per_block_charge.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::iomap::{iomap_dirty_folio, iomap_write_end, write_folio, Cleaned, Dirtied, DirtyStats, IomapFolio};
use wb_core::pte::{folio_mkclean, zap_pte_range, Pte};
use wb_core::revision::BlockRevision;
use wb_core::revision::Revision;
use wb_core::sync::{Ordering, Platform};
use wb_core::trace::Trace;

pub const NAME: &str = <BlockRevision as Revision>::SCENARIO;
pub use wb_core::property::CHARGE_DISCHARGE_MATCH;
const PROPERTIES: &[&str] = &[CHARGE_DISCHARGE_MATCH];

/// The folio: 4 blocks (16 KiB). The writer writes block 1.
pub const FOLIO_PAGES: u32 = 4;

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

/// The scenario's objects: the folio with its PTE, the dirty stats and the ghost ledger. The
/// model's threads and the oracle's core run the same calls on them.
pub struct BlockObjects<P: Platform> {
    revision: BlockRevision,
    folio: IomapFolio<P>,
    stats: DirtyStats<P>,
    pte: Pte<P>,
    ledger: Ledger,
}

impl<P: Platform> BlockObjects<P> {
    /// The objects at `start` (`setup` runs `iomap_page_mkwrite` for a dirty mapping).
    pub fn new(setup: &Ctx<P>, revision: BlockRevision, start: Start) -> Self {
        let o = BlockObjects {
            revision,
            folio: IomapFolio::new(0, FOLIO_PAGES),
            stats: DirtyStats::default(),
            pte: Pte::new(start == Start::MappedDirty),
            ledger: Ledger::default(),
        };
        if start == Start::MappedDirty {
            let _lock = o.folio.folio.lock();
            setup.event("iomap_page_mkwrite", "folio_mark_dirty under the folio lock", &[]);
            o.ledger.dirtied(iomap_dirty_folio(setup, &o.stats, &o.folio, revision.knobs().charge));
        }
        o
    }

    /// The buffered writer: block 1 under the folio lock.
    pub fn write(&self, ctx: &Ctx<P>) {
        let _lock = self.folio.folio.lock();
        self.ledger.dirtied(iomap_write_end(ctx, &self.stats, &self.folio, 1, 1, self.revision.knobs().charge));
    }

    /// `munmap`'s `zap_pte_range`: a dirty PTE dirties the folio, under the PTL only.
    pub fn zap(&self, ctx: &Ctx<P>) {
        let charge = self.revision.knobs().charge;
        if let Some(d) = zap_pte_range(ctx, &self.pte, || iomap_dirty_folio(ctx, &self.stats, &self.folio, charge)) {
            self.ledger.dirtied(d);
        }
    }

    /// The flusher's writeback of the folio, `folio_mkclean` first.
    pub fn writeback(&self, ctx: &Ctx<P>) {
        let knobs = self.revision.knobs();
        self.ledger.record(write_folio(ctx, &self.stats, &self.folio, knobs.charge, || {
            folio_mkclean(ctx, &self.pte, knobs.mkclean_sync)
        }));
    }

    /// (charged, discharged) pages per dirty cycle, the cycles with any.
    /// wb-core's `NR_FILE_DIRTY` and `NR_DIRTIED`, as its charge and discharge left them.
    pub fn counters(&self) -> (i64, i64) {
        (self.stats.nr_file_dirty.load(Ordering::Relaxed), self.stats.nr_dirtied.load(Ordering::Relaxed))
    }

    pub fn ledger(&self) -> BTreeMap<usize, (i64, i64)> {
        self.ledger.0.lock().expect("ghost").iter().filter(|(_, e)| **e != (0, 0)).map(|(k, e)| (*k, *e)).collect()
    }

    /// `charge-discharge-match`, after the final sync.
    pub fn violations(&self) -> Vec<Violation> {
        let bad: Vec<String> = self
            .ledger()
            .iter()
            .filter(|(_, (c, d))| c != d)
            .map(|(cycle, (c, d))| format!("dirty cycle {cycle}: {c} pages charged, {d} discharged"))
            .collect();
        let left = self.stats.nr_file_dirty.load(Ordering::Relaxed);
        if bad.is_empty() && left == 0 {
            return Vec::new();
        }
        vec![Violation {
            property: CHARGE_DISCHARGE_MATCH,
            message: format!("{}; NR_FILE_DIRTY after the final sync = {left}", bad.join("; ")),
        }]
    }
}

impl Model for BlockModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        let start =
            if P::NAME == "shuttle" { [Start::MappedDirty, Start::MappedClean][P::choose(2)] } else { self.start };
        let objects = Arc::new(BlockObjects::new(&setup, self.revision, start));
        type Call<P> = fn(&BlockObjects<P>, &Ctx<P>);
        let calls: [(&'static str, Call<P>); 3] =
            [("writer", BlockObjects::write), ("munmap", BlockObjects::zap), ("flusher", BlockObjects::writeback)];
        let threads: Vec<_> = calls
            .into_iter()
            .zip(plans)
            .map(|((name, call), &plan)| {
                let (objects, trace) = (objects.clone(), trace.clone());
                P::spawn(move || call(&objects, &Ctx::<P>::new(trace, name, plan)))
            })
            .collect();
        threads.into_iter().for_each(P::join);
        // Quiescence: a final sync writes whatever is still dirty.
        objects.writeback(&Ctx::<P>::new(trace.clone(), "sync", CpuPlan::Fixed(0)));
        objects.violations()
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

impl ModelScenario for PerBlockCharge {
    type Model = BlockModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "the series' per-page charge and accounted_dirty_pages() discharge under a folio-locked writer, a PTL-only unmap dirtier and writeback (seed 003)",
            header: include_str!("per_block_charge.md"),
            properties: &[(CHARGE_DISCHARGE_MATCH, "the pages discharged for a dirty cycle equal the pages charged for it")],
            scope: scope_decl(),
            revisions: revision_infos::<BlockRevision>(),
        }
    }

    fn model(&self, revision: &str, _checker: Checker, _tier: Tier) -> Result<BlockModel, String> {
        Ok(BlockModel { revision: parse_revision(NAME, revision)?, start: Start::MappedDirty })
    }
}
