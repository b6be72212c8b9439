//! The bounded slot table of foreign-writeback records (scenario `bdev-slots`): "[PATCH v6 0/3]
//! memcg,writeback: flush foreign bdev mappings separately". The table's code matches the
//! revision itself (`memcg::ForeignTable`).

use super::{Expect, Provenance, Role, PASS};
use crate::property::{ALL_TRACKED, NO_INFLIGHT_OVERWRITE, OLDEST_REPLACED, RECORD_INTEGRITY};

const RACES: Expect = Expect::fails(&[NO_INFLIGHT_OVERWRITE, ALL_TRACKED, OLDEST_REPLACED, RECORD_INTEGRITY]);

crate::catalogue! {
    /// Which code a table runs.
    pub enum SlotRevision for "bdev-slots", knobs () {
        /// The baseline's scan, replace-oldest-idle, lazy refresh, on the bdev table.
        V6 {
            name: "v6",
            summary: "v6 (reconstruction): lockless scan, replace the strictly oldest idle slot, lazy refresh",
            provenance: Provenance::Reconstruction("flush foreign bdev mappings separately (cover letter)"),
            role: Role::Bug,
            knobs: (),
            expected: [RACES, RACES, RACES, PASS],
        },
        /// The scan never moves its victim off slot 0, so every new record overwrites slot 0
        /// (the oracle sees it: its victim is slot 0 even while slot 0's flush is in flight).
        V5Slot0 {
            name: "v5-slot0",
            summary: "v5 (v6 changelog, reconstruction): every new record overwrites slot 0",
            provenance: Provenance::Reconstruction("Fix repeated overwriting of slot 0"),
            role: Role::Bug,
            knobs: (),
            expected: [RACES, RACES, RACES, Expect::fails(&[NO_INFLIGHT_OVERWRITE, ALL_TRACKED])],
        },
        /// Replacement ignores whether the slot has a flush in flight.
        NoInflightGuard {
            name: "no-inflight-guard",
            summary: "mutant: replacement ignores flushes in flight",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: (),
            expected: [RACES, RACES, RACES, Expect::fails(&[NO_INFLIGHT_OVERWRITE])],
        },
        /// A table lock around every write (a record that changes the table, a flush decision, a
        /// completion), and a sequence count so that the common record, a match that needs no
        /// write, is checked without the lock (a seqlock read).
        Packed {
            name: "packed",
            summary: "ours: one table lock around each record and each flush decision",
            provenance: Provenance::OurFix,
            role: Role::Fix,
            knobs: (),
            expected: [PASS, PASS, PASS, PASS],
        },
    }
}
