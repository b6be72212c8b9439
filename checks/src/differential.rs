//! Drives wb-core (std platform, one thread) with the same atomic steps as the reference
//! models, and reports what the core observed in the reference's terms, so the two can be
//! compared step by step.

use crate::oracle::bdev_slots::{ref_slot_revision, RefKey, RefSlots};
use crate::oracle::dontcache_accounting::{AccOp, RefAccounting, RefPte};
use crate::oracle::dontcache_kick::{
    flusher_call, FlusherCalls, KickOp, KickResult, KickUniverse, RanRun, RefKick, FLUSHER_CPU,
};
use crate::oracle::percpu_counter::RefPercpu;
use crate::oracle::wb_pin::{Life as PinLife, PinOp, RefPin, NEW, OLD};
use std::collections::VecDeque;
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::dontcache::{filemap_dontcache_kick_writeback, wb_workfn, RunOn};
use wb_core::folio::{Folio, PAGECACHE_TAG_DIRTY};
use wb_core::fs_writeback::__mark_inode_dirty;
use wb_core::fs_writeback::{inode_switch_wbs, inode_switch_wbs_work_fn};
use wb_core::inode::{Inode, IoList, I_DIRTY_PAGES, I_DIRTY_SYNC, I_WB_SWITCH};
use wb_core::memcg::ForeignTable;
use wb_core::page_writeback::filemap_dirty_folio;
use wb_core::percpu::PercpuCounter;
use wb_core::pte::PteState;
use wb_core::revision::SlotRevision;
use wb_core::revision::{AccountingRevision, KickProtocol, PinRevision};
use wb_core::sync::Std;
use wb_core::trace::Trace;
use wb_core::wb::{cgwb_kill, fire_timer, wb_get, Bdi, Life, WbStatItem, WB_HAS_DIRTY_IO, WB_START_DONTCACHE};
use wb_models::dontcache_accounting::{self as accounting, Role};

/// The core's side of the `dontcache-kick` comparison.
pub struct CoreKick {
    bdi: Arc<Bdi<Std>>,
    inodes: Vec<Inode<Std>>,
    /// One task per CPU: a step runs as the task of the CPU it names (the flusher on cpu0).
    cpus: Vec<Ctx<Std>>,
}

impl CoreKick {
    pub fn new(proto: KickProtocol, universe: &KickUniverse, nr_cpus: usize, batch: i32) -> Self {
        let bdi = Arc::new(Bdi::new(0, nr_cpus, batch, nr_cpus).with_knobs(proto));
        let inodes: Vec<Inode<Std>> = universe
            .inodes
            .iter()
            .enumerate()
            .map(|(i, folios)| {
                let folios = folios
                    .iter()
                    .enumerate()
                    .map(|(f, &(of, pages))| Arc::new(Folio::new((i * 8 + f) as u64, pages as u32, of.dropbehind)))
                    .collect();
                Inode::new(i as u32, bdi.clone(), 0, true, folios)
            })
            .collect();
        let trace = Arc::new(Trace::disabled());
        let cpus: Vec<Ctx<Std>> = (0..nr_cpus).map(|c| Ctx::new(trace.clone(), "step", CpuPlan::Fixed(c))).collect();
        for (inode, &dirty) in inodes.iter().zip(&universe.dirty_at_start) {
            if dirty {
                filemap_dirty_folio(&cpus[FLUSHER_CPU], inode, inode.folios.last().expect("a resident folio"));
            }
        }
        CoreKick { bdi, inodes, cpus }
    }
}

impl FlusherCalls for CoreKick {
    /// One flusher run of what is queued, if anything is.
    fn run(&mut self, rescuer: bool) -> Option<RanRun> {
        let refs: Vec<&Inode<Std>> = self.inodes.iter().collect();
        let on = if rescuer { RunOn::Rescuer } else { RunOn::Worker };
        let run = wb_workfn(&self.cpus[FLUSHER_CPU], self.bdi.wb(0), &refs, || on)?;
        Some(RanRun {
            rescuer: run.on == RunOn::Rescuer,
            consumed: run.consumed.map(|c| (c.budget, c.wrote)),
            wrote: run.wrote,
            requeued: run.requeued,
        })
    }

    fn fire(&mut self) -> bool {
        fire_timer(&self.cpus[FLUSHER_CPU], self.bdi.wb(0), || true)
    }
}

impl CoreKick {
    pub fn apply(&mut self, op: KickOp) -> KickResult {
        match op {
            KickOp::Dirty { inode, folio, cpu } => {
                let (i, f) = (&self.inodes[inode], &self.inodes[inode].folios[folio]);
                KickResult::Dirtied(filemap_dirty_folio(&self.cpus[cpu], i, f))
            }
            KickOp::MarkSync { inode } => {
                __mark_inode_dirty(&self.cpus[0], &self.inodes[inode], 1 << I_DIRTY_SYNC);
                KickResult::Marked
            }
            KickOp::Kick { inode, .. } => {
                let woke = filemap_dontcache_kick_writeback(&self.cpus[0], &self.inodes[inode]);
                KickResult::Kicked { woke }
            }
            KickOp::Run { .. } | KickOp::Fire | KickOp::Look { .. } | KickOp::Drain => flusher_call(self, op),
        }
    }

    /// The core's kernel state, read directly, laid out as the reference's (the reference's clock
    /// and its ghost bookkeeping are its own and are taken from it).
    pub fn snapshot(&self, like: &RefKick) -> RefKick {
        let wb = self.bdi.wb(0);
        let counter = wb.stat(WbStatItem::DontcacheDirty);
        let mut s = like.clone();
        s.start_dontcache = wb.state.test_bit(WB_START_DONTCACHE);
        s.has_dirty_io = wb.state.test_bit(WB_HAS_DIRTY_IO);
        s.pending = wb.run_pending();
        s.timer = wb.timer_armed();
        s.dontcache_dirty.count = counter.read();
        s.dontcache_dirty.slots = counter.raw_slots();
        for (r, i) in s.inodes.iter_mut().zip(&self.inodes) {
            r.dirty_sync = i.i_state.test_bit(I_DIRTY_SYNC);
            r.dirty_pages = i.i_state.test_bit(I_DIRTY_PAGES);
            r.listed = i.io_list() != IoList::None;
            r.dirtied_when = i.dirtied_when();
            for (rf, f) in r.folios.iter_mut().zip(&i.folios) {
                rf.dirty = f.test_dirty();
            }
        }
        s
    }
}

/// The core's side of the `wb-pin` comparison: the scenario's objects on the std platform, each
/// step run by the task of the thread that does it in the scenario.
pub struct CorePin {
    inode: Arc<Inode<Std>>,
    trace: Arc<Trace>,
    writer: Ctx<Std>,
    switcher: Ctx<Std>,
    kworker: Ctx<Std>,
    switch_queued: bool,
}

impl CorePin {
    pub fn new(revision: PinRevision, folios: usize) -> Self {
        let trace = Arc::new(Trace::new());
        let ctx = |name| Ctx::new(trace.clone(), name, CpuPlan::Fixed(0));
        let (writer, switcher, kworker) = (ctx("writer"), ctx("switcher"), ctx("kworker"));
        let bdi = Arc::new(Bdi::new(2, 1, 4, 3).with_knobs(revision.knobs()));
        let folios = (0..folios).map(|i| Arc::new(Folio::new(i as u64, 1, true))).collect();
        let inode = Arc::new(Inode::new(0, bdi.clone(), OLD, true, folios));
        wb_get(&switcher, bdi.wb(OLD));
        cgwb_kill(&switcher, bdi.wb(OLD));
        CorePin { inode, trace, writer, switcher, kworker, switch_queued: false }
    }

    pub fn apply(&mut self, op: PinOp) {
        let inode = &*self.inode;
        let run = |wb: usize| wb_workfn(&self.kworker, inode.bdi.wb(wb), &[inode], || RunOn::Worker).is_some();
        match op {
            PinOp::Dirty { folio } => {
                filemap_dirty_folio(&self.writer, inode, &inode.folios[folio]);
            }
            PinOp::Kick { .. } => {
                filemap_dontcache_kick_writeback(&self.writer, inode);
            }
            PinOp::SwitchBegin => self.switch_queued |= inode_switch_wbs(&self.switcher, inode, NEW),
            PinOp::SwitchWork => {
                if std::mem::take(&mut self.switch_queued) {
                    inode_switch_wbs_work_fn(&self.switcher, inode, NEW);
                }
            }
            PinOp::Look { wb } => {
                let live = inode.bdi.wb(wb).life() == Life::Live;
                if live && !run(wb) && fire_timer(&self.kworker, inode.bdi.wb(wb), || true) {
                    run(wb);
                }
            }
            PinOp::Drain => {
                let mut runs = 0;
                while runs < 8 && [OLD, NEW].into_iter().any(|wb| inode.bdi.wb(wb).life() == Life::Live && run(wb)) {
                    runs += 1;
                }
            }
        }
    }

    /// The core's state, read directly, laid out as the reference's.
    pub fn snapshot(&self, like: &RefPin) -> RefPin {
        let inode = &*self.inode;
        let mut s = like.clone();
        for (id, w) in s.wbs.iter_mut().enumerate().skip(1) {
            let wb = inode.bdi.wb(id);
            w.refs = wb.refcount();
            w.life = if wb.life() == Life::Live { PinLife::Live } else { PinLife::Freed };
            w.frees = wb.frees();
            w.start_dontcache = wb.state.test_bit(WB_START_DONTCACHE);
            w.has_dirty_io = wb.state.test_bit(WB_HAS_DIRTY_IO);
            w.pending = wb.run_pending();
            w.timer = wb.timer_armed();
            w.dontcache_dirty = wb.stat(WbStatItem::DontcacheDirty).raw_total();
        }
        s.inode_wb = inode.wb_id();
        s.switching = inode.i_state.test_bit(I_WB_SWITCH);
        s.inode_dirty = inode.i_state.test_bit(I_DIRTY_PAGES);
        for (f, folio) in s.folios.iter_mut().zip(&inode.folios) {
            f.dirty = folio.test_dirty();
            f.tagged = folio.marks.test_bit(PAGECACHE_TAG_DIRTY);
        }
        s.detected = self.trace.detected().iter().map(|d| d.property).collect();
        s
    }

    /// The core's trace so far.
    pub fn steps(&self) -> Vec<wb_core::trace::Step> {
        self.trace.steps()
    }
}

/// The scenario's role for a reference step.
pub fn accounting_role(op: AccOp) -> Role {
    match op {
        AccOp::DontcacheWrite(f) => Role::DontcacheWrite(f),
        AccOp::BufferedWrite(f) => Role::BufferedWrite(f),
        AccOp::Lookup(f) => Role::Lookup(f),
        AccOp::MkwriteFault(f) => Role::MkwriteFault(f),
        AccOp::Zap(f) => Role::Zap(f),
        AccOp::Writeback(f) => Role::Writeback(f),
        AccOp::WritebackRedirty(f) => Role::WritebackRedirty(f),
        AccOp::Truncate(f) => Role::Truncate(f),
        AccOp::Switch => Role::Switch,
        AccOp::Migrate => Role::Migrate,
        AccOp::Split => Role::Split,
    }
}

/// The reference step for a scenario role.
pub fn accounting_op(role: Role) -> AccOp {
    match role {
        Role::DontcacheWrite(f) => AccOp::DontcacheWrite(f),
        Role::BufferedWrite(f) => AccOp::BufferedWrite(f),
        Role::Lookup(f) => AccOp::Lookup(f),
        Role::MkwriteFault(f) => AccOp::MkwriteFault(f),
        Role::Zap(f) => AccOp::Zap(f),
        Role::Writeback(f) => AccOp::Writeback(f),
        Role::WritebackRedirty(f) => AccOp::WritebackRedirty(f),
        Role::Truncate(f) => AccOp::Truncate(f),
        Role::Switch => AccOp::Switch,
        Role::Migrate => AccOp::Migrate,
        Role::Split => AccOp::Split,
    }
}

/// The core's side of the `dontcache-accounting` comparison: the scenario's objects and roles on
/// the std platform, one task per role kind.
pub struct CoreAccounting {
    bdi: Arc<Bdi<Std>>,
    inodes: Vec<Arc<Inode<Std>>>,
    ctx: Ctx<Std>,
}

impl CoreAccounting {
    pub fn new(revision: AccountingRevision) -> Self {
        let trace = Arc::new(Trace::disabled());
        let ctx = Ctx::new(trace, "step", CpuPlan::Fixed(0));
        let (bdi, inodes) = accounting::build::<Std>(revision.knobs(), 1, 4, 1, &ctx);
        CoreAccounting { bdi, inodes, ctx }
    }

    pub fn apply(&mut self, op: AccOp) {
        accounting::run_role(&self.ctx, accounting_role(op), &self.inodes);
    }

    /// Put folio `f` in a configuration's start state.
    pub fn prepare(&mut self, f: usize, start: accounting::Start) {
        accounting::prepare(&self.ctx, &self.inodes, f, start);
    }

    /// The core's state, read directly, laid out as the reference's.
    pub fn snapshot(&self, like: &RefAccounting) -> RefAccounting {
        let mut s = like.clone();
        for (f, rf) in s.folios.iter_mut().enumerate() {
            let (i, slot, _) = accounting::FOLIOS[f];
            let folio = &self.inodes[i].folios[slot];
            rf.in_cache = folio.in_page_cache();
            rf.dirty = folio.test_dirty();
            rf.dropbehind = folio.test_dropbehind();
            rf.tagged = if rf.in_cache { folio.marks.test_bit(PAGECACHE_TAG_DIRTY) } else { like.folios[f].tagged };
            rf.pte = match folio.pte.as_ref().map_or(PteState::None, |p| p.state()) {
                PteState::None => RefPte::None,
                PteState::Clean => RefPte::Clean,
                PteState::Dirty => RefPte::Dirty,
            };
        }
        s.inode_wb = self.inodes.iter().map(|i| i.wb_id()).collect();
        s.counter = self.bdi.wbs().iter().map(|wb| wb.stat(WbStatItem::DontcacheDirty).raw_total()).collect();
        s
    }
}

/// One step of the foreign-table comparison (the clock moves by `dt` first).
#[derive(Debug, Clone, Copy)]
pub enum SlotOp {
    Track {
        key: RefKey,
        dt: i64,
    },
    Flush {
        dt: i64,
    },
    /// Complete the oldest queued flush.
    Done,
}

/// A foreign-writeback table (`cgwb_frn` or `cgwb_bdev`) and the reference, driven together.
pub struct SlotsPair {
    pub reference: RefSlots,
    table: ForeignTable<Std>,
    ctx: Ctx<Std>,
    now: i64,
    queued: VecDeque<usize>,
}

impl SlotsPair {
    pub const UPDATE_INTV: i64 = 2;
    pub const EXPIRE_INTV: i64 = 6;

    pub fn new(rev: SlotRevision, table: &'static str, capacity: usize) -> Self {
        let ctx = Ctx::new(Arc::new(Trace::disabled()), "step", CpuPlan::Fixed(0));
        SlotsPair {
            reference: RefSlots::new(ref_slot_revision(rev), capacity, 0),
            table: ForeignTable::new(capacity, rev, table),
            ctx,
            now: 1,
            queued: VecDeque::new(),
        }
    }

    /// Apply `op` to both; an error says where they disagree.
    pub fn apply(&mut self, op: SlotOp) -> Result<(), String> {
        match op {
            SlotOp::Track { key, dt } => {
                self.now += dt;
                self.reference.track(key, self.now, Self::UPDATE_INTV);
                self.table.track(&self.ctx, key, self.now, Self::UPDATE_INTV);
            }
            SlotOp::Flush { dt } => {
                self.now += dt;
                let want = self.reference.flush(self.now, Self::EXPIRE_INTV);
                let got = self.table.flush(&self.ctx, self.now, Self::EXPIRE_INTV);
                if got != want {
                    return Err(format!("{op:?}: core queued {got:?}, reference {want:?}"));
                }
                self.queued.extend(want.into_iter().map(|(slot, _)| slot));
            }
            SlotOp::Done => {
                if let Some(slot) = self.queued.pop_front() {
                    self.reference.flush_done(slot);
                    self.table.flush_done(&self.ctx, slot);
                }
            }
        }
        let got = self.table.contents();
        if got != self.reference.slots {
            return Err(format!("after {op:?}: core slots {got:?}, reference {:?}", self.reference.slots));
        }
        let torn = self.table.torn_slots();
        if !torn.is_empty() {
            return Err(format!("after {op:?}: slots {torn:?} tore in a sequential run"));
        }
        if self.reference.violated.contains(&"inflight-bound") {
            return Err(format!("after {op:?}: the reference exceeded the in-flight bound"));
        }
        Ok(())
    }
}

/// One step of the percpu_counter comparison.
#[derive(Debug, Clone, Copy)]
pub enum CounterOp {
    Add { cpu: usize, amount: i64 },
    Read,
    Sum,
}

/// A `percpu_counter` and the reference, driven together.
pub struct CounterPair {
    pub reference: RefPercpu,
    core: PercpuCounter<Std>,
    cpus: Vec<Ctx<Std>>,
    batch: i32,
}

impl CounterPair {
    pub fn new(nr_cpus: usize, batch: i32) -> Self {
        let trace = Arc::new(Trace::disabled());
        CounterPair {
            reference: RefPercpu::new(nr_cpus, i64::from(batch)),
            core: PercpuCounter::new(nr_cpus),
            cpus: (0..nr_cpus).map(|c| Ctx::new(trace.clone(), "step", CpuPlan::Fixed(c))).collect(),
            batch,
        }
    }

    /// Apply `op` to both (a read or sum on both must return the same); an error says where they
    /// disagree.
    pub fn apply(&mut self, op: CounterOp) -> Result<(), String> {
        let (core, r) = (&self.core, &mut self.reference);
        let read = match op {
            CounterOp::Add { cpu, amount } => {
                core.add_batch(&self.cpus[cpu], amount, self.batch);
                r.add(cpu, amount);
                None
            }
            CounterOp::Read => Some(((core.read(), core.read_positive()), (r.read(), r.read_positive()))),
            CounterOp::Sum => {
                let ctx = &self.cpus[0];
                Some(((core.sum(ctx), core.sum_positive(ctx)), (r.sum(), r.sum_positive())))
            }
        };
        if let Some((got, want)) = read.filter(|(got, want)| got != want) {
            return Err(format!("{op:?}: core returned {got:?}, reference {want:?}"));
        }
        let (got, want) = ((core.read(), core.raw_slots()), (r.count, r.slots.clone()));
        if got != want {
            return Err(format!("after {op:?}: core (count, slots) {got:?}, reference {want:?}"));
        }
        Ok(())
    }
}
