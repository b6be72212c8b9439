//! Trace events: what each modelled kernel function read, wrote and decided.
//!
//! Recording must not change what the checkers explore: the log sits behind a `std` mutex that
//! loom and shuttle do not see (their threads run one at a time on one OS thread, and the lock is
//! never held across a scheduling point), so it adds no interleavings and no happens-before
//! edges. Events store a static template and integer arguments; text is produced only when a
//! counterexample is rendered, so a passing execution pays for a `Vec` push per event.

use std::fmt::Write as _;
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
}

/// A property violation detected while the model ran (use-after-free, IRQs enabled under an
/// irqsave lock, refcount underflow): recorded as a value, the execution goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub property: &'static str,
    pub message: String,
}

/// The event log of one execution.
#[derive(Debug)]
pub struct Trace {
    enabled: bool,
    threads: Mutex<Vec<String>>,
    events: Mutex<Vec<Event>>,
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
            events: Mutex::new(Vec::new()),
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
        self.events.lock().unwrap_or_else(|e| e.into_inner()).push(ev);
    }

    pub fn len(&self) -> usize {
        self.events.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Render every event.
    pub fn steps(&self) -> Vec<Step> {
        let threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        let events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        events
            .iter()
            .map(|ev| Step {
                thread: threads.get(ev.thread as usize).cloned().unwrap_or_else(|| "?".into()),
                function: ev.function.to_owned(),
                detail: render(ev.template, &ev.args),
            })
            .collect()
    }
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

/// Format steps as the text trace: one numbered line per step.
pub fn format_steps(steps: &[Step]) -> String {
    format_lines(steps.iter().map(|s| (s.thread.as_str(), s.function.as_str(), s.detail.as_str())))
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

    #[test]
    fn render_substitutes_in_order() {
        assert_eq!(render("slot[cpu{}] {} -> {}", &[1, 0, 2]), "slot[cpu1] 0 -> 2");
        assert_eq!(render("no args", &[]), "no args");
        assert_eq!(render("wb{} {life}, ref {}", &[2, 3, 0]), "wb2 freed, ref 0");
        assert_eq!(render("{} and {}", &[7]), "7 and {}");
        assert_eq!(render("{dirty} then {requeue}", &[1, 0]), "I_DIRTY_PAGES then clean -> off the I/O lists");
    }

    #[test]
    fn disabled_trace_records_nothing() {
        let t = Trace::disabled();
        let id = t.register_thread("w");
        t.record(id, "f", "x", &[]);
        assert!(t.is_empty());
    }
}
