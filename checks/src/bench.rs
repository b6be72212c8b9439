//! `wbcheck bench`: how fast the checkers check and find bugs and how loom's cost grows with the
//! model; written to `performance.md` and SVG plots.
//!
//! Every number is a wall time on whatever machine runs it: loom and the oracle run once (they
//! are deterministic: the executions are exact, the times are one sample); shuttle runs once per
//! seed and reports medians and the spread. The core's criterion benches are read from criterion's
//! output directory when present (`cargo bench -p wb-core --bench core_ops` writes it).

use crate::matrix::{run_matrix, Filter, Row, Verdict};
use crate::pool;
use crate::progress::RowProgress;
use crate::seeds::{self, SeedMatrix};
use crate::svg::{Chart, Series};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use wb_core::revision::KickRevision;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_kick::{DontcacheKick, KickBounds, KickModel, Role, Setup, Thread};
use wb_models::harness::run_loom;
use wb_models::outcome::Checker;
use wb_models::registry::scenarios;
use wb_models::scenario::Scenario;

/// What to run.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// A tiny smoke run (two scenarios, small bounds): checks the report is produced.
    pub quick: bool,
    /// Directory for `performance.md` and the SVG plots.
    pub out: PathBuf,
    /// Shuttle seeds (1..=seeds) per row.
    pub seeds: u64,
    /// criterion's output directory (`<target>/criterion`).
    pub criterion: PathBuf,
}

/// The sizes and bounds of one bench run.
struct Plan {
    scenarios: Vec<&'static dyn Scenario>,
    bounds: Bounds,
    preemptions: Vec<usize>,
    /// dontcache-kick loom sweep over (writers, ops per writer) at this preemption bound.
    size_bound: usize,
    writers: Vec<usize>,
    ops: Vec<usize>,
    /// Per-placement loom time limit in the sweeps (a point that hits it is reported as a lower
    /// bound).
    sweep_secs: u64,
}

impl Plan {
    fn new(quick: bool) -> Result<Plan, String> {
        let mut bounds = Bounds::from_env(Tier::Quick)?;
        if !quick {
            return Ok(Plan {
                scenarios: scenarios(),
                bounds,
                preemptions: vec![0, 1, 2, 3],
                size_bound: 2,
                writers: vec![1, 2, 3],
                ops: vec![1, 2],
                sweep_secs: 30,
            });
        }
        // A smoke run: loom at bound 0 (dontcache-kick's bound-1 rows take minutes in a debug build).
        bounds = bounds.with_loom_preemptions(Some(0));
        bounds.shuttle_iterations = 200;
        let names = ["dontcache-kick", "percpu-counter"];
        Ok(Plan {
            scenarios: scenarios().into_iter().filter(|s| names.contains(&s.info().name)).collect(),
            bounds,
            preemptions: vec![0],
            size_bound: 1,
            writers: vec![1, 2],
            ops: vec![1],
            sweep_secs: 10,
        })
    }

    fn filter(&self, checkers: &[Checker]) -> Filter {
        Filter {
            scenarios: self.scenarios.iter().map(|s| s.info().name.to_string()).collect(),
            revisions: Vec::new(),
            checkers: checkers.to_vec(),
            ..Filter::default()
        }
    }
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)))
}

/// Executions per second of a row (its time in whole milliseconds, at least 1).
fn rate(row: &Row) -> f64 {
    row.executions as f64 * 1000.0 / row.millis.max(1) as f64
}

/// The rows of one (scenario, revision, checker) over every seed.
struct Group<'a> {
    rows: Vec<&'a Row>,
}

impl Group<'_> {
    fn first(&self) -> &Row {
        self.rows[0]
    }
    fn rates(&self) -> Vec<f64> {
        self.rows.iter().map(|r| rate(r)).collect()
    }
    /// (median executions, median ms) to the first counterexample, over the seeds that found one.
    fn first_found(&self) -> Option<(f64, f64, usize)> {
        let found: Vec<_> = self.rows.iter().filter_map(|r| r.first_counterexample).collect();
        if found.is_empty() {
            return None;
        }
        let ex: Vec<f64> = found.iter().map(|f| f.executions as f64).collect();
        let ms: Vec<f64> = found.iter().map(|f| f.ms).collect();
        Some((median(&ex), median(&ms), found.len()))
    }
}

fn group(rows: &[Row]) -> Vec<Group<'_>> {
    let mut order: Vec<(String, String, Checker)> = Vec::new();
    let mut by: BTreeMap<(String, String, Checker), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        let key = (r.scenario.clone(), r.revision.clone(), r.checker);
        if !by.contains_key(&key) {
            order.push(key.clone());
        }
        by.entry(key).or_default().push(r);
    }
    order.into_iter().map(|k| Group { rows: by.remove(&k).expect("grouped") }).collect()
}

/// One point of a loom sweep.
struct SweepPoint {
    x: usize,
    executions: u64,
    millis: u64,
    bounded: bool,
}

/// The first revision of a scenario expected to pass under loom (a full search), else the first.
fn passing_revision(s: &dyn Scenario) -> &'static str {
    let info = s.info();
    info.revisions
        .iter()
        .find(|r| r.expected_violated(Checker::Loom, Tier::Quick).is_empty())
        .unwrap_or(&info.revisions[0])
        .name
}

/// dontcache-kick's v7-fix-kick with `writers` DONTCACHE writers, each on a clean inode of its
/// own, `ops` operations each (the size sweep).
fn separate_writers(writers: usize, ops: usize) -> KickModel {
    let threads = (0..writers).map(|i| Thread { role: Role::Dontcache, inode: i, folio: 0 }).collect();
    let setup = Setup { threads, dirty_at_start: vec![false; writers] };
    let base = DontcacheKick::model_for(KickRevision::V7FixKick, Checker::Loom, Tier::Quick);
    KickModel { setups: Arc::new(vec![setup]), bounds: KickBounds { ops, max_threads: writers, ..base.bounds }, ..base }
}

/// criterion's median estimate (ns) of `<dir>/<id>/new/estimates.json`.
fn criterion_ns(dir: &Path, id: &str) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join(id).join("new").join("estimates.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

/// Run the bench and write the report; `progress` gets a line per step.
pub fn run(opts: &BenchOptions, mut progress: impl FnMut(&str)) -> Result<(), String> {
    let started = Instant::now();
    let plan = Plan::new(opts.quick)?;
    std::fs::create_dir_all(&opts.out).map_err(|e| format!("cannot create {}: {e}", opts.out.display()))?;

    // 1. The matrix: loom and the oracle once, shuttle once per seed.
    progress("matrix: loom and oracle");
    let det_start = Instant::now();
    let det = rows(&plan.filter(&[Checker::Loom, Checker::Oracle]), &plan.bounds)?;
    let det_secs = det_start.elapsed().as_secs_f64();
    let mut shuttle_rows = Vec::new();
    let mut shuttle_secs = Vec::new();
    let mut by_seed = Vec::new();
    for seed in 1..=opts.seeds {
        progress(&format!("matrix: shuttle, seed {seed}"));
        let bounds = Bounds { seed, ..plan.bounds.clone() };
        let t = Instant::now();
        let seed_rows = rows(&plan.filter(&[Checker::ShuttlePct, Checker::ShuttleRandom]), &bounds)?;
        shuttle_secs.push(t.elapsed().as_secs_f64());
        shuttle_rows.extend(seed_rows.iter().cloned());
        by_seed.push((seed, seed_rows));
    }
    let over_seeds = SeedMatrix::new(plan.bounds.tier, by_seed);

    progress("matrix: as `wbcheck matrix` runs it");
    let parallel = parallel_matrix(&plan)?;

    // 2. loom sweeps.
    let mut bound_sweeps: Vec<(&'static str, &'static str, Vec<SweepPoint>)> = Vec::new();
    for s in &plan.scenarios {
        let (name, rev) = (s.info().name, passing_revision(*s));
        progress(&format!("loom sweep: {name} {rev}, preemption bound {:?}", plan.preemptions));
        let mut points = Vec::new();
        for &p in &plan.preemptions {
            // The matrix already ran this point (at the scenario's own bound).
            if let Some(r) = det.iter().find(|r| {
                r.scenario == name
                    && r.revision == rev
                    && r.checker == Checker::Loom
                    && r.bounds.get("preemptions") == Some(&(p as u64))
            }) {
                points.push(SweepPoint {
                    x: p,
                    executions: r.executions,
                    millis: r.millis,
                    bounded: r.verdict == Verdict::Bounded,
                });
                continue;
            }
            let bounds = Bounds {
                loom_preemptions: Some(p),
                loom_preemptions_set: true,
                loom_max_duration: Some(std::time::Duration::from_secs(plan.sweep_secs)),
                ..plan.bounds.clone()
            };
            let o = s.run(rev, Checker::Loom, &bounds)?;
            points.push(SweepPoint { x: p, executions: o.executions, millis: o.millis, bounded: o.bounded });
        }
        bound_sweeps.push((name, rev, points));
    }
    let mut size_sweep: Vec<(usize, Vec<SweepPoint>)> = Vec::new();
    for &ops in &plan.ops {
        progress(&format!(
            "loom sweep: dontcache-kick v7-fix-kick, {ops} op(s) per writer, writers {:?}",
            plan.writers
        ));
        let mut points = Vec::new();
        for &writers in &plan.writers {
            let model = separate_writers(writers, ops);
            let bounds = Bounds {
                loom_preemptions: Some(plan.size_bound),
                loom_preemptions_set: true,
                loom_max_duration: Some(std::time::Duration::from_secs(plan.sweep_secs)),
                ..plan.bounds.clone()
            };
            let o = run_loom(&model, &bounds);
            points.push(SweepPoint { x: writers, executions: o.executions, millis: o.millis, bounded: o.bounded });
        }
        size_sweep.push((ops, points));
    }

    // 3. Executions per execution graph, at each scenario's own bound.
    let mut graphs = Vec::new();
    for s in &plan.scenarios {
        progress(&format!("loom graphs: {}", s.info().name));
        for rev in &s.info().revisions {
            graphs.push(graph_row(*s, rev.name, &plan.bounds)?);
        }
    }

    // 4. Write the report.
    let mut md = String::new();
    let total_secs = started.elapsed().as_secs_f64();
    report_header(&mut md, opts, &plan, total_secs);
    report_matrix(&mut md, &det, &shuttle_rows, det_secs, &shuttle_secs, opts.seeds, &parallel);
    report_seeds(&mut md, &over_seeds);
    report_time_to_bug(&mut md, &det, &shuttle_rows);
    report_sweeps(&mut md, &opts.out, &bound_sweeps, &size_sweep, &plan)?;
    report_graphs(&mut md, &graphs);
    report_criterion(&mut md, &opts.criterion);
    let path = opts.out.join("performance.md");
    write_page(&path, &md)?;
    progress(&format!("wrote {} in {total_secs:.0} s", path.display()));
    Ok(())
}

/// Write the report to `path`: when the page there has a `<!-- bench:begin -->` line and a later
/// `<!-- bench:end -->` line, only between them (the hand-written rest of the page is kept, and the
/// report's title dropped: the page has its own), else the whole file.
fn write_page(path: &Path, md: &str) -> Result<(), String> {
    const BEGIN: &str = "<!-- bench:begin -->\n";
    const END: &str = "<!-- bench:end -->";
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let page = match (old.find(BEGIN), old.find(END)) {
        (Some(b), Some(e)) if b < e => {
            let body = md.strip_prefix("# ").and_then(|t| t.split_once('\n')).map_or(md, |(_, rest)| rest);
            format!("{}{}\n\n{}", &old[..b + BEGIN.len()], body.trim_matches('\n'), &old[e..])
        }
        _ => md.to_string(),
    };
    std::fs::write(path, page).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Run rows in this process, one after another, with progress on a terminal.
fn rows(filter: &Filter, bounds: &Bounds) -> Result<Vec<Row>, String> {
    let progress = RowProgress::new(true, false);
    Ok(run_matrix(filter, bounds, |event| progress.show(event))?.results)
}

/// One run of the matrix as a user runs it.
struct ParallelMatrix {
    jobs: usize,
    secs: f64,
    rows: usize,
    matched: usize,
}

/// Run the plan's matrix as `wbcheck matrix` runs it (the process pool, `--jobs` = the CPUs), and
/// time it from outside the pool: its processes' start-up included.
fn parallel_matrix(plan: &Plan) -> Result<ParallelMatrix, String> {
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let progress = RowProgress::new(false, false);
    let t = Instant::now();
    let m = pool::run(&plan.filter(&Checker::ALL), &plan.bounds, jobs, |event| progress.show(event))?;
    let secs = t.elapsed().as_secs_f64();
    let matched = m.results.iter().filter(|r| r.matched).count();
    Ok(ParallelMatrix { jobs, secs, rows: m.results.len(), matched })
}

fn report_header(md: &mut String, opts: &BenchOptions, plan: &Plan, secs: f64) {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let b = &plan.bounds;
    let _ = writeln!(md, "# Performance\n");
    let _ = writeln!(
        md,
        "Written by `wbcheck bench{}` ({secs:.0} s on a {cpus}-CPU machine; release build). Wall times on a shared \
         machine are noisy: loom and oracle rows are one sample each, shuttle rows the median over seeds 1..={}, and \
         ratios are measured back to back. Bounds: loom preemption bound {}, shuttle {} iterations per row, PCT depth \
         {}.\n",
        if opts.quick { " --quick" } else { "" },
        opts.seeds,
        b.loom_preemptions.map_or("none".to_string(), |p| p.to_string()),
        b.shuttle_iterations,
        b.pct_depth
    );
    if opts.quick {
        let _ = writeln!(md, "**Smoke run (`--quick`): two scenarios, tiny bounds; not the measured numbers.**\n");
    }
}

fn report_matrix(
    md: &mut String,
    det: &[Row],
    shuttle: &[Row],
    det_secs: f64,
    shuttle_secs: &[f64],
    seeds: u64,
    parallel: &ParallelMatrix,
) {
    let _ = writeln!(md, "## The matrix, row by row\n");
    let _ = writeln!(
        md,
        "As `wbcheck matrix` runs it (each row in a child process, `--jobs {}`, the CPUs here): **{:.1} s** wall for \
         {} rows, {} matching their expected verdict.\n",
        parallel.jobs, parallel.secs, parallel.rows, parallel.matched
    );
    let _ = writeln!(
        md,
        "The quick matrix, one row after another: loom and oracle rows {det_secs:.1} s, shuttle rows {:.1} s per seed \
         (median of {seeds}): **{:.1} s** in all. Executions per second: loom and oracle one run, shuttle the median \
         over seeds (min to max in brackets). First counterexample: executions and milliseconds up to and including the \
         failing execution (shuttle: medians over the seeds that found one, and how many did).\n",
        median(shuttle_secs),
        det_secs + median(shuttle_secs)
    );
    let _ = writeln!(
        md,
        "| scenario | revision | checker | verdict | executions | ms | executions/s | first counterexample |"
    );
    let _ = writeln!(md, "|---|---|---|---|---:|---:|---:|---|");
    let mut all: Vec<&Row> = det.iter().chain(shuttle).collect();
    let order = |r: &Row| r.checker;
    all.sort_by_key(|r| (r.scenario.clone(), order(r)));
    let rows: Vec<Row> = all.into_iter().cloned().collect();
    let mut groups = group(&rows);
    // Keep the registry's order of scenarios and revisions.
    let pos = |g: &Group| {
        let r = g.first();
        let s = scenarios().iter().position(|s| s.info().name == r.scenario).unwrap_or(0);
        let info = scenarios()[s].info();
        (s, info.revisions.iter().position(|v| v.name == r.revision).unwrap_or(0), order(r))
    };
    groups.sort_by_key(pos);
    for g in &groups {
        let r = g.first();
        let rates = g.rates();
        let (lo, hi) = min_max(&rates);
        let ms: Vec<f64> = g.rows.iter().map(|r| r.millis as f64).collect();
        let ex: Vec<f64> = g.rows.iter().map(|r| r.executions as f64).collect();
        let spread = if g.rows.len() > 1 { format!(" [{lo:.0} to {hi:.0}]") } else { String::new() };
        let first = match g.first_found() {
            Some((e, t, n)) if g.rows.len() > 1 => format!("{e:.0} ex, {t:.1} ms ({n}/{} seeds)", g.rows.len()),
            Some((e, t, _)) => format!("{e:.0} ex, {t:.1} ms"),
            None if r.verdict == Verdict::Fail => "not timed".into(),
            None => "none".into(),
        };
        let verdict =
            if g.rows.iter().all(|r| r.matched) { r.verdict.to_string() } else { format!("{} MISMATCH", r.verdict) };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {verdict} | {:.0} | {:.0} | {:.0}{spread} | {first} |",
            r.scenario,
            r.revision,
            r.checker,
            median(&ex),
            median(&ms),
            median(&rates)
        );
    }
    md.push('\n');
}

/// Whether each shuttle row reached the same verdict with every seed (what `wbcheck matrix --seeds
/// N` checks).
/// One loom row's whole search at its bound, counted three ways.
struct GraphRow {
    scenario: &'static str,
    revision: &'static str,
    preemptions: Option<usize>,
    executions: u64,
    /// Distinct execution graphs (`loom::graph_id`), summed over the row's units.
    graphs: usize,
    /// Distinct behaviours (each task's steps and values read), summed over the units.
    behaviours: usize,
    /// A loom time or permutation limit cut a unit's search short: the counts are lower bounds.
    cut: bool,
}

/// The row's search at the bound its matrix row uses, unit by unit, run in full (no ranking, not
/// stopping at a violation), recording each execution's graph and behaviour.
fn graph_row(s: &dyn Scenario, revision: &'static str, bounds: &Bounds) -> Result<GraphRow, String> {
    let mut row = GraphRow {
        scenario: s.info().name,
        revision,
        preemptions: None,
        executions: 0,
        graphs: 0,
        behaviours: 0,
        cut: false,
    };
    for unit in 0..s.loom_units(revision, bounds)? {
        let g = s.loom_graphs(revision, &Bounds { loom_units: Some(vec![unit]), ..bounds.clone() })?;
        row.executions += g.executions;
        row.graphs += g.graphs.len();
        row.behaviours += g.behaviours.len();
        row.preemptions = g.preemptions;
        row.cut |= g.bounded;
    }
    Ok(row)
}

/// How far each loom row's search is from one execution per graph: the floor a search exploring
/// one execution per reads-from and modification-order graph (GenMC's) would run at the same bound.
fn report_graphs(md: &mut String, rows: &[GraphRow]) {
    let _ = writeln!(
        md,
        "## Executions per execution graph
"
    );
    let _ = writeln!(
        md,
        "Each loom row's whole search at its matrix bound, unit by unit, in full (not ranked, not stopped at a \
         violation): its executions, its distinct execution graphs (`loom::graph_id`: the store each read reads, each \
         modification order, each lock order, each choice) and its distinct behaviours (each task's steps with the \
         values it read). A search running one execution per graph would run the graph count; sleep sets are off under \
         a bound, so the bounded search runs some graphs several times.\n"
    );
    let _ = writeln!(md, "| scenario | revision | bound | executions | graphs | per graph | behaviours |");
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|");
    let per = |e: u64, g: usize| if g == 0 { 0.0 } else { e as f64 / g as f64 };
    for r in rows {
        let _ = writeln!(
            md,
            "| {} | {}{} | {} | {} | {} | {:.1} | {} |",
            r.scenario,
            r.revision,
            if r.cut { " (cut short by a loom limit: at least)" } else { "" },
            r.preemptions.map_or("none".to_string(), |p| p.to_string()),
            r.executions,
            r.graphs,
            per(r.executions, r.graphs),
            r.behaviours
        );
    }
    let (e, g, b) = rows.iter().fold((0, 0, 0), |(e, g, b), r| (e + r.executions, g + r.graphs, b + r.behaviours));
    let _ = writeln!(md, "| **all** | | | **{e}** | **{g}** | **{:.1}** | **{b}** |\n", per(e, g));
}

fn report_seeds(md: &mut String, m: &SeedMatrix) {
    let _ = writeln!(md, "## Shuttle verdicts over seeds\n");
    let _ = writeln!(
        md,
        "The shuttle rows above, seed by seed, as `wbcheck matrix --seeds {}` judges them: a row must reach its \
         expected verdict with every seed (a property its checker may miss excepted).\n",
        m.seeds.len()
    );
    let _ = writeln!(md, "```text\n{}\n```\n", seeds::summary(m).trim());
}

fn report_time_to_bug(md: &mut String, det: &[Row], shuttle: &[Row]) {
    let _ = writeln!(md, "## Time to the first counterexample, per buggy revision\n");
    let _ = writeln!(
        md,
        "For every revision expected to fail under some checker: the fastest checker (median over seeds for shuttle). \
         The fuzz campaigns' time to bug is in [fuzz-time-to-bug.md](fuzz-time-to-bug.md) (written by `python3 \
         fuzz/time_to_bug.py`).\n"
    );
    let _ = writeln!(md, "| scenario | revision | fastest checker | executions | ms | within 1 s |");
    let _ = writeln!(md, "|---|---|---|---:|---:|---|");
    let rows: Vec<Row> = det.iter().chain(shuttle).cloned().collect();
    let groups = group(&rows);
    for s in scenarios() {
        let info = s.info();
        for rev in &info.revisions {
            if Checker::ALL.iter().all(|&c| rev.expected_violated(c, Tier::Quick).is_empty()) {
                continue;
            }
            let best = groups
                .iter()
                .filter(|g| g.first().scenario == info.name && g.first().revision == rev.name)
                .filter_map(|g| g.first_found().map(|(e, t, _)| (t, e, g.first().checker)))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            if groups.iter().all(|g| g.first().scenario != info.name) {
                continue;
            }
            let line = match best {
                Some((t, e, c)) => format!("{c} | {e:.0} | {t:.1} | {}", if t <= 1000.0 { "yes" } else { "**no**" }),
                None => "none found | | | **no**".into(),
            };
            let _ = writeln!(md, "| {} | {} | {line} |", info.name, rev.name);
        }
    }
    md.push('\n');
}

fn point_label(p: &SweepPoint) -> String {
    format!("{}{} ex, {} ms", if p.bounded { ">= " } else { "" }, p.executions, p.millis)
}

fn write_svg(out: &Path, file: &str, chart: &Chart) -> Result<(), String> {
    let path = out.join(file);
    std::fs::write(&path, chart.to_svg()).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn series(label: &str, points: &[SweepPoint], f: impl Fn(&SweepPoint) -> f64) -> Series {
    Series { label: label.into(), points: points.iter().map(|p| (p.x as f64, f(p))).collect() }
}

fn report_sweeps(
    md: &mut String,
    out: &Path,
    bound_sweeps: &[(&str, &str, Vec<SweepPoint>)],
    size_sweep: &[(usize, Vec<SweepPoint>)],
    plan: &Plan,
) -> Result<(), String> {
    let _ = writeln!(md, "## loom: cost against the preemption bound\n");
    let _ = writeln!(
        md,
        "Each scenario's first revision expected to pass under loom (a complete search; failing revisions stop at the \
         first counterexample), every placement, one run per point (the point at the matrix's bound is its row); `>=` \
         marks a point cut by the {} s per-placement limit.\n",
        plan.sweep_secs
    );
    let header: Vec<String> = plan.preemptions.iter().map(|p| format!("bound {p}")).collect();
    let _ = writeln!(md, "| scenario | revision | {} |", header.join(" | "));
    let _ = writeln!(md, "|---|---|{}", "---|".repeat(plan.preemptions.len()));
    for (name, rev, points) in bound_sweeps {
        let cells: Vec<String> = points.iter().map(point_label).collect();
        let _ = writeln!(md, "| {name} | {rev} | {} |", cells.join(" | "));
    }
    md.push('\n');
    for (name, rev, points) in bound_sweeps {
        let file = format!("perf_loom_{name}.svg");
        let chart = Chart {
            title: format!("loom, {name} {rev}"),
            x_label: "preemption bound".into(),
            y_label: "executions, ms".into(),
            log_y: true,
            series: vec![
                series("executions", points, |p| p.executions as f64),
                series("ms", points, |p| p.millis as f64),
            ],
        };
        write_svg(out, &file, &chart)?;
        let _ = writeln!(md, "![loom cost of {name} against the preemption bound]({file})");
    }
    let _ = writeln!(md, "\n## loom: dontcache-kick against threads and operations\n");
    let _ = writeln!(
        md,
        "`v7`, one flusher with two passes, at preemption bound {}; writers (threads besides the flusher) on the x \
         axis, one line per operations per writer.\n",
        plan.size_bound
    );
    let header: Vec<String> = plan.writers.iter().map(|w| format!("{w} writer(s)")).collect();
    let _ = writeln!(md, "| ops per writer | {} |", header.join(" | "));
    let _ = writeln!(md, "|---|{}", "---|".repeat(plan.writers.len()));
    for (ops, points) in size_sweep {
        let cells: Vec<String> = points.iter().map(point_label).collect();
        let _ = writeln!(md, "| {ops} | {} |", cells.join(" | "));
    }
    let mut lines = Vec::new();
    for (ops, points) in size_sweep {
        lines.push(series(&format!("{ops} op(s): executions"), points, |p| p.executions as f64));
        lines.push(series(&format!("{ops} op(s): ms"), points, |p| p.millis as f64));
    }
    let chart = Chart {
        title: format!("loom, dontcache-kick v7, preemption bound {}", plan.size_bound),
        x_label: "writers".into(),
        y_label: "executions, ms".into(),
        log_y: true,
        series: lines,
    };
    write_svg(out, "perf_loom_kick_size.svg", &chart)?;
    let _ = writeln!(md, "\n![loom cost of dontcache-kick against writers and operations](perf_loom_kick_size.svg)\n");
    Ok(())
}

fn report_criterion(md: &mut String, dir: &Path) {
    let _ = writeln!(md, "## The core's operations (criterion, std platform)\n");
    let get = |id: &str| criterion_ns(dir, id);
    let pairs: [(&str, &str, &str); 5] = [
        (
            "percpu_counter_add_batch vs shared fetch_add, 1 thread",
            "counter_add/percpu_counter_add_batch/1",
            "counter_add/atomic_fetch_add/1",
        ),
        (
            "percpu_counter_add_batch vs shared fetch_add, 2 threads",
            "counter_add/percpu_counter_add_batch/2",
            "counter_add/atomic_fetch_add/2",
        ),
        ("record: packed vs v6, 1 thread", "foreign_table_record/packed/1", "foreign_table_record/v6/1"),
        ("record: packed vs v6, 2 threads", "foreign_table_record/packed/2", "foreign_table_record/v6/2"),
        (
            "kick on a set bit: v7-posted vs v7",
            "filemap_dontcache_kick_writeback_bit_set/v7-posted",
            "filemap_dontcache_kick_writeback_bit_set/v7",
        ),
    ];
    if get(pairs[0].1).is_none() {
        let _ = writeln!(
            md,
            "No criterion results in `{}`: run `cargo bench -p wb-core --bench core_ops`, then this command (or pass \
             `--criterion <target>/criterion`).\n",
            dir.display()
        );
        return;
    }
    let _ = writeln!(
        md,
        "From the last `cargo bench -p wb-core --bench core_ops` (criterion medians, ns per operation per thread; \
         threads start together, each on its own CPU slot). Ratio = first / second: below 1 the first is faster.\n"
    );
    let _ = writeln!(md, "| comparison | first ns | second ns | ratio |");
    let _ = writeln!(md, "|---|---:|---:|---:|");
    for (what, a, b) in pairs {
        if let (Some(x), Some(y)) = (get(a), get(b)) {
            let _ = writeln!(md, "| {what} | {x:.1} | {y:.1} | {:.2} |", x / y);
        }
    }
    for (what, id) in
        [("percpu_counter_read", "percpu_counter_read"), ("percpu_counter_sum (2 CPUs)", "percpu_counter_sum")]
    {
        if let Some(x) = get(id) {
            let _ = writeln!(md, "| {what} | {x:.2} | | |");
        }
    }
    md.push('\n');
}
