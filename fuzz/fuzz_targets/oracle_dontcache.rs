//! Differential: wb-core against the reference model on the DONTCACHE kick/consume bookkeeping, every kick revision
//! (`wb_checks::fuzz::oracle_dontcache`); any disagreement is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = wb_checks::fuzz::oracle_dontcache(data) {
        panic!("core and reference disagree: {e}");
    }
});
