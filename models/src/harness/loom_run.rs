//! loom: one exhaustive run per CPU placement, the smallest preemption bound of each violation,
//! and exact replay of a counterexample from its handle.
//!
//! loom's search is a deterministic depth-first walk for a given program and preemption bound, so
//! a failing execution is named by where it was found: `loom1:<tier>:<variant>:<placement>:
//! <preemption bound or none>:<execution>` (the execution's 1-based number within that variant and
//! placement's run). [`replay_loom`] re-runs that search, recording nothing until execution N,
//! and returns execution N's trace. The handle survives a rebuild of the same source; a change to
//! the model or the core changes the walk, and the replayed trace says so by differing.

use super::{execute_and_record, is_stop, lock, Collector, LoomRun, Model, Replayed, Stop, StopExploring};
use crate::bounds::{Bounds, Tier};
use crate::outcome::{FirstFound, Outcome, CHECKER_ERROR};
use crate::panic::{payload_message, Capture};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use wb_core::ctx::CpuPlan;
use wb_core::sync::Loom;
use wb_core::trace::Trace;

/// Explore every execution of `model` within the loom bounds, for each placement, reporting for
/// each violated property the counterexample at the smallest preemption bound at which it appears.
/// With a bound, by iterative deepening: a ranked search in full at bounds 0, 1, ... up to the
/// configured one, stopping early only once every property is violated (a verdict is exact only
/// after the configured bound's whole search otherwise), so the configured bound's search is both
/// the verdict and the ranking. Without a bound: the unbounded search, then the bounded ones
/// below it for the properties it found. A run whose time or permutation limit cut it short
/// reports `bounded` (loom itself returns as if the search had finished).
pub fn run_loom<M: Model>(model: &M, bounds: &Bounds) -> Outcome {
    let start = Instant::now();
    let mut outcome = match bounds.loom_preemptions {
        Some(max) => deepen(model, bounds, max, start),
        None => {
            let (mut outcome, _) = explore(model, bounds, true, model.loom_property_count());
            minimise_preemptions(model, bounds, &mut outcome);
            outcome
        }
    };
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = loom_bounds(model, bounds);
    outcome.configurations = model.configurations();
    outcome
}

/// Iterative deepening up to `max`: each search ranked and in full; a property's counterexample is
/// the best at the first bound that has one; its `found` counts the executions and time of the
/// searches before it too (the row's time to that bug).
fn deepen<M: Model>(model: &M, bounds: &Bounds, max: usize, start: Instant) -> Outcome {
    let mut outcome = Outcome::default();
    for k in 0..=max {
        let micros_before = start.elapsed().as_micros() as u64;
        let (at_k, _) = explore(model, &Bounds { loom_preemptions: Some(k), ..bounds.clone() }, true, usize::MAX);
        merge_smaller(&mut outcome, at_k, k, micros_before);
        if outcome.counterexamples.iter().filter(|c| c.property != CHECKER_ERROR).count() >= model.loom_property_count()
        {
            break;
        }
    }
    outcome
}

/// Add the search at bound `k` to `outcome`: its executions, and its counterexamples of the
/// properties `outcome` has none for yet, with `found` counted from the row's start (the search
/// began `micros_before` into the row).
fn merge_smaller(outcome: &mut Outcome, at_k: Outcome, k: usize, micros_before: u64) {
    let executions_before = outcome.executions;
    outcome.executions += at_k.executions;
    outcome.bounded |= at_k.bounded;
    for cx in at_k.counterexamples {
        if outcome.counterexample(cx.property).is_none() {
            let found = cx
                .found
                .map(|f| FirstFound { executions: executions_before + f.executions, micros: micros_before + f.micros });
            let min_preemptions = cx.min_preemptions.or(Some(k));
            outcome.counterexamples.push(super::Counterexample { found, min_preemptions, ..cx });
        }
    }
}

/// Every (variant, placement) pair loom runs, in the order it runs them.
/// The configured search alone, without [`run_loom`]'s smallest-bound search: the same loom
/// work a hand-written model of the scenario does (the overhead measurement).
pub fn run_loom_search<M: Model>(model: &M, bounds: &Bounds) -> Outcome {
    explore(model, bounds, false, model.loom_property_count()).0
}

fn loom_runs<M: Model>(model: &M) -> Vec<(M, Vec<CpuPlan>)> {
    model
        .loom_variants()
        .into_iter()
        .flat_map(|variant| variant.loom_placements().into_iter().map(move |plans| (variant.clone(), plans)))
        .collect()
}

fn builder(bounds: &Bounds, preemptions: Option<usize>) -> loom::model::Builder {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = preemptions;
    builder.max_duration = bounds.loom_max_duration;
    builder.max_permutations = bounds.loom_max_permutations;
    builder.max_branches = bounds.loom_max_branches;
    // loom checks its limits every `checkpoint_interval` executions.
    builder.checkpoint_interval = 1_000;
    builder
}

/// One search at `bounds.loom_preemptions`, stopping once `stop_at` properties are violated:
/// unranked, it keeps the first counterexample of each; ranked, the first in
/// [`Collector::record`]'s order. Returns whether it ran in full (it did not stop).
fn explore<M: Model>(model: &M, bounds: &Bounds, rank: bool, stop_at: usize) -> (Outcome, bool) {
    let capture = Capture::start();
    let shared = Collector::new(stop_at);
    let mut bounded = false;
    let variants = model.loom_variants();
    for (variant_index, variant) in variants.iter().enumerate() {
        for (placement_index, plans) in variant.loom_placements().into_iter().enumerate() {
            let placement = variant.placement_label(&plans);
            let preemptions = variant.loom_variant_preemptions(bounds.loom_preemptions);
            let builder = builder(bounds, preemptions);
            let before = {
                let mut c = lock(&shared);
                c.loom_run = Some(LoomRun {
                    tier: bounds.tier,
                    variant: variant_index,
                    placement: placement_index,
                    preemptions,
                    first_execution: c.outcome.executions,
                    rank,
                });
                c.outcome.executions
            };
            let (m, s, label) = (variant.clone(), shared.clone(), placement.clone());
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
                Err(payload) if is_stop(&*payload) => return (finish(&shared, bounded), false),
                Err(payload) => {
                    let message = capture.take_message().unwrap_or_else(|| payload_message(&*payload));
                    lock(&shared).record_panic(format!("loom: {message}"));
                }
            }
        }
    }
    (finish(&shared, bounded), true)
}

fn finish(shared: &super::Shared, bounded: bool) -> Outcome {
    let mut c = lock(shared);
    c.outcome.bounded = bounded;
    std::mem::take(&mut c.outcome)
}

/// After an unbounded search: re-search at preemption bounds 0, 1, 2, ... until every property it
/// violated has been seen, each search ranked and in full, and replace each counterexample with
/// the best one at the smallest bound with one (its `found` stays the unbounded run's). The
/// executions are added to the row.
fn minimise_preemptions<M: Model>(model: &M, bounds: &Bounds, outcome: &mut Outcome) {
    let mut remaining: Vec<&'static str> =
        outcome.counterexamples.iter().map(|c| c.property).filter(|p| *p != CHECKER_ERROR).collect();
    let mut k = 0;
    while !remaining.is_empty() {
        let (at_k, _) = explore(model, &Bounds { loom_preemptions: Some(k), ..bounds.clone() }, true, usize::MAX);
        outcome.executions += at_k.executions;
        for smaller in at_k.counterexamples {
            if let Some(i) = remaining.iter().position(|p| *p == smaller.property) {
                remaining.remove(i);
                let cx = outcome
                    .counterexamples
                    .iter_mut()
                    .find(|c| c.property == smaller.property)
                    .expect("a wanted property has a counterexample");
                let min_preemptions = smaller.min_preemptions.or(Some(k));
                *cx = super::Counterexample { found: cx.found, min_preemptions, ..smaller };
            }
        }
        k += 1;
    }
}

fn loom_bounds<M: Model>(model: &M, bounds: &Bounds) -> Vec<(String, u64)> {
    let mut v = model.size();
    v.push(("placements".into(), loom_runs(model).len() as u64));
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

/// A parsed `loom1:` replay handle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoomHandle {
    pub tier: Tier,
    pub variant: usize,
    pub placement: usize,
    pub preemptions: Option<usize>,
    /// 1-based, within the variant and placement's run.
    pub execution: u64,
}

impl LoomHandle {
    pub fn encode(&self) -> String {
        let p = self.preemptions.map_or("none".to_string(), |p| p.to_string());
        format!("loom1:{}:{}:{}:{p}:{}", self.tier.name(), self.variant, self.placement, self.execution)
    }

    pub fn decode(s: &str) -> Result<LoomHandle, String> {
        let bad = |why: &str| {
            format!("malformed loom replay handle '{s}': {why} (expected loom1:TIER:VARIANT:PLACEMENT:PREEMPTIONS:EXECUTION)")
        };
        let fields: Vec<&str> = s.strip_prefix("loom1:").ok_or_else(|| bad("no loom1: prefix"))?.split(':').collect();
        let [tier, variant, placement, preemptions, execution] = fields[..] else {
            return Err(bad("five fields after loom1:"));
        };
        let num = |f: &str, what: &str| f.parse::<u64>().map_err(|_| bad(&format!("{what} '{f}' is not a number")));
        let execution = num(execution, "execution")?;
        if execution == 0 {
            return Err(bad("executions are numbered from 1"));
        }
        Ok(LoomHandle {
            tier: Tier::from_name(tier).ok_or_else(|| bad(&format!("unknown tier '{tier}'")))?,
            variant: num(variant, "variant")? as usize,
            placement: num(placement, "placement")? as usize,
            preemptions: if preemptions == "none" {
                None
            } else {
                Some(num(preemptions, "preemption bound")? as usize)
            },
            execution,
        })
    }
}

/// Re-run the loom search a handle names and return the trace of its execution. Errors: a
/// malformed handle, a tier other than the model's, a variant or placement the model does not
/// have, a search that ends before the execution (the handle is not from this source).
pub fn replay_loom<M: Model>(model: &M, handle: &str, bounds: &Bounds) -> Result<Replayed, String> {
    let h = LoomHandle::decode(handle)?;
    if h.tier != bounds.tier {
        return Err(format!("the loom handle was recorded at tier {}: pass --tier {}", h.tier.name(), h.tier.name()));
    }
    let variants = model.loom_variants();
    let variant = variants
        .get(h.variant)
        .ok_or_else(|| format!("the loom handle names variant {}, this model has {}", h.variant, variants.len()))?;
    let placements = variant.loom_placements();
    let plans = placements.get(h.placement).cloned().ok_or_else(|| {
        format!("the loom handle names placement {}, this model has {}", h.placement, placements.len())
    })?;
    let placement = variant.placement_label(&plans);
    let capture = Capture::start();
    let counter = Arc::new(AtomicU64::new(0));
    let result: Arc<Mutex<Option<Replayed>>> = Arc::new(Mutex::new(None));
    let (m, c, r, label, target) = (variant.clone(), counter.clone(), result.clone(), placement.clone(), h.execution);
    // No time or permutation limit: the execution is reached or the search ends.
    let bounds = Bounds { loom_max_duration: None, loom_max_permutations: None, ..bounds.clone() };
    let run = catch_unwind(AssertUnwindSafe(|| {
        builder(&bounds, h.preemptions).check(move || {
            let n = c.fetch_add(1, Ordering::Relaxed) + 1;
            let trace = Arc::new(if n == target { Trace::new() } else { Trace::disabled() });
            let violations = m.execute::<Loom>(&trace, &plans);
            if n == target {
                *r.lock().unwrap_or_else(|e| e.into_inner()) = Some(Replayed {
                    placement: label.clone(),
                    configuration: m.configuration(),
                    steps: trace.steps(),
                    violations,
                    schedule: h.encode(),
                });
                std::panic::panic_any(StopExploring);
            }
        })
    }));
    if let Err(payload) = run {
        if !is_stop(&*payload) {
            let message = capture.take_message().unwrap_or_else(|| payload_message(&*payload));
            return Err(format!("the replayed loom search panicked: {message}"));
        }
    }
    let replayed = result.lock().unwrap_or_else(|e| e.into_inner()).take();
    replayed.ok_or_else(|| {
        format!(
            "the loom search ended after {} executions, before execution {target}: the handle is not from this source",
            counter.load(Ordering::Relaxed)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_bad_ones_are_errors() {
        for preemptions in [Some(0), Some(3), None] {
            let h = LoomHandle { tier: Tier::Deep, variant: 2, placement: 1, preemptions, execution: 71_219 };
            assert_eq!(LoomHandle::decode(&h.encode()).unwrap(), h);
        }
        assert_eq!(
            LoomHandle { tier: Tier::Quick, variant: 0, placement: 2, preemptions: None, execution: 5 }.encode(),
            "loom1:quick:0:2:none:5"
        );
        for bad in [
            "shuttle1:1",
            "loom1:quick:0:0:1",
            "loom1:quick:0:0:1:2:3",
            "loom1:fast:0:0:1:2",
            "loom1:quick:0:0:-1:2",
            "loom1:quick:0:0:1:0",
        ] {
            assert!(LoomHandle::decode(bad).unwrap_err().contains("malformed loom replay handle"), "{bad}");
        }
    }
}
