#![doc = include_str!("dontcache_kick.md")]

use crate::bounds::Tier;
use crate::flusher::{flusher_size, Expedition, Flusher, FlusherBounds, FlusherEvent};
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{canonical, permutations, renumber, set_partitions, RoleDecl, ScopeDecl};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::dontcache::filemap_dontcache_kick_writeback;
use wb_core::folio::Folio;
use wb_core::fs_writeback::__mark_inode_dirty;
use wb_core::inode::{Inode, IoList, I_DIRTY, I_DIRTY_PAGES, I_DIRTY_SYNC};
use wb_core::page_writeback::filemap_dirty_folio;
use wb_core::revision::KickRevision;
use wb_core::revision::Revision;
use wb_core::sync::Platform;
use wb_core::trace::Trace;
use wb_core::wb::{Bdi, Wb, WB_HAS_DIRTY_IO};

pub const NAME: &str = <KickRevision as Revision>::SCENARIO;
pub use wb_core::property::{DIRTY_TRACKING, EXPEDITION, NO_IDLE_SPIN, QUIESCENCE};
const PROPERTIES: &[&str] = &[EXPEDITION, QUIESCENCE, NO_IDLE_SPIN, DIRTY_TRACKING];

/// A role: one thread's kernel call sequence (each op once per operation of the thread).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// An RWF_DONTCACHE write: dirty a DONTCACHE folio, then the kick.
    Dontcache,
    /// A write without RWF_DONTCACHE (or a write fault): dirty a folio; no kick.
    Buffered,
    /// `mark_inode_dirty_sync`: the inode dirtied without pages.
    InodeDirtier,
    /// A write fault on a clean PG_dropbehind folio that fault-around mapped: dirty it (its
    /// pages counted in WB_DONTCACHE_DIRTY); no kick.
    DropbehindFault,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Dontcache => "dontcache-writer",
            Role::Buffered => "buffered-writer",
            Role::InodeDirtier => "inode-dirtier",
            Role::DropbehindFault => "dropbehind-fault",
        }
    }

    const ALL: [Role; 4] = [Role::Dontcache, Role::Buffered, Role::InodeDirtier, Role::DropbehindFault];

    /// Its dirtying adds to WB_DONTCACHE_DIRTY.
    pub fn adds(self) -> bool {
        matches!(self, Role::Dontcache | Role::DropbehindFault)
    }
}

/// A folio of a configuration: PG_dropbehind set, and whether a kick follows its dirtying (a
/// dontcache-writer's folio).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FolioOf {
    pub dropbehind: bool,
    pub kicked: bool,
}

impl FolioOf {
    /// A dontcache-writer's folio.
    pub const KICKED: FolioOf = FolioOf { dropbehind: true, kicked: true };
    /// A dropbehind-fault's folio.
    pub const FAULT: FolioOf = FolioOf { dropbehind: true, kicked: false };
    /// A buffered-writer's folio, or an inode's resident dirty one.
    pub const PLAIN: FolioOf = FolioOf { dropbehind: false, kicked: false };
}

/// One thread of a configuration: its role, the inode it works on, and (for writers) which of
/// that inode's folios it dirties.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Thread {
    pub role: Role,
    pub inode: usize,
    pub folio: usize,
}

/// One configuration of the scope: the threads besides the flusher and the inodes dirty at the
/// start (the kind of worker of each flusher run is a choice within every configuration).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Setup {
    pub threads: Vec<Thread>,
    /// Per inode: dirty at the start (I_DIRTY_PAGES, one dirty non-DONTCACHE page, on `b_dirty`,
    /// the periodic timer armed by its `__mark_inode_dirty`).
    pub dirty_at_start: Vec<bool>,
}

impl Setup {
    pub fn inodes(&self) -> usize {
        self.dirty_at_start.len()
    }

    /// The folios of inode `i`: the writers' and faults' (indices as in [`Thread::folio`]), then
    /// the resident dirty one (no PG_dropbehind) if the inode starts dirty.
    pub fn folios_of(&self, i: usize) -> Vec<FolioOf> {
        let n = self.threads.iter().filter(|t| t.inode == i && t.role != Role::InodeDirtier).map(|t| t.folio + 1).max();
        let mut v: Vec<FolioOf> = (0..n.unwrap_or(0))
            .map(|f| {
                let role = |r: Role| self.threads.iter().any(|t| t.inode == i && t.folio == f && t.role == r);
                match (role(Role::Dontcache), role(Role::DropbehindFault)) {
                    (true, _) => FolioOf::KICKED,
                    (false, true) => FolioOf::FAULT,
                    (false, false) => FolioOf::PLAIN,
                }
            })
            .collect();
        if self.dirty_at_start[i] {
            v.push(FolioOf::PLAIN);
        }
        v
    }

    pub fn label(&self) -> String {
        let threads: Vec<String> = self
            .threads
            .iter()
            .map(|t| match t.role {
                Role::InodeDirtier => format!("{}(i{})", t.role.name(), t.inode),
                _ => format!("{}(i{} f{})", t.role.name(), t.inode, t.folio),
            })
            .collect();
        let dirty: Vec<String> =
            self.dirty_at_start.iter().enumerate().filter(|(_, d)| **d).map(|(i, _)| format!("i{i}")).collect();
        let start = if dirty.is_empty() {
            "every inode clean, WB_has_dirty_io 0".to_string()
        } else {
            format!("{} dirty at start, WB_has_dirty_io 1", dirty.join(", "))
        };
        format!("{}; {start}", threads.join(" + "))
    }

    /// The canonical form: the least relabelling over permutations of same-role threads, with
    /// inodes and folios numbered by first use.
    fn canonical_key(&self) -> (Vec<Thread>, Vec<bool>) {
        permutations(self.threads.len())
            .into_iter()
            .filter(|p| p.iter().enumerate().all(|(i, &j)| self.threads[i].role == self.threads[j].role))
            .map(|p| {
                let threads: Vec<Thread> = p.iter().map(|&j| self.threads[j]).collect();
                let inodes = renumber(&threads.iter().map(|t| t.inode).collect::<Vec<_>>());
                let folio_keys: Vec<usize> = threads.iter().map(|t| t.inode * 64 + t.folio).collect();
                let mut out = Vec::new();
                for (k, t) in threads.iter().enumerate() {
                    let inode = inodes[k];
                    let same: Vec<usize> = (0..threads.len()).filter(|&m| threads[m].inode == t.inode).collect();
                    let local = renumber(&same.iter().map(|&m| folio_keys[m]).collect::<Vec<_>>());
                    let pos = same.iter().position(|&m| m == k).expect("k is on its inode");
                    out.push(Thread { role: t.role, inode, folio: local[pos] });
                }
                let mut dirty = vec![false; self.inodes()];
                for (k, t) in threads.iter().enumerate() {
                    dirty[inodes[k]] = self.dirty_at_start[t.inode];
                }
                (out, dirty)
            })
            .min()
            .expect("the identity permutation")
    }
}

/// Every configuration with 1 to `max_threads` threads (at least one DONTCACHE writer), every
/// way of placing them on inodes, every way for DONTCACHE writers on one inode to share folios,
/// and every inode clean or dirty at the start; one per class of renamings.
pub fn enumerate(max_threads: usize) -> Vec<Setup> {
    let mut all = Vec::new();
    for n in 1..=max_threads {
        for roles in role_multisets(n) {
            for inodes in set_partitions(n) {
                let nr_inodes = inodes.iter().max().map_or(0, |m| m + 1);
                for folios in folio_choices(&roles, &inodes) {
                    for dirty in 0..(1usize << nr_inodes) {
                        let threads =
                            (0..n).map(|k| Thread { role: roles[k], inode: inodes[k], folio: folios[k] }).collect();
                        let dirty_at_start = (0..nr_inodes).map(|i| dirty & (1 << i) != 0).collect();
                        all.push(Setup { threads, dirty_at_start });
                    }
                }
            }
        }
    }
    canonical(all, Setup::canonical_key)
}

/// Sorted role lists of length `n` with at least one DONTCACHE writer.
fn role_multisets(n: usize) -> Vec<Vec<Role>> {
    fn go(n: usize, from: usize, cur: &mut Vec<Role>, out: &mut Vec<Vec<Role>>) {
        if cur.len() == n {
            if cur.contains(&Role::Dontcache) {
                out.push(cur.clone());
            }
            return;
        }
        for r in from..Role::ALL.len() {
            cur.push(Role::ALL[r]);
            go(n, r, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(n, 0, &mut Vec::new(), &mut out);
    out
}

/// Every folio assignment: on each inode, DONTCACHE writers partition their folios among
/// themselves; every buffered writer and every fault has a folio of its own (a buffered write
/// into a DONTCACHE folio is the lookup that clears PG_dropbehind: scenario
/// dontcache-accounting; a fault into a DONTCACHE writer's folio is left out: two dontcache-writers
/// sharing a folio already have a page counted by one task and kicked for by another).
fn folio_choices(roles: &[Role], inodes: &[usize]) -> Vec<Vec<usize>> {
    let dc: Vec<usize> = (0..roles.len()).filter(|&k| roles[k] == Role::Dontcache).collect();
    let mut out = Vec::new();
    for groups in set_partitions(dc.len()) {
        // Writers in one group share a folio only if they are on one inode.
        if dc
            .iter()
            .enumerate()
            .any(|(a, &ka)| dc.iter().enumerate().any(|(b, &kb)| groups[a] == groups[b] && inodes[ka] != inodes[kb]))
        {
            continue;
        }
        let mut folio = vec![0; roles.len()];
        for (a, &k) in dc.iter().enumerate() {
            folio[k] = groups[a];
        }
        let mut next = groups.iter().max().map_or(0, |m| m + 1);
        for (k, r) in roles.iter().enumerate() {
            if matches!(r, Role::Buffered | Role::DropbehindFault) {
                folio[k] = next;
                next += 1;
            }
        }
        out.push(folio);
    }
    out
}

/// The size of the models of one checker and tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KickBounds {
    pub max_threads: usize,
    pub ops: usize,
    pub nr_cpus: usize,
    /// The percpu batch of `wb_stat_mod` (the kernel's WB_STAT_BATCH is 16 for 2 CPUs; a small
    /// one makes the second add on a CPU take the locked fold).
    pub batch: i32,
    pub flusher: FlusherBounds,
    /// shuttle: one flusher thread serves the worklist until the others are done ([`Flusher::serve`]);
    /// loom: the flusher thread's looks, then the main thread drains ([`Flusher::drain`]).
    pub serve: bool,
    /// loom: two DONTCACHE writers run on one CPU (the second add folds) as well as on two.
    pub one_cpu_pairs: bool,
}

/// One scenario instance: a revision, the configurations it runs, and their size.
#[derive(Debug, Clone)]
pub struct KickModel {
    pub revision: KickRevision,
    /// loom: exactly one (each configuration is a loom variant); shuttle: every configuration
    /// of the scope, one drawn per execution.
    pub setups: Arc<Vec<Setup>>,
    pub bounds: KickBounds,
}

impl KickModel {
    fn setup<P: Platform>(&self) -> &Setup {
        let n = self.setups.len();
        &self.setups[if n == 1 { 0 } else { P::choose(n) % n }]
    }
}

impl Model for KickModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let b = self.bounds;
        let proto = self.revision.knobs();
        let setup = self.setup::<P>().clone();
        if self.setups.len() > 1 {
            trace.set_configuration(setup.label());
        }
        let bdi = Arc::new(Bdi::<P>::new(0, b.nr_cpus, b.batch, setup.threads.len() + 3).with_knobs(proto));
        let inodes: Vec<Arc<Inode<P>>> = (0..setup.inodes())
            .map(|i| {
                let folios = setup
                    .folios_of(i)
                    .into_iter()
                    .enumerate()
                    .map(|(f, of)| Arc::new(Folio::new((i * 8 + f) as u64, 1, of.dropbehind)))
                    .collect();
                Arc::new(Inode::new(i as u32, bdi.clone(), 0, true, folios))
            })
            .collect();
        {
            let ctx = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
            for (i, inode) in inodes.iter().enumerate() {
                if setup.dirty_at_start[i] {
                    let resident = inode.folios.last().expect("a dirty inode has its resident folio");
                    filemap_dirty_folio(&ctx, inode, resident);
                }
            }
        }
        let writers = setup.threads.iter().filter(|t| t.role == Role::Dontcache);
        let kicked = Arc::new(Expedition::new(writers.map(|t| inodes[t.inode].folios[t.folio].clone()), true));
        let flusher = Arc::new(Flusher::<P>::new(b.flusher, setup.threads.len()));

        let mut handles = Vec::with_capacity(setup.threads.len() + 1);
        for (k, (&thread, &plan)) in setup.threads.iter().zip(plans).enumerate() {
            let (inode, trace, kicked, flusher) =
                (inodes[thread.inode].clone(), trace.clone(), kicked.clone(), flusher.clone());
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, &format!("{}{k}", thread.role.name()), plan);
                for _ in 0..b.ops {
                    flusher.call(k, || match thread.role {
                        Role::Dontcache => {
                            let folio = &inode.folios[thread.folio];
                            filemap_dirty_folio(&ctx, &inode, folio);
                            filemap_dontcache_kick_writeback(&ctx, &inode);
                            kicked.kicked(folio, flusher.epoch());
                        }
                        Role::Buffered | Role::DropbehindFault => {
                            filemap_dirty_folio(&ctx, &inode, &inode.folios[thread.folio]);
                        }
                        Role::InodeDirtier => __mark_inode_dirty(&ctx, &inode, 1 << I_DIRTY_SYNC),
                    });
                }
                flusher.thread_done(k);
            }));
        }
        let refs = |inodes: &[Arc<Inode<P>>]| -> Vec<Arc<Inode<P>>> { inodes.to_vec() };
        {
            let (bdi, trace, kicked, flusher, inodes) =
                (bdi.clone(), trace.clone(), kicked.clone(), flusher.clone(), refs(&inodes));
            let plan = plans[setup.threads.len()];
            handles.push(P::spawn(move || {
                let ctx = Ctx::<P>::new(trace, "flusher", plan);
                let inodes: Vec<&Inode<P>> = inodes.iter().map(|i| &**i).collect();
                let observe = |e: FlusherEvent<'_>| kicked.observe(e);
                if b.serve {
                    flusher.serve(&ctx, &[bdi.wb(0)], &inodes, &observe);
                } else {
                    (0..b.flusher.looks).for_each(|_| flusher.look(&ctx, &[bdi.wb(0)], &inodes, &observe));
                }
            }));
        }
        handles.into_iter().for_each(P::join);

        let wb = bdi.wb(0);
        let inode_refs: Vec<&Inode<P>> = inodes.iter().map(|i| &**i).collect();
        let ctx = Ctx::<P>::new(trace.clone(), "flusher", plans[setup.threads.len()]);
        let observe = |e: FlusherEvent<'_>| kicked.observe(e);
        if !b.serve {
            flusher.drain(&ctx, &[wb], &inode_refs, &observe);
        }
        let mut v = flusher.violations(&[wb]);
        if let Some(message) = dirty_tracking(wb, &inodes) {
            v.push(Violation { property: DIRTY_TRACKING, message });
        }
        if let Some(message) = kicked.violation(&ctx, &[wb], &inode_refs).filter(|_| flusher.timing_judged()) {
            v.push(Violation { property: EXPEDITION, message });
        }
        v
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        let setup = &self.setups[0];
        let flusher = CpuPlan::Fixed(0);
        let dc: Vec<usize> = (0..setup.threads.len()).filter(|&k| setup.threads[k].role.adds()).collect();
        let base: Vec<CpuPlan> = setup.threads.iter().map(|_| CpuPlan::Fixed(0)).chain([flusher]).collect();
        if dc.len() < 2 {
            // One adder: its CPU changes nothing the others can see (the sum reads every slot).
            return vec![base];
        }
        // Two adders: on one CPU (the second add folds) and on two (up to renaming CPUs). No
        // migration: `folio_account_dirtied` adds with IRQs off under the i_pages xa_lock.
        let mut spread = base.clone();
        spread[dc[1]] = CpuPlan::Fixed(1);
        if self.bounds.one_cpu_pairs {
            vec![spread, base]
        } else {
            vec![spread]
        }
    }

    fn loom_variants(&self) -> Vec<Self> {
        self.setups.iter().map(|s| KickModel { setups: Arc::new(vec![s.clone()]), ..self.clone() }).collect()
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        let drawn = CpuPlan::Drawn { nr_cpus: self.bounds.nr_cpus };
        let max = self.setups.iter().map(|s| s.threads.len()).max().unwrap_or(0);
        // Threads beyond a drawn configuration's are not spawned; the flusher is last.
        let mut plans: Vec<CpuPlan> = (0..max).map(|_| drawn).collect();
        plans.push(CpuPlan::Fixed(0));
        plans
    }

    fn placement_label(&self, plans: &[CpuPlan]) -> String {
        if self.setups.len() > 1 {
            return "writers drawn from the CPUs, flusher cpu0".into();
        }
        let setup = &self.setups[0];
        plans
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let who = setup.threads.get(k).map_or("flusher".to_string(), |t| format!("{}{k}", t.role.name()));
                format!("{who} {}", p.describe())
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn size(&self) -> Vec<(String, u64)> {
        let b = self.bounds;
        let mut v = vec![
            ("max_threads".to_string(), b.max_threads as u64),
            ("ops_per_thread".to_string(), b.ops as u64),
            ("cpus".to_string(), b.nr_cpus as u64),
            ("batch".to_string(), b.batch as u64),
        ];
        v.extend(flusher_size(&b.flusher, b.serve));
        v
    }

    fn configurations(&self) -> u64 {
        self.setups.len() as u64
    }

    /// Bound 1 (quick), 2 (scope), 3 (deep). Not none in the deep tier: since the flusher's call
    /// boundaries are visible to the search (docs/findings.md, "A ghost guard the search could not
    /// see"), a search without a bound costs far more here (quick unit 16: over 3M executions
    /// unfinished, against 1,592 at bound 1).
    fn loom_preemptions(&self, tier: Tier) -> Option<usize> {
        Some(match tier {
            Tier::Quick => 1,
            Tier::Scope => 2,
            Tier::Deep => 3,
        })
    }

    fn configuration(&self) -> String {
        if self.setups.len() == 1 {
            self.setups[0].label()
        } else {
            String::new()
        }
    }
}

/// `dirty-tracking` at quiescence: every inode with a DIRTY-marked folio has I_DIRTY_PAGES; every
/// inode with a DIRTY-marked folio or an `I_DIRTY` bit is on its wb's I/O lists (an inode off the
/// lists is never written by the flusher, its pages nor its metadata); and WB_has_dirty_io is set
/// exactly when those lists are not empty (what the kick's `wb_has_dirty_io` test and the
/// flusher's list walk rely on).
fn dirty_tracking<P: Platform>(wb: &Wb<P>, inodes: &[Arc<Inode<P>>]) -> Option<String> {
    let mut wrong = Vec::new();
    for inode in inodes {
        let tagged = inode.mapping_tagged_dirty();
        let dirty = inode.i_state.word() & I_DIRTY;
        if (tagged && dirty & 1 << I_DIRTY_PAGES == 0) || ((tagged || dirty != 0) && inode.io_list() == IoList::None) {
            wrong.push(format!(
                "inode {} has {} dirty page(s), I_DIRTY_SYNC {} and I_DIRTY_PAGES {}, and it is on {}: no writeback will find it",
                inode.ino,
                if tagged { "some" } else { "no" },
                (dirty & 1 << I_DIRTY_SYNC != 0) as u8,
                (dirty & 1 << I_DIRTY_PAGES != 0) as u8,
                inode.io_list().name()
            ));
        }
    }
    let listed = wb.nr_io_inodes() > 0;
    if wb.state.test_bit(WB_HAS_DIRTY_IO) != listed {
        wrong.push(format!(
            "WB_has_dirty_io is {} but {} inode(s) are on the I/O lists",
            wb.state.test_bit(WB_HAS_DIRTY_IO) as u8,
            wb.nr_io_inodes()
        ));
    }
    (!wrong.is_empty()).then(|| wrong.join("; "))
}

/// The declared loom scope: up to two threads of every role, every sharing and start state.
pub fn kick_scope() -> Vec<Setup> {
    enumerate(2)
}

/// The flusher's bounds per checker and tier. loom: two looks while the other threads run, then
/// the drain; K = 1 in the quick tier (no two rescuer runs in a row), 2 in the scope and deep tiers.
/// shuttle: the flusher serves until the others are done, K = 2. At most 2 runs per look and
/// K + 2 after the others, plus one: a run still queued after that many fails `quiescence`.
pub fn kick_flusher(checker: Checker, tier: Tier) -> FlusherBounds {
    let (looks, k) = match (checker, tier) {
        (Checker::Loom, Tier::Quick) => (1, 1),
        (Checker::Loom, _) => (2, 2),
        _ => (0, 2),
    };
    let max_runs = if checker == Checker::Loom { 2 * looks + k + 3 } else { 12 };
    FlusherBounds { looks, rescuer_streak: k, max_runs }
}

/// The bounds of dontcache-kick per checker. loom: the whole scope (see the header). shuttle:
/// up to three threads with one operation each, configurations drawn. (With two operations each,
/// uniformly random schedules met the `__mark_inode_dirty` window in only half the seeds at
/// 10,000 executions; with one, every seed of 1 to 10 met it within 800.)
pub fn kick_bounds(checker: Checker, tier: Tier) -> KickBounds {
    let flusher = kick_flusher(checker, tier);
    match checker {
        Checker::Loom => KickBounds {
            max_threads: 2,
            ops: 1,
            nr_cpus: 2,
            batch: 2,
            flusher,
            serve: false,
            one_cpu_pairs: tier != Tier::Quick,
        },
        _ => KickBounds { max_threads: 3, ops: 1, nr_cpus: 2, batch: 4, flusher, serve: true, one_cpu_pairs: true },
    }
}

/// The shuttle scope: up to three threads (their configurations drawn per execution).
pub fn shuttle_kick_scope() -> Vec<Setup> {
    enumerate(3)
}

pub fn kick_model(revision: KickRevision, checker: Checker, tier: Tier) -> KickModel {
    let setups = if checker == Checker::Loom { kick_scope() } else { shuttle_kick_scope() };
    KickModel { revision, setups: Arc::new(setups), bounds: kick_bounds(checker, tier) }
}

/// The declared scope of dontcache-kick.
pub fn kick_scope_decl() -> ScopeDecl {
    ScopeDecl {
        roles: vec![
            RoleDecl {
                name: "dontcache-writer",
                runs: "filemap_dirty_folio (a DONTCACHE folio) then filemap_dontcache_kick_writeback",
                callers: "generic_perform_write / iomap_file_buffered_write with IOCB_DONTCACHE (ext4, xfs, btrfs ...), then generic_write_sync",
            },
            RoleDecl {
                name: "buffered-writer",
                runs: "filemap_dirty_folio (a folio without PG_dropbehind); no kick",
                callers: "buffered writes without RWF_DONTCACHE; write faults on a shared mapping (fault_dirty_shared_page -> folio_mark_dirty)",
            },
            RoleDecl {
                name: "inode-dirtier",
                runs: "__mark_inode_dirty(I_DIRTY_SYNC)",
                callers: "file_update_time / generic_update_time (write and fault paths, including a writer without ->page_mkwrite), notify_change (chmod, utimes), xattr updates",
            },
            RoleDecl {
                name: "dropbehind-fault",
                runs: "filemap_dirty_folio (a folio with PG_dropbehind: counted in WB_DONTCACHE_DIRTY); no kick",
                callers: "a write fault (wp_page_shared -> do_page_mkwrite / fault_dirty_shared_page -> folio_mark_dirty) on a clean PG_dropbehind folio that fault-around (filemap_map_pages) mapped without the lookup that clears the flag",
            },
            RoleDecl {
                name: "flusher",
                runs: "wb_workfn whenever a run is on the worklist (process_one_work; on a normal kworker wb_do_writeback -> wb_check_start_dontcache: test_and_clear_bit, wb_stat_sum, wb_writeback of the wb's inodes; on bdi_wq's rescuer writeback_inodes_wb(wb, 1024), the kick untouched; then the end of wb_workfn: requeue as the revision does, else wb_wakeup_delayed), and the timer wb_wakeup_delayed armed, firing dirty_writeback_interval later (models/src/flusher.rs)",
                callers: "bdi_wq's work item wb->dwork: queued by wb_wakeup or by the timer; exactly one per wb, never two at once; bdi_wq is WQ_MEM_RECLAIM, so its rescuer runs pending items when the pool cannot create workers (memory pressure: send_mayday)",
            },
        ],
        counts: "one flusher; loom: 1 or 2 other threads, one operation each, at least one dontcache-writer; the flusher thread's looks (1 quick, 2 scope and deep), then the drain on the main thread, at most 2 x looks + K + 3 runs, each run's worker a choice with at most K rescuer runs in a row (K = 1 quick, 2 scope and deep); shuttle: 1 to 3 other threads, one operation each, the flusher serving the worklist (worker or rescuer drawn per run, K = 2, at most 12 runs)",
        sharing: "one bdi, its root wb; threads on one inode or on different ones (every partition); dontcache-writers on one inode may write one folio or different ones; a buffered-writer's or dropbehind-fault's folio is its own",
        initial: "each inode clean, or dirty (I_DIRTY_PAGES, one dirty non-DONTCACHE page, on b_dirty); WB_has_dirty_io set exactly when an inode is dirty; WB_start_dontcache clear with nothing queued (a set bit with its run queued is the state a finished dontcache-writer leaves, which the configurations with one more writer reach)",
        excluded: "cgroup wb switches (scenario wb-pin); a buffered write into a DONTCACHE folio (the lookup that clears PG_dropbehind: scenario dontcache-accounting); a rescuer run that finds the wb unregistered (it takes the normal path: wb-pin's release flush); lazytime (I_DIRTY_TIME) and other tasks holding I_SYNC; kupdate and background writeback in a run (they write inodes dirtied 30 s ago or above the background threshold); a timer firing while another thread is inside a kernel call",
        bounds: "loom: 2 CPUs, batch 2, CPU placements: one for a single adder to WB_DONTCACHE_DIRTY (dontcache-writer or dropbehind-fault), two for two (one CPU, two CPUs; no migration: the add runs with IRQs off under the i_pages lock); preemption bound 1 (quick: one look, K = 1, two adders on two CPUs only), 2 (scope: two looks, K = 2, every placement), 3 (deep: the same); shuttle: the shuttle scope (up to three threads, one operation each, 229 configurations) drawn per execution, CPUs drawn, batch 4; 10,000 iterations (quick), 50,000 (scope), 200,000 (deep). oracle: every interleaving of whole calls over the loom scope, one operation per thread (quick) or two (scope, deep), the flusher's two looks (each on a worker or the rescuer) and a drain; and each configuration's whole state graph, unbounded in runs, for the lassos and the end states",
        configurations: kick_scope().iter().map(Setup::label).collect(),
    }
}

/// The registry entry.
pub struct DontcacheKick;

impl DontcacheKick {
    pub fn model_for(revision: KickRevision, checker: Checker, tier: Tier) -> KickModel {
        kick_model(revision, checker, tier)
    }
}

impl ModelScenario for DontcacheKick {
    type Model = KickModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "can the RWF_DONTCACHE flusher kick lose a wakeup? (seed 002 patch 3)",
            header: include_str!("dontcache_kick.md"),
            properties: &[
                (
                    EXPEDITION,
                    "every page a dontcache-writer counted and kicked for is written by an immediate flusher run (not one only the timer caused), or a consume in an immediate run after its count read a budget covering every owed page and wrote that budget in full (oldest inodes first, by design)",
                ),
                (
                    QUIESCENCE,
                    "once the other threads are done, at most K + 2 flusher runs start (K: the fairness bound on consecutive rescuer runs) and no run is left queued",
                ),
                (
                    NO_IDLE_SPIN,
                    "a flusher run that wrote nothing does not queue itself again for immediate execution (not leaning on K: under memory pressure the rescuer has no such bound)",
                ),
                (
                    DIRTY_TRACKING,
                    "at the end every inode with dirty pages has I_DIRTY_PAGES, every inode with dirty pages or an I_DIRTY bit is on its wb's I/O lists, and WB_has_dirty_io is set exactly when the lists are not empty",
                ),
            ],
            scope: kick_scope_decl(),
            revisions: revision_infos::<KickRevision>(),
        }
    }

    fn model(&self, revision: &str, checker: Checker, tier: Tier) -> Result<KickModel, String> {
        Ok(Self::model_for(parse_revision(NAME, revision)?, checker, tier))
    }
}
