//! The hand-written minimal loom model of the kick performs the same loom operations as the
//! `dontcache-kick` scenario: loom explores the same number of executions and finds the same
//! verdict, for every revision and for larger configurations. (Time is compared by
//! `wbcheck bench`, not here.)

use wb_core::revision::KickRevision;
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_kick::{DontcacheKick, KickConfig, KickModel};
use wb_models::harness::run_loom_search;
use wb_models::kick_minimal;
use wb_models::outcome::Checker;

fn bounds(preemptions: usize) -> Bounds {
    Bounds { loom_preemptions: Some(preemptions), ..Bounds::defaults(Tier::Quick) }
}

fn assert_same(model: KickModel, b: &Bounds) {
    let full = run_loom_search(&model, b);
    let minimal = kick_minimal::run(model.config, model.revision, b);
    assert_eq!(
        (minimal.executions, minimal.violated),
        (full.executions, !full.violated().is_empty()),
        "{} {:?} at {:?}",
        model.revision.name(),
        model.config,
        b.loom_preemptions
    );
}

#[test]
fn every_revision_explores_the_same_executions() {
    for rev in KickRevision::ALL {
        assert_same(DontcacheKick::model_for(rev, Checker::Loom, Tier::Quick), &bounds(2));
    }
}

#[test]
fn larger_configurations_explore_the_same_executions() {
    let base = KickConfig::loom(Tier::Quick);
    for config in
        [KickConfig { ops_per_writer: 2, ..base }, KickConfig { writers: 3, ..base }, KickConfig { batch: 1, ..base }]
    {
        assert_same(KickModel { revision: KickRevision::V7, config }, &bounds(1));
    }
}
