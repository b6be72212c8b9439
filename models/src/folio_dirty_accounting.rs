#![doc = include_str!("folio_dirty_accounting.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::sync::Arc;
use wb_core::address_space::{AddressSpace, DirtyLimits};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::fadvise::Geometry;
use wb_core::revision::FolioPolicy;
use wb_core::revision::Revision;
use wb_core::spinlock::SpinLock;
use wb_core::sync::{Ordering, Platform};
use wb_core::trace::Trace;

pub const NAME: &str = <FolioPolicy as Revision>::SCENARIO;
pub use wb_core::property::CHARGE_EQUALS_WRITTEN;
pub use wb_core::property::OVER_ACCOUNTING_BOUND;
const PROPERTIES: &[&str] = &[CHARGE_EQUALS_WRITTEN, OVER_ACCOUNTING_BOUND];

/// The checkers' file: 64 pages (256 KiB), 8 KiB reads, readahead from 4 to 32 pages, folios up
/// to order 5 (128 KiB), so that the 64 KiB cap of FADV_RANDOM_WRITE is below the largest order.
pub const GEOMETRY: Geometry =
    Geometry { file_pages: 64, read_pages: 2, ra_init_pages: 4, ra_max_pages: 32, max_order: 5 };
/// Limits high enough that two writes are never throttled (throttling is the simulation's).
pub const LIMITS: DirtyLimits = DirtyLimits { thresh: 64, bg_thresh: 32 };
/// Write offsets (8 KiB slots over the file's first 128 KiB) and sizes (8 and 16 KiB).
pub const SLOTS: u64 = 16;
pub const WRITE_PAGES: [u64; 2] = [2, 4];

/// A buffered write: first page, pages.
pub type Write = (u64, u64);

/// Every workload of the checkers: two writes (a writeback pass runs before, between or after
/// them).
pub fn workloads() -> Vec<[Write; 2]> {
    let writes: Vec<Write> = (0..SLOTS).flat_map(|s| WRITE_PAGES.iter().map(move |&n| (s * 2, n))).collect();
    writes.iter().flat_map(|&a| writes.iter().map(move |&b| [a, b])).collect()
}

/// What a run of one workload measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Measured {
    /// After the writes, before the final sync: charged dirty pages and pages holding dirty blocks.
    pub quiescent_charged: i64,
    pub quiescent_dirty_blocks: i64,
    /// After the final sync: pages charged (NR_DIRTIED) and written.
    pub charged: i64,
    pub written: i64,
    /// Folio size / block size: the largest folio the policy lets the cache hold.
    pub folio_pages: i64,
}

/// The program run sequentially (the oracle comparison and the tests): the read phase, write,
/// writeback pass, write, then [`finish`].
pub fn run_workload<P: Platform>(ctx: &Ctx<P>, policy: FolioPolicy, g: &Geometry, writes: &[Write]) -> Measured {
    let mut file = AddressSpace::<P>::after_read(policy, g, LIMITS);
    for (i, &(page, pages)) in writes.iter().enumerate() {
        if i > 0 {
            file.writeback(ctx, -1);
        }
        buffered_write(ctx, &mut file, page, pages);
    }
    finish(ctx, &mut file, policy, g)
}

fn buffered_write<P: Platform>(ctx: &Ctx<P>, file: &mut AddressSpace<P>, page: u64, pages: u64) {
    ctx.event("iomap_file_buffered_write", "pages {}+{}", &[page as i64, pages as i64]);
    file.buffered_write(ctx, page, pages);
}

/// At quiescence: read the charged dirty pages and the pages holding dirty blocks, then sync and
/// read the totals.
pub fn finish<P: Platform>(ctx: &Ctx<P>, file: &mut AddressSpace<P>, policy: FolioPolicy, g: &Geometry) -> Measured {
    let quiescent_charged = file.stats.nr_file_dirty.load(Ordering::Relaxed);
    let quiescent_dirty_blocks = file.dirty_block_pages();
    file.writeback(ctx, -1);
    Measured {
        quiescent_charged,
        quiescent_dirty_blocks,
        charged: file.stats.nr_dirtied.load(Ordering::Relaxed),
        written: file.stats.written.load(Ordering::Relaxed),
        folio_pages: 1 << policy.max_order(g),
    }
}

/// The two properties over one run's measurements.
pub fn check(m: &Measured) -> Vec<Violation> {
    let mut v = Vec::new();
    if m.charged != m.written || m.quiescent_charged != m.quiescent_dirty_blocks {
        v.push(Violation {
            property: CHARGE_EQUALS_WRITTEN,
            message: format!(
                "{} pages charged, {} written; at quiescence {} charged dirty, {} pages hold dirty blocks",
                m.charged, m.written, m.quiescent_charged, m.quiescent_dirty_blocks
            ),
        });
    }
    if m.charged > m.written * m.folio_pages {
        v.push(Violation {
            property: OVER_ACCOUNTING_BOUND,
            message: format!(
                "{} pages charged for {} written: more than folio size / block size = {}",
                m.charged, m.written, m.folio_pages
            ),
        });
    }
    v
}

#[derive(Debug, Clone)]
pub struct FolioDirtyModel {
    pub policy: FolioPolicy,
    pub workload: [Write; 2],
}

impl Model for FolioDirtyModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        // loom runs each workload as its own model; shuttle draws one per execution.
        let workload = if P::NAME == "shuttle" {
            let all = workloads();
            let w = all[P::choose(all.len())];
            trace.set_configuration(format!("writes {w:?} (first page, pages)"));
            w
        } else {
            self.workload
        };
        // The writer and the flusher's pass race; each holds the mapping for a whole call.
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        let file = Arc::new(SpinLock::<P, _>::new(AddressSpace::<P>::after_read(self.policy, &GEOMETRY, LIMITS)));
        let writer = {
            let (file, trace, plan) = (file.clone(), trace.clone(), plans[0]);
            P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "pgbench", plan);
                for (page, pages) in workload {
                    buffered_write(&ctx, &mut file.lock(), page, pages);
                }
            })
        };
        let flusher = {
            let (file, trace, plan) = (file.clone(), trace.clone(), plans[1]);
            P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "flusher", plan);
                file.lock().writeback(&ctx, -1);
            })
        };
        [writer, flusher].into_iter().for_each(P::join);
        let measured = finish(&setup, &mut file.lock(), self.policy, &GEOMETRY);
        check(&measured)
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        vec![vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1)]]
    }

    fn loom_variants(&self) -> Vec<Self> {
        workloads().into_iter().map(|workload| FolioDirtyModel { workload, ..self.clone() }).collect()
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1)]
    }

    /// Bound 2 (quick), 3 (scope), 4 (deep): the policies differ sequentially (every checker
    /// agrees, the oracle included), so the quick tier spends less on interleavings.
    fn loom_preemptions(&self, tier: Tier) -> Option<usize> {
        Some(match tier {
            Tier::Quick => 2,
            Tier::Scope => 3,
            Tier::Deep => 4,
        })
    }

    fn configurations(&self) -> u64 {
        workloads().len() as u64
    }

    fn configuration(&self) -> String {
        format!("writes {:?} (first page, pages)", self.workload)
    }

    fn placement_label(&self, _plans: &[CpuPlan]) -> String {
        format!("pgbench writes {:?} (first page, pages) racing one flusher pass", self.workload)
    }

    fn size(&self) -> Vec<(String, u64)> {
        vec![
            ("file_pages".into(), GEOMETRY.file_pages),
            ("max_order".into(), u64::from(GEOMETRY.max_order)),
            ("workloads".into(), workloads().len() as u64),
        ]
    }
}

/// The declared scope of folio-dirty-accounting.
pub fn scope_decl() -> ScopeDecl {
    let role = |name, runs, callers| RoleDecl { name, runs, callers };
    ScopeDecl {
        roles: vec![
            role("writer", "two pgbench-style writes (iomap_write_iter, charge, balance_dirty_pages)", "iomap_file_buffered_write"),
            role("flusher", "one writeback pass (writeback_iter, cyclic)", "the flusher's background writeback"),
        ],
        counts: "one writer, one flusher pass",
        sharing: "one 64-page file read sequentially first (readahead orders 0, 2, 4, 5, or the policy's folio size)",
        initial: "the file clean and cached as the read phase left it",
        excluded: "block sizes below the page size (the series rounds to pages)",
        bounds: "every workload: two writes of 8 or 16 KiB at 8 KiB-aligned offsets in the first 128 KiB (1,024); loom each (the tier's preemption bound), shuttle one drawn per execution, the oracle each with the pass before, between and after the writes",
        configurations: workloads().iter().map(|w| format!("writes {w:?} (first page, pages)")).collect(),
    }
}

pub struct FolioDirtyAccounting;

impl ModelScenario for FolioDirtyAccounting {
    type Model = FolioDirtyModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "whole-folio vs per-page dirty charge of partially dirty large folios, and the FADV folio sizes (seed 003)",
            header: include_str!("folio_dirty_accounting.md"),
            properties: &[
                (CHARGE_EQUALS_WRITTEN, "pages charged equal pages written; at quiescence charged dirty equals the pages holding dirty blocks"),
                (OVER_ACCOUNTING_BOUND, "pages charged <= pages written x folio size / block size"),
            ],
            scope: scope_decl(),
            revisions: revision_infos::<FolioPolicy>(),
        }
    }

    fn model(&self, revision: &str, _checker: Checker, _tier: Tier) -> Result<FolioDirtyModel, String> {
        Ok(FolioDirtyModel { policy: parse_revision(NAME, revision)?, workload: workloads()[0] })
    }
}
