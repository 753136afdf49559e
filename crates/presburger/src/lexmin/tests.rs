//! Tests of parametric lexicographic optimisation: table tests with known answers and
//! brute-force properties on random small sets (enumeration in a box is the oracle).

use super::*;
use crate::space::Tuple;

fn n(v: i64) -> Int {
    Int::from(v)
}

fn row(v: &[i64]) -> Vec<Int> {
    v.iter().map(|&x| n(x)).collect()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// `[params] -> { [dims] : ... }` with `n_exists` existentials; rows over
/// `[const | params | dims | exists]`.
fn set(params: &[&str], dims: &[&str], n_exists: usize, eqs: &[&[i64]], ineqs: &[&[i64]]) -> Set {
    let space = Space::set(names(params), Tuple::new(None, dims));
    Set::from_map(Map::from_basic(basic(space, n_exists, eqs, ineqs))).unwrap()
}

/// `[params] -> { [ins] -> [outs] : ... }`; rows over `[const | params | ins | outs | exists]`.
fn map(
    params: &[&str],
    ins: &[&str],
    outs: &[&str],
    n_exists: usize,
    eqs: &[&[i64]],
    ineqs: &[&[i64]],
) -> Map {
    let space = Space::map(names(params), Tuple::new(None, ins), Tuple::new(None, outs));
    Map::from_basic(basic(space, n_exists, eqs, ineqs))
}

fn basic(space: Space, n_exists: usize, eqs: &[&[i64]], ineqs: &[&[i64]]) -> BasicMap {
    let mut b = BasicMap::universe(space);
    for _ in 0..n_exists {
        b.add_div(None);
    }
    for r in eqs {
        b.add_eq(row(r));
    }
    for r in ineqs {
        b.add_ineq(row(r));
    }
    b
}

/// Checks the invariants of a result at one point of the domain space and returns the
/// optimum there (`None` when empty; panics when unbounded).
fn value_at(r: &LexOptResult, point: &[Int]) -> Option<Vec<Int>> {
    let hits = r
        .optimum
        .pieces()
        .iter()
        .filter(|(s, _)| s.contains_point(point).unwrap())
        .count();
    assert!(hits <= 1, "overlapping pieces at {point:?}");
    let empty = r.empty.contains_point(point).unwrap();
    let unbounded = r.unbounded.contains_point(point).unwrap();
    assert!(!unbounded, "unexpectedly unbounded at {point:?}");
    assert_eq!(
        hits == 0,
        empty,
        "empty set disagrees with the pieces at {point:?}"
    );
    r.optimum.eval(point).unwrap()
}

#[test]
fn interval_min_and_max() {
    // [N] -> { [i] : 0 <= i <= N }
    let s = set(&["N"], &["i"], 0, &[], &[&[0, 0, 1], &[0, 1, -1]]);
    let min = s.lexmin_pw().unwrap();
    let max = s.lexmax_pw().unwrap();
    for v in -5..=5 {
        let expect_min = (v >= 0).then(|| vec![n(0)]);
        let expect_max = (v >= 0).then(|| vec![n(v)]);
        assert_eq!(value_at(&min, &[n(v)]), expect_min);
        assert_eq!(value_at(&max, &[n(v)]), expect_max);
    }
    assert_eq!(min.optimum.pieces().len(), 1);
    let text = min.optimum.to_string();
    assert!(text.starts_with("[N] -> { [(0)] : "), "{text}");
    assert_eq!(max.optimum.to_string(), "[N] -> { [(N)] : N >= 0 }");
    // As a set of optima.
    let lm = s.lexmin().unwrap();
    assert!(lm.contains_point(&[n(3), n(0)]).unwrap());
    assert!(!lm.contains_point(&[n(3), n(1)]).unwrap());
    assert!(!lm.contains_point(&[n(-1), n(0)]).unwrap());
}

#[test]
fn two_dims_with_a_sum() {
    // [N] -> { [i, j] : i + j >= N and 0 <= i, j <= 10 }
    let s = set(
        &["N"],
        &["i", "j"],
        0,
        &[],
        &[
            &[0, -1, 1, 1],
            &[0, 0, 1, 0],
            &[10, 0, -1, 0],
            &[0, 0, 0, 1],
            &[10, 0, 0, -1],
        ],
    );
    let min = s.lexmin_pw().unwrap();
    let max = s.lexmax_pw().unwrap();
    for v in -3..=23 {
        let pts: Vec<(i64, i64)> = (0..=10)
            .flat_map(|i| (0..=10).map(move |j| (i, j)))
            .filter(|(i, j)| i + j >= v)
            .collect();
        let lo = pts.iter().min().map(|&(i, j)| vec![n(i), n(j)]);
        let hi = pts.iter().max().map(|&(i, j)| vec![n(i), n(j)]);
        assert_eq!(value_at(&min, &[n(v)]), lo, "lexmin at N = {v}");
        assert_eq!(value_at(&max, &[n(v)]), hi, "lexmax at N = {v}");
    }
}

#[test]
fn divisibility_gives_a_ceiling() {
    // [N] -> { [i] : exists e: i = 3e and i >= N }: lexmin = 3 ceil(N / 3)
    let s = set(&["N"], &["i"], 1, &[&[0, 0, 1, -3]], &[&[0, -1, 1, 0]]);
    let r = s.lexmin_pw().unwrap();
    for v in -10..=10 {
        let expect = 3 * n(v).ceil_div(&n(3)).to_i64().unwrap();
        assert_eq!(value_at(&r, &[n(v)]), Some(vec![n(expect)]), "N = {v}");
    }
    assert!(r.empty.is_empty().unwrap());
    // No maximum.
    let m = s.lexmax_pw().unwrap();
    assert!(m.optimum.pieces().is_empty());
    assert!(m.unbounded.contains_point(&[n(4)]).unwrap());
    assert!(matches!(s.lexmax(), Err(Error::Unbounded)));
}

#[test]
fn map_with_a_division() {
    // { [i] -> [j] : 2j >= i }: lexmin j = ceil(i / 2)
    let m = map(&[], &["i"], &["j"], 0, &[], &[&[0, -1, 2]]);
    let r = m.lexmin_pw().unwrap();
    for i in -7..=7 {
        let expect = n(i).ceil_div(&n(2));
        assert_eq!(value_at(&r, &[n(i)]), Some(vec![expect]), "i = {i}");
    }
    assert!(r.empty.is_empty().unwrap());
    let g = m.lexmin().unwrap();
    assert!(g.contains_point(&[n(3), n(2)]).unwrap());
    assert!(!g.contains_point(&[n(3), n(3)]).unwrap());
    assert!(g.contains_point(&[n(-3), n(-1)]).unwrap());
}

#[test]
fn unbounded_below() {
    // { [i] : i <= 5 }
    let s = set(&[], &["i"], 0, &[], &[&[5, -1]]);
    let r = s.lexmin_pw().unwrap();
    assert!(r.optimum.pieces().is_empty());
    assert!(r.unbounded.contains_point(&[]).unwrap());
    assert!(r.empty.is_empty().unwrap());
    assert!(matches!(s.lexmin(), Err(Error::Unbounded)));
    assert_eq!(s.lexmin_point().unwrap(), Optimum::Unbounded);
    assert!(matches!(s.dim_min(0), Err(Error::Unbounded)));
    assert_eq!(
        s.lexmax_pw().unwrap().optimum.eval(&[]).unwrap(),
        Some(vec![n(5)])
    );
    // A free direction of the existentials alone does not make the result unbounded:
    // { [i] : exists e, f: i = 2e - 2f and 0 <= i <= 3 } (e and f may both decrease).
    let s = set(
        &[],
        &["i"],
        2,
        &[&[0, 1, -2, 2]],
        &[&[0, 1, 0, 0], &[3, -1, 0, 0]],
    );
    let r = s.lexmin_pw().unwrap();
    assert_eq!(value_at(&r, &[]), Some(vec![n(0)]));
    let r = s.lexmax_pw().unwrap();
    assert_eq!(value_at(&r, &[]), Some(vec![n(2)]));
}

#[test]
fn dependence_style_lexmax() {
    // [N] -> { [i] -> [j] : 0 <= j < i < N }: lexmax j = i - 1 on 1 <= i < N
    let m = map(
        &["N"],
        &["i"],
        &["j"],
        0,
        &[],
        &[&[0, 0, 0, 1], &[-1, 0, 1, -1], &[-1, 1, -1, 0]],
    );
    let r = m.lexmax_pw().unwrap();
    for nn in -2..=5 {
        for i in -2..=6 {
            let expect = (1 <= i && i < nn).then(|| vec![n(i - 1)]);
            assert_eq!(value_at(&r, &[n(nn), n(i)]), expect, "N = {nn}, i = {i}");
        }
    }
    assert_eq!(r.optimum.pieces().len(), 1);
    let g = m.lexmax().unwrap();
    assert!(g.contains_point(&[n(5), n(3), n(2)]).unwrap());
    assert!(!g.contains_point(&[n(5), n(3), n(1)]).unwrap());
}

#[test]
fn huge_constants() {
    // [N] -> { [i] : 2^70 <= i <= N }
    let big = n(2).pow(70);
    let space = Space::set(names(&["N"]), Tuple::new(None, &["i"]));
    let mut b = BasicMap::universe(space);
    b.add_ineq(vec![-&big, n(0), n(1)]);
    b.add_ineq(row(&[0, 1, -1]));
    let s = Set::from_map(Map::from_basic(b)).unwrap();
    let r = s.lexmin_pw().unwrap();
    let above = &big + n(5);
    let below = &big - n(1);
    assert_eq!(
        value_at(&r, std::slice::from_ref(&above)),
        Some(vec![big.clone()])
    );
    assert_eq!(value_at(&r, &[below]), None);
    let m = s.lexmax_pw().unwrap();
    assert_eq!(
        value_at(&m, std::slice::from_ref(&above)),
        Some(vec![above])
    );
}

#[test]
fn union_takes_the_pointwise_minimum() {
    // [N] -> { [i, j] : 5 <= i <= 10 and j = 0 } ∪ { [i, j] : N <= i <= N + 2 and j = 1 }
    let a = set(
        &["N"],
        &["i", "j"],
        0,
        &[&[0, 0, 0, 1]],
        &[&[-5, 0, 1, 0], &[10, 0, -1, 0]],
    );
    let b = set(
        &["N"],
        &["i", "j"],
        0,
        &[&[-1, 0, 0, 1]],
        &[&[0, -1, 1, 0], &[2, 1, -1, 0]],
    );
    let u = a.union(&b).unwrap();
    let min = u.lexmin_pw().unwrap();
    let max = u.lexmax_pw().unwrap();
    for v in 0..=14 {
        let mut pts: Vec<(i64, i64)> = (5..=10).map(|i| (i, 0)).collect();
        pts.extend((v..=v + 2).map(|i| (i, 1)));
        let lo = pts.iter().min().map(|&(i, j)| vec![n(i), n(j)]);
        let hi = pts.iter().max().map(|&(i, j)| vec![n(i), n(j)]);
        assert_eq!(value_at(&min, &[n(v)]), lo, "lexmin at N = {v}");
        assert_eq!(value_at(&max, &[n(v)]), hi, "lexmax at N = {v}");
    }
}

#[test]
fn union_with_an_unbounded_part() {
    // [N] -> { [i] : 0 <= i <= N } ∪ { [i] : i <= -N }: unbounded everywhere the second
    // part is non-empty (always).
    let a = set(&["N"], &["i"], 0, &[], &[&[0, 0, 1], &[0, 1, -1]]);
    let b = set(&["N"], &["i"], 0, &[], &[&[0, -1, -1]]);
    let r = a.union(&b).unwrap().lexmin_pw().unwrap();
    assert!(r.optimum.is_empty(&mut Budget::unlimited()).unwrap());
    assert!(r.unbounded.contains_point(&[n(3)]).unwrap());
    // Its maximum exists: max(N, -N) where N >= 0, -N otherwise.
    let r = a.union(&b).unwrap().lexmax_pw().unwrap();
    for v in -4..=4 {
        assert_eq!(value_at(&r, &[n(v)]), Some(vec![n(v.abs())]), "N = {v}");
    }
}

#[test]
fn dim_min_max_and_point() {
    // [N] -> { [i, j] : 0 <= i <= N and i <= j <= 2i + 1 }
    let s = set(
        &["N"],
        &["i", "j"],
        0,
        &[],
        &[
            &[0, 0, 1, 0],
            &[0, 1, -1, 0],
            &[0, 0, -1, 1],
            &[1, 0, 2, -1],
        ],
    );
    let lo = s.dim_min(1).unwrap();
    let hi = s.dim_max(1).unwrap();
    for v in -2..=5 {
        let expect_lo = (v >= 0).then(|| n(0));
        let expect_hi = (v >= 0).then(|| n(2 * v + 1));
        assert_eq!(lo.eval(&[n(v)]).unwrap(), expect_lo);
        assert_eq!(hi.eval(&[n(v)]).unwrap(), expect_hi);
    }
    assert!(s.dim_min(2).is_err());
    // A set without parameters.
    let t = set(
        &[],
        &["i", "j"],
        0,
        &[],
        &[&[-3, 1, 0], &[7, -1, 0], &[0, -1, 1], &[9, 0, -1]],
    );
    assert_eq!(
        t.lexmin_point().unwrap(),
        Optimum::Bounded(vec![n(3), n(3)])
    );
    let e = set(&[], &["i"], 0, &[&[-1, 2]], &[]);
    assert_eq!(e.lexmin_point().unwrap(), Optimum::Empty);
    assert!(s.lexmin_point().is_err());
}

#[test]
fn cuts_stay_small() {
    // [p] -> { [x, y] : 3p - x - 2y >= 4 and |p|, |x|, |y| <= 5 and
    //                   exists e: p - 2y - 1 = 2e and y >= floor((x + p) / 2) + 1 }:
    // the lexmax needs several Gomory cuts; their slacks must be integral variables for
    // the coefficients to stay small.
    let space = Space::set(names(&["p"]), Tuple::new(None, &["x", "y"]));
    let mut b = BasicMap::universe(space);
    for r in [
        [-4, 3, -1, -2],
        [5, 1, 0, 0],
        [5, -1, 0, 0],
        [5, 0, 1, 0],
        [5, 0, -1, 0],
        [5, 0, 0, 1],
        [5, 0, 0, -1],
    ] {
        b.add_ineq(row(&r));
    }
    let e = b.add_div(None);
    let mut eq = row(&[1, -1, 0, 2, 0]);
    eq[e] = n(-2);
    b.add_eq(eq);
    let q = b.add_known_div(row(&[0, 1, 1, 0, 0]), n(2));
    let mut ge = b.zero_row();
    ge[0] = n(-1);
    ge[3] = n(1);
    ge[q] = n(-1);
    b.add_ineq(ge);
    let s = Set::from_map(Map::from_basic(b)).unwrap();
    let r = s.lexmax_pw_with(&mut Budget::new(2000)).unwrap();
    for p in -6..=6i64 {
        let best = (-5..=5i64)
            .flat_map(|x| (-5..=5i64).map(move |y| (x, y)))
            .filter(|&(x, y)| {
                3 * p - x - 2 * y >= 4
                    && (-5..=5).contains(&p)
                    && (p - 2 * y - 1).rem_euclid(2) == 0
                    && y > (x + p).div_euclid(2)
            })
            .max()
            .map(|(x, y)| vec![n(x), n(y)]);
        assert_eq!(value_at(&r, &[n(p)]), best, "p = {p}");
    }
}

#[test]
fn budget_is_spent() {
    let s = set(
        &["N"],
        &["i", "j"],
        0,
        &[],
        &[&[0, -1, 1, 1], &[0, 0, 1, 0], &[10, 0, -1, 0]],
    );
    assert!(matches!(
        s.lexmin_pw_with(&mut Budget::new(2)),
        Err(Error::LimitExceeded)
    ));
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
}

/// Rows `[c, a_N, a_x, a_y]` of a random constraint set, plus the box.
fn random_rows(rng: &mut Rng, count: usize) -> Vec<[i64; 4]> {
    let mut rows: Vec<[i64; 4]> = (0..count)
        .map(|_| {
            [
                rng.range(-4, 4),
                rng.range(-3, 3),
                rng.range(-3, 3),
                rng.range(-3, 3),
            ]
        })
        .collect();
    for c in 1..4 {
        let mut lo = [5, 0, 0, 0];
        lo[c] = 1;
        let mut hi = [5, 0, 0, 0];
        hi[c] = -1;
        rows.push(lo);
        rows.push(hi);
    }
    rows
}

fn holds(r: &[i64; 4], p: i64, x: i64, y: i64) -> bool {
    r[0] + r[1] * p + r[2] * x + r[3] * y >= 0
}

/// Compares a result with enumeration, for every parameter value in the box.
fn check_against_enumeration(
    r: &LexOptResult,
    r_max: &LexOptResult,
    member: impl Fn(i64, i64, i64) -> bool,
) {
    for p in -6..=6 {
        let pts: Vec<(i64, i64)> = (-5..=5)
            .flat_map(|x| (-5..=5).map(move |y| (x, y)))
            .filter(|&(x, y)| member(p, x, y))
            .collect();
        let lo = pts.iter().min().map(|&(x, y)| vec![n(x), n(y)]);
        let hi = pts.iter().max().map(|&(x, y)| vec![n(x), n(y)]);
        assert_eq!(value_at(r, &[n(p)]), lo, "lexmin at p = {p}");
        assert_eq!(value_at(r_max, &[n(p)]), hi, "lexmax at p = {p}");
    }
}

#[test]
fn random_sets_match_enumeration() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _case in 0..40 {
        let count = rng.range(1, 3) as usize;
        let rows = random_rows(&mut rng, count);
        let refs: Vec<&[i64]> = rows.iter().map(|r| &r[..]).collect();
        let s = set(&["p"], &["x", "y"], 0, &[], &refs);
        let r = s.lexmin_pw().unwrap();
        let m = s.lexmax_pw().unwrap();
        check_against_enumeration(&r, &m, |p, x, y| rows.iter().all(|row| holds(row, p, x, y)));
    }
}

#[test]
fn random_sets_with_existentials_and_divs_match_enumeration() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for _case in 0..25 {
        let rows = random_rows(&mut rng, 1);
        // exists e: a·(p, x, y) + c = k e  (a divisibility constraint)
        let k = rng.range(2, 3);
        let a = [
            rng.range(-2, 2),
            rng.range(-2, 2),
            rng.range(-2, 2),
            rng.range(-2, 2),
        ];
        // y >= floor((x + p) / 2) + t, through a known div.
        let t = rng.range(-3, 1);
        let space = Space::set(names(&["p"]), Tuple::new(None, &["x", "y"]));
        let mut b = BasicMap::universe(space);
        for r in &rows {
            b.add_ineq(row(r));
        }
        let e = b.add_div(None);
        let mut eq = row(&[a[0], a[1], a[2], a[3], 0]);
        eq[e] = n(-k);
        b.add_eq(eq);
        let q = b.add_known_div(row(&[0, 1, 1, 0, 0]), n(2));
        let mut ge = b.zero_row();
        ge[0] = n(-t);
        ge[3] = n(1);
        ge[q] = n(-1);
        b.add_ineq(ge);

        let s = Set::from_map(Map::from_basic(b)).unwrap();
        let r = s.lexmin_pw().unwrap();
        let m = s.lexmax_pw().unwrap();
        check_against_enumeration(&r, &m, |p, x, y| {
            rows.iter().all(|row| holds(row, p, x, y))
                && (a[0] + a[1] * p + a[2] * x + a[3] * y).rem_euclid(k) == 0
                && y >= (x + p).div_euclid(2) + t
        });
    }
}

#[test]
fn random_maps_match_enumeration() {
    // [p] -> { [x] -> [y] : ... }: the domain dimension is a parameter of the PIP.
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for _case in 0..12 {
        let rows = random_rows(&mut rng, 2);
        let refs: Vec<&[i64]> = rows.iter().map(|r| &r[..]).collect();
        let m = map(&["p"], &["x"], &["y"], 0, &[], &refs);
        let lo = m.lexmin_pw().unwrap();
        let hi = m.lexmax_pw().unwrap();
        for p in -6..=6 {
            for x in -6..=6 {
                let ys: Vec<i64> = (-5..=5)
                    .filter(|&y| rows.iter().all(|r| holds(r, p, x, y)))
                    .collect();
                let pt = [n(p), n(x)];
                assert_eq!(value_at(&lo, &pt), ys.iter().min().map(|&y| vec![n(y)]));
                assert_eq!(value_at(&hi, &pt), ys.iter().max().map(|&y| vec![n(y)]));
            }
        }
    }
}

#[test]
fn random_unbounded_directions_match_enumeration() {
    // p and x boxed by 5, y only bounded above by 5: constraints with coefficients ≤ 3 and
    // constants ≤ 4 bound y (if at all) within [-34, 34], so a slice reaching y = -70 is
    // unbounded below.
    let mut rng = Rng(0x0F1E_2D3C_4B5A_6978);
    for _case in 0..40 {
        let count = rng.range(1, 3) as usize;
        let mut rows = random_rows(&mut rng, count);
        rows.retain(|r| *r != [5, 0, 0, 1]);
        let refs: Vec<&[i64]> = rows.iter().map(|r| &r[..]).collect();
        let s = set(&["p"], &["x", "y"], 0, &[], &refs);
        let lo = s.lexmin_pw().unwrap();
        let hi = s.lexmax_pw().unwrap();
        for p in -6..=6 {
            let pts: Vec<(i64, i64)> = (-5..=5)
                .flat_map(|x| (-70..=5).map(move |y| (x, y)))
                .filter(|&(x, y)| rows.iter().all(|r| holds(r, p, x, y)))
                .collect();
            let pt = [n(p)];
            let unbounded = lo.unbounded.contains_point(&pt).unwrap();
            match pts.iter().min() {
                None => {
                    assert!(lo.empty.contains_point(&pt).unwrap());
                    assert!(!unbounded);
                    assert_eq!(lo.optimum.eval(&pt).unwrap(), None);
                }
                Some(&(x, -70)) => {
                    assert!(unbounded, "p = {p}: expected unbounded");
                    assert!(!lo.empty.contains_point(&pt).unwrap());
                    assert_eq!(lo.optimum.eval(&pt).unwrap(), None, "x = {x}");
                }
                Some(&(x, y)) => {
                    assert!(!unbounded, "p = {p}: unexpectedly unbounded");
                    assert_eq!(value_at(&lo, &pt), Some(vec![n(x), n(y)]), "p = {p}");
                }
            }
            let top = pts.iter().max().map(|&(x, y)| vec![n(x), n(y)]);
            assert_eq!(value_at(&hi, &pt), top, "lexmax at p = {p}");
        }
    }
}

#[test]
fn random_unions_match_enumeration() {
    let mut rng = Rng(0x5851_F42D_4C95_7F2D);
    for _case in 0..30 {
        let parts: Vec<Vec<[i64; 4]>> = (0..2)
            .map(|_| {
                let count = rng.range(1, 2) as usize;
                random_rows(&mut rng, count)
            })
            .collect();
        let sets: Vec<Set> = parts
            .iter()
            .map(|rows| {
                let refs: Vec<&[i64]> = rows.iter().map(|r| &r[..]).collect();
                set(&["p"], &["x", "y"], 0, &[], &refs)
            })
            .collect();
        let u = sets[0].union(&sets[1]).unwrap();
        let r = u.lexmin_pw().unwrap();
        let m = u.lexmax_pw().unwrap();
        check_against_enumeration(&r, &m, |p, x, y| {
            parts
                .iter()
                .any(|rows| rows.iter().all(|row| holds(row, p, x, y)))
        });
    }
}

#[test]
fn random_maps_with_context_divs_match_enumeration() {
    // [p] -> { [x] -> [y] : rows and y >= floor((p + x) / 3) + t and
    //                       exists e: y + c·x = k·e }
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _case in 0..10 {
        let rows = random_rows(&mut rng, 1);
        let t = rng.range(-3, 1);
        let c = rng.range(-2, 2);
        let k = rng.range(2, 3);
        let space = Space::map(
            names(&["p"]),
            Tuple::new(None, &["x"]),
            Tuple::new(None, &["y"]),
        );
        let mut b = BasicMap::universe(space);
        for r in &rows {
            b.add_ineq(row(r));
        }
        let q = b.add_known_div(row(&[0, 1, 1, 0]), n(3));
        let mut ge = b.zero_row();
        ge[0] = n(-t);
        ge[3] = n(1);
        ge[q] = n(-1);
        b.add_ineq(ge);
        let e = b.add_div(None);
        let mut eq = b.zero_row();
        eq[3] = n(1);
        eq[2] = n(c);
        eq[e] = n(-k);
        b.add_eq(eq);
        let m = Map::from_basic(b);
        let lo = m.lexmin_pw().unwrap();
        let hi = m.lexmax_pw().unwrap();
        for p in -6..=6 {
            for x in -6..=6 {
                let ys: Vec<i64> = (-5..=5)
                    .filter(|&y| {
                        rows.iter().all(|r| holds(r, p, x, y))
                            && y >= (p + x).div_euclid(3) + t
                            && (y + c * x).rem_euclid(k) == 0
                    })
                    .collect();
                let pt = [n(p), n(x)];
                assert_eq!(value_at(&lo, &pt), ys.iter().min().map(|&y| vec![n(y)]));
                assert_eq!(value_at(&hi, &pt), ys.iter().max().map(|&y| vec![n(y)]));
            }
        }
    }
}

#[test]
fn printed_results_parse_back_to_their_graph() {
    let sets = [
        set(&["N"], &["i"], 1, &[&[0, 0, 1, -3]], &[&[0, -1, 1, 0]]),
        set(
            &["N"],
            &["i", "j"],
            0,
            &[],
            &[
                &[0, -1, 1, 1],
                &[0, 0, 1, 0],
                &[10, 0, -1, 0],
                &[0, 0, 0, 1],
                &[10, 0, 0, -1],
            ],
        ),
    ];
    for s in &sets {
        for r in [s.lexmin_pw().unwrap(), s.lexmax_pw().unwrap()] {
            let text = r.optimum.to_string();
            let parsed = crate::text::parse_set(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let graph = r.optimum.to_map();
            for v in -4..=14 {
                for i in -4..=14 {
                    let mut p = vec![n(v), n(i)];
                    if s.n_dims() == 2 {
                        p.push(n(10 - i.min(10)));
                    }
                    assert_eq!(
                        parsed.contains_point(&p).unwrap(),
                        graph.contains_point(&p).unwrap(),
                        "{text} at {p:?}"
                    );
                }
            }
        }
    }
    let m = map(&[], &["i"], &["j"], 0, &[], &[&[0, -1, 2]]);
    let r = m.lexmin_pw().unwrap();
    let text = r.optimum.to_string();
    let parsed = crate::text::parse_map(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    for i in -5..=5 {
        for j in -5..=5 {
            let p = [n(i), n(j)];
            assert_eq!(
                parsed.contains_point(&p).unwrap(),
                r.optimum.to_map().contains_point(&p).unwrap(),
                "{text}"
            );
        }
    }
    assert_eq!(
        sets[0].lexmax_pw().unwrap().optimum.to_string(),
        "[N] -> { [i] : false }"
    );
}

/// Checks `lexmin`/`lexmax` of a text input against the expected graph, empty domain and
/// unbounded domain, all compared as sets.
fn check_text(input: &str, max: bool, graph: &str, empty: &str, unbounded: &str) {
    let m = crate::text::parse_map(input).unwrap_or_else(|e| panic!("{input}: {e}"));
    let r = if max { m.lexmax_pw() } else { m.lexmin_pw() }.unwrap();
    let same = |got: &Map, want: &str| {
        let want = crate::text::parse_map(want).unwrap_or_else(|e| panic!("{want}: {e}"));
        assert!(
            got.is_equal(&want).unwrap(),
            "{input} (max: {max}): got {got}, expected {want}"
        );
    };
    same(&r.optimum.to_map(), graph);
    same(r.empty.as_map(), empty);
    same(r.unbounded.as_map(), unbounded);
}

#[test]
fn text_table() {
    check_text(
        "[N] -> { [i] : 0 <= i <= N }",
        false,
        "[N] -> { [0] : N >= 0 }",
        "[N] -> { : N < 0 }",
        "[N] -> { : false }",
    );
    check_text(
        "[N] -> { [i] : 0 <= i <= N }",
        true,
        "[N] -> { [N] : N >= 0 }",
        "[N] -> { : N < 0 }",
        "[N] -> { : false }",
    );
    check_text(
        "[N] -> { [i] : exists e: i = 3e and i >= N }",
        false,
        "[N] -> { [i] : exists e: i = 3e and N <= i <= N + 2 }",
        "[N] -> { : false }",
        "[N] -> { : false }",
    );
    check_text(
        "{ [i] -> [j] : 2j >= i }",
        false,
        "{ [i] -> [j] : i <= 2j <= i + 1 }",
        "{ [i] : false }",
        "{ [i] : false }",
    );
    check_text(
        "[N] -> { [i] -> [j] : 0 <= j < i < N }",
        true,
        "[N] -> { [i] -> [i - 1] : 1 <= i < N }",
        "[N] -> { [i] : i <= 0 or i >= N }",
        "[N] -> { [i] : false }",
    );
    check_text(
        "{ [i] : i <= 5 }",
        false,
        "{ [i] : false }",
        "{ : false }",
        "{ : }",
    );
    check_text(
        "[N] -> { [i, j] : i + j >= N and 0 <= i <= 10 and 0 <= j <= 10 }",
        false,
        "[N] -> { [0, 0] : N <= 0; [0, N] : 0 < N <= 10; [N - 10, 10] : 10 < N <= 20 }",
        "[N] -> { : N > 20 }",
        "[N] -> { : false }",
    );
    check_text(
        "{ [i] : 1180591620717411303424 <= i <= 1180591620717411303430 and i mod 4 = 1 }",
        false,
        "{ [1180591620717411303425] }",
        "{ : false }",
        "{ : false }",
    );
}

/// Checks the optimum of a text input against the expected graph (compared as sets), its
/// number of pieces and, when given, its printed form.
fn check_simplified(input: &str, max: bool, graph: &str, n_pieces: usize, printed: Option<&str>) {
    let m = crate::text::parse_map(input).unwrap_or_else(|e| panic!("{input}: {e}"));
    let r = if max { m.lexmax_pw() } else { m.lexmin_pw() }.unwrap();
    let want = crate::text::parse_map(graph).unwrap_or_else(|e| panic!("{graph}: {e}"));
    let got = r.optimum.to_map();
    assert!(
        got.is_equal(&want).unwrap(),
        "{input} (max: {max}): got {got}, expected {want}"
    );
    assert_eq!(
        r.optimum.pieces().len(),
        n_pieces,
        "{input} (max: {max}): {}",
        r.optimum
    );
    if let Some(p) = printed {
        assert_eq!(r.optimum.to_string(), p, "{input} (max: {max})");
    }
}

#[test]
fn simplified_forms() {
    // The pieces `N` (N ≡ 0 mod 3) and `3N - 3 floor(2N/3)` merge into one function.
    check_simplified(
        "[N] -> { [i] : exists e: i = 3e and i >= N }",
        false,
        "[N] -> { [i] : exists e: i = 3e and N <= i <= N + 2 }",
        1,
        Some("[N] -> { [(-3*floor((-N)/3))] }"),
    );
    // A nested division is flattened: floor((floor(x/m) + r)/n) = floor((x + m r)/(m n)).
    check_simplified(
        "[N] -> { [i] : exists e: 4i = 3e + 1 and i >= N }",
        false,
        "[N] -> { [i] : exists e: 4i = 3e + 1 and N <= i <= N + 2 }",
        1,
        Some("[N] -> { [(-3*floor((-N + 1)/3) + 1)] }"),
    );
    check_simplified(
        "{ [i] -> [j] : exists e: j = 3e and 4j >= 3i + 1 }",
        false,
        "{ [i] -> [j] : exists e: j = 3e and 3i + 1 <= 4j and 4j <= 3i + 12 }",
        1,
        None,
    );
    check_simplified(
        "[N, M] -> { [i, j] : exists e: i = 2e and i >= N and j >= M - i and j >= 0 }",
        false,
        "[N, M] -> { [i, j] : exists e: i = 2e and N <= i <= N + 1 and j >= 0 and j >= M - i \
         and (j = 0 or j = M - i) }",
        2,
        None,
    );
    // Pieces of a union with the same optimum are merged and coalesced.
    check_simplified(
        "[N] -> { [i] : 0 <= i <= N; [i] : 0 <= i <= 2N + 5 }",
        false,
        "[N] -> { [0] : N >= -2 }",
        1,
        Some("[N] -> { [(0)] : N >= -2 }"),
    );
}

#[test]
fn reduced_divs_keep_the_value() {
    // floor(2N/3) → N + floor(-N/3); floor((floor(N/2) + 1)/3) → floor((N + 2)/6);
    // floor(-floor(N/2)/3) → floor((-N + 1)/6); a constant div disappears.
    let space = Space::params(names(&["N"]));
    let div = |num: &[i64], den: i64| DivDef {
        num: row(num),
        den: n(den),
    };
    let cases: Vec<(Vec<DivDef>, Vec<i64>)> = vec![
        (vec![div(&[0, 2, 0], 3)], vec![0, 3, -3]),
        (
            vec![div(&[0, 1, 0, 0], 2), div(&[1, 0, 1, 0], 3)],
            vec![0, 0, 0, 1],
        ),
        (
            vec![div(&[0, 1, 0, 0], 2), div(&[0, 0, -1, 0], 3)],
            vec![1, 0, 0, 2],
        ),
        (vec![div(&[7, 0, 0], 3)], vec![0, 1, 5]),
        (vec![div(&[0, 4, 0], 2)], vec![0, 0, 1]),
    ];
    for (divs, num) in cases {
        let a = Aff::from_parts(space.clone(), divs, row(&num), n(1)).unwrap();
        let r = a.clone().reduce_divs();
        assert!(r.n_div() <= a.n_div(), "{a} -> {r}");
        for v in -20..=20 {
            assert_eq!(a.eval(&[n(v)]), r.eval(&[n(v)]), "{a} -> {r} at {v}");
        }
        for d in r.divs() {
            let nd = r.n_dims();
            assert!(
                d.num[1 + nd..]
                    .iter()
                    .all(|c| !c.is_one() && !(-c).is_one())
                    || d.den.is_one(),
                "{r}"
            );
        }
    }
}
