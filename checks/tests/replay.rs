//! Exact replay for every checker that has schedules: each counterexample of every buggy
//! revision of every scenario, under loom and both shuttle checkers, replays from its handle to
//! the identical trace and the same violated property. Runs at the quick tier.

use wb_models::bounds::{Bounds, Tier};
use wb_models::harness::ShuttleSchedule;
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
