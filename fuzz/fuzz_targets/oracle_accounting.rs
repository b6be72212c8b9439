//! Differential: wb-core against the reference model on WB_DONTCACHE_DIRTY accounting and percpu_counter, every revision
//! (`wb_checks::fuzz::oracle_accounting`); any disagreement is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = wb_checks::fuzz::oracle_accounting(data) {
        panic!("core and reference disagree: {e}");
    }
});
