//! The README catalogue is checked mechanically against the scenario registry: every revision has
//! a row, and each row's expected verdicts equal the registry's (which CI's matrix run checks
//! against the checkers).

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
