#![doc = include_str!("per_block_charge.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use crate::scope::{RoleDecl, ScopeDecl};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::filemap::{__filemap_get_folio_mpol, filemap_clear_dropbehind_accounted};
use wb_core::fs_writeback::{inode_switch_wbs, inode_switch_wbs_work_fn};
use wb_core::inode::Inode;
use wb_core::iomap::{
    iomap_dirty_folio, iomap_write_end, write_folio, Charging, Cleaned, Dirtied, DirtyStats, IomapFolio,
};
use wb_core::pte::{folio_mkclean, zap_pte_range, Pte};
use wb_core::revision::BlockRevision;
use wb_core::revision::Revision;
use wb_core::sync::{Ordering, Platform};
use wb_core::trace::Trace;
use wb_core::wb::{wb_get, Bdi, WbStatItem};

pub const NAME: &str = <BlockRevision as Revision>::SCENARIO;
pub use wb_core::property::{CHARGE_DISCHARGE_MATCH, COUNTER_EXACT, DIRTIED_COMPLETE, WB_RECLAIMABLE_EXACT};
const PROPERTIES: &[&str] = &[CHARGE_DISCHARGE_MATCH, WB_RECLAIMABLE_EXACT, COUNTER_EXACT, DIRTIED_COMPLETE];

/// The folio: 4 blocks (16 KiB). The writer writes block 1, the ordinary buffered write block 2.
pub const FOLIO_PAGES: u32 = 4;
/// The inode starts on cgroup wb1; the switch moves it to wb2 (wb0 is the root wb).
pub const FIRST_WB: usize = 1;
pub const SWITCH_TO: usize = 2;

/// Ghost ledger: pages charged and discharged per dirty cycle of the folio.
#[derive(Default)]
struct Ledger(Mutex<BTreeMap<usize, (i64, i64)>>);

impl Ledger {
    fn dirtied(&self, d: Dirtied) {
        self.0.lock().expect("ghost").entry(d.cycle).or_default().0 += d.charged;
    }

    fn cleaned(&self, c: Cleaned) {
        if let Some((cycle, nr)) = c {
            self.0.lock().expect("ghost").entry(cycle).or_default().1 += nr;
        }
    }

    fn record(&self, (redirtied, cleaned): (Option<Dirtied>, Cleaned)) {
        redirtied.into_iter().for_each(|d| self.dirtied(d));
        self.cleaned(cleaned);
    }
}

/// The state before the threads start: the folio is mapped through one PTE of a shared mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The user stored through the mapping: `iomap_page_mkwrite` marked every block dirty
    /// (charged as the revision charges) and the PTE is dirty.
    MappedDirty,
    /// The folio is clean and its PTE clean (write-protected by the last writeback).
    MappedClean,
}

/// A thread of the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Writer,
    Munmap,
    Flusher,
    Switcher,
    /// An ordinary buffered write of block 2: `iomap_write_begin`'s FGP_WRITEBEGIN lookup (no
    /// FGP_DONTCACHE: v7 clears PG_dropbehind), then the write under that folio lock.
    LookupWrite,
    /// `filemap_fault`'s lookup (`filemap_get_folio`, no FGP_LOCK), then
    /// `lock_folio_maybe_drop_mmap`: a read fault on a page of the folio that is not mapped.
    LookupFault,
}

impl Role {
    /// The four roles of the concurrent dirty charge; every configuration has three of them or
    /// one lookup and two of them.
    pub const CHARGE: [Role; 4] = [Role::Writer, Role::Munmap, Role::Flusher, Role::Switcher];
    pub const LOOKUPS: [Role; 2] = [Role::LookupWrite, Role::LookupFault];
    pub const ALL: [Role; 6] =
        [Role::Writer, Role::Munmap, Role::Flusher, Role::Switcher, Role::LookupWrite, Role::LookupFault];

    pub fn name(self) -> &'static str {
        match self {
            Role::Writer => "writer",
            Role::Munmap => "munmap",
            Role::Flusher => "flusher",
            Role::Switcher => "switcher",
            Role::LookupWrite => "lookup-write",
            Role::LookupFault => "lookup-fault",
        }
    }
}

/// The declared configurations: every three of the four charge roles, then each lookup with
/// every two of them; one thread each.
pub fn configurations() -> Vec<[Role; 3]> {
    let mut out: Vec<[Role; 3]> = (0..4)
        .rev()
        .map(|left_out| {
            let mut it = Role::CHARGE.into_iter().enumerate().filter(|(i, _)| *i != left_out).map(|(_, r)| r);
            [(); 3].map(|_| it.next().expect("three roles"))
        })
        .collect();
    for lookup in Role::LOOKUPS {
        for i in 0..4 {
            for j in i + 1..4 {
                out.push([Role::CHARGE[i], Role::CHARGE[j], lookup]);
            }
        }
    }
    out
}

#[derive(Debug, Clone)]
pub struct BlockModel {
    pub revision: BlockRevision,
    pub start: Start,
    pub roles: [Role; 3],
    pub tier: Tier,
    /// Which configurations loom runs: the declared scope, or a part of it for tests.
    pub variants: Variants,
}

/// The configurations a [`BlockModel`] runs under loom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variants {
    /// The declared scope (at the quick tier, the PVMW_SYNC mutant's one configuration).
    Scope,
    /// Only this model's `start` and `roles`.
    One,
}

/// The scenario's objects: the inode with its folio and PTE on a bdi with two cgroup wbs, the
/// node dirty stats and the ghost ledger. The model's threads and the oracle's core run the same
/// calls on them.
pub struct BlockObjects<P: Platform> {
    revision: BlockRevision,
    folio: IomapFolio<P>,
    inode: Inode<P>,
    stats: DirtyStats<P>,
    pte: Pte<P>,
    ledger: Ledger,
}

impl<P: Platform> BlockObjects<P> {
    /// The objects at `start` (`setup` runs `iomap_page_mkwrite` for a dirty mapping), for up to
    /// `max_tasks` tasks on `nr_cpus` CPUs.
    pub fn new(setup: &Ctx<P>, revision: BlockRevision, start: Start, nr_cpus: usize, max_tasks: usize) -> Self {
        let knobs = revision.knobs();
        let bdi = Arc::new(Bdi::new(2, nr_cpus, wb_core::wb::wb_stat_batch_for(nr_cpus), max_tasks).with_knobs(knobs));
        // A DONTCACHE write's FGP_DONTCACHE lookup created the folio: PG_dropbehind set.
        let folio = IomapFolio::new(0, FOLIO_PAGES, true);
        let inode = Inode::new(0, bdi.clone(), FIRST_WB, true, vec![folio.folio.clone()]);
        wb_get(setup, bdi.wb(FIRST_WB)); // the inode's association reference
        let o = BlockObjects {
            revision,
            folio,
            inode,
            stats: DirtyStats::default(),
            pte: Pte::new(start == Start::MappedDirty),
            ledger: Ledger::default(),
        };
        if start == Start::MappedDirty {
            let _lock = o.folio.folio.lock();
            setup.event("iomap_page_mkwrite", "folio_mark_dirty under the folio lock", &[]);
            o.ledger.dirtied(iomap_dirty_folio(setup, &o.stats, &o.folio, o.charging()));
        }
        o
    }

    fn charging(&self) -> Charging<'_, P> {
        let knobs = self.revision.knobs();
        Charging {
            charge: knobs.charge,
            reading: knobs.reading,
            inode: Some(&self.inode),
            in_section: knobs.charge_in_section,
            iomap_charges_dontcache: knobs.iomap_charges_dontcache,
        }
    }

    /// The buffered writer: block 1 under the folio lock.
    pub fn write(&self, ctx: &Ctx<P>) {
        let _lock = self.folio.folio.lock();
        self.ledger.dirtied(iomap_write_end(ctx, &self.stats, &self.folio, 1, 1, self.charging()));
    }

    /// `munmap`'s `zap_pte_range`: a dirty PTE dirties the folio, under the PTL only.
    pub fn zap(&self, ctx: &Ctx<P>) {
        if let Some(d) =
            zap_pte_range(ctx, &self.pte, || iomap_dirty_folio(ctx, &self.stats, &self.folio, self.charging()))
        {
            self.ledger.dirtied(d);
        }
    }

    /// The flusher's writeback of the folio, `folio_mkclean` first.
    pub fn writeback(&self, ctx: &Ctx<P>) {
        let sync = self.revision.knobs().mkclean_sync;
        self.ledger.record(write_folio(ctx, &self.stats, &self.folio, self.charging(), || {
            folio_mkclean(ctx, &self.pte, sync)
        }));
    }

    /// The ordinary buffered write of block 2: the FGP_WRITEBEGIN lookup, then `__iomap_write_end`
    /// under the folio lock the lookup took.
    pub fn lookup_write(&self, ctx: &Ctx<P>) {
        if let Some(_found) = __filemap_get_folio_mpol(ctx, &self.inode, 0, true, false) {
            self.ledger.dirtied(iomap_write_end(ctx, &self.stats, &self.folio, 2, 1, self.charging()));
        }
    }

    /// `filemap_fault`'s lookup without FGP_LOCK, then the folio lock (with our fix, the locked
    /// clear of PG_dropbehind); the page is uptodate, so the fault maps it and dirties nothing.
    pub fn lookup_fault(&self, ctx: &Ctx<P>) {
        if let Some(found) = __filemap_get_folio_mpol(ctx, &self.inode, 0, false, false) {
            let _lock = found.folio.lock();
            let knobs = self.revision.knobs();
            if knobs.lookup_locked {
                filemap_clear_dropbehind_accounted(ctx, &self.inode, found.folio, knobs.charge);
            }
        }
    }

    /// The cgroup wb switch of the inode from wb1 to wb2 (`inode_switch_wbs` and its work).
    pub fn switch(&self, ctx: &Ctx<P>) {
        if inode_switch_wbs(ctx, &self.inode, SWITCH_TO) {
            inode_switch_wbs_work_fn(ctx, &self.inode, SWITCH_TO);
        }
    }

    /// Run `role`'s call.
    pub fn run(&self, role: Role, ctx: &Ctx<P>) {
        match role {
            Role::Writer => self.write(ctx),
            Role::Munmap => self.zap(ctx),
            Role::Flusher => self.writeback(ctx),
            Role::Switcher => self.switch(ctx),
            Role::LookupWrite => self.lookup_write(ctx),
            Role::LookupFault => self.lookup_fault(ctx),
        }
    }

    /// The ghost effects of the charges ([`wb_core::iomap::DirtiedEffects`]).
    pub fn effects(&self) -> wb_core::iomap::DirtiedEffects {
        self.stats.effects.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// wb-core's `NR_FILE_DIRTY` and `NR_DIRTIED`, as its charge and discharge left them.
    pub fn counters(&self) -> (i64, i64) {
        (self.stats.nr_file_dirty.load(Ordering::Relaxed), self.stats.nr_dirtied.load(Ordering::Relaxed))
    }

    /// Each wb's WB_RECLAIMABLE (count plus slots, read directly), root wb first.
    pub fn reclaimable(&self) -> Vec<i64> {
        self.stat(WbStatItem::Reclaimable)
    }

    /// Each wb's WB_DONTCACHE_DIRTY (count plus slots, read directly), root wb first.
    pub fn dontcache_dirty(&self) -> Vec<i64> {
        self.stat(WbStatItem::DontcacheDirty)
    }

    fn stat(&self, item: WbStatItem) -> Vec<i64> {
        self.inode.bdi.wbs().iter().map(|wb| wb.stat(item).raw_total()).collect()
    }

    /// The wb the inode is on.
    pub fn wb_id(&self) -> usize {
        self.inode.wb_id()
    }

    /// (charged, discharged) pages per dirty cycle, the cycles with any.
    pub fn ledger(&self) -> BTreeMap<usize, (i64, i64)> {
        self.ledger.0.lock().expect("ghost").iter().filter(|(_, e)| **e != (0, 0)).map(|(k, e)| (*k, *e)).collect()
    }

    /// `charge-discharge-match` and `wb-reclaimable-exact`, after the final sync.
    pub fn violations(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        let bad: Vec<String> = self
            .ledger()
            .iter()
            .filter(|(_, (c, d))| c != d)
            .map(|(cycle, (c, d))| format!("dirty cycle {cycle}: {c} pages charged, {d} discharged"))
            .collect();
        let left = self.stats.nr_file_dirty.load(Ordering::Relaxed);
        if !bad.is_empty() || left != 0 {
            out.push(Violation {
                property: CHARGE_DISCHARGE_MATCH,
                message: format!("{}; NR_FILE_DIRTY after the final sync = {left}", bad.join("; ")),
            });
        }
        let list = |v: &[i64]| v.iter().enumerate().map(|(id, n)| format!("wb{id} {n}")).collect::<Vec<_>>().join(", ");
        let per_wb = self.reclaimable();
        if per_wb.iter().any(|&n| n != 0) {
            out.push(Violation {
                property: WB_RECLAIMABLE_EXACT,
                message: format!(
                    "WB_RECLAIMABLE after the final sync (the folio clean, the inode on wb{}): {}",
                    self.wb_id(),
                    list(&per_wb)
                ),
            });
        }
        let dontcache = self.dontcache_dirty();
        if dontcache.iter().any(|&n| n != 0) {
            out.push(Violation {
                property: COUNTER_EXACT,
                message: format!(
                    "WB_DONTCACHE_DIRTY after the final sync (no dirty DONTCACHE page left): {}; a later kick's \
                     wb_stat_sum on a wb with a negative sum reads 0 (its own DONTCACHE pages hidden by that many), \
                     with a positive one writes that many pages more",
                    list(&dontcache)
                ),
            });
        }
        let e = self.effects();
        let mut missing: Vec<String> = e
            .per_wb
            .iter()
            .filter(|(_, (pages, calls, wb_dirtied, hooks))| wb_dirtied != pages || hooks != calls)
            .map(|(id, (pages, calls, wb_dirtied, hooks))| {
                format!(
                    "wb{id}: {pages} pages charged in {calls} calls, WB_DIRTIED {wb_dirtied}, \
                     mem_cgroup_track_foreign_dirty called {hooks} times"
                )
            })
            .collect();
        if e.nr_dirtied != e.charged {
            missing.push(format!("{} pages charged, current->nr_dirtied of the dirtiers {}", e.charged, e.nr_dirtied));
        }
        if !missing.is_empty() {
            out.push(Violation {
                property: DIRTIED_COMPLETE,
                message: format!(
                    "{}; the folio's memcg (foreign to both wbs) records no (bdi, wb memcg) pair for those charges, so \
                     its mem_cgroup_flush_foreign cannot ask for their writeback, and balance_dirty_pages_ratelimited \
                     does not see them",
                    missing.join("; ")
                ),
            });
        }
        out
    }
}

impl BlockModel {
    /// Whether loom runs `roles` from `start` for this model: every configuration, except for the
    /// PVMW_SYNC mutant at the quick tier (bound 3 there, for cost): only munmap + flusher +
    /// switcher from the dirty mapping, the configuration its race needs. The mutant shows that
    /// loom finds that race; no pass rests on it.
    fn quick_mutant_runs(&self, roles: &[Role; 3], start: Start) -> bool {
        self.tier != Tier::Quick
            || self.revision.knobs().mkclean_sync
            || (*roles == [Role::Munmap, Role::Flusher, Role::Switcher] && start == Start::MappedDirty)
    }

    /// Whether this configuration has a lookup thread.
    fn has_lookup(&self) -> bool {
        self.roles.iter().any(|r| Role::LOOKUPS.contains(r))
    }
}

/// Tasks: setup, three threads, the final sync.
const MAX_TASKS: usize = 5;
const NR_CPUS: usize = 2;

impl Model for BlockModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        let (start, roles) = if P::NAME == "shuttle" {
            let configs = configurations();
            ([Start::MappedDirty, Start::MappedClean][P::choose(2)], configs[P::choose(configs.len())])
        } else {
            (self.start, self.roles)
        };
        let objects = Arc::new(BlockObjects::new(&setup, self.revision, start, NR_CPUS, MAX_TASKS));
        let threads: Vec<_> = roles
            .into_iter()
            .zip(plans)
            .map(|(role, &plan)| {
                let (objects, trace) = (objects.clone(), trace.clone());
                P::spawn(move || objects.run(role, &Ctx::<P>::new(trace, role.name(), plan)))
            })
            .collect();
        threads.into_iter().for_each(P::join);
        // Quiescence: a final sync writes whatever is still dirty.
        objects.writeback(&Ctx::<P>::new(trace.clone(), "sync", CpuPlan::Fixed(0)));
        objects.violations()
    }

    fn loom_placements(&self) -> Vec<Vec<CpuPlan>> {
        vec![vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1), CpuPlan::Fixed(0)]]
    }

    fn loom_variants(&self) -> Vec<Self> {
        if self.variants == Variants::One {
            return vec![self.clone()];
        }
        let mut out = Vec::new();
        for roles in configurations() {
            for start in [Start::MappedDirty, Start::MappedClean] {
                if self.quick_mutant_runs(&roles, start) {
                    out.push(BlockModel { start, roles, ..self.clone() });
                }
            }
        }
        out
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        vec![CpuPlan::Fixed(0), CpuPlan::Fixed(1), CpuPlan::Fixed(0)]
    }

    /// Bound 2 (quick), 3 (scope), 4 (deep), except the PVMW_SYNC mutant's quick bound, 3: its
    /// race (a zap between its PTE clear and its dirtying, the flusher's clean, and the switch)
    /// needs three preemptions, and the quick tier would otherwise not test that loom finds it
    /// (at the quick tier over the one configuration of those three roles from the dirty mapping: see
    /// [`BlockModel::quick_mutant_runs`]). Every revision at bound 3 over all eight configurations:
    /// 59k to 511k executions, 5 to 43 s.
    fn loom_preemptions(&self, tier: Tier) -> Option<usize> {
        Some(match tier {
            Tier::Quick if !self.revision.knobs().mkclean_sync => 3,
            Tier::Quick => 2,
            Tier::Scope => 3,
            Tier::Deep => 4,
        })
    }

    /// A configuration with a lookup runs one preemption below the row's bound, for cost (a
    /// lookup is one call). The lookup races found so far need at most one preemption (`baseline`'s
    /// needs 1), so the quick tier (1 for these configurations) still finds them; a race needing
    /// more would show first at the scope tier (2) or the deep tier (3).
    fn loom_variant_preemptions(&self, bound: Option<usize>) -> Option<usize> {
        match bound {
            Some(b) if self.has_lookup() => Some(b.saturating_sub(1)),
            other => other,
        }
    }

    fn configuration(&self) -> String {
        let names: Vec<&str> = self.roles.iter().map(|r| r.name()).collect();
        format!("{}; start {:?}", names.join(" + "), self.start)
    }

    fn placement_label(&self, _plans: &[CpuPlan]) -> String {
        let names: Vec<&str> = self.roles.iter().map(|r| r.name()).collect();
        format!("start {:?}; {} on CPUs 0, 1, 0", self.start, names.join(", "))
    }

    fn size(&self) -> Vec<(String, u64)> {
        vec![("threads".into(), 3), ("folio_pages".into(), u64::from(FOLIO_PAGES)), ("wbs".into(), 2)]
    }
}

/// The declared scope of per-block-charge.
pub fn scope_decl() -> ScopeDecl {
    let role = |name, runs, callers| RoleDecl { name, runs, callers };
    let mut declared = Vec::new();
    for roles in configurations() {
        for start in [Start::MappedDirty, Start::MappedClean] {
            let model = BlockModel {
                revision: BlockRevision::Baseline,
                start,
                roles,
                tier: Tier::Scope,
                variants: Variants::One,
            };
            declared.push(model.configuration());
        }
    }
    ScopeDecl {
        roles: vec![
            role("writer", "__iomap_write_end of one block (folio locked), an RWF_DONTCACHE write (FGP_DONTCACHE lookup)", "iomap_file_buffered_write with IOCB_DONTCACHE (XFS: FOP_DONTCACHE)"),
            role("munmap", "zap_pte_range: a dirty PTE's bit to iomap_dirty_folio (PTL only)", "munmap, exit, MADV_DONTNEED"),
            role("flusher", "writeback_iter: folio_mkclean, folio_clear_dirty_for_io, iomap_writepage_map", "the flusher's writeback"),
            role("switcher", "inode_switch_wbs and its work: the inode from wb1 to wb2", "cgroup writeback, on XFS (the one iomap_dirty_folio filesystem with SB_I_CGROUPWB in 6.12): wbc_detach_inode's foreign-owner switch of an inode written back for another memcg; wbc_attach_and_unlock_inode's switch of an inode whose wb is dying while its memcg lives (dirty or clean, from the flusher itself: the same switch at any point of the other roles' calls, which this thread already has); cleanup_offline_cgwb switches only inodes clean when it prepares the switch"),
            role("lookup-write", "an ordinary buffered write of block 2: iomap_write_begin's FGP_WRITEBEGIN __filemap_get_folio (no FGP_DONTCACHE: v7 clears PG_dropbehind and, for a dirty folio, takes folio_nr_pages off WB_DONTCACHE_DIRTY), then __iomap_write_end under that folio lock", "iomap_file_buffered_write without IOCB_DONTCACHE"),
            role("lookup-fault", "filemap_fault's filemap_get_folio (no FGP_LOCK), then lock_folio_maybe_drop_mmap; the page is uptodate, nothing is dirtied", "a read fault on a page of the folio not yet mapped; read_cache_folio takes the same unlocked lookup"),
        ],
        counts: "one thread each: every three of the four charge roles (writer, munmap, flusher, switcher), and each lookup with every two of them",
        sharing: "one 4-block DONTCACHE folio (PG_dropbehind) of one iomap inode on cgroup wb1, mapped through one PTE of a shared mapping (by fault-around); the folio belongs to a memcg other than both wbs' (an inode shared between cgroups), so every 6.12 charge calls mem_cgroup_track_foreign_dirty's slow path",
        initial: "mapped dirty (iomap_page_mkwrite marked every block, PTE dirty) or mapped clean (PTE write-protected)",
        excluded: "GUP-pinned dirtiers (set_page_dirty after DMA without the PTL); folio_redirty_for_writepage (no 6.12 caller on an iomap_dirty_folio mapping); migration; the end-of-writeback drop (dontcache-accounting); a folio without PG_dropbehind (the same decisions minus the WB_DONTCACHE_DIRTY updates); a folio of the wb's own memcg (no foreign-dirty hook to lose); all four charge roles at once and two lookups at once (the oracle runs all six)",
        bounds: "loom: preemption bound 2 (quick; for the PVMW_SYNC mutants 3, whose race needs 3, over munmap + flusher + switcher from the dirty mapping only), 3 (scope), 4 (deep); a configuration with a lookup runs one below (1, 2, 3: each lookup race needs at most one); shuttle: the tier's iterations, drawing the configuration and the start; oracle: every interleaving of whole calls of all six roles from both starts, then a final sync",
        configurations: declared,
    }
}

pub struct PerBlockCharge;

impl ModelScenario for PerBlockCharge {
    type Model = BlockModel;

    fn info(&self) -> ScenarioInfo {
        ScenarioInfo {
            name: NAME,
            summary: "the series' per-page charge (both readings of how iomap charges) and accounted_dirty_pages() discharge under a folio-locked writer, a PTL-only unmap dirtier, writeback, the cgroup wb switch and non-DONTCACHE lookups, with seed 002 v7's WB_DONTCACHE_DIRTY on the same kernel (seeds 003 + 002)",
            header: include_str!("per_block_charge.md"),
            properties: &[
                (CHARGE_DISCHARGE_MATCH, "the pages discharged for a dirty cycle equal the pages charged for it"),
                (WB_RECLAIMABLE_EXACT, "after the final sync every wb's WB_RECLAIMABLE is 0"),
                (COUNTER_EXACT, "after the final sync every wb's WB_DONTCACHE_DIRTY is 0 (seed 002 v7 with seed 003 on one kernel)"),
                (DIRTIED_COMPLETE, "every page charged gets what 6.12's folio_account_dirtied() does for it: WB_DIRTIED on the wb charged, current->nr_dirtied, mem_cgroup_track_foreign_dirty()"),
            ],
            scope: scope_decl(),
            revisions: revision_infos::<BlockRevision>(),
        }
    }

    fn model(&self, revision: &str, _checker: Checker, tier: Tier) -> Result<BlockModel, String> {
        let revision = parse_revision(NAME, revision)?;
        Ok(BlockModel {
            revision,
            start: Start::MappedDirty,
            roles: configurations()[0],
            tier,
            variants: Variants::Scope,
        })
    }
}
