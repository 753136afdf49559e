//! Exact rational numbers over [`Int`].
//!
//! # Invariants
//!
//! A [`Rat`] is always normalized: `gcd(num, den) = 1` and `den > 0` (so zero is `0/1`).
//! Derived equality and hashing therefore compare values, and ordering is exact.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::int::Int;

/// Exact rational, always normalized: `gcd(num, den) = 1`, `den > 0`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Rat {
    num: Int,
    den: Int,
}

impl Rat {
    /// The rational `num / den`, normalized.
    ///
    /// # Panics
    ///
    /// Panics if `den` is zero.
    pub fn new(num: Int, den: Int) -> Rat {
        assert!(!den.is_zero(), "Rat::new: zero denominator");
        if den.is_one() {
            return Rat { num, den };
        }
        let g = num.gcd(&den);
        let (mut num, mut den) = if g.is_one() {
            (num, den)
        } else {
            (num.exact_div(&g), den.exact_div(&g))
        };
        if den.is_negative() {
            num = -num;
            den = -den;
        }
        Rat::from_normalized(num, den)
    }

    /// Builds a rational from parts already known to be normalized.
    #[inline]
    fn from_normalized(num: Int, den: Int) -> Rat {
        let r = Rat { num, den };
        debug_assert!(r.is_normalized(), "Rat invariant violated: {r:?}");
        r
    }

    /// Whether the invariant `gcd(num, den) = 1`, `den > 0` holds.
    fn is_normalized(&self) -> bool {
        self.den.is_positive() && self.num.gcd(&self.den).is_one()
    }

    /// The integer `v` as a rational.
    #[inline]
    pub fn from_int(v: Int) -> Rat {
        Rat {
            num: v,
            den: Int::one(),
        }
    }

    /// The rational 0.
    #[inline]
    pub fn zero() -> Rat {
        Rat::from_int(Int::zero())
    }

    /// The rational 1.
    #[inline]
    pub fn one() -> Rat {
        Rat::from_int(Int::one())
    }

    /// The numerator (carries the sign).
    #[inline]
    pub fn numer(&self) -> &Int {
        &self.num
    }

    /// The denominator (always positive).
    #[inline]
    pub fn denom(&self) -> &Int {
        &self.den
    }

    /// The largest integer `<= self`.
    #[inline]
    pub fn floor(&self) -> Int {
        self.num.floor_div(&self.den)
    }

    /// The smallest integer `>= self`.
    #[inline]
    pub fn ceil(&self) -> Int {
        self.num.ceil_div(&self.den)
    }

    /// Whether the value is an integer (denominator 1).
    #[inline]
    pub fn is_integer(&self) -> bool {
        self.den.is_one()
    }

    /// Whether `self == 0`.
    #[inline]
    pub fn is_zero(&self) -> bool {
        self.num.is_zero()
    }

    /// Whether `self < 0`.
    #[inline]
    pub fn is_negative(&self) -> bool {
        self.num.is_negative()
    }

    /// Whether `self > 0`.
    #[inline]
    pub fn is_positive(&self) -> bool {
        self.num.is_positive()
    }

    /// The sign of `self`: -1, 0 or 1.
    #[inline]
    pub fn signum(&self) -> i32 {
        self.num.signum()
    }

    /// The absolute value.
    #[inline]
    pub fn abs(&self) -> Rat {
        Rat {
            num: self.num.abs(),
            den: self.den.clone(),
        }
    }

    /// The reciprocal `1 / self`.
    ///
    /// # Panics
    ///
    /// Panics if `self` is zero.
    pub fn recip(&self) -> Rat {
        assert!(!self.is_zero(), "Rat::recip: reciprocal of zero");
        if self.num.is_negative() {
            Rat::from_normalized(-&self.den, -&self.num)
        } else {
            Rat::from_normalized(self.den.clone(), self.num.clone())
        }
    }

    /// `self + other`, using the gcd of the denominators to keep intermediates small
    /// (Knuth, TAOCP vol. 2, 4.5.1).
    fn add_ref(&self, other: &Rat) -> Rat {
        if self.den.is_one() && other.den.is_one() {
            return Rat::from_int(&self.num + &other.num);
        }
        let g1 = self.den.gcd(&other.den);
        if g1.is_one() {
            let num = &self.num * &other.den + &other.num * &self.den;
            return Rat::from_normalized(num, &self.den * &other.den);
        }
        let t = &self.num * other.den.exact_div(&g1) + &other.num * self.den.exact_div(&g1);
        if t.is_zero() {
            return Rat::zero();
        }
        let g2 = t.gcd(&g1);
        let den = self.den.exact_div(&g1) * other.den.exact_div(&g2);
        Rat::from_normalized(t.exact_div(&g2), den)
    }

    /// `self * other`, cancelling cross gcds first so the product is already normalized.
    fn mul_ref(&self, other: &Rat) -> Rat {
        if self.den.is_one() && other.den.is_one() {
            return Rat::from_int(&self.num * &other.num);
        }
        if self.is_zero() || other.is_zero() {
            return Rat::zero();
        }
        let g1 = self.num.gcd(&other.den);
        let g2 = other.num.gcd(&self.den);
        let num = self.num.exact_div(&g1) * other.num.exact_div(&g2);
        let den = self.den.exact_div(&g2) * other.den.exact_div(&g1);
        Rat::from_normalized(num, den)
    }

    /// `self / other`.
    ///
    /// # Panics
    ///
    /// Panics if `other` is zero.
    fn div_ref(&self, other: &Rat) -> Rat {
        self.mul_ref(&other.recip())
    }

    fn sub_ref(&self, other: &Rat) -> Rat {
        self.add_ref(&-other)
    }
}

impl Default for Rat {
    fn default() -> Rat {
        Rat::zero()
    }
}

impl From<Int> for Rat {
    #[inline]
    fn from(v: Int) -> Rat {
        Rat::from_int(v)
    }
}

impl From<i64> for Rat {
    #[inline]
    fn from(v: i64) -> Rat {
        Rat::from_int(Int::from(v))
    }
}

impl PartialOrd for Rat {
    #[inline]
    fn partial_cmp(&self, other: &Rat) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rat {
    /// Exact comparison by cross-multiplication (denominators are positive).
    fn cmp(&self, other: &Rat) -> Ordering {
        if self.den == other.den {
            return self.num.cmp(&other.num);
        }
        let by_sign = self.signum().cmp(&other.signum());
        if by_sign != Ordering::Equal {
            return by_sign;
        }
        (&self.num * &other.den).cmp(&(&other.num * &self.den))
    }
}

impl fmt::Display for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den.is_one() {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

impl fmt::Debug for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Neg for Rat {
    type Output = Rat;
    #[inline]
    fn neg(self) -> Rat {
        Rat {
            num: -self.num,
            den: self.den,
        }
    }
}

impl Neg for &Rat {
    type Output = Rat;
    #[inline]
    fn neg(self) -> Rat {
        Rat {
            num: -&self.num,
            den: self.den.clone(),
        }
    }
}

/// Implements a binary operator for all owned/borrowed combinations of [`Rat`] through a
/// by-reference method, plus the compound assignment operator.
macro_rules! rat_binop {
    ($Trait:ident, $method:ident, $Assign:ident, $assign:ident, $imp:ident) => {
        impl $Trait<Rat> for Rat {
            type Output = Rat;
            #[inline]
            fn $method(self, rhs: Rat) -> Rat {
                self.$imp(&rhs)
            }
        }

        impl $Trait<&Rat> for Rat {
            type Output = Rat;
            #[inline]
            fn $method(self, rhs: &Rat) -> Rat {
                self.$imp(rhs)
            }
        }

        impl $Trait<Rat> for &Rat {
            type Output = Rat;
            #[inline]
            fn $method(self, rhs: Rat) -> Rat {
                self.$imp(&rhs)
            }
        }

        impl $Trait<&Rat> for &Rat {
            type Output = Rat;
            #[inline]
            fn $method(self, rhs: &Rat) -> Rat {
                self.$imp(rhs)
            }
        }

        impl $Assign<Rat> for Rat {
            #[inline]
            fn $assign(&mut self, rhs: Rat) {
                *self = self.$imp(&rhs);
            }
        }

        impl $Assign<&Rat> for Rat {
            #[inline]
            fn $assign(&mut self, rhs: &Rat) {
                *self = self.$imp(rhs);
            }
        }
    };
}

rat_binop!(Add, add, AddAssign, add_assign, add_ref);
rat_binop!(Sub, sub, SubAssign, sub_assign, sub_ref);
rat_binop!(Mul, mul, MulAssign, mul_assign, mul_ref);
rat_binop!(Div, div, DivAssign, div_assign, div_ref);

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i64, d: i64) -> Rat {
        Rat::new(Int::from(n), Int::from(d))
    }

    #[test]
    fn normalization_and_display() {
        assert_eq!(r(6, -4), r(-3, 2));
        assert_eq!(r(6, -4).to_string(), "-3/2");
        assert_eq!(r(0, -7).to_string(), "0");
        assert_eq!(*r(0, -7).denom(), Int::one());
        assert_eq!(r(8, 4).to_string(), "2");
        assert_eq!(format!("{:?}", r(3, 4)), "3/4");
        assert!(r(8, 4).is_integer());
        let min = Int::from(i64::MIN);
        let q = Rat::new(Int::from(1), min.clone());
        assert_eq!(*q.numer(), Int::from(-1));
        assert_eq!(*q.denom(), -min);
    }

    #[test]
    fn floor_ceil_recip() {
        assert_eq!(r(7, 2).floor(), Int::from(3));
        assert_eq!(r(7, 2).ceil(), Int::from(4));
        assert_eq!(r(-7, 2).floor(), Int::from(-4));
        assert_eq!(r(-7, 2).ceil(), Int::from(-3));
        assert_eq!(r(4, 1).floor(), Int::from(4));
        assert_eq!(r(-3, 4).recip(), r(-4, 3));
        assert_eq!(r(-3, 4).abs(), r(3, 4));
        assert_eq!(r(-3, 4).signum(), -1);
    }

    #[test]
    fn arithmetic() {
        assert_eq!(r(1, 6) + r(1, 3), r(1, 2));
        assert_eq!(r(1, 6) - r(1, 6), Rat::zero());
        assert_eq!(&r(2, 3) * &r(9, 4), r(3, 2));
        assert_eq!(r(2, 3) / r(-4, 9), r(-3, 2));
        let mut x = r(1, 2);
        x += r(1, 3);
        x -= &r(1, 6);
        x *= r(3, 1);
        x /= r(2, 1);
        assert_eq!(x, Rat::one());
        assert!(r(-1, 2) < r(-1, 3));
        assert!(r(1, 3) < r(1, 2));
        assert!(r(-1, 3) < r(1, 7));
    }

    #[test]
    #[should_panic(expected = "zero denominator")]
    fn zero_denominator_panics() {
        let _ = r(1, 0);
    }
}
