//! Rational linear programming: a two-phase primal simplex on a fraction-free tableau.
//!
//! Sources: G. B. Dantzig, *Linear Programming and Extensions* (1963) for the two-phase
//! method; R. G. Bland, "New finite pivoting rules for the simplex method", Mathematics of
//! Operations Research 2(2), 1977, for the anti-cycling rule; the row representation
//! (integer numerators over one positive denominator per row) follows isl's `isl_tab.c`.
//!
//! A [`System`] over free variables `x` is brought to standard form `M y = b, y >= 0,
//! b >= 0` with `x_i = y⁺_i - y⁻_i` and one slack per inequality (`a·x + c - s = 0`);
//! rows whose slack enters with coefficient `+1` after the sign fix start with the slack
//! basic, the others get an artificial variable. Phase 1 minimises the sum of the
//! artificials (the polyhedron is empty iff the minimum is positive), artificials left in
//! the basis at level zero are pivoted out or their (redundant) rows dropped, and phase 2
//! minimises the objective.
//!
//! # Invariants
//! - every tableau row is `coefficients / denominator` with integer numerators and a
//!   positive denominator, reduced by the gcd of all its entries;
//! - the basic column of row `r` has entry 1 in row `r` and 0 in every other row and in
//!   the objective row;
//! - right-hand sides are non-negative (the basis is primal feasible);
//! - the objective row stores the reduced costs `d_j` and `-K` for the objective
//!   `K + Σ d_j y_j` over the non-basic columns;
//! - Bland's rule (smallest eligible entering column, ties in the ratio test broken by
//!   the smallest basic column) guarantees termination; every pivot spends budget.

use pollen_arith::{Int, Rat};

use super::{Optimum, System};
use crate::error::{Budget, Error, Result};

/// One tableau row: the entries `coefficients[j] / denominator` and `rhs / denominator`.
#[derive(Clone, Debug)]
struct Row {
    coefficients: Vec<Int>,
    rhs: Int,
    denominator: Int,
}

impl Row {
    /// Divides numerators and denominator by their gcd.
    fn reduce(&mut self) {
        let mut g = self.denominator.gcd(&self.rhs);
        for a in &self.coefficients {
            if g == Int::one() {
                return;
            }
            if !a.is_zero() {
                g = g.gcd(a);
            }
        }
        if g.is_zero() || g == Int::one() {
            return;
        }
        for a in &mut self.coefficients {
            *a = a.exact_div(&g);
        }
        self.rhs = self.rhs.exact_div(&g);
        self.denominator = self.denominator.exact_div(&g);
    }

    /// Subtracts the multiple of `pivot` that clears column `column` of `self`.
    fn eliminate(&mut self, pivot: &Row, column: usize) {
        let t = self.coefficients[column].clone();
        if t.is_zero() {
            return;
        }
        let mut p = pivot.coefficients[column].clone();
        let mut t_scaled = t;
        // Keep the new denominator positive: multiply numerator and denominator by -1.
        if p.is_negative() {
            p = -p;
            t_scaled = -t_scaled;
        }
        for (entry, q) in self.coefficients.iter_mut().zip(&pivot.coefficients) {
            let scaled = &*entry * &p;
            *entry = if q.is_zero() {
                scaled
            } else {
                scaled - &t_scaled * q
            };
        }
        self.rhs = &self.rhs * &p - &t_scaled * &pivot.rhs;
        self.denominator = &self.denominator * &p;
        self.reduce();
    }
}

/// Why a simplex run stopped.
enum Outcome {
    /// No entering column: the basis is optimal.
    Optimal,
    /// An entering column without a positive entry: the objective is unbounded below.
    Unbounded,
}

/// A feasible tableau in standard form.
#[derive(Clone, Debug)]
struct Tableau {
    rows: Vec<Row>,
    basis: Vec<usize>,
    objective: Row,
    /// Columns `0..eligible` may enter the basis.
    eligible: usize,
}

impl Tableau {
    /// Makes `column` basic in row `r`.
    fn pivot(&mut self, r: usize, column: usize) {
        let mut pivot = std::mem::replace(
            &mut self.rows[r],
            Row {
                coefficients: Vec::new(),
                rhs: Int::zero(),
                denominator: Int::one(),
            },
        );
        let p = pivot.coefficients[column].clone();
        if p.is_negative() {
            for a in &mut pivot.coefficients {
                *a = -&*a;
            }
            pivot.rhs = -&pivot.rhs;
            pivot.denominator = -p;
        } else {
            pivot.denominator = p;
        }
        pivot.reduce();
        for row in &mut self.rows {
            if !row.coefficients.is_empty() {
                row.eliminate(&pivot, column);
            }
        }
        self.objective.eliminate(&pivot, column);
        self.rows[r] = pivot;
        self.basis[r] = column;
    }

    /// Runs the primal simplex with Bland's rule until optimality or unboundedness.
    fn run(&mut self, budget: &mut Budget) -> Result<Outcome> {
        loop {
            budget.tick(1 + self.rows.len() as u64)?;
            let Some(column) =
                (0..self.eligible).find(|&j| self.objective.coefficients[j].is_negative())
            else {
                return Ok(Outcome::Optimal);
            };
            let Some(r) = self.leaving_row(column) else {
                return Ok(Outcome::Unbounded);
            };
            self.pivot(r, column);
        }
    }

    /// The ratio test: among rows with a positive entry in `column`, the smallest
    /// `rhs / entry` (denominators cancel), ties broken by the smallest basic column.
    fn leaving_row(&self, column: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (r, row) in self.rows.iter().enumerate() {
            let entry = &row.coefficients[column];
            if !entry.is_positive() {
                continue;
            }
            best = match best {
                None => Some(r),
                Some(b) => {
                    let current = &self.rows[b];
                    let lhs = &row.rhs * &current.coefficients[column];
                    let rhs = &current.rhs * entry;
                    if lhs < rhs || (lhs == rhs && self.basis[r] < self.basis[b]) {
                        Some(r)
                    } else {
                        Some(b)
                    }
                }
            };
        }
        best
    }

    /// The point `x = y⁺ - y⁻` of the current basic solution.
    fn point(&self, n_vars: usize) -> Vec<Rat> {
        (0..n_vars)
            .map(|i| self.column_value(2 * i) - self.column_value(2 * i + 1))
            .collect()
    }

    /// The value of basic or non-basic column `column` in the current basic solution.
    fn column_value(&self, column: usize) -> Rat {
        match self.basis.iter().position(|&b| b == column) {
            Some(r) => Rat::new(self.rows[r].rhs.clone(), self.rows[r].denominator.clone()),
            None => Rat::from_int(Int::zero()),
        }
    }
}

/// Checks that `objective` fits `sys`.
fn validate_objective(sys: &System, objective: &[Int]) -> Result<()> {
    if objective.len() != sys.n_vars + 1 {
        return Err(Error::Unsupported(format!(
            "objective of a system over {} variables must have {} entries",
            sys.n_vars,
            sys.n_vars + 1
        )));
    }
    Ok(())
}

/// Builds the standard form of `sys` and runs phase 1. `None` when the rational
/// polyhedron is empty; otherwise a feasible tableau whose artificial columns are gone.
fn phase_one(sys: &System, budget: &mut Budget) -> Result<Option<Tableau>> {
    let n = sys.n_vars;
    let structural = 2 * n + sys.ineqs.len();
    let mut rows = Vec::with_capacity(sys.eqs.len() + sys.ineqs.len());
    let mut basis = Vec::with_capacity(rows.capacity());
    let mut needs_artificial = Vec::new();
    let constraints = sys
        .eqs
        .iter()
        .map(|row| (row, None))
        .chain(sys.ineqs.iter().enumerate().map(|(j, row)| (row, Some(j))));
    for (constraint, slack) in constraints {
        // Σ a_i (y⁺_i - y⁻_i) [- s_j] = -c
        let mut coefficients = vec![Int::zero(); structural];
        for (i, a) in constraint[1..].iter().enumerate() {
            coefficients[2 * i] = a.clone();
            coefficients[2 * i + 1] = -a;
        }
        if let Some(j) = slack {
            coefficients[2 * n + j] = -Int::one();
        }
        let mut rhs = -&constraint[0];
        // Make the right-hand side non-negative; for an inequality with `rhs = 0` flip too,
        // so that its slack enters with `+1` and can start basic.
        if rhs.is_negative() || (slack.is_some() && rhs.is_zero()) {
            for a in &mut coefficients {
                *a = -&*a;
            }
            rhs = -rhs;
        }
        let slack_basic = slack
            .map(|j| 2 * n + j)
            .filter(|&column| coefficients[column].is_positive());
        basis.push(slack_basic.unwrap_or(usize::MAX));
        needs_artificial.push(slack_basic.is_none());
        rows.push(Row {
            coefficients,
            rhs,
            denominator: Int::one(),
        });
    }
    let artificial_rows: Vec<usize> = (0..rows.len()).filter(|&r| needs_artificial[r]).collect();
    let total = structural + artificial_rows.len();
    for row in &mut rows {
        row.coefficients.resize(total, Int::zero());
    }
    // Phase-1 objective Σ a_r = Σ_r (b_r - Σ_j t_rj y_j) over the artificial rows.
    let mut objective = Row {
        coefficients: vec![Int::zero(); total],
        rhs: Int::zero(),
        denominator: Int::one(),
    };
    for (k, &r) in artificial_rows.iter().enumerate() {
        let column = structural + k;
        rows[r].coefficients[column] = Int::one();
        basis[r] = column;
        for (d, t) in objective.coefficients[..structural]
            .iter_mut()
            .zip(&rows[r].coefficients[..structural])
        {
            if !t.is_zero() {
                *d = &*d - t;
            }
        }
        objective.rhs = &objective.rhs - &rows[r].rhs;
    }
    let mut tableau = Tableau {
        rows,
        basis,
        objective,
        eligible: structural,
    };
    if !artificial_rows.is_empty() {
        tableau.run(budget)?;
        // Optimum K = -rhs / denominator; feasible iff K = 0.
        if !tableau.objective.rhs.is_zero() {
            return Ok(None);
        }
        drive_out_artificials(&mut tableau, structural, budget)?;
    }
    for row in &mut tableau.rows {
        row.coefficients.truncate(structural);
    }
    Ok(Some(tableau))
}

/// Pivots artificial columns (basic at level zero) out of the basis, dropping the rows
/// where no structural column can replace them (those rows are linear combinations of
/// the others).
fn drive_out_artificials(
    tableau: &mut Tableau,
    structural: usize,
    budget: &mut Budget,
) -> Result<()> {
    let mut r = 0;
    while r < tableau.rows.len() {
        if tableau.basis[r] < structural {
            r += 1;
            continue;
        }
        budget.tick(1 + tableau.rows.len() as u64)?;
        match (0..structural).find(|&j| !tableau.rows[r].coefficients[j].is_zero()) {
            Some(column) => {
                tableau.pivot(r, column);
                r += 1;
            }
            None => {
                tableau.rows.remove(r);
                tableau.basis.remove(r);
            }
        }
    }
    Ok(())
}

/// Whether the rational polyhedron of `sys` is empty.
pub fn is_rationally_empty(sys: &System, budget: &mut Budget) -> Result<bool> {
    sys.validate()?;
    Ok(phase_one(sys, budget)?.is_none())
}

/// A rational point of `sys` (a vertex of the standard form), or `None` when the rational
/// polyhedron is empty.
pub fn rational_sample(sys: &System, budget: &mut Budget) -> Result<Option<Vec<Rat>>> {
    let zero_objective = vec![Int::zero(); sys.n_vars + 1];
    Ok(rational_min(sys, &zero_objective, budget)?
        .bounded()
        .map(|(_, point)| point))
}

/// The minimum of `objective = [c, a_1, ..., a_n]`, i.e. of `c + Σ a_i x_i`, over the
/// rational polyhedron of `sys`, with a point attaining it.
pub fn rational_min(
    sys: &System,
    objective: &[Int],
    budget: &mut Budget,
) -> Result<Optimum<(Rat, Vec<Rat>)>> {
    sys.validate()?;
    validate_objective(sys, objective)?;
    Polyhedron::new(sys, budget)?.minimize(objective, budget)
}

/// The minima of several objectives over the rational polyhedron of `sys` (each as in
/// [`rational_min`], without the point), phase 1 run once for all of them.
pub fn rational_mins(
    sys: &System,
    objectives: &[Vec<Int>],
    budget: &mut Budget,
) -> Result<Vec<Optimum<Rat>>> {
    sys.validate()?;
    for objective in objectives {
        validate_objective(sys, objective)?;
    }
    let polyhedron = Polyhedron::new(sys, budget)?;
    objectives
        .iter()
        .map(|objective| {
            Ok(polyhedron
                .minimize(objective, budget)?
                .map(|(value, _)| value))
        })
        .collect()
}

/// A rational polyhedron prepared for several optimisations: phase 1 runs once and every
/// objective starts phase 2 from the same feasible basis.
#[derive(Clone, Debug)]
pub(super) struct Polyhedron {
    n_vars: usize,
    /// `None` when the polyhedron is empty.
    tableau: Option<Tableau>,
}

impl Polyhedron {
    /// Runs phase 1 on `sys` (whose rows must be valid).
    pub(super) fn new(sys: &System, budget: &mut Budget) -> Result<Polyhedron> {
        Ok(Polyhedron {
            n_vars: sys.n_vars,
            tableau: phase_one(sys, budget)?,
        })
    }

    /// The feasible basic solution found by phase 1 (a vertex of the standard form), or
    /// `None` when the polyhedron is empty.
    pub(super) fn point(&self) -> Option<Vec<Rat>> {
        self.tableau
            .as_ref()
            .map(|tableau| tableau.point(self.n_vars))
    }

    /// The minimum of `objective` (of length `n_vars + 1`) with a point attaining it.
    pub(super) fn minimize(
        &self,
        objective: &[Int],
        budget: &mut Budget,
    ) -> Result<Optimum<(Rat, Vec<Rat>)>> {
        let Some(tableau) = &self.tableau else {
            return Ok(Optimum::Empty);
        };
        let mut tableau = tableau.clone();
        let structural = tableau.eligible;
        let mut row = Row {
            coefficients: vec![Int::zero(); structural],
            rhs: -&objective[0],
            denominator: Int::one(),
        };
        for (i, a) in objective[1..].iter().enumerate() {
            row.coefficients[2 * i] = a.clone();
            row.coefficients[2 * i + 1] = -a;
        }
        for (r, &column) in tableau.basis.iter().enumerate() {
            row.eliminate(&tableau.rows[r], column);
        }
        tableau.objective = row;
        match tableau.run(budget)? {
            Outcome::Unbounded => Ok(Optimum::Unbounded),
            Outcome::Optimal => {
                let value = Rat::new(
                    -&tableau.objective.rhs,
                    tableau.objective.denominator.clone(),
                );
                Ok(Optimum::Bounded((value, tableau.point(self.n_vars))))
            }
        }
    }

    /// The maximum of `objective` with a point attaining it.
    pub(super) fn maximize(
        &self,
        objective: &[Int],
        budget: &mut Budget,
    ) -> Result<Optimum<(Rat, Vec<Rat>)>> {
        let negated: Vec<Int> = objective.iter().map(|a| -a).collect();
        Ok(self
            .minimize(&negated, budget)?
            .map(|(value, point)| (-value, point)))
    }
}

/// The maximum of `objective` over the rational polyhedron of `sys`, with a point
/// attaining it.
pub fn rational_max(
    sys: &System,
    objective: &[Int],
    budget: &mut Budget,
) -> Result<Optimum<(Rat, Vec<Rat>)>> {
    let negated: Vec<Int> = objective.iter().map(|a| -a).collect();
    Ok(rational_min(sys, &negated, budget)?.map(|(value, point)| (-value, point)))
}
