//! The repair of the exploration (completeness) and of the memory model (soundness): each test
//! collects every outcome loom reaches and compares the set with the outcomes RC11 allows.

use loom::sync::atomic::{fence, AtomicUsize};
use loom::thread;

use std::collections::BTreeSet;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use std::sync::{Arc, Mutex};

/// Every value `f` returns in the executions loom explores.
fn outcomes<T: Ord + Send + 'static>(f: impl Fn() -> T + Sync + Send + 'static) -> BTreeSet<T> {
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let seen2 = seen.clone();
    loom::model(move || {
        let v = f();
        seen2.lock().unwrap().insert(v);
    });
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    seen
}

fn atomics(n: usize) -> &'static [AtomicUsize] {
    Box::leak((0..n).map(|_| AtomicUsize::new(0)).collect())
}

/// tokio-rs/loom#392 (and #166): a thread's own load of `x` before its store hid the other
/// thread's load from the store, so the load after the store was never explored.
#[test]
fn load_then_store_races_with_a_load() {
    let seen = outcomes(|| {
        let x = atomics(1);
        let th = thread::spawn(move || {
            x[0].load(Relaxed);
            x[0].store(1, Relaxed);
        });
        let v = x[0].load(Relaxed);
        th.join().unwrap();
        v
    });
    assert_eq!(seen, BTreeSet::from([0, 1]));
}

/// tokio-rs/loom#166: the same outcomes with and without a redundant load.
#[test]
fn a_redundant_load_changes_no_outcome() {
    let run = |extra: bool| {
        outcomes(move || {
            let a = atomics(2);
            let (key, value) = (&a[0], &a[1]);
            let t1 = thread::spawn(move || {
                key.store(1, SeqCst);
                value.store(1, SeqCst);
                value.store(0, SeqCst);
                if extra {
                    key.load(SeqCst);
                }
                key.store(0, SeqCst);
            });
            let t2 = thread::spawn(move || (value.load(SeqCst), key.load(SeqCst)));
            t1.join().unwrap();
            t2.join().unwrap()
        })
    };
    let plain = run(false);
    assert_eq!(plain, run(true));
    assert!(plain.contains(&(1, 0)), "{:?}", plain);
}

/// tokio-rs/loom#254, #389: a store cannot come between an RMW and the store it read.
#[test]
fn a_store_does_not_split_an_rmw() {
    for order in [Relaxed, Release, SeqCst] {
        let seen = outcomes(move || {
            let x = atomics(1);
            let th = thread::spawn(move || x[0].swap(1, Relaxed));
            x[0].store(2, order);
            let r = th.join().unwrap();
            (r, x[0].load(Relaxed))
        });
        assert_eq!(seen, BTreeSet::from([(0, 2), (2, 1)]), "store {:?}", order);
    }
}

/// tokio-rs/loom#282: once a thread has read 1 then 2, the swap that wrote 2 read 1 and
/// acquired what the release store of 1 published.
#[test]
fn modification_order_is_one_order() {
    let seen = outcomes(|| {
        let a = atomics(2);
        let (lock, data) = (&a[0], &a[1]);
        let t1 = thread::spawn(move || {
            data.store(1, Relaxed);
            lock.store(1, Release);
        });
        let t2 = thread::spawn(move || (lock.swap(2, AcqRel), data.load(Relaxed)));
        let t3 = thread::spawn(move || (lock.load(Relaxed), lock.load(Relaxed)));
        t1.join().unwrap();
        (t2.join().unwrap(), t3.join().unwrap())
    });
    assert!(!seen.contains(&((1, 0), (1, 2))), "{:?}", seen);
    assert!(seen.contains(&((1, 1), (1, 2))), "{:?}", seen);
}

/// Two concurrent stores, each thread then reading: both orders of the stores are explored,
/// and every thread agrees on the one chosen.
#[test]
fn stores_are_explored_in_both_orders() {
    let seen = outcomes(|| {
        let x = atomics(1);
        let th = thread::spawn(move || {
            x[0].store(1, Relaxed);
            x[0].load(Relaxed)
        });
        x[0].store(2, Relaxed);
        let a = x[0].load(Relaxed);
        let b = th.join().unwrap();
        (a, b, x[0].load(Relaxed))
    });
    // 2+2W-like: the final value is the last store in modification order; each thread reads
    // its own store or the later one.
    assert_eq!(
        seen,
        BTreeSet::from([(2, 1, 1), (1, 1, 1), (2, 1, 2), (2, 2, 2)])
    );
}

/// 2+2W: each location ends with the value of the thread that wrote it first (RC11 allows it
/// with relaxed accesses).
#[test]
fn two_plus_two_writes() {
    let seen = outcomes(|| {
        let a = atomics(2);
        let (x, y) = (&a[0], &a[1]);
        let th = thread::spawn(move || {
            x.store(1, Relaxed);
            y.store(2, Relaxed);
        });
        y.store(1, Relaxed);
        x.store(2, Relaxed);
        th.join().unwrap();
        (x.load(Relaxed), y.load(Relaxed))
    });
    assert!(seen.contains(&(1, 1)), "{:?}", seen);
}

/// A release sequence includes the releasing thread's later stores to the location.
#[test]
fn release_sequence_includes_later_stores_of_the_thread() {
    let seen = outcomes(|| {
        let a = atomics(2);
        let (x, y) = (&a[0], &a[1]);
        let th = thread::spawn(move || {
            y.store(1, Relaxed);
            x.store(1, Release);
            x.store(2, Relaxed);
        });
        let r = (x.load(Acquire), y.load(Relaxed));
        th.join().unwrap();
        r
    });
    assert!(!seen.contains(&(2, 0)), "{:?}", seen);
    assert!(seen.contains(&(2, 1)), "{:?}", seen);
}

/// An acquire fence synchronizes with the stores its own thread read, not with those some
/// thread that happened before it read.
#[test]
fn acquire_fence_synchronizes_with_its_threads_reads_only() {
    let seen = outcomes(|| {
        let a = atomics(3);
        let (data, flag, relay) = (&a[0], &a[1], &a[2]);
        let t0 = thread::spawn(move || {
            data.store(1, Relaxed);
            flag.store(1, Release);
        });
        // Reads the flag relaxed, then publishes to t2 through a release/acquire pair.
        let t1 = thread::spawn(move || {
            let f = flag.load(Relaxed);
            relay.store(1, Release);
            f
        });
        let r = relay.load(Acquire);
        fence(Acquire);
        let d = data.load(Relaxed);
        t0.join().unwrap();
        (t1.join().unwrap(), r, d)
    });
    // t1 read the flag but did not acquire: main's acquire fence does not make the data visible.
    assert!(seen.contains(&(1, 1, 0)), "{:?}", seen);
}

/// SB with SC fences: at least one thread sees the other's store.
#[test]
fn store_buffering_with_sc_fences() {
    let seen = outcomes(|| {
        let a = atomics(2);
        let (x, y) = (&a[0], &a[1]);
        let th = thread::spawn(move || {
            x.store(1, Relaxed);
            fence(SeqCst);
            y.load(Relaxed)
        });
        y.store(1, Relaxed);
        fence(SeqCst);
        let b = x.load(Relaxed);
        (th.join().unwrap(), b)
    });
    assert_eq!(seen, BTreeSet::from([(0, 1), (1, 0), (1, 1)]));
}

/// An SC fence creates no happens-before: two SC fences may be ordered against the order the
/// interleaving runs them in (RC11's psc has one edge here, from T2's fence to T0's).
#[test]
fn sc_fences_order_only_what_psc_orders() {
    let seen = outcomes(|| {
        let a = atomics(3);
        let (x, y, z) = (&a[0], &a[1], &a[2]);
        let t0 = thread::spawn(move || {
            z.store(1, Relaxed);
            fence(SeqCst);
            x.store(1, Relaxed);
        });
        let t1 = thread::spawn(move || {
            let r = x.load(Relaxed);
            y.store(1, Relaxed);
            r
        });
        let r1 = y.load(Relaxed);
        fence(SeqCst);
        let r2 = z.load(Relaxed);
        t0.join().unwrap();
        (t1.join().unwrap(), r1, r2)
    });
    assert!(seen.contains(&(1, 1, 0)), "{:?}", seen);
}

/// DPOR orders what a mutex holder did inside its section before the next holder's accesses.
/// Without that, the section's load of `x` looked racy to T1's `fetch_add`, and as the last
/// such access it hid the real race (T2's `swap`) from the backtracking: T0's section never ran
/// between T2's store and swap, and `(3, 3, 6, 1)` was never reached.
#[test]
fn a_mutex_section_happens_before_the_next_holder() {
    let seen = outcomes(|| {
        let x = atomics(1);
        let m: &'static loom::sync::Mutex<()> = Box::leak(Box::new(loom::sync::Mutex::new(())));
        let t0 = thread::spawn(move || {
            let _g = m.lock().unwrap();
            x[0].load(Relaxed)
        });
        let t1 = thread::spawn(move || {
            let _g = m.lock().unwrap();
            x[0].fetch_add(3, Release)
        });
        let t2 = thread::spawn(move || {
            x[0].store(3, SeqCst);
            x[0].swap(1, SeqCst)
        });
        let r = (t0.join().unwrap(), t1.join().unwrap(), t2.join().unwrap());
        (r.0, r.1, r.2, x[0].load(Relaxed))
    });
    // RC11's (here also SC's) final states: T0's section before or after T1's, T2 anywhere.
    let rc11 = BTreeSet::from([
        (0, 0, 3, 1),
        (0, 1, 3, 4),
        (0, 3, 6, 1),
        (1, 0, 3, 1),
        (1, 1, 3, 4),
        (1, 3, 6, 1),
        (3, 0, 3, 1),
        (3, 1, 3, 4),
        (3, 3, 6, 1),
        (4, 1, 3, 4),
        (6, 3, 6, 1),
    ]);
    assert_eq!(seen, rc11);
}

/// The mutex repair, for `RwLock`: a writer's section, and every reader's, happens before the
/// next writer. T0's section (a write lock, then a read lock) against T1's write-locked RMW and
/// T2's unlocked store and swap reach exactly the mutex program's final states.
#[test]
fn a_rwlock_section_happens_before_the_next_writer() {
    for read_locked in [false, true] {
        let seen = outcomes(move || {
            let x = atomics(1);
            let l: &'static loom::sync::RwLock<()> = Box::leak(Box::new(loom::sync::RwLock::new(())));
            let t0 = thread::spawn(move || {
                if read_locked {
                    let _g = l.read().unwrap();
                    x[0].load(Relaxed)
                } else {
                    let _g = l.write().unwrap();
                    x[0].load(Relaxed)
                }
            });
            let t1 = thread::spawn(move || {
                let _g = l.write().unwrap();
                x[0].fetch_add(3, Release)
            });
            let t2 = thread::spawn(move || {
                x[0].store(3, SeqCst);
                x[0].swap(1, SeqCst)
            });
            let r = (t0.join().unwrap(), t1.join().unwrap(), t2.join().unwrap());
            (r.0, r.1, r.2, x[0].load(Relaxed))
        });
        let rc11 = BTreeSet::from([
            (0, 0, 3, 1),
            (0, 1, 3, 4),
            (0, 3, 6, 1),
            (1, 0, 3, 1),
            (1, 1, 3, 4),
            (1, 3, 6, 1),
            (3, 0, 3, 1),
            (3, 1, 3, 4),
            (3, 3, 6, 1),
            (4, 1, 3, 4),
            (6, 3, 6, 1),
        ]);
        assert_eq!(seen, rc11, "read_locked: {read_locked}");
    }
}

/// Sleep sets need the backtracking to start a reversed race with a thread that can run first
/// in it. The race of T1's last `cas` with T0's `y.cas` was reversed by running T0 first, but
/// T0 was asleep (its first operation, `x.cas`, explored at the start) and its reversal needs
/// T2's `x.swap` before T0's `x.cas`: the one execution reaching this final state was never
/// run. Shrunk from `wbcheck c11 campaign --seed 94000 --shape 3x5x2`, program 2272.
#[test]
fn a_reversed_race_starts_with_a_thread_that_can_run_first() {
    let seen = outcomes(|| {
        let a = atomics(2);
        let (x, y) = (&a[0], &a[1]);
        let cas = |v: &AtomicUsize, old, new| v.compare_exchange(old, new, SeqCst, SeqCst).unwrap_or_else(|v| v);
        let t0 = thread::spawn(move || (cas(x, 0, 1), cas(y, 1, 3)));
        let t1 = thread::spawn(move || (y.fetch_add(1, SeqCst), y.swap(1, SeqCst), cas(y, 1, 1)));
        let t2 = thread::spawn(move || (y.fetch_add(1, SeqCst), y.load(SeqCst), x.swap(3, SeqCst)));
        (t0.join().unwrap(), t1.join().unwrap(), t2.join().unwrap())
    });
    // T1 adds, T2 adds, T1 swaps, T2 loads and swaps x, T0 fails on x and sets y, T1 fails.
    assert!(seen.contains(&((3, 1), (0, 2, 3), (1, 1, 0))));
    assert_eq!(seen.len(), 48, "the SC interpreter's count of final states");
}
