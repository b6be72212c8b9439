//! Progress of matrix rows on stderr, drawn by indicatif (as cargo-nextest and cargo-mutants draw
//! theirs): a line per finished row above a bar of the rows done, the rows running and, for rows
//! running in this process, their executions so far. Nothing at all when stderr is not a
//! terminal: indicatif hides the bar and its lines there, so pipes and tests see a quiet stderr.

use crate::matrix::{Progress, Row};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wb_models::harness::executions_started;

pub struct RowProgress {
    bar: ProgressBar,
    running: Mutex<Vec<String>>,
    /// [`executions_started`] when the rows running began, or [`IDLE`].
    base: Arc<AtomicU64>,
}

/// [`RowProgress::base`] while no row runs.
const IDLE: u64 = u64::MAX;

impl RowProgress {
    /// `in_process`: the rows run in this process, whose executions counter then counts them (a
    /// pool's children count their own). `quiet`: show nothing even on a terminal.
    pub fn new(in_process: bool, quiet: bool) -> RowProgress {
        let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let base = Arc::new(AtomicU64::new(IDLE));
        let executions = if in_process { "{executions}" } else { "" };
        let since = base.clone();
        let style = ProgressStyle::with_template(&format!(
            "{{elapsed:>4}} [{{bar:20}}] {{pos}}/{{len}} rows  {{msg}}{executions}"
        ))
        .expect("a valid template")
        .with_key("executions", move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
            let base = since.load(Ordering::Relaxed);
            if base != IDLE {
                let _ = write!(w, ": {} executions", executions_started() - base);
            }
        })
        .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(None, target).with_style(style);
        bar.enable_steady_tick(Duration::from_secs(1));
        RowProgress { bar, running: Mutex::new(Vec::new()), base }
    }

    pub fn show(&self, event: Progress<'_>) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        match event {
            Progress::Planned(rows) => self.bar.set_length(rows as u64),
            Progress::Started { scenario, revision, checker } => {
                if running.is_empty() {
                    self.base.store(executions_started(), Ordering::Relaxed);
                }
                running.push(format!("{scenario} {revision} {checker}"));
            }
            Progress::Finished(row) => {
                let label = format!("{} {} {}", row.scenario, row.revision, row.checker);
                running.retain(|r| *r != label);
                if running.is_empty() {
                    self.base.store(IDLE, Ordering::Relaxed);
                }
                self.bar.println(format!("{:>6.1} s  {}", self.bar.elapsed().as_secs_f64(), row_line(row)));
                self.bar.inc(1);
            }
        }
        self.bar.set_message(if running.is_empty() {
            String::new()
        } else {
            format!("running {}", running.join(", "))
        });
    }
}

impl Drop for RowProgress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

fn row_line(row: &Row) -> String {
    format!(
        "{:<20} {:<28} {:<15} expected {:<4} got {:<7} {:>9} executions {:>7} ms{}",
        row.scenario,
        row.revision,
        row.checker.name(),
        row.expected.name(),
        row.verdict.name(),
        row.executions,
        row.millis,
        if row.matched { "" } else { "  MISMATCH" }
    )
}
