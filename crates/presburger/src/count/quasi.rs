//! Quasi-polynomials: polynomials with rational coefficients in the parameters and in
//! integer floors of affine expressions of them (`floor((1 + N)/2)`), the form of
//! barvinok's counts; their piecewise form [`PwQPolynomial`], printed and read in
//! iscc's syntax.
//!
//! # Normal form
//! A [`QuasiPolynomial`] keeps its floors reduced: in `floor(e / d)` every coefficient
//! of `e` (the constant included) lies in `[0, d)`, the integer parts moved out as an
//! affine term (`floor((3N + 5)/2) = N + 2 + floor((1 + N)/2)`), a common factor of
//! the variable coefficients and `d` is divided out, floors that are affine disappear,
//! equal floors are merged, unused ones dropped, and the rest are ordered by nesting
//! depth and text. Equal quasi-polynomials built from the same floors print equally;
//! different floor spellings of one function (`N - floor(N/2)` and `floor((1 + N)/2)`)
//! are not identified.

use std::fmt;

use pollen_arith::{Int, Rat};

use super::{polynomial_text, split_top, Polynomial, PwPolynomial, MAX_DEGREE};
use crate::error::{Budget, Error, Result};
use crate::map::Map;
use crate::set::Set;
use crate::space::{Space, Tuple};

/// An integer floor `floor(num / den)` of an affine expression in the parameters and
/// earlier floors of the same quasi-polynomial.
///
/// # Invariants
/// `num` has `1 + n_params + k` entries for the `k`-th floor (columns
/// `[const | params | floors before it]`); `den >= 2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Floor {
    num: Vec<Int>,
    den: Int,
}

impl Floor {
    /// The numerator over `[const | params | earlier floors]`.
    pub fn numerator(&self) -> &[Int] {
        &self.num
    }

    /// The denominator (at least 2).
    pub fn denominator(&self) -> &Int {
        &self.den
    }
}

/// A polynomial with rational coefficients in the parameters and in integer floors of
/// affine expressions of them: the variables of [`QuasiPolynomial::polynomial`] are the
/// parameters, then the floors.
///
/// # Invariants
/// The polynomial has `n_params + floors.len()` variables; every floor satisfies
/// [`Floor`]'s invariants; the quasi-polynomial is in the normal form of the module
/// documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuasiPolynomial {
    n_params: usize,
    floors: Vec<Floor>,
    poly: Polynomial,
}

impl QuasiPolynomial {
    /// A polynomial in the parameters, without floors.
    pub fn from_polynomial(p: Polynomial) -> QuasiPolynomial {
        QuasiPolynomial {
            n_params: p.n_vars(),
            floors: Vec::new(),
            poly: p,
        }
    }

    /// The constant `c` in `n_params` parameters.
    pub fn constant(n_params: usize, c: Rat) -> QuasiPolynomial {
        QuasiPolynomial::from_polynomial(Polynomial::constant(n_params, c))
    }

    /// Builds a quasi-polynomial from floors given as `(numerator, denominator)` over
    /// `[const | params | earlier floors]` and a polynomial in the parameters and the
    /// floors; `None` when the lengths do not fit or a denominator is not positive.
    pub fn from_parts(
        n_params: usize,
        floors: Vec<(Vec<Int>, Int)>,
        poly: Polynomial,
    ) -> Option<QuasiPolynomial> {
        let ok = poly.n_vars() == n_params + floors.len()
            && floors
                .iter()
                .enumerate()
                .all(|(k, (num, den))| num.len() == 1 + n_params + k && den.is_positive());
        if !ok {
            return None;
        }
        let floors = floors
            .into_iter()
            .map(|(num, den)| Floor { num, den })
            .collect();
        Some(
            QuasiPolynomial {
                n_params,
                floors,
                poly,
            }
            .normalized(),
        )
    }

    /// The number of parameters.
    pub fn n_params(&self) -> usize {
        self.n_params
    }

    /// The floors, in the order of the polynomial's variables after the parameters.
    pub fn floors(&self) -> &[Floor] {
        &self.floors
    }

    /// The polynomial in the parameters and the floors.
    pub fn polynomial(&self) -> &Polynomial {
        &self.poly
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.poly.is_zero()
    }

    /// The polynomial in the parameters alone, when there is no floor.
    pub fn to_polynomial(&self) -> Option<Polynomial> {
        self.floors.is_empty().then(|| self.poly.clone())
    }

    /// The values of the floors at a parameter point.
    fn floor_values(&self, params: &[Int]) -> Vec<Int> {
        let mut values: Vec<Int> = params.to_vec();
        for f in &self.floors {
            let mut e = f.num[0].clone();
            for (c, x) in f.num[1..].iter().zip(&values) {
                e += c * x;
            }
            values.push(e.floor_div(&f.den));
        }
        values
    }

    /// The value at a parameter point (one integer per parameter).
    pub fn eval(&self, params: &[Int]) -> Rat {
        debug_assert_eq!(params.len(), self.n_params);
        self.poly.eval(&self.floor_values(params))
    }

    /// `self + other` (the same number of parameters).
    pub fn add(&self, other: &QuasiPolynomial) -> QuasiPolynomial {
        let (a, b, floors) = self.merged(other);
        QuasiPolynomial {
            n_params: self.n_params,
            floors,
            poly: a.add(&b),
        }
        .normalized()
    }

    /// `self - other`.
    pub fn sub(&self, other: &QuasiPolynomial) -> QuasiPolynomial {
        self.add(&other.scale(&Rat::from(-1)))
    }

    /// `self · other` (the same number of parameters).
    pub fn mul(&self, other: &QuasiPolynomial) -> QuasiPolynomial {
        let (a, b, floors) = self.merged(other);
        QuasiPolynomial {
            n_params: self.n_params,
            floors,
            poly: a.mul(&b),
        }
        .normalized()
    }

    /// `c · self`.
    pub fn scale(&self, c: &Rat) -> QuasiPolynomial {
        QuasiPolynomial {
            n_params: self.n_params,
            floors: self.floors.clone(),
            poly: self.poly.scale(c),
        }
        .normalized()
    }

    /// `self^k`.
    pub fn pow(&self, k: u32) -> QuasiPolynomial {
        QuasiPolynomial {
            n_params: self.n_params,
            floors: self.floors.clone(),
            poly: self.poly.pow(k),
        }
        .normalized()
    }

    /// The total degree of the polynomial in the parameters and floors.
    pub fn degree(&self) -> u32 {
        self.poly.degree()
    }

    /// `floor(self)`, for an affine `self` (degree at most one); `None` otherwise.
    pub fn floor(&self) -> Option<QuasiPolynomial> {
        if self.degree() > 1 {
            return None;
        }
        let n = self.poly.n_vars();
        let mut coefficients = vec![Rat::zero(); 1 + n];
        for (e, c) in self.poly.terms() {
            match e.iter().position(|&x| x == 1) {
                Some(i) => coefficients[1 + i] = c.clone(),
                None => coefficients[0] = c.clone(),
            }
        }
        let den = coefficients
            .iter()
            .fold(Int::one(), |l, c| l.lcm(c.denom()));
        let num: Vec<Int> = coefficients
            .iter()
            .map(|c| (c * &Rat::from(den.clone())).floor())
            .collect();
        let mut floors = self.floors.clone();
        floors.push(Floor { num, den });
        let poly = Polynomial::var(n + 1, n);
        Some(
            QuasiPolynomial {
                n_params: self.n_params,
                floors,
                poly,
            }
            .normalized(),
        )
    }

    /// The two polynomials over one merged list of floors.
    fn merged(&self, other: &QuasiPolynomial) -> (Polynomial, Polynomial, Vec<Floor>) {
        debug_assert_eq!(self.n_params, other.n_params);
        let p = self.n_params;
        let mut floors = self.floors.clone();
        let mut map: Vec<usize> = (0..p).collect();
        for f in &other.floors {
            let mut num = vec![Int::zero(); 1 + p + floors.len()];
            num[..1 + p].clone_from_slice(&f.num[..1 + p]);
            for (j, c) in f.num[1 + p..].iter().enumerate() {
                num[1 + map[p + j]] += c;
            }
            let at = floors
                .iter()
                .position(|g| g.den == f.den && same_padded(&g.num, &num))
                .unwrap_or_else(|| {
                    floors.push(Floor {
                        num,
                        den: f.den.clone(),
                    });
                    floors.len() - 1
                });
            map.push(p + at);
        }
        let n = p + floors.len();
        let a = self
            .poly
            .remap(n, &(0..self.poly.n_vars()).collect::<Vec<_>>());
        let b = other.poly.remap(n, &map);
        (a, b, floors)
    }

    /// The normal form of the module documentation.
    fn normalized(self) -> QuasiPolynomial {
        let p = self.n_params;
        let width = 1 + p + self.floors.len();
        let mut kept: Vec<Floor> = Vec::new();
        // Each old floor as an affine row over [const | params | kept floors].
        let mut repr: Vec<Vec<Int>> = Vec::new();
        for f in &self.floors {
            let mut num = vec![Int::zero(); width];
            num[..1 + p].clone_from_slice(&f.num[..1 + p]);
            for (j, c) in f.num[1 + p..].iter().enumerate() {
                if !c.is_zero() {
                    for (x, r) in num.iter_mut().zip(&repr[j]) {
                        *x += c * r;
                    }
                }
            }
            let (affine, reduced) = reduce_floor(num, f.den.clone());
            let mut value = affine;
            if let Some((rest, den)) = reduced {
                let at = kept
                    .iter()
                    .position(|g| g.den == den && same_padded(&g.num, &rest))
                    .unwrap_or_else(|| {
                        let mut num = rest;
                        num.truncate(1 + p + kept.len());
                        kept.push(Floor { num, den });
                        kept.len() - 1
                    });
                value[1 + p + at] += Int::one();
            }
            repr.push(value);
        }
        let n = p + kept.len();
        // Where every floor stays a floor, renaming the variables is enough.
        let renamed: Option<Vec<usize>> = repr
            .iter()
            .map(|r| {
                let mut ones = r.iter().enumerate().filter(|(_, c)| !c.is_zero());
                match (ones.next(), ones.next()) {
                    (Some((i, c)), None) if i > p && c.is_one() => Some(i - 1),
                    _ => None,
                }
            })
            .collect();
        let poly = match renamed {
            Some(targets) => {
                let map: Vec<usize> = (0..p).chain(targets).collect();
                self.poly.remap(n, &map)
            }
            None => {
                let values: Vec<Polynomial> = (0..p)
                    .map(|i| Polynomial::var(n, i))
                    .chain(repr.iter().map(|r| Polynomial::affine(n, &r[..1 + n])))
                    .collect();
                self.poly.compose(n, &values)
            }
        };
        reorder(p, kept, poly)
    }
}

/// `floor(num / den)` as an affine part plus a reduced floor `floor(rest / den')`
/// (absent when the floor is affine), `rest`'s coefficients in `[0, den')` and sharing
/// no factor with `den'` on the variables.
fn reduce_floor(num: Vec<Int>, den: Int) -> (Vec<Int>, Option<(Vec<Int>, Int)>) {
    let mut affine = Vec::with_capacity(num.len());
    let mut rest = Vec::with_capacity(num.len());
    for c in &num {
        let q = c.floor_div(&den);
        rest.push(c - &(&q * &den));
        affine.push(q);
    }
    if rest[1..].iter().all(Int::is_zero) {
        // 0 <= rest[0] < den: the floor of the remainder is 0.
        return (affine, None);
    }
    let g = pollen_arith::gcd_slice(&rest[1..]).gcd(&den);
    let mut den = den;
    if !g.is_one() {
        // floor((g·x + c) / (g·d)) = floor((x + floor(c / g)) / d).
        rest[0] = rest[0].floor_div(&g);
        for c in rest[1..].iter_mut() {
            *c = c.exact_div(&g);
        }
        den = den.exact_div(&g);
    }
    (affine, Some((rest, den)))
}

/// Whether `a` and `b` agree, the shorter padded with zeros.
fn same_padded(a: &[Int], b: &[Int]) -> bool {
    let n = a.len().max(b.len());
    (0..n).all(|i| {
        let x = a.get(i).cloned().unwrap_or_else(Int::zero);
        let y = b.get(i).cloned().unwrap_or_else(Int::zero);
        x == y
    })
}

/// Drops the floors that `poly` does not use (directly or through another floor) and
/// orders the rest by nesting depth, then text.
fn reorder(p: usize, floors: Vec<Floor>, poly: Polynomial) -> QuasiPolynomial {
    let k = floors.len();
    let mut used = vec![false; k];
    for (e, _) in poly.terms() {
        for (j, u) in used.iter_mut().enumerate() {
            *u |= e[p + j] > 0;
        }
    }
    for j in (0..k).rev() {
        if used[j] {
            for (i, c) in floors[j].num[1 + p..].iter().enumerate() {
                used[i] |= !c.is_zero();
            }
        }
    }
    // Depths and texts, with generic parameter names (the order does not depend on them).
    let mut names: Vec<String> = (0..p).map(|i| format!("p{i}")).collect();
    let mut depth = vec![0usize; k];
    for (j, f) in floors.iter().enumerate() {
        depth[j] = f.num[1 + p..]
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_zero())
            .map(|(i, _)| depth[i] + 1)
            .max()
            .unwrap_or(0);
        names.push(floor_text(f, &names));
    }
    let mut order: Vec<usize> = (0..k).filter(|&j| used[j]).collect();
    order.sort_by(|&a, &b| {
        depth[a]
            .cmp(&depth[b])
            .then_with(|| names[p + a].cmp(&names[p + b]))
    });
    let mut position = vec![usize::MAX; k];
    for (new, &old) in order.iter().enumerate() {
        position[old] = new;
    }
    let out_floors: Vec<Floor> = order
        .iter()
        .enumerate()
        .map(|(new, &old)| {
            let f = &floors[old];
            let mut num = vec![Int::zero(); 1 + p + new];
            num[..1 + p].clone_from_slice(&f.num[..1 + p]);
            for (i, c) in f.num[1 + p..].iter().enumerate() {
                if !c.is_zero() {
                    num[1 + p + position[i]] = c.clone();
                }
            }
            Floor {
                num,
                den: f.den.clone(),
            }
        })
        .collect();
    let n = p + order.len();
    // Unused floors do not occur in the polynomial: any target will do for them.
    let map: Vec<usize> = (0..p)
        .chain((0..k).map(|j| if used[j] { p + position[j] } else { 0 }))
        .collect();
    QuasiPolynomial {
        n_params: p,
        floors: out_floors,
        poly: poly.remap(n, &map),
    }
}

/// iscc's text of a floor: `floor((1 + N)/2)`.
fn floor_text(f: &Floor, names: &[String]) -> String {
    let n = f.num.len() - 1;
    let e = Polynomial::affine(n, &f.num);
    format!("floor(({})/{})", polynomial_text(&e, &names[..n]), f.den)
}

/// The names of the polynomial's variables: the parameters, then the floors' texts.
fn floor_names(q: &QuasiPolynomial, params: &[String]) -> Vec<String> {
    let mut names = params.to_vec();
    for f in &q.floors {
        let text = floor_text(f, &names);
        names.push(text);
    }
    names
}

/// iscc's text of a quasi-polynomial in named parameters.
pub(crate) fn quasi_text(q: &QuasiPolynomial, params: &[String]) -> String {
    polynomial_text(&q.poly, &floor_names(q, params))
}

impl fmt::Display for QuasiPolynomial {
    /// iscc's form, with parameters `p0, p1, …`; see [`PwQPolynomial`]'s printer for
    /// named ones.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = (0..self.n_params).map(|i| format!("p{i}")).collect();
        f.write_str(&quasi_text(self, &names))
    }
}

/// A value that may be infinite: a piecewise quasi-polynomial's value at a point
/// (`Extended<Rat>`) or a count (`Extended<Int>`). [`Extended::Infinity`] is
/// barvinok's `infty`, the number of points of an unbounded set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extended<T> {
    /// A finite value.
    Finite(T),
    /// Positive infinity.
    Infinity,
}

impl<T> Extended<T> {
    /// The finite value; `None` for infinity.
    pub fn finite(self) -> Option<T> {
        match self {
            Extended::Finite(v) => Some(v),
            Extended::Infinity => None,
        }
    }

    /// Whether this is infinity.
    pub fn is_infinite(&self) -> bool {
        matches!(self, Extended::Infinity)
    }
}

impl<T: fmt::Display> fmt::Display for Extended<T> {
    /// The finite value, or `infty` as barvinok writes infinity.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Extended::Finite(v) => v.fmt(f),
            Extended::Infinity => f.write_str(INFTY),
        }
    }
}

/// barvinok's spelling of infinity.
const INFTY: &str = "infty";

/// A piecewise quasi-polynomial: the value at a point of its domain space is the
/// quasi-polynomial of the piece whose domain holds it, infinity on its infinite
/// domain, and zero elsewhere. The domain space is a parameter space (the number of
/// points of a set, barvinok's `[N] -> { (1 + floor((N)/2)) : N >= 0 }`) or a set
/// space (the number of range points of a map per domain point, iscc's
/// `[N] -> { [i] -> i : 0 < i < N }`); the quasi-polynomials' variables are the
/// parameters, then the dimensions of the domain space.
///
/// # Invariants
/// The piece domains and the infinite domain live in `space`, a parameter or set
/// space, and are pairwise disjoint; every quasi-polynomial has
/// `space.n_params() + space.n_dims()` variables and is not zero.
#[derive(Clone, Debug)]
pub struct PwQPolynomial {
    space: Space,
    pieces: Vec<(Set, QuasiPolynomial)>,
    infinite: Set,
}

impl PwQPolynomial {
    /// Zero everywhere, as a function of the parameters.
    pub fn zero(params: Vec<String>) -> PwQPolynomial {
        let space = Space::params(params);
        PwQPolynomial {
            infinite: Set::empty(space.clone()),
            space,
            pieces: Vec::new(),
        }
    }

    /// Zero everywhere on a parameter or set space; [`Error::Unsupported`] for a map
    /// space.
    pub fn zero_on(space: Space) -> Result<PwQPolynomial> {
        if space.is_map() {
            return Err(Error::Unsupported(format!(
                "a piecewise quasi-polynomial on the map space {space}"
            )));
        }
        Ok(PwQPolynomial {
            infinite: Set::empty(space.clone()),
            space,
            pieces: Vec::new(),
        })
    }

    /// Infinity everywhere on a parameter or set space (the count of a set that is
    /// unbounded for every value of its parameters).
    pub fn infinity_on(space: Space) -> Result<PwQPolynomial> {
        let mut out = PwQPolynomial::zero_on(space)?;
        out.infinite = Set::universe(out.space.clone());
        Ok(out)
    }

    /// The parameters.
    pub fn params(&self) -> &[String] {
        self.space.param_names()
    }

    /// The domain space: a parameter space, or a set space whose dimensions follow the
    /// parameters among the quasi-polynomials' variables.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The names of the quasi-polynomials' variables as printed: the parameters, then
    /// the domain's dimensions (`i0, i1, …` where a dimension has no name or its name
    /// is taken).
    pub fn variable_names(&self) -> Vec<String> {
        variable_names(&self.space)
    }

    /// The finite pieces: disjoint domains and their quasi-polynomials.
    pub fn pieces(&self) -> &[(Set, QuasiPolynomial)] {
        &self.pieces
    }

    /// Where the value is infinite (disjoint from the pieces' domains).
    pub fn infinite_domain(&self) -> &Set {
        &self.infinite
    }

    /// The same function as a piecewise polynomial in the parameters, when it is
    /// finite, of the parameters alone, and no piece has a floor.
    pub fn to_polynomial(&self) -> Option<PwPolynomial> {
        if !self.space.is_params() || !self.infinite.as_map().is_obviously_empty() {
            return None;
        }
        let mut pieces = Vec::new();
        for (d, q) in &self.pieces {
            pieces.push((d.clone(), q.to_polynomial()?));
        }
        Some(PwPolynomial::from_pieces(self.params().to_vec(), pieces))
    }

    /// The value at a point of the domain space (the parameters' values, then the
    /// dimensions'): infinity on the infinite domain, zero outside every piece.
    pub fn value(&self, point: &[Int]) -> Result<Extended<Rat>> {
        self.check_arity(point)?;
        if self.infinite.contains_point(point)? {
            return Ok(Extended::Infinity);
        }
        for (domain, q) in &self.pieces {
            if domain.contains_point(point)? {
                return Ok(Extended::Finite(q.eval(point)));
            }
        }
        Ok(Extended::Finite(Rat::zero()))
    }

    /// The value at a point, which must be an integer or infinity (a count).
    pub fn eval(&self, point: &[Int]) -> Result<Extended<Int>> {
        match self.value(point)? {
            Extended::Infinity => Ok(Extended::Infinity),
            Extended::Finite(v) if v.is_integer() => Ok(Extended::Finite(v.floor())),
            Extended::Finite(v) => Err(Error::Unsupported(format!(
                "a count that is not an integer ({v}) at {point:?}"
            ))),
        }
    }

    fn check_arity(&self, point: &[Int]) -> Result<()> {
        let n = self.space.n_dims();
        if point.len() == n {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "evaluating a function of {n} variables at {} values",
                point.len()
            )))
        }
    }

    /// `self + other`, pointwise (the same domain space, parameters by name);
    /// infinity absorbs every finite value.
    pub fn add_with(&self, other: &PwQPolynomial, budget: &mut Budget) -> Result<PwQPolynomial> {
        if self.space != other.space {
            return Err(Error::Unsupported(format!(
                "adding counts over different spaces {} and {}",
                self.space, other.space
            )));
        }
        let mut out = self.clone();
        if !other.infinite.as_map().is_obviously_empty() {
            out.add_infinite(other.infinite.clone(), budget)?;
        }
        for (d, q) in &other.pieces {
            out.add_piece(d.clone(), q.clone(), budget)?;
        }
        Ok(out)
    }

    /// Adds `(domain, q)` to disjoint pieces, keeping them disjoint: the overlaps get
    /// the sum of the quasi-polynomials, and the infinite domain stays infinite.
    pub(crate) fn add_piece(
        &mut self,
        domain: Set,
        q: QuasiPolynomial,
        budget: &mut Budget,
    ) -> Result<()> {
        let mut rest = domain;
        if !self.infinite.as_map().is_obviously_empty() {
            rest = Set::from_map(
                rest.as_map()
                    .subtract_with(self.infinite.as_map(), budget)?,
            )?;
        }
        let mut out = Vec::new();
        for (d, old) in std::mem::take(&mut self.pieces) {
            budget.tick(1)?;
            let both = d.intersect(&rest)?;
            if both.is_empty_with(budget)? {
                out.push((d, old));
                continue;
            }
            let only_old = Set::from_map(d.as_map().subtract_with(rest.as_map(), budget)?)?;
            if !only_old.is_empty_with(budget)? {
                out.push((only_old, old.clone()));
            }
            let sum = old.add(&q);
            if !sum.is_zero() {
                out.push((both.clone(), sum));
            }
            rest = Set::from_map(rest.as_map().subtract_with(both.as_map(), budget)?)?;
        }
        if !q.is_zero() && !rest.is_empty_with(budget)? {
            out.push((rest, q));
        }
        self.pieces = out;
        Ok(())
    }

    /// Makes the value infinite on `domain` (in the domain space).
    pub(crate) fn add_infinite(&mut self, domain: Set, budget: &mut Budget) -> Result<()> {
        if domain.is_empty_with(budget)? {
            return Ok(());
        }
        let mut out = Vec::new();
        for (d, q) in std::mem::take(&mut self.pieces) {
            budget.tick(1)?;
            let rest = Set::from_map(d.as_map().subtract_with(domain.as_map(), budget)?)?;
            if !rest.is_empty_with(budget)? {
                out.push((rest, q));
            }
        }
        self.pieces = out;
        self.infinite = self.infinite.union(&domain)?.simplify_with(budget)?;
        Ok(())
    }

    /// The same function on another domain space with as many variables (parameters
    /// and dimensions together), taken in the same order: how the count of a map's
    /// range, computed with the domain's dimensions as parameters, gets its domain
    /// tuple.
    pub(crate) fn on_space(self, space: Space) -> Result<PwQPolynomial> {
        let mut pieces = Vec::with_capacity(self.pieces.len());
        for (d, q) in self.pieces {
            pieces.push((respaced(&d, &space)?, q));
        }
        Ok(PwQPolynomial {
            infinite: respaced(&self.infinite, &space)?,
            space,
            pieces,
        })
    }
}

/// `set` with the same constraints over the same columns in `space`, which has as
/// many parameters and dimensions together (moving the domain's dimensions between
/// parameters and tuple).
fn respaced(set: &Set, space: &Space) -> Result<Set> {
    let parts = set
        .as_map()
        .basic_maps()
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b.set_space(space.clone());
            b
        })
        .collect();
    Set::from_map(Map::from_parts(space.clone(), parts)?)
}

/// The names of the variables of a function on `space`: the parameters, then the
/// tuple's dimensions, each its own name where it has one that is not taken, `i<k>`
/// (or `i<k>_<m>`) otherwise.
pub(crate) fn variable_names(space: &Space) -> Vec<String> {
    let mut names = space.param_names().to_vec();
    let dims: Vec<Option<String>> = match space.range_tuple() {
        Some(t) => t.dim_names().to_vec(),
        None => Vec::new(),
    };
    for (k, name) in dims.into_iter().enumerate() {
        let mut candidate = name.unwrap_or_else(|| format!("i{k}"));
        let mut extra = 0;
        while names.contains(&candidate) {
            candidate = format!("i{k}_{extra}");
            extra += 1;
        }
        names.push(candidate);
    }
    names
}

impl From<PwPolynomial> for PwQPolynomial {
    fn from(p: PwPolynomial) -> PwQPolynomial {
        let mut out = PwQPolynomial::zero(p.params().to_vec());
        out.pieces = p
            .pieces()
            .iter()
            .map(|(d, q)| (d.clone(), QuasiPolynomial::from_polynomial(q.clone())))
            .collect();
        out
    }
}

/// The condition of a domain of a function on `space` as iscc prints it, over the
/// variable names `names`; `None` when it always holds.
fn condition_text(domain: &Set, names: &[String]) -> Result<Option<String>> {
    let flat = respaced(domain, &Space::params(names.to_vec()))?;
    let text = flat.to_string();
    Ok(text
        .find(": ")
        .and_then(|at| text[at + 2..].strip_suffix(" }"))
        .map(str::to_string))
}

/// The tuple of a function on a set space as printed before each value (`[i] -> `,
/// `S[i, j] -> `), over the dimensions' names; empty for a parameter space.
fn tuple_text(space: &Space, dim_names: &[String]) -> String {
    match space.range_tuple() {
        Some(t) => format!("{} -> ", nested_tuple_text(t, dim_names)),
        None => String::new(),
    }
}

/// `name[a, b]`, or for a wrapped tuple `name[dom -> ran]` with the halves printed
/// alike, over the dimension names `dim_names`.
fn nested_tuple_text(t: &Tuple, dim_names: &[String]) -> String {
    let inner = match t.nested() {
        Some((domain, range)) => {
            let (left, right) = dim_names.split_at(domain.n_dims());
            format!(
                "{} -> {}",
                nested_tuple_text(domain, left),
                nested_tuple_text(range, right)
            )
        }
        None => dim_names.join(", "),
    };
    format!("{}[{inner}]", t.name().unwrap_or_default())
}

/// A printed piece value: `(text, whether it needs parentheses)`.
pub(crate) type ValueText = (String, bool);

/// iscc's text of a piecewise function on `space` (variables named `names`): finite
/// pieces `value : condition`, then `infty : condition` on `infinite` (when given and
/// not empty).
pub(crate) fn pieces_text(
    space: &Space,
    names: &[String],
    pieces: &[(&Set, ValueText)],
    infinite: Option<&Set>,
) -> Result<String> {
    let entries = piece_entries(space, names, pieces, infinite)?;
    Ok(format!(
        "{}{{ {} }}",
        params_prefix(space.param_names()),
        entries.join("; ")
    ))
}

/// `[N, M] -> ` (nothing without parameters).
pub(crate) fn params_prefix(params: &[String]) -> String {
    if params.is_empty() {
        String::new()
    } else {
        format!("[{}] -> ", params.join(", "))
    }
}

/// The pieces of [`pieces_text`] between the braces, one text per piece (`tuple 0`
/// alone when there is none).
pub(crate) fn piece_entries(
    space: &Space,
    names: &[String],
    pieces: &[(&Set, ValueText)],
    infinite: Option<&Set>,
) -> Result<Vec<String>> {
    let params = space.param_names();
    let tuple = tuple_text(space, &names[params.len()..]);
    let mut out = Vec::new();
    let mut piece = |value: String, domain: &Set| -> Result<()> {
        out.push(match condition_text(domain, names)? {
            Some(c) => format!("{tuple}{value} : {c}"),
            None => format!("{tuple}{value}"),
        });
        Ok(())
    };
    for (domain, (text, several_terms)) in pieces {
        let value = if *several_terms || text.starts_with('-') {
            format!("({text})")
        } else {
            text.clone()
        };
        piece(value, domain)?;
    }
    if let Some(domain) = infinite.filter(|d| !d.as_map().is_obviously_empty()) {
        piece(INFTY.to_string(), domain)?;
    }
    if out.is_empty() {
        out.push(format!("{tuple}0"));
    }
    Ok(out)
}

impl PwQPolynomial {
    /// The printed pieces between the braces (see the `Display` form).
    pub(crate) fn entries(&self) -> Result<Vec<String>> {
        let names = self.variable_names();
        let pieces: Vec<(&Set, ValueText)> = self
            .pieces
            .iter()
            .map(|(d, q)| (d, (quasi_text(q, &names), q.poly.terms().count() > 1)))
            .collect();
        piece_entries(&self.space, &names, &pieces, Some(&self.infinite))
    }
}

impl fmt::Display for PwQPolynomial {
    /// iscc's form: `[N] -> { (1 + floor((N)/2)) : N >= 0 }`, `{ 6 }`, `{ 0 }`,
    /// `{ infty }`, and on a set space `[N] -> { [i] -> i : 0 < i < N }`,
    /// `{ [i] -> 0 }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries = self.entries().map_err(|_| fmt::Error)?;
        write!(
            f,
            "{}{{ {} }}",
            params_prefix(self.space.param_names()),
            entries.join("; ")
        )
    }
}

impl std::str::FromStr for PwQPolynomial {
    type Err = Error;

    /// Reads iscc's form, as printed: `[N] -> { (1 + floor((N)/2)) : N >= 0 }`, or
    /// with a domain tuple before every value, `[N] -> { [i] -> i : 0 < i < N }`. A
    /// piece is a quasi-polynomial (integers, parameters and domain dimensions,
    /// `floor(…)` of an affine expression, `+ - *`, `/` by a constant, `^` with a
    /// constant exponent, parentheses) or `infty`, and an optional `: condition` in
    /// isl syntax. The pieces must be disjoint, as a printed value's are; where they
    /// overlap, the first holds.
    fn from_str(text: &str) -> Result<PwQPolynomial> {
        let read = parse_pieces(
            text,
            Syntax {
                floors: true,
                domains: true,
            },
        )?;
        let mut out = PwQPolynomial::zero_on(read.space)?;
        for (domain, value) in read.pieces {
            match value {
                Some(q) => out.pieces.push((domain, q)),
                None => out.infinite = out.infinite.union(&domain)?,
            }
        }
        Ok(out)
    }
}

/// What a reader of iscc's piecewise form accepts beyond polynomials in the
/// parameters.
#[derive(Clone, Copy)]
pub(crate) struct Syntax {
    /// `floor(…)`.
    pub floors: bool,
    /// A domain tuple before the values (`[i] -> …`) and the value `infty`.
    pub domains: bool,
}

/// A piecewise function as read: its domain space and its disjoint pieces, `None`
/// standing for `infty`.
pub(crate) struct ReadPieces {
    pub space: Space,
    pub pieces: Vec<(Set, Option<QuasiPolynomial>)>,
}

/// The byte offset of the first `->` of `text` outside brackets.
pub(super) fn top_level_arrow(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (k, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '-' if depth == 0 && text[k + 1..].starts_with('>') => return Some(k),
            _ => {}
        }
    }
    None
}

/// A domain tuple `name[d0, d1]` (name optional), or a wrapped one
/// `name[[a] -> [b]]` whose halves are read alike, over the parameters `params`; or an
/// error (byte offset in `text`, message).
pub(super) fn parse_tuple(
    text: &str,
    params: &[String],
) -> std::result::Result<Tuple, (usize, String)> {
    let mut seen = Vec::new();
    parse_tuple_at(text, 0, params, &mut seen)
}

/// [`parse_tuple`] of `text`, which starts at byte `base` of the piece; `seen` holds the
/// dimension names read so far (no two may agree).
fn parse_tuple_at(
    text: &str,
    base: usize,
    params: &[String],
    seen: &mut Vec<String>,
) -> std::result::Result<Tuple, (usize, String)> {
    let lead = base + text.len() - text.trim_start().len();
    let body = text.trim();
    let open = body.find('[').ok_or((
        lead,
        "expected a domain tuple '[…]' before '->'".to_string(),
    ))?;
    let name = body[..open].trim();
    let is_identifier = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\'')
    };
    if !name.is_empty() && !is_identifier(name) {
        return Err((lead, format!("expected a tuple name, found '{name}'")));
    }
    let name = (!name.is_empty()).then(|| name.to_string());
    let inner = body[open + 1..].strip_suffix(']').ok_or((
        lead + body.len(),
        "expected ']' closing the domain tuple".to_string(),
    ))?;
    let inner_at = lead + open + 1;
    if let Some(arrow) = top_level_arrow(inner) {
        let domain = parse_tuple_at(&inner[..arrow], inner_at, params, seen)?;
        let range = parse_tuple_at(&inner[arrow + 2..], inner_at + arrow + 2, params, seen)?;
        return Ok(Tuple::wrapped(name, domain, range));
    }
    let mut dims: Vec<Option<String>> = Vec::new();
    if !inner.trim().is_empty() {
        let mut at = inner_at;
        for dim in inner.split(',') {
            let d = dim.trim();
            let offset = at + dim.len() - dim.trim_start().len();
            if !is_identifier(d) {
                return Err((offset, format!("expected a dimension name, found '{d}'")));
            }
            if seen.iter().any(|x| x == d) {
                return Err((offset, format!("duplicate dimension '{d}'")));
            }
            if params.iter().any(|p| p == d) {
                return Err((
                    offset,
                    format!("the domain dimension '{d}' is named like a parameter"),
                ));
            }
            seen.push(d.to_string());
            dims.push(Some(d.to_string()));
            at += dim.len() + 1;
        }
    }
    Ok(Tuple::with_names(name, dims))
}

/// The domain space and the disjoint pieces of iscc's piecewise form.
pub(crate) fn parse_pieces(text: &str, syntax: Syntax) -> Result<ReadPieces> {
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
    if close < open {
        return Err(err(close, "expected '{' before '}'"));
    }
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
    // The domain space, from the first piece.
    let mut space: Option<Space> = None;
    let mut read: Vec<(Set, Option<QuasiPolynomial>)> = Vec::new();
    let body_start = open + 1;
    for (start, piece) in split_top(&text[body_start..close], ';') {
        let at = body_start + start;
        if piece.trim().is_empty() {
            continue;
        }
        // The value, then everything after the first top-level ':' as the condition.
        let parts = split_top(piece, ':');
        let value_text = parts[0].1;
        let condition = parts.get(1).map(|&(c_at, _)| (c_at, &piece[c_at..]));
        // An optional domain tuple before the value.
        let (value_at, value_text, piece_space) = match top_level_arrow(value_text) {
            Some(arrow) => {
                if !syntax.domains {
                    return Err(err(at, "a domain tuple in a polynomial of the parameters"));
                }
                let tuple =
                    parse_tuple(&value_text[..arrow], &params).map_err(|(k, m)| err(at + k, &m))?;
                (
                    arrow + 2,
                    &value_text[arrow + 2..],
                    Space::set(params.clone(), tuple),
                )
            }
            None => (0, value_text, Space::params(params.clone())),
        };
        let function_space = match &space {
            None => piece_space.clone(),
            Some(s) if *s == piece_space => s.clone(),
            Some(s) => {
                return Err(err(
                    at,
                    &format!("a piece over {piece_space} in a function over {s}"),
                ))
            }
        };
        space = Some(function_space.clone());
        let names = variable_names(&piece_space);
        let value = if value_text.trim() == INFTY {
            if !syntax.domains {
                return Err(err(at + value_at, "infinity ('infty') in a polynomial"));
            }
            None
        } else {
            let q = QuasiParser {
                text: value_text,
                at: 0,
                params: &names,
                floors: syntax.floors,
                depth: 0,
            }
            .parse()
            .map_err(|(k, m)| err(at + value_at + k, &m))?;
            Some(q)
        };
        let domain = read_condition(&names, condition, &function_space).map_err(|e| match e {
            ConditionError::At(k, m) => err(at + k, &m),
            ConditionError::Other(e) => e,
        })?;
        // Later pieces only where the earlier do not hold.
        let mut rest = domain;
        for (d, _) in &read {
            rest = Set::from_map(rest.as_map().subtract(d.as_map())?)?;
        }
        let zero = value.as_ref().is_some_and(QuasiPolynomial::is_zero);
        if !zero && !rest.is_empty()? {
            read.push((rest, value));
        }
    }
    Ok(ReadPieces {
        space: space.unwrap_or_else(|| Space::params(params)),
        pieces: read,
    })
}

/// Why a piece's condition could not be read.
enum ConditionError {
    /// A syntax error at a byte offset of the piece.
    At(usize, String),
    /// Another error of the set reader.
    Other(Error),
}

/// The domain of a piece in `space`: `condition` (its byte offset in the piece and
/// its text from the `:` on) over the variables `names`, or the whole space.
fn read_condition(
    names: &[String],
    condition: Option<(usize, &str)>,
    space: &Space,
) -> std::result::Result<Set, ConditionError> {
    let head = format!("[{}] -> {{ : ", names.join(", "));
    let domain_text = format!("{head}{} }}", condition.map_or("true", |(_, c)| c));
    let flat = crate::text::parse_set(&domain_text).map_err(|e| match (e, condition) {
        (
            Error::Parse {
                line,
                column,
                message,
            },
            Some((c_at, c)),
        ) => ConditionError::At(condition_offset(&head, c, line, column) + c_at, message),
        (
            Error::UnsupportedSyntax {
                line,
                column,
                construct,
            },
            Some((c_at, c)),
        ) => ConditionError::At(
            condition_offset(&head, c, line, column) + c_at,
            format!("unsupported: {construct}"),
        ),
        (e, _) => ConditionError::Other(e),
    })?;
    if !flat.space().is_params() {
        return Err(ConditionError::At(
            condition.map_or(0, |(c_at, _)| c_at),
            "expected a condition on the variables, not a tuple".into(),
        ));
    }
    respaced(&flat, space).map_err(ConditionError::Other)
}

/// The byte offset in the condition `c` of a reader's position (1-based line and
/// column, in characters) in `head` followed by `c`.
fn condition_offset(head: &str, c: &str, line: usize, column: usize) -> usize {
    if line <= 1 {
        let chars = column
            .saturating_sub(1)
            .saturating_sub(head.chars().count());
        return c.char_indices().nth(chars).map_or(c.len(), |(k, _)| k);
    }
    // A later line of the condition.
    let mut offset = 0;
    for (n, l) in c.split_inclusive('\n').enumerate() {
        if n + 1 == line {
            let chars = column.saturating_sub(1);
            return offset + l.char_indices().nth(chars).map_or(l.len(), |(k, _)| k);
        }
        offset += l.len();
    }
    c.len()
}

/// A recursive-descent reader of a quasi-polynomial in named parameters. Errors are
/// (byte offset, message).
struct QuasiParser<'a> {
    text: &'a str,
    at: usize,
    params: &'a [String],
    floors: bool,
    /// Open parentheses, floors and signs around the current position.
    depth: usize,
}

/// The deepest nesting of parentheses, floors and signs a reader accepts.
const MAX_NESTING: usize = 200;

/// The most term products one multiplication of a reader may form (a resource limit:
/// powers of sums grow fast).
const MAX_PRODUCT_TERMS: usize = 100_000;

type QuasiResult = std::result::Result<QuasiPolynomial, (usize, String)>;

impl QuasiParser<'_> {
    fn parse(mut self) -> QuasiResult {
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

    fn sum(&mut self) -> QuasiResult {
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

    /// `p · q`, within the degree and size limits (an error at `at` otherwise).
    fn times(p: &QuasiPolynomial, q: &QuasiPolynomial, at: usize) -> QuasiResult {
        if p.degree().saturating_add(q.degree()) > MAX_DEGREE {
            return Err((at, format!("a degree above {MAX_DEGREE}")));
        }
        let work = p.poly.terms().count() * q.poly.terms().count();
        if work > MAX_PRODUCT_TERMS {
            return Err((
                at,
                format!("a product of more than {MAX_PRODUCT_TERMS} terms"),
            ));
        }
        Ok(p.mul(q))
    }

    /// Runs `read` one nesting level deeper, within [`MAX_NESTING`].
    fn nested(&mut self, read: impl FnOnce(&mut Self) -> QuasiResult) -> QuasiResult {
        if self.depth >= MAX_NESTING {
            return Err((self.at, format!("nesting deeper than {MAX_NESTING}")));
        }
        self.depth += 1;
        let out = read(self);
        self.depth -= 1;
        out
    }

    fn product(&mut self) -> QuasiResult {
        let mut p = self.unary()?;
        loop {
            if self.eat('*') {
                let q = self.unary()?;
                p = Self::times(&p, &q, self.at)?;
            } else if self.eat('/') {
                self.skip();
                let at = self.at;
                let d = self.unary()?;
                let constant = d.degree() == 0;
                let value = d.poly.terms().next().map(|(_, c)| c.clone());
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

    fn unary(&mut self) -> QuasiResult {
        if self.eat('-') {
            return Ok(self.nested(Self::unary)?.scale(&Rat::from(-1)));
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
            if base.degree().saturating_mul(k) > MAX_DEGREE {
                return Err((start, format!("a degree above {MAX_DEGREE}")));
            }
            let mut power = QuasiPolynomial::constant(self.params.len(), Rat::one());
            for _ in 0..k {
                power = Self::times(&power, &base, start)?;
            }
            return Ok(power);
        }
        Ok(base)
    }

    fn atom(&mut self) -> QuasiResult {
        self.skip();
        let n = self.params.len();
        let rest = &self.text[self.at..];
        let start = self.at;
        if self.eat('(') {
            let p = self.nested(Self::sum)?;
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
            let c = QuasiPolynomial::constant(n, Rat::from(v));
            // isl's juxtaposition `2N`, `3floor(N/2)`.
            let next = self.text[self.at..].chars().next();
            if next.is_some_and(|c| c.is_ascii_alphabetic() || c == '_') {
                let factor = self.atom()?;
                return Self::times(&c, &factor, start);
            }
            return Ok(c);
        }
        let word = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '\'')
            .count();
        if word > 0 {
            let name = &rest[..word];
            self.at += word;
            if let Some(k) = self.params.iter().position(|p| p == name) {
                return Ok(QuasiPolynomial::from_polynomial(Polynomial::var(n, k)));
            }
            if name == INFTY {
                return Err((
                    start,
                    format!("'{INFTY}' only as the whole value of a piece"),
                ));
            }
            if name == "floor" && self.text[self.at..].trim_start().starts_with('(') {
                if !self.floors {
                    return Err((start, "a floor in a polynomial".into()));
                }
                self.eat('(');
                let inner_at = self.at;
                let inner = self.nested(Self::sum)?;
                if !self.eat(')') {
                    return Err((self.at, "expected ')'".into()));
                }
                return inner
                    .floor()
                    .ok_or((inner_at, "a floor of a non-affine expression".into()));
            }
            return Err((start, format!("unknown parameter '{name}'")));
        }
        Err((start, "expected a number, a parameter or '('".into()))
    }
}
