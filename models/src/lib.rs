//! wb-models: scenarios (thread programs + properties + expected verdicts) over wb-core, and the
//! loom and shuttle harnesses that check them.

pub mod bdev_slots;
pub mod bounds;
pub mod catalogue;
pub mod dontcache_accounting;
pub mod dontcache_kick;
pub mod folio_dirty_accounting;
pub mod foreign_policy;
pub mod harness;
pub mod kick_rescuer;
pub mod litmus;
pub mod outcome;
pub mod panic;
pub mod per_block_charge;
pub mod percpu_counter;
pub mod registry;
pub mod scenario;
pub mod scope;
pub mod wb_pin;
