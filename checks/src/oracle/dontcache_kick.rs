//! Reference model of the DONTCACHE kick/consume protocol with the dirty-inode tracking and the
//! flusher's work item around it (seed 002 patch 3 over fs/fs-writeback.c and kernel/workqueue.c,
//! 6.12), every kernel call atomic: a folio dirtied, an inode marked dirty, a kick, a flusher run
//! (on a worker or on the rescuer), the timer firing.
//!
//! Two checks use it. The linear driver ([`KickOracle`]) runs every interleaving of whole calls of
//! each configuration with a flusher that looks at the worklist twice and then drains it, compares
//! wb-core with the reference after every call, and judges the properties at the end. The
//! liveness check ([`kick_liveness`]) builds the reference's whole state graph, with the flusher's
//! runs and the timer as processes of their own and no bound on how many runs happen, and looks
//! for lassos: fair cycles in which the flusher keeps running (`quiescence`), cycles of runs with
//! nothing to write when the workqueue owes no fairness (`no-idle-spin`), and states where the
//! flusher has stopped with a kicked page owed (`expedition`) or the lists wrong (`dirty-tracking`).

use super::liveness::{Graph, Lasso, Query, System};
use super::percpu_counter::RefPercpu;
use super::{placements, Oracle, Program};
use crate::differential::CoreKick;
use wb_core::trace::Step;
use wb_core::wb::wb_stat_batch_for;
use wb_models::bounds::Tier;
use wb_models::dontcache_kick::{self, FolioOf, Role, Setup, DIRTY_TRACKING, EXPEDITION, NO_IDLE_SPIN, QUIESCENCE};
use wb_models::outcome::Counterexample;

use wb_core::revision::KickRevision;
pub use wb_models::dontcache_kick::NAME;

/// What a revision does, in this model's own terms (not wb-core's knobs).
/// Sequentially the posted and folded kicks are the same call, the writer's barrier has no effect, and the late clear is indistinguishable from the early one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RefKnobs {
    pub budget: Budget,
    /// The kick tests `wb_has_dirty_io` first (v5..v7).
    pub dirty_io_guard: bool,
    /// When `wb_workfn` ends with a `wb_wakeup` for a kick still pending.
    pub requeue: RefRequeue,
    /// The consume sets the kick again when its writeback wrote fewer pages than its budget.
    pub keep_short: bool,
    /// The wb's first dirty inode wakes a pending kick (else it only arms the timer).
    pub first_dirty_wakes: bool,
}

/// What a consume computes its budget from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Budget {
    /// `wb_stat_sum`: count plus slots.
    Sum,
    /// `wb_stat`: the global count only.
    Read,
}

/// `wb_workfn`'s requeue for a pending kick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefRequeue {
    Never,
    WhileKicked,
    WhileKickedWithDirtyIo,
}

const V7_KNOBS: RefKnobs = RefKnobs {
    budget: Budget::Sum,
    dirty_io_guard: true,
    requeue: RefRequeue::Never,
    keep_short: false,
    first_dirty_wakes: false,
};

/// The knobs of a dontcache-kick revision (written out here, not derived from wb-core's).
pub fn kick_knobs(revision: KickRevision) -> RefKnobs {
    use KickRevision::*;
    let fix = RefKnobs { dirty_io_guard: false, ..V7_KNOBS };
    let requeue = RefKnobs { requeue: RefRequeue::WhileKicked, ..fix };
    let hold =
        RefKnobs { requeue: RefRequeue::WhileKickedWithDirtyIo, keep_short: true, first_dirty_wakes: true, ..fix };
    match revision {
        V7 | V7Posted | V7PostedNoMb | V7NoMb | V5LateClear => V7_KNOBS,
        V5ApproxRead => RefKnobs { budget: Budget::Read, ..V7_KNOBS },
        V7FixKick | V7FixKickPosted => fix,
        V7FixRescuerRequeue => RefKnobs { requeue: RefRequeue::WhileKicked, ..V7_KNOBS },
        V7FixKickRequeue | V7FixKickPostedRequeue | V7FixKickPostedRequeueNoMb | V7FixKickRequeueNoMb => requeue,
        V7FixKickHold | V7FixKickPostedHold => hold,
        V7FixKickHoldGuard => RefKnobs { dirty_io_guard: true, ..hold },
        V7FixKickHoldShort => RefKnobs { keep_short: false, ..hold },
        V7FixKickHoldNoRequeue => RefKnobs { requeue: RefRequeue::Never, ..hold },
        V7FixKickHoldIdleRequeue => RefKnobs { requeue: RefRequeue::WhileKicked, ..hold },
        V7FixKickHoldDelayed => RefKnobs { first_dirty_wakes: false, ..hold },
    }
}

/// The objects of one configuration: per inode, its folios (PG_dropbehind, kicked for; pages),
/// and whether it starts dirty (its last folio dirty, the inode on `b_dirty`, the timer armed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KickUniverse {
    pub inodes: Vec<Vec<(FolioOf, i64)>>,
    pub dirty_at_start: Vec<bool>,
}

/// One atomic call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KickOp {
    /// `filemap_dirty_folio` of folio `folio` of inode `inode`, on `cpu`.
    Dirty { inode: usize, folio: usize, cpu: usize },
    /// `__mark_inode_dirty(I_DIRTY_SYNC)`.
    MarkSync { inode: usize },
    /// `filemap_dontcache_kick_writeback` for `inode`, by the writer of folio `folio`.
    Kick { inode: usize, folio: usize },
    /// The run on the worklist, if one is, on the rescuer or a worker.
    Run { rescuer: bool },
    /// The armed timer fires, if one is armed and no run is on the worklist
    /// (`dirty_writeback_interval` passes).
    Fire,
    /// The flusher looks at the worklist: [`KickOp::Run`], or if nothing is queued
    /// [`KickOp::Fire`] and then the run it queued.
    Look { rescuer: bool },
    /// Runs on workers until nothing is queued (at most [`DRAIN_RUNS`]).
    Drain,
}

/// The most runs a [`KickOp::Drain`] makes.
pub const DRAIN_RUNS: usize = 8;

/// A flusher's two primitives, as the reference and the core each implement them: one run of
/// the queued work (if any), and the armed timer firing.
pub trait FlusherCalls {
    fn run(&mut self, rescuer: bool) -> Option<RanRun>;
    fn fire(&mut self) -> bool;
}

/// The flusher's calls of [`KickOp`] from its primitives (the same sequencing for both sides of
/// the comparison: it is the driver's, not the kernel's).
pub fn flusher_call(f: &mut impl FlusherCalls, op: KickOp) -> KickResult {
    match op {
        KickOp::Run { rescuer } => KickResult::Ran(f.run(rescuer).into_iter().collect()),
        KickOp::Fire => KickResult::Fired(f.fire()),
        KickOp::Look { rescuer } => match f.run(rescuer) {
            Some(r) => KickResult::Ran(vec![r]),
            None => KickResult::Ran(if f.fire() { f.run(rescuer).into_iter().collect() } else { Vec::new() }),
        },
        KickOp::Drain => {
            let mut runs = Vec::new();
            while runs.len() < DRAIN_RUNS {
                let Some(r) = f.run(false) else { break };
                runs.push(r);
            }
            KickResult::Ran(runs)
        }
        _ => unreachable!("not a flusher call: {op:?}"),
    }
}

/// What one flusher run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RanRun {
    pub rescuer: bool,
    /// The budget its consume read and the pages that consume's writeback wrote, if it cleared
    /// the kick.
    pub consumed: Option<(i64, i64)>,
    pub wrote: i64,
    pub requeued: bool,
}

/// What one call returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KickResult {
    /// Whether the folio went from clean to dirty.
    Dirtied(bool),
    Marked,
    /// The kick woke the flusher.
    Kicked {
        woke: bool,
    },
    /// The runs that happened (none if nothing was queued).
    Ran(Vec<RanRun>),
    /// Whether a timer fired.
    Fired(bool),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RefFolio {
    pub dontcache: bool,
    /// A kick follows its dirtying (a dontcache-writer's folio, not a fault's).
    pub kicked: bool,
    pub pages: i64,
    pub dirty: bool,
    /// Ghost (`expedition`): its writer kicked while its pages were counted, and no run in the
    /// kick's epoch wrote them or was credited with them since; a timer fired while it was owed;
    /// it was written only after that.
    pub owed: bool,
    pub stale: bool,
    pub late: bool,
    /// Ghost: a consume after its count was credited with it (its budget covered it and was
    /// written in full on older inodes).
    pub covered: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RefKick {
    pub start_dontcache: bool,
    pub has_dirty_io: bool,
    /// A flusher run is on the worklist.
    pub pending: bool,
    /// The timer `wb_wakeup_delayed` armed (meaningful only with no run on the worklist).
    pub timer: bool,
    pub dontcache_dirty: RefPercpu,
    pub inodes: Vec<RefInode>,
    pub clock: usize,
    /// Ghost (`no-idle-spin`): a run wrote nothing and queued itself again with nothing listed.
    pub idle_requeue: bool,
    /// Ghost: the run on the worklist is there only because the timer fired.
    pub timer_run: bool,
    pub knobs: RefKnobs,
}

/// The flusher's CPU (its count-outs go to this slot).
pub const FLUSHER_CPU: usize = 0;

impl FlusherCalls for RefKick {
    fn run(&mut self, rescuer: bool) -> Option<RanRun> {
        self.run_queued(rescuer)
    }
    fn fire(&mut self) -> bool {
        self.fire_timer()
    }
}

impl RefKick {
    pub fn new(universe: &KickUniverse, nr_cpus: usize, batch: i64, knobs: RefKnobs) -> Self {
        let mut m = RefKick {
            start_dontcache: false,
            has_dirty_io: false,
            pending: false,
            timer: false,
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
                            owed: false,
                            stale: false,
                            late: false,
                            covered: false,
                        })
                        .collect(),
                })
                .collect(),
            clock: 0,
            idle_requeue: false,
            timer_run: false,
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

    /// `wb_wakeup`: a run on the worklist now (an armed timer is taken back).
    fn wakeup(&mut self) {
        self.pending = true;
        self.timer = false;
        self.timer_run = false;
    }

    /// `wb_wakeup_delayed`: the timer, unless a run is already pending.
    fn wakeup_delayed(&mut self) {
        if !self.pending {
            self.timer = true;
        }
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
            if !self.has_dirty_io {
                self.has_dirty_io = true;
                if self.knobs.first_dirty_wakes && self.start_dontcache {
                    self.wakeup();
                } else {
                    self.wakeup_delayed();
                }
            }
        }
    }

    /// The flusher's writeback of `nr` pages from the oldest listed inodes: each written whole
    /// (its DONTCACHE pages counted out on the flusher's CPU), its dirty bits cleared, taken off
    /// the lists; `has_dirty_io` cleared once the lists are empty. Returns the pages written.
    fn writeback(&mut self, nr: i64) -> i64 {
        let mut order: Vec<usize> = (0..self.inodes.len()).filter(|&i| self.inodes[i].listed).collect();
        order.sort_by_key(|&i| self.inodes[i].dirtied_when);
        let (mut left, mut wrote) = (nr, 0);
        for i in order {
            if left <= 0 {
                break;
            }
            let inode = &mut self.inodes[i];
            for f in inode.folios.iter_mut().filter(|f| f.dirty) {
                f.dirty = false;
                left -= f.pages;
                wrote += f.pages;
                if f.dontcache {
                    self.dontcache_dirty.add(FLUSHER_CPU, -f.pages);
                }
                if f.owed {
                    f.owed = false;
                    f.late |= f.stale;
                }
            }
            inode.dirty_sync = false;
            inode.dirty_pages = false;
            inode.listed = false;
        }
        if self.inodes.iter().all(|i| !i.listed) {
            self.has_dirty_io = false;
        }
        wrote
    }

    /// One run of the queued work, if one is queued.
    fn run_queued(&mut self, rescuer: bool) -> Option<RanRun> {
        if !std::mem::replace(&mut self.pending, false) {
            return None;
        }
        self.timer = false;
        self.timer_run = false;
        let (consumed, wrote) = if rescuer {
            (None, self.writeback(1024))
        } else if std::mem::replace(&mut self.start_dontcache, false) {
            let nr = match self.knobs.budget {
                Budget::Sum => self.dontcache_dirty.sum_positive(),
                Budget::Read => self.dontcache_dirty.read_positive(),
            };
            // Kicked pages counted before the writeback (the call is atomic, so every count came
            // before the consume), owed or with their kick still to come.
            let owed: Vec<(usize, usize)> = self.counted_kicked();
            let wrote = if nr != 0 { self.writeback(nr) } else { 0 };
            let owed_pages: i64 = owed.iter().map(|&(i, f)| self.inodes[i].folios[f].pages).sum();
            if nr >= owed_pages && wrote >= nr {
                // The budget covered them and was spent in full, oldest inodes first: the design.
                for (i, f) in owed {
                    let f = &mut self.inodes[i].folios[f];
                    f.owed = false;
                    f.covered = true;
                }
            }
            if self.knobs.keep_short && wrote < nr {
                self.start_dontcache = true;
            }
            (Some((nr, wrote)), wrote)
        } else {
            (None, 0)
        };
        let requeued = match self.knobs.requeue {
            RefRequeue::Never => false,
            RefRequeue::WhileKicked => self.start_dontcache,
            RefRequeue::WhileKickedWithDirtyIo => self.start_dontcache && self.has_dirty_io,
        };
        if requeued {
            self.wakeup();
            if wrote == 0 && !self.has_dirty_io {
                self.idle_requeue = true;
            }
        } else if self.has_dirty_io {
            self.wakeup_delayed();
        }
        Some(RanRun { rescuer, consumed, wrote, requeued })
    }

    /// The kicked folios still dirty (counted), except the owed ones a timer made late.
    fn counted_kicked(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for (i, inode) in self.inodes.iter().enumerate() {
            for (f, folio) in inode.folios.iter().enumerate() {
                if folio.kicked && folio.dirty && !(folio.owed && folio.stale) {
                    v.push((i, f));
                }
            }
        }
        v
    }

    /// The timer fires: time passes, so every page still owed is late.
    fn fire_timer(&mut self) -> bool {
        if self.pending || !self.timer {
            return false;
        }
        self.timer = false;
        self.pending = true;
        self.timer_run = true;
        for f in self.inodes.iter_mut().flat_map(|i| i.folios.iter_mut()) {
            if f.owed {
                f.stale = true;
            }
        }
        true
    }

    pub fn apply(&mut self, op: KickOp) -> KickResult {
        match op {
            KickOp::Dirty { inode, folio, cpu } => {
                let f = &mut self.inodes[inode].folios[folio];
                if f.dirty {
                    return KickResult::Dirtied(false);
                }
                f.dirty = true;
                f.covered = false;
                if f.dontcache {
                    let pages = f.pages;
                    self.dontcache_dirty.add(cpu, pages);
                }
                self.mark_inode_dirty(inode, true);
                KickResult::Dirtied(true)
            }
            KickOp::MarkSync { inode } => {
                self.mark_inode_dirty(inode, false);
                KickResult::Marked
            }
            KickOp::Kick { inode, folio } => {
                let woke = (!self.knobs.dirty_io_guard || self.has_dirty_io) && !self.start_dontcache;
                if woke {
                    self.start_dontcache = true;
                    self.wakeup();
                }
                // The kick has returned: its writer's pages, if still counted, are owed, unless a
                // consume after their count was credited with them.
                let f = &mut self.inodes[inode].folios[folio];
                if f.dirty && !f.owed && !f.covered {
                    f.owed = true;
                    f.stale = false;
                }
                KickResult::Kicked { woke }
            }
            KickOp::Run { .. } | KickOp::Fire | KickOp::Look { .. } | KickOp::Drain => flusher_call(self, op),
        }
    }

    /// `expedition` once the flusher has stopped: `None` if it holds.
    pub fn expedition(&self) -> Option<String> {
        let folios = || {
            self.inodes.iter().enumerate().flat_map(|(i, n)| n.folios.iter().enumerate().map(move |(f, x)| (i, f, x)))
        };
        let owed: Vec<String> =
            folios().filter(|(_, _, f)| f.owed).map(|(i, f, _)| format!("inode {i} folio {f}")).collect();
        let late: Vec<String> =
            folios().filter(|(_, _, f)| f.late).map(|(i, f, _)| format!("inode {i} folio {f}")).collect();
        if owed.is_empty() && late.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        if !owed.is_empty() {
            parts.push(format!(
                "{} kicked and still owed an expedition when the flusher stopped (WB_start_dontcache {}, timer armed {})",
                owed.join(", "),
                self.start_dontcache as u8,
                self.timer as u8
            ));
        }
        if !late.is_empty() {
            parts.push(format!("{} written only after a timer fired", late.join(", ")));
        }
        Some(parts.join("; "))
    }

    /// `no-idle-spin`: `None` if it holds.
    pub fn idle_spin(&self) -> Option<String> {
        self.idle_requeue
            .then(|| "a run wrote nothing and queued itself again with nothing on the I/O lists".to_string())
    }

    /// `quiescence` once the other threads are done and the flusher has drained: `None` if it holds.
    pub fn quiescence(&self) -> Option<String> {
        self.pending.then(|| format!("a run is still queued after {DRAIN_RUNS} runs of the drain"))
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

    /// The same state with `dirtied_when` renumbered by rank among the listed inodes (0 for the
    /// others) and the clock at the largest: the order is all writeback reads, so states that
    /// differ only in absolute ticks behave alike (a finite graph for [`kick_liveness`]).
    fn normalized(mut self) -> Self {
        let mut listed: Vec<usize> = (0..self.inodes.len()).filter(|&i| self.inodes[i].listed).collect();
        listed.sort_by_key(|&i| self.inodes[i].dirtied_when);
        for inode in self.inodes.iter_mut() {
            inode.dirtied_when = 0;
        }
        for (rank, &i) in listed.iter().enumerate() {
            self.inodes[i].dirtied_when = rank + 1;
        }
        self.clock = listed.len();
        self
    }
}

/// The size of the `dontcache-kick` oracle runs: every configuration of the scenario's loom scope,
/// each thread running `ops` operations, the flusher two looks (each on a worker or on the
/// rescuer) and a drain, every CPU for each DONTCACHE adder. The batch is the kernel's
/// WB_STAT_BATCH for 2 CPUs (16): with one-page folios no add reaches the fold; the proptest
/// comparison (checks/tests) draws folio sizes beyond the batch and covers it.
#[derive(Debug, Clone, Copy)]
pub struct KickOracleConfig {
    pub ops: usize,
    pub looks: usize,
    pub nr_cpus: usize,
    pub batch: i32,
}

impl KickOracleConfig {
    pub fn for_tier(tier: Tier) -> Self {
        let nr_cpus = 2;
        KickOracleConfig {
            ops: if tier == Tier::Quick { 1 } else { 2 },
            looks: 2,
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

/// The calls of each thread of `setup` (`ops` times its role's calls), DONTCACHE adders on `cpus`.
fn thread_calls(setup: &Setup, cpus: &[usize], ops: usize) -> Vec<Vec<KickOp>> {
    let dc: Vec<usize> = (0..setup.threads.len()).filter(|&k| setup.threads[k].role.adds()).collect();
    setup
        .threads
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let cpu = dc.iter().position(|&d| d == k).map_or(0, |j| cpus[j]);
            let dirty = KickOp::Dirty { inode: t.inode, folio: t.folio, cpu };
            let calls: Vec<KickOp> = match t.role {
                Role::Dontcache => vec![dirty, KickOp::Kick { inode: t.inode, folio: t.folio }],
                Role::Buffered | Role::DropbehindFault => vec![dirty],
                Role::InodeDirtier => vec![KickOp::MarkSync { inode: t.inode }],
            };
            calls.iter().copied().cycle().take(calls.len() * ops).collect()
        })
        .collect()
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
            let adders = setup.threads.iter().filter(|t| t.role.adds()).count();
            for cpus in placements(adders, cfg.nr_cpus) {
                for kinds in 0..1usize << cfg.looks {
                    let mut threads = thread_calls(&setup, &cpus, cfg.ops);
                    threads.push((0..cfg.looks).map(|l| KickOp::Look { rescuer: kinds >> l & 1 == 1 }).collect());
                    let placement =
                        cpus.iter().enumerate().map(|(k, c)| format!("adder{k} cpu{c}")).collect::<Vec<_>>().join(", ");
                    programs.push(Program {
                        configuration: setup.label(),
                        placement,
                        threads,
                        epilogue: vec![KickOp::Drain],
                        setup: KickProgram { universe: kick_universe(&setup), setup: setup.clone(), cfg },
                    });
                }
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
            ("flusher_looks".into(), cfg.looks as u64),
            ("drain_runs".into(), DRAIN_RUNS as u64),
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
        let step = describe(&p.setup, thread, op, &result, &before, &r.0);
        r.1 = Some(result);
        step
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
        [
            (EXPEDITION, r.0.expedition()),
            (QUIESCENCE, r.0.quiescence()),
            (NO_IDLE_SPIN, r.0.idle_spin()),
            (DIRTY_TRACKING, r.0.dirty_tracking()),
        ]
        .into_iter()
        .filter_map(|(p, m)| Some((p, m?)))
        .collect()
    }
}

/// One reference step as a trace step with the values involved.
fn describe(setup: &Setup, thread: usize, op: KickOp, result: &KickResult, before: &RefKick, after: &RefKick) -> Step {
    let who = setup.threads.get(thread).map_or("flusher".to_string(), |t| format!("{}{thread}", t.role.name()));
    let step = |function: &str, detail: String| Step::new(who.clone(), function, detail);
    let c = &after.dontcache_dirty;
    match (op, result) {
        (KickOp::Dirty { inode, folio, cpu }, KickResult::Dirtied(became)) => step(
            "filemap_dirty_folio",
            if *became {
                format!(
                    "inode {inode} folio {folio} dirtied on cpu{cpu}: WB_DONTCACHE_DIRTY count {} slots {:?}; WB_has_dirty_io {}{}",
                    c.count,
                    c.slots,
                    after.has_dirty_io as u8,
                    wakeup_note(before, after)
                )
            } else {
                format!("inode {inode} folio {folio} already dirty")
            },
        ),
        (KickOp::MarkSync { inode }, _) => step(
            "__mark_inode_dirty",
            format!(
                "inode {inode} I_DIRTY_SYNC; on the lists {}; WB_has_dirty_io {}{}",
                after.inodes[inode].listed as u8,
                after.has_dirty_io as u8,
                wakeup_note(before, after)
            ),
        ),
        (KickOp::Kick { .. }, KickResult::Kicked { woke }) => step(
            "filemap_dontcache_kick_writeback",
            if *woke {
                "WB_start_dontcache 0 -> 1, wb_wakeup queues a run".into()
            } else {
                format!(
                    "WB_start_dontcache = {}, wb_has_dirty_io = {} -> no wakeup",
                    before.start_dontcache as u8, before.has_dirty_io as u8
                )
            },
        ),
        (KickOp::Fire, KickResult::Fired(fired)) => step(
            "delayed_work_timer_fn",
            if *fired { "the timer fires: a run queued".into() } else { "no timer armed".into() },
        ),
        (KickOp::Run { .. } | KickOp::Look { .. } | KickOp::Drain, KickResult::Ran(runs)) => step(
            "wb_workfn",
            if runs.is_empty() {
                "nothing queued, no timer to fire".to_string()
            } else {
                let fired = matches!(op, KickOp::Look { .. }) && !before.pending;
                let runs: Vec<String> = runs.iter().map(describe_run).collect();
                format!(
                    "{}{}; after: WB_start_dontcache {}, count {} slots {:?}, WB_has_dirty_io {}, run queued {}, timer {}",
                    if fired { "the timer fires; " } else { "" },
                    runs.join("; "),
                    after.start_dontcache as u8,
                    c.count,
                    c.slots,
                    after.has_dirty_io as u8,
                    after.pending as u8,
                    after.timer as u8
                )
            },
        ),
        (op, result) => step("?", format!("{op:?} -> {result:?}")),
    }
}

fn describe_run(r: &RanRun) -> String {
    let on = if r.rescuer { "run on the rescuer" } else { "run on a worker" };
    let what = match r.consumed {
        Some((nr, wrote)) => format!("wb_check_start_dontcache: WB_start_dontcache 1 -> 0, budget {nr}, wrote {wrote}"),
        None if r.rescuer => format!("writeback_inodes_wb wrote {}", r.wrote),
        None => "WB_start_dontcache = 0: nothing to consume".into(),
    };
    format!("{on}: {what}{}", if r.requeued { "; requeued (wb_wakeup)" } else { "" })
}

fn wakeup_note(before: &RefKick, after: &RefKick) -> &'static str {
    match (before.pending, after.pending, before.timer || before.pending, after.timer) {
        (false, true, _, _) => "; first dirty inode: WB_start_dontcache set -> wb_wakeup",
        (_, false, false, true) => "; first dirty inode: wb_wakeup_delayed arms the timer",
        _ => "",
    }
}

/// The reference's state graph for one program: the threads' calls in any order, the flusher's
/// runs (on a worker or on the rescuer) whenever one is queued, and the timer whenever it is
/// armed, with no bound on the runs.
struct KickSystem {
    threads: Vec<Vec<KickOp>>,
    initial: RefKick,
}

/// The processes of [`KickSystem`] after the threads: a worker, the rescuer, the timer.
const WORKER: usize = 0;
const RESCUER: usize = 1;
const TIMER: usize = 2;

impl KickSystem {
    fn worker(&self) -> usize {
        self.threads.len() + WORKER
    }
    fn rescuer(&self) -> usize {
        self.threads.len() + RESCUER
    }
    fn timer(&self) -> usize {
        self.threads.len() + TIMER
    }
}

/// A state of [`KickSystem`]: the reference and each thread's next call.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct KickState {
    model: RefKick,
    pcs: Vec<usize>,
}

/// A transition of [`KickSystem`]: the call, and for a run whether only the timer released it.
type KickAction = (KickOp, bool);

impl System for KickSystem {
    type State = KickState;
    type Action = KickAction;

    fn initial(&self) -> KickState {
        KickState { model: self.initial.clone().normalized(), pcs: vec![0; self.threads.len()] }
    }

    fn successors(&self, s: &KickState) -> Vec<(usize, KickAction, KickState)> {
        let mut out = Vec::new();
        let step = |f: &dyn Fn(&mut RefKick)| {
            let mut next = s.clone();
            f(&mut next.model);
            next.model = next.model.normalized();
            next
        };
        for (t, calls) in self.threads.iter().enumerate() {
            if let Some(&op) = calls.get(s.pcs[t]) {
                let mut next = step(&|m| {
                    m.apply(op);
                });
                next.pcs[t] += 1;
                out.push((t, (op, false), next));
            }
        }
        if s.model.pending {
            for (p, rescuer) in [(self.worker(), false), (self.rescuer(), true)] {
                let next = step(&|m| {
                    m.run(rescuer);
                });
                out.push((p, (KickOp::Run { rescuer }, s.model.timer_run), next));
            }
        } else if s.model.timer {
            let next = step(&|m| {
                m.fire();
            });
            out.push((self.timer(), (KickOp::Fire, false), next));
        }
        out
    }
}

/// The most states the liveness check explores per program.
const MAX_STATES: usize = 2_000_000;

/// The liveness check of `dontcache-kick` for `revision` at `tier`: per program of the oracle's
/// scope, the reference's state graph, and in it (first found per property, with the lasso or
/// the path as its steps): a cycle the flusher keeps running in under weak fairness of the threads,
/// the worker and the timer (`quiescence`); a cycle of runs with nothing written and no fairness
/// for the workqueue (`no-idle-spin`: the rescuer may take every run); and a state where the
/// threads are done and nothing is queued with a page owed (`expedition`) or the lists wrong
/// (`dirty-tracking`).
pub fn kick_liveness(revision: KickRevision, tier: Tier) -> Result<Vec<Counterexample>, String> {
    let cfg = KickOracleConfig::for_tier(tier);
    let knobs = kick_knobs(revision);
    let mut found: Vec<Counterexample> = Vec::new();
    let mut keep = |cx: Counterexample| {
        if !found.iter().any(|f| f.property == cx.property) {
            found.push(cx);
        }
    };
    for (c, setup) in dontcache_kick::kick_scope().into_iter().enumerate() {
        let adders = setup.threads.iter().filter(|t| t.role.adds()).count();
        for (pl, cpus) in placements(adders, cfg.nr_cpus).into_iter().enumerate() {
            let system = kick_system(&setup, &cpus, &cfg, knobs);
            let graph = Graph::explore(&system, MAX_STATES)?;
            let handle = |property: &str, prefix: &[usize], cycle: Option<&[usize]>| {
                OracleHandle {
                    tier,
                    property: property.to_string(),
                    configuration: c,
                    placement: pl,
                    prefix: prefix.to_vec(),
                    cycle: cycle.map(<[usize]>::to_vec),
                }
                .encode()
            };
            let n = system.threads.len();
            let threads_done = |s: &KickState| s.pcs.iter().zip(&system.threads).all(|(pc, t)| *pc == t.len());
            let is_run = |p: usize| p == system.worker() || p == system.rescuer();
            let fair: Vec<usize> = (0..n).chain([system.worker(), system.timer()]).collect();
            let writers_and_timer: Vec<usize> = (0..n).chain([system.timer()]).collect();
            let label = |property: &'static str, message: String, steps: Vec<Step>, replay: String| {
                let mut cx = Counterexample::sequential(
                    property,
                    message,
                    "one CPU (the oracle's calls are atomic)".into(),
                    steps,
                );
                cx.configuration = setup.label();
                cx.replay = Some(replay);
                cx
            };
            let any = |_: &KickState| true;
            let all_edges = |_: usize, _: &KickAction| true;
            // The flusher never stops, under fairness: a cycle with a run not released only by
            // the timer (the timer's runs are the periodic writeback, every 5 s by design).
            let immediate = |p: usize, a: &KickAction| is_run(p) && !a.1;
            let q = Query { state: &any, edge: &all_edges, busy: &immediate, weakly_fair: &fair };
            if let Some(l) = graph.find_lasso(&q) {
                keep(label(
                    QUIESCENCE,
                    QUIESCENCE_LASSO.into(),
                    lasso_steps(&setup, &l),
                    handle(QUIESCENCE, &processes(&l.prefix), Some(&processes(&l.cycle))),
                ));
            }
            // The spin: runs that write nothing, forever, when the rescuer may take every run.
            let runs_only = |p: usize, _: &KickAction| is_run(p);
            let s = Query { state: &any, edge: &runs_only, busy: &runs_only, weakly_fair: &writers_and_timer };
            if let Some(l) = graph.find_lasso(&s) {
                keep(label(
                    NO_IDLE_SPIN,
                    SPIN_LASSO.into(),
                    lasso_steps(&setup, &l),
                    handle(NO_IDLE_SPIN, &processes(&l.prefix), Some(&processes(&l.cycle))),
                ));
            }
            let stopped = |s: &KickState| threads_done(s) && !s.model.pending;
            for (property, judge) in END_STATE_JUDGES {
                if let Some(path) = graph.path_to(|s| stopped(s) && judge(&s.model).is_some()) {
                    let last = path.steps.last().map_or(&path.start, |s| &s.to);
                    let message = judge(&last.model).expect("the path ends where the property fails");
                    let steps = path.steps.iter().map(|st| step_of(&setup, st.process, st.action.0, &st.to)).collect();
                    let replay = handle(property, &processes(&path.steps), None);
                    keep(label(property, format!("{message} (a state of the unbounded graph)"), steps, replay));
                }
            }
        }
    }
    Ok(found)
}

const QUIESCENCE_LASSO: &str = "under weak fairness of every thread, the workqueue (a worker eventually runs) and the \
    timer, the flusher runs forever: the lasso's loop repeats";
const SPIN_LASSO: &str = "with the workqueue owed no fairness (the rescuer takes every run under memory pressure), \
    the flusher's runs write nothing and queue the work again forever: the lasso's loop";

/// The end-state properties the liveness check judges where the flusher has stopped.
type Judge = fn(&RefKick) -> Option<String>;
const END_STATE_JUDGES: [(&str, Judge); 2] =
    [(EXPEDITION, RefKick::expedition), (DIRTY_TRACKING, RefKick::dirty_tracking)];

/// The reference's state graph of one configuration and placement.
fn kick_system(setup: &Setup, cpus: &[usize], cfg: &KickOracleConfig, knobs: RefKnobs) -> KickSystem {
    KickSystem {
        threads: thread_calls(setup, cpus, cfg.ops),
        initial: RefKick::new(&kick_universe(setup), cfg.nr_cpus, i64::from(cfg.batch), knobs),
    }
}

fn processes(steps: &[super::liveness::Step<KickState, KickAction>]) -> Vec<usize> {
    steps.iter().map(|s| s.process).collect()
}

/// An oracle counterexample's replay handle: `oracle1:TIER:PROPERTY:CONFIGURATION:PLACEMENT:PREFIX`
/// or, for a lasso, `...:PREFIX|CYCLE`, the transitions as the processes that take them
/// (comma-separated: a thread's number takes its next call; after the threads, the worker, the
/// rescuer and the timer). Each process has at most one transition in a state, so the processes name
/// the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleHandle {
    pub tier: Tier,
    pub property: String,
    pub configuration: usize,
    pub placement: usize,
    pub prefix: Vec<usize>,
    pub cycle: Option<Vec<usize>>,
}

impl OracleHandle {
    pub fn encode(&self) -> String {
        let list = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        let mut out = format!(
            "oracle1:{}:{}:{}:{}:{}",
            self.tier.name(),
            self.property,
            self.configuration,
            self.placement,
            list(&self.prefix)
        );
        if let Some(cycle) = &self.cycle {
            out += &format!("|{}", list(cycle));
        }
        out
    }

    pub fn decode(text: &str) -> Result<Self, String> {
        let bad = |why: &str| {
            format!("malformed oracle handle '{text}': {why} (expected oracle1:TIER:PROPERTY:CONFIGURATION:PLACEMENT:PREFIX[|CYCLE])")
        };
        let body = text.strip_prefix("oracle1:").ok_or_else(|| bad("no oracle1: prefix"))?;
        let parts: Vec<&str> = body.splitn(5, ':').collect();
        let [tier, property, configuration, placement, path] = parts[..] else { return Err(bad("too few fields")) };
        let tier = Tier::from_name(tier).ok_or_else(|| bad("unknown tier"))?;
        let number = |s: &str| s.parse::<usize>().map_err(|_| bad(&format!("'{s}' is not a number")));
        let list = |s: &str| -> Result<Vec<usize>, String> {
            if s.is_empty() {
                Ok(Vec::new())
            } else {
                s.split(',').map(number).collect()
            }
        };
        let (prefix, cycle) = match path.split_once('|') {
            Some((p, c)) => (list(p)?, Some(list(c)?)),
            None => (list(path)?, None),
        };
        if cycle.as_ref().is_some_and(Vec::is_empty) {
            return Err(bad("an empty cycle"));
        }
        Ok(OracleHandle {
            tier,
            property: property.to_string(),
            configuration: number(configuration)?,
            placement: number(placement)?,
            prefix,
            cycle,
        })
    }
}

/// Replay an oracle counterexample of `dontcache-kick` from its handle: rebuild the configuration's
/// state graph system, take the named transitions (each must be enabled), and check what the
/// handle claims: a lasso's cycle returns to its first state; a path ends in a stopped state where
/// its property fails. Returns the configuration, the steps (a lasso with its markers) and the
/// violation.
pub fn kick_replay(revision: KickRevision, text: &str) -> Result<(String, Vec<Step>, String), String> {
    let h = OracleHandle::decode(text)?;
    let cfg = KickOracleConfig::for_tier(h.tier);
    let scope = dontcache_kick::kick_scope();
    let setup = scope.get(h.configuration).ok_or_else(|| {
        format!("configuration {} is not in the scope ({} configurations)", h.configuration, scope.len())
    })?;
    let adders = setup.threads.iter().filter(|t| t.role.adds()).count();
    let all = placements(adders, cfg.nr_cpus);
    let cpus = all
        .get(h.placement)
        .ok_or_else(|| format!("placement {} is not one of the configuration's {}", h.placement, all.len()))?;
    let system = kick_system(setup, cpus, &cfg, kick_knobs(revision));
    let walk = |from: KickState, path: &[usize], steps: &mut Vec<Step>| -> Result<KickState, String> {
        let mut state = from;
        for (i, &p) in path.iter().enumerate() {
            let (_, action, next) = system
                .successors(&state)
                .into_iter()
                .find(|(q, _, _)| *q == p)
                .ok_or_else(|| format!("step {}: process {p} has no transition enabled there", i + 1))?;
            steps.push(step_of(setup, p, action.0, &next));
            state = next;
        }
        Ok(state)
    };
    let mut steps = Vec::new();
    let start = walk(system.initial(), &h.prefix, &mut steps)?;
    let message = match &h.cycle {
        Some(cycle) => {
            steps.push(Step::new(
                "lasso".to_string(),
                "loop",
                "the loop starts here: the steps below repeat forever".to_string(),
            ));
            let end = walk(start.clone(), cycle, &mut steps)?;
            if end != start {
                return Err("the cycle does not return to its first state".into());
            }
            steps.push(Step::new("lasso".to_string(), "loop", "back at the loop's first state".to_string()));
            match h.property.as_str() {
                QUIESCENCE => QUIESCENCE_LASSO.to_string(),
                NO_IDLE_SPIN => SPIN_LASSO.to_string(),
                other => {
                    return Err(format!("a lasso of property '{other}': only quiescence and no-idle-spin have lassos"))
                }
            }
        }
        None => {
            let (_, judge) = END_STATE_JUDGES
                .iter()
                .find(|(p, _)| *p == h.property)
                .ok_or_else(|| format!("no end-state property '{}' (expedition, dirty-tracking)", h.property))?;
            if !start.pcs.iter().zip(&system.threads).all(|(pc, t)| *pc == t.len()) || start.model.pending {
                return Err("the path does not end where the flusher has stopped".into());
            }
            let message = judge(&start.model).ok_or_else(|| format!("{} holds at the path's end", h.property))?;
            format!("{message} (a state of the unbounded graph)")
        }
    };
    Ok((setup.label(), steps, message))
}

/// One transition of the graph as a trace step.
fn step_of(setup: &Setup, process: usize, op: KickOp, to: &KickState) -> Step {
    let n = setup.threads.len();
    let who = match process.checked_sub(n) {
        None => format!("{}{process}", setup.threads[process].role.name()),
        Some(WORKER) => "worker".into(),
        Some(RESCUER) => "rescuer".into(),
        Some(_) => "timer".into(),
    };
    let m = &to.model;
    Step::new(
        who,
        "oracle",
        format!(
            "{op:?}: WB_start_dontcache {}, run queued {}, timer {}, WB_has_dirty_io {}, dirty folios {:?}",
            m.start_dontcache as u8,
            m.pending as u8,
            m.timer as u8,
            m.has_dirty_io as u8,
            m.inodes.iter().map(|i| i.folios.iter().filter(|f| f.dirty).count()).collect::<Vec<_>>()
        ),
    )
}

/// A lasso as trace steps: the prefix, a marker, the loop, a marker.
fn lasso_steps(setup: &Setup, l: &Lasso<KickState, KickAction>) -> Vec<Step> {
    let mut steps: Vec<Step> = l.prefix.iter().map(|s| step_of(setup, s.process, s.action.0, &s.to)).collect();
    steps.push(Step::new(
        "lasso".to_string(),
        "loop",
        "the loop starts here: the steps below repeat forever".to_string(),
    ));
    steps.extend(l.cycle.iter().map(|s| step_of(setup, s.process, s.action.0, &s.to)));
    steps.push(Step::new("lasso".to_string(), "loop", "back at the loop's first state".to_string()));
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_inode(folios: &[(FolioOf, i64)]) -> KickUniverse {
        KickUniverse { inodes: vec![folios.to_vec()], dirty_at_start: vec![false] }
    }

    fn knobs(name: &str) -> RefKnobs {
        kick_knobs(KickRevision::from_name(name).unwrap())
    }

    #[test]
    fn approximate_budget_misses_pages_in_slots() {
        let mut m = RefKick::new(&one_inode(&[(FolioOf::KICKED, 1)]), 2, 4, knobs("v5-approx-read"));
        m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 1 });
        assert_eq!(m.apply(KickOp::Kick { inode: 0, folio: 0 }), KickResult::Kicked { woke: true });
        let ran = m.apply(KickOp::Run { rescuer: false });
        assert_eq!(
            ran,
            KickResult::Ran(vec![RanRun { rescuer: false, consumed: Some((0, 0)), wrote: 0, requeued: false }])
        );
        assert!(m.expedition().is_some());
    }

    #[test]
    fn exact_budget_writes_and_depopulates() {
        let mut m = RefKick::new(&one_inode(&[(FolioOf::KICKED, 1), (FolioOf::KICKED, 1)]), 2, 4, knobs("v7"));
        m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 0 });
        m.apply(KickOp::Kick { inode: 0, folio: 0 });
        m.apply(KickOp::Dirty { inode: 0, folio: 1, cpu: 1 });
        assert_eq!(m.apply(KickOp::Kick { inode: 0, folio: 1 }), KickResult::Kicked { woke: false });
        let ran = m.apply(KickOp::Run { rescuer: false });
        assert_eq!(
            ran,
            KickResult::Ran(vec![RanRun { rescuer: false, consumed: Some((2, 2)), wrote: 2, requeued: false }])
        );
        assert!(!m.has_dirty_io && m.expedition().is_none() && m.dirty_tracking().is_none());
        // The lists are empty: v7's kick is skipped.
        assert_eq!(m.apply(KickOp::Kick { inode: 0, folio: 1 }), KickResult::Kicked { woke: false });
    }

    /// The rescuer absorbs the wakeup; the timer's run writes the page late (v7), unless the run
    /// requeues for the pending kick.
    #[test]
    fn the_rescuer_absorbs_the_wakeup_unless_the_run_requeues() {
        for (revision, owed) in [("v7", true), ("v7-fix-rescuer-requeue", false)] {
            let mut m = RefKick::new(&one_inode(&[(FolioOf::KICKED, 1), (FolioOf::KICKED, 1)]), 2, 4, knobs(revision));
            m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 0 });
            m.apply(KickOp::Kick { inode: 0, folio: 0 });
            m.apply(KickOp::Run { rescuer: true });
            m.apply(KickOp::Dirty { inode: 0, folio: 1, cpu: 0 });
            assert_eq!(m.apply(KickOp::Kick { inode: 0, folio: 1 }), KickResult::Kicked { woke: false });
            m.apply(KickOp::Drain);
            assert_eq!(m.expedition().is_some(), owed, "{revision}");
            if owed {
                assert!(m.timer && m.apply(KickOp::Fire) == KickResult::Fired(true));
                m.apply(KickOp::Run { rescuer: false });
                assert!(m.expedition().unwrap().contains("written only after a timer fired"), "{revision}");
            }
        }
    }

    /// v7-fix-kick-requeue's rescuer requeues while the kick is set, with nothing to write: the
    /// unbounded graph has the spin as a lasso; the fix's has none.
    #[test]
    fn the_rescuer_spin_is_a_lasso_and_the_fix_has_none() {
        let spin = kick_liveness(KickRevision::V7FixKickRequeue, Tier::Quick).unwrap();
        let props: Vec<&str> = spin.iter().map(|c| c.property).collect();
        assert!(props.contains(&NO_IDLE_SPIN), "{props:?}");
        let cx = spin.iter().find(|c| c.property == NO_IDLE_SPIN).unwrap();
        assert!(cx.steps.iter().any(|s| s.thread == "rescuer") && cx.steps.iter().any(|s| s.thread == "lasso"));
        assert!(!props.contains(&QUIESCENCE), "the rescuer's loop is unfair to the worker: {props:?}");
        assert!(kick_liveness(KickRevision::V7FixKickHold, Tier::Quick).unwrap().is_empty());
        // The lasso replays from its handle to the same steps; on the fix its path is not enabled.
        let handle = cx.replay.as_deref().expect("a lasso has a handle");
        let (configuration, steps, message) = kick_replay(KickRevision::V7FixKickRequeue, handle).unwrap();
        assert_eq!((configuration, steps, message), (cx.configuration.clone(), cx.steps.clone(), cx.message.clone()));
        assert!(kick_replay(KickRevision::V7FixKickHold, handle).is_err());
    }

    /// Every liveness counterexample of the kick's bug rows replays from its handle to its steps.
    #[test]
    fn liveness_counterexamples_replay() {
        for rev in [KickRevision::V7, KickRevision::V7FixKickHoldDelayed, KickRevision::V7FixRescuerRequeue] {
            let found = kick_liveness(rev, Tier::Quick).unwrap();
            assert!(!found.is_empty(), "{rev:?}");
            for cx in found {
                let (_, steps, message) = kick_replay(rev, cx.replay.as_deref().unwrap()).unwrap();
                assert_eq!((steps, message), (cx.steps.clone(), cx.message.clone()), "{rev:?} {}", cx.property);
            }
        }
    }

    #[test]
    fn oracle_handles_round_trip_and_reject_malformed_text() {
        let h = OracleHandle {
            tier: Tier::Scope,
            property: "no-idle-spin".into(),
            configuration: 3,
            placement: 1,
            prefix: vec![0, 4, 2],
            cycle: Some(vec![3]),
        };
        assert_eq!(OracleHandle::decode(&h.encode()).unwrap(), h);
        let path = OracleHandle { cycle: None, prefix: vec![], ..h.clone() };
        assert_eq!(OracleHandle::decode(&path.encode()).unwrap(), path);
        for bad in [
            "",
            "oracle1:",
            "oracle1:quick:p:0",
            "oracle1:huge:p:0:0:1",
            "oracle1:quick:p:x:0:1",
            "oracle1:quick:p:0:0:1|",
            "loom1:quick:0:0:1:3",
        ] {
            assert!(OracleHandle::decode(bad).is_err(), "{bad:?} accepted");
        }
        assert!(kick_replay(KickRevision::V7, "oracle1:quick:expedition:999:0:")
            .unwrap_err()
            .contains("not in the scope"));
    }
}
