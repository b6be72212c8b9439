#![doc = include_str!("kick_rescuer.md")]

use crate::bounds::Tier;
use crate::dontcache_kick::{kick_bounds, rescuer_scope, KickModel, KickVariant, Setup, DIRTY_TRACKING, LOST_WAKEUP};
use crate::outcome::Checker;
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::sync::Arc;
use wb_core::dontcache::RunOn;
use wb_core::revision::RescuerRevision;
use wb_core::revision::Revision;

pub const NAME: &str = <RescuerRevision as Revision>::SCENARIO;

/// The declared scope of kick-rescuer.
pub fn rescuer_scope_decl() -> ScopeDecl {
    ScopeDecl {
        roles: vec![
            RoleDecl {
                name: "dontcache-writer",
                runs: "filemap_dirty_folio (a DONTCACHE folio) then filemap_dontcache_kick_writeback (v7's fold)",
                callers: "generic_perform_write / iomap_file_buffered_write with IOCB_DONTCACHE, then generic_write_sync",
            },
            RoleDecl {
                name: "flusher",
                runs: "wb_workfn on a normal kworker (wb_do_writeback -> wb_check_start_dontcache) or on bdi_wq's rescuer (writeback_inodes_wb(wb, 1024, WB_REASON_FORKER_THREAD)), then the end of wb_workfn (re-queue or wb_wakeup_delayed)",
                callers: "wb->dwork on bdi_wq (WQ_MEM_RECLAIM: its rescuer runs pending items when the pool cannot create workers under memory pressure)",
            },
        ],
        counts: "one flusher with two runs, at least one on the rescuer; one or two dontcache-writers, one operation each (shuttle: two, each run on the rescuer with probability 1/2)",
        sharing: "one bdi and its root wb; the writers on one inode (one folio or two) or on two",
        initial: "every inode clean, WB_has_dirty_io 0, WB_start_dontcache clear, nothing queued",
        excluded: "buffered writers and inode dirtiers (dontcache-kick's scope: the WB_has_dirty_io window would fail every revision here for a reason of its own); a rescuer run that finds the wb unregistered takes the normal path (covered: it is wb-pin's release flush)",
        bounds: "loom: 2 CPUs, batch 2, CPU placements as in dontcache-kick; preemption bound 1 (quick), 2 (scope), 3 (deep). shuttle: 10,000 / 50,000 / 200,000 iterations. oracle: every interleaving of whole calls, the configuration's two runs",
        configurations: rescuer_scope().iter().map(Setup::label).collect(),
    }
}

pub struct KickRescuer;

impl KickRescuer {
    pub fn model_for(revision: RescuerRevision, checker: Checker) -> KickModel {
        // shuttle draws the kind of each run itself: one configuration per thread layout.
        let setups = rescuer_scope()
            .into_iter()
            .filter(|s| checker == Checker::Loom || s.runs == [RunOn::Rescuer, RunOn::Worker])
            .collect();
        KickModel {
            variant: KickVariant::Rescuer(revision),
            setups: Arc::new(setups),
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
            scope: rescuer_scope_decl(),
            revisions: revision_infos::<RescuerRevision>(),
        }
    }

    fn model(&self, revision: &str, checker: Checker, _tier: Tier) -> Result<KickModel, String> {
        Ok(Self::model_for(parse_revision(NAME, revision)?, checker))
    }
}
