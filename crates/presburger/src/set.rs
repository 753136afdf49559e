//! Sets: maps without an input tuple, as newtypes so that the type checker keeps
//! sets and maps apart.
//!
//! [`BasicSet`] wraps a [`BasicMap`] and [`Set`] wraps a [`Map`] whose space is a set
//! space (or a parameter domain). Every operation delegates to the map operation.

use pollen_arith::Int;

use crate::bmap::BasicMap;
use crate::error::{Budget, Error, Result};
use crate::map::{mismatch, Map};
use crate::space::{DimKind, Space};

/// One conjunction of constraints in a set space.
#[derive(Clone, Debug)]
pub struct BasicSet(BasicMap);

/// A finite union of basic sets in one set space.
#[derive(Clone, Debug)]
pub struct Set(Map);

impl BasicSet {
    /// Wraps a basic map whose space is a set space or a parameter domain.
    pub fn from_basic_map(b: BasicMap) -> Result<BasicSet> {
        if b.space().is_map() {
            return Err(Error::Unsupported("a basic set needs a set space".into()));
        }
        Ok(BasicSet(b))
    }

    /// The whole set space.
    pub fn universe(space: Space) -> BasicSet {
        BasicSet(BasicMap::universe(space))
    }

    /// The underlying basic map.
    pub fn as_basic_map(&self) -> &BasicMap {
        &self.0
    }

    /// Consumes into the underlying basic map.
    pub fn into_basic_map(self) -> BasicMap {
        self.0
    }

    /// The space.
    pub fn space(&self) -> &Space {
        self.0.space()
    }
}

impl From<BasicSet> for Set {
    fn from(b: BasicSet) -> Set {
        Set(Map::from_basic(b.0))
    }
}

impl Set {
    /// Wraps a map whose space is a set space or a parameter domain.
    pub fn from_map(m: Map) -> Result<Set> {
        if m.space().is_map() {
            return Err(Error::Unsupported(
                "expected a set, found a map".to_string(),
            ));
        }
        Ok(Set(m))
    }

    /// Wraps without checking; the caller guarantees a set space.
    pub(crate) fn wrap_map(m: Map) -> Set {
        debug_assert!(!m.space().is_map());
        Set(m)
    }

    /// The empty set of a space.
    pub fn empty(space: Space) -> Set {
        Set(Map::empty(space))
    }

    /// The universe of a space.
    pub fn universe(space: Space) -> Set {
        Set(Map::universe(space))
    }

    /// The underlying map.
    pub fn as_map(&self) -> &Map {
        &self.0
    }

    /// Consumes into the underlying map.
    pub fn into_map(self) -> Map {
        self.0
    }

    /// The space.
    pub fn space(&self) -> &Space {
        self.0.space()
    }

    /// Number of set dimensions.
    pub fn n_dims(&self) -> usize {
        self.0.space().n_out()
    }

    /// Number of parameters.
    pub fn n_params(&self) -> usize {
        self.0.space().n_params()
    }

    /// The basic sets of the union.
    pub fn basic_sets(&self) -> impl Iterator<Item = BasicSet> + '_ {
        self.0.basic_maps().iter().cloned().map(BasicSet)
    }

    /// Union.
    pub fn union(&self, other: &Set) -> Result<Set> {
        Ok(Set(self.0.union(&other.0)?))
    }

    /// Intersection.
    pub fn intersect(&self, other: &Set) -> Result<Set> {
        Ok(Set(self.0.intersect(&other.0)?))
    }

    /// Intersection with a parameter domain.
    pub fn intersect_params(&self, params: &Set) -> Result<Set> {
        if self.space().is_params() {
            return self.intersect(params);
        }
        Ok(Set(self.0.intersect_params(&params.0)?))
    }

    /// Whether the set has no integer point.
    pub fn is_empty(&self) -> Result<bool> {
        self.0.is_empty()
    }

    /// [`Set::is_empty`] within a budget.
    pub fn is_empty_with(&self, budget: &mut Budget) -> Result<bool> {
        self.0.is_empty_with(budget)
    }

    /// An integer point of the set (params first), if any.
    pub fn sample(&self) -> Result<Option<Vec<Int>>> {
        self.0.sample()
    }

    /// [`Set::sample`] within a budget.
    pub fn sample_with(&self, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
        self.0.sample_with(budget)
    }

    /// Whether the point (params, then set dims) is in the set.
    pub fn contains_point(&self, point: &[Int]) -> Result<bool> {
        self.0.contains_point(point)
    }

    /// Projects out `n` set dimensions (or parameters) from `first`.
    pub fn project_out(&self, kind: DimKind, first: usize, n: usize) -> Result<Set> {
        if kind == DimKind::In {
            return Err(Error::Unsupported("a set has no input dimensions".into()));
        }
        Ok(Set(self.0.project_out(kind, first, n)?))
    }

    /// Removes the constraints on dimensions, keeping them.
    pub fn eliminate(&self, kind: DimKind, first: usize, n: usize) -> Result<Set> {
        Ok(Set(self.0.eliminate(kind, first, n)?))
    }

    /// The parameter domain where the set is non-empty.
    pub fn params(&self) -> Set {
        Set(self.0.params())
    }

    /// The image under a map.
    pub fn apply(&self, map: &Map) -> Result<Set> {
        Ok(Set(map.apply_to_set(&self.0)?))
    }

    /// The map `{ [x -> y] }` unwrapped from a set of wrapped pairs.
    pub fn unwrap(&self) -> Result<Map> {
        self.0.unwrap()
    }

    /// The identity map on this set.
    pub fn identity(&self) -> Result<Map> {
        Map::identity(self.space()).intersect_domain(&self.0)
    }

    /// The set product `{ [x -> y] : x ∈ self, y ∈ other }`.
    pub fn product(&self, other: &Set) -> Result<Set> {
        Ok(Set(self.0.set_product(&other.0)?))
    }

    /// Fixes a set dimension (`DimKind::Out`) or parameter to a value.
    pub fn fix_val(&self, kind: DimKind, pos: usize, value: &Int) -> Result<Set> {
        Ok(Set(self.0.fix_val(kind, pos, value)?))
    }

    /// Adds `dim ≥ value`.
    pub fn lower_bound_val(&self, kind: DimKind, pos: usize, value: &Int) -> Result<Set> {
        Ok(Set(self.0.lower_bound_val(kind, pos, value)?))
    }

    /// Adds `dim ≤ value`.
    pub fn upper_bound_val(&self, kind: DimKind, pos: usize, value: &Int) -> Result<Set> {
        Ok(Set(self.0.upper_bound_val(kind, pos, value)?))
    }

    /// The same set over a parameter list containing all of its parameters.
    pub fn align_params(&self, params: &[String]) -> Result<Set> {
        Ok(Set(self.0.align_params(params)?))
    }

    /// The map `{ x -> y : x ∈ self, y ∈ range }`.
    pub fn cross(&self, range: &Set) -> Result<Map> {
        Map::from_domain_and_range(&self.0, &range.0)
    }

    /// Checks that two sets have the same tuples.
    pub fn check_same_space(&self, other: &Set, op: &'static str) -> Result<()> {
        if self.space().tuples_match(other.space()) {
            Ok(())
        } else {
            Err(mismatch(op, self.space(), other.space()))
        }
    }
}

impl Map {
    /// The domain as a [`Set`].
    pub fn domain_set(&self) -> Set {
        Set::wrap_map(self.domain())
    }

    /// The range as a [`Set`].
    pub fn range_set(&self) -> Set {
        Set::wrap_map(self.range())
    }

    /// The wrapped set `{ [x -> y] }`.
    pub fn wrap_set(&self) -> Set {
        Set::wrap_map(self.wrap())
    }

    /// The deltas `{ y - x }` as a [`Set`].
    pub fn deltas_set(&self) -> Result<Set> {
        Ok(Set::wrap_map(self.deltas()?))
    }

    /// The parameter domain as a [`Set`].
    pub fn params_set(&self) -> Set {
        Set::wrap_map(self.params())
    }
}
