//! Property tests for `pollen-arith`: every [`Int`] operation against an `i128` reference
//! (for `i64` operands) and a [`BigInt`] reference (for wider operands), the field laws and
//! ordering of [`Rat`], and the Hermite normal form, null space, rank and determinant of
//! random small [`IntMatrix`] values.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive};
use pollen_arith::{ext_gcd, gcd_slice, Int, IntMatrix, Rat};
use quickcheck::{Arbitrary, Gen, QuickCheck, Testable};

/// Runs a property with enough cases to hit the interesting edges, yet quickly, from a
/// fixed seed (`POLLEN_QC_SEED=<n>` explores others) so that every run is reproducible.
fn check<A: Testable>(tests: u64, prop: A) {
    let seed = std::env::var("POLLEN_QC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_2024_u64);
    QuickCheck::new()
        .rng(Gen::from_size_and_seed(100, seed))
        .tests(tests)
        .max_tests(tests * 20)
        .quickcheck(prop);
}

/// An `i64` drawn from a mixed strategy: tiny values, values near `i64::MIN`/`i64::MAX`,
/// powers of two and their neighbours, and uniformly random values.
#[derive(Clone, Copy, Debug)]
struct Mixed(i64);

fn mixed(g: &mut Gen) -> i64 {
    let offset = i64::from(u8::arbitrary(g) % 8);
    let shift = u32::from(u8::arbitrary(g) % 63);
    let sign = if bool::arbitrary(g) { 1 } else { -1 };
    match u8::arbitrary(g) % 6 {
        0 => i64::from(i8::arbitrary(g) % 20),
        1 => i64::MAX - offset,
        2 => i64::MIN + offset,
        3 => sign * (1i64 << shift) + (offset - 4),
        4 => i64::from(i32::arbitrary(g)),
        _ => i64::arbitrary(g),
    }
}

impl Arbitrary for Mixed {
    fn arbitrary(g: &mut Gen) -> Mixed {
        Mixed(mixed(g))
    }
}

/// An `i128` that is small, just outside the `i64` range, or wide.
#[derive(Clone, Copy, Debug)]
struct Wide(i128);

impl Arbitrary for Wide {
    fn arbitrary(g: &mut Gen) -> Wide {
        let a = i128::from(mixed(g));
        let b = i128::from(mixed(g));
        Wide(match u8::arbitrary(g) % 4 {
            0 => a,
            1 => a + b,
            2 => a * b,
            _ => a * (1i128 << 40) + b,
        })
    }
}

/// Whether the small/big representation matches the value's range.
fn normalized(x: &Int) -> bool {
    x.is_small() == x.to_bigint().to_i64().is_some()
}

fn same(x: Int, reference: i128) -> bool {
    normalized(&x) && x == Int::from(reference)
}

fn same_big(x: Int, reference: BigInt) -> bool {
    normalized(&x) && x.to_bigint() == reference
}

fn floor_div_i128(a: i128, d: i128) -> i128 {
    let (q, r) = (a / d, a % d);
    if r != 0 && ((r < 0) != (d < 0)) {
        q - 1
    } else {
        q
    }
}

fn gcd_i128(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[test]
fn int_ring_ops_match_i128() {
    fn prop(a: Mixed, b: Mixed) -> bool {
        let (x, y) = (Int::from(a.0), Int::from(b.0));
        let (p, q) = (i128::from(a.0), i128::from(b.0));
        let mut assign = x.clone();
        assign += &y;
        assign *= b.0;
        assign -= y.clone();
        same(&x + &y, p + q)
            && same(x.clone() + y.clone(), p + q)
            && same(&x - y.clone(), p - q)
            && same(x.clone() - &y, p - q)
            && same(&x * &y, p * q)
            && same(&x * b.0, p * q)
            && same(&x + b.0, p + q)
            && same(&x - b.0, p - q)
            && same(-&x, -p)
            && same(-x.clone(), -p)
            && same(x.abs(), p.abs())
            && same_big(assign, (BigInt::from(p + q)) * q - q)
            && x.signum() == p.signum() as i32
            && x.is_negative() == (p < 0)
            && x.is_positive() == (p > 0)
            && x.is_zero() == (p == 0)
            && x.cmp(&y) == p.cmp(&q)
            && (x == y) == (p == q)
            && x.to_i64() == Some(a.0)
            && x.to_string() == a.0.to_string()
            && x.to_string().parse::<Int>() == Ok(x.clone())
    }
    check(500, prop as fn(Mixed, Mixed) -> bool);
}

#[test]
fn int_division_ops_match_i128() {
    fn prop(a: Mixed, b: Mixed) -> bool {
        if b.0 == 0 {
            return true;
        }
        let (x, y) = (Int::from(a.0), Int::from(b.0));
        let (p, q) = (i128::from(a.0), i128::from(b.0));
        let fl = floor_div_i128(p, q);
        let ce = -floor_div_i128(-p, q);
        let md = p - q * fl;
        let divisible = md == 0;
        let exact_ok = !divisible || same(x.exact_div(&y), p / q);
        let product = Int::from(a.0) * Int::from(b.0);
        same(x.floor_div(&y), fl)
            && same(x.ceil_div(&y), ce)
            && same(x.mod_floor(&y), md)
            && (q < 0 || (0..q).contains(&md))
            && y.divides(&x) == divisible
            && exact_ok
            && product.exact_div(&y) == x
            && y.divides(&product)
    }
    check(500, prop as fn(Mixed, Mixed) -> bool);
}

#[test]
fn int_gcd_lcm_match_i128() {
    fn prop(a: Mixed, b: Mixed) -> bool {
        let (x, y) = (Int::from(a.0), Int::from(b.0));
        let (p, q) = (i128::from(a.0), i128::from(b.0));
        let g = gcd_i128(p, q);
        let l = if g == 0 { 0 } else { (p / g * q).abs() };
        let (eg, ex, ey) = ext_gcd(&x, &y);
        same(x.gcd(&y), g)
            && same(x.lcm(&y), l)
            && same(eg.clone(), g)
            && &x * &ex + &y * &ey == eg
            && gcd_slice(&[x.clone(), y.clone(), Int::zero()]) == eg
            && Int::zero().divides(&x) == (p == 0)
    }
    check(500, prop as fn(Mixed, Mixed) -> bool);
}

#[test]
fn int_pow_sum_product_match_i128() {
    fn prop(a: i8, e: u8, v: Vec<Mixed>) -> bool {
        let e = u32::from(e % 20);
        let v: Vec<i64> = v.into_iter().take(3).map(|m| m.0).collect();
        let ints: Vec<Int> = v.iter().map(|&x| Int::from(x)).collect();
        let sum: i128 = v.iter().map(|&x| i128::from(x)).sum();
        let prod_ref: BigInt = v.iter().map(|&x| BigInt::from(x)).product();
        let sum_owned: Int = ints.clone().into_iter().sum();
        let prod_owned: Int = ints.clone().into_iter().product();
        same_big(Int::from(a).pow(e), BigInt::from(a).pow(e))
            && same(ints.iter().sum(), sum)
            && same(sum_owned, sum)
            && same_big(ints.iter().product(), prod_ref.clone())
            && same_big(prod_owned, prod_ref)
    }
    check(300, prop as fn(i8, u8, Vec<Mixed>) -> bool);
}

#[test]
fn int_wide_ops_match_bigint() {
    fn prop(a: Wide, b: Wide) -> bool {
        let (x, y) = (Int::from(a.0), Int::from(b.0));
        let (p, q) = (BigInt::from(a.0), BigInt::from(b.0));
        let mut ok = same_big(&x + &y, &p + &q)
            && same_big(x.clone() - y.clone(), &p - &q)
            && same_big(&x * &y, &p * &q)
            && same_big(-&x, -&p)
            && same_big(x.abs(), p.abs())
            && same_big(x.gcd(&y), p.gcd(&q))
            && same_big(x.lcm(&y), p.lcm(&q))
            && x.cmp(&y) == p.cmp(&q)
            && x.signum() == a.0.signum() as i32
            && x.to_string() == p.to_string()
            && x.to_string().parse::<Int>() == Ok(x.clone());
        let (eg, ex, ey) = ext_gcd(&x, &y);
        ok &= &x * &ex + &y * &ey == eg && same_big(eg, p.gcd(&q));
        if a.0 != 0 {
            let divisible = (&q % &p) == BigInt::from(0);
            ok &= same_big(y.floor_div(&x), q.div_floor(&p))
                && same_big(y.ceil_div(&x), -(-&q).div_floor(&p))
                && same_big(y.mod_floor(&x), q.mod_floor(&p))
                && x.divides(&y) == divisible
                && (&x * &y).exact_div(&x) == y;
        }
        ok
    }
    check(500, prop as fn(Wide, Wide) -> bool);
}

/// A rational with a small or wide numerator and denominator.
#[derive(Clone, Debug)]
struct ArbRat(Rat);

impl Arbitrary for ArbRat {
    fn arbitrary(g: &mut Gen) -> ArbRat {
        let wide = u8::arbitrary(g) % 4 == 0;
        let pick = |g: &mut Gen| {
            if wide {
                Int::from(Wide::arbitrary(g).0)
            } else {
                Int::from(i64::from(i8::arbitrary(g) % 13))
            }
        };
        let num = pick(g);
        let mut den = pick(g);
        if den.is_zero() {
            den = Int::one();
        }
        ArbRat(Rat::new(num, den))
    }
}

fn rat_normalized(r: &Rat) -> bool {
    r.denom().is_positive() && r.numer().gcd(r.denom()).is_one()
}

#[test]
fn rat_field_laws() {
    fn prop(a: ArbRat, b: ArbRat, c: ArbRat) -> bool {
        let (a, b, c) = (a.0, b.0, c.0);
        let mut ok = &a + &b == &b + &a
            && &a * &b == &b * &a
            && (&a + &b) + &c == &a + (&b + &c)
            && (&a * &b) * &c == &a * (&b * &c)
            && &a * (&b + &c) == &a * &b + &a * &c
            && &a - &a == Rat::zero()
            && &a + Rat::zero() == a
            && &a * Rat::one() == a
            && -(-a.clone()) == a
            && rat_normalized(&(&a + &b))
            && rat_normalized(&(&a - &b))
            && rat_normalized(&(&a * &b));
        if !b.is_zero() {
            let q = &a / &b;
            ok &= rat_normalized(&q) && &q * &b == a && &b * b.recip() == Rat::one();
            let mut d = a.clone();
            d /= &b;
            d *= b.clone();
            ok &= d == a;
        }
        let mut s = a.clone();
        s += &b;
        s -= b.clone();
        ok && s == a
    }
    check(300, prop as fn(ArbRat, ArbRat, ArbRat) -> bool);
}

#[test]
fn rat_order_and_rounding() {
    fn prop(a: ArbRat, b: ArbRat) -> bool {
        let (a, b) = (a.0, b.0);
        let lhs = a.numer().to_bigint() * b.denom().to_bigint();
        let rhs = b.numer().to_bigint() * a.denom().to_bigint();
        let fl = Rat::from_int(a.floor());
        let ce = Rat::from_int(a.ceil());
        a.cmp(&b) == lhs.cmp(&rhs)
            && (a == b) == (lhs == rhs)
            && fl <= a
            && a < &fl + Rat::one()
            && ce >= a
            && &ce - Rat::one() < a
            && (a.is_integer() == (fl == ce))
            && a.signum() == a.numer().signum()
            && a.abs() >= Rat::zero()
            && (a.to_string().contains('/') != a.is_integer())
    }
    check(300, prop as fn(ArbRat, ArbRat) -> bool);
}

/// A random small matrix (up to 5 × 5), occasionally with large or dependent entries.
#[derive(Clone, Debug)]
struct ArbMatrix(IntMatrix);

impl Arbitrary for ArbMatrix {
    fn arbitrary(g: &mut Gen) -> ArbMatrix {
        let rows = usize::from(u8::arbitrary(g) % 6);
        let cols = usize::from(u8::arbitrary(g) % 6);
        let big = u8::arbitrary(g) % 5 == 0;
        let mut m = IntMatrix::zeros(rows, cols);
        for r in 0..rows {
            for c in 0..cols {
                let v = if big && bool::arbitrary(g) {
                    Int::from(mixed(g))
                } else if u8::arbitrary(g) % 3 == 0 {
                    Int::zero()
                } else {
                    Int::from(i64::from(i8::arbitrary(g) % 6))
                };
                m.set(r, c, v);
            }
        }
        // Sometimes make a row a combination of two others to lower the rank.
        if rows >= 3 && bool::arbitrary(g) {
            let combo: Vec<Int> = (0..cols).map(|c| m.get(0, c) * 2 - m.get(1, c)).collect();
            m.row_mut(rows - 1).clone_from_slice(&combo);
        }
        ArbMatrix(m)
    }
}

/// Laplace expansion along the first row: a reference determinant.
fn laplace(m: &IntMatrix) -> Int {
    let n = m.n_rows();
    if n == 0 {
        return Int::one();
    }
    let mut det = Int::zero();
    for c in 0..n {
        let minor = IntMatrix::from_rows(
            (1..n)
                .map(|r| {
                    (0..n)
                        .filter(|&k| k != c)
                        .map(|k| m.get(r, k).clone())
                        .collect()
                })
                .collect(),
        );
        let minor = if n == 1 {
            IntMatrix::zeros(0, 0)
        } else {
            minor
        };
        let term = m.get(0, c) * laplace(&minor);
        det = if c % 2 == 0 { det + term } else { det - term };
    }
    det
}

/// Checks the column-echelon shape promised by `hermite_normal_form`.
fn is_column_hnf(h: &IntMatrix, rank: usize) -> bool {
    let mut prev_pivot_row: Option<usize> = None;
    for c in 0..h.n_cols() {
        let first = (0..h.n_rows()).find(|&r| !h.get(r, c).is_zero());
        if c >= rank {
            if first.is_some() {
                return false;
            }
            continue;
        }
        let Some(p) = first else { return false };
        if prev_pivot_row.is_some_and(|q| p <= q) || !h.get(p, c).is_positive() {
            return false;
        }
        let pivot = h.get(p, c);
        if !(0..c).all(|k| !h.get(p, k).is_negative() && h.get(p, k) < pivot) {
            return false;
        }
        prev_pivot_row = Some(p);
    }
    true
}

#[test]
fn hermite_normal_form_properties() {
    fn prop(a: ArbMatrix) -> bool {
        let a = a.0;
        let (h, u, rank) = a.hermite_normal_form();
        let n = a.n_cols();
        let inverse_ok = match u.unimodular_inverse() {
            Some(inv) => {
                u.mul(&inv) == IntMatrix::identity(n) && inv.mul(&u) == IntMatrix::identity(n)
            }
            None => false,
        };
        a.mul(&u) == h
            && u.determinant().abs() == Int::one()
            && is_column_hnf(&h, rank)
            && rank == a.rank()
            && rank == a.transpose().rank()
            && inverse_ok
            && h.n_rows() == a.n_rows()
            && h.n_cols() == n
    }
    check(300, prop as fn(ArbMatrix) -> bool);
}

#[test]
fn null_space_properties() {
    fn prop(a: ArbMatrix) -> bool {
        let a = a.0;
        let ns = a.null_space();
        let k = ns.len();
        let independent = k == 0 || IntMatrix::from_rows(ns.clone()).rank() == k;
        k == a.n_cols() - a.rank()
            && independent
            && ns.iter().all(|v| {
                v.len() == a.n_cols()
                    && a.mul_vec(v).iter().all(Int::is_zero)
                    && gcd_slice(v).is_one()
            })
    }
    check(300, prop as fn(ArbMatrix) -> bool);
}

#[test]
fn determinant_properties() {
    fn prop(a: ArbMatrix, b: ArbMatrix) -> bool {
        let square = |m: IntMatrix| {
            let n = m.n_rows().min(m.n_cols());
            IntMatrix::from_rows((0..n).map(|r| m.row(r)[..n].to_vec()).collect())
        };
        let (a, b) = (square(a.0), square(b.0));
        let det_a = a.determinant();
        let rank_ok = det_a.is_zero() == (a.rank() < a.n_rows());
        let product_ok =
            a.n_rows() != b.n_rows() || a.mul(&b).determinant() == &det_a * b.determinant();
        det_a == laplace(&a) && a.transpose().determinant() == det_a && rank_ok && product_ok
    }
    check(300, prop as fn(ArbMatrix, ArbMatrix) -> bool);
}
