//! The process pool: matrix rows run each in a child process of this binary (`wbcheck matrix
//! --part K/ROWS` runs row K; `--units U,V,...` only those units of a loom row), `jobs` at a
//! time. Processes rather than threads: loom and the runner's panic hook keep per-process state,
//! and a row that aborts takes only its own process down. `wbcheck matrix --jobs N` runs its rows here, and `wbcheck bench` times it.

use crate::matrix::{join_parts, select_rows, Filter, Matrix, Progress, Row};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use wb_models::bounds::Bounds;
use wb_models::harness::units::deal;
use wb_models::outcome::Checker;

/// Run the rows `filter` selects (its `part` must be whole) at `bounds`, `jobs` processes at a
/// time, loom rows first: they are the long ones, and a pool drained longest first finishes
/// soonest. A loom row with more than one unit is split below the row: its units dealt into up
/// to `2 * jobs` parts, one process each (more parts than processes, so a part that runs long
/// leaves the others to the free process), joined again as one process would have run the row.
/// `progress` sees each row start (its first part) and finish (its last), from the pool's threads.
pub fn run(
    filter: &Filter,
    bounds: &Bounds,
    jobs: usize,
    progress: impl Fn(Progress<'_>) + Sync,
) -> Result<Matrix, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find wbcheck's own binary: {e}"))?;
    let rows = select_rows(filter, bounds)?;
    let total = rows.len();
    progress(Progress::Planned(total));
    // (row, its units for this process; None: the row as selected).
    let mut items: Vec<(usize, Option<Vec<usize>>)> = Vec::new();
    for (k, row) in rows.iter().enumerate() {
        let parts = if row.checker == Checker::Loom { deal(&row.loom_units()?, 2 * jobs) } else { vec![] };
        if parts.len() > 1 {
            items.extend(parts.into_iter().map(|units| (k, Some(units))));
        } else {
            items.push((k, None));
        }
    }
    items.sort_by_key(|&(k, _)| rows[k].checker != Checker::Loom);
    let command = |k: usize, units: &Option<Vec<usize>>| {
        let mut cmd = std::process::Command::new(&exe);
        cmd.args(["matrix", "--format", "json", "--quiet", "--tier", bounds.tier.name()]);
        cmd.args(["--part", &format!("{}/{total}", k + 1)]);
        if let Some(units) = units {
            let list: Vec<String> = units.iter().map(usize::to_string).collect();
            cmd.args(["--units", &list.join(",")]);
        }
        for s in &filter.scenarios {
            cmd.args(["--scenario", s]);
        }
        for r in &filter.revisions {
            cmd.args(["--revision", r]);
        }
        for c in &filter.checkers {
            cmd.args(["--checker", c.name()]);
        }
        if filter.shard.count > 1 {
            cmd.args(["--shard", &filter.shard.to_string()]);
        }
        cmd.envs(bounds_env(bounds));
        cmd
    };
    let next = AtomicUsize::new(0);
    // Per row: its parts started, its parts not yet finished, and the finished parts' rows.
    let state = Mutex::new(
        (0..total)
            .map(|k| (0, items.iter().filter(|(i, _)| *i == k).count(), Vec::new()))
            .collect::<Vec<(usize, usize, Vec<Row>)>>(),
    );
    let results = Mutex::new(Vec::new());
    let worker = || -> Result<(), String> {
        while let Some((k, units)) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
            let row = &rows[*k];
            let first = {
                let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
                st[*k].0 += 1;
                st[*k].0 == 1
            };
            if first {
                progress(Progress::Started {
                    scenario: row.scenario.info().name,
                    revision: row.revision,
                    checker: row.checker,
                });
            }
            let out = command(*k, units)
                .output()
                .map_err(|e| format!("cannot run the matrix process for row {}: {e}", k + 1))?;
            let m: Matrix = serde_json::from_slice(&out.stdout).map_err(|_| {
                let err = String::from_utf8_lossy(&out.stderr);
                err.trim().strip_prefix("error: ").unwrap_or(err.trim()).to_string()
            })?;
            let done = {
                let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
                let entry = &mut st[*k];
                entry.1 -= 1;
                entry.2.extend(m.results);
                (entry.1 == 0).then(|| std::mem::take(&mut entry.2))
            };
            if let Some(parts) = done {
                let joined = join_parts(bounds.tier, filter.shard, vec![Matrix::of_rows(bounds.tier, parts)])?;
                joined.results.iter().for_each(|r| progress(Progress::Finished(r)));
                results.lock().unwrap_or_else(|e| e.into_inner()).push(joined);
            }
        }
        Ok(())
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.min(items.len())).map(|_| scope.spawn(worker)).collect();
        workers.into_iter().try_for_each(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    })?;
    let parts = results.into_inner().unwrap_or_else(|e| e.into_inner());
    join_parts(bounds.tier, filter.shard, parts)
}

/// The variables under which a child's `Bounds::from_env` gives `b` (loom's own `LOOM_*`
/// variables, inherited, win in both processes alike).
fn bounds_env(b: &Bounds) -> Vec<(&'static str, String)> {
    let mut env = vec![
        ("WBCHECK_SHUTTLE_ITERS", b.shuttle_iterations.to_string()),
        ("WBCHECK_PCT_DEPTH", b.pct_depth.to_string()),
        ("WBCHECK_SEED", b.seed.to_string()),
    ];
    if let Some(d) = b.loom_max_duration {
        env.push(("WBCHECK_LOOM_MAX_SECS", d.as_secs().to_string()));
    }
    if b.loom_bounded_sleep {
        env.push(("WBCHECK_LOOM_SLEEP_SETS", "bounded".into()));
    }
    env.push(("WBCHECK_LOOM_SOURCE_SETS", if b.loom_source_sets { "on" } else { "off" }.into()));
    if b.loom_join_races {
        env.push(("WBCHECK_LOOM_JOIN_RACES", "on".into()));
    }
    if b.loom_free_switches {
        env.push(("WBCHECK_LOOM_FREE_SWITCHES", "on".into()));
    }
    if b.loom_start_wakes {
        env.push(("WBCHECK_LOOM_START_WAKES", "on".into()));
    }
    if let Some(slices) = b.loom_slices {
        env.push(("WBCHECK_LOOM_SLICES", slices.encode()));
    }
    if b.loom_preemptions_set {
        env.push(("WBCHECK_LOOM_PREEMPTIONS", b.loom_preemptions.map_or("none".into(), |p| p.to_string())));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;
    use wb_models::bounds::{Slices, Tier};

    #[test]
    fn a_child_reads_back_the_bounds() {
        for tier in Tier::ALL {
            let mut bench = Bounds::defaults(tier).with_loom_preemptions(Some(1));
            (bench.shuttle_iterations, bench.seed) = (200, 7);
            let reduced = Bounds {
                loom_bounded_sleep: true,
                loom_source_sets: true,
                loom_join_races: true,
                loom_start_wakes: true,
                loom_free_switches: true,
                ..Bounds::defaults(tier)
            };
            let sliced =
                Bounds { loom_slices: Some(Slices { count: 6, depth: 2, width: 3 }), ..Bounds::defaults(tier) };
            let unreduced = Bounds { loom_source_sets: false, ..Bounds::defaults(tier).with_loom_preemptions(None) };
            let unbounded = Bounds::defaults(tier).with_loom_preemptions(None);
            for b in [Bounds::defaults(tier), bench, unbounded, reduced, sliced, unreduced] {
                let env = bounds_env(&b);
                let var = |k: &str| env.iter().find(|(name, _)| *name == k).map(|(_, v)| v.clone());
                assert_eq!(Bounds::with_overrides(tier, var).unwrap(), b);
            }
        }
    }
}
