//! Reference model of WB_DONTCACHE_DIRTY accounting, every kernel call atomic: ground truth from
//! folio states, the revisions' sequential differences (the lookup's guard and arithmetic, the
//! switch transfer, the split's flag copy), and the `counter-exact` property.

/// A revision's sequential behaviour (the oracle's own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefRev {
    pub lookup_guard: bool,
    /// The lookup's `-nr` in 32-bit unsigned arithmetic widened to s64.
    pub negate_u32: bool,
    pub switch_transfer: bool,
    pub split_copies_dropbehind: bool,
}

pub fn ref_revision(name: &str) -> Option<RefRev> {
    let v7 = RefRev { lookup_guard: true, negate_u32: false, switch_transfer: true, split_copies_dropbehind: true };
    Some(match name {
        "v7"
        | "v5-double-dec"
        | "v6-u32-negate-64bit"
        | "v7-partial-flag-snapshot"
        | "v7-partial-snapshot-in-section"
        | "v7-fix-counted-bit" => v7,
        "v5-no-guard" => RefRev { lookup_guard: false, ..v7 },
        "v6-no-switch-transfer" => RefRev { switch_transfer: false, ..v7 },
        "v6-split-drops-flag" => RefRev { split_copies_dropbehind: false, ..v7 },
        "v6-u32-negate-32bit" => RefRev { negate_u32: true, ..v7 },
        _ => return None,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefFolio {
    pub inode: usize,
    pub nr: i64,
    pub in_cache: bool,
    pub dirty: bool,
    pub dropbehind: bool,
    pub tagged: bool,
}

/// One atomic step (the folio numbers are the scenario's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccOp {
    Dirty(usize),
    Writeback(usize),
    Truncate(usize),
    Lookup(usize),
    Switch,
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
        let f =
            |inode, nr, in_cache| RefFolio { inode, nr, in_cache, dirty: false, dropbehind: in_cache, tagged: false };
        RefAccounting {
            rev,
            folios: vec![f(0, 1, true), f(0, 2, true), f(1, 1, true), f(0, 1, false), f(0, 1, false)],
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

    pub fn apply(&mut self, op: AccOp) {
        match op {
            AccOp::Dirty(f) => {
                let wb = self.wb_of(f);
                let can = self.can_writeback[self.folios[f].inode];
                let folio = &mut self.folios[f];
                if folio.in_cache && !folio.dirty {
                    folio.dirty = true;
                    folio.tagged = true;
                    if can && folio.dropbehind {
                        self.counter[wb] += folio.nr;
                    }
                }
            }
            AccOp::Writeback(f) => {
                if self.folios[f].in_cache {
                    self.clean(f);
                    // folio_end_dropbehind: a clean dropbehind folio is dropped.
                    let folio = &mut self.folios[f];
                    if folio.dropbehind && !folio.dirty {
                        folio.dropbehind = false;
                        folio.in_cache = false;
                    }
                }
            }
            AccOp::Truncate(f) => {
                if self.folios[f].in_cache {
                    self.clean(f);
                    self.folios[f].in_cache = false;
                }
            }
            AccOp::Lookup(f) => {
                let wb = self.wb_of(f);
                let can = self.can_writeback[self.folios[f].inode];
                let rev = self.rev;
                let folio = &mut self.folios[f];
                if folio.in_cache && folio.dropbehind {
                    folio.dropbehind = false;
                    if folio.dirty && (can || !rev.lookup_guard) {
                        self.counter[wb] -=
                            if rev.negate_u32 { -i64::from((folio.nr as u32).wrapping_neg()) } else { folio.nr };
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_without_the_flag_copy_leaks_the_tail() {
        let mut m = RefAccounting::new(ref_revision("v6-split-drops-flag").unwrap());
        for op in [AccOp::Dirty(1), AccOp::Split, AccOp::Writeback(3), AccOp::Writeback(4)] {
            m.apply(op);
        }
        assert!(m.counter_exact().is_some(), "{m:?}");
        let mut m = RefAccounting::new(ref_revision("v7").unwrap());
        for op in [AccOp::Dirty(1), AccOp::Split, AccOp::Writeback(3), AccOp::Writeback(4)] {
            m.apply(op);
        }
        assert_eq!(m.counter_exact(), None);
    }

    #[test]
    fn u32_negation_adds_four_billion() {
        let mut m = RefAccounting::new(ref_revision("v6-u32-negate-32bit").unwrap());
        m.apply(AccOp::Dirty(0));
        m.apply(AccOp::Lookup(0));
        assert_eq!(m.counter[1], 1 + (1i64 << 32) - 1);
    }
}
