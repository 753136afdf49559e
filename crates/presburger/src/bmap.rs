//! Basic maps: one conjunction of affine constraints with local variables.
//!
//! A [`BasicMap`] is isl's `isl_basic_map`. Its *columns* are the constant term, then the
//! dimensions of its [`Space`] (parameters, inputs, outputs), then its *local variables*
//! ("divs"). Every local is either a known floor division `floor(num / den)` of earlier
//! columns or an anonymous existential variable.
//!
//! # Invariants
//! - every constraint row and every div numerator has `1 + n_dims + n_div` entries;
//! - a div definition references only dimensions and *earlier* divs (its own and later
//!   coefficients are zero) and its denominator is positive;
//! - the two constraints that define a known div (`num - den·q ≥ 0`,
//!   `den·q + den - 1 - num ≥ 0`) are implicit: they are not stored in `ineqs`, and
//!   [`BasicMap::to_system`] adds them.
//!
//! Transformations take `self` and return a new value; queries take `&self`.

use pollen_arith::{gcd_slice, Int};

use crate::error::{Budget, Error, Result};
use crate::solver::{self, System};
use crate::space::{DimKind, Space};

/// The definition of a known local variable: `floor(num / den)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DivDef {
    /// Numerator over the columns `[const | dims | divs]`.
    pub num: Vec<Int>,
    /// Positive denominator.
    pub den: Int,
}

/// A conjunction of affine equalities and inequalities over a space plus local variables.
#[derive(Clone, Debug)]
pub struct BasicMap {
    space: Space,
    divs: Vec<Option<DivDef>>,
    eqs: Vec<Vec<Int>>,
    ineqs: Vec<Vec<Int>>,
    /// Whether the rows are what [`BasicMap::simplify`] makes of them (a fixed point of
    /// it): set only by `simplify` when its last round changed nothing, cleared by every
    /// method that changes a row or a local, so that simplifying again is free.
    simplified: bool,
}

/// Where a column of an absorbed basic map goes (see [`BasicMap::absorb`]).
pub type Targets = [usize];

impl BasicMap {
    /// The whole space.
    pub fn universe(space: Space) -> BasicMap {
        BasicMap {
            space,
            divs: Vec::new(),
            eqs: Vec::new(),
            ineqs: Vec::new(),
            // No row: nothing for `simplify` to do.
            simplified: true,
        }
    }

    /// The empty basic map of the space (the equality `1 = 0`).
    pub fn empty(space: Space) -> BasicMap {
        let mut b = BasicMap::universe(space);
        let mut row = b.zero_row();
        row[0] = Int::one();
        // `1 = 0` is what `simplify` makes of every empty basic map: still simplified.
        b.eqs.push(row);
        b
    }

    /// Builds a basic map from its parts, checking row lengths and div definitions.
    pub fn from_parts(
        space: Space,
        divs: Vec<Option<DivDef>>,
        eqs: Vec<Vec<Int>>,
        ineqs: Vec<Vec<Int>>,
    ) -> Result<BasicMap> {
        let b = BasicMap {
            space,
            divs,
            eqs,
            ineqs,
            simplified: false,
        };
        let n = b.n_cols();
        let bad_row = b.eqs.iter().chain(b.ineqs.iter()).any(|r| r.len() != n);
        let bad_div = b.divs.iter().enumerate().any(|(k, d)| match d {
            None => false,
            Some(d) => {
                d.num.len() != n
                    || !d.den.is_positive()
                    || d.num[1 + b.n_dims() + k..].iter().any(|c| !c.is_zero())
            }
        });
        if bad_row || bad_div {
            return Err(Error::Unsupported(
                "malformed basic map: wrong row length or div definition".into(),
            ));
        }
        Ok(b)
    }

    /// The space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// Replaces the space by one with the same parameters and the same number of tuple
    /// dimensions (input and output together): the columns are laid out parameters,
    /// inputs, outputs, so moving the boundary between inputs and outputs (wrapping and
    /// unwrapping) keeps every constraint's meaning.
    pub fn with_space(mut self, space: Space) -> BasicMap {
        debug_assert_eq!(space.n_params(), self.space.n_params());
        debug_assert_eq!(
            space.n_in() + space.n_out(),
            self.space.n_in() + self.space.n_out()
        );
        self.space = space;
        self
    }

    /// Number of space dimensions (params + in + out).
    pub fn n_dims(&self) -> usize {
        self.space.n_dims()
    }

    /// Number of local variables.
    pub fn n_div(&self) -> usize {
        self.divs.len()
    }

    /// Number of columns of a constraint row: `1 + n_dims + n_div`.
    pub fn n_cols(&self) -> usize {
        1 + self.n_dims() + self.n_div()
    }

    /// Column of the first local variable.
    pub fn div_col(&self, k: usize) -> usize {
        1 + self.n_dims() + k
    }

    /// Column of dimension `i` of kind `kind`.
    pub fn dim_col(&self, kind: DimKind, i: usize) -> usize {
        1 + self.space.offset(kind) + i
    }

    /// The local variables' definitions (`None` for existentials).
    pub fn divs(&self) -> &[Option<DivDef>] {
        &self.divs
    }

    /// The equalities.
    pub fn eqs(&self) -> &[Vec<Int>] {
        &self.eqs
    }

    /// The inequalities (without the implicit ones defining known divs).
    pub fn ineqs(&self) -> &[Vec<Int>] {
        &self.ineqs
    }

    /// A row of zeros of the right length.
    pub fn zero_row(&self) -> Vec<Int> {
        vec![Int::zero(); self.n_cols()]
    }

    /// Adds the equality `row = 0`.
    pub fn add_eq(&mut self, row: Vec<Int>) {
        debug_assert_eq!(row.len(), self.n_cols());
        self.simplified = false;
        self.eqs.push(row);
    }

    /// Adds the inequality `row ≥ 0`.
    pub fn add_ineq(&mut self, row: Vec<Int>) {
        debug_assert_eq!(row.len(), self.n_cols());
        self.simplified = false;
        self.ineqs.push(row);
    }

    /// Adds a local variable (known when `def` is given) and returns its column.
    /// The definition must have the row length *before* the call.
    pub fn add_div(&mut self, def: Option<DivDef>) -> usize {
        self.simplified = false;
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.push(Int::zero());
        }
        for d in self.divs.iter_mut().flatten() {
            d.num.push(Int::zero());
        }
        let def = def.map(|mut d| {
            d.num.push(Int::zero());
            d
        });
        debug_assert!(def
            .as_ref()
            .is_none_or(|d| d.num.len() == self.n_cols() + 1 && d.den.is_positive()));
        self.divs.push(def);
        self.n_cols() - 1
    }

    /// Adds a known div `floor(num / den)`, reusing an identical existing one.
    pub fn add_known_div(&mut self, num: Vec<Int>, den: Int) -> usize {
        let (num, den) = normalize_div(num, den);
        if den.is_one() {
            // Not really a division: callers get a fresh div equal to num.
        }
        for (k, d) in self.divs.iter().enumerate() {
            if let Some(d) = d {
                if d.den == den && d.num == num {
                    return self.div_col(k);
                }
            }
        }
        self.add_div(Some(DivDef { num, den }))
    }

    /// The constraint system over all dimensions and locals, divs' defining constraints included.
    pub fn to_system(&self) -> System {
        let mut sys = System::new(self.n_dims() + self.n_div());
        sys.eqs = self.eqs.clone();
        sys.ineqs = self.ineqs.clone();
        sys.ineqs.extend(self.div_constraints());
        sys
    }

    /// The two inequalities defining every known div.
    pub fn div_constraints(&self) -> Vec<Vec<Int>> {
        let mut out = Vec::new();
        for (k, d) in self.divs.iter().enumerate() {
            if let Some(d) = d {
                let col = self.div_col(k);
                // num - den*q >= 0
                let mut lo = d.num.clone();
                lo[col] = -&d.den;
                // den*q + den - 1 - num >= 0
                let mut hi: Vec<Int> = d.num.iter().map(|c| -c).collect();
                hi[col] = d.den.clone();
                hi[0] = &hi[0] + &d.den - Int::one();
                out.push(lo);
                out.push(hi);
            }
        }
        out
    }

    /// Whether the basic map contains no integer point.
    pub fn is_empty(&self, budget: &mut Budget) -> Result<bool> {
        crate::ops::is_empty(self, budget)
    }

    /// An integer point (values of the space dimensions, params first), if any.
    pub fn sample(&self, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
        if self.is_obviously_empty() {
            return Ok(None);
        }
        let pt = solver::integer_sample(&self.to_system(), budget)?;
        Ok(pt.map(|mut p| {
            p.truncate(self.n_dims());
            p
        }))
    }

    /// Whether a constant constraint makes the basic map empty.
    pub fn is_obviously_empty(&self) -> bool {
        let constant = |r: &Vec<Int>| r[1..].iter().all(Int::is_zero);
        self.eqs.iter().any(|r| constant(r) && !r[0].is_zero())
            || self.ineqs.iter().any(|r| constant(r) && r[0].is_negative())
    }

    /// Whether the integer point `point` (space dimensions, params first) belongs to the set.
    ///
    /// Known divs are evaluated; existentials are decided by an integer feasibility test.
    pub fn contains_point(&self, point: &[Int], budget: &mut Budget) -> Result<bool> {
        debug_assert_eq!(point.len(), self.n_dims());
        let mut b = self.clone();
        b.simplified = false;
        for (i, v) in point.iter().enumerate() {
            let mut row = b.zero_row();
            row[0] = -v;
            row[1 + i] = Int::one();
            b.eqs.push(row);
        }
        Ok(!b.simplify().is_empty(budget)?)
    }

    /// Copies `other`'s constraints and locals into `self`.
    ///
    /// `targets[i]` is the variable index in `self` (0-based over `dims ++ divs`) that
    /// dimension `i` of `other` becomes; `other`'s divs are appended to `self`'s.
    pub fn absorb(&mut self, other: &BasicMap, targets: &Targets) {
        debug_assert_eq!(targets.len(), other.n_dims());
        self.simplified = false;
        let first_new = self.n_div();
        let mut col_of: Vec<usize> = Vec::with_capacity(other.n_cols());
        col_of.push(0);
        col_of.extend(targets.iter().map(|t| t + 1));
        let n_dims_self = self.n_dims();
        col_of.extend((0..other.n_div()).map(|k| 1 + n_dims_self + first_new + k));
        for d in &other.divs {
            let def = d.as_ref().map(|d| DivDef {
                num: remap_row(&d.num, &col_of, self.n_cols()),
                den: d.den.clone(),
            });
            self.add_div(def);
        }
        let n = self.n_cols();
        self.eqs.reserve(other.eqs.len());
        self.eqs
            .extend(other.eqs.iter().map(|r| remap_row(r, &col_of, n)));
        self.ineqs.reserve(other.ineqs.len());
        self.ineqs
            .extend(other.ineqs.iter().map(|r| remap_row(r, &col_of, n)));
    }

    /// Moves the dimensions into a new space: `targets[i]` is the variable index in the
    /// result (over `new_space` dims followed by `n_exists` fresh existentials) that
    /// dimension `i` becomes. Dimensions of the new space not targeted are unconstrained.
    pub fn reshape(&self, new_space: Space, n_exists: usize, targets: &Targets) -> BasicMap {
        let mut b = BasicMap::universe(new_space);
        for _ in 0..n_exists {
            b.add_div(None);
        }
        b.absorb(self, targets);
        b
    }

    /// The composition `{ a -> c : ∃b: (a -> b) ∈ x ∧ (b -> c) ∈ y }` over `space`
    /// (`x`'s parameters and domain, `y`'s range), when `x` has no locals and each of its
    /// outputs is fixed by an equality of `x` in which it is the only output, with a unit
    /// coefficient (an access relation or a schedule, typically): the outputs are
    /// substituted by their values in the rows of `x` and `y`, and no existential is
    /// introduced for them. `None` when `x` is not of that form.
    pub(crate) fn compose_substituted(
        x: &BasicMap,
        y: &BasicMap,
        space: Space,
    ) -> Option<BasicMap> {
        if x.n_div() != 0 {
            return None;
        }
        let (np, nx, ny) = (x.space.n_params(), x.space.n_in(), x.space.n_out());
        let nz = y.space.n_out();
        let first_out = 1 + np + nx;
        // The value of each output, over `[const | params | inputs]`, and the equality
        // that gave it.
        let mut value: Vec<Option<(usize, Vec<Int>)>> = vec![None; ny];
        for (i, e) in x.eqs.iter().enumerate() {
            let mut outs = e[first_out..]
                .iter()
                .enumerate()
                .filter(|(_, c)| !c.is_zero());
            let (Some((k, a)), None) = (outs.next(), outs.next()) else {
                continue;
            };
            if value[k].is_some() || !(a.is_one() || (-a).is_one()) {
                continue;
            }
            // a·o + rest = 0, so o = -rest/a = -a·rest for a = ±1.
            let v = e[..first_out].iter().map(|c| -&(c * a)).collect();
            value[k] = Some((i, v));
        }
        let value: Vec<(usize, Vec<Int>)> = value.into_iter().collect::<Option<_>>()?;
        let width = first_out + nz + y.n_div();
        // A row whose columns `outs` (at `from`, `ny` of them) take their values, the
        // columns before `keep_upto` stay, and `rest` (from column `rest_from`) moves to
        // the columns after the inputs.
        let substituted = |r: &[Int], keep_upto: usize, from: usize, rest_from: usize| {
            let mut out: Vec<Int> = Vec::with_capacity(width);
            out.extend(r[..keep_upto].iter().cloned());
            out.resize_with(first_out, Int::zero);
            for (k, (_, v)) in value.iter().enumerate() {
                let f = &r[from + k];
                if f.is_zero() {
                    continue;
                }
                for (o, c) in out.iter_mut().zip(v) {
                    if !c.is_zero() {
                        *o = &*o + &(f * c);
                    }
                }
            }
            out.extend(r[rest_from..].iter().cloned());
            out.resize_with(width, Int::zero);
            out
        };
        let from_x = |r: &Vec<Int>| substituted(r, first_out, first_out, r.len());
        let from_y = |r: &Vec<Int>| substituted(r, 1 + np, 1 + np, 1 + np + ny);
        let mut b = BasicMap::universe(space);
        debug_assert_eq!(1 + b.n_dims() + y.n_div(), width);
        b.divs = y
            .divs
            .iter()
            .map(|d| {
                d.as_ref().map(|d| DivDef {
                    num: from_y(&d.num),
                    den: d.den.clone(),
                })
            })
            .collect();
        let used = |i: usize| value.iter().any(|(j, _)| *j == i);
        b.eqs = (x.eqs.iter().enumerate())
            .filter(|(i, _)| !used(*i))
            .map(|(_, r)| from_x(r))
            .chain(y.eqs.iter().map(from_y))
            .collect();
        b.ineqs = x
            .ineqs
            .iter()
            .map(from_x)
            .chain(y.ineqs.iter().map(from_y))
            .collect();
        b.simplified = false;
        Some(b)
    }

    /// Whether `self` holds `other` by the look of their constraints: the same space
    /// and local variables, and every constraint of `self` one of `other`'s, of the
    /// same kind. A sufficient test only (`false` says nothing).
    pub fn plainly_contains(&self, other: &BasicMap) -> bool {
        self.space == other.space
            && self.divs == other.divs
            && self.eqs.iter().all(|r| other.eqs.contains(r))
            && self.ineqs.iter().all(|r| other.ineqs.contains(r))
    }

    /// Intersection with a basic map of the same space.
    pub fn intersect(&self, other: &BasicMap) -> BasicMap {
        let mut b = self.clone();
        let targets: Vec<usize> = (0..other.n_dims()).collect();
        b.absorb(other, &targets);
        b
    }

    /// Whether local `k` is referenced by a constraint or a div definition.
    fn div_is_used(&self, k: usize) -> bool {
        let col = self.div_col(k);
        self.eqs
            .iter()
            .chain(self.ineqs.iter())
            .any(|r| !r[col].is_zero())
            || self.div_referenced_by_defs(k)
    }

    /// Whether a div definition references local `k`.
    pub fn div_referenced_by_defs(&self, k: usize) -> bool {
        let col = self.div_col(k);
        self.divs.iter().flatten().any(|d| !d.num[col].is_zero())
    }

    /// Removes local `k`, which must not be referenced by any definition.
    fn remove_div(&mut self, k: usize) {
        let col = self.div_col(k);
        debug_assert!(!self.div_referenced_by_defs(k));
        self.simplified = false;
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.remove(col);
        }
        self.divs.remove(k);
        for d in self.divs.iter_mut().flatten() {
            d.num.remove(col);
        }
    }

    /// Turns a known div into an existential, making its defining constraints explicit.
    pub fn forget_div_definition(&mut self, k: usize) {
        if self.divs[k].is_none() {
            return;
        }
        self.simplified = false;
        let col = self.div_col(k);
        let d = self.divs[k].take().expect("known div");
        let mut lo = d.num.clone();
        lo[col] = -&d.den;
        let mut hi: Vec<Int> = d.num.iter().map(|c| -c).collect();
        hi[col] = d.den.clone();
        hi[0] = &hi[0] + &d.den - Int::one();
        self.ineqs.push(lo);
        self.ineqs.push(hi);
    }

    /// Canonicalises the constraints: normalisation by gcd, removal of trivial and
    /// duplicate constraints, detection of empty, substitution of existentials fixed by
    /// equalities, recovery of div definitions, removal of unused locals, and exact
    /// elimination of existentials that Fourier–Motzkin removes exactly without growth.
    ///
    /// The result describes the same integer points.
    pub fn simplify(mut self) -> BasicMap {
        if self.simplified {
            debug_assert!(
                {
                    let mut again = self.clone();
                    again.simplified = false;
                    let again = again.simplify();
                    again.divs == self.divs && again.eqs == self.eqs && again.ineqs == self.ineqs
                },
                "simplifying a simplified basic map changes nothing"
            );
            return self;
        }
        // Whether the rows are what `normalize_rows` last made of them, untouched since.
        let mut normalized = false;
        // Whether the last round found nothing to change (a fixed point).
        let mut settled = false;
        for _round in 0..8 {
            let Some(eliminated) = self.gauss() else {
                return BasicMap::empty(self.space);
            };
            normalized &= !eliminated;
            // An equality found in a pair of opposite inequalities has not been through
            // Gaussian elimination yet: one more round.
            let mut changed = false;
            if !normalized {
                let Some(new_equality) = self.normalize_rows() else {
                    return BasicMap::empty(self.space);
                };
                normalized = true;
                changed = new_equality;
            }
            // Passes that rewrite rows leave them to be normalised again; removing a row,
            // or a column that is zero in every row, keeps them normalised.
            let mut rewritten = self.reduce_div_definitions();
            rewritten |= self.merge_duplicate_divs();
            let (removed, substituted) = self.eliminate_unit_existentials();
            rewritten |= substituted;
            rewritten |= self.detect_divs();
            rewritten |= self.drop_one_sided_existentials();
            rewritten |= self.eliminate_exact_existentials();
            let unused = self.remove_unused_divs();
            normalized &= !rewritten;
            changed |= rewritten || removed || unused;
            if !changed {
                settled = true;
                break;
            }
        }
        if !normalized && self.normalize_rows().is_none() {
            return BasicMap::empty(self.space);
        }
        self.sort_rows();
        debug_assert!(
            {
                let mut again = self.clone();
                again.normalize_rows().is_some() && {
                    again.sort_rows();
                    again.eqs == self.eqs && again.ineqs == self.ineqs
                }
            },
            "the rows of a simplified basic map are normalized"
        );
        self.simplified = settled;
        self
    }

    /// Brings the equalities into reduced echelon form, pivoting on the highest
    /// column first (so that locals are expressed through dimensions), and eliminates
    /// every pivot column from the other equalities and from the inequalities.
    /// Returns `None` when the equalities are contradictory, else whether a row changed.
    ///
    /// Elimination from an inequality multiplies it by a positive factor before adding a
    /// multiple of the equality, so the integer points are unchanged.
    fn gauss(&mut self) -> Option<bool> {
        let n = self.n_cols();
        let mut rows = std::mem::take(&mut self.eqs);
        let mut done = 0;
        let mut changed = false;
        for col in (1..n).rev() {
            let Some(p) = (done..rows.len())
                .filter(|&r| !rows[r][col].is_zero())
                .min_by(|&a, &b| rows[a][col].abs().cmp(&rows[b][col].abs()))
            else {
                continue;
            };
            // Reordering the equalities is no change: `normalize_rows` sorts them.
            rows.swap(done, p);
            let (before, rest) = rows.split_at_mut(done);
            let (pivot, after) = rest.split_first_mut().expect("the pivot row");
            for row in before.iter_mut().chain(after.iter_mut()) {
                if !row[col].is_zero() {
                    changed = true;
                    if !eliminate(row, pivot, col, true) {
                        self.eqs = Vec::new();
                        return None;
                    }
                }
            }
            for row in self.ineqs.iter_mut() {
                if !row[col].is_zero() {
                    changed = true;
                    eliminate(row, pivot, col, false);
                }
            }
            done += 1;
        }
        for r in &rows[done..] {
            if !r[0].is_zero() {
                return None;
            }
        }
        changed |= rows.len() != done;
        rows.truncate(done);
        self.eqs = rows;
        Some(changed)
    }

    /// Normalises rows: divides by the gcd of the coefficients, gives equalities a
    /// positive first coefficient, keeps the tightest of parallel inequalities and turns
    /// opposite pairs that meet into equalities. Returns `None` when a contradiction was
    /// found, else whether an equality was found that way.
    fn normalize_rows(&mut self) -> Option<bool> {
        let mut eqs = Vec::with_capacity(self.eqs.len());
        for mut r in std::mem::take(&mut self.eqs) {
            let g = gcd_slice(&r[1..]);
            if g.is_zero() {
                if !r[0].is_zero() {
                    return None;
                }
                continue;
            }
            if !g.divides(&r[0]) {
                return None;
            }
            if !g.is_one() {
                for c in r.iter_mut() {
                    *c = c.exact_div(&g);
                }
            }
            // Canonical sign: first non-zero coefficient positive.
            if r[1..]
                .iter()
                .find(|c| !c.is_zero())
                .is_some_and(Int::is_negative)
            {
                for c in r.iter_mut() {
                    *c = -&*c;
                }
            }
            eqs.push(r);
        }
        eqs.sort();
        eqs.dedup();
        let mut ineqs: Vec<Vec<Int>> = Vec::with_capacity(self.ineqs.len());
        for mut r in std::mem::take(&mut self.ineqs) {
            let g = gcd_slice(&r[1..]);
            if g.is_zero() {
                if r[0].is_negative() {
                    return None;
                }
                continue;
            }
            if !g.is_one() {
                r[0] = r[0].floor_div(&g);
                for c in r[1..].iter_mut() {
                    *c = c.exact_div(&g);
                }
            }
            ineqs.push(r);
        }
        // Keep the tightest of parallel inequalities; detect opposite pairs.
        ineqs.sort_by(|a, b| a[1..].cmp(&b[1..]).then_with(|| a[0].cmp(&b[0])));
        ineqs.dedup_by(|later, earlier| later[1..] == earlier[1..]);
        let mut keep = vec![true; ineqs.len()];
        let mut found_equality = false;
        for i in 0..ineqs.len() {
            // Each opposite pair is met once, from its member whose first non-zero
            // coefficient is positive.
            let first_positive = ineqs[i][1..]
                .iter()
                .find(|c| !c.is_zero())
                .is_some_and(Int::is_positive);
            if !keep[i] || !first_positive {
                continue;
            }
            let found =
                ineqs.binary_search_by(|r| crate::solver::cmp_negated(&r[1..], &ineqs[i][1..]));
            if let Ok(j) = found {
                let sum = &ineqs[i][0] + &ineqs[j][0];
                if sum.is_negative() {
                    return None;
                }
                if sum.is_zero() && keep[j] {
                    keep[i] = false;
                    keep[j] = false;
                    let mut e = ineqs[i].clone();
                    if e[1..]
                        .iter()
                        .find(|c| !c.is_zero())
                        .is_some_and(Int::is_negative)
                    {
                        e = ineqs[j].clone();
                    }
                    if !eqs.contains(&e) {
                        found_equality = true;
                        eqs.push(e);
                    }
                }
            }
        }
        // Inequalities implied by an equality with the same coefficients are dropped.
        self.ineqs = ineqs
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(r, _)| r)
            .filter(|r| {
                !eqs.iter().any(|e| {
                    (e[1..] == r[1..] && r[0] >= e[0])
                        || (e[1..].iter().zip(&r[1..]).all(|(a, b)| *a == -b) && r[0] >= -&e[0])
                })
            })
            .collect();
        eqs.sort();
        self.eqs = eqs;
        Some(found_equality)
    }

    fn sort_rows(&mut self) {
        self.eqs.sort();
        self.ineqs.sort();
    }

    /// Reduces known div definitions: divides numerator and denominator by their gcd,
    /// and moves whole multiples of the denominator out of the numerator
    /// (`floor((d·a + r)/d) = a + floor(r/d)` with every variable coefficient of `r` in
    /// `(-d/2, d/2]` and its constant in `[0, d)`), substituting
    /// the div by `a + q'` in every row and later definition. A div whose reduced
    /// numerator is a constant is replaced by its value and removed.
    fn reduce_div_definitions(&mut self) -> bool {
        let mut changed = false;
        let mut k = 0;
        while k < self.n_div() {
            let Some(def) = self.divs[k].clone() else {
                k += 1;
                continue;
            };
            let col = self.div_col(k);
            let (num, den) = normalize_div(def.num, def.den);
            // Variable coefficients are reduced into (-den/2, den/2], the constant into
            // [0, den).
            let two_den = &den * 2;
            let quot: Vec<Int> = num
                .iter()
                .enumerate()
                .map(|(i, c)| match i {
                    0 => c.floor_div(&den),
                    _ => (c * 2 - &den).ceil_div(&two_den),
                })
                .collect();
            let rem: Vec<Int> = num
                .iter()
                .zip(&quot)
                .map(|(c, q)| c - &(q * &den))
                .collect();
            let constant_rest = rem[1..].iter().all(Int::is_zero);
            if quot.iter().all(Int::is_zero) && !constant_rest {
                if den != self.divs[k].as_ref().expect("known").den {
                    self.divs[k] = Some(DivDef { num, den });
                    changed = true;
                }
                k += 1;
                continue;
            }
            // q = quot·x + q' with q' = floor(rem / den); when rem has no variable part,
            // q' is the constant floor(rem_0 / den) = 0 (as 0 <= rem_0 < den).
            let shift = quot;
            let rows = self.eqs.iter_mut().chain(self.ineqs.iter_mut());
            let nums = self.divs.iter_mut().flatten().map(|d| &mut d.num);
            for r in rows.chain(nums) {
                let f = r[col].clone();
                if f.is_zero() {
                    continue;
                }
                for (c, s) in r.iter_mut().zip(&shift) {
                    if !s.is_zero() {
                        *c = &*c + &(&f * s);
                    }
                }
            }
            changed = true;
            if constant_rest {
                // q' = 0: the div is gone from every row once its column is cleared.
                for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
                    r[col] = Int::zero();
                }
                for d in self.divs.iter_mut().flatten() {
                    d.num[col] = Int::zero();
                }
                self.divs[k] = None;
                self.remove_div(k);
            } else {
                self.divs[k] = Some(DivDef { num: rem, den });
                k += 1;
            }
        }
        changed
    }

    /// Merges known divs with identical definitions into the first of them.
    fn merge_duplicate_divs(&mut self) -> bool {
        let mut changed = false;
        let mut k2 = 1;
        while k2 < self.n_div() {
            let dup = self.divs[k2]
                .as_ref()
                .and_then(|d2| (0..k2).find(|&k1| self.divs[k1].as_ref() == Some(d2)));
            let Some(k1) = dup else {
                k2 += 1;
                continue;
            };
            let (c1, c2) = (self.div_col(k1), self.div_col(k2));
            let rows = self.eqs.iter_mut().chain(self.ineqs.iter_mut());
            let nums = self.divs.iter_mut().flatten().map(|d| &mut d.num);
            for r in rows.chain(nums) {
                if !r[c2].is_zero() {
                    let v = std::mem::take(&mut r[c2]);
                    r[c1] = &r[c1] + &v;
                }
            }
            self.remove_div(k2);
            changed = true;
        }
        changed
    }

    /// Substitutes away existentials that an equality fixes with a unit coefficient.
    /// Returns whether an existential was removed, and whether another row changed
    /// (an existential that is the pivot of its equality appears in no other row).
    fn eliminate_unit_existentials(&mut self) -> (bool, bool) {
        let mut changed = false;
        let mut substituted = false;
        'outer: loop {
            for k in (0..self.n_div()).rev() {
                if self.divs[k].is_some() || self.div_referenced_by_defs(k) {
                    continue;
                }
                let col = self.div_col(k);
                let Some(ei) = self
                    .eqs
                    .iter()
                    .position(|r| r[col].is_one() || (-&r[col]).is_one())
                else {
                    continue;
                };
                let mut e = self.eqs.remove(ei);
                if e[col].is_one() {
                    for c in e.iter_mut() {
                        *c = -&*c;
                    }
                }
                // Now e[col] = -1: the existential equals the rest of e.
                for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
                    substituted |= substitute(r, &e, col);
                }
                self.remove_div(k);
                changed = true;
                continue 'outer;
            }
            break;
        }
        (changed, substituted)
    }

    /// Recovers floor-division definitions of existentials from an equality `a·e = f`
    /// or a pair `f - d·e ≥ 0`, `d·e - f + c ≥ 0` with `0 ≤ c < d`.
    fn detect_divs(&mut self) -> bool {
        let mut changed = false;
        for k in 0..self.n_div() {
            if self.divs[k].is_some() {
                continue;
            }
            let col = self.div_col(k);
            let earlier_only = |r: &Vec<Int>| r[col + 1..].iter().all(Int::is_zero);
            // Equality a e + f = 0 with f over earlier columns: e = floor(-f / a) (exact).
            if let Some(r) = self
                .eqs
                .iter()
                .find(|r| !r[col].is_zero() && earlier_only(r))
                .cloned()
            {
                let a = r[col].clone();
                let mut num: Vec<Int> = r.iter().map(|c| -c).collect();
                num[col] = Int::zero();
                let (num, den) = if a.is_negative() {
                    (num.into_iter().map(|c| -c).collect(), -a)
                } else {
                    (num, a)
                };
                self.divs[k] = Some(DivDef { num, den });
                changed = true;
                continue;
            }
            // Pair of inequalities.
            let mut found = None;
            'search: for (i, lo) in self.ineqs.iter().enumerate() {
                if !lo[col].is_negative() || !earlier_only(lo) {
                    continue;
                }
                for (j, hi) in self.ineqs.iter().enumerate() {
                    if !hi[col].is_positive() || hi[col] != -&lo[col] {
                        continue;
                    }
                    if lo[1..]
                        .iter()
                        .zip(&hi[1..])
                        .enumerate()
                        .any(|(c, (a, b))| c + 1 != col && *a != -b)
                    {
                        continue;
                    }
                    let c = &lo[0] + &hi[0];
                    let d = &hi[col];
                    if !c.is_negative() && c < *d {
                        found = Some((i, j, c == d - &Int::one()));
                        break 'search;
                    }
                }
            }
            if let Some((i, j, exact)) = found {
                let lo = self.ineqs[i].clone();
                let den = -&lo[col];
                let mut num = lo;
                num[col] = Int::zero();
                self.divs[k] = Some(DivDef { num, den });
                if exact {
                    let (a, b) = (i.max(j), i.min(j));
                    self.ineqs.remove(a);
                    self.ineqs.remove(b);
                }
                changed = true;
            }
        }
        changed
    }

    /// The column of local `k` when it is an existential that no definition references
    /// and that appears in inequalities only.
    fn inequality_only_existential(&self, k: usize) -> Option<usize> {
        let col = self.div_col(k);
        let free = self.divs[k].is_none()
            && !self.div_referenced_by_defs(k)
            && self.eqs.iter().all(|r| r[col].is_zero());
        free.then_some(col)
    }

    /// Drops existentials bounded only from one side, with their constraints.
    fn drop_one_sided_existentials(&mut self) -> bool {
        let mut changed = false;
        for k in (0..self.n_div()).rev() {
            let Some(col) = self.inequality_only_existential(k) else {
                continue;
            };
            let pos = self.ineqs.iter().any(|r| r[col].is_positive());
            let neg = self.ineqs.iter().any(|r| r[col].is_negative());
            if pos && neg {
                continue;
            }
            self.ineqs.retain(|r| r[col].is_zero());
            self.remove_div(k);
            changed = true;
        }
        changed
    }

    /// Fourier–Motzkin elimination of existentials when it is exact over the integers
    /// (every lower/upper pair has a unit coefficient) and does not grow the system.
    fn eliminate_exact_existentials(&mut self) -> bool {
        let mut changed = false;
        for k in (0..self.n_div()).rev() {
            let Some(col) = self.inequality_only_existential(k) else {
                continue;
            };
            let lowers: Vec<&Vec<Int>> =
                self.ineqs.iter().filter(|r| r[col].is_positive()).collect();
            let uppers: Vec<&Vec<Int>> =
                self.ineqs.iter().filter(|r| r[col].is_negative()).collect();
            let exact = lowers.iter().all(|l| l[col].is_one())
                || uppers.iter().all(|u| (-&u[col]).is_one());
            if !exact || lowers.len() * uppers.len() > lowers.len() + uppers.len() {
                continue;
            }
            let mut new_rows = Vec::new();
            for l in &lowers {
                for u in &uppers {
                    let a = &l[col];
                    let b = -&u[col];
                    let row: Vec<Int> = l
                        .iter()
                        .zip(u.iter())
                        .map(|(x, y)| &b * x + a * y)
                        .collect();
                    new_rows.push(row);
                }
            }
            self.ineqs.retain(|r| r[col].is_zero());
            self.ineqs.extend(new_rows);
            self.remove_div(k);
            changed = true;
        }
        changed
    }

    /// Removes locals no constraint or definition references.
    fn remove_unused_divs(&mut self) -> bool {
        let mut changed = false;
        for k in (0..self.n_div()).rev() {
            if !self.div_is_used(k) {
                self.remove_div(k);
                changed = true;
            }
        }
        changed
    }

    /// Whether some local variable is an existential without definition.
    pub fn has_existentials(&self) -> bool {
        self.divs.iter().any(Option::is_none)
    }

    /// Renames the space's tuples and parameters (same dimension counts).
    pub fn set_space(&mut self, space: Space) {
        debug_assert_eq!(space.n_dims(), self.space.n_dims());
        self.space = space;
    }
}

/// Reduces a div definition by the gcd of its numerator and denominator.
pub fn normalize_div(mut num: Vec<Int>, mut den: Int) -> (Vec<Int>, Int) {
    let g = gcd_slice(&num).gcd(&den);
    if !g.is_zero() && !g.is_one() {
        for c in num.iter_mut() {
            *c = c.exact_div(&g);
        }
        den = den.exact_div(&g);
    }
    (num, den)
}

/// `r := r·(-e[col]) + r[col]·e` restricted to the case `e[col] = -1`, i.e. substitutes
/// the variable at `col` by the affine expression `e` without its `col` entry. Returns
/// whether `r` changed (whether it used the variable).
fn substitute(r: &mut [Int], e: &[Int], col: usize) -> bool {
    debug_assert!((-&e[col]).is_one());
    let f = r[col].clone();
    if f.is_zero() {
        return false;
    }
    for (c, x) in r.iter_mut().zip(e) {
        *c = &*c + &(&f * x);
    }
    r[col] = Int::zero();
    true
}

/// Eliminates `col` from `row` with the equality `pivot`: `row := m·row - k·pivot` with
/// `m > 0`, then divides by the gcd of the coefficients (for an inequality the constant is
/// rounded down). Returns `false` when an equality becomes `c = 0` with `c ≠ 0` or loses
/// integrality.
fn eliminate(row: &mut [Int], pivot: &[Int], col: usize, is_eq: bool) -> bool {
    let a = &pivot[col];
    let b = row[col].clone();
    let g = a.gcd(&b);
    let m = a.abs().exact_div(&g);
    let k = if a.is_negative() {
        -b.exact_div(&g)
    } else {
        b.exact_div(&g)
    };
    if m.is_one() {
        for (x, p) in row.iter_mut().zip(pivot) {
            if !p.is_zero() {
                *x = &*x - &(&k * p);
            }
        }
    } else {
        for (x, p) in row.iter_mut().zip(pivot) {
            *x = if p.is_zero() {
                &m * &*x
            } else {
                &m * &*x - &k * p
            };
        }
    }
    debug_assert!(row[col].is_zero());
    let g = gcd_slice(&row[1..]);
    if g.is_zero() {
        return !is_eq || row[0].is_zero();
    }
    if is_eq {
        if !g.divides(&row[0]) {
            return false;
        }
        for x in row.iter_mut() {
            *x = x.exact_div(&g);
        }
    } else if !g.is_one() {
        row[0] = row[0].floor_div(&g);
        for x in row[1..].iter_mut() {
            *x = x.exact_div(&g);
        }
    }
    true
}

/// Copies a row into a row of length `n`, moving entry `i` to `col_of[i]` (adding up).
fn remap_row(row: &[Int], col_of: &[usize], n: usize) -> Vec<Int> {
    let mut out = Vec::with_capacity(n);
    out.resize_with(n, Int::zero);
    for (c, &to) in row.iter().zip(col_of) {
        if c.is_zero() {
            continue;
        }
        let slot = &mut out[to];
        *slot = if slot.is_zero() {
            c.clone()
        } else {
            &*slot + c
        };
    }
    out
}
