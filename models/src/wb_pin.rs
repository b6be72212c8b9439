#![doc = include_str!("wb_pin.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::sync::atomic::{AtomicI64, Ordering as StdOrdering};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx, IRQ_ENABLED_UNDER_LOCK};
use wb_core::dontcache::{filemap_dontcache_kick_writeback, wb_workfn, RunOn};
use wb_core::folio::Folio;
use wb_core::fs_writeback::{inode_switch_wbs, inode_switch_wbs_work_fn};
use wb_core::inode::Inode;
use wb_core::page_writeback::filemap_dirty_folio;
use wb_core::revision::PinRevision;
use wb_core::revision::Revision;
use wb_core::sync::{Atomic, Ordering, Platform};
use wb_core::trace::Trace;
use wb_core::wb::{
    cgwb_kill, wb_get, Bdi, Life, Wb, WbStatItem, WorkStart, REFCOUNT, USE_AFTER_FREE, WB_START_DONTCACHE,
};

pub const NAME: &str = <PinRevision as Revision>::SCENARIO;
pub use wb_core::property::LOST_WAKEUP;
const PROPERTIES: &[&str] = &[USE_AFTER_FREE, IRQ_ENABLED_UNDER_LOCK, REFCOUNT, LOST_WAKEUP];

/// The old (killed) and the new cgroup wb.
pub const OLD_WB: usize = 1;
pub const NEW_WB: usize = 2;

/// How the kworker runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kworker {
    /// A fixed number of passes over the work items (loom).
    Passes(usize),
    /// Until the writers and the switcher are done and nothing is queued (shuttle only: it learns
    /// that through an extra atomic).
    Worker,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinConfig {
    pub writers: usize,
    pub ops_per_writer: usize,
    pub nr_cpus: usize,
    pub batch: i32,
    pub kworker: Kworker,
}

impl PinConfig {
    /// The kworker's passes are the flusher's bound: one in the quick tier, two in the scope and
    /// deep tiers (one pass already runs each wb's queued run once, after any of the writer's and
    /// the switcher's steps; a second lets a run start before and another after them).
    pub fn loom(tier: Tier) -> PinConfig {
        let passes = if tier == Tier::Quick { 1 } else { 2 };
        PinConfig { writers: 1, ops_per_writer: 1, nr_cpus: 2, batch: 4, kworker: Kworker::Passes(passes) }
    }

    pub fn shuttle(_tier: Tier) -> PinConfig {
        PinConfig { writers: 2, ops_per_writer: 2, nr_cpus: 2, batch: 4, kworker: Kworker::Worker }
    }

    fn folios(&self) -> usize {
        self.writers * self.ops_per_writer
    }
}

#[derive(Debug, Clone, Copy)]
pub struct PinModel {
    pub revision: PinRevision,
    pub config: PinConfig,
}

const WRITER_NAMES: [&str; 8] =
    ["writer0", "writer1", "writer2", "writer3", "writer4", "writer5", "writer6", "writer7"];

/// One kworker pass: the queued flusher run of each cgroup wb, if any.
fn kworker_pass<P: Platform>(ctx: &Ctx<P>, inode: &Inode<P>, last: &[AtomicI64; 3]) {
    for id in [OLD_WB, NEW_WB] {
        let wb = inode.bdi.wb(id);
        let run = wb_workfn(ctx, wb, &[inode], WorkStart::Queued, RunOn::Worker);
        if let Some(nr) = run.and_then(|r| r.consumed) {
            last[wb.id].store(nr, StdOrdering::Relaxed);
        }
    }
}

impl Model for PinModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let cfg = self.config;
        let rev = self.revision;
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        let bdi = Arc::new(Bdi::<P>::new(2, cfg.nr_cpus, cfg.batch, cfg.writers + 3).with_knobs(rev.knobs()));
        let folios: Vec<_> = (0..cfg.folios()).map(|i| Arc::new(Folio::new(i as u64, 1, true))).collect();
        let inode = Arc::new(Inode::new(0, bdi.clone(), OLD_WB, true, folios));
        wb_get(&setup, bdi.wb(OLD_WB)); // the inode's association reference
        cgwb_kill(&setup, bdi.wb(OLD_WB));
        let last_consumed = Arc::new([AtomicI64::new(0), AtomicI64::new(0), AtomicI64::new(0)]);
        let done = Arc::new(P::AtomicUsize::new(0));

        let mut handles = Vec::new();
        for (w, &plan) in plans.iter().enumerate().take(cfg.writers) {
            let (inode, trace, done) = (inode.clone(), trace.clone(), done.clone());
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, WRITER_NAMES[w], plan);
                for op in 0..cfg.ops_per_writer {
                    let folio = &inode.folios[w * cfg.ops_per_writer + op];
                    filemap_dirty_folio(&ctx, &inode, folio);
                    filemap_dontcache_kick_writeback(&ctx, &inode);
                }
                if cfg.kworker == Kworker::Worker {
                    done.fetch_add(1, Ordering::SeqCst);
                }
            }));
        }
        {
            let (inode, trace, done, plan) = (inode.clone(), trace.clone(), done.clone(), plans[cfg.writers]);
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "switcher", plan);
                if inode_switch_wbs(&ctx, &inode, NEW_WB) {
                    inode_switch_wbs_work_fn(&ctx, &inode, NEW_WB);
                }
                if cfg.kworker == Kworker::Worker {
                    done.fetch_add(1, Ordering::SeqCst);
                }
            }));
        }
        {
            let (inode, trace, last, plan) =
                (inode.clone(), trace.clone(), last_consumed.clone(), plans[cfg.writers + 1]);
            let busy = cfg.writers + 1;
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "kworker", plan);
                match cfg.kworker {
                    Kworker::Passes(n) => (0..n).for_each(|_| kworker_pass(&ctx, &inode, &last)),
                    Kworker::Worker => loop {
                        let quiet = done.load(Ordering::SeqCst) == busy;
                        let queued = [OLD_WB, NEW_WB].iter().any(|&id| inode.bdi.wb(id).run_pending());
                        if queued {
                            kworker_pass(&ctx, &inode, &last);
                        } else if quiet {
                            break;
                        } else {
                            P::yield_now();
                        }
                    },
                }
            }));
        }
        handles.into_iter().for_each(P::join);

        let mut violations: Vec<Violation> = Vec::new();
        let mut note = |property: &'static str, message: String| {
            if !violations.iter().any(|v| v.property == property) {
                violations.push(Violation { property, message });
            }
        };
        for wb in bdi.wbs().iter().filter(|wb| !wb.is_root()) {
            if let Some(message) = lost_wakeup(wb, last_consumed[wb.id].load(StdOrdering::Relaxed)) {
                note(LOST_WAKEUP, message);
            }
        }
        for d in trace.detected() {
            note(d.property, d.message);
        }
        for wb in bdi.wbs().iter().filter(|wb| !wb.is_root()) {
            let holders = i64::from(wb.id != OLD_WB) + i64::from(inode.wb_id() == wb.id);
            let (count, frees) = (wb.refcount(), wb.frees());
            if count != holders || frees != u32::from(holders == 0) {
                note(
                    REFCOUNT,
                    format!("wb{} ends with refcnt {count} and {frees} free(s), but has {holders} holder(s)", wb.id),
                );
            }
        }
        violations
    }

    /// Bound 2 (quick), 3 (scope), 4 (deep): see the header's bounds for the cost.
    fn loom_preemptions(&self, tier: Tier) -> Option<usize> {
        Some(match tier {
            Tier::Quick => 2,
            Tier::Scope => 3,
            Tier::Deep => 4,
        })
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        let mut p: Vec<CpuPlan> = (0..self.config.writers).map(|_| CpuPlan::Fixed(0)).collect();
        p.extend([CpuPlan::Fixed(1), CpuPlan::Fixed(1)]);
        vec![p]
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        let drawn = CpuPlan::Drawn { nr_cpus: self.config.nr_cpus };
        (0..self.config.writers + 2).map(|_| drawn).collect()
    }

    fn placement_label(&self, plans: &[CpuPlan]) -> String {
        let n = self.config.writers;
        plans
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let who = if i < n {
                    WRITER_NAMES[i]
                } else if i == n {
                    "switcher"
                } else {
                    "kworker"
                };
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
            ("cpus".to_string(), c.nr_cpus as u64),
            ("batch".to_string(), c.batch as u64),
        ];
        if let Kworker::Passes(n) = c.kworker {
            v.push(("kworker_passes".to_string(), n as u64));
        }
        v
    }
}

/// `lost-wakeup` for one wb at quiescence.
fn lost_wakeup<P: Platform>(wb: &Wb<P>, last_consumed: i64) -> Option<String> {
    if wb.life() != Life::Live {
        return None;
    }
    let sum = wb.stat(WbStatItem::DontcacheDirty).raw_total();
    let bit = wb.state.test_bit(WB_START_DONTCACHE);
    if sum <= 0 || (bit && wb.run_pending()) || last_consumed >= sum {
        return None;
    }
    Some(format!(
        "wb{} holds {sum} dirty DONTCACHE page(s) at the end with WB_start_dontcache {} and {}; the last consume on wb{} read {last_consumed}: the pages wait for periodic writeback",
        wb.id,
        bit as u8,
        if wb.run_pending() { "a flusher run queued that will not expedite them" } else { "no flusher run queued" },
        wb.id
    ))
}

/// The declared scope of wb-pin.
pub fn scope_decl() -> ScopeDecl {
    let role = |name, runs, callers| RoleDecl { name, runs, callers };
    ScopeDecl {
        roles: vec![
            role("writer", "filemap_dirty_folio (a DONTCACHE folio), then filemap_dontcache_kick_writeback with the revision's pinning", "generic_perform_write with IOCB_DONTCACHE, then generic_write_sync"),
            role("switcher", "inode_switch_wbs, then its work (synchronize_rcu, inode_do_switch_wbs, wb_wakeup, puts)", "cgroup writeback's foreign-owner switch (wbc_detach_inode); cleanup_offline_cgwb (memcg offline), which switches only inodes on b_attached or b_dirty_time: clean, or dirty only in timestamps, when the switch is prepared"),
            role("kworker", "queued runs of wb1's and wb2's wb_workfn (consume, writeback of the inode)", "bdi_wq's kworkers"),
        ],
        counts: "loom: one writer with one operation, the switcher, the kworker with one pass over both wbs (quick) or two (scope, deep); shuttle: two writers with two operations each, the kworker running until nothing is queued",
        sharing: "one inode on cgroup wb1 switching to wb2, its folios (one per operation)",
        initial: "wb1's memcg offline (cgwb_kill dropped the initial reference: the inode's is the last), the inode clean, nothing queued",
        excluded: "an old wb whose memcg is online (its initial reference keeps every put from being the last: the lifetime properties cannot fail there, and the kick lost across the switch is the same one); a second switch (I_WB_SWITCH makes it return); other inodes on the wbs (dontcache-kick's subject)",
        bounds: "loom: 2 CPUs, batch 4, one placement (writer cpu0, switcher and kworker cpu1); preemption bound 3 (quick, scope: v6-unpinned's use-after-free needs 3), 4 (deep). shuttle: 10,000 / 50,000 / 200,000 iterations. oracle: every interleaving of whole calls, two writers (three deep)",
        configurations: vec!["writer + switcher + kworker; wb1 killed, inode clean".into()],
    }
}

pub struct WbPin;

impl WbPin {
    pub fn model_for(revision: PinRevision, checker: Checker, tier: Tier) -> PinModel {
        let config = match checker {
            Checker::Loom => PinConfig::loom(tier),
            _ => PinConfig::shuttle(tier),
        };
        PinModel { revision, config }
    }
}

impl ModelScenario for WbPin {
    type Model = PinModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "the kick's wb across a cgroup wb switch: pinning, IRQ state, a kick lost in transit (seed 002 patch 3)",
            header: include_str!("wb_pin.md"),
            properties: &[
                (USE_AFTER_FREE, "no stats touched after wb_exit, nothing touched after the RCU-deferred free"),
                (IRQ_ENABLED_UNDER_LOCK, "interrupts are never re-enabled while an irqsave lock is held"),
                (REFCOUNT, "no underflow; at the end each wb's count equals its holders and it was freed once iff it has none"),
                (LOST_WAKEUP, "at the end every live wb with dirty DONTCACHE pages has its kick bit set and a run queued, or its last consume read them"),
            ],
            scope: scope_decl(),
            revisions: revision_infos::<PinRevision>(),
        }
    }

    fn model(&self, revision: &str, checker: Checker, tier: Tier) -> Result<PinModel, String> {
        Ok(Self::model_for(parse_revision(NAME, revision)?, checker, tier))
    }
}
