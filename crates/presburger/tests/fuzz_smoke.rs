//! A short, deterministic smoke run of every fuzz target of `fuzz/`: the same check
//! functions the targets call (`pollen_presburger::oracle::fuzz_*`), over a pseudo-random
//! corpus of a few hundred inputs, so that the suite exercises the fuzz code paths
//! without cargo-fuzz. `cargo xtask fuzz <target>` runs the real fuzzer.

use pollen_presburger::oracle;

/// Runs `check` on every input, failing with the first counter-example.
fn smoke(target: &str, corpus: Vec<Vec<u8>>, check: fn(&[u8]) -> Result<(), String>) {
    for (i, input) in corpus.iter().enumerate() {
        if let Err(counter_example) = check(input) {
            panic!("fuzz target {target}, input #{i} {input:?}:\n{counter_example}");
        }
    }
}

#[test]
fn parse_target() {
    smoke("parse", oracle::parse_corpus(1, 400), oracle::fuzz_parse);
}

#[test]
fn set_ops_target() {
    smoke("set_ops", oracle::byte_corpus(2, 100), oracle::fuzz_set_ops);
}

#[test]
fn lexmin_target() {
    smoke("lexmin", oracle::byte_corpus(3, 150), oracle::fuzz_lexmin);
}
