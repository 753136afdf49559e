//! Parametric integer programming: Feautrier's algorithm (P. Feautrier, "Parametric
//! integer programming", RAIRO 22(3), 1988), organised like isl's `isl_tab_pip.c`.
//!
//! The problem: for every integer value of the *parameters* `p`, the lexicographic
//! minimum of the integer *variables* `x` subject to `A x + B p + c ≥ 0` (and equalities).
//!
//! # Method
//! - **Big parameter.** Variables may be negative: every variable is written
//!   `x = x' - M` with `x' ≥ 0` and `M` an arbitrarily large integer, as isl does. A row's
//!   constant is `c + m·M + b·p`; when `m ≠ 0` its sign is that of `m`. A final value
//!   of a variable that still depends on `M` means the minimum is unbounded (`-∞`).
//!   `M` is assumed to be a multiple of every denominator met, so `M` never makes a row
//!   fractional.
//! - **Tableau.** Every variable and every constraint has a row; a row is either *basic*
//!   (stored as `(konst + Σ coef_j y_j) / den` over the current non-basic variables
//!   `y_j ≥ 0`, one per column) or *non-basic* (it owns a column). Initially the
//!   variables `x'` own the columns. Columns stay *lexicographically positive* over the
//!   variable rows, which makes the current vertex (`y = 0`) the lexicographic minimum
//!   once it is feasible.
//! - **Equalities** are pivoted into a column first (choosing the row's sign so that the
//!   columns stay lexicographically positive) and the column is then *dead* (fixed to 0).
//!   An equality without variables becomes a context equality; the two sides where it is
//!   violated are empty leaves.
//! - **Dual simplex.** A row whose constant is negative on the whole context is pivoted
//!   with the lexicographically smallest column ratio; without a positive coefficient the
//!   context is infeasible (an empty leaf). A row whose sign depends on the parameters
//!   splits the context into `konst ≥ 0` and `konst ≤ -1`.
//! - **Gomory cuts.** When a variable row's constant `(c + b·p)/d` is not an integer
//!   somewhere in the context, the cut `Σ frac(a_j/d) y_j ≥ frac(-(c + b·p)/d)` is added;
//!   its parametric part introduces a new context parameter
//!   `q = floor((Σ ((-b_k) mod d) p_k + ((-c) mod d)) / d)`. The cut row keeps the
//!   denominator `d`: its value is then an integer, so that its slack, once non-basic,
//!   is an integer variable like every other column (a slack that only took multiples
//!   of `d` would weaken every later cut and make the coefficients explode).
//!
//! The *context* is a conjunction over the parameters and the divs introduced so far
//! (each with its two defining inequalities); its questions (is `context ∧ row ≥ 0`
//! empty?) go to the integer solver. Leaves are pairwise disjoint: every split is into
//! complementary halves.
//!
//! # Invariants
//! - every basic row has a positive denominator, `konst` of length `2 + n_params` (`[c, m,
//!   params...]`) and `coef` of length `n_cols`; dead columns have zero coefficients;
//! - `owner[j]` is the row that owns column `j` and that row is non-basic at `j`;
//! - the columns restricted to the variable rows are lexicographically positive;
//! - a row's value is the integer value of its variable or constraint slack.

use std::cmp::Ordering;

use pollen_arith::{gcd_slice, Int};

use crate::bmap::{normalize_div, DivDef};
use crate::error::{Budget, Result};
use crate::solver::{self, System};

/// A parametric integer program.
///
/// Parameters are `n_base` base parameters followed by `divs.len()` known divisions of
/// earlier parameters. Constraint rows are `[const | params | vars]`.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    /// Number of base parameters.
    pub n_base: usize,
    /// Initial context divs over `[const | base | divs]` (full length).
    pub divs: Vec<DivDef>,
    /// Number of variables, optimised in order.
    pub n_vars: usize,
    /// Equalities `[const | params | vars] = 0`.
    pub eqs: Vec<Vec<Int>>,
    /// Inequalities `[const | params | vars] ≥ 0`.
    pub ineqs: Vec<Vec<Int>>,
}

/// A conjunction of constraints over the parameters and context divs.
#[derive(Clone, Debug)]
pub(crate) struct Context {
    /// Number of base parameters.
    pub n_base: usize,
    /// Known divs over `[const | base | divs]` (full length).
    pub divs: Vec<DivDef>,
    /// Equalities over `[const | base | divs]`.
    pub eqs: Vec<Vec<Int>>,
    /// Inequalities over `[const | base | divs]`.
    pub ineqs: Vec<Vec<Int>>,
    /// Integer points of the context over `[base | divs]` (the divs' values included),
    /// met by earlier questions: a question whose answer one of them shows needs no
    /// solver call (isl keeps such samples in its context tableau too).
    pub samples: Vec<Vec<Int>>,
}

/// The value of `row = [const | params]` at the point `p` of the parameters.
fn eval_at(row: &[Int], p: &[Int]) -> Int {
    let mut v = row[0].clone();
    for (a, x) in row[1..].iter().zip(p) {
        if !a.is_zero() {
            v += a * x;
        }
    }
    v
}

/// What a leaf of the PIP tree says about its context.
#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    /// No integer point for any parameter value of the context.
    Empty,
    /// Points exist but the lexicographic minimum is `-∞`.
    Unbounded,
    /// The minimum: per optimised variable, a numerator over `[const | base | divs]` and
    /// a positive denominator (the value is an integer on the context).
    Optimum(Vec<(Vec<Int>, Int)>),
}

/// One leaf: a piece of the parameter space and the answer there.
#[derive(Clone, Debug)]
pub(crate) struct Leaf {
    /// The piece (non-empty).
    pub context: Context,
    /// The answer on it.
    pub outcome: Outcome,
}

impl Context {
    fn n_params(&self) -> usize {
        self.n_base + self.divs.len()
    }

    /// The context as a solver system, with `extra` trailing free variables.
    fn system(&self, extra: usize) -> System {
        let np = self.n_params();
        let widen = |r: &Vec<Int>| {
            let mut r = r.clone();
            r.resize(1 + np + extra, Int::zero());
            r
        };
        let mut sys = System::new(np + extra);
        sys.eqs = self.eqs.iter().map(widen).collect();
        sys.ineqs = self.ineqs.iter().map(widen).collect();
        for (k, d) in self.divs.iter().enumerate() {
            let col = 1 + self.n_base + k;
            let mut lo = widen(&d.num);
            lo[col] = -&d.den;
            let mut hi: Vec<Int> = widen(&d.num).iter().map(|c| -c).collect();
            hi[col] = d.den.clone();
            hi[0] = &hi[0] + &d.den - Int::one();
            sys.ineqs.push(lo);
            sys.ineqs.push(hi);
        }
        sys
    }

    /// An integer point of the context (a known sample first), or `None` when it is
    /// empty.
    fn point(&self, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
        if let Some(p) = self.samples.first() {
            return Ok(Some(p.clone()));
        }
        budget.tick(1)?;
        solver::integer_sample(&self.system(0), budget)
    }

    /// Whether the context has no integer point; a point found is kept as a sample.
    fn is_empty(&mut self, budget: &mut Budget) -> Result<bool> {
        match self.point(budget)? {
            Some(p) => {
                if self.samples.is_empty() {
                    self.samples.push(p);
                }
                Ok(false)
            }
            None => Ok(true),
        }
    }

    fn with_ineq(&self, row: Vec<Int>) -> Context {
        let mut c = self.clone();
        c.samples.retain(|p| !eval_at(&row, p).is_negative());
        c.ineqs.push(row);
        c
    }

    fn with_eq(&self, row: Vec<Int>) -> Context {
        let mut c = self.clone();
        c.samples.retain(|p| eval_at(&row, p).is_zero());
        c.eqs.push(row);
        c
    }

    /// Whether `self ∧ row ≥ 0` has an integer point; one found is kept as a sample of
    /// `self`.
    fn meets(&mut self, row: &[Int], budget: &mut Budget) -> Result<bool> {
        if self.samples.iter().any(|p| !eval_at(row, p).is_negative()) {
            return Ok(true);
        }
        let mut sys = self.system(0);
        let mut r = row.to_vec();
        r.resize(sys.n_vars + 1, Int::zero());
        sys.ineqs.push(r);
        budget.tick(1)?;
        match solver::integer_sample(&sys, budget)? {
            Some(p) => {
                self.samples.push(p);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Adds the div `floor(num / den)` (reusing an identical one); returns its parameter
    /// index and whether it is new.
    fn add_div(&mut self, num: Vec<Int>, den: Int) -> (usize, bool) {
        let (num, den) = normalize_div(num, den);
        if let Some(k) = self.divs.iter().position(|d| d.num == num && d.den == den) {
            return (self.n_base + k, false);
        }
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.push(Int::zero());
        }
        for d in self.divs.iter_mut() {
            d.num.push(Int::zero());
        }
        for p in self.samples.iter_mut() {
            let value = eval_at(&num, p).floor_div(&den);
            p.push(value);
        }
        let mut num = num;
        num.push(Int::zero());
        self.divs.push(DivDef { num, den });
        (self.n_params() - 1, true)
    }

    /// Removes inequalities that the others (with the divs' definitions) imply.
    pub fn drop_redundant(&mut self, budget: &mut Budget) -> Result<()> {
        if self.ineqs.len() < 2 {
            return Ok(());
        }
        let redundant = solver::redundant_inequalities(&self.system(0), budget)?;
        let n = self.ineqs.len();
        let mut keep = vec![true; n];
        for i in redundant {
            if i < n {
                keep[i] = false;
            }
        }
        let mut k = keep.into_iter();
        self.ineqs.retain(|_| k.next().unwrap_or(true));
        Ok(())
    }
}

/// `-row - 1`: the row that is non-negative exactly where `row ≤ -1`.
fn negated_minus_one(row: &[Int]) -> Vec<Int> {
    let mut r: Vec<Int> = row.iter().map(|c| -c).collect();
    r[0] = &r[0] - Int::one();
    r
}

/// `row - 1`: non-negative exactly where `row ≥ 1`.
fn minus_one(row: &[Int]) -> Vec<Int> {
    let mut r = row.to_vec();
    r[0] = &r[0] - Int::one();
    r
}

/// A basic row: `(konst + Σ coef_j y_j) / den` with `konst = [c, m, params...]`.
#[derive(Clone, Debug)]
struct Row {
    den: Int,
    konst: Vec<Int>,
    coef: Vec<Int>,
}

impl Row {
    /// Divides everything by the common gcd (the row's value is unchanged).
    fn normalize(&mut self) {
        let g = gcd_slice(&self.konst)
            .gcd(&gcd_slice(&self.coef))
            .gcd(&self.den);
        if !g.is_zero() && !g.is_one() {
            for c in self.konst.iter_mut().chain(self.coef.iter_mut()) {
                *c = c.exact_div(&g);
            }
            self.den = self.den.exact_div(&g);
        }
    }

    /// The parametric constant `[c, params...]` (the `M` part dropped).
    fn context_row(&self) -> Vec<Int> {
        let mut r = Vec::with_capacity(self.konst.len() - 1);
        r.push(self.konst[0].clone());
        r.extend(self.konst[2..].iter().cloned());
        r
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Var,
    Ineq,
    Eq,
}

#[derive(Clone, Debug)]
enum State {
    Basic(Row),
    NonBasic(usize),
    /// An equality turned into a context constraint.
    Retired,
}

#[derive(Clone, Debug)]
struct Entry {
    kind: Kind,
    state: State,
    /// The row's constant is known to be non-negative on the context.
    nonneg: bool,
}

/// Sign of a row's constant on a context.
enum Sign {
    NonNeg,
    Neg,
    Unknown,
}

#[derive(Clone, Debug)]
struct Tableau {
    n_vars: usize,
    n_params: usize,
    entries: Vec<Entry>,
    owner: Vec<usize>,
    dead: Vec<bool>,
}

impl Tableau {
    fn new(p: &Problem) -> Tableau {
        let n = p.n_vars;
        let np = p.n_base + p.divs.len();
        let mut entries: Vec<Entry> = (0..n)
            .map(|j| Entry {
                kind: Kind::Var,
                state: State::NonBasic(j),
                nonneg: true,
            })
            .collect();
        let rows = p
            .eqs
            .iter()
            .map(|r| (Kind::Eq, r))
            .chain(p.ineqs.iter().map(|r| (Kind::Ineq, r)));
        for (kind, r) in rows {
            let coef = r[1 + np..].to_vec();
            let m: Int = -coef.iter().sum::<Int>();
            let mut konst = Vec::with_capacity(2 + np);
            konst.push(r[0].clone());
            konst.push(m);
            konst.extend(r[1..1 + np].iter().cloned());
            entries.push(Entry {
                kind,
                state: State::Basic(Row {
                    den: Int::one(),
                    konst,
                    coef,
                }),
                nonneg: false,
            });
        }
        Tableau {
            n_vars: n,
            n_params: np,
            entries,
            owner: (0..n).collect(),
            dead: vec![false; n],
        }
    }

    fn n_cols(&self) -> usize {
        self.owner.len()
    }

    fn basic(&self, i: usize) -> Option<&Row> {
        match &self.entries[i].state {
            State::Basic(r) => Some(r),
            _ => None,
        }
    }

    /// The value of variable row `i` as a row (a unit row when non-basic).
    fn var_value(&self, i: usize) -> Row {
        match &self.entries[i].state {
            State::Basic(r) => r.clone(),
            _ => Row {
                den: Int::one(),
                konst: vec![Int::zero(); 2 + self.n_params],
                coef: vec![Int::zero(); self.n_cols()],
            },
        }
    }

    /// Coefficient of column `j` in variable row `i`, scaled by the row's denominator
    /// (which is common to all columns and cancels in comparisons).
    fn var_coef(&self, i: usize, j: usize) -> Int {
        match &self.entries[i].state {
            State::Basic(r) => r.coef[j].clone(),
            State::NonBasic(c) if *c == j => Int::one(),
            _ => Int::zero(),
        }
    }

    /// Whether `col_j / a_j ≺ col_k / a_k` lexicographically over the variable rows
    /// (`a_j, a_k > 0`).
    fn ratio_less(&self, j: usize, a_j: &Int, k: usize, a_k: &Int) -> bool {
        for i in 0..self.n_vars {
            let lhs = self.var_coef(i, j) * a_k;
            let rhs = self.var_coef(i, k) * a_j;
            match lhs.cmp(&rhs) {
                Ordering::Less => return true,
                Ordering::Greater => return false,
                Ordering::Equal => {}
            }
        }
        j < k
    }

    /// The live column with `sign · coef > 0` and the smallest lexicographic ratio.
    fn choose_column(&self, r: usize, sign: i32) -> Option<usize> {
        let row = self.basic(r)?;
        let mut best: Option<(usize, Int)> = None;
        for j in 0..self.n_cols() {
            if self.dead[j] {
                continue;
            }
            let a = if sign > 0 {
                row.coef[j].clone()
            } else {
                -&row.coef[j]
            };
            if !a.is_positive() {
                continue;
            }
            let better = match &best {
                None => true,
                Some((k, a_k)) => self.ratio_less(j, &a, *k, a_k),
            };
            if better {
                best = Some((j, a));
            }
        }
        best.map(|(j, _)| j)
    }

    /// Exchanges basic row `r` with the owner of column `j`.
    fn pivot(&mut self, r: usize, j: usize) {
        let q = self.owner[j];
        let State::Basic(pr) = std::mem::replace(&mut self.entries[r].state, State::NonBasic(j))
        else {
            unreachable!("pivot row must be basic");
        };
        let a = pr.coef[j].clone();
        debug_assert!(!a.is_zero());
        let flip = a.is_negative();
        let fix_sign = |row: &mut Row| {
            if flip {
                for c in row.konst.iter_mut().chain(row.coef.iter_mut()) {
                    *c = -&*c;
                }
                row.den = -&row.den;
            }
            row.normalize();
        };
        // The former owner of column j, expressed through the pivot row's slack.
        let mut new_q = Row {
            den: a.clone(),
            konst: pr.konst.iter().map(|c| -c).collect(),
            coef: pr.coef.iter().map(|c| -c).collect(),
        };
        new_q.coef[j] = pr.den.clone();
        fix_sign(&mut new_q);
        for (i, e) in self.entries.iter_mut().enumerate() {
            if i == r {
                continue;
            }
            let State::Basic(row) = &mut e.state else {
                continue;
            };
            let f = row.coef[j].clone();
            if f.is_zero() {
                continue;
            }
            for (c, pc) in row.konst.iter_mut().zip(&pr.konst) {
                *c = &a * &*c - &f * pc;
            }
            for (k, (c, pc)) in row.coef.iter_mut().zip(&pr.coef).enumerate() {
                *c = if k == j {
                    &f * &pr.den
                } else {
                    &a * &*c - &f * pc
                };
            }
            row.den = &row.den * &a;
            fix_sign(row);
            e.nonneg = false;
        }
        self.entries[q].state = State::Basic(new_q);
        self.entries[q].nonneg = false;
        self.owner[j] = r;
        if self.entries[r].kind == Kind::Eq {
            self.kill_column(j);
        }
    }

    /// Fixes the non-basic variable of column `j` to zero.
    fn kill_column(&mut self, j: usize) {
        self.dead[j] = true;
        for e in self.entries.iter_mut() {
            if let State::Basic(row) = &mut e.state {
                row.coef[j] = Int::zero();
                row.normalize();
            }
        }
    }

    /// Adds a new (zero) parameter column to every basic row.
    fn add_param(&mut self) {
        self.n_params += 1;
        for e in self.entries.iter_mut() {
            if let State::Basic(row) = &mut e.state {
                row.konst.push(Int::zero());
            }
        }
    }

    /// The first variable row whose constant is fractional somewhere in the context.
    fn first_fractional(&self, ctx: &Context, budget: &mut Budget) -> Result<Option<usize>> {
        for i in 0..self.n_vars {
            let Some(row) = self.basic(i) else {
                continue;
            };
            if row.den.is_one() {
                continue;
            }
            let (v0, v) = cut_residues(row);
            if v.iter().all(Int::is_zero) {
                if v0.is_zero() {
                    continue;
                }
                return Ok(Some(i));
            }
            // Is there a context point with `Σ v p + v0 ≢ 0 (mod d)`?
            let d = &row.den;
            let residue = |p: &Vec<Int>| {
                let mut value = v0.clone();
                for (a, x) in v.iter().zip(p) {
                    value += a * x;
                }
                value.mod_floor(d)
            };
            if ctx.samples.iter().any(|p| !residue(p).is_zero()) {
                return Ok(Some(i));
            }
            let np = v.len();
            let mut sys = ctx.system(1);
            let mut lo = Vec::with_capacity(np + 2);
            lo.push(&v0 - Int::one());
            lo.extend(v.iter().cloned());
            lo.push(-d);
            // hi: d - 1 - (Σ v p + v0 - d t) ≥ 0
            let mut hi: Vec<Int> = lo.iter().map(|c| -c).collect();
            hi[0] = d - Int::one() - &v0;
            sys.ineqs.push(lo);
            sys.ineqs.push(hi);
            budget.tick(1)?;
            if !solver::is_integer_empty(&sys, budget)? {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// Adds the Gomory cut of variable row `i` (a new context div when parametric).
    fn add_cut(&mut self, i: usize, ctx: &mut Context) {
        let row = self.basic(i).expect("fractional rows are basic").clone();
        let d = row.den.clone();
        let (v0, v) = cut_residues(&row);
        let mut konst = Vec::with_capacity(2 + self.n_params + 1);
        konst.push(-&v0);
        konst.push(Int::zero());
        konst.extend(v.iter().map(|c| -c));
        if v.iter().any(|c| !c.is_zero()) {
            let mut num = Vec::with_capacity(1 + v.len());
            num.push(v0.clone());
            num.extend(v.iter().cloned());
            let (idx, fresh) = ctx.add_div(num, d.clone());
            if fresh {
                self.add_param();
                konst.push(Int::zero());
            }
            konst[2 + idx] = &konst[2 + idx] + &d;
        }
        let coef = row.coef.iter().map(|c| c.mod_floor(&d)).collect();
        // Dividing by d makes the cut's value the integer `v - Σ floor(a_j/d) y_j +
        // floor(-f)`, so that the slack that may later own a column is an integer
        // variable (a slack that only takes multiples of d would weaken later cuts).
        let mut cut = Row {
            den: d.clone(),
            konst,
            coef,
        };
        cut.normalize();
        self.entries.push(Entry {
            kind: Kind::Ineq,
            state: State::Basic(cut),
            nonneg: false,
        });
    }

    /// The answer at a leaf where every row is feasible and integral.
    fn outcome(&self, n_opt: usize) -> Outcome {
        let mut values = Vec::with_capacity(n_opt);
        for i in 0..n_opt {
            let row = self.var_value(i);
            // x = x' - M: the M coefficient of x is (m - den) / den.
            if row.konst[1] != row.den {
                return Outcome::Unbounded;
            }
            values.push((row.context_row(), row.den.clone()));
        }
        Outcome::Optimum(values)
    }
}

/// `((-c) mod d, ((-b_k) mod d)_k)` for a row `(c + m M + b·p + ...) / d`.
fn cut_residues(row: &Row) -> (Int, Vec<Int>) {
    let d = &row.den;
    let v0 = (-&row.konst[0]).mod_floor(d);
    let v = row.konst[2..].iter().map(|b| (-b).mod_floor(d)).collect();
    (v0, v)
}

/// The sign of a row's constant on the context.
fn sign(row: &Row, ctx: &mut Context, budget: &mut Budget) -> Result<Sign> {
    let m = &row.konst[1];
    if !m.is_zero() {
        return Ok(if m.is_positive() {
            Sign::NonNeg
        } else {
            Sign::Neg
        });
    }
    if row.konst[2..].iter().all(Int::is_zero) {
        return Ok(if row.konst[0].is_negative() {
            Sign::Neg
        } else {
            Sign::NonNeg
        });
    }
    let k = row.context_row();
    if !ctx.meets(&negated_minus_one(&k), budget)? {
        return Ok(Sign::NonNeg);
    }
    if !ctx.meets(&k, budget)? {
        return Ok(Sign::Neg);
    }
    Ok(Sign::Unknown)
}

/// Solves a parametric integer program; the first `n_opt` variables are the ones whose
/// optimum is reported (the others are optimised too but only need to exist).
pub(crate) fn solve(problem: &Problem, n_opt: usize, budget: &mut Budget) -> Result<Vec<Leaf>> {
    let mut leaves = Vec::new();
    let mut ctx = Context {
        n_base: problem.n_base,
        divs: problem.divs.clone(),
        eqs: Vec::new(),
        ineqs: Vec::new(),
        samples: Vec::new(),
    };
    let mut tab = Tableau::new(problem);
    if !eliminate_equalities(&mut tab, &mut ctx, &mut leaves, budget)? {
        return Ok(leaves);
    }
    let mut stack = vec![(tab, ctx)];
    while let Some((tab, ctx)) = stack.pop() {
        run(tab, ctx, n_opt, &mut stack, &mut leaves, budget)?;
    }
    Ok(leaves)
}

/// Pivots every equality into a dead column; equalities without variables become
/// context equalities. Returns whether the context is still non-empty.
fn eliminate_equalities(
    tab: &mut Tableau,
    ctx: &mut Context,
    leaves: &mut Vec<Leaf>,
    budget: &mut Budget,
) -> Result<bool> {
    for r in 0..tab.entries.len() {
        if tab.entries[r].kind != Kind::Eq {
            continue;
        }
        let Some(row) = tab.basic(r) else {
            continue;
        };
        budget.tick(1)?;
        if let Some(j) = tab.choose_column(r, 1).or_else(|| tab.choose_column(r, -1)) {
            tab.pivot(r, j);
            continue;
        }
        let k = row.context_row();
        let infeasible =
            !row.konst[1].is_zero() || (k[1..].iter().all(Int::is_zero) && !k[0].is_zero());
        if infeasible {
            leaves.push(Leaf {
                context: ctx.clone(),
                outcome: Outcome::Empty,
            });
            return Ok(false);
        }
        tab.entries[r].state = State::Retired;
        if k[1..].iter().all(Int::is_zero) {
            continue;
        }
        for side in [minus_one(&k), negated_minus_one(&k)] {
            let mut c = ctx.with_ineq(side);
            if !c.is_empty(budget)? {
                leaves.push(Leaf {
                    context: c,
                    outcome: Outcome::Empty,
                });
            }
        }
        *ctx = ctx.with_eq(k);
        if ctx.is_empty(budget)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Runs the dual simplex with context splits and cuts on one node, pushing the second
/// halves of splits on `stack` and finished leaves on `leaves`.
fn run(
    mut tab: Tableau,
    mut ctx: Context,
    n_opt: usize,
    stack: &mut Vec<(Tableau, Context)>,
    leaves: &mut Vec<Leaf>,
    budget: &mut Budget,
) -> Result<()> {
    loop {
        budget.tick(1)?;
        let mut negative = None;
        let mut unknown = None;
        for i in 0..tab.entries.len() {
            let e = &tab.entries[i];
            if e.kind == Kind::Eq || e.nonneg {
                continue;
            }
            let State::Basic(row) = &e.state else {
                continue;
            };
            match sign(row, &mut ctx, budget)? {
                Sign::NonNeg => tab.entries[i].nonneg = true,
                Sign::Neg => {
                    negative = Some(i);
                    break;
                }
                Sign::Unknown => {
                    if unknown.is_none() {
                        unknown = Some(i);
                    }
                }
            }
        }
        let r = match (negative, unknown) {
            (Some(r), _) => r,
            (None, Some(r)) => {
                let k = tab.basic(r).expect("basic").context_row();
                let mut other = tab.clone();
                other.entries[r].nonneg = true;
                stack.push((other, ctx.with_ineq(k.clone())));
                ctx = ctx.with_ineq(negated_minus_one(&k));
                r
            }
            (None, None) => match tab.first_fractional(&ctx, budget)? {
                Some(i) => {
                    tab.add_cut(i, &mut ctx);
                    continue;
                }
                None => {
                    leaves.push(Leaf {
                        outcome: tab.outcome(n_opt),
                        context: ctx,
                    });
                    return Ok(());
                }
            },
        };
        match tab.choose_column(r, 1) {
            Some(j) => tab.pivot(r, j),
            None => {
                leaves.push(Leaf {
                    context: ctx,
                    outcome: Outcome::Empty,
                });
                return Ok(());
            }
        }
    }
}
