//! Set-algebra operations that need the integer solver: quantifier elimination
//! (explicit divs), subtraction and complement, comparisons, coalescing, gist and
//! redundancy removal, hulls.
//!
//! | module | operations | algorithm |
//! |---|---|---|
//! | `qe` | [`BasicMap::compute_divs`], [`Map::compute_divs`] | Hermite normal form on equalities, exact div-based and Fourier–Motzkin elimination, the Omega test's dark shadow and splinters (Pugh 1991) |
//! | `subtract` | [`Map::subtract`], [`Map::complement`] | negating one constraint of the subtrahend at a time (disjoint pieces) |
//! | `compare` | [`Map::is_subset`], [`Map::is_equal`], [`Map::is_bounded`], ... | subtraction, emptiness, recession cones |
//! | `closure` | [`Map::transitive_closure`], [`Map::reflexive_transitive_closure`], [`Map::power`] | translations by the hull of each disjunct's deltas, exactness by induction on the path length (Verdoolaege, Cohen, Beletska, SAS 2011) |
//! | `coalesce` | [`Map::coalesce`] | containment, adjacent pairs, candidate hulls checked exactly (after isl's `isl_map_coalesce`) |
//! | `gist` | [`Map::gist`], [`Map::remove_redundancies`], [`Map::detect_equalities`] | integer implication tests |
//! | `hull` | [`Set::simple_hull`], [`Set::box_hull`] | shifted constraints, integer optimisation |
//!
//! Every solver-backed operation `foo` has a `foo_with(.., &mut Budget)` variant; the
//! plain one runs with [`Budget::unlimited`]. All answers are exact over the integers.
//!
//! Two kinds of solver questions are asked. *Decisions* (is this subset, equal, empty,
//! bounded?) use the solver without limit beyond the caller's budget. *Simplifications*
//! (prune an empty piece, drop an implied constraint, merge two parts, tighten a hull
//! constraint) are only made on a proof found within a fixed number of solver steps
//! (`SOLVER_CAP`, see `capped`); when the proof takes longer the result stays exact but keeps that piece
//! or constraint. This keeps operations fast on sets with many interacting divisions,
//! where integer emptiness can be expensive.
//!
//! The helpers of this module move constraints of one basic map into the columns of
//! another (importing its local variables) and build the pieces the operations need.
//!
//! [`Budget::unlimited`]: crate::error::Budget::unlimited
//! [`Set::simple_hull`]: crate::set::Set::simple_hull
//! [`Set::box_hull`]: crate::set::Set::box_hull

mod closure;
mod coalesce;
mod compare;
mod gist;
mod hull;
mod qe;
mod subtract;

#[cfg(test)]
mod tests;

use std::borrow::Cow;

use pollen_arith::{Int, Rat};

use crate::bmap::BasicMap;
use crate::error::{Budget, Error, Result};
use crate::map::{mismatch, Map};
use crate::solver::{self, System};

/// The negation `-row - 1 ≥ 0` of the integer inequality `row ≥ 0`.
pub(crate) fn negate(row: &[Int]) -> Vec<Int> {
    let mut out: Vec<Int> = row.iter().map(|c| -c).collect();
    out[0] = &out[0] - &Int::one();
    out
}

/// `-row`.
pub(crate) fn opposite(row: &[Int]) -> Vec<Int> {
    row.iter().map(|c| -c).collect()
}

/// The constraints of a basic map as inequalities: each equality `e = 0` becomes the
/// pair `e ≥ 0`, `-e ≥ 0`. The implicit constraints of known divs are not included.
pub(crate) fn constraints_as_ineqs(b: &BasicMap) -> Vec<Vec<Int>> {
    let mut out = Vec::with_capacity(2 * b.eqs().len() + b.ineqs().len());
    for e in b.eqs() {
        out.push(e.clone());
        out.push(opposite(e));
    }
    out.extend(b.ineqs().iter().cloned());
    out
}

/// Copies `row` (over `src`'s columns) into a row of length `n` through `col_of`.
pub(crate) fn remap(row: &[Int], col_of: &[usize], n: usize) -> Vec<Int> {
    let mut out = vec![Int::zero(); n];
    for (c, v) in row.iter().enumerate() {
        if !v.is_zero() {
            out[col_of[c]] = &out[col_of[c]] + v;
        }
    }
    out
}

/// Adds the local variables of `src` (same space) to `target` and returns where each
/// column of `src` lives in `target`. Known divs are shared with identical ones of
/// `target`; existentials get fresh columns.
pub(crate) fn import_divs(target: &mut BasicMap, src: &BasicMap) -> Vec<usize> {
    debug_assert_eq!(target.n_dims(), src.n_dims());
    let mut col_of: Vec<usize> = (0..=src.n_dims()).collect();
    for d in src.divs() {
        let col = match d {
            Some(d) => {
                let num = remap(&d.num[..col_of.len()], &col_of, target.n_cols());
                target.add_known_div(num, d.den.clone())
            }
            None => target.add_div(None),
        };
        col_of.push(col);
    }
    col_of
}

/// `src`'s constraints (as inequalities) moved into `target`'s columns, importing
/// `src`'s locals into `target` first.
pub(crate) fn import_constraints(target: &mut BasicMap, src: &BasicMap) -> Vec<Vec<Int>> {
    let col_of = import_divs(target, src);
    let n = target.n_cols();
    constraints_as_ineqs(src)
        .iter()
        .map(|r| remap(r, &col_of, n))
        .collect()
}

/// A basic map with `b`'s space and locals and the given constraints.
pub(crate) fn with_constraints(
    b: &BasicMap,
    eqs: Vec<Vec<Int>>,
    ineqs: Vec<Vec<Int>>,
) -> Result<BasicMap> {
    BasicMap::from_parts(b.space().clone(), b.divs().to_vec(), eqs, ineqs)
}

/// The parts of `m` rewritten so that every local variable is a known div.
///
/// The pieces of a part with existentials lose their rationally redundant constraints,
/// and a part that falls into several pieces has them coalesced, since every further
/// piece or constraint multiplies the work of a subtraction.
pub(crate) fn explicit_parts(m: &Map, budget: &mut Budget) -> Result<Vec<BasicMap>> {
    let mut out = Vec::new();
    for b in m.basic_maps() {
        if !b.has_existentials() {
            out.push(b.clone());
            continue;
        }
        let mut pieces = Vec::new();
        for p in b.compute_divs(budget)? {
            if let Some(p) = gist::rationally_irredundant(&p, budget)? {
                pieces.push(p);
            }
        }
        if pieces.len() > 1 {
            out.extend(coalesce::coalesce_parts(&pieces, budget)?);
        } else {
            out.extend(pieces);
        }
    }
    Ok(out)
}

/// Whether a constraint of `b` syntactically implies `row ≥ 0` (over `b`'s columns): an
/// inequality with the same coefficients and a constant at most `row`'s, or an equality
/// `e = 0` with `±e` such. A cheap sufficient test that spares a solver call.
pub(crate) fn implied_by_parallel(b: &BasicMap, row: &[Int]) -> bool {
    let same = |r: &[Int]| r[1..] == row[1..] && r[0] <= row[0];
    let opposite_of =
        |e: &[Int]| e[1..].iter().zip(&row[1..]).all(|(a, c)| *a == -c) && -&e[0] <= row[0];
    b.ineqs().iter().any(|r| same(r)) || b.eqs().iter().any(|e| same(e) || opposite_of(e))
}

/// Whether two basic maps are written identically (same locals, same rows).
pub(crate) fn same_basic_map(a: &BasicMap, b: &BasicMap) -> bool {
    a.divs() == b.divs() && a.eqs() == b.eqs() && a.ineqs() == b.ineqs()
}

/// Whether `b` has no integer point. Cheap tests come first: a constant contradiction,
/// rational emptiness (simplex), and a rounded rational point whose divs, evaluated,
/// satisfy every constraint; only then the Omega test decides.
pub(crate) fn is_empty(b: &BasicMap, budget: &mut Budget) -> Result<bool> {
    if b.is_obviously_empty() {
        return Ok(true);
    }
    if b.eqs().is_empty() && b.ineqs().is_empty() && b.divs().iter().all(Option::is_none) {
        // The universe, or a projection of it.
        return Ok(false);
    }
    Ok(integer_point(b, budget)?.is_none())
}

/// An integer point of `b` over its dimensions and locals, if it has one: the rounded
/// rational sample of its tableau when that is an integer point (see
/// [`rounded_witness`]), else the integer solver's. `None` proves emptiness.
pub(crate) fn integer_point(b: &BasicMap, budget: &mut Budget) -> Result<Option<Vec<Int>>> {
    if b.is_obviously_empty() {
        return Ok(None);
    }
    let sys = b.to_system();
    let Some(point) = solver::rational_sample(&sys, budget)? else {
        return Ok(None);
    };
    if let Some(found) = rounded_point(b, &sys, &[], &point) {
        return Ok(Some(found));
    }
    solver::integer_sample(&sys, budget)
}

/// Whether rounding the rational point `point` of `b`'s system (down, up or to the
/// nearest integer; known divs evaluated from the rounded dimensions) gives an integer
/// point of the system `sys` and of the inequalities `extra ≥ 0`.
fn rounded_witness(b: &BasicMap, sys: &System, extra: &[&[Int]], point: &[Rat]) -> bool {
    rounded_point(b, sys, extra, point).is_some()
}

/// The integer point [`rounded_witness`] finds (dimensions, then locals).
fn rounded_point(b: &BasicMap, sys: &System, extra: &[&[Int]], point: &[Rat]) -> Option<Vec<Int>> {
    let round = |r: &Rat, mode: u8| match mode {
        0 => r.floor(),
        1 => r.ceil(),
        _ => {
            let two = Int::from(2);
            (&(r.numer() * &two) + r.denom()).floor_div(&(r.denom() * &two))
        }
    };
    let nd = b.n_dims();
    for mode in 0..3u8 {
        let mut vals: Vec<Int> = point[..nd].iter().map(|r| round(r, mode)).collect();
        for (k, d) in b.divs().iter().enumerate() {
            let v = match d {
                Some(d) => solver::eval_row(&d.num[..=vals.len()], &vals).floor_div(&d.den),
                None => round(&point[nd + k], mode),
            };
            vals.push(v);
        }
        if sys.contains(&vals)
            && extra
                .iter()
                .all(|r| !solver::eval_row(r, &vals).is_negative())
        {
            return Some(vals);
        }
    }
    None
}

/// Most solver steps one decision of a best-effort simplification may take (see
/// [`capped`]).
pub(crate) const SOLVER_CAP: u64 = 20_000;

/// Runs `f` with at most [`SOLVER_CAP`] steps of `budget` and charges what it used.
///
/// `Ok(None)` means the cap ran out before `f` finished: simplifications (pruning empty
/// pieces, dropping implied constraints, merging parts) then leave things as they are,
/// which keeps their results exact, only larger. When the caller's own budget is what
/// ran out, the error is returned.
pub(crate) fn capped<T>(
    budget: &mut Budget,
    f: impl FnOnce(&mut Budget) -> Result<T>,
) -> Result<Option<T>> {
    let (cap, main_limits) = match budget.remaining() {
        Some(left) if left <= SOLVER_CAP => (left, true),
        _ => (SOLVER_CAP, false),
    };
    let mut local = Budget::new(cap);
    let outcome = f(&mut local);
    budget.tick(cap - local.remaining().unwrap_or(0))?;
    match outcome {
        Ok(v) => Ok(Some(v)),
        Err(Error::LimitExceeded) if !main_limits => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether `b` is proven empty within [`SOLVER_CAP`] steps (`false` when it has a point
/// or the question stays open).
pub(crate) fn proven_empty(b: &BasicMap, budget: &mut Budget) -> Result<bool> {
    Ok(capped(budget, |local| is_empty(b, local))?.unwrap_or(false))
}

/// The parts of `m` not proven empty (see [`proven_empty`]).
pub(crate) fn nonempty_parts(m: &Map, budget: &mut Budget) -> Result<Vec<BasicMap>> {
    let mut out = Vec::new();
    for b in m.basic_maps() {
        if !proven_empty(b, budget)? {
            out.push(b.clone());
        }
    }
    Ok(out)
}

/// Aligns the parameters of two maps and checks that their tuples agree.
pub(crate) fn align_same_space<'a>(
    a: &'a Map,
    b: &'a Map,
    op: &'static str,
) -> Result<(Cow<'a, Map>, Cow<'a, Map>)> {
    let (a, b) = Map::align_pair_ref(a, b)?;
    if !a.space().tuples_match(b.space()) {
        return Err(mismatch(op, a.space(), b.space()));
    }
    Ok((a, b))
}

/// A map of the space of `like` with the given parts.
pub(crate) fn map_with_parts(like: &Map, parts: Vec<BasicMap>) -> Result<Map> {
    let space = like.space().clone();
    let parts = parts
        .into_iter()
        .map(|b| b.with_space(space.clone()))
        .collect();
    Map::from_parts(space, parts)
}
