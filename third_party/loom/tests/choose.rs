#![deny(warnings, rust_2018_idioms)]

//! `loom::choose`: every value is explored, once per interleaving, with and without a preemption
//! bound, and a choice adds no interleaving of its own.

use loom::sync::atomic::AtomicUsize;
use loom::thread;

use std::collections::BTreeSet;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::{Arc, Mutex};

fn builder(bound: Option<usize>) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = bound;
    b
}

/// One thread, two choices: each pair of values once.
#[test]
fn every_value_once() {
    for bound in [None, Some(0), Some(2)] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        builder(bound).check(move || {
            let a = loom::choose(3);
            let b = loom::choose(2);
            s.lock().unwrap().push((a, b));
        });
        let mut got = seen.lock().unwrap().clone();
        got.sort();
        assert_eq!(got, vec![(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)], "bound {:?}", bound);
    }
}

/// A choice in one thread against a racing store in another: every (choice, value read) pair
/// that an interleaving allows is reached, as by running the program once per value of the choice.
#[test]
fn choices_times_interleavings() {
    for bound in [None, Some(1), Some(2)] {
        let by_choice = Arc::new(Mutex::new(BTreeSet::new()));
        let (s, runs) = (by_choice.clone(), Arc::new(Mutex::new(0)));
        let r2 = runs.clone();
        builder(bound).check(move || {
            *r2.lock().unwrap() += 1;
            let x = Arc::new(AtomicUsize::new(0));
            let x2 = x.clone();
            let t = thread::spawn(move || x2.store(1, SeqCst));
            let c = loom::choose(2);
            let r = x.load(Relaxed);
            t.join().unwrap();
            s.lock().unwrap().insert((c, r));
        });
        let (mut plain, plain_runs) = (BTreeSet::new(), Arc::new(Mutex::new(0)));
        for c in 0..2 {
            let p = Arc::new(Mutex::new(BTreeSet::new()));
            let (s, r2) = (p.clone(), plain_runs.clone());
            builder(bound).check(move || {
                *r2.lock().unwrap() += 1;
                let x = Arc::new(AtomicUsize::new(0));
                let x2 = x.clone();
                let t = thread::spawn(move || x2.store(1, SeqCst));
                let r = x.load(Relaxed);
                t.join().unwrap();
                s.lock().unwrap().insert((c, r));
            });
            plain.extend(p.lock().unwrap().iter().copied());
        }
        assert_eq!(*by_choice.lock().unwrap(), plain, "bound {:?}", bound);
        assert_eq!(plain.len(), 4);
        assert_eq!(*runs.lock().unwrap(), *plain_runs.lock().unwrap(), "bound {:?}: executions", bound);
    }
}

#[test]
#[should_panic(expected = "n must be between 1 and")]
fn zero_values_is_an_error() {
    loom::model(|| {
        loom::choose(0);
    });
}
