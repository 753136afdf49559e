//! Transitive closures and powers (`Map::transitive_closure`, `Map::power`): table
//! tests from Verdoolaege, Cohen and Beletska (SAS 2011) and the Omega library's classic
//! cases, an iterated-composition oracle on bounded maps, and soundness properties on
//! random maps (the closure always contains `A` and is closed under one more step; the
//! exactness flag is only set when the closure equals the fixpoint of `A ∪ R ; A`).

use pollen_presburger::oracle::{gen_map_spec, op_budget, seeded_quickcheck, Entropy, GenConfig};
use pollen_presburger::text::parse_map;
use pollen_presburger::{Budget, DimKind, Error, Int, Map, Space, Tuple};
use quickcheck::{Arbitrary, Gen, TestResult};

fn map(text: &str) -> Map {
    parse_map(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `A ∪ A² ∪ ...` up to its fixpoint, for maps whose closure is finite (by repeated
/// squaring: `R ← R ∪ R ; R`).
fn iterated(a: &Map) -> Map {
    let mut acc = a.clone();
    for _ in 0..64 {
        let next = acc.union(&acc.apply_range(&acc).unwrap()).unwrap();
        if next.is_subset(&acc).unwrap() {
            return acc;
        }
        acc = next.coalesce().unwrap();
    }
    panic!("no fixpoint after 64 compositions of {a}");
}

/// The closure of `input` is `expected`, with the given exactness.
fn check(input: &str, expected: &str, exact: bool) {
    let (closure, is_exact) = map(input).transitive_closure().unwrap();
    assert!(
        closure.is_equal(&map(expected)).unwrap(),
        "closure of {input}: got {closure}, expected {expected}"
    );
    assert_eq!(is_exact, exact, "exactness of the closure of {input}");
}

/// The closure of a bounded `input` against the iterated composition: equal when the
/// result claims exactness, a superset otherwise. Returns the flag.
fn check_bounded(input: &str) -> bool {
    let a = map(input);
    let (closure, exact) = a.transitive_closure().unwrap();
    let fixpoint = iterated(&a);
    assert!(
        fixpoint.is_subset(&closure).unwrap(),
        "closure of {input} misses paths: {closure} vs {fixpoint}"
    );
    if exact {
        assert!(
            closure.is_subset(&fixpoint).unwrap(),
            "closure of {input} claimed exact: {closure} vs {fixpoint}"
        );
    }
    exact
}

#[test]
fn unit_translation_on_a_parametric_interval() {
    check(
        "[N] -> { [i] -> [i + 1] : 0 <= i < N }",
        "[N] -> { [i] -> [j] : 0 <= i < j <= N }",
        true,
    );
}

#[test]
fn two_translations_on_a_box() {
    check(
        "[N] -> { [i, j] -> [i + 1, j] : 0 <= i < N and 0 <= j <= N; \
                  [i, j] -> [i, j + 1] : 0 <= i <= N and 0 <= j < N }",
        "[N] -> { [i, j] -> [a, b] : 0 <= i <= a <= N and 0 <= j <= b <= N and a + b > i + j }",
        true,
    );
    assert!(check_bounded(
        "{ [i, j] -> [i + 1, j] : 0 <= i < 4 and 0 <= j <= 4; \
           [i, j] -> [i, j + 1] : 0 <= i <= 4 and 0 <= j < 4 }"
    ));
}

#[test]
fn strided_translation_is_exact_with_an_existential() {
    check(
        "{ [i] -> [i + 2] }",
        "{ [i] -> [j] : exists e : j = i + 2e and e >= 1 }",
        true,
    );
    assert!(check_bounded("{ [i] -> [i + 2] : 0 <= i <= 9 }"));
}

#[test]
fn bounded_translations_match_iterated_composition() {
    assert!(check_bounded("{ [i] -> [i + 1] : 0 <= i < 10 }"));
    // Paths such as 8 -> 11 -> 14 leave the domain; the two translations form two
    // components (a step of 5 then one of 3 can always be swapped), each exact.
    assert!(check_bounded(
        "{ [i] -> [i + 3] : 0 <= i < 10; [i] -> [i + 5] : 0 <= i < 10 }"
    ));
    assert!(check_bounded("{ [0] -> [1]; [1] -> [0] }"));
    assert!(check_bounded(
        "{ S[i, j] -> S[i + 1, j - 1] : 0 <= i, j <= 5 }"
    ));
}

#[test]
fn a_cycle_of_two_points() {
    check(
        "{ [0] -> [1]; [1] -> [0] }",
        "{ [i] -> [j] : 0 <= i <= 1 and 0 <= j <= 1 }",
        true,
    );
}

#[test]
fn parametric_translation_is_over_approximated() {
    let text = "[M] -> { [i] -> [i + M] : M > 0 and 0 <= i < 100 }";
    let a = map(text);
    let (closure, _) = a.transitive_closure().unwrap();
    for m in [13, 40, 99, 100] {
        let fixed = map(&format!("[M] -> {{ [i] -> [j] : M = {m} }}"));
        let am = a.intersect(&fixed).unwrap();
        let paths = iterated(&am);
        assert!(
            paths.is_subset(&closure).unwrap(),
            "M = {m}: {closure} misses {paths}"
        );
    }
    // The distance is at least M and every point stays in the domain and range.
    let bound =
        map("[M] -> { [i] -> [j] : M > 0 and 0 <= i < 100 and j >= i + M and j < 100 + M }");
    assert!(closure.is_subset(&bound).unwrap(), "{closure}");
}

#[test]
fn non_translations_are_over_approximated_soundly() {
    let exact = check_bounded("{ [i] -> [2i] : 1 <= i <= 20 }");
    assert!(!exact);
    check_bounded("{ [i, j] -> [j, i] : 0 <= i < j <= 3 }");
    check_bounded("{ [i] -> [j] : 0 <= i < j <= 6 and j <= i + 2 }");
    // Domains with floor divisions: intermediate points may leave them.
    assert!(!check_bounded(
        "{ [i] -> [i + 1] : i mod 3 <= 1 and 0 <= i < 12 }"
    ));
    check_bounded("{ [i] -> [i + 2] : i mod 4 = 0 and 0 <= i < 12; [i] -> [i + 2] : i = 2 }");
}

/// The closure of `input` contains `exact_closure` (the true `A^+`) and equals it when
/// it claims exactness. Returns the flag.
fn check_contains(input: &str, exact_closure: &str) -> bool {
    let (closure, exact) = map(input).transitive_closure().unwrap();
    let truth = map(exact_closure);
    assert!(
        truth.is_subset(&closure).unwrap(),
        "closure of {input} misses paths: {closure} vs {truth}"
    );
    if exact {
        assert!(
            closure.is_subset(&truth).unwrap(),
            "closure of {input} claimed exact: {closure} vs {truth}"
        );
    }
    exact
}

/// Beletska, Barthou, Bielecki and Cohen, "Computing the transitive closure of a union of
/// affine integer tuple relations" (COCOA 2009): examples 1 and 2 and figures 1 and 2,
/// with the closures the paper gives.
#[test]
fn cocoa_examples() {
    assert!(check_contains(
        "[n] -> { [i, j] -> [i + 1, j + 1] : 1 <= i < n and 1 <= j < n; \
                  [i, j] -> [i + 1, j - 1] : 1 <= i < n and 2 <= j <= n }",
        "[n] -> { [i, j] -> [a, b] : exists (k1, k2 : 1 <= i < n and 1 <= j <= n and \
                  2 <= a <= n and 1 <= b <= n and a = i + k1 + k2 and b = j + k1 - k2 and \
                  k1 >= 0 and k2 >= 0 and k1 + k2 >= 1) }",
    ));
    assert!(check_contains(
        "[n] -> { [i, j] -> [i + 2, j + 2] : 1 <= i < n - 1 and 1 <= j < n - 1; \
                  [i, j] -> [i + 2, j - 2] : 1 <= i < n - 1 and 3 <= j <= n }",
        "[n] -> { [i, j] -> [a, b] : exists (k1, k2 : 1 <= i < n - 1 and 1 <= j <= n and \
                  3 <= a <= n and 1 <= b <= n and a = i + 2k1 + 2k2 and \
                  b = j + 2k1 - 2k2 and k1 >= 0 and k2 >= 0 and k1 + k2 >= 1) }",
    ));
    // Figure 2, right: three translations on a cone.
    check_contains(
        "[n] -> { [i, j] -> [i + 3, j] : i <= 2j - 4 and i <= n - 3 and j <= 2i - 1 and j <= n; \
                  [i, j] -> [i, j + 3] : i <= 2j - 1 and i <= n and j <= 2i - 4 and j <= n - 3; \
                  [i, j] -> [i + 1, j + 1] : i <= 2j - 1 and i <= n - 1 and j <= 2i - 1 and \
                  j <= n - 1 }",
        "[n] -> { [i, j] -> [a, b] : exists (k1, k2, k3 : i <= 2j - 1 and i <= n and \
                  j <= 2i - 1 and j <= n and 3 + i + 2j <= 3n and 3 + 2i + j <= 3n and \
                  a <= 2b - 1 and a <= n and a <= 3b - 4 and b <= 2a - 1 and b <= n and \
                  13 + 4b <= 11a and a = i + 3k1 + k3 and b = j + 3k2 + k3 and k1 >= 0 and \
                  k2 >= 0 and k3 >= 0 and k1 + k2 + k3 >= 1) }",
    );
    // Figure 1, right: unit steps right and up in a thin polygon, a finite graph.
    check_contains(
        "{ [x, y] -> [x + 1, y] : 0 <= x <= 2 and 2x + 2 <= 3y <= 2x + 3; \
           [x, y] -> [x, y + 1] : 0 <= x <= 3 and 3y = 2x }",
        "{ [0, 0] -> [0, 1]; [0, 0] -> [1, 1]; [0, 1] -> [1, 1]; [2, 2] -> [3, 2]; \
           [2, 2] -> [3, 3]; [3, 2] -> [3, 3] }",
    );
}

/// Kelly, Pugh, Rosser and Shpeisman, "Transitive closure of infinite graphs and its
/// applications" (1996), figure 12: a row-major walk through an `n x n` square. The two
/// disjuncts form one component and one group; the closure is built around the step
/// along a row (its reflexive closure on the square composed on both sides of the step
/// to the next row gives a single disjunct). isl's answer.
#[test]
fn omega_row_major_walk() {
    check(
        "[n] -> { [i, j] -> [i, j + 1] : 1 <= i <= n and 1 <= j < n; \
                  [i, j] -> [i + 1, 1] : j = n and 1 <= i < n }",
        "[n] -> { [i, j] -> [o0, o1] : i > 0 and 0 < j <= n and i < o0 <= n and \
                  0 < o1 <= n; [i, j] -> [i, o1] : 0 < i <= n and j > 0 and j < o1 <= n }",
        true,
    );
    assert!(check_bounded(
        "{ [i, j] -> [i, j + 1] : 1 <= i <= 4 and 1 <= j < 4; \
           [i, j] -> [i + 1, 1] : j = 4 and 1 <= i < 4 }"
    ));
}

/// Omega's closure4: a step up can always be swapped with a following step right, so
/// the steps up come first (two components). isl's answer.
#[test]
fn omega_closure4() {
    let input = "{ [x, y] -> [x, y + 1] : 1 <= x <= 10 and 1 <= y <= 10; \
                   [x, y] -> [x + 1, y] : 1 <= x <= 20 and 5 <= y <= 15 }";
    check(
        input,
        "{ [x, y] -> [o0, o1] : 0 < x <= 10 and y > 0 and x < o0 <= 21 and o1 > y and \
           5 <= o1 <= 11; [x, y] -> [x, o1] : 0 < x <= 10 and y > 0 and y < o1 <= 11; \
           [x, y] -> [o0, y] : x > 0 and 5 <= y <= 15 and x < o0 <= 21 }",
        true,
    );
    assert!(check_bounded(input));
}

/// Two translations on a bounded interval: the steps of 5 come after those of 3
/// (components), each closure exact. isl's answer.
#[test]
fn components_of_two_translations() {
    check(
        "{ [i] -> [i + 3] : 0 <= i < 10; [i] -> [i + 5] : 0 <= i < 10 }",
        "{ [i] -> [o0] : i >= 0 and o0 <= 14 and (((-i + o0) mod 3 = 0 and \
           3 + i <= o0 <= 12) or (3*floor((5 - 5i + 6o0)/15) > -i + o0 and \
           5*floor((5 - 5i + 6o0)/15) < -2i + 2o0) or ((-i + o0) mod 5 = 0 and \
           o0 >= 5 + i)) }",
        true,
    );
}

/// Domains and ranges in two groups (`i ≡ 0 mod 4` with 4, and `i ≡ 2 mod 4`): Floyd–
/// Warshall over the groups. isl's answer.
#[test]
fn groups_of_points() {
    let input = "{ [i] -> [i + 2] : i mod 4 = 0 and 0 <= i < 12; [i] -> [i + 2] : i = 2 }";
    check(
        input,
        "{ [i] -> [2 + i] : (i) mod 4 = 0 and 0 <= i <= 8; [i = 2] -> [6]; \
           [i = 0] -> [6]; [i = 2] -> [4]; [i = 0] -> [4] }",
        true,
    );
    assert!(check_bounded(input));
}

/// Two diagonal translations on a parametric box: one component, the closure built
/// around one of them. isl's answer.
#[test]
fn diagonal_translations_around_one_disjunct() {
    check(
        "[N] -> { [i, j] -> [i + 1, j - 1] : 2 <= i <= N and 0 <= j <= N; \
                  [i, j] -> [i + 1, j + 1] : 2 <= i <= N and 2 <= j <= N }",
        "[N] -> { [i, j] -> [o0, o1] : (i + j + o0 + o1) mod 2 = 0 and i >= 2 and \
                  2 <= j <= N and o0 <= 1 + N and o1 >= 2 + i + j - o0 and \
                  -1 <= o1 <= -i + j + o0 and o1 <= 1 + N and (o1 >= 3 or \
                  (o1 <= -2 - i + j + o0 and o1 < N)); [i, j] -> [o0, i + j - o0] : \
                  i >= 2 and j <= N and i < o0 <= 1 + i + j and o0 <= 1 + N }",
        true,
    );
}

/// Memory-based self-dependences of PolyBench kernels (as `cargo xtask closure` computes
/// them): a lexicographic order on the instances writing one location, transitively
/// closed, so `A^+ = A`. The closures are isl's answers.
#[test]
fn transitively_closed_kernel_dependences() {
    // durbin, S5 (sum).
    check(
        "[N] -> { S5[k, i] -> S5[o0, o1] : 1 <= k < N and 0 <= i < k and 1 <= o0 < N and \
                  o0 > k and 0 <= o1 < o0; S5[k, i] -> S5[o0 = k, o1] : 1 <= k < N and \
                  0 <= i < k and 0 <= o1 < k and o1 > i }",
        "[N] -> { S5[k, i] -> S5[o0, o1] : 0 <= i < k and k < o0 < N and 0 <= o1 < o0; \
                  S5[k, i] -> S5[o0 = k, o1] : k < N and i >= 0 and i < o1 < k }",
        true,
    );
    // gramschmidt, S1 (nrm).
    check(
        "[N, M] -> { S1[k, i] -> S1[o0, o1] : 0 <= k < N and 0 <= i < M and 0 <= o0 < N \
                     and o0 > k and 0 <= o1 < M; S1[k, i] -> S1[o0 = k, o1] : 0 <= k < N \
                     and 0 <= i < M and 0 <= o1 < M and o1 > i }",
        "[N, M] -> { S1[k, i] -> S1[o0, o1] : k >= 0 and 0 <= i < M and k < o0 < N and \
                     0 <= o1 < M; S1[k, i] -> S1[o0 = k, o1] : 0 <= k < N and i >= 0 and \
                     i < o1 < M }",
        true,
    );
    // ludcmp, S7 (w).
    check(
        "[N] -> { S7[i, j] -> S7[o0, o1] : 0 <= i < N and 0 <= j < i and 0 <= o0 < N and \
                  o0 > i and 0 <= o1 < o0; S7[i, j] -> S7[o0 = i, o1] : 0 <= i < N and \
                  0 <= j < i and 0 <= o1 < i and o1 > j }",
        "[N] -> { S7[i, j] -> S7[o0, o1] : 0 <= j < i and i < o0 < N and 0 <= o1 < o0; \
                  S7[i, j] -> S7[o0 = i, o1] : i < N and j >= 0 and j < o1 < i }",
        true,
    );
    // symm, S2 (temp2).
    check(
        "[M, N] -> { S2[i, j, k] -> S2[o0, o1, o2] : 0 <= i < M and 0 <= j < N and \
                     0 <= k < i and 0 <= o0 < M and o0 > i and 0 <= o1 < N and 0 <= o2 < o0; \
                     S2[i, j, k] -> S2[o0 = i, o1, o2] : 0 <= i < M and 0 <= j < N and \
                     0 <= k < i and 0 <= o1 < N and o1 > j and 0 <= o2 < i; \
                     S2[i, j, k] -> S2[o0 = i, o1 = j, o2] : 0 <= i < M and 0 <= j < N and \
                     0 <= k < i and 0 <= o2 < i and o2 > k }",
        "[M, N] -> { S2[i, j, k] -> S2[o0, o1, o2] : 0 <= j < N and 0 <= k < i and \
                     i < o0 < M and 0 <= o1 < N and 0 <= o2 < o0; \
                     S2[i, j, k] -> S2[o0 = i, o1, o2] : i < M and j >= 0 and 0 <= k < i and \
                     j < o1 < N and 0 <= o2 < i; S2[i, j, k] -> S2[o0 = i, o1 = j, o2] : \
                     i < M and 0 <= j < N and k >= 0 and k < o2 < i }",
        true,
    );
    // doitgen, S1 (sum).
    check(
        "[R, Q, P] -> { S1[r, q, p, s] -> S1[o0, o1, p, o3] : 0 <= r < R and 0 <= q < Q and \
                        0 <= p < P and 0 <= s < P and 0 <= o0 < R and o0 > r and \
                        0 <= o1 < Q and 0 <= o3 < P; \
                        S1[r, q, p, s] -> S1[o0 = r, o1, p, o3] : 0 <= r < R and 0 <= q < Q \
                        and 0 <= p < P and 0 <= s < P and 0 <= o1 < Q and o1 > q and \
                        0 <= o3 < P; S1[r, q, p, s] -> S1[o0 = r, o1 = q, p, o3] : \
                        0 <= r < R and 0 <= q < Q and 0 <= p < P and 0 <= s < P and \
                        0 <= o3 < P and o3 > s }",
        "[R, Q, P] -> { S1[r, q, p, s] -> S1[o0, o1, p, o3] : r >= 0 and 0 <= q < Q and \
                        0 <= p < P and 0 <= s < P and r < o0 < R and 0 <= o1 < Q and \
                        0 <= o3 < P; S1[r, q, p, s] -> S1[o0 = r, o1, p, o3] : 0 <= r < R \
                        and q >= 0 and 0 <= p < P and 0 <= s < P and q < o1 < Q and \
                        0 <= o3 < P; S1[r, q, p, s] -> S1[o0 = r, o1 = q, p, o3] : \
                        0 <= r < R and 0 <= q < Q and 0 <= p < P and s >= 0 and s < o3 < P }",
        true,
    );
}

#[test]
fn easy_cases_are_the_map_itself() {
    check("{ [i] -> [i + 1] : i = 0 }", "{ [0] -> [1] }", true);
    check("{ [i] -> [j] : 1 = 0 }", "{ [i] -> [j] : 1 = 0 }", true);
    check(
        "{ [i] -> [j] : 0 <= i < 5 and 10 <= j < 15 }",
        "{ [i] -> [j] : 0 <= i < 5 and 10 <= j < 15 }",
        true,
    );
}

#[test]
fn incompatible_spaces_are_errors() {
    for text in ["{ A[i] -> B[i] }", "{ [i] -> [i, j] }", "{ [i] }"] {
        match map(text).transitive_closure() {
            Err(Error::SpaceMismatch { .. }) => {}
            other => panic!("{text}: expected a space mismatch, got {other:?}"),
        }
        assert!(matches!(
            map(text).power(),
            Err(Error::SpaceMismatch { .. })
        ));
    }
}

#[test]
fn reflexive_closure_adds_the_identity_on_domain_and_range() {
    let (star, exact) = map("{ [i] -> [i + 1] : 0 <= i < 3 }")
        .reflexive_transitive_closure()
        .unwrap();
    assert!(exact);
    assert!(star
        .is_equal(&map("{ [i] -> [j] : 0 <= i <= j <= 3 }"))
        .unwrap());
}

#[test]
fn power_has_the_exponent_in_its_domain() {
    let (power, exact) = map("[N] -> { [i] -> [i + 1] : 0 <= i < N }")
        .power()
        .unwrap();
    assert!(exact);
    let expected =
        map("[N] -> { [k] -> [[i] -> [j]] : k >= 1 and j = i + k and 0 <= i and j <= N }");
    assert!(power.is_equal(&expected).unwrap(), "{power}");
    let (power, exact) = map("{ [i] -> [i + 1] : i = 0 }").power().unwrap();
    assert!(exact);
    assert!(
        power.is_equal(&map("{ [1] -> [[0] -> [1]] }")).unwrap(),
        "{power}"
    );
}

/// The `k`-th power read off a parametric power `{ [k] -> [x -> y] }`.
fn power_at(power: &Map, k: i64) -> Map {
    power
        .fix_val(DimKind::In, 0, &Int::from(k))
        .unwrap()
        .range()
        .unwrap()
        .expect("the range of a power is a wrapped map")
}

#[test]
fn exact_powers_are_iterated_compositions() {
    for text in [
        "{ [i] -> [i + 3] : 0 <= i < 10; [i] -> [i + 5] : 0 <= i < 10 }",
        "{ [i, j] -> [i + 1, j] : 0 <= i < 4 and 0 <= j <= 4; \
           [i, j] -> [i, j + 1] : 0 <= i <= 4 and 0 <= j < 4 }",
        "{ [0] -> [1]; [1] -> [0] }",
    ] {
        let a = map(text);
        let (power, exact) = a.power().unwrap();
        let mut ak = a.clone();
        for k in 1..=4 {
            let pk = power_at(&power, k);
            assert!(ak.is_subset(&pk).unwrap(), "{text}: A^{k} not in {pk}");
            if exact {
                assert!(pk.is_subset(&ak).unwrap(), "{text}: {pk} is not A^{k}");
            }
            ak = ak.apply_range(&a).unwrap();
        }
    }
}

/// Powers through strongly connected components: the steps of 5 after those of 3, and
/// Omega's closure4 (steps up before steps right); the lengths add up along the way.
#[test]
fn powers_by_components_are_exact() {
    for text in [
        "{ [i] -> [i + 3] : 0 <= i < 10; [i] -> [i + 5] : 0 <= i < 10 }",
        "{ [x, y] -> [x, y + 1] : 1 <= x <= 4 and 1 <= y <= 4; \
           [x, y] -> [x + 1, y] : 1 <= x <= 6 and 2 <= y <= 5 }",
    ] {
        let a = map(text);
        let (power, exact) = a.power().unwrap();
        assert!(exact, "{text}: {power}");
        let mut ak = a.clone();
        for k in 1..=5 {
            let pk = power_at(&power, k);
            assert!(
                ak.is_equal(&pk).unwrap(),
                "{text}: {pk} is not A^{k} = {ak}"
            );
            ak = ak.apply_range(&a).unwrap();
        }
    }
}

#[test]
fn budgets_are_honoured() {
    let a = map("{ [i, j] -> [i + 1, j] : 0 <= i < 9 and 0 <= j <= 9; [i, j] -> [i, j + 1] : 0 <= i <= 9 and 0 <= j < 9 }");
    let mut budget = Budget::new(5);
    assert_eq!(
        a.transitive_closure_with(&mut budget).unwrap_err(),
        Error::LimitExceeded
    );
}

// ----- properties -----

/// A random map from a space to itself: unions of translations on small boxes (the
/// method's exact case) or general random maps with parameters and locals.
#[derive(Clone, Debug)]
struct Endo(Map);

impl Arbitrary for Endo {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = 1 + g.below(2) as usize;
        if g.chance(1, 2) {
            return Endo(translations(g, n));
        }
        let n_params = g.below(2) as usize;
        let params: Vec<String> = (0..n_params).map(|i| format!("p{i}")).collect();
        let tuple = Tuple::anonymous(n);
        let space = Space::map(params, tuple.clone(), tuple);
        let cfg = GenConfig {
            max_parts: 2,
            locals: true,
        };
        Endo(gen_map_spec(g, &space, &cfg).to_map())
    }
}

/// A union of one to three translations `x -> x + d`, each on a box inside `[-3, 3]^n`.
fn translations(g: &mut Gen, n: usize) -> Map {
    translations_between(g, n, 1, 3)
}

/// A union of `min` to `max` translations `x -> x + d`, each on a box inside
/// `[-3, 3]^n`.
fn translations_between(g: &mut Gen, n: usize, min: u64, max: u64) -> Map {
    let mut text = String::from("{ ");
    let names: Vec<String> = (0..n).map(|j| format!("x{j}")).collect();
    for p in 0..min + g.below(max - min + 1) {
        if p > 0 {
            text.push_str("; ");
        }
        let image: Vec<String> = names
            .iter()
            .map(|x| format!("{x} + {}", g.range(-2, 2)))
            .collect();
        let bounds: Vec<String> = names
            .iter()
            .map(|x| {
                let lo = g.range(-3, 3);
                format!("{lo} <= {x} <= {}", g.range(lo, 3))
            })
            .collect();
        text.push_str(&format!(
            "[{}] -> [{}] : {}",
            names.join(", "),
            image.join(", "),
            bounds.join(" and ")
        ));
    }
    text.push_str(" }");
    map(&text)
}

/// Runs `prop` on `cases` random maps; fails unless at least half of them are decided.
fn check_property(cases: u64, prop: fn(Endo) -> TestResult) {
    seeded_quickcheck(100)
        .tests(cases)
        .max_tests(cases * 4)
        .min_tests_passed(cases / 2)
        .quickcheck(prop);
}

/// The budget of the costlier of the two unfoldings checked by `exactness_flag_is_honest`.
const SMALL_BUDGET: u64 = 100_000;

/// The closure within the oracle's budget; `None` when that runs out.
fn closure_of(a: &Map) -> Option<(Map, bool)> {
    match a.transitive_closure_with(&mut op_budget()) {
        Ok(r) => Some(r),
        Err(Error::LimitExceeded) => None,
        Err(e) => panic!("closure of {a}: {e}"),
    }
}

#[test]
fn closure_contains_the_map_and_one_more_step() {
    fn prop(Endo(a): Endo) -> TestResult {
        let Some((closure, _)) = closure_of(&a) else {
            return TestResult::discard();
        };
        let mut budget = op_budget();
        let longer = closure.apply_range(&a).unwrap();
        let verdict = a
            .is_subset_with(&closure, &mut budget)
            .and_then(|x| Ok(x && longer.is_subset_with(&closure, &mut budget)?));
        match verdict {
            Ok(true) => TestResult::passed(),
            Ok(false) => TestResult::error(format!("{a}: closure {closure}")),
            Err(_) => TestResult::discard(),
        }
    }
    check_property(30, prop);
}

#[test]
fn exactness_flag_is_honest() {
    fn prop(Endo(a): Endo) -> TestResult {
        let Some((closure, exact)) = closure_of(&a) else {
            return TestResult::discard();
        };
        if !exact {
            return TestResult::passed();
        }
        // A^+ = A ∪ (A^+ ; A), within the oracle's budget.
        let last = a.union(&closure.apply_range(&a).unwrap()).unwrap();
        match closure.is_equal_with(&last, &mut op_budget()) {
            Ok(true) => {}
            Ok(false) => {
                return TestResult::error(format!("{a}: closure {closure} is not A ∪ A^+ ; A"))
            }
            Err(_) => return TestResult::discard(),
        }
        // A^+ = A ∪ (A ; A^+) too; its subtraction can be much costlier, so within a
        // smaller budget, where running out proves nothing either way.
        let first = a.union(&a.apply_range(&closure).unwrap()).unwrap();
        match closure.is_equal_with(&first, &mut Budget::new(SMALL_BUDGET)) {
            Ok(false) => TestResult::error(format!("{a}: closure {closure} is not A ∪ A ; A^+")),
            _ => TestResult::passed(),
        }
    }
    check_property(30, prop);
}

/// The closure of `a` against the iterated composition (which must reach its fixpoint):
/// a superset, equal when claimed exact. A closure over budget is discarded.
fn against_iterated(a: &Map) -> TestResult {
    let Some((closure, exact)) = closure_of(a) else {
        return TestResult::discard();
    };
    let fixpoint = iterated(a);
    if !fixpoint.is_subset(&closure).unwrap() {
        return TestResult::error(format!("{a}: {closure} misses {fixpoint}"));
    }
    if exact && !closure.is_subset(&fixpoint).unwrap() {
        return TestResult::error(format!("{a}: {closure} claimed exact, {fixpoint}"));
    }
    TestResult::passed()
}

/// Unions of two to four translations: the decompositions (components, groups, one
/// disjunct at a time) are sound and their exactness claims hold.
#[test]
fn decomposed_closures_against_iterated_composition() {
    fn prop(seed: u64) -> TestResult {
        let mut g = Gen::from_size_and_seed(10, seed);
        let n = 1 + g.below(2) as usize;
        against_iterated(&translations_between(&mut g, n, 2, 4))
    }
    seeded_quickcheck(100)
        .tests(30)
        .max_tests(120)
        .min_tests_passed(15)
        .quickcheck(prop as fn(u64) -> TestResult);
}

/// Unions of one to four translations: every power `P(k)` contains `A^k` and equals it
/// when the power claims exactness.
#[test]
fn powers_against_iterated_composition() {
    fn prop(seed: u64) -> TestResult {
        let mut g = Gen::from_size_and_seed(10, seed);
        let n = 1 + g.below(2) as usize;
        let a = translations_between(&mut g, n, 1, 4);
        let (power, exact) = match a.power_with(&mut op_budget()) {
            Ok(r) => r,
            Err(Error::LimitExceeded) => return TestResult::discard(),
            Err(e) => return TestResult::error(format!("power of {a}: {e}")),
        };
        let mut ak = a.clone();
        for k in 1..=4 {
            let pk = power_at(&power, k);
            if !ak.is_subset(&pk).unwrap() {
                return TestResult::error(format!("{a}: A^{k} = {ak} not in {pk}"));
            }
            if exact && !pk.is_subset(&ak).unwrap() {
                return TestResult::error(format!("{a}: {pk} claimed A^{k} = {ak}"));
            }
            ak = ak.apply_range(&a).unwrap();
        }
        TestResult::passed()
    }
    seeded_quickcheck(100)
        .tests(30)
        .max_tests(120)
        .min_tests_passed(15)
        .quickcheck(prop as fn(u64) -> TestResult);
}

#[test]
fn bounded_translations_against_iterated_composition() {
    fn prop(seed: u64) -> TestResult {
        let mut g = Gen::from_size_and_seed(10, seed);
        let n = 1 + g.below(2) as usize;
        against_iterated(&translations(&mut g, n))
    }
    seeded_quickcheck(100)
        .tests(40)
        .max_tests(160)
        .min_tests_passed(20)
        .quickcheck(prop as fn(u64) -> TestResult);
}
