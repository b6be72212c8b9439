//! kick-rescuer: a flusher run on bdi_wq's rescuer writes back without consuming
//! WB_start_dontcache, and every later kick finds the bit set.

use super::{loom_reports, Basis, Litmus, Outcome, Prediction, Proc};
use crate::kick_rescuer::NAME;
use wb_core::property::LOST_WAKEUP;
use wb_core::revision::{RescuerRequeue, RescuerRevision};

pub fn exports() -> Vec<Litmus> {
    RescuerRevision::ALL.into_iter().map(rescuer).collect()
}

fn rescuer(rev: RescuerRevision) -> Litmus {
    let fails = loom_reports(rev, LOST_WAKEUP);
    let mut p0 = Proc::new("int *start, int *pending", &["int r0", "int r1", "int r2"])
        .line("r0 = xchg(pending, 0);", "the rescuer takes the work: clear PENDING, smp_mb()")
        .line("", "wb_workfn on the rescuer: writeback_inodes_wb(wb, 1024),")
        .line("", "which does not run wb_check_start_dontcache");
    p0 = match rev.knobs().requeue {
        RescuerRequeue::WorkList => p0.line("", "wb_workfn requeues only for queued work items"),
        RescuerRequeue::WorkListOrKick => p0
            .line("r1 = READ_ONCE(*start);", "(fix) test_bit(WB_start_dontcache)")
            .line("if (r1 == 1)", "")
            .line("\tr2 = xchg(pending, 1);", "wb_wakeup: queue the work again (PENDING)"),
    };
    let p1 = Proc::new("int *start", &["int r3"])
        .line("r3 = xchg(start, 1);", "a later writer: !test_and_set_bit(WB_start_dontcache)");
    Litmus {
        scenario: NAME,
        revision: rev.name(),
        shape: None,
        title: "a rescuer run against a later kick".into(),
        summary: rev.summary(),
        prediction: Prediction { outcome: if fails { Outcome::Always } else { Outcome::Never }, data_race: false },
        basis: Basis {
            short: format!("loom: {}; sequential", if fails { "fail (lost-wakeup)" } else { "pass" }),
            long: format!(
                "loom's verdict, {}. The outcome needs no reordering: in every execution the rescuer's run \
                 leaves the bit as it found it, so the prediction is {} rather than {}.",
                if fails { "fail (lost-wakeup)" } else { "pass" },
                if fails { "Always" } else { "Never" },
                if fails { "Sometimes" } else { "Sometimes or Never" }
            ),
        },
        notes: vec![
            "An earlier writer's kick set WB_start_dontcache and queued the wb's work (start=1, pending=1). \
             Under memory pressure the workqueue's rescuer runs it, and 6.12's wb_workfn then calls \
             writeback_inodes_wb instead of wb_do_writeback. P1 is any later DONTCACHE writer: it finds the bit \
             set and does not wake. The exists clause: the bit stays set with no run queued, so every later \
             kick is absorbed until an unrelated run (the periodic timer, or the next first dirty inode)."
                .into(),
            "Reduced: the worker's loop and the rescuer's selection (LKMM has no workqueue; the rescuer's run \
             is the one P0 is), the pages and their writeback, the consume (never reached on this path)."
                .into(),
        ],
        init: vec!["start=1", "pending=1"],
        procs: vec![p0, p1],
        exists: "0:r0=1 /\\ 1:r3=1 /\\ start=1 /\\ pending=0".into(),
    }
}
