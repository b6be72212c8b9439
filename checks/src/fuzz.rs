//! What the cargo-fuzz campaigns run. `fuzz/fuzz_targets/` holds one-line targets that call
//! these functions, so the plain tests run the same code over the committed corpora and
//! `wbcheck replay --fuzz-input` re-runs a fuzzer's input exactly.
//!
//! Three campaigns:
//! - differential (`oracle_*`): the input, read with `arbitrary`, is a revision and a sequence of
//!   calls; wb-core (std platform, one thread) and the independent reference model apply each
//!   call and must agree after every one, on every revision (broken ones included: both sides
//!   model the same revision, so any disagreement is a modelling bug).
//! - schedules (`sched_<scenario>`): the input is the schedule itself: one shuttle execution of
//!   the scenario whose every scheduling decision and random draw is read from the bytes (see
//!   [`wb_models::harness::ShuttleSchedule::Bytes`]); libFuzzer's coverage feedback steers the
//!   interleavings. The revision comes from `$WBCHECK_FUZZ_REVISION`, default the scenario's first
//!   revision expected to pass under shuttle. shuttle is sequentially consistent: rows that fail
//!   only under weak memory (loom) are out of this campaign's reach.
//! - the checker itself (`c11_loom`): the input's bytes are the choices of the c11 program
//!   generator ([`wb_models::c11::gen`]); the program runs under loom and must reach exactly the
//!   final states the RC11 enumerator allows, and every SC one ([`c11_loom`]).

use crate::differential::{CoreAccounting, CoreKick, CounterOp, CounterPair, SlotOp, SlotsPair};
use crate::oracle::dontcache_accounting::{ref_revision, AccOp, RefAccounting};
use crate::oracle::dontcache_kick::{kick_knobs, KickOp, KickUniverse, RefKick, RefKnobs};
use crate::render;
use arbitrary::{Arbitrary, Unstructured};
use wb_core::revision::SlotRevision;
use wb_core::revision::{AccountingRevision, KickProtocol, KickRevision};
use wb_models::bounds::{Bounds, Tier};
use wb_models::dontcache_kick::FolioOf;
use wb_models::harness::{Replayed, ShuttleSchedule};
use wb_models::outcome::Checker;
use wb_models::registry::{find, scenarios};
use wb_models::scenario::unknown;

/// The environment variable that picks a `sched_` campaign's revision.
pub const REVISION_VAR: &str = "WBCHECK_FUZZ_REVISION";

/// Calls per differential input, at most (longer inputs are cut, not rejected).
const MAX_CALLS: usize = 256;

/// Read up to [`MAX_CALLS`] values of `T` from what is left of `u`.
fn calls<'a, T: Arbitrary<'a>>(u: &mut Unstructured<'a>) -> Vec<T> {
    u.arbitrary_iter::<T>().map(|it| it.take(MAX_CALLS).filter_map(Result::ok).collect()).unwrap_or_default()
}

fn pick<T: Copy>(all: &[T], u: &mut Unstructured<'_>) -> T {
    all[usize::from(u.arbitrary::<u8>().unwrap_or(0)) % all.len()]
}

#[derive(Debug, Arbitrary)]
enum KickCall {
    Dirty { inode: u8, folio: u8, cpu: u8 },
    MarkSync { inode: u8 },
    Kick { inode: u8, folio: u8 },
    Run { rescuer: bool },
    Fire,
    Look { rescuer: bool },
    Drain,
}

/// The revisions `oracle_dontcache` compares: every dontcache-kick revision, with the
/// reference's knobs and the core's protocol.
fn kick_revisions() -> Vec<(String, RefKnobs, KickProtocol)> {
    KickRevision::ALL.iter().map(|r| (format!("dontcache-kick {}", r.name()), kick_knobs(*r), r.knobs())).collect()
}

/// `oracle_dontcache`: the kick/consume protocol with dirty-inode tracking and writeback (every
/// kick revision) against the reference: two inodes, DONTCACHE folios of drawn sizes (on both
/// sides of the batch; one a fault's, whose pages no kick follows) and a plain one each, each
/// inode clean or dirty at the start.
pub fn oracle_dontcache(data: &[u8]) -> Result<(), String> {
    const CPUS: usize = 2;
    const BATCH: i32 = 4;
    let mut u = Unstructured::new(data);
    let revisions = kick_revisions();
    let (name, knobs, proto) = &revisions[usize::from(u.arbitrary::<u8>().unwrap_or(0)) % revisions.len()];
    let mut size = || 1 + i64::from(u.arbitrary::<u8>().unwrap_or(0) % 9);
    let (kicked, fault, plain) = (FolioOf::KICKED, FolioOf::FAULT, FolioOf::PLAIN);
    let inodes = vec![vec![(kicked, size()), (fault, size()), (plain, 1)], vec![(kicked, size()), (plain, 1)]];
    let flags = u.arbitrary::<u8>().unwrap_or(0);
    let universe = KickUniverse { inodes, dirty_at_start: vec![flags & 1 != 0, flags & 2 != 0] };
    let mut reference = RefKick::new(&universe, CPUS, i64::from(BATCH), *knobs);
    let mut core = CoreKick::new(*proto, &universe, CPUS, BATCH);
    let inode = |i: u8| usize::from(i) % universe.inodes.len();
    for call in calls::<KickCall>(&mut u) {
        let op = match call {
            KickCall::Dirty { inode: i, folio, cpu } => {
                let i = inode(i);
                KickOp::Dirty {
                    inode: i,
                    folio: usize::from(folio) % universe.inodes[i].len(),
                    cpu: usize::from(cpu) % CPUS,
                }
            }
            KickCall::MarkSync { inode: i } => KickOp::MarkSync { inode: inode(i) },
            KickCall::Kick { inode: i, folio } => {
                let i = inode(i);
                KickOp::Kick { inode: i, folio: usize::from(folio) % universe.inodes[i].len() }
            }
            KickCall::Run { rescuer } => KickOp::Run { rescuer },
            KickCall::Fire => KickOp::Fire,
            KickCall::Look { rescuer } => KickOp::Look { rescuer },
            KickCall::Drain => KickOp::Drain,
        };
        let (want, got) = (reference.apply(op), core.apply(op));
        if got != want {
            return Err(format!("{name} {op:?}: core {got:?}, reference {want:?}"));
        }
        let seen = core.snapshot(&reference);
        if seen != reference {
            return Err(format!("{name} after {op:?}: core {seen:?}, reference {reference:?}"));
        }
    }
    Ok(())
}

#[derive(Debug, Arbitrary)]
enum AccountingCall {
    DontcacheWrite(u8),
    BufferedWrite(u8),
    Lookup(u8),
    MkwriteFault(u8),
    Zap(u8),
    Writeback(u8),
    WritebackRedirty(u8),
    Truncate(u8),
    Switch,
    Migrate,
    Split,
    CounterAdd { cpu: u8, amount: i8 },
    CounterRead,
    CounterSum,
}

/// `oracle_accounting`: WB_DONTCACHE_DIRTY accounting (every accounting revision) and the
/// percpu_counter under it (amounts on both sides of the batch, negative ones included), each
/// against its reference.
pub fn oracle_accounting(data: &[u8]) -> Result<(), String> {
    const CPUS: usize = 2;
    const BATCH: i32 = 16;
    let mut u = Unstructured::new(data);
    let revision = pick(&AccountingRevision::ALL, &mut u);
    let mut reference = RefAccounting::new(ref_revision(revision));
    let mut core = CoreAccounting::new(revision);
    let mut counter = CounterPair::new(CPUS, BATCH);
    let folios = reference.folios.len();
    for call in calls::<AccountingCall>(&mut u) {
        let f = |i: u8| usize::from(i) % folios;
        let op = match call {
            AccountingCall::DontcacheWrite(i) => AccOp::DontcacheWrite(f(i)),
            AccountingCall::BufferedWrite(i) => AccOp::BufferedWrite(f(i)),
            AccountingCall::Lookup(i) => AccOp::Lookup(f(i)),
            AccountingCall::MkwriteFault(i) => AccOp::MkwriteFault(f(i)),
            AccountingCall::Zap(i) => AccOp::Zap(f(i)),
            AccountingCall::Writeback(i) => AccOp::Writeback(f(i)),
            AccountingCall::WritebackRedirty(i) => AccOp::WritebackRedirty(f(i)),
            AccountingCall::Truncate(i) => AccOp::Truncate(f(i)),
            AccountingCall::Switch => AccOp::Switch,
            AccountingCall::Migrate => AccOp::Migrate,
            AccountingCall::Split => AccOp::Split,
            AccountingCall::CounterAdd { cpu, amount } => {
                let op = CounterOp::Add {
                    cpu: usize::from(cpu) % CPUS,
                    amount: i64::from(amount) % (2 * i64::from(BATCH) + 1),
                };
                counter.apply(op)?;
                continue;
            }
            AccountingCall::CounterRead => {
                counter.apply(CounterOp::Read)?;
                continue;
            }
            AccountingCall::CounterSum => {
                counter.apply(CounterOp::Sum)?;
                continue;
            }
        };
        reference.apply(op);
        core.apply(op);
        let seen = core.snapshot(&reference);
        if seen != reference {
            return Err(format!("{} after {op:?}: core {seen:?}, reference {reference:?}", revision.name()));
        }
    }
    Ok(())
}

#[derive(Debug, Arbitrary)]
enum SlotCall {
    Track { a: u8, b: u8, dt: u8 },
    Flush { dt: u8 },
    Done,
}

/// `oracle_slots`: both foreign-writeback tables (`cgwb_frn` keyed by (bdi_id, memcg_id),
/// `cgwb_bdev` keyed by device), every slot revision, capacities 1 to 4, against the reference.
pub fn oracle_slots(data: &[u8]) -> Result<(), String> {
    let mut u = Unstructured::new(data);
    let revision = pick(&SlotRevision::ALL, &mut u);
    let bdev = u.arbitrary::<bool>().unwrap_or(false);
    let capacity = 1 + usize::from(u.arbitrary::<u8>().unwrap_or(0) % 4);
    let mut pair = SlotsPair::new(revision, if bdev { "cgwb_bdev" } else { "cgwb_frn" }, capacity);
    for call in calls::<SlotCall>(&mut u) {
        let op = match call {
            SlotCall::Track { a, b, dt } => {
                let key = if bdev { (1 + i64::from(a % 6), 0) } else { (1 + i64::from(a % 2), 1 + i64::from(b % 3)) };
                SlotOp::Track { key, dt: i64::from(dt % 4) }
            }
            SlotCall::Flush { dt } => SlotOp::Flush { dt: i64::from(dt % 4) },
            SlotCall::Done => SlotOp::Done,
        };
        pair.apply(op).map_err(|e| format!("{} capacity {capacity}: {e}", revision.name()))?;
    }
    Ok(())
}

/// The revision a `sched_` campaign on `scenario` checks: `$WBCHECK_FUZZ_REVISION` if set, else
/// the scenario's first revision expected to pass under shuttle.
pub fn campaign_revision(scenario: &str, var: Option<String>) -> Result<&'static str, String> {
    let info = find(scenario).ok_or_else(|| unknown_scenario(scenario))?.info();
    match var {
        Some(name) => info
            .revision(&name)
            .map(|r| r.name)
            .ok_or_else(|| format!("{REVISION_VAR}: {}", unknown("revision", &name, &info.revision_names()))),
        None => info
            .revisions
            .iter()
            .find(|r| r.expected_violated(Checker::ShuttleRandom, Tier::Quick).is_empty())
            .map(|r| r.name)
            .ok_or_else(|| format!("{scenario} has no revision expected to pass: set {REVISION_VAR}")),
    }
}

fn unknown_scenario(name: &str) -> String {
    let names: Vec<&str> = scenarios().iter().map(|s| s.info().name).collect();
    unknown("scenario", name, &names)
}

/// One byte-scheduled shuttle execution of `scenario` at `revision` (quick-tier shuttle
/// configuration, the one `wbcheck replay` uses by default).
pub fn sched_execution(scenario: &str, revision: &str, data: &[u8]) -> Result<Replayed, String> {
    let s = find(scenario).ok_or_else(|| unknown_scenario(scenario))?;
    s.replay(revision, Checker::ShuttleRandom, ShuttleSchedule::Bytes(data), &Bounds::defaults(Tier::Quick))
}

/// The properties a `sched_` campaign on `scenario` treats as crashes: `$WBCHECK_FUZZ_PROPERTY`
/// (comma-separated) if set, else all of them (empty).
pub fn campaign_properties(scenario: &str, var: Option<String>) -> Result<Vec<&'static str>, String> {
    let info = find(scenario).ok_or_else(|| unknown_scenario(scenario))?.info();
    let valid: Vec<&'static str> = info.properties.iter().map(|(p, _)| *p).collect();
    let Some(list) = var else { return Ok(Vec::new()) };
    list.split(',')
        .map(|p| {
            valid
                .iter()
                .copied()
                .find(|v| *v == p.trim())
                .ok_or_else(|| format!("{PROPERTY_VAR}: {}", unknown("property", p, &valid)))
        })
        .collect()
}

/// The environment variable that narrows a `sched_` campaign to some properties (to hunt one bug
/// of a revision that has several).
pub const PROPERTY_VAR: &str = "WBCHECK_FUZZ_PROPERTY";

/// The body of a `sched_<scenario>` target: a violated property (of those selected) or a failed
/// execution is a crash, reported as the counterexample with the command that replays it. A bad
/// `$WBCHECK_FUZZ_REVISION` or `$WBCHECK_FUZZ_PROPERTY` ends the process with exit status 2.
pub fn sched_target(scenario: &str, data: &[u8]) {
    static CAMPAIGN: std::sync::OnceLock<(&'static str, Vec<&'static str>)> = std::sync::OnceLock::new();
    let (revision, properties) = CAMPAIGN.get_or_init(|| {
        let env = |k| std::env::var(k).ok().filter(|v| !v.is_empty());
        campaign_revision(scenario, env(REVISION_VAR))
            .and_then(|r| Ok((r, campaign_properties(scenario, env(PROPERTY_VAR))?)))
            .unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(2)
            })
    });
    match sched_execution(scenario, revision, data) {
        Ok(r) if !r.violations.iter().any(|v| properties.is_empty() || properties.contains(&v.property)) => {}
        Ok(r) => panic!(
            "{scenario} {revision}: property violated\n{}replay: wbcheck replay {scenario} --revision {revision} --fuzz-input <this input>\n",
            render::replayed_text(&r)
        ),
        Err(e) => panic!("{scenario} {revision}: the execution failed: {e}"),
    }
}

/// The shape of the `c11_loom` target's programs: at most 3 threads of 3 operations over 2
/// locations, so that every input runs in well under a second (loom's executions grow fast with
/// threads and RMWs; larger shapes are `wbcheck c11 campaign --shape`'s).
pub const C11_SHAPE: wb_models::c11::gen::Shape =
    wb_models::c11::gen::Shape { max_threads: 3, max_ops: 3, max_locs: 2, mutexes: true, sc_accesses: true };

/// `c11_loom`: the program the bytes choose, checked against loom (`Err` describes a mismatch).
pub fn c11_loom(data: &[u8]) -> Result<(), String> {
    use wb_models::c11::{differential::compare, gen};
    let p = gen::program(&mut gen::Bytes::new(data), C11_SHAPE);
    let c = compare(&p);
    if c.mismatches().is_empty() {
        Ok(())
    } else {
        Err(c.to_string())
    }
}
