//! The reverse strategy: tiling the live-out iteration space and deriving the producers'
//! tiles from it (AKG §4.2, Zhao and Di's MICRO-53 tiling of fused subgraphs).
//!
//! 1. **Classification.** The top-level filters of a conservatively clustered schedule
//!    are iteration spaces; one that writes a tensor used after the program is
//!    *live-out*, the others are *intermediate* (their values are consumed inside).
//! 2. **Live-out tiling.** The outer band of the (last) live-out space is tiled
//!    rectangularly: `S[i] -> [floor(φ(i) / T)]`, the point loops being the band itself.
//! 3. **Footprints and extensions.** The tiles' footprint on a tensor is the image of
//!    the tiles under the reads (`t⁻¹ ∘ reads`, `{ [o] -> A[x] }`); the instances of an
//!    intermediate space a tile needs are those writing the footprint
//!    (`footprint ∘ writes⁻¹`, intersected with the domain), widened to whole band
//!    points so that every statement of the space runs with them. Intermediate spaces
//!    are visited from the last backwards (greedily), each one's reads joining the
//!    footprint for the earlier ones. Tiles overlap on the halos: the instances
//!    there are recomputed by every tile that needs them ([`instance_count`]).
//!
//! The set work reuses basteln's fused tiling ([`crate::fused`]): its stage split,
//! its division-free tile relation and its hull widening.

use std::collections::{BTreeMap, BTreeSet};

use pollen_arith::Int;
use pollen_presburger::{Budget, DimKind, Map, UnionMap, UnionSet};
use pollen_scop::{AccessKind, Band, Node, ScheduleTree, Scop, Statement};

use crate::error::{Error, Result};
use crate::fused::build::{stages, tidy, tile_relation, widen, Stage};
use crate::maps::anonymous_range;

/// Whether an iteration space's values leave the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceKind {
    /// It writes a tensor used after the program.
    LiveOut,
    /// Everything it writes is consumed inside the program.
    Intermediate,
}

/// One top-level filter of the schedule: an isl fusion group.
#[derive(Clone, Debug)]
pub struct IterationSpace {
    /// Its statements, in program order.
    pub statements: Vec<String>,
    /// Live-out or intermediate.
    pub kind: SpaceKind,
    /// The tensors its statements write.
    pub writes: BTreeSet<String>,
    /// The filter's subtree.
    pub subtree: Node,
}

impl IterationSpace {
    /// The space's outer band, when its subtree starts with one.
    pub fn band(&self) -> Option<&Band> {
        match &self.subtree {
            Node::Band(b) if b.n_members() > 0 => Some(b),
            _ => None,
        }
    }
}

/// The iteration spaces of `tree` (the top-level filters, or the whole tree as one
/// space), classified by the tensors in `live_out`.
pub fn classify(
    scop: &Scop,
    tree: &ScheduleTree,
    live_out: &BTreeSet<String>,
) -> Result<Vec<IterationSpace>> {
    let mut out = Vec::new();
    for Stage {
        statements,
        subtree,
        ..
    } in stages(tree)?
    {
        let mut writes = BTreeSet::new();
        for name in &statements {
            for a in &statement(scop, name)?.accesses {
                if a.kind == AccessKind::Write {
                    writes.insert(a.array.clone());
                }
            }
        }
        let kind = if writes.iter().any(|a| live_out.contains(a)) {
            SpaceKind::LiveOut
        } else {
            SpaceKind::Intermediate
        };
        out.push(IterationSpace {
            statements,
            kind,
            writes,
            subtree,
        });
    }
    Ok(out)
}

/// The tiling of a live-out space.
#[derive(Clone, Debug)]
pub struct LiveOutTiling {
    /// The position of the space among the top-level filters.
    pub space: usize,
    /// The tile sizes, one per tiled band member (the outermost ones).
    pub sizes: Vec<i64>,
    /// The tile band: `{ S[i] -> [floor(φ_k(i) / T_k)] }` for every statement of the space.
    pub tile: UnionMap,
    /// The instances of every tile: `{ [o] -> S[i] }` (domains included, division-free).
    pub instances: UnionMap,
}

/// Tiles the band of `spaces[space]` (which must be live-out): its first `sizes.len()`
/// members, rectangularly.
pub fn tile_live_out(
    scop: &Scop,
    spaces: &[IterationSpace],
    space: usize,
    sizes: &[i64],
) -> Result<LiveOutTiling> {
    let s = spaces
        .get(space)
        .ok_or_else(|| Error::UnsupportedTree(format!("no iteration space {space}")))?;
    if s.kind != SpaceKind::LiveOut {
        return Err(Error::UnsupportedTree(format!(
            "iteration space {space} is not live-out"
        )));
    }
    let band = s.band().ok_or_else(|| {
        Error::UnsupportedTree(format!("live-out space {space} has no outer band"))
    })?;
    if sizes.is_empty() || sizes.len() > band.n_members() {
        return Err(Error::InvalidTileSize { size: 0 });
    }
    if let Some(&bad) = sizes.iter().find(|&&t| t <= 0) {
        return Err(Error::InvalidTileSize { size: bad });
    }
    let n = band.n_members();
    let k = sizes.len();
    let floors = floor_map(n, sizes)?;
    let relation = tile_relation(sizes);
    let mut tile = UnionMap::empty(scop.params.clone());
    let mut instances = UnionMap::empty(scop.params.clone());
    for name in &s.statements {
        let phi = band_map(band, scop, name)?;
        tile.add_map(phi.apply_range(&floors)?)?;
        let leading = phi.project_out(DimKind::Out, k, n - k)?;
        instances.add_map(leading.apply_range(&relation)?.reverse())?;
    }
    Ok(LiveOutTiling {
        space,
        sizes: sizes.to_vec(),
        tile,
        instances,
    })
}

/// The tiles of an intermediate space fused into the live-out tiles.
#[derive(Clone, Debug)]
pub struct ProducerTile {
    /// The position of the space among the top-level filters.
    pub space: usize,
    /// Its statements.
    pub statements: Vec<String>,
    /// The extension: `{ [o] -> S[i] }`, the instances each tile runs.
    pub extension: UnionMap,
    /// The tiles' footprint on each tensor the space writes (`{ [o] -> A[x] }`).
    pub footprints: BTreeMap<String, Map>,
}

/// The tiles of the intermediate spaces that feed `tiling`'s tiles, from the last
/// space backwards; spaces no tile reads from are left out. The result is in program
/// order.
pub fn producer_tiles(
    scop: &Scop,
    spaces: &[IterationSpace],
    tiling: &LiveOutTiling,
    budget: &mut Budget,
) -> Result<Vec<ProducerTile>> {
    let mut footprint: BTreeMap<String, Map> = BTreeMap::new();
    for m in tiling.instances.maps() {
        let name = range_name(m)?;
        add_reads(&mut footprint, m, statement(scop, &name)?, budget)?;
    }
    let mut out = Vec::new();
    for (p, space) in spaces.iter().enumerate().take(tiling.space).rev() {
        if space.kind != SpaceKind::Intermediate {
            continue;
        }
        let Some(ext) = slice(scop, space, &footprint, budget)? else {
            continue;
        };
        let mut own = BTreeMap::new();
        for a in &space.writes {
            if let Some(f) = footprint.get(a) {
                own.insert(a.clone(), f.clone());
            }
        }
        for m in ext.maps() {
            let name = range_name(m)?;
            add_reads(&mut footprint, m, statement(scop, &name)?, budget)?;
        }
        out.push(ProducerTile {
            space: p,
            statements: space.statements.clone(),
            extension: ext,
            footprints: own,
        });
    }
    out.reverse();
    Ok(out)
}

/// The instances of `space` the footprint needs, as whole band points, or `None` when
/// the tiles need none of them.
fn slice(
    scop: &Scop,
    space: &IterationSpace,
    footprint: &BTreeMap<String, Map>,
    budget: &mut Budget,
) -> Result<Option<UnionMap>> {
    // Per statement: the instances writing the footprint.
    let mut needed: BTreeMap<String, Map> = BTreeMap::new();
    for name in &space.statements {
        let s = statement(scop, name)?;
        for w in s.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
            let Some(f) = footprint.get(&w.array) else {
                continue;
            };
            let writes = w.relation.intersect_domain(s.domain.as_map())?;
            let m = f.apply_range(&writes.reverse())?;
            if m.is_empty_with(budget)? {
                continue;
            }
            let joined = match needed.remove(name) {
                Some(old) => old.union(&m)?,
                None => m,
            };
            needed.insert(name.clone(), joined);
        }
    }
    if needed.is_empty() {
        return Ok(None);
    }
    let mut ext = UnionMap::empty(scop.params.clone());
    match space.band() {
        Some(band) => {
            // Whole band points: { [o] -> [p] }, widened to one rectangular piece.
            let mut points: Option<Map> = None;
            for (name, m) in &needed {
                let p = m.apply_range(&band_map(band, scop, name)?)?;
                points = Some(match points {
                    Some(q) => q.union(&p)?,
                    None => p,
                });
            }
            let Some(points) = points else {
                return Ok(None);
            };
            let points = widen(&points, budget)?;
            for name in &space.statements {
                let back = band_map(band, scop, name)?.reverse();
                let m = tidy(&points.apply_range(&back)?, budget)?;
                if !m.is_empty_with(budget)? {
                    ext.add_map(m)?;
                }
            }
        }
        None => {
            for m in needed.values() {
                ext.add_map(tidy(m, budget)?)?;
            }
        }
    }
    Ok(Some(ext))
}

/// Adds the reads of the instances `{ [o] -> S[i] }` to the footprint.
fn add_reads(
    footprint: &mut BTreeMap<String, Map>,
    instances: &Map,
    s: &Statement,
    budget: &mut Budget,
) -> Result<()> {
    for r in s.accesses.iter().filter(|a| a.kind == AccessKind::Read) {
        let f = instances.apply_range(&r.relation)?;
        if f.is_empty_with(budget)? {
            continue;
        }
        let joined = match footprint.remove(&r.array) {
            Some(old) => old.union(&f)?.coalesce_with(budget)?,
            None => f.coalesce_with(budget)?,
        };
        footprint.insert(r.array.clone(), joined);
    }
    Ok(())
}

/// The number of pairs of `m` (each statement instance counted once per tile that runs
/// it) at the given parameter values.
pub fn instance_count(m: &UnionMap, values: &[(&str, i64)]) -> Result<Int> {
    let mut total = Int::zero();
    for map in m.maps() {
        total += &fixed(map, values)?.card()?;
    }
    Ok(total)
}

/// The number of points of `s` at the given parameter values.
pub fn point_count(s: &UnionSet, values: &[(&str, i64)]) -> Result<Int> {
    instance_count(s.as_union_map(), values)
}

/// `m` with its parameters fixed to `values` and projected out.
fn fixed(m: &Map, values: &[(&str, i64)]) -> Result<Map> {
    let names: Vec<String> = m.space().param_names().to_vec();
    let mut out = m.clone();
    for (k, name) in names.iter().enumerate() {
        let v = values
            .iter()
            .find(|(n, _)| n == name)
            .ok_or_else(|| Error::UnsupportedTree(format!("no value for parameter {name}")))?;
        out = out.fix_val(DimKind::Param, k, &Int::from(v.1))?;
    }
    Ok(out.project_out(DimKind::Param, 0, names.len())?)
}

/// `{ [p] -> [floor(p_k / T_k)] }` for the first `sizes.len()` of `n` members.
fn floor_map(n: usize, sizes: &[i64]) -> Result<Map> {
    use std::fmt::Write;
    let inputs: Vec<String> = (0..n).map(|k| format!("p{k}")).collect();
    let mut outs = String::new();
    for (k, t) in sizes.iter().enumerate() {
        if k > 0 {
            outs.push_str(", ");
        }
        write!(outs, "floor(p{k} / {t})").ok();
    }
    let text = format!("{{ [{}] -> [{outs}] }}", inputs.join(", "));
    Ok(pollen_presburger::text::parse_map(&text)?)
}

/// The band's schedule of one statement, on its domain, with an anonymous range.
pub(crate) fn band_map(band: &Band, scop: &Scop, name: &str) -> Result<Map> {
    let m = band
        .schedule
        .maps()
        .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(name))
        .ok_or_else(|| Error::UnsupportedTree(format!("the band does not schedule {name}")))?;
    let s = statement(scop, name)?;
    Ok(anonymous_range(&m.intersect_domain(s.domain.as_map())?))
}

pub(crate) fn statement<'a>(scop: &'a Scop, name: &str) -> Result<&'a Statement> {
    scop.statement(name).ok_or_else(|| {
        Error::Scop(pollen_scop::Error::Invalid(format!(
            "the schedule names the unknown statement {name}"
        )))
    })
}

fn range_name(m: &Map) -> Result<String> {
    m.space()
        .range_tuple()
        .and_then(|t| t.name())
        .map(str::to_string)
        .ok_or_else(|| Error::UnsupportedTree("an instance map without a statement name".into()))
}

/// The tensors written in `scop` that only the statements writing them read (an
/// accumulation reads its own tensor): the outputs of a fused operator, AKG's
/// live-out tensors when none are named.
pub fn sinks(scop: &Scop) -> BTreeSet<String> {
    let mut written = BTreeSet::new();
    let mut read_elsewhere = BTreeSet::new();
    for s in &scop.statements {
        let writes: BTreeSet<&str> = s
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Write)
            .map(|a| a.array.as_str())
            .collect();
        for a in &s.accesses {
            if a.kind == AccessKind::Write {
                written.insert(a.array.clone());
            } else if !writes.contains(a.array.as_str()) {
                read_elsewhere.insert(a.array.clone());
            }
        }
    }
    written.difference(&read_elsewhere).cloned().collect()
}

/// The fusion groups of the reverse strategy, one per live-out space from the last
/// backwards: the space's statements and those of the intermediate spaces its tiles
/// need (transitively, each claimed by the first group that needs it), in program
/// order. Spaces without an outer band form no group.
pub fn fusion_groups(
    scop: &Scop,
    spaces: &[IterationSpace],
    budget: &mut Budget,
) -> Result<Vec<Vec<String>>> {
    let mut claimed: BTreeSet<usize> = BTreeSet::new();
    let mut groups = Vec::new();
    for (k, space) in spaces.iter().enumerate().rev() {
        if space.kind != SpaceKind::LiveOut {
            continue;
        }
        let Some(band) = space.band() else {
            continue;
        };
        let sizes = vec![32; band.n_members()];
        let tiling = tile_live_out(scop, spaces, k, &sizes)?;
        let mut members: Vec<usize> = producer_tiles(scop, spaces, &tiling, budget)?
            .into_iter()
            .map(|p| p.space)
            .filter(|p| !claimed.contains(p))
            .collect();
        claimed.extend(members.iter().copied());
        members.push(k);
        members.sort_unstable();
        let statements = members
            .iter()
            .flat_map(|&m| spaces[m].statements.iter().cloned())
            .collect();
        groups.push(statements);
    }
    groups.reverse();
    Ok(groups)
}
