//! Helpers on the sets of the schedule space: spaces, adding dimensions, explicit divs,
//! and conditions from constraints.
//!
//! The *schedule space* at depth `d` is the anonymous set space `[c0, ..., c(d-1)]` over
//! the scop's parameters (in the scop's order); every set the generator reasons about
//! lives in one of them, so constraint rows have the layout
//! `[const | params | c0 .. c(d-1) | divs]`.

use pollen_presburger::{BasicMap, Budget, Map, Set, Space, Tuple};

use crate::ast::Cond;
use crate::error::{Error, Result};
use crate::expr::{div_exprs, row_expr, Names};

/// The schedule space of depth `n`.
pub(crate) fn schedule_space(params: &[String], n: usize) -> Space {
    Space::set(params.to_vec(), Tuple::anonymous(n))
}

/// The set `set` (of the schedule space of depth `d`, or of the parameter space) in the
/// schedule space of depth `n ≥ d`, the new dimensions unconstrained.
pub(crate) fn lift(set: &Set, params: &[String], n: usize) -> Result<Set> {
    let set = set.align_params(params)?;
    let space = schedule_space(params, n);
    let parts = set
        .as_map()
        .basic_maps()
        .iter()
        .map(|b| {
            let targets: Vec<usize> = (0..b.n_dims()).collect();
            b.reshape(space.clone(), 0, &targets)
        })
        .collect();
    Ok(Set::from_map(Map::from_parts(space, parts)?)?)
}

/// The same map with every local variable a known div and trivial parts removed.
pub(crate) fn explicit(m: &Map, budget: &mut Budget) -> Result<Map> {
    let parts: Vec<BasicMap> = m
        .basic_maps()
        .iter()
        .map(|b| b.clone().simplify())
        .filter(|b| !b.is_obviously_empty())
        .collect();
    let m = Map::from_parts(m.space().clone(), parts)?;
    if m.basic_maps().iter().any(BasicMap::has_existentials) {
        Ok(m.compute_divs_with(budget)?)
    } else {
        Ok(m)
    }
}

/// The schedule-space set of one basic map.
pub(crate) fn basic_set(b: BasicMap) -> Result<Set> {
    Ok(Set::from_map(Map::from_basic(b))?)
}

/// The condition that a point of the schedule space lies in `set` (whose divs are
/// known): a disjunction over its parts of the conjunction of their constraints.
pub(crate) fn set_cond(set: &Set, names: Names) -> Result<Cond> {
    let mut parts = Vec::new();
    for b in set.as_map().basic_maps() {
        parts.push(basic_cond(b, names)?);
    }
    Ok(match parts.len() {
        1 => parts.pop().unwrap_or(Cond::Or(Vec::new())),
        _ => Cond::Or(parts),
    })
}

/// The conjunction of a basic map's constraints.
pub(crate) fn basic_cond(b: &BasicMap, names: Names) -> Result<Cond> {
    if b.has_existentials() {
        return Err(Error::Existential);
    }
    let n_dims = b.n_dims();
    let divs = div_exprs(b.divs(), n_dims, names)?;
    let mut conds = Vec::new();
    for r in b.eqs() {
        conds.push(Cond::Zero(row_expr(r, n_dims, &divs, names)?));
    }
    for r in b.ineqs() {
        conds.push(Cond::NonNegative(row_expr(r, n_dims, &divs, names)?));
    }
    Ok(match conds.len() {
        1 => conds.pop().unwrap_or(Cond::And(Vec::new())),
        _ => Cond::And(conds),
    })
}

/// Whether a condition is the constant true (an empty conjunction).
pub(crate) fn is_true(c: &Cond) -> bool {
    matches!(c, Cond::And(v) if v.is_empty())
}

/// The constraints of `b` (a basic set of the schedule space) that involve no set
/// dimension at or after `keep` and no div depending on one, as a basic set of the
/// schedule space of depth `keep`.
pub(crate) fn outer_constraints(b: &BasicMap, params: &[String], keep: usize) -> Result<BasicMap> {
    let np = params.len();
    let n_dims = b.n_dims();
    let deep = |c: usize| c > np + keep && c <= n_dims;
    let mut dep: Vec<bool> = Vec::with_capacity(b.n_div());
    for d in b.divs() {
        let v = match d {
            None => true,
            Some(d) => d
                .num
                .iter()
                .enumerate()
                .any(|(c, x)| !x.is_zero() && (deep(c) || (c > n_dims && dep[c - 1 - n_dims]))),
        };
        dep.push(v);
    }
    let involves_deep = |r: &Vec<pollen_arith::Int>| {
        r.iter()
            .enumerate()
            .any(|(c, x)| !x.is_zero() && (deep(c) || (c > n_dims && dep[c - 1 - n_dims])))
    };
    let kept_cols: Vec<usize> = (0..b.n_cols())
        .filter(|&c| !(deep(c) || (c > n_dims && dep[c - 1 - n_dims])))
        .collect();
    let project =
        |r: &Vec<pollen_arith::Int>| kept_cols.iter().map(|&c| r[c].clone()).collect::<Vec<_>>();
    let divs = b
        .divs()
        .iter()
        .enumerate()
        .filter(|(k, _)| !dep[*k])
        .map(|(_, d)| {
            d.as_ref().map(|d| pollen_presburger::DivDef {
                num: project(&d.num),
                den: d.den.clone(),
            })
        })
        .collect();
    let eqs = b
        .eqs()
        .iter()
        .filter(|r| !involves_deep(r))
        .map(project)
        .collect();
    let ineqs = b
        .ineqs()
        .iter()
        .filter(|r| !involves_deep(r))
        .map(project)
        .collect();
    Ok(BasicMap::from_parts(schedule_space(params, keep), divs, eqs, ineqs)?.simplify())
}
