//! Quasi-affine functions and their piecewise forms: isl's `isl_aff`, `isl_multi_aff`,
//! `isl_pw_aff` and `isl_pw_multi_aff`.
//!
//! An [`Aff`] is a function on a *domain space* (a set space or a parameter space) of the
//! form `(c_0 + Σ c_i x_i + Σ d_k q_k) / den`, where the `x_i` are the domain's dimensions
//! (parameters first, then the tuple's dimensions) and every `q_k = floor(num_k / den_k)`
//! is a local floor division of earlier columns. Rows use the layout of
//! [`BasicMap`]: `[const | params | dims | divs]`.
//!
//! A [`MultiAff`] is a tuple of affs over one domain, living in a map space
//! (`domain -> range`) or, when the domain is the parameter space, in a set space.
//! [`PwAff`] and [`PwMultiAff`] attach functions to pieces of the domain.
//!
//! # Invariants
//! - an aff's numerator and every div numerator have `1 + n_dims + n_div` entries; div `k`
//!   references only dimensions and divs before it; all denominators are positive;
//! - the affs of a [`MultiAff`] all live on its domain space, one per range dimension;
//! - the pieces of a [`PwAff`] / [`PwMultiAff`] have pairwise disjoint domains (callers
//!   adding pieces guarantee this; the constructors of this crate do);
//! - evaluation is exact: [`Aff::eval`] answers `None` rather than rounding a value that
//!   is not an integer.
//!
//! `Display` prints isl syntax, e.g. `[N] -> { [i] -> [(N - i)] : 0 <= i <= N }`, with
//! the naming and constraint conventions of the set printer (`crate::text`): known divs
//! inline as `floor((expr)/d)`, existentials of a piece's domain under `exists (...)`.

use std::fmt;

use pollen_arith::{gcd_slice, Int};

use crate::bmap::{normalize_div, BasicMap, DivDef};
use crate::error::{Budget, Error, Result};
use crate::map::{mismatch, Map};
use crate::set::Set;
use crate::space::{Space, Tuple, Tuples};
use crate::text::{affine_to_string, column_names, constraints_to_strings, space_dim_names};

/// A quasi-affine function `(c_0 + Σ c_i x_i + Σ d_k q_k) / den` on a domain space.
///
/// # Invariants
/// See the module documentation: row lengths `1 + n_dims + n_div`, divs over earlier
/// columns, positive denominators.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aff {
    space: Space,
    divs: Vec<DivDef>,
    num: Vec<Int>,
    den: Int,
}

impl Aff {
    /// Builds an aff from its parts, checking the invariants.
    ///
    /// `space` is the domain (a set or parameter space); `num` has the layout
    /// `[const | dims | divs]` and every div numerator has the same length.
    pub fn from_parts(space: Space, divs: Vec<DivDef>, num: Vec<Int>, den: Int) -> Result<Aff> {
        if space.is_map() {
            return Err(Error::Unsupported(
                "the domain of an affine function is a set or parameter space".into(),
            ));
        }
        let nd = space.n_dims();
        let n = 1 + nd + divs.len();
        let bad_div = divs.iter().enumerate().any(|(k, d)| {
            d.num.len() != n
                || !d.den.is_positive()
                || d.num[1 + nd + k..].iter().any(|c| !c.is_zero())
        });
        if num.len() != n || !den.is_positive() || bad_div {
            return Err(Error::Unsupported(
                "malformed affine function: wrong row length or denominator".into(),
            ));
        }
        Ok(Aff {
            space,
            divs,
            num,
            den,
        })
    }

    /// The constant function `value`.
    pub fn constant(space: Space, value: Int) -> Aff {
        let mut num = vec![Int::zero(); 1 + space.n_dims()];
        num[0] = value;
        Aff {
            space,
            divs: Vec::new(),
            num,
            den: Int::one(),
        }
    }

    /// The zero function.
    pub fn zero(space: Space) -> Aff {
        Aff::constant(space, Int::zero())
    }

    /// The function returning dimension `pos` (over all dimensions, parameters first).
    pub fn var(space: Space, pos: usize) -> Result<Aff> {
        if pos >= space.n_dims() {
            return Err(Error::Unsupported(format!(
                "Aff::var: dimension {pos} out of range"
            )));
        }
        let mut a = Aff::zero(space);
        a.num[1 + pos] = Int::one();
        Ok(a)
    }

    /// The domain space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The local floor divisions.
    pub fn divs(&self) -> &[DivDef] {
        &self.divs
    }

    /// The numerator `[const | dims | divs]`.
    pub fn num(&self) -> &[Int] {
        &self.num
    }

    /// The positive denominator.
    pub fn den(&self) -> &Int {
        &self.den
    }

    /// Number of domain dimensions (parameters included).
    pub fn n_dims(&self) -> usize {
        self.space.n_dims()
    }

    /// Number of local divisions.
    pub fn n_div(&self) -> usize {
        self.divs.len()
    }

    /// The constant value, if the function is constant.
    pub fn constant_value(&self) -> Option<Int> {
        if self.num[1..].iter().all(Int::is_zero) && self.den.divides(&self.num[0]) {
            Some(self.num[0].exact_div(&self.den))
        } else {
            None
        }
    }

    /// The values of all columns `[1 | dims | divs]` at an integer point of the domain.
    fn column_values(&self, point: &[Int]) -> Option<Vec<Int>> {
        if point.len() != self.n_dims() {
            return None;
        }
        let mut vals = Vec::with_capacity(self.num.len());
        vals.push(Int::one());
        vals.extend(point.iter().cloned());
        for d in &self.divs {
            let v = dot(&d.num[..vals.len()], &vals);
            vals.push(v.floor_div(&d.den));
        }
        Some(vals)
    }

    /// The value at an integer point (parameters first); `None` when the point has the
    /// wrong length or the value is not an integer.
    pub fn eval(&self, point: &[Int]) -> Option<Int> {
        let vals = self.column_values(point)?;
        let v = dot(&self.num, &vals);
        if self.den.divides(&v) {
            Some(v.exact_div(&self.den))
        } else {
            None
        }
    }

    /// `-self`.
    pub fn neg(&self) -> Aff {
        let mut a = self.clone();
        for c in a.num.iter_mut() {
            *c = -&*c;
        }
        a
    }

    /// `factor · self`.
    pub fn scale(&self, factor: &Int) -> Aff {
        let mut a = self.clone();
        for c in a.num.iter_mut() {
            *c = &*c * factor;
        }
        a.simplify()
    }

    /// `self + other` (same domain space).
    pub fn add(&self, other: &Aff) -> Result<Aff> {
        if self.space != other.space {
            return Err(mismatch("Aff::add", &self.space, &other.space));
        }
        let nd = self.n_dims();
        let (ns, no) = (self.n_div(), other.n_div());
        let n = 1 + nd + ns + no;
        // Columns of `other` move: its divs come after ours.
        let col_of = |c: usize| if c <= nd { c } else { c + ns };
        let widen_self = |row: &[Int]| {
            let mut r = row.to_vec();
            r.resize(n, Int::zero());
            r
        };
        let widen_other = |row: &[Int]| {
            let mut r = vec![Int::zero(); n];
            for (c, v) in row.iter().enumerate() {
                r[col_of(c)] = v.clone();
            }
            r
        };
        let mut divs: Vec<DivDef> = self
            .divs
            .iter()
            .map(|d| DivDef {
                num: widen_self(&d.num),
                den: d.den.clone(),
            })
            .collect();
        divs.extend(other.divs.iter().map(|d| DivDef {
            num: widen_other(&d.num),
            den: d.den.clone(),
        }));
        let a = widen_self(&self.num);
        let b = widen_other(&other.num);
        let num = a
            .iter()
            .zip(&b)
            .map(|(x, y)| x * &other.den + y * &self.den)
            .collect();
        Ok(Aff {
            space: self.space.clone(),
            divs,
            num,
            den: &self.den * &other.den,
        }
        .simplify())
    }

    /// `floor(self)`: the same function when it is integral, expressed with a unit
    /// denominator (a new div holds the division when the denominator is not one).
    pub fn floor(&self) -> Aff {
        if self.den.is_one() {
            return self.clone();
        }
        let mut a = self.clone();
        let def = DivDef {
            num: {
                let mut n = self.num.clone();
                n.push(Int::zero());
                n
            },
            den: self.den.clone(),
        };
        for d in a.divs.iter_mut() {
            d.num.push(Int::zero());
        }
        a.divs.push(def);
        a.num = vec![Int::zero(); a.num.len() + 1];
        let last = a.num.len() - 1;
        a.num[last] = Int::one();
        a.den = Int::one();
        a.simplify()
    }

    /// The same function with simpler divs: a nested `floor((±floor(x/m) + r)/n)` becomes
    /// `floor((±x + m·r + ...)/(m·n))`, integer multiples of the denominator move out of
    /// a div's numerator (`floor((2N)/3) = N + floor(-N/3)`: coefficients end in
    /// `[-d/2, d/2]`, the constant in `(-d, d)`), a div that is then constant or has
    /// denominator one is substituted, and the result is [simplified](Aff::simplify).
    /// The divs may then differ from those of the sets the aff came with.
    pub fn reduce_divs(mut self) -> Aff {
        let mut k = 0;
        while k < self.divs.len() {
            if self.reduce_div(k) {
                k += 1;
            }
        }
        self.simplify()
    }

    /// Canonical form: divs normalised and deduplicated, unused divs removed, the
    /// numerator and denominator reduced by their gcd. The function is unchanged.
    pub fn simplify(mut self) -> Aff {
        let nd = self.n_dims();
        for d in self.divs.iter_mut() {
            let (num, den) = normalize_div(std::mem::take(&mut d.num), d.den.clone());
            d.num = num;
            d.den = den;
        }
        // Merge duplicates into their first occurrence.
        let mut k = 0;
        while k < self.divs.len() {
            let dup = (0..k).find(|&j| self.divs[j] == self.divs[k]);
            if let Some(j) = dup {
                self.merge_column(1 + nd + k, 1 + nd + j);
                self.remove_div(k);
            } else {
                k += 1;
            }
        }
        // Remove unused divs, last first.
        for k in (0..self.divs.len()).rev() {
            let col = 1 + nd + k;
            let used = !self.num[col].is_zero() || self.divs.iter().any(|d| !d.num[col].is_zero());
            if !used {
                self.remove_div(k);
            }
        }
        let g = gcd_slice(&self.num).gcd(&self.den);
        if !g.is_zero() && !g.is_one() {
            for c in self.num.iter_mut() {
                *c = c.exact_div(&g);
            }
            self.den = self.den.exact_div(&g);
        }
        self
    }

    /// Reduces div `k` (whose earlier divs are already reduced); returns `false` when the
    /// div was substituted and removed.
    fn reduce_div(&mut self, k: usize) -> bool {
        let nd = self.n_dims();
        let col = 1 + nd + k;
        // Flatten `floor((±q_j + r)/n)` with `q_j = floor(x/m)`: `floor(x/m) + r =
        // floor((x + m·r)/m)` and `-floor(x/m) = floor((-x + m - 1)/m)`, and
        // `floor(floor(y/m)/n) = floor(y/(m·n))`.
        let mut j = k;
        while j > 0 {
            j -= 1;
            let cj = 1 + nd + j;
            let c = self.divs[k].num[cj].clone();
            if !(c.is_one() || (-&c).is_one()) {
                continue;
            }
            let inner = self.divs[j].clone();
            let m = inner.den.clone();
            let d = &mut self.divs[k];
            d.num[cj] = Int::zero();
            for v in d.num.iter_mut() {
                *v = &*v * &m;
            }
            for (v, x) in d.num.iter_mut().zip(&inner.num) {
                *v = if c.is_one() { &*v + x } else { &*v - x };
            }
            if !c.is_one() {
                d.num[0] = &d.num[0] + &m - Int::one();
            }
            d.den = &d.den * &m;
            // The new numerator may use divs before j: look at them again.
            j = k;
            if d.num[1 + nd..col].iter().all(Int::is_zero) {
                break;
            }
        }
        let (num, den) = normalize_div(
            std::mem::take(&mut self.divs[k].num),
            self.divs[k].den.clone(),
        );
        self.divs[k].num = num;
        self.divs[k].den = den;
        // Move integer multiples of the denominator out: q_k = Σ t_i x_i + q_k'.
        let den = self.divs[k].den.clone();
        let mut out = vec![Int::zero(); self.num.len()];
        let half = den.floor_div(&Int::from(2));
        for (c, v) in self.divs[k].num.iter_mut().enumerate().take(col) {
            let t = if c == 0 {
                if v.is_negative() {
                    v.ceil_div(&den)
                } else {
                    v.floor_div(&den)
                }
            } else if (&*v + &*v).abs() > den {
                // v - t·den in (-d/2, d/2]
                (&*v - &half).ceil_div(&den)
            } else {
                Int::zero()
            };
            if !t.is_zero() {
                *v = &*v - &(&t * &den);
                out[c] = t;
            }
        }
        let trivial = den.is_one() || self.divs[k].num[1..col].iter().all(Int::is_zero);
        if trivial {
            // q_k = Σ t_i x_i + floor(c/den) exactly.
            out[0] = &out[0] + &self.divs[k].num[0].floor_div(&den);
        }
        if out.iter().any(|t| !t.is_zero()) {
            let rows = std::iter::once(&mut self.num)
                .chain(self.divs[k + 1..].iter_mut().map(|d| &mut d.num));
            for row in rows {
                let f = row[col].clone();
                if f.is_zero() {
                    continue;
                }
                for (v, t) in row.iter_mut().zip(&out) {
                    if !t.is_zero() {
                        *v = &*v + &(&f * t);
                    }
                }
            }
        }
        if trivial {
            for row in std::iter::once(&mut self.num)
                .chain(self.divs[k + 1..].iter_mut().map(|d| &mut d.num))
            {
                row[col] = Int::zero();
            }
            self.remove_div(k);
            return false;
        }
        let (num, den) = normalize_div(std::mem::take(&mut self.divs[k].num), den);
        self.divs[k].num = num;
        self.divs[k].den = den;
        true
    }

    /// Adds column `from` into column `to` in every row, zeroing `from`.
    fn merge_column(&mut self, from: usize, to: usize) {
        for row in std::iter::once(&mut self.num).chain(self.divs.iter_mut().map(|d| &mut d.num)) {
            let v = std::mem::take(&mut row[from]);
            row[to] = &row[to] + &v;
        }
    }

    /// Removes div `k`, whose column must be zero everywhere.
    fn remove_div(&mut self, k: usize) {
        let col = 1 + self.n_dims() + k;
        self.divs.remove(k);
        self.num.remove(col);
        for d in self.divs.iter_mut() {
            d.num.remove(col);
        }
    }

    /// Writes the aff's numerator over the columns of `b`, adding the aff's divs to `b` as
    /// known divs (reusing identical ones). `dim_targets[i]` is the variable index in `b`
    /// (0-based over `b`'s dims and divs) that domain dimension `i` corresponds to.
    /// The value of the aff is the returned row divided by [`Aff::den`].
    pub fn embed(&self, b: &mut BasicMap, dim_targets: &[usize]) -> Vec<Int> {
        debug_assert_eq!(dim_targets.len(), self.n_dims());
        let mut col_of: Vec<usize> = Vec::with_capacity(self.num.len());
        col_of.push(0);
        col_of.extend(dim_targets.iter().map(|t| t + 1));
        for d in &self.divs {
            let row = remap(&d.num[..col_of.len()], &col_of, b.n_cols());
            let col = b.add_known_div(row, d.den.clone());
            col_of.push(col);
        }
        remap(&self.num, &col_of, b.n_cols())
    }

    /// The graph `{ x -> [f(x)] }` as a map (a set `{ [f] }` over a parameter domain).
    pub fn to_map(&self) -> Map {
        let space = function_space(&self.space, Tuple::anonymous(1));
        let mut b = BasicMap::universe(space);
        let nd = self.n_dims();
        let targets: Vec<usize> = (0..nd).collect();
        let row = self.embed(&mut b, &targets);
        let mut eq: Vec<Int> = row.iter().map(|c| -c).collect();
        eq[1 + nd] = self.den.clone();
        b.add_eq(eq);
        Map::from_basic(b)
    }

    /// The printed expression (without parentheses), given names of the domain dims.
    fn expr_string(&self, names: &[String]) -> String {
        let mut atoms: Vec<String> = names.to_vec();
        for d in &self.divs {
            let inner = affine_to_string(&d.num[..1 + atoms.len()], &atoms);
            atoms.push(format!("floor(({inner})/{})", d.den));
        }
        let e = affine_to_string(&self.num, &atoms);
        if self.den.is_one() {
            e
        } else {
            format!("({e})/{}", self.den)
        }
    }
}

impl fmt::Display for Aff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = domain_names(&self.space);
        let ma_space = function_space(&self.space, Tuple::anonymous(1));
        write_params(f, &self.space)?;
        write!(f, "{{ ")?;
        write_head(f, &ma_space, &names, &[self.expr_string(&names)])?;
        write!(f, " }}")
    }
}

/// A tuple of affs over one domain: a function from a domain space to a range tuple.
///
/// # Invariants
/// `space` is a map space (domain -> range) or a set space (range only; the domain is then
/// the parameter space); there is one aff per range dimension, each on the domain space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiAff {
    space: Space,
    affs: Vec<Aff>,
}

/// The domain space of a function living in `space` (a map or set space).
fn function_domain(space: &Space) -> Space {
    if space.is_map() {
        space.domain_space()
    } else {
        space.params_space()
    }
}

/// The space of a function with the given domain and range tuple.
fn function_space(domain: &Space, range: Tuple) -> Space {
    match domain.tuples() {
        Tuples::Set(d) => Space::map(domain.param_names().to_vec(), d.clone(), range),
        _ => Space::set(domain.param_names().to_vec(), range),
    }
}

impl MultiAff {
    /// A multi-aff in `space` (map or set space) from one aff per range dimension.
    pub fn new(space: Space, affs: Vec<Aff>) -> Result<MultiAff> {
        if space.is_params() {
            return Err(Error::Unsupported(
                "a multi-aff lives in a map or set space".into(),
            ));
        }
        if affs.len() != space.n_out() {
            return Err(Error::Unsupported(format!(
                "MultiAff::new: {} affs for {} range dimensions",
                affs.len(),
                space.n_out()
            )));
        }
        let dom = function_domain(&space);
        if let Some(a) = affs.iter().find(|a| a.space != dom) {
            return Err(mismatch("MultiAff::new", &dom, &a.space));
        }
        Ok(MultiAff { space, affs })
    }

    /// The space (map or set space).
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The domain space: the map's domain, or the parameter space for a set space.
    pub fn domain_space(&self) -> Space {
        function_domain(&self.space)
    }

    /// The affs, one per range dimension.
    pub fn affs(&self) -> &[Aff] {
        &self.affs
    }

    /// Consumes into the affs.
    pub fn into_affs(self) -> Vec<Aff> {
        self.affs
    }

    /// The values at an integer point of the domain (parameters first).
    pub fn eval(&self, point: &[Int]) -> Option<Vec<Int>> {
        self.affs.iter().map(|a| a.eval(point)).collect()
    }

    /// `-self`, component-wise.
    pub fn neg(&self) -> MultiAff {
        MultiAff {
            space: self.space.clone(),
            affs: self.affs.iter().map(Aff::neg).collect(),
        }
    }

    /// The graph `{ x -> [f(x)] }` as a basic map of the multi-aff's space.
    pub fn to_basic_map(&self) -> BasicMap {
        let mut b = BasicMap::universe(self.space.clone());
        let nd = function_domain(&self.space).n_dims();
        let targets: Vec<usize> = (0..nd).collect();
        for (i, a) in self.affs.iter().enumerate() {
            let row = a.embed(&mut b, &targets);
            let mut eq: Vec<Int> = row.iter().map(|c| -c).collect();
            eq[1 + nd + i] = a.den.clone();
            b.add_eq(eq);
        }
        b
    }

    /// The graph as a map (a set when the domain is the parameter space).
    pub fn to_map(&self) -> Map {
        Map::from_basic(self.to_basic_map())
    }

    fn expr_strings(&self, names: &[String]) -> Vec<String> {
        self.affs.iter().map(|a| a.expr_string(names)).collect()
    }
}

impl fmt::Display for MultiAff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dom = self.domain_space();
        let names = domain_names(&dom);
        write_params(f, &self.space)?;
        write!(f, "{{ ")?;
        write_head(f, &self.space, &names, &self.expr_strings(&names))?;
        write!(f, " }}")
    }
}

/// A piecewise quasi-affine function: affs on pairwise disjoint pieces of a domain space.
#[derive(Clone, Debug)]
pub struct PwAff {
    space: Space,
    pieces: Vec<(Set, Aff)>,
}

impl PwAff {
    /// The function defined nowhere, on domain space `domain` (a set or parameter space).
    pub fn empty(domain: Space) -> PwAff {
        PwAff {
            space: domain,
            pieces: Vec::new(),
        }
    }

    /// The aff on its whole domain.
    pub fn from_aff(aff: Aff) -> PwAff {
        let space = aff.space.clone();
        PwAff {
            pieces: vec![(Set::universe(space.clone()), aff)],
            space,
        }
    }

    /// Adds a piece; its domain must be disjoint from the existing pieces' domains.
    pub fn add_piece(&mut self, domain: Set, aff: Aff) -> Result<()> {
        if domain.space() != &self.space {
            return Err(mismatch("PwAff::add_piece", &self.space, domain.space()));
        }
        if aff.space != self.space {
            return Err(mismatch("PwAff::add_piece", &self.space, &aff.space));
        }
        self.pieces.push((domain, aff));
        Ok(())
    }

    /// The domain space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The pieces.
    pub fn pieces(&self) -> &[(Set, Aff)] {
        &self.pieces
    }

    /// The union of the pieces' domains.
    pub fn domain(&self) -> Result<Set> {
        let mut d = Set::empty(self.space.clone());
        for (s, _) in &self.pieces {
            d = d.union(s)?;
        }
        Ok(d)
    }

    /// The value at an integer point of the domain space, `None` outside the domain.
    pub fn eval(&self, point: &[Int]) -> Result<Option<Int>> {
        for (s, a) in &self.pieces {
            if s.contains_point(point)? {
                return Ok(a.eval(point));
            }
        }
        Ok(None)
    }

    /// The union of two piecewise functions with disjoint domains.
    pub fn union_disjoint(&self, other: &PwAff) -> Result<PwAff> {
        if self.space != other.space {
            return Err(mismatch("PwAff::union_disjoint", &self.space, &other.space));
        }
        let mut p = self.clone();
        p.pieces.extend(other.pieces.iter().cloned());
        Ok(p)
    }

    /// The graph `{ x -> [f(x)] : x ∈ domain }`.
    pub fn to_map(&self) -> Result<Map> {
        let space = function_space(&self.space, Tuple::anonymous(1));
        let mut m = Map::empty(space);
        for (s, a) in &self.pieces {
            m = m.union(&restrict(a.to_map(), s)?)?;
        }
        Ok(m)
    }
}

impl fmt::Display for PwAff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = domain_names(&self.space);
        let space = function_space(&self.space, Tuple::anonymous(1));
        let pieces: Vec<(&Set, Vec<String>)> = self
            .pieces
            .iter()
            .map(|(s, a)| (s, vec![a.expr_string(&names)]))
            .collect();
        write_pieces(f, &space, &names, &pieces)
    }
}

/// A piecewise multi-aff: multi-affs on pairwise disjoint pieces of a domain space.
#[derive(Clone, Debug)]
pub struct PwMultiAff {
    space: Space,
    pieces: Vec<(Set, MultiAff)>,
}

impl PwMultiAff {
    /// The function defined nowhere, in `space` (a map space, or a set space whose
    /// domain is the parameter space).
    pub fn empty(space: Space) -> PwMultiAff {
        PwMultiAff {
            space,
            pieces: Vec::new(),
        }
    }

    /// The multi-aff on its whole domain.
    pub fn from_multi_aff(ma: MultiAff) -> PwMultiAff {
        let space = ma.space.clone();
        PwMultiAff {
            pieces: vec![(Set::universe(ma.domain_space()), ma)],
            space,
        }
    }

    /// Adds a piece; its domain must be disjoint from the existing pieces' domains.
    pub fn add_piece(&mut self, domain: Set, ma: MultiAff) -> Result<()> {
        let dom = function_domain(&self.space);
        if domain.space() != &dom {
            return Err(mismatch("PwMultiAff::add_piece", &dom, domain.space()));
        }
        if ma.space != self.space {
            return Err(mismatch("PwMultiAff::add_piece", &self.space, &ma.space));
        }
        self.pieces.push((domain, ma));
        Ok(())
    }

    /// The space (map or set space).
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The domain space.
    pub fn domain_space(&self) -> Space {
        function_domain(&self.space)
    }

    /// The pieces.
    pub fn pieces(&self) -> &[(Set, MultiAff)] {
        &self.pieces
    }

    /// Consumes into the pieces.
    pub fn into_pieces(self) -> Vec<(Set, MultiAff)> {
        self.pieces
    }

    /// The union of the pieces' domains.
    pub fn domain(&self) -> Result<Set> {
        let mut d = Set::empty(self.domain_space());
        for (s, _) in &self.pieces {
            d = d.union(s)?;
        }
        Ok(d)
    }

    /// The values at an integer point of the domain space, `None` outside the domain.
    pub fn eval(&self, point: &[Int]) -> Result<Option<Vec<Int>>> {
        for (s, ma) in &self.pieces {
            if s.contains_point(point)? {
                return Ok(ma.eval(point));
            }
        }
        Ok(None)
    }

    /// The union of two piecewise functions with disjoint domains.
    pub fn union_disjoint(&self, other: &PwMultiAff) -> Result<PwMultiAff> {
        if self.space != other.space {
            return Err(mismatch(
                "PwMultiAff::union_disjoint",
                &self.space,
                &other.space,
            ));
        }
        let mut p = self.clone();
        p.pieces.extend(other.pieces.iter().cloned());
        Ok(p)
    }

    /// Component `pos` as a piecewise aff on the same pieces.
    pub fn get_pw_aff(&self, pos: usize) -> Result<PwAff> {
        if pos >= self.space.n_out() {
            return Err(Error::Unsupported(format!(
                "PwMultiAff::get_pw_aff: component {pos} out of range"
            )));
        }
        Ok(PwAff {
            space: self.domain_space(),
            pieces: self
                .pieces
                .iter()
                .map(|(s, ma)| (s.clone(), ma.affs[pos].clone()))
                .collect(),
        })
    }

    /// The graph `{ x -> f(x) : x ∈ domain }` as a map of the function's space (a set
    /// when the domain is the parameter space).
    pub fn to_map(&self) -> Map {
        let mut parts = Vec::new();
        for (s, ma) in &self.pieces {
            let graph = ma.to_basic_map();
            let nd = function_domain(&self.space).n_dims();
            let targets: Vec<usize> = (0..nd).collect();
            for d in s.basic_sets() {
                let mut g = graph.clone();
                g.absorb(d.as_basic_map(), &targets);
                parts.push(g);
            }
        }
        let mut m = Map::empty(self.space.clone());
        for b in parts {
            m.push(b);
        }
        m
    }

    /// Whether the function has no piece with a non-empty domain.
    pub fn is_empty(&self, budget: &mut Budget) -> Result<bool> {
        for (s, _) in &self.pieces {
            if !s.is_empty_with(budget)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl fmt::Display for PwMultiAff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = domain_names(&self.domain_space());
        let pieces: Vec<(&Set, Vec<String>)> = self
            .pieces
            .iter()
            .map(|(s, ma)| (s, ma.expr_strings(&names)))
            .collect();
        write_pieces(f, &self.space, &names, &pieces)
    }
}

/// Restricts a function graph's domain (or its parameters, for a set) to `domain`.
fn restrict(graph: Map, domain: &Set) -> Result<Map> {
    if graph.space().is_map() {
        graph.intersect_domain(domain.as_map())
    } else {
        graph.intersect_params(domain.as_map())
    }
}

/// `Σ a_i b_i`.
fn dot(a: &[Int], b: &[Int]) -> Int {
    let mut s = Int::zero();
    for (x, y) in a.iter().zip(b) {
        if !x.is_zero() && !y.is_zero() {
            s += x * y;
        }
    }
    s
}

/// Copies `row` into a row of length `n`, entry `i` going to column `col_of[i]`.
fn remap(row: &[Int], col_of: &[usize], n: usize) -> Vec<Int> {
    let mut out = vec![Int::zero(); n];
    for (i, c) in row.iter().enumerate() {
        if !c.is_zero() {
            out[col_of[i]] = &out[col_of[i]] + c;
        }
    }
    out
}

// ----- printing (with the helpers of `crate::text`) -----

/// Printable names of a domain space's dimensions: parameters, then the tuple's
/// dimensions, distinct valid identifiers as the set printer chooses them.
fn domain_names(space: &Space) -> Vec<String> {
    space_dim_names(space)
}

/// The condition of a basic set of a domain space, isl style (empty for the universe):
/// known divs inline, existentials bound by one `exists (...)` around the constraints
/// that need them.
pub(crate) fn condition(b: &BasicMap, names: &[String]) -> String {
    let (cols, depends) = column_names(b, names);
    let nd = b.n_dims();
    let uses_exists = |row: &[Int]| {
        depends
            .iter()
            .enumerate()
            .any(|(k, d)| *d && !row[1 + nd + k].is_zero())
    };
    let mut outer = Vec::new();
    let mut inner = Vec::new();
    let rows = b
        .eqs()
        .iter()
        .map(|r| (r.clone(), true))
        .chain(b.ineqs().iter().map(|r| (r.clone(), false)));
    for (row, is_eq) in rows {
        if uses_exists(&row) {
            inner.push((row, is_eq));
        } else {
            outer.push((row, is_eq));
        }
    }
    let mut parts = constraints_to_strings(&outer, &cols, nd);
    if !inner.is_empty() {
        let vars: Vec<&str> = (0..b.n_div())
            .filter(|&k| b.divs()[k].is_none())
            .map(|k| cols[nd + k].as_str())
            .collect();
        let body = constraints_to_strings(&inner, &cols, nd).join(" and ");
        parts.push(if vars.is_empty() {
            body
        } else {
            format!("exists ({}: {body})", vars.join(", "))
        });
    }
    parts.join(" and ")
}

fn write_params(f: &mut fmt::Formatter<'_>, space: &Space) -> fmt::Result {
    if space.n_params() > 0 {
        write!(f, "[{}] -> ", space.param_names().join(", "))?;
    }
    Ok(())
}

/// Prints a tuple whose entries are the given strings, keeping nesting.
fn tuple_with(t: &Tuple, entries: &[String]) -> String {
    let name = t.name().unwrap_or("");
    match t.nested() {
        Some((a, b)) => {
            let n = a.n_dims();
            format!(
                "{name}[{} -> {}]",
                tuple_with(a, &entries[..n]),
                tuple_with(b, &entries[n..])
            )
        }
        None => format!("{name}[{}]", entries.join(", ")),
    }
}

/// `D[i, j] -> R[(e1), (e2)]` (or `R[(e1)]` for a set space).
fn write_head(
    f: &mut fmt::Formatter<'_>,
    space: &Space,
    names: &[String],
    exprs: &[String],
) -> fmt::Result {
    let np = space.n_params();
    if let Some(d) = space.domain_tuple() {
        write!(f, "{} -> ", tuple_with(d, &names[np..]))?;
    }
    let wrapped: Vec<String> = exprs.iter().map(|e| format!("({e})")).collect();
    let range = space
        .range_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(0));
    write!(f, "{}", tuple_with(&range, &wrapped))
}

/// The pieces joined by `;`. A function defined nowhere prints as its graph's empty map
/// (`{ [i] -> [o0] : false }`), so that the text keeps the space.
fn write_pieces(
    f: &mut fmt::Formatter<'_>,
    space: &Space,
    names: &[String],
    pieces: &[(&Set, Vec<String>)],
) -> fmt::Result {
    if pieces.iter().all(|(s, _)| s.as_map().is_obviously_empty()) {
        return write!(f, "{}", Map::empty(space.clone()));
    }
    write_params(f, space)?;
    write!(f, "{{ ")?;
    let mut first = true;
    for (s, exprs) in pieces {
        for b in s.basic_sets() {
            if !first {
                write!(f, "; ")?;
            }
            first = false;
            write_head(f, space, names, exprs)?;
            let cond = condition(b.as_basic_map(), names);
            if !cond.is_empty() {
                write!(f, " : {cond}")?;
            }
        }
    }
    write!(f, " }}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: i64) -> Int {
        Int::from(v)
    }

    fn row(v: &[i64]) -> Vec<Int> {
        v.iter().map(|&x| n(x)).collect()
    }

    fn param_space() -> Space {
        Space::set(vec!["N".into()], Tuple::new(None, &["i"]))
    }

    #[test]
    fn eval_and_print_floor() {
        // floor(i / 2) on { [i] }
        let space = Space::set(vec![], Tuple::new(None, &["i"]));
        let a = Aff::from_parts(space.clone(), vec![], row(&[0, 1]), n(2))
            .unwrap()
            .floor();
        assert_eq!(a.eval(&[n(5)]), Some(n(2)));
        assert_eq!(a.eval(&[n(-5)]), Some(n(-3)));
        assert_eq!(a.to_string(), "{ [i] -> [(floor((i)/2))] }");
        // i / 2 is not an integer at odd points.
        let half = Aff::from_parts(space, vec![], row(&[0, 1]), n(2)).unwrap();
        assert_eq!(half.eval(&[n(3)]), None);
        assert_eq!(half.eval(&[n(4)]), Some(n(2)));
    }

    #[test]
    fn arithmetic() {
        let s = param_space();
        let nn = Aff::var(s.clone(), 0).unwrap();
        let i = Aff::var(s.clone(), 1).unwrap();
        let d = nn.add(&i.neg()).unwrap();
        assert_eq!(d.eval(&[n(7), n(3)]), Some(n(4)));
        assert_eq!(d.to_string(), "[N] -> { [i] -> [(N - i)] }");
        let c = Aff::constant(s, n(-3)).scale(&n(2));
        assert_eq!(c.constant_value(), Some(n(-6)));
        // Adding two floors keeps both divisions, deduplicated.
        let f = i
            .floor()
            .add(
                &Aff::from_parts(i.space().clone(), vec![], row(&[0, 0, 1]), n(3))
                    .unwrap()
                    .floor(),
            )
            .unwrap();
        assert_eq!(f.eval(&[n(0), n(7)]), Some(n(9)));
        let g = f.add(&f).unwrap();
        assert_eq!(g.n_div(), 1);
        assert_eq!(g.eval(&[n(0), n(7)]), Some(n(18)));
    }

    #[test]
    fn pw_multi_aff_to_map_and_print() {
        let space = Space::map(
            vec!["N".into()],
            Tuple::new(None, &["i"]),
            Tuple::anonymous(1),
        );
        let dom = param_space();
        let a = Aff::from_parts(dom.clone(), vec![], row(&[0, 1, -1]), n(1)).unwrap();
        let zero = Aff::zero(dom.clone());
        // 0 <= i <= N
        let mut b1 = BasicMap::universe(dom.clone());
        b1.add_ineq(row(&[0, 0, 1]));
        b1.add_ineq(row(&[0, 1, -1]));
        // i > N
        let mut b2 = BasicMap::universe(dom.clone());
        b2.add_ineq(row(&[-1, -1, 1]));
        let mut pw = PwMultiAff::empty(space.clone());
        pw.add_piece(
            Set::from_map(Map::from_basic(b1)).unwrap(),
            MultiAff::new(space.clone(), vec![a]).unwrap(),
        )
        .unwrap();
        pw.add_piece(
            Set::from_map(Map::from_basic(b2)).unwrap(),
            MultiAff::new(space.clone(), vec![zero]).unwrap(),
        )
        .unwrap();
        let text = pw.to_string();
        assert!(text.starts_with("[N] -> { [i] -> [(N - i)] : "), "{text}");
        assert!(text.contains("; [i] -> [(0)] : "), "{text}");
        assert_eq!(pw.eval(&[n(5), n(2)]).unwrap(), Some(vec![n(3)]));
        assert_eq!(pw.eval(&[n(5), n(7)]).unwrap(), Some(vec![n(0)]));
        assert_eq!(pw.eval(&[n(5), n(-1)]).unwrap(), None);
        let m = pw.to_map();
        assert!(m.contains_point(&[n(5), n(2), n(3)]).unwrap());
        assert!(!m.contains_point(&[n(5), n(2), n(2)]).unwrap());
        assert!(m.contains_point(&[n(5), n(9), n(0)]).unwrap());
        assert!(!m.contains_point(&[n(5), n(-1), n(6)]).unwrap());
        let pa = pw.get_pw_aff(0).unwrap();
        assert_eq!(pa.eval(&[n(5), n(9)]).unwrap(), Some(n(0)));
        assert!(pa
            .to_map()
            .unwrap()
            .contains_point(&[n(5), n(1), n(4)])
            .unwrap());
    }

    #[test]
    fn set_space_function() {
        // [N] -> { [(N + 1)] }
        let space = Space::set(vec!["N".into()], Tuple::anonymous(1));
        let dom = space.params_space();
        let a = Aff::from_parts(dom, vec![], row(&[1, 1]), n(1)).unwrap();
        let ma = MultiAff::new(space, vec![a]).unwrap();
        assert_eq!(ma.to_string(), "[N] -> { [(N + 1)] }");
        let m = ma.to_map();
        assert!(m.space().is_set());
        assert!(m.contains_point(&[n(4), n(5)]).unwrap());
        assert!(!m.contains_point(&[n(4), n(4)]).unwrap());
        let pw = PwMultiAff::from_multi_aff(ma);
        assert_eq!(pw.eval(&[n(-2)]).unwrap(), Some(vec![n(-1)]));
    }

    #[test]
    fn malformed_input_is_an_error() {
        let s = param_space();
        assert!(Aff::from_parts(s.clone(), vec![], row(&[0, 1]), n(1)).is_err());
        assert!(Aff::from_parts(s.clone(), vec![], row(&[0, 1, 0]), n(0)).is_err());
        assert!(Aff::var(s, 2).is_err());
    }
}
