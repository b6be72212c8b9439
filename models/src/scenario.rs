//! What a scenario is: its catalogue entry (name, header, properties, scope, revisions with their
//! expected verdicts) and how the checkers run it. The list of scenarios is [`crate::registry`].
//! Scenario and property names are a contract of the JSON verdicts (docs/contract.md).

use crate::bounds::{Bounds, Tier};
use crate::harness::{Replayed, ShuttleSchedule};
use crate::outcome::{Checker, Outcome};
use std::collections::BTreeSet;
use wb_core::revision::{Expect, Expected, Provenance, Revision, Role};

/// A revision of a scenario as the catalogue declares it (`wb_core::revision`): the properties
/// each checker is expected to find violated (empty: expected to pass), indexed like
/// [`Checker::ALL`].
#[derive(Debug, Clone)]
pub struct RevisionInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub provenance: Provenance,
    pub role: Role,
    pub expected: Expected,
}

/// The revision of `scenario` called `name`, or an error naming the valid ones.
pub fn parse_revision<R: Revision>(scenario: &str, name: &str) -> Result<R, String> {
    R::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = R::all().map(|r| r.name()).collect();
        unknown("revision", name, &names) + " for scenario " + scenario
    })
}

/// The catalogue entries of every revision of `R`.
pub fn revision_infos<R: Revision>() -> Vec<RevisionInfo> {
    R::CATALOGUE
        .iter()
        .map(|r| RevisionInfo {
            name: r.name,
            summary: r.summary,
            provenance: r.provenance,
            role: r.role,
            expected: r.expected,
        })
        .collect()
}

impl RevisionInfo {
    /// What `checker` is expected to find at `tier` ([`Expect::at`]).
    pub fn expect(&self, checker: Checker, tier: Tier) -> Expect {
        let i = Checker::ALL.iter().position(|c| *c == checker).expect("every checker is in ALL");
        self.expected[i].at(tier == Tier::Deep)
    }

    /// The properties `checker` is expected to find violated at `tier`, the ones it may miss included.
    pub fn expected_violated(&self, checker: Checker, tier: Tier) -> BTreeSet<&'static str> {
        self.expect(checker, tier).violated.iter().copied().collect()
    }

    /// The properties of [`RevisionInfo::expected_violated`] that `checker` may miss at `tier`.
    pub fn may_miss(&self, checker: Checker, tier: Tier) -> BTreeSet<&'static str> {
        self.expect(checker, tier).may_miss.iter().copied().collect()
    }

    /// The properties `checker` must find violated at `tier`: the expected ones it may not miss.
    pub fn must_find(&self, checker: Checker, tier: Tier) -> BTreeSet<&'static str> {
        &self.expected_violated(checker, tier) - &self.may_miss(checker, tier)
    }

    /// The bounds `checker` runs this revision with: a shuttle checker's iterations times the
    /// catalogue's scale for it ([`Expect::shuttle_scale`]).
    pub fn bounds_for(&self, checker: Checker, bounds: &Bounds) -> Bounds {
        match checker {
            Checker::ShuttlePct | Checker::ShuttleRandom => {
                bounds.scaled_shuttle(self.expect(checker, bounds.tier).shuttle_scale)
            }
            Checker::Loom | Checker::Oracle => bounds.clone(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ScenarioInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// The scenario header (pattern, thread diagram, properties, bounds, abstractions, expected
    /// verdicts): `wbcheck explain` prints it.
    pub header: &'static str,
    /// (property, what it asserts).
    pub properties: &'static [(&'static str, &'static str)],
    /// The configuration space the verdicts are about (`wbcheck explain` prints it).
    pub scope: crate::scope::ScopeDecl,
    pub revisions: Vec<RevisionInfo>,
}

impl ScenarioInfo {
    pub fn revision(&self, name: &str) -> Option<&RevisionInfo> {
        self.revisions.iter().find(|r| r.name == name)
    }

    pub fn revision_names(&self) -> Vec<&'static str> {
        self.revisions.iter().map(|r| r.name).collect()
    }
}

/// A scenario the loom and shuttle checkers can run (the oracle checker lives in wb-checks).
pub trait Scenario: Sync {
    fn info(&self) -> ScenarioInfo;

    /// Run `revision` under `checker` (loom or a shuttle checker), a shuttle checker at the
    /// catalogue's scale of `bounds`' iterations ([`RevisionInfo::bounds_for`]). `revision` must be
    /// one of [`ScenarioInfo::revisions`]; an unknown name is an error, never a panic.
    fn run(&self, revision: &str, checker: Checker, bounds: &Bounds) -> Result<Outcome, String>;

    /// Re-run one execution: a loom counterexample from its `loom1:` handle, a shuttle one from
    /// its `shuttle1:` string or a fuzzer's bytes (see [`crate::harness::replay`]).
    fn replay(
        &self,
        revision: &str,
        checker: Checker,
        schedule: ShuttleSchedule<'_>,
        bounds: &Bounds,
    ) -> Result<Replayed, String>;

    /// How many units of work (variant, placement pairs) `revision`'s loom row has at `bounds`'
    /// tier ([`crate::harness::units`]).
    fn loom_units(&self, revision: &str, bounds: &Bounds) -> Result<usize, String>;

    /// The execution graphs loom's search of `revision` reaches at `bounds` (its selected units,
    /// at its preemption bound alone, the whole search): for comparing reductions.
    fn loom_graphs(&self, revision: &str, bounds: &Bounds) -> Result<crate::harness::GraphSearch, String>;

    /// How large `revision`'s loom model is at `bounds`' tier, in the units of the c11
    /// differential tests ([`crate::harness::sizes`]).
    fn loom_sizes(&self, revision: &str, bounds: &Bounds) -> Result<crate::harness::record::Sizes, String>;

    /// The orderings of `revision`'s loom model at `bounds`' tier that the LKMM ordering audit
    /// flags ([`crate::litmus::audit`]), each with how many executions showed it, and how many
    /// executions were audited.
    fn lkmm_audit(&self, revision: &str, bounds: &Bounds) -> Result<(crate::litmus::audit::Findings, u64), String>;
}

/// A scenario given by its catalogue entry and the model each checker runs; [`Scenario`]'s `run`
/// and `replay` follow from them.
pub trait ModelScenario: Sync {
    type Model: crate::harness::Model;

    fn info(&self) -> ScenarioInfo;

    /// The model of `revision` (a name from [`ScenarioInfo::revisions`]; an unknown name is an
    /// error) as `checker` runs it at `tier`.
    fn model(&self, revision: &str, checker: Checker, tier: crate::bounds::Tier) -> Result<Self::Model, String>;
}

impl<S: ModelScenario> Scenario for S {
    fn info(&self) -> ScenarioInfo {
        ModelScenario::info(self)
    }

    fn run(&self, revision: &str, checker: Checker, bounds: &Bounds) -> Result<Outcome, String> {
        let model = self.model(revision, checker, bounds.tier)?;
        let info = ModelScenario::info(self);
        let rev = info.revision(revision).ok_or_else(|| unknown("revision", revision, &info.revision_names()))?;
        crate::harness::run(&model, checker, &rev.bounds_for(checker, bounds))
    }

    fn replay(
        &self,
        revision: &str,
        checker: Checker,
        schedule: ShuttleSchedule<'_>,
        bounds: &Bounds,
    ) -> Result<Replayed, String> {
        crate::harness::replay(&self.model(revision, checker, bounds.tier)?, checker, schedule, bounds)
    }

    fn loom_units(&self, revision: &str, bounds: &Bounds) -> Result<usize, String> {
        Ok(crate::harness::loom_unit_count(&self.model(revision, Checker::Loom, bounds.tier)?, bounds))
    }

    fn loom_graphs(&self, revision: &str, bounds: &Bounds) -> Result<crate::harness::GraphSearch, String> {
        let model = self.model(revision, Checker::Loom, bounds.tier)?;
        let info = ModelScenario::info(self);
        let rev = info.revision(revision).ok_or_else(|| unknown("revision", revision, &info.revision_names()))?;
        Ok(crate::harness::loom_graphs(&model, &rev.bounds_for(Checker::Loom, bounds)))
    }

    fn loom_sizes(&self, revision: &str, bounds: &Bounds) -> Result<crate::harness::record::Sizes, String> {
        Ok(crate::harness::record::loom_sizes(&self.model(revision, Checker::Loom, bounds.tier)?, bounds))
    }

    fn lkmm_audit(&self, revision: &str, bounds: &Bounds) -> Result<(crate::litmus::audit::Findings, u64), String> {
        Ok(crate::litmus::audit::audit_model(&self.model(revision, Checker::Loom, bounds.tier)?, bounds))
    }
}

/// The error for a name that is not in a list: names the bad value and the valid ones.
pub fn unknown(what: &str, bad: &str, valid: &[&str]) -> String {
    format!("unknown {what} '{bad}' (valid: {})", valid.join(", "))
}
