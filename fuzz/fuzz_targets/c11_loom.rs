//! The checker checked: the bytes choose a small C11 program, which loom must run to exactly the
//! final states RC11 allows, every SC one among them (`wb_checks::fuzz::c11_loom`); a mismatch
//! is a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = wb_checks::fuzz::c11_loom(data) {
        panic!("loom disagrees with the C11 enumerators: {e}");
    }
});
