//! The calling context of a modelled kernel function: which task, on which CPU, and where its
//! trace events go. Passed explicitly (never a std thread-local: loom and shuttle run every model
//! thread on one OS thread). The one exception is the platform's record of memory accesses,
//! made by bit operations that take no `Ctx` ([`Platform::enter`]).

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
    /// Initial CPU drawn with [`Platform::choose`] (shuttle; replayed); at each migration point
    /// the task stays put with probability 1/2 and otherwise moves to a drawn CPU.
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

/// Property detected by the IRQ-state model: interrupts enabled while an irqsave lock (one also
/// taken from interrupt context, such as the i_pages xa_lock) is held.
pub const IRQ_ENABLED_UNDER_LOCK: &str = "irq-enabled-under-lock";

/// A model task (kernel thread or user task) with its CPU and its local IRQ state.
pub struct Ctx<P: Platform> {
    /// The trace's name for the task ([`Trace::register_thread`]).
    tid: u8,
    /// The task's index for per-task kernel state ([`Platform::task_index`]).
    task: usize,
    trace: Arc<Trace>,
    plan: CpuPlan,
    cpu: Cell<usize>,
    migrated: Cell<bool>,
    irqs_disabled: Cell<bool>,
    /// Locks taken irqsave and not yet released.
    irqsave_held: Cell<u32>,
    _platform: PhantomData<P>,
}

impl<P: Platform> Ctx<P> {
    /// A task of `trace`: the calling model thread's until dropped ([`Platform::enter`]).
    pub fn new(trace: Arc<Trace>, name: &str, plan: CpuPlan) -> Self {
        Self::with_task_index(trace, name, plan, P::task_index())
    }

    /// The same, with `task` its index in per-task kernel state ([`Ctx::tid`]) where given: for
    /// a model thread that runs more than one task at once (tasks of one model thread share the
    /// platform's index otherwise).
    pub fn with_task_index(trace: Arc<Trace>, name: &str, plan: CpuPlan, task: Option<usize>) -> Self {
        let tid = trace.register_thread(name);
        let cpu = match plan {
            CpuPlan::Fixed(c) | CpuPlan::Migrate { from: c, .. } => c,
            CpuPlan::Drawn { nr_cpus } => P::choose(nr_cpus),
        };
        let ctx = Ctx {
            tid,
            task: task.unwrap_or(usize::from(tid)),
            trace,
            plan,
            cpu: Cell::new(cpu),
            migrated: Cell::new(false),
            irqs_disabled: Cell::new(false),
            irqsave_held: Cell::new(0),
            _platform: PhantomData,
        };
        P::enter(&ctx.trace, tid);
        if let CpuPlan::Drawn { .. } = plan {
            ctx.event("placement", "runs on cpu{}", &[cpu as i64]);
        }
        ctx
    }

    /// The task's index (per-thread kernel state such as RCU readers is indexed by it): the
    /// same in every schedule under loom ([`Platform::task_index`]).
    pub fn tid(&self) -> usize {
        self.task
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
            CpuPlan::Drawn { nr_cpus } => match P::choose(2 * nr_cpus) {
                c if c < nr_cpus => c,
                _ => return,
            },
        };
        let from = self.cpu.replace(to);
        if from != to {
            self.event("preemption", "task migrated cpu{} -> cpu{}", &[from as i64, to as i64]);
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

    /// Record a property violation detected at this step (and a trace event saying so).
    pub fn detect(&self, property: &'static str, function: &'static str, message: String) {
        self.event(function, "VIOLATION: see the property message", &[]);
        self.trace.detect(property, message);
    }

    /// `local_irq_save()`: disable interrupts, returning whether they were disabled before.
    pub fn local_irq_save(&self) -> bool {
        self.irqs_disabled.replace(true)
    }

    /// `local_irq_restore()`.
    pub fn local_irq_restore(&self, function: &'static str, was_disabled: bool) {
        if !was_disabled {
            self.local_irq_enable(function);
        }
    }

    /// `local_irq_enable()`: a violation if an irqsave lock is still held.
    pub fn local_irq_enable(&self, function: &'static str) {
        let held = self.irqsave_held.get();
        if held > 0 {
            self.detect(
                IRQ_ENABLED_UNDER_LOCK,
                function,
                format!("{function} re-enables interrupts while {held} lock(s) taken irqsave are held: an interrupt that takes the same lock on this CPU would spin forever"),
            );
        }
        self.irqs_disabled.set(false);
    }

    pub(crate) fn irqsave_acquired(&self) {
        self.irqsave_held.set(self.irqsave_held.get() + 1);
    }

    pub(crate) fn irqsave_released(&self) {
        self.irqsave_held.set(self.irqsave_held.get() - 1);
    }
}

impl<P: Platform> Drop for Ctx<P> {
    fn drop(&mut self) {
        P::leave(&self.trace, self.tid);
    }
}
