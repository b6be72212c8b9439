//! The per-block charge of "[PATCH 0/2] mm, iomap: account dirty at page granularity for
//! per-block dirty folios" against the PTL-only dirtier and the cgroup wb switch (scenario
//! `per-block-charge`).

use super::{Expect, Provenance, Role, PASS};
use crate::iomap::{DirtyCharge, SwitchMoves};
use crate::property::{CHARGE_DISCHARGE_MATCH, COUNTER_EXACT, WB_RECLAIMABLE_EXACT};

/// What a per-block-charge revision selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockKnobs {
    pub charge: DirtyCharge,
    /// `folio_mkclean`'s `PVMW_SYNC`.
    pub mkclean_sync: bool,
    /// What `inode_do_switch_wbs` moves of WB_RECLAIMABLE.
    pub switch_moves: SwitchMoves,
    /// Our fix: a dirtier sets the block bits, PG_dirty and its charge in one wb section.
    pub charge_in_section: bool,
    /// Our fix of seed 002 + seed 003 together: iomap's per-page charge adds WB_DONTCACHE_DIRTY.
    pub iomap_charges_dontcache: bool,
}

impl BlockKnobs {
    /// The series as reconstructed from the cover letter.
    pub const SERIES: BlockKnobs = BlockKnobs {
        charge: DirtyCharge::PerPage,
        mkclean_sync: true,
        switch_moves: SwitchMoves::NrPages,
        charge_in_section: false,
        iomap_charges_dontcache: false,
    };
    /// Our complete fix of the series.
    pub const FIX: BlockKnobs = BlockKnobs {
        switch_moves: SwitchMoves::AccountedDirty,
        charge_in_section: true,
        iomap_charges_dontcache: true,
        ..BlockKnobs::SERIES
    };
}

const F_WB: Expect = Expect::fails(&[WB_RECLAIMABLE_EXACT, COUNTER_EXACT]);
const F_DONTCACHE: Expect = Expect::fails(&[COUNTER_EXACT]);
const F_ALL: Expect = Expect::fails(&[CHARGE_DISCHARGE_MATCH, WB_RECLAIMABLE_EXACT, COUNTER_EXACT]);

crate::catalogue! {
    /// The revisions of the dirty charge and discharge.
    pub enum BlockRevision for "per-block-charge", knobs BlockKnobs {
        Baseline {
            name: "baseline",
            summary: "6.12: whole-folio charge on the clean-to-dirty transition, folio_nr_pages discharge and switch move",
            provenance: Provenance::Kernel,
            role: Role::Control,
            knobs: BlockKnobs { charge: DirtyCharge::PerFolio, ..BlockKnobs::SERIES },
            expected: [PASS, PASS, PASS, PASS],
        },
        /// The switch still moves `folio_nr_pages()`: a partially dirty folio switched moves
        /// pages its old wb was never charged. With seed 002 v7 on the same kernel, the
        /// `accounted` path skips v7's WB_DONTCACHE_DIRTY increment in `folio_account_dirtied`
        /// while the discharge (sharing `nr`) still decrements.
        Series {
            name: "series",
            summary: "the series, reconstructed from the cover letter: per-page charge, accounted_dirty_pages() discharge, switch unchanged",
            provenance: Provenance::Reconstruction("account dirty at page granularity for per-block dirty folios"),
            role: Role::Bug,
            knobs: BlockKnobs::SERIES,
            expected: [F_WB, F_WB, F_WB, F_WB],
        },
        /// The switch moves `accounted_dirty_pages()`, but a dirtier's bits, charge and PG_dirty
        /// are three steps a switch can fall between.
        SeriesSwitchAccounted {
            name: "series-switch-accounted",
            summary: "our partial fix: the switch moves accounted_dirty_pages() of the folios it moves",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: BlockKnobs { switch_moves: SwitchMoves::AccountedMarked, ..BlockKnobs::SERIES },
            expected: [F_WB, F_WB, F_WB, F_DONTCACHE],
        },
        SeriesFixChargeInSection {
            name: "series-fix-charge-in-section",
            summary: "our fix: bits, PG_dirty and charge (WB_DONTCACHE_DIRTY too) in one wb section; the switch moves accounted_dirty_pages() of every PG_dirty folio",
            provenance: Provenance::OurFix,
            role: Role::Fix,
            knobs: BlockKnobs::FIX,
            expected: [PASS, PASS, PASS, PASS],
        },
        /// `folio_mkclean`'s walk skips the PTL for a PTE read as none (the race the kernel's
        /// commit 479db0bf408e fixed): the node ledger still matches (the zap's dirtying charges
        /// nothing new), but the zap's PG_dirty lands after the flusher's clean, on bits the
        /// flusher has not cleared yet, and a switch moves those stale bits (see the header).
        SeriesFixMkcleanNosync {
            name: "series-fix-mkclean-nosync",
            summary: "mutant: the fixed series with folio_mkclean's walk skipping the PTL for a PTE read as none (the race 479db0bf408e fixed)",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: BlockKnobs { mkclean_sync: false, ..BlockKnobs::FIX },
            expected: [F_WB, F_WB, F_WB, PASS],
        },
        SeriesFixDischargeNrPages {
            name: "series-fix-discharge-nr-pages",
            summary: "mutant: the fixed series with the discharge left at folio_nr_pages",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: BlockKnobs { charge: DirtyCharge::PerPageDischargeNrPages, ..BlockKnobs::FIX },
            expected: [F_ALL, F_ALL, F_ALL, F_ALL],
        },
    }
}
