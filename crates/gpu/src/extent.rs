//! Host-computable bounds on the trip counts of loops, and the variables of expressions.
//!
//! A loop runs `lower, lower + stride, ...` up to `upper`, where `lower` may be a maximum
//! and `upper` a minimum of several operands. For any lower operand `l` and upper operand
//! `u`, the loop runs at most `floor((u - l) / stride) + 1` iterations. The difference is
//! simplified by collecting linear terms over *atoms* (variables, and the divisions,
//! moduli, minima and maxima that are not linear, compared structurally), so that
//! `min(N - 1, 4 * c0 + 3) - 4 * c0` has the operand `3` free of `c0`. A bound is usable
//! where the difference mentions only variables the caller allows (the parameters and
//! host iterators for grid sizes, none for constant tile extents).

use std::collections::BTreeSet;

use pollen_arith::Int;
use pollen_codegen::{Cond, Expr};

/// A constant plus integer multiples of atoms.
#[derive(Clone, Debug, Default)]
struct Linear {
    constant: Int,
    terms: Vec<(Expr, Int)>,
}

impl Linear {
    fn of(e: &Expr) -> Linear {
        let mut l = Linear::default();
        l.add(e, &Int::one());
        l
    }

    /// Adds `factor · e`.
    fn add(&mut self, e: &Expr, factor: &Int) {
        match e {
            Expr::Int(c) => self.constant = &self.constant + &(c * factor),
            Expr::Add(v) => v.iter().for_each(|x| self.add(x, factor)),
            Expr::Mul(c, x) => self.add(x, &(c * factor)),
            atom => {
                if let Some(slot) = self.terms.iter_mut().find(|(a, _)| a == atom) {
                    slot.1 = &slot.1 + factor;
                } else {
                    self.terms.push((atom.clone(), factor.clone()));
                }
                self.terms.retain(|(_, c)| !c.is_zero());
            }
        }
    }

    fn vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for (a, _) in &self.terms {
            expr_vars(a, &mut out);
        }
        out
    }

    fn to_expr(&self) -> Expr {
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
            parts.remove(0)
        } else {
            Expr::Add(parts)
        }
    }
}

/// Collects the variables `e` mentions.
pub(crate) fn expr_vars(e: &Expr, out: &mut BTreeSet<String>) {
    match e {
        Expr::Int(_) => {}
        Expr::Var(v) => {
            out.insert(v.clone());
        }
        Expr::Add(v) | Expr::Min(v) | Expr::Max(v) => v.iter().for_each(|x| expr_vars(x, out)),
        Expr::Mul(_, x) | Expr::FloorDiv(x, _) | Expr::CeilDiv(x, _) | Expr::Mod(x, _) => {
            expr_vars(x, out)
        }
    }
}

/// Collects the variables `c` mentions.
pub(crate) fn cond_vars(c: &Cond, out: &mut BTreeSet<String>) {
    match c {
        Cond::NonNegative(e) | Cond::Zero(e) => expr_vars(e, out),
        Cond::And(v) | Cond::Or(v) => v.iter().for_each(|x| cond_vars(x, out)),
    }
}

/// The operands of a maximum (or minimum), or the expression itself.
fn operands(e: &Expr, max: bool) -> Vec<&Expr> {
    match (e, max) {
        (Expr::Max(v), true) | (Expr::Min(v), false) => {
            v.iter().flat_map(|x| operands(x, max)).collect()
        }
        _ => vec![e],
    }
}

/// The range of an enclosing loop's iterator: its name and its bounds.
pub(crate) struct Range<'a> {
    /// The iterator.
    pub name: &'a str,
    /// Its lower bound (a maximum of operands).
    pub lower: &'a Expr,
    /// Its upper bound (a minimum of operands).
    pub upper: &'a Expr,
}

/// A bound on the number of iterations of the loop `lower ..= upper` step `stride`
/// (positive) that mentions only variables `allowed` accepts, or `None`. Constant
/// bounds are preferred (the smallest, at least 0); otherwise the minimum of the
/// usable symbolic bounds.
///
/// The iterators of the enclosing loops `ranges` (outermost first) may be eliminated
/// from a difference `u - l`: innermost first, an iterator with a positive coefficient
/// is replaced by an operand of its loop's upper bound, one with a negative
/// coefficient by an operand of its lower bound (the first operand that leaves only
/// allowed variables and iterators of loops further out), which can only increase
/// the difference.
pub(crate) fn trip_bound(
    lower: &Expr,
    upper: &Expr,
    stride: &Int,
    allowed: &dyn Fn(&str) -> bool,
    ranges: &[Range<'_>],
) -> Option<Expr> {
    if !stride.is_positive() {
        return None;
    }
    let mut constant: Option<Int> = None;
    let mut symbolic: Vec<Expr> = Vec::new();
    for l in operands(lower, true) {
        for u in operands(upper, false) {
            let mut d = Linear::of(u);
            d.add(l, &-Int::one());
            let Some(mut d) = eliminate(d, allowed, ranges) else {
                continue;
            };
            if d.terms.is_empty() {
                let n = &d.constant.floor_div(stride) + &Int::one();
                let n = n.max(Int::zero());
                constant = Some(match constant {
                    Some(c) => c.min(n),
                    None => n,
                });
            } else {
                let e = if stride.is_one() {
                    d.constant = &d.constant + &Int::one();
                    d.to_expr()
                } else {
                    let q = Expr::FloorDiv(Box::new(d.to_expr()), stride.clone());
                    Expr::Add(vec![q, Expr::int(1)])
                };
                if !symbolic.contains(&e) {
                    symbolic.push(e);
                }
            }
        }
    }
    if let Some(c) = constant {
        return Some(Expr::Int(c));
    }
    match symbolic.len() {
        0 => None,
        1 => symbolic.pop(),
        _ => Some(Expr::Min(symbolic)),
    }
}

/// `d` bounded from above without the iterators of `ranges` (see [`trip_bound`]), if
/// it then mentions only allowed variables.
fn eliminate(
    mut d: Linear,
    allowed: &dyn Fn(&str) -> bool,
    ranges: &[Range<'_>],
) -> Option<Linear> {
    for (k, r) in ranges.iter().enumerate().rev() {
        let var = Expr::var(r.name);
        let Some(c) = d
            .terms
            .iter()
            .find(|(a, _)| *a == var)
            .map(|(_, c)| c.clone())
        else {
            continue;
        };
        let further_out = |v: &str| allowed(v) || ranges[..k].iter().any(|o| o.name == v);
        let bound = if c.is_positive() {
            operands(r.upper, false)
        } else {
            operands(r.lower, true)
        };
        let replacement = bound
            .into_iter()
            .map(Linear::of)
            .find(|b| b.vars().iter().all(|v| further_out(v)))?;
        d.add(&var, &-&c);
        d.add(&replacement.to_expr(), &c);
    }
    d.vars().iter().all(|v| allowed(v)).then_some(d)
}

/// A constant bound on the trip count of a loop whatever the values of the variables.
pub(crate) fn constant_trip(lower: &Expr, upper: &Expr, stride: &Int) -> Option<Int> {
    match trip_bound(lower, upper, stride, &|_| false, &[]) {
        Some(Expr::Int(c)) => Some(c),
        _ => None,
    }
}

/// A lower operand `l` of the loop `lower ..= upper` (stride 1) and a constant `c`
/// such that every iteration lies in `l ..= l + c - 1` whatever the variables are
/// (an upper operand minus `l` is the constant `c - 1`), the smallest such `c`; `None`
/// when no pair of operands differs by a constant.
pub(crate) fn constant_window(lower: &Expr, upper: &Expr) -> Option<(Expr, Int)> {
    let mut best: Option<(Expr, Int)> = None;
    for l in operands(lower, true) {
        for u in operands(upper, false) {
            let mut d = Linear::of(u);
            d.add(l, &-Int::one());
            if !d.terms.is_empty() {
                continue;
            }
            let c = (&d.constant + &Int::one()).max(Int::zero());
            if !matches!(&best, Some((_, b)) if *b <= c) {
                best = Some((l.clone(), c));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Expr {
        Expr::var(s)
    }

    #[test]
    fn tile_point_loops_have_constant_extents() {
        // for (c2 = 4 * c0; c2 <= min(N - 1, 4 * c0 + 3); c2++)
        let lower = Expr::Mul(Int::from(4), Box::new(v("c0")));
        let upper = Expr::Min(vec![
            Expr::Add(vec![v("N"), Expr::int(-1)]),
            Expr::Add(vec![lower.clone(), Expr::int(3)]),
        ]);
        assert_eq!(
            constant_trip(&lower, &upper, &Int::one()),
            Some(Int::from(4))
        );
        assert_eq!(
            constant_trip(&lower, &upper, &Int::from(2)),
            Some(Int::from(2))
        );
        // Only N allowed: no pair is free of c0 but the constant one.
        let n_only = |s: &str| s == "N";
        assert_eq!(
            trip_bound(&lower, &upper, &Int::one(), &n_only, &[]),
            Some(Expr::int(4))
        );
    }

    #[test]
    fn symbolic_extents_mention_only_allowed_names() {
        // for (c0 = 0; c0 <= floord(N - 1, 4); c0++): floord(N - 1, 4) + 1 iterations.
        let upper = Expr::FloorDiv(
            Box::new(Expr::Add(vec![v("N"), Expr::int(-1)])),
            Int::from(4),
        );
        let n_only = |s: &str| s == "N";
        let e = trip_bound(&Expr::int(0), &upper, &Int::one(), &n_only, &[]);
        assert_eq!(e, Some(Expr::Add(vec![upper.clone(), Expr::int(1)])));
        // A triangular loop c1 = c0 .. N - 1 has no bound over N alone.
        let upper = Expr::Add(vec![v("N"), Expr::int(-1)]);
        assert_eq!(
            trip_bound(&v("c0"), &upper, &Int::one(), &n_only, &[]),
            None
        );
        // With a stride: floor((N - 1 - 1) / 3) + 1.
        let e = trip_bound(&Expr::int(1), &upper, &Int::from(3), &n_only, &[]);
        assert_eq!(
            e,
            Some(Expr::Add(vec![
                Expr::FloorDiv(
                    Box::new(Expr::Add(vec![v("N"), Expr::int(-2)])),
                    Int::from(3)
                ),
                Expr::int(1)
            ]))
        );
        // With the range of c0 known (0 .. N - 1), c0 is replaced by its lower bound:
        // at most N iterations.
        let zero = Expr::int(0);
        let ranges = [Range {
            name: "c0",
            lower: &zero,
            upper: &upper,
        }];
        assert_eq!(
            trip_bound(&v("c0"), &upper, &Int::one(), &n_only, &ranges),
            Some(v("N"))
        );
        // c2 in c1 .. c0 with c1 in 0 .. c0 and c0 in 0 .. N - 1: c0 - c1 + 1 <= N.
        let ranges = [
            Range {
                name: "c0",
                lower: &zero,
                upper: &upper,
            },
            Range {
                name: "c1",
                lower: &zero,
                upper: &v("c0"),
            },
        ];
        assert_eq!(
            trip_bound(&v("c1"), &v("c0"), &Int::one(), &n_only, &ranges),
            Some(v("N"))
        );
        // The window of a tile's point loop: from 4 * c0, 4 elements.
        let lower = Expr::Mul(Int::from(4), Box::new(v("c0")));
        let upper = Expr::Min(vec![
            Expr::Add(vec![v("N"), Expr::int(-1)]),
            Expr::Add(vec![lower.clone(), Expr::int(3)]),
        ]);
        assert_eq!(
            constant_window(&lower, &upper),
            Some((lower.clone(), Int::from(4)))
        );
        assert_eq!(constant_window(&zero, &upper), None);
        // An empty constant loop runs no iteration.
        assert_eq!(
            constant_trip(&Expr::int(5), &Expr::int(2), &Int::one()),
            Some(Int::zero())
        );
    }
}
