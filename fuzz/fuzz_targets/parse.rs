//! Fuzz target `parse`: the isl-syntax parser never panics on arbitrary text, and what it
//! prints for an accepted text parses again (`pollen_presburger::oracle::fuzz_parse`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(counter_example) = pollen_presburger::oracle::fuzz_parse(data) {
        panic!("{counter_example}");
    }
});
