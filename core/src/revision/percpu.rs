//! `percpu_counter` itself (scenario `percpu-counter`): the kernel's code and two mutants that
//! show what its properties rest on. `percpu::PercpuCounter` matches the revision itself.

use super::{Expect, Provenance, Role, PASS};
use crate::property::{NO_LOST_UPDATE, QUIESCENT_EXACT};

const LOST: Expect = Expect::fails(&[QUIESCENT_EXACT, NO_LOST_UPDATE]);
const SUM: Expect = Expect::fails(&[QUIESCENT_EXACT]);

crate::catalogue! {
    /// The revisions of lib/percpu_counter.c.
    pub enum PercpuRevision for "percpu-counter", knobs () {
        /// 6.12 (the cmpxchg variant).
        Kernel {
            name: "kernel",
            summary: "lib/percpu_counter.c (6.12, cmpxchg fast path, locked fold)",
            provenance: Provenance::Kernel,
            role: Role::Control,
            knobs: (),
            expected: [PASS, PASS, PASS, PASS],
        },
        /// The slow path folds into `count` without taking `fbc->lock`.
        UnlockedFold {
            name: "unlocked-fold",
            summary: "mutant: the fold into the global count without fbc->lock",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: (),
            expected: [LOST, LOST, LOST, PASS],
        },
        /// `__percpu_counter_sum` returns the global count only.
        SumAsRead {
            name: "sum-as-read",
            summary: "mutant: percpu_counter_sum returns only the global count",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: (),
            expected: [SUM, SUM, SUM, SUM],
        },
    }
}
