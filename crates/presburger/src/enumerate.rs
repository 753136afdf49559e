//! Enumeration and counting of the points of bounded sets (and maps) without parameters.
//!
//! # Algorithm
//! Recursive scanning, dimension by dimension, of all basic maps of a union at once
//! (the "scanning polyhedra" view of Ancourt and Irigoin, *Scanning polyhedra with DO
//! loops*, PPoPP 1991, with exact integer tests at the leaves):
//!
//! 1. with the first `k` dimensions fixed to integers, every known div whose definition
//!    only references fixed columns is evaluated by floor division, and every constraint
//!    is reduced to the remaining variables (dimensions `k..` and unresolved locals);
//! 2. the rational minimum and maximum of dimension `k` over each part's reduced system
//!    ([`solver::rational_min`]; a one-variable system is read off directly) give an
//!    integer interval; a direction unbounded over the rationals is settled by
//!    [`solver::integer_min`], which answers `Unbounded` only when integer points exist;
//! 3. the integers of the union of the parts' intervals are visited in increasing order,
//!    recursing with the parts whose interval contains the value; after a long run of
//!    values without points, the next value where a part has an integer point is found
//!    by [`solver::integer_min`] instead, so that sparse sets (a stride of `2^70`) cost
//!    one search per point rather than one visit per integer;
//! 4. at the leaves, a part holds the point iff its remaining locals (existentials, or
//!    divs defined through existentials) admit an integer solution
//!    ([`solver::is_integer_empty`]). On the last dimension, a part without remaining
//!    locals contributes its whole interval without further tests.
//!
//! Visiting the union's parts jointly yields every point exactly once and in
//! lexicographic order, without sorting or deduplication.
//!
//! # Invariants
//! - points are reported in strictly increasing lexicographic order;
//! - a point is reported iff it belongs to some part of the union;
//! - `Err(Unsupported("unbounded"))` is returned only when the set has infinitely many
//!   integer points; a set with parameters is refused up front.
//!
//! Every visited node and every reported point spends one unit of the [`Budget`]; the
//! solvers spend their own. `card` first tries a closed form: a basic map whose
//! dimensions, once those fixed by equalities with a unit coefficient are eliminated
//! (they are determined by the others), are each bounded by constraints on that
//! dimension alone (redundant constraints removed by the solver if need be) is a box,
//! and its points are counted as the product of its intervals' lengths; pairwise disjoint
//! boxes (apart on some dimension) add up.

use pollen_arith::{Int, Rat};

use crate::bmap::BasicMap;
use crate::error::{Budget, Error, Result};
use crate::map::Map;
use crate::set::Set;
use crate::solver::{self, Optimum, System};

impl Set {
    /// All integer points of a bounded set without parameters, in lexicographic order.
    ///
    /// Fails with [`Error::Unsupported`] for a set with parameters and with
    /// `Unsupported("unbounded")` for a set with infinitely many points.
    pub fn points(&self) -> Result<Vec<Vec<Int>>> {
        self.points_with(&mut Budget::unlimited())
    }

    /// [`Set::points`] within a budget.
    pub fn points_with(&self, budget: &mut Budget) -> Result<Vec<Vec<Int>>> {
        self.as_map().points_with(budget)
    }

    /// Number of integer points of a bounded set without parameters.
    ///
    /// Counts whole intervals on the innermost dimension where that is exact, so that
    /// the points are not materialised. Same errors as [`Set::points`].
    pub fn card(&self) -> Result<Int> {
        self.card_with(&mut Budget::unlimited())
    }

    /// [`Set::card`] within a budget.
    pub fn card_with(&self, budget: &mut Budget) -> Result<Int> {
        self.as_map().card_with(budget)
    }

    /// Calls `f` on every integer point, in lexicographic order; an error returned by `f`
    /// stops the enumeration and is passed on. Same errors as [`Set::points`].
    pub fn foreach_point(&self, f: impl FnMut(&[Int]) -> Result<()>) -> Result<()> {
        self.foreach_point_with(f, &mut Budget::unlimited())
    }

    /// [`Set::foreach_point`] within a budget.
    pub fn foreach_point_with(
        &self,
        f: impl FnMut(&[Int]) -> Result<()>,
        budget: &mut Budget,
    ) -> Result<()> {
        self.as_map().foreach_point_with(f, budget)
    }
}

impl Map {
    /// All pairs of a bounded map without parameters, each as the input coordinates
    /// followed by the output coordinates, in lexicographic order.
    pub fn points(&self) -> Result<Vec<Vec<Int>>> {
        self.points_with(&mut Budget::unlimited())
    }

    /// [`Map::points`] within a budget.
    pub fn points_with(&self, budget: &mut Budget) -> Result<Vec<Vec<Int>>> {
        let mut out = Vec::new();
        self.foreach_point_with(
            |p| {
                out.push(p.to_vec());
                Ok(())
            },
            budget,
        )?;
        Ok(out)
    }

    /// Number of pairs of a bounded map without parameters.
    pub fn card(&self) -> Result<Int> {
        self.card_with(&mut Budget::unlimited())
    }

    /// [`Map::card`] within a budget.
    ///
    /// A map whose basic maps are pairwise disjoint boxes (products of intervals, after
    /// the elimination of dimensions fixed by unit equalities and, if need be, of
    /// redundant constraints) is counted in closed form, as the sum of the products of
    /// its interval lengths; anything else is scanned, one budget step per visited node
    /// and counted interval.
    pub fn card_with(&self, budget: &mut Budget) -> Result<Int> {
        if let Some(count) = disjoint_boxes_card(self, budget)? {
            return Ok(count);
        }
        let mut scanner = Scanner::new(self, budget)?;
        let mut sink = Sink {
            count: Int::zero(),
            emit: None,
        };
        scanner.run(&mut sink)?;
        Ok(sink.count)
    }

    /// Calls `f` on every pair (input then output coordinates), in lexicographic order.
    pub fn foreach_point(&self, f: impl FnMut(&[Int]) -> Result<()>) -> Result<()> {
        self.foreach_point_with(f, &mut Budget::unlimited())
    }

    /// [`Map::foreach_point`] within a budget.
    pub fn foreach_point_with(
        &self,
        mut f: impl FnMut(&[Int]) -> Result<()>,
        budget: &mut Budget,
    ) -> Result<()> {
        let mut scanner = Scanner::new(self, budget)?;
        let mut sink = Sink {
            count: Int::zero(),
            emit: Some(&mut f),
        };
        scanner.run(&mut sink)
    }
}

/// What [`box_shape`] finds out about a basic map.
enum BoxShape {
    /// A constraint involves two free dimensions, or a local or a parameter is present,
    /// or a dimension is unbounded.
    NotABox,
    /// The constraints cannot all hold.
    Empty,
    /// Per dimension, its interval `[lo, hi]`, or `None` for a dimension fixed by the
    /// others through an equality with a unit coefficient: the points are in bijection
    /// with the product of the intervals.
    Intervals(Vec<Option<(Int, Int)>>),
}

/// Whether a basic map without parameters and locals is a box up to dimensions fixed by
/// the others: once every equality with a unit coefficient on a dimension has been used
/// to eliminate that dimension (`x = e(others)`, an integer for every integer value of
/// the others), every constraint bounds at most one dimension and every remaining
/// dimension is bounded on both sides.
fn box_shape(b: &BasicMap) -> BoxShape {
    if b.n_div() > 0 || b.space().n_params() > 0 {
        return BoxShape::NotABox;
    }
    let n = b.n_dims();
    let mut eqs: Vec<Vec<Int>> = b.eqs().to_vec();
    let mut ineqs: Vec<Vec<Int>> = b.ineqs().to_vec();
    let mut fixed = vec![false; n];
    while let Some((e, x)) = unit_equality(&eqs, &ineqs) {
        let eq = eqs.swap_remove(e);
        let c = eq[1 + x].clone();
        for row in eqs.iter_mut().chain(ineqs.iter_mut()) {
            if row[1 + x].is_zero() {
                continue;
            }
            // row - (row[x] / c)·eq, exact as c = ±1.
            let factor = &row[1 + x] * &c;
            for (r, q) in row.iter_mut().zip(&eq) {
                *r = &*r - &(&factor * q);
            }
        }
        fixed[x] = true;
    }
    let mut lo: Vec<Option<Int>> = vec![None; n];
    let mut hi: Vec<Option<Int>> = vec![None; n];
    let mut empty = false;
    for (row, is_eq) in eqs
        .iter()
        .map(|r| (r, true))
        .chain(ineqs.iter().map(|r| (r, false)))
    {
        let mut vars = row[1..].iter().enumerate().filter(|(_, c)| !c.is_zero());
        let (i, c) = match (vars.next(), vars.next()) {
            (None, _) => {
                empty |= if is_eq {
                    !row[0].is_zero()
                } else {
                    row[0].is_negative()
                };
                continue;
            }
            (Some((i, c)), None) => (i, c),
            (Some(_), Some(_)) => return BoxShape::NotABox,
        };
        // `c·x + k ≥ 0` (or `= 0`): `x ≥ ⌈-k/c⌉` when `c > 0`, `x ≤ ⌊-k/c⌋` when `c < 0`.
        let minus_k = -row[0].clone();
        let (at_least, at_most) = (minus_k.ceil_div(c), minus_k.floor_div(c));
        if (is_eq || c.is_positive()) && lo[i].as_ref().is_none_or(|l| &at_least > l) {
            lo[i] = Some(at_least);
        }
        if (is_eq || c.is_negative()) && hi[i].as_ref().is_none_or(|h| &at_most < h) {
            hi[i] = Some(at_most);
        }
    }
    if empty {
        return BoxShape::Empty;
    }
    let mut intervals = Vec::with_capacity(n);
    for ((l, h), fixed) in lo.into_iter().zip(hi).zip(fixed) {
        if fixed {
            intervals.push(None);
            continue;
        }
        let (Some(l), Some(h)) = (l, h) else {
            return BoxShape::NotABox;
        };
        if l > h {
            return BoxShape::Empty;
        }
        intervals.push(Some((l, h)));
    }
    BoxShape::Intervals(intervals)
}

/// An equality (its index) with a unit coefficient on a dimension (its position) and a
/// non-zero coefficient on some other dimension; among those, the dimension that the
/// fewest other constraints mention (one defined by the equality alone is best).
fn unit_equality(eqs: &[Vec<Int>], ineqs: &[Vec<Int>]) -> Option<(usize, usize)> {
    let mentions = |x: usize| {
        eqs.iter()
            .chain(ineqs)
            .filter(|row| !row[1 + x].is_zero())
            .count()
    };
    let mut best: Option<(usize, usize, usize)> = None;
    for (e, row) in eqs.iter().enumerate() {
        if row[1..].iter().filter(|c| !c.is_zero()).count() < 2 {
            continue;
        }
        for (x, c) in row[1..].iter().enumerate() {
            if c.abs() != Int::one() {
                continue;
            }
            let m = mentions(x);
            if best.is_none_or(|(_, _, fewest)| m < fewest) {
                best = Some((e, x, m));
            }
        }
    }
    best.map(|(e, x, _)| (e, x))
}

/// [`box_shape`] of `b`, retried without its redundant constraints (which the solver
/// finds, within `budget`) when they keep it from being a box.
fn box_shape_with(b: &BasicMap, budget: &mut Budget) -> Result<BoxShape> {
    let shape = box_shape(b);
    if !matches!(shape, BoxShape::NotABox) || b.n_div() > 0 {
        return Ok(shape);
    }
    let reduced = Map::from_basic(b.clone()).remove_redundancies_with(budget)?;
    Ok(match reduced.basic_maps() {
        [] => BoxShape::Empty,
        [one] => box_shape(one),
        _ => BoxShape::NotABox,
    })
}

/// The number of points of a map whose basic maps are pairwise disjoint boxes (up to
/// dimensions fixed by the others), in closed form; `None` when some basic map is not
/// such a box or two of them may overlap.
fn disjoint_boxes_card(map: &Map, budget: &mut Budget) -> Result<Option<Int>> {
    if map.space().n_params() > 0 {
        return Ok(None);
    }
    let mut boxes = Vec::with_capacity(map.basic_maps().len());
    for b in map.basic_maps() {
        budget.tick(1)?;
        match box_shape_with(b, budget)? {
            BoxShape::NotABox => return Ok(None),
            BoxShape::Empty => {}
            BoxShape::Intervals(intervals) => boxes.push(intervals),
        }
    }
    for (k, a) in boxes.iter().enumerate() {
        for b in &boxes[..k] {
            budget.tick(1)?;
            let apart = a.iter().zip(b).any(|pair| match pair {
                (Some((alo, ahi)), Some((blo, bhi))) => ahi < blo || bhi < alo,
                _ => false,
            });
            if !apart {
                return Ok(None);
            }
        }
    }
    let mut total = Int::zero();
    for intervals in &boxes {
        let mut product = Int::one();
        for (lo, hi) in intervals.iter().flatten() {
            product *= (hi - lo) + Int::one();
        }
        total += product;
    }
    Ok(Some(total))
}

/// Where the scanner reports points: a counter, and optionally a callback.
struct Sink<'f> {
    count: Int,
    emit: Option<&'f mut PointFn<'f>>,
}

/// The callback receiving points.
type PointFn<'f> = dyn FnMut(&[Int]) -> Result<()> + 'f;

/// One basic map prepared for scanning: its full constraint system (div definitions
/// included) over the variables `[dims | locals]`, and the locals' definitions.
struct Part {
    sys: System,
    /// Number of space dimensions (the scanned ones).
    n_space_dims: usize,
    /// For every local: `Some((num, den))` over the columns `[const | dims | locals]`.
    defs: Vec<Option<(Vec<Int>, Int)>>,
}

/// The reduction of a part to the variables still free at a node of the scan.
struct Reduced {
    /// The constraints over the free variables (free dims first, then free locals).
    sys: System,
}

/// The interval of the current dimension over one part, and whether it is exact.
struct Slice {
    part: usize,
    lo: Int,
    hi: Int,
    /// Every integer of `[lo, hi]` belongs to the part (no local is left to decide).
    exact: bool,
}

struct Scanner<'b> {
    parts: Vec<Part>,
    n_dims: usize,
    budget: &'b mut Budget,
}

impl<'b> Scanner<'b> {
    fn new(map: &Map, budget: &'b mut Budget) -> Result<Scanner<'b>> {
        let space = map.space();
        if space.n_params() > 0 {
            return Err(Error::Unsupported(format!(
                "enumeration needs a set or map without parameters, found parameters [{}]",
                space.param_names().join(", ")
            )));
        }
        let parts = map.basic_maps().iter().map(Part::new).collect();
        Ok(Scanner {
            parts,
            n_dims: space.n_dims(),
            budget,
        })
    }

    fn run(&mut self, sink: &mut Sink<'_>) -> Result<()> {
        let active: Vec<usize> = (0..self.parts.len()).collect();
        let mut prefix = Vec::with_capacity(self.n_dims);
        self.scan(&mut prefix, &active, sink)
    }

    /// Visits the points extending `prefix` in the parts `active`.
    fn scan(&mut self, prefix: &mut Vec<Int>, active: &[usize], sink: &mut Sink<'_>) -> Result<()> {
        self.budget.tick(1)?;
        let depth = prefix.len();
        if depth == self.n_dims {
            for &p in active {
                if self.parts[p].holds_leaf(prefix, self.budget)? {
                    return report(prefix, sink, self.budget);
                }
            }
            return Ok(());
        }
        let mut slices = Vec::new();
        for &p in active {
            if let Some(slice) = self.parts[p].slice(p, prefix, self.n_dims, self.budget)? {
                slices.push(slice);
            }
        }
        if slices.is_empty() {
            return Ok(());
        }
        let last = depth + 1 == self.n_dims;
        if last && sink.emit.is_none() && slices.iter().all(|s| s.exact) {
            for (lo, hi) in interval_union(&slices) {
                self.budget.tick(1)?;
                sink.count = &sink.count + (&hi - &lo) + Int::one();
            }
            return Ok(());
        }
        let mut value = slices
            .iter()
            .map(|s| s.lo.clone())
            .min()
            .expect("non-empty");
        let mut misses = 0;
        loop {
            let here: Vec<usize> = (0..slices.len())
                .filter(|&i| slices[i].lo <= value && value <= slices[i].hi)
                .collect();
            if here.is_empty() {
                let next = slices
                    .iter()
                    .filter(|s| s.lo > value && s.lo <= s.hi)
                    .map(|s| &s.lo)
                    .min();
                match next {
                    Some(next) => {
                        value = next.clone();
                        continue;
                    }
                    None => break,
                }
            }
            prefix.push(value.clone());
            let before = sink.count.clone();
            if last && here.iter().any(|&i| slices[i].exact) {
                report(prefix, sink, self.budget)?;
            } else {
                let parts: Vec<usize> = here.iter().map(|&i| slices[i].part).collect();
                self.scan(prefix, &parts, sink)?;
            }
            prefix.pop();
            if sink.count != before {
                misses = 0;
            } else {
                misses += 1;
                if misses >= JUMP_AFTER_MISSES {
                    // A long run of values without points: skip to the next value where
                    // each part has an integer point, so that a sparse slice (a stride of
                    // 2^70, say) costs one search rather than one visit per integer.
                    misses = 0;
                    for &i in &here {
                        let s = &mut slices[i];
                        let next =
                            self.parts[s.part].next_value(prefix, &value, &s.hi, self.budget)?;
                        s.lo = next.unwrap_or_else(|| &s.hi + Int::one());
                    }
                }
            }
            value += Int::one();
        }
        Ok(())
    }
}

/// Consecutive values without points after which the scan searches for the next value
/// with a point instead of trying the values one by one. An integer search costs
/// dozens of emptiness tests, so only long gaps are worth it.
const JUMP_AFTER_MISSES: u32 = 4096;

/// Counts (and passes on) one point.
fn report(point: &[Int], sink: &mut Sink<'_>, budget: &mut Budget) -> Result<()> {
    budget.tick(1)?;
    sink.count = &sink.count + Int::one();
    match &mut sink.emit {
        Some(f) => f(point),
        None => Ok(()),
    }
}

/// The union of the slices' intervals as disjoint sorted intervals.
fn interval_union(slices: &[Slice]) -> Vec<(Int, Int)> {
    let mut intervals: Vec<(Int, Int)> = slices
        .iter()
        .map(|s| (s.lo.clone(), s.hi.clone()))
        .collect();
    intervals.sort();
    let mut merged: Vec<(Int, Int)> = Vec::with_capacity(intervals.len());
    for (lo, hi) in intervals {
        match merged.last_mut() {
            Some(last) if lo <= &last.1 + Int::one() => {
                if hi > last.1 {
                    last.1 = hi;
                }
            }
            _ => merged.push((lo, hi)),
        }
    }
    merged
}

impl Part {
    fn new(b: &BasicMap) -> Part {
        let defs = b
            .divs()
            .iter()
            .map(|d| d.as_ref().map(|d| (d.num.clone(), d.den.clone())))
            .collect();
        Part {
            sys: b.to_system(),
            n_space_dims: b.n_dims(),
            defs,
        }
    }

    /// Values of the variables `[dims | locals]` known once `prefix` is fixed: the fixed
    /// dimensions and every local whose definition only uses known columns.
    fn known_values(&self, prefix: &[Int], n_dims: usize) -> Vec<Option<Int>> {
        let mut values: Vec<Option<Int>> = prefix.iter().cloned().map(Some).collect();
        values.resize(n_dims + self.defs.len(), None);
        for (k, def) in self.defs.iter().enumerate() {
            let Some((num, den)) = def else { continue };
            let mut sum = num[0].clone();
            let mut known = true;
            for (c, v) in num[1..].iter().zip(&values) {
                if c.is_zero() {
                    continue;
                }
                match v {
                    Some(v) => sum += c * v,
                    None => {
                        known = false;
                        break;
                    }
                }
            }
            if known {
                values[n_dims + k] = Some(sum.floor_div(den));
            }
        }
        values
    }

    /// The constraints with the known values substituted, over the unknown variables in
    /// their original order; `None` when a constraint became a false constant.
    fn reduce(&self, values: &[Option<Int>]) -> Option<Reduced> {
        let free: Vec<usize> = (0..values.len()).filter(|&i| values[i].is_none()).collect();
        let reduce_row = |row: &Vec<Int>| -> Vec<Int> {
            let mut out = Vec::with_capacity(free.len() + 1);
            let mut constant = row[0].clone();
            for (c, v) in row[1..].iter().zip(values) {
                if let (false, Some(v)) = (c.is_zero(), v) {
                    constant += c * v;
                }
            }
            out.push(constant);
            out.extend(free.iter().map(|&i| row[1 + i].clone()));
            out
        };
        let mut sys = System::new(free.len());
        for row in &self.sys.eqs {
            let r = reduce_row(row);
            if r[1..].iter().all(Int::is_zero) {
                if !r[0].is_zero() {
                    return None;
                }
            } else {
                sys.eqs.push(r);
            }
        }
        for row in &self.sys.ineqs {
            let r = reduce_row(row);
            if r[1..].iter().all(Int::is_zero) {
                if r[0].is_negative() {
                    return None;
                }
            } else {
                sys.ineqs.push(r);
            }
        }
        Some(Reduced { sys })
    }

    /// Whether the fully fixed point `prefix` belongs to the part.
    fn holds_leaf(&self, prefix: &[Int], budget: &mut Budget) -> Result<bool> {
        let values = self.known_values(prefix, prefix.len());
        let Some(reduced) = self.reduce(&values) else {
            return Ok(false);
        };
        if reduced.sys.n_vars == 0 {
            return Ok(true);
        }
        Ok(!solver::is_integer_empty(&reduced.sys, budget)?)
    }

    /// The integer interval of dimension `prefix.len()` over the part with `prefix`
    /// fixed, or `None` when that slice is empty.
    fn slice(
        &self,
        part: usize,
        prefix: &[Int],
        n_dims: usize,
        budget: &mut Budget,
    ) -> Result<Option<Slice>> {
        let values = self.known_values(prefix, n_dims);
        let Some(reduced) = self.reduce(&values) else {
            return Ok(None);
        };
        let sys = &reduced.sys;
        // The current dimension is the first free variable.
        let bounds = if sys.n_vars == 1 {
            single_variable_bounds(sys)?
        } else {
            let Some(lo) = bound(sys, true, budget)? else {
                return Ok(None);
            };
            let Some(hi) = bound(sys, false, budget)? else {
                return Ok(None);
            };
            Some((lo, hi))
        };
        Ok(bounds.and_then(|(lo, hi)| {
            (lo <= hi).then_some(Slice {
                part,
                lo,
                hi,
                exact: sys.n_vars == 1,
            })
        }))
    }

    /// The smallest value `> after` and `≤ hi` of dimension `prefix.len()` at which the
    /// part has an integer point extending `prefix`, if any.
    fn next_value(
        &self,
        prefix: &[Int],
        after: &Int,
        hi: &Int,
        budget: &mut Budget,
    ) -> Result<Option<Int>> {
        let values = self.known_values(prefix, self.n_space_dims);
        let Some(mut reduced) = self.reduce(&values) else {
            return Ok(None);
        };
        let n = reduced.sys.n_vars;
        // x - (after + 1) >= 0 and hi - x >= 0 on the first free variable.
        let mut lower = vec![Int::zero(); n + 1];
        lower[0] = -(after + Int::one());
        lower[1] = Int::one();
        let mut upper = vec![Int::zero(); n + 1];
        upper[0] = hi.clone();
        upper[1] = -Int::one();
        reduced.sys.ineqs.push(lower);
        reduced.sys.ineqs.push(upper);
        let mut objective = vec![Int::zero(); n + 1];
        objective[1] = Int::one();
        match solver::integer_min(&reduced.sys, &objective, budget)? {
            Optimum::Bounded((value, _)) => Ok(Some(value)),
            Optimum::Empty | Optimum::Unbounded => Ok(None),
        }
    }
}

/// The integer minimum (`lower`) or maximum of the first variable of `sys`; `None` when
/// the system has no point; `Unsupported("unbounded")` when it is unbounded.
fn bound(sys: &System, lower: bool, budget: &mut Budget) -> Result<Option<Int>> {
    let mut objective = vec![Int::zero(); sys.n_vars + 1];
    objective[1] = Int::one();
    let rational = if lower {
        solver::rational_min(sys, &objective, budget)?
    } else {
        solver::rational_max(sys, &objective, budget)?
    };
    match rational {
        Optimum::Empty => Ok(None),
        Optimum::Bounded((value, _)) => Ok(Some(round_inward(&value, lower))),
        Optimum::Unbounded => {
            let integer = if lower {
                solver::integer_min(sys, &objective, budget)?
            } else {
                solver::integer_max(sys, &objective, budget)?
            };
            match integer {
                Optimum::Empty => Ok(None),
                Optimum::Unbounded => Err(unbounded()),
                Optimum::Bounded((value, _)) => Ok(Some(value)),
            }
        }
    }
}

/// `ceil` of a lower bound, `floor` of an upper bound.
fn round_inward(value: &Rat, lower: bool) -> Int {
    if lower {
        value.ceil()
    } else {
        value.floor()
    }
}

/// Bounds of the only variable of a one-variable system, read off its rows; `None`
/// when they contradict, `Unsupported("unbounded")` when a side is missing (every
/// integer of the half-line is then a point).
fn single_variable_bounds(sys: &System) -> Result<Option<(Int, Int)>> {
    let mut lo: Option<Int> = None;
    let mut hi: Option<Int> = None;
    let mut tighten = |l: Option<Int>, h: Option<Int>| {
        if let Some(l) = l {
            if lo.as_ref().is_none_or(|x| l > *x) {
                lo = Some(l);
            }
        }
        if let Some(h) = h {
            if hi.as_ref().is_none_or(|x| h < *x) {
                hi = Some(h);
            }
        }
    };
    for row in &sys.eqs {
        // c + a x = 0
        let (c, a) = (&row[0], &row[1]);
        if !a.divides(c) {
            return Ok(None);
        }
        let x = (-c).exact_div(a);
        tighten(Some(x.clone()), Some(x));
    }
    for row in &sys.ineqs {
        // c + a x >= 0
        let (c, a) = (&row[0], &row[1]);
        if a.is_positive() {
            tighten(Some((-c).ceil_div(a)), None);
        } else {
            tighten(None, Some(c.floor_div(&-a)));
        }
    }
    match (lo, hi) {
        (Some(lo), Some(hi)) if lo > hi => Ok(None),
        (Some(lo), Some(hi)) => Ok(Some((lo, hi))),
        _ => Err(unbounded()),
    }
}

/// The error for sets with infinitely many points.
fn unbounded() -> Error {
    Error::Unsupported("unbounded".into())
}
