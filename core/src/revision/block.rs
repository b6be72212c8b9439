//! The per-block charge of "[PATCH 0/2] mm, iomap: account dirty at page granularity for
//! per-block dirty folios" against the PTL-only dirtier and the cgroup wb switch (scenario
//! `per-block-charge`).

use super::{Expect, Provenance, Role, PASS};
use crate::iomap::{ChargeReading, DirtyCharge, SwitchMoves};
use crate::property::{CHARGE_DISCHARGE_MATCH, COUNTER_EXACT, DIRTIED_COMPLETE, WB_RECLAIMABLE_EXACT};

/// What a per-block-charge revision selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockKnobs {
    pub charge: DirtyCharge,
    /// What a per-page charge charges through (the per-folio charge is always
    /// `folio_account_dirtied()`); every per-page revision's summary names it.
    pub reading: ChargeReading,
    /// `folio_mkclean`'s `PVMW_SYNC`.
    pub mkclean_sync: bool,
    /// What `inode_do_switch_wbs` moves of WB_RECLAIMABLE.
    pub switch_moves: SwitchMoves,
    /// Our fix: a dirtier sets the block bits, PG_dirty and its charge in one wb section.
    pub charge_in_section: bool,
    /// Our fix of seed 002 + seed 003 together under reading (a): iomap's per-page charge adds
    /// WB_DONTCACHE_DIRTY.
    pub iomap_charges_dontcache: bool,
    /// Our fix of v7's lookup for a per-block folio: PG_dropbehind is cleared only under the
    /// folio lock (FGP_LOCK lookups; `filemap_fault` after it locks the folio), and the clear and
    /// the decrement of `accounted_dirty_pages()` share one wb section.
    pub lookup_locked: bool,
}

impl BlockKnobs {
    /// The series as reconstructed from the cover letter.
    pub const SERIES: BlockKnobs = BlockKnobs {
        charge: DirtyCharge::PerPage,
        reading: ChargeReading::OwnHelper,
        mkclean_sync: true,
        switch_moves: SwitchMoves::NrPages,
        charge_in_section: false,
        iomap_charges_dontcache: false,
        lookup_locked: false,
    };
    /// Our complete fix of the series.
    pub const FIX: BlockKnobs = BlockKnobs {
        switch_moves: SwitchMoves::AccountedDirty,
        charge_in_section: true,
        iomap_charges_dontcache: true,
        ..BlockKnobs::SERIES
    };

    /// The same revision under reading (b): iomap charges through `folio_account_dirtied()`, whose
    /// body carries v7's WB_DONTCACHE_DIRTY line, so our fix's extra increment is moot.
    pub const fn account_dirtied(self) -> BlockKnobs {
        BlockKnobs { reading: ChargeReading::AccountDirtied, iomap_charges_dontcache: false, ..self }
    }
}

const F_WB: Expect = Expect::fails(&[WB_RECLAIMABLE_EXACT, COUNTER_EXACT]);
const F_DONTCACHE: Expect = Expect::fails(&[COUNTER_EXACT]);
const F_ALL: Expect = Expect::fails(&[CHARGE_DISCHARGE_MATCH, WB_RECLAIMABLE_EXACT, COUNTER_EXACT]);
const F_WB_A: Expect = Expect::fails(&[WB_RECLAIMABLE_EXACT, COUNTER_EXACT, DIRTIED_COMPLETE]);
const F_DONTCACHE_A: Expect = Expect::fails(&[COUNTER_EXACT, DIRTIED_COMPLETE]);
const F_ALL_A: Expect = Expect::fails(&[CHARGE_DISCHARGE_MATCH, WB_RECLAIMABLE_EXACT, COUNTER_EXACT, DIRTIED_COMPLETE]);
const F_COMPLETE: Expect = Expect::fails(&[DIRTIED_COMPLETE]);

crate::catalogue! {
    /// The revisions of the dirty charge and discharge. Every per-page revision comes in both
    /// readings of how iomap charges ([`ChargeReading`]); its summary names the reading.
    pub enum BlockRevision for "per-block-charge", knobs BlockKnobs {
        /// v7's unlocked lookup (`filemap_fault`'s) races with a dirtier between its
        /// `folio_test_set_dirty` and `folio_account_dirtied`: dontcache-accounting's race (1),
        /// reached here by the lookup roles.
        Baseline {
            name: "baseline",
            summary: "6.12 + seed 002 v7: whole-folio charge on the clean-to-dirty transition, folio_nr_pages discharge, switch move and lookup decrement",
            provenance: Provenance::Kernel,
            role: Role::Bug,
            knobs: BlockKnobs { charge: DirtyCharge::PerFolio, ..BlockKnobs::SERIES },
            expected: [F_DONTCACHE, F_DONTCACHE, F_DONTCACHE, PASS],
        },
        BaselineLookupLocked {
            name: "baseline-lookup-locked",
            summary: "6.12 + seed 002 v7 with our lookup fix: PG_dropbehind cleared under the folio lock, with the decrement in the same wb section",
            provenance: Provenance::OurFix,
            role: Role::Control,
            knobs: BlockKnobs { charge: DirtyCharge::PerFolio, lookup_locked: true, ..BlockKnobs::SERIES },
            expected: [PASS, PASS, PASS, PASS],
        },
        /// The switch still moves `folio_nr_pages()`: a partially dirty folio switched moves
        /// pages its old wb was never charged. Under reading (a) v7's WB_DONTCACHE_DIRTY
        /// increment stays in the skipped `folio_account_dirtied` while the discharge (sharing
        /// `nr`) still decrements.
        Series {
            name: "series",
            summary: "reading (a): the series, reconstructed from the cover letter: per-page charge by iomap's own helper, accounted_dirty_pages() discharge, switch unchanged",
            provenance: Provenance::Reconstruction("account dirty at page granularity for per-block dirty folios"),
            role: Role::Bug,
            knobs: BlockKnobs::SERIES,
            expected: [F_WB_A, F_WB_A, F_WB_A, F_WB_A],
        },
        SeriesAccountDirtied {
            name: "series-account-dirtied",
            summary: "reading (b): the series with its per-page charge through folio_account_dirtied(nr)",
            provenance: Provenance::Reconstruction("account dirty at page granularity for per-block dirty folios"),
            role: Role::Bug,
            knobs: BlockKnobs::SERIES.account_dirtied(),
            expected: [F_WB, F_WB, F_WB, F_WB],
        },
        /// The switch moves `accounted_dirty_pages()`, but a dirtier's bits, charge and PG_dirty
        /// are three steps a switch can fall between.
        SeriesSwitchAccounted {
            name: "series-switch-accounted",
            summary: "reading (a): our partial fix: the switch moves accounted_dirty_pages() of the folios it moves",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: BlockKnobs { switch_moves: SwitchMoves::AccountedMarked, ..BlockKnobs::SERIES },
            expected: [F_WB_A, F_WB_A, F_WB_A, F_DONTCACHE_A],
        },
        SeriesSwitchAccountedAccountDirtied {
            name: "series-switch-accounted-account-dirtied",
            summary: "reading (b): our partial fix: the switch moves accounted_dirty_pages() of the folios it moves",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: BlockKnobs { switch_moves: SwitchMoves::AccountedMarked, ..BlockKnobs::SERIES }.account_dirtied(),
            expected: [F_WB, F_WB, F_WB, F_DONTCACHE],
        },
        /// Exact per wb, but v7's lookup subtracts `folio_nr_pages()` from WB_DONTCACHE_DIRTY for
        /// a folio charged per page.
        SeriesFixChargeInSection {
            name: "series-fix-charge-in-section",
            summary: "reading (a): our fix: bits, PG_dirty and charge (WB_DONTCACHE_DIRTY too) in one wb section; the switch moves accounted_dirty_pages() of every PG_dirty folio",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: BlockKnobs::FIX,
            expected: [F_DONTCACHE_A, F_DONTCACHE_A, F_DONTCACHE_A, F_DONTCACHE_A],
        },
        SeriesFixChargeInSectionAccountDirtied {
            name: "series-fix-charge-in-section-account-dirtied",
            summary: "reading (b): our fix: bits, PG_dirty and charge in one wb section; the switch moves accounted_dirty_pages() of every PG_dirty folio",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: BlockKnobs::FIX.account_dirtied(),
            expected: [F_DONTCACHE, F_DONTCACHE, F_DONTCACHE, F_DONTCACHE],
        },
        SeriesFixLookupLocked {
            name: "series-fix-lookup-locked",
            summary: "reading (a): our fix with the lookup's PG_dropbehind clear of a per-block folio under the folio lock, taking accounted_dirty_pages() in the same wb section",
            provenance: Provenance::OurFix,
            role: Role::Bug,
            knobs: BlockKnobs { lookup_locked: true, ..BlockKnobs::FIX },
            expected: [F_COMPLETE, F_COMPLETE, F_COMPLETE, F_COMPLETE],
        },
        SeriesFixLookupLockedAccountDirtied {
            name: "series-fix-lookup-locked-account-dirtied",
            summary: "reading (b): our fix with the lookup's PG_dropbehind clear of a per-block folio under the folio lock, taking accounted_dirty_pages() in the same wb section",
            provenance: Provenance::OurFix,
            role: Role::Fix,
            knobs: BlockKnobs { lookup_locked: true, ..BlockKnobs::FIX }.account_dirtied(),
            expected: [PASS, PASS, PASS, PASS],
        },
        /// `folio_mkclean`'s walk skips the PTL for a PTE read as none (the race the kernel's
        /// commit 479db0bf408e fixed): the node ledger still matches (the zap's dirtying charges
        /// nothing new), but the zap's PG_dirty lands after the flusher's clean, on bits the
        /// flusher has not cleared yet, and a switch moves those stale bits (see the header).
        SeriesFixMkcleanNosync {
            name: "series-fix-mkclean-nosync",
            summary: "reading (a): mutant: the fixed series with folio_mkclean's walk skipping the PTL for a PTE read as none (the race 479db0bf408e fixed)",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: BlockKnobs { mkclean_sync: false, lookup_locked: true, ..BlockKnobs::FIX },
            expected: [F_WB_A, F_WB_A.may_miss(&[WB_RECLAIMABLE_EXACT]).shuttle_scale(4), F_WB_A.shuttle_scale(4), F_COMPLETE],
        },
        SeriesFixMkcleanNosyncAccountDirtied {
            name: "series-fix-mkclean-nosync-account-dirtied",
            summary: "reading (b): mutant: the fixed series with folio_mkclean's walk skipping the PTL for a PTE read as none",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: BlockKnobs { mkclean_sync: false, lookup_locked: true, ..BlockKnobs::FIX }.account_dirtied(),
            expected: [F_WB, F_WB.may_miss(&[WB_RECLAIMABLE_EXACT]).shuttle_scale(4), F_WB.shuttle_scale(4), PASS],
        },
        SeriesFixDischargeNrPages {
            name: "series-fix-discharge-nr-pages",
            summary: "reading (a): mutant: the fixed series with the discharge left at folio_nr_pages",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: BlockKnobs { charge: DirtyCharge::PerPageDischargeNrPages, lookup_locked: true, ..BlockKnobs::FIX },
            expected: [F_ALL_A, F_ALL_A, F_ALL_A, F_ALL_A],
        },
        SeriesFixDischargeNrPagesAccountDirtied {
            name: "series-fix-discharge-nr-pages-account-dirtied",
            summary: "reading (b): mutant: the fixed series with the discharge left at folio_nr_pages",
            provenance: Provenance::Mutant,
            role: Role::Bug,
            knobs: BlockKnobs { charge: DirtyCharge::PerPageDischargeNrPages, lookup_locked: true, ..BlockKnobs::FIX }.account_dirtied(),
            expected: [F_ALL, F_ALL, F_ALL, F_ALL],
        },
    }
}
