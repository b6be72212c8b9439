#![doc = include_str!("percpu_counter.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::sync::atomic::{AtomicI64, Ordering as Ghost};
use std::sync::{Arc, Mutex};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::percpu::PercpuCounter;
use wb_core::revision::PercpuRevision;
use wb_core::revision::Revision;
use wb_core::sync::Platform;
use wb_core::trace::Trace;

pub const NAME: &str = <PercpuRevision as Revision>::SCENARIO;
pub use wb_core::property::NO_LOST_UPDATE;
pub use wb_core::property::QUIESCENT_EXACT;
pub use wb_core::property::READ_ERROR_BOUND;
const PROPERTIES: &[&str] = &[QUIESCENT_EXACT, READ_ERROR_BOUND, NO_LOST_UPDATE];

pub const NR_CPUS: usize = 2;
pub const BATCH: i32 = 4;
pub const ADDS: [i64; 2] = [3, 3];

#[derive(Debug, Clone, Copy)]
pub struct PercpuModel {
    pub revision: PercpuRevision,
}

impl Model for PercpuModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let counter = Arc::new(PercpuCounter::<P>::new(NR_CPUS).with_revision(self.revision));
        // Ghost: adds begun and completed (all positive), and what each read saw.
        let begun = Arc::new(AtomicI64::new(0));
        let completed = Arc::new(AtomicI64::new(0));
        let reads = Arc::new(Mutex::new(Vec::new()));
        let mut handles = Vec::new();
        for (a, &plan) in plans.iter().enumerate().take(2) {
            let (counter, trace, begun, completed) = (counter.clone(), trace.clone(), begun.clone(), completed.clone());
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, ["adder0", "adder1"][a], plan);
                for amount in ADDS {
                    begun.fetch_add(amount, Ghost::Relaxed);
                    counter.add_batch(&ctx, amount, BATCH);
                    completed.fetch_add(amount, Ghost::Relaxed);
                }
            }));
        }
        {
            let (counter, trace, begun, completed, reads) =
                (counter.clone(), trace.clone(), begun.clone(), completed.clone(), reads.clone());
            let plan = plans[2];
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "reader", plan);
                let read = |ctx: &Ctx<P>| {
                    let low = completed.load(Ghost::Relaxed);
                    let r = counter.read();
                    ctx.event("percpu_counter_read", "count = {}", &[r]);
                    let high = begun.load(Ghost::Relaxed);
                    reads.lock().unwrap_or_else(|e| e.into_inner()).push((low, r, high));
                };
                read(&ctx);
                counter.sum(&ctx);
                read(&ctx);
            }));
        }
        handles.into_iter().for_each(P::join);

        let total: i64 = 2 * ADDS.iter().sum::<i64>();
        let mut v = Vec::new();
        let main = Ctx::<P>::new(trace.clone(), "main", CpuPlan::Fixed(0));
        let sum = counter.sum(&main);
        if sum != total {
            v.push(Violation {
                property: QUIESCENT_EXACT,
                message: format!("percpu_counter_sum = {sum} at the end; the adds total {total}"),
            });
        }
        let raw = counter.raw_total();
        if raw != total {
            v.push(Violation {
                property: NO_LOST_UPDATE,
                message: format!("count + slots = {raw} at the end; the adds total {total}: an update was lost"),
            });
        }
        if P::NAME != "loom" {
            let bound = NR_CPUS as i64 * i64::from(BATCH - 1);
            for &(low, r, high) in reads.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                if r < low - bound || r > high + bound {
                    v.push(Violation {
                        property: READ_ERROR_BOUND,
                        message: format!("percpu_counter_read returned {r}, outside [{low} - {bound}, {high} + {bound}] (adds completed before it began, begun before it returned)"),
                    });
                    break;
                }
            }
        }
        v
    }

    fn loom_property_count(&self) -> usize {
        PROPERTIES.len() - 1 // read-error-bound is not checked under loom (see the header)
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        let reader = CpuPlan::Fixed(0);
        vec![
            vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1), reader],
            vec![CpuPlan::Fixed(0), CpuPlan::Fixed(0), reader],
            vec![CpuPlan::Migrate { from: 0, to: 1 }, CpuPlan::Fixed(1), reader],
        ]
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        let drawn = CpuPlan::Drawn { nr_cpus: NR_CPUS };
        vec![drawn, drawn, CpuPlan::Fixed(0)]
    }

    fn placement_label(&self, plans: &[CpuPlan]) -> String {
        format!("adder0 {}, adder1 {}, reader {}", plans[0].describe(), plans[1].describe(), plans[2].describe())
    }

    fn size(&self) -> Vec<(String, u64)> {
        vec![
            ("adders".into(), 2),
            ("adds_per_adder".into(), ADDS.len() as u64),
            ("cpus".into(), NR_CPUS as u64),
            ("batch".into(), BATCH as u64),
        ]
    }
}

/// The declared scope of percpu-counter.
pub fn scope_decl() -> ScopeDecl {
    let role = |name, runs, callers| RoleDecl { name, runs, callers };
    ScopeDecl {
        roles: vec![
            role("adder", "percpu_counter_add_batch(+3) twice", "wb_stat_mod, every percpu_counter_add user"),
            role("reader", "percpu_counter_read, percpu_counter_sum, percpu_counter_read", "wb_stat, wb_stat_sum, the dirty-limit readers"),
        ],
        counts: "two adders, one reader",
        sharing: "one counter, 2 CPUs",
        initial: "count and slots zero",
        excluded: "CPU hotplug (the dead CPU's slot folded by the hotplug callback), percpu_counter_set, negative amounts (the proptest comparison covers them sequentially), the 32-bit tear of count",
        bounds: "loom: batch 4, three placements (adders on different CPUs, on one, adder0 migrating between its slot read and its compare-exchange); the tier's preemption bound. shuttle: CPUs drawn. oracle: every interleaving, each add on either CPU",
        configurations: vec!["adder0 + adder1 + reader".into()],
    }
}

pub struct PercpuCounterScenario;

impl ModelScenario for PercpuCounterScenario {
    type Model = PercpuModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "lib/percpu_counter.c under concurrent adds, reads and sums",
            header: include_str!("percpu_counter.md"),
            properties: &[
                (QUIESCENT_EXACT, "at quiescence percpu_counter_sum returns the total of the adds"),
                (READ_ERROR_BOUND, "every percpu_counter_read is within nr_cpus * (batch - 1) of a value the adds in flight allow (SC checkers)"),
                (NO_LOST_UPDATE, "at quiescence count + slots equals the total of the adds"),
            ],
            scope: scope_decl(),
            revisions: revision_infos::<PercpuRevision>(),
        }
    }

    fn model(&self, revision: &str, _checker: Checker, _tier: Tier) -> Result<PercpuModel, String> {
        Ok(PercpuModel { revision: parse_revision(NAME, revision)? })
    }
}
