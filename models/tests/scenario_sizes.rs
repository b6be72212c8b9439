//! How large each scenario's threads are against the programs loom's completeness is tested on
//! (models/src/harness/record.rs): docs/c11.md's table "Scenario sizes" is
//! checked against what every scenario's first revision runs under loom at the quick tier's
//! bounds, preemption bound 0 (every configuration and placement).

use wb_models::bounds::{Bounds, Tier};
use wb_models::registry::scenarios;

/// The README's rows: `| scenario | threads | longest thread | atomics it touches | atomics |`.
fn readme_rows() -> Vec<(String, [usize; 4])> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/c11.md")).unwrap();
    let table = readme.split("<!-- scenario-sizes -->").nth(1).expect("docs/c11.md has the scenario-sizes table");
    table
        .lines()
        .map(str::trim_start)
        .skip_while(|l| !l.starts_with("| `"))
        .take_while(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let n = |i: usize| cells[i].parse::<usize>().unwrap_or_else(|_| panic!("{l}"));
            (cells[1].trim_matches('`').to_string(), [n(2), n(3), n(4), n(5)])
        })
        .collect()
}

#[test]
fn the_readme_states_each_scenarios_size() {
    let bounds = Bounds::defaults(Tier::Quick);
    let mut measured = Vec::new();
    for s in scenarios() {
        let info = s.info();
        let sizes = s.loom_sizes(info.revisions[0].name, &bounds).unwrap();
        assert!(sizes.executions > 0, "{}", info.name);
        eprintln!(
            "| `{}` | {} | {} | {} | {} |  ({} executions)",
            info.name, sizes.threads, sizes.longest_thread, sizes.thread_atomics, sizes.atomics, sizes.executions
        );
        measured
            .push((info.name.to_string(), [sizes.threads, sizes.longest_thread, sizes.thread_atomics, sizes.atomics]));
    }
    assert_eq!(readme_rows(), measured, "the README's scenario sizes (measured rows printed above)");
}
