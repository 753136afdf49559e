//! Exact elimination of equalities over the integers.
//!
//! Source: W. Pugh, "The Omega test" (Supercomputing 1991), §2.1 ("eliminating equality
//! constraints"), in the matrix form of a unimodular change of variables; cf. also the
//! Hermite-normal-form treatment in A. Schrijver, *Theory of Linear and Integer
//! Programming* (1986), §4–5.
//!
//! An equality `c + Σ a_i x_i = 0` of a normalized system (coefficient gcd 1) is removed
//! together with one variable:
//! - if some `|a_k| = 1`, `x_k = -a_k (c + Σ_{i≠k} a_i x_i)` is substituted everywhere;
//! - otherwise, with `a = a_k` the smallest coefficient in absolute value, the unimodular
//!   change of variables `x_k = x'_k - Σ_{i≠k} q_i x'_i` (`q_i` the rounded quotient
//!   `a_i / a`) replaces every `a_i` of the equality by the remainder `a_i - q_i a`, of
//!   absolute value at most `|a| / 2`. This is a step of Euclid's algorithm across the row;
//!   as the gcd is 1, a unit coefficient appears after finitely many steps.
//!
//! After the first equality, every further equality with a unit coefficient is
//! substituted away in the same call (substitution needs no renormalization); then the
//! remaining system is solved by a caller-supplied solver and the witness is mapped
//! back through the substitutions in reverse order.
//!
//! # Invariants
//! - the integer points of the reduced system are in bijection with those of the input
//!   (the substitutions are unimodular), so emptiness is decided exactly;
//! - every Euclid step strictly decreases the smallest nonzero coefficient of the chosen
//!   equality and spends budget.

use pollen_arith::Int;

use super::normalize::is_unit;
use super::System;
use crate::error::{Budget, Result};

/// A solver for the reduced system: an integer point or `None`.
pub(super) type Solver = fn(System, &mut Budget) -> Result<Option<Vec<Int>>>;

/// One change of coordinates made by [`eliminate_equality`], undone on the witness.
enum Step {
    /// `x_k = x'_k - Σ q_i x'_i` (column `k`, quotients `q`).
    Euclid(usize, Vec<Int>),
    /// Column `k` removed by the equality `e` (in the coordinates of that moment) whose
    /// coefficient of `x_k` is the unit `p`: `x_k = -p · (e with x_k at zero)`.
    Unit(usize, Int, Vec<Int>),
}

/// Eliminates one equality of a normalized system (with at least one equality) exactly,
/// then every further equality that has a unit coefficient (substitutions need no
/// normalization in between), and solves the rest with `solve`.
pub(super) fn eliminate_equality(
    mut sys: System,
    budget: &mut Budget,
    solve: Solver,
) -> Result<Option<Vec<Int>>> {
    let mut steps: Vec<Step> = Vec::new();
    let mut chosen = choose_equality(&sys);
    loop {
        let unit_column = loop {
            let equality = &sys.eqs[chosen];
            if let Some(column) = (1..=sys.n_vars).find(|&j| is_unit(&equality[j])) {
                break column;
            }
            budget.tick(1 + (sys.eqs.len() + sys.ineqs.len()) as u64)?;
            let (column, quotients) = euclid_step(equality);
            apply_substitution(&mut sys, column, &quotients);
            steps.push(Step::Euclid(column, quotients));
        };
        let equality = sys.eqs.swap_remove(chosen);
        let pivot = equality[unit_column].clone();
        // Rewrites the rows in place (no copies): substitute, then remove the column.
        let substitute = |mut row: Vec<Int>| {
            let coefficient = row[unit_column].clone();
            if !coefficient.is_zero() {
                let factor = &coefficient * &pivot;
                for (entry, e) in row.iter_mut().zip(&equality) {
                    if !e.is_zero() {
                        *entry = &*entry - &(&factor * e);
                    }
                }
            }
            row.remove(unit_column);
            row
        };
        sys = System {
            n_vars: sys.n_vars - 1,
            eqs: sys.eqs.into_iter().map(substitute).collect(),
            ineqs: sys.ineqs.into_iter().map(substitute).collect(),
        };
        steps.push(Step::Unit(unit_column, pivot, equality));
        match unit_equality(&sys) {
            Some(next) => {
                budget.tick(1 + (sys.eqs.len() + sys.ineqs.len()) as u64)?;
                chosen = next;
            }
            None => break,
        }
    }
    let Some(mut point) = solve(sys, budget)? else {
        return Ok(None);
    };
    for step in steps.iter().rev() {
        match step {
            Step::Euclid(column, quotients) => undo_substitution(&mut point, *column, quotients),
            Step::Unit(column, pivot, equality) => {
                let index = column - 1;
                point.insert(index, Int::zero());
                let rest = super::eval_row(equality, &point);
                point[index] = -(pivot * &rest);
            }
        }
    }
    Ok(Some(point))
}

/// An equality with a unit coefficient (the fewest nonzeros first), if any.
fn unit_equality(sys: &System) -> Option<usize> {
    (0..sys.eqs.len())
        .filter(|&i| sys.eqs[i][1..].iter().any(is_unit))
        .min_by_key(|&i| sys.eqs[i][1..].iter().filter(|a| !a.is_zero()).count())
}

/// Picks the equality to eliminate: one with a unit coefficient (fewest nonzeros first),
/// else the one with the smallest nonzero coefficient.
fn choose_equality(sys: &System) -> usize {
    let key = |row: &Vec<Int>| {
        let smallest = row[1..]
            .iter()
            .filter(|a| !a.is_zero())
            .map(Int::abs)
            .min()
            .unwrap_or_else(Int::zero);
        let nonzeros = row[1..].iter().filter(|a| !a.is_zero()).count();
        (smallest, nonzeros)
    };
    (0..sys.eqs.len())
        .min_by_key(|&i| key(&sys.eqs[i]))
        .unwrap_or(0)
}

/// For an equality without unit coefficients, the column `k` of its smallest coefficient
/// `a` and the quotients `q_i ≈ e_i / a` (rounded to nearest) such that the substitution
/// `x_k = x'_k - Σ q_i x'_i` leaves the coefficients `e_i - q_i a`, all smaller than `|a|`
/// in absolute value (`q_k = 0`).
fn euclid_step(equality: &[Int]) -> (usize, Vec<Int>) {
    let column = (1..equality.len())
        .filter(|&j| !equality[j].is_zero())
        .min_by_key(|&j| equality[j].abs())
        .unwrap_or(1);
    let a = &equality[column];
    let magnitude = a.abs();
    let mut quotients = vec![Int::zero(); equality.len()];
    for (j, e) in equality.iter().enumerate().skip(1) {
        if j == column || e.is_zero() {
            continue;
        }
        let mut q = e.floor_div(a);
        let remainder = e - &(&q * a);
        if &remainder.abs() * 2 > magnitude {
            // Round to nearest: |remainder - sign(remainder)·|a|| = |a| - |remainder|.
            let step = remainder.signum() * a.signum();
            q += Int::from(i64::from(step));
        }
        quotients[j] = q;
    }
    (column, quotients)
}

/// Applies `x_k = x'_k - Σ q_i x'_i` to every row: the coefficient of `x'_i` becomes
/// `r_i - r_k q_i`.
fn apply_substitution(sys: &mut System, column: usize, quotients: &[Int]) {
    for row in sys.eqs.iter_mut().chain(sys.ineqs.iter_mut()) {
        let coefficient = row[column].clone();
        if coefficient.is_zero() {
            continue;
        }
        for (entry, q) in row.iter_mut().zip(quotients) {
            if !q.is_zero() {
                *entry = &*entry - &(&coefficient * q);
            }
        }
    }
}

/// Maps a point in the substituted coordinates back: `x_k = x'_k - Σ q_i x'_i`.
fn undo_substitution(point: &mut [Int], column: usize, quotients: &[Int]) {
    let mut value = point[column - 1].clone();
    for (x, q) in point.iter().zip(&quotients[1..]) {
        if !q.is_zero() {
            value -= q * x;
        }
    }
    point[column - 1] = value;
}

/// The row without entry `column`.
pub(super) fn drop_column(row: &[Int], column: usize) -> Vec<Int> {
    let mut out = Vec::with_capacity(row.len() - 1);
    out.extend_from_slice(&row[..column]);
    out.extend_from_slice(&row[column + 1..]);
    out
}
