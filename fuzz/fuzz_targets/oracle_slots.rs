//! Differential: wb-core against the reference model on both foreign-writeback slot tables, every slot revision
//! (`wb_checks::fuzz::oracle_slots`); any disagreement is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = wb_checks::fuzz::oracle_slots(data) {
        panic!("core and reference disagree: {e}");
    }
});
