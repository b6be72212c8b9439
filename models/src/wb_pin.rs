#![doc = include_str!("wb_pin.md")]

use crate::bounds::Tier;
use crate::flusher::{flusher_size, Expedition, Flusher, FlusherBounds, FlusherEvent};
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx, IRQ_ENABLED_UNDER_LOCK};
use wb_core::dontcache::filemap_dontcache_kick_writeback;
use wb_core::folio::Folio;
use wb_core::fs_writeback::{inode_switch_wbs, inode_switch_wbs_work_fn};
use wb_core::inode::Inode;
use wb_core::page_writeback::filemap_dirty_folio;
use wb_core::revision::PinRevision;
use wb_core::revision::Revision;
use wb_core::sync::Platform;
use wb_core::trace::Trace;
use wb_core::wb::{cgwb_kill, wb_get, Bdi, Wb, REFCOUNT, USE_AFTER_FREE};

pub const NAME: &str = <PinRevision as Revision>::SCENARIO;
pub use wb_core::property::{EXPEDITION, NO_IDLE_SPIN, QUIESCENCE};
const PROPERTIES: &[&str] = &[USE_AFTER_FREE, IRQ_ENABLED_UNDER_LOCK, REFCOUNT, EXPEDITION, QUIESCENCE, NO_IDLE_SPIN];

/// The old (killed) and the new cgroup wb.
pub const OLD_WB: usize = 1;
pub const NEW_WB: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinConfig {
    pub writers: usize,
    pub ops_per_writer: usize,
    pub nr_cpus: usize,
    pub batch: i32,
    pub flusher: FlusherBounds,
    /// shuttle: the kworker serves until the others are done; loom: its looks, then the drain.
    pub serve: bool,
}

impl PinConfig {
    /// The kworker's looks are the flusher's bound: one in the quick tier, two in the scope and
    /// deep tiers (one look already runs each wb's queued run once, after any of the writer's and
    /// the switcher's steps; a second lets a run start before and another after them). Its runs
    /// are on kworkers only: the rescuer is dontcache-kick's subject, and nothing of the switch
    /// depends on which worker runs a run.
    pub fn loom(tier: Tier) -> PinConfig {
        let looks = if tier == Tier::Quick { 1 } else { 2 };
        let flusher = FlusherBounds { looks, rescuer_streak: 0, max_runs: 4 * looks + 4 };
        PinConfig { writers: 1, ops_per_writer: 1, nr_cpus: 2, batch: 4, flusher, serve: false }
    }

    pub fn shuttle(_tier: Tier) -> PinConfig {
        let flusher = FlusherBounds { looks: 0, rescuer_streak: 0, max_runs: 16 };
        PinConfig { writers: 2, ops_per_writer: 2, nr_cpus: 2, batch: 4, flusher, serve: true }
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

impl Model for PinModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let cfg = self.config;
        let rev = self.revision;
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        let bdi = Arc::new(Bdi::<P>::new(2, cfg.nr_cpus, cfg.batch, cfg.writers + 4).with_knobs(rev.knobs()));
        let folios: Vec<_> = (0..cfg.folios()).map(|i| Arc::new(Folio::new(i as u64, 1, true))).collect();
        let inode = Arc::new(Inode::new(0, bdi.clone(), OLD_WB, true, folios));
        wb_get(&setup, bdi.wb(OLD_WB)); // the inode's association reference
        cgwb_kill(&setup, bdi.wb(OLD_WB));
        let kicked = Arc::new(Expedition::new(inode.folios.iter().cloned(), false));
        let flusher = Arc::new(Flusher::<P>::new(cfg.flusher, cfg.writers + 1));

        let mut handles = Vec::new();
        for (w, &plan) in plans.iter().enumerate().take(cfg.writers) {
            let (inode, trace, kicked, flusher) = (inode.clone(), trace.clone(), kicked.clone(), flusher.clone());
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, WRITER_NAMES[w], plan);
                for op in 0..cfg.ops_per_writer {
                    let folio = &inode.folios[w * cfg.ops_per_writer + op];
                    flusher.call(w, || {
                        filemap_dirty_folio(&ctx, &inode, folio);
                        filemap_dontcache_kick_writeback(&ctx, &inode);
                        kicked.kicked(folio, flusher.epoch());
                    });
                }
                flusher.thread_done(w);
            }));
        }
        {
            let (inode, trace, flusher, plan) = (inode.clone(), trace.clone(), flusher.clone(), plans[cfg.writers]);
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "switcher", plan);
                let me = cfg.writers;
                if flusher.call(me, || inode_switch_wbs(&ctx, &inode, NEW_WB)) {
                    flusher.call(me, || inode_switch_wbs_work_fn(&ctx, &inode, NEW_WB));
                }
                flusher.thread_done(me);
            }));
        }
        {
            let (inode, trace, kicked, flusher, plan) =
                (inode.clone(), trace.clone(), kicked.clone(), flusher.clone(), plans[cfg.writers + 1]);
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "kworker", plan);
                let wbs = [inode.bdi.wb(OLD_WB), inode.bdi.wb(NEW_WB)];
                let observe = |e: FlusherEvent<'_>| kicked.observe(e);
                if cfg.serve {
                    flusher.serve(&ctx, &wbs, &[&inode], &observe);
                } else {
                    (0..cfg.flusher.looks).for_each(|_| flusher.look(&ctx, &wbs, &[&inode], &observe));
                }
            }));
        }
        handles.into_iter().for_each(P::join);

        let wbs = [bdi.wb(OLD_WB), bdi.wb(NEW_WB)];
        let ctx = Ctx::<P>::new(trace.clone(), "kworker", plans[cfg.writers + 1]);
        let observe = |e: FlusherEvent<'_>| kicked.observe(e);
        if !cfg.serve {
            flusher.drain(&ctx, &wbs, &[&inode], &observe);
        }
        let mut violations: Vec<Violation> = Vec::new();
        let mut note = |property: &'static str, message: String| {
            if !violations.iter().any(|v| v.property == property) {
                violations.push(Violation { property, message });
            }
        };
        for d in trace.detected() {
            note(d.property, d.message);
        }
        for v in flusher.violations(&wbs) {
            note(v.property, v.message);
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
        let live: Vec<&Wb<P>> = wbs.iter().copied().filter(|wb| wb.life() == wb_core::wb::Life::Live).collect();
        if let Some(message) = kicked.violation(&ctx, &live, &[&inode]).filter(|_| flusher.timing_judged()) {
            note(EXPEDITION, message);
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
        v.extend(flusher_size(&c.flusher, c.serve));
        v
    }
}

/// The declared scope of wb-pin.
pub fn scope_decl() -> ScopeDecl {
    let role = |name, runs, callers| RoleDecl { name, runs, callers };
    ScopeDecl {
        roles: vec![
            role("writer", "filemap_dirty_folio (a DONTCACHE folio), then filemap_dontcache_kick_writeback with the revision's pinning", "generic_perform_write with IOCB_DONTCACHE, then generic_write_sync"),
            role("switcher", "inode_switch_wbs, then its work (synchronize_rcu, inode_do_switch_wbs, wb_wakeup, puts)", "cgroup writeback's foreign-owner switch (wbc_detach_inode); cleanup_offline_cgwb (memcg offline), which switches only inodes on b_attached or b_dirty_time: clean, or dirty only in timestamps, when the switch is prepared"),
            role("kworker", "the runs of wb1's and wb2's wb_workfn on the worklist (consume, writeback of the inode), the timers the runs and the first dirty inode arm", "bdi_wq's kworkers (models/src/flusher.rs)"),
        ],
        counts: "loom: one writer with one operation, the switcher, the kworker with one look over both wbs (quick) or two (scope, deep) and then the drain (runs until none is queued, at most 4 per look + 4); shuttle: two writers with two operations each, the kworker serving the worklist until the others are done and nothing is queued (at most 16 runs)",
        sharing: "one inode on cgroup wb1 switching to wb2, its folios (one per operation)",
        initial: "wb1's memcg offline (cgwb_kill dropped the initial reference: the inode's is the last), the inode clean, nothing queued",
        excluded: "an old wb whose memcg is online (its initial reference keeps every put from being the last: the lifetime properties cannot fail there, and the kick lost across the switch is the same one); a second switch (I_WB_SWITCH makes it return); other inodes on the wbs (dontcache-kick's subject)",
        bounds: "loom: 2 CPUs, batch 4, one placement (writer cpu0, switcher and kworker cpu1); runs on kworkers only; preemption bound 2 (quick), 3 (scope), 4 (deep). shuttle: 10,000 / 50,000 / 200,000 iterations. oracle: every interleaving of whole calls, two writers (three deep), the kworker's two looks over both wbs and then its drain",
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
                (EXPEDITION, "every page a writer counted and kicked for is written by an immediate flusher run of the wb that holds it (not one only the timer caused)"),
                (QUIESCENCE, "once the writer and the switcher are done, at most 2 flusher runs start and no run is left queued"),
                (NO_IDLE_SPIN, "a flusher run that wrote nothing does not queue itself again for immediate execution"),
            ],
            scope: scope_decl(),
            revisions: revision_infos::<PinRevision>(),
        }
    }

    fn model(&self, revision: &str, checker: Checker, tier: Tier) -> Result<PinModel, String> {
        Ok(Self::model_for(parse_revision(NAME, revision)?, checker, tier))
    }
}
