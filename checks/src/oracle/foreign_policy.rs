//! The oracle of `foreign-policy`: every interleaving of the two memcgs' calls (record, then flush
//! with its queued writeback), each atomic, on a reference of the three policies that states what
//! each flush writes, cross-checked against wb-core's per-memcg tables after every call.

use super::{Oracle, Program, ONE_CPU};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use wb_core::bdev::DeviceRegistry;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::memcg::MemcgForeign;
use wb_core::revision::ForeignPolicy;
use wb_core::sync::Std;
use wb_core::trace::{Step, Trace};
use wb_models::bounds::Tier;
use wb_models::foreign_policy::{memcg_dirty, memcg_throttle, FlushLog, FLUSH_SCOPE, MEMCGS, PRESSURE_RELIEF};

pub use wb_models::foreign_policy::NAME;

/// A memcg's call: its foreign dirtying of a bdev page, or its throttle (the flush and the
/// writeback it queues).
#[derive(Debug, Clone, Copy)]
pub enum PolicyOp {
    Dirty,
    Throttle,
}

/// What a policy does, in this model's own terms: whether a bdev dirtying is recorded, and
/// whether its flush is the owner-wide one.
fn knobs(policy: ForeignPolicy) -> (bool, bool) {
    match policy {
        ForeignPolicy::Baseline => (true, true),
        ForeignPolicy::SkipBdev => (false, false),
        ForeignPolicy::SeparateBdev => (true, false),
    }
}

/// Per memcg: recorded (in its table), bdev writeback requested, wrote beyond the bdev mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyRef {
    owner_wide: bool,
    records: bool,
    recorded: [bool; MEMCGS],
    relief: [bool; MEMCGS],
    beyond: [bool; MEMCGS],
}

pub struct PolicyCore {
    ctx: Ctx<Std>,
    devices: DeviceRegistry<Std>,
    memcgs: Vec<MemcgForeign<Std>>,
    logs: Vec<FlushLog>,
}

pub struct PolicyOracle;

impl Oracle for PolicyOracle {
    type Revision = ForeignPolicy;
    type Op = PolicyOp;
    type Setup = ();
    type Reference = PolicyRef;
    type Core = PolicyCore;

    fn programs(&self, _: Tier) -> Vec<Program<PolicyOp, ()>> {
        let threads = vec![vec![PolicyOp::Dirty, PolicyOp::Throttle]; MEMCGS];
        vec![Program {
            configuration: String::new(),
            placement: ONE_CPU.into(),
            threads,
            epilogue: Vec::new(),
            setup: (),
        }]
    }

    fn bounds(&self, _: Tier) -> Vec<(String, u64)> {
        vec![("memcgs".into(), MEMCGS as u64)]
    }

    fn reference(&self, policy: ForeignPolicy, _: &()) -> PolicyRef {
        let (records, owner_wide) = knobs(policy);
        PolicyRef { owner_wide, records, recorded: [false; MEMCGS], relief: [false; MEMCGS], beyond: [false; MEMCGS] }
    }

    fn core(&self, policy: ForeignPolicy, _: &()) -> PolicyCore {
        PolicyCore {
            ctx: Ctx::new(Arc::new(Trace::disabled()), "memcg", CpuPlan::Fixed(0)),
            devices: DeviceRegistry::new(1),
            memcgs: (0..MEMCGS).map(|_| MemcgForeign::new(2, policy)).collect(),
            logs: (0..MEMCGS).map(|_| FlushLog::default()).collect(),
        }
    }

    fn apply_reference(&self, r: &mut PolicyRef, _: &(), m: usize, op: PolicyOp) -> Step {
        let (function, detail) = match op {
            PolicyOp::Dirty => {
                r.recorded[m] = r.records;
                (
                    "mem_cgroup_track_foreign_dirty_slowpath",
                    format!("record the foreign bdev dirtying: {}", r.recorded[m]),
                )
            }
            PolicyOp::Throttle => {
                if r.recorded[m] {
                    r.relief[m] = true;
                    r.beyond[m] = r.owner_wide;
                }
                let detail = format!("flush: bdev mapping written {}, owner wb written {}", r.relief[m], r.beyond[m]);
                ("mem_cgroup_flush_foreign", detail)
            }
        };
        Step::new(format!("memcg{}", m + 1), function, detail)
    }

    fn apply_core(&self, c: &mut PolicyCore, m: usize, op: PolicyOp) {
        // The calls' times: the memcg's dirtying at 3 + m, its throttle one tick later.
        let now = 3 + m as i64;
        match op {
            PolicyOp::Dirty => memcg_dirty(&c.ctx, &c.memcgs[m], now),
            PolicyOp::Throttle => memcg_throttle(&c.ctx, &c.memcgs[m], &c.devices, &c.logs[m], now + 1),
        }
    }

    fn diverges(&self, r: &PolicyRef, c: &PolicyCore) -> Option<String> {
        let relief: Vec<bool> = c.logs.iter().map(|l| l.bdev_writeback.load(Relaxed)).collect();
        let beyond: Vec<bool> = c.logs.iter().map(|l| l.wrote_beyond_bdev.load(Relaxed)).collect();
        (relief != r.relief || beyond != r.beyond).then(|| {
            format!(
                "wb-core's flushes (bdev written {relief:?}, beyond {beyond:?}) differ from the reference's ({:?}, {:?})",
                r.relief, r.beyond
            )
        })
    }

    fn violated(&self, r: &PolicyRef, _: &()) -> Vec<(&'static str, String)> {
        let mut v = Vec::new();
        if r.beyond.iter().any(|&b| b) {
            v.push((FLUSH_SCOPE, "an owner-wide flush caused by bdev dirtying wrote the whole root wb".into()));
        }
        if r.relief.iter().any(|r| !r) {
            v.push((PRESSURE_RELIEF, "a throttled memcg got no writeback of the bdev mapping".into()));
        }
        v
    }
}
