//! Transitive closure, reflexive transitive closure and parametric powers of maps.
//!
//! Source: S. Verdoolaege, A. Cohen, A. Beletska, "Transitive closures of affine integer
//! tuple relations and their over-approximations", SAS 2011 (the approximation by the
//! deltas of each disjunct and the exactness test by induction on the path length),
//! after isl's `isl_transitive_closure.c`.
//!
//! # Method
//! For a map `A` whose domain and range live in the same space, with disjuncts
//! `A_1, ..., A_m`, let `Δ_i` be the (rational simple) hull of `deltas(A_i)`, written as
//! constraints `a·δ + e(p) ≥ 0` over the deltas `δ` and the parameters `p`. A path of
//! length `k` from `x` to `y` takes `k_i ≥ 0` steps in `A_i` (`Σ k_i = k`), and the sum
//! `s_i` of those steps' deltas satisfies
//! - `a·s_i + c·k_i ≥ 0` for every constraint whose constant part `e = c` involves no
//!   parameter (equalities stay equalities), and
//! - `a·s_i ≥ 0` for a constraint whose parametric part `e(p)` is never positive where
//!   `A_i` is non-empty, and even `a·s_1 + e(p) ≥ 0` when `A` has a single disjunct
//!   (then `k_1 = k ≥ 1`); other parametric constraints are dropped (`k·e(p)` is not
//!   affine).
//!
//! The power is then
//! `P = { [k, x] -> [y] : k ≥ 1, ∃ k_i ≥ 0, s_i: Σ k_i = k, y = x + Σ s_i, (s_i, k_i) as
//! above, x ∈ dom A, y ∈ ran A }`, which contains `A^k` for every `k` (so the closure
//! `∃k: P` contains `A^+`: never an under-approximation). When every disjunct is a
//! constant translation the constraints say exactly `s_i = k_i·d_i`.
//!
//! # Exactness
//! `P` is exact when `P(1) ⊆ A` and, for `k ≥ 2`, `P(k) ⊆ A ; P(k - 1)` (a first step in
//! `A`, then a path of `P` one shorter). By induction on `k` this gives `P(k) ⊆ A^k`,
//! and with the containment above `P(k) = A^k`; the closure is then exact too. This is
//! the paper's test `R = A ∪ (A ; R)` made sound by the explicit path length (without it,
//! cyclic over-approximations can also be fixed points). When the test fails the result
//! is reported as an over-approximation.
//!
//! Easy exact cases are answered first: an empty map, and a map with `A ; A = ∅`
//! (`A^+ = A`).
//!
//! # Invariants
//! - the closure contains `A^+`, the power contains `A^k` for every `k ≥ 1`;
//! - `exact == true` only when equality has been proven.

use pollen_arith::Int;

use crate::bmap::BasicMap;
use crate::error::{Budget, Result};
use crate::map::{mismatch, Map};
use crate::space::{DimKind, Space, Tuple};

impl Map {
    /// The transitive closure `A^+` and whether it is exact (otherwise it is an
    /// over-approximation; see the module documentation of `ops::closure`).
    ///
    /// The domain and range of the map must live in the same space
    /// ([`Error::SpaceMismatch`] otherwise).
    ///
    /// [`Error::SpaceMismatch`]: crate::error::Error::SpaceMismatch
    pub fn transitive_closure(&self) -> Result<(Map, bool)> {
        self.transitive_closure_with(&mut Budget::unlimited())
    }

    /// [`Map::transitive_closure`] within a budget.
    pub fn transitive_closure_with(&self, budget: &mut Budget) -> Result<(Map, bool)> {
        check_endomorphism(self, "transitive_closure")?;
        if let Some(exact) = easy_closure(self, budget)? {
            return Ok((exact, true));
        }
        let power = Power::compute(self, budget)?;
        let exact = power.is_exact(self, budget)?;
        let closure = power
            .map
            .project_out(DimKind::In, 0, 1)?
            .with_space(self.space().clone());
        Ok((closure.coalesce_with(budget)?, exact))
    }

    /// The reflexive transitive closure `A^* = A^+ ∪ { x -> x : x ∈ dom A ∪ ran A }` and
    /// whether it is exact.
    pub fn reflexive_transitive_closure(&self) -> Result<(Map, bool)> {
        self.reflexive_transitive_closure_with(&mut Budget::unlimited())
    }

    /// [`Map::reflexive_transitive_closure`] within a budget.
    pub fn reflexive_transitive_closure_with(&self, budget: &mut Budget) -> Result<(Map, bool)> {
        let (plus, exact) = self.transitive_closure_with(budget)?;
        let support = self
            .domain()
            .union(&self.range().with_space(self.space().domain_space()))?;
        let id = Map::identity(&self.space().domain_space()).intersect_domain(&support)?;
        Ok((plus.union(&id)?.coalesce_with(budget)?, exact))
    }

    /// The parametric power `{ [k] -> [x -> y] : k ≥ 1, x -> y ∈ A^k }` and whether it is
    /// exact (otherwise it contains every `A^k`). As isl's `isl_map_power`, the exponent
    /// `k` is the domain of the result and each power a wrapped map in its range.
    pub fn power(&self) -> Result<(Map, bool)> {
        self.power_with(&mut Budget::unlimited())
    }

    /// [`Map::power`] within a budget.
    pub fn power_with(&self, budget: &mut Budget) -> Result<(Map, bool)> {
        check_endomorphism(self, "power")?;
        let space = power_space(self.space());
        if let Some(exact) = easy_closure(self, budget)? {
            // A ; A is empty: the only non-empty power is k = 1.
            let lifted = lift_with_k(&exact)?.fix_val(DimKind::In, 0, &Int::one())?;
            return Ok((lifted.with_space(space), true));
        }
        let power = Power::compute(self, budget)?;
        let exact = power.is_exact(self, budget)?;
        Ok((power.map.coalesce_with(budget)?.with_space(space), exact))
    }
}

/// Checks that `a` is a map from one space to the same space.
fn check_endomorphism(a: &Map, op: &'static str) -> Result<()> {
    let space = a.space();
    if !space.is_map() || space.domain_tuple() != space.range_tuple() {
        return Err(mismatch(op, &space.domain_space(), &space.range_space()));
    }
    Ok(())
}

/// The closure when it is `A` itself: `A` empty or `A ; A` empty.
fn easy_closure(a: &Map, budget: &mut Budget) -> Result<Option<Map>> {
    if a.is_empty_with(budget)? || a.apply_range(a)?.is_empty_with(budget)? {
        return Ok(Some(a.clone()));
    }
    Ok(None)
}

/// `{ [k] -> [x -> y] }` for a map space `x -> y`.
fn power_space(space: &Space) -> Space {
    let (d, r) = (space.domain_tuple(), space.range_tuple());
    let wrapped = Tuple::wrapped(
        None,
        d.cloned().unwrap_or_else(|| Tuple::anonymous(space.n_in())),
        r.cloned()
            .unwrap_or_else(|| Tuple::anonymous(space.n_out())),
    );
    Space::map(space.param_names().to_vec(), Tuple::anonymous(1), wrapped)
}

/// The space `[k, x] -> y` in which powers are built.
fn internal_space(space: &Space) -> Space {
    let range = space
        .range_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(space.n_out()));
    Space::map(
        space.param_names().to_vec(),
        Tuple::anonymous(1 + space.n_in()),
        range,
    )
}

/// `a` (a map `x -> y`) as a map `[k, x] -> y` with `k` unconstrained.
fn lift_with_k(a: &Map) -> Result<Map> {
    let (np, n) = (a.space().n_params(), a.space().n_in());
    let space = internal_space(a.space());
    let targets: Vec<usize> = (0..np).chain((0..2 * n).map(|i| np + 1 + i)).collect();
    let parts = a
        .basic_maps()
        .iter()
        .map(|b| b.reshape(space.clone(), 0, &targets))
        .collect();
    Map::from_parts(space, parts)
}

/// The over-approximated power `P`, in the space `[k, x] -> y`.
struct Power {
    map: Map,
}

impl Power {
    /// Builds `P` (see the module documentation).
    fn compute(a: &Map, budget: &mut Budget) -> Result<Power> {
        let (np, n) = (a.space().n_params(), a.space().n_in());
        let space = internal_space(a.space());
        let m = a.basic_maps().len();
        // Columns: const | params | k | x | y | k_1..k_m | s_1 (n) .. s_m (n).
        let mut core = BasicMap::universe(space.clone());
        for _ in 0..m * (1 + n) {
            core.add_div(None);
        }
        let k_col = 1 + np;
        let x_col = |j: usize| 2 + np + j;
        let y_col = |j: usize| 2 + np + n + j;
        let ki_col = |i: usize| 2 + np + 2 * n + i;
        let s_col = |i: usize, j: usize| 2 + np + 2 * n + m + i * n + j;
        // k ≥ 1, k_i ≥ 0, Σ k_i = k.
        let mut row = core.zero_row();
        row[k_col] = Int::one();
        row[0] = -Int::one();
        core.add_ineq(row);
        let mut sum = core.zero_row();
        sum[k_col] = -Int::one();
        for i in 0..m {
            let mut row = core.zero_row();
            row[ki_col(i)] = Int::one();
            core.add_ineq(row);
            sum[ki_col(i)] = Int::one();
        }
        core.add_eq(sum);
        // y = x + Σ s_i.
        for j in 0..n {
            let mut row = core.zero_row();
            row[y_col(j)] = Int::one();
            row[x_col(j)] = -Int::one();
            for i in 0..m {
                row[s_col(i, j)] = -Int::one();
            }
            core.add_eq(row);
        }
        for (i, part) in a.basic_maps().iter().enumerate() {
            let hull = Map::from_basic(part.clone())
                .deltas()?
                .compute_divs_with(budget)?
                .simple_hull_with(budget)?;
            let context = Map::from_basic(part.clone()).params();
            for (is_eq, h) in hull_rows(&hull) {
                let parametric = h[1..=np].iter().any(|c| !c.is_zero());
                let mut row = core.zero_row();
                for j in 0..n {
                    row[s_col(i, j)] = h[1 + np + j].clone();
                }
                if !parametric {
                    row[ki_col(i)] = h[0].clone();
                } else if is_eq || !never_positive(&context, &h[..=np], budget)? {
                    continue;
                } else if m == 1 {
                    // k_1 = k ≥ 1 steps: a·s ≥ -k·e(p) ≥ -e(p).
                    row[..=np].clone_from_slice(&h[..=np]);
                }
                if is_eq {
                    core.add_eq(row);
                } else {
                    core.add_ineq(row);
                }
            }
        }
        let core = Map::from_basic(core);
        let dom = lift_set(&a.domain(), &space, 1)?;
        let ran = lift_set(&a.range(), &space, 1 + n)?;
        let map = core.intersect(&dom)?.intersect(&ran)?;
        Ok(Power { map })
    }

    /// Whether `P(1) ⊆ A` and `P(k) ⊆ A ; P(k - 1)` for `k ≥ 2` (then `P(k) = A^k`).
    fn is_exact(&self, a: &Map, budget: &mut Budget) -> Result<bool> {
        let one = self
            .map
            .fix_val(DimKind::In, 0, &Int::one())?
            .project_out(DimKind::In, 0, 1)?
            .with_space(a.space().clone());
        if !one.is_subset_with(a, budget)? {
            return Ok(false);
        }
        let longer = self.map.lower_bound_val(DimKind::In, 0, &Int::from(2))?;
        let step = first_step(a)?;
        let unfolded = step.apply_range(&self.map)?;
        longer.is_subset_with(&unfolded, budget)
    }
}

/// The constraints of a hull as `(is_equality, row)`; an equality with a parametric
/// part is returned as its two inequalities, which are treated one by one.
fn hull_rows(hull: &BasicMap) -> Vec<(bool, Vec<Int>)> {
    let np = hull.space().n_params();
    let mut out = Vec::new();
    for e in hull.eqs() {
        if e[1..=np].iter().all(Int::is_zero) {
            out.push((true, e.clone()));
        } else {
            out.push((false, e.clone()));
            out.push((false, super::opposite(e)));
        }
    }
    out.extend(hull.ineqs().iter().map(|r| (false, r.clone())));
    out
}

/// Whether `e(p) ≤ 0` for every parameter value of `context` (a parameter domain).
/// `e` is a row over `[const | params]`.
fn never_positive(context: &Map, e: &[Int], budget: &mut Budget) -> Result<bool> {
    let mut positive = BasicMap::universe(context.space().clone());
    let mut row = e.to_vec();
    row[0] = &row[0] - &Int::one();
    positive.add_ineq(row);
    context
        .intersect(&Map::from_basic(positive))?
        .is_empty_with(budget)
}

/// A set over `x` (params then `n` dimensions) as a map of `space` on the `n` columns
/// starting at tuple position `at` (after the parameters).
fn lift_set(set: &Map, space: &Space, at: usize) -> Result<Map> {
    let (np, n) = (
        set.space().n_params(),
        set.space().n_dims() - set.space().n_params(),
    );
    let targets: Vec<usize> = (0..np).chain((0..n).map(|j| np + at + j)).collect();
    let parts = set
        .basic_maps()
        .iter()
        .map(|b| b.reshape(space.clone(), 0, &targets))
        .collect();
    Map::from_parts(space.clone(), parts)
}

/// `{ [k, x] -> [k - 1, z] : x -> z ∈ A }`, the first step of a path of length `k`.
fn first_step(a: &Map) -> Result<Map> {
    let (np, n) = (a.space().n_params(), a.space().n_in());
    let tuple = Tuple::anonymous(1 + n);
    let space = Space::map(a.space().param_names().to_vec(), tuple.clone(), tuple);
    let targets: Vec<usize> = (0..np)
        .chain((0..n).map(|j| np + 1 + j))
        .chain((0..n).map(|j| np + 2 + n + j))
        .collect();
    let mut parts = Vec::new();
    for b in a.basic_maps() {
        let mut b = b.reshape(space.clone(), 0, &targets);
        let mut row = b.zero_row();
        row[1 + np] = Int::one();
        row[2 + np + n] = -Int::one();
        row[0] = -Int::one();
        b.add_eq(row);
        parts.push(b);
    }
    Map::from_parts(space, parts)
}
