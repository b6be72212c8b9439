//! loom: one exhaustive run per CPU placement.

use super::{execute_and_record, is_stop, lock, Collector, Model, Stop};
use crate::bounds::Bounds;
use crate::outcome::Outcome;
use crate::panic::{payload_message, Capture};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;
use wb_core::ctx::CpuPlan;
use wb_core::sync::Loom;

/// Explore every execution of `model` within the loom bounds, for each placement. A run whose
/// time or permutation limit cut it short reports `bounded` (loom itself returns as if the search
/// had finished).
pub fn run_loom<M: Model>(model: &M, bounds: &Bounds) -> Outcome {
    let capture = Capture::start();
    let shared = Collector::new(model.loom_property_count());
    let start = Instant::now();
    let mut bounded = false;
    let runs: Vec<(M, Vec<CpuPlan>)> = model
        .loom_variants()
        .into_iter()
        .flat_map(|variant| variant.loom_placements().into_iter().map(move |plans| (variant.clone(), plans)))
        .collect();
    for (variant, plans) in runs {
        let placement = variant.placement_label(&plans);
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = bounds.loom_preemptions;
        builder.max_duration = bounds.loom_max_duration;
        builder.max_permutations = bounds.loom_max_permutations;
        builder.max_branches = bounds.loom_max_branches;
        // loom checks its limits every `checkpoint_interval` executions.
        builder.checkpoint_interval = 1_000;
        let (m, s, label) = (variant, shared.clone(), placement.clone());
        let before = lock(&shared).outcome.executions;
        let placement_start = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| {
            builder.check(move || {
                execute_and_record::<M, Loom>(&m, &s, &plans, &label, Stop::Panic);
            })
        }));
        let explored = lock(&shared).outcome.executions - before;
        match result {
            Ok(()) => {
                let out_of_time = bounds.loom_max_duration.is_some_and(|d| placement_start.elapsed() >= d);
                let out_of_permutations = bounds.loom_max_permutations.is_some_and(|p| explored as usize >= p);
                bounded |= out_of_time || out_of_permutations;
            }
            Err(payload) if is_stop(&*payload) => break,
            Err(payload) => {
                let message = capture.take_message().unwrap_or_else(|| payload_message(&*payload));
                lock(&shared).record_panic(format!("loom: {message}"));
            }
        }
    }
    let mut c = lock(&shared);
    c.outcome.millis = start.elapsed().as_millis() as u64;
    c.outcome.bounded = bounded;
    c.outcome.bounds = loom_bounds(model, bounds);
    std::mem::take(&mut c.outcome)
}

fn loom_bounds<M: Model>(model: &M, bounds: &Bounds) -> Vec<(String, u64)> {
    let mut v = model.size();
    let runs: usize = model.loom_variants().iter().map(|v| v.loom_placements().len()).sum();
    v.push(("placements".into(), runs as u64));
    if let Some(p) = bounds.loom_preemptions {
        v.push(("preemptions".into(), p as u64));
    }
    if let Some(d) = bounds.loom_max_duration {
        v.push(("max_secs".into(), d.as_secs()));
    }
    if let Some(p) = bounds.loom_max_permutations {
        v.push(("max_permutations".into(), p as u64));
    }
    v.push(("max_branches".into(), bounds.loom_max_branches as u64));
    v
}
