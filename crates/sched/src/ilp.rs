//! Exact lexicographic integer minimisation over non-negative variables.
//!
//! The scheduling problems of [`crate::pluto`] and [`crate::feautrier`] ask for the
//! lexicographically smallest integer point of a polyhedron over non-negative variables,
//! the variable order being the objective order (Pluto: `u`, `w`, then the
//! coefficients). This module hands the problem to the library's exact lexicographic
//! minimum of a non-parametric set (Feautrier's parametric integer programming on a
//! dual simplex with Gomory cuts, `Set::lexmin_point`).
//!
//! # Invariants
//! Rows have `1 + n` entries `[c, a_1, ..., a_n]`; every variable is implicitly `≥ 0`.

use pollen_arith::Int;
use pollen_presburger::solver::Optimum;
use pollen_presburger::{BasicMap, BasicSet, Budget, Set, Space, Tuple};

use crate::error::{Error, Result};
use crate::fm::{self, Rows};

/// The lexicographically smallest non-negative integer point of `rows`, or `None` when
/// there is none.
pub fn lexmin(rows: &Rows, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    if rows.is_trivially_infeasible() {
        return Ok(None);
    }
    let n = rows.n;
    let mut ineqs = rows.ineqs.clone();
    for v in 0..n {
        let mut r = vec![Int::zero(); n + 1];
        r[1 + v] = Int::one();
        ineqs.push(r);
    }
    let space = Space::set(Vec::new(), Tuple::anonymous(n));
    let b = BasicMap::from_parts(space, Vec::new(), rows.eqs.clone(), ineqs)?;
    let set = Set::from(BasicSet::from_basic_map(b)?);
    match set.lexmin_point_with(budget)? {
        Optimum::Bounded(p) => Ok(Some(p)),
        Optimum::Empty => Ok(None),
        // Non-negative variables always have a lexicographic minimum.
        Optimum::Unbounded => Err(Error::NoLegalSchedule),
    }
}

/// `rows` without the inequalities that hold for all non-negative variables (no
/// negative entry), duplicates and the weaker of parallel inequalities.
pub fn simplify(rows: Rows) -> Rows {
    let needed: Vec<Vec<Int>> = rows
        .ineqs
        .into_iter()
        .filter(|r| r.iter().any(Int::is_negative))
        .collect();
    Rows {
        n: rows.n,
        eqs: rows.eqs,
        ineqs: fm::prune(needed),
    }
}

/// The rows of `rows` connected to the variables `seeds` through variables at or after
/// `shared` (variables before `shared` do not connect rows). When the rows are feasible,
/// adding a constraint over the seed variables keeps them feasible iff it keeps this
/// component feasible, provided the shared variables are only bounded from below.
pub fn component(rows: &Rows, shared: usize, seeds: &[usize]) -> Rows {
    let all: Vec<(&Vec<Int>, bool)> = rows
        .eqs
        .iter()
        .map(|r| (r, true))
        .chain(rows.ineqs.iter().map(|r| (r, false)))
        .collect();
    // The variables (at or after `shared`) of every row, and the rows of every variable.
    let row_vars: Vec<Vec<usize>> = all
        .iter()
        .map(|(r, _)| {
            r[1 + shared..]
                .iter()
                .enumerate()
                .filter(|(_, a)| !a.is_zero())
                .map(|(v, _)| shared + v)
                .collect()
        })
        .collect();
    let mut var_rows: Vec<Vec<usize>> = vec![Vec::new(); rows.n];
    for (k, vs) in row_vars.iter().enumerate() {
        for &v in vs {
            var_rows[v].push(k);
        }
    }
    let mut reached = vec![false; rows.n];
    let mut taken = vec![false; all.len()];
    let mut frontier: Vec<usize> = seeds.iter().copied().filter(|&v| v >= shared).collect();
    for &v in &frontier {
        reached[v] = true;
    }
    while let Some(v) = frontier.pop() {
        for &k in &var_rows[v] {
            if taken[k] {
                continue;
            }
            taken[k] = true;
            for &w in &row_vars[k] {
                if !reached[w] {
                    reached[w] = true;
                    frontier.push(w);
                }
            }
        }
    }
    let mut out = Rows::new(rows.n);
    for (k, (r, eq)) in all.into_iter().enumerate() {
        if taken[k] || row_vars[k].is_empty() {
            if eq {
                out.eqs.push(r.clone());
            } else {
                out.ineqs.push(r.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: &[i64]) -> Vec<Int> {
        v.iter().map(|&x| Int::from(x)).collect()
    }

    #[test]
    fn lexmin_prefers_earlier_variables() {
        // x + y >= 3, 2x - y >= -1: smallest x is 1 (1 + y >= 3 with y <= 3).
        let mut r = Rows::new(2);
        r.ineqs = vec![row(&[-3, 1, 1]), row(&[1, 2, -1])];
        let p = lexmin(&r, &mut Budget::unlimited()).unwrap().unwrap();
        assert_eq!(p, row(&[1, 2]));
    }

    #[test]
    fn integer_infeasible() {
        // 2x = 1
        let mut r = Rows::new(1);
        r.eqs = vec![row(&[-1, 2])];
        assert_eq!(lexmin(&r, &mut Budget::unlimited()).unwrap(), None);
    }
}
