//! The folio-size policies of `folio-dirty-accounting`: the kernel as is, the series of "[PATCH
//! 0/2] mm, iomap: account dirty at page granularity for per-block dirty folios", and the three
//! `fadvise` alternatives Dave Chinner proposes in his review of it. `fadvise` matches the
//! policy itself.

use super::{Expect, Provenance, Role, PASS};
use crate::property::CHARGE_EQUALS_WRITTEN;

const F: Expect = Expect::fails(&[CHARGE_EQUALS_WRITTEN]);

crate::catalogue! {
    /// The folio-size policies.
    pub enum FolioPolicy for "folio-dirty-accounting", knobs () {
        PerFolio {
            name: "per-folio",
            summary: "6.12/v7.3 baseline: whole-folio charge, readahead ramps to the largest folio order",
            provenance: Provenance::Kernel,
            role: Role::Bug,
            knobs: (),
            expected: [F, F, F, F],
        },
        PerPage {
            name: "per-page",
            summary: "the series (reconstructed from the cover letter): charge per dirty page",
            provenance: Provenance::Reconstruction("account dirty at page granularity for per-block dirty folios"),
            role: Role::Fix,
            knobs: (),
            expected: [PASS, PASS, PASS, PASS],
        },
        FadvRandom {
            name: "fadv-random",
            summary: "POSIX_FADV_RANDOM (Chinner, taken as input): folios of the read() size, no readahead",
            provenance: Provenance::Review,
            role: Role::Fix,
            knobs: (),
            expected: [PASS, PASS, PASS, PASS],
        },
        FadvRandomWrite64k {
            name: "fadv-random-write-64k",
            summary: "proposed FADV_RANDOM_WRITE (Chinner, taken as input): readahead, folios capped at 64 KiB",
            provenance: Provenance::Review,
            role: Role::Bug,
            knobs: (),
            expected: [F, F, F, F],
        },
        FadvDontneed {
            name: "fadv-dontneed",
            summary: "POSIX_FADV_DONTNEED between the phases (Chinner, taken as input): writes make their own folios",
            provenance: Provenance::Review,
            role: Role::Bug,
            knobs: (),
            expected: [F, F, F, F],
        },
    }
}
