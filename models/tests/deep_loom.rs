//! The deep tier: every loom row of every scenario at the deep bound, against the catalogue's
//! expectations (which wb-checks' `expectations.rs` holds equal to its own table). Opt-in:
//! `RUSTFLAGS="--cfg loom" cargo test --release -p wb-models --test deep_loom [SCENARIO]`; hours
//! in all (see docs/performance.md), so run one scenario at a time.
#![cfg(loom)]

use wb_models::bounds::{Bounds, Tier};
use wb_models::outcome::Checker;
use wb_models::registry::find;

fn check(scenario: &str) {
    let bounds = Bounds::from_env(Tier::Deep).expect("valid bounds");
    let s = find(scenario).unwrap();
    for rev in s.info().revisions {
        let o = s.run(rev.name, Checker::Loom, &bounds).unwrap();
        assert!(!o.bounded, "{scenario} {}: the search hit a limit", rev.name);
        assert_eq!(o.violated(), rev.expected_violated(Checker::Loom), "{scenario} {}", rev.name);
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
    kick_rescuer: "kick-rescuer";
    wb_pin: "wb-pin";
    dontcache_accounting: "dontcache-accounting";
    percpu_counter: "percpu-counter";
    bdev_slots: "bdev-slots";
    foreign_policy: "foreign-policy";
    folio_dirty_accounting: "folio-dirty-accounting";
    per_block_charge: "per-block-charge";
}
