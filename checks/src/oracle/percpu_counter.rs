//! Reference `percpu_counter`: `count` plus per-CPU slots, batch folding, every call atomic;
//! and the oracle of `percpu-counter`.

use super::{placements, Oracle, Program};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::percpu::PercpuCounter;
use wb_core::revision::PercpuRevision;
use wb_core::sync::Std;
use wb_core::trace::{Step, Trace};
use wb_models::bounds::Tier;
use wb_models::percpu_counter::{ADDS, BATCH, NO_LOST_UPDATE, NR_CPUS, QUIESCENT_EXACT, READ_ERROR_BOUND};

pub use wb_models::percpu_counter::NAME;

/// The sequential meaning of lib/percpu_counter.c with a given batch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RefPercpu {
    pub count: i64,
    pub slots: Vec<i64>,
    pub batch: i64,
}

impl RefPercpu {
    pub fn new(nr_cpus: usize, batch: i64) -> Self {
        RefPercpu { count: 0, slots: vec![0; nr_cpus], batch }
    }

    /// `percpu_counter_add_batch` on `cpu`: the slot keeps the sum while it stays strictly
    /// inside (-batch, batch); otherwise slot and amount move to `count` and the slot empties.
    pub fn add(&mut self, cpu: usize, amount: i64) {
        let next = self.slots[cpu] + amount;
        if next.abs() < self.batch {
            self.slots[cpu] = next;
        } else {
            self.count += next;
            self.slots[cpu] = 0;
        }
    }

    /// `percpu_counter_read`: the global part only.
    pub fn read(&self) -> i64 {
        self.count
    }

    pub fn read_positive(&self) -> i64 {
        self.count.max(0)
    }

    /// `percpu_counter_sum`: everything.
    pub fn sum(&self) -> i64 {
        self.count + self.slots.iter().sum::<i64>()
    }

    pub fn sum_positive(&self) -> i64 {
        self.sum().max(0)
    }
}

/// A call of the percpu-counter scenario: an add of `.0` on CPU `.1`, a read, a sum.
#[derive(Debug, Clone, Copy)]
pub enum PercpuOp {
    Add(i64, usize),
    Read,
    Sum,
}

/// The oracle of `percpu-counter`: every interleaving of the two adders' adds (each add on
/// either CPU: a task may run each call on another CPU) and the reader's read, sum, read.
pub struct PercpuOracle;

/// The reference counter, the last call's result, and the properties seen on the way.
pub struct PercpuRef {
    model: RefPercpu,
    sum_as_read: bool,
    result: Option<i64>,
    found: Vec<(&'static str, String)>,
}

pub struct PercpuCore {
    counter: PercpuCounter<Std>,
    ctxs: Vec<Ctx<Std>>,
    result: Option<i64>,
}

const THREADS: [&str; 3] = ["adder0", "adder1", "reader"];

impl Oracle for PercpuOracle {
    type Revision = PercpuRevision;
    type Op = PercpuOp;
    type Setup = ();
    type Reference = PercpuRef;
    type Core = PercpuCore;

    fn programs(&self, _: Tier) -> Vec<Program<PercpuOp, ()>> {
        let n = ADDS.len();
        placements(2 * n, NR_CPUS)
            .into_iter()
            .map(|cpus| {
                let adds = |a: usize| -> Vec<PercpuOp> {
                    ADDS.iter().enumerate().map(|(i, &x)| PercpuOp::Add(x, cpus[a * n + i])).collect()
                };
                Program {
                    configuration: String::new(),
                    placement: format!("the adds on cpus {cpus:?}"),
                    threads: vec![adds(0), adds(1), vec![PercpuOp::Read, PercpuOp::Sum, PercpuOp::Read]],
                    epilogue: Vec::new(),
                    setup: (),
                }
            })
            .collect()
    }

    fn bounds(&self, _: Tier) -> Vec<(String, u64)> {
        vec![("cpus".into(), NR_CPUS as u64), ("batch".into(), BATCH as u64)]
    }

    fn reference(&self, rev: PercpuRevision, _: &()) -> PercpuRef {
        let sum_as_read = match rev {
            PercpuRevision::Kernel | PercpuRevision::UnlockedFold => false,
            PercpuRevision::SumAsRead => true,
        };
        PercpuRef { model: RefPercpu::new(NR_CPUS, i64::from(BATCH)), sum_as_read, result: None, found: Vec::new() }
    }

    fn core(&self, rev: PercpuRevision, _: &()) -> PercpuCore {
        let trace = Arc::new(Trace::disabled());
        PercpuCore {
            counter: PercpuCounter::new(NR_CPUS).with_revision(rev),
            ctxs: (0..NR_CPUS).map(|c| Ctx::new(trace.clone(), "cpu", CpuPlan::Fixed(c))).collect(),
            result: None,
        }
    }

    fn apply_reference(&self, r: &mut PercpuRef, _: &(), thread: usize, op: PercpuOp) -> Step {
        let m = &mut r.model;
        let (function, detail) = match op {
            PercpuOp::Add(a, cpu) => {
                m.add(cpu, a);
                r.result = None;
                ("percpu_counter_add_batch", format!("+{a} on cpu{cpu}"))
            }
            PercpuOp::Read => {
                let (read, e) = (m.read(), m.sum());
                if (read - e).abs() > NR_CPUS as i64 * i64::from(BATCH - 1) {
                    r.found.push((READ_ERROR_BOUND, format!("read {read}, true value {e}")));
                }
                r.result = Some(read);
                ("percpu_counter_read", format!("= {read}"))
            }
            PercpuOp::Sum => {
                let sum = if r.sum_as_read { m.read() } else { m.sum() };
                r.result = Some(sum);
                ("percpu_counter_sum", format!("= {sum}"))
            }
        };
        Step::new(THREADS[thread], function, format!("{detail}: count {} slots {:?}", m.count, m.slots))
    }

    fn apply_core(&self, c: &mut PercpuCore, _: usize, op: PercpuOp) {
        c.result = match op {
            PercpuOp::Add(a, cpu) => {
                c.counter.add_batch(&c.ctxs[cpu], a, BATCH);
                None
            }
            PercpuOp::Read => Some(c.counter.read()),
            PercpuOp::Sum => Some(c.counter.sum(&c.ctxs[0])),
        };
    }

    fn diverges(&self, r: &PercpuRef, c: &PercpuCore) -> Option<String> {
        let state = (c.counter.read(), c.counter.raw_slots());
        (c.result != r.result || state != (r.model.count, r.model.slots.clone())).then(|| {
            format!(
                "wb-core's counter (count {}, slots {:?}) returned {:?}; the reference's returned {:?}",
                state.0, state.1, c.result, r.result
            )
        })
    }

    fn violated(&self, r: &PercpuRef, _: &()) -> Vec<(&'static str, String)> {
        let total: i64 = 2 * ADDS.iter().sum::<i64>();
        let mut found = r.found.clone();
        let sum = if r.sum_as_read { r.model.read() } else { r.model.sum() };
        if sum != total {
            found.push((QUIESCENT_EXACT, format!("percpu_counter_sum = {sum} at the end; the adds total {total}")));
        }
        if r.model.sum() != total {
            found.push((NO_LOST_UPDATE, format!("count + slots = {} at the end", r.model.sum())));
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_at_the_batch() {
        let mut c = RefPercpu::new(2, 4);
        c.add(0, 3);
        assert_eq!((c.read(), c.sum()), (0, 3));
        c.add(0, 1);
        assert_eq!((c.read(), c.slots.clone()), (4, vec![0, 0]));
        c.add(1, -9);
        assert_eq!((c.read(), c.read_positive(), c.sum_positive()), (-5, 0, 0));
    }
}
