//! F¹ of the paper's benchmarks, on the kernel versions the digest describes: digest
//! tests T9, T11–T14 and T20, and Table 1's statistics.

use pollen_arith::Int;
use pollen_search::{prune_outer, Options, PairOrder, Pruned, SpaceStats};

use crate::common::{atax, bicg, doitgen, gemver, structure_names, three_mat_mat};

fn f1(problem: &pollen_search::Problem) -> Pruned {
    prune_outer(problem, &Options::default()).unwrap()
}

/// The number of points of F¹, checked three ways: the direct search, the library's
/// enumeration of the set's points, and its count.
fn points(pruned: &Pruned) -> Int {
    let stats = pruned.stats().unwrap();
    let fast = pruned.structures().unwrap();
    assert_eq!(fast, pruned.structures_from_set().unwrap());
    assert_eq!(Int::from(fast.len() as i64), stats.points);
    assert_eq!(pruned.set().card().unwrap(), stats.points);
    stats.points
}

#[test]
fn t9_three_mat_mat() {
    let p = three_mat_mat();
    let f = f1(&p);
    assert_eq!(f.order(0, 1), PairOrder::Free);
    assert_eq!(f.order(0, 2), PairOrder::NotAfter);
    assert_eq!(f.order(1, 2), PairOrder::NotAfter);
    assert!(f.unfusable().is_empty());
    assert_eq!(points(&f), Int::from(6));
}

#[test]
fn t11_atax() {
    let f = f1(&atax());
    assert!(f.unfusable().is_empty());
    assert_eq!(points(&f), Int::from(16));
}

#[test]
fn t12_bicg() {
    let f = f1(&bicg());
    assert_eq!(f.order(2, 3), PairOrder::Free);
    assert_eq!(points(&f), Int::from(26));
    // Table 1: #dim 10 (two ordered pairs pre-fixed out of twelve variables).
    assert_eq!(f.stats().unwrap().dims, 10);
}

#[test]
fn t13_t20_gemver() {
    let f = f1(&gemver());
    assert_eq!(points(&f), Int::from(8));
    let all = f.structures().unwrap();
    // Fig. 5: version 1 fuses all four at the outer level, version 8 distributes all.
    assert_eq!(all[0].to_string(), "{S0 S1 S2 S3}");
    assert_eq!(all[7].to_string(), "{S0} {S1} {S2} {S3}");
    // Every one is a composition of the chain S0 ≤ S1 ≤ S2 ≤ S3.
    for s in &all {
        let r = s.ranks();
        assert!(r.windows(2).all(|w| w[0] <= w[1]), "{s}");
    }
}

#[test]
fn t14_doitgen() {
    let f = f1(&doitgen());
    assert_eq!(points(&f), Int::from(4));
    // Table 1: #dim 3 (all three pairs pre-fixed).
    assert_eq!(f.stats().unwrap().dims, 3);
    let got: Vec<String> = structure_names(&f);
    assert_eq!(
        got,
        [
            "{S0 S1 S2}",
            "{S0 S1} {S2}",
            "{S0} {S1 S2}",
            "{S0} {S1} {S2}"
        ]
    );
}

#[test]
fn table_1_o_columns_for_the_four_statement_kernels() {
    let o = pollen_search::Encoding::new(4, 1).unwrap().stats().unwrap();
    assert_eq!(
        o,
        SpaceStats {
            dims: 12,
            constraints: 58,
            points: Int::from(75)
        }
    );
    let o = pollen_search::Encoding::new(3, 1).unwrap().stats().unwrap();
    assert_eq!(
        o,
        SpaceStats {
            dims: 6,
            constraints: 22,
            points: Int::from(13)
        }
    );
}

#[test]
fn a_budget_bounds_the_listing_of_a_large_space() {
    // Eight independent statements: 545835 ordered partitions.
    let body: String = (0..8)
        .map(|k| format!("for (i = 0; i < N; i++) a{k}[i] = 0;\n"))
        .collect();
    let vectors: Vec<String> = (0..8).map(|k| format!("a{k}")).collect();
    let refs: Vec<&str> = vectors.iter().map(|s| s.as_str()).collect();
    let p = crate::common::problem(&crate::common::program(&[], &refs, &body));
    let f = f1(&p);
    let mut budget = pollen_presburger::Budget::new(10_000);
    assert!(matches!(
        f.structures_with(&mut budget),
        Err(pollen_search::Error::LimitExceeded)
    ));
    let mut budget = pollen_presburger::Budget::new(10_000);
    assert!(f.count_with(&mut budget).is_err());
}
