//! What a scenario's threads do, access by access: its model run under [`Recording`], loom's
//! primitives with every atomic access (its kind, its ordering, the traced location and kernel
//! function it belongs to), fence and lock section logged per thread, over the executions loom
//! explores at preemption bound 0 for every loom configuration and placement. Two readers:
//!
//! - [`Sizes`]: how large the threads are in the units the checker of the checker counts
//!   (docs/c11.md): operations per thread (an atomic access or fence is one, a lock section two,
//!   its lock and unlock) and atomics touched; `wbcheck`'s README states which scenarios lie
//!   inside the shapes loom's completeness is tested on (models/tests/c11_differential.rs).
//! - the LKMM ordering audit ([`crate::litmus::audit`]): the orderings a pass could rest on where
//!   the mapping is stronger than LKMM.
//!
//! Bound 0 sees every path a schedule without preemption reaches, with every value weak memory
//! lets a load read: a lower bound on what deeper searches run.

use super::Model;
use crate::bounds::Bounds;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering as StdOrdering};
use std::sync::{Arc, Mutex};
use wb_core::sync::{Atomic, Lock, Loom, Ordering, Platform};
use wb_core::trace::{Loc, Trace};

/// What an atomic access did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Load,
    Store,
    /// A read-modify-write that wrote (a compare-exchange that succeeded included).
    Rmw,
    /// A compare-exchange that failed: a load.
    CasFail,
}

/// One atomic access.
#[derive(Debug, Clone)]
pub struct Access {
    /// The atomic (unique in the process; every execution builds its own).
    pub atomic: usize,
    pub op: Op,
    /// The ordering the access ran with (a failed compare-exchange's failure ordering).
    pub order: Ordering,
    /// The traced location and bits (`None`: an atomic of a checker's, not protocol state).
    pub loc: Option<(usize, u64)>,
    /// The location's field name ([`Loc::field`]), or `atomic` for an untraced one.
    pub field: String,
    pub read: Option<u64>,
    pub written: Option<u64>,
    /// The kernel function whose step reports it (its thread's next trace event).
    pub function: &'static str,
    before: usize,
}

impl Access {
    /// An access of location `loc` (every bit) called `field`, for tests of the audit's rules.
    #[cfg(test)]
    pub(crate) fn of(loc: usize, op: Op, order: Ordering, read: Option<u64>, written: Option<u64>) -> Access {
        let field = format!("v{loc}");
        Access { atomic: loc, op, order, loc: Some((loc, u64::MAX)), field, read, written, function: "f", before: 0 }
    }

    pub fn reads(&self) -> bool {
        self.op != Op::Store
    }

    pub fn writes(&self) -> bool {
        matches!(self.op, Op::Store | Op::Rmw)
    }

    /// Whether two accesses touch the same location (the same bits of a flag word).
    pub fn same_location(&self, other: &Access) -> bool {
        match (self.loc, other.loc) {
            (Some((a, ma)), Some((b, mb))) => a == b && ma & mb != 0,
            (None, None) => self.atomic == other.atomic,
            _ => false,
        }
    }
}

/// One event of a thread, in program order.
#[derive(Debug, Clone)]
pub enum Event {
    Access(Access),
    Fence(Ordering),
    /// A lock taken (its id), and released.
    Lock(usize),
    Unlock(usize),
    /// A try_lock that found the lock held.
    TryLockFailed(usize),
    /// A nondeterministic choice ([`Platform::choose`]) and its value: not an operation.
    Choice(usize),
    /// The leading `fence(SeqCst)` of a fully ordered RMW that can fail ([`Platform::rmw_begin`]).
    RmwBegin,
    /// Its end: whether it wrote, and whether the trailing `fence(SeqCst)` ran.
    RmwEnd {
        wrote: bool,
        fenced: bool,
    },
}

impl Event {
    /// Whether it runs a `fence(SeqCst)`.
    pub fn full_fence(&self) -> bool {
        matches!(self, Event::Fence(Ordering::SeqCst) | Event::RmwBegin | Event::RmwEnd { fenced: true, .. })
    }
}

/// One spawned thread's events in one execution.
#[derive(Debug, Clone)]
pub struct ThreadRecord {
    /// The role's name, as the trace registered it.
    pub name: String,
    pub events: Vec<Event>,
}

/// One execution: every spawned thread's events (the main thread, which builds the state before
/// it spawns the others and checks it after they join, is left out).
#[derive(Debug, Clone, Default)]
pub struct Recording {
    pub threads: Vec<ThreadRecord>,
    pub spawned: usize,
    /// Atomics the main thread touched.
    main_atomics: BTreeSet<usize>,
}

impl Recording {
    /// Without the accesses of the checker's own atomics (no traced location: the model's
    /// bookkeeping, such as the flusher's call boundaries), which are no kernel code's.
    pub fn kernel_only(mut self) -> Recording {
        for t in &mut self.threads {
            t.events.retain(|e| !matches!(e, Event::Access(a) if a.loc.is_none()));
        }
        self
    }
}

/// The log of the running execution: events per model thread (trace and thread id), in order.
#[derive(Default)]
struct Log {
    /// The model's main thread.
    main: Option<loom::thread::ThreadId>,
    threads: Vec<(Arc<Trace>, u8, Vec<Event>)>,
    spawned: usize,
    main_atomics: BTreeSet<usize>,
}

static LOG: Mutex<Option<Log>> = Mutex::new(None);
static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

loom::thread_local! {
    /// The trace and thread id of this model thread's live [`Ctx`](wb_core::ctx::Ctx)s, the newest last.
    static CTXS: RefCell<Vec<(Arc<Trace>, u8)>> = RefCell::new(Vec::new());
}

/// Append `event` to the calling model thread's list (`atomic`: the main thread's touch only).
fn log(event: Event, atomic: Option<usize>) {
    let ctx = CTXS.try_with(|c| c.borrow().last().cloned()).ok().flatten();
    let mut guard = LOG.lock().unwrap_or_else(|e| e.into_inner());
    let Some(log) = guard.as_mut() else { return };
    let Some((trace, thread)) = ctx.filter(|_| log.main != Some(loom::thread::current().id())) else {
        log.main_atomics.extend(atomic);
        return;
    };
    let i = match log.threads.iter().position(|(t, id, _)| Arc::ptr_eq(t, &trace) && *id == thread) {
        Some(i) => i,
        None => {
            log.threads.push((trace.clone(), thread, Vec::new()));
            log.threads.len() - 1
        }
    };
    let event = match event {
        Event::Access(a) => Event::Access(Access { before: trace.len(), ..a }),
        e => e,
    };
    log.threads[i].2.push(event);
}

fn access(atomic: usize, op: Op, order: Ordering) {
    let a = Access {
        atomic,
        op,
        order,
        loc: None,
        field: "atomic".into(),
        read: None,
        written: None,
        function: "",
        before: 0,
    };
    log(Event::Access(a), Some(atomic));
}

/// loom's primitives, each access, fence and lock section logged.
#[derive(Debug, Clone, Copy)]
pub struct Recorder;

/// A loom atomic with an identity of its own (addresses are reused within an execution).
pub struct RecordedAtomic<A> {
    inner: A,
    id: usize,
}

impl<A> RecordedAtomic<A> {
    fn rmw<T>(&self, order: Ordering, r: T) -> T {
        access(self.id, Op::Rmw, order);
        r
    }
}

impl<T: Copy, A: Atomic<T>> Atomic<T> for RecordedAtomic<A> {
    fn new(v: T) -> Self {
        RecordedAtomic { inner: A::new(v), id: NEXT_ID.fetch_add(1, StdOrdering::Relaxed) }
    }
    fn load(&self, order: Ordering) -> T {
        let v = self.inner.load(order);
        access(self.id, Op::Load, order);
        v
    }
    fn store(&self, v: T, order: Ordering) {
        self.inner.store(v, order);
        access(self.id, Op::Store, order);
    }
    fn swap(&self, v: T, order: Ordering) -> T {
        self.rmw(order, self.inner.swap(v, order))
    }
    fn compare_exchange(&self, current: T, new: T, success: Ordering, failure: Ordering) -> Result<T, T> {
        let r = self.inner.compare_exchange(current, new, success, failure);
        match r {
            Ok(_) => access(self.id, Op::Rmw, success),
            Err(_) => access(self.id, Op::CasFail, failure),
        }
        r
    }
    fn fetch_add(&self, v: T, order: Ordering) -> T {
        self.rmw(order, self.inner.fetch_add(v, order))
    }
    fn fetch_sub(&self, v: T, order: Ordering) -> T {
        self.rmw(order, self.inner.fetch_sub(v, order))
    }
    fn fetch_or(&self, v: T, order: Ordering) -> T {
        self.rmw(order, self.inner.fetch_or(v, order))
    }
    fn fetch_and(&self, v: T, order: Ordering) -> T {
        self.rmw(order, self.inner.fetch_and(v, order))
    }
}

/// A loom mutex whose lock and unlock are logged.
pub struct RecordedMutex<T> {
    inner: loom::sync::Mutex<T>,
    id: usize,
}

/// A held [`RecordedMutex`]; dropping it logs the unlock.
pub struct RecordedGuard<'a, T> {
    guard: loom::sync::MutexGuard<'a, T>,
    id: usize,
}

impl<T> std::ops::Deref for RecordedGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for RecordedGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T> Drop for RecordedGuard<'_, T> {
    fn drop(&mut self) {
        log(Event::Unlock(self.id), None);
    }
}

impl<T: Send> Lock<T> for RecordedMutex<T> {
    type Guard<'a>
        = RecordedGuard<'a, T>
    where
        T: 'a;
    fn new(v: T) -> Self {
        RecordedMutex { inner: loom::sync::Mutex::new(v), id: NEXT_ID.fetch_add(1, StdOrdering::Relaxed) }
    }
    fn lock(&self) -> Self::Guard<'_> {
        let guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        log(Event::Lock(self.id), None);
        RecordedGuard { guard, id: self.id }
    }
    fn try_lock(&self) -> Option<Self::Guard<'_>> {
        let Ok(guard) = self.inner.try_lock() else {
            log(Event::TryLockFailed(self.id), None);
            return None;
        };
        log(Event::Lock(self.id), None);
        Some(RecordedGuard { guard, id: self.id })
    }
}

impl Platform for Recorder {
    const NAME: &'static str = "loom";
    type AtomicUsize = RecordedAtomic<<Loom as Platform>::AtomicUsize>;
    type AtomicI64 = RecordedAtomic<<Loom as Platform>::AtomicI64>;
    type AtomicI32 = RecordedAtomic<<Loom as Platform>::AtomicI32>;
    type Mutex<T: Send + 'static> = RecordedMutex<T>;
    type JoinHandle = <Loom as Platform>::JoinHandle;
    fn spawn<F: FnOnce() + Send + 'static>(f: F) -> Self::JoinHandle {
        if let Some(log) = LOG.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            log.spawned += 1;
        }
        Loom::spawn(f)
    }
    fn join(handle: Self::JoinHandle) {
        Loom::join(handle)
    }
    fn fence(order: Ordering) {
        Loom::fence(order);
        log(Event::Fence(order), None);
    }
    fn rmw_begin() {
        Loom::fence(Ordering::SeqCst);
        log(Event::RmwBegin, None);
    }
    fn rmw_end(wrote: bool, fenced: bool) {
        if fenced {
            Loom::fence(Ordering::SeqCst);
        }
        log(Event::RmwEnd { wrote, fenced }, None);
    }
    fn yield_now() {
        Loom::yield_now()
    }
    fn choose(n: usize) -> usize {
        let v = Loom::choose(n);
        log(Event::Choice(v), None);
        v
    }
    fn enter(trace: &Arc<Trace>, thread: u8) {
        CTXS.with(|c| c.borrow_mut().push((trace.clone(), thread)));
        Loom::enter(trace, thread)
    }
    fn leave(trace: &Arc<Trace>, thread: u8) {
        let _ = CTXS.try_with(|c| {
            let mut c = c.borrow_mut();
            if let Some(i) = c.iter().rposition(|(t, id)| Arc::ptr_eq(t, trace) && *id == thread) {
                c.remove(i);
            }
        });
        Loom::leave(trace, thread)
    }
    /// The location of the access just logged (every traced access follows its atomic's).
    fn access(loc: &Loc, mask: u64, read: Option<u64>, written: Option<u64>) {
        let ctx = CTXS.try_with(|c| c.borrow().last().cloned()).ok().flatten();
        if let (Some((trace, thread)), Some(log)) = (ctx, LOG.lock().unwrap_or_else(|e| e.into_inner()).as_mut()) {
            if log.main == Some(loom::thread::current().id()) {
                return Loom::access(loc, mask, read, written);
            }
            let events = log.threads.iter_mut().find(|(t, id, _)| Arc::ptr_eq(t, &trace) && *id == thread);
            if let Some(Event::Access(a)) = events.and_then(|(_, _, e)| e.last_mut()) {
                if a.loc.is_none() {
                    a.loc = Some((loc.id(), mask));
                    a.field = loc.field(mask);
                    a.read = read;
                    a.written = written;
                }
            }
        }
        Loom::access(loc, mask, read, written)
    }
}

/// Run `visit` on every execution loom explores of `model` at preemption bound 0, every
/// configuration and placement.
pub fn loom_recordings<M: Model>(model: &M, bounds: &Bounds, visit: impl Fn(Recording) + Send + Sync + 'static) {
    let visit = Arc::new(visit);
    for variant in model.loom_variants() {
        for plans in variant.loom_placements() {
            let mut builder = loom::model::Builder::new();
            builder.preemption_bound = Some(0);
            builder.max_branches = bounds.loom_max_branches;
            let (m, visit) = (variant.clone(), visit.clone());
            builder.check(move || {
                let main = Some(loom::thread::current().id());
                *LOG.lock().unwrap_or_else(|e| e.into_inner()) = Some(Log { main, ..Log::default() });
                let trace = Arc::new(Trace::new());
                m.execute::<Recorder>(&trace, &plans);
                let log = LOG.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
                visit(finish(log));
            });
        }
    }
}

/// Name each access's kernel function: its thread's first trace event recorded after it (the
/// step that reports it), or its last one (a store after the thread's last step).
fn finish(log: Log) -> Recording {
    let mut threads = Vec::new();
    for (trace, thread, mut events) in log.threads {
        let steps: Vec<&'static str> =
            trace.functions().into_iter().filter(|(t, _)| *t == thread).map(|(_, f)| f).collect();
        let indexes: Vec<usize> =
            trace.functions().iter().enumerate().filter(|(_, (t, _))| *t == thread).map(|(i, _)| i).collect();
        for e in &mut events {
            if let Event::Access(a) = e {
                let next = indexes.partition_point(|&i| i < a.before);
                a.function = steps.get(next).or(steps.last()).copied().unwrap_or("(no step)");
            }
        }
        threads.push(ThreadRecord { name: trace.thread_name(thread), events });
    }
    Recording { threads, spawned: log.spawned, main_atomics: log.main_atomics }
}

/// The largest figures seen.
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

/// The sizes of `model`'s threads over loom's executions at preemption bound 0, every
/// configuration and placement.
pub fn loom_sizes<M: Model>(model: &M, bounds: &Bounds) -> Sizes {
    let sizes = Arc::new(Mutex::new(Sizes::default()));
    let s = sizes.clone();
    loom_recordings(model, bounds, move |r| {
        let mut s = s.lock().unwrap_or_else(|e| e.into_inner());
        let mut all = r.main_atomics.clone();
        s.threads = s.threads.max(r.spawned);
        for t in &r.threads {
            let touched: BTreeSet<usize> = t
                .events
                .iter()
                .filter_map(|e| match e {
                    Event::Access(a) => Some(a.atomic),
                    _ => None,
                })
                .collect();
            // A lock section is two operations, its lock and its unlock; a failed try_lock one.
            let ops = t
                .events
                .iter()
                .filter(|e| !matches!(e, Event::Choice(_) | Event::RmwEnd { fenced: false, .. }))
                .count();
            s.longest_thread = s.longest_thread.max(ops);
            s.thread_atomics = s.thread_atomics.max(touched.len());
            all.extend(touched);
        }
        s.atomics = s.atomics.max(all.len());
        s.executions += 1;
    });
    let s = *sizes.lock().unwrap_or_else(|e| e.into_inner());
    s
}
