//! Comparisons of maps and sets: inclusion, equality, disjointness, boundedness,
//! finiteness, single-valuedness and injectivity, plus the per-space versions for
//! union maps and union sets.
//!
//! - `A ⊆ B` iff every part of `A` minus `B` (made explicit, see
//!   [`crate::BasicMap::compute_divs`]) is empty; equality is inclusion both ways.
//! - Boundedness uses recession cones: a non-empty rational polyhedron `P` is unbounded
//!   in a coordinate iff its recession cone `{d : A·d ≥ 0, E·d = 0}` contains a direction
//!   with a non-zero entry there; when `P` has an integer point `x`, `x + t·d` (with `d`
//!   scaled to an integer vector) are integer points of `P` for every `t ≥ 0`, so the
//!   integer points are unbounded in that coordinate too (A. Schrijver, *Theory of
//!   Linear and Integer Programming*, §8.2). One LP per coordinate decides it.
//! - `M` is single-valued iff `M⁻¹ ; M` is contained in the identity; injective iff
//!   `M⁻¹` is single-valued.
//!
//! # Invariants
//! - every answer is exact over the integers (no rational approximation decides a
//!   comparison: cones are only consulted on parts with an integer point).

use pollen_arith::Int;

use crate::bmap::BasicMap;
use crate::error::{Budget, Result};
use crate::map::Map;
use crate::set::Set;
use crate::solver::{self, Optimum, System};
use crate::union::{UnionMap, UnionSet};

use super::subtract::subtract_from;
use super::{align_same_space, explicit_parts, is_empty};

/// Whether two basic maps over the same columns have the same locals and the same
/// constraint rows (both are kept sorted), and so the same points.
fn same_constraints(a: &BasicMap, b: &BasicMap) -> bool {
    a.n_cols() == b.n_cols() && a.divs() == b.divs() && a.eqs() == b.eqs() && a.ineqs() == b.ineqs()
}

impl Map {
    /// Whether every point of `self` is in `other`.
    pub fn is_subset(&self, other: &Map) -> Result<bool> {
        self.is_subset_with(other, &mut Budget::unlimited())
    }

    /// [`Map::is_subset`] within a budget.
    pub fn is_subset_with(&self, other: &Map, budget: &mut Budget) -> Result<bool> {
        let (a, b) = align_same_space(self, other, "is_subset")?;
        // A part that is also a part of `other` (the same constraints) is contained
        // without a subtraction; `other`'s explicit parts are computed on first need.
        let mut b_parts = None;
        for part in a.basic_maps() {
            if b.basic_maps().iter().any(|q| same_constraints(part, q)) {
                continue;
            }
            if b_parts.is_none() {
                b_parts = Some(explicit_parts(&b, budget)?);
            }
            let Some(b_parts) = &b_parts else {
                continue;
            };
            // Every piece is tested below, so an empty `part` needs no test of its own.
            for rest in subtract_from(vec![part.clone()], b_parts, budget)? {
                if !is_empty(&rest, budget)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Whether `self ⊆ other` and `self ≠ other`.
    pub fn is_strict_subset(&self, other: &Map) -> Result<bool> {
        self.is_strict_subset_with(other, &mut Budget::unlimited())
    }

    /// [`Map::is_strict_subset`] within a budget.
    pub fn is_strict_subset_with(&self, other: &Map, budget: &mut Budget) -> Result<bool> {
        Ok(self.is_subset_with(other, budget)? && !other.is_subset_with(self, budget)?)
    }

    /// Whether both maps have the same points.
    pub fn is_equal(&self, other: &Map) -> Result<bool> {
        self.is_equal_with(other, &mut Budget::unlimited())
    }

    /// [`Map::is_equal`] within a budget.
    pub fn is_equal_with(&self, other: &Map, budget: &mut Budget) -> Result<bool> {
        let (a, b) = align_same_space(self, other, "is_equal")?;
        // The same parts with the same constraints, in order: equal without a test.
        let (pa, pb) = (a.basic_maps(), b.basic_maps());
        if pa.len() == pb.len() && pa.iter().zip(pb).all(|(p, q)| same_constraints(p, q)) {
            return Ok(true);
        }
        Ok(a.is_subset_with(&b, budget)? && b.is_subset_with(&a, budget)?)
    }

    /// Whether the maps have no point in common.
    pub fn is_disjoint(&self, other: &Map) -> Result<bool> {
        self.is_disjoint_with(other, &mut Budget::unlimited())
    }

    /// [`Map::is_disjoint`] within a budget.
    pub fn is_disjoint_with(&self, other: &Map, budget: &mut Budget) -> Result<bool> {
        let (a, b) = align_same_space(self, other, "is_disjoint")?;
        for p in a.intersect(&b)?.basic_maps() {
            if !is_empty(p, budget)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the map is bounded for every fixed value of the parameters: for each
    /// parameter value, only finitely many (input, output) tuples belong to it
    /// (isl's `isl_map_is_bounded`). The empty map is bounded.
    pub fn is_bounded(&self) -> Result<bool> {
        self.is_bounded_with(&mut Budget::unlimited())
    }

    /// [`Map::is_bounded`] within a budget.
    pub fn is_bounded_with(&self, budget: &mut Budget) -> Result<bool> {
        self.bounded(true, budget)
    }

    /// Whether only finitely many (input, output) tuples belong to the map over all
    /// values of the parameters together, i.e. the map is bounded and its tuples are
    /// bounded independently of the parameters. Without parameters this is
    /// [`Map::is_bounded`].
    pub fn is_finite(&self) -> Result<bool> {
        self.is_finite_with(&mut Budget::unlimited())
    }

    /// [`Map::is_finite`] within a budget.
    pub fn is_finite_with(&self, budget: &mut Budget) -> Result<bool> {
        self.bounded(false, budget)
    }

    /// Whether some part has no constraint at all (a syntactic test: a `false` answer
    /// does not mean the map differs from the universe).
    pub fn plain_is_universe(&self) -> bool {
        self.basic_maps()
            .iter()
            .any(|b| b.eqs().is_empty() && b.ineqs().is_empty())
    }

    /// Whether every input is mapped to at most one output.
    pub fn is_single_valued(&self) -> Result<bool> {
        self.is_single_valued_with(&mut Budget::unlimited())
    }

    /// [`Map::is_single_valued`] within a budget.
    pub fn is_single_valued_with(&self, budget: &mut Budget) -> Result<bool> {
        let pairs = if self.space().is_map() {
            self.reverse().apply_range(self)?
        } else if self.space().is_set() {
            // A set is single-valued when it has at most one point per parameter value.
            Map::from_domain_and_range(self, self)?
        } else {
            return Ok(true);
        };
        let identity = Map::identity(&self.space().range_space());
        pairs.is_subset_with(&identity, budget)
    }

    /// Whether no two inputs are mapped to the same output.
    pub fn is_injective(&self) -> Result<bool> {
        self.is_injective_with(&mut Budget::unlimited())
    }

    /// [`Map::is_injective`] within a budget.
    pub fn is_injective_with(&self, budget: &mut Budget) -> Result<bool> {
        self.reverse().is_single_valued_with(budget)
    }

    /// Boundedness of the (input, output) coordinates; with `fix_params` the parameters'
    /// directions are forced to zero.
    fn bounded(&self, fix_params: bool, budget: &mut Budget) -> Result<bool> {
        let np = self.space().n_params();
        for b in self.basic_maps() {
            if is_empty(b, budget)? {
                continue;
            }
            if !part_bounded(b, np, fix_params, budget)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Whether the non-empty basic map `b` is bounded in its non-parameter dimensions.
fn part_bounded(b: &BasicMap, np: usize, fix_params: bool, budget: &mut Budget) -> Result<bool> {
    let mut cone: System = b.to_system();
    for r in cone.eqs.iter_mut().chain(cone.ineqs.iter_mut()) {
        r[0] = Int::zero();
    }
    if fix_params {
        for p in 0..np {
            let mut row = vec![Int::zero(); cone.n_vars + 1];
            row[1 + p] = Int::one();
            cone.eqs.push(row);
        }
    }
    for i in np..b.n_dims() {
        let mut objective = vec![Int::zero(); cone.n_vars + 1];
        objective[1 + i] = Int::one();
        if matches!(
            solver::rational_max(&cone, &objective, budget)?,
            Optimum::Unbounded
        ) {
            return Ok(false);
        }
        if matches!(
            solver::rational_min(&cone, &objective, budget)?,
            Optimum::Unbounded
        ) {
            return Ok(false);
        }
    }
    Ok(true)
}

impl Set {
    /// Whether every point of `self` is in `other`.
    pub fn is_subset(&self, other: &Set) -> Result<bool> {
        self.as_map().is_subset(other.as_map())
    }

    /// [`Set::is_subset`] within a budget.
    pub fn is_subset_with(&self, other: &Set, budget: &mut Budget) -> Result<bool> {
        self.as_map().is_subset_with(other.as_map(), budget)
    }

    /// Whether `self ⊆ other` and `self ≠ other`.
    pub fn is_strict_subset(&self, other: &Set) -> Result<bool> {
        self.as_map().is_strict_subset(other.as_map())
    }

    /// [`Set::is_strict_subset`] within a budget.
    pub fn is_strict_subset_with(&self, other: &Set, budget: &mut Budget) -> Result<bool> {
        self.as_map().is_strict_subset_with(other.as_map(), budget)
    }

    /// Whether both sets have the same points.
    pub fn is_equal(&self, other: &Set) -> Result<bool> {
        self.as_map().is_equal(other.as_map())
    }

    /// [`Set::is_equal`] within a budget.
    pub fn is_equal_with(&self, other: &Set, budget: &mut Budget) -> Result<bool> {
        self.as_map().is_equal_with(other.as_map(), budget)
    }

    /// Whether the sets have no point in common.
    pub fn is_disjoint(&self, other: &Set) -> Result<bool> {
        self.as_map().is_disjoint(other.as_map())
    }

    /// [`Set::is_disjoint`] within a budget.
    pub fn is_disjoint_with(&self, other: &Set, budget: &mut Budget) -> Result<bool> {
        self.as_map().is_disjoint_with(other.as_map(), budget)
    }

    /// Whether the set is bounded for every fixed value of the parameters
    /// (isl's `isl_set_is_bounded`).
    pub fn is_bounded(&self) -> Result<bool> {
        self.as_map().is_bounded()
    }

    /// [`Set::is_bounded`] within a budget.
    pub fn is_bounded_with(&self, budget: &mut Budget) -> Result<bool> {
        self.as_map().is_bounded_with(budget)
    }

    /// Whether the set has finitely many tuples over all parameter values together
    /// (see [`Map::is_finite`]).
    pub fn is_finite(&self) -> Result<bool> {
        self.as_map().is_finite()
    }

    /// [`Set::is_finite`] within a budget.
    pub fn is_finite_with(&self, budget: &mut Budget) -> Result<bool> {
        self.as_map().is_finite_with(budget)
    }

    /// Whether some part has no constraint at all (syntactic).
    pub fn plain_is_universe(&self) -> bool {
        self.as_map().plain_is_universe()
    }
}

impl UnionMap {
    /// `self ∖ other`, space by space.
    pub fn subtract(&self, other: &UnionMap) -> Result<UnionMap> {
        self.subtract_with(other, &mut Budget::unlimited())
    }

    /// [`UnionMap::subtract`] within a budget.
    pub fn subtract_with(&self, other: &UnionMap, budget: &mut Budget) -> Result<UnionMap> {
        let params = crate::map::merged_params(self.param_names(), other.param_names());
        let mut out = UnionMap::empty(params);
        for m in self.maps() {
            let rest = match other.get(&m.space().tuples_key()) {
                Some(o) => m.subtract_with(o, budget)?,
                None => m.clone(),
            };
            if !rest.is_obviously_empty() {
                out.add_map(rest)?;
            }
        }
        Ok(out)
    }

    /// Whether every map of `self` is contained in the map of `other` of its space.
    pub fn is_subset(&self, other: &UnionMap) -> Result<bool> {
        self.is_subset_with(other, &mut Budget::unlimited())
    }

    /// [`UnionMap::is_subset`] within a budget.
    pub fn is_subset_with(&self, other: &UnionMap, budget: &mut Budget) -> Result<bool> {
        for m in self.maps() {
            let inside = match other.get(&m.space().tuples_key()) {
                Some(o) => m.is_subset_with(o, budget)?,
                None => m.is_empty_with(budget)?,
            };
            if !inside {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether both unions have the same points in every space.
    pub fn is_equal(&self, other: &UnionMap) -> Result<bool> {
        self.is_equal_with(other, &mut Budget::unlimited())
    }

    /// [`UnionMap::is_equal`] within a budget.
    pub fn is_equal_with(&self, other: &UnionMap, budget: &mut Budget) -> Result<bool> {
        Ok(self.is_subset_with(other, budget)? && other.is_subset_with(self, budget)?)
    }
}

impl UnionSet {
    /// `self ∖ other`, space by space.
    pub fn subtract(&self, other: &UnionSet) -> Result<UnionSet> {
        self.subtract_with(other, &mut Budget::unlimited())
    }

    /// [`UnionSet::subtract`] within a budget.
    pub fn subtract_with(&self, other: &UnionSet, budget: &mut Budget) -> Result<UnionSet> {
        let u = self
            .as_union_map()
            .subtract_with(other.as_union_map(), budget)?;
        Ok(u.into_union_set()
            .unwrap_or_else(|| UnionSet::empty(Vec::new())))
    }

    /// Whether every set of `self` is contained in the set of `other` of its space.
    pub fn is_subset(&self, other: &UnionSet) -> Result<bool> {
        self.as_union_map().is_subset(other.as_union_map())
    }

    /// [`UnionSet::is_subset`] within a budget.
    pub fn is_subset_with(&self, other: &UnionSet, budget: &mut Budget) -> Result<bool> {
        self.as_union_map()
            .is_subset_with(other.as_union_map(), budget)
    }

    /// Whether both unions have the same points in every space.
    pub fn is_equal(&self, other: &UnionSet) -> Result<bool> {
        self.as_union_map().is_equal(other.as_union_map())
    }

    /// [`UnionSet::is_equal`] within a budget.
    pub fn is_equal_with(&self, other: &UnionSet, budget: &mut Budget) -> Result<bool> {
        self.as_union_map()
            .is_equal_with(other.as_union_map(), budget)
    }
}
