//! The programs upstream loom 0.7.3 gets wrong, as controls: under the workspace's loom
//! (third_party/loom) each reaches exactly the final states RC11 allows (the program as loom
//! reads it, SeqCst accesses as AcqRel), every SC final state among them, and the state the
//! report is about is reached (a miss) or not (a forbidden one).
//!
//! | program | upstream loom 0.7.3 | here |
//! |---|---|---|
//! | tokio-rs/loom#166, #392: a load of x before the store to x | never the load after the store | both |
//! | loom#254, #389: `x.store(2)` against `x.swap(1, rlx)` | reports `r = 0, x = 1` (split RMW) | not |
//! | loom#282: a swap between a release store and two loads | reads 1 then 2 without acquiring | not |
//! | A, B (issue 24: random SeqCst programs) | miss an SC final state | reach it |
//!
//! Each row is checked by `compare`: loom with no preemption bound against the SC interpreter
//! and the RC11 enumerator (models/src/c11), both written independently of loom.

use wb_models::c11::differential::{compare, Comparison};
use wb_models::c11::program::Program;

fn exact(text: &str) -> Comparison {
    let p = Program::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let c = compare(&p);
    assert!(c.mismatches().is_empty(), "{c}");
    c
}

fn reached(c: &Comparison) -> Vec<String> {
    c.loom.outcomes.iter().map(ToString::to_string).collect()
}

/// loom#166, #392: main loads x while a thread loads x and then stores 1.
#[test]
fn load_then_store_against_a_load() {
    let c = exact("main: T0\nT0: x.load(rlx)\nT1: x.load(rlx); x.store(1, rlx)");
    assert!(reached(&c).contains(&"0:r0=1; 1:r0=0; [x]=1;".to_string()), "{c}");
}

/// loom#166: a redundant load changes no outcome, and the reader can see the value before the
/// key's reset (value 1 with key 0 is SC: the key's first store is 1, then 0).
#[test]
fn a_redundant_load_changes_no_outcome() {
    let plain = exact("T0: x.store(1); y.store(1); y.store(0); x.store(0)\nT1: y.load(); x.load()");
    let extra = exact("T0: x.store(1); y.store(1); y.store(0); x.load(); x.store(0)\nT1: y.load(); x.load()");
    let strip = |c: &Comparison| -> Vec<String> {
        c.loom.outcomes.iter().map(|o| format!("{:?} {:?}", o.regs[1], o.locs)).collect()
    };
    assert_eq!(strip(&plain), strip(&extra));
    assert!(reached(&plain).contains(&"1:r0=1; 1:r1=0; [x]=0; [y]=0;".to_string()), "{plain}");
}

/// loom#254, #389 (the smallest form): the swap reads the value just before it in x's
/// modification order, so reading 0 puts the store of 2 after it and x ends as 2.
#[test]
fn a_store_does_not_split_an_rmw() {
    for store in ["rlx", "rel", "sc"] {
        let c = exact(&format!("T0: x.store(2, {store})\nT1: x.swap(1, rlx)"));
        assert_eq!(reached(&c), ["1:r0=0; [x]=2;", "1:r0=2; [x]=1;"], "{c}");
        let c = exact(&format!("T0: x.store(2, {store})\nT1: x.fetch_add(1, rlx)"));
        assert_eq!(reached(&c), ["1:r0=0; [x]=2;", "1:r0=2; [x]=3;"], "{c}");
    }
}

/// loom#282: a thread that reads 1 then 2 saw the swap read 1, so the swap acquired the
/// release store of 1 and the data it published.
#[test]
fn modification_order_is_one_order() {
    let c = exact(
        "T0: y.store(1, rlx); x.store(1, rel)\nT1: x.swap(2, acq_rel); y.load(rlx)\nT2: x.load(rlx); x.load(rlx)",
    );
    let states = reached(&c);
    assert!(!states.iter().any(|s| s.starts_with("1:r0=1; 1:r1=0; 2:r0=1; 2:r1=2;")), "{c}");
    assert!(states.iter().any(|s| s.starts_with("1:r0=1; 1:r1=1; 2:r0=1; 2:r1=2;")), "{c}");
}

/// Program A of issue 24 (all threads spawned; upstream loom: 432 executions, this SC state
/// never reached).
#[test]
fn program_a_reaches_every_sc_state() {
    let c = exact(
        "T0: x.cas(2, 1); y.load(); x.cas(2, 2); y.cas(3, 3)\nT1: y.load(); x.swap(2); y.load(); y.store(2); y.load()",
    );
    let want = "0:r0=0; 0:r1=2; 0:r2=2; 0:r3=2; 1:r0=0; 1:r1=0; 1:r2=0; 1:r3=2; [x]=2; [y]=2;";
    assert!(reached(&c).contains(&want.to_string()), "{c}");
}

/// Program B of issue 24 (T0 on loom's main thread; upstream loom: 426 executions, this SC
/// state never reached).
#[test]
fn program_b_reaches_every_sc_state() {
    let c = exact(
        "main: T0\nT0: x.swap(3); x.fetch_add(2); x.store(3); x.load(); x.store(1)\nT1: x.fetch_add(3); x.store(2); x.load()",
    );
    let want = "0:r0=0; 0:r1=3; 0:r2=2; 1:r0=3; 1:r1=1; [x]=1;";
    assert!(reached(&c).contains(&want.to_string()), "{c}");
}

/// The 5 programs the 200,000-program campaign printed (docs/c11.md) before the repair's mutex
/// fix: each has a mutex section and an RMW by a thread outside it, and each missed one SC final
/// state without a preemption bound (the section's accesses looked racy to the next holder and
/// hid the real race from DPOR). Each now reaches exactly RC11's states.
#[test]
fn mutex_sections_do_not_hide_a_race_behind_them() {
    for (text, want) in [
        (
            "T0: lock(m0); x.load(rlx); unlock(m0)\nT1: lock(m0); x.fetch_add(3, rel); unlock(m0)\nT2: x.store(3); x.swap(1)",
            "0:r0=3; 1:r0=3; 2:r0=6; [x]=1;",
        ),
        (
            "T0: lock(m1); x.load(acq); unlock(m1)\nT1: x.load(rlx); x.fetch_add(2, acq); x.swap(3, acq_rel)\nT2: lock(m1); x.store(3, rlx); unlock(m1)",
            "0:r0=2; 1:r0=0; 1:r1=0; 1:r2=3; [x]=3;",
        ),
        (
            "T0: lock(m0); x.load(); unlock(m0)\nT1: x.swap(2); x.load(rlx)\nT2: lock(m0); x.fetch_add(3, acq); unlock(m0)",
            "0:r0=2; 1:r0=0; 1:r1=5; 2:r0=2; [x]=5;",
        ),
        (
            "main: T0\nT0: lock(m0); x.load(acq); unlock(m0)\nT1: lock(m0); x.swap(3, rlx); unlock(m0)\nT2: x.swap(1, acq_rel); x.fetch_add(1, rlx); x.store(2, rlx)",
            "0:r0=1; 1:r0=1; 2:r0=0; 2:r1=3; [x]=2;",
        ),
        (
            "T0: lock(m0); x.swap(3, rlx); unlock(m0)\nT1: lock(m0); x.load(rlx); unlock(m0)\nT2: x.fetch_add(2, acq_rel); x.cas(2, 1, rlx, sc)",
            "0:r0=2; 1:r0=2; 2:r0=0; 2:r1=3; [x]=3;",
        ),
    ] {
        let c = exact(text);
        assert!(reached(&c).contains(&want.to_string()), "{c}");
    }
}

/// Issue 33: program 2272 of `wbcheck c11 campaign --seed 94000 --shape 3x5x2` missed 12 SC
/// final states without a preemption bound. Shrunk (operations removed, orders dropped to SC
/// while a state stayed missed), it needs one execution: T1 adds, T2 adds, T1 swaps, T2 loads
/// and swaps x, T0's cas on x fails (it reads T2's 3), T0's cas on y succeeds, T1's last cas
/// fails. The race of T1's last cas with T0's cas on y was reversed by running T0 first where
/// T0 was asleep (its first operation, the cas on x, explored from there) and its reversal
/// needs T2's swap of x first: the backtracking now starts a reversed race with a thread that
/// can run first in it (third_party/loom/PATCHED.md).
#[test]
fn program_2272_reaches_every_sc_state() {
    let shrunk = exact("T0: x.cas(0, 1); y.cas(1, 3)\nT1: y.fetch_add(1); y.swap(1); y.cas(1, 1)\nT2: y.fetch_add(1); y.load(); x.swap(3)");
    assert!(
        reached(&shrunk)
            .contains(&"0:r0=3; 0:r1=1; 1:r0=0; 1:r1=2; 1:r2=3; 2:r0=1; 2:r1=1; 2:r2=0; [x]=3; [y]=3;".to_string()),
        "{shrunk}"
    );
    assert_eq!(shrunk.loom.outcomes.len(), 48, "{shrunk}");
}

/// Issue 33: 9 stores to x (the initial one included) were more than the 7 loom kept, and it
/// dropped the oldest: T2's store, placed before everything kept, then sat between the initial
/// value (dropped) and T0's swap that read it, and T2's load read the swap: `0:r0=0; 2:r0=1`,
/// which no C11 execution allows (T2's load reading the swap puts T2's store before it, so
/// the swap would read 9). loom now drops only the stores no live thread can still read.
#[test]
fn a_long_store_history_does_not_split_an_rmw() {
    let c = exact(
        "T0: x.swap(1, rlx)\nT1: x.store(2, rlx); x.store(3, rlx); x.store(4, rlx); x.store(5, rlx); x.store(6, rlx); x.store(7, rlx)\nT2: x.store(9, rlx); x.load(rlx)",
    );
    assert!(!reached(&c).iter().any(|o| o.starts_with("0:r0=0; 2:r0=1;")), "{c}");
}
