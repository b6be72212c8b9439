//! Sequential consistency by exhaustive interleaving, written independently of loom and of
//! wb-core, with a data-race check.
//!
//! Every memory operation is one atomic step on one shared memory; an execution interleaves
//! the processes' steps in program order. `spin_lock` cannot step while another process holds
//! the lock; an interleaving where no process can step before all have finished (a lock never
//! released) is dropped, as herd7 drops such executions. Each `srcu_struct` is an RCU domain of
//! its own. `synchronize_rcu` is two steps: the grace period starts (it notes which processes
//! are inside a read-side section, and which section), and it ends only once each of those has
//! left that section; a section that begins after the start is not waited for. The search is
//! depth-first over states (a state is everything the future depends on, the race-check
//! clocks included), so a state reached twice is explored once.
//!
//! **Data races.** LKMM flags a race when two accesses to one location, at least one a write
//! and at least one plain, from different processes, are not ordered. Here "ordered" is C11's
//! happens-before, computed with vector clocks on each interleaving from the same mapping the
//! loom run uses: program order; a Release store, a Release or fully ordered RMW, or a store
//! after a Release fence (`smp_wmb`, `smp_mb`), read by an Acquire load or RMW, or by a load
//! followed by an Acquire fence (`smp_rmb`, `smp_mb`), with RMWs continuing a release
//! sequence; a spinlock's unlock before its next lock; and RCU: a grace period's start before
//! every section that begins after it, and the end of every section it waited for, or that
//! ended before it started, before its end. Plain accesses synchronise as Relaxed ones. A race
//! is reported when some interleaving reaches an access that conflicts with an earlier one not
//! ordered before it. This misses races only weak executions can reach (none of the
//! interleavings has them), and LKMM's own race definition orders somewhat less than C11's
//! happens-before (e.g. its plain accesses need barriers, not just a synchronising pair, to be
//! ordered); a disagreement shows up in the round trip against the `DATARACE` predictions.

use super::ir::{advance, Access, Fence, Final, Instr, Local, Next, Op, Program, Rmw, RmwOrder};
use std::collections::{BTreeSet, HashSet};

type Clock = Vec<u32>;

fn join(into: &mut Clock, from: &Clock) {
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

/// The last accesses of one process to one location: (epoch, line), 0 for none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Last {
    write: (u32, u32),
    plain_write: (u32, u32),
    read: (u32, u32),
    plain_read: (u32, u32),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct GracePeriod {
    domain: usize,
    /// The (process, section number) pairs inside a section when it started, not yet left.
    waiting: Vec<(usize, u32)>,
    /// The clocks of the sections it waited for, at their ends.
    ends: Clock,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Proc {
    local: Local,
    clock: Clock,
    /// The clock at the last Release fence, and the clocks read since the last Acquire fence.
    fence_release: Clock,
    pending_acquire: Clock,
    /// Per RCU domain: the nesting depth, the number of the current or last section, and the
    /// clock at the end of the last outermost section.
    rcu_depth: Vec<u32>,
    rcu_section: Vec<u32>,
    rcu_unlocked: Vec<Clock>,
    grace_period: Option<GracePeriod>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct State {
    procs: Vec<Proc>,
    mem: Vec<i64>,
    /// Each location's release clock (its last write's release sequence).
    released: Vec<Clock>,
    last: Vec<Vec<Last>>,
    holder: Vec<Option<usize>>,
    lock_released: Vec<Clock>,
    /// Per RCU domain, the clocks of every grace period's start.
    grace_starts: Vec<Clock>,
}

/// What the enumeration found.
#[derive(Debug, Clone)]
pub struct Enumerated {
    pub finals: BTreeSet<Final>,
    /// The states explored.
    pub states: u64,
    /// The first data race found: the two accesses.
    pub race: Option<String>,
}

struct Search<'a> {
    prog: &'a Program,
    race: Option<String>,
}

/// Every final state of every sequentially consistent interleaving, and whether one has a data
/// race; an error when an execution goes wrong (a pointer that is no location, a lock misuse).
/// An interleaving that stops short of the end (a lock never released) is dropped.
pub fn enumerate(prog: &Program) -> Result<Enumerated, String> {
    let n = prog.threads.len();
    let zero = vec![0; n];
    let domains = prog.domains.len();
    let mut start = State {
        procs: prog
            .threads
            .iter()
            .map(|t| Proc {
                local: Local { pc: 0, regs: t.init_regs.clone() },
                clock: zero.clone(),
                fence_release: zero.clone(),
                pending_acquire: zero.clone(),
                rcu_depth: vec![0; domains],
                rcu_section: vec![0; domains],
                rcu_unlocked: vec![zero.clone(); domains],
                grace_period: None,
            })
            .collect(),
        mem: prog.init_mem.clone(),
        released: vec![zero.clone(); prog.locs.len()],
        last: vec![vec![Last::default(); n]; prog.locs.len()],
        holder: vec![None; prog.locks.len()],
        lock_released: vec![zero.clone(); prog.locks.len()],
        grace_starts: vec![zero; domains],
    };
    for (t, p) in start.procs.iter_mut().enumerate() {
        advance(&prog.threads[t].code, &mut p.local);
    }
    let mut search = Search { prog, race: None };
    let mut finals = BTreeSet::new();
    let mut seen = HashSet::from([start.clone()]);
    let mut stack = vec![start];
    while let Some(state) = stack.pop() {
        let mut finished = true;
        for t in 0..n {
            let Some(next_op) = next(prog, &state, t) else { continue };
            finished = false;
            if let Some(next) = search.step(&state, t, next_op)? {
                if !seen.contains(&next) {
                    seen.insert(next.clone());
                    stack.push(next);
                }
            }
        }
        if finished {
            let regs = state.procs.iter().map(|p| p.local.regs.clone()).collect();
            finals.insert(Final { regs, mem: state.mem.clone() });
        }
        // A state where no process can step before all have finished is dropped.
    }
    Ok(Enumerated { finals, states: seen.len() as u64, race: search.race })
}

/// Process `t`'s next operation (its locals are always advanced up to one).
fn next<'a>(prog: &'a Program, s: &State, t: usize) -> Option<Next<'a>> {
    match prog.threads[t].code.get(s.procs[t].local.pc)? {
        Instr::Op { op, dst, primitive, line } => Some((op, *dst, primitive, *line)),
        _ => unreachable!("advance stops at an operation"),
    }
}

impl Search<'_> {
    /// The state after process `t` performs `op`, or `None` when `op` cannot step now (a lock
    /// another process holds, a grace period still waiting).
    fn step(&mut self, s: &State, t: usize, (op, dst, primitive, line): Next) -> Result<Option<State>, String> {
        let mut s = s.clone();
        let p = &mut s.procs[t];
        p.clock[t] += 1;
        let at = |addr: &super::ir::Expr, p: &Proc| {
            self.prog.location(addr.eval(&p.local.regs), primitive, line).map_err(|e| format!("P{t} {e}"))
        };
        let mut value = None;
        let mut done = true;
        match op {
            Op::Load { addr, access } => {
                let l = at(addr, p)?;
                self.access(&mut s, t, l, (true, false), *access == Access::Plain, line);
                let p = &mut s.procs[t];
                acquire(p, &s.released[l], *access == Access::Acquire);
                value = Some(s.mem[l]);
            }
            Op::Store { addr, value: v, access } => {
                let (l, v) = (at(addr, p)?, v.eval(&p.local.regs));
                self.access(&mut s, t, l, (false, true), *access == Access::Plain, line);
                let p = &s.procs[t];
                s.released[l] = if *access == Access::Release { p.clock.clone() } else { p.fence_release.clone() };
                s.mem[l] = v;
            }
            Op::Rmw { addr, kind, order, returns } => {
                let (l, rmw) = (at(addr, p)?, Rmw::of(kind, &p.local.regs));
                if *order == RmwOrder::Full {
                    fence(p, Fence::Mb);
                }
                let old = s.mem[l];
                let new = rmw.new_value(old);
                self.access(&mut s, t, l, (true, new.is_some()), false, line);
                let p = &mut s.procs[t];
                let acquires = matches!(order, RmwOrder::Full | RmwOrder::Acquire) && new.is_some();
                acquire(p, &s.released[l], acquires);
                if let Some(new) = new {
                    let release =
                        if matches!(order, RmwOrder::Full | RmwOrder::Release) { &p.clock } else { &p.fence_release };
                    join(&mut s.released[l], release);
                    s.mem[l] = new;
                    if *order == RmwOrder::Full {
                        fence(p, Fence::Mb);
                    }
                }
                value = Some(rmw.result(*returns, old));
            }
            Op::Fence(f) => fence(p, *f),
            Op::SpinLock(l) | Op::SpinTrylock(l) => {
                match s.holder[*l] {
                    Some(h) if h == t => {
                        return Err(format!("P{t} line {line}: {primitive} of {}, which it holds", self.prog.locks[*l]))
                    }
                    Some(_) if matches!(op, Op::SpinLock(_)) => return Ok(None),
                    Some(_) => value = Some(0),
                    None => {
                        s.holder[*l] = Some(t);
                        join(&mut p.clock, &s.lock_released[*l]);
                        value = Some(1);
                    }
                }
                if matches!(op, Op::SpinLock(_)) {
                    value = None;
                }
            }
            Op::SpinIsLocked(l) => value = Some(i64::from(s.holder[*l].is_some())),
            Op::SpinUnlock(l) => {
                if s.holder[*l] != Some(t) {
                    return Err(format!(
                        "P{t} line {line}: spin_unlock of {}, which it does not hold",
                        self.prog.locks[*l]
                    ));
                }
                s.holder[*l] = None;
                s.lock_released[*l] = p.clock.clone();
            }
            Op::RcuReadLock(d) => {
                let d = *d;
                if p.rcu_depth[d] == 0 {
                    p.rcu_section[d] += 1;
                    join(&mut p.clock, &s.grace_starts[d]);
                }
                p.rcu_depth[d] += 1;
                if d > 0 {
                    value = Some(0);
                }
            }
            Op::RcuReadUnlock(d) => {
                let d = *d;
                if p.rcu_depth[d] == 0 {
                    let domain = &self.prog.domains[d];
                    return Err(format!("P{t} line {line}: {primitive} outside a read-side section of {domain}"));
                }
                p.rcu_depth[d] -= 1;
                if p.rcu_depth[d] == 0 {
                    p.rcu_unlocked[d] = p.clock.clone();
                    let (clock, section) = (p.clock.clone(), p.rcu_section[d]);
                    for gp in s.procs.iter_mut().filter_map(|q| q.grace_period.as_mut()).filter(|gp| gp.domain == d) {
                        if let Some(i) = gp.waiting.iter().position(|w| *w == (t, section)) {
                            gp.waiting.remove(i);
                            join(&mut gp.ends, &clock);
                        }
                    }
                }
            }
            Op::SynchronizeRcu(d) => match p.grace_period.as_ref().map(|gp| gp.waiting.is_empty()) {
                None => {
                    let d = *d;
                    if p.rcu_depth[d] > 0 {
                        let domain = &self.prog.domains[d];
                        return Err(format!("P{t} line {line}: {primitive} inside a read-side section of {domain}"));
                    }
                    fence(p, Fence::Mb);
                    let mut ended = p.clock.clone();
                    let mut waiting = Vec::new();
                    for (u, q) in s.procs.iter().enumerate() {
                        join(&mut ended, &q.rcu_unlocked[d]);
                        if q.rcu_depth[d] > 0 {
                            waiting.push((u, q.rcu_section[d]));
                        }
                    }
                    let p = &mut s.procs[t];
                    p.clock = ended;
                    join(&mut s.grace_starts[d], &p.clock);
                    p.grace_period = Some(GracePeriod { domain: d, waiting, ends: vec![0; self.prog.threads.len()] });
                    done = false;
                }
                Some(true) => {
                    let ends = p.grace_period.take().expect("a grace period").ends;
                    join(&mut p.clock, &ends);
                    fence(p, Fence::Mb);
                }
                Some(false) => return Ok(None),
            },
        }
        let p = &mut s.procs[t];
        if let (Some(d), Some(v)) = (dst, value) {
            p.local.regs[d] = v;
        }
        if done {
            p.local.pc += 1;
            advance(&self.prog.threads[t].code, &mut p.local);
        }
        Ok(Some(s))
    }

    /// Checks an access of process `t` to location `l` (`(reads, writes)`) against the other
    /// processes' earlier accesses not ordered before it, then records it.
    fn access(&mut self, s: &mut State, t: usize, l: usize, (read, write): (bool, bool), plain: bool, line: usize) {
        let clock = &s.procs[t].clock;
        let epoch = (clock[t], line as u32);
        for (u, last) in s.last[l].iter().enumerate().filter(|(u, _)| *u != t) {
            let earlier_write = if plain { last.write } else { last.plain_write };
            let earlier_read = if plain { last.read } else { last.plain_read };
            let conflict = [(earlier_write, "write"), (earlier_read, "read")]
                .into_iter()
                .find(|((e, _), kind)| *e > clock[u] && (write || *kind == "write"));
            if let (Some(((_, other_line), kind)), None) = (conflict, &self.race) {
                let this = if write { "write" } else { "read" };
                self.race = Some(format!(
                    "P{u} line {other_line} ({kind}) and P{t} line {line} ({this}) on {}, not ordered",
                    self.prog.locs[l]
                ));
            }
        }
        let last = &mut s.last[l][t];
        if write {
            last.write = epoch;
            if plain {
                last.plain_write = epoch;
            }
        }
        if read {
            last.read = epoch;
            if plain {
                last.plain_read = epoch;
            }
        }
    }
}

/// A read of a location whose release clock is `released`: synchronises now when `acquire`,
/// else at the next Acquire fence.
fn acquire(p: &mut Proc, released: &Clock, acquire: bool) {
    if acquire {
        join(&mut p.clock, released);
    } else {
        join(&mut p.pending_acquire, released);
    }
}

fn fence(p: &mut Proc, f: Fence) {
    if matches!(f, Fence::Mb | Fence::Rmb) {
        let pending = p.pending_acquire.clone();
        join(&mut p.clock, &pending);
    }
    if matches!(f, Fence::Mb | Fence::Wmb) {
        p.fence_release = p.clock.clone();
    }
}
