//! Sequential consistency by exhaustive interleaving: an enumerator of a [`Program`]'s final
//! states written from the definition, independently of loom and shuttle (it is one of the
//! oracles they are checked against).
//!
//! Under sequential consistency every operation is one atomic step on a single shared memory,
//! and an execution is an interleaving of the threads' operations that keeps each thread's
//! program order. Memory orders do not matter: a load reads the memory's current value, a
//! store writes it, a swap, fetch-add or compare-exchange reads and (for a compare-exchange
//! only when the value read is the expected one) writes in the same step, and fences do
//! nothing. `lock(m)` cannot step while another thread holds `m` (it blocks); otherwise it
//! takes `m`. `unlock(m)` releases it.
//!
//! [`outcomes`] explores every interleaving, without partial-order reduction: a depth-first
//! search over states where every enabled thread is tried as the next step. A state is the
//! whole of what the future depends on (program counters, memory, registers, mutex holders),
//! so a state reached a second time is not explored again: every interleaving is still a path
//! of the search, and the set of final states is the same.
//!
//! Mutex sections never nest and a thread only unlocks the mutex it holds ([`Program::validate`]),
//! so the holder of a mutex can always reach its unlock and no execution deadlocks.

use std::collections::{BTreeSet, HashSet};

use super::program::{Op, Outcome, Program, MAX_LOCS, MAX_MUTEXES, MAX_OPS, MAX_THREADS};

/// Everything an execution's future depends on (fixed-size, so cheap to copy and hash).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct State {
    /// The index of each thread's next operation.
    pcs: [u8; MAX_THREADS],
    /// The value of each location.
    mem: [u64; MAX_LOCS],
    /// Each thread's registers; those its operations before its `pc` wrote hold their values,
    /// the others 0.
    regs: [[u64; MAX_OPS]; MAX_THREADS],
    /// The thread holding each mutex, if any.
    holders: [Option<u8>; MAX_MUTEXES],
}

/// The final states of every sequentially consistent interleaving of `p`'s threads.
pub fn outcomes(p: &Program) -> BTreeSet<Outcome> {
    let start = State {
        pcs: [0; MAX_THREADS],
        mem: [0; MAX_LOCS],
        regs: [[0; MAX_OPS]; MAX_THREADS],
        holders: [None; MAX_MUTEXES],
    };
    let registers = p.registers();
    let mut out = BTreeSet::new();
    let mut seen = HashSet::from([start]);
    let mut stack = vec![start];
    while let Some(state) = stack.pop() {
        let mut finished = true;
        for (t, ops) in p.threads.iter().enumerate() {
            let pc = state.pcs[t] as usize;
            let Some(op) = ops.get(pc) else { continue };
            finished = false;
            let reg = ops[..pc].iter().filter(|op| op.has_register()).count();
            if let Some(next) = step(state, t, op, reg) {
                if seen.insert(next) {
                    stack.push(next);
                }
            }
        }
        if finished {
            let regs = registers.iter().zip(&state.regs).map(|(&n, regs)| regs[..n].to_vec()).collect();
            out.insert(Outcome { regs, locs: state.mem[..p.locs as usize].to_vec() });
        }
    }
    out
}

/// The state after thread `t` performs `op` (its next operation, whose register if it has one is
/// `reg`) as one atomic step, or `None` when `op` is a `lock` of a mutex another thread holds.
fn step(mut s: State, t: usize, op: &Op, reg: usize) -> Option<State> {
    match *op {
        Op::Load { loc, .. } => s.regs[t][reg] = s.mem[loc as usize],
        Op::Store { loc, val, .. } => s.mem[loc as usize] = val,
        Op::Swap { loc, val, .. } => s.regs[t][reg] = std::mem::replace(&mut s.mem[loc as usize], val),
        Op::FetchAdd { loc, val, .. } => {
            let old = s.mem[loc as usize];
            s.mem[loc as usize] = old.wrapping_add(val);
            s.regs[t][reg] = old;
        }
        Op::Cas { loc, expected, new, .. } => {
            let old = s.mem[loc as usize];
            if old == expected {
                s.mem[loc as usize] = new;
            }
            s.regs[t][reg] = old;
        }
        Op::Fence { .. } => {}
        Op::Lock { mutex } => {
            let holder = &mut s.holders[mutex as usize];
            if holder.is_some() {
                return None;
            }
            *holder = Some(t as u8);
        }
        Op::Unlock { mutex } => s.holders[mutex as usize] = None,
    }
    s.pcs[t] += 1;
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outcomes written as herd7 prints them, for comparing with a literal list.
    fn shown(p: &str) -> Vec<String> {
        outcomes(&Program::parse(p).unwrap()).iter().map(Outcome::to_string).collect()
    }

    #[test]
    fn store_buffering_has_the_three_interleaved_outcomes() {
        let got = shown("T0: x.store(1, rlx); y.load(rlx)\nT1: y.store(1, rlx); x.load(rlx)");
        assert_eq!(
            got,
            ["0:r0=0; 1:r0=1; [x]=1; [y]=1;", "0:r0=1; 1:r0=0; [x]=1; [y]=1;", "0:r0=1; 1:r0=1; [x]=1; [y]=1;",]
        );
    }

    #[test]
    fn read_modify_writes_are_single_steps() {
        let got = shown("T0: x.fetch_add(1, rlx); x.swap(5, rlx)\nT1: x.cas(1, 7, rlx, rlx)");
        assert_eq!(
            got,
            [
                "0:r0=0; 0:r1=1; 1:r0=0; [x]=5;", // the cas first: it reads 0 and fails
                "0:r0=0; 0:r1=1; 1:r0=5; [x]=5;", // the cas last: it reads 5 and fails
                "0:r0=0; 0:r1=7; 1:r0=1; [x]=5;", // the cas between: it reads 1 and writes 7
            ]
        );
    }

    #[test]
    fn a_held_mutex_blocks_so_sections_do_not_interleave() {
        let p = "T0: lock(m0); x.load(rlx); x.store(1, rlx); unlock(m0)\n\
                 T1: lock(m0); x.load(rlx); x.store(2, rlx); unlock(m0)";
        assert_eq!(shown(p), ["0:r0=0; 1:r0=1; [x]=2;", "0:r0=2; 1:r0=0; [x]=1;"]);
        let unlocked = "T0: x.load(rlx); x.store(1, rlx)\nT1: x.load(rlx); x.store(2, rlx)";
        assert!(shown(unlocked).contains(&"0:r0=0; 1:r0=0; [x]=2;".to_string()));
    }

    #[test]
    fn fences_and_orders_change_nothing() {
        let plain = "T0: x.store(1, rlx); y.load(rlx)\nT1: y.store(1, rlx); x.load(rlx)";
        let fenced = "T0: x.store(1); fence(sc); y.load()\nT1: y.store(1, rel); fence(acq); x.load(acq)";
        assert_eq!(shown(plain), shown(fenced));
    }
}
