//! Control tests for the percpu counter (core/src/percpu.rs: `percpu_counter_add_batch`, which
//! adds to the current CPU's slot below the batch and otherwise folds the slot into `count`
//! under `fbc->lock`; `__percpu_counter_sum`; `percpu_counter_read`), in both directions.
//!
//! The roles stand for `wb_stat_mod` callers (`folio_account_dirtied`, `folio_account_cleaned`,
//! the switch's transfer: `percpu_counter_add_batch` with WB_STAT_BATCH) and for `wb_stat_sum` /
//! `wb_stat` readers (`wb_over_bg_thresh`, the DONTCACHE kick's threshold).
//!
//! - Too weak: `control_percpu_adds_are_exact_after_join`: no add is lost or counted twice, also
//!   when a fast-path add on the same CPU lands between a fold's read of the slot and its
//!   subtraction (fails if the fold stores 0 instead of subtracting what it read);
//!   `control_percpu_sum_never_sees_a_fold_half_done`: a sum under the lock sees a fold whole or
//!   not at all (fails if the fold does not take `fbc->lock`).
//! - Too strong: `control_percpu_fast_path_leaves_count_alone_below_batch`: below the batch an add
//!   changes only its slot, so `percpu_counter_read` keeps returning the old count while a sum sees
//!   the add through the slot (fails if every add folds); `control_percpu_sum_may_miss_an_add_that_happened_before_one_it_saw`:
//!   a sum is not a snapshot: some execution sums an add and misses one that happened before it
//!   (fails if the fast path takes `fbc->lock`).

mod control_support;

use control_support::{explore, flag, get, set, task};
use std::sync::Arc;
use wb_core::percpu::PercpuCounter;
use wb_core::sync::{Loom, Platform};
use wb_core::trace::Trace;

/// Batch 3, one CPU: the first task adds 1 (slot 1) and 2 (|1 + 2| >= 3: fold); the second adds
/// 1 on the same CPU, which can land between the fold's read of the slot and its subtraction.
/// After both: total 4, and a sum says 4.
#[test]
fn control_percpu_adds_are_exact_after_join() {
    let explored = explore(Some(3), || {
        let trace = Arc::new(Trace::disabled());
        let c = Arc::new(PercpuCounter::<Loom>::new(1));
        let folder = {
            let (trace, c) = (trace.clone(), c.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "folder", 0);
                c.add_batch(&ctx, 1, 3);
                c.add_batch(&ctx, 2, 3);
            })
        };
        let adder = {
            let (trace, c) = (trace.clone(), c.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "adder", 0);
                c.add_batch(&ctx, 1, 3);
            })
        };
        Loom::join(folder);
        Loom::join(adder);
        let ctx = task(&trace, "reader", 0);
        let (total, sum) = (c.raw_total(), c.sum(&ctx));
        assert_eq!(
            (total, sum),
            (4, 4),
            "adds of 1 + 2 + 1 left count + slots = {total} and percpu_counter_sum = {sum} (count {}, slots {:?})",
            c.read(),
            c.raw_slots()
        );
        false
    });
    assert!(explored.executions > 10, "{explored:?}");
}

/// Batch 2, one CPU: the adder adds 1 (slot 1) then 1 (fold: count 2, slot 0) while a summer
/// sums. The sum is 0, 1 or 2, never 3 (count folded, slot not yet subtracted), never below 0.
#[test]
fn control_percpu_sum_never_sees_a_fold_half_done() {
    let explored = explore(Some(3), || {
        let trace = Arc::new(Trace::disabled());
        let c = Arc::new(PercpuCounter::<Loom>::new(1));
        let adder = {
            let (trace, c) = (trace.clone(), c.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "adder", 0);
                c.add_batch(&ctx, 1, 2);
                c.add_batch(&ctx, 1, 2);
            })
        };
        let result = flag();
        let summer = {
            let (trace, c, result) = (trace.clone(), c.clone(), result.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "summer", 0);
                set(&result, c.sum(&ctx) as usize);
            })
        };
        Loom::join(adder);
        Loom::join(summer);
        let ctx = task(&trace, "reader", 0);
        let sum = get(&result) as i64;
        assert!((0..=2).contains(&sum), "percpu_counter_sum = {sum} while two adds of 1 were made: a fold half done");
        assert_eq!(c.sum(&ctx), 2);
        sum == 2
    });
    assert!(explored.executions > 2, "{explored:?}");
}

/// Batch 4, two CPUs: the adder adds 1 then 2 on cpu0 (|3| < 4: no fold) while a reader reads
/// `percpu_counter_read` (must stay 0: count is untouched below the batch) and then sums (may
/// see the adds, through the slot). Some execution sees the sum at 3 with count still 0.
#[test]
fn control_percpu_fast_path_leaves_count_alone_below_batch() {
    let explored = explore(Some(3), || {
        let trace = Arc::new(Trace::disabled());
        let c = Arc::new(PercpuCounter::<Loom>::new(2));
        let adder = {
            let (trace, c) = (trace.clone(), c.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "adder", 0);
                c.add_batch(&ctx, 1, 4);
                c.add_batch(&ctx, 2, 4);
            })
        };
        let (read, sum) = (flag(), flag());
        let reader = {
            let (trace, c, read, sum) = (trace.clone(), c.clone(), read.clone(), sum.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "reader", 1);
                set(&read, c.read() as usize);
                set(&sum, c.sum(&ctx) as usize);
            })
        };
        Loom::join(adder);
        Loom::join(reader);
        let (read, sum) = (get(&read), get(&sum));
        assert_eq!(read, 0, "percpu_counter_read = {read} below the batch: an add below the batch folded into count");
        assert_eq!(
            (c.read(), c.raw_slots()),
            (0, vec![3, 0]),
            "after adds of 1 and 2 below batch 4, count must be 0 and slot[cpu0] 3"
        );
        sum == 3
    });
    assert!(
        explored.observed > 0,
        "in none of {} executions did a sum see the adds through the slot",
        explored.executions
    );
}

/// Batch 8, two CPUs: task 0 adds 1 on cpu0, then task 1 (same thread, so after it) adds 2 on
/// cpu1, while a summer sums. Some execution's sum is 2: it saw the later add (slot[cpu1], read
/// after slot[cpu0]) and missed the earlier one, a total no moment of the counter ever held. A
/// sum that excluded fast-path adds (every add under `fbc->lock`) would be a snapshot: 0, 1 or 3.
#[test]
fn control_percpu_sum_may_miss_an_add_that_happened_before_one_it_saw() {
    let explored = explore(Some(3), || {
        let trace = Arc::new(Trace::disabled());
        let c = Arc::new(PercpuCounter::<Loom>::new(2));
        let result = flag();
        let summer = {
            let (trace, c, result) = (trace.clone(), c.clone(), result.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "summer", 0);
                set(&result, c.sum(&ctx) as usize);
            })
        };
        let first = task(&trace, "adder cpu0", 0);
        c.add_batch(&first, 1, 8);
        let second = task(&trace, "adder cpu1", 1);
        c.add_batch(&second, 2, 8);
        drop((first, second));
        Loom::join(summer);
        let sum = get(&result) as i64;
        assert!((0..=3).contains(&sum), "percpu_counter_sum = {sum} with adds of 1 and 2");
        sum == 2
    });
    assert!(
        explored.observed > 0,
        "in none of {} executions did percpu_counter_sum miss an add concurrent with it while seeing a later one: \
         the sum behaves as a snapshot (fast-path adds excluded by the lock)",
        explored.executions
    );
}
