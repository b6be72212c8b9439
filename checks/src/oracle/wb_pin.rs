//! Reference model of the wb-pin scenario, every kernel call atomic: reference counts and the
//! lifetime of the two cgroup wbs, the inode's association and switch, the kick with its four
//! pinning shapes, the flusher's work items (queued now, or by the timer) and runs with
//! writeback cleaning, and the scenario's properties.

use super::{Oracle, Program, ONE_CPU};
use crate::differential::CorePin;
use std::collections::BTreeSet;
use wb_core::revision::PinRevision;
use wb_core::trace::Step;
use wb_models::bounds::Tier;

pub use wb_models::wb_pin::NAME;

/// The kick's pinning (the oracle's own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pin {
    GetWakePut,
    Unpinned,
    WakeInSection,
    PutBeforeWakeup,
}

/// (pinning, whether the switch sets the kick bit on the new wb) of a revision.
pub fn pin_revision(revision: PinRevision) -> (Pin, bool) {
    match revision {
        PinRevision::V7 => (Pin::GetWakePut, false),
        PinRevision::V7FixSwitchKick => (Pin::GetWakePut, true),
        PinRevision::V6Unpinned => (Pin::Unpinned, false),
        PinRevision::V5WakeupInSection => (Pin::WakeInSection, false),
        PinRevision::PutBeforeWakeup => (Pin::PutBeforeWakeup, false),
    }
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
    /// A run on the worklist; the timer armed (meaningful only with none on it).
    pub pending: bool,
    pub timer: bool,
    pub dontcache_dirty: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefFolio {
    pub dirty: bool,
    pub tagged: bool,
    /// Ghost (`expedition`): its writer kicked with it dirty and no run has written it since;
    /// a timer fired while it was owed; it was written only after that.
    pub owed: bool,
    pub stale: bool,
    pub late: bool,
}

impl RefFolio {
    const CLEAN: RefFolio = RefFolio { dirty: false, tagged: false, owed: false, stale: false, late: false };
}

/// One atomic step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinOp {
    /// A writer dirties its folio (DONTCACHE, one page).
    Dirty { folio: usize },
    /// The `filemap_dontcache_kick_writeback` of the writer of folio `folio`.
    Kick { folio: usize },
    /// `inode_switch_wbs` to wb 2.
    SwitchBegin,
    /// The switch work.
    SwitchWork,
    /// The kworker looks at wb `wb`'s work item: runs it if queued, else lets an armed timer fire
    /// and runs what it queued.
    Look { wb: usize },
    /// The kworker runs the queued work of both wbs until none is queued.
    Drain,
}

/// The most runs a [`PinOp::Drain`] makes.
const DRAIN_RUNS: usize = 8;

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
            timer: false,
            dontcache_dirty: 0,
        };
        RefPin {
            pin,
            fix,
            wbs: vec![wb(1), wb(1), wb(1)],
            inode_wb: OLD,
            switching: false,
            inode_dirty: false,
            folios: vec![RefFolio::CLEAN; folios],
            detected: BTreeSet::new(),
        }
    }

    fn put(&mut self, wb: usize) {
        self.wbs[wb].refs -= 1;
        if self.wbs[wb].refs < 0 {
            self.detected.insert("refcount");
        }
        if self.wbs[wb].refs == 0 {
            // The release: wb_shutdown's mod_delayed_work(0) queues a drain run, flush_delayed_work
            // runs it, then the wb is freed.
            self.wbs[wb].life = Life::Freed;
            self.wbs[wb].pending = true;
            self.run(wb);
            self.wbs[wb].frees += 1;
        }
    }

    fn wake(&mut self, wb: usize) {
        if self.wbs[wb].life == Life::Live {
            self.wbs[wb].pending = true;
            self.wbs[wb].timer = false;
        }
    }

    fn wake_delayed(&mut self, wb: usize) {
        if self.wbs[wb].life == Life::Live && !self.wbs[wb].pending {
            self.wbs[wb].timer = true;
        }
    }

    /// One run of `wb`'s queued work, if queued; whether one ran.
    fn run(&mut self, wb: usize) -> bool {
        if !std::mem::replace(&mut self.wbs[wb].pending, false) {
            return false;
        }
        self.wbs[wb].timer = false;
        if std::mem::replace(&mut self.wbs[wb].start_dontcache, false) {
            let budget = self.wbs[wb].dontcache_dirty.max(0);
            // A zero budget starts no writeback; otherwise the one inode, if it is on this wb's
            // lists, is written whole (a write chunk is at least 1024 pages), cleaned, and taken
            // off the lists, which empties them.
            if budget != 0 && self.inode_wb == wb && self.inode_dirty {
                self.inode_dirty = false;
                self.wbs[wb].has_dirty_io = false;
                for f in self.folios.iter_mut().filter(|f| f.dirty) {
                    let late = f.owed && f.stale;
                    *f = RefFolio { late: f.late || late, ..RefFolio::CLEAN };
                    self.wbs[wb].dontcache_dirty -= 1;
                }
            }
        }
        if self.wbs[wb].has_dirty_io {
            self.wake_delayed(wb);
        }
        true
    }

    /// `wb`'s armed timer fires (time passes: every page still owed is late); whether it fired.
    fn fire(&mut self, wb: usize) -> bool {
        let w = &mut self.wbs[wb];
        if w.life != Life::Live || w.pending || !w.timer {
            return false;
        }
        w.timer = false;
        w.pending = true;
        for f in self.folios.iter_mut().filter(|f| f.owed) {
            f.stale = true;
        }
        true
    }

    pub fn apply(&mut self, op: PinOp) {
        match op {
            PinOp::Dirty { folio } => {
                if !self.folios[folio].dirty {
                    self.folios[folio] = RefFolio { dirty: true, tagged: true, ..self.folios[folio] };
                    let wb = self.inode_wb;
                    self.wbs[wb].dontcache_dirty += 1;
                    if !self.inode_dirty {
                        self.inode_dirty = true;
                        if !self.wbs[wb].has_dirty_io {
                            self.wbs[wb].has_dirty_io = true;
                            self.wake_delayed(wb);
                        }
                    }
                }
            }
            PinOp::Kick { folio } => {
                let wb = self.inode_wb;
                let w = &mut self.wbs[wb];
                if w.has_dirty_io && !w.start_dontcache {
                    w.start_dontcache = true;
                    if self.pin == Pin::WakeInSection && self.switching {
                        // wb_wakeup's spin_unlock_irq inside the locked-mode section.
                        self.detected.insert("irq-enabled-under-lock");
                    }
                    self.wake(wb);
                }
                let f = &mut self.folios[folio];
                if f.dirty && !f.owed {
                    f.owed = true;
                    f.stale = false;
                }
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
            PinOp::Look { wb } => {
                if self.wbs[wb].life == Life::Live && !self.run(wb) && self.fire(wb) {
                    self.run(wb);
                }
            }
            PinOp::Drain => {
                let mut runs = 0;
                while runs < DRAIN_RUNS {
                    let live = [OLD, NEW].into_iter().filter(|&wb| self.wbs[wb].life == Life::Live);
                    let Some(wb) = live.into_iter().find(|&wb| self.wbs[wb].pending) else { break };
                    self.run(wb);
                    runs += 1;
                }
            }
        }
    }

    /// The properties violated at the end (including those detected during the run).
    pub fn violated(&self) -> BTreeSet<&'static str> {
        let mut v = self.detected.clone();
        if self.folios.iter().any(|f| f.owed || f.late) {
            v.insert("expedition");
        }
        for (id, wb) in self.wbs.iter().enumerate().skip(1) {
            if wb.life == Life::Live && wb.pending {
                v.insert("quiescence");
            }
            let holders = i64::from(id != OLD) + i64::from(self.inode_wb == id);
            if wb.refs != holders || wb.frees != u32::from(holders == 0) {
                v.insert("refcount");
            }
        }
        v
    }
}

/// The oracle of `wb-pin`: writers (one folio and one kick each), the switch as two calls
/// (`inode_switch_wbs`, then its work), and a kworker's looks over both wbs, then its drain, on
/// one CPU.
pub struct PinOracle;

fn writers(tier: Tier) -> usize {
    if tier == Tier::Deep {
        3
    } else {
        2
    }
}

const PASSES: usize = 2;

impl Oracle for PinOracle {
    type Revision = PinRevision;
    type Op = PinOp;
    /// The number of writers.
    type Setup = usize;
    type Reference = RefPin;
    type Core = CorePin;

    fn programs(&self, tier: Tier) -> Vec<Program<PinOp, usize>> {
        let writers = writers(tier);
        let mut threads: Vec<Vec<PinOp>> =
            (0..writers).map(|w| vec![PinOp::Dirty { folio: w }, PinOp::Kick { folio: w }]).collect();
        threads.push(vec![PinOp::SwitchBegin, PinOp::SwitchWork]);
        threads.push((0..PASSES).flat_map(|_| [PinOp::Look { wb: OLD }, PinOp::Look { wb: NEW }]).collect());
        vec![Program {
            configuration: String::new(),
            placement: ONE_CPU.into(),
            threads,
            epilogue: vec![PinOp::Drain],
            setup: writers,
        }]
    }

    fn bounds(&self, tier: Tier) -> Vec<(String, u64)> {
        vec![
            ("writers".into(), writers(tier) as u64),
            ("kworker_looks".into(), PASSES as u64),
            ("drain_runs".into(), DRAIN_RUNS as u64),
        ]
    }

    fn reference(&self, rev: PinRevision, &writers: &usize) -> RefPin {
        let (pin, fix) = pin_revision(rev);
        RefPin::new(pin, fix, writers)
    }

    fn core(&self, rev: PinRevision, &writers: &usize) -> CorePin {
        CorePin::new(rev, writers)
    }

    fn apply_reference(&self, r: &mut RefPin, &writers: &usize, thread: usize, op: PinOp) -> Step {
        r.apply(op);
        describe_pin(thread, writers, op, r)
    }

    fn apply_core(&self, c: &mut CorePin, _: usize, op: PinOp) {
        c.apply(op);
    }

    fn diverges(&self, r: &RefPin, c: &CorePin) -> Option<String> {
        let got = c.snapshot(r);
        (got != *r).then(|| format!("wb-core's state {got:?} differs from the reference's {r:?}"))
    }

    fn violated(&self, r: &RefPin, _: &usize) -> Vec<(&'static str, String)> {
        r.violated().into_iter().map(|p| (p, format!("the reference model ends with {p} violated: {r:?}"))).collect()
    }
}

fn describe_pin(thread: usize, writers: usize, op: PinOp, after: &RefPin) -> Step {
    let who = if thread < writers {
        format!("writer{thread}")
    } else if thread == writers {
        "switcher".into()
    } else {
        "kworker".into()
    };
    let wb = |id: usize| {
        let w = &after.wbs[id];
        format!(
            "wb{id}: refs {} {:?} WB_start_dontcache {} queued {} timer {} WB_DONTCACHE_DIRTY {}",
            w.refs, w.life, w.start_dontcache as u8, w.pending as u8, w.timer as u8, w.dontcache_dirty
        )
    };
    let (function, detail) = match op {
        PinOp::Dirty { folio } => (
            "filemap_dirty_folio",
            format!("folio {folio} dirty on the inode's wb{}; {}", after.inode_wb, wb(after.inode_wb)),
        ),
        PinOp::Kick { .. } => (
            "filemap_dontcache_kick_writeback",
            format!("inode on wb{} (switching {}); {}", after.inode_wb, after.switching as u8, wb(after.inode_wb)),
        ),
        PinOp::SwitchBegin => ("inode_switch_wbs", format!("I_WB_SWITCH = {}", after.switching as u8)),
        PinOp::SwitchWork => {
            ("inode_do_switch_wbs", format!("inode on wb{}; {}; {}", after.inode_wb, wb(OLD), wb(NEW)))
        }
        PinOp::Look { wb: id } => ("wb_workfn", wb(id)),
        PinOp::Drain => ("wb_workfn", format!("drained: {}; {}", wb(OLD), wb(NEW))),
    };
    Step::new(who, function, detail)
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
                PinOp::Kick { folio: 0 },
                PinOp::SwitchBegin,
                PinOp::SwitchWork,
                PinOp::Look { wb: OLD },
                PinOp::Look { wb: NEW },
                PinOp::Drain,
            ] {
                m.apply(op);
            }
            assert_eq!(m.violated().contains("expedition"), lost, "fix={fix}: {m:?}");
            assert_eq!(m.wbs[OLD].life, Life::Freed);
        }
    }

    #[test]
    fn wakeup_in_a_locked_section_is_an_irq_violation() {
        let mut m = RefPin::new(Pin::WakeInSection, false, 1);
        for op in [PinOp::Dirty { folio: 0 }, PinOp::SwitchBegin, PinOp::Kick { folio: 0 }] {
            m.apply(op);
        }
        assert!(m.violated().contains("irq-enabled-under-lock"));
    }
}
