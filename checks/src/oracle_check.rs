//! The matrix's `oracle` checker: every interleaving of whole kernel calls (each call atomic) of
//! a scenario's threads, over every CPU placement, run on the reference model with the
//! scenario's property checked at the end. Each sequence is also run on wb-core (std platform)
//! and compared step by step with the reference; a disagreement is reported as the property
//! `oracle-divergence`, which no revision expects.

use crate::differential::{accounting_op, CoreAccounting, CoreKick, CorePin};
use crate::oracle::accounting::{ref_revision, AccOp, RefAccounting, RefPte};
use crate::oracle::folio_dirty::{RefBlock, RefFile, RefPolicy};
use crate::oracle::kick::{kick_knobs, rescuer_knobs, KickOp, KickResult, KickUniverse, RefKick, RefKnobs};
use crate::oracle::percpu::RefPercpu;
use crate::oracle::pin::{self, pin_revision, PinOp, RefPin};
use crate::oracle::slots::{ref_slot_revision, RefSlots};
use std::sync::Arc;
use std::time::Instant;
use wb_core::bdev::DeviceRegistry;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::iomap::DirtyCharge;
use wb_core::memcg::{ForeignTable, SlotRevision};
use wb_core::percpu::PercpuCounter;
use wb_core::revision::{AccountingRevision, KickRevision, PercpuRevision, PinRevision};
use wb_core::sync::Std;
use wb_core::trace::Step;
use wb_core::trace::Trace;
use wb_core::wb::wb_stat_batch_for;
use wb_models::bdev_slots;
use wb_models::bounds::Tier;
use wb_models::dontcache_accounting::{self, Mix};
use wb_core::pte::PteState;
use wb_core::dontcache::RunOn;
use wb_core::revision::{KickProtocol, RescuerRevision};
use wb_models::dontcache_kick::{self, Role, Setup, DIRTY_TRACKING, LOST_WAKEUP};
use wb_models::kick_rescuer;
use wb_models::folio_dirty_accounting::{self, Measured};
use wb_models::foreign_policy;
use wb_models::outcome::{Counterexample, Outcome};
use wb_models::per_block_charge;
use wb_models::percpu_counter;
use wb_models::scenario::{parse_revision, unknown};
use wb_models::wb_pin;

pub const ORACLE_DIVERGENCE: &str = "oracle-divergence";

/// Call `visit` with every interleaving of `threads` (each thread's steps keep their order).
pub fn interleavings<T: Copy>(threads: &[Vec<T>], visit: &mut impl FnMut(&[(usize, T)])) {
    fn go<T: Copy>(
        threads: &[Vec<T>],
        pos: &mut [usize],
        seq: &mut Vec<(usize, T)>,
        visit: &mut impl FnMut(&[(usize, T)]),
    ) {
        let mut done = true;
        for t in 0..threads.len() {
            if pos[t] < threads[t].len() {
                done = false;
                seq.push((t, threads[t][pos[t]]));
                pos[t] += 1;
                go(threads, pos, seq, visit);
                pos[t] -= 1;
                seq.pop();
            }
        }
        if done {
            visit(seq);
        }
    }
    let mut pos = vec![0; threads.len()];
    go(threads, &mut pos, &mut Vec::new(), visit);
}

/// Every assignment of `n` threads to `cpus` CPUs.
pub fn placements(n: usize, cpus: usize) -> Vec<Vec<usize>> {
    (0..cpus.pow(n as u32))
        .map(|mut k| {
            (0..n)
                .map(|_| {
                    let c = k % cpus;
                    k /= cpus;
                    c
                })
                .collect()
        })
        .collect()
}

/// The size of the `dontcache-kick` and `kick-rescuer` oracle runs: every configuration of the
/// scenario's loom scope, each thread running `ops` operations, the flusher three worker runs
/// (kick-rescuer: the configuration's runs, so a rescuer run can be the last), every CPU for each
/// DONTCACHE writer. The batch is the kernel's WB_STAT_BATCH for 2 CPUs (16): with one-page folios
/// no add reaches the fold; the proptest comparison (checks/tests) draws folio sizes beyond the
/// batch and covers it.
#[derive(Debug, Clone, Copy)]
pub struct KickOracleConfig {
    pub ops: usize,
    pub flusher_runs: usize,
    pub nr_cpus: usize,
    pub batch: i32,
}

impl KickOracleConfig {
    pub fn for_tier(tier: Tier) -> Self {
        let nr_cpus = 2;
        KickOracleConfig {
            ops: if tier == Tier::Quick { 1 } else { 2 },
            flusher_runs: 3,
            nr_cpus,
            batch: wb_stat_batch_for(nr_cpus),
        }
    }
}

/// The objects of a kick configuration, for the reference and the core.
pub fn kick_universe(setup: &Setup) -> KickUniverse {
    KickUniverse {
        inodes: (0..setup.inodes()).map(|i| setup.folios_of(i).into_iter().map(|(dc, _)| (dc, 1)).collect()).collect(),
        dirty_at_start: setup.dirty_at_start.clone(),
    }
}

/// Run the oracle checker on `dontcache-kick`.
pub fn check_kick(revision: &str, tier: Tier) -> Result<Outcome, String> {
    let (Some(knobs), Some(core_rev)) = (kick_knobs(revision), KickRevision::from_name(revision)) else {
        let valid = KickRevision::ALL.map(|r| r.name());
        return Err(unknown("revision", revision, &valid) + " for scenario " + dontcache_kick::NAME);
    };
    let cfg = KickOracleConfig::for_tier(tier);
    let runs = vec![false; cfg.flusher_runs];
    Ok(check_kick_setups(&dontcache_kick::kick_scope(), knobs, core_rev.protocol(), cfg, |_| runs.clone()))
}

/// Run the oracle checker on `kick-rescuer`.
pub fn check_rescuer(revision: &str, tier: Tier) -> Result<Outcome, String> {
    let (Some(knobs), Some(core_rev)) = (rescuer_knobs(revision), RescuerRevision::from_name(revision)) else {
        let valid = RescuerRevision::ALL.map(|r| r.name());
        return Err(unknown("revision", revision, &valid) + " for scenario " + kick_rescuer::NAME);
    };
    let cfg = KickOracleConfig::for_tier(tier);
    let runs = |s: &Setup| s.runs.iter().map(|r| *r == RunOn::Rescuer).collect();
    Ok(check_kick_setups(&dontcache_kick::rescuer_scope(), knobs, core_rev.protocol(), cfg, runs))
}

fn check_kick_setups(
    setups: &[Setup],
    knobs: RefKnobs,
    proto: KickProtocol,
    cfg: KickOracleConfig,
    runs: impl Fn(&Setup) -> Vec<bool>,
) -> Outcome {
    let start = Instant::now();
    let mut outcome = Outcome::default();
    for setup in setups {
        let universe = kick_universe(setup);
        let dc: Vec<usize> = (0..setup.threads.len()).filter(|&k| setup.threads[k].role == Role::Dontcache).collect();
        for cpus in placements(dc.len(), cfg.nr_cpus) {
            let mut threads: Vec<Vec<KickOp>> = setup
                .threads
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let cpu = dc.iter().position(|&d| d == k).map_or(0, |j| cpus[j]);
                    let dirty = KickOp::Dirty { inode: t.inode, folio: t.folio, cpu };
                    let calls: Vec<KickOp> = match t.role {
                        Role::Dontcache => vec![dirty, KickOp::Kick { inode: t.inode }],
                        Role::Buffered => vec![dirty],
                        Role::InodeDirtier => vec![KickOp::MarkSync { inode: t.inode }],
                    };
                    calls.iter().copied().cycle().take(calls.len() * cfg.ops).collect()
                })
                .collect();
            threads.push(runs(setup).into_iter().map(|rescuer| KickOp::Run { rescuer }).collect());
            let placement = dc.iter().zip(&cpus).map(|(k, c)| format!("thread{k} cpu{c}")).collect::<Vec<_>>().join(", ");
            let configuration = setup.label();
            interleavings(&threads, &mut |seq| {
                outcome.executions += 1;
                let mut reference = RefKick::new(&universe, cfg.nr_cpus, i64::from(cfg.batch), knobs);
                let mut core = CoreKick::new(proto, &universe, cfg.nr_cpus, cfg.batch);
                let mut steps = Vec::with_capacity(seq.len());
                let keep = |outcome: &mut Outcome, property, message, steps| {
                    let mut cx = Counterexample::sequential(property, message, placement.clone(), steps);
                    cx.configuration = configuration.clone();
                    outcome.keep_first(cx);
                };
                for (i, &(t, op)) in seq.iter().enumerate() {
                    let before = reference.clone();
                    let want = reference.apply(op);
                    steps.push(describe(setup, t, op, want, &before, &reference));
                    let got = core.apply(op);
                    let got_state = core.snapshot(&reference);
                    if got != want || got_state != reference {
                        let message = format!(
                            "step {}: wb-core returned {got:?} with state {got_state:?}; the reference returned {want:?} with state {reference:?}",
                            i + 1
                        );
                        keep(&mut outcome, ORACLE_DIVERGENCE, message, steps);
                        return;
                    }
                }
                if let Some(message) = reference.lost_wakeup() {
                    keep(&mut outcome, LOST_WAKEUP, message, steps.clone());
                }
                if let Some(message) = reference.dirty_tracking() {
                    keep(&mut outcome, DIRTY_TRACKING, message, steps);
                }
            });
        }
    }
    outcome.configurations = setups.len() as u64;
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = vec![
        ("max_threads".into(), setups.iter().map(|s| s.threads.len()).max().unwrap_or(0) as u64),
        ("ops_per_thread".into(), cfg.ops as u64),
        ("flusher_runs".into(), cfg.flusher_runs as u64),
        ("cpus".into(), cfg.nr_cpus as u64),
        ("batch".into(), cfg.batch as u64),
    ];
    outcome
}

/// One reference step as a trace step with the values involved.
fn describe(setup: &Setup, thread: usize, op: KickOp, result: KickResult, before: &RefKick, after: &RefKick) -> Step {
    let who = setup.threads.get(thread).map_or("flusher".to_string(), |t| format!("{}{thread}", t.role.name()));
    let step = |function: &str, detail: String| Step::new(who.clone(), function, detail);
    let c = &after.dontcache_dirty;
    match (op, result) {
        (KickOp::Dirty { inode, folio, cpu }, KickResult::Dirtied(became)) => step(
            "filemap_dirty_folio",
            if became {
                format!(
                    "inode {inode} folio {folio} dirtied on cpu{cpu}: WB_DONTCACHE_DIRTY count {} slots {:?}; WB_has_dirty_io {}",
                    c.count, c.slots, after.has_dirty_io as u8
                )
            } else {
                format!("inode {inode} folio {folio} already dirty")
            },
        ),
        (KickOp::MarkSync { inode }, _) => step(
            "__mark_inode_dirty",
            format!("inode {inode} I_DIRTY_SYNC; on the lists {}; WB_has_dirty_io {}", after.inodes[inode].listed as u8, after.has_dirty_io as u8),
        ),
        (KickOp::Kick { .. }, KickResult::Kicked { woke }) => step(
            "filemap_dontcache_kick_writeback",
            if woke {
                "WB_start_dontcache 0 -> 1, wb_wakeup queues a run".into()
            } else {
                format!(
                    "WB_start_dontcache = {}, wb_has_dirty_io = {} -> no wakeup",
                    before.start_dontcache as u8, before.has_dirty_io as u8
                )
            },
        ),
        (KickOp::Run { rescuer }, KickResult::Ran { queued, consumed }) => step(
            "wb_workfn",
            match (rescuer, consumed) {
                (true, _) => format!(
                    "{} run on the rescuer: writeback_inodes_wb, WB_start_dontcache stays {}; run queued after: {}",
                    if queued { "queued" } else { "periodic" },
                    after.start_dontcache as u8,
                    after.pending as u8
                ),
                (false, Some(nr)) => format!(
                    "{} run; wb_check_start_dontcache: WB_start_dontcache 1 -> 0; budget read = {nr}; after writeback count {} slots {:?}, WB_has_dirty_io {}",
                    if queued { "queued" } else { "periodic" },
                    c.count,
                    c.slots,
                    after.has_dirty_io as u8
                ),
                (false, None) => format!(
                    "{} run; WB_start_dontcache = 0 -> nothing to do",
                    if queued { "queued" } else { "periodic" }
                ),
            },
        ),
        (op, result) => step("?", format!("{op:?} -> {result:?}")),
    }
}

/// The oracle checker for `scenario`.
pub fn run(scenario: &str, revision: &str, tier: Tier) -> Result<Outcome, String> {
    let mut outcome = match scenario {
        dontcache_kick::NAME => check_kick(revision, tier),
        kick_rescuer::NAME => check_rescuer(revision, tier),
        wb_pin::NAME => check_pin(revision, tier),
        dontcache_accounting::NAME => check_accounting(revision, tier),
        percpu_counter::NAME => check_percpu(revision),
        bdev_slots::NAME => check_slots(revision),
        foreign_policy::NAME => check_policy(revision),
        folio_dirty_accounting::NAME => check_folio_dirty(revision),
        per_block_charge::NAME => check_block(revision),
        other => Err(format!("scenario '{other}' has no oracle")),
    }?;
    // An oracle that does not enumerate configurations runs the scenario's one program.
    outcome.configurations = outcome.configurations.max(1);
    Ok(outcome)
}

/// Run the oracle checker on `wb-pin`: writers (one folio and one kick each), the switch as
/// two calls (`inode_switch_wbs`, then its work), and a kworker's passes over both wbs.
pub fn check_pin(revision: &str, tier: Tier) -> Result<Outcome, String> {
    let valid = PinRevision::ALL.map(|r| r.name());
    let (Some((pin, fix)), Some(core_rev)) = (pin_revision(revision), PinRevision::from_name(revision)) else {
        return Err(unknown("revision", revision, &valid) + " for scenario " + wb_pin::NAME);
    };
    let writers = if tier == Tier::Deep { 3 } else { 2 };
    let passes = 2;
    let mut threads: Vec<Vec<PinOp>> = (0..writers).map(|w| vec![PinOp::Dirty { folio: w }, PinOp::Kick]).collect();
    threads.push(vec![PinOp::SwitchBegin, PinOp::SwitchWork]);
    threads.push((0..passes).flat_map(|_| [PinOp::Run { wb: pin::OLD }, PinOp::Run { wb: pin::NEW }]).collect());
    let start = Instant::now();
    let mut outcome = Outcome::default();
    let placement = "one CPU (the oracle's calls are atomic)".to_string();
    interleavings(&threads, &mut |seq| {
        outcome.executions += 1;
        let mut reference = RefPin::new(pin, fix, writers);
        let mut core = CorePin::new(core_rev, writers);
        let mut steps = Vec::with_capacity(seq.len());
        for (i, &(t, op)) in seq.iter().enumerate() {
            reference.apply(op);
            steps.push(describe_pin(t, writers, op, &reference));
            core.apply(op);
            let got = core.snapshot(&reference);
            if got != reference {
                outcome.keep_first(Counterexample::sequential(
                    ORACLE_DIVERGENCE,
                    format!("step {}: wb-core's state {got:?} differs from the reference's {reference:?}", i + 1),
                    placement.clone(),
                    steps.clone(),
                ));
                return;
            }
        }
        for property in reference.violated() {
            outcome.keep_first(Counterexample::sequential(
                property,
                format!("the reference model ends with {property} violated: {reference:?}"),
                placement.clone(),
                steps.clone(),
            ));
        }
    });
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = vec![("writers".into(), writers as u64), ("kworker_passes".into(), passes as u64)];
    Ok(outcome)
}

/// Run the oracle checker on `dontcache-accounting`: every configuration of the scenario's
/// scope, each thread running its role once (quick) or twice, every interleaving of those whole
/// calls; and the split program (a dirtier, the split and the writeback of a tail, against the
/// other roles), which only sequential checkers run.
pub fn check_accounting(revision: &str, tier: Tier) -> Result<Outcome, String> {
    let valid = AccountingRevision::ALL.map(|r| r.name());
    let (Some(rev), Some(core_rev)) = (ref_revision(revision), AccountingRevision::from_name(revision)) else {
        return Err(unknown("revision", revision, &valid) + " for scenario " + dontcache_accounting::NAME);
    };
    let ops = if tier == Tier::Quick { 1 } else { 2 };
    let mut programs: Vec<(Vec<Vec<AccOp>>, Option<Mix>)> = dontcache_accounting::loom_mixes()
        .into_iter()
        .map(|mix| {
            let threads = mix.roles.iter().map(|&r| vec![accounting_op(r); ops]).collect();
            (threads, Some(mix))
        })
        .collect();
    use AccOp::*;
    programs.push((
        vec![vec![DontcacheWrite(1), Split, Writeback(4)], vec![Lookup(3), Writeback(3)], vec![Switch]],
        None,
    ));
    let start = Instant::now();
    let mut outcome = Outcome::default();
    let placement = "one CPU (the oracle's calls are atomic)".to_string();
    for (threads, mix) in &programs {
        let configuration = mix.as_ref().map_or("split program: dontcache-write(f1), split, writeback(f4) + lookup(f3), writeback(f3) + switcher".into(), Mix::label);
        interleavings(threads, &mut |seq| {
            outcome.executions += 1;
            let mut reference = RefAccounting::new(rev);
            let mut core = CoreAccounting::new(core_rev);
            if let Some(mix) = mix {
                let pte = match mix.start.pte {
                    PteState::None => RefPte::None,
                    PteState::Clean => RefPte::Clean,
                    PteState::Dirty => RefPte::Dirty,
                };
                reference.prepare(mix.folio, mix.start.dirty, pte);
                core.prepare(mix.folio, mix.start);
            }
            let mut steps = Vec::with_capacity(seq.len());
            let keep = |outcome: &mut Outcome, property, message, steps| {
                let mut cx = Counterexample::sequential(property, message, placement.clone(), steps);
                cx.configuration = configuration.clone();
                outcome.keep_first(cx);
            };
            for (i, &(t, op)) in seq.iter().enumerate() {
                reference.apply(op);
                let thread = mix.as_ref().map_or(format!("t{t}"), |m| m.roles[t].name());
                steps.push(Step::new(
                    thread,
                    accounting_function(op),
                    format!("{op:?}: counters {:?}", reference.counter),
                ));
                core.apply(op);
                let got = core.snapshot(&reference);
                if got != reference {
                    let message =
                        format!("step {}: wb-core's state {got:?} differs from the reference's {reference:?}", i + 1);
                    keep(&mut outcome, ORACLE_DIVERGENCE, message, steps.clone());
                    return;
                }
            }
            if let Some(message) = reference.counter_exact() {
                keep(&mut outcome, dontcache_accounting::COUNTER_EXACT, message, steps);
            }
        });
    }
    outcome.configurations = programs.len() as u64;
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = vec![("ops_per_thread".into(), ops as u64)];
    Ok(outcome)
}

/// Run the oracle checker on `percpu-counter`: every interleaving of the two adders' adds (each
/// add on either CPU: a task may run each call on another CPU) and the reader's read, sum, read,
/// each call atomic, on the reference
/// counter, cross-checked against wb-core's `PercpuCounter` on the std platform.
pub fn check_percpu(revision: &str) -> Result<Outcome, String> {
    let Some(rev) = PercpuRevision::from_name(revision) else {
        return Err(unknown("revision", revision, &PercpuRevision::ALL.map(|r| r.name()))
            + " for scenario "
            + percpu_counter::NAME);
    };
    #[derive(Clone, Copy)]
    enum Op {
        Add(i64, usize),
        Read,
        Sum,
    }
    let (nr_cpus, batch) = (percpu_counter::NR_CPUS, percpu_counter::BATCH);
    let total: i64 = 2 * percpu_counter::ADDS.iter().sum::<i64>();
    let bound = nr_cpus as i64 * i64::from(batch - 1);
    let start = Instant::now();
    let mut outcome = Outcome::default();
    let n = percpu_counter::ADDS.len();
    for cpus in placements(2 * n, nr_cpus) {
        let adds = |a: usize| -> Vec<Op> {
            percpu_counter::ADDS.iter().enumerate().map(|(i, &x)| Op::Add(x, cpus[a * n + i])).collect()
        };
        let threads = vec![adds(0), adds(1), vec![Op::Read, Op::Sum, Op::Read]];
        let placement = format!("the adds on cpus {cpus:?}");
        interleavings(&threads, &mut |seq| {
            outcome.executions += 1;
            let mut reference = RefPercpu::new(nr_cpus, i64::from(batch));
            let core = PercpuCounter::<Std>::new(nr_cpus).with_revision(rev);
            let trace = Arc::new(Trace::disabled());
            let ctxs: Vec<Ctx<Std>> = (0..nr_cpus).map(|c| Ctx::new(trace.clone(), "cpu", CpuPlan::Fixed(c))).collect();
            let mut steps = Vec::new();
            let mut found = Vec::new();
            for &(t, op) in seq {
                let thread = ["adder0", "adder1", "reader"][t].to_string();
                let (function, detail, diverged) = match op {
                    Op::Add(a, cpu) => {
                        reference.add(cpu, a);
                        core.add_batch(&ctxs[cpu], a, batch);
                        ("percpu_counter_add_batch", format!("+{a} on cpu{cpu}"), false)
                    }
                    Op::Read => {
                        let (want, got) = (reference.read(), core.read());
                        let e = reference.sum();
                        if (want - e).abs() > bound {
                            found.push((percpu_counter::READ_ERROR_BOUND, format!("read {want}, true value {e}")));
                        }
                        ("percpu_counter_read", format!("= {want}"), want != got)
                    }
                    Op::Sum => {
                        let want = if rev == PercpuRevision::SumAsRead { reference.read() } else { reference.sum() };
                        let got = core.sum(&ctxs[0]);
                        ("percpu_counter_sum", format!("= {want}"), want != got)
                    }
                };
                steps.push(Step::new(
                    thread,
                    function,
                    format!("{detail}: count {} slots {:?}", reference.count, reference.slots),
                ));
                if diverged || (core.read(), core.raw_slots()) != (reference.count, reference.slots.clone()) {
                    outcome.keep_first(Counterexample::sequential(
                        ORACLE_DIVERGENCE,
                        format!(
                            "wb-core's counter (count {}, slots {:?}) differs from the reference's",
                            core.read(),
                            core.raw_slots()
                        ),
                        placement.clone(),
                        steps.clone(),
                    ));
                    return;
                }
            }
            let sum = if rev == PercpuRevision::SumAsRead { reference.read() } else { reference.sum() };
            if sum != total {
                found.push((
                    percpu_counter::QUIESCENT_EXACT,
                    format!("percpu_counter_sum = {sum} at the end; the adds total {total}"),
                ));
            }
            if reference.sum() != total {
                found.push((percpu_counter::NO_LOST_UPDATE, format!("count + slots = {} at the end", reference.sum())));
            }
            for (property, message) in found {
                outcome.keep_first(Counterexample::sequential(property, message, placement.clone(), steps.clone()));
            }
        });
    }
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = vec![("cpus".into(), nr_cpus as u64), ("batch".into(), batch as u64)];
    Ok(outcome)
}

/// Run the oracle checker on `bdev-slots`: every interleaving, at call granularity, of each loom
/// and shuttle program of the scenario, on the reference table and registry, cross-checked against
/// wb-core's table and registry after every call.
pub fn check_slots(revision: &str) -> Result<Outcome, String> {
    let (Some(rev), Some(core_rev)) = (ref_slot_revision(revision), SlotRevision::from_name(revision)) else {
        return Err(unknown("revision", revision, &SlotRevision::ALL.map(|r| r.name()))
            + " for scenario "
            + bdev_slots::NAME);
    };
    use bdev_slots::Call;
    let start = Instant::now();
    let mut outcome = Outcome::default();
    for program in bdev_slots::loom_programs().into_iter().chain(bdev_slots::shuttle_programs()) {
        let threads: Vec<Vec<(usize, Call)>> =
            program.threads.iter().enumerate().map(|(t, (_, calls))| calls.iter().map(|&c| (t, c)).collect()).collect();
        let placement = format!("{:?} (prefill {:?})", program.threads, program.prefill);
        interleavings(&threads, &mut |seq| {
            outcome.executions += 1;
            let mut reference = RefSlots::new(rev, bdev_slots::CAPACITY, bdev_slots::DEVICES);
            let trace = Arc::new(Trace::disabled());
            let ctx = Ctx::<Std>::new(trace, "step", CpuPlan::Fixed(0));
            let table = ForeignTable::<Std>::new(bdev_slots::CAPACITY, core_rev, "cgwb_bdev");
            let devices = DeviceRegistry::<Std>::new(bdev_slots::DEVICES);
            for &(dev, at) in &program.prefill {
                reference.track((dev as i64, 0), at, bdev_slots::UPDATE_INTV);
                table.track(&ctx, (dev as i64, 0), at, bdev_slots::UPDATE_INTV);
            }
            let mut steps = Vec::new();
            let (mut ref_queued, mut core_queued) = (vec![Vec::new(); threads.len()], vec![Vec::new(); threads.len()]);
            for &(_, (t, call)) in seq {
                match call {
                    Call::Track { dev, now } => reference.track((dev as i64, 0), now, bdev_slots::UPDATE_INTV),
                    Call::Flush { now } => ref_queued[t].extend(reference.flush(now, bdev_slots::EXPIRE_INTV)),
                    Call::Work => {
                        for (slot, (dev, _)) in std::mem::take(&mut ref_queued[t]) {
                            reference.flush_by_dev(dev);
                            reference.flush_done(slot);
                        }
                    }
                    Call::Close { dev } => reference.close(dev as i64),
                    Call::Reuse { dev } => reference.reuse(dev as i64),
                }
                bdev_slots::run_call(&ctx, call, &mut core_queued[t], &table, &devices);
                steps.push(Step::new(
                    program.threads[t].0,
                    slots_function(call),
                    format!("{call:?}: slots ((dev, 0), at, done.cnt) {:?}", reference.slots),
                ));
                let core = table.contents();
                let core_flushes: Vec<u64> = (1..=bdev_slots::DEVICES).map(|d| devices.flushes(d)).collect();
                if core != reference.slots || core_flushes != reference.flushes {
                    outcome.keep_first(Counterexample::sequential(ORACLE_DIVERGENCE, format!("wb-core's slots {core:?} / flushes {core_flushes:?} differ from the reference's {:?} / {:?}", reference.slots, reference.flushes), placement.clone(), steps.clone()));
                    return;
                }
            }
            let recorded: std::collections::BTreeSet<i64> = program
                .prefill
                .iter()
                .map(|&(d, _)| d as i64)
                .chain(program.threads.iter().flat_map(|(_, calls)| {
                    calls.iter().filter_map(|c| if let Call::Track { dev, .. } = c { Some(*dev as i64) } else { None })
                }))
                .collect();
            let mut violated = reference.violated.clone();
            if recorded.len() <= bdev_slots::CAPACITY
                && recorded.iter().any(|&d| !reference.slots.iter().any(|s| s.0 == (d, 0)))
            {
                violated.push(bdev_slots::ALL_TRACKED);
            }
            for property in violated {
                outcome.keep_first(Counterexample::sequential(
                    property,
                    format!("the reference table ends as {:?}", reference.slots),
                    placement.clone(),
                    steps.clone(),
                ));
            }
        });
    }
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = vec![("slots".into(), bdev_slots::CAPACITY as u64)];
    Ok(outcome)
}

/// Run the oracle checker on `foreign-policy`: every interleaving of the two memcgs' calls
/// (record, then flush with its queued writeback), each atomic, on a reference of the three
/// policies, which states what each flush writes.
pub fn check_policy(revision: &str) -> Result<Outcome, String> {
    let policies = ["baseline", "skip-bdev", "separate-bdev"];
    if !policies.contains(&revision) {
        return Err(unknown("revision", revision, &policies) + " for scenario " + foreign_policy::NAME);
    }
    #[derive(Clone, Copy)]
    enum Op {
        Dirty,
        Throttle,
    }
    let threads = vec![vec![Op::Dirty, Op::Throttle]; foreign_policy::MEMCGS];
    let start = Instant::now();
    let mut outcome = Outcome::default();
    interleavings(&threads, &mut |seq| {
        outcome.executions += 1;
        // Per memcg: recorded (in its table), bdev writeback requested, wrote beyond the bdev.
        let mut recorded = [false; foreign_policy::MEMCGS];
        let (mut relief, mut beyond) = (vec![false; foreign_policy::MEMCGS], false);
        let mut steps = Vec::new();
        for &(m, op) in seq {
            let detail = match op {
                Op::Dirty => {
                    recorded[m] = revision != "skip-bdev";
                    format!("record the foreign bdev dirtying: {}", recorded[m])
                }
                Op::Throttle => {
                    if recorded[m] {
                        relief[m] = true;
                        beyond |= revision == "baseline";
                    }
                    format!(
                        "flush: bdev mapping written {}, owner wb written {}",
                        relief[m],
                        revision == "baseline" && recorded[m]
                    )
                }
            };
            let function = match op {
                Op::Dirty => "mem_cgroup_track_foreign_dirty_slowpath",
                Op::Throttle => "mem_cgroup_flush_foreign",
            };
            steps.push(Step::new(format!("memcg{}", m + 1), function, detail));
        }
        let placement = "one CPU (the oracle's calls are atomic)".to_string();
        if beyond {
            outcome.keep_first(Counterexample::sequential(
                foreign_policy::FLUSH_SCOPE,
                "an owner-wide flush caused by bdev dirtying wrote the whole root wb".into(),
                placement.clone(),
                steps.clone(),
            ));
        }
        if relief.iter().any(|r| !r) {
            outcome.keep_first(Counterexample::sequential(
                foreign_policy::PRESSURE_RELIEF,
                "a throttled memcg got no writeback of the bdev mapping".into(),
                placement,
                steps,
            ));
        }
    });
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = vec![("memcgs".into(), foreign_policy::MEMCGS as u64)];
    Ok(outcome)
}

fn slots_function(call: wb_models::bdev_slots::Call) -> &'static str {
    use wb_models::bdev_slots::Call;
    match call {
        Call::Track { .. } => "mem_cgroup_track_foreign_dirty_slowpath",
        Call::Flush { .. } => "mem_cgroup_flush_foreign",
        Call::Work => "bdev_flush_by_dev",
        Call::Close { .. } => "blkdev_put",
        Call::Reuse { .. } => "add_disk",
    }
}

fn accounting_function(op: AccOp) -> &'static str {
    match op {
        AccOp::DontcacheWrite(_) | AccOp::BufferedWrite(_) => "generic_perform_write",
        AccOp::MkwriteFault(_) => "wp_page_shared",
        AccOp::Zap(_) => "zap_pte_range",
        AccOp::Writeback(_) => "folio_clear_dirty_for_io",
        AccOp::WritebackRedirty(_) => "folio_redirty_for_writepage",
        AccOp::Truncate(_) => "truncate_inode_folio",
        AccOp::Lookup(_) => "__filemap_get_folio_mpol",
        AccOp::Switch => "inode_do_switch_wbs",
        AccOp::Migrate => "migrate_folio",
        AccOp::Split => "__split_folio_to_order",
    }
}

fn describe_pin(thread: usize, writers: usize, op: PinOp, after: &RefPin) -> Step {
    let who = if thread < writers {
        format!("writer{thread}")
    } else if thread == writers {
        "switcher".into()
    } else {
        "kworker".into()
    };
    let wb = |id: usize| {
        let w = &after.wbs[id];
        format!(
            "wb{id}: refs {} {:?} WB_start_dontcache {} queued {} WB_DONTCACHE_DIRTY {}",
            w.refs, w.life, w.start_dontcache as u8, w.pending as u8, w.dontcache_dirty
        )
    };
    let (function, detail) = match op {
        PinOp::Dirty { folio } => (
            "filemap_dirty_folio",
            format!("folio {folio} dirty on the inode's wb{}; {}", after.inode_wb, wb(after.inode_wb)),
        ),
        PinOp::Kick => (
            "filemap_dontcache_kick_writeback",
            format!("inode on wb{} (switching {}); {}", after.inode_wb, after.switching as u8, wb(after.inode_wb)),
        ),
        PinOp::SwitchBegin => ("inode_switch_wbs", format!("I_WB_SWITCH = {}", after.switching as u8)),
        PinOp::SwitchWork => {
            ("inode_do_switch_wbs", format!("inode on wb{}; {}; {}", after.inode_wb, wb(pin::OLD), wb(pin::NEW)))
        }
        PinOp::Run { wb: id } => ("wb_workfn", format!("last consume read {}; {}", after.last_consumed[id], wb(id))),
    };
    Step::new(who, function, detail)
}

/// Run the oracle checker on `folio-dirty-accounting`: every workload, with the flusher's pass
/// before, between and after the two writes, on the reference file; the properties are checked
/// on the reference's counters. The between order is also run on wb-core (std) and compared.
pub fn check_folio_dirty(revision: &str) -> Result<Outcome, String> {
    let policy = parse_revision(folio_dirty_accounting::NAME, revision)?;
    let reference = RefPolicy::from_name(revision).expect("the reference knows every policy");
    let g = folio_dirty_accounting::GEOMETRY;
    let start = Instant::now();
    let mut outcome = Outcome::default();
    for workload in folio_dirty_accounting::workloads() {
        for pass_at in 0..=workload.len() {
            outcome.executions += 1;
            let mut file = RefFile::new(reference, g.file_pages as usize);
            let mut steps = Vec::new();
            for (i, &(page, pages)) in workload.iter().enumerate() {
                if i == pass_at {
                    file.sync();
                    steps.push(step("flusher", "writeback_iter", format!("NR_FILE_DIRTY {}", file.nr_file_dirty)));
                }
                file.write(page as usize, pages as usize);
                steps.push(step(
                    "pgbench",
                    "iomap_file_buffered_write",
                    format!("pages {page}+{pages}: NR_FILE_DIRTY {}", file.nr_file_dirty),
                ));
            }
            if pass_at == workload.len() {
                file.sync();
            }
            let (quiescent_charged, quiescent_dirty_blocks) = (file.nr_file_dirty, file.dirty_pages());
            file.sync();
            let m = Measured {
                quiescent_charged,
                quiescent_dirty_blocks,
                charged: file.dirtied,
                written: file.written,
                folio_pages: file.largest_folio() as i64,
            };
            let mut violations = folio_dirty_accounting::check(&m);
            if pass_at == 1 {
                let ctx = Ctx::<Std>::new(Arc::new(Trace::disabled()), "core", CpuPlan::Fixed(0));
                let core = folio_dirty_accounting::run_workload(&ctx, policy, &g, &workload);
                if core != m {
                    violations.push(wb_models::outcome::Violation {
                        property: ORACLE_DIVERGENCE,
                        message: format!("core {core:?} vs reference {m:?}"),
                    });
                }
            }
            for v in violations {
                outcome.keep_first(Counterexample::sequential(
                    v.property,
                    v.message,
                    "one CPU (the oracle's calls are atomic)".into(),
                    steps.clone(),
                ));
            }
        }
    }
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = vec![("file_pages".into(), g.file_pages)];
    Ok(outcome)
}

fn step(thread: &str, function: &str, detail: String) -> Step {
    Step::new(thread, function, detail)
}

/// Run the oracle checker on `per-block-charge`: every interleaving of the writer's, the unmap
/// dirtier's and the flusher's calls (each atomic), from a dirty and from a clean mapping, then a
/// final sync, on the reference ledger.
pub fn check_block(revision: &str) -> Result<Outcome, String> {
    let rev: per_block_charge::BlockRevision = parse_revision(per_block_charge::NAME, revision)?;
    #[derive(Clone, Copy)]
    enum Op {
        Write,
        Zap,
        Writeback,
    }
    let threads = vec![vec![Op::Write], vec![Op::Zap], vec![Op::Writeback]];
    let start = Instant::now();
    let mut outcome = Outcome::default();
    for mapped_dirty in [true, false] {
        interleavings(&threads, &mut |seq| {
            outcome.executions += 1;
            let mut r = RefBlock {
                per_page: rev.charge() != DirtyCharge::PerFolio,
                discharge_folio: rev.charge() == DirtyCharge::PerPageDischargeNrPages,
                ..RefBlock::default()
            };
            if mapped_dirty {
                r.mark_all();
                r.pte_dirty = true;
            }
            let mut steps = Vec::new();
            for &(_, op) in seq.iter().chain([(3, Op::Writeback)].iter()) {
                let (thread, function) = match op {
                    Op::Write => {
                        r.write_block1();
                        ("writer", "iomap_write_end")
                    }
                    Op::Zap => {
                        r.zap();
                        ("munmap", "zap_pte_range")
                    }
                    Op::Writeback => {
                        r.writeback();
                        ("flusher", "folio_clear_dirty_for_io")
                    }
                };
                steps.push(step(
                    thread,
                    function,
                    format!("PG_dirty {} bits {:?} ledger {:?}", r.dirty as u8, r.bits, r.ledger),
                ));
            }
            let bad = r.mismatched();
            if !bad.is_empty() {
                outcome.keep_first(Counterexample::sequential(
                    per_block_charge::CHARGE_DISCHARGE_MATCH,
                    format!("(cycle, charged, discharged) mismatched: {bad:?}"),
                    format!("one CPU (the oracle's calls are atomic); mapping dirty at start: {mapped_dirty}"),
                    steps.clone(),
                ));
            }
        });
    }
    outcome.millis = start.elapsed().as_millis() as u64;
    outcome.bounds = vec![("threads".into(), 3)];
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleavings_are_counted_by_the_multinomial() {
        let mut n = 0;
        interleavings(&[vec![1, 2], vec![3, 4], vec![5]], &mut |_| n += 1);
        assert_eq!(n, 5 * 4 * 3 * 2 / (2 * 2));
        assert_eq!(placements(2, 2), vec![vec![0, 0], vec![1, 0], vec![0, 1], vec![1, 1]]);
    }
}
