//! Control tests for the grace-period model (core/src/rcu.rs, `synchronize_rcu` and
//! `rcu_read_lock`/`rcu_read_unlock`), in both directions.
//!
//! Too weak (a grace period that ends early hides nothing, it reports false use-after-frees or
//! lets real ones through):
//! - a reader that uses the old wb inside its read section while the inode switches (and the old
//!   wb's last reference goes, releasing and freeing it after a grace period) is never reported;
//!   one that keeps using it after leaving the section, with no reference, is. Both run the real
//!   wb-core switch and release (`inode_switch_wbs_work_fn`, `cgwb_release_workfn` ->
//!   `call_rcu(cgwb_free_rcu)`) under loom (exhaustive) and shuttle PCT.
//! - `control_rcu_gp_orders_a_reader_that_began_before_it`: the RCU message-passing litmus test
//!   (LKMM's RCU-MP): a reader that sees a store made after `synchronize_rcu` returned also sees
//!   every store made before it was called.
//!
//! Too strong (a grace period that waits for every reader, or for a moment with none, hides
//! use-after-frees: the free would never overlap a late reader):
//! - `control_rcu_gp_does_not_wait_for_a_reader_that_began_after_it`: a grace period waiting for
//!   a pre-existing reader ends as soon as that reader leaves, while a reader that entered after
//!   the grace period began is still inside. The roles stand for `inode_switch_wbs_work_fn` and
//!   `cgwb_release_workfn` (the updaters) and the `unlocked_inode_to_wb_begin/end` sections of
//!   the stat updaters (the readers).

mod control_support;

use control_support::{explore, flag, get, set, task};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::fs_writeback::{inode_switch_wbs, inode_switch_wbs_work_fn};
use wb_core::inode::{unlocked_inode_to_wb_begin, unlocked_inode_to_wb_end, Inode};
use wb_core::rcu::Rcu;
use wb_core::sync::{Loom, Platform};
use wb_core::trace::Trace;
use wb_core::wb::{cgwb_kill, wb_get, Access, Bdi, USE_AFTER_FREE};
use wb_models::bounds::{Bounds, Tier};
use wb_models::harness::{run_loom, run_shuttle, Model, ShuttleKind};
use wb_models::outcome::Violation;

#[derive(Clone)]
struct Reader {
    /// Touch the wb again after `unlocked_inode_to_wb_end`, holding no reference.
    after_section: bool,
}

impl Model for Reader {
    fn properties(&self) -> &'static [&'static str] {
        &[USE_AFTER_FREE]
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        let bdi = Arc::new(Bdi::<P>::new(2, 1, 4, 3));
        let inode = Arc::new(Inode::new(0, bdi.clone(), 1, true, Vec::new()));
        wb_get(&setup, bdi.wb(1));
        cgwb_kill(&setup, bdi.wb(1));
        let after = self.after_section;
        let reader = {
            let (inode, trace, plan) = (inode.clone(), trace.clone(), plans[0]);
            P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "reader", plan);
                let (wb, cookie) = unlocked_inode_to_wb_begin(&ctx, &inode);
                wb.touch(&ctx, "reader", Access::Stats, || wb.has_dirty_io());
                unlocked_inode_to_wb_end(&ctx, &inode, cookie);
                if after {
                    wb.touch(&ctx, "reader after the section", Access::Memory, || wb.has_dirty_io());
                }
            })
        };
        let switcher = {
            let (inode, trace, plan) = (inode.clone(), trace.clone(), plans[1]);
            P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "switcher", plan);
                if inode_switch_wbs(&ctx, &inode, 2) {
                    inode_switch_wbs_work_fn(&ctx, &inode, 2);
                }
            })
        };
        P::join(reader);
        P::join(switcher);
        trace.detected().into_iter().map(|d| Violation { property: d.property, message: d.message }).collect()
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        vec![vec![CpuPlan::Fixed(0), CpuPlan::Fixed(0)]]
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        vec![CpuPlan::Fixed(0), CpuPlan::Fixed(0)]
    }

    fn placement_label(&self, _: &[CpuPlan]) -> String {
        "reader cpu0, switcher cpu0".into()
    }

    fn size(&self) -> Vec<(String, u64)> {
        Vec::new()
    }
}

fn bounds() -> Bounds {
    Bounds::from_env(Tier::Quick).unwrap()
}

#[test]
fn use_inside_the_read_section_is_never_reported() {
    let model = Reader { after_section: false };
    let loom = run_loom(&model, &bounds());
    assert!(!loom.bounded && loom.executions > 10, "{} executions", loom.executions);
    assert!(loom.violated().is_empty(), "{:#?}", loom.counterexamples);
    let pct = run_shuttle(&model, ShuttleKind::Pct, &bounds());
    assert!(pct.violated().is_empty(), "{:#?}", pct.counterexamples);
}

#[test]
fn use_after_the_section_without_a_reference_is_reported() {
    let model = Reader { after_section: true };
    let loom = run_loom(&model, &bounds());
    assert_eq!(loom.violated().into_iter().collect::<Vec<_>>(), vec![USE_AFTER_FREE]);
    let cx = loom.counterexample(USE_AFTER_FREE).unwrap();
    assert!(cx.message.contains("reader after the section"), "{}", cx.message);
    let pct = run_shuttle(&model, ShuttleKind::Pct, &bounds());
    assert_eq!(pct.violated().into_iter().collect::<Vec<_>>(), vec![USE_AFTER_FREE]);
}

/// RCU-MP: the updater stores `y`, calls `synchronize_rcu`, stores `x`; a reader that reads
/// `x == 1` inside its section must read `y == 1` in the same section (its section cannot have
/// begun before the grace period, or the grace period would have waited for it). Fails if the
/// grace period does not wait for readers inside a section when it begins. Both roles are spawned
/// tasks, and some explored execution must have the grace period begin with the reader inside
/// (its step says it waited for 1 reader): the control reaches the path it guards.
#[test]
fn control_rcu_gp_orders_a_reader_that_began_before_it() {
    let explored = explore(Some(3), || {
        let trace = Arc::new(Trace::new());
        let rcu = Arc::new(Rcu::<Loom>::new(3));
        let (x, y) = (flag(), flag());
        let reader = {
            let (trace, rcu, x, y) = (trace.clone(), rcu.clone(), x.clone(), y.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "reader", 0);
                rcu.read_lock(&ctx);
                let r0 = x.load(std::sync::atomic::Ordering::Relaxed);
                let r1 = y.load(std::sync::atomic::Ordering::Relaxed);
                rcu.read_unlock(&ctx);
                assert!(
                    !(r0 == 1 && r1 == 0),
                    "RCU-MP: the reader saw the store made after synchronize_rcu (x = 1) but not the one made \
                     before it (y = 0): the grace period ended while the reader's section was in progress"
                );
            })
        };
        let updater = {
            let (trace, rcu) = (trace.clone(), rcu.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "updater", 1);
                y.store(1, std::sync::atomic::Ordering::Relaxed);
                rcu.synchronize(&ctx);
                x.store(1, std::sync::atomic::Ordering::Relaxed);
            })
        };
        Loom::join(reader);
        Loom::join(updater);
        trace.steps().iter().any(|s| s.detail == "grace period over: waited for 1 reader(s) inside a section")
    });
    assert!(
        explored.observed > 0,
        "in none of {} executions did the grace period begin with the reader inside",
        explored.executions
    );
}

/// Reader A (old) enters its section; then the updater starts a grace period, and reader B
/// (new, another task on the same CPU) enters its section, before or after the grace period's
/// snapshot; A leaves while B stays, looking three times whether the grace period has ended.
/// Some execution must let `synchronize_rcu` return while B is inside: the grace period waited
/// for A only. B's task is registered after A's, so a grace period that waits, task by task, for
/// each task to be outside a section reaches B only after A left, when B is inside: it never
/// returns while B is inside, and the control fails.
#[test]
fn control_rcu_gp_does_not_wait_for_a_reader_that_began_after_it() {
    let explored = explore(Some(3), || {
        let trace = Arc::new(Trace::disabled());
        let rcu = Arc::new(Rcu::<Loom>::new(3));
        let gp_over = flag();
        // Two tasks on the model's own thread (index 0); the updater is spawned (index 1).
        let a = Ctx::with_task_index(trace.clone(), "old reader", CpuPlan::Fixed(0), Some(0));
        let b = Ctx::with_task_index(trace.clone(), "new reader", CpuPlan::Fixed(0), Some(2));
        rcu.read_lock(&a);
        let updater = {
            let (trace, rcu, gp_over) = (trace.clone(), rcu.clone(), gp_over.clone());
            Loom::spawn(move || {
                let ctx = task(&trace, "updater", 1);
                rcu.synchronize(&ctx);
                set(&gp_over, 1);
            })
        };
        rcu.read_lock(&b);
        rcu.read_unlock(&a);
        let mut seen = false;
        for _ in 0..3 {
            if get(&gp_over) == 1 {
                seen = true;
                break;
            }
            Loom::yield_now();
        }
        rcu.read_unlock(&b);
        drop((a, b));
        Loom::join(updater);
        seen
    });
    assert!(
        explored.observed > 0,
        "in none of {} executions did synchronize_rcu return while a reader that entered after the grace \
         period began was inside its section: the grace period waits for new readers too",
        explored.executions
    );
}
