//! Fuzz target `driver`: the fuzzer's bytes are a whole C file, optimized by
//! `pollen_driver::optimize_source` with a small solver budget, under each strategy. The
//! driver never panics; an optimized file keeps the text before the first region and
//! after the last one, and its report has one entry per region, in file order.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pollen_driver::{optimize_source, Options, Strategy, Tiling};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    if source.len() > 4000 {
        return;
    }
    // Both tiling modes: sizes from the cache model, and small given sizes.
    let tiling = if data.len() % 2 == 0 {
        Tiling::FromCache
    } else {
        Tiling::Sizes(vec![4, 8])
    };
    // Every strategy: the whole-region scheduler, and fused tiling (greedy and by the
    // grouping model).
    let strategy = match data.len() % 3 {
        0 => Strategy::Pluto,
        1 => Strategy::Basteln,
        _ => Strategy::Polymage,
    };
    let options = Options {
        tiling,
        strategy,
        budget: Some(200_000),
        ..Options::default()
    };
    let Ok(optimized) = optimize_source(source, &options) else {
        return;
    };
    let regions = &optimized.report.regions;
    let (Some(first), Some(last)) = (regions.first(), regions.last()) else {
        panic!("an optimized file without a region\n{source}");
    };
    assert!(
        regions.windows(2).all(|w| w[0].range.end <= w[1].range.start),
        "regions out of order\n{source}"
    );
    assert!(
        optimized.text.starts_with(&source[..first.range.start]),
        "the text before the first region changed\n{source}"
    );
    assert!(
        optimized.text.ends_with(&source[last.range.end..]),
        "the text after the last region changed\n{source}"
    );
    let _ = optimized.report.to_string();
});
