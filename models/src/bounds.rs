//! Exploration bounds: every default in one place, overridable from the environment.
//!
//! | variable | meaning | quick | scope | deep |
//! |---|---|---|---|---|
//! | `WBCHECK_LOOM_PREEMPTIONS` | loom preemption bound (`none` = unbounded); without it each scenario's own bound per tier ([`crate::harness::Model::loom_preemptions`]) | 3 | 3 | 4 |
//! | `WBCHECK_LOOM_MAX_SECS` | per-placement loom time limit; hitting it reports `bounded` | 600 | 1800 | 3600 |
//! | `WBCHECK_SHUTTLE_ITERS` | iterations per shuttle row (each of PCT and random), times the row's scale in the catalogue (`Expect::shuttle_scale`, 1 unless a row needs more to find its bug with every seed) | 10,000 | 50,000 | 200,000 |
//! | `WBCHECK_PCT_DEPTH` | PCT bug depth | 3 | 3 | 3 |
//! | `WBCHECK_SEED` | seed of the shuttle schedulers (runs are deterministic) | 1 | 1 | 1 |
//! | `WBCHECK_LOOM_SLEEP_SETS` | `bounded`: sleep sets under the preemption bound too | off | off | off |
//! | `WBCHECK_LOOM_SOURCE_SETS` | `off`: no source sets in a search without a preemption bound (for comparison: the default backtracks to one initial of a race's reversal, not every one, and to none when one is explored or asleep there) | on | on | on |
//! | `WBCHECK_LOOM_START_WAKES` | `on`: a thread's start wakes every thread in the sleep sets, as upstream loom has it (for comparison: the default wakes none, a start touching nothing a sleeping thread's operation does); only where sleep sets run (no bound, or `WBCHECK_LOOM_SLEEP_SETS=bounded`) | off | off | off |
//! | `WBCHECK_LOOM_FREE_SWITCHES` | `on`: at a branch whose preemptions reached the bound, also explore the switches that cost none (the running thread blocked or ended), where upstream loom explores only the thread that yielded least (the search within the bound then leaves out no execution for that reason: docs/findings.md) | off | off | off |
//! | `WBCHECK_LOOM_JOIN_RACES` | `on`: a thread's end races with its join, as upstream loom has it (for comparison: the default explores no other thread before the end on that account) | off | off | off |
//! | `WBCHECK_LOOM_SLICES` | `COUNT[:DEPTH[:WIDTH]]`: split each loom unit's search by schedule prefix ([`Slices`]) | off | off | off |
//!
//! loom's own `LOOM_MAX_PREEMPTIONS`, `LOOM_MAX_DURATION`, `LOOM_MAX_PERMUTATIONS` and
//! `LOOM_MAX_BRANCHES`, when set, override every loom run; the JSON `bounds` records the values
//! used. The size of each scenario (threads, operations) per tier is in the scenario's module.

use std::time::Duration;

/// How deep a run goes. Every tier runs each scenario's whole declared scope; the tiers differ
/// in the bounds (preemptions, iterations) they explore it at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// CI and `cargo test --workspace`: the whole scope at each scenario's smaller bound.
    Quick,
    /// `wbcheck matrix --tier scope`: the whole scope at the default bound.
    Scope,
    /// `--cfg loom` test modules and `wbcheck matrix --tier deep`: a higher bound, on demand.
    Deep,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::Quick, Tier::Scope, Tier::Deep];

    pub fn name(self) -> &'static str {
        match self {
            Tier::Quick => "quick",
            Tier::Scope => "scope",
            Tier::Deep => "deep",
        }
    }

    pub fn from_name(s: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.name() == s)
    }
}

spelled_by_name!(Tier, "tier");

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    pub tier: Tier,
    pub loom_preemptions: Option<usize>,
    /// `loom_preemptions` was set from the environment: it overrides every scenario's own bound.
    pub loom_preemptions_set: bool,
    pub loom_max_duration: Option<Duration>,
    pub loom_max_permutations: Option<usize>,
    pub loom_max_branches: usize,
    pub shuttle_iterations: usize,
    pub pct_depth: usize,
    pub seed: u64,
    /// loom: run only these units of a row (variant, placement pairs, numbered in the order one
    /// process runs them: [`crate::harness::units`]); `None` runs them all. Set by the matrix when
    /// it splits a row over processes or shards, never from the environment.
    pub loom_units: Option<Vec<usize>>,
    /// loom: sleep sets under the preemption bound too (the vendored loom's
    /// `Builder::bounded_sleep_sets`), from `WBCHECK_LOOM_SLEEP_SETS=bounded`; off by default.
    pub loom_bounded_sleep: bool,
    /// loom: source sets in a search without a preemption bound (the vendored loom's
    /// `Builder::source_sets`); on by default, `WBCHECK_LOOM_SOURCE_SETS=off` turns them off.
    /// No effect under a bound.
    pub loom_source_sets: bool,
    /// loom: a thread's end and its join race, as upstream loom has it (the vendored loom's
    /// `Builder::join_races`), from `WBCHECK_LOOM_JOIN_RACES=on`; off by default (they cannot
    /// be reordered, so the default search does not backtrack on them).
    pub loom_join_races: bool,
    /// loom: a thread's start wakes every sleeping thread, as upstream loom has it
    /// (the vendored loom's `Builder::start_wakes`), from `WBCHECK_LOOM_START_WAKES=on`; off by
    /// default. Only where sleep sets run: without a bound, or under one with `loom_bounded_sleep`.
    pub loom_start_wakes: bool,
    /// Under a preemption bound, a branch whose preemptions reached the bound also explores the
    /// switches that cost none (its running thread blocked or ended), as iterative context
    /// bounding does (the vendored loom's `Builder::free_switches`), from
    /// `WBCHECK_LOOM_FREE_SWITCHES=on`; off by default (upstream's bound, which explores only the
    /// first thread there).
    pub loom_free_switches: bool,
    /// loom: each unit's search split by schedule prefix into slices, each a unit of its own
    /// ([`Slices`]), from `WBCHECK_LOOM_SLICES`; `None` by default.
    pub loom_slices: Option<Slices>,
}

/// A loom search split by schedule prefix (the vendored loom's `Builder::split_depth`): an
/// execution's prefix is its choices at its first forks (branches with more than one alternative:
/// which thread runs, which store a load reads), `depth` of them or up to the `width`-th that
/// does not take its first alternative; those forks are explored in full. The prefixes are dealt
/// round-robin, in the order the search reaches them, to `count` slices. Each slice is an
/// independent search, so a row's slices run in separate processes or machines like its
/// placements; together they run the executions of the one search with `count` 1, each once.
/// That search is the unsplit one with some forks explored in full: a superset of DPOR's
/// choices, so the same verdicts at the cost of more executions (docs/performance.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slices {
    pub count: usize,
    pub depth: usize,
    pub width: usize,
}

impl Slices {
    /// The depth and width `WBCHECK_LOOM_SLICES=COUNT` means.
    pub const DEFAULT_DEPTH: usize = 10;
    pub const DEFAULT_WIDTH: usize = 1;

    /// `COUNT`, `COUNT:DEPTH` or `COUNT:DEPTH:WIDTH`.
    pub fn parse(v: &str) -> Result<Slices, String> {
        let bad = || {
            format!("invalid value '{v}' for WBCHECK_LOOM_SLICES: expected COUNT[:DEPTH[:WIDTH]], each from 1 to 4096")
        };
        let num = |s: &str| s.trim().parse::<usize>().ok().filter(|n| (1..=4096).contains(n)).ok_or_else(bad);
        let fields: Vec<&str> = v.split(':').collect();
        let [count, rest @ ..] = &fields[..] else { return Err(bad()) };
        if rest.len() > 2 {
            return Err(bad());
        }
        Ok(Slices {
            count: num(count)?,
            depth: rest.first().map(|d| num(d)).transpose()?.unwrap_or(Slices::DEFAULT_DEPTH),
            width: rest.get(1).map(|w| num(w)).transpose()?.unwrap_or(Slices::DEFAULT_WIDTH),
        })
    }

    pub fn encode(self) -> String {
        format!("{}:{}:{}", self.count, self.depth, self.width)
    }
}

impl Bounds {
    /// The defaults of a tier, ignoring the environment.
    pub fn defaults(tier: Tier) -> Bounds {
        let pick = |quick, scope, deep| match tier {
            Tier::Quick => quick,
            Tier::Scope => scope,
            Tier::Deep => deep,
        };
        Bounds {
            tier,
            loom_preemptions: Some(pick(3, 3, 4)),
            loom_preemptions_set: false,
            loom_max_duration: Some(Duration::from_secs(pick(600, 1800, 3600) as u64)),
            loom_max_permutations: None,
            loom_max_branches: 10_000,
            shuttle_iterations: pick(10_000, 50_000, 200_000),
            pct_depth: 3,
            seed: 1,
            loom_units: None,
            loom_bounded_sleep: false,
            loom_source_sets: true,
            loom_join_races: false,
            loom_start_wakes: false,
            loom_free_switches: false,
            loom_slices: None,
        }
    }

    /// These bounds with `scale` times the shuttle iterations (a catalogue row's
    /// `shuttle_scale`, at least 1).
    pub fn scaled_shuttle(&self, scale: usize) -> Bounds {
        Bounds { shuttle_iterations: self.shuttle_iterations.saturating_mul(scale.max(1)), ..self.clone() }
    }

    /// These bounds with the loom preemption bound fixed at `p` for every scenario (as
    /// `WBCHECK_LOOM_PREEMPTIONS` does).
    pub fn with_loom_preemptions(&self, p: Option<usize>) -> Bounds {
        Bounds { loom_preemptions: p, loom_preemptions_set: true, ..self.clone() }
    }

    /// These bounds with the loom preemption bound a model asks for at this tier, unless the
    /// environment (or [`Bounds::with_loom_preemptions`]) set one.
    pub fn for_model(&self, preemptions: impl Fn(Tier) -> Option<usize>) -> Bounds {
        if self.loom_preemptions_set {
            self.clone()
        } else {
            Bounds { loom_preemptions: preemptions(self.tier), ..self.clone() }
        }
    }

    /// The defaults of a tier with the environment's overrides applied.
    pub fn from_env(tier: Tier) -> Result<Bounds, String> {
        Bounds::with_overrides(tier, |k| std::env::var(k).ok())
    }

    /// [`Bounds::from_env`] with an explicit variable lookup (testable).
    pub fn with_overrides(tier: Tier, var: impl Fn(&str) -> Option<String>) -> Result<Bounds, String> {
        let mut b = Bounds::defaults(tier);
        let num = |k: &str| -> Result<Option<u64>, String> {
            match var(k) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|_| format!("invalid value '{v}' for {k}: expected a non-negative integer")),
            }
        };
        if let Some(v) = var("WBCHECK_LOOM_PREEMPTIONS") {
            b.loom_preemptions_set = true;
            b.loom_preemptions = if v.trim() == "none" {
                None
            } else {
                Some(num("WBCHECK_LOOM_PREEMPTIONS")?.unwrap_or_default() as usize)
            };
        }
        if let Some(v) = num("WBCHECK_LOOM_MAX_SECS")? {
            b.loom_max_duration = Some(Duration::from_secs(v));
        }
        if let Some(v) = num("WBCHECK_SHUTTLE_ITERS")? {
            b.shuttle_iterations = v as usize;
        }
        if let Some(v) = num("WBCHECK_PCT_DEPTH")? {
            if v == 0 {
                return Err("invalid value '0' for WBCHECK_PCT_DEPTH: PCT depth is at least 1".into());
            }
            b.pct_depth = v as usize;
        }
        if let Some(v) = num("WBCHECK_SEED")? {
            b.seed = v;
        }
        // A two-valued variable: unset is `default`, `off` false, `on` true, anything else an error.
        let switch = |name: &str, default: bool, off: &str, on: &str, meaning: &str| -> Result<bool, String> {
            match var(name).as_deref().map(str::trim) {
                None => Ok(default),
                Some(v) if v == off => Ok(false),
                Some(v) if v == on => Ok(true),
                Some(v) => Err(format!("invalid value '{v}' for {name}: expected {meaning}")),
            }
        };
        b.loom_bounded_sleep = switch(
            "WBCHECK_LOOM_SLEEP_SETS",
            false,
            "unbounded",
            "bounded",
            "unbounded (sleep sets without a preemption bound only, the default) or bounded (also under one)",
        )?;
        b.loom_source_sets = switch(
            "WBCHECK_LOOM_SOURCE_SETS",
            true,
            "off",
            "on",
            "on (source sets in a search without a preemption bound, the default) or off",
        )?;
        b.loom_join_races = switch(
            "WBCHECK_LOOM_JOIN_RACES",
            false,
            "off",
            "on",
            "on (a thread's end races with its join, as upstream loom has it) or off (the default)",
        )?;
        b.loom_start_wakes = switch(
            "WBCHECK_LOOM_START_WAKES",
            false,
            "off",
            "on",
            "on (a thread's start wakes every sleeping thread, as upstream loom has it) or off (the default)",
        )?;
        b.loom_free_switches = switch(
            "WBCHECK_LOOM_FREE_SWITCHES",
            false,
            "off",
            "on",
            "on (at the preemption bound, switches that cost no preemption are explored too) or off (the default)",
        )?;
        if let Some(v) = var("WBCHECK_LOOM_SLICES") {
            b.loom_slices = Some(Slices::parse(&v)?);
            if b.loom_bounded_sleep {
                return Err("WBCHECK_LOOM_SLICES and WBCHECK_LOOM_SLEEP_SETS=bounded cannot be combined: a slice cannot know which subtrees of another slice the bound cut, so which threads may sleep".into());
            }
        }
        // loom's own variables win over ours, as loom's Builder would apply them.
        if let Some(v) = num("LOOM_MAX_PREEMPTIONS")? {
            b.loom_preemptions = Some(v as usize);
            b.loom_preemptions_set = true;
        }
        if let Some(v) = num("LOOM_MAX_DURATION")? {
            b.loom_max_duration = Some(Duration::from_secs(v));
        }
        if let Some(v) = num("LOOM_MAX_PERMUTATIONS")? {
            b.loom_max_permutations = Some(v as usize);
        }
        if let Some(v) = num("LOOM_MAX_BRANCHES")? {
            b.loom_max_branches = v as usize;
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_apply_and_loom_variables_win() {
        let env = |k: &str| match k {
            "WBCHECK_LOOM_PREEMPTIONS" => Some("2".to_string()),
            "LOOM_MAX_PREEMPTIONS" => Some("5".to_string()),
            "WBCHECK_SHUTTLE_ITERS" => Some("77".to_string()),
            _ => None,
        };
        let b = Bounds::with_overrides(Tier::Quick, env).unwrap();
        assert_eq!(b.loom_preemptions, Some(5));
        assert_eq!(b.shuttle_iterations, 77);
    }

    #[test]
    fn a_row_scales_the_shuttle_iterations_only() {
        let b = Bounds::with_overrides(Tier::Quick, |k| (k == "WBCHECK_SHUTTLE_ITERS").then(|| "300".into())).unwrap();
        let scaled = b.scaled_shuttle(2);
        assert_eq!(scaled.shuttle_iterations, 600);
        assert_eq!(Bounds { shuttle_iterations: 300, ..scaled }, b);
        assert_eq!(b.scaled_shuttle(0).shuttle_iterations, 300, "a scale is at least 1");
    }

    #[test]
    fn bad_values_are_errors_naming_the_variable() {
        let err = Bounds::with_overrides(Tier::Quick, |k| (k == "WBCHECK_SEED").then(|| "x".into())).unwrap_err();
        assert!(err.contains("WBCHECK_SEED"), "{err}");
        let b =
            Bounds::with_overrides(Tier::Deep, |k| (k == "WBCHECK_LOOM_PREEMPTIONS").then(|| "none".into())).unwrap();
        assert_eq!(b.loom_preemptions, None);
        let sleep =
            |v: &str| Bounds::with_overrides(Tier::Quick, |k| (k == "WBCHECK_LOOM_SLEEP_SETS").then(|| v.into()));
        assert!(sleep("bounded").unwrap().loom_bounded_sleep);
        assert!(!sleep("unbounded").unwrap().loom_bounded_sleep);
        assert!(sleep("yes").unwrap_err().contains("WBCHECK_LOOM_SLEEP_SETS"));
        let source =
            |v: &str| Bounds::with_overrides(Tier::Quick, |k| (k == "WBCHECK_LOOM_SOURCE_SETS").then(|| v.into()));
        assert!(source("on").unwrap().loom_source_sets);
        assert!(!source("off").unwrap().loom_source_sets);
        assert!(source("1").unwrap_err().contains("WBCHECK_LOOM_SOURCE_SETS"));
        let joins =
            |v: &str| Bounds::with_overrides(Tier::Quick, |k| (k == "WBCHECK_LOOM_JOIN_RACES").then(|| v.into()));
        assert!(joins("on").unwrap().loom_join_races);
        assert!(!joins("off").unwrap().loom_join_races);
        assert!(joins("yes").unwrap_err().contains("WBCHECK_LOOM_JOIN_RACES"));
        let starts =
            |v: &str| Bounds::with_overrides(Tier::Quick, |k| (k == "WBCHECK_LOOM_START_WAKES").then(|| v.into()));
        assert!(starts("on").unwrap().loom_start_wakes);
        assert!(!starts("off").unwrap().loom_start_wakes);
        assert!(starts("1").unwrap_err().contains("WBCHECK_LOOM_START_WAKES"));
        let free =
            |v: &str| Bounds::with_overrides(Tier::Quick, |k| (k == "WBCHECK_LOOM_FREE_SWITCHES").then(|| v.into()));
        assert!(free("on").unwrap().loom_free_switches);
        assert!(!free("off").unwrap().loom_free_switches);
        assert!(free("yes").unwrap_err().contains("WBCHECK_LOOM_FREE_SWITCHES"));
        let slices = |v: &str| Bounds::with_overrides(Tier::Quick, |k| (k == "WBCHECK_LOOM_SLICES").then(|| v.into()));
        let default = Slices { count: 8, depth: Slices::DEFAULT_DEPTH, width: Slices::DEFAULT_WIDTH };
        assert_eq!(slices("8").unwrap().loom_slices, Some(default));
        assert_eq!(
            slices("4:2").unwrap().loom_slices,
            Some(Slices { count: 4, depth: 2, width: Slices::DEFAULT_WIDTH })
        );
        assert_eq!(slices("4:2:3").unwrap().loom_slices, Some(Slices { count: 4, depth: 2, width: 3 }));
        for bad in ["0", "x", "4:0", "4:", "4:2:0", "4:2:1:1", "5000", ""] {
            assert!(slices(bad).unwrap_err().contains("WBCHECK_LOOM_SLICES"), "{bad}");
        }
        let both = Bounds::with_overrides(Tier::Quick, |k| match k {
            "WBCHECK_LOOM_SLICES" => Some("2".into()),
            "WBCHECK_LOOM_SLEEP_SETS" => Some("bounded".into()),
            _ => None,
        });
        assert!(both.unwrap_err().contains("cannot be combined"));
    }
}
