//! Fuzz target `lexmin`: a small set or map decoded from the input, its lexmin and lexmax
//! (as maps and as piecewise quasi-affine functions) checked against brute-force
//! enumeration (`pollen_presburger::oracle::fuzz_lexmin`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(counter_example) = pollen_presburger::oracle::fuzz_lexmin(data) {
        panic!("{counter_example}");
    }
});
