//! `PruneIllegalInterleavings` at the outermost level: the space F¹ of legal outer
//! fusion structures.
//!
//! Pouchet et al., POPL 2011, Fig. 3 (§3.2); digest `shared/digests/pouchet-popl11.md`
//! §2.6. Starting from O (one level of [`crate::encoding`]):
//! 1. *pair pre-fixing*: a dependence `R → S` forbids `S` strictly before `R`
//!    (`s_{R,S} = 0`, the splitter test of `mustFuse`/`canDistributeAndSwap`: a
//!    distribution is legal iff no dependence goes backwards across it); dependences
//!    both ways force fusion (`e_{R,S} = 1`);
//! 2. a statement that has no non-constant legal row of its own (loop depth 0, or
//!    dependences no `θ ∈ N` row satisfies) is fused with nothing (`e = 0`);
//! 3. *joint fusibility*: every set of statements connected by dependences, tested by
//!    [`Problem::fusable`] on all its statements at once, smallest sets first; an
//!    unfusable set `C` gets the cut of Eq. (8) over the edges of a spanning tree of
//!    `C`, `Σ e < |C| − 1`, which forbids exactly the classes that contain `C` (by the
//!    transitivity of `e`). The paper tests the node sets of paths only; every
//!    connected set is tested here, so that a star of statements is not missed. Sets
//!    containing a known unfusable set are not tested (unfusability is inherited by
//!    supersets), nor sets that cannot be a class (a dependence path leaves and
//!    re-enters them), whose supersets are still generated.
//!
//! The result is exact for the fusion criterion of [`crate::fusion`]: a point of F¹ is
//! a total preorder whose every distribution is legal and whose every class is
//! fusable, because a class's fusibility is that of its dependence-connected parts
//! (rows of independent parts are chosen independently, and all rows may be translated
//! together). The tests compare F¹ with a direct enumeration.
//!
//! # Invariants
//! - `unfusable` lists the sets found unfusable, each connected, none containing
//!   another;
//! - the rows of the system (`ineqs`, `eqs`) define [`Pruned::set`].

use std::collections::BTreeSet;

use pollen_arith::Int;
use pollen_presburger::{Budget, Set};

use crate::encoding::{Encoding, Row, SpaceStats};
use crate::error::{Error, Result};
use crate::fusion::{FusionOptions, Problem};
use crate::structure::FusionStructure;

/// The largest number of statements the pruning handles (sets are bit masks).
pub const MAX_PRUNED_STATEMENTS: usize = 63;

/// Options of the pruning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Options {
    /// How fusion is tested.
    pub fusion: FusionOptions,
}

/// What the dependences of a pair impose on its order, `(i, j)` with `i < j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOrder {
    /// Independent: any order.
    Free,
    /// `i → j` only: `j` may not run before `i` (`s_{i,j} = 0`).
    NotAfter,
    /// `j → i` only: `i` may not run before `j` (`p_{i,j} = 0`).
    NotBefore,
    /// Both ways: fused (`e_{i,j} = 1`).
    Fused,
}

/// The pruned space F¹ of one scop.
#[derive(Clone, Debug)]
pub struct Pruned {
    names: Vec<String>,
    encoding: Encoding,
    orders: Vec<PairOrder>,
    isolated: Vec<usize>,
    unfusable: Vec<Vec<usize>>,
    ineqs: Vec<Row>,
    eqs: Vec<Row>,
    set: Set,
}

/// F¹ of `problem`: every legal outermost fusion structure.
pub fn prune_outer(problem: &Problem, options: &Options) -> Result<Pruned> {
    prune_outer_with(problem, options, &mut Budget::unlimited())
}

/// [`prune_outer`] within a budget.
pub fn prune_outer_with(
    problem: &Problem,
    options: &Options,
    budget: &mut Budget,
) -> Result<Pruned> {
    let n = problem.n_statements();
    if n > MAX_PRUNED_STATEMENTS {
        return Err(Error::TooManyStatements {
            n,
            max: MAX_PRUNED_STATEMENTS,
        });
    }
    let encoding = Encoding::new(n, 1)?;
    let mut pruned = Pruned {
        names: problem.names().to_vec(),
        encoding,
        orders: Vec::new(),
        isolated: Vec::new(),
        unfusable: Vec::new(),
        ineqs: encoding.level_constraints(0),
        eqs: Vec::new(),
        set: Set::universe(pollen_presburger::Space::set_anonymous(0)),
    };
    pruned.fix_pairs(problem);
    for s in 0..n {
        if n > 1 && !problem.fusable_with(&[s], &options.fusion, budget)? {
            pruned.isolate(s);
        }
    }
    pruned.test_connected_sets(problem, options, budget)?;
    pruned.set = encoding.set_of(&pruned.ineqs, &pruned.eqs)?;
    Ok(pruned)
}

impl Pruned {
    /// The statement names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The encoding (one level).
    pub fn encoding(&self) -> &Encoding {
        &self.encoding
    }

    /// F¹ as a set over the encoding's variables.
    pub fn set(&self) -> &Set {
        &self.set
    }

    /// What the dependences impose on the pair `{i, j}` (`i ≠ j`), seen from the smaller.
    pub fn order(&self, i: usize, j: usize) -> PairOrder {
        self.orders[self.encoding.pair(i, j)]
    }

    /// The statements that are fused with no other (no non-constant legal row).
    pub fn isolated(&self) -> &[usize] {
        &self.isolated
    }

    /// The sets found unfusable, in the order they were found (smallest first).
    pub fn unfusable(&self) -> &[Vec<usize>] {
        &self.unfusable
    }

    /// Every legal fusion structure, from maximal fusion (fewest classes) to maximal
    /// distribution, ties in the lexicographic order of the statements' class ranks.
    ///
    /// The structures are found by a direct search over ordered partitions under the
    /// same constraints as [`Pruned::set`] (pair orders and cuts), which is much faster
    /// than scanning the 0/1 set once it has dozens of variables; the tests check that
    /// both give the same structures ([`Pruned::structures_from_set`]).
    pub fn structures(&self) -> Result<Vec<FusionStructure>> {
        self.structures_with(&mut Budget::unlimited())
    }

    /// [`Pruned::structures`] within a budget (one step per partial structure).
    pub fn structures_with(&self, budget: &mut Budget) -> Result<Vec<FusionStructure>> {
        let mut found = Vec::new();
        let mut classes: Vec<Vec<usize>> = Vec::new();
        self.place(0, &mut classes, &mut |c| found.push(c.to_vec()), budget)?;
        let mut out = found
            .into_iter()
            .map(|c| FusionStructure::new(c, self.names.clone()))
            .collect::<Result<Vec<_>>>()?;
        out.sort_by_key(|s| (s.classes().len(), s.ranks()));
        Ok(out)
    }

    /// The points of [`Pruned::set`], enumerated by the Presburger library and decoded,
    /// in the order of [`Pruned::structures`].
    pub fn structures_from_set(&self) -> Result<Vec<FusionStructure>> {
        self.structures_from_set_with(&mut Budget::unlimited())
    }

    /// [`Pruned::structures_from_set`] within a budget.
    pub fn structures_from_set_with(&self, budget: &mut Budget) -> Result<Vec<FusionStructure>> {
        let mut out = Vec::new();
        for point in self.set.points_with(budget)? {
            out.push(self.encoding.decode_level(&point, 0, &self.names)?);
        }
        out.sort_by_key(|s| (s.classes().len(), s.ranks()));
        Ok(out)
    }

    /// The number of points of F¹, counted by the search of [`Pruned::structures`]
    /// without keeping them. F¹ can be exponentially large (independent statements
    /// combine freely): give a budget to bound the work.
    pub fn count_with(&self, budget: &mut Budget) -> Result<Int> {
        let mut count: u64 = 0;
        let mut classes: Vec<Vec<usize>> = Vec::new();
        self.place(0, &mut classes, &mut |_| count += 1, budget)?;
        Ok(Int::from(count))
    }

    /// Table 1's statistics of F¹, the points counted by [`Pruned::count_with`].
    pub fn stats(&self) -> Result<SpaceStats> {
        self.stats_with(&mut Budget::unlimited())
    }

    /// [`Pruned::stats`] within a budget.
    pub fn stats_with(&self, budget: &mut Budget) -> Result<SpaceStats> {
        Ok(SpaceStats {
            dims: self.encoding.n_vars() - self.eqs.len(),
            constraints: self.ineqs.len() + self.eqs.len(),
            points: self.count_with(budget)?,
        })
    }

    /// Table 1's `#dim` and `#cst` of F¹, with `points` left at zero (counting F¹ may
    /// be long: [`Pruned::count_up_to`]).
    pub fn stats_without_points(&self) -> SpaceStats {
        SpaceStats {
            dims: self.encoding.n_vars() - self.eqs.len(),
            constraints: self.ineqs.len() + self.eqs.len(),
            points: Int::zero(),
        }
    }

    /// Places statement `s` (statements `0..s` are in `classes`) in every class and
    /// every gap between classes the constraints allow, and recurses: each ordered
    /// partition of `0..=s` arises from one partition of `0..s`.
    fn place(
        &self,
        s: usize,
        classes: &mut Vec<Vec<usize>>,
        found: &mut dyn FnMut(&[Vec<usize>]),
        budget: &mut Budget,
    ) -> Result<()> {
        self.place_until(
            s,
            classes,
            &mut None,
            &mut |c| {
                found(c);
                true
            },
            budget,
        )
        .map(|_| ())
    }

    /// [`Pruned::place`] that stops as soon as `found` returns `false` (the result is
    /// then `false`), trying the placements in an order shuffled by `rng` when given.
    fn place_until(
        &self,
        s: usize,
        classes: &mut Vec<Vec<usize>>,
        rng: &mut Option<SplitMix>,
        found: &mut dyn FnMut(&[Vec<usize>]) -> bool,
        budget: &mut Budget,
    ) -> Result<bool> {
        budget.tick(1)?;
        if s == self.names.len() {
            return Ok(found(classes));
        }
        // (class, joined): joined into class `at`, or a new class inserted at `at`.
        let mut choices: Vec<(usize, bool)> = (0..classes.len())
            .map(|at| (at, true))
            .chain((0..=classes.len()).map(|at| (at, false)))
            .collect();
        if let Some(rng) = rng {
            rng.shuffle(&mut choices);
        }
        for (at, joined) in choices {
            if joined {
                classes[at].push(s);
            } else {
                classes.insert(at, vec![s]);
            }
            let go_on = !self.allowed(s, classes)
                || self.place_until(s + 1, classes, rng, found, budget)?;
            if joined {
                classes[at].pop();
            } else {
                classes.remove(at);
            }
            if !go_on {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// At most `limit` structures of F¹ and whether they are all of them. When F¹ has
    /// more, the structures are a sample: the first found by `limit`·4 randomised
    /// depth-first dives (the placements of each statement shuffled by a generator
    /// seeded with `seed`), without repetition, in the order of
    /// [`Pruned::structures`]. The budget bounds the whole work.
    pub fn structures_sample(
        &self,
        limit: usize,
        seed: u64,
        budget: &mut Budget,
    ) -> Result<(Vec<FusionStructure>, bool)> {
        let mut found: Vec<Vec<Vec<usize>>> = Vec::new();
        let complete = self.place_until(
            0,
            &mut Vec::new(),
            &mut None,
            &mut |c| {
                found.push(c.to_vec());
                found.len() <= limit
            },
            budget,
        )?;
        if !complete {
            let mut seen = std::collections::BTreeSet::new();
            found.clear();
            let mut rng = Some(SplitMix(seed));
            for _ in 0..limit.saturating_mul(4) {
                if found.len() >= limit {
                    break;
                }
                self.place_until(
                    0,
                    &mut Vec::new(),
                    &mut rng,
                    &mut |c| {
                        if seen.insert(c.to_vec()) {
                            found.push(c.to_vec());
                        }
                        false
                    },
                    budget,
                )?;
            }
        }
        let mut out = found
            .into_iter()
            .map(|c| FusionStructure::new(c, self.names.clone()))
            .collect::<Result<Vec<_>>>()?;
        out.sort_by_key(|s| (s.classes().len(), s.ranks()));
        Ok((out, complete))
    }

    /// The number of points of F¹ if it is at most `limit`, else `None`.
    pub fn count_up_to(&self, limit: u64, budget: &mut Budget) -> Result<Option<Int>> {
        let mut count: u64 = 0;
        let complete = self.place_until(
            0,
            &mut Vec::new(),
            &mut None,
            &mut |_| {
                count += 1;
                count <= limit
            },
            budget,
        )?;
        Ok(complete.then(|| Int::from(count)))
    }

    /// Whether the newly placed statement `s` keeps every pair order with the
    /// statements before it, and completes no unfusable set inside one class.
    fn allowed(&self, s: usize, classes: &[Vec<usize>]) -> bool {
        let rank = |t: usize| classes.iter().position(|c| c.contains(&t));
        let Some(rs) = rank(s) else {
            return false;
        };
        let pairs_ok = (0..s).all(|t| {
            let Some(rt) = rank(t) else {
                return false;
            };
            let fused_ok = rt != rs || !self.isolated.iter().any(|&i| i == s || i == t);
            fused_ok
                && match self.order(t, s) {
                    PairOrder::Free => true,
                    PairOrder::NotAfter => rt <= rs,
                    PairOrder::NotBefore => rt >= rs,
                    PairOrder::Fused => rt == rs,
                }
        });
        pairs_ok
            && self
                .unfusable
                .iter()
                .all(|set| set.iter().max() != Some(&s) || set.iter().any(|&t| rank(t) != Some(rs)))
    }

    /// Step 1: the order the dependences impose on every pair.
    fn fix_pairs(&mut self, problem: &Problem) {
        let n = self.names.len();
        let enc = self.encoding;
        for i in 0..n {
            for j in i + 1..n {
                let order = match (problem.depends(i, j), problem.depends(j, i)) {
                    (false, false) => PairOrder::Free,
                    (true, false) => PairOrder::NotAfter,
                    (false, true) => PairOrder::NotBefore,
                    (true, true) => PairOrder::Fused,
                };
                let (p, e) = (enc.p(0, i, j), enc.e(0, i, j));
                match order {
                    PairOrder::Free => {}
                    PairOrder::NotAfter => {
                        let mut r = enc.row(-1);
                        r[1 + p] = 1;
                        r[1 + e] = 1;
                        self.eqs.push(r);
                    }
                    PairOrder::NotBefore => {
                        let mut r = enc.row(0);
                        r[1 + p] = 1;
                        self.eqs.push(r);
                    }
                    PairOrder::Fused => {
                        let mut r = enc.row(-1);
                        r[1 + e] = 1;
                        self.eqs.push(r);
                        let mut r = enc.row(0);
                        r[1 + p] = 1;
                        self.eqs.push(r);
                    }
                }
                self.orders.push(order);
            }
        }
    }

    /// Step 2: statement `s` is fused with no other.
    fn isolate(&mut self, s: usize) {
        self.isolated.push(s);
        for t in 0..self.names.len() {
            if t != s {
                let mut r = self.encoding.row(0);
                r[1 + self.encoding.e(0, s, t)] = 1;
                self.eqs.push(r);
            }
        }
    }

    /// Step 3: the joint test of every connected set, by increasing size.
    fn test_connected_sets(
        &mut self,
        problem: &Problem,
        options: &Options,
        budget: &mut Budget,
    ) -> Result<()> {
        let n = self.names.len();
        let adjacent =
            |a: usize, b: usize| a != b && (problem.depends(a, b) || problem.depends(b, a));
        let neighbours: Vec<u64> = (0..n)
            .map(|a| {
                (0..n)
                    .filter(|&b| adjacent(a, b))
                    .fold(0, |m, b| m | 1 << b)
            })
            .collect();
        let reach = reachability(problem, n);
        let isolated: u64 = self.isolated.iter().fold(0, |m, &s| m | 1 << s);
        let mut bad: Vec<u64> = Vec::new();
        let mut alive: BTreeSet<u64> = (0..n)
            .filter(|s| isolated & (1 << s) == 0)
            .map(|s| 1 << s)
            .collect();
        while !alive.is_empty() {
            let mut next = BTreeSet::new();
            for &set in &alive {
                let around = (0..n)
                    .filter(|&s| set & (1 << s) != 0)
                    .fold(0u64, |m, s| m | neighbours[s])
                    & !set
                    & !isolated;
                for x in (0..n).filter(|&x| around & (1 << x) != 0) {
                    budget.tick(1)?;
                    let grown = set | 1 << x;
                    if bad.iter().all(|&b| grown & b != b) {
                        next.insert(grown);
                    }
                }
            }
            for &set in &next {
                if !is_convex(set, &reach, n) {
                    continue;
                }
                let group: Vec<usize> = (0..n).filter(|&s| set & (1 << s) != 0).collect();
                if !problem.fusable_with(&group, &options.fusion, budget)? {
                    self.cut(&group, &neighbours);
                    bad.push(set);
                }
            }
            alive = next
                .into_iter()
                .filter(|&s| bad.iter().all(|&b| s & b != b))
                .collect();
        }
        Ok(())
    }

    /// The cut of Eq. (8) for the connected unfusable set `group`.
    fn cut(&mut self, group: &[usize], neighbours: &[u64]) {
        let enc = self.encoding;
        let members: u64 = group.iter().fold(0, |m, &s| m | 1 << s);
        // A spanning tree by breadth-first search from the first member.
        let mut reached: u64 = 1 << group[0];
        let mut queue = vec![group[0]];
        let mut r = enc.row(group.len() as i64 - 2);
        while let Some(a) = queue.pop() {
            for b in 0..self.names.len() {
                if neighbours[a] & members & !reached & (1 << b) != 0 {
                    reached |= 1 << b;
                    r[1 + enc.e(0, a, b)] -= 1;
                    queue.push(b);
                }
            }
        }
        self.ineqs.push(r);
        self.unfusable.push(group.to_vec());
    }
}

/// `reach[a]`: the statements reachable from `a` along dependences (one edge or more).
fn reachability(problem: &Problem, n: usize) -> Vec<u64> {
    let mut reach: Vec<u64> = (0..n)
        .map(|a| {
            (0..n)
                .filter(|&b| a != b && problem.depends(a, b))
                .fold(0, |m, b| m | 1 << b)
        })
        .collect();
    loop {
        let mut changed = false;
        for a in 0..n {
            let mut r = reach[a];
            for b in 0..n {
                if reach[a] & (1 << b) != 0 {
                    r |= reach[b];
                }
            }
            if r != reach[a] {
                reach[a] = r;
                changed = true;
            }
        }
        if !changed {
            return reach;
        }
    }
}

/// Whether no dependence path leaves `set` and comes back: only such sets can be the
/// class of a legal preorder.
fn is_convex(set: u64, reach: &[u64], n: usize) -> bool {
    (0..n).filter(|&a| set & (1 << a) != 0).all(|a| {
        (0..n)
            .filter(|&x| set & (1 << x) == 0 && reach[a] & (1 << x) != 0)
            .all(|x| reach[x] & set == 0)
    })
}

/// SplitMix64 (Steele, Lea and Flood), the small generator of the sampled dives and of
/// the search's visiting order: reproducible from its seed on every platform.
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}
