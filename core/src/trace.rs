//! Trace events: what each modelled kernel function read, wrote and decided.
//!
//! Recording must not change what the checkers explore: the log sits behind a `std` mutex that
//! loom and shuttle do not see (their threads run one at a time on one OS thread, and the lock is
//! never held across a scheduling point), so it adds no interleavings and no happens-before
//! edges. Events store a static template and integer arguments; text is produced only when a
//! counterexample is rendered, so a passing execution pays for a `Vec` push per event.
//!
//! Under loom the trace also holds every access to shared protocol state (a [`Loc`]: each bit of
//! a flag word, each atomic integer), recorded as it happens, so that a rendered step can say
//! when it read a stale value ([`Stale`]): loom lets a load read an older store than the last one
//! in trace order, which looks like a model bug unless the trace says so.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Most arguments any template takes.
pub const MAX_ARGS: usize = 6;

/// One recorded step.
#[derive(Debug, Clone, Copy)]
pub struct Event {
    pub thread: u8,
    /// The kernel function the step belongs to.
    pub function: &'static str,
    /// Detail text; each `{}` is replaced by the next argument.
    pub template: &'static str,
    pub args: [i64; MAX_ARGS],
}

/// A rendered step, as reviewers and the JSON contract see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub thread: String,
    pub function: String,
    pub detail: String,
    /// The step's loads that read a stale value (loom only).
    pub stale: Vec<Stale>,
}

impl Step {
    /// A step with no stale read (the oracle's steps, which are whole calls).
    pub fn new(thread: impl Into<String>, function: impl Into<String>, detail: String) -> Self {
        Step { thread: thread.into(), function: function.into(), detail, stale: Vec::new() }
    }

    /// The detail followed by its stale-read marks, as the text trace and the pictures print it.
    pub fn marked_detail(&self) -> String {
        with_marks(&self.detail, self.stale.iter().map(Stale::to_string))
    }
}

/// `detail` followed by each mark in brackets.
pub fn with_marks(detail: &str, marks: impl Iterator<Item = String>) -> String {
    marks.fold(detail.to_owned(), |out, mark| format!("{out} [{mark}]"))
}

/// What a traced location is called: `what` with `{}` replaced by `index` (`wb{}.state`,
/// `slot[cpu{}]`) and, for a word of flag bits, the name of the bit (`:WB_has_dirty_io`).
#[derive(Debug, Clone, Copy)]
pub struct Name {
    pub what: &'static str,
    pub index: i64,
    /// Bit numbers and names of a flag word, each bit a location of its own; empty for an
    /// integer, a location as a whole.
    pub bits: &'static [(u32, &'static str)],
}

impl Name {
    /// An integer location: `what` with `{}` replaced by `index`.
    pub const fn int(what: &'static str, index: i64) -> Self {
        Name { what, index, bits: &[] }
    }
}

/// A traced memory location. The id is unique in the process, so two locations never alias,
/// not even when one is freed and its memory reused within an execution.
#[derive(Debug, Clone, Copy)]
pub struct Loc {
    id: usize,
    name: Name,
}

impl Loc {
    pub fn new(name: Name) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        Loc { id: NEXT.fetch_add(1, Ordering::Relaxed), name }
    }

    /// The location's identity (unique in the process).
    pub fn id(&self) -> usize {
        self.id
    }

    /// What the bits `mask` of the location are called, without the instance index
    /// (`wb{}.state:WB_start_dontcache`): the same field of every instance.
    pub fn field(&self, mask: u64) -> String {
        let bits: Vec<&str> = self.name.bits.iter().filter(|(b, _)| mask >> b & 1 == 1).map(|(_, n)| *n).collect();
        if self.name.bits.is_empty() || mask == u64::MAX || bits.is_empty() {
            self.name.what.to_owned()
        } else {
            format!("{}:{}", self.name.what, bits.join("|"))
        }
    }

    /// The location's name; for a flag word, the name of bit `bit`.
    fn describe(&self, bit: u32) -> String {
        let what = render(self.name.what, &[self.name.index]);
        match self.name.bits.iter().find(|(b, _)| *b == bit) {
            Some((_, bit)) => format!("{what}:{bit}"),
            None if self.name.bits.is_empty() => what,
            None => format!("{what}:bit{bit}"),
        }
    }
}

/// One access to a traced location, recorded when it happens.
#[derive(Debug, Clone, Copy)]
struct Access {
    thread: u8,
    /// Events recorded before it: it belongs to its thread's next step, the one that reports it.
    before: usize,
    loc: Loc,
    /// The bits it reads or writes: the named bits of a bit operation, every bit of an integer.
    mask: u64,
    /// The value read (loads, RMWs) and written (stores, RMWs).
    read: Option<u64>,
    written: Option<u64>,
}

/// A read (a load's, or an RMW's) of a value other than the last store to its location in trace
/// order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// The location, e.g. `wb0.state:WB_has_dirty_io`.
    pub location: String,
    /// The step (from 1) of the last store the load did not see, and the value it stored.
    pub store_step: usize,
    pub stored: i64,
    /// The step of the store the load read (its reads-from edge); `None` when it read the value
    /// the location had before its first traced store.
    pub read_from: Option<usize>,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&describe_stale(&self.location, self.store_step, self.stored, self.read_from))
    }
}

/// The mark of a stale read, e.g. `stale: step 6 stored 1 to wb0.state:WB_has_dirty_io, read the
/// initial value`.
pub fn describe_stale(location: &str, store_step: usize, stored: i64, read_from: Option<usize>) -> String {
    let read = match read_from {
        Some(step) => format!("read from step {step}"),
        None => "read the initial value".into(),
    };
    format!("stale: step {store_step} stored {stored} to {location}, {read}")
}

/// A property violation detected while the model ran (use-after-free, IRQs enabled under an
/// irqsave lock, refcount underflow): recorded as a value, the execution goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub property: &'static str,
    pub message: String,
}

/// Events and accesses, in the order they happened.
#[derive(Debug, Default)]
struct Log {
    events: Vec<Event>,
    accesses: Vec<Access>,
}

/// The event log of one execution.
#[derive(Debug)]
pub struct Trace {
    enabled: bool,
    threads: Mutex<Vec<String>>,
    log: Mutex<Log>,
    detected: Mutex<Vec<Detected>>,
    /// The configuration the execution runs, when the model chose it itself (shuttle draws one
    /// from the scenario's scope per execution).
    configuration: Mutex<Option<String>>,
}

impl Trace {
    pub fn new() -> Self {
        Trace {
            enabled: true,
            threads: Mutex::new(Vec::new()),
            log: Mutex::new(Log::default()),
            detected: Mutex::new(Vec::new()),
            configuration: Mutex::new(None),
        }
    }

    /// Name the configuration this execution runs.
    pub fn set_configuration(&self, label: String) {
        *self.configuration.lock().unwrap_or_else(|e| e.into_inner()) = Some(label);
    }

    /// The configuration named with [`Trace::set_configuration`], if any.
    pub fn configuration(&self) -> Option<String> {
        self.configuration.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// A trace that records nothing (benches on the std platform).
    pub fn disabled() -> Self {
        Trace { enabled: false, ..Trace::new() }
    }

    /// Register a thread name; returns its id for [`Trace::record`] (also the thread's index in
    /// per-thread kernel state such as RCU readers).
    pub fn register_thread(&self, name: &str) -> u8 {
        let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        threads.push(name.to_owned());
        u8::try_from(threads.len() - 1).expect("at most 256 threads per execution")
    }

    /// Record a violation detected during the run (always kept, even when events are not).
    pub fn detect(&self, property: &'static str, message: String) {
        self.detected.lock().unwrap_or_else(|e| e.into_inner()).push(Detected { property, message });
    }

    /// The violations detected so far.
    pub fn detected(&self) -> Vec<Detected> {
        self.detected.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Record an event (nothing when disabled: the check is inlined into the caller, so a
    /// disabled trace costs a branch, not a call).
    #[inline]
    pub fn record(&self, thread: u8, function: &'static str, template: &'static str, args: &[i64]) {
        if self.enabled {
            self.push(thread, function, template, args);
        }
    }

    #[inline(never)]
    fn push(&self, thread: u8, function: &'static str, template: &'static str, args: &[i64]) {
        let mut a = [0; MAX_ARGS];
        a[..args.len()].copy_from_slice(args);
        let ev = Event { thread, function, template, args: a };
        self.log.lock().unwrap_or_else(|e| e.into_inner()).events.push(ev);
    }

    /// Record an access by `thread` to `loc`'s bits `mask`: the value it read, the value it
    /// wrote (both for an RMW). Called by the platform as the access happens (loom only, see
    /// [`crate::sync::Platform::access`]).
    pub fn access(&self, thread: u8, loc: Loc, mask: u64, read: Option<u64>, written: Option<u64>) {
        if self.enabled {
            let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
            let before = log.events.len();
            log.accesses.push(Access { thread, before, loc, mask, read, written });
        }
    }

    /// Every access recorded so far, in order: (bits, value read, value written).
    #[cfg(test)]
    pub(crate) fn accesses(&self) -> Vec<(u64, Option<u64>, Option<u64>)> {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.accesses.iter().map(|a| (a.mask, a.read, a.written)).collect()
    }

    /// Each recorded event's thread and kernel function, in order ([`Trace::len`] indexes it).
    pub fn functions(&self) -> Vec<(u8, &'static str)> {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.events.iter().map(|e| (e.thread, e.function)).collect()
    }

    /// The name `thread` was registered under.
    pub fn thread_name(&self, thread: u8) -> String {
        let threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        threads.get(thread as usize).cloned().unwrap_or_else(|| "?".into())
    }

    pub fn len(&self) -> usize {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether some step has a stale read (what [`Trace::steps`] would mark, without rendering).
    pub fn has_stale_read(&self) -> bool {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        stale_reads(&log).iter().any(|marks| !marks.is_empty())
    }

    /// What each task did, whatever the interleaving: a hash of every task's name and its steps
    /// (function and detail, so the values it read) in its own order, the tasks sorted. Two
    /// executions with the same behaviour differ only in how the tasks' steps interleave and in
    /// what no step shows (how often a wait loop polled). Stale-read marks are left out: they
    /// name other steps by their place in the interleaving.
    pub fn behaviour(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let mut tasks: Vec<(&str, Vec<(&str, String)>)> = threads.iter().map(|n| (n.as_str(), Vec::new())).collect();
        for ev in &log.events {
            if let Some((_, steps)) = tasks.get_mut(ev.thread as usize) {
                steps.push((ev.function, render(ev.template, &ev.args)));
            }
        }
        tasks.sort();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        tasks.hash(&mut h);
        h.finish()
    }

    /// Render every event, with its stale reads.
    pub fn steps(&self) -> Vec<Step> {
        let threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.events
            .iter()
            .zip(stale_reads(&log))
            .map(|(ev, stale)| Step {
                thread: threads.get(ev.thread as usize).cloned().unwrap_or_else(|| "?".into()),
                function: ev.function.to_owned(),
                detail: render(ev.template, &ev.args),
                stale,
            })
            .collect()
    }
}

/// The step (index into `events`) each access belongs to: its thread's first event recorded after
/// it, the event reporting what it read or wrote. A store after its thread's last event belongs
/// to that event (the closest step before it); a load there belongs to none (the checks of a
/// model's main thread after the join, which report nothing).
fn access_steps(log: &Log) -> Vec<Option<usize>> {
    let mut by_thread: HashMap<u8, Vec<usize>> = HashMap::new();
    for (i, ev) in log.events.iter().enumerate() {
        by_thread.entry(ev.thread).or_default().push(i);
    }
    log.accesses
        .iter()
        .map(|a| {
            let steps = by_thread.get(&a.thread)?;
            let next = steps.get(steps.partition_point(|&i| i < a.before));
            next.or(steps.last().filter(|_| a.written.is_some())).copied()
        })
        .collect()
}

/// A store to a location, as the walk over the accesses keeps it.
struct Store {
    mask: u64,
    value: u64,
    step: Option<usize>,
}

/// The stale reads of each event. Walk the accesses in the order they happened (loom runs one
/// thread at a time, so the order of the log is the execution order); a read is stale when, after
/// the store it read (the last earlier one with the value it read, if any), there is a store of
/// another value that comes before it both in that order and in the order of the steps. Loom's
/// modification order is partial (CDSChecker's), so the store read need not be the last one:
/// loads, and RMWs too, may read an older store. For a flag word each bit is a location of its own.
fn stale_reads(log: &Log) -> Vec<Vec<Stale>> {
    let steps = access_steps(log);
    let mut out: Vec<Vec<Stale>> = vec![Vec::new(); log.events.len()];
    let mut stores: HashMap<usize, Vec<Store>> = HashMap::new();
    for (a, &step) in log.accesses.iter().zip(&steps) {
        let stores = stores.entry(a.loc.id).or_default();
        if let (Some(read), Some(step)) = (a.read, step) {
            let flags = !a.loc.name.bits.is_empty();
            let touched = stores.iter().fold(0, |m, s| m | s.mask) & a.mask;
            let groups =
                if flags { (0..64).map(|b| 1 << b).filter(|g| touched & g != 0).collect() } else { vec![u64::MAX] };
            for g in groups {
                let differs = |s: &Store| s.mask & g != 0 && (s.value ^ read) & g != 0;
                // The store read: the last earlier one of the value read (none: the initial value).
                let read_at = stores.iter().rposition(|s| s.mask & g != 0 && !differs(s));
                let read_from = match read_at.map(|i| stores[i].step) {
                    Some(Some(t)) => Some(t + 1),
                    // A store no step reports: neither to be named nor the initial value.
                    Some(None) => continue,
                    None => None,
                };
                // The last store after it of another value, before the read in the steps too.
                let after = read_at.map_or(0, |i| i + 1);
                let unseen = stores[after..].iter().rev().find(|s| differs(s) && s.step.is_some_and(|t| t < step));
                let Some(&Store { value, step: Some(store_step), .. }) = unseen else { continue };
                let bit = g.trailing_zeros();
                let stale = Stale {
                    location: a.loc.describe(bit),
                    store_step: store_step + 1,
                    stored: if flags { ((value >> bit) & 1) as i64 } else { value as i64 },
                    read_from,
                };
                if !out[step].contains(&stale) {
                    out[step].push(stale);
                }
            }
        }
        if let Some(value) = a.written {
            stores.push(Store { mask: a.mask, value, step });
        }
    }
    out
}

impl Default for Trace {
    fn default() -> Self {
        Trace::new()
    }
}

/// Names rendered by the `{life}` placeholder (see [`crate::wb::Life`]).
pub const LIFE_NAMES: [&str; 4] = ["live", "shut down", "released", "freed"];

/// Named placeholders: `{name}` renders the next argument as the name at that index.
const NAMED: [(&str, &[&str]); 3] = [
    ("life", &LIFE_NAMES),
    ("dirty", &["I_DIRTY_SYNC", "I_DIRTY_PAGES"]),
    ("requeue", &["clean -> off the I/O lists", "still dirty -> redirty_tail (b_dirty)"]),
];

/// Substitute placeholders, in order: `{}` renders the next argument as a number, `{life}`,
/// `{dirty}` and `{requeue}` as a name from their table ([`NAMED`]).
pub fn render(template: &str, args: &[i64]) -> String {
    let mut out = String::with_capacity(template.len() + 8);
    let mut rest = template;
    let mut next = args.iter();
    while let Some(pos) = rest.find('{') {
        let Some(len) = rest[pos..].find('}').map(|e| e + 1) else { break };
        let name = &rest[pos + 1..pos + len - 1];
        let names = NAMED.iter().find(|(n, _)| *n == name).map(|(_, names)| *names);
        out.push_str(&rest[..pos]);
        let arg = if name.is_empty() || names.is_some() { next.next() } else { None };
        match (arg, names) {
            (Some(&v), Some(names)) => out.push_str(names.get(v as usize).copied().unwrap_or("?")),
            (Some(v), None) => {
                let _ = write!(out, "{v}");
            }
            (None, _) => out.push_str(&rest[pos..pos + len]),
        }
        rest = &rest[pos + len..];
    }
    out.push_str(rest);
    out
}

/// Format steps as the text trace: one numbered line per step, stale reads marked.
pub fn format_steps(steps: &[Step]) -> String {
    let details: Vec<String> = steps.iter().map(Step::marked_detail).collect();
    format_lines(steps.iter().zip(&details).map(|(s, d)| (s.thread.as_str(), s.function.as_str(), d.as_str())))
}

/// [`format_steps`] over (thread, function, detail) triples.
pub fn format_lines<'a>(steps: impl Iterator<Item = (&'a str, &'a str, &'a str)>) -> String {
    let steps: Vec<_> = steps.collect();
    let width = steps.iter().map(|s| s.0.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (i, (thread, function, detail)) in steps.iter().enumerate() {
        let _ = writeln!(out, "{:>3}  {thread:<width$}  {function}: {detail}", i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A behaviour is each task's own steps: the interleaving and the tasks' registration order
    /// do not change it, a value read does.
    #[test]
    fn a_behaviour_is_each_tasks_steps_whatever_the_interleaving() {
        let run = |order: &[(&str, i64)], names: [&str; 2]| {
            let trace = Trace::new();
            let ids: Vec<u8> = names.iter().map(|n| trace.register_thread(n)).collect();
            for &(who, v) in order {
                let id = ids[names.iter().position(|n| *n == who).unwrap()];
                trace.record(id, "load", "read {}", &[v]);
            }
            trace.behaviour()
        };
        let a = run(&[("a", 1), ("b", 2), ("a", 3)], ["a", "b"]);
        assert_eq!(a, run(&[("b", 2), ("a", 1), ("a", 3)], ["b", "a"]));
        assert_ne!(a, run(&[("a", 3), ("b", 2), ("a", 1)], ["a", "b"]), "a task's own order matters");
        assert_ne!(a, run(&[("a", 1), ("b", 0), ("a", 3)], ["a", "b"]), "a value read matters");
    }

    #[test]
    fn render_substitutes_in_order() {
        assert_eq!(render("slot[cpu{}] {} -> {}", &[1, 0, 2]), "slot[cpu1] 0 -> 2");
        assert_eq!(render("no args", &[]), "no args");
        assert_eq!(render("wb{} {life}, ref {}", &[2, 3, 0]), "wb2 freed, ref 0");
        assert_eq!(render("{} and {}", &[7]), "7 and {}");
        assert_eq!(render("{dirty} then {requeue}", &[1, 0]), "I_DIRTY_PAGES then clean -> off the I/O lists");
    }

    const FLAGS: &[(u32, &str)] = &[(0, "A"), (1, "B")];

    /// `w` stores, `r` loads: the marks of each step.
    /// (And checks that `has_stale_read` agrees with them.)
    fn marks(trace: &Trace) -> Vec<Vec<String>> {
        let marks: Vec<Vec<String>> =
            trace.steps().iter().map(|s| s.stale.iter().map(Stale::to_string).collect()).collect();
        assert_eq!(trace.has_stale_read(), marks.iter().any(|m| !m.is_empty()));
        marks
    }

    #[test]
    fn a_load_of_an_older_store_is_stale_and_names_the_store_it_missed() {
        let t = Trace::new();
        let (w, r) = (t.register_thread("w"), t.register_thread("r"));
        let word = Loc::new(Name { what: "wb{}.state", index: 0, bits: FLAGS });
        t.access(w, word, 0b1, Some(0), Some(0b1)); // set_bit(A)
        t.record(w, "set_bit", "A", &[]);
        t.access(r, word, 0b1, Some(0), None); // test_bit(A) = 0: stale
        t.record(r, "test_bit", "A = 0", &[]);
        t.access(r, word, 0b1, Some(0b1), None); // test_bit(A) = 1: the last store
        t.record(r, "test_bit", "A = 1", &[]);
        t.access(r, word, 0b10, Some(0b1), None); // test_bit(B) = 0: never stored
        t.record(r, "test_bit", "B = 0", &[]);
        assert_eq!(
            marks(&t),
            vec![
                vec![],
                vec!["stale: step 1 stored 1 to wb0.state:A, read the initial value".to_string()],
                vec![],
                vec![]
            ]
        );
        let text = format_steps(&t.steps());
        assert!(
            text.contains("  2  r  test_bit: A = 0 [stale: step 1 stored 1 to wb0.state:A, read the initial value]\n"),
            "{text}"
        );
    }

    #[test]
    fn bits_of_one_word_are_locations_of_their_own() {
        let t = Trace::new();
        let (w, r) = (t.register_thread("w"), t.register_thread("r"));
        let word = Loc::new(Name { what: "w", index: 0, bits: FLAGS });
        t.access(w, word, 0b10, Some(0), Some(0b10)); // set_bit(B)
        t.record(w, "set_bit", "B", &[]);
        t.access(r, word, 0b1, Some(0), None); // test_bit(A) = 0 of the word before: A is current
        t.record(r, "test_bit", "A = 0", &[]);
        t.access(r, word, u64::MAX, Some(0), None); // the whole word: B is stale
        t.record(r, "word", "0", &[]);
        assert_eq!(
            marks(&t),
            vec![vec![], vec![], vec!["stale: step 1 stored 1 to w:B, read the initial value".to_string()]]
        );
    }

    #[test]
    fn an_rmw_is_a_store_and_a_read() {
        let t = Trace::new();
        let (a, b) = (t.register_thread("a"), t.register_thread("b"));
        let n = Loc::new(Name::int("count", 0));
        t.access(a, n, u64::MAX, None, Some(5)); // store 5
        t.record(a, "store", "5", &[]);
        t.access(b, n, u64::MAX, Some(5), Some(6)); // fetch_add(1) read the last store: not stale
        t.record(b, "fetch_add", "5 -> 6", &[]);
        t.access(a, n, u64::MAX, Some(5), None); // load 5: missed the RMW's 6
        t.record(a, "load", "5", &[]);
        t.access(a, n, u64::MAX, Some(5), Some(7)); // fetch_add(2) of the older 5: stale too
        t.record(a, "fetch_add", "5 -> 7", &[]);
        let missed = "stale: step 2 stored 6 to count, read from step 1".to_string();
        assert_eq!(marks(&t), vec![vec![], vec![], vec![missed.clone()], vec![missed]]);
    }

    #[test]
    fn a_store_its_thread_reports_after_the_load_is_not_named() {
        // Whole-call steps: `a` stores, `b` loads the older value and reports first, then `a`
        // reports. In the steps' order the load comes first: not stale. Loads after a thread's
        // last step (checks after the join) belong to no step.
        let t = Trace::new();
        let (a, b) = (t.register_thread("a"), t.register_thread("b"));
        let n = Loc::new(Name::int("at", 0));
        t.access(a, n, u64::MAX, None, Some(5));
        t.access(b, n, u64::MAX, Some(0), None);
        t.record(b, "track", "was at 0", &[]);
        t.record(a, "track", "at 5", &[]);
        t.access(b, n, u64::MAX, Some(0), None);
        assert_eq!(marks(&t), vec![Vec::<String>::new(); 2]);
    }

    #[test]
    fn disabled_trace_records_nothing() {
        let t = Trace::disabled();
        let id = t.register_thread("w");
        t.record(id, "f", "x", &[]);
        assert!(t.is_empty());
    }
}
