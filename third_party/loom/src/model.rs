//! Model concurrent programs.

use crate::rt::{self, Execution, Scheduler, Split};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::{info, subscriber};
use tracing_subscriber::{fmt, EnvFilter};

const DEFAULT_MAX_THREADS: usize = 5;
const DEFAULT_MAX_BRANCHES: usize = 1_000;

/// Configure a model
#[derive(Debug)]
#[non_exhaustive] // Support adding more fields in the future
pub struct Builder {
    /// Max number of threads to check as part of the execution.
    ///
    /// This should be set as low as possible and must be less than
    /// [`MAX_THREADS`](crate::MAX_THREADS).
    pub max_threads: usize,

    /// Maximum number of thread switches per permutation.
    ///
    /// Defaults to `LOOM_MAX_BRANCHES` environment variable.
    pub max_branches: usize,

    /// Maximum number of permutations to explore.
    ///
    /// Defaults to `LOOM_MAX_PERMUTATIONS` environment variable.
    pub max_permutations: Option<usize>,

    /// Maximum amount of time to spend on checking
    ///
    /// Defaults to `LOOM_MAX_DURATION` environment variable.
    pub max_duration: Option<Duration>,

    /// Maximum number of thread preemptions to explore
    ///
    /// Defaults to `LOOM_MAX_PREEMPTIONS` environment variable.
    pub preemption_bound: Option<usize>,

    /// Sleep sets in a preemption-bounded search too (without a bound they are always on): a
    /// thread falls asleep after its subtree only when the bound refused no backtracking point
    /// in it. Fewer executions for the same states (PATCHED.md of wbcheck's vendored copy).
    ///
    /// Defaults to whether the `LOOM_BOUNDED_SLEEP_SETS` environment variable is set.
    pub bounded_sleep_sets: bool,

    /// Source sets (Abdulla, Aronis, Jonsson and Sagonas, POPL 2014) in the search without a
    /// preemption bound: a race's reversal adds one of its initials at the racing branch, and
    /// only when none is explored there or asleep, where the search otherwise adds every
    /// initial; a new branch runs a thread not asleep first; a sleep-set blocked execution's
    /// races are not analysed. Fewer executions for the same states (PATCHED.md of wbcheck's
    /// vendored copy). No effect under a bound.
    ///
    /// Defaults to whether the `LOOM_SOURCE_SETS` environment variable is set.
    pub source_sets: bool,

    /// Treat a thread's end and its join as racing, as upstream does: the join's wait, pending
    /// while the thread runs, races with the notify that ends it, and the search backtracks to
    /// run every other thread before that notify. They cannot be reordered (the wait completes
    /// only after the notify, the one that enables it), so by default they do not race, and
    /// those backtracking points, with the subtrees below them, are not explored. For comparing
    /// the two searches (PATCHED.md of wbcheck's vendored copy).
    ///
    /// Defaults to whether the `LOOM_JOIN_RACES` environment variable is set.
    pub join_races: bool,

    /// Let a read woken from a sleep set by stores also read the last store made before it fell
    /// asleep, as the vendored copy did before its eleventh patch (an off-by-one: that store was a
    /// choice of the read in the branch where it ran first, so reading it again repeats an
    /// execution explored there). By default the read takes only stores made since. For
    /// comparing the two searches (PATCHED.md of wbcheck's vendored copy).
    ///
    /// Defaults to whether the `LOOM_LOOSE_WAKES` environment variable is set.
    pub loose_wakes: bool,

    /// Let a thread's start wake every sleeping thread, as upstream does. A start (the thread's
    /// first step) runs only the thread's own code up to its first operation, so it depends on no
    /// sleeping thread's operation, and by default it wakes none. (A return from a yield or park,
    /// also a step without an operation, wakes every one either way.) For comparing the two
    /// searches (PATCHED.md of wbcheck's vendored copy).
    ///
    /// Defaults to whether the `LOOM_START_WAKES` environment variable is set.
    pub start_wakes: bool,

    /// Under a preemption bound, explore at a branch whose preemptions reached the bound every
    /// switch that costs none (the running thread blocked or ended there), as iterative context
    /// bounding does (Musuvathi and Qadeer, PLDI 2007). Upstream explores only the first thread
    /// there (the runnable one that yielded least), so an execution that switches there to
    /// another thread is left out though it needs no more preemptions. For a search complete up
    /// to the bound in that sense too, at a cost (PATCHED.md of wbcheck's vendored copy).
    ///
    /// Defaults to whether the `LOOM_FREE_SWITCHES` environment variable is set.
    pub free_switches: bool,

    /// Split the search by schedule prefix. An execution's prefix is its choices at its first
    /// forks (branches with more than one alternative): up to `split_depth` of them, ending early
    /// at the `split_width`-th that does not take its first alternative. Those forks are explored
    /// in full when created (every thread that may run, every store a load may read), so the
    /// prefixes do not depend on what the search finds below them. This search explores below
    /// the prefixes numbered `slice` modulo `slices`, in the order reached; the `slices` searches
    /// together run the executions of the one search with `slices` 1, each once, so they may run
    /// in separate processes. [`crate::in_slice`] tells the model whether an execution is its
    /// own. Not with `bounded_sleep_sets` under a bound (a slice cannot know which subtrees of
    /// another the bound cut). Defaults: depth 0 (no split), width unlimited, 1 slice.
    pub split_depth: usize,

    /// How many forks of a prefix may take other than their first alternative (see
    /// `split_depth`): 1 splits only along the search's first path, so few forks are explored
    /// in full; more give more, smaller subtrees at the cost of more full forks.
    pub split_width: usize,

    /// How many slices the search is split into (see `split_depth`).
    pub slices: usize,

    /// Which slice this search is, `0..slices` (see `split_depth`).
    pub slice: usize,

    /// When doing an exhaustive check, uses the file to store and load the
    /// check progress
    ///
    /// Defaults to `LOOM_CHECKPOINT_FILE` environment variable.
    pub checkpoint_file: Option<PathBuf>,

    /// How often to write the checkpoint file
    ///
    /// Defaults to `LOOM_CHECKPOINT_INTERVAL` environment variable.
    pub checkpoint_interval: usize,

    /// When `true` loom won't start state exploration until `explore_state` is
    /// called.
    pub expect_explicit_explore: bool,

    /// When `true`, locations are captured on each loom operation.
    ///
    /// Note that is is **very** expensive. It is recommended to first isolate a
    /// failing iteration using `LOOM_CHECKPOINT_FILE`, then enable location
    /// tracking.
    ///
    /// Defaults to `LOOM_LOCATION` environment variable.
    pub location: bool,

    /// Log execution output to stdout.
    ///
    /// Defaults to existence of `LOOM_LOG` environment variable.
    pub log: bool,
}

impl Builder {
    /// Create a new `Builder` instance with default values.
    pub fn new() -> Builder {
        use std::env;

        let checkpoint_interval = env::var("LOOM_CHECKPOINT_INTERVAL")
            .map(|v| {
                v.parse()
                    .expect("invalid value for `LOOM_CHECKPOINT_INTERVAL`")
            })
            .unwrap_or(20_000);

        let max_branches = env::var("LOOM_MAX_BRANCHES")
            .map(|v| v.parse().expect("invalid value for `LOOM_MAX_BRANCHES`"))
            .unwrap_or(DEFAULT_MAX_BRANCHES);

        let location = env::var("LOOM_LOCATION").is_ok();

        let log = env::var("LOOM_LOG").is_ok();

        let max_duration = env::var("LOOM_MAX_DURATION")
            .map(|v| {
                let secs = v.parse().expect("invalid value for `LOOM_MAX_DURATION`");
                Duration::from_secs(secs)
            })
            .ok();

        let max_permutations = env::var("LOOM_MAX_PERMUTATIONS")
            .map(|v| {
                v.parse()
                    .expect("invalid value for `LOOM_MAX_PERMUTATIONS`")
            })
            .ok();

        let preemption_bound = env::var("LOOM_MAX_PREEMPTIONS")
            .map(|v| v.parse().expect("invalid value for `LOOM_MAX_PREEMPTIONS`"))
            .ok();

        let bounded_sleep_sets = env::var("LOOM_BOUNDED_SLEEP_SETS").is_ok();
        let source_sets = env::var("LOOM_SOURCE_SETS").is_ok();
        let join_races = env::var("LOOM_JOIN_RACES").is_ok();
        let loose_wakes = env::var("LOOM_LOOSE_WAKES").is_ok();
        let start_wakes = env::var("LOOM_START_WAKES").is_ok();
        let free_switches = env::var("LOOM_FREE_SWITCHES").is_ok();

        let checkpoint_file = env::var("LOOM_CHECKPOINT_FILE")
            .map(|v| v.parse().expect("invalid value for `LOOM_CHECKPOINT_FILE`"))
            .ok();

        Builder {
            max_threads: DEFAULT_MAX_THREADS,
            max_branches,
            max_duration,
            max_permutations,
            preemption_bound,
            bounded_sleep_sets,
            source_sets,
            join_races,
            loose_wakes,
            start_wakes,
            free_switches,
            split_depth: 0,
            split_width: usize::MAX,
            slices: 1,
            slice: 0,
            checkpoint_file,
            checkpoint_interval,
            expect_explicit_explore: false,
            location,
            log,
        }
    }

    /// Set the checkpoint file.
    pub fn checkpoint_file(&mut self, file: &str) -> &mut Self {
        self.checkpoint_file = Some(file.into());
        self
    }

    /// Check the provided model.
    pub fn check<F>(&self, f: F)
    where
        F: Fn() + Sync + Send + 'static,
    {
        let mut i = 1;
        let mut _span = tracing::info_span!("iter", message = i).entered();

        assert!(
            self.slice < self.slices && (self.slices == 1 || self.split_depth > 0 && self.split_width > 0),
            "loom: slice {} of {} at split depth {}: the slice must be below the slice count, \
             and more than one slice needs a split depth and width",
            self.slice,
            self.slices,
            self.split_depth
        );
        assert!(
            self.split_depth == 0 || self.preemption_bound.is_none() || !self.bounded_sleep_sets,
            "loom: a split search cannot use sleep sets under a preemption bound"
        );
        let split = Split {
            depth: self.split_depth,
            width: self.split_width,
            slices: self.slices,
            slice: self.slice,
        };
        let mut execution = Execution::new(
            self.max_threads,
            self.max_branches,
            self.preemption_bound,
            self.bounded_sleep_sets,
            self.source_sets,
            split,
            !self.expect_explicit_explore,
        );
        let mut scheduler = Scheduler::new(self.max_threads);

        if let Some(ref path) = self.checkpoint_file {
            if path.exists() {
                execution.path = checkpoint::load_execution_path(path);
                execution.path.set_max_branches(self.max_branches);
            }
        }

        execution.log = self.log;
        execution.location = self.location;
        execution.join_races = self.join_races;
        execution.loose_wakes = self.loose_wakes;
        execution.start_wakes = self.start_wakes;
        execution.path.free_switches = self.free_switches;

        let f = Arc::new(f);

        let start = Instant::now();
        loop {
            if i % self.checkpoint_interval == 0 {
                info!(parent: None, "");
                info!(
                    parent: None,
                    " ================== Iteration {} ==================", i
                );
                info!(parent: None, "");

                if let Some(ref path) = self.checkpoint_file {
                    checkpoint::store_execution_path(&execution.path, path);
                }

                if let Some(max_permutations) = self.max_permutations {
                    if i >= max_permutations {
                        return;
                    }
                }

                if let Some(max_duration) = self.max_duration {
                    if start.elapsed() >= max_duration {
                        return;
                    }
                }
            }

            let f = f.clone();

            scheduler.run(&mut execution, move || {
                f();

                let lazy_statics = rt::execution(|execution| execution.lazy_statics.drop());

                // drop outside of execution
                drop(lazy_statics);

                rt::thread_done();
            });

            execution.check_for_leaks();

            i += 1;

            // Create the next iteration's `tracing` span before trying to step to the next
            // execution, as the `Execution` will capture the current span when
            // it's reset.
            _span = tracing::info_span!(parent: None, "iter", message = i).entered();
            if let Some(next) = execution.step() {
                execution = next;
            } else {
                info!(parent: None, "Completed in {} iterations", i - 1);
                return;
            }
        }
    }
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

/// Run all concurrent permutations of the provided closure.
///
/// Uses a default [`Builder`] which can be affected by environment variables.
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    let subscriber = fmt::Subscriber::builder()
        .with_env_filter(EnvFilter::from_env("LOOM_LOG"))
        .with_test_writer()
        .without_time()
        .finish();

    subscriber::with_default(subscriber, || {
        Builder::new().check(f);
    });
}

#[cfg(feature = "checkpoint")]
mod checkpoint {
    use std::fs::File;
    use std::io::prelude::*;
    use std::path::Path;

    pub(crate) fn load_execution_path(fs_path: &Path) -> crate::rt::Path {
        let mut file = File::open(fs_path).unwrap();
        let mut contents = String::new();
        file.read_to_string(&mut contents).unwrap();
        serde_json::from_str(&contents).unwrap()
    }

    pub(crate) fn store_execution_path(path: &crate::rt::Path, fs_path: &Path) {
        let serialized = serde_json::to_string(path).unwrap();

        let mut file = File::create(fs_path).unwrap();
        file.write_all(serialized.as_bytes()).unwrap();
    }
}

#[cfg(not(feature = "checkpoint"))]
mod checkpoint {
    use std::path::Path;

    pub(crate) fn load_execution_path(_fs_path: &Path) -> crate::rt::Path {
        panic!("not compiled with `checkpoint` feature")
    }

    pub(crate) fn store_execution_path(_path: &crate::rt::Path, _fs_path: &Path) {
        panic!("not compiled with `checkpoint` feature")
    }
}
