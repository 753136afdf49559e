//! Maps: finite unions of basic maps in one space, and the structural operations on them.
//!
//! A [`Map`] is isl's `isl_map`. The operations here are the ones that only rearrange
//! constraints (intersection, union, projection, composition, products, ...); they
//! introduce existential locals where isl would and never lose or add integer points.
//! Operations that need the integer solver or quantifier elimination (subtraction,
//! lexmin, coalescing, ...) live in their own modules.
//!
//! Binary operations align parameters by name first (the result has the left operand's
//! parameters followed by the right operand's new ones) and then require the tuples to
//! match, failing with [`Error::SpaceMismatch`] otherwise.

use std::borrow::Cow;
use std::sync::Arc;

use pollen_arith::Int;

use crate::bmap::BasicMap;
use crate::error::{Budget, Error, Result};
use crate::space::{DimKind, Space, Tuple, Tuples};

/// A finite union of basic maps in one space.
#[derive(Clone, Debug)]
pub struct Map {
    space: Space,
    /// Shared between copies, copied on the first change: a copy of a map, and an
    /// operation that gives its operand back unchanged, cost a reference count.
    parts: Arc<Vec<BasicMap>>,
}

/// The most parts a union, an intersection or a composition may produce: past it they
/// fail with [`Error::LimitExceeded`] instead of exhausting memory. Part counts grow
/// multiplicatively through intersections and compositions of unions, and none of the
/// library's own algorithms needs this many.
pub const MAX_PARTS: usize = 1 << 16;

/// [`Error::LimitExceeded`] when `parts` is more than [`MAX_PARTS`].
fn within_parts(parts: usize) -> Result<()> {
    if parts > MAX_PARTS {
        Err(Error::LimitExceeded)
    } else {
        Ok(())
    }
}

impl Map {
    /// The empty map of a space.
    pub fn empty(space: Space) -> Map {
        Map {
            space,
            parts: Arc::default(),
        }
    }

    /// The universe of a space.
    pub fn universe(space: Space) -> Map {
        Map::from_basic(BasicMap::universe(space))
    }

    /// The map of one basic map.
    pub fn from_basic(b: BasicMap) -> Map {
        let space = b.space().clone();
        let b = b.simplify();
        let parts = if b.is_obviously_empty() {
            Vec::new()
        } else {
            vec![b]
        };
        Map {
            space,
            parts: Arc::new(parts),
        }
    }

    /// The union of basic maps, all of which must live in `space`.
    pub fn from_parts(space: Space, parts: Vec<BasicMap>) -> Result<Map> {
        let mut kept = Vec::with_capacity(parts.len());
        for b in parts {
            if b.space() != &space {
                return Err(mismatch("Map::from_parts", &space, b.space()));
            }
            let b = b.simplify();
            if !b.is_obviously_empty() {
                kept.push(b);
            }
        }
        Ok(Map {
            space,
            parts: Arc::new(kept),
        })
    }

    /// Adds a basic map (simplified; dropped when obviously empty).
    pub fn push(&mut self, b: BasicMap) {
        let b = b.simplify();
        if !b.is_obviously_empty() {
            Arc::make_mut(&mut self.parts).push(b);
        }
    }

    /// The space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The basic maps of the union.
    pub fn basic_maps(&self) -> &[BasicMap] {
        &self.parts
    }

    /// Consumes the map into its basic maps.
    pub fn into_basic_maps(self) -> Vec<BasicMap> {
        Arc::unwrap_or_clone(self.parts)
    }

    /// Whether the union has no basic map at all (a sufficient condition for emptiness).
    pub fn is_obviously_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Replaces the space by one with the same dimension counts (renaming tuples).
    pub fn with_space(self, space: Space) -> Map {
        Map {
            parts: Arc::new(
                Arc::unwrap_or_clone(self.parts)
                    .into_iter()
                    .map(|b| b.with_space(space.clone()))
                    .collect(),
            ),
            space,
        }
    }

    // ----- parameters -----

    /// The same map over a parameter list that contains all of its parameters.
    pub fn align_params(&self, params: &[String]) -> Result<Map> {
        if params == self.space.param_names() {
            return Ok(self.clone());
        }
        let mut targets = Vec::with_capacity(self.space.n_dims());
        for p in self.space.param_names() {
            let Some(i) = params.iter().position(|q| q == p) else {
                return Err(Error::Unsupported(format!(
                    "align_params: parameter {p} missing from the target list"
                )));
            };
            targets.push(i);
        }
        let np = params.len();
        targets.extend((0..self.space.n_in() + self.space.n_out()).map(|i| np + i));
        let space = self.space.with_params(params.to_vec());
        Ok(self.map_parts(space, 0, &targets))
    }

    /// Aligns the parameters of two maps (left's first, then right's new ones).
    pub fn align_pair(a: &Map, b: &Map) -> Result<(Map, Map)> {
        if a.space.param_names() == b.space.param_names() {
            return Ok((a.clone(), b.clone()));
        }
        let params = merged_params(a.space.param_names(), b.space.param_names());
        Ok((a.align_params(&params)?, b.align_params(&params)?))
    }

    /// [`Map::align_pair`] without copying when the parameters already agree.
    pub(crate) fn align_pair_ref<'a>(
        a: &'a Map,
        b: &'a Map,
    ) -> Result<(Cow<'a, Map>, Cow<'a, Map>)> {
        if a.space.param_names() == b.space.param_names() {
            return Ok((Cow::Borrowed(a), Cow::Borrowed(b)));
        }
        let (a, b) = Map::align_pair(a, b)?;
        Ok((Cow::Owned(a), Cow::Owned(b)))
    }

    /// Reshapes every part (see [`BasicMap::reshape`]).
    fn map_parts(&self, space: Space, n_exists: usize, targets: &[usize]) -> Map {
        let mut m = Map::empty(space.clone());
        for b in self.parts.iter() {
            m.push(b.reshape(space.clone(), n_exists, targets));
        }
        m
    }

    // ----- boolean algebra -----

    /// Union.
    ///
    /// Errors with [`Error::LimitExceeded`] when the result would have more than
    /// [`MAX_PARTS`] parts.
    pub fn union(&self, other: &Map) -> Result<Map> {
        let (a, b) = Map::align_pair(self, other)?;
        a.check_same_tuples(&b, "union")?;
        within_parts(a.parts.len().saturating_add(b.parts.len()))?;
        let mut m = a;
        Arc::make_mut(&mut m.parts).extend(Arc::unwrap_or_clone(b.parts));
        Ok(m)
    }

    /// Intersection.
    ///
    /// Errors with [`Error::LimitExceeded`] when the pairwise intersections of the parts
    /// would be more than [`MAX_PARTS`].
    pub fn intersect(&self, other: &Map) -> Result<Map> {
        let (a, b) = Map::align_pair_ref(self, other)?;
        a.check_same_tuples(&b, "intersect")?;
        let mut m = Map::empty(a.space.clone());
        for x in a.parts.iter() {
            // A part that lies inside one part of the other map is its own
            // intersection with the whole union: intersecting a union with one that
            // holds it (a statement's domain with itself) keeps its number of pieces
            // instead of squaring it.
            if b.parts.len() > 1 && b.parts.iter().any(|y| y.plainly_contains(x)) {
                m.push(x.clone());
                continue;
            }
            within_parts(m.parts.len().saturating_add(b.parts.len()))?;
            for y in b.parts.iter() {
                m.push(x.intersect(y));
            }
        }
        Ok(m)
    }

    /// Intersection of the domain with a set.
    pub fn intersect_domain(&self, set: &Map) -> Result<Map> {
        let (a, s) = Map::align_pair(self, set)?;
        if !s.space.is_set() || Some(s.space.range_tuple().unwrap()) != a.space.domain_tuple() {
            return Err(mismatch("intersect_domain", &a.space, &s.space));
        }
        let np = a.space.n_params();
        let targets: Vec<usize> = (0..np + a.space.n_in()).collect();
        let lifted = s.map_parts(a.space.clone(), 0, &targets);
        a.intersect(&lifted)
    }

    /// Intersection of the range with a set.
    pub fn intersect_range(&self, set: &Map) -> Result<Map> {
        let (a, s) = Map::align_pair(self, set)?;
        if !s.space.is_set() || s.space.range_tuple() != a.space.range_tuple() {
            return Err(mismatch("intersect_range", &a.space, &s.space));
        }
        let np = a.space.n_params();
        let off = np + a.space.n_in();
        let targets: Vec<usize> = (0..np)
            .chain((0..a.space.n_out()).map(|i| off + i))
            .collect();
        let lifted = s.map_parts(a.space.clone(), 0, &targets);
        a.intersect(&lifted)
    }

    /// Intersection with a parameter domain.
    pub fn intersect_params(&self, params: &Map) -> Result<Map> {
        let (a, p) = Map::align_pair(self, params)?;
        if !p.space.is_params() {
            return Err(mismatch("intersect_params", &a.space, &p.space));
        }
        let targets: Vec<usize> = (0..a.space.n_params()).collect();
        let lifted = p.map_parts(a.space.clone(), 0, &targets);
        a.intersect(&lifted)
    }

    // ----- queries -----

    /// Whether the map contains no integer point.
    pub fn is_empty(&self) -> Result<bool> {
        self.is_empty_with(&mut Budget::unlimited())
    }

    /// [`Map::is_empty`] within a budget.
    pub fn is_empty_with(&self, budget: &mut Budget) -> Result<bool> {
        for b in self.parts.iter() {
            if !b.is_empty(budget)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// An integer point (params, then in, then out), if any.
    pub fn sample(&self) -> Result<Option<Vec<Int>>> {
        self.sample_with(&mut Budget::unlimited())
    }

    /// [`Map::sample`] within a budget.
    pub fn sample_with(&self, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
        for b in self.parts.iter() {
            if let Some(p) = b.sample(budget)? {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }

    /// Whether the point (params, in, out) belongs to the map.
    pub fn contains_point(&self, point: &[Int]) -> Result<bool> {
        let mut budget = Budget::unlimited();
        for b in self.parts.iter() {
            if b.contains_point(point, &mut budget)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Drops the parts that contain no integer point.
    pub fn remove_empty_parts(&self, budget: &mut Budget) -> Result<Map> {
        let mut m = Map::empty(self.space.clone());
        for b in self.parts.iter() {
            if !b.is_empty(budget)? {
                Arc::make_mut(&mut m.parts).push(b.clone());
            }
        }
        Ok(m)
    }

    // ----- projections and rearrangements -----

    /// The inverse map.
    pub fn reverse(&self) -> Map {
        let space = self.space.reverse();
        let (np, ni, no) = (self.space.n_params(), self.space.n_in(), self.space.n_out());
        let targets: Vec<usize> = (0..np)
            .chain((0..ni).map(|i| np + no + i))
            .chain((0..no).map(|i| np + i))
            .collect();
        self.map_parts(space, 0, &targets)
    }

    /// The domain, as a set.
    pub fn domain(&self) -> Map {
        let (np, ni, no) = (self.space.n_params(), self.space.n_in(), self.space.n_out());
        let space = self.space.domain_space();
        let nd = np + ni;
        let targets: Vec<usize> = (0..nd).chain((0..no).map(|i| nd + i)).collect();
        self.map_parts(space, no, &targets)
    }

    /// The range, as a set.
    pub fn range(&self) -> Map {
        let (np, ni, no) = (self.space.n_params(), self.space.n_in(), self.space.n_out());
        let space = self.space.range_space();
        let n = np + no;
        let targets: Vec<usize> = (0..np)
            .chain((0..ni).map(|i| n + i))
            .chain((0..no).map(|i| np + i))
            .collect();
        self.map_parts(space, ni, &targets)
    }

    /// The parameter domain: the parameter values for which the map is non-empty.
    pub fn params(&self) -> Map {
        let np = self.space.n_params();
        let nrest = self.space.n_in() + self.space.n_out();
        let targets: Vec<usize> = (0..np + nrest).collect();
        self.map_parts(self.space.params_space(), nrest, &targets)
    }

    /// Projects out `n` dimensions of `kind` starting at `first` (they become existential).
    pub fn project_out(&self, kind: DimKind, first: usize, n: usize) -> Result<Map> {
        if first + n > self.space.n(kind) {
            return Err(Error::Unsupported(format!(
                "project_out: dimensions {first}..{} out of range",
                first + n
            )));
        }
        let space = remove_dims(&self.space, kind, first, n);
        let off = self.space.offset(kind) + first;
        let kept = self.space.n_dims() - n;
        let targets: Vec<usize> = (0..self.space.n_dims())
            .map(|i| {
                if i < off {
                    i
                } else if i < off + n {
                    kept + (i - off)
                } else {
                    i - n
                }
            })
            .collect();
        Ok(self.map_parts(space, n, &targets))
    }

    /// Removes every constraint on `n` dimensions of `kind` starting at `first`, keeping
    /// the dimensions (they become unconstrained).
    pub fn eliminate(&self, kind: DimKind, first: usize, n: usize) -> Result<Map> {
        let projected = self.project_out(kind, first, n)?;
        let off = self.space.offset(kind) + first;
        let total = self.space.n_dims();
        let targets: Vec<usize> = (0..total - n)
            .map(|i| if i < off { i } else { i + n })
            .collect();
        Ok(projected.map_parts(self.space.clone(), 0, &targets))
    }

    /// Composition: `self` then `other` (`{ x -> z : ∃y: x->y ∈ self, y->z ∈ other }`).
    ///
    /// Errors with [`Error::LimitExceeded`] when the compositions of the parts would be
    /// more than [`MAX_PARTS`].
    pub fn apply_range(&self, other: &Map) -> Result<Map> {
        let (a, b) = Map::align_pair_ref(self, other)?;
        if a.space.range_tuple() != b.space.domain_tuple() || !a.space.is_map() {
            return Err(mismatch("apply_range", &a.space, &b.space));
        }
        within_parts(a.parts.len().saturating_mul(b.parts.len()))?;
        let (np, nx, ny, nz) = (
            a.space.n_params(),
            a.space.n_in(),
            a.space.n_out(),
            b.space.n_out(),
        );
        let space = Space::map(
            a.space.param_names().to_vec(),
            a.space.domain_tuple().unwrap().clone(),
            b.space.range_tuple().unwrap().clone(),
        );
        let n = np + nx + nz;
        let ta: Vec<usize> = (0..np + nx).chain((0..ny).map(|i| n + i)).collect();
        let tb: Vec<usize> = (0..np)
            .chain((0..ny).map(|i| n + i))
            .chain((0..nz).map(|i| np + nx + i))
            .collect();
        let mut m = Map::empty(space.clone());
        for x in a.parts.iter() {
            for y in b.parts.iter() {
                let joint =
                    BasicMap::compose_substituted(x, y, space.clone()).unwrap_or_else(|| {
                        let mut joint = x.reshape(space.clone(), ny, &ta);
                        joint.absorb(y, &tb);
                        joint
                    });
                m.push(joint);
            }
        }
        Ok(m)
    }

    /// `{ y -> z : ∃x: x->y ∈ self... }`: applies `other` to the domain: `other⁻¹ ; self`.
    pub fn apply_domain(&self, other: &Map) -> Result<Map> {
        Ok(self.reverse().apply_range(other)?.reverse())
    }

    /// The image of a set under this map.
    pub fn apply_to_set(&self, set: &Map) -> Result<Map> {
        let (m, s) = Map::align_pair(self, set)?;
        if !s.space.is_set() || s.space.range_tuple() != m.space.domain_tuple() {
            return Err(mismatch("apply", &s.space, &m.space));
        }
        Ok(m.intersect_domain(&s)?.range())
    }

    /// `{ y - x : x -> y ∈ self }` for maps whose tuples have equal arity.
    pub fn deltas(&self) -> Result<Map> {
        let (np, ni, no) = (self.space.n_params(), self.space.n_in(), self.space.n_out());
        if ni != no || !self.space.is_map() {
            return Err(Error::Unsupported(
                "deltas: domain and range dimensions differ".into(),
            ));
        }
        // As isl: the deltas of a map within one space live in that space.
        let tuple = match (self.space.domain_tuple(), self.space.range_tuple()) {
            (Some(d), Some(r)) if d == r => r.clone(),
            _ => Tuple::anonymous(no),
        };
        let space = Space::set(self.space.param_names().to_vec(), tuple);
        // New layout: params, deltas d (no), then existentials x (ni), y (no).
        let n = np + no;
        let targets: Vec<usize> = (0..np)
            .chain((0..ni).map(|i| n + i))
            .chain((0..no).map(|i| n + ni + i))
            .collect();
        let mut m = Map::empty(space.clone());
        for b in self.parts.iter() {
            let mut joint = b.reshape(space.clone(), ni + no, &targets);
            for i in 0..no {
                // d_i - y_i + x_i = 0
                let mut row = joint.zero_row();
                row[1 + np + i] = Int::one();
                row[1 + n + ni + i] = -Int::one();
                row[1 + n + i] = Int::one();
                joint.add_eq(row);
            }
            m.push(joint);
        }
        Ok(m)
    }

    /// The set `{ [x -> y] : x -> y ∈ self }`.
    pub fn wrap(&self) -> Map {
        let space = self.space.wrap();
        self.clone().with_space(space)
    }

    /// The map wrapped in a set whose tuple is a wrapped pair.
    pub fn unwrap(&self) -> Result<Map> {
        match self.space.unwrap() {
            Some(space) => Ok(self.clone().with_space(space)),
            None => Err(Error::Unsupported(
                "unwrap: the set's tuple is not a wrapped pair".into(),
            )),
        }
    }

    /// The map `{ x -> y : x ∈ domain, y ∈ range }`.
    pub fn from_domain_and_range(domain: &Map, range: &Map) -> Result<Map> {
        let (d, r) = Map::align_pair(domain, range)?;
        if !d.space.is_set() || !r.space.is_set() {
            return Err(mismatch("from_domain_and_range", &d.space, &r.space));
        }
        let space = Space::map_from(&d.space, &r.space);
        let np = space.n_params();
        let (ni, no) = (space.n_in(), space.n_out());
        let td: Vec<usize> = (0..np + ni).collect();
        let tr: Vec<usize> = (0..np).chain((0..no).map(|i| np + ni + i)).collect();
        let dm = d.map_parts(space.clone(), 0, &td);
        let rm = r.map_parts(space, 0, &tr);
        dm.intersect(&rm)
    }

    /// `{ [x1 -> x2] -> [y1 -> y2] : x1 -> y1 ∈ self, x2 -> y2 ∈ other }`.
    pub fn product(&self, other: &Map) -> Result<Map> {
        let (a, b) = Map::align_pair(self, other)?;
        let ((ad, ar), (bd, br)) = map_tuples_pair(&a, &b, "product")?;
        let space = a.space.with_tuples(Tuples::Map(
            Tuple::wrapped(None, ad.clone(), bd.clone()),
            Tuple::wrapped(None, ar.clone(), br.clone()),
        ));
        let np = space.n_params();
        let (nx1, ny1, nx2, ny2) = (ad.n_dims(), ar.n_dims(), bd.n_dims(), br.n_dims());
        let ta: Vec<usize> = (0..np + nx1)
            .chain((0..ny1).map(|i| np + nx1 + nx2 + i))
            .collect();
        let tb: Vec<usize> = (0..np)
            .chain((0..nx2).map(|i| np + nx1 + i))
            .chain((0..ny2).map(|i| np + nx1 + nx2 + ny1 + i))
            .collect();
        let am = a.map_parts(space.clone(), 0, &ta);
        let bm = b.map_parts(space, 0, &tb);
        am.intersect(&bm)
    }

    /// `{ x -> [y1, y2] : x -> y1 ∈ self, x -> y2 ∈ other }`: the range product with the
    /// two range tuples concatenated into one anonymous tuple (isl's
    /// `flat_range_product`).
    pub fn flat_range_product(&self, other: &Map) -> Result<Map> {
        let product = self.range_product(other)?;
        let space = product.space();
        let domain = space
            .domain_tuple()
            .cloned()
            .ok_or_else(|| mismatch("flat_range_product", self.space(), other.space()))?;
        let flat = Space::map(
            space.param_names().to_vec(),
            domain,
            Tuple::anonymous(space.n_out()),
        );
        Ok(product.with_space(flat))
    }

    /// `{ x -> [y1 -> y2] : x -> y1 ∈ self, x -> y2 ∈ other }`.
    pub fn range_product(&self, other: &Map) -> Result<Map> {
        let (a, b) = Map::align_pair(self, other)?;
        let ((ad, ar), (bd, br)) = map_tuples_pair(&a, &b, "range_product")?;
        if ad != bd {
            return Err(mismatch("range_product", &a.space, &b.space));
        }
        let space = a.space.with_tuples(Tuples::Map(
            ad.clone(),
            Tuple::wrapped(None, ar.clone(), br.clone()),
        ));
        let np = space.n_params();
        let (nx, ny1, ny2) = (ad.n_dims(), ar.n_dims(), br.n_dims());
        let ta: Vec<usize> = (0..np + nx + ny1).collect();
        let tb: Vec<usize> = (0..np + nx)
            .chain((0..ny2).map(|i| np + nx + ny1 + i))
            .collect();
        let am = a.map_parts(space.clone(), 0, &ta);
        let bm = b.map_parts(space, 0, &tb);
        am.intersect(&bm)
    }

    /// `{ [x1 -> x2] -> y : x1 -> y ∈ self, x2 -> y ∈ other }`.
    pub fn domain_product(&self, other: &Map) -> Result<Map> {
        Ok(self.reverse().range_product(&other.reverse())?.reverse())
    }

    /// The set product `{ [x -> y] : x ∈ self, y ∈ other }` of two sets.
    pub fn set_product(&self, other: &Map) -> Result<Map> {
        Ok(Map::from_domain_and_range(self, other)?.wrap())
    }

    // ----- bounds -----

    fn dim_row(&self, kind: DimKind, pos: usize) -> Result<usize> {
        if pos >= self.space.n(kind) {
            return Err(Error::Unsupported(format!(
                "dimension {pos} of kind {kind:?} out of range"
            )));
        }
        Ok(1 + self.space.offset(kind) + pos)
    }

    fn add_to_parts(&self, f: impl Fn(&mut BasicMap)) -> Map {
        let mut m = Map::empty(self.space.clone());
        for b in self.parts.iter() {
            let mut b = b.clone();
            f(&mut b);
            m.push(b);
        }
        m
    }

    /// Adds `sign·(dim - value) ≥ 0` (an equality when `is_eq`) to every part.
    fn bound_dim(
        &self,
        kind: DimKind,
        pos: usize,
        value: &Int,
        sign: i64,
        is_eq: bool,
    ) -> Result<Map> {
        let col = self.dim_row(kind, pos)?;
        Ok(self.add_to_parts(|b| {
            let mut row = b.zero_row();
            row[0] = -value * sign;
            row[col] = Int::from(sign);
            if is_eq {
                b.add_eq(row);
            } else {
                b.add_ineq(row);
            }
        }))
    }

    /// Fixes a dimension to a value.
    pub fn fix_val(&self, kind: DimKind, pos: usize, value: &Int) -> Result<Map> {
        self.bound_dim(kind, pos, value, 1, true)
    }

    /// Adds `dim ≥ value`.
    pub fn lower_bound_val(&self, kind: DimKind, pos: usize, value: &Int) -> Result<Map> {
        self.bound_dim(kind, pos, value, 1, false)
    }

    /// Adds `dim ≤ value`.
    pub fn upper_bound_val(&self, kind: DimKind, pos: usize, value: &Int) -> Result<Map> {
        self.bound_dim(kind, pos, value, -1, false)
    }

    /// Adds `dim1 = dim2` between two dimensions.
    pub fn equate(&self, k1: DimKind, p1: usize, k2: DimKind, p2: usize) -> Result<Map> {
        let c1 = self.dim_row(k1, p1)?;
        let c2 = self.dim_row(k2, p2)?;
        Ok(self.add_to_parts(|b| {
            let mut row = b.zero_row();
            row[c1] = &row[c1] + Int::one();
            row[c2] = &row[c2] - Int::one();
            b.add_eq(row);
        }))
    }

    // ----- special maps -----

    /// The identity map on a set space.
    pub fn identity(set_space: &Space) -> Map {
        let space = Space::map_from(set_space, set_space);
        let mut b = BasicMap::universe(space.clone());
        let (np, n) = (space.n_params(), space.n_in());
        for i in 0..n {
            let mut row = b.zero_row();
            row[1 + np + i] = Int::one();
            row[1 + np + n + i] = -Int::one();
            b.add_eq(row);
        }
        Map::from_basic(b)
    }

    /// `{ x -> y : x ≺ y }` (lexicographically smaller) on a set space; with `strict`
    /// false, `x ≼ y`.
    pub fn lex_lt(set_space: &Space, strict: bool) -> Map {
        let space = Space::map_from(set_space, set_space);
        let (np, n) = (space.n_params(), space.n_in());
        let mut m = Map::empty(space.clone());
        for level in 0..=n {
            if level == n && strict {
                break;
            }
            let mut b = BasicMap::universe(space.clone());
            for i in 0..level.min(n) {
                let mut row = b.zero_row();
                row[1 + np + i] = Int::one();
                row[1 + np + n + i] = -Int::one();
                b.add_eq(row);
            }
            if level < n {
                // y_level - x_level - 1 >= 0
                let mut row = b.zero_row();
                row[0] = -Int::one();
                row[1 + np + level] = -Int::one();
                row[1 + np + n + level] = Int::one();
                b.add_ineq(row);
            }
            m.push(b);
        }
        m
    }

    // ----- checks -----

    fn check_same_tuples(&self, other: &Map, op: &'static str) -> Result<()> {
        if self.space.tuples_match(&other.space) {
            Ok(())
        } else {
            Err(mismatch(op, &self.space, &other.space))
        }
    }
}

/// The domain and range tuples of a map.
type TuplePair<'a> = (&'a Tuple, &'a Tuple);

/// The domain and range tuples of two maps, or a mismatch error naming `op` when either
/// operand is not a map.
fn map_tuples_pair<'a>(
    a: &'a Map,
    b: &'a Map,
    op: &'static str,
) -> Result<(TuplePair<'a>, TuplePair<'a>)> {
    match (a.space.tuples(), b.space.tuples()) {
        (Tuples::Map(ad, ar), Tuples::Map(bd, br)) => Ok(((ad, ar), (bd, br))),
        _ => Err(mismatch(op, &a.space, &b.space)),
    }
}

/// The parameter list of `a` followed by those of `b` that `a` lacks.
pub fn merged_params(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for p in b {
        if !out.contains(p) {
            out.push(p.clone());
        }
    }
    out
}

/// A space-mismatch error.
pub fn mismatch(operation: &'static str, left: &Space, right: &Space) -> Error {
    Error::SpaceMismatch {
        operation,
        left: left.to_string(),
        right: right.to_string(),
    }
}

/// The space without `n` dimensions of `kind` from `first` (dimension names kept for the rest).
pub fn remove_dims(space: &Space, kind: DimKind, first: usize, n: usize) -> Space {
    let cut = |t: &Tuple| {
        let names: Vec<Option<String>> = t
            .dim_names()
            .iter()
            .enumerate()
            .filter(|(i, _)| *i < first || *i >= first + n)
            .map(|(_, d)| d.clone())
            .collect();
        Tuple::with_names(t.name().map(str::to_string), names)
    };
    match kind {
        DimKind::Param => {
            let params: Vec<String> = space
                .param_names()
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < first || *i >= first + n)
                .map(|(_, p)| p.clone())
                .collect();
            space.with_params(params)
        }
        DimKind::In => match space.tuples() {
            Tuples::Map(d, r) => space.with_tuples(Tuples::Map(cut(d), r.clone())),
            _ => space.clone(),
        },
        DimKind::Out => match space.tuples() {
            Tuples::Map(d, r) => space.with_tuples(Tuples::Map(d.clone(), cut(r))),
            Tuples::Set(t) => space.with_tuples(Tuples::Set(cut(t))),
            Tuples::Params => space.clone(),
        },
    }
}
