#![doc = include_str!("bdev_slots.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::collections::BTreeSet;
use std::sync::Arc;
use wb_core::bdev::{BdevFlush, DeviceRegistry, NO_CLOSED_DEVICE_FLUSH};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::memcg::{ForeignTable, INFLIGHT_BOUND, NO_INFLIGHT_OVERWRITE, OLDEST_REPLACED};
use wb_core::revision::Revision;
use wb_core::revision::SlotRevision;
use wb_core::sync::Platform;
use wb_core::trace::Trace;

pub const NAME: &str = <SlotRevision as Revision>::SCENARIO;
pub use wb_core::property::ALL_TRACKED;
pub use wb_core::property::RECORD_INTEGRITY;
const PROPERTIES: &[&str] =
    &[NO_INFLIGHT_OVERWRITE, ALL_TRACKED, OLDEST_REPLACED, RECORD_INTEGRITY, NO_CLOSED_DEVICE_FLUSH, INFLIGHT_BOUND];

/// Slots per memcg (the baseline's MEMCG_CGWB_FRN_CNT is 4; shrunk).
pub const CAPACITY: usize = 2;
/// Device numbers in the registry: 1..=DEVICES (0 is no device, an empty slot's key).
pub const DEVICES: usize = 3;
/// `update_intv` and the flush window (`dirty_expire_interval`), in model jiffies.
pub const UPDATE_INTV: i64 = 2;
pub const EXPIRE_INTV: i64 = 10;

/// One thread's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `mem_cgroup_track_foreign_dirty_slowpath` of a bdev folio of device `dev` at `now`.
    Track { dev: usize, now: i64 },
    /// `mem_cgroup_flush_foreign` at `now`: queue flushes of the recent idle slots.
    Flush { now: i64 },
    /// The dedicated workqueue runs the flushes this thread queued: `bdev_flush_by_dev`, then
    /// completion (`done.cnt -= 1`).
    Work,
    /// The last opener of `dev` closes it.
    Close { dev: usize },
    /// `dev` is removed and its number reused by another (closed) device.
    Reuse { dev: usize },
}

/// A program: per-thread calls and the table's records before they start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub threads: Vec<(&'static str, Vec<Call>)>,
    /// (dev, at) records in slots 0.. before the threads start.
    pub prefill: Vec<(usize, i64)>,
}

impl Program {
    /// Every device the program records: the prefill's and the tracks'.
    pub fn recorded_devices(&self) -> BTreeSet<i64> {
        let tracked = self.threads.iter().flat_map(|(_, calls)| {
            calls.iter().filter_map(|c| if let Call::Track { dev, .. } = c { Some(*dev as i64) } else { None })
        });
        self.prefill.iter().map(|&(d, _)| d as i64).chain(tracked).collect()
    }

    /// The program as a configuration label.
    pub fn label(&self) -> String {
        let threads: Vec<String> = self.threads.iter().map(|(name, calls)| format!("{name} {calls:?}")).collect();
        format!("{}; prefilled {:?}", threads.join(" || "), self.prefill)
    }
}

/// loom: role sets small enough to explore exhaustively.
pub fn loom_programs() -> Vec<Program> {
    use Call::*;
    vec![
        // Two trackers of new devices into an empty table, at different times: both may choose
        // slot 0, and a slot that mixes their stores is a record neither wrote.
        Program {
            threads: vec![("tracker0", vec![Track { dev: 1, now: 5 }]), ("tracker1", vec![Track { dev: 2, now: 6 }])],
            prefill: vec![],
        },
        // A tracker replacing the oldest slot while a flusher queues that slot's flush.
        Program {
            threads: vec![("tracker0", vec![Track { dev: 3, now: 5 }]), ("flusher", vec![Flush { now: 5 }, Work])],
            prefill: vec![(1, 1), (2, 2)],
        },
        // A flush racing the device's close and the reuse of its number.
        Program {
            threads: vec![
                ("flusher", vec![Flush { now: 5 }, Work]),
                ("devmgr", vec![Close { dev: 1 }, Reuse { dev: 1 }]),
            ],
            prefill: vec![(1, 4)],
        },
    ]
}

/// shuttle: each execution draws one of these programs (the draw is replayed).
pub fn shuttle_programs() -> Vec<Program> {
    use Call::*;
    let within_capacity = Program {
        threads: vec![
            ("tracker0", vec![Track { dev: 1, now: 3 }, Track { dev: 2, now: 6 }]),
            ("tracker1", vec![Track { dev: 2, now: 3 }, Track { dev: 1, now: 6 }]),
            ("tracker2", vec![Track { dev: 1, now: 4 }]),
            ("flusher", vec![Flush { now: 5 }, Work]),
        ],
        prefill: vec![],
    };
    let mixture = Program {
        threads: vec![
            ("tracker0", vec![Track { dev: 1, now: 3 }, Track { dev: 3, now: 6 }]),
            ("tracker1", vec![Track { dev: 2, now: 3 }, Track { dev: 1, now: 6 }]),
            ("flusher", vec![Flush { now: 4 }, Work, Flush { now: 7 }, Work]),
            ("devmgr", vec![Close { dev: 2 }, Reuse { dev: 2 }]),
        ],
        prefill: vec![],
    };
    vec![within_capacity, mixture]
}

#[derive(Debug, Clone)]
pub struct SlotsModel {
    pub revision: SlotRevision,
    pub program: Program,
    pub variants: Vec<Program>,
}

/// Run one call of a thread; `queued` is the thread's flushes waiting for [`Call::Work`].
pub fn run_call<P: Platform>(
    ctx: &Ctx<P>,
    call: Call,
    queued: &mut Vec<(usize, i64)>,
    table: &ForeignTable<P>,
    devices: &DeviceRegistry<P>,
) {
    match call {
        Call::Track { dev, now } => {
            table.track(ctx, (dev as i64, 0), now, UPDATE_INTV);
        }
        Call::Flush { now } => {
            queued.extend(table.flush(ctx, now, EXPIRE_INTV).into_iter().map(|(slot, (dev, _))| (slot, dev)))
        }
        Call::Work => {
            for (slot, dev) in queued.drain(..) {
                if let BdevFlush::Flushed(g) = devices.bdev_flush_by_dev(ctx, dev as usize) {
                    if g != dev {
                        ctx.event("bdev_flush_by_dev", "(accepted) the record's number now names another device", &[]);
                    }
                }
                table.flush_done(ctx, slot);
            }
        }
        Call::Close { dev } => devices.close(ctx, dev),
        Call::Reuse { dev } => devices.remove_and_reuse(ctx, dev),
    }
}

/// The end-of-run properties of the table: `all-tracked-within-capacity` and `record-integrity`.
pub fn table_properties<P: Platform>(table: &ForeignTable<P>, program: &Program) -> Vec<Violation> {
    let mut v = Vec::new();
    let recorded = program.recorded_devices();
    let held: BTreeSet<i64> = table.contents().iter().map(|((d, _), _, _)| *d).collect();
    if recorded.len() <= table.capacity() {
        let lost: Vec<i64> = recorded.iter().filter(|d| !held.contains(d)).copied().collect();
        if !lost.is_empty() {
            v.push(Violation {
                property: ALL_TRACKED,
                message: format!(
                    "{} distinct devices were recorded into {} slots, but dev {:?} is not held: {:?}",
                    recorded.len(),
                    table.capacity(),
                    lost,
                    table.contents()
                ),
            });
        }
    }
    let torn = table.torn_slots();
    if !torn.is_empty() {
        v.push(Violation {
            property: RECORD_INTEGRITY,
            message: format!("slot(s) {torn:?} hold fields written by different records: {:?}", table.contents()),
        });
    }
    v
}

impl Model for SlotsModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        // loom runs each variant as its own model; shuttle draws one per execution.
        let program = if P::NAME == "shuttle" && self.variants.len() > 1 {
            let pick = P::choose(self.variants.len());
            setup.event("setup", "program {} of the mixture", &[pick as i64]);
            trace.set_configuration(self.variants[pick].label());
            &self.variants[pick]
        } else {
            &self.program
        };
        let table = Arc::new(ForeignTable::<P>::new(CAPACITY, self.revision, "cgwb_bdev"));
        let devices = Arc::new(DeviceRegistry::<P>::new(DEVICES));
        for &(dev, at) in &program.prefill {
            table.track(&setup, (dev as i64, 0), at, UPDATE_INTV);
        }
        let handles: Vec<_> = program
            .threads
            .iter()
            .zip(plans)
            .map(|((name, calls), &plan)| {
                let (table, devices, trace, calls, name) =
                    (table.clone(), devices.clone(), trace.clone(), calls.clone(), *name);
                P::spawn(move || {
                    let ctx = Ctx::<P>::new(trace, name, plan);
                    let mut queued = Vec::new();
                    for call in calls {
                        run_call(&ctx, call, &mut queued, &table, &devices);
                    }
                })
            })
            .collect();
        handles.into_iter().for_each(P::join);
        let mut v: Vec<Violation> = Vec::new();
        let mut seen = BTreeSet::new();
        for d in trace.detected() {
            if seen.insert(d.property) {
                v.push(Violation { property: d.property, message: d.message });
            }
        }
        v.extend(table_properties(&table, program));
        v
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        vec![self.program.threads.iter().map(|_| CpuPlan::Fixed(0)).collect()]
    }

    fn loom_variants(&self) -> Vec<Self> {
        self.variants.iter().map(|p| SlotsModel { program: p.clone(), ..self.clone() }).collect()
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        let most = self.variants.iter().map(|p| p.threads.len()).max().unwrap_or(0);
        vec![CpuPlan::Fixed(0); most]
    }

    fn configurations(&self) -> u64 {
        self.variants.len() as u64
    }

    fn configuration(&self) -> String {
        self.program.label()
    }

    fn placement_label(&self, _plans: &[CpuPlan]) -> String {
        if self.variants.len() > 1 && self.variants[0] != self.program {
            return "one of the shuttle programs, drawn (see the trace's first step)".into();
        }
        let threads: Vec<String> = self.program.threads.iter().map(|(n, c)| format!("{n} {c:?}")).collect();
        format!("{} (prefill {:?})", threads.join(" + "), self.program.prefill)
    }

    fn size(&self) -> Vec<(String, u64)> {
        vec![
            ("slots".into(), CAPACITY as u64),
            ("threads".into(), self.program.threads.len() as u64),
            ("role_sets".into(), self.variants.len() as u64),
        ]
    }
}

/// The declared scope of bdev-slots.
pub fn scope_decl() -> ScopeDecl {
    let role = |name, runs, callers| RoleDecl { name, runs, callers };
    ScopeDecl {
        roles: vec![
            role("tracker", "mem_cgroup_track_foreign_dirty_slowpath for a bdev target", "folio_account_dirtied of a memcg's task dirtying a block device's page"),
            role("flusher", "mem_cgroup_flush_foreign, then the dedicated workqueue's bdev_flush_by_dev", "balance_dirty_pages of a throttled memcg"),
            role("devmgr", "close a device, reuse its number", "blkdev_release, device removal and re-creation"),
        ],
        counts: "loom: the three programs below (two trackers; a tracker and a flusher; a flusher and a device manager); shuttle: two larger programs, one drawn per execution",
        sharing: "one memcg's table, capacity 2, device numbers 1..3",
        initial: "the table empty, or prefilled as each program states",
        excluded: "several memcgs (tables are per memcg and share nothing but the device registry)",
        bounds: "loom: the tier's preemption bound; shuttle: the tier's iterations; oracle: every interleaving, at call granularity, of every loom and shuttle program",
        configurations: loom_programs().iter().chain(shuttle_programs().iter()).map(Program::label).collect(),
    }
}

pub struct BdevSlots;

impl BdevSlots {
    pub fn model_for(revision: SlotRevision, checker: Checker) -> SlotsModel {
        let variants = match checker {
            Checker::Loom => loom_programs(),
            _ => shuttle_programs(),
        };
        SlotsModel { revision, program: variants[0].clone(), variants }
    }
}

impl ModelScenario for BdevSlots {
    type Model = SlotsModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary:
                "the bounded per-memcg bdev slot table of seed 001 (v6, reconstructed): lockless check-then-write races",
            header: include_str!("bdev_slots.md"),
            properties: &[
                (NO_INFLIGHT_OVERWRITE, "no record overwrites a slot whose flush is in flight"),
                (ALL_TRACKED, "with at most K distinct devices recorded, every one is held at the end"),
                (OLDEST_REPLACED, "a replacement's victim is the strictly oldest idle slot when it is written"),
                (RECORD_INTEGRITY, "no slot holds fields written by different records (no torn record)"),
                (NO_CLOSED_DEVICE_FLUSH, "bdev_flush_by_dev never writes back a closed device"),
                (INFLIGHT_BOUND, "done.cnt stays in [1, 1 + flushers in flight]"),
            ],
            scope: scope_decl(),
            revisions: revision_infos::<SlotRevision>(),
        }
    }

    fn model(&self, revision: &str, checker: Checker, _tier: Tier) -> Result<SlotsModel, String> {
        Ok(Self::model_for(parse_revision(NAME, revision)?, checker))
    }
}
