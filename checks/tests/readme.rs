//! The README catalogue and each scenario header's verdict table are checked mechanically against
//! the scenario registry: every revision has a row, and each row's expected verdicts equal the
//! registry's (which CI's matrix run checks against the checkers, and fails on any difference).

use std::collections::BTreeSet;
use wb_models::outcome::Checker;
use wb_models::scenario::scenarios;

fn catalogue() -> Vec<Vec<String>> {
    let readme = include_str!("../../README.md");
    let start = readme.find("<!-- catalogue:begin -->").expect("catalogue start marker");
    let end = readme.find("<!-- catalogue:end -->").expect("catalogue end marker");
    readme[start..end]
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2) // header and separator
        .map(|l| l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

fn parse_cell(cell: &str) -> BTreeSet<String> {
    match cell.strip_prefix("fail:") {
        Some(props) => props.split(',').map(|p| p.trim().to_string()).collect(),
        None => {
            assert_eq!(cell, "pass", "a verdict cell is `pass` or `fail: property, ...`");
            BTreeSet::new()
        }
    }
}

#[test]
fn readme_catalogue_matches_the_registry() {
    let rows = catalogue();
    let mut seen = BTreeSet::new();
    for row in &rows {
        assert_eq!(row.len(), 7, "catalogue row {row:?}");
        let scenario = scenarios()
            .into_iter()
            .find(|s| s.info().name == row[0])
            .unwrap_or_else(|| panic!("unknown scenario {}", row[0]));
        let info = scenario.info();
        let rev = info.revision(&row[1]).unwrap_or_else(|| panic!("unknown revision {} of {}", row[1], row[0]));
        for (i, checker) in Checker::ALL.iter().enumerate() {
            let want: BTreeSet<String> = rev.expected_violated(*checker).into_iter().map(String::from).collect();
            assert_eq!(parse_cell(&row[3 + i]), want, "README row {} {} column {}", row[0], row[1], checker.name());
        }
        seen.insert((row[0].clone(), row[1].clone()));
    }
    for s in scenarios() {
        let info = s.info();
        for r in &info.revisions {
            assert!(
                seen.contains(&(info.name.to_string(), r.name.to_string())),
                "README has no row for {} {}",
                info.name,
                r.name
            );
        }
    }
}

/// The expected-verdict table of a scenario header (`wbcheck explain`): its last four columns are
/// loom, shuttle-pct, shuttle-random and oracle. A cell is `pass`, `same` (as the cell to its
/// left), a list of the scenario's properties, or prose starting with `fail` or naming the
/// failing properties in other words; a cell must say `pass` exactly when the registry expects
/// a pass, and a list of property names must equal the registry's.
#[test]
fn scenario_headers_match_the_registry() {
    for s in scenarios() {
        let info = s.info();
        let properties: BTreeSet<&str> = info.properties.iter().map(|(p, _)| *p).collect();
        let table: Vec<Vec<String>> = info
            .header
            .lines()
            .skip_while(|l| !(l.starts_with("## ") && l.contains("xpected verdicts")))
            .skip(1)
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .skip(2)
            .map(|l| l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
            .collect();
        assert_eq!(table.len(), info.revisions.len(), "{}: header verdict table rows", info.name);
        for rev in &info.revisions {
            let row = table
                .iter()
                .find(|r| r[0] == rev.name)
                .unwrap_or_else(|| panic!("{}: header has no verdict row for {}", info.name, rev.name));
            let cells = &row[row.len() - 4..];
            let mut previous = String::new();
            for (cell, checker) in cells.iter().zip(Checker::ALL) {
                let cell = if cell == "same" { previous.clone() } else { cell.clone() };
                let want = rev.expected_violated(checker);
                let at = format!("{} {} header column {}: {cell:?}", info.name, rev.name, checker.name());
                assert_eq!(cell == "pass", want.is_empty(), "{at}");
                let names: BTreeSet<&str> = cell.split(", ").collect();
                if names.iter().all(|n| properties.contains(n)) {
                    assert_eq!(names, want, "{at}");
                }
                previous = cell;
            }
        }
    }
}

/// The counterexample under "Reading a counterexample" is the tool's real output, stale-read mark
/// included: only the milliseconds may differ.
#[test]
fn readme_counterexample_is_the_real_output() {
    let readme = include_str!("../../README.md");
    let intro = "`wbcheck run dontcache-kick --revision v7 --checker loom` prints (a real run):\n\n```text\n";
    let start = readme.find(intro).expect("the counterexample example") + intro.len();
    let pasted = &readme[start..start + readme[start..].find("```\n").expect("its end")];
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wbcheck"))
        .args(["run", "dontcache-kick", "--revision", "v7", "--checker", "loom"])
        .output()
        .expect("wbcheck runs");
    let real = String::from_utf8(out.stdout).unwrap();
    let without_millis = |s: &str| {
        let (head, rest) = s.split_once(" executions in ").expect("the row line");
        (head.to_owned(), rest.split_once('\n').expect("more than the row line").1.to_owned())
    };
    assert_eq!(without_millis(pasted), without_millis(&real), "regenerate the README example");
    assert!(pasted.contains("[stale: step "), "the example shows a stale read");
}
