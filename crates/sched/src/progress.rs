//! Progression constraints: non-trivial rows that are linearly independent from a
//! statement's earlier rows (Pluto's orthogonal sub-space construction).
//!
//! For a statement whose loop rows `H` are not of full column rank, an integer basis
//! `v_1..v_k` of the null space of `H` spans the orthogonal complement of its row space
//! (when `H` is empty, the unit vectors). A new row `h` with `Σ s_i v_i·h ≥ 1` has a
//! non-zero component in that complement, so it is linearly independent from `H`; the
//! sign `s_i` of each basis vector is `+1` when `v_i·h ≥ 1` is rationally feasible with
//! the other constraints and `-1` otherwise (Pluto's `get_stmt_lin_ind_constraints`).
//! This is a sufficient condition only: it restricts `h` to one orthant of the
//! complement, as Pluto does.
//!
//! # Invariants
//! Rows are over the ILP variables of a [`Vars`] layout.

use pollen_arith::{Int, IntMatrix};
use pollen_presburger::solver::{self, System};
use pollen_presburger::Budget;

use crate::error::Result;
use crate::fm::Rows;
use crate::model::{Model, Row};
use crate::vars::Vars;

/// The row `Σ s_i v_i·h ≥ 1` for statement `s` given the rows so far and the constraints
/// `current` used for the sign choice.
pub fn independence_row(
    model: &Model,
    vars: &Vars,
    rows: &[Row],
    s: usize,
    current: &Rows,
    budget: &mut Budget,
) -> Result<Vec<Int>> {
    let d = model.stmts[s].dim;
    let h = model.loop_matrix(rows, s);
    let basis: Vec<Vec<Int>> = if h.is_empty() {
        (0..d)
            .map(|k| {
                let mut v = vec![Int::zero(); d];
                v[k] = Int::one();
                v
            })
            .collect()
    } else {
        IntMatrix::from_rows(h).null_space()
    };
    let mut sum = vars.zero_row();
    for v in basis {
        let mut r = vars.zero_row();
        for (k, a) in v.iter().enumerate() {
            r[1 + vars.coef(s, k)] = a.clone();
        }
        let mut probe = r.clone();
        probe[0] = Int::from(-1);
        if !rationally_feasible(current, probe, budget)? {
            for x in r.iter_mut() {
                *x = -&*x;
            }
        }
        for (a, b) in sum.iter_mut().zip(&r) {
            *a += b;
        }
    }
    sum[0] = Int::from(-1);
    Ok(sum)
}

/// Whether `rows ∧ extra ≥ 0`, all variables non-negative, has a rational solution.
pub fn rationally_feasible(rows: &Rows, extra: Vec<Int>, budget: &mut Budget) -> Result<bool> {
    let mut sys = System::new(rows.n);
    sys.eqs = rows.eqs.clone();
    sys.ineqs = rows.ineqs.clone();
    sys.ineqs.push(extra);
    for v in 0..rows.n {
        let mut r = vec![Int::zero(); rows.n + 1];
        r[1 + v] = Int::one();
        sys.ineqs.push(r);
    }
    Ok(!solver::is_rationally_empty(&sys, budget)?)
}

/// `Σ rows` with the constant replaced by `-at_least` (the row `Σ ≥ at_least`).
pub fn sum_rows(rows: &[Vec<Int>], at_least: i64) -> Vec<Int> {
    let n = rows.first().map_or(1, Vec::len);
    let mut sum = vec![Int::zero(); n];
    for r in rows {
        for (a, b) in sum.iter_mut().zip(r) {
            *a += b;
        }
    }
    sum[0] = Int::from(-at_least);
    sum
}
