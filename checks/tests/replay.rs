//! Exact replay for every checker that has schedules: each counterexample of every buggy
//! revision of every scenario, under loom and both shuttle checkers, replays from its handle to
//! the identical trace and the same violated property; every loom failure carries the smallest
//! preemption bound at which it appears. Runs at the quick tier.

use wb_models::bounds::{Bounds, Tier};
use wb_models::harness::{LoomHandle, ShuttleSchedule};
use wb_models::outcome::Checker;
use wb_models::scenario::scenarios;

#[test]
fn every_counterexample_replays_to_its_trace() {
    let bounds = Bounds::from_env(Tier::Quick).expect("valid WBCHECK_* / LOOM_* variables");
    let mut replayed = 0;
    for s in scenarios() {
        let info = s.info();
        for rev in &info.revisions {
            for checker in [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom] {
                if rev.expected_violated(checker).is_empty() {
                    continue;
                }
                let row = format!("{} {} {}", info.name, rev.name, checker.name());
                let outcome = s.run(rev.name, checker, &bounds).unwrap();
                assert!(!outcome.counterexamples.is_empty(), "{row}: expected to fail");
                for cx in &outcome.counterexamples {
                    if checker == Checker::Loom {
                        let k =
                            cx.min_preemptions.unwrap_or_else(|| panic!("{row}: loom failure without min_preemptions"));
                        assert!(bounds.loom_preemptions.is_none_or(|b| k <= b), "{row}: {k}");
                        let handle = LoomHandle::decode(cx.replay.as_deref().unwrap_or_default()).unwrap();
                        assert_eq!(handle.preemptions, Some(k), "{row}: the handle replays the smallest bound's trace");
                    } else {
                        assert_eq!(cx.min_preemptions, None, "{row}");
                    }
                    let handle = cx.replay.as_deref().unwrap_or_else(|| panic!("{row} {}: no handle", cx.property));
                    let prefix = if checker == Checker::Loom { "loom1:" } else { "shuttle1:" };
                    assert!(handle.starts_with(prefix), "{row}: handle {handle}");
                    let r = s.replay(rev.name, checker, ShuttleSchedule::Recorded(handle), &bounds).unwrap();
                    assert_eq!(r.steps, cx.steps, "{row} {}: replay of {handle} differs", cx.property);
                    assert_eq!(r.placement, cx.placement, "{row}");
                    assert!(r.violations.iter().any(|v| v.property == cx.property), "{row}: {:?}", r.violations);
                    assert_eq!(r.schedule, handle, "{row}: the replay names itself by the same handle");
                    replayed += 1;
                }
            }
        }
    }
    assert!(replayed >= 60, "only {replayed} counterexamples replayed");
}

/// `min_preemptions` is the smallest bound: v5-late-clear's lost wakeup needs one preemption
/// (the writer's test must fall between the flusher's sum and its clear), so loom at bound 0
/// finds nothing and the matrix reports 1.
#[test]
fn min_preemptions_is_the_smallest_bound() {
    use wb_models::dontcache_kick::DontcacheKick;
    use wb_models::scenario::Scenario;
    let bounds = Bounds::defaults(Tier::Quick);
    let o = DontcacheKick.run("v5-late-clear", Checker::Loom, &bounds).unwrap();
    assert_eq!(o.counterexamples.len(), 1);
    assert_eq!(o.counterexamples[0].min_preemptions, Some(1));
    let at_0 = bounds.with_loom_preemptions(Some(0));
    let o = DontcacheKick.run("v5-late-clear", Checker::Loom, &at_0).unwrap();
    assert!(o.counterexamples.is_empty() && !o.bounded, "{:?}", o.violated());
}
