//! Helpers on the sets of the schedule space: spaces, adding dimensions, explicit divs,
//! and conditions from constraints.
//!
//! The *schedule space* at depth `d` is the anonymous set space `[c0, ..., c(d-1)]` over
//! the scop's parameters (in the scop's order); every set the generator reasons about
//! lives in one of them, so constraint rows have the layout
//! `[const | params | c0 .. c(d-1) | divs]`.

use pollen_arith::Int;
use pollen_presburger::{BasicMap, Budget, Map, Set, Space, Tuple};

use crate::ast::Cond;
use crate::bounds::relax;
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
    for (r, is_eq) in b
        .eqs()
        .iter()
        .map(|r| (r, true))
        .chain(b.ineqs().iter().map(|r| (r, false)))
    {
        if let Some(c) = divisibility(b, r, is_eq, n_dims, &divs, names)? {
            conds.push(c);
        } else if is_eq {
            conds.push(Cond::Zero(row_expr(r, n_dims, &divs, names)?));
        } else {
            conds.push(Cond::NonNegative(row_expr(r, n_dims, &divs, names)?));
        }
    }
    Ok(match conds.len() {
        1 => conds.pop().unwrap_or(Cond::And(Vec::new())),
        _ => Cond::And(conds),
    })
}

/// `e mod m == 0` when the row is `m·q - e ≥ 0` (or `= 0`, either sign) for a div
/// `q = floor(e / m)`: with the div's definition `m·q ≤ e`, the row says `m` divides `e`.
fn divisibility(
    b: &BasicMap,
    row: &[Int],
    is_eq: bool,
    n_dims: usize,
    divs: &[crate::ast::Expr],
    names: Names,
) -> Result<Option<Cond>> {
    for (k, d) in b.divs().iter().enumerate() {
        let Some(d) = d else { continue };
        let col = b.div_col(k);
        let mut pattern: Vec<Int> = d.num.iter().map(|x| -x).collect();
        pattern[col] = d.den.clone();
        let negated: Vec<Int> = pattern.iter().map(|x| -x).collect();
        if row == pattern.as_slice() || (is_eq && row == negated.as_slice()) {
            let e = row_expr(&d.num, n_dims, divs, names)?;
            return Ok(Some(Cond::Zero(crate::expr::simplify(
                crate::ast::Expr::Mod(Box::new(e), d.den.clone()),
            ))));
        }
    }
    Ok(None)
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

/// A basic set containing `set`: the set itself when it is convex, otherwise the simple
/// hull of its parts, each first relaxed to divs independent of column `col` (the
/// scanned dimension, see [`crate::bounds::relax`]), computed with those divs as extra
/// dimensions so that bounds such as `c ≤ floor((N - 1) / 4)` survive (see
/// [`hull_with_divs`]).
pub(crate) fn hull(set: &Set, col: usize, budget: &mut Budget) -> Result<BasicMap> {
    match set.as_map().basic_maps() {
        [one] => Ok(one.clone()),
        parts => {
            let relaxed: Vec<BasicMap> = parts.iter().map(|p| relax(p, col)).collect();
            match hull_with_divs(&relaxed, budget)? {
                Some(h) => Ok(h),
                None => {
                    let m = Map::from_parts(set.space().clone(), relaxed)?;
                    Ok(m.simple_hull_with(budget)?)
                }
            }
        }
    }
}

/// The simple hull of basic sets whose divs are known and defined over the dimensions
/// only: every distinct div becomes an extra dimension (with its two defining
/// inequalities in every part, which hold there since a div is a function), the hull
/// is taken in that space, where the defining inequalities stay valid, and the extra
/// dimensions become the divs again. `None` when some div is an existential or refers
/// to another div.
pub(crate) fn hull_with_divs(parts: &[BasicMap], budget: &mut Budget) -> Result<Option<BasicMap>> {
    let Some(first) = parts.first() else {
        return Ok(None);
    };
    let space = first.space().clone();
    let n = first.n_dims();
    let mut defs: Vec<(Vec<pollen_arith::Int>, pollen_arith::Int)> = Vec::new();
    for b in parts {
        for d in b.divs() {
            let Some(d) = d else { return Ok(None) };
            if d.num[1 + n..].iter().any(|x| !x.is_zero()) {
                return Ok(None);
            }
            let def = (d.num[..=n].to_vec(), d.den.clone());
            if !defs.contains(&def) {
                defs.push(def);
            }
        }
    }
    if defs.is_empty() {
        return Ok(None);
    }
    let m = defs.len();
    let lifted_space = match space.range_tuple() {
        Some(t) => Space::set(
            space.param_names().to_vec(),
            Tuple::anonymous(t.n_dims() + m),
        ),
        None => return Ok(None),
    };
    let zero = pollen_arith::Int::zero;
    let mut lifted = Vec::new();
    for b in parts {
        // Column of each of b's divs in the lifted space.
        let cols: Vec<usize> = b
            .divs()
            .iter()
            .map(|d| {
                let d = d.as_ref().map(|d| (d.num[..=n].to_vec(), d.den.clone()));
                1 + n + defs.iter().position(|x| Some(x) == d.as_ref()).unwrap_or(0)
            })
            .collect();
        let map_row = |r: &Vec<pollen_arith::Int>| {
            let mut out = vec![zero(); 1 + n + m];
            out[..=n].clone_from_slice(&r[..=n]);
            for (k, c) in cols.iter().enumerate() {
                out[*c] = &out[*c] + &r[1 + n + k];
            }
            out
        };
        let eqs = b.eqs().iter().map(map_row).collect();
        let mut ineqs: Vec<Vec<pollen_arith::Int>> = b.ineqs().iter().map(map_row).collect();
        for (j, (num, den)) in defs.iter().enumerate() {
            let mut lo = vec![zero(); 1 + n + m];
            lo[..=n].clone_from_slice(num);
            lo[1 + n + j] = -den;
            let mut hi: Vec<pollen_arith::Int> = lo.iter().map(|x| -x).collect();
            hi[0] = &hi[0] + den - pollen_arith::Int::one();
            ineqs.push(lo);
            ineqs.push(hi);
        }
        lifted.push(BasicMap::from_parts(
            lifted_space.clone(),
            Vec::new(),
            eqs,
            ineqs,
        )?);
    }
    let h = Map::from_parts(lifted_space, lifted)?.simple_hull_with(budget)?;
    let divs = defs
        .iter()
        .map(|(num, den)| {
            let mut full = num.clone();
            full.resize(1 + n + m, zero());
            Some(pollen_presburger::DivDef {
                num: full,
                den: den.clone(),
            })
        })
        .collect();
    let back = BasicMap::from_parts(space, divs, h.eqs().to_vec(), h.ineqs().to_vec())?;
    Ok(Some(back.simplify()))
}
