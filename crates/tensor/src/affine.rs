//! Integer expressions: [`Affine`] index expressions and extents (integer combinations of
//! iterators and parameters) and [`ParamExpr`], the quasi-affine definitions of derived
//! parameters.

use std::fmt;
use std::ops::{Add, Mul, Neg, Sub};

/// An affine integer expression `c0 + c1*x1 + ... + cn*xn` over named iterators and
/// parameters, with `i64` coefficients.
///
/// Terms keep the order in which they were written (for printing); two expressions are
/// equal when they have the same coefficient for every name and the same constant. The
/// operator impls (`+`, `-`, `*` by an `i64`, unary `-`) panic on coefficient overflow;
/// the `checked_` methods return `None` instead.
#[derive(Clone, Debug, Default)]
pub struct Affine {
    terms: Vec<(String, i64)>,
    constant: i64,
}

impl Affine {
    /// The constant `c`.
    pub fn constant(c: i64) -> Affine {
        Affine {
            terms: Vec::new(),
            constant: c,
        }
    }

    /// The iterator or parameter `name`, with coefficient 1.
    pub fn var(name: impl Into<String>) -> Affine {
        Affine {
            terms: vec![(name.into(), 1)],
            constant: 0,
        }
    }

    /// The terms with a non-zero coefficient, in the order they were written.
    pub fn terms(&self) -> impl Iterator<Item = (&str, i64)> + '_ {
        self.terms
            .iter()
            .filter(|(_, c)| *c != 0)
            .map(|(n, c)| (n.as_str(), *c))
    }

    /// The constant term.
    pub fn constant_term(&self) -> i64 {
        self.constant
    }

    /// The coefficient of `name` (0 when it does not occur).
    pub fn coefficient(&self, name: &str) -> i64 {
        self.terms
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, c)| *c)
            .sum()
    }

    /// The names with a non-zero coefficient.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.terms().map(|(n, _)| n)
    }

    /// The name `x` when the expression is exactly `x` (coefficient 1, no constant).
    pub fn as_var(&self) -> Option<&str> {
        let mut terms = self.terms();
        match (terms.next(), terms.next()) {
            (Some((n, 1)), None) if self.constant == 0 => Some(n),
            _ => None,
        }
    }

    /// The value when the expression has no terms.
    pub fn as_constant(&self) -> Option<i64> {
        match self.terms().next() {
            None => Some(self.constant),
            Some(_) => None,
        }
    }

    /// `self + other`, `None` on overflow.
    pub fn checked_add(&self, other: &Affine) -> Option<Affine> {
        let mut out = self.clone();
        for (name, c) in &other.terms {
            match out.terms.iter_mut().find(|(n, _)| n == name) {
                Some((_, d)) => *d = d.checked_add(*c)?,
                None => out.terms.push((name.clone(), *c)),
            }
        }
        out.constant = out.constant.checked_add(other.constant)?;
        out.terms.retain(|(_, c)| *c != 0);
        Some(out)
    }

    /// `self * k`, `None` on overflow.
    pub fn checked_scale(&self, k: i64) -> Option<Affine> {
        let mut terms = Vec::with_capacity(self.terms.len());
        for (n, c) in &self.terms {
            let c = c.checked_mul(k)?;
            if c != 0 {
                terms.push((n.clone(), c));
            }
        }
        Some(Affine {
            terms,
            constant: self.constant.checked_mul(k)?,
        })
    }

    /// `self - other`, `None` on overflow.
    pub fn checked_sub(&self, other: &Affine) -> Option<Affine> {
        self.checked_add(&other.checked_scale(-1)?)
    }

    /// The value for the given values of the names (`None` when a name has no value or
    /// on overflow).
    pub fn eval(&self, value: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        let mut v = self.constant;
        for (n, c) in self.terms() {
            v = v.checked_add(c.checked_mul(value(n)?)?)?;
        }
        Some(v)
    }

    /// The expression with every name renamed by `rename` (printing in other syntaxes).
    pub fn display_with<'a>(
        &'a self,
        rename: &'a dyn Fn(&str) -> String,
    ) -> impl fmt::Display + 'a {
        AffineDisplay { a: self, rename }
    }
}

struct AffineDisplay<'a> {
    a: &'a Affine,
    rename: &'a dyn Fn(&str) -> String,
}

impl fmt::Display for AffineDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (n, c) in self.a.terms() {
            let name = (self.rename)(n);
            let (sign, mag) = if c < 0 {
                ("-", c.unsigned_abs())
            } else {
                ("+", c.unsigned_abs())
            };
            if first {
                if sign == "-" {
                    write!(f, "-")?;
                }
            } else {
                write!(f, " {sign} ")?;
            }
            if mag == 1 {
                write!(f, "{name}")?;
            } else {
                write!(f, "{mag} * {name}")?;
            }
            first = false;
        }
        let k = self.a.constant;
        if first {
            write!(f, "{k}")
        } else if k > 0 {
            write!(f, " + {k}")
        } else if k < 0 {
            write!(f, " - {}", k.unsigned_abs())
        } else {
            Ok(())
        }
    }
}

impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.display_with(&|n| n.to_string()))
    }
}

impl PartialEq for Affine {
    fn eq(&self, other: &Affine) -> bool {
        self.constant == other.constant
            && self.terms().all(|(n, c)| other.coefficient(n) == c)
            && other.terms().all(|(n, c)| self.coefficient(n) == c)
    }
}

impl Eq for Affine {}

impl From<i64> for Affine {
    fn from(c: i64) -> Affine {
        Affine::constant(c)
    }
}

impl From<&str> for Affine {
    fn from(name: &str) -> Affine {
        Affine::var(name)
    }
}

impl From<&Affine> for Affine {
    fn from(a: &Affine) -> Affine {
        a.clone()
    }
}

impl<T: Into<Affine>> Add<T> for Affine {
    type Output = Affine;
    fn add(self, rhs: T) -> Affine {
        self.checked_add(&rhs.into())
            .expect("affine coefficient overflow")
    }
}

impl<T: Into<Affine>> Sub<T> for Affine {
    type Output = Affine;
    fn sub(self, rhs: T) -> Affine {
        self.checked_sub(&rhs.into())
            .expect("affine coefficient overflow")
    }
}

impl Mul<i64> for Affine {
    type Output = Affine;
    fn mul(self, k: i64) -> Affine {
        self.checked_scale(k).expect("affine coefficient overflow")
    }
}

impl Mul<Affine> for i64 {
    type Output = Affine;
    fn mul(self, a: Affine) -> Affine {
        a * self
    }
}

impl Neg for Affine {
    type Output = Affine;
    fn neg(self) -> Affine {
        self * -1
    }
}

/// The quasi-affine definition of a derived parameter: integers, earlier parameters,
/// `+`, `-`, multiplication by an integer and floor division by a positive integer
/// (`(H - 1) / 2 + 1`, the output size of a stride-2 convolution).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamExpr {
    /// An integer.
    Int(i64),
    /// An earlier parameter.
    Param(String),
    /// A sum.
    Add(Box<ParamExpr>, Box<ParamExpr>),
    /// A difference.
    Sub(Box<ParamExpr>, Box<ParamExpr>),
    /// A product by an integer.
    Scale(i64, Box<ParamExpr>),
    /// The floor of the quotient by a positive integer.
    FloorDiv(Box<ParamExpr>, i64),
}

impl ParamExpr {
    /// The parameters it names.
    pub fn names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            ParamExpr::Int(_) => {}
            ParamExpr::Param(p) => out.push(p),
            ParamExpr::Add(a, b) | ParamExpr::Sub(a, b) => {
                a.collect(out);
                b.collect(out);
            }
            ParamExpr::Scale(_, e) | ParamExpr::FloorDiv(e, _) => e.collect(out),
        }
    }

    /// The value for the given parameter values (`None` for an unknown name, a
    /// division by a non-positive number or an overflow).
    pub fn eval(&self, value: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        match self {
            ParamExpr::Int(v) => Some(*v),
            ParamExpr::Param(p) => value(p),
            ParamExpr::Add(a, b) => a.eval(value)?.checked_add(b.eval(value)?),
            ParamExpr::Sub(a, b) => a.eval(value)?.checked_sub(b.eval(value)?),
            ParamExpr::Scale(k, e) => e.eval(value)?.checked_mul(*k),
            ParamExpr::FloorDiv(e, d) if *d > 0 => Some(e.eval(value)?.div_euclid(*d)),
            ParamExpr::FloorDiv(..) => None,
        }
    }

    /// The expression in a syntax where each parameter prints as `rename(p)`:
    /// `floor` is `floor((e)/d)` in isl syntax (`isl = true`), else a C expression that
    /// rounds down for every sign.
    pub(crate) fn print(&self, rename: &dyn Fn(&str) -> String, isl: bool) -> String {
        match self {
            ParamExpr::Int(v) => {
                if *v < 0 {
                    format!("({v})")
                } else {
                    v.to_string()
                }
            }
            ParamExpr::Param(p) => rename(p),
            ParamExpr::Add(a, b) => {
                format!("({} + {})", a.print(rename, isl), b.print(rename, isl))
            }
            ParamExpr::Sub(a, b) => {
                format!("({} - {})", a.print(rename, isl), b.print(rename, isl))
            }
            ParamExpr::Scale(k, e) => format!("({k} * {})", e.print(rename, isl)),
            ParamExpr::FloorDiv(e, d) => {
                let e = e.print(rename, isl);
                if isl {
                    format!("floor(({e}) / {d})")
                } else {
                    format!("(({e}) >= 0 ? ({e}) / {d} : -((({d} - 1) - ({e})) / {d}))")
                }
            }
        }
    }
}

impl fmt::Display for ParamExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamExpr::Int(v) => write!(f, "{v}"),
            ParamExpr::Param(p) => write!(f, "{p}"),
            ParamExpr::Add(a, b) => write!(f, "({a} + {b})"),
            ParamExpr::Sub(a, b) => write!(f, "({a} - {b})"),
            ParamExpr::Scale(k, e) => write!(f, "{k} * {e}"),
            ParamExpr::FloorDiv(e, d) => write!(f, "({e}) / {d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_keeps_order_and_compares_by_coefficients() {
        let h = Affine::var("h");
        let kh = Affine::var("kh");
        let e = 2 * h.clone() + kh.clone() - 1;
        assert_eq!(e.to_string(), "2 * h + kh - 1");
        assert_eq!(e, kh + h * 2 - 1);
        assert_eq!(Affine::var("i").as_var(), Some("i"));
        assert_eq!((Affine::var("i") + 1).as_var(), None);
        assert_eq!((-Affine::var("i") + 3).to_string(), "-i + 3");
        assert_eq!(Affine::constant(0).to_string(), "0");
        assert!(Affine::constant(i64::MAX)
            .checked_add(&Affine::constant(1))
            .is_none());
    }

    #[test]
    fn floor_division_rounds_down() {
        let e = ParamExpr::Add(
            Box::new(ParamExpr::FloorDiv(
                Box::new(ParamExpr::Sub(
                    Box::new(ParamExpr::Param("H".into())),
                    Box::new(ParamExpr::Int(1)),
                )),
                2,
            )),
            Box::new(ParamExpr::Int(1)),
        );
        assert_eq!(e.eval(&|_| Some(7)), Some(4));
        assert_eq!(e.eval(&|_| Some(8)), Some(4));
        assert_eq!(e.eval(&|_| Some(-2)), Some(-1));
    }
}
