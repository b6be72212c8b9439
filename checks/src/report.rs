//! `wbcheck report --out DIR`: a static page a reviewer opens in a browser: the matrix table and,
//! for every failing row, one swimlane picture per counterexample (an SVG file next to the page,
//! and the same as Mermaid text) with its text trace and replay handle. The page is XHTML (well-formed XML served as HTML), so
//! any XML parser can check it.

use crate::matrix::{Matrix, Row};
use crate::picture::{mermaid, row_panels, svg, xml_escape};
use crate::render;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Make `dir` (and its parents) and check that it takes a file, before any checker runs.
pub fn prepare(dir: &Path) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write to --out {}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(fail)?;
    let probe = dir.join(".wbcheck-write-test");
    std::fs::write(&probe, b"").map_err(fail)?;
    std::fs::remove_file(&probe).map_err(fail)
}

/// The file name stem of a counterexample's pictures: row and property, with anything but
/// `[A-Za-z0-9.-]` replaced by `_`.
pub fn picture_stem(r: &Row, property: &str) -> String {
    let raw = format!("{}__{}__{}__{}", r.scenario, r.revision, r.checker, property);
    raw.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect()
}

fn anchor(r: &Row) -> String {
    format!("{}--{}--{}", r.scenario, r.revision, r.checker)
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;max-width:110em}\
table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}\
tr.mismatch{background:#fde2e2}td.fail{color:#b03020;font-weight:bold}td.pass{color:#2a7a3a}\
pre{background:#f6f6f6;padding:0.6em;overflow-x:auto;font-size:0.85em}img{max-width:100%;border:1px solid #ddd}\
code{font-size:0.9em}";

/// Write `index.html` and one SVG per counterexample into `dir`; returns the files written.
pub fn write(m: &Matrix, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    let mut save = |name: &str, text: &str| -> Result<(), String> {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
        Ok(())
    };
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n\
         <meta charset=\"utf-8\"/>\n<title>wbcheck {} report ({} tier)</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>wbcheck {} verdict matrix, {} tier</h1>\n<p>{} rows, {} matched, {} mismatched. Each failing row links to \
         its counterexamples: one lane per thread, one box per step (kernel function, values read or written, \
         decision), the violated property at the end. An orange step read a stale value (loom's weak memory, \
         marked <code>stale:</code> in the text): the arrow into it comes from the store it read, the dashed \
         one goes to the store it did not see.</p>\n",
        m.version,
        m.tier,
        m.version,
        m.tier,
        m.summary.total,
        m.summary.matched,
        m.summary.mismatched
    );
    html.push_str(
        "<table id=\"matrix\">\n<thead><tr><th>scenario</th><th>revision</th><th>checker</th><th>expected</th>\
         <th>verdict</th><th>match</th><th>executions</th><th>ms</th><th>min preemptions</th><th>violated</th></tr></thead>\n<tbody>\n",
    );
    for r in &m.results {
        let verdict = if r.counterexamples.is_empty() {
            xml_escape(r.verdict.name())
        } else {
            format!("<a href=\"#{}\">{}</a>", xml_escape(&anchor(r)), xml_escape(r.verdict.name()))
        };
        let _ = writeln!(
            html,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{verdict}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>",
            if r.matched { "" } else { " class=\"mismatch\"" },
            xml_escape(&r.scenario),
            xml_escape(&r.revision),
            xml_escape(r.checker.name()),
            r.expected,
            r.verdict,
            if r.matched { "ok" } else { "MISMATCH" },
            r.executions,
            r.millis,
            r.min_preemptions.map_or("-".to_string(), |k| k.to_string()),
            xml_escape(&if r.violated.is_empty() { "-".to_string() } else { r.violated.join(", ") })
        );
    }
    html.push_str("</tbody>\n</table>\n<h2>Counterexamples</h2>\n");
    for r in m.results.iter().filter(|r| !r.counterexamples.is_empty()) {
        let _ = writeln!(
            html,
            "<h3 id=\"{}\">{} {} ({})</h3>",
            xml_escape(&anchor(r)),
            xml_escape(&r.scenario),
            xml_escape(&r.revision),
            xml_escape(r.checker.name())
        );
        for panel in row_panels(r) {
            let stem = picture_stem(r, panel.property);
            save(&format!("{stem}.svg"), &svg(std::slice::from_ref(&panel)))?;
            save(&format!("{stem}.mmd"), &mermaid(&panel))?;
            let _ = writeln!(
                html,
                "<h4>{}</h4>\n<p><img src=\"{stem}.svg\" alt=\"{}\"/></p>\n<p><a href=\"{stem}.mmd\">Mermaid</a></p>\n\
                 <details><summary>text trace</summary><pre>{}</pre></details>",
                xml_escape(panel.property),
                xml_escape(&panel.title),
                xml_escape(&render::counterexample(panel.property, panel.cx))
            );
        }
    }
    html.push_str("</body>\n</html>\n");
    save("index.html", &html)?;
    Ok(written)
}
