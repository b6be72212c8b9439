//! Reference model of the DONTCACHE kick/consume protocol with the dirty-inode tracking around it
//! (seed 002 patch 3 over fs/fs-writeback.c, 6.12), every kernel call atomic: a folio dirtied,
//! an inode marked dirty, a kick, a flusher run (on a worker or on the rescuer).

use super::percpu::RefPercpu;

/// What a revision does, in this model's own terms (it does not share wb-core's revision enum).
/// Sequentially the posted and folded kicks are the same call, the writer's barrier has no effect,
/// and the late clear is indistinguishable from the early one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefKnobs {
    pub budget: Budget,
    /// The kick tests `wb_has_dirty_io` first (v5..v7).
    pub dirty_io_guard: bool,
    /// `wb_workfn` ends with a `wb_wakeup` while the kick bit is set (our rescuer fix).
    pub requeue_pending_kick: bool,
}

/// What a consume computes its budget from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// `wb_stat_sum`: count plus slots.
    Sum,
    /// `wb_stat`: the global count only.
    Read,
}

const V7: RefKnobs = RefKnobs { budget: Budget::Sum, dirty_io_guard: true, requeue_pending_kick: false };

/// The knobs of a dontcache-kick revision, by name.
pub fn kick_knobs(revision: &str) -> Option<RefKnobs> {
    match revision {
        "v7" | "v7-posted" | "v7-posted-no-mb" | "v7-no-mb" | "v5-late-clear" => Some(V7),
        "v5-approx-read" => Some(RefKnobs { budget: Budget::Read, ..V7 }),
        "v7-fix-kick" | "v7-fix-kick-posted" | "v7-fix-kick-posted-no-mb" | "v7-fix-kick-no-mb" => {
            Some(RefKnobs { dirty_io_guard: false, ..V7 })
        }
        _ => None,
    }
}

/// The knobs of a kick-rescuer revision, by name.
pub fn rescuer_knobs(revision: &str) -> Option<RefKnobs> {
    match revision {
        "v7" => Some(V7),
        "v7-fix-rescuer-requeue" => Some(RefKnobs { requeue_pending_kick: true, ..V7 }),
        _ => None,
    }
}

/// The objects of one configuration: per inode, its folios (DONTCACHE?, pages), and whether it
/// starts dirty (its last folio dirty, the inode on `b_dirty`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KickUniverse {
    pub inodes: Vec<Vec<(bool, i64)>>,
    pub dirty_at_start: Vec<bool>,
}

/// One atomic call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickOp {
    /// `filemap_dirty_folio` of folio `folio` of inode `inode`, on `cpu`.
    Dirty { inode: usize, folio: usize, cpu: usize },
    /// `__mark_inode_dirty(I_DIRTY_SYNC)`.
    MarkSync { inode: usize },
    /// `filemap_dontcache_kick_writeback` for `inode`.
    Kick { inode: usize },
    /// One flusher run (periodic if nothing is queued), on the rescuer or not.
    Run { rescuer: bool },
}

/// What one call returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickResult {
    /// Whether the folio went from clean to dirty.
    Dirtied(bool),
    Marked,
    /// The kick woke the flusher.
    Kicked { woke: bool },
    /// The run had been queued; the budget its consume read, if it consumed the bit.
    Ran { queued: bool, consumed: Option<i64> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefFolio {
    pub dontcache: bool,
    pub pages: i64,
    pub dirty: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefInode {
    pub dirty_sync: bool,
    pub dirty_pages: bool,
    /// On the wb's I/O lists.
    pub listed: bool,
    /// When it went on them (the order writeback takes them in).
    pub dirtied_when: usize,
    pub folios: Vec<RefFolio>,
}

/// The state every call can observe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefKick {
    pub start_dontcache: bool,
    pub has_dirty_io: bool,
    /// A flusher run is queued and has not started.
    pub pending: bool,
    pub dontcache_dirty: RefPercpu,
    pub inodes: Vec<RefInode>,
    pub clock: usize,
    /// DONTCACHE pages counted in and counted out so far.
    pub added: i64,
    pub removed: i64,
    /// The budget read by the last consume that cleared the bit, and `removed` before that run.
    pub last_consumed: Option<(i64, i64)>,
    pub knobs: RefKnobs,
}

/// The flusher's CPU (its count-outs go to this slot).
pub const FLUSHER_CPU: usize = 0;

impl RefKick {
    pub fn new(universe: &KickUniverse, nr_cpus: usize, batch: i64, knobs: RefKnobs) -> Self {
        let mut m = RefKick {
            start_dontcache: false,
            has_dirty_io: false,
            pending: false,
            dontcache_dirty: RefPercpu::new(nr_cpus, batch),
            inodes: universe
                .inodes
                .iter()
                .map(|folios| RefInode {
                    dirty_sync: false,
                    dirty_pages: false,
                    listed: false,
                    dirtied_when: 0,
                    folios: folios.iter().map(|&(dontcache, pages)| RefFolio { dontcache, pages, dirty: false }).collect(),
                })
                .collect(),
            clock: 0,
            added: 0,
            removed: 0,
            last_consumed: None,
            knobs,
        };
        for (i, &dirty) in universe.dirty_at_start.iter().enumerate() {
            if dirty {
                let last = m.inodes[i].folios.len() - 1;
                m.apply(KickOp::Dirty { inode: i, folio: last, cpu: FLUSHER_CPU });
            }
        }
        m
    }

    fn mark_inode_dirty(&mut self, i: usize, pages: bool) {
        let inode = &mut self.inodes[i];
        let was_dirty = inode.dirty_sync || inode.dirty_pages;
        if pages {
            inode.dirty_pages = true;
        } else {
            inode.dirty_sync = true;
        }
        if !was_dirty {
            self.clock += 1;
            inode.dirtied_when = self.clock;
            inode.listed = true;
            self.has_dirty_io = true;
        }
    }

    /// The flusher's writeback of `nr` pages from the oldest listed inodes: each written whole
    /// (its DONTCACHE pages counted out on the flusher's CPU), its dirty bits cleared, taken off
    /// the lists; `has_dirty_io` cleared once the lists are empty.
    fn writeback(&mut self, nr: i64) {
        let mut order: Vec<usize> = (0..self.inodes.len()).filter(|&i| self.inodes[i].listed).collect();
        order.sort_by_key(|&i| self.inodes[i].dirtied_when);
        let mut left = nr;
        for i in order {
            if left <= 0 {
                break;
            }
            let inode = &mut self.inodes[i];
            for f in inode.folios.iter_mut().filter(|f| f.dirty) {
                f.dirty = false;
                left -= f.pages;
                if f.dontcache {
                    self.dontcache_dirty.add(FLUSHER_CPU, -f.pages);
                    self.removed += f.pages;
                }
            }
            inode.dirty_sync = false;
            inode.dirty_pages = false;
            inode.listed = false;
        }
        if self.inodes.iter().all(|i| !i.listed) {
            self.has_dirty_io = false;
        }
    }

    pub fn apply(&mut self, op: KickOp) -> KickResult {
        match op {
            KickOp::Dirty { inode, folio, cpu } => {
                let f = &mut self.inodes[inode].folios[folio];
                if f.dirty {
                    return KickResult::Dirtied(false);
                }
                f.dirty = true;
                if f.dontcache {
                    let pages = f.pages;
                    self.dontcache_dirty.add(cpu, pages);
                    self.added += pages;
                }
                self.mark_inode_dirty(inode, true);
                KickResult::Dirtied(true)
            }
            KickOp::MarkSync { inode } => {
                self.mark_inode_dirty(inode, false);
                KickResult::Marked
            }
            KickOp::Kick { .. } => {
                let woke = (!self.knobs.dirty_io_guard || self.has_dirty_io) && !self.start_dontcache;
                if woke {
                    self.start_dontcache = true;
                    self.pending = true;
                }
                KickResult::Kicked { woke }
            }
            KickOp::Run { rescuer } => {
                let queued = std::mem::replace(&mut self.pending, false);
                let removed_before = self.removed;
                let consumed = if rescuer {
                    self.writeback(1024);
                    None
                } else {
                    std::mem::replace(&mut self.start_dontcache, false).then(|| {
                        let nr = match self.knobs.budget {
                            Budget::Sum => self.dontcache_dirty.sum_positive(),
                            Budget::Read => self.dontcache_dirty.read_positive(),
                        };
                        if nr != 0 {
                            self.writeback(nr);
                        }
                        nr
                    })
                };
                if let Some(nr) = consumed {
                    self.last_consumed = Some((nr, removed_before));
                }
                if self.knobs.requeue_pending_kick && self.start_dontcache {
                    self.pending = true;
                }
                KickResult::Ran { queued, consumed }
            }
        }
    }

    /// `lost-wakeup` at quiescence (the scenario's definition): `None` if it holds.
    pub fn lost_wakeup(&self) -> Option<String> {
        let remaining = self.dontcache_dirty.sum();
        if remaining <= 0 || (self.start_dontcache && self.pending) {
            return None;
        }
        let (budget, removed) = self.last_consumed.unwrap_or((0, 0));
        let owed = self.added - removed;
        (budget < owed).then(|| {
            format!(
                "{remaining} dirty DONTCACHE page(s) remain, WB_start_dontcache {} with no run queued; the last consume read {budget} when {owed} were counted",
                self.start_dontcache as u8
            )
        })
    }

    /// `dirty-tracking` at quiescence: `None` if it holds.
    pub fn dirty_tracking(&self) -> Option<String> {
        let lost = self.inodes.iter().position(|i| i.folios.iter().any(|f| f.dirty) && !(i.dirty_pages && i.listed));
        let listed = self.inodes.iter().any(|i| i.listed);
        match lost {
            Some(i) => Some(format!("inode {i} has dirty pages but is not listed with I_DIRTY_PAGES")),
            None => (listed != self.has_dirty_io)
                .then(|| format!("WB_has_dirty_io is {} with lists non-empty = {listed}", self.has_dirty_io as u8)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_inode(folios: &[(bool, i64)]) -> KickUniverse {
        KickUniverse { inodes: vec![folios.to_vec()], dirty_at_start: vec![false] }
    }

    #[test]
    fn approximate_budget_misses_pages_in_slots() {
        let knobs = kick_knobs("v5-approx-read").unwrap();
        let mut m = RefKick::new(&one_inode(&[(true, 1)]), 2, 4, knobs);
        m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 1 });
        assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: true });
        assert_eq!(m.apply(KickOp::Run { rescuer: false }), KickResult::Ran { queued: true, consumed: Some(0) });
        assert!(m.lost_wakeup().is_some());
    }

    #[test]
    fn exact_budget_writes_and_depopulates() {
        let mut m = RefKick::new(&one_inode(&[(true, 1), (true, 1)]), 2, 4, kick_knobs("v7").unwrap());
        m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 0 });
        m.apply(KickOp::Kick { inode: 0 });
        m.apply(KickOp::Dirty { inode: 0, folio: 1, cpu: 1 });
        assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: false });
        assert_eq!(m.apply(KickOp::Run { rescuer: false }), KickResult::Ran { queued: true, consumed: Some(2) });
        assert!(!m.has_dirty_io && m.lost_wakeup().is_none() && m.dirty_tracking().is_none());
        // The lists are empty: v7's kick is skipped, the fix's is not.
        assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: false });
    }

    #[test]
    fn the_rescuer_absorbs_the_wakeup_unless_the_run_requeues() {
        for (revision, lost) in [("v7", true), ("v7-fix-rescuer-requeue", false)] {
            let mut m = RefKick::new(&one_inode(&[(true, 1), (true, 1)]), 2, 4, rescuer_knobs(revision).unwrap());
            m.apply(KickOp::Dirty { inode: 0, folio: 0, cpu: 0 });
            m.apply(KickOp::Kick { inode: 0 });
            m.apply(KickOp::Run { rescuer: true });
            m.apply(KickOp::Dirty { inode: 0, folio: 1, cpu: 0 });
            assert_eq!(m.apply(KickOp::Kick { inode: 0 }), KickResult::Kicked { woke: false });
            assert_eq!(m.lost_wakeup().is_some(), lost, "{revision}");
        }
    }
}
