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
use crate::fm::Rows;

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
