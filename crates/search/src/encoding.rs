//! The convex encodings O (total preorders) and I (multi-level interleavings).
//!
//! Pouchet et al., *Loop Transformations: Convexity, Pruning and Optimization*, POPL
//! 2011, §3.1; digest `shared/digests/pouchet-popl11.md` §2.4 and §2.5. For every pair
//! of statements `i < j` and every level `k`, two 0/1 variables: `p^k_{i,j}` (i runs
//! before j) and `e^k_{i,j}` (fused); `s^k_{i,j} = 1 − p − e` (j runs before i) is
//! implicit. Per pair: four bounds and `p + e ≤ 1`; per triple `i < j < k`, the seven
//! transitivity inequalities of the digest (the paper's display is garbled; the last,
//! `e_{i,k} + p_{i,k} ≤ p_{i,j} + e_{i,j} + p_{j,k}`, is the digest's reconstruction),
//! `5·C(n,2) + 7·C(n,3)` constraints in all, Table 1's `#cst`. Levels are chained by
//! `p^k ≤ p^{k+1}` and `e^{k+1} + p^{k+1} ≤ p^k + e^k` (distribution persists).
//!
//! Variables are ordered level by level, then by pair `(0,1), (0,2), …, (n−2,n−1)`,
//! `p` before `e`.
//!
//! # Invariants
//! - the integer points of [`Encoding::set`] are exactly the encodings of the
//!   interleavings of `n` statements over `levels` levels (Lemma 5, checked by the
//!   tests against the ordered Bell numbers and a direct enumeration);
//! - [`Encoding::decode`] and [`Encoding::encode`] are inverse on those points.

use pollen_arith::Int;
use pollen_presburger::{BasicMap, Budget, Map, Set, Space};

use crate::error::{Error, Result};
use crate::structure::{FusionStructure, Interleaving};

/// The largest number of statements an encoding accepts.
pub const MAX_STATEMENTS: usize = 64;

/// A linear constraint `row·(1, x) ≥ 0` (or `= 0`) over the encoding's variables, with
/// small coefficients.
pub type Row = Vec<i64>;

/// The variables of O or I for `n` statements and `levels` levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoding {
    n: usize,
    levels: usize,
}

/// How two statements are ordered at one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// The first runs before the second (`p = 1`).
    Before,
    /// Fused (`e = 1`).
    Fused,
    /// The first runs after the second (`s = 1`).
    After,
}

impl Encoding {
    /// The encoding of `levels` levels of interleavings of `n` statements.
    pub fn new(n: usize, levels: usize) -> Result<Encoding> {
        if n > MAX_STATEMENTS {
            return Err(Error::TooManyStatements {
                n,
                max: MAX_STATEMENTS,
            });
        }
        if levels == 0 {
            return Err(Error::NoLevel);
        }
        Ok(Encoding { n, levels })
    }

    /// The number of statements.
    pub fn n_statements(&self) -> usize {
        self.n
    }

    /// The number of levels.
    pub fn n_levels(&self) -> usize {
        self.levels
    }

    /// The number of pairs `i < j`.
    pub fn n_pairs(&self) -> usize {
        self.n * self.n.saturating_sub(1) / 2
    }

    /// The number of variables, `levels · n(n−1)`.
    pub fn n_vars(&self) -> usize {
        self.levels * 2 * self.n_pairs()
    }

    /// The index of pair `{i, j}` (`i ≠ j`, in either order).
    pub fn pair(&self, i: usize, j: usize) -> usize {
        let (i, j) = if i < j { (i, j) } else { (j, i) };
        // Pairs (a, b) with a < i, then (i, i+1) .. (i, j−1).
        i * (2 * self.n - i - 1) / 2 + (j - i - 1)
    }

    /// The variable `p^level_{i,j}` (`i < j`).
    pub fn p(&self, level: usize, i: usize, j: usize) -> usize {
        debug_assert!(i < j && j < self.n && level < self.levels);
        level * 2 * self.n_pairs() + 2 * self.pair(i, j)
    }

    /// The variable `e^level_{i,j}` (`i ≠ j`, in either order).
    pub fn e(&self, level: usize, i: usize, j: usize) -> usize {
        debug_assert!(i != j && i.max(j) < self.n && level < self.levels);
        level * 2 * self.n_pairs() + 2 * self.pair(i, j) + 1
    }

    /// A row with constant `c` and no variable.
    pub fn row(&self, c: i64) -> Row {
        let mut r = vec![0; 1 + self.n_vars()];
        r[0] = c;
        r
    }

    /// The constraints of O at one level, in the order bounds and exclusion per pair,
    /// then the seven transitivity families per triple.
    pub fn level_constraints(&self, level: usize) -> Vec<Row> {
        let n = self.n;
        let mut rows = Vec::new();
        // `lhs ≤ rhs` as `rhs − lhs ≥ 0`.
        let le = |c: i64, lhs: &[usize], rhs: &[usize]| {
            let mut r = self.row(c);
            for &v in lhs {
                r[1 + v] -= 1;
            }
            for &v in rhs {
                r[1 + v] += 1;
            }
            r
        };
        for i in 0..n {
            for j in i + 1..n {
                let (p, e) = (self.p(level, i, j), self.e(level, i, j));
                rows.push(le(0, &[], &[p]));
                rows.push(le(1, &[p], &[]));
                rows.push(le(0, &[], &[e]));
                rows.push(le(1, &[e], &[]));
                rows.push(le(1, &[p, e], &[]));
            }
        }
        let p = |i, j| self.p(level, i, j);
        let e = |i, j| self.e(level, i, j);
        for i in 0..n {
            for j in i + 1..n {
                for k in j + 1..n {
                    // (i, j, k) with i < j < k, named as in the paper's families.
                    rows.push(le(1, &[e(i, j), e(i, k)], &[e(j, k)]));
                    rows.push(le(1, &[e(i, j), e(j, k)], &[e(i, k)]));
                    rows.push(le(1, &[p(i, j), p(j, k)], &[p(i, k)]));
                    rows.push(le(1, &[e(i, j), p(i, k)], &[p(j, k)]));
                    rows.push(le(1, &[e(i, j), p(j, k)], &[p(i, k)]));
                    rows.push(le(1, &[e(j, k), p(i, j)], &[p(i, k)]));
                    rows.push(le(0, &[e(i, k), p(i, k)], &[p(i, j), e(i, j), p(j, k)]));
                }
            }
        }
        rows
    }

    /// The constraints tying level `level + 1` to `level`.
    pub fn link_constraints(&self, level: usize) -> Vec<Row> {
        let mut rows = Vec::new();
        for i in 0..self.n {
            for j in i + 1..self.n {
                let (p0, e0) = (self.p(level, i, j), self.e(level, i, j));
                let (p1, e1) = (self.p(level + 1, i, j), self.e(level + 1, i, j));
                let mut r = self.row(0);
                r[1 + p1] = 1;
                r[1 + p0] = -1;
                rows.push(r);
                let mut r = self.row(0);
                r[1 + p0] = 1;
                r[1 + e0] = 1;
                r[1 + p1] = -1;
                r[1 + e1] = -1;
                rows.push(r);
            }
        }
        rows
    }

    /// Every constraint of the encoding (O when `levels = 1`, I otherwise).
    pub fn constraints(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        for k in 0..self.levels {
            rows.extend(self.level_constraints(k));
            if k + 1 < self.levels {
                rows.extend(self.link_constraints(k));
            }
        }
        rows
    }

    /// The set of integer points satisfying `ineqs` (`≥ 0`) and `eqs` (`= 0`), over the
    /// encoding's anonymous variables.
    pub fn set_of(&self, ineqs: &[Row], eqs: &[Row]) -> Result<Set> {
        let mut b = BasicMap::universe(Space::set_anonymous(self.n_vars()));
        let to_int = |r: &Row| r.iter().map(|&c| Int::from(c)).collect::<Vec<Int>>();
        for r in ineqs {
            b.add_ineq(to_int(r));
        }
        for r in eqs {
            b.add_eq(to_int(r));
        }
        Ok(Set::from_map(Map::from_basic(b))?)
    }

    /// The set O (one level) or I (several levels) as a Presburger set.
    pub fn set(&self) -> Result<Set> {
        self.set_of(&self.constraints(), &[])
    }

    /// The relation of `i` to `j` (`i ≠ j`) at `level` in `point`, or `None` when the
    /// values are not 0/1 with `p + e ≤ 1`.
    pub fn relation(&self, point: &[Int], level: usize, i: usize, j: usize) -> Option<Relation> {
        let (a, b) = if i < j { (i, j) } else { (j, i) };
        let bit = |v: usize| {
            let x = &point[v];
            if x.is_zero() {
                Some(false)
            } else if *x == Int::one() {
                Some(true)
            } else {
                None
            }
        };
        let rel = match (bit(self.p(level, a, b))?, bit(self.e(level, a, b))?) {
            (true, false) => Relation::Before,
            (false, true) => Relation::Fused,
            (false, false) => Relation::After,
            (true, true) => return None,
        };
        Some(if i < j {
            rel
        } else {
            match rel {
                Relation::Before => Relation::After,
                Relation::After => Relation::Before,
                Relation::Fused => Relation::Fused,
            }
        })
    }

    /// The fusion structure that `point` encodes at `level`: dense ranks, statement
    /// `i`'s rank being the number of classes that run before it. Fails with
    /// [`Error::NotAnInterleaving`] when the values are not a total preorder.
    pub fn decode_level(
        &self,
        point: &[Int],
        level: usize,
        names: &[String],
    ) -> Result<FusionStructure> {
        self.check_point(point, names)?;
        let bad = || Error::NotAnInterleaving { level };
        let n = self.n;
        let rel = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        if i == j {
                            Some(Relation::Fused)
                        } else {
                            self.relation(point, level, i, j)
                        }
                    })
                    .collect::<Option<Vec<Relation>>>()
            })
            .collect::<Option<Vec<Vec<Relation>>>>()
            .ok_or_else(bad)?;
        // A class representative: the smallest statement fused with it.
        let rep: Vec<usize> = (0..n)
            .map(|i| (0..n).find(|&j| rel[i][j] == Relation::Fused).unwrap_or(i))
            .collect();
        let ranks: Vec<usize> = (0..n)
            .map(|i| {
                let mut before: Vec<usize> = (0..n)
                    .filter(|&j| rel[j][i] == Relation::Before)
                    .map(|j| rep[j])
                    .collect();
                before.sort_unstable();
                before.dedup();
                before.len()
            })
            .collect();
        let consistent = (0..n).all(|i| {
            (0..n).all(|j| {
                i == j
                    || match rel[i][j] {
                        Relation::Before => ranks[i] < ranks[j],
                        Relation::Fused => ranks[i] == ranks[j],
                        Relation::After => ranks[i] > ranks[j],
                    }
            })
        });
        let dense = {
            let mut r = ranks.clone();
            r.sort_unstable();
            r.dedup();
            r.iter().enumerate().all(|(k, &v)| k == v)
        };
        if !consistent || !dense {
            return Err(bad());
        }
        FusionStructure::from_ranks(&ranks, names.to_vec())
    }

    /// The interleaving that `point` encodes.
    pub fn decode(&self, point: &[Int], names: &[String]) -> Result<Interleaving> {
        let levels = (0..self.levels)
            .map(|k| self.decode_level(point, k, names))
            .collect::<Result<Vec<_>>>()?;
        Interleaving::new(levels)
    }

    /// The point encoding `interleaving` (which must have this encoding's number of
    /// statements and levels).
    pub fn encode(&self, interleaving: &Interleaving) -> Result<Vec<Int>> {
        let levels = interleaving.levels();
        if levels.len() != self.levels {
            return Err(Error::NotAnInterleaving {
                level: levels.len().min(self.levels),
            });
        }
        let mut point = vec![Int::zero(); self.n_vars()];
        for (k, structure) in levels.iter().enumerate() {
            if structure.n_statements() != self.n {
                return Err(Error::NotAPartition);
            }
            let ranks = structure.ranks();
            for i in 0..self.n {
                for j in i + 1..self.n {
                    if ranks[i] < ranks[j] {
                        point[self.p(k, i, j)] = Int::one();
                    } else if ranks[i] == ranks[j] {
                        point[self.e(k, i, j)] = Int::one();
                    }
                }
            }
        }
        Ok(point)
    }

    fn check_point(&self, point: &[Int], names: &[String]) -> Result<()> {
        if point.len() != self.n_vars() {
            return Err(Error::WrongLength {
                expected: self.n_vars(),
                got: point.len(),
            });
        }
        if names.len() != self.n {
            return Err(Error::NotAPartition);
        }
        Ok(())
    }
}

/// The statistics of one space, the columns of the paper's Table 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceStats {
    /// `#dim`: the number of variables not fixed by an equality.
    pub dims: usize,
    /// `#cst`: the number of constraints (an equality counts once).
    pub constraints: usize,
    /// `#points`: the number of integer points.
    pub points: Int,
}

impl Encoding {
    /// Table 1's statistics of O (one level) or I.
    pub fn stats(&self) -> Result<SpaceStats> {
        self.stats_with(&mut Budget::unlimited())
    }

    /// [`Encoding::stats`] within a budget.
    pub fn stats_with(&self, budget: &mut Budget) -> Result<SpaceStats> {
        Ok(SpaceStats {
            dims: self.n_vars(),
            constraints: self.constraints().len(),
            points: self.set()?.card_with(budget)?,
        })
    }
}

/// The default statement names `S0, S1, …` for `n` statements.
pub fn default_names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("S{i}")).collect()
}
