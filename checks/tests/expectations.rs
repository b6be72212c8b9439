//! The expected verdicts, written out a second time on purpose: this table is independent of
//! the catalogue (`wb_core::revision`), and the catalogue must equal it. Every row runs here at
//! the quick tier under every checker, and its verdict must equal the table's: each buggy
//! revision's failure and each fixed revision's pass. Every loom and shuttle counterexample
//! replays from its handle to the identical trace, and every loom failure carries the smallest
//! preemption bound at which it appears.
//!
//! A cell is `pass` or the violated properties, comma-separated; a property the checker may miss
//! (it is found with some seeds, not all) ends in `?`: the row's verdict must include every other
//! property and may include that one. A shuttle cell that ends in ` xN` runs N times the tier's
//! iterations (what that checker needs to find its properties with every seed).
//!
//! `WBCHECK_EXPECT_CHECKERS=oracle,shuttle-pct` runs the per-scenario tests under those checkers
//! only (default: all four); the mutation campaign's fast profile uses it (docs/mutation.md).

use std::collections::BTreeSet;
use wb_checks::oracle;
use wb_core::revision::Role;
use wb_models::bounds::{Bounds, Tier};
use wb_models::harness::{LoomHandle, ShuttleSchedule};
use wb_models::outcome::Checker;
use wb_models::registry::{find, scenarios};

/// (scenario, revision, [loom, shuttle-pct, shuttle-random, oracle]).
const TABLE: &[(&str, &str, [&str; 4])] = &[
    ("dontcache-kick", "v7", ["expedition", "expedition", "expedition", "expedition"]),
    ("dontcache-kick", "v7-posted", ["expedition", "expedition", "expedition", "expedition"]),
    ("dontcache-kick", "v7-posted-no-mb", ["dirty-tracking, expedition", "expedition", "expedition", "expedition"]),
    ("dontcache-kick", "v7-no-mb", ["dirty-tracking, expedition", "expedition", "expedition", "expedition"]),
    ("dontcache-kick", "v5-late-clear", ["expedition", "expedition", "expedition", "expedition"]),
    ("dontcache-kick", "v5-approx-read", ["expedition", "expedition", "expedition", "expedition"]),
    ("dontcache-kick", "v7-fix-kick", ["expedition", "expedition", "expedition", "expedition"]),
    ("dontcache-kick", "v7-fix-kick-posted", ["expedition", "expedition", "expedition", "expedition"]),
    (
        "dontcache-kick",
        "v7-fix-rescuer-requeue",
        ["expedition, no-idle-spin", "expedition, no-idle-spin", "expedition, no-idle-spin", "no-idle-spin"],
    ),
    (
        "dontcache-kick",
        "v7-fix-kick-requeue",
        ["no-idle-spin", "expedition, no-idle-spin", "no-idle-spin", "no-idle-spin"],
    ),
    (
        "dontcache-kick",
        "v7-fix-kick-posted-requeue",
        ["no-idle-spin", "expedition, no-idle-spin", "no-idle-spin", "no-idle-spin"],
    ),
    (
        "dontcache-kick",
        "v7-fix-kick-posted-requeue-no-mb",
        ["dirty-tracking, expedition, no-idle-spin", "expedition, no-idle-spin", "no-idle-spin", "no-idle-spin"],
    ),
    (
        "dontcache-kick",
        "v7-fix-kick-requeue-no-mb",
        ["dirty-tracking, expedition, no-idle-spin", "expedition, no-idle-spin", "no-idle-spin", "no-idle-spin"],
    ),
    ("dontcache-kick", "v7-fix-kick-hold", ["pass", "pass", "pass", "pass"]),
    ("dontcache-kick", "v7-fix-kick-posted-hold", ["pass", "pass", "pass", "pass"]),
    ("dontcache-kick", "v7-fix-kick-hold-guard", ["expedition", "expedition", "expedition", "pass"]),
    ("dontcache-kick", "v7-fix-kick-hold-short", ["pass (deep: expedition)", "expedition x10", "pass", "pass"]),
    ("dontcache-kick", "v7-fix-kick-hold-no-requeue", ["expedition", "expedition", "expedition", "pass"]),
    (
        "dontcache-kick",
        "v7-fix-kick-hold-idle-requeue",
        ["no-idle-spin", "no-idle-spin", "no-idle-spin", "no-idle-spin"],
    ),
    ("dontcache-kick", "v7-fix-kick-hold-delayed", ["expedition", "expedition", "expedition", "expedition"]),
    ("wb-pin", "v7", ["expedition", "expedition", "expedition", "expedition"]),
    ("wb-pin", "v7-fix-switch-kick", ["pass", "pass", "pass", "pass"]),
    (
        "wb-pin",
        "v6-unpinned",
        ["expedition, use-after-free", "expedition, use-after-free", "expedition, use-after-free?", "expedition"],
    ),
    (
        "wb-pin",
        "v5-wakeup-in-section",
        [
            "expedition, irq-enabled-under-lock",
            "expedition, irq-enabled-under-lock",
            "expedition, irq-enabled-under-lock",
            "expedition, irq-enabled-under-lock",
        ],
    ),
    (
        "wb-pin",
        "put-before-wakeup",
        ["expedition, use-after-free", "expedition, use-after-free", "expedition, use-after-free?", "expedition"],
    ),
    ("dontcache-accounting", "v7", ["counter-exact", "counter-exact", "counter-exact", "pass"]),
    ("dontcache-accounting", "v5-double-dec", ["counter-exact", "counter-exact", "counter-exact", "pass"]),
    ("dontcache-accounting", "v5-no-guard", ["counter-exact", "counter-exact", "counter-exact", "counter-exact"]),
    (
        "dontcache-accounting",
        "v6-no-switch-transfer",
        ["counter-exact", "counter-exact", "counter-exact", "counter-exact"],
    ),
    (
        "dontcache-accounting",
        "v6-split-drops-flag",
        ["counter-exact", "counter-exact", "counter-exact", "counter-exact"],
    ),
    (
        "dontcache-accounting",
        "v6-u32-negate-32bit",
        ["counter-exact", "counter-exact", "counter-exact", "counter-exact"],
    ),
    ("dontcache-accounting", "v6-u32-negate-64bit", ["counter-exact", "counter-exact", "counter-exact", "pass"]),
    ("dontcache-accounting", "v7-partial-flag-snapshot", ["counter-exact", "counter-exact", "counter-exact", "pass"]),
    (
        "dontcache-accounting",
        "v7-partial-snapshot-in-section",
        ["counter-exact", "counter-exact", "counter-exact x2", "pass"],
    ),
    ("dontcache-accounting", "v7-fix-counted-bit", ["pass", "pass", "pass", "pass"]),
    ("percpu-counter", "kernel", ["pass", "pass", "pass", "pass"]),
    (
        "percpu-counter",
        "unlocked-fold",
        [
            "no-lost-update, quiescent-exact",
            "no-lost-update, quiescent-exact",
            "no-lost-update, quiescent-exact",
            "pass",
        ],
    ),
    ("percpu-counter", "sum-as-read", ["quiescent-exact", "quiescent-exact", "quiescent-exact", "quiescent-exact"]),
    (
        "bdev-slots",
        "v6",
        [
            "all-tracked-within-capacity, no-inflight-overwrite, oldest-replaced, record-integrity",
            "all-tracked-within-capacity, no-inflight-overwrite, oldest-replaced, record-integrity",
            "all-tracked-within-capacity, no-inflight-overwrite, oldest-replaced, record-integrity",
            "pass",
        ],
    ),
    (
        "bdev-slots",
        "v5-slot0",
        [
            "all-tracked-within-capacity, no-inflight-overwrite, oldest-replaced, record-integrity",
            "all-tracked-within-capacity, no-inflight-overwrite, oldest-replaced, record-integrity",
            "all-tracked-within-capacity, no-inflight-overwrite, oldest-replaced, record-integrity",
            "all-tracked-within-capacity, no-inflight-overwrite",
        ],
    ),
    (
        "bdev-slots",
        "no-inflight-guard",
        [
            "all-tracked-within-capacity, no-inflight-overwrite, oldest-replaced, record-integrity",
            "all-tracked-within-capacity, no-inflight-overwrite, oldest-replaced, record-integrity",
            "all-tracked-within-capacity, no-inflight-overwrite, oldest-replaced, record-integrity",
            "no-inflight-overwrite",
        ],
    ),
    ("bdev-slots", "packed", ["pass", "pass", "pass", "pass"]),
    ("foreign-policy", "baseline", ["flush-scope", "flush-scope", "flush-scope", "flush-scope"]),
    ("foreign-policy", "skip-bdev", ["pressure-relief", "pressure-relief", "pressure-relief", "pressure-relief"]),
    ("foreign-policy", "separate-bdev", ["pass", "pass", "pass", "pass"]),
    (
        "folio-dirty-accounting",
        "per-folio",
        ["charge-equals-written", "charge-equals-written", "charge-equals-written", "charge-equals-written"],
    ),
    ("folio-dirty-accounting", "per-page", ["pass", "pass", "pass", "pass"]),
    ("folio-dirty-accounting", "fadv-random", ["pass", "pass", "pass", "pass"]),
    (
        "folio-dirty-accounting",
        "fadv-random-write-64k",
        ["charge-equals-written", "charge-equals-written", "charge-equals-written", "charge-equals-written"],
    ),
    (
        "folio-dirty-accounting",
        "fadv-dontneed",
        ["charge-equals-written", "charge-equals-written", "charge-equals-written", "charge-equals-written"],
    ),
    ("per-block-charge", "baseline", ["counter-exact", "counter-exact", "counter-exact", "pass"]),
    ("per-block-charge", "baseline-lookup-locked", ["pass", "pass", "pass", "pass"]),
    (
        "per-block-charge",
        "series",
        [
            "wb-reclaimable-exact, counter-exact, dirtied-complete",
            "wb-reclaimable-exact, counter-exact, dirtied-complete",
            "wb-reclaimable-exact, counter-exact, dirtied-complete",
            "wb-reclaimable-exact, counter-exact, dirtied-complete",
        ],
    ),
    (
        "per-block-charge",
        "series-account-dirtied",
        [
            "wb-reclaimable-exact, counter-exact",
            "wb-reclaimable-exact, counter-exact",
            "wb-reclaimable-exact, counter-exact",
            "wb-reclaimable-exact, counter-exact",
        ],
    ),
    (
        "per-block-charge",
        "series-switch-accounted",
        [
            "wb-reclaimable-exact, counter-exact, dirtied-complete",
            "wb-reclaimable-exact, counter-exact, dirtied-complete",
            "wb-reclaimable-exact, counter-exact, dirtied-complete",
            "counter-exact, dirtied-complete",
        ],
    ),
    (
        "per-block-charge",
        "series-switch-accounted-account-dirtied",
        [
            "wb-reclaimable-exact, counter-exact",
            "wb-reclaimable-exact, counter-exact",
            "wb-reclaimable-exact, counter-exact",
            "counter-exact",
        ],
    ),
    (
        "per-block-charge",
        "series-fix-charge-in-section",
        [
            "counter-exact, dirtied-complete",
            "counter-exact, dirtied-complete",
            "counter-exact, dirtied-complete",
            "counter-exact, dirtied-complete",
        ],
    ),
    (
        "per-block-charge",
        "series-fix-charge-in-section-account-dirtied",
        ["counter-exact", "counter-exact", "counter-exact", "counter-exact"],
    ),
    (
        "per-block-charge",
        "series-fix-lookup-locked",
        ["dirtied-complete", "dirtied-complete", "dirtied-complete", "dirtied-complete"],
    ),
    ("per-block-charge", "series-fix-lookup-locked-account-dirtied", ["pass", "pass", "pass", "pass"]),
    (
        "per-block-charge",
        "series-fix-mkclean-nosync",
        [
            "wb-reclaimable-exact, counter-exact, dirtied-complete",
            "wb-reclaimable-exact?, counter-exact, dirtied-complete x4",
            "wb-reclaimable-exact, counter-exact, dirtied-complete x4",
            "dirtied-complete",
        ],
    ),
    (
        "per-block-charge",
        "series-fix-mkclean-nosync-account-dirtied",
        [
            "wb-reclaimable-exact, counter-exact",
            "wb-reclaimable-exact?, counter-exact x4",
            "wb-reclaimable-exact, counter-exact x4",
            "pass",
        ],
    ),
    (
        "per-block-charge",
        "series-fix-discharge-nr-pages",
        [
            "charge-discharge-match, wb-reclaimable-exact, counter-exact, dirtied-complete",
            "charge-discharge-match, wb-reclaimable-exact, counter-exact, dirtied-complete",
            "charge-discharge-match, wb-reclaimable-exact, counter-exact, dirtied-complete",
            "charge-discharge-match, wb-reclaimable-exact, counter-exact, dirtied-complete",
        ],
    ),
    (
        "per-block-charge",
        "series-fix-discharge-nr-pages-account-dirtied",
        [
            "charge-discharge-match, wb-reclaimable-exact, counter-exact",
            "charge-discharge-match, wb-reclaimable-exact, counter-exact",
            "charge-discharge-match, wb-reclaimable-exact, counter-exact",
            "charge-discharge-match, wb-reclaimable-exact, counter-exact",
        ],
    ),
];

/// A cell's text below the deep tier and at it: `TEXT (deep: DEEP)`, or `TEXT` for both.
fn tiers(text: &str) -> (&str, &str) {
    text.split_once(" (deep: ").map_or((text, text), |(below, deep)| (below, deep.trim_end_matches(')')))
}

/// A cell's iteration scale (1 unless it ends in ` xN`).
fn scale(text: &str) -> usize {
    text.rsplit_once(" x").and_then(|(_, n)| n.parse().ok()).unwrap_or(1)
}

/// A cell's (expected, may miss) properties.
fn cell(text: &str) -> (BTreeSet<&str>, BTreeSet<&str>) {
    let text = text.rsplit_once(" x").filter(|(_, n)| n.parse::<usize>().is_ok()).map_or(text, |(t, _)| t);
    if text == "pass" {
        return (BTreeSet::new(), BTreeSet::new());
    }
    let all = text.split(", ").map(|p| p.trim_end_matches('?')).collect();
    let may_miss = text.split(", ").filter_map(|p| p.strip_suffix('?')).collect();
    (all, may_miss)
}

#[test]
fn the_catalogue_expects_what_the_table_expects() {
    let mut rows = 0;
    for s in scenarios() {
        let info = s.info();
        for rev in &info.revisions {
            let (_, _, cells) = TABLE
                .iter()
                .find(|(sc, r, _)| *sc == info.name && *r == rev.name)
                .unwrap_or_else(|| panic!("the expectations table has no row for {} {}", info.name, rev.name));
            for (checker, want) in Checker::ALL.into_iter().zip(cells) {
                let row = format!("{} {} {}", info.name, rev.name, checker.name());
                let (below, deep) = tiers(want);
                for (tier, text) in [(Tier::Quick, below), (Tier::Scope, below), (Tier::Deep, deep)] {
                    let (expected, may_miss) = cell(text);
                    assert_eq!(rev.expected_violated(checker, tier), expected, "{row} {}", tier.name());
                    assert_eq!(rev.may_miss(checker, tier), may_miss, "{row} {}: may miss", tier.name());
                }
                assert_eq!(rev.expect(checker, Tier::Quick).shuttle_scale, scale(below), "{row}: iterations");
            }
            rows += 1;
        }
    }
    assert_eq!(rows, TABLE.len(), "a table row names a revision the catalogue does not have");
}

/// Like the kernel's litmus tests, broken and fixed sit side by side: a bug must fail under some
/// checker with every seed (a checker that may miss it does not count), a fix or a control must
/// pass under every one.
#[test]
fn bug_rows_fail_and_fix_and_control_rows_pass() {
    for s in scenarios() {
        let info = s.info();
        for rev in &info.revisions {
            let fails = Checker::ALL.into_iter().any(|c| !rev.must_find(c, Tier::Quick).is_empty());
            assert_eq!(fails, rev.role == Role::Bug, "{} {} is a {} row", info.name, rev.name, rev.role.name());
            for tier in Tier::ALL {
                let expects_any = Checker::ALL.into_iter().any(|c| !rev.expected_violated(c, tier).is_empty());
                assert_eq!(
                    expects_any,
                    fails,
                    "{} {} at the {} tier: only a checker that may miss it finds the bug, or a pass fails deeper",
                    info.name,
                    rev.name,
                    tier.name()
                );
            }
        }
    }
}

/// A property a checker may miss is one of its expected ones, and another checker of the row finds
/// it with every seed (the catalogue names the reliable checker that way). Only the shuttle
/// checkers take a seed, so only they may miss, and only they run a multiple of the iterations.
#[test]
fn may_miss_is_expected_and_found_reliably_elsewhere() {
    for s in scenarios() {
        let info = s.info();
        for rev in &info.revisions {
            for (checker, tier) in Checker::ALL.into_iter().flat_map(|c| Tier::ALL.map(|t| (c, t))) {
                let row = format!("{} {} {} {}", info.name, rev.name, checker.name(), tier.name());
                let (expected, may_miss) = (rev.expected_violated(checker, tier), rev.may_miss(checker, tier));
                assert!(may_miss.is_subset(&expected), "{row}: may miss {may_miss:?} of {expected:?}");
                let shuttle = matches!(checker, Checker::ShuttlePct | Checker::ShuttleRandom);
                assert!(shuttle || may_miss.is_empty(), "{row}: {} takes no seed", checker.name());
                let scale = rev.expect(checker, tier).shuttle_scale;
                assert!(scale >= 1 && (shuttle || scale == 1), "{row}: shuttle scale {scale}");
                for p in may_miss {
                    assert!(
                        Checker::ALL.into_iter().any(|c| c != checker && rev.must_find(c, tier).contains(p)),
                        "{row}: no checker finds {p} reliably"
                    );
                }
            }
        }
    }
}

/// The checkers `WBCHECK_EXPECT_CHECKERS` names (comma-separated), or all of them.
fn checkers_from_env() -> Vec<Checker> {
    match std::env::var("WBCHECK_EXPECT_CHECKERS") {
        Err(_) => Checker::ALL.to_vec(),
        Ok(list) => list
            .split(',')
            .map(|n| {
                Checker::from_name(n.trim()).unwrap_or_else(|| {
                    let valid: Vec<&str> = Checker::ALL.iter().map(|c| c.name()).collect();
                    panic!("WBCHECK_EXPECT_CHECKERS: unknown checker '{n}' (valid: {})", valid.join(", "))
                })
            })
            .collect(),
    }
}

/// Run every row of `scenario`, compare with the table, replay every counterexample. In a
/// cfg(loom) build (the design card's run) the loom rows are left to `wb-models`'
/// `deep_loom.rs`, which checks the same rows at the same bounds; the plain build checks them
/// here and replays their counterexamples.
fn check_scenario(scenario: &str) {
    let bounds = Bounds::from_env(Tier::Quick).expect("valid WBCHECK_* / LOOM_* variables");
    let s = find(scenario).expect("a scenario of the registry");
    let mut only = checkers_from_env();
    if cfg!(loom) {
        only.retain(|c| *c != Checker::Loom);
    }
    for (_, revision, cells) in TABLE.iter().filter(|(sc, _, _)| *sc == scenario) {
        for (checker, want) in Checker::ALL.into_iter().zip(cells).filter(|(c, _)| only.contains(c)) {
            let row = format!("{scenario} {revision} {}", checker.name());
            let outcome = match checker {
                Checker::Oracle => oracle::run(scenario, revision, Tier::Quick),
                _ => s.run(revision, checker, &bounds),
            }
            .unwrap_or_else(|e| panic!("{row}: {e}"));
            assert!(!outcome.bounded, "{row}: the search hit a limit");
            let (expected, may_miss) = cell(tiers(want).0);
            let violated = outcome.violated();
            assert!(violated.is_subset(&expected), "{row}: {violated:?}, expected {expected:?}");
            assert!(expected.difference(&may_miss).all(|p| violated.contains(p)), "{row}: {violated:?}");
            if checker == Checker::Oracle {
                continue;
            }
            for cx in &outcome.counterexamples {
                let handle = cx.replay.as_deref().unwrap_or_else(|| panic!("{row} {}: no handle", cx.property));
                if checker == Checker::Loom {
                    let k = cx.min_preemptions.unwrap_or_else(|| panic!("{row}: loom failure without min_preemptions"));
                    assert!(bounds.loom_preemptions.is_none_or(|b| k <= b), "{row}: {k}");
                    let decoded = LoomHandle::decode(handle).unwrap();
                    assert_eq!(decoded.preemptions, Some(k), "{row}: the handle replays the smallest bound's trace");
                    assert!(handle.starts_with("loom1:"), "{row}: handle {handle}");
                } else {
                    assert_eq!(cx.min_preemptions, None, "{row}");
                    assert!(handle.starts_with("shuttle1:"), "{row}: handle {handle}");
                }
                let r = s.replay(revision, checker, ShuttleSchedule::Recorded(handle), &bounds).unwrap();
                assert_eq!(r.steps, cx.steps, "{row} {}: replay of {handle} differs", cx.property);
                assert_eq!(r.placement, cx.placement, "{row}");
                assert!(r.violations.iter().any(|v| v.property == cx.property), "{row}: {:?}", r.violations);
                assert_eq!(r.schedule, handle, "{row}: the replay names itself by the same handle");
            }
        }
    }
}

/// `min_preemptions` is the smallest bound: the guard's lost expedition (`v7-fix-kick-hold-guard`,
/// whose flusher cannot lose the kick otherwise) needs one preemption (the first dirtier must stop
/// inside `__mark_inode_dirty`, between setting its dirty bits and WB_has_dirty_io, while the
/// DONTCACHE writer runs), so loom at bound 0 finds nothing and the matrix reports 1.
/// v5-late-clear's needs none under C11: the flusher's percpu sum may read a slot's older value,
/// which an interleaving gives only with a writer preempting the flusher.
#[test]
fn min_preemptions_is_the_smallest_bound() {
    use wb_models::dontcache_kick::DontcacheKick;
    use wb_models::scenario::Scenario;
    let bounds = Bounds::defaults(Tier::Quick);
    let o = DontcacheKick.run("v7-fix-kick-hold-guard", Checker::Loom, &bounds).unwrap();
    assert_eq!(o.counterexamples.len(), 1);
    assert_eq!(o.counterexamples[0].min_preemptions, Some(1));
    let at_0 = bounds.with_loom_preemptions(Some(0));
    let o = DontcacheKick.run("v7-fix-kick-hold-guard", Checker::Loom, &at_0).unwrap();
    assert!(o.counterexamples.is_empty() && !o.bounded, "{:?}", o.violated());
    let o = DontcacheKick.run("v5-late-clear", Checker::Loom, &at_0).unwrap();
    assert_eq!(o.counterexamples.len(), 1);
    assert_eq!(o.counterexamples[0].min_preemptions, Some(0));
}

#[test]
fn dontcache_kick() {
    check_scenario("dontcache-kick");
}

#[test]
fn wb_pin() {
    check_scenario("wb-pin");
}

#[test]
fn dontcache_accounting() {
    check_scenario("dontcache-accounting");
}

#[test]
fn percpu_counter() {
    check_scenario("percpu-counter");
}

#[test]
fn bdev_slots() {
    check_scenario("bdev-slots");
}

#[test]
fn foreign_policy() {
    check_scenario("foreign-policy");
}

#[test]
fn folio_dirty_accounting() {
    check_scenario("folio-dirty-accounting");
}

#[test]
fn per_block_charge() {
    check_scenario("per-block-charge");
}
