use crate::rt::{execution, object, thread, VersionVec, MAX_CHOICES, MAX_THREADS};

#[cfg(feature = "checkpoint")]
use serde::{Deserialize, Serialize};

/// An execution path
#[derive(Debug)]
#[cfg_attr(feature = "checkpoint", derive(Serialize, Deserialize))]
pub(crate) struct Path {
    preemption_bound: Option<u8>,

    /// Sleep sets in a preemption-bounded search too (`Builder::bounded_sleep_sets`): a thread
    /// falls asleep only after a subtree the bound cut nothing from ([`Schedule::cut`]).
    bounded_sleep: bool,

    /// Source sets without a preemption bound (`Builder::source_sets`): a race's reversal adds
    /// one initial, and none when one is explored or asleep already ([`Schedule::backtrack_source`]);
    /// a new branch runs a thread not asleep first ([`Path::wakes_first`]); a blocked execution's
    /// races are moot ([`Path::races_moot`]).
    source_sets: bool,

    /// Under a preemption bound, a branch whose preemptions reached the bound still explores a
    /// switch that costs none (its running thread blocked or ended: [`Schedule::at_bound`]),
    /// where upstream explores only its first thread there (`Builder::free_switches`).
    pub(crate) free_switches: bool,

    /// The current execution is sleep-set blocked: every thread that could run was asleep at
    /// one of its branches ([`Path::block`]).
    blocked: bool,

    /// Current execution's position in the branches vec.
    ///
    /// When the execution starts, this is zero, but `branches` might not be
    /// empty.
    ///
    /// In order to perform an exhaustive search, the execution is seeded with a
    /// set of branches.
    pos: usize,

    /// List of all branches in the execution.
    ///
    /// A branch is of type `Schedule`, `Load`, or `Spurious`
    branches: object::Store<Entry>,

    /// If true, exploring is enabled at start
    exploring: bool,

    /// If true, the user decided to skip the current execution branch. We do
    /// not do any further exploration here.
    skipping: bool,

    /// How to reset the `exploring` state
    exploring_on_start: bool,

    /// The search split into slices by schedule prefix ([`Split`]).
    split: Split,

    /// The current path's forks explored in full ([`Split`]): position, and whether the path
    /// takes the fork's first alternative.
    forks: Vec<(usize, bool)>,

    /// The current execution's prefix, numbered from 0 in the order the search reaches them.
    prefix: u64,

    /// Whether the current execution's prefix belongs to this search's slice.
    in_slice: bool,
}

/// A search split into slices by schedule prefix (`Builder::split_depth`, `Builder::slices`).
/// A *fork* is a branch with more than one alternative. An execution's *prefix* is its choices
/// at its first forks: `depth` of them, or fewer when the `width`-th fork that does not take its
/// first alternative comes sooner. While a path's prefix is open, each fork is explored in full
/// when created (every thread that may run there, every store a load may read), so the prefixes
/// do not depend on what the search finds below them: the subtrees below different prefixes are
/// independent searches (a backtracking point they add to a prefix's fork is there already).
/// Prefixes are numbered in the order the search reaches them, and slice `slice` of `slices`
/// explores below those whose number is `slice` modulo `slices`. An execution of another
/// slice's prefix is run once, to reach the next prefix, and explores nothing below its prefix
/// ([`Path::in_slice`] tells the model to ignore it). The slices' executions together are the
/// one-slice search's, each once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "checkpoint", derive(Serialize, Deserialize))]
pub(crate) struct Split {
    pub(crate) depth: usize,
    pub(crate) width: usize,
    pub(crate) slices: usize,
    pub(crate) slice: usize,
}

#[derive(Debug)]
#[cfg_attr(feature = "checkpoint", derive(Serialize, Deserialize))]
pub(crate) struct Schedule {
    /// Number of times the thread leading to this branch point has been
    /// pre-empted.
    preemptions: u8,

    /// The thread that was active first
    initial_active: Option<u8>,

    /// State of each thread
    threads: [Thread; MAX_THREADS],

    /// The previous schedule branch
    prev: Option<object::Ref<Schedule>>,

    /// The threads asleep on arrival at this branch (a bit per thread): running one of them
    /// here would only reorder independent operations of an execution already explored.
    sleep: u8,

    /// Each thread's own DPOR clock on arrival at this branch (`dpor_vv[i]` of thread `i`):
    /// an operation whose clock exceeds it in thread `i`'s component happens after one of
    /// `i`'s operations from this branch on.
    clock: [u16; MAX_THREADS],

    /// The DPOR clock of the operation the active thread runs from this branch, the clock of the
    /// store it reads joined; none for a step without an operation.
    ran: Option<VersionVec>,

    /// A bit per thread: exploring that thread from this branch, the preemption bound refused a
    /// backtracking point below (its subtree is not every execution beginning with it), so it
    /// must not fall asleep after it.
    cut: u8,

    /// The last branch at or before this one where the search switched threads and explores:
    /// where the racing thread runs without a preemption of its own (upstream's conservative
    /// point). Kept up to date as the branch's active thread changes, so a race needs no walk.
    switch: Option<object::Ref<Schedule>>,

    exploring: bool,
}

#[derive(Debug)]
#[cfg_attr(feature = "checkpoint", derive(Serialize, Deserialize))]
pub(crate) struct Load {
    /// All possible values
    values: [u8; MAX_CHOICES],

    /// Current value
    pos: u8,

    /// Number of values in list
    len: u8,

    exploring: bool,
}

#[derive(Debug)]
#[cfg_attr(feature = "checkpoint", derive(Serialize, Deserialize))]
pub(crate) struct Spurious {
    spur: bool,
    exploring: bool,
}

objects! {
    #[derive(Debug)]
    #[cfg_attr(feature = "checkpoint", derive(Serialize, Deserialize))]
    Entry,
    Schedule(Schedule),
    Load(Load),
    Spurious(Spurious),
}

#[derive(Debug, Eq, PartialEq, Clone, Copy)]
#[cfg_attr(feature = "checkpoint", derive(Serialize, Deserialize))]
pub(crate) enum Thread {
    /// The thread is currently disabled
    Disabled,

    /// The thread should not be explored
    Skip,

    /// The thread is in a yield state.
    Yield,

    /// The thread is waiting to be explored
    Pending,

    /// The thread is currently being explored
    Active,

    /// The thread has been explored
    Visited,
}

macro_rules! assert_path_len {
    ($branches:expr) => {{
        assert!(
            // if we are panicking, we may be performing a branch due to a
            // `Drop` impl (e.g., for `Arc`, or for a user type that does an
            // atomic operation in its `Drop` impl). if that's the case,
            // asserting this again will double panic. therefore, short-circuit
            // the assertion if the thread is panicking.
            $branches.len() < $branches.capacity() || std::thread::panicking(),
            "Model exceeded maximum number of branches. This is often caused \
             by an algorithm requiring the processor to make progress, e.g. \
             spin locks.",
        );
    }};
}

impl Path {
    /// Create a new, blank, configured to branch at most `max_branches` times
    /// and at most `preemption_bound` thread preemptions.
    pub(crate) fn new(
        max_branches: usize,
        preemption_bound: Option<u8>,
        bounded_sleep: bool,
        source_sets: bool,
        split: Split,
        exploring: bool,
    ) -> Path {
        Path {
            preemption_bound,
            bounded_sleep,
            source_sets,
            free_switches: false,
            blocked: false,
            pos: 0,
            branches: object::Store::with_capacity(max_branches),
            exploring,
            skipping: false,
            exploring_on_start: exploring,
            split,
            forks: Vec::new(),
            prefix: 0,
            in_slice: split.slice == 0,
        }
    }

    /// Whether the current execution belongs to this search's slice ([`Split`]).
    pub(crate) fn in_slice(&self) -> bool {
        self.in_slice
    }

    /// Whether a branch created now is explored: not below the prefix of another slice.
    fn explores_new(&self) -> bool {
        self.exploring && (self.in_slice || self.forking())
    }

    /// Whether the current path's prefix is still open: a branch created now with more than one
    /// alternative is one of its forks, explored in full.
    fn forking(&self) -> bool {
        self.forks.len() < self.split.depth && self.forks.iter().filter(|(_, first)| !first).count() < self.split.width
    }

    pub(crate) fn explore_state(&mut self) {
        if !self.skipping {
            assert!(!self.exploring, "not in critical state");
            self.exploring = true;
        }
    }

    pub(crate) fn critical(&mut self) {
        if !self.skipping {
            assert!(self.exploring, "not in exploring state");
            self.exploring = false;
        }
    }

    /// Every thread that could run is asleep: the rest of the execution reorders one already
    /// explored. Finish it without exploring its branches.
    pub(super) fn block(&mut self) {
        self.blocked = true;
        self.skip_branch();
    }

    /// Whether races are left unanalysed from here on: with source sets, once the execution is
    /// sleep-set blocked (Abdulla et al.'s Algorithm 1 ends a blocked execution there; its
    /// continuations are equivalent to explored executions, whose races were analysed).
    pub(super) fn races_moot(&self, blocked_now: bool) -> bool {
        self.wakes_first() && (self.blocked || blocked_now)
    }

    /// Whether a new branch starts with a thread not asleep: with source sets, without a bound.
    pub(super) fn wakes_first(&self) -> bool {
        self.source_sets && self.preemption_bound.is_none()
    }

    pub(crate) fn skip_branch(&mut self) {

        self.exploring = false;
        self.skipping = true;
    }

    pub(crate) fn set_max_branches(&mut self, max_branches: usize) {
        self.branches
            .reserve_exact(max_branches - self.branches.len());
    }

    /// Returns `true` if the execution has reached a point where the known path
    /// has been traversed and has reached a new branching point.
    pub(super) fn is_traversed(&self) -> bool {
        self.pos == self.branches.len()
    }

    /// Whether threads fall asleep: always without a preemption bound, with one only when
    /// `bounded_sleep` is set.
    pub(super) fn sleeps(&self) -> bool {
        self.preemption_bound.is_none() || self.bounded_sleep
    }

    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// Push a new atomic-load branch (also a store's choice of place in modification order)
    pub(super) fn push_load(&mut self, seed: &[u8]) {
        assert_path_len!(self.branches);

        let exploring = self.explores_new();
        let load_ref = self.branches.insert(Load {
            values: [0; MAX_CHOICES],
            pos: 0,
            len: 0,
            exploring,
        });
        if exploring && seed.len() > 1 && self.forking() {
            self.forks.push((load_ref.index(), true));
        }

        let load = load_ref.get_mut(&mut self.branches);

        for (i, &store) in seed.iter().enumerate() {
            assert!(
                store < MAX_CHOICES as u8,
                "[loom internal bug] store = {}; max = {}",
                store,
                MAX_CHOICES
            );
            assert!(
                i < MAX_CHOICES,
                "[loom internal bug] i = {}; max = {}",
                i,
                MAX_CHOICES
            );

            load.values[i] = store;
            load.len += 1;
        }
    }

    /// Returns the atomic write to read
    pub(super) fn branch_load(&mut self) -> usize {
        assert!(!self.is_traversed(), "[loom internal bug]");

        let load = object::Ref::from_usize(self.pos)
            .downcast::<Load>(&self.branches)
            .expect("Reached unexpected exploration state. Is the model fully deterministic?")
            .get(&self.branches);

        self.pos += 1;

        load.values[load.pos as usize] as usize
    }

    /// Branch on spurious notifications
    pub(super) fn branch_spurious(&mut self) -> bool {
        if self.is_traversed() {
            assert_path_len!(self.branches);

            let exploring = self.explores_new();
            let spurious_ref = self.branches.insert(Spurious {
                spur: false,
                exploring,
            });
            if exploring && self.forking() {
                self.forks.push((spurious_ref.index(), true));
            }
        }

        let spurious = object::Ref::from_usize(self.pos)
            .downcast::<Spurious>(&self.branches)
            .expect("Reached unexpected exploration state. Is the model fully deterministic?")
            .get(&self.branches)
            .spur;

        self.pos += 1;
        spurious
    }

    /// Returns the thread identifier to schedule, and the threads already explored at this
    /// branch whose subtrees the preemption bound cut nothing from (a bit per thread: they may
    /// fall asleep). `sleep` is recorded on a new branch.
    pub(super) fn branch_thread(
        &mut self,
        execution_id: execution::Id,
        sleep: u8,
        clock: [u16; MAX_THREADS],
        seed: impl ExactSizeIterator<Item = Thread>,
    ) -> (Option<thread::Id>, u8) {
        if self.is_traversed() {
            assert_path_len!(self.branches);

            // Find the last thread scheduling branch in the path
            let prev = self.last_schedule();

            // Entering a new exploration space.
            //
            // Initialize a  new branch. The initial field values don't matter
            // as they will be updated below.
            let schedule_ref = self.branches.insert(Schedule {
                preemptions: 0,
                initial_active: None,
                threads: [Thread::Disabled; MAX_THREADS],
                prev,
                sleep,
                clock,
                ran: None,
                cut: 0,
                switch: None,
                exploring: self.explores_new(),
            });

            // Get a reference to the branch in the object store.
            let schedule = schedule_ref.get_mut(&mut self.branches);

            assert!(seed.len() <= MAX_THREADS, "[loom internal bug]");

            // Currently active thread
            let mut active = None;

            for (i, v) in seed.enumerate() {
                // Initialize thread states
                schedule.threads[i] = v;

                if v.is_active() {
                    assert!(
                        active.is_none(),
                        "[loom internal bug] only one thread should start as active"
                    );
                    active = Some(i as u8);
                }
            }

            // Ensure at least one thread is active, otherwise toggle a yielded
            // thread.
            if active.is_none() {
                for (i, th) in schedule.threads.iter_mut().enumerate() {
                    if *th == Thread::Yield {
                        *th = Thread::Active;
                        active = Some(i as u8);
                        break;
                    }
                }
            }

            let mut initial_active = active;

            if let Some(prev) = prev {
                if initial_active != prev.get(&self.branches).active_thread_index() {
                    initial_active = None;
                }
            } else if self.free_switches && initial_active != Some(0) {
                // The model's thread (0) ran up to the first branch: another first thread means
                // it blocked, so that switch costs no preemption either. (Upstream counts one.)
                initial_active = None;
            }

            let preemptions = prev
                .map(|prev| prev.get(&self.branches).preemptions())
                .unwrap_or(0);

            debug_assert!(
                self.preemption_bound.is_none() || Some(preemptions) <= self.preemption_bound,
                "[loom internal bug] max = {:?}; curr = {}",
                self.preemption_bound,
                preemptions,
            );

            let forking = self.forking();
            let switch = self.switch_at(schedule_ref);
            let schedule = schedule_ref.get_mut(&mut self.branches);
            schedule.initial_active = initial_active;
            schedule.preemptions = preemptions;
            schedule.switch = switch;

            // One of a split search's first forks: every thread that may run here, now.
            if schedule.exploring && forking && !schedule.at_bound(self.preemption_bound, self.free_switches) {
                for i in 0..MAX_THREADS {
                    if schedule.sleep & (1 << i) == 0 {
                        schedule.threads[i].explore();
                    }
                }
                let alternatives = schedule.threads.iter().filter(|th| th.is_pending() || th.is_active()).count();
                if alternatives > 1 {
                    self.forks.push((schedule_ref.index(), true));
                }
            }
        }

        let schedule = object::Ref::from_usize(self.pos)
            .downcast::<Schedule>(&self.branches)
            .expect("Reached unexpected exploration state. Is the model fully deterministic?")
            .get(&self.branches);

        self.pos += 1;

        let visited = schedule
            .threads
            .iter()
            .enumerate()
            .filter(|(_, th)| **th == Thread::Visited)
            .fold(0, |bits, (i, _)| bits | 1 << i)
            & !schedule.cut;
        let active = schedule
            .threads
            .iter()
            .enumerate()
            .find(|&(_, th)| th.is_active())
            .map(|(i, _)| thread::Id::new(execution_id, i));
        (active, visited)
    }

    /// A race of thread `thread_id`'s next operation, whose DPOR clock is `racer`, with the
    /// access at branch `point`: explore at `point` a thread that can start the reversed race.
    /// With sleep sets, the initials of the reversal ([`Path::initials`]); without, the racing
    /// thread (Flanagan and Godefroid). Under a preemption bound, also the racing thread at the
    /// last context switch before `point` (upstream's conservative point); a point the bound
    /// refuses cuts the subtrees above it ([`Path::cut_above`]).
    pub(super) fn backtrack(&mut self, mut point: usize, thread_id: thread::Id, racer: &VersionVec) {
        let schedule_ref = loop {
            if let Some(schedule_ref) =
                object::Ref::from_usize(point).downcast::<Schedule>(&self.branches)
            {
                if schedule_ref.get(&self.branches).exploring {
                    break schedule_ref;
                }
            }
            if point == 0 {
                return;
            }
            point -= 1;
        };
        let bound = self.preemption_bound;
        let explored = if self.sleeps() {
            let initials = self.initials(schedule_ref, thread_id, racer);
            let schedule = schedule_ref.get_mut(&mut self.branches);
            // Under a bound, the racing thread too: the bounded search without sleep sets
            // explores it, and the initials alone may need a preemption the bound refuses.
            let racing = if bound.is_some() { 1 << thread_id.as_usize() } else { 0 };
            if self.source_sets && bound.is_none() {
                schedule.backtrack_source(thread_id, initials)
            } else {
                schedule.backtrack_initials(thread_id, initials | racing, bound, self.free_switches)
            }
        } else {
            schedule_ref.get_mut(&mut self.branches).backtrack(thread_id, bound, self.free_switches)
        };
        if !explored {
            self.cut_above(schedule_ref);
        }
        if bound.is_none() {
            return;
        }

        // Preemption bounded DPOR requires conservatively adding another backtrack point to
        // cover cases missed by the bounds.
        let Some(prev) = schedule_ref.get(&self.branches).prev else {
            return;
        };
        if let Some(curr) = prev.get(&self.branches).switch {
            if !curr.get_mut(&mut self.branches).backtrack(thread_id, bound, self.free_switches) {
                self.cut_above(curr);
            }
        }
    }

    /// [`Schedule::switch`] of the branch at `at`, from its active thread and its previous
    /// branch's (the very first branch counts as a switch).
    fn switch_at(&self, at: object::Ref<Schedule>) -> Option<object::Ref<Schedule>> {
        let schedule = at.get(&self.branches);
        let Some(prev) = schedule.prev else {
            return schedule.exploring.then_some(at);
        };
        let prev = prev.get(&self.branches);
        if schedule.exploring && schedule.active_thread_index() != prev.active_thread_index() {
            Some(at)
        } else {
            prev.switch
        }
    }

    /// The preemption bound refused a backtracking point at `at`: every branch before it has
    /// its active thread's subtree cut. Marked branches form a prefix of the path (each marking
    /// walks back to the first marked one), so the walk stops there.
    fn cut_above(&mut self, at: object::Ref<Schedule>) {
        if !self.bounded_sleep {
            return;
        }
        let mut curr = at.get(&self.branches).prev;
        while let Some(schedule_ref) = curr {
            let schedule = schedule_ref.get_mut(&mut self.branches);
            let Some(active) = schedule.active_thread_index() else {
                return;
            };
            if schedule.cut & (1 << active) != 0 {
                return;
            }
            schedule.cut |= 1 << active;
            curr = schedule.prev;
        }
    }

    /// Record the DPOR clock of the operation run from the schedule branch at `pos`.
    pub(super) fn set_ran(&mut self, pos: usize, ran: Option<VersionVec>) {
        if let Some(schedule) = object::Ref::from_usize(pos).downcast::<Schedule>(&self.branches) {
            schedule.get_mut(&mut self.branches).ran = ran;
        }
    }

    /// The threads that can run first, from the schedule branch `at`, in the reversal of a
    /// race with thread `racing`'s next operation (DPOR clock `racer`): of the threads with an
    /// operation after `at` that happens before the racing one (the racing thread included),
    /// those whose first operation after `at` happens after no other thread's operation after
    /// `at` (the initials of Abdulla et al.'s source sets). A bit per thread.
    fn initials(&self, at: object::Ref<Schedule>, racing: thread::Id, racer: &VersionVec) -> u8 {
        let from = at.get(&self.branches);
        let after = |vv: &VersionVec, i: usize| vv.at(i) > from.clock[i];
        let mut first: [Option<VersionVec>; MAX_THREADS] = [None; MAX_THREADS];
        // The current execution's branches only: those past `pos` are the last execution's.
        for schedule in self.branches.iter_ref::<Schedule>() {
            if schedule.index() < at.index() || schedule.index() >= self.pos {
                continue;
            }
            let schedule = schedule.get(&self.branches);
            if let (Some(i), Some(ran)) = (schedule.active_thread_index(), schedule.ran) {
                let slot = &mut first[i as usize];
                if slot.is_none() {
                    *slot = Some(ran);
                }
            }
        }
        let mut initials = 0;
        for i in 0..MAX_THREADS {
            if i != racing.as_usize() && !after(racer, i) {
                continue;
            }
            // The racing operation itself when its thread has not run since `at`.
            let op = first[i].unwrap_or(*racer);
            if (0..MAX_THREADS).all(|j| j == i || !after(&op, j)) {
                initials |= 1 << i;
            }
        }
        initials
    }

    /// Reset the path to prepare for the next exploration of the model.
    ///
    /// This function will also trim the object store, dropping any objects that
    /// are created in pruned sections of the path.
    pub(super) fn step(&mut self) -> bool {
        // Reset the position to zero, the path will start traversing from the
        // beginning
        self.pos = 0;

        // Reset exploring / critical / skip
        self.exploring = self.exploring_on_start;
        self.skipping = false;
        self.blocked = false;

        // Set the final branch to try the next option. If all options have been
        // traversed, pop the final branch and try again w/ the one under it.
        //
        // This is depth-first tree traversal.
        //
        // A split search's prefix changes when one of its forks advances: any branch that can,
        // while the prefix is open, else one at or above its last fork.
        let prefix_end = if self.forking() { None } else { self.forks.last().map(|&(at, _)| at) };
        for last in (0..self.branches.len()).rev() {
            let last = object::Ref::from_usize(last);

            // Remove all objects that were created **after** this branch
            self.branches.truncate(last);

            if let Some(schedule_ref) = last.downcast::<Schedule>(&self.branches) {
                let schedule = schedule_ref.get_mut(&mut self.branches);

                if !schedule.exploring {
                    continue;
                }

                // Transition the active thread to visited.
                if let Some(thread) = schedule.threads.iter_mut().find(|th| th.is_active()) {
                    *thread = Thread::Visited;
                }

                // Find a pending thread and transition it to active
                let rem = schedule
                    .threads
                    .iter_mut()
                    .find(|th| th.is_pending())
                    .map(|th| {
                        *th = Thread::Active;
                    })
                    .is_some();

                if rem {
                    let switch = self.switch_at(schedule_ref);
                    schedule_ref.get_mut(&mut self.branches).switch = switch;
                    self.advanced(last.index(), prefix_end);
                    return true;
                }
            } else if let Some(load_ref) = last.downcast::<Load>(&self.branches) {
                let load = load_ref.get_mut(&mut self.branches);

                if !load.exploring {
                    continue;
                }

                load.pos += 1;

                if load.pos < load.len {
                    self.advanced(last.index(), prefix_end);
                    return true;
                }
            } else if let Some(spurious_ref) = last.downcast::<Spurious>(&self.branches) {
                let spurious = spurious_ref.get_mut(&mut self.branches);

                if !spurious.exploring {
                    continue;
                }

                if !spurious.spur {
                    spurious.spur = true;
                    self.advanced(last.index(), prefix_end);
                    return true;
                }
            } else {
                unreachable!();
            }
        }

        false
    }

    /// The branch at `at` took its next alternative: forks below it are gone, and the next
    /// execution has a new prefix when `at` is one of the prefix's forks (`prefix_end`: the last
    /// of them; none while the prefix was open, when every branch that can advance is one).
    fn advanced(&mut self, at: usize, prefix_end: Option<usize>) {
        self.forks.retain(|&(p, _)| p <= at);
        if let Some(fork) = self.forks.last_mut().filter(|(p, _)| *p == at) {
            fork.1 = false;
        }
        if self.split.depth > 0 && prefix_end.map_or(true, |end| at <= end) {
            self.prefix += 1;
            self.in_slice = self.prefix % self.split.slices as u64 == self.split.slice as u64;
        }
    }

    fn last_schedule(&self) -> Option<object::Ref<Schedule>> {
        self.branches.iter_ref::<Schedule>().rev().next()
    }
}

impl Schedule {
    /// Returns the index of the currently active thread
    fn active_thread_index(&self) -> Option<u8> {
        self.threads
            .iter()
            .enumerate()
            .find(|(_, th)| th.is_active())
            .map(|(index, _)| index as u8)
    }

    /// Compute the number of preemptions for the current state of the branch
    fn preemptions(&self) -> u8 {
        if self.initial_active.is_some() && self.initial_active != self.active_thread_index() {
            return self.preemptions + 1;
        }

        self.preemptions
    }

    /// Whether no backtracking point may be added here under `bound`: upstream adds none at a
    /// branch reached with every preemption spent, also where the running thread blocked or
    /// ended, so another thread there costs none; with `free` (`Builder::free_switches`) such a
    /// branch explores them.
    fn at_bound(&self, bound: Option<u8>, free: bool) -> bool {
        if let Some(bound) = bound {
            assert!(
                self.preemptions <= bound,
                "[loom internal bug] actual = {}, bound = {}",
                self.preemptions,
                bound
            );
        }
        bound == Some(self.preemptions) && !(free && self.initial_active.is_none())
    }

    /// Backtracking with sleep sets: explore the `initials` of the reversed race
    /// ([`Path::initials`]), each unless asleep (an asleep thread that can run first has its
    /// executions explored where it fell asleep). The racing thread alone (Flanagan and
    /// Godefroid's rule) loses executions once sleep sets prune: asleep here, it replays an
    /// explored execution, while the reversal may need another thread's operation first (one
    /// the racing thread's next operation reads from). Abdulla et al.'s source sets (POPL 2014)
    /// add an initial of the reversal, as here. Returns false when `bound` refused a thread
    /// not yet explored here.
    fn backtrack_initials(&mut self, thread_id: thread::Id, initials: u8, bound: Option<u8>, free: bool) -> bool {
        if initials == 0 {
            return self.backtrack(thread_id, bound, free);
        }
        let initial = |i: usize| initials & (1 << i) != 0;
        // An initial that cannot run here (not spawned yet, or blocked) starts after another
        // thread's step this branch cannot name: explore every thread, as Flanagan and
        // Godefroid do when the racing thread is disabled.
        let all = (0..MAX_THREADS).any(|i| initial(i) && !self.threads[i].is_enabled());
        let wanted = |i: usize| (all || initial(i)) && self.sleep & (1 << i) == 0;
        if self.at_bound(bound, free) {
            return !(0..MAX_THREADS).any(|i| wanted(i) && self.threads[i] == Thread::Skip);
        }
        for i in 0..MAX_THREADS {
            if wanted(i) {
                self.threads[i].explore();
            }
        }
        true
    }

    /// Source-set backtracking without a bound (Abdulla et al., POPL 2014, Algorithm 1): the
    /// reversal needs one of its `initials` explored here, so add one (the racing thread when
    /// it is one) only when none is explored or pending here or asleep (an asleep initial's
    /// executions, the reversal's among them, are explored where it fell asleep). An initial
    /// that cannot run here: as [`Schedule::backtrack_initials`].
    fn backtrack_source(&mut self, thread_id: thread::Id, initials: u8) -> bool {
        let initial = |i: usize| initials & (1 << i) != 0;
        if initials == 0 || (0..MAX_THREADS).any(|i| initial(i) && !self.threads[i].is_enabled()) {
            return self.backtrack_initials(thread_id, initials, None, false);
        }
        let covered = |i: usize| {
            initial(i) && (self.sleep & (1 << i) != 0 || matches!(self.threads[i], Thread::Pending | Thread::Active | Thread::Visited))
        };
        if (0..MAX_THREADS).any(covered) {
            return true;
        }
        let racing = thread_id.as_usize();
        let pick = if initial(racing) && self.threads[racing] == Thread::Skip {
            Some(racing)
        } else {
            (0..MAX_THREADS).find(|&i| initial(i) && self.threads[i] == Thread::Skip)
        };
        match pick {
            Some(i) => self.threads[i].explore(),
            // Only yielded initials: explore them all, as the search without source sets does.
            None => return self.backtrack_initials(thread_id, initials, None, false),
        }
        true
    }

    /// Flanagan and Godefroid's backtracking: explore the racing thread here, or every thread
    /// when it cannot run (each unless asleep). Returns false when `bound` refused a thread not
    /// yet explored here.
    fn backtrack(&mut self, thread_id: thread::Id, bound: Option<u8>, free: bool) -> bool {
        assert!(self.exploring);

        let thread_id = thread_id.as_usize();

        if thread_id >= self.threads.len() {
            return true;
        }

        let asleep = |i: usize| self.sleep & (1 << i) != 0;
        let enabled = self.threads[thread_id].is_enabled();
        let wanted = |i: usize| (!enabled || i == thread_id) && !asleep(i);
        if self.at_bound(bound, free) {
            return !(0..MAX_THREADS).any(|i| wanted(i) && self.threads[i] == Thread::Skip);
        }
        for i in 0..MAX_THREADS {
            if wanted(i) {
                self.threads[i].explore();
            }
        }
        true
    }
}

impl Thread {
    fn explore(&mut self) {
        if *self == Thread::Skip {
            *self = Thread::Pending;
        }
    }

    fn is_pending(&self) -> bool {
        *self == Thread::Pending
    }

    fn is_active(&self) -> bool {
        *self == Thread::Active
    }

    fn is_enabled(&self) -> bool {
        !self.is_disabled()
    }

    fn is_disabled(&self) -> bool {
        *self == Thread::Disabled
    }
}
