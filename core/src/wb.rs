//! `struct bdi_writeback` and `struct backing_dev_info` (include/linux/backing-dev-defs.h,
//! backing-dev.h, mm/backing-dev.c, fs/fs-writeback.c): the state word, the per-wb stats, the
//! work lock and the flusher's delayed work, the reference count and the lifetime of a cgroup wb.
//!
//! # Lifetime (cgroup wbs; the root wb lives as long as the bdi and its get/put are no-ops)
//!
//! `Live` -> (`wb_shutdown`: WB_registered cleared under the work lock, the pending flusher run
//! flushed) `ShutDown` -> (`wb_exit`: stats destroyed) `Released` -> (`call_rcu` callback after a
//! grace period) `Freed`. Touching the stats of a `Released` wb, or anything of a `Freed` one, is
//! reported as `use-after-free`; `wb_wakeup` on a shut-down wb is harmless (it sees WB_registered
//! clear). The memory of a model wb is never reused, so a use after free is detected, not
//! suffered. The lifetime state is a model atomic, not ghost state: the release stores it and
//! every checked access loads it first, so loom's partial-order reduction sees the two as
//! conflicting and explores an access after the free (with a ghost state it pruned exactly those
//! interleavings: v6's use-after-free went unseen at 543k executions).

use crate::bitops::BitWord;
use crate::ctx::Ctx;
use crate::dontcache::{wb_workfn, RunOn};
use crate::percpu::PercpuCounter;
use crate::rcu::Rcu;
use crate::revision::{KickProtocol, Knobs};
use crate::spinlock::SpinLock;
use crate::sync::{Locked, Ordering, Platform, Traced};
use crate::trace::Name;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering as Ghost};
use std::sync::Arc;

/// `enum wb_state` bit numbers, in the kernel's order (v7 appends `WB_start_dontcache`).
pub const WB_REGISTERED: u32 = 0;
pub const WB_WRITEBACK_RUNNING: u32 = 1;
pub const WB_HAS_DIRTY_IO: u32 = 2;
pub const WB_START_ALL: u32 = 3;
pub const WB_START_DONTCACHE: u32 = 4;
/// Their names, for traced accesses to `wb->state`.
const WB_BITS: &[(u32, &str)] = &[
    (WB_REGISTERED, "WB_registered"),
    (WB_WRITEBACK_RUNNING, "WB_writeback_running"),
    (WB_HAS_DIRTY_IO, "WB_has_dirty_io"),
    (WB_START_ALL, "WB_start_all"),
    (WB_START_DONTCACHE, "WB_start_dontcache"),
];

/// `wb->dwork`'s state word: `PENDING` (on the workqueue's worklist: a worker may start it now),
/// `RUNNING` (a worker is executing it: the pool's busy hash, which `flush_work` waits on),
/// `TIMER` (`queue_delayed_work` armed the timer: the run comes `dirty_writeback_interval` later)
/// and `WOKEN` (a `wb_wakeup` since the last run started: the next run is an immediate one, not
/// one the timer released). The kernel's `WORK_STRUCT_PENDING_BIT` is `PENDING | TIMER`.
const WORK_PENDING: usize = 1;
const WORK_RUNNING: usize = 2;
const WORK_TIMER: usize = 4;
const WORK_WOKEN: usize = 8;

/// Detected when a modelled function touches a wb its lifetime no longer allows.
pub const USE_AFTER_FREE: &str = "use-after-free";
/// Detected on a reference-count underflow or a get of a wb whose count is zero.
pub const REFCOUNT: &str = "refcount";

/// The `enum wb_stat_item` entries the models read. WB_WRITEBACK, WB_DIRTIED and WB_WRITTEN are
/// independent percpu counters that no modelled property reads; leaving them out removes
/// interleavings without hiding any ordering the properties depend on. WB_RECLAIMABLE is charged
/// only where a model's bdi selects a dirty charge ([`crate::revision::Knobs::block`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WbStatItem {
    /// `WB_DONTCACHE_DIRTY` (seed 002 patch 2): dirty pages of dropbehind folios.
    DontcacheDirty,
    /// `WB_RECLAIMABLE`: the wb's charged dirty pages (scenario per-block-charge, where the bdi's
    /// knobs select a dirty charge; the other scenarios leave it out).
    Reclaimable,
}

impl WbStatItem {
    /// Trace templates (`wb_stat_mod`, `wb_stat`, `wb_stat_sum`); the first argument is the wb id.
    fn templates(self) -> [&'static str; 3] {
        match self {
            WbStatItem::DontcacheDirty => [
                "wb{}: WB_DONTCACHE_DIRTY += {}",
                "wb{}: WB_DONTCACHE_DIRTY percpu_counter_read_positive = {} (global count only)",
                "wb{}: WB_DONTCACHE_DIRTY percpu_counter_sum_positive = {}",
            ],
            WbStatItem::Reclaimable => [
                "wb{}: WB_RECLAIMABLE += {}",
                "wb{}: WB_RECLAIMABLE percpu_counter_read_positive = {} (global count only)",
                "wb{}: WB_RECLAIMABLE percpu_counter_sum_positive = {}",
            ],
        }
    }
}

/// `WB_STAT_BATCH` = 8 * (1 + ilog2(nr_cpu_ids)); checkers pass a shrunk batch so small models
/// reach the slow path.
pub fn wb_stat_batch_for(nr_cpu_ids: usize) -> i32 {
    8 * (1 + nr_cpu_ids.max(1).ilog2() as i32)
}

/// Lifetime of a wb (see the module docs). Rendered by the trace's `{life}` placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Life {
    Live = 0,
    ShutDown = 1,
    Released = 2,
    Freed = 3,
}

/// What a function touches, for the lifetime rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Any field (the state word, the locks, the refcount): wrong only once freed.
    Memory,
    /// The stat percpu counters: destroyed by `wb_exit`.
    Stats,
}

pub struct Wb<P: Platform> {
    /// 0 is the bdi's root wb; others are cgroup wbs.
    pub id: usize,
    /// `wb->state`: every `WB_*` bit in one word.
    pub state: BitWord<P>,
    dontcache_dirty: PercpuCounter<P>,
    reclaimable: PercpuCounter<P>,
    /// The batch `wb_stat_mod` passes (`WB_STAT_BATCH`, or a shrunk one under a checker).
    batch: i32,
    /// `wb->work_lock`, taken with `spin_lock_irq` by `wb_wakeup` and `wb_shutdown`.
    work_lock: SpinLock<P, ()>,
    /// `wb->dwork`: [`WORK_PENDING`] and [`WORK_RUNNING`].
    dwork: Traced<P, P::AtomicUsize>,
    /// The task running `dwork` (its tid + 1; 0 when none): written and read only by that task.
    runner: Locked,
    /// The last reference went while this wb's own flusher run held it: the release work runs
    /// when that run ends (see [`wb_put_many`]).
    release_pending: Locked,
    /// `wb->list_lock` (inode I/O lists).
    pub list_lock: SpinLock<P, ()>,
    /// How many inodes are on `b_dirty`, `b_io` and `b_more_io` (the lists themselves are the
    /// inodes' [`crate::inode::IoList`]); changed under `list_lock`.
    nr_io_inodes: Locked,
    /// `jiffies` for `dirtied_when`: one tick per inode put on `b_dirty` (under `list_lock`).
    clock: Locked,
    /// `wb->refcnt` (a percpu_ref; modelled in atomic mode). Starts at 1, the initial reference.
    refcnt: Traced<P, P::AtomicI64>,
    /// The RCU state of the bdi (`call_rcu` of the release).
    rcu: Arc<Rcu<P>>,
    /// [`Life`], stored by the release and loaded by every checked access.
    life: Traced<P, P::AtomicUsize>,
    /// Ghost: how many times the RCU callback ran (read at quiescence only).
    frees: AtomicU32,
    /// Ghost: the pages taken off WB_DONTCACHE_DIRTY so far (the negative `wb_stat_mod`s), for a
    /// property whose only such caller is the thread that reads it.
    dontcache_removed: AtomicI64,
    /// Ghost: the pages put on WB_DONTCACHE_DIRTY so far (the positive `wb_stat_mod`s).
    dontcache_added: AtomicI64,
    /// Ghost: how many consumes have read their budget so far (a count-in that reads it learns
    /// which consumes' budget reads come after it).
    consumes: AtomicU64,

    /// The kick protocol of the bdi's kernel ([`Bdi::with_knobs`]): what this wb's flusher runs.
    pub kick: KickProtocol,
}

impl<P: Platform> Wb<P> {
    /// A registered wb (`wb_init` + `WB_registered`), stats zero, nothing queued, one reference.
    pub fn new(id: usize, nr_cpus: usize, batch: i32, rcu: Arc<Rcu<P>>) -> Self {
        Wb {
            id,
            state: BitWord::new(1 << WB_REGISTERED, Name { what: "wb{}.state", index: id as i64, bits: WB_BITS }),
            dontcache_dirty: PercpuCounter::new(nr_cpus),
            reclaimable: PercpuCounter::new(nr_cpus),
            batch,
            work_lock: SpinLock::new(()),
            dwork: Traced::new(0, Name::int("wb{}.dwork", id as i64)),
            runner: Locked::new(0),
            release_pending: Locked::new(0),
            list_lock: SpinLock::new(()),
            nr_io_inodes: Locked::new(0),
            clock: Locked::new(0),
            refcnt: Traced::new(1, Name::int("wb{}.refcnt", id as i64)),
            rcu,
            life: Traced::new(Life::Live as usize, Name::int("wb{}.life", id as i64)),
            frees: AtomicU32::new(0),
            dontcache_removed: AtomicI64::new(0),
            dontcache_added: AtomicI64::new(0),
            consumes: AtomicU64::new(0),
            kick: KickProtocol::V7,
        }
    }

    pub fn is_root(&self) -> bool {
        self.id == 0
    }

    /// The stat counter, read directly (quiescence checks, the oracle comparison).
    pub fn stat(&self, item: WbStatItem) -> &PercpuCounter<P> {
        match item {
            WbStatItem::DontcacheDirty => &self.dontcache_dirty,
            WbStatItem::Reclaimable => &self.reclaimable,
        }
    }

    /// `wb_has_dirty_io()`: a plain `test_bit`.
    pub fn has_dirty_io(&self) -> bool {
        self.state.test_bit(WB_HAS_DIRTY_IO)
    }

    /// How many inodes are on the wb's I/O lists (caller holds `list_lock`, or at quiescence).
    pub fn nr_io_inodes(&self) -> usize {
        self.nr_io_inodes.get()
    }

    /// An inode joins (`1`) or leaves (`-1`) the I/O lists (caller holds `list_lock`).
    pub(crate) fn add_io_inodes(&self, delta: isize) {
        self.nr_io_inodes.set(self.nr_io_inodes.get().wrapping_add_signed(delta));
    }

    /// The next `dirtied_when` tick (caller holds `list_lock`).
    pub(crate) fn tick(&self) -> usize {
        self.clock.set(self.clock.get() + 1);
        self.clock.get()
    }

    /// Whether a flusher run is on the worklist and has not started (quiescence checks).
    pub fn run_pending(&self) -> bool {
        self.dwork.load(Ordering::Relaxed) & WORK_PENDING != 0
    }

    /// Whether the timer is armed with no run on the worklist (quiescence checks).
    pub fn timer_armed(&self) -> bool {
        self.dwork.load(Ordering::Relaxed) & (WORK_PENDING | WORK_TIMER) == WORK_TIMER
    }

    /// Ghost: how many consumes have read their budget so far.
    pub fn consumes(&self) -> u64 {
        self.consumes.load(Ghost::Relaxed)
    }

    /// Ghost: a consume read its budget (its caller is the wb's flusher run); its place among
    /// the wb's consumes, and the exact WB_DONTCACHE_DIRTY total at that moment.
    pub(crate) fn count_consume(&self) -> (u64, i64) {
        let exact = self.dontcache_added.load(Ghost::Relaxed) - self.dontcache_removed.load(Ghost::Relaxed);
        (self.consumes.fetch_add(1, Ghost::Relaxed) + 1, exact)
    }

    pub fn life(&self) -> Life {
        match self.life.load(Ordering::Relaxed) {
            0 => Life::Live,
            1 => Life::ShutDown,
            2 => Life::Released,
            _ => Life::Freed,
        }
    }

    fn set_life(&self, life: Life) {
        self.life.store(life as usize, Ordering::Relaxed);
    }

    /// How many times the RCU callback freed this wb (a refcount check: exactly once or never).
    pub fn frees(&self) -> u32 {
        self.frees.load(Ghost::Relaxed)
    }

    /// Ghost: the pages taken off WB_DONTCACHE_DIRTY so far by `wb_stat_mod`.
    pub fn dontcache_removed(&self) -> i64 {
        self.dontcache_removed.load(Ghost::Relaxed)
    }

    /// The reference count, read directly (quiescence checks).
    pub fn refcount(&self) -> i64 {
        self.refcnt.load(Ordering::Relaxed)
    }

    /// Apply the lifetime rules to `function`'s access to this wb, then run the access `op`. The
    /// check reads the lifetime word just before `op`: a release between the two is missed in
    /// that execution (the checkers also run the one where it comes first), and an access made
    /// while the wb was valid is never blamed. The root wb is never released: no check.
    pub fn touch<R>(&self, ctx: &Ctx<P>, function: &'static str, access: Access, op: impl FnOnce() -> R) -> R {
        if !self.is_root() {
            self.check(ctx, function, access);
        }
        op()
    }

    /// Apply the lifetime rules to `function` touching this wb now; detects `use-after-free`.
    fn check(&self, ctx: &Ctx<P>, function: &'static str, access: Access) {
        let life = self.life();
        let bad = match access {
            Access::Memory => life == Life::Freed,
            Access::Stats => life >= Life::Released,
        };
        if bad {
            let what = if access == Access::Stats { "the stat counters of " } else { "" };
            let why = if life == Life::Freed {
                "freed: its RCU grace period ended and cgwb_free_rcu ran"
            } else {
                "released: wb_exit destroyed its stat counters"
            };
            ctx.detect(USE_AFTER_FREE, function, format!("{function} touches {what}wb{} after it was {why}", self.id));
        }
    }
}

/// `struct backing_dev_info` with its wbs (`wbs[0]` is the root wb) and the RCU state the
/// models share.
pub struct Bdi<P: Platform> {
    wbs: Vec<Wb<P>>,
    pub rcu: Arc<Rcu<P>>,
    /// What the kernel this bdi runs selects ([`Knobs::V7`] unless set).
    pub knobs: Knobs,
}

impl<P: Platform> Bdi<P> {
    /// A bdi with its root wb and `cgroup_wbs` cgroup wbs (ids 1..), for up to `max_tasks` tasks.
    pub fn new(cgroup_wbs: usize, nr_cpus: usize, batch: i32, max_tasks: usize) -> Self {
        let rcu = Arc::new(Rcu::new(max_tasks));
        Bdi {
            wbs: (0..=cgroup_wbs).map(|id| Wb::new(id, nr_cpus, batch, rcu.clone())).collect(),
            rcu,
            knobs: Knobs::V7,
        }
    }

    /// The same bdi running the code `knobs` select (its wbs' flushers too).
    pub fn with_knobs(mut self, knobs: impl Into<Knobs>) -> Self {
        self.knobs = knobs.into();
        for wb in &mut self.wbs {
            wb.kick = self.knobs.kick;
        }
        self
    }

    pub fn wb(&self, id: usize) -> &Wb<P> {
        &self.wbs[id]
    }

    pub fn wbs(&self) -> &[Wb<P>] {
        &self.wbs
    }
}

/// `wb_stat_mod()`: `percpu_counter_add_batch(&wb->stat[item], amount, WB_STAT_BATCH)`.
pub fn wb_stat_mod<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, item: WbStatItem, amount: i64) {
    ctx.event("wb_stat_mod", item.templates()[0], &[wb.id as i64, amount]);
    wb.touch(ctx, "wb_stat_mod", Access::Stats, || wb.stat(item).add_batch(ctx, amount, wb.batch));
    if item == WbStatItem::DontcacheDirty {
        let ghost = if amount < 0 { &wb.dontcache_removed } else { &wb.dontcache_added };
        ghost.fetch_add(amount.abs(), Ghost::Relaxed);
    }
}

/// `wb_stat()`: `percpu_counter_read_positive`, the global count only.
pub fn wb_stat<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, item: WbStatItem) -> i64 {
    let v = wb.touch(ctx, "wb_stat", Access::Stats, || wb.stat(item).read_positive());
    ctx.event("wb_stat", item.templates()[1], &[wb.id as i64, v]);
    v
}

/// `wb_stat_sum()`: `percpu_counter_sum_positive`.
pub fn wb_stat_sum<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, item: WbStatItem) -> i64 {
    let v = wb.touch(ctx, "wb_stat_sum", Access::Stats, || wb.stat(item).sum_positive(ctx));
    ctx.event("wb_stat_sum", item.templates()[2], &[wb.id as i64, v]);
    v
}

/// `wb_wakeup()` (fs/fs-writeback.c): under `spin_lock_irq(&wb->work_lock)`, if the wb is
/// registered, `mod_delayed_work(bdi_wq, &wb->dwork, 0)`. Queueing is the workqueue's fully
/// ordered test-and-set of `PENDING`; a run already pending absorbs the request, an armed timer is
/// taken back and the run queued now, and a work that is running is queued again
/// (kernel/workqueue.c: `process_one_work` clears PENDING before the work function runs).
/// `spin_unlock_irq` enables interrupts unconditionally: a violation if the caller holds an
/// irqsave lock.
pub fn wb_wakeup<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    const F: &str = "wb_wakeup";
    let _irq = wb.touch(ctx, F, Access::Memory, || wb.work_lock.lock_irq(ctx, "wb_wakeup: spin_unlock_irq"));
    if wb.state.test_bit(WB_REGISTERED) {
        P::fence(Ordering::SeqCst);
        let was = wb.dwork.fetch_or(WORK_PENDING | WORK_WOKEN, Ordering::AcqRel) & WORK_PENDING != 0;
        P::fence(Ordering::SeqCst);
        ctx.event(
            F,
            "wb{} WB_registered = 1 -> mod_delayed_work(dwork, 0): PENDING {} -> 1",
            &[wb.id as i64, was as i64],
        );
    } else {
        ctx.event(F, "wb{} WB_registered = 0 ({life}) -> nothing queued", &[wb.id as i64, wb.life() as i64]);
    }
}

/// `wb_wakeup_delayed()` (fs/fs-writeback.c): under the work lock, if the wb is registered,
/// `queue_delayed_work(bdi_wq, &wb->dwork, dirty_writeback_interval)`: a no-op if a run is
/// already pending (the fully ordered test-and-set of PENDING finds it set), else the timer is
/// armed and the run comes `dirty_writeback_interval` (5 s) later ([`fire_timer`]). The model
/// sets `TIMER` in either case; a pending run's [`process_one_work`] clears it, as the kernel never
/// armed it.
pub fn wb_wakeup_delayed<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    const F: &str = "wb_wakeup_delayed";
    let _irq = wb.touch(ctx, F, Access::Memory, || wb.work_lock.lock_irq(ctx, "wb_wakeup_delayed: spin_unlock_irq"));
    if wb.state.test_bit(WB_REGISTERED) {
        P::fence(Ordering::SeqCst);
        let was = wb.dwork.fetch_or(WORK_TIMER, Ordering::AcqRel);
        P::fence(Ordering::SeqCst);
        let template = if was & (WORK_PENDING | WORK_TIMER) != 0 {
            "wb{}: queue_delayed_work: already pending -> nothing to do"
        } else {
            "wb{}: queue_delayed_work: timer armed (a run dirty_writeback_interval from now)"
        };
        ctx.event(F, template, &[wb.id as i64]);
    } else {
        ctx.event(F, "wb{} WB_registered = 0 ({life}) -> nothing queued", &[wb.id as i64, wb.life() as i64]);
    }
}

/// The timer `wb_wakeup_delayed` armed fires (`delayed_work_timer_fn` -> `__queue_work`): the run
/// goes on the worklist, `dirty_writeback_interval` after it was armed. Called by a model's
/// flusher to let that time pass, if `now` says so (asked only when a timer is armed). Returns
/// whether it fired.
pub fn fire_timer<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, now: impl FnOnce() -> bool) -> bool {
    let fired = queue_armed(wb, now);
    if fired {
        ctx.event(
            "delayed_work_timer_fn",
            "wb{}: the timer fires (dirty_writeback_interval later): run queued",
            &[wb.id as i64],
        );
    }
    fired
}

/// An armed timer's run goes on the worklist (TIMER -> PENDING), if one is armed and `now` says so.
fn queue_armed<P: Platform>(wb: &Wb<P>, now: impl FnOnce() -> bool) -> bool {
    let mut cur = wb.dwork.load(Ordering::Relaxed);
    let mut now = Some(now);
    loop {
        if cur & (WORK_PENDING | WORK_TIMER) != WORK_TIMER {
            return false;
        }
        if let Some(now) = now.take() {
            if !now() {
                return false;
            }
        }
        match wb.dwork.compare_exchange(cur, (cur & !WORK_TIMER) | WORK_PENDING, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return true,
            Err(now) => cur = now,
        }
    }
}

/// The workqueue starting a run of `wb->dwork` (`process_one_work`, kernel/workqueue.c): take the
/// item off the worklist (PENDING -> RUNNING in one step: the pool marks it current, then
/// `set_work_pool_and_clear_pending` clears PENDING) and `smp_mb()`. Workqueues are
/// non-reentrant: while a run is executing, a queued one waits. Returns `None` if nothing can
/// start now (a run is executing, or none is on the worklist), else whether the run is an
/// immediate one: a `wb_wakeup` queued it, or took it from the timer, since the last run started
/// (`false`: only the timer released it, [`fire_timer`]). [`process_one_work_done`] ends the run.
pub fn process_one_work<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) -> Option<bool> {
    P::rmw_begin();
    let mut cur = wb.dwork.load(Ordering::Relaxed);
    let immediate = loop {
        if cur & WORK_RUNNING != 0 || cur & WORK_PENDING == 0 {
            P::rmw_end(false, false);
            return None;
        }
        let next = (cur & !(WORK_PENDING | WORK_TIMER | WORK_WOKEN)) | WORK_RUNNING;
        match wb.dwork.compare_exchange(cur, next, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => break cur & WORK_WOKEN != 0,
            Err(now) => cur = now,
        }
    };
    P::rmw_end(true, true);
    wb.runner.set(ctx.tid() + 1);
    // Checked once the run is ours: a release flushes a running item before it frees the wb.
    wb.touch(ctx, "process_one_work", Access::Memory, || ());
    let template = if immediate {
        "wb{}: take the run queued by wb_wakeup (PENDING -> RUNNING); smp_mb(); run wb_workfn"
    } else {
        "wb{}: take the run the timer queued (PENDING -> RUNNING); smp_mb(); run wb_workfn"
    };
    ctx.event("process_one_work", template, &[wb.id as i64]);
    Some(immediate)
}

/// The end of a run `process_one_work` started: the item is no longer current. A release work
/// the run itself queued ([`wb_put_many`]) runs now.
pub fn process_one_work_done<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    wb.runner.set(0);
    wb.dwork.fetch_and(!WORK_RUNNING, Ordering::Release);
    if wb.release_pending.get() != 0 {
        wb.release_pending.set(0);
        cgwb_release_workfn(ctx, wb);
    }
}

/// `wb_shutdown`'s `mod_delayed_work(bdi_wq, &wb->dwork, 0)` and `flush_delayed_work(&wb->dwork)`:
/// an armed timer is taken back and its run queued now; then wait for an executing run to finish
/// and run the queued one now (the flushing thread stands in for the worker), until neither is
/// left. Left out: the run `mod_delayed_work` queues when nothing was pending or armed: it runs in
/// this thread on the unregistered wb before `wb_exit`, when no task holds a reference to race
/// with, and no inode is left on the wb for it to write.
fn flush_delayed_work<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    if queue_armed(wb, || true) {
        ctx.event("wb_shutdown", "wb{}: mod_delayed_work(dwork, 0) takes back the armed timer", &[wb.id as i64]);
    }
    loop {
        if wb_workfn(ctx, wb, &[], || RunOn::Worker).is_some() {
            continue;
        }
        if wb.dwork.load(Ordering::Acquire) & (WORK_RUNNING | WORK_PENDING) == 0 {
            return;
        }
        P::yield_now();
    }
}

/// `wb_get()`: a reference; a no-op on the root wb. A get of a count already at zero is a
/// `refcount` violation (percpu_ref_get on a dead ref).
pub fn wb_get<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    if wb.is_root() {
        return;
    }
    let old = wb.touch(ctx, "wb_get", Access::Memory, || wb.refcnt.fetch_add(1, Ordering::Relaxed));
    ctx.event("wb_get", "wb{} refcnt {} -> {} ({life})", &[wb.id as i64, old, old + 1, wb.life() as i64]);
    if old <= 0 {
        ctx.detect(REFCOUNT, "wb_get", format!("wb_get on wb{} whose count was {old}: its release has begun", wb.id));
    }
}

/// `wb_put()` / `wb_put_many()`: drop `n` references (a no-op on the root wb); the last one runs
/// `cgwb_release`, which queues the release work (see [`cgwb_release_workfn`]). `percpu_ref_put` in atomic mode is a
/// value-returning atomic, fully ordered.
pub fn wb_put_many<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, n: i64, function: &'static str) {
    if wb.is_root() {
        return;
    }
    P::fence(Ordering::SeqCst);
    let old = wb.touch(ctx, function, Access::Memory, || wb.refcnt.fetch_sub(n, Ordering::AcqRel));
    P::fence(Ordering::SeqCst);
    ctx.event(function, "wb{} refcnt {} -> {} ({life})", &[wb.id as i64, old, old - n, wb.life() as i64]);
    if old - n < 0 {
        ctx.detect(
            REFCOUNT,
            function,
            format!("{function} drops wb{}'s count below zero ({old} -> {})", wb.id, old - n),
        );
    } else if old - n == 0 {
        if wb.runner.get() == ctx.tid() + 1 {
            // The wb's own flusher run (inode_to_wb_and_lock_list's pin): the release work,
            // on cgwb_release_wq, flushes this run, so it cannot start before the run ends.
            wb.release_pending.set(1);
            ctx.event(
                "cgwb_release",
                "wb{} last reference gone in its own flusher run -> release_work runs after the run",
                &[wb.id as i64],
            );
        } else {
            ctx.event("cgwb_release", "wb{} last reference gone -> queue release_work (it runs now)", &[wb.id as i64]);
            cgwb_release_workfn(ctx, wb);
        }
    }
}

/// `wb_put()`.
pub fn wb_put<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    wb_put_many(ctx, wb, 1, "wb_put");
}

/// `cgwb_kill()` (mm/backing-dev.c), as when the wb's memcg goes offline: the wb leaves the
/// lookup tree and `percpu_ref_kill` drops the initial reference.
pub fn cgwb_kill<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    ctx.event("cgwb_kill", "wb{}: memcg offline, percpu_ref_kill drops the initial reference", &[wb.id as i64]);
    wb_put_many(ctx, wb, 1, "cgwb_kill");
}

/// `cgwb_release_workfn` (mm/backing-dev.c), which `cgwb_release` queues when the last
/// reference goes. The model runs it in the thread that dropped that reference, right away (or,
/// if that thread is the wb's own flusher run, when the run ends): one
/// of the timings the workqueue allows, and the one that gives a racing user of the wb the least
/// time (with the release on a separate worker, loom's bounded partial-order reduction never
/// reached the mutant's use-after-free in 6.7 million executions). `wb_shutdown` clears
/// WB_registered under the work lock and flushes the flusher's work ([`flush_delayed_work`]; no
/// inode is left on a wb whose last reference is gone, so a flushed run writes nothing); `wb_exit`
/// destroys the stats; `call_rcu(cgwb_free_rcu)` frees the wb after a grace period (modelled by
/// waiting for the grace period, then freeing).
fn cgwb_release_workfn<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    {
        let _irq =
            wb.touch(ctx, "wb_shutdown", Access::Memory, || wb.work_lock.lock_irq(ctx, "wb_shutdown: spin_unlock_irq"));
        if !wb.state.test_and_clear_bit(WB_REGISTERED) {
            ctx.event("wb_shutdown", "wb{} already unregistered", &[wb.id as i64]);
            return;
        }
        wb.set_life(Life::ShutDown);
        ctx.event("wb_shutdown", "wb{}: WB_registered 1 -> 0 under work_lock", &[wb.id as i64]);
    }
    flush_delayed_work(ctx, wb);
    wb.set_life(Life::Released);
    ctx.event("wb_exit", "wb{}: stat counters destroyed ({life})", &[wb.id as i64, Life::Released as i64]);
    wb.rcu.synchronize(ctx);
    wb.set_life(Life::Freed);
    wb.frees.fetch_add(1, Ghost::Relaxed);
    ctx.event("cgwb_free_rcu", "wb{} freed after the grace period", &[wb.id as i64]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::CpuPlan;
    use crate::sync::Std;
    use crate::trace::Trace;
    use std::sync::Arc;

    #[test]
    fn batch_matches_kernel_table() {
        let got: Vec<i32> = [1, 2, 4, 8, 64, 256].iter().map(|&n| wb_stat_batch_for(n)).collect();
        assert_eq!(got, vec![8, 16, 24, 32, 56, 72]);
    }

    #[test]
    fn last_put_releases_and_frees_after_a_grace_period() {
        let trace = Arc::new(Trace::new());
        let ctx = Ctx::<Std>::new(trace.clone(), "t", CpuPlan::Fixed(0));
        let bdi = Bdi::<Std>::new(1, 1, 8, 1);
        let wb = bdi.wb(1);
        wb_get(&ctx, wb);
        cgwb_kill(&ctx, wb);
        assert_eq!(wb.life(), Life::Live);
        wb_put(&ctx, wb);
        assert_eq!((wb.life(), wb.frees()), (Life::Freed, 1));
        assert!(trace.detected().is_empty());
        wb_wakeup(&ctx, wb);
        wb_put(&ctx, wb);
        let props: Vec<_> = trace.detected().iter().map(|d| d.property).collect();
        assert_eq!(props, vec![USE_AFTER_FREE, USE_AFTER_FREE, REFCOUNT]);
    }

    /// Each lifetime state is stored and read back as itself, and the lifetime rules apply by
    /// access: memory is wrong only once freed, the stats once released; the report says which.
    #[test]
    fn lifetime_rules_by_state_and_access() {
        let bdi = Bdi::<Std>::new(1, 1, 8, 1);
        let wb = bdi.wb(1);
        let mut got = Vec::new();
        for life in [Life::Live, Life::ShutDown, Life::Released, Life::Freed] {
            wb.set_life(life);
            assert_eq!(wb.life(), life);
            for access in [Access::Memory, Access::Stats] {
                let trace = Arc::new(Trace::new());
                let ctx = Ctx::<Std>::new(trace.clone(), "t", CpuPlan::Fixed(0));
                wb.touch(&ctx, "f", access, || ());
                got.extend(trace.detected().into_iter().map(|d| (life, access, d.message)));
            }
        }
        let freed = "freed: its RCU grace period ended and cgwb_free_rcu ran";
        assert_eq!(
            got,
            vec![
                (
                    Life::Released,
                    Access::Stats,
                    "f touches the stat counters of wb1 after it was released: wb_exit destroyed its stat counters"
                        .to_string()
                ),
                (Life::Freed, Access::Memory, format!("f touches wb1 after it was {freed}")),
                (Life::Freed, Access::Stats, format!("f touches the stat counters of wb1 after it was {freed}")),
            ]
        );
    }

    /// `wb_wakeup` reports whether the run was already pending: the first queues it, the second
    /// is absorbed by it.
    #[test]
    fn wakeup_reports_a_pending_run() {
        let trace = Arc::new(Trace::new());
        let ctx = Ctx::<Std>::new(trace.clone(), "t", CpuPlan::Fixed(0));
        let bdi = Bdi::<Std>::new(1, 1, 8, 1);
        wb_wakeup(&ctx, bdi.wb(1));
        wb_wakeup(&ctx, bdi.wb(1));
        let details: Vec<String> =
            trace.steps().into_iter().filter(|s| s.function == "wb_wakeup").map(|s| s.detail).collect();
        assert_eq!(
            details,
            vec![
                "wb1 WB_registered = 1 -> mod_delayed_work(dwork, 0): PENDING 0 -> 1",
                "wb1 WB_registered = 1 -> mod_delayed_work(dwork, 0): PENDING 1 -> 1",
            ]
        );
        assert!(bdi.wb(1).run_pending());
    }

    #[test]
    fn root_wb_references_are_no_ops() {
        let ctx = Ctx::<Std>::new(Arc::new(Trace::new()), "t", CpuPlan::Fixed(0));
        let bdi = Bdi::<Std>::new(0, 1, 8, 1);
        wb_get(&ctx, bdi.wb(0));
        wb_put(&ctx, bdi.wb(0));
        wb_put(&ctx, bdi.wb(0));
        assert_eq!(bdi.wb(0).refcount(), 1);
    }

    /// Each reference step reports the count before and after it.
    #[test]
    fn reference_steps_report_the_count() {
        let trace = Arc::new(Trace::new());
        let ctx = Ctx::<Std>::new(trace.clone(), "t", CpuPlan::Fixed(0));
        let bdi = Bdi::<Std>::new(1, 1, 8, 1);
        for _ in 0..2 {
            wb_get(&ctx, bdi.wb(1));
        }
        wb_put_many(&ctx, bdi.wb(1), 2, "wb_put_many");
        cgwb_kill(&ctx, bdi.wb(1));
        let refcnt: Vec<String> = trace
            .steps()
            .into_iter()
            .filter(|s| s.detail.contains("refcnt"))
            .map(|s| format!("{}: {}", s.function, s.detail))
            .collect();
        assert_eq!(
            refcnt,
            [
                "wb_get: wb1 refcnt 1 -> 2 (live)",
                "wb_get: wb1 refcnt 2 -> 3 (live)",
                "wb_put_many: wb1 refcnt 3 -> 1 (live)",
                "cgwb_kill: wb1 refcnt 1 -> 0 (live)",
            ]
        );
    }
}
