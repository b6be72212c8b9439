//! The LKMM ordering audit's committed results (`models/litmus/audit/`): its litmus tests are the
//! audit's output over every loom pass row at the scope tier; the catalogue's tables say what
//! each row flags, loom's observation of each test through our primitive mapping (it must miss
//! the outcome: that is what makes the ordering one to flag) and herd7's (LKMM must allow it:
//! checked against herd7 itself where it is installed, against the committed column always).
//! `WBCHECK_BLESS=1` rewrites the files and the tables.

use std::path::{Path, PathBuf};
use wb_models::bounds::{Bounds, Tier};
use wb_models::litmus::audit::{self, AuditTest, RowAudit};
use wb_models::litmus::herd7::Herd7;
use wb_models::litmus::{run, Outcome};

const BEGIN: &str = "<!-- audit -->";
const END: &str = "<!-- /audit -->";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/audit")
}

/// The herd7 column of each test in the committed catalogue.
fn committed_herd7(readme: &str) -> Vec<(String, String)> {
    readme
        .lines()
        .filter(|l| l.starts_with("| [`audit+"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells[1].split('`').nth(1).unwrap_or_default().to_owned();
            (name, cells[cells.len() - 2].to_owned())
        })
        .collect()
}

/// herd7's observation of `file` under every LKMM copy: one answer when they agree.
fn herd7_column(herd7: &Herd7, file: &Path) -> String {
    let answers: Vec<(String, String)> = herd7
        .models
        .iter()
        .map(|(name, model)| {
            let o = herd7.observe(model, file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            (name.clone(), format!("{} {} {}", o.outcome.name(), o.positive, o.negative))
        })
        .collect();
    if answers.iter().all(|(_, a)| *a == answers[0].1) {
        answers[0].1.clone()
    } else {
        answers.iter().map(|(m, a)| format!("{m}: {a}")).collect::<Vec<_>>().join("; ")
    }
}

fn tables(rows: &[RowAudit], tests: &[AuditTest], loom: &[String], herd7: &[String]) -> String {
    let mut s = format!("{BEGIN}\n\n| row | executions audited | litmus tests |\n|---|---|---|\n");
    for r in rows {
        let n = tests.iter().filter(|t| t.scenario == r.scenario && t.revision == r.revision).count();
        s.push_str(&format!("| {} `{}` | {} | {} |\n", r.scenario, r.revision, r.executions, n));
    }
    s.push_str(
        "\n| litmus test | flagged accesses (P0 ; P1) | dependency seen (P0, P1) | executions | loom | herd7 |\n",
    );
    s.push_str("|---|---|---|---|---|---|\n");
    for ((t, loom), herd7) in tests.iter().zip(loom).zip(herd7) {
        let sites: Vec<String> =
            t.findings.iter().map(|(a, b, _, _)| format!("{} ; {} <br> {} ; {}", a[0], a[1], b[0], b[1])).collect();
        let deps: Vec<String> =
            t.findings.iter().map(|(_, _, d, _)| format!("{}, {}", d[0].name(), d[1].name())).collect();
        let counts: Vec<String> = t.findings.iter().map(|(_, _, _, n)| n.to_string()).collect();
        s.push_str(&format!(
            "| [`{}`]({}) | {} | {} | {} | {loom} | {herd7} |\n",
            t.name(),
            t.file_name(),
            sites.join(" <br><br> "),
            deps.join(" <br><br> "),
            counts.join(" <br><br> "),
        ));
    }
    s.push('\n');
    s.push_str(END);
    s
}

#[test]
fn the_audit_catalogue_is_the_audits_output() {
    let bless = std::env::var_os("WBCHECK_BLESS").is_some();
    let rows = audit::audit_rows(&Bounds::defaults(Tier::Scope), None).unwrap();
    let tests = audit::tests(&rows);
    let dir = dir();
    let mut names = std::collections::BTreeSet::new();
    for t in &tests {
        let path = dir.join(t.file_name());
        assert!(names.insert(t.file_name()), "two audit tests named {}", t.name());
        if bless {
            std::fs::write(&path, t.render()).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(committed, t.render(), "{} is stale: regenerate with WBCHECK_BLESS=1", path.display());
    }
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        assert!(
            name == "README.md" || names.contains(&name),
            "{name} in {} is no audit test: delete it",
            dir.display()
        );
    }
    // loom through the mapping: each flagged outcome out of its reach.
    let loom: Vec<String> = tests
        .iter()
        .map(|t| {
            let report = run::run(&t.render()).unwrap_or_else(|e| panic!("{}: {e}", t.name()));
            let o = &report.loom.observation;
            assert_eq!(o.outcome, Outcome::Never, "{}: loom reaches the flagged outcome", t.name());
            format!("{} {} {}", o.outcome.name(), o.positive, o.negative)
        })
        .collect();
    let readme_path = dir.join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let committed = committed_herd7(&readme);
    let herd7: Vec<String> = tests
        .iter()
        .map(|t| {
            committed.iter().find(|(n, _)| *n == t.name()).map_or_else(|| "not run".to_owned(), |(_, h)| h.clone())
        })
        .collect();
    let herd7 = match Herd7::from_env().unwrap() {
        Some(h) => {
            let measured: Vec<String> = tests.iter().map(|t| herd7_column(&h, &dir.join(t.file_name()))).collect();
            if !bless {
                assert_eq!(herd7, measured, "the catalogue's herd7 column is not herd7's answer (WBCHECK_BLESS=1)");
            }
            for (t, m) in tests.iter().zip(&measured) {
                assert!(m.starts_with("Sometimes"), "{}: herd7 says {m}: LKMM forbids the flagged cycle", t.name());
            }
            measured
        }
        None => herd7,
    };
    let (before, rest) = readme.split_once(BEGIN).expect("the catalogue has its markers");
    let after = rest.split_once(END).expect("the catalogue has its end marker").1;
    let table = tables(&rows, &tests, &loom, &herd7);
    let generated = format!("{before}{table}{after}");
    if bless {
        std::fs::write(&readme_path, &generated).unwrap();
        return;
    }
    assert_eq!(readme, generated, "{} is stale: regenerate with WBCHECK_BLESS=1", readme_path.display());
    for h in &herd7 {
        assert!(h.starts_with("Sometimes"), "the catalogue records herd7's answer on every test: {h}");
    }
}
