//! Fuzz target `set_ops`: two small sets or maps decoded from the input, every binary
//! set operation, comparison and law checked against brute-force enumeration
//! (`pollen_presburger::oracle::fuzz_set_ops`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(counter_example) = pollen_presburger::oracle::fuzz_set_ops(data) {
        panic!("{counter_example}");
    }
});
