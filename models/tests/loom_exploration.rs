//! What loom's exploration reaches, pinned where it matters to our verdicts (README "Blind
//! spots"). loom 0.7.3's DPOR keeps one "last access" per atomic: a thread that loads X and then
//! writes X (a store or an RMW) finds its own load there, so a load of X by another thread that
//! ran earlier in the explored schedule is never found racing with the write, and the ordering
//! in which that load comes after the write is reached only if another backtracking point leads
//! to it. In the smallest program it is never reached (open loom issues tokio-rs/loom#166 and
//! #392 report the same shape).
//!
//! ```text
//!   spawned:  x.load(); x.store(1)        main:  v = x.load()
//! ```
//!
//! Every interleaving lets `v == 1` (main's load after the store). `control_*`: with the spawned
//! thread only storing, loom finds it. `canary_*`: with the load first, loom 0.7.3 runs one
//! execution and never sees it. When the canary fails, loom has changed: audit the loom-only
//! passes (README "Blind spots") and replace the canary with a control.

mod control_support;

use control_support::{explore, flag};
use wb_core::sync::{Loom, Ordering, Platform};

/// The program above; `load_first` adds the spawned thread's load. Returns (executions, how
/// many saw `v == 1`).
fn store_against_a_load(load_first: bool) -> (u64, u64) {
    let explored = explore(None, move || {
        let x = flag();
        let writer = {
            let x = x.clone();
            Loom::spawn(move || {
                if load_first {
                    x.load(Ordering::SeqCst);
                }
                x.store(1, Ordering::SeqCst);
            })
        };
        let v = x.load(Ordering::SeqCst);
        Loom::join(writer);
        v == 1
    });
    (explored.executions, explored.observed)
}

#[test]
fn control_loom_reaches_a_load_after_a_concurrent_store() {
    let (executions, saw_store) = store_against_a_load(false);
    assert!(saw_store > 0, "loom never ran main's load after the store ({executions} executions)");
}

#[test]
fn canary_loom_0_7_3_misses_a_load_after_a_store_the_writer_loaded_first() {
    let (executions, saw_store) = store_against_a_load(true);
    assert_eq!(
        (executions, saw_store),
        (1, 0),
        "loom's exploration changed: it now reaches main's load after the store. Audit the \
         loom-only passes (README \"Blind spots\") and turn this canary into a control"
    );
}
