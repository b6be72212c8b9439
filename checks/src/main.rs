//! `wbcheck`: run the verdict matrix of the writeback models, explain scenarios, print and replay
//! counterexamples. Exit status: 0 when every verdict equals its expectation, 1 on a mismatch,
//! 2 on bad input (clap's status for its own errors too).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use wb_checks::matrix::{find_scenario, merge, run_matrix, run_row, Catalogue, Filter, Matrix, Shard};
use wb_checks::progress::RowProgress;
use wb_checks::seeds::{self, SeedMatrix};
use wb_checks::{picture, pool, render, report};
use wb_models::bounds::{Bounds, Tier};
use wb_models::harness::ShuttleSchedule;
use wb_models::outcome::Checker;
use wb_models::panic::own_panic_hook;

#[derive(Parser)]
#[command(
    name = "wbcheck",
    version,
    about = "Model-checked Linux writeback protocols: the verdict matrix, counterexamples, replay"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List scenarios, their properties and revisions with each checker's expected verdict.
    List {
        #[arg(long, default_value = "text")]
        format: Format,
    },
    /// Print a scenario's header: pattern, thread diagram, properties, bounds, abstractions.
    Explain { scenario: String },
    /// Run one scenario revision under one checker and print its counterexamples.
    Run {
        scenario: String,
        #[arg(long)]
        revision: String,
        #[arg(long)]
        checker: Checker,
        #[arg(long, default_value = "quick")]
        tier: Tier,
        #[arg(long, default_value = "text")]
        format: Format,
        /// Also write the counterexamples as an SVG swimlane picture to this file.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Print the counterexamples as Mermaid sequence diagrams instead of text or JSON.
        #[arg(long)]
        mermaid: bool,
    },
    /// Run the verdict matrix (every scenario x revision x checker unless filtered).
    Matrix {
        #[command(flatten)]
        rows: RowArgs,
        #[arg(long, default_value = "table")]
        format: MatrixFormat,
        /// Run only the shuttle rows, once per seed from $WBCHECK_SEED (default 1) on, N seeds,
        /// and fail when a row's verdict differs between seeds or from its expectation (loom and
        /// oracle rows take no seed: they are not run).
        #[arg(long, value_name = "N", value_parser = positive::<u64>, conflicts_with_all = ["shard", "part"])]
        seeds: Option<u64>,
    },
    /// Run the verdict matrix and write a static HTML page (matrix table, one SVG picture per
    /// counterexample) into a directory.
    Report {
        #[command(flatten)]
        rows: RowArgs,
        /// The directory to write index.html and the pictures into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// Re-run one execution and print its trace: a counterexample's replay handle (`loom1:...`,
    /// `shuttle1:...`, or `oracle1:...` for dontcache-kick's liveness counterexamples), or a
    /// `sched_<scenario>` fuzz input (e.g. a crash file).
    Replay {
        scenario: String,
        #[arg(long)]
        revision: String,
        /// The shuttle two share the model configuration; default: loom for a `loom1:` handle, the
        /// oracle for an `oracle1:` one, shuttle-random otherwise.
        #[arg(long)]
        checker: Option<Checker>,
        /// The counterexample's "replay" value.
        #[arg(long, required_unless_present = "fuzz_input", conflicts_with = "fuzz_input")]
        schedule: Option<String>,
        /// A fuzz input file whose bytes are the schedule.
        #[arg(long)]
        fuzz_input: Option<std::path::PathBuf>,
        #[arg(long, default_value = "quick")]
        tier: Tier,
    },
    /// Print one LKMM litmus export (a C litmus test for herd7 with the kernel's
    /// tools/memory-model, its Result line wbcheck's prediction); or, with --judge, run herd7 on
    /// every committed export and compare its verdicts with the predictions; or, with --run, run
    /// C litmus tests (the kernel's dialect) under loom through wbcheck's primitive mapping and
    /// under sequential consistency, and compare loom's verdicts with their Result lines.
    Litmus {
        #[arg(required_unless_present_any = ["judge", "judge_log", "run"])]
        scenario: Option<String>,
        #[arg(long, required_unless_present_any = ["judge", "judge_log", "run"])]
        revision: Option<String>,
        /// One of the scenario's shapes besides its core (the error for a wrong one lists them).
        #[arg(long)]
        shape: Option<String>,
        /// Judge every export with herd7, run from this tools/memory-model directory.
        #[arg(long, value_name = "MODEL_DIR", conflicts_with_all = ["scenario", "judge_log"])]
        judge: Option<PathBuf>,
        /// Judge the tests in a saved herd7 output instead of running herd7.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["scenario"])]
        judge_log: Option<PathBuf>,
        /// Run these litmus files under loom and sequential consistency (models/litmus/README.md,
        /// "Running litmus tests through the mapping").
        #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["scenario", "judge", "judge_log"])]
        run: Vec<PathBuf>,
        /// The herd7 executable.
        #[arg(long, default_value = "herd7")]
        herd7: PathBuf,
        /// Where the committed exports are.
        #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/litmus"))]
        dir: PathBuf,
    },
    /// The LKMM ordering audit (models/litmus/audit/README.md): for every loom row expected to
    /// pass, the orderings it could rest on where wbcheck's mapping is stronger than LKMM (load
    /// buffering, a failed fully ordered RMW's fences, smp_rmb after a non-returning RMW), each
    /// with a litmus test whose Result line predicts LKMM allows the cycle (herd7 judges it).
    Audit {
        /// Only this scenario's passing rows.
        scenario: Option<String>,
        /// Only this revision (a loom pass row).
        #[arg(long, requires = "scenario")]
        revision: Option<String>,
        #[arg(long, default_value = "scope")]
        tier: Tier,
        /// Write each flagged ordering's litmus test into this directory (created if missing).
        #[arg(long, value_name = "DIR")]
        litmus_dir: Option<PathBuf>,
    },
    /// Check loom itself: C11 programs of a small language run under loom with no preemption
    /// bound, compared with an SC interpreter and an RC11 enumerator (docs/c11.md).
    C11 {
        #[command(subcommand)]
        command: C11Command,
    },
    /// Combine the JSON matrices of the shards of one split run into the whole matrix (a loom
    /// row's parts joined as one process runs them, every verdict judged once).
    Merge {
        /// The shards' `matrix --format json` outputs.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, default_value = "table")]
        format: MatrixFormat,
    },
    /// Run a sequential writeback simulation.
    Simulate {
        simulation: Simulation,
        /// folio-dirty: also write the SVG plot of the charge ratio against the folio order here.
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// Measure the checkers (matrix rows over seeds, loom sweeps, the core's criterion results)
    /// and write performance.md and SVG plots.
    Bench {
        /// A tiny smoke run (two scenarios, small bounds).
        #[arg(long)]
        quick: bool,
        /// Directory for performance.md and the plots.
        #[arg(long, default_value = "docs")]
        out: std::path::PathBuf,
        /// Shuttle seeds per row (1..=N).
        #[arg(long, default_value = "3", value_parser = positive::<u64>)]
        seeds: u64,
        /// criterion's output directory.
        #[arg(long, default_value = "target/criterion")]
        criterion: std::path::PathBuf,
    },
}

/// `wbcheck c11` subcommands.
#[derive(Subcommand)]
enum C11Command {
    /// Check one program (text form, docs/c11.md): exit 0 when loom reaches exactly RC11's
    /// final states and every SC one, 1 otherwise.
    Check {
        /// The program's text (`T0: x.store(1, rel)` lines, separated by newlines or `|`), or
        /// `-` to read it from stdin.
        program: String,
    },
    /// Check generated programs: exit 0 when none shows a mismatch, 1 otherwise.
    Campaign {
        #[arg(long, default_value = "1000", value_parser = positive::<usize>)]
        programs: usize,
        /// Program i is generated from seed + i.
        #[arg(long, default_value = "1")]
        seed: u64,
        /// At most THREADSxOPSxLOCS (2..=4 threads, 1..=6 operations, 1..=3 locations).
        #[arg(long, default_value = "3x3x2", value_parser = wb_checks::c11::parse_shape)]
        shape: wb_models::c11::gen::Shape,
        /// Threads checking programs at once (default: $WBCHECK_JOBS, else the number of CPUs).
        #[arg(long, value_parser = positive::<usize>)]
        jobs: Option<usize>,
        /// Stop a program's loom search after this many seconds and leave it uncompared (the
        /// report counts and names such programs); no limit by default.
        #[arg(long, value_parser = positive::<u64>)]
        max_secs: Option<u64>,
    },
    /// Write generated programs without a mutex as herd7 C11 litmus tests, loom's final states
    /// in each file's comment (docs/c11.md: judging them with herd7's rc11.cat).
    Export {
        #[arg(long, default_value = "100", value_parser = positive::<usize>)]
        programs: usize,
        #[arg(long, default_value = "1")]
        seed: u64,
        #[arg(long, default_value = "3x3x2", value_parser = wb_checks::c11::parse_shape)]
        shape: wb_models::c11::gen::Shape,
        /// The directory to write the .litmus files into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
}

/// Which matrix rows to run, and how to show progress.
#[derive(Args)]
struct RowArgs {
    /// Only this scenario (repeatable).
    #[arg(long)]
    scenario: Vec<String>,
    /// Only this revision (repeatable).
    #[arg(long)]
    revision: Vec<String>,
    /// Only this checker (repeatable).
    #[arg(long)]
    checker: Vec<Checker>,
    #[arg(long, default_value = "quick")]
    tier: Tier,
    /// No progress on stderr (progress is shown only when stderr is a terminal).
    #[arg(long)]
    quiet: bool,
    /// Run shard I of N (1-based): every loom row's units (configuration, placement pairs) and
    /// the oracle rows dealt round-robin, shuttle iterations split; combine the shards' JSON
    /// with `wbcheck merge`.
    #[arg(long, value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Processes running rows at once, a loom row's units split over them (default:
    /// $WBCHECK_JOBS, else the number of CPUs).
    #[arg(long, value_parser = positive::<usize>)]
    jobs: Option<usize>,
    /// Internal: run only this part (I/N) of the rows, as one of `--jobs` processes.
    #[arg(long, hide = true, value_parser = Shard::parse)]
    part: Option<Shard>,
    /// Internal: of the loom row `--part` selects, run only these units (comma-separated).
    #[arg(long, hide = true, value_delimiter = ',', requires = "part")]
    units: Option<Vec<usize>>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MatrixFormat {
    Table,
    Md,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Simulation {
    /// Seed 000's workload per policy.
    ForeignFlush,
    /// Seed 003's pgbench shape per folio policy.
    FolioDirty,
}

/// A count of at least 1 (`--jobs`, `--seeds`).
fn positive<T: std::str::FromStr + PartialOrd + From<u8>>(s: &str) -> Result<T, String> {
    s.parse().ok().filter(|n| *n >= T::from(1)).ok_or_else(|| "expected an integer of at least 1".into())
}

impl RowArgs {
    /// Run the selected rows, with progress on a terminal. With `--jobs N` (N > 1) each row runs
    /// in a child process of its own (the process pool), N at a time.
    fn run(self) -> Result<Matrix, String> {
        let bounds = Bounds::from_env(self.tier)?;
        self.run_at(&bounds)
    }

    fn run_at(&self, bounds: &Bounds) -> Result<Matrix, String> {
        let jobs = match self.jobs {
            Some(n) => n,
            None => default_jobs()?,
        };
        let filter = Filter {
            scenarios: self.scenario.clone(),
            revisions: self.revision.clone(),
            checkers: self.checker.clone(),
            shard: self.shard.unwrap_or(Shard::WHOLE),
            part: self.part.unwrap_or(Shard::WHOLE),
            units: self.units.clone(),
        };
        let pooled = self.part.is_none() && jobs > 1;
        let progress = RowProgress::new(!pooled, self.quiet);
        if pooled {
            pool::run(&filter, bounds, jobs, |event| progress.show(event))
        } else {
            run_matrix(&filter, bounds, |event| progress.show(event))
        }
    }

    /// `matrix --seeds N`: the selection's shuttle rows once per seed, from the environment's
    /// seed on.
    fn run_seeds(mut self, n: u64) -> Result<SeedMatrix, String> {
        let bounds = Bounds::from_env(self.tier)?;
        let shuttle = [Checker::ShuttlePct, Checker::ShuttleRandom];
        if self.checker.is_empty() {
            self.checker = shuttle.to_vec();
        }
        if let Some(c) = self.checker.iter().find(|c| !shuttle.contains(c)) {
            return Err(format!(
                "--seeds runs shuttle rows only, and {c} takes no seed (valid checkers: shuttle-pct, shuttle-random)"
            ));
        }
        let mut runs = Vec::new();
        for seed in bounds.seed..bounds.seed.saturating_add(n) {
            runs.push((seed, self.run_at(&Bounds { seed, ..bounds.clone() })?.results));
        }
        Ok(SeedMatrix::new(bounds.tier, runs))
    }
}

/// Why a command ended early.
enum Stop {
    /// Bad input (a one-line error that names the bad value and the valid ones), or a file that
    /// cannot be read or written: exit 2.
    Error(String),
    /// Whoever read stdout has gone (`wbcheck list | head -1`): nothing is left to say, exit 0.
    StdoutClosed,
}

impl From<String> for Stop {
    fn from(message: String) -> Stop {
        Stop::Error(message)
    }
}

/// Print to stdout. Every command prints through this rather than `print!`, which panics when
/// the reader has closed the pipe.
fn emit(text: impl std::fmt::Display) -> Result<(), Stop> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    write!(stdout, "{text}").and_then(|()| stdout.flush()).map_err(|e| match e.kind() {
        std::io::ErrorKind::BrokenPipe => Stop::StdoutClosed,
        _ => Stop::Error(format!("cannot write to stdout: {e}")),
    })
}

/// `litmus --run FILE...`: each file's report, then how many agree with their Result line.
/// Every file is parsed and run before anything is printed, so bad input prints only its error.
/// herd7's column is added when the environment gives herd7 and an LKMM directory.
fn litmus_run(files: &[PathBuf]) -> Result<ExitCode, Stop> {
    use wb_models::litmus::{herd7::Herd7, run};
    let herd7 = Herd7::from_env()?;
    let mut reports = Vec::new();
    for file in files {
        reports.push(run::run_file(file, herd7.as_ref()).map_err(|e| format!("{}: {e}", file.display()))?);
    }
    let mut text = String::new();
    for (file, report) in files.iter().zip(&reports) {
        text.push_str(&format!("File {}\n{report}\n", file.display()));
    }
    let judged = reports.iter().filter(|r| r.judgements.iter().any(|j| j.checker == "loom")).count();
    let disagree = reports.iter().filter(|r| r.disagrees()).count();
    text.push_str(&format!(
        "{} of {judged} tests with a Result line agree with loom ({} without one or with an LKMM flag)\n",
        judged - disagree,
        reports.len() - judged
    ));
    match &herd7 {
        Some(h) => {
            let with_result = reports.iter().filter(|r| r.expected.is_some()).count();
            let herd_disagree = reports.iter().filter(|r| r.expected.is_some() && r.herd7_disagrees()).count();
            let models: Vec<&str> = h.models.iter().map(|(n, _)| n.as_str()).collect();
            text.push_str(&format!(
                "{} of {with_result} tests with a Result line agree with herd7 ({})\n",
                with_result - herd_disagree,
                models.join(", ")
            ));
        }
        None => text.push_str("herd7: not run (set HERD7 or PATH, and WBCHECK_LKMM_DIR)\n"),
    }
    emit(text)?;
    Ok(if disagree == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn print_matrix(matrix: &Matrix, format: MatrixFormat) -> Result<(), Stop> {
    match format {
        MatrixFormat::Json => {
            emit(format_args!("{}\n", serde_json::to_string_pretty(matrix).expect("the matrix serialises")))
        }
        MatrixFormat::Md => emit(render::markdown(matrix)),
        MatrixFormat::Table => emit(render::table(matrix)),
    }
}

/// `$WBCHECK_JOBS`, else the number of CPUs.
fn default_jobs() -> Result<usize, String> {
    match std::env::var("WBCHECK_JOBS") {
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("invalid value '{v}' for WBCHECK_JOBS: expected a positive integer")),
        Err(_) => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

fn main() -> ExitCode {
    own_panic_hook();
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(Stop::StdoutClosed) => ExitCode::SUCCESS,
        Err(Stop::Error(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn exit_for(all_matched: bool) -> ExitCode {
    if all_matched {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn dispatch(command: Command) -> Result<ExitCode, Stop> {
    match command {
        Command::List { format } => {
            let catalogue = Catalogue::new();
            if format == Format::Json {
                emit(format_args!(
                    "{}\n",
                    serde_json::to_string_pretty(&catalogue).expect("the catalogue serialises")
                ))?;
                return Ok(ExitCode::SUCCESS);
            }
            for s in &catalogue.scenarios {
                emit(format_args!("{}: {}\n", s.name, s.summary))?;
                for p in &s.properties {
                    emit(format_args!("  property {}: {}\n", p.name, p.asserts))?;
                }
                for r in &s.revisions {
                    let verdicts: Vec<String> = r
                        .expected
                        .iter()
                        .map(|(c, v)| match r.may_miss.get(c) {
                            Some(p) => format!("{c}={v}(may miss {})", p.join(",")),
                            None => format!("{c}={v}"),
                        })
                        .collect();
                    emit(format_args!("  revision {:<18} {}\n      {}\n", r.name, verdicts.join(" "), r.summary))?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { scenario } => {
            let info = find_scenario(&scenario)?.info();
            emit(format_args!("{}\n{}\n", info.header, info.scope.render()))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Run { scenario, revision, checker, tier, format, svg, mermaid } => {
            let bounds = Bounds::from_env(tier)?;
            let s = find_scenario(&scenario)?;
            let row = run_row(s, &revision, checker, &bounds)?;
            let panels = picture::row_panels(&row);
            if let Some(path) = &svg {
                if panels.is_empty() {
                    eprintln!("no counterexample: {} not written", path.display());
                } else {
                    std::fs::write(path, picture::svg(&panels))
                        .map_err(|e| format!("cannot write --svg {}: {e}", path.display()))?;
                }
            }
            if mermaid {
                let diagrams: Vec<String> = panels.iter().map(picture::mermaid).collect();
                emit(diagrams.join("\n"))?;
            } else if format == Format::Json {
                emit(format_args!("{}\n", serde_json::to_string_pretty(&row).expect("rows serialise")))?;
            } else {
                emit(render::row_text(&row))?;
            }
            Ok(exit_for(row.matched))
        }
        Command::Matrix { rows, format, seeds: Some(n) } => {
            let m = rows.run_seeds(n)?;
            match format {
                MatrixFormat::Json => {
                    emit(format_args!("{}\n", serde_json::to_string_pretty(&m).expect("the matrix serialises")))?
                }
                MatrixFormat::Md => emit(seeds::markdown(&m))?,
                MatrixFormat::Table => emit(seeds::table(&m))?,
            }
            Ok(exit_for(m.ok()))
        }
        Command::Matrix { rows, format, seeds: None } => {
            let matrix = rows.run()?;
            print_matrix(&matrix, format)?;
            // A shard's verdicts are partial (its share of each shuttle row): `merge` judges them.
            Ok(exit_for(matrix.shard.is_some() || matrix.summary.mismatched == 0))
        }
        Command::Merge { files, format } => {
            let shards = files
                .iter()
                .map(|f| {
                    let text = std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
                    serde_json::from_str::<Matrix>(&text)
                        .map_err(|e| format!("{} is not a wbcheck matrix JSON: {e}", f.display()))
                })
                .collect::<Result<Vec<_>, String>>()?;
            let matrix = merge(shards)?;
            print_matrix(&matrix, format)?;
            Ok(exit_for(matrix.summary.mismatched == 0))
        }
        Command::Report { rows, out } => {
            report::prepare(&out)?;
            let matrix = rows.run()?;
            let files = report::write(&matrix, &out)?;
            emit(format_args!("wrote {} ({} files)\n", out.join("index.html").display(), files.len()))?;
            Ok(exit_for(matrix.summary.mismatched == 0))
        }
        Command::Replay { scenario, revision, checker, schedule, fuzz_input, tier } => {
            let bounds = Bounds::from_env(tier)?;
            let s = find_scenario(&scenario)?;
            let is_oracle = schedule.as_deref().is_some_and(|h| h.starts_with("oracle1:"));
            if checker == Some(Checker::Oracle) || is_oracle {
                let handle = schedule.ok_or_else(|| Stop::Error("an oracle replay needs --schedule".into()))?;
                let replayed = wb_checks::oracle::replay(s.info().name, &revision, &handle)?;
                emit(render::replayed_text(&replayed))?;
                return Ok(ExitCode::SUCCESS);
            }
            let is_loom = schedule.as_deref().is_some_and(|h| h.starts_with("loom1:"));
            let checker = checker.unwrap_or(if is_loom { Checker::Loom } else { Checker::ShuttleRandom });
            let bytes = match &fuzz_input {
                Some(path) => Some(std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?),
                None => None,
            };
            let source = match (&bytes, &schedule) {
                (Some(b), _) => ShuttleSchedule::Bytes(b),
                (None, Some(s)) => ShuttleSchedule::Recorded(s),
                (None, None) => return Err(Stop::Error("replay needs --schedule or --fuzz-input".into())),
            };
            let replayed = s.replay(&revision, checker, source, &bounds)?;
            emit(render::replayed_text(&replayed))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Audit { scenario, revision, tier, litmus_dir } => {
            use wb_models::litmus::audit;
            let only = scenario.as_deref().map(|s| (s, revision.as_deref()));
            let rows = audit::audit_rows(&Bounds::defaults(tier), only)?;
            let tests = audit::tests(&rows);
            emit(audit::summary(&rows, &tests))?;
            if let Some(dir) = litmus_dir {
                std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                for t in &tests {
                    let path = dir.join(t.file_name());
                    std::fs::write(&path, t.render()).map_err(|e| format!("{}: {e}", path.display()))?;
                }
                emit(format!("wrote {} litmus tests to {}\n", tests.len(), dir.display()))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Litmus { scenario, revision, shape, judge, judge_log, run, herd7, dir } => {
            use wb_models::litmus::judge as j;
            if !run.is_empty() {
                return litmus_run(&run);
            }
            let judgements = match (judge, judge_log) {
                (Some(model), _) => j::run(&herd7, &model, &dir)?,
                (None, Some(log)) => {
                    let text = std::fs::read_to_string(&log).map_err(|e| format!("{}: {e}", log.display()))?;
                    let found = j::parse(&text)?;
                    if found.is_empty() {
                        return Err(Stop::Error(format!("{}: no herd7 Observation line", log.display())));
                    }
                    j::judge(&found)?
                }
                (None, None) => {
                    let (scenario, revision) = (scenario.unwrap_or_default(), revision.unwrap_or_default());
                    emit(wb_models::litmus::export(&scenario, &revision, shape.as_deref())?)?;
                    return Ok(ExitCode::SUCCESS);
                }
            };
            let mut text = String::new();
            for judgement in &judgements {
                text.push_str(&format!("{judgement}\n"));
            }
            let agree = j::all_agree(&judgements);
            text.push_str(&format!(
                "{} of {} exports agree with herd7\n",
                judgements.iter().filter(|x| matches!(x.verdict, j::Verdict::Agrees | j::Verdict::Forgiven)).count(),
                judgements.len()
            ));
            emit(text)?;
            Ok(if agree { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::C11 { command } => c11(command),
        Command::Simulate { simulation, svg } => {
            use wb_checks::folio_dirty_sim::{self as fd, PGBENCH};
            if simulation == Simulation::ForeignFlush {
                emit(wb_checks::simulate::report(&wb_checks::simulate::SEED_000))?;
                return Ok(ExitCode::SUCCESS);
            }
            emit(fd::report(&PGBENCH))?;
            if let Some(path) = svg {
                std::fs::write(&path, fd::svg(&fd::order_curve(&PGBENCH)))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { quick, out, seeds, criterion } => {
            let opts = wb_checks::bench::BenchOptions { quick, out, seeds, criterion };
            wb_checks::bench::run(&opts, |line| eprintln!("bench: {line}"))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn c11(command: C11Command) -> Result<ExitCode, Stop> {
    use wb_checks::c11;
    match command {
        C11Command::Check { program } => {
            let text = if program == "-" {
                std::io::read_to_string(std::io::stdin()).map_err(|e| format!("cannot read stdin: {e}"))?
            } else {
                program.replace('|', "\n")
            };
            let comparison = c11::check(&text).map_err(|e| format!("invalid program: {e}"))?;
            let states: String = comparison.loom.outcomes.iter().map(|o| format!("  {o}\n")).collect();
            emit(format!("{comparison}loom's final states:\n{states}"))?;
            Ok(exit_for(comparison.mismatches().is_empty()))
        }
        C11Command::Campaign { programs, seed, shape, jobs, max_secs } => {
            let jobs = match jobs {
                Some(n) => n,
                None => default_jobs()?,
            };
            let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
            let every = (programs / 100).max(1);
            let report = |done: usize| {
                if tty && (done % every == 0 || done == programs) {
                    eprint!("\r{done}/{programs} programs");
                }
            };
            let limit = max_secs.map(std::time::Duration::from_secs);
            let result = c11::campaign(programs, seed, shape, jobs, limit, &report);
            if tty {
                eprintln!();
            }
            emit(result.report(seed, shape))?;
            Ok(exit_for(result.failed == 0))
        }
        C11Command::Export { programs, seed, shape, out } => {
            let written = c11::export(programs, seed, shape, &out)?;
            emit(format!("wrote {} litmus tests to {}\n", written.len(), out.display()))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
