//! Subtraction and complement.
//!
//! `A ∖ B` for a basic map `B` whose locals are all known divs (see
//! [`BasicMap::compute_divs`]) is the disjoint union over `B`'s constraints
//! `c_1, ..., c_n` (an equality counting as its two inequalities) of
//! `A ∧ c_1 ∧ ... ∧ c_{k-1} ∧ ¬c_k`, with `¬(r ≥ 0) = (-r - 1 ≥ 0)`; `B`'s divs are added
//! to `A` first and their defining constraints are never negated (they are definitions,
//! true everywhere). This is isl's `isl_map_subtract` scheme.
//!
//! To keep answers small: a part of `A` proven disjoint from `B` is kept whole; a piece
//! proven empty by the integer solver is dropped, and its constraint `c_k`, then implied,
//! is not added to the later pieces. For a union `B = B_1 ∪ ... ∪ B_m` the pieces are
//! subtracted from one `B_j` after the other. The proofs are searched within the solver
//! cap of [`super::capped`]: a piece whose emptiness is not settled in time is kept.
//!
//! # Invariants
//! - the result has exactly the integer points of `A` not in `B`;
//! - its parts are pairwise disjoint pieces of the parts of `A`; every piece was found
//!   non-empty or left undecided by a capped emptiness test.

use crate::bmap::BasicMap;
use crate::error::{Budget, Result};
use crate::map::Map;
use crate::set::Set;

use pollen_arith::Int;

use crate::solver::{Polyhedron, System};

use super::{
    align_same_space, explicit_parts, implied_by_parallel, import_constraints, map_with_parts,
    negate, proven_empty, rounded_witness,
};

impl Map {
    /// `self ∖ other`: the points of `self` not in `other`.
    ///
    /// Parameters are aligned by name; the tuples must agree
    /// ([`crate::Error::SpaceMismatch`] otherwise).
    pub fn subtract(&self, other: &Map) -> Result<Map> {
        self.subtract_with(other, &mut Budget::unlimited())
    }

    /// [`Map::subtract`] within a budget.
    pub fn subtract_with(&self, other: &Map, budget: &mut Budget) -> Result<Map> {
        let (a, b) = align_same_space(self, other, "subtract")?;
        if a.is_obviously_empty() || b.is_obviously_empty() {
            // Nothing to take away, or nothing to take it from.
            return Ok(a.into_owned());
        }
        let b_parts = explicit_parts(&b, budget)?;
        let parts = subtract_parts(a.basic_maps().to_vec(), &b_parts, budget)?;
        map_with_parts(&a, parts)
    }

    /// The complement: every point of the space not in `self`.
    pub fn complement(&self) -> Result<Map> {
        self.complement_with(&mut Budget::unlimited())
    }

    /// [`Map::complement`] within a budget.
    pub fn complement_with(&self, budget: &mut Budget) -> Result<Map> {
        if self.is_obviously_empty() {
            return Ok(Map::universe(self.space().clone()));
        }
        Map::universe(self.space().clone()).subtract_with(self, budget)
    }
}

impl Set {
    /// `self ∖ other`.
    pub fn subtract(&self, other: &Set) -> Result<Set> {
        self.subtract_with(other, &mut Budget::unlimited())
    }

    /// [`Set::subtract`] within a budget.
    pub fn subtract_with(&self, other: &Set, budget: &mut Budget) -> Result<Set> {
        Ok(Set::wrap_map(
            self.as_map().subtract_with(other.as_map(), budget)?,
        ))
    }

    /// The complement in the set's space.
    pub fn complement(&self) -> Result<Set> {
        self.complement_with(&mut Budget::unlimited())
    }

    /// [`Set::complement`] within a budget.
    pub fn complement_with(&self, budget: &mut Budget) -> Result<Set> {
        Ok(Set::wrap_map(self.as_map().complement_with(budget)?))
    }
}

/// `∪ parts ∖ ∪ others`, where every local of `others` is a known div. Parts of `parts`
/// proven empty are dropped first.
pub(crate) fn subtract_parts(
    parts: Vec<BasicMap>,
    others: &[BasicMap],
    budget: &mut Budget,
) -> Result<Vec<BasicMap>> {
    let mut current = Vec::with_capacity(parts.len());
    for p in parts {
        if !proven_empty(&p, budget)? {
            current.push(p);
        }
    }
    subtract_from(current, others, budget)
}

/// `∪ parts ∖ ∪ others`, where every local of `others` is a known div, without the
/// emptiness test of `parts`: a part that is empty may come back as a piece of the
/// result (for callers that test the pieces anyway).
pub(crate) fn subtract_from(
    mut current: Vec<BasicMap>,
    others: &[BasicMap],
    budget: &mut Budget,
) -> Result<Vec<BasicMap>> {
    for b in others {
        let mut next = Vec::with_capacity(current.len());
        for a in &current {
            next.extend(subtract_basic(a, b, budget)?);
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    Ok(current)
}

/// `a ∖ b` for a `b` whose locals are all known divs: disjoint pieces, none proven
/// empty (`[a]` itself when `a` and `b` are proven disjoint).
///
/// One rational tableau of `a ∧ c_1 ∧ … ∧ c_{k-1}` serves every piece: a copy of it
/// takes `¬c_k`, and a piece is dropped at once when that copy is empty, kept at once
/// when the copy's sample, rounded, is an integer point; only the other pieces go to the
/// integer emptiness test.
pub(crate) fn subtract_basic(
    a: &BasicMap,
    b: &BasicMap,
    budget: &mut Budget,
) -> Result<Vec<BasicMap>> {
    debug_assert!(!b.has_existentials());
    budget.tick(1)?;
    let mut current = a.clone();
    let constraints = import_constraints(&mut current, b);
    // The system of `current`, and its tableau, grow with every constraint kept.
    let mut sys = current.to_system();
    let mut tableau = Polyhedron::new(&sys, budget)?;
    if disjoint(&current, &sys, &tableau, &constraints, budget)? {
        return Ok(vec![a.clone()]);
    }
    let mut out = Vec::new();
    for c in constraints {
        if tableau.is_empty() {
            // Every later piece lies in an empty `current`.
            break;
        }
        if implied_by_parallel(&current, &c) {
            // `current ∧ ¬c` is empty and `c` adds nothing to the later pieces.
            continue;
        }
        let not_c = negate(&c);
        let mut trial = tableau.clone();
        trial.add_inequality(&not_c, || with_rows(&sys, [&not_c]), budget)?;
        let Some(point) = trial.point() else {
            // Rationally empty: so is the piece, and `c` holds on all of `current`.
            continue;
        };
        let integral = rounded_witness(&current, &sys, &[&not_c], &point);
        let mut piece = current.clone();
        piece.add_ineq(not_c);
        let piece = piece.simplify();
        if integral || !proven_empty(&piece, budget)? {
            out.push(piece);
            sys.ineqs.push(c.clone());
            tableau.add_inequality(&c, || sys.clone(), budget)?;
            current.add_ineq(c);
        }
    }
    Ok(out)
}

/// Whether `current` (of system `sys` and tableau `tableau`) and the constraints of `b`
/// imported into it, `constraints`, are proven to have no common integer point.
fn disjoint(
    current: &BasicMap,
    sys: &System,
    tableau: &Polyhedron,
    constraints: &[Vec<Int>],
    budget: &mut Budget,
) -> Result<bool> {
    let mut both = tableau.clone();
    for (k, c) in constraints.iter().enumerate() {
        both.add_inequality(c, || with_rows(sys, &constraints[..=k]), budget)?;
    }
    let Some(point) = both.point() else {
        return Ok(true);
    };
    let extra: Vec<&[Int]> = constraints.iter().map(Vec::as_slice).collect();
    if rounded_witness(current, sys, &extra, &point) {
        return Ok(false);
    }
    let mut both = current.clone();
    for c in constraints {
        both.add_ineq(c.clone());
    }
    proven_empty(&both.simplify(), budget)
}

/// `sys` with the inequalities `rows` added.
fn with_rows<R: AsRef<[Int]>>(sys: &System, rows: impl IntoIterator<Item = R>) -> System {
    let mut out = sys.clone();
    out.ineqs
        .extend(rows.into_iter().map(|r| r.as_ref().to_vec()));
    out
}
