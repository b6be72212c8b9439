//! The program language of the checkers for the checker: straight-line threads of atomic
//! accesses, fences and mutex sections over a few locations, and their final states.
//!
//! A program is 2 to 4 threads of up to [`MAX_OPS`] operations over 1 to 3 locations (`x`, `y`,
//! `z`, every one initially 0) and up to 2 mutexes. Every operation that reads a value puts it
//! in the thread's next register (`r0`, `r1`, ... in program order); a compare-exchange's
//! register holds the value it read, whether it succeeded or not. The final state is every
//! register of every thread and the final value of every location.
//!
//! The text form is the one of the issue that asked for this language, one thread a line:
//!
//! ```text
//! T0: x.cas(2, 1); y.load(); x.cas(2, 2); y.cas(3, 3)
//! T1: y.load(); x.swap(2); y.load(); y.store(2); y.load()
//! ```
//!
//! with an ordering suffix where it is not SeqCst (`x.store(1, rel)`, `x.cas(0, 1, acq_rel,
//! acq)`, `fence(acq)`), `lock(m0)` / `unlock(m0)`, and a first line `main: T0` when thread 0
//! runs on loom's main thread instead of a spawned one (loom numbers main's accesses first;
//! some of its exploration gaps depend on it). [`Program::parse`] reads what [`Program`]'s
//! `Display` writes.

use std::fmt;

/// At most this many operations per thread.
pub const MAX_OPS: usize = 6;
/// At most this many threads (loom allows 5 including main, and the runner's main joins).
pub const MAX_THREADS: usize = 4;
/// At most this many locations.
pub const MAX_LOCS: usize = 3;
/// At most this many mutexes.
pub const MAX_MUTEXES: usize = 2;
/// At most this many writes (stores and RMWs that may write) to one location: the RC11
/// enumerator orders every location's writes every way, so its cost grows with their
/// factorial. (loom keeps up to 64 stores a thread may still read per atomic and refuses past
/// that: third_party/loom/PATCHED.md.)
pub const MAX_WRITES_PER_LOC: usize = 8;

/// A memory order, spelled as herd7's C spells it without the `memory_order_` prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mo {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl Mo {
    pub const ALL: [Mo; 5] = [Mo::Relaxed, Mo::Acquire, Mo::Release, Mo::AcqRel, Mo::SeqCst];
    /// The orders a load may have.
    pub const LOAD: [Mo; 3] = [Mo::Relaxed, Mo::Acquire, Mo::SeqCst];
    /// The orders a store may have.
    pub const STORE: [Mo; 3] = [Mo::Relaxed, Mo::Release, Mo::SeqCst];
    /// The orders a read-modify-write may have (and a compare-exchange's success order).
    pub const RMW: [Mo; 5] = Mo::ALL;
    /// The orders a fence may have (a relaxed fence is no fence).
    pub const FENCE: [Mo; 4] = [Mo::Acquire, Mo::Release, Mo::AcqRel, Mo::SeqCst];

    /// The short name of the text form.
    pub fn short(self) -> &'static str {
        match self {
            Mo::Relaxed => "rlx",
            Mo::Acquire => "acq",
            Mo::Release => "rel",
            Mo::AcqRel => "acq_rel",
            Mo::SeqCst => "sc",
        }
    }

    /// herd7's C name (`memory_order_relaxed`, ...).
    pub fn herd(self) -> &'static str {
        match self {
            Mo::Relaxed => "memory_order_relaxed",
            Mo::Acquire => "memory_order_acquire",
            Mo::Release => "memory_order_release",
            Mo::AcqRel => "memory_order_acq_rel",
            Mo::SeqCst => "memory_order_seq_cst",
        }
    }

    pub fn std(self) -> std::sync::atomic::Ordering {
        use std::sync::atomic::Ordering as O;
        match self {
            Mo::Relaxed => O::Relaxed,
            Mo::Acquire => O::Acquire,
            Mo::Release => O::Release,
            Mo::AcqRel => O::AcqRel,
            Mo::SeqCst => O::SeqCst,
        }
    }

    fn from_short(s: &str) -> Option<Mo> {
        Mo::ALL.into_iter().find(|m| m.short() == s)
    }

    /// Whether the order has acquire semantics (on a read or a fence).
    pub fn is_acquire(self) -> bool {
        matches!(self, Mo::Acquire | Mo::AcqRel | Mo::SeqCst)
    }

    /// Whether the order has release semantics (on a write or a fence).
    pub fn is_release(self) -> bool {
        matches!(self, Mo::Release | Mo::AcqRel | Mo::SeqCst)
    }

    /// loom's documented weakening: a SeqCst access behaves as an AcqRel one (an Acquire load,
    /// a Release store). Fences keep SeqCst.
    pub fn access_as_loom(self) -> Mo {
        if self == Mo::SeqCst {
            Mo::AcqRel
        } else {
            self
        }
    }
}

/// One operation. `loc` is 0..3 (`x`, `y`, `z`), `mutex` 0..2 (`m0`, `m1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Load {
        loc: u8,
        mo: Mo,
    },
    Store {
        loc: u8,
        val: u64,
        mo: Mo,
    },
    Swap {
        loc: u8,
        val: u64,
        mo: Mo,
    },
    FetchAdd {
        loc: u8,
        val: u64,
        mo: Mo,
    },
    /// `compare_exchange(expected, new, success, failure)`.
    Cas {
        loc: u8,
        expected: u64,
        new: u64,
        success: Mo,
        failure: Mo,
    },
    Fence {
        mo: Mo,
    },
    Lock {
        mutex: u8,
    },
    Unlock {
        mutex: u8,
    },
}

impl Op {
    /// Whether the operation reads a value into a register.
    pub fn has_register(&self) -> bool {
        matches!(self, Op::Load { .. } | Op::Swap { .. } | Op::FetchAdd { .. } | Op::Cas { .. })
    }

    /// The location the operation accesses, if it is a memory access.
    pub fn loc(&self) -> Option<u8> {
        match *self {
            Op::Load { loc, .. }
            | Op::Store { loc, .. }
            | Op::Swap { loc, .. }
            | Op::FetchAdd { loc, .. }
            | Op::Cas { loc, .. } => Some(loc),
            _ => None,
        }
    }

    /// Whether the operation may write its location.
    pub fn may_write(&self) -> bool {
        matches!(self, Op::Store { .. } | Op::Swap { .. } | Op::FetchAdd { .. } | Op::Cas { .. })
    }

    /// The same operation with every SeqCst *access* order replaced as loom treats it
    /// ([`Mo::access_as_loom`]); fences are unchanged.
    pub fn as_loom(&self) -> Op {
        let w = Mo::access_as_loom;
        match *self {
            Op::Load { loc, mo } => Op::Load { loc, mo: if mo == Mo::SeqCst { Mo::Acquire } else { mo } },
            Op::Store { loc, val, mo } => Op::Store { loc, val, mo: if mo == Mo::SeqCst { Mo::Release } else { mo } },
            Op::Swap { loc, val, mo } => Op::Swap { loc, val, mo: w(mo) },
            Op::FetchAdd { loc, val, mo } => Op::FetchAdd { loc, val, mo: w(mo) },
            Op::Cas { loc, expected, new, success, failure } => Op::Cas {
                loc,
                expected,
                new,
                success: w(success),
                failure: if failure == Mo::SeqCst { Mo::Acquire } else { failure },
            },
            op => op,
        }
    }

    /// Whether the operation is a SeqCst access (not a fence).
    pub fn is_sc_access(&self) -> bool {
        match *self {
            Op::Load { mo, .. } | Op::Store { mo, .. } | Op::Swap { mo, .. } | Op::FetchAdd { mo, .. } => {
                mo == Mo::SeqCst
            }
            Op::Cas { success, failure, .. } => success == Mo::SeqCst || failure == Mo::SeqCst,
            _ => false,
        }
    }
}

/// The name of location `loc`.
pub fn loc_name(loc: u8) -> &'static str {
    ["x", "y", "z"][loc as usize]
}

fn suffix(mo: Mo) -> String {
    if mo == Mo::SeqCst {
        String::new()
    } else {
        format!(", {}", mo.short())
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Op::Load { loc, mo } => {
                let m = if mo == Mo::SeqCst { String::new() } else { mo.short().to_string() };
                write!(f, "{}.load({m})", loc_name(loc))
            }
            Op::Store { loc, val, mo } => write!(f, "{}.store({val}{})", loc_name(loc), suffix(mo)),
            Op::Swap { loc, val, mo } => write!(f, "{}.swap({val}{})", loc_name(loc), suffix(mo)),
            Op::FetchAdd { loc, val, mo } => write!(f, "{}.fetch_add({val}{})", loc_name(loc), suffix(mo)),
            Op::Cas { loc, expected, new, success, failure } => {
                if success == Mo::SeqCst && failure == Mo::SeqCst {
                    write!(f, "{}.cas({expected}, {new})", loc_name(loc))
                } else {
                    write!(f, "{}.cas({expected}, {new}, {}, {})", loc_name(loc), success.short(), failure.short())
                }
            }
            Op::Fence { mo } => write!(f, "fence({})", mo.short()),
            Op::Lock { mutex } => write!(f, "lock(m{mutex})"),
            Op::Unlock { mutex } => write!(f, "unlock(m{mutex})"),
        }
    }
}

/// A program: its threads and how many locations it has. `Debug` writes the text form (what a
/// failing property test shows).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Program {
    /// Locations `x`, `y`, `z` up to this many (1..=3); every one starts at 0.
    pub locs: u8,
    pub threads: Vec<Vec<Op>>,
    /// Thread 0 runs on loom's main thread (the others are spawned and joined after it ends).
    /// Only the loom runner looks at it: the semantics are the same.
    pub t0_on_main: bool,
}

/// The final state of one execution: every register of every thread, then every location.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Outcome {
    pub regs: Vec<Vec<u64>>,
    pub locs: Vec<u64>,
}

impl fmt::Display for Outcome {
    /// herd7's own state format: `0:r0=0; 1:r0=1; [x]=1;`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut sep = |f: &mut fmt::Formatter<'_>| {
            let s = if first { "" } else { " " };
            first = false;
            f.write_str(s)
        };
        for (t, regs) in self.regs.iter().enumerate() {
            for (i, v) in regs.iter().enumerate() {
                sep(f)?;
                write!(f, "{t}:r{i}={v};")?;
            }
        }
        for (l, v) in self.locs.iter().enumerate() {
            sep(f)?;
            write!(f, "[{}]={v};", loc_name(l as u8))?;
        }
        Ok(())
    }
}

impl Program {
    /// How many registers each thread has.
    pub fn registers(&self) -> Vec<usize> {
        self.threads.iter().map(|ops| ops.iter().filter(|op| op.has_register()).count()).collect()
    }

    /// Whether any operation is a mutex operation.
    pub fn has_mutex(&self) -> bool {
        self.threads.iter().flatten().any(|op| matches!(op, Op::Lock { .. } | Op::Unlock { .. }))
    }

    /// Whether any operation is a SeqCst access (fences aside).
    pub fn has_sc_access(&self) -> bool {
        self.threads.iter().flatten().any(Op::is_sc_access)
    }

    /// The program with every SeqCst access weakened as loom treats it ([`Op::as_loom`]).
    pub fn as_loom(&self) -> Program {
        Program {
            locs: self.locs,
            threads: self.threads.iter().map(|ops| ops.iter().map(Op::as_loom).collect()).collect(),
            t0_on_main: self.t0_on_main,
        }
    }

    /// Check the program is one of the language: sizes within bounds, orders that apply to
    /// their operation, locations and mutexes in range, and mutex sections that are closed,
    /// not nested, and unlocked only by the thread holding them (so no execution deadlocks).
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=MAX_LOCS as u8).contains(&self.locs) {
            return Err(format!("{} locations: a program has 1 to {MAX_LOCS}", self.locs));
        }
        if !(1..=MAX_THREADS).contains(&self.threads.len()) {
            return Err(format!("{} threads: a program has 1 to {MAX_THREADS}", self.threads.len()));
        }
        let mut writes = [0usize; MAX_LOCS];
        for (t, ops) in self.threads.iter().enumerate() {
            if ops.len() > MAX_OPS {
                return Err(format!("T{t} has {} operations: at most {MAX_OPS}", ops.len()));
            }
            let mut held: Option<u8> = None;
            for op in ops {
                let bad = |what: &str| Err(format!("T{t}: {op}: {what}"));
                if let Some(loc) = op.loc() {
                    if loc >= self.locs {
                        return bad("location out of range");
                    }
                    if op.may_write() {
                        writes[loc as usize] += 1;
                    }
                }
                match *op {
                    Op::Load { mo, .. } if !Mo::LOAD.contains(&mo) => return bad("not an order of a load"),
                    Op::Store { mo, .. } if !Mo::STORE.contains(&mo) => return bad("not an order of a store"),
                    Op::Cas { failure, .. } if !Mo::LOAD.contains(&failure) => {
                        return bad("not an order of a compare-exchange's failure")
                    }
                    Op::Fence { mo } if !Mo::FENCE.contains(&mo) => return bad("not an order of a fence"),
                    Op::Lock { mutex } | Op::Unlock { mutex } if mutex as usize >= MAX_MUTEXES => {
                        return bad("mutex out of range")
                    }
                    Op::Lock { mutex } => {
                        if held.is_some() {
                            return bad("mutex sections do not nest");
                        }
                        held = Some(mutex);
                    }
                    Op::Unlock { mutex } => {
                        if held != Some(mutex) {
                            return bad("unlocks a mutex the thread does not hold");
                        }
                        held = None;
                    }
                    _ => {}
                }
            }
            if let Some(m) = held {
                return Err(format!("T{t} ends holding m{m}"));
            }
        }
        if let Some(l) = writes.iter().position(|&w| w > MAX_WRITES_PER_LOC) {
            return Err(format!(
                "{} writes to {}: at most {MAX_WRITES_PER_LOC} (the RC11 enumerator orders them every way)",
                writes[l],
                loc_name(l as u8)
            ));
        }
        Ok(())
    }

    /// Read the text form (see the module documentation).
    pub fn parse(text: &str) -> Result<Program, String> {
        let mut threads = Vec::new();
        let mut t0_on_main = false;
        let mut max_loc = 0u8;
        for (n, line) in text.lines().map(str::trim).filter(|l| !l.is_empty()).enumerate() {
            let (head, body) = line.split_once(':').ok_or_else(|| format!("line {}: no `T<n>:`", n + 1))?;
            let head = head.trim();
            if head == "main" {
                if body.trim() != "T0" || n != 0 {
                    return Err("`main: T0` must be the first line".into());
                }
                t0_on_main = true;
                continue;
            }
            if head != format!("T{}", threads.len()) {
                return Err(format!("line {}: expected `T{}:`, found `{head}:`", n + 1, threads.len()));
            }
            let mut ops = Vec::new();
            for text in body.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                let op = parse_op(text).map_err(|e| format!("T{}: `{text}`: {e}", threads.len()))?;
                if let Some(l) = op.loc() {
                    max_loc = max_loc.max(l + 1);
                }
                ops.push(op);
            }
            threads.push(ops);
        }
        let program = Program { locs: max_loc.max(1), threads, t0_on_main };
        program.validate()?;
        Ok(program)
    }
}

fn parse_op(text: &str) -> Result<Op, String> {
    let open = text.find('(').ok_or("no `(`")?;
    if !text.ends_with(')') {
        return Err("no closing `)`".into());
    }
    let (callee, args) = (&text[..open], &text[open + 1..text.len() - 1]);
    let args: Vec<&str> = args.split(',').map(str::trim).filter(|a| !a.is_empty()).collect();
    let num = |i: usize| -> Result<u64, String> {
        args.get(i).ok_or("missing argument")?.parse::<u64>().map_err(|_| format!("`{}` is not a number", args[i]))
    };
    let mo = |i: usize| -> Result<Mo, String> {
        match args.get(i) {
            None => Ok(Mo::SeqCst),
            Some(s) => Mo::from_short(s).ok_or_else(|| format!("`{s}` is not an order (rlx, acq, rel, acq_rel, sc)")),
        }
    };
    let arity = |n: usize| -> Result<(), String> {
        if args.len() > n {
            Err(format!("at most {n} arguments"))
        } else {
            Ok(())
        }
    };
    match callee {
        "fence" => {
            arity(1)?;
            Ok(Op::Fence { mo: args.first().map_or(Ok(Mo::SeqCst), |_| mo(0))? })
        }
        "lock" | "unlock" => {
            arity(1)?;
            let m = args.first().and_then(|a| a.strip_prefix('m')).and_then(|n| n.parse::<u8>().ok());
            let mutex = m.ok_or("expected a mutex `m0` or `m1`")?;
            Ok(if callee == "lock" { Op::Lock { mutex } } else { Op::Unlock { mutex } })
        }
        _ => {
            let (var, method) =
                callee.split_once('.').ok_or("expected `x.method(...)`, `fence`, `lock` or `unlock`")?;
            let loc =
                ["x", "y", "z"].iter().position(|v| *v == var).ok_or_else(|| format!("`{var}` is not x, y or z"))?
                    as u8;
            match method {
                "load" => {
                    arity(1)?;
                    Ok(Op::Load { loc, mo: mo(0)? })
                }
                "store" => {
                    arity(2)?;
                    Ok(Op::Store { loc, val: num(0)?, mo: mo(1)? })
                }
                "swap" => {
                    arity(2)?;
                    Ok(Op::Swap { loc, val: num(0)?, mo: mo(1)? })
                }
                "fetch_add" => {
                    arity(2)?;
                    Ok(Op::FetchAdd { loc, val: num(0)?, mo: mo(1)? })
                }
                "cas" => {
                    arity(4)?;
                    if args.len() == 3 {
                        return Err("give both orders or neither".into());
                    }
                    Ok(Op::Cas { loc, expected: num(0)?, new: num(1)?, success: mo(2)?, failure: mo(3)? })
                }
                _ => Err(format!("`{method}` is not load, store, swap, fetch_add or cas")),
            }
        }
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{self}")
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.t0_on_main {
            writeln!(f, "main: T0")?;
        }
        for (t, ops) in self.threads.iter().enumerate() {
            let ops: Vec<String> = ops.iter().map(Op::to_string).collect();
            writeln!(f, "T{t}: {}", ops.join("; "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_programs_read_back_as_written() {
        let a = "T0: x.cas(2, 1); y.load(); x.cas(2, 2); y.cas(3, 3)\nT1: y.load(); x.swap(2); y.load(); y.store(2); y.load()\n";
        let p = Program::parse(a).unwrap();
        assert_eq!(p.to_string(), a);
        assert_eq!(p.registers(), vec![4, 4]);
        assert_eq!(p.locs, 2);
        let b = "main: T0\nT0: x.swap(3); x.fetch_add(2); x.store(3); x.load(); x.store(1)\nT1: x.fetch_add(3); x.store(2); x.load()\n";
        let p = Program::parse(b).unwrap();
        assert!(p.t0_on_main);
        assert_eq!(p.to_string(), b);
        let c =
            "T0: x.store(2, rel); fence(acq_rel); lock(m1); unlock(m1)\nT1: x.cas(0, 1, acq_rel, rlx); x.load(acq)\n";
        assert_eq!(Program::parse(c).unwrap().to_string(), c);
    }

    #[test]
    fn bad_programs_are_refused_with_a_reason() {
        for (text, why) in [
            ("T0: x.store(1, acq)", "not an order of a store"),
            ("T0: x.load(rel)", "not an order of a load"),
            ("T0: fence(rlx)", "not an order of a fence"),
            ("T0: lock(m0); lock(m1)", "do not nest"),
            ("T0: lock(m0)", "ends holding"),
            ("T0: unlock(m0)", "does not hold"),
            ("T1: x.load()", "expected `T0:`"),
            ("T0: w.load()", "not x, y or z"),
            ("T0: x.cas(1, 2, acq)", "both orders"),
            ("T0: x.frob()", "not load"),
            (
                "T0: x.store(1); x.store(1); x.store(1); x.store(1); x.store(1); x.store(1)\nT1: x.store(1); x.store(1); x.swap(1)",
                "writes to x: at most 8",
            ),
        ] {
            let err = Program::parse(text).unwrap_err();
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn outcomes_print_in_herd_format() {
        let o = Outcome { regs: vec![vec![0], vec![1, 2]], locs: vec![1, 0] };
        assert_eq!(o.to_string(), "0:r0=0; 1:r0=1; 1:r1=2; [x]=1; [y]=0;");
    }
}
