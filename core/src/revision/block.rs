//! The per-block charge of "[PATCH 0/2] mm, iomap: account dirty at page granularity for
//! per-block dirty folios" against the PTL-only dirtier (scenario `per-block-charge`).

use super::{Expect, Provenance, Role, PASS};
use crate::iomap::DirtyCharge;
use crate::property::CHARGE_DISCHARGE_MATCH;

/// What a per-block-charge revision selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockKnobs {
    pub charge: DirtyCharge,
    /// `folio_mkclean`'s `PVMW_SYNC`.
    pub mkclean_sync: bool,
}

const F: Expect = Expect::fails(&[CHARGE_DISCHARGE_MATCH]);

crate::catalogue! {
    /// The revisions of the dirty charge and discharge.
    pub enum BlockRevision for "per-block-charge", knobs BlockKnobs {
        Baseline {
            name: "baseline",
            summary: "6.12: whole-folio charge on the clean-to-dirty transition, folio_nr_pages discharge",
            provenance: Provenance::Kernel,
            role: Role::Control,
            knobs: BlockKnobs { charge: DirtyCharge::PerFolio, mkclean_sync: true },
            expected: [PASS, PASS, PASS, PASS],
        },
        Series {
            name: "series",
            summary: "the series, reconstructed from the cover letter: per-page charge, accounted_dirty_pages() discharge",
            provenance: Provenance::Reconstruction("account dirty at page granularity for per-block dirty folios"),
            role: Role::Fix,
            knobs: BlockKnobs { charge: DirtyCharge::PerPage, mkclean_sync: true },
            expected: [PASS, PASS, PASS, PASS],
        },
        /// `folio_mkclean`'s walk skips the PTL for a PTE read as none (the race the kernel's
        /// commit 479db0bf408e fixed): still a pass, because a dirty PTE implies every block is
        /// already dirty, so the zap's dirtying charges nothing new (see the header).
        SeriesMkcleanNosync {
            name: "series-mkclean-nosync",
            summary: "mutant: the series with folio_mkclean's walk skipping the PTL for a PTE read as none (the race 479db0bf408e fixed)",
            provenance: Provenance::Mutant,
            role: Role::Control,
            knobs: BlockKnobs { charge: DirtyCharge::PerPage, mkclean_sync: false },
            expected: [PASS, PASS, PASS, PASS],
        },
        SeriesDischargeNrPages {
            name: "series-discharge-nr-pages",
            summary: "mutant: the series' per-page charge with the discharge left at folio_nr_pages",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: BlockKnobs { charge: DirtyCharge::PerPageDischargeNrPages, mkclean_sync: true },
            expected: [F, F, F, F],
        },
    }
}
