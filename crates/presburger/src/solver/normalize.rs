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
///
/// Rows are kept as sorted vectors of (coefficients with the constant zeroed, constant)
/// pairs: equal coefficients become adjacent after sorting, and opposite rows are found
/// by binary search.
pub(super) fn normalize_owned(sys: System) -> Option<System> {
    let n_vars = sys.n_vars;
    let mut equalities: Vec<(Vec<Int>, Int)> = Vec::with_capacity(sys.eqs.len());
    for row in sys.eqs {
        match normalize_equality(row) {
            RowNormal::Trivial => {}
            RowNormal::Infeasible => return None,
            RowNormal::Row(row) => equalities.push(split_constant(row)),
        }
    }
    let mut inequalities: Vec<(Vec<Int>, Int)> = Vec::with_capacity(sys.ineqs.len());
    for row in sys.ineqs {
        match normalize_inequality(row) {
            RowNormal::Trivial => {}
            RowNormal::Infeasible => return None,
            RowNormal::Row(row) => inequalities.push(split_constant(row)),
        }
    }
    // Coefficients -> tightest (smallest) constant: after sorting, the first of a run of
    // equal coefficients has the smallest constant.
    inequalities.sort_unstable();
    inequalities.dedup_by(|later, kept| later.0 == kept.0);
    // Opposite pairs `c1 + a·x >= 0`, `c2 - a·x >= 0`: `-c1 <= a·x <= c2`.
    let mut removed = vec![false; inequalities.len()];
    for index in 0..inequalities.len() {
        let (coefficients, constant) = &inequalities[index];
        // Visit each pair once, from the member whose first nonzero coefficient is
        // positive (decided before building the negated row).
        let first_positive = coefficients[1..]
            .iter()
            .find(|a| !a.is_zero())
            .is_some_and(Int::is_positive);
        if !first_positive {
            continue;
        }
        let Ok(other) = inequalities.binary_search_by(|(c, _)| cmp_negated(c, coefficients)) else {
            continue;
        };
        let slack = constant + &inequalities[other].1;
        if slack.is_negative() {
            return None;
        }
        if slack.is_zero() {
            removed[index] = true;
            removed[other] = true;
            let mut row = coefficients.clone();
            row[0] = constant.clone();
            match normalize_equality(row) {
                RowNormal::Trivial => {}
                RowNormal::Infeasible => return None,
                RowNormal::Row(row) => equalities.push(split_constant(row)),
            }
        }
    }
    // Coefficients -> constant; for equalities the constant must agree.
    equalities.sort_unstable();
    for pair in equalities.windows(2) {
        if pair[0].0 == pair[1].0 && pair[0].1 != pair[1].1 {
            return None;
        }
    }
    equalities.dedup_by(|later, kept| later.0 == kept.0);
    let rebuild = |(mut row, constant): (Vec<Int>, Int)| {
        row[0] = constant;
        row
    };
    Some(System {
        n_vars,
        eqs: equalities.into_iter().map(rebuild).collect(),
        ineqs: inequalities
            .into_iter()
            .zip(removed)
            .filter(|(_, gone)| !gone)
            .map(|(pair, _)| rebuild(pair))
            .collect(),
    })
}

/// Splits a row into its coefficients (constant zeroed) and its constant.
fn split_constant(mut row: Vec<Int>) -> (Vec<Int>, Int) {
    let constant = std::mem::replace(&mut row[0], Int::zero());
    (row, constant)
}

/// `a` compared with `-b`, entry by entry (lexicographically), without building `-b`.
pub(crate) fn cmp_negated(a: &[Int], b: &[Int]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x.as_small(), y.as_small()) {
            (Some(x), Some(y)) if y != i64::MIN => x.cmp(&-y),
            _ => x.cmp(&-y),
        };
        if o.is_ne() {
            return o;
        }
    }
    a.len().cmp(&b.len())
}
