//! RC11 by enumerating candidate executions: an axiomatic enumerator of a [`Program`]'s final
//! states written from the model's definition, independently of loom and shuttle (it is one of
//! the oracles they are checked against).
//!
//! The model is RC11 (Lahav, Vafeiadis, Kang, Hur, Dreyer, "Repairing Sequential Consistency
//! in C/C++11", PLDI 2017) exactly as herd7 states it in `herd/libdir/rc11.cat`:
//!
//! ```text
//! let mo = co ; let sb = po ; let myrmw = [RMW] | rmw
//! let rb = (rf^-1; mo) \ id
//! let eco = (rf | mo | rb)+
//! let rs = [W]; (sb & loc)?; [W & (RLX | REL | ACQ_REL | ACQ | SC)]; (rf; myrmw)*
//! let sw = [(REL | ACQ_REL | SC)]; ([F]; sb)?; rs; rf; [R & (RLX | REL | ACQ | ACQ_REL | SC)];
//!          (sb; [F])?; [(ACQ | ACQ_REL | SC)]
//! let hb = (sb | sw)+
//! let sbl = sb \ loc ; let hbl = hb & loc
//! let scb = sb | sbl; hb; sbl | hbl | mo | rb
//! let pscb = ([SC] | [F & SC]; hb?); scb; ([SC] | hb? ; [F & SC])
//! let pscf = [F & SC]; (hb | hb; eco; hb); [F & SC]
//! let psc = pscb | pscf
//! irreflexive hb; eco? as coherence1
//! irreflexive (myrmw; eco) as coherencermw
//! empty (myrmw & (rb; mo)) as atomicity
//! acyclic psc as SC
//! acyclic (sb | rf) as no-thin-air
//! ```
//!
//! `check` is that text transcribed relation by relation.
//!
//! # Events
//!
//! One initial write per location (value 0, in no thread, so not in `sb`, first in `mo`, with no
//! order annotation: not `SC`, not `REL`), then each thread's operations in program order:
//!
//! * a load is a read `R`, a store a write `W`, a fence an `F`, each annotated with its order;
//! * a swap, a fetch-add and a successful compare-exchange are one `RMW` event (herd's
//!   single-event representation, in both `R` and `W`, so `myrmw = [RMW]` and `rmw` is empty)
//!   with the (success) order; a failed compare-exchange is a read with the failure order;
//! * mutex `m` is a hidden location of its own (initially 0, not in the [`Outcome`]): `lock(m)` is
//!   an `RMW` annotated `ACQ` that must read 0 and writes 1 (a compare-exchange that blocks
//!   until it succeeds), `unlock(m)` a write of 0 annotated `REL`.
//!
//! `loc` relates accesses (initial writes included) to the same location; fences have none.
//!
//! # Enumeration
//!
//! For every guess of which compare-exchanges succeed (which fixes the events), [`outcomes`]
//! chooses the write every read reads from (`rf`, from the writes of its location, the initial
//! one included), one read at a time: the `RMW`s first, then the failed compare-exchanges, then
//! the loads, each group in program order thread after thread, so that the values written are
//! known early. With `rf` complete it chooses `mo`: for each memory location the write that is
//! `mo`-last, then a total order of every location's writes with the initial write first. A
//! complete candidate whose values are right (a read reads the value its write wrote, computed
//! along `rf`: a fetch-add writes old + addend, a swap its value, a successful compare-exchange
//! its new value; one guessed to succeed reads its expected value and one guessed to fail
//! another; a `lock` reads 0) and that passes all five axioms (`check`, the cat text, on the
//! complete `rf` and `mo`) contributes its final state: every register, and the value of every
//! memory location's `mo`-last write.
//!
//! # Pruning
//!
//! A partial candidate is discarded only when no completion of it can be consistent:
//!
//! * `sb | rf` has a cycle (`no-thin-air`);
//! * a read whose value is already known (its write's value is, along `rf`) is not one it allows;
//! * the `mo` edges every consistent completion must contain (`forced_mo`) have a cycle: the
//!   initial write first; the edges `coherence1` forces from `hb` (which does not depend on `mo`:
//!   `rs` follows `rf` and `sb`), e.g. writes in `hb` order, a read not reading a write `mo`-before
//!   one it sees through `hb`; an `RMW` after the write it reads (`coherencermw`) and, by
//!   `atomicity`, immediately after it, so every other write before both or after both
//!   (`incoherent` finds some of these cycles before the choice is even tried);
//! * an axiom fails with the `rf` so far and the forced `mo` as `mo`. Every relation of the model
//!   grows with `rf` and `mo` (its two differences, `\ id` and `sb \ loc`, take away relations
//!   that depend on neither), and each axiom asks one to be irreflexive, acyclic or empty, so an
//!   axiom that fails on a part of a candidate fails on all of it. (Not checked after the last
//!   read: the complete candidates are checked then.)
//!
//! `mo` is enumerated as the orders that extend the forced edges and put every `RMW` right after
//! the write it reads, one location after another, discarding (by the same monotonicity) an order
//! that makes an axiom fail before the next location's.
//!
//! Two savings do not change the set of final states: a choice of `mo`-last writes whose final
//! state is already known is skipped, and otherwise the search stops at the first consistent
//! `mo`; further candidates with the same final state would add nothing.

use std::collections::BTreeSet;

use super::program::{Mo, Op, Outcome, Program, MAX_LOCS, MAX_MUTEXES, MAX_OPS, MAX_THREADS};

/// The final states of every RC11-consistent execution of `p`.
pub fn outcomes(p: &Program) -> BTreeSet<Outcome> {
    let cas_count = p.threads.iter().flatten().filter(|op| matches!(op, Op::Cas { .. })).count();
    let mut out = BTreeSet::new();
    for guess in 0..1u64 << cas_count {
        let succeeds: Vec<bool> = (0..cas_count).map(|i| guess >> i & 1 == 1).collect();
        let x = Execution::new(p, &succeeds);
        let mut search = Search { x: &x, rf_of: vec![None; x.n], rf: Rel::empty(x.n), out: &mut out };
        search.choose_rf(0, None);
    }
    out
}

/// A set of events: bit `e` is event `e`.
type Set = u32;

/// At most this many events: [`MAX_THREADS`] x [`MAX_OPS`] operations and an initial write for
/// each of [`MAX_LOCS`] locations and [`MAX_MUTEXES`] mutexes.
const MAX_EVENTS: usize = MAX_THREADS * MAX_OPS + MAX_LOCS + MAX_MUTEXES;
const _: () = assert!(MAX_EVENTS <= Set::BITS as usize);

/// The members of a set of events, lowest first.
fn members(set: Set) -> impl Iterator<Item = usize> {
    let mut s = set;
    std::iter::from_fn(move || {
        (s != 0).then(|| {
            let e = s.trailing_zeros() as usize;
            s &= s - 1;
            e
        })
    })
}

/// A binary relation over the `n` events of one execution: `rows[a]` is the set of the events
/// `b` with `(a, b)` in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rel {
    n: usize,
    rows: [Set; MAX_EVENTS],
}

impl Rel {
    fn empty(n: usize) -> Rel {
        Rel { n, rows: [0; MAX_EVENTS] }
    }

    /// `[set]`: the identity on the events of `set`.
    fn id(n: usize, set: Set) -> Rel {
        let mut r = Rel::empty(n);
        for a in members(set).take_while(|&a| a < n) {
            r.add(a, a);
        }
        r
    }

    fn has(&self, a: usize, b: usize) -> bool {
        self.rows[a] >> b & 1 == 1
    }

    fn add(&mut self, a: usize, b: usize) {
        self.rows[a] |= 1 << b;
    }

    fn zip(&self, other: &Rel, f: impl Fn(Set, Set) -> Set) -> Rel {
        let mut r = *self;
        for (row, &o) in r.rows[..self.n].iter_mut().zip(&other.rows) {
            *row = f(*row, o);
        }
        r
    }

    /// `self | other`
    fn or(&self, other: &Rel) -> Rel {
        self.zip(other, |a, b| a | b)
    }

    /// `self & other`
    fn and(&self, other: &Rel) -> Rel {
        self.zip(other, |a, b| a & b)
    }

    /// `self \ other`
    fn minus(&self, other: &Rel) -> Rel {
        self.zip(other, |a, b| a & !b)
    }

    /// `self; other`
    fn seq(&self, other: &Rel) -> Rel {
        let mut r = Rel::empty(self.n);
        for a in 0..self.n {
            r.rows[a] = members(self.rows[a]).fold(0, |acc, b| acc | other.rows[b]);
        }
        r
    }

    /// `self^-1`
    fn inv(&self) -> Rel {
        let mut r = Rel::empty(self.n);
        for a in 0..self.n {
            for b in members(self.rows[a]) {
                r.add(b, a);
            }
        }
        r
    }

    /// `self+`
    fn plus(&self) -> Rel {
        let mut r = *self;
        let (sources, targets) =
            (0..self.n).fold((0, 0), |(s, t), a| (if r.rows[a] != 0 { s | 1 << a } else { s }, t | r.rows[a]));
        // Warshall's algorithm, over the events that can be in the middle of a path.
        for k in members(sources & targets) {
            let through_k = r.rows[k];
            for a in members(sources) {
                if r.rows[a] >> k & 1 == 1 {
                    r.rows[a] |= through_k;
                }
            }
        }
        r
    }

    /// `self?`
    fn opt(&self) -> Rel {
        self.or(&Rel::id(self.n, Set::MAX))
    }

    /// `self*`
    fn star(&self) -> Rel {
        self.plus().opt()
    }

    fn is_empty(&self) -> bool {
        self.rows.iter().all(|&row| row == 0)
    }

    fn irreflexive(&self) -> bool {
        (0..self.n).all(|a| !self.has(a, a))
    }

    /// Whether `self+` is irreflexive, found by removing events without a predecessor until
    /// none is left (acyclic) or every event left has one (a cycle).
    fn acyclic(&self) -> bool {
        let mut left: Set = if self.n == Set::BITS as usize { Set::MAX } else { (1 << self.n) - 1 };
        loop {
            let with_predecessor = members(left).fold(0, |acc, a| acc | self.rows[a]) & left;
            if with_predecessor == left {
                return left == 0;
            }
            left = with_predecessor;
        }
    }

    /// Whether `to` is reachable from `from` in one or more steps.
    fn reaches(&self, from: usize, to: usize) -> bool {
        let (mut seen, mut frontier) = (0, 1 << from);
        while frontier != 0 {
            let next = members(frontier).fold(0, |acc, a| acc | self.rows[a]) & !seen;
            if next >> to & 1 == 1 {
                return true;
            }
            seen |= next;
            frontier = next;
        }
        false
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An initial write.
    Init,
    Read,
    Write,
    Rmw,
    Fence,
}

/// What the value a read reads must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Any,
    /// A successful compare-exchange's expected value, or a lock's 0.
    Equal(u64),
    /// A failed compare-exchange's expected value.
    Other(u64),
}

impl Need {
    fn allows(self, v: u64) -> bool {
        match self {
            Need::Any => true,
            Need::Equal(e) => v == e,
            Need::Other(e) => v != e,
        }
    }
}

/// The value a write writes, given (for an `RMW`) the value it read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writes {
    Nothing,
    Value(u64),
    /// A fetch-add's addend.
    Add(u64),
}

impl Writes {
    fn of(self, read: u64) -> u64 {
        match self {
            Writes::Nothing => unreachable!("not a write"),
            Writes::Value(v) => v,
            Writes::Add(a) => read.wrapping_add(a),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Event {
    kind: Kind,
    /// The thread and the index in it of the operation; `None` for an initial write.
    at: Option<(usize, usize)>,
    /// The location accessed; mutex `m` is location `program.locs + m`.
    loc: Option<usize>,
    /// The order annotation; `None` for an initial write.
    order: Option<Mo>,
    need: Need,
    writes: Writes,
    /// The register the value read goes to: thread and register index.
    reg: Option<(usize, usize)>,
}

/// The events of one guess of the compare-exchanges' results, and the sets and relations that do
/// not depend on `rf` and `mo`.
struct Execution {
    events: Vec<Event>,
    n: usize,
    /// The number of memory locations (the [`Outcome`]'s ones; the mutexes' follow them).
    mem_locs: usize,
    /// The writes to each location, the initial write first.
    writes: Vec<Vec<usize>>,
    /// The reads (`RMW`s included) in the order the search chooses their `rf`: `RMW`s first,
    /// then the other reads whose value is constrained (failed compare-exchanges), then loads,
    /// each group in program order thread after thread. Values written are known early that way.
    reads: Vec<usize>,
    /// How many registers each thread has.
    registers: Vec<usize>,
    /// Event sets of the cat file: `R`, `W`, `F`, `RMW` and the annotations.
    r: Set,
    w: Set,
    f: Set,
    rmw: Set,
    rlx: Set,
    acq: Set,
    rel: Set,
    acq_rel: Set,
    sc: Set,
    sb: Rel,
    loc: Rel,
    id: Rel,
    /// `rs`'s start: `[W]; (sb & loc)?; [W & (RLX | REL | ACQ_REL | ACQ | SC)]`.
    rs_head: Rel,
    /// `sw`'s start: `[(REL | ACQ_REL | SC)]; ([F]; sb)?`.
    sw_head: Rel,
    /// `sw`'s end: `[R & (RLX | REL | ACQ | ACQ_REL | SC)]; (sb; [F])?; [(ACQ | ACQ_REL | SC)]`.
    sw_tail: Rel,
}

impl Execution {
    /// The events of `p` where the `i`th compare-exchange (in thread, then program order)
    /// succeeds when `cas_succeeds[i]`.
    fn new(p: &Program, cas_succeeds: &[bool]) -> Execution {
        let mem_locs = p.locs as usize;
        let mutexes = p.threads.iter().flatten().filter_map(|op| match *op {
            Op::Lock { mutex } => Some(mutex as usize + 1),
            _ => None,
        });
        let nlocs = mem_locs + mutexes.max().unwrap_or(0);
        let mut events: Vec<Event> = (0..nlocs)
            .map(|l| Event {
                kind: Kind::Init,
                at: None,
                loc: Some(l),
                order: None,
                need: Need::Any,
                writes: Writes::Value(0),
                reg: None,
            })
            .collect();
        let mut cas = cas_succeeds.iter();
        for (t, ops) in p.threads.iter().enumerate() {
            let mut regs = 0;
            for (i, op) in ops.iter().enumerate() {
                let (kind, loc, order, need, writes) = match *op {
                    Op::Load { loc, mo } => (Kind::Read, Some(loc as usize), mo, Need::Any, Writes::Nothing),
                    Op::Store { loc, val, mo } => (Kind::Write, Some(loc as usize), mo, Need::Any, Writes::Value(val)),
                    Op::Swap { loc, val, mo } => (Kind::Rmw, Some(loc as usize), mo, Need::Any, Writes::Value(val)),
                    Op::FetchAdd { loc, val, mo } => (Kind::Rmw, Some(loc as usize), mo, Need::Any, Writes::Add(val)),
                    Op::Cas { loc, expected, new, success, failure } => {
                        if *cas.next().expect("a guess for every compare-exchange") {
                            (Kind::Rmw, Some(loc as usize), success, Need::Equal(expected), Writes::Value(new))
                        } else {
                            (Kind::Read, Some(loc as usize), failure, Need::Other(expected), Writes::Nothing)
                        }
                    }
                    Op::Fence { mo } => (Kind::Fence, None, mo, Need::Any, Writes::Nothing),
                    Op::Lock { mutex } => {
                        (Kind::Rmw, Some(mem_locs + mutex as usize), Mo::Acquire, Need::Equal(0), Writes::Value(1))
                    }
                    Op::Unlock { mutex } => {
                        (Kind::Write, Some(mem_locs + mutex as usize), Mo::Release, Need::Any, Writes::Value(0))
                    }
                };
                let reg = op.has_register().then(|| {
                    regs += 1;
                    (t, regs - 1)
                });
                events.push(Event { kind, at: Some((t, i)), loc, order: Some(order), need, writes, reg });
            }
        }
        let n = events.len();
        assert!(n <= MAX_EVENTS, "{n} events: at most {MAX_EVENTS}");
        let set = |f: &dyn Fn(&Event) -> bool| -> Set {
            events.iter().enumerate().filter(|(_, e)| f(e)).fold(0, |s, (i, _)| s | 1 << i)
        };
        let order = |mo: Mo| set(&|e| e.order == Some(mo));
        let mut sb = Rel::empty(n);
        let mut loc = Rel::empty(n);
        for (a, ea) in events.iter().enumerate() {
            for (b, eb) in events.iter().enumerate() {
                if matches!((ea.at, eb.at), (Some((ta, ia)), Some((tb, ib))) if ta == tb && ia < ib) {
                    sb.add(a, b);
                }
                if ea.loc.is_some() && ea.loc == eb.loc {
                    loc.add(a, b);
                }
            }
        }
        let is_write = |e: &Event| matches!(e.kind, Kind::Init | Kind::Write | Kind::Rmw);
        let is_read = |e: &Event| matches!(e.kind, Kind::Read | Kind::Rmw);
        let mut reads: Vec<usize> = (0..n).filter(|&e| is_read(&events[e])).collect();
        reads.sort_by_key(|&e| (events[e].kind != Kind::Rmw, events[e].need == Need::Any));
        let mut x = Execution {
            n,
            mem_locs,
            writes: (0..nlocs)
                .map(|l| (0..n).filter(|&e| is_write(&events[e]) && events[e].loc == Some(l)).collect())
                .collect(),
            reads,
            registers: p.registers(),
            r: set(&is_read),
            w: set(&is_write),
            f: set(&|e| e.kind == Kind::Fence),
            rmw: set(&|e| e.kind == Kind::Rmw),
            rlx: order(Mo::Relaxed),
            acq: order(Mo::Acquire),
            rel: order(Mo::Release),
            acq_rel: order(Mo::AcqRel),
            sc: order(Mo::SeqCst),
            sb,
            loc,
            id: Rel::id(n, Set::MAX),
            rs_head: Rel::empty(n),
            sw_head: Rel::empty(n),
            sw_tail: Rel::empty(n),
            events,
        };
        let atomic = x.rlx | x.rel | x.acq_rel | x.acq | x.sc;
        x.rs_head = x.only(x.w).seq(&x.sb.and(&x.loc).opt()).seq(&x.only(x.w & atomic));
        x.sw_head = x.only(x.rel | x.acq_rel | x.sc).seq(&x.only(x.f).seq(&x.sb).opt());
        x.sw_tail = x.only(x.r & atomic).seq(&x.sb.seq(&x.only(x.f)).opt()).seq(&x.only(x.acq | x.acq_rel | x.sc));
        x
    }

    /// `[set]`
    fn only(&self, set: Set) -> Rel {
        Rel::id(self.n, set)
    }

    fn is(&self, set: Set, e: usize) -> bool {
        set >> e & 1 == 1
    }
}

/// `hb` of the model for `rf` (with `rs` and `sw`, which it is made of; their parts that do not
/// depend on `rf` are [`Execution::rs_head`], [`Execution::sw_head`] and [`Execution::sw_tail`]).
fn hb(x: &Execution, rf: &Rel) -> Rel {
    let myrmw = x.only(x.rmw);
    let rs = x.rs_head.seq(&rf.seq(&myrmw).star());
    let sw = x.sw_head.seq(&rs).seq(rf).seq(&x.sw_tail);
    x.sb.or(&sw).plus()
}

/// The first of the five axioms that `rf` and `mo` fail, by its name in the cat file; `hb` is
/// [`hb`] of `rf` (it depends on `rf` only, so the search computes it once for every `mo`).
///
/// For a complete candidate (every read has its `rf`, `mo` is total on every location) this is
/// the model's verdict; on a part of one it is the pruning described in the module documentation.
fn check(x: &Execution, rf: &Rel, mo: &Rel, hb: &Rel) -> Result<(), &'static str> {
    let sb = &x.sb;
    let myrmw = x.only(x.rmw);
    let rb = rf.inv().seq(mo).minus(&x.id);
    let eco = rf.or(mo).or(&rb).plus();
    if !hb.seq(&eco.opt()).irreflexive() {
        return Err("coherence1");
    }
    if !myrmw.seq(&eco).irreflexive() {
        return Err("coherencermw");
    }
    if !myrmw.and(&rb.seq(mo)).is_empty() {
        return Err("atomicity");
    }
    let sbl = sb.minus(&x.loc);
    let hbl = hb.and(&x.loc);
    let scb = sb.or(&sbl.seq(hb).seq(&sbl)).or(&hbl).or(mo).or(&rb);
    let sc = x.only(x.sc);
    let f_sc = x.only(x.f & x.sc);
    let pscb = sc.or(&f_sc.seq(&hb.opt())).seq(&scb).seq(&sc.or(&hb.opt().seq(&f_sc)));
    let pscf = f_sc.seq(&hb.or(&hb.seq(&eco).seq(hb))).seq(&f_sc);
    if !pscb.or(&pscf).acyclic() {
        return Err("SC");
    }
    if !sb.or(rf).acyclic() {
        return Err("no-thin-air");
    }
    Ok(())
}

/// The `mo` edges every consistent candidate whose `rf` includes `rf_of` (the write each read
/// reads from, where chosen) has, with `hb` the one of `rf_of`; `None` when they cannot be part
/// of a strict total order per location (so no such candidate is consistent).
///
/// For events `a`, `b` of one location with `a` `hb` `b`, let `wa` be `a` if it is a write, else
/// the write it reads from. Then `coherence1` (`hb; eco?` irreflexive) needs `wa` `mo`-before `b`
/// when `b` is a write, and before or equal to the write `b` reads from when `b` reads. An `RMW`
/// comes after the write it reads (`coherencermw`) and immediately after it (`atomicity`), which
/// [`close`] adds.
fn forced_mo(x: &Execution, rf_of: &[Option<usize>], hb: &Rel) -> Option<Rel> {
    let mut mo = Rel::empty(x.n);
    for ws in &x.writes {
        for &w in &ws[1..] {
            mo.add(ws[0], w);
        }
    }
    let seen = |e: usize| if x.is(x.w, e) { Some(e) } else { rf_of[e] };
    for a in 0..x.n {
        for b in members(hb.rows[a] & x.loc.rows[a]) {
            let Some(wa) = seen(a) else { continue };
            if x.is(x.w, b) {
                if wa == b {
                    return None;
                }
                mo.add(wa, b);
            }
            if let Some(wb) = rf_of[b].filter(|&wb| wb != wa) {
                mo.add(wa, wb);
            }
        }
    }
    for e in members(x.rmw) {
        if let Some(w) = rf_of[e] {
            mo.add(w, e);
        }
    }
    close(x, rf_of, mo)
}

/// Whether `r` reading from `w` contradicts the `hb` and forced `mo` of the choices before it
/// (both only grow with it), so that [`forced_mo`] would find a cycle: `r` sees through `hb` a
/// write `mo`-after `w`, or an event `hb`-after `r` is `w` or a write `mo`-before it, or reads
/// from a write `mo`-before it.
fn incoherent(x: &Execution, rf_of: &[Option<usize>], hb: &Rel, mo: &Rel, r: usize, w: usize) -> bool {
    let seen = |e: usize| if x.is(x.w, e) { Some(e) } else { rf_of[e] };
    let sees_later = (0..x.n).filter(|&a| hb.has(a, r) && x.loc.has(a, r)).filter_map(seen).any(|v| mo.has(w, v));
    let later_sees_earlier = members(hb.rows[r] & x.loc.rows[r]).any(|b| {
        let write_before = x.is(x.w, b) && (b == w || mo.has(b, w));
        write_before || rf_of[b].is_some_and(|v| mo.has(v, w))
    });
    sees_later || later_sees_earlier
}

/// `mo` closed under transitivity and under "an `RMW` immediately follows the write it reads"
/// (whatever is before the `RMW` is before its write, whatever is after its write is after it),
/// or `None` if that has a cycle.
fn close(x: &Execution, rf_of: &[Option<usize>], mut mo: Rel) -> Option<Rel> {
    loop {
        mo = mo.plus();
        if !mo.irreflexive() {
            return None;
        }
        let before = mo;
        for e in members(x.rmw) {
            let Some(w) = rf_of[e] else { continue };
            for &other in &x.writes[x.events[e].loc.expect("an access")] {
                if other != w && other != e {
                    if mo.has(other, e) {
                        mo.add(other, w);
                    }
                    if mo.has(w, other) {
                        mo.add(e, other);
                    }
                }
            }
        }
        if mo == before {
            return Some(mo);
        }
    }
}

/// The value write `w` writes, if the `rf` chosen so far determines it.
fn written(x: &Execution, rf_of: &[Option<usize>], w: usize) -> Option<u64> {
    let e = &x.events[w];
    match e.kind {
        Kind::Rmw => read(x, rf_of, w).map(|v| e.writes.of(v)),
        _ => Some(e.writes.of(0)),
    }
}

/// The value read `r` reads, if the `rf` chosen so far determines it. `sb | rf` must be
/// acyclic (so the chain of `RMW`s it follows ends).
fn read(x: &Execution, rf_of: &[Option<usize>], r: usize) -> Option<u64> {
    rf_of[r].and_then(|w| written(x, rf_of, w))
}

/// The search over candidates of one guess of the compare-exchanges' results.
struct Search<'a> {
    x: &'a Execution,
    /// The write each read reads from, for the reads chosen so far.
    rf_of: Vec<Option<usize>>,
    /// The same as a relation.
    rf: Rel,
    out: &'a mut BTreeSet<Outcome>,
}

impl Search<'_> {
    /// Choose `rf` for the `i`th read and the ones after it; `derived` is `hb` and the forced
    /// `mo` of the choices so far.
    fn choose_rf(&mut self, i: usize, derived: Option<(Rel, Rel)>) {
        let x = self.x;
        let Some(&r) = x.reads.get(i) else {
            // No read at all: nothing was derived yet.
            let hb = derived.map_or_else(|| hb(x, &self.rf), |(hb, _)| hb);
            let Some(mo) = derived.map(|(_, mo)| mo).or_else(|| forced_mo(x, &self.rf_of, &hb)) else { return };
            return self.choose_last_writes(&hb, &mo);
        };
        for &w in &x.writes[x.events[r].loc.expect("a read accesses a location")] {
            if w == r {
                continue;
            }
            if derived.as_ref().is_some_and(|(hb, mo)| incoherent(x, &self.rf_of, hb, mo, r, w)) {
                continue;
            }
            self.rf_of[r] = Some(w);
            self.rf.add(w, r);
            if let Some(derived) = self.viable(r, w, i + 1 < x.reads.len()) {
                self.choose_rf(i + 1, Some(derived));
            }
            self.rf.rows[w] &= !(1 << r);
        }
        self.rf_of[r] = None;
    }

    /// Whether the `rf` chosen so far, whose last choice is `w` for `r`, can be part of a
    /// consistent candidate (see the module documentation): then `hb` and the forced `mo`.
    /// Without `axioms`, the axioms are left to the complete candidates (for the last read:
    /// those whose final state is already known need not be checked at all).
    fn viable(&self, r: usize, w: usize, axioms: bool) -> Option<(Rel, Rel)> {
        let x = self.x;
        if x.sb.or(&self.rf).reaches(r, w) {
            return None; // sb | rf has a cycle (`no-thin-air`), and values are not defined
        }
        let values_ok = x.reads.iter().all(|&r| read(x, &self.rf_of, r).is_none_or(|v| x.events[r].need.allows(v)));
        if !values_ok {
            return None;
        }
        let hb = hb(x, &self.rf);
        let mo = forced_mo(x, &self.rf_of, &hb)?;
        (!axioms || check(x, &self.rf, &mo, &hb).is_ok()).then_some((hb, mo))
    }

    /// With `rf` complete: for every choice of the `mo`-last write of each memory location whose
    /// final state is not known yet, look for a consistent `mo` extending the forced `mo`.
    fn choose_last_writes(&mut self, hb: &Rel, mo: &Rel) {
        let x = self.x;
        let mut regs: Vec<Vec<u64>> = x.registers.iter().map(|&k| vec![0; k]).collect();
        for (e, ev) in x.events.iter().enumerate() {
            if let Some((t, i)) = ev.reg {
                regs[t][i] = read(x, &self.rf_of, e).expect("every read has its rf");
            }
        }
        let mut state = Outcome { regs, locs: vec![0; x.mem_locs] };
        self.last_write(0, mo, hb, &mut state);
    }

    /// Choose the `mo`-last write of memory locations `l..` (a maximal one in `mo`), then look
    /// for a consistent `mo` if the final state `state` is new.
    fn last_write(&mut self, l: usize, mo: &Rel, hb: &Rel, state: &mut Outcome) {
        let x = self.x;
        if l == x.mem_locs {
            if !self.out.contains(state) && self.extend(0, mo, hb) {
                self.out.insert(state.clone());
            }
            return;
        }
        let ws = &x.writes[l];
        let in_l = ws.iter().fold(0, |s: Set, &w| s | 1 << w);
        for &last in ws {
            if mo.rows[last] & in_l != 0 {
                continue; // not maximal
            }
            let mut with_last = *mo;
            for &w in ws {
                if w != last {
                    with_last.add(w, last);
                }
            }
            let Some(with_last) = close(x, &self.rf_of, with_last) else { continue };
            state.locs[l] = written(x, &self.rf_of, last).expect("rf is complete");
            self.last_write(l + 1, &with_last, hb, state);
        }
    }

    /// Whether some total `mo` extending `mo` on locations `l..` makes a consistent candidate.
    fn extend(&self, l: usize, mo: &Rel, hb: &Rel) -> bool {
        let x = self.x;
        if l == x.writes.len() {
            return check(x, &self.rf, mo, hb).is_ok(); // the model's verdict
        }
        let mut found = false;
        linear_extensions(x, &self.rf_of, mo, &x.writes[l], &mut Vec::new(), &mut |order| {
            if found {
                return;
            }
            let mut total = *mo;
            for (i, &a) in order.iter().enumerate() {
                for &b in &order[i + 1..] {
                    total.add(a, b);
                }
            }
            // Prune when this location's order added edges (else the next check is as good).
            let pruned = total != *mo && l + 1 < x.writes.len() && check(x, &self.rf, &total, hb).is_err();
            found = !pruned && self.extend(l + 1, &total, hb);
        });
        found
    }
}

/// Call `visit` with every order of the writes `ws` (of one location) that extends `mo` and puts
/// every `RMW` right after the write it reads. `placed` is the order so far.
fn linear_extensions(
    x: &Execution,
    rf_of: &[Option<usize>],
    mo: &Rel,
    ws: &[usize],
    placed: &mut Vec<usize>,
    visit: &mut dyn FnMut(&[usize]),
) {
    if placed.len() == ws.len() {
        return visit(placed);
    }
    let reader = placed.last().and_then(|&w| ws.iter().copied().find(|&e| x.is(x.rmw, e) && rf_of[e] == Some(w)));
    for &w in ws {
        let ready = !placed.contains(&w)
            && ws.iter().all(|&before| !mo.has(before, w) || placed.contains(&before))
            && reader.is_none_or(|e| e == w);
        if ready {
            placed.push(w);
            linear_extensions(x, rf_of, mo, ws, placed, visit);
            placed.pop();
        }
    }
}

/// Called with a consistent candidate: its events, each read's write, each location's order.
type VisitCandidate<'a> = dyn FnMut(&Execution, &[Option<usize>], &[&Vec<usize>]) + 'a;

/// Every consistent candidate execution of `p`, by brute force without any pruning (the check of
/// [`outcomes`]' pruning, and what [`graphs`] counts): every guess of the compare-exchanges, every
/// `rf` (any write of the location), every `mo` (any order of each location's writes after its
/// initial one), kept when the values are right and `check` passes. `visit` gets the events, each
/// read's write and each location's order; `None` when a guess has more than `limit` candidates.
fn brute_force(p: &Program, limit: usize, visit: &mut VisitCandidate) -> Option<()> {
    let cas_count = p.threads.iter().flatten().filter(|op| matches!(op, Op::Cas { .. })).count();
    for guess in 0..1u64 << cas_count {
        let succeeds: Vec<bool> = (0..cas_count).map(|i| guess >> i & 1 == 1).collect();
        let x = Execution::new(p, &succeeds);
        let loc = |e: usize| x.events[e].loc.unwrap();
        let sources: Vec<Vec<usize>> =
            x.reads.iter().map(|&r| x.writes[loc(r)].iter().copied().filter(|&w| w != r).collect()).collect();
        let orders: Vec<Vec<Vec<usize>>> = x
            .writes
            .iter()
            .map(|ws| permutations(&ws[1..]).into_iter().map(|o| [&ws[..1], &o[..]].concat()).collect())
            .collect();
        let size = sources.iter().map(Vec::len).product::<usize>() * orders.iter().map(Vec::len).product::<usize>();
        if size > limit {
            return None;
        }
        let order_choices: Vec<Vec<usize>> = orders.iter().map(|o| (0..o.len()).collect()).collect();
        product(&sources, &mut Vec::new(), &mut |picked| {
            let (mut rf_of, mut rf) = (vec![None; x.n], Rel::empty(x.n));
            for (&r, &w) in x.reads.iter().zip(picked) {
                rf_of[r] = Some(w);
                rf.add(w, r);
            }
            if !x.sb.or(&rf).acyclic() {
                return; // no values (and no-thin-air fails)
            }
            if !x.reads.iter().all(|&r| x.events[r].need.allows(read(&x, &rf_of, r).unwrap())) {
                return;
            }
            let hb = hb(&x, &rf);
            product(&order_choices, &mut Vec::new(), &mut |chosen| {
                let mut mo = Rel::empty(x.n);
                for (l, &c) in chosen.iter().enumerate() {
                    let order = &orders[l][c];
                    for (i, &a) in order.iter().enumerate() {
                        for &b in &order[i + 1..] {
                            mo.add(a, b);
                        }
                    }
                }
                if check(&x, &rf, &mo, &hb).is_ok() {
                    let chosen: Vec<&Vec<usize>> = chosen.iter().enumerate().map(|(l, &c)| &orders[l][c]).collect();
                    visit(&x, &rf_of, &chosen);
                }
            });
        });
    }
    Some(())
}

/// How many RC11-consistent executions `p` has, as graphs: each a choice of the write every read
/// reads and of every location's modification order (a mutex's included, which its lock order
/// fixes), by brute force; `None` when that means more than `limit` candidates per guess of the
/// compare-exchanges. A search that reaches every consistent execution reaches this many
/// distinct graphs (`loom::graph_id`).
pub fn graphs(p: &Program, limit: usize) -> Option<usize> {
    let mut count = 0;
    brute_force(p, limit, &mut |_, _, _| count += 1)?;
    Some(count)
}

/// Call `f` with every choice of one element from each list.
fn product<T: Copy>(lists: &[Vec<T>], picked: &mut Vec<T>, f: &mut dyn FnMut(&[T])) {
    match lists.split_first() {
        None => f(picked),
        Some((first, rest)) => {
            for &t in first {
                picked.push(t);
                product(rest, picked, f);
                picked.pop();
            }
        }
    }
}

/// Every order of `items`.
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.is_empty() {
        return vec![vec![]];
    }
    let mut all = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        let rest: Vec<usize> = items.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &e)| e).collect();
        for mut order in permutations(&rest) {
            order.insert(0, first);
            all.push(order);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c11::sc;

    /// The RC11 outcomes of `text`, after checking they include the SC ones.
    fn rc11(text: &str) -> BTreeSet<Outcome> {
        let p = Program::parse(text).unwrap();
        let (rc11, sc) = (outcomes(&p), sc::outcomes(&p));
        assert!(sc.is_subset(&rc11), "{p}SC outcomes RC11 lacks: {:?}", sc.difference(&rc11).collect::<Vec<_>>());
        rc11
    }

    fn o(regs: &[&[u64]], locs: &[u64]) -> Outcome {
        Outcome { regs: regs.iter().map(|r| r.to_vec()).collect(), locs: locs.to_vec() }
    }

    fn set(outcomes: &[Outcome]) -> BTreeSet<Outcome> {
        outcomes.iter().cloned().collect()
    }

    /// Whether some outcome has these registers in thread `t`.
    fn some_thread_reads(outcomes: &BTreeSet<Outcome>, t: usize, regs: &[u64]) -> bool {
        outcomes.iter().any(|o| o.regs[t] == regs)
    }

    #[test]
    fn store_buffering_relaxed_allows_both_zero_and_sc_fences_forbid_it() {
        let relaxed = rc11("T0: x.store(1, rlx); y.load(rlx)\nT1: y.store(1, rlx); x.load(rlx)");
        let all: Vec<Outcome> = [0, 1].iter().flat_map(|&a| [0, 1].map(|b| o(&[&[a], &[b]], &[1, 1]))).collect();
        assert_eq!(relaxed, set(&all));
        let weak = o(&[&[0], &[0]], &[1, 1]);
        let fenced = "T0: x.store(1, rlx); fence(sc); y.load(rlx)\nT1: y.store(1, rlx); fence(sc); x.load(rlx)";
        assert!(!rc11(fenced).contains(&weak));
        assert!(!rc11("T0: x.store(1); y.load()\nT1: y.store(1); x.load()").contains(&weak));
        // One SC fence is not enough, nor release/acquire accesses.
        assert!(rc11("T0: x.store(1, rlx); fence(sc); y.load(rlx)\nT1: y.store(1, rlx); x.load(rlx)").contains(&weak));
        assert!(rc11("T0: x.store(1, rel); y.load(acq)\nT1: y.store(1, rel); x.load(acq)").contains(&weak));
    }

    #[test]
    fn message_passing_needs_release_and_acquire() {
        let stale = |text: &str| some_thread_reads(&rc11(text), 1, &[1, 0]);
        assert!(!stale("T0: x.store(1, rlx); y.store(1, rel)\nT1: y.load(acq); x.load(rlx)"));
        assert!(stale("T0: x.store(1, rlx); y.store(1, rlx)\nT1: y.load(rlx); x.load(rlx)"));
        assert!(stale("T0: x.store(1, rlx); y.store(1, rel)\nT1: y.load(rlx); x.load(rlx)"));
        assert!(stale("T0: x.store(1, rlx); y.store(1, rlx)\nT1: y.load(acq); x.load(rlx)"));
        // Fences: a release fence before the flag store, an acquire fence after the flag load.
        let fences = "T0: x.store(1, rlx); fence(rel); y.store(1, rlx)\nT1: y.load(rlx); fence(acq); x.load(rlx)";
        assert!(!stale(fences));
        assert!(stale("T0: x.store(1, rlx); fence(rel); y.store(1, rlx)\nT1: y.load(rlx); x.load(rlx)"));
        assert!(stale("T0: x.store(1, rlx); y.store(1, rlx)\nT1: y.load(rlx); fence(acq); x.load(rlx)"));
        assert!(!stale("T0: x.store(1, rlx); fence(rel); y.store(1, rlx)\nT1: y.load(acq); x.load(rlx)"));
        assert!(!stale("T0: x.store(1, rlx); y.store(1, rel)\nT1: y.load(rlx); fence(acq); x.load(rlx)"));
    }

    #[test]
    fn load_buffering_is_forbidden_by_no_thin_air() {
        let got = rc11("T0: x.load(rlx); y.store(1, rlx)\nT1: y.load(rlx); x.store(1, rlx)");
        assert_eq!(got, set(&[o(&[&[0], &[0]], &[1, 1]), o(&[&[0], &[1]], &[1, 1]), o(&[&[1], &[0]], &[1, 1])]));
    }

    #[test]
    fn iriw_with_acquire_loads_is_allowed_but_not_with_sc_accesses() {
        let non_sc = |o: &Outcome| o.regs[2] == [1, 0] && o.regs[3] == [1, 0];
        let acq =
            "T0: x.store(1, rel)\nT1: y.store(1, rel)\nT2: x.load(acq); y.load(acq)\nT3: y.load(acq); x.load(acq)";
        assert!(rc11(acq).iter().any(non_sc));
        let sc = "T0: x.store(1)\nT1: y.store(1)\nT2: x.load(); y.load()\nT3: y.load(); x.load()";
        assert!(!rc11(sc).iter().any(non_sc));
    }

    #[test]
    fn two_plus_two_writes_is_allowed_unless_sc() {
        let both_first = |text: &str| rc11(text).contains(&o(&[&[], &[]], &[1, 1]));
        assert!(both_first("T0: x.store(1, rlx); y.store(2, rlx)\nT1: y.store(1, rlx); x.store(2, rlx)"));
        assert!(both_first("T0: x.store(1, rel); y.store(2, rel)\nT1: y.store(1, rel); x.store(2, rel)"));
        assert!(!both_first("T0: x.store(1); y.store(2)\nT1: y.store(1); x.store(2)"));
    }

    #[test]
    fn coherence_shapes() {
        // CoRR: reading the new value, then the old one.
        assert!(!some_thread_reads(&rc11("T0: x.store(1, rlx)\nT1: x.load(rlx); x.load(rlx)"), 1, &[1, 0]));
        // CoWR: a thread reads its own write or a later one, never the initial value.
        assert!(!some_thread_reads(&rc11("T0: x.store(1, rlx); x.load(rlx)\nT1: x.store(2, rlx)"), 0, &[0]));
        // CoRW: a read does not read a write mo-after its own thread's later write.
        let corw = rc11("T0: x.load(rlx); x.store(1, rlx)\nT1: x.store(2, rlx)");
        assert!(!corw.contains(&o(&[&[2], &[]], &[2])));
        assert!(corw.contains(&o(&[&[2], &[]], &[1])));
        // CoWW: program order of writes is mo order.
        assert_eq!(rc11("T0: x.store(1, rlx); x.store(2, rlx)"), set(&[o(&[&[]], &[2])]));
    }

    #[test]
    fn rmw_atomicity() {
        // A swap reading 0 is right after the initial write in mo, so the store is after it.
        let got = rc11("T0: x.store(2, rel)\nT1: x.swap(1, rlx)");
        assert_eq!(got, set(&[o(&[&[], &[0]], &[2]), o(&[&[], &[2]], &[1])]));
        // Two fetch-adds never both read 0.
        let got = rc11("T0: x.fetch_add(1, rlx)\nT1: x.fetch_add(1, rlx)");
        assert_eq!(got, set(&[o(&[&[0], &[1]], &[2]), o(&[&[1], &[0]], &[2])]));
    }

    #[test]
    fn compare_exchange_success_and_failure() {
        let got = rc11("T0: x.store(1, rlx)\nT1: x.cas(1, 2, acq, acq)");
        assert_eq!(got, set(&[o(&[&[], &[0]], &[1]), o(&[&[], &[1]], &[2])]));
        let got = rc11("T0: x.cas(0, 1, rlx, rlx)\nT1: x.cas(0, 2, rlx, rlx)");
        assert_eq!(got, set(&[o(&[&[0], &[1]], &[1]), o(&[&[2], &[0]], &[2])]));
    }

    #[test]
    fn a_release_sequence_continues_through_an_rmw() {
        let data = "T0: y.store(1, rlx); x.store(1, rel)\nT1: x.fetch_add(1, rlx)\nT2: x.load(acq); y.load(rlx)";
        let got = rc11(data);
        assert!(some_thread_reads(&got, 2, &[2, 1]));
        assert!(!some_thread_reads(&got, 2, &[2, 0]));
        // A plain store in T1 ends the sequence: reading it synchronises with nothing.
        let store = "T0: y.store(1, rlx); x.store(1, rel)\nT1: x.store(2, rlx)\nT2: x.load(acq); y.load(rlx)";
        assert!(some_thread_reads(&rc11(store), 2, &[2, 0]));
    }

    #[test]
    fn a_release_sequence_continues_through_a_later_store_of_the_same_thread() {
        // rc11.cat's rs has `(sb & loc)?` (C11's definition, which C++20 dropped).
        let same = "T0: y.store(1, rlx); x.store(1, rel); x.store(2, rlx)\nT1: x.load(acq); y.load(rlx)";
        let got = rc11(same);
        assert!(some_thread_reads(&got, 1, &[2, 1]));
        assert!(!some_thread_reads(&got, 1, &[2, 0]));
        let other = "T0: y.store(1, rlx); x.store(1, rel)\nT1: x.store(2, rlx)\nT2: x.load(acq); y.load(rlx)";
        assert!(some_thread_reads(&rc11(other), 2, &[2, 0]));
    }

    #[test]
    fn w_rwc_with_two_sc_fences_is_allowed() {
        // RC11 allows it: hb is only sb (nothing is release/acquire but the fences, and no
        // fence pairs with a release fence or write through rf), so pscf has the one edge
        // T2's fence -> T0's fence (fence; sb; z.load rb z.store; sb; fence), and pscb has no
        // edge between the fences either: psc is acyclic. The enumerator agrees.
        let text = "T0: z.store(1, rlx); fence(sc); x.store(1, rlx)\n\
                    T1: x.load(rlx); y.store(1, rlx)\n\
                    T2: y.load(rlx); fence(sc); z.load(rlx)";
        assert!(rc11(text).contains(&o(&[&[], &[1], &[1, 0]], &[1, 1, 1])));
        // With an SC fence in T1 as well the cycle closes (fence0 -> fence1 -> fence2 by
        // hb; eco; hb, fence2 -> fence0 as above): forbidden.
        let three = "T0: z.store(1, rlx); fence(sc); x.store(1, rlx)\n\
                     T1: x.load(rlx); fence(sc); y.store(1, rlx)\n\
                     T2: y.load(rlx); fence(sc); z.load(rlx)";
        assert!(!rc11(three).contains(&o(&[&[], &[1], &[1, 0]], &[1, 1, 1])));
    }

    #[test]
    fn mutexes_exclude_and_order() {
        let sections = "T0: lock(m0); x.load(rlx); x.store(1, rlx); unlock(m0)\n\
                        T1: lock(m0); x.load(rlx); x.store(2, rlx); unlock(m0)";
        assert_eq!(rc11(sections), set(&[o(&[&[0], &[1]], &[2]), o(&[&[2], &[0]], &[1])]));
        let unlocked = "T0: x.load(rlx); x.store(1, rlx)\nT1: x.load(rlx); x.store(2, rlx)";
        assert!(some_thread_reads(&rc11(unlocked), 0, &[0]) && rc11(unlocked).contains(&o(&[&[0], &[0]], &[2])));
        let adds = "T0: lock(m1); x.fetch_add(1, rlx); x.fetch_add(1, rlx); unlock(m1)\n\
                    T1: lock(m1); x.fetch_add(1, rlx); x.fetch_add(1, rlx); unlock(m1)";
        assert_eq!(rc11(adds), set(&[o(&[&[0, 1], &[2, 3]], &[4]), o(&[&[2, 3], &[0, 1]], &[4])]));
        // A mutex section orders a message: seeing x = 1 after the section means seeing y = 1.
        let message = "T0: y.store(1, rlx); lock(m0); x.store(1, rlx); unlock(m0)\n\
                       T1: lock(m0); x.load(rlx); unlock(m0); y.load(rlx)";
        assert!(!some_thread_reads(&rc11(message), 1, &[1, 0]));
        assert!(some_thread_reads(&rc11(message), 1, &[1, 1]));
        let no_mutex = "T0: y.store(1, rlx); x.store(1, rlx)\nT1: x.load(rlx); y.load(rlx)";
        assert!(some_thread_reads(&rc11(no_mutex), 1, &[1, 0]));
    }

    /// A tiny deterministic random number generator (xorshift64).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn pick<T: Copy>(&mut self, from: &[T]) -> T {
            from[self.below(from.len())]
        }
    }

    /// A valid program of `threads` threads of `ops` operations each (ranges) over `locs`
    /// locations, with every kind of operation and order; every access SeqCst when `all_sc`.
    fn random_program(
        rng: &mut Rng,
        threads: std::ops::RangeInclusive<usize>,
        ops: std::ops::RangeInclusive<usize>,
        locs: std::ops::RangeInclusive<usize>,
        all_sc: bool,
    ) -> Program {
        // The larger of two draws: long threads and several locations, where weak outcomes are.
        let span = |rng: &mut Rng, r: &std::ops::RangeInclusive<usize>| {
            let n = r.end() - r.start() + 1;
            r.start() + rng.below(n).max(rng.below(n))
        };
        loop {
            let nlocs = span(rng, &locs);
            let nthreads = span(rng, &threads);
            let mut program = Vec::new();
            for _ in 0..nthreads {
                let len = span(rng, &ops);
                let mut thread = Vec::new();
                let mut held = None;
                while thread.len() < len {
                    let left = len - thread.len();
                    if let Some(m) = held {
                        if left == 1 || rng.below(3) == 0 {
                            thread.push(Op::Unlock { mutex: m });
                            held = None;
                            continue;
                        }
                    }
                    let loc = rng.below(nlocs) as u8;
                    let val = 1 + rng.below(2) as u64;
                    let mo = |rng: &mut Rng, from: &[Mo]| if all_sc { Mo::SeqCst } else { rng.pick(from) };
                    let op = match rng.below(8) {
                        0 | 1 => Op::Load { loc, mo: mo(rng, &Mo::LOAD) },
                        2 => Op::Store { loc, val, mo: mo(rng, &Mo::STORE) },
                        3 => Op::Swap { loc, val, mo: mo(rng, &Mo::RMW) },
                        4 => Op::FetchAdd { loc, val, mo: mo(rng, &Mo::RMW) },
                        5 => Op::Cas {
                            loc,
                            expected: rng.below(3) as u64,
                            new: val,
                            success: mo(rng, &Mo::RMW),
                            failure: mo(rng, &Mo::LOAD),
                        },
                        6 => Op::Fence { mo: rng.pick(&Mo::FENCE) },
                        _ if held.is_none() && left >= 2 => {
                            let m = rng.below(2) as u8;
                            held = Some(m);
                            Op::Lock { mutex: m }
                        }
                        _ => Op::Store { loc, val, mo: mo(rng, &Mo::STORE) },
                    };
                    thread.push(op);
                }
                program.push(thread);
            }
            let p = Program { locs: nlocs as u8, threads: program, t0_on_main: false };
            if p.validate().is_ok() {
                return p;
            }
        }
    }

    #[test]
    fn sc_outcomes_are_rc11_outcomes() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut weaker = 0;
        for _ in 0..1000 {
            let p = random_program(&mut rng, 2..=3, 1..=4, 1..=2, false);
            let (sc, rc11) = (sc::outcomes(&p), outcomes(&p));
            assert!(sc.is_subset(&rc11), "{p}SC outcomes RC11 lacks: {:?}", sc.difference(&rc11).collect::<Vec<_>>());
            weaker += usize::from(sc != rc11);
        }
        // The programs are not all trivial: some have outcomes SC does not.
        assert!(weaker >= 100, "only {weaker} programs with more RC11 outcomes than SC ones");
    }

    /// `p` with every access relaxed (fences and mutexes unchanged).
    fn relaxed(p: &Program) -> Program {
        let rlx = |op: &Op| match *op {
            Op::Load { loc, .. } => Op::Load { loc, mo: Mo::Relaxed },
            Op::Store { loc, val, .. } => Op::Store { loc, val, mo: Mo::Relaxed },
            Op::Swap { loc, val, .. } => Op::Swap { loc, val, mo: Mo::Relaxed },
            Op::FetchAdd { loc, val, .. } => Op::FetchAdd { loc, val, mo: Mo::Relaxed },
            Op::Cas { loc, expected, new, .. } => {
                Op::Cas { loc, expected, new, success: Mo::Relaxed, failure: Mo::Relaxed }
            }
            op => op,
        };
        Program { threads: p.threads.iter().map(|ops| ops.iter().map(rlx).collect()).collect(), ..p.clone() }
    }

    #[test]
    fn rc11_is_sc_for_programs_of_sc_accesses() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut weak_if_relaxed = 0;
        for _ in 0..600 {
            let p = random_program(&mut rng, 2..=3, 1..=4, 1..=2, true);
            assert!(p.threads.iter().flatten().all(|op| op.loc().is_none() || op.is_sc_access()));
            let sc = sc::outcomes(&p);
            assert_eq!(outcomes(&p), sc, "{p}");
            weak_if_relaxed += usize::from(outcomes(&relaxed(&p)) != sc);
        }
        // The programs are not all trivial: relaxed, some have outcomes SC does not.
        assert!(weak_if_relaxed >= 80, "only {weak_if_relaxed} programs with weak outcomes once relaxed");
    }

    /// The outcomes of `p` by brute force (every consistent candidate's final state).
    fn brute_force_outcomes(p: &Program, limit: usize) -> Option<BTreeSet<Outcome>> {
        let mut out = BTreeSet::new();
        brute_force(p, limit, &mut |x, rf_of, orders| {
            let mut regs: Vec<Vec<u64>> = x.registers.iter().map(|&k| vec![0; k]).collect();
            for (e, ev) in x.events.iter().enumerate() {
                if let Some((t, i)) = ev.reg {
                    regs[t][i] = read(x, rf_of, e).unwrap();
                }
            }
            let locs = (0..x.mem_locs).map(|l| written(x, rf_of, *orders[l].last().unwrap()).unwrap()).collect();
            out.insert(Outcome { regs, locs });
        })?;
        Some(out)
    }

    #[test]
    fn pruning_loses_no_outcome() {
        let mut rng = Rng(0x5851_f42d_4c95_7f2d);
        let (mut compared, mut weak) = (0, 0);
        while compared < 300 {
            let p = random_program(&mut rng, 2..=3, 2..=4, 2..=2, false);
            if let Some(all) = brute_force_outcomes(&p, 200_000) {
                assert_eq!(outcomes(&p), all, "{p}");
                compared += 1;
                weak += usize::from(all != sc::outcomes(&p));
            }
        }
        assert!(weak >= 30, "only {weak} programs with outcomes SC does not have");
    }

    #[test]
    fn a_program_of_the_largest_size_runs() {
        // 4 threads of 6 operations, 3 locations and 2 mutexes: 29 events.
        let p = Program::parse(
            "T0: x.cas(1, 2, rel, sc); lock(m1); y.load(); unlock(m1); lock(m1); unlock(m1)\n\
             T1: y.fetch_add(1, rel); z.swap(2, rel); z.store(1); lock(m0); z.load(acq); unlock(m0)\n\
             T2: y.load(acq); lock(m1); unlock(m1); y.fetch_add(2); z.swap(1, rlx); z.cas(2, 1, sc, acq)\n\
             T3: z.load(acq); fence(sc); y.cas(1, 2, acq_rel, rlx); fence(sc); fence(acq_rel); fence(sc)",
        )
        .unwrap();
        let (sc, rc11) = (sc::outcomes(&p), outcomes(&p));
        assert!(sc.is_subset(&rc11) && sc.len() < rc11.len(), "{} SC, {} RC11 outcomes", sc.len(), rc11.len());
    }

    /// `cargo test -p wb-models --lib c11::rc11::tests::timing -- --ignored --nocapture`
    #[test]
    #[ignore = "measures, asserts nothing"]
    fn timing() {
        use std::time::Instant;
        for (name, threads, ops, locs) in
            [("2-3 x 1-4, 1-2 locs", 2..=3, 1..=4, 1..=2), ("2-3 x 3-5, 1-3 locs", 2..=3, 3..=5, 1..=3)]
        {
            for all_sc in [false, true] {
                let mut rng = Rng(0x1234_5678_9abc_def1);
                let programs: Vec<Program> = (0..500)
                    .map(|_| random_program(&mut rng, threads.clone(), ops.clone(), locs.clone(), all_sc))
                    .collect();
                let start = Instant::now();
                let mut worst = (0.0, String::new());
                for p in &programs {
                    let one = Instant::now();
                    outcomes(p);
                    let t = one.elapsed().as_secs_f64();
                    if t > worst.0 {
                        worst = (t, p.to_string());
                    }
                }
                let avg = start.elapsed().as_secs_f64() / programs.len() as f64;
                println!(
                    "{name}, all SC {all_sc}: {:.3} ms average, worst {:.1} ms:\n{}",
                    avg * 1e3,
                    worst.0 * 1e3,
                    worst.1
                );
            }
        }
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        for _ in 0..10 {
            let p = random_program(&mut rng, 4..=4, 6..=6, 3..=3, false);
            let start = Instant::now();
            let n = outcomes(&p).len();
            let rc11 = start.elapsed().as_secs_f64();
            let start = Instant::now();
            let m = sc::outcomes(&p).len();
            let sc = start.elapsed().as_secs_f64();
            println!("{p}RC11: {n} outcomes in {:.1} ms, SC: {m} in {:.1} ms", rc11 * 1e3, sc * 1e3);
        }
    }
}
