//! Fuzzer-driven scheduling of `kick-rescuer`: the input is one shuttle execution's schedule
//! (`wb_checks::fuzz::sched_target`); the revision is `$WBCHECK_FUZZ_REVISION`, default the first
//! one expected to pass. A violated property is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wb_checks::fuzz::sched_target("kick-rescuer", data));
