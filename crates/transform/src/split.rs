//! Band splitting for locality: a band fused over several statements whose own loops sit
//! in separate bands below it is distributed, so that each statement's loops form one
//! band that the tiler can permute.
//!
//! A scheduler that fuses statements at an outer member but separates them below it
//! leaves each statement's inner loops in a band of their own, and the outer member can
//! never move inside them. In a Gram-Schmidt step
//!
//! ```text
//! for (j = k + 1; j < n; j++) {            band {S5, S6}: [j]
//!   for (i = 0; i < m; i++)                  band {S5}: [i]
//!     R[k][j] += Q[i][k] * A[i][j];
//!   for (i = 0; i < m; i++)                  band {S6}: [i]
//!     A[i][j] = A[i][j] - Q[i][k] * R[k][j];
//! }
//! ```
//!
//! both innermost loops walk down columns. Distributing the `j` band over the sequence
//! gives each statement a band `[j, i]`; where that band is permutable the tiler (or its
//! stride-1 ordering, [`crate::order::intra_tile_order`]) runs `j` innermost.
//!
//! A split is made only when it is legal (checked by [`legality::check`]: the
//! distribution must not reverse a dependence, and a merged band is kept permutable only
//! where the checker confirms it) and when the static cost model ([`crate::profit`]) finds
//! fewer strided innermost accesses once the bands are ordered for stride 1.

use std::collections::BTreeSet;

use pollen_deps::Dependence;
use pollen_presburger::{Budget, UnionMap, UnionSet};
use pollen_sched::legality::{self, ViolationKind};
use pollen_scop::{Band, Node, ScheduleTree, Scop};

use crate::error::Result;
use crate::profit::cost_with;
use crate::tiling::{settle_flags, tile_with, TileOptions};

/// `tree` with every fused band split where that is legal and gives its statements
/// stride-1 innermost loops (see the module documentation); every tree returned passes
/// the checker. Runs within `budget`; running out gives [`crate::Error::LimitExceeded`].
pub fn split_for_locality_with(
    scop: &Scop,
    deps: &[Dependence],
    tree: &ScheduleTree,
    budget: &mut Budget,
) -> Result<ScheduleTree> {
    let mut paths = Vec::new();
    candidates(&tree.root, &mut Vec::new(), &mut paths);
    let mut current = tree.clone();
    // Later positions first: a split replaces the subtree at its path only, so the
    // positions of the candidates still to try (earlier in pre-order: neither inside it
    // nor after it) do not move.
    for path in paths.into_iter().rev() {
        if let Some(split) = try_split(scop, deps, &current, &path, budget)? {
            current = split;
        }
    }
    Ok(current)
}

/// [`split_for_locality_with`] without a budget limit.
pub fn split_for_locality(
    scop: &Scop,
    deps: &[Dependence],
    tree: &ScheduleTree,
) -> Result<ScheduleTree> {
    split_for_locality_with(scop, deps, tree, &mut Budget::unlimited())
}

/// The positions (pre-order) of bands whose child is a sequence in which some filter
/// holds a band: the bands a split could merge with their statements' inner bands.
fn candidates(node: &Node, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if let Node::Band(band) = node {
        if let Node::Sequence(children) = &*band.child {
            if children.iter().any(|c| inner_band(c).is_some()) {
                out.push(path.clone());
            }
        }
    }
    for (k, child) in node.children().into_iter().enumerate() {
        path.push(k);
        candidates(child, path, out);
        path.pop();
    }
}

/// The band directly below a filter, if any.
fn inner_band(filter: &Node) -> Option<&Band> {
    match filter {
        Node::Filter { child, .. } => match &**child {
            Node::Band(b) => Some(b),
            _ => None,
        },
        _ => None,
    }
}

/// The tree with the band at `path` split, when the split is legal and pays.
fn try_split(
    scop: &Scop,
    deps: &[Dependence],
    tree: &ScheduleTree,
    path: &[usize],
    budget: &mut Budget,
) -> Result<Option<ScheduleTree>> {
    let Some(Node::Band(band)) = node_at(&tree.root, path) else {
        return Ok(None);
    };
    let Node::Sequence(children) = &*band.child else {
        return Ok(None);
    };
    let mut merge: Vec<bool> = children.iter().map(|c| inner_band(c).is_some()).collect();
    loop {
        let Some(node) = distributed(band, children, &merge)? else {
            return Ok(None);
        };
        let mut candidate = tree.clone();
        let Some(slot) = node_at_mut(&mut candidate.root, path) else {
            return Ok(None);
        };
        *slot = node;
        let report = legality::check_with(deps, &candidate, budget)?;
        let mut unmerge = BTreeSet::new();
        for v in &report.violations {
            match &v.kind {
                ViolationKind::Coincident { .. } => {}
                ViolationKind::Permutable { band: at, .. }
                    if at.len() == path.len() + 2 && at.starts_with(path) =>
                {
                    unmerge.insert(at[path.len()]);
                }
                // The distribution reverses a dependence.
                _ => return Ok(None),
            }
        }
        if unmerge.is_empty() {
            settle_flags(deps, &mut candidate, budget)?;
            return Ok(pays(scop, deps, tree, &candidate, budget)?.then_some(candidate));
        }
        for k in unmerge {
            merge[k] = false;
        }
        if !merge.iter().any(|&m| m) {
            return Ok(None);
        }
    }
}

/// The band distributed over its sequence: per filter, the band restricted to the
/// filter's statements, merged with the filter's own band where `merge` says so (and
/// flagged permutable, for the checker to confirm). `None` when no filter is merged.
fn distributed(band: &Band, children: &[Node], merge: &[bool]) -> Result<Option<Node>> {
    if !merge.iter().any(|&m| m) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(children.len());
    for (child, &merged) in children.iter().zip(merge) {
        let Node::Filter {
            filter,
            child: below,
        } = child
        else {
            return Ok(None);
        };
        let outer = restricted(&band.schedule, filter)?;
        let merged = match (&**below, merged) {
            (Node::Band(inner), true) => product(&outer, &inner.schedule)?.map(|s| (inner, s)),
            _ => None,
        };
        let node = match merged {
            // Every member is proposed parallel: a member shared by statements that no
            // longer share it may have become parallel; the checker clears the rest.
            Some((inner, schedule)) => Node::Band(Band {
                schedule,
                permutable: true,
                coincident: vec![true; band.n_members() + inner.n_members()],
                child: inner.child.clone(),
            }),
            None => Node::Band(Band {
                schedule: outer,
                permutable: band.permutable,
                coincident: vec![true; band.n_members()],
                child: below.clone(),
            }),
        };
        out.push(Node::filter(filter.clone(), node));
    }
    Ok(Some(Node::Sequence(out)))
}

/// The maps of `schedule` for the statements `filter` mentions.
fn restricted(schedule: &UnionMap, filter: &UnionSet) -> Result<UnionMap> {
    let names: BTreeSet<String> = filter
        .sets()
        .filter_map(|s| s.space().range_tuple().map(|t| t.key()))
        .collect();
    let mut out = UnionMap::empty(schedule.param_names().to_vec());
    for m in schedule.maps() {
        if m.space()
            .domain_tuple()
            .is_some_and(|t| names.contains(&t.key()))
        {
            out.add_map(m.clone())?;
        }
    }
    Ok(out)
}

/// Per statement, the outer band's members followed by the inner band's (`None` when
/// the inner band does not schedule every statement of the outer one).
fn product(outer: &UnionMap, inner: &UnionMap) -> Result<Option<UnionMap>> {
    let mut out = UnionMap::empty(outer.param_names().to_vec());
    for m in outer.maps() {
        let key = m
            .space()
            .domain_tuple()
            .map(|t| t.key())
            .unwrap_or_default();
        let Some(i) = inner
            .maps()
            .find(|i| i.space().domain_tuple().map(|t| t.key()) == Some(key.clone()))
        else {
            return Ok(None);
        };
        out.add_map(m.flat_range_product(i)?)?;
    }
    Ok(Some(out))
}

/// Whether `split` has fewer strided innermost accesses than `tree` once the permutable
/// bands of both are ordered for stride 1 (as the tiler orders them).
fn pays(
    scop: &Scop,
    deps: &[Dependence],
    tree: &ScheduleTree,
    split: &ScheduleTree,
    budget: &mut Budget,
) -> Result<bool> {
    let order = TileOptions {
        min_band_depth: usize::MAX,
        ..TileOptions::default()
    };
    let before = cost_with(scop, &tile_with(scop, deps, tree, &order, budget)?, budget)?;
    let after = cost_with(scop, &tile_with(scop, deps, split, &order, budget)?, budget)?;
    Ok(after.is_better_than(&before))
}

/// The node at `path` (child indices from `node`).
fn node_at<'a>(node: &'a Node, path: &[usize]) -> Option<&'a Node> {
    let Some((&first, rest)) = path.split_first() else {
        return Some(node);
    };
    node_at(node.children().get(first)?, rest)
}

/// The node at `path`, mutably.
fn node_at_mut<'a>(node: &'a mut Node, path: &[usize]) -> Option<&'a mut Node> {
    crate::tiling::node_at_mut(node, path)
}
