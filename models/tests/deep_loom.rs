//! The design card's loom run, `RUSTFLAGS="--cfg loom" cargo test --release`: every loom row of
//! every scenario against the catalogue's expectations (which wb-checks' `expectations.rs` holds
//! equal to its own table), at the tier `WBCHECK_LOOM_TIER` names: `quick` unless set (so the
//! whole command stays within minutes on a 2-core machine), `scope` (about half an hour of loom
//! rows there) or `deep` for the deep bounds (hours in all, see docs/performance.md: run one
//! scenario at a time,
//! `WBCHECK_LOOM_TIER=deep RUSTFLAGS="--cfg loom" cargo test --release -p wb-models --test deep_loom SCENARIO`).
#![cfg(loom)]

use wb_models::bounds::{Bounds, Tier};
use wb_models::outcome::Checker;
use wb_models::registry::find;

/// The tier `WBCHECK_LOOM_TIER` names (default quick); a bad value fails every test with the
/// valid ones.
fn tier() -> Tier {
    match std::env::var("WBCHECK_LOOM_TIER") {
        Err(_) => Tier::Quick,
        Ok(v) => Tier::from_name(v.trim())
            .unwrap_or_else(|| panic!("invalid value '{v}' for WBCHECK_LOOM_TIER: expected quick, scope or deep")),
    }
}

fn check(scenario: &str) {
    let bounds = Bounds::from_env(tier()).expect("valid bounds");
    let s = find(scenario).unwrap();
    for rev in s.info().revisions {
        let o = s.run(rev.name, Checker::Loom, &bounds).unwrap();
        assert!(!o.bounded, "{scenario} {}: the search hit a limit", rev.name);
        assert_eq!(o.violated(), rev.expected_violated(Checker::Loom, bounds.tier), "{scenario} {}", rev.name);
    }
}

macro_rules! deep {
    ($($test:ident: $scenario:literal;)*) => {$(
        #[test]
        fn $test() {
            check($scenario);
        }
    )*};
}

deep! {
    dontcache_kick: "dontcache-kick";
    wb_pin: "wb-pin";
    dontcache_accounting: "dontcache-accounting";
    percpu_counter: "percpu-counter";
    bdev_slots: "bdev-slots";
    foreign_policy: "foreign-policy";
    folio_dirty_accounting: "folio-dirty-accounting";
    per_block_charge: "per-block-charge";
}
