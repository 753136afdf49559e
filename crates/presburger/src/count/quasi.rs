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
use crate::set::Set;

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
fn variable_names(q: &QuasiPolynomial, params: &[String]) -> Vec<String> {
    let mut names = params.to_vec();
    for f in &q.floors {
        let text = floor_text(f, &names);
        names.push(text);
    }
    names
}

/// iscc's text of a quasi-polynomial in named parameters.
pub(crate) fn quasi_text(q: &QuasiPolynomial, params: &[String]) -> String {
    polynomial_text(&q.poly, &variable_names(q, params))
}

impl fmt::Display for QuasiPolynomial {
    /// iscc's form, with parameters `p0, p1, …`; see [`PwQPolynomial`]'s printer for
    /// named ones.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = (0..self.n_params).map(|i| format!("p{i}")).collect();
        f.write_str(&quasi_text(self, &names))
    }
}

/// A piecewise quasi-polynomial in the parameters: the value at a parameter point is
/// the quasi-polynomial of the piece whose domain holds it, zero outside every piece
/// (the domains are disjoint). The form of barvinok's `card`.
#[derive(Clone, Debug)]
pub struct PwQPolynomial {
    params: Vec<String>,
    pieces: Vec<(Set, QuasiPolynomial)>,
}

impl PwQPolynomial {
    /// Zero everywhere.
    pub fn zero(params: Vec<String>) -> PwQPolynomial {
        PwQPolynomial {
            params,
            pieces: Vec::new(),
        }
    }

    /// The parameters, in the order of the quasi-polynomials' parameters.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// The pieces: disjoint parameter domains and their quasi-polynomials.
    pub fn pieces(&self) -> &[(Set, QuasiPolynomial)] {
        &self.pieces
    }

    /// The same function as a piecewise polynomial, when no piece has a floor.
    pub fn to_polynomial(&self) -> Option<PwPolynomial> {
        let mut pieces = Vec::new();
        for (d, q) in &self.pieces {
            pieces.push((d.clone(), q.to_polynomial()?));
        }
        Some(PwPolynomial::from_pieces(self.params.clone(), pieces))
    }

    /// The value at a parameter point (zero outside every piece).
    pub fn value(&self, params: &[Int]) -> Result<Rat> {
        self.check_arity(params)?;
        for (domain, q) in &self.pieces {
            if domain.contains_point(params)? {
                return Ok(q.eval(params));
            }
        }
        Ok(Rat::zero())
    }

    /// The value at a parameter point, which must be an integer (a count).
    pub fn eval(&self, params: &[Int]) -> Result<Int> {
        let v = self.value(params)?;
        if v.is_integer() {
            Ok(v.floor())
        } else {
            Err(Error::Unsupported(format!(
                "a count that is not an integer ({v}) at {params:?}"
            )))
        }
    }

    fn check_arity(&self, params: &[Int]) -> Result<()> {
        if params.len() == self.params.len() {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "evaluating a function of {} parameters at {} values",
                self.params.len(),
                params.len()
            )))
        }
    }

    /// `self + other`, pointwise (the same parameters, by name).
    pub fn add_with(&self, other: &PwQPolynomial, budget: &mut Budget) -> Result<PwQPolynomial> {
        if self.params != other.params {
            return Err(Error::Unsupported(format!(
                "adding counts over different parameters [{}] and [{}]",
                self.params.join(", "),
                other.params.join(", ")
            )));
        }
        let mut out = self.clone();
        for (d, q) in &other.pieces {
            out.add_piece(d.clone(), q.clone(), budget)?;
        }
        Ok(out)
    }

    /// Adds `(domain, q)` to disjoint pieces, keeping them disjoint: the overlaps get
    /// the sum of the quasi-polynomials.
    pub(crate) fn add_piece(
        &mut self,
        domain: Set,
        q: QuasiPolynomial,
        budget: &mut Budget,
    ) -> Result<()> {
        let mut rest = domain;
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
}

impl From<PwPolynomial> for PwQPolynomial {
    fn from(p: PwPolynomial) -> PwQPolynomial {
        PwQPolynomial {
            params: p.params().to_vec(),
            pieces: p
                .pieces()
                .iter()
                .map(|(d, q)| (d.clone(), QuasiPolynomial::from_polynomial(q.clone())))
                .collect(),
        }
    }
}

/// iscc's text of pieces `value : condition` in named parameters.
pub(crate) fn pieces_text(params: &[String], pieces: &[(&Set, String, bool)]) -> String {
    let prefix = if params.is_empty() {
        String::new()
    } else {
        format!("[{}] -> ", params.join(", "))
    };
    if pieces.is_empty() {
        return format!("{prefix}{{ 0 }}");
    }
    let mut out = Vec::new();
    for (domain, text, several_terms) in pieces {
        let value = if *several_terms || text.starts_with('-') {
            format!("({text})")
        } else {
            text.clone()
        };
        let d = domain.to_string();
        let condition = d
            .find(": ")
            .and_then(|at| d[at + 2..].strip_suffix(" }"))
            .map(str::to_string);
        out.push(match condition {
            Some(c) => format!("{value} : {c}"),
            None => value,
        });
    }
    format!("{prefix}{{ {} }}", out.join("; "))
}

impl fmt::Display for PwQPolynomial {
    /// iscc's form: `[N] -> { (1 + floor((N)/2)) : N >= 0 }`, `{ 6 }`, `{ 0 }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pieces: Vec<(&Set, String, bool)> = self
            .pieces
            .iter()
            .map(|(d, q)| (d, quasi_text(q, &self.params), q.poly.terms().count() > 1))
            .collect();
        f.write_str(&pieces_text(&self.params, &pieces))
    }
}

impl std::str::FromStr for PwQPolynomial {
    type Err = Error;

    /// Reads iscc's form, as printed: `[N] -> { (1 + floor((N)/2)) : N >= 0 }`. A
    /// piece is a quasi-polynomial (integers, parameters, `floor(…)` of an affine
    /// expression, `+ - *`, `/` by a constant, `^` with a constant exponent,
    /// parentheses) and an optional `: condition` on the parameters in isl syntax. The
    /// pieces must be disjoint, as a printed value's are; where they overlap, the first
    /// holds.
    fn from_str(text: &str) -> Result<PwQPolynomial> {
        let (params, pieces) = parse_pieces(text, true)?;
        Ok(PwQPolynomial { params, pieces })
    }
}

/// Parameter domains and their quasi-polynomials.
pub(crate) type Pieces = Vec<(Set, QuasiPolynomial)>;

/// The parameters and the disjoint pieces of iscc's piecewise form; `floor` is read
/// only when `floors` is set.
pub(crate) fn parse_pieces(text: &str, floors: bool) -> Result<(Vec<String>, Pieces)> {
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
    let mut pieces: Vec<(Set, QuasiPolynomial)> = Vec::new();
    let body_start = open + 1;
    for (start, piece) in split_top(&text[body_start..close], ';') {
        let at = body_start + start;
        if piece.trim().is_empty() {
            continue;
        }
        let (value_text, condition) = match split_top(piece, ':').as_slice() {
            [(_, p)] => (*p, None),
            [(_, p), (c_at, c)] => (*p, Some((*c_at, *c))),
            _ => return Err(err(at, "expected one ':' in a piece")),
        };
        let value = QuasiParser {
            text: value_text,
            at: 0,
            params: &params,
            floors,
            depth: 0,
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
        let domain = crate::text::parse_set(&domain_text).map_err(|e| match (e, condition) {
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
        for (d, _) in &pieces {
            rest = Set::from_map(rest.as_map().subtract(d.as_map())?)?;
        }
        if !value.is_zero() && !rest.is_empty()? {
            pieces.push((rest, value));
        }
    }
    Ok((params, pieces))
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
