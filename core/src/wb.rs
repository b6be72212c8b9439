//! `struct bdi_writeback` (include/linux/backing-dev-defs.h, backing-dev.h, fs/fs-writeback.c):
//! the state word, the per-wb stats, the work lock and the flusher's delayed work.

use crate::bitops::BitWord;
use crate::ctx::Ctx;
use crate::percpu::PercpuCounter;
use crate::sync::{Platform, SpinLock};

/// `enum wb_state` bit numbers, in the kernel's order (v7 appends `WB_start_dontcache`).
pub const WB_REGISTERED: u32 = 0;
pub const WB_WRITEBACK_RUNNING: u32 = 1;
pub const WB_HAS_DIRTY_IO: u32 = 2;
pub const WB_START_ALL: u32 = 3;
pub const WB_START_DONTCACHE: u32 = 4;

/// The work item's `PENDING` bit (`WORK_STRUCT_PENDING_BIT`).
const WORK_PENDING: u32 = 0;

/// The `enum wb_stat_item` entries the models read. WB_RECLAIMABLE, WB_WRITEBACK, WB_DIRTIED and
/// WB_WRITTEN are independent percpu counters that no modelled property reads; leaving them
/// out removes interleavings without hiding any ordering the properties depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WbStatItem {
    /// `WB_DONTCACHE_DIRTY` (seed 002 patch 2): dirty pages of dropbehind folios.
    DontcacheDirty,
}

impl WbStatItem {
    pub fn name(self) -> &'static str {
        match self {
            WbStatItem::DontcacheDirty => "WB_DONTCACHE_DIRTY",
        }
    }

    /// Trace templates: (`wb_stat_mod`, `wb_stat`, `wb_stat_sum`).
    fn templates(self) -> [&'static str; 3] {
        match self {
            WbStatItem::DontcacheDirty => [
                "WB_DONTCACHE_DIRTY += {}",
                "WB_DONTCACHE_DIRTY: percpu_counter_read_positive = {} (global count only)",
                "WB_DONTCACHE_DIRTY: percpu_counter_sum_positive = {}",
            ],
        }
    }
}

/// `WB_STAT_BATCH` = 8 * (1 + ilog2(nr_cpu_ids)); checkers pass a shrunk batch so small models
/// reach the slow path.
pub fn wb_stat_batch_for(nr_cpu_ids: usize) -> i32 {
    8 * (1 + nr_cpu_ids.max(1).ilog2() as i32)
}

pub struct Wb<P: Platform> {
    /// `wb->state`: every `WB_*` bit in one word.
    pub state: BitWord<P>,
    dontcache_dirty: PercpuCounter<P>,
    /// The batch `wb_stat_mod` passes (`WB_STAT_BATCH`, or a shrunk one under a checker).
    batch: i32,
    /// `wb->work_lock`, taken with `spin_lock_irq` by `wb_wakeup`.
    work_lock: SpinLock<P, ()>,
    /// `wb->dwork`'s `PENDING` bit: a flusher run is queued and has not started.
    dwork_pending: BitWord<P>,
    /// `wb->list_lock` (inode I/O lists).
    pub list_lock: SpinLock<P, ()>,
}

impl<P: Platform> Wb<P> {
    /// A registered wb (`wb_init` + `WB_registered`), stats zero, nothing queued.
    pub fn new(nr_cpus: usize, batch: i32) -> Self {
        Wb {
            state: BitWord::new(1 << WB_REGISTERED),
            dontcache_dirty: PercpuCounter::new(nr_cpus),
            batch,
            work_lock: SpinLock::new(()),
            dwork_pending: BitWord::new(0),
            list_lock: SpinLock::new(()),
        }
    }

    pub fn stat(&self, item: WbStatItem) -> &PercpuCounter<P> {
        match item {
            WbStatItem::DontcacheDirty => &self.dontcache_dirty,
        }
    }

    /// `wb_has_dirty_io()`: a plain `test_bit`.
    pub fn has_dirty_io(&self) -> bool {
        self.state.test_bit(WB_HAS_DIRTY_IO)
    }

    /// Whether a flusher run is queued and has not started (quiescence checks).
    pub fn run_pending(&self) -> bool {
        self.dwork_pending.test_bit(WORK_PENDING)
    }
}

/// `wb_stat_mod()`: `percpu_counter_add_batch(&wb->stat[item], amount, WB_STAT_BATCH)`.
pub fn wb_stat_mod<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, item: WbStatItem, amount: i64) {
    ctx.event("wb_stat_mod", item.templates()[0], &[amount]);
    wb.stat(item).add_batch(ctx, amount, wb.batch);
}

/// `wb_stat()`: `percpu_counter_read_positive`, the global count only.
pub fn wb_stat<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, item: WbStatItem) -> i64 {
    let v = wb.stat(item).read_positive();
    ctx.event(
        "wb_stat",
        "percpu_counter_read_positive = {} (global count only)",
        &[v],
    );
    v
}

/// `wb_stat_sum()`: `percpu_counter_sum_positive`.
pub fn wb_stat_sum<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>, item: WbStatItem) -> i64 {
    let v = wb.stat(item).sum_positive(ctx);
    ctx.event("wb_stat_sum", item.templates()[2], &[v]);
    v
}

/// `wb_wakeup()` (fs/fs-writeback.c): under `spin_lock_irq(&wb->work_lock)`, if the wb is
/// registered, `mod_delayed_work(bdi_wq, &wb->dwork, 0)`. Queueing is the workqueue's fully
/// ordered test-and-set of `PENDING`; a run already pending absorbs the request, and a work
/// that is running is queued again (§6.4 of kernel-reference.md).
pub fn wb_wakeup<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) {
    const F: &str = "wb_wakeup";
    let _irq = wb.work_lock.lock();
    if wb.state.test_bit(WB_REGISTERED) {
        let was = wb.dwork_pending.test_and_set_bit(WORK_PENDING);
        ctx.event(
            F,
            "WB_registered = 1 -> mod_delayed_work(dwork, 0): PENDING {} -> 1",
            &[was as i64],
        );
    } else {
        ctx.event(F, "WB_registered = 0 -> nothing queued", &[]);
    }
}

/// The workqueue starting the flusher's run (`process_one_work` for `wb->dwork`): clear
/// `PENDING`, then `smp_mb()` so the run sees what was stored before the queueing it consumes
/// (kernel/workqueue.c, `set_work_pool_and_clear_pending`). Returns whether a `wb_wakeup` had
/// queued it; a run that was not queued by one stands for a periodic (timer) run.
pub fn process_one_work<P: Platform>(ctx: &Ctx<P>, wb: &Wb<P>) -> bool {
    let queued = wb.dwork_pending.test_and_clear_bit(WORK_PENDING);
    ctx.event(
        "process_one_work",
        if queued {
            "clear PENDING (queued by wb_wakeup); smp_mb(); run wb_workfn"
        } else {
            "not queued by wb_wakeup: periodic run of wb_workfn"
        },
        &[],
    );
    queued
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_matches_kernel_table() {
        let got: Vec<i32> = [1, 2, 4, 8, 64, 256]
            .iter()
            .map(|&n| wb_stat_batch_for(n))
            .collect();
        assert_eq!(got, vec![8, 16, 24, 32, 56, 72]);
    }
}
