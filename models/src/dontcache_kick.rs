#![doc = include_str!("dontcache_kick.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use std::sync::atomic::{AtomicI64, Ordering as StdOrdering};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::dontcache::{filemap_dontcache_kick_writeback, wb_workfn};
use wb_core::folio::Folio;
use wb_core::inode::Inode;
use wb_core::page_writeback::filemap_dirty_folio;
use wb_core::revision::{KickPin, KickRevision};
use wb_core::sync::{Atomic, Ordering, Platform};
use wb_core::trace::Trace;
use wb_core::wb::{Bdi, Wb, WorkStart, WB_START_DONTCACHE};

pub const NAME: &str = "dontcache-kick";
pub const LOST_WAKEUP: &str = "lost-wakeup";
const PROPERTIES: &[&str] = &[LOST_WAKEUP];

/// How the flusher runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flusher {
    /// A fixed number of `wb_workfn` runs, each queued by `wb_wakeup` or standing for a timer
    /// run (loom: no spin-waiting).
    Passes(usize),
    /// A worker that runs whenever a run is queued, until the writers are done and none is
    /// queued (shuttle only: it learns about the writers through an extra atomic).
    Worker,
}

/// The size of one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KickConfig {
    pub writers: usize,
    pub ops_per_writer: usize,
    pub pages_per_folio: u32,
    pub nr_cpus: usize,
    /// The percpu batch of `wb_stat_mod` (the kernel's WB_STAT_BATCH is 16 for 2 CPUs).
    pub batch: i32,
    pub flusher: Flusher,
}

impl KickConfig {
    /// The loom size. The deep tier keeps it and raises the preemption bound (3 to 4, from
    /// [`Bounds`]): 3 writers at bound 3 did not finish one placement in 200 s (8.8 million
    /// executions over three placements in 10 minutes); at bound 2 they took 10 s.
    pub fn loom(_tier: Tier) -> KickConfig {
        KickConfig {
            writers: 2,
            ops_per_writer: 1,
            pages_per_folio: 1,
            nr_cpus: 2,
            batch: 2,
            flusher: Flusher::Passes(2),
        }
    }

    pub fn shuttle(_tier: Tier) -> KickConfig {
        KickConfig { writers: 4, ops_per_writer: 3, pages_per_folio: 1, nr_cpus: 2, batch: 4, flusher: Flusher::Worker }
    }

    pub fn total_pages(&self) -> i64 {
        (self.writers * self.ops_per_writer) as i64 * i64::from(self.pages_per_folio)
    }
}

/// One scenario instance: a revision at a size.
#[derive(Debug, Clone, Copy)]
pub struct KickModel {
    pub revision: KickRevision,
    pub config: KickConfig,
}

impl Model for KickModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let cfg = self.config;
        let rev = self.revision;
        // The root wb of one bdi; RCU state for the writers and the flusher.
        let bdi = Arc::new(Bdi::<P>::new(0, cfg.nr_cpus, cfg.batch, cfg.writers + 1));
        let writers_done = Arc::new(P::AtomicUsize::new(0));
        // Ghost state (not kernel state): what the last consume that cleared the bit read.
        let last_consumed = Arc::new(AtomicI64::new(0));

        let mut handles = Vec::with_capacity(cfg.writers + 1);
        for (w, &plan) in plans.iter().enumerate().take(cfg.writers) {
            let (bdi, trace, done) = (bdi.clone(), trace.clone(), writers_done.clone());
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, WRITER_NAMES[w], plan);
                let folios: Vec<_> = (0..cfg.ops_per_writer)
                    .map(|op| Arc::new(Folio::new(op as u64, cfg.pages_per_folio, true)))
                    .collect();
                let inode = Inode::new(w as u32, bdi, 0, true, folios);
                for folio in &inode.folios {
                    filemap_dirty_folio(&ctx, &inode, folio, rev.writer_smp_mb());
                    filemap_dontcache_kick_writeback(&ctx, &inode, rev.kick(), KickPin::GetWakePut);
                }
                if cfg.flusher == Flusher::Worker {
                    done.fetch_add(1, Ordering::SeqCst);
                }
            }));
        }
        {
            let (bdi, trace, done, last) = (bdi.clone(), trace.clone(), writers_done.clone(), last_consumed.clone());
            let plan = plans[cfg.writers];
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "flusher", plan);
                let wb = bdi.wb(0);
                // No inodes for wb_writeback: writeback does not change the counter here.
                let pass = |ctx: &Ctx<P>, start: WorkStart| {
                    let run = wb_workfn(ctx, wb, rev.consume(), &[], start);
                    if let Some(nr) = run.and_then(|r| r.consumed) {
                        last.store(nr, StdOrdering::Relaxed);
                    }
                    run.is_some()
                };
                match cfg.flusher {
                    Flusher::Passes(n) => (0..n).for_each(|_| {
                        pass(&ctx, WorkStart::Periodic);
                    }),
                    Flusher::Worker => loop {
                        if pass(&ctx, WorkStart::Queued) {
                            continue;
                        } else if done.load(Ordering::SeqCst) == cfg.writers && !wb.run_pending() {
                            break;
                        } else {
                            P::yield_now();
                        }
                    },
                }
            }));
        }
        handles.into_iter().for_each(P::join);

        check_lost_wakeup(bdi.wb(0), last_consumed.load(StdOrdering::Relaxed), cfg.total_pages())
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        let n = self.config.writers;
        let flusher = CpuPlan::Fixed(0);
        let same: Vec<CpuPlan> = (0..n).map(|_| CpuPlan::Fixed(0)).chain([flusher]).collect();
        let spread: Vec<CpuPlan> = (0..n).map(|w| CpuPlan::Fixed(w % 2)).chain([flusher]).collect();
        let mut migrating = spread.clone();
        migrating[0] = CpuPlan::Migrate { from: 0, to: 1 };
        vec![spread, migrating, same]
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        let drawn = CpuPlan::Drawn { nr_cpus: self.config.nr_cpus };
        (0..self.config.writers).map(|_| drawn).chain([CpuPlan::Fixed(0)]).collect()
    }

    fn placement_label(&self, plans: &[CpuPlan]) -> String {
        plans
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let who = if i < self.config.writers { WRITER_NAMES[i] } else { "flusher" };
                format!("{who} {}", p.describe())
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn size(&self) -> Vec<(String, u64)> {
        let c = self.config;
        let mut v = vec![
            ("writers".to_string(), c.writers as u64),
            ("ops_per_writer".to_string(), c.ops_per_writer as u64),
            ("pages_per_folio".to_string(), u64::from(c.pages_per_folio)),
            ("cpus".to_string(), c.nr_cpus as u64),
            ("batch".to_string(), c.batch as u64),
        ];
        if let Flusher::Passes(n) = c.flusher {
            v.push(("flusher_passes".to_string(), n as u64));
        }
        v
    }
}

const WRITER_NAMES: [&str; 8] =
    ["writer0", "writer1", "writer2", "writer3", "writer4", "writer5", "writer6", "writer7"];

/// The `lost-wakeup` property at quiescence.
fn check_lost_wakeup<P: Platform>(wb: &Wb<P>, last_consumed: i64, total: i64) -> Vec<Violation> {
    let message = if wb.state.test_bit(WB_START_DONTCACHE) {
        if wb.run_pending() {
            return Vec::new();
        }
        format!(
            "WB_start_dontcache is set at the end but no flusher run is queued: {total} dirty DONTCACHE pages wait for periodic writeback"
        )
    } else {
        if last_consumed == total {
            return Vec::new();
        }
        format!(
            "WB_start_dontcache is clear at the end and no run is coming, but the last consume that cleared it read {last_consumed} pages; the writers dirtied {total}: {} pages wait for periodic writeback",
            total - last_consumed
        )
    };
    vec![Violation { property: LOST_WAKEUP, message }]
}

/// The registry entry.
pub struct DontcacheKick;

fn expected(rev: KickRevision) -> [&'static [&'static str]; 4] {
    const F: &[&str] = &[LOST_WAKEUP];
    const P: &[&str] = &[];
    // loom, shuttle-pct, shuttle-random, oracle
    match rev {
        KickRevision::V7 | KickRevision::V7Posted | KickRevision::V7NoMb => [P, P, P, P],
        KickRevision::V7PostedNoMb => [F, P, P, P],
        KickRevision::V5LateClear => [F, F, F, P],
        KickRevision::V5ApproxRead => [F, F, F, F],
    }
}

impl DontcacheKick {
    pub fn model_for(revision: KickRevision, checker: Checker, tier: Tier) -> KickModel {
        let config = match checker {
            Checker::Loom => KickConfig::loom(tier),
            _ => KickConfig::shuttle(tier),
        };
        KickModel { revision, config }
    }
}

impl ModelScenario for DontcacheKick {
    type Model = KickModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "can the RWF_DONTCACHE flusher kick lose a wakeup? (seed 002 patch 3)",
            header: include_str!("dontcache_kick.md"),
            properties: &[(
                LOST_WAKEUP,
                "at the end: WB_start_dontcache set => a flusher run is queued; clear => the last consume that cleared it read every dirtied page",
            )],
            revisions: revision_infos(expected),
        }
    }

    fn model(&self, revision: &str, checker: Checker, tier: Tier) -> Result<KickModel, String> {
        Ok(Self::model_for(parse_revision(NAME, revision)?, checker, tier))
    }
}
