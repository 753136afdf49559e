//! Integer feasibility and sampling by the Omega test.
//!
//! Source: W. Pugh, "The Omega test: a fast and practical integer programming algorithm
//! for dependence analysis", Supercomputing 1991 (and CACM 35(8), 1992). The recursion
//! [`solve`] decides whether a [`System`] has an integer point and returns one:
//!
//! 1. [normalize](super::normalize()) (gcd tightening, duplicate removal, opposite pairs
//!    become equalities); a trivially false row proves emptiness;
//! 2. equalities are eliminated exactly (`equalities.rs`): a variable with a unit
//!    coefficient is substituted away; otherwise a unimodular change of variables (a step
//!    of Euclid's algorithm across the row, Pugh's "mod-hat" step in matrix form) shrinks
//!    the smallest coefficient of the equality until a unit coefficient appears;
//! 3. with inequalities only, one variable is eliminated:
//!    - if it is bounded on one side only, its constraints are dropped;
//!    - if the elimination is exact (every lower-bound or every upper-bound coefficient is
//!      1), by Fourier–Motzkin;
//!    - otherwise, when single-variable rows of the system or of its real shadow confine
//!      some variable to a few integer values (at most 8, and no more than the
//!      splinters), each value is substituted in turn (exact case split; a value-fixed
//!      system has one variable fewer);
//!    - otherwise: if the *dark shadow* has an integer point, so does the system; if the
//!      *real shadow* has none, neither does the system; otherwise the integer points not
//!      covered by the dark shadow lie on one of finitely many *splinters*
//!      `a x = L + j`, `0 <= j <= (m a - m - a) / m` (`m` the largest coefficient of `x`
//!      on the opposite side), each solved recursively with the extra equality.
//!
//! Witnesses are rebuilt on the way back: after the projection is solved, the eliminated
//! variable's integer interval at that point is nonempty (for one-sided, exact and dark
//! shadow eliminations) and the value closest to zero in it is picked; equality
//! eliminations invert their substitution.
//!
//! # Invariants
//! - every step preserves the set of integer points exactly (or, for projections, the
//!   integer points of the projection, with a witness for every point of the projected
//!   system that is rebuilt);
//! - termination: each recursive call has fewer variables (value branches included), or the same variables and one
//!   more equality (a splinter) that the next call eliminates; the Euclid loop strictly
//!   decreases the smallest coefficient of its equality;
//! - every recursive call and every generated row spends from the [`Budget`].
//!
//! # Performance
//! Fast on small and loosely coupled systems; exponential when many variables need
//! inexact eliminations (typically several coupled floor-division variables
//! `L <= e - a q <= L + a - 1`): each inexact step may recurse into the dark shadow, the
//! real shadow and up to about `a` splinters. The public entry point therefore gives it a
//! small budget and falls back to `branch.rs`.

use std::cmp::Ordering;

use pollen_arith::Int;

use super::equalities::{drop_column, eliminate_equality};
use super::normalize::{is_unit, normalize_owned};
use super::System;
use crate::error::{Budget, Result};

/// An integer point of `sys`, or `None` when there is none.
pub(super) fn sample(sys: System, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    solve(sys, budget)
}

/// One step of the Omega test: normalize, then eliminate an equality or a variable.
pub(super) fn solve(sys: System, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    budget.tick(1 + (sys.eqs.len() + sys.ineqs.len()) as u64)?;
    let Some(sys) = normalize_owned(sys) else {
        return Ok(None);
    };
    if !sys.eqs.is_empty() {
        return eliminate_equality(sys, budget, solve);
    }
    if sys.ineqs.is_empty() {
        return Ok(Some(vec![Int::zero(); sys.n_vars]));
    }
    let Some((column, kind)) = choose_variable(&sys) else {
        // Normalized inequalities all have a nonzero coefficient, so some column is used.
        return Ok(Some(vec![Int::zero(); sys.n_vars]));
    };
    match kind {
        EliminationKind::OneSided => {
            let rest = System {
                n_vars: sys.n_vars - 1,
                eqs: Vec::new(),
                ineqs: sys
                    .ineqs
                    .iter()
                    .filter(|row| row[column].is_zero())
                    .map(|row| drop_column(row, column))
                    .collect(),
            };
            extend_solution(&sys, column, solve(rest, budget)?)
        }
        EliminationKind::Exact => {
            let shadow = project(&sys, column, false, budget)?;
            extend_solution(&sys, column, solve(shadow, budget)?)
        }
        EliminationKind::Inexact => {
            let real = project(&sys, column, false, budget)?;
            if let Some((var, low, high)) = narrowest_variable(&sys, column, &real) {
                return solve_by_values(&sys, var, low, high, budget);
            }
            let dark = project(&sys, column, true, budget)?;
            if let Some(point) = solve(dark, budget)? {
                return extend_solution(&sys, column, Some(point));
            }
            if solve(real, budget)?.is_none() {
                return Ok(None);
            }
            solve_splinters(&sys, column, budget)
        }
    }
}

/// How a variable is eliminated from a system of inequalities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EliminationKind {
    /// Only lower or only upper bounds: drop them.
    OneSided,
    /// Fourier–Motzkin is exact over the integers (unit coefficients on one side).
    Exact,
    /// Dark shadow, real shadow and splinters are needed.
    Inexact,
}

/// Picks the column to eliminate: a one-sided variable if any, else the exact elimination
/// generating the fewest rows, else the inexact one with the fewest splinters (ties: the
/// fewest generated rows). Counting splinters first matters for large coefficients: a
/// variable with coefficient `2^66` may have `2^66` splinters while another has two.
fn choose_variable(sys: &System) -> Option<(usize, EliminationKind)> {
    let mut best_exact: Option<(usize, usize)> = None;
    let mut best_inexact: Option<(usize, Int, usize)> = None;
    for column in 1..=sys.n_vars {
        // Bound counts and whether each side has only unit coefficients, without
        // collecting the coefficients.
        let (mut lower_len, mut upper_len) = (0usize, 0usize);
        let (mut lower_unit, mut upper_unit) = (true, true);
        for row in &sys.ineqs {
            let a = &row[column];
            if a.is_positive() {
                lower_len += 1;
                lower_unit &= is_unit(a);
            } else if a.is_negative() {
                upper_len += 1;
                upper_unit &= is_unit(a);
            }
        }
        if lower_len == 0 && upper_len == 0 {
            continue;
        }
        if lower_len == 0 || upper_len == 0 {
            return Some((column, EliminationKind::OneSided));
        }
        let cost = lower_len * upper_len;
        if lower_unit || upper_unit {
            let improves = match best_exact {
                None => true,
                Some((_, best)) => cost < best,
            };
            if improves {
                best_exact = Some((column, cost));
            }
        } else if best_exact.is_none() {
            // An exact elimination always wins: count splinters only while none exists.
            let (lower, upper) = bound_coefficients(sys, column);
            let splinters = splinter_counts(&lower, &upper);
            let splinters = std::cmp::min(splinters.0, splinters.1);
            let better = match &best_inexact {
                None => true,
                Some((_, best_splinters, best_cost)) => match splinters.cmp(best_splinters) {
                    Ordering::Less => true,
                    Ordering::Equal => cost < *best_cost,
                    Ordering::Greater => false,
                },
            };
            if better {
                best_inexact = Some((column, splinters, cost));
            }
        }
    }
    if let Some((column, _)) = best_exact {
        return Some((column, EliminationKind::Exact));
    }
    best_inexact.map(|(column, _, _)| (column, EliminationKind::Inexact))
}

/// The magnitudes of the coefficients of `column` in the lower bounds (positive
/// coefficients) and in the upper bounds (negative coefficients).
fn bound_coefficients(sys: &System, column: usize) -> (Vec<Int>, Vec<Int>) {
    let mut lower = Vec::new();
    let mut upper = Vec::new();
    for row in &sys.ineqs {
        let a = &row[column];
        if a.is_positive() {
            lower.push(a.clone());
        } else if a.is_negative() {
            upper.push(-a);
        }
    }
    (lower, upper)
}

/// The largest splinter offset for a bound with coefficient `a` when the opposite side's
/// largest coefficient is `m`: `floor((m a - m - a) / m)` (negative: no splinter).
fn last_offset(a: &Int, m: &Int) -> Int {
    (m * a - m - a).floor_div(m)
}

/// The number of splinters when splitting on the lower bounds and on the upper bounds
/// (coefficient magnitudes `lower`, `upper`, both nonempty).
fn splinter_counts(lower: &[Int], upper: &[Int]) -> (Int, Int) {
    let largest = |side: &[Int]| side.iter().max().cloned().unwrap_or_else(Int::zero);
    let count = |side: &[Int], m: &Int| {
        side.iter().fold(Int::zero(), |total, a| {
            let last = last_offset(a, m);
            if last.is_negative() {
                total
            } else {
                total + last + 1
            }
        })
    };
    (count(lower, &largest(upper)), count(upper, &largest(lower)))
}

/// The Fourier–Motzkin projection of a system of inequalities along `column`: the real
/// shadow, or with `dark` the dark shadow (each combination of a lower bound `a x >= α`
/// and an upper bound `b x <= β` requires `a β - b α >= (a - 1)(b - 1)` instead of `>= 0`).
fn project(sys: &System, column: usize, dark: bool, budget: &mut Budget) -> Result<System> {
    let mut lower = Vec::new();
    let mut upper = Vec::new();
    let mut ineqs = Vec::new();
    for row in &sys.ineqs {
        let a = &row[column];
        if a.is_zero() {
            ineqs.push(drop_column(row, column));
        } else if a.is_positive() {
            lower.push(row);
        } else {
            upper.push(row);
        }
    }
    for l in &lower {
        let a = &l[column];
        for u in &upper {
            budget.tick(1 + sys.n_vars as u64)?;
            let b = -&u[column];
            let mut combined: Vec<Int> = l
                .iter()
                .zip(u.iter())
                .enumerate()
                .filter(|&(j, _)| j != column)
                .map(|(_, (lj, uj))| &b * lj + a * uj)
                .collect();
            if dark {
                let one = Int::one();
                let gap = (a - &one) * (&b - &one);
                combined[0] = &combined[0] - &gap;
            }
            ineqs.push(combined);
        }
    }
    Ok(System {
        n_vars: sys.n_vars - 1,
        eqs: Vec::new(),
        ineqs,
    })
}

/// Given a point of the system with `column` eliminated, rebuilds a point of `sys` (a
/// system of inequalities) by choosing the value closest to zero in the eliminated
/// variable's integer interval, which the caller guarantees to be nonempty.
fn extend_solution(
    sys: &System,
    column: usize,
    projected: Option<Vec<Int>>,
) -> Result<Option<Vec<Int>>> {
    let Some(mut point) = projected else {
        return Ok(None);
    };
    let index = column - 1;
    point.insert(index, Int::zero());
    let mut low: Option<Int> = None;
    let mut high: Option<Int> = None;
    for row in &sys.ineqs {
        let a = &row[column];
        if a.is_zero() {
            continue;
        }
        // `a x + rest >= 0` with the eliminated variable at zero in `point`.
        let rest = super::eval_row(row, &point);
        if a.is_positive() {
            raise_to(&mut low, (-rest).ceil_div(a));
        } else {
            lower_to(&mut high, rest.floor_div(&-a));
        }
    }
    let value = match (low, high) {
        (Some(low), Some(high)) => {
            debug_assert!(low <= high, "eliminated variable has an empty interval");
            clamp_to_zero(low, high)
        }
        (Some(low), None) => std::cmp::max(low, Int::zero()),
        (None, Some(high)) => std::cmp::min(high, Int::zero()),
        (None, None) => Int::zero(),
    };
    point[index] = value;
    Ok(Some(point))
}

/// Raises `bound` to `candidate` when it is absent or smaller.
fn raise_to(bound: &mut Option<Int>, candidate: Int) {
    match bound {
        Some(current) if *current >= candidate => {}
        _ => *bound = Some(candidate),
    }
}

/// Lowers `bound` to `candidate` when it is absent or larger.
fn lower_to(bound: &mut Option<Int>, candidate: Int) {
    match bound {
        Some(current) if *current <= candidate => {}
        _ => *bound = Some(candidate),
    }
}

/// The value of `[low, high]` (nonempty) closest to zero.
fn clamp_to_zero(low: Int, high: Int) -> Int {
    if low.is_positive() {
        low
    } else if high.is_negative() {
        high
    } else {
        Int::zero()
    }
}

/// Searches the splinters of an inexact elimination: the integer points outside the dark
/// shadow satisfy `a x = L + j` for some lower bound `a x >= L` and
/// `0 <= j <= (m a - m - a) / m`, `m` the largest upper-bound coefficient (Pugh 1991,
/// §2.3.3), or symmetrically for some upper bound; the side with fewer splinters is used.
fn solve_splinters(sys: &System, column: usize, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    let (lower, upper) = bound_coefficients(sys, column);
    let largest = |side: &[Int]| side.iter().max().cloned().unwrap_or_else(Int::zero);
    let (lower_count, upper_count) = splinter_counts(&lower, &upper);
    // Split on the lower bounds (positive coefficients) or on the upper bounds.
    let (split_positive, opposite_largest) = if lower_count <= upper_count {
        (true, largest(&upper))
    } else {
        (false, largest(&lower))
    };
    for row in &sys.ineqs {
        let a = &row[column];
        if a.is_zero() || a.is_positive() != split_positive {
            continue;
        }
        let last = last_offset(&a.abs(), &opposite_largest);
        let mut offset = Int::zero();
        while offset <= last {
            budget.tick(1)?;
            let mut splinter = sys.clone();
            let mut equality = row.clone();
            equality[0] = &equality[0] - &offset;
            splinter.eqs.push(equality);
            if let Some(point) = solve(splinter, budget)? {
                return Ok(Some(point));
            }
            offset += 1;
        }
    }
    Ok(None)
}

/// Largest number of integer values of a variable that [`solve`] enumerates instead of
/// taking the dark shadow, real shadow and splinters of an inexact elimination.
const MAX_BRANCH_VALUES: i64 = 8;

/// A variable (column of `sys`) whose integer range `low..=high`, implied by
/// single-variable rows of `sys` or of its real shadow `real` along `column`, holds at
/// most [`MAX_BRANCH_VALUES`] values and no more values than the splinters of `column`;
/// the one with the fewest values. Single-variable rows of the real shadow are
/// consequences of `sys`, so each integer point of `sys` lies in the range.
fn narrowest_variable(sys: &System, column: usize, real: &System) -> Option<(usize, Int, Int)> {
    let mut low: Vec<Option<Int>> = vec![None; sys.n_vars + 1];
    let mut high: Vec<Option<Int>> = vec![None; sys.n_vars + 1];
    let mut found = false;
    let rows = sys
        .ineqs
        .iter()
        .map(|row| (row, None))
        .chain(real.ineqs.iter().map(|row| (row, Some(column))));
    for (row, dropped) in rows {
        let mut single = None;
        for (j, a) in row.iter().enumerate().skip(1) {
            if a.is_zero() {
                continue;
            }
            if single.is_some() {
                single = None;
                break;
            }
            single = Some((j, a));
        }
        let Some((j, a)) = single else {
            continue;
        };
        found = true;
        // Map a column of the real shadow back to the column of `sys`.
        let var = match dropped {
            Some(c) if j >= c => j + 1,
            _ => j,
        };
        if a.is_positive() {
            raise_to(&mut low[var], (-&row[0]).ceil_div(a));
        } else {
            lower_to(&mut high[var], row[0].floor_div(&-a));
        }
    }
    if !found {
        return None;
    }
    let (lower, upper) = bound_coefficients(sys, column);
    let (lower_count, upper_count) = splinter_counts(&lower, &upper);
    let limit = std::cmp::min(
        Int::from(MAX_BRANCH_VALUES),
        std::cmp::min(lower_count, upper_count),
    );
    let mut best: Option<(usize, Int)> = None;
    for var in 1..=sys.n_vars {
        let (Some(l), Some(h)) = (&low[var], &high[var]) else {
            continue;
        };
        let count = if h < l { Int::zero() } else { h - l + 1 };
        if count > limit {
            continue;
        }
        if best.as_ref().is_none_or(|(_, c)| count < *c) {
            best = Some((var, count));
        }
    }
    let (var, _) = best?;
    Some((var, low[var].clone()?, high[var].clone()?))
}

/// Solves `sys` (inequalities only) by substituting each integer value of `low..=high`
/// for the variable in column `var`, which every integer point of `sys` satisfies.
fn solve_by_values(
    sys: &System,
    var: usize,
    low: Int,
    high: Int,
    budget: &mut Budget,
) -> Result<Option<Vec<Int>>> {
    let mut value = low;
    while value <= high {
        budget.tick(1 + sys.ineqs.len() as u64)?;
        let ineqs = sys
            .ineqs
            .iter()
            .map(|row| {
                let mut fixed = drop_column(row, var);
                if !row[var].is_zero() {
                    fixed[0] = &fixed[0] + &(&row[var] * &value);
                }
                fixed
            })
            .collect();
        let fixed = System {
            n_vars: sys.n_vars - 1,
            eqs: Vec::new(),
            ineqs,
        };
        if let Some(mut point) = solve(fixed, budget)? {
            point.insert(var - 1, value);
            return Ok(Some(point));
        }
        value += 1;
    }
    Ok(None)
}
