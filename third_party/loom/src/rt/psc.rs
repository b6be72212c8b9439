//! RC11's partial SC order over `fence(SeqCst)` (Lahav et al., "Repairing Sequential
//! Consistency in C/C++11", PLDI 2017).
//!
//! With SC fences only (loom treats SeqCst *accesses* as AcqRel), RC11 requires
//!
//! ```text
//! psc = [F_sc]; (hb | hb; eco; hb); [F_sc]      acyclic
//! ```
//!
//! An SC fence creates no happens-before: it only forbids executions in which this relation
//! has a cycle. loom used to join every SC fence with a global clock, so a fence that ran later
//! in the interleaving happened-after every earlier one, which forbids outcomes RC11 allows
//! (the order of two SC fences need not follow the order loom runs them in).
//!
//! Here the relation is kept as the transitive closure of its edges over the SC fences run so
//! far. An edge `F1 -> F2` is found when the last of its four events runs:
//!
//! - a fence `F2` gets an edge from every fence that happens before it, and from every fence in
//!   the `eco_in` set of a store that `F2`'s causality has seen (the store itself or one of its
//!   readers happened before `F2`); `eco_in(w)` is the set of SC fences that happen before an
//!   event `eco`-before or equal to `w` or to a reader of `w` (see `atomic.rs`);
//! - an access `e` gets an edge from every fence that happens before it to every fence that
//!   happens after one of its `eco` successors (the stores after it in modification order, or
//!   their readers).
//!
//! A new fence has no outgoing edge, so it never closes a cycle. A load or store whose choice
//! (the store it reads, the place it takes in modification order) would close one is not
//! explored: every prefix of a consistent execution is consistent, so this loses nothing and
//! explores nothing inconsistent.

use crate::rt::{thread, VersionVec, MAX_THREADS};

/// A set of SC fences, by their index in the execution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FenceSet([u64; WORDS]);

const WORDS: usize = 4;

/// At most this many SC fences in one execution.
pub(crate) const MAX_SC_FENCES: usize = WORDS * 64;

impl FenceSet {
    pub(crate) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    pub(crate) fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    pub(crate) fn union(&mut self, other: &FenceSet) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a |= b;
        }
    }

    pub(crate) fn contains_all(&self, other: &FenceSet) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| b & !a == 0)
    }

    pub(crate) fn intersects(&self, other: &FenceSet) -> bool {
        self.0.iter().zip(other.0.iter()).any(|(a, b)| a & b != 0)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + i
                })
            })
        })
    }
}

#[derive(Debug)]
struct Fence {
    /// The fence's causality (what happened before it).
    causality: VersionVec,
}

/// The SC fences of one execution and the transitive closure of `psc` over them.
#[derive(Debug, Default)]
pub(crate) struct Psc {
    fences: Vec<Fence>,
    /// `reach[i]`: the fences reachable from fence `i` by one or more `psc` edges.
    reach: Vec<FenceSet>,
    /// Per thread, its fences in the order it ran them: each one's clock and the set of that
    /// fence and the thread's earlier ones (clocks never decrease along a thread).
    by_thread: [Vec<(u16, FenceSet)>; MAX_THREADS],
    /// Every fence in some store's `eco_in` (or a cell's dropped stores'): an SC fence whose
    /// incoming edges hold them all needs no look at the cells.
    eco: FenceSet,
}

impl Psc {
    pub(crate) fn clear(&mut self) {
        self.fences.clear();
        self.reach.clear();
        self.by_thread.iter_mut().for_each(Vec::clear);
        self.eco = FenceSet::default();
    }

    /// A store's `eco_in` (or a reader's `readers_in`) gained `fences`.
    pub(crate) fn note_eco(&mut self, fences: &FenceSet) {
        self.eco.union(fences);
    }

    /// Whether `incoming` already holds every fence of every store's `eco_in`.
    pub(crate) fn covers_eco(&self, incoming: &FenceSet) -> bool {
        incoming.contains_all(&self.eco)
    }

    /// No SC fence has run: nothing to track.
    pub(crate) fn is_empty(&self) -> bool {
        self.fences.is_empty()
    }

    /// The SC fences that happen before an event with causality `causality`.
    /// (Per thread, the last fence within `causality` and every earlier one of that thread.)
    pub(crate) fn before(&self, causality: &VersionVec) -> FenceSet {
        let mut set = FenceSet::default();
        for (thread, fences) in self.by_thread.iter().enumerate() {
            let seen = causality.at(thread);
            if let Some((_, prefix)) = fences.iter().rev().find(|(clock, _)| *clock <= seen) {
                set.union(prefix);
            }
        }
        set
    }

    /// The SC fences whose causality satisfies `seen` (after which the event `seen` tests
    /// happened).
    pub(crate) fn after(&self, seen: impl Fn(&VersionVec) -> bool) -> FenceSet {
        let mut set = FenceSet::default();
        for (i, f) in self.fences.iter().enumerate() {
            if seen(&f.causality) {
                set.insert(i);
            }
        }
        set
    }

    /// Whether edges from every fence of `from` to every fence of `to` would close a cycle.
    pub(crate) fn would_cycle(&self, from: &FenceSet, to: &FenceSet) -> bool {
        from.intersects(to) || to.iter().any(|b| self.reach[b].intersects(from))
    }

    /// Add edges from every fence of `from` to every fence of `to` (no cycle: see
    /// [`Psc::would_cycle`]).
    pub(crate) fn add_edges(&mut self, from: &FenceSet, to: &FenceSet) {
        if from.is_empty() || to.is_empty() {
            return;
        }
        let mut targets = *to;
        for b in to.iter() {
            targets.union(&self.reach[b]);
        }
        for i in 0..self.reach.len() {
            if from.contains(i) || self.reach[i].intersects(from) {
                self.reach[i].union(&targets);
            }
        }
    }

    /// Record an SC fence run by the active thread, with an edge from every fence of
    /// `incoming` (a new fence has no outgoing edge yet).
    pub(crate) fn push(&mut self, threads: &thread::Set, incoming: &FenceSet) {
        let n = self.fences.len();
        assert!(
            n < MAX_SC_FENCES,
            "loom: more than {} SeqCst fences in one execution (MAX_SC_FENCES, the size of the \
             fence sets RC11's psc is kept in): loom refuses rather than forget one",
            MAX_SC_FENCES
        );
        let active = threads.active();
        let (thread, clock) = (threads.active_id().as_usize(), threads.active_atomic_version());
        self.fences.push(Fence { causality: active.causality });
        let own = &mut self.by_thread[thread];
        debug_assert!(own.last().is_none_or(|(last, _)| *last <= clock), "a thread's clock went back");
        let mut prefix = own.last().map_or(FenceSet::default(), |(_, prefix)| *prefix);
        prefix.insert(n);
        own.push((clock, prefix));
        self.reach.push(FenceSet::default());
        for i in 0..n {
            if incoming.contains(i) || self.reach[i].intersects(incoming) {
                self.reach[i].insert(n);
            }
        }
    }
}
