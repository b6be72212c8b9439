//! Text renderings: the matrix as a table or Markdown, a counterexample as a numbered trace.

use crate::matrix::{CounterexampleJson, Matrix, Row, StepJson};
use std::fmt::Write as _;
use wb_core::trace::format_lines;
use wb_models::harness::Replayed;

fn status(r: &Row) -> &'static str {
    match (r.matched, r.missed().is_empty()) {
        (true, true) => "ok",
        // Matched only because the catalogue says this checker may miss what it missed.
        (true, false) => "may miss",
        (false, _) => "MISMATCH",
    }
}

fn violated(r: &Row) -> String {
    if r.violated.is_empty() {
        "-".into()
    } else {
        r.violated.join(",")
    }
}

const HEADER: [&str; 9] =
    ["scenario", "revision", "checker", "expected", "verdict", "match", "executions", "ms", "violated"];

fn cells(r: &Row) -> [String; 9] {
    [
        r.scenario.clone(),
        r.revision.clone(),
        r.checker.to_string(),
        r.expected.to_string(),
        r.verdict.to_string(),
        status(r).into(),
        r.executions.to_string(),
        r.millis.to_string(),
        violated(r),
    ]
}

fn summary(m: &Matrix) -> String {
    let mut out =
        format!("\n{} rows, {} matched, {} mismatched\n", m.summary.total, m.summary.matched, m.summary.mismatched);
    if !m.summary.may_miss.is_empty() {
        let rows: Vec<String> = m
            .summary
            .may_miss
            .iter()
            .map(|r| {
                let missed =
                    if r.missed.is_empty() { "found".into() } else { format!("missed {}", r.missed.join(",")) };
                format!("{} {} {} may miss {}: {missed}", r.scenario, r.revision, r.checker, r.properties.join(","))
            })
            .collect();
        let _ = writeln!(out, "may miss (not counted): {}", rows.join("; "));
    }
    out
}

pub fn table(m: &Matrix) -> String {
    aligned(HEADER, m.results.iter().map(cells).collect()) + &summary(m)
}

pub fn markdown(m: &Matrix) -> String {
    markdown_rows(HEADER, m.results.iter().map(cells).collect()) + &summary(m)
}

/// A plain-text table: each column as wide as its widest cell, two spaces between columns.
pub fn aligned<const N: usize>(header: [&str; N], rows: Vec<[String; N]>) -> String {
    let mut width = header.map(str::len);
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(header.map(String::from)).chain(rows) {
        let padded: Vec<String> = row.iter().zip(width).map(|(c, w)| format!("{c:<w$}")).collect();
        let _ = writeln!(out, "{}", padded.join("  ").trim_end());
    }
    out
}

/// A Markdown table.
pub fn markdown_rows<const N: usize>(header: [&str; N], rows: Vec<[String; N]>) -> String {
    let mut out = format!("| {} |\n|{}\n", header.join(" | "), "---|".repeat(N));
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out
}

/// A counterexample as reviewers read it.
pub fn counterexample(property: &str, c: &CounterexampleJson) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "property {property} violated: {}", c.message);
    if !c.configuration.is_empty() {
        let _ = writeln!(out, "configuration: {}", c.configuration);
    }
    let _ = writeln!(out, "placement: {}", c.placement);
    if let Some(k) = c.min_preemptions {
        let _ = writeln!(out, "smallest loom preemption bound with this violation: {k} (this trace)");
    }
    let details: Vec<String> = c.steps.iter().map(StepJson::marked_detail).collect();
    out.push_str(&format_lines(
        c.steps.iter().zip(&details).map(|(s, d)| (s.thread.as_str(), s.function.as_str(), d.as_str())),
    ));
    match &c.replay {
        Some(r) => {
            let _ = writeln!(out, "replay: {r}");
        }
        None => {
            let _ =
                writeln!(out, "replay: none (an oracle counterexample is a sequence of whole calls, printed in full)");
        }
    }
    out
}

/// One row with its counterexamples.
pub fn row_text(r: &Row) -> String {
    let mut out = format!(
        "{} {} {}: expected {}, got {} ({}); {} configuration(s), {} executions in {} ms\n",
        r.scenario,
        r.revision,
        r.checker,
        r.expected,
        r.verdict,
        status(r),
        r.configurations,
        r.executions,
        r.millis
    );
    let bounds: Vec<String> = r.bounds.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let _ = writeln!(out, "bounds: {}", bounds.join(" "));
    for (p, c) in &r.counterexamples {
        out.push('\n');
        out.push_str(&counterexample(p, c));
    }
    out
}

/// A replayed execution (a replay string or a fuzzer's input): placement, trace, the violated
/// properties, and the replay string of the execution.
pub fn replayed_text(r: &Replayed) -> String {
    let mut out = String::new();
    if !r.configuration.is_empty() {
        let _ = writeln!(out, "configuration: {}", r.configuration);
    }
    let _ = write!(out, "placement: {}\n{}", r.placement, wb_core::trace::format_steps(&r.steps));
    if r.violations.is_empty() {
        out.push_str("no property violated in this execution\n");
    }
    for v in &r.violations {
        let _ = writeln!(out, "property {} violated: {}", v.property, v.message);
    }
    let _ = writeln!(out, "schedule: {}", r.schedule);
    out
}
