//! The LKMM ordering audit: where the mapping of kernel primitives to C11 (core/src/sync.rs) is
//! stronger than LKMM, could a loom `pass` rest on it? A rule per shape, run over what a row's
//! threads do (every access with its ordering, fence and lock section, logged over loom's
//! executions at preemption bound 0: [`crate::harness::record`]), and for each ordering it flags
//! a litmus test of the flagged accesses for herd7 to judge.
//!
//! Each access is read as the weakest kernel primitive the mapping gives its C11 form, so a rule
//! flags every place the stronger reading could matter:
//!
//! | C11 in the model | read as (LKMM) |
//! |---|---|
//! | Relaxed load, store | `READ_ONCE`, `WRITE_ONCE` |
//! | Relaxed RMW | a non-value-returning RMW (`atomic_inc`, `set_bit`): `smp_rmb` does not order it |
//! | Acquire load | `READ_ONCE` then `smp_rmb()` (`read_seqcount_begin`): orders later loads only |
//! | Release store | `smp_store_release` |
//! | Acquire, Release, AcqRel RMW | `_acquire`, `_release` RMWs |
//! | `fence(SeqCst)` | `smp_mb()`, except around a fully ordered RMW that failed (below) |
//! | `fence(Acquire)`, `fence(Release)` | `smp_rmb()`, `smp_wmb()` |
//! | mutex lock, unlock | `spin_lock`, `spin_unlock` (an unlock then a lock of the same lock orders, LKMM's `po-unlock-lock-po`) |
//!
//! A fully ordered RMW is `fence(SeqCst)`, the RMW, `fence(SeqCst)` (core/src/sync.rs). Where it
//! can fail (a compare-exchange, a `try_cmpxchg` loop that may decline), the model brackets it
//! with [`Platform::rmw_begin`](wb_core::sync::Platform::rmw_begin) and `rmw_end`, which say
//! whether it wrote: when it did not, its fences are the model's, not LKMM's, and count for
//! nothing here.
//!
//! The shapes (models/litmus/README.md, "loom stronger"):
//!
//! - **load buffering**: loom never lets a load read a store that comes later in another
//!   thread's program order. Flagged: a read and a later write of another location in one
//!   thread, unordered as read above, and the same in another thread with the locations swapped
//!   (a cycle).
//! - **failed fully ordered RMW**: two accesses of one thread ordered only by the fences of a
//!   fully ordered RMW that failed, and another thread accessing both locations so that the two
//!   orders could form a cycle (each pair of accesses to a location has a write).
//! - **`smp_rmb` after a non-returning RMW**: a Relaxed RMW, then `fence(Acquire)`, then a load,
//!   unordered as read above, and another thread writing both locations.
//!
//! Two things order a cycle's edge in LKMM that the C11 forms above do not show, and both are
//! checked, not assumed:
//!
//! - **locks**: when the two accesses of one location in a cycle are each made holding the same
//!   lock, their critical sections are ordered, and the unlock-lock hand-over orders everything
//!   before the first section's unlock before everything after the second's lock: the cycle
//!   cannot close. Such cycles are not flagged.
//! - **dependencies**: LKMM orders a read before a later write that depends on its value
//!   (control, data). The code is not seen, its executions are: two executions in which the
//!   thread did the same up to the read (the same accesses, values read and written), read
//!   different values there and the same values at every read between, show a dependency when
//!   the thread's accesses up to the write differ (the write missing, elsewhere, of another
//!   value) and none when they are the same. A read-then-write with a dependency is ordered.
//!   A flagged edge says which it saw: none, or untested (the read read one value only).

use crate::harness::record::{Access, Event, Op, Recording};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use wb_core::sync::Ordering;

/// A shape where the mapping is stronger than LKMM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    LoadBuffering,
    FailedFullyOrderedRmw,
    RmbAfterNoreturnRmw,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::LoadBuffering => "load-buffering",
            Shape::FailedFullyOrderedRmw => "failed-fully-ordered-rmw",
            Shape::RmbAfterNoreturnRmw => "rmb-after-noreturn-rmw",
        }
    }
}

/// What the executions showed about a read and a later write of one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dependency {
    /// Reading another value, the thread made the same accesses up to the write.
    Absent,
    /// The read read one value only (in that history): not tested.
    Untested,
    /// Not a read followed by a write.
    NotApplicable,
}

impl Dependency {
    pub fn name(self) -> &'static str {
        match self {
            Dependency::Absent => "none",
            Dependency::Untested => "untested",
            Dependency::NotApplicable => "-",
        }
    }
}

/// An access as a finding names it: its thread's role, kernel function, location field and C11
/// operation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    pub thread: String,
    pub function: &'static str,
    pub field: String,
    pub op: &'static str,
}

impl Site {
    fn of(thread: &str, a: &Access) -> Site {
        let op = match (a.op, a.order) {
            (Op::Load, Ordering::Relaxed) => "load",
            (Op::Load, _) => "load(acquire)",
            (Op::Store, Ordering::Relaxed) => "store",
            (Op::Store, _) => "store(release)",
            (Op::Rmw, Ordering::Relaxed) => "rmw",
            (Op::Rmw, _) => "rmw(ordered)",
            (Op::CasFail, _) => "cmpxchg(failed)",
        };
        Site { thread: role(thread), function: a.function, field: a.field.clone(), op }
    }
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} `{}` {} ({})", self.thread, self.function, self.field, self.op)
    }
}

/// A thread's role without its instance number (`writer1` -> `writer`): findings are about roles.
fn role(name: &str) -> String {
    name.trim_end_matches(|c: char| c.is_ascii_digit()).to_owned()
}

/// One flagged ordering: its shape, the accesses (the first thread's two, then the other's, each
/// in program order), what the executions showed of a dependency between each thread's two, and
/// the litmus test of the four.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    pub shape: Shape,
    pub first: [Site; 2],
    pub other: [Site; 2],
    pub dependency: [Dependency; 2],
    pub litmus: LitmusShape,
}

/// The process bodies (herd7's C dialect) and `exists` clause of a finding's litmus test.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LitmusShape {
    pub p0: Vec<String>,
    pub p1: Vec<String>,
    pub exists: String,
}

/// An event as the dependency check compares it: what was done, where, the value written, and
/// (`with_read`) the value read.
fn event_key(e: &Event, with_read: bool) -> u64 {
    let mut h = DefaultHasher::new();
    match e {
        Event::Access(a) => {
            (0u8, a.op as u8, format!("{:?}", a.order), &a.field, a.function, a.loc.map(|l| l.1), a.written)
                .hash(&mut h);
            if with_read {
                a.read.hash(&mut h);
            }
        }
        Event::Fence(o) => (1u8, format!("{o:?}")).hash(&mut h),
        Event::Lock(_) => 2u8.hash(&mut h),
        Event::Unlock(_) => 3u8.hash(&mut h),
        Event::TryLockFailed(_) => 4u8.hash(&mut h),
        Event::RmwBegin => 6u8.hash(&mut h),
        Event::RmwEnd { wrote, fenced } => (7u8, wrote, fenced).hash(&mut h),
        Event::Choice(v) => {
            5u8.hash(&mut h);
            if with_read {
                v.hash(&mut h);
            }
        }
    }
    h.finish()
}

/// How one thread's accesses are ordered, as LKMM orders the primitives they are read as.
struct ThreadView<'a> {
    name: &'a str,
    events: &'a [Event],
    /// Per event: a `fence(SeqCst)` that is the fence of a fully ordered RMW that failed.
    failed_fence: Vec<bool>,
    /// Per event: the locks held when it runs.
    held: Vec<BTreeSet<usize>>,
    /// Per event: the hash of everything the thread did before it, values read included.
    history: Vec<u64>,
}

impl<'a> ThreadView<'a> {
    fn new(name: &'a str, events: &'a [Event]) -> Self {
        // Each fully ordered RMW that did not write: its fences are the model's, not LKMM's.
        let mut failed_fence = vec![false; events.len()];
        let mut begun = None;
        for (i, e) in events.iter().enumerate() {
            match e {
                Event::RmwBegin => begun = Some(i),
                Event::RmwEnd { wrote, .. } => {
                    if let Some(b) = begun.take().filter(|_| !wrote) {
                        failed_fence[b] = true;
                        failed_fence[i] = true;
                    }
                }
                _ => {}
            }
        }
        let mut held = Vec::with_capacity(events.len());
        let mut now = BTreeSet::new();
        let mut history = Vec::with_capacity(events.len());
        let mut h = DefaultHasher::new();
        for e in events {
            if let Event::Lock(l) = e {
                now.insert(*l);
            }
            held.push(now.clone());
            if let Event::Unlock(l) = e {
                now.remove(l);
            }
            history.push(h.finish());
            event_key(e, true).hash(&mut h);
        }
        ThreadView { name, events, failed_fence, held, history }
    }

    fn access(&self, i: usize) -> &'a Access {
        match &self.events[i] {
            Event::Access(a) => a,
            _ => unreachable!("an access index"),
        }
    }

    fn accesses(&self) -> impl Iterator<Item = (usize, &'a Access)> + '_ {
        self.events.iter().enumerate().filter_map(|(i, e)| match e {
            Event::Access(a) => Some((i, a)),
            _ => None,
        })
    }

    /// Whether LKMM orders access `i` before access `j` (`i < j`, other locations) by what the
    /// C11 forms between them are read as (not by a dependency), counting the failed RMWs'
    /// fences as full fences when `count_failed`.
    fn ordered(&self, i: usize, j: usize, count_failed: bool) -> bool {
        let (a, b) = (self.access(i), self.access(j));
        let acquire_rmw = a.op == Op::Rmw && matches!(a.order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst);
        let release = b.writes() && matches!(b.order, Ordering::Release | Ordering::AcqRel | Ordering::SeqCst);
        // smp_rmb's reads: loads and value-returning RMWs (a Relaxed RMW is read as one that
        // returns nothing).
        let rmb_read =
            |x: &Access| matches!(x.op, Op::Load | Op::CasFail) || (x.op == Op::Rmw && x.order != Ordering::Relaxed);
        let rmb_ordered = rmb_read(a) && rmb_read(b);
        if acquire_rmw || release || (a.op == Op::Load && a.order != Ordering::Relaxed && rmb_ordered) {
            return true;
        }
        let mut unlocked = BTreeSet::new();
        for k in i + 1..j {
            match &self.events[k] {
                e if e.full_fence() && (count_failed || !self.failed_fence[k]) => return true,
                Event::Fence(Ordering::Acquire) if rmb_ordered => return true,
                Event::Fence(Ordering::Release) if a.writes() && b.writes() => return true,
                Event::Unlock(l) => {
                    unlocked.insert(*l);
                }
                Event::Lock(l) if unlocked.contains(l) => return true,
                _ => {}
            }
        }
        false
    }

    /// The lines a litmus process writes for what stands between events `i` and `j`.
    fn between(&self, i: usize, j: usize) -> Vec<String> {
        let mut lines = Vec::new();
        for k in i + 1..j {
            let line = match &self.events[k] {
                e if e.full_fence() && self.failed_fence[k] => "r9 = cmpxchg(z, 1, 2);",
                e if e.full_fence() => "smp_mb();",
                Event::Fence(Ordering::Acquire) => "smp_rmb();",
                Event::Fence(Ordering::Release) => "smp_wmb();",
                _ => continue,
            };
            if lines.last().map(String::as_str) != Some(line) {
                lines.push(line.to_owned());
            }
        }
        lines
    }
}

/// Whether two accesses of one location, one per thread, are each made holding a common lock.
fn locked_alike(v1: &ThreadView, i: usize, v2: &ThreadView, j: usize) -> bool {
    !v1.held[i].is_disjoint(&v2.held[j])
}

/// The line of a read of `loc` into `reg` as the weakest primitive `a`'s C11 form is read as.
fn read_line(a: &Access, loc: &str, reg: &str) -> Vec<String> {
    match (a.op, a.order) {
        (Op::Load, Ordering::Relaxed) => vec![format!("{reg} = READ_ONCE(*{loc});")],
        (Op::Load, _) => vec![format!("{reg} = READ_ONCE(*{loc});"), "smp_rmb();".into()],
        (Op::CasFail, _) => vec![format!("{reg} = cmpxchg_relaxed({loc}, 5, 6);")],
        (_, Ordering::Relaxed) => vec![format!("{reg} = atomic_fetch_add_relaxed(4, {loc});")],
        (_, Ordering::Release) => vec![format!("{reg} = atomic_fetch_add_release(4, {loc});")],
        (_, _) => vec![format!("{reg} = atomic_fetch_add_acquire(4, {loc});")],
    }
}

/// The line of a write of `v` to `loc`: an RMW as an exchange, so that the final value says
/// which write came last.
fn write_line(a: &Access, loc: &str, v: u8) -> String {
    match (a.op, a.order) {
        (Op::Store, Ordering::Relaxed) => format!("WRITE_ONCE(*{loc}, {v});"),
        (Op::Store, _) => format!("smp_store_release({loc}, {v});"),
        (_, Ordering::Relaxed) => format!("r8 = xchg_relaxed({loc}, {v});"),
        (_, Ordering::Acquire) => format!("r8 = xchg_acquire({loc}, {v});"),
        (_, Ordering::Release) => format!("r8 = xchg_release({loc}, {v});"),
        (_, _) => format!("r8 = xchg({loc}, {v});"),
    }
}

/// The lines of access `a` to `loc`: a read into `reg`, a write of `v`.
fn access_line(a: &Access, loc: &str, reg: &str, v: u8) -> Vec<String> {
    if a.writes() {
        vec![write_line(a, loc, v)]
    } else {
        read_line(a, loc, reg)
    }
}

/// (thread name, history before the read) -> (execution, thread, event) of each read.
type ReadIndex<'a> = HashMap<(&'a str, u64), Vec<(usize, usize, usize)>>;

/// Every execution's threads, and an index of the reads by thread and history, for the
/// dependency check.
struct Executions<'a> {
    views: Vec<Vec<ThreadView<'a>>>,
    reads: ReadIndex<'a>,
}

impl<'a> Executions<'a> {
    fn new(recordings: &'a [Recording]) -> Self {
        let views: Vec<Vec<ThreadView>> = recordings
            .iter()
            .map(|r| r.threads.iter().map(|t| ThreadView::new(&t.name, &t.events)).collect())
            .collect();
        let mut reads = ReadIndex::new();
        for (e, threads) in views.iter().enumerate() {
            for (t, v) in threads.iter().enumerate() {
                for (i, a) in v.accesses() {
                    if a.reads() {
                        reads.entry((v.name, v.history[i])).or_default().push((e, t, i));
                    }
                }
            }
        }
        Executions { views, reads }
    }

    /// What the executions show of a dependency of the write `j` on the read `i` of thread `t`
    /// of execution `e`: `None` for a dependency seen.
    fn dependency(&self, e: usize, t: usize, i: usize, j: usize) -> Option<Dependency> {
        let v = &self.views[e][t];
        let value = v.access(i).read;
        let mut tested = false;
        for &(e2, t2, i2) in &self.reads[&(v.name, v.history[i])] {
            let w = &self.views[e2][t2];
            if w.access(i2).read == value {
                continue;
            }
            // Walk both to the write: where the two first differ in what they do, with every
            // value read (or chosen) between the same, the read's value made the difference.
            let walk = || {
                for k in 1..=j - i {
                    let (Some(a), Some(b)) = (v.events.get(i + k), w.events.get(i2 + k)) else { return Some(false) };
                    if event_key(a, false) != event_key(b, false) {
                        return Some(false);
                    }
                    if k < j - i && event_key(a, true) != event_key(b, true) {
                        return None;
                    }
                }
                Some(true)
            };
            match walk() {
                Some(false) => return None,
                Some(true) => tested = true,
                None => {}
            }
        }
        Some(if tested { Dependency::Absent } else { Dependency::Untested })
    }

    /// The flagged orderings of execution `e`.
    fn audit(&self, e: usize, found: &mut BTreeSet<Finding>) {
        self.load_buffering(e, found);
        self.failed_rmw(e, found);
        self.rmb_after_rmw(e, found);
    }

    /// Thread `t`'s reads each followed by a write of another location that nothing orders
    /// after it, with what the executions show of a dependency.
    fn unordered_read_writes(&self, e: usize, t: usize) -> Vec<(usize, usize, Dependency)> {
        let v = &self.views[e][t];
        let acc: Vec<(usize, &Access)> = v.accesses().collect();
        let mut pairs = Vec::new();
        for (n, &(i, a)) in acc.iter().enumerate() {
            if !a.reads() {
                continue;
            }
            for &(j, b) in &acc[n + 1..] {
                if b.writes() && !a.same_location(b) && !v.ordered(i, j, false) {
                    if let Some(d) = self.dependency(e, t, i, j) {
                        pairs.push((i, j, d));
                    }
                }
            }
        }
        pairs
    }

    fn load_buffering(&self, e: usize, found: &mut BTreeSet<Finding>) {
        let views = &self.views[e];
        let pairs: Vec<Vec<(usize, usize, Dependency)>> =
            (0..views.len()).map(|t| self.unordered_read_writes(e, t)).collect();
        for (t1, ps) in pairs.iter().enumerate() {
            let v1 = &views[t1];
            for &(i1, j1, d1) in ps {
                let (r1, w1) = (v1.access(i1), v1.access(j1));
                for (t2, qs) in pairs.iter().enumerate().filter(|(t2, _)| *t2 != t1) {
                    let v2 = &views[t2];
                    for &(i2, j2, d2) in qs {
                        let (r2, w2) = (v2.access(i2), v2.access(j2));
                        if !r2.same_location(w1) || !w2.same_location(r1) {
                            continue;
                        }
                        if locked_alike(v1, i1, v2, j2) || locked_alike(v2, i2, v1, j1) {
                            continue;
                        }
                        let mut p0 = read_line(r1, "x", "r0");
                        p0.extend(v1.between(i1, j1));
                        p0.push(write_line(w1, "y", 1));
                        let mut p1 = read_line(r2, "y", "r1");
                        p1.extend(v2.between(i2, j2));
                        p1.push(write_line(w2, "x", 2));
                        let f = Finding {
                            shape: Shape::LoadBuffering,
                            first: [Site::of(v1.name, r1), Site::of(v1.name, w1)],
                            other: [Site::of(v2.name, r2), Site::of(v2.name, w2)],
                            dependency: [d1, d2],
                            litmus: LitmusShape { p0, p1, exists: "0:r0=2 /\\ 1:r1=1".into() },
                        };
                        // A cycle is found from both ends: keep the one whose first thread sorts first.
                        if (&f.first, f.dependency[0]) <= (&f.other, f.dependency[1]) {
                            found.insert(f);
                        }
                    }
                }
            }
        }
    }

    fn failed_rmw(&self, e: usize, found: &mut BTreeSet<Finding>) {
        let views = &self.views[e];
        for (t1, v1) in views.iter().enumerate() {
            if !v1.failed_fence.contains(&true) {
                continue;
            }
            let acc: Vec<(usize, &Access)> = v1.accesses().collect();
            for (n, &(i, a)) in acc.iter().enumerate() {
                for &(j, b) in &acc[n + 1..] {
                    if a.same_location(b) || v1.ordered(i, j, false) || !v1.ordered(i, j, true) {
                        continue;
                    }
                    let d1 = if a.reads() && b.writes() {
                        match self.dependency(e, t1, i, j) {
                            Some(d) => d,
                            None => continue,
                        }
                    } else {
                        Dependency::NotApplicable
                    };
                    for (_, v2) in views.iter().enumerate().filter(|(t2, _)| *t2 != t1) {
                        let acc2: Vec<(usize, &Access)> = v2.accesses().collect();
                        for (m, &(k, c)) in acc2.iter().enumerate() {
                            if !c.same_location(b) || !(c.writes() || b.writes()) || locked_alike(v1, j, v2, k) {
                                continue;
                            }
                            let Some(&(_, d)) = acc2[m + 1..].iter().find(|(l, d)| {
                                d.same_location(a) && (d.writes() || a.writes()) && !locked_alike(v2, *l, v1, i)
                            }) else {
                                continue;
                            };
                            let mut p0 = access_line(a, "x", "r0", 1);
                            p0.extend(v1.between(i, j));
                            p0.extend(access_line(b, "y", "r1", 1));
                            let mut p1 = access_line(c, "y", "r2", 2);
                            p1.push("smp_mb();".into());
                            p1.extend(access_line(d, "x", "r3", 2));
                            found.insert(Finding {
                                shape: Shape::FailedFullyOrderedRmw,
                                first: [Site::of(v1.name, a), Site::of(v1.name, b)],
                                other: [Site::of(v2.name, c), Site::of(v2.name, d)],
                                dependency: [d1, Dependency::NotApplicable],
                                litmus: LitmusShape { p0, p1, exists: cycle_exists(a, b, c, d) },
                            });
                        }
                    }
                }
            }
        }
    }

    fn rmb_after_rmw(&self, e: usize, found: &mut BTreeSet<Finding>) {
        let views = &self.views[e];
        for (t1, v1) in views.iter().enumerate() {
            let acc: Vec<(usize, &Access)> = v1.accesses().collect();
            for (n, &(i, a)) in acc.iter().enumerate() {
                if !(a.op == Op::Rmw && a.order == Ordering::Relaxed) {
                    continue;
                }
                for &(j, b) in &acc[n + 1..] {
                    let rmb_between = (i + 1..j).any(|k| matches!(v1.events[k], Event::Fence(Ordering::Acquire)));
                    if !rmb_between
                        || !matches!(b.op, Op::Load | Op::CasFail)
                        || a.same_location(b)
                        || v1.ordered(i, j, false)
                    {
                        continue;
                    }
                    for (_, v2) in views.iter().enumerate().filter(|(t2, _)| *t2 != t1) {
                        let writes: Vec<(usize, &Access)> = v2.accesses().filter(|(_, x)| x.writes()).collect();
                        let Some(c) =
                            writes.iter().position(|(k, c)| c.same_location(b) && !locked_alike(v1, j, v2, *k))
                        else {
                            continue;
                        };
                        let Some(&(_, d)) =
                            writes[c + 1..].iter().find(|(l, d)| d.same_location(a) && !locked_alike(v1, i, v2, *l))
                        else {
                            continue;
                        };
                        let mut p0 = vec!["atomic_add(2, x);".to_owned()];
                        p0.extend(v1.between(i, j));
                        p0.extend(read_line(b, "y", "r1"));
                        let p1 = vec![write_line(writes[c].1, "y", 1), "smp_wmb();".into(), write_line(d, "x", 1)];
                        found.insert(Finding {
                            shape: Shape::RmbAfterNoreturnRmw,
                            first: [Site::of(v1.name, a), Site::of(v1.name, b)],
                            other: [Site::of(v2.name, writes[c].1), Site::of(v2.name, d)],
                            dependency: [Dependency::NotApplicable; 2],
                            litmus: LitmusShape { p0, p1, exists: "x=3 /\\ 0:r1=0".into() },
                        });
                    }
                }
            }
        }
    }
}

/// The `exists` clause of the cycle P0: a (x) -> b (y); P1: c (y) -> d (x), P0 writing 1 and
/// P1 writing 2, registers r0..r3 for the reads of a, b, c, d. Each edge between the processes
/// goes from an access to one that does not see it: a read reads the other's write, a read
/// misses it (reads 0), or of two writes the second is final.
fn cycle_exists(a: &Access, b: &Access, c: &Access, d: &Access) -> String {
    let edge = |from: &Access, from_reg: &str, to: &Access, to_reg: &str, loc: &str, from_v: u8, to_v: u8| match (
        from.writes(),
        to.writes(),
    ) {
        (true, false) => format!("{to_reg}={from_v}"),
        (false, true) => format!("{from_reg}=0"),
        _ => format!("{loc}={to_v}"),
    };
    format!("{} /\\ {}", edge(b, "0:r1", c, "1:r2", "y", 1, 2), edge(d, "1:r3", a, "0:r0", "x", 2, 1))
}

/// Findings with how many executions showed each.
pub type Findings = BTreeMap<Finding, u64>;

/// Every finding of `recordings` (the executions of one model), with how many executions
/// showed it.
pub fn audit(recordings: &[Recording]) -> Findings {
    let executions = Executions::new(recordings);
    let mut out = Findings::new();
    for e in 0..recordings.len() {
        let mut found = BTreeSet::new();
        executions.audit(e, &mut found);
        for f in found {
            *out.entry(f).or_insert(0) += 1;
        }
    }
    out
}

/// Every finding of `model`'s executions at preemption bound 0 (every configuration and
/// placement), and how many executions there were.
pub fn audit_model<M: crate::harness::Model>(model: &M, bounds: &crate::bounds::Bounds) -> (Findings, u64) {
    let recordings = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let r = recordings.clone();
    crate::harness::record::loom_recordings(model, bounds, move |rec| {
        r.lock().unwrap_or_else(|e| e.into_inner()).push(rec.kernel_only());
    });
    let recordings = std::mem::take(&mut *recordings.lock().unwrap_or_else(|e| e.into_inner()));
    (audit(&recordings), recordings.len() as u64)
}

/// A matrix row's audit.
#[derive(Debug, Clone)]
pub struct RowAudit {
    pub scenario: &'static str,
    pub revision: &'static str,
    pub findings: Findings,
    /// The executions audited.
    pub executions: u64,
}

/// The audit of every loom row expected to pass (`only`: of one scenario, or one revision of
/// it), at `bounds`' tier.
pub fn audit_rows(bounds: &crate::bounds::Bounds, only: Option<(&str, Option<&str>)>) -> Result<Vec<RowAudit>, String> {
    use crate::outcome::Checker;
    let all = crate::registry::scenarios();
    if let Some((name, revision)) = only {
        let s = all.iter().find(|s| s.info().name == name).ok_or_else(|| {
            crate::scenario::unknown("scenario", name, &all.iter().map(|s| s.info().name).collect::<Vec<_>>())
        })?;
        if let Some(r) = revision {
            let info = s.info();
            info.revision(r).ok_or_else(|| crate::scenario::unknown("revision", r, &info.revision_names()))?;
        }
    }
    let mut rows = Vec::new();
    for s in all {
        let info = s.info();
        if only.is_some_and(|(name, _)| name != info.name) {
            continue;
        }
        for r in &info.revisions {
            let chosen = only.and_then(|(_, r)| r).is_none_or(|want| want == r.name);
            if !chosen {
                continue;
            }
            if !r.expect(Checker::Loom, bounds.tier).violated.is_empty() {
                if only.and_then(|(_, r)| r).is_some() {
                    return Err(format!(
                        "{} {} is not expected to pass under loom: the audit is about what a pass rests on",
                        info.name, r.name
                    ));
                }
                continue;
            }
            let (findings, executions) = s.lkmm_audit(r.name, bounds)?;
            rows.push(RowAudit { scenario: info.name, revision: r.name, findings, executions });
        }
    }
    Ok(rows)
}

/// What `wbcheck audit` prints: per row, the executions audited and its flagged orderings.
pub fn summary(rows: &[RowAudit], tests: &[AuditTest]) -> String {
    let mut s = String::new();
    for row in rows {
        let of_row: Vec<&AuditTest> =
            tests.iter().filter(|t| t.scenario == row.scenario && t.revision == row.revision).collect();
        let _ = writeln!(
            s,
            "{} {}: {} executions at preemption bound 0, {}",
            row.scenario,
            row.revision,
            row.executions,
            if of_row.is_empty() { "nothing flagged".to_owned() } else { format!("{} litmus tests", of_row.len()) }
        );
        for t in of_row {
            let _ = writeln!(s, "  {}", t.name());
            for (first, other, dep, n) in &t.findings {
                let _ =
                    writeln!(s, "    P0 {} ; {}  [dependency: {}; {n} executions]", first[0], first[1], dep[0].name());
                let _ = writeln!(s, "    P1 {} ; {}  [dependency: {}]", other[0], other[1], dep[1].name());
            }
        }
    }
    s
}

/// A flagged pair of pairs: P0's two accesses, P1's two, the dependencies seen, the executions.
pub type Flagged = ([Site; 2], [Site; 2], [Dependency; 2], u64);

/// One litmus test of the audit: the findings of one row that share a shape and a litmus body.
#[derive(Debug, Clone)]
pub struct AuditTest {
    pub scenario: &'static str,
    pub revision: &'static str,
    pub shape: Shape,
    /// The accesses flagged (P0's two, P1's two), the dependencies seen (a dependency shown
    /// absent in one history counts as absent), and the executions that showed them.
    pub findings: Vec<Flagged>,
    pub litmus: LitmusShape,
    /// Its number among the row's tests of its shape, from 1.
    pub number: usize,
}

impl AuditTest {
    pub fn name(&self) -> String {
        format!("audit+{}+{}+{}+{}", self.scenario, self.revision, self.shape.name(), self.number)
    }

    pub fn file_name(&self) -> String {
        format!("{}.litmus", self.name())
    }

    /// The C litmus test. Its `Result:` line is the audit's prediction: the rule flagged the
    /// ordering because LKMM, as the accesses are read, lets the cycle close.
    pub fn render(&self) -> String {
        let mut s = format!("C {}\n\n(*\n * Result: Sometimes\n *\n", self.name());
        let _ = writeln!(
            s,
            " * wbcheck's LKMM ordering audit (models/src/litmus/audit.rs), {} {}, shape {}.",
            self.scenario,
            self.revision,
            self.shape.name()
        );
        s.push_str(" * The flagged accesses (P0's two, then P1's), and the dependency the executions showed\n");
        s.push_str(" * between each process's read and later write:\n");
        for (first, other, dep, _) in &self.findings {
            let _ = writeln!(s, " *   P0 {} ; {}", first[0], first[1]);
            let _ = writeln!(s, " *   P1 {} ; {}", other[0], other[1]);
            let _ = writeln!(s, " *   dependency: P0 {}, P1 {}", dep[0].name(), dep[1].name());
        }
        s.push_str(" * Each access is the weakest kernel primitive the mapping gives its C11 form.\n *)\n\n{}\n\n");
        for (i, body) in [&self.litmus.p0, &self.litmus.p1].into_iter().enumerate() {
            let _ = writeln!(s, "P{i}(int *x, int *y, int *z)\n{{");
            let regs: BTreeSet<&str> = body.iter().filter_map(|l| l.split_once(" = ").map(|(r, _)| r.trim())).collect();
            for r in regs {
                let _ = writeln!(s, "\tint {r};");
            }
            for l in body {
                let _ = writeln!(s, "\t{l}");
            }
            s.push_str("}\n\n");
        }
        let _ = writeln!(s, "exists ({})", self.litmus.exists);
        s
    }
}

/// The audit's litmus tests: per row, one per shape and litmus body, in the order of the rows.
pub fn tests(rows: &[RowAudit]) -> Vec<AuditTest> {
    let mut out = Vec::new();
    for row in rows {
        let mut by_body: BTreeMap<(Shape, &LitmusShape), AuditTest> = BTreeMap::new();
        for (f, n) in &row.findings {
            let t = by_body.entry((f.shape, &f.litmus)).or_insert_with(|| AuditTest {
                scenario: row.scenario,
                revision: row.revision,
                shape: f.shape,
                findings: Vec::new(),
                litmus: f.litmus.clone(),
                number: 0,
            });
            match t.findings.iter_mut().find(|(a, b, _, _)| *a == f.first && *b == f.other) {
                Some((_, _, dep, count)) => {
                    *dep = [dep[0].min(f.dependency[0]), dep[1].min(f.dependency[1])];
                    *count += n;
                }
                None => t.findings.push((f.first.clone(), f.other.clone(), f.dependency, *n)),
            }
        }
        let mut numbers: BTreeMap<Shape, usize> = BTreeMap::new();
        for (_, mut t) in by_body {
            let n = numbers.entry(t.shape).or_insert(0);
            *n += 1;
            t.number = *n;
            out.push(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::record::ThreadRecord;
    use Ordering::{Acquire, Relaxed, SeqCst};

    fn ld(loc: usize, v: u64) -> Event {
        Event::Access(Access::of(loc, Op::Load, Relaxed, Some(v), None))
    }

    fn st(loc: usize, v: u64) -> Event {
        Event::Access(Access::of(loc, Op::Store, Relaxed, None, Some(v)))
    }

    fn rec(threads: Vec<Vec<Event>>) -> Recording {
        let threads =
            threads.into_iter().enumerate().map(|(i, events)| ThreadRecord { name: format!("t{i}"), events }).collect();
        let mut r = Recording::default();
        r.threads = threads;
        r
    }

    fn shapes(recordings: &[Recording]) -> Vec<(Shape, [Dependency; 2])> {
        audit(recordings).keys().map(|f| (f.shape, f.dependency)).collect()
    }

    /// LB: x=0 read, then y written, in both directions.
    fn lb(mid: Vec<Event>) -> Recording {
        let mut t0 = vec![ld(0, 0)];
        t0.extend(mid.clone());
        t0.push(st(1, 1));
        let mut t1 = vec![ld(1, 0)];
        t1.extend(mid);
        t1.push(st(0, 1));
        rec(vec![t0, t1])
    }

    #[test]
    fn load_buffering_is_flagged_unless_ordered() {
        assert_eq!(shapes(&[lb(vec![])]), vec![(Shape::LoadBuffering, [Dependency::Untested; 2])]);
        assert_eq!(shapes(&[lb(vec![Event::Fence(Acquire)])]).len(), 1, "smp_rmb does not order a read before a write");
        assert!(shapes(&[lb(vec![Event::Fence(SeqCst)])]).is_empty(), "smp_mb does");
        assert!(shapes(&[lb(vec![Event::Unlock(7), Event::Lock(7)])]).is_empty(), "po-unlock-lock-po does");
        assert_eq!(shapes(&[lb(vec![Event::Unlock(7), Event::Lock(8)])]).len(), 1, "two locks do not");
    }

    #[test]
    fn a_common_lock_breaks_the_cycle() {
        // y read and written under lock 5 by both threads, x outside it.
        let t0 = vec![ld(0, 0), Event::Lock(5), st(1, 1), Event::Unlock(5)];
        let t1 = vec![Event::Lock(5), ld(1, 0), Event::Unlock(5), st(0, 1)];
        assert!(shapes(&[rec(vec![t0, t1])]).is_empty());
        // x's read and write unlocked: the cycle stands.
        let t1 = vec![ld(1, 0), st(0, 1)];
        let t0 = vec![ld(0, 0), Event::Lock(5), st(1, 1), Event::Unlock(5)];
        assert_eq!(shapes(&[rec(vec![t0, t1])]).len(), 1);
    }

    #[test]
    fn a_dependency_seen_in_another_execution_orders_the_pair() {
        // t0 writes y only when it read x=0: reading x=1 it does not.
        let dependent = [lb(vec![]), rec(vec![vec![ld(0, 1)], vec![ld(1, 0), st(0, 1)]])];
        assert!(shapes(&dependent).is_empty());
        // The write of y=1 happens whatever x read: no dependency; t1's read read one value.
        let independent = [lb(vec![]), rec(vec![vec![ld(0, 1), st(1, 1)], vec![ld(1, 0), st(0, 1)]])];
        let found = shapes(&independent);
        assert!(found.contains(&(Shape::LoadBuffering, [Dependency::Absent, Dependency::Untested])), "{found:?}");
        // The value written depends on the value read (data dependency).
        let data = [lb(vec![]), rec(vec![vec![ld(0, 1), st(1, 2)], vec![ld(1, 0), st(0, 1)]])];
        assert!(shapes(&data).is_empty());
        // A read between that read another value: the comparison says nothing.
        let t0 = |x, z| vec![ld(0, x), ld(2, z), st(1, 1)];
        let noisy = [rec(vec![t0(0, 0), vec![ld(1, 0), st(0, 1)]]), rec(vec![t0(1, 1), vec![ld(1, 0)]])];
        assert!(shapes(&noisy).contains(&(Shape::LoadBuffering, [Dependency::Untested; 2])));
    }

    fn failed_cmpxchg(loc: usize) -> Vec<Event> {
        let cas = Access::of(loc, Op::CasFail, Relaxed, Some(0), None);
        vec![Event::RmwBegin, ld(loc, 0), Event::Access(cas), Event::RmwEnd { wrote: false, fenced: false }]
    }

    #[test]
    fn a_failed_fully_ordered_rmw_orders_nothing() {
        // SB: t0 stores x, fails a cmpxchg on z, loads y; t1 stores y, smp_mb, loads x.
        let mut t0 = vec![st(0, 1)];
        t0.extend(failed_cmpxchg(2));
        t0.push(ld(1, 0));
        let t1 = vec![st(1, 1), Event::Fence(SeqCst), ld(0, 0)];
        let found = audit(&[rec(vec![t0.clone(), t1.clone()])]);
        assert_eq!(found.keys().map(|f| f.shape).collect::<Vec<_>>(), vec![Shape::FailedFullyOrderedRmw]);
        let f = found.keys().next().unwrap();
        assert_eq!(f.litmus.exists, "0:r1=0 /\\ 1:r3=0");
        // A successful one is a full fence.
        let mut ok = t0.clone();
        ok[3] = Event::Access(Access::of(2, Op::Rmw, Ordering::AcqRel, Some(0), Some(1)));
        ok[4] = Event::RmwEnd { wrote: true, fenced: true };
        assert!(audit(&[rec(vec![ok, t1.clone()])]).is_empty());
        // So is an smp_mb() that a failed one follows: its fences count for nothing, the mb does.
        let mut mb = t0.clone();
        mb.insert(1, Event::Fence(SeqCst));
        assert!(audit(&[rec(vec![mb, t1])]).is_empty());
    }

    #[test]
    fn smp_rmb_does_not_order_a_noreturn_rmw() {
        let t0 =
            vec![Event::Access(Access::of(0, Op::Rmw, Relaxed, Some(1), Some(2))), Event::Fence(Acquire), ld(1, 0)];
        let t1 = vec![st(1, 1), Event::Fence(Ordering::Release), st(0, 1)];
        assert_eq!(
            shapes(&[rec(vec![t0, t1.clone()])]),
            vec![(Shape::RmbAfterNoreturnRmw, [Dependency::NotApplicable; 2])]
        );
        // A load before the smp_rmb is ordered.
        let t0 = vec![ld(0, 1), Event::Fence(Acquire), ld(1, 0)];
        assert!(shapes(&[rec(vec![t0, t1])]).is_empty());
    }
}
