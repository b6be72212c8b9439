//! Reference model of a foreign-writeback slot table and the device registry, every call
//! atomic: records, flush decisions and completions, device lifecycle, and the properties that
//! still mean something sequentially.

use super::{Oracle, Program};
use std::sync::Arc;
use wb_core::bdev::DeviceRegistry;
use wb_core::ctx::{CpuPlan, Ctx};
use wb_core::memcg::ForeignTable;
use wb_core::revision::SlotRevision;
use wb_core::sync::Std;
use wb_core::trace::{Step, Trace};
use wb_models::bdev_slots::{self, Call};
use wb_models::bounds::Tier;

pub use wb_models::bdev_slots::NAME;

/// A revision's sequential behaviour (the oracle's own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefSlotRev {
    /// v6 and the packed design: sequentially the same.
    V6,
    Slot0,
    NoInflightGuard,
}

pub fn ref_slot_revision(revision: SlotRevision) -> RefSlotRev {
    match revision {
        SlotRevision::V6 | SlotRevision::Packed => RefSlotRev::V6,
        SlotRevision::V5Slot0 => RefSlotRev::Slot0,
        SlotRevision::NoInflightGuard => RefSlotRev::NoInflightGuard,
    }
}

/// A record's identity: `(bdi_id, memcg_id)` in the baseline `cgwb_frn` table, `(dev, 0)` in the
/// bdev table; `(0, 0)` is an empty slot.
pub type RefKey = (i64, i64);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefSlots {
    pub rev: RefSlotRev,
    /// (key, at, done.cnt).
    pub slots: Vec<(RefKey, i64, i64)>,
    /// Per device number 1..: (generation, openers).
    pub devices: Vec<(i64, i64)>,
    next_generation: i64,
    pub violated: Vec<&'static str>,
    /// Flushes that reached each device number.
    pub flushes: Vec<u64>,
}

impl RefSlots {
    pub fn new(rev: RefSlotRev, capacity: usize, devices: usize) -> Self {
        RefSlots {
            rev,
            slots: vec![((0, 0), 0, 1); capacity],
            devices: (0..devices).map(|d| (d as i64 + 1, 1)).collect(),
            next_generation: devices as i64 + 1,
            violated: Vec::new(),
            flushes: vec![0; devices],
        }
    }

    fn note(&mut self, property: &'static str) {
        if !self.violated.contains(&property) {
            self.violated.push(property);
        }
    }

    /// `mem_cgroup_track_foreign_dirty_slowpath` (and the bdev table's reconstruction) in one step.
    pub fn track(&mut self, key: RefKey, now: i64, update_intv: i64) {
        if let Some(s) = self.slots.iter_mut().find(|s| s.0 == key) {
            if s.1 < now - update_intv {
                s.1 = now;
            }
            return;
        }
        let eligible = |s: &(RefKey, i64, i64)| self.rev == RefSlotRev::NoInflightGuard || s.2 == 1;
        let victim = match self.rev {
            RefSlotRev::Slot0 => self.slots.iter().any(|s| s.1 < now && eligible(s)).then_some(0),
            _ => {
                let mut best: Option<(usize, i64)> = None;
                for (i, s) in self.slots.iter().enumerate() {
                    if s.1 < best.map_or(now, |b| b.1) && eligible(s) {
                        best = Some((i, s.1));
                    }
                }
                best.map(|b| b.0)
            }
        };
        if let Some(v) = victim {
            if self.slots[v].2 > 1 {
                self.note("no-inflight-overwrite");
            }
            self.slots[v].0 = key;
            self.slots[v].1 = now;
        }
    }

    /// `mem_cgroup_flush_foreign`'s decision; returns the slots queued with their keys.
    pub fn flush(&mut self, now: i64, intv: i64) -> Vec<(usize, RefKey)> {
        let mut queued = Vec::new();
        for (i, s) in self.slots.iter_mut().enumerate() {
            if s.1 > now - intv && s.1 != 0 && s.2 == 1 {
                s.1 = 0;
                s.2 += 1;
                queued.push((i, s.0));
            }
        }
        queued
    }

    pub fn flush_by_dev(&mut self, dev: i64) {
        let d = (dev - 1) as usize;
        let (generation, openers) = self.devices[d];
        if generation != 0 && openers > 0 {
            self.flushes[d] += 1;
        }
    }

    pub fn flush_done(&mut self, slot: usize) {
        self.slots[slot].2 -= 1;
        if self.slots[slot].2 < 1 {
            self.note("inflight-bound");
        }
    }

    pub fn close(&mut self, dev: i64) {
        self.devices[(dev - 1) as usize].1 -= 1;
    }

    pub fn reuse(&mut self, dev: i64) {
        self.devices[(dev - 1) as usize] = (self.next_generation, 0);
        self.next_generation += 1;
    }
}

/// The oracle of `bdev-slots`: every interleaving, at call granularity, of each loom and
/// shuttle program of the scenario, on the reference table and registry, cross-checked against
/// wb-core's table and registry after every call.
pub struct SlotsOracle;

/// The reference table and each thread's queued flushes.
pub struct SlotsRef {
    model: RefSlots,
    queued: Vec<Vec<(usize, RefKey)>>,
}

pub struct SlotsCore {
    ctx: Ctx<Std>,
    table: ForeignTable<Std>,
    devices: DeviceRegistry<Std>,
    queued: Vec<Vec<(usize, i64)>>,
}

impl Oracle for SlotsOracle {
    type Revision = SlotRevision;
    /// A call and the thread that makes it (its flushes are queued per thread).
    type Op = (usize, Call);
    type Setup = bdev_slots::Program;
    type Reference = SlotsRef;
    type Core = SlotsCore;

    fn programs(&self, _: Tier) -> Vec<Program<(usize, Call), bdev_slots::Program>> {
        bdev_slots::loom_programs()
            .into_iter()
            .chain(bdev_slots::shuttle_programs())
            .map(|program| Program {
                configuration: String::new(),
                placement: format!("{:?} (prefill {:?})", program.threads, program.prefill),
                threads: program
                    .threads
                    .iter()
                    .enumerate()
                    .map(|(t, (_, calls))| calls.iter().map(|&c| (t, c)).collect())
                    .collect(),
                epilogue: Vec::new(),
                setup: program,
            })
            .collect()
    }

    fn bounds(&self, _: Tier) -> Vec<(String, u64)> {
        vec![("slots".into(), bdev_slots::CAPACITY as u64)]
    }

    fn reference(&self, rev: SlotRevision, program: &bdev_slots::Program) -> SlotsRef {
        let mut model = RefSlots::new(ref_slot_revision(rev), bdev_slots::CAPACITY, bdev_slots::DEVICES);
        for &(dev, at) in &program.prefill {
            model.track((dev as i64, 0), at, bdev_slots::UPDATE_INTV);
        }
        SlotsRef { model, queued: vec![Vec::new(); program.threads.len()] }
    }

    fn core(&self, rev: SlotRevision, program: &bdev_slots::Program) -> SlotsCore {
        let ctx = Ctx::<Std>::new(Arc::new(Trace::disabled()), "step", CpuPlan::Fixed(0));
        let table = ForeignTable::<Std>::new(bdev_slots::CAPACITY, rev, "cgwb_bdev");
        for &(dev, at) in &program.prefill {
            table.track(&ctx, (dev as i64, 0), at, bdev_slots::UPDATE_INTV);
        }
        SlotsCore {
            ctx,
            table,
            devices: DeviceRegistry::new(bdev_slots::DEVICES),
            queued: vec![Vec::new(); program.threads.len()],
        }
    }

    fn apply_reference(
        &self,
        r: &mut SlotsRef,
        program: &bdev_slots::Program,
        _: usize,
        (t, call): (usize, Call),
    ) -> Step {
        let m = &mut r.model;
        match call {
            Call::Track { dev, now } => m.track((dev as i64, 0), now, bdev_slots::UPDATE_INTV),
            Call::Flush { now } => r.queued[t].extend(m.flush(now, bdev_slots::EXPIRE_INTV)),
            Call::Work => {
                for (slot, (dev, _)) in std::mem::take(&mut r.queued[t]) {
                    m.flush_by_dev(dev);
                    m.flush_done(slot);
                }
            }
            Call::Close { dev } => m.close(dev as i64),
            Call::Reuse { dev } => m.reuse(dev as i64),
        }
        Step::new(
            program.threads[t].0,
            slots_function(call),
            format!("{call:?}: slots ((dev, 0), at, done.cnt) {:?}", m.slots),
        )
    }

    fn apply_core(&self, c: &mut SlotsCore, _: usize, (t, call): (usize, Call)) {
        bdev_slots::run_call(&c.ctx, call, &mut c.queued[t], &c.table, &c.devices);
    }

    fn diverges(&self, r: &SlotsRef, c: &SlotsCore) -> Option<String> {
        let slots = c.table.contents();
        let flushes: Vec<u64> = (1..=bdev_slots::DEVICES).map(|d| c.devices.flushes(d)).collect();
        (slots != r.model.slots || flushes != r.model.flushes).then(|| {
            format!(
                "wb-core's slots {slots:?} / flushes {flushes:?} differ from the reference's {:?} / {:?}",
                r.model.slots, r.model.flushes
            )
        })
    }

    fn violated(&self, r: &SlotsRef, program: &bdev_slots::Program) -> Vec<(&'static str, String)> {
        let recorded = program.recorded_devices();
        let mut violated = r.model.violated.clone();
        if recorded.len() <= bdev_slots::CAPACITY
            && recorded.iter().any(|&d| !r.model.slots.iter().any(|s| s.0 == (d, 0)))
        {
            violated.push(bdev_slots::ALL_TRACKED);
        }
        violated.into_iter().map(|p| (p, format!("the reference table ends as {:?}", r.model.slots))).collect()
    }
}

fn slots_function(call: Call) -> &'static str {
    match call {
        Call::Track { .. } => "mem_cgroup_track_foreign_dirty_slowpath",
        Call::Flush { .. } => "mem_cgroup_flush_foreign",
        Call::Work => "bdev_flush_by_dev",
        Call::Close { .. } => "blkdev_put",
        Call::Reuse { .. } => "add_disk",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot0_overwrites_and_the_guard_protects_flushes() {
        let mut m = RefSlots::new(RefSlotRev::Slot0, 2, 3);
        m.track((1, 0), 3, 2);
        m.track((2, 0), 4, 2);
        assert_eq!(m.slots.iter().filter(|s| s.0 != (0, 0)).count(), 1, "v5 keeps one device in two slots");
        let mut m = RefSlots::new(RefSlotRev::NoInflightGuard, 1, 3);
        m.track((1, 0), 3, 2);
        m.flush(4, 10);
        m.track((2, 0), 5, 2);
        assert_eq!(m.violated, vec!["no-inflight-overwrite"]);
    }
}
