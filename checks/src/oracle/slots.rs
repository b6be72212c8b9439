//! Reference model of a foreign-writeback slot table and the device registry, every call
//! atomic: records, flush decisions and completions, device lifecycle, and the properties that
//! still mean something sequentially.

/// A revision's sequential behaviour (the oracle's own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefSlotRev {
    /// v6 and the packed design: sequentially the same.
    V6,
    Slot0,
    NoInflightGuard,
}

pub fn ref_slot_revision(name: &str) -> Option<RefSlotRev> {
    Some(match name {
        "v6" | "packed" => RefSlotRev::V6,
        "v5-slot0" => RefSlotRev::Slot0,
        "no-inflight-guard" => RefSlotRev::NoInflightGuard,
        _ => return None,
    })
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
