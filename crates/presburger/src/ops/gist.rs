//! Gist (simplification with respect to a context), redundancy removal and detection of
//! implicit equalities.
//!
//! - `gist(A, C)` (isl's `isl_map_gist`) returns `A'` with `A' ∩ C = A ∩ C`, as simple as
//!   the greedy method finds: parts of `A` disjoint from `C` are dropped, and a constraint
//!   `c` of a part is dropped when `C_i ∧ rest ∧ ¬c` has no integer point for every part
//!   `C_i` of the context (`rest` being the part's other constraints still kept). Each
//!   drop preserves `A' ∩ C`, so the greedy order is sound. An equality is dropped when
//!   both of its strict sides are excluded, and weakened to the inequality that is not
//!   implied when only one side is.
//! - `remove_redundancies` drops the inequalities that the others imply over the
//!   rationals (one LP each, [`crate::solver::redundant_inequalities`]), then those the
//!   others imply over the integers (one emptiness test each).
//! - `detect_equalities` turns the inequalities that hold with equality at every integer
//!   point into equalities ([`crate::solver::implicit_equalities`]).
//! - `simplify` removes empty parts, detects equalities, removes redundancies and
//!   coalesces.
//!
//! The defining constraints of known divs are never dropped: they are definitions.
//!
//! # Invariants
//! - `remove_redundancies`, `detect_equalities` and `simplify` return a map with the same
//!   integer points; `gist(A, C) ∩ C = A ∩ C`.

use pollen_arith::{Int, IntMatrix};

use crate::bmap::BasicMap;
use crate::error::{Budget, Result};
use crate::map::Map;
use crate::set::Set;
use crate::solver;

use super::{
    align_same_space, capped, map_with_parts, negate, nonempty_parts, opposite, proven_empty,
    with_constraints,
};

impl Map {
    /// A map `A'` with `A' ∩ context = self ∩ context`, with the constraints the context
    /// implies removed (isl's `isl_map_gist`). Parts disjoint from the context are dropped.
    pub fn gist(&self, context: &Map) -> Result<Map> {
        self.gist_with(context, &mut Budget::unlimited())
    }

    /// [`Map::gist`] within a budget.
    pub fn gist_with(&self, context: &Map, budget: &mut Budget) -> Result<Map> {
        let (a, c) = align_same_space(self, context, "gist")?;
        let ctx = nonempty_parts(&c, budget)?;
        let mut parts = Vec::new();
        for p in a.basic_maps() {
            if let Some(g) = gist_basic(p, &ctx, budget)? {
                if g.eqs().is_empty() && g.ineqs().is_empty() {
                    return Ok(Map::universe(a.space().clone()));
                }
                parts.push(g);
            }
        }
        map_with_parts(&a, parts)
    }

    /// [`Map::gist`] with respect to a parameter domain.
    pub fn gist_params(&self, params: &Map) -> Result<Map> {
        self.gist_params_with(params, &mut Budget::unlimited())
    }

    /// [`Map::gist_params`] within a budget.
    pub fn gist_params_with(&self, params: &Map, budget: &mut Budget) -> Result<Map> {
        let (a, p) = Map::align_pair(self, params)?;
        let context = Map::universe(a.space().clone()).intersect_params(&p)?;
        a.gist_with(&context, budget)
    }

    /// The same map with redundant inequalities removed from every part (rationally
    /// redundant ones first, then those implied over the integers) and empty parts
    /// dropped.
    pub fn remove_redundancies(&self) -> Result<Map> {
        self.remove_redundancies_with(&mut Budget::unlimited())
    }

    /// [`Map::remove_redundancies`] within a budget.
    pub fn remove_redundancies_with(&self, budget: &mut Budget) -> Result<Map> {
        let mut parts = Vec::new();
        for b in nonempty_parts(self, budget)? {
            parts.push(remove_redundant_basic(&b, budget)?);
        }
        map_with_parts(self, parts)
    }

    /// The same map with the implicit equalities of every part made explicit and empty
    /// parts dropped.
    pub fn detect_equalities(&self) -> Result<Map> {
        self.detect_equalities_with(&mut Budget::unlimited())
    }

    /// [`Map::detect_equalities`] within a budget.
    pub fn detect_equalities_with(&self, budget: &mut Budget) -> Result<Map> {
        let mut parts = Vec::new();
        for b in nonempty_parts(self, budget)? {
            parts.push(detect_equalities_basic(&b, budget)?);
        }
        map_with_parts(self, parts)
    }

    /// Removes empty parts, detects equalities, removes redundant constraints and
    /// coalesces: the same points, usually in fewer and smaller parts.
    pub fn simplify(&self) -> Result<Map> {
        self.simplify_with(&mut Budget::unlimited())
    }

    /// [`Map::simplify`] within a budget.
    pub fn simplify_with(&self, budget: &mut Budget) -> Result<Map> {
        self.detect_equalities_with(budget)?
            .remove_redundancies_with(budget)?
            .coalesce_with(budget)
    }
}

impl Set {
    /// A set `A'` with `A' ∩ context = self ∩ context` (see [`Map::gist`]).
    pub fn gist(&self, context: &Set) -> Result<Set> {
        self.gist_with(context, &mut Budget::unlimited())
    }

    /// [`Set::gist`] within a budget.
    pub fn gist_with(&self, context: &Set, budget: &mut Budget) -> Result<Set> {
        Ok(Set::wrap_map(
            self.as_map().gist_with(context.as_map(), budget)?,
        ))
    }

    /// [`Set::gist`] with respect to a parameter domain.
    pub fn gist_params(&self, params: &Set) -> Result<Set> {
        self.gist_params_with(params, &mut Budget::unlimited())
    }

    /// [`Set::gist_params`] within a budget.
    pub fn gist_params_with(&self, params: &Set, budget: &mut Budget) -> Result<Set> {
        Ok(Set::wrap_map(
            self.as_map().gist_params_with(params.as_map(), budget)?,
        ))
    }

    /// See [`Map::remove_redundancies`].
    pub fn remove_redundancies(&self) -> Result<Set> {
        self.remove_redundancies_with(&mut Budget::unlimited())
    }

    /// [`Set::remove_redundancies`] within a budget.
    pub fn remove_redundancies_with(&self, budget: &mut Budget) -> Result<Set> {
        Ok(Set::wrap_map(
            self.as_map().remove_redundancies_with(budget)?,
        ))
    }

    /// See [`Map::detect_equalities`].
    pub fn detect_equalities(&self) -> Result<Set> {
        self.detect_equalities_with(&mut Budget::unlimited())
    }

    /// [`Set::detect_equalities`] within a budget.
    pub fn detect_equalities_with(&self, budget: &mut Budget) -> Result<Set> {
        Ok(Set::wrap_map(self.as_map().detect_equalities_with(budget)?))
    }

    /// See [`Map::simplify`].
    pub fn simplify(&self) -> Result<Set> {
        self.simplify_with(&mut Budget::unlimited())
    }

    /// [`Set::simplify`] within a budget.
    pub fn simplify_with(&self, budget: &mut Budget) -> Result<Set> {
        Ok(Set::wrap_map(self.as_map().simplify_with(budget)?))
    }
}

/// Whether `test` has no integer point inside any part of the context.
fn excluded_by(test: &BasicMap, context: &[BasicMap], budget: &mut Budget) -> Result<bool> {
    let test = test.clone().simplify();
    if test.is_obviously_empty() {
        return Ok(true);
    }
    for c in context {
        if !proven_empty(&test.intersect(c).simplify(), budget)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The gist of one part, `None` when it is disjoint from the context.
fn gist_basic(p: &BasicMap, context: &[BasicMap], budget: &mut Budget) -> Result<Option<BasicMap>> {
    if excluded_by(p, context, budget)? {
        return Ok(None);
    }
    let mut eqs = p.eqs().to_vec();
    let mut ineqs = p.ineqs().to_vec();
    let mut i = 0;
    while i < eqs.len() {
        budget.tick(1)?;
        let e = eqs.remove(i);
        let below = with_constraints(p, eqs.clone(), extended(&ineqs, negate(&e)))?;
        let above = with_constraints(p, eqs.clone(), extended(&ineqs, negate(&opposite(&e))))?;
        // `below` excluded: e ≥ 0 is implied; `above` excluded: e ≤ 0 is implied.
        match (
            excluded_by(&below, context, budget)?,
            excluded_by(&above, context, budget)?,
        ) {
            (true, true) => {}
            (true, false) => ineqs.push(opposite(&e)),
            (false, true) => ineqs.push(e),
            (false, false) => {
                eqs.insert(i, e);
                i += 1;
            }
        }
    }
    let mut i = 0;
    while i < ineqs.len() {
        budget.tick(1)?;
        let c = ineqs.remove(i);
        let test = with_constraints(p, eqs.clone(), extended(&ineqs, negate(&c)))?;
        if !excluded_by(&test, context, budget)? {
            ineqs.insert(i, c);
            i += 1;
        }
    }
    Ok(Some(with_constraints(p, eqs, ineqs)?.simplify()))
}

/// `rows` with `extra` appended.
fn extended(rows: &[Vec<Int>], extra: Vec<Int>) -> Vec<Vec<Int>> {
    let mut out = rows.to_vec();
    out.push(extra);
    out
}

/// Removes rationally redundant inequalities, then those proven implied by the others
/// over the integers.
pub(crate) fn remove_redundant_basic(b: &BasicMap, budget: &mut Budget) -> Result<BasicMap> {
    let b = remove_rationally_redundant(b, budget)?;
    let mut ineqs = b.ineqs().to_vec();
    let mut i = 0;
    while i < ineqs.len() {
        budget.tick(1)?;
        let c = ineqs.remove(i);
        let test = with_constraints(&b, b.eqs().to_vec(), extended(&ineqs, negate(&c)))?;
        if !proven_empty(&test.simplify(), budget)? {
            ineqs.insert(i, c);
            i += 1;
        }
    }
    Ok(with_constraints(&b, b.eqs().to_vec(), ineqs)?.simplify())
}

/// Removes the inequalities implied by the others over the rationals (one LP each; div
/// definitions are kept); a rationally empty basic map becomes the canonical empty one.
pub(crate) fn remove_rationally_redundant(b: &BasicMap, budget: &mut Budget) -> Result<BasicMap> {
    Ok(rationally_irredundant(b, budget)?.unwrap_or_else(|| BasicMap::empty(b.space().clone())))
}

/// [`remove_rationally_redundant`], with `None` for a rationally empty basic map.
pub(crate) fn rationally_irredundant(
    b: &BasicMap,
    budget: &mut Budget,
) -> Result<Option<BasicMap>> {
    let sys = b.to_system();
    let Some(redundant) = solver::redundant_among_first(&sys, b.ineqs().len(), budget)? else {
        return Ok(None);
    };
    if redundant.is_empty() {
        return Ok(Some(b.clone()));
    }
    let ineqs: Vec<Vec<Int>> = b
        .ineqs()
        .iter()
        .enumerate()
        .filter(|(i, _)| redundant.binary_search(i).is_err())
        .map(|(_, r)| r.clone())
        .collect();
    Ok(Some(
        with_constraints(b, b.eqs().to_vec(), ineqs)?.simplify(),
    ))
}

/// Makes the implicit equalities of a basic map explicit (leaving it as it is when the
/// solver's cap runs out).
fn detect_equalities_basic(b: &BasicMap, budget: &mut Budget) -> Result<BasicMap> {
    let n = b.ineqs().len();
    let sys = b.to_system();
    let Some(implicit) = capped(budget, |local| solver::implicit_equalities(&sys, local))? else {
        return Ok(b.clone());
    };
    if implicit.is_empty() {
        return Ok(b.clone());
    }
    let mut eqs = b.eqs().to_vec();
    let mut ineqs = Vec::with_capacity(n);
    for (i, r) in b.ineqs().iter().enumerate() {
        if implicit.binary_search(&i).is_ok() {
            eqs.push(r.clone());
        } else {
            ineqs.push(r.clone());
        }
    }
    for &i in implicit.iter().filter(|&&i| i >= n) {
        eqs.push(sys.ineqs[i].clone());
    }
    Ok(with_constraints(b, independent(eqs), ineqs)?.simplify())
}

/// The equalities without those linearly dependent on earlier ones (the integer points
/// of a system of equalities depend only on its rational row space).
fn independent(eqs: Vec<Vec<Int>>) -> Vec<Vec<Int>> {
    let mut kept: Vec<Vec<Int>> = Vec::with_capacity(eqs.len());
    for e in eqs {
        let mut trial = kept.clone();
        trial.push(e.clone());
        if IntMatrix::from_rows(trial).rank() > kept.len() {
            kept.push(e);
        }
    }
    kept
}
