#![doc = include_str!("kick_rescuer.md")]

use crate::bounds::Tier;
use crate::dontcache_kick::{kick_bounds, rescuer_scope, KickModel, KickVariant, DIRTY_TRACKING, LOST_WAKEUP};
use crate::outcome::Checker;
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use std::sync::Arc;
use wb_core::revision::RescuerRevision;

pub const NAME: &str = "kick-rescuer";

pub struct KickRescuer;

fn expected(rev: RescuerRevision) -> [&'static [&'static str]; 4] {
    const F: &[&str] = &[LOST_WAKEUP];
    const P: &[&str] = &[];
    // loom, shuttle-pct, shuttle-random, oracle
    match rev {
        RescuerRevision::V7 => [F, F, F, F],
        RescuerRevision::V7FixRescuerRequeue => [P, P, P, P],
    }
}

impl KickRescuer {
    pub fn model_for(revision: RescuerRevision, checker: Checker) -> KickModel {
        KickModel {
            variant: KickVariant::Rescuer(revision),
            setups: Arc::new(rescuer_scope()),
            bounds: crate::dontcache_kick::KickBounds { max_threads: 2, ..kick_bounds(checker, true) },
        }
    }
}

impl ModelScenario for KickRescuer {
    type Model = KickModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "is a DONTCACHE kick absorbed when bdi_wq runs the flusher on its rescuer? (seed 002 patch 3, 6.12 wb_workfn)",
            header: include_str!("kick_rescuer.md"),
            properties: &[
                (
                    LOST_WAKEUP,
                    "as in dontcache-kick: dirty DONTCACHE pages remaining => WB_start_dontcache set with a run queued, or the last consume read them",
                ),
                (DIRTY_TRACKING, "as in dontcache-kick"),
            ],
            revisions: revision_infos(expected),
        }
    }

    fn model(&self, revision: &str, checker: Checker, _tier: Tier) -> Result<KickModel, String> {
        Ok(Self::model_for(parse_revision(NAME, revision)?, checker))
    }
}
