//! Row normalization: the integer tightening every integer algorithm starts from.
//!
//! For integer points `x`, a constraint `c + a·x >= 0` whose coefficient gcd is `g > 1`
//! is equivalent to `floor(c / g) + (a / g)·x >= 0` (the left side `a·x / g` is an
//! integer), and `c + a·x = 0` is infeasible unless `g` divides `c`, in which case it is
//! equivalent to `c / g + (a / g)·x = 0`. This is the normalization step of the Omega test
//! (Pugh, "The Omega test: a fast and practical integer programming algorithm for
//! dependence analysis", Supercomputing 1991, §2.2) and of isl's `isl_basic_map_normalize`.
//!
//! # Invariants of a normalized system
//! - every row has coefficient gcd 1 (rows with all-zero coefficients are gone: they were
//!   either trivially true and dropped, or trivially false and the system was reported
//!   infeasible);
//! - the first nonzero coefficient of every equality is positive;
//! - no two equalities have the same coefficients;
//! - no two inequalities have the same coefficients (the tightest one is kept), and no
//!   two inequalities have opposite coefficients (such a pair is either contradictory or
//!   an equality, and was turned into one);
//! - the set of integer points is unchanged.

use std::collections::BTreeMap;

use pollen_arith::Int;

use super::System;

/// Outcome of normalizing one row.
enum RowNormal {
    /// The row holds at every point.
    Trivial,
    /// The row holds at no integer point.
    Infeasible,
    /// The equivalent normalized row.
    Row(Vec<Int>),
}

/// The gcd of the coefficients `row[1..]` (zero when they all vanish).
pub(super) fn coefficient_gcd(row: &[Int]) -> Int {
    let mut g = Int::zero();
    for a in &row[1..] {
        if !a.is_zero() {
            g = g.gcd(a);
            if is_unit(&g) {
                break;
            }
        }
    }
    g
}

/// Whether `|a| == 1`.
pub(super) fn is_unit(a: &Int) -> bool {
    a.abs() == Int::one()
}

/// Normalizes the inequality `row >= 0` for integer points.
fn normalize_inequality(mut row: Vec<Int>) -> RowNormal {
    let g = coefficient_gcd(&row);
    if g.is_zero() {
        return if row[0].is_negative() {
            RowNormal::Infeasible
        } else {
            RowNormal::Trivial
        };
    }
    if !is_unit(&g) {
        row[0] = row[0].floor_div(&g);
        for a in &mut row[1..] {
            *a = a.exact_div(&g);
        }
    }
    RowNormal::Row(row)
}

/// Normalizes the equality `row = 0` for integer points (and fixes its sign).
fn normalize_equality(mut row: Vec<Int>) -> RowNormal {
    let g = coefficient_gcd(&row);
    if g.is_zero() {
        return if row[0].is_zero() {
            RowNormal::Trivial
        } else {
            RowNormal::Infeasible
        };
    }
    if !g.divides(&row[0]) {
        return RowNormal::Infeasible;
    }
    let first_negative = row[1..]
        .iter()
        .find(|a| !a.is_zero())
        .is_some_and(Int::is_negative);
    let divisor = if first_negative { -g } else { g };
    if divisor != Int::one() {
        for a in &mut row {
            *a = a.exact_div(&divisor);
        }
    }
    RowNormal::Row(row)
}

/// A system with the same integer points in normal form (see the module invariants), or
/// `None` when some constraint is trivially unsatisfiable over the integers (a nonzero
/// constant equal to zero, a negative constant `>= 0`, an equality whose coefficient gcd
/// does not divide its constant, two contradictory inequalities or equalities).
///
/// `None` is a proof of integer emptiness; `Some` is no proof of non-emptiness.
/// Row order and indices are not preserved.
pub fn normalize(sys: &System) -> Option<System> {
    normalize_owned(sys.clone())
}

/// [`normalize`] on an owned system, avoiding a copy.
pub(super) fn normalize_owned(sys: System) -> Option<System> {
    let n_vars = sys.n_vars;
    // Coefficients -> constant; for equalities the constant must agree.
    let mut equalities: BTreeMap<Vec<Int>, Int> = BTreeMap::new();
    for row in sys.eqs {
        match normalize_equality(row) {
            RowNormal::Trivial => {}
            RowNormal::Infeasible => return None,
            RowNormal::Row(mut row) => {
                let constant = std::mem::replace(&mut row[0], Int::zero());
                match equalities.get(&row) {
                    Some(existing) if *existing != constant => return None,
                    Some(_) => {}
                    None => {
                        equalities.insert(row, constant);
                    }
                }
            }
        }
    }
    // Coefficients -> tightest (smallest) constant.
    let mut inequalities: BTreeMap<Vec<Int>, Int> = BTreeMap::new();
    for row in sys.ineqs {
        match normalize_inequality(row) {
            RowNormal::Trivial => {}
            RowNormal::Infeasible => return None,
            RowNormal::Row(mut row) => {
                let constant = std::mem::replace(&mut row[0], Int::zero());
                match inequalities.get_mut(&row) {
                    Some(existing) => {
                        if constant < *existing {
                            *existing = constant;
                        }
                    }
                    None => {
                        inequalities.insert(row, constant);
                    }
                }
            }
        }
    }
    // Opposite pairs `c1 + a·x >= 0`, `c2 - a·x >= 0`: `-c1 <= a·x <= c2`.
    let mut merged: Vec<(Vec<Int>, Int)> = Vec::new();
    for (coefficients, constant) in &inequalities {
        // Visit each pair once, from the member whose coefficients are lexicographically
        // larger than their negation: the one whose first nonzero coefficient is positive
        // (decided before building the negated row).
        let first_positive = coefficients[1..]
            .iter()
            .find(|a| !a.is_zero())
            .is_some_and(Int::is_positive);
        if !first_positive {
            continue;
        }
        let negated: Vec<Int> = coefficients.iter().map(|a| -a).collect();
        if let Some(other) = inequalities.get(&negated) {
            let slack = constant + other;
            if slack.is_negative() {
                return None;
            }
            if slack.is_zero() {
                merged.push((coefficients.clone(), constant.clone()));
            }
        }
    }
    for (coefficients, constant) in merged {
        let negated: Vec<Int> = coefficients.iter().map(|a| -a).collect();
        inequalities.remove(&negated);
        inequalities.remove(&coefficients);
        let mut row = coefficients;
        row[0] = constant;
        match normalize_equality(row) {
            RowNormal::Trivial => {}
            RowNormal::Infeasible => return None,
            RowNormal::Row(mut row) => {
                let constant = std::mem::replace(&mut row[0], Int::zero());
                match equalities.get(&row) {
                    Some(existing) if *existing != constant => return None,
                    Some(_) => {}
                    None => {
                        equalities.insert(row, constant);
                    }
                }
            }
        }
    }
    let rebuild = |(mut row, constant): (Vec<Int>, Int)| {
        row[0] = constant;
        row
    };
    Some(System {
        n_vars,
        eqs: equalities.into_iter().map(rebuild).collect(),
        ineqs: inequalities.into_iter().map(rebuild).collect(),
    })
}
