//! Counting the points of parametric sets: the number of points as a piecewise
//! polynomial in the parameters, by exact symbolic summation.
//!
//! [`Set::card_parametric`] eliminates the dimensions from the innermost out. A
//! dimension `x` with lower bounds `x >= L_1, …, x >= L_p` and upper bounds
//! `x <= U_1, …, x <= U_q` (affine in the parameters and the outer dimensions, each
//! with coefficient ±1 on `x`) splits the outer space into chambers, one per pair
//! `(i, j)` where `L_i` is the greatest lower bound and `U_j` the least upper bound
//! (ties broken by position, so that the chambers are disjoint) and `L_i <= U_j`. In a
//! chamber, the sum of a polynomial `P(x) = Σ c_m x^m` over `L_i <= x <= U_j` is
//! `Σ c_m (G_m(U_j + 1) - G_m(L_i))` with `G_m(t) = Σ_{x=0}^{t-1} x^m`, Faulhaber's
//! polynomial (exact for all integers, as `G_m(t + 1) - G_m(t) = t^m`). Empty chambers
//! are dropped by the library's emptiness test. An equality with coefficient ±1 on `x`
//! substitutes it instead. What remains is a list of (parameter domain, polynomial)
//! pieces; the pieces of a union's disjoint parts are added up where their domains
//! meet.
//!
//! [`Set::sum_parametric`] sums any polynomial in the parameters and dimensions the
//! same way (the count is the sum of 1).
//!
//! This covers sets whose constraints have unit coefficients on every dimension and no
//! existentially quantified variables or divisions (most loop nests: rectangles,
//! triangles, tetrahedra, bands); the counts are then polynomials. Other sets need
//! quasi-polynomials (Barvinok's algorithm) and are [`Error::Unsupported`], never
//! approximated.

use std::collections::BTreeMap;
use std::fmt;

use pollen_arith::{Int, Rat};

use crate::bmap::BasicMap;
use crate::error::{Budget, Error, Result};
use crate::map::Map;
use crate::set::Set;
use crate::space::Space;

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

    /// The same polynomial in the first `n - 1` variables, when the last is absent.
    fn drop_last(&self) -> Polynomial {
        let n = self.n - 1;
        let mut out = Polynomial::zero(n);
        for (e, c) in &self.terms {
            debug_assert_eq!(e[n], 0, "the dropped variable occurs");
            out.add_term(e[..n].to_vec(), c.clone());
        }
        out
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
    /// The number of points as a piecewise polynomial in the parameters (a set without
    /// parameters gives one constant piece). See the module documentation for the
    /// method and the sets it covers; [`Error::Unsupported`] for the others, and for
    /// unbounded sets.
    pub fn card_parametric(&self) -> Result<PwPolynomial> {
        self.card_parametric_with(&mut Budget::unlimited())
    }

    /// [`Set::card_parametric`] within a budget.
    pub fn card_parametric_with(&self, budget: &mut Budget) -> Result<PwPolynomial> {
        let n = self.n_params() + self.n_dims();
        self.sum_parametric_with(&Polynomial::constant(n, Rat::one()), budget)
    }

    /// The sum of `f` over the points of the set, as a piecewise polynomial in the
    /// parameters: `f` is a polynomial in the parameters and then the set's dimensions
    /// (`n_params + n_dims` variables). The sets covered are those of
    /// [`Set::card_parametric`] (the count is the sum of 1).
    pub fn sum_parametric(&self, f: &Polynomial) -> Result<PwPolynomial> {
        self.sum_parametric_with(f, &mut Budget::unlimited())
    }

    /// [`Set::sum_parametric`] within a budget.
    pub fn sum_parametric_with(&self, f: &Polynomial, budget: &mut Budget) -> Result<PwPolynomial> {
        let params = self.space().param_names().to_vec();
        if f.n_vars() != params.len() + self.n_dims() {
            return Err(Error::Unsupported(format!(
                "summing a polynomial in {} variables over a set with {} parameters and {} dimensions",
                f.n_vars(),
                params.len(),
                self.n_dims()
            )));
        }
        let p = params.len();
        let mut out = PwPolynomial {
            params: params.clone(),
            pieces: Vec::new(),
        };
        for part in disjoint_parts(self.as_map(), budget)? {
            if !part.divs().is_empty() {
                return Err(Error::Unsupported(
                    "counting a set with existentially quantified variables or divisions (a quasi-polynomial)"
                        .into(),
                ));
            }
            // The variables: the parameters, then the set's dimensions.
            let n = part.n_dims();
            let mut chambers = Vec::new();
            debug_assert_eq!(n, f.n_vars());
            sum_out(
                part.eqs().to_vec(),
                part.ineqs().to_vec(),
                f.clone(),
                p,
                &mut chambers,
                budget,
            )?;
            for (eqs, ineqs, poly) in chambers {
                let domain =
                    BasicMap::from_parts(Space::params(params.clone()), Vec::new(), eqs, ineqs)?;
                let domain = Set::from_map(Map::from_basic(domain))?;
                out.add_piece(domain, poly, budget)?;
            }
        }
        Ok(out)
    }
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

/// Sums `poly` (in the first `n` variables, `n = eqs[0].len() - 1`) over the
/// dimensions after the first `p` (the parameters), innermost first, appending the
/// parameter chambers and their polynomials to `out`.
#[allow(clippy::type_complexity)]
fn sum_out(
    eqs: Vec<Vec<Int>>,
    ineqs: Vec<Vec<Int>>,
    poly: Polynomial,
    p: usize,
    out: &mut Vec<(Vec<Vec<Int>>, Vec<Vec<Int>>, Polynomial)>,
    budget: &mut Budget,
) -> Result<()> {
    budget.tick(1)?;
    let n = poly.n_vars();
    let Some((eqs, ineqs)) = normalized(eqs, ineqs) else {
        return Ok(());
    };
    if empty(&eqs, &ineqs, n, budget)? {
        return Ok(());
    }
    if n == p {
        out.push((eqs, ineqs, poly));
        return Ok(());
    }
    let v = n - 1;
    let col = 1 + v;
    // An equality on the last variable substitutes it.
    if let Some(k) = eqs.iter().position(|r| !r[col].is_zero()) {
        let row = &eqs[k];
        let a = row[col].clone();
        if !(a.is_one() || (-&a).is_one()) {
            return Err(unsupported_coefficient(&a));
        }
        // a·x + rest = 0  ⇒  x = -rest / a = -a·rest (a = ±1).
        let mut value: Vec<Int> = row.iter().map(|c| -(c * &a)).collect();
        value[col] = Int::zero();
        let substitute = |r: &Vec<Int>| -> Vec<Int> {
            let f = r[col].clone();
            let mut s: Vec<Int> = r.iter().zip(&value).map(|(c, w)| c + &(&f * w)).collect();
            s[col] = Int::zero();
            s.truncate(col);
            s
        };
        let eqs2: Vec<Vec<Int>> = eqs
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != k)
            .map(|(_, r)| substitute(r))
            .collect();
        let ineqs2: Vec<Vec<Int>> = ineqs.iter().map(substitute).collect();
        let poly2 = poly
            .substitute(v, &Polynomial::affine(n, &value))
            .drop_last();
        return sum_out(eqs2, ineqs2, poly2, p, out, budget);
    }
    let mut lower = Vec::new();
    let mut upper = Vec::new();
    let mut others = Vec::new();
    for r in &ineqs {
        let a = &r[col];
        if a.is_zero() {
            let mut s = r.clone();
            s.truncate(col);
            others.push(s);
            continue;
        }
        if !(a.is_one() || (-a).is_one()) {
            return Err(unsupported_coefficient(a));
        }
        // x >= -rest (a = 1) or x <= rest (a = -1), the bound without the x column.
        let mut bound: Vec<Int> = if a.is_one() {
            r.iter().map(|c| -c).collect()
        } else {
            r.clone()
        };
        bound.truncate(col);
        if a.is_one() {
            lower.push(bound);
        } else {
            upper.push(bound);
        }
    }
    if lower.is_empty() || upper.is_empty() {
        return Err(Error::Unsupported("counting an unbounded set".into()));
    }
    let eqs2: Vec<Vec<Int>> = eqs
        .iter()
        .map(|r| {
            let mut s = r.clone();
            s.truncate(col);
            s
        })
        .collect();
    let diff = |a: &[Int], b: &[Int], shift: i64| -> Vec<Int> {
        let mut d: Vec<Int> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        d[0] = &d[0] - &Int::from(shift);
        d
    };
    for (i, lo) in lower.iter().enumerate() {
        for (j, hi) in upper.iter().enumerate() {
            budget.tick(1)?;
            let mut chamber = others.clone();
            for (k, other) in lower.iter().enumerate() {
                if k != i {
                    // lo is the greatest: strictly above the earlier ones.
                    chamber.push(diff(lo, other, i64::from(k < i)));
                }
            }
            for (l, other) in upper.iter().enumerate() {
                if l != j {
                    chamber.push(diff(other, hi, i64::from(l < j)));
                }
            }
            chamber.push(diff(hi, lo, 0));
            let lo_p = Polynomial::affine(n, &extend(lo, n));
            let hi_p = Polynomial::affine(n, &extend(hi, n));
            let summed = poly.sum_over(v, &lo_p, &hi_p).drop_last();
            sum_out(eqs2.clone(), chamber, summed, p, out, budget)?;
        }
    }
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

/// A row over the first `n - 1` variables as a row over `n` (the last coefficient 0).
fn extend(row: &[Int], n: usize) -> Vec<Int> {
    let mut r = row.to_vec();
    r.resize(n + 1, Int::zero());
    r
}

fn unsupported_coefficient(a: &Int) -> Error {
    Error::Unsupported(format!(
        "counting a set with a coefficient {a} on a dimension (a quasi-polynomial); only coefficients ±1 are counted"
    ))
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
fn polynomial_text(p: &Polynomial, names: &[String]) -> String {
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
        let prefix = if self.params.is_empty() {
            String::new()
        } else {
            format!("[{}] -> ", self.params.join(", "))
        };
        if self.pieces.is_empty() {
            return write!(f, "{prefix}{{ 0 }}");
        }
        let mut pieces = Vec::new();
        for (domain, p) in &self.pieces {
            let text = polynomial_text(p, &self.params);
            let value = if p.terms.len() > 1 || text.starts_with('-') {
                format!("({text})")
            } else {
                text
            };
            let d = domain.to_string();
            let condition = d
                .find(": ")
                .and_then(|at| d[at + 2..].strip_suffix(" }"))
                .map(str::to_string);
            pieces.push(match condition {
                Some(c) => format!("{value} : {c}"),
                None => value,
            });
        }
        write!(f, "{prefix}{{ {} }}", pieces.join("; "))
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
        let err = |at: usize, m: &str| {
            let mut at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |k| k + 1) + 1;
            Error::Parse {
                line,
                column,
                message: m.to_string(),
            }
        };
        let open = text.find('{').ok_or_else(|| err(0, "expected '{'"))?;
        let close = text
            .rfind('}')
            .ok_or_else(|| err(text.len(), "expected '}'"))?;
        if !text[close + 1..].trim().is_empty() {
            return Err(err(close + 1, "expected end of input after '}'"));
        }
        let prefix = text[..open].trim();
        let params: Vec<String> = if prefix.is_empty() {
            Vec::new()
        } else {
            let inner = prefix
                .strip_suffix("->")
                .map(str::trim)
                .and_then(|p| p.strip_prefix('['))
                .and_then(|p| p.strip_suffix(']'))
                .ok_or_else(|| err(0, "expected '[params] ->' before '{'"))?;
            inner
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        };
        let mut out = PwPolynomial {
            params: params.clone(),
            pieces: Vec::new(),
        };
        let body_start = open + 1;
        for (start, piece) in split_top(&text[body_start..close], ';') {
            let at = body_start + start;
            if piece.trim().is_empty() {
                continue;
            }
            let (poly_text, condition) = match split_top(piece, ':').as_slice() {
                [(_, p)] => (*p, None),
                [(_, p), (c_at, c)] => (*p, Some((*c_at, *c))),
                _ => return Err(err(at, "expected one ':' in a piece")),
            };
            let poly = PolyParser {
                text: poly_text,
                at: 0,
                params: &params,
            }
            .parse()
            .map_err(|(k, m)| err(at + k, &m))?;
            let domain_text = format!(
                "[{}] -> {{ : {} }}",
                params.join(", "),
                condition.map_or("true", |(_, c)| c)
            );
            // An error in the condition, at its place in `text`.
            let prefix = format!("[{}] -> {{ : ", params.join(", ")).len();
            let domain =
                crate::text::parse_set(&domain_text).map_err(|e| match (e, condition) {
                    (
                        Error::Parse {
                            column, message, ..
                        },
                        Some((c_at, c)),
                    ) => {
                        let offset = column.saturating_sub(1).saturating_sub(prefix).min(c.len());
                        err(at + c_at + offset, &message)
                    }
                    (e, _) => e,
                })?;
            // Later pieces only where the earlier do not hold.
            let mut rest = domain;
            for (d, _) in &out.pieces {
                rest = Set::from_map(rest.as_map().subtract(d.as_map())?)?;
            }
            if !rest.is_empty()? && !poly.is_zero() {
                out.pieces.push((rest, poly));
            }
        }
        Ok(out)
    }
}

/// The parts of `text` between the top-level (outside brackets) `sep`s, each with its
/// byte offset.
fn split_top(text: &str, sep: char) -> Vec<(usize, &str)> {
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
const MAX_DEGREE: u32 = 256;

/// A recursive-descent reader of a polynomial in named parameters. Errors are
/// (byte offset, message).
struct PolyParser<'a> {
    text: &'a str,
    at: usize,
    params: &'a [String],
}

type PolyResult = std::result::Result<Polynomial, (usize, String)>;

impl PolyParser<'_> {
    fn parse(mut self) -> PolyResult {
        let p = self.sum()?;
        self.skip();
        if self.at < self.text.len() {
            return Err((
                self.at,
                "expected '+', '-', '*', '/', '^' or the end of the polynomial".into(),
            ));
        }
        Ok(p)
    }

    fn skip(&mut self) {
        while let Some(c) = self.text[self.at..]
            .chars()
            .next()
            .filter(|c| c.is_whitespace())
        {
            self.at += c.len_utf8();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip();
        if self.text[self.at..].starts_with(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn sum(&mut self) -> PolyResult {
        let mut p = self.product()?;
        loop {
            if self.eat('+') {
                p = p.add(&self.product()?);
            } else if self.eat('-') {
                p = p.sub(&self.product()?);
            } else {
                return Ok(p);
            }
        }
    }

    fn product(&mut self) -> PolyResult {
        let mut p = self.unary()?;
        loop {
            if self.eat('*') {
                p = p.mul(&self.unary()?);
            } else if self.eat('/') {
                self.skip();
                let at = self.at;
                let d = self.unary()?;
                let constant =
                    d.terms.len() <= 1 && d.terms.keys().all(|e| e.iter().all(|&x| x == 0));
                let value = d.terms.values().next().cloned();
                match (constant, value) {
                    (true, Some(v)) => p = p.scale(&v.recip()),
                    (true, None) => return Err((at, "division by zero".into())),
                    (false, _) => return Err((at, "division by a non-constant".into())),
                }
            } else {
                return Ok(p);
            }
        }
    }

    fn unary(&mut self) -> PolyResult {
        if self.eat('-') {
            return Ok(self.unary()?.scale(&Rat::from(-1)));
        }
        let base = self.atom()?;
        if self.eat('^') {
            self.skip();
            let start = self.at;
            let digits = self.text[start..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            let k: u32 = self.text[start..start + digits]
                .parse()
                .ok()
                .filter(|&k| k <= 64)
                .ok_or((start, "expected an exponent from 0 to 64".to_string()))?;
            self.at += digits;
            let degree = base
                .terms
                .keys()
                .map(|e| e.iter().sum::<u32>())
                .max()
                .unwrap_or(0);
            if degree.saturating_mul(k) > MAX_DEGREE {
                return Err((start, format!("a degree above {MAX_DEGREE}")));
            }
            return Ok(base.pow(k));
        }
        Ok(base)
    }

    fn atom(&mut self) -> PolyResult {
        self.skip();
        let n = self.params.len();
        let rest = &self.text[self.at..];
        let start = self.at;
        if self.eat('(') {
            let p = self.sum()?;
            if !self.eat(')') {
                return Err((self.at, "expected ')'".into()));
            }
            return Ok(p);
        }
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            self.at += digits;
            let v: Int = rest[..digits]
                .parse()
                .map_err(|_| (start, "malformed integer".to_string()))?;
            return Ok(Polynomial::constant(n, Rat::from(v)));
        }
        let word = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '\'')
            .count();
        if word > 0 {
            let name = &rest[..word];
            self.at += word;
            return match self.params.iter().position(|p| p == name) {
                Some(k) => Ok(Polynomial::var(n, k)),
                None => Err((start, format!("unknown parameter '{name}'"))),
            };
        }
        Err((start, "expected a number, a parameter or '('".into()))
    }
}
