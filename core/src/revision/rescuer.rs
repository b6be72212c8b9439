//! `wb_workfn`'s handling of a pending kick when the flusher runs on the workqueue's rescuer
//! (scenario `kick-rescuer`).

use super::{Expect, KickProtocol, Provenance, RescuerRequeue, Role, PASS};
use crate::property::LOST_WAKEUP;

const LW: Expect = Expect::fails(&[LOST_WAKEUP]);
// Measured over seeds 1 to 20 at the quick tier: shuttle-random's first lost wakeup of v7 comes
// after 1,591 executions on average (at most 5,611), so 10,000 iterations miss it with about one
// seed in 500; twice as many with about one in 300,000.
const LW_RANDOM_2X: Expect = LW.shuttle_scale(2);

crate::catalogue! {
    /// The revisions of `wb_workfn`'s end with v7's kick.
    pub enum RescuerRevision for "kick-rescuer", knobs KickProtocol {
        V7 {
            name: "v7",
            summary: "6.12 wb_workfn with v7's kick: the rescuer path writes back without consuming the kick",
            provenance: Provenance::Applied,
            role: Role::Bug,
            knobs: KickProtocol::V7,
            expected: [LW, LW, LW_RANDOM_2X, LW],
        },
        V7FixRescuerRequeue {
            name: "v7-fix-rescuer-requeue",
            summary: "our fix: wb_workfn ends with wb_wakeup while WB_start_dontcache is set",
            provenance: Provenance::OurFix,
            role: Role::Fix,
            knobs: KickProtocol { requeue: RescuerRequeue::WorkListOrKick, ..KickProtocol::V7 },
            expected: [PASS, PASS, PASS, PASS],
        },
    }
}
