//! Text renderings: the matrix as a table or Markdown, a counterexample as a numbered trace.

use crate::matrix::{CounterexampleJson, Matrix, Row};
use std::fmt::Write as _;

fn status(r: &Row) -> &'static str {
    if r.matched {
        "ok"
    } else {
        "MISMATCH"
    }
}

fn violated(r: &Row) -> String {
    if r.violated.is_empty() {
        "-".into()
    } else {
        r.violated.join(",")
    }
}

pub fn table(m: &Matrix) -> String {
    let header = [
        "scenario",
        "revision",
        "checker",
        "expected",
        "verdict",
        "match",
        "executions",
        "ms",
        "violated",
    ];
    let rows: Vec<[String; 9]> = m
        .results
        .iter()
        .map(|r| {
            [
                r.scenario.clone(),
                r.revision.clone(),
                r.checker.clone(),
                r.expected.into(),
                r.verdict.into(),
                status(r).into(),
                r.executions.to_string(),
                r.millis.to_string(),
                violated(r),
            ]
        })
        .collect();
    let mut width = header.map(str::len);
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(width)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", padded.join("  ").trim_end());
    };
    line(&mut out, &header.map(String::from));
    for row in &rows {
        line(&mut out, row);
    }
    let _ = writeln!(
        out,
        "\n{} rows, {} matched, {} mismatched",
        m.summary.total, m.summary.matched, m.summary.mismatched
    );
    out
}

pub fn markdown(m: &Matrix) -> String {
    let mut out = String::from("| scenario | revision | checker | expected | verdict | match | executions | ms | violated |\n|---|---|---|---|---|---|---:|---:|---|\n");
    for r in &m.results {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.revision,
            r.checker,
            r.expected,
            r.verdict,
            status(r),
            r.executions,
            r.millis,
            violated(r)
        );
    }
    let _ = writeln!(
        out,
        "\n{} rows, {} matched, {} mismatched",
        m.summary.total, m.summary.matched, m.summary.mismatched
    );
    out
}

/// A counterexample as reviewers read it.
pub fn counterexample(property: &str, c: &CounterexampleJson) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "property {property} violated: {}", c.message);
    let _ = writeln!(out, "placement: {}", c.placement);
    let width = c.steps.iter().map(|s| s.thread.len()).max().unwrap_or(0);
    for (i, s) in c.steps.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>3}  {:<width$}  {}: {}",
            i + 1,
            s.thread,
            s.function,
            s.detail
        );
    }
    match &c.replay {
        Some(r) => {
            let _ = writeln!(out, "replay: {r}");
        }
        None => {
            let _ = writeln!(out, "replay: none for this checker yet");
        }
    }
    out
}

/// One row with its counterexamples.
pub fn row_text(r: &Row) -> String {
    let mut out = format!(
        "{} {} {}: expected {}, got {} ({}); {} executions in {} ms\n",
        r.scenario,
        r.revision,
        r.checker,
        r.expected,
        r.verdict,
        status(r),
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
