//! The program a litmus test is translated into: per process a flat list of instructions over
//! numbered registers, with jumps for `if`, and memory operations on addresses computed at run
//! time (a pointer is a value). Both runners execute it: [`super::exec`] through wb-core's
//! [`wb_core::sync::Platform`] under loom, [`super::sc`] by enumerating interleavings.
//!
//! The semantics shared by both live here: evaluating register expressions ([`Expr::eval`]),
//! stepping a thread over its local instructions to its next memory operation ([`advance`]),
//! the value an atomic read-modify-write stores and returns ([`Rmw`]), and the final clause
//! ([`Condition`]).

use std::collections::BTreeSet;

/// A value is an `i64`; the address of location `i` is `LOC_BASE + i`, so that a pointer can be
/// stored, compared and printed by its location's name.
pub const LOC_BASE: i64 = 1 << 40;

/// A register expression (memory accesses were hoisted into [`Op`]s by the translation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Const(i64),
    Reg(usize),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(super::parse::BinOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    pub fn eval(&self, regs: &[i64]) -> i64 {
        use super::parse::BinOp::*;
        match self {
            Expr::Const(v) => *v,
            Expr::Reg(r) => regs[*r],
            Expr::Not(e) => i64::from(e.eval(regs) == 0),
            Expr::Neg(e) => e.eval(regs).wrapping_neg(),
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(regs), b.eval(regs));
                match op {
                    Add => a.wrapping_add(b),
                    Sub => a.wrapping_sub(b),
                    Mul => a.wrapping_mul(b),
                    And => i64::from(a != 0 && b != 0),
                    Or => i64::from(a != 0 || b != 0),
                    BitAnd => a & b,
                    BitOr => a | b,
                    BitXor => a ^ b,
                    Eq => i64::from(a == b),
                    Ne => i64::from(a != b),
                    Lt => i64::from(a < b),
                    Le => i64::from(a <= b),
                    Gt => i64::from(a > b),
                    Ge => i64::from(a >= b),
                }
            }
        }
    }
}

/// The ordering of a load or a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// A plain C access (`*x`, `*x = v`): a Relaxed atomic for the outcome, and a candidate for
    /// a data race.
    Plain,
    /// `READ_ONCE`, `WRITE_ONCE`, `atomic_read`, `atomic_set`: Relaxed.
    Once,
    /// `smp_load_acquire`, `rcu_dereference`: Acquire load.
    Acquire,
    /// `smp_store_release`, `rcu_assign_pointer`: Release store.
    Release,
}

/// The ordering of a read-modify-write: its kernel suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RmwOrder {
    /// A value-returning RMW without suffix: `fence(SeqCst)`; AcqRel RMW; `fence(SeqCst)`.
    Full,
    /// `_relaxed`, and the RMWs that return nothing (`atomic_inc`...).
    Relaxed,
    Acquire,
    Release,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fence {
    /// `smp_mb()` and the `smp_mb__*()` family: `fence(SeqCst)`.
    Mb,
    /// `smp_rmb()`: Acquire fence.
    Rmb,
    /// `smp_wmb()`: Release fence.
    Wmb,
}

/// What an RMW computes from the old value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RmwKind {
    Add(Expr),
    Sub(Expr),
    And(Expr),
    Or(Expr),
    Xor(Expr),
    AndNot(Expr),
    Xchg(Expr),
    /// `cmpxchg(x, old, new)`: writes only when the value is `old`.
    Cmpxchg(Expr, Expr),
    /// `atomic_add_unless(x, a, u)`: adds `a` unless the value is `u`.
    AddUnless(Expr, Expr),
}

/// What an RMW's call returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returns {
    Old,
    New,
    /// `atomic_*_and_test`: whether the new value is 0.
    NewIsZero,
    /// `atomic_add_negative`: whether the new value is negative.
    NewIsNegative,
    /// `atomic_add_unless`: whether it wrote.
    Wrote,
}

/// An RMW with its operands evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rmw {
    Add(i64),
    And(i64),
    Or(i64),
    Xor(i64),
    Xchg(i64),
    Cmpxchg(i64, i64),
    AddUnless(i64, i64),
}

impl Rmw {
    pub fn of(kind: &RmwKind, regs: &[i64]) -> Rmw {
        match kind {
            RmwKind::Add(e) => Rmw::Add(e.eval(regs)),
            RmwKind::Sub(e) => Rmw::Add(e.eval(regs).wrapping_neg()),
            RmwKind::And(e) => Rmw::And(e.eval(regs)),
            RmwKind::Or(e) => Rmw::Or(e.eval(regs)),
            RmwKind::Xor(e) => Rmw::Xor(e.eval(regs)),
            RmwKind::AndNot(e) => Rmw::And(!e.eval(regs)),
            RmwKind::Xchg(e) => Rmw::Xchg(e.eval(regs)),
            RmwKind::Cmpxchg(o, n) => Rmw::Cmpxchg(o.eval(regs), n.eval(regs)),
            RmwKind::AddUnless(a, u) => Rmw::AddUnless(a.eval(regs), u.eval(regs)),
        }
    }

    /// The value written over `old`, or `None` for a failing cmpxchg or add_unless.
    pub fn new_value(self, old: i64) -> Option<i64> {
        match self {
            Rmw::Add(v) => Some(old.wrapping_add(v)),
            Rmw::And(v) => Some(old & v),
            Rmw::Or(v) => Some(old | v),
            Rmw::Xor(v) => Some(old ^ v),
            Rmw::Xchg(v) => Some(v),
            Rmw::Cmpxchg(expected, new) => (old == expected).then_some(new),
            Rmw::AddUnless(v, unless) => (old != unless).then_some(old.wrapping_add(v)),
        }
    }

    /// The call's value when the RMW found `old`.
    pub fn result(self, returns: Returns, old: i64) -> i64 {
        let new = self.new_value(old);
        let value = new.unwrap_or(old);
        match returns {
            Returns::Old => old,
            Returns::New => value,
            Returns::NewIsZero => i64::from(value == 0),
            Returns::NewIsNegative => i64::from(value < 0),
            Returns::Wrote => i64::from(new.is_some()),
        }
    }
}

/// A memory, lock or RCU operation: one step of a thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Load {
        addr: Expr,
        access: Access,
    },
    Store {
        addr: Expr,
        value: Expr,
        access: Access,
    },
    Rmw {
        addr: Expr,
        kind: RmwKind,
        order: RmwOrder,
        returns: Returns,
    },
    Fence(Fence),
    SpinLock(usize),
    SpinUnlock(usize),
    /// Returns 1 when it took the lock, 0 when the lock was held.
    SpinTrylock(usize),
    /// Returns 1 when some process holds the lock.
    SpinIsLocked(usize),
    /// The read-side section and grace period of an RCU domain: 0 is RCU, `1 + k` the `k`th
    /// `srcu_struct` ([`Program::domains`]). An SRCU lock returns 0, the index it is given back.
    RcuReadLock(usize),
    RcuReadUnlock(usize),
    SynchronizeRcu(usize),
}

impl Op {
    /// Whether the operation produces a value.
    pub fn has_value(&self) -> bool {
        matches!(
            self,
            Op::Load { .. } | Op::SpinTrylock(_) | Op::SpinIsLocked(_) | Op::Rmw { .. } | Op::RcuReadLock(1..)
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Instr {
    /// A memory operation, the kernel primitive it came from and its line; its value (if any)
    /// goes to `dst`.
    Op {
        op: Op,
        dst: Option<usize>,
        primitive: String,
        line: usize,
    },
    Set {
        dst: usize,
        value: Expr,
    },
    /// Jump to `to` when `cond` is 0.
    JumpUnless {
        cond: Expr,
        to: usize,
    },
    Jump {
        to: usize,
    },
}

/// One process.
#[derive(Debug, Clone)]
pub struct Thread {
    pub code: Vec<Instr>,
    /// Register names; the named ones come first, the hoisted temporaries after them.
    pub regs: Vec<String>,
    /// The initial register values.
    pub init_regs: Vec<i64>,
}

/// A thread's registers and program counter.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Local {
    pub pc: usize,
    pub regs: Vec<i64>,
}

/// A thread's next memory operation: the operation, the register its value goes to, the
/// primitive it came from and its line.
pub type Next<'a> = (&'a Op, Option<usize>, &'a str, usize);

/// Runs `local`'s register instructions and jumps up to its next memory operation, which it
/// returns (`None` at the end of the code).
pub fn advance<'a>(code: &'a [Instr], local: &mut Local) -> Option<Next<'a>> {
    loop {
        match code.get(local.pc)? {
            Instr::Op { op, dst, primitive, line } => return Some((op, *dst, primitive, *line)),
            Instr::Set { dst, value } => {
                local.regs[*dst] = value.eval(&local.regs);
                local.pc += 1;
            }
            Instr::JumpUnless { cond, to } => {
                local.pc = if cond.eval(&local.regs) == 0 { *to } else { local.pc + 1 };
            }
            Instr::Jump { to } => local.pc = *to,
        }
    }
}

/// The whole translated test.
#[derive(Debug, Clone)]
pub struct Program {
    pub name: String,
    pub locs: Vec<String>,
    pub init_mem: Vec<i64>,
    pub locks: Vec<String>,
    /// The RCU domains: `rcu` (RCU itself), then each `srcu_struct`.
    pub domains: Vec<String>,
    pub threads: Vec<Thread>,
    pub condition: Condition,
}

impl Program {
    /// The location `value` points to, or an error naming the primitive and line.
    pub fn location(&self, value: i64, primitive: &str, line: usize) -> Result<usize, String> {
        let i = value.wrapping_sub(LOC_BASE);
        if (0..self.locs.len() as i64).contains(&i) {
            Ok(i as usize)
        } else {
            Err(format!("line {line}: {primitive} on the value {value}, which is not the address of a location"))
        }
    }

    /// `value` as the final clause and the states print it: a location's name or the integer.
    pub fn show(&self, value: i64) -> String {
        match value.checked_sub(LOC_BASE) {
            Some(i) if (0..self.locs.len() as i64).contains(&i) => self.locs[i as usize].clone(),
            _ => value.to_string(),
        }
    }
}

/// A final state: every register of every thread, every location.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Final {
    pub regs: Vec<Vec<i64>>,
    pub mem: Vec<i64>,
}

/// What the final clause observes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Var {
    Reg(usize, usize),
    Loc(usize),
}

#[derive(Debug, Clone)]
pub enum Prop {
    True,
    False,
    /// The `i`th observed variable equals the value.
    Eq(usize, i64),
    /// The `i`th and `j`th observed variables are equal.
    EqVars(usize, usize),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
}

impl Prop {
    fn holds(&self, values: &[i64]) -> bool {
        match self {
            Prop::True => true,
            Prop::False => false,
            Prop::Eq(i, v) => values[*i] == *v,
            Prop::EqVars(i, j) => values[*i] == values[*j],
            Prop::Not(p) => !p.holds(values),
            Prop::And(a, b) => a.holds(values) && b.holds(values),
            Prop::Or(a, b) => a.holds(values) || b.holds(values),
        }
    }
}

/// The final clause: the variables it observes (herd7 counts final states projected on them)
/// and its proposition.
#[derive(Debug, Clone)]
pub struct Condition {
    pub quantifier: super::parse::Quantifier,
    /// The variables the clause and `locations` name: herd7 lists the final states projected
    /// on them.
    pub vars: Vec<Var>,
    /// The variables' names as the clause writes them (`0:r1`, `x`).
    pub names: Vec<String>,
    pub prop: Prop,
    /// `filter`: a final state counts only when it holds (over [`Condition::filter_vars`]).
    pub filter: Option<Prop>,
    pub filter_vars: Vec<Var>,
}

/// A final state projected on the clause's variables.
pub type Observed = Vec<i64>;

fn project(vars: &[Var], f: &Final) -> Observed {
    vars.iter()
        .map(|v| match *v {
            Var::Reg(t, r) => f.regs[t][r],
            Var::Loc(l) => f.mem[l],
        })
        .collect()
}

impl Condition {
    /// The distinct observed states of the `finals` the filter keeps, each with whether it
    /// satisfies the proposition (for `~exists` and `forall` as for `exists`: herd7 reports the
    /// proposition inside).
    pub fn judge<'a>(&self, finals: impl IntoIterator<Item = &'a Final>) -> Vec<(Observed, bool)> {
        let states: BTreeSet<Observed> = finals
            .into_iter()
            .filter(|f| self.filter.as_ref().is_none_or(|p| p.holds(&project(&self.filter_vars, f))))
            .map(|f| project(&self.vars, f))
            .collect();
        states.into_iter().map(|s| (s.clone(), self.prop.holds(&s))).collect()
    }
}
