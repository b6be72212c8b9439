#![doc = include_str!("dontcache_accounting.md")]

use crate::bounds::Tier;
use crate::harness::Model;
use crate::outcome::{Checker, Violation};
use crate::scenario::{parse_revision, revision_infos, ModelScenario, ScenarioInfo};
use std::sync::Arc;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::filemap::{__filemap_get_folio_mpol, folio_end_dropbehind, truncate_inode_folio};
use wb_core::folio::Folio;
use wb_core::fs_writeback::{inode_switch_wbs, inode_switch_wbs_work_fn};
use wb_core::huge_memory::__split_folio_to_order;
use wb_core::inode::Inode;
use wb_core::page_writeback::{
    __folio_end_writeback, __folio_start_writeback, filemap_dirty_folio, folio_clear_dirty_for_io,
    folio_redirty_for_writepage,
};
use wb_core::revision::{Accounting, AccountingRevision};
use wb_core::sync::Platform;
use wb_core::trace::Trace;
use wb_core::wb::{wb_get, Bdi, WbStatItem};

pub const NAME: &str = "dontcache-accounting";
pub const COUNTER_EXACT: &str = "counter-exact";
const PROPERTIES: &[&str] = &[COUNTER_EXACT];

/// The folios of the model as (inode, slot in the inode, pages): inode 0 (can write back, on
/// wb1) holds folio 0 (1 page) and folio 1 (2 pages), and folios 3 and 4 (1 page each), which
/// are not in the page cache until folio 1 is split into them; inode 1 (a mapping that cannot
/// write back, on the root wb) holds folio 2.
pub const FOLIOS: [(usize, usize, u32); 5] = [(0, 0, 1), (0, 1, 2), (1, 0, 1), (0, 2, 1), (0, 3, 1)];

/// One thread's kernel call sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// A write-path dirtier: folio lock held around `filemap_dirty_folio`.
    WriteDirty(usize),
    /// A dirtier holding only a page-table lock (zap_pte_range, a write fault without
    /// ->page_mkwrite): `filemap_dirty_folio` without the folio lock.
    PtlDirty(usize),
    /// Writeback of the folio: lock, `folio_clear_dirty_for_io`, start and end writeback,
    /// unlock, then `folio_end_dropbehind`.
    Writeback(usize),
    /// Truncation of the folio (`truncate_inode_folio`: cancel dirty, remove, folio locked).
    Truncate(usize),
    /// A non-DONTCACHE lookup without FGP_LOCK (e.g. `filemap_fault`'s first lookup).
    Lookup(usize),
    /// A non-DONTCACHE lookup with FGP_LOCK (e.g. `filemap_lock_folio`).
    LockedLookup(usize),
    /// `folio_redirty_for_writepage` (folio locked).
    Redirty(usize),
    /// The cgroup wb switch of inode 0 from wb1 to wb2.
    Switch,
    /// `__split_folio_to_order` of folio 1 into folios 3 and 4, folio locked. It runs with the
    /// folio's refcount frozen, so no lookup holds it meanwhile: the oracle and the proptest
    /// comparison run it; the concurrent mixes do not.
    Split,
}

impl Role {
    fn name(self) -> String {
        match self {
            Role::WriteDirty(f) => format!("writer(f{f})"),
            Role::PtlDirty(f) => format!("ptl-dirtier(f{f})"),
            Role::Writeback(f) => format!("writeback(f{f})"),
            Role::Truncate(f) => format!("truncate(f{f})"),
            Role::Lookup(f) => format!("lookup(f{f})"),
            Role::LockedLookup(f) => format!("locked-lookup(f{f})"),
            Role::Redirty(f) => format!("redirty(f{f})"),
            Role::Switch => "switcher".into(),
            Role::Split => "split(f1)".into(),
        }
    }
}

/// A set of roles run together, and which folios are dirty before they start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mix {
    pub roles: Vec<Role>,
    pub dirty_at_start: Vec<usize>,
}

impl Mix {
    fn new(roles: &[Role], dirty_at_start: &[usize]) -> Mix {
        Mix { roles: roles.to_vec(), dirty_at_start: dirty_at_start.to_vec() }
    }

    pub fn label(&self) -> String {
        let roles: Vec<String> = self.roles.iter().map(|r| r.name()).collect();
        format!("{} (dirty at start: {:?})", roles.join(" + "), self.dirty_at_start)
    }
}

/// The loom role pairs and triples.
pub fn loom_mixes() -> Vec<Mix> {
    use Role::*;
    vec![
        Mix::new(&[PtlDirty(0), Lookup(0)], &[]),
        Mix::new(&[PtlDirty(0), LockedLookup(0)], &[]),
        Mix::new(&[Writeback(0), Lookup(0)], &[0]),
        Mix::new(&[Truncate(0), Lookup(0)], &[0]),
        Mix::new(&[Lookup(0), Lookup(0)], &[0]),
        Mix::new(&[Lookup(0), Switch], &[0]),
        Mix::new(&[WriteDirty(1), Writeback(1), LockedLookup(1)], &[]),
        Mix::new(&[Redirty(0), Lookup(0)], &[]),
        Mix::new(&[PtlDirty(2), Lookup(2)], &[]),
        Mix::new(&[Writeback(0), PtlDirty(0)], &[]),
        Mix::new(&[PtlDirty(0), Writeback(0), Switch], &[]),
    ]
}

/// The shuttle mixture: every role, several folios, the switch.
pub fn shuttle_mix() -> Mix {
    use Role::*;
    Mix::new(
        &[PtlDirty(0), Lookup(0), Writeback(0), LockedLookup(1), WriteDirty(1), Truncate(1), Switch, Lookup(2)],
        &[1],
    )
}

#[derive(Debug, Clone)]
pub struct AccountingModel {
    pub revision: AccountingRevision,
    pub mix: Mix,
    pub variants: Vec<Mix>,
    pub nr_cpus: usize,
    pub batch: i32,
}

impl AccountingModel {
    fn rev(&self) -> Accounting {
        self.revision.accounting()
    }
}

pub fn run_role<P: Platform>(ctx: &Ctx<P>, role: Role, inodes: &[Arc<Inode<P>>]) {
    let folio = |f: usize| {
        let (i, slot, _) = FOLIOS[f];
        (&inodes[i], inodes[i].folios[slot].clone())
    };
    // A dirtier reaches the folio through the page cache (the write path's lookup, a mapping):
    // none reaches one that is not there.
    if let Role::WriteDirty(f) | Role::PtlDirty(f) | Role::Redirty(f) = role {
        if !folio(f).1.in_page_cache() {
            return;
        }
    }
    match role {
        Role::WriteDirty(f) => {
            let (inode, folio) = folio(f);
            let _locked = folio.lock();
            filemap_dirty_folio(ctx, inode, &folio, true);
        }
        Role::PtlDirty(f) => {
            let (inode, folio) = folio(f);
            wb_core::pte::zap_pte_range(ctx, &folio.pte, || filemap_dirty_folio(ctx, inode, &folio, true));
        }
        Role::Writeback(f) => {
            let (inode, folio) = folio(f);
            {
                let _locked = folio.lock();
                if folio.in_page_cache() && folio_clear_dirty_for_io(ctx, inode, &folio) {
                    __folio_start_writeback(ctx, inode, &folio);
                    __folio_end_writeback(ctx, inode, &folio);
                }
            }
            folio_end_dropbehind(ctx, inode, &folio);
        }
        Role::Truncate(f) => {
            let (inode, folio) = folio(f);
            truncate_inode_folio(ctx, inode, &folio);
        }
        Role::Lookup(f) => {
            let (inode, folio) = folio(f);
            __filemap_get_folio_mpol(ctx, inode, &folio, false);
        }
        Role::LockedLookup(f) => {
            let (inode, folio) = folio(f);
            __filemap_get_folio_mpol(ctx, inode, &folio, true);
        }
        Role::Redirty(f) => {
            let (inode, folio) = folio(f);
            let _locked = folio.lock();
            folio_redirty_for_writepage(ctx, inode, &folio);
        }
        Role::Switch => {
            if inode_switch_wbs(ctx, &inodes[0], 2) {
                inode_switch_wbs_work_fn(ctx, &inodes[0], 2);
            }
        }
        Role::Split => {
            let inode = &inodes[0];
            let (large, head, tail) = (&inode.folios[1], &inode.folios[2], &inode.folios[3]);
            let _locked = large.lock();
            if large.in_page_cache() {
                __split_folio_to_order(ctx, inode, large, &[head, tail], inode.bdi.rev.split_copies_dropbehind);
            }
        }
    }
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
/// folios 0 and 1, inode 1 (cannot write back) on wb0 with folio 2, all DONTCACHE folios.
pub fn build<P: Platform>(
    rev: Accounting,
    nr_cpus: usize,
    batch: i32,
    max_tasks: usize,
    setup: &Ctx<P>,
) -> (Arc<Bdi<P>>, Vec<Arc<Inode<P>>>) {
    let bdi = Arc::new(Bdi::<P>::new(2, nr_cpus, batch, max_tasks).with_accounting(rev));
    let folios0 = vec![
        Arc::new(Folio::new(0, FOLIOS[0].2, true)),
        Arc::new(Folio::new(1, FOLIOS[1].2, true)),
        Arc::new(Folio::detached(3, FOLIOS[3].2)),
        Arc::new(Folio::detached(4, FOLIOS[4].2)),
    ];
    let inode0 = Arc::new(Inode::new(0, bdi.clone(), 1, true, folios0));
    wb_get(setup, bdi.wb(1)); // inode 0's association reference
    let inode1 = Arc::new(Inode::new(1, bdi.clone(), 0, false, vec![Arc::new(Folio::new(2, FOLIOS[2].2, true))]));
    (bdi, vec![inode0, inode1])
}

impl Model for AccountingModel {
    fn properties(&self) -> &'static [&'static str] {
        PROPERTIES
    }

    fn execute<P: Platform>(&self, trace: &Arc<Trace>, plans: &[CpuPlan]) -> Vec<Violation> {
        let rev = self.rev();
        let setup = Ctx::<P>::new(trace.clone(), "setup", CpuPlan::Fixed(0));
        let (bdi, inodes) = build::<P>(rev, self.nr_cpus, self.batch, self.mix.roles.len() + 1, &setup);
        for &f in &self.mix.dirty_at_start {
            run_role(&setup, Role::WriteDirty(f), &inodes);
        }
        let handles: Vec<_> = self
            .mix
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
        vec![(0..self.mix.roles.len()).map(|i| CpuPlan::Fixed(i % self.nr_cpus)).collect()]
    }

    fn loom_variants(&self) -> Vec<Self> {
        self.variants.iter().map(|mix| AccountingModel { mix: mix.clone(), ..self.clone() }).collect()
    }

    fn shuttle_placement(&self) -> Vec<CpuPlan> {
        self.mix.roles.iter().map(|_| CpuPlan::Drawn { nr_cpus: self.nr_cpus }).collect()
    }

    fn placement_label(&self, plans: &[CpuPlan]) -> String {
        let cpus: Vec<String> = plans.iter().map(|p| p.describe()).collect();
        format!("{} on {}", self.mix.label(), cpus.join(", "))
    }

    fn size(&self) -> Vec<(String, u64)> {
        vec![
            ("threads".to_string(), self.mix.roles.len() as u64),
            ("role_sets".to_string(), self.variants.len() as u64),
            ("cpus".to_string(), self.nr_cpus as u64),
            ("batch".to_string(), self.batch as u64),
        ]
    }
}

pub struct DontcacheAccounting;

impl DontcacheAccounting {
    pub fn model_for(revision: AccountingRevision, checker: Checker) -> AccountingModel {
        let mixes = match checker {
            Checker::Loom => loom_mixes(),
            _ => vec![shuttle_mix()],
        };
        AccountingModel { revision, mix: mixes[0].clone(), variants: mixes, nr_cpus: 2, batch: 4 }
    }
}

/// Expected violations per checker (loom, shuttle-pct, shuttle-random, oracle).
fn expected(rev: AccountingRevision) -> [&'static [&'static str]; 4] {
    const F: &[&str] = &[COUNTER_EXACT];
    const P: &[&str] = &[];
    match rev {
        AccountingRevision::V7 | AccountingRevision::V6U32Negate64 => [F, F, F, P],
        AccountingRevision::V5DoubleDec => [F, F, F, P],
        AccountingRevision::V5NoGuard | AccountingRevision::V6NoSwitchTransfer | AccountingRevision::V6U32Negate32 => {
            [F, F, F, F]
        }
        AccountingRevision::V6SplitDropsFlag => [F, F, F, F],
        // The races a partial fix leaves need a switch inside another thread's narrow window.
        // Uniformly random schedules hit flag-snapshot's (a lookup across a switch) about once
        // in 20,000 executions (seed 1: at 9,947) and snapshot-in-section's (the three-way race)
        // not in 150,000 (see the header): the random verdicts depend on the seed.
        AccountingRevision::V7PartialFlagSnapshot => [F, F, F, P],
        AccountingRevision::V7PartialSnapshotInSection => [F, F, P, P],
        AccountingRevision::V7FixCountedBit => [P, P, P, P],
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
            revisions: revision_infos(expected),
        }
    }

    fn model(&self, revision: &str, checker: Checker, _tier: Tier) -> Result<AccountingModel, String> {
        Ok(Self::model_for(parse_revision(NAME, revision)?, checker))
    }
}
