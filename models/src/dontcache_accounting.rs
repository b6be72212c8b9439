#![doc = include_str!("dontcache_accounting.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::filemap::{__filemap_get_folio_mpol, filemap_folio_at, folio_end_dropbehind, truncate_inode_folio};
use wb_core::folio::Folio;
use wb_core::folio::PAGECACHE_TAG_DIRTY;
use wb_core::fs_writeback::{inode_switch_wbs, inode_switch_wbs_work_fn};
use wb_core::huge_memory::__split_folio_to_order;
use wb_core::inode::Inode;
use wb_core::migrate::migrate_folio;
use wb_core::page_writeback::{
    filemap_dirty_folio, folio_clear_dirty_for_io, folio_redirty_for_writepage, write_locked_folio,
};
use wb_core::pte::{pte_mkwrite_dirty, zap_pte_range, PteState};
use wb_core::revision::Revision;
use wb_core::revision::{Accounting, AccountingRevision};
use wb_core::sync::Platform;
use wb_core::trace::Trace;
use wb_core::wb::{wb_get, Bdi, WbStatItem};

pub const NAME: &str = <AccountingRevision as Revision>::SCENARIO;
pub use wb_core::property::COUNTER_EXACT;
const PROPERTIES: &[&str] = &[COUNTER_EXACT];

/// The folios of the model as (inode, slot in the inode, pages): inode 0 (can write back, on
/// wb1) holds folio 0 (1 page, index 0), folio 1 (2 pages), folios 3 and 4 (1 page each: folio
/// 1's halves, not in the page cache until it is split) and folio 5 (1 page: the folio migration
/// moves folio 0 to, not in the page cache until then); inode 1 (a mapping that cannot write
/// back, on the root wb) holds folio 2.
pub const FOLIOS: [(usize, usize, u32); 6] = [(0, 0, 1), (0, 1, 2), (1, 0, 1), (0, 2, 1), (0, 3, 1), (0, 4, 1)];

/// The page-cache index of each folio (a migrated folio takes its predecessor's).
const INDEX: [u64; 6] = [0, 1, 2, 3, 4, 0];

/// Migration moves folio 0 to this one.
pub const MIGRATION_TARGET: usize = 5;

/// One thread's kernel call sequence, on the folio at a page-cache slot (folio 0 or 2, or
/// whatever replaced it there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// An RWF_DONTCACHE write into the folio: `write_begin` (FGP_LOCK | FGP_DONTCACHE: the
    /// reference and the lock, PG_dropbehind left alone), `filemap_dirty_folio`, unlock.
    DontcacheWrite(usize),
    /// A buffered write without RWF_DONTCACHE: `write_begin` (FGP_LOCK: the lookup clears
    /// PG_dropbehind under the folio lock, v7 decrements), `filemap_dirty_folio`, unlock.
    BufferedWrite(usize),
    /// A lookup without FGP_LOCK (`filemap_fault`'s first lookup, `read_cache_folio`): the
    /// reference, the PG_dropbehind clear and decrement, the put.
    Lookup(usize),
    /// A write fault on the folio's write-protected PTE (`wp_page_shared` with ->page_mkwrite):
    /// the folio lock, the PTE made writable and dirty, `folio_mark_dirty`, unlock.
    MkwriteFault(usize),
    /// `zap_pte_range` (munmap, exit, MADV_DONTNEED): under the PTL only, a dirty PTE's bit goes
    /// to the folio (`folio_mark_dirty`).
    Zap(usize),
    /// Writeback of the folio (`writeback_iter`: the DIRTY-tagged folio, locked;
    /// `folio_clear_dirty_for_io` with `folio_mkclean` first; I/O), unlock, then
    /// `folio_end_dropbehind`.
    Writeback(usize),
    /// A writepage that cannot write now: folio lock, `folio_clear_dirty_for_io`, then
    /// `folio_redirty_for_writepage`, unlock.
    WritebackRedirty(usize),
    /// Truncation (`truncate_inode_folio`: lock, unmap, cancel dirty, remove).
    Truncate(usize),
    /// The cgroup wb switch of inode 0 from wb1 to wb2.
    Switch,
    /// Migration of folio 0 to folio 5 (`migrate_pages`, MIGRATE_SYNC).
    Migrate,
    /// `__split_folio_to_order` of folio 1 into folios 3 and 4, folio locked. It runs with the
    /// folio's refcount frozen, so no lookup holds it meanwhile: the oracle and the proptest
    /// comparison run it; the concurrent configurations do not.
    Split,
}

impl Role {
    pub fn name(self) -> String {
        match self {
            Role::DontcacheWrite(f) => format!("dontcache-write(f{f})"),
            Role::BufferedWrite(f) => format!("buffered-write(f{f})"),
            Role::Lookup(f) => format!("lookup(f{f})"),
            Role::MkwriteFault(f) => format!("mkwrite-fault(f{f})"),
            Role::Zap(f) => format!("zap(f{f})"),
            Role::Writeback(f) => format!("writeback(f{f})"),
            Role::WritebackRedirty(f) => format!("writeback-redirty(f{f})"),
            Role::Truncate(f) => format!("truncate(f{f})"),
            Role::Switch => "switcher".into(),
            Role::Migrate => "migrate(f0)".into(),
            Role::Split => "split(f1)".into(),
        }
    }

    /// The roles a configuration can pair on folio `f` (no switch or migration on the mapping
    /// that cannot write back: its bdi has no cgroup wbs, and the scope migrates folio 0 only).
    fn on(f: usize) -> Vec<Role> {
        let mut v = vec![
            Role::DontcacheWrite(f),
            Role::BufferedWrite(f),
            Role::Lookup(f),
            Role::MkwriteFault(f),
            Role::Zap(f),
            Role::Writeback(f),
            Role::WritebackRedirty(f),
            Role::Truncate(f),
        ];
        if f == 0 {
            v.extend([Role::Switch, Role::Migrate]);
        }
        v
    }

    /// Whether the role can do anything from `start`: a fault and a zap need a mapped PTE (a
    /// clean one is dirtied by a fault); migration runs on unmapped folios only (see the scope).
    fn applies(self, start: Start) -> bool {
        match self {
            Role::MkwriteFault(_) | Role::Zap(_) => start.pte != PteState::None,
            Role::Migrate => start.pte == PteState::None,
            _ => true,
        }
    }

    /// A dirtier of the folio (for the switch triples).
    fn dirties(self) -> bool {
        matches!(
            self,
            Role::DontcacheWrite(_)
                | Role::BufferedWrite(_)
                | Role::MkwriteFault(_)
                | Role::Zap(_)
                | Role::WritebackRedirty(_)
        )
    }

    /// A role that takes the folio's dirtiness or PG_dropbehind away (for the switch triples).
    fn cleans(self) -> bool {
        matches!(self, Role::Writeback(_) | Role::Truncate(_) | Role::Lookup(_) | Role::Migrate)
    }
}

/// The state of the configuration's folio at the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Start {
    pub dirty: bool,
    pub pte: PteState,
}

impl Start {
    /// Every consistent start: a dirty PTE implies a dirty folio (the fault that dirtied the PTE
    /// dirtied the folio, and writeback cleans the PTE before the folio).
    const ALL: [Start; 5] = [
        Start { dirty: false, pte: PteState::None },
        Start { dirty: false, pte: PteState::Clean },
        Start { dirty: true, pte: PteState::None },
        Start { dirty: true, pte: PteState::Clean },
        Start { dirty: true, pte: PteState::Dirty },
    ];
}

/// One configuration: the threads' roles, on one folio (0 or 2), from one start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mix {
    pub roles: Vec<Role>,
    pub folio: usize,
    pub start: Start,
}

impl Mix {
    pub fn label(&self) -> String {
        let roles: Vec<String> = self.roles.iter().map(|r| r.name()).collect();
        format!(
            "{}; f{} {} and {} at the start",
            roles.join(" + "),
            self.folio,
            if self.start.dirty { "dirty" } else { "clean" },
            self.start.pte.name()
        )
    }
}

/// The loom scope: every pair of roles on folio 0 (either order is one configuration), every
/// pair on folio 2 (the mapping that cannot write back), and every dirtier and cleaner of folio 0
/// with the switch as a third thread; from every start where each role applies.
pub fn loom_mixes() -> Vec<Mix> {
    let mut out = Vec::new();
    for folio in [0, 2] {
        let roles = Role::on(folio);
        for (i, &a) in roles.iter().enumerate() {
            for &b in &roles[i..] {
                if a == b && matches!(a, Role::Switch | Role::Migrate) {
                    continue; // one switch (I_WB_SWITCH) and one migration (isolation) at a time
                }
                out.extend(mixes(&[a, b], folio));
            }
        }
    }
    let roles = Role::on(0);
    for &a in roles.iter().filter(|r| r.dirties()) {
        for &b in roles.iter().filter(|r| r.cleans()) {
            out.extend(mixes(&[a, b, Role::Switch], 0));
        }
    }
    out
}

fn mixes(roles: &[Role], folio: usize) -> Vec<Mix> {
    Start::ALL
        .iter()
        .filter(|s| roles.iter().all(|r| r.applies(**s)))
        .map(|&start| Mix { roles: roles.to_vec(), folio, start })
        .collect()
}

#[derive(Debug, Clone)]
pub struct AccountingModel {
    pub revision: AccountingRevision,
    /// loom: one configuration per variant; shuttle: every configuration, one drawn per run.
    pub mixes: Arc<Vec<Mix>>,
    pub nr_cpus: usize,
    pub batch: i32,
}

impl AccountingModel {
    fn rev(&self) -> Accounting {
        self.revision.knobs()
    }
}

/// The folio at page-cache slot `f` now (folio `f`, or what migration put there).
fn current<P: Platform>(inodes: &[Arc<Inode<P>>], f: usize) -> Option<(&Inode<P>, &Folio<P>)> {
    let inode = &*inodes[FOLIOS[f].0];
    filemap_folio_at(inode, INDEX[f]).map(|folio| (inode, folio))
}

pub fn run_role<P: Platform>(ctx: &Ctx<P>, role: Role, inodes: &[Arc<Inode<P>>]) {
    let inode_of = |f: usize| &*inodes[FOLIOS[f].0];
    match role {
        Role::DontcacheWrite(f) | Role::BufferedWrite(f) => {
            let inode = inode_of(f);
            let dontcache = matches!(role, Role::DontcacheWrite(_));
            if let Some(found) = __filemap_get_folio_mpol(ctx, inode, INDEX[f], true, dontcache) {
                filemap_dirty_folio(ctx, inode, found.folio);
            }
        }
        Role::Lookup(f) => {
            __filemap_get_folio_mpol(ctx, inode_of(f), INDEX[f], false, false);
        }
        Role::MkwriteFault(f) => {
            // The PTE maps the folio: the one now at the slot (migration is not in these
            // configurations: see the scope).
            if let Some((inode, folio)) = current(inodes, f) {
                let _locked = folio.lock();
                if folio.in_page_cache() {
                    pte_mkwrite_dirty(ctx, folio.pte.as_ref().expect("the model's file is mmapped"));
                    filemap_dirty_folio(ctx, inode, folio);
                }
            }
        }
        Role::Zap(f) => {
            if let Some((inode, folio)) = current(inodes, f) {
                let pte = folio.pte.as_ref().expect("the model's file is mmapped");
                zap_pte_range(ctx, pte, || filemap_dirty_folio(ctx, inode, folio));
            }
        }
        Role::Writeback(f) => {
            let Some((inode, folio)) = current(inodes, f) else { return };
            if !folio.marks.test_bit(PAGECACHE_TAG_DIRTY) {
                return;
            }
            {
                let _locked = folio.lock();
                write_locked_folio(ctx, inode, folio);
            }
            folio_end_dropbehind(ctx, inode, folio);
        }
        Role::WritebackRedirty(f) => {
            let Some((inode, folio)) = current(inodes, f) else { return };
            let _locked = folio.lock();
            if folio.in_page_cache() && folio_clear_dirty_for_io(ctx, inode, folio) {
                folio_redirty_for_writepage(ctx, inode, folio);
            }
        }
        Role::Truncate(f) => {
            if let Some((inode, folio)) = current(inodes, f) {
                truncate_inode_folio(ctx, inode, folio);
            }
        }
        Role::Switch => {
            if inode_switch_wbs(ctx, &inodes[0], 2) {
                inode_switch_wbs_work_fn(ctx, &inodes[0], 2);
            }
        }
        Role::Migrate => {
            let inode = &inodes[0];
            migrate_folio(ctx, inode, &inode.folios[FOLIOS[0].1], &inode.folios[FOLIOS[MIGRATION_TARGET].1]);
        }
        Role::Split => {
            let inode = &inodes[0];
            let (large, head, tail) = (&inode.folios[1], &inode.folios[2], &inode.folios[3]);
            let _locked = large.lock();
            if large.in_page_cache() {
                __split_folio_to_order(ctx, inode, large, &[head, tail]);
            }
        }
    }
}

/// Put folio `f` in the configuration's start state: dirtied by a write (folio locked), and
/// mapped through a PTE in `start.pte`.
pub fn prepare<P: Platform>(ctx: &Ctx<P>, inodes: &[Arc<Inode<P>>], f: usize, start: Start) {
    let inode = &*inodes[FOLIOS[f].0];
    let folio = &inode.folios[FOLIOS[f].1];
    if start.dirty {
        let _locked = folio.lock();
        filemap_dirty_folio(ctx, inode, folio);
    }
    folio.pte.as_ref().expect("the model's file is mmapped").set_state(start.pte);
}

/// `counter-exact` at quiescence: each wb's raw WB_DONTCACHE_DIRTY sum (count plus slots, read
/// directly, not clamped) equals the pages of the dirty dropbehind folios of its inodes that are
/// still in the page cache.
pub fn counter_exact<P: Platform>(bdi: &Bdi<P>, inodes: &[Arc<Inode<P>>]) -> Option<String> {
    let mut wrong = Vec::new();
    for wb in bdi.wbs() {
        let expected: i64 = inodes
            .iter()
            .filter(|i| i.wb_id() == wb.id && i.mapping_can_writeback())
            .flat_map(|i| i.folios.iter())
            .filter(|f| f.in_page_cache() && f.test_dirty() && f.test_dropbehind())
            .map(|f| f.nr_pages())
            .sum();
        let got = wb.stat(WbStatItem::DontcacheDirty).raw_total();
        if got != expected {
            wrong.push(format!(
                "wb{} WB_DONTCACHE_DIRTY is {got} but its dirty dropbehind pages in the page cache number {expected}",
                wb.id
            ));
        }
    }
    (!wrong.is_empty()).then(|| wrong.join("; "))
}

/// Build the model's objects: the bdi (root wb0, cgroup wb1 and wb2), inode 0 on wb1 with
/// folios 0, 1, 3, 4 and 5, inode 1 (cannot write back) on wb0 with folio 2; every folio in the
/// page cache is a clean DONTCACHE folio.
pub fn build<P: Platform>(
    rev: Accounting,
    nr_cpus: usize,
    batch: i32,
    max_tasks: usize,
    setup: &Ctx<P>,
) -> (Arc<Bdi<P>>, Vec<Arc<Inode<P>>>) {
    let bdi = Arc::new(Bdi::<P>::new(2, nr_cpus, batch, max_tasks).with_knobs(rev));
    let folio = |f: usize, cached: bool| {
        let folio =
            if cached { Folio::new(INDEX[f], FOLIOS[f].2, true) } else { Folio::detached(INDEX[f], FOLIOS[f].2) };
        Arc::new(folio.mapped(PteState::None))
    };
    let folios0 = vec![folio(0, true), folio(1, true), folio(3, false), folio(4, false), folio(5, false)];
    let inode0 = Arc::new(Inode::new(0, bdi.clone(), 1, true, folios0));
    wb_get(setup, bdi.wb(1)); // inode 0's association reference
    let inode1 = Arc::new(Inode::new(1, bdi.clone(), 0, false, vec![folio(2, true)]));
    (bdi, vec![inode0, inode1])
}

impl Model for AccountingModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let rev = self.rev();
        let n = self.mixes.len();
        let mix = &self.mixes[if n == 1 { 0 } else { P::choose(n) % n }];
        if n > 1 {
            trace.set_configuration(mix.label());
        }
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        let (bdi, inodes) = build::<P>(rev, self.nr_cpus, self.batch, mix.roles.len() + 1, &setup);
        prepare(&setup, &inodes, mix.folio, mix.start);
        let handles: Vec<_> = mix
            .roles
            .iter()
            .zip(plans)
            .map(|(&role, &plan)| {
                let (inodes, trace) = (inodes.clone(), trace.clone());
                P::spawn(move || {
                    let ctx = Ctx::<P>::new(trace, &role.name(), plan);
                    run_role(&ctx, role, &inodes);
                })
            })
            .collect();
        handles.into_iter().for_each(P::join);
        let mut v: Vec<Violation> =
            trace.detected().into_iter().map(|d| Violation { property: d.property, message: d.message }).collect();
        if let Some(message) = counter_exact(&bdi, &inodes) {
            v.push(Violation { property: COUNTER_EXACT, message });
        }
        v
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        // Alternate CPUs: the percpu paths are dontcache-kick's and percpu-counter's subject.
        vec![(0..self.mixes[0].roles.len()).map(|i| CpuPlan::Fixed(i % self.nr_cpus)).collect()]
    }

    fn loom_variants(&self) -> Vec<Self> {
        self.mixes.iter().map(|mix| AccountingModel { mixes: Arc::new(vec![mix.clone()]), ..self.clone() }).collect()
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        let max = self.mixes.iter().map(|m| m.roles.len()).max().unwrap_or(0);
        (0..max).map(|_| CpuPlan::Drawn { nr_cpus: self.nr_cpus }).collect()
    }

    fn placement_label(&self, plans: &[CpuPlan]) -> String {
        let cpus: Vec<String> = plans.iter().map(|p| p.describe()).collect();
        format!("threads on {}", cpus.join(", "))
    }

    fn size(&self) -> Vec<(String, u64)> {
        vec![
            ("max_threads".to_string(), self.mixes.iter().map(|m| m.roles.len()).max().unwrap_or(0) as u64),
            ("cpus".to_string(), self.nr_cpus as u64),
            ("batch".to_string(), self.batch as u64),
        ]
    }

    fn configurations(&self) -> u64 {
        self.mixes.len() as u64
    }

    /// The whole scope at bound 1 (quick), 2 (scope), 3 (deep): see the header for the cost.
    fn loom_preemptions(&self, tier: Tier) -> Option<usize> {
        Some(match tier {
            Tier::Quick => 1,
            Tier::Scope => 2,
            Tier::Deep => 3,
        })
    }

    fn configuration(&self) -> String {
        if self.mixes.len() == 1 {
            self.mixes[0].label()
        } else {
            String::new()
        }
    }
}

/// The declared scope of dontcache-accounting.
pub fn scope_decl() -> ScopeDecl {
    let role = |name, runs, callers| RoleDecl { name, runs, callers };
    ScopeDecl {
        roles: vec![
            role("dontcache-write", "write_begin (FGP_LOCK | FGP_DONTCACHE), filemap_dirty_folio, unlock", "generic_perform_write / iomap_write_begin with IOCB_DONTCACHE"),
            role("buffered-write", "write_begin (FGP_LOCK: the lookup clears PG_dropbehind and decrements), filemap_dirty_folio, unlock", "buffered writes without RWF_DONTCACHE (FGP_WRITEBEGIN includes FGP_LOCK)"),
            role("lookup", "__filemap_get_folio_mpol without FGP_LOCK: reference, PG_dropbehind clear and decrement, put", "filemap_fault's first lookup, read_cache_folio, filemap_get_folio users"),
            role("mkwrite-fault", "folio lock (do_page_mkwrite), PTE made writable and dirty, folio_mark_dirty, unlock", "wp_page_shared / do_shared_fault with ->page_mkwrite (filemap_page_mkwrite, iomap_page_mkwrite)"),
            role("zap", "zap_pte_range under the PTL: a dirty PTE's bit to folio_mark_dirty, no folio lock", "munmap, exit_mmap, MADV_DONTNEED"),
            role("writeback", "writeback_iter: folio lock, folio_clear_dirty_for_io (folio_mkclean first), I/O; folio_end_dropbehind", "the flusher's and fsync's writeback"),
            role("writeback-redirty", "folio lock, folio_clear_dirty_for_io, folio_redirty_for_writepage, unlock", "->writepage implementations that cannot write now (ext4, btrfs, f2fs ...)"),
            role("truncate", "truncate_inode_folio: lock, unmap (zap), __folio_cancel_dirty, filemap_remove_folio", "truncate, hole punch, invalidation"),
            role("switcher", "inode_switch_wbs and its work (wb1 -> wb2)", "cgroup writeback: wbc_detach_inode's foreign-owner switch, cleanup_offline_cgwb"),
            role("migrate", "migrate_folio: lock, try_to_migrate, __folio_migrate_mapping (PG_dirty and the entry under the xa_lock), folio_migrate_flags (PG_dropbehind), unlock", "compaction, NUMA balancing, memory offlining (migrate_pages, MIGRATE_SYNC)"),
        ],
        counts: "two threads (every pair of roles, a role with itself included except switch and migration, which the kernel never runs twice at once on one inode or folio), or three: a dirtier (dontcache-write, buffered-write, mkwrite-fault, zap, writeback-redirty), a cleaner (writeback, truncate, lookup, migrate) and the switcher",
        sharing: "all threads on one folio: folio 0 of inode 0 (a mapping that can write back, on cgroup wb1; the switch moves it to wb2), or folio 2 of inode 1 (a mapping that cannot write back: no switch or migration)",
        initial: "the folio a clean or dirty DONTCACHE folio (PG_dropbehind), its PTE unmapped, clean or dirty (a dirty PTE only on a dirty folio: the fault that dirtied the PTE dirtied the folio, and folio_mkclean cleans the PTE before writeback cleans the folio); a configuration runs only from starts where each of its roles can act (a fault and a zap need a mapped PTE; migration an unmapped folio)",
        excluded: "migration of a mapped folio (try_to_migrate passes a dirty PTE's bit to the folio under the PTL, as zap does, and a fault on the migration entry waits for migration to end); a write fault without ->page_mkwrite (wp_page_reuse dirties the PTE before folio_lock: with zap in that window it would reopen the end-of-writeback leak, a three-thread configuration outside the scope); the split (its refcount freeze excludes every concurrent user: the oracle and the proptest comparison run it); three threads other than the switch triples",
        bounds: "loom: 2 CPUs (threads alternate), batch 4; preemption bound 1 (quick), 2 (scope), 3 (deep). shuttle: the configuration drawn per execution; 10,000 / 50,000 / 200,000 iterations. oracle: every configuration, each thread's role once (quick) or twice, every interleaving of whole calls, plus the split program",
        configurations: loom_mixes().iter().map(Mix::label).collect(),
    }
}

pub struct DontcacheAccounting;

impl DontcacheAccounting {
    /// Every checker runs the whole scope (loom one configuration at a time, shuttle one drawn per
    /// execution).
    pub fn model_for(revision: AccountingRevision) -> AccountingModel {
        AccountingModel { revision, mixes: Arc::new(loom_mixes()), nr_cpus: 2, batch: 4 }
    }
}

impl ModelScenario for DontcacheAccounting {
    type Model = AccountingModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "is the per-wb WB_DONTCACHE_DIRTY counter exact under the kernel's locking? (seed 002 patches 1-2)",
            header: include_str!("dontcache_accounting.md"),
            properties: &[(
                COUNTER_EXACT,
                "at quiescence each wb's raw WB_DONTCACHE_DIRTY equals the pages of its dirty dropbehind folios in the page cache",
            )],
            scope: scope_decl(),
            revisions: revision_infos::<AccountingRevision>(),
        }
    }

    fn model(&self, revision: &str, checker: Checker, _tier: Tier) -> Result<AccountingModel, String> {
        let _ = checker;
        Ok(Self::model_for(parse_revision(NAME, revision)?))
    }
}
