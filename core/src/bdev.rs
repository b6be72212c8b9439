//! block/bdev.c: a registry of block devices by device number (open, close, remove, number
//! reuse) and seed 001's `bdev_flush_by_dev()` (reconstructed from the cover letter: "Closed
//! devices and devices with a busy open_mutex are skipped. Device removal and device-number reuse
//! may race with lookup"), in the shape of `sync_bdevs`: look the device up without opening it,
//! `mutex_trylock(&disk->open_mutex)`, skip it if `bd_openers` is 0, else flush its mapping.

use crate::ctx::Ctx;
use crate::spinlock::SpinLock;
use crate::sync::{Ordering::Relaxed, Platform, Traced};
use crate::trace::Name;
use std::sync::atomic::{AtomicU64, Ordering as Ghost};

/// Detected when a flush writes back a device that is not open.
pub const NO_CLOSED_DEVICE_FLUSH: &str = "no-closed-device-flush";

/// One device number's current device.
pub struct BdevEntry<P: Platform> {
    /// The device instance behind the number (0: none, the number is free).
    generation: Traced<P, P::AtomicI64>,
    /// `bdev->bd_openers`, changed under `open_mutex`.
    openers: Traced<P, P::AtomicI64>,
    /// `disk->open_mutex`.
    open_mutex: SpinLock<P, ()>,
    /// Ghost: flushes that reached the mapping, and those of a reused number.
    flushes: AtomicU64,
}

/// The devices of the model, by device number 1..=n (index `dev - 1`).
pub struct DeviceRegistry<P: Platform> {
    entries: Box<[BdevEntry<P>]>,
    next_generation: AtomicU64,
}

/// What `bdev_flush_by_dev` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BdevFlush {
    NoDevice,
    Busy,
    Closed,
    /// Flushed the mapping of the device instance with this generation.
    Flushed(i64),
}

impl<P: Platform> DeviceRegistry<P> {
    /// Numbers 1..=`devices`, each with an open device (generation = number, one opener).
    pub fn new(devices: usize) -> Self {
        DeviceRegistry {
            entries: (0..devices)
                .map(|d| BdevEntry {
                    generation: Traced::new(d as i64 + 1, Name::int("bdev{}.generation", d as i64 + 1)),
                    openers: Traced::new(1, Name::int("bdev{}.bd_openers", d as i64 + 1)),
                    open_mutex: SpinLock::new(()),
                    flushes: AtomicU64::new(0),
                })
                .collect(),
            next_generation: AtomicU64::new(devices as u64 + 1),
        }
    }

    /// The current generation of a number (0: removed), read directly.
    pub fn generation(&self, dev: usize) -> i64 {
        self.entries[dev - 1].generation.load(Relaxed)
    }

    /// Flushes that reached device number `dev`'s mapping.
    pub fn flushes(&self, dev: usize) -> u64 {
        self.entries[dev - 1].flushes.load(Ghost::Relaxed)
    }

    /// `blkdev_put` of the last opener: under `open_mutex`, `bd_openers -= 1`.
    pub fn close(&self, ctx: &Ctx<P>, dev: usize) {
        let e = &self.entries[dev - 1];
        let _m = e.open_mutex.lock();
        let o = e.openers.load(Relaxed);
        e.openers.store(o - 1, Relaxed);
        ctx.event("blkdev_put", "dev {}: bd_openers {} -> {}", &[dev as i64, o, o - 1]);
    }

    /// `blkdev_get_by_dev` of the first opener.
    pub fn open(&self, ctx: &Ctx<P>, dev: usize) {
        let e = &self.entries[dev - 1];
        let _m = e.open_mutex.lock();
        let o = e.openers.load(Relaxed);
        e.openers.store(o + 1, Relaxed);
        ctx.event("blkdev_get_by_dev", "dev {}: bd_openers {} -> {}", &[dev as i64, o, o + 1]);
    }

    /// `del_gendisk` then `add_disk` of another device with the same number: a closed device
    /// goes away and a new one (closed) takes its number.
    pub fn remove_and_reuse(&self, ctx: &Ctx<P>, dev: usize) {
        let e = &self.entries[dev - 1];
        let _m = e.open_mutex.lock();
        let new = self.next_generation.fetch_add(1, Ghost::Relaxed) as i64;
        e.generation.store(new, Relaxed);
        e.openers.store(0, Relaxed);
        ctx.event("add_disk", "dev {} now names another device (generation {}), closed", &[dev as i64, new]);
    }

    /// `bdev_flush_by_dev(dev)` (seed 001 patch 1, reconstruction).
    pub fn bdev_flush_by_dev(&self, ctx: &Ctx<P>, dev: usize) -> BdevFlush {
        const F: &str = "bdev_flush_by_dev";
        let Some(e) = dev.checked_sub(1).and_then(|i| self.entries.get(i)) else {
            ctx.event(F, "dev {}: no such device -> skip", &[dev as i64]);
            return BdevFlush::NoDevice;
        };
        let generation = e.generation.load(Relaxed);
        if generation == 0 {
            ctx.event(F, "dev {}: blkdev_get_no_open found nothing -> skip", &[dev as i64]);
            return BdevFlush::NoDevice;
        }
        let Some(_m) = e.open_mutex.try_lock() else {
            ctx.event(F, "dev {}: open_mutex busy -> skip", &[dev as i64]);
            return BdevFlush::Busy;
        };
        let openers = e.openers.load(Relaxed);
        if openers == 0 {
            ctx.event(F, "dev {}: bd_openers = 0 (closed) -> skip", &[dev as i64]);
            return BdevFlush::Closed;
        }
        // filemap_flush(bdev->bd_mapping) under open_mutex, so the device stays open.
        if e.openers.load(Relaxed) == 0 {
            ctx.detect(NO_CLOSED_DEVICE_FLUSH, F, format!("dev {dev} is flushed while closed"));
        }
        e.flushes.fetch_add(1, Ghost::Relaxed);
        ctx.event(
            F,
            "dev {} (generation {}): bd_openers = {} -> filemap_flush(bdev mapping)",
            &[dev as i64, generation, openers],
        );
        BdevFlush::Flushed(generation)
    }
}
