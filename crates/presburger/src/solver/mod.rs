//! Integer and rational solvers over plain constraint systems.
//!
//! This module knows nothing about spaces, names or local variables: it works on a
//! [`System`], a conjunction of affine equalities and inequalities over `n_vars`
//! anonymous integer variables, and answers the questions every higher-level Presburger
//! operation reduces to:
//!
//! | question | function | algorithm |
//! |---|---|---|
//! | is there an integer point? which one? | [`integer_sample`], [`is_integer_empty`] | the Omega test (Pugh 1991, `omega.rs`) with a small budget, then recession-cone decomposition and branching on hyperplanes (after isl, `branch.rs`) |
//! | rational optimum, rational point | [`rational_min`], [`rational_max`], [`rational_sample`], [`is_rationally_empty`] | primal simplex with Bland's rule on an incremental tableau (after isl's), `i64` entries with an exact fallback, see `simplex.rs` |
//! | integer minimum / maximum | [`integer_min`], [`integer_max`] | LP bound, then galloping/binary search on integer feasibility, see `optimize.rs` |
//! | implicit equalities | [`implicit_equalities`] | integer emptiness of `sys ∧ row ≥ 1` per inequality |
//! | redundant inequalities | [`redundant_inequalities`], [`redundant_or_empty`] | one tableau: each inequality's variable minimised with its own bound lifted |
//!
//! Everything is exact: coefficients are [`Int`]s (which promote to big integers instead
//! of overflowing) and rational values are [`Rat`]s; no floating point is used anywhere.
//! Every loop that can run long spends from the caller's [`Budget`], so that no call can
//! hang: running out yields [`Error::LimitExceeded`].
//!
//! # Row convention
//! A row `[c, a_1, ..., a_n]` stands for the affine form `c + Σ a_i x_i`; in
//! [`System::eqs`] it is constrained to `= 0`, in [`System::ineqs`] to `>= 0`.
//!
//! # Invariants
//! - every row of a [`System`] has exactly `n_vars + 1` entries; the public functions
//!   check this and answer [`Error::Unsupported`] otherwise;
//! - the solvers never modify their input; they work on normalized copies
//!   (see [`normalize()`]).

mod branch;
mod equalities;
mod normalize;
mod omega;
mod optimize;
mod simplex;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use pollen_arith::{Int, Rat};

use crate::error::{Budget, Error, Result};

pub(crate) use normalize::cmp_negated;
pub use normalize::normalize;
pub use optimize::{
    implicit_equalities, integer_max, integer_min, is_integer_empty, redundant_inequalities,
};
pub use simplex::{
    is_rationally_empty, rational_max, rational_min, rational_mins, rational_sample,
    redundant_among_first, redundant_or_empty, Polyhedron,
};

/// A conjunction of affine constraints over `n_vars` integer variables.
///
/// Each row is `[c, a_1, ..., a_n]` meaning `c + Σ a_i x_i = 0` (in [`System::eqs`]) or
/// `c + Σ a_i x_i >= 0` (in [`System::ineqs`]).
///
/// # Invariants
/// Every row has length `n_vars + 1`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct System {
    /// Number of variables.
    pub n_vars: usize,
    /// Equalities `row = 0`.
    pub eqs: Vec<Vec<Int>>,
    /// Inequalities `row >= 0`.
    pub ineqs: Vec<Vec<Int>>,
}

impl System {
    /// The unconstrained system over `n_vars` variables (the whole of `Z^n_vars`).
    pub fn new(n_vars: usize) -> System {
        System {
            n_vars,
            eqs: Vec::new(),
            ineqs: Vec::new(),
        }
    }

    /// Adds the equality `row = 0`; `row` must have `n_vars + 1` entries.
    pub fn add_eq(&mut self, row: Vec<Int>) {
        debug_assert_eq!(row.len(), self.n_vars + 1, "equality row length");
        self.eqs.push(row);
    }

    /// Adds the inequality `row >= 0`; `row` must have `n_vars + 1` entries.
    pub fn add_ineq(&mut self, row: Vec<Int>) {
        debug_assert_eq!(row.len(), self.n_vars + 1, "inequality row length");
        self.ineqs.push(row);
    }

    /// Builds a system from rows of machine integers, a convenience for tests and callers
    /// with small constants.
    pub fn from_i64(n_vars: usize, eqs: &[&[i64]], ineqs: &[&[i64]]) -> System {
        let convert = |row: &&[i64]| row.iter().map(|&v| Int::from(v)).collect::<Vec<Int>>();
        System {
            n_vars,
            eqs: eqs.iter().map(convert).collect(),
            ineqs: ineqs.iter().map(convert).collect(),
        }
    }

    /// Whether the integer point `point` (of length `n_vars`) satisfies every constraint.
    pub fn contains(&self, point: &[Int]) -> bool {
        point.len() == self.n_vars
            && self.eqs.iter().all(|row| eval_row(row, point).is_zero())
            && self
                .ineqs
                .iter()
                .all(|row| !eval_row(row, point).is_negative())
    }

    /// Whether the rational point `point` (of length `n_vars`) satisfies every constraint.
    pub fn contains_rational(&self, point: &[Rat]) -> bool {
        if point.len() != self.n_vars {
            return false;
        }
        // Scale the point to integers over the common denominator `d > 0`:
        // `c + a·(p/d) >= 0  <=>  c·d + a·p >= 0`.
        let (scaled, denominator) = common_denominator(point);
        let check = |row: &Vec<Int>| {
            let mut value = &row[0] * &denominator;
            for (a, p) in row[1..].iter().zip(&scaled) {
                value += a * p;
            }
            value
        };
        self.eqs.iter().all(|row| check(row).is_zero())
            && self.ineqs.iter().all(|row| !check(row).is_negative())
    }

    /// Checks the row-length invariant, for the public entry points.
    fn validate(&self) -> Result<()> {
        let width = self.n_vars + 1;
        if self
            .eqs
            .iter()
            .chain(self.ineqs.iter())
            .any(|row| row.len() != width)
        {
            return Err(Error::Unsupported(format!(
                "constraint rows of a system over {} variables must have {} entries",
                self.n_vars, width
            )));
        }
        Ok(())
    }
}

/// Outcome of an optimisation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Optimum<T> {
    /// The feasible set is empty.
    Empty,
    /// The objective is unbounded in the optimisation direction on the feasible set.
    Unbounded,
    /// The optimum exists; the payload is its value (and a witness).
    Bounded(T),
}

impl<T> Optimum<T> {
    /// The bounded optimum, if any.
    pub fn bounded(self) -> Option<T> {
        match self {
            Optimum::Bounded(value) => Some(value),
            Optimum::Empty | Optimum::Unbounded => None,
        }
    }

    /// Applies `f` to the bounded optimum.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Optimum<U> {
        match self {
            Optimum::Empty => Optimum::Empty,
            Optimum::Unbounded => Optimum::Unbounded,
            Optimum::Bounded(value) => Optimum::Bounded(f(value)),
        }
    }
}

/// An integer point satisfying every constraint of `sys`, or `None` when there is none.
///
/// Exact and complete, including unbounded, thin and rationally-nonempty-but-integer-empty
/// systems and arbitrarily large coefficients: the Omega test is tried with a small budget
/// (it is the fastest on small and loosely coupled systems), then the cone-decomposition
/// sampler, whose cost does not explode on many floor-division variables. The sample is
/// otherwise unspecified (the Omega test prefers coordinates close to zero).
pub fn integer_sample(sys: &System, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    sys.validate()?;
    let point = find_point(sys, budget)?;
    if let Some(p) = &point {
        debug_assert!(
            sys.contains(p),
            "the integer sampler returned a point outside the system"
        );
    }
    Ok(point)
}

/// Budget the Omega test may spend before [`find_point`] switches to branching.
const OMEGA_ATTEMPT: u64 = 5_000;

/// An integer point of `sys` (rows already validated): the Omega test first, which is
/// fastest on small and loosely coupled systems, and if it needs more than
/// [`OMEGA_ATTEMPT`] steps the cone-decomposition sampler of `branch.rs`, whose cost does
/// not explode on tightly coupled floor-division variables. Both are complete; the
/// steps of the abandoned attempt are charged to `budget` as well.
fn find_point(sys: &System, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    let allowance = match budget.remaining() {
        Some(left) => left.min(OMEGA_ATTEMPT),
        None => OMEGA_ATTEMPT,
    };
    let mut attempt = Budget::new(allowance);
    let outcome = omega::sample(sys.clone(), &mut attempt);
    let spent = allowance - attempt.remaining().unwrap_or(0);
    budget.tick(spent)?;
    match outcome {
        Err(Error::LimitExceeded) => branch::sample(sys.clone(), budget),
        other => other,
    }
}

/// Value of the affine form `row = [c, a_1, ..., a_n]` at the integer point `point`.
pub fn eval_row(row: &[Int], point: &[Int]) -> Int {
    debug_assert_eq!(row.len(), point.len() + 1);
    let mut value = row[0].clone();
    for (a, x) in row[1..].iter().zip(point) {
        if !a.is_zero() && !x.is_zero() {
            value += a * x;
        }
    }
    value
}

/// Writes the rational vector `values` as `scaled / denominator` with one positive common
/// denominator.
fn common_denominator(values: &[Rat]) -> (Vec<Int>, Int) {
    let mut denominator = Int::one();
    for value in values {
        denominator = denominator.lcm(value.denom());
    }
    let scaled = values
        .iter()
        .map(|value| value.numer() * &denominator.exact_div(value.denom()))
        .collect();
    (scaled, denominator)
}
