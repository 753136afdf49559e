//! Farkas linearisation: the linear constraints on unknown coefficients under which an
//! affine form is non-negative on a whole polyhedron.
//!
//! Affine form of Farkas' lemma (Feautrier 1992, Part I, §3; Schrijver §7.8): on a
//! non-empty polyhedron `P = { x : A x + a ≥ 0, E x + e = 0 }`, an affine form
//! `ψ(x) = γ·x + γ0` is non-negative everywhere iff
//! `ψ(x) ≡ λ0 + λ·(A x + a) + μ·(E x + e)` for some `λ0, λ ≥ 0` and free `μ`.
//! Matching the coefficient of every column of `x` and the constant gives linear
//! equalities between `(γ, γ0)` and the multipliers `(λ, μ)`; the multipliers are
//! rational, and [`crate::fm`] projects them out exactly, leaving linear constraints on
//! the unknowns alone.
//!
//! Here the coefficients `γ_j` and `γ0` are themselves affine functions of unknown
//! schedule coefficients `v`: `γ_j = forms[j]·(1, v)`, `γ0 = constant·(1, v)`. The answer
//! is a system over `v` whose integer points are exactly the integer `v` for which `ψ`
//! is non-negative on the rational polyhedron (a sufficient condition for non-negativity
//! on its integer points; local variables of the polyhedron are treated as rational).
//!
//! # Invariants
//! `forms` has one row per column of the polyhedron, every row (and `constant`) has
//! `1 + n_v` entries.

use pollen_arith::Int;
use pollen_presburger::solver::System;

use crate::error::Result;
use crate::fm::{self, Rows};

/// Constraints over `v` (rows `[c, v_1, ..., v_{n_v}]`) equivalent to
/// `forms·x + constant ≥ 0` for every rational point `x` of `poly`.
pub fn nonnegative_on(
    poly: &System,
    forms: &[Vec<Int>],
    constant: &[Int],
    n_v: usize,
) -> Result<Rows> {
    debug_assert_eq!(forms.len(), poly.n_vars);
    let m = poly.ineqs.len();
    let q = poly.eqs.len();
    let n = n_v + m + q;
    let lambda = |k: usize| 1 + n_v + k;
    let mu = |e: usize| 1 + n_v + m + e;
    let mut rows = Rows::new(n);
    // One equality per column of x: γ_j − Σ λ_k A_kj − Σ μ_e E_ej = 0.
    for (j, form) in forms.iter().enumerate() {
        let mut row = vec![Int::zero(); n + 1];
        row[..=n_v].clone_from_slice(form);
        for (k, a) in poly.ineqs.iter().enumerate() {
            row[lambda(k)] = -&a[1 + j];
        }
        for (e, a) in poly.eqs.iter().enumerate() {
            row[mu(e)] = -&a[1 + j];
        }
        if row.iter().any(|c| !c.is_zero()) {
            rows.eqs.push(row);
        }
    }
    // The constant: γ0 − Σ λ_k a_k − Σ μ_e e_e = λ0 ≥ 0.
    let mut row = vec![Int::zero(); n + 1];
    row[..=n_v].clone_from_slice(constant);
    for (k, a) in poly.ineqs.iter().enumerate() {
        row[lambda(k)] = -&a[0];
    }
    for (e, a) in poly.eqs.iter().enumerate() {
        row[mu(e)] = -&a[0];
    }
    rows.ineqs.push(row);
    // λ ≥ 0.
    for k in 0..m {
        let mut row = vec![Int::zero(); n + 1];
        row[lambda(k)] = Int::one();
        rows.ineqs.push(row);
    }
    let multipliers: Vec<usize> = (n_v..n).collect();
    let projected = fm::project_out(rows, &multipliers)?;
    let keep: Vec<usize> = (0..n_v).collect();
    let mut out = projected.select(&keep);
    fm::tighten(&mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: &[i64]) -> Vec<Int> {
        v.iter().map(|&x| Int::from(x)).collect()
    }

    /// Whether `v` satisfies every row.
    fn holds(rows: &Rows, v: &[i64]) -> bool {
        let eval = |r: &Vec<Int>| {
            let mut s = r[0].clone();
            for (a, x) in r[1..].iter().zip(v) {
                s += a * &Int::from(*x);
            }
            s
        };
        rows.eqs.iter().all(|r| eval(r).is_zero())
            && rows.ineqs.iter().all(|r| !eval(r).is_negative())
    }

    #[test]
    fn a_times_x_plus_b_nonnegative_on_an_interval() {
        // P = { x : 0 <= x <= 10 }, ψ = a·x + b with unknowns (a, b):
        // ψ ≥ 0 on P iff b ≥ 0 and 10a + b ≥ 0.
        let poly = System {
            n_vars: 1,
            eqs: vec![],
            ineqs: vec![row(&[0, 1]), row(&[10, -1])],
        };
        let forms = vec![row(&[0, 1, 0])];
        let constant = row(&[0, 0, 1]);
        let c = nonnegative_on(&poly, &forms, &constant, 2).unwrap();
        for a in -5..=5 {
            for b in -60..=60 {
                let want = b >= 0 && 10 * a + b >= 0;
                assert_eq!(holds(&c, &[a, b]), want, "a = {a}, b = {b}");
            }
        }
    }

    #[test]
    fn parametric_bound_and_equalities() {
        // P = { (i, j, N) : j = i + 1, 0 <= i, i + 1 <= N }: ψ = c·(j − i) + u·N + w.
        // (j − i) = 1 on P, and N ≥ 1 with N unbounded above, so ψ ≥ 0 iff u ≥ 0 and
        // c + u + w ≥ 0.
        let poly = System {
            n_vars: 3,
            eqs: vec![row(&[-1, -1, 1, 0])],
            ineqs: vec![row(&[0, 1, 0, 0]), row(&[-1, -1, 0, 1])],
        };
        // unknowns (c, u, w)
        let forms = vec![row(&[0, -1, 0, 0]), row(&[0, 1, 0, 0]), row(&[0, 0, 1, 0])];
        let constant = row(&[0, 0, 0, 1]);
        let c = nonnegative_on(&poly, &forms, &constant, 3).unwrap();
        for cc in -3..=3 {
            for u in -3..=3 {
                for w in -8..=8 {
                    let want = u >= 0 && cc + u + w >= 0;
                    assert_eq!(holds(&c, &[cc, u, w]), want, "c={cc} u={u} w={w}");
                }
            }
        }
    }
}
