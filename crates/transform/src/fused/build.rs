//! The construction of a fused program (see the module documentation of `fused`).

use std::collections::{BTreeMap, BTreeSet};

use pollen_arith::Int;
use pollen_deps::{DepKind, Dependence};
use pollen_presburger::{BasicMap, Budget, Map, Set, Space, Tuple, UnionMap, UnionSet};
use pollen_scop::{Access, AccessKind, Array, Band, Node, ScheduleTree, Scop, Statement};

use super::check::{self, Origin};
use super::window::{window, Extent};
use super::{FuseOptions, Fused, FusedStage, Group, Linear, Relocation, Scratch};
use crate::error::{Error, Result};
use crate::maps::anonymous_range;

/// One stage: a top-level filter of the unfused schedule.
#[derive(Clone, Debug)]
pub(crate) struct Stage {
    /// Its statements.
    pub statements: Vec<String>,
    /// The filter.
    pub filter: UnionSet,
    /// The subtree below the filter.
    pub subtree: Node,
}

impl Stage {
    /// The stage's outermost band, when its subtree starts with one.
    pub fn band(&self) -> Option<&Band> {
        match &self.subtree {
            Node::Band(b) if b.n_members() > 0 => Some(b),
            _ => None,
        }
    }
}

/// A fused producer under construction: its stage, its extension per statement
/// (`{ [o] -> S[i] }`) and the windows of its arrays.
type Sliced = (usize, BTreeMap<String, Map>, BTreeMap<String, Vec<Extent>>);

/// The most values a band member may have to be tiled whole.
const SMALL_EXTENT: i64 = 4;

/// Per member of the first `k` of the stage's band: its number of values when it takes
/// constant values only (`0 <= c <= 2`), over all of the stage's statements.
fn member_extents(
    scop: &Scop,
    stage: &Stage,
    k: usize,
    budget: &mut Budget,
) -> Result<Vec<Option<i64>>> {
    let Some(band) = stage.band() else {
        return Ok(vec![None; k]);
    };
    let mut ranges: Vec<Map> = Vec::new();
    for name in &stage.statements {
        let Some(m) = band.schedule.maps().find(|m| tuple_name(m) == Some(name)) else {
            continue;
        };
        let s = statement(scop, name)?;
        ranges.push(anonymous_range(&m.intersect_domain(s.domain.as_map())?).range());
    }
    let mut out = vec![None; k];
    for (j, e) in out.iter_mut().enumerate() {
        *e = constant_bounds(&ranges, j, budget)?.map(|(lo, hi)| hi - lo + 1);
    }
    Ok(out)
}

/// Each producer's slice may spend at most this fraction of the budget [`fuse`] is given.
const SLICE_SHARE: u64 = 8;

/// A group under construction.
struct Building {
    output: usize,
    sizes: Vec<i64>,
    /// Per statement of the group: `{ S[i] -> [o] }` (the output's tiles; the reverse of
    /// a producer's extension).
    tiles: BTreeMap<String, Map>,
    /// Fused producers, latest stage first, with their extensions and windows.
    producers: Vec<Sliced>,
    /// Producers left out because slicing them ran past their share of the budget.
    over_budget: Vec<usize>,
    /// Producers left out because their halos are over the redundancy bound.
    too_redundant: Vec<usize>,
    /// Fused producers with consumers outside the group (duplicable stages, which
    /// other groups, or the stage itself, compute too).
    duplicates: BTreeSet<usize>,
}

/// Fuses the producers of every tilable output stage of `tree` (a schedule without
/// fusion of `scop`, whose top-level filters are the stages) into the output's tiles.
/// `deps` are the scop's dependences (the flow ones say which stage consumes which).
/// The result passes [`check::check`].
pub fn fuse(
    scop: &Scop,
    deps: &[Dependence],
    tree: &ScheduleTree,
    options: &FuseOptions,
    budget: &mut Budget,
) -> Result<Fused> {
    let slice_steps = budget.remaining().map(|steps| steps / SLICE_SHARE);
    let stages = pipeline_stages(scop, deps, tree, budget)?;
    let stage_of: BTreeMap<&str, usize> = stages
        .iter()
        .enumerate()
        .flat_map(|(k, s)| s.statements.iter().map(move |n| (n.as_str(), k)))
        .collect();
    let mut consumers: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); stages.len()];
    for d in deps.iter().filter(|d| d.kind == DepKind::Flow) {
        if let (Some(&s), Some(&t)) = (
            stage_of.get(d.source.as_str()),
            stage_of.get(d.target.as_str()),
        ) {
            if s != t {
                consumers[s].insert(t);
            }
        }
    }
    let mut writers: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for s in &scop.statements {
        for a in s.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
            if let Some(&k) = stage_of.get(s.name.as_str()) {
                writers.entry(a.array.clone()).or_default().insert(k);
            }
        }
    }

    // With a given grouping, each group's last stage is its output and only the
    // group's other stages may be fused into it, with the group's tile sizes.
    let mut given: BTreeMap<usize, (BTreeSet<usize>, Option<Vec<i64>>)> = BTreeMap::new();
    if let Some(groups) = &options.groups {
        for g in groups {
            let members: BTreeSet<usize> = g
                .statements
                .iter()
                .filter_map(|n| stage_of.get(n.as_str()).copied())
                .collect();
            if let Some(&last) = members.iter().next_back() {
                given.insert(last, (members, g.tile_sizes.clone()));
            }
        }
    }
    // Stages that compute from the region's inputs alone, into arrays dead after the
    // region: any group may recompute them, so several groups may each fuse one.
    let live = |a: &str| options.live_out.as_ref().is_none_or(|l| l.contains(a));
    let mut duplicable = vec![false; stages.len()];
    if options.groups.is_none() {
        for (k, stage) in stages.iter().enumerate() {
            let mut ok = true;
            for name in &stage.statements {
                for a in &statement(scop, name)?.accesses {
                    ok &= match a.kind {
                        AccessKind::Write => !live(&a.array),
                        _ => !writers.contains_key(&a.array),
                    };
                }
            }
            duplicable[k] = ok;
        }
    }
    // Stages whose consumers read disjoint parts of what they write, into arrays dead
    // after the region (basteln's Algorithm 4, the disjoint case (21)): each consumer's
    // group may compute its own part, without redundancy. Those that end up computed
    // whole as well, or with overlapping slices, are withdrawn and the grouping redone.
    let mut shareable = vec![false; stages.len()];
    if options.groups.is_none() {
        for (k, stage) in stages.iter().enumerate() {
            shareable[k] = !duplicable[k]
                && consumers[k].len() >= 2
                && disjoint_reads(scop, deps, stage, &stages, &consumers[k], &live, budget)?;
        }
    }
    loop {
        // Per duplicable stage, its consumers that are in a group recomputing it.
        let mut recomputed_for: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); stages.len()];
        let mut elided: BTreeSet<usize> = BTreeSet::new();
        let mut assigned = vec![false; stages.len()];
        let mut groups: Vec<Building> = Vec::new();
        for o in (0..stages.len()).rev() {
            if assigned[o] {
                continue;
            }
            // A recomputed stage all of whose consumers recompute it is never run whole.
            if (duplicable[o] || shareable[o])
                && !consumers[o].is_empty()
                && consumers[o].is_subset(&recomputed_for[o])
            {
                elided.insert(o);
                continue;
            }
            let allowed = given.get(&o);
            if options.groups.is_some() && allowed.is_none() {
                continue;
            }
            let Some(band) = stages[o].band() else {
                continue;
            };
            // The leading parallel members are tiled: the tiles then run in any order,
            // each with its own windows; a sequential member stays inside the tiles.
            let k = band.coincident.iter().take_while(|&&c| c).count();
            if !band.permutable || k == 0 {
                continue;
            }
            let given_sizes = match allowed.and_then(|(_, sizes)| sizes.as_ref()) {
                Some(sizes) if sizes.len() >= band.n_members() => {
                    let first = sizes.len() - band.n_members();
                    Some(sizes[first..first + k].to_vec())
                }
                Some(sizes) => Some(sizes.clone()),
                None => options.tile_sizes.clone(),
            };
            let context = Context {
                scop,
                deps,
                stages: &stages,
                consumers: &consumers,
                writers: &writers,
                assigned: &assigned,
                duplicable: &duplicable,
                shareable: &shareable,
                allowed: allowed.map(|(group, _)| group),
                slice_steps,
                max_stages: if allowed.is_some() {
                    usize::MAX
                } else {
                    options.max_stages.max(1)
                },
                max_redundancy: options.max_redundancy,
            };
            let building = match (given_sizes, options.footprint_bytes) {
                (Some(sizes), _) => context.group(o, k, tile_sizes(&Some(sizes), k)?, budget)?,
                (None, None) => context.group(o, k, tile_sizes(&None, k)?, budget)?,
                (None, Some(limit)) => {
                    // The largest tiles whose windows fit the footprint (the innermost member
                    // 128 wide, the one outside it from 64 down, the others 1, or all of a
                    // member with a few constant values: the channels of an image, which
                    // producers without them would otherwise compute once per channel).
                    let extents = member_extents(scop, &stages[o], k, budget)?;
                    let mut chosen = None;
                    for outer in [64, 32, 16, 8, 4, 2, 1] {
                        let sizes: Vec<i64> = (0..k)
                            .map(|j| match k - 1 - j {
                                0 => 128,
                                1 => outer,
                                _ => extents[j].filter(|&e| e <= SMALL_EXTENT).unwrap_or(1),
                            })
                            .collect();
                        let b = context.group(o, k, sizes, budget)?;
                        let fits = b.window_bytes(scop) <= limit;
                        chosen = Some(b);
                        if fits || k == 1 {
                            break;
                        }
                    }
                    chosen.expect("at least one candidate")
                }
            };
            assigned[o] = true;
            let mut members: BTreeSet<usize> =
                building.producers.iter().map(|(p, _, _)| *p).collect();
            members.insert(o);
            for (p, _, _) in &building.producers {
                if building.duplicates.contains(p) {
                    recomputed_for[*p].extend(consumers[*p].intersection(&members));
                } else {
                    assigned[*p] = true;
                }
            }
            groups.push(building);
        }
        // A shared stage must be computed by its consumers' groups alone, in disjoint
        // parts; otherwise it is not shared.
        let mut withdrawn = false;
        let shared: Vec<usize> = (0..stages.len()).filter(|&p| shareable[p]).collect();
        for p in shared {
            let slices: Vec<&BTreeMap<String, Map>> = groups
                .iter()
                .flat_map(|g| g.producers.iter())
                .filter(|(q, _, _)| *q == p)
                .map(|(_, extension, _)| extension)
                .collect();
            if slices.is_empty() {
                continue;
            }
            if !elided.contains(&p) || !pairwise_disjoint(&slices, budget)? {
                shareable[p] = false;
                withdrawn = true;
            }
        }
        if !withdrawn {
            groups.reverse();
            return rewrite(scop, deps, &stages, groups, &elided, options, budget);
        }
    }
}

/// Whether the consumers of `stage` (at least two) read pairwise disjoint sets of its
/// instances, and it writes only arrays dead after the region: the precondition of
/// computing each consumer's part in the consumer's group (basteln's (21)).
fn disjoint_reads(
    scop: &Scop,
    deps: &[Dependence],
    stage: &Stage,
    stages: &[Stage],
    consumers: &BTreeSet<usize>,
    live: &dyn Fn(&str) -> bool,
    budget: &mut Budget,
) -> Result<bool> {
    for name in &stage.statements {
        let s = statement(scop, name)?;
        if s.accesses
            .iter()
            .any(|a| a.kind == AccessKind::Write && live(&a.array))
        {
            return Ok(false);
        }
        // Per consumer, the instances of `s` it reads.
        let mut read: Vec<Set> = Vec::new();
        for &c in consumers {
            let mut set: Option<Set> = None;
            for d in deps.iter().filter(|d| {
                d.kind == DepKind::Flow
                    && d.source == *name
                    && stages[c].statements.contains(&d.target)
            }) {
                let dom = Set::from_map(d.relation.domain())?;
                set = Some(match set {
                    Some(x) => x.union(&dom)?,
                    None => dom,
                });
            }
            if let Some(set) = set {
                read.push(set);
            }
        }
        for i in 0..read.len() {
            for j in i + 1..read.len() {
                if !read[i].intersect(&read[j])?.is_empty_with(budget)? {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// Whether the instances the extensions compute (per statement, over all tiles) are
/// pairwise disjoint.
fn pairwise_disjoint(slices: &[&BTreeMap<String, Map>], budget: &mut Budget) -> Result<bool> {
    for i in 0..slices.len() {
        for j in i + 1..slices.len() {
            for (name, e) in slices[i] {
                let Some(f) = slices[j].get(name) else {
                    continue;
                };
                let both = Set::from_map(e.range())?.intersect(&Set::from_map(f.range())?)?;
                if !both.is_empty_with(budget)? {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// What building one group needs to know of the program.
struct Context<'a> {
    scop: &'a Scop,
    deps: &'a [Dependence],
    stages: &'a [Stage],
    consumers: &'a [BTreeSet<usize>],
    writers: &'a BTreeMap<String, BTreeSet<usize>>,
    assigned: &'a [bool],
    /// Stages any group may recompute (see [`fuse`]).
    duplicable: &'a [bool],
    /// Stages each consumer's group may compute its disjoint part of (see [`fuse`]).
    shareable: &'a [bool],
    /// The stages a given grouping allows in the group.
    allowed: Option<&'a BTreeSet<usize>>,
    /// The most stages a group may hold.
    max_stages: usize,
    /// The most elements a producer's window may hold per element of its tile's share
    /// (numerator, denominator).
    max_redundancy: Option<(i64, i64)>,
    /// The steps one producer's slice may take (`None`: unbounded).
    slice_steps: Option<u64>,
}

impl Context<'_> {
    /// Whether stage `p` reads an array that a stage of `members` writes.
    fn reads_group_output(&self, p: usize, members: &BTreeSet<usize>) -> Result<bool> {
        let mut written: BTreeSet<&str> = BTreeSet::new();
        for &m in members {
            for name in &self.stages[m].statements {
                for a in &statement(self.scop, name)?.accesses {
                    if a.kind == AccessKind::Write {
                        written.insert(&a.array);
                    }
                }
            }
        }
        for name in &self.stages[p].statements {
            let s = statement(self.scop, name)?;
            if s.accesses
                .iter()
                .any(|a| a.kind == AccessKind::Read && written.contains(a.array.as_str()))
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The group of output stage `o` with its first `k` band members tiled by `sizes`:
    /// every unassigned earlier stage that can be sliced into it, from the latest.
    fn group(&self, o: usize, k: usize, sizes: Vec<i64>, budget: &mut Budget) -> Result<Building> {
        let scop = self.scop;
        let band = self.stages[o].band().expect("outputs have bands");
        let mut building = Building {
            output: o,
            sizes: sizes.clone(),
            tiles: BTreeMap::new(),
            producers: Vec::new(),
            over_budget: Vec::new(),
            too_redundant: Vec::new(),
            duplicates: BTreeSet::new(),
        };
        let tiling = tile_relation(&sizes);
        for name in &self.stages[o].statements {
            let Some(m) = band.schedule.maps().find(|m| tuple_name(m) == Some(name)) else {
                continue;
            };
            let s = statement(scop, name)?;
            let phi = anonymous_range(&m.intersect_domain(s.domain.as_map())?);
            let n = phi.space().n_out();
            let t = phi
                .project_out(pollen_presburger::DimKind::Out, k, n - k)?
                .apply_range(&tiling)?;
            building.tiles.insert(name.clone(), t);
        }
        let mut members: BTreeSet<usize> = BTreeSet::from([o]);
        for p in (0..o).rev() {
            // Recomputed stages read only inputs: they add no chain to compose and may
            // join a full group.
            if members.len() >= self.max_stages && !self.duplicable[p] {
                continue;
            }
            let consumers = &self.consumers[p];
            if self.assigned[p] || consumers.is_empty() {
                continue;
            }
            // A producer of a shared member computes for that member's other groups
            // too: it must be recomputable there as well.
            let duplicate = !consumers.is_subset(&members)
                || consumers.iter().any(|c| building.duplicates.contains(c));
            if duplicate && !self.duplicable[p] && !self.shareable[p] {
                continue;
            }
            if self.allowed.is_some_and(|group| !group.contains(&p)) {
                continue;
            }
            // Moving the producer down to the output must cross no stage it depends on
            // either way, and its tiles must not read what the group overwrites (other
            // tiles may have overwritten it already). A recomputed stage reads inputs
            // only and writes windows only: its copy may go anywhere.
            // A shared stage's flows to its consumers do not count: each consumer's
            // group computes the part it reads (or the stage is withdrawn).
            let crosses = !self.duplicable[p]
                && (p + 1..o).filter(|q| !members.contains(q)).any(|q| {
                    self.deps.iter().any(|d| {
                        let (a, b) = (&self.stages[p].statements, &self.stages[q].statements);
                        let forward = a.contains(&d.source) && b.contains(&d.target);
                        let backward = b.contains(&d.source) && a.contains(&d.target);
                        let shared_flow = self.shareable[p] && forward && d.kind == DepKind::Flow;
                        (forward || backward) && !shared_flow
                    })
                });
            if crosses || self.reads_group_output(p, &members)? {
                continue;
            }
            // Each producer's slice gets a share of the budget: one whose footprint
            // is too costly to compute (long chains through resampling) stays out of
            // the group instead of exhausting the whole budget.
            let share = self
                .slice_steps
                .zip(budget.remaining())
                .map(|(share, left)| share.min(left));
            let mut own = share.map_or_else(Budget::unlimited, Budget::new);
            let sliced = slice(scop, &self.stages[p], &building, self.writers, p, &mut own);
            if let (Some(share), Some(left)) = (share, own.remaining()) {
                budget.tick(share - left)?;
            }
            let sliced = match sliced {
                Err(Error::LimitExceeded) => {
                    building.over_budget.push(p);
                    continue;
                }
                other => other?,
            };
            if let Some((extension, windows)) = sliced {
                if self
                    .max_redundancy
                    .is_some_and(|bound| !within_redundancy(&windows, bound))
                {
                    building.too_redundant.push(p);
                    continue;
                }
                for (name, e) in &extension {
                    building.tiles.insert(name.clone(), e.reverse());
                }
                building.producers.push((p, extension, windows));
                if duplicate {
                    building.duplicates.insert(p);
                }
                members.insert(p);
            }
        }
        Ok(building)
    }
}

impl Building {
    /// The bytes of the producers' windows of one tile.
    fn window_bytes(&self, scop: &Scop) -> u64 {
        let mut total: u64 = 0;
        for (_, _, windows) in &self.producers {
            for (a, w) in windows {
                let elements: u64 = w
                    .iter()
                    .map(|e| u64::try_from(e.extent).unwrap_or(u64::MAX))
                    .fold(1, u64::saturating_mul);
                let bytes = scop.array(a).map_or(8, |x| element_bytes(&x.element_type));
                total = total.saturating_add(elements.saturating_mul(bytes));
            }
        }
        total
    }
}

/// Whether every window of a producer holds at most `num / den` times its share of the
/// tile: the product of its extents along the dimensions that move with the tiles,
/// over the product of those dimensions' steps from one tile to the next. The rest is
/// recomputed by neighbouring tiles (the halo), and it grows with every stencil and
/// every resampling along a chain of producers. Dimensions that do not move with the
/// tiles (a tile covering all of them, as image channels, or a small table every tile
/// reads whole) count as their extent on both sides.
fn within_redundancy(windows: &BTreeMap<String, Vec<Extent>>, (num, den): (i64, i64)) -> bool {
    windows.values().all(|w| {
        let mut elements = Int::from(1);
        let mut share = Int::from(1);
        for e in w {
            let step = e
                .tile
                .iter()
                .map(Int::abs)
                .max()
                .unwrap_or_else(|| Int::from(0));
            if step.is_zero() {
                continue;
            }
            elements *= Int::from(e.extent);
            share *= step;
        }
        elements * Int::from(den) <= share * Int::from(num)
    })
}

/// The size of a C element type in bytes (8 when unknown).
pub(crate) fn element_bytes(element_type: &str) -> u64 {
    match element_type.trim() {
        "char" | "signed char" | "unsigned char" => 1,
        "short" | "unsigned short" => 2,
        "float" | "int" | "unsigned" | "unsigned int" => 4,
        _ => 8,
    }
}

/// The arrays of group `g`'s output stage that can live in windows: not live out (a
/// live-out list is given and does not name them), written and read by the output stage
/// only, each tile reading only elements it writes, typed, with constant-size windows.
fn output_windows(
    scop: &Scop,
    output: &Stage,
    g: &Building,
    options: &FuseOptions,
    budget: &mut Budget,
) -> Result<Vec<(String, Vec<Extent>)>> {
    let Some(live) = &options.live_out else {
        return Ok(Vec::new());
    };
    let mut arrays: BTreeSet<String> = BTreeSet::new();
    for name in &output.statements {
        for a in &statement(scop, name)?.accesses {
            if a.kind == AccessKind::Write && !live.contains(&a.array) {
                arrays.insert(a.array.clone());
            }
        }
    }
    let mut out = Vec::new();
    'arrays: for a in arrays {
        if scop
            .array(&a)
            .is_none_or(|x| x.element_type.is_empty() || x.local)
        {
            continue;
        }
        let mut writes: Option<Map> = None;
        let mut reads: Option<Map> = None;
        for s in &scop.statements {
            for x in s.accesses.iter().filter(|x| x.array == a) {
                if !output.statements.contains(&s.name) {
                    continue 'arrays;
                }
                let Some(t) = g.tiles.get(&s.name) else {
                    continue 'arrays;
                };
                let m = t.reverse().apply_range(&x.relation)?;
                let slot = if x.kind == AccessKind::Write {
                    &mut writes
                } else {
                    &mut reads
                };
                *slot = Some(match slot.take() {
                    None => m,
                    Some(y) => y.union(&m)?,
                });
            }
        }
        let Some(writes) = writes else { continue };
        if let Some(reads) = reads {
            if !reads.is_subset_with(&writes, budget)? {
                continue;
            }
        }
        if let Some(w) = window(&writes, budget)? {
            out.push((a, w));
        }
    }
    Ok(out)
}

/// `{ [p] -> [o] : T_k o_k <= p_k <= T_k o_k + T_k - 1 }`: the tiles of a band, written
/// with inequalities only (no division), so that the extensions composed from it stay
/// division-free and code generation scans them without guards.
pub(crate) fn tile_relation(sizes: &[i64]) -> Map {
    let n = sizes.len();
    let space = Space::map(Vec::new(), Tuple::anonymous(n), Tuple::anonymous(n));
    let mut b = BasicMap::universe(space);
    for (k, &s) in sizes.iter().enumerate() {
        let (p, o) = (1 + k, 1 + n + k);
        let mut low = b.zero_row();
        low[p] = Int::one();
        low[o] = -Int::from(s);
        b.add_ineq(low);
        let mut high = b.zero_row();
        high[p] = -Int::one();
        high[o] = Int::from(s);
        high[0] = Int::from(s - 1);
        b.add_ineq(high);
    }
    Map::from_basic(b)
}

/// The band points a producer's tiles compute: `points` widened to their simple hull
/// over the same tiles (PolyMage's rectangular overlapped tiles). The exact points of a
/// chain of stencils are a diamond clipped by the domain, many pieces whose
/// compositions multiply down the chain; the hull recomputes a few more corner points
/// and stays one piece.
pub(crate) fn widen(points: &Map, budget: &mut Budget) -> Result<Map> {
    let m = points.coalesce_with(budget)?;
    if m.basic_maps().len() <= 1 {
        return Ok(m);
    }
    let tiles = m.domain().coalesce_with(budget)?;
    Ok(Map::from_basic(m.simple_hull_with(budget)?)
        .intersect_domain(&tiles)?
        .coalesce_with(budget)?)
}

/// `m` with as few pieces as possible: coalesced, and its simple hull when that is
/// exact (the union of a footprint's shifted pieces is usually a box, which code
/// generation then scans without guards).
pub(crate) fn tidy(m: &Map, budget: &mut Budget) -> Result<Map> {
    let m = m.coalesce_with(budget)?;
    if m.basic_maps().len() <= 1 {
        return Ok(m);
    }
    let tiles = Map::from_basic(m.domain().simple_hull_with(budget)?);
    let hull = Map::from_basic(m.simple_hull_with(budget)?).intersect_domain(&tiles)?;
    Ok(if hull.is_equal_with(&m, budget)? {
        hull
    } else {
        m
    })
}

/// The tile sizes of a band of `n` members.
fn tile_sizes(given: &Option<Vec<i64>>, n: usize) -> Result<Vec<i64>> {
    let sizes: Vec<i64> = match given {
        Some(given) if !given.is_empty() => (0..n).map(|k| given[k.min(given.len() - 1)]).collect(),
        Some(_) => return Err(Error::InvalidTileSize { size: 0 }),
        None => (0..n)
            .map(|k| match n - 1 - k {
                0 => 256,
                1 => 32,
                _ => 1,
            })
            .collect(),
    };
    if let Some(&bad) = sizes.iter().find(|&&s| s <= 0) {
        return Err(Error::InvalidTileSize { size: bad });
    }
    Ok(sizes)
}

/// The stages of a pipeline: the stages of its unfused schedule ([`stages`]), with
/// consecutive stages whose dependences are quasi-identities merged (basteln's
/// Algorithm 1, pre-tiling fusion).
///
/// Two stages are merged when every dependence between them relates band points that
/// are equal on all `k` members the bands have in common (`k` the narrower band's
/// width; the digest's Definition 4.1): the merged stage's band is those `k` members (parallel where every member's was; permutable as all were), over a sequence
/// of the stages' own remainders in order. An initialisation, its reduction and a
/// pointwise epilogue over the same output points (`C = 0`, `C += A * B` over a kernel
/// window, `C = relu(C)`) become one stage that fused tiling can tile as a whole.
/// Stages without any dependence between them merge only when they write a common
/// array with bands of the same width: the pieces of one function (its boundary and
/// its interior).
pub(crate) fn pipeline_stages(
    scop: &Scop,
    deps: &[Dependence],
    tree: &ScheduleTree,
    budget: &mut Budget,
) -> Result<Vec<Stage>> {
    let mut out: Vec<Stage> = Vec::new();
    for stage in stages(tree)? {
        out.push(stage);
        // The new stage, and every stage a merge produces, merges with the latest
        // earlier stage it can, until none is left.
        let mut at = out.len() - 1;
        while let Some(next) = absorb(scop, deps, &mut out, at, budget)? {
            at = next;
        }
    }
    Ok(out)
}

/// Merges `out[at]` into the latest earlier stage it can merge with, when the stages in
/// between (the scheduler may have put unrelated ones there) are independent of it
/// (it moves up) or of the earlier one (which moves down); the merged stage's index.
fn absorb(
    scop: &Scop,
    deps: &[Dependence],
    out: &mut Vec<Stage>,
    at: usize,
    budget: &mut Budget,
) -> Result<Option<usize>> {
    for j in (0..at).rev() {
        let between = &out[j + 1..at];
        let up = between.iter().all(|x| !depends(deps, x, &out[at]));
        let down = between.iter().all(|x| !depends(deps, x, &out[j]));
        if !up && !down {
            continue;
        }
        if let Some(merged) = merge(scop, deps, &out[j], &out[at], budget)? {
            return Ok(Some(if up {
                out.remove(at);
                out[j] = merged;
                j
            } else {
                out[at] = merged;
                out.remove(j);
                at - 1
            }));
        }
    }
    Ok(None)
}

/// Whether stages `a` and `b` write a common array.
fn writes_common_array(scop: &Scop, a: &Stage, b: &Stage) -> Result<bool> {
    let written = |stage: &Stage| -> Result<BTreeSet<String>> {
        let mut out = BTreeSet::new();
        for name in &stage.statements {
            for x in &statement(scop, name)?.accesses {
                if x.kind == AccessKind::Write {
                    out.insert(x.array.clone());
                }
            }
        }
        Ok(out)
    };
    Ok(!written(a)?.is_disjoint(&written(b)?))
}

/// Whether a dependence relates statements of `a` and `b` (either way).
fn depends(deps: &[Dependence], a: &Stage, b: &Stage) -> bool {
    deps.iter().any(|d| {
        (a.statements.contains(&d.source) && b.statements.contains(&d.target))
            || (b.statements.contains(&d.source) && a.statements.contains(&d.target))
    })
}

/// `a` and `b` as one stage, when their dependences are quasi-identities.
fn merge(
    scop: &Scop,
    deps: &[Dependence],
    a: &Stage,
    b: &Stage,
    budget: &mut Budget,
) -> Result<Option<Stage>> {
    let (Some(ba), Some(bb)) = (a.band(), b.band()) else {
        return Ok(None);
    };
    if !ba.permutable || !bb.permutable {
        return Ok(None);
    }
    let phi = |band: &Band, name: &str| -> Result<Option<Map>> {
        let Some(m) = band.schedule.maps().find(|m| tuple_name(m) == Some(name)) else {
            return Ok(None);
        };
        let s = statement(scop, name)?;
        Ok(Some(anonymous_range(
            &m.intersect_domain(s.domain.as_map())?,
        )))
    };
    let k = ba.n_members().min(bb.n_members());
    let mut related = false;
    for d in deps {
        let (from, to) = if a.statements.contains(&d.source) && b.statements.contains(&d.target) {
            (ba, bb)
        } else {
            continue;
        };
        let (Some(ps), Some(pt)) = (phi(from, &d.source)?, phi(to, &d.target)?) else {
            return Ok(None);
        };
        // { φ_a(i) -> φ_b(j) } over the dependence's pairs, compared member by member.
        let points = d
            .relation
            .reverse()
            .apply_range(&ps)?
            .reverse()
            .apply_range(&pt)?;
        if points.is_empty_with(budget)? {
            continue;
        }
        related = true;
        let mut equal = 0;
        while equal < k {
            let n_in = points.space().n_in();
            let n_out = points.space().n_out();
            let pair = points
                .project_out(pollen_presburger::DimKind::In, equal + 1, n_in - equal - 1)?
                .project_out(pollen_presburger::DimKind::In, 0, equal)?
                .project_out(
                    pollen_presburger::DimKind::Out,
                    equal + 1,
                    n_out - equal - 1,
                )?
                .project_out(pollen_presburger::DimKind::Out, 0, equal)?;
            let apart = pair.intersect(
                &Map::lex_lt(&pair.domain().space().clone(), true)
                    .union(&Map::lex_lt(&pair.domain().space().clone(), true).reverse())?,
            )?;
            if !apart.is_empty_with(budget)? {
                break;
            }
            equal += 1;
        }
        // A quasi-identity equates every member the two bands have in common.
        if equal < k {
            return Ok(None);
        }
    }
    // Independent stages merge only as pieces of one function: bands of the same width
    // writing a common array (a boundary case and the interior, say).
    // Independent stages merge only as pieces of one function (bands of the same width
    // writing a common array: a boundary case and the interior, say), or as sibling
    // outputs reading a producer identically (basteln's Algorithm 4, the identical
    // case (22)): one group then computes the producer once for both.
    if !related
        && (ba.n_members() != bb.n_members()
            || !(writes_common_array(scop, a, b)?
                || sibling_outputs(scop, deps, (a, ba), (b, bb), &phi, budget)?))
    {
        return Ok(None);
    }
    // The merged band: the first k members of each; below it, each stage's rest.
    let mut schedule = UnionMap::empty(scop.params.clone());
    let mut children = Vec::new();
    for (stage, band) in [(a, ba), (b, bb)] {
        for m in band.schedule.maps() {
            let n = m.space().n_out();
            schedule.add_map(m.project_out(pollen_presburger::DimKind::Out, k, n - k)?)?;
        }
        let rest = if band.n_members() > k {
            let mut inner = UnionMap::empty(scop.params.clone());
            for m in band.schedule.maps() {
                inner.add_map(m.project_out(pollen_presburger::DimKind::Out, 0, k)?)?;
            }
            Node::Band(Band {
                schedule: inner,
                permutable: band.permutable,
                coincident: band.coincident[k..].to_vec(),
                child: band.child.clone(),
            })
        } else {
            (*band.child).clone()
        };
        children.push(Node::filter(stage.filter.clone(), rest));
    }
    let coincident: Vec<bool> = (0..k)
        .map(|j| ba.coincident[j] && bb.coincident[j])
        .collect();
    let mut statements = a.statements.clone();
    statements.extend(b.statements.iter().cloned());
    Ok(Some(Stage {
        statements,
        filter: a.filter.union(&b.filter)?,
        subtree: Node::Band(Band {
            schedule,
            permutable: true,
            coincident,
            child: Box::new(Node::Sequence(children)),
        }),
    }))
}

/// Whether independent stages `a` and `b` (bands of the same width) are sibling outputs
/// of a producer: neither has a consumer in the region, and for every array both read
/// that the region writes (there is at least one), each band point reads the same
/// elements of it in both: `{ φ_a(i) -> x : a reads x at i }` equals the same map of
/// `b`. Tiled together, each tile then needs the same slice of the producer for both.
fn sibling_outputs(
    scop: &Scop,
    deps: &[Dependence],
    (a, ba): (&Stage, &Band),
    (b, bb): (&Stage, &Band),
    phi: &dyn Fn(&Band, &str) -> Result<Option<Map>>,
    budget: &mut Budget,
) -> Result<bool> {
    let consumed = |stage: &Stage| {
        deps.iter().any(|d| {
            d.kind == DepKind::Flow
                && stage.statements.contains(&d.source)
                && !stage.statements.contains(&d.target)
        })
    };
    if consumed(a) || consumed(b) {
        return Ok(false);
    }
    let written: BTreeSet<&str> = scop
        .statements
        .iter()
        .flat_map(|s| s.accesses.iter())
        .filter(|x| x.kind == AccessKind::Write)
        .map(|x| x.array.as_str())
        .collect();
    // Per array the region writes, the band points' reads of it.
    let reads = |stage: &Stage, band: &Band| -> Result<BTreeMap<String, Map>> {
        let mut out: BTreeMap<String, Map> = BTreeMap::new();
        for name in &stage.statements {
            let Some(p) = phi(band, name)? else {
                continue;
            };
            for x in &statement(scop, name)?.accesses {
                if x.kind != AccessKind::Read || !written.contains(x.array.as_str()) {
                    continue;
                }
                let r = p.reverse().apply_range(&x.relation)?;
                let r = match out.remove(&x.array) {
                    Some(before) => before.union(&r)?,
                    None => r,
                };
                out.insert(x.array.clone(), r);
            }
        }
        Ok(out)
    };
    let (ra, rb) = (reads(a, ba)?, reads(b, bb)?);
    let mut common = 0;
    for (array, ma) in &ra {
        let Some(mb) = rb.get(array) else {
            continue;
        };
        if ma.is_empty_with(budget)? || !ma.is_equal(mb)? {
            return Ok(false);
        }
        common += 1;
    }
    Ok(common > 0)
}

/// The stages of an unfused schedule: the filters of its top-level sequence (or the
/// whole tree as one stage).
pub(crate) fn stages(tree: &ScheduleTree) -> Result<Vec<Stage>> {
    let Node::Domain { domain, child } = &tree.root else {
        return Err(Error::Scop(pollen_scop::Error::Invalid(
            "the schedule tree has no domain root".into(),
        )));
    };
    let mut child: &Node = child;
    while let Node::Context { child: c, .. } | Node::Mark { child: c, .. } = child {
        child = c;
    }
    let stage = |filter: &UnionSet, subtree: &Node| Stage {
        statements: filter.sets().filter_map(|s| set_name(&s)).collect(),
        filter: filter.clone(),
        subtree: subtree.clone(),
    };
    Ok(match child {
        Node::Sequence(children) => children
            .iter()
            .filter_map(|c| match c {
                Node::Filter { filter, child } => Some(stage(filter, child)),
                _ => None,
            })
            .collect(),
        other => vec![stage(domain, other)],
    })
}

/// The extension of producer stage `p` into the group's tiles and the windows of its
/// arrays, or `None` when it cannot be fused.
#[allow(clippy::type_complexity)]
fn slice(
    scop: &Scop,
    stage: &Stage,
    building: &Building,
    writers: &BTreeMap<String, BTreeSet<usize>>,
    p: usize,
    budget: &mut Budget,
) -> Result<Option<(BTreeMap<String, Map>, BTreeMap<String, Vec<Extent>>)>> {
    let Some(band) = stage.band() else {
        return Ok(None);
    };
    let mut arrays: BTreeSet<String> = BTreeSet::new();
    for name in &stage.statements {
        let s = statement(scop, name)?;
        for a in &s.accesses {
            if a.kind == AccessKind::Write {
                arrays.insert(a.array.clone());
            }
        }
    }
    for a in &arrays {
        let only_here = writers
            .get(a)
            .is_some_and(|w| w.len() == 1 && w.contains(&p));
        let typed = scop.array(a).is_some_and(|x| !x.element_type.is_empty());
        if !only_here || !typed || scop.array(a).is_some_and(|x| x.local) {
            return Ok(None);
        }
    }
    // The tiles' band points of the producer: { [o] -> [p] }.
    let phi = |name: &str| -> Result<Option<Map>> {
        let Some(m) = band.schedule.maps().find(|m| tuple_name(m) == Some(name)) else {
            return Ok(None);
        };
        let s = statement(scop, name)?;
        Ok(Some(anonymous_range(
            &m.intersect_domain(s.domain.as_map())?,
        )))
    };
    // The stage may read its own arrays only at the band point that writes them (a
    // stage merged from quasi-identities: `ixx = ix * ix` beside `ix = ...`), so that
    // whole band points in a tile compute what they read.
    for name in &stage.statements {
        let s = statement(scop, name)?;
        for read in s.accesses.iter().filter(|a| a.kind == AccessKind::Read) {
            if !arrays.contains(&read.array) {
                continue;
            }
            let Some(fr) = phi(name)? else {
                return Ok(None);
            };
            let read = read.relation.intersect_domain(s.domain.as_map())?;
            for w in &stage.statements {
                let ws = statement(scop, w)?;
                let Some(fw) = phi(w)? else {
                    return Ok(None);
                };
                for write in ws.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
                    if write.array
                        != read
                            .space()
                            .range_tuple()
                            .and_then(|t| t.name())
                            .unwrap_or_default()
                    {
                        continue;
                    }
                    // { φ(reader) -> φ(writer) } over the pairs through one element.
                    let pairs = read.apply_range(
                        &write
                            .relation
                            .intersect_domain(ws.domain.as_map())?
                            .reverse(),
                    )?;
                    let points = pairs
                        .reverse()
                        .apply_range(&fr)?
                        .reverse()
                        .apply_range(&fw)?;
                    let space = points.domain().space().clone();
                    let apart =
                        Map::lex_lt(&space, true).union(&Map::lex_lt(&space, true).reverse())?;
                    if !points.intersect(&apart)?.is_empty_with(budget)? {
                        return Ok(None);
                    }
                }
            }
        }
    }
    let mut points: Option<Map> = None;
    // What the group's tiles read of the producer's arrays: { [o] -> A[x] }.
    let mut footprints: BTreeMap<String, Map> = BTreeMap::new();
    for (reader, t) in &building.tiles {
        let s = statement(scop, reader)?;
        for read in s.accesses.iter().filter(|a| a.kind == AccessKind::Read) {
            if !arrays.contains(&read.array) {
                continue;
            }
            let footprint = t.reverse().apply_range(&read.relation)?;
            let merged = match footprints.remove(&read.array) {
                None => footprint.clone(),
                Some(f) => f.union(&footprint)?,
            };
            footprints.insert(read.array.clone(), merged);
            for name in &stage.statements {
                let w = statement(scop, name)?;
                let Some(f) = phi(name)? else {
                    return Ok(None);
                };
                for write in w.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
                    if write.array != read.array {
                        continue;
                    }
                    let written = write.relation.intersect_domain(w.domain.as_map())?;
                    let instances = footprint.apply_range(&written.reverse())?;
                    let p = instances.apply_range(&f)?;
                    points = Some(match points {
                        None => p,
                        Some(q) => q.union(&p)?,
                    });
                }
            }
        }
    }
    let Some(points) = points else {
        return Ok(None);
    };
    let points = widen(&points, budget)?;
    if points.is_empty_with(budget)? {
        return Ok(None);
    }
    let mut extension = BTreeMap::new();
    for name in &stage.statements {
        let Some(f) = phi(name)? else {
            return Ok(None);
        };
        let e = tidy(&points.apply_range(&f.reverse())?, budget)?;
        extension.insert(name.clone(), e);
    }
    let mut windows = BTreeMap::new();
    for a in &arrays {
        let mut written: Option<Map> = None;
        for (name, e) in &extension {
            let s = statement(scop, name)?;
            for w in s
                .accesses
                .iter()
                .filter(|x| x.kind == AccessKind::Write && &x.array == a)
            {
                let m = e.apply_range(&w.relation)?;
                written = Some(match written {
                    None => m,
                    Some(x) => x.union(&m)?,
                });
            }
        }
        let Some(written) = written else {
            return Ok(None);
        };
        // Every element a tile reads of the array must be one it computes: the tile's
        // references all go to the window.
        if let Some(read) = footprints.get(a) {
            if !read.is_subset_with(&written, budget)? {
                return Ok(None);
            }
        }
        match window(&written, budget)? {
            Some(w) => {
                windows.insert(a.clone(), w);
            }
            None => return Ok(None),
        }
    }
    Ok(Some((extension, windows)))
}

/// Names chosen for the new program.
struct Names {
    tile: Vec<String>,
    point_prefix: String,
    taken: BTreeSet<String>,
}

impl Names {
    fn new(scop: &Scop, k_max: usize) -> Names {
        let mut taken: BTreeSet<String> = BTreeSet::new();
        for s in &scop.statements {
            taken.extend(identifiers(&s.body));
            taken.extend(s.iterators.iter().cloned());
            taken.insert(s.name.clone());
        }
        taken.extend(scop.params.iter().cloned());
        taken.extend(scop.arrays.iter().map(|a| a.name.clone()));
        let tile: Vec<String> = (0..k_max).map(|k| format!("o{k}")).collect();
        let points: Vec<String> = (0..8).map(|k| format!("x{k}")).collect();
        let prefix = fresh_prefix(&tile, &taken, &["", "t_", "tile_", "pollen_"]);
        let point_prefix = fresh_prefix(&points, &taken, &["", "w_", "pollen_"]).to_string();
        let tile = tile.iter().map(|t| format!("{prefix}{t}")).collect();
        Names {
            tile,
            point_prefix,
            taken,
        }
    }

    /// A fresh name starting with `base`.
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 1;
        while self.taken.contains(&name) {
            name = format!("{base}{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

/// The new program of the groups.
fn rewrite(
    scop: &Scop,
    deps: &[Dependence],
    stages: &[Stage],
    groups: Vec<Building>,
    elided: &BTreeSet<usize>,
    options: &FuseOptions,
    budget: &mut Budget,
) -> Result<Fused> {
    let params = scop.params.clone();
    let k_max = groups.iter().map(|g| g.sizes.len()).max().unwrap_or(0);
    let mut names = Names::new(scop, k_max);
    let live = |a: &str| options.live_out.as_ref().is_none_or(|l| l.contains(a));

    let mut new_statements: Vec<Statement> = Vec::new();
    let mut arrays: Vec<Array> = scop.arrays.clone();
    let mut scratch: Vec<Scratch> = Vec::new();
    let mut origins: BTreeMap<String, Origin> = BTreeMap::new();
    let mut units: Vec<(usize, Node)> = Vec::new();
    let mut reports: Vec<Group> = Vec::new();
    let mut in_group: BTreeSet<usize> = BTreeSet::new();
    let mut relocations: Vec<Relocation> = Vec::new();

    for g in &groups {
        let k = g.sizes.len();
        let tile_names = &names.tile[..k].to_vec();
        in_group.insert(g.output);
        // Scratch arrays of the fused producers' arrays.
        let mut windows_of: BTreeMap<String, Window> = BTreeMap::new();
        let mut scratch_of: BTreeMap<String, usize> = BTreeMap::new();
        // The windows of the fused producers' arrays, then of the arrays the output
        // stage alone writes and reads, dead after the region (storage reduction inside
        // the output).
        let mut all_windows: Vec<(String, Vec<Extent>)> = g
            .producers
            .iter()
            .flat_map(|(_, _, windows)| windows.iter().map(|(a, w)| (a.clone(), w.clone())))
            .collect();
        all_windows.extend(output_windows(scop, &stages[g.output], g, options, budget)?);
        for (a, w) in all_windows {
            let Some(original) = scop.array(&a) else {
                continue;
            };
            let name = names.fresh(&format!("{a}_tile"));
            let origin: Vec<Linear> = w.iter().map(|e| origin(e, &params, tile_names)).collect();
            windows_of.insert(
                a.clone(),
                Window {
                    name: name.clone(),
                    origin,
                },
            );
            let mut extents = vec![String::new(); k];
            extents.extend(w.iter().map(|e| e.extent.to_string()));
            arrays.push(Array {
                name: name.clone(),
                element_type: original.element_type.clone(),
                extents,
                local: false,
            });
            scratch_of.insert(a.clone(), scratch.len());
            scratch.push(Scratch {
                name,
                array: a.clone(),
                element_type: original.element_type.clone(),
                extents: w.iter().map(|e| e.extent).collect(),
                statements: Vec::new(),
                tile_dims: k,
            });
        }

        let mut copies: Vec<(String, Map)> = Vec::new(); // copy name, its tile projection
        let mut sequence: Vec<Node> = Vec::new();
        let mut produced: Vec<FusedStage> = Vec::new();
        let mut reserved_units: Vec<Node> = Vec::new();
        // Producers run in program order, then the output.
        let mut order: Vec<usize> = g.producers.iter().map(|(p, _, _)| *p).collect();
        order.sort_unstable();
        for p in order {
            if !g.duplicates.contains(&p) {
                in_group.insert(p);
            }
            let (_, extension, windows) = g
                .producers
                .iter()
                .find(|(q, _, _)| *q == p)
                .expect("the producer was recorded");
            let stage = &stages[p];
            let mut lifts: BTreeMap<String, (String, Map)> = BTreeMap::new();
            let mut filter = UnionSet::empty(params.clone());
            let mut ext_union = UnionMap::empty(params.clone());
            let mut reserved = UnionSet::empty(params.clone());
            for name in &stage.statements {
                let s = statement(scop, name)?;
                let e = &extension[name];
                ext_union.add_map(e.clone())?;
                let (_, domain) = add_copy(
                    s,
                    e,
                    k,
                    tile_names,
                    &mut names,
                    &windows_of,
                    &mut Added {
                        statements: &mut new_statements,
                        origins: &mut origins,
                        relocations: &mut relocations,
                        scratch: &mut scratch,
                        scratch_of: &scratch_of,
                        arrays: &arrays,
                        copies: &mut copies,
                        lifts: &mut lifts,
                    },
                )?;
                filter.add_set(domain)?;
                // Instances no tile computes.
                let covered = Set::from_map(e.range())?;
                let rest = s.domain.subtract_with(&covered, budget)?;
                let writes_live = s
                    .accesses
                    .iter()
                    .any(|a| a.kind == AccessKind::Write && live(&a.array));
                if writes_live && !rest.is_empty_with(budget)? {
                    reserved.add_set(rest)?;
                }
            }
            let has_reserved = !reserved.is_empty()?;
            for r in reserved.sets() {
                let Some(name) = set_name(&r) else { continue };
                let mut original = statement(scop, &name)?.clone();
                original.domain = r;
                new_statements.push(original);
                origins.insert(name, Origin::Same);
            }
            if has_reserved {
                reserved_units.push(Node::filter(reserved, stage.subtree.clone()));
            }
            sequence.push(Node::filter(filter, lift_node(&stage.subtree, &lifts)?));
            // Write-backs of live-out arrays.
            let mut report_windows = Vec::new();
            for (a, w) in windows {
                let back = live(a);
                report_windows.push((a.clone(), w.iter().map(|e| e.extent).collect(), back));
                if !back {
                    continue;
                }
                let Some(original) = scop.array(a) else {
                    continue;
                };
                let sc = scratch_of[a];
                let mut written: Option<Map> = None;
                for (name, e) in extension {
                    let s = statement(scop, name)?;
                    for x in s
                        .accesses
                        .iter()
                        .filter(|x| x.kind == AccessKind::Write && &x.array == a)
                    {
                        let m = e.apply_range(&x.relation)?;
                        written = Some(match written {
                            None => m,
                            Some(y) => y.union(&m)?,
                        });
                    }
                }
                let Some(written) = written else { continue };
                let owner = tidy(&written.reverse().lexmin_with(budget)?.reverse(), budget)?;
                let wname = names.fresh(&format!("{a}_back"));
                let n = original.extents.len();
                let domain = flatten(&owner, &wname)?;
                let points: Vec<String> = (0..n)
                    .map(|d| format!("{}x{d}", names.point_prefix))
                    .collect();
                let subscripts: String = points.iter().map(|p| format!("[{p}]")).collect();
                let scratch_name = scratch[sc].name.clone();
                // The window's element at the same place, relocated by the emitter.
                let body = format!("{a}{subscripts} = {scratch_name}{subscripts};");
                relocations.push(Relocation {
                    statement: wname.clone(),
                    array: scratch_name.clone(),
                    window: scratch_name.clone(),
                    origin: windows_of[a].origin.clone(),
                });
                let wspace = domain.space().clone();
                let ident = Map::identity(&wspace);
                let write = ident.clone().with_space(Space::map(
                    params.clone(),
                    wspace
                        .range_tuple()
                        .cloned()
                        .unwrap_or_else(|| Tuple::anonymous(k + n)),
                    Tuple::with_names(Some(a.clone()), vec![None; k + n]),
                ));
                let write = write.project_out(pollen_presburger::DimKind::Out, 0, k)?;
                let read = ident.with_space(Space::map(
                    params.clone(),
                    wspace
                        .range_tuple()
                        .cloned()
                        .unwrap_or_else(|| Tuple::anonymous(k + n)),
                    Tuple::with_names(Some(scratch_name.clone()), vec![None; k + n]),
                ));
                let mut iterators = tile_names.clone();
                iterators.extend(points.iter().cloned());
                new_statements.push(Statement {
                    name: wname.clone(),
                    domain: domain.clone(),
                    iterators,
                    accesses: vec![
                        Access {
                            kind: AccessKind::Read,
                            array: scratch_name.clone(),
                            relation: read,
                        },
                        Access {
                            kind: AccessKind::Write,
                            array: a.clone(),
                            relation: write,
                        },
                    ],
                    body,
                });
                scratch[sc].statements.push(wname.clone());
                origins.insert(
                    wname.clone(),
                    Origin::WriteBack {
                        array: a.clone(),
                        scratch: scratch_name,
                        tile_dims: k,
                    },
                );
                copies.push((wname.clone(), tile_projection(&params, &wname, k, n)));
                let inner = band_map(&params, &wname, k, n)?;
                sequence.push(Node::filter(
                    UnionSet::from_set(domain),
                    Node::Band(Band {
                        schedule: UnionMap::from_map(inner),
                        permutable: true,
                        coincident: vec![true; n],
                        child: Box::new(Node::Leaf),
                    }),
                ));
            }
            produced.push(FusedStage {
                statements: stage.statements.clone(),
                extension: ext_union,
                windows: report_windows,
                reserved: has_reserved,
            });
        }
        // The output.
        let stage = &stages[g.output];
        let band = stage.band().expect("outputs have bands");
        let mut lifts: BTreeMap<String, (String, Map)> = BTreeMap::new();
        let mut filter = UnionSet::empty(params.clone());
        let mut tile_band = UnionMap::empty(params.clone());
        for name in &stage.statements {
            let s = statement(scop, name)?;
            let Some(t) = g.tiles.get(name) else {
                continue;
            };
            let (_, domain) = add_copy(
                s,
                &t.reverse(),
                k,
                tile_names,
                &mut names,
                &windows_of,
                &mut Added {
                    statements: &mut new_statements,
                    origins: &mut origins,
                    relocations: &mut relocations,
                    scratch: &mut scratch,
                    scratch_of: &scratch_of,
                    arrays: &arrays,
                    copies: &mut copies,
                    lifts: &mut lifts,
                },
            )?;
            filter.add_set(domain)?;
        }
        sequence.push(Node::filter(filter, lift_node(&stage.subtree, &lifts)?));
        // The tile loops with few iterations whatever the sizes (a colour channel's)
        // go inside the others, so that the outermost one, run in parallel, has many.
        let order = tile_order(&g.tiles, k, budget)?;
        let mut all = UnionSet::empty(params.clone());
        for (c, _) in &copies {
            if let Some(s) = new_statements.iter().find(|s| &s.name == c) {
                let n = s.iterators.len() - k;
                tile_band.add_map(ordered_projection(&params, c, k, n, &order))?;
                all.add_set(s.domain.clone())?;
            }
        }
        let parallel: Vec<bool> = order.iter().map(|&j| band.coincident[j]).collect();
        let node = Node::filter(
            all,
            Node::Band(Band {
                schedule: tile_band,
                permutable: true,
                coincident: parallel.clone(),
                child: Box::new(Node::Sequence(sequence)),
            }),
        );
        // Reserved instances run after the tiles: no tile reads what they write, and
        // what they read of the group's arrays (another producer's elements, computed in
        // its tiles and written back) is final only then.
        units.push((g.output, node));
        for r in reserved_units {
            units.push((g.output, r));
        }
        reports.push(Group {
            output: stage.statements.clone(),
            statements: copies.iter().map(|(c, _)| c.clone()).collect(),
            tile_sizes: g.sizes.clone(),
            parallel,
            producers: produced,
            over_budget: g
                .over_budget
                .iter()
                .map(|&p| stages[p].statements.clone())
                .collect(),
            too_redundant: g
                .too_redundant
                .iter()
                .map(|&p| stages[p].statements.clone())
                .collect(),
        });
    }
    // Stages in no group keep their statements and subtrees, but for recomputed stages
    // every consumer recomputes.
    in_group.extend(elided);
    for (k, stage) in stages.iter().enumerate() {
        if in_group.contains(&k) {
            continue;
        }
        for name in &stage.statements {
            let s = statement(scop, name)?;
            new_statements.push(s.clone());
            origins.insert(name.clone(), Origin::Same);
        }
        units.push((k, Node::filter(stage.filter.clone(), stage.subtree.clone())));
    }
    units.sort_by_key(|(k, _)| *k);
    let mut domain = UnionSet::empty(params.clone());
    for s in &new_statements {
        domain.add_set(s.domain.clone())?;
    }
    let tree = ScheduleTree {
        root: Node::Domain {
            domain,
            child: Box::new(Node::Sequence(units.into_iter().map(|(_, n)| n).collect())),
        },
    };
    // Statements in the original's order, copies where their originals were.
    let order: BTreeMap<&str, usize> = scop
        .statements
        .iter()
        .enumerate()
        .map(|(k, s)| (s.name.as_str(), k))
        .collect();
    new_statements.sort_by_key(|s| match origins.get(&s.name) {
        Some(Origin::Copy { statement, .. }) => order.get(statement.as_str()).copied(),
        Some(Origin::Same) => order.get(s.name.as_str()).copied(),
        _ => None,
    });
    let new_scop = Scop {
        params: params.clone(),
        context: scop.context.clone(),
        arrays,
        statements: new_statements,
        schedule: tree.clone(),
    };
    new_scop.validate()?;
    let fused = Fused {
        scop: new_scop,
        tree,
        scratch,
        groups: reports,
        origins,
        relocations,
    };
    check::check(scop, deps, &fused, options.live_out.as_ref(), budget)?.into_result()?;
    Ok(fused)
}

fn statement<'a>(scop: &'a Scop, name: &str) -> Result<&'a Statement> {
    scop.statement(name).ok_or_else(|| {
        Error::Scop(pollen_scop::Error::Invalid(format!(
            "the schedule names the unknown statement {name}"
        )))
    })
}

fn tuple_name(m: &Map) -> Option<&str> {
    m.space().domain_tuple().and_then(|t| t.name())
}

fn set_name(s: &Set) -> Option<String> {
    s.space()
        .range_tuple()
        .and_then(|t| t.name())
        .map(str::to_string)
}

/// `{ [o] -> S[i] }` as the set `{ copy[o, i] }`.
fn flatten(m: &Map, copy: &str) -> Result<Set> {
    let n = m.space().n_in() + m.space().n_out();
    let space = Space::set(
        m.space().param_names().to_vec(),
        Tuple::with_names(Some(copy.to_string()), vec![None; n]),
    );
    Ok(Set::from_map(m.clone().with_space(space))?)
}

/// `{ copy[o, i] -> S[i] }` for statement `s` and `k` tile dimensions.
fn projection(params: &[String], copy: &str, k: usize, s: &Statement) -> Result<Map> {
    let n = s.iterators.len();
    let range = s
        .domain
        .space()
        .range_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(n));
    let space = Space::map(
        params.to_vec(),
        Tuple::with_names(Some(copy.to_string()), vec![None; k + n]),
        range,
    );
    let mut b = BasicMap::universe(space);
    let np = params.len();
    for j in 0..n {
        let mut row = b.zero_row();
        row[1 + np + k + n + j] = Int::one();
        row[1 + np + k + j] = -Int::one();
        b.add_eq(row);
    }
    Ok(Map::from_basic(b))
}

/// `{ copy[o, i] -> [o] }`.
fn tile_projection(params: &[String], copy: &str, k: usize, n: usize) -> Map {
    let space = Space::map(
        params.to_vec(),
        Tuple::with_names(Some(copy.to_string()), vec![None; k + n]),
        Tuple::anonymous(k),
    );
    let mut b = BasicMap::universe(space);
    let np = params.len();
    for j in 0..k {
        let mut row = b.zero_row();
        row[1 + np + k + n + j] = Int::one();
        row[1 + np + j] = -Int::one();
        b.add_eq(row);
    }
    Map::from_basic(b)
}

/// The order of the tile band's members: those whose tile coordinate takes at most 8
/// values for all parameter values last, the others first, each in band order.
fn tile_order(tiles: &BTreeMap<String, Map>, k: usize, budget: &mut Budget) -> Result<Vec<usize>> {
    let ranges: Vec<Map> = tiles.values().map(Map::range).collect();
    let mut short = vec![false; k];
    for (j, flag) in short.iter_mut().enumerate() {
        if let Some((lo, hi)) = constant_bounds(&ranges, j, budget)? {
            *flag = hi - lo < 8;
        }
    }
    let mut order: Vec<usize> = (0..k).filter(|&j| !short[j]).collect();
    order.extend((0..k).filter(|&j| short[j]));
    Ok(order)
}

/// The least and greatest value of dimension `j` over the sets (as maps) `ranges`, when
/// both are constants for all parameter values.
fn constant_bounds(ranges: &[Map], j: usize, budget: &mut Budget) -> Result<Option<(i64, i64)>> {
    let mut values: Option<Map> = None;
    for r in ranges {
        let n = r.space().n_out();
        if j >= n {
            continue;
        }
        let r = r
            .project_out(pollen_presburger::DimKind::Out, j + 1, n - j - 1)?
            .project_out(pollen_presburger::DimKind::Out, 0, j)?;
        let np = r.space().n_params();
        let r = r.project_out(pollen_presburger::DimKind::Param, 0, np)?;
        values = Some(match values {
            None => r,
            Some(v) => v.union(&r)?,
        });
    }
    let Some(values) = values else {
        return Ok(None);
    };
    let values = Set::from_map(values)?;
    if values.is_empty_with(budget)? {
        return Ok(None);
    }
    let (Ok(low), Ok(high)) = (
        values.dim_min_with(0, budget),
        values.dim_max_with(0, budget),
    ) else {
        return Ok(None);
    };
    let constant = |p: &pollen_presburger::aff::PwAff| -> Option<i64> {
        let mut out = None;
        for (_, a) in p.pieces() {
            let v = a.constant_value()?.to_i64()?;
            if out.is_some_and(|o| o != v) {
                return None;
            }
            out = Some(v);
        }
        out
    };
    Ok(constant(&low).zip(constant(&high)))
}

/// `{ copy[o, i] -> [o_order[0], o_order[1], ...] }`.
fn ordered_projection(params: &[String], copy: &str, k: usize, n: usize, order: &[usize]) -> Map {
    let space = Space::map(
        params.to_vec(),
        Tuple::with_names(Some(copy.to_string()), vec![None; k + n]),
        Tuple::anonymous(k),
    );
    let mut b = BasicMap::universe(space);
    let np = params.len();
    for (j, &from) in order.iter().enumerate() {
        let mut row = b.zero_row();
        row[1 + np + k + n + j] = Int::one();
        row[1 + np + from] = -Int::one();
        b.add_eq(row);
    }
    Map::from_basic(b)
}

/// `{ copy[o, x] -> [x] }`.
fn band_map(params: &[String], copy: &str, k: usize, n: usize) -> Result<Map> {
    let space = Space::map(
        params.to_vec(),
        Tuple::with_names(Some(copy.to_string()), vec![None; k + n]),
        Tuple::anonymous(n),
    );
    let mut b = BasicMap::universe(space);
    let np = params.len();
    for j in 0..n {
        let mut row = b.zero_row();
        row[1 + np + k + n + j] = Int::one();
        row[1 + np + k + j] = -Int::one();
        b.add_eq(row);
    }
    Ok(Map::from_basic(b))
}

/// What adding copies changes: the new program's statements and the records about them.
struct Added<'a> {
    statements: &'a mut Vec<Statement>,
    origins: &'a mut BTreeMap<String, Origin>,
    relocations: &'a mut Vec<Relocation>,
    scratch: &'a mut Vec<Scratch>,
    scratch_of: &'a BTreeMap<String, usize>,
    arrays: &'a [Array],
    /// The group's copies with their tile projections.
    copies: &'a mut Vec<(String, Map)>,
    /// Per original statement, its copy and the projection lifting its subtree.
    lifts: &'a mut BTreeMap<String, (String, Map)>,
}

/// Adds the copy `S_t[o, i]` of statement `s` on the instances of `extension`
/// (`{ [o] -> S[i] }`, `k` tile coordinates): its accesses (windows indexed by the tile
/// too), the relocations of its references into the windows, its origin; the copy's
/// name and domain.
fn add_copy(
    s: &Statement,
    extension: &Map,
    k: usize,
    tile_names: &[String],
    names: &mut Names,
    windows_of: &BTreeMap<String, Window>,
    added: &mut Added<'_>,
) -> Result<(String, Set)> {
    let params = extension.space().param_names().to_vec();
    let copy = names.fresh(&format!("{}_t", s.name));
    let domain = flatten(extension, &copy)?;
    let lift = projection(&params, &copy, k, s)?;
    let (accesses, used) = copy_accesses(s, &lift, k, &copy, windows_of, added.arrays)?;
    for u in used {
        added.scratch[added.scratch_of[&u]]
            .statements
            .push(copy.clone());
        added
            .relocations
            .push(relocation(&copy, &u, &windows_of[&u]));
    }
    let mut iterators = tile_names.to_vec();
    iterators.extend(s.iterators.iter().cloned());
    added.statements.push(Statement {
        name: copy.clone(),
        domain: domain.clone(),
        iterators,
        accesses,
        body: s.body.clone(),
    });
    added.origins.insert(
        copy.clone(),
        Origin::Copy {
            statement: s.name.clone(),
            tile_dims: k,
        },
    );
    added.copies.push((
        copy.clone(),
        tile_projection(&params, &copy, k, s.iterators.len()),
    ));
    added.lifts.insert(s.name.clone(), (copy.clone(), lift));
    Ok((copy, domain))
}

/// The accesses of a copy: lifted through `lift`, those to relocated arrays going to
/// their scratch arrays indexed by the tile coordinates too; and the relocated arrays
/// it uses.
fn copy_accesses(
    s: &Statement,
    lift: &Map,
    k: usize,
    copy: &str,
    windows: &BTreeMap<String, Window>,
    arrays: &[Array],
) -> Result<(Vec<Access>, BTreeSet<String>)> {
    let mut out = Vec::new();
    let mut used = BTreeSet::new();
    let n = s.iterators.len();
    let params = lift.space().param_names().to_vec();
    for a in &s.accesses {
        let lifted = lift.apply_range(&a.relation)?;
        match windows.get(&a.array) {
            None => out.push(Access {
                kind: a.kind,
                array: a.array.clone(),
                relation: lifted,
            }),
            Some(r) => {
                used.insert(a.array.clone());
                let dims = arrays
                    .iter()
                    .find(|x| x.name == r.name)
                    .map_or(0, |x| x.extents.len());
                let tiles = tile_projection(&params, copy, k, n);
                let both = tiles.range_product(&lifted)?;
                let space = Space::map(
                    params.clone(),
                    both.space()
                        .domain_tuple()
                        .cloned()
                        .unwrap_or_else(|| Tuple::anonymous(k + n)),
                    Tuple::with_names(Some(r.name.clone()), vec![None; dims]),
                );
                out.push(Access {
                    kind: a.kind,
                    array: r.name.clone(),
                    relation: both.with_space(space),
                });
            }
        }
    }
    Ok((out, used))
}

/// A stage's subtree for its copies: every band schedule and filter pulled back through
/// the copies' projections.
fn lift_node(node: &Node, lifts: &BTreeMap<String, (String, Map)>) -> Result<Node> {
    Ok(match node {
        Node::Band(b) => {
            let mut schedule = UnionMap::empty(b.schedule.param_names().to_vec());
            for m in b.schedule.maps() {
                if let Some((_, lift)) = tuple_name(m).and_then(|n| lifts.get(n)) {
                    schedule.add_map(lift.apply_range(m)?)?;
                }
            }
            Node::Band(Band {
                schedule,
                permutable: b.permutable,
                coincident: b.coincident.clone(),
                child: Box::new(lift_node(&b.child, lifts)?),
            })
        }
        Node::Filter { filter, child } => {
            let mut lifted = UnionSet::empty(filter.param_names().to_vec());
            for s in filter.sets() {
                if let Some((_, lift)) = set_name(&s).and_then(|n| lifts.get(&n)) {
                    lifted.add_set(Set::from_map(lift.intersect_range(s.as_map())?.domain())?)?;
                }
            }
            Node::Filter {
                filter: lifted,
                child: Box::new(lift_node(child, lifts)?),
            }
        }
        Node::Sequence(children) => Node::Sequence(
            children
                .iter()
                .map(|c| lift_node(c, lifts))
                .collect::<Result<_>>()?,
        ),
        Node::Set(children) => Node::Set(
            children
                .iter()
                .map(|c| lift_node(c, lifts))
                .collect::<Result<_>>()?,
        ),
        Node::Mark { name, child } => Node::Mark {
            name: name.clone(),
            child: Box::new(lift_node(child, lifts)?),
        },
        Node::Leaf => Node::Leaf,
        Node::Domain { .. } | Node::Context { .. } | Node::Extension { .. } => {
            return Err(Error::Scop(pollen_scop::Error::Invalid(
                "a stage's subtree holds a domain, context or extension node".into(),
            )))
        }
    })
}

/// The origin of a window along one dimension, over the tile iterators and the
/// parameters.
pub(crate) fn origin(e: &Extent, params: &[String], tiles: &[String]) -> Linear {
    let mut terms: Vec<(String, Int)> = Vec::new();
    for (c, t) in e.tile.iter().zip(tiles) {
        if !c.is_zero() {
            terms.push((t.clone(), c.clone()));
        }
    }
    for (c, p) in e.params.iter().zip(params) {
        if !c.is_zero() {
            terms.push((p.clone(), c.clone()));
        }
    }
    Linear {
        constant: e.constant.clone(),
        terms,
    }
}

/// The relocation of `array`'s references in `statement` into its window.
fn relocation(statement: &str, array: &str, window: &Window) -> Relocation {
    Relocation {
        statement: statement.to_string(),
        array: array.to_string(),
        window: window.name.clone(),
        origin: window.origin.clone(),
    }
}

/// A scratch array and its origin, per dimension.
struct Window {
    name: String,
    origin: Vec<Linear>,
}

/// The identifier-like words of a C text.
fn identifiers(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
        .map(str::to_string)
}

/// The first prefix of `prefixes` that makes none of `names` a taken word.
fn fresh_prefix<'a>(names: &[String], taken: &BTreeSet<String>, prefixes: &[&'a str]) -> &'a str {
    prefixes
        .iter()
        .find(|p| names.iter().all(|n| !taken.contains(&format!("{p}{n}"))))
        .copied()
        .unwrap_or("pollen_gen_")
}
