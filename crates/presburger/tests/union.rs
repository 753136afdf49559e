//! Union sets and union maps: operations space by space, checked against expected
//! results written in isl syntax and compared semantically.

use pollen_presburger::text::{parse_set, parse_union_map, parse_union_set};
use pollen_presburger::{UnionMap, UnionSet};

fn um(text: &str) -> UnionMap {
    parse_union_map(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn us(text: &str) -> UnionSet {
    parse_union_set(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn union_keeps_spaces_apart_and_merges_equal_ones() {
    let a = us("[N] -> { S[i] : 0 <= i < N; T[i, j] : 0 <= i, j < N }");
    let b = us("[N, M] -> { S[i] : N <= i < M; U[] }");
    let u = a.union(&b).unwrap();
    assert_eq!(u.as_union_map().n_maps(), 3);
    let expected = us("[N, M] -> { S[i] : 0 <= i < N or N <= i < M; \
                       T[i, j] : 0 <= i, j < N; U[] }");
    assert!(u.is_subset(&expected).unwrap() && expected.is_subset(&u).unwrap());
}

#[test]
fn apply_range_composes_matching_tuples_only() {
    let writes = um("[N] -> { S[i] -> A[i] : 0 <= i < N; T[i] -> B[i] : 0 <= i < N }");
    let reads = um("[N] -> { A[a] -> R[a + 1]; C[c] -> R[c] }");
    let composed = writes.apply_range(&reads).unwrap();
    let expected = um("[N] -> { S[i] -> R[i + 1] : 0 <= i < N }");
    assert!(composed.is_equal(&expected).unwrap());
}

#[test]
fn strict_subset_and_params() {
    let small = us("[N] -> { S[i] : 0 <= i < N }");
    let big = us("[N] -> { S[i] : 0 <= i <= N; T[] }");
    assert!(small.is_strict_subset(&big).unwrap());
    assert!(!big.is_strict_subset(&small).unwrap());
    assert!(!small.is_strict_subset(&small).unwrap());
    let params = small.params().unwrap();
    let expected = parse_set("[N] -> { : N >= 1 }").unwrap();
    assert!(params.is_equal(&expected).unwrap());
}

#[test]
fn lexmin_and_coalesce_per_space() {
    let u = us("[N] -> { S[i] : 0 <= i < N; T[i, j] : 0 <= j <= i < N }");
    let lexmin = u.lexmin().unwrap();
    let expected = us("[N] -> { S[0] : N >= 1; T[0, 0] : N >= 1 }");
    assert!(lexmin.is_subset(&expected).unwrap() && expected.is_subset(&lexmin).unwrap());
    let pieces = us("{ S[i] : 0 <= i <= 4; S[i] : 5 <= i <= 9; T[j] : j = 1 }");
    let merged = pieces.coalesce().unwrap();
    let s = merged.sets().next().unwrap();
    assert_eq!(s.basic_sets().count(), 1, "{merged}");
    assert!(merged.is_subset(&pieces).unwrap() && pieces.is_subset(&merged).unwrap());
}

#[test]
fn reverse_domain_range_and_deltas() {
    let m = um("{ S[i] -> S[i + 2] : 0 <= i < 10; T[i] -> U[i, i] : 0 <= i < 3 }");
    let dom = m.domain();
    assert!(dom
        .is_subset(&us("{ S[i] : 0 <= i < 10; T[i] : 0 <= i < 3 }"))
        .unwrap());
    let ran = m.reverse().domain();
    assert!(ran
        .is_subset(&us("{ S[i] : 2 <= i < 12; U[i, i] : 0 <= i < 3 }"))
        .unwrap());
    let deltas = m.deltas().unwrap();
    assert!(deltas.is_subset(&us("{ S[2] }")).unwrap());
    assert!(us("{ S[2] }").is_subset(&deltas).unwrap());
}

#[test]
fn shared_parts_are_contained_and_the_others_still_tested() {
    let s = |t: &str| parse_set(t).unwrap_or_else(|e| panic!("{t}: {e}"));
    let a = s("[N] -> { [i, j] : 0 <= i < N and 0 <= j < i; [i, j] : i = N and 0 <= j < 3 }");
    let b = s("[N] -> { [i, j] : 0 <= i < N and 0 <= j < i; [i, j] : i = N and 0 <= j < 2 }");
    // The first parts are the same; the second of `a` is not in `b` (j = 2).
    assert!(!a.is_subset(&b).unwrap());
    assert!(b.is_subset(&a).unwrap());
    assert!(!a.is_equal(&b).unwrap());
    assert!(a.is_equal(&a.clone()).unwrap());
    let c = s("[N] -> { [i, j] : i = N and 0 <= j < 3; [i, j] : 0 <= i < N and 0 <= j < i }");
    assert!(a.is_equal(&c).unwrap());
}
