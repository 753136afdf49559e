//! Coalescing: fewer parts for the same points (after isl's `isl_map_coalesce`,
//! S. Verdoolaege, *Integer set coalescing*, IMPACT 2015, in a simpler form).
//!
//! 1. Parts proven empty are dropped; a part with existentials whose explicit form (see
//!    [`crate::BasicMap::compute_divs`]) is a single basic map is replaced by it.
//! 2. Pairs of parts are examined until nothing changes:
//!    - *adjacent* parts with the same locals and equalities whose inequalities differ
//!      only in `c ≥ 0` against `-c - 1 ≥ 0` are replaced by their common rest (a purely
//!      syntactic test);
//!    - otherwise, for two parts `A`, `B` without existentials, over the union of their
//!      divs: the *candidate* keeps the constraints of `A` valid on all of `B` and those
//!      of `B` valid on all of `A` (one integer emptiness test `B ∧ ¬c` each). When every
//!      constraint of `B` is valid on `A`, `A ⊆ B` and `A` is dropped (and symmetrically).
//!      Otherwise the candidate contains `A ∪ B` and replaces both when
//!      `candidate ∖ A ∖ B` is empty, which is exact, or without that test when the only
//!      constraints left out are one `c` of `A` and its negation `-c - 1` in `B`
//!      (adjacent facets: the candidate is then exactly `A ∪ B`). A constraint with a
//!      parallel, at least as tight constraint in the other part is valid there without
//!      a solver call;
//!      the fused part keeps the constraints not rationally redundant (one LP each);
//!    - a part with existentials is dropped when it is contained in an explicit part.
//!
//! Every test is an emptiness proof within the solver cap of [`super::capped`]: when a
//! proof is not found in time, the parts concerned are left as they are.
//!
//! # Invariants
//! - the result has exactly the points of the input and never more parts;
//! - a merge or removal happens only on a proof (never on a guess).

use std::collections::HashSet;

use pollen_arith::Int;

use crate::bmap::BasicMap;
use crate::error::{Budget, Result};
use crate::map::Map;
use crate::set::Set;

use super::gist::remove_rationally_redundant;
use super::subtract::{subtract_basic, subtract_parts};
use super::{
    capped, constraints_as_ineqs, implied_by_parallel, import_constraints, map_with_parts, negate,
    proven_empty, with_constraints,
};

impl Map {
    /// The same map in as few parts as the method finds (isl's `isl_map_coalesce`).
    pub fn coalesce(&self) -> Result<Map> {
        self.coalesce_with(&mut Budget::unlimited())
    }

    /// [`Map::coalesce`] within a budget.
    pub fn coalesce_with(&self, budget: &mut Budget) -> Result<Map> {
        let parts = coalesce_parts(self.basic_maps(), budget)?;
        map_with_parts(self, parts)
    }
}

impl Set {
    /// The same set in as few parts as the method finds (see [`Map::coalesce`]).
    pub fn coalesce(&self) -> Result<Set> {
        self.coalesce_with(&mut Budget::unlimited())
    }

    /// [`Set::coalesce`] within a budget.
    pub fn coalesce_with(&self, budget: &mut Budget) -> Result<Set> {
        Ok(Set::wrap_map(self.as_map().coalesce_with(budget)?))
    }
}

/// The outcome of examining a pair of parts.
enum Pair {
    /// Nothing to do.
    Keep,
    /// The first part is contained in the second.
    FirstInSecond,
    /// The second part is contained in the first.
    SecondInFirst,
    /// Both parts are replaced by this one.
    Fused(Box<BasicMap>),
}

/// Coalesces a list of basic maps of one space.
pub(crate) fn coalesce_parts(input: &[BasicMap], budget: &mut Budget) -> Result<Vec<BasicMap>> {
    let mut parts: Vec<(u64, BasicMap)> = Vec::with_capacity(input.len());
    let mut next_id = 0u64;
    for b in input {
        if proven_empty(b, budget)? {
            continue;
        }
        let b = if b.has_existentials() {
            match capped(budget, |local| b.compute_divs(local))? {
                Some(mut pieces) if pieces.len() == 1 => pieces.pop().unwrap_or_else(|| b.clone()),
                _ => b.clone(),
            }
        } else {
            b.clone()
        };
        parts.push((next_id, b));
        next_id += 1;
    }
    // Pairs (by id) already found to stay apart.
    let mut apart: HashSet<(u64, u64)> = HashSet::new();
    'search: loop {
        for i in 0..parts.len() {
            for j in i + 1..parts.len() {
                let key = (parts[i].0, parts[j].0);
                if apart.contains(&key) {
                    continue;
                }
                budget.tick(1)?;
                match examine(&parts[i].1, &parts[j].1, budget)? {
                    Pair::Keep => {
                        apart.insert(key);
                    }
                    Pair::FirstInSecond => {
                        parts.remove(i);
                        continue 'search;
                    }
                    Pair::SecondInFirst => {
                        parts.remove(j);
                        continue 'search;
                    }
                    Pair::Fused(h) => {
                        parts.remove(j);
                        parts[i] = (next_id, *h);
                        next_id += 1;
                        continue 'search;
                    }
                }
            }
        }
        break;
    }
    Ok(parts.into_iter().map(|(_, b)| b).collect())
}

/// Decides what to do with two non-empty parts.
fn examine(a: &BasicMap, b: &BasicMap, budget: &mut Budget) -> Result<Pair> {
    if let Some(h) = adjacent(a, b) {
        return Ok(Pair::Fused(Box::new(h)));
    }
    match (a.has_existentials(), b.has_existentials()) {
        (false, false) => fuse(a, b, budget),
        (true, false) => Ok(if subtract_basic(a, b, budget)?.is_empty() {
            Pair::FirstInSecond
        } else {
            Pair::Keep
        }),
        (false, true) => Ok(if subtract_basic(b, a, budget)?.is_empty() {
            Pair::SecondInFirst
        } else {
            Pair::Keep
        }),
        (true, true) => Ok(Pair::Keep),
    }
}

/// The syntactic adjacent case: same locals and equalities, inequalities equal but for
/// one `c ≥ 0` in `a` against `-c - 1 ≥ 0` in `b`.
fn adjacent(a: &BasicMap, b: &BasicMap) -> Option<BasicMap> {
    if a.divs() != b.divs() || a.eqs() != b.eqs() || a.ineqs().len() != b.ineqs().len() {
        return None;
    }
    let only_a: Vec<&Vec<Int>> = a
        .ineqs()
        .iter()
        .filter(|r| !b.ineqs().contains(r))
        .collect();
    let only_b: Vec<&Vec<Int>> = b
        .ineqs()
        .iter()
        .filter(|r| !a.ineqs().contains(r))
        .collect();
    if only_a.len() != 1 || only_b.len() != 1 || negate(only_a[0]) != *only_b[0] {
        return None;
    }
    let rest: Vec<Vec<Int>> = a
        .ineqs()
        .iter()
        .filter(|r| *r != only_a[0])
        .cloned()
        .collect();
    with_constraints(a, a.eqs().to_vec(), rest)
        .ok()
        .map(BasicMap::simplify)
}

/// The general test for two parts without existentials (see the module documentation).
fn fuse(a: &BasicMap, b: &BasicMap, budget: &mut Budget) -> Result<Pair> {
    let mut common = a.clone();
    let cb = import_constraints(&mut common, b);
    let n = common.n_cols();
    let pad = |r: &Vec<Int>| {
        let mut r = r.clone();
        r.resize(n, Int::zero());
        r
    };
    let ca: Vec<Vec<Int>> = constraints_as_ineqs(a).iter().map(pad).collect();
    let a_x = with_constraints(&common, Vec::new(), ca.clone())?;
    let b_x = with_constraints(&common, Vec::new(), cb.clone())?;
    // Valid when a parallel constraint of the part implies it, else on an integer
    // emptiness proof of `part ∧ ¬c`.
    let valid_on = |part: &BasicMap, c: &Vec<Int>, budget: &mut Budget| -> Result<bool> {
        if implied_by_parallel(part, c) {
            return Ok(true);
        }
        let mut test = part.clone();
        test.add_ineq(negate(c));
        proven_empty(&test.simplify(), budget)
    };
    let mut kept = Vec::new();
    let mut b_invalid = Vec::new();
    for c in &cb {
        if valid_on(&a_x, c, budget)? {
            kept.push(c.clone());
        } else {
            b_invalid.push(c);
        }
    }
    if b_invalid.is_empty() {
        return Ok(Pair::FirstInSecond);
    }
    let mut a_invalid = Vec::new();
    for c in &ca {
        if valid_on(&b_x, c, budget)? {
            kept.push(c.clone());
        } else {
            a_invalid.push(c);
        }
    }
    if a_invalid.is_empty() {
        return Ok(Pair::SecondInFirst);
    }
    let candidate = with_constraints(&common, Vec::new(), kept)?.simplify();
    // One constraint `c` of `a` and its negation `-c - 1` in `b` are the only ones not
    // valid on the other part: `a = P ∧ c`, `b = Q ∧ ¬c` with `P` valid on `b`, `Q` on
    // `a`, so `P ∧ Q = a ∪ b` (a point of it satisfies `c` or, being integer, `¬c`).
    let adjacent_facets =
        a_invalid.len() == 1 && b_invalid.len() == 1 && negate(a_invalid[0]) == *b_invalid[0];
    if adjacent_facets || subtract_parts(vec![candidate.clone()], &[a_x, b_x], budget)?.is_empty() {
        let fused = remove_rationally_redundant(&candidate, budget)?;
        return Ok(Pair::Fused(Box::new(fused)));
    }
    Ok(Pair::Keep)
}
