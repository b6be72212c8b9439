//! The calling context of a modelled kernel function: which task, on which CPU, and where its
//! trace events go. Passed explicitly (never a thread-local: loom and shuttle run every model
//! thread on one OS thread).

use crate::sync::Platform;
use crate::trace::Trace;
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::Arc;

/// Where a task runs. CPUs are per-CPU slot indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuPlan {
    /// Always on this CPU.
    Fixed(usize),
    /// Starts on `from`; at its first migration point (between a `this_cpu_read` and the
    /// `this_cpu_try_cmpxchg` that follows, where preemption is enabled) moves to `to`.
    Migrate { from: usize, to: usize },
    /// Initial CPU and every migration drawn with [`Platform::choose`] (shuttle; replayed).
    Drawn { nr_cpus: usize },
}

impl CpuPlan {
    /// Short text for trace headers, e.g. `cpu0`, `cpu0->cpu1`, `drawn`.
    pub fn describe(&self) -> String {
        match self {
            CpuPlan::Fixed(c) => format!("cpu{c}"),
            CpuPlan::Migrate { from, to } => format!("cpu{from}->cpu{to}"),
            CpuPlan::Drawn { nr_cpus } => format!("drawn from {nr_cpus} cpus"),
        }
    }
}

/// A model task (kernel thread or user task) with its CPU.
pub struct Ctx<P: Platform> {
    tid: u8,
    trace: Arc<Trace>,
    plan: CpuPlan,
    cpu: Cell<usize>,
    migrated: Cell<bool>,
    _platform: PhantomData<P>,
}

impl<P: Platform> Ctx<P> {
    pub fn new(trace: Arc<Trace>, name: &str, plan: CpuPlan) -> Self {
        let tid = trace.register_thread(name);
        let cpu = match plan {
            CpuPlan::Fixed(c) | CpuPlan::Migrate { from: c, .. } => c,
            CpuPlan::Drawn { nr_cpus } => P::choose(nr_cpus),
        };
        let ctx = Ctx {
            tid,
            trace,
            plan,
            cpu: Cell::new(cpu),
            migrated: Cell::new(false),
            _platform: PhantomData,
        };
        if let CpuPlan::Drawn { .. } = plan {
            ctx.event("placement", "runs on cpu{}", &[cpu as i64]);
        }
        ctx
    }

    /// `smp_processor_id()`: the CPU the task is on now.
    #[inline]
    pub fn cpu(&self) -> usize {
        self.cpu.get()
    }

    /// A point where the kernel runs with preemption enabled, so the scheduler may move the
    /// task to another CPU.
    pub fn migration_point(&self) {
        let to = match self.plan {
            CpuPlan::Fixed(_) => return,
            CpuPlan::Migrate { to, .. } => {
                if self.migrated.replace(true) {
                    return;
                }
                to
            }
            CpuPlan::Drawn { nr_cpus } => P::choose(nr_cpus),
        };
        let from = self.cpu.replace(to);
        if from != to {
            self.event(
                "preemption",
                "task migrated cpu{} -> cpu{}",
                &[from as i64, to as i64],
            );
        }
    }

    /// Record a trace event for this task.
    #[inline]
    pub fn event(&self, function: &'static str, template: &'static str, args: &[i64]) {
        self.trace.record(self.tid, function, template, args);
    }

    pub fn trace(&self) -> &Arc<Trace> {
        &self.trace
    }
}
