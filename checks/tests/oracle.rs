//! The `oracle` checker's bad input: an unknown revision of any scenario is an error that names
//! the valid ones (its verdicts are in `expectations.rs`).

use wb_checks::oracle;
use wb_models::bounds::Tier;
use wb_models::registry::scenarios;

#[test]
fn unknown_revision_is_an_error_naming_the_valid_ones() {
    for s in scenarios() {
        let info = s.info();
        let err = oracle::run(info.name, "v99", Tier::Quick).unwrap_err();
        assert!(err.contains("'v99'") && err.contains(info.revisions[0].name), "{}: {err}", info.name);
    }
    assert!(oracle::run("no-such-scenario", "v7", Tier::Quick).is_err());
}
