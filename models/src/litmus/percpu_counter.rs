//! percpu-counter: the add's compare-exchange on its CPU's slot against the fold under
//! `fbc->lock` (the core, `kernel` and `unlocked-fold`), and `__percpu_counter_sum`'s plain slot
//! loads against an add on another CPU (`+sum`, `kernel`).

use super::{loom_reports, Basis, Litmus, Prediction, Proc};
use crate::percpu_counter::{NAME, NO_LOST_UPDATE};
use wb_core::revision::PercpuRevision;

pub fn exports() -> Vec<Litmus> {
    vec![fold(PercpuRevision::Kernel), fold(PercpuRevision::UnlockedFold), sum()]
}

/// The fold of one CPU (`cpu`, its slot `slot`, registers `ra`, `rb`), with or without the lock.
fn folder(cpu: usize, locked: bool) -> Proc {
    let (slot, ra, rb) = if cpu == 0 { ("slot0", "r2", "r3") } else { ("slot1", "r4", "r5") };
    let params = if cpu == 0 {
        "int *slot0, int *count, spinlock_t *fbc_lock"
    } else {
        "int *slot1, int *count, spinlock_t *fbc_lock"
    };
    let regs: &'static [&'static str] = if cpu == 0 { &["int r2", "int r3"] } else { &["int r4", "int r5"] };
    let mut p = Proc::new(params, regs);
    p = if locked {
        p.line("spin_lock(fbc_lock);", "raw_spin_lock_irqsave(&fbc->lock)")
    } else {
        p.line("", "(mutant) no fbc->lock")
    };
    p = p
        .line(format!("{ra} = READ_ONCE(*{slot});"), "count = __this_cpu_read(*fbc->counters)")
        .line(format!("{rb} = *count;"), "fbc->count += count + amount (plain)")
        .line(format!("*count = {rb} + {ra} + 5;"), "")
        .line(format!("atomic_sub({ra}, {slot});"), "__this_cpu_sub(*fbc->counters, count)");
    if locked {
        p = p.line("spin_unlock(fbc_lock);", "raw_spin_unlock_irqrestore");
    }
    p
}

fn fold(rev: PercpuRevision) -> Litmus {
    let locked = match rev {
        PercpuRevision::Kernel => true,
        PercpuRevision::UnlockedFold => false,
        PercpuRevision::SumAsRead => unreachable!("sum-as-read has no fold export: its sum reads no slot"),
    };
    let lost = loom_reports(rev, NO_LOST_UPDATE);
    let p0 = Proc::new("int *slot0", &["int r0", "int r1"])
        .line("r0 = READ_ONCE(*slot0);", "count = this_cpu_read(*fbc->counters)")
        .line("r1 = cmpxchg_relaxed(slot0, r0, r0 + 1);", "this_cpu_try_cmpxchg: |count + 1| < batch");
    let prediction = if locked { Prediction::sometimes_if(lost) } else { Prediction::sometimes_if(lost).racy() };
    let race = if locked {
        "No data race: fbc->count is plain, but only the folds touch it, under the lock.".to_string()
    } else {
        "DATARACE: without the lock the two folds' plain accesses to fbc->count race, which LKMM flags; the \
         race is the bug (one fold's store overwrites the other's), and the outcome it allows is the lost \
         update, as loom finds with fbc->count as a Relaxed atomic."
            .to_string()
    };
    Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: None,
        title: "the add's compare-exchange against the fold on its CPU and another CPU's fold".into(),
        summary: rev.summary(),
        prediction,
        basis: Basis {
            short: format!("loom: {}; lock model", if lost { "fail (no-lost-update)" } else { "pass" }),
            long: format!(
                "loom's verdict on no-lost-update, {}, with wbcheck's spinlock (acquire on lock, release on \
                 unlock, as LKMM's). {race}",
                if lost { "fail" } else { "pass" }
            ),
        },
        notes: vec![
            "Batch 8; each slot holds 3 from an earlier add. P0 is a task on cpu0 adding 1 on the fast path \
             (one compare-exchange; it succeeds when r1=r0). P1 is an add of 5 on cpu0 that reaches the batch \
             and folds (an interrupt handler, or another task after P0 was preempted between its read and its \
             compare-exchange); P2 is the same on cpu1. The counter's value is count + slot0 + slot1, 16 \
             without P0's add and 17 with it. The exists clause is a lost update: count 8 or 9 (one fold \
             overwrote the other's count), or P0's add succeeded against 3 and the fold's slot update dropped \
             it (count 16, slot0 0: the fold stored 0 instead of subtracting what it read)."
                .into(),
            "Not expressible: P0 and P1 share a CPU, and LKMM's processes are CPUs. The closest shape gives \
             them separate processes with the slot accessed only by marked atomics (this_cpu operations are \
             atomic against their own CPU; the fold's read and subtract run with IRQs off). That allows more \
             interleavings than one CPU does, never fewer, so a Never here holds on one CPU too. Reduced: the \
             compare-exchange loop (one attempt; a failed one retries with the value it saw), the batch test \
             (the amounts decide it), CPU hotplug."
                .into(),
        ],
        init: vec!["slot0=3", "slot1=3", "count=0"],
        procs: vec![p0, folder(0, locked), folder(1, locked)],
        exists: "count=8 \\/ count=9 \\/ (0:r0=3 /\\ 0:r1=3 /\\ count=16 /\\ slot0=0)".into(),
    }
}

/// `__percpu_counter_sum` as the kernel writes it: plain loads of the slots.
fn sum() -> Litmus {
    let p0 = Proc::new("int *slot0", &["int r0", "int r1"])
        .line("r0 = READ_ONCE(*slot0);", "count = this_cpu_read(*fbc->counters)")
        .line("r1 = cmpxchg_relaxed(slot0, r0, r0 + 1);", "this_cpu_try_cmpxchg: the add on cpu0");
    let p1 = Proc::new("int *slot0, int *slot1, int *count, spinlock_t *fbc_lock", &["int r2", "int r3", "int r4"])
        .line("spin_lock(fbc_lock);", "__percpu_counter_sum: raw_spin_lock_irqsave")
        .line("r2 = *count;", "ret = fbc->count")
        .line("r3 = *slot0;", "ret += *pcount (plain)")
        .line("r4 = *slot1;", "")
        .line("spin_unlock(fbc_lock);", "");
    Litmus {
        scenario: NAME,
        revision: PercpuRevision::Kernel.name(),
        shape: Some("sum"),
        title: "__percpu_counter_sum's plain slot loads against an add on another CPU".into(),
        summary: PercpuRevision::Kernel.summary(),
        prediction: Prediction::SOMETIMES.racy(),
        basis: Basis {
            short: "the sum is not a snapshot; the plain loads race".into(),
            long: "Sometimes: a sum concurrent with an add may miss it (the fast path takes no lock; \
                   wbcheck's percpu-counter scenario allows this and checks only quiescent sums). DATARACE: \
                   the sum's plain load of slot0 races with P0's compare-exchange on another CPU. The kernel \
                   accepts that race (an aligned s32 load is single-copy atomic where the kernel runs); LKMM, \
                   following C, does not, and with the race flagged the outcome is undefined. Every export that \
                   reads a slot for the sum (dontcache-kick, wb-pin +switch-kick) uses READ_ONCE instead, \
                   stating that assumption, so that LKMM answers the ordering question."
                .into(),
        },
        notes: vec!["Reduced: the add's loop (one attempt), the fold (it takes the lock, and only the fast path is \
             unlocked), the online-CPU mask (two CPUs)."
            .into()],
        init: vec!["slot0=0", "slot1=0", "count=0"],
        procs: vec![p0, p1],
        exists: "0:r1=0 /\\ 1:r3=0".into(),
    }
}
