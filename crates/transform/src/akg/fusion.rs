//! Post-tiling fusion with an extension node and intra-tile distribution into the Cube
//! and Vector paths (AKG §4.3, Fig. 3(e)–(f)).
//!
//! [`post_tiling_fusion`] builds, from a conservatively clustered tree, the tree
//!
//! ```text
//! Domain
//!  Sequence
//!   Filter{producer}  Mark{"skipped"}  (its original subtree, not scanned)
//!   Filter{live-out}
//!    Band{tile loops}
//!     Extension{ [position, o] -> producer instances of the tile }
//!      Sequence
//!       Filter{producer}  (its subtree: the producer's tile)
//!       Filter{live-out}  (the original subtree: the point loops)
//! ```
//!
//! so that every statement runs inside the tiles of one kernel.
//! [`distribute_local_ub`] splits a live-out subtree into the runs of statements that go
//! to the Cube unit (dot-product reductions, with the initialisations of what they
//! accumulate) and the others, each of which is marked `"local_UB"`, distributed into a
//! loop nest of its own, and given a band whose innermost member is the one along which
//! its accesses are consecutive (vectorisable).

use std::collections::BTreeSet;

use pollen_deps::Dependence;
use pollen_presburger::{Budget, Map, UnionMap, UnionSet};
use pollen_sched::legality;
use pollen_scop::{AccessKind, Band, Node, ScheduleTree, Scop, Statement};

use super::reverse::{
    band_map, classify, producer_tiles, statement, tile_live_out, IterationSpace, LiveOutTiling,
    ProducerTile, SpaceKind,
};
use crate::error::{Error, Result};
use crate::order;

pub use pollen_scop::marks::{LOCAL_UB, SKIPPED};

/// The result of [`post_tiling_fusion`].
#[derive(Clone, Debug)]
pub struct PostTilingFusion {
    /// The iteration spaces of the input tree.
    pub spaces: Vec<IterationSpace>,
    /// The live-out space's tiles.
    pub tiling: LiveOutTiling,
    /// The producers fused into the tiles, in program order.
    pub producers: Vec<ProducerTile>,
    /// The new tree.
    pub tree: ScheduleTree,
}

/// Tiles the last live-out space of `tree` with `sizes` and fuses the intermediate
/// spaces that feed it into its tiles (see the module docs). The live-out tensors are
/// `live_out`.
pub fn post_tiling_fusion(
    scop: &Scop,
    tree: &ScheduleTree,
    live_out: &BTreeSet<String>,
    sizes: &[i64],
    budget: &mut Budget,
) -> Result<PostTilingFusion> {
    post_tiling_fusion_with(scop, tree, live_out, sizes, None, budget)
}

/// [`post_tiling_fusion`], and with `deps` given, the point loops of the tiles split by
/// [`distribute_local_ub`] (checked on the untiled tree) into the Cube and Vector paths
/// (Fig. 3(f)).
pub fn post_tiling_fusion_with(
    scop: &Scop,
    tree: &ScheduleTree,
    live_out: &BTreeSet<String>,
    sizes: &[i64],
    deps: Option<&[Dependence]>,
    budget: &mut Budget,
) -> Result<PostTilingFusion> {
    let Node::Domain { domain, .. } = &tree.root else {
        return Err(Error::UnsupportedTree("no domain root".into()));
    };
    let spaces = classify(scop, tree, live_out)?;
    let position = spaces
        .iter()
        .rposition(|s| s.kind == SpaceKind::LiveOut)
        .ok_or_else(|| Error::UnsupportedTree("no iteration space is live-out".into()))?;
    let tiling = tile_live_out(scop, &spaces, position, sizes)?;
    let producers = producer_tiles(scop, &spaces, &tiling, budget)?;
    let fused: BTreeSet<usize> = producers.iter().map(|p| p.space).collect();
    let points = match deps {
        Some(deps) => {
            let distributed = distribute_local_ub(scop, deps, tree, position)?;
            space_subtree(&distributed, position)?.clone()
        }
        None => spaces[position].subtree.clone(),
    };
    let several = spaces.len() > 1;

    let mut children = Vec::with_capacity(spaces.len());
    for (k, space) in spaces.iter().enumerate() {
        let filter = filter_of(scop, space)?;
        let node = if fused.contains(&k) {
            Node::Mark {
                name: SKIPPED.to_string(),
                child: Box::new(space.subtree.clone()),
            }
        } else if k == position {
            let band = space.band().ok_or_else(|| {
                Error::UnsupportedTree("the live-out space has no outer band".into())
            })?;
            let mut inner = Vec::new();
            let mut extension = UnionMap::empty(scop.params.clone());
            for p in &producers {
                let prefix = several.then_some(k);
                for m in p.extension.maps() {
                    extension.add_map(lift(m, prefix)?)?;
                }
                inner.push(Node::filter(
                    filter_of(scop, &spaces[p.space])?,
                    spaces[p.space].subtree.clone(),
                ));
            }
            let point = if inner.is_empty() {
                points.clone()
            } else {
                inner.push(Node::filter(filter.clone(), points.clone()));
                Node::Extension {
                    extension,
                    child: Box::new(Node::Sequence(inner)),
                }
            };
            Node::Band(Band {
                schedule: tiling.tile.clone(),
                permutable: band.permutable,
                coincident: band.coincident[..tiling.sizes.len()].to_vec(),
                child: Box::new(point),
            })
        } else {
            space.subtree.clone()
        };
        children.push(if several {
            Node::filter(filter, node)
        } else {
            node
        });
    }
    let child = if several {
        Node::Sequence(children)
    } else {
        children.pop().unwrap_or(Node::Leaf)
    };
    let tree = ScheduleTree {
        root: Node::Domain {
            domain: domain.clone(),
            child: Box::new(child),
        },
    };
    Ok(PostTilingFusion {
        spaces,
        tiling,
        producers,
        tree,
    })
}

/// `{ [o] -> S[i] }` as `{ [position, o] -> S[i] }`, the prefix a code generator sees
/// below the top-level sequence.
fn lift(m: &Map, position: Option<usize>) -> Result<Map> {
    let Some(position) = position else {
        return Ok(m.clone());
    };
    let n = m.space().n_in();
    let o: Vec<String> = (0..n).map(|k| format!("o{k}")).collect();
    let text = format!("{{ [c, {0}] -> [{0}] : c = {position} }}", o.join(", "));
    let text = if n == 0 {
        format!("{{ [c] -> [] : c = {position} }}")
    } else {
        text
    };
    let lifter = pollen_presburger::text::parse_map(&text)?;
    Ok(lifter.apply_range(m)?)
}

/// The instances of a space's statements.
fn filter_of(scop: &Scop, space: &IterationSpace) -> Result<UnionSet> {
    let mut out = UnionSet::empty(scop.params.clone());
    for name in &space.statements {
        out.add_set(statement(scop, name)?.domain.clone())?;
    }
    Ok(out)
}

/// The compute unit a statement runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Dot-product reductions (convolutions, matrix products) and the initialisations
    /// of what they accumulate: the Cube unit, data through L1.
    Cube,
    /// Everything else: the Vector unit, data in UB.
    Vector,
}

/// Whether `s` is a dot-product reduction: it accumulates into one element over
/// several instances (more iterators than subscripts of its write, and a read of the
/// element it writes) a product of at least two other tensors.
pub fn is_dot_product(s: &Statement) -> Result<bool> {
    let Some(w) = s.accesses.iter().find(|a| a.kind == AccessKind::Write) else {
        return Ok(false);
    };
    if w.relation.space().n_out() >= s.domain.n_dims() {
        return Ok(false);
    }
    let mut accumulates = false;
    let mut others = BTreeSet::new();
    for r in s.accesses.iter().filter(|a| a.kind == AccessKind::Read) {
        if r.array == w.array {
            accumulates |= r.relation.is_equal(&w.relation)?;
        } else {
            others.insert(r.array.clone());
        }
    }
    Ok(accumulates && others.len() >= 2 && s.body.contains('*'))
}

/// The unit of every statement of `statements`: dot products on the Cube unit, and a
/// statement writing a tensor that one of them accumulates into, before it, too.
pub fn units(scop: &Scop, statements: &[String]) -> Result<Vec<Unit>> {
    let mut out = vec![Unit::Vector; statements.len()];
    for (k, name) in statements.iter().enumerate() {
        let s = statement(scop, name)?;
        if !is_dot_product(s)? {
            continue;
        }
        out[k] = Unit::Cube;
        let Some(w) = s.accesses.iter().find(|a| a.kind == AccessKind::Write) else {
            continue;
        };
        for (j, earlier) in statements[..k].iter().enumerate() {
            let e = statement(scop, earlier)?;
            let writes_it = e
                .accesses
                .iter()
                .all(|a| a.kind == AccessKind::Write && a.array == w.array);
            if writes_it && !e.accesses.is_empty() {
                out[j] = Unit::Cube;
            }
        }
    }
    Ok(out)
}

/// Splits the subtree of the iteration space at position `space` of `tree` (a band over
/// a sequence of filters) with [`distribute`]; the new tree must pass the legality
/// checker against `deps` (the distribution undoes the clustering's fusion), else
/// [`Error::Illegal`].
pub fn distribute_local_ub(
    scop: &Scop,
    deps: &[Dependence],
    tree: &ScheduleTree,
    space: usize,
) -> Result<ScheduleTree> {
    let subtree = space_subtree(tree, space)?;
    let result = distribute(scop, subtree)?;
    let candidate = ScheduleTree {
        root: replace(&tree.root, subtree, &result),
    };
    let report = legality::check(deps, &candidate)?;
    if !report.is_legal() {
        return Err(Error::Illegal(report));
    }
    Ok(candidate)
}

/// The subtree below the top-level filter at `space` (the whole tree below the domain
/// when it has no top-level sequence).
fn space_subtree(tree: &ScheduleTree, space: usize) -> Result<&Node> {
    let Node::Domain { child, .. } = &tree.root else {
        return Err(Error::UnsupportedTree("no domain root".into()));
    };
    match &**child {
        Node::Sequence(c) | Node::Set(c) => match c.get(space) {
            Some(Node::Filter { child, .. }) => Ok(child),
            _ => Err(Error::UnsupportedTree(format!(
                "no iteration space {space}"
            ))),
        },
        other if space == 0 => Ok(other),
        _ => Err(Error::UnsupportedTree(format!(
            "no iteration space {space}"
        ))),
    }
}

/// Consecutive filters on one unit: their statements and subtrees.
type Run = Vec<(Vec<String>, Node)>;

/// Splits a subtree `Band → Sequence[filters]` into runs of consecutive filters on one
/// unit: a Cube run keeps the band over its filters; a Vector run is marked
/// [`LOCAL_UB`] and distributed, each filter with the band restricted to it and its
/// innermost member the one its accesses step along by one. A subtree that is one Cube
/// run, or has no sequence below its band, is returned as it is.
pub fn distribute(scop: &Scop, subtree: &Node) -> Result<Node> {
    let Node::Band(band) = subtree else {
        return Err(Error::UnsupportedTree(
            "the live-out subtree does not start with a band".into(),
        ));
    };
    let Node::Sequence(children) = &*band.child else {
        return Ok(subtree.clone());
    };
    let mut all_names = Vec::new();
    for c in children {
        if let Node::Filter { filter, .. } = c {
            all_names.extend(names_of(filter));
        }
    }
    let all_units = units(scop, &all_names)?;
    let unit_of = |n: &String| {
        all_names
            .iter()
            .position(|x| x == n)
            .map_or(Unit::Vector, |k| all_units[k])
    };
    let mut groups: Vec<(Unit, Run)> = Vec::new();
    for c in children {
        let Node::Filter { filter, child } = c else {
            return Err(Error::UnsupportedTree(
                "a sequence child is not a filter".into(),
            ));
        };
        let names = names_of(filter);
        let unit = if names.iter().any(|n| unit_of(n) == Unit::Cube) {
            Unit::Cube
        } else {
            Unit::Vector
        };
        match groups.last_mut() {
            Some((u, run)) if *u == unit => run.push((names, (**child).clone())),
            _ => groups.push((unit, vec![(names, (**child).clone())])),
        }
    }
    if groups.len() == 1 && groups[0].0 == Unit::Cube {
        return Ok(subtree.clone());
    }
    let mut out = Vec::new();
    for (unit, run) in &groups {
        let all: Vec<String> = run.iter().flat_map(|(n, _)| n.clone()).collect();
        let filter = domains(scop, &all)?;
        let node = match unit {
            Unit::Cube => {
                let filters: Result<Vec<Node>> = run
                    .iter()
                    .map(|(n, c)| Ok(Node::filter(domains(scop, n)?, c.clone())))
                    .collect();
                Node::Band(Band {
                    schedule: restrict(scop, &band.schedule, &all)?,
                    permutable: band.permutable,
                    coincident: band.coincident.clone(),
                    child: Box::new(Node::Sequence(filters?)),
                })
            }
            Unit::Vector => {
                let mut filters = Vec::new();
                for (n, c) in run {
                    let own = Band {
                        schedule: restrict(scop, &band.schedule, n)?,
                        permutable: band.permutable,
                        coincident: band.coincident.clone(),
                        child: Box::new(c.clone()),
                    };
                    filters.push(Node::filter(domains(scop, n)?, sink_fastest(scop, own)?));
                }
                Node::Mark {
                    name: LOCAL_UB.to_string(),
                    child: Box::new(Node::Sequence(filters)),
                }
            }
        };
        out.push(Node::filter(filter, node));
    }
    Ok(Node::Sequence(out))
}

/// The band with its members reordered so that the one along which the accesses step
/// by one is innermost (legal: the band is permutable).
fn sink_fastest(scop: &Scop, band: Band) -> Result<Node> {
    let n = band.n_members();
    if n < 2 || !band.permutable {
        return Ok(Node::Band(band));
    }
    let steps = order::member_steps(scop, &band)?;
    let scores: Vec<i64> = steps.iter().map(|(u, s)| u - s).collect();
    let strided: Vec<i64> = steps.iter().map(|(_, s)| *s).collect();
    let perm = order::intra_tile_order(&scores, &strided, &band.coincident);
    if perm.iter().enumerate().all(|(k, &m)| k == m) {
        return Ok(Node::Band(band));
    }
    let inputs: Vec<String> = (0..n).map(|k| format!("p{k}")).collect();
    let outputs: Vec<String> = perm.iter().map(|&m| format!("p{m}")).collect();
    let permutation = pollen_presburger::text::parse_map(&format!(
        "{{ [{}] -> [{}] }}",
        inputs.join(", "),
        outputs.join(", ")
    ))?;
    let schedule = band.schedule.map_each(|m| {
        let anonymous = crate::maps::anonymous_range(m);
        anonymous.apply_range(&permutation)
    })?;
    let coincident = perm.iter().map(|&m| band.coincident[m]).collect();
    Ok(Node::Band(Band {
        schedule,
        permutable: band.permutable,
        coincident,
        child: band.child,
    }))
}

/// The band's schedule of the statements `names` only.
fn restrict(scop: &Scop, schedule: &UnionMap, names: &[String]) -> Result<UnionMap> {
    let mut out = UnionMap::empty(scop.params.clone());
    for m in schedule.maps() {
        if m.space()
            .domain_tuple()
            .and_then(|t| t.name())
            .is_some_and(|n| names.iter().any(|x| x == n))
        {
            out.add_map(m.clone())?;
        }
    }
    Ok(out)
}

/// The domains of the statements `names`.
fn domains(scop: &Scop, names: &[String]) -> Result<UnionSet> {
    let mut out = UnionSet::empty(scop.params.clone());
    for n in names {
        out.add_set(statement(scop, n)?.domain.clone())?;
    }
    Ok(out)
}

/// The statement names of a filter.
fn names_of(filter: &UnionSet) -> Vec<String> {
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

/// `node` with the subtree equal (by address) to `old` replaced by `new`.
fn replace(node: &Node, old: &Node, new: &Node) -> Node {
    if std::ptr::eq(node, old) {
        return new.clone();
    }
    let boxed = |c: &Node| Box::new(replace(c, old, new));
    match node {
        Node::Domain { domain, child } => Node::Domain {
            domain: domain.clone(),
            child: boxed(child),
        },
        Node::Context { context, child } => Node::Context {
            context: context.clone(),
            child: boxed(child),
        },
        Node::Band(b) => Node::Band(Band {
            schedule: b.schedule.clone(),
            permutable: b.permutable,
            coincident: b.coincident.clone(),
            child: boxed(&b.child),
        }),
        Node::Sequence(c) => Node::Sequence(c.iter().map(|x| replace(x, old, new)).collect()),
        Node::Set(c) => Node::Set(c.iter().map(|x| replace(x, old, new)).collect()),
        Node::Filter { filter, child } => Node::Filter {
            filter: filter.clone(),
            child: boxed(child),
        },
        Node::Mark { name, child } => Node::Mark {
            name: name.clone(),
            child: boxed(child),
        },
        Node::Extension { extension, child } => Node::Extension {
            extension: extension.clone(),
            child: boxed(child),
        },
        Node::Leaf => Node::Leaf,
    }
}

/// The point band of a statement of a band: its schedule on its domain.
pub fn point_schedule(band: &Band, scop: &Scop, name: &str) -> Result<Map> {
    band_map(band, scop, name)
}
