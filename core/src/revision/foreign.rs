//! How foreign dirtying of a bdev inode is handled (scenario `foreign-policy`): "[PATCH v3]
//! writeback, memcg: skip foreign dirty tracking for bdev inodes" against "[PATCH v6 0/3]
//! memcg,writeback: flush foreign bdev mappings separately". `memcg::MemcgForeign` matches the
//! policy itself.

use super::{Expect, Provenance, Role, PASS};
use crate::property::{FLUSH_SCOPE, PRESSURE_RELIEF};

const SCOPE: Expect = Expect::fails(&[FLUSH_SCOPE]);
const RELIEF: Expect = Expect::fails(&[PRESSURE_RELIEF]);

crate::catalogue! {
    /// The three answers, on the same properties.
    pub enum ForeignPolicy for "foreign-policy", knobs () {
        /// bdev inodes are tracked like any inode; a flush writes the whole owner wb
        /// (`cgroup_writeback_by_id`).
        Baseline {
            name: "baseline",
            summary: "baseline: bdev inodes tracked like any inode, flushes write the whole owner wb",
            provenance: Provenance::Kernel,
            role: Role::Bug,
            knobs: (),
            expected: [SCOPE, SCOPE, SCOPE, SCOPE],
        },
        /// `mem_cgroup_track_foreign_dirty_slowpath` returns early for bdev inodes.
        SkipBdev {
            name: "skip-bdev",
            summary: "skip foreign dirty tracking for bdev inodes (PATCH v3)",
            provenance: Provenance::Posted,
            role: Role::Bug,
            knobs: (),
            expected: [RELIEF, RELIEF, RELIEF, RELIEF],
        },
        /// bdev targets go to the memcg's bdev table and are flushed by `bdev_flush_by_dev` on
        /// the dedicated workqueue; other inodes as in the baseline.
        SeparateBdev {
            name: "separate-bdev",
            summary: "flush foreign bdev mappings separately (PATCH v6): bdev targets tracked and flushed by bdev_flush_by_dev",
            provenance: Provenance::Posted,
            role: Role::Fix,
            knobs: (),
            expected: [PASS, PASS, PASS, PASS],
        },
    }
}
