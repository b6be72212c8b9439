#![doc = include_str!("foreign_policy.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::sync::atomic::{AtomicBool, Ordering as Ghost};
use std::sync::Arc;
use wb_core::bdev::{BdevFlush, DeviceRegistry};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::memcg::{ForeignFlush, ForeignTarget, MemcgForeign};
use wb_core::revision::ForeignPolicy;
use wb_core::revision::Revision;
use wb_core::sync::Platform;
use wb_core::trace::Trace;

pub const NAME: &str = <ForeignPolicy as Revision>::SCENARIO;
pub use wb_core::property::FLUSH_SCOPE;
pub use wb_core::property::PRESSURE_RELIEF;
const PROPERTIES: &[&str] = &[FLUSH_SCOPE, PRESSURE_RELIEF];

/// The shared block device's number, the bdi id, and the owner wb of the bdev inode (the root
/// wb: bdi 1, root memcg 1).
pub const DEV: i64 = 1;
pub const OWNER: (i64, i64) = (1, 1);
pub const MEMCGS: usize = 2;

/// Ghost record of what one memcg's flushes did.
#[derive(Default)]
pub struct FlushLog {
    /// A writeback of the bdev mapping was requested (by an owner-wb flush or `bdev_flush_by_dev`).
    pub bdev_writeback: AtomicBool,
    /// An owner-wide flush caused by a bdev record wrote the owner wb's other inodes.
    pub wrote_beyond_bdev: AtomicBool,
    /// A flush found the device closed or its open_mutex busy: no relief is owed for it.
    pub excused: AtomicBool,
}

/// One memcg's thread: it dirties a bdev page, then is throttled.
pub fn memcg_thread<P: Platform>(
    ctx: &Ctx<P>,
    memcg: &MemcgForeign<P>,
    devices: &DeviceRegistry<P>,
    log: &FlushLog,
    now: i64,
) {
    memcg_dirty(ctx, memcg, now);
    memcg_throttle(ctx, memcg, devices, log, now + 1);
}

/// A foreign dirtying of a bdev page (the bdev inode's wb is the root wb's):
/// `mem_cgroup_track_foreign_dirty_slowpath`.
pub fn memcg_dirty<P: Platform>(ctx: &Ctx<P>, memcg: &MemcgForeign<P>, now: i64) {
    memcg.track(ctx, ForeignTarget { owner: OWNER, bdev: Some(DEV) }, now, 2);
}

/// Throttled in `balance_dirty_pages`, which calls `mem_cgroup_flush_foreign`; the queued
/// flushes run.
pub fn memcg_throttle<P: Platform>(
    ctx: &Ctx<P>,
    memcg: &MemcgForeign<P>,
    devices: &DeviceRegistry<P>,
    log: &FlushLog,
    now: i64,
) {
    for flush in memcg.flush(ctx, now, 10) {
        match flush {
            ForeignFlush::OwnerWb { slot, owner } => {
                ctx.event(
                    "cgroup_writeback_by_id",
                    "bdi {} memcg {}: wb_queue_work on the owner wb: writes every dirty inode of the root wb (the bdev mapping and the hot file)",
                    &[owner.0, owner.1],
                );
                log.bdev_writeback.store(true, Ghost::Relaxed);
                log.wrote_beyond_bdev.store(true, Ghost::Relaxed);
                memcg.frn.flush_done(ctx, slot);
            }
            ForeignFlush::Bdev { slot, dev } => {
                match devices.bdev_flush_by_dev(ctx, dev as usize) {
                    BdevFlush::Flushed(_) => log.bdev_writeback.store(true, Ghost::Relaxed),
                    _ => log.excused.store(true, Ghost::Relaxed),
                }
                memcg.bdev.flush_done(ctx, slot);
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct PolicyModel {
    pub policy: ForeignPolicy,
}

impl Model for PolicyModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let devices = Arc::new(DeviceRegistry::<P>::new(1));
        let memcgs: Vec<Arc<MemcgForeign<P>>> =
            (0..MEMCGS).map(|_| Arc::new(MemcgForeign::new(2, self.policy))).collect();
        let logs: Vec<Arc<FlushLog>> = (0..MEMCGS).map(|_| Arc::new(FlushLog::default())).collect();
        let handles: Vec<_> = (0..MEMCGS)
            .map(|m| {
                let (memcg, devices, log, trace, plan) =
                    (memcgs[m].clone(), devices.clone(), logs[m].clone(), trace.clone(), plans[m]);
                P::spawn(move || {
                    let ctx = Ctx::<P>::new(trace, ["memcg1", "memcg2"][m], plan);
                    memcg_thread(&ctx, &memcg, &devices, &log, 3 + m as i64);
                })
            })
            .collect();
        handles.into_iter().for_each(P::join);
        let mut v = Vec::new();
        if let Some(m) = logs.iter().position(|l| l.wrote_beyond_bdev.load(Ghost::Relaxed)) {
            v.push(Violation {
                property: FLUSH_SCOPE,
                message: format!("memcg{}'s foreign flush, caused by dirtying the bdev mapping, wrote back the whole owner wb (the hot file too)", m + 1),
            });
        }
        // Every memcg's foreign dirty pages are bdev pages and the device stays open: relief is
        // owed unless the flush found open_mutex busy (another memcg's flush holding it).
        if let Some(m) =
            logs.iter().position(|l| !l.bdev_writeback.load(Ghost::Relaxed) && !l.excused.load(Ghost::Relaxed))
        {
            v.push(Violation {
                property: PRESSURE_RELIEF,
                message: format!("memcg{} was throttled with only foreign bdev pages dirty and the device open, but no writeback of the bdev mapping was requested", m + 1),
            });
        }
        v
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        vec![vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1)]]
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1)]
    }

    fn placement_label(&self, _plans: &[CpuPlan]) -> String {
        "memcg1 cpu0, memcg2 cpu1".into()
    }

    fn size(&self) -> Vec<(String, u64)> {
        vec![("memcgs".into(), MEMCGS as u64)]
    }
}

/// The declared scope of foreign-policy.
pub fn scope_decl() -> ScopeDecl {
    let role = |name, runs, callers| RoleDecl { name, runs, callers };
    ScopeDecl {
        roles: vec![role("memcg", "dirty a bdev page (foreign), then mem_cgroup_flush_foreign with its queued writeback", "balance_dirty_pages of a task in a memcg writing a block device's page cache")],
        counts: "two memcgs",
        sharing: "one block device (its bdev inode on the root wb), one hot ordinary file on the root wb",
        initial: "the device open, its open_mutex free, the file dirty",
        excluded: "several dirtiers per memcg (the slot tables' races: scenario bdev-slots)",
        bounds: "loom: the tier's preemption bound; shuttle: the tier's iterations; oracle: every interleaving of whole calls",
        configurations: vec!["memcg1 + memcg2 on one device".into()],
    }
}

pub struct ForeignPolicyScenario;

impl ModelScenario for ForeignPolicyScenario {
    type Model = PolicyModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "owner-wide foreign flush vs skip-bdev (seed 000) vs separate-bdev (seed 001)",
            header: include_str!("foreign_policy.md"),
            properties: &[
                (FLUSH_SCOPE, "a flush caused by bdev dirtying writes only the bdev mapping"),
                (PRESSURE_RELIEF, "a throttled memcg whose foreign dirty pages are bdev pages gets a writeback of the bdev mapping requested"),
            ],
            scope: scope_decl(),
            revisions: revision_infos::<ForeignPolicy>(),
        }
    }

    fn model(&self, revision: &str, _checker: Checker, _tier: Tier) -> Result<PolicyModel, String> {
        Ok(PolicyModel { policy: parse_revision(NAME, revision)? })
    }
}
