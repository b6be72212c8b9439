//! Property names: a contract of the JSON verdicts and the catalogue's expected verdicts. The
//! ones the core itself detects are defined where they are detected.

pub use crate::bdev::NO_CLOSED_DEVICE_FLUSH;
pub use crate::ctx::IRQ_ENABLED_UNDER_LOCK;
pub use crate::memcg::{INFLIGHT_BOUND, NO_INFLIGHT_OVERWRITE, OLDEST_REPLACED};
pub use crate::wb::{REFCOUNT, USE_AFTER_FREE};

/// Every page a DONTCACHE writer counted and kicked for is written by an immediate flusher run,
/// or its consume's budget covered it and was spent in full on older inodes (models/src/flusher.rs).
pub const EXPEDITION: &str = "expedition";
/// Once the other threads are done the flusher stops within K + 2 runs, nothing left queued.
pub const QUIESCENCE: &str = "quiescence";
/// A flusher run that wrote nothing does not queue itself again for immediate execution while its
/// wb has nothing on its I/O lists.
pub const NO_IDLE_SPIN: &str = "no-idle-spin";
pub const DIRTY_TRACKING: &str = "dirty-tracking";
pub const COUNTER_EXACT: &str = "counter-exact";
pub const QUIESCENT_EXACT: &str = "quiescent-exact";
pub const READ_ERROR_BOUND: &str = "read-error-bound";
pub const NO_LOST_UPDATE: &str = "no-lost-update";
pub const ALL_TRACKED: &str = "all-tracked-within-capacity";
pub const RECORD_INTEGRITY: &str = "record-integrity";
pub const FLUSH_SCOPE: &str = "flush-scope";
pub const PRESSURE_RELIEF: &str = "pressure-relief";
pub const CHARGE_EQUALS_WRITTEN: &str = "charge-equals-written";
pub const OVER_ACCOUNTING_BOUND: &str = "over-accounting-bound";
pub const CHARGE_DISCHARGE_MATCH: &str = "charge-discharge-match";
pub const WB_RECLAIMABLE_EXACT: &str = "wb-reclaimable-exact";
/// Every page charged dirty gets what 6.12's `folio_account_dirtied()` does for it: WB_DIRTIED on
/// the wb charged, the dirtier's `current->nr_dirtied`, and `mem_cgroup_track_foreign_dirty()`.
pub const DIRTIED_COMPLETE: &str = "dirtied-complete";
