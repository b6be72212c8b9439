//! Drives wb-core (std platform, one thread) with the same atomic steps as the reference
//! models, and reports what the core observed in the reference's terms, so the two can be
//! compared step by step.

use crate::oracle::kick::{KickOp, KickResult, RefKick};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::dontcache::{filemap_dontcache_kick_writeback, wb_workfn};
use wb_core::folio::Folio;
use wb_core::inode::{Inode, I_DIRTY_PAGES};
use wb_core::page_writeback::filemap_dirty_folio;
use wb_core::revision::KickRevision;
use wb_core::sync::Std;
use wb_core::trace::Trace;
use wb_core::wb::{Wb, WbStatItem, WB_HAS_DIRTY_IO, WB_START_DONTCACHE};

/// The core's side of the `dontcache-kick` comparison.
pub struct CoreKick {
    revision: KickRevision,
    wb: Arc<Wb<Std>>,
    inodes: Vec<Inode<Std>>,
    trace: Arc<Trace>,
    last_consumed: i64,
    next_folio: u64,
}

impl CoreKick {
    pub fn new(revision: KickRevision, writers: usize, nr_cpus: usize, batch: i32) -> Self {
        let wb = Arc::new(Wb::new(nr_cpus, batch));
        let inodes = (0..writers)
            .map(|w| Inode::new(w as u32, wb.clone(), true))
            .collect();
        CoreKick {
            revision,
            wb,
            inodes,
            trace: Arc::new(Trace::disabled()),
            last_consumed: 0,
            next_folio: 0,
        }
    }

    fn ctx(&self, cpu: usize) -> Ctx<Std> {
        Ctx::new(self.trace.clone(), "step", CpuPlan::Fixed(cpu))
    }

    pub fn apply(&mut self, op: KickOp) -> KickResult {
        let rev = self.revision;
        match op {
            KickOp::Dirty { writer, cpu, pages } => {
                self.next_folio += 1;
                let folio = Folio::new(self.next_folio, pages as u32, true);
                filemap_dirty_folio(
                    &self.ctx(cpu),
                    &self.inodes[writer],
                    &folio,
                    rev.writer_smp_mb(),
                );
                KickResult::Dirtied
            }
            KickOp::Kick { writer } => {
                let woke = filemap_dontcache_kick_writeback(
                    &self.ctx(0),
                    &self.inodes[writer],
                    rev.kick(),
                );
                KickResult::Kicked { woke }
            }
            KickOp::Run => {
                let run = wb_workfn(&self.ctx(0), &self.wb, rev.consume());
                if let Some(nr) = run.consumed {
                    self.last_consumed = nr;
                }
                KickResult::Ran {
                    queued: run.queued,
                    consumed: run.consumed,
                }
            }
        }
    }

    /// The core's state, read directly, laid out as the reference's.
    pub fn snapshot(&self, like: &RefKick) -> RefKick {
        let counter = self.wb.stat(WbStatItem::DontcacheDirty);
        let mut s = like.clone();
        s.start_dontcache = self.wb.state.test_bit(WB_START_DONTCACHE);
        s.has_dirty_io = self.wb.state.test_bit(WB_HAS_DIRTY_IO);
        s.pending = self.wb.run_pending();
        s.dontcache_dirty.count = counter.read();
        s.dontcache_dirty.slots = counter.raw_slots();
        s.inode_dirty = self
            .inodes
            .iter()
            .map(|i| i.i_state.test_bit(I_DIRTY_PAGES))
            .collect();
        s.last_consumed = self.last_consumed;
        s
    }
}
