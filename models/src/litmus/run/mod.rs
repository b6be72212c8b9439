//! `wbcheck litmus --run`: C litmus tests in the Linux kernel's dialect run through wbcheck's
//! own primitive mapping, without herd7.
//!
//! herd7 answers what LKMM allows; this answers what wbcheck's checkers allow for the same
//! program, so that a litmus export's `Result:` line (the prediction taken from a loom verdict)
//! can be checked against the mapping it came from, and a hand-written test can be put to loom.
//! A test is parsed ([`parse`]), translated into a small program of threads with registers,
//! branches and computed addresses ([`lower`], [`ir`]), and run twice:
//!
//! - under loom, through wb-core's [`Platform`](wb_core::sync::Platform) primitives with the
//!   mapping of `core/src/sync.rs` ([`exec`]), with no preemption bound: C11 outcomes;
//! - by an enumerator of sequentially consistent interleavings written independently of both
//!   ([`sc`]), which also checks plain accesses for data races.
//!
//! Each run's final states, projected on the variables of the final clause as herd7 counts them,
//! give an `Observation NAME Never|Sometimes|Always POS NEG` line. The loom observation, with the
//! enumerator's data-race flag, is judged against the test's `Result:` line as the kernel's
//! `judgelitmus.sh` judges herd7's ([`super::judge::judge_one`]).

pub mod exec;
pub mod ir;
pub mod lower;
pub mod parse;
pub mod sc;

use super::judge::{judge_one, Judgement, Observation, Verdict};
use super::{Outcome, Prediction};
use ir::{Observed, Program};
use std::fmt;

/// One checker's view of a test: its distinct observed final states, each with whether it
/// satisfies the clause's proposition, and the observation they make.
#[derive(Debug, Clone)]
pub struct Checked {
    pub states: Vec<(Observed, bool)>,
    pub observation: Observation,
    /// loom: executions run; the enumerator: states explored.
    pub work: u64,
}

/// A test run under loom and under sequential consistency.
#[derive(Debug)]
pub struct Report {
    pub program: Program,
    pub prediction: Option<Prediction>,
    pub loom: Checked,
    pub sc: Checked,
    /// The first data race the enumerator found, if any.
    pub race: Option<String>,
    /// The loom observation judged against the `Result:` line, when the test has one.
    pub judgement: Option<Judgement>,
}

impl Report {
    /// Whether the test has a `Result:` line that loom's observation disagrees with.
    pub fn disagrees(&self) -> bool {
        self.judgement.as_ref().is_some_and(|j| !matches!(j.verdict, Verdict::Agrees | Verdict::Forgiven))
    }
}

/// One checker's result on `prog`: its final states judged by the clause, and the observation.
pub fn checked(prog: &Program, finals: &std::collections::BTreeSet<ir::Final>, work: u64, race: bool) -> Checked {
    let states = prog.condition.judge(finals);
    let positive = states.iter().filter(|(_, holds)| *holds).count() as u64;
    let negative = states.len() as u64 - positive;
    let outcome = match (positive, negative) {
        (0, _) => Outcome::Never,
        (_, 0) => Outcome::Always,
        _ => Outcome::Sometimes,
    };
    Checked {
        states,
        observation: Observation { name: prog.name.clone(), outcome, positive, negative, data_race: race },
        work,
    }
}

/// Parses, translates and runs one test. An error names the line and the construct that is not
/// supported, or what went wrong in an execution.
pub fn run(text: &str) -> Result<Report, String> {
    let test = parse::parse(text).map_err(|e| e.to_string())?;
    let program = lower::lower(&test).map_err(|e| e.to_string())?;
    let enumerated = sc::enumerate(&program)?;
    let reached = exec::loom_finals(&program)?;
    let race = enumerated.race.is_some();
    let loom = checked(&program, &reached.finals, reached.executions, race);
    let sc = checked(&program, &enumerated.finals, enumerated.states, race);
    let judgement = test.result.map(|predicted| Judgement {
        name: program.name.clone(),
        checker: "loom",
        predicted,
        observed: Some(loom.observation.clone()),
        verdict: judge_one(predicted, &loom.observation),
    });
    Ok(Report { program, prediction: test.result, loom, sc, race: enumerated.race, judgement })
}

impl fmt::Display for Report {
    /// herd7's layout per checker: `States`, the observed states, the condition, `Observation`;
    /// then the data-race check and the judgement.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.program;
        let c = &p.condition;
        let quantifier = match c.quantifier {
            parse::Quantifier::Exists => "exists",
            parse::Quantifier::NotExists => "~exists",
            parse::Quantifier::Forall => "forall",
        };
        writeln!(f, "Test {}", p.name)?;
        for (checker, checked, work) in [("loom", &self.loom, "executions"), ("sc", &self.sc, "states explored")] {
            writeln!(f, "States {} ({checker}, {} {work})", checked.states.len(), checked.work)?;
            for (state, holds) in &checked.states {
                let terms: Vec<String> =
                    c.names.iter().zip(state).map(|(n, v)| format!("{n}={};", p.show(*v))).collect();
                writeln!(f, "{}{}", terms.join(" "), if *holds { "  <- satisfies the clause" } else { "" })?;
            }
            let o = &checked.observation;
            writeln!(f, "Condition {quantifier}: {} of {} states", o.positive, o.positive + o.negative)?;
            writeln!(f, "Observation {} {} {} {} ({checker})", o.name, o.outcome.name(), o.positive, o.negative)?;
        }
        match &self.race {
            Some(race) => writeln!(f, "Flag data-race: {race}")?,
            None => writeln!(f, "No data race")?,
        }
        match &self.judgement {
            Some(j) => writeln!(f, "{j}"),
            None => writeln!(f, "--   {}: no Result line, not judged", p.name),
        }
    }
}
