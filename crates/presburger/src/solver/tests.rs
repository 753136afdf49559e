//! Table tests of the solvers with answers verified by hand.

use pollen_arith::{Int, Rat};

use super::*;

fn int(v: i64) -> Int {
    Int::from(v)
}

fn ints(values: &[i64]) -> Vec<Int> {
    values.iter().map(|&v| int(v)).collect()
}

fn pow2(e: u32) -> Int {
    int(2).pow(e)
}

/// The sample of the public entry point, checked against both samplers on their own.
fn sample(sys: &System) -> Option<Vec<Int>> {
    let point = integer_sample(sys, &mut Budget::unlimited()).expect("unlimited budget");
    if let Some(p) = &point {
        assert!(sys.contains(p), "sample {p:?} violates {sys:?}");
    }
    for (name, sampler) in [
        ("omega", omega::sample as equalities::Solver),
        ("branch", branch::sample),
    ] {
        let other = sampler(sys.clone(), &mut Budget::new(10_000_000)).expect("budget");
        assert_eq!(
            other.is_some(),
            point.is_some(),
            "{name} disagrees on {sys:?}"
        );
        if let Some(p) = &other {
            assert!(sys.contains(p), "{name} sample {p:?} violates {sys:?}");
        }
    }
    point
}

fn assert_empty(sys: &System) {
    assert_eq!(sample(sys), None, "expected no integer point in {sys:?}");
}

fn assert_nonempty(sys: &System) {
    assert!(
        sample(sys).is_some(),
        "expected an integer point in {sys:?}"
    );
}

#[test]
fn parity_equality_is_integer_empty_but_rationally_nonempty() {
    // 2x = 2y + 1
    let sys = System::from_i64(2, &[&[-1, 2, -2]], &[]);
    assert_empty(&sys);
    assert!(!is_rationally_empty(&sys, &mut Budget::unlimited()).unwrap());
    assert!(is_integer_empty(&sys, &mut Budget::unlimited()).unwrap());
}

#[test]
fn gap_between_parallel_inequalities() {
    // 1 <= 3x - 3y <= 2
    let sys = System::from_i64(2, &[], &[&[-1, 3, -3], &[2, -3, 3]]);
    assert_empty(&sys);
    assert!(!is_rationally_empty(&sys, &mut Budget::unlimited()).unwrap());
}

#[test]
fn thin_strip_without_integer_points() {
    // 1 <= 10x - 4y <= 1: the gcd 2 of the coefficients does not divide 1.
    let sys = System::from_i64(2, &[], &[&[-1, 10, -4], &[1, -10, 4]]);
    assert_empty(&sys);
    // The line 3x - 5y = 2 (as two inequalities) within 0 <= x <= 3: its integer points
    // have x = 4 mod 5, so none lies in the box, while rationally it is a segment.
    let sys = System::from_i64(
        2,
        &[],
        &[&[-2, 3, -5], &[2, -3, 5], &[0, 1, 0], &[3, -1, 0]],
    );
    assert_empty(&sys);
    assert!(!is_rationally_empty(&sys, &mut Budget::unlimited()).unwrap());
    // Same strip with x <= 4 contains (4, 2).
    let sys = System::from_i64(
        2,
        &[],
        &[&[-2, 3, -5], &[2, -3, 5], &[0, 1, 0], &[4, -1, 0]],
    );
    assert_eq!(sample(&sys), Some(ints(&[4, 2])));
}

#[test]
fn thin_triangle_without_integer_points() {
    // 1 <= 3x - 7y <= 2 with 0 <= x <= 2:
    // x = 0: -7y in [1,2] no; x = 1: 3 - 7y in [1,2] -> 7y in [1,2] no;
    // x = 2: 6 - 7y in [1,2] -> 7y in [4,5] no.
    let sys = System::from_i64(
        2,
        &[],
        &[&[-1, 3, -7], &[2, -3, 7], &[0, 1, 0], &[2, -1, 0]],
    );
    assert_empty(&sys);
    assert!(!is_rationally_empty(&sys, &mut Budget::unlimited()).unwrap());
}

#[test]
fn pugh_example_has_no_integer_point() {
    // 27 <= 11x + 13y <= 45, -10 <= 7x - 9y <= 4
    let sys = System::from_i64(
        2,
        &[],
        &[&[-27, 11, 13], &[45, -11, -13], &[10, 7, -9], &[4, -7, 9]],
    );
    assert_empty(&sys);
    assert!(!is_rationally_empty(&sys, &mut Budget::unlimited()).unwrap());
}

#[test]
fn pugh_example_widened_has_points() {
    // 27 <= 11x + 13y <= 60, -10 <= 7x - 9y <= 4 contains (2, 2): 48 and -4.
    let sys = System::from_i64(
        2,
        &[],
        &[&[-27, 11, 13], &[60, -11, -13], &[10, 7, -9], &[4, -7, 9]],
    );
    assert_nonempty(&sys);
}

#[test]
fn unbounded_sets_have_samples() {
    // x >= y
    assert_nonempty(&System::from_i64(2, &[], &[&[0, 1, -1]]));
    // x >= y + 1000, y >= 2z + 7
    let sys = System::from_i64(3, &[], &[&[-1000, 1, -1, 0], &[-7, 0, 1, -2]]);
    assert_nonempty(&sys);
    // unbounded with non-unit coefficients: 3x - 5y >= 1, 2x + 7y >= 3
    let sys = System::from_i64(2, &[], &[&[-1, 3, -5], &[-3, 2, 7]]);
    assert_nonempty(&sys);
    // the unbounded line 4x - 6y = 1 (as two inequalities) has no integer point
    let sys = System::from_i64(2, &[], &[&[-1, 4, -6], &[1, -4, 6]]);
    assert_empty(&sys);
    // the unbounded line 3x + 5y = 1 has integer points
    let sys = System::from_i64(2, &[&[-1, 3, 5]], &[]);
    assert_nonempty(&sys);
}

#[test]
fn no_constraints_and_zero_variables() {
    assert_eq!(sample(&System::new(0)), Some(vec![]));
    assert_eq!(sample(&System::new(3)), Some(ints(&[0, 0, 0])));
    assert_empty(&System::from_i64(0, &[], &[&[-1]]));
    assert_empty(&System::from_i64(0, &[&[2]], &[]));
    assert_eq!(sample(&System::from_i64(0, &[&[0]], &[&[5]])), Some(vec![]));
}

#[test]
fn big_coefficient_equality() {
    // 2^70 x = 2^71 + 2^70  =>  x = 3
    let mut sys = System::new(1);
    sys.add_eq(vec![-(pow2(71) + pow2(70)), pow2(70)]);
    assert_eq!(sample(&sys), Some(ints(&[3])));
}

#[test]
fn big_coefficient_interval_without_integer_point() {
    // 1 <= 2^70 x <= 2^70 - 1
    let mut sys = System::new(1);
    sys.add_ineq(vec![int(-1), pow2(70)]);
    sys.add_ineq(vec![pow2(70) - int(1), -pow2(70)]);
    assert_empty(&sys);
    // (2^70 + 1) x - 2^70 y = 1 with 0 <= x <= 5 has exactly the solution x = 1, y = 1.
    let mut sys = System::new(2);
    sys.add_eq(vec![int(-1), pow2(70) + int(1), -pow2(70)]);
    sys.add_ineq(vec![int(0), int(1), int(0)]);
    sys.add_ineq(vec![int(5), int(-1), int(0)]);
    let point = sample(&sys).expect("x = 1 + 2^70 k, y = 1 + (2^70 + 1) k");
    assert_eq!(point, ints(&[1, 1]));
}

#[test]
fn big_coefficients_inexact_elimination() {
    // 3 * 2^65 <= 2^66 x + 3 y <= 3 * 2^65 + 2, 0 <= y <= 1: 2^66 x + 3y in [3*2^65, 3*2^65+2].
    // y = 0: 2^66 x in [3*2^65, 3*2^65 + 2] -> x in [1.5, 1.5 + 2^-65]: no.
    // y = 1: 2^66 x in [3*2^65 - 3, 3*2^65 - 1] no. Empty.
    let c = int(3) * pow2(65);
    let mut sys = System::new(2);
    sys.add_ineq(vec![-c.clone(), pow2(66), int(3)]);
    sys.add_ineq(vec![c + int(2), -pow2(66), int(-3)]);
    sys.add_ineq(vec![int(0), int(0), int(1)]);
    sys.add_ineq(vec![int(1), int(0), int(-1)]);
    assert_empty(&sys);
}

#[test]
fn equalities_needing_unimodular_steps() {
    // 6x + 10y + 15z = 1 (no unit coefficient, gcd 1) has integer points, but none with
    // x, y, z in [0, 10]: mod 2, 3 and 5 it forces z odd, y = 1 mod 3 and x = 1 mod 5, so
    // all are positive and 6x + 10y + 15z >= 31 > 1.
    let mut sys = System::from_i64(3, &[&[-1, 6, 10, 15]], &[]);
    assert_nonempty(&sys);
    for var in 1..=3 {
        let mut lower = vec![int(0); 4];
        lower[var] = int(1);
        sys.add_ineq(lower);
        let mut upper = vec![int(0); 4];
        upper[0] = int(10);
        upper[var] = int(-1);
        sys.add_ineq(upper);
    }
    assert_empty(&sys);
    // 6x + 10y + 15z = 31 in the box: x = 1, y = 1, z = 1.
    sys.eqs[0][0] = int(-31);
    assert_eq!(sample(&sys), Some(ints(&[1, 1, 1])));
}

#[test]
fn two_equalities_and_inequalities() {
    // x + y + z = 10, x - y = 2z, x, y, z >= 0, z odd (z = 2w + 1)
    let sys = System::from_i64(
        4,
        &[&[-10, 1, 1, 1, 0], &[0, 1, -1, -2, 0], &[-1, 0, 0, 1, -2]],
        &[&[0, 1, 0, 0, 0], &[0, 0, 1, 0, 0], &[0, 0, 0, 1, 0]],
    );
    // z = 1: x + y = 9, x - y = 2 -> 2x = 11 no; z = 3: x + y = 7, x - y = 6 no;
    // z = 5: x + y = 5, x - y = 10 -> x = 7.5 no; z >= 7: x + y <= 3, x - y >= 14 no.
    assert_empty(&sys);
    // z even instead: z = 2w: z = 0 -> x = y = 5.
    let sys = System::from_i64(
        4,
        &[&[-10, 1, 1, 1, 0], &[0, 1, -1, -2, 0], &[0, 0, 0, 1, -2]],
        &[&[0, 1, 0, 0, 0], &[0, 0, 1, 0, 0], &[0, 0, 0, 1, 0]],
    );
    assert_nonempty(&sys);
}

#[test]
fn splinters_are_needed() {
    // 1 <= 3x - 2y <= 3 and 0 <= 2y - x <= 4: neither variable has unit coefficients on a
    // whole side, so the Omega test needs its dark shadow or splinters; checked by brute force.
    let sys = System::from_i64(
        2,
        &[],
        &[&[-1, 3, -2], &[3, -3, 2], &[0, -1, 2], &[4, 1, -2]],
    );
    let expected = brute_force_2d(&sys, 20);
    assert_eq!(sample(&sys).is_some(), expected);
}

fn brute_force_2d(sys: &System, radius: i64) -> bool {
    (-radius..=radius).any(|x| (-radius..=radius).any(|y| sys.contains(&ints(&[x, y]))))
}

#[test]
fn budget_is_respected() {
    let sys = System::from_i64(
        2,
        &[],
        &[&[-27, 11, 13], &[45, -11, -13], &[10, 7, -9], &[4, -7, 9]],
    );
    assert_eq!(
        integer_sample(&sys, &mut Budget::new(3)),
        Err(Error::LimitExceeded)
    );
}

#[test]
fn malformed_rows_are_rejected() {
    let sys = System {
        n_vars: 2,
        eqs: vec![ints(&[1, 2])],
        ineqs: vec![],
    };
    assert!(matches!(
        integer_sample(&sys, &mut Budget::unlimited()),
        Err(Error::Unsupported(_))
    ));
    let sys = System::new(2);
    assert!(matches!(
        rational_min(&sys, &ints(&[1]), &mut Budget::unlimited()),
        Err(Error::Unsupported(_))
    ));
}

#[test]
fn normalize_tightens_and_merges() {
    // 2x - 1 >= 0 -> x - 1 >= 0; 2 - 2x >= 0 -> 1 - x >= 0, tighter than 3 - x >= 0;
    // x - 1 >= 0 and 1 - x >= 0 become x = 1.
    let sys = System::from_i64(1, &[], &[&[-1, 2], &[2, -2], &[3, -1], &[-1, 1]]);
    let normal = normalize(&sys).unwrap();
    assert_eq!(normal.eqs, vec![ints(&[-1, 1])]);
    assert!(normal.ineqs.is_empty());
    // 2x = 3 is infeasible; 0 >= -1 is trivial; 0 >= 1 infeasible.
    assert_eq!(normalize(&System::from_i64(1, &[&[-3, 2]], &[])), None);
    assert_eq!(
        normalize(&System::from_i64(1, &[], &[&[1, 0]])),
        Some(System::new(1))
    );
    assert_eq!(normalize(&System::from_i64(1, &[], &[&[-1, 0]])), None);
    // -2x + 4 = 0 -> x - 2 = 0 (positive leading coefficient)
    let normal = normalize(&System::from_i64(1, &[&[4, -2]], &[])).unwrap();
    assert_eq!(normal.eqs, vec![ints(&[-2, 1])]);
}

fn rat(n: i64, d: i64) -> Rat {
    Rat::new(int(n), int(d))
}

#[test]
fn lp_basic_cases() {
    let mut budget = Budget::unlimited();
    // min x + y s.t. 2x + 3y >= 6, x, y >= 0: vertex (0, 2), value 2.
    let sys = System::from_i64(2, &[], &[&[-6, 2, 3], &[0, 1, 0], &[0, 0, 1]]);
    let (value, point) = rational_min(&sys, &ints(&[0, 1, 1]), &mut budget)
        .unwrap()
        .bounded()
        .unwrap();
    assert_eq!(value, rat(2, 1));
    assert_eq!(point, vec![rat(0, 1), rat(2, 1)]);
    // min x s.t. 3x >= 1: 1/3.
    let sys = System::from_i64(1, &[], &[&[-1, 3]]);
    let (value, _) = rational_min(&sys, &ints(&[0, 1]), &mut budget)
        .unwrap()
        .bounded()
        .unwrap();
    assert_eq!(value, rat(1, 3));
    // max x is unbounded.
    assert_eq!(
        rational_max(&sys, &ints(&[0, 1]), &mut budget).unwrap(),
        Optimum::Unbounded
    );
    // free variables: min x - y s.t. x - y >= -5 (both free): -5.
    let sys = System::from_i64(2, &[], &[&[5, 1, -1]]);
    let (value, point) = rational_min(&sys, &ints(&[0, 1, -1]), &mut budget)
        .unwrap()
        .bounded()
        .unwrap();
    assert_eq!(value, rat(-5, 1));
    assert!(sys.contains_rational(&point));
    // equalities: x + y = 1, x - y = 1/2 scaled: 2x - 2y = 1 -> x = 3/4, y = 1/4.
    let sys = System::from_i64(2, &[&[-1, 1, 1], &[-1, 2, -2]], &[]);
    let (value, point) = rational_min(&sys, &ints(&[7, 4, 0]), &mut budget)
        .unwrap()
        .bounded()
        .unwrap();
    assert_eq!(point, vec![rat(3, 4), rat(1, 4)]);
    assert_eq!(value, rat(10, 1));
    // empty: x >= 1, x <= 0.
    let sys = System::from_i64(1, &[], &[&[-1, 1], &[0, -1]]);
    assert_eq!(
        rational_min(&sys, &ints(&[0, 1]), &mut budget).unwrap(),
        Optimum::Empty
    );
    assert!(is_rationally_empty(&sys, &mut budget).unwrap());
    // redundant equality rows are dropped: x + y = 1 twice, 2x + 2y = 2, x >= 0.
    let sys = System::from_i64(2, &[&[-1, 1, 1], &[-1, 1, 1], &[-2, 2, 2]], &[&[0, 1, 0]]);
    assert_eq!(
        rational_min(&sys, &ints(&[0, 1, 0]), &mut budget).unwrap(),
        Optimum::Bounded((rat(0, 1), vec![rat(0, 1), rat(1, 1)]))
    );
}

#[test]
fn lp_unbounded_direction_with_equality() {
    let mut budget = Budget::unlimited();
    // x + y = 1, x >= 0: min y is unbounded.
    let sys = System::from_i64(2, &[&[-1, 1, 1]], &[&[0, 1, 0]]);
    assert_eq!(
        rational_min(&sys, &ints(&[0, 0, 1]), &mut budget).unwrap(),
        Optimum::Unbounded
    );
    assert!(rational_sample(&sys, &mut budget).unwrap().is_some());
}

#[test]
fn lp_degenerate_cycling_example() {
    // Beale's cycling example (cycles under the textbook rule, not under Bland's):
    // min -3/4 x4 + 150 x5 - 1/50 x6 + 6 x7 s.t.
    //   1/4 x4 - 60 x5 - 1/25 x6 + 9 x7 <= 0
    //   1/2 x4 - 90 x5 - 1/50 x6 + 3 x7 <= 0
    //   x6 <= 1, x >= 0. Optimum -1/20 at x4 = 1/25, x6 = 1.
    // Scaled by 100 (rows) and 100 (objective).
    let sys = System::from_i64(
        4,
        &[],
        &[
            &[0, -25, 6000, 4, -900],
            &[0, -50, 9000, 2, -300],
            &[1, 0, 0, -1, 0],
            &[0, 1, 0, 0, 0],
            &[0, 0, 1, 0, 0],
            &[0, 0, 0, 1, 0],
            &[0, 0, 0, 0, 1],
        ],
    );
    let (value, point) = rational_min(
        &sys,
        &ints(&[0, -75, 15000, -2, 600]),
        &mut Budget::new(10_000),
    )
    .unwrap()
    .bounded()
    .unwrap();
    assert_eq!(value, rat(-5, 1));
    assert!(sys.contains_rational(&point));
}

#[test]
fn integer_min_and_max() {
    let mut budget = Budget::unlimited();
    // min x + y s.t. 2x + 3y >= 7, x, y >= 0: rational optimum 7/3, integer optimum 3
    // (e.g. at (2, 1)).
    let sys = System::from_i64(2, &[], &[&[-7, 2, 3], &[0, 1, 0], &[0, 0, 1]]);
    let (value, point) = integer_min(&sys, &ints(&[0, 1, 1]), &mut budget)
        .unwrap()
        .bounded()
        .unwrap();
    assert_eq!(value, int(3));
    assert!(sys.contains(&point));
    assert_eq!(eval_row(&ints(&[0, 1, 1]), &point), int(3));
    // max unbounded
    assert_eq!(
        integer_max(&sys, &ints(&[0, 1, 1]), &mut budget).unwrap(),
        Optimum::Unbounded
    );
    // empty
    let sys = System::from_i64(2, &[&[-1, 2, -2]], &[]);
    assert_eq!(
        integer_min(&sys, &ints(&[0, 1, 0]), &mut budget).unwrap(),
        Optimum::Empty
    );
    // integer max of x s.t. 3x <= 2^70 + 1: floor((2^70 + 1) / 3).
    let mut sys = System::new(1);
    sys.add_ineq(vec![pow2(70) + int(1), int(-3)]);
    sys.add_ineq(vec![int(0), int(1)]);
    let (value, point) = integer_max(&sys, &ints(&[0, 1]), &mut budget)
        .unwrap()
        .bounded()
        .unwrap();
    assert_eq!(value, (pow2(70) + int(1)).floor_div(&int(3)));
    assert_eq!(point, vec![value]);
    // min x over Pugh's widened example, against brute force.
    let sys = System::from_i64(
        2,
        &[],
        &[&[-27, 11, 13], &[60, -11, -13], &[10, 7, -9], &[4, -7, 9]],
    );
    let (value, _) = integer_min(&sys, &ints(&[0, 1, 0]), &mut budget)
        .unwrap()
        .bounded()
        .unwrap();
    let brute = (-20..=20)
        .flat_map(|x| (-20..=20).map(move |y| (x, y)))
        .filter(|&(x, y)| sys.contains(&ints(&[x, y])))
        .map(|(x, _)| x)
        .min()
        .unwrap();
    assert_eq!(value, int(brute));
}

#[test]
fn implicit_equalities_cases() {
    let mut budget = Budget::unlimited();
    // 2x >= 0 and 1 - 3x >= 0 force x = 0, where only the first is tight; y >= 0 is not.
    let sys = System::from_i64(2, &[], &[&[0, 2, 0], &[1, -3, 0], &[0, 0, 1]]);
    assert_eq!(implicit_equalities(&sys, &mut budget).unwrap(), vec![0]);
    // 2x >= 0 and -3x >= 0: both tight at x = 0.
    let sys = System::from_i64(2, &[], &[&[0, 2, 0], &[0, -3, 0], &[0, 0, 1]]);
    assert_eq!(implicit_equalities(&sys, &mut budget).unwrap(), vec![0, 1]);
    // empty system: every inequality
    let sys = System::from_i64(1, &[&[-1, 2]], &[&[0, 1], &[5, -1]]);
    assert_eq!(implicit_equalities(&sys, &mut budget).unwrap(), vec![0, 1]);
    // rationally full-dimensional but integer-flat: 0 <= 3x - 3y <= 2 forces x = y.
    let sys = System::from_i64(2, &[], &[&[0, 3, -3], &[2, -3, 3]]);
    assert_eq!(implicit_equalities(&sys, &mut budget).unwrap(), vec![0]);
}

#[test]
fn redundant_inequalities_cases() {
    let mut budget = Budget::unlimited();
    // x >= 0, x >= -1 (redundant), x <= 5, 2x <= 10 (duplicate of x <= 5), x + y >= 0, y >= 0
    let sys = System::from_i64(
        2,
        &[],
        &[
            &[0, 1, 0],
            &[1, 1, 0],
            &[5, -1, 0],
            &[10, -2, 0],
            &[0, 1, 1],
            &[0, 0, 1],
        ],
    );
    // x + y >= 0 is implied by x >= 0 and y >= 0; x <= 5 and 2x <= 10: the first one goes.
    assert_eq!(
        redundant_inequalities(&sys, &mut budget).unwrap(),
        vec![1, 2, 4]
    );
    // With an equality x = y, y >= 0 and x >= 0 are duplicates.
    let sys = System::from_i64(2, &[&[0, 1, -1]], &[&[0, 1, 0], &[0, 0, 1], &[3, -1, 0]]);
    assert_eq!(redundant_inequalities(&sys, &mut budget).unwrap(), vec![0]);
}

/// Ten variables, seven of them floor divisions of the first three (tight pairs
/// `L <= e - a q <= L + a - 1`): the Omega test splinters exponentially here, the branching
/// sampler answers quickly. Nonempty, e.g. at
/// `(-1, 3, -8, -1, -1, -2, 3, 2, -3, 2)` (found by enumerating the first three variables).
fn floor_division_system() -> System {
    System::from_i64(
        10,
        &[],
        &[
            &[-2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
            &[-1, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1],
            &[0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0],
            &[0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0],
            &[0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0],
            &[0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0],
            &[0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0],
            &[0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0],
            &[6, -1, -3, 0, -3, 0, 0, 0, 0, 0, 0],
            &[-4, 1, 3, 0, 3, 0, 0, 0, 0, 0, 0],
            &[10, -1, 0, 2, 0, -6, 0, 0, 0, 0, 0],
            &[-5, 1, 0, -2, 0, 6, 0, 0, 0, 0, 0],
            &[15, -1, 0, 4, 0, 0, -8, 0, 0, 0, 0],
            &[-8, 1, 0, -4, 0, 0, 8, 0, 0, 0, 0],
            &[-7, 1, 0, -4, 0, 0, 0, -8, 0, 0, 0],
            &[14, -1, 0, 4, 0, 0, 0, 8, 0, 0, 0],
            &[-2, 1, 0, -2, 0, 0, 0, 0, -6, 0, 0],
            &[7, -1, 0, 2, 0, 0, 0, 0, 6, 0, 0],
            &[14, -1, 0, 4, 0, 0, 0, 0, 0, -8, 0],
            &[-7, 1, 0, -4, 0, 0, 0, 0, 0, 8, 0],
            &[-1, 1, 0, -2, 0, 0, 0, 0, 0, 0, -6],
            &[6, -1, 0, 2, 0, 0, 0, 0, 0, 0, 6],
        ],
    )
}

#[test]
fn many_floor_divisions_are_sampled_within_a_small_budget() {
    let sys = floor_division_system();
    let point = integer_sample(&sys, &mut Budget::new(100_000))
        .expect("within budget")
        .expect("nonempty");
    assert!(sys.contains(&point));
    assert!(sys.contains(&ints(&[-1, 3, -8, -1, -1, -2, 3, 2, -3, 2])));
}

#[test]
fn residue_contradiction_through_floor_divisions() {
    // Variables (x, s, q, r): x = 3r, 0 <= x - 6s <= 2 and x - 2q = 1 (as two inequalities).
    // x mod 6 must be odd and at most 2, so 1, but then 3 does not divide x: empty.
    let sys = System::from_i64(
        4,
        &[&[0, 1, 0, 0, -3]],
        &[
            &[0, 1, -6, 0, 0],
            &[2, -1, 6, 0, 0],
            &[-1, 1, 0, -2, 0],
            &[1, -1, 0, 2, 0],
        ],
    );
    assert_empty(&sys);
    // With 0 <= x - 6s <= 3, x = 3 works (s = 0, q = 1, r = 1).
    let sys = System::from_i64(
        4,
        &[&[0, 1, 0, 0, -3]],
        &[
            &[0, 1, -6, 0, 0],
            &[3, -1, 6, 0, 0],
            &[-1, 1, 0, -2, 0],
            &[1, -1, 0, 2, 0],
        ],
    );
    assert_nonempty(&sys);
}

#[test]
fn samplers_agree_on_a_bounded_residue_puzzle() {
    // Variables (x, y, a, b): x + y = 30, 0 <= x <= 20, 0 <= y <= 30, 3 <= x - 7a <= 4 and
    // y = 5b + 1 (as two inequalities). y = 1 mod 5 means x = 4 mod 5, and x mod 7 is 3 or 4:
    // among 0..=20 only x = 4.
    let sys = System::from_i64(
        4,
        &[&[-30, 1, 1, 0, 0]],
        &[
            &[0, 1, 0, 0, 0],
            &[20, -1, 0, 0, 0],
            &[0, 0, 1, 0, 0],
            &[30, 0, -1, 0, 0],
            &[-3, 1, 0, -7, 0],
            &[4, -1, 0, 7, 0],
            &[-1, 0, 1, 0, -5],
            &[1, 0, -1, 0, 5],
        ],
    );
    assert_eq!(sample(&sys).map(|p| p[0].clone()), Some(int(4)));
}
