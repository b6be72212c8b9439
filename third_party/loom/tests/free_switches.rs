//! Free switches at the bound (`Builder::free_switches`): once an execution has made the bound's
//! last preemption, upstream explores only the first thread at each later branch, also where the
//! running thread blocked and another thread would cost no preemption. At bound 0 that leaves one
//! order of two threads the model's thread waits for; with the switch, both.

use loom::sync::Mutex;
use loom::thread;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex as StdMutex};

/// Two threads append their number under a lock while the model's thread waits for them: the
/// order is the lock's order of holders.
fn program() -> Vec<usize> {
    let log: &'static Mutex<Vec<usize>> = Box::leak(Box::new(Mutex::new(Vec::new())));
    let a = thread::spawn(move || log.lock().unwrap().push(1));
    let b = thread::spawn(move || log.lock().unwrap().push(2));
    a.join().unwrap();
    b.join().unwrap();
    let order = log.lock().unwrap().clone();
    order
}

fn orders(bound: usize, free_switches: bool) -> BTreeSet<Vec<usize>> {
    let seen = Arc::new(StdMutex::new(BTreeSet::new()));
    let seen2 = seen.clone();
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(bound);
    builder.free_switches = free_switches;
    builder.check(move || {
        let order = program();
        seen2.lock().unwrap().insert(order);
    });
    let orders = seen.lock().unwrap().clone();
    orders
}

#[test]
fn upstream_bound_zero_leaves_out_a_free_switch() {
    let both: BTreeSet<Vec<usize>> = [vec![1, 2], vec![2, 1]].into_iter().collect();
    // The model's thread blocks on its join: running thread 2 before thread 1 there costs no
    // preemption, yet upstream's bound 0 explores only the thread that yielded least.
    assert_eq!(orders(0, false).len(), 1);
    assert_eq!(orders(0, true), both);
    // One preemption reaches both orders either way.
    assert_eq!(orders(1, false), both);
    assert_eq!(orders(1, true), both);
}
