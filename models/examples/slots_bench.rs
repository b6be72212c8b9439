//! Cost per record of the packed (locked) slot table against v6's lockless one, std platform,
//! 1 and 2 threads: `cargo run --release -p wb-models --example slots_bench`.
use std::sync::Arc;
use std::time::Instant;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::memcg::{ForeignTable, SlotRevision};
use wb_core::sync::Std;
use wb_core::trace::Trace;

const RECORDS: i64 = 2_000_000;

fn run(rev: SlotRevision, threads: usize) -> f64 {
    let table = Arc::new(ForeignTable::<Std>::new(4, rev, "cgwb_bdev"));
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let table = table.clone();
            std::thread::spawn(move || {
                let ctx = Ctx::<Std>::new(Arc::new(Trace::disabled()), "bench", CpuPlan::Fixed(t));
                for i in 0..RECORDS {
                    // Mostly repeats of a few devices (the common case: a match), time advancing.
                    table.track(&ctx, (1 + (i % 3) + t as i64, 0), i / 64, 2);
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().unwrap());
    start.elapsed().as_nanos() as f64 / (RECORDS as f64 * threads as f64)
}

fn main() {
    for threads in [1, 2] {
        let racy = run(SlotRevision::V6, threads);
        let packed = run(SlotRevision::Packed, threads);
        println!(
            "{threads} thread(s): v6 {racy:.1} ns/record, packed {packed:.1} ns/record, ratio {:.2}",
            packed / racy
        );
    }
}
