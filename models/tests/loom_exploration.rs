//! What loom's exploration reaches, pinned where it matters to our verdicts (README "Blind
//! spots"). Upstream loom 0.7.3's DPOR kept one "last access" per atomic: a thread that loads X
//! and then writes X (a store or an RMW) found its own load there, so a load of X by another
//! thread that ran earlier in the explored schedule was never found racing with the write, and
//! the ordering in which that load comes after the write was not explored (tokio-rs/loom#166,
//! #392). The repaired loom (third_party/loom/PATCHED.md) keeps each thread's last access.
//!
//! ```text
//!   spawned:  [x.load();] x.store(1)        main:  v = x.load()
//! ```
//!
//! Every interleaving lets `v == 1` (main's load after the store). Both controls require it: the
//! one with the writer's own load first was upstream's canary (1 execution, never `v == 1`).

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
fn control_loom_reaches_a_load_after_a_store_the_writer_loaded_first() {
    let (executions, saw_store) = store_against_a_load(true);
    assert!(
        saw_store > 0,
        "loom never ran main's load after the store the writer loaded first ({executions} executions): \
         the exploration gap of tokio-rs/loom#166 and #392 is back (third_party/loom/PATCHED.md)"
    );
}
