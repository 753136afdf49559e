//! A static cost model that compares candidate schedule trees of one scop by how their
//! innermost loops walk memory.
//!
//! The runtime of a loop nest is dominated by its deepest statements, and within them by
//! the innermost loop: an innermost loop whose accesses move by one element (or not at
//! all) streams through cache lines and vectorises; one whose accesses jump a row per
//! iteration touches a new cache line per access. For every statement the model finds
//! the innermost band member along which the statement's instances move (the last member
//! of the deepest band on its path that is not constant for it) and counts the accesses
//! that are *strided* along it ([`crate::order::access_step`]). The [`Cost`] of a tree
//! lists those counts by statement depth; trees compare by the deepest statements first.
//!
//! The driver uses it to decide whether fusing components pays: fusion that forces a
//! matrix product's reduction loop innermost (3mm under smart fusion) costs more than
//! the locality it brings.

use std::collections::BTreeMap;

use pollen_presburger::Map;
use pollen_scop::{Node, ScheduleTree, Scop};

use crate::error::Result;
use crate::maps::{anonymous_range, unit_step_map};
use crate::order::{access_step, Step};

/// Strided innermost accesses by statement depth (number of loops around the
/// statement); a smaller cost is better.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Depth -> number of strided accesses in the innermost loops of statements of that
    /// depth.
    pub strided: BTreeMap<usize, usize>,
}

impl Cost {
    /// Whether `self` is strictly cheaper than `other`: fewer strided accesses at the
    /// deepest depth where the two differ.
    pub fn is_better_than(&self, other: &Cost) -> bool {
        let depths: std::collections::BTreeSet<usize> = self
            .strided
            .keys()
            .chain(other.strided.keys())
            .copied()
            .collect();
        for d in depths.into_iter().rev() {
            let a = self.strided.get(&d).copied().unwrap_or(0);
            let b = other.strided.get(&d).copied().unwrap_or(0);
            if a != b {
                return a < b;
            }
        }
        false
    }
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .strided
            .iter()
            .rev()
            .map(|(d, n)| format!("depth {d}: {n}"))
            .collect();
        if parts.is_empty() {
            write!(f, "no strided innermost access")
        } else {
            write!(f, "strided innermost accesses {}", parts.join(", "))
        }
    }
}

/// The cost of `tree` for the statements of `scop`.
pub fn cost(scop: &Scop, tree: &ScheduleTree) -> Result<Cost> {
    let mut innermost: BTreeMap<String, (Map, usize)> = BTreeMap::new();
    walk(&tree.root, &BTreeMap::new(), &mut innermost)?;
    let mut cost = Cost::default();
    for statement in &scop.statements {
        let depth = statement.iterators.len();
        let Some((schedule, member)) = innermost.get(&statement.name) else {
            continue;
        };
        let mut strided = 0;
        for access in &statement.accesses {
            if access_step(schedule, &access.relation, *member)? == Step::Strided {
                strided += 1;
            }
        }
        *cost.strided.entry(depth).or_default() += strided;
    }
    Ok(cost)
}

/// Records, per statement, the flattened schedule down to the innermost band member
/// along which its instances move (in tree order, the last one met) and that member's
/// position; `prefix` holds each statement's flattened schedule of the enclosing bands.
fn walk(
    node: &Node,
    prefix: &BTreeMap<String, Map>,
    innermost: &mut BTreeMap<String, (Map, usize)>,
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
            for member in (n - band.n_members()..n).rev() {
                if moves_along(&flat, member)? {
                    innermost.insert(name.to_string(), (flat.clone(), member));
                    break;
                }
            }
            inner.insert(name.to_string(), flat);
        }
    }
    for child in node.children() {
        walk(child, &inner, innermost)?;
    }
    Ok(())
}

/// Whether some two instances differ by one step of `member` with the other members
/// equal (false when the member is constant for the statement).
fn moves_along(schedule: &Map, member: usize) -> Result<bool> {
    let n = schedule.space().n_out();
    let forward = anonymous_range(schedule);
    let pairs = forward
        .apply_range(&unit_step_map(n, member))?
        .apply_range(&forward.reverse())?;
    Ok(!pairs.is_empty()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost_of(pairs: &[(usize, usize)]) -> Cost {
        Cost {
            strided: pairs.iter().copied().collect(),
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
}
