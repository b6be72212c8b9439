//! The verdict matrix: every (scenario, revision, checker) row, its expected and observed
//! verdicts, in the JSON contract documented in docs/contract.md.

use crate::oracle;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use wb_core::trace::{describe_stale, with_marks, Stale};
use wb_models::bounds::{Bounds, Tier};
use wb_models::harness::units::{combine, Found, Phase, UnitSearch};
use wb_models::outcome::{Checker, Counterexample, FirstFound, LoomPart, Outcome};
use wb_models::registry;
use wb_models::scenario::{unknown, RevisionInfo, Scenario};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepJson {
    pub thread: String,
    pub function: String,
    pub detail: String,
    /// The step's loads that read a stale value (loom only), absent when none did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<StaleJson>,
}

impl StepJson {
    /// The detail followed by its stale-read marks, as the text trace and the pictures print it.
    pub fn marked_detail(&self) -> String {
        with_marks(
            &self.detail,
            self.stale.iter().map(|s| describe_stale(&s.location, s.store_step, s.stored, s.read_from)),
        )
    }
}

/// A [`Stale`] read: the location, the last store it did not see (step, value), the step of the
/// store it read (none: the initial value).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StaleJson {
    pub location: String,
    pub store_step: usize,
    pub stored: i64,
    pub read_from: Option<usize>,
}

impl From<&Stale> for StaleJson {
    fn from(s: &Stale) -> Self {
        StaleJson { location: s.location.clone(), store_step: s.store_step, stored: s.stored, read_from: s.read_from }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CounterexampleJson {
    pub message: String,
    /// The configuration of the scenario's declared scope the counterexample ran (empty for a
    /// scenario with one configuration).
    #[serde(default)]
    pub configuration: String,
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
            configuration: c.configuration.clone(),
            placement: c.placement.clone(),
            steps: c
                .steps
                .iter()
                .map(|s| StepJson {
                    thread: s.thread.clone(),
                    function: s.function.clone(),
                    detail: s.detail.clone(),
                    stale: s.stale.iter().map(StaleJson::from).collect(),
                })
                .collect(),
            replay: c.replay.clone(),
            found: c.found.map(FoundJson::from),
            min_preemptions: c.min_preemptions,
        }
    }
}

/// What a row found, or was expected to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    /// The search stopped at a limit (time, permutations) before finishing: a violation it found
    /// stands, but a pass cannot be claimed, so the row never matches.
    Bounded,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Bounded => "bounded",
        }
    }

    /// The verdict of a search, or of an expectation (never bounded): a violation is established
    /// even by a partial search; a pass only by a finished one.
    pub fn of(bounded: bool, violated: bool) -> Verdict {
        match (bounded, violated) {
            (true, _) => Verdict::Bounded,
            (false, true) => Verdict::Fail,
            (false, false) => Verdict::Pass,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// One row of the matrix.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub scenario: String,
    pub revision: String,
    pub checker: Checker,
    pub expected: Verdict,
    pub verdict: Verdict,
    pub executions: u64,
    /// How many configurations of the scenario's declared scope the row ran.
    #[serde(default)]
    pub configurations: u64,
    pub millis: u64,
    pub bounds: BTreeMap<String, u64>,
    /// The first violated property.
    pub property: Option<String>,
    pub counterexample: Option<CounterexampleJson>,
    pub violated: Vec<String>,
    pub expected_violated: Vec<String>,
    /// The properties of `expected_violated` this checker may miss (the catalogue's
    /// `Expect::may_miss`): the row matches with or without them.
    #[serde(default)]
    pub may_miss: Vec<String>,
    pub counterexamples: BTreeMap<String, CounterexampleJson>,
    /// Executions and milliseconds up to the first counterexample (loom and shuttle).
    pub first_counterexample: Option<FoundJson>,
    /// loom: the smallest preemption bound at which the row fails (the least over its
    /// counterexamples).
    pub min_preemptions: Option<usize>,
    pub matched: bool,
    /// loom, when this is some units of the row (one of `--jobs` processes, or a shard's share):
    /// their searches, which `wbcheck merge` combines with the other parts' into the whole row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<RowPart>,
}

/// Some units of a loom row ([`wb_models::harness::units`]) and their searches.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RowPart {
    /// How many units the whole row has.
    pub units: usize,
    /// The units these searches cover.
    pub selected: Vec<usize>,
    /// How many properties the row's loom search checks.
    pub properties: usize,
    pub ledger: Vec<UnitSearchJson>,
}

/// One unit's search at one bound.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnitSearchJson {
    pub unit: usize,
    /// `bound:K`, `unbounded` or `minimise:K`.
    pub phase: String,
    pub executions: u64,
    pub micros: u64,
    pub bounded: bool,
    pub counterexamples: Vec<PropertyCounterexample>,
}

/// A counterexample with its property, its `found` counted from its unit search's start.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PropertyCounterexample {
    pub property: String,
    #[serde(flatten)]
    pub counterexample: CounterexampleJson,
}

impl Found for PropertyCounterexample {
    fn property(&self) -> &str {
        &self.property
    }

    fn rank(&self) -> (bool, usize) {
        wb_models::harness::rank(&self.counterexample.steps, |s| !s.stale.is_empty())
    }

    fn found(&self) -> Option<FirstFound> {
        self.counterexample
            .found
            .map(|f| FirstFound { executions: f.executions, micros: (f.ms * 1000.0).round() as u64 })
    }

    fn min_preemptions(&self) -> Option<usize> {
        self.counterexample.min_preemptions
    }

    fn set_found(&mut self, found: Option<FirstFound>, min_preemptions: Option<usize>) {
        self.counterexample.found = found.map(FoundJson::from);
        self.counterexample.min_preemptions = min_preemptions;
    }
}

impl PropertyCounterexample {
    fn of(c: &Counterexample) -> Self {
        PropertyCounterexample { property: c.property.to_string(), counterexample: c.into() }
    }
}

impl RowPart {
    fn of(part: &LoomPart) -> RowPart {
        RowPart {
            units: part.units,
            selected: part.selected.clone(),
            properties: part.properties,
            ledger: part
                .ledger
                .iter()
                .map(|s| UnitSearchJson {
                    unit: s.unit,
                    phase: s.phase.name(),
                    executions: s.executions,
                    micros: s.micros,
                    bounded: s.bounded,
                    counterexamples: s.counterexamples.iter().map(PropertyCounterexample::of).collect(),
                })
                .collect(),
        }
    }

    /// The searches as [`combine`] reads them.
    fn searches(&self) -> Result<Vec<UnitSearch<PropertyCounterexample>>, String> {
        self.ledger
            .iter()
            .map(|s| {
                Ok(UnitSearch {
                    unit: s.unit,
                    phase: Phase::from_name(&s.phase)?,
                    executions: s.executions,
                    micros: s.micros,
                    bounded: s.bounded,
                    counterexamples: s.counterexamples.clone(),
                })
            })
            .collect()
    }
}

/// Executions and milliseconds up to and including a counterexample's execution.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct FoundJson {
    pub executions: u64,
    pub ms: f64,
}

impl From<FirstFound> for FoundJson {
    fn from(f: FirstFound) -> Self {
        FoundJson { executions: f.executions, ms: f.micros as f64 / 1000.0 }
    }
}

/// Whether a row's findings are what the catalogue expects: the search finished, every property
/// found is expected, and every expected property the checker may not miss was found.
pub fn judge(verdict: Verdict, violated: &[String], expected_violated: &[String], may_miss: &[String]) -> bool {
    verdict != Verdict::Bounded
        && violated.iter().all(|p| expected_violated.contains(p))
        && expected_violated.iter().all(|p| violated.contains(p) || may_miss.contains(p))
}

impl Row {
    pub fn new(scenario: &str, revision: &RevisionInfo, checker: Checker, tier: Tier, outcome: &Outcome) -> Row {
        let expected_violated: Vec<String> =
            revision.expected_violated(checker, tier).into_iter().map(String::from).collect();
        let mut row = Row {
            scenario: scenario.into(),
            revision: revision.name.into(),
            checker,
            expected: Verdict::of(false, !expected_violated.is_empty()),
            verdict: Verdict::Pass,
            executions: outcome.executions,
            configurations: outcome.configurations,
            millis: outcome.millis,
            bounds: outcome.bounds.iter().cloned().collect(),
            property: None,
            counterexample: None,
            counterexamples: BTreeMap::new(),
            first_counterexample: None,
            min_preemptions: None,
            matched: false,
            violated: Vec::new(),
            expected_violated,
            may_miss: revision.may_miss(checker, tier).into_iter().map(String::from).collect(),
            part: outcome.loom_part.as_ref().map(RowPart::of),
        };
        row.set_findings(outcome.bounded, outcome.counterexamples.iter().map(PropertyCounterexample::of).collect());
        row
    }

    /// Set what the row found from its counterexamples (one per violated property, in the order
    /// found) and whether its search was cut short, and judge it.
    fn set_findings(&mut self, bounded: bool, counterexamples: Vec<PropertyCounterexample>) {
        self.property = counterexamples.first().map(|c| c.property.clone());
        self.counterexample = counterexamples.first().map(|c| c.counterexample.clone());
        self.first_counterexample = self.counterexample.as_ref().and_then(|c| c.found);
        self.min_preemptions = counterexamples.iter().filter_map(|c| c.counterexample.min_preemptions).min();
        self.counterexamples = counterexamples.into_iter().map(|c| (c.property, c.counterexample)).collect();
        self.violated = self.counterexamples.keys().cloned().collect();
        self.verdict = Verdict::of(bounded, !self.violated.is_empty());
        self.matched = judge(self.verdict, &self.violated, &self.expected_violated, &self.may_miss);
    }

    /// Put parts of one loom row together: their searches combined as one process runs them
    /// ([`combine`]), the time added. The result is the whole row when the parts cover every
    /// unit, else a larger part.
    fn join(parts: Vec<Row>) -> Result<Row, String> {
        let mut parts = parts.into_iter();
        let mut row = parts.next().ok_or("no parts to join")?;
        let name = format!("{} {} {}", row.scenario, row.revision, row.checker.name());
        let mut part = row.part.take().ok_or_else(|| format!("row {name} appears twice, once whole"))?;
        for other in parts {
            let p = other.part.ok_or_else(|| format!("row {name} appears twice, once whole"))?;
            if (p.units, p.properties) != (part.units, part.properties) {
                return Err(format!("the parts of row {name} come from different builds or tiers"));
            }
            if other.bounds != row.bounds {
                let differ: BTreeSet<&str> = row
                    .bounds
                    .keys()
                    .chain(other.bounds.keys())
                    .filter(|k| row.bounds.get(*k) != other.bounds.get(*k))
                    .map(String::as_str)
                    .collect();
                let differ: Vec<&str> = differ.into_iter().collect();
                return Err(format!("the parts of row {name} ran with different bounds ({})", differ.join(", ")));
            }
            if let Some(u) = p.selected.iter().find(|u| part.selected.contains(u)) {
                return Err(format!("unit {u} of row {name} is in two parts"));
            }
            part.selected.extend(p.selected);
            part.ledger.extend(p.ledger);
            row.millis += other.millis;
        }
        part.selected.sort_unstable();
        let combined = combine(&part.searches()?, part.properties);
        row.executions = combined.executions;
        row.set_findings(combined.bounded, combined.counterexamples);
        row.part = (part.selected.len() < part.units).then_some(part);
        Ok(row)
    }

    /// The properties this row may miss and did.
    pub fn missed(&self) -> Vec<String> {
        self.may_miss.iter().filter(|p| !self.violated.contains(p)).cloned().collect()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    pub total: usize,
    pub matched: usize,
    pub mismatched: usize,
    /// Every row whose checker may miss a property: they match whether or not it is found
    /// (not counted as a mismatch when missed).
    #[serde(default)]
    pub may_miss: Vec<MayMiss>,
}

/// A row with properties its checker may miss, and which of them it missed in this run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MayMiss {
    pub scenario: String,
    pub revision: String,
    pub checker: Checker,
    pub properties: Vec<String>,
    pub missed: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Matrix {
    pub tool: String,
    pub version: String,
    pub tier: Tier,
    /// `I/N` when this is one shard of a split run (see [`Shard`]); absent for a whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub results: Vec<Row>,
    pub summary: Summary,
}

impl Matrix {
    /// Rows of one run, unsharded, as one matrix (for joining).
    pub fn of_rows(tier: Tier, rows: Vec<Row>) -> Matrix {
        Matrix::new(tier, None, rows)
    }

    fn new(tier: Tier, shard: Option<String>, results: Vec<Row>) -> Matrix {
        let matched = results.iter().filter(|r| r.matched).count();
        let may_miss = results
            .iter()
            .filter(|r| !r.may_miss.is_empty())
            .map(|r| MayMiss {
                scenario: r.scenario.clone(),
                revision: r.revision.clone(),
                checker: r.checker,
                properties: r.may_miss.clone(),
                missed: r.missed(),
            })
            .collect();
        Matrix {
            tool: "wbcheck".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            tier,
            shard,
            summary: Summary { total: results.len(), matched, mismatched: results.len() - matched, may_miss },
            results,
        }
    }
}

/// One part of a matrix split over machines: shard `index` (0-based) of `count`. loom and oracle
/// rows are dealt round-robin in catalogue order; every shuttle row runs in every shard with its
/// share of the iterations and the seed plus the shard index. `wbcheck merge` recombines the
/// shards' JSON into the whole matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Parse `I/N` (1-based `I`).
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("malformed shard '{s}': expected I/N with 1 <= I <= N, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if i == 0 || i > n {
            return Err(bad());
        }
        Ok(Shard { index: i - 1, count: n })
    }

    fn label(self) -> Option<String> {
        (self.count > 1).then(|| self.to_string())
    }

    /// This shard's bounds for a shuttle row.
    fn shuttle_bounds(self, bounds: &Bounds) -> Bounds {
        let (iters, n) = (bounds.shuttle_iterations, self.count);
        Bounds {
            shuttle_iterations: iters / n + usize::from(self.index < iters % n),
            seed: bounds.seed + self.index as u64,
            ..bounds.clone()
        }
    }
}

/// `I/N`, as [`Shard::parse`] reads it.
impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

/// Which rows to run. Empty lists mean "all".
#[derive(Debug, Clone)]
pub struct Filter {
    pub scenarios: Vec<String>,
    pub revisions: Vec<String>,
    pub checkers: Vec<Checker>,
    pub shard: Shard,
    /// Of the shard's rows, every `count`-th from `index`: one process's share under `--jobs`.
    pub part: Shard,
    /// loom: of the one row `part` selects, only these units (a `--jobs` process's share of a row
    /// split below the row).
    pub units: Option<Vec<usize>>,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            scenarios: Vec::new(),
            revisions: Vec::new(),
            checkers: Vec::new(),
            shard: Shard::WHOLE,
            part: Shard::WHOLE,
            units: None,
        }
    }
}

/// Resolve a scenario name or fail with the valid names.
pub fn find_scenario(name: &str) -> Result<&'static dyn Scenario, String> {
    registry::find(name).ok_or_else(|| {
        let names: Vec<&str> = registry::scenarios().iter().map(|s| s.info().name).collect();
        unknown("scenario", name, &names)
    })
}

/// `wbcheck list --format json`: the catalogue, each revision with the verdict each checker is
/// expected to reach (`.ci/run` picks its fuzz runs from it).
#[derive(Debug, Serialize)]
pub struct Catalogue {
    pub tool: &'static str,
    pub version: &'static str,
    pub scenarios: Vec<CatalogueScenario>,
}

#[derive(Debug, Serialize)]
pub struct CatalogueScenario {
    pub name: &'static str,
    pub summary: &'static str,
    pub properties: Vec<CatalogueProperty>,
    pub revisions: Vec<CatalogueRevision>,
}

#[derive(Debug, Serialize)]
pub struct CatalogueProperty {
    pub name: &'static str,
    pub asserts: &'static str,
}

#[derive(Debug, Serialize)]
pub struct CatalogueRevision {
    pub name: &'static str,
    pub summary: &'static str,
    /// Per checker, in [`Checker::ALL`] order: pass or fail (the quick and scope tiers).
    pub expected: BTreeMap<Checker, Verdict>,
    /// Per checker that may miss some of its expected properties: those properties.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub may_miss: BTreeMap<Checker, Vec<&'static str>>,
    /// Per checker whose deep tier expects other properties (`Expect::deep`): those properties.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub deep: BTreeMap<Checker, Vec<&'static str>>,
}

impl Catalogue {
    pub fn new() -> Catalogue {
        let scenarios = registry::scenarios()
            .iter()
            .map(|s| {
                let info = s.info();
                CatalogueScenario {
                    name: info.name,
                    summary: info.summary,
                    properties: info
                        .properties
                        .iter()
                        .map(|&(name, asserts)| CatalogueProperty { name, asserts })
                        .collect(),
                    revisions: info
                        .revisions
                        .iter()
                        .map(|r| CatalogueRevision {
                            name: r.name,
                            summary: r.summary,
                            expected: Checker::ALL
                                .map(|c| (c, Verdict::of(false, !r.expected_violated(c, Tier::Quick).is_empty())))
                                .into(),
                            may_miss: Checker::ALL
                                .into_iter()
                                .filter(|&c| !r.may_miss(c, Tier::Quick).is_empty())
                                .map(|c| (c, r.may_miss(c, Tier::Quick).into_iter().collect()))
                                .collect(),
                            deep: Checker::ALL
                                .into_iter()
                                .filter(|&c| r.expect(c, Tier::Deep) != r.expect(c, Tier::Quick))
                                .map(|c| (c, r.expected_violated(c, Tier::Deep).into_iter().collect()))
                                .collect(),
                        })
                        .collect(),
                }
            })
            .collect();
        Catalogue { tool: "wbcheck", version: env!("CARGO_PKG_VERSION"), scenarios }
    }
}

/// Run one row.
pub fn run_row(scenario: &dyn Scenario, revision: &str, checker: Checker, bounds: &Bounds) -> Result<Row, String> {
    let info = scenario.info();
    let rev = info
        .revision(revision)
        .ok_or_else(|| unknown("revision", revision, &info.revision_names()) + " for scenario " + info.name)?;
    let outcome = match checker {
        Checker::Oracle => oracle::run(info.name, revision, bounds.tier)?,
        _ => scenario.run(revision, checker, bounds)?,
    };
    Ok(Row::new(info.name, rev, checker, bounds.tier, &outcome))
}

/// What [`run_matrix`] and the process pool report while they run.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// How many rows will run.
    Planned(usize),
    /// A row is about to run.
    Started { scenario: &'a str, revision: &'a str, checker: Checker },
    /// A row has finished.
    Finished(&'a Row),
}

/// One selected row with the bounds it runs under (shuttle rows carry their shard's iterations, a
/// loom row split over shards its shard's units).
pub struct PlannedRow {
    pub scenario: &'static dyn Scenario,
    pub revision: &'static str,
    pub checker: Checker,
    bounds: Bounds,
}

impl PlannedRow {
    /// loom: the units of the row this plan runs (all of them unless a shard has a share).
    pub fn loom_units(&self) -> Result<Vec<usize>, String> {
        match &self.bounds.loom_units {
            Some(units) => Ok(units.clone()),
            None => Ok((0..self.scenario.loom_units(self.revision, &self.bounds)?).collect()),
        }
    }
}

/// Validate the filter and list this shard's rows in catalogue order (before `part` applies).
pub fn select_rows(filter: &Filter, bounds: &Bounds) -> Result<Vec<PlannedRow>, String> {
    let mut selected: Vec<&'static dyn Scenario> = Vec::new();
    for name in &filter.scenarios {
        selected.push(find_scenario(name)?);
    }
    if selected.is_empty() {
        selected = registry::scenarios();
    }
    // Catalogue order, however the filter names them: `--jobs` joins its parts in that order.
    let all = registry::scenarios();
    selected.sort_by_key(|s| all.iter().position(|a| a.info().name == s.info().name));
    selected.dedup_by_key(|s| s.info().name);
    for r in &filter.revisions {
        if !selected.iter().any(|s| s.info().revision(r).is_some()) {
            let mut all: Vec<&str> = selected.iter().flat_map(|s| s.info().revision_names()).collect();
            all.dedup();
            return Err(unknown("revision", r, &all));
        }
    }
    let checkers = if filter.checkers.is_empty() { Checker::ALL.to_vec() } else { filter.checkers.clone() };
    let shard = filter.shard;
    let mut rows = Vec::new();
    let mut dealt = 0;
    for s in selected {
        for rev in s.info().revisions {
            if !filter.revisions.is_empty() && !filter.revisions.iter().any(|r| r == rev.name) {
                continue;
            }
            for &checker in &checkers {
                let planned = |bounds| PlannedRow { scenario: s, revision: rev.name, checker, bounds };
                if matches!(checker, Checker::ShuttlePct | Checker::ShuttleRandom) {
                    rows.push(planned(shard.shuttle_bounds(bounds)));
                } else if checker == Checker::Loom && shard.count > 1 {
                    // Units dealt round-robin, continuing across rows.
                    let n = s.loom_units(rev.name, bounds)?;
                    let mine: Vec<usize> = (0..n).filter(|u| (dealt + u) % shard.count == shard.index).collect();
                    dealt += n;
                    if !mine.is_empty() {
                        let loom_units = (mine.len() < n).then_some(mine);
                        rows.push(planned(Bounds { loom_units, ..bounds.clone() }));
                    }
                } else {
                    if dealt % shard.count == shard.index {
                        rows.push(planned(bounds.clone()));
                    }
                    dealt += 1;
                }
            }
        }
    }
    Ok(rows)
}

/// Validate the filter, then run every selected row of this shard and part, in catalogue order;
/// `progress` sees each row start and finish.
pub fn run_matrix(filter: &Filter, bounds: &Bounds, mut progress: impl FnMut(Progress<'_>)) -> Result<Matrix, String> {
    let (skip, step) = (filter.part.index, filter.part.count);
    let mut rows: Vec<PlannedRow> = select_rows(filter, bounds)?.into_iter().skip(skip).step_by(step).collect();
    if let Some(units) = &filter.units {
        let [row] = &mut rows[..] else {
            return Err("--units applies to one row: select it with --part".into());
        };
        let all = row.loom_units()?;
        if row.checker != Checker::Loom || units.iter().any(|u| !all.contains(u)) {
            return Err(format!("--units: not units of the selected loom row (it has {all:?})"));
        }
        row.bounds.loom_units = Some(units.clone());
    }
    progress(Progress::Planned(rows.len()));
    let mut results = Vec::new();
    for r in rows {
        progress(Progress::Started { scenario: r.scenario.info().name, revision: r.revision, checker: r.checker });
        let row = run_row(r.scenario, r.revision, r.checker, &r.bounds)?;
        progress(Progress::Finished(&row));
        results.push(row);
    }
    Ok(Matrix::new(bounds.tier, filter.shard.label(), results))
}

/// Put the rows of several parts of one run together again, in catalogue order (for `--jobs`):
/// the parts of a loom row split below the row joined ([`Row::join`]).
pub fn join_parts(tier: Tier, shard: Shard, parts: Vec<Matrix>) -> Result<Matrix, String> {
    let mut rows = Vec::new();
    for group in group_rows(parts.into_iter().flat_map(|m| m.results).collect()) {
        rows.push(if group.len() > 1 { Row::join(group)? } else { group.into_iter().next().expect("a group") });
    }
    Ok(Matrix::new(tier, shard.label(), rows))
}

/// Rows grouped by (scenario, revision, checker), the groups in catalogue order, each group's
/// rows in the order given.
fn group_rows(mut rows: Vec<Row>) -> Vec<Vec<Row>> {
    rows.sort_by_key(catalogue_order);
    let mut groups: Vec<Vec<Row>> = Vec::new();
    for row in rows {
        match groups.last_mut() {
            Some(g)
                if (&g[0].scenario, &g[0].revision, g[0].checker) == (&row.scenario, &row.revision, row.checker) =>
            {
                g.push(row)
            }
            _ => groups.push(vec![row]),
        }
    }
    groups
}

/// A row's place in the catalogue: scenario, revision, checker.
fn catalogue_order(r: &Row) -> (usize, usize, Checker) {
    let all = registry::scenarios();
    let s = all.iter().position(|s| s.info().name == r.scenario).unwrap_or(usize::MAX);
    let v = all.get(s).and_then(|s| s.info().revisions.iter().position(|v| v.name == r.revision)).unwrap_or(usize::MAX);
    (s, v, r.checker)
}

/// Recombine the shards of one split run (any order) into the whole matrix: a loom row's parts
/// joined as one process runs them ([`Row::join`]; every unit must be there); a shuttle row's
/// executions and time added, violated properties united (the first counterexample of each, by
/// shard order), `bounded` if any shard's part was; each verdict judged again against the
/// expectation.
pub fn merge(shards: Vec<Matrix>) -> Result<Matrix, String> {
    let mut parts: Vec<(Shard, Matrix)> = shards
        .into_iter()
        .map(|m| {
            let label = m.shard.clone().ok_or("a matrix without \"shard\" is not part of a split run")?;
            Ok((Shard::parse(&label)?, m))
        })
        .collect::<Result<_, String>>()?;
    parts.sort_by_key(|(s, _)| s.index);
    let count = parts.first().map(|(s, _)| s.count).ok_or("nothing to merge")?;
    let indices: Vec<usize> = parts.iter().map(|(s, _)| s.index).collect();
    if parts.iter().any(|(s, _)| s.count != count) || indices != (0..count).collect::<Vec<_>>() {
        let got: Vec<String> = parts.iter().map(|(s, _)| format!("{}/{}", s.index + 1, s.count)).collect();
        return Err(format!("expected shards 1/{count} to {count}/{count} once each, got {}", got.join(", ")));
    }
    let tier = parts[0].1.tier;
    if parts.iter().any(|(_, m)| m.tier != tier) {
        return Err("the shards were run at different tiers".into());
    }
    let mut merged: Vec<Row> = Vec::new();
    for group in group_rows(parts.into_iter().flat_map(|(_, m)| m.results).collect()) {
        if group.iter().any(|r| r.part.is_some()) {
            let row = Row::join(group)?;
            if let Some(part) = &row.part {
                let missing: Vec<usize> = (0..part.units).filter(|u| !part.selected.contains(u)).collect();
                return Err(format!(
                    "row {} {} {}: no shard ran units {missing:?} of its {}",
                    row.scenario,
                    row.revision,
                    row.checker.name(),
                    part.units
                ));
            }
            merged.push(row);
        } else {
            let mut group = group.into_iter();
            let mut row = group.next().expect("a group has a row");
            group.for_each(|part| absorb(&mut row, part));
            merged.push(row);
        }
    }
    Ok(Matrix::new(tier, None, merged))
}

/// Add a later shard's part of a row to `into`.
fn absorb(into: &mut Row, part: Row) {
    into.executions += part.executions;
    into.millis += part.millis;
    if let (Some(a), Some(b)) = (into.bounds.get_mut("iterations"), part.bounds.get("iterations")) {
        *a += b;
    }
    for (property, cx) in part.counterexamples {
        into.counterexamples.entry(property).or_insert(cx);
    }
    into.violated = into.counterexamples.keys().cloned().collect();
    into.min_preemptions = into.min_preemptions.into_iter().chain(part.min_preemptions).min();
    if into.counterexample.is_none() {
        (into.property, into.counterexample, into.first_counterexample) =
            (part.property, part.counterexample, part.first_counterexample);
    }
    let bounded = into.verdict == Verdict::Bounded || part.verdict == Verdict::Bounded;
    into.verdict = Verdict::of(bounded, !into.violated.is_empty());
    into.matched = judge(into.verdict, &into.violated, &into.expected_violated, &into.may_miss);
}
