//! Property tests of the solvers against brute-force enumeration.
//!
//! Small random systems (2–4 variables, coefficients in `[-4, 4]`) are either boxed by
//! `|x_i| <= 6`, so that enumerating the box is the truth, or left unbounded, in which case
//! returned samples are checked and `None` answers are confirmed on a larger box.

use pollen_arith::{Int, Rat};
use quickcheck::{Arbitrary, Gen, TestResult};

use super::*;

/// Radius of the box added to bounded instances.
const BOX: i64 = 6;
/// Radius searched to confirm emptiness of unbounded instances.
const SEARCH: i64 = 8;

/// A small system with machine-integer rows and an objective.
#[derive(Clone, Debug)]
struct SmallSystem {
    n_vars: usize,
    eqs: Vec<Vec<i64>>,
    ineqs: Vec<Vec<i64>>,
    objective: Vec<i64>,
}

fn pick<T: Copy>(g: &mut Gen, choices: &[T]) -> T {
    *g.choose(choices).expect("nonempty choices")
}

fn random_row(g: &mut Gen, n_vars: usize) -> Vec<i64> {
    let mut row = vec![pick(g, &(-12..=12).collect::<Vec<i64>>())];
    for _ in 0..n_vars {
        // Zero is more likely, so that rows are sparse as in practice.
        row.push(pick(g, &[-4, -3, -2, -1, 0, 0, 0, 1, 2, 3, 4]));
    }
    row
}

/// A system with floor-division variables, the shape that local variables take in
/// Presburger sets: `n_base` variables boxed by `|x| <= BOX`, then `q_k = floor(e_k / d_k)`
/// for affine `e_k` over the earlier variables (the tight pair `0 <= e_k - d_k q_k < d_k`),
/// and random constraints over all variables.
#[derive(Clone, Debug)]
struct DivSystem {
    n_base: usize,
    /// `(e_k, d_k)`: `e_k` has `1 + n_base + k` entries.
    divs: Vec<(Vec<i64>, i64)>,
    ineqs: Vec<Vec<i64>>,
}

impl Arbitrary for DivSystem {
    fn arbitrary(g: &mut Gen) -> Self {
        let n_base = pick(g, &[1usize, 2, 2, 3]);
        let n_divs = pick(g, &[1usize, 2, 3, 4]);
        let divs = (0..n_divs)
            .map(|k| (random_row(g, n_base + k), pick(g, &[2i64, 3, 4, 6, 8])))
            .collect();
        let n_ineqs = pick(g, &[1usize, 2, 3, 4]);
        let ineqs = (0..n_ineqs)
            .map(|_| random_row(g, n_base + n_divs))
            .collect();
        DivSystem {
            n_base,
            divs,
            ineqs,
        }
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let smaller: Vec<Self> = (0..self.ineqs.len())
            .map(|i| {
                let mut s = self.clone();
                s.ineqs.remove(i);
                s
            })
            .collect();
        Box::new(smaller.into_iter())
    }
}

impl DivSystem {
    fn n_vars(&self) -> usize {
        self.n_base + self.divs.len()
    }

    fn system(&self) -> System {
        let n = self.n_vars();
        let mut rows: Vec<Vec<i64>> = Vec::new();
        for i in 0..self.n_base {
            let mut lower = vec![0; n + 1];
            lower[0] = BOX;
            lower[i + 1] = 1;
            let mut upper = vec![0; n + 1];
            upper[0] = BOX;
            upper[i + 1] = -1;
            rows.push(lower);
            rows.push(upper);
        }
        for (k, (e, d)) in self.divs.iter().enumerate() {
            // e - d q >= 0 and d - 1 - e + d q >= 0
            let mut lower = vec![0; n + 1];
            lower[..e.len()].copy_from_slice(e);
            lower[1 + self.n_base + k] = -d;
            let upper: Vec<i64> = lower
                .iter()
                .enumerate()
                .map(|(j, &v)| if j == 0 { d - 1 - v } else { -v })
                .collect();
            rows.push(lower);
            rows.push(upper);
        }
        rows.extend(self.ineqs.iter().cloned());
        let convert = |row: &Vec<i64>| row.iter().map(|&v| Int::from(v)).collect::<Vec<Int>>();
        System {
            n_vars: n,
            eqs: Vec::new(),
            ineqs: rows.iter().map(convert).collect(),
        }
    }

    /// Whether some integer point exists, by enumerating the base variables.
    fn has_point(&self) -> bool {
        let n = self.n_vars();
        let mut base = vec![-BOX; self.n_base];
        loop {
            let mut point = base.clone();
            for (e, d) in &self.divs {
                let value = e[0] + e[1..].iter().zip(&point).map(|(a, x)| a * x).sum::<i64>();
                point.push(value.div_euclid(*d));
            }
            debug_assert_eq!(point.len(), n);
            let satisfied = self.ineqs.iter().all(|row| {
                row[0] + row[1..].iter().zip(&point).map(|(a, x)| a * x).sum::<i64>() >= 0
            });
            if satisfied {
                return true;
            }
            let mut i = 0;
            loop {
                if i == base.len() {
                    return false;
                }
                if base[i] < BOX {
                    base[i] += 1;
                    break;
                }
                base[i] = -BOX;
                i += 1;
            }
        }
    }
}

fn divisions_match_enumeration(s: DivSystem) -> TestResult {
    let sys = s.system();
    let expected = s.has_point();
    let mut verdicts = vec![integer_sample(&sys, &mut Budget::unlimited()).expect("unlimited")];
    verdicts.push(branch::sample(sys.clone(), &mut Budget::unlimited()).expect("unlimited"));
    // The Omega test alone may splinter for long on these; a bounded attempt suffices.
    if let Ok(answer) = omega::sample(sys.clone(), &mut Budget::new(200_000)) {
        verdicts.push(answer);
    }
    TestResult::from_bool(verdicts.iter().all(|verdict| match verdict {
        Some(p) => expected && sys.contains(p),
        None => !expected,
    }))
}

#[test]
fn prop_floor_divisions_match_enumeration() {
    crate::oracle::seeded_quickcheck(20)
        .tests(
            std::env::var("QUICKCHECK_TESTS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(150),
        )
        .quickcheck(divisions_match_enumeration as fn(DivSystem) -> TestResult);
}

impl Arbitrary for SmallSystem {
    fn arbitrary(g: &mut Gen) -> Self {
        let n_vars = pick(g, &[2usize, 2, 3, 3, 4]);
        let n_eqs = pick(g, &[0usize, 0, 0, 1, 1, 2]);
        let n_ineqs = pick(g, &[1usize, 2, 3, 4, 5, 6]);
        SmallSystem {
            n_vars,
            eqs: (0..n_eqs).map(|_| random_row(g, n_vars)).collect(),
            ineqs: (0..n_ineqs).map(|_| random_row(g, n_vars)).collect(),
            objective: random_row(g, n_vars),
        }
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let mut smaller = Vec::new();
        for i in 0..self.eqs.len() {
            let mut s = self.clone();
            s.eqs.remove(i);
            smaller.push(s);
        }
        for i in 0..self.ineqs.len() {
            let mut s = self.clone();
            s.ineqs.remove(i);
            smaller.push(s);
        }
        Box::new(smaller.into_iter())
    }
}

impl SmallSystem {
    /// The system, with the box `|x_i| <= BOX` appended to the inequalities if `boxed`.
    fn system(&self, boxed: bool) -> System {
        let mut ineqs = self.ineqs.clone();
        if boxed {
            for i in 0..self.n_vars {
                let mut lower = vec![0; self.n_vars + 1];
                lower[0] = BOX;
                lower[i + 1] = 1;
                let mut upper = vec![0; self.n_vars + 1];
                upper[0] = BOX;
                upper[i + 1] = -1;
                ineqs.push(lower);
                ineqs.push(upper);
            }
        }
        let convert = |row: &Vec<i64>| row.iter().map(|&v| Int::from(v)).collect::<Vec<Int>>();
        System {
            n_vars: self.n_vars,
            eqs: self.eqs.iter().map(convert).collect(),
            ineqs: ineqs.iter().map(convert).collect(),
        }
    }

    fn objective(&self) -> Vec<Int> {
        self.objective.iter().map(|&v| Int::from(v)).collect()
    }
}

/// The integer points of `sys` with all coordinates in `[-radius, radius]`.
fn enumerate(sys: &System, radius: i64) -> Vec<Vec<i64>> {
    let to_i64 = |row: &Vec<Int>| -> Vec<i64> {
        row.iter()
            .map(|v| v.to_i64().expect("small test data"))
            .collect()
    };
    let eqs: Vec<Vec<i64>> = sys.eqs.iter().map(to_i64).collect();
    let ineqs: Vec<Vec<i64>> = sys.ineqs.iter().map(to_i64).collect();
    let value = |row: &[i64], point: &[i64]| {
        row[0] + row[1..].iter().zip(point).map(|(a, x)| a * x).sum::<i64>()
    };
    let mut points = Vec::new();
    let mut point = vec![-radius; sys.n_vars];
    loop {
        if eqs.iter().all(|row| value(row, &point) == 0)
            && ineqs.iter().all(|row| value(row, &point) >= 0)
        {
            points.push(point.clone());
        }
        // Odometer increment.
        let mut i = 0;
        loop {
            if i == point.len() {
                return points;
            }
            if point[i] < radius {
                point[i] += 1;
                break;
            }
            point[i] = -radius;
            i += 1;
        }
    }
}

fn to_ints(point: &[i64]) -> Vec<Int> {
    point.iter().map(|&v| Int::from(v)).collect()
}

/// Runs `property` on `tests` random cases (`QUICKCHECK_TESTS` in the environment
/// overrides the count, for longer soak runs).
fn run(tests: u64, property: fn(SmallSystem) -> TestResult) {
    let tests = std::env::var("QUICKCHECK_TESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(tests);
    crate::oracle::seeded_quickcheck(20)
        .tests(tests)
        .max_tests(tests * 4)
        .quickcheck(property);
}

fn sample_matches_enumeration(s: SmallSystem) -> TestResult {
    let sys = s.system(true);
    let points = enumerate(&sys, BOX);
    let sample = integer_sample(&sys, &mut Budget::unlimited()).expect("unlimited");
    match sample {
        Some(p) => TestResult::from_bool(sys.contains(&p) && !points.is_empty()),
        None => TestResult::from_bool(points.is_empty()),
    }
}

#[test]
fn prop_sample_matches_enumeration() {
    run(300, sample_matches_enumeration);
}

/// Checks one sampler (without the dispatcher) on a bounded or unbounded instance.
fn sampler_is_exact(s: &SmallSystem, boxed: bool, sampler: equalities::Solver) -> TestResult {
    if !boxed && s.n_vars > 3 {
        return TestResult::discard();
    }
    let sys = s.system(boxed);
    let points = enumerate(&sys, if boxed { BOX } else { SEARCH });
    match sampler(sys.clone(), &mut Budget::unlimited()).expect("unlimited") {
        Some(p) => TestResult::from_bool(sys.contains(&p) && (!boxed || !points.is_empty())),
        None => TestResult::from_bool(points.is_empty()),
    }
}

fn omega_is_exact(s: SmallSystem) -> TestResult {
    sampler_is_exact(&s, true, omega::sample)
}

fn branch_is_exact(s: SmallSystem) -> TestResult {
    sampler_is_exact(&s, true, branch::sample)
}

fn branch_is_exact_unbounded(s: SmallSystem) -> TestResult {
    sampler_is_exact(&s, false, branch::sample)
}

#[test]
fn prop_omega_matches_enumeration() {
    run(200, omega_is_exact);
}

#[test]
fn prop_branch_matches_enumeration() {
    run(200, branch_is_exact);
}

#[test]
fn prop_branch_unbounded_samples_are_sound() {
    run(200, branch_is_exact_unbounded);
}

fn min_matches_enumeration(s: SmallSystem) -> TestResult {
    let sys = s.system(true);
    let objective = s.objective();
    let points = enumerate(&sys, BOX);
    let brute = points
        .iter()
        .map(|p| eval_row(&objective, &to_ints(p)))
        .min();
    let answer = integer_min(&sys, &objective, &mut Budget::unlimited()).expect("unlimited");
    match (answer, brute) {
        (Optimum::Empty, None) => TestResult::passed(),
        (Optimum::Bounded((value, witness)), Some(expected)) => TestResult::from_bool(
            value == expected && sys.contains(&witness) && eval_row(&objective, &witness) == value,
        ),
        _ => TestResult::failed(),
    }
}

#[test]
fn prop_min_matches_enumeration() {
    run(150, min_matches_enumeration);
}

fn max_matches_enumeration(s: SmallSystem) -> TestResult {
    let sys = s.system(true);
    let objective = s.objective();
    let points = enumerate(&sys, BOX);
    let brute = points
        .iter()
        .map(|p| eval_row(&objective, &to_ints(p)))
        .max();
    let answer = integer_max(&sys, &objective, &mut Budget::unlimited()).expect("unlimited");
    match (answer, brute) {
        (Optimum::Empty, None) => TestResult::passed(),
        (Optimum::Bounded((value, witness)), Some(expected)) => TestResult::from_bool(
            value == expected && sys.contains(&witness) && eval_row(&objective, &witness) == value,
        ),
        _ => TestResult::failed(),
    }
}

#[test]
fn prop_max_matches_enumeration() {
    run(60, max_matches_enumeration);
}

fn implicit_equalities_match_enumeration(s: SmallSystem) -> TestResult {
    let sys = s.system(true);
    let points = enumerate(&sys, BOX);
    let expected: Vec<usize> = (0..sys.ineqs.len())
        .filter(|&i| {
            points
                .iter()
                .all(|p| eval_row(&sys.ineqs[i], &to_ints(p)).is_zero())
        })
        .collect();
    let answer = implicit_equalities(&sys, &mut Budget::unlimited()).expect("unlimited");
    TestResult::from_bool(answer == expected)
}

#[test]
fn prop_implicit_equalities_match_enumeration() {
    run(100, implicit_equalities_match_enumeration);
}

fn lp_bounds_integer_optimum(s: SmallSystem) -> TestResult {
    let sys = s.system(true);
    let objective = s.objective();
    let points = enumerate(&sys, BOX);
    let mut budget = Budget::unlimited();
    let answer = rational_min(&sys, &objective, &mut budget).expect("unlimited");
    let empty = is_rationally_empty(&sys, &mut budget).expect("unlimited");
    match answer {
        Optimum::Unbounded => TestResult::failed(),
        Optimum::Empty => TestResult::from_bool(empty && points.is_empty()),
        Optimum::Bounded((value, point)) => {
            let objective_at_point = point
                .iter()
                .zip(&objective[1..])
                .fold(Rat::from_int(objective[0].clone()), |acc, (x, a)| {
                    acc + x * &Rat::from_int(a.clone())
                });
            let below_integers = points
                .iter()
                .all(|p| Rat::from_int(eval_row(&objective, &to_ints(p))) >= value);
            TestResult::from_bool(
                !empty
                    && sys.contains_rational(&point)
                    && objective_at_point == value
                    && below_integers,
            )
        }
    }
}

#[test]
fn prop_lp_bounds_integer_optimum() {
    run(150, lp_bounds_integer_optimum);
}

fn redundancy_removal_keeps_the_set(s: SmallSystem) -> TestResult {
    let sys = s.system(true);
    let redundant = redundant_inequalities(&sys, &mut Budget::unlimited()).expect("unlimited");
    let mut kept = sys.clone();
    kept.ineqs = sys
        .ineqs
        .iter()
        .enumerate()
        .filter(|(i, _)| !redundant.contains(i))
        .map(|(_, row)| row.clone())
        .collect();
    TestResult::from_bool(enumerate(&kept, SEARCH) == enumerate(&sys, SEARCH))
}

#[test]
fn prop_redundancy_removal_keeps_the_set() {
    run(60, redundancy_removal_keeps_the_set);
}

fn unbounded_samples_are_sound(s: SmallSystem) -> TestResult {
    if s.n_vars > 3 {
        return TestResult::discard();
    }
    let sys = s.system(false);
    let sample = integer_sample(&sys, &mut Budget::unlimited()).expect("unlimited");
    match sample {
        Some(p) => TestResult::from_bool(sys.contains(&p)),
        None => TestResult::from_bool(enumerate(&sys, SEARCH).is_empty()),
    }
}

#[test]
fn prop_unbounded_samples_are_sound() {
    run(300, unbounded_samples_are_sound);
}

fn unbounded_min_is_consistent(s: SmallSystem) -> TestResult {
    if s.n_vars > 3 {
        return TestResult::discard();
    }
    let sys = s.system(false);
    let objective = s.objective();
    let answer = integer_min(&sys, &objective, &mut Budget::unlimited()).expect("unlimited");
    let points = enumerate(&sys, SEARCH);
    let brute = points
        .iter()
        .map(|p| eval_row(&objective, &to_ints(p)))
        .min();
    match answer {
        Optimum::Empty => TestResult::from_bool(points.is_empty()),
        // Some point of the search box must beat any finite value when unbounded is
        // claimed only if the box is large enough; check that points exist at all.
        Optimum::Unbounded => TestResult::from_bool(
            integer_sample(&sys, &mut Budget::unlimited())
                .expect("unlimited")
                .is_some(),
        ),
        Optimum::Bounded((value, witness)) => TestResult::from_bool(
            sys.contains(&witness)
                && eval_row(&objective, &witness) == value
                && brute.is_none_or_at_least(&value),
        ),
    }
}

/// Helper: an optional brute-force minimum over a finite box is never below the true one.
trait AtLeast {
    fn is_none_or_at_least(&self, value: &Int) -> bool;
}

impl AtLeast for Option<Int> {
    fn is_none_or_at_least(&self, value: &Int) -> bool {
        match self {
            None => true,
            Some(found) => found >= value,
        }
    }
}

#[test]
fn prop_unbounded_min_is_consistent() {
    run(150, unbounded_min_is_consistent);
}

/// The minimum of `objective` over the rational polyhedron of `sys`, by Fourier–Motzkin
/// elimination: an oracle independent of the simplex. A variable `t = objective` is
/// added, every `x` is eliminated (through an equality when one mentions it, else by
/// combining each lower bound with each upper bound), and the bounds left on `t` give
/// the answer.
fn fourier_motzkin_min(sys: &System, objective: &[Int]) -> Optimum<Rat> {
    let n = sys.n_vars;
    let t = n + 1;
    let widen = |row: &Vec<Int>| {
        let mut r = row.clone();
        r.push(Int::zero());
        r
    };
    let mut eqs: Vec<Vec<Int>> = sys.eqs.iter().map(widen).collect();
    let mut ineqs: Vec<Vec<Int>> = sys.ineqs.iter().map(widen).collect();
    let mut goal = widen(&objective.to_vec());
    goal[t] = -Int::one();
    eqs.push(goal);
    let reduce = |row: Vec<Int>| {
        let g = pollen_arith::gcd_slice(&row);
        if g.is_zero() || g.is_one() {
            row
        } else {
            row.iter().map(|a| a.exact_div(&g)).collect()
        }
    };
    // `row · |pivot_k| - sign(pivot_k) · row_k · pivot`: column k cleared, the
    // direction of `row` kept.
    let combine = |row: &[Int], pivot: &[Int], k: usize| -> Vec<Int> {
        let scale = pivot[k].abs();
        let factor = if pivot[k].is_negative() {
            -&row[k]
        } else {
            row[k].clone()
        };
        reduce(
            row.iter()
                .zip(pivot)
                .map(|(a, p)| a * &scale - &factor * p)
                .collect(),
        )
    };
    for k in 1..=n {
        if let Some(i) = eqs.iter().position(|e| !e[k].is_zero()) {
            let pivot = eqs.remove(i);
            eqs = eqs.iter().map(|e| combine(e, &pivot, k)).collect();
            ineqs = ineqs.iter().map(|r| combine(r, &pivot, k)).collect();
            continue;
        }
        let (mut kept, mut lower, mut upper) = (Vec::new(), Vec::new(), Vec::new());
        for r in ineqs {
            match r[k].signum() {
                0 => kept.push(r),
                1 => lower.push(r),
                _ => upper.push(r),
            }
        }
        for l in &lower {
            for u in &upper {
                kept.push(combine(u, l, k));
            }
        }
        kept.sort();
        kept.dedup();
        ineqs = kept;
    }
    // Rows `c + a t` (= 0 or >= 0).
    let mut low: Option<Rat> = None;
    let mut high: Option<Rat> = None;
    let mut fixed: Option<Rat> = None;
    for e in &eqs {
        if e[t].is_zero() {
            if !e[0].is_zero() {
                return Optimum::Empty;
            }
            continue;
        }
        let v = Rat::new(-&e[0], e[t].clone());
        if fixed.as_ref().is_some_and(|f| *f != v) {
            return Optimum::Empty;
        }
        fixed = Some(v);
    }
    for r in &ineqs {
        if r[t].is_zero() {
            if r[0].is_negative() {
                return Optimum::Empty;
            }
            continue;
        }
        let v = Rat::new(-&r[0], r[t].clone());
        if r[t].is_positive() {
            if low.as_ref().is_none_or(|l| v > *l) {
                low = Some(v);
            }
        } else if high.as_ref().is_none_or(|h| v < *h) {
            high = Some(v);
        }
    }
    if let Some(f) = fixed {
        let inside = low.as_ref().is_none_or(|l| *l <= f) && high.as_ref().is_none_or(|h| f <= *h);
        return if inside {
            Optimum::Bounded(f)
        } else {
            Optimum::Empty
        };
    }
    match (low, high) {
        (Some(l), Some(h)) if l > h => Optimum::Empty,
        (Some(l), _) => Optimum::Bounded(l),
        (None, _) => Optimum::Unbounded,
    }
}

/// The rational minimum, its point and rational emptiness agree with Fourier–Motzkin,
/// bounded or not.
fn rational_min_matches_fourier_motzkin(s: SmallSystem, boxed: bool) -> TestResult {
    let sys = s.system(boxed);
    let objective = s.objective();
    let expected = fourier_motzkin_min(&sys, &objective);
    let mut budget = Budget::unlimited();
    let answer = rational_min(&sys, &objective, &mut budget).expect("unlimited");
    let empty = is_rationally_empty(&sys, &mut budget).expect("unlimited");
    let sample = rational_sample(&sys, &mut budget).expect("unlimited");
    let consistent = match (&answer, &expected) {
        (Optimum::Bounded((value, point)), Optimum::Bounded(truth)) => {
            value == truth && sys.contains_rational(point)
        }
        (Optimum::Empty, Optimum::Empty) | (Optimum::Unbounded, Optimum::Unbounded) => true,
        _ => false,
    };
    let sample_ok = match &sample {
        Some(p) => sys.contains_rational(p),
        None => true,
    };
    TestResult::from_bool(
        consistent
            && empty == (expected == Optimum::Empty)
            && sample.is_none() == empty
            && sample_ok,
    )
}

#[test]
fn prop_rational_min_matches_fourier_motzkin() {
    run(300, |s| rational_min_matches_fourier_motzkin(s, true));
    run(300, |s| rational_min_matches_fourier_motzkin(s, false));
}

/// The single-tableau redundancy test reports exactly what one LP per inequality (each
/// against the equalities and the inequalities still kept) reports.
fn redundancy_matches_one_lp_each(s: SmallSystem, boxed: bool) -> TestResult {
    let sys = s.system(boxed);
    let mut budget = Budget::unlimited();
    let Some(fast) = redundant_or_empty(&sys, &mut budget).expect("unlimited") else {
        return TestResult::from_bool(is_rationally_empty(&sys, &mut budget).expect("unlimited"));
    };
    let mut kept = vec![true; sys.ineqs.len()];
    let mut slow = Vec::new();
    for i in 0..sys.ineqs.len() {
        let others = System {
            n_vars: sys.n_vars,
            eqs: sys.eqs.clone(),
            ineqs: (0..sys.ineqs.len())
                .filter(|&j| j != i && kept[j])
                .map(|j| sys.ineqs[j].clone())
                .collect(),
        };
        let implied = match fourier_motzkin_min(&others, &sys.ineqs[i]) {
            Optimum::Empty => true,
            Optimum::Unbounded => false,
            Optimum::Bounded(v) => !v.is_negative(),
        };
        if implied {
            kept[i] = false;
            slow.push(i);
        }
    }
    TestResult::from_bool(fast == slow)
}

#[test]
fn prop_redundancy_matches_one_lp_each() {
    run(300, |s| redundancy_matches_one_lp_each(s, true));
    run(300, |s| redundancy_matches_one_lp_each(s, false));
}

/// Systems whose rows are scaled by a huge constant (beyond `i64`: the tableau starts on
/// big integers; or `2^31`: its `i64` entries overflow during pivots) give the answers
/// of the unscaled systems.
#[test]
fn huge_coefficients_take_the_exact_path() {
    let beyond = Int::from(1i64 << 40) * Int::from(1i64 << 40);
    let mut g = Gen::from_size_and_seed(20, 0x5eed_2024);
    let mut checked = 0;
    for case in 0..400 {
        let huge = if case % 2 == 0 {
            beyond.clone()
        } else {
            Int::from(1i64 << 31)
        };
        let s = SmallSystem::arbitrary(&mut g);
        let sys = s.system(true);
        let scale = |row: &Vec<Int>| row.iter().map(|a| a * &huge).collect::<Vec<Int>>();
        let scaled = System {
            n_vars: sys.n_vars,
            eqs: sys.eqs.iter().map(scale).collect(),
            ineqs: sys.ineqs.iter().map(scale).collect(),
        };
        let objective = s.objective();
        let mut budget = Budget::unlimited();
        let small = rational_min(&sys, &objective, &mut budget).expect("unlimited");
        let big = rational_min(&scaled, &objective, &mut budget).expect("unlimited");
        let values = |o: &Optimum<(Rat, Vec<Rat>)>| o.clone().map(|(v, _)| v);
        assert_eq!(values(&small), values(&big), "{sys:?}");
        assert_eq!(
            redundant_or_empty(&sys, &mut budget).expect("unlimited"),
            redundant_or_empty(&scaled, &mut budget).expect("unlimited"),
            "{sys:?}"
        );
        checked += usize::from(matches!(small, Optimum::Bounded(_)));
    }
    assert!(checked > 50, "too few bounded cases: {checked}");
}
