//! The fusion test, M-sets, Lemma 6 and the μ/λ decomposition: digest tests T7, T8,
//! T10, T16–T19.

use pollen_arith::Int;
use pollen_search::decompose::decompose;
use pollen_search::{lex_precedes, prune_outer, FusionOptions, Options, Problem, RowKind};

use crate::common::{matvec_chain, problem, program, structure_names, three_mat_mat, violated};

const SELECTOR: FusionOptions = FusionOptions {
    max_shift: 0,
    rows: RowKind::Selector,
};
const AFFINE: FusionOptions = FusionOptions {
    max_shift: 0,
    rows: RowKind::Affine,
};

/// Checks the witness rows of a fusable group against every dependence inside it.
fn check_witness(problem: &Problem, group: &[usize], options: &FusionOptions) {
    let rows = problem
        .fusing_rows(group, options)
        .unwrap()
        .expect("fusable");
    let small = |v: &[Int]| v.iter().map(|x| x.to_i64().unwrap()).collect::<Vec<i64>>();
    for e in problem.edges() {
        let (Some(a), Some(b)) = (
            group.iter().position(|&s| s == e.source),
            group.iter().position(|&s| s == e.target),
        ) else {
            continue;
        };
        let (ra, rb) = (small(&rows[a].iterators), small(&rows[b].iterators));
        let (ca, cb) = (
            rows[a].constant.to_i64().unwrap(),
            rows[b].constant.to_i64().unwrap(),
        );
        assert!(!violated(e, (&ra, ca), (&rb, cb)), "witness violates {e:?}");
    }
    for r in &rows {
        assert!(r.iterators.iter().any(|c| !c.is_zero()));
    }
}

#[test]
fn t7_three_mat_mat_m_sets() {
    let p = three_mat_mat();
    let all: Vec<(usize, usize)> = (0..3).flat_map(|a| (0..3).map(move |b| (a, b))).collect();
    assert_eq!(p.permutation_pairs(0, 1, &SELECTOR).unwrap(), all, "M_RS");
    // (i, i) and (j, k).
    assert_eq!(
        p.permutation_pairs(0, 2, &SELECTOR).unwrap(),
        [(0, 0), (1, 2)],
        "M_RT"
    );
    // (i, k) and (j, j).
    assert_eq!(
        p.permutation_pairs(1, 2, &SELECTOR).unwrap(),
        [(0, 2), (1, 1)],
        "M_ST"
    );
}

#[test]
fn t8_three_mat_mat_unique_compatible_selectors() {
    let p = three_mat_mat();
    // μ^R = j, μ^S = i, μ^T = k: Fig. 2(a).
    assert_eq!(
        p.compatible_selectors(&[0, 1, 2], &SELECTOR).unwrap(),
        [vec![1, 0, 2]]
    );
    assert!(p
        .fusable_selecting(&[0, 1, 2], &[1, 0, 2], &SELECTOR)
        .unwrap());
    assert!(p.fusable(&[0, 1, 2], &AFFINE).unwrap());
    check_witness(&p, &[0, 1, 2], &AFFINE);
}

#[test]
fn t10_matvec_chain_pairs_fuse_the_three_do_not() {
    let p = matvec_chain();
    assert!(p.fusable(&[0, 1], &AFFINE).unwrap());
    assert!(p.fusable(&[1, 2], &AFFINE).unwrap());
    assert!(p.fusable(&[0, 2], &AFFINE).unwrap());
    assert!(!p.fusable(&[0, 1, 2], &AFFINE).unwrap());
    check_witness(&p, &[0, 1], &AFFINE);
    check_witness(&p, &[1, 2], &AFFINE);
    let f1 = prune_outer(&p, &Options::default()).unwrap();
    let got: Vec<String> = structure_names(&f1);
    assert_eq!(got, ["{S0 S1} {S2}", "{S0} {S1 S2}", "{S0} {S1} {S2}"]);
    assert_eq!(f1.unfusable(), [vec![0, 1, 2]]);
    // With pure permutations as well: (R, S) needs S permuted, (S, T) needs it not.
    assert!(p.fusable(&[0, 1], &SELECTOR).unwrap());
    assert!(p.fusable(&[1, 2], &SELECTOR).unwrap());
    assert!(!p.fusable(&[0, 1, 2], &SELECTOR).unwrap());
}

#[test]
fn t18_lemma_6_is_not_a_joint_test_once_rows_skew() {
    let p = matvec_chain();
    // First-non-null selectors: (i, i) is in all three pairwise M-sets ...
    assert!(p
        .permutation_pairs(0, 1, &AFFINE)
        .unwrap()
        .contains(&(0, 0)));
    assert!(p
        .permutation_pairs(1, 2, &AFFINE)
        .unwrap()
        .contains(&(0, 0)));
    assert!(p
        .permutation_pairs(0, 2, &AFFINE)
        .unwrap()
        .contains(&(0, 0)));
    let compatible = p.compatible_selectors(&[0, 1, 2], &AFFINE).unwrap();
    assert!(compatible.contains(&vec![0, 0, 0]));
    // ... yet no joint fused row exists, and the pruning does not fuse the three.
    assert!(!p
        .fusable_selecting(&[0, 1, 2], &[0, 0, 0], &AFFINE)
        .unwrap());
    assert!(!p.fusable(&[0, 1, 2], &AFFINE).unwrap());
}

#[test]
fn t16_mu_lambda_decomposition() {
    // Θ = 2j + k + 2 over (i, j, k, N, 1).
    let row: Vec<Int> = [0, 2, 1, 0, 2].iter().map(|&c| Int::from(c)).collect();
    let d = decompose(&row, 3).unwrap();
    let ints = |v: &[i64]| v.iter().map(|&c| Int::from(c)).collect::<Vec<Int>>();
    assert_eq!(d.selected, 1);
    assert_eq!(d.mu, ints(&[0, 1, 0, 0, 0]));
    assert_eq!(d.lambda, ints(&[0, 1, 1, 0, 2]));
    assert!(decompose(&ints(&[0, 0, 0, 1, 2]), 3).is_none());
    assert!(decompose(&ints(&[1, -1, 0, 0, 0]), 3).is_none());
}

#[test]
fn t17_lexicographic_order() {
    assert!(lex_precedes(&[1, 2], &[1, 3]));
    assert!(lex_precedes(&[0, 5, 9], &[1, 0]));
    assert!(!lex_precedes(&[1, 3], &[1, 2]));
    assert!(!lex_precedes(&[1, 0], &[0, 5, 9]));
    assert!(!lex_precedes(&[1, 2], &[1, 2, 3]));
}

#[test]
fn t19_independent_identical_loops_fuse_aligned() {
    let p = problem(&program(
        &[],
        &["a", "b"],
        "for (i = 0; i < N; i++) a[i] = 1;\nfor (i = 0; i < N; i++) b[i] = 2;",
    ));
    assert!(p.fusable(&[0, 1], &AFFINE).unwrap());
    let rows = p.fusing_rows(&[0, 1], &AFFINE).unwrap().unwrap();
    assert_eq!(rows[0].constant, rows[1].constant);
    let f1 = prune_outer(&p, &Options::default()).unwrap();
    assert_eq!(f1.stats().unwrap().points, Int::from(3));
}

#[test]
fn a_shifted_dependence_fuses_only_with_a_shift() {
    // S1(i) reads a[i + 1], written by S0(i + 1): fusion needs c1 − c0 ≥ 1.
    let p = problem(&program(
        &[],
        &["a", "b"],
        "for (i = 0; i < N; i++) a[i] = 1;\nfor (i = 0; i < N - 1; i++) b[i] = a[i + 1];",
    ));
    assert!(!p.fusable(&[0, 1], &AFFINE).unwrap());
    let shifted = FusionOptions {
        max_shift: 1,
        rows: RowKind::Affine,
    };
    assert!(p.fusable(&[0, 1], &shifted).unwrap());
    check_witness(&p, &[0, 1], &shifted);
    let count = |fusion| {
        prune_outer(&p, &Options { fusion })
            .unwrap()
            .structures()
            .unwrap()
            .len()
    };
    assert_eq!(count(AFFINE), 1);
    assert_eq!(count(shifted), 2);
}

#[test]
fn a_dependence_cycle_forces_fusion() {
    let p = problem(&program(
        &[],
        &["a", "b", "c"],
        "for (i = 1; i < N; i++) {\n  a[i] = b[i - 1];\n  b[i] = a[i];\n}\nfor (i = 0; i < N; i++) c[i] = 0;",
    ));
    let f1 = prune_outer(&p, &Options::default()).unwrap();
    assert_eq!(f1.order(0, 1), pollen_search::PairOrder::Fused);
    let got: Vec<String> = structure_names(&f1);
    assert_eq!(got, ["{S0 S1 S2}", "{S0 S1} {S2}", "{S2} {S0 S1}"]);
}

#[test]
fn a_statement_outside_every_loop_is_fused_with_nothing() {
    let p = problem(&program(
        &[],
        &["a", "s"],
        "s[0] = 0;\nfor (i = 0; i < N; i++) a[i] = s[0];\nfor (i = 0; i < N; i++) a[i] = a[i] + 1;",
    ));
    let f1 = prune_outer(&p, &Options::default()).unwrap();
    assert_eq!(f1.isolated(), [0]);
    let got: Vec<String> = structure_names(&f1);
    assert_eq!(got, ["{S0} {S1 S2}", "{S0} {S1} {S2}"]);
}

#[test]
fn bad_groups_are_errors() {
    let p = matvec_chain();
    assert!(matches!(
        p.fusable(&[0, 3], &AFFINE),
        Err(pollen_search::Error::BadGroup(_))
    ));
    assert!(matches!(
        p.fusable(&[1, 1], &AFFINE),
        Err(pollen_search::Error::BadGroup(_))
    ));
    assert!(p.permutation_pairs(0, 7, &AFFINE).is_err());
    assert!(p.compatible_selectors(&[0, 9], &AFFINE).is_err());
    assert!(p.fusing_rows(&[5], &AFFINE).is_err());
}

#[test]
fn rows_follow_loops_that_run_downwards() {
    // Coefficients are non-negative on the loops normalised to run upwards (the paper's
    // §4.2 assumption): S0 overwrites w[0] at every iteration of a downward loop, and
    // its row is −i.
    let p = problem(&program(
        &[],
        &["x", "y", "w"],
        "for (i = N - 1; i >= 0; i--) {\n  w[0] = y[i];\n  x[i] = w[0];\n}",
    ));
    assert_eq!(p.orientation(), [vec![-1], vec![-1]]);
    let f1 = prune_outer(&p, &Options::default()).unwrap();
    assert_eq!(f1.order(0, 1), pollen_search::PairOrder::Fused);
    assert!(f1.isolated().is_empty());
    let got: Vec<String> = structure_names(&f1);
    assert_eq!(got, ["{S0 S1}"]);
    let rows = p.fusing_rows(&[0, 1], &AFFINE).unwrap().unwrap();
    assert_eq!(rows[0].iterators, [Int::from(-1)]);
    check_witness(&p, &[0, 1], &AFFINE);
}
