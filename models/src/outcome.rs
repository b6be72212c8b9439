//! What a checker run returns: executions, time, whether the search finished, and the first
//! counterexample of each violated property. Violations are values: a run keeps exploring after
//! one, until every property has failed or the search ends.

use crate::harness::units::{Found, UnitSearch};
use std::collections::BTreeSet;
use wb_core::trace::Step;

/// The four checkers of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Checker {
    Loom,
    ShuttlePct,
    ShuttleRandom,
    Oracle,
}

impl Checker {
    pub const ALL: [Checker; 4] = [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom, Checker::Oracle];

    pub fn name(self) -> &'static str {
        match self {
            Checker::Loom => "loom",
            Checker::ShuttlePct => "shuttle-pct",
            Checker::ShuttleRandom => "shuttle-random",
            Checker::Oracle => "oracle",
        }
    }

    pub fn from_name(s: &str) -> Option<Checker> {
        Checker::ALL.into_iter().find(|c| c.name() == s)
    }
}

spelled_by_name!(Checker, "checker");

/// A property violated by one execution, found by the scenario's check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub property: &'static str,
    /// What was observed, with the values: readable without the source.
    pub message: String,
}

/// The pseudo-property reported when a model thread panics or the checker itself fails
/// (deadlock, step limit): never expected, so it always shows as a mismatch.
pub const CHECKER_ERROR: &str = "checker-error";

/// The first failing execution found for one property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    pub property: &'static str,
    pub message: String,
    /// The CPU placement of the execution (loom enumerates placements outside the model).
    pub placement: String,
    /// The configuration of the scenario's scope the execution ran (empty for a scenario with
    /// one configuration).
    pub configuration: String,
    pub steps: Vec<Step>,
    /// A handle `wbcheck replay` accepts, where the checker has one.
    pub replay: Option<String>,
    /// When the run found it (loom and shuttle; for loom, the run at the configured bound).
    pub found: Option<FirstFound>,
    /// loom: the smallest preemption bound at which this property is violated; the steps and
    /// replay handle are that bound's first counterexample.
    pub min_preemptions: Option<usize>,
}

/// The result of one (scenario, revision, checker) run.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub executions: u64,
    /// How many configurations of the scenario's scope the run covered.
    pub configurations: u64,
    pub millis: u64,
    /// The search was cut short (time or iteration limit) before it finished.
    pub bounded: bool,
    /// One counterexample per violated property, in the order found: the first (shuttle: the
    /// shortest found; loom: the first at the smallest preemption bound).
    pub counterexamples: Vec<Counterexample>,
    /// The bounds used, as (name, value) pairs for the JSON `bounds` object.
    pub bounds: Vec<(String, u64)>,
    /// loom, when the run was some units of the row ([`crate::bounds::Bounds::loom_units`]):
    /// the unit searches, for combining with the other parts.
    pub loom_part: Option<LoomPart>,
}

/// Some units of a loom row and their searches ([`crate::harness::units`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LoomPart {
    /// How many units the whole row has.
    pub units: usize,
    /// The units this part ran.
    pub selected: Vec<usize>,
    /// How many properties the row's loom search checks (it stops once all are violated).
    pub properties: usize,
    pub ledger: Vec<UnitSearch<Counterexample>>,
}

impl Found for Counterexample {
    fn property(&self) -> &str {
        self.property
    }

    fn rank(&self) -> (bool, usize) {
        crate::harness::rank(&self.steps, |s| !s.stale.is_empty())
    }

    fn found(&self) -> Option<FirstFound> {
        self.found
    }

    fn min_preemptions(&self) -> Option<usize> {
        self.min_preemptions
    }

    fn set_found(&mut self, found: Option<FirstFound>, min_preemptions: Option<usize>) {
        (self.found, self.min_preemptions) = (found, min_preemptions);
    }
}

/// Executions run and time spent up to and including a counterexample's execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FirstFound {
    pub executions: u64,
    pub micros: u64,
}

impl Counterexample {
    /// A counterexample of a sequential checker (the oracle): no replay handle, no search position.
    pub fn sequential(property: &'static str, message: String, placement: String, steps: Vec<Step>) -> Self {
        Counterexample {
            property,
            message,
            placement,
            configuration: String::new(),
            steps,
            replay: None,
            found: None,
            min_preemptions: None,
        }
    }
}

impl Outcome {
    pub fn violated(&self) -> BTreeSet<&'static str> {
        self.counterexamples.iter().map(|c| c.property).collect()
    }

    pub fn counterexample(&self, property: &str) -> Option<&Counterexample> {
        self.counterexamples.iter().find(|c| c.property == property)
    }

    /// Keep `cx` if its property has no counterexample yet; returns whether it was kept.
    pub fn keep_first(&mut self, cx: Counterexample) -> bool {
        if self.counterexample(cx.property).is_some() {
            return false;
        }
        self.counterexamples.push(cx);
        true
    }
}
