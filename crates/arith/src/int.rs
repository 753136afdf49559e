//! Exact integers with an `i64` fast path that promotes to [`BigInt`] on overflow.
//!
//! [`Int`] never wraps and never panics on overflow: every small-small operation uses
//! checked `i64` arithmetic (or an `i128` intermediate) and falls back to a [`BigInt`]
//! only when the exact result does not fit in an `i64`.
//!
//! # Invariants
//!
//! An [`Int`] is always *normalized*: the [`Int::Big`] variant holds only values outside the
//! `i64` range. Every constructor and operation re-establishes this, which makes the derived
//! notions of equality, ordering and hashing representation-independent.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::iter::{Product, Sum};
use std::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use std::str::FromStr;

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

/// Exact integer: `i64` fast path with checked arithmetic that promotes to [`BigInt`] on
/// overflow; never wraps, never panics on overflow.
///
/// # Invariants
///
/// `Big` is used only when the value does not fit in an `i64`; all operations normalize
/// their result, so two equal values always have the same representation.
#[derive(Clone)]
pub enum Int {
    /// A value in the `i64` range.
    Small(i64),
    /// A value outside the `i64` range (boxed, so that an `Int` takes 16 bytes).
    Big(Box<BigInt>),
}

use Int::{Big, Small};

// Rows of `Int`s are copied, compared and sorted everywhere: keep the type two words.
const _: () = assert!(std::mem::size_of::<Int>() == 16);

/// Builds a normalized [`Int`] from a [`BigInt`].
#[inline]
fn normalize(b: BigInt) -> Int {
    match b.to_i64() {
        Some(v) => Small(v),
        None => Big(Box::new(b)),
    }
}

/// Builds a normalized [`Int`] from an `i128`.
#[inline]
fn from_i128(v: i128) -> Int {
    match i64::try_from(v) {
        Ok(s) => Small(s),
        Err(_) => Big(Box::new(BigInt::from(v))),
    }
}

#[inline]
fn add_small(a: i64, b: i64) -> Int {
    match a.checked_add(b) {
        Some(v) => Small(v),
        None => from_i128(i128::from(a) + i128::from(b)),
    }
}

#[inline]
fn sub_small(a: i64, b: i64) -> Int {
    match a.checked_sub(b) {
        Some(v) => Small(v),
        None => from_i128(i128::from(a) - i128::from(b)),
    }
}

#[inline]
fn mul_small(a: i64, b: i64) -> Int {
    match a.checked_mul(b) {
        Some(v) => Small(v),
        None => from_i128(i128::from(a) * i128::from(b)),
    }
}

#[inline]
fn neg_small(a: i64) -> Int {
    match a.checked_neg() {
        Some(v) => Small(v),
        None => from_i128(-i128::from(a)),
    }
}

/// Greatest common divisor of two magnitudes, as a normalized [`Int`].
#[inline]
fn gcd_u64(a: u64, b: u64) -> Int {
    Int::from(a.gcd(&b))
}

impl Int {
    /// The integer 0.
    #[inline]
    pub fn zero() -> Int {
        Small(0)
    }

    /// The integer 1.
    #[inline]
    pub fn one() -> Int {
        Small(1)
    }

    /// Whether `self == 0`.
    #[inline]
    pub fn is_zero(&self) -> bool {
        matches!(self, Small(0))
    }

    /// Whether `self == 1`.
    #[inline]
    pub fn is_one(&self) -> bool {
        matches!(self, Small(1))
    }

    /// Whether `self < 0`.
    #[inline]
    pub fn is_negative(&self) -> bool {
        match self {
            Small(v) => *v < 0,
            Big(b) => b.sign() == Sign::Minus,
        }
    }

    /// Whether `self > 0`.
    #[inline]
    pub fn is_positive(&self) -> bool {
        match self {
            Small(v) => *v > 0,
            Big(b) => b.sign() == Sign::Plus,
        }
    }

    /// The sign of `self`: -1, 0 or 1.
    #[inline]
    pub fn signum(&self) -> i32 {
        match self {
            Small(v) => v.signum() as i32,
            Big(b) => match b.sign() {
                Sign::Minus => -1,
                Sign::NoSign => 0,
                Sign::Plus => 1,
            },
        }
    }

    /// The absolute value (`abs(i64::MIN)` promotes to a big integer).
    #[inline]
    pub fn abs(&self) -> Int {
        match self {
            Small(v) if *v >= 0 => Small(*v),
            Small(v) => neg_small(*v),
            Big(b) => normalize(b.abs()),
        }
    }

    /// `floor(self / d)`.
    ///
    /// # Panics
    ///
    /// Panics if `d` is zero.
    #[inline]
    pub fn floor_div(&self, d: &Int) -> Int {
        match (self, d) {
            (_, Small(0)) => panic!("Int::floor_div: division by zero"),
            (Small(a), Small(-1)) => neg_small(*a),
            (Small(a), Small(b)) => {
                let (q, r) = (a / b, a % b);
                if r != 0 && ((r < 0) != (*b < 0)) {
                    Small(q - 1)
                } else {
                    Small(q)
                }
            }
            _ => normalize(self.to_bigint().div_floor(&d.to_bigint())),
        }
    }

    /// `ceil(self / d)`.
    ///
    /// # Panics
    ///
    /// Panics if `d` is zero.
    #[inline]
    pub fn ceil_div(&self, d: &Int) -> Int {
        match (self, d) {
            (_, Small(0)) => panic!("Int::ceil_div: division by zero"),
            (Small(a), Small(-1)) => neg_small(*a),
            (Small(a), Small(b)) => {
                let (q, r) = (a / b, a % b);
                if r != 0 && ((r > 0) == (*b > 0)) {
                    Small(q + 1)
                } else {
                    Small(q)
                }
            }
            _ => -(-self).floor_div(d),
        }
    }

    /// `self - d * floor_div(self, d)`: for `d > 0` the result lies in `[0, d)`, for `d < 0`
    /// in `(d, 0]`.
    ///
    /// # Panics
    ///
    /// Panics if `d` is zero.
    #[inline]
    pub fn mod_floor(&self, d: &Int) -> Int {
        match (self, d) {
            (_, Small(0)) => panic!("Int::mod_floor: division by zero"),
            (Small(_), Small(-1)) => Small(0),
            (Small(a), Small(b)) => {
                let r = a % b;
                if r != 0 && ((r < 0) != (*b < 0)) {
                    Small(r + b)
                } else {
                    Small(r)
                }
            }
            _ => normalize(self.to_bigint().mod_floor(&d.to_bigint())),
        }
    }

    /// `self / d` where `d` is known to divide `self` (checked with `debug_assert!`).
    ///
    /// # Panics
    ///
    /// Panics if `d` is zero.
    #[inline]
    pub fn exact_div(&self, d: &Int) -> Int {
        debug_assert!(
            d.divides(self),
            "Int::exact_div: {d} does not divide {self}"
        );
        match (self, d) {
            (_, Small(0)) => panic!("Int::exact_div: division by zero"),
            (Small(a), Small(-1)) => neg_small(*a),
            (Small(a), Small(b)) => Small(a / b),
            _ => normalize(self.to_bigint() / d.to_bigint()),
        }
    }

    /// Whether `self` divides `other`; zero divides only zero.
    #[inline]
    pub fn divides(&self, other: &Int) -> bool {
        match (self, other) {
            (Small(0), _) => other.is_zero(),
            (Small(a), Small(b)) => b.unsigned_abs() % a.unsigned_abs() == 0,
            (Small(a), Big(b)) => (&**b % a.unsigned_abs()).is_zero(),
            (Big(a), Small(b)) => (BigInt::from(*b) % &**a).is_zero(),
            (Big(a), Big(b)) => (&**b % &**a).is_zero(),
        }
    }

    /// Greatest common divisor, always non-negative; `gcd(0, 0) = 0`.
    #[inline]
    pub fn gcd(&self, other: &Int) -> Int {
        match (self, other) {
            (Small(a), Small(b)) => gcd_u64(a.unsigned_abs(), b.unsigned_abs()),
            (Small(0), Big(b)) | (Big(b), Small(0)) => normalize(b.abs()),
            (Small(a), Big(b)) | (Big(b), Small(a)) => {
                let m = a.unsigned_abs();
                let r = (&**b % m)
                    .magnitude()
                    .to_u64()
                    .expect("remainder is below a u64 modulus");
                gcd_u64(m, r)
            }
            (Big(a), Big(b)) => normalize(a.gcd(b)),
        }
    }

    /// Least common multiple, always non-negative; `lcm(0, x) = 0`.
    pub fn lcm(&self, other: &Int) -> Int {
        if self.is_zero() || other.is_zero() {
            return Int::zero();
        }
        let g = self.gcd(other);
        self.abs().exact_div(&g) * other.abs()
    }

    /// `self` raised to the power `e` (`0^0 = 1`).
    pub fn pow(&self, e: u32) -> Int {
        match self {
            Small(a) => match a.checked_pow(e) {
                Some(v) => Small(v),
                None => normalize(BigInt::from(*a).pow(e)),
            },
            Big(b) => normalize(b.pow(e)),
        }
    }

    /// The value as an `i64`, if it fits.
    #[inline]
    pub fn to_i64(&self) -> Option<i64> {
        self.as_small()
    }

    /// The value as a [`BigInt`].
    pub fn to_bigint(&self) -> BigInt {
        match self {
            Small(v) => BigInt::from(*v),
            Big(b) => (**b).clone(),
        }
    }

    /// The `i64` payload if the value is stored in the small representation (which, by
    /// normalization, is exactly when it fits in an `i64`).
    #[inline]
    pub fn as_small(&self) -> Option<i64> {
        match self {
            Small(v) => Some(*v),
            Big(_) => None,
        }
    }

    /// Whether the value is stored as an `i64`.
    #[inline]
    pub fn is_small(&self) -> bool {
        matches!(self, Small(_))
    }
}

/// Greatest common divisor of `a` and `b`, always non-negative; `gcd(0, 0) = 0`.
#[inline]
pub fn gcd(a: &Int, b: &Int) -> Int {
    a.gcd(b)
}

/// Least common multiple of `a` and `b`, always non-negative; `lcm(0, x) = 0`.
#[inline]
pub fn lcm(a: &Int, b: &Int) -> Int {
    a.lcm(b)
}

/// Extended Euclid: returns `(g, x, y)` with `a*x + b*y = g = gcd(a, b) >= 0`.
///
/// The coefficients are the (small) ones produced by the Euclidean algorithm. For
/// `a = b = 0` the result is `(0, 0, 0)`.
pub fn ext_gcd(a: &Int, b: &Int) -> (Int, Int, Int) {
    if let (Small(a), Small(b)) = (a, b) {
        let (g, x, y) = ext_gcd_i128(i128::from(*a), i128::from(*b));
        return (from_i128(g), from_i128(x), from_i128(y));
    }
    let (mut old_r, mut r) = (a.clone(), b.clone());
    let (mut old_s, mut s) = (Int::one(), Int::zero());
    let (mut old_t, mut t) = (Int::zero(), Int::one());
    while !r.is_zero() {
        let q = old_r.floor_div(&r);
        let next_r = &old_r - &q * &r;
        old_r = std::mem::replace(&mut r, next_r);
        let next_s = &old_s - &q * &s;
        old_s = std::mem::replace(&mut s, next_s);
        let next_t = &old_t - &q * &t;
        old_t = std::mem::replace(&mut t, next_t);
    }
    if old_r.is_negative() {
        (-old_r, -old_s, -old_t)
    } else {
        (old_r, old_s, old_t)
    }
}

/// Extended Euclid on `i128` operands of `i64` magnitude (all intermediates stay in range).
fn ext_gcd_i128(a: i128, b: i128) -> (i128, i128, i128) {
    if a == 0 && b == 0 {
        return (0, 0, 0);
    }
    let (mut old_r, mut r) = (a, b);
    let (mut old_s, mut s) = (1i128, 0i128);
    let (mut old_t, mut t) = (0i128, 1i128);
    while r != 0 {
        let q = old_r / r;
        (old_r, r) = (r, old_r - q * r);
        (old_s, s) = (s, old_s - q * s);
        (old_t, t) = (t, old_t - q * t);
    }
    if old_r < 0 {
        (-old_r, -old_s, -old_t)
    } else {
        (old_r, old_s, old_t)
    }
}

/// Greatest common divisor of all entries; 0 for an empty slice or all zeros.
pub fn gcd_slice(v: &[Int]) -> Int {
    // Machine magnitudes first (zeros skipped, stop at 1); the first big entry hands the
    // rest to the general gcd.
    let mut g: u64 = 0;
    for (i, x) in v.iter().enumerate() {
        match x {
            Small(0) => {}
            Small(s) => {
                g = if g == 0 {
                    s.unsigned_abs()
                } else {
                    g.gcd(&s.unsigned_abs())
                };
                if g == 1 {
                    return Int::one();
                }
            }
            Big(_) => {
                let mut big = Int::from(g);
                for y in &v[i..] {
                    if big.is_one() {
                        break;
                    }
                    big = big.gcd(y);
                }
                return big;
            }
        }
    }
    Int::from(g)
}

impl Default for Int {
    fn default() -> Int {
        Int::zero()
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Small(v) => fmt::Display::fmt(v, f),
            Big(b) => fmt::Display::fmt(b, f),
        }
    }
}

impl fmt::Debug for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl PartialEq for Int {
    #[inline]
    fn eq(&self, other: &Int) -> bool {
        match (self, other) {
            (Small(a), Small(b)) => a == b,
            (Big(a), Big(b)) => a == b,
            // Normalization: a big value never equals a small one.
            _ => false,
        }
    }
}

impl Eq for Int {}

impl Hash for Int {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Normalization makes the representation canonical, so hashing it is consistent
        // with `Eq`.
        match self {
            Small(v) => {
                state.write_u8(0);
                v.hash(state);
            }
            Big(b) => {
                state.write_u8(1);
                b.hash(state);
            }
        }
    }
}

impl PartialOrd for Int {
    #[inline]
    fn partial_cmp(&self, other: &Int) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Int {
    #[inline]
    fn cmp(&self, other: &Int) -> Ordering {
        match (self, other) {
            (Small(a), Small(b)) => a.cmp(b),
            (Big(a), Big(b)) => a.cmp(b),
            // Normalization: a big value lies outside the i64 range, on the side of its sign.
            (Small(_), Big(b)) => {
                if b.sign() == Sign::Minus {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            (Big(a), Small(_)) => {
                if a.sign() == Sign::Minus {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
        }
    }
}

macro_rules! from_lossless {
    ($($t:ty),*) => {$(
        impl From<$t> for Int {
            #[inline]
            fn from(v: $t) -> Int {
                Small(i64::from(v))
            }
        }
    )*};
}
from_lossless!(i64, i32, u32, i16, u16, i8, u8);

macro_rules! from_wide {
    ($($t:ty),*) => {$(
        impl From<$t> for Int {
            #[inline]
            fn from(v: $t) -> Int {
                match i64::try_from(v) {
                    Ok(s) => Small(s),
                    Err(_) => Big(Box::new(BigInt::from(v))),
                }
            }
        }
    )*};
}
from_wide!(u64, usize, i128, u128);

impl From<BigInt> for Int {
    #[inline]
    fn from(b: BigInt) -> Int {
        normalize(b)
    }
}

impl From<&BigInt> for Int {
    #[inline]
    fn from(b: &BigInt) -> Int {
        match b.to_i64() {
            Some(v) => Small(v),
            None => Big(Box::new(b.clone())),
        }
    }
}

impl From<Int> for BigInt {
    #[inline]
    fn from(v: Int) -> BigInt {
        match v {
            Small(s) => BigInt::from(s),
            Big(b) => *b,
        }
    }
}

/// Error returned when parsing an [`Int`] from a string fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseIntError {
    /// The input had no digits (empty, or just `-`).
    Empty,
    /// The input contained a character that is not an ASCII decimal digit (after an optional
    /// leading `-`).
    InvalidDigit,
}

impl fmt::Display for ParseIntError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseIntError::Empty => f.write_str("cannot parse integer from empty string"),
            ParseIntError::InvalidDigit => f.write_str("invalid digit found in string"),
        }
    }
}

impl std::error::Error for ParseIntError {}

impl FromStr for Int {
    type Err = ParseIntError;

    /// Parses a decimal integer with an optional leading `-`.
    fn from_str(s: &str) -> Result<Int, ParseIntError> {
        let digits = s.strip_prefix('-').unwrap_or(s);
        if digits.is_empty() {
            return Err(ParseIntError::Empty);
        }
        if !digits.bytes().all(|c| c.is_ascii_digit()) {
            return Err(ParseIntError::InvalidDigit);
        }
        if let Ok(v) = s.parse::<i64>() {
            return Ok(Small(v));
        }
        s.parse::<BigInt>()
            .map(normalize)
            .map_err(|_| ParseIntError::InvalidDigit)
    }
}

/// Implements a binary operator for all owned/borrowed combinations of [`Int`] and for an
/// `i64` right-hand side. The small-small case without overflow (`$checked`) is inlined
/// at every call site; everything else (overflow into `i128` via `$small`, big operands)
/// is in a cold out-of-line function, so that the fast path stays a few instructions.
macro_rules! int_binop {
    ($Trait:ident, $method:ident, $Assign:ident, $assign:ident, $small:ident, $checked:ident) => {
        impl $Trait<Int> for Int {
            type Output = Int;
            #[inline]
            fn $method(self, rhs: Int) -> Int {
                if let (Small(a), Small(b)) = (&self, &rhs) {
                    if let Some(v) = a.$checked(*b) {
                        return Small(v);
                    }
                }
                #[cold]
                #[inline(never)]
                fn slow(x: Int, y: Int) -> Int {
                    match (x, y) {
                        (Small(a), Small(b)) => $small(a, b),
                        (Small(a), Big(b)) => normalize($Trait::$method(BigInt::from(a), *b)),
                        (Big(a), Small(b)) => normalize($Trait::$method(*a, b)),
                        (Big(a), Big(b)) => normalize($Trait::$method(*a, *b)),
                    }
                }
                slow(self, rhs)
            }
        }

        impl $Trait<&Int> for Int {
            type Output = Int;
            #[inline]
            fn $method(self, rhs: &Int) -> Int {
                if let (Small(a), Small(b)) = (&self, rhs) {
                    if let Some(v) = a.$checked(*b) {
                        return Small(v);
                    }
                }
                #[cold]
                #[inline(never)]
                fn slow(x: Int, y: &Int) -> Int {
                    match (x, y) {
                        (Small(a), Small(b)) => $small(a, *b),
                        (Small(a), Big(b)) => normalize($Trait::$method(BigInt::from(a), &**b)),
                        (Big(a), Small(b)) => normalize($Trait::$method(*a, *b)),
                        (Big(a), Big(b)) => normalize($Trait::$method(*a, &**b)),
                    }
                }
                slow(self, rhs)
            }
        }

        impl $Trait<Int> for &Int {
            type Output = Int;
            #[inline]
            fn $method(self, rhs: Int) -> Int {
                if let (Small(a), Small(b)) = (self, &rhs) {
                    if let Some(v) = a.$checked(*b) {
                        return Small(v);
                    }
                }
                #[cold]
                #[inline(never)]
                fn slow(x: &Int, y: Int) -> Int {
                    match (x, y) {
                        (Small(a), Small(b)) => $small(*a, b),
                        (Small(a), Big(b)) => normalize($Trait::$method(BigInt::from(*a), *b)),
                        (Big(a), Small(b)) => normalize($Trait::$method(&**a, b)),
                        (Big(a), Big(b)) => normalize($Trait::$method(&**a, *b)),
                    }
                }
                slow(self, rhs)
            }
        }

        impl $Trait<&Int> for &Int {
            type Output = Int;
            #[inline]
            fn $method(self, rhs: &Int) -> Int {
                if let (Small(a), Small(b)) = (self, rhs) {
                    if let Some(v) = a.$checked(*b) {
                        return Small(v);
                    }
                }
                #[cold]
                #[inline(never)]
                fn slow(x: &Int, y: &Int) -> Int {
                    match (x, y) {
                        (Small(a), Small(b)) => $small(*a, *b),
                        (Small(a), Big(b)) => normalize($Trait::$method(BigInt::from(*a), &**b)),
                        (Big(a), Small(b)) => normalize($Trait::$method(&**a, *b)),
                        (Big(a), Big(b)) => normalize($Trait::$method(&**a, &**b)),
                    }
                }
                slow(self, rhs)
            }
        }

        impl $Trait<i64> for Int {
            type Output = Int;
            #[inline]
            fn $method(self, rhs: i64) -> Int {
                if let Small(a) = &self {
                    if let Some(v) = a.$checked(rhs) {
                        return Small(v);
                    }
                }
                #[cold]
                #[inline(never)]
                fn slow(x: Int, y: i64) -> Int {
                    match x {
                        Small(a) => $small(a, y),
                        Big(a) => normalize($Trait::$method(*a, y)),
                    }
                }
                slow(self, rhs)
            }
        }

        impl $Trait<i64> for &Int {
            type Output = Int;
            #[inline]
            fn $method(self, rhs: i64) -> Int {
                if let Small(a) = self {
                    if let Some(v) = a.$checked(rhs) {
                        return Small(v);
                    }
                }
                #[cold]
                #[inline(never)]
                fn slow(x: &Int, y: i64) -> Int {
                    match x {
                        Small(a) => $small(*a, y),
                        Big(a) => normalize($Trait::$method(&**a, y)),
                    }
                }
                slow(self, rhs)
            }
        }

        impl $Assign<Int> for Int {
            #[inline]
            fn $assign(&mut self, rhs: Int) {
                if let (Small(a), Small(b)) = (&mut *self, &rhs) {
                    if let Some(v) = a.$checked(*b) {
                        *a = v;
                        return;
                    }
                }
                let lhs = std::mem::take(self);
                *self = $Trait::$method(lhs, rhs);
            }
        }

        impl $Assign<&Int> for Int {
            #[inline]
            fn $assign(&mut self, rhs: &Int) {
                if let (Small(a), Small(b)) = (&mut *self, rhs) {
                    if let Some(v) = a.$checked(*b) {
                        *a = v;
                        return;
                    }
                }
                let lhs = std::mem::take(self);
                *self = $Trait::$method(lhs, rhs);
            }
        }

        impl $Assign<i64> for Int {
            #[inline]
            fn $assign(&mut self, rhs: i64) {
                if let Small(a) = self {
                    if let Some(v) = a.$checked(rhs) {
                        *a = v;
                        return;
                    }
                }
                let lhs = std::mem::take(self);
                *self = $Trait::$method(lhs, rhs);
            }
        }
    };
}

int_binop!(Add, add, AddAssign, add_assign, add_small, checked_add);
int_binop!(Sub, sub, SubAssign, sub_assign, sub_small, checked_sub);
int_binop!(Mul, mul, MulAssign, mul_assign, mul_small, checked_mul);

impl Neg for Int {
    type Output = Int;
    #[inline]
    fn neg(self) -> Int {
        match self {
            Small(a) => neg_small(a),
            Big(b) => normalize(-*b),
        }
    }
}

impl Neg for &Int {
    type Output = Int;
    #[inline]
    fn neg(self) -> Int {
        match self {
            Small(a) => neg_small(*a),
            Big(b) => normalize(-&**b),
        }
    }
}

impl Sum for Int {
    fn sum<I: Iterator<Item = Int>>(iter: I) -> Int {
        let mut acc = Int::zero();
        for x in iter {
            acc += x;
        }
        acc
    }
}

impl<'a> Sum<&'a Int> for Int {
    fn sum<I: Iterator<Item = &'a Int>>(iter: I) -> Int {
        let mut acc = Int::zero();
        for x in iter {
            acc += x;
        }
        acc
    }
}

impl Product for Int {
    fn product<I: Iterator<Item = Int>>(iter: I) -> Int {
        let mut acc = Int::one();
        for x in iter {
            acc *= x;
        }
        acc
    }
}

impl<'a> Product<&'a Int> for Int {
    fn product<I: Iterator<Item = &'a Int>>(iter: I) -> Int {
        let mut acc = Int::one();
        for x in iter {
            acc *= x;
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(s: &str) -> Int {
        s.parse().expect("valid integer literal")
    }

    fn two_pow(e: u32) -> Int {
        Int::from(2).pow(e)
    }

    /// Checks the normalization invariant.
    fn normalized(x: &Int) -> bool {
        match x {
            Small(_) => true,
            Big(b) => b.to_i64().is_none(),
        }
    }

    #[test]
    fn boundary_addition_and_subtraction() {
        let max = Int::from(i64::MAX);
        let min = Int::from(i64::MIN);
        let over = &max + 1;
        assert!(!over.is_small());
        assert_eq!(over, int("9223372036854775808"));
        let back = &over - 1;
        assert!(back.is_small());
        assert_eq!(back, max);
        let under = &min - 1;
        assert_eq!(under, int("-9223372036854775809"));
        assert_eq!(&under + Int::one(), min);
        assert!((&under + 1i64).is_small());
        let mut acc = max.clone();
        acc += 1;
        assert_eq!(acc, over);
        acc -= &Int::one();
        assert!(acc.is_small());
        assert_eq!(&max + &min, Int::from(-1));
    }

    #[test]
    fn boundary_negation_multiplication_division() {
        let min = Int::from(i64::MIN);
        let neg_min = -&min;
        assert_eq!(neg_min, two_pow(63));
        assert!(!neg_min.is_small());
        assert_eq!(-neg_min.clone(), min);
        assert!((-neg_min.clone()).is_small());
        assert_eq!(&min * -1, two_pow(63));
        assert_eq!(&min * Int::from(-1), two_pow(63));
        let mut m = min.clone();
        m *= -1;
        assert_eq!(m, two_pow(63));
        let m1 = Int::from(-1);
        assert_eq!(min.floor_div(&m1), two_pow(63));
        assert_eq!(min.ceil_div(&m1), two_pow(63));
        assert_eq!(min.exact_div(&m1), two_pow(63));
        assert_eq!(min.mod_floor(&m1), Int::zero());
        assert!(m1.divides(&min));
        assert_eq!(min.abs(), two_pow(63));
        assert_eq!(Int::from(i64::MAX).abs(), Int::from(i64::MAX));
        assert_eq!(min.gcd(&min), two_pow(63));
        assert_eq!(min.gcd(&Int::zero()), two_pow(63));
        assert_eq!(min.gcd(&Int::from(6)), Int::from(2));
        assert_eq!(min.lcm(&Int::from(3)), two_pow(63) * 3);
        assert_eq!(two_pow(63).floor_div(&m1), min);
        assert!(two_pow(63).floor_div(&m1).is_small());
    }

    #[test]
    fn big_arithmetic() {
        let a = two_pow(70);
        assert_eq!(a.to_string(), "1180591620717411303424");
        let b = &a + &a;
        assert_eq!(b, two_pow(71));
        assert_eq!(&b - &a, a);
        assert_eq!(&a - &a, Int::zero());
        assert!((&a - &a).is_small());
        assert_eq!(&a * &a, two_pow(140));
        assert_eq!((&a * &a).exact_div(&a), a);
        assert_eq!(a.floor_div(&Int::from(3)), int("393530540239137101141"));
        assert_eq!(
            (-&a).floor_div(&Int::from(3)),
            int("-393530540239137101142")
        );
        assert_eq!((-&a).ceil_div(&Int::from(3)), int("-393530540239137101141"));
        assert_eq!(a.mod_floor(&Int::from(3)), Int::from(1));
        assert_eq!((-&a).mod_floor(&Int::from(3)), Int::from(2));
        assert_eq!(a.gcd(&Int::from(12)), Int::from(4));
        assert_eq!(Int::from(-12).gcd(&(-&a)), Int::from(4));
        assert_eq!(a.gcd(&two_pow(65)), two_pow(65));
        assert!(Int::from(1024).divides(&a));
        assert!(!Int::from(3).divides(&a));
        assert!(!a.divides(&Int::from(3)));
        assert!(a.divides(&Int::zero()));
        assert!(a.divides(&two_pow(80)));
        assert_eq!(a.signum(), 1);
        assert_eq!((-&a).signum(), -1);
        assert!(a > Int::from(i64::MAX));
        assert!(-&a < Int::from(i64::MIN));
        assert!(-&a < a);
        let (g, x, y) = ext_gcd(&(&a * 3), &(&a * 5 - 1));
        assert_eq!(g, Int::one());
        assert_eq!(&a * 3 * &x + (&a * 5 - 1) * &y, Int::one());
        assert!(two_pow(63).divides(&Int::from(i64::MIN)));
        assert!(!two_pow(64).divides(&Int::from(i64::MIN)));
    }

    #[test]
    fn floor_ceil_mod_signs() {
        let cases: [(i64, i64, i64, i64, i64); 8] = [
            (7, 2, 3, 4, 1),
            (-7, 2, -4, -3, 1),
            (7, -2, -4, -3, -1),
            (-7, -2, 3, 4, -1),
            (6, 3, 2, 2, 0),
            (-6, 3, -2, -2, 0),
            (0, -5, 0, 0, 0),
            (1, 5, 0, 1, 1),
        ];
        for (a, d, fl, ce, md) in cases {
            let (ai, di) = (Int::from(a), Int::from(d));
            assert_eq!(ai.floor_div(&di), Int::from(fl), "floor {a}/{d}");
            assert_eq!(ai.ceil_div(&di), Int::from(ce), "ceil {a}/{d}");
            assert_eq!(ai.mod_floor(&di), Int::from(md), "mod {a}/{d}");
        }
    }

    #[test]
    fn gcd_lcm_ext_gcd() {
        assert_eq!(gcd(&Int::zero(), &Int::zero()), Int::zero());
        assert_eq!(gcd(&Int::from(-4), &Int::from(6)), Int::from(2));
        assert_eq!(lcm(&Int::from(-4), &Int::from(6)), Int::from(12));
        assert_eq!(lcm(&Int::zero(), &Int::from(6)), Int::zero());
        assert_eq!(gcd_slice(&[]), Int::zero());
        assert_eq!(gcd_slice(&[Int::zero(), Int::zero()]), Int::zero());
        assert_eq!(
            gcd_slice(&[Int::from(-6), Int::from(9), Int::from(15)]),
            Int::from(3)
        );
        // i64::MIN's magnitude, zeros and big entries after small ones.
        let min = Int::from(i64::MIN);
        assert_eq!(gcd_slice(&[Int::zero(), min.clone()]), two_pow(63));
        assert_eq!(gcd_slice(&[min.clone(), min.clone()]), two_pow(63));
        assert_eq!(
            gcd_slice(&[Int::from(12), Int::zero(), two_pow(70) * Int::from(3)]),
            Int::from(12)
        );
        assert_eq!(
            gcd_slice(&[two_pow(70), Int::from(-48), two_pow(65)]),
            Int::from(16)
        );
        assert_eq!(ext_gcd(&Int::zero(), &Int::zero()).0, Int::zero());
        let min = Int::from(i64::MIN);
        let (g, x, y) = ext_gcd(&min, &min);
        assert_eq!(g, two_pow(63));
        assert_eq!(&min * &x + &min * &y, g);
        let (g, x, y) = ext_gcd(&min, &Int::from(i64::MAX));
        assert_eq!(g, Int::one());
        assert_eq!(&min * &x + Int::from(i64::MAX) * &y, g);
        let (g, x, y) = ext_gcd(&Int::from(-4), &Int::zero());
        assert_eq!((g, x, y), (Int::from(4), Int::from(-1), Int::zero()));
    }

    #[test]
    fn pow_parse_display_hash() {
        use std::collections::hash_map::DefaultHasher;
        assert_eq!(Int::from(3).pow(0), Int::one());
        assert_eq!(Int::from(-2).pow(63), Int::from(i64::MIN));
        assert!(Int::from(-2).pow(63).is_small());
        assert_eq!(Int::from(2).pow(64), int("18446744073709551616"));
        assert_eq!(int("-00012"), Int::from(-12));
        assert_eq!(int("-9223372036854775808"), Int::from(i64::MIN));
        assert!(int("-9223372036854775808").is_small());
        assert_eq!("".parse::<Int>(), Err(ParseIntError::Empty));
        assert_eq!("-".parse::<Int>(), Err(ParseIntError::Empty));
        assert_eq!("+3".parse::<Int>(), Err(ParseIntError::InvalidDigit));
        assert_eq!("1a".parse::<Int>(), Err(ParseIntError::InvalidDigit));
        assert_eq!("--1".parse::<Int>(), Err(ParseIntError::InvalidDigit));
        assert_eq!(format!("{:?}", two_pow(64)), "18446744073709551616");
        assert_eq!(format!("{:>4}", Int::from(-7)), "  -7");
        let hash = |x: &Int| {
            let mut h = DefaultHasher::new();
            x.hash(&mut h);
            h.finish()
        };
        let a = Int::from(BigInt::from(5));
        assert!(a.is_small());
        assert_eq!(hash(&a), hash(&Int::from(5)));
        assert_eq!(hash(&(two_pow(64) - two_pow(64) + 5)), hash(&Int::from(5)));
        assert_eq!(Int::from(u64::MAX), int("18446744073709551615"));
        assert_eq!(Int::from(i128::MIN).to_bigint(), BigInt::from(i128::MIN));
        assert_eq!(Int::default(), Int::zero());
    }

    #[test]
    fn sum_product() {
        let v = vec![Int::from(i64::MAX), Int::from(i64::MAX), Int::from(-5)];
        let s: Int = v.iter().sum();
        assert_eq!(s, Int::from(i128::from(i64::MAX) * 2 - 5));
        let p: Int = v.into_iter().product();
        let max = BigInt::from(i64::MAX);
        assert_eq!(p, Int::from(&max * &max * -5));
        assert!(normalized(&p));
    }
}
