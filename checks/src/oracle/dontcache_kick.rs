//! Reference model of the DONTCACHE kick/consume protocol with the dirty-inode tracking around it
//! (seed 002 patch 3 over fs/fs-writeback.c, 6.12), every kernel call atomic: a folio dirtied,
//! an inode marked dirty, a kick, a flusher run (on a worker or on the rescuer).

use super::percpu_counter::RefPercpu;
use super::{placements, Oracle, Program};
use crate::differential::CoreKick;
use wb_core::trace::Step;
use wb_core::wb::wb_stat_batch_for;
use wb_models::bounds::Tier;
use wb_models::dontcache_kick::{self, FolioOf, Role, Setup, DIRTY_TRACKING, LOST_WAKEUP};

use wb_core::dontcache::RunOn;
use wb_core::revision::KickRevision;
pub use wb_models::dontcache_kick::NAME;

/// What a revision does, in this model's own terms (not wb-core's knobs).
/// Sequentially the posted and folded kicks are the same call, the writer's barrier has no effect,
/// and the late clear is indistinguishable from the early one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefKnobs {
    pub budget: Budget,
    /// The kick tests `wb_has_dirty_io` first (v5..v7).
    pub dirty_io_guard: bool,
    /// `wb_workfn` ends with a `wb_wakeup` while the kick bit is set (our rescuer fix).
    pub requeue_pending_kick: bool,
}

/// What a consume computes its budget from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// `wb_stat_sum`: count plus slots.
    Sum,
    /// `wb_stat`: the global count only.
    Read,
}

const V7_KNOBS: RefKnobs = RefKnobs { budget: Budget::Sum, dirty_io_guard: true, requeue_pending_kick: false };

/// The knobs of a dontcache-kick revision (written out here, not derived from wb-core's).
pub fn kick_knobs(revision: KickRevision) -> RefKnobs {
    use KickRevision::*;
    let fix = RefKnobs { dirty_io_guard: false, ..V7_KNOBS };
    match revision {
        V7 | V7Posted | V7PostedNoMb | V7NoMb | V5LateClear => V7_KNOBS,
        V5ApproxRead => RefKnobs { budget: Budget::Read, ..V7_KNOBS },
        V7FixKick | V7FixKickPosted => fix,
        V7FixRescuerRequeue => RefKnobs { requeue_pending_kick: true, ..V7_KNOBS },
        V7FixKickRequeue | V7FixKickPostedRequeue | V7FixKickPostedRequeueNoMb | V7FixKickRequeueNoMb => {
            RefKnobs { requeue_pending_kick: true, ..fix }
        }
    }
}

/// The objects of one configuration: per inode, its folios (PG_dropbehind, kicked for; pages),
/// and whether it starts dirty (its last folio dirty, the inode on `b_dirty`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KickUniverse {
    pub inodes: Vec<Vec<(FolioOf, i64)>>,
    pub dirty_at_start: Vec<bool>,
}

/// One atomic call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickOp {
    /// `filemap_dirty_folio` of folio `folio` of inode `inode`, on `cpu`.
    Dirty { inode: usize, folio: usize, cpu: usize },
    /// `__mark_inode_dirty(I_DIRTY_SYNC)`.
    MarkSync { inode: usize },
    /// `filemap_dontcache_kick_writeback` for `inode`.
    Kick { inode: usize },
    /// One flusher run (periodic if nothing is queued), on the rescuer or not.
    Run { rescuer: bool },
}

/// What one call returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickResult {
    /// Whether the folio went from clean to dirty.
    Dirtied(bool),
    Marked,
    /// The kick woke the flusher.
    Kicked {
        woke: bool,
    },
    /// The run had been queued; the budget its consume read, if it consumed the bit.
    Ran {
        queued: bool,
        consumed: Option<i64>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefFolio {
    pub dontcache: bool,
    /// A kick follows its dirtying (a dontcache-writer's folio, not a fault's).
    pub kicked: bool,
    pub pages: i64,
    pub dirty: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefInode {
    pub dirty_sync: bool,
    pub dirty_pages: bool,
    /// On the wb's I/O lists.
    pub listed: bool,
    /// When it went on them (the order writeback takes them in).
    pub dirtied_when: usize,
    pub folios: Vec<RefFolio>,
}

/// The state every call can observe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefKick {
    pub start_dontcache: bool,
    pub has_dirty_io: bool,
    /// A flusher run is queued and has not started.
    pub pending: bool,
    pub dontcache_dirty: RefPercpu,
    pub inodes: Vec<RefInode>,
    pub clock: usize,
    /// Kicked DONTCACHE pages counted in and counted out so far; the same for the pages no kick
    /// follows (the faults').
    pub added: i64,
    pub removed: i64,
    pub unkicked_added: i64,
    pub unkicked_removed: i64,
    /// The budget read by the last consume that cleared the bit, and `removed` before that run.
    pub last_consumed: Option<(i64, i64)>,
    pub knobs: RefKnobs,
}

/// The flusher's CPU (its count-outs go to this slot).
pub const FLUSHER_CPU: usize = 0;

impl RefKick {
    pub fn new(universe: &KickUniverse, nr_cpus: usize, batch: i64, knobs: RefKnobs) -> Self {
        let mut m = RefKick {
            start_dontcache: false,
            has_dirty_io: false,
            pending: false,
            dontcache_dirty: RefPercpu::new(nr_cpus, batch),
            inodes: universe
                .inodes
                .iter()
                .map(|folios| RefInode {
                    dirty_sync: false,
                    dirty_pages: false,
                    listed: false,
                    dirtied_when: 0,
                    folios: folios
                        .iter()
                        .map(|&(of, pages)| RefFolio {
                            dontcache: of.dropbehind,
                            kicked: of.kicked,
                            pages,
                            dirty: false,
                        })
                        .collect(),
                })
                .collect(),
            clock: 0,
            added: 0,
            removed: 0,
            unkicked_added: 0,
            unkicked_removed: 0,
            last_consumed: None,
            knobs,
        };
        for (i, &dirty) in universe.dirty_at_start.iter().enumerate() {
            if dirty {
                let last = m.inodes[i].folios.len() - 1;
                m.apply(KickOp::Dirty { inode: i, folio: last, cpu: FLUSHER_CPU });
            }
        }
        m
    }

    fn mark_inode_dirty(&mut self, i: usize, pages: bool) {
        let inode = &mut self.inodes[i];
        let was_dirty = inode.dirty_sync || inode.dirty_pages;
        if pages {
            inode.dirty_pages = true;
        } else {
            inode.dirty_sync = true;
        }
        if !was_dirty {
            self.clock += 1;
            inode.dirtied_when = self.clock;
            inode.listed = true;
            self.has_dirty_io = true;
        }
    }

    /// The flusher's writeback of `nr` pages from the oldest listed inodes: each written whole
    /// (its DONTCACHE pages counted out on the flusher's CPU), its dirty bits cleared, taken off
    /// the lists; `has_dirty_io` cleared once the lists are empty.
    fn writeback(&mut self, nr: i64) {
        let mut order: Vec<usize> = (0..self.inodes.len()).filter(|&i| self.inodes[i].listed).collect();
        order.sort_by_key(|&i| self.inodes[i].dirtied_when);
        let mut left = nr;
        for i in order {
            if left <= 0 {
                break;
            }
            let inode = &mut self.inodes[i];
            for f in inode.folios.iter_mut().filter(|f| f.dirty) {
                f.dirty = false;
                left -= f.pages;
                if f.dontcache {
                    self.dontcache_dirty.add(FLUSHER_CPU, -f.pages);
                    *if f.kicked { &mut self.removed } else { &mut self.unkicked_removed } += f.pages;
                }
            }
            inode.dirty_sync = false;
            inode.dirty_pages = false;
            inode.listed = false;
        }
        if self.inodes.iter().all(|i| !i.listed) {
            self.has_dirty_io = false;
        }
    }

    pub fn apply(&mut self, op: KickOp) -> KickResult {
        match op {
            KickOp::Dirty { inode, folio, cpu } => {
                let f = &mut self.inodes[inode].folios[folio];
                if f.dirty {
                    return KickResult::Dirtied(false);
                }
                f.dirty = true;
                if f.dontcache {
                    let pages = f.pages;
                    self.dontcache_dirty.add(cpu, pages);
                    *if f.kicked { &mut self.added } else { &mut self.unkicked_added } += pages;
                }
                self.mark_inode_dirty(inode, true);
                KickResult::Dirtied(true)
            }
            KickOp::MarkSync { inode } => {
                self.mark_inode_dirty(inode, false);
                KickResult::Marked
            }
            KickOp::Kick { .. } => {
                let woke = (!self.knobs.dirty_io_guard || self.has_dirty_io) && !self.start_dontcache;
                if woke {
                    self.start_dontcache = true;
                    self.pending = true;
                }
                KickResult::Kicked { woke }
            }
            KickOp::Run { rescuer } => {
                let queued = std::mem::replace(&mut self.pending, false);
                let removed_before = self.removed;
                let consumed = if rescuer {
                    self.writeback(1024);
                    None
                } else {
                    std::mem::replace(&mut self.start_dontcache, false).then(|| {
                        let nr = match self.knobs.budget {
                            Budget::Sum => self.dontcache_dirty.sum_positive(),
                            Budget::Read => self.dontcache_dirty.read_positive(),
                        };
                        if nr != 0 {
                            self.writeback(nr);
                        }
                        nr
                    })
                };
                if let Some(nr) = consumed {
                    self.last_consumed = Some((nr, removed_before));
                }
                if self.knobs.requeue_pending_kick && self.start_dontcache {
                    self.pending = true;
                }
                KickResult::Ran { queued, consumed }
            }
        }
    }

    /// `lost-wakeup` at quiescence (the scenario's definition, for kicked pages): `None` if it
    /// holds.
    pub fn lost_wakeup(&self) -> Option<String> {
        let remaining = self.dontcache_dirty.sum() - (self.unkicked_added - self.unkicked_removed);
        if remaining <= 0 || (self.start_dontcache && self.pending) {
            return None;
        }
        let (budget, removed) = self.last_consumed.unwrap_or((0, 0));
        let owed = self.added - removed;
        (budget < owed).then(|| {
            format!(
                "{remaining} kicked dirty DONTCACHE page(s) remain, WB_start_dontcache {} with no run queued; the last consume read {budget} when {owed} were counted",
                self.start_dontcache as u8
            )
        })
    }

    /// `dirty-tracking` at quiescence: `None` if it holds.
    pub fn dirty_tracking(&self) -> Option<String> {
        let lost = self.inodes.iter().position(|i| {
            let tagged = i.folios.iter().any(|f| f.dirty);
            (tagged && !i.dirty_pages) || ((tagged || i.dirty_pages || i.dirty_sync) && !i.listed)
        });
        let listed = self.inodes.iter().any(|i| i.listed);
        match lost {
            Some(i) => Some(format!("inode {i} is dirty but not listed, or has dirty pages without I_DIRTY_PAGES")),
            None => (listed != self.has_dirty_io)
                .then(|| format!("WB_has_dirty_io is {} with lists non-empty = {listed}", self.has_dirty_io as u8)),
        }
    }
}

/// The size of the `dontcache-kick` oracle runs: every configuration of the scenario's loom scope,
/// each thread running `ops` operations, the flusher three runs (a worker run, then the
/// configuration's two, each on a worker or on the rescuer), every CPU for each
/// DONTCACHE writer. The batch is the kernel's WB_STAT_BATCH for 2 CPUs (16): with one-page folios
/// no add reaches the fold; the proptest comparison (checks/tests) draws folio sizes beyond the
/// batch and covers it.
#[derive(Debug, Clone, Copy)]
pub struct KickOracleConfig {
    pub ops: usize,
    pub flusher_runs: usize,
    pub nr_cpus: usize,
    pub batch: i32,
}

impl KickOracleConfig {
    pub fn for_tier(tier: Tier) -> Self {
        let nr_cpus = 2;
        KickOracleConfig {
            ops: if tier == Tier::Quick { 1 } else { 2 },
            flusher_runs: 3,
            nr_cpus,
            batch: wb_stat_batch_for(nr_cpus),
        }
    }
}

/// The objects of a kick configuration, for the reference and the core.
pub fn kick_universe(setup: &Setup) -> KickUniverse {
    KickUniverse {
        inodes: (0..setup.inodes()).map(|i| setup.folios_of(i).into_iter().map(|of| (of, 1)).collect()).collect(),
        dirty_at_start: setup.dirty_at_start.clone(),
    }
}

/// The flusher's runs in an oracle program, each on the rescuer or not: a worker run, then the
/// configuration's two (so a rescuer run can be the last).
fn rescuer_runs(setup: &Setup, cfg: &KickOracleConfig) -> Vec<bool> {
    let runs: Vec<bool> = setup.runs.iter().map(|r| *r == RunOn::Rescuer).collect();
    std::iter::repeat_n(false, cfg.flusher_runs.saturating_sub(runs.len())).chain(runs).collect()
}

/// The oracle of `dontcache-kick`.
#[derive(Default)]
pub struct KickOracle;

/// One program's objects: the scope's configuration and the universe built from it.
pub struct KickProgram {
    pub setup: Setup,
    pub universe: KickUniverse,
    pub cfg: KickOracleConfig,
}

impl Oracle for KickOracle {
    type Revision = KickRevision;
    type Op = KickOp;
    type Setup = KickProgram;
    /// The model and the last call's result.
    type Reference = (RefKick, Option<KickResult>);
    type Core = (CoreKick, Option<KickResult>);

    fn programs(&self, tier: Tier) -> Vec<Program<KickOp, KickProgram>> {
        let cfg = KickOracleConfig::for_tier(tier);
        let mut programs = Vec::new();
        for setup in dontcache_kick::kick_scope() {
            let dc: Vec<usize> = (0..setup.threads.len()).filter(|&k| setup.threads[k].role.adds()).collect();
            for cpus in placements(dc.len(), cfg.nr_cpus) {
                let mut threads: Vec<Vec<KickOp>> = setup
                    .threads
                    .iter()
                    .enumerate()
                    .map(|(k, t)| {
                        let cpu = dc.iter().position(|&d| d == k).map_or(0, |j| cpus[j]);
                        let dirty = KickOp::Dirty { inode: t.inode, folio: t.folio, cpu };
                        let calls: Vec<KickOp> = match t.role {
                            Role::Dontcache => vec![dirty, KickOp::Kick { inode: t.inode }],
                            Role::Buffered | Role::DropbehindFault => vec![dirty],
                            Role::InodeDirtier => vec![KickOp::MarkSync { inode: t.inode }],
                        };
                        calls.iter().copied().cycle().take(calls.len() * cfg.ops).collect()
                    })
                    .collect();
                threads.push(rescuer_runs(&setup, &cfg).into_iter().map(|rescuer| KickOp::Run { rescuer }).collect());
                let placement =
                    dc.iter().zip(&cpus).map(|(k, c)| format!("thread{k} cpu{c}")).collect::<Vec<_>>().join(", ");
                programs.push(Program {
                    configuration: setup.label(),
                    placement,
                    threads,
                    epilogue: Vec::new(),
                    setup: KickProgram { universe: kick_universe(&setup), setup: setup.clone(), cfg },
                });
            }
        }
        programs
    }

    fn bounds(&self, tier: Tier) -> Vec<(String, u64)> {
        let cfg = KickOracleConfig::for_tier(tier);
        vec![
            (
                "max_threads".into(),
                dontcache_kick::kick_scope().iter().map(|s| s.threads.len()).max().unwrap_or(0) as u64,
            ),
            ("ops_per_thread".into(), cfg.ops as u64),
            ("flusher_runs".into(), cfg.flusher_runs as u64),
            ("cpus".into(), cfg.nr_cpus as u64),
            ("batch".into(), cfg.batch as u64),
        ]
    }

    fn reference(&self, rev: KickRevision, p: &KickProgram) -> Self::Reference {
        (RefKick::new(&p.universe, p.cfg.nr_cpus, i64::from(p.cfg.batch), kick_knobs(rev)), None)
    }

    fn core(&self, rev: KickRevision, p: &KickProgram) -> Self::Core {
        (CoreKick::new(rev.knobs(), &p.universe, p.cfg.nr_cpus, p.cfg.batch), None)
    }

    fn apply_reference(&self, r: &mut Self::Reference, p: &KickProgram, thread: usize, op: KickOp) -> Step {
        let before = r.0.clone();
        let result = r.0.apply(op);
        r.1 = Some(result);
        describe(&p.setup, thread, op, result, &before, &r.0)
    }

    fn apply_core(&self, c: &mut Self::Core, _: usize, op: KickOp) {
        c.1 = Some(c.0.apply(op));
    }

    fn diverges(&self, r: &Self::Reference, c: &Self::Core) -> Option<String> {
        let state = c.0.snapshot(&r.0);
        (c.1 != r.1 || state != r.0).then(|| {
            format!(
                "wb-core returned {:?} with state {state:?}; the reference returned {:?} with state {:?}",
                c.1, r.1, r.0
            )
        })
    }

    fn violated(&self, r: &Self::Reference, _: &KickProgram) -> Vec<(&'static str, String)> {
        [(LOST_WAKEUP, r.0.lost_wakeup()), (DIRTY_TRACKING, r.0.dirty_tracking())]
            .into_iter()
            .filter_map(|(p, m)| Some((p, m?)))
            .collect()
    }
}

/// One reference step as a trace step with the values involved.
fn describe(setup: &Setup, thread: usize, op: KickOp, result: KickResult, before: &RefKick, after: &RefKick) -> Step {
    let who = setup.threads.get(thread).map_or("flusher".to_string(), |t| format!("{}{thread}", t.role.name()));
    let step = |function: &str, detail: String| Step::new(who.clone(), function, detail);
    let c = &after.dontcache_dirty;
    match (op, result) {
        (KickOp::Dirty { inode, folio, cpu }, KickResult::Dirtied(became)) => step(
            "filemap_dirty_folio",
            if became {
                format!(
                    "inode {inode} folio {folio} dirtied on cpu{cpu}: WB_DONTCACHE_DIRTY count {} slots {:?}; WB_has_dirty_io {}",
                    c.count, c.slots, after.has_dirty_io as u8
                )
            } else {
                format!("inode {inode} folio {folio} already dirty")
            },
        ),
        (KickOp::MarkSync { inode }, _) => step(
            "__mark_inode_dirty",
            format!("inode {inode} I_DIRTY_SYNC; on the lists {}; WB_has_dirty_io {}", after.inodes[inode].listed as u8, after.has_dirty_io as u8),
        ),
        (KickOp::Kick { .. }, KickResult::Kicked { woke }) => step(
            "filemap_dontcache_kick_writeback",
            if woke {
                "WB_start_dontcache 0 -> 1, wb_wakeup queues a run".into()
            } else {
                format!(
                    "WB_start_dontcache = {}, wb_has_dirty_io = {} -> no wakeup",
                    before.start_dontcache as u8, before.has_dirty_io as u8
                )
            },
        ),
        (KickOp::Run { rescuer }, KickResult::Ran { queued, consumed }) => step(
            "wb_workfn",
            match (rescuer, consumed) {
                (true, _) => format!(
                    "{} run on the rescuer: writeback_inodes_wb, WB_start_dontcache stays {}; run queued after: {}",
                    if queued { "queued" } else { "periodic" },
                    after.start_dontcache as u8,
                    after.pending as u8
                ),
                (false, Some(nr)) => format!(
                    "{} run; wb_check_start_dontcache: WB_start_dontcache 1 -> 0; budget read = {nr}; after writeback count {} slots {:?}, WB_has_dirty_io {}",
                    if queued { "queued" } else { "periodic" },
                    c.count,
                    c.slots,
                    after.has_dirty_io as u8
                ),
                (false, None) => format!(
                    "{} run; WB_start_dontcache = 0 -> nothing to do",
                    if queued { "queued" } else { "periodic" }
                ),
            },
        ),
        (op, result) => step("?", format!("{op:?} -> {result:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_inode(folios: &[(FolioOf, i64)]) -> KickUniverse {
        KickUniverse { inodes: vec![folios.to_vec()], dirty_at_start: vec![false] }
    }

    #[test]
    fn approximate_budget_misses_pages_in_slots() {
        let knobs = kick_knobs(KickRevision::from_name("v5-approx-read").unwrap());
        let mut m = RefKick::new(&one_inode(&[(FolioOf::KICKED, 1)]), 2, 4, knobs);
        m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 1 });
        assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: true });
        assert_eq!(m.apply(KickOp::Run { rescuer: false }), KickResult::Ran { queued: true, consumed: Some(0) });
        assert!(m.lost_wakeup().is_some());
    }

    #[test]
    fn exact_budget_writes_and_depopulates() {
        let mut m = RefKick::new(
            &one_inode(&[(FolioOf::KICKED, 1), (FolioOf::KICKED, 1)]),
            2,
            4,
            kick_knobs(KickRevision::from_name("v7").unwrap()),
        );
        m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 0 });
        m.apply(KickOp::Kick { inode: 0 });
        m.apply(KickOp::Dirty { inode: 0, folio: 1, cpu: 1 });
        assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: false });
        assert_eq!(m.apply(KickOp::Run { rescuer: false }), KickResult::Ran { queued: true, consumed: Some(2) });
        assert!(!m.has_dirty_io && m.lost_wakeup().is_none() && m.dirty_tracking().is_none());
        // The lists are empty: v7's kick is skipped, the fix's is not.
        assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: false });
    }

    /// A fault's pages are counted and written like a writer's, but attributed apart: they are
    /// not owed an expedition, and their count-out before a consume is not the writer's.
    #[test]
    fn a_fault_counts_in_and_out_apart_from_the_kicked_pages() {
        let universe = one_inode(&[(FolioOf::FAULT, 1), (FolioOf::KICKED, 1), (FolioOf::KICKED, 1)]);
        let mut m = RefKick::new(&universe, 2, 4, kick_knobs(KickRevision::from_name("v7").unwrap()));
        m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 0 });
        assert!(m.lost_wakeup().is_none(), "no kick is owed for a fault's page");
        m.apply(KickOp::Dirty { inode: 0, folio: 1, cpu: 1 });
        assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: true });
        m.apply(KickOp::Run { rescuer: true });
        assert_eq!((m.removed, m.unkicked_removed, m.start_dontcache, m.pending), (1, 1, true, false));
        // The rescuer absorbed the wakeup; the next writer's kick finds the bit set.
        m.apply(KickOp::Dirty { inode: 0, folio: 2, cpu: 0 });
        assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: false });
        assert!(m.lost_wakeup().is_some());
    }

    #[test]
    fn the_rescuer_absorbs_the_wakeup_unless_the_run_requeues() {
        for (revision, lost) in [("v7", true), ("v7-fix-rescuer-requeue", false)] {
            let mut m = RefKick::new(
                &one_inode(&[(FolioOf::KICKED, 1), (FolioOf::KICKED, 1)]),
                2,
                4,
                kick_knobs(KickRevision::from_name(revision).unwrap()),
            );
            m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 0 });
            m.apply(KickOp::Kick { inode: 0 });
            m.apply(KickOp::Run { rescuer: true });
            m.apply(KickOp::Dirty { inode: 0, folio: 1, cpu: 0 });
            assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: false });
            assert_eq!(m.lost_wakeup().is_some(), lost, "{revision}");
        }
    }
}
