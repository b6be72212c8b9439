//! Control tests for the folio lock (core/src/folio.rs: `folio_lock`, `folio_unlock` when the
//! guard drops, `folio_trylock`), in both directions.
//!
//! The roles stand for the folio lock's holders in the models: writeback's `do_writepages` ->
//! `write_locked_folio` (`folio_lock`), truncate and invalidate (`truncate_inode_folio`,
//! `folio_unmap_invalidate`) and migration (`folio_trylock` in `migrate_pages` with
//! MIGRATE_ASYNC, in `shrink_folio_list`), which must not sleep on a held lock.
//!
//! - Too weak: `control_folio_lock_excludes`: two lockers and a trylocker are never inside
//!   together, and each sees the previous holder's writes (fails if `folio_trylock` succeeds
//!   on a held lock).
//! - Too strong: `control_folio_trylock_fails_on_a_held_lock_without_blocking`: a trylock on a
//!   held lock returns at once, failed, while the holder waits for it (fails, with a loom deadlock,
//!   if `folio_trylock` sleeps); `control_folio_trylock_succeeds_on_a_free_lock` (fails if
//!   `folio_trylock` can fail spuriously); `control_folio_lock_waiter_gets_the_lock_after_unlock`:
//!   a `folio_lock` waiting on a held lock gets it once the holder unlocks, and sees the holder's
//!   writes (fails, with a loom deadlock, if unlock does not release).

mod control_support;

use control_support::{explore, flag, get, set, Flag};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use wb_core::folio::Folio;
use wb_core::sync::{Loom, Platform};

/// The critical section: nobody else inside; the previous holder's count is visible.
fn critical_section(inside: &Flag, entries: &Flag, who: &str) {
    let others = inside.fetch_add(1, Relaxed);
    assert_eq!(others, 0, "{who} is inside the folio lock's critical section together with another holder");
    let seen = entries.load(Relaxed);
    Loom::yield_now();
    entries.store(seen + 1, Relaxed);
    inside.fetch_sub(1, Relaxed);
}

/// Two `folio_lock` callers and a `folio_trylock` caller, each entering the critical section
/// if it got the lock. Never two inside; afterwards every entry is counted (no lost update:
/// each holder sees the previous holder's write).
#[test]
fn control_folio_lock_excludes() {
    let explored = explore(Some(2), || {
        let folio = Arc::new(Folio::<Loom>::new(0, 1, false));
        let (inside, entries) = (flag(), flag());
        let mut handles = Vec::new();
        for who in ["folio_lock 0", "folio_lock 1"] {
            let (folio, inside, entries) = (folio.clone(), inside.clone(), entries.clone());
            handles.push(Loom::spawn(move || {
                let _locked = folio.lock();
                critical_section(&inside, &entries, who);
            }));
        }
        let got = flag();
        {
            let (folio, inside, entries, got) = (folio.clone(), inside.clone(), entries.clone(), got.clone());
            handles.push(Loom::spawn(move || {
                if let Some(_locked) = folio.trylock() {
                    set(&got, 1);
                    critical_section(&inside, &entries, "folio_trylock");
                }
            }));
        }
        for h in handles {
            Loom::join(h);
        }
        let expected = 2 + get(&got);
        assert_eq!(entries.load(Relaxed), expected, "a holder did not see the previous holder's write");
        get(&got) == 1
    });
    assert!(explored.observed > 0 && explored.observed < explored.executions, "{explored:?}");
}

/// The holder locks the folio and, holding it, starts the trylocker and waits for it to
/// finish. Its `folio_trylock` must fail, and return (a sleeping trylock deadlocks: loom
/// reports it).
#[test]
fn control_folio_trylock_fails_on_a_held_lock_without_blocking() {
    let explored = explore(Some(3), || {
        let folio = Arc::new(Folio::<Loom>::new(0, 1, false));
        let got = flag();
        let locked = folio.lock();
        let trylocker = {
            let (folio, got) = (folio.clone(), got.clone());
            Loom::spawn(move || {
                if folio.trylock().is_some() {
                    set(&got, 1);
                }
            })
        };
        Loom::join(trylocker);
        drop(locked);
        assert_eq!(get(&got), 0, "folio_trylock succeeded on a folio whose lock another task holds");
        false
    });
    assert!(explored.executions >= 1, "{explored:?}");
}

/// The holder locks and unlocks the folio, then starts the trylocker: nobody holds the lock,
/// and its `folio_trylock` must succeed.
#[test]
fn control_folio_trylock_succeeds_on_a_free_lock() {
    let explored = explore(Some(3), || {
        let folio = Arc::new(Folio::<Loom>::new(0, 1, false));
        drop(folio.lock());
        let got = flag();
        let trylocker = {
            let (folio, got) = (folio.clone(), got.clone());
            Loom::spawn(move || {
                if folio.trylock().is_some() {
                    set(&got, 1);
                }
            })
        };
        Loom::join(trylocker);
        assert_eq!(get(&got), 1, "folio_trylock failed on a free folio lock");
        false
    });
    assert!(explored.executions >= 1, "{explored:?}");
}

/// The holder locks the folio, starts the waiter (`folio_lock`), writes, unlocks. The waiter
/// must get the lock after the unlock and see the write; some execution has it wait for the
/// lock (it reaches `folio_lock` before the unlock).
#[test]
fn control_folio_lock_waiter_gets_the_lock_after_unlock() {
    let explored = explore(Some(3), || {
        let folio = Arc::new(Folio::<Loom>::new(0, 1, false));
        let (data, waiting, seen) = (flag(), flag(), flag());
        let locked = folio.lock();
        let waiter = {
            let (folio, data, waiting, seen) = (folio.clone(), data.clone(), waiting.clone(), seen.clone());
            Loom::spawn(move || {
                waiting.store(1, Relaxed);
                let _locked = folio.lock();
                seen.store(data.load(Relaxed), Relaxed);
            })
        };
        data.store(1, Relaxed);
        let waited = waiting.load(Relaxed) == 1;
        drop(locked);
        Loom::join(waiter);
        assert_eq!(get(&seen), 1, "the folio_lock waiter got the lock without seeing the holder's write");
        waited
    });
    assert!(explored.observed > 0, "{explored:?}");
}
