//! A search split by schedule prefix (`Builder::split_depth`): its slices together run the
//! one-slice search's executions, each once, and reach what the unsplit search reaches.

use loom::sync::atomic::AtomicUsize;
use loom::sync::Mutex;
use loom::thread;

use std::collections::BTreeSet;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::{Arc, Mutex as StdMutex};

/// Store buffering with a release/acquire pair and a mutex-protected counter: races, loads with
/// several candidate stores, and a blocking lock.
fn program() -> (usize, usize, usize) {
    let x: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
    let y: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
    let m: &'static Mutex<usize> = Box::leak(Box::new(Mutex::new(0)));
    let t = thread::spawn(move || {
        x.store(1, Release);
        *m.lock().unwrap() += 1;
        y.load(Acquire)
    });
    y.store(1, Release);
    *m.lock().unwrap() += 2;
    let a = x.load(Relaxed);
    let b = t.join().unwrap();
    (a, b, *m.lock().unwrap())
}

/// The executions of one search and the outcomes they reach.
fn search(
    bound: Option<usize>,
    depth: usize,
    width: usize,
    slices: usize,
    slice: usize,
) -> (u64, BTreeSet<(usize, usize, usize)>) {
    let seen = Arc::new(StdMutex::new((0u64, BTreeSet::new())));
    let seen2 = seen.clone();
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = bound;
    (builder.split_depth, builder.split_width, builder.slices, builder.slice) = (depth, width, slices, slice);
    builder.check(move || {
        let v = program();
        if loom::in_slice() {
            let mut seen = seen2.lock().unwrap();
            seen.0 += 1;
            seen.1.insert(v);
        }
    });
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    seen
}

#[test]
fn slices_run_the_whole_search_once() {
    for bound in [Some(1), Some(2), None] {
        let (_, unsplit) = search(bound, 0, usize::MAX, 1, 0);
        for (depth, width) in [(1, 1), (4, 1), (3, 2), (8, usize::MAX)] {
            let (executions, reached) = search(bound, depth, width, 1, 0);
            assert!(reached.is_superset(&unsplit), "{bound:?} {depth} {width}");
            if bound.is_none() {
                assert_eq!(reached, unsplit, "unbounded, {depth} {width}");
            }
            let slices: Vec<_> = (0..4).map(|s| search(bound, depth, width, 4, s)).collect();
            assert_eq!(slices.iter().map(|s| s.0).sum::<u64>(), executions, "{bound:?} {depth} {width}");
            let union: BTreeSet<_> = slices.iter().flat_map(|s| s.1.iter().copied()).collect();
            assert_eq!(union, reached, "{bound:?} {depth} {width}");
            assert!(slices.iter().filter(|s| s.0 > 0).count() > 1, "the work is shared: {bound:?} {depth} {width}");
        }
    }
}

#[test]
#[should_panic(expected = "more than one slice needs a split depth")]
fn slices_without_a_depth_are_refused() {
    search(None, 0, 1, 2, 0);
}
