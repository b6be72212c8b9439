//! RCU: read-side critical sections per task (nesting allowed) and grace periods.
//!
//! A grace period waits exactly for the readers that were inside a section when it began, not
//! for a moment with no reader at all (that stronger wait would hide bugs). Each task has a word
//! holding (section number << 16 | nesting depth); `synchronize_rcu` snapshots every word and
//! waits until each task that was inside has left that section.
//!
//! Ordering, in C11 terms, gives RCU's guarantee without putting a barrier in the reader's own
//! program (a kernel `rcu_read_lock()` has none, and a fence there would hide store-buffering
//! bugs around it): every operation on a reader word is an RMW, readers entering with AcqRel and
//! leaving with Release, and the updater reads each word with an AcqRel RMW. RMWs on a word form
//! one release sequence, so either the updater's RMW reads a section's entry (then it waits for
//! the section's exit, whose Release makes the section happen before the rest of the grace
//! period), or a later entry reads from the updater's RMW chain (then the section sees every store
//! made before `synchronize_rcu`). `synchronize_rcu` itself begins and ends with `smp_mb()`.
//! `call_rcu` is modelled by its caller: it waits for a grace period and then runs the callback.

use crate::ctx::Ctx;
use crate::sync::{Ordering, Platform, Traced};
use crate::trace::Name;

const NESTING_MASK: usize = 0xffff;

pub struct Rcu<P: Platform> {
    /// One word per task (indexed by [`Ctx::tid`]).
    readers: Box<[Traced<P, P::AtomicUsize>]>,
}

impl<P: Platform> Rcu<P> {
    /// RCU state for tasks with ids below `max_tasks`.
    pub fn new(max_tasks: usize) -> Self {
        Rcu { readers: (0..max_tasks).map(|t| Traced::new(0, Name::int("rcu_reader[{}]", t as i64))).collect() }
    }

    fn word(&self, ctx: &Ctx<P>) -> &Traced<P, P::AtomicUsize> {
        self.readers.get(ctx.tid()).expect("Rcu::new was given fewer tasks than the model runs")
    }

    /// `rcu_read_lock()`.
    pub fn read_lock(&self, ctx: &Ctx<P>) {
        let w = self.word(ctx);
        if w.load(Ordering::Relaxed) & NESTING_MASK == 0 {
            // A new outermost section: next section number, depth 1.
            w.fetch_add((1 << 16) + 1, Ordering::AcqRel);
        } else {
            w.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// `rcu_read_unlock()`.
    pub fn read_unlock(&self, ctx: &Ctx<P>) {
        let w = self.word(ctx);
        assert!(
            w.load(Ordering::Relaxed) & NESTING_MASK > 0,
            "rcu_read_unlock outside a read-side section (a model bug)"
        );
        w.fetch_sub(1, Ordering::Release);
    }

    /// Whether the task is inside a read-side section.
    pub fn in_read_section(&self, ctx: &Ctx<P>) -> bool {
        self.word(ctx).load(Ordering::Relaxed) & NESTING_MASK != 0
    }

    /// `synchronize_rcu()`: wait for every reader that is inside a section now.
    pub fn synchronize(&self, ctx: &Ctx<P>) {
        assert!(!self.in_read_section(ctx), "synchronize_rcu inside a read-side section (a model bug)");
        P::fence(Ordering::SeqCst);
        let snapshot: Vec<usize> = self.readers.iter().map(|r| r.fetch_add(0, Ordering::AcqRel)).collect();
        let mut waited = 0;
        for (t, &seen) in snapshot.iter().enumerate() {
            if seen & NESTING_MASK == 0 {
                continue;
            }
            waited += 1;
            loop {
                let now = self.readers[t].fetch_add(0, Ordering::AcqRel);
                if now >> 16 != seen >> 16 || now & NESTING_MASK == 0 {
                    break;
                }
                P::yield_now();
            }
        }
        P::fence(Ordering::SeqCst);
        ctx.event("synchronize_rcu", "grace period over: waited for {} reader(s) inside a section", &[waited]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::CpuPlan;
    use crate::sync::Std;
    use crate::trace::Trace;
    use std::sync::Arc;

    #[test]
    fn nesting_and_quiescent_grace_period() {
        let trace = Arc::new(Trace::new());
        let a = Ctx::<Std>::new(trace.clone(), "a", CpuPlan::Fixed(0));
        let b = Ctx::<Std>::new(trace.clone(), "b", CpuPlan::Fixed(0));
        let rcu = Rcu::<Std>::new(2);
        rcu.read_lock(&a);
        rcu.read_lock(&a);
        rcu.read_unlock(&a);
        assert!(rcu.in_read_section(&a));
        rcu.read_unlock(&a);
        assert!(!rcu.in_read_section(&a));
        rcu.synchronize(&b); // nobody inside: returns at once
        let last = trace.steps().pop().expect("the grace period's step");
        assert_eq!(last.detail, "grace period over: waited for 0 reader(s) inside a section");
    }

    /// A grace period that begins while a reader is inside waits for it, and says so.
    #[test]
    fn a_grace_period_waits_for_a_reader_inside() {
        let trace = Arc::new(Trace::new());
        let rcu = Arc::new(Rcu::<Std>::new(2));
        let a = Ctx::<Std>::new(trace.clone(), "a", CpuPlan::Fixed(0));
        rcu.read_lock(&a);
        let started = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let gp = {
            let (rcu, trace, started) = (rcu.clone(), trace.clone(), started.clone());
            std::thread::spawn(move || {
                let b = Ctx::<Std>::new(trace, "b", CpuPlan::Fixed(1));
                started.store(true, std::sync::atomic::Ordering::SeqCst);
                rcu.synchronize(&b);
            })
        };
        while !started.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::yield_now();
        }
        // Time enough for the grace period to take its snapshot and start waiting.
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(!gp.is_finished(), "the grace period ended while the reader it began with is inside");
        rcu.read_unlock(&a);
        gp.join().unwrap();
        let last = trace.steps().pop().expect("the grace period's step");
        assert_eq!(last.detail, "grace period over: waited for 1 reader(s) inside a section");
    }

    /// Each outermost section gets a new number: the grace period's poll tells "left and came
    /// back" (a new section, not waited for) from "still inside" by it.
    #[test]
    fn each_outermost_section_is_numbered() {
        let a = Ctx::<Std>::new(Arc::new(Trace::new()), "a", CpuPlan::Fixed(0));
        let rcu = Rcu::<Std>::new(1);
        let word = || rcu.readers[0].load(Ordering::Relaxed);
        rcu.read_lock(&a);
        let first = word();
        rcu.read_lock(&a);
        assert_eq!(word() >> 16, first >> 16, "a nested lock stays in the section");
        rcu.read_unlock(&a);
        rcu.read_unlock(&a);
        rcu.read_lock(&a);
        assert_eq!((word() >> 16, word() & NESTING_MASK), ((first >> 16) + 1, 1));
        rcu.read_unlock(&a);
    }
}
