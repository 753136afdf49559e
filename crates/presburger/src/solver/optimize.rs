//! Integer optimisation and constraint classification on top of the Omega test and the
//! simplex.
//!
//! - [`integer_min`]: the rational minimum (simplex) bounds the integer minimum from
//!   below, any integer sample bounds it from above; the gap is closed by a galloping
//!   then binary search on the integer feasibility of `sys ∧ objective <= k`. An
//!   unbounded LP over a rational polyhedron with an integer point means an unbounded
//!   integer objective (scale a rational recession direction to an integer one), cf.
//!   A. Schrijver, *Theory of Linear and Integer Programming* (1986), §16.
//! - [`implicit_equalities`]: inequality `r >= 0` is an implicit equality iff
//!   `sys ∧ r >= 1` has no integer point; inequalities strictly satisfied at a known
//!   integer point are skipped (each successful test yields another such point).
//! - [`redundant_inequalities`]: inequality `r >= 0` is redundant with respect to the
//!   others still kept iff the LP minimum of `r` over them is `>= 0` (or they are empty);
//!   removing redundant rows one at a time keeps the polyhedron unchanged, which is why a
//!   group of duplicates keeps exactly its last member.
//!
//! # Invariants
//! - witnesses returned are integer points of the input satisfying every constraint;
//! - every search step spends budget (through the Omega test and the simplex).

use pollen_arith::Int;

use super::simplex::rational_min;
use super::{eval_row, Optimum, System};
use crate::error::{Budget, Error, Result};

/// Whether `sys` has no integer point (the Omega test).
pub fn is_integer_empty(sys: &System, budget: &mut Budget) -> Result<bool> {
    Ok(super::integer_sample(sys, budget)?.is_none())
}

/// The minimum of `objective = [c, a_1, ..., a_n]` over the integer points of `sys`, with
/// a point attaining it; `Unbounded` when integer points exist and the objective is
/// unbounded below on them.
pub fn integer_min(
    sys: &System,
    objective: &[Int],
    budget: &mut Budget,
) -> Result<Optimum<(Int, Vec<Int>)>> {
    sys.validate()?;
    if objective.len() != sys.n_vars + 1 {
        return Err(Error::Unsupported(format!(
            "objective of a system over {} variables must have {} entries",
            sys.n_vars,
            sys.n_vars + 1
        )));
    }
    let Some(mut best) = super::find_point(sys, budget)? else {
        return Ok(Optimum::Empty);
    };
    let mut high = eval_row(objective, &best);
    let mut low = match rational_min(sys, objective, budget)? {
        Optimum::Unbounded => return Ok(Optimum::Unbounded),
        // The rational polyhedron contains an integer point, so it is not empty.
        Optimum::Empty => high.clone(),
        Optimum::Bounded((value, _)) => value.ceil(),
    };
    // Invariant: the minimum lies in [low, high] and `best` attains `high`.
    let mut step = Int::zero();
    while low < high {
        budget.tick(1)?;
        let midpoint = (&low + &high).floor_div(&Int::from(2));
        let galloping = &low + &step;
        let probe = std::cmp::min(midpoint, galloping);
        // objective <= probe  <=>  probe - c - a·x >= 0
        let mut bounded = sys.clone();
        let mut row: Vec<Int> = objective.iter().map(|a| -a).collect();
        row[0] = &row[0] + &probe;
        bounded.ineqs.push(row);
        match super::find_point(&bounded, budget)? {
            Some(point) => {
                high = eval_row(objective, &point);
                best = point;
            }
            None => {
                low = probe + Int::one();
                step = &step * &Int::from(2) + Int::one();
            }
        }
    }
    Ok(Optimum::Bounded((high, best)))
}

/// The maximum of `objective` over the integer points of `sys`, with a point attaining
/// it; `Unbounded` when integer points exist and the objective is unbounded above on them.
pub fn integer_max(
    sys: &System,
    objective: &[Int],
    budget: &mut Budget,
) -> Result<Optimum<(Int, Vec<Int>)>> {
    let negated: Vec<Int> = objective.iter().map(|a| -a).collect();
    Ok(integer_min(sys, &negated, budget)?.map(|(value, point)| (-value, point)))
}

/// Indices (into `sys.ineqs`, increasing) of the inequalities that hold with equality at
/// every integer point of `sys`. When `sys` has no integer point, every inequality
/// qualifies.
pub fn implicit_equalities(sys: &System, budget: &mut Budget) -> Result<Vec<usize>> {
    sys.validate()?;
    let Some(first) = super::find_point(sys, budget)? else {
        return Ok((0..sys.ineqs.len()).collect());
    };
    let mut strict = vec![false; sys.ineqs.len()];
    let mark = |strict: &mut Vec<bool>, point: &[Int]| {
        for (flag, row) in strict.iter_mut().zip(&sys.ineqs) {
            if eval_row(row, point).is_positive() {
                *flag = true;
            }
        }
    };
    mark(&mut strict, &first);
    let mut implicit = Vec::new();
    for i in 0..sys.ineqs.len() {
        if strict[i] {
            continue;
        }
        budget.tick(1)?;
        let mut tightened = sys.clone();
        let mut row = sys.ineqs[i].clone();
        row[0] = &row[0] - &Int::one();
        tightened.ineqs.push(row);
        match super::find_point(&tightened, budget)? {
            Some(point) => mark(&mut strict, &point),
            None => implicit.push(i),
        }
    }
    Ok(implicit)
}

/// Indices (into `sys.ineqs`, increasing) of inequalities that can be dropped without
/// changing the rational polyhedron of `sys`: each is implied by the equalities and the
/// inequalities not reported. Of a group of duplicate inequalities all but the last are
/// reported.
pub fn redundant_inequalities(sys: &System, budget: &mut Budget) -> Result<Vec<usize>> {
    sys.validate()?;
    if let Some(redundant) = super::simplex::redundant_or_empty(sys, budget)? {
        return Ok(redundant);
    }
    // An empty polyhedron: which inequalities are implied depends on the order in which
    // the others are dropped; test each against the ones still kept.
    let mut kept = vec![true; sys.ineqs.len()];
    let mut redundant = Vec::new();
    for i in 0..sys.ineqs.len() {
        budget.tick(1)?;
        let others = System {
            n_vars: sys.n_vars,
            eqs: sys.eqs.clone(),
            ineqs: sys
                .ineqs
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i && kept[j])
                .map(|(_, row)| row.clone())
                .collect(),
        };
        let implied = match rational_min(&others, &sys.ineqs[i], budget)? {
            Optimum::Empty => true,
            Optimum::Unbounded => false,
            Optimum::Bounded((value, _)) => value >= pollen_arith::Rat::from_int(Int::zero()),
        };
        if implied {
            kept[i] = false;
            redundant.push(i);
        }
    }
    Ok(redundant)
}
