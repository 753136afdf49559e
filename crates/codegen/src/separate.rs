//! Splitting one schedule dimension into consecutive loops (CLooG-style separation).
//!
//! Each active statement occupies a set `T_S` of the schedule space whose last dimension
//! `c` is the one being scanned. With separation, the union of the `T_S` is partitioned
//! into disjoint convex *pieces* on which the set of active statements is constant
//! (intersections and differences of the `T_S`). A piece `P` is *before* a piece `Q`
//! when, for every value of the outer dimensions, every `c` of `P` is smaller than every
//! `c` of `Q`. Pieces that cannot be ordered either way are merged (strongly connected
//! components of the "cannot be after" graph); the merged groups, in a topological
//! order, become consecutive loops, each over the hull of its pieces, each statement
//! restricted to its own pieces.
//!
//! When the partition grows beyond the options' limit, or separation is off, the pieces
//! are the statements' sets themselves (one per statement), which still splits
//! statements whose ranges follow each other into separate loops.
//!
//! # Invariants
//! - for every statement, the parts of its set in the components are pairwise disjoint
//!   and their union is its set;
//! - if component `A` precedes component `B`, every point of `A` precedes every point of
//!   `B` with the same outer dimensions.

use pollen_arith::Int;
use pollen_presburger::{BasicMap, Budget, Set};

use crate::error::Result;
use crate::sets::{basic_set, schedule_space};

/// A group of pieces generated as one loop.
#[derive(Clone, Debug)]
pub(crate) struct Component {
    /// Per statement (by index): its part of the component, if any.
    pub parts: Vec<Option<Set>>,
    /// The union of the parts.
    pub union: Set,
}

/// Where the separation happens and how.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Level<'a> {
    /// The parameters.
    pub params: &'a [String],
    /// The dimension being scanned (the last of the schedule space of depth `d + 1`).
    pub d: usize,
    /// Whether statements are separated into pieces.
    pub separate: bool,
    /// The most pieces a partition may have.
    pub limit: usize,
}

/// A convex (or, without separation, arbitrary) set with the statements active on it.
#[derive(Clone, Debug)]
struct Piece {
    set: Set,
    statements: Vec<usize>,
    /// The points of `set` where its statements have instances, when known to be
    /// smaller: only they need to be ordered (elsewhere the statements' inner loops
    /// run no iteration).
    instances: Option<Set>,
}

impl Piece {
    /// The points to order.
    fn instances(&self) -> &Set {
        self.instances.as_ref().unwrap_or(&self.set)
    }
}

/// The components of the statements' sets `sets` (in the schedule space of depth
/// `d + 1`; `None` for statements with no instance here), in execution order.
/// `ranges[s] ⊆ sets[s]` holds the points where statement `s` has instances; a statement
/// is dropped from the pieces its range does not meet (its inner loops would be empty).
///
/// `keys` holds, per statement, what is known of its schedule below the dimension
/// ([`TieKey`]): a statement that executes first among instances with equal dimensions
/// may have its range end where the next one's begins.
pub(crate) fn components(
    sets: &[Option<Set>],
    ranges: &[Option<Set>],
    keys: &[Option<TieKey>],
    level: Level,
    budget: &mut Budget,
) -> Result<Vec<Component>> {
    let Level {
        params,
        d,
        separate,
        limit,
    } = level;
    let whole: Vec<Piece> = sets
        .iter()
        .enumerate()
        .filter_map(|(k, s)| {
            s.as_ref().map(|s| Piece {
                set: s.clone(),
                statements: vec![k],
                instances: ranges[k].clone(),
            })
        })
        .collect();
    let mut out = Vec::new();
    for g in order(&whole, Some(keys), params, d, budget)? {
        let mut sub: Vec<Option<Set>> = vec![None; sets.len()];
        for &p in &g {
            for &s in &whole[p].statements {
                sub[s] = sets[s].clone();
            }
        }
        let pieces = if separate {
            partition_capped(&sub, limit, budget)?
        } else {
            None
        };
        let pieces = match pieces {
            Some(p) => Some(prune(p, ranges, budget)?),
            None => None,
        };
        match pieces {
            Some(pieces) => {
                for h in order(&pieces, None, params, d, budget)? {
                    out.push(component(&pieces, &h, sets.len(), budget)?);
                }
            }
            None => out.push(component(&whole, &g, sets.len(), budget)?),
        }
    }
    Ok(out)
}

/// The pieces without the statements whose ranges they do not meet, and without the
/// pieces left with no statement.
fn prune(pieces: Vec<Piece>, ranges: &[Option<Set>], budget: &mut Budget) -> Result<Vec<Piece>> {
    let mut out = Vec::with_capacity(pieces.len());
    for mut p in pieces {
        let mut kept = Vec::with_capacity(p.statements.len());
        let mut instances: Option<Set> = None;
        for &s in &p.statements {
            let Some(r) = &ranges[s] else { continue };
            let meet = p.set.intersect(r)?;
            if !meet.is_empty_with(budget)? {
                kept.push(s);
                instances = Some(match instances {
                    None => meet,
                    Some(i) => i.union(&meet)?,
                });
            }
        }
        if !kept.is_empty() {
            p.statements = kept;
            p.instances = instances;
            out.push(p);
        }
    }
    Ok(out)
}

/// The pieces in groups (strongly connected components of the "cannot be after"
/// relation, exclusive neighbours merged), in execution order.
fn order(
    pieces: &[Piece],
    keys: Option<&[Option<TieKey>]>,
    params: &[String],
    d: usize,
    budget: &mut Budget,
) -> Result<Vec<Vec<usize>>> {
    let n = pieces.len();
    // edge[p][q]: q cannot be entirely before p, so p comes first (or they merge).
    let mut edge = vec![vec![false; n]; n];
    for p in 0..n {
        for q in 0..n {
            if p != q {
                let tie = keys.is_some_and(|keys| sequenced(&pieces[q], &pieces[p], keys));
                edge[p][q] = !before(
                    pieces[q].instances(),
                    pieces[p].instances(),
                    params,
                    d,
                    tie,
                    budget,
                )?;
            }
        }
    }
    merge_exclusive(ordered_groups(&edge), &edge, pieces, budget)
}

/// What is known of a statement's schedule below the scanned dimension.
#[derive(Clone, Debug)]
pub(crate) struct TieKey {
    /// Per remaining flat schedule dimension, its constant value, if constant.
    pub rest: Vec<Option<Int>>,
    /// The statement's position in the scop: the order at a common leaf.
    pub order: usize,
}

impl TieKey {
    /// Whether, at equal outer dimensions, every instance of `self`'s statement executes
    /// before every instance of `other`'s: the first constant dimension where the keys
    /// differ says so, or equal constant keys end at one leaf, ordered by the scop.
    /// Missing dimensions are zeros (the flattened schedule's padding).
    fn before(&self, other: &TieKey) -> bool {
        let n = self.rest.len().max(other.rest.len());
        let zero = Some(Int::zero());
        for j in 0..n {
            let a = self.rest.get(j).unwrap_or(&zero);
            let b = other.rest.get(j).unwrap_or(&zero);
            match (a, b) {
                (Some(a), Some(b)) if a < b => return true,
                (Some(a), Some(b)) if a > b => return false,
                (Some(_), Some(_)) => {}
                _ => return false,
            }
        }
        self.order < other.order
    }
}

/// Whether every statement of `q` precedes every statement of `p` at equal dimensions.
fn sequenced(q: &Piece, p: &Piece, keys: &[Option<TieKey>]) -> bool {
    q.statements.iter().all(|&s| {
        p.statements.iter().all(|&t| match (&keys[s], &keys[t]) {
            (Some(a), Some(b)) => a.before(b),
            _ => false,
        })
    })
}

/// The component of a group of pieces.
fn component(
    pieces: &[Piece],
    group: &[usize],
    n: usize,
    budget: &mut Budget,
) -> Result<Component> {
    let mut parts: Vec<Option<Set>> = vec![None; n];
    let mut union: Option<Set> = None;
    for &p in group {
        let piece = &pieces[p];
        for &s in &piece.statements {
            parts[s] = Some(match parts[s].take() {
                None => piece.set.clone(),
                Some(x) => x.union(&piece.set)?,
            });
        }
        union = Some(match union {
            None => piece.set.clone(),
            Some(u) => u.union(&piece.set)?,
        });
    }
    let mut coalesced = Vec::with_capacity(n);
    for p in parts {
        coalesced.push(match p {
            Some(p) if p.as_map().basic_maps().len() > 1 => Some(p.coalesce_with(budget)?),
            p => p,
        });
    }
    let space = pieces
        .first()
        .map(|p| p.set.space().clone())
        .ok_or_else(|| crate::error::Error::InvalidTree("an empty component".into()))?;
    Ok(Component {
        parts: coalesced,
        union: union.unwrap_or_else(|| Set::empty(space)),
    })
}

/// Merges consecutive groups with no edge between them (their pieces are never
/// non-empty for the same outer values) when the union of their pieces is convex: one
/// loop (or one substituted value) then serves both, without extra iterations.
fn merge_exclusive(
    groups: Vec<Vec<usize>>,
    edge: &[Vec<bool>],
    pieces: &[Piece],
    budget: &mut Budget,
) -> Result<Vec<Vec<usize>>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for g in groups {
        if let Some(last) = out.last_mut() {
            let linked = last
                .iter()
                .any(|&a| g.iter().any(|&b| edge[a][b] || edge[b][a]));
            if !linked && convex_union(last.iter().chain(&g).map(|&p| &pieces[p].set), budget)? {
                last.extend(g);
                continue;
            }
        }
        out.push(g);
    }
    Ok(out)
}

/// Whether the union of the sets is convex (coalesces into one basic set).
fn convex_union<'a>(sets: impl Iterator<Item = &'a Set>, budget: &mut Budget) -> Result<bool> {
    let mut union: Option<Set> = None;
    for s in sets {
        union = Some(match union {
            None => s.clone(),
            Some(u) => u.union(s)?,
        });
    }
    let Some(union) = union else {
        return Ok(true);
    };
    Ok(union.coalesce_with(budget)?.as_map().basic_maps().len() <= 1)
}

/// The most elementary steps one partition may take: separation is an improvement,
/// and partitions that grow this costly almost always end beyond the piece limit.
const PARTITION_STEPS: u64 = 60_000;

/// [`partition`] within [`PARTITION_STEPS`] (also charged to `budget`); `None` beyond.
fn partition_capped(
    sets: &[Option<Set>],
    limit: usize,
    budget: &mut Budget,
) -> Result<Option<Vec<Piece>>> {
    let mut local = Budget::new(PARTITION_STEPS);
    let result = partition(sets, limit, &mut local);
    let spent = PARTITION_STEPS - local.remaining().unwrap_or(0);
    budget.tick(spent)?;
    match result {
        Err(crate::error::Error::LimitExceeded) => Ok(None),
        r => r,
    }
}

/// The partition of the union of the sets into disjoint convex pieces with constant
/// statement sets, or `None` when it has more than `limit` pieces.
fn partition(
    sets: &[Option<Set>],
    limit: usize,
    budget: &mut Budget,
) -> Result<Option<Vec<Piece>>> {
    let mut pieces: Vec<Piece> = Vec::new();
    for (k, t) in sets.iter().enumerate() {
        let Some(t) = t else { continue };
        let mut next = Vec::new();
        let mut rest = t.clone();
        for p in pieces {
            let inside = p.set.intersect(t)?;
            if !inside.is_empty_with(budget)? {
                let mut statements = p.statements.clone();
                statements.push(k);
                next.push(Piece {
                    set: inside.coalesce_with(budget)?,
                    statements,
                    instances: None,
                });
            }
            let outside = p.set.subtract_with(t, budget)?;
            if !outside.is_empty_with(budget)? {
                next.push(Piece {
                    set: outside.coalesce_with(budget)?,
                    statements: p.statements,
                    instances: None,
                });
            }
            rest = rest.subtract_with(&p.set, budget)?;
        }
        if !rest.is_empty_with(budget)? {
            next.push(Piece {
                set: rest.coalesce_with(budget)?,
                statements: vec![k],
                instances: None,
            });
        }
        if next.len() > limit {
            return Ok(None);
        }
        pieces = next;
    }
    let mut convex = Vec::new();
    for p in pieces {
        for b in disjoint_parts(&p.set, budget)? {
            convex.push(Piece {
                set: basic_set(b)?,
                statements: p.statements.clone(),
                instances: None,
            });
        }
        if convex.len() > limit {
            return Ok(None);
        }
    }
    Ok(Some(convex))
}

/// The set as pairwise disjoint basic maps.
fn disjoint_parts(set: &Set, budget: &mut Budget) -> Result<Vec<BasicMap>> {
    let parts = set.as_map().basic_maps();
    if parts.len() <= 1 {
        return Ok(parts.to_vec());
    }
    let mut out: Vec<BasicMap> = Vec::new();
    let mut covered = Set::empty(set.space().clone());
    for b in parts {
        let own = basic_set(b.clone())?.subtract_with(&covered, budget)?;
        for x in own.as_map().basic_maps() {
            if !x.is_empty(budget)? {
                out.push(x.clone());
            }
        }
        covered = covered.union(&basic_set(b.clone())?)?;
    }
    Ok(out)
}

/// Whether, for all outer values, every last coordinate of `p` is smaller than (or, with
/// `tie`, at most) every last coordinate of `q` (`p` and `q` in the schedule space of
/// depth `d + 1`).
fn before(
    p: &Set,
    q: &Set,
    params: &[String],
    d: usize,
    tie: bool,
    budget: &mut Budget,
) -> Result<bool> {
    let np = params.len();
    let space = schedule_space(params, d + 2);
    let tp: Vec<usize> = (0..np + d + 1).collect();
    let tq: Vec<usize> = (0..np + d).chain([np + d + 1]).collect();
    for x in p.as_map().basic_maps() {
        for y in q.as_map().basic_maps() {
            let mut joint = x.reshape(space.clone(), 0, &tp);
            joint.absorb(y, &tq);
            // c_p - c_q >= 0 (or >= 1 with ties allowed): p's point not before q's.
            let mut row = joint.zero_row();
            if tie {
                row[0] = -Int::one();
            }
            row[1 + np + d] = Int::one();
            row[1 + np + d + 1] = -Int::one();
            joint.add_ineq(row);
            if !joint.simplify().is_empty(budget)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The strongly connected components of the graph, in a topological order that takes
/// the smallest available component (by its first node) first.
fn ordered_groups(edge: &[Vec<bool>]) -> Vec<Vec<usize>> {
    let n = edge.len();
    let mut reach: Vec<Vec<bool>> = edge.to_vec();
    for (i, r) in reach.iter_mut().enumerate() {
        r[i] = true;
    }
    for k in 0..n {
        let via = reach[k].clone();
        for row in reach.iter_mut() {
            if row[k] {
                for (r, v) in row.iter_mut().zip(&via) {
                    *r |= *v;
                }
            }
        }
    }
    let mut component = vec![usize::MAX; n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        if component[i] != usize::MAX {
            continue;
        }
        let id = groups.len();
        let members: Vec<usize> = (0..n).filter(|&j| reach[i][j] && reach[j][i]).collect();
        for &j in &members {
            component[j] = id;
        }
        groups.push(members);
    }
    let m = groups.len();
    let mut placed = vec![false; m];
    let mut order = Vec::with_capacity(m);
    while order.len() < m {
        let next = (0..m).find(|&g| {
            !placed[g]
                && (0..m).all(|h| {
                    placed[h]
                        || h == g
                        || !groups[h]
                            .iter()
                            .any(|&a| groups[g].iter().any(|&b| edge[a][b]))
                })
        });
        // A DAG of components always has a source; fall back to the first unplaced.
        let g = next.unwrap_or_else(|| (0..m).find(|&g| !placed[g]).unwrap_or(0));
        placed[g] = true;
        order.push(g);
    }
    order.into_iter().map(|g| groups[g].clone()).collect()
}
