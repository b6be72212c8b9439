//! The oracle of `kick-rescuer`: the dontcache-kick reference and driver over the rescuer scope,
//! where the configuration says which flusher runs are on the workqueue's rescuer.

use super::dontcache_kick::{rescuer_knobs, KickOracleConfig, KickScope, RefKnobs};
use wb_core::dontcache::RunOn;
use wb_core::revision::RescuerRevision;
use wb_models::dontcache_kick::{self, Setup};

pub use super::dontcache_kick::KickOracle;
pub use wb_models::kick_rescuer::NAME;

/// The oracle of `kick-rescuer`.
pub type RescuerOracle = KickOracle<RescuerRevision>;

impl KickScope for RescuerRevision {
    fn ref_knobs(self) -> RefKnobs {
        rescuer_knobs(self)
    }
    fn setups() -> Vec<Setup> {
        dontcache_kick::rescuer_scope()
    }
    fn rescuer_runs(setup: &Setup, _: &KickOracleConfig) -> Vec<bool> {
        setup.runs.iter().map(|r| *r == RunOn::Rescuer).collect()
    }
}
