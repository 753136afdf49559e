//! Counting the points of parametric sets: the number of points as a piecewise
//! quasi-polynomial in the parameters, by exact symbolic summation.
//!
//! [`Set::card_parametric`] eliminates the dimensions one at a time. A dimension `x`
//! with lower bounds `x >= L_1, …, x >= L_p` and upper bounds `x <= U_1, …, x <= U_q`
//! (affine in the parameters, floors of them and the other dimensions, each with
//! coefficient ±1 on `x`) splits the remaining space into chambers, one per pair
//! `(i, j)` where `L_i` is the greatest lower bound and `U_j` the least upper bound
//! (ties broken by position, so that the chambers are disjoint) and `L_i <= U_j`. In a
//! chamber, the sum of a polynomial `P(x) = Σ c_m x^m` over `L_i <= x <= U_j` is
//! `Σ c_m (G_m(U_j + 1) - G_m(L_i))` with `G_m(t) = Σ_{x=0}^{t-1} x^m`, Faulhaber's
//! polynomial (exact for all integers, as `G_m(t + 1) - G_m(t) = t^m`). Empty chambers
//! are dropped by the library's emptiness test. An equality with coefficient ±1 on `x`
//! substitutes it instead.
//!
//! Other coefficients make quasi-polynomials ([`QuasiPolynomial`]): a bound
//! `a·x + D + e >= 0` with `D` in the other dimensions and `e` in the parameters is
//! `x >= -D/a - floor(e/a)` when `a` divides `D`'s coefficients, a unit bound with a
//! new floor variable, a function of the parameters kept beside them (with its two
//! defining inequalities). Where `a` does not divide the coefficient of a dimension
//! `y`, `y` is split into residue classes `y = m·y' + r` first (`r` in `[0, m)`, at
//! most 4096 classes per step); the dimension eliminated at each step is the one
//! needing the fewest classes. An equality `a·x + D + e = 0` gives
//! `x = -D/a - floor(e/a)` where `e = a·floor(e/a)`. Divisions and existentially
//! quantified variables are made known divisions (`Map::compute_divs`) and summed out
//! as dimensions: each point has exactly one value of them. Strides (`i mod 2 = 0`), `0 <= 2i <= N`, tiles
//! (`32t <= i <= 32t + 31`) and triangles with non-unit slopes are covered this way.
//! What remains is a list of (parameter domain, quasi-polynomial) pieces, the floors
//! becoming known divisions of the domains; the pieces of a union's disjoint parts
//! and of the residue classes are added up where their domains meet. Sets without
//! parameters are never enumerated: their floors are of constants.
//!
//! [`Set::sum_parametric`] sums any polynomial in the parameters and dimensions the
//! same way (the count is the sum of 1), and [`Map::card_range_parametric`] counts
//! the range points of each domain point, the domain's dimensions taking the place
//! of parameters until the result is put on the map's domain space.
//!
//! A dimension bounded on one side only, in a chamber where the polynomial summed is
//! positive (a count, or a positive constant), makes the sum infinite at every
//! parameter point where the chamber, that dimension left free, has a point: the
//! chamber's other variables are projected out exactly (`compute_divs`) and the
//! result is infinite ([`Extended::Infinity`], barvinok's `infty`) there. Other sums
//! over unbounded sets and splits beyond the limit are [`Error::Unsupported`], never
//! approximated.

mod quasi;
mod union;

pub use quasi::{Extended, Floor, PwQPolynomial, QuasiPolynomial};
pub use union::UnionPwQPolynomial;

use std::collections::BTreeMap;
use std::fmt;

use pollen_arith::{Int, Rat};

use crate::bmap::{normalize_div, BasicMap, DivDef};
use crate::error::{Budget, Error, Result};
use crate::map::Map;
use crate::set::Set;
use crate::space::{Space, Tuple};

/// A polynomial with rational coefficients in `n` variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Polynomial {
    n: usize,
    /// Exponent vectors (length `n`) to nonzero coefficients.
    terms: BTreeMap<Vec<u32>, Rat>,
}

impl Polynomial {
    /// The zero polynomial in `n` variables.
    pub fn zero(n: usize) -> Polynomial {
        Polynomial {
            n,
            terms: BTreeMap::new(),
        }
    }

    /// The constant `c`.
    pub fn constant(n: usize, c: Rat) -> Polynomial {
        let mut p = Polynomial::zero(n);
        p.add_term(vec![0; n], c);
        p
    }

    /// The variable `i`.
    pub fn var(n: usize, i: usize) -> Polynomial {
        let mut e = vec![0; n];
        e[i] = 1;
        let mut p = Polynomial::zero(n);
        p.add_term(e, Rat::one());
        p
    }

    /// The affine form `row[0] + Σ row[1 + i]·x_i`.
    pub fn affine(n: usize, row: &[Int]) -> Polynomial {
        let mut p = Polynomial::constant(n, Rat::from(row[0].clone()));
        for (i, c) in row[1..=n].iter().enumerate() {
            if !c.is_zero() {
                p = p.add(&Polynomial::var(n, i).scale(&Rat::from(c.clone())));
            }
        }
        p
    }

    /// The number of variables.
    pub fn n_vars(&self) -> usize {
        self.n
    }

    /// Whether this is the zero polynomial.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The terms: exponent vectors and their nonzero coefficients, in increasing order
    /// of the exponent vectors.
    pub fn terms(&self) -> impl Iterator<Item = (&[u32], &Rat)> {
        self.terms.iter().map(|(e, c)| (e.as_slice(), c))
    }

    fn add_term(&mut self, e: Vec<u32>, c: Rat) {
        if c.is_zero() {
            return;
        }
        let sum = match self.terms.get(&e) {
            Some(old) => old + &c,
            None => c,
        };
        if sum.is_zero() {
            self.terms.remove(&e);
        } else {
            self.terms.insert(e, sum);
        }
    }

    /// `self + other`.
    pub fn add(&self, other: &Polynomial) -> Polynomial {
        let mut out = self.clone();
        for (e, c) in &other.terms {
            out.add_term(e.clone(), c.clone());
        }
        out
    }

    /// `self - other`.
    pub fn sub(&self, other: &Polynomial) -> Polynomial {
        self.add(&other.scale(&Rat::from(-1)))
    }

    /// `c · self`.
    pub fn scale(&self, c: &Rat) -> Polynomial {
        let mut out = Polynomial::zero(self.n);
        for (e, d) in &self.terms {
            out.add_term(e.clone(), d * c);
        }
        out
    }

    /// `self · other`.
    pub fn mul(&self, other: &Polynomial) -> Polynomial {
        let mut out = Polynomial::zero(self.n);
        for (a, c) in &self.terms {
            for (b, d) in &other.terms {
                let e: Vec<u32> = a.iter().zip(b).map(|(x, y)| x + y).collect();
                out.add_term(e, c * d);
            }
        }
        out
    }

    /// `self^k`.
    pub fn pow(&self, k: u32) -> Polynomial {
        let mut out = Polynomial::constant(self.n, Rat::one());
        for _ in 0..k {
            out = out.mul(self);
        }
        out
    }

    /// The coefficients of the powers of variable `v`: `self = Σ_m out[m]·x_v^m`, each
    /// `out[m]` free of `x_v`.
    fn coefficients_in(&self, v: usize) -> Vec<Polynomial> {
        let mut out: Vec<Polynomial> = Vec::new();
        for (e, c) in &self.terms {
            let m = e[v] as usize;
            while out.len() <= m {
                out.push(Polynomial::zero(self.n));
            }
            let mut rest = e.clone();
            rest[v] = 0;
            out[m].add_term(rest, c.clone());
        }
        out
    }

    /// `self` with variable `v` replaced by `by` (a polynomial in the same variables).
    pub fn substitute(&self, v: usize, by: &Polynomial) -> Polynomial {
        let mut out = Polynomial::zero(self.n);
        for (m, c) in self.coefficients_in(v).iter().enumerate() {
            if !c.is_zero() {
                out = out.add(&c.mul(&by.pow(m as u32)));
            }
        }
        out
    }

    /// The same polynomial without variable `v`, which must be absent.
    fn drop_var(&self, v: usize) -> Polynomial {
        let mut out = Polynomial::zero(self.n - 1);
        for (e, c) in &self.terms {
            debug_assert_eq!(e[v], 0, "the dropped variable occurs");
            let mut e = e.clone();
            e.remove(v);
            out.add_term(e, c.clone());
        }
        out
    }

    /// The same polynomial with a new variable at index `at` (not occurring).
    fn insert_var(&self, at: usize) -> Polynomial {
        let mut out = Polynomial::zero(self.n + 1);
        for (e, c) in &self.terms {
            let mut e = e.clone();
            e.insert(at, 0);
            out.add_term(e, c.clone());
        }
        out
    }

    /// The polynomial in `n` variables with variable `i` renamed `map[i]` (variables
    /// mapped to one index multiply).
    pub(crate) fn remap(&self, n: usize, map: &[usize]) -> Polynomial {
        let mut out = Polynomial::zero(n);
        for (e, c) in &self.terms {
            let mut f = vec![0; n];
            for (i, &k) in e.iter().enumerate() {
                if k > 0 {
                    f[map[i]] += k;
                }
            }
            out.add_term(f, c.clone());
        }
        out
    }

    /// The polynomial in `n` variables obtained by replacing each variable `i` by
    /// `values[i]` (polynomials in `n` variables).
    pub(crate) fn compose(&self, n: usize, values: &[Polynomial]) -> Polynomial {
        let mut out = Polynomial::zero(n);
        for (e, c) in &self.terms {
            let mut t = Polynomial::constant(n, c.clone());
            for (i, &k) in e.iter().enumerate() {
                if k > 0 {
                    t = t.mul(&values[i].pow(k));
                }
            }
            out = out.add(&t);
        }
        out
    }

    /// The total degree (0 for constants and for zero).
    pub fn degree(&self) -> u32 {
        self.terms
            .keys()
            .map(|e| e.iter().sum::<u32>())
            .max()
            .unwrap_or(0)
    }

    /// The value at `point` (one integer per variable).
    pub fn eval(&self, point: &[Int]) -> Rat {
        let mut sum = Rat::zero();
        for (e, c) in &self.terms {
            let mut t = c.clone();
            for (x, &k) in point.iter().zip(e) {
                for _ in 0..k {
                    t *= Rat::from(x.clone());
                }
            }
            sum += t;
        }
        sum
    }

    /// `Σ_{x_v = lo}^{hi} self`, for `lo` and `hi` free of `x_v` (zero when
    /// `hi = lo - 1`; the caller ensures `lo <= hi + 1`).
    fn sum_over(&self, v: usize, lo: &Polynomial, hi: &Polynomial) -> Polynomial {
        let one = Polynomial::constant(self.n, Rat::one());
        let top = hi.add(&one);
        let mut out = Polynomial::zero(self.n);
        for (m, c) in self.coefficients_in(v).iter().enumerate() {
            if c.is_zero() {
                continue;
            }
            let g = faulhaber(m);
            let at = |t: &Polynomial| {
                let mut s = Polynomial::zero(self.n);
                for (k, gk) in g.iter().enumerate() {
                    if !gk.is_zero() {
                        s = s.add(&t.pow(k as u32).scale(gk));
                    }
                }
                s
            };
            out = out.add(&c.mul(&at(&top).sub(&at(lo))));
        }
        out
    }
}

/// The coefficients of `G_m(t) = Σ_{x=0}^{t-1} x^m` as a polynomial in `t` (index =
/// power): `G_m(t) = 1/(m+1) Σ_{j=0}^{m} C(m+1, j) B_j t^{m+1-j}`, with the Bernoulli
/// numbers `B_1 = -1/2`.
fn faulhaber(m: usize) -> Vec<Rat> {
    let bernoulli = bernoulli_numbers(m);
    let mut out = vec![Rat::zero(); m + 2];
    let denominator = Rat::from((m + 1) as i64);
    for (j, b) in bernoulli.iter().enumerate() {
        let c = Rat::from(binomial(m + 1, j)) * b / &denominator;
        out[m + 1 - j] += c;
    }
    out
}

/// `B_0 … B_m` with `B_1 = -1/2`: `Σ_{j=0}^{n} C(n+1, j) B_j = 0` for `n >= 1`.
fn bernoulli_numbers(m: usize) -> Vec<Rat> {
    let mut b = vec![Rat::one()];
    for n in 1..=m {
        let mut s = Rat::zero();
        for (j, bj) in b.iter().enumerate() {
            s += Rat::from(binomial(n + 1, j)) * bj;
        }
        b.push(-(s / Rat::from((n + 1) as i64)));
    }
    b
}

fn binomial(n: usize, k: usize) -> Int {
    let mut c = Int::one();
    for i in 0..k {
        c = (c * Int::from((n - i) as i64)).exact_div(&Int::from((i + 1) as i64));
    }
    c
}

/// A piecewise polynomial in the parameters: the value at a parameter point is the
/// polynomial of the piece whose domain holds it, zero outside every piece (the
/// domains are disjoint). The form of iscc's `card`.
#[derive(Clone, Debug)]
pub struct PwPolynomial {
    params: Vec<String>,
    pieces: Vec<(Set, Polynomial)>,
}

impl PwPolynomial {
    /// A piecewise polynomial from disjoint pieces.
    pub(crate) fn from_pieces(params: Vec<String>, pieces: Vec<(Set, Polynomial)>) -> PwPolynomial {
        PwPolynomial { params, pieces }
    }

    /// The parameters, in the order of the polynomials' variables.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// The pieces: disjoint parameter domains and their polynomials.
    pub fn pieces(&self) -> &[(Set, Polynomial)] {
        &self.pieces
    }

    /// The value at a parameter point (zero outside every piece).
    pub fn value(&self, params: &[Int]) -> Result<Rat> {
        for (domain, p) in &self.pieces {
            if domain.contains_point(params)? {
                return Ok(p.eval(params));
            }
        }
        Ok(Rat::zero())
    }

    /// The value at a parameter point, which must be an integer (a count).
    pub fn eval(&self, params: &[Int]) -> Result<Int> {
        for (domain, p) in &self.pieces {
            if domain.contains_point(params)? {
                let v = p.eval(params);
                return if v.is_integer() {
                    Ok(v.floor())
                } else {
                    Err(Error::Unsupported(format!(
                        "a count that is not an integer ({v}) at {params:?}"
                    )))
                };
            }
        }
        Ok(Int::zero())
    }

    /// `self + other`, pointwise (the same parameters, by name).
    pub fn add_with(&self, other: &PwPolynomial, budget: &mut Budget) -> Result<PwPolynomial> {
        if self.params != other.params {
            return Err(Error::Unsupported(format!(
                "adding counts over different parameters [{}] and [{}]",
                self.params.join(", "),
                other.params.join(", ")
            )));
        }
        let mut out = self.clone();
        for (d, p) in &other.pieces {
            out.add_piece(d.clone(), p.clone(), budget)?;
        }
        Ok(out)
    }

    /// Adds `(domain, p)` to disjoint pieces, keeping them disjoint: the overlaps get
    /// the sum of the polynomials.
    fn add_piece(&mut self, domain: Set, p: Polynomial, budget: &mut Budget) -> Result<()> {
        let mut rest = domain;
        let mut out = Vec::new();
        for (d, q) in std::mem::take(&mut self.pieces) {
            budget.tick(1)?;
            let both = d.intersect(&rest)?;
            if both.is_empty_with(budget)? {
                out.push((d, q));
                continue;
            }
            let only_old = Set::from_map(d.as_map().subtract_with(rest.as_map(), budget)?)?;
            if !only_old.is_empty_with(budget)? {
                out.push((only_old, q.clone()));
            }
            let sum = q.add(&p);
            if !sum.is_zero() {
                out.push((both.clone(), sum));
            }
            rest = Set::from_map(rest.as_map().subtract_with(both.as_map(), budget)?)?;
        }
        if !rest.is_empty_with(budget)? && !p.is_zero() {
            out.push((rest, p));
        }
        self.pieces = out;
        Ok(())
    }
}

impl Set {
    /// The number of points as a piecewise quasi-polynomial in the parameters (a set
    /// without parameters gives one constant piece). See the module documentation for
    /// the method and the sets it covers; [`Error::Unsupported`] for the others.
    ///
    /// An unbounded set has infinitely many points: the count is infinite (barvinok's
    /// `infty`) on the parameter values for which the set is unbounded.
    pub fn card_parametric(&self) -> Result<PwQPolynomial> {
        self.card_parametric_with(&mut Budget::unlimited())
    }

    /// [`Set::card_parametric`] within a budget.
    pub fn card_parametric_with(&self, budget: &mut Budget) -> Result<PwQPolynomial> {
        let n = self.n_params() + self.n_dims();
        self.sum_parametric_with(&Polynomial::constant(n, Rat::one()), budget)
    }

    /// The sum of `f` over the points of the set, as a piecewise quasi-polynomial in
    /// the parameters: `f` is a polynomial in the parameters and then the set's
    /// dimensions (`n_params + n_dims` variables). The sets covered are those of
    /// [`Set::card_parametric`] (the count is the sum of 1); the sum is infinite where
    /// the set is unbounded if `f` is a positive constant, and
    /// [`Error::Unsupported`] for an unbounded set otherwise.
    pub fn sum_parametric(&self, f: &Polynomial) -> Result<PwQPolynomial> {
        self.sum_parametric_with(f, &mut Budget::unlimited())
    }

    /// [`Set::sum_parametric`] within a budget.
    pub fn sum_parametric_with(
        &self,
        f: &Polynomial,
        budget: &mut Budget,
    ) -> Result<PwQPolynomial> {
        let params = self.space().param_names().to_vec();
        if f.n_vars() != params.len() + self.n_dims() {
            return Err(Error::Unsupported(format!(
                "summing a polynomial in {} variables over a set with {} parameters and {} dimensions",
                f.n_vars(),
                params.len(),
                self.n_dims()
            )));
        }
        sum_trailing(self.as_map(), params, f, budget)
    }
}

impl Map {
    /// The number of range points of each domain point (iscc's `card` of a map), as a
    /// piecewise quasi-polynomial on the map's domain space: its variables are the
    /// parameters, then the domain's dimensions (named as in the map where they have
    /// names that are not taken, `i0, i1, …` otherwise), and it prints as iscc does,
    /// `[N] -> { [i] -> i : 0 < i < N }`. Infinite where a domain point has infinitely
    /// many range points. The maps covered are those whose wrapped set
    /// [`Set::card_parametric`] covers.
    pub fn card_range_parametric(&self) -> Result<PwQPolynomial> {
        self.card_range_parametric_with(&mut Budget::unlimited())
    }

    /// [`Map::card_range_parametric`] within a budget.
    pub fn card_range_parametric_with(&self, budget: &mut Budget) -> Result<PwQPolynomial> {
        let space = self.space();
        let params = space.param_names().to_vec();
        // The domain tuple keeps its name and nesting (a wrapped domain stays wrapped);
        // its dimensions get the function's variable names.
        let mut tuple = match space.domain_tuple() {
            Some(t) => t.clone(),
            None => Tuple::anonymous(space.n_in()),
        };
        let names = quasi::variable_names(&Space::set(params.clone(), tuple.clone()));
        for (i, name) in names[params.len()..].iter().enumerate() {
            tuple.set_dim_name(i, Some(name.clone()));
        }
        let f = Polynomial::constant(space.n_dims(), Rat::one());
        sum_trailing(self, names, &f, budget)?.on_space(Space::set(params, tuple))
    }
}

/// The sum of `f` (a polynomial in all the dimensions of `m`, parameters first) over
/// the dimensions of `m` after the first `fixed.len()`, as a piecewise
/// quasi-polynomial in those first ones (named `fixed`).
fn sum_trailing(
    m: &Map,
    fixed: Vec<String>,
    f: &Polynomial,
    budget: &mut Budget,
) -> Result<PwQPolynomial> {
    let p = fixed.len();
    let positive = f.degree() == 0 && f.terms().all(|(_, c)| c.is_positive()) && !f.is_zero();
    let mut out = PwQPolynomial::zero(fixed.clone());
    for part in counted_parts(m, budget)? {
        // The variables: the fixed ones, the summed dimensions, then the divs, which
        // are functions of the others and summed out like dimensions.
        let n = part.n_dims();
        let n_all = n + part.n_div();
        let mut ineqs = part.ineqs().to_vec();
        ineqs.extend(part.div_constraints());
        let stage = Stage {
            p,
            floors: Vec::new(),
            eqs: part.eqs().to_vec(),
            ineqs,
            poly: f.remap(n_all, &(0..n).collect::<Vec<_>>()),
            positive,
        };
        let mut chambers = Vec::new();
        sum_out(stage, &mut chambers, budget)?;
        for chamber in chambers {
            match chamber {
                Chamber::Bounded(stage) => {
                    let (domain, value) = stage.into_piece(&fixed, budget)?;
                    out.add_piece(domain, value, budget)?;
                }
                Chamber::Unbounded(stage) => {
                    let domain = stage.into_unbounded_domain(&fixed, budget)?;
                    out.add_infinite(domain, budget)?;
                }
            }
        }
    }
    Ok(out)
}

/// The basic maps of `m` made pairwise disjoint, every local variable a known div (so
/// that each point of a basic map has exactly one value of its divs).
fn counted_parts(m: &Map, budget: &mut Budget) -> Result<Vec<BasicMap>> {
    let mut map = m.compute_divs_with(budget)?;
    for _ in 0..4 {
        let parts = disjoint_parts(&map, budget)?;
        if parts.iter().all(|b| !b.has_existentials()) {
            return Ok(parts);
        }
        map = Map::from_parts(m.space().clone(), parts)?.compute_divs_with(budget)?;
    }
    Err(Error::Unsupported(
        "counting a set whose existentially quantified variables could not be made divisions"
            .into(),
    ))
}

/// The basic maps of `m` made pairwise disjoint: each is what remains of it outside
/// those kept before it.
fn disjoint_parts(m: &Map, budget: &mut Budget) -> Result<Vec<BasicMap>> {
    let mut kept: Vec<BasicMap> = Vec::new();
    let mut queue: std::collections::VecDeque<BasicMap> = m.basic_maps().iter().cloned().collect();
    while let Some(b) = queue.pop_front() {
        budget.tick(1)?;
        let mut rest = Map::from_basic(b);
        if !kept.is_empty() {
            let before = Map::from_parts(m.space().clone(), kept.clone())?;
            rest = rest.subtract_with(&before, budget)?;
        }
        let mut parts = rest.basic_maps().iter().cloned();
        if let Some(first) = parts.next() {
            kept.push(first);
            queue.extend(parts);
        }
    }
    Ok(kept)
}

/// The most residue classes one elimination step may split into (a resource limit:
/// each class is summed on its own).
const MAX_RESIDUE_CLASSES: u64 = 4096;

/// A system during summation and the polynomial summed over it.
///
/// # Invariants
/// Rows have the columns `[const | params | floors | dims]`; the polynomial has
/// `p + floors.len() + n_dims` variables in the same order. Each floor is an integer
/// `floor(num / den)` of the parameters and earlier floors (`num` over
/// `[const | params | earlier floors]`), and its two defining inequalities are among
/// `ineqs`, so the floors are functions of the parameters: the integer points of the
/// system project one to one onto its parameters and dimensions. When `positive`
/// holds, the polynomial is positive at every integer point of the system (a count of
/// the points of the dimensions summed out before, or a positive constant), so that a
/// dimension without a lower or without an upper bound makes the sum infinite.
#[derive(Clone, Debug)]
struct Stage {
    p: usize,
    floors: Vec<(Vec<Int>, Int)>,
    eqs: Vec<Vec<Int>>,
    ineqs: Vec<Vec<Int>>,
    poly: Polynomial,
    positive: bool,
}

/// What summation leaves: a system without dimensions and its quasi-polynomial, or a
/// system whose sum is infinite at every point of it (its dimensions, the summed one
/// removed, still to be projected out).
#[derive(Debug)]
enum Chamber {
    Bounded(Stage),
    Unbounded(Stage),
}

impl Stage {
    fn n_vars(&self) -> usize {
        self.poly.n_vars()
    }

    /// The variable index of the first dimension.
    fn first_dim(&self) -> usize {
        self.p + self.floors.len()
    }

    /// `floor(num / den)` as a floor variable, reusing an equal one; returns its
    /// variable index. `num` is over `[const | params | floors]`.
    fn floor_var(&mut self, num: Vec<Int>, den: Int) -> usize {
        let (num, den) = normalize_div(num, den);
        let k = self.floors.len();
        let p = self.p;
        let same = |f: &(Vec<Int>, Int)| {
            f.1 == den
                && num.len() >= f.0.len()
                && num[..f.0.len()] == f.0[..]
                && num[f.0.len()..].iter().all(Int::is_zero)
        };
        if let Some(j) = self.floors.iter().position(same) {
            return p + j;
        }
        let col = 1 + p + k;
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.insert(col, Int::zero());
        }
        self.poly = self.poly.insert_var(p + k);
        let [lo, hi] = floor_rows(&num, &den, col, self.n_vars() + 1);
        self.ineqs.push(lo);
        self.ineqs.push(hi);
        let mut num = num;
        num.resize(1 + p + k, Int::zero());
        self.floors.push((num, den));
        p + k
    }

    /// The stage with dimension `w` replaced by `m·w + r`.
    fn with_residue(&self, w: usize, m: &Int, r: &Int) -> Stage {
        let mut s = self.clone();
        let col = 1 + w;
        for row in s.eqs.iter_mut().chain(s.ineqs.iter_mut()) {
            if !row[col].is_zero() {
                row[0] = &row[0] + &(&row[col] * r);
                row[col] = &row[col] * m;
            }
        }
        let n = s.n_vars();
        let mut by = Polynomial::var(n, w).scale(&Rat::from(m.clone()));
        by = by.add(&Polynomial::constant(n, Rat::from(r.clone())));
        s.poly = s.poly.substitute(w, &by);
        s
    }

    /// The parameter domain (the floors as known divs) and the quasi-polynomial of a
    /// stage without dimensions.
    fn into_piece(self, params: &[String], budget: &mut Budget) -> Result<(Set, QuasiPolynomial)> {
        let p = self.p;
        let domain = parameter_domain(p, &self.floors, self.eqs, self.ineqs, params, budget)?;
        let value = QuasiPolynomial::from_parts(p, self.floors, self.poly).ok_or_else(|| {
            Error::Unsupported("malformed quasi-polynomial of a counted chamber".into())
        })?;
        Ok((domain, value))
    }

    /// The parameter points at which an unbounded stage has a point: its floors and
    /// dimensions projected out exactly.
    fn into_unbounded_domain(self, params: &[String], budget: &mut Budget) -> Result<Set> {
        let space = Space::params(params.to_vec());
        let locals = self.n_vars() - self.p;
        let b = BasicMap::from_parts(space, vec![None; locals], self.eqs, self.ineqs)?;
        let projected = Map::from_basic(b).compute_divs_with(budget)?;
        Set::from_map(projected)?.simplify_with(budget)
    }
}

/// The defining inequalities of `floor(num / den)` at column `col`: `num - den·t >= 0`
/// and `den·t + den - 1 - num >= 0`, rows of `width` entries.
fn floor_rows(num: &[Int], den: &Int, col: usize, width: usize) -> [Vec<Int>; 2] {
    let mut lo = vec![Int::zero(); width];
    let mut hi = vec![Int::zero(); width];
    for (i, c) in num.iter().enumerate() {
        lo[i] = c.clone();
        hi[i] = -c;
    }
    lo[col] = -den;
    hi[col] = den.clone();
    hi[0] = &hi[0] + den - Int::one();
    [lo, hi]
}

/// The parameter set of a chamber (rows over `[const | params | floors]`), with as
/// few floors as the constraints allow: a constraint `±t + r >= 0` on a floor
/// `t = floor(e / d)` (no later floor in it) is `e + d·r >= 0` or
/// `d·r + d - 1 - e >= 0`; the floors left are the domain's known divs.
fn parameter_domain(
    p: usize,
    floors: &[(Vec<Int>, Int)],
    eqs: Vec<Vec<Int>>,
    ineqs: Vec<Vec<Int>>,
    params: &[String],
    budget: &mut Budget,
) -> Result<Set> {
    let k = floors.len();
    let width = 1 + p + k;
    let mut definitions: Vec<Vec<Int>> = floors
        .iter()
        .enumerate()
        .flat_map(|(j, (num, den))| floor_rows(num, den, 1 + p + j, width))
        .collect();
    // The same rows as the summation's normalisation leaves them.
    if let Some((_, tightened)) = normalized(Vec::new(), definitions.clone()) {
        definitions.extend(tightened);
    }
    let mut ineqs: Vec<Vec<Int>> = ineqs
        .into_iter()
        .filter(|r| !definitions.contains(r))
        .collect();
    let mut kept_eqs = Vec::new();
    for r in eqs {
        let unit_floor = (0..k).rev().find(|&j| !r[1 + p + j].is_zero());
        match unit_floor {
            Some(j) if r[1 + p + j].is_one() || (-&r[1 + p + j]).is_one() => {
                ineqs.push(r.iter().map(|c| -c).collect());
                ineqs.push(r);
            }
            _ => kept_eqs.push(r),
        }
    }
    for j in (0..k).rev() {
        let col = 1 + p + j;
        let (num, den) = &floors[j];
        for r in ineqs.iter_mut() {
            let c = r[col].clone();
            let later = r[col + 1..].iter().any(|x| !x.is_zero());
            if later || !(c.is_one() || (-&c).is_one()) {
                continue;
            }
            r[col] = Int::zero();
            let mut out: Vec<Int> = r.iter().map(|x| x * den).collect();
            if c.is_one() {
                for (x, e) in out.iter_mut().zip(num) {
                    *x += e;
                }
            } else {
                for (x, e) in out.iter_mut().zip(num) {
                    *x -= e;
                }
                out[0] = &out[0] + den - Int::one();
            }
            *r = out;
        }
    }
    let Some((eqs, ineqs)) = normalized(kept_eqs, ineqs) else {
        return Ok(Set::empty(Space::params(params.to_vec())));
    };
    // The floors still used, by the constraints or by a used floor.
    let mut used = vec![false; k];
    for r in eqs.iter().chain(&ineqs) {
        for (j, u) in used.iter_mut().enumerate() {
            *u |= !r[1 + p + j].is_zero();
        }
    }
    for j in (0..k).rev() {
        if used[j] {
            for (i, c) in floors[j].0[1 + p..].iter().enumerate() {
                used[i] |= !c.is_zero();
            }
        }
    }
    let keep: Vec<usize> = (0..1 + p)
        .chain((0..k).filter(|&j| used[j]).map(|j| 1 + p + j))
        .collect();
    let project = |r: &Vec<Int>| -> Vec<Int> {
        keep.iter()
            .map(|&i| r.get(i).cloned().unwrap_or_else(Int::zero))
            .collect()
    };
    let divs = (0..k)
        .filter(|&j| used[j])
        .map(|j| {
            Some(DivDef {
                num: project(&floors[j].0),
                den: floors[j].1.clone(),
            })
        })
        .collect();
    let eqs = eqs.iter().map(project).collect();
    let ineqs = ineqs.iter().map(project).collect();
    let domain = BasicMap::from_parts(Space::params(params.to_vec()), divs, eqs, ineqs)?;
    Set::from_map(Map::from_basic(domain.simplify()))?.simplify_with(budget)
}

/// Sums the stage's polynomial over its dimensions, appending the parameter chambers
/// (stages without dimensions) to `out`.
///
/// Each step removes one dimension `v`: one with a unit equality is substituted;
/// otherwise the one needing the fewest residue classes (innermost on ties). A bound
/// `a·v + D + e >= 0` (`D` in the other dimensions, `e` in the parameters and floors)
/// gives `v >= ceil(-(D + e)/a)`; when `a` divides every coefficient of `D` this is
/// `-D/a - floor(e/a)`, affine in the dimensions and a floor of the parameters. A
/// dimension `w` whose coefficient `a` does not divide is first split into residue
/// classes, `w = m·w' + r` for `r` in `[0, m)`, which makes it divide. With unit
/// bounds, the chambers and Faulhaber's sums follow as for polynomials.
fn sum_out(stage: Stage, out: &mut Vec<Chamber>, budget: &mut Budget) -> Result<()> {
    budget.tick(1)?;
    let n = stage.n_vars();
    let Some((eqs, ineqs)) = normalized(stage.eqs, stage.ineqs) else {
        return Ok(());
    };
    if empty(&eqs, &ineqs, n, budget)? {
        return Ok(());
    }
    let stage = Stage {
        eqs,
        ineqs,
        ..stage
    };
    let first = stage.first_dim();
    if first == n {
        out.push(Chamber::Bounded(stage));
        return Ok(());
    }
    let is_unit = |c: &Int| c.is_one() || (-c).is_one();
    for v in (first..n).rev() {
        if let Some(k) = stage.eqs.iter().position(|r| is_unit(&r[1 + v])) {
            return sum_out(substituted(stage, k, v), out, budget);
        }
    }
    for v in (first..n).rev() {
        if let Some(rows) = determined_by_floor(&stage, v) {
            return sum_out(without_determined(stage, v, rows), out, budget);
        }
    }
    let mut best: Option<(usize, Moduli, u64)> = None;
    for v in (first..n).rev() {
        let moduli = split_moduli(&stage, v);
        let classes = moduli.iter().fold(1u64, |acc, (_, m)| {
            acc.saturating_mul(m.to_i64().map_or(u64::MAX, |m| m as u64))
        });
        if best.as_ref().is_none_or(|b| classes < b.2) {
            best = Some((v, moduli, classes));
        }
    }
    let (v, moduli, classes) = best.expect("a dimension remains");
    if classes > MAX_RESIDUE_CLASSES {
        return Err(Error::Unsupported(format!(
            "counting would split a dimension into {classes} residue classes (a quasi-polynomial beyond the limit of {MAX_RESIDUE_CLASSES})"
        )));
    }
    let mut stages = vec![stage];
    for (w, m) in &moduli {
        let mut next = Vec::new();
        for s in &stages {
            let mut r = Int::zero();
            while &r < m {
                budget.tick(1)?;
                next.push(s.with_residue(*w, m, &r));
                r += Int::one();
            }
        }
        stages = next;
    }
    for s in stages {
        match s.eqs.iter().position(|r| !r[1 + v].is_zero()) {
            Some(k) => solved(s, k, v, out, budget)?,
            None => eliminate(s, v, out, budget)?,
        }
    }
    Ok(())
}

/// The two inequalities of `v` when they are all its constraints and make it a floor
/// of the other variables, `e - a·v >= 0` and `a·v - e + a - 1 >= 0` (`v =
/// floor(e / a)`), and the polynomial does not involve `v`: every point of the other
/// variables then has exactly one `v`, and summing `v` out multiplies by 1 (a tile
/// loop `32t <= i <= 32t + 31` over `i`).
fn determined_by_floor(stage: &Stage, v: usize) -> Option<[usize; 2]> {
    let col = 1 + v;
    if stage.eqs.iter().any(|r| !r[col].is_zero()) {
        return None;
    }
    if stage.poly.terms().any(|(e, _)| e[v] > 0) {
        return None;
    }
    let rows: Vec<usize> = (0..stage.ineqs.len())
        .filter(|&k| !stage.ineqs[k][col].is_zero())
        .collect();
    let [k, l] = rows[..] else {
        return None;
    };
    let (r, s) = (&stage.ineqs[k], &stage.ineqs[l]);
    let a = r[col].abs();
    let sum: Vec<Int> = r.iter().zip(s).map(|(x, y)| x + y).collect();
    let spread = &a - &Int::one();
    (sum[0] == spread && sum[1..].iter().all(Int::is_zero)).then_some([k, l])
}

/// The stage without the determined dimension `v` and its two inequalities `rows`.
fn without_determined(mut stage: Stage, v: usize, rows: [usize; 2]) -> Stage {
    let col = 1 + v;
    let ineqs = std::mem::take(&mut stage.ineqs);
    stage.ineqs = ineqs
        .into_iter()
        .enumerate()
        .filter(|(k, _)| !rows.contains(k))
        .map(|(_, mut r)| {
            r.remove(col);
            r
        })
        .collect();
    for r in stage.eqs.iter_mut() {
        r.remove(col);
    }
    stage.poly = stage.poly.drop_var(v);
    stage
}

/// Residue splits: dimensions and the moduli they are split by.
type Moduli = Vec<(usize, Int)>;

/// For each other dimension `w` and each constraint `a·v + b·w + … >= 0` (or `= 0`)
/// with `a` not dividing `b`, the modulus `w` must be split by so that it does:
/// the lcm of `|a| / gcd(a, b)`.
fn split_moduli(stage: &Stage, v: usize) -> Moduli {
    let n = stage.n_vars();
    let mut out = Vec::new();
    for w in stage.first_dim()..n {
        if w == v {
            continue;
        }
        let mut m = Int::one();
        for r in stage.eqs.iter().chain(&stage.ineqs) {
            let a = r[1 + v].abs();
            let b = &r[1 + w];
            if a.is_zero() || a.is_one() || b.is_zero() || a.divides(b) {
                continue;
            }
            m = m.lcm(&a.exact_div(&a.gcd(b)));
        }
        if !m.is_one() {
            out.push((w, m));
        }
    }
    out
}

/// The stage with dimension `v` substituted by the unit equality `eqs[k]`.
fn substituted(mut stage: Stage, k: usize, v: usize) -> Stage {
    let col = 1 + v;
    let row = stage.eqs.remove(k);
    let a = row[col].clone();
    // a·x + rest = 0  ⇒  x = -rest / a = -a·rest (a = ±1).
    let mut value: Vec<Int> = row.iter().map(|c| -(c * &a)).collect();
    value[col] = Int::zero();
    with_value(stage, v, &value)
}

/// The stage with dimension `v` replaced by the affine `value` (a row over all
/// columns, zero at `v`'s) and removed.
fn with_value(stage: Stage, v: usize, value: &[Int]) -> Stage {
    let col = 1 + v;
    let substitute = |r: &Vec<Int>| -> Vec<Int> {
        let f = r[col].clone();
        let mut s: Vec<Int> = r.iter().zip(value).map(|(c, w)| c + &(&f * w)).collect();
        s.remove(col);
        s
    };
    let n = stage.n_vars();
    let eqs: Vec<Vec<Int>> = stage.eqs.iter().map(substitute).collect();
    let ineqs: Vec<Vec<Int>> = stage.ineqs.iter().map(substitute).collect();
    let poly = stage
        .poly
        .substitute(v, &Polynomial::affine(n, value))
        .drop_var(v);
    Stage {
        eqs,
        ineqs,
        poly,
        ..stage
    }
}

/// Solves the equality `eqs[k]`, `a·v + D + e = 0` with `a` dividing `D`'s
/// coefficients, for `v`: `v = -D/a - e/a`, where `a` must divide `e` (a condition
/// on the parameters, `e = a·floor(e/a)`, when it is not a constant).
fn solved(
    mut stage: Stage,
    k: usize,
    v: usize,
    out: &mut Vec<Chamber>,
    budget: &mut Budget,
) -> Result<()> {
    let mut row = stage.eqs.remove(k);
    if row[1 + v].is_negative() {
        row = row.iter().map(|c| -c).collect();
    }
    let a = row[1 + v].clone();
    let p_end = 1 + stage.first_dim();
    let e = row[..p_end].to_vec();
    if e[1..].iter().all(|c| a.divides(c)) {
        if !a.divides(&e[0]) {
            return Ok(());
        }
        let value: Vec<Int> = row.iter().map(|c| -c.exact_div(&a)).collect();
        let mut value = value;
        value[1 + v] = Int::zero();
        return sum_out(with_value(stage, v, &value), out, budget);
    }
    let before = stage.floors.len();
    let t = stage.floor_var(e.clone(), a.clone());
    let shift = stage.floors.len() - before;
    let n = stage.n_vars();
    let mut value = vec![Int::zero(); n + 1];
    value[1 + t] = -Int::one();
    for i in p_end..row.len() {
        if i != 1 + v {
            value[i + shift] = -row[i].exact_div(&a);
        }
    }
    // e - a·t = 0.
    let mut condition = vec![Int::zero(); n + 1];
    condition[..p_end].clone_from_slice(&e);
    condition[1 + t] = -&a;
    stage.eqs.push(condition);
    sum_out(with_value(stage, v + shift, &value), out, budget)
}

/// Sums dimension `v` out of a stage in which every coefficient of another dimension
/// in `v`'s constraints is divisible by `v`'s coefficient there (see [`sum_out`]).
fn eliminate(
    mut stage: Stage,
    v: usize,
    out: &mut Vec<Chamber>,
    budget: &mut Budget,
) -> Result<()> {
    budget.tick(1)?;
    let p_end = 1 + stage.first_dim();
    // `sum_out` solves the equalities on v first; one left here would be a lower and
    // an upper bound.
    let mut rows: Vec<Vec<Int>> = Vec::new();
    let mut eqs = Vec::new();
    for r in std::mem::take(&mut stage.eqs) {
        if r[1 + v].is_zero() {
            eqs.push(r);
        } else {
            rows.push(r.iter().map(|c| -c).collect());
            rows.push(r);
        }
    }
    let mut others = Vec::new();
    for r in std::mem::take(&mut stage.ineqs) {
        if r[1 + v].is_zero() {
            others.push(r);
        } else {
            rows.push(r);
        }
    }
    stage.eqs = eqs;
    stage.ineqs = others;
    let has_lower = rows.iter().any(|r| r[1 + v].is_positive());
    let has_upper = rows.iter().any(|r| r[1 + v].is_negative());
    if !(has_lower && has_upper) {
        return unbounded(stage, v, out);
    }
    // The floors floor(e / a) of the bounds' parameter parts, added before the bounds
    // are written (each addition inserts a column).
    let mut bound_floors: Vec<Option<(Vec<Int>, Int)>> = Vec::new();
    for r in &rows {
        let a = r[1 + v].abs();
        let e = &r[..p_end];
        let affine = a.is_one() || e[1..].iter().all(|c| a.divides(c));
        bound_floors.push((!affine).then(|| (e.to_vec(), a)));
    }
    let added_before = stage.floors.len();
    let mut floor_vars = Vec::new();
    for f in &bound_floors {
        floor_vars.push(f.clone().map(|(e, a)| stage.floor_var(e, a)));
    }
    let shift = stage.floors.len() - added_before;
    let v = v + shift;
    let col = 1 + v;
    let n = stage.n_vars();
    let p_end = 1 + stage.first_dim() - shift;
    let widen = |r: &[Int]| -> Vec<Int> {
        let mut w = r[..p_end].to_vec();
        w.extend(std::iter::repeat_n(Int::zero(), shift));
        w.extend_from_slice(&r[p_end..]);
        w
    };
    let mut lower: Vec<Vec<Int>> = Vec::new();
    let mut upper: Vec<Vec<Int>> = Vec::new();
    for (r, f) in rows.iter().zip(&floor_vars) {
        let r = widen(r);
        let c = r[col].clone();
        let a = c.abs();
        // floor(e / a) as a row over all columns.
        let mut fl = vec![Int::zero(); n + 1];
        match f {
            Some(t) => fl[1 + t] = Int::one(),
            None => {
                fl[0] = r[0].floor_div(&a);
                for i in 1..p_end {
                    fl[i] = r[i].exact_div(&a);
                }
            }
        }
        // D / a, the other dimensions' part.
        let mut bound = fl;
        for i in p_end + shift..=n {
            if i != col {
                let d = r[i].exact_div(&a);
                bound[i] = if c.is_positive() {
                    -&bound[i] - &d
                } else {
                    &bound[i] + &d
                };
            }
        }
        if c.is_positive() {
            // v >= -D/a - floor(e/a)
            for x in bound[..p_end + shift].iter_mut() {
                *x = -&*x;
            }
            lower.push(bound);
        } else {
            upper.push(bound);
        }
    }
    let diff = |a: &[Int], b: &[Int], shift: i64| -> Vec<Int> {
        let mut d: Vec<Int> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        d[0] = &d[0] - &Int::from(shift);
        d
    };
    let remove = |mut r: Vec<Int>| {
        r.remove(col);
        r
    };
    let eqs2: Vec<Vec<Int>> = stage.eqs.iter().cloned().map(remove).collect();
    let others: Vec<Vec<Int>> = stage.ineqs.iter().cloned().map(remove).collect();
    for (i, lo) in lower.iter().enumerate() {
        for (j, hi) in upper.iter().enumerate() {
            budget.tick(1)?;
            let mut chamber = others.clone();
            for (k, other) in lower.iter().enumerate() {
                if k != i {
                    // lo is the greatest: strictly above the earlier ones.
                    chamber.push(remove(diff(lo, other, i64::from(k < i))));
                }
            }
            for (l, other) in upper.iter().enumerate() {
                if l != j {
                    chamber.push(remove(diff(other, hi, i64::from(l < j))));
                }
            }
            chamber.push(remove(diff(hi, lo, 0)));
            let lo_p = Polynomial::affine(n, lo);
            let hi_p = Polynomial::affine(n, hi);
            let summed = stage.poly.sum_over(v, &lo_p, &hi_p).drop_var(v);
            let next = Stage {
                p: stage.p,
                floors: stage.floors.clone(),
                eqs: eqs2.clone(),
                ineqs: chamber,
                poly: summed,
                positive: stage.positive,
            };
            sum_out(next, out, budget)?;
        }
    }
    Ok(())
}

/// Dimension `v` of a stage whose constraints on `v` (already removed from it) bound it
/// on one side only: every point of the other variables that satisfies the rest has
/// infinitely many values of `v`, so a positive sum is infinite there, and any other
/// sum is [`Error::Unsupported`].
fn unbounded(mut stage: Stage, v: usize, out: &mut Vec<Chamber>) -> Result<()> {
    if !stage.positive {
        return Err(Error::Unsupported(
            "summing a polynomial over an unbounded set".into(),
        ));
    }
    let col = 1 + v;
    for r in stage.eqs.iter_mut().chain(stage.ineqs.iter_mut()) {
        r.remove(col);
    }
    stage.poly = Polynomial::constant(stage.poly.n_vars() - 1, Rat::one());
    out.push(Chamber::Unbounded(stage));
    Ok(())
}

/// The constraints divided by the gcd of their variable coefficients, as over the
/// integers: an inequality's constant rounded down (`2x - 1 >= 0` is `x - 1 >= 0`), an
/// equality whose constant the gcd does not divide makes the system empty (`None`).
/// Chamber conditions between two bounds often have even coefficients; tightened,
/// they are unit again.
#[allow(clippy::type_complexity)]
fn normalized(eqs: Vec<Vec<Int>>, ineqs: Vec<Vec<Int>>) -> Option<(Vec<Vec<Int>>, Vec<Vec<Int>>)> {
    // The variable coefficients divide exactly; the constant is rounded down.
    let divide = |row: &[Int], g: &Int| -> Vec<Int> {
        let mut r: Vec<Int> = row.iter().map(|c| c.floor_div(g)).collect();
        r[0] = row[0].floor_div(g);
        r
    };
    let mut e2 = Vec::with_capacity(eqs.len());
    for r in eqs {
        let g = pollen_arith::gcd_slice(&r[1..]);
        if g.is_zero() || g.is_one() {
            if g.is_zero() && !r[0].is_zero() {
                return None;
            }
            e2.push(r);
            continue;
        }
        if &r[0].floor_div(&g) * &g != r[0] {
            return None;
        }
        e2.push(divide(&r, &g));
    }
    let mut i2 = Vec::with_capacity(ineqs.len());
    for r in ineqs {
        let g = pollen_arith::gcd_slice(&r[1..]);
        if g.is_zero() {
            if r[0].is_negative() {
                return None;
            }
            continue;
        }
        i2.push(if g.is_one() { r } else { divide(&r, &g) });
    }
    Some((e2, i2))
}

/// Whether the constraints (rows `[const | x_0 … x_{n-1}]`) have no integer solution.
fn empty(eqs: &[Vec<Int>], ineqs: &[Vec<Int>], n: usize, budget: &mut Budget) -> Result<bool> {
    let b = BasicMap::from_parts(
        Space::set_anonymous(n),
        Vec::new(),
        eqs.to_vec(),
        ineqs.to_vec(),
    )?;
    b.is_empty(budget)
}

impl fmt::Display for Polynomial {
    /// iscc's form, with variables `x0, x1, …`; see [`PwPolynomial`]'s printer for
    /// named ones.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = (0..self.n).map(|i| format!("x{i}")).collect();
        f.write_str(&polynomial_text(self, &names))
    }
}

/// iscc's text of a polynomial: terms by increasing degree, `(1/2) * N^2`, `-3 * M`.
pub(crate) fn polynomial_text(p: &Polynomial, names: &[String]) -> String {
    if p.is_zero() {
        return "0".into();
    }
    let mut terms: Vec<(&Vec<u32>, &Rat)> = p.terms.iter().collect();
    terms.sort_by(|a, b| {
        let da: u32 = a.0.iter().sum();
        let db: u32 = b.0.iter().sum();
        da.cmp(&db).then_with(|| b.0.cmp(a.0))
    });
    let mut out = String::new();
    for (k, (e, c)) in terms.iter().enumerate() {
        let factors: Vec<String> = e
            .iter()
            .enumerate()
            .filter(|(_, &x)| x > 0)
            .map(|(i, &x)| {
                if x == 1 {
                    names[i].clone()
                } else {
                    format!("{}^{x}", names[i])
                }
            })
            .collect();
        let negative = c.is_negative();
        let magnitude = c.abs();
        let coefficient = if magnitude.is_integer() {
            magnitude.to_string()
        } else {
            format!("({magnitude})")
        };
        let body = if factors.is_empty() {
            coefficient
        } else if magnitude == Rat::one() {
            factors.join(" * ")
        } else {
            format!("{coefficient} * {}", factors.join(" * "))
        };
        match (k, negative) {
            (0, false) => out += &body,
            (0, true) => out += &format!("-{body}"),
            (_, false) => out += &format!(" + {body}"),
            (_, true) => out += &format!(" - {body}"),
        }
    }
    out
}

impl fmt::Display for PwPolynomial {
    /// iscc's form: `[N] -> { ((1/2) * N + (1/2) * N^2) : N >= 1 }`, `{ 6 }`, `{ 0 }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pieces: Vec<(&Set, quasi::ValueText)> = self
            .pieces
            .iter()
            .map(|(d, p)| (d, (polynomial_text(p, &self.params), p.terms.len() > 1)))
            .collect();
        let space = Space::params(self.params.clone());
        let text =
            quasi::pieces_text(&space, &self.params, &pieces, None).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl std::str::FromStr for PwPolynomial {
    type Err = Error;

    /// Reads iscc's form, as printed: `[N] -> { ((1/2) * N + (1/2) * N^2) : N >= 1;
    /// N : N <= 0 }`, `{ 6 }`. A piece is a polynomial (integers, parameters, `+ - *`,
    /// `/` by a constant, `^` with a constant exponent, parentheses) and an optional
    /// `: condition` on the parameters in isl syntax. The pieces must be disjoint, as
    /// a printed value's are; where they overlap, the first holds.
    fn from_str(text: &str) -> Result<PwPolynomial> {
        let syntax = quasi::Syntax {
            floors: false,
            domains: false,
        };
        let read = quasi::parse_pieces(text, syntax)?;
        let mut pieces = Vec::with_capacity(read.pieces.len());
        for (d, q) in read.pieces {
            let p = q.and_then(|q| q.to_polynomial()).ok_or_else(|| {
                Error::Unsupported("a piece of a polynomial that is not a polynomial".into())
            })?;
            pieces.push((d, p));
        }
        Ok(PwPolynomial {
            params: read.space.param_names().to_vec(),
            pieces,
        })
    }
}

/// The parts of `text` between the top-level (outside brackets) `sep`s, each with its
/// byte offset.
pub(crate) fn split_top(text: &str, sep: char) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (k, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push((start, &text[start..k]));
                start = k + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push((start, &text[start..]));
    out
}

/// The highest degree a read polynomial's power may reach (a resource limit: powers of
/// powers grow fast).
pub(crate) const MAX_DEGREE: u32 = 256;
