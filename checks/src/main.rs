//! `wbcheck`: run the verdict matrix of the writeback models, explain scenarios, print and replay
//! counterexamples. Exit status: 0 when every verdict equals its expectation, 1 on a mismatch,
//! 2 on bad input.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use wb_checks::matrix::{find_scenario, parse_checker, run_matrix, run_row, Filter, Matrix};
use wb_checks::render;
use wb_models::bounds::{Bounds, Tier};
use wb_models::harness::ShuttleSchedule;
use wb_models::outcome::Checker;
use wb_models::panic::own_panic_hook;
use wb_models::scenario::{scenarios, unknown};

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
    /// List scenarios, their properties and revisions.
    List,
    /// Print a scenario's header: pattern, thread diagram, properties, bounds, abstractions.
    Explain { scenario: String },
    /// Run one scenario revision under one checker and print its counterexamples.
    Run {
        scenario: String,
        #[arg(long)]
        revision: String,
        #[arg(long)]
        checker: String,
        /// quick or deep.
        #[arg(long, default_value = "quick")]
        tier: String,
        /// text or json.
        #[arg(long, default_value = "text")]
        format: String,
    },
    /// Run the verdict matrix (every scenario x revision x checker unless filtered).
    Matrix {
        /// Only this scenario (repeatable).
        #[arg(long)]
        scenario: Vec<String>,
        /// Only this revision (repeatable).
        #[arg(long)]
        revision: Vec<String>,
        /// Only this checker (repeatable): loom, shuttle-pct, shuttle-random, oracle.
        #[arg(long)]
        checker: Vec<String>,
        /// quick or deep.
        #[arg(long, default_value = "quick")]
        tier: String,
        /// table, md or json.
        #[arg(long, default_value = "table")]
        format: String,
        /// Do not print a progress line per row on stderr.
        #[arg(long)]
        quiet: bool,
    },
    /// Re-run one shuttle execution and print its trace: a counterexample's replay string, or a
    /// `sched_<scenario>` fuzz input (e.g. a crash file).
    Replay {
        scenario: String,
        #[arg(long)]
        revision: String,
        /// shuttle-pct or shuttle-random (they share the model configuration).
        #[arg(long, default_value = "shuttle-random")]
        checker: String,
        /// The counterexample's "replay" value.
        #[arg(long, required_unless_present = "fuzz_input", conflicts_with = "fuzz_input")]
        schedule: Option<String>,
        /// A fuzz input file whose bytes are the schedule.
        #[arg(long)]
        fuzz_input: Option<std::path::PathBuf>,
        #[arg(long, default_value = "quick")]
        tier: String,
    },
    /// Run a sequential writeback simulation: `foreign-flush` (seed 000's workload per policy) or
    /// `folio-dirty` (seed 003's pgbench shape per folio policy).
    Simulate {
        simulation: String,
        /// folio-dirty: also write the SVG plot of the charge ratio against the folio order here.
        #[arg(long)]
        svg: Option<std::path::PathBuf>,
    },
    /// Measure the checkers (matrix rows over seeds, loom sweeps, overhead over a hand-written
    /// loom model, the core's criterion results) and write performance.md and SVG plots.
    Bench {
        /// A tiny smoke run (two scenarios, small bounds).
        #[arg(long)]
        quick: bool,
        /// Directory for performance.md and the plots.
        #[arg(long, default_value = "docs")]
        out: std::path::PathBuf,
        /// Shuttle seeds per row (1..=N).
        #[arg(long, default_value = "3")]
        seeds: String,
        /// Alternating runs per model in the overhead measurement.
        #[arg(long, default_value = "3")]
        overhead_runs: String,
        /// criterion's output directory.
        #[arg(long, default_value = "target/criterion")]
        criterion: std::path::PathBuf,
    },
}

/// Bad input: exit 2 with a one-line error that names the bad value and the valid ones.
struct BadInput(String);

fn choice<'a>(what: &str, value: &str, valid: &[&'a str]) -> Result<&'a str, BadInput> {
    valid.iter().copied().find(|v| *v == value).ok_or_else(|| BadInput(unknown(what, value, valid)))
}

fn bounds(tier: &str) -> Result<Bounds, BadInput> {
    let names = Tier::ALL.map(|t| t.name());
    let tier = Tier::from_name(choice("tier", tier, &names)?).expect("validated");
    Bounds::from_env(tier).map_err(BadInput)
}

/// A count of at least 1.
fn positive(what: &str, value: &str) -> Result<u64, BadInput> {
    match value.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(BadInput(format!("invalid value '{value}' for --{what}: expected an integer of at least 1"))),
    }
}

fn main() -> ExitCode {
    own_panic_hook();
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(BadInput(message)) => {
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

fn dispatch(command: Command) -> Result<ExitCode, BadInput> {
    match command {
        Command::List => {
            for s in scenarios() {
                let info = s.info();
                println!("{}: {}", info.name, info.summary);
                for (p, what) in info.properties {
                    println!("  property {p}: {what}");
                }
                for r in &info.revisions {
                    let verdicts: Vec<String> = Checker::ALL
                        .iter()
                        .map(|&c| {
                            format!("{}={}", c.name(), if r.expected_violated(c).is_empty() { "pass" } else { "fail" })
                        })
                        .collect();
                    println!("  revision {:<18} {}\n      {}", r.name, verdicts.join(" "), r.summary);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { scenario } => {
            let info = find_scenario(&scenario).map_err(BadInput)?.info();
            println!("{}", info.header);
            Ok(ExitCode::SUCCESS)
        }
        Command::Run { scenario, revision, checker, tier, format } => {
            let format = choice("format", &format, &["text", "json"])?;
            let bounds = bounds(&tier)?;
            let s = find_scenario(&scenario).map_err(BadInput)?;
            let checker = parse_checker(&checker).map_err(BadInput)?;
            let row = run_row(s, &revision, checker, &bounds).map_err(BadInput)?;
            if format == "json" {
                println!("{}", serde_json::to_string_pretty(&row).expect("rows serialise"));
            } else {
                print!("{}", render::row_text(&row));
            }
            Ok(exit_for(row.matched))
        }
        Command::Matrix { scenario, revision, checker, tier, format, quiet } => {
            let format = choice("format", &format, &["table", "md", "json"])?;
            let bounds = bounds(&tier)?;
            let checkers = checker.iter().map(|c| parse_checker(c)).collect::<Result<Vec<_>, _>>().map_err(BadInput)?;
            let filter = Filter { scenarios: scenario, revisions: revision, checkers };
            let matrix: Matrix = run_matrix(&filter, &bounds, |row| {
                if !quiet {
                    eprintln!(
                        "{:<16} {:<18} {:<15} expected {:<4} got {:<7} {:>9} executions {:>7} ms{}",
                        row.scenario,
                        row.revision,
                        row.checker,
                        row.expected,
                        row.verdict,
                        row.executions,
                        row.millis,
                        if row.matched { "" } else { "  MISMATCH" }
                    );
                }
            })
            .map_err(BadInput)?;
            match format {
                "json" => println!("{}", serde_json::to_string_pretty(&matrix).expect("the matrix serialises")),
                "md" => print!("{}", render::markdown(&matrix)),
                _ => print!("{}", render::table(&matrix)),
            }
            Ok(exit_for(matrix.summary.mismatched == 0))
        }
        Command::Replay { scenario, revision, checker, schedule, fuzz_input, tier } => {
            let bounds = bounds(&tier)?;
            let s = find_scenario(&scenario).map_err(BadInput)?;
            let checker = parse_checker(&checker).map_err(BadInput)?;
            let bytes = match &fuzz_input {
                Some(path) => {
                    Some(std::fs::read(path).map_err(|e| BadInput(format!("cannot read {}: {e}", path.display())))?)
                }
                None => None,
            };
            let source = match (&bytes, &schedule) {
                (Some(b), _) => ShuttleSchedule::Bytes(b),
                (None, Some(s)) => ShuttleSchedule::Recorded(s),
                (None, None) => return Err(BadInput("replay needs --schedule or --fuzz-input".into())),
            };
            let replayed = s.replay(&revision, checker, source, &bounds).map_err(BadInput)?;
            print!("{}", render::replayed_text(&replayed));
            Ok(ExitCode::SUCCESS)
        }
        Command::Simulate { simulation, svg } => {
            use wb_checks::folio_dirty_sim::{self as fd, PGBENCH};
            if choice("simulation", &simulation, &["foreign-flush", "folio-dirty"])? == "foreign-flush" {
                print!("{}", wb_checks::simulate::report(&wb_checks::simulate::SEED_000));
                return Ok(ExitCode::SUCCESS);
            }
            print!("{}", fd::report(&PGBENCH));
            if let Some(path) = svg {
                std::fs::write(&path, fd::svg(&fd::order_curve(&PGBENCH)))
                    .map_err(|e| BadInput(format!("cannot write {}: {e}", path.display())))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { quick, out, seeds, overhead_runs, criterion } => {
            let opts = wb_checks::bench::BenchOptions {
                quick,
                out,
                seeds: positive("seeds", &seeds)?,
                overhead_runs: positive("overhead-runs", &overhead_runs)? as usize,
                criterion,
            };
            wb_checks::bench::run(&opts, |line| eprintln!("bench: {line}")).map_err(BadInput)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
