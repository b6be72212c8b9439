//! Executing a translated test through wb-core's primitives, generically over
//! [`Platform`]: the same atomics, fences, mutexes and RCU model the scenarios use, so that a
//! litmus test answers what wbcheck's own mapping (the table in `core/src/sync.rs`) allows.
//! [`loom_finals`] runs it under loom with no preemption bound: every execution loom's
//! exploration reaches, weak-memory ones included.
//!
//! | kernel | here |
//! |---|---|
//! | `READ_ONCE`, `WRITE_ONCE`, `atomic_read`, `atomic_set`, plain `*x` | Relaxed load / store (plain accesses are also checked for data races by [`super::sc`]) |
//! | `smp_load_acquire`, `atomic_read_acquire` / `smp_store_release`, `atomic_set_release` | Acquire load / Release store |
//! | `rcu_dereference` | Acquire load (see below) |
//! | `rcu_assign_pointer` | Release store |
//! | `smp_mb`, `smp_mb__before_atomic`, `__after_atomic`, `__after_spinlock`, `__after_unlock_lock` | `fence(SeqCst)` |
//! | `smp_rmb` / `smp_wmb` | Acquire / Release fence |
//! | value-returning RMW without suffix (`xchg`, `cmpxchg`, `atomic_*_return`, `atomic_fetch_*`, `atomic_*_and_test`) | `fence(SeqCst)`; AcqRel RMW; `fence(SeqCst)` |
//! | `_relaxed` / `_acquire` / `_release` RMW | Relaxed / Acquire / Release RMW |
//! | `atomic_inc`, `atomic_dec`, `atomic_add`, `atomic_sub` | Relaxed RMW |
//! | `smp_store_mb` | Relaxed store, `fence(SeqCst)` |
//! | `atomic_and`, `_or`, `_andnot` / `atomic_fetch_*` of them | Relaxed / kernel-suffixed `fetch_and`, `fetch_or` |
//! | `atomic_xor`, `atomic_fetch_xor*`, `atomic_add_unless` | a compare-exchange loop with the RMW's ordering (`atomic_add_unless`: fully ordered when it adds, a Relaxed read when it does not) |
//! | `spin_lock`, `spin_unlock`, `spin_trylock` | [`Platform::Mutex`] lock, unlock, try_lock (a SeqCst word where a lock may never be released, below) |
//! | `spin_is_locked` | a Relaxed load of a word beside the lock that `spin_lock` sets and `spin_unlock` clears (Relaxed stores): LKMM's read of the lock, with no ordering |
//! | `rcu_read_lock`, `rcu_read_unlock`, `synchronize_rcu[_expedited]` | wb-core's grace-period model, [`Rcu`] |
//! | `srcu_read_lock`/`srcu_down_read`, `srcu_read_unlock`/`srcu_up_read`, `synchronize_srcu[_expedited]` | the same model, one [`Rcu`] per `srcu_struct` |
//! | `barrier()` | nothing |
//!
//! **Locks never taken.** As in herd7, an execution in which a process waits for a lock that
//! can never be released (its holder has finished holding it, or the waits form a cycle) is not
//! an execution: it is dropped, and a test whose every execution is dropped observes no state
//! (`Never 0 0`, the kernel scripts' `DEADLOCK`). loom's mutex cannot express that (a thread
//! blocked on it forever ends the whole search), so in a test where a process may end holding a
//! lock or nest two, every lock is a word taken by a SeqCst compare-exchange (loom's mutex is
//! SeqCst too) and released by a SeqCst store, the taker retrying with a yield and checking each
//! time whether the lock can still be released; every other test uses the mutex.
//!
//! A failing `cmpxchg` reads with Relaxed ordering and skips the trailing fence; the leading
//! `fence(SeqCst)` has run by then (LKMM gives a failing cmpxchg no ordering at all, so here it
//! is stronger). `rcu_dereference` is an Acquire load because loom tracks no dependencies:
//! LKMM orders the accesses that depend on the pointer read, and a Relaxed load would let a
//! dereference read the pointee's value from before its publication, which LKMM forbids;
//! Acquire orders those and also the later accesses that do not depend on the pointer, which
//! LKMM does not (stronger, as compilers' `memory_order_consume` is).

use super::ir::{advance, Access, Fence, Final, Instr, Local, Op, Program, Rmw, RmwOrder};
use crate::panic::Capture;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering as StdOrdering};
use std::sync::{Arc, Mutex};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::rcu::Rcu;
use wb_core::sync::{Atomic, Lock, Loom, Ordering, Platform};
use wb_core::trace::Trace;

/// loom runs at most this many model threads besides main.
pub const MAX_PROCS: usize = 4;

/// The final states an exhaustive run reached, and how many executions it ran.
#[derive(Debug, Clone)]
pub struct Reached {
    pub finals: BTreeSet<Final>,
    pub executions: u64,
}

/// What the processes of one execution share.
struct Shared<P: Platform> {
    locs: Vec<P::AtomicUsize>,
    locks: Vec<P::Mutex<()>>,
    /// Per lock, 1 while it is held: what `spin_is_locked` reads; the lock itself when `spin`.
    lock_words: Vec<P::AtomicUsize>,
    /// Whether a lock may never be released ([`may_hold_forever`]): then locks are taken by a
    /// SeqCst compare-exchange on their word, retried with a yield, and not by the mutex.
    spin: bool,
    /// RCU, then one domain per `srcu_struct`.
    rcu: Vec<Rcu<P>>,
    trace: Arc<Trace>,
    /// Bookkeeping outside loom's view (loom runs one thread at a time): who holds and who
    /// waits for each lock, who has finished, and whether the execution is dropped.
    waits: std::sync::Mutex<Waits>,
}

struct Waits {
    holder: Vec<Option<usize>>,
    waiting: Vec<Option<usize>>,
    done: Vec<bool>,
    dropped: bool,
}

impl Waits {
    /// Whether process `t`, waiting for lock `l`, can never take it: following holders and the
    /// locks they wait for ends at a finished process or goes round a cycle.
    fn hopeless(&self, t: usize, mut l: usize) -> bool {
        for _ in 0..=self.holder.len() {
            let Some(h) = self.holder[l] else { return false };
            if h == t || self.done[h] {
                return true;
            }
            match self.waiting[h] {
                Some(next) => l = next,
                None => return false,
            }
        }
        true
    }
}

/// A fully ordered RMW's bracket: `smp_mb()` before and after.
fn full_fence<P: Platform>(order: RmwOrder) {
    if order == RmwOrder::Full {
        P::fence(Ordering::SeqCst);
    }
}

/// An atomic RMW on `cell` with the kernel suffix `order`; returns the old value.
fn atomic_rmw<P: Platform>(cell: &P::AtomicUsize, rmw: Rmw, order: RmwOrder) -> i64 {
    let success = match order {
        RmwOrder::Full => Ordering::AcqRel,
        RmwOrder::Relaxed => Ordering::Relaxed,
        RmwOrder::Acquire => Ordering::Acquire,
        RmwOrder::Release => Ordering::Release,
    };
    full_fence::<P>(order);
    let old = match rmw {
        Rmw::Add(v) => cell.fetch_add(v as usize, success),
        Rmw::And(v) => cell.fetch_and(v as usize, success),
        Rmw::Or(v) => cell.fetch_or(v as usize, success),
        Rmw::Xchg(v) => cell.swap(v as usize, success),
        Rmw::Cmpxchg(expected, new) => {
            match cell.compare_exchange(expected as usize, new as usize, success, Ordering::Relaxed) {
                Ok(old) => old,
                // A failure: no trailing fence.
                Err(now) => return now as i64,
            }
        }
        Rmw::Xor(_) | Rmw::AddUnless(..) => {
            let mut old = cell.load(Ordering::Relaxed);
            loop {
                // A failing add_unless: a Relaxed read, no trailing fence.
                let Some(new) = rmw.new_value(old as i64) else { return old as i64 };
                match cell.compare_exchange(old, new as usize, success, Ordering::Relaxed) {
                    Ok(found) => break found,
                    Err(now) => old = now,
                }
            }
        }
    };
    full_fence::<P>(order);
    old as i64
}

fn load_order(access: Access) -> Ordering {
    if access == Access::Acquire {
        Ordering::Acquire
    } else {
        Ordering::Relaxed
    }
}

fn store_order(access: Access) -> Ordering {
    if access == Access::Release {
        Ordering::Release
    } else {
        Ordering::Relaxed
    }
}

/// The spinning lock: takes lock `l` for process `t` with one SeqCst compare-exchange of its word
/// (as loom's mutex, whose lock and unlock are SeqCst: `seq_cst` in `third_party/loom`).
fn try_take<P: Platform>(shared: &Shared<P>, l: usize, t: usize) -> bool {
    let taken = shared.lock_words[l].compare_exchange(0, 1, Ordering::SeqCst, Ordering::Relaxed).is_ok();
    if taken {
        let mut w = shared.waits.lock().unwrap();
        (w.holder[l], w.waiting[t]) = (Some(t), None);
    }
    taken
}

/// Whether a process of `prog` may end holding a lock or take a lock while holding another:
/// then a lock may never be released, and locks spin (see the module documentation). Counted
/// over each process's code in order, branches ignored: an overestimate, which only chooses the
/// spinning lock where the mutex would have done.
fn may_hold_forever(prog: &Program) -> bool {
    prog.threads.iter().any(|th| {
        let mut held = 0i64;
        for i in &th.code {
            if let Instr::Op { op, .. } = i {
                match op {
                    Op::SpinLock(_) | Op::SpinTrylock(_) if held > 0 => return true,
                    Op::SpinLock(_) | Op::SpinTrylock(_) => held += 1,
                    Op::SpinUnlock(_) => held -= 1,
                    _ => {}
                }
            }
        }
        held != 0
    })
}

/// Runs process `t` to its end; returns its registers, or `None` when it waits for a lock that
/// can never be released (the execution is dropped). Locks it still holds at its end stay held.
fn run_process<P: Platform>(prog: &Program, t: usize, shared: &Shared<P>) -> Result<Option<Vec<i64>>, String> {
    let result = run_process_body(prog, t, shared);
    shared.waits.lock().unwrap().done[t] = true;
    result
}

/// A held lock's state: the mutex guard when the lock is the mutex, none for the others.
type Held<'a, P> = Option<<<P as Platform>::Mutex<()> as Lock<()>>::Guard<'a>>;

fn run_process_body<P: Platform>(prog: &Program, t: usize, shared: &Shared<P>) -> Result<Option<Vec<i64>>, String> {
    let ctx = Ctx::<P>::new(shared.trace.clone(), &format!("P{t}"), CpuPlan::Fixed(t));
    let thread = &prog.threads[t];
    let mut local = Local { pc: 0, regs: thread.init_regs.clone() };
    // Per lock: held or not, with the mutex guard when the lock is the mutex.
    let mut held: Vec<Option<Held<'_, P>>> = shared.locks.iter().map(|_| None).collect();
    while let Some((op, dst, primitive, line)) = advance(&thread.code, &mut local) {
        let at = |addr: &super::ir::Expr, regs: &[i64]| -> Result<&P::AtomicUsize, String> {
            Ok(&shared.locs[prog.location(addr.eval(regs), primitive, line)?])
        };
        let value = match op {
            Op::Load { addr, access } => Some(at(addr, &local.regs)?.load(load_order(*access)) as i64),
            Op::Store { addr, value, access } => {
                let v = value.eval(&local.regs);
                at(addr, &local.regs)?.store(v as usize, store_order(*access));
                None
            }
            Op::Rmw { addr, kind, order, returns } => {
                let rmw = Rmw::of(kind, &local.regs);
                let old = atomic_rmw::<P>(at(addr, &local.regs)?, rmw, *order);
                Some(rmw.result(*returns, old))
            }
            Op::Fence(f) => {
                P::fence(match f {
                    Fence::Mb => Ordering::SeqCst,
                    Fence::Rmb => Ordering::Acquire,
                    Fence::Wmb => Ordering::Release,
                });
                None
            }
            Op::SpinLock(l) => {
                if held[*l].is_some() {
                    return Err(format!("line {line}: spin_lock of {}, which P{t} holds", prog.locks[*l]));
                }
                if !shared.spin {
                    held[*l] = Some(Some(shared.locks[*l].lock()));
                    shared.lock_words[*l].store(1, Ordering::Relaxed);
                } else {
                    loop {
                        if try_take::<P>(shared, *l, t) {
                            held[*l] = Some(None);
                            break;
                        }
                        let mut w = shared.waits.lock().unwrap();
                        w.waiting[t] = Some(*l);
                        if w.hopeless(t, *l) {
                            w.dropped = true;
                            return Ok(None);
                        }
                        drop(w);
                        P::yield_now();
                    }
                }
                None
            }
            Op::SpinUnlock(l) => {
                if held[*l].is_none() {
                    return Err(format!("line {line}: spin_unlock of {}, which P{t} does not hold", prog.locks[*l]));
                }
                if shared.spin {
                    shared.waits.lock().unwrap().holder[*l] = None;
                    shared.lock_words[*l].store(0, Ordering::SeqCst);
                } else {
                    shared.lock_words[*l].store(0, Ordering::Relaxed);
                }
                held[*l] = None;
                None
            }
            Op::SpinTrylock(l) => {
                if held[*l].is_some() {
                    return Err(format!("line {line}: spin_trylock of {}, which P{t} holds", prog.locks[*l]));
                }
                if !shared.spin {
                    if let Some(guard) = shared.locks[*l].try_lock() {
                        held[*l] = Some(Some(guard));
                        shared.lock_words[*l].store(1, Ordering::Relaxed);
                    }
                } else if try_take::<P>(shared, *l, t) {
                    held[*l] = Some(None);
                }
                Some(i64::from(held[*l].is_some()))
            }
            Op::SpinIsLocked(l) => Some(shared.lock_words[*l].load(Ordering::Relaxed) as i64),
            Op::RcuReadLock(d) => {
                shared.rcu[*d].read_lock(&ctx);
                (*d > 0).then_some(0)
            }
            Op::RcuReadUnlock(d) => {
                if !shared.rcu[*d].in_read_section(&ctx) {
                    return Err(format!(
                        "line {line}: {primitive} outside a read-side section of {}",
                        prog.domains[*d]
                    ));
                }
                shared.rcu[*d].read_unlock(&ctx);
                None
            }
            Op::SynchronizeRcu(d) => {
                if shared.rcu[*d].in_read_section(&ctx) {
                    return Err(format!("line {line}: {primitive} inside a read-side section of {}", prog.domains[*d]));
                }
                shared.rcu[*d].synchronize(&ctx);
                None
            }
        };
        if let (Some(d), Some(v)) = (dst, value) {
            local.regs[d] = v;
        }
        local.pc += 1;
    }
    // A lock held at the end stays held: the guards are not dropped.
    held.into_iter().flatten().flatten().for_each(std::mem::forget);
    Ok(Some(local.regs))
}

/// One execution of `prog` under `P`: every process on its own thread, then main reads every
/// location (everything happened before it: the last store of each). `None` when the execution
/// is dropped (a lock that can never be taken).
fn execute<P: Platform>(prog: &Arc<Program>, error: &Arc<Mutex<Option<String>>>) -> Option<Final> {
    let n = prog.threads.len();
    let shared = Arc::new(Shared::<P> {
        locs: prog.init_mem.iter().map(|&v| P::AtomicUsize::new(v as usize)).collect(),
        locks: prog.locks.iter().map(|_| P::Mutex::new(())).collect(),
        lock_words: prog.locks.iter().map(|_| P::AtomicUsize::new(0)).collect(),
        spin: may_hold_forever(prog),
        // A word per spawned thread, and one for loom's thread 0 (`Platform::task_index`).
        rcu: prog.domains.iter().map(|_| Rcu::new(n + 1)).collect(),
        trace: Arc::new(Trace::new()),
        waits: std::sync::Mutex::new(Waits {
            holder: vec![None; prog.locks.len()],
            waiting: vec![None; n],
            done: vec![false; n],
            dropped: false,
        }),
    });
    let regs = Arc::new(Mutex::new(vec![Vec::new(); prog.threads.len()]));
    let handles: Vec<P::JoinHandle> = (0..prog.threads.len())
        .map(|t| {
            let (prog, shared, regs, error) = (prog.clone(), shared.clone(), regs.clone(), error.clone());
            P::spawn(move || match run_process::<P>(&prog, t, &shared) {
                Ok(Some(mine)) => regs.lock().unwrap()[t] = mine,
                Ok(None) => regs.lock().unwrap()[t] = prog.threads[t].init_regs.clone(),
                Err(e) => {
                    error.lock().unwrap().get_or_insert(format!("P{t} {e}"));
                    regs.lock().unwrap()[t] = prog.threads[t].init_regs.clone();
                }
            })
        })
        .collect();
    for h in handles {
        P::join(h);
    }
    if shared.waits.lock().unwrap().dropped {
        return None;
    }
    let regs = std::mem::take(&mut *regs.lock().unwrap());
    Some(Final { regs, mem: shared.locs.iter().map(|l| l.load(Ordering::Relaxed) as i64).collect() })
}

/// Every final state loom reaches with no preemption bound; an error when an execution went
/// wrong (a pointer that is no location, a lock misuse; a lock never taken drops the execution).
pub fn loom_finals(prog: &Program) -> Result<Reached, String> {
    if prog.threads.len() > MAX_PROCS {
        return Err(format!("{} processes: loom runs at most {MAX_PROCS}", prog.threads.len()));
    }
    let prog = Arc::new(prog.clone());
    let finals = Arc::new(Mutex::new(BTreeSet::new()));
    let executions = Arc::new(AtomicU64::new(0));
    let error = Arc::new(Mutex::new(None));
    let (f2, e2, err2) = (finals.clone(), executions.clone(), error.clone());
    let capture = Capture::start();
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = None;
        builder.max_branches = 100_000;
        builder.check(move || {
            e2.fetch_add(1, StdOrdering::Relaxed);
            if let Some(f) = execute::<Loom>(&prog, &err2) {
                f2.lock().unwrap().insert(f);
            }
        });
    }));
    if let Err(panic) = run {
        let message = capture.take_message().unwrap_or_else(|| crate::panic::payload_message(&*panic));
        return Err(format!("loom stopped: {message}"));
    }
    if let Some(e) = error.lock().unwrap().take() {
        return Err(e);
    }
    let finals = std::mem::take(&mut *finals.lock().unwrap());
    Ok(Reached { finals, executions: executions.load(StdOrdering::Relaxed) })
}
