//! The `oracle` checker. Sequential reference models, written independently of wb-core: they
//! share no code with it and do not call it, so comparing the two is not a tautology. Each
//! models the kernel's behaviour with every call atomic, as a specification of what a call does
//! when nothing runs concurrently.
//!
//! One driver runs them all ([`drive`]): every interleaving of whole calls of each program of
//! the scenario's scope, each call applied to the reference and then to wb-core (std platform),
//! the two compared after every call (a difference is the property `oracle-divergence`, which no
//! revision expects), the scenario's properties checked on the reference at the end, the first
//! counterexample per property kept. Each oracle keeps its own knobs, derived from the typed
//! revision by an exhaustive match, so a new revision is a compile error there.

pub mod bdev_slots;
pub mod dontcache_accounting;
pub mod dontcache_kick;
pub mod folio_dirty_accounting;
pub mod foreign_policy;
pub mod liveness;
pub mod per_block_charge;
pub mod percpu_counter;
pub mod wb_pin;

use std::time::Instant;
use wb_core::revision::Revision;
use wb_core::trace::Step;
use wb_models::bounds::Tier;
use wb_models::outcome::{Counterexample, Outcome};
use wb_models::scenario::{parse_revision, unknown};

pub const ORACLE_DIVERGENCE: &str = "oracle-divergence";

/// The placement text of a program whose calls all run on one CPU.
pub const ONE_CPU: &str = "one CPU (the oracle's calls are atomic)";

/// One program of a scenario's scope: its threads' calls, run in every interleaving.
pub struct Program<Op, Setup> {
    /// The configuration of the declared scope it stands for (empty: the scenario's one).
    pub configuration: String,
    pub placement: String,
    pub threads: Vec<Vec<Op>>,
    /// Calls run after every interleaving (a final sync).
    pub epilogue: Vec<Op>,
    /// What the reference and the core start from.
    pub setup: Setup,
}

/// A scenario's oracle: its programs, and how one call runs on the reference and on the core.
pub trait Oracle {
    type Revision: Revision;
    type Op: Copy;
    type Setup;
    type Reference;
    type Core;

    fn programs(&self, tier: Tier) -> Vec<Program<Self::Op, Self::Setup>>;
    /// The bounds for the JSON `bounds` object.
    fn bounds(&self, tier: Tier) -> Vec<(String, u64)>;
    fn reference(&self, revision: Self::Revision, setup: &Self::Setup) -> Self::Reference;
    fn core(&self, revision: Self::Revision, setup: &Self::Setup) -> Self::Core;
    /// Apply `op` of `thread` to the reference; the step as the counterexample shows it.
    fn apply_reference(&self, r: &mut Self::Reference, setup: &Self::Setup, thread: usize, op: Self::Op) -> Step;
    /// Apply `op` of `thread` to the core.
    fn apply_core(&self, c: &mut Self::Core, thread: usize, op: Self::Op);
    /// How the core differs from the reference after a call, if it does.
    fn diverges(&self, r: &Self::Reference, c: &Self::Core) -> Option<String>;
    /// The properties the reference violates at the end, with a message each.
    fn violated(&self, r: &Self::Reference, setup: &Self::Setup) -> Vec<(&'static str, String)>;
}

/// Call `visit` with every interleaving of `threads` (each thread's steps keep their order).
pub fn interleavings<T: Copy>(threads: &[Vec<T>], visit: &mut impl FnMut(&[(usize, T)])) {
    fn go<T: Copy>(
        threads: &[Vec<T>],
        pos: &mut [usize],
        seq: &mut Vec<(usize, T)>,
        visit: &mut impl FnMut(&[(usize, T)]),
    ) {
        let mut done = true;
        for t in 0..threads.len() {
            if pos[t] < threads[t].len() {
                done = false;
                seq.push((t, threads[t][pos[t]]));
                pos[t] += 1;
                go(threads, pos, seq, visit);
                pos[t] -= 1;
                seq.pop();
            }
        }
        if done {
            visit(seq);
        }
    }
    let mut pos = vec![0; threads.len()];
    go(threads, &mut pos, &mut Vec::new(), visit);
}

/// Every assignment of `n` threads to `cpus` CPUs.
pub fn placements(n: usize, cpus: usize) -> Vec<Vec<usize>> {
    (0..cpus.pow(n as u32))
        .map(|mut k| {
            (0..n)
                .map(|_| {
                    let c = k % cpus;
                    k /= cpus;
                    c
                })
                .collect()
        })
        .collect()
}

/// Run `oracle` on `revision` (a name of its catalogue; an unknown one is an error) at `tier`.
pub fn drive<O: Oracle>(oracle: &O, revision: &str, tier: Tier) -> Result<Outcome, String> {
    let rev: O::Revision = parse_revision(O::Revision::SCENARIO, revision)?;
    let start = Instant::now();
    let programs = oracle.programs(tier);
    let mut outcome = Outcome::default();
    for program in &programs {
        interleavings(&program.threads, &mut |seq| {
            outcome.executions += 1;
            let mut reference = oracle.reference(rev, &program.setup);
            let mut core = oracle.core(rev, &program.setup);
            let mut steps = Vec::with_capacity(seq.len() + program.epilogue.len());
            let keep = |outcome: &mut Outcome, property, message, steps| {
                let mut cx = Counterexample::sequential(property, message, program.placement.clone(), steps);
                cx.configuration = program.configuration.clone();
                outcome.keep_first(cx);
            };
            let epilogue = program.epilogue.iter().map(|&op| (program.threads.len(), op));
            for (i, (t, op)) in seq.iter().copied().chain(epilogue).enumerate() {
                steps.push(oracle.apply_reference(&mut reference, &program.setup, t, op));
                oracle.apply_core(&mut core, t, op);
                if let Some(difference) = oracle.diverges(&reference, &core) {
                    keep(&mut outcome, ORACLE_DIVERGENCE, format!("step {}: {difference}", i + 1), steps);
                    return;
                }
            }
            for (property, message) in oracle.violated(&reference, &program.setup) {
                keep(&mut outcome, property, message, steps.clone());
            }
        });
    }
    outcome.configurations = programs.len() as u64;
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = oracle.bounds(tier);
    Ok(outcome)
}

/// The oracle checker for `scenario`.
pub fn run(scenario: &str, revision: &str, tier: Tier) -> Result<Outcome, String> {
    type Run = fn(&str, Tier) -> Result<Outcome, String>;
    const ORACLES: &[(&str, Run)] = &[
        (dontcache_kick::NAME, |r, t| {
            // The unbounded graph's counterexamples (lassos) first, then the linear driver's.
            let start = Instant::now();
            let lassos = dontcache_kick::kick_liveness(parse_revision(dontcache_kick::NAME, r)?, t)?;
            let millis = start.elapsed().as_millis() as u64;
            let mut outcome = drive(&dontcache_kick::KickOracle, r, t)?;
            let linear = std::mem::replace(&mut outcome.counterexamples, lassos);
            linear.into_iter().for_each(|cx| {
                outcome.keep_first(cx);
            });
            outcome.millis += millis;
            Ok(outcome)
        }),
        (wb_pin::NAME, |r, t| drive(&wb_pin::PinOracle, r, t)),
        (dontcache_accounting::NAME, |r, t| drive(&dontcache_accounting::AccountingOracle, r, t)),
        (percpu_counter::NAME, |r, t| drive(&percpu_counter::PercpuOracle, r, t)),
        (bdev_slots::NAME, |r, t| drive(&bdev_slots::SlotsOracle, r, t)),
        (foreign_policy::NAME, |r, t| drive(&foreign_policy::PolicyOracle, r, t)),
        (folio_dirty_accounting::NAME, |r, t| drive(&folio_dirty_accounting::FolioDirtyOracle, r, t)),
        (per_block_charge::NAME, |r, t| drive(&per_block_charge::BlockOracle, r, t)),
    ];
    let (_, run) = ORACLES.iter().find(|(name, _)| *name == scenario).ok_or_else(|| {
        let names: Vec<&str> = ORACLES.iter().map(|(n, _)| *n).collect();
        unknown("scenario", scenario, &names)
    })?;
    run(revision, tier)
}

/// Replay an oracle counterexample from its `oracle1:` handle (dontcache-kick's liveness check
/// gives them: its lassos and its stopped states); the other oracles' counterexamples are
/// sequences of whole calls, printed in full, with no handle.
pub fn replay(scenario: &str, revision: &str, handle: &str) -> Result<wb_models::harness::Replayed, String> {
    if scenario != dontcache_kick::NAME {
        return Err(format!(
            "the oracle's counterexamples of {scenario} are sequences of whole calls, printed in full by `wbcheck run`; only {}'s have replay handles",
            dontcache_kick::NAME
        ));
    }
    let rev: wb_core::revision::KickRevision = parse_revision(dontcache_kick::NAME, revision)?;
    let (configuration, steps, message) = dontcache_kick::kick_replay(rev, handle)?;
    let property = dontcache_kick::OracleHandle::decode(handle)?.property;
    let property = [
        wb_core::property::EXPEDITION,
        wb_core::property::QUIESCENCE,
        wb_core::property::NO_IDLE_SPIN,
        wb_core::property::DIRTY_TRACKING,
    ]
    .into_iter()
    .find(|p| *p == property)
    .ok_or_else(|| format!("unknown property '{property}' in the handle"))?;
    Ok(wb_models::harness::Replayed {
        placement: ONE_CPU.into(),
        configuration,
        steps,
        violations: vec![wb_models::outcome::Violation { property, message }],
        schedule: handle.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleavings_are_counted_by_the_multinomial() {
        let mut n = 0;
        interleavings(&[vec![1, 2], vec![3, 4], vec![5]], &mut |_| n += 1);
        assert_eq!(n, 5 * 4 * 3 * 2 / (2 * 2));
        assert_eq!(placements(2, 2), vec![vec![0, 0], vec![1, 0], vec![0, 1], vec![1, 1]]);
    }
}
