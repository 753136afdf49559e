//! Tests of the solver-backed set algebra: brute-force oracle checks on random small
//! sets (parameters fixed by enumeration, points in a box) and table tests of the
//! classic hard cases.

use pollen_arith::Int;

use crate::bmap::{BasicMap, DivDef};
use crate::error::{Budget, Error, Result};
use crate::map::Map;
use crate::set::Set;
use crate::space::{Space, Tuple};
use crate::union::UnionSet;

// ----- construction helpers -----

fn space(np: usize, nd: usize) -> Space {
    Space::set(
        (0..np).map(|i| format!("p{i}")).collect(),
        Tuple::anonymous(nd),
    )
}

fn ints(r: &[i64]) -> Vec<Int> {
    r.iter().map(|&v| Int::from(v)).collect()
}

/// A basic set over `[const | params | dims | locals]`; a local is `None`
/// (existential) or `Some((num, den))`.
fn bset(
    np: usize,
    nd: usize,
    divs: &[Option<(&[i64], i64)>],
    eqs: &[&[i64]],
    ineqs: &[&[i64]],
) -> BasicMap {
    let n = 1 + np + nd + divs.len();
    let divs = divs
        .iter()
        .map(|d| {
            d.map(|(num, den)| {
                let mut num = ints(num);
                num.resize(n, Int::zero());
                DivDef {
                    num,
                    den: Int::from(den),
                }
            })
        })
        .collect();
    BasicMap::from_parts(
        space(np, nd),
        divs,
        eqs.iter().map(|r| ints(r)).collect(),
        ineqs.iter().map(|r| ints(r)).collect(),
    )
    .expect("well-formed test set")
}

fn set_of(parts: Vec<BasicMap>) -> Set {
    let sp = parts[0].space().clone();
    Set::from_map(Map::from_parts(sp, parts).unwrap()).unwrap()
}

// ----- brute-force evaluation -----

/// Bound on the existentials of generated sets (they carry `-E ≤ e ≤ E` explicitly).
const E: i64 = 4;

/// A basic map compiled to machine integers for fast evaluation.
struct Compiled {
    width: usize,
    divs: Vec<Option<(Vec<i64>, i64)>>,
    eqs: Vec<Vec<i64>>,
    ineqs: Vec<Vec<i64>>,
}

fn small(v: &Int) -> i64 {
    v.to_i64().expect("small test coefficient")
}

impl Compiled {
    fn new(b: &BasicMap) -> Compiled {
        let row = |r: &Vec<Int>| r.iter().map(small).collect::<Vec<i64>>();
        Compiled {
            width: b.n_cols(),
            divs: b
                .divs()
                .iter()
                .map(|d| d.as_ref().map(|d| (row(&d.num), small(&d.den))))
                .collect(),
            eqs: b.eqs().iter().map(row).collect(),
            ineqs: b.ineqs().iter().map(row).collect(),
        }
    }

    /// Whether the point belongs; existentials range over `[-E, E]`.
    fn contains(&self, point: &[i64]) -> bool {
        let mut vals = Vec::with_capacity(self.width);
        vals.push(1);
        vals.extend_from_slice(point);
        self.search(&mut vals)
    }

    fn search(&self, vals: &mut Vec<i64>) -> bool {
        let k = vals.len() - 1 - (self.width - 1 - self.divs.len());
        if k == self.divs.len() {
            let dot = |r: &Vec<i64>| r.iter().zip(vals.iter()).map(|(a, b)| a * b).sum::<i64>();
            return self.eqs.iter().all(|r| dot(r) == 0) && self.ineqs.iter().all(|r| dot(r) >= 0);
        }
        match &self.divs[k] {
            Some((num, den)) => {
                let v: i64 = num.iter().zip(vals.iter()).map(|(a, b)| a * b).sum();
                vals.push(v.div_euclid(*den));
                let r = self.search(vals);
                vals.pop();
                r
            }
            None => {
                for e in -E..=E {
                    vals.push(e);
                    let r = self.search(vals);
                    vals.pop();
                    if r {
                        return true;
                    }
                }
                false
            }
        }
    }
}

/// Membership in a library result: direct evaluation for parts whose locals are all
/// known, the solver otherwise.
fn map_contains(m: &Map, point: &[i64]) -> bool {
    m.basic_maps().iter().any(|b| {
        if b.has_existentials() {
            let p = ints(point);
            b.contains_point(&p, &mut Budget::unlimited()).unwrap()
        } else {
            Compiled::new(b).contains(point)
        }
    })
}

fn raw_contains(parts: &[BasicMap], point: &[i64]) -> bool {
    parts.iter().any(|b| Compiled::new(b).contains(point))
}

/// Every point: parameters in `[-2, 2]`, dimensions in `[-6, 6]`.
fn points(np: usize, nd: usize) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for i in 0..np + nd {
        let r = if i < np { 2 } else { 6 };
        out = out
            .into_iter()
            .flat_map(|p| {
                (-r..=r).map(move |v| {
                    let mut q = p.clone();
                    q.push(v);
                    q
                })
            })
            .collect();
    }
    out
}

// ----- random sets -----

/// Number of random cases: `default`, times `POLLEN_STRESS` when that variable is set
/// (for longer runs by hand).
fn cases(default: usize) -> usize {
    let factor = std::env::var("POLLEN_STRESS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1);
    default * factor
}

/// Seed of a random test, shifted by `POLLEN_SEED` when set.
fn seed(base: u64) -> u64 {
    let shift = std::env::var("POLLEN_SEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    base ^ shift.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

struct Shape {
    np: usize,
    nd: usize,
}

fn random_shape(rng: &mut Rng) -> Shape {
    let np = rng.range(0, 2) as usize;
    let nd = rng.range(1, 3 - np as i64) as usize;
    Shape { np, nd }
}

/// A random basic set: `n_known` known divs, `n_ex` existentials bounded by `E`,
/// a few random constraints with coefficients in `[-3, 3]`; with `boxed`, the
/// parameters lie in `[-2, 2]` and the dimensions in `[-6, 6]`.
fn random_bset(rng: &mut Rng, s: &Shape, n_known: usize, n_ex: usize, boxed: bool) -> BasicMap {
    let nv = s.np + s.nd;
    let mut b = BasicMap::universe(space(s.np, s.nd));
    let mut kinds: Vec<bool> = (0..n_known)
        .map(|_| true)
        .chain((0..n_ex).map(|_| false))
        .collect();
    for i in (1..kinds.len()).rev() {
        let j = rng.range(0, i as i64) as usize;
        kinds.swap(i, j);
    }
    for known in kinds {
        if known {
            let n = b.n_cols();
            let mut num = vec![Int::zero(); n];
            num[0] = Int::from(rng.range(-3, 3));
            for c in num.iter_mut().take(n).skip(1) {
                if rng.chance(60) {
                    *c = Int::from(rng.range(-3, 3));
                }
            }
            b.add_div(Some(DivDef {
                num,
                den: Int::from(rng.range(2, 4)),
            }));
        } else {
            let col = b.add_div(None);
            let mut lo = b.zero_row();
            lo[0] = Int::from(E);
            lo[col] = Int::one();
            let mut hi = b.zero_row();
            hi[0] = Int::from(E);
            hi[col] = -Int::one();
            b.add_ineq(lo);
            b.add_ineq(hi);
        }
    }
    let n_cons = rng.range(1, 3);
    for _ in 0..n_cons {
        let mut row = b.zero_row();
        row[0] = Int::from(rng.range(-6, 6));
        for c in row.iter_mut().skip(1) {
            if rng.chance(50) {
                *c = Int::from(rng.range(-3, 3));
            }
        }
        if rng.chance(20) {
            b.add_eq(row);
        } else {
            b.add_ineq(row);
        }
    }
    if boxed {
        for i in 0..nv {
            let r = if i < s.np { 2 } else { 6 };
            let mut lo = b.zero_row();
            lo[0] = Int::from(r);
            lo[1 + i] = Int::one();
            let mut hi = b.zero_row();
            hi[0] = Int::from(r);
            hi[1 + i] = -Int::one();
            b.add_ineq(lo);
            b.add_ineq(hi);
        }
    }
    b
}

fn random_parts(rng: &mut Rng, s: &Shape, max_parts: i64, ex: bool, boxed: bool) -> Vec<BasicMap> {
    (0..rng.range(1, max_parts))
        .map(|_| {
            let n_known = rng.range(0, 1) as usize;
            let n_ex = if ex { rng.range(0, 2) as usize } else { 0 };
            random_bset(rng, s, n_known, n_ex, boxed)
        })
        .collect()
}

fn map_of(s: &Shape, parts: &[BasicMap]) -> Map {
    Map::from_parts(space(s.np, s.nd), parts.to_vec()).unwrap()
}

// ----- property tests against the oracle -----

/// Budget of one random case. Cases that run out are skipped and counted: the
/// operations are exact whenever they answer, and random sets with several interacting
/// existentials can be expensive.
const CASE_BUDGET: u64 = 2_000_000;

/// Runs `cases` random cases of `body`, skipping those that run out of budget; at most
/// a fifth may be skipped.
fn run_cases(
    name: &str,
    base_seed: u64,
    n: usize,
    mut body: impl FnMut(&mut Rng, usize, &mut Budget) -> Result<()>,
) {
    let mut rng = Rng(seed(base_seed));
    let total = cases(n);
    let mut skipped = 0;
    for case in 0..total {
        let mut budget = Budget::new(CASE_BUDGET);
        match body(&mut rng, case, &mut budget) {
            Ok(()) => {}
            Err(Error::LimitExceeded) => skipped += 1,
            Err(e) => panic!("{name} case {case}: {e}"),
        }
    }
    if skipped > 0 {
        eprintln!("{name}: {skipped} of {total} cases skipped (budget)");
    }
    assert!(
        skipped * 5 <= total,
        "{name}: {skipped} of {total} cases ran out of budget"
    );
}

#[test]
fn compute_divs_keeps_points() {
    run_cases(
        "compute_divs",
        0x9e37_79b9_7f4a_7c15,
        60,
        |rng, case, budget| {
            let s = random_shape(rng);
            let (n_known, n_ex) = (rng.range(0, 1) as usize, rng.range(1, 2) as usize);
            let b = random_bset(rng, &s, n_known, n_ex, false);
            let pieces = b.compute_divs(budget)?;
            assert!(pieces.iter().all(|p| !p.has_existentials()), "case {case}");
            let m = map_of(&s, &pieces);
            for p in points(s.np, s.nd) {
                assert_eq!(
                    map_contains(&m, &p),
                    raw_contains(std::slice::from_ref(&b), &p),
                    "case {case} at {p:?}: {b:?} -> {pieces:?}"
                );
            }
            Ok(())
        },
    );
}

#[test]
fn subtract_and_complement_match_oracle() {
    run_cases(
        "subtract",
        0x1234_5678_9abc_def1,
        40,
        |rng, case, budget| {
            let s = random_shape(rng);
            let a = random_parts(rng, &s, 2, false, false);
            let b = random_parts(rng, &s, 2, true, false);
            let (ma, mb) = (map_of(&s, &a), map_of(&s, &b));
            let diff = ma.subtract_with(&mb, budget)?;
            let comp = mb.complement_with(budget)?;
            for p in points(s.np, s.nd) {
                let (in_a, in_b) = (raw_contains(&a, &p), raw_contains(&b, &p));
                assert_eq!(
                    map_contains(&diff, &p),
                    in_a && !in_b,
                    "subtract case {case} at {p:?}"
                );
                assert_eq!(
                    map_contains(&comp, &p),
                    !in_b,
                    "complement case {case} at {p:?}"
                );
            }
            Ok(())
        },
    );
}

#[test]
fn subset_and_equality_match_oracle() {
    run_cases("subset", 0x0dd_ba11_cafe_f00d, 40, |rng, case, budget| {
        let s = random_shape(rng);
        let b = random_parts(rng, &s, 2, true, true);
        let a = if rng.chance(50) {
            // A subset of B by construction (B intersected with a random set).
            let c = random_parts(rng, &s, 1, false, true);
            b.iter().map(|x| x.intersect(&c[0])).collect()
        } else {
            random_parts(rng, &s, 2, true, true)
        };
        let (ma, mb) = (map_of(&s, &a), map_of(&s, &b));
        let pts = points(s.np, s.nd);
        let a_in_b = pts
            .iter()
            .all(|p| !raw_contains(&a, p) || raw_contains(&b, p));
        let b_in_a = pts
            .iter()
            .all(|p| !raw_contains(&b, p) || raw_contains(&a, p));
        assert_eq!(
            ma.is_subset_with(&mb, budget)?,
            a_in_b,
            "subset case {case}"
        );
        assert_eq!(
            ma.is_equal_with(&mb, budget)?,
            a_in_b && b_in_a,
            "equal case {case}"
        );
        assert_eq!(
            ma.is_strict_subset_with(&mb, budget)?,
            a_in_b && !b_in_a,
            "strict case {case}"
        );
        let disjoint = pts
            .iter()
            .all(|p| !raw_contains(&a, p) || !raw_contains(&b, p));
        assert_eq!(
            ma.is_disjoint_with(&mb, budget)?,
            disjoint,
            "disjoint case {case}"
        );
        Ok(())
    });
}

/// Pieces of a random set cut by random hyperplanes, so that coalescing has work.
fn pieces_of(rng: &mut Rng, s: &Shape) -> Vec<BasicMap> {
    let n_known = rng.range(0, 1) as usize;
    let base = random_bset(rng, s, n_known, 0, true);
    let mut parts = vec![base];
    for _ in 0..rng.range(1, 2) {
        let mut cut = parts[0].zero_row();
        cut[0] = Int::from(rng.range(-3, 3));
        for c in cut.iter_mut().skip(1).take(s.np + s.nd) {
            *c = Int::from(rng.range(-2, 2));
        }
        let mut next = Vec::new();
        for p in parts {
            let mut lo = p.clone();
            let mut r = cut.clone();
            r.resize(p.n_cols(), Int::zero());
            lo.add_ineq(r.clone());
            let mut hi = p;
            hi.add_ineq(super::negate(&r));
            next.push(lo);
            next.push(hi);
        }
        parts = next;
    }
    if rng.chance(50) {
        parts.push(random_bset(rng, s, 0, 0, true));
    }
    parts
}

#[test]
fn coalesce_keeps_points_and_never_grows() {
    run_cases(
        "coalesce",
        0xfeed_beef_0123_4567,
        40,
        |rng, case, budget| {
            let s = random_shape(rng);
            let parts = pieces_of(rng, &s);
            let m = map_of(&s, &parts);
            let c = m.coalesce_with(budget)?;
            assert!(c.basic_maps().len() <= m.basic_maps().len(), "case {case}");
            for p in points(s.np, s.nd) {
                assert_eq!(
                    map_contains(&c, &p),
                    raw_contains(&parts, &p),
                    "case {case} at {p:?}"
                );
            }
            Ok(())
        },
    );
}

#[test]
fn gist_agrees_on_context() {
    run_cases("gist", 0x5151_2323_7777_abcd, 40, |rng, case, budget| {
        let s = random_shape(rng);
        let a = random_parts(rng, &s, 2, false, false);
        let c = random_parts(rng, &s, 2, false, false);
        let (ma, mc) = (map_of(&s, &a), map_of(&s, &c));
        let g = ma.gist_with(&mc, budget)?;
        let simplified = ma.simplify_with(budget)?;
        for p in points(s.np, s.nd) {
            let in_c = raw_contains(&c, &p);
            let in_a = raw_contains(&a, &p);
            if in_c {
                assert_eq!(map_contains(&g, &p), in_a, "gist case {case} at {p:?}");
            }
            assert_eq!(
                map_contains(&simplified, &p),
                in_a,
                "simplify case {case} at {p:?}"
            );
        }
        Ok(())
    });
}

#[test]
fn hulls_contain_the_set() {
    run_cases("hull", 0x0123_4567_89ab_cdef, 30, |rng, case, budget| {
        let s = random_shape(rng);
        let boxed = rng.chance(70);
        let parts = random_parts(rng, &s, 3, false, boxed);
        let set = Set::from_map(map_of(&s, &parts)).unwrap();
        let hull = Map::from_basic(set.simple_hull_with(budget)?.into_basic_map());
        let boxed = Map::from_basic(set.box_hull_with(budget)?.into_basic_map());
        for p in points(s.np, s.nd) {
            if raw_contains(&parts, &p) {
                assert!(
                    map_contains(&hull, &p),
                    "simple hull case {case} misses {p:?}"
                );
                assert!(
                    map_contains(&boxed, &p),
                    "box hull case {case} misses {p:?}"
                );
            }
        }
        Ok(())
    });
}

// ----- table tests -----

fn check_points(m: &Map, range: std::ops::RangeInclusive<i64>, expect: impl Fn(i64) -> bool) {
    for i in range {
        assert_eq!(map_contains(m, &[i]), expect(i), "at {i}");
    }
}

#[test]
fn multiples_of_three_minus_multiples_of_six() {
    let three = bset(0, 1, &[None], &[&[0, 1, -3]], &[]);
    let six = bset(0, 1, &[None], &[&[0, 1, -6]], &[]);
    let odd_multiples = bset(0, 1, &[None], &[&[-3, 1, -6]], &[]);
    let diff = set_of(vec![three]).subtract(&set_of(vec![six])).unwrap();
    let expect = set_of(vec![odd_multiples]);
    assert!(diff.is_equal(&expect).unwrap());
    check_points(diff.as_map(), -30..=30, |i| i.rem_euclid(6) == 3);
}

#[test]
fn complement_of_periodic_band() {
    // { [i] : exists e: 0 <= i - 5e <= 1 }
    let band = bset(0, 1, &[None], &[], &[&[0, 1, -5], &[1, -1, 5]]);
    let comp = set_of(vec![band.clone()]).complement().unwrap();
    check_points(comp.as_map(), -30..=30, |i| i.rem_euclid(5) >= 2);
    let back = comp.complement().unwrap();
    assert!(back.is_equal(&set_of(vec![band])).unwrap());
}

#[test]
fn lattice_with_two_dimensions() {
    // { [i, j] : exists e : i = 2e + j and 0 <= i, j <= 10 }  = i - j even.
    let b = bset(
        0,
        2,
        &[None],
        &[&[0, 1, -1, -2]],
        &[
            &[0, 1, 0, 0],
            &[10, -1, 0, 0],
            &[0, 0, 1, 0],
            &[10, 0, -1, 0],
        ],
    );
    let pieces = b.compute_divs(&mut Budget::unlimited()).unwrap();
    let m = Map::from_parts(space(0, 2), pieces).unwrap();
    for i in -2..=12 {
        for j in -2..=12 {
            let expect = (0..=10).contains(&i) && (0..=10).contains(&j) && (i - j) % 2 == 0;
            assert_eq!(map_contains(&m, &[i, j]), expect, "at {i}, {j}");
        }
    }
    let square = bset(
        0,
        2,
        &[],
        &[],
        &[&[0, 1, 0], &[10, -1, 0], &[0, 0, 1], &[10, 0, -1]],
    );
    let rest = set_of(vec![square]).subtract(&set_of(vec![b])).unwrap();
    for i in 0..=10 {
        for j in 0..=10 {
            assert_eq!(map_contains(rest.as_map(), &[i, j]), (i - j) % 2 != 0);
        }
    }
}

#[test]
fn rationally_nonempty_integer_empty() {
    // 27 <= 11x + 13y <= 45 and -10 <= 7x - 9y <= 4 has rational but no integer points.
    let hole = bset(
        0,
        2,
        &[],
        &[],
        &[&[-27, 11, 13], &[45, -11, -13], &[10, 7, -9], &[4, -7, 9]],
    );
    let hole = set_of(vec![hole]);
    assert!(hole.is_empty().unwrap());
    let square = set_of(vec![bset(
        0,
        2,
        &[],
        &[],
        &[&[5, 1, 0], &[5, -1, 0], &[5, 0, 1], &[5, 0, -1]],
    )]);
    assert!(hole.is_subset(&square).unwrap());
    assert!(square.subtract(&hole).unwrap().is_equal(&square).unwrap());
    assert!(hole.coalesce().unwrap().as_map().basic_maps().is_empty());
    assert!(hole.is_bounded().unwrap());
    assert!(
        square
            .union(&hole)
            .unwrap()
            .coalesce()
            .unwrap()
            .as_map()
            .basic_maps()
            .len()
            == 1
    );
}

#[test]
fn subtract_with_parameters() {
    // [N] -> { [i] : 0 <= i < N } minus [N] -> { [i] : 1 <= i <= N } = [N] -> { [0] : N >= 1 }
    let a = bset(1, 1, &[], &[], &[&[0, 0, 1], &[-1, 1, -1]]);
    let b = bset(1, 1, &[], &[], &[&[-1, 0, 1], &[0, 1, -1]]);
    let expect = bset(1, 1, &[], &[&[0, 0, 1]], &[&[-1, 1, 0]]);
    let diff = set_of(vec![a]).subtract(&set_of(vec![b])).unwrap();
    assert!(diff.is_equal(&set_of(vec![expect])).unwrap());
}

#[test]
fn huge_coefficients() {
    let big = Int::from(1i128 << 70);
    let sp = space(0, 1);
    let mk = |lo: i64| {
        BasicMap::from_parts(
            sp.clone(),
            vec![],
            vec![],
            vec![ints(&[-lo, 1]), vec![big.clone(), -Int::one()]],
        )
        .unwrap()
    };
    let diff = set_of(vec![mk(0)]).subtract(&set_of(vec![mk(1)])).unwrap();
    let zero = set_of(vec![bset(0, 1, &[], &[&[0, 1]], &[])]);
    assert!(diff.is_equal(&zero).unwrap());
    assert!(set_of(vec![mk(0)]).is_bounded().unwrap());
    let hull = set_of(vec![mk(0), mk(1)]).simple_hull().unwrap();
    assert!(Set::from(hull).is_equal(&set_of(vec![mk(0)])).unwrap());
}

#[test]
fn boundedness_and_finiteness() {
    // [N] -> { [i] : 0 <= i <= N }: bounded, not finite.
    let tri = set_of(vec![bset(1, 1, &[], &[], &[&[0, 0, 1], &[0, 1, -1]])]);
    assert!(tri.is_bounded().unwrap());
    assert!(!tri.is_finite().unwrap());
    // [N] -> { [i] : 0 <= i <= 5 }: finite.
    let fixed = set_of(vec![bset(1, 1, &[], &[], &[&[0, 0, 1], &[5, 0, -1]])]);
    assert!(fixed.is_finite().unwrap());
    // { [i, j] : i >= 0, j = 2i }: unbounded.
    let ray = set_of(vec![bset(0, 2, &[], &[&[0, 2, -1]], &[&[0, 1, 0]])]);
    assert!(!ray.is_bounded().unwrap());
    assert!(set_of(vec![bset(0, 1, &[], &[], &[])]).plain_is_universe());
}

#[test]
fn single_valued_and_injective() {
    let sp = Space::map(vec![], Tuple::anonymous(1), Tuple::anonymous(1));
    let mk = |eqs: Vec<Vec<Int>>, ineqs: Vec<Vec<Int>>| {
        Map::from_basic(BasicMap::from_parts(sp.clone(), vec![], eqs, ineqs).unwrap())
    };
    // { [i] -> [2i] }: single-valued and injective.
    let double = mk(vec![ints(&[0, 2, -1])], vec![]);
    assert!(double.is_single_valued().unwrap());
    assert!(double.is_injective().unwrap());
    // { [i] -> [j] : 0 <= j - i <= 1 }: neither.
    let band = mk(vec![], vec![ints(&[0, -1, 1]), ints(&[1, 1, -1])]);
    assert!(!band.is_single_valued().unwrap());
    assert!(!band.is_injective().unwrap());
    // { [i] -> [floor(i / 2)] }: single-valued, not injective.
    let half = Map::from_basic(
        BasicMap::from_parts(
            sp.clone(),
            vec![Some(DivDef {
                num: ints(&[0, 1, 0, 0]),
                den: Int::from(2),
            })],
            vec![ints(&[0, 0, -1, 1])],
            vec![],
        )
        .unwrap(),
    );
    assert!(half.is_single_valued().unwrap());
    assert!(!half.is_injective().unwrap());
}

#[test]
fn coalesce_adjacent_and_general() {
    // [0, 4] ∪ [5, 9] ∪ {10} → one part.
    let a = bset(0, 1, &[], &[], &[&[0, 1], &[4, -1]]);
    let b = bset(0, 1, &[], &[], &[&[-5, 1], &[9, -1]]);
    let c = bset(0, 1, &[], &[&[-10, 1]], &[]);
    let m = set_of(vec![a, b, c]).coalesce().unwrap();
    assert_eq!(m.as_map().basic_maps().len(), 1);
    check_points(m.as_map(), -3..=13, |i| (0..=10).contains(&i));
    // Even and odd numbers in a range make one part (the range).
    let even = bset(0, 1, &[None], &[&[0, 1, -2]], &[&[0, 1, 0], &[20, -1, 0]]);
    let odd = bset(0, 1, &[None], &[&[-1, 1, -2]], &[&[0, 1, 0], &[20, -1, 0]]);
    let m = set_of(vec![even, odd]).coalesce().unwrap();
    assert_eq!(m.as_map().basic_maps().len(), 1);
    check_points(m.as_map(), -3..=23, |i| (0..=20).contains(&i));
}

#[test]
fn gist_table() {
    // gist({ [i] : 0 <= i <= 10 }, { [i] : i >= 0 }) = { [i] : i <= 10 }
    let a = set_of(vec![bset(0, 1, &[], &[], &[&[0, 1], &[10, -1]])]);
    let c = set_of(vec![bset(0, 1, &[], &[], &[&[0, 1]])]);
    let g = a.gist(&c).unwrap();
    assert_eq!(g.as_map().basic_maps().len(), 1);
    assert_eq!(g.as_map().basic_maps()[0].ineqs(), &[ints(&[10, -1])]);
    // [N] -> { [i] : 0 <= i < N and N >= 1 } gist N >= 1 drops the parameter constraint.
    let b = set_of(vec![bset(
        1,
        1,
        &[],
        &[],
        &[&[0, 0, 1], &[-1, 1, -1], &[-1, 1, 0]],
    )]);
    let p = Set::from_map(Map::from_basic(
        BasicMap::from_parts(
            Space::params(vec!["p0".into()]),
            vec![],
            vec![],
            vec![ints(&[-1, 1])],
        )
        .unwrap(),
    ))
    .unwrap();
    let g = b.gist_params(&p).unwrap();
    assert_eq!(g.as_map().basic_maps()[0].ineqs().len(), 2);
    // Disjoint from the context: empty.
    let far = set_of(vec![bset(0, 1, &[], &[], &[&[-20, 1]])]);
    assert!(far.gist(&a).unwrap().as_map().basic_maps().is_empty());
}

#[test]
fn redundancies_and_equalities() {
    // { [i] : 0 <= i <= 5 and i <= 7 and 2i <= 11 } → 0 <= i <= 5.
    let a = set_of(vec![bset(
        0,
        1,
        &[],
        &[],
        &[&[0, 1], &[5, -1], &[7, -1], &[11, -2]],
    )]);
    let r = a.remove_redundancies().unwrap();
    assert_eq!(r.as_map().basic_maps()[0].ineqs().len(), 2);
    // { [i, j] : i >= 0 and j >= 0 and i + j <= 0 } = { [0, 0] }.
    let b = set_of(vec![bset(
        0,
        2,
        &[],
        &[],
        &[&[0, 1, 0], &[0, 0, 1], &[0, -1, -1]],
    )]);
    let d = b.detect_equalities().unwrap();
    assert_eq!(d.as_map().basic_maps()[0].eqs().len(), 2);
    assert!(d.is_equal(&b).unwrap());
}

#[test]
fn union_operations() {
    let a = set_of(vec![bset(0, 1, &[], &[], &[&[0, 1], &[10, -1]])]);
    let b = set_of(vec![bset(0, 1, &[], &[], &[&[-5, 1]])]);
    let ua = UnionSet::from_set(a.clone());
    let ub = UnionSet::from_set(b.clone());
    let d = ua.subtract(&ub).unwrap();
    let expect = UnionSet::from_set(a.subtract(&b).unwrap());
    assert!(d.is_equal(&expect).unwrap());
    assert!(!ua.is_equal(&ub).unwrap());
    assert!(d.is_subset(&ua).unwrap());
}

// ----- table tests in the isl syntax -----

fn set(text: &str) -> Set {
    crate::text::parse_set(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn map(text: &str) -> Map {
    crate::text::parse_map(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `left op right` is the set `expect` (compared semantically).
fn check_equal(got: &Set, expect: &str) {
    assert!(
        got.is_equal(&set(expect)).unwrap(),
        "expected {expect}, got {got:?}"
    );
}

#[test]
fn text_subtract_table() {
    let cases = [
        (
            "{ [i] : exists e: i = 3e }",
            "{ [i] : exists e: i = 6e }",
            "{ [i] : i mod 6 = 3 }",
        ),
        (
            "{ [i] : 0 <= i <= 20 }",
            "{ [i] : exists e: 0 <= i - 5e <= 1 }",
            "{ [i] : 0 <= i <= 20 and i mod 5 >= 2 }",
        ),
        (
            "{ [i, j] : 0 <= i <= 10 and 0 <= j <= 10 }",
            "{ [i, j] : exists e : i = 2e + j }",
            "{ [i, j] : 0 <= i <= 10 and 0 <= j <= 10 and (i + j) mod 2 = 1 }",
        ),
        (
            "[N] -> { [i] : 0 <= i < N }",
            "[N] -> { [i] : 1 <= i <= N }",
            "[N] -> { [0] : N >= 1 }",
        ),
        (
            "[N] -> { [i] : 0 <= i < N }",
            "[M] -> { [i] : i >= M }",
            "[N, M] -> { [i] : 0 <= i < N and i < M }",
        ),
        (
            "{ [i] : 0 <= i <= 1180591620717411303424 }",
            "{ [i] : 1 <= i <= 1180591620717411303424 }",
            "{ [0] }",
        ),
        (
            "{ [x, y] : 0 <= x <= 10 and 0 <= y <= 10 }",
            "{ [x, y] : 27 <= 11x + 13y <= 45 and -10 <= 7x - 9y <= 4 }",
            "{ [x, y] : 0 <= x <= 10 and 0 <= y <= 10 }",
        ),
        (
            "{ [i] : exists e: i = 4e + 1 }",
            "{ [i] : exists e: i = 2e }",
            "{ [i] : i mod 4 = 1 }",
        ),
    ];
    for (a, b, expect) in cases {
        let got = set(a).subtract(&set(b)).unwrap();
        check_equal(&got, expect);
        assert!(got.is_disjoint(&set(b)).unwrap(), "{a} minus {b}");
    }
}

#[test]
fn text_complement_table() {
    let cases = [
        (
            "{ [i] : exists e: 0 <= i - 5e <= 1 }",
            "{ [i] : i mod 5 >= 2 }",
        ),
        ("{ [i, j] : i >= j }", "{ [i, j] : i < j }"),
        (
            "[N] -> { [i] : 0 <= i < N }",
            "[N] -> { [i] : i < 0 or i >= N }",
        ),
        ("{ [i] : 27 <= 11i <= 32 }", "{ [i] }"),
    ];
    for (a, expect) in cases {
        check_equal(&set(a).complement().unwrap(), expect);
    }
}

#[test]
fn text_comparisons() {
    assert!(set("{ [i] : exists e: i = 6e }")
        .is_strict_subset(&set("{ [i] : exists e: i = 3e }"))
        .unwrap());
    assert!(set("{ [i] : exists a, b: i = 2a and i = 3b }")
        .is_equal(&set("{ [i] : i mod 6 = 0 }"))
        .unwrap());
    assert!(set("{ [i] : i mod 2 = 0 }")
        .is_disjoint(&set("{ [i] : i mod 2 = 1 }"))
        .unwrap());
    assert!(!set("[N] -> { [i] : 0 <= i <= N }").is_finite().unwrap());
    assert!(set("[N] -> { [i] : 0 <= i <= N }").is_bounded().unwrap());
    assert!(!set("{ [i, j] : 0 <= i <= j }").is_bounded().unwrap());
    assert!(map("{ [i] -> [j] : j = floor(i / 3) }")
        .is_single_valued()
        .unwrap());
    assert!(!map("{ [i] -> [j] : j = floor(i / 3) }")
        .is_injective()
        .unwrap());
    assert!(map("[N] -> { [i] -> [N - i] }").is_injective().unwrap());
    let u = crate::text::parse_union_set("{ A[i] : 0 <= i < 10; B[i, j] : i = j }").unwrap();
    let v = crate::text::parse_union_set("{ A[i] : 5 <= i; B[i, j] : i = j }").unwrap();
    let d = u.subtract(&v).unwrap();
    let expect = crate::text::parse_union_set("{ A[i] : 0 <= i < 5 }").unwrap();
    assert!(d.is_equal(&expect).unwrap());
}

#[test]
fn text_coalesce_gist_hull() {
    let c = set("{ [i] : 0 <= i <= 4 or 5 <= i <= 9 or i = 10 }")
        .coalesce()
        .unwrap();
    assert_eq!(c.as_map().basic_maps().len(), 1);
    check_equal(&c, "{ [i] : 0 <= i <= 10 }");
    let c = set("{ [i, j] : 0 <= i <= 10 and 0 <= j <= 5 or 0 <= i <= 10 and 6 <= j <= 9 }")
        .coalesce()
        .unwrap();
    assert_eq!(c.as_map().basic_maps().len(), 1);
    let g = set("[N] -> { [i] : 0 <= i < N and N >= 10 }")
        .gist_params(&set("[N] -> { : N >= 5 }"))
        .unwrap();
    check_equal(&g, "[N] -> { [i] : 0 <= i < N and N >= 10 }");
    let g = set("[N] -> { [i] : 0 <= i < N and N >= 10 }")
        .gist_params(&set("[N] -> { : N >= 20 }"))
        .unwrap();
    assert_eq!(g.as_map().basic_maps()[0].ineqs().len(), 2);
    let h = set("{ [i, j] : i = 0 and 0 <= j <= 3 or i = 5 and j = 7 }")
        .simple_hull()
        .unwrap();
    check_equal(&Set::from(h), "{ [i, j] : 0 <= i <= 5 and 0 <= j <= 7 }");
    let b = set("[N] -> { [i, j] : 0 <= i < N and 0 <= j <= 5 and i + j <= 20 }")
        .box_hull()
        .unwrap();
    check_equal(
        &Set::from(b),
        "[N] -> { [i, j] : 0 <= i < N and 0 <= j <= 5 and i <= 20 }",
    );
}
