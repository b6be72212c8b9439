//! Run a [`Program`] under the checkers wbcheck depends on, through wb-core's [`Platform`] (the
//! same atomics, fences and mutexes the models use), and collect every final state reached.
//!
//! - [`loom_outcomes`]: loom with no preemption bound, so every execution its exploration
//!   reaches is run (the workspace's loom is the repaired one: `third_party/loom/PATCHED.md`);
//! - [`shuttle_dfs_outcomes`]: shuttle's depth-first scheduler, which runs every schedule (its
//!   atomics are sequentially consistent: a cross-check of the SC enumerator).
//!
//! Each thread runs its operations in order; thread 0 runs on the checker's main thread when
//! [`Program::t0_on_main`] says so, the others are spawned and joined. After the joins, main
//! loads every location: everything happened before it, so each load reads the location's last
//! store.

use super::program::{Op, Outcome, Program};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering as StdOrdering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wb_core::sync::{Atomic, Lock, Loom, Ordering, Platform, Shuttle};

/// What a checker reached: the final states, how many executions it ran and, for loom, the
/// distinct execution graphs among them (`loom::graph_id`; empty for shuttle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    pub outcomes: BTreeSet<Outcome>,
    pub executions: u64,
    pub graphs: BTreeSet<u64>,
}

/// One thread's operations on the shared locations and mutexes; returns its registers.
fn run_thread<P: Platform>(ops: &[Op], locs: &[P::AtomicUsize], mutexes: &[P::Mutex<()>]) -> Vec<u64> {
    let mut regs = Vec::new();
    let mut held = None;
    for op in ops {
        let at = |loc: u8| &locs[loc as usize];
        let read = match *op {
            Op::Load { loc, mo } => Some(at(loc).load(mo.std())),
            Op::Store { loc, val, mo } => {
                at(loc).store(val as usize, mo.std());
                None
            }
            Op::Swap { loc, val, mo } => Some(at(loc).swap(val as usize, mo.std())),
            Op::FetchAdd { loc, val, mo } => Some(at(loc).fetch_add(val as usize, mo.std())),
            Op::Cas { loc, expected, new, success, failure } => {
                let r = at(loc).compare_exchange(expected as usize, new as usize, success.std(), failure.std());
                Some(r.unwrap_or_else(|v| v))
            }
            Op::Fence { mo } => {
                P::fence(mo.std());
                None
            }
            Op::Lock { mutex } => {
                held = Some(mutexes[mutex as usize].lock());
                None
            }
            Op::Unlock { .. } => {
                held = None;
                None
            }
        };
        if let Some(v) = read {
            regs.push(v as u64);
        }
    }
    drop(held);
    regs
}

/// One execution of `p` under platform `P` (inside a loom or shuttle model).
fn execute<P: Platform>(p: &Program) -> Outcome {
    let locs: Arc<Vec<P::AtomicUsize>> = Arc::new((0..p.locs).map(|_| P::AtomicUsize::new(0)).collect());
    let mutexes: Arc<Vec<P::Mutex<()>>> =
        Arc::new((0..super::program::MAX_MUTEXES).map(|_| P::Mutex::new(())).collect());
    let regs: Arc<Mutex<Vec<Vec<u64>>>> = Arc::new(Mutex::new(vec![Vec::new(); p.threads.len()]));
    let first_spawned = usize::from(p.t0_on_main);
    let handles: Vec<P::JoinHandle> = (first_spawned..p.threads.len())
        .map(|t| {
            let (ops, locs, mutexes, regs) = (p.threads[t].clone(), locs.clone(), mutexes.clone(), regs.clone());
            P::spawn(move || {
                let mine = run_thread::<P>(&ops, &locs, &mutexes);
                regs.lock().unwrap()[t] = mine;
            })
        })
        .collect();
    if p.t0_on_main {
        let mine = run_thread::<P>(&p.threads[0], &locs, &mutexes);
        regs.lock().unwrap()[0] = mine;
    }
    for h in handles {
        P::join(h);
    }
    let regs = std::mem::take(&mut *regs.lock().unwrap());
    Outcome { regs, locs: locs.iter().map(|l| l.load(Ordering::Relaxed) as u64).collect() }
}

/// Run `check` (which runs its argument once per execution) and collect the outcomes.
/// `mine` says whether an execution is this search's to count (another slice's, under a loom
/// search split by prefix, is not); `graph` names its execution graph, where the checker can.
fn collect(
    check: impl FnOnce(Box<dyn Fn() + Send + Sync>),
    p: &Program,
    run: fn(&Program) -> Outcome,
    mine: fn() -> bool,
    graph: fn() -> Option<u64>,
) -> Reached {
    let seen = Arc::new(Mutex::new((BTreeSet::new(), BTreeSet::new())));
    let executions = Arc::new(AtomicU64::new(0));
    let (program, seen2, executions2) = (Arc::new(p.clone()), seen.clone(), executions.clone());
    check(Box::new(move || {
        let o = run(&program);
        if mine() {
            executions2.fetch_add(1, StdOrdering::Relaxed);
            let mut seen = seen2.lock().unwrap();
            seen.0.insert(o);
            seen.1.extend(graph());
        }
    }));
    let (outcomes, graphs) = std::mem::take(&mut *seen.lock().unwrap());
    Reached { outcomes, executions: executions.load(StdOrdering::Relaxed), graphs }
}

/// Every final state loom reaches with no preemption bound.
pub fn loom_outcomes(p: &Program) -> Reached {
    loom_outcomes_within(p, None).expect("no time limit")
}

/// Every final state loom reaches with no preemption bound, or `None` when the search was
/// still running after `limit` (loom looks at the clock every 1,000 executions).
pub fn loom_outcomes_within(p: &Program, limit: Option<Duration>) -> Option<Reached> {
    let start = Instant::now();
    let reached = loom_search(p, move |b| {
        b.max_duration = limit;
        b.checkpoint_interval = 1_000;
    });
    match limit {
        Some(limit) if start.elapsed() >= limit => None,
        _ => Some(reached),
    }
}

/// Every final state loom reaches with no preemption bound, or `None` when the search needs
/// more than `cap` executions (a limit that, unlike time, every machine reaches alike).
pub fn loom_outcomes_capped(p: &Program, cap: usize) -> Option<Reached> {
    let reached = loom_search(p, move |b| {
        b.max_permutations = Some(cap + 2);
        b.checkpoint_interval = 1;
    });
    (reached.executions <= cap as u64).then_some(reached)
}

/// Every final state loom reaches within preemption bound `bound`, with or without the vendored
/// loom's sleep sets under the bound (`Builder::bounded_sleep_sets`: the reduction is compared
/// with the search it reduces).
pub fn loom_outcomes_bounded(p: &Program, bound: usize, bounded_sleep_sets: bool) -> Reached {
    loom_search(p, move |b| {
        b.preemption_bound = Some(bound);
        b.bounded_sleep_sets = bounded_sleep_sets;
    })
}

/// Every final state loom reaches with no preemption bound, with or without the vendored loom's
/// source sets (`Builder::source_sets`: the reduction is compared with the search it reduces).
pub fn loom_outcomes_source(p: &Program, source_sets: bool) -> Reached {
    loom_search(p, move |b| b.source_sets = source_sets)
}

/// Every final state loom reaches within `bound` (none: unbounded), with a thread's end racing
/// with its join as upstream loom has it or not (`Builder::join_races`: the search without the
/// spurious race is compared with the one with it).
pub fn loom_outcomes_join_races(p: &Program, bound: Option<usize>, join_races: bool) -> Reached {
    loom_search(p, move |b| {
        b.preemption_bound = bound;
        b.join_races = join_races;
    })
}

/// Every final state loom reaches within `bound` (none: unbounded; with a bound, sleep sets under
/// it), with a read woken from a sleep set allowed the last store before it fell asleep, as before
/// the vendored loom's eleventh patch, or not (`Builder::loose_wakes`: the two are compared).
pub fn loom_outcomes_loose_wakes(p: &Program, bound: Option<usize>, loose_wakes: bool) -> Reached {
    loom_search(p, move |b| {
        b.preemption_bound = bound;
        b.bounded_sleep_sets = bound.is_some();
        b.loose_wakes = loose_wakes;
    })
}

/// Every final state loom reaches within preemption bound `bound`, with the switches that cost no
/// preemption explored at the bound too or not (`Builder::free_switches`: the wider search is
/// compared with upstream's).
pub fn loom_outcomes_free_switches(p: &Program, bound: usize, free_switches: bool) -> Reached {
    loom_search(p, move |b| {
        b.preemption_bound = Some(bound);
        b.free_switches = free_switches;
    })
}

/// Every final state loom reaches within `bound` (none: unbounded; with a bound, sleep sets under
/// it), with a thread's start waking every sleeping thread as upstream loom has it, or none
/// (`Builder::start_wakes`: the two are compared).
pub fn loom_outcomes_start_wakes(p: &Program, bound: Option<usize>, start_wakes: bool) -> Reached {
    loom_search(p, move |b| {
        b.preemption_bound = bound;
        b.bounded_sleep_sets = bound.is_some();
        b.start_wakes = start_wakes;
    })
}

/// Slice `slice` of the loom search at `bound` split by prefix ([`crate::bounds::Slices`],
/// `Builder::split_depth`): the final states and executions of that slice.
pub fn loom_outcomes_sliced(p: &Program, bound: Option<usize>, split: crate::bounds::Slices, slice: usize) -> Reached {
    loom_search(p, move |b| {
        b.preemption_bound = bound;
        (b.split_depth, b.split_width, b.slices, b.slice) = (split.depth, split.width, split.count, slice);
    })
}

fn loom_search(p: &Program, limit: impl FnOnce(&mut loom::model::Builder)) -> Reached {
    collect(
        |f| {
            let mut builder = loom::model::Builder::new();
            builder.preemption_bound = None;
            builder.max_branches = 100_000;
            limit(&mut builder);
            builder.check(f);
        },
        p,
        execute::<Loom>,
        loom::in_slice,
        || Some(loom::graph_id()),
    )
}

/// Every final state shuttle's depth-first scheduler reaches (every schedule).
pub fn shuttle_dfs_outcomes(p: &Program) -> Reached {
    collect(|f| shuttle::check_dfs(f, None), p, execute::<Shuttle>, || true, || None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c11::{rc11, sc};

    fn program(text: &str) -> Program {
        Program::parse(text).unwrap()
    }

    #[test]
    fn loom_runs_a_message_passing_program() {
        let p = program("T0: x.store(1, rlx); y.store(1, rel)\nT1: y.load(acq); x.load(rlx)");
        let reached = loom_outcomes(&p);
        assert_eq!(reached.outcomes, rc11::outcomes(&p));
        assert!(reached.executions > 1);
        assert_eq!(Some(reached.graphs.len()), rc11::graphs(&p, 10_000));
    }

    #[test]
    fn shuttle_dfs_reaches_the_sc_states() {
        let p = program("T0: x.store(1); y.load()\nT1: y.store(1); x.load()");
        assert_eq!(shuttle_dfs_outcomes(&p).outcomes, sc::outcomes(&p));
    }

    #[test]
    fn mutex_sections_and_main_thread() {
        let p = program(
            "main: T0\nT0: lock(m0); x.fetch_add(1, rlx); unlock(m0)\nT1: lock(m0); x.fetch_add(1, rlx); unlock(m0)",
        );
        let reached = loom_outcomes(&p);
        assert_eq!(reached.outcomes, rc11::outcomes(&p));
        assert_eq!(shuttle_dfs_outcomes(&p).outcomes, sc::outcomes(&p));
    }
}
