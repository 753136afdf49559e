//! Quantifier elimination: rewriting a basic map as a finite union of basic maps whose
//! local variables are all known floor divisions.
//!
//! Subtraction and complement negate constraints, which is only sound when no
//! constraint mentions an existential; [`BasicMap::compute_divs`] removes them. The
//! method is the Omega test's projection (W. Pugh, *The Omega test: a fast and practical
//! integer programming algorithm for dependence analysis*, CACM 1992), exact over the
//! integers and terminating, with floor divisions in the role of Pugh's "wildcards":
//!
//! 1. **Equalities** among existentials: for an equality `a·e + F = 0` (`e` the
//!    existentials, `F` over dimensions and known divs) a unimodular change of the
//!    existentials (column Hermite normal form of `a`) turns it into `g·z + F = 0` with
//!    `g = gcd(a)`; `z` becomes the known div `floor(-F / g)` (substituted when `g = 1`)
//!    and the equality stays, enforcing `g | F`.
//! 2. An existential bounded only by `a_i·e ≥ L_i` and `b_j·e ≤ U_j` whose bounds involve
//!    no other existential: `∃e ⇔ ∧_{i,j} ceil(L_i / a_i) ≤ floor(U_j / b_j)`, with new
//!    known divs for the non-unit coefficients — exact, one conjunction.
//! 3. Fourier–Motzkin, exact when every lower/upper pair has a unit coefficient.
//! 4. Otherwise the dark shadow `a_i·U_j - b_j·L_i ≥ (a_i - 1)(b_j - 1)` united with the
//!    splinters `a_i·e = L_i + k`, `0 ≤ k ≤ (m·a_i - a_i - m) / m` (`m` the largest upper
//!    coefficient; or the symmetric choice on the upper bounds, whichever gives fewer),
//!    which go back to step 1.
//!
//! Known divs whose definition depends on an existential are first turned into
//! existentials themselves. Each step removes one existential (a splinter's within two
//! steps) and never adds one, so the process terminates. Pieces produced by the Omega
//! step are dropped when the integer solver finds them empty.
//!
//! # Invariants
//! - the union of the pieces has exactly the integer points of the input;
//! - in every piece, every local variable is a known div.

use pollen_arith::{Int, IntMatrix};

use crate::bmap::{normalize_div, BasicMap, DivDef};
use crate::error::{Budget, Result};
use crate::map::Map;
use crate::space::Space;

impl BasicMap {
    /// An equivalent finite union of basic maps in which every local variable is a known
    /// floor division of the dimensions and earlier divs.
    ///
    /// Exact over the integers; pieces are not necessarily disjoint. Spends `budget`
    /// (one tick per elimination step, plus the solver's emptiness tests).
    pub fn compute_divs(&self, budget: &mut Budget) -> Result<Vec<BasicMap>> {
        let mut todo = vec![(self.clone(), false)];
        let mut out = Vec::new();
        while let Some((b, check_empty)) = todo.pop() {
            budget.tick(1)?;
            let b = b.simplify();
            if b.is_obviously_empty() || (check_empty && super::proven_empty(&b, budget)?) {
                continue;
            }
            if !b.has_existentials() {
                if !out.iter().any(|o| super::same_basic_map(o, &b)) {
                    out.push(b);
                }
                continue;
            }
            let problem = Problem::from_bmap(&b);
            let (pieces, omega) = problem.step(budget)?;
            for p in pieces {
                todo.push((p.into_bmap()?, omega));
            }
        }
        Ok(out)
    }
}

impl Map {
    /// The same map with every local variable a known div (see
    /// [`BasicMap::compute_divs`]).
    pub fn compute_divs(&self) -> Result<Map> {
        self.compute_divs_with(&mut Budget::unlimited())
    }

    /// [`Map::compute_divs`] within a budget.
    pub fn compute_divs_with(&self, budget: &mut Budget) -> Result<Map> {
        if !self.basic_maps().iter().any(BasicMap::has_existentials) {
            return Ok(self.clone());
        }
        let parts = super::explicit_parts(self, budget)?;
        Map::from_parts(self.space().clone(), parts)
    }
}

/// A basic map during elimination, with its columns ordered
/// `[const | dims | known divs | existentials]`.
///
/// # Invariants
/// - every row has `1 + n_dims + known.len() + n_ex` entries;
/// - every known definition has `1 + n_dims + known.len()` entries and references only
///   dimensions and earlier known divs.
#[derive(Clone, Debug)]
struct Problem {
    space: Space,
    n_dims: usize,
    known: Vec<DivDef>,
    n_ex: usize,
    eqs: Vec<Vec<Int>>,
    ineqs: Vec<Vec<Int>>,
}

/// An affine expression produced during elimination, placed once all new divs exist.
enum Expr {
    /// An affine row over the columns `[const | dims | known]` of its time.
    Affine(Vec<Int>),
    /// A column (a known div).
    Column(usize),
}

/// How to eliminate one existential, with its cost for choosing the cheapest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Method {
    /// No lower or no upper bound: drop the existential and its constraints.
    Drop,
    /// Exact Fourier–Motzkin.
    FourierMotzkin,
    /// Bounds free of other existentials: ceil/floor divisions.
    Divisions,
    /// Dark shadow and splinters.
    Omega,
}

impl Problem {
    /// Reorders the locals of `b`, turning known divs that depend on existentials into
    /// existentials.
    fn from_bmap(b: &BasicMap) -> Problem {
        let nd = b.n_dims();
        let divs = b.divs();
        let mut tainted = vec![false; divs.len()];
        for k in 0..divs.len() {
            tainted[k] = match &divs[k] {
                None => true,
                Some(d) => (0..k).any(|l| tainted[l] && !d.num[1 + nd + l].is_zero()),
            };
        }
        let known_idx: Vec<usize> = (0..divs.len()).filter(|&k| !tainted[k]).collect();
        let ex_idx: Vec<usize> = (0..divs.len()).filter(|&k| tainted[k]).collect();
        let n_known = known_idx.len();
        let mut col_of: Vec<usize> = (0..=nd).collect();
        col_of.resize(b.n_cols(), 0);
        for (i, &k) in known_idx.iter().enumerate() {
            col_of[1 + nd + k] = 1 + nd + i;
        }
        for (j, &k) in ex_idx.iter().enumerate() {
            col_of[1 + nd + k] = 1 + nd + n_known + j;
        }
        let n = b.n_cols();
        let permute = |r: &Vec<Int>| super::remap(r, &col_of, n);
        let eqs = b.eqs().iter().map(permute).collect();
        let mut ineqs: Vec<Vec<Int>> = b.ineqs().iter().map(permute).collect();
        for &k in &ex_idx {
            if let Some(d) = &divs[k] {
                for r in div_rows(d, 1 + nd + k) {
                    ineqs.push(permute(&r));
                }
            }
        }
        let known = known_idx
            .iter()
            .map(|&k| {
                let d = divs[k].as_ref().expect("untainted div is known");
                let mut num = permute(&d.num);
                num.truncate(1 + nd + n_known);
                DivDef {
                    num,
                    den: d.den.clone(),
                }
            })
            .collect();
        Problem {
            space: b.space().clone(),
            n_dims: nd,
            known,
            n_ex: ex_idx.len(),
            eqs,
            ineqs,
        }
    }

    /// Back to a basic map (known divs first, then the remaining existentials).
    fn into_bmap(self) -> Result<BasicMap> {
        let width = self.width();
        let mut divs: Vec<Option<DivDef>> = self
            .known
            .into_iter()
            .map(|mut d| {
                d.num.resize(width, Int::zero());
                Some(d)
            })
            .collect();
        divs.extend((0..self.n_ex).map(|_| None));
        BasicMap::from_parts(self.space, divs, self.eqs, self.ineqs)
    }

    /// Length of a row.
    fn width(&self) -> usize {
        1 + self.n_dims + self.known.len() + self.n_ex
    }

    /// Length of a known div definition: `1 + n_dims + n_known`.
    fn known_width(&self) -> usize {
        1 + self.n_dims + self.known.len()
    }

    /// Column of existential `j`.
    fn ex_col(&self, j: usize) -> usize {
        self.known_width() + j
    }

    fn rows_mut(&mut self) -> impl Iterator<Item = &mut Vec<Int>> {
        self.eqs.iter_mut().chain(self.ineqs.iter_mut())
    }

    /// Adds the known div `floor(num / den)` (`num` over `[const | dims | known]`),
    /// reusing an identical one, and returns its column.
    fn add_known(&mut self, mut num: Vec<Int>, den: Int) -> usize {
        // Rows built before later divs were added lack their (zero) columns.
        debug_assert!(num.len() <= self.known_width());
        num.resize(self.known_width(), Int::zero());
        let (mut num, den) = normalize_div(num, den);
        if let Some(k) = self.known.iter().position(|d| d.den == den && d.num == num) {
            return 1 + self.n_dims + k;
        }
        let pos = self.known_width();
        for r in self.rows_mut() {
            r.insert(pos, Int::zero());
        }
        for d in &mut self.known {
            d.num.push(Int::zero());
        }
        num.push(Int::zero());
        self.known.push(DivDef { num, den });
        pos
    }

    /// `floor(num / den)` as an expression, adding a div when `den > 1`.
    fn floor_expr(&mut self, num: Vec<Int>, den: &Int) -> Expr {
        if den.is_one() {
            Expr::Affine(num)
        } else {
            Expr::Column(self.add_known(num, den.clone()))
        }
    }

    /// The row of an expression at the current width.
    fn expr_row(&self, e: &Expr) -> Vec<Int> {
        let mut row = vec![Int::zero(); self.width()];
        match e {
            Expr::Affine(num) => {
                for (o, v) in row.iter_mut().zip(num) {
                    *o = v.clone();
                }
            }
            Expr::Column(c) => row[*c] = Int::one(),
        }
        row
    }

    /// Removes the column of existential `j`, returning its coefficients in
    /// `eqs ++ ineqs` order.
    fn take_ex(&mut self, j: usize) -> Vec<Int> {
        let col = self.ex_col(j);
        let coefs = self.rows_mut().map(|r| r.remove(col)).collect();
        self.n_ex -= 1;
        coefs
    }

    /// Turns existential `j` into the known div `floor(num / den)`.
    fn make_known(&mut self, j: usize, num: Vec<Int>, den: Int) {
        let coefs = self.take_ex(j);
        let num: Vec<Int> = num[..self.known_width()].to_vec();
        let col = self.add_known(num, den);
        for (r, c) in self.rows_mut().zip(coefs) {
            if !c.is_zero() {
                r[col] = &r[col] + &c;
            }
        }
    }

    /// The existential part `[e_0 .. e_{n_ex-1}]` of a row.
    fn ex_part<'a>(&self, r: &'a [Int]) -> &'a [Int] {
        &r[self.known_width()..]
    }

    /// One elimination step; the flag says whether the pieces come from the Omega step
    /// (and deserve an emptiness test).
    fn step(mut self, budget: &mut Budget) -> Result<(Vec<Problem>, bool)> {
        budget.tick(1)?;
        if let Some(i) = self.pick_equality() {
            self.eliminate_equality(i);
            return Ok((vec![self], false));
        }
        let Some((j, method)) = (0..self.n_ex)
            .map(|j| (j, self.method(j)))
            .min_by_key(|x| x.1)
        else {
            return Ok((vec![self], false));
        };
        match method.0 {
            Method::Drop => {
                let col = self.ex_col(j);
                self.ineqs.retain(|r| r[col].is_zero());
                self.take_ex(j);
                Ok((vec![self], false))
            }
            Method::FourierMotzkin => {
                self.fourier_motzkin(j, false);
                Ok((vec![self], false))
            }
            Method::Divisions => {
                self.divisions(j);
                Ok((vec![self], false))
            }
            Method::Omega => {
                budget.tick(1)?;
                let mut pieces = self.splinters(j);
                self.fourier_motzkin(j, true);
                pieces.push(self);
                Ok((pieces, true))
            }
        }
    }

    /// The equality with existentials to eliminate first: one with a unit existential
    /// coefficient, else one with the fewest existentials.
    fn pick_equality(&self) -> Option<usize> {
        self.eqs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let ex = self.ex_part(r);
                let n = ex.iter().filter(|c| !c.is_zero()).count();
                if n == 0 {
                    return None;
                }
                let unit = ex.iter().any(|c| c.abs().is_one());
                Some(((!unit, n), i))
            })
            .min()
            .map(|(_, i)| i)
    }

    /// Step 1: a unimodular change of the existentials of equality `i` leaves one
    /// existential `z` with coefficient `g`; `z` is substituted (`g = 1`) or becomes a
    /// known div.
    fn eliminate_equality(&mut self, i: usize) {
        let kw = self.known_width();
        let involved: Vec<usize> = (0..self.n_ex)
            .filter(|&j| !self.eqs[i][kw + j].is_zero())
            .collect();
        let a = IntMatrix::from_rows(vec![involved
            .iter()
            .map(|&j| self.eqs[i][kw + j].clone())
            .collect()]);
        let (_, u, _) = a.hermite_normal_form();
        let m = involved.len();
        for r in self.rows_mut() {
            let old: Vec<Int> = involved.iter().map(|&j| r[kw + j].clone()).collect();
            if old.iter().all(Int::is_zero) {
                continue;
            }
            for (c, &j) in involved.iter().enumerate() {
                let mut v = Int::zero();
                for (l, o) in old.iter().enumerate().take(m) {
                    if !o.is_zero() {
                        v += o * u.get(l, c);
                    }
                }
                r[kw + j] = v;
            }
        }
        let j0 = involved[0];
        let col = kw + j0;
        let eq = self.eqs[i].clone();
        let g = eq[col].clone();
        debug_assert!(g.is_positive());
        debug_assert!(self
            .ex_part(&eq)
            .iter()
            .enumerate()
            .all(|(j, c)| j == j0 || c.is_zero()));
        if g.is_one() {
            // z = -F: substitute everywhere.
            self.eqs.remove(i);
            for r in self.rows_mut() {
                let c = r[col].clone();
                if !c.is_zero() {
                    for (x, y) in r.iter_mut().zip(&eq) {
                        *x = &*x - &(&c * y);
                    }
                }
            }
            self.take_ex(j0);
        } else {
            let mut num: Vec<Int> = eq.iter().map(|c| -c).collect();
            num[col] = Int::zero();
            self.make_known(j0, num, g);
        }
    }

    /// Lower (`a·e + R ≥ 0`, `a > 0`) and upper (`R - b·e ≥ 0`) bound rows of
    /// existential `j`, as indices into `ineqs`.
    fn bounds(&self, j: usize) -> (Vec<usize>, Vec<usize>) {
        let col = self.ex_col(j);
        let lowers = (0..self.ineqs.len())
            .filter(|&i| self.ineqs[i][col].is_positive())
            .collect();
        let uppers = (0..self.ineqs.len())
            .filter(|&i| self.ineqs[i][col].is_negative())
            .collect();
        (lowers, uppers)
    }

    /// The cheapest method for eliminating existential `j` and its cost.
    fn method(&self, j: usize) -> (Method, u64) {
        let col = self.ex_col(j);
        let (lowers, uppers) = self.bounds(j);
        let (nl, nu) = (lowers.len() as u64, uppers.len() as u64);
        if nl == 0 || nu == 0 {
            return (Method::Drop, 0);
        }
        let unit_l: Vec<bool> = lowers
            .iter()
            .map(|&i| self.ineqs[i][col].is_one())
            .collect();
        let unit_u: Vec<bool> = uppers
            .iter()
            .map(|&i| (-&self.ineqs[i][col]).is_one())
            .collect();
        let exact = unit_l.iter().all(|&x| x) || unit_u.iter().all(|&x| x);
        if exact {
            return (Method::FourierMotzkin, (nl * nu).saturating_sub(nl + nu));
        }
        let alone = self.ineqs.iter().all(|r| {
            r[col].is_zero()
                || self
                    .ex_part(r)
                    .iter()
                    .enumerate()
                    .all(|(k, c)| k == j || c.is_zero())
        });
        if alone {
            let divs = unit_l.iter().chain(&unit_u).filter(|&&x| !x).count() as u64;
            return (Method::Divisions, nl * nu + divs);
        }
        (Method::Omega, self.splinter_plan(j).1)
    }

    /// Fourier–Motzkin elimination of existential `j`; with `dark`, the dark shadow
    /// (`b·l + a·u ≥ (a-1)(b-1)`), otherwise the real shadow (exact for unit pairs).
    fn fourier_motzkin(&mut self, j: usize, dark: bool) {
        let col = self.ex_col(j);
        let (lowers, uppers) = self.bounds(j);
        let mut new_rows = Vec::with_capacity(lowers.len() * uppers.len());
        for &l in &lowers {
            for &u in &uppers {
                let (lr, ur) = (&self.ineqs[l], &self.ineqs[u]);
                let a = &lr[col];
                let b = -&ur[col];
                let mut row: Vec<Int> = lr.iter().zip(ur).map(|(x, y)| &b * x + a * y).collect();
                if dark {
                    let slack = (a - &Int::one()) * (&b - &Int::one());
                    row[0] = &row[0] - &slack;
                }
                new_rows.push(row);
            }
        }
        self.ineqs.retain(|r| r[col].is_zero());
        self.ineqs.extend(new_rows);
        self.take_ex(j);
    }

    /// Step 2: `∃e ⇔ ∧ ceil(L_i / a_i) ≤ floor(U_j / b_j)` for an existential whose bounds
    /// mention no other existential.
    fn divisions(&mut self, j: usize) {
        let col = self.ex_col(j);
        let kw = self.known_width();
        let (lowers, uppers) = self.bounds(j);
        // a·e + R ≥ 0  ⇔  e ≥ ceil(-R / a) = -floor(R / a).
        let low: Vec<(Vec<Int>, Int)> = lowers
            .iter()
            .map(|&i| (self.ineqs[i][..kw].to_vec(), self.ineqs[i][col].clone()))
            .collect();
        // R - b·e ≥ 0  ⇔  e ≤ floor(R / b).
        let up: Vec<(Vec<Int>, Int)> = uppers
            .iter()
            .map(|&i| (self.ineqs[i][..kw].to_vec(), -&self.ineqs[i][col]))
            .collect();
        self.ineqs.retain(|r| r[col].is_zero());
        self.take_ex(j);
        let low: Vec<Expr> = low
            .into_iter()
            .map(|(r, a)| self.floor_expr(r, &a))
            .collect();
        let up: Vec<Expr> = up
            .into_iter()
            .map(|(r, b)| self.floor_expr(r, &b))
            .collect();
        let low_rows: Vec<Vec<Int>> = low.iter().map(|e| self.expr_row(e)).collect();
        let up_rows: Vec<Vec<Int>> = up.iter().map(|e| self.expr_row(e)).collect();
        for l in &low_rows {
            for u in &up_rows {
                // floor(U / b) + floor(R_l / a) ≥ 0
                self.ineqs
                    .push(l.iter().zip(u).map(|(x, y)| x + y).collect());
            }
        }
    }

    /// Which side to splinter on (`true`: lower bounds) and how many splinters result.
    fn splinter_plan(&self, j: usize) -> (bool, u64) {
        let col = self.ex_col(j);
        let (lowers, uppers) = self.bounds(j);
        let coef = |i: usize| self.ineqs[i][col].abs();
        let max_l = lowers
            .iter()
            .map(|&i| coef(i))
            .max()
            .unwrap_or_else(Int::one);
        let max_u = uppers
            .iter()
            .map(|&i| coef(i))
            .max()
            .unwrap_or_else(Int::one);
        let count = |rows: &[usize], m: &Int| -> u64 {
            rows.iter()
                .map(|&i| splinter_count(&coef(i), m))
                .fold(0u64, u64::saturating_add)
        };
        let on_lower = count(&lowers, &max_u);
        let on_upper = count(&uppers, &max_l);
        if on_lower <= on_upper {
            (true, on_lower)
        } else {
            (false, on_upper)
        }
    }

    /// The splinters of existential `j`: the problem with one of the equalities
    /// `a·e + R = k` (a lower bound row) or `R - b·e = k` (an upper bound row),
    /// `0 ≤ k ≤ (m·c - c - m) / m`.
    fn splinters(&self, j: usize) -> Vec<Problem> {
        let col = self.ex_col(j);
        let (lowers, uppers) = self.bounds(j);
        let (on_lower, _) = self.splinter_plan(j);
        let coef = |i: usize| self.ineqs[i][col].abs();
        let (rows, others) = if on_lower {
            (&lowers, &uppers)
        } else {
            (&uppers, &lowers)
        };
        let m = others
            .iter()
            .map(|&i| coef(i))
            .max()
            .unwrap_or_else(Int::one);
        let mut out = Vec::new();
        for &i in rows {
            let c = coef(i);
            let top = (&(&m * &c) - &c - &m).floor_div(&m);
            let mut k = Int::zero();
            while k <= top {
                let mut p = self.clone();
                let mut eq = self.ineqs[i].clone();
                eq[0] = &eq[0] - &k;
                p.eqs.push(eq);
                out.push(p);
                k += Int::one();
            }
        }
        out
    }
}

/// Number of splinters `floor((m·c - c - m) / m) + 1` of a bound with coefficient `c`
/// against a largest opposite coefficient `m` (0 when negative).
fn splinter_count(c: &Int, m: &Int) -> u64 {
    let top = (&(m * c) - c - m).floor_div(m);
    if top.is_negative() {
        0
    } else {
        top.to_i64()
            .and_then(|t| u64::try_from(t).ok())
            .map_or(u64::MAX, |t| t.saturating_add(1))
    }
}

/// The two inequalities defining the div `d` at column `col`.
fn div_rows(d: &DivDef, col: usize) -> [Vec<Int>; 2] {
    let mut lo = d.num.clone();
    lo[col] = -&d.den;
    let mut hi: Vec<Int> = d.num.iter().map(|c| -c).collect();
    hi[col] = d.den.clone();
    hi[0] = &hi[0] + &d.den - Int::one();
    [lo, hi]
}
