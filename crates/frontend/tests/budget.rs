//! Extraction within a caller's budget: a tiny one stops it with the library's
//! `LimitExceeded` inside `Error::Presburger`; an ample one gives `extract`'s scop.

use pollen_frontend::{extract, extract_with, Error};
use pollen_presburger::Budget;

const SOURCE: &str = "\
void kernel(int n, double A[100][100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      A[i][j] = A[i][j] + 1.0;
#pragma endscop
}
";

#[test]
fn a_tiny_budget_stops_extraction() {
    match extract_with(SOURCE, &mut Budget::new(1)) {
        Err(Error::Presburger { error, .. }) => {
            assert_eq!(error, pollen_presburger::Error::LimitExceeded)
        }
        other => panic!("expected a resource limit, got {other:?}"),
    }
}

#[test]
fn an_ample_budget_gives_the_same_scop() {
    let mut budget = Budget::new(1_000_000);
    let limited = extract_with(SOURCE, &mut budget).unwrap();
    let unlimited = extract(SOURCE).unwrap();
    assert_eq!(
        pollen_scop::text::print(&limited.scop),
        pollen_scop::text::print(&unlimited.scop)
    );
    assert_eq!(limited.region, unlimited.region);
    assert!(
        budget.remaining().unwrap() < 1_000_000,
        "extraction spends steps"
    );
}
