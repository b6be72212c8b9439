//! An atomic cell.
//!
//! # The memory model
//!
//! Each cell keeps the stores a live thread may still read or place a store before (at most
//! `MAX_ATOMIC_HISTORY`, past which loom refuses to go on) in *modification order* (`mo`), a
//! total order fixed when each store runs: a store takes a place in it that the exploration
//! chooses (a branch point, like a load's choice of store), so two stores concurrent with each
//! other are explored in both orders. An RMW takes the place right after the store it reads,
//! and no later store may come between the two (RMW atomicity). A thread may read, or place a
//! store after, only what is not older than everything it has *observed*: the stores that
//! happen before it and the stores read by events that happen before it (coherence:
//! write-write, write-read, read-write, read-read). Executions are those of RC11 (Lahav et al.,
//! PLDI 2017) without load buffering (a load reads a store that ran before it), with SeqCst
//! accesses treated as AcqRel ones and SeqCst fences as RC11 states them (see `psc.rs`).
//!
//! Upstream loom 0.7.3 kept a partial order per store, joined lazily as loads observed stores.
//! A store could then be placed between an RMW and the store the RMW read (tokio-rs/loom#254,
//! #389, #282): `x.store(2)` concurrent with `r = x.swap(1)` could end with `r == 0` and
//! `x == 1`, which no C11 execution allows.
//!
//! # Synchronization
//!
//! A store's `sync` clock is what an acquire reading it (or reading an RMW chain after it)
//! synchronizes with: the storing thread's causality if the store releases, its last release
//! fence's if one came before the store, and those of the same thread's earlier writes to the
//! cell (a release sequence includes the writer's later writes to the location, as RC11 and
//! herd7's rc11.cat state it). An acquire fence synchronizes with the stores its thread read
//! before it (`Thread::read_releases`), not with every store some earlier thread read.
//!
//! # DPOR
//!
//! A load depends on the stores and RMWs of the cell, a store on its loads and RMWs, an RMW on
//! everything; two loads, or two stores (their order in `mo` is a branch of its own), are
//! independent. The cell keeps each thread's last reading and last writing access, so every
//! pair of dependent accesses that happens-before does not order is found (upstream kept one
//! last access, so a thread's own load hid another thread's load from its store:
//! tokio-rs/loom#166, #392).

use crate::rt::execution::Execution;
use crate::rt::location::{self, Location, LocationSet};
use crate::rt::object;
use crate::rt::psc::{FenceSet, Psc};
use crate::rt::{
    self, graph, thread, Access, Numeric, Synchronize, VersionVec, MAX_ATOMIC_HISTORY, MAX_CHOICES,
    MAX_THREADS,
};

use std::marker::PhantomData;
use std::sync::atomic::Ordering;

use tracing::trace;

#[derive(Debug)]
pub(crate) struct Atomic<T> {
    state: object::Ref<State>,
    _p: PhantomData<fn() -> T>,
}

#[derive(Debug)]
pub(super) struct State {
    /// Where the atomic was created
    created_location: Location,

    /// Transitive closure of all atomic loads from the cell.
    loaded_at: VersionVec,

    /// Location for the *last* time a thread atomically loaded from the cell.
    loaded_locations: LocationSet,

    /// Transitive closure of all **unsynchronized** loads from the cell.
    unsync_loaded_at: VersionVec,

    /// Location for the *last* time a thread read **synchronized** from the cell.
    unsync_loaded_locations: LocationSet,

    /// Transitive closure of all atomic stores to the cell.
    stored_at: VersionVec,

    /// Location for the *last* time a thread atomically stored to the cell.
    stored_locations: LocationSet,

    /// Version of the most recent **unsynchronized** mutable access to the
    /// cell.
    ///
    /// This includes the initialization of the cell as well as any calls to
    /// `get_mut`.
    unsync_mut_at: VersionVec,

    /// Location for the *last* time a thread `with_mut` from the cell.
    unsync_mut_locations: LocationSet,

    /// `true` when in a `with_mut` closure. If this is set, there can be no
    /// access to the cell.
    is_mutating: bool,

    /// DPOR: each thread's last access that reads the cell (a load or an RMW).
    last_read: [Option<Access>; MAX_THREADS],
    last_write: [Option<Access>; MAX_THREADS],

    /// The stores kept, in modification order, oldest first: `stores[..len]`.
    stores: Vec<Store>,

    /// Per thread: the release clocks of its own writes to the cell so far, which its later
    /// writes to the cell carry (the `(sb & loc)?` of RC11's release sequence).
    own_release: [VersionVec; MAX_THREADS],

    /// What the stores dropped from the history leave for `psc`: who saw them, and their
    /// `eco_in` and `readers_in`.
    dropped_seen: FirstSeen,
    dropped_eco_in: FenceSet,
}

#[derive(Debug, Copy, Clone, PartialEq)]
pub(super) enum Action {
    /// Atomic load
    Load,

    /// Atomic store
    Store,

    /// Atomic read-modify-write
    Rmw,
}

#[derive(Debug, Copy, Clone)]
struct Store {
    /// The stored value. All atomic types can be converted to `u64`.
    value: u64,

    /// What an acquire that reads this store synchronizes with.
    sync: Synchronize,

    /// DPOR: the writing thread's `dpor_vv` when it stored (a read of the store comes after it).
    dpor: VersionVec,

    /// Sleep sets: the store's number in the execution (`Execution::stores_made`).
    seq: u32,

    /// The store's event (`graph`).
    event: u64,

    /// Tracks when each thread first saw (stored or read) the value.
    first_seen: FirstSeen,

    /// An RMW read this store: the RMW's store is the next one in modification order, and no
    /// other store may come between them.
    rmw_next: bool,

    /// `psc`: the SC fences that happen before this store, or before an event `eco`-before it.
    eco_in: FenceSet,

    /// `psc`: the SC fences that happen before a reader of this store.
    readers_in: FenceSet,
}

#[derive(Debug, Copy, Clone)]
struct FirstSeen([u16; MAX_THREADS]);

/// Implements atomic fence behavior
pub(crate) fn fence(ordering: Ordering) {
    rt::synchronize(|execution| match ordering {
        Ordering::Acquire => fence_acq(execution),
        Ordering::Release => fence_rel(execution),
        Ordering::AcqRel => fence_acqrel(execution),
        Ordering::SeqCst => fence_seqcst(execution),
        Ordering::Relaxed => panic!("there is no such thing as a relaxed fence"),
        order => unimplemented!("unimplemented ordering {:?}", order),
    });
}

/// An acquire fence synchronizes with the release of every store its thread read before it.
fn fence_acq(execution: &mut Execution) {
    let active = execution.threads.active_mut();
    let read = active.read_releases;
    active.causality.join(&read);
}

fn fence_rel(execution: &mut Execution) {
    // take snapshot of cur view and record as rel view
    let active = execution.threads.active_mut();
    active.released = active.causality;
}

fn fence_acqrel(execution: &mut Execution) {
    fence_acq(execution);
    fence_rel(execution);
}

/// An AcqRel fence that is also a node of `psc`, with an edge from every SC fence that happens
/// before it, directly or through `eco` (`psc.rs`).
fn fence_seqcst(execution: &mut Execution) {
    fence_acqrel(execution);
    let causality = execution.threads.active().causality;
    let mut incoming = execution.psc.before(&causality);
    if !execution.psc.covers_eco(&incoming) {
        for state in execution.objects.iter_mut::<State>() {
            state.eco_in_seen_by(&causality, &mut incoming);
        }
    }
    execution.psc.push(&execution.threads, &incoming);
}

impl<T: Numeric> Atomic<T> {
    /// Create a new, atomic cell initialized with the provided value
    pub(crate) fn new(value: T, location: Location) -> Atomic<T> {
        rt::execution(|execution| {
            let state = State::new(
                &mut execution.threads,
                &mut execution.psc,
                value.into_u64(),
                location,
            );
            let state = execution.objects.insert(state);

            trace!(?state, "Atomic::new");

            Atomic {
                state,
                _p: PhantomData,
            }
        })
    }

    /// Loads a value from the atomic cell.
    pub(crate) fn load(&self, location: Location, ordering: Ordering) -> T {
        self.branch(Action::Load, location);

        super::synchronize(|execution| {
            let state = self.state.get_mut(&mut execution.objects);

            // If necessary, generate the list of stores to permute through
            if execution.path.is_traversed() {
                let mut seed = [0; MAX_CHOICES];
                let read = |_: &Store| Some(ordering);
                let mut n = state.match_load_to_stores(
                    &execution.threads,
                    &execution.psc,
                    execution.read_newer_than,
                    &mut seed,
                    read,
                );
                if n == 0 {
                    // No newer store to read: the branch where the read ran first covers
                    // every execution from here.
                    execution.path.skip_branch();
                    n = state.match_load_to_stores(&execution.threads, &execution.psc, None, &mut seed, read);
                }
                execution.path.push_load(&seed[..n]);
            }

            // Get the store to return from this load.
            let index = execution.path.branch_load();

            trace!(state = ?self.state, ?ordering, "Atomic::load");

            T::from_u64(state.load(
                &mut execution.threads,
                &mut execution.psc,
                index,
                location,
                ordering,
            ))
        })
    }

    /// Loads a value from the atomic cell without performing synchronization
    pub(crate) fn unsync_load(&self, location: Location) -> T {
        rt::execution(|execution| {
            let state = self.state.get_mut(&mut execution.objects);

            state
                .unsync_loaded_locations
                .track(location, &execution.threads);

            // An unsync load counts as a "read" access
            state.track_unsync_load(&execution.threads);

            trace!(state = ?self.state, "Atomic::unsync_load");

            // Return the value
            let index = state.stores.len() - 1;
            T::from_u64(state.stores[index].value)
        })
    }

    /// Stores a value into the atomic cell.
    pub(crate) fn store(&self, location: Location, val: T, ordering: Ordering) {
        self.branch(Action::Store, location);

        super::synchronize(|execution| {
            let seq = execution.next_store();
            let state = self.state.get_mut(&mut execution.objects);

            // The place in modification order: a branch of its own.
            if execution.path.is_traversed() {
                let mut seed = [0; MAX_CHOICES];
                let n = state.match_store_to_places(&execution.threads, &execution.psc, &mut seed);
                execution.path.push_load(&seed[..n]);
            }
            let place = execution.path.branch_load();

            state.stored_locations.track(location, &execution.threads);

            // An atomic store counts as a read access to the underlying memory
            // cell.
            state.track_store(&execution.threads);

            trace!(state = ?self.state, ?ordering, "Atomic::store");

            let mut sync = Synchronize::new();
            state.release(&mut execution.threads, &mut sync, ordering);
            state.insert(
                &execution.threads,
                &mut execution.psc,
                seq,
                place,
                val.into_u64(),
                sync,
            );
        })
    }

    pub(crate) fn rmw<F, E>(
        &self,
        location: Location,
        success: Ordering,
        failure: Ordering,
        f: F,
    ) -> Result<T, E>
    where
        F: Fn(T) -> Result<T, E>,
    {
        self.branch(Action::Rmw, location);

        super::synchronize(|execution| {
            let seq = execution.next_store();
            let state = self.state.get_mut(&mut execution.objects);

            // If necessary, generate the list of stores to permute through: a store the RMW
            // would write after must not already be followed by another RMW.
            if execution.path.is_traversed() {
                let mut seed = [0; MAX_CHOICES];
                let read = |store: &Store| match f(T::from_u64(store.value)) {
                    Ok(_) if store.rmw_next => None,
                    Ok(_) => Some(success),
                    Err(_) => Some(failure),
                };
                let mut n = state.match_load_to_stores(
                    &execution.threads,
                    &execution.psc,
                    execution.read_newer_than,
                    &mut seed,
                    read,
                );
                if n == 0 {
                    execution.path.skip_branch();
                    n = state.match_load_to_stores(&execution.threads, &execution.psc, None, &mut seed, read);
                }
                execution.path.push_load(&seed[..n]);
            }

            // Get the store to use for the read portion of the rmw operation.
            let index = execution.path.branch_load();

            trace!(state = ?self.state, ?success, ?failure, "Atomic::rmw");

            state
                .rmw(
                    &mut execution.threads,
                    &mut execution.psc,
                    seq,
                    index,
                    location,
                    success,
                    failure,
                    |num| f(T::from_u64(num)).map(T::into_u64),
                )
                .map(T::from_u64)
        })
    }

    /// Access a mutable reference to value most recently stored.
    ///
    /// `with_mut` must happen-after all stores to the cell.
    pub(crate) fn with_mut<R>(&mut self, location: Location, f: impl FnOnce(&mut T) -> R) -> R {
        let value = super::execution(|execution| {
            let state = self.state.get_mut(&mut execution.objects);

            state
                .unsync_mut_locations
                .track(location, &execution.threads);
            // Verify the mutation may happen
            state.track_unsync_mut(&execution.threads);
            state.is_mutating = true;

            trace!(state = ?self.state, "Atomic::with_mut");

            // Return the value of the most recent store
            let index = state.stores.len() - 1;
            T::from_u64(state.stores[index].value)
        });

        struct Reset<T: Numeric>(T, object::Ref<State>);

        impl<T: Numeric> Drop for Reset<T> {
            fn drop(&mut self) {
                super::execution(|execution| {
                    let state = self.1.get_mut(&mut execution.objects);

                    // Make sure the state is as expected
                    assert!(state.is_mutating);
                    state.is_mutating = false;

                    // The value may have been mutated, so it must be placed
                    // back.
                    let index = state.stores.len() - 1;
                    state.stores[index].value = T::into_u64(self.0);

                    if !std::thread::panicking() {
                        state.track_unsync_mut(&execution.threads);
                    }
                });
            }
        }

        // Unset on exit
        let mut reset = Reset(value, self.state);
        f(&mut reset.0)
    }

    fn branch(&self, action: Action, location: Location) {
        let r = self.state;
        r.branch_action(action, location);
        assert!(
            r.ref_eq(self.state),
            "Internal state mutated during branch. This is \
                usually due to a bug in the algorithm being tested writing in \
                an invalid memory location."
        );
    }
}

// ===== impl State =====

impl State {
    fn new(threads: &mut thread::Set, psc: &mut Psc, value: u64, location: Location) -> State {
        let mut state = State {
            created_location: location,
            loaded_at: VersionVec::new(),
            loaded_locations: LocationSet::new(),
            unsync_loaded_at: VersionVec::new(),
            unsync_loaded_locations: LocationSet::new(),
            stored_at: VersionVec::new(),
            stored_locations: LocationSet::new(),
            unsync_mut_at: VersionVec::new(),
            unsync_mut_locations: LocationSet::new(),
            is_mutating: false,
            last_read: Default::default(),
            last_write: Default::default(),
            stores: Vec::new(),
            own_release: [VersionVec::new(); MAX_THREADS],
            dropped_seen: FirstSeen::new(),
            dropped_eco_in: FenceSet::default(),
        };

        // All subsequent accesses must happen-after.
        state.track_unsync_mut(threads);

        // The initial store, which every access happens after (this is verified using
        // `track_unsync_mut`), so its place and its release do not matter.
        let mut sync = Synchronize::new();
        sync.sync_store(threads, Ordering::Release);
        state.insert(threads, psc, 0, 0, value, sync);
        let creator = threads.active_mut();
        creator.atomics_created += 1;
        state.stores[0].event = graph::initial(threads.active_id().as_usize(), threads.active().atomics_created);

        state
    }

    fn load(
        &mut self,
        threads: &mut thread::Set,
        psc: &mut Psc,
        index: usize,
        location: Location,
        ordering: Ordering,
    ) -> u64 {
        self.loaded_locations.track(location, threads);
        // Validate memory safety
        self.track_load(threads);

        self.read(threads, psc, index, ordering);
        self.stores[index].value
    }

    /// The read part of a load or an RMW: synchronize with the store read, remember it for the
    /// thread's acquire fences, mark it seen, and add the `psc` edges of the read.
    fn read(&mut self, threads: &mut thread::Set, psc: &mut Psc, index: usize, ordering: Ordering) {
        let reader = threads.active_id().as_usize();
        let event = graph::event(reader, threads.active().dpor_vv.at(reader));
        graph::add(graph::Edge::ReadsFrom, event, self.stores[index].event);
        let mut sync = self.stores[index].sync;
        sync.sync_load(threads, ordering);
        let active = threads.active_mut();
        active.read_releases.join(self.stores[index].sync.clock());
        active.dpor_vv.join(&self.stores[index].dpor);

        let before = psc.before(&threads.active().causality);
        // (No SC fence happens before the read: it adds no edge.)
        if !before.is_empty() {
            let after = self.fences_after(psc, index + 1);
            psc.add_edges(&before, &after);
            psc.note_eco(&before);
            for store in &mut self.stores[index + 1..] {
                store.eco_in.union(&before);
            }
            self.stores[index].readers_in.union(&before);
        }

        self.stores[index].first_seen.touch(threads);
    }

    /// Add the active thread's own release for a write with `ordering` to `sync`, with those of
    /// its earlier writes to the cell.
    fn release(&mut self, threads: &mut thread::Set, sync: &mut Synchronize, ordering: Ordering) {
        let mut own = Synchronize::new();
        own.sync_store(threads, ordering);
        let mine = &mut self.own_release[threads.active_id().as_usize()];
        mine.join(own.clock());
        sync.join(mine);
    }

    /// Insert a store by the active thread at `place` in modification order (before the store
    /// now at `place`), with its `psc` edges.
    fn insert(
        &mut self,
        threads: &thread::Set,
        psc: &mut Psc,
        seq: u32,
        mut place: usize,
        value: u64,
        sync: Synchronize,
    ) {
        let mut first_seen = FirstSeen::new();
        first_seen.touch(threads);
        let writer = threads.active_id().as_usize();
        let mut store = Store {
            value,
            sync,
            dpor: threads.active().dpor_vv,
            seq,
            event: graph::event(writer, threads.active().dpor_vv.at(writer)),
            first_seen,
            rmw_next: false,
            eco_in: FenceSet::default(),
            readers_in: FenceSet::default(),
        };

        if !psc.is_empty() {
            let before = psc.before(&threads.active().causality);
            if !before.is_empty() {
                let after = self.fences_after(psc, place);
                psc.add_edges(&before, &after);
                psc.note_eco(&before);
                for later in &mut self.stores[place..] {
                    later.eco_in.union(&before);
                }
            }
            store.eco_in = before;
            if place > 0 {
                store.eco_in.union(&self.stores[place - 1].eco_in);
                store.eco_in.union(&self.stores[place - 1].readers_in);
            } else {
                store.eco_in.union(&self.dropped_eco_in);
            }
        }

        if self.stores.len() == MAX_ATOMIC_HISTORY {
            // Drop the stores no live thread can read or place a store before: those older
            // than the newest store each has observed (coherence). Dropping any other store
            // (upstream drops the oldest) forgets where it sat in modification order: a later
            // store could then be placed between a dropped store and the RMW that read it, an
            // outcome C11 forbids, and a load could no longer read a store it may read.
            let floor = threads
                .iter()
                .filter(|(_, th)| !th.is_terminated())
                .map(|(_, th)| self.newest_seen_by(&th.causality).unwrap_or(0))
                .min()
                .unwrap_or(0);
            // (A store made while the execution unwinds from a panic, by a destructor, only
            // has to not panic again.)
            let floor = if std::thread::panicking() { floor.max(1) } else { floor };
            assert!(
                floor > 0,
                "loom: more than {} stores to one atomic that a live thread may still read or \
                 place a store before (the store history limit, MAX_ATOMIC_HISTORY): loom \
                 refuses rather than forget one",
                MAX_ATOMIC_HISTORY
            );
            // Their places in modification order are final: keep them in the graph.
            for pair in self.stores[..=floor].windows(2) {
                graph::add(graph::Edge::Mo, pair[0].event, pair[1].event);
            }
            for dropped in self.stores.drain(..floor).collect::<Vec<_>>() {
                self.drop_store(dropped);
            }
            place = place.saturating_sub(floor);
        }
        self.stores.insert(place, store);
    }

    /// The hashes of the modification order's edges among the stores kept (`graph`).
    pub(super) fn mo_edges(&self) -> u64 {
        self.stores.windows(2).fold(0, |sum, pair| {
            sum.wrapping_add(graph::hash(graph::Edge::Mo as u64, pair[0].event, pair[1].event))
        })
    }

    fn drop_store(&mut self, store: Store) {
        self.dropped_seen.join(&store.first_seen);
        self.dropped_eco_in.union(&store.eco_in);
        self.dropped_eco_in.union(&store.readers_in);
    }

    #[allow(clippy::too_many_arguments)]
    fn rmw<E>(
        &mut self,
        threads: &mut thread::Set,
        psc: &mut Psc,
        seq: u32,
        index: usize,
        location: Location,
        success: Ordering,
        failure: Ordering,
        f: impl FnOnce(u64) -> Result<u64, E>,
    ) -> Result<u64, E> {
        self.loaded_locations.track(location, threads);

        // Track the load is happening in order to ensure correct
        // synchronization to the underlying cell.
        self.track_load(threads);

        let prev = self.stores[index].value;

        match f(prev) {
            Ok(next) => {
                self.stored_locations.track(location, threads);
                // Track a store operation happened
                self.track_store(threads);

                self.read(threads, psc, index, success);

                // The RMW continues the release sequence of the store it reads.
                let mut sync = self.stores[index].sync;
                self.release(threads, &mut sync, success);
                self.stores[index].rmw_next = true;
                self.insert(threads, psc, seq, index + 1, next, sync);

                Ok(prev)
            }
            Err(e) => {
                self.read(threads, psc, index, failure);
                Err(e)
            }
        }
    }

    /// Track an atomic load
    fn track_load(&mut self, threads: &thread::Set) {
        assert!(!self.is_mutating, "atomic cell is in `with_mut` call");

        let current = &threads.active().causality;

        if let Some(mut_at) = current.ahead(&self.unsync_mut_at) {
            location::panic("Causality violation: Concurrent load and mut accesses.")
                .location("created", self.created_location)
                .thread("with_mut", mut_at, self.unsync_mut_locations[mut_at])
                .thread("load", threads.active_id(), self.loaded_locations[threads])
                .fire();
        }

        self.loaded_at.join(current);
    }

    /// Track an unsynchronized load
    fn track_unsync_load(&mut self, threads: &thread::Set) {
        assert!(!self.is_mutating, "atomic cell is in `with_mut` call");

        let current = &threads.active().causality;

        if let Some(mut_at) = current.ahead(&self.unsync_mut_at) {
            location::panic("Causality violation: Concurrent `unsync_load` and mut accesses.")
                .location("created", self.created_location)
                .thread("with_mut", mut_at, self.unsync_mut_locations[mut_at])
                .thread(
                    "unsync_load",
                    threads.active_id(),
                    self.unsync_loaded_locations[threads],
                )
                .fire();
        }

        if let Some(stored) = current.ahead(&self.stored_at) {
            location::panic("Causality violation: Concurrent `unsync_load` and atomic store.")
                .location("created", self.created_location)
                .thread("atomic store", stored, self.stored_locations[stored])
                .thread(
                    "unsync_load",
                    threads.active_id(),
                    self.unsync_loaded_locations[threads],
                )
                .fire();
        }

        self.unsync_loaded_at.join(current);
    }

    /// Track an atomic store
    fn track_store(&mut self, threads: &thread::Set) {
        assert!(!self.is_mutating, "atomic cell is in `with_mut` call");

        let current = &threads.active().causality;

        if let Some(mut_at) = current.ahead(&self.unsync_mut_at) {
            location::panic("Causality violation: Concurrent atomic store and mut accesses.")
                .location("created", self.created_location)
                .thread("with_mut", mut_at, self.unsync_mut_locations[mut_at])
                .thread(
                    "atomic store",
                    threads.active_id(),
                    self.stored_locations[threads],
                )
                .fire();
        }

        if let Some(loaded) = current.ahead(&self.unsync_loaded_at) {
            location::panic(
                "Causality violation: Concurrent atomic store and `unsync_load` accesses.",
            )
            .location("created", self.created_location)
            .thread("unsync_load", loaded, self.unsync_loaded_locations[loaded])
            .thread(
                "atomic store",
                threads.active_id(),
                self.stored_locations[threads],
            )
            .fire();
        }

        self.stored_at.join(current);
    }

    /// Track an unsynchronized mutation
    fn track_unsync_mut(&mut self, threads: &thread::Set) {
        assert!(!self.is_mutating, "atomic cell is in `with_mut` call");

        let current = &threads.active().causality;

        if let Some(loaded) = current.ahead(&self.loaded_at) {
            location::panic("Causality violation: Concurrent atomic load and unsync mut accesses.")
                .location("created", self.created_location)
                .thread("atomic load", loaded, self.loaded_locations[loaded])
                .thread(
                    "with_mut",
                    threads.active_id(),
                    self.unsync_mut_locations[threads],
                )
                .fire();
        }

        if let Some(loaded) = current.ahead(&self.unsync_loaded_at) {
            location::panic(
                "Causality violation: Concurrent `unsync_load` and unsync mut accesses.",
            )
            .location("created", self.created_location)
            .thread("unsync_load", loaded, self.unsync_loaded_locations[loaded])
            .thread(
                "with_mut",
                threads.active_id(),
                self.unsync_mut_locations[threads],
            )
            .fire();
        }

        if let Some(stored) = current.ahead(&self.stored_at) {
            location::panic(
                "Causality violation: Concurrent atomic store and unsync mut accesses.",
            )
            .location("created", self.created_location)
            .thread("atomic store", stored, self.stored_locations[stored])
            .thread(
                "with_mut",
                threads.active_id(),
                self.unsync_mut_locations[threads],
            )
            .fire();
        }

        if let Some(mut_at) = current.ahead(&self.unsync_mut_at) {
            location::panic("Causality violation: Concurrent unsync mut accesses.")
                .location("created", self.created_location)
                .thread("with_mut one", mut_at, self.unsync_mut_locations[mut_at])
                .thread(
                    "with_mut two",
                    threads.active_id(),
                    self.unsync_mut_locations[threads],
                )
                .fire();
        }

        self.unsync_mut_at.join(current);
    }

    /// The index of the oldest store the active thread may read: the newest one it has
    /// observed (coherence), or the oldest kept if it observed none of those kept.
    fn oldest_readable(&self, threads: &thread::Set) -> usize {
        self.newest_seen_by(&threads.active().causality).unwrap_or(0)
    }

    /// The newest store in modification order that an event with `causality` has observed.
    fn newest_seen_by(&self, causality: &VersionVec) -> Option<usize> {
        (0..self.stores.len()).rev().find(|&i| self.stores[i].first_seen.is_seen_by(causality))
    }

    /// Whether `psc` edges from the fences of `before` to those after the store at `from` or
    /// later (or one of its readers) would close a cycle; with no fence before, none can.
    fn would_cycle_after(&self, psc: &Psc, before: &FenceSet, from: usize) -> bool {
        !before.is_empty() && psc.would_cycle(before, &self.fences_after(psc, from))
    }

    /// `after[i]`: the SC fences that happen after a store at index `i` or later, or after one
    /// of its readers.
    fn fences_after(&self, psc: &Psc, from: usize) -> FenceSet {
        let mut after = FenceSet::default();
        for store in &self.stores[from..] {
            after.union(&psc.after(|causality| store.first_seen.is_seen_by(causality)));
        }
        after
    }

    /// Find all stores that a read by the active thread may read, into `dst`. `read` says, for a
    /// store, with which ordering the access would read it, or that it may not.
    fn match_load_to_stores(
        &self,
        threads: &thread::Set,
        psc: &Psc,
        newer_than: Option<u32>,
        dst: &mut [u8],
        read: impl Fn(&Store) -> Option<Ordering>,
    ) -> usize {
        let mut n = 0;
        for i in self.oldest_readable(threads)..self.stores.len() {
            let store = &self.stores[i];
            if newer_than.is_some_and(|seq| store.seq < seq) {
                continue;
            }
            let ordering = match read(store) {
                Some(ordering) => ordering,
                None => continue,
            };

            if i + 1 < self.stores.len() && store.first_seen.is_seen_before_yield(threads) {
                // Saw this store before the previous yield and a newer one exists. In order
                // to advance the model, don't return it again.
                continue;
            }

            if !psc.is_empty() {
                let mut causality = threads.active().causality;
                if is_acquire(ordering) {
                    causality.join(store.sync.clock());
                }
                if self.would_cycle_after(psc, &psc.before(&causality), i + 1) {
                    continue;
                }
            }

            dst[n] = i as u8;
            n += 1;
        }

        n
    }

    /// Find every place in modification order a store by the active thread may take, into
    /// `dst`: after every store it has observed, not between an RMW and the store it read.
    fn match_store_to_places(&self, threads: &thread::Set, psc: &Psc, dst: &mut [u8]) -> usize {
        let first = self
            .newest_seen_by(&threads.active().causality)
            .map_or(0, |i| i + 1);
        let before = psc.before(&threads.active().causality);
        let mut n = 0;
        for place in first..=self.stores.len() {
            if place > 0 && self.stores[place - 1].rmw_next {
                continue;
            }
            if self.would_cycle_after(psc, &before, place) {
                continue;
            }
            dst[n] = place as u8;
            n += 1;
        }
        n
    }

    /// `psc`: add to `incoming` the `eco_in` of every store that an event with `causality`
    /// has seen (the store, or one of its readers, happened before it).
    /// `eco_in` grows along modification order (a store's holds the `eco_in` and `readers_in` of
    /// every store before it, the dropped ones' too), so the newest store seen gives the union.
    /// The newest store's `eco_in` holds every other's: when `incoming` has it all, nothing is
    /// added, and the search for the newest store seen (most of an SC fence's cost) is skipped.
    fn eco_in_seen_by(&self, causality: &VersionVec, incoming: &mut FenceSet) {
        let all = self.stores.last().map_or(&self.dropped_eco_in, |newest| &newest.eco_in);
        if incoming.contains_all(all) {
            return;
        }
        match self.newest_seen_by(causality) {
            Some(i) => incoming.union(&self.stores[i].eco_in),
            None if self.dropped_seen.is_seen_by(causality) => incoming.union(&self.dropped_eco_in),
            None => {}
        }
    }

    /// The accesses a new `action` races with if they did not happen before it: each thread's
    /// last read (load or RMW) for a write (store or RMW), which may then run before the read
    /// and be read by it. A read needs no race with an earlier store: run after it, the read
    /// has every choice it would have before it, and that store too; but not after a yield,
    /// when the read may no longer return a store its thread saw before (`is_seen_before_yield`),
    /// so a read by a thread that has yielded races with each thread's last write too.
    pub(super) fn dependent_accesses(&self, action: Action, after_yield: bool, mut f: impl FnMut(&Access)) {
        if matches!(action, Action::Store | Action::Rmw) {
            self.last_read.iter().flatten().for_each(&mut f);
        }
        if after_yield && matches!(action, Action::Load | Action::Rmw) {
            self.last_write.iter().flatten().for_each(&mut f);
        }
    }

    /// Record the active thread's access
    pub(super) fn set_last_access(
        &mut self,
        action: Action,
        thread: usize,
        path_id: usize,
        version: &VersionVec,
    ) {
        if matches!(action, Action::Load | Action::Rmw) {
            Access::set_or_create(&mut self.last_read[thread], path_id, version);
        }
        if matches!(action, Action::Store | Action::Rmw) {
            Access::set_or_create(&mut self.last_write[thread], path_id, version);
        }
    }
}

// ===== impl Store =====

impl Default for Store {
    fn default() -> Store {
        Store {
            value: 0,
            sync: Synchronize::new(),
            dpor: VersionVec::new(),
            seq: 0,
            event: 0,
            first_seen: FirstSeen::new(),
            rmw_next: false,
            eco_in: FenceSet::default(),
            readers_in: FenceSet::default(),
        }
    }
}

// ===== impl FirstSeen =====

impl FirstSeen {
    fn new() -> FirstSeen {
        FirstSeen([u16::MAX; MAX_THREADS])
    }

    fn touch(&mut self, threads: &thread::Set) {
        if self.0[threads.active_id().as_usize()] == u16::MAX {
            self.0[threads.active_id().as_usize()] = threads.active_atomic_version();
        }
    }

    /// Keep the earlier sighting of each thread.
    fn join(&mut self, other: &FirstSeen) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = (*a).min(*b);
        }
    }

    /// Whether a thread saw the value before an event with `causality`.
    fn is_seen_by(&self, causality: &VersionVec) -> bool {
        self.0
            .iter()
            .enumerate()
            .any(|(thread, &v)| v != u16::MAX && v <= causality.at(thread))
    }

    fn is_seen_before_yield(&self, threads: &thread::Set) -> bool {
        let thread_id = threads.active_id();

        let last_yield = match threads.active().last_yield {
            Some(v) => v,
            None => return false,
        };

        match self.0[thread_id.as_usize()] {
            u16::MAX => false,
            v => v <= last_yield,
        }
    }
}

fn is_acquire(order: Ordering) -> bool {
    matches!(order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst)
}
