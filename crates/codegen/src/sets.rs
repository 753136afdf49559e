//! Helpers on the sets of the schedule space: spaces, adding dimensions, explicit divs,
//! and conditions from constraints.
//!
//! The *schedule space* at depth `d` is the anonymous set space `[c0, ..., c(d-1)]` over
//! the scop's parameters (in the scop's order); every set the generator reasons about
//! lives in one of them, so constraint rows have the layout
//! `[const | params | c0 .. c(d-1) | divs]`.

use pollen_arith::Int;
use pollen_presburger::{solver, BasicMap, Budget, Map, Set, Space, Tuple};

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
    let mut parts: Vec<BasicMap> = Vec::new();
    for b in m.basic_maps() {
        let b = b.clone().simplify();
        if b.is_obviously_empty() {
            continue;
        }
        if b.has_existentials() {
            // Quantifier elimination alone: the pieces' redundant constraints are left
            // to the gists that follow (removing them here costs one LP each).
            parts.extend(b.compute_divs(budget)?);
        } else {
            parts.push(b);
        }
    }
    let m = Map::from_parts(m.space().clone(), parts)?;
    if m.basic_maps().len() > 1 {
        Ok(m.coalesce_with(budget)?)
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

/// A basic set containing `set` whose constraints on column `col` (the scanned
/// dimension) bound it: the set itself when it is convex, otherwise the hull of its
/// parts, each first relaxed to divs independent of `col` (see
/// [`crate::bounds::relax`]), in the directions that involve `col` only, computed by
/// [`lifted_hull`] so that bounds such as `c ≤ floor((N - 1) / 4)` survive.
pub(crate) fn hull(set: &Set, col: usize, budget: &mut Budget) -> Result<BasicMap> {
    match set.as_map().basic_maps() {
        [one] => Ok(one.clone()),
        parts => {
            let relaxed: Vec<BasicMap> = parts.iter().map(|p| relax(p, col)).collect();
            match lifted_hull(&relaxed, Some(col), budget)? {
                Some(h) => Ok(h),
                None => {
                    let m = Map::from_parts(set.space().clone(), relaxed)?;
                    Ok(m.simple_hull_with(budget)?)
                }
            }
        }
    }
}

/// A simple hull of basic sets whose divs are known and defined over the dimensions
/// only (isl's simple hull, with rational optima): every distinct div becomes an extra
/// dimension (with its two defining inequalities in every part, valid there since a div
/// is a function), every constraint direction `a·x` of a part (only those involving
/// column `only`, when given) is shifted to `a·x ≥ ceil(min)`, the minimum taken over
/// the rational relaxation of every part (a valid bound for their integer points), and
/// the extra dimensions become divs again. `None` when some div is an existential or
/// refers to another div.
pub(crate) fn lifted_hull(
    parts: &[BasicMap],
    only: Option<usize>,
    budget: &mut Budget,
) -> Result<Option<BasicMap>> {
    let Some(first) = parts.first() else {
        return Ok(None);
    };
    let space = first.space().clone();
    let n = first.n_dims();
    let mut defs: Vec<(Vec<Int>, Int)> = Vec::new();
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
    let m = defs.len();
    let width = 1 + n + m;
    let mut systems = Vec::with_capacity(parts.len());
    let mut directions: Vec<Vec<Int>> = Vec::new();
    for b in parts {
        let cols: Vec<usize> = b
            .divs()
            .iter()
            .map(|d| {
                let d = d.as_ref().map(|d| (d.num[..=n].to_vec(), d.den.clone()));
                1 + n + defs.iter().position(|x| Some(x) == d.as_ref()).unwrap_or(0)
            })
            .collect();
        let lift_row = |r: &Vec<Int>| {
            let mut out = vec![Int::zero(); width];
            out[..=n].clone_from_slice(&r[..=n]);
            for (k, c) in cols.iter().enumerate() {
                out[*c] = &out[*c] + &r[1 + n + k];
            }
            out
        };
        let mut sys = solver::System::new(n + m);
        for r in b.eqs() {
            let r = lift_row(r);
            add_direction(&mut directions, &r, only);
            add_direction(
                &mut directions,
                &r.iter().map(|x| -x).collect::<Vec<_>>(),
                only,
            );
            sys.add_eq(r);
        }
        for r in b.ineqs() {
            let r = lift_row(r);
            add_direction(&mut directions, &r, only);
            sys.add_ineq(r);
        }
        for (j, (num, den)) in defs.iter().enumerate() {
            let mut lo = vec![Int::zero(); width];
            lo[..=n].clone_from_slice(num);
            lo[1 + n + j] = -den;
            let mut hi: Vec<Int> = lo.iter().map(|x| -x).collect();
            hi[0] = &hi[0] + den - Int::one();
            sys.add_ineq(lo);
            sys.add_ineq(hi);
        }
        systems.push(sys);
    }
    // best[k]: the least minimum of direction k over the parts, None once unbounded.
    let mut best: Vec<Option<Option<Int>>> = vec![Some(None); directions.len()];
    for sys in &systems {
        let minima = solver::rational_mins(sys, &directions, budget)?;
        for (b, m) in best.iter_mut().zip(minima) {
            match m {
                solver::Optimum::Unbounded => *b = None,
                solver::Optimum::Empty => {}
                solver::Optimum::Bounded(v) => {
                    if let Some(current) = b {
                        let v = v.ceil();
                        if current.as_ref().is_none_or(|c| v < *c) {
                            *current = Some(v);
                        }
                    }
                }
            }
        }
    }
    let mut ineqs = Vec::new();
    for (dir, b) in directions.into_iter().zip(best) {
        if let Some(Some(b)) = b {
            let mut row = dir;
            row[0] = -b;
            ineqs.push(row);
        }
    }
    let divs = defs
        .iter()
        .map(|(num, den)| {
            let mut full = num.clone();
            full.resize(width, Int::zero());
            Some(pollen_presburger::DivDef {
                num: full,
                den: den.clone(),
            })
        })
        .collect();
    let back = BasicMap::from_parts(space, divs, Vec::new(), ineqs)?;
    Ok(Some(back.simplify()))
}

/// Adds the direction of constraint row `r` (its coefficients, constant zeroed, divided
/// by their gcd) unless it is zero, already present, or (with `only`) free of that
/// column.
fn add_direction(directions: &mut Vec<Vec<Int>>, r: &[Int], only: Option<usize>) {
    if only.is_some_and(|c| r[c].is_zero()) {
        return;
    }
    let g = pollen_arith::gcd_slice(&r[1..]);
    if g.is_zero() {
        return;
    }
    let d: Vec<Int> = std::iter::once(Int::zero())
        .chain(r[1..].iter().map(|x| x.exact_div(&g)))
        .collect();
    if !directions.contains(&d) {
        directions.push(d);
    }
}
