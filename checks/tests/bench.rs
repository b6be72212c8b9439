//! `wbcheck bench --quick` writes the performance report and its plots (a smoke run: the numbers
//! themselves are not checked, only that each section and plot is there and well formed), between
//! the bench markers of a page that has them, keeping the page's hand-written part.

use std::process::Command;

#[test]
fn quick_bench_writes_the_report_and_plots() {
    let out = std::env::temp_dir().join(format!("wbcheck-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let (above, below) = ("# Costs\n\nHand-written.\n\n<!-- bench:begin -->\n", "<!-- bench:end -->\n\nAfter.\n");
    std::fs::write(out.join("performance.md"), format!("{above}the last run\n\n{below}")).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_wbcheck"))
        .args(["bench", "--quick", "--seeds", "2", "--criterion"])
        .arg(out.join("no-criterion"))
        .arg("--out")
        .arg(&out)
        .output()
        .expect("wbcheck runs");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let md = std::fs::read_to_string(out.join("performance.md")).expect("performance.md written");
    assert!(md.starts_with(above) && md.ends_with(below), "the hand-written part is not kept:\n{md}");
    assert!(!md.contains("the last run") && !md.contains("# Performance\n"), "{md}");
    assert!(md[above.len()..].starts_with("Written by `wbcheck bench --quick`"), "{md}");
    for heading in [
        "## The matrix, row by row",
        "## Time to the first counterexample, per buggy revision",
        "## loom: cost against the preemption bound",
        "## loom: dontcache-kick against threads and operations",
        "## Executions per execution graph",
        "## The core's operations (criterion, std platform)",
    ] {
        assert!(md.contains(heading), "no {heading:?} in:\n{md}");
    }
    // The parallel run covered the rows of the row-by-row table (the smoke bounds are too small
    // to find every bug, so not all match).
    let line = md.lines().find(|l| l.starts_with("As `wbcheck matrix` runs it")).expect("parallel matrix line");
    let words: Vec<&str> = line.split_whitespace().collect();
    let count = |w: &str| -> usize { words[words.iter().position(|x| *x == w).expect(w) - 1].parse().expect(w) };
    let table = md.lines().filter(|l| l.starts_with("| dontcache-kick |") || l.starts_with("| percpu-counter |"));
    assert_eq!(count("rows,"), table.filter(|l| l.split('|').count() == 10).count(), "{line}");
    assert!(count("matching") <= count("rows,"), "{line}");
    // Every loom row of the two scenarios is counted: executions >= graphs >= behaviours >= 1 (a
    // graph fixes every value read, so it has one behaviour).
    let graphs = md.split("## Executions per execution graph").nth(1).expect("graphs section");
    let rows: Vec<Vec<&str>> = graphs
        .lines()
        .filter(|l| l.starts_with("| dontcache-kick |") || l.starts_with("| percpu-counter |"))
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    assert!(rows.iter().any(|r| r[1] == "dontcache-kick") && rows.iter().any(|r| r[1] == "percpu-counter"), "{graphs}");
    for r in &rows {
        let n = |i: usize| -> u64 { r[i].parse().unwrap_or_else(|_| panic!("{r:?}")) };
        assert!(n(4) >= n(5) && n(5) >= n(7) && n(7) >= 1, "{r:?}");
    }
    for svg in ["perf_loom_dontcache-kick.svg", "perf_loom_percpu-counter.svg", "perf_loom_kick_size.svg"] {
        assert!(md.contains(&format!("]({svg})")), "{svg} not linked");
        let text = std::fs::read_to_string(out.join(svg)).expect("plot written");
        assert!(text.starts_with("<svg ") && text.trim_end().ends_with("</svg>"), "{svg}");
        assert!(text.contains("<polyline") && text.contains("(log scale)"), "{svg}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
