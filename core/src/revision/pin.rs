//! The kick's wb pinning across a cgroup wb switch (scenario `wb-pin`). Each revision keeps v7's
//! kick and consume (the fold) and changes one thing: the pinning, or what the switch does about
//! the kick.

use super::{Accounting, Expect, Knobs, Provenance, Role, PASS};
use crate::property::{EXPEDITION, IRQ_ENABLED_UNDER_LOCK, USE_AFTER_FREE};

/// Where `filemap_dontcache_kick_writeback` wakes the flusher relative to the
/// `unlocked_inode_to_wb_begin/end` section, and whether it pins the wb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickPin {
    /// v7: `wb_get()` inside the section, `wb_wakeup()` and `wb_put()` after it.
    GetWakePut,
    /// v6: `wb_wakeup()` after the section with no reference.
    Unpinned,
    /// v5: `wb_wakeup()` inside the section.
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

const V7: Knobs = Knobs::V7;
const EX: Expect = Expect::fails(&[EXPEDITION]);
const UAF_EX: Expect = Expect::fails(&[USE_AFTER_FREE, EXPEDITION]);
const IRQ_EX: Expect = Expect::fails(&[IRQ_ENABLED_UNDER_LOCK, EXPEDITION]);
// Uniformly random schedules keep the writer off the CPU for the whole switch and release (about
// 40 steps) too rarely to see a use after free: none in 300,000 executions, nor with any of seeds
// 1 to 20 (see the header). The bug is there, so the row expects it but may miss it; loom and
// shuttle-pct find it with every seed.
const UAF_EX_MAY_MISS_UAF: Expect = UAF_EX.may_miss(&[USE_AFTER_FREE]);

crate::catalogue! {
    /// The revisions of the kick's pinning.
    pub enum PinRevision for "wb-pin", knobs Knobs {
        V7 {
            name: "v7",
            summary: "v7 as applied: wb_get in the section, wb_wakeup and wb_put after it",
            provenance: Provenance::Applied,
            role: Role::Bug,
            knobs: V7,
            expected: [EX, EX, EX, EX],
        },
        V7FixSwitchKick {
            name: "v7-fix-switch-kick",
            summary: "v7 + fix: inode_do_switch_wbs sets WB_start_dontcache on the new wb when DONTCACHE pages move",
            provenance: Provenance::OurFix,
            role: Role::Fix,
            knobs: Knobs {
                accounting: Accounting { switch_kick: SwitchKick::SetStartDontcache, ..Accounting::V7 },
                ..V7
            },
            expected: [PASS, PASS, PASS, PASS],
        },
        V6Unpinned {
            name: "v6-unpinned",
            summary: "reconstruction (v7 changelog): wb_wakeup after the section without a reference",
            provenance: Provenance::Reconstruction("Take reference to wb around unlocked_inode_to_wb_end() to avoid UAF"),
            role: Role::Bug,
            knobs: Knobs { pin: KickPin::Unpinned, ..V7 },
            expected: [UAF_EX, UAF_EX, UAF_EX_MAY_MISS_UAF, EX],
        },
        V5WakeupInSection {
            name: "v5-wakeup-in-section",
            summary: "reconstruction (v6 changelog): wb_wakeup inside the section",
            provenance: Provenance::Reconstruction("Move wb_wakeup() outside the unlocked_inode_to_wb_begin/end section"),
            role: Role::Bug,
            knobs: Knobs { pin: KickPin::WakeInSection, ..V7 },
            expected: [IRQ_EX, IRQ_EX, IRQ_EX, IRQ_EX],
        },
        PutBeforeWakeup {
            name: "put-before-wakeup",
            summary: "mutant: wb_put before wb_wakeup",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: Knobs { pin: KickPin::PutBeforeWakeup, ..V7 },
            expected: [UAF_EX, UAF_EX, UAF_EX_MAY_MISS_UAF, EX],
        },
    }
}
