use crate::rt::alloc::Allocation;
use crate::rt::psc::Psc;
use crate::rt::{lazy_static, object, thread, Path, Split, MAX_THREADS};

use std::collections::HashMap;
use std::fmt;

use tracing::info;

pub(crate) struct Execution {
    /// Uniquely identifies an execution
    pub(super) id: Id,

    /// Execution path taken
    pub(crate) path: Path,

    pub(crate) threads: thread::Set,

    /// RC11's partial SC order over the SeqCst fences run so far
    pub(crate) psc: Psc,

    /// The sleep set: threads that need not run next, with the operation each was about to
    /// run when it fell asleep. A thread wakes when an operation it depends on runs.
    sleep: [Option<Slept>; MAX_THREADS],

    /// Stores made so far in this execution (each store's sequence number).
    pub(crate) stores_made: u32,

    /// Set while the active thread runs a read it was about to run when it fell asleep, and
    /// was woken only by stores to the location since: the read must take one of those
    /// (a store numbered from this on), any older one it read in the explored branch.
    pub(crate) read_newer_than: Option<u32>,

    pub(crate) lazy_statics: lazy_static::Set,

    /// All loom aware objects part of this execution run.
    pub(super) objects: object::Store,

    /// Maps raw allocations to LeakTrack objects
    pub(super) raw_allocations: HashMap<usize, Allocation>,

    pub(crate) arc_objs: HashMap<*const (), std::sync::Arc<super::Arc>>,

    /// Maximum number of concurrent threads
    pub(super) max_threads: usize,

    pub(super) max_history: usize,

    /// Capture locations for significant events
    pub(crate) location: bool,

    /// Log execution output to STDOUT
    pub(crate) log: bool,

    /// A thread's end races with its join (`Builder::join_races`).
    pub(crate) join_races: bool,

    /// A read woken by stores may read the last store before it fell asleep (`Builder::loose_wakes`).
    pub(crate) loose_wakes: bool,

    /// The branch the active thread's step runs from: its `ran` clock takes the clocks of the
    /// stores the step's read joins.
    ran_at: Option<usize>,

    /// A thread's start wakes every sleeping thread (`Builder::start_wakes`).
    pub(crate) start_wakes: bool,
}

/// A thread in the sleep set.
#[derive(Debug, Clone, Copy)]
struct Slept {
    /// The operation it was about to run.
    operation: object::Operation,
    /// `stores_made` when it fell asleep.
    stores_before: u32,
    /// Woken by stores its operation (a read) may read: it may run again, but its read must
    /// take one of them.
    by_stores: bool,
}

#[derive(Debug, Eq, PartialEq, Hash, Clone, Copy)]
pub(crate) struct Id(usize);

impl Execution {
    /// Create a new execution.
    ///
    /// This is only called at the start of a fuzz run. The same instance is
    /// reused across permutations.
    pub(crate) fn new(
        max_threads: usize,
        max_branches: usize,
        preemption_bound: Option<usize>,
        bounded_sleep: bool,
        source_sets: bool,
        split: Split,
        exploring: bool,
    ) -> Execution {
        let id = Id::new();
        let threads = thread::Set::new(id, max_threads);
        super::graph::reset();

        let preemption_bound =
            preemption_bound.map(|bound| bound.try_into().expect("preemption_bound too big"));

        Execution {
            id,
            path: Path::new(max_branches, preemption_bound, bounded_sleep, source_sets, split, exploring),
            threads,
            psc: Psc::default(),
            sleep: [None; MAX_THREADS],
            stores_made: 0,
            read_newer_than: None,
            lazy_statics: lazy_static::Set::new(),
            objects: object::Store::with_capacity(max_branches),
            raw_allocations: HashMap::new(),
            arc_objs: HashMap::new(),
            max_threads,
            max_history: 7,
            location: false,
            log: false,
            join_races: false,
            loose_wakes: false,
            start_wakes: false,
            ran_at: None,
        }
    }

    /// Create state to track a new thread
    pub(crate) fn new_thread(&mut self) -> thread::Id {
        let thread_id = self.threads.new_thread();
        let active_id = self.threads.active_id();

        let (active, new) = self.threads.active2_mut(thread_id);

        new.causality.join(&active.causality);
        new.dpor_vv.join(&active.dpor_vv);

        // Bump causality in order to ensure CausalCell accurately detects
        // incorrect access when first action.
        new.causality[thread_id] += 1;
        active.causality[active_id] += 1;

        thread_id
    }

    /// Resets the execution state for the next execution run
    pub(crate) fn step(self) -> Option<Self> {
        let id = Id::new();
        let max_threads = self.max_threads;
        let max_history = self.max_history;
        let location = self.location;
        let log = self.log;
        let join_races = self.join_races;
        let loose_wakes = self.loose_wakes;
        let start_wakes = self.start_wakes;
        let mut path = self.path;
        let mut objects = self.objects;
        let mut lazy_statics = self.lazy_statics;
        let mut raw_allocations = self.raw_allocations;
        let mut arc_objs = self.arc_objs;

        let mut threads = self.threads;
        let mut psc = self.psc;

        if !path.step() {
            return None;
        }

        objects.clear();
        super::graph::reset();
        lazy_statics.reset();
        raw_allocations.clear();
        arc_objs.clear();

        threads.clear(id);
        psc.clear();

        Some(Execution {
            id,
            path,
            threads,
            psc,
            sleep: [None; MAX_THREADS],
            stores_made: 0,
            read_newer_than: None,
            objects,
            lazy_statics,
            raw_allocations,
            arc_objs,
            max_threads,
            max_history,
            location,
            log,
            join_races,
            loose_wakes,
            start_wakes,
            ran_at: None,
        })
    }

    /// The number of the next store.
    pub(crate) fn next_store(&mut self) -> u32 {
        self.stores_made += 1;
        self.stores_made
    }

    /// Returns `true` if a switch is required
    pub(crate) fn schedule(&mut self) -> bool {
        use crate::rt::path::Thread;

        // Implementation of the DPOR algorithm.

        let curr_thread = self.threads.active_id();

        // The step from the last branch has run: a read in it joined the DPOR clock of the store
        // it read (`Atomic::read`), an order `Path::initials` must see.
        if let Some(pos) = self.ran_at.take() {
            self.path.set_ran(pos, Some(self.threads.active().dpor_vv));
        }

        let sleep_in = self
            .sleep
            .iter()
            .enumerate()
            .filter(|(_, slept)| slept.is_some_and(|s| !s.by_stores))
            .fold(0, |bits, (i, _)| bits | 1 << i);
        // Every thread that could run is asleep: whatever runs next, the rest of this
        // execution reorders one already explored. Finish it without exploring its branches.
        let runnable = self
            .threads
            .iter()
            .filter(|(_, th)| th.is_runnable())
            .fold(0u8, |bits, (i, _)| bits | 1 << i.as_usize());
        let blocked = runnable != 0 && runnable & !sleep_in == 0;

        let races_moot = self.path.races_moot(blocked);
        for (th_id, th) in self.threads.iter().filter(|_| !races_moot) {
            let operation = match th.operation {
                Some(operation) => operation,
                None => continue,
            };
            // A join's wait completes only after the notify that ends the joined thread, the one
            // access it depends on: no reversal, so no race (`Builder::join_races`).
            if !self.join_races && self.objects.is_join(operation) {
                continue;
            }

            // The last earlier access this one depends on that did not happen before it
            // races with it: backtrack to run this thread before it. (Earlier races are
            // found when the execution that reverses this one runs.)
            let mut last: Option<usize> = None;
            let yielded = th.last_yield.is_some();
            self.objects.dependent_accesses(operation, yielded, |access| {
                if !access.happens_before(&th.dpor_vv) {
                    last = last.max(Some(access.path_id()));
                }
            });
            if let Some(point) = last {
                self.path.backtrack(point, th_id, &th.dpor_vv);
            }
        }
        if blocked {
            self.path.block();
        }

        // It's important to avoid pre-emption as much as possible
        let mut initial = Some(self.threads.active_id());

        // If the thread is not runnable, then we can pick any arbitrary other
        // runnable thread.
        if !self.threads.active().is_runnable() {
            initial = None;

            for (i, th) in self.threads.iter() {
                if !th.is_runnable() {
                    continue;
                }

                if let Some(ref mut init) = initial {
                    if th.yield_count < self.threads[*init].yield_count {
                        *init = i;
                    }
                } else {
                    initial = Some(i)
                }
            }
        }

        // With source sets, the branch's first alternative is a thread not asleep when there is
        // one (Abdulla et al.'s Algorithm 1): an asleep thread's executions from here are
        // explored already, so running it first would explore its subtree again. (Upstream
        // keeps the running thread to avoid a preemption, which costs nothing without a bound.)
        if self.path.wakes_first() && !blocked && initial.is_some_and(|i| sleep_in & (1 << i.as_usize()) != 0) {
            initial = None;
            for (i, th) in self.threads.iter() {
                if !th.is_runnable() || sleep_in & (1 << i.as_usize()) != 0 {
                    continue;
                }
                if initial.is_none_or(|init| th.yield_count < self.threads[init].yield_count) {
                    initial = Some(i);
                }
            }
        }

        let path_id = self.path.pos();

        let mut clock = [0; MAX_THREADS];
        for (i, th) in self.threads.iter() {
            clock[i.as_usize()] = th.dpor_vv.at(i.as_usize());
        }
        let (next, visited) = self.path.branch_thread(self.id, sleep_in, clock, {
            self.threads.iter().map(|(i, th)| {
                if initial.is_none() && th.is_runnable() {
                    initial = Some(i);
                }

                if initial == Some(i) {
                    Thread::Active
                } else if th.is_yield() {
                    Thread::Yield
                } else if !th.is_runnable() {
                    Thread::Disabled
                } else {
                    Thread::Skip
                }
            })
        });

        let switched = Some(self.threads.active_id()) != next;

        // The threads explored at this branch before `next` fall asleep: their subtrees are
        // explored. Then whoever depends on the operation `next` runs wakes up.
        // (Under a preemption bound only when asked for, and only threads whose subtree here
        // the bound cut nothing from: `visited` has no others. The executions a sleeping
        // thread's branch would reach are then explored in its own subtree, whatever
        // preemptions they need; a subtree the bound cut is not known to hold them.)
        let sleeps = self.path.sleeps();
        for (id, th) in self.threads.iter() {
            let slept = &mut self.sleep[id.as_usize()];
            if sleeps && visited & (1 << id.as_usize()) != 0 && slept.is_none() {
                *slept = th.operation.map(|operation| Slept {
                    operation,
                    stores_before: self.stores_made,
                    by_stores: false,
                });
            }
        }
        self.read_newer_than = None;
        if let Some(next) = next {
            let op = self.threads[next].operation;
            if let Some(slept) = self.sleep[next.as_usize()].take() {
                if slept.by_stores {
                    // The stores made since it fell asleep: `stores_made` counts from 1.
                    self.read_newer_than = Some(slept.stores_before + u32::from(!self.loose_wakes));
                }
            }
            // A thread's start runs only its own code up to its first operation: it touches
            // nothing a sleeping thread's operation does (`Builder::start_wakes`). A return from
            // a yield or park, also a step without an operation, still wakes every one: not
            // waking on it lost graphs under a bound (PATCHED.md). The running thread has
            // started, the model's thread included.
            self.threads.active_mut().started = true;
            let quiet_start = !self.start_wakes && !self.threads[next].started;
            self.threads[next].started = true;
            for slept in self.sleep.iter_mut() {
                let wake = match (slept.as_ref(), op.as_ref()) {
                    (None, _) => None,
                    (Some(s), Some(op)) => op.wakes(&s.operation),
                    (Some(_), None) if quiet_start => None,
                    (Some(_), None) => Some(false),
                };
                match wake {
                    Some(true) => slept.as_mut().unwrap().by_stores = true,
                    Some(false) => *slept = None,
                    None => {}
                }
            }
        }

        self.threads.set_active(next);

        // There is no active thread. Unless all threads have terminated, the
        // test has deadlocked.
        if !self.threads.is_active() {
            let terminal = self.threads.iter().all(|(_, th)| th.is_terminated());

            assert!(
                terminal,
                "deadlock; threads = {:?}",
                self.threads
                    .iter()
                    .map(|(i, th)| { (i, th.state) })
                    .collect::<Vec<_>>()
            );

            return true;
        }

        // TODO: refactor
        if let Some(operation) = self.threads.active().operation {
            let threads = &mut self.threads;
            let th_id = threads.active_id();

            let mut dpor_vv = threads.active().dpor_vv;
            self.objects
                .dependent_accesses(operation, threads.active().last_yield.is_some(), |access| {
                    dpor_vv.join(access.version())
                });
            dpor_vv[th_id] += 1;
            threads.active_mut().dpor_vv = dpor_vv;
            self.path.set_ran(path_id, Some(dpor_vv));
            self.ran_at = Some(path_id);

            self.objects
                .set_last_access(operation, th_id.as_usize(), path_id, &dpor_vv);
        } else {
            // A start, or a return from a yield or park: no operation (and no clock left from
            // an earlier execution's branch here).
            self.path.set_ran(path_id, None);
        }

        // Reactivate yielded threads, but only if the current active thread is
        // not yielded.
        for (id, th) in self.threads.iter_mut() {
            if th.is_yield() && Some(id) != next {
                th.set_runnable();
            }
        }

        if switched {
            info!("~~~~~~~~ THREAD {} ~~~~~~~~", self.threads.active_id());
        }

        curr_thread != self.threads.active_id()
    }

    /// Panics if any leaks were detected
    pub(crate) fn check_for_leaks(&self) {
        self.objects.check_for_leaks();
    }
}

impl fmt::Debug for Execution {
    fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt.debug_struct("Execution")
            .field("path", &self.path)
            .field("threads", &self.threads)
            .finish()
    }
}

impl Id {
    pub(crate) fn new() -> Id {
        use std::sync::atomic::AtomicUsize;
        use std::sync::atomic::Ordering::Relaxed;

        // The number picked here is arbitrary. It is mostly to avoid collision
        // with "zero" to aid with debugging.
        static NEXT_ID: AtomicUsize = AtomicUsize::new(46_413_762);

        let next = NEXT_ID.fetch_add(1, Relaxed);

        Id(next)
    }
}
