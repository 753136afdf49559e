//! Rational linear programming on an incremental tableau.
//!
//! Sources: G. B. Dantzig, *Linear Programming and Extensions* (1963) for the simplex
//! method; R. G. Bland, "New finite pivoting rules for the simplex method", Mathematics of
//! Operations Research 2(2), 1977, for the anti-cycling rule; the tableau itself (one
//! row per basic variable, integer numerators over one positive denominator per row,
//! the variables of the constraints and of the space sharing one basis, rows added one
//! at a time and made feasible as they come) follows isl's `isl_tab.c`.
//!
//! # The tableau
//! Its variables are the system's `n` free variables `x` and one variable per
//! constraint, the value `s = c + a·x` of its row. Each variable is either *basic*,
//! a row `(const + Σ_j coef_j · col_j) / den` over the *non-basic* ones, or non-basic,
//! a column, whose value in the tableau's *sample* is 0. Initially the `x` are the
//! columns. A constraint is added as a row (its affine form rewritten over the current
//! columns); an inequality's variable is *restricted* to non-negative values; an
//! equality's variable is pivoted into a column that is then *dead* (fixed at 0 and
//! cleared from every row).
//!
//! The sample stays feasible: after an inequality is added, while its value is negative
//! the row is pivoted towards larger values (a simplex step maximising it over the
//! polyhedron of the rows before it); when no step increases it, the polyhedron is
//! empty. Minimising an affine form adds it as an unrestricted row and pivots it down.
//! The test for a redundant inequality (isl's `isl_tab_detect_redundant`) lifts the
//! restriction of its variable and minimises it on the same tableau: it is redundant
//! when the minimum is non-negative, and stays unrestricted (so it no longer bounds
//! anything); otherwise its restriction comes back and its row is made feasible again.
//!
//! # Numbers
//! The tableau is generic over its entries ([`Coef`]): every computation runs first on
//! `i64` entries with checked arithmetic, and reruns on [`Int`] entries (which never
//! overflow) only if an `i64` operation would overflow. Both give the same exact answer.
//!
//! # Invariants
//! - every row's denominator is positive and the row is reduced by the gcd of its
//!   entries;
//! - the sample is feasible: every restricted basic variable has a non-negative value;
//! - a dead column is zero in every row;
//! - Bland's rule (the entering column of smallest variable index, ties in the ratio test
//!   broken by the smallest variable index) guarantees termination; every pivot spends
//!   budget.

use std::cmp::Ordering;
use std::fmt::Debug;

use pollen_arith::{Int, Rat};

use super::{Optimum, System};
use crate::error::{Budget, Error, Result};

/// Why a computation on a tableau stopped early.
#[derive(Debug)]
enum Stop {
    /// An entry did not fit in the tableau's number type.
    Overflow,
    /// A library error (the budget ran out).
    Error(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Error(e)
    }
}

/// The result of a step that may overflow.
type Step<T> = std::result::Result<T, Stop>;

/// The entries of a tableau: exact integers of some representation. Every operation
/// that may not fit answers `None`.
trait Coef: Clone + Debug + PartialEq {
    /// `v`, if representable.
    fn of(v: &Int) -> Option<Self>;
    /// The value as an [`Int`].
    fn int(&self) -> Int;
    /// 0.
    fn zero() -> Self;
    /// 1.
    fn one() -> Self;
    /// Whether the value is 0.
    fn is_zero(&self) -> bool;
    /// Whether the value is 1.
    fn is_one(&self) -> bool;
    /// Whether the value is below 0.
    fn is_negative(&self) -> bool;
    /// Whether the value is above 0.
    fn is_positive(&self) -> bool;
    /// `-self`.
    fn neg(&self) -> Option<Self>;
    /// `self + o`.
    fn add(&self, o: &Self) -> Option<Self>;
    /// `self * o`.
    fn mul(&self, o: &Self) -> Option<Self>;
    /// `self * a + o * b`.
    fn mul_add(&self, a: &Self, o: &Self, b: &Self) -> Option<Self>;
    /// The gcd of the magnitudes (non-negative).
    fn gcd(&self, o: &Self) -> Self;
    /// `self / d` for a divisor `d` of `self`.
    fn div_exact(&self, d: &Self) -> Self;
    /// `|self|`.
    fn abs(&self) -> Self;
    /// The order of `a * b` and `c * d`.
    fn cmp_products(a: &Self, b: &Self, c: &Self, d: &Self) -> Ordering;
}

/// `i64` entries. `i64::MIN` counts as an overflow, so that every magnitude fits.
impl Coef for i64 {
    #[inline]
    fn of(v: &Int) -> Option<i64> {
        v.to_i64().filter(|&v| v != i64::MIN)
    }
    #[inline]
    fn int(&self) -> Int {
        Int::from(*self)
    }
    #[inline]
    fn zero() -> i64 {
        0
    }
    #[inline]
    fn one() -> i64 {
        1
    }
    #[inline]
    fn is_zero(&self) -> bool {
        *self == 0
    }
    #[inline]
    fn is_one(&self) -> bool {
        *self == 1
    }
    #[inline]
    fn is_negative(&self) -> bool {
        *self < 0
    }
    #[inline]
    fn is_positive(&self) -> bool {
        *self > 0
    }
    #[inline]
    fn neg(&self) -> Option<i64> {
        Some(-*self)
    }
    #[inline]
    fn add(&self, o: &i64) -> Option<i64> {
        self.checked_add(*o).filter(|&v| v != i64::MIN)
    }
    #[inline]
    fn mul(&self, o: &i64) -> Option<i64> {
        self.checked_mul(*o).filter(|&v| v != i64::MIN)
    }
    #[inline]
    fn mul_add(&self, a: &i64, o: &i64, b: &i64) -> Option<i64> {
        let v = i128::from(*self) * i128::from(*a) + i128::from(*o) * i128::from(*b);
        i64::try_from(v).ok().filter(|&v| v != i64::MIN)
    }
    #[inline]
    fn gcd(&self, o: &i64) -> i64 {
        let (mut a, mut b) = (self.unsigned_abs(), o.unsigned_abs());
        while b != 0 {
            (a, b) = (b, a % b);
        }
        // Both magnitudes are at most i64::MAX, and so is their gcd.
        a as i64
    }
    #[inline]
    fn div_exact(&self, d: &i64) -> i64 {
        self / d
    }
    #[inline]
    fn abs(&self) -> i64 {
        i64::abs(*self)
    }
    #[inline]
    fn cmp_products(a: &i64, b: &i64, c: &i64, d: &i64) -> Ordering {
        (i128::from(*a) * i128::from(*b)).cmp(&(i128::from(*c) * i128::from(*d)))
    }
}

/// [`Int`] entries: never overflow.
impl Coef for Int {
    fn of(v: &Int) -> Option<Int> {
        Some(v.clone())
    }
    fn int(&self) -> Int {
        self.clone()
    }
    fn zero() -> Int {
        Int::zero()
    }
    fn one() -> Int {
        Int::one()
    }
    fn is_zero(&self) -> bool {
        Int::is_zero(self)
    }
    fn is_one(&self) -> bool {
        Int::is_one(self)
    }
    fn is_negative(&self) -> bool {
        Int::is_negative(self)
    }
    fn is_positive(&self) -> bool {
        Int::is_positive(self)
    }
    fn neg(&self) -> Option<Int> {
        Some(-self)
    }
    fn add(&self, o: &Int) -> Option<Int> {
        Some(self + o)
    }
    fn mul(&self, o: &Int) -> Option<Int> {
        Some(self * o)
    }
    fn mul_add(&self, a: &Int, o: &Int, b: &Int) -> Option<Int> {
        Some(self * a + o * b)
    }
    fn gcd(&self, o: &Int) -> Int {
        Int::gcd(self, o)
    }
    fn div_exact(&self, d: &Int) -> Int {
        self.exact_div(d)
    }
    fn abs(&self) -> Int {
        Int::abs(self)
    }
    fn cmp_products(a: &Int, b: &Int, c: &Int, d: &Int) -> Ordering {
        (a * b).cmp(&(c * d))
    }
}

/// `Some(v)` as a [`Step`], `None` as an overflow.
#[inline]
fn fit<T>(v: Option<T>) -> Step<T> {
    v.ok_or(Stop::Overflow)
}

/// Where a variable of the tableau is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Basic, in this row.
    Row(usize),
    /// Non-basic, in this column.
    Col(usize),
    /// A redundant equality, not in the tableau.
    Gone,
}

/// A variable of the tableau.
#[derive(Clone, Copy, Debug)]
struct Var {
    place: Place,
    /// Whether the variable must stay non-negative.
    restricted: bool,
}

/// How a minimisation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Descent {
    /// No column decreases the row: its sample value is its minimum.
    Optimal,
    /// A column decreases the row without bound.
    Unbounded,
    /// The row's value went below zero (only when asked to stop there).
    Negative,
}

/// An incremental simplex tableau over entries `N`.
#[derive(Debug)]
struct Tableau<N> {
    /// The number of `x` variables (variables `0..n_vars`).
    n_vars: usize,
    /// The number of columns.
    cols: usize,
    /// Rows of `2 + cols` entries: denominator, constant, one coefficient per column.
    data: Vec<N>,
    /// The variable of each row.
    row_var: Vec<usize>,
    /// The variable of each column.
    col_var: Vec<usize>,
    /// Whether each column is dead (its variable fixed at 0).
    dead: Vec<bool>,
    vars: Vec<Var>,
    /// A row's worth of room for the pivot row.
    scratch: Vec<N>,
}

impl<N: Clone> Clone for Tableau<N> {
    /// A copy with room for two more rows: a copy is usually a snapshot that takes a
    /// constraint or an objective next, which then needs no reallocation.
    fn clone(&self) -> Tableau<N> {
        fn spare<T: Clone>(v: &[T], extra: usize) -> Vec<T> {
            let mut out = Vec::with_capacity(v.len() + extra);
            out.extend_from_slice(v);
            out
        }
        let data = spare(&self.data, 2 * (2 + self.cols));
        let row_var = spare(&self.row_var, 2);
        let vars = spare(&self.vars, 2);
        Tableau {
            n_vars: self.n_vars,
            cols: self.cols,
            data,
            row_var,
            col_var: self.col_var.clone(),
            dead: self.dead.clone(),
            vars,
            scratch: Vec::new(),
        }
    }
}

impl<N: Coef> Tableau<N> {
    /// The tableau of `n_vars` free variables and no constraint, with room for `rows`
    /// rows.
    fn new(n_vars: usize, rows: usize) -> Tableau<N> {
        let mut vars = Vec::with_capacity(n_vars + rows);
        vars.extend((0..n_vars).map(|j| Var {
            place: Place::Col(j),
            restricted: false,
        }));
        Tableau {
            n_vars,
            cols: n_vars,
            data: Vec::with_capacity(rows * (2 + n_vars)),
            row_var: Vec::with_capacity(rows),
            col_var: (0..n_vars).collect(),
            dead: vec![false; n_vars],
            vars,
            scratch: Vec::new(),
        }
    }

    #[inline]
    fn width(&self) -> usize {
        2 + self.cols
    }

    #[inline]
    fn rows(&self) -> usize {
        self.row_var.len()
    }

    #[inline]
    fn row(&self, r: usize) -> &[N] {
        let w = self.width();
        &self.data[r * w..(r + 1) * w]
    }

    #[inline]
    fn row_mut(&mut self, r: usize) -> &mut [N] {
        let w = self.width();
        &mut self.data[r * w..(r + 1) * w]
    }

    /// The entry of row `r` in column `c`.
    #[inline]
    fn entry(&self, r: usize, c: usize) -> &N {
        &self.data[r * self.width() + 2 + c]
    }

    /// The constant of row `r` (its sign is the sign of the row's sample value).
    #[inline]
    fn constant(&self, r: usize) -> &N {
        &self.data[r * self.width() + 1]
    }

    /// Adds a new variable, the affine form `[c, a_1, ..., a_n]` over `x`, as a row.
    fn add_row(&mut self, form: &[Int], restricted: bool) -> Step<usize> {
        let w = self.width();
        let r = self.rows();
        self.data.resize((r + 1) * w, N::zero());
        let (rows, row) = self.data.split_at_mut(r * w);
        row[0] = N::one();
        row[1] = fit(N::of(&form[0]))?;
        for (i, a) in form[1..].iter().enumerate() {
            if a.is_zero() {
                continue;
            }
            let a = fit(N::of(a))?;
            match self.vars[i].place {
                Place::Col(c) => {
                    // row += a · col / 1, over the row's denominator
                    let scaled = fit(a.mul(&row[0]))?;
                    row[2 + c] = fit(row[2 + c].add(&scaled))?;
                }
                Place::Row(k) => {
                    // row/d + a · other/e = (row · e/g + a · other · d/g) / (d e / g)
                    let other = &rows[k * w..(k + 1) * w];
                    let g = row[0].gcd(&other[0]);
                    let e = other[0].div_exact(&g);
                    let d = row[0].div_exact(&g);
                    let ad = fit(a.mul(&d))?;
                    for (x, y) in row[1..].iter_mut().zip(&other[1..]) {
                        *x = fit(x.mul_add(&e, y, &ad))?;
                    }
                    row[0] = fit(row[0].mul(&e))?;
                    reduce(row);
                }
                Place::Gone => unreachable!("x variables are never gone"),
            }
        }
        reduce(row);
        let var = self.vars.len();
        self.row_var.push(var);
        self.vars.push(Var {
            place: Place::Row(r),
            restricted,
        });
        Ok(r)
    }
    /// Removes row `r`, the last variable added (a temporary objective).
    fn drop_last_row(&mut self, r: usize) {
        let var = self.row_var[r];
        debug_assert_eq!(
            var + 1,
            self.vars.len(),
            "only the last variable is dropped"
        );
        let last = self.rows() - 1;
        let w = self.width();
        if r != last {
            let (head, tail) = self.data.split_at_mut(last * w);
            head[r * w..(r + 1) * w].clone_from_slice(&tail[..w]);
            let moved = self.row_var[last];
            self.row_var[r] = moved;
            self.vars[moved].place = Place::Row(r);
        }
        self.data.truncate(last * w);
        self.row_var.pop();
        self.vars.pop();
    }

    /// Exchanges the basic variable of row `r` with the non-basic variable of column `c`
    /// (whose entry in row `r` must be non-zero).
    fn pivot(&mut self, r: usize, c: usize, budget: &mut Budget) -> Step<()> {
        budget.tick(1 + self.rows() as u64)?;
        let w = self.width();
        let rows = self.rows();
        // Row r: u = (b + a v + Σ a_j w_j) / d  becomes  v = (-b + d u - Σ a_j w_j) / a.
        {
            let row = &mut self.data[r * w..(r + 1) * w];
            let a = row[2 + c].clone();
            let d = row[0].clone();
            if a.is_negative() {
                row[0] = fit(a.neg())?;
                row[2 + c] = fit(d.neg())?;
            } else {
                for x in row[1..].iter_mut() {
                    *x = fit(x.neg())?;
                }
                row[0] = a;
                row[2 + c] = d;
            }
            reduce(row);
        }
        let mut pivot = std::mem::take(&mut self.scratch);
        pivot.clear();
        pivot.extend_from_slice(self.row(r));
        for i in 0..rows {
            if i == r {
                continue;
            }
            let row = &mut self.data[i * w..(i + 1) * w];
            let e = row[2 + c].clone();
            if e.is_zero() {
                continue;
            }
            // var_i = (b_i + e v + Σ e_j w_j) / d_i with v = (P + Σ P_j w_j + P_c u) / p:
            // var_i = (b_i p + e P + Σ (e_j p + e P_j) w_j + e P_c u) / (d_i p)
            let p = &pivot[0];
            if p.is_one() {
                for (x, y) in row[1..].iter_mut().zip(&pivot[1..]) {
                    if !y.is_zero() {
                        *x = fit(x.mul_add(&N::one(), y, &e))?;
                    }
                }
                row[2 + c] = fit(e.mul(&pivot[2 + c]))?;
            } else {
                for (x, y) in row[1..].iter_mut().zip(&pivot[1..]) {
                    *x = fit(x.mul_add(p, y, &e))?;
                }
                row[2 + c] = fit(e.mul(&pivot[2 + c]))?;
                row[0] = fit(row[0].mul(p))?;
            }
            reduce(row);
        }
        self.scratch = pivot;
        let u = self.row_var[r];
        let v = self.col_var[c];
        self.row_var[r] = v;
        self.col_var[c] = u;
        self.vars[u].place = Place::Col(c);
        self.vars[v].place = Place::Row(r);
        Ok(())
    }

    /// The entering column that moves row `r` in direction `up` (towards larger values
    /// when true), by Bland's rule, with the direction its variable moves in (`true`:
    /// increases).
    fn entering(&self, r: usize, up: bool) -> Option<(usize, bool)> {
        let mut best: Option<(usize, bool)> = None;
        for c in 0..self.cols {
            if self.dead[c] {
                continue;
            }
            let e = self.entry(r, c);
            if e.is_zero() {
                continue;
            }
            let var = self.col_var[c];
            // Moving the column variable up moves the row up iff e > 0.
            let increase = e.is_positive() == up;
            if !increase && self.vars[var].restricted {
                continue;
            }
            if best.is_none_or(|(b, _)| var < self.col_var[b]) {
                best = Some((c, increase));
            }
        }
        best
    }

    /// The ratio test for column `c` moving in direction `increase`: the restricted row
    /// (other than `skip`) that reaches zero first, ties broken by the smallest variable
    /// index, with its step numerator and denominator (`|constant| / |entry|`).
    fn leaving(&self, c: usize, increase: bool, skip: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        for i in 0..self.rows() {
            if i == skip || !self.vars[self.row_var[i]].restricted {
                continue;
            }
            let e = self.entry(i, c);
            // The row decreases iff e < 0 when the column increases, e > 0 otherwise.
            if e.is_zero() || e.is_positive() == increase {
                continue;
            }
            best = match best {
                None => Some(i),
                Some(b) => {
                    // constant_i / |e_i| against constant_b / |e_b|
                    let order = N::cmp_products(
                        self.constant(i),
                        &self.entry(b, c).abs(),
                        self.constant(b),
                        &e.abs(),
                    );
                    if order == Ordering::Less
                        || (order == Ordering::Equal && self.row_var[i] < self.row_var[b])
                    {
                        Some(i)
                    } else {
                        Some(b)
                    }
                }
            };
        }
        best
    }

    /// Pivots the restricted row `r`, whose value is negative, until its value is
    /// non-negative, keeping every other restricted row non-negative. `false` when its
    /// maximum is negative: the polyhedron is empty.
    fn restore(&mut self, r: usize, budget: &mut Budget) -> Step<bool> {
        loop {
            if !self.constant(r).is_negative() {
                return Ok(true);
            }
            let Some((c, increase)) = self.entering(r, true) else {
                return Ok(false);
            };
            match self.leaving(c, increase, r) {
                Some(i)
                    if N::cmp_products(
                        self.constant(i),
                        &self.entry(r, c).abs(),
                        &self.constant(r).abs(),
                        &self.entry(i, c).abs(),
                    ) == Ordering::Less =>
                {
                    self.pivot(i, c, budget)?;
                }
                // The row reaches zero first (or nothing bounds the step): it leaves.
                _ => {
                    self.pivot(r, c, budget)?;
                    return Ok(true);
                }
            }
        }
    }

    /// Pivots the unrestricted row `r` to its minimum (or until its value is negative,
    /// when `stop_negative`). Row `r` never leaves the basis.
    fn descend(&mut self, r: usize, stop_negative: bool, budget: &mut Budget) -> Step<Descent> {
        debug_assert!(!self.vars[self.row_var[r]].restricted);
        loop {
            if stop_negative && self.constant(r).is_negative() {
                return Ok(Descent::Negative);
            }
            let Some((c, increase)) = self.entering(r, false) else {
                return Ok(Descent::Optimal);
            };
            let Some(i) = self.leaving(c, increase, r) else {
                return Ok(Descent::Unbounded);
            };
            self.pivot(i, c, budget)?;
        }
    }

    /// Adds the equality `form = 0`. `false` when the tableau becomes empty.
    fn add_equality(&mut self, form: &[Int], budget: &mut Budget) -> Step<bool> {
        let r = self.add_row(form, false)?;
        let column = (0..self.cols)
            .filter(|&c| !self.dead[c] && !self.entry(r, c).is_zero())
            .min_by_key(|&c| self.col_var[c]);
        let Some(c) = column else {
            let zero = self.constant(r).is_zero();
            let var = self.row_var[r];
            self.drop_last_row(r);
            // Keep the variable's index: equality variables are numbered in order.
            self.vars.push(Var {
                place: Place::Gone,
                restricted: false,
            });
            debug_assert_eq!(self.vars.len(), var + 1);
            return Ok(zero);
        };
        self.pivot(r, c, budget)?;
        // The equality's variable is now column c, fixed at zero: clear the column.
        self.dead[c] = true;
        // A row that loses an entry may have a larger gcd: reduce it again.
        for i in 0..self.rows() {
            let row = self.row_mut(i);
            if !row[2 + c].is_zero() {
                row[2 + c] = N::zero();
                reduce(row);
            }
        }
        Ok(true)
    }

    /// Adds the inequality `form >= 0` and makes the sample feasible again. `false` when
    /// the tableau becomes empty.
    fn add_inequality(&mut self, form: &[Int], budget: &mut Budget) -> Step<bool> {
        let r = self.add_row(form, true)?;
        if self.constant(r).is_negative() {
            return self.restore(r, budget);
        }
        Ok(true)
    }

    /// The tableau of `sys` (equalities first, then inequalities, in order: variable
    /// `n_vars + k` is the `k`-th), or `None` when its rational polyhedron is empty.
    fn of_system(sys: &System, budget: &mut Budget) -> Step<Option<Tableau<N>>> {
        let mut tableau = Tableau::new(sys.n_vars, sys.eqs.len() + sys.ineqs.len() + 2);
        for eq in &sys.eqs {
            if !tableau.add_equality(eq, budget)? {
                return Ok(None);
            }
        }
        for ineq in &sys.ineqs {
            if !tableau.add_inequality(ineq, budget)? {
                return Ok(None);
            }
        }
        Ok(Some(tableau))
    }

    /// The sample value of variable `var`.
    fn value(&self, var: usize) -> Rat {
        match self.vars[var].place {
            Place::Row(r) => {
                let row = self.row(r);
                Rat::new(row[1].int(), row[0].int())
            }
            Place::Col(_) | Place::Gone => Rat::from_int(Int::zero()),
        }
    }

    /// The sample's `x`.
    fn point(&self) -> Vec<Rat> {
        (0..self.n_vars).map(|i| self.value(i)).collect()
    }

    /// The minimum of the affine form `objective` over `x`, with the point attaining it.
    /// The tableau's basis changes; its polyhedron does not.
    fn minimize(
        &mut self,
        objective: &[Int],
        budget: &mut Budget,
    ) -> Step<Optimum<(Rat, Vec<Rat>)>> {
        let r = self.add_row(objective, false)?;
        let outcome = self.descend(r, false, budget)?;
        let var = self.row_var[r];
        let answer = match outcome {
            Descent::Unbounded => Optimum::Unbounded,
            _ => Optimum::Bounded((self.value(var), self.point())),
        };
        if let Place::Row(r) = self.vars[var].place {
            self.drop_last_row(r);
        }
        Ok(answer)
    }

    /// Whether the inequality of variable `var` is implied by the others still
    /// restricted; if so it stays unrestricted.
    fn drop_if_redundant(&mut self, var: usize, budget: &mut Budget) -> Step<bool> {
        self.vars[var].restricted = false;
        // Minimise a copy of the variable: a row equal to it.
        let w = self.width();
        let r = self.rows();
        match self.vars[var].place {
            Place::Row(k) => self.data.extend_from_within(k * w..(k + 1) * w),
            Place::Col(c) => {
                self.data.resize((r + 1) * w, N::zero());
                self.data[r * w] = N::one();
                self.data[r * w + 2 + c] = N::one();
            }
            Place::Gone => unreachable!("inequalities are never gone"),
        }
        let temp = self.vars.len();
        self.row_var.push(temp);
        self.vars.push(Var {
            place: Place::Row(r),
            restricted: false,
        });
        let outcome = self.descend(r, true, budget)?;
        if let Place::Row(r) = self.vars[temp].place {
            self.drop_last_row(r);
        } else {
            unreachable!("an unrestricted row never leaves");
        }
        if outcome == Descent::Optimal {
            return Ok(true);
        }
        self.vars[var].restricted = true;
        if let Place::Row(r) = self.vars[var].place {
            if self.constant(r).is_negative() && !self.restore(r, budget)? {
                return Err(Stop::Error(Error::Unsupported(
                    "simplex invariant violated: a feasible tableau became empty".into(),
                )));
            }
        }
        Ok(false)
    }

    /// The same tableau over [`Int`] entries.
    fn widen(&self) -> Tableau<Int> {
        Tableau {
            n_vars: self.n_vars,
            cols: self.cols,
            data: self.data.iter().map(Coef::int).collect(),
            row_var: self.row_var.clone(),
            col_var: self.col_var.clone(),
            dead: self.dead.clone(),
            vars: self.vars.clone(),
            scratch: Vec::new(),
        }
    }
}

/// Divides a row by the gcd of its entries (the denominator positive).
fn reduce<N: Coef>(row: &mut [N]) {
    let mut g = row[0].clone();
    for x in row[1..].iter() {
        if g.is_one() {
            return;
        }
        if !x.is_zero() {
            g = g.gcd(x);
        }
    }
    if g.is_one() || g.is_zero() {
        return;
    }
    for x in row.iter_mut() {
        if !x.is_zero() {
            *x = x.div_exact(&g);
        }
    }
}

/// Runs `small` (on `i64` entries), and `big` (on [`Int`] entries) only if `small`
/// overflows.
fn exact<T>(
    budget: &mut Budget,
    small: impl FnOnce(&mut Budget) -> Step<T>,
    big: impl FnOnce(&mut Budget) -> Step<T>,
) -> Result<T> {
    match small(budget) {
        Ok(v) => Ok(v),
        Err(Stop::Error(e)) => Err(e),
        Err(Stop::Overflow) => match big(budget) {
            Ok(v) => Ok(v),
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::Overflow) => unreachable!("Int entries never overflow"),
        },
    }
}

/// The error for a row of `len` entries given to a polyhedron over `n_vars` variables.
fn width_error(n_vars: usize, len: usize) -> Error {
    Error::Unsupported(format!(
        "a row of a polyhedron over {n_vars} variables must have {} entries, not {len}",
        n_vars + 1
    ))
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

/// Whether the rational polyhedron of `sys` is empty.
pub fn is_rationally_empty(sys: &System, budget: &mut Budget) -> Result<bool> {
    sys.validate()?;
    Ok(Polyhedron::new(sys, budget)?.tableau.is_none())
}

/// A rational point of `sys`, or `None` when the rational polyhedron is empty.
pub fn rational_sample(sys: &System, budget: &mut Budget) -> Result<Option<Vec<Rat>>> {
    sys.validate()?;
    Ok(Polyhedron::new(sys, budget)?.point())
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
    fn run<N: Coef>(
        sys: &System,
        objective: &[Int],
        budget: &mut Budget,
    ) -> Step<Optimum<(Rat, Vec<Rat>)>> {
        match Tableau::<N>::of_system(sys, budget)? {
            None => Ok(Optimum::Empty),
            Some(mut tableau) => tableau.minimize(objective, budget),
        }
    }
    exact(
        budget,
        |b| run::<i64>(sys, objective, b),
        |b| run::<Int>(sys, objective, b),
    )
}

/// The minima of several objectives over the rational polyhedron of `sys` (each as in
/// [`rational_min`], without the point), the feasible tableau built once for all.
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

/// Indices (into `sys.ineqs`, increasing) of the inequalities that can be dropped
/// without changing the rational polyhedron, tested in order, each against the
/// equalities and the inequalities not reported before it; `None` when the polyhedron
/// is empty.
pub fn redundant_or_empty(sys: &System, budget: &mut Budget) -> Result<Option<Vec<usize>>> {
    redundant_among_first(sys, sys.ineqs.len(), budget)
}

/// [`redundant_or_empty`] testing only the first `tested` inequalities: the others
/// (constraints that must stay, such as the definitions of divs) bound the polyhedron
/// but are never reported. The answers for the tested ones are those of
/// [`redundant_or_empty`], which tests in order.
pub fn redundant_among_first(
    sys: &System,
    tested: usize,
    budget: &mut Budget,
) -> Result<Option<Vec<usize>>> {
    fn run<N: Coef>(budget: &mut Budget, sys: &System, tested: usize) -> Step<Option<Vec<usize>>> {
        let Some(mut tableau) = Tableau::<N>::of_system(sys, budget)? else {
            return Ok(None);
        };
        let first = sys.n_vars + sys.eqs.len();
        let mut redundant = Vec::new();
        for k in 0..tested.min(sys.ineqs.len()) {
            budget.tick(1)?;
            if tableau.drop_if_redundant(first + k, budget)? {
                redundant.push(k);
            }
        }
        Ok(Some(redundant))
    }
    sys.validate()?;
    exact(
        budget,
        |b| run::<i64>(b, sys, tested),
        |b| run::<Int>(b, sys, tested),
    )
}

/// A feasible tableau of either entry type.
#[derive(Clone, Debug)]
enum Exact {
    Small(Tableau<i64>),
    Big(Tableau<Int>),
}

/// A rational polyhedron prepared for several optimisations: its feasible tableau is
/// built once and every objective starts from the same basis. Inequalities can be added
/// one by one ([`Polyhedron::add_inequality`]); a clone is a snapshot to come back to.
#[derive(Clone, Debug)]
pub struct Polyhedron {
    /// `None` when the polyhedron is empty.
    tableau: Option<Exact>,
}

impl Polyhedron {
    /// The feasible tableau of `sys` (whose rows must be valid).
    pub fn new(sys: &System, budget: &mut Budget) -> Result<Polyhedron> {
        sys.validate()?;
        let tableau = exact(
            budget,
            |b| Ok(Tableau::<i64>::of_system(sys, b)?.map(Exact::Small)),
            |b| Ok(Tableau::<Int>::of_system(sys, b)?.map(Exact::Big)),
        )?;
        Ok(Polyhedron { tableau })
    }

    /// Whether the rational polyhedron is empty.
    pub fn is_empty(&self) -> bool {
        self.tableau.is_none()
    }

    /// Intersects the polyhedron with `row ≥ 0` (a row over the same variables, of the
    /// system's width).
    ///
    /// The tableau keeps `i64` entries while they fit. When an entry would overflow,
    /// the tableau is rebuilt over big integers from `whole()`, which must be the
    /// system the polyhedron now stands for: the one it was built from, every row
    /// added since, and `row`.
    pub fn add_inequality(
        &mut self,
        row: &[Int],
        whole: impl FnOnce() -> System,
        budget: &mut Budget,
    ) -> Result<()> {
        let outcome = match &mut self.tableau {
            None => return Ok(()),
            Some(Exact::Small(t)) if row.len() != t.n_vars + 1 => {
                return Err(width_error(t.n_vars, row.len()))
            }
            Some(Exact::Big(t)) if row.len() != t.n_vars + 1 => {
                return Err(width_error(t.n_vars, row.len()))
            }
            Some(Exact::Big(t)) => t.add_inequality(row, budget),
            Some(Exact::Small(t)) => t.add_inequality(row, budget),
        };
        match outcome {
            Ok(true) => Ok(()),
            Ok(false) => {
                self.tableau = None;
                Ok(())
            }
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::Overflow) => {
                let sys = whole();
                sys.validate()?;
                let rebuilt = Tableau::<Int>::of_system(&sys, budget).map_err(|s| match s {
                    Stop::Error(e) => e,
                    Stop::Overflow => unreachable!("Int entries never overflow"),
                })?;
                self.tableau = rebuilt.map(Exact::Big);
                Ok(())
            }
        }
    }

    /// The feasible sample of the tableau, or `None` when the polyhedron is empty.
    pub fn point(&self) -> Option<Vec<Rat>> {
        match &self.tableau {
            None => None,
            Some(Exact::Small(t)) => Some(t.point()),
            Some(Exact::Big(t)) => Some(t.point()),
        }
    }

    /// The minimum of `objective` (of length `n_vars + 1`) with a point attaining it.
    pub(super) fn minimize(
        &self,
        objective: &[Int],
        budget: &mut Budget,
    ) -> Result<Optimum<(Rat, Vec<Rat>)>> {
        match &self.tableau {
            None => Ok(Optimum::Empty),
            Some(Exact::Big(t)) => exact(
                budget,
                |b| t.clone().minimize(objective, b),
                |b| t.clone().minimize(objective, b),
            ),
            Some(Exact::Small(t)) => exact(
                budget,
                |b| t.clone().minimize(objective, b),
                |b| t.widen().minimize(objective, b),
            ),
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
