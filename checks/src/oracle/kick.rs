//! Reference model of the DONTCACHE kick/consume bookkeeping (seed 002 patch 3), every kernel
//! call atomic: a writer's dirtying of a DONTCACHE folio, its kick, and a flusher run.

use super::percpu::RefPercpu;

/// What a consume computes its budget from, by revision name (its own table: the oracle does not
/// share wb-core's revision enum). Sequentially the posted and folded kicks are the same call,
/// the writer's barrier has no effect, and the late clear is indistinguishable from the early one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// `wb_stat_sum`: count plus slots.
    Sum,
    /// `wb_stat`: the global count only.
    Read,
}

pub fn budget_of(revision: &str) -> Option<Budget> {
    match revision {
        "v7" | "v7-posted" | "v7-posted-no-mb" | "v7-no-mb" | "v5-late-clear" => Some(Budget::Sum),
        "v5-approx-read" => Some(Budget::Read),
        _ => None,
    }
}

/// One atomic step of the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickOp {
    /// Writer `writer` dirties a new DONTCACHE folio of `pages` pages while on `cpu`.
    Dirty { writer: usize, cpu: usize, pages: i64 },
    /// Writer `writer` calls `filemap_dontcache_kick_writeback`.
    Kick { writer: usize },
    /// The flusher runs once.
    Run,
}

/// What one step returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickResult {
    Dirtied,
    /// The kick woke the flusher.
    Kicked {
        woke: bool,
    },
    /// The run had been queued; it consumed the bit and read this budget.
    Ran {
        queued: bool,
        consumed: Option<i64>,
    },
}

/// The state every step can observe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefKick {
    pub start_dontcache: bool,
    pub has_dirty_io: bool,
    /// A flusher run is queued and has not started.
    pub pending: bool,
    pub dontcache_dirty: RefPercpu,
    pub inode_dirty: Vec<bool>,
    /// The budget read by the last run that consumed the bit.
    pub last_consumed: i64,
    pub budget: Budget,
}

impl RefKick {
    pub fn new(writers: usize, nr_cpus: usize, batch: i64, budget: Budget) -> Self {
        RefKick {
            start_dontcache: false,
            has_dirty_io: false,
            pending: false,
            dontcache_dirty: RefPercpu::new(nr_cpus, batch),
            inode_dirty: vec![false; writers],
            last_consumed: 0,
            budget,
        }
    }

    pub fn apply(&mut self, op: KickOp) -> KickResult {
        match op {
            KickOp::Dirty { writer, cpu, pages } => {
                self.dontcache_dirty.add(cpu, pages);
                if !self.inode_dirty[writer] {
                    self.inode_dirty[writer] = true;
                    self.has_dirty_io = true;
                }
                KickResult::Dirtied
            }
            KickOp::Kick { .. } => {
                let woke = self.has_dirty_io && !self.start_dontcache;
                if woke {
                    self.start_dontcache = true;
                    self.pending = true;
                }
                KickResult::Kicked { woke }
            }
            KickOp::Run => {
                let queued = std::mem::replace(&mut self.pending, false);
                let consumed = std::mem::replace(&mut self.start_dontcache, false).then(|| match self.budget {
                    Budget::Sum => self.dontcache_dirty.sum_positive(),
                    Budget::Read => self.dontcache_dirty.read_positive(),
                });
                if let Some(nr) = consumed {
                    self.last_consumed = nr;
                }
                KickResult::Ran { queued, consumed }
            }
        }
    }

    /// `lost-wakeup` at quiescence: `None` if it holds, else what was observed.
    pub fn lost_wakeup(&self, total_pages: i64) -> Option<String> {
        if self.start_dontcache {
            (!self.pending).then(|| "WB_start_dontcache is set at the end but no flusher run is queued".to_string())
        } else {
            (self.last_consumed != total_pages).then(|| {
                format!(
                    "WB_start_dontcache is clear at the end, but the last consume that cleared it read {} pages; the writers dirtied {total_pages}",
                    self.last_consumed
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approximate_budget_misses_pages_in_slots() {
        let mut m = RefKick::new(1, 2, 4, Budget::Read);
        m.apply(KickOp::Dirty { writer: 0, cpu: 1, pages: 1 });
        assert_eq!(m.apply(KickOp::Kick { writer: 0 }), KickResult::Kicked { woke: true });
        assert_eq!(m.apply(KickOp::Run), KickResult::Ran { queued: true, consumed: Some(0) });
        assert!(m.lost_wakeup(1).is_some());
    }

    #[test]
    fn exact_budget_sees_every_page() {
        let mut m = RefKick::new(2, 2, 4, Budget::Sum);
        m.apply(KickOp::Dirty { writer: 0, cpu: 0, pages: 1 });
        m.apply(KickOp::Kick { writer: 0 });
        m.apply(KickOp::Dirty { writer: 1, cpu: 1, pages: 1 });
        assert_eq!(m.apply(KickOp::Kick { writer: 1 }), KickResult::Kicked { woke: false });
        assert_eq!(m.apply(KickOp::Run), KickResult::Ran { queued: true, consumed: Some(2) });
        assert_eq!(m.lost_wakeup(2), None);
    }
}
