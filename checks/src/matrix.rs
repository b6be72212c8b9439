//! The verdict matrix: every (scenario, revision, checker) row, its expected and observed
//! verdicts, in the JSON contract of DESIGN.md §5.

use crate::oracle_check;
use serde::Serialize;
use std::collections::BTreeMap;
use wb_models::bounds::Bounds;
use wb_models::outcome::{Checker, Counterexample, FirstFound, Outcome};
use wb_models::scenario::{self, unknown, Scenario};

#[derive(Debug, Clone, Serialize)]
pub struct StepJson {
    pub thread: String,
    pub function: String,
    pub detail: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CounterexampleJson {
    pub message: String,
    pub placement: String,
    pub steps: Vec<StepJson>,
    pub replay: Option<String>,
    pub found: Option<FoundJson>,
    /// loom: the smallest preemption bound at which the property is violated (these steps).
    pub min_preemptions: Option<usize>,
}

impl From<&Counterexample> for CounterexampleJson {
    fn from(c: &Counterexample) -> Self {
        CounterexampleJson {
            message: c.message.clone(),
            placement: c.placement.clone(),
            steps: c
                .steps
                .iter()
                .map(|s| StepJson { thread: s.thread.clone(), function: s.function.clone(), detail: s.detail.clone() })
                .collect(),
            replay: c.replay.clone(),
            found: c.found.map(FoundJson::from),
            min_preemptions: c.min_preemptions,
        }
    }
}

/// One row of the matrix.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub scenario: String,
    pub revision: String,
    pub checker: String,
    pub expected: &'static str,
    pub verdict: &'static str,
    pub executions: u64,
    pub millis: u64,
    pub bounds: BTreeMap<String, u64>,
    /// The first violated property.
    pub property: Option<String>,
    pub counterexample: Option<CounterexampleJson>,
    pub violated: Vec<String>,
    pub expected_violated: Vec<String>,
    pub counterexamples: BTreeMap<String, CounterexampleJson>,
    /// Executions and milliseconds up to the first counterexample (loom and shuttle).
    pub first_counterexample: Option<FoundJson>,
    /// loom: the smallest preemption bound at which the row fails (the least over its
    /// counterexamples).
    pub min_preemptions: Option<usize>,
    pub matched: bool,
}

/// Executions and milliseconds up to and including a counterexample's execution.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FoundJson {
    pub executions: u64,
    pub ms: f64,
}

impl From<FirstFound> for FoundJson {
    fn from(f: FirstFound) -> Self {
        FoundJson { executions: f.executions, ms: f.micros as f64 / 1000.0 }
    }
}

impl Row {
    pub fn new(
        scenario: &str,
        revision: &str,
        checker: Checker,
        expected_violated: Vec<&str>,
        outcome: &Outcome,
    ) -> Row {
        let violated: Vec<String> = outcome.violated().into_iter().map(String::from).collect();
        let expected_violated: Vec<String> = expected_violated.into_iter().map(String::from).collect();
        // A violation is established even by a partial search; a pass only by a finished one.
        let verdict = if outcome.bounded {
            "bounded"
        } else if violated.is_empty() {
            "pass"
        } else {
            "fail"
        };
        let matched = verdict != "bounded" && violated == expected_violated;
        Row {
            scenario: scenario.into(),
            revision: revision.into(),
            checker: checker.name().into(),
            expected: if expected_violated.is_empty() { "pass" } else { "fail" },
            verdict,
            executions: outcome.executions,
            millis: outcome.millis,
            bounds: outcome.bounds.iter().cloned().collect(),
            property: outcome.counterexamples.first().map(|c| c.property.to_string()),
            counterexample: outcome.counterexamples.first().map(CounterexampleJson::from),
            violated,
            expected_violated,
            counterexamples: outcome.counterexamples.iter().map(|c| (c.property.to_string(), c.into())).collect(),
            first_counterexample: outcome.counterexamples.first().and_then(|c| c.found).map(FoundJson::from),
            min_preemptions: outcome.counterexamples.iter().filter_map(|c| c.min_preemptions).min(),
            matched,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub total: usize,
    pub matched: usize,
    pub mismatched: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    pub tool: &'static str,
    pub version: &'static str,
    pub tier: &'static str,
    pub results: Vec<Row>,
    pub summary: Summary,
}

/// Which rows to run. Empty lists mean "all".
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub scenarios: Vec<String>,
    pub revisions: Vec<String>,
    pub checkers: Vec<Checker>,
}

/// Resolve a scenario name or fail with the valid names.
pub fn find_scenario(name: &str) -> Result<&'static dyn Scenario, String> {
    scenario::find(name).ok_or_else(|| {
        let names: Vec<&str> = scenario::scenarios().iter().map(|s| s.info().name).collect();
        unknown("scenario", name, &names)
    })
}

/// Resolve a checker name or fail with the valid names.
pub fn parse_checker(name: &str) -> Result<Checker, String> {
    Checker::from_name(name).ok_or_else(|| unknown("checker", name, &Checker::ALL.map(|c| c.name())))
}

/// Run one row.
pub fn run_row(scenario: &dyn Scenario, revision: &str, checker: Checker, bounds: &Bounds) -> Result<Row, String> {
    let info = scenario.info();
    let rev = info
        .revision(revision)
        .ok_or_else(|| unknown("revision", revision, &info.revision_names()) + " for scenario " + info.name)?;
    let outcome = match checker {
        Checker::Oracle => oracle_check::run(info.name, revision, bounds.tier)?,
        _ => scenario.run(revision, checker, bounds)?,
    };
    Ok(Row::new(info.name, revision, checker, rev.expected_violated(checker).into_iter().collect(), &outcome))
}

/// What [`run_matrix`] reports while it runs.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// A row is about to run.
    Started { scenario: &'a str, revision: &'a str, checker: Checker },
    /// A row has finished.
    Finished(&'a Row),
}

/// Validate the filter, then run every selected row; `progress` sees each row start and finish.
pub fn run_matrix(filter: &Filter, bounds: &Bounds, mut progress: impl FnMut(Progress<'_>)) -> Result<Matrix, String> {
    let mut selected: Vec<&'static dyn Scenario> = Vec::new();
    for name in &filter.scenarios {
        selected.push(find_scenario(name)?);
    }
    if selected.is_empty() {
        selected = scenario::scenarios();
    }
    for r in &filter.revisions {
        if !selected.iter().any(|s| s.info().revision(r).is_some()) {
            let mut all: Vec<&str> = selected.iter().flat_map(|s| s.info().revision_names()).collect();
            all.dedup();
            return Err(unknown("revision", r, &all));
        }
    }
    let checkers = if filter.checkers.is_empty() { Checker::ALL.to_vec() } else { filter.checkers.clone() };
    let mut results = Vec::new();
    for s in selected {
        let info = s.info();
        for rev in &info.revisions {
            if !filter.revisions.is_empty() && !filter.revisions.iter().any(|r| r == rev.name) {
                continue;
            }
            for &checker in &checkers {
                progress(Progress::Started { scenario: info.name, revision: rev.name, checker });
                let row = run_row(s, rev.name, checker, bounds)?;
                progress(Progress::Finished(&row));
                results.push(row);
            }
        }
    }
    let matched = results.iter().filter(|r| r.matched).count();
    Ok(Matrix {
        tool: "wbcheck",
        version: env!("CARGO_PKG_VERSION"),
        tier: bounds.tier.name(),
        summary: Summary { total: results.len(), matched, mismatched: results.len() - matched },
        results,
    })
}
