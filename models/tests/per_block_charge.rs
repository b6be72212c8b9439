//! Expected verdicts of `per-block-charge` and `folio-dirty-accounting` under loom and both
//! shuttle checkers (the oracle column is tested in wb-checks).

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::folio_dirty_accounting::{FolioDirtyAccounting, CHARGE_EQUALS_WRITTEN};
use wb_models::outcome::Checker;
use wb_models::per_block_charge::{PerBlockCharge, CHARGE_DISCHARGE_MATCH, COUNTER_EXACT, WB_RECLAIMABLE_EXACT};
use wb_models::scenario::Scenario;

const CONCURRENT: [Checker; 3] = [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom];

#[test]
fn baseline_and_fix_keep_every_wb_and_the_dontcache_counter_exact_the_series_does_not() {
    let b = Bounds::from_env(Tier::Quick).unwrap();
    for c in CONCURRENT {
        for rev in ["baseline", "series-fix-charge-in-section"] {
            let o = PerBlockCharge.run(rev, c, &b).unwrap();
            assert!(!o.bounded && o.violated().is_empty(), "{rev} {c:?}: {:#?}", o.counterexamples.first());
        }
        for rev in ["series", "series-switch-accounted", "series-fix-mkclean-nosync"] {
            let o = PerBlockCharge.run(rev, c, &b).unwrap();
            assert_eq!(o.violated(), BTreeSet::from([WB_RECLAIMABLE_EXACT, COUNTER_EXACT]), "{rev} {c:?}");
        }
        let o = PerBlockCharge.run("series-fix-discharge-nr-pages", c, &b).unwrap();
        let all = BTreeSet::from([CHARGE_DISCHARGE_MATCH, WB_RECLAIMABLE_EXACT, COUNTER_EXACT]);
        assert_eq!(o.violated(), all, "{c:?}");
    }
}

#[test]
fn per_page_passes_per_folio_fails() {
    let b = Bounds::from_env(Tier::Quick).unwrap();
    for c in [Checker::ShuttlePct, Checker::ShuttleRandom] {
        for (rev, fails) in [
            ("per-folio", true),
            ("per-page", false),
            ("fadv-random", false),
            ("fadv-random-write-64k", true),
            ("fadv-dontneed", true),
        ] {
            let o = FolioDirtyAccounting.run(rev, c, &b).unwrap();
            let want = if fails { BTreeSet::from([CHARGE_EQUALS_WRITTEN]) } else { BTreeSet::new() };
            assert_eq!(o.violated(), want, "{rev} {c:?}");
        }
    }
}

#[test]
fn unknown_revisions_are_errors() {
    let b = Bounds::from_env(Tier::Quick).unwrap();
    assert!(PerBlockCharge.run("v9", Checker::Loom, &b).unwrap_err().contains("series"));
    assert!(FolioDirtyAccounting.run("v9", Checker::Loom, &b).unwrap_err().contains("per-page"));
}
