//! Shared by the control tests (`*_control.rs`): loom runs of small programs over the real
//! wb-core primitives (through the [`Platform`] facade, as [`Loom`]), counting the executions in
//! which an outcome was observed. A forbidden outcome is asserted inside the program: loom
//! re-raises the panic with the execution that produced it, and the test fails.

#![allow(dead_code)] // each test crate uses part of it

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::sync::{Atomic, Loom, Platform};
use wb_core::trace::Trace;

/// What an exploration saw.
#[derive(Debug, Clone, Copy)]
pub struct Explored {
    /// Executions loom ran.
    pub executions: u64,
    /// Executions in which the program reported the outcome under test.
    pub observed: u64,
}

/// Run `program` in every execution loom explores within `preemptions` (`None`: unbounded);
/// `program` returns whether its execution showed the outcome under test.
pub fn explore(preemptions: Option<usize>, program: impl Fn() -> bool + Sync + Send + 'static) -> Explored {
    let executions = Arc::new(AtomicU64::new(0));
    let observed = Arc::new(AtomicU64::new(0));
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = preemptions;
    builder.max_branches = 20_000;
    {
        let (executions, observed) = (executions.clone(), observed.clone());
        builder.check(move || {
            executions.fetch_add(1, Ordering::Relaxed);
            if program() {
                observed.fetch_add(1, Ordering::Relaxed);
            }
        });
    }
    Explored { executions: executions.load(Ordering::Relaxed), observed: observed.load(Ordering::Relaxed) }
}

/// A model task named `name` on `cpu` (registered in `trace` in the order the tasks call this).
pub fn task(trace: &Arc<Trace>, name: &str, cpu: usize) -> Ctx<Loom> {
    Ctx::new(trace.clone(), name, CpuPlan::Fixed(cpu))
}

/// A loom atomic flag or counter for the test's own signalling (not protocol state).
pub type Flag = Arc<<Loom as Platform>::AtomicUsize>;

pub fn flag() -> Flag {
    Arc::new(<<Loom as Platform>::AtomicUsize as Atomic<usize>>::new(0))
}

/// `flag.store(v, Release)`.
pub fn set(flag: &Flag, v: usize) {
    flag.store(v, Ordering::Release);
}

/// `flag.load(Acquire)`.
pub fn get(flag: &Flag) -> usize {
    flag.load(Ordering::Acquire)
}

/// Spin (yielding to loom) until `flag` reads `v` with Acquire.
pub fn wait_for(flag: &Flag, v: usize) {
    while flag.load(Ordering::Acquire) != v {
        Loom::yield_now();
    }
}
