//! Default tile sizes from the cache sizes of the machine: a small, deterministic model.
//!
//! The library does no IO: the caller reads the cache sizes (the `pollen` binary reads
//! `/sys/devices/system/cpu/cpu0/cache/index*/size`) and passes them in a [`CacheInfo`].
//!
//! # Model
//! A tile of a band of depth `k` with side `s` on every member executes `s^k` instances.
//! Its data footprint is estimated as that of a matrix-multiplication-like nest: `k`
//! arrays, each indexed by `d = max(k - 1, min(k, 2))` of the `k` loops, so `k · s^d`
//! elements (`k = 1`: one vector, `s`; `k = 2`: two matrices, `2·s²`; `k = 3`: gemm's
//! three matrices, `3·s²`; `k = 4`: four 3-d blocks, `4·s³`). Stencils over `(t, i, j)`
//! fit the same estimate: two or three `s × s` planes. The side is the largest multiple of 8 (a whole number of
//! 64-byte cache lines of doubles, and of vector lengths) whose footprint fills at most
//! **half** of the target cache (the other half is left to the data the estimate does
//! not see and to associativity conflicts), clamped to `8..=256`:
//! - one level of tiling targets L2 ([`default_tile_sizes`]);
//! - two levels ([`default_two_level_tile_sizes`]): the inner tiles target L1, and the
//!   outer tiles, counted in inner tiles, target L2.
//!
//! A missing cache level (size 0) falls back to the next smaller one. L3 is shared between
//! cores and is not modelled. All arithmetic is on integers.

/// The data cache sizes of one core, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheInfo {
    /// Level 1 data cache.
    pub l1_bytes: u64,
    /// Level 2 cache.
    pub l2_bytes: u64,
    /// Level 3 cache, if any (not used by the model).
    pub l3_bytes: Option<u64>,
}

impl Default for CacheInfo {
    /// 32 KiB L1, 1 MiB L2, no L3: a common x86-64 server core.
    fn default() -> CacheInfo {
        CacheInfo {
            l1_bytes: 32 << 10,
            l2_bytes: 1 << 20,
            l3_bytes: None,
        }
    }
}

/// The smallest tile side chosen by the model.
pub const MIN_TILE_SIZE: i64 = 8;
/// The largest tile side chosen by the model.
pub const MAX_TILE_SIZE: i64 = 256;

/// The number of bytes a tile of side `side` of a depth-`depth` band touches, in the
/// model's estimate (`depth · side^d` elements with `d = max(depth - 1, min(depth, 2))`),
/// saturating.
pub fn tile_footprint(side: u64, depth: usize, element_bytes: u64) -> u64 {
    let depth = depth.max(1);
    let arrays = u64::try_from(depth).unwrap_or(u64::MAX);
    let exponent = u32::try_from((depth - 1).max(depth.min(2))).unwrap_or(u32::MAX);
    side.saturating_pow(exponent)
        .saturating_mul(arrays)
        .saturating_mul(element_bytes.max(1))
}

/// The largest side, a multiple of [`MIN_TILE_SIZE`] in `MIN_TILE_SIZE..=MAX_TILE_SIZE`,
/// whose footprint (with `element_bytes` per element) fits in `budget_bytes`; the
/// smallest side when none fits.
fn largest_fitting_side(budget_bytes: u64, depth: usize, element_bytes: u64) -> i64 {
    let mut best = MIN_TILE_SIZE;
    let mut side = MIN_TILE_SIZE;
    while side <= MAX_TILE_SIZE {
        let s = u64::try_from(side).unwrap_or(u64::MAX);
        if tile_footprint(s, depth, element_bytes) <= budget_bytes {
            best = side;
        }
        side += MIN_TILE_SIZE;
    }
    best
}

/// The L1 size, or the L2 size when L1 is unknown (0).
fn level1(cache: &CacheInfo) -> u64 {
    if cache.l1_bytes > 0 {
        cache.l1_bytes
    } else {
        cache.l2_bytes
    }
}

/// The L2 size, or the L1 size when L2 is unknown (0).
fn level2(cache: &CacheInfo) -> u64 {
    if cache.l2_bytes > 0 {
        cache.l2_bytes
    } else {
        cache.l1_bytes
    }
}

/// Square tile sizes for one level of tiling of a band with `depth` members whose
/// arrays have `element_bytes`-byte elements: the footprint of a tile fits in half of L2
/// (see the module documentation).
pub fn default_tile_sizes(cache: &CacheInfo, element_bytes: u64, depth: usize) -> Vec<i64> {
    let side = largest_fitting_side(level2(cache) / 2, depth, element_bytes);
    vec![side; depth.max(1)]
}

/// Square tile sizes for one level of tiling of a triangular band (the range of a member
/// depends on another, [`crate::order::is_triangular_in`]): the footprint fits in an
/// eighth of L2, a quarter of a rectangular band's target. The tiles a triangle's
/// diagonal cuts do partial work, and the copies of a jammed triangle share only part of
/// their inner loops (the rest runs copy by copy), so more of a triangular tile's reuse
/// must come from the caches nearer the core.
pub fn default_triangular_tile_sizes(
    cache: &CacheInfo,
    element_bytes: u64,
    depth: usize,
) -> Vec<i64> {
    let side = largest_fitting_side(level2(cache) / 8, depth, element_bytes);
    vec![side; depth.max(1)]
}

/// Sizes for two levels of tiling: inner tiles whose footprint fits in half of L1, and
/// outer tiles, in units of inner tiles, whose footprint fits in half of L2 (at least one
/// inner tile per outer tile).
pub fn default_two_level_tile_sizes(
    cache: &CacheInfo,
    element_bytes: u64,
    depth: usize,
) -> (Vec<i64>, Vec<i64>) {
    let inner = largest_fitting_side(level1(cache) / 2, depth, element_bytes);
    let outer = largest_fitting_side(level2(cache) / 2, depth, element_bytes);
    let ratio = (outer / inner).max(1);
    (vec![inner; depth.max(1)], vec![ratio; depth.max(1)])
}

/// The size in bytes of a C element type as written in a scop (`double`, `float`, `int`,
/// ...); 8 for types the model does not know (PolyBench's `DATA_TYPE` is `double` by
/// default) and for the unknown (empty) type of an array the region does not declare.
pub fn element_bytes(element_type: &str) -> u64 {
    let words: Vec<&str> = element_type
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "static"))
        .collect();
    let words = match words.as_slice() {
        ["signed" | "unsigned"] => &["int"][..],
        ["signed" | "unsigned", rest @ ..] => rest,
        all => all,
    };
    match words {
        ["char"] | ["int8_t"] | ["uint8_t"] => 1,
        ["short"] | ["short", "int"] | ["int16_t"] | ["uint16_t"] => 2,
        ["float"] | ["int"] | ["int32_t"] | ["uint32_t"] => 4,
        _ => 8,
    }
}
