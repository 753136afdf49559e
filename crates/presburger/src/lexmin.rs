//! Parametric lexicographic optimisation: isl's `isl_map_lexmin_pw_multi_aff` family.
//!
//! For a map, the lexicographic minimum (or maximum) of the image of every domain point
//! is a piecewise quasi-affine function of the parameters and the domain dimensions,
//! together with the domain points where the image is empty and those where it has no
//! minimum (it is unbounded below). The core is Feautrier's parametric integer
//! programming (see `lexmin/pip.rs`).
//!
//! # Reduction of a basic map to a parametric integer program
//! - the parameters and the map's domain dimensions are the PIP's parameters;
//! - known divs whose definition only involves parameter columns (recursively) are
//!   context divs: they stay functions of the parameters;
//! - the range dimensions are the variables to optimise, in order; existentials and the
//!   other known divs (with their two defining inequalities) are further variables,
//!   optimised after them and then dropped; so an existential that is unbounded below
//!   does not make the result unbounded;
//! - for a maximum, the range dimensions are negated.
//!
//! # Unions
//! Every basic map is solved separately; two results are combined pointwise: where both
//! have an optimum, the domain is split by the sets where one tuple of affs is
//! lexicographically smaller than the other (one disjoint piece per first differing
//! component); where one part is empty the other's optimum holds; the result is empty
//! where both are, and unbounded where either is. Solver calls are saved where they can
//! be: components that are syntactically equal, or differ by a constant, decide their
//! level without constraints; every non-empty part of a common domain comes with an
//! integer point, and the level region holding that point is known to be non-empty (a
//! rational pre-test before the integer one was measured to cost more than it saves).
//!
//! # Invariants of a [`LexOptResult`]
//! The optimum's pieces are pairwise disjoint and, with `empty` and `unbounded`, partition
//! the domain space (parameters included); everything is exact over the integers.

mod pip;
#[cfg(test)]
mod tests;

use std::cmp::Ordering;

use pollen_arith::Int;

use crate::aff::{Aff, MultiAff, PwAff, PwMultiAff};
use crate::bmap::{BasicMap, DivDef};
use crate::error::{Budget, Error, Result};
use crate::map::Map;
use crate::set::Set;
use crate::solver::Optimum;
use crate::space::{DimKind, Space};

use pip::{Context, Outcome, Problem};

/// Result of a parametric optimisation over a map's range, per domain point.
#[derive(Clone, Debug)]
pub struct LexOptResult {
    /// The optimum where it exists: pieces of the domain space (parameters included) and
    /// the optimal range tuple there.
    pub optimum: PwMultiAff,
    /// The points of the domain space (parameters included) where the image is empty.
    pub empty: Set,
    /// The points where the image is non-empty but has no optimum (unbounded).
    pub unbounded: Set,
}

impl Map {
    /// The lexicographic minimum of the image of every domain point.
    pub fn lexmin_pw(&self) -> Result<LexOptResult> {
        self.lexmin_pw_with(&mut Budget::unlimited())
    }

    /// [`Map::lexmin_pw`] within a budget.
    pub fn lexmin_pw_with(&self, budget: &mut Budget) -> Result<LexOptResult> {
        lexopt(self, false, budget)
    }

    /// The lexicographic maximum of the image of every domain point.
    pub fn lexmax_pw(&self) -> Result<LexOptResult> {
        self.lexmax_pw_with(&mut Budget::unlimited())
    }

    /// [`Map::lexmax_pw`] within a budget.
    pub fn lexmax_pw_with(&self, budget: &mut Budget) -> Result<LexOptResult> {
        lexopt(self, true, budget)
    }

    /// The map restricted to the lexicographic minimum of every image (isl's
    /// `isl_map_lexmin`); [`Error::Unbounded`] when some image has no minimum.
    pub fn lexmin(&self) -> Result<Map> {
        self.lexmin_with(&mut Budget::unlimited())
    }

    /// [`Map::lexmin`] within a budget.
    pub fn lexmin_with(&self, budget: &mut Budget) -> Result<Map> {
        bounded_graph(lexopt(self, false, budget)?, budget)
    }

    /// The map restricted to the lexicographic maximum of every image;
    /// [`Error::Unbounded`] when some image has no maximum.
    pub fn lexmax(&self) -> Result<Map> {
        self.lexmax_with(&mut Budget::unlimited())
    }

    /// [`Map::lexmax`] within a budget.
    pub fn lexmax_with(&self, budget: &mut Budget) -> Result<Map> {
        bounded_graph(lexopt(self, true, budget)?, budget)
    }
}

impl Set {
    /// The lexicographic minimum as a function of the parameters.
    pub fn lexmin_pw(&self) -> Result<LexOptResult> {
        self.lexmin_pw_with(&mut Budget::unlimited())
    }

    /// [`Set::lexmin_pw`] within a budget.
    pub fn lexmin_pw_with(&self, budget: &mut Budget) -> Result<LexOptResult> {
        lexopt(self.as_map(), false, budget)
    }

    /// The lexicographic maximum as a function of the parameters.
    pub fn lexmax_pw(&self) -> Result<LexOptResult> {
        self.lexmax_pw_with(&mut Budget::unlimited())
    }

    /// [`Set::lexmax_pw`] within a budget.
    pub fn lexmax_pw_with(&self, budget: &mut Budget) -> Result<LexOptResult> {
        lexopt(self.as_map(), true, budget)
    }

    /// The set of lexicographic minima (one point per parameter value);
    /// [`Error::Unbounded`] when the set has no minimum for some parameters.
    pub fn lexmin(&self) -> Result<Set> {
        self.lexmin_with(&mut Budget::unlimited())
    }

    /// [`Set::lexmin`] within a budget.
    pub fn lexmin_with(&self, budget: &mut Budget) -> Result<Set> {
        Set::from_map(bounded_graph(
            lexopt(self.as_map(), false, budget)?,
            budget,
        )?)
    }

    /// The set of lexicographic maxima; [`Error::Unbounded`] when some parameter value
    /// has no maximum.
    pub fn lexmax(&self) -> Result<Set> {
        self.lexmax_with(&mut Budget::unlimited())
    }

    /// [`Set::lexmax`] within a budget.
    pub fn lexmax_with(&self, budget: &mut Budget) -> Result<Set> {
        Set::from_map(bounded_graph(lexopt(self.as_map(), true, budget)?, budget)?)
    }

    /// The lexicographically smallest point of a set without parameters.
    pub fn lexmin_point(&self) -> Result<Optimum<Vec<Int>>> {
        self.lexmin_point_with(&mut Budget::unlimited())
    }

    /// [`Set::lexmin_point`] within a budget.
    pub fn lexmin_point_with(&self, budget: &mut Budget) -> Result<Optimum<Vec<Int>>> {
        if self.n_params() > 0 {
            return Err(Error::Unsupported(
                "lexmin_point: the set has parameters (use lexmin_pw)".into(),
            ));
        }
        let r = lexopt(self.as_map(), false, budget)?;
        if !r.unbounded.is_empty_with(budget)? {
            return Ok(Optimum::Unbounded);
        }
        Ok(match r.optimum.eval(&[])? {
            Some(p) => Optimum::Bounded(p),
            None => Optimum::Empty,
        })
    }

    /// The minimum of set dimension `pos` as a function of the parameters (isl's
    /// `isl_set_dim_min`), defined where the set is non-empty;
    /// [`Error::Unbounded`] when it is unbounded below for some parameters.
    pub fn dim_min(&self, pos: usize) -> Result<PwAff> {
        self.dim_min_with(pos, &mut Budget::unlimited())
    }

    /// [`Set::dim_min`] within a budget.
    pub fn dim_min_with(&self, pos: usize, budget: &mut Budget) -> Result<PwAff> {
        self.dim_opt(pos, false, budget)
    }

    /// The maximum of set dimension `pos` as a function of the parameters;
    /// [`Error::Unbounded`] when it is unbounded above for some parameters.
    pub fn dim_max(&self, pos: usize) -> Result<PwAff> {
        self.dim_max_with(pos, &mut Budget::unlimited())
    }

    /// [`Set::dim_max`] within a budget.
    pub fn dim_max_with(&self, pos: usize, budget: &mut Budget) -> Result<PwAff> {
        self.dim_opt(pos, true, budget)
    }

    fn dim_opt(&self, pos: usize, max: bool, budget: &mut Budget) -> Result<PwAff> {
        let n = self.n_dims();
        if pos >= n {
            return Err(Error::Unsupported(format!(
                "dim_min/dim_max: dimension {pos} out of range"
            )));
        }
        let one = self
            .project_out(DimKind::Out, pos + 1, n - pos - 1)?
            .project_out(DimKind::Out, 0, pos)?;
        let r = lexopt(one.as_map(), max, budget)?;
        if !r.unbounded.is_empty_with(budget)? {
            return Err(Error::Unbounded);
        }
        r.optimum.get_pw_aff(0)
    }
}

/// The graph of the optimum, or [`Error::Unbounded`].
fn bounded_graph(r: LexOptResult, budget: &mut Budget) -> Result<Map> {
    if !r.unbounded.is_empty_with(budget)? {
        return Err(Error::Unbounded);
    }
    Ok(r.optimum.to_map())
}

/// The domain space of the optimisation: the map's domain, or the parameters of a set.
fn domain_space_of(space: &Space) -> Space {
    if space.is_map() {
        space.domain_space()
    } else {
        space.params_space()
    }
}

/// Lexicographic optimisation of a map (or set) over its range.
fn lexopt(map: &Map, max: bool, budget: &mut Budget) -> Result<LexOptResult> {
    let space = map.space().clone();
    if space.is_params() {
        return Err(Error::Unsupported(
            "lexicographic optimisation of a parameter domain".into(),
        ));
    }
    let dom = domain_space_of(&space);
    let mut acc: Option<LexOptResult> = None;
    for b in map.basic_maps() {
        let r = lexopt_basic(b, &space, &dom, max, budget)?;
        acc = Some(match acc {
            None => r,
            Some(a) => combine(a, r, max, &dom, budget)?,
        });
    }
    match acc {
        Some(r) => polish(r, budget),
        None => Ok(LexOptResult {
            optimum: PwMultiAff::empty(space),
            empty: Set::universe(dom.clone()),
            unbounded: Set::empty(dom),
        }),
    }
}

/// The parametric integer program of one basic map (see the module documentation).
fn problem_of(b: &BasicMap, max: bool) -> Problem {
    let space = b.space();
    let n_base = space.n_params() + space.n_in();
    let n_out = space.n_out();
    let nd = b.n_dims();
    let n_div = b.n_div();
    // Context divs: known, over parameter columns and earlier context divs only.
    let mut ctx_of: Vec<Option<usize>> = vec![None; n_div];
    let mut n_ctx = 0;
    for (k, d) in b.divs().iter().enumerate() {
        let Some(d) = d else { continue };
        let params_only = d.num[1 + n_base..1 + nd].iter().all(Int::is_zero)
            && (0..k).all(|l| d.num[b.div_col(l)].is_zero() || ctx_of[l].is_some());
        if params_only {
            ctx_of[k] = Some(n_ctx);
            n_ctx += 1;
        }
    }
    let np = n_base + n_ctx;
    let mut n_vars = n_out;
    let mut col: Vec<usize> = Vec::with_capacity(b.n_cols());
    col.extend(0..=n_base);
    col.extend((0..n_out).map(|i| 1 + np + i));
    for t in &ctx_of {
        match t {
            Some(t) => col.push(1 + n_base + t),
            None => {
                col.push(1 + np + n_vars);
                n_vars += 1;
            }
        }
    }
    let width = 1 + np + n_vars;
    let map_row = |r: &[Int]| {
        let mut out = vec![Int::zero(); width];
        for (c, v) in r.iter().enumerate() {
            if !v.is_zero() {
                out[col[c]] = &out[col[c]] + v;
            }
        }
        if max {
            for v in out[1 + np..1 + np + n_out].iter_mut() {
                *v = -&*v;
            }
        }
        out
    };
    let mut divs = Vec::with_capacity(n_ctx);
    let mut ineqs: Vec<Vec<Int>> = b.ineqs().iter().map(|r| map_row(r)).collect();
    for (k, d) in b.divs().iter().enumerate() {
        let Some(d) = d else { continue };
        if ctx_of[k].is_some() {
            let mut num = vec![Int::zero(); 1 + np];
            for (c, v) in d.num.iter().enumerate() {
                if !v.is_zero() {
                    num[col[c]] = &num[col[c]] + v;
                }
            }
            divs.push(DivDef {
                num,
                den: d.den.clone(),
            });
        } else {
            let dc = b.div_col(k);
            let mut lo = d.num.clone();
            lo[dc] = -&d.den;
            let mut hi: Vec<Int> = d.num.iter().map(|c| -c).collect();
            hi[dc] = d.den.clone();
            hi[0] = &hi[0] + &d.den - Int::one();
            ineqs.push(map_row(&lo));
            ineqs.push(map_row(&hi));
        }
    }
    Problem {
        n_base,
        divs,
        n_vars,
        eqs: b.eqs().iter().map(|r| map_row(r)).collect(),
        ineqs,
    }
}

/// A PIP context as a set of the domain space.
fn context_set(ctx: &Context, dom: &Space) -> Result<BasicMap> {
    BasicMap::from_parts(
        dom.clone(),
        ctx.divs.iter().cloned().map(Some).collect(),
        ctx.eqs.clone(),
        ctx.ineqs.clone(),
    )
}

/// The optimum of a leaf as a multi-aff.
fn leaf_multi_aff(
    fn_space: &Space,
    dom: &Space,
    divs: &[DivDef],
    values: Vec<(Vec<Int>, Int)>,
    max: bool,
) -> Result<MultiAff> {
    let mut affs = Vec::with_capacity(values.len());
    for (num, den) in values {
        let mut a = Aff::from_parts(dom.clone(), divs.to_vec(), num, den)?
            .simplify()
            .floor();
        if max {
            a = a.neg();
        }
        affs.push(a.simplify());
    }
    MultiAff::new(fn_space.clone(), affs)
}

/// Pieces of a piecewise result under construction: identical functions share a piece.
#[derive(Default)]
struct Pieces {
    /// (the parts of a domain, its function, an integer point of the domain if known)
    list: Vec<(Vec<BasicMap>, MultiAff, Option<Vec<Int>>)>,
}

impl Pieces {
    fn add(&mut self, parts: Vec<BasicMap>, ma: &MultiAff) {
        self.add_with_point(parts, ma, None);
    }

    /// [`Pieces::add`] with an integer point of the parts, when one is known.
    fn add_with_point(&mut self, parts: Vec<BasicMap>, ma: &MultiAff, point: Option<Vec<Int>>) {
        if parts.is_empty() {
            return;
        }
        match self.list.iter_mut().find(|(_, m, _)| m == ma) {
            Some((p, _, known)) => {
                p.extend(parts);
                if known.is_none() {
                    *known = point;
                }
            }
            None => self.list.push((parts, ma.clone(), point)),
        }
    }

    /// The piecewise function: pieces whose functions agree on the union of their
    /// domains are merged (keeping the function with fewer divs), and every domain is
    /// coalesced.
    fn finish(self, fn_space: &Space, dom: &Space, budget: &mut Budget) -> Result<PwMultiAff> {
        // (domain, function, a point of the domain)
        let n = self.list.len();
        let mut list = Vec::with_capacity(self.list.len());
        for (parts, ma, known) in self.list {
            let mut point = known;
            if n > 1 && point.is_none() {
                for b in &parts {
                    point = crate::ops::integer_point(b, budget)?.map(|mut p| {
                        p.truncate(b.n_dims());
                        p
                    });
                    if point.is_some() {
                        break;
                    }
                }
            }
            list.push((Map::from_parts(dom.clone(), parts)?, ma, point));
        }
        let mut i = 0;
        while i < list.len() {
            let mut j = i + 1;
            while j < list.len() {
                // Whether the function of `x` may hold on the domain of `y`, judged at
                // the sample point of `y` first.
                let may_replace = |x: usize, y: usize| match &list[y].2 {
                    Some(p) => list[x].1.eval(p) == list[y].1.eval(p),
                    None => true,
                };
                let (first, second) = if n_divs(&list[j].1) < n_divs(&list[i].1) {
                    (j, i)
                } else {
                    (i, j)
                };
                // The simpler function first: it may replace the other on its domain.
                let keep = if may_replace(first, second)
                    && agrees(&list[first].1, &list[second].1, &list[second].0, budget)?
                {
                    Some(first)
                } else if may_replace(second, first)
                    && agrees(&list[second].1, &list[first].1, &list[first].0, budget)?
                {
                    Some(second)
                } else {
                    None
                };
                let Some(keep) = keep else {
                    j += 1;
                    continue;
                };
                let (dj, mj, pj) = list.remove(j);
                if keep == j {
                    list[i].1 = mj;
                    list[i].2 = pj;
                }
                for b in dj.into_basic_maps() {
                    list[i].0.push(b);
                }
                j = i + 1;
            }
            i += 1;
        }
        let mut pw = PwMultiAff::empty(fn_space.clone());
        for (d, ma, _) in list {
            pw.add_piece(Set::from_map(d)?, ma)?;
        }
        Ok(pw)
    }
}

/// The final form of a result: piece domains coalesced and the functions' divs reduced
/// ([`Aff::reduce_divs`]); done once, since the reduced divs no longer match those of
/// the pieces, which would make further comparisons costlier.
fn polish(r: LexOptResult, budget: &mut Budget) -> Result<LexOptResult> {
    let space = r.optimum.space().clone();
    let mut pw = PwMultiAff::empty(space.clone());
    for (d, ma) in r.optimum.into_pieces() {
        let d = coalesce_within(d, budget)?;
        let affs = ma.into_affs().into_iter().map(Aff::reduce_divs).collect();
        pw.add_piece(d, MultiAff::new(space.clone(), affs)?)?;
    }
    Ok(LexOptResult {
        optimum: pw,
        empty: r.empty,
        unbounded: r.unbounded,
    })
}

/// The most solver steps spent on coalescing one piece's domain: coalescing pieces with
/// many divs can cost far more than the optimisation itself, and an uncoalesced domain
/// is just as exact.
const COALESCE_STEPS: u64 = 20_000;

/// `d` coalesced when that takes at most [`COALESCE_STEPS`] steps, else `d` itself.
fn coalesce_within(d: Set, budget: &mut Budget) -> Result<Set> {
    if d.as_map().basic_maps().len() < 2 {
        return Ok(d);
    }
    let cap = budget
        .remaining()
        .map_or(COALESCE_STEPS, |r| r.min(COALESCE_STEPS));
    let mut sub = Budget::new(cap);
    let r = d.coalesce_with(&mut sub);
    budget.tick(cap - sub.remaining().unwrap_or(0))?;
    match r {
        Ok(c) => Ok(c),
        Err(Error::LimitExceeded) => Ok(d),
        Err(e) => Err(e),
    }
}

/// The number of divs of a multi-aff's components.
fn n_divs(ma: &MultiAff) -> usize {
    ma.affs().iter().map(Aff::n_div).sum()
}

/// Whether `a` and `b` take the same value at every integer point of `domain`.
fn agrees(a: &MultiAff, b: &MultiAff, domain: &Map, budget: &mut Budget) -> Result<bool> {
    if a == b {
        return Ok(true);
    }
    for (x, y) in a.affs().iter().zip(b.affs()) {
        if x == y {
            continue;
        }
        for sign in [1, -1] {
            // Each part with the functions' divs (those it has already are reused) and
            // the two functions differing in that direction.
            for part in domain.basic_maps() {
                let mut bm = part.clone();
                let (rx, ry) = embed_pair(&mut bm, x, y);
                let mut row = difference(&rx, x.den(), &ry, y.den());
                if sign < 0 {
                    for c in row.iter_mut() {
                        *c = -&*c;
                    }
                }
                row[0] = &row[0] - &(x.den() * y.den());
                bm.add_ineq(row);
                let bm = bm.simplify();
                if !bm.is_obviously_empty() && !part_is_empty(&bm, budget)? {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// Solves one basic map.
fn lexopt_basic(
    b: &BasicMap,
    fn_space: &Space,
    dom: &Space,
    max: bool,
    budget: &mut Budget,
) -> Result<LexOptResult> {
    let problem = problem_of(b, max);
    let leaves = pip::solve(&problem, fn_space.n_out(), budget)?;
    let mut pieces = Pieces::default();
    let mut empty = Vec::new();
    let mut unbounded = Vec::new();
    for leaf in leaves {
        let mut ctx = leaf.context;
        ctx.drop_redundant(budget)?;
        let piece = context_set(&ctx, dom)?;
        match leaf.outcome {
            Outcome::Empty => empty.push(piece),
            Outcome::Unbounded => unbounded.push(piece),
            Outcome::Optimum(values) => {
                let ma = leaf_multi_aff(fn_space, dom, &ctx.divs, values, max)?;
                // A point the context met on the way lies in the piece.
                let point = ctx.samples.first().map(|p| p[..ctx.n_base].to_vec());
                debug_assert!(point.as_ref().is_none_or(|p| piece
                    .contains_point(p, &mut Budget::unlimited())
                    .unwrap_or(true)));
                pieces.add_with_point(vec![piece], &ma, point);
            }
        }
    }
    Ok(LexOptResult {
        optimum: pieces.finish(fn_space, dom, budget)?,
        empty: Set::from_map(Map::from_parts(dom.clone(), empty)?)?,
        unbounded: Set::from_map(Map::from_parts(dom.clone(), unbounded)?)?,
    })
}

/// The numerators of two affs over the columns of `bm` (their divs added to it).
fn embed_pair(bm: &mut BasicMap, a: &Aff, b: &Aff) -> (Vec<Int>, Vec<Int>) {
    let targets: Vec<usize> = (0..a.n_dims()).collect();
    let mut ra = a.embed(bm, &targets);
    let rb = b.embed(bm, &targets);
    ra.resize(bm.n_cols(), Int::zero());
    (ra, rb)
}

/// `b·den_a - a·den_b` (positive exactly where `a < b`, up to the positive factor).
fn difference(ra: &[Int], da: &Int, rb: &[Int], db: &Int) -> Vec<Int> {
    ra.iter().zip(rb).map(|(x, y)| y * da - x * db).collect()
}

/// How the `level`-th components of two multi-affs compare, judged syntactically.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntactic {
    /// Identical affs: the two are equal everywhere.
    Equal,
    /// The first is smaller everywhere (same linear part, smaller constant).
    Less,
    /// The first is larger everywhere.
    Greater,
    /// It depends on the point.
    Unknown,
}

/// Compares two affs without a solver.
fn compare_syntactic(x: &Aff, y: &Aff) -> Syntactic {
    if x == y {
        return Syntactic::Equal;
    }
    if x.den() == y.den() && x.divs() == y.divs() && x.num()[1..] == y.num()[1..] {
        return match x.num()[0].cmp(&y.num()[0]) {
            Ordering::Less => Syntactic::Less,
            Ordering::Greater => Syntactic::Greater,
            Ordering::Equal => Syntactic::Equal,
        };
    }
    Syntactic::Unknown
}

/// The region of the domain space where one function wins, by first differing level.
struct Level {
    /// The constraints (the functions' divs embedded): earlier levels equal, this level
    /// strictly better for the winner (no strict row for the all-equal level).
    set: BasicMap,
    /// The first differing component, or `n` for "all equal".
    level: usize,
    /// Whether the first function (`a`) wins here.
    a_wins: bool,
}

/// The disjoint regions where `a` or `b` is optimal (ties go to `a`), one per first
/// differing component; levels whose components are syntactically equal or ordered are
/// decided without constraints.
fn win_levels(a: &MultiAff, b: &MultiAff, dom: &Space, max: bool) -> Vec<Level> {
    let n = a.affs().len();
    let mut out = Vec::new();
    // The levels below the current one that need an equality.
    let mut eq_levels: Vec<usize> = Vec::new();
    let build = |eq_levels: &[usize], strict: Option<(usize, bool)>| {
        let mut bm = BasicMap::universe(dom.clone());
        let mut rows = Vec::new();
        for &i in eq_levels {
            let (x, y) = (&a.affs()[i], &b.affs()[i]);
            let (rx, ry) = embed_pair(&mut bm, x, y);
            rows.push((difference(&rx, x.den(), &ry, y.den()), true));
        }
        if let Some((i, a_less)) = strict {
            let (x, y) = (&a.affs()[i], &b.affs()[i]);
            let (rx, ry) = embed_pair(&mut bm, x, y);
            // a_less: y - x ≥ 1 (scaled); else x - y ≥ 1.
            let mut row = if a_less {
                difference(&rx, x.den(), &ry, y.den())
            } else {
                difference(&ry, y.den(), &rx, x.den())
            };
            row[0] = &row[0] - &(x.den() * y.den());
            rows.push((row, false));
        }
        let width = bm.n_cols();
        for (mut r, is_eq) in rows {
            r.resize(width, Int::zero());
            if is_eq {
                bm.add_eq(r);
            } else {
                bm.add_ineq(r);
            }
        }
        bm
    };
    for level in 0..n {
        let (x, y) = (&a.affs()[level], &b.affs()[level]);
        match compare_syntactic(x, y) {
            Syntactic::Equal => continue,
            Syntactic::Less | Syntactic::Greater => {
                let a_less = compare_syntactic(x, y) == Syntactic::Less;
                out.push(Level {
                    set: build(&eq_levels, None),
                    level,
                    a_wins: a_less != max,
                });
                return out;
            }
            Syntactic::Unknown => {
                for a_less in [true, false] {
                    out.push(Level {
                        set: build(&eq_levels, Some((level, a_less))),
                        level,
                        a_wins: a_less != max,
                    });
                }
                eq_levels.push(level);
            }
        }
    }
    out.push(Level {
        set: build(&eq_levels, None),
        level: n,
        a_wins: true,
    });
    out
}

/// The level of [`win_levels`] that contains `point` (`n` when the values agree), and
/// whether `a` wins there; `None` when a value is undefined at the point.
fn level_at(a: &MultiAff, b: &MultiAff, point: &[Int], max: bool) -> Option<(usize, bool)> {
    let va = a.eval(point)?;
    let vb = b.eval(point)?;
    for (k, (x, y)) in va.iter().zip(&vb).enumerate() {
        match x.cmp(y) {
            Ordering::Equal => continue,
            Ordering::Less => return Some((k, !max)),
            Ordering::Greater => return Some((k, max)),
        }
    }
    Some((va.len(), true))
}

/// Whether a basic map has no integer point: the syntactic test, then the integer
/// solver.
fn part_is_empty(b: &BasicMap, budget: &mut Budget) -> Result<bool> {
    crate::ops::is_empty(b, budget)
}

/// The non-empty basic parts of `x ∩ y`, each with an integer point of it.
fn sampled_intersection(
    x: &Set,
    y: &Set,
    budget: &mut Budget,
) -> Result<Vec<(BasicMap, Vec<Int>)>> {
    let mut out = Vec::new();
    for b in x.intersect(y)?.into_map().into_basic_maps() {
        let b = b.simplify();
        if b.is_obviously_empty() {
            continue;
        }
        if let Some(p) = b.sample(budget)? {
            out.push((b, p));
        }
    }
    Ok(out)
}

/// The basic sets of `set` that contain an integer point.
fn non_empty_parts(set: &Set, budget: &mut Budget) -> Result<Vec<BasicMap>> {
    let mut out = Vec::new();
    for b in set.as_map().basic_maps() {
        if !part_is_empty(b, budget)? {
            out.push(b.clone());
        }
    }
    Ok(out)
}

/// The pointwise optimum of two results over the same spaces.
fn combine(
    a: LexOptResult,
    b: LexOptResult,
    max: bool,
    dom: &Space,
    budget: &mut Budget,
) -> Result<LexOptResult> {
    let fn_space = a.optimum.space().clone();
    let mut pieces = Pieces::default();
    for (d, ma) in a.optimum.pieces() {
        for (e, mb) in b.optimum.pieces() {
            let common = sampled_intersection(d, e, budget)?;
            if common.is_empty() {
                continue;
            }
            if ma == mb {
                pieces.add(common.into_iter().map(|(p, _)| p).collect(), ma);
                continue;
            }
            let levels = win_levels(ma, mb, dom, max);
            let mut a_parts = Vec::new();
            let mut b_parts = Vec::new();
            for (p, point) in common {
                let at = level_at(ma, mb, &point, max);
                for l in &levels {
                    let q = p.intersect(&l.set).simplify();
                    // The region holding the part's sample point is non-empty.
                    let known = at.is_some_and(|(k, _)| k == l.level)
                        && at.is_some_and(|(_, w)| w == l.a_wins);
                    if !known && part_is_empty(&q, budget)? {
                        continue;
                    }
                    if l.a_wins {
                        a_parts.push(q);
                    } else {
                        b_parts.push(q);
                    }
                }
            }
            pieces.add(a_parts, ma);
            pieces.add(b_parts, mb);
        }
    }
    for (d, ma) in a.optimum.pieces() {
        pieces.add(non_empty_parts(&d.intersect(&b.empty)?, budget)?, ma);
    }
    for (e, mb) in b.optimum.pieces() {
        pieces.add(non_empty_parts(&e.intersect(&a.empty)?, budget)?, mb);
    }
    let empty = non_empty_parts(&a.empty.intersect(&b.empty)?, budget)?;
    Ok(LexOptResult {
        optimum: pieces.finish(&fn_space, dom, budget)?,
        empty: Set::from_map(Map::from_parts(dom.clone(), empty)?)?,
        unbounded: a.unbounded.union(&b.unbounded)?,
    })
}
