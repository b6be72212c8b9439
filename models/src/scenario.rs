//! The scenario registry: names, headers, properties, revisions and the expected verdict of each
//! (revision, checker) pair. Scenario and property names are a contract (DESIGN.md §6).

use crate::bounds::Bounds;
use crate::harness::{Replayed, ShuttleSchedule};
use crate::outcome::{Checker, Outcome};
use std::collections::BTreeSet;

/// A revision of a scenario with the properties each checker is expected to find violated
/// (empty: expected to pass). Indexed like [`Checker::ALL`].
#[derive(Debug, Clone)]
pub struct RevisionInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub expected: [&'static [&'static str]; 4],
}

/// A revision enum as the catalogue sees it: its variants in order, each with a name and a
/// one-line summary (the enums' own `ALL`, `name` and `summary`).
pub trait RevisionEnum: Copy + 'static {
    fn all() -> &'static [Self];
    fn name(self) -> &'static str;
    fn summary(self) -> &'static str;
}

macro_rules! revision_enums {
    ($($t:ty),*) => {$(
        impl RevisionEnum for $t {
            fn all() -> &'static [Self] {
                &<$t>::ALL
            }
            fn name(self) -> &'static str {
                <$t>::name(self)
            }
            fn summary(self) -> &'static str {
                <$t>::summary(self)
            }
        }
    )*};
}

revision_enums!(
    wb_core::revision::KickRevision,
    wb_core::revision::RescuerRevision,
    wb_core::revision::PinRevision,
    wb_core::revision::AccountingRevision,
    wb_core::revision::PercpuRevision,
    wb_core::memcg::SlotRevision,
    wb_core::memcg::ForeignPolicy,
    wb_core::fadvise::FolioPolicy,
    crate::per_block_charge::BlockRevision
);

/// The revision of `scenario` called `name`, or an error naming the valid ones.
pub fn parse_revision<R: RevisionEnum>(scenario: &str, name: &str) -> Result<R, String> {
    R::all().iter().copied().find(|r| r.name() == name).ok_or_else(|| {
        let names: Vec<&str> = R::all().iter().map(|r| r.name()).collect();
        unknown("revision", name, &names) + " for scenario " + scenario
    })
}

/// The catalogue entries of every revision, with what each checker is expected to find.
pub fn revision_infos<R: RevisionEnum>(expected: impl Fn(R) -> [&'static [&'static str]; 4]) -> Vec<RevisionInfo> {
    R::all().iter().map(|&r| RevisionInfo { name: r.name(), summary: r.summary(), expected: expected(r) }).collect()
}

impl RevisionInfo {
    pub fn expected_violated(&self, checker: Checker) -> BTreeSet<&'static str> {
        let i = Checker::ALL.iter().position(|c| *c == checker).expect("every checker is in ALL");
        self.expected[i].iter().copied().collect()
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

    /// Run `revision` under `checker` (loom or a shuttle checker). `revision` must be one of
    /// [`ScenarioInfo::revisions`]; an unknown name is an error, never a panic.
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
        crate::harness::run(&self.model(revision, checker, bounds.tier)?, checker, bounds)
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
}

/// Every scenario, in catalogue order.
pub fn scenarios() -> Vec<&'static dyn Scenario> {
    vec![
        &crate::dontcache_kick::DontcacheKick,
        &crate::kick_rescuer::KickRescuer,
        &crate::wb_pin::WbPin,
        &crate::dontcache_accounting::DontcacheAccounting,
        &crate::percpu_counter::PercpuCounterScenario,
        &crate::bdev_slots::BdevSlots,
        &crate::foreign_policy::ForeignPolicyScenario,
        &crate::folio_dirty_accounting::FolioDirtyAccounting,
        &crate::per_block_charge::PerBlockCharge,
    ]
}

pub fn find(name: &str) -> Option<&'static dyn Scenario> {
    scenarios().into_iter().find(|s| s.info().name == name)
}

/// The error for a name that is not in a list: names the bad value and the valid ones.
pub fn unknown(what: &str, bad: &str, valid: &[&str]) -> String {
    format!("unknown {what} '{bad}' (valid: {})", valid.join(", "))
}
