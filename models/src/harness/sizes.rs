//! How large a scenario's threads are, in the units the checker of the checker counts
//! (docs/c11.md): operations per thread (an atomic access or fence is one, a lock section two,
//! its lock and unlock) and atomics touched. loom's completeness is tested on programs of up to
//! 4 threads, 6 operations and 3 atomics (models/tests/c11_differential.rs, the campaigns);
//! `wbcheck`'s README states which scenarios lie inside that, from these figures.
//!
//! A scenario's model runs under [`Counting`], loom's primitives with a count of every operation
//! per loom thread, over the executions loom explores at preemption bound 0 for every loom
//! configuration and placement: the figures are the largest seen there, a lower bound on the
//! largest of any execution.

use super::Model;
use crate::bounds::Bounds;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering as StdOrdering};
use std::sync::{Arc, Mutex};
use wb_core::sync::{Atomic, Lock, Loom, Ordering, Platform};
use wb_core::trace::Loc;
use wb_core::trace::Trace;

/// The largest figures seen. The main thread (which builds the state before it spawns the
/// others, and checks it after they join) is left out of the per-thread figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sizes {
    /// Threads spawned.
    pub threads: usize,
    /// The most operations one spawned thread ran in one execution.
    pub longest_thread: usize,
    /// The most atomics one spawned thread touched in one execution.
    pub thread_atomics: usize,
    /// The most atomics one execution touched (the main thread's included).
    pub atomics: usize,
    /// The executions explored.
    pub executions: u64,
}

/// One execution's counts: per loom thread its operations and the atomics it touched, and the
/// threads spawned.
#[derive(Default)]
struct Counts {
    threads: HashMap<loom::thread::ThreadId, (usize, BTreeSet<usize>)>,
    spawned: usize,
}

static COUNTS: Mutex<Option<Counts>> = Mutex::new(None);
static NEXT_ATOMIC: AtomicUsize = AtomicUsize::new(0);

fn count(ops: usize, atomic: Option<usize>) {
    let mut counts = COUNTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = counts.as_mut() {
        let (n, touched) = c.threads.entry(loom::thread::current().id()).or_default();
        *n += ops;
        touched.extend(atomic);
    }
}

/// loom's primitives, each operation counted.
#[derive(Debug, Clone, Copy)]
pub struct Counting;

/// A loom atomic with an identity of its own (addresses are reused within an execution).
pub struct CountedAtomic<A> {
    inner: A,
    id: usize,
}

impl<T: Copy, A: Atomic<T>> Atomic<T> for CountedAtomic<A> {
    fn new(v: T) -> Self {
        CountedAtomic { inner: A::new(v), id: NEXT_ATOMIC.fetch_add(1, StdOrdering::Relaxed) }
    }
    fn load(&self, order: Ordering) -> T {
        count(1, Some(self.id));
        self.inner.load(order)
    }
    fn store(&self, v: T, order: Ordering) {
        count(1, Some(self.id));
        self.inner.store(v, order)
    }
    fn swap(&self, v: T, order: Ordering) -> T {
        count(1, Some(self.id));
        self.inner.swap(v, order)
    }
    fn compare_exchange(&self, current: T, new: T, success: Ordering, failure: Ordering) -> Result<T, T> {
        count(1, Some(self.id));
        self.inner.compare_exchange(current, new, success, failure)
    }
    fn fetch_add(&self, v: T, order: Ordering) -> T {
        count(1, Some(self.id));
        self.inner.fetch_add(v, order)
    }
    fn fetch_sub(&self, v: T, order: Ordering) -> T {
        count(1, Some(self.id));
        self.inner.fetch_sub(v, order)
    }
    fn fetch_or(&self, v: T, order: Ordering) -> T {
        count(1, Some(self.id));
        self.inner.fetch_or(v, order)
    }
    fn fetch_and(&self, v: T, order: Ordering) -> T {
        count(1, Some(self.id));
        self.inner.fetch_and(v, order)
    }
}

/// A loom mutex whose every section counts two operations (its lock and its unlock).
pub struct CountedMutex<T>(loom::sync::Mutex<T>);

impl<T: Send> Lock<T> for CountedMutex<T> {
    type Guard<'a>
        = loom::sync::MutexGuard<'a, T>
    where
        T: 'a;
    fn new(v: T) -> Self {
        CountedMutex(loom::sync::Mutex::new(v))
    }
    fn lock(&self) -> Self::Guard<'_> {
        count(2, None);
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn try_lock(&self) -> Option<Self::Guard<'_>> {
        count(1, None);
        let guard = self.0.try_lock().ok();
        if guard.is_some() {
            count(1, None);
        }
        guard
    }
}

impl Platform for Counting {
    const NAME: &'static str = "loom";
    type AtomicUsize = CountedAtomic<<Loom as Platform>::AtomicUsize>;
    type AtomicI64 = CountedAtomic<<Loom as Platform>::AtomicI64>;
    type AtomicI32 = CountedAtomic<<Loom as Platform>::AtomicI32>;
    type Mutex<T: Send + 'static> = CountedMutex<T>;
    type JoinHandle = <Loom as Platform>::JoinHandle;
    fn spawn<F: FnOnce() + Send + 'static>(f: F) -> Self::JoinHandle {
        if let Some(c) = COUNTS.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            c.spawned += 1;
        }
        Loom::spawn(f)
    }
    fn join(handle: Self::JoinHandle) {
        Loom::join(handle)
    }
    fn fence(order: Ordering) {
        count(1, None);
        Loom::fence(order)
    }
    fn yield_now() {
        Loom::yield_now()
    }
    fn choose(n: usize) -> usize {
        Loom::choose(n)
    }
    fn enter(trace: &Arc<Trace>, thread: u8) {
        Loom::enter(trace, thread)
    }
    fn leave(trace: &Arc<Trace>, thread: u8) {
        Loom::leave(trace, thread)
    }
    fn access(loc: &Loc, mask: u64, read: Option<u64>, written: Option<u64>) {
        Loom::access(loc, mask, read, written)
    }
}

/// The sizes of `model`'s threads over loom's executions at preemption bound 0, every
/// configuration and placement.
pub fn loom_sizes<M: Model>(model: &M, bounds: &Bounds) -> Sizes {
    let sizes = Arc::new(Mutex::new(Sizes::default()));
    for variant in model.loom_variants() {
        for plans in variant.loom_placements() {
            let mut builder = loom::model::Builder::new();
            builder.preemption_bound = Some(0);
            builder.max_branches = bounds.loom_max_branches;
            let (m, s) = (variant.clone(), sizes.clone());
            builder.check(move || {
                *COUNTS.lock().unwrap_or_else(|e| e.into_inner()) = Some(Counts::default());
                m.execute::<Counting>(&Arc::new(Trace::disabled()), &plans);
                let c = COUNTS.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
                let main = loom::thread::current().id();
                let spawned = c.threads.iter().filter(|(id, _)| **id != main).map(|(_, t)| t);
                let all: BTreeSet<usize> = c.threads.values().flat_map(|(_, t)| t.iter().copied()).collect();
                let mut s = s.lock().unwrap_or_else(|e| e.into_inner());
                s.threads = s.threads.max(c.spawned);
                for (ops, touched) in spawned {
                    s.longest_thread = s.longest_thread.max(*ops);
                    s.thread_atomics = s.thread_atomics.max(touched.len());
                }
                s.atomics = s.atomics.max(all.len());
                s.executions += 1;
            });
        }
    }
    let s = *sizes.lock().unwrap_or_else(|e| e.into_inner());
    s
}
