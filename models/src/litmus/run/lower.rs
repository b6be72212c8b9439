//! The translation: a parsed test ([`super::parse::Test`]) into the [`Program`] the runners
//! execute. Names are resolved (a process's parameters are the shared locations and locks, the
//! other names its registers), memory accesses and calls inside expressions are hoisted into
//! operations on temporary registers, in evaluation order, and `if`/`else` become jumps.
//!
//! The kernel primitives are mapped here, by [`primitive`], to the operations of the mapping
//! table in wb-core's `core/src/sync.rs`; a call of anything else is an error naming it.

use super::ir::{self, Access, Fence, Instr, Op, Program, Returns, RmwKind, RmwOrder, Thread, Var, LOC_BASE};
use super::parse::{self, err, Call, Error, Expr, Kind, Stmt, Target, Test, Value};
use std::collections::HashMap;

/// What a kernel primitive does, before its arguments are lowered.
enum Prim {
    /// `lvalue`: the argument is written `*p` (`READ_ONCE(*x)`), else `p` (`smp_load_acquire(x)`).
    Load {
        access: Access,
        lvalue: bool,
    },
    Store {
        access: Access,
        lvalue: bool,
    },
    /// `value_first`: `atomic_add(v, p)`; otherwise the location comes first (`xchg(p, v)`).
    Rmw {
        kind: RmwBase,
        order: RmwOrder,
        returns: Option<Returns>,
        value_first: bool,
    },
    /// `smp_store_mb()`: a `WRITE_ONCE` then `smp_mb()`.
    StoreMb,
    Fence(Fence),
    /// `smp_mb__after_srcu_read_unlock()`: LKMM orders the accesses before an earlier
    /// `srcu_read_unlock()` with those after the fence, and nothing by itself. Here the process's
    /// SRCU unlocks are each followed by `smp_mb()` when its code has this call (so accesses
    /// between the unlock and the call are ordered after the ones before the unlock: stronger
    /// there), and the call itself does nothing.
    MbAfterSrcuUnlock,
    /// `barrier()`: a compiler barrier, nothing at run time.
    Nothing,
    SpinLock,
    SpinUnlock,
    SpinTrylock,
    SpinIsLocked,
    RcuReadLock,
    RcuReadUnlock,
    SynchronizeRcu,
    /// `srcu_read_lock(s)`, `srcu_down_read(s)`.
    SrcuReadLock,
    /// `srcu_read_unlock(s, idx)`, `srcu_up_read(s, idx)`.
    SrcuReadUnlock,
    SynchronizeSrcu,
}

#[derive(Clone, Copy)]
enum RmwBase {
    Add,
    Sub,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    AndNot,
    Xchg,
    Cmpxchg,
    AddUnless,
}

/// The primitive named `name`, per the mapping of `core/src/sync.rs`: value-returning RMWs
/// without suffix are fully ordered, `_relaxed`/`_acquire`/`_release` take that ordering, RMWs
/// that return nothing are Relaxed.
fn primitive(name: &str) -> Option<Prim> {
    use Access::*;
    let simple = match name {
        "READ_ONCE" => Prim::Load { access: Once, lvalue: true },
        "WRITE_ONCE" => Prim::Store { access: Once, lvalue: true },
        "smp_load_acquire" => Prim::Load { access: Acquire, lvalue: false },
        "smp_store_release" => Prim::Store { access: Release, lvalue: false },
        "rcu_dereference" => Prim::Load { access: Acquire, lvalue: true },
        "rcu_assign_pointer" => Prim::Store { access: Release, lvalue: true },
        "atomic_read" => Prim::Load { access: Once, lvalue: false },
        "atomic_set" => Prim::Store { access: Once, lvalue: false },
        "atomic_read_acquire" => Prim::Load { access: Acquire, lvalue: false },
        "atomic_set_release" => Prim::Store { access: Release, lvalue: false },
        "smp_mb"
        | "smp_mb__before_atomic"
        | "smp_mb__after_atomic"
        | "smp_mb__after_spinlock"
        | "smp_mb__after_unlock_lock" => Prim::Fence(Fence::Mb),
        "smp_mb__after_srcu_read_unlock" => Prim::MbAfterSrcuUnlock,
        "smp_rmb" => Prim::Fence(Fence::Rmb),
        "smp_wmb" => Prim::Fence(Fence::Wmb),
        "smp_store_mb" => Prim::StoreMb,
        "barrier" => Prim::Nothing,
        "spin_lock" => Prim::SpinLock,
        "spin_unlock" => Prim::SpinUnlock,
        "spin_trylock" => Prim::SpinTrylock,
        "spin_is_locked" => Prim::SpinIsLocked,
        "rcu_read_lock" => Prim::RcuReadLock,
        "rcu_read_unlock" => Prim::RcuReadUnlock,
        "synchronize_rcu" | "synchronize_rcu_expedited" => Prim::SynchronizeRcu,
        "srcu_read_lock" | "srcu_down_read" => Prim::SrcuReadLock,
        "srcu_read_unlock" | "srcu_up_read" => Prim::SrcuReadUnlock,
        "synchronize_srcu" | "synchronize_srcu_expedited" => Prim::SynchronizeSrcu,
        _ => return rmw(name),
    };
    Some(simple)
}

/// The RMWs that return nothing (linux-kernel.def's `noreturn`).
const NORETURN: [&str; 8] =
    ["atomic_inc", "atomic_dec", "atomic_add", "atomic_sub", "atomic_and", "atomic_or", "atomic_xor", "atomic_andnot"];

/// `smp_rmb()` orders a CPU's earlier reads before its later reads, and, since LKMM's
/// "Noreturn" change, not the read of an RMW that returns nothing (`atomic_inc`): an Acquire
/// fence would order it. In a process with such an RMW before an `smp_rmb()`, the fence goes and
/// each `READ_ONCE` and value-returning Relaxed RMW that can come before it (every one, where
/// the code jumps back) becomes Acquire instead: it orders those reads before every later access,
/// as the fence did, and leaves the RMW unordered. A process whose reads before the fence
/// include a plain load or a `_release` RMW keeps the fence (no Acquire form keeps those):
/// stronger than LKMM there.
fn rmb_after_noreturn(code: &mut [Instr]) {
    let rmb = |i: &Instr| matches!(i, Instr::Op { op: Op::Fence(Fence::Rmb), .. });
    let Some(last) = code.iter().rposition(rmb) else { return };
    let loops = code.iter().enumerate().any(|(k, i)| match i {
        Instr::Jump { to } | Instr::JumpUnless { to, .. } => *to <= k,
        _ => false,
    });
    let before = if loops { code.len() } else { last };
    let noreturn = |i: &Instr| matches!(i, Instr::Op { op: Op::Rmw { .. }, primitive, .. } if NORETURN.contains(&primitive.as_str()));
    let kept = |i: &Instr| {
        matches!(
            i,
            Instr::Op { op: Op::Load { access: Access::Plain, .. } | Op::Rmw { order: RmwOrder::Release, .. }, .. }
        )
    };
    if !code[..before].iter().any(noreturn) || code[..before].iter().any(kept) {
        return;
    }
    for (k, i) in code.iter_mut().enumerate().take(before) {
        match i {
            Instr::Op { op: Op::Load { access: access @ Access::Once, .. }, .. } => *access = Access::Acquire,
            Instr::Op { op: Op::Rmw { order: order @ RmwOrder::Relaxed, .. }, primitive, .. }
                if !NORETURN.contains(&primitive.as_str()) =>
            {
                *order = RmwOrder::Acquire
            }
            Instr::Op { op: Op::Fence(Fence::Rmb), .. } => *i = Instr::Jump { to: k + 1 },
            _ => {}
        }
    }
    if !loops {
        code[last] = Instr::Jump { to: last + 1 };
    }
}

fn rmw(name: &str) -> Option<Prim> {
    let rmw = |kind, order, returns, value_first| Some(Prim::Rmw { kind, order, returns, value_first });
    // The RMWs that return nothing: Relaxed, no suffix.
    match name {
        "atomic_inc" => return rmw(RmwBase::Inc, RmwOrder::Relaxed, None, false),
        "atomic_dec" => return rmw(RmwBase::Dec, RmwOrder::Relaxed, None, false),
        "atomic_add" => return rmw(RmwBase::Add, RmwOrder::Relaxed, None, true),
        "atomic_sub" => return rmw(RmwBase::Sub, RmwOrder::Relaxed, None, true),
        "atomic_and" => return rmw(RmwBase::And, RmwOrder::Relaxed, None, true),
        "atomic_or" => return rmw(RmwBase::Or, RmwOrder::Relaxed, None, true),
        "atomic_xor" => return rmw(RmwBase::Xor, RmwOrder::Relaxed, None, true),
        "atomic_andnot" => return rmw(RmwBase::AndNot, RmwOrder::Relaxed, None, true),
        "atomic_add_unless" => return rmw(RmwBase::AddUnless, RmwOrder::Full, Some(Returns::Wrote), false),
        "atomic_inc_and_test" => return rmw(RmwBase::Inc, RmwOrder::Full, Some(Returns::NewIsZero), false),
        "atomic_dec_and_test" => return rmw(RmwBase::Dec, RmwOrder::Full, Some(Returns::NewIsZero), false),
        "atomic_sub_and_test" => return rmw(RmwBase::Sub, RmwOrder::Full, Some(Returns::NewIsZero), true),
        _ => {}
    }
    let (base, order) =
        [("_relaxed", RmwOrder::Relaxed), ("_acquire", RmwOrder::Acquire), ("_release", RmwOrder::Release)]
            .into_iter()
            .find_map(|(suffix, order)| name.strip_suffix(suffix).map(|b| (b, order)))
            .unwrap_or((name, RmwOrder::Full));
    let (kind, returns, value_first) = match base {
        "xchg" | "atomic_xchg" => (RmwBase::Xchg, Returns::Old, false),
        "cmpxchg" | "atomic_cmpxchg" => (RmwBase::Cmpxchg, Returns::Old, false),
        "atomic_add_return" => (RmwBase::Add, Returns::New, true),
        "atomic_sub_return" => (RmwBase::Sub, Returns::New, true),
        "atomic_inc_return" => (RmwBase::Inc, Returns::New, false),
        "atomic_dec_return" => (RmwBase::Dec, Returns::New, false),
        "atomic_fetch_add" => (RmwBase::Add, Returns::Old, true),
        "atomic_fetch_sub" => (RmwBase::Sub, Returns::Old, true),
        "atomic_fetch_inc" => (RmwBase::Inc, Returns::Old, false),
        "atomic_fetch_dec" => (RmwBase::Dec, Returns::Old, false),
        "atomic_fetch_and" => (RmwBase::And, Returns::Old, true),
        "atomic_fetch_or" => (RmwBase::Or, Returns::Old, true),
        "atomic_fetch_xor" => (RmwBase::Xor, Returns::Old, true),
        "atomic_fetch_andnot" => (RmwBase::AndNot, Returns::Old, true),
        "atomic_add_negative" => (RmwBase::Add, Returns::NewIsNegative, true),
        _ => return None,
    };
    rmw(kind, order, Some(returns), value_first)
}

/// What a name in a process stands for.
#[derive(Clone, Copy)]
enum Name {
    Loc(usize),
    Lock(usize),
    /// An RCU domain: `1 + k` for the `k`th `srcu_struct`.
    Srcu(usize),
    Reg(usize),
}

/// The shared names of the test: locations, locks and `srcu_struct`s, in order of appearance.
#[derive(Default)]
struct Names {
    locs: Vec<String>,
    locks: Vec<String>,
    srcus: Vec<String>,
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Loc => "a memory location",
        Kind::Lock => "a spinlock_t",
        Kind::Srcu => "a struct srcu_struct",
    }
}

impl Names {
    /// The index of `name` among the names of `kind`, added if new; an error if it is a name of
    /// another kind (a name is one of a location, a lock, an srcu_struct).
    fn intern(&mut self, kind: Kind, name: &str, line: usize) -> Result<usize, Error> {
        for (other, names) in [(Kind::Loc, &self.locs), (Kind::Lock, &self.locks), (Kind::Srcu, &self.srcus)] {
            if other != kind && names.iter().any(|l| l == name) {
                return err(line, format!("'{name}' is {} and {}", kind_name(other), kind_name(kind)));
            }
        }
        let names = match kind {
            Kind::Loc => &mut self.locs,
            Kind::Lock => &mut self.locks,
            Kind::Srcu => &mut self.srcus,
        };
        Ok(names.iter().position(|l| l == name).unwrap_or_else(|| {
            names.push(name.to_string());
            names.len() - 1
        }))
    }

    fn loc(&mut self, name: &str, line: usize) -> Result<usize, Error> {
        self.intern(Kind::Loc, name, line)
    }

    fn value(&mut self, v: &Value, line: usize) -> Result<i64, Error> {
        match v {
            Value::Int(n) => Ok(*n),
            Value::Loc(name) => Ok(LOC_BASE + self.loc(name, line)? as i64),
            Value::Reg(t, r) => err(line, format!("{t}:{r} as a value: only the final clause compares registers")),
        }
    }
}

/// Translates a parsed test.
pub fn lower(test: &Test) -> Result<Program, Error> {
    let mut names = Names::default();
    let mut init_mem = Vec::new();
    let mut reg_inits = Vec::new();
    for i in &test.init {
        if i.kind != Kind::Loc {
            if i.thread.is_some() || i.value != Value::Int(0) {
                return err(i.line, format!("{} cannot be a register or have a value", kind_name(i.kind)));
            }
            names.intern(i.kind, &i.name, i.line)?;
            continue;
        }
        let value = names.value(&i.value, i.line)?;
        match i.thread {
            Some(t) => reg_inits.push((t, i)),
            None => {
                let loc = names.loc(&i.name, i.line)?;
                init_mem.resize(names.locs.len(), 0);
                init_mem[loc] = value;
            }
        }
    }
    let mut threads = Vec::new();
    for (n, proc) in test.procs.iter().enumerate() {
        let mut scope = HashMap::new();
        for p in &proc.params {
            let i = names.intern(p.kind, &p.name, proc.line)?;
            let name = match p.kind {
                Kind::Loc => Name::Loc(i),
                Kind::Lock => Name::Lock(i),
                Kind::Srcu => Name::Srcu(1 + i),
            };
            scope.insert(p.name.clone(), name);
        }
        let mut l = Lowering {
            names: &mut names,
            scope,
            regs: Vec::new(),
            code: Vec::new(),
            thread: n,
            line: proc.line,
            mb_after_srcu_unlock: calls(&proc.body, "smp_mb__after_srcu_read_unlock"),
        };
        for (_, i) in reg_inits.iter().filter(|(t, _)| *t == n) {
            if !l.scope.contains_key(&i.name) {
                l.scope.insert(i.name.clone(), Name::Reg(l.regs.len()));
                l.regs.push(i.name.clone());
            }
        }
        l.declare_registers(&proc.body)?;
        l.stmts(&proc.body)?;
        let mut init_regs = vec![0; l.regs.len()];
        for (t, i) in reg_inits.iter().filter(|(t, _)| *t == n) {
            let r = l.regs.iter().position(|r| *r == i.name).ok_or(Error {
                line: i.line,
                message: format!("{t}:{} initialises a register P{t} does not have", i.name),
            })?;
            init_regs[r] = l.names.value(&i.value, i.line)?;
        }
        let (regs, mut code) = (l.regs, l.code);
        rmb_after_noreturn(&mut code);
        threads.push(Thread { code, regs, init_regs });
    }
    if let Some((t, i)) = reg_inits.iter().find(|(t, _)| *t >= test.procs.len()) {
        return err(i.line, format!("{t}:{} initialises a register of a process the test does not have", i.name));
    }
    let condition = condition(test, &mut names, &threads)?;
    init_mem.resize(names.locs.len(), 0);
    let domains = std::iter::once("rcu".to_string()).chain(names.srcus).collect();
    Ok(Program { name: test.name.clone(), locs: names.locs, init_mem, locks: names.locks, domains, threads, condition })
}

fn condition(test: &Test, names: &mut Names, threads: &[Thread]) -> Result<ir::Condition, Error> {
    let (mut vars, mut var_names) = (Vec::new(), Vec::new());
    let clause = prop(&test.clause.prop, names, threads, &mut vars, &mut var_names)?;
    for o in &test.locations {
        variable(o.line, o.thread, &o.name, names, threads, &mut vars, &mut var_names)?;
    }
    let (mut filter_vars, mut filter_names) = (Vec::new(), Vec::new());
    let filter = match &test.filter {
        Some(f) => Some(prop(f, names, threads, &mut filter_vars, &mut filter_names)?),
        None => None,
    };
    Ok(ir::Condition { quantifier: test.clause.quantifier, vars, names: var_names, prop: clause, filter, filter_vars })
}

/// The index of the variable `N:r` or `x` among `vars`, added if new.
fn variable(
    line: usize,
    thread: Option<usize>,
    name: &str,
    names: &mut Names,
    threads: &[Thread],
    vars: &mut Vec<Var>,
    var_names: &mut Vec<String>,
) -> Result<usize, Error> {
    let (var, shown) = match thread {
        Some(t) => {
            let regs = &threads
                .get(t)
                .ok_or(Error { line, message: format!("{t}:{name}: the test has no process P{t}") })?
                .regs;
            let r = regs
                .iter()
                .position(|r| r == name)
                .ok_or(Error { line, message: format!("{t}:{name}: P{t} has no register '{name}'") })?;
            (Var::Reg(t, r), format!("{t}:{name}"))
        }
        None => (Var::Loc(names.loc(name, line)?), name.to_string()),
    };
    Ok(vars.iter().position(|v| *v == var).unwrap_or_else(|| {
        vars.push(var);
        var_names.push(shown);
        vars.len() - 1
    }))
}

fn prop(
    p: &parse::Prop,
    names: &mut Names,
    threads: &[Thread],
    vars: &mut Vec<Var>,
    var_names: &mut Vec<String>,
) -> Result<ir::Prop, Error> {
    let mut sub = |q: &parse::Prop| prop(q, names, threads, vars, var_names).map(Box::new);
    Ok(match p {
        parse::Prop::True => ir::Prop::True,
        parse::Prop::False => ir::Prop::False,
        parse::Prop::Not(q) => ir::Prop::Not(sub(q)?),
        parse::Prop::And(a, b) => ir::Prop::And(sub(a)?, sub(b)?),
        parse::Prop::Or(a, b) => ir::Prop::Or(sub(a)?, sub(b)?),
        parse::Prop::Eq { line, thread, name, value } => {
            let i = variable(*line, *thread, name, names, threads, vars, var_names)?;
            match value {
                Value::Reg(t, r) => ir::Prop::EqVars(i, variable(*line, Some(*t), r, names, threads, vars, var_names)?),
                _ => ir::Prop::Eq(i, names.value(value, *line)?),
            }
        }
    })
}

/// Whether `body` calls `name` as a statement (in a branch too).
fn calls(body: &[Stmt], name: &str) -> bool {
    body.iter().any(|s| match s {
        Stmt::Call { call, .. } => call.name == name,
        Stmt::If { then, els, .. } => calls(then, name) || calls(els, name),
        _ => false,
    })
}

/// The translation of one process.
struct Lowering<'a> {
    names: &'a mut Names,
    scope: HashMap<String, Name>,
    regs: Vec<String>,
    code: Vec<Instr>,
    thread: usize,
    /// The line of the statement being translated (expressions carry none of their own).
    line: usize,
    /// Whether the process calls `smp_mb__after_srcu_read_unlock` ([`Prim::MbAfterSrcuUnlock`]).
    mb_after_srcu_unlock: bool,
}

impl Lowering<'_> {
    /// The registers: the declared ones, then any other name assigned to, in order.
    fn declare_registers(&mut self, body: &[Stmt]) -> Result<(), Error> {
        for s in body {
            match s {
                Stmt::Decl { line, name, .. } | Stmt::Assign { line, target: Target::Reg(name), .. } => {
                    match self.scope.get(name) {
                        Some(Name::Reg(_)) => {}
                        Some(_) => {
                            return err(
                                *line,
                                format!("'{name}' is a parameter of P{}: write *{name} = ...", self.thread),
                            )
                        }
                        None => {
                            self.scope.insert(name.clone(), Name::Reg(self.regs.len()));
                            self.regs.push(name.clone());
                        }
                    }
                }
                Stmt::If { then, els, .. } => {
                    self.declare_registers(then)?;
                    self.declare_registers(els)?;
                }
                Stmt::Assign { .. } | Stmt::Call { .. } => {}
            }
        }
        Ok(())
    }

    fn temp(&mut self) -> usize {
        self.regs.push(format!("tmp{}", self.regs.len()));
        self.regs.len() - 1
    }

    fn stmts(&mut self, body: &[Stmt]) -> Result<(), Error> {
        for s in body {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn reg(&self, name: &str) -> usize {
        match self.scope.get(name) {
            Some(Name::Reg(r)) => *r,
            _ => unreachable!("declare_registers made every assigned name a register"),
        }
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), Error> {
        self.line = match s {
            Stmt::Decl { line, .. } | Stmt::Assign { line, .. } | Stmt::Call { line, .. } | Stmt::If { line, .. } => {
                *line
            }
        };
        match s {
            Stmt::Decl { init: None, .. } => {}
            Stmt::Decl { name, init: Some(value), .. } | Stmt::Assign { target: Target::Reg(name), value, .. } => {
                let value = self.expr(value)?;
                let dst = self.reg(name);
                self.code.push(Instr::Set { dst, value });
            }
            Stmt::Assign { target: Target::Deref(addr), value, .. } => {
                let addr = self.expr(addr)?;
                let value = self.expr(value)?;
                self.op(Op::Store { addr, value, access: Access::Plain }, None, "plain store", self.line);
            }
            Stmt::Call { call, .. } => {
                self.call(call, None)?;
            }
            Stmt::If { cond, then, els, .. } => {
                let cond = self.expr(cond)?;
                let branch = self.code.len();
                self.code.push(Instr::JumpUnless { cond, to: 0 });
                self.stmts(then)?;
                let mut end_of_then = self.code.len();
                if !els.is_empty() {
                    self.code.push(Instr::Jump { to: 0 });
                    end_of_then += 1;
                    self.stmts(els)?;
                    let end = self.code.len();
                    self.code[end_of_then - 1] = Instr::Jump { to: end };
                }
                let cond = match std::mem::replace(&mut self.code[branch], Instr::Jump { to: 0 }) {
                    Instr::JumpUnless { cond, .. } => cond,
                    _ => unreachable!("the branch pushed above"),
                };
                self.code[branch] = Instr::JumpUnless { cond, to: end_of_then };
            }
        }
        Ok(())
    }

    fn op(&mut self, op: Op, dst: Option<usize>, primitive: &str, line: usize) {
        self.code.push(Instr::Op { op, dst, primitive: primitive.to_string(), line });
    }

    /// A register expression for `e`, after the operations that compute its memory accesses
    /// and calls.
    fn expr(&mut self, e: &Expr) -> Result<ir::Expr, Error> {
        Ok(match e {
            Expr::Int(n) => ir::Expr::Const(*n),
            Expr::Name(name) => match self.scope.get(name) {
                Some(Name::Reg(r)) => ir::Expr::Reg(*r),
                Some(Name::Loc(l)) => ir::Expr::Const(LOC_BASE + *l as i64),
                Some(Name::Lock(_)) => {
                    return err(self.line, format!("the spinlock_t '{name}' used as a value"));
                }
                Some(Name::Srcu(_)) => {
                    return err(self.line, format!("the srcu_struct '{name}' used as a value"));
                }
                None => {
                    return err(
                        self.line,
                        format!("unknown name '{name}': not a parameter or register of P{}", self.thread),
                    )
                }
            },
            Expr::AddrOf(name) => match self.scope.get(name) {
                Some(Name::Loc(l)) => ir::Expr::Const(LOC_BASE + *l as i64),
                _ => return err(self.line, format!("&{name}: '{name}' is not a location parameter")),
            },
            Expr::Deref(addr) => {
                let addr = self.expr(addr)?;
                let dst = self.temp();
                self.op(Op::Load { addr, access: Access::Plain }, Some(dst), "plain load", self.line);
                ir::Expr::Reg(dst)
            }
            Expr::Unary(op, a) => {
                let a = Box::new(self.expr(a)?);
                match op {
                    parse::UnOp::Not => ir::Expr::Not(a),
                    parse::UnOp::Neg => ir::Expr::Neg(a),
                }
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(a)?;
                let before = self.code.len();
                let b = self.expr(b)?;
                if matches!(op, parse::BinOp::And | parse::BinOp::Or) && self.code.len() != before {
                    return err(
                        self.line,
                        "unsupported construct: a memory access or call in the right operand of && or ||",
                    );
                }
                ir::Expr::Bin(*op, Box::new(a), Box::new(b))
            }
            Expr::Call(call) => {
                let dst = self.temp();
                self.call(call, Some(dst))?;
                ir::Expr::Reg(dst)
            }
        })
    }

    /// Lowers a call; its value, if it has one, goes to `dst`.
    fn call(&mut self, call: &Call, dst: Option<usize>) -> Result<(), Error> {
        let Call { line, name, args } = call;
        let line = *line;
        let prim = primitive(name).ok_or(Error { line, message: format!("unsupported primitive '{name}'") })?;
        let arity = |n: usize| -> Result<(), Error> {
            if args.len() == n {
                Ok(())
            } else {
                err(line, format!("{name} takes {n} argument(s), not {}", args.len()))
            }
        };
        let op = match prim {
            Prim::Load { access, lvalue } => {
                arity(1)?;
                Op::Load { addr: self.address(name, &args[0], lvalue, line)?, access }
            }
            Prim::Store { access, lvalue } => {
                arity(2)?;
                let addr = self.address(name, &args[0], lvalue, line)?;
                Op::Store { addr, value: self.expr(&args[1])?, access }
            }
            Prim::Rmw { kind, order, returns, value_first } => {
                let operands = match kind {
                    RmwBase::Inc | RmwBase::Dec => 0,
                    RmwBase::Cmpxchg | RmwBase::AddUnless => 2,
                    _ => 1,
                };
                arity(operands + 1)?;
                let (addr, values) = if value_first && operands == 1 {
                    let v = self.expr(&args[0])?;
                    (self.address(name, &args[1], false, line)?, vec![v])
                } else {
                    let addr = self.address(name, &args[0], false, line)?;
                    (addr, args[1..].iter().map(|a| self.expr(a)).collect::<Result<Vec<_>, _>>()?)
                };
                let mut values = values.into_iter();
                let mut next = || values.next().expect("arity checked");
                let kind = match kind {
                    RmwBase::Add => RmwKind::Add(next()),
                    RmwBase::Sub => RmwKind::Sub(next()),
                    RmwBase::Inc => RmwKind::Add(ir::Expr::Const(1)),
                    RmwBase::Dec => RmwKind::Sub(ir::Expr::Const(1)),
                    RmwBase::And => RmwKind::And(next()),
                    RmwBase::Or => RmwKind::Or(next()),
                    RmwBase::Xor => RmwKind::Xor(next()),
                    RmwBase::AndNot => RmwKind::AndNot(next()),
                    RmwBase::Xchg => RmwKind::Xchg(next()),
                    RmwBase::Cmpxchg => RmwKind::Cmpxchg(next(), next()),
                    RmwBase::AddUnless => RmwKind::AddUnless(next(), next()),
                };
                match returns {
                    Some(returns) => Op::Rmw { addr, kind, order, returns },
                    None if dst.is_some() => return err(line, format!("{name} returns no value")),
                    None => Op::Rmw { addr, kind, order, returns: Returns::Old },
                }
            }
            Prim::StoreMb => {
                arity(2)?;
                let addr = self.address(name, &args[0], true, line)?;
                let value = self.expr(&args[1])?;
                self.op(Op::Store { addr, value, access: Access::Once }, None, name, line);
                Op::Fence(Fence::Mb)
            }
            Prim::Fence(f) => {
                arity(0)?;
                Op::Fence(f)
            }
            Prim::Nothing | Prim::MbAfterSrcuUnlock => {
                arity(0)?;
                if dst.is_some() {
                    return err(line, format!("{name} returns no value"));
                }
                return Ok(());
            }
            Prim::SpinLock | Prim::SpinUnlock | Prim::SpinTrylock | Prim::SpinIsLocked => {
                arity(1)?;
                let lock = match &args[0] {
                    Expr::Name(n) => match self.scope.get(n) {
                        Some(Name::Lock(l)) => *l,
                        _ => return err(line, format!("{name}({n}): '{n}' is not a spinlock_t parameter")),
                    },
                    _ => return err(line, format!("{name}'s argument must name a spinlock_t parameter")),
                };
                match prim {
                    Prim::SpinLock => Op::SpinLock(lock),
                    Prim::SpinUnlock => Op::SpinUnlock(lock),
                    Prim::SpinTrylock => Op::SpinTrylock(lock),
                    _ => Op::SpinIsLocked(lock),
                }
            }
            Prim::RcuReadLock | Prim::RcuReadUnlock | Prim::SynchronizeRcu => {
                arity(0)?;
                match prim {
                    Prim::RcuReadLock => Op::RcuReadLock(0),
                    Prim::RcuReadUnlock => Op::RcuReadUnlock(0),
                    _ => Op::SynchronizeRcu(0),
                }
            }
            Prim::SrcuReadLock | Prim::SrcuReadUnlock | Prim::SynchronizeSrcu => {
                arity(if matches!(prim, Prim::SrcuReadUnlock) { 2 } else { 1 })?;
                let domain = match &args[0] {
                    Expr::Name(n) => match self.scope.get(n) {
                        Some(Name::Srcu(d)) => *d,
                        _ => {
                            return err(line, format!("{name}({n}, ...): '{n}' is not a struct srcu_struct parameter"))
                        }
                    },
                    _ => return err(line, format!("{name}'s first argument must name a struct srcu_struct parameter")),
                };
                match prim {
                    Prim::SrcuReadLock => Op::RcuReadLock(domain),
                    Prim::SrcuReadUnlock => {
                        // The index: evaluated (its loads run), not checked against the lock's.
                        self.expr(&args[1])?;
                        Op::RcuReadUnlock(domain)
                    }
                    _ => Op::SynchronizeRcu(domain),
                }
            }
        };
        if dst.is_some() && !op.has_value() {
            return err(line, format!("{name} returns no value"));
        }
        let srcu_unlock = matches!(op, Op::RcuReadUnlock(1..));
        self.op(op, dst, name, line);
        if srcu_unlock && self.mb_after_srcu_unlock {
            self.op(Op::Fence(Fence::Mb), None, "smp_mb__after_srcu_read_unlock", line);
        }
        Ok(())
    }

    /// The address a primitive accesses: `*p` for the `READ_ONCE` family, `p` for the others.
    fn address(&mut self, name: &str, arg: &Expr, lvalue: bool, line: usize) -> Result<ir::Expr, Error> {
        match (lvalue, arg) {
            (true, Expr::Deref(p)) => self.expr(p),
            (true, _) => err(line, format!("{name}'s first argument must be written *p")),
            (false, Expr::Deref(_)) => err(line, format!("{name} takes a pointer (p), not *p")),
            (false, _) => self.expr(arg),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::primitive;

    /// Every primitive of linux-kernel.def, Linux 6.12's and the current one (the names as the
    /// two files define them, 114 in all), has a translation.
    const LINUX_KERNEL_DEF: &[&str] = &[
        "READ_ONCE",
        "WRITE_ONCE",
        "atomic_add",
        "atomic_add_negative",
        "atomic_add_negative_acquire",
        "atomic_add_negative_relaxed",
        "atomic_add_negative_release",
        "atomic_add_return",
        "atomic_add_return_acquire",
        "atomic_add_return_relaxed",
        "atomic_add_return_release",
        "atomic_add_unless",
        "atomic_and",
        "atomic_andnot",
        "atomic_cmpxchg",
        "atomic_cmpxchg_acquire",
        "atomic_cmpxchg_relaxed",
        "atomic_cmpxchg_release",
        "atomic_dec",
        "atomic_dec_and_test",
        "atomic_dec_return",
        "atomic_dec_return_acquire",
        "atomic_dec_return_relaxed",
        "atomic_dec_return_release",
        "atomic_fetch_add",
        "atomic_fetch_add_acquire",
        "atomic_fetch_add_relaxed",
        "atomic_fetch_add_release",
        "atomic_fetch_and",
        "atomic_fetch_and_acquire",
        "atomic_fetch_and_relaxed",
        "atomic_fetch_and_release",
        "atomic_fetch_andnot",
        "atomic_fetch_andnot_acquire",
        "atomic_fetch_andnot_relaxed",
        "atomic_fetch_andnot_release",
        "atomic_fetch_dec",
        "atomic_fetch_dec_acquire",
        "atomic_fetch_dec_relaxed",
        "atomic_fetch_dec_release",
        "atomic_fetch_inc",
        "atomic_fetch_inc_acquire",
        "atomic_fetch_inc_relaxed",
        "atomic_fetch_inc_release",
        "atomic_fetch_or",
        "atomic_fetch_or_acquire",
        "atomic_fetch_or_relaxed",
        "atomic_fetch_or_release",
        "atomic_fetch_sub",
        "atomic_fetch_sub_acquire",
        "atomic_fetch_sub_relaxed",
        "atomic_fetch_sub_release",
        "atomic_fetch_xor",
        "atomic_fetch_xor_acquire",
        "atomic_fetch_xor_relaxed",
        "atomic_fetch_xor_release",
        "atomic_inc",
        "atomic_inc_and_test",
        "atomic_inc_return",
        "atomic_inc_return_acquire",
        "atomic_inc_return_relaxed",
        "atomic_inc_return_release",
        "atomic_or",
        "atomic_read",
        "atomic_read_acquire",
        "atomic_set",
        "atomic_set_release",
        "atomic_sub",
        "atomic_sub_and_test",
        "atomic_sub_return",
        "atomic_sub_return_acquire",
        "atomic_sub_return_relaxed",
        "atomic_sub_return_release",
        "atomic_xchg",
        "atomic_xchg_acquire",
        "atomic_xchg_relaxed",
        "atomic_xchg_release",
        "atomic_xor",
        "barrier",
        "cmpxchg",
        "cmpxchg_acquire",
        "cmpxchg_relaxed",
        "cmpxchg_release",
        "rcu_assign_pointer",
        "rcu_dereference",
        "rcu_read_lock",
        "rcu_read_unlock",
        "smp_load_acquire",
        "smp_mb",
        "smp_mb__after_atomic",
        "smp_mb__after_spinlock",
        "smp_mb__after_srcu_read_unlock",
        "smp_mb__after_unlock_lock",
        "smp_mb__before_atomic",
        "smp_rmb",
        "smp_store_mb",
        "smp_store_release",
        "smp_wmb",
        "spin_is_locked",
        "spin_lock",
        "spin_trylock",
        "spin_unlock",
        "srcu_down_read",
        "srcu_read_lock",
        "srcu_read_unlock",
        "srcu_up_read",
        "synchronize_rcu",
        "synchronize_rcu_expedited",
        "synchronize_srcu",
        "synchronize_srcu_expedited",
        "xchg",
        "xchg_acquire",
        "xchg_relaxed",
        "xchg_release",
    ];

    #[test]
    fn every_primitive_of_linux_kernel_def_is_translated() {
        let missing: Vec<&&str> = LINUX_KERNEL_DEF.iter().filter(|n| primitive(n).is_none()).collect();
        assert!(missing.is_empty(), "no translation for {missing:?}");
        assert!(primitive("spin_unlock_wait").is_none(), "not in linux-kernel.def: an error, as in herd7");
    }
}
