//! The core's hot operations on the std platform (`cargo bench -p wb-core`): the percpu_counter
//! add (batch 16, the kernel's WB_STAT_BATCH for 2 CPUs; each thread on its own CPU slot) against
//! one shared `AtomicU64::fetch_add`, with 1 and 2 threads; percpu_counter sum and read; the
//! DONTCACHE kick on a wb whose bit is already set (the common, write-free case); and one
//! foreign-table record, v6's lockless table against `packed`.
//!
//! Multi-threaded cases time `iters` operations per thread with every thread started together
//! and report the wall time per operation per thread (lower is better; a perfectly scaling
//! operation keeps its 1-thread time).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::dontcache::filemap_dontcache_kick_writeback;
use wb_core::inode::Inode;
use wb_core::memcg::ForeignTable;
use wb_core::percpu::PercpuCounter;
use wb_core::revision::SlotRevision;
use wb_core::revision::{Kick, KickProtocol};
use wb_core::sync::Std;
use wb_core::trace::Trace;
use wb_core::wb::Bdi;

const BATCH: i32 = 16;

fn ctx(cpu: usize) -> Ctx<Std> {
    Ctx::new(Arc::new(Trace::disabled()), "bench", CpuPlan::Fixed(cpu))
}

/// Wall time for `threads` threads to run `op(ctx, i)` for `i in 0..iters` each, started
/// together; thread `t` runs on CPU slot `t` with its own context (a `Ctx` is per task).
fn parallel(threads: usize, iters: u64, op: impl Fn(&Ctx<Std>, u64) + Sync) -> Duration {
    let barrier = Barrier::new(threads + 1);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (barrier, op) = (&barrier, &op);
            s.spawn(move || {
                let ctx = ctx(t);
                barrier.wait();
                for i in 0..iters {
                    op(&ctx, i);
                }
            });
        }
        barrier.wait();
        Instant::now()
    })
    // `scope` returns once every thread has finished.
    .elapsed()
}

fn counter_add(c: &mut Criterion) {
    let mut g = c.benchmark_group("counter_add");
    for threads in [1, 2] {
        g.bench_with_input(BenchmarkId::new("percpu_counter_add_batch", threads), &threads, |b, &n| {
            let counter = PercpuCounter::<Std>::new(2);
            b.iter_custom(|iters| parallel(n, iters, |ctx, _| counter.add_batch(ctx, 1, BATCH)));
        });
        g.bench_with_input(BenchmarkId::new("atomic_fetch_add", threads), &threads, |b, &n| {
            let shared = AtomicU64::new(0);
            b.iter_custom(|iters| {
                parallel(n, iters, |_, _| {
                    shared.fetch_add(1, Ordering::Relaxed);
                })
            });
        });
    }
    g.finish();
}

fn counter_read(c: &mut Criterion) {
    let counter = PercpuCounter::<Std>::new(2);
    let cpu0 = ctx(0);
    counter.add_batch(&cpu0, 5, BATCH);
    c.bench_function("percpu_counter_read", |b| b.iter(|| black_box(counter.read())));
    c.bench_function("percpu_counter_sum", |b| b.iter(|| black_box(counter.sum(&cpu0))));
}

fn kick_on_set_bit(c: &mut Criterion) {
    let mut g = c.benchmark_group("filemap_dontcache_kick_writeback_bit_set");
    // v7 as merged (test_and_set_bit every time) and as posted (test_bit first).
    for (name, kick) in [("v7", Kick::Fold), ("v7-posted", Kick::Posted)] {
        let bdi = Arc::new(Bdi::<Std>::new(0, 2, BATCH, 2).with_knobs(KickProtocol { kick, ..KickProtocol::V7 }));
        let inode = Inode::new(0, bdi, 0, true, Vec::new());
        let cpu0 = ctx(0);
        // The first kick sets WB_start_dontcache (and queues a run nobody takes); later ones see it set.
        filemap_dontcache_kick_writeback(&cpu0, &inode);
        g.bench_function(name, |b| b.iter(|| black_box(filemap_dontcache_kick_writeback(&cpu0, &inode))));
    }
    g.finish();
}

fn slot_record(c: &mut Criterion) {
    let mut g = c.benchmark_group("foreign_table_record");
    for threads in [1, 2] {
        for rev in [SlotRevision::V6, SlotRevision::Packed] {
            g.bench_with_input(BenchmarkId::new(rev.name(), threads), &threads, |b, &n| {
                let table = ForeignTable::<Std>::new(4, rev, "cgwb_bdev");
                // Mostly repeats of a few devices (a match), time advancing: a lazy refresh now and then.
                b.iter_custom(|iters| {
                    parallel(n, iters, |ctx, i| {
                        let t = ctx.cpu() as i64;
                        table.track(ctx, (1 + (i % 3) as i64 + t, 0), (i / 64) as i64, 2);
                    })
                });
            });
        }
    }
    g.finish();
}

criterion_group!(benches, counter_add, counter_read, kick_on_set_bit, slot_record);
criterion_main!(benches);
