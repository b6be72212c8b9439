//! shuttle: PCT or random schedules through a recording scheduler, and exact replay.

use super::schedule::{decode, encode, Choice};
use super::{execute_and_record, lock, Collector, Model, Shared, Stop};
use crate::bounds::Bounds;
use crate::outcome::{Outcome, Violation};
use crate::panic::{payload_message, quiet_shuttle_config, Capture};
use shuttle::scheduler::{PctScheduler, RandomScheduler, Schedule, Scheduler, Task, TaskId};
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use wb_core::sync::Shuttle;
use wb_core::trace::{Step, Trace};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShuttleKind {
    Pct,
    Random,
}

/// What the recording scheduler and the executions share.
#[derive(Default)]
struct Tape {
    /// Decisions and draws of the execution in progress.
    choices: Vec<Choice>,
    /// Counterexamples of the execution in progress, waiting for its finished schedule.
    awaiting: Vec<usize>,
}

/// Wraps a shuttle scheduler and records every decision and random draw, so a failing
/// execution's schedule is captured exactly (never parsed from shuttle's stderr).
pub(super) struct Recording<S> {
    /// `ManuallyDrop`: shuttle's RandomScheduler prints its seed when dropped before it has
    /// declined an execution, which is what stopping early does; it is then leaked instead.
    inner: ManuallyDrop<S>,
    tape: Arc<Mutex<Tape>>,
    shared: Shared,
    stopped_early: bool,
}

impl<S> Drop for Recording<S> {
    fn drop(&mut self) {
        if !self.stopped_early {
            // SAFETY: `inner` is not used again.
            unsafe { ManuallyDrop::drop(&mut self.inner) }
        }
    }
}

impl<S> Recording<S> {
    /// Attach the finished execution's schedule to its counterexamples and start a new tape.
    fn seal(tape: &Mutex<Tape>, shared: &Shared) {
        let mut t = tape.lock().unwrap_or_else(|e| e.into_inner());
        if !t.awaiting.is_empty() {
            let replay = encode(&t.choices);
            let mut c = lock(shared);
            for &i in &t.awaiting {
                c.outcome.counterexamples[i].replay = Some(replay.clone());
            }
            t.awaiting.clear();
        }
        t.choices.clear();
    }
}

impl<S: Scheduler> Scheduler for Recording<S> {
    fn new_execution(&mut self) -> Option<Schedule> {
        Self::seal(&self.tape, &self.shared);
        if lock(&self.shared).all_violated() {
            self.stopped_early = true;
            return None;
        }
        self.inner.new_execution()
    }

    fn next_task(&mut self, runnable: &[&Task], current: Option<TaskId>, is_yielding: bool) -> Option<TaskId> {
        let next = self.inner.next_task(runnable, current, is_yielding)?;
        self.tape.lock().unwrap_or_else(|e| e.into_inner()).choices.push(Choice::Task(usize::from(next)));
        Some(next)
    }

    fn next_u64(&mut self) -> u64 {
        let v = self.inner.next_u64();
        self.tape.lock().unwrap_or_else(|e| e.into_inner()).choices.push(Choice::Random(v));
        v
    }
}

/// Run `model` for the configured number of iterations. Deterministic for a given seed.
pub fn run_shuttle<M: Model>(model: &M, kind: ShuttleKind, bounds: &Bounds) -> Outcome {
    let iterations = bounds.shuttle_iterations;
    match kind {
        ShuttleKind::Pct => {
            run_with(model, PctScheduler::new_from_seed(bounds.seed, bounds.pct_depth, iterations), bounds)
        }
        ShuttleKind::Random => run_with(model, RandomScheduler::new_from_seed(bounds.seed, iterations), bounds),
    }
}

fn run_with<M: Model, S: Scheduler + 'static>(model: &M, inner: S, bounds: &Bounds) -> Outcome {
    let capture = Capture::start();
    let shared = Collector::new(model.properties().len(), Default::default());
    let tape = Arc::new(Mutex::new(Tape::default()));
    let scheduler =
        Recording { inner: ManuallyDrop::new(inner), tape: tape.clone(), shared: shared.clone(), stopped_early: false };
    let plans = model.shuttle_placement();
    let placement = model.placement_label(&plans);
    let (m, s, t) = (model.clone(), shared.clone(), tape.clone());
    let start = Instant::now();
    let runner = shuttle::Runner::new(scheduler, quiet_shuttle_config());
    let result = catch_unwind(AssertUnwindSafe(move || {
        runner.run(move || {
            let (kept, _) = execute_and_record::<M, Shuttle>(&m, &s, &plans, &placement, Stop::Scheduler);
            t.lock().unwrap_or_else(|e| e.into_inner()).awaiting.extend(kept);
        })
    }));
    let finished = match result {
        Ok(_) => true,
        Err(payload) => {
            let message = capture.take_message().unwrap_or_else(|| payload_message(&*payload));
            let kept = lock(&shared).record_panic(format!("shuttle: {message}"));
            tape.lock().unwrap_or_else(|e| e.into_inner()).awaiting.extend(kept);
            false
        }
    };
    // The execution that stopped the run never reached another `new_execution`.
    Recording::<S>::seal(&tape, &shared);
    let mut c = lock(&shared);
    c.outcome.millis = start.elapsed().as_millis() as u64;
    // A run that failed every property stopped early on purpose; one ended by a panic did not
    // finish its iterations.
    c.outcome.bounded = !finished;
    c.outcome.bounds = model.size();
    c.outcome.configurations = model.configurations();
    c.outcome.bounds.push(("iterations".into(), bounds.shuttle_iterations as u64));
    c.outcome.bounds.push(("pct_depth".into(), bounds.pct_depth as u64));
    c.outcome.bounds.push(("seed".into(), bounds.seed));
    std::mem::take(&mut c.outcome)
}

/// Where a replayed execution's decisions come from.
#[derive(Debug, Clone, Copy)]
pub enum ShuttleSchedule<'a> {
    /// A counterexample's replay string (`shuttle1:...`): fed back verbatim.
    Recorded(&'a str),
    /// Raw bytes, e.g. a fuzzer's input: see [`FromBytes`]. Every byte string is a schedule.
    Bytes(&'a [u8]),
}

/// Chooses from a byte string, PCT-like: each byte is a directive "switch to
/// `runnable[(byte & 7) % n]`, then run it for `byte >> 3` more decisions (0 to 31) before reading
/// the next directive". A thread that yields or blocks makes the next directive apply at once.
/// Each random draw (a drawn CPU: the models take it modulo the CPU count) reads one byte. Once the
/// bytes are used up the current thread keeps running (the next runnable one when it yields or
/// blocks). So a short input is a schedule with few preemptions, each byte adds one, and mutating a
/// byte moves one preemption point or target: the shape coverage feedback can climb.
struct FromBytes {
    bytes: Vec<u8>,
    pos: usize,
    /// Decisions left before the next directive is read.
    run: u32,
}

impl FromBytes {
    fn byte(&mut self) -> Option<u8> {
        let b = self.bytes.get(self.pos).copied();
        self.pos += usize::from(b.is_some());
        b
    }

    fn next_task(&mut self, runnable: &[&Task], current: Option<TaskId>, is_yielding: bool) -> Option<TaskId> {
        let ids: Vec<TaskId> = runnable.iter().map(|t| t.id()).collect();
        let at = current.and_then(|c| ids.iter().position(|&t| t == c));
        let must_switch = at.is_none() || is_yielding;
        if !must_switch && self.run > 0 {
            self.run -= 1;
            return at.map(|i| ids[i]);
        }
        match self.byte() {
            Some(b) => {
                self.run = u32::from(b >> 3);
                ids.get(usize::from(b & 7) % ids.len().max(1)).copied()
            }
            None => match at {
                Some(i) if !is_yielding => Some(ids[i]),
                Some(i) => Some(ids[(i + 1) % ids.len()]),
                None => ids.first().copied(),
            },
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.byte().map_or(0, u64::from)
    }
}

/// The decision source of a replayed execution.
enum Source {
    Recorded(std::vec::IntoIter<Choice>),
    Bytes(FromBytes),
}

/// Runs one execution with decisions from a [`Source`], recording them (so a byte-driven
/// execution also gets a `shuttle1:` string).
struct Replaying {
    source: Source,
    started: bool,
    diverged: Arc<Mutex<Option<String>>>,
    tape: Arc<Mutex<Vec<Choice>>>,
}

impl Replaying {
    fn diverge(&mut self, why: String) {
        let mut d = self.diverged.lock().unwrap_or_else(|e| e.into_inner());
        d.get_or_insert(why);
    }

    fn record(&self, choice: Choice) {
        self.tape.lock().unwrap_or_else(|e| e.into_inner()).push(choice);
    }
}

impl Scheduler for Replaying {
    fn new_execution(&mut self) -> Option<Schedule> {
        if std::mem::replace(&mut self.started, true) {
            None
        } else {
            Some(Schedule::new(0))
        }
    }

    fn next_task(&mut self, runnable: &[&Task], current: Option<TaskId>, is_yielding: bool) -> Option<TaskId> {
        let next = match &mut self.source {
            Source::Bytes(b) => b.next_task(runnable, current, is_yielding),
            Source::Recorded(choices) => match choices.next() {
                Some(Choice::Task(t)) if runnable.iter().any(|r| usize::from(r.id()) == t) => Some(TaskId::from(t)),
                other => {
                    self.diverge(format!(
                        "replay diverged: the schedule asks for {other:?}, runnable tasks are {:?}",
                        runnable.iter().map(|r| usize::from(r.id())).collect::<Vec<_>>()
                    ));
                    None
                }
            },
        };
        if let Some(t) = next {
            self.record(Choice::Task(usize::from(t)));
        }
        next
    }

    fn next_u64(&mut self) -> u64 {
        let v = match &mut self.source {
            Source::Bytes(b) => b.next_u64(),
            Source::Recorded(choices) => match choices.next() {
                Some(Choice::Random(v)) => v,
                other => {
                    self.diverge(format!(
                        "replay diverged: the schedule has {other:?} where the model draws a random value"
                    ));
                    0
                }
            },
        };
        self.record(Choice::Random(v));
        v
    }
}

/// A replayed execution.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub placement: String,
    /// The configuration of the scenario's scope the execution ran.
    pub configuration: String,
    pub steps: Vec<Step>,
    pub violations: Vec<Violation>,
    /// The execution's decisions as a replay string (for a byte schedule: the string that
    /// replays it without the bytes).
    pub schedule: String,
}

/// What one replayed execution leaves behind: its trace and violations.
type Executed = (Arc<Trace>, Vec<Violation>);

/// Re-run one execution of `model` under `schedule`. Errors: a malformed replay string, a
/// schedule that does not fit this model, a panic.
pub fn replay_shuttle<M: Model>(model: &M, schedule: ShuttleSchedule<'_>) -> Result<Replayed, String> {
    let source = match schedule {
        ShuttleSchedule::Recorded(s) => Source::Recorded(decode(s)?.into_iter()),
        // shuttle's Runner wants a 'static scheduler: the bytes are copied for the run.
        ShuttleSchedule::Bytes(bytes) => Source::Bytes(FromBytes { bytes: bytes.to_vec(), pos: 0, run: 0 }),
    };
    let capture = Capture::start();
    let diverged = Arc::new(Mutex::new(None));
    let tape = Arc::new(Mutex::new(Vec::new()));
    let scheduler = Replaying { source, started: false, diverged: diverged.clone(), tape: tape.clone() };
    let plans = model.shuttle_placement();
    let placement = model.placement_label(&plans);
    let result: Arc<Mutex<Option<Executed>>> = Arc::new(Mutex::new(None));
    let (m, r) = (model.clone(), result.clone());
    let run = catch_unwind(AssertUnwindSafe(move || {
        shuttle::Runner::new(scheduler, quiet_shuttle_config()).run(move || {
            let trace = Arc::new(Trace::new());
            let v = m.execute::<Shuttle>(&trace, &plans);
            *r.lock().unwrap_or_else(|e| e.into_inner()) = Some((trace, v));
        })
    }));
    if let Some(why) = diverged.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(format!("{why} (was the string recorded for this scenario, revision and checker?)"));
    }
    if let Err(payload) = run {
        let message = capture.take_message().unwrap_or_else(|| payload_message(&*payload));
        return Err(format!("the replayed execution panicked: {message}"));
    }
    let (trace, violations) = result
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .ok_or_else(|| "replay ended before the execution finished: the schedule is incomplete".to_string())?;
    let schedule = encode(&tape.lock().unwrap_or_else(|e| e.into_inner()));
    let configuration = trace.configuration().unwrap_or_else(|| model.configuration());
    Ok(Replayed { placement, configuration, steps: trace.steps(), violations, schedule })
}
