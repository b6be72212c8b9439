//! Reference model of WB_DONTCACHE_DIRTY accounting, every kernel call atomic: ground truth from
//! folio states, the revisions' sequential differences (the lookup's guard and arithmetic, the
//! switch transfer, the split's flag copy), and the `counter-exact` property.

use super::{Oracle, Program, ONE_CPU};
use crate::differential::{accounting_op, CoreAccounting};
use wb_core::pte::PteState;
use wb_core::revision::AccountingRevision;
use wb_core::trace::Step;
use wb_models::bounds::Tier;
use wb_models::dontcache_accounting::{self, Mix, COUNTER_EXACT};

pub use wb_models::dontcache_accounting::NAME;

/// A revision's sequential behaviour (the oracle's own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefRev {
    pub lookup_guard: bool,
    /// The lookup's `-nr` in 32-bit unsigned arithmetic widened to s64.
    pub negate_u32: bool,
    pub switch_transfer: bool,
    pub split_copies_dropbehind: bool,
}

pub fn ref_revision(revision: AccountingRevision) -> RefRev {
    use AccountingRevision::*;
    let v7 = RefRev { lookup_guard: true, negate_u32: false, switch_transfer: true, split_copies_dropbehind: true };
    match revision {
        V7 | V5DoubleDec | V6U32Negate64 | V7PartialFlagSnapshot | V7PartialSnapshotInSection | V7FixCountedBit => v7,
        V5NoGuard => RefRev { lookup_guard: false, ..v7 },
        V6NoSwitchTransfer => RefRev { switch_transfer: false, ..v7 },
        V6SplitDropsFlag => RefRev { split_copies_dropbehind: false, ..v7 },
        V6U32Negate32 => RefRev { negate_u32: true, ..v7 },
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefFolio {
    pub inode: usize,
    /// The page-cache index (a migrated folio takes its predecessor's).
    pub index: u64,
    pub nr: i64,
    pub in_cache: bool,
    pub dirty: bool,
    pub dropbehind: bool,
    pub tagged: bool,
    pub pte: RefPte,
}

/// The folio's PTE in the file's shared mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefPte {
    None,
    Clean,
    Dirty,
}

/// One atomic step on the folio at a page-cache slot (the folio numbers are the scenario's: the
/// folio now at slot `f` is folio `f`, or the one migration put there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccOp {
    /// A write with RWF_DONTCACHE (the lookup leaves PG_dropbehind), then `filemap_dirty_folio`.
    DontcacheWrite(usize),
    /// A write without it: the lookup clears PG_dropbehind, then `filemap_dirty_folio`.
    BufferedWrite(usize),
    Lookup(usize),
    /// A write fault: the PTE made dirty, then `folio_mark_dirty`.
    MkwriteFault(usize),
    /// `zap_pte_range`: a dirty PTE dirties the folio; the PTE goes.
    Zap(usize),
    Writeback(usize),
    WritebackRedirty(usize),
    Truncate(usize),
    Switch,
    /// Folio 0 moves to folio 5.
    Migrate,
    Split,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefAccounting {
    pub rev: RefRev,
    pub folios: Vec<RefFolio>,
    /// The wb of each inode, and whether its mapping can write back.
    pub inode_wb: Vec<usize>,
    pub can_writeback: Vec<bool>,
    /// WB_DONTCACHE_DIRTY of wb0..wb2.
    pub counter: Vec<i64>,
}

impl RefAccounting {
    /// The scenario's objects: folios 0 (1 page) and 1 (2 pages) on inode 0 (wb1), folio 2 on
    /// inode 1 (wb0, cannot write back), folios 3 and 4 (folio 1's halves, not yet cached).
    pub fn new(rev: RefRev) -> Self {
        let f = |inode, index, nr, in_cache| RefFolio {
            inode,
            index,
            nr,
            in_cache,
            dirty: false,
            dropbehind: in_cache,
            tagged: false,
            pte: RefPte::None,
        };
        RefAccounting {
            rev,
            folios: vec![
                f(0, 0, 1, true),
                f(0, 1, 2, true),
                f(1, 2, 1, true),
                f(0, 3, 1, false),
                f(0, 4, 1, false),
                f(0, 0, 1, false),
            ],
            inode_wb: vec![1, 0],
            can_writeback: vec![true, false],
            counter: vec![0; 3],
        }
    }

    fn wb_of(&self, folio: usize) -> usize {
        self.inode_wb[self.folios[folio].inode]
    }

    fn clean(&mut self, f: usize) {
        let wb = self.wb_of(f);
        let folio = &mut self.folios[f];
        if folio.dirty {
            folio.dirty = false;
            folio.tagged = false;
            if folio.dropbehind && self.can_writeback[folio.inode] {
                self.counter[wb] -= folio.nr;
            }
        }
    }

    /// Put folio `f` in a start state: dirtied by a write if `dirty`, mapped through `pte`.
    pub fn prepare(&mut self, f: usize, dirty: bool, pte: RefPte) {
        if dirty {
            self.dirty(f);
        }
        self.folios[f].pte = pte;
    }

    /// The folio now at slot `f`'s page-cache index, if any.
    fn at(&self, f: usize) -> Option<usize> {
        let (inode, index) = (self.folios[f].inode, self.folios[f].index);
        (0..self.folios.len())
            .find(|&g| self.folios[g].inode == inode && self.folios[g].index == index && self.folios[g].in_cache)
    }

    /// `filemap_dirty_folio` of folio `g`.
    fn dirty(&mut self, g: usize) {
        let wb = self.wb_of(g);
        let can = self.can_writeback[self.folios[g].inode];
        let folio = &mut self.folios[g];
        if folio.in_cache && !folio.dirty {
            folio.dirty = true;
            folio.tagged = true;
            if can && folio.dropbehind {
                self.counter[wb] += folio.nr;
            }
        }
    }

    /// The lookup's PG_dropbehind clear and decrement on folio `g`.
    fn lookup(&mut self, g: usize) {
        let wb = self.wb_of(g);
        let can = self.can_writeback[self.folios[g].inode];
        let rev = self.rev;
        let folio = &mut self.folios[g];
        if folio.dropbehind {
            folio.dropbehind = false;
            if folio.dirty && (can || !rev.lookup_guard) {
                self.counter[wb] -=
                    if rev.negate_u32 { -i64::from((folio.nr as u32).wrapping_neg()) } else { folio.nr };
            }
        }
    }

    /// `folio_clear_dirty_for_io`: for a mapping that can write back, `folio_mkclean` first (a
    /// dirty PTE is cleaned and dirties the folio); then the folio is cleaned. Returns whether
    /// it was dirty.
    fn clear_dirty_for_io(&mut self, g: usize) -> bool {
        if self.can_writeback[self.folios[g].inode] && self.folios[g].pte == RefPte::Dirty {
            self.folios[g].pte = RefPte::Clean;
            self.dirty(g);
        }
        let was = self.folios[g].dirty;
        self.clean(g);
        was
    }

    /// `zap_pte_range`: a dirty PTE dirties the folio, then the PTE goes.
    fn zap(&mut self, g: usize) {
        if self.folios[g].pte == RefPte::Dirty {
            self.dirty(g);
        }
        self.folios[g].pte = RefPte::None;
    }

    pub fn apply(&mut self, op: AccOp) {
        match op {
            AccOp::DontcacheWrite(f) => {
                if let Some(g) = self.at(f) {
                    self.dirty(g);
                }
            }
            AccOp::BufferedWrite(f) => {
                if let Some(g) = self.at(f) {
                    self.lookup(g);
                    self.dirty(g);
                }
            }
            AccOp::Lookup(f) => {
                if let Some(g) = self.at(f) {
                    self.lookup(g);
                }
            }
            AccOp::MkwriteFault(f) => {
                if let Some(g) = self.at(f) {
                    self.folios[g].pte = RefPte::Dirty;
                    self.dirty(g);
                }
            }
            AccOp::Zap(f) => {
                if let Some(g) = self.at(f) {
                    self.zap(g);
                }
            }
            AccOp::Writeback(f) => {
                let Some(g) = self.at(f).filter(|&g| self.folios[g].tagged) else { return };
                if self.folios[g].dirty {
                    self.clear_dirty_for_io(g);
                }
                // folio_end_dropbehind: a clean dropbehind folio loses the flag and is unmapped
                // (a dirty PTE dirties it again) and, if still clean, dropped.
                if self.folios[g].dropbehind && !self.folios[g].dirty {
                    self.folios[g].dropbehind = false;
                    self.zap(g);
                    if !self.folios[g].dirty {
                        self.folios[g].in_cache = false;
                    }
                }
            }
            AccOp::WritebackRedirty(f) => {
                if let Some(g) = self.at(f) {
                    if self.clear_dirty_for_io(g) {
                        self.dirty(g);
                    }
                }
            }
            AccOp::Truncate(f) => {
                if let Some(g) = self.at(f) {
                    self.zap(g);
                    self.clean(g);
                    self.folios[g].in_cache = false;
                }
            }
            AccOp::Switch => {
                if self.inode_wb[0] == 1 {
                    if self.rev.switch_transfer {
                        for folio in self.folios.iter().filter(|f| f.inode == 0 && f.in_cache) {
                            if folio.tagged && folio.dirty && folio.dropbehind {
                                self.counter[1] -= folio.nr;
                                self.counter[2] += folio.nr;
                            }
                        }
                    }
                    self.inode_wb[0] = 2;
                }
            }
            AccOp::Migrate => {
                if self.folios[0].in_cache {
                    // try_to_migrate passes a dirty PTE's bit to the folio; the PTE comes back
                    // on the new folio, dirty if it was and the folio is.
                    let pte = self.folios[0].pte;
                    if pte == RefPte::Dirty {
                        self.dirty(0);
                    }
                    let old = self.folios[0].clone();
                    let new = &mut self.folios[5];
                    new.in_cache = true;
                    new.dirty = old.dirty;
                    new.tagged = old.tagged;
                    new.dropbehind = old.dropbehind;
                    new.pte = match pte {
                        RefPte::None => RefPte::None,
                        RefPte::Dirty if old.dirty => RefPte::Dirty,
                        _ => RefPte::Clean,
                    };
                    self.folios[0].in_cache = false;
                    self.folios[0].dirty = false;
                    self.folios[0].tagged = false;
                    self.folios[0].pte = RefPte::None;
                }
            }
            AccOp::Split => {
                let large = self.folios[1].clone();
                if large.in_cache {
                    for (i, child) in [3, 4].into_iter().enumerate() {
                        let c = &mut self.folios[child];
                        c.in_cache = true;
                        c.dirty = large.dirty;
                        c.tagged = large.tagged;
                        c.dropbehind = large.dropbehind && (self.rev.split_copies_dropbehind || i == 0);
                    }
                    self.folios[1].in_cache = false;
                }
            }
        }
    }

    /// `counter-exact`: `None` if every wb's counter equals the pages of its dirty dropbehind
    /// folios in the page cache.
    pub fn counter_exact(&self) -> Option<String> {
        let mut wrong = Vec::new();
        for wb in 0..self.counter.len() {
            let expected: i64 = self
                .folios
                .iter()
                .filter(|f| self.inode_wb[f.inode] == wb && self.can_writeback[f.inode])
                .filter(|f| f.in_cache && f.dirty && f.dropbehind)
                .map(|f| f.nr)
                .sum();
            if self.counter[wb] != expected {
                wrong.push(format!(
                    "wb{wb} WB_DONTCACHE_DIRTY is {} but its dirty dropbehind pages number {expected}",
                    self.counter[wb]
                ));
            }
        }
        (!wrong.is_empty()).then(|| wrong.join("; "))
    }
}

/// The oracle of `dontcache-accounting`: every configuration of the scenario's scope, each
/// thread running its role once (quick) or twice, every interleaving of those whole calls; and
/// the split program (a dirtier, the split and the writeback of a tail, against the other
/// roles), which only sequential checkers run.
pub struct AccountingOracle;

fn ops(tier: Tier) -> usize {
    if tier == Tier::Quick {
        1
    } else {
        2
    }
}

impl Oracle for AccountingOracle {
    type Revision = AccountingRevision;
    type Op = AccOp;
    /// The configuration (`None`: the split program).
    type Setup = Option<Mix>;
    type Reference = RefAccounting;
    type Core = CoreAccounting;

    fn programs(&self, tier: Tier) -> Vec<Program<AccOp, Option<Mix>>> {
        let program = |threads, setup: Option<Mix>| Program {
            configuration: setup.as_ref().map_or(
                "split program: dontcache-write(f1), split, writeback(f4) + lookup(f3), writeback(f3) + switcher"
                    .into(),
                Mix::label,
            ),
            placement: ONE_CPU.into(),
            threads,
            epilogue: Vec::new(),
            setup,
        };
        let mut programs: Vec<_> = dontcache_accounting::loom_mixes()
            .into_iter()
            .map(|mix| program(mix.roles.iter().map(|&r| vec![accounting_op(r); ops(tier)]).collect(), Some(mix)))
            .collect();
        use AccOp::*;
        programs.push(program(
            vec![vec![DontcacheWrite(1), Split, Writeback(4)], vec![Lookup(3), Writeback(3)], vec![Switch]],
            None,
        ));
        programs
    }

    fn bounds(&self, tier: Tier) -> Vec<(String, u64)> {
        vec![("ops_per_thread".into(), ops(tier) as u64)]
    }

    fn reference(&self, rev: AccountingRevision, mix: &Option<Mix>) -> RefAccounting {
        let mut r = RefAccounting::new(ref_revision(rev));
        if let Some(mix) = mix {
            let pte = match mix.start.pte {
                PteState::None => RefPte::None,
                PteState::Clean => RefPte::Clean,
                PteState::Dirty => RefPte::Dirty,
            };
            r.prepare(mix.folio, mix.start.dirty, pte);
        }
        r
    }

    fn core(&self, rev: AccountingRevision, mix: &Option<Mix>) -> CoreAccounting {
        let mut c = CoreAccounting::new(rev);
        if let Some(mix) = mix {
            c.prepare(mix.folio, mix.start);
        }
        c
    }

    fn apply_reference(&self, r: &mut RefAccounting, mix: &Option<Mix>, thread: usize, op: AccOp) -> Step {
        r.apply(op);
        Step::new(
            mix.as_ref().map_or(format!("t{thread}"), |m| m.roles[thread].name()),
            accounting_function(op),
            format!("{op:?}: counters {:?}", r.counter),
        )
    }

    fn apply_core(&self, c: &mut CoreAccounting, _: usize, op: AccOp) {
        c.apply(op);
    }

    fn diverges(&self, r: &RefAccounting, c: &CoreAccounting) -> Option<String> {
        let got = c.snapshot(r);
        (got != *r).then(|| format!("wb-core's state {got:?} differs from the reference's {r:?}"))
    }

    fn violated(&self, r: &RefAccounting, _: &Option<Mix>) -> Vec<(&'static str, String)> {
        r.counter_exact().map(|m| (COUNTER_EXACT, m)).into_iter().collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_without_the_flag_copy_leaks_the_tail() {
        let mut m = RefAccounting::new(ref_revision(AccountingRevision::from_name("v6-split-drops-flag").unwrap()));
        for op in [AccOp::DontcacheWrite(1), AccOp::Split, AccOp::Writeback(3), AccOp::Writeback(4)] {
            m.apply(op);
        }
        assert!(m.counter_exact().is_some(), "{m:?}");
        let mut m = RefAccounting::new(ref_revision(AccountingRevision::from_name("v7").unwrap()));
        for op in [AccOp::DontcacheWrite(1), AccOp::Split, AccOp::Writeback(3), AccOp::Writeback(4)] {
            m.apply(op);
        }
        assert_eq!(m.counter_exact(), None);
    }

    #[test]
    fn u32_negation_adds_four_billion() {
        let mut m = RefAccounting::new(ref_revision(AccountingRevision::from_name("v6-u32-negate-32bit").unwrap()));
        m.apply(AccOp::DontcacheWrite(0));
        m.apply(AccOp::Lookup(0));
        assert_eq!(m.counter[1], 1 + (1i64 << 32) - 1);
    }
}
