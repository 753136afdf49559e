//! Quasi-affine expressions built from constraint rows and affine functions of the
//! Presburger library, and their algebraic simplification.
//!
//! Rows use the library's column layout `[const | params | set dims | divs]`. A column
//! is named by [`Names`]: parameters by their names, schedule dimensions by the
//! expression that holds their value (a loop iterator, or the value substituted for a
//! dimension that has a single value), divs by `floor(num / den)` of their definitions.
//!
//! Simplification ([`simplify`]) is purely algebraic and exact: sums are flattened and
//! like terms collected, divisions by one disappear, multiples of the divisor leave
//! floor/ceiling divisions and modulos, constant operands are folded, and nested or
//! duplicated `min`/`max` operands merge.

use pollen_arith::Int;
use pollen_presburger::{aff::Aff, DivDef};

use crate::ast::Expr;
use crate::error::{Error, Result};

/// The expressions that name the columns of a row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Names<'a> {
    /// The parameters, in order.
    pub params: &'a [String],
    /// The value of each schedule dimension, outermost first.
    pub dims: &'a [Expr],
}

impl Names<'_> {
    /// The expression of dimension `i` (parameters first, then schedule dimensions).
    fn column(&self, i: usize) -> Result<Expr> {
        if i < self.params.len() {
            return Ok(Expr::Var(self.params[i].clone()));
        }
        self.dims
            .get(i - self.params.len())
            .cloned()
            .ok_or_else(|| Error::InvalidTree("a row refers to an unknown dimension".into()))
    }
}

/// The expressions of a row's divs, in order; fails on an existential.
pub(crate) fn div_exprs(divs: &[Option<DivDef>], n_dims: usize, names: Names) -> Result<Vec<Expr>> {
    let mut out: Vec<Expr> = Vec::with_capacity(divs.len());
    for d in divs {
        let Some(d) = d else {
            return Err(Error::Existential);
        };
        let num = row_expr(&d.num, n_dims, &out, names)?;
        out.push(simplify(Expr::FloorDiv(Box::new(num), d.den.clone())));
    }
    Ok(out)
}

/// The affine expression of a row `[const | dims | divs]` (a constraint's left side).
pub(crate) fn row_expr(row: &[Int], n_dims: usize, divs: &[Expr], names: Names) -> Result<Expr> {
    let mut terms = Vec::new();
    for (i, c) in row.iter().enumerate().skip(1) {
        if c.is_zero() {
            continue;
        }
        let atom = if i <= n_dims {
            names.column(i - 1)?
        } else {
            divs.get(i - 1 - n_dims)
                .cloned()
                .ok_or_else(|| Error::InvalidTree("a row refers to an unknown div".into()))?
        };
        terms.push(Expr::Mul(c.clone(), Box::new(atom)));
    }
    terms.push(Expr::Int(row[0].clone()));
    Ok(simplify(Expr::Add(terms)))
}

/// The affine expression of a row `[const | dims | divs]`, computing the expressions of
/// only the divs it refers to (others may refer to dimensions `names` cannot name).
pub(crate) fn row_expr_with_divs(
    row: &[Int],
    n_dims: usize,
    divs: &[Option<DivDef>],
    names: Names,
) -> Result<Expr> {
    let mut needed = vec![false; divs.len()];
    for k in (0..divs.len()).rev() {
        let col = 1 + n_dims + k;
        needed[k] = !row[col].is_zero()
            || (k + 1..divs.len())
                .any(|j| needed[j] && divs[j].as_ref().is_some_and(|d| !d.num[col].is_zero()));
    }
    let mut values: Vec<Expr> = Vec::with_capacity(divs.len());
    for (d, need) in divs.iter().zip(&needed) {
        if !need {
            values.push(Expr::Int(Int::zero()));
            continue;
        }
        let Some(d) = d else {
            return Err(Error::Existential);
        };
        let num = row_expr(&d.num, n_dims, &values, names)?;
        values.push(simplify(Expr::FloorDiv(Box::new(num), d.den.clone())));
    }
    row_expr(row, n_dims, &values, names)
}

/// The expression of a quasi-affine function `num / den` (exact: the function takes
/// integer values where it is used).
pub(crate) fn aff_expr(aff: &Aff, names: Names) -> Result<Expr> {
    let n_dims = aff.n_dims();
    let divs: Vec<Option<DivDef>> = aff.divs().iter().cloned().map(Some).collect();
    let div_values = div_exprs(&divs, n_dims, names)?;
    let num = row_expr(aff.num(), n_dims, &div_values, names)?;
    Ok(simplify(Expr::FloorDiv(Box::new(num), aff.den().clone())))
}

/// An expression as `constant + Σ coefficient · atom`, atoms being anything but sums,
/// constants and multiplications.
#[derive(Clone, Debug, Default)]
pub(crate) struct Linear {
    /// The constant term.
    pub constant: Int,
    /// Non-zero coefficients of distinct atoms, in order of first appearance.
    pub terms: Vec<(Expr, Int)>,
}

impl Linear {
    fn add_term(&mut self, atom: Expr, coefficient: Int) {
        if coefficient.is_zero() {
            return;
        }
        if let Some(k) = self.terms.iter().position(|(a, _)| *a == atom) {
            let c = &self.terms[k].1 + &coefficient;
            if c.is_zero() {
                self.terms.remove(k);
            } else {
                self.terms[k].1 = c;
            }
        } else {
            self.terms.push((atom, coefficient));
        }
    }

    fn add_scaled(&mut self, other: Linear, factor: &Int) {
        self.constant = &self.constant + &(&other.constant * factor);
        for (a, c) in other.terms {
            self.add_term(a, &c * factor);
        }
    }

    /// The linear form of a (simplified) expression.
    pub fn of(e: &Expr) -> Linear {
        let mut l = Linear::default();
        match e {
            Expr::Int(c) => l.constant = c.clone(),
            Expr::Add(v) => {
                for x in v {
                    l.add_scaled(Linear::of(x), &Int::one());
                }
            }
            Expr::Mul(c, x) => l.add_scaled(Linear::of(x), c),
            other => l.add_term(other.clone(), Int::one()),
        }
        l
    }

    /// Whether every coefficient and the constant are multiples of `d`.
    fn divisible_by(&self, d: &Int) -> bool {
        d.divides(&self.constant) && self.terms.iter().all(|(_, c)| d.divides(c))
    }

    /// The form divided exactly by `d` (callers check [`Linear::divisible_by`]).
    fn exact_div(&self, d: &Int) -> Linear {
        Linear {
            constant: self.constant.exact_div(d),
            terms: self
                .terms
                .iter()
                .map(|(a, c)| (a.clone(), c.exact_div(d)))
                .collect(),
        }
    }

    /// Splits off the terms whose coefficients are multiples of `d`: `(multiples / d, rest)`.
    fn split_multiples(&self, d: &Int) -> (Linear, Linear) {
        let mut whole = Linear::default();
        let mut rest = Linear {
            constant: self.constant.clone(),
            terms: Vec::new(),
        };
        for (a, c) in &self.terms {
            if d.divides(c) {
                whole.terms.push((a.clone(), c.exact_div(d)));
            } else {
                rest.terms.push((a.clone(), c.clone()));
            }
        }
        (whole, rest)
    }

    /// The expression of the form.
    pub fn to_expr(&self) -> Expr {
        let mut parts: Vec<Expr> = self
            .terms
            .iter()
            .map(|(a, c)| {
                if c.is_one() {
                    a.clone()
                } else {
                    Expr::Mul(c.clone(), Box::new(a.clone()))
                }
            })
            .collect();
        if !self.constant.is_zero() || parts.is_empty() {
            parts.push(Expr::Int(self.constant.clone()));
        }
        if parts.len() == 1 {
            parts.pop().unwrap_or(Expr::Int(Int::zero()))
        } else {
            Expr::Add(parts)
        }
    }
}

/// The simplified form of an expression (same value everywhere).
pub fn simplify(e: Expr) -> Expr {
    match e {
        Expr::Int(_) | Expr::Var(_) => e,
        Expr::Add(v) => {
            let v: Vec<Expr> = v.into_iter().map(simplify).collect();
            Linear::of(&Expr::Add(v)).to_expr()
        }
        Expr::Mul(c, x) => {
            let x = simplify(*x);
            Linear::of(&Expr::Mul(c, Box::new(x))).to_expr()
        }
        Expr::FloorDiv(x, d) => division(simplify(*x), d, false),
        Expr::CeilDiv(x, d) => division(simplify(*x), d, true),
        Expr::Mod(x, d) => modulo(simplify(*x), d),
        Expr::Min(v) => extremum(v, false),
        Expr::Max(v) => extremum(v, true),
    }
}

/// `floor(x / d)` or `ceil(x / d)` with the multiples of `d` taken out.
fn division(x: Expr, d: Int, ceil: bool) -> Expr {
    if d.is_one() {
        return x;
    }
    let l = Linear::of(&x);
    if l.divisible_by(&d) {
        return l.exact_div(&d).to_expr();
    }
    let (mut whole, rest) = l.split_multiples(&d);
    if rest.terms.is_empty() {
        whole.constant = if ceil {
            rest.constant.ceil_div(&d)
        } else {
            rest.constant.floor_div(&d)
        };
        return whole.to_expr();
    }
    let inner = rest.to_expr();
    let div = if ceil {
        Expr::CeilDiv(Box::new(inner), d)
    } else {
        Expr::FloorDiv(Box::new(inner), d)
    };
    if whole.terms.is_empty() {
        return div;
    }
    whole.add_term(div, Int::one());
    whole.to_expr()
}

/// `x mod d` without the multiples of `d`.
fn modulo(x: Expr, d: Int) -> Expr {
    if d.is_one() {
        return Expr::Int(Int::zero());
    }
    let l = Linear::of(&x);
    let (_, mut rest) = l.split_multiples(&d);
    rest.constant = rest.constant.mod_floor(&d);
    if rest.terms.is_empty() {
        return Expr::Int(rest.constant);
    }
    Expr::Mod(Box::new(rest.to_expr()), d)
}

/// `min` or `max` with nested operands of the same kind merged, duplicates removed and
/// constants folded.
fn extremum(v: Vec<Expr>, max: bool) -> Expr {
    let mut ops: Vec<Expr> = Vec::new();
    let mut constant: Option<Int> = None;
    let mut push = |x: Expr, ops: &mut Vec<Expr>| match x {
        Expr::Int(c) => {
            constant = Some(match constant.take() {
                None => c,
                Some(k) if max => k.max(c),
                Some(k) => k.min(c),
            });
        }
        x => {
            if !ops.contains(&x) {
                ops.push(x);
            }
        }
    };
    for x in v {
        match simplify(x) {
            Expr::Max(inner) if max => inner.into_iter().for_each(|y| push(y, &mut ops)),
            Expr::Min(inner) if !max => inner.into_iter().for_each(|y| push(y, &mut ops)),
            y => push(y, &mut ops),
        }
    }
    if let Some(c) = constant {
        ops.push(Expr::Int(c));
    }
    let mut ops = drop_dominated(ops, max);
    match ops.len() {
        0 => Expr::Int(Int::zero()),
        1 => ops.pop().unwrap_or(Expr::Int(Int::zero())),
        _ if max => Expr::Max(ops),
        _ => Expr::Min(ops),
    }
}

/// The operands of a `max` (or `min`) without those that another operand exceeds (or
/// undercuts) by a constant: `max(x + 1, x - 2)` is `x + 1`.
fn drop_dominated(ops: Vec<Expr>, max: bool) -> Vec<Expr> {
    let forms: Vec<Linear> = ops.iter().map(Linear::of).collect();
    let mut keep = vec![true; ops.len()];
    for i in 0..ops.len() {
        for j in 0..ops.len() {
            if i == j || !keep[j] || forms[i].terms != forms[j].terms {
                continue;
            }
            let (a, b) = (&forms[i].constant, &forms[j].constant);
            // Operand i is dominated by j (ties keep the first).
            let dominated = if max {
                a < b || (a == b && j < i)
            } else {
                a > b || (a == b && j < i)
            };
            if dominated {
                keep[i] = false;
                break;
            }
        }
    }
    ops.into_iter()
        .zip(keep)
        .filter_map(|(e, k)| k.then_some(e))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(s: &str) -> Expr {
        Expr::Var(s.into())
    }

    fn int(v: i64) -> Expr {
        Expr::Int(Int::from(v))
    }

    #[test]
    fn sums_collect_like_terms() {
        let e = Expr::Add(vec![
            var("i"),
            Expr::Mul(Int::from(2), Box::new(var("N"))),
            int(3),
            Expr::Mul(Int::from(-1), Box::new(var("i"))),
            int(-3),
        ]);
        assert_eq!(simplify(e), Expr::Mul(Int::from(2), Box::new(var("N"))));
    }

    #[test]
    fn divisions_take_out_multiples() {
        // floor((4i + j + 5) / 4) = i + floor((j + 5) / 4)
        let e = Expr::FloorDiv(
            Box::new(Expr::Add(vec![
                Expr::Mul(Int::from(4), Box::new(var("i"))),
                var("j"),
                int(5),
            ])),
            Int::from(4),
        );
        let s = simplify(e);
        assert_eq!(
            s,
            Expr::Add(vec![
                var("i"),
                Expr::FloorDiv(Box::new(Expr::Add(vec![var("j"), int(5)])), Int::from(4))
            ])
        );
        assert_eq!(
            simplify(Expr::CeilDiv(Box::new(int(-7)), Int::from(2))),
            int(-3)
        );
        assert_eq!(simplify(Expr::Mod(Box::new(int(-7)), Int::from(3))), int(2));
    }

    #[test]
    fn extrema_fold() {
        let e = Expr::Max(vec![int(0), Expr::Max(vec![var("a"), int(3)]), var("a")]);
        assert_eq!(simplify(e), Expr::Max(vec![var("a"), int(3)]));
        let shifted = |k: i64| Expr::Add(vec![var("a"), int(k)]);
        assert_eq!(
            simplify(Expr::Max(vec![shifted(-2), shifted(1), var("b")])),
            Expr::Max(vec![shifted(1), var("b")])
        );
        assert_eq!(
            simplify(Expr::Min(vec![shifted(-2), shifted(1), var("b")])),
            Expr::Min(vec![shifted(-2), var("b")])
        );
        assert_eq!(simplify(Expr::Min(vec![var("b")])), var("b"));
    }
}
