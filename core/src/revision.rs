//! Patch revisions as selectable variants: broken and fixed code side by side.
//!
//! Revision names follow the patch history of the seeds. Where a seed gives only a changelog
//! line, the buggy revision is a reconstruction that isolates that one defect; its doc says so.
//! A mutant is a deliberate single change that is not a posted revision (used to show what a
//! property depends on).

/// How `filemap_dontcache_kick_writeback` sets WB_start_dontcache (seed 002 patch 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kick {
    /// `wb_has_dirty_io(wb) && !test_and_set_bit(WB_start_dontcache)`: Brauner's rewrite,
    /// folded in when v7 was applied.
    Fold,
    /// `wb_has_dirty_io(wb) && !test_bit(..) && !test_and_set_bit(..)`: as posted in v5..v7.
    Posted,
}

/// How `wb_check_start_dontcache` consumes the kick (seed 002 patch 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consume {
    /// v6/v7: `test_and_clear_bit(WB_start_dontcache)`, then `wb_stat_sum(WB_DONTCACHE_DIRTY)`.
    ClearThenSum,
    /// `test_bit`, `wb_stat_sum`, write back, then `clear_bit`: the shape of
    /// `wb_check_start_all`, which v6 replaced ("Use test_and_clear_bit for WB_start_dontcache
    /// before starting writeback to prevent lost wakeups").
    LateClear,
    /// `test_and_clear_bit`, then `wb_stat()` (the global count only), which v6 replaced ("Use
    /// wb_stat_sum() instead of wb_stat() ... so small writes below the percpu batch threshold
    /// are visible to the flusher").
    ClearThenApproxRead,
}

/// What the kick tests before it touches WB_start_dontcache (seed 002 patch 3).
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
    /// Our fix `v7-fix-rescuer-requeue`: also `wb_wakeup` while WB_start_dontcache is set, so
    /// a run on the rescuer (which does not consume the bit) queues the run that will.
    WorkListOrKick,
}

/// Every knob of the DONTCACHE kick/consume protocol a revision selects, in one value: the
/// writer side (`filemap_dirty_folio`'s barrier, the kick), the flusher side (the consume, the
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
}

/// Where `filemap_dontcache_kick_writeback` wakes the flusher relative to the
/// `unlocked_inode_to_wb_begin/end` section, and whether it pins the wb (seed 002 patch 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickPin {
    /// v7: `wb_get()` inside the section, `wb_wakeup()` and `wb_put()` after it.
    GetWakePut,
    /// v6 (v7 changelog: "Take reference to wb around unlocked_inode_to_wb_end() to avoid UAF"):
    /// `wb_wakeup()` after the section with no reference.
    Unpinned,
    /// v5 (v6 changelog: "Move wb_wakeup() outside the unlocked_inode_to_wb_begin/end section"):
    /// `wb_wakeup()` inside the section.
    WakeInSection,
    /// Mutant: `wb_get()` inside the section, then `wb_put()` before `wb_wakeup()`.
    PutBeforeWakeup,
}

/// What `inode_do_switch_wbs` does about WB_start_dontcache when it moves WB_DONTCACHE_DIRTY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchKick {
    /// v7: nothing (it moves the stat and wakes the new wb).
    None,
    /// Our fix `v7-fix-switch-kick`: set the bit on the new wb when DONTCACHE pages moved.
    SetStartDontcache,
}

/// The revisions of the DONTCACHE kick/consume protocol (scenario `dontcache-kick`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KickRevision {
    /// v7 as applied (seed 002: Brauner "I'll just fold it"; Kara's Reviewed-by "with
    /// Christian's simplification"): fold kick, test-and-clear then sum.
    V7,
    /// v7 as posted (seed 002 patch 3 diff): `!test_bit && !test_and_set_bit`.
    V7Posted,
    /// Mutant: the posted kick with the `smp_mb()` at the top of `__mark_inode_dirty` removed
    /// from the writer's path; shows that the posted early-out relied on that barrier.
    V7PostedNoMb,
    /// Mutant: the folded kick without that barrier; shows that the fold does not rely on it.
    V7NoMb,
    /// Reconstruction of the v5 consume that v6 fixed with test_and_clear_bit (v6 changelog);
    /// the single defect isolated, in the shape of `wb_check_start_all`. v5 as posted also read
    /// `wb_stat()` and woke inside the section (scenario wb-pin).
    V5LateClear,
    /// Reconstruction of the v5 consume that v6 fixed with wb_stat_sum (v6 changelog); the single
    /// defect isolated.
    V5ApproxRead,
    /// Our fix: v7 without the kick's `wb_has_dirty_io` test ([`KickGuard::None`]).
    V7FixKick,
    /// Our fix on the posted kick: `!test_bit && !test_and_set_bit`, no `wb_has_dirty_io` test.
    V7FixKickPosted,
    /// Mutant: [`KickRevision::V7FixKickPosted`] without `__mark_inode_dirty`'s `smp_mb()`.
    V7FixKickPostedNoMb,
    /// Mutant: [`KickRevision::V7FixKick`] without that barrier.
    V7FixKickNoMb,
}

impl KickRevision {
    pub const ALL: [KickRevision; 10] = [
        KickRevision::V7,
        KickRevision::V7Posted,
        KickRevision::V7PostedNoMb,
        KickRevision::V7NoMb,
        KickRevision::V5LateClear,
        KickRevision::V5ApproxRead,
        KickRevision::V7FixKick,
        KickRevision::V7FixKickPosted,
        KickRevision::V7FixKickPostedNoMb,
        KickRevision::V7FixKickNoMb,
    ];

    pub fn name(self) -> &'static str {
        match self {
            KickRevision::V7 => "v7",
            KickRevision::V7Posted => "v7-posted",
            KickRevision::V7PostedNoMb => "v7-posted-no-mb",
            KickRevision::V7NoMb => "v7-no-mb",
            KickRevision::V5LateClear => "v5-late-clear",
            KickRevision::V5ApproxRead => "v5-approx-read",
            KickRevision::V7FixKick => "v7-fix-kick",
            KickRevision::V7FixKickPosted => "v7-fix-kick-posted",
            KickRevision::V7FixKickPostedNoMb => "v7-fix-kick-posted-no-mb",
            KickRevision::V7FixKickNoMb => "v7-fix-kick-no-mb",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The knobs this revision selects.
    pub fn protocol(self) -> KickProtocol {
        let v7 = KickProtocol::V7;
        let fix = KickProtocol { guard: KickGuard::None, ..v7 };
        match self {
            KickRevision::V7 => v7,
            KickRevision::V7Posted => KickProtocol { kick: Kick::Posted, ..v7 },
            KickRevision::V7PostedNoMb => KickProtocol { kick: Kick::Posted, writer_smp_mb: false, ..v7 },
            KickRevision::V7NoMb => KickProtocol { writer_smp_mb: false, ..v7 },
            KickRevision::V5LateClear => KickProtocol { kick: Kick::Posted, consume: Consume::LateClear, ..v7 },
            KickRevision::V5ApproxRead => {
                KickProtocol { kick: Kick::Posted, consume: Consume::ClearThenApproxRead, ..v7 }
            }
            KickRevision::V7FixKick => fix,
            KickRevision::V7FixKickPosted => KickProtocol { kick: Kick::Posted, ..fix },
            KickRevision::V7FixKickPostedNoMb => KickProtocol { kick: Kick::Posted, writer_smp_mb: false, ..fix },
            KickRevision::V7FixKickNoMb => KickProtocol { writer_smp_mb: false, ..fix },
        }
    }

    /// One line for `wbcheck list` / `explain`: what the revision is and where it comes from.
    pub fn summary(self) -> &'static str {
        match self {
            KickRevision::V7 => {
                "v7 as applied: Brauner's fold (wb_has_dirty_io && !test_and_set_bit); test_and_clear_bit then wb_stat_sum"
            }
            KickRevision::V7Posted => {
                "v7 as posted: wb_has_dirty_io && !test_bit && !test_and_set_bit; test_and_clear_bit then wb_stat_sum"
            }
            KickRevision::V7PostedNoMb => {
                "mutant: v7 as posted without __mark_inode_dirty's smp_mb() on the writer's path"
            }
            KickRevision::V7NoMb => "mutant: v7 as applied without __mark_inode_dirty's smp_mb() on the writer's path",
            KickRevision::V5LateClear => {
                "reconstruction (v6 changelog): consume tests the bit, sums, writes back, then clear_bit"
            }
            KickRevision::V5ApproxRead => "reconstruction (v6 changelog): consume reads wb_stat() (global count only)",
            KickRevision::V7FixKick => "our fix: v7's kick without the wb_has_dirty_io test",
            KickRevision::V7FixKickPosted => "our fix on the posted kick: !test_bit && !test_and_set_bit, no wb_has_dirty_io test",
            KickRevision::V7FixKickPostedNoMb => {
                "mutant: v7-fix-kick-posted without __mark_inode_dirty's smp_mb() on the writer's path"
            }
            KickRevision::V7FixKickNoMb => "mutant: v7-fix-kick without __mark_inode_dirty's smp_mb() on the writer's path",
        }
    }
}

/// The revisions of `wb_workfn`'s handling of a pending kick when the flusher runs on the
/// workqueue's rescuer (scenario `kick-rescuer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RescuerRevision {
    /// 6.12's `wb_workfn` with v7's kick and consume.
    V7,
    /// Our fix: `wb_workfn` re-queues itself while WB_start_dontcache is set.
    V7FixRescuerRequeue,
}

impl RescuerRevision {
    pub const ALL: [RescuerRevision; 2] = [RescuerRevision::V7, RescuerRevision::V7FixRescuerRequeue];

    pub fn name(self) -> &'static str {
        match self {
            RescuerRevision::V7 => "v7",
            RescuerRevision::V7FixRescuerRequeue => "v7-fix-rescuer-requeue",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    pub fn protocol(self) -> KickProtocol {
        match self {
            RescuerRevision::V7 => KickProtocol::V7,
            RescuerRevision::V7FixRescuerRequeue => {
                KickProtocol { requeue: RescuerRequeue::WorkListOrKick, ..KickProtocol::V7 }
            }
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            RescuerRevision::V7 => "6.12 wb_workfn with v7's kick: the rescuer path writes back without consuming the kick",
            RescuerRevision::V7FixRescuerRequeue => {
                "our fix: wb_workfn ends with wb_wakeup while WB_start_dontcache is set"
            }
        }
    }
}

/// The revisions of the kick's wb pinning across a cgroup wb switch (scenario `wb-pin`). Each
/// keeps v7's kick and consume (the fold) and changes one thing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PinRevision {
    /// v7 as applied: pinned wakeup after the section; the switch does not set the kick bit.
    V7,
    /// v7 plus our fix for the kick lost across a switch: `inode_do_switch_wbs` sets
    /// WB_start_dontcache on the new wb when it moves DONTCACHE pages.
    V7FixSwitchKick,
    /// Reconstruction of v6 (v7 changelog): wakeup after the section without a reference.
    V6Unpinned,
    /// Reconstruction of v5 (v6 changelog): wakeup inside the section.
    V5WakeupInSection,
    /// Mutant: the v7 pin with `wb_put()` before `wb_wakeup()`.
    PutBeforeWakeup,
}

impl PinRevision {
    pub const ALL: [PinRevision; 5] = [
        PinRevision::V7,
        PinRevision::V7FixSwitchKick,
        PinRevision::V6Unpinned,
        PinRevision::V5WakeupInSection,
        PinRevision::PutBeforeWakeup,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PinRevision::V7 => "v7",
            PinRevision::V7FixSwitchKick => "v7-fix-switch-kick",
            PinRevision::V6Unpinned => "v6-unpinned",
            PinRevision::V5WakeupInSection => "v5-wakeup-in-section",
            PinRevision::PutBeforeWakeup => "put-before-wakeup",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    pub fn pin(self) -> KickPin {
        match self {
            PinRevision::V7 | PinRevision::V7FixSwitchKick => KickPin::GetWakePut,
            PinRevision::V6Unpinned => KickPin::Unpinned,
            PinRevision::V5WakeupInSection => KickPin::WakeInSection,
            PinRevision::PutBeforeWakeup => KickPin::PutBeforeWakeup,
        }
    }

    /// The accounting paths: v7's, with the switch's kick per the revision.
    pub fn accounting(self) -> Accounting {
        let switch_kick = match self {
            PinRevision::V7FixSwitchKick => SwitchKick::SetStartDontcache,
            _ => SwitchKick::None,
        };
        Accounting { switch_kick, ..Accounting::V7 }
    }

    pub fn summary(self) -> &'static str {
        match self {
            PinRevision::V7 => "v7 as applied: wb_get in the section, wb_wakeup and wb_put after it",
            PinRevision::V7FixSwitchKick => {
                "v7 + fix: inode_do_switch_wbs sets WB_start_dontcache on the new wb when DONTCACHE pages move"
            }
            PinRevision::V6Unpinned => "reconstruction (v7 changelog): wb_wakeup after the section without a reference",
            PinRevision::V5WakeupInSection => "reconstruction (v6 changelog): wb_wakeup inside the section",
            PinRevision::PutBeforeWakeup => "mutant: wb_put before wb_wakeup",
        }
    }
}

/// How the non-DONTCACHE lookup in `__filemap_get_folio_mpol` clears PG_dropbehind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupClear {
    /// v6/v7: `folio_test_clear_dropbehind()`, one fully ordered RMW.
    TestAndClear,
    /// v5: `folio_test_dropbehind()` then `folio_clear_dropbehind()` (two steps).
    TestThenClear,
}

/// The arithmetic of the lookup's `-nr` (v7 changelog: "Fix integer promotion bug on 32-bit:
/// store folio_nr_pages() in signed long before negating").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Negate {
    /// v7: `long nr = folio_nr_pages(folio); ... -nr`.
    Signed,
    /// v6 reconstruction: the unsigned page count negated in 32-bit arithmetic, then widened to
    /// the s64 `wb_stat_mod` takes: `-nr` becomes `2^32 - nr`.
    Unsigned32,
    /// The same code with 64-bit unsigned arithmetic: `2^64 - nr` reinterpreted as s64 is `-nr`.
    Unsigned64,
}

impl Negate {
    /// The amount `wb_stat_mod` receives for "minus `nr` pages".
    pub fn minus(self, nr: i64) -> i64 {
        match self {
            Negate::Signed => -nr,
            Negate::Unsigned32 => i64::from((nr as u32).wrapping_neg()),
            Negate::Unsigned64 => (nr as u64).wrapping_neg() as i64,
        }
    }
}

/// The knobs of the WB_DONTCACHE_DIRTY accounting code paths (seed 002 patches 1 and 2) that
/// revisions change. [`Accounting::V7`] is v7 as posted and applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accounting {
    pub lookup_clear: LookupClear,
    /// The lookup's `mapping_can_writeback()` guard (v6).
    pub lookup_guard: bool,
    pub lookup_negate: Negate,
    /// `inode_do_switch_wbs` moves WB_DONTCACHE_DIRTY (v7).
    pub switch_transfer: bool,
    /// `__split_folio_to_order` copies PG_dropbehind to every new folio (v7 patch 1).
    pub split_copies_dropbehind: bool,
    /// What the switch does about the kick bit (scenario wb-pin).
    pub switch_kick: SwitchKick,
    /// Our fix (part 1): every change of PG_dirty or PG_dropbehind decides its
    /// WB_DONTCACHE_DIRTY update from the old flags word its own RMW returns (a dirtier counts
    /// the dropbehind bit it found when it set PG_dirty; a cleaner the one it found when it
    /// cleared it; a lookup, the end-of-writeback drop and removal from the page cache the dirty
    /// bit they found when they cleared PG_dropbehind), instead of re-reading the other flag later.
    pub flag_snapshot: bool,
    /// Our complete fix: a per-folio "counted" bit (PG_DONTCACHE_COUNTED) that the dirtier sets
    /// under the i_pages lock only while PG_dirty and PG_dropbehind are both still set, and that
    /// every clear of PG_dirty or PG_dropbehind clears in the same RMW, counting out exactly the
    /// pages it had counted in; migration moves it with PG_dirty under the i_pages lock; the
    /// switch moves the folios with the bit set. Implies part 2.
    pub counted_bit: bool,
    /// Our fix (part 2): the lookup clears PG_dropbehind inside its
    /// `unlocked_inode_to_wb_begin/end` section, so a switch's transfer sees the flag change and
    /// the stat update together (kernel-reference §5.7).
    pub lookup_clear_in_section: bool,
}

impl Accounting {
    pub const V7: Accounting = Accounting {
        lookup_clear: LookupClear::TestAndClear,
        lookup_guard: true,
        lookup_negate: Negate::Signed,
        switch_transfer: true,
        split_copies_dropbehind: true,
        switch_kick: SwitchKick::None,
        flag_snapshot: false,
        counted_bit: false,
        lookup_clear_in_section: false,
    };
}

/// The revisions of the WB_DONTCACHE_DIRTY accounting (scenario `dontcache-accounting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccountingRevision {
    /// v7 as applied (patches 1 and 2).
    V7,
    /// v5 (v6 changelog: "Use atomic folio_test_clear_dropbehind() in __filemap_get_folio_mpol()
    /// to prevent double-decrement of WB_DONTCACHE_DIRTY by concurrent readers").
    V5DoubleDec,
    /// v5 (v6 changelog: "Add mapping_can_writeback() guard before decrementing
    /// WB_DONTCACHE_DIRTY in __filemap_get_folio_mpol() to match the increment path").
    V5NoGuard,
    /// v6 (v7 changelog: "Transfer WB_DONTCACHE_DIRTY in inode_do_switch_wbs() alongside
    /// WB_RECLAIMABLE so the stat migrates with the inode on cgroup wb switch").
    V6NoSwitchTransfer,
    /// v6 (v7 changelog: "Preserve PG_dropbehind in __split_folio_to_order() so tail folios
    /// retain the flag and are properly accounted when cleaned"; patch 1).
    V6SplitDropsFlag,
    /// v6 (v7 changelog: "Fix integer promotion bug on 32-bit"), 32-bit arithmetic;
    /// reconstruction: the lookup's negation of an unsigned page count.
    V6U32Negate32,
    /// The same code in 64-bit arithmetic, where the negation happens to be right.
    V6U32Negate64,
    /// v7 with part 1 of our fix (flag snapshots): a partial fix, the switch race remains.
    V7PartialFlagSnapshot,
    /// v7 with both parts of the flag-snapshot fix: still partial (a dirtier's deferred charge
    /// and a cleaner's discharge can land on different wbs across a switch).
    V7PartialSnapshotInSection,
    /// v7 with our complete fix: the counted bit.
    V7FixCountedBit,
}

impl AccountingRevision {
    pub const ALL: [AccountingRevision; 10] = [
        AccountingRevision::V7,
        AccountingRevision::V5DoubleDec,
        AccountingRevision::V5NoGuard,
        AccountingRevision::V6NoSwitchTransfer,
        AccountingRevision::V6SplitDropsFlag,
        AccountingRevision::V6U32Negate32,
        AccountingRevision::V6U32Negate64,
        AccountingRevision::V7PartialFlagSnapshot,
        AccountingRevision::V7PartialSnapshotInSection,
        AccountingRevision::V7FixCountedBit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AccountingRevision::V7 => "v7",
            AccountingRevision::V7PartialFlagSnapshot => "v7-partial-flag-snapshot",
            AccountingRevision::V7PartialSnapshotInSection => "v7-partial-snapshot-in-section",
            AccountingRevision::V7FixCountedBit => "v7-fix-counted-bit",
            AccountingRevision::V5DoubleDec => "v5-double-dec",
            AccountingRevision::V5NoGuard => "v5-no-guard",
            AccountingRevision::V6NoSwitchTransfer => "v6-no-switch-transfer",
            AccountingRevision::V6SplitDropsFlag => "v6-split-drops-flag",
            AccountingRevision::V6U32Negate32 => "v6-u32-negate-32bit",
            AccountingRevision::V6U32Negate64 => "v6-u32-negate-64bit",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    pub fn accounting(self) -> Accounting {
        let v7 = Accounting::V7;
        match self {
            AccountingRevision::V7 => v7,
            AccountingRevision::V5DoubleDec => Accounting { lookup_clear: LookupClear::TestThenClear, ..v7 },
            AccountingRevision::V5NoGuard => Accounting { lookup_guard: false, ..v7 },
            AccountingRevision::V6NoSwitchTransfer => Accounting { switch_transfer: false, ..v7 },
            AccountingRevision::V6SplitDropsFlag => Accounting { split_copies_dropbehind: false, ..v7 },
            AccountingRevision::V6U32Negate32 => Accounting { lookup_negate: Negate::Unsigned32, ..v7 },
            AccountingRevision::V6U32Negate64 => Accounting { lookup_negate: Negate::Unsigned64, ..v7 },
            AccountingRevision::V7PartialFlagSnapshot => Accounting { flag_snapshot: true, ..v7 },
            AccountingRevision::V7PartialSnapshotInSection => {
                Accounting { flag_snapshot: true, lookup_clear_in_section: true, ..v7 }
            }
            AccountingRevision::V7FixCountedBit => {
                Accounting { counted_bit: true, lookup_clear_in_section: true, ..v7 }
            }
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            AccountingRevision::V7 => {
                "v7 as applied: atomic lookup clear, writeback guard, switch transfer, split keeps dropbehind"
            }
            AccountingRevision::V5DoubleDec => "v5 (v6 changelog): lookup tests then clears PG_dropbehind in two steps",
            AccountingRevision::V5NoGuard => {
                "v5 (v6 changelog): lookup decrements without the mapping_can_writeback guard"
            }
            AccountingRevision::V6NoSwitchTransfer => {
                "v6 (v7 changelog): inode_do_switch_wbs does not move WB_DONTCACHE_DIRTY"
            }
            AccountingRevision::V6SplitDropsFlag => "v6 (v7 patch 1): folio split drops PG_dropbehind from tail folios",
            AccountingRevision::V6U32Negate32 => {
                "v6 reconstruction (v7 changelog): lookup negates an unsigned page count, 32-bit"
            }
            AccountingRevision::V6U32Negate64 => "the same negation in 64-bit arithmetic",
            AccountingRevision::V7PartialFlagSnapshot => {
                "our partial fix: each flag RMW's old word decides the counter update"
            }
            AccountingRevision::V7PartialSnapshotInSection => {
                "our partial fix: flag snapshots + the lookup clears PG_dropbehind inside its wb section"
            }
            AccountingRevision::V7FixCountedBit => {
                "our fix: a per-folio counted bit flipped by the same RMW as every flag change"
            }
        }
    }
}

/// The revisions of `percpu_counter` itself (scenario `percpu-counter`): the kernel's code and
/// two mutants that show what its properties rest on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PercpuRevision {
    /// lib/percpu_counter.c as in 6.12 (the cmpxchg variant).
    Kernel,
    /// Mutant: the slow path folds into `count` without taking `fbc->lock`.
    UnlockedFold,
    /// Mutant: `__percpu_counter_sum` returns the global count only.
    SumAsRead,
}

impl PercpuRevision {
    pub const ALL: [PercpuRevision; 3] =
        [PercpuRevision::Kernel, PercpuRevision::UnlockedFold, PercpuRevision::SumAsRead];

    pub fn name(self) -> &'static str {
        match self {
            PercpuRevision::Kernel => "kernel",
            PercpuRevision::UnlockedFold => "unlocked-fold",
            PercpuRevision::SumAsRead => "sum-as-read",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    pub fn summary(self) -> &'static str {
        match self {
            PercpuRevision::Kernel => "lib/percpu_counter.c (6.12, cmpxchg fast path, locked fold)",
            PercpuRevision::UnlockedFold => "mutant: the fold into the global count without fbc->lock",
            PercpuRevision::SumAsRead => "mutant: percpu_counter_sum returns only the global count",
        }
    }
}
