//! Reference model of `per-block-charge` with atomic calls, independent of wb-core, and its
//! oracle: every interleaving of the writer's, the unmap dirtier's, the flusher's, the
//! switcher's and the two lookups' calls (all six at once), from a dirty and from a clean mapping,
//! then a final sync, cross-checked against wb-core's folio, node counters, per-wb
//! WB_RECLAIMABLE and WB_DONTCACHE_DIRTY, and the charges' other effects.

use super::{Oracle, Program};
use std::collections::BTreeMap;
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::revision::BlockRevision;
use wb_core::sync::Std;
use wb_core::trace::{Step, Trace};
use wb_models::bounds::Tier;
use wb_models::per_block_charge::{
    BlockObjects, Role, Start, CHARGE_DISCHARGE_MATCH, COUNTER_EXACT, DIRTIED_COMPLETE, FIRST_WB, SWITCH_TO,
    WB_RECLAIMABLE_EXACT,
};

pub use wb_models::per_block_charge::NAME;

/// A revision in this model's own terms. Where the charge happens relative to the switch (our
/// fix's section) and which lookups hold the folio lock are invisible to atomic calls.
#[derive(Debug, Clone, Copy, Default)]
pub struct RefKnobs {
    pub per_page: bool,
    pub discharge_folio: bool,
    /// The switch moves what the discharge would take (else the whole folio).
    pub switch_moves_accounted: bool,
    /// A per-page charge counts DONTCACHE pages (the per-folio charge always does).
    pub page_charge_counts_dontcache: bool,
    /// A per-page charge does everything 6.12's per-folio charge does (WB_DIRTIED, nr_dirtied,
    /// the foreign-dirty hook).
    pub page_charge_complete: bool,
    /// A lookup takes off WB_DONTCACHE_DIRTY the pages charged (else the whole folio).
    pub lookup_accounted: bool,
}

/// `per-block-charge` with atomic calls: the folio's PTE, PG_dirty, PG_dropbehind, dirty bits (4
/// blocks), the inode's wb, each wb's WB_RECLAIMABLE and WB_DONTCACHE_DIRTY, the pages charged
/// and discharged per dirty cycle, and the pages charged with and without 6.12's other effects.
#[derive(Debug, Clone, Default)]
pub struct RefBlock {
    pub knobs: RefKnobs,
    pub pte_dirty: bool,
    pub dirty: bool,
    pub dropbehind: bool,
    pub bits: [bool; 4],
    pub cycle: usize,
    /// Pages charged with every effect of `folio_account_dirtied()`, and without.
    pub complete: i64,
    pub incomplete: i64,
    pub wb: usize,
    pub reclaimable: [i64; 3],
    /// WB_DONTCACHE_DIRTY per wb: the folio is a DONTCACHE folio.
    pub dontcache: [i64; 3],
    pub ledger: BTreeMap<usize, (i64, i64)>,
}

impl RefBlock {
    fn mark(&mut self, blocks: &[usize]) {
        let k = self.knobs;
        let newly = blocks.iter().filter(|&&b| !self.bits[b]).count() as i64;
        blocks.iter().for_each(|&b| self.bits[b] = true);
        let charge = if k.per_page {
            newly
        } else if self.dirty {
            0
        } else {
            4
        };
        if self.dropbehind && (!k.per_page || k.page_charge_counts_dontcache) {
            self.dontcache[self.wb] += charge;
        }
        if !k.per_page || k.page_charge_complete {
            self.complete += charge;
        } else {
            self.incomplete += charge;
        }
        self.dirty = true;
        self.reclaimable[self.wb] += charge;
        self.ledger.entry(self.cycle).or_default().0 += charge;
    }

    /// The pages the discharge takes: the dirty blocks with a wired per-page discharge, else the
    /// whole folio.
    fn accounted(&self) -> i64 {
        if self.knobs.per_page && !self.knobs.discharge_folio {
            self.bits.iter().filter(|b| **b).count() as i64
        } else {
            4
        }
    }

    /// The switch of the inode to wb2: a dirty folio's pages move with it.
    pub fn switch(&mut self) {
        if self.wb == SWITCH_TO {
            return;
        }
        let moved = match (self.dirty, self.knobs.switch_moves_accounted) {
            (false, _) => 0,
            (true, true) => self.accounted(),
            (true, false) => 4,
        };
        self.reclaimable[self.wb] -= moved;
        self.reclaimable[SWITCH_TO] += moved;
        if self.dropbehind {
            self.dontcache[self.wb] -= moved;
            self.dontcache[SWITCH_TO] += moved;
        }
        self.wb = SWITCH_TO;
    }

    /// A lookup without FGP_DONTCACHE: PG_dropbehind cleared, and for a dirty folio its pages
    /// taken off WB_DONTCACHE_DIRTY.
    pub fn lookup(&mut self) {
        if std::mem::take(&mut self.dropbehind) && self.dirty {
            let n = if self.knobs.lookup_accounted { self.accounted() } else { 4 };
            self.dontcache[self.wb] -= n;
        }
    }

    /// `iomap_page_mkwrite` (setup) and the unmap dirtier's `iomap_dirty_folio`: every block.
    pub fn mark_all(&mut self) {
        self.mark(&[0, 1, 2, 3]);
    }

    /// The buffered writer: block 1.
    pub fn write_block1(&mut self) {
        self.mark(&[1]);
    }

    /// `zap_pte_range`: a dirty PTE dirties the folio.
    pub fn zap(&mut self) {
        if std::mem::take(&mut self.pte_dirty) {
            self.mark_all();
        }
    }

    /// One folio's writeback: `folio_mkclean` (a dirty PTE is cleaned and dirties the folio: on
    /// the ledger the same as the zap's), clear, discharge, write.
    pub fn writeback(&mut self) {
        self.zap();
        if !std::mem::take(&mut self.dirty) {
            return;
        }
        let n = self.accounted();
        self.reclaimable[self.wb] -= n;
        if self.dropbehind {
            self.dontcache[self.wb] -= n;
        }
        self.ledger.entry(self.cycle).or_default().1 += n;
        self.cycle += 1;
        self.bits = [false; 4];
    }

    pub fn mismatched(&self) -> Vec<(usize, i64, i64)> {
        self.ledger.iter().filter(|(_, (c, d))| c != d).map(|(k, (c, d))| (*k, *c, *d)).collect()
    }
}

/// A call of the per-block-charge oracle: one role's call.
pub type BlockOp = Role;

pub struct BlockOracle;

pub struct BlockCore {
    ctx: Ctx<Std>,
    objects: BlockObjects<Std>,
}

/// The revision in this model's own terms.
fn knobs(revision: BlockRevision) -> RefKnobs {
    use BlockRevision as R;
    let series = RefKnobs { per_page: true, ..RefKnobs::default() };
    // Reading (b): the per-page charge is folio_account_dirtied()'s body, v7's line included.
    let b = |k: RefKnobs| RefKnobs { page_charge_counts_dontcache: true, page_charge_complete: true, ..k };
    let switch = RefKnobs { switch_moves_accounted: true, ..series };
    let fix = RefKnobs { page_charge_counts_dontcache: true, ..switch };
    let lookup = RefKnobs { lookup_accounted: true, ..fix };
    let discharge = RefKnobs { discharge_folio: true, ..lookup };
    match revision {
        R::Baseline => RefKnobs::default(),
        R::BaselineLookupLocked => RefKnobs { lookup_accounted: true, ..RefKnobs::default() },
        R::Series => series,
        R::SeriesAccountDirtied => b(series),
        R::SeriesSwitchAccounted => switch,
        R::SeriesSwitchAccountedAccountDirtied => b(switch),
        R::SeriesFixChargeInSection => fix,
        R::SeriesFixChargeInSectionAccountDirtied => b(fix),
        R::SeriesFixLookupLocked | R::SeriesFixMkcleanNosync => lookup,
        R::SeriesFixLookupLockedAccountDirtied | R::SeriesFixMkcleanNosyncAccountDirtied => b(lookup),
        R::SeriesFixDischargeNrPages => discharge,
        R::SeriesFixDischargeNrPagesAccountDirtied => b(discharge),
    }
}

impl Oracle for BlockOracle {
    type Revision = BlockRevision;
    type Op = BlockOp;
    type Setup = Start;
    type Reference = RefBlock;
    type Core = BlockCore;

    fn programs(&self, _: Tier) -> Vec<Program<BlockOp, Start>> {
        [Start::MappedDirty, Start::MappedClean]
            .into_iter()
            .map(|start| Program {
                configuration: format!("{start:?}"),
                placement: format!(
                    "one CPU (the oracle's calls are atomic); mapping dirty at start: {}",
                    start == Start::MappedDirty
                ),
                threads: Role::ALL.into_iter().map(|r| vec![r]).collect(),
                epilogue: vec![Role::Flusher],
                setup: start,
            })
            .collect()
    }

    fn bounds(&self, _: Tier) -> Vec<(String, u64)> {
        vec![("threads".into(), Role::ALL.len() as u64)]
    }

    fn reference(&self, revision: BlockRevision, start: &Start) -> RefBlock {
        let mut r = RefBlock { knobs: knobs(revision), dropbehind: true, wb: FIRST_WB, ..RefBlock::default() };
        if *start == Start::MappedDirty {
            r.mark_all();
            r.pte_dirty = true;
        }
        r
    }

    fn core(&self, revision: BlockRevision, start: &Start) -> BlockCore {
        let ctx = Ctx::new(Arc::new(Trace::disabled()), "core", CpuPlan::Fixed(0));
        let objects = BlockObjects::new(&ctx, revision, *start, 1, 1);
        BlockCore { ctx, objects }
    }

    fn apply_reference(&self, r: &mut RefBlock, _: &Start, _: usize, op: BlockOp) -> Step {
        let function = match op {
            Role::Writer => {
                r.write_block1();
                "iomap_write_end"
            }
            Role::Munmap => {
                r.zap();
                "zap_pte_range"
            }
            Role::Flusher => {
                r.writeback();
                "folio_clear_dirty_for_io"
            }
            Role::Switcher => {
                r.switch();
                "inode_do_switch_wbs"
            }
            Role::LookupWrite => {
                r.lookup();
                r.mark(&[2]);
                "__filemap_get_folio + iomap_write_end"
            }
            Role::LookupFault => {
                r.lookup();
                "filemap_fault"
            }
        };
        Step::new(
            op.name(),
            function,
            format!(
                "PG_dirty {} PG_dropbehind {} bits {:?} wb{} WB_RECLAIMABLE {:?} WB_DONTCACHE_DIRTY {:?} ledger {:?}",
                r.dirty as u8, r.dropbehind as u8, r.bits, r.wb, r.reclaimable, r.dontcache, r.ledger
            ),
        )
    }

    fn apply_core(&self, c: &mut BlockCore, _: usize, op: BlockOp) {
        c.objects.run(op, &c.ctx)
    }

    fn diverges(&self, r: &RefBlock, c: &BlockCore) -> Option<String> {
        let reference: BTreeMap<usize, (i64, i64)> =
            r.ledger.iter().filter(|(_, e)| **e != (0, 0)).map(|(k, e)| (*k, *e)).collect();
        let core = c.objects.ledger();
        if core != reference {
            return Some(format!("wb-core's ledger {core:?} differs from the reference's {reference:?}"));
        }
        // The ledger is what the model saw each call charge; the counters are what wb-core's
        // charge and discharge did to NR_FILE_DIRTY and NR_DIRTIED.
        let charged: i64 = r.ledger.values().map(|e| e.0).sum();
        let discharged: i64 = r.ledger.values().map(|e| e.1).sum();
        if c.objects.dontcache_dirty() != r.dontcache {
            return Some(format!(
                "wb-core's WB_DONTCACHE_DIRTY {:?} differs from the reference's {:?}",
                c.objects.dontcache_dirty(),
                r.dontcache
            ));
        }
        if c.objects.reclaimable() != r.reclaimable || c.objects.wb_id() != r.wb {
            return Some(format!(
                "wb-core's WB_RECLAIMABLE {:?} (inode on wb{}) differs from the reference's {:?} (wb{})",
                c.objects.reclaimable(),
                c.objects.wb_id(),
                r.reclaimable,
                r.wb
            ));
        }
        let e = c.objects.effects();
        let wb_dirtied: i64 = e.per_wb.values().map(|w| w.2).sum();
        if (e.charged, wb_dirtied, e.nr_dirtied) != (r.complete + r.incomplete, r.complete, r.complete) {
            return Some(format!(
                "wb-core charged {} pages, {wb_dirtied} with WB_DIRTIED, {} with nr_dirtied; the reference {} and {}",
                e.charged,
                e.nr_dirtied,
                r.complete + r.incomplete,
                r.complete
            ));
        }
        let (file_dirty, dirtied) = c.objects.counters();
        ((file_dirty, dirtied) != (charged - discharged, charged)).then(|| {
            format!(
                "wb-core's NR_FILE_DIRTY {file_dirty}, NR_DIRTIED {dirtied} differ from the reference's {}, {charged}",
                charged - discharged
            )
        })
    }

    fn violated(&self, r: &RefBlock, _: &Start) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let bad = r.mismatched();
        if !bad.is_empty() {
            out.push((CHARGE_DISCHARGE_MATCH, format!("(cycle, charged, discharged) mismatched: {bad:?}")));
        }
        if r.reclaimable.iter().any(|&n| n != 0) {
            out.push((
                WB_RECLAIMABLE_EXACT,
                format!("WB_RECLAIMABLE per wb after the final sync: {:?} (inode on wb{})", r.reclaimable, r.wb),
            ));
        }
        if r.dontcache.iter().any(|&n| n != 0) {
            out.push((COUNTER_EXACT, format!("WB_DONTCACHE_DIRTY per wb after the final sync: {:?}", r.dontcache)));
        }
        if r.incomplete != 0 {
            out.push((
                DIRTIED_COMPLETE,
                format!("{} pages charged without WB_DIRTIED, nr_dirtied or the foreign-dirty hook", r.incomplete),
            ));
        }
        out
    }
}
