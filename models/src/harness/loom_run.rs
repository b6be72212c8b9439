//! loom: one exhaustive run per CPU placement, the smallest preemption bound of each violation,
//! and exact replay of a counterexample from its handle.
//!
//! loom's search is a deterministic depth-first walk for a given program and preemption bound, so
//! a failing execution is named by where it was found: `loom1:<tier>:<variant>:<placement>:
//! <preemption bound or none>:[<slice>/<slices>@<depth>w<width>:]<execution>` (the execution's 1-based
//! number within that variant and placement's run, or within its slice when the search was split
//! by schedule prefix: [`crate::bounds::Slices`]). [`replay_loom`] re-runs that search, recording nothing until execution N,
//! and returns execution N's trace. The handle survives a rebuild of the same source; a change to
//! the model or the core changes the walk, and the replayed trace says so by differing.

use super::units::{combine, Phase, UnitSearch};
use super::{
    execute_and_record, execute_foreign, is_stop, lock, Collector, LoomRun, Model, Replayed, Stop, StopExploring,
};
use crate::bounds::{Bounds, Slices, Tier};
use crate::outcome::{Counterexample, LoomPart, Outcome, CHECKER_ERROR};
use crate::panic::{payload_message, Capture};
use std::collections::BTreeSet;
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
///
/// `bounds.loom_units` runs only those units of the row ([`super::units`]): the outcome then
/// carries its unit searches ([`LoomPart`]) for `wbcheck merge` to combine with the other parts.
pub fn run_loom<M: Model>(model: &M, bounds: &Bounds) -> Outcome {
    let start = Instant::now();
    let runs = loom_runs(model);
    let (units, selected) = selected_units(&runs, bounds);
    let properties = model.loom_property_count();
    let ledger = match bounds.loom_preemptions {
        Some(max) => deepen(&runs, &selected, bounds, max, properties),
        None => unbounded(&runs, &selected, bounds, properties),
    };
    let row = combine(&ledger, properties);
    let mut outcome = Outcome {
        executions: row.executions,
        bounded: row.bounded,
        counterexamples: row.counterexamples,
        millis: start.elapsed().as_millis() as u64,
        bounds: loom_bounds(model, bounds),
        configurations: model.configurations(),
        loom_part: None,
    };
    if bounds.loom_units.is_some() {
        outcome.loom_part = Some(LoomPart { units, selected, properties, ledger });
    }
    outcome
}

/// How many units of work a loom row of `model` has at `bounds`: its (variant, placement) pairs,
/// times the slices each pair's search is split into.
pub fn loom_unit_count<M: Model>(model: &M, bounds: &Bounds) -> usize {
    loom_runs(model).len() * slice_count(bounds)
}

fn slice_count(bounds: &Bounds) -> usize {
    bounds.loom_slices.map_or(1, |s| s.count)
}

/// The row's unit count and the units `bounds.loom_units` selects (every one when `None`).
fn selected_units<M: Model>(runs: &[Run<M>], bounds: &Bounds) -> (usize, Vec<usize>) {
    let units = runs.len() * slice_count(bounds);
    let selected = match &bounds.loom_units {
        Some(selected) => selected.iter().copied().filter(|&u| u < units).collect(),
        None => (0..units).collect(),
    };
    (units, selected)
}

/// What a loom search reached, by execution graph: for comparing a reduction with the search it
/// reduces (models/tests/loom_reductions.rs), where equal verdicts alone could hide a lost
/// execution whose violation another execution also shows.
#[derive(Debug, Default)]
pub struct GraphSearch {
    /// Every execution's graph (`loom::graph_id`: the store each read reads, each modification
    /// order, each lock order, each choice), over the units searched.
    pub graphs: BTreeSet<u64>,
    /// Every execution's behaviour ([`Trace::behaviour`]: each task's steps, with the values it
    /// read, in its own order): what a kernel reader could tell apart. Two searches of a model
    /// with a wait loop may reach different graphs (likely how often the loop polled) for the same
    /// behaviours.
    pub behaviours: BTreeSet<u64>,
    pub violated: BTreeSet<&'static str>,
    pub executions: u64,
    /// A time or permutation limit cut a unit's search short.
    pub bounded: bool,
    /// The preemption bound searched (`None`: none).
    pub preemptions: Option<usize>,
}

/// The whole search of the units `bounds.loom_units` selects at `bounds.loom_preemptions` alone
/// (the model's own bound where `bounds` sets none; no deepening, not stopping at a violation),
/// recording each execution's graph.
pub fn loom_graphs<M: Model>(model: &M, bounds: &Bounds) -> GraphSearch {
    let bounds = &bounds.for_model(|t| model.loom_preemptions(t));
    let runs = loom_runs(model);
    let phase = bounds.loom_preemptions.map_or(Phase::Unbounded, Phase::Bound);
    let sink = Arc::new(Mutex::new(Graphs::default()));
    let mut out = GraphSearch { preemptions: bounds.loom_preemptions, ..GraphSearch::default() };
    for unit in selected_units(&runs, bounds).1 {
        let (search, _) = search_unit(&runs, unit, phase, bounds, &BTreeSet::new(), usize::MAX, Some(&sink));
        out.executions += search.executions;
        out.bounded |= search.bounded;
        out.violated.extend(search.counterexamples.iter().map(|c| c.property));
    }
    (out.graphs, out.behaviours) = std::mem::take(&mut *sink.lock().unwrap_or_else(|e| e.into_inner()));
    out
}

/// The graphs and behaviours a search reached ([`GraphSearch`]).
type Graphs = (BTreeSet<u64>, BTreeSet<u64>);

/// Iterative deepening up to `max` over the `selected` units: at each bound every unit's search
/// ranked and in full, stopping after the bound at which the properties found cover them all.
fn deepen<M: Model>(
    runs: &[Run<M>],
    selected: &[usize],
    bounds: &Bounds,
    max: usize,
    properties: usize,
) -> Vec<UnitSearch<Counterexample>> {
    let mut ledger = Vec::new();
    let mut found = BTreeSet::new();
    for k in 0..=max {
        let at_k = Bounds { loom_preemptions: Some(k), ..bounds.clone() };
        for &unit in selected {
            let (search, _) = search_unit(runs, unit, Phase::Bound(k), &at_k, &BTreeSet::new(), usize::MAX, None);
            found.extend(search.counterexamples.iter().map(|c| c.property).filter(|p| *p != CHECKER_ERROR));
            ledger.push(search);
        }
        if found.len() >= properties {
            break;
        }
    }
    ledger
}

/// The unbounded search over the `selected` units, stopping once every property is violated;
/// then re-search at preemption bounds 0, 1, 2, ... until every property it violated has been
/// seen (the smallest bound of each, [`combine`] takes the best counterexample there).
fn unbounded<M: Model>(
    runs: &[Run<M>],
    selected: &[usize],
    bounds: &Bounds,
    properties: usize,
) -> Vec<UnitSearch<Counterexample>> {
    let mut ledger = Vec::new();
    let mut violated = BTreeSet::new();
    for &unit in selected {
        let (search, stopped) = search_unit(runs, unit, Phase::Unbounded, bounds, &violated, properties, None);
        violated.extend(search.counterexamples.iter().map(|c| c.property));
        ledger.push(search);
        if stopped {
            break;
        }
    }
    violated.remove(CHECKER_ERROR);
    let mut k = 0;
    while !violated.is_empty() {
        let at_k = Bounds { loom_preemptions: Some(k), ..bounds.clone() };
        for &unit in selected {
            let (search, _) = search_unit(runs, unit, Phase::Minimise(k), &at_k, &BTreeSet::new(), usize::MAX, None);
            for c in &search.counterexamples {
                violated.remove(c.property);
            }
            ledger.push(search);
        }
        k += 1;
    }
    ledger
}

/// One unit of a loom row: a variant, its index, one of its placements and that placement's index.
type Run<M> = (M, usize, Vec<CpuPlan>, usize);

/// Every unit loom runs, in the order it runs them.
fn loom_runs<M: Model>(model: &M) -> Vec<Run<M>> {
    let mut runs = Vec::new();
    for (variant_index, variant) in model.loom_variants().into_iter().enumerate() {
        for (placement_index, plans) in variant.loom_placements().into_iter().enumerate() {
            runs.push((variant.clone(), variant_index, plans, placement_index));
        }
    }
    runs
}

/// The loom search of `bounds`, at `preemptions`, as slice `slice` when it is split.
fn builder(bounds: &Bounds, preemptions: Option<usize>, slice: usize) -> loom::model::Builder {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = preemptions;
    builder.max_duration = bounds.loom_max_duration;
    builder.max_permutations = bounds.loom_max_permutations;
    builder.max_branches = bounds.loom_max_branches;
    builder.bounded_sleep_sets = bounds.loom_bounded_sleep;
    builder.source_sets = bounds.loom_source_sets;
    builder.join_races = bounds.loom_join_races;
    builder.start_wakes = bounds.loom_start_wakes;
    builder.free_switches = bounds.loom_free_switches;
    if let Some(slices) = bounds.loom_slices {
        (builder.split_depth, builder.split_width) = (slices.depth, slices.width);
        (builder.slices, builder.slice) = (slices.count, slice);
    }
    // loom checks its limits every `checkpoint_interval` executions.
    builder.checkpoint_interval = 1_000;
    builder
}

/// One unit's search at `bounds.loom_preemptions`, ranked ([`Collector::record`]), stopping once
/// the properties it violates and those in `violated` number `stop_at`. Returns the search and
/// whether it stopped early. Unit `u` is slice `u % count` of run `u / count` when the searches
/// are split into `count` slices (one slice each otherwise).
fn search_unit<M: Model>(
    runs: &[Run<M>],
    unit: usize,
    phase: Phase,
    bounds: &Bounds,
    violated: &BTreeSet<&'static str>,
    stop_at: usize,
    graphs: Option<&Arc<Mutex<Graphs>>>,
) -> (UnitSearch<Counterexample>, bool) {
    let count = slice_count(bounds);
    let (variant, variant_index, plans, placement_index) = &runs[unit / count];
    let slice = bounds.loom_slices.map(|slices| (unit % count, slices));
    let capture = Capture::start();
    let shared = Collector::new(stop_at, violated.clone());
    let placement = variant.placement_label(plans);
    let preemptions = variant.loom_variant_preemptions(bounds.loom_preemptions);
    lock(&shared).loom_run = Some(LoomRun {
        tier: bounds.tier,
        variant: *variant_index,
        placement: *placement_index,
        preemptions,
        bounded_sleep: bounds.loom_bounded_sleep,
        source_sets: bounds.loom_source_sets && preemptions.is_none(),
        join_races: bounds.loom_join_races,
        start_wakes: bounds.loom_start_wakes && (preemptions.is_none() || bounds.loom_bounded_sleep),
        free_switches: bounds.loom_free_switches && preemptions.is_some(),
        slice,
        first_execution: 0,
        rank: true,
    });
    let (m, s, label, plans) = (variant.clone(), shared.clone(), placement.clone(), plans.clone());
    let graphs = graphs.cloned();
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| {
        builder(bounds, preemptions, unit % count).check(move || {
            if loom::in_slice() {
                let (_, trace) = execute_and_record::<M, Loom>(&m, &s, &plans, &label, Stop::Panic);
                if let Some(graphs) = &graphs {
                    let mut graphs = graphs.lock().unwrap_or_else(|e| e.into_inner());
                    graphs.0.insert(loom::graph_id());
                    graphs.1.insert(trace.behaviour());
                }
            } else {
                // Another slice's prefix: run only to reach the next one.
                execute_foreign::<M, Loom>(&m, &s, &plans, &label);
            }
        })
    }));
    let (mut stopped, finished) = (false, result.is_ok());
    match result {
        Ok(()) => {}
        Err(payload) if is_stop(&*payload) => stopped = true,
        Err(payload) => {
            let message = capture.take_message().unwrap_or_else(|| payload_message(&*payload));
            lock(&shared).record_panic(format!("loom: {message}"));
        }
    }
    let outcome = std::mem::take(&mut lock(&shared).outcome);
    let out_of_time = bounds.loom_max_duration.is_some_and(|d| start.elapsed() >= d);
    let out_of_permutations = bounds.loom_max_permutations.is_some_and(|p| outcome.executions as usize >= p);
    let search = UnitSearch {
        unit,
        phase,
        executions: outcome.executions,
        micros: start.elapsed().as_micros() as u64,
        bounded: finished && (out_of_time || out_of_permutations),
        counterexamples: outcome.counterexamples,
    };
    (search, stopped)
}

fn loom_bounds<M: Model>(model: &M, bounds: &Bounds) -> Vec<(String, u64)> {
    let mut v = model.size();
    v.push(("placements".into(), loom_runs(model).len() as u64));
    if let Some(slices) = bounds.loom_slices {
        v.push(("slices".into(), slices.count as u64));
        v.push(("slice_depth".into(), slices.depth as u64));
        v.push(("slice_width".into(), slices.width as u64));
    }
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
    if bounds.loom_preemptions.is_some() && bounds.loom_bounded_sleep {
        v.push(("bounded_sleep_sets".into(), 1));
    }
    if bounds.loom_preemptions.is_none() && bounds.loom_source_sets {
        v.push(("source_sets".into(), 1));
    }
    if bounds.loom_join_races {
        v.push(("join_races".into(), 1));
    }
    if bounds.loom_start_wakes && (bounds.loom_preemptions.is_none() || bounds.loom_bounded_sleep) {
        v.push(("start_wakes".into(), 1));
    }
    if bounds.loom_preemptions.is_some() && bounds.loom_free_switches {
        v.push(("free_switches".into(), 1));
    }
    v
}

/// A parsed `loom1:` replay handle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoomHandle {
    pub tier: Tier,
    pub variant: usize,
    pub placement: usize,
    pub preemptions: Option<usize>,
    /// The search ran with sleep sets under its preemption bound (`WBCHECK_LOOM_SLEEP_SETS=
    /// bounded`), which numbers its executions differently: written `Ks` for bound K.
    pub bounded_sleep: bool,
    /// The search without a preemption bound ran with source sets (`WBCHECK_LOOM_SOURCE_SETS=on`),
    /// which numbers its executions differently: written `none+source`.
    pub source_sets: bool,
    /// The search ran with a thread's end racing with its join (`WBCHECK_LOOM_JOIN_RACES=on`),
    /// which numbers its executions differently: written `+joins` after the bound.
    pub join_races: bool,
    /// The search ran with sleep sets (no bound, or sleep sets under it) and a thread's start
    /// waking every sleeping thread (`WBCHECK_LOOM_START_WAKES=on`), which numbers its executions
    /// differently: written `+starts` before any `+joins`.
    pub start_wakes: bool,
    /// The search under a preemption bound explored the switches that cost no preemption at the
    /// bound (`WBCHECK_LOOM_FREE_SWITCHES=on`), which numbers its executions differently: written
    /// `+free` after the bound (and its `s`).
    pub free_switches: bool,
    /// The slice of a search split by schedule prefix: which, and the split.
    pub slice: Option<(usize, Slices)>,
    /// 1-based, within the variant and placement's run (within its slice when split).
    pub execution: u64,
}

impl LoomHandle {
    pub fn encode(&self) -> String {
        let sleep = if self.bounded_sleep && self.preemptions.is_some() { "s" } else { "" };
        let source = if self.source_sets && self.preemptions.is_none() { "+source" } else { "" };
        let sleeps = self.preemptions.is_none() || self.bounded_sleep;
        let starts = if self.start_wakes && sleeps { "+starts" } else { "" };
        let joins = if self.join_races { "+joins" } else { "" };
        let free = if self.free_switches && self.preemptions.is_some() { "+free" } else { "" };
        let p = self
            .preemptions
            .map_or(format!("none{source}{starts}{joins}"), |p| format!("{p}{sleep}{free}{starts}{joins}"));
        let slice = self.slice.map_or(String::new(), |(i, s)| format!("{i}/{}@{}w{}:", s.count, s.depth, s.width));
        format!("loom1:{}:{}:{}:{p}:{slice}{}", self.tier.name(), self.variant, self.placement, self.execution)
    }

    pub fn decode(s: &str) -> Result<LoomHandle, String> {
        let bad = |why: &str| {
            format!("malformed loom replay handle '{s}': {why} (expected loom1:TIER:VARIANT:PLACEMENT:PREEMPTIONS[s][+free]|none[+source][+starts][+joins]:[SLICE/SLICES@DEPTHwWIDTH:]EXECUTION)")
        };
        let fields: Vec<&str> = s.strip_prefix("loom1:").ok_or_else(|| bad("no loom1: prefix"))?.split(':').collect();
        let (tier, variant, placement, preemptions, slice, execution) = match fields[..] {
            [t, v, p, k, e] => (t, v, p, k, None, e),
            [t, v, p, k, slice, e] => (t, v, p, k, Some(slice), e),
            _ => return Err(bad("five or six fields after loom1:")),
        };
        let num = |f: &str, what: &str| f.parse::<u64>().map_err(|_| bad(&format!("{what} '{f}' is not a number")));
        let slice = match slice {
            None => None,
            Some(f) => {
                let malformed = || bad(&format!("slice '{f}' is not SLICE/SLICES@DEPTHwWIDTH"));
                let (i, rest) = f.split_once('/').ok_or_else(malformed)?;
                let (count, split) = rest.split_once('@').ok_or_else(malformed)?;
                let (depth, width) = split.split_once('w').ok_or_else(malformed)?;
                let slices = Slices::parse(&format!("{count}:{depth}:{width}")).map_err(|_| malformed())?;
                let i = num(i, "slice")? as usize;
                if i >= slices.count {
                    return Err(bad(&format!("slice {i} of {}", slices.count)));
                }
                Some((i, slices))
            }
        };
        let execution = num(execution, "execution")?;
        let (preemptions, join_races) = match preemptions.strip_suffix("+joins") {
            Some(bound) => (bound, true),
            None => (preemptions, false),
        };
        let (preemptions, start_wakes) = match preemptions.strip_suffix("+starts") {
            Some(bound) => (bound, true),
            None => (preemptions, false),
        };
        let (preemptions, free_switches) = match preemptions.strip_suffix("+free") {
            Some("none") => return Err(bad("+free follows a preemption bound only")),
            Some(bound) => (bound, true),
            None => (preemptions, false),
        };
        let (preemptions, source_sets) = match preemptions.strip_suffix("+source") {
            Some("none") => ("none", true),
            Some(_) => return Err(bad("+source follows none only (source sets apply without a preemption bound)")),
            None => (preemptions, false),
        };
        let (preemptions, bounded_sleep) = match preemptions.strip_suffix('s') {
            Some(bound) => (bound, true),
            None => (preemptions, false),
        };
        if execution == 0 {
            return Err(bad("executions are numbered from 1"));
        }
        if start_wakes && !(preemptions == "none" || bounded_sleep) {
            return Err(bad("+starts needs sleep sets: no bound, or sleep sets under it (Ks)"));
        }
        Ok(LoomHandle {
            tier: Tier::from_name(tier).ok_or_else(|| bad(&format!("unknown tier '{tier}'")))?,
            variant: num(variant, "variant")? as usize,
            placement: num(placement, "placement")? as usize,
            preemptions: if preemptions == "none" && !bounded_sleep {
                None
            } else {
                Some(num(preemptions, "preemption bound")? as usize)
            },
            bounded_sleep,
            source_sets,
            join_races,
            start_wakes,
            free_switches,
            slice,
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
    // No time or permutation limit: the execution is reached or the search ends; the handle's
    // reduction, whatever the environment says.
    let bounds = Bounds {
        loom_max_duration: None,
        loom_max_permutations: None,
        loom_bounded_sleep: h.bounded_sleep,
        loom_source_sets: h.source_sets,
        loom_join_races: h.join_races,
        loom_start_wakes: h.start_wakes,
        loom_free_switches: h.free_switches,
        loom_slices: h.slice.map(|(_, slices)| slices),
        ..bounds.clone()
    };
    let run = catch_unwind(AssertUnwindSafe(|| {
        builder(&bounds, h.preemptions, h.slice.map_or(0, |(i, _)| i)).check(move || {
            if !loom::in_slice() {
                m.execute::<Loom>(&Arc::new(Trace::disabled()), &plans);
                return;
            }
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
        let split = Some((3, Slices { count: 8, depth: 2, width: 1 }));
        for (preemptions, bounded_sleep, source_sets, join_races, slice) in [
            (Some(0), false, false, false, None),
            (Some(3), false, false, false, None),
            (None, false, false, false, None),
            (None, false, true, false, None),
            (Some(3), true, false, false, None),
            (Some(2), false, false, false, split),
            (None, false, false, false, split),
            (None, false, true, false, split),
            (Some(1), false, false, true, None),
            (Some(3), true, false, true, split),
            (None, false, true, true, None),
        ] {
            let h = LoomHandle {
                tier: Tier::Deep,
                variant: 2,
                placement: 1,
                preemptions,
                bounded_sleep,
                source_sets,
                join_races,
                start_wakes: false,
                free_switches: preemptions == Some(3),
                slice,
                execution: 71_219,
            };
            assert_eq!(LoomHandle::decode(&h.encode()).unwrap(), h);
        }
        // (bound, s, +source, +joins, +starts, +free, slice, handle): `+free` follows the bound
        // and its `s`, before `+starts`.
        for (preemptions, bounded_sleep, source_sets, join_races, start_wakes, free_switches, slice, encoded) in [
            (Some(2), true, false, false, false, false, None, "loom1:quick:0:2:2s:5"),
            (Some(2), false, false, false, false, false, split, "loom1:quick:0:2:2:3/8@2w1:5"),
            (None, false, false, false, false, false, None, "loom1:quick:0:2:none:5"),
            (None, false, true, false, false, false, None, "loom1:quick:0:2:none+source:5"),
            (Some(2), true, false, true, false, false, None, "loom1:quick:0:2:2s+joins:5"),
            (None, false, true, true, false, false, None, "loom1:quick:0:2:none+source+joins:5"),
            (None, false, true, false, true, false, None, "loom1:quick:0:2:none+source+starts:5"),
            (None, false, false, true, true, false, None, "loom1:quick:0:2:none+starts+joins:5"),
            (Some(2), true, false, true, true, false, None, "loom1:quick:0:2:2s+starts+joins:5"),
            (Some(1), false, false, false, false, true, None, "loom1:quick:0:2:1+free:5"),
            (Some(2), true, false, false, true, true, None, "loom1:quick:0:2:2s+free+starts:5"),
        ] {
            let h = LoomHandle {
                tier: Tier::Quick,
                variant: 0,
                placement: 2,
                preemptions,
                bounded_sleep,
                source_sets,
                join_races,
                start_wakes,
                free_switches,
                slice,
                execution: 5,
            };
            assert_eq!(h.encode(), encoded);
            assert_eq!(LoomHandle::decode(encoded).unwrap(), h);
        }
        for bad in [
            "shuttle1:1",
            "loom1:quick:0:0:1",
            "loom1:quick:0:0:1:2:3",
            "loom1:fast:0:0:1:2",
            "loom1:quick:0:0:-1:2",
            "loom1:quick:0:0:nones:2",
            "loom1:quick:0:0:2+source:2",
            "loom1:quick:0:0:nones+source:2",
            "loom1:quick:0:0:+joins:2",
            "loom1:quick:0:0:1+joins+source:2",
            "loom1:quick:0:0:1+starts:2",
            "loom1:quick:0:0:none+joins+starts:2",
            "loom1:quick:0:0:none+free:2",
            "loom1:quick:0:0:1+starts+free:2",
            "loom1:quick:0:0:1:0",
            "loom1:quick:0:0:1:8/8@2w1:1",
            "loom1:quick:0:0:1:1/8:1",
            "loom1:quick:0:0:1:1/8@2:1",
            "loom1:quick:0:0:1:1/8@0w1:1",
            "loom1:quick:0:0:1:x/8@2w1:1",
        ] {
            assert!(LoomHandle::decode(bad).unwrap_err().contains("malformed loom replay handle"), "{bad}");
        }
    }
}
