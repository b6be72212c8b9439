//! Control tests for the grace-period model: neither too weak nor too strong. A reader that uses
//! the old wb inside its read section while the inode switches (and the old wb's last reference
//! goes, releasing and freeing it after a grace period) is never reported; one that keeps using
//! it after leaving the section, with no reference, is. Both run the real wb-core switch and
//! release under loom (exhaustive) and shuttle PCT.

use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::fs_writeback::{inode_switch_wbs, inode_switch_wbs_work_fn};
use wb_core::inode::{unlocked_inode_to_wb_begin, unlocked_inode_to_wb_end, Inode};
use wb_core::sync::Platform;
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
