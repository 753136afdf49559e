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
//!
//! A stride is recognised when `H` has an equality `±c + f + s·q = 0` whose div `q` is
//! exactly `-(±c + f) / s` ([`Stride`]): then `c ≡ ∓f (mod |s|)`, `q` is substituted in
//! the other constraints, and the loop steps by `|s|` from the first value of the
//! residue class at or above the lower bound.

use pollen_arith::{gcd_slice, Int};
use pollen_presburger::{BasicMap, Budget, DivDef, Set};

use crate::ast::Expr;
use crate::error::{Error, Result};
use crate::expr::{div_exprs, row_expr, row_expr_with_divs, simplify, Names};
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
    let stride = detect_stride(h, col);
    let h = stride.as_ref().map_or(h, |s| &s.reduced);
    let relaxed = bound_rows(&relax(h, col), col)?;
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
    let lower = simplify(Expr::Max(lowers));
    let upper = simplify(Expr::Min(uppers));
    let Some(stride) = stride else {
        return Ok(Bounds {
            shape: Shape::Range {
                lower,
                upper,
                stride: Int::one(),
            },
            enforced,
        });
    };
    // The first value of the residue class at or above the lower bound.
    let residue = row_expr_with_divs(&stride.residue, n_dims, stride.reduced.divs(), names)?;
    let offset = Expr::Mod(
        Box::new(Expr::Add(vec![
            residue,
            Expr::Mul(-Int::one(), Box::new(lower.clone())),
        ])),
        stride.modulus.clone(),
    );
    Ok(Bounds {
        shape: Shape::Range {
            lower: simplify(Expr::Add(vec![lower, offset])),
            upper,
            stride: stride.modulus,
        },
        enforced: enforced.intersect(&stride.congruence),
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

/// A stride of the scanned dimension `c`: an equality `a·c + f + s·q = 0` with
/// `a = ±1` and `q` the div `floor(-(a·c + f) / s)` (for `s > 0`; symmetrically for
/// `s < 0`), so that the equality says exactly `c ≡ -a·f (mod |s|)`.
#[derive(Clone, Debug)]
struct Stride {
    /// The basic map without `q`: the equality is dropped, `q` substituted elsewhere.
    reduced: BasicMap,
    /// `|s|`.
    modulus: Int,
    /// `-a·f` as a row over the columns of `reduced`.
    residue: Vec<Int>,
    /// The equality with its div, over the original columns (what the loop enforces).
    congruence: BasicMap,
}

/// The stride of column `col` in `h`, if an equality gives one (see [`Stride`]).
fn detect_stride(h: &BasicMap, col: usize) -> Option<Stride> {
    let dep = dependent_divs(h, col);
    for e in h.eqs() {
        let a = &e[col];
        if !a.abs().is_one() {
            continue;
        }
        let mut stride_divs = (0..h.n_div()).filter(|&k| dep[k] && !e[h.div_col(k)].is_zero());
        let (Some(k), None) = (stride_divs.next(), stride_divs.next()) else {
            continue;
        };
        let qc = h.div_col(k);
        let s = e[qc].clone();
        let Some(def) = &h.divs()[k] else { continue };
        // q = -(a·c + f) / s exactly: its definition must be floor(-sign(s)·(a·c + f) / |s|).
        let mut expected: Vec<Int> = e.iter().map(|x| x * &-Int::from(s.signum())).collect();
        expected[qc] = Int::zero();
        if def.num != expected || def.den != s.abs() {
            continue;
        }
        if (0..h.n_div())
            .any(|j| j != k && h.divs()[j].as_ref().is_some_and(|d| !d.num[qc].is_zero()))
        {
            continue;
        }
        if let Some(stride) = reduce_stride(h, e, k, col) {
            return Some(stride);
        }
    }
    None
}

/// The [`Stride`] of equality `e` with div `k`, or `None` when some other constraint
/// cannot be rewritten without `q` (an existential elsewhere).
fn reduce_stride(h: &BasicMap, e: &[Int], k: usize, col: usize) -> Option<Stride> {
    let qc = h.div_col(k);
    let s = e[qc].clone();
    let sign = Int::from(s.signum());
    let eliminate_q = |r: &Vec<Int>| -> Vec<Int> {
        let t = r[qc].clone();
        if t.is_zero() {
            return r.clone();
        }
        r.iter()
            .zip(e)
            .map(|(x, y)| &(x * &s.abs()) - &(&(&t * &sign) * y))
            .collect()
    };
    let drop_q = |r: Vec<Int>| -> Vec<Int> {
        r.into_iter()
            .enumerate()
            .filter(|(c, _)| *c != qc)
            .map(|(_, x)| x)
            .collect()
    };
    let eqs: Vec<Vec<Int>> = h
        .eqs()
        .iter()
        .filter(|r| r.as_slice() != e)
        .map(|r| drop_q(eliminate_q(r)))
        .collect();
    let ineqs: Vec<Vec<Int>> = h.ineqs().iter().map(|r| drop_q(eliminate_q(r))).collect();
    let divs: Vec<Option<DivDef>> = h
        .divs()
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != k)
        .map(|(_, d)| {
            d.as_ref().map(|d| DivDef {
                num: drop_q(d.num.clone()),
                den: d.den.clone(),
            })
        })
        .collect();
    let reduced = BasicMap::from_parts(h.space().clone(), divs, eqs, ineqs).ok()?;
    // a·c + f ≡ 0 (mod |s|)  <=>  c ≡ -a·f.
    let a = e[col].clone();
    let mut residue: Vec<Int> = drop_q(e.to_vec()).iter().map(|x| x * &-&a).collect();
    residue[col] = Int::zero();
    let congruence = BasicMap::from_parts(
        h.space().clone(),
        h.divs().to_vec(),
        vec![e.to_vec()],
        Vec::new(),
    )
    .ok()?;
    Some(Stride {
        reduced,
        modulus: s.abs(),
        residue,
        congruence,
    })
}

/// The constraints of `b` that involve column `col` (the others are no bounds: the code
/// does not enforce them, so they may not make a bound look redundant either).
fn bound_rows(b: &BasicMap, col: usize) -> Result<BasicMap> {
    let on_col = |r: &&Vec<Int>| !r[col].is_zero();
    Ok(BasicMap::from_parts(
        b.space().clone(),
        b.divs().to_vec(),
        b.eqs().iter().filter(on_col).cloned().collect(),
        b.ineqs().iter().filter(on_col).cloned().collect(),
    )?)
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

/// `b` with column `col` replaced by `col - shift`: the points whose value of that
/// dimension lies `shift` above a point of `b` (constraints and div definitions are
/// rewritten alike, so the divs stay exact).
fn shifted(b: &BasicMap, col: usize, shift: &Int) -> Result<BasicMap> {
    let shift_row = |r: &Vec<Int>| -> Vec<Int> {
        let mut r = r.clone();
        r[0] = &r[0] - &(shift * &r[col]);
        r
    };
    let divs = b
        .divs()
        .iter()
        .map(|d| {
            d.as_ref().map(|d| DivDef {
                num: shift_row(&d.num),
                den: d.den.clone(),
            })
        })
        .collect();
    Ok(BasicMap::from_parts(
        b.space().clone(),
        divs,
        b.eqs().iter().map(shift_row).collect(),
        b.ineqs().iter().map(shift_row).collect(),
    )?)
}

/// Whether a loop over dimension `d` that enforces `enforced` and steps by `stride`
/// runs at most one iteration wherever `known` holds: no two of its values, `stride`
/// apart, both satisfy `enforced` (exact, by an emptiness test).
pub(crate) fn at_most_one(
    enforced: &BasicMap,
    stride: &Int,
    known: &Set,
    d: usize,
    n_params: usize,
    budget: &mut Budget,
) -> Result<bool> {
    let col = 1 + n_params + d;
    if !has_bounds(enforced, col) {
        return Ok(false);
    }
    let pairs = enforced.intersect(&shifted(enforced, col, stride)?);
    let pairs = basic_set(pairs)?.intersect(known)?;
    Ok(pairs.is_empty_with(budget)?)
}
