//! Transitive closure, reflexive transitive closure and parametric powers of maps.
//!
//! Source: S. Verdoolaege, A. Cohen, A. Beletska, "Transitive closures of affine integer
//! tuple relations and their over-approximations", SAS 2011 (the approximation by the
//! deltas of each disjunct and the exactness test by induction on the path length), and
//! the decompositions of isl's `isl_transitive_closure.c` (strongly connected components
//! of the disjuncts, Floyd–Warshall over groups of domains and ranges, closure built
//! around one disjunct).
//!
//! # Method: the power of a map
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
//! `P` is exact when `P(1) ⊆ A` and, for `k ≥ 2`, `P(k) ⊆ A ; P(k - 1)` (a first step in
//! `A`, then a path of `P` one shorter). By induction on `k` this gives `P(k) ⊆ A^k`,
//! and with the containment above `P(k) = A^k`; the closure is then exact too. This is
//! the paper's test `R = A ∪ (A ; R)` made sound by the explicit path length (without it,
//! cyclic over-approximations can also be fixed points). When the test fails the result
//! is reported as an over-approximation.
//!
//! # Method: the transitive closure
//! The closure of `A` (without its empty disjuncts, coalesced when that removes
//! disjuncts without adding local variables) is, in this order:
//! 1. `A` itself, exactly, when `A` is empty or transitively closed (`A ; A ⊆ A`, which
//!    includes `A ; A = ∅`; memory-based self-dependences, lexicographic orders on the
//!    writers of a location, are of this kind);
//! 2. for a single disjunct, the power's closure;
//! 3. for two or three disjuncts, the power's closure when it is exact; otherwise, and
//!    first for more disjuncts (the power's cost grows quickly with their number):
//!    - **components** (`by_components`): `A_i` *follows* `A_j` when `A_j ; A_i ≠ ∅` and
//!      `A_j ; A_i ⊄ A_i ; A_j` (the two steps cannot be swapped). With the strongly
//!      connected components `C_1, ..., C_c` of that relation, ordered so that a
//!      component comes after those its disjuncts follow, every path can be rearranged
//!      by swapping adjacent steps into one that visits the components in order, so
//!      `A^+ = R_c` with `R_0 = ∅`, `R_t = R_{t-1} ∪ C_t^+ ∪ (R_{t-1} ; C_t^+)`; each
//!      `C_t^+` is a closure of fewer disjuncts;
//!    - **groups** (`by_groups`): the domains and ranges of the disjuncts, merged while
//!      they overlap, partition the points a path visits; with two groups or more,
//!      Floyd–Warshall over the groups, taking the closure of each diagonal entry;
//!    - **around one disjunct** (`incremental`): for `A_i` with an exact closure and a
//!      convex `C` containing the points involved, `Q = Id_C ∪ A_i^+` is composed on
//!      the possible sides of every other disjunct, giving `B` with fewer disjuncts than
//!      `A`, and `A^+ = A_i^+ ∪ B^+` (with `B^+ ; A_i^+` or `A_i^+ ; B^+` added when only
//!      one side is composed);
//!
//!    a component split is always used (its result is sound even when a component's
//!    closure is not exact; with few disjuncts only when it is exact), the other two
//!    only when exact; failing all, the power's closure.
//!
//! The decompositions call the closure recursively on maps with fewer disjuncts (or on
//! the diagonal entries of a group grid), at most `MAX_DEPTH` levels deep, and every
//! step is charged to the caller's budget.
//!
//! [`Map::power`] splits the disjuncts into the same components (swapping two steps
//! keeps a path's length) and combines the components' powers `P_t` as paths with a step
//! counter, `[x, c] -> [y, c + k]`, so that lengths add up along the way; each `P_t` is
//! the power above (or `k = 1` alone when `C_t ; C_t = ∅`), and the result is exact when
//! every `P_t` is.
//!
//! # Invariants
//! - the closure contains `A^+`, the power contains `A^k` for every `k ≥ 1`: each
//!   decomposition only composes and unites over-approximations of closures of parts;
//! - `exact == true` only when equality has been proven: by the power's induction test,
//!   by transitive closedness, or by a decomposition whose every closure is exact (each
//!   then only unites real paths of `A`).

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
        let (closure, exact) = closure(self, 0, budget)?;
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
        let a = self.coalesce_with(budget)?;
        let order = if a.basic_maps().len() > 1 {
            components(&a, budget)?
        } else {
            Vec::new()
        };
        let (power, exact) = if order.len() < 2 {
            let power = Power::compute(&a, budget)?;
            let exact = power.is_exact(&a, budget)?;
            (power.map, exact)
        } else {
            power_by_components(&a, &order, budget)?
        };
        Ok((power.coalesce_with(budget)?.with_space(space), exact))
    }
}

/// The power `[k, x] -> y` from the powers of the components `order` of `a` (see
/// [`by_components`]; swapping two steps keeps the length of a path): with `E_t` the
/// power of component `t` as `[x, c] -> [y, c + k]`, `R_t = R_{t-1} ∪ E_t ∪
/// (R_{t-1} ; E_t)` adds the lengths along the way, and `R_c` restricted to `c = 0` is
/// the power of `a`, exact when every component's power is.
fn power_by_components(a: &Map, order: &[Vec<usize>], budget: &mut Budget) -> Result<(Map, bool)> {
    let mut path: Option<Map> = None;
    let mut exact = true;
    for component in order {
        let c = parts(a, component)?;
        let (p, e) = if let Some(once) = easy_closure(&c, budget)? {
            (
                lift_with_k(&once)?.fix_val(DimKind::In, 0, &Int::one())?,
                true,
            )
        } else {
            let power = Power::compute(&c, budget)?;
            let e = power.is_exact(&c, budget)?;
            (power.map, e)
        };
        exact &= e;
        let extended = counted(&p, a.space())?;
        path = Some(match path {
            None => extended,
            Some(r) => {
                let through = r.apply_range(&extended)?;
                r.union(&extended)?.union(&through)?.coalesce_with(budget)?
            }
        });
    }
    let path = path.unwrap_or_else(|| Map::empty(counted_space(a.space())));
    Ok((uncounted(&path, a.space())?, exact))
}

/// The space `[x, c] -> [y, c']` of paths with a step counter.
fn counted_space(space: &Space) -> Space {
    let tuple = Tuple::anonymous(space.n_in() + 1);
    Space::map(space.param_names().to_vec(), tuple.clone(), tuple)
}

/// A power `[k, x] -> y` (for a map of `space`) as `{ [x, c] -> [y, c + k] }`.
fn counted(p: &Map, space: &Space) -> Result<Map> {
    let (np, n) = (space.n_params(), space.n_in());
    let target = counted_space(space);
    // k becomes an existential after the 2n + 2 dimensions.
    let targets: Vec<usize> = (0..np)
        .chain(std::iter::once(np + 2 * n + 2))
        .chain((0..n).map(|j| np + j))
        .chain((0..n).map(|j| np + n + 1 + j))
        .collect();
    let mut out = Vec::new();
    for b in p.basic_maps() {
        let mut b = b.reshape(target.clone(), 1, &targets);
        let mut row = b.zero_row();
        row[1 + np + 2 * n + 1] = Int::one();
        row[1 + np + n] = -Int::one();
        row[1 + np + 2 * n + 2] = -Int::one();
        b.add_eq(row);
        out.push(b);
    }
    Map::from_parts(target, out)
}

/// The inverse of [`counted`]: `{ [k, x] -> y : [x, 0] -> [y, k] }`.
fn uncounted(e: &Map, space: &Space) -> Result<Map> {
    let (np, n) = (space.n_params(), space.n_in());
    let target = internal_space(space);
    let fixed = e.fix_val(DimKind::In, n, &Int::zero())?;
    // c (fixed to 0) becomes an existential after the 2n + 1 dimensions.
    let targets: Vec<usize> = (0..np)
        .chain((0..n).map(|j| np + 1 + j))
        .chain(std::iter::once(np + 2 * n + 1))
        .chain((0..n).map(|j| np + 1 + n + j))
        .chain(std::iter::once(np))
        .collect();
    let parts = fixed
        .basic_maps()
        .iter()
        .map(|b| b.reshape(target.clone(), 1, &targets))
        .collect();
    Map::from_parts(target, parts)
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

/// How deeply the decompositions may nest (each level works on a map derived from a
/// part of its caller's); deeper maps go to the power directly.
const MAX_DEPTH: usize = 4;

/// `A^+` and whether it is exact: the easy cases, then the decompositions (strongly
/// connected components, groups of domains and ranges, one disjunct at a time), then the
/// power of the whole map.
fn closure(a: &Map, depth: usize, budget: &mut Budget) -> Result<(Map, bool)> {
    if a.is_empty_with(budget)? {
        return Ok((a.clone(), true));
    }
    // Fewer disjuncts help the decompositions; a coalesced form with more local
    // variables is not used (the power's hull of the deltas suffers from them).
    let a = {
        let plain = a.remove_empty_parts(budget)?;
        let coalesced = plain.coalesce_with(budget)?;
        if coalesced.basic_maps().len() < plain.basic_maps().len()
            && max_divs(&coalesced) <= max_divs(&plain)
        {
            coalesced
        } else {
            plain
        }
    };
    // Transitively closed (`A ; A ⊆ A`, in particular `A ; A = ∅`): `A^+ = A`.
    if a.apply_range(&a)?.is_subset_with(&a, budget)? {
        return Ok((a, true));
    }
    let n = a.basic_maps().len();
    if depth >= MAX_DEPTH || n == 1 {
        return power_closure(&a, budget);
    }
    if n <= POWER_FIRST {
        // Few disjuncts: the power of the whole map first, the decompositions when it is
        // not exact.
        let (closure, exact) = power_closure(&a, budget)?;
        if exact {
            return Ok((closure, true));
        }
        if let Some(found) = by_components(&a, depth, budget)? {
            if found.1 {
                return Ok(found);
            }
        }
        if let Some(found) = exact_decomposition(&a, depth, budget)? {
            return Ok(found);
        }
        return Ok((closure, false));
    }
    // Many disjuncts: the power's cost grows quickly with their number, so the
    // decompositions go first.
    if let Some(found) = by_components(&a, depth, budget)? {
        return Ok(found);
    }
    if let Some(found) = exact_decomposition(&a, depth, budget)? {
        return Ok(found);
    }
    power_closure(&a, budget)
}

/// The closure `∃k: P` from the power of the whole map, and whether it is exact.
fn power_closure(a: &Map, budget: &mut Budget) -> Result<(Map, bool)> {
    let power = Power::compute(a, budget)?;
    let exact = power.is_exact(a, budget)?;
    let closure = power
        .map
        .project_out(DimKind::In, 0, 1)?
        .with_space(a.space().clone());
    Ok((closure, exact))
}

/// The largest number of disjuncts for which the power of the whole map is tried before
/// the decompositions.
const POWER_FIRST: usize = 3;

/// An exact closure by Floyd–Warshall over groups or around one disjunct, if either
/// gives one.
fn exact_decomposition(a: &Map, depth: usize, budget: &mut Budget) -> Result<Option<(Map, bool)>> {
    if let Some(found) = by_groups(a, depth, budget)? {
        if found.1 {
            return Ok(Some(found));
        }
    }
    incremental(a, depth, budget)
}

/// The `i`-th disjunct of `a` as a map.
fn part(a: &Map, i: usize) -> Map {
    Map::from_basic(a.basic_maps()[i].clone())
}

/// The disjuncts `which` of `a` as a map.
fn parts(a: &Map, which: &[usize]) -> Result<Map> {
    let chosen = which.iter().map(|&i| a.basic_maps()[i].clone()).collect();
    Map::from_parts(a.space().clone(), chosen)
}

/// The range of `a`, in the space of its domain (the two tuples are the same).
fn range_as_domain(a: &Map) -> Map {
    a.range().with_space(a.space().domain_space())
}

/// The closure through the strongly connected components of the disjuncts, or `None`
/// when they form a single component.
///
/// A disjunct `A_i` *follows* `A_j` when a step of `A_j` can be followed by one of `A_i`
/// (`A_j ; A_i ≠ ∅`) and the two steps cannot be swapped (`A_j ; A_i ⊄ A_i ; A_j`).
/// Ordering the components so that a component comes after those its disjuncts follow,
/// every path of `A` can be rearranged, swapping adjacent steps, into one that visits
/// the components in that order (each swap removes an inversion), so with components
/// `C_1, ..., C_c` the closure is `R_c` where `R_0 = ∅` and
/// `R_t = R_{t-1} ∪ C_t^+ ∪ (R_{t-1} ; C_t^+)`. It is exact when every `C_t^+` is.
fn by_components(a: &Map, depth: usize, budget: &mut Budget) -> Result<Option<(Map, bool)>> {
    let order = components(a, budget)?;
    if order.len() < 2 {
        return Ok(None);
    }
    let mut path = Map::empty(a.space().clone());
    let mut exact = true;
    for (k, component) in order.iter().enumerate() {
        let (c, e) = closure(&parts(a, component)?, depth + 1, budget)?;
        exact &= e;
        let through = path.apply_range(&c)?;
        path = path.union(&c)?.union(&through)?;
        if k + 1 < order.len() {
            path = path.coalesce_with(budget)?;
        }
    }
    Ok(Some((path, exact)))
}

/// The strongly connected components of the disjuncts of `a` under *follows* (see
/// [`by_components`]), in an order where every path of `a` can be rearranged into one
/// that visits them in turn.
fn components(a: &Map, budget: &mut Budget) -> Result<Vec<Vec<usize>>> {
    let n = a.basic_maps().len();
    let mut follows = vec![vec![false; n]; n];
    for (i, row) in follows.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            if i == j {
                continue;
            }
            let ji = part(a, j).apply_range(&part(a, i))?;
            if ji.is_empty_with(budget)? {
                continue;
            }
            let ij = part(a, i).apply_range(&part(a, j))?;
            *cell = !ji.is_subset_with(&ij, budget)?;
        }
    }
    Ok(ordered_components(&follows))
}

/// The strongly connected components of the graph with an edge `i -> j` when
/// `follows[i][j]`, each a sorted list of nodes, in an order where a component comes
/// after every component it has an edge to.
fn ordered_components(follows: &[Vec<bool>]) -> Vec<Vec<usize>> {
    let n = follows.len();
    // reach[i][j]: a non-empty path of edges from i to j.
    let mut reach = follows.to_vec();
    for r in 0..n {
        let via = reach[r].clone();
        for row in reach.iter_mut() {
            if row[r] {
                for (cell, &v) in row.iter_mut().zip(&via) {
                    *cell |= v;
                }
            }
        }
    }
    let mut components: Vec<Vec<usize>> = Vec::new();
    let mut seen = vec![false; n];
    for i in 0..n {
        if seen[i] {
            continue;
        }
        let members: Vec<usize> = (i..n)
            .filter(|&j| j == i || (reach[i][j] && reach[j][i]))
            .collect();
        for &j in &members {
            seen[j] = true;
        }
        components.push(members);
    }
    // A component may be placed once it reaches no other unplaced component.
    let mut order = Vec::with_capacity(components.len());
    let mut placed = vec![false; components.len()];
    while order.len() < components.len() {
        let next = (0..components.len()).find(|&c| {
            !placed[c]
                && (0..components.len()).all(|d| {
                    d == c
                        || placed[d]
                        || !components[c]
                            .iter()
                            .any(|&i| components[d].iter().any(|&j| reach[i][j]))
                })
        });
        // The condensation of a graph is acyclic, so some component is always ready.
        let Some(c) = next else { break };
        placed[c] = true;
        order.push(components[c].clone());
    }
    order
}

/// The closure by Floyd–Warshall over groups of points, or `None` when there is a
/// single group.
///
/// The domains and ranges of the disjuncts are partitioned into groups, two sets in the
/// same group when they overlap (transitively), so that consecutive steps of a path meet
/// in one group. With `G[p][q]` the union of the disjuncts from group `p` to group `q`,
/// each group `r` in turn replaces `G[r][r]` by its closure and adds to every `G[p][q]`
/// the paths through `r`: `G[p][r] ; G[r][q]` and `G[p][r] ; G[r][r] ; G[r][q]`. The
/// union of the final `G` is `A^+`, exact when every closure of a `G[r][r]` was.
fn by_groups(a: &Map, depth: usize, budget: &mut Budget) -> Result<Option<(Map, bool)>> {
    let n = a.basic_maps().len();
    let mut sets = Vec::with_capacity(2 * n);
    for i in 0..n {
        let p = part(a, i);
        sets.push(p.domain());
        sets.push(range_as_domain(&p));
    }
    // Union-find over the 2n sets; the leader of a group is its smallest member.
    let mut leader: Vec<usize> = (0..2 * n).collect();
    fn find(leader: &[usize], mut x: usize) -> usize {
        while leader[x] != x {
            x = leader[x];
        }
        x
    }
    for s in 0..2 * n {
        for t in 0..s {
            let (ls, lt) = (find(&leader, s), find(&leader, t));
            if ls == lt {
                continue;
            }
            if !sets[s].is_disjoint_with(&sets[t], budget)? {
                let (lo, hi) = (ls.min(lt), ls.max(lt));
                leader[hi] = lo;
            }
        }
    }
    let mut leaders: Vec<usize> = Vec::new();
    let group_of: Vec<usize> = (0..2 * n)
        .map(|s| {
            let l = find(&leader, s);
            match leaders.iter().position(|&x| x == l) {
                Some(g) => g,
                None => {
                    leaders.push(l);
                    leaders.len() - 1
                }
            }
        })
        .collect();
    let g = leaders.len();
    if g < 2 {
        return Ok(None);
    }
    let space = a.space().clone();
    let mut grid = vec![vec![Map::empty(space.clone()); g]; g];
    for k in 0..n {
        let (p, q) = (group_of[2 * k], group_of[2 * k + 1]);
        grid[p][q] = grid[p][q].union(&part(a, k))?;
    }
    let mut exact = true;
    for r in 0..g {
        let (c, e) = closure(&grid[r][r], depth + 1, budget)?;
        exact &= e;
        grid[r][r] = c;
        for p in 0..g {
            for q in 0..g {
                if p == r && q == r {
                    continue;
                }
                let via = grid[p][r].apply_range(&grid[r][q])?;
                let around = grid[p][r]
                    .apply_range(&grid[r][r])?
                    .apply_range(&grid[r][q])?;
                grid[p][q] = grid[p][q]
                    .union(&via)?
                    .union(&around)?
                    .coalesce_with(budget)?;
            }
        }
    }
    let mut all = Map::empty(space);
    for row in &grid {
        for m in row {
            all = all.union(m)?;
        }
    }
    Ok(Some((all, exact)))
}

/// On which sides the reflexive closure of one disjunct is composed with the others in
/// [`incremental`]; for each other disjunct `A_j`, whether to compose before it (a path
/// in `A_i` may lead into `A_j`) and after it.
struct Sides {
    before: Option<Vec<bool>>,
    after: Option<Vec<bool>>,
}

/// Whether the reflexive closure `Id_C ∪ A_i^+` can be composed with the other disjuncts
/// on each side. Before `A_j` (`(Id_C ∪ A_i^+) ; A_j`): either `ran A_i ∩ dom A_j = ∅`
/// (no path of `A_i` leads into `A_j`: not composed), or `dom A_j ⊆ C` (the identity on
/// `C` keeps all of `A_j`); after `A_j` likewise with `dom A_i ∩ ran A_j` and `ran A_j`.
/// A side is possible when one of the two holds for every `j ≠ i`.
fn composability(a: &Map, i: usize, c: &Map, budget: &mut Budget) -> Result<Sides> {
    let n = a.basic_maps().len();
    let pi = part(a, i);
    let (dom_i, ran_i) = (pi.domain(), range_as_domain(&pi));
    let mut before = Some(vec![false; n]);
    let mut after = Some(vec![false; n]);
    for j in (0..n).filter(|&j| j != i) {
        let pj = part(a, j);
        if let Some(flags) = before.as_mut() {
            let dom_j = pj.domain();
            if !ran_i.is_disjoint_with(&dom_j, budget)? {
                if dom_j.is_subset_with(c, budget)? {
                    flags[j] = true;
                } else {
                    before = None;
                }
            }
        }
        if let Some(flags) = after.as_mut() {
            let ran_j = range_as_domain(&pj);
            if !dom_i.is_disjoint_with(&ran_j, budget)? {
                if ran_j.is_subset_with(c, budget)? {
                    flags[j] = true;
                } else {
                    after = None;
                }
            }
        }
        if before.is_none() && after.is_none() {
            break;
        }
    }
    Ok(Sides { before, after })
}

/// The largest number of local variables of a disjunct of `m`.
fn max_divs(m: &Map) -> usize {
    m.basic_maps()
        .iter()
        .map(BasicMap::n_div)
        .max()
        .unwrap_or(0)
}

/// The single basic set containing `dom m ∪ ran m` (their simple hull).
fn hull_of_points(m: &Map, budget: &mut Budget) -> Result<Map> {
    let points = m.domain().union(&range_as_domain(m))?;
    let hull = points.compute_divs_with(budget)?.simple_hull_with(budget)?;
    Ok(Map::from_basic(hull))
}

/// The closure built around one disjunct whose closure is exact, or `None` when no
/// disjunct gives an exact closure this way.
///
/// For a disjunct `A_i` with an exact closure and a convex set `C` (the hull of the
/// domains and ranges of all of `A`, or of `A_i` alone), `Q = Id_C ∪ A_i^+` is the
/// reflexive closure of `A_i` on `C`. A path of `A` that is not a path of `A_i` is a
/// sequence of steps `A_j` (`j ≠ i`) each with paths of `A_i` around it, so with the
/// others composed with `Q` on the sides [`composability`] allows,
/// `B = ∪_{j ≠ i} [Q ;] A_j [; Q]`, the closure is `A_i^+ ∪ B^+` (both sides),
/// `A_i^+ ∪ B^+ ∪ B^+ ; A_i^+` (before only) or `A_i^+ ∪ B^+ ∪ A_i^+ ; B^+` (after
/// only). `B` is used only when it has fewer disjuncts than `A` (which bounds the
/// recursion), no more local variables per disjunct than `A` (compositions with
/// strided closures otherwise pile up floor divisions the solver handles badly), and
/// only when `B^+` is exact, so that the result is exact.
fn incremental(a: &Map, depth: usize, budget: &mut Budget) -> Result<Option<(Map, bool)>> {
    let n = a.basic_maps().len();
    let space = a.space().clone();
    let set_space = space.domain_space();
    let whole = hull_of_points(a, budget)?;
    for i in 0..n {
        let pi = part(a, i);
        let (tc, exact) = closure(&pi, depth + 1, budget)?;
        if !exact {
            continue;
        }
        let own = hull_of_points(&pi, budget)?;
        for c in [&whole, &own] {
            let sides = composability(a, i, c, budget)?;
            if sides.before.is_none() && sides.after.is_none() {
                continue;
            }
            let q = Map::identity(&set_space)
                .with_space(space.clone())
                .intersect_domain(c)?
                .union(&tc)?
                .coalesce_with(budget)?;
            let mut rest = Map::empty(space.clone());
            for j in (0..n).filter(|&j| j != i) {
                let mut m = part(a, j);
                if sides.after.as_ref().is_some_and(|f| f[j]) {
                    m = m.apply_range(&q)?;
                }
                if sides.before.as_ref().is_some_and(|f| f[j]) {
                    m = q.apply_range(&m)?;
                }
                rest = rest.union(&m)?;
            }
            let rest = rest.coalesce_with(budget)?;
            if rest.basic_maps().len() >= n || max_divs(&rest) > max_divs(a) {
                continue;
            }
            let (r, exact) = closure(&rest, depth + 1, budget)?;
            if !exact {
                continue;
            }
            let around = match (&sides.before, &sides.after) {
                (Some(_), Some(_)) => r,
                (Some(_), None) => r.union(&r.apply_range(&tc)?)?,
                _ => r.union(&tc.apply_range(&r)?)?,
            };
            return Ok(Some((tc.union(&around)?, true)));
        }
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

#[cfg(test)]
mod tests {
    use super::ordered_components;

    /// The graph of `edges` (`i -> j`: `i` follows `j`) on `n` nodes.
    fn graph(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<bool>> {
        let mut g = vec![vec![false; n]; n];
        for &(i, j) in edges {
            g[i][j] = true;
        }
        g
    }

    #[test]
    fn components_come_after_those_they_follow() {
        // 0 follows 2, 1 and 3 follow each other and follow 0, 4 is alone.
        let g = graph(5, &[(0, 2), (1, 3), (3, 1), (1, 0), (3, 0)]);
        let order = ordered_components(&g);
        assert_eq!(order, vec![vec![2], vec![0], vec![1, 3], vec![4]]);
    }

    #[test]
    fn a_cycle_is_one_component() {
        let g = graph(3, &[(0, 1), (1, 2), (2, 0)]);
        assert_eq!(ordered_components(&g), vec![vec![0, 1, 2]]);
        assert_eq!(ordered_components(&graph(2, &[])), vec![vec![0], vec![1]]);
        assert!(ordered_components(&[]).is_empty());
    }
}
