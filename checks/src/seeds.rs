//! `wbcheck matrix --seeds N`: the shuttle rows of a selection run with N consecutive seeds, and
//! whether each row's verdict is the same for every seed and its expectation. A row that passes
//! or fails by luck is a false verdict waiting to happen; this is how it is caught.
//!
//! Only shuttle rows run: loom's search and the oracle's are deterministic and take no seed, so
//! one `wbcheck matrix` run settles them.

use crate::matrix::{Row, Verdict};
use crate::render;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use wb_models::bounds::Tier;
use wb_models::outcome::Checker;

/// Every row over every seed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedMatrix {
    pub tool: String,
    pub version: String,
    pub tier: Tier,
    /// The seeds run, in order.
    pub seeds: Vec<u64>,
    pub rows: Vec<SeedRow>,
    pub summary: SeedSummary,
}

/// One (scenario, revision, checker) over the seeds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedRow {
    pub scenario: String,
    pub revision: String,
    pub checker: Checker,
    pub expected: Verdict,
    pub expected_violated: Vec<String>,
    pub may_miss: Vec<String>,
    /// Iterations per seed (the tier's, times the row's scale in the catalogue).
    pub iterations: u64,
    /// The distinct outcomes, in the order of their first seed: each with the seeds that gave it.
    pub outcomes: Vec<SeedOutcome>,
    /// Every seed gave the same verdict and properties.
    pub stable: bool,
    /// Every seed's row matched its expectation (a may-miss property missed still matches).
    pub matched: bool,
    /// Milliseconds per seed: the median and the largest.
    pub millis_median: u64,
    pub millis_max: u64,
}

/// What some of the seeds found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedOutcome {
    pub verdict: Verdict,
    pub violated: Vec<String>,
    pub matched: bool,
    pub seeds: Vec<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedSummary {
    pub rows: usize,
    /// Rows with one outcome for every seed.
    pub stable: usize,
    /// Rows whose outcome differs between seeds (counted or not).
    pub unstable: usize,
    /// Rows that did not match their expectation for some seed: these fail the run.
    pub mismatched: usize,
    /// `scenario revision checker` of the rows whose checker may miss a property (the catalogue's
    /// `may_miss`): found or missed, with any seed, it is not counted.
    pub may_miss: Vec<String>,
}

impl SeedMatrix {
    /// Put the rows of one selection run with different seeds together (`runs` in seed order).
    pub fn new(tier: Tier, runs: Vec<(u64, Vec<Row>)>) -> SeedMatrix {
        let seeds: Vec<u64> = runs.iter().map(|(s, _)| *s).collect();
        let mut order: Vec<(String, String, Checker)> = Vec::new();
        let mut by_row: BTreeMap<(String, String, Checker), Vec<(u64, Row)>> = BTreeMap::new();
        for (seed, rows) in runs {
            for r in rows {
                let key = (r.scenario.clone(), r.revision.clone(), r.checker);
                if !by_row.contains_key(&key) {
                    order.push(key.clone());
                }
                by_row.entry(key).or_default().push((seed, r));
            }
        }
        let rows: Vec<SeedRow> =
            order.into_iter().map(|k| seed_row(by_row.remove(&k).expect("every key has rows"))).collect();
        let unstable = rows.iter().filter(|r| !r.stable).count();
        let summary = SeedSummary {
            rows: rows.len(),
            stable: rows.len() - unstable,
            unstable,
            mismatched: rows.iter().filter(|r| !r.matched).count(),
            may_miss: rows.iter().filter(|r| !r.may_miss.is_empty()).map(SeedRow::label).collect(),
        };
        SeedMatrix { tool: "wbcheck".into(), version: env!("CARGO_PKG_VERSION").into(), tier, seeds, rows, summary }
    }

    /// Every row matched its expectation with every seed (rows unstable only in what their
    /// checker may miss included).
    pub fn ok(&self) -> bool {
        self.summary.mismatched == 0
    }
}

fn seed_row(rows: Vec<(u64, Row)>) -> SeedRow {
    let first = &rows[0].1;
    let mut outcomes: Vec<SeedOutcome> = Vec::new();
    for (seed, r) in &rows {
        match outcomes.iter_mut().find(|o| o.verdict == r.verdict && o.violated == r.violated) {
            Some(o) => o.seeds.push(*seed),
            None => outcomes.push(SeedOutcome {
                verdict: r.verdict,
                violated: r.violated.clone(),
                matched: r.matched,
                seeds: vec![*seed],
            }),
        }
    }
    let mut millis: Vec<u64> = rows.iter().map(|(_, r)| r.millis).collect();
    millis.sort_unstable();
    SeedRow {
        scenario: first.scenario.clone(),
        revision: first.revision.clone(),
        checker: first.checker,
        expected: first.expected,
        expected_violated: first.expected_violated.clone(),
        may_miss: first.may_miss.clone(),
        iterations: first.bounds.get("iterations").copied().unwrap_or_default(),
        stable: outcomes.len() == 1,
        matched: outcomes.iter().all(|o| o.matched),
        outcomes,
        millis_median: millis[(millis.len() - 1) / 2],
        millis_max: *millis.last().expect("at least one seed"),
    }
}

impl SeedRow {
    pub fn label(&self) -> String {
        format!("{} {} {}", self.scenario, self.revision, self.checker)
    }

    fn status(&self) -> &'static str {
        let missed = self.outcomes.iter().any(|o| self.may_miss.iter().any(|p| !o.violated.contains(p)));
        match (self.matched, self.stable) {
            (true, _) if missed => "may miss",
            (true, _) => "ok",
            (false, false) => "UNSTABLE",
            (false, true) => "MISMATCH",
        }
    }

    /// `fail (counter-exact): seeds 1,2; pass: seed 3`, or `fail (counter-exact): every seed`.
    pub fn by_seed(&self) -> String {
        let parts: Vec<String> = self
            .outcomes
            .iter()
            .map(|o| {
                let what = if o.violated.is_empty() {
                    o.verdict.to_string()
                } else {
                    format!("{} ({})", o.verdict, o.violated.join(","))
                };
                let seeds: Vec<String> = o.seeds.iter().map(u64::to_string).collect();
                match (self.outcomes.len(), o.seeds.len()) {
                    (1, _) => format!("{what}: every seed"),
                    (_, 1) => format!("{what}: seed {}", seeds[0]),
                    _ => format!("{what}: seeds {}", seeds.join(",")),
                }
            })
            .collect();
        parts.join("; ")
    }
}

const HEADER: [&str; 8] =
    ["scenario", "revision", "checker", "expected", "iterations", "ms (median/max)", "status", "by seed"];

fn cells(r: &SeedRow) -> [String; 8] {
    [
        r.scenario.clone(),
        r.revision.clone(),
        r.checker.to_string(),
        r.expected.to_string(),
        r.iterations.to_string(),
        format!("{}/{}", r.millis_median, r.millis_max),
        r.status().into(),
        r.by_seed(),
    ]
}

/// The closing lines: counts, then every row that mismatched for some seed and every row whose
/// checker may miss a property, with the seeds per outcome.
pub fn summary(m: &SeedMatrix) -> String {
    let s = &m.summary;
    let seeds = match (m.seeds.first(), m.seeds.last()) {
        (Some(a), Some(b)) => format!("seeds {a}..={b}"),
        _ => "no seeds".into(),
    };
    let mut out = format!(
        "\n{} shuttle rows x {} ({seeds}): {} stable, {} unstable, {} mismatched for some seed\n",
        s.rows,
        m.seeds.len(),
        s.stable,
        s.unstable,
        s.mismatched
    );
    for r in m.rows.iter().filter(|r| !r.matched) {
        let _ = writeln!(out, "{}: {} {}", if r.stable { "mismatch" } else { "unstable" }, r.label(), r.by_seed());
    }
    for r in m.rows.iter().filter(|r| r.matched && !r.may_miss.is_empty()) {
        let _ =
            writeln!(out, "may miss (not counted): {} may miss {}: {}", r.label(), r.may_miss.join(","), r.by_seed());
    }
    out
}

pub fn table(m: &SeedMatrix) -> String {
    render::aligned(HEADER, m.rows.iter().map(cells).collect()) + &summary(m)
}

pub fn markdown(m: &SeedMatrix) -> String {
    render::markdown_rows(HEADER, m.rows.iter().map(cells).collect()) + &summary(m)
}
