//! Conservative clustering: the fusion groups AKG asks of the scheduler before tiling
//! (§4.1, Fig. 3(c)).
//!
//! The loop nests of the original program (its top-level filters) are the initial
//! clusters, each with the outer loops that enclose all its statements as its band.
//! Neighbouring clusters are merged, in program order, when the dependences among
//! their statements advance by a non-negative distance along every member of the
//! common outer band (its first `k` members, `k` the smaller depth): the merged band
//! stays permutable, so it can be tiled, and its members are coincident when no
//! dependence crosses them. Nothing is shifted, skewed or reversed (AKG's options
//! leave those to the scheduler proper): a producer read at an offset (`A[h + kh]`)
//! stays in a cluster of its own, an intermediate space for the reverse strategy.
//!
//! The result passes `legality::check`.

use pollen_deps::Dependence;
use pollen_presburger::{Budget, DimKind, Int, Map, Set, UnionMap, UnionSet};
use pollen_sched::legality;
use pollen_scop::{Band, Node, ScheduleTree, Scop};

use super::reverse::statement;
use crate::error::{Error, Result};
use crate::fused::build::stages;
use crate::maps::anonymous_range;

/// A cluster under construction.
struct Cluster {
    statements: Vec<String>,
    /// Per statement, its outer band `{ S[i] -> [p] }` (anonymous range).
    outer: Vec<(String, Map)>,
    depth: usize,
    /// The filters below the band: statements and subtree.
    children: Vec<(Vec<String>, Node)>,
}

/// The conservatively clustered tree of `scop` (its original schedule's loop nests
/// merged where no dependence runs backwards along their common outer loops).
pub fn cluster(scop: &Scop, deps: &[Dependence], budget: &mut Budget) -> Result<ScheduleTree> {
    let Node::Domain { domain, .. } = &scop.schedule.root else {
        return Err(Error::UnsupportedTree("no domain root".into()));
    };
    let mut clusters: Vec<Cluster> = Vec::new();
    for stage in stages(&scop.schedule)? {
        let (outer, depth, rest) = outer_band(&stage.subtree, &stage.statements)?;
        let children = match &rest {
            Node::Sequence(filters) if depth > 0 => filters
                .iter()
                .map(|f| match f {
                    Node::Filter { filter, child } => Ok((filter_names(filter), (**child).clone())),
                    _ => Err(Error::UnsupportedTree(
                        "a sequence child is not a filter".into(),
                    )),
                })
                .collect::<Result<Vec<_>>>()?,
            _ => vec![(stage.statements.clone(), rest)],
        };
        let next = Cluster {
            statements: stage.statements.clone(),
            outer,
            depth,
            children,
        };
        let merged = match clusters.pop() {
            Some(last) => match merge(scop, deps, last, next, budget)? {
                Ok(m) => vec![m],
                Err((a, b)) => vec![a, b],
            },
            None => vec![next],
        };
        clusters.extend(merged);
    }
    let mut filters = Vec::new();
    for c in &clusters {
        let node = band_node(scop, deps, c, budget)?;
        filters.push(Node::filter(domains(scop, &c.statements)?, node));
    }
    let child = if filters.len() == 1 {
        match filters.pop() {
            Some(Node::Filter { child, .. }) => *child,
            Some(other) => other,
            None => Node::Leaf,
        }
    } else {
        Node::Sequence(filters)
    };
    let tree = ScheduleTree {
        root: Node::Domain {
            domain: domain.clone(),
            child: Box::new(child),
        },
    };
    let report = legality::check_with(deps, &tree, budget)?;
    if !report.is_legal() {
        return Err(Error::Illegal(report));
    }
    Ok(tree)
}

/// Per statement its outer band members, their number, and the node below them.
type OuterBand = (Vec<(String, Map)>, usize, Node);

/// The chain of bands at the top of `node` that schedule all of `names`: their
/// members per statement, their number, and the node below them.
fn outer_band(node: &Node, names: &[String]) -> Result<OuterBand> {
    let mut maps: Vec<(String, Option<Map>)> = names.iter().map(|n| (n.clone(), None)).collect();
    let mut depth = 0;
    let mut at = node;
    while let Node::Band(b) = at {
        let covers = names.iter().all(|n| {
            b.schedule
                .maps()
                .any(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(n.as_str()))
        });
        if !covers || b.n_members() == 0 {
            break;
        }
        for (n, acc) in maps.iter_mut() {
            let m = b
                .schedule
                .maps()
                .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(n.as_str()))
                .map(anonymous_range)
                .ok_or_else(|| Error::UnsupportedTree(format!("no band member for {n}")))?;
            *acc = Some(match acc.take() {
                Some(a) => a.flat_range_product(&m)?,
                None => m,
            });
        }
        depth += b.n_members();
        at = &b.child;
    }
    let mut out = Vec::new();
    for (n, m) in maps {
        let Some(m) = m else {
            return Ok((Vec::new(), 0, node.clone()));
        };
        out.push((n, m));
    }
    Ok((out, depth, at.clone()))
}

/// `a` and `b` merged, or both back when they cannot be.
fn merge(
    scop: &Scop,
    deps: &[Dependence],
    a: Cluster,
    b: Cluster,
    budget: &mut Budget,
) -> Result<std::result::Result<Cluster, (Cluster, Cluster)>> {
    let k = a.depth.min(b.depth);
    if k == 0 {
        return Ok(Err((a, b)));
    }
    let a2 = truncate(scop, clone_cluster(&a), k)?;
    let b2 = truncate(scop, clone_cluster(&b), k)?;
    let mut outer = a2.outer.clone();
    outer.extend(b2.outer.iter().cloned());
    let mut statements = a2.statements.clone();
    statements.extend(b2.statements.iter().cloned());
    if min_deltas(deps, &outer, &statements, k, budget)?
        .iter()
        .any(|d| d.as_ref().is_none_or(|v| v.is_negative()))
    {
        return Ok(Err((a, b)));
    }
    let mut children = a2.children;
    children.extend(b2.children);
    Ok(Ok(Cluster {
        statements,
        outer,
        depth: k,
        children,
    }))
}

fn clone_cluster(c: &Cluster) -> Cluster {
    Cluster {
        statements: c.statements.clone(),
        outer: c.outer.clone(),
        depth: c.depth,
        children: c.children.clone(),
    }
}

/// The cluster with its band cut to `k` members, the others moved below it.
fn truncate(scop: &Scop, c: Cluster, k: usize) -> Result<Cluster> {
    if c.depth == k {
        return Ok(c);
    }
    let mut schedule = UnionMap::empty(scop.params.clone());
    let mut outer = Vec::new();
    for (n, m) in &c.outer {
        schedule.add_map(m.project_out(DimKind::Out, 0, k)?)?;
        outer.push((n.clone(), m.project_out(DimKind::Out, k, c.depth - k)?));
    }
    let inner = if c.children.len() == 1 {
        c.children[0].1.clone()
    } else {
        let filters: Result<Vec<Node>> = c
            .children
            .iter()
            .map(|(n, node)| Ok(Node::filter(domains(scop, n)?, node.clone())))
            .collect();
        Node::Sequence(filters?)
    };
    let band = Node::Band(Band {
        schedule,
        permutable: false,
        coincident: vec![false; c.depth - k],
        child: Box::new(inner),
    });
    Ok(Cluster {
        statements: c.statements.clone(),
        outer,
        depth: k,
        children: vec![(c.statements, band)],
    })
}

/// Per member of the first `k`, the least distance any dependence among `statements`
/// advances along it (`None`: unbounded below).
fn min_deltas(
    deps: &[Dependence],
    outer: &[(String, Map)],
    statements: &[String],
    k: usize,
    budget: &mut Budget,
) -> Result<Vec<Option<Int>>> {
    let phi = |n: &str| outer.iter().find(|(m, _)| m == n).map(|(_, m)| m);
    let mut least: Vec<Option<Int>> = vec![None; k];
    let mut unbounded = vec![false; k];
    for d in deps {
        if !statements.contains(&d.source) || !statements.contains(&d.target) {
            continue;
        }
        let (Some(ps), Some(pt)) = (phi(&d.source), phi(&d.target)) else {
            continue;
        };
        // { [p] -> [q] } over the dependence pairs, then q - p.
        let pairs = ps.reverse().apply_range(&d.relation)?.apply_range(pt)?;
        if pairs.is_empty_with(budget)? {
            continue;
        }
        let deltas = Set::from_map(pairs.deltas()?)?;
        let np = deltas.n_params();
        let deltas = deltas.project_out(DimKind::Param, 0, np)?;
        for m in 0..k {
            let Ok(low) = deltas.dim_min_with(m, budget) else {
                unbounded[m] = true;
                continue;
            };
            for (_, a) in low.pieces() {
                match a.constant_value() {
                    Some(v) => {
                        if least[m].as_ref().is_none_or(|s| v < *s) {
                            least[m] = Some(v);
                        }
                    }
                    None => unbounded[m] = true,
                }
            }
        }
    }
    let out = least
        .into_iter()
        .zip(unbounded)
        .map(|(l, u)| {
            if u {
                None
            } else {
                Some(l.unwrap_or_else(Int::zero))
            }
        })
        .collect();
    Ok(out)
}

/// The cluster's band node: its members, permutable when no dependence goes
/// backwards along one, coincident where none crosses.
fn band_node(scop: &Scop, deps: &[Dependence], c: &Cluster, budget: &mut Budget) -> Result<Node> {
    let inner = if c.children.len() == 1 {
        c.children[0].1.clone()
    } else {
        let filters: Result<Vec<Node>> = c
            .children
            .iter()
            .map(|(n, node)| Ok(Node::filter(domains(scop, n)?, node.clone())))
            .collect();
        Node::Sequence(filters?)
    };
    if c.depth == 0 {
        return Ok(inner);
    }
    let lows = min_deltas(deps, &c.outer, &c.statements, c.depth, budget)?;
    let permutable = lows
        .iter()
        .all(|l| l.as_ref().is_some_and(|v| !v.is_negative()));
    let mut coincident = Vec::with_capacity(c.depth);
    for m in 0..c.depth {
        coincident.push(crosses_none(deps, &c.outer, &c.statements, m, budget)?);
    }
    let mut schedule = UnionMap::empty(scop.params.clone());
    for (_, m) in &c.outer {
        schedule.add_map(m.clone())?;
    }
    Ok(Node::Band(Band {
        schedule,
        permutable,
        coincident,
        child: Box::new(inner),
    }))
}

/// Whether every dependence among `statements` has distance 0 along member `m`.
fn crosses_none(
    deps: &[Dependence],
    outer: &[(String, Map)],
    statements: &[String],
    m: usize,
    budget: &mut Budget,
) -> Result<bool> {
    let phi = |n: &str| outer.iter().find(|(x, _)| x == n).map(|(_, x)| x);
    for d in deps {
        if !statements.contains(&d.source) || !statements.contains(&d.target) {
            continue;
        }
        let (Some(ps), Some(pt)) = (phi(&d.source), phi(&d.target)) else {
            continue;
        };
        let pairs = ps.reverse().apply_range(&d.relation)?.apply_range(pt)?;
        let deltas = Set::from_map(pairs.deltas()?)?;
        let nonzero_low = deltas.upper_bound_val(DimKind::Out, m, &Int::from(-1))?;
        let nonzero_high = deltas.lower_bound_val(DimKind::Out, m, &Int::one())?;
        if !nonzero_low.is_empty_with(budget)? || !nonzero_high.is_empty_with(budget)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn domains(scop: &Scop, names: &[String]) -> Result<UnionSet> {
    let mut out = UnionSet::empty(scop.params.clone());
    for n in names {
        out.add_set(statement(scop, n)?.domain.clone())?;
    }
    Ok(out)
}

fn filter_names(filter: &UnionSet) -> Vec<String> {
    filter
        .sets()
        .filter_map(|s| {
            s.space()
                .range_tuple()
                .and_then(|t| t.name())
                .map(str::to_string)
        })
        .collect()
}
