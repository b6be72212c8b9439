//! Reference model of the wb-pin scenario, every kernel call atomic: reference counts and the
//! lifetime of the two cgroup wbs, the inode's association and switch, the kick with its four
//! pinning shapes, the flusher runs with writeback cleaning, and the scenario's properties.

use std::collections::BTreeSet;

/// The kick's pinning, by revision name (the oracle's own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pin {
    GetWakePut,
    Unpinned,
    WakeInSection,
    PutBeforeWakeup,
}

/// (pinning, whether the switch sets the kick bit on the new wb) of a revision.
pub fn pin_revision(name: &str) -> Option<(Pin, bool)> {
    Some(match name {
        "v7" => (Pin::GetWakePut, false),
        "v7-fix-switch-kick" => (Pin::GetWakePut, true),
        "v6-unpinned" => (Pin::Unpinned, false),
        "v5-wakeup-in-section" => (Pin::WakeInSection, false),
        "put-before-wakeup" => (Pin::PutBeforeWakeup, false),
        _ => return None,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Life {
    Live,
    Freed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefWb {
    pub refs: i64,
    pub life: Life,
    pub frees: u32,
    pub start_dontcache: bool,
    pub has_dirty_io: bool,
    pub pending: bool,
    pub dontcache_dirty: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefFolio {
    pub dirty: bool,
    pub tagged: bool,
}

/// One atomic step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinOp {
    /// A writer dirties its folio (DONTCACHE, one page).
    Dirty { folio: usize },
    /// A writer's `filemap_dontcache_kick_writeback`.
    Kick,
    /// `inode_switch_wbs` to wb 2.
    SwitchBegin,
    /// The switch work.
    SwitchWork,
    /// The kworker runs wb `wb`'s flusher work if queued.
    Run { wb: usize },
}

pub const OLD: usize = 1;
pub const NEW: usize = 2;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefPin {
    pub pin: Pin,
    pub fix: bool,
    /// Index 0 (the root wb) is unused.
    pub wbs: Vec<RefWb>,
    pub inode_wb: usize,
    pub switching: bool,
    pub inode_dirty: bool,
    pub folios: Vec<RefFolio>,
    /// The budget read by the last consume of each wb.
    pub last_consumed: Vec<i64>,
    /// Properties violated during the run.
    pub detected: BTreeSet<&'static str>,
}

impl RefPin {
    /// The scenario's setup: the inode on wb1, wb1 killed (the inode's reference is its last),
    /// `folios` clean DONTCACHE folios.
    pub fn new(pin: Pin, fix: bool, folios: usize) -> Self {
        let wb = |refs| RefWb {
            refs,
            life: Life::Live,
            frees: 0,
            start_dontcache: false,
            has_dirty_io: false,
            pending: false,
            dontcache_dirty: 0,
        };
        RefPin {
            pin,
            fix,
            wbs: vec![wb(1), wb(1), wb(1)],
            inode_wb: OLD,
            switching: false,
            inode_dirty: false,
            folios: vec![RefFolio { dirty: false, tagged: false }; folios],
            last_consumed: vec![0; 3],
            detected: BTreeSet::new(),
        }
    }

    fn put(&mut self, wb: usize) {
        self.wbs[wb].refs -= 1;
        if self.wbs[wb].refs < 0 {
            self.detected.insert("refcount");
        }
        if self.wbs[wb].refs == 0 {
            // The release: flush a queued run (not a kworker run: its budget is not recorded,
            // and the wb is about to be freed), then free.
            self.run(wb, false);
            self.wbs[wb].life = Life::Freed;
            self.wbs[wb].frees += 1;
        }
    }

    fn wake(&mut self, wb: usize) {
        if self.wbs[wb].life == Life::Live {
            self.wbs[wb].pending = true;
        }
    }

    fn run(&mut self, wb: usize, record: bool) {
        if !std::mem::replace(&mut self.wbs[wb].pending, false) {
            return;
        }
        if !std::mem::replace(&mut self.wbs[wb].start_dontcache, false) {
            return;
        }
        let budget = self.wbs[wb].dontcache_dirty.max(0);
        if record {
            self.last_consumed[wb] = budget;
        }
        // A zero budget starts no writeback; otherwise the one inode, if it is on this wb's
        // lists, is written whole (a write chunk is at least 1024 pages), cleaned, and taken off
        // the lists, which empties them.
        if budget == 0 || self.inode_wb != wb || !self.inode_dirty {
            return;
        }
        self.inode_dirty = false;
        self.wbs[wb].has_dirty_io = false;
        for f in self.folios.iter_mut().filter(|f| f.dirty) {
            *f = RefFolio { dirty: false, tagged: false };
            self.wbs[wb].dontcache_dirty -= 1;
        }
    }

    pub fn apply(&mut self, op: PinOp) {
        match op {
            PinOp::Dirty { folio } => {
                if !self.folios[folio].dirty {
                    self.folios[folio] = RefFolio { dirty: true, tagged: true };
                    let wb = self.inode_wb;
                    self.wbs[wb].dontcache_dirty += 1;
                    if !self.inode_dirty {
                        self.inode_dirty = true;
                        self.wbs[wb].has_dirty_io = true;
                    }
                }
            }
            PinOp::Kick => {
                let wb = self.inode_wb;
                let w = &mut self.wbs[wb];
                if !w.has_dirty_io || w.start_dontcache {
                    return;
                }
                w.start_dontcache = true;
                if self.pin == Pin::WakeInSection && self.switching {
                    // wb_wakeup's spin_unlock_irq inside the locked-mode section.
                    self.detected.insert("irq-enabled-under-lock");
                }
                self.wake(wb);
            }
            PinOp::SwitchBegin => {
                if !self.switching && self.inode_wb != NEW {
                    self.switching = true;
                    self.wbs[NEW].refs += 1; // the isw's reference
                }
            }
            PinOp::SwitchWork => {
                if !self.switching {
                    return;
                }
                let old = self.inode_wb;
                let moved = self.folios.iter().filter(|f| f.dirty && f.tagged).count() as i64;
                self.wbs[old].dontcache_dirty -= moved;
                self.wbs[NEW].dontcache_dirty += moved;
                if self.fix && moved > 0 {
                    self.wbs[NEW].start_dontcache = true;
                }
                // The inode's new association reference replaces the isw's.
                self.inode_wb = NEW;
                // A dirty inode moves to the new wb's b_dirty; the old wb's lists are empty now.
                if self.inode_dirty {
                    self.wbs[NEW].has_dirty_io = true;
                }
                self.wbs[old].has_dirty_io = false;
                self.switching = false;
                self.wake(NEW);
                self.put(old);
            }
            PinOp::Run { wb } => {
                if self.wbs[wb].life == Life::Live {
                    self.run(wb, true);
                }
            }
        }
    }

    /// The properties violated at the end (including those detected during the run).
    pub fn violated(&self) -> BTreeSet<&'static str> {
        let mut v = self.detected.clone();
        for (id, wb) in self.wbs.iter().enumerate().skip(1) {
            let lost = wb.life == Life::Live
                && wb.dontcache_dirty > 0
                && !(wb.start_dontcache && wb.pending)
                && self.last_consumed[id] < wb.dontcache_dirty;
            if lost {
                v.insert("lost-wakeup");
            }
            let holders = i64::from(id != OLD) + i64::from(self.inode_wb == id);
            if wb.refs != holders || wb.frees != u32::from(holders == 0) {
                v.insert("refcount");
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kick_before_the_switch_is_lost_in_v7_and_kept_by_the_fix() {
        for (fix, lost) in [(false, true), (true, false)] {
            let mut m = RefPin::new(Pin::GetWakePut, fix, 1);
            for op in [
                PinOp::Dirty { folio: 0 },
                PinOp::Kick,
                PinOp::SwitchBegin,
                PinOp::SwitchWork,
                PinOp::Run { wb: OLD },
                PinOp::Run { wb: NEW },
            ] {
                m.apply(op);
            }
            assert_eq!(m.violated().contains("lost-wakeup"), lost, "fix={fix}: {m:?}");
            assert_eq!(m.wbs[OLD].life, Life::Freed);
        }
    }

    #[test]
    fn wakeup_in_a_locked_section_is_an_irq_violation() {
        let mut m = RefPin::new(Pin::WakeInSection, false, 1);
        for op in [PinOp::Dirty { folio: 0 }, PinOp::SwitchBegin, PinOp::Kick] {
            m.apply(op);
        }
        assert!(m.violated().contains("irq-enabled-under-lock"));
    }
}
