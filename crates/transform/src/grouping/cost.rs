//! The cost of a group and its tile sizes (Eq. 2, Algorithm 2 and §4.2 of Jangda and
//! Bondhugula, TOPLAS 2020).
//!
//! This is a named cost model. The paper computes it in floating point; here every
//! quantity is an exact rational ([`Rat`]), so that costs compare exactly, ties break the
//! same way on every machine, and the crate stays free of floating point. Tile sizes
//! are integers: the real sizes of the paper's model, floored, at least 1 and at most the
//! group's extent.
//!
//! # The cost of a group `H` for one cache size
//!
//! ```text
//! cost = w1 · (live-in + live-out per tile) / computation per tile
//!      − w2 · ((n_tiles + cores − 1) mod cores)
//!      + w3 · overlap per tile / tile footprint
//!      + w4 · spread of the stages' extents
//! ```
//!
//! - *Footprints.* `total` is the bytes of every stage's output (intermediate buffers
//!   and live-outs); `tile footprint = min(total / cores, cache)` (integer division), so
//!   there are at least `cores` tiles; `n_tiles = total / tile footprint`.
//! - *Tile sizes* ([`compute_tile_sizes`]): the tile footprint divided by the bytes of one
//!   point of every buffer (the paper's `numBuffers` for 4-byte elements) is the points
//!   per buffer the tile holds.
//! - *Halos* ([`halos`]): computed backwards from the group's live-outs in the common
//!   space. A stage read by no stage of the group has none; a producer's left halo along
//!   `d` is the largest, over its consumers `f` in the group, of `ℓ_f(d) + max(0, −min)`,
//!   its right halo the same with `max(0, max)` (the dependence `min..=max` of the edge).
//! - *Computation* per tile: over the stages, `Π_d (τ_d + ℓ(d) + r(d)) / scale(d)`; the
//!   *overlap* is what exceeds `Π_d τ_d / scale(d)`, the stage's share of the tile.
//! - *Live-out* per tile: the tile's points of every stage live-out of the group (marked
//!   live-out, or read outside it). *Live-in* per tile: for every array read from
//!   outside (a producer outside the group, or an input), the bounding box of the reads
//!   of the extended tiles, in points (a non-constant read counts the group's span).
//! - Data and computation are counted in points (elements); the relative overlap divides
//!   by the tile footprint in points of the group's mean element size.
//! - *Spread* (the paper's `dimSizeStandardDeviation`, "relative difference between sizes
//!   of dimensions" in Eq. 2): the mean over the dimensions of `(max − min) / max` of the
//!   stages' spans. A range keeps it exact; it is 0 when all stages have the same sizes.
//!
//! The DP sums these costs over the groups, so the subtracted cleanup term rewards
//! every extra group: with Table 2's weights (`w2 = 100`, up to `100 · (cores − 1)` per
//! group) it outweighs the other terms and no stages fuse; with Table 3's normalized
//! weights Harris (after inlining) fuses into one group with 5 × 256 L1 tiles.
//!
//! [`group_cost`] applies Algorithm 2: L1 first, L2 when the overlap exceeds the tile
//! volume (the points of the tile proper, without halos); or `MultiLevelCost` when
//! [`CostParams::multi_level`] is set: L1 when its overlap is below the tile volume,
//! otherwise L2 tiles with the L1 tile sizes kept for the inner level. A group with a
//! non-constant dependence inside costs [`Cost::Infinite`].

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Add;

use pollen_arith::{Int, Rat};

use super::graph::{Dep, Error, GroupingFault, Result, StageGraph, StageId};

/// The cost of a group or a grouping: exact, or infinite when the group cannot be tiled.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cost {
    /// A finite cost.
    Finite(Rat),
    /// The group's dependences cannot be made constant.
    Infinite,
}

impl Cost {
    /// The cost 0.
    pub fn zero() -> Cost {
        Cost::Finite(Rat::zero())
    }

    /// The finite cost `v`.
    pub fn from_int(v: i64) -> Cost {
        Cost::Finite(Rat::from(v))
    }

    /// The finite value, if any.
    pub fn value(&self) -> Option<&Rat> {
        match self {
            Cost::Finite(r) => Some(r),
            Cost::Infinite => None,
        }
    }
}

impl Add for Cost {
    type Output = Cost;
    fn add(self, other: Cost) -> Cost {
        match (self, other) {
            (Cost::Finite(a), Cost::Finite(b)) => Cost::Finite(a + b),
            _ => Cost::Infinite,
        }
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cost::Finite(r) => f.write_str(&decimal(r, 3)),
            Cost::Infinite => f.write_str("inf"),
        }
    }
}

/// `r` in decimal with `digits` digits after the point, truncated toward zero.
pub fn decimal(r: &Rat, digits: u32) -> String {
    let scaled = (r.numer().abs() * Int::from(10).pow(digits)).floor_div(r.denom());
    let mut text = scaled.to_string();
    let width = digits as usize + 1;
    if text.len() < width {
        text = format!("{}{text}", "0".repeat(width - text.len()));
    }
    if digits > 0 {
        text.insert(text.len() - digits as usize, '.');
    }
    if r.is_negative() && !scaled.is_zero() {
        text.insert(0, '-');
    }
    text
}

/// `num / den` as a rational (`den` positive).
fn ratio(num: i64, den: i64) -> Rat {
    Rat::new(Int::from(num), Int::from(den))
}

/// The weights of Eq. 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// `w1`, of the data-to-computation ratio.
    pub locality: Rat,
    /// `w2`, of the cleanup-tile term (subtracted).
    pub cleanup: Rat,
    /// `w3`, of the relative overlap.
    pub overlap: Rat,
    /// `w4`, of the spread of the stages' sizes.
    pub spread: Rat,
}

impl Weights {
    /// Table 2, Intel Xeon: (1.0, 100.0, 46875, 1.5).
    pub fn xeon() -> Weights {
        Weights {
            locality: ratio(1, 1),
            cleanup: ratio(100, 1),
            overlap: ratio(46875, 1),
            spread: ratio(3, 2),
        }
    }

    /// Table 2, AMD Opteron: (0.3, 100.0, 46875, 2.0).
    pub fn opteron() -> Weights {
        Weights {
            locality: ratio(3, 10),
            cleanup: ratio(100, 1),
            overlap: ratio(46875, 1),
            spread: ratio(2, 1),
        }
    }

    /// Table 3, Intel Xeon, normalized: (47.04, 1, 13.18, 33.57).
    pub fn xeon_normalized() -> Weights {
        Weights {
            locality: ratio(4704, 100),
            cleanup: ratio(1, 1),
            overlap: ratio(1318, 100),
            spread: ratio(3357, 100),
        }
    }

    /// Table 3, AMD Opteron, normalized: (14.11, 1, 13.18, 44.76).
    pub fn opteron_normalized() -> Weights {
        Weights {
            locality: ratio(1411, 100),
            cleanup: ratio(1, 1),
            overlap: ratio(1318, 100),
            spread: ratio(4476, 100),
        }
    }
}

/// The machine the cost model targets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    /// L1 data cache per core, in bytes.
    pub l1_bytes: i64,
    /// L2 cache per core, in bytes.
    pub l2_bytes: i64,
    /// Cores the tiles run on.
    pub cores: i64,
    /// The tile size of the innermost dimension (the paper's INNERMOSTTILESIZE).
    pub innermost_tile: i64,
}

impl Machine {
    /// The paper's Intel Xeon E5-2630 v3: 32 KiB L1, 256 KiB L2, 16 cores, innermost 256.
    pub fn xeon() -> Machine {
        Machine {
            l1_bytes: 32 * 1024,
            l2_bytes: 256 * 1024,
            cores: 16,
            innermost_tile: 256,
        }
    }

    /// The paper's AMD Opteron 6386 SE: 16 KiB L1, 2 MiB L2, 16 cores, innermost 128.
    pub fn opteron() -> Machine {
        Machine {
            l1_bytes: 16 * 1024,
            l2_bytes: 2 * 1024 * 1024,
            cores: 16,
            innermost_tile: 128,
        }
    }

    /// Checks that every parameter is positive.
    pub fn check(&self) -> Result<()> {
        let positive = [
            (self.l1_bytes, "the L1 size must be positive"),
            (self.l2_bytes, "the L2 size must be positive"),
            (self.cores, "the core count must be positive"),
            (
                self.innermost_tile,
                "the innermost tile size must be positive",
            ),
        ];
        for (value, what) in positive {
            if value <= 0 {
                return Err(Error::InvalidParameter { what });
            }
        }
        Ok(())
    }
}

/// Everything the cost of a group depends on besides the group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostParams {
    /// The machine.
    pub machine: Machine,
    /// The weights of Eq. 2.
    pub weights: Weights,
    /// Use `MultiLevelCost` (two levels of tiles) instead of `COST`.
    pub multi_level: bool,
}

impl CostParams {
    /// The Xeon machine with Table 2's Xeon weights, one level of tiles.
    pub fn xeon() -> CostParams {
        CostParams {
            machine: Machine::xeon(),
            weights: Weights::xeon(),
            multi_level: false,
        }
    }

    /// The Opteron machine with Table 2's Opteron weights, one level of tiles.
    pub fn opteron() -> CostParams {
        CostParams {
            machine: Machine::opteron(),
            weights: Weights::opteron(),
            multi_level: false,
        }
    }
}

/// The cache level a group's tiles are sized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CacheLevel {
    /// Tiles sized for the L1 cache.
    L1,
    /// Tiles sized for the L2 cache.
    L2,
}

/// The terms of Eq. 2 for one group and one cache size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostTerms {
    /// The cache size the tiles were sized for, in bytes.
    pub cache_bytes: i64,
    /// Bytes of every stage's output.
    pub total_footprint: Int,
    /// `min(total / cores, cache)`, in bytes.
    pub tile_footprint: i64,
    /// The tile sizes, per common dimension.
    pub tiles: Vec<i64>,
    /// Points read per tile from outside the group.
    pub live_in: Rat,
    /// Points written per tile that leave the group.
    pub live_out: Rat,
    /// Points computed per tile, halos included.
    pub computation: Rat,
    /// Points computed per tile in halos (redundant work).
    pub overlap: Rat,
    /// Points of the tile proper (computation without the overlap).
    pub tile_volume: Rat,
    /// `total / tile footprint`.
    pub n_tiles: Int,
    /// `(n_tiles + cores − 1) mod cores`.
    pub cleanup: i64,
    /// Overlap over the tile footprint (in points).
    pub relative_overlap: Rat,
    /// Spread of the stages' spans.
    pub spread: Rat,
    /// The weighted sum.
    pub cost: Rat,
}

/// The cost of a group with its tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupCost {
    /// The cost (infinite when a dependence inside the group is not constant).
    pub cost: Cost,
    /// The terms of the chosen tiles (`None` for an infinite cost).
    pub terms: Option<CostTerms>,
    /// The level of the chosen tiles.
    pub level: CacheLevel,
    /// With `multi_level` and L2 tiles: the L1 tile sizes of the inner level.
    pub inner_tiles: Option<Vec<i64>>,
}

impl GroupCost {
    /// The chosen tile sizes (empty for an infinite cost).
    pub fn tiles(&self) -> &[i64] {
        self.terms.as_ref().map_or(&[], |t| &t.tiles)
    }
}

/// The halo widths of one stage of a group, per common dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Halo {
    /// Points computed before the tile along each dimension.
    pub left: Vec<i64>,
    /// Points computed after the tile along each dimension.
    pub right: Vec<i64>,
}

/// The halos of the stages of `group`, computed backwards from its live-outs (see the
/// module docs); `None` when a dependence inside the group is not constant.
pub fn halos(graph: &StageGraph, group: &[StageId]) -> Option<BTreeMap<StageId, Halo>> {
    let n = graph.n_dims();
    let mut result: BTreeMap<StageId, Halo> = BTreeMap::new();
    let order = graph.topological_order();
    for &g in order.iter().rev().filter(|s| group.contains(s)) {
        let mut halo = Halo {
            left: vec![0; n],
            right: vec![0; n],
        };
        for e in graph.edges() {
            if e.producer != g || !group.contains(&e.consumer) {
                continue;
            }
            let consumer = &graph.stages()[e.consumer];
            let outer = &result[&e.consumer];
            for (k, dep) in e.deps.iter().enumerate() {
                let Dep::Constant { min, max } = *dep else {
                    return None;
                };
                let d = consumer.align[k];
                let left = outer.left[d].saturating_add(min.saturating_neg().max(0));
                let right = outer.right[d].saturating_add(max.max(0));
                halo.left[d] = halo.left[d].max(left);
                halo.right[d] = halo.right[d].max(right);
            }
        }
        result.insert(g, halo);
    }
    Some(result)
}

/// `(n_tiles + cores − 1) mod cores`: `cores − 1` when the tiles divide evenly among the
/// cores, 0 when one tile is left over (test P14). `cores` must be positive.
pub fn cleanup_term(n_tiles: &Int, cores: i64) -> i64 {
    let c = Int::from(cores.max(1));
    (n_tiles + &c - Int::one())
        .mod_floor(&c)
        .to_i64()
        .unwrap_or(0)
}

/// `ComputeTileSizes` (Algorithm 2, §4.2): tile sizes per dimension for tiles of
/// `tile_points` points per buffer, given each dimension's extent and reuse score, the
/// last dimension innermost.
///
/// - The innermost size is `min(extent, innermost)`; the other dimensions share
///   `T = tile_points / innermost size`, proportionally to their reuse: with
///   `γ_i = reuse_i / max reuse` and `m` such dimensions, `τ_i = γ_i · τ` where
///   `τ^m · Π γ = T`. Computed exactly: `τ_i` is the largest integer with
///   `τ_i^m ≤ T · reuse_i^m / Π reuse`.
/// - A non-innermost dimension with reuse 0 gains nothing from a partial tile (the
///   paper's formula would divide by zero): it is kept whole when its extent fits the
///   remaining budget (the untiled colour channels of PolyMage's tiles), and cut to 1
///   otherwise; the budget left is shared among the others. When no non-innermost
///   dimension has reuse, they are all treated as having equal reuse.
/// - With one dimension, it takes the whole budget: `min(extent, tile_points)` (the
///   innermost cap leaves room for outer dimensions, and there are none).
/// - Every size is floored, at least 1 and at most the extent.
pub fn compute_tile_sizes(
    tile_points: &Rat,
    extents: &[i64],
    reuse: &[i64],
    innermost: i64,
) -> Vec<i64> {
    let n = extents.len();
    let clamp = |v: Int, extent: i64| v.to_i64().unwrap_or(i64::MAX).clamp(1, extent.max(1));
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![clamp(tile_points.floor(), extents[0])];
    }
    let mut tiles = vec![1i64; n];
    tiles[n - 1] = extents[n - 1].min(innermost).max(1);
    let mut budget = tile_points / &Rat::from(tiles[n - 1]);
    let outer: Vec<usize> = (0..n - 1).collect();
    let any_reuse = outer
        .iter()
        .any(|&d| reuse.get(d).copied().unwrap_or(0) > 0);
    let score = |d: usize| {
        if any_reuse {
            reuse.get(d).copied().unwrap_or(0).max(0)
        } else {
            1
        }
    };
    for &d in outer.iter().filter(|&&d| score(d) == 0) {
        let extent = Rat::from(extents[d]);
        if extent <= budget {
            tiles[d] = extents[d];
            budget /= &extent;
        } else {
            tiles[d] = 1;
        }
    }
    let shared: Vec<usize> = outer.into_iter().filter(|&d| score(d) > 0).collect();
    let m = shared.len() as u32;
    if m == 0 {
        return tiles;
    }
    let product: Int = shared.iter().map(|&d| Int::from(score(d))).product();
    for &d in &shared {
        let bound = &budget * &Rat::new(Int::from(score(d)).pow(m), product.clone());
        tiles[d] = largest_root_at_most(&bound, m, extents[d]);
    }
    tiles
}

/// The largest `t` in `1..=cap` with `t^m ≤ bound` (1 when none).
fn largest_root_at_most(bound: &Rat, m: u32, cap: i64) -> i64 {
    let fits = |t: i64| Rat::from(Int::from(t).pow(m)) <= *bound;
    let cap = cap.max(1);
    if fits(cap) {
        return cap;
    }
    let (mut lo, mut hi) = (1i64, cap);
    // Invariant: the answer is in lo..hi (lo fits or is 1, hi does not fit).
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The group's span per common dimension (the largest of its stages').
fn group_spans(graph: &StageGraph, group: &[StageId]) -> Vec<i64> {
    (0..graph.n_dims())
        .map(|d| {
            group
                .iter()
                .map(|&s| graph.stages()[s].span(d))
                .max()
                .unwrap_or(1)
        })
        .collect()
}

/// Per-tile computation and overlap of `group` with tiles `tiles` (per common
/// dimension): `(computation, overlap)` in points, halos from [`halos`]; `None` when a
/// dependence inside the group is not constant, or the tiles are not one positive size
/// per dimension. For blur's 3 × 64 × 64 tiles, blurx
/// computes 3 · 64 · 66 points of which 384 are redundant (tests P16, P17).
pub fn tile_work(graph: &StageGraph, group: &[StageId], tiles: &[i64]) -> Option<(Rat, Rat)> {
    if tiles.len() != graph.n_dims() || tiles.iter().any(|&t| t <= 0) {
        return None;
    }
    let halos = halos(graph, group)?;
    let mut computation = Rat::zero();
    let mut overlap = Rat::zero();
    for (&s, halo) in &halos {
        let (full, proper) = stage_points(graph, s, halo, tiles);
        overlap += &full - &proper;
        computation += full;
    }
    Some((computation, overlap))
}

/// The points one tile of stage `s` computes, with and without its halo.
fn stage_points(graph: &StageGraph, s: StageId, halo: &Halo, tiles: &[i64]) -> (Rat, Rat) {
    let stage = &graph.stages()[s];
    let mut full = Rat::one();
    let mut proper = Rat::one();
    for (d, &t) in tiles.iter().enumerate() {
        let scale = Rat::from(stage.scale(d));
        let extended = Int::from(t) + Int::from(halo.left[d]) + Int::from(halo.right[d]);
        full *= Rat::from(extended) / &scale;
        proper *= Rat::from(t) / &scale;
    }
    (full, proper)
}

/// One array read by a group from outside: its positions' box per dimension.
struct LiveIn {
    lo: Vec<Option<i64>>,
    hi: Vec<Option<i64>>,
    scales: Vec<i64>,
}

/// Points read per tile from outside the group (see the module docs).
fn live_in_points(
    graph: &StageGraph,
    group: &[StageId],
    halos: &BTreeMap<StageId, Halo>,
    tiles: &[i64],
    spans: &[i64],
) -> Rat {
    let n = graph.n_dims();
    let mut arrays: BTreeMap<(bool, String), LiveIn> = BTreeMap::new();
    let mut read = |key: (bool, String), scales: Vec<i64>, reader: StageId, deps: &[Dep]| {
        let stage = &graph.stages()[reader];
        let halo = &halos[&reader];
        let entry = arrays.entry(key).or_insert_with(|| LiveIn {
            lo: vec![Some(i64::MAX); n],
            hi: vec![Some(i64::MIN); n],
            scales,
        });
        for (k, dep) in deps.iter().enumerate() {
            let d = stage.align[k];
            match *dep {
                Dep::Constant { min, max } => {
                    let lo = min.saturating_sub(halo.left[d]);
                    let hi = (tiles[d] - 1)
                        .saturating_add(halo.right[d])
                        .saturating_add(max);
                    entry.lo[d] = entry.lo[d].map(|v| v.min(lo));
                    entry.hi[d] = entry.hi[d].map(|v| v.max(hi));
                }
                Dep::NonConstant => {
                    entry.lo[d] = None;
                    entry.hi[d] = None;
                }
            }
        }
    };
    for e in graph.edges() {
        if group.contains(&e.consumer) && !group.contains(&e.producer) {
            let producer = &graph.stages()[e.producer];
            let scales = (0..n).map(|d| producer.scale(d)).collect();
            read((false, producer.name.clone()), scales, e.consumer, &e.deps);
        }
    }
    for &s in group {
        for input in &graph.stages()[s].inputs {
            let stage = &graph.stages()[s];
            let mut scales = vec![1; n];
            for (k, &scale) in input.scales.iter().enumerate() {
                scales[stage.align[k]] = scale;
            }
            read((true, input.array.clone()), scales, s, &input.deps);
        }
    }
    let mut total = Rat::zero();
    for array in arrays.values() {
        let mut points = Rat::one();
        for d in 0..n {
            let width = match (array.lo[d], array.hi[d]) {
                (Some(lo), Some(hi)) if hi >= lo => Int::from(hi) - Int::from(lo) + Int::one(),
                (Some(_), Some(_)) => Int::from(tiles[d]),
                _ => Int::from(spans[d]),
            };
            points *= Rat::new(width, Int::from(array.scales[d]));
        }
        total += points;
    }
    total
}

/// `CostForCacheSize` of Algorithm 2 for `group` and a cache of `cache_bytes`; `None`
/// when a dependence inside the group is not constant.
pub fn cost_for_cache_size(
    graph: &StageGraph,
    group: &[StageId],
    cache_bytes: i64,
    params: &CostParams,
) -> Option<CostTerms> {
    if group.is_empty() || group.iter().any(|&s| s >= graph.n_stages()) {
        return None;
    }
    let halos = halos(graph, group)?;
    let machine = &params.machine;
    let stages: Vec<_> = group.iter().map(|&s| &graph.stages()[s]).collect();
    let total: Int = stages
        .iter()
        .map(|s| s.extents.iter().map(|&e| Int::from(e)).product::<Int>() * Int::from(s.elem_size))
        .sum();
    let per_core = total.floor_div(&Int::from(machine.cores.max(1)));
    let tile_footprint = per_core
        .to_i64()
        .unwrap_or(i64::MAX)
        .min(cache_bytes)
        .max(1);
    let point_bytes: i64 = stages.iter().map(|s| s.elem_size).sum::<i64>().max(1);
    let tile_points = ratio(tile_footprint, point_bytes);
    let spans = group_spans(graph, group);
    let reuse: Vec<i64> = (0..graph.n_dims())
        .map(|d| stages.iter().map(|s| s.reuse_at(d)).sum())
        .collect();
    let tiles = compute_tile_sizes(&tile_points, &spans, &reuse, machine.innermost_tile);
    let mut computation = Rat::zero();
    let mut tile_volume = Rat::zero();
    let mut live_out = Rat::zero();
    for (&s, halo) in &halos {
        let (full, proper) = stage_points(graph, s, halo, &tiles);
        if graph.is_live_out_of(s, group) {
            live_out += &proper;
        }
        computation += full;
        tile_volume += proper;
    }
    let overlap = &computation - &tile_volume;
    let live_in = live_in_points(graph, group, &halos, &tiles, &spans);
    let n_tiles = total.floor_div(&Int::from(tile_footprint)).max(Int::one());
    let cleanup = cleanup_term(&n_tiles, machine.cores);
    // The tile footprint in points of the group's mean element size.
    let footprint_points = ratio(tile_footprint, 1) * ratio(stages.len() as i64, point_bytes);
    let relative_overlap = &overlap / &footprint_points;
    let spread = spread(graph, group);
    let w = &params.weights;
    let cost = &w.locality * &((&live_in + &live_out) / &computation)
        - &w.cleanup * &Rat::from(cleanup)
        + &w.overlap * &relative_overlap
        + &w.spread * &spread;
    Some(CostTerms {
        cache_bytes,
        total_footprint: total,
        tile_footprint,
        tiles,
        live_in,
        live_out,
        computation,
        overlap,
        tile_volume,
        n_tiles,
        cleanup,
        relative_overlap,
        spread,
        cost,
    })
}

/// The mean over the common dimensions of `(max − min) / max` of the stages' spans.
fn spread(graph: &StageGraph, group: &[StageId]) -> Rat {
    let n = graph.n_dims();
    let mut sum = Rat::zero();
    for d in 0..n {
        let spans = group.iter().map(|&s| graph.stages()[s].span(d));
        let max = spans.clone().max().unwrap_or(1);
        let min = spans.min().unwrap_or(1);
        sum += Rat::new(Int::from(max) - Int::from(min), Int::from(max.max(1)));
    }
    sum / &Rat::from(n as i64)
}

/// The cost of `group` (Algorithm 2's `COST`, or `MultiLevelCost` with
/// [`CostParams::multi_level`]): L1 tiles, or L2 tiles when the L1 tiles' overlap is
/// larger than their volume (with `multi_level`: not smaller).
pub fn group_cost(graph: &StageGraph, group: &[StageId], params: &CostParams) -> Result<GroupCost> {
    params.machine.check()?;
    if group.is_empty() {
        return Err(Error::InvalidGrouping {
            reason: GroupingFault::Empty,
        });
    }
    if let Some(&s) = group.iter().find(|&&s| s >= graph.n_stages()) {
        return Err(Error::UnknownStage { index: s });
    }
    let machine = &params.machine;
    let Some(l1) = cost_for_cache_size(graph, group, machine.l1_bytes, params) else {
        return Ok(GroupCost {
            cost: Cost::Infinite,
            terms: None,
            level: CacheLevel::L1,
            inner_tiles: None,
        });
    };
    let keep_l1 = if params.multi_level {
        l1.overlap < l1.tile_volume
    } else {
        l1.overlap <= l1.tile_volume
    };
    if keep_l1 {
        return Ok(GroupCost {
            cost: Cost::Finite(l1.cost.clone()),
            terms: Some(l1),
            level: CacheLevel::L1,
            inner_tiles: None,
        });
    }
    let l2 = cost_for_cache_size(graph, group, machine.l2_bytes, params).ok_or(
        Error::InvalidParameter {
            what: "the group's dependences changed between cache levels",
        },
    )?;
    Ok(GroupCost {
        cost: Cost::Finite(l2.cost.clone()),
        terms: Some(l2),
        level: CacheLevel::L2,
        inner_tiles: params.multi_level.then_some(l1.tiles),
    })
}

/// The cost function of the model for the searches: `group_cost(...).cost`, infinite
/// for a group the model rejects.
pub fn model_cost<'a>(
    graph: &'a StageGraph,
    params: &'a CostParams,
) -> impl FnMut(&[StageId]) -> Cost + 'a {
    move |group| group_cost(graph, group, params).map_or(Cost::Infinite, |c| c.cost)
}
