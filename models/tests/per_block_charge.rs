//! Expected verdicts of `per-block-charge` and `folio-dirty-accounting` under loom and both
//! shuttle checkers (the oracle column is tested in wb-checks).

use std::collections::BTreeSet;
use wb_models::bounds::{Bounds, Tier};
use wb_models::folio_dirty_accounting::{FolioDirtyAccounting, CHARGE_EQUALS_WRITTEN};
use wb_models::outcome::Checker;
use wb_models::per_block_charge::{PerBlockCharge, CHARGE_DISCHARGE_MATCH};
use wb_models::scenario::Scenario;

const CONCURRENT: [Checker; 3] = [Checker::Loom, Checker::ShuttlePct, Checker::ShuttleRandom];

#[test]
fn series_and_baseline_match_charges_mutant_does_not() {
    let b = Bounds::from_env(Tier::Quick).unwrap();
    for c in CONCURRENT {
        for rev in ["baseline", "series", "series-mkclean-nosync"] {
            let o = PerBlockCharge.run(rev, c, &b).unwrap();
            assert!(!o.bounded && o.violated().is_empty(), "{rev} {c:?}: {:#?}", o.counterexamples.first());
        }
        let o = PerBlockCharge.run("series-discharge-nr-pages", c, &b).unwrap();
        assert_eq!(o.violated(), BTreeSet::from([CHARGE_DISCHARGE_MATCH]), "{c:?}");
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
