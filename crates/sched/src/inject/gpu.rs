//! The influence constraint tree builder for GPU load/store vectorization and coalescing
//! (Algorithm 2 of Bastoul et al., CGO 2022; digest `shared/digests/constraint-injection.md`
//! §2.5).
//!
//! # Cost model
//! For each statement and each of its iterators `d`, every access whose subscripts are
//! affine functions of the iterators has a *stride* along `d`: the coefficient of `d` in
//! each subscript times the product of the later extents of the array (row-major
//! linearisation), summed over the subscripts and taken in magnitude. Extents are C text:
//! a decimal literal is a constant, anything else (a parameter, a macro, an expression,
//! an unknown extent) one unknown factor. A [`Size`] is a sum of constants times products
//! of unknown factors, kept exactly; sizes are compared as if every unknown were larger
//! than every constant: by the degree of the leading terms, then by the sum of their
//! constants, then likewise for the lower degrees. Accesses whose subscripts are not
//! affine functions of the iterators are left out of the cost.
//!
//! The trip count `N` of `d` is constant when the statement's domain, projected onto `d`,
//! bounds it by constants on both sides (over all its parts); otherwise it is the unknown
//! `size(d)`, larger than every constant.
//!
//! `cost(W, d) = w1·|V_w| + w2·|V_r| + w3/M + w4·|C| + w5·F·L_s/N`, as printed by default
//! (the last term can be read as `w5·F·N/L_s` instead, see [`ThreadTerm`]),
//! with the digest's readings: `V_w`/`V_r` are the writes/reads of stride 0 (invariant)
//! or 1 (contiguous), counted only when the innermost position is being chosen; `M` is
//! the smallest non-zero stride (without one the `w3/M` term is zero, and so is `|C|`);
//! `C` the accesses whose stride is exactly `M`, counted only when `M` is a constant (a
//! short stride: the term favours loops along which many references move little, and a
//! minimum stride that is a product of unknown extents is not short); `F = 1` when `N`
//! is a constant below
//! `L_s`. When `M` is symbolic, `w3/M` is smaller than every positive constant and is
//! kept aside in the [`Cost`] as a vanishing term that only breaks ties. All arithmetic is
//! exact ([`Rat`]).
//!
//! # Scenarios
//! Per statement, `best` picks the unchosen iterator of highest cost (ties: the later,
//! inner, iterator), first for the innermost position, then outwards, up to
//! [`TreeOptions::max_dims`] picks (and no more than the statement's iterators). The
//! thread budget `L_s` starts at [`TreeOptions::thread_limit`] for each statement and is
//! divided by the trip count of each pick; a pick of symbolic trip count is taken to use
//! the whole budget (`L_s` becomes 0).
//!
//! A scenario `[a, b, c]` (outer to inner) of a statement with `n` iterators becomes
//! constraints on the statement's loop dimensions (the hyperplanes the ILP computes,
//! numbered as in [`crate::inject`]): `coef(c) = 1` at dimension `n − 1` and `0` before
//! it, `coef(b) = 1` at `n − 2` and `0` before, `coef(a) = 1` at `n − 3`.
//!
//! # The tree
//! [`constraint_tree`] emits these alternatives for the first dimension, each a chain of
//! one node per dimension (dimensions without constraints get empty nodes), in this
//! priority order, duplicates dropped, at most [`TreeOptions::max_scenarios`] of them:
//! 1. *fused*: the leader (the statement with the fewest iterators, the first of them)
//!    and its members share their first `n_leader` dimensions: per dimension, equal
//!    coefficients for the iterators of the same name, equal constants, zero for a
//!    member's other iterators. The members are the statements whose iterator names
//!    include all of the leader's and whose innermost pick is none of them (sharing
//!    would push that pick out of the innermost position: gemm's `C[i][j] += ..` is no
//!    member of `C[i][j] *= beta`'s group, whose `j` is shared). The leader
//!    keeps its whole scenario; a member keeps its innermost picks that lie after the
//!    shared dimensions and are not shared iterators; statements outside the group keep
//!    their whole scenario (digest Fig. 3(b), branch 1). Emitted only when the group has
//!    two statements or more;
//! 2. *scenarios*: every statement's whole scenario;
//! 3. *innermost*: every statement's innermost pick only (Fig. 3(b), branch 2);
//! 4. *one statement*: for each statement, its whole scenario alone, the others left
//!    free, then its innermost pick alone; by decreasing cost of the innermost pick (ties
//!    in statement order). Emitted only when two statements or more have picks.
//!
//! Consecutive alternatives whose first nodes are equal share them (and so on down the
//! chains, a node that ends a chain never shared), which keeps the depth-first order
//! equal to the priority order.

use std::cmp::Ordering;
use std::fmt;

use pollen_arith::{Int, Rat};
use pollen_presburger::{BasicMap, DimKind, Map, Set};
use pollen_scop::{AccessKind, Scop, Statement};

use super::{Coefficient, ConstraintNode, ConstraintTree, InjectedConstraint};
use crate::error::Result;

/// A non-negative magnitude: a sum of integer constants times products of unknown
/// factors (C extents that are not literals), kept exactly.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Size {
    /// `(unknown factors, sorted; constant)`, sorted by factors, no zero constant.
    terms: Vec<(Vec<String>, Int)>,
}

impl Size {
    /// Zero.
    pub fn zero() -> Size {
        Size::default()
    }

    /// A constant.
    pub fn constant(value: impl Into<Int>) -> Size {
        Size::term(value.into(), Vec::new())
    }

    /// One unknown factor named `name` (coefficient 1).
    pub fn unknown(name: &str) -> Size {
        Size::term(Int::one(), vec![name.to_string()])
    }

    fn term(c: Int, mut factors: Vec<String>) -> Size {
        factors.sort();
        let mut s = Size::zero();
        if !c.is_zero() {
            s.terms.push((factors, c));
        }
        s
    }

    /// The extent written `text` in C: a decimal literal (with an optional `u`/`l`
    /// suffix) is a constant, anything else one unknown factor (`?` when empty).
    pub fn from_extent(text: &str) -> Size {
        let t = text.trim();
        let digits = t.trim_end_matches(['u', 'U', 'l', 'L']);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(v) = digits.parse::<Int>() {
                return Size::constant(v);
            }
        }
        Size::unknown(if t.is_empty() { "?" } else { t })
    }

    /// Whether it is zero.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// Its value when it has no unknown factor.
    pub fn as_constant(&self) -> Option<Int> {
        match self.terms.as_slice() {
            [] => Some(Int::zero()),
            [(f, c)] if f.is_empty() => Some(c.clone()),
            _ => None,
        }
    }

    /// The sum.
    pub fn add(&self, other: &Size) -> Size {
        let mut terms = self.terms.clone();
        for (f, c) in &other.terms {
            match terms.binary_search_by(|(g, _)| g.cmp(f)) {
                Ok(k) => {
                    terms[k].1 += c;
                    if terms[k].1.is_zero() {
                        terms.remove(k);
                    }
                }
                Err(k) => terms.insert(k, (f.clone(), c.clone())),
            }
        }
        Size { terms }
    }

    /// The product.
    pub fn mul(&self, other: &Size) -> Size {
        let mut out = Size::zero();
        for (f, c) in &self.terms {
            for (g, d) in &other.terms {
                let mut h = f.clone();
                h.extend(g.iter().cloned());
                out = out.add(&Size::term(c * d, h));
            }
        }
        out
    }

    fn scale(&self, k: &Int) -> Size {
        self.mul(&Size::constant(k.clone()))
    }

    fn degree(&self) -> usize {
        self.terms.iter().map(|(f, _)| f.len()).max().unwrap_or(0)
    }

    /// The sum of the constants of the terms of each degree, the highest degree first.
    fn key(&self) -> Vec<Int> {
        let top = self.degree();
        (0..=top)
            .rev()
            .map(|deg| {
                self.terms
                    .iter()
                    .filter(|(f, _)| f.len() == deg)
                    .map(|(_, c)| c.clone())
                    .sum()
            })
            .collect()
    }

    /// Its magnitude: negated when its leading constants sum to a negative value.
    fn magnitude(self) -> Size {
        let key = self.key();
        match key.iter().find(|c| !c.is_zero()) {
            Some(c) if c.is_negative() => self.scale(&Int::from(-1)),
            _ => self,
        }
    }

    /// The comparison of magnitudes, every unknown factor larger than every constant
    /// (two sizes that differ only by the names of their factors compare equal).
    pub fn compare(&self, other: &Size) -> Ordering {
        let (a, b) = (self.key(), other.key());
        if self.is_zero() || other.is_zero() {
            return (!self.is_zero()).cmp(&!other.is_zero());
        }
        a.len().cmp(&b.len()).then_with(|| a.cmp(&b))
    }
}

impl fmt::Display for Size {
    /// E.g. `0`, `4`, `N`, `2*N*M + 1`, leading terms first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "0");
        }
        let mut terms: Vec<&(Vec<String>, Int)> = self.terms.iter().collect();
        terms.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        for (k, (factors, c)) in terms.into_iter().enumerate() {
            let c = if k == 0 {
                c.clone()
            } else if c.is_negative() {
                write!(f, " - ")?;
                -c
            } else {
                write!(f, " + ")?;
                c.clone()
            };
            let mut parts: Vec<String> = Vec::new();
            if !c.is_one() || factors.is_empty() {
                parts.push(c.to_string());
            }
            parts.extend(factors.iter().map(|x| {
                if x.chars().all(|ch| ch.is_alphanumeric() || ch == '_') {
                    x.clone()
                } else {
                    format!("({x})")
                }
            }));
            write!(f, "{}", parts.join("*"))?;
        }
        Ok(())
    }
}

/// The value of [`cost`](StatementInfo::cost): an exact rational plus, when the minimum
/// stride `M` is symbolic, the vanishing term `w3/M` (smaller in magnitude than every
/// non-zero constant).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    /// The finite part.
    pub value: Rat,
    /// `(w3, M)` for the term `w3/M` when `M` is symbolic and `w3` not zero.
    pub vanishing: Option<(Rat, Size)>,
}

impl Cost {
    /// Compares two costs: finite parts first, then the vanishing terms.
    pub fn compare(&self, other: &Cost) -> Ordering {
        self.value.cmp(&other.value).then_with(|| {
            let sign = |v: &Option<(Rat, Size)>| v.as_ref().map_or(0, |(w, _)| w.signum());
            let (sa, sb) = (sign(&self.vanishing), sign(&other.vanishing));
            match (&self.vanishing, &other.vanishing) {
                (Some((wa, ma)), Some((wb, mb))) if sa == sb => {
                    // w/M: of the same sign, the smaller M is the larger in magnitude.
                    let magnitude = mb.compare(ma).then_with(|| wa.abs().cmp(&wb.abs()));
                    if sa > 0 {
                        magnitude
                    } else {
                        magnitude.reverse()
                    }
                }
                _ => sa.cmp(&sb),
            }
        })
    }
}

impl fmt::Display for Cost {
    /// E.g. `18`, `4 + 1/N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)?;
        if let Some((w, m)) = &self.vanishing {
            let sign = if w.is_negative() { "-" } else { "+" };
            let m = if m.terms.len() == 1 && m.terms[0].1.is_one() && m.terms[0].0.len() == 1 {
                m.to_string()
            } else {
                format!("({m})")
            };
            write!(f, " {sign} {}/{m}", w.abs())?;
        }
        Ok(())
    }
}

/// The options of the builder.
#[derive(Clone, Debug)]
pub struct TreeOptions {
    /// `(w1, .., w5)` of the cost function; default `(5, 3, 1, 1, 1)`, the paper's best.
    pub weights: [Rat; 5],
    /// The thread limit `L`; default 1024.
    pub thread_limit: Rat,
    /// The most dimensions a statement's scenario picks; default 3.
    pub max_dims: usize,
    /// The most alternatives the tree has at its first depth; default 8.
    pub max_scenarios: usize,
    /// The reading of the thread term; default as printed.
    pub thread_term: ThreadTerm,
}

/// The last term of the cost function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThreadTerm {
    /// `w5·F·L_s/N`, as printed: with constant trip counts well below `L_s` it outweighs
    /// the other terms and favours the smallest dimension.
    #[default]
    AsPrinted,
    /// `w5·F·N/L_s`: the dimension's share of the thread budget, at most `w5`, a
    /// tie-breaker favouring the larger dimensions that fit (the text's "high
    /// contribution to the number of threads not exceeding L").
    Contribution,
}

impl Default for TreeOptions {
    fn default() -> TreeOptions {
        TreeOptions {
            weights: [5, 3, 1, 1, 1].map(Rat::from),
            thread_limit: Rat::from(1024),
            max_dims: 3,
            max_scenarios: 8,
            thread_term: ThreadTerm::AsPrinted,
        }
    }
}

/// One access of a statement, with its strides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessStrides {
    /// Read or write.
    pub kind: AccessKind,
    /// The array.
    pub array: String,
    /// The stride along each iterator of the statement.
    pub strides: Vec<Size>,
}

/// What the cost model knows of a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementInfo {
    /// The statement's name.
    pub name: String,
    /// Its iterators' names, outermost first.
    pub iterators: Vec<String>,
    /// The accesses whose subscripts are affine functions of the iterators.
    pub accesses: Vec<AccessStrides>,
    /// The trip count of each iterator.
    pub trip_counts: Vec<Size>,
}

/// One pick of a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pick {
    /// The iterator's position in the statement.
    pub iterator: usize,
    /// Its cost when picked.
    pub cost: Cost,
    /// The thread budget `L_s` when it was picked.
    pub threads: Rat,
}

/// A statement's influenced dimension scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// The statement's name.
    pub statement: String,
    /// Its iterators' names.
    pub iterators: Vec<String>,
    /// The picks, innermost first.
    pub picks: Vec<Pick>,
    /// Whether the innermost pick is vector-type eligible: some access of the statement
    /// (a load or a store) is contiguous along it (stride exactly 1), so that the
    /// iterations of a group along it touch consecutive elements.
    pub vector: bool,
}

impl Scenario {
    /// The position of the iterator of the innermost pick when it is vector-type
    /// eligible ([`Scenario::vector`]).
    pub fn vector_iterator(&self) -> Option<usize> {
        self.picks
            .first()
            .filter(|_| self.vector)
            .map(|p| p.iterator)
    }
}

impl Scenario {
    /// The picked iterators, outer to inner (as the paper writes scenarios).
    pub fn dims(&self) -> Vec<usize> {
        self.picks.iter().rev().map(|p| p.iterator).collect()
    }

    /// The constraints of the `keep` innermost picks, as `(dimension, constraint)`: the
    /// pick `t` (0 innermost) has coefficient 1 at dimension `n − 1 − t` and 0 before.
    pub fn constraints(&self, keep: usize) -> Vec<(usize, InjectedConstraint)> {
        let n = self.iterators.len();
        let mut out = Vec::new();
        for (t, pick) in self.picks.iter().take(keep).enumerate() {
            let Some(row) = n.checked_sub(t + 1) else {
                break;
            };
            for d in 0..row {
                out.push((d, fix(&self.statement, d, pick.iterator, 0)));
            }
            out.push((row, fix(&self.statement, row, pick.iterator, 1)));
        }
        out
    }
}

impl fmt::Display for Scenario {
    /// E.g. `S1 [k, i, j]: j 18 (L 1024), i 4 + 1/N (L 0), k 2 (L 0)`: the scenario outer
    /// to inner, then the picks in the order made with their cost and thread budget.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |k: usize| self.iterators.get(k).map_or("?", String::as_str);
        let dims: Vec<&str> = self.dims().into_iter().map(name).collect();
        write!(f, "{} [{}]", self.statement, dims.join(", "))?;
        for (k, p) in self.picks.iter().enumerate() {
            let sep = if k == 0 { ":" } else { "," };
            write!(f, "{sep} {} {} (L {})", name(p.iterator), p.cost, p.threads)?;
        }
        Ok(())
    }
}

fn fix(statement: &str, dim: usize, k: usize, value: i64) -> InjectedConstraint {
    InjectedConstraint::fix(Coefficient::iterator(statement, dim, k), value)
}

impl StatementInfo {
    /// The strides and trip counts of `stmt` of `scop`.
    pub fn new(scop: &Scop, stmt: &Statement) -> Result<StatementInfo> {
        let n = stmt.iterators.len();
        let mut accesses = Vec::new();
        for a in &stmt.accesses {
            let Some(subscripts) = subscripts(&a.relation, n) else {
                continue;
            };
            let extents: Vec<Size> = match scop.array(&a.array) {
                Some(array) if array.extents.len() == subscripts.len() => {
                    array.extents.iter().map(|e| Size::from_extent(e)).collect()
                }
                _ => vec![Size::unknown("?"); subscripts.len()],
            };
            let strides = (0..n)
                .map(|d| {
                    let mut stride = Size::zero();
                    for (k, sub) in subscripts.iter().enumerate() {
                        let later = extents[k + 1..]
                            .iter()
                            .fold(Size::constant(1), |acc, e| acc.mul(e));
                        stride = stride.add(&later.scale(&sub[d]));
                    }
                    stride.magnitude()
                })
                .collect();
            accesses.push(AccessStrides {
                kind: a.kind,
                array: a.array.clone(),
                strides,
            });
        }
        let trip_counts = (0..n)
            .map(|d| trip_count(&stmt.domain, d, &stmt.iterators[d]))
            .collect::<Result<Vec<_>>>()?;
        Ok(StatementInfo {
            name: stmt.name.clone(),
            iterators: stmt.iterators.clone(),
            accesses,
            trip_counts,
        })
    }

    /// `cost(W, d, A, L_s, depth)` with the thread term as printed; `innermost` says
    /// whether the innermost position is being chosen (`depth = |D|`), where the
    /// vectorizable accesses count.
    pub fn cost(&self, weights: &[Rat; 5], d: usize, threads: &Rat, innermost: bool) -> Cost {
        self.cost_with(weights, ThreadTerm::AsPrinted, d, threads, innermost)
    }

    /// [`cost`](StatementInfo::cost) with the given reading of the thread term.
    pub fn cost_with(
        &self,
        weights: &[Rat; 5],
        thread_term: ThreadTerm,
        d: usize,
        threads: &Rat,
        innermost: bool,
    ) -> Cost {
        let [w1, w2, w3, w4, w5] = weights;
        let zero = Size::zero();
        let one = Size::constant(1);
        let stride = |a: &AccessStrides| a.strides.get(d).cloned().unwrap_or_default();
        let mut value = Rat::zero();
        if innermost {
            let vectorizable = |kind: AccessKind| {
                let n = self
                    .accesses
                    .iter()
                    .filter(|a| a.kind == kind)
                    .filter(|a| {
                        let s = stride(a);
                        s == zero || s == one
                    })
                    .count();
                Rat::from(n as i64)
            };
            value += w1 * vectorizable(AccessKind::Write);
            value += w2 * vectorizable(AccessKind::Read);
        }
        let mut min: Option<Size> = None;
        for a in &self.accesses {
            let s = stride(a);
            if !s.is_zero() && min.as_ref().is_none_or(|m| s.compare(m) == Ordering::Less) {
                min = Some(s);
            }
        }
        let mut vanishing = None;
        if let Some(m) = &min {
            match m.as_constant() {
                Some(c) => value += w3 / &Rat::from(c),
                None if !w3.is_zero() => vanishing = Some((w3.clone(), m.clone())),
                None => {}
            }
            // |C| favours loops along which many references have a short stride; a
            // minimum stride that is a product of unknown extents is not short, and
            // counting the references that share it would prefer a batch loop whose
            // every access jumps by a whole plane.
            if m.as_constant().is_some() {
                let n = self.accesses.iter().filter(|a| &stride(a) == m).count();
                value += w4 * &Rat::from(n as i64);
            }
        }
        if let Some(n) = self.trip_counts.get(d).and_then(Size::as_constant) {
            let n = Rat::from(n);
            if n.is_positive() && &n < threads {
                value += match thread_term {
                    ThreadTerm::AsPrinted => &(w5 * threads) / &n,
                    ThreadTerm::Contribution => &(w5 * &n) / threads,
                };
            }
        }
        Cost { value, vanishing }
    }

    /// `best()`: the iterator not in `chosen` of highest cost (ties: the later one), with
    /// its cost; `None` when every iterator is chosen.
    pub fn best(
        &self,
        weights: &[Rat; 5],
        chosen: &[usize],
        threads: &Rat,
        innermost: bool,
    ) -> Option<(usize, Cost)> {
        self.best_with(weights, ThreadTerm::AsPrinted, chosen, threads, innermost)
    }

    /// [`best`](StatementInfo::best) with the given reading of the thread term.
    pub fn best_with(
        &self,
        weights: &[Rat; 5],
        thread_term: ThreadTerm,
        chosen: &[usize],
        threads: &Rat,
        innermost: bool,
    ) -> Option<(usize, Cost)> {
        let mut best: Option<(usize, Cost)> = None;
        for d in (0..self.iterators.len()).rev() {
            if chosen.contains(&d) {
                continue;
            }
            let c = self.cost_with(weights, thread_term, d, threads, innermost);
            if best
                .as_ref()
                .is_none_or(|(_, b)| c.compare(b) == Ordering::Greater)
            {
                best = Some((d, c));
            }
        }
        best
    }

    /// Algorithm 2 for this statement: the scenario, innermost pick first.
    pub fn scenario(&self, options: &TreeOptions) -> Scenario {
        let mut picks: Vec<Pick> = Vec::new();
        let mut threads = options.thread_limit.clone();
        while picks.len() < options.max_dims && picks.len() < self.iterators.len() {
            let chosen: Vec<usize> = picks.iter().map(|p| p.iterator).collect();
            let Some((d, cost)) = self.best_with(
                &options.weights,
                options.thread_term,
                &chosen,
                &threads,
                picks.is_empty(),
            ) else {
                break;
            };
            picks.push(Pick {
                iterator: d,
                cost,
                threads: threads.clone(),
            });
            threads = match self.trip_counts[d].as_constant() {
                Some(n) if n.is_positive() => threads / Rat::from(n),
                _ => Rat::zero(),
            };
        }
        let one = Size::constant(1);
        let vector = picks.first().is_some_and(|p| {
            self.accesses
                .iter()
                .any(|a| a.strides.get(p.iterator) == Some(&one))
        });
        Scenario {
            statement: self.name.clone(),
            iterators: self.iterators.clone(),
            picks,
            vector,
        }
    }
}

/// The iterator coefficients of each subscript of an access relation over `n`
/// iterators, when every subscript is an affine function of them (parameters allowed):
/// read from equalities with coefficient ±1 on the subscript and none on the other
/// subscripts or on existentials, in the first part of the relation.
fn subscripts(relation: &Map, n: usize) -> Option<Vec<Vec<Int>>> {
    let bmap: &BasicMap = relation.basic_maps().first()?;
    let space = bmap.space();
    if space.n_in() != n {
        return None;
    }
    let n_out = space.n_out();
    (0..n_out)
        .map(|k| {
            let col = bmap.dim_col(DimKind::Out, k);
            bmap.eqs().iter().find_map(|eq| {
                let a = &eq[col];
                if !(a.is_one() || (-a).is_one()) {
                    return None;
                }
                let others = (0..n_out)
                    .filter(|&j| j != k)
                    .any(|j| !eq[bmap.dim_col(DimKind::Out, j)].is_zero());
                let divs = (0..bmap.n_div()).any(|q| !eq[bmap.div_col(q)].is_zero());
                if others || divs {
                    return None;
                }
                let neg = -a;
                Some(
                    (0..n)
                        .map(|i| &eq[bmap.dim_col(DimKind::In, i)] * &neg)
                        .collect(),
                )
            })
        })
        .collect()
}

/// The number of values of iterator `d` in `domain`: constant when constant bounds on
/// both sides hold in every part of the domain projected onto `d`, else the unknown
/// `size(name)`.
fn trip_count(domain: &Set, d: usize, name: &str) -> Result<Size> {
    let n = domain.n_dims();
    let unknown = || Size::unknown(&format!("size({name})"));
    if d >= n {
        return Ok(unknown());
    }
    let projected = domain
        .project_out(DimKind::Out, d + 1, n - d - 1)?
        .project_out(DimKind::Out, 0, d)?;
    let mut lower: Option<Int> = None;
    let mut upper: Option<Int> = None;
    let mut parts = 0;
    for b in projected.basic_sets() {
        parts += 1;
        let b = b.as_basic_map();
        let col = b.dim_col(DimKind::Out, 0);
        let only_dim = |row: &[Int]| (1..row.len()).all(|j| j == col || row[j].is_zero());
        let (mut lo, mut hi): (Option<Int>, Option<Int>) = (None, None);
        let mut tighten = |a: &Int, c: &Int| {
            // a·x + c ≥ 0.
            if a.is_positive() {
                let v = (-c).ceil_div(a);
                lo = Some(lo.take().map_or(v.clone(), |l| l.max(v)));
            } else if a.is_negative() {
                let v = c.floor_div(&-a);
                hi = Some(hi.take().map_or(v.clone(), |h| h.min(v)));
            }
        };
        for row in b.ineqs().iter().filter(|r| only_dim(r)) {
            tighten(&row[col], &row[0]);
        }
        for row in b.eqs().iter().filter(|r| only_dim(r)) {
            tighten(&row[col], &row[0]);
            tighten(&-&row[col], &-&row[0]);
        }
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return Ok(unknown());
        };
        lower = Some(lower.map_or(lo.clone(), |l| l.min(lo)));
        upper = Some(upper.map_or(hi.clone(), |h| h.max(hi)));
    }
    Ok(match (lower, upper) {
        (Some(lo), Some(hi)) if parts > 0 && hi >= lo => Size::constant(&(&hi - &lo) + &Int::one()),
        (Some(_), Some(_)) => Size::zero(),
        _ => unknown(),
    })
}

/// Algorithm 2: the scenario of every statement that has iterators, in statement order.
pub fn scenarios(scop: &Scop, options: &TreeOptions) -> Result<Vec<Scenario>> {
    scop.statements
        .iter()
        .filter(|s| !s.iterators.is_empty())
        .map(|s| StatementInfo::new(scop, s).map(|info| info.scenario(options)))
        .collect()
}

/// What an alternative of the tree stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantKind {
    /// The statements of the group share their first dimensions.
    Fused {
        /// The group, the leader first.
        group: Vec<String>,
    },
    /// Every statement's whole scenario.
    Scenarios,
    /// Every statement's innermost pick.
    Innermost,
    /// One statement's whole scenario, the others free.
    Statement(String),
    /// One statement's innermost pick, the others free.
    StatementInnermost(String),
}

impl fmt::Display for VariantKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantKind::Fused { group } => write!(f, "fused {}", group.join(", ")),
            VariantKind::Scenarios => write!(f, "scenarios"),
            VariantKind::Innermost => write!(f, "innermost picks"),
            VariantKind::Statement(s) => write!(f, "scenario of {s} alone"),
            VariantKind::StatementInnermost(s) => write!(f, "innermost pick of {s} alone"),
        }
    }
}

/// An alternative of the tree: one list of constraints per dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// What it stands for.
    pub kind: VariantKind,
    /// The constraints of dimensions `0, 1, ...`.
    pub levels: Vec<Vec<InjectedConstraint>>,
}

/// The alternatives of the tree for `scenarios`, in priority order (see the
/// [module](self) documentation).
pub fn variants(scenarios: &[Scenario], options: &TreeOptions) -> Vec<Variant> {
    let mut out: Vec<Variant> = Vec::new();
    let mut push = |v: Variant| {
        let empty = v.levels.iter().all(Vec::is_empty);
        if !empty && out.len() < options.max_scenarios && !out.iter().any(|w| w.levels == v.levels)
        {
            out.push(v);
        }
    };
    if let Some(v) = fused(scenarios) {
        push(v);
    }
    let all = |keep: &dyn Fn(&Scenario) -> usize| {
        let mut levels = Vec::new();
        for s in scenarios {
            add(&mut levels, s.constraints(keep(s)));
        }
        levels
    };
    push(Variant {
        kind: VariantKind::Scenarios,
        levels: all(&|s| s.picks.len()),
    });
    push(Variant {
        kind: VariantKind::Innermost,
        levels: all(&|_| 1),
    });
    let with_picks: Vec<&Scenario> = scenarios.iter().filter(|s| !s.picks.is_empty()).collect();
    if with_picks.len() >= 2 {
        let mut order = with_picks;
        order.sort_by(|a, b| b.picks[0].cost.compare(&a.picks[0].cost));
        for s in order {
            let mut levels = Vec::new();
            add(&mut levels, s.constraints(s.picks.len()));
            push(Variant {
                kind: VariantKind::Statement(s.statement.clone()),
                levels,
            });
            let mut levels = Vec::new();
            add(&mut levels, s.constraints(1));
            push(Variant {
                kind: VariantKind::StatementInnermost(s.statement.clone()),
                levels,
            });
        }
    }
    out
}

/// Appends `(dimension, constraint)` pairs to per-dimension levels.
fn add(levels: &mut Vec<Vec<InjectedConstraint>>, constraints: Vec<(usize, InjectedConstraint)>) {
    for (d, c) in constraints {
        if levels.len() <= d {
            levels.resize_with(d + 1, Vec::new);
        }
        levels[d].push(c);
    }
}

/// The fused alternative, when a group of two statements or more exists.
fn fused(scenarios: &[Scenario]) -> Option<Variant> {
    let leader = scenarios
        .iter()
        .filter(|s| !s.iterators.is_empty())
        .min_by_key(|s| s.iterators.len())?;
    let shared = leader.iterators.len();
    let members: Vec<&Scenario> = scenarios
        .iter()
        .filter(|s| s.statement != leader.statement)
        .filter(|s| leader.iterators.iter().all(|i| s.iterators.contains(i)))
        .filter(|s| {
            // Sharing must leave the innermost pick where the scenario wants it.
            s.picks.first().is_none_or(|p| {
                s.iterators.len() > shared && !leader.iterators.contains(&s.iterators[p.iterator])
            })
        })
        .filter(|s| {
            // Nor may it contradict the rest of the scenario: the shared rows (the first
            // `shared`) take the leader's iterators, so a pick of the member that lands on
            // one of them must be a leader's iterator, and a leader's iterator that the
            // member picks must land on one of them (a batch-norm's per-channel
            // statement would otherwise pull the channel loop of the 4-D statement
            // outermost, against its scenario).
            let n = s.iterators.len();
            s.picks.iter().enumerate().all(|(t, p)| {
                let row = n - 1 - t;
                let leaders = leader.iterators.contains(&s.iterators[p.iterator]);
                (row < shared) == leaders
            })
        })
        .collect();
    if members.is_empty() {
        return None;
    }
    let mut levels: Vec<Vec<InjectedConstraint>> = Vec::new();
    let mut pairs = Vec::new();
    let mut kept: Vec<(&Scenario, usize)> = Vec::new();
    for m in &members {
        let keep = m
            .picks
            .iter()
            .enumerate()
            .take_while(|(t, p)| {
                m.iterators.len() > shared + t
                    && !leader.iterators.contains(&m.iterators[p.iterator])
            })
            .count();
        kept.push((m, keep));
    }
    for d in 0..shared {
        for (m, keep) in &kept {
            for (a, name) in leader.iterators.iter().enumerate() {
                let Some(b) = m.iterators.iter().position(|x| x == name) else {
                    continue;
                };
                pairs.push((
                    d,
                    InjectedConstraint::eq(
                        vec![
                            (Coefficient::iterator(&leader.statement, d, a), 1),
                            (Coefficient::iterator(&m.statement, d, b), -1),
                        ],
                        0,
                    ),
                ));
            }
            pairs.push((
                d,
                InjectedConstraint::eq(
                    vec![
                        (Coefficient::constant(&leader.statement, d), 1),
                        (Coefficient::constant(&m.statement, d), -1),
                    ],
                    0,
                ),
            ));
            let kept_iters: Vec<usize> = m.picks[..*keep].iter().map(|p| p.iterator).collect();
            for (u, name) in m.iterators.iter().enumerate() {
                if !leader.iterators.contains(name) && !kept_iters.contains(&u) {
                    pairs.push((d, fix(&m.statement, d, u, 0)));
                }
            }
        }
    }
    add(&mut levels, pairs);
    for s in scenarios {
        let keep = if s.statement == leader.statement {
            s.picks.len()
        } else {
            match kept.iter().find(|(m, _)| m.statement == s.statement) {
                Some((_, keep)) => *keep,
                None => s.picks.len(),
            }
        };
        add(&mut levels, s.constraints(keep));
    }
    let mut group = vec![leader.statement.clone()];
    group.extend(members.iter().map(|m| m.statement.clone()));
    Some(Variant {
        kind: VariantKind::Fused { group },
        levels,
    })
}

/// The tree of `variants`: one chain each, consecutive chains sharing their equal
/// leading nodes.
pub fn tree_of(variants: &[Variant]) -> ConstraintTree {
    let mut roots: Vec<ConstraintNode> = Vec::new();
    for v in variants {
        let mut levels = v.levels.clone();
        while levels.last().is_some_and(Vec::is_empty) {
            levels.pop();
        }
        let mut siblings = &mut roots;
        let n = levels.len();
        for (k, level) in levels.into_iter().enumerate() {
            // A node ending an earlier chain stays a leaf, and so does this chain's last.
            let share = k + 1 < n
                && siblings
                    .last()
                    .is_some_and(|s| s.constraints == level && !s.children.is_empty());
            if !share {
                siblings.push(ConstraintNode::leaf(level));
            }
            let last = siblings.len() - 1;
            siblings = &mut siblings[last].children;
        }
    }
    ConstraintTree::new(roots)
}

/// Algorithm 2 and the tree built from its scenarios, with the scenarios.
pub fn constraint_tree(
    scop: &Scop,
    options: &TreeOptions,
) -> Result<(ConstraintTree, Vec<Scenario>)> {
    let scenarios = scenarios(scop, options)?;
    let variants = variants(&scenarios, options);
    Ok((tree_of(&variants), scenarios))
}
