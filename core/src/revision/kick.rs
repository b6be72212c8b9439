//! The DONTCACHE kick and its consume (scenario `dontcache-kick`): the third patch of
//! "[PATCH v7 0/3] mm: improve write performance with RWF_DONTCACHE" and its review.

use super::{Expect, Provenance, Role, PASS};
use crate::property::{DIRTY_TRACKING, LOST_WAKEUP};

/// How `filemap_dontcache_kick_writeback` sets WB_start_dontcache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kick {
    /// `wb_has_dirty_io(wb) && !test_and_set_bit(WB_start_dontcache)`: Brauner's rewrite,
    /// folded in when v7 was applied.
    Fold,
    /// `wb_has_dirty_io(wb) && !test_bit(..) && !test_and_set_bit(..)`: as posted in v5..v7.
    Posted,
}

/// How `wb_check_start_dontcache` consumes the kick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consume {
    /// v6/v7: `test_and_clear_bit(WB_start_dontcache)`, then `wb_stat_sum(WB_DONTCACHE_DIRTY)`.
    ClearThenSum,
    /// `test_bit`, `wb_stat_sum`, write back, then `clear_bit`: the shape of
    /// `wb_check_start_all`, which v6 replaced.
    LateClear,
    /// `test_and_clear_bit`, then `wb_stat()` (the global count only), which v6 replaced.
    ClearThenApproxRead,
}

/// What the kick tests before it touches WB_start_dontcache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickGuard {
    /// v5..v7: `wb_has_dirty_io(wb) && ...`.
    HasDirtyIo,
    /// Our fix `v7-fix-kick`: no `wb_has_dirty_io` test. The writer has just dirtied DONTCACHE
    /// pages, so the test only saves a wakeup when writeback got there first, and it is wrong
    /// while another task is between setting the inode's dirty bits and putting it on `b_dirty`.
    None,
}

/// What `wb_workfn` does at its end about a kick still pending (fs/fs-writeback.c).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RescuerRequeue {
    /// 6.12 and v7: `wb_wakeup` only for a non-empty work list (else arm the timer).
    WorkList,
    /// Our fix (`v7-fix-rescuer-requeue`, and with the kick's in `v7-fix-kick-requeue`): also
    /// `wb_wakeup` while WB_start_dontcache is set, so
    /// a run on the rescuer (which does not consume the bit) queues the run that will.
    WorkListOrKick,
}

/// Every knob of the DONTCACHE kick/consume protocol a revision selects, in one value: the
/// writer side (`__mark_inode_dirty`'s barrier, the kick), the flusher side (the consume, the
/// end of `wb_workfn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KickProtocol {
    pub kick: Kick,
    pub guard: KickGuard,
    pub consume: Consume,
    /// `__mark_inode_dirty` keeps its `smp_mb()` (false only in mutants).
    pub writer_smp_mb: bool,
    pub requeue: RescuerRequeue,
}

impl KickProtocol {
    /// v7 as applied.
    pub const V7: KickProtocol = KickProtocol {
        kick: Kick::Fold,
        guard: KickGuard::HasDirtyIo,
        consume: Consume::ClearThenSum,
        writer_smp_mb: true,
        requeue: RescuerRequeue::WorkList,
    };
    const POSTED: KickProtocol = KickProtocol { kick: Kick::Posted, ..Self::V7 };
    const FIX: KickProtocol = KickProtocol { guard: KickGuard::None, ..Self::V7 };
    const FIX_POSTED: KickProtocol = KickProtocol { kick: Kick::Posted, ..Self::FIX };
    const REQUEUE: KickProtocol = KickProtocol { requeue: RescuerRequeue::WorkListOrKick, ..Self::V7 };
    /// Both fixes: the kick without the guard, and `wb_workfn`'s requeue for a pending kick.
    const FIX_REQUEUE: KickProtocol = KickProtocol { requeue: RescuerRequeue::WorkListOrKick, ..Self::FIX };
    const FIX_POSTED_REQUEUE: KickProtocol = KickProtocol { kick: Kick::Posted, ..Self::FIX_REQUEUE };
}

const LW: Expect = Expect::fails(&[LOST_WAKEUP]);
const DT: Expect = Expect::fails(&[DIRTY_TRACKING]);
const LW_DT: Expect = Expect::fails(&[DIRTY_TRACKING, LOST_WAKEUP]);

// Expected: loom, shuttle-pct, shuttle-random, oracle, over the one scope of the kick: writers,
// non-kicking dirtiers and flusher runs on a worker or on bdi_wq's rescuer. The window in
// __mark_inode_dirty is invisible to the oracle (it runs whole calls), weak memory to shuttle and
// the oracle; the rescuer's absorbed kick is visible to all.
crate::catalogue! {
    /// The revisions of the DONTCACHE kick/consume protocol.
    pub enum KickRevision for "dontcache-kick", knobs KickProtocol {
        /// Brauner "I'll just fold it"; Kara's Reviewed-by "with Christian's simplification".
        V7 {
            name: "v7",
            summary: "v7 as applied: Brauner's fold (wb_has_dirty_io && !test_and_set_bit); test_and_clear_bit then wb_stat_sum",
            provenance: Provenance::Applied,
            role: Role::Bug,
            knobs: KickProtocol::V7,
            expected: [LW, LW, LW, LW],
        },
        V7Posted {
            name: "v7-posted",
            summary: "v7 as posted: wb_has_dirty_io && !test_bit && !test_and_set_bit; test_and_clear_bit then wb_stat_sum",
            provenance: Provenance::Posted,
            role: Role::Bug,
            knobs: KickProtocol::POSTED,
            expected: [LW, LW, LW, LW],
        },
        /// Shows that the posted early-out relied on `__mark_inode_dirty`'s barrier.
        V7PostedNoMb {
            name: "v7-posted-no-mb",
            summary: "mutant: v7 as posted without __mark_inode_dirty's smp_mb() on the writer's path",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { writer_smp_mb: false, ..KickProtocol::POSTED },
            expected: [LW_DT, LW, LW, LW],
        },
        /// Shows that the fold does not rely on that barrier for the kick.
        V7NoMb {
            name: "v7-no-mb",
            summary: "mutant: v7 as applied without __mark_inode_dirty's smp_mb() on the writer's path",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { writer_smp_mb: false, ..KickProtocol::V7 },
            expected: [LW_DT, LW, LW, LW],
        },
        /// v5 as posted also read `wb_stat()` and woke inside the section (scenario wb-pin).
        V5LateClear {
            name: "v5-late-clear",
            summary: "reconstruction (v6 changelog): consume tests the bit, sums, writes back, then clear_bit",
            provenance: Provenance::Reconstruction(
                "Use test_and_clear_bit for WB_start_dontcache before starting writeback to prevent lost wakeups",
            ),
            role: Role::Bug,
            knobs: KickProtocol { consume: Consume::LateClear, ..KickProtocol::POSTED },
            expected: [LW, LW, LW, LW],
        },
        V5ApproxRead {
            name: "v5-approx-read",
            summary: "reconstruction (v6 changelog): consume reads wb_stat() (global count only)",
            provenance: Provenance::Reconstruction(
                "Use wb_stat_sum() instead of wb_stat() ... so small writes below the percpu batch threshold are visible to the flusher",
            ),
            role: Role::Bug,
            knobs: KickProtocol { consume: Consume::ClearThenApproxRead, ..KickProtocol::POSTED },
            expected: [LW, LW, LW, LW],
        },
        /// Fixes the `__mark_inode_dirty` window only: the rescuer still absorbs the kick.
        V7FixKick {
            name: "v7-fix-kick",
            summary: "partial fix: v7's kick without the wb_has_dirty_io test (a run on the rescuer still absorbs the kick)",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: KickProtocol::FIX,
            expected: [LW, LW, LW, LW],
        },
        V7FixKickPosted {
            name: "v7-fix-kick-posted",
            summary: "partial fix on the posted kick: !test_bit && !test_and_set_bit, no wb_has_dirty_io test (the rescuer still absorbs the kick)",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: KickProtocol::FIX_POSTED,
            expected: [LW, LW, LW, LW],
        },
        /// Fixes the rescuer only: a non-kicking first dirtier's window still skips the kick
        /// (the oracle runs whole calls and cannot see that window).
        V7FixRescuerRequeue {
            name: "v7-fix-rescuer-requeue",
            summary: "partial fix: wb_workfn ends with wb_wakeup while WB_start_dontcache is set (the wb_has_dirty_io window stays)",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: KickProtocol::REQUEUE,
            expected: [LW, LW, LW, PASS],
        },
        V7FixKickRequeue {
            name: "v7-fix-kick-requeue",
            summary: "our fix: v7's kick without the wb_has_dirty_io test, and wb_workfn ends with wb_wakeup while WB_start_dontcache is set",
            provenance: Provenance::OurFix,
            role: Role::Fix,
            knobs: KickProtocol::FIX_REQUEUE,
            expected: [PASS, PASS, PASS, PASS],
        },
        V7FixKickPostedRequeue {
            name: "v7-fix-kick-posted-requeue",
            summary: "our fix on the posted kick: no wb_has_dirty_io test, and wb_workfn's requeue for a pending kick",
            provenance: Provenance::OurFix,
            role: Role::Fix,
            knobs: KickProtocol::FIX_POSTED_REQUEUE,
            expected: [PASS, PASS, PASS, PASS],
        },
        V7FixKickPostedRequeueNoMb {
            name: "v7-fix-kick-posted-requeue-no-mb",
            summary: "mutant: v7-fix-kick-posted-requeue without __mark_inode_dirty's smp_mb() on the writer's path",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { writer_smp_mb: false, ..KickProtocol::FIX_POSTED_REQUEUE },
            expected: [LW_DT, PASS, PASS, PASS],
        },
        V7FixKickRequeueNoMb {
            name: "v7-fix-kick-requeue-no-mb",
            summary: "mutant: v7-fix-kick-requeue without __mark_inode_dirty's smp_mb() on the writer's path",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { writer_smp_mb: false, ..KickProtocol::FIX_REQUEUE },
            expected: [DT, PASS, PASS, PASS],
        },
    }
}
