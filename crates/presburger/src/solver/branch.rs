//! Integer sampling by recession-cone decomposition and branching on hyperplanes.
//!
//! This is the robust companion of the Omega test (`omega.rs`): its cost grows with the
//! widths of the set rather than with the number of Fourier–Motzkin combinations, which
//! makes it fast on the systems with many floor-division variables (tight pairs
//! `L <= e - a q <= L + a - 1`) on which the Omega test splinters exponentially.
//! The structure follows isl's `isl_basic_set_sample` (`isl_sample.c`, S. Verdoolaege):
//!
//! 1. equalities are eliminated exactly (see `equalities.rs`);
//! 2. the *recession cone* `C = {d : A d >= 0}` is analysed with one LP: inequality `i`
//!    is an implicit equality of `C` iff `max t_i = 0` in
//!    `max Σ t_i  s.t.  a_i·d >= t_i, 0 <= t_i <= 1`;
//! 3. a unimodular `U` (Hermite normal form of the implicit rows `E`, `E U = [H 0]`) maps
//!    the variables to `(y, z)` where the implicit rows involve `y` only and `C` is
//!    full-dimensional in `z`. The rows without `z` form a *bounded* set `B` in `y`, and
//!    every `y ∈ B` extends to integer points: for an interior direction `d*` of the cone,
//!    every other row grows along `d*`. So `P` has an integer point iff `B` has one;
//! 4. `B` is sampled by depth-first branching on hyperplanes: among the row normals and
//!    unit vectors, the direction `v` with the fewest integer values of `v·y` over the LP
//!    relaxation is chosen and each value `v·y = k` becomes an equality (one dimension
//!    less). An integral LP vertex ends the search early;
//! 5. the `z` part is obtained by rounding: a rational point of the fiber with every row
//!    tightened by `||a_z||_1 / 2` rounds coordinate-wise to an integer point of the fiber.
//!
//! # Invariants
//! - complete and exact: `B` is bounded, so branching terminates; every answer is a
//!   point of the input or a proof of emptiness;
//! - every node of the search and every LP spends budget.

use pollen_arith::{Int, IntMatrix, Rat};

use super::equalities::eliminate_equality;
use super::normalize::normalize_owned;
use super::simplex::{rational_min, rational_sample, Polyhedron};
use super::{Optimum, System};
use crate::error::{Budget, Error, Result};

/// An integer point of `sys`, or `None` when there is none.
pub(super) fn sample(sys: System, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    budget.tick(1)?;
    let Some(sys) = normalize_owned(sys) else {
        return Ok(None);
    };
    if !sys.eqs.is_empty() {
        return eliminate_equality(sys, budget, sample);
    }
    if sys.ineqs.is_empty() {
        return Ok(Some(vec![Int::zero(); sys.n_vars]));
    }
    let implicit = cone_implicit_rows(&sys, budget)?;
    if implicit.iter().all(|&flag| !flag) {
        // The recession cone is full-dimensional: rounding always succeeds.
        return match round_into(&sys, budget)? {
            Some(point) => Ok(Some(point)),
            None => Err(invariant_violated("a full-dimensional cone without points")),
        };
    }
    let n = sys.n_vars;
    let cone_equalities: Vec<Vec<Int>> = sys
        .ineqs
        .iter()
        .zip(&implicit)
        .filter(|(_, &flag)| flag)
        .map(|(row, _)| row[1..].to_vec())
        .collect();
    let (_, transform, rank) = IntMatrix::from_rows(cone_equalities).hermite_normal_form();
    let rows: Vec<Vec<Int>> = sys
        .ineqs
        .iter()
        .map(|row| transform_row(row, &transform))
        .collect();
    let (bounded_rows, fiber_rows): (Vec<Vec<Int>>, Vec<Vec<Int>>) = rows
        .into_iter()
        .partition(|row| row[rank + 1..].iter().all(Int::is_zero));
    let bounded = System {
        n_vars: rank,
        eqs: Vec::new(),
        ineqs: bounded_rows
            .iter()
            .map(|row| row[..rank + 1].to_vec())
            .collect(),
    };
    let Some(y) = sample_bounded(bounded, budget)? else {
        return Ok(None);
    };
    let fiber = System {
        n_vars: n - rank,
        eqs: Vec::new(),
        ineqs: fiber_rows
            .iter()
            .map(|row| {
                let mut reduced = Vec::with_capacity(n - rank + 1);
                reduced.push(super::eval_row(&row[..rank + 1], &y));
                reduced.extend_from_slice(&row[rank + 1..]);
                reduced
            })
            .collect(),
    };
    let Some(z) = round_into(&fiber, budget)? else {
        return Err(invariant_violated(
            "the fiber of a bounded sample has no point",
        ));
    };
    let mut w = y;
    w.extend(z);
    Ok(Some(transform.mul_vec(&w)))
}

/// The error reported when an internal invariant fails (a bug, never an input problem).
fn invariant_violated(what: &str) -> Error {
    Error::Unsupported(format!("integer sampling invariant violated: {what}"))
}

/// The row `[c, a]` in the coordinates `w` with `x = U w`: `[c, a U]`.
fn transform_row(row: &[Int], transform: &IntMatrix) -> Vec<Int> {
    let n = transform.n_cols();
    let mut out = Vec::with_capacity(n + 1);
    out.push(row[0].clone());
    for j in 0..n {
        let mut value = Int::zero();
        for (i, a) in row[1..].iter().enumerate() {
            let u = transform.get(i, j);
            if !a.is_zero() && !u.is_zero() {
                value += a * u;
            }
        }
        out.push(value);
    }
    out
}

/// For each inequality of `sys`, whether it is an implicit equality of the recession cone
/// `{d : a_i·d >= 0}` (one LP, see the module documentation).
fn cone_implicit_rows(sys: &System, budget: &mut Budget) -> Result<Vec<bool>> {
    let n = sys.n_vars;
    let m = sys.ineqs.len();
    let width = n + m + 1;
    let mut lp = System::new(n + m);
    for (i, row) in sys.ineqs.iter().enumerate() {
        // a_i·d - t_i >= 0
        let mut constraint = vec![Int::zero(); width];
        constraint[1..=n].clone_from_slice(&row[1..]);
        constraint[1 + n + i] = -Int::one();
        lp.ineqs.push(constraint);
        // t_i >= 0, 1 - t_i >= 0
        let mut lower = vec![Int::zero(); width];
        lower[1 + n + i] = Int::one();
        lp.ineqs.push(lower);
        let mut upper = vec![Int::zero(); width];
        upper[0] = Int::one();
        upper[1 + n + i] = -Int::one();
        lp.ineqs.push(upper);
    }
    // minimise -Σ t_i
    let mut objective = vec![Int::zero(); width];
    for entry in &mut objective[1 + n..] {
        *entry = -Int::one();
    }
    match rational_min(&lp, &objective, budget)? {
        Optimum::Bounded((_, point)) => Ok(point[n..].iter().map(Rat::is_zero).collect()),
        Optimum::Empty | Optimum::Unbounded => {
            Err(invariant_violated("the recession cone LP is not bounded"))
        }
    }
}

/// An integer point of `sys`, whose recession cone must be full-dimensional (every row
/// non-implicit in the cone): a rational point of the system with each row
/// `c + a·x >= 0` tightened to `c + a·x >= ||a||_1 / 2` rounds to one. `None` only when
/// that premise fails.
fn round_into(sys: &System, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    let tightened = System {
        n_vars: sys.n_vars,
        eqs: Vec::new(),
        ineqs: sys
            .ineqs
            .iter()
            .map(|row| {
                let norm = row[1..].iter().fold(Int::zero(), |acc, a| acc + a.abs());
                let mut scaled: Vec<Int> = row.iter().map(|a| a * 2).collect();
                scaled[0] = &scaled[0] - &norm;
                scaled
            })
            .collect(),
    };
    let Some(point) = rational_sample(&tightened, budget)? else {
        return Ok(None);
    };
    let two = Int::from(2);
    let rounded: Vec<Int> = point
        .iter()
        .map(|q| (q.numer() * 2 + q.denom()).floor_div(&(q.denom() * &two)))
        .collect();
    if sys.contains(&rounded) {
        Ok(Some(rounded))
    } else {
        Err(invariant_violated("rounding left the system"))
    }
}

/// An integer point of the bounded system `sys`, or `None`: branching on hyperplanes.
fn sample_bounded(sys: System, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    budget.tick(1)?;
    let Some(sys) = normalize_owned(sys) else {
        return Ok(None);
    };
    if !sys.eqs.is_empty() {
        return eliminate_equality(sys, budget, sample_bounded);
    }
    if sys.ineqs.is_empty() {
        // Bounded without constraints: no variables left (or any point will do).
        return Ok(Some(vec![Int::zero(); sys.n_vars]));
    }
    let polyhedron = Polyhedron::new(&sys, budget)?;
    let Some(vertex) = polyhedron.point() else {
        return Ok(None);
    };
    if vertex.iter().all(Rat::is_integer) {
        return Ok(Some(vertex.iter().map(Rat::floor).collect()));
    }
    let Some((direction, low, high)) = narrowest_direction(&sys, &polyhedron, budget)? else {
        return Ok(None);
    };
    let mut value = low;
    while value <= high {
        budget.tick(1)?;
        let mut slice = sys.clone();
        let mut equality = Vec::with_capacity(direction.len() + 1);
        equality.push(-&value);
        equality.extend(direction.iter().cloned());
        slice.eqs.push(equality);
        if let Some(point) = sample_bounded(slice, budget)? {
            return Ok(Some(point));
        }
        value += 1;
    }
    Ok(None)
}

/// The branching direction `v` (a row normal or a unit vector, primitive) with the fewest
/// integers in `[min v·x, max v·x]` over the rational polyhedron of the bounded `sys`,
/// with that integer range; `None` when some direction has no integer in its range (so
/// the system has no integer point).
fn narrowest_direction(
    sys: &System,
    polyhedron: &Polyhedron,
    budget: &mut Budget,
) -> Result<Option<(Vec<Int>, Int, Int)>> {
    let n = sys.n_vars;
    let mut candidates: Vec<Vec<Int>> = Vec::new();
    for row in &sys.ineqs {
        let mut direction = row[1..].to_vec();
        if direction
            .iter()
            .find(|a| !a.is_zero())
            .is_some_and(Int::is_negative)
        {
            for a in &mut direction {
                *a = -&*a;
            }
        }
        candidates.push(direction);
    }
    for j in 0..n {
        let mut unit = vec![Int::zero(); n];
        unit[j] = Int::one();
        candidates.push(unit);
    }
    candidates.sort();
    candidates.dedup();
    let mut best: Option<(Vec<Int>, Int, Int)> = None;
    for direction in candidates {
        let mut objective = Vec::with_capacity(n + 1);
        objective.push(Int::zero());
        objective.extend(direction.iter().cloned());
        let (Optimum::Bounded((low, _)), Optimum::Bounded((high, _))) = (
            polyhedron.minimize(&objective, budget)?,
            polyhedron.maximize(&objective, budget)?,
        ) else {
            continue;
        };
        let (low, high) = (low.ceil(), high.floor());
        if low > high {
            return Ok(None);
        }
        let count = &high - &low;
        let better = match &best {
            None => true,
            Some((_, best_low, best_high)) => count < best_high - best_low,
        };
        if better {
            let done = count.is_zero();
            best = Some((direction, low, high));
            if done {
                break;
            }
        }
    }
    match best {
        Some(found) => Ok(Some(found)),
        None => Err(invariant_violated(
            "a bounded system has no bounded direction",
        )),
    }
}
