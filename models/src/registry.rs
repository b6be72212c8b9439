//! The scenario registry: every scenario, in catalogue order.

use crate::scenario::Scenario;

/// Every scenario, in catalogue order.
pub fn scenarios() -> Vec<&'static dyn Scenario> {
    vec![
        &crate::dontcache_kick::DontcacheKick,
        &crate::wb_pin::WbPin,
        &crate::dontcache_accounting::DontcacheAccounting,
        &crate::percpu_counter::PercpuCounterScenario,
        &crate::bdev_slots::BdevSlots,
        &crate::foreign_policy::ForeignPolicyScenario,
        &crate::folio_dirty_accounting::FolioDirtyAccounting,
        &crate::per_block_charge::PerBlockCharge,
    ]
}

pub fn find(name: &str) -> Option<&'static dyn Scenario> {
    scenarios().into_iter().find(|s| s.info().name == name)
}
