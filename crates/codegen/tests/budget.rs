//! Code generation within a budget: a tiny budget stops it with `Error::LimitExceeded`.

use pollen_codegen::{generate, generate_with, Error, Options};
use pollen_presburger::Budget;

#[test]
fn a_tiny_budget_stops_code_generation() {
    let scop = pollen_testkit::kernel_scop("gemm");
    let tree = pollen_testkit::pluto(&scop);
    let e = generate_with(&scop, &tree, &Options::default(), &mut Budget::new(10)).unwrap_err();
    assert_eq!(e, Error::LimitExceeded);
    assert_eq!(e.to_string(), "code generation exceeded its budget");
    let options = Options {
        budget: Some(10),
        ..Options::default()
    };
    assert_eq!(
        generate(&scop, &tree, &options).unwrap_err(),
        Error::LimitExceeded
    );
}

#[test]
fn an_ample_budget_generates_the_same_code() {
    let scop = pollen_testkit::kernel_scop("jacobi-2d");
    let tree = pollen_testkit::pluto(&scop);
    let options = Options::default();
    let mut budget = Budget::new(10_000_000);
    let limited = generate_with(&scop, &tree, &options, &mut budget).unwrap();
    assert_eq!(limited, generate(&scop, &tree, &options).unwrap());
    assert!(
        budget.remaining().unwrap() < 10_000_000,
        "code generation spends steps"
    );
}
