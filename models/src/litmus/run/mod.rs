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

use super::herd7::Herd7;
use super::judge::{judge_expected, Judgement, Observation, Verdict};
use super::Outcome;
use ir::{Observed, Program};
use parse::Expected;
use std::fmt;
use std::path::Path;

/// One checker's view of a test: its distinct observed final states, each with whether it
/// satisfies the clause's proposition, and the observation they make.
#[derive(Debug, Clone)]
pub struct Checked {
    pub states: Vec<(Observed, bool)>,
    pub observation: Observation,
    /// loom: executions run; the enumerator: states explored.
    pub work: u64,
}

/// A test run under loom and under sequential consistency, and by herd7 where it is installed.
#[derive(Debug)]
pub struct Report {
    pub program: Program,
    pub expected: Option<Expected>,
    pub loom: Checked,
    pub sc: Checked,
    /// The first data race the enumerator found, if any.
    pub race: Option<String>,
    /// herd7's observation under each LKMM copy, or why there is none.
    pub herd7: Vec<(String, Result<Observation, String>)>,
    /// The `Result:` line judged against loom's observation, then herd7's (none without one;
    /// loom's is absent for a `Flag` line, which only LKMM computes).
    pub judgements: Vec<Judgement>,
}

impl Report {
    /// Whether loom's observation disagrees with the test's `Result:` line.
    pub fn disagrees(&self) -> bool {
        self.judgements.iter().any(|j| j.checker == "loom" && !passes(&j.verdict))
    }

    /// Whether some herd7 observation is missing or disagrees with the `Result:` line.
    pub fn herd7_disagrees(&self) -> bool {
        self.judgements.iter().any(|j| j.checker != "loom" && !passes(&j.verdict))
    }
}

fn passes(v: &Verdict) -> bool {
    matches!(v, Verdict::Agrees | Verdict::Forgiven)
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
        observation: Observation {
            name: prog.name.clone(),
            outcome,
            positive,
            negative,
            data_race: race,
            flags: Vec::new(),
        },
        work,
    }
}

/// Parses, translates and runs one test under loom and SC. An error names the line and the
/// construct that is not supported, or what went wrong in an execution.
pub fn run(text: &str) -> Result<Report, String> {
    let test = parse::parse(text).map_err(|e| e.to_string())?;
    let program = lower::lower(&test).map_err(|e| e.to_string())?;
    let enumerated = sc::enumerate(&program)?;
    let reached = exec::loom_finals(&program)?;
    let race = enumerated.race.is_some();
    let loom = checked(&program, &reached.finals, reached.executions, race);
    let sc = checked(&program, &enumerated.finals, enumerated.states, race);
    let mut report = Report {
        program,
        expected: test.result,
        loom,
        sc,
        race: enumerated.race,
        herd7: Vec::new(),
        judgements: Vec::new(),
    };
    report.judge("loom".into(), Some(report.loom.observation.clone()), false);
    Ok(report)
}

/// [`run`], and herd7 on the same file under each of its LKMM copies.
pub fn run_file(file: &Path, herd7: Option<&Herd7>) -> Result<Report, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut report = run(&text)?;
    for (name, dir) in herd7.map(|h| h.models.as_slice()).unwrap_or_default() {
        let observed = herd7.expect("models come from it").observe(dir, file);
        report.judge(format!("herd7 {name}"), observed.as_ref().ok().cloned(), true);
        if let Err(why) = &observed {
            if let Some(j) = report.judgements.last_mut().filter(|j| j.observed.is_none()) {
                j.verdict = Verdict::Missing(why.clone());
            }
        }
        report.herd7.push((name.clone(), observed));
    }
    Ok(report)
}

impl Report {
    /// Adds the judgement of `checker`'s observation against the `Result:` line, if there is one.
    fn judge(&mut self, checker: String, observed: Option<Observation>, computes_flags: bool) {
        let Some(expected) = self.expected.clone() else { return };
        let verdict = match &observed {
            Some(o) => match judge_expected(&expected, o, computes_flags) {
                Some(v) => v,
                None => return,
            },
            None => Verdict::Missing("no observation".into()),
        };
        self.judgements.push(Judgement {
            name: self.program.name.clone(),
            checker,
            predicted: expected,
            observed,
            verdict,
        });
    }
}

impl fmt::Display for Report {
    /// herd7's layout per checker: `States`, the observed states, the condition, `Observation`;
    /// then herd7's observations, the data-race check and the judgements.
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
        for (model, observed) in &self.herd7 {
            match observed {
                Ok(o) => {
                    let flags: String = o.flags.iter().map(|x| format!(" (flag {x})")).collect();
                    let race = if o.data_race { " (data race flagged)" } else { "" };
                    let (outcome, pos, neg) = (o.outcome.name(), o.positive, o.negative);
                    writeln!(f, "Observation {} {outcome} {pos} {neg} (herd7 {model}){race}{flags}", o.name)?
                }
                Err(why) => writeln!(f, "Observation {} none (herd7 {model}): {why}", p.name)?,
            }
        }
        match &self.race {
            Some(race) => writeln!(f, "Flag data-race: {race}")?,
            None => writeln!(f, "No data race")?,
        }
        match &self.expected {
            None => writeln!(f, "--   {}: no Result line, not judged", p.name)?,
            Some(e @ Expected::Flag(_)) => {
                writeln!(f, "--   {}: Result: {e} is LKMM's own flag; loom not judged", p.name)?
            }
            Some(_) => {}
        }
        for j in &self.judgements {
            writeln!(f, "{j}")?;
        }
        Ok(())
    }
}
