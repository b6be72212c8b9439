//! Reference model of `per-block-charge` with atomic calls, independent of wb-core, and its
//! oracle: every interleaving of the writer's, the unmap dirtier's and the flusher's calls, from a
//! dirty and from a clean mapping, then a final sync, cross-checked against wb-core's folio.

use super::{Oracle, Program};
use std::collections::BTreeMap;
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::revision::BlockRevision;
use wb_core::sync::Std;
use wb_core::trace::{Step, Trace};
use wb_models::bounds::Tier;
use wb_models::per_block_charge::{BlockObjects, Start, CHARGE_DISCHARGE_MATCH};

pub use wb_models::per_block_charge::NAME;

/// `per-block-charge` with atomic calls: the folio's PTE, PG_dirty, dirty bits (4 blocks), and
/// the pages charged and discharged per dirty cycle.
#[derive(Debug, Clone, Default)]
pub struct RefBlock {
    pub pte_dirty: bool,
    pub dirty: bool,
    pub bits: [bool; 4],
    pub cycle: usize,
    pub per_page: bool,
    pub discharge_folio: bool,
    pub ledger: BTreeMap<usize, (i64, i64)>,
}

impl RefBlock {
    fn mark(&mut self, blocks: &[usize]) {
        let newly = blocks.iter().filter(|&&b| !self.bits[b]).count() as i64;
        blocks.iter().for_each(|&b| self.bits[b] = true);
        let charge = if self.per_page {
            newly
        } else if self.dirty {
            0
        } else {
            4
        };
        self.dirty = true;
        self.ledger.entry(self.cycle).or_default().0 += charge;
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
        let n =
            if self.per_page && !self.discharge_folio { self.bits.iter().filter(|b| **b).count() as i64 } else { 4 };
        self.ledger.entry(self.cycle).or_default().1 += n;
        self.cycle += 1;
        self.bits = [false; 4];
    }

    pub fn mismatched(&self) -> Vec<(usize, i64, i64)> {
        self.ledger.iter().filter(|(_, (c, d))| c != d).map(|(k, (c, d))| (*k, *c, *d)).collect()
    }
}

/// A call of the per-block-charge oracle.
#[derive(Debug, Clone, Copy)]
pub enum BlockOp {
    Write,
    Zap,
    Writeback,
}

pub struct BlockOracle;

pub struct BlockCore {
    ctx: Ctx<Std>,
    objects: BlockObjects<Std>,
}

/// The revision's charge and discharge, in this model's own terms: (per page, discharge the whole
/// folio).
fn knobs(revision: BlockRevision) -> (bool, bool) {
    match revision {
        BlockRevision::Baseline => (false, false),
        BlockRevision::Series | BlockRevision::SeriesMkcleanNosync => (true, false),
        BlockRevision::SeriesDischargeNrPages => (true, true),
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
                threads: vec![vec![BlockOp::Write], vec![BlockOp::Zap], vec![BlockOp::Writeback]],
                epilogue: vec![BlockOp::Writeback],
                setup: start,
            })
            .collect()
    }

    fn bounds(&self, _: Tier) -> Vec<(String, u64)> {
        vec![("threads".into(), 3)]
    }

    fn reference(&self, revision: BlockRevision, start: &Start) -> RefBlock {
        let (per_page, discharge_folio) = knobs(revision);
        let mut r = RefBlock { per_page, discharge_folio, ..RefBlock::default() };
        if *start == Start::MappedDirty {
            r.mark_all();
            r.pte_dirty = true;
        }
        r
    }

    fn core(&self, revision: BlockRevision, start: &Start) -> BlockCore {
        let ctx = Ctx::new(Arc::new(Trace::disabled()), "core", CpuPlan::Fixed(0));
        let objects = BlockObjects::new(&ctx, revision, *start);
        BlockCore { ctx, objects }
    }

    fn apply_reference(&self, r: &mut RefBlock, _: &Start, _: usize, op: BlockOp) -> Step {
        let (thread, function) = match op {
            BlockOp::Write => {
                r.write_block1();
                ("writer", "iomap_write_end")
            }
            BlockOp::Zap => {
                r.zap();
                ("munmap", "zap_pte_range")
            }
            BlockOp::Writeback => {
                r.writeback();
                ("flusher", "folio_clear_dirty_for_io")
            }
        };
        Step::new(thread, function, format!("PG_dirty {} bits {:?} ledger {:?}", r.dirty as u8, r.bits, r.ledger))
    }

    fn apply_core(&self, c: &mut BlockCore, _: usize, op: BlockOp) {
        match op {
            BlockOp::Write => c.objects.write(&c.ctx),
            BlockOp::Zap => c.objects.zap(&c.ctx),
            BlockOp::Writeback => c.objects.writeback(&c.ctx),
        }
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
        let (file_dirty, dirtied) = c.objects.counters();
        ((file_dirty, dirtied) != (charged - discharged, charged)).then(|| {
            format!(
                "wb-core's NR_FILE_DIRTY {file_dirty}, NR_DIRTIED {dirtied} differ from the reference's {}, {charged}",
                charged - discharged
            )
        })
    }

    fn violated(&self, r: &RefBlock, _: &Start) -> Vec<(&'static str, String)> {
        let bad = r.mismatched();
        if bad.is_empty() {
            return Vec::new();
        }
        vec![(CHARGE_DISCHARGE_MATCH, format!("(cycle, charged, discharged) mismatched: {bad:?}"))]
    }
}
