//! Table tests with known answers for the classic hard cases of integer sets: existentials
//! that are not convex over the integers, sets that are empty over the integers but not
//! over the rationals, thin and unbounded polyhedra for sampling, coefficients beyond
//! `i64`, and the enumeration API (order, deduplication, errors, budgets).
//!
//! Sets are built from constraint rows (`[const | dims | existentials]`, `row = 0` or
//! `row ≥ 0`) so that these tests do not depend on the parser.

use pollen_presburger::oracle::points_in_box;
use pollen_presburger::{BasicMap, Budget, Error, Int, Map, Set, Space};

/// A row of big integers from machine integers.
fn row(v: &[i64]) -> Vec<Int> {
    v.iter().map(|&x| Int::from(x)).collect()
}

/// `2^k`.
fn pow2(k: u32) -> Int {
    Int::from(2).pow(k)
}

/// The set `{ [x0..] : exists e0..: eqs = 0 and ineqs >= 0 }` without parameters.
fn set_big(n_dims: usize, n_exists: usize, eqs: Vec<Vec<Int>>, ineqs: Vec<Vec<Int>>) -> Set {
    let b = BasicMap::from_parts(
        Space::set_anonymous(n_dims),
        vec![None; n_exists],
        eqs,
        ineqs,
    )
    .expect("well-formed rows");
    Set::from_map(Map::from_basic(b)).expect("a set")
}

fn set(n_dims: usize, n_exists: usize, eqs: &[&[i64]], ineqs: &[&[i64]]) -> Set {
    set_big(
        n_dims,
        n_exists,
        eqs.iter().map(|r| row(r)).collect(),
        ineqs.iter().map(|r| row(r)).collect(),
    )
}

fn points(s: &Set) -> Vec<Vec<Int>> {
    s.points().expect("a bounded set without parameters")
}

fn small_points(s: &Set) -> Vec<Vec<i64>> {
    points(s)
        .into_iter()
        .map(|p| p.iter().map(|x| x.to_i64().expect("small")).collect())
        .collect()
}

/// Whether the sample of `s` (if any) satisfies `check`; `None` when there is no sample.
fn sample(s: &Set) -> Option<Vec<Int>> {
    s.sample().expect("sampling succeeds")
}

fn eval(r: &[Int], p: &[Int]) -> Int {
    let mut v = r[0].clone();
    for (c, x) in r[1..].iter().zip(p) {
        v += c * x;
    }
    v
}

// ----- existentials that are not convex over the integers -----

/// `{ [i] : exists e: i = 3e and 0 <= i <= 10 }`.
fn multiples_of_three(hi: i64) -> Set {
    set(1, 1, &[&[0, 1, -3]], &[&[0, 1, 0], &[hi, -1, 0]])
}

#[test]
fn multiples_of_three_bounded() {
    let s = multiples_of_three(10);
    assert_eq!(small_points(&s), vec![vec![0], vec![3], vec![6], vec![9]]);
    assert_eq!(s.card().unwrap(), Int::from(4));
    assert!(!s.is_empty().unwrap());
    assert!(s.contains_point(&row(&[3])).unwrap());
    assert!(!s.contains_point(&row(&[4])).unwrap());
    let p = sample(&s).expect("non-empty");
    assert!(p[0].mod_floor(&Int::from(3)).is_zero());
    // The brute-force oracle agrees.
    let bf = points_in_box(s.as_map(), &[], -2, 12);
    assert_eq!(bf.into_iter().collect::<Vec<_>>(), small_points(&s));
}

#[test]
fn multiples_of_three_unbounded() {
    let s = set(1, 1, &[&[0, 1, -3]], &[]);
    assert_eq!(
        s.points().unwrap_err(),
        Error::Unsupported("unbounded".into())
    );
    assert_eq!(
        s.card().unwrap_err(),
        Error::Unsupported("unbounded".into())
    );
    assert!(!s.is_empty().unwrap());
    let p = sample(&s).expect("non-empty");
    assert!(p[0].mod_floor(&Int::from(3)).is_zero());
}

#[test]
fn multiples_of_two_and_three_are_multiples_of_six() {
    let threes = multiples_of_three(20);
    let twos = set(1, 1, &[&[0, 1, -2]], &[]);
    let sixes = threes.intersect(&twos).unwrap();
    assert_eq!(
        small_points(&sixes),
        vec![vec![0], vec![6], vec![12], vec![18]]
    );
}

#[test]
fn complement_of_multiples_of_three_in_a_range() {
    let range = set(1, 0, &[], &[&[0, 1], &[10, -1]]);
    let rest = range.subtract(&multiples_of_three(10)).unwrap();
    let expect: Vec<Vec<i64>> = [1, 2, 4, 5, 7, 8, 10].iter().map(|&i| vec![i]).collect();
    assert_eq!(small_points(&rest), expect);
    assert_eq!(rest.card().unwrap(), Int::from(7));
}

#[test]
fn existential_unbounded_on_one_side_only() {
    // { [i] : exists e: e >= i and 0 <= i <= 5 }: the existential's freedom is irrelevant.
    let s = set(1, 1, &[], &[&[0, -1, 1], &[0, 1, 0], &[5, -1, 0]]);
    assert_eq!(
        small_points(&s),
        (0..=5).map(|i| vec![i]).collect::<Vec<_>>()
    );
}

// ----- empty over the integers, non-empty over the rationals -----

#[test]
fn half_integer_point_is_empty() {
    // { [i] : 2i = 1 }
    let s = set(1, 0, &[&[-1, 2]], &[]);
    assert!(s.is_empty().unwrap());
    assert_eq!(sample(&s), None);
    assert_eq!(points(&s), Vec::<Vec<Int>>::new());
    assert_eq!(s.card().unwrap(), Int::zero());
}

#[test]
fn unbounded_strip_without_integer_points_is_empty() {
    // { [i, j] : 1 <= 3i - 3j <= 2 }: an unbounded rational strip between two lattice lines.
    let s = set(2, 0, &[], &[&[-1, 3, -3], &[2, -3, 3]]);
    assert!(s.is_empty().unwrap());
    assert_eq!(sample(&s), None);
    // Finite (empty) over the integers although unbounded over the rationals.
    assert_eq!(s.card().unwrap(), Int::zero());
    // { [x, y] : 1 <= 4x - 4y <= 3 }
    let t = set(2, 0, &[], &[&[-1, 4, -4], &[3, -4, 4]]);
    assert!(t.is_empty().unwrap());
}

#[test]
fn pugh_omega_example_is_empty() {
    // 27 <= 11x + 13y <= 45, -10 <= 7x - 9y <= 4 (Pugh 1991): rationally non-empty.
    let s = set(
        2,
        0,
        &[],
        &[&[-27, 11, 13], &[45, -11, -13], &[10, 7, -9], &[4, -7, 9]],
    );
    assert!(s.is_empty().unwrap());
    assert_eq!(sample(&s), None);
    assert_eq!(s.card().unwrap(), Int::zero());
}

#[test]
fn parity_contradiction_through_existentials_is_empty() {
    // { [i, j] : exists e: 2e = i + j and i - j = 1 }
    let s = set(2, 1, &[&[0, 1, 1, -2], &[-1, 1, -1, 0]], &[]);
    assert!(s.is_empty().unwrap());
    assert_eq!(sample(&s), None);
    // { [i] : exists e, f: i = 2e and i = 2f + 1 }
    let t = set(1, 2, &[&[0, 1, -2, 0], &[-1, 1, 0, -2]], &[]);
    assert!(t.is_empty().unwrap());
}

// ----- thin and unbounded polyhedra for sampling -----

#[test]
fn thin_unbounded_line_has_a_sample() {
    // { [x, y] : 7x - 13y = 5 and x >= 100 }
    let eq = row(&[-5, 7, -13]);
    let s = set_big(2, 0, vec![eq.clone()], vec![row(&[-100, 1, 0])]);
    let p = sample(&s).expect("non-empty");
    assert!(eval(&eq, &p).is_zero());
    assert!(p[0] >= Int::from(100));
    assert!(!s.is_empty().unwrap());
    assert_eq!(
        s.card().unwrap_err(),
        Error::Unsupported("unbounded".into())
    );
}

#[test]
fn thin_slanted_slab_is_enumerated_exactly() {
    // { [x, y] : 0 <= 1000x - 999y <= 1 and 0 <= y <= 10^5 }: y ≡ 0 or 1 (mod 1000).
    let s = set(
        2,
        0,
        &[],
        &[
            &[0, 1000, -999],
            &[1, -1000, 999],
            &[0, 0, 1],
            &[100_000, 0, -1],
        ],
    );
    assert_eq!(s.card().unwrap(), Int::from(201));
    let pts = small_points(&s);
    assert_eq!(pts.len(), 201);
    assert!(pts
        .iter()
        .all(|p| (0..=1).contains(&(1000 * p[0] - 999 * p[1])) && matches!(p[1] % 1000, 0 | 1)));
    assert!(pts.windows(2).all(|w| w[0] < w[1]));
    let p = sample(&s).expect("non-empty");
    let v = &Int::from(1000) * &p[0] - &Int::from(999) * &p[1];
    assert!(v >= Int::zero() && v <= Int::one());
}

#[test]
fn unbounded_cone_sample() {
    // { [x, y] : exists e: x = 5e + 2 and x >= 3y + 7 and y >= 1000 }: an unbounded cone
    // with a congruence through an existential.
    let s = set(
        2,
        1,
        &[&[-2, 1, 0, -5]],
        &[&[-7, 1, -3, 0], &[-1000, 0, 1, 0]],
    );
    let p = sample(&s).expect("non-empty");
    assert!(p[1] >= Int::from(1000));
    assert!(p[0] >= &Int::from(3) * &p[1] + Int::from(7));
    assert_eq!(p[0].mod_floor(&Int::from(5)), Int::from(2));
}

// ----- coefficients beyond i64 -----

#[test]
fn big_coefficient_bounds_are_exact() {
    // { [i] : 2^70 i >= 2^71 + 1 and i <= 5 } = { 3, 4, 5 }
    let s = set_big(
        1,
        0,
        vec![],
        vec![vec![-(pow2(71) + Int::one()), pow2(70)], row(&[5, -1])],
    );
    assert_eq!(small_points(&s), vec![vec![3], vec![4], vec![5]]);
    assert_eq!(s.card().unwrap(), Int::from(3));
    // { [i] : 2^70 i = 2^70 + 1 } is empty.
    let e = set_big(1, 0, vec![vec![-(pow2(70) + Int::one()), pow2(70)]], vec![]);
    assert!(e.is_empty().unwrap());
    assert_eq!(sample(&e), None);
}

#[test]
fn big_coordinates_are_enumerated() {
    // { [i, j] : i = 2^70 j and 0 <= j <= 2 }
    let s = set_big(
        2,
        0,
        vec![vec![Int::zero(), Int::one(), -pow2(70)]],
        vec![row(&[0, 0, 1]), row(&[2, 0, -1])],
    );
    assert_eq!(
        points(&s),
        vec![
            vec![Int::zero(), Int::zero()],
            vec![pow2(70), Int::one()],
            vec![pow2(71), Int::from(2)],
        ]
    );
    assert_eq!(s.card().unwrap(), Int::from(3));
    // { [i] : exists e: i = 2^70 e and -2^71 <= i <= 2^71 }: five sparse points.
    let t = set_big(
        1,
        1,
        vec![vec![Int::zero(), Int::one(), -pow2(70)]],
        vec![
            vec![pow2(71), Int::one(), Int::zero()],
            vec![pow2(71), -Int::one(), Int::zero()],
        ],
    );
    let expect: Vec<Vec<Int>> = [-2i64, -1, 0, 1, 2]
        .iter()
        .map(|&k| vec![&pow2(70) * &Int::from(k)])
        .collect();
    assert_eq!(points(&t), expect);
    assert_eq!(t.card().unwrap(), Int::from(5));
}

#[test]
fn big_coefficient_sample_satisfies() {
    // { [i, j] : 2^70 i - (2^70 + 1) j = 1 }
    let eq = vec![-Int::one(), pow2(70), -(pow2(70) + Int::one())];
    let s = set_big(2, 0, vec![eq.clone()], vec![]);
    let p = sample(&s).expect("non-empty (the coefficients are coprime)");
    assert!(eval(&eq, &p).is_zero());
}

#[test]
fn big_coefficient_strides_compare() {
    // { i : 2^71 | i } ⊆ { i : 2^70 | i }, not the converse.
    let fine = set_big(1, 1, vec![vec![Int::zero(), Int::one(), -pow2(70)]], vec![]);
    let coarse = set_big(1, 1, vec![vec![Int::zero(), Int::one(), -pow2(71)]], vec![]);
    assert!(coarse.as_map().is_subset(fine.as_map()).unwrap());
    assert!(!fine.as_map().is_subset(coarse.as_map()).unwrap());
    let diff = fine.subtract(&coarse).unwrap();
    assert!(diff.contains_point(&[pow2(70)]).unwrap());
    assert!(!diff.contains_point(&[pow2(71)]).unwrap());
}

// ----- the enumeration API -----

#[test]
fn union_points_are_sorted_and_deduplicated() {
    let a = set(
        2,
        0,
        &[],
        &[&[0, 1, 0], &[2, -1, 0], &[0, 0, 1], &[2, 0, -1]],
    );
    let b = set(
        2,
        0,
        &[],
        &[&[-1, 1, 0], &[3, -1, 0], &[-1, 0, 1], &[3, 0, -1]],
    );
    let u = a.union(&b).unwrap();
    let pts = small_points(&u);
    assert_eq!(pts.len(), 14);
    assert!(pts.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(u.card().unwrap(), Int::from(14));
}

#[test]
fn parametric_sets_are_refused() {
    // [N] -> { [i] : 0 <= i <= N }
    let space = Space::set(
        vec!["N".to_string()],
        pollen_presburger::Tuple::anonymous(1),
    );
    let b = BasicMap::from_parts(
        space,
        vec![],
        vec![],
        vec![row(&[0, 0, 1]), row(&[0, 1, -1])],
    )
    .unwrap();
    let s = Set::from_map(Map::from_basic(b)).unwrap();
    assert!(matches!(s.points(), Err(Error::Unsupported(m)) if m.contains("parameters")));
    assert!(matches!(s.card(), Err(Error::Unsupported(_))));
}

#[test]
fn zero_dimensional_sets() {
    let universe = Set::universe(Space::set_anonymous(0));
    assert_eq!(points(&universe), vec![Vec::<Int>::new()]);
    assert_eq!(universe.card().unwrap(), Int::one());
    let empty = Set::empty(Space::set_anonymous(0));
    assert_eq!(empty.card().unwrap(), Int::zero());
}

#[test]
fn budget_is_enforced() {
    let s = set(1, 0, &[], &[&[0, 1], &[1000, -1]]);
    assert_eq!(
        s.points_with(&mut Budget::new(10)).unwrap_err(),
        Error::LimitExceeded
    );
    assert_eq!(s.points_with(&mut Budget::new(10_000)).unwrap().len(), 1001);
}

#[test]
fn foreach_point_stops_on_error() {
    let s = set(1, 0, &[], &[&[0, 1], &[1000, -1]]);
    let mut seen = 0;
    let r = s.foreach_point(|_| {
        seen += 1;
        if seen == 5 {
            Err(Error::LimitExceeded)
        } else {
            Ok(())
        }
    });
    assert_eq!(r, Err(Error::LimitExceeded));
    assert_eq!(seen, 5);
}

#[test]
fn map_card_counts_pairs() {
    // { [i] -> [j] : 0 <= i <= 3 and i <= j <= 3 }: 4 + 3 + 2 + 1 pairs.
    let space = Space::map(
        vec![],
        pollen_presburger::Tuple::anonymous(1),
        pollen_presburger::Tuple::anonymous(1),
    );
    let b = BasicMap::from_parts(
        space,
        vec![],
        vec![],
        vec![
            row(&[0, 1, 0]),
            row(&[3, -1, 0]),
            row(&[0, -1, 1]),
            row(&[3, 0, -1]),
        ],
    )
    .unwrap();
    let m = Map::from_basic(b);
    assert_eq!(m.card().unwrap(), Int::from(10));
    assert_eq!(m.points().unwrap().len(), 10);
}

/// Wrapping a map into the set of its pairs and back keeps every pair (a relation with
/// a div, so that the layout of div columns is exercised too).
#[test]
fn wrapping_and_unwrapping_keep_the_pairs() {
    let m: Map = "[n] -> { A[i] -> B[j] : 0 <= i < n and j = floor(i / 2) }"
        .parse()
        .unwrap();
    let wrapped = Set::from_map(m.wrap()).unwrap();
    let fixed = wrapped
        .fix_val(pollen_presburger::DimKind::Param, 0, &Int::from(5))
        .unwrap()
        .project_out(pollen_presburger::DimKind::Param, 0, 1)
        .unwrap();
    let mut pairs = small_points(&fixed);
    pairs.sort();
    let want: Vec<Vec<i64>> = (0..5).map(|i| vec![i, i / 2]).collect();
    assert_eq!(pairs, want);
    assert!(wrapped.unwrap().unwrap().is_equal(&m).unwrap());
    // The product of the domain and the range contains every pair.
    let product = Set::from_map(m.domain().set_product(&m.range()).unwrap()).unwrap();
    assert!(wrapped.is_subset(&product).unwrap());
}
