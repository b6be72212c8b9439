//! The DONTCACHE kick and its consume (scenario `dontcache-kick`): the third patch of
//! "[PATCH v7 0/3] mm: improve write performance with RWF_DONTCACHE" and its review.

use super::{Expect, Provenance, Role, PASS};
use crate::property::{DIRTY_TRACKING, EXPEDITION, NO_IDLE_SPIN};

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
pub enum Requeue {
    /// 6.12 and v7: `wb_wakeup` only for a non-empty work list (else arm the timer).
    WorkList,
    /// `v7-fix-rescuer-requeue`, `v7-fix-kick-requeue`: also `wb_wakeup` while WB_start_dontcache
    /// is set, so a run on the rescuer (which does not consume the bit) queues the run that will.
    /// A rescuer run that finds nothing to write queues itself again: the rescuer spins.
    WorkListOrKick,
    /// Our fix `v7-fix-kick-hold`: `wb_wakeup` while WB_start_dontcache is set and the wb has
    /// dirty I/O: a run with nothing on the lists never queues itself; the first dirty inode's
    /// wakeup ([`FirstDirty::KickPending`]) takes over.
    WorkListOrKickWithDirtyIo,
}

/// What `wb_check_start_dontcache` does with the kick when its writeback falls short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShortConsume {
    /// v7: the kick is consumed whatever the writeback wrote.
    Clear,
    /// Our fix: `set_bit(WB_start_dontcache)` again when the writeback wrote fewer pages than the
    /// budget: pages it could not reach yet (another task
    /// between `__mark_inode_dirty`'s `i_lock` and `list_lock`, or dirtying them as the writeback
    /// walked the mapping) keep their kick.
    KeepKick,
}

/// How `__mark_inode_dirty` wakes the flusher when it puts a wb's first dirty inode on `b_dirty`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstDirty {
    /// 6.12: `wb_wakeup_delayed` (the periodic timer).
    Delayed,
    /// Our fix: `wb_wakeup` if WB_start_dontcache is set (a kick waits for this inode), else
    /// `wb_wakeup_delayed`. No barrier: WB_has_dirty_io, just set with an atomic `set_bit`, and
    /// WB_start_dontcache are bits of one word, so the test reads the consume's re-set or the
    /// re-set's RMW reads WB_has_dirty_io (coherence), and `wb_workfn`'s requeue sees it.
    KickPending,
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
    pub requeue: Requeue,
    pub short: ShortConsume,
    pub first_dirty: FirstDirty,
}

impl KickProtocol {
    /// v7 as applied.
    pub const V7: KickProtocol = KickProtocol {
        kick: Kick::Fold,
        guard: KickGuard::HasDirtyIo,
        consume: Consume::ClearThenSum,
        writer_smp_mb: true,
        requeue: Requeue::WorkList,
        short: ShortConsume::Clear,
        first_dirty: FirstDirty::Delayed,
    };
    const POSTED: KickProtocol = KickProtocol { kick: Kick::Posted, ..Self::V7 };
    const FIX: KickProtocol = KickProtocol { guard: KickGuard::None, ..Self::V7 };
    const FIX_POSTED: KickProtocol = KickProtocol { kick: Kick::Posted, ..Self::FIX };
    const REQUEUE: KickProtocol = KickProtocol { requeue: Requeue::WorkListOrKick, ..Self::V7 };
    /// Both fixes: the kick without the guard, and `wb_workfn`'s requeue for a pending kick.
    const FIX_REQUEUE: KickProtocol = KickProtocol { requeue: Requeue::WorkListOrKick, ..Self::FIX };
    const FIX_POSTED_REQUEUE: KickProtocol = KickProtocol { kick: Kick::Posted, ..Self::FIX_REQUEUE };
    /// Our fix: the kick without the guard, held until a run can reach its pages.
    const HOLD: KickProtocol = KickProtocol {
        requeue: Requeue::WorkListOrKickWithDirtyIo,
        short: ShortConsume::KeepKick,
        first_dirty: FirstDirty::KickPending,
        ..Self::FIX
    };
    const POSTED_HOLD: KickProtocol = KickProtocol { kick: Kick::Posted, ..Self::HOLD };

    /// The kernel functions whose code differs between `base` and this protocol, in the order of
    /// the fields: what a patch from `base` to this revision touches.
    pub fn functions_changed_from(&self, base: &KickProtocol) -> Vec<&'static str> {
        let mut v = Vec::new();
        let mut changed = |differs: bool, function: &'static str| {
            if differs && !v.contains(&function) {
                v.push(function);
            }
        };
        changed(self.kick != base.kick || self.guard != base.guard, "filemap_dontcache_kick_writeback");
        changed(self.consume != base.consume || self.short != base.short, "wb_check_start_dontcache");
        changed(self.writer_smp_mb != base.writer_smp_mb, "__mark_inode_dirty");
        changed(self.requeue != base.requeue, "wb_workfn");
        changed(self.first_dirty != base.first_dirty, "__mark_inode_dirty");
        v
    }
}

const EX: Expect = Expect::fails(&[EXPEDITION]);
const EX_DT: Expect = Expect::fails(&[DIRTY_TRACKING, EXPEDITION]);
const SPIN: Expect = Expect::fails(&[NO_IDLE_SPIN]);
const EX_SPIN: Expect = Expect::fails(&[EXPEDITION, NO_IDLE_SPIN]);
const EX_DT_SPIN: Expect = Expect::fails(&[DIRTY_TRACKING, EXPEDITION, NO_IDLE_SPIN]);

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
            expected: [EX, EX, EX, EX],
        },
        V7Posted {
            name: "v7-posted",
            summary: "v7 as posted: wb_has_dirty_io && !test_bit && !test_and_set_bit; test_and_clear_bit then wb_stat_sum",
            provenance: Provenance::Posted,
            role: Role::Bug,
            knobs: KickProtocol::POSTED,
            expected: [EX, EX, EX, EX],
        },
        /// Shows that the posted early-out relied on `__mark_inode_dirty`'s barrier.
        V7PostedNoMb {
            name: "v7-posted-no-mb",
            summary: "mutant: v7 as posted without __mark_inode_dirty's smp_mb() on the writer's path",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { writer_smp_mb: false, ..KickProtocol::POSTED },
            expected: [EX_DT, EX, EX, EX],
        },
        /// Shows that the fold does not rely on that barrier for the kick.
        V7NoMb {
            name: "v7-no-mb",
            summary: "mutant: v7 as applied without __mark_inode_dirty's smp_mb() on the writer's path",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { writer_smp_mb: false, ..KickProtocol::V7 },
            expected: [EX_DT, EX, EX, EX],
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
            expected: [EX, EX, EX, EX],
        },
        V5ApproxRead {
            name: "v5-approx-read",
            summary: "reconstruction (v6 changelog): consume reads wb_stat() (global count only)",
            provenance: Provenance::Reconstruction(
                "Use wb_stat_sum() instead of wb_stat() ... so small writes below the percpu batch threshold are visible to the flusher",
            ),
            role: Role::Bug,
            knobs: KickProtocol { consume: Consume::ClearThenApproxRead, ..KickProtocol::POSTED },
            expected: [EX, EX, EX, EX],
        },
        /// Fixes the `__mark_inode_dirty` window only: the rescuer still absorbs the kick.
        V7FixKick {
            name: "v7-fix-kick",
            summary: "partial fix: v7's kick without the wb_has_dirty_io test (a run on the rescuer still absorbs the kick)",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: KickProtocol::FIX,
            expected: [EX, EX, EX, EX],
        },
        V7FixKickPosted {
            name: "v7-fix-kick-posted",
            summary: "partial fix on the posted kick: !test_bit && !test_and_set_bit, no wb_has_dirty_io test (the rescuer still absorbs the kick)",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: KickProtocol::FIX_POSTED,
            expected: [EX, EX, EX, EX],
        },
        /// Fixes the rescuer only: a non-kicking first dirtier's window still skips the kick (the
        /// oracle runs whole calls and cannot see that window), and the requeue spins.
        V7FixRescuerRequeue {
            name: "v7-fix-rescuer-requeue",
            summary: "partial fix: wb_workfn ends with wb_wakeup while WB_start_dontcache is set (the wb_has_dirty_io window stays; the requeue spins on the rescuer)",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: KickProtocol::REQUEUE,
            expected: [EX_SPIN, EX_SPIN, EX_SPIN, SPIN],
        },
        V7FixKickRequeue {
            name: "v7-fix-kick-requeue",
            summary: "issue 25's fix: no wb_has_dirty_io test, and wb_workfn ends with wb_wakeup while WB_start_dontcache is set (the kick's run can come too early; the requeue spins on the rescuer)",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: KickProtocol::FIX_REQUEUE,
            expected: [SPIN, EX_SPIN, SPIN, SPIN],
        },
        V7FixKickPostedRequeue {
            name: "v7-fix-kick-posted-requeue",
            summary: "issue 25's fix on the posted kick: no wb_has_dirty_io test, and wb_workfn's requeue for a pending kick (as v7-fix-kick-requeue)",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: KickProtocol::FIX_POSTED_REQUEUE,
            expected: [SPIN, EX_SPIN, SPIN, SPIN],
        },
        V7FixKickPostedRequeueNoMb {
            name: "v7-fix-kick-posted-requeue-no-mb",
            summary: "mutant: v7-fix-kick-posted-requeue without __mark_inode_dirty's smp_mb() on the writer's path",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { writer_smp_mb: false, ..KickProtocol::FIX_POSTED_REQUEUE },
            expected: [EX_DT_SPIN, EX_SPIN, SPIN, SPIN],
        },
        V7FixKickRequeueNoMb {
            name: "v7-fix-kick-requeue-no-mb",
            summary: "mutant: v7-fix-kick-requeue without __mark_inode_dirty's smp_mb() on the writer's path",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { writer_smp_mb: false, ..KickProtocol::FIX_REQUEUE },
            expected: [EX_DT_SPIN, EX_SPIN, SPIN, SPIN],
        },
        /// The kick is held until a run can reach its pages; a run with nothing to write never
        /// queues itself.
        V7FixKickHold {
            name: "v7-fix-kick-hold",
            summary: "our fix: no wb_has_dirty_io test; the consume keeps the kick for pages its writeback could not reach; wb_workfn requeues for a pending kick only with dirty I/O; the first dirty inode wakes a pending kick",
            provenance: Provenance::OurFix,
            role: Role::Fix,
            knobs: KickProtocol::HOLD,
            expected: [PASS, PASS, PASS, PASS],
        },
        V7FixKickPostedHold {
            name: "v7-fix-kick-posted-hold",
            summary: "our fix on the posted kick (!test_bit && !test_and_set_bit), as v7-fix-kick-hold",
            provenance: Provenance::OurFix,
            role: Role::Fix,
            knobs: KickProtocol::POSTED_HOLD,
            expected: [PASS, PASS, PASS, PASS],
        },
        V7FixKickHoldGuard {
            name: "v7-fix-kick-hold-guard",
            summary: "mutant: v7-fix-kick-hold keeping the kick's wb_has_dirty_io test",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { guard: KickGuard::HasDirtyIo, ..KickProtocol::HOLD },
            expected: [EX, EX, EX, PASS],
        },
        V7FixKickHoldShort {
            name: "v7-fix-kick-hold-short",
            summary: "mutant: v7-fix-kick-hold whose consume clears the kick when its writeback falls short",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { short: ShortConsume::Clear, ..KickProtocol::HOLD },
            expected: [PASS.deep(&[EXPEDITION]), EX.shuttle_scale(10), PASS, PASS],
        },
        V7FixKickHoldNoRequeue {
            name: "v7-fix-kick-hold-no-requeue",
            summary: "mutant: v7-fix-kick-hold whose wb_workfn never requeues for a pending kick",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { requeue: Requeue::WorkList, ..KickProtocol::HOLD },
            expected: [EX, EX, EX, PASS],
        },
        V7FixKickHoldIdleRequeue {
            name: "v7-fix-kick-hold-idle-requeue",
            summary: "mutant: v7-fix-kick-hold whose wb_workfn requeues while the kick is pending, dirty I/O or not",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { requeue: Requeue::WorkListOrKick, ..KickProtocol::HOLD },
            expected: [SPIN, SPIN, SPIN, SPIN],
        },
        V7FixKickHoldDelayed {
            name: "v7-fix-kick-hold-delayed",
            summary: "mutant: v7-fix-kick-hold whose first dirty inode only arms the timer",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: KickProtocol { first_dirty: FirstDirty::Delayed, ..KickProtocol::HOLD },
            expected: [EX, EX, EX, EX],
        },
    }
}
