//! Loop bounds of one schedule dimension from a basic set of the schedule space.
//!
//! The innermost dimension `c` of a basic set `H` (over the parameters and the outer
//! dimensions) is scanned by a loop whose lower bound is the maximum of the lower bounds
//! `a·c + r ≥ 0` (`c ≥ ceil(-r / a)`) and whose upper bound is the minimum of the upper
//! bounds `-b·c + r ≥ 0` (`c ≤ floor(r / b)`), `r` being quasi-affine in the outer
//! dimensions and parameters. An equality `±c + r = 0` fixes the dimension: no loop, its
//! value is substituted.
//!
//! Divs that involve `c` cannot appear in bounds. They are eliminated by Fourier–Motzkin
//! over the rationals ([`relax`]), which over-approximates `H`; the caller keeps exact
//! guards at the statements. Bounds that the known constraints of the enclosing code
//! imply, together with the other bounds, are dropped (gist).

use pollen_arith::{gcd_slice, Int};
use pollen_presburger::{BasicMap, Budget, DivDef, Set};

use crate::ast::Expr;
use crate::error::{Error, Result};
use crate::expr::{div_exprs, row_expr, simplify, Names};
use crate::sets::basic_set;

/// How a dimension is scanned.
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    /// The dimension takes a single value.
    Fixed(Expr),
    /// A loop from `lower` to `upper` (inclusive) in steps of `stride`.
    Range {
        /// The first value.
        lower: Expr,
        /// The last value.
        upper: Expr,
        /// The step, positive.
        stride: Int,
    },
}

/// The bounds of a dimension.
#[derive(Clone, Debug)]
pub(crate) struct Bounds {
    /// Fixed value or loop.
    pub shape: Shape,
    /// The constraints the generated loop (or substitution) enforces, over the schedule
    /// space including the dimension.
    pub enforced: BasicMap,
}

/// The bounds of dimension `d` (the last) of `h` given the known constraints `known`
/// (a set of the same space that does not constrain dimension `d`).
pub(crate) fn loop_bounds(
    h: &BasicMap,
    known: &Set,
    d: usize,
    names: Names,
    budget: &mut Budget,
) -> Result<Bounds> {
    let col = 1 + names.params.len() + d;
    let relaxed = relax(h, col);
    let gisted = basic_set(relaxed.clone())?.gist_with(known, budget)?;
    let candidate = match gisted.as_map().basic_maps() {
        [g] if has_bounds(g, col) => g.clone(),
        _ => relaxed,
    };
    if !has_bounds(&candidate, col) {
        return Err(Error::Unbounded { dimension: d });
    }
    let n_dims = candidate.n_dims();
    let divs = div_exprs(candidate.divs(), n_dims, names)?;
    let mut enforced = BasicMap::from_parts(
        candidate.space().clone(),
        candidate.divs().to_vec(),
        Vec::new(),
        Vec::new(),
    )?;
    let mut lowers = Vec::new();
    let mut uppers = Vec::new();
    for r in candidate.eqs() {
        let a = r[col].clone();
        if a.is_zero() {
            continue;
        }
        enforced.add_eq(r.clone());
        if a.abs().is_one() {
            // a·c + rest = 0  =>  c = -rest / a = -a·rest.
            let value = rest_expr(r, col, &(-&a), n_dims, &divs, names)?;
            return Ok(Bounds {
                shape: Shape::Fixed(value),
                enforced,
            });
        }
        let (lo, up) = (
            rest_expr(r, col, &-Int::one(), n_dims, &divs, names)?,
            a.clone(),
        );
        // a·c = -rest: c ≥ ceil(-rest / a) and c ≤ floor(-rest / a) for a > 0.
        let (num, den) = if a.is_positive() {
            (lo, up)
        } else {
            (rest_expr(r, col, &Int::one(), n_dims, &divs, names)?, -&a)
        };
        lowers.push(Expr::CeilDiv(Box::new(num.clone()), den.clone()));
        uppers.push(Expr::FloorDiv(Box::new(num), den));
    }
    for r in candidate.ineqs() {
        let a = r[col].clone();
        if a.is_zero() {
            continue;
        }
        enforced.add_ineq(r.clone());
        if a.is_positive() {
            let num = rest_expr(r, col, &-Int::one(), n_dims, &divs, names)?;
            lowers.push(Expr::CeilDiv(Box::new(num), a));
        } else {
            let num = rest_expr(r, col, &Int::one(), n_dims, &divs, names)?;
            uppers.push(Expr::FloorDiv(Box::new(num), -&a));
        }
    }
    Ok(Bounds {
        shape: Shape::Range {
            lower: simplify(Expr::Max(lowers)),
            upper: simplify(Expr::Min(uppers)),
            stride: Int::one(),
        },
        enforced,
    })
}

/// The bounds of dimension `d` for a union of basic sets whose hull does not bound it:
/// the loop runs from the smallest lower bound of a part to the largest upper bound.
/// It enforces nothing the enclosing code could rely on (a part's bounds mean nothing
/// where the part is empty), so `enforced` is the universe.
pub(crate) fn union_bounds(
    parts: &[BasicMap],
    known: &Set,
    d: usize,
    names: Names,
    budget: &mut Budget,
) -> Result<Bounds> {
    let mut lowers = Vec::new();
    let mut uppers = Vec::new();
    let mut space = None;
    for p in parts {
        let b = loop_bounds(p, known, d, names, budget)?;
        space = Some(b.enforced.space().clone());
        match b.shape {
            Shape::Fixed(v) => {
                lowers.push(v.clone());
                uppers.push(v);
            }
            Shape::Range { lower, upper, .. } => {
                lowers.push(lower);
                uppers.push(upper);
            }
        }
    }
    let space = space.ok_or(Error::Unbounded { dimension: d })?;
    Ok(Bounds {
        shape: Shape::Range {
            lower: simplify(Expr::Min(lowers)),
            upper: simplify(Expr::Max(uppers)),
            stride: Int::one(),
        },
        enforced: BasicMap::universe(space),
    })
}

/// `factor · (row without column col)` as an expression.
fn rest_expr(
    row: &[Int],
    col: usize,
    factor: &Int,
    n_dims: usize,
    divs: &[Expr],
    names: Names,
) -> Result<Expr> {
    let mut r: Vec<Int> = row.iter().map(|x| x * factor).collect();
    r[col] = Int::zero();
    row_expr(&r, n_dims, divs, names)
}

/// Whether the basic map bounds column `col` from below and from above.
fn has_bounds(b: &BasicMap, col: usize) -> bool {
    let eq = b.eqs().iter().any(|r| !r[col].is_zero());
    let lower = b.ineqs().iter().any(|r| r[col].is_positive());
    let upper = b.ineqs().iter().any(|r| r[col].is_negative());
    eq || (lower && upper)
}

/// Which divs depend on column `col` (directly or through earlier divs); existentials
/// count as dependent.
fn dependent_divs(b: &BasicMap, col: usize) -> Vec<bool> {
    let mut dep: Vec<bool> = Vec::with_capacity(b.n_div());
    for d in b.divs() {
        let v = match d {
            None => true,
            Some(d) => {
                !d.num[col].is_zero()
                    || dep
                        .iter()
                        .enumerate()
                        .any(|(j, &x)| x && !d.num[b.div_col(j)].is_zero())
            }
        };
        dep.push(v);
    }
    dep
}

/// The most rows Fourier–Motzkin may keep; beyond, further rows are dropped (which only
/// relaxes the result further).
const MAX_ROWS: usize = 400;

/// `b` without the divs that depend on column `col`, eliminated by rational
/// Fourier–Motzkin: a basic map containing `b`'s points whose divs are all known and
/// independent of `col`.
pub(crate) fn relax(b: &BasicMap, col: usize) -> BasicMap {
    let dep = dependent_divs(b, col);
    if !dep.iter().any(|&x| x) {
        return b.clone();
    }
    let dep_cols: Vec<usize> = (0..b.n_div())
        .filter(|&k| dep[k])
        .map(|k| b.div_col(k))
        .collect();
    let touches = |r: &Vec<Int>| dep_cols.iter().any(|&c| !r[c].is_zero());
    let mut eqs = Vec::new();
    let mut ineqs: Vec<Vec<Int>> = Vec::new();
    for r in b.eqs() {
        if touches(r) {
            ineqs.push(r.clone());
            ineqs.push(r.iter().map(|x| -x).collect());
        } else {
            eqs.push(r.clone());
        }
    }
    ineqs.extend(b.ineqs().iter().cloned());
    for (k, d) in b.divs().iter().enumerate() {
        if let (true, Some(d)) = (dep[k], d) {
            ineqs.extend(defining_rows(d, b.div_col(k)));
        }
    }
    for &c in dep_cols.iter().rev() {
        ineqs = eliminate(ineqs, c);
    }
    // Drop the eliminated columns.
    let keep: Vec<usize> = (0..b.n_cols()).filter(|c| !dep_cols.contains(c)).collect();
    let project = |r: &Vec<Int>| keep.iter().map(|&c| r[c].clone()).collect::<Vec<Int>>();
    let divs: Vec<Option<DivDef>> = b
        .divs()
        .iter()
        .enumerate()
        .filter(|(k, _)| !dep[*k])
        .map(|(_, d)| {
            d.as_ref().map(|d| DivDef {
                num: project(&d.num),
                den: d.den.clone(),
            })
        })
        .collect();
    let eqs: Vec<Vec<Int>> = eqs.iter().map(project).collect();
    let ineqs: Vec<Vec<Int>> = ineqs.iter().map(project).collect();
    match BasicMap::from_parts(b.space().clone(), divs, eqs, ineqs) {
        Ok(m) => m.simplify(),
        Err(_) => BasicMap::universe(b.space().clone()),
    }
}

/// The two inequalities of `q = floor(num / den)` at column `col`.
fn defining_rows(d: &DivDef, col: usize) -> [Vec<Int>; 2] {
    let mut lo = d.num.clone();
    lo[col] = -&d.den;
    let mut hi: Vec<Int> = d.num.iter().map(|c| -c).collect();
    hi[col] = d.den.clone();
    hi[0] = &hi[0] + &d.den - Int::one();
    [lo, hi]
}

/// One step of Fourier–Motzkin on inequalities: column `c` eliminated.
fn eliminate(rows: Vec<Vec<Int>>, c: usize) -> Vec<Vec<Int>> {
    let (mut out, mut pos, mut neg) = (Vec::new(), Vec::new(), Vec::new());
    for r in rows {
        if r[c].is_positive() {
            pos.push(r);
        } else if r[c].is_negative() {
            neg.push(r);
        } else {
            out.push(r);
        }
    }
    for p in &pos {
        for n in &neg {
            if out.len() >= MAX_ROWS {
                break;
            }
            let (a, b) = (p[c].clone(), -&n[c]);
            let row: Vec<Int> = p
                .iter()
                .zip(n)
                .map(|(x, y)| &(x * &b) + &(y * &a))
                .collect();
            let row = normalize(row);
            if !out.contains(&row) {
                out.push(row);
            }
        }
    }
    out
}

/// An inequality divided by the gcd of its coefficients (constant rounded down).
fn normalize(mut row: Vec<Int>) -> Vec<Int> {
    let g = gcd_slice(&row[1..]);
    if g.is_zero() || g.is_one() {
        return row;
    }
    row[0] = row[0].floor_div(&g);
    for x in row[1..].iter_mut() {
        *x = x.exact_div(&g);
    }
    row
}
