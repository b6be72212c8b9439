//! A loom row split below the row: its units of work are the (variant, placement) pairs loom runs
//! one search each, numbered in the order one process runs them. Each search of a unit at one
//! preemption bound is a [`UnitSearch`]; [`combine`] turns any set of them back into the row one
//! process would report, so one process, `--jobs` processes and `--shard`ed machines reach the
//! same row: the same executions, the same counterexamples, the verdict judged once.
//!
//! Why that is exact: one process's iterative deepening runs every unit at bound 0, then every
//! unit at bound 1, ..., and stops after the first bound at which the properties violated so far
//! cover them all. A process holding only some units stops no earlier (its properties are a
//! subset), so every unit search the whole row counts exists in some part; [`combine`] counts
//! exactly those, in the whole row's order. Unbounded searches (no preemption bound) stop inside
//! a unit once every property is violated, which depends on what the other units found: there a
//! split row counts every part's executions (a passing row's count is the same; a failing one's
//! can be larger), and its counterexamples are chosen as one process chooses them.

use crate::outcome::{FirstFound, CHECKER_ERROR};
use std::collections::BTreeSet;

/// Which search of the row a unit search belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// The unbounded search.
    Unbounded,
    /// Iterative deepening's search at this preemption bound.
    Bound(usize),
    /// After the unbounded search: the search at this bound for the smallest-bound counterexamples.
    Minimise(usize),
}

impl Phase {
    /// `unbounded`, `bound:K` or `minimise:K` (the JSON ledger's spelling).
    pub fn name(self) -> String {
        match self {
            Phase::Unbounded => "unbounded".into(),
            Phase::Bound(k) => format!("bound:{k}"),
            Phase::Minimise(k) => format!("minimise:{k}"),
        }
    }

    pub fn from_name(s: &str) -> Result<Phase, String> {
        let bound = |k: &str| k.parse().map_err(|_| format!("malformed unit search phase '{s}'"));
        match s.split_once(':') {
            None if s == "unbounded" => Ok(Phase::Unbounded),
            Some(("bound", k)) => Ok(Phase::Bound(bound(k)?)),
            Some(("minimise", k)) => Ok(Phase::Minimise(bound(k)?)),
            _ => Err(format!("malformed unit search phase '{s}' (expected unbounded, bound:K or minimise:K)")),
        }
    }
}

/// One unit's search at one bound: what it explored and its counterexamples in the order found,
/// each's `found` counted from the start of this search.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitSearch<C> {
    pub unit: usize,
    pub phase: Phase,
    pub executions: u64,
    pub micros: u64,
    /// Cut short by the time or permutation limit.
    pub bounded: bool,
    pub counterexamples: Vec<C>,
}

/// What [`combine`] needs of a counterexample (the harness's and the JSON matrix's).
pub trait Found: Clone {
    fn property(&self) -> &str;
    /// The order counterexamples of one property at one bound are ranked in: none with a stale
    /// read first, then the fewest steps.
    fn rank(&self) -> (bool, usize);
    fn found(&self) -> Option<FirstFound>;
    fn min_preemptions(&self) -> Option<usize>;
    fn set_found(&mut self, found: Option<FirstFound>, min_preemptions: Option<usize>);
}

/// The row a set of unit searches makes.
#[derive(Debug, Clone, PartialEq)]
pub struct Combined<C> {
    pub executions: u64,
    pub micros: u64,
    pub bounded: bool,
    /// One per violated property, in the order the whole row's search finds them.
    pub counterexamples: Vec<C>,
}

/// The row one process reports from these unit searches (any order, any subset: a part's own
/// row is its subset's). `properties`: how many properties the loom search checks.
pub fn combine<C: Found>(ledger: &[UnitSearch<C>], properties: usize) -> Combined<C> {
    let mut searches: Vec<&UnitSearch<C>> = ledger.iter().collect();
    searches.sort_by_key(|s| (s.phase, s.unit));
    let mut out = Combined { executions: 0, micros: 0, bounded: false, counterexamples: Vec::new() };
    let covered = |cxs: &[C]| cxs.iter().filter(|c| c.property() != CHECKER_ERROR).count() >= properties;
    let mut minimised: BTreeSet<String> = BTreeSet::new();
    for group in searches.chunk_by(|a, b| a.phase == b.phase) {
        let phase = group[0].phase;
        if matches!(phase, Phase::Bound(_)) && covered(&out.counterexamples) {
            break;
        }
        let best = best_of(group, &mut out);
        match phase {
            Phase::Unbounded => out.counterexamples.extend(best),
            Phase::Bound(k) => {
                for mut cx in best {
                    if !out.counterexamples.iter().any(|c| c.property() == cx.property()) {
                        cx.set_found(cx.found(), cx.min_preemptions().or(Some(k)));
                        out.counterexamples.push(cx);
                    }
                }
            }
            Phase::Minimise(k) => {
                for mut smaller in best {
                    let Some(cx) = out.counterexamples.iter_mut().find(|c| c.property() == smaller.property()) else {
                        continue;
                    };
                    if minimised.insert(smaller.property().to_owned()) {
                        smaller.set_found(cx.found(), smaller.min_preemptions().or(Some(k)));
                        *cx = smaller;
                    }
                }
            }
        }
    }
    out
}

/// One search of several units, as one collector sees it: per property the first counterexample's
/// `found` (counted from the row's start) and the best-ranked one's content, the first of equals.
/// Adds the group's executions and time to `out`.
fn best_of<C: Found>(group: &[&UnitSearch<C>], out: &mut Combined<C>) -> Vec<C> {
    let mut best: Vec<C> = Vec::new();
    for s in group {
        for cx in &s.counterexamples {
            match best.iter_mut().find(|b| b.property() == cx.property()) {
                Some(kept) if cx.rank() < kept.rank() => {
                    let (found, min) = (kept.found(), kept.min_preemptions());
                    *kept = cx.clone();
                    kept.set_found(found, min);
                }
                Some(_) => {}
                None => {
                    let mut first = cx.clone();
                    let found = cx.found().map(|f| FirstFound {
                        executions: out.executions + f.executions,
                        micros: out.micros + f.micros,
                    });
                    first.set_found(found, cx.min_preemptions());
                    best.push(first);
                }
            }
        }
        out.executions += s.executions;
        out.micros += s.micros;
        out.bounded |= s.bounded;
    }
    best
}

/// Deal `units` round-robin into `parts` (fewer when there are fewer units): part `i` takes every
/// `parts`-th unit from `i`.
pub fn deal(units: &[usize], parts: usize) -> Vec<Vec<usize>> {
    let parts = parts.clamp(1, units.len().max(1));
    (0..parts).map(|i| units.iter().skip(i).step_by(parts).copied().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct Cx {
        property: &'static str,
        steps: usize,
        found: Option<FirstFound>,
        min: Option<usize>,
        tag: &'static str,
    }

    impl Found for Cx {
        fn property(&self) -> &str {
            self.property
        }
        fn rank(&self) -> (bool, usize) {
            (false, self.steps)
        }
        fn found(&self) -> Option<FirstFound> {
            self.found
        }
        fn min_preemptions(&self) -> Option<usize> {
            self.min
        }
        fn set_found(&mut self, found: Option<FirstFound>, min: Option<usize>) {
            (self.found, self.min) = (found, min);
        }
    }

    fn cx(property: &'static str, steps: usize, at: u64, tag: &'static str) -> Cx {
        Cx { property, steps, found: Some(FirstFound { executions: at, micros: 0 }), min: None, tag }
    }

    fn search(unit: usize, phase: Phase, executions: u64, counterexamples: Vec<Cx>) -> UnitSearch<Cx> {
        UnitSearch { unit, phase, executions, micros: 0, bounded: false, counterexamples }
    }

    #[test]
    fn deepening_stops_after_the_bound_that_covers_every_property() {
        // Two properties: unit 1 finds `a` at bound 0, unit 0 finds `b` at bound 1. One process
        // runs bound 0 (10 + 20), bound 1 (30 + 40) and stops; a part holding unit 0 alone ran
        // bound 2 too (it never saw `a`), which the row does not count.
        let ledger = vec![
            search(0, Phase::Bound(2), 99, vec![]),
            search(1, Phase::Bound(1), 40, vec![cx("a", 3, 1, "u1k1")]),
            search(0, Phase::Bound(0), 10, vec![]),
            search(1, Phase::Bound(0), 20, vec![cx("a", 9, 5, "u1k0")]),
            search(0, Phase::Bound(1), 30, vec![cx("b", 4, 7, "u0k1")]),
        ];
        let row = combine(&ledger, 2);
        assert_eq!(row.executions, 100);
        let tags: Vec<_> = row.counterexamples.iter().map(|c| (c.tag, c.found.unwrap().executions, c.min)).collect();
        // `a` is bound 0's (10 executions of unit 0 before it), `b` bound 1's (30 before it).
        assert_eq!(tags, [("u1k0", 15, Some(0)), ("u0k1", 37, Some(1))]);
    }

    #[test]
    fn within_a_bound_the_best_ranked_wins_and_keeps_the_first_found() {
        let ledger = vec![
            search(0, Phase::Bound(0), 10, vec![cx("a", 9, 2, "long")]),
            search(1, Phase::Bound(0), 10, vec![cx("a", 4, 3, "short")]),
            search(2, Phase::Bound(0), 10, vec![cx("a", 4, 1, "tie")]),
        ];
        let row = combine(&ledger, 1);
        assert_eq!(row.counterexamples.len(), 1);
        assert_eq!(row.counterexamples[0].tag, "short");
        assert_eq!(row.counterexamples[0].found.unwrap().executions, 2);
    }

    #[test]
    fn the_unbounded_search_keeps_its_find_and_takes_the_smallest_bounds_steps() {
        let ledger = vec![
            search(0, Phase::Unbounded, 50, vec![]),
            search(1, Phase::Unbounded, 70, vec![cx("a", 12, 60, "deep")]),
            search(0, Phase::Minimise(0), 5, vec![]),
            search(1, Phase::Minimise(0), 6, vec![]),
            search(0, Phase::Minimise(1), 7, vec![cx("a", 8, 2, "k1u0")]),
            search(1, Phase::Minimise(1), 8, vec![cx("a", 6, 4, "k1u1")]),
        ];
        let row = combine(&ledger, 1);
        assert_eq!(row.executions, 146);
        let c = &row.counterexamples[0];
        assert_eq!((c.tag, c.found.unwrap().executions, c.min), ("k1u1", 110, Some(1)));
    }

    #[test]
    fn dealing_covers_every_unit_once() {
        assert_eq!(deal(&[0, 1, 2, 3, 4], 2), vec![vec![0, 2, 4], vec![1, 3]]);
        assert_eq!(deal(&[3, 5], 4), vec![vec![3], vec![5]]);
        assert_eq!(deal(&[], 3), vec![Vec::<usize>::new()]);
    }
}
