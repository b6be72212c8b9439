//! The current execution as a graph, for comparing searches (`loom::graph_id`): the store each
//! read reads, each atomic's modification order, each mutex's order of holders and each
//! `choose`. Two executions with the same graph are one behaviour reached by two schedules, so
//! the number of distinct graphs a search reaches is what a search exploring one execution per
//! graph would run, and a reduction that is sound reaches the same graphs as the search it
//! reduces.
//!
//! An event is named by its thread and the thread's operation count (`dpor_vv`), the same in
//! every schedule of a graph; an atomic's initial store by its creating thread and how many
//! atomics that thread created before it. The graph is a sum of the hashes of its edges (so the
//! order in which a schedule adds them does not matter), kept per OS thread: one execution runs
//! at a time there.

use std::cell::Cell;

thread_local! {
    static EDGES: Cell<u64> = const { Cell::new(0) };
}

#[derive(Clone, Copy)]
pub(crate) enum Edge {
    /// A read and the store it reads.
    ReadsFrom = 1,
    /// A store and the next one in the atomic's modification order.
    Mo = 2,
    /// A mutex's acquisition and the release before it (none: 0).
    Lock = 3,
    /// A `choose` and the value chosen (plus one).
    Choice = 4,
}

/// The event of `thread` whose operation count is `count`.
pub(crate) fn event(thread: usize, count: u16) -> u64 {
    ((thread as u64) << 32) | u64::from(count)
}

/// The initial store of the `nth` atomic created by `thread` (from 1).
pub(crate) fn initial(thread: usize, nth: u32) -> u64 {
    (1 << 63) | ((thread as u64) << 32) | u64::from(nth)
}

pub(crate) fn add(edge: Edge, from: u64, to: u64) {
    EDGES.with(|edges| edges.set(edges.get().wrapping_add(hash(edge as u64, from, to))));
}

/// The edges added since the last `reset`, plus `more` (a sum of `hash`es).
pub(crate) fn current(more: u64) -> u64 {
    EDGES.with(|edges| edges.get().wrapping_add(more))
}

pub(crate) fn reset() {
    EDGES.with(|edges| edges.set(0));
}

pub(crate) fn hash(kind: u64, from: u64, to: u64) -> u64 {
    mix(kind ^ mix(from ^ mix(to)))
}

/// SplitMix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
