//! Exact rational Fourier–Motzkin elimination on integer constraint rows.
//!
//! The Farkas multipliers of [`crate::farkas`] are *rational* unknowns: projecting them
//! out must keep every rational solution, so the library's integer projection (which
//! reasons about integer points) does not apply. This module projects a system of
//! equalities and inequalities onto a subset of its variables over the rationals:
//!
//! 1. every equality that involves a variable to eliminate is used to substitute it away
//!    (Gaussian elimination with integer row combinations, no division);
//! 2. the remaining variables are eliminated one at a time by Fourier–Motzkin, choosing
//!    the variable whose elimination creates the fewest rows, and pruning with
//!    Chernikov's rule (a row combined from more than `k + 1` original inequalities after
//!    `k` eliminations is redundant), duplicate and parallel rows (the weaker of two rows
//!    with the same coefficients is dropped).
//!
//! Rows are divided by the gcd of all their entries (constant included), which keeps
//! them exact over the rationals. [`tighten`] afterwards rounds the constants of rows
//! over integer variables (`a·x + c ≥ 0` with `g = gcd(a)` becomes
//! `(a/g)·x + ⌊c/g⌋ ≥ 0`), which keeps every integer solution.
//!
//! Source: Schrijver, *Theory of Linear and Integer Programming* (1986), §12.2;
//! Chernikov's rule as in Imbert, "Fourier's elimination: which to choose?" (1993).
//!
//! # Invariants
//! Every row has `1 + n` entries `[c, a_1, ..., a_n]`: `c + Σ a_i x_i = 0` (equalities)
//! or `≥ 0` (inequalities).

use std::collections::BTreeMap;

use pollen_arith::{gcd_slice, Int};

use crate::error::{Error, Result};

/// A conjunction of rational constraints over `n` variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    /// Number of variables.
    pub n: usize,
    /// Equalities `row = 0`.
    pub eqs: Vec<Vec<Int>>,
    /// Inequalities `row ≥ 0`.
    pub ineqs: Vec<Vec<Int>>,
}

impl Rows {
    /// No constraint over `n` variables.
    pub fn new(n: usize) -> Rows {
        Rows {
            n,
            eqs: Vec::new(),
            ineqs: Vec::new(),
        }
    }

    /// Whether a constant row is violated (the system is trivially infeasible).
    pub fn is_trivially_infeasible(&self) -> bool {
        let constant = |r: &Vec<Int>| r[1..].iter().all(Int::is_zero);
        self.eqs.iter().any(|r| constant(r) && !r[0].is_zero())
            || self.ineqs.iter().any(|r| constant(r) && r[0].is_negative())
    }

    /// Keeps only the variables `keep` (in that order), which must be the only
    /// variables with non-zero coefficients.
    pub fn select(&self, keep: &[usize]) -> Rows {
        let pick = |r: &Vec<Int>| {
            let mut out = Vec::with_capacity(keep.len() + 1);
            out.push(r[0].clone());
            out.extend(keep.iter().map(|&v| r[1 + v].clone()));
            out
        };
        Rows {
            n: keep.len(),
            eqs: self.eqs.iter().map(pick).collect(),
            ineqs: self.ineqs.iter().map(pick).collect(),
        }
    }
}

/// The most rows Fourier–Motzkin may hold at once before giving up.
const MAX_ROWS: usize = 20_000;

/// Projects `rows` onto the variables not in `eliminate`, exactly over the rationals.
/// The result has the same variables, with zero coefficients on the eliminated ones.
/// [`Error::LimitExceeded`] when the elimination grows beyond a fixed number of rows.
pub fn project_out(rows: Rows, eliminate: &[usize]) -> Result<Rows> {
    let mut rows = rows;
    let mut pending: Vec<usize> = eliminate.to_vec();
    pending.sort_unstable();
    pending.dedup();
    substitute_equalities(&mut rows, &mut pending);
    rows.ineqs = prune(std::mem::take(&mut rows.ineqs));
    eliminate_inequalities(&mut rows, &mut pending)?;
    Ok(rows)
}

/// Uses equalities to eliminate the pending variables they involve; removes those
/// variables from `pending`. A pending variable that appears in no equality but in an
/// inequality stays pending.
fn substitute_equalities(rows: &mut Rows, pending: &mut Vec<usize>) {
    loop {
        let mut best: Option<(usize, usize, usize)> = None; // (score, eq index, var)
        for (e, row) in rows.eqs.iter().enumerate() {
            for &v in pending.iter() {
                let a = &row[1 + v];
                if a.is_zero() {
                    continue;
                }
                let unit = usize::from(!a.abs().is_one());
                let occurrences = rows
                    .eqs
                    .iter()
                    .chain(rows.ineqs.iter())
                    .filter(|r| !r[1 + v].is_zero())
                    .count();
                let score = unit * 1_000_000 + occurrences;
                if !matches!(best, Some((s, _, _)) if s <= score) {
                    best = Some((score, e, v));
                }
            }
        }
        let Some((_, e, v)) = best else { break };
        let pivot = rows.eqs.swap_remove(e);
        let col = 1 + v;
        for r in rows.eqs.iter_mut() {
            eliminate_with_equality(r, &pivot, col);
        }
        for r in rows.ineqs.iter_mut() {
            eliminate_with_equality(r, &pivot, col);
        }
        rows.eqs.retain(|r| r.iter().any(|c| !c.is_zero()));
        pending.retain(|&p| p != v);
    }
}

/// `row := p·row − r·pivot` scaled so that the multiplier of `row` is positive (which
/// keeps the sense of an inequality), where `p` and `r` are the coefficients of `col`.
fn eliminate_with_equality(row: &mut [Int], pivot: &[Int], col: usize) {
    if row[col].is_zero() {
        return;
    }
    let p = &pivot[col];
    let r = row[col].clone();
    let g = p.gcd(&r);
    let (mut mp, mut mr) = (p.exact_div(&g), r.exact_div(&g));
    if mp.is_negative() {
        mp = -mp;
        mr = -mr;
    }
    for (x, y) in row.iter_mut().zip(pivot) {
        *x = &*x * &mp - &mr * y;
    }
    debug_assert!(row[col].is_zero());
    normalize_exact(row);
}

/// Divides a row by the gcd of all its entries.
fn normalize_exact(row: &mut [Int]) {
    let g = gcd_slice(row);
    if !g.is_zero() && !g.is_one() {
        for x in row.iter_mut() {
            *x = x.exact_div(&g);
        }
    }
}

/// An inequality with the set of original inequalities it was combined from.
struct Tracked {
    row: Vec<Int>,
    origins: Vec<u64>,
}

fn origin_count(o: &[u64]) -> u32 {
    o.iter().map(|w| w.count_ones()).sum()
}

/// Fourier–Motzkin on the pending variables of the inequalities.
fn eliminate_inequalities(rows: &mut Rows, pending: &mut Vec<usize>) -> Result<()> {
    let words = rows.ineqs.len().div_ceil(64).max(1);
    let mut tracked: Vec<Tracked> = rows
        .ineqs
        .drain(..)
        .enumerate()
        .map(|(k, row)| {
            let mut origins = vec![0u64; words];
            origins[k / 64] |= 1 << (k % 64);
            Tracked { row, origins }
        })
        .collect();
    let mut eliminated = 0u32;
    while !pending.is_empty() {
        let (index, v) = cheapest(&tracked, pending);
        pending.swap_remove(index);
        let col = 1 + v;
        let (mut pos, mut neg, mut rest) = (Vec::new(), Vec::new(), Vec::new());
        for t in tracked {
            match t.row[col].signum() {
                1 => pos.push(t),
                -1 => neg.push(t),
                _ => rest.push(t),
            }
        }
        eliminated += 1;
        let mut combined = rest;
        for p in &pos {
            for q in &neg {
                let origins: Vec<u64> = p
                    .origins
                    .iter()
                    .zip(&q.origins)
                    .map(|(a, b)| a | b)
                    .collect();
                if origin_count(&origins) > eliminated + 1 {
                    continue;
                }
                combined.push(Tracked {
                    row: combine(&p.row, &q.row, col),
                    origins,
                });
            }
        }
        tracked = prune_tracked(combined);
        if tracked.len() > MAX_ROWS {
            return Err(Error::LimitExceeded);
        }
    }
    rows.ineqs = tracked.into_iter().map(|t| t.row).collect();
    Ok(())
}

/// The pending variable (index into `pending`, variable) whose elimination creates the
/// fewest new rows.
fn cheapest(tracked: &[Tracked], pending: &[usize]) -> (usize, usize) {
    let mut best = (usize::MAX, 0, pending[0]);
    for (k, &v) in pending.iter().enumerate() {
        let col = 1 + v;
        let pos = tracked.iter().filter(|t| t.row[col].is_positive()).count();
        let neg = tracked.iter().filter(|t| t.row[col].is_negative()).count();
        let growth = pos * neg;
        if growth < best.0 {
            best = (growth, k, v);
        }
    }
    (best.1, best.2)
}

/// The positive combination of `p` (positive at `col`) and `q` (negative at `col`) that
/// cancels `col`.
fn combine(p: &[Int], q: &[Int], col: usize) -> Vec<Int> {
    let a = &p[col];
    let b = -&q[col];
    let g = a.gcd(&b);
    let (ma, mb) = (b.exact_div(&g), a.exact_div(&g));
    let mut row: Vec<Int> = p.iter().zip(q).map(|(x, y)| x * &ma + y * &mb).collect();
    normalize_exact(&mut row);
    row
}

/// Drops trivially true rows, duplicates and the weaker of parallel rows (an infeasible
/// constant row is kept).
pub fn prune(rows: Vec<Vec<Int>>) -> Vec<Vec<Int>> {
    let tracked = rows
        .into_iter()
        .map(|row| Tracked {
            row,
            origins: Vec::new(),
        })
        .collect();
    prune_tracked(tracked).into_iter().map(|t| t.row).collect()
}

fn prune_tracked(rows: Vec<Tracked>) -> Vec<Tracked> {
    // Rows with the same coefficients (after the exact normalisation, a common positive
    // factor may remain between the constant and the coefficients, so normalise the
    // coefficient part for the key).
    let mut best: BTreeMap<Vec<Int>, (Int, Int, Tracked)> = BTreeMap::new();
    let mut out = Vec::new();
    for t in rows {
        let coeffs = &t.row[1..];
        if coeffs.iter().all(Int::is_zero) {
            if t.row[0].is_negative() {
                // Infeasible: keep it, it decides the answer.
                out.push(t);
            }
            continue;
        }
        let g = gcd_slice(coeffs);
        let key: Vec<Int> = coeffs.iter().map(|c| c.exact_div(&g)).collect();
        // The row is key·x + c/g ≥ 0; compare c/g as the fraction (c, g).
        let (c, d) = (t.row[0].clone(), g);
        match best.get(&key) {
            Some((c0, d0, _)) if &c * d0 >= c0 * &d => {}
            _ => {
                best.insert(key, (c, d, t));
            }
        }
    }
    out.extend(best.into_values().map(|(_, _, t)| t));
    out
}

/// Rounds the constants of inequalities over integer variables and divides equalities
/// by their gcd; an equality whose coefficients' gcd does not divide its constant makes
/// the system infeasible (it becomes the row `-1 ≥ 0`).
pub fn tighten(rows: &mut Rows) {
    for r in rows.ineqs.iter_mut() {
        let g = gcd_slice(&r[1..]);
        if g.is_zero() || g.is_one() {
            continue;
        }
        r[0] = r[0].floor_div(&g);
        for x in r[1..].iter_mut() {
            *x = x.exact_div(&g);
        }
    }
    let mut infeasible = false;
    for r in rows.eqs.iter_mut() {
        let g = gcd_slice(&r[1..]);
        if g.is_zero() {
            infeasible |= !r[0].is_zero();
            continue;
        }
        if !g.divides(&r[0]) {
            infeasible = true;
            continue;
        }
        for x in r.iter_mut() {
            *x = x.exact_div(&g);
        }
    }
    if infeasible {
        let mut row = vec![Int::zero(); rows.n + 1];
        row[0] = Int::from(-1);
        rows.ineqs.push(row);
    }
    rows.ineqs = prune(std::mem::take(&mut rows.ineqs));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: &[i64]) -> Vec<Int> {
        v.iter().map(|&x| Int::from(x)).collect()
    }

    #[test]
    fn projects_a_triangle_onto_one_axis() {
        // 0 <= y, y <= x, x + y <= 4: projection on x is 0 <= x <= 4.
        let mut r = Rows::new(2);
        r.ineqs = vec![row(&[0, 0, 1]), row(&[0, 1, -1]), row(&[4, -1, -1])];
        let p = project_out(r, &[1]).unwrap();
        let mut got: Vec<Vec<Int>> = p.ineqs.clone();
        got.sort();
        let mut want = vec![row(&[0, 1, 0]), row(&[4, -1, 0])];
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn keeps_rational_solutions() {
        // x = 2y, 0 <= y <= 1 projected on x: 0 <= x <= 2 rationally (x = 1 allowed).
        let mut r = Rows::new(2);
        r.eqs = vec![row(&[0, 1, -2])];
        r.ineqs = vec![row(&[0, 0, 1]), row(&[1, 0, -1])];
        let p = project_out(r, &[1]).unwrap();
        assert!(p.eqs.is_empty());
        let mut got = p.ineqs.clone();
        got.sort();
        let mut want = vec![row(&[0, 1, 0]), row(&[2, -1, 0])];
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn detects_infeasibility() {
        let mut r = Rows::new(2);
        r.ineqs = vec![row(&[-1, 0, 1]), row(&[0, 0, -1])];
        let p = project_out(r, &[1]).unwrap();
        assert!(p.is_trivially_infeasible());
    }

    #[test]
    fn tighten_rounds_constants() {
        let mut r = Rows::new(1);
        r.ineqs = vec![row(&[3, -2])];
        tighten(&mut r);
        assert_eq!(r.ineqs, vec![row(&[1, -1])]);
    }
}
