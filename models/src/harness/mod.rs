//! Checker harnesses: run a [`Model`] under loom (exhaustive, one run per CPU placement) or
//! shuttle (PCT or random, placements drawn and replayed), collecting violations as values.

mod loom_run;
pub mod record;
pub mod schedule;
mod shuttle_run;
pub mod units;

pub use loom_run::{loom_graphs, loom_unit_count, replay_loom, run_loom, GraphSearch, LoomHandle};
pub use shuttle_run::{replay_shuttle, run_shuttle, Replayed, ShuttleKind, ShuttleSchedule};

use crate::bounds::{Bounds, Tier};
use crate::outcome::{Checker, Counterexample, FirstFound, Outcome, Violation, CHECKER_ERROR};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use wb_core::ctx::CpuPlan;
use wb_core::sync::Platform;
use wb_core::trace::Trace;

/// A scenario instance (configuration + revision) the harnesses can run.
pub trait Model: Clone + Send + Sync + 'static {
    /// The properties `execute` checks; a run stops early once all are violated.
    fn properties(&self) -> &'static [&'static str];

    /// How many of them `execute` checks under loom (fewer where a property is only meaningful
    /// in sequentially consistent executions); the loom search stops once that many fail.
    fn loom_property_count(&self) -> usize {
        self.properties().len()
    }

    /// One execution: set up, spawn the threads (placed per `plans`), join, check the
    /// properties at quiescence. Returns every violated property with what was observed.
    /// Must assert nothing: violations are values.
    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation>;

    /// The CPU placements loom enumerates, one exhaustive run each.
    fn loom_placements(&self) -> Vec<Vec<CpuPlan>>;

    /// The programs loom explores, one exhaustive run each (with each of its placements): a
    /// scenario too wide for loom's thread limit runs its roles in pairs or triples.
    fn loom_variants(&self) -> Vec<Self> {
        vec![self.clone()]
    }

    /// The placement under shuttle (typically drawn, see [`CpuPlan::Drawn`]).
    fn shuttle_placement(&self) -> Vec<CpuPlan>;

    /// Human-readable placement, e.g. `writer0 cpu0, writer1 cpu0->cpu1`.
    fn placement_label(&self, plans: &[CpuPlan]) -> String;

    /// Model size parameters for the JSON `bounds` (threads, operations, batch ...).
    fn size(&self) -> Vec<(String, u64)>;

    /// The loom preemption bound at `tier` (the environment's, if set, wins): the tier defaults
    /// unless a scenario states its own.
    fn loom_preemptions(&self, tier: Tier) -> Option<usize> {
        Bounds::defaults(tier).loom_preemptions
    }

    /// The preemption bound this loom variant runs at when the row's search runs at `bound`: the
    /// row's, unless a scenario runs some of its configurations lower for cost (stated in its
    /// scope declaration). A bound only lowers: an unbounded search stays unbounded.
    fn loom_variant_preemptions(&self, bound: Option<usize>) -> Option<usize> {
        bound
    }

    /// How many configurations of the scenario's declared scope this model covers: loom runs
    /// each of [`Model::loom_variants`]; a shuttle model that draws its configuration per
    /// execution reports how many it draws from.
    fn configurations(&self) -> u64 {
        self.loom_variants().len() as u64
    }

    /// The configuration this model runs (a loom variant's), for counterexamples; a model that
    /// draws its configuration names it in the trace instead ([`Trace::set_configuration`]).
    fn configuration(&self) -> String {
        String::new()
    }
}

/// Run `model` under `checker` (loom or a shuttle checker; the oracle checker lives in
/// wb-checks).
pub fn run<M: Model>(model: &M, checker: Checker, bounds: &Bounds) -> Result<Outcome, String> {
    match checker {
        Checker::Loom => Ok(run_loom(model, &bounds.for_model(|t| model.loom_preemptions(t)))),
        Checker::ShuttlePct => Ok(run_shuttle(model, ShuttleKind::Pct, bounds)),
        Checker::ShuttleRandom => Ok(run_shuttle(model, ShuttleKind::Random, bounds)),
        Checker::Oracle => Err("the oracle checker is run by wb-checks".into()),
    }
}

/// Re-run one execution of `model` (built for `checker`) and return its trace: a loom
/// counterexample from its `loom1:` handle, a shuttle one from its `shuttle1:` string or a
/// fuzzer's bytes. The oracle's counterexamples are sequences of whole calls, printed in full.
pub fn replay<M: Model>(
    model: &M,
    checker: Checker,
    schedule: ShuttleSchedule<'_>,
    bounds: &Bounds,
) -> Result<Replayed, String> {
    match (checker, schedule) {
        (Checker::Loom, ShuttleSchedule::Recorded(handle)) => replay_loom(model, handle, bounds),
        (Checker::Loom, ShuttleSchedule::Bytes(_)) => {
            Err("a loom counterexample replays from its loom1: handle, not from a fuzz input".into())
        }
        (Checker::ShuttlePct | Checker::ShuttleRandom, schedule) => replay_shuttle(model, schedule),
        (Checker::Oracle, _) => Err(
            "oracle counterexamples are not replayed: they are sequences of whole calls, printed in full by `wbcheck run`"
                .into(),
        ),
    }
}

/// Executions started by every loom and shuttle search in this process (for progress displays).
static EXECUTIONS: AtomicU64 = AtomicU64::new(0);

/// How many executions the loom and shuttle searches of this process have started so far.
pub fn executions_started() -> u64 {
    EXECUTIONS.load(Ordering::Relaxed)
}

/// Panic payload the harness uses to end a search once every property has failed.
struct StopExploring;

/// Shared between a harness and the executions it runs (behind a std mutex loom and shuttle
/// cannot see).
struct Collector {
    outcome: Outcome,
    started: std::time::Instant,
    properties: usize,
    /// Properties violated before this search began (by the row's earlier units): they count
    /// towards stopping once every property is violated.
    already: BTreeSet<&'static str>,
    /// The execution in progress, for reporting a panic with its trace.
    current: Option<(Arc<Trace>, String)>,
    /// The loom search in progress, for naming each counterexample's execution in its handle.
    loom_run: Option<LoomRun>,
}

/// Where a loom search is: what a [`LoomHandle`] records.
struct LoomRun {
    tier: Tier,
    variant: usize,
    placement: usize,
    preemptions: Option<usize>,
    /// Sleep sets under the preemption bound.
    bounded_sleep: bool,
    /// Source sets without a preemption bound.
    source_sets: bool,
    /// A thread's end racing with its join.
    join_races: bool,
    /// A thread's start waking every sleeping thread, where sleep sets run.
    start_wakes: bool,
    /// Switches that cost no preemption explored at the bound.
    free_switches: bool,
    /// The slice of a split search.
    slice: Option<(usize, crate::bounds::Slices)>,
    /// The collector's execution count when this variant and placement's search began.
    first_execution: u64,
    /// Whether a later counterexample of a property may replace the kept one ([`Collector::record`]).
    rank: bool,
}

/// The order counterexamples of one property found at one preemption bound are ranked in: one
/// without a stale read first (an interleaving a reviewer can follow without weak memory),
/// then the fewest steps. A stale mark compares a load with the stores that ran before it in
/// the execution, so it is loom's execution order that decides it. `stale`: whether a step has a
/// stale read (the JSON matrix ranks its own steps the same way).
pub fn rank<S>(steps: &[S], stale: impl Fn(&S) -> bool) -> (bool, usize) {
    (steps.iter().any(stale), steps.len())
}

fn has_stale(step: &wb_core::trace::Step) -> bool {
    !step.stale.is_empty()
}

type Shared = Arc<Mutex<Collector>>;

fn lock(shared: &Shared) -> MutexGuard<'_, Collector> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

impl Collector {
    fn new(properties: usize, already: BTreeSet<&'static str>) -> Shared {
        Arc::new(Mutex::new(Collector {
            outcome: Outcome::default(),
            started: std::time::Instant::now(),
            properties,
            already,
            current: None,
            loom_run: None,
        }))
    }

    /// Keep the first counterexample of each newly violated property. A later execution replaces
    /// a kept one when it ranks before it: under shuttle, a shorter trace; in a loom search that
    /// ranks ([`LoomRun::rank`]), no stale read where the kept one has one, then a shorter
    /// trace (the preemption bound is ranked by the searches at smaller bounds). So the
    /// counterexample reported does not depend on the order loom explores in. Returns the
    /// indices kept or replaced, whose replay string the shuttle harness attaches when the
    /// execution ends.
    fn record(
        &mut self,
        violations: Vec<Violation>,
        trace: &Trace,
        placement: &str,
        configuration: &str,
    ) -> Vec<usize> {
        let mut kept = Vec::new();
        let mut steps = None;
        for v in violations {
            if let Some(i) = self.outcome.counterexamples.iter().position(|c| c.property == v.property) {
                let replay = self.loom_handle();
                let cx = &mut self.outcome.counterexamples[i];
                let better = match &self.loom_run {
                    None => trace.len() < cx.steps.len(),
                    // `rank` of the trace, its stale reads found only where they decide.
                    Some(run) if run.rank => {
                        let (kept_stale, kept_len) = rank(&cx.steps, has_stale);
                        let shorter = trace.len() < kept_len;
                        if kept_stale {
                            shorter || !trace.has_stale_read()
                        } else {
                            shorter && !trace.has_stale_read()
                        }
                    }
                    Some(_) => false,
                };
                if better {
                    cx.steps = steps.get_or_insert_with(|| trace.steps()).clone();
                    cx.message = v.message;
                    cx.placement = placement.to_owned();
                    cx.configuration = configuration.to_owned();
                    cx.replay = replay;
                    kept.push(i);
                }
                continue;
            }
            let steps = steps.get_or_insert_with(|| trace.steps()).clone();
            let replay = self.loom_handle();
            self.outcome.counterexamples.push(Counterexample {
                property: v.property,
                message: v.message,
                placement: placement.to_owned(),
                configuration: configuration.to_owned(),
                steps,
                replay,
                // The bound this variant's search ran at (a variant may run below the row's).
                min_preemptions: self.loom_run.as_ref().and_then(|r| r.preemptions),
                found: Some(FirstFound {
                    executions: self.outcome.executions,
                    micros: self.started.elapsed().as_micros() as u64,
                }),
            });
            kept.push(self.outcome.counterexamples.len() - 1);
        }
        kept
    }

    /// The replay handle of the loom execution in progress (none under shuttle).
    fn loom_handle(&self) -> Option<String> {
        self.loom_run.as_ref().map(|r| {
            LoomHandle {
                tier: r.tier,
                variant: r.variant,
                placement: r.placement,
                preemptions: r.preemptions,
                bounded_sleep: r.bounded_sleep,
                source_sets: r.source_sets,
                join_races: r.join_races,
                start_wakes: r.start_wakes,
                free_switches: r.free_switches,
                slice: r.slice,
                execution: self.outcome.executions - r.first_execution,
            }
            .encode()
        })
    }

    fn all_violated(&self) -> bool {
        self.outcome.violated().union(&self.already).count() >= self.properties
    }

    /// Turn a panic that escaped an execution into a `checker-error` counterexample.
    fn record_panic(&mut self, message: String) -> Option<usize> {
        let (trace, placement) = self.current.take()?;
        let v = Violation { property: CHECKER_ERROR, message };
        let configuration = trace.configuration().unwrap_or_default();
        self.record(vec![v], &trace, &placement, &configuration).pop()
    }
}

/// How a harness ends a search once every property has failed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// Panic with [`StopExploring`] (loom: the only way out of `Builder::check`).
    Panic,
    /// Let the scheduler decline the next execution (shuttle: a panic would make shuttle print).
    Scheduler,
}

/// Run one execution of `model` on platform `P` and record it; returns the indices of the
/// counterexamples it added.
fn execute_and_record<M: Model, P: Platform>(
    model: &M,
    shared: &Shared,
    plans: &[CpuPlan],
    placement: &str,
    stop: Stop,
) -> (Vec<usize>, Arc<Trace>) {
    let trace = Arc::new(Trace::new());
    EXECUTIONS.fetch_add(1, Ordering::Relaxed);
    {
        let mut c = lock(shared);
        c.outcome.executions += 1;
        c.current = Some((trace.clone(), placement.to_owned()));
    }
    let violations = model.execute::<P>(&trace, plans);
    let mut c = lock(shared);
    c.current = None;
    if violations.is_empty() {
        return (Vec::new(), trace);
    }
    let configuration = trace.configuration().unwrap_or_else(|| model.configuration());
    let kept = c.record(violations, &trace, placement, &configuration);
    if stop == Stop::Panic && c.all_violated() {
        drop(c);
        std::panic::panic_any(StopExploring);
    }
    (kept, trace)
}

/// Run an execution of another slice's prefix ([`crate::bounds::Slices`]): not counted and not
/// checked, but a panic in it (which ends this slice's search too) is reported like any other.
fn execute_foreign<M: Model, P: Platform>(model: &M, shared: &Shared, plans: &[CpuPlan], placement: &str) {
    let trace = Arc::new(Trace::new());
    lock(shared).current = Some((trace.clone(), placement.to_owned()));
    model.execute::<P>(&trace, plans);
    lock(shared).current = None;
}

fn is_stop(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.downcast_ref::<StopExploring>().is_some()
}
