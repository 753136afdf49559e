//! Dependence analysis within a budget: a tiny budget stops it with
//! `Error::LimitExceeded`, an ample one gives the unlimited result.

use pollen_deps::{analyze, analyze_with, Analysis, Error};
use pollen_presburger::Budget;

#[test]
fn a_tiny_budget_stops_the_analysis() {
    let scop = pollen_testkit::kernel_scop("gemm");
    for analysis in [Analysis::ValueBased, Analysis::MemoryBased] {
        let e = analyze_with(&scop, analysis, &mut Budget::new(10)).unwrap_err();
        assert_eq!(e, Error::LimitExceeded);
        assert_eq!(e.to_string(), "dependence analysis exceeded its budget");
    }
}

#[test]
fn an_ample_budget_gives_the_unlimited_result() {
    let scop = pollen_testkit::kernel_scop("jacobi-1d");
    let mut budget = Budget::new(10_000_000);
    let limited = analyze_with(&scop, Analysis::ValueBased, &mut budget).unwrap();
    let unlimited = analyze(&scop, Analysis::ValueBased).unwrap();
    assert_eq!(
        limited.union_all().to_string(),
        unlimited.union_all().to_string()
    );
    assert!(
        budget.remaining().unwrap() < 10_000_000,
        "the analysis spends steps"
    );
}
