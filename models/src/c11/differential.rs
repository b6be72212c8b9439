//! The differential check of one program: loom's final states against the SC interpreter's and
//! the RC11 enumerator's.
//!
//! - every SC final state is one loom reaches (SC executions are C11 executions);
//! - loom's set equals RC11's for the program as loom reads it: loom treats a SeqCst access as
//!   an AcqRel one (an Acquire load, a Release store), a documented weakening, so the program
//!   with those accesses weakened ([`Program::as_loom`]) is the one to compare with; for a
//!   program without SeqCst accesses the two are the same program. RC11's set for the program
//!   itself is then a subset of loom's (weakening an order only adds outcomes), which is
//!   checked too;
//! - not only the final states: loom reaches as many distinct execution graphs
//!   (`loom::graph_id`: the store each read reads, each location's modification order, each
//!   mutex's lock order) as RC11 has consistent executions of that program ([`rc11::graphs`]), so
//!   an exploration that drops an execution whose final state another execution also reaches is
//!   caught too. Programs with more than [`GRAPH_LIMIT`] candidate executions per guess of their
//!   compare-exchanges are not counted ([`Comparison::rc11_graphs`] is `None`).

use super::program::{Outcome, Program};
use super::run::{loom_outcomes_capped, loom_outcomes_within, Reached};
use super::{rc11, sc};
use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

/// The most candidate executions per guess of the compare-exchanges [`rc11::graphs`] enumerates
/// for a comparison (it counts by brute force).
pub const GRAPH_LIMIT: usize = 50_000;

/// What each side reached for one program.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub program: Program,
    pub loom: Reached,
    pub sc: BTreeSet<Outcome>,
    /// RC11's outcomes of the program as loom reads it ([`Program::as_loom`]).
    pub rc11: BTreeSet<Outcome>,
    /// RC11's outcomes of the program itself (the same set when it has no SeqCst access).
    pub rc11_strict: BTreeSet<Outcome>,
    /// RC11's consistent executions of the program as loom reads it, counted (`None`: more than
    /// [`GRAPH_LIMIT`] candidates).
    pub rc11_graphs: Option<usize>,
}

/// A way loom's set can be wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mismatch {
    /// An SC final state loom never reached (its exploration is incomplete).
    MissedSc,
    /// A final state RC11 allows that loom never reached (incomplete).
    Missed,
    /// A final state loom reached that RC11 forbids (unsound: a counterexample that is not one).
    Forbidden,
    /// loom reached more or fewer distinct execution graphs than RC11 has consistent executions
    /// (fewer: incomplete even where the final states hide it; more: an inconsistent one).
    Graphs,
}

impl Mismatch {
    pub const ALL: [Mismatch; 4] = [Mismatch::MissedSc, Mismatch::Missed, Mismatch::Forbidden, Mismatch::Graphs];

    pub fn name(self) -> &'static str {
        match self {
            Mismatch::MissedSc => "missed-sc",
            Mismatch::Missed => "missed-rc11",
            Mismatch::Forbidden => "forbidden",
            Mismatch::Graphs => "graphs",
        }
    }
}

/// Run every side on `p`.
pub fn compare(p: &Program) -> Comparison {
    compare_within(p, None).expect("no time limit")
}

/// [`compare`], or `None` when loom's search was still running after `limit`.
pub fn compare_within(p: &Program, limit: Option<Duration>) -> Option<Comparison> {
    compare_with(p, loom_outcomes_within(p, limit)?)
}

/// [`compare`], or `None` when loom's search needs more than `cap` executions.
pub fn compare_capped(p: &Program, cap: usize) -> Option<Comparison> {
    compare_with(p, loom_outcomes_capped(p, cap)?)
}

fn compare_with(p: &Program, loom: Reached) -> Option<Comparison> {
    let rc11 = rc11::outcomes(&p.as_loom());
    let rc11_strict = if p.has_sc_access() { rc11::outcomes(p) } else { rc11.clone() };
    let rc11_graphs = rc11::graphs(&p.as_loom(), GRAPH_LIMIT);
    Some(Comparison { program: p.clone(), loom, sc: sc::outcomes(p), rc11, rc11_strict, rc11_graphs })
}

impl Comparison {
    /// The final states that show `kind` (none for [`Mismatch::Graphs`], a count).
    pub fn witnesses(&self, kind: Mismatch) -> Vec<&Outcome> {
        let loom = &self.loom.outcomes;
        match kind {
            Mismatch::MissedSc => self.sc.difference(loom).collect(),
            Mismatch::Missed => {
                let missed: BTreeSet<&Outcome> =
                    self.rc11.difference(loom).chain(self.rc11_strict.difference(loom)).collect();
                missed.into_iter().collect()
            }
            Mismatch::Forbidden => loom.difference(&self.rc11).collect(),
            Mismatch::Graphs => Vec::new(),
        }
    }

    /// Whether the program shows `kind`.
    pub fn shows(&self, kind: Mismatch) -> bool {
        match kind {
            Mismatch::Graphs => self.rc11_graphs.is_some_and(|n| n != self.loom.graphs.len()),
            _ => !self.witnesses(kind).is_empty(),
        }
    }

    /// Every mismatch the program shows.
    pub fn mismatches(&self) -> Vec<Mismatch> {
        Mismatch::ALL.into_iter().filter(|&k| self.shows(k)).collect()
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.program)?;
        writeln!(
            f,
            "loom: {} final states in {} executions; SC: {}; RC11: {}{}",
            self.loom.outcomes.len(),
            self.loom.executions,
            self.sc.len(),
            self.rc11.len(),
            if self.program.has_sc_access() {
                format!(" (SeqCst accesses as loom reads them; {} with them)", self.rc11_strict.len())
            } else {
                String::new()
            }
        )?;
        if let Some(n) = self.rc11_graphs {
            writeln!(f, "execution graphs: loom {}, RC11 {n}", self.loom.graphs.len())?;
        }
        for kind in Mismatch::ALL {
            let w = self.witnesses(kind);
            if !w.is_empty() {
                writeln!(f, "{} ({}):", kind.name(), w.len())?;
                for o in w {
                    writeln!(f, "  {o}")?;
                }
            }
        }
        Ok(())
    }
}
