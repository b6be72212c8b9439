//! `wbcheck c11`: the checkers for the checker on the command line. One program checked
//! (`check`), a campaign of generated programs (`campaign`), and generated programs written as
//! herd7 C11 litmus tests with loom's final states (`export`). The language, the enumerators and
//! the comparison are wb-models' `c11` module; this module only drives them.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;
use wb_models::c11::differential::{compare, compare_within, Comparison};
use wb_models::c11::gen::{program, Seeded, Shape};
use wb_models::c11::program::{Program, MAX_LOCS, MAX_OPS, MAX_THREADS};
use wb_models::c11::{herd, run};

/// Parse a shape `THREADSxOPSxLOCS` (for example `3x3x2`): at most that many threads (2 or
/// more), operations per thread and locations.
pub fn parse_shape(text: &str) -> Result<Shape, String> {
    let bad = || {
        format!(
            "invalid shape '{text}': expected THREADSxOPSxLOCS with 2..={MAX_THREADS} threads, \
             1..={MAX_OPS} operations and 1..={MAX_LOCS} locations, for example 3x3x2"
        )
    };
    let parts: Vec<usize> = text.split('x').map(|p| p.parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
    let [threads, ops, locs] = parts[..] else { return Err(bad()) };
    if !(2..=MAX_THREADS).contains(&threads) || !(1..=MAX_OPS).contains(&ops) || !(1..=MAX_LOCS).contains(&locs) {
        return Err(bad());
    }
    Ok(Shape { max_threads: threads, max_ops: ops, max_locs: locs, mutexes: true, sc_accesses: true })
}

/// The program of `text`, checked: the comparison (exit 1 when it shows a mismatch).
pub fn check(text: &str) -> Result<Comparison, String> {
    let p = Program::parse(text)?;
    Ok(compare(&p))
}

/// The result of a campaign.
#[derive(Debug)]
pub struct Campaign {
    pub programs: usize,
    pub executions: u64,
    /// Over the programs whose RC11 executions were counted (`graph_counted` of them): loom's
    /// executions and the distinct execution graphs among them (RC11's count, unless one mismatched).
    pub graph_counted: usize,
    pub counted_executions: u64,
    pub graphs: u64,
    pub secs: f64,
    /// The failing programs' comparisons, by program number (at most [`KEEP`]).
    pub failures: Vec<(usize, Comparison)>,
    pub failed: usize,
    /// Programs whose loom search was still running at the per-program time limit: not
    /// compared (their numbers, at most [`KEEP`], and how many).
    pub stopped: Vec<usize>,
    pub stopped_count: usize,
    pub limit: Option<Duration>,
}

/// How many failing programs a campaign keeps to print.
pub const KEEP: usize = 5;

/// Program `i` of the campaign with `seed`.
pub fn campaign_program(seed: u64, i: usize, shape: Shape) -> Program {
    program(&mut Seeded::new(seed.wrapping_add(i as u64)), shape)
}

/// Check `programs` generated programs on `jobs` threads, each loom search stopped (and the
/// program left uncompared) after `limit`; `progress` is called after each.
pub fn campaign(
    programs: usize,
    seed: u64,
    shape: Shape,
    jobs: usize,
    limit: Option<Duration>,
    progress: &(dyn Fn(usize) + Sync),
) -> Campaign {
    let start = Instant::now();
    let (next, done, executions) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    let failures = Mutex::new(Vec::new());
    let (stopped, stopped_count) = (Mutex::new(Vec::new()), AtomicUsize::new(0));
    let failed = AtomicUsize::new(0);
    let (graph_counted, counted_executions, graphs) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= programs {
                    return;
                }
                let Some(c) = compare_within(&campaign_program(seed, i, shape), limit) else {
                    stopped_count.fetch_add(1, Ordering::Relaxed);
                    let mut kept = stopped.lock().unwrap();
                    if kept.len() < KEEP {
                        kept.push(i);
                    }
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                    continue;
                };
                executions.fetch_add(c.loom.executions as usize, Ordering::Relaxed);
                if c.rc11_graphs.is_some() {
                    graph_counted.fetch_add(1, Ordering::Relaxed);
                    counted_executions.fetch_add(c.loom.executions as usize, Ordering::Relaxed);
                    graphs.fetch_add(c.loom.graphs.len(), Ordering::Relaxed);
                }
                if !c.mismatches().is_empty() {
                    failed.fetch_add(1, Ordering::Relaxed);
                    let mut kept = failures.lock().unwrap();
                    if kept.len() < KEEP {
                        kept.push((i, c));
                    }
                }
                progress(done.fetch_add(1, Ordering::Relaxed) + 1);
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by_key(|(i, _)| *i);
    let mut stopped = stopped.into_inner().unwrap();
    stopped.sort_unstable();
    Campaign {
        programs,
        executions: executions.into_inner() as u64,
        graph_counted: graph_counted.into_inner(),
        counted_executions: counted_executions.into_inner() as u64,
        graphs: graphs.into_inner() as u64,
        secs: start.elapsed().as_secs_f64(),
        failures,
        failed: failed.into_inner(),
        stopped,
        stopped_count: stopped_count.into_inner(),
        limit,
    }
}

impl Campaign {
    pub fn report(&self, seed: u64, shape: Shape) -> String {
        let mut out = String::new();
        for (i, c) in &self.failures {
            let _ = writeln!(out, "program {i} (seed {seed}):\n{c}");
        }
        if let Some(limit) = self.limit.filter(|_| self.stopped_count > 0) {
            let _ = writeln!(
                out,
                "{} programs stopped at the per-program time limit of {} s and not compared (first: {})",
                self.stopped_count,
                limit.as_secs_f64(),
                self.stopped.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            );
        }
        let _ = writeln!(
            out,
            "{} programs (shape {}x{}x{}, seed {seed}): {} with a mismatch, {} compared; {} loom executions in {:.1} s",
            self.programs,
            shape.max_threads,
            shape.max_ops,
            shape.max_locs,
            self.failed,
            self.programs - self.stopped_count,
            self.executions,
            self.secs
        );
        let _ = writeln!(
            out,
            "execution graphs counted for {} programs: {} distinct graphs in their {} loom executions ({:.1} executions per graph)",
            self.graph_counted,
            self.graphs,
            self.counted_executions,
            self.counted_executions as f64 / self.graphs.max(1) as f64
        );
        out
    }
}

/// Write `programs` generated programs without a mutex into `dir` as herd7 C11 litmus tests
/// (`c11-<seed>-<i>.litmus`), each with loom's final states in its comment, each checked
/// against herd7's grammar first. Returns the files written.
pub fn export(programs: usize, seed: u64, shape: Shape, dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let shape = Shape { mutexes: false, ..shape };
    let mut written = Vec::new();
    for i in 0..programs {
        let p = campaign_program(seed, i, shape);
        let name = format!("c11-{seed}-{i}");
        let text = herd::litmus(&name, &p, &run::loom_outcomes(&p).outcomes)?;
        herd::check_syntax(&text).map_err(|e| format!("{name}: the export does not parse: {e}"))?;
        let path = dir.join(format!("{name}.litmus"));
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse_within_the_language() {
        let s = parse_shape("3x3x2").unwrap();
        assert_eq!((s.max_threads, s.max_ops, s.max_locs), (3, 3, 2));
        for bad in ["", "3x3", "1x3x2", "5x3x2", "3x0x2", "3x7x2", "3x3x4", "3x3x2x1", "axbxc"] {
            assert!(parse_shape(bad).unwrap_err().contains("THREADSxOPSxLOCS"), "{bad}");
        }
    }

    #[test]
    fn a_campaign_runs_every_program_once() {
        let shape = parse_shape("2x2x1").unwrap();
        let calls = AtomicUsize::new(0);
        let c = campaign(20, 1, shape, 2, None, &|_| {
            calls.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!((c.programs, c.failed, calls.into_inner()), (20, 0, 20));
        assert!(c.executions >= 20);
    }

    /// A program still searched at the time limit is counted and named, not compared.
    #[test]
    fn a_time_limit_leaves_programs_uncompared_and_says_so() {
        let shape = parse_shape("2x2x1").unwrap();
        let c = campaign(7, 1, shape, 1, Some(Duration::from_nanos(1)), &|_| {});
        assert_eq!((c.stopped_count, c.stopped.len(), c.failed, c.executions), (7, KEEP, 0, 0));
        let report = c.report(1, shape);
        assert!(report.contains("7 programs stopped at the per-program time limit"), "{report}");
        assert!(report.contains("0 with a mismatch, 0 compared"), "{report}");
    }
}
