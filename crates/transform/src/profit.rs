//! A static cost model that compares candidate schedule trees of one scop by how their
//! innermost loops walk memory.
//!
//! The runtime of a loop nest is dominated by its deepest statements, and within them by
//! the innermost loop: an innermost loop whose accesses move by one element (or not at
//! all) streams through cache lines and vectorises; one whose accesses jump a row per
//! iteration touches a new cache line per access. For every statement the model finds
//! the innermost band member along which the statement's instances move (the last member
//! of the deepest band on its path that is not constant for it) and counts the accesses
//! that are *strided* along it ([`crate::order::access_step`]), and whether that loop
//! is vectorisable (coincident, no strided access). The [`Cost`] of a tree lists those
//! counts by statement depth; trees compare by the deepest statements first.
//!
//! The driver uses it to decide whether fusing components pays (fusion that forces a
//! matrix product's reduction loop innermost, 3mm under smart fusion, costs more than
//! the locality it brings), and whether the optimized schedule beats the original one:
//! a time-skewed stencil whose innermost loops carry dependences loses the vector loops
//! the original order had, which tiling for locality rarely repays.

use std::collections::{BTreeMap, BTreeSet};

use pollen_presburger::{Budget, Map};
use pollen_scop::{Node, ScheduleTree, Scop};

use crate::error::Result;
use crate::maps::anonymous_range;
use crate::order::{access_step_with, step_deltas, Step};

/// Strided innermost accesses by statement depth (number of loops around the
/// statement); a smaller cost is better.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Depth -> number of strided accesses in the innermost loops of statements of that
    /// depth.
    pub strided: BTreeMap<usize, usize>,
    /// Depth -> number of statements of that depth whose innermost loop is parallel
    /// (coincident) and has no strided access: vectorisable.
    pub vector: BTreeMap<usize, usize>,
    /// Depth -> number of statements of that depth with no parallel (coincident) loop
    /// at all: they run on one core.
    pub sequential: BTreeMap<usize, usize>,
}

impl Cost {
    /// Whether `self` is strictly cheaper than `other`: fewer strided accesses at the
    /// deepest depth where the two differ.
    pub fn is_better_than(&self, other: &Cost) -> bool {
        deepest_difference(&self.strided, &other.strided).is_some_and(|(a, b)| a < b)
    }

    /// Whether `self` runs more in parallel: fewer statements without a parallel loop at
    /// the deepest depth where the two differ.
    pub fn parallelizes_more_than(&self, other: &Cost) -> bool {
        deepest_difference(&self.sequential, &other.sequential).is_some_and(|(a, b)| a < b)
    }

    /// Whether `self` vectorises more: more vectorisable statements at the deepest depth
    /// where the two differ.
    pub fn vectorizes_more_than(&self, other: &Cost) -> bool {
        deepest_difference(&self.vector, &other.vector).is_some_and(|(a, b)| a > b)
    }
}

/// The two counts at the deepest depth where they differ (a missing depth counts 0).
fn deepest_difference(
    a: &BTreeMap<usize, usize>,
    b: &BTreeMap<usize, usize>,
) -> Option<(usize, usize)> {
    let depths: std::collections::BTreeSet<usize> = a.keys().chain(b.keys()).copied().collect();
    depths.into_iter().rev().find_map(|d| {
        let x = a.get(&d).copied().unwrap_or(0);
        let y = b.get(&d).copied().unwrap_or(0);
        (x != y).then_some((x, y))
    })
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .strided
            .iter()
            .rev()
            .map(|(d, n)| format!("depth {d}: {n}"))
            .collect();
        let vector: Vec<String> = self
            .vector
            .iter()
            .rev()
            .map(|(d, n)| format!("depth {d}: {n}"))
            .collect();
        if parts.is_empty() {
            write!(f, "no strided innermost access")?;
        } else {
            write!(f, "strided innermost accesses {}", parts.join(", "))?;
        }
        if !vector.is_empty() {
            write!(f, "; vectorisable statements {}", vector.join(", "))?;
        }
        let sequential: Vec<String> = self
            .sequential
            .iter()
            .rev()
            .map(|(d, n)| format!("depth {d}: {n}"))
            .collect();
        if !sequential.is_empty() {
            write!(f, "; without a parallel loop {}", sequential.join(", "))?;
        }
        Ok(())
    }
}

/// The cost of `tree` for the statements of `scop`.
pub fn cost(scop: &Scop, tree: &ScheduleTree) -> Result<Cost> {
    cost_with(scop, tree, &mut Budget::unlimited())
}

/// [`cost`] within `budget`; running out gives [`crate::Error::LimitExceeded`].
pub fn cost_with(scop: &Scop, tree: &ScheduleTree, budget: &mut Budget) -> Result<Cost> {
    let mut innermost: BTreeMap<String, (Map, usize, bool)> = BTreeMap::new();
    let mut parallel: BTreeSet<String> = BTreeSet::new();
    walk(
        &tree.root,
        &BTreeMap::new(),
        &mut innermost,
        &mut parallel,
        budget,
    )?;
    let mut cost = Cost::default();
    for statement in &scop.statements {
        let depth = statement.iterators.len();
        if depth > 0 && !parallel.contains(&statement.name) {
            *cost.sequential.entry(depth).or_default() += 1;
        }
        let Some((schedule, member, coincident)) = innermost.get(&statement.name) else {
            continue;
        };
        let mut strided = 0;
        for access in &statement.accesses {
            if access_step_with(schedule, &access.relation, *member, budget)? == Step::Strided {
                strided += 1;
            }
        }
        *cost.strided.entry(depth).or_default() += strided;
        if *coincident && strided == 0 {
            *cost.vector.entry(depth).or_default() += 1;
        }
    }
    Ok(cost)
}

/// Records, per statement, the flattened schedule down to the innermost band member
/// along which its instances move (in tree order, the last one met) and that member's
/// position, and the statements some coincident member moves (that have a parallel
/// loop); `prefix` holds each statement's flattened schedule of the enclosing bands.
fn walk(
    node: &Node,
    prefix: &BTreeMap<String, Map>,
    innermost: &mut BTreeMap<String, (Map, usize, bool)>,
    parallel: &mut BTreeSet<String>,
    budget: &mut Budget,
) -> Result<()> {
    let mut inner = prefix.clone();
    if let Node::Band(band) = node {
        for schedule in band.schedule.maps() {
            let Some(name) = schedule.space().domain_tuple().and_then(|t| t.name()) else {
                continue;
            };
            let schedule = anonymous_range(schedule);
            let flat = match prefix.get(name) {
                Some(outer) => outer.flat_range_product(&schedule)?,
                None => schedule,
            };
            let n = flat.space().n_out();
            let first = n - band.n_members();
            let mut deepest = true;
            for member in (first..n).rev() {
                let coincident = band.coincident[member - first];
                if (deepest || (coincident && !parallel.contains(name)))
                    && moves_along(&flat, member, budget)?
                {
                    if deepest {
                        innermost.insert(name.to_string(), (flat.clone(), member, coincident));
                        deepest = false;
                    }
                    if coincident {
                        parallel.insert(name.to_string());
                    }
                }
            }
            inner.insert(name.to_string(), flat);
        }
    }
    for child in node.children() {
        walk(child, &inner, innermost, parallel, budget)?;
    }
    Ok(())
}

/// Whether some two instances differ by one step of `member` with the other members
/// equal (false when the member is constant for the statement).
fn moves_along(schedule: &Map, member: usize, budget: &mut Budget) -> Result<bool> {
    let identity = Map::identity(&schedule.space().domain_space());
    Ok(!step_deltas(schedule, &identity, member)?.is_empty_with(budget)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost_of(pairs: &[(usize, usize)]) -> Cost {
        Cost {
            strided: pairs.iter().copied().collect(),
            vector: BTreeMap::new(),
            sequential: BTreeMap::new(),
        }
    }

    #[test]
    fn deeper_statements_decide() {
        let fused = cost_of(&[(3, 1), (2, 0)]);
        let split = cost_of(&[(3, 0), (2, 2)]);
        assert!(split.is_better_than(&fused));
        assert!(!fused.is_better_than(&split));
        assert!(!split.is_better_than(&split.clone()));
        assert!(cost_of(&[(2, 1)]).is_better_than(&cost_of(&[(2, 2)])));
        assert!(!cost_of(&[]).is_better_than(&cost_of(&[(1, 0)])));
    }

    #[test]
    fn fewer_statements_without_a_parallel_loop_win() {
        let with = |pairs: &[(usize, usize)]| Cost {
            strided: BTreeMap::new(),
            vector: BTreeMap::new(),
            sequential: pairs.iter().copied().collect(),
        };
        assert!(with(&[(2, 1)]).parallelizes_more_than(&with(&[(2, 30)])));
        assert!(with(&[(3, 0), (2, 9)]).parallelizes_more_than(&with(&[(3, 1)])));
        assert!(!with(&[(2, 1)]).parallelizes_more_than(&with(&[(2, 1)])));
        assert!(!with(&[(2, 2)]).parallelizes_more_than(&with(&[(2, 1)])));
    }

    #[test]
    fn more_vector_loops_at_the_deepest_depth_win() {
        let with = |pairs: &[(usize, usize)]| Cost {
            strided: BTreeMap::new(),
            vector: pairs.iter().copied().collect(),
            sequential: BTreeMap::new(),
        };
        assert!(with(&[(2, 2)]).vectorizes_more_than(&with(&[(2, 0)])));
        assert!(with(&[(3, 1), (2, 0)]).vectorizes_more_than(&with(&[(2, 5)])));
        assert!(!with(&[(2, 1)]).vectorizes_more_than(&with(&[(2, 1)])));
    }
}
