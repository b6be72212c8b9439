use std::time::Instant;
use wb_models::c11::differential::compare;
use wb_models::c11::gen::{program, Seeded, Shape};
fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let (n, threads, ops, locs) = (args[0], args[1], args[2], args[3]);
    let shape = Shape { max_threads: threads, max_ops: ops, max_locs: locs, mutexes: true, sc_accesses: true };
    let (mut tl, mut tr, mut ex, mut worst) = (0f64, 0f64, 0u64, (0f64, String::new()));
    let mut bad = 0;
    for seed in 0..n as u64 {
        let p = program(&mut Seeded::new(seed), shape);
        let t = Instant::now();
        let c = compare(&p);
        let dt = t.elapsed().as_secs_f64();
        let t2 = Instant::now();
        let _ = wb_models::c11::rc11::outcomes(&p);
        tr += t2.elapsed().as_secs_f64();
        tl += dt;
        ex += c.loom.executions;
        if dt > worst.0 { worst = (dt, p.to_string()); }
        if dt > 2.0 { println!("slow {dt:.1}s {} executions, {} outcomes\n{p}", c.loom.executions, c.loom.outcomes.len()); }
        if !c.mismatches().is_empty() { bad += 1; if bad <= 3 { println!("MISMATCH\n{c}"); } }
    }
    println!("n={n} total {tl:.2}s (rc11 alone {tr:.2}s) mean {:.2}ms executions {ex} mismatches {bad} worst {:.3}s\n{}", tl*1000.0/n as f64, worst.0, worst.1);
}
