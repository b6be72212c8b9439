//! The platform: the one place where synchronisation primitives are chosen.
//!
//! Every protocol type in wb-core is generic over a [`Platform`], so the same code runs under
//! `std` (benches, the oracle comparison), `loom` (exhaustive, weak memory) and `shuttle`
//! (PCT and random schedules, sequentially consistent) inside one process. A `cfg(loom)` facade
//! could not do that: one build would mean one backend. The precedent is arc-swap's strategy
//! type parameter; the trait is kept to what the models need.
//!
//! # Kernel primitive to Rust mapping
//!
//! Every modelled kernel function follows this table; nothing else in wb-core picks an ordering.
//!
//! | kernel | model |
//! |---|---|
//! | `test_and_set_bit`, `test_and_clear_bit` (value-returning, fully ordered, also when they fail: commit 415d832497098030) | `fence(SeqCst)`; AcqRel RMW; `fence(SeqCst)` ([`crate::bitops`]). loom treats SeqCst *accesses* as AcqRel, so an all-SeqCst RMW gave a counterexample C11 forbids; the bracketed form behaves like LKMM's fully ordered RMW |
//! | `folio_try_get` (`atomic_add_unless`), `folio_ref_freeze` (`atomic_cmpxchg`), `folio_put` (`atomic_dec_and_test`): fully ordered when they succeed, unordered when they fail | `fence(SeqCst)`; AcqRel RMW; `fence(SeqCst)` after a success ([`crate::folio`]; until issue 26 an AcqRel / Release RMW alone, weaker than LKMM); the leading fence runs before a failure too, as in `BitWord::update`'s declined or failed try_cmpxchg: stronger than LKMM there (models/litmus/README.md, conformance); [`Platform::rmw_begin`] and [`Platform::rmw_end`] bracket each one that can fail, so the LKMM ordering audit tells its fences from `smp_mb()` |
//! | `test_bit`, `READ_ONCE`, `WRITE_ONCE`, `set_bit`, `clear_bit` (no return value) | Relaxed load / store / `fetch_or` / `fetch_and` |
//! | `smp_mb()` | `fence(SeqCst)`; `smp_rmb()` / `smp_wmb()`: Acquire / Release fences |
//! | `spin_lock` / `spin_unlock`, `raw_spin_lock_irqsave`, `xa_lock` | [`crate::spinlock::SpinLock`] over [`Platform::Mutex`] (acquire / release) |
//! | `wb->state` | one atomic word holding every `WB_*` bit ([`crate::wb`]) |
//! | `percpu_counter_add_batch` | fast path: Relaxed `compare_exchange` on the current CPU's slot that re-checks `abs(slot + amount) < batch` (`this_cpu_try_cmpxchg`); slow path under the counter lock: re-read the slot, `count += slot + amount`, `slot -= value read` ([`crate::percpu`]) |
//! | `percpu_counter_read` / `_sum` | read: the global count only (Relaxed); sum: under the lock, count + every slot read Relaxed (not a snapshot) |
//! | `this_cpu_*`, `smp_processor_id()` | a CPU is a slot index; each task runs on the CPU its [`crate::ctx::CpuPlan`] gives it and may migrate where the kernel has preemption enabled |
//! | plain fields under a lock (`i_io_list`, `dirtied_when`, the I/O lists) | [`Locked`]: invisible to the checkers, ordered by the lock |
//! | workqueue `PENDING` | a bit set by a fully ordered test-and-set when queueing, cleared by the worker before it runs, followed by `smp_mb()` ([`crate::wb`]) |
//!
//! Every atomic of shared protocol state is a [`Traced`] integer or a [`crate::bitops::BitWord`]:
//! under loom each access is recorded in the trace as it happens ([`Platform::access`]), so that
//! counterexamples mark the loads that read a stale value ([`crate::trace::Stale`]).
//!
//! Under loom, spin-waits must yield, models keep to at most 4 spawned threads, and loom has no
//! nondeterministic choice: choices (CPU placement) are enumerated outside the model. Under
//! shuttle, choices are drawn with [`Platform::choose`] (shuttle's RNG), which the recording
//! scheduler captures, so a replay reproduces them.

use crate::trace::{Loc, Name, Trace};
use std::marker::PhantomData;
use std::ops::DerefMut;
pub use std::sync::atomic::Ordering;
use std::sync::Arc;

/// An atomic integer cell, with the subset of the std atomic API the models use.
pub trait Atomic<T: Copy>: Send + Sync + 'static {
    fn new(v: T) -> Self;
    fn load(&self, order: Ordering) -> T;
    fn store(&self, v: T, order: Ordering);
    fn swap(&self, v: T, order: Ordering) -> T;
    fn compare_exchange(&self, current: T, new: T, success: Ordering, failure: Ordering) -> Result<T, T>;
    fn fetch_add(&self, v: T, order: Ordering) -> T;
    fn fetch_sub(&self, v: T, order: Ordering) -> T;
    fn fetch_or(&self, v: T, order: Ordering) -> T;
    fn fetch_and(&self, v: T, order: Ordering) -> T;
}

/// A blocking mutual-exclusion lock (the model of a kernel spinlock).
pub trait Lock<T>: Send + Sync {
    type Guard<'a>: DerefMut<Target = T>
    where
        Self: 'a;
    fn new(v: T) -> Self;
    fn lock(&self) -> Self::Guard<'_>;
    fn try_lock(&self) -> Option<Self::Guard<'_>>;
}

/// The synchronisation primitives of one checker backend.
pub trait Platform: Sized + Send + Sync + 'static {
    /// `std`, `loom` or `shuttle`.
    const NAME: &'static str;
    type AtomicUsize: Atomic<usize>;
    type AtomicI64: Atomic<i64>;
    type AtomicI32: Atomic<i32>;
    type Mutex<T: Send + 'static>: Lock<T>;
    type JoinHandle: Send;
    fn spawn<F: FnOnce() + Send + 'static>(f: F) -> Self::JoinHandle;
    /// Join a spawned thread, re-raising its panic.
    fn join(handle: Self::JoinHandle);
    fn fence(order: Ordering);
    /// The leading `fence(SeqCst)` of a fully ordered RMW that can fail or decline (a
    /// compare-exchange, a `try_cmpxchg` loop); [`Platform::rmw_end`] says how it ended. LKMM
    /// orders a failed one not at all, so a recorder must tell these fences from `smp_mb()`.
    fn rmw_begin() {
        Self::fence(Ordering::SeqCst);
    }

    /// The end of the RMW [`Platform::rmw_begin`] began: whether it wrote, and whether the model
    /// runs the trailing `fence(SeqCst)` (`fenced`).
    fn rmw_end(_wrote: bool, fenced: bool) {
        if fenced {
            Self::fence(Ordering::SeqCst);
        }
    }

    /// Yield in a spin-wait (loom counts branches; shuttle deprioritises the yielder).
    fn yield_now();
    /// A nondeterministic choice in `0..n`, reproduced on replay: loom explores every value,
    /// shuttle draws one.
    fn choose(n: usize) -> usize;

    /// The calling model thread's index, the same in every schedule, where the checker needs
    /// it: loom's (0 for the thread running the model, then in spawn order). Per-task kernel
    /// state (RCU reader words, a wb's runner) is indexed by it. `None`: by the order the tasks
    /// registered with the trace, which the schedule decides through a `std` lock, a dependency
    /// a DPOR search cannot see (it gave a task another task's RCU word in some schedules, so
    /// two searches' execution graphs could not be compared: docs/findings.md); shuttle and std
    /// explore no dependencies, so it does not matter there.
    fn task_index() -> Option<usize> {
        None
    }

    /// Make `trace` and `thread` (a new [`Ctx`](crate::ctx::Ctx)) the calling model thread's for
    /// [`Platform::access`], until [`Platform::leave`].
    fn enter(_trace: &Arc<Trace>, _thread: u8) {}

    /// Undo [`Platform::enter`] (the [`Ctx`](crate::ctx::Ctx) is dropped).
    fn leave(_trace: &Arc<Trace>, _thread: u8) {}

    /// Record, as it happens, an access to the bits `mask` of a traced location in the trace of
    /// the calling model thread's [`Ctx`](crate::ctx::Ctx) ([`Trace::access`]): the value read, the value written.
    /// Only loom records: only its executions let a load read an older store than the last one
    /// in trace order (shuttle's are sequentially consistent, and std's trace order is not the
    /// execution order).
    fn access(_loc: &Loc, _mask: u64, _read: Option<u64>, _written: Option<u64>) {}
}

/// Data only ever accessed under one lock, or by one task (the kernel's plain fields such as
/// `inode->i_io_list` and `inode->dirtied_when` under `wb->list_lock`). The lock already orders
/// every access, so the checkers need not see them: a std atomic (loom and shuttle run every model
/// thread on one OS thread, so its value is always the last one written) keeps them out of
/// loom's branch points and shuttle's scheduling points without hiding an order the lock allows.
/// Quiescence checks read them after the threads have joined.
#[derive(Debug, Default)]
pub struct Locked(std::sync::atomic::AtomicUsize);

impl Locked {
    pub const fn new(v: usize) -> Self {
        Locked(std::sync::atomic::AtomicUsize::new(v))
    }

    pub fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    pub fn set(&self, v: usize) {
        self.0.store(v, Ordering::Relaxed);
    }
}

/// The integer types of [`Atomic`], as the 64 bits a trace records (signed ones
/// sign-extended, so that bitwise operations agree).
pub trait Bits: Copy {
    fn bits(self) -> u64;
}

impl Bits for usize {
    fn bits(self) -> u64 {
        self as u64
    }
}

impl Bits for i64 {
    fn bits(self) -> u64 {
        self as u64
    }
}

impl Bits for i32 {
    fn bits(self) -> u64 {
        i64::from(self) as u64
    }
}

/// An atomic integer of shared protocol state, the API of [`Atomic`], whose every access is
/// traced ([`Platform::access`]) right after it happens, before any other scheduling point, as
/// one location.
pub struct Traced<P: Platform, A> {
    atomic: A,
    loc: Loc,
    _platform: PhantomData<P>,
}

impl<P: Platform, A> Traced<P, A> {
    pub fn new<T: Bits>(v: T, name: Name) -> Self
    where
        A: Atomic<T>,
    {
        Traced { atomic: A::new(v), loc: Loc::new(name), _platform: PhantomData }
    }

    fn traced(&self, read: Option<u64>, written: Option<u64>) {
        P::access(&self.loc, u64::MAX, read, written);
    }

    /// An RMW that found `old` and computed its store from it.
    fn rmw<T: Bits>(&self, old: T, new: impl Fn(u64) -> u64) -> T {
        self.traced(Some(old.bits()), Some(new(old.bits())));
        old
    }

    pub fn load<T: Bits>(&self, order: Ordering) -> T
    where
        A: Atomic<T>,
    {
        let v = self.atomic.load(order);
        self.traced(Some(v.bits()), None);
        v
    }

    pub fn store<T: Bits>(&self, v: T, order: Ordering)
    where
        A: Atomic<T>,
    {
        self.atomic.store(v, order);
        self.traced(None, Some(v.bits()));
    }

    pub fn swap<T: Bits>(&self, v: T, order: Ordering) -> T
    where
        A: Atomic<T>,
    {
        self.rmw(self.atomic.swap(v, order), |_| v.bits())
    }

    /// A success is an RMW, a failure a load.
    pub fn compare_exchange<T: Bits>(&self, current: T, new: T, success: Ordering, failure: Ordering) -> Result<T, T>
    where
        A: Atomic<T>,
    {
        let r = self.atomic.compare_exchange(current, new, success, failure);
        match r {
            Ok(old) => self.traced(Some(old.bits()), Some(new.bits())),
            Err(now) => self.traced(Some(now.bits()), None),
        }
        r
    }

    pub fn fetch_add<T: Bits>(&self, v: T, order: Ordering) -> T
    where
        A: Atomic<T>,
    {
        self.rmw(self.atomic.fetch_add(v, order), |old| old.wrapping_add(v.bits()))
    }

    pub fn fetch_sub<T: Bits>(&self, v: T, order: Ordering) -> T
    where
        A: Atomic<T>,
    {
        self.rmw(self.atomic.fetch_sub(v, order), |old| old.wrapping_sub(v.bits()))
    }

    pub fn fetch_or<T: Bits>(&self, v: T, order: Ordering) -> T
    where
        A: Atomic<T>,
    {
        self.rmw(self.atomic.fetch_or(v, order), |old| old | v.bits())
    }

    pub fn fetch_and<T: Bits>(&self, v: T, order: Ordering) -> T
    where
        A: Atomic<T>,
    {
        self.rmw(self.atomic.fetch_and(v, order), |old| old & v.bits())
    }
}

macro_rules! impl_atomic {
    ($($t:ty => $at:ty),* $(,)?) => {$(
        impl Atomic<$t> for $at {
            #[inline] fn new(v: $t) -> Self { <$at>::new(v) }
            #[inline] fn load(&self, o: Ordering) -> $t { <$at>::load(self, o) }
            #[inline] fn store(&self, v: $t, o: Ordering) { <$at>::store(self, v, o) }
            #[inline] fn swap(&self, v: $t, o: Ordering) -> $t { <$at>::swap(self, v, o) }
            #[inline] fn compare_exchange(&self, c: $t, n: $t, s: Ordering, f: Ordering)
                -> Result<$t, $t> { <$at>::compare_exchange(self, c, n, s, f) }
            #[inline] fn fetch_add(&self, v: $t, o: Ordering) -> $t { <$at>::fetch_add(self, v, o) }
            #[inline] fn fetch_sub(&self, v: $t, o: Ordering) -> $t { <$at>::fetch_sub(self, v, o) }
            #[inline] fn fetch_or(&self, v: $t, o: Ordering) -> $t { <$at>::fetch_or(self, v, o) }
            #[inline] fn fetch_and(&self, v: $t, o: Ordering) -> $t { <$at>::fetch_and(self, v, o) }
        }
    )*};
}

macro_rules! impl_lock {
    ($mutex:ident, $guard:ident) => {
        impl<T: Send> Lock<T> for $mutex<T> {
            type Guard<'a>
                = $guard<'a, T>
            where
                Self: 'a;
            #[inline]
            fn new(v: T) -> Self {
                $mutex::new(v)
            }
            #[inline]
            fn lock(&self) -> $guard<'_, T> {
                // A poisoned lock means a model thread panicked; the harness reports that panic.
                $mutex::lock(self).unwrap_or_else(|e| e.into_inner())
            }
            #[inline]
            fn try_lock(&self) -> Option<$guard<'_, T>> {
                $mutex::try_lock(self).ok()
            }
        }
    };
}

/// Real threads and std atomics: benches, the oracle comparison, fuzzing.
pub mod std_platform {
    use super::*;
    use std::cell::Cell;
    use std::sync::atomic::{AtomicI32, AtomicI64, AtomicUsize};
    use std::sync::{Mutex, MutexGuard};

    #[derive(Debug, Clone, Copy)]
    pub struct Std;

    impl_atomic!(usize => AtomicUsize, i64 => AtomicI64, i32 => AtomicI32);
    impl_lock!(Mutex, MutexGuard);

    thread_local! {
        static RNG: Cell<u64> = const { Cell::new(0x9E37_79B9_7F4A_7C15) };
    }

    impl Platform for Std {
        const NAME: &'static str = "std";
        type AtomicUsize = AtomicUsize;
        type AtomicI64 = AtomicI64;
        type AtomicI32 = AtomicI32;
        type Mutex<T: Send + 'static> = Mutex<T>;
        type JoinHandle = std::thread::JoinHandle<()>;
        fn spawn<F: FnOnce() + Send + 'static>(f: F) -> Self::JoinHandle {
            std::thread::spawn(f)
        }
        fn join(handle: Self::JoinHandle) {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
        fn fence(order: Ordering) {
            std::sync::atomic::fence(order)
        }
        fn yield_now() {
            std::thread::yield_now()
        }
        /// A per-thread xorshift: std runs are not replayed, only reproducible per thread.
        fn choose(n: usize) -> usize {
            RNG.with(|s| {
                let mut x = s.get();
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.set(x);
                (x % n as u64) as usize
            })
        }
    }
}

/// loom: exhaustive exploration with weak memory (C11 minus load buffering).
pub mod loom_platform {
    use super::*;
    use loom::sync::atomic::{AtomicI32, AtomicI64, AtomicUsize};
    use loom::sync::{Mutex, MutexGuard};
    use std::cell::RefCell;

    loom::thread_local! {
        /// The trace and thread id of each live [`Ctx`](crate::ctx::Ctx) of this model thread, the newest last.
        /// A thread-local because the bit operations and atomics that record accesses take no
        /// `Ctx`; loom's are per model thread, and reading one is no scheduling point.
        static CTXS: RefCell<Vec<(Arc<Trace>, u8)>> = RefCell::new(Vec::new());
    }

    #[derive(Debug, Clone, Copy)]
    pub struct Loom;

    impl_atomic!(usize => AtomicUsize, i64 => AtomicI64, i32 => AtomicI32);
    impl_lock!(Mutex, MutexGuard);

    impl Platform for Loom {
        const NAME: &'static str = "loom";
        type AtomicUsize = AtomicUsize;
        type AtomicI64 = AtomicI64;
        type AtomicI32 = AtomicI32;
        type Mutex<T: Send + 'static> = Mutex<T>;
        type JoinHandle = loom::thread::JoinHandle<()>;
        fn spawn<F: FnOnce() + Send + 'static>(f: F) -> Self::JoinHandle {
            loom::thread::spawn(f)
        }
        fn join(handle: Self::JoinHandle) {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
        fn fence(order: Ordering) {
            loom::sync::atomic::fence(order)
        }
        fn yield_now() {
            loom::thread::yield_now()
        }
        /// `loom::choose` (the vendored loom's choice operator): every value is explored.
        fn choose(n: usize) -> usize {
            loom::choose(n)
        }
        fn task_index() -> Option<usize> {
            Some(loom::thread_index())
        }
        fn enter(trace: &Arc<Trace>, thread: u8) {
            CTXS.with(|c| c.borrow_mut().push((trace.clone(), thread)));
        }
        fn leave(trace: &Arc<Trace>, thread: u8) {
            // The thread's locals are gone if it drops a Ctx while it exits: nothing to undo.
            let _ = CTXS.try_with(|c| {
                let mut c = c.borrow_mut();
                if let Some(i) = c.iter().rposition(|(t, id)| Arc::ptr_eq(t, trace) && *id == thread) {
                    c.remove(i);
                }
            });
        }
        fn access(loc: &Loc, mask: u64, read: Option<u64>, written: Option<u64>) {
            let _ = CTXS.try_with(|c| {
                if let Some((trace, thread)) = c.borrow().last() {
                    trace.access(*thread, *loc, mask, read, written);
                }
            });
        }
    }
}

/// shuttle: randomized and PCT schedules, sequentially consistent.
pub mod shuttle_platform {
    use super::*;
    use shuttle::rand::RngCore;
    use shuttle::sync::atomic::{AtomicI32, AtomicI64, AtomicUsize};
    use shuttle::sync::{Mutex, MutexGuard};

    #[derive(Debug, Clone, Copy)]
    pub struct Shuttle;

    impl_atomic!(usize => AtomicUsize, i64 => AtomicI64, i32 => AtomicI32);
    impl_lock!(Mutex, MutexGuard);

    impl Platform for Shuttle {
        const NAME: &'static str = "shuttle";
        type AtomicUsize = AtomicUsize;
        type AtomicI64 = AtomicI64;
        type AtomicI32 = AtomicI32;
        type Mutex<T: Send + 'static> = Mutex<T>;
        type JoinHandle = shuttle::thread::JoinHandle<()>;
        fn spawn<F: FnOnce() + Send + 'static>(f: F) -> Self::JoinHandle {
            shuttle::thread::spawn(f)
        }
        fn join(handle: Self::JoinHandle) {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
        fn fence(order: Ordering) {
            shuttle::sync::atomic::fence(order)
        }
        fn yield_now() {
            shuttle::thread::yield_now()
        }
        /// Drawn from shuttle's RNG, i.e. from the scheduler's `next_u64`: the recording
        /// scheduler captures the value and replay feeds it back.
        fn choose(n: usize) -> usize {
            (shuttle::rand::thread_rng().next_u64() % n as u64) as usize
        }
    }
}

pub use loom_platform::Loom;
pub use shuttle_platform::Shuttle;
pub use std_platform::Std;
