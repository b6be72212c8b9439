//! A hand-written loom model of the `dontcache-kick` protocol, for measuring what wbcheck's
//! layers cost: the same loom operations, in the same order, as [`crate::dontcache_kick`] under
//! [`crate::harness::run_loom`] (so loom explores the same executions; a test compares the
//! counts), written straight against `loom::sync` with no [`wb_core::sync::Platform`], no `Ctx`,
//! no trace, no collector. Only [`Flusher::Passes`] (the loom configuration) is modelled.
//!
//! Each writer runs `filemap_dirty_folio` (`folio_test_set_dirty`, `__folio_mark_dirty` under the
//! i_pages lock with `percpu_counter_add_batch`, `__mark_inode_dirty`) then
//! `filemap_dontcache_kick_writeback`; the flusher runs `wb_workfn` (`process_one_work`,
//! `wb_check_start_dontcache`) a fixed number of times. Kernel-function names mark each block;
//! the modelling choices are those of `wb-core` (see `core/src/sync.rs`), copied, not re-decided.
//! Loads the full model performs only to render trace text (a wb's lifetime word) are kept:
//! leaving them out would change the work loom does, not what it explores.

use crate::bounds::Bounds;
use crate::dontcache_kick::{Flusher, KickConfig};
use loom::sync::atomic::{fence, AtomicI32, AtomicI64, AtomicUsize};
use loom::sync::Mutex;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed as StdRelaxed};
use std::sync::Arc;
use std::time::Instant;
use wb_core::revision::{Consume, Kick, KickRevision};
use wb_core::sync::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

// Bit numbers as in wb-core (wb.rs, folio.rs, inode.rs).
const WB_REGISTERED: usize = 1 << 0;
const WB_HAS_DIRTY_IO: usize = 1 << 2;
const WB_START_DONTCACHE: usize = 1 << 4;
const WORK_PENDING: usize = 1;
const WORK_RUNNING: usize = 2;
const PG_DIRTY: usize = 1 << 1;
const PG_DROPBEHIND: usize = 1 << 3;
const TAG_DIRTY: usize = 1 << 0;
const IN_PAGE_CACHE: usize = 1 << 2;
const I_DIRTY_PAGES: usize = 1 << 2;
const I_WB_SWITCH: usize = 1 << 12;
const NESTING: usize = 0xffff;

/// The root wb, its `WB_DONTCACHE_DIRTY` percpu counter and the RCU reader words.
struct Wb {
    state: AtomicUsize,
    fbc_lock: Mutex<()>,
    count: AtomicI64,
    slots: Vec<AtomicI32>,
    work_lock: Mutex<()>,
    dwork: AtomicUsize,
    list_lock: Mutex<()>,
    life: AtomicUsize,
    rcu: Vec<AtomicUsize>,
}

struct Inode {
    i_state: AtomicUsize,
    i_lock: Mutex<()>,
    i_pages: Mutex<()>,
    i_wb: AtomicUsize,
}

struct Folio {
    flags: AtomicUsize,
    marks: AtomicUsize,
}

/// `test_and_set_bit` / `test_and_clear_bit`: fully ordered RMW (fence, AcqRel RMW, fence).
fn fully_ordered(op: impl FnOnce() -> usize) -> usize {
    fence(SeqCst);
    let old = op();
    fence(SeqCst);
    old
}

/// A writer: one folio per operation, dirtied then kicked.
fn writer(wb: &Wb, tid: usize, mut cpu: usize, mut migrate_to: Option<usize>, cfg: KickConfig, rev: KickRevision) {
    let inode = Inode {
        i_state: AtomicUsize::new(0),
        i_lock: Mutex::new(()),
        i_pages: Mutex::new(()),
        i_wb: AtomicUsize::new(0),
    };
    let folios: Vec<Folio> = (0..cfg.ops_per_writer)
        .map(|_| Folio { flags: AtomicUsize::new(PG_DROPBEHIND), marks: AtomicUsize::new(IN_PAGE_CACHE) })
        .collect();
    for folio in &folios {
        // filemap_dirty_folio: folio_test_set_dirty.
        if fully_ordered(|| folio.flags.fetch_or(PG_DIRTY, AcqRel)) & PG_DIRTY == 0 {
            // __folio_mark_dirty under xa_lock_irqsave, folio_account_dirtied, wb_stat_mod.
            {
                let _xa = inode.i_pages.lock().unwrap();
                if folio.marks.load(Relaxed) & IN_PAGE_CACHE != 0 {
                    inode.i_wb.load(Relaxed);
                    if folio.flags.load(Relaxed) & PG_DROPBEHIND != 0 {
                        percpu_counter_add_batch(
                            wb,
                            &mut cpu,
                            &mut migrate_to,
                            i64::from(cfg.pages_per_folio),
                            cfg.batch,
                        );
                    }
                    folio.marks.fetch_or(TAG_DIRTY, Relaxed);
                }
            }
            // __mark_inode_dirty(I_DIRTY_PAGES).
            if rev.writer_smp_mb() {
                fence(SeqCst);
            }
            if inode.i_state.load(Relaxed) & I_DIRTY_PAGES == 0 {
                let i_lock = inode.i_lock.lock().unwrap();
                if inode.i_state.load(Relaxed) & I_DIRTY_PAGES == 0 {
                    inode.i_state.fetch_or(I_DIRTY_PAGES, Relaxed);
                    // locked_inode_to_wb_and_lock_list (root wb: get and put are no-ops).
                    inode.i_wb.load(Relaxed);
                    drop(i_lock);
                    let _list = wb.list_lock.lock().unwrap();
                    inode.i_wb.load(Relaxed);
                    if wb.state.load(Relaxed) & WB_HAS_DIRTY_IO == 0 {
                        wb.state.fetch_or(WB_HAS_DIRTY_IO, Relaxed);
                    }
                }
            }
        }
        // filemap_dontcache_kick_writeback: unlocked_inode_to_wb_begin (rcu_read_lock).
        let word = &wb.rcu[tid];
        if word.load(Relaxed) & NESTING == 0 {
            word.fetch_add((1 << 16) + 1, AcqRel);
        } else {
            word.fetch_add(1, Relaxed);
        }
        let switching = inode.i_state.load(Relaxed) & I_WB_SWITCH != 0;
        fence(Acquire);
        let _xa = switching.then(|| inode.i_pages.lock().unwrap());
        inode.i_wb.load(Relaxed);
        wb.life.load(Relaxed);
        let set = wb.state.load(Relaxed) & WB_HAS_DIRTY_IO != 0
            && !(rev.kick() == Kick::Posted && wb.state.load(Relaxed) & WB_START_DONTCACHE != 0)
            && fully_ordered(|| wb.state.fetch_or(WB_START_DONTCACHE, AcqRel)) & WB_START_DONTCACHE == 0;
        drop(_xa);
        // unlocked_inode_to_wb_end: rcu_read_unlock.
        assert!(word.load(Relaxed) & NESTING > 0);
        word.fetch_sub(1, Release);
        if set {
            // wb_wakeup: mod_delayed_work under spin_lock_irq(&wb->work_lock).
            let _irq = wb.work_lock.lock().unwrap();
            if wb.state.load(Relaxed) & WB_REGISTERED != 0 {
                fully_ordered(|| wb.dwork.fetch_or(WORK_PENDING, AcqRel));
            }
        }
    }
}

/// `percpu_counter_add_batch`, cmpxchg variant, with the task's migration point.
fn percpu_counter_add_batch(wb: &Wb, cpu: &mut usize, migrate_to: &mut Option<usize>, amount: i64, batch: i32) {
    let mut seen = i64::from(wb.slots[*cpu].load(Relaxed));
    loop {
        if (seen + amount).abs() >= i64::from(batch) {
            let _irqsave = wb.fbc_lock.lock().unwrap();
            let slot = i64::from(wb.slots[*cpu].load(Relaxed));
            let old = wb.count.load(Relaxed);
            wb.count.store(old + slot + amount, Relaxed);
            wb.slots[*cpu].fetch_sub(slot as i32, Relaxed);
            return;
        }
        if let Some(to) = migrate_to.take() {
            *cpu = to;
        }
        match wb.slots[*cpu].compare_exchange(seen as i32, (seen + amount) as i32, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(actual) => seen = i64::from(actual),
        }
    }
}

/// `percpu_counter_sum_positive`.
fn percpu_counter_sum(wb: &Wb) -> i64 {
    let _irqsave = wb.fbc_lock.lock().unwrap();
    let count = wb.count.load(Relaxed);
    (count + wb.slots.iter().map(|s| i64::from(s.load(Relaxed))).sum::<i64>()).max(0)
}

/// One `wb_workfn` run started as a periodic run: the pages consumed, if it cleared the bit.
fn wb_workfn(wb: &Wb, consume: Consume) -> Option<i64> {
    // process_one_work: PENDING -> RUNNING, smp_mb().
    fence(SeqCst);
    let mut cur = wb.dwork.load(Relaxed);
    loop {
        if cur & WORK_RUNNING != 0 {
            return None;
        }
        match wb.dwork.compare_exchange(cur, (cur & !WORK_PENDING) | WORK_RUNNING, AcqRel, Relaxed) {
            Ok(_) => break,
            Err(now) => cur = now,
        }
    }
    fence(SeqCst);
    // wb_check_start_dontcache.
    let consumed = match consume {
        Consume::ClearThenSum | Consume::ClearThenApproxRead => {
            if fully_ordered(|| wb.state.fetch_and(!WB_START_DONTCACHE, AcqRel)) & WB_START_DONTCACHE == 0 {
                None
            } else if consume == Consume::ClearThenSum {
                Some(percpu_counter_sum(wb))
            } else {
                Some(wb.count.load(Relaxed).max(0))
            }
        }
        Consume::LateClear => {
            if wb.state.load(Relaxed) & WB_START_DONTCACHE == 0 {
                None
            } else {
                let nr = percpu_counter_sum(wb);
                wb.state.fetch_and(!WB_START_DONTCACHE, Relaxed);
                Some(nr)
            }
        }
    };
    // process_one_work_done.
    wb.dwork.fetch_and(!WORK_RUNNING, Release);
    consumed
}

/// One execution; returns whether `lost-wakeup` holds.
fn execute(cfg: KickConfig, rev: KickRevision, plans: &[(usize, Option<usize>)]) -> bool {
    let Flusher::Passes(passes) = cfg.flusher else { panic!("the minimal model runs the loom configuration only") };
    let wb = Arc::new(Wb {
        state: AtomicUsize::new(WB_REGISTERED),
        fbc_lock: Mutex::new(()),
        count: AtomicI64::new(0),
        slots: (0..cfg.nr_cpus).map(|_| AtomicI32::new(0)).collect(),
        work_lock: Mutex::new(()),
        dwork: AtomicUsize::new(0),
        list_lock: Mutex::new(()),
        life: AtomicUsize::new(0),
        rcu: (0..=cfg.writers).map(|_| AtomicUsize::new(0)).collect(),
    });
    let last = Arc::new(AtomicI64::new(0));
    let mut handles = Vec::with_capacity(cfg.writers + 1);
    for (w, &(cpu, to)) in plans.iter().enumerate().take(cfg.writers) {
        let wb = wb.clone();
        handles.push(loom::thread::spawn(move || writer(&wb, w, cpu, to, cfg, rev)));
    }
    {
        let (wb, last) = (wb.clone(), last.clone());
        handles.push(loom::thread::spawn(move || {
            for _ in 0..passes {
                if let Some(nr) = wb_workfn(&wb, rev.consume()) {
                    last.store(nr, Relaxed);
                }
            }
        }));
    }
    handles.into_iter().for_each(|h| h.join().unwrap());
    // lost-wakeup at quiescence.
    if wb.state.load(Relaxed) & WB_START_DONTCACHE != 0 {
        wb.dwork.load(Relaxed) & WORK_PENDING != 0
    } else {
        last.load(Relaxed) == cfg.total_pages()
    }
}

/// Unwinds out of `Builder::check` at the first violation (without running the panic hook).
struct Violated;

/// What a run of the minimal model found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinimalOutcome {
    pub executions: u64,
    pub violated: bool,
    pub millis: f64,
}

/// Explore the minimal model with the loom bounds of `bounds`, over the placements the full model
/// enumerates (writers spread over CPUs, writer0 migrating, all on CPU 0; the flusher on CPU 0),
/// stopping at the first violation as the harness does.
pub fn run(cfg: KickConfig, rev: KickRevision, bounds: &Bounds) -> MinimalOutcome {
    let spread: Vec<(usize, Option<usize>)> = (0..=cfg.writers).map(|w| (w % 2, None)).collect();
    let mut migrating = spread.clone();
    migrating[0] = (0, Some(1));
    let same = vec![(0, None); cfg.writers + 1];
    let start = Instant::now();
    let executions = Arc::new(AtomicU64::new(0));
    let mut violated = false;
    for mut plans in [spread, migrating, same] {
        plans[cfg.writers] = (0, None);
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = bounds.loom_preemptions;
        builder.max_duration = bounds.loom_max_duration;
        builder.max_permutations = bounds.loom_max_permutations;
        builder.max_branches = bounds.loom_max_branches;
        builder.checkpoint_interval = 1_000;
        let n = executions.clone();
        let result = catch_unwind(AssertUnwindSafe(|| {
            builder.check(move || {
                n.fetch_add(1, StdRelaxed);
                if !execute(cfg, rev, &plans) {
                    std::panic::resume_unwind(Box::new(Violated));
                }
            })
        }));
        if let Err(payload) = result {
            if payload.downcast_ref::<Violated>().is_none() {
                std::panic::resume_unwind(payload);
            }
            violated = true;
            break;
        }
    }
    MinimalOutcome { executions: executions.load(StdRelaxed), violated, millis: start.elapsed().as_secs_f64() * 1e3 }
}
