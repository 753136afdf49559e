//! Progression constraints: non-trivial rows that are linearly independent from a
//! statement's earlier rows (Pluto's orthogonal sub-space construction).
//!
//! For a statement whose loop rows `H` are not of full column rank, an integer basis
//! `v_1..v_k` of the null space of `H` spans the orthogonal complement of its row space
//! (when `H` is empty, the unit vectors). A new row `h` with `Σ s_i v_i·h ≥ 1` has a
//! non-zero component in that complement, so it is linearly independent from `H`; the
//! sign `s_i` of each basis vector is `+1` when `v_i·h ≥ 1` is feasible with the other
//! constraints and `-1` otherwise (Pluto's `get_stmt_lin_ind_constraints`). The
//! schedulers first try all signs `+1`, and make the (costly, one integer problem per
//! basis vector) sign choice only when that orthant has no solution: a deviation from
//! Pluto that changes nothing when the positive orthant holds the optimum.
//! This is a sufficient condition only: it restricts `h` to one orthant of the
//! complement, as Pluto does.
//!
//! # Invariants
//! Rows are over the ILP variables of a [`Vars`] layout.

use pollen_arith::{Int, IntMatrix};
use pollen_presburger::Budget;

use crate::error::Result;
use crate::fm::Rows;
use crate::ilp;
use crate::model::{Model, Row};
use crate::vars::Vars;

/// The lexicographic minimum of `base` with progression constraints for the statements
/// `not_full`: in eager mode each of them gets a non-trivial row linearly independent
/// from its earlier `rows`, in lazy mode at least one does. Signs are all positive first,
/// then chosen per group ([`component_signs`]) if that fails.
pub fn lexmin_progressing(
    model: &Model,
    vars: &Vars,
    rows: &[Row],
    base: &Rows,
    not_full: &[usize],
    lazy: bool,
    budget: &mut Budget,
) -> Result<Option<Vec<Int>>> {
    let mut current = base.clone();
    // With signed coefficients, independence alone excludes the zero row; the sum of
    // the coefficients may then be negative.
    if !vars.signed {
        let nontrivial: Vec<Vec<Int>> = not_full.iter().map(|&s| vars.nontrivial_row(s)).collect();
        if lazy {
            current.ineqs.push(sum_rows(&nontrivial, 1));
        } else {
            current.ineqs.extend(nontrivial);
        }
    }
    let null: Vec<Vec<Vec<Int>>> = not_full
        .iter()
        .map(|&s| null_rows(model, vars, rows, s))
        .collect();
    let with = |signs: &[Vec<bool>]| {
        let independence: Vec<Vec<Int>> = null
            .iter()
            .zip(signs)
            .map(|(n, s)| independence_row(n, s))
            .collect();
        let mut r = current.clone();
        if lazy {
            r.ineqs.push(sum_rows(&independence, 1));
        } else {
            r.ineqs.extend(independence);
        }
        r
    };
    let positive: Vec<Vec<bool>> = null.iter().map(|n| vec![true; n.len()]).collect();
    if let Some(sol) = ilp::lexmin(&with(&positive), budget)? {
        return Ok(Some(sol));
    }
    let signs = component_signs(vars, not_full, &null, &current, budget)?;
    if signs == positive {
        return Ok(None);
    }
    ilp::lexmin(&with(&signs), budget)
}

/// The rows `v_i·h` (constant zero) over a null-space basis `v_i` of statement `s`'s
/// loop rows, `h` being its coefficients in the ILP.
pub fn null_rows(model: &Model, vars: &Vars, rows: &[Row], s: usize) -> Vec<Vec<Int>> {
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
    basis
        .into_iter()
        .map(|v| {
            let mut r = vars.zero_row();
            for (k, a) in v.iter().enumerate() {
                vars.add_coef(&mut r, s, k, a);
            }
            r
        })
        .collect()
}

/// Pluto's sign choice: `true` (keep `v_i`) when `v_i·h ≥ 1` is feasible with
/// `current`, `false` (use `−v_i`) otherwise. The variables before `shared` (the distance
/// bound) are only bounded from below, so each test needs only the rows connected to the
/// statement's variables.
pub fn signs(
    null_rows: &[Vec<Int>],
    current: &Rows,
    shared: usize,
    budget: &mut Budget,
) -> Result<Vec<bool>> {
    let seeds: Vec<usize> = null_rows
        .iter()
        .flat_map(|r| {
            r[1..]
                .iter()
                .enumerate()
                .filter(|(_, a)| !a.is_zero())
                .map(|(v, _)| v)
        })
        .collect();
    let current = ilp::component(current, shared, &seeds);
    let current = &current;
    let mut out = Vec::with_capacity(null_rows.len());
    for r in null_rows {
        let mut probe = r.clone();
        probe[0] = Int::from(-1);
        out.push(feasible_with(current, probe, budget)?);
    }
    Ok(out)
}

/// The signs of the null-space rows `null[i]` of the statements `stmts[i]`: all positive
/// in every group of statements linked by `rows` (through variables after the prefix)
/// where that choice is feasible, chosen by [`signs`] in the other groups.
pub fn component_signs(
    vars: &Vars,
    stmts: &[usize],
    null: &[Vec<Vec<Int>>],
    rows: &Rows,
    budget: &mut Budget,
) -> Result<Vec<Vec<bool>>> {
    let shared = vars.prefix;
    let n_stmts = vars.dims.len();
    let mut parent: Vec<usize> = (0..n_stmts).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for r in rows.eqs.iter().chain(&rows.ineqs) {
        let mut first: Option<usize> = None;
        for (v, a) in r[1..].iter().enumerate() {
            if v < shared || a.is_zero() {
                continue;
            }
            let Some(s) = vars.statement_of(v) else {
                continue;
            };
            match first {
                None => first = Some(s),
                Some(f) => {
                    let (a, b) = (root(&mut parent, f), root(&mut parent, s));
                    parent[a] = b;
                }
            }
        }
    }
    let mut out: Vec<Vec<bool>> = null.iter().map(|n| vec![true; n.len()]).collect();
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, &s) in stmts.iter().enumerate() {
        groups.entry(root(&mut parent, s)).or_default().push(i);
    }
    for members in groups.values() {
        let seeds: Vec<usize> = members
            .iter()
            .flat_map(|&i| (0..=vars.dims[stmts[i]]).flat_map(move |k| vars.coef(stmts[i], k)))
            .map(|(v, _)| v)
            .collect();
        let mut probe = ilp::component(rows, shared, &seeds);
        let positive: Vec<Vec<Int>> = members
            .iter()
            .map(|&i| independence_row(&null[i], &out[i]))
            .collect();
        probe.ineqs.push(sum_rows(&positive, 1));
        if ilp::lexmin(&probe, budget)?.is_some() {
            continue;
        }
        for &i in members {
            out[i] = signs(&null[i], rows, shared, budget)?;
        }
    }
    Ok(out)
}

/// `Σ ±v_i·h ≥ 1`, the sign of each row given by `signs`.
pub fn independence_row(null_rows: &[Vec<Int>], signs: &[bool]) -> Vec<Int> {
    let n = null_rows.first().map_or(1, Vec::len);
    let mut sum = vec![Int::zero(); n];
    for (r, &positive) in null_rows.iter().zip(signs) {
        for (a, b) in sum.iter_mut().zip(r) {
            if positive {
                *a += b;
            } else {
                *a -= b;
            }
        }
    }
    sum[0] = Int::from(-1);
    sum
}

/// Whether `rows ∧ extra ≥ 0`, all variables non-negative, has an integer solution.
pub fn feasible_with(rows: &Rows, extra: Vec<Int>, budget: &mut Budget) -> Result<bool> {
    let mut probe = rows.clone();
    probe.ineqs.push(extra);
    Ok(ilp::lexmin(&probe, budget)?.is_some())
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
