//! Fused tiling of producer–consumer pipelines with recomputation (basteln's backward
//! slicing of tiled loop nests, `../shared/digests/basteln.md`).
//!
//! A pipeline is a sequence of *stages* (the top-level filters of a schedule without
//! fusion, each with its own permutable band, neighbours whose dependences are
//! quasi-identities merged first: basteln's Algorithm 1); a stage *consumes* another
//! when it reads values the other writes. Tiling every stage on its own keeps each intermediate image
//! in memory between stages. [`fuse`] instead tiles only an *output* stage and computes,
//! for each of its tiles, exactly the instances of its producers that the tile needs:
//!
//! 1. **Output tiling.** The leading parallel members of the output's band `φ` are
//!    tiled: tile `o = floor(φ(i) / T)`.
//! 2. **Footprints.** The tile's footprint on an array `A` is `f = t⁻¹ ∘ reads`,
//!    `{ [o] -> A[x] }` (digest eq. 13), exact, partial tiles included.
//! 3. **Backward slicing.** A producer `P` writing `A` gets the tile shape
//!    `h = f ∘ writes_P⁻¹` (eq. 15), widened to whole points of `P`'s band so that every
//!    statement of `P` (an initialisation and its update, say) runs with it (eq. 17):
//!    the *extension* `e_P = { [o] -> P[i] }`. Tiles overlap where neighbouring outputs
//!    read the same values: those instances are recomputed by each tile. `P`'s own reads
//!    join the footprint and its producers are sliced in turn, from the output backwards.
//! 4. **Scratchpads.** What a producer writes inside a tile lives in a small array of the
//!    tile, its *window*: a box of constant extents whose origin is an affine function
//!    of the tile coordinates ([`Scratch`]). Reads of the producer's array in the tile are
//!    relocated into the window (a [`Relocation`] the emitter applies to the text). When the array is live out of the region (every array
//!    is, unless [`FuseOptions::live_out`] names the live-out ones), each element is also
//!    written back by exactly one tile: the lexicographically first tile that computes it.
//! 5. **Post-tiling fusion.** Every fused instance becomes an instance of a *copy*
//!    statement whose iterators are the tile coordinates followed by the original ones
//!    (`S0_t[o0, o1, x, y]`), so that the program stays a plain [`Scop`]: the copies'
//!    domains are the extensions, their scratch arrays are indexed by the tile
//!    coordinates too (each tile owns its window), and the new tree is a tile band over
//!    a sequence of the producers' copies (their own subtrees) and the output's point
//!    band.
//!
//! A producer is fused into an output's group only when all its consumers are in the
//! group, no other stage writes its arrays, and every window has constant extents
//! (a consumer reading a whole row of it, as a matrix product does, would recompute the
//! whole producer in each tile), and, with [`FuseOptions::max_redundancy`], when each
//! of its windows holds at most that many times the tile's share of the array (the
//! halos that neighbouring tiles compute again grow with every stencil and resampling
//! along a chain). Stages that join no group keep their own subtree.
//!
//! A stage that reads only the region's inputs and writes only arrays that are dead
//! after it (with [`FuseOptions::live_out`] given) may be *recomputed*: every group
//! reading it may fuse it, each with its own windows, even when some of its consumers
//! are elsewhere; a recomputed stage all of whose consumers recompute it never runs
//! whole. A premultiplication by an alpha channel, read by a downsampling at the start
//! of a pyramid and again by its last level, is then computed twice from the input
//! instead of being stored and read back twice.
//!
//! With [`FuseOptions::groups`], a grouping decided elsewhere (PolyMage's model) says
//! which stages go together.
//!
//! Every result is confirmed by [`check`], which uses nothing of the construction but
//! each new statement's declared origin: the dataflow inside a symbolic tile equals the
//! original's, tiles touch disjoint global data, outputs run once, and the units of the
//! new program keep the original's dependences and final values.

pub(crate) mod build;
pub mod check;
pub(crate) mod window;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use pollen_presburger::UnionMap;
use pollen_scop::{ScheduleTree, Scop};

pub use build::fuse;

/// The choices of [`fuse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuseOptions {
    /// The tile sizes of the output bands, outermost member first (the last one is
    /// repeated for deeper bands); `None` for the default: 256 for the innermost member,
    /// 32 for the one outside it and 1 for the others (a channel loop, say).
    pub tile_sizes: Option<Vec<i64>>,
    /// The arrays whose values are used after the region; `None` when every array may be
    /// (fused intermediates are then written back from their scratchpads).
    pub live_out: Option<BTreeSet<String>>,
    /// Without given tile sizes: the most bytes the producers' windows of one tile may
    /// take, and the tiles are the largest that fit (the innermost member 128 wide, the
    /// one outside it 64, 32, ... 1, the others 1, or whole when they take at most 4
    /// constant values, as image channels do); `None`: the fixed defaults of
    /// [`FuseOptions::tile_sizes`].
    pub footprint_bytes: Option<u64>,
    /// The most stages (the output's included) a group of the greedy slicing may hold
    /// (default 32): each fused producer's footprint composes its consumers', and the
    /// slicing of long chains costs time ([`FuseOptions::max_redundancy`] bounds what
    /// they cost to run). A given grouping ([`FuseOptions::groups`]) is not bounded.
    pub max_stages: usize,
    /// The most redundant computation a fused producer may bring, as a fraction
    /// `(numerator, denominator)`: each of its windows may hold at most that many
    /// elements per element of the tile's share (its step from one tile to the next
    /// along the dimensions that move with the tiles); the rest is the halo that
    /// neighbouring tiles compute again. A producer past it stays out of the group, and
    /// so do the producers only it consumes. `None` (the default): unbounded, as
    /// basteln's slicing is.
    pub max_redundancy: Option<(i64, i64)>,
    /// A grouping decided elsewhere (PolyMage's, say): each group's last stage in program
    /// order is its output, and only the group's other stages are fused into it, each
    /// when it can be (see [`fuse`]); stages in no group stay as they are. `None`: every
    /// tilable stage without a consumer left is an output, greedily from the last
    /// (basteln's Algorithm 2).
    pub groups: Option<Vec<GroupSpec>>,
}

impl Default for FuseOptions {
    fn default() -> FuseOptions {
        FuseOptions {
            tile_sizes: None,
            live_out: None,
            footprint_bytes: None,
            max_stages: 32,
            max_redundancy: None,
            groups: None,
        }
    }
}

/// One group of a given grouping: the statements of its stages and its tile sizes
/// (`None`: [`FuseOptions::tile_sizes`]). Sizes at least as many as the output band's
/// members are aligned with the band's innermost member (a grouping model's tiles over
/// a common space padded on the outside); fewer are read from the outermost member, the
/// last repeated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupSpec {
    /// The statements of the group's stages.
    pub statements: Vec<String>,
    /// The output band's tile sizes.
    pub tile_sizes: Option<Vec<i64>>,
}

/// A fused program: a new scop (copies of the fused statements, write-backs), its
/// schedule and the scratch arrays the emitter declares.
#[derive(Clone, Debug)]
pub struct Fused {
    /// The new program; its `schedule` is [`Fused::tree`].
    pub scop: Scop,
    /// The schedule of the new program.
    pub tree: ScheduleTree,
    /// The scratch arrays, declared by the emitter at the start of the innermost loop
    /// that encloses every statement using them (the innermost tile loop: one window per
    /// tile, private to the thread that runs the tile).
    pub scratch: Vec<Scratch>,
    /// The groups formed, in program order.
    pub groups: Vec<Group>,
    /// What each statement of the new program computes.
    pub origins: BTreeMap<String, check::Origin>,
    /// The references of statements to move into their windows: the statements keep
    /// their original text, and the emitter prints each reference `A[e1]..[en]` of a
    /// relocated array as `window[(e1) - (o1)]..[(en) - (on)]`.
    pub relocations: Vec<Relocation>,
}

/// References of one statement to one array, moved into a window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relocation {
    /// The statement of the new program.
    pub statement: String,
    /// The array its text refers to.
    pub array: String,
    /// The window (scratch array) the references go to.
    pub window: String,
    /// The window's origin per dimension, over the statement's iterators and the
    /// parameters.
    pub origin: Vec<Linear>,
}

/// `constant + Σ coefficient * name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linear {
    /// The constant term.
    pub constant: pollen_arith::Int,
    /// The other terms: a variable's name and its coefficient.
    pub terms: Vec<(String, pollen_arith::Int)>,
}

/// One scratch array: the window of an intermediate array inside a tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scratch {
    /// Its name (fresh: no statement body uses it).
    pub name: String,
    /// The array it holds a window of.
    pub array: String,
    /// The C element type.
    pub element_type: String,
    /// The window's extents.
    pub extents: Vec<i64>,
    /// The statements that use it.
    pub statements: Vec<String>,
    /// The number of tile coordinates before the statements' own iterators (the
    /// window an instance uses is its tile's).
    pub tile_dims: usize,
}

/// One fusion group: an output stage tiled, with the producers fused into its tiles.
#[derive(Clone, Debug)]
pub struct Group {
    /// The output stage's statements.
    pub output: Vec<String>,
    /// The statements of the new program that run inside the group's tiles.
    pub statements: Vec<String>,
    /// The tile sizes of the output band.
    pub tile_sizes: Vec<i64>,
    /// Which tile band members run in parallel (confirmed by the checker).
    pub parallel: Vec<bool>,
    /// The fused producers, in the order a tile runs them.
    pub producers: Vec<FusedStage>,
    /// Producers that were left out because computing their slice ran past its share
    /// of the budget (their statements).
    pub over_budget: Vec<Vec<String>>,
    /// Producers that were left out because their windows hold more than
    /// [`FuseOptions::max_redundancy`] times the tile's share (their statements).
    pub too_redundant: Vec<Vec<String>>,
}

/// A producer fused into a group.
#[derive(Clone, Debug)]
pub struct FusedStage {
    /// Its statements.
    pub statements: Vec<String>,
    /// The extension: `{ [o] -> S[i] }`, the instances each tile computes.
    pub extension: UnionMap,
    /// The windows of its arrays: array, scratch extents, written back or not.
    pub windows: Vec<(String, Vec<i64>, bool)>,
    /// Instances no tile computes, run after the group's tiles (they write live-out
    /// values no tile reads).
    pub reserved: bool,
}

impl fmt::Display for Fused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.groups.is_empty() {
            return writeln!(f, "fused tiling: no group (no stage could be tiled)");
        }
        for (k, g) in self.groups.iter().enumerate() {
            let sizes: Vec<String> = g.tile_sizes.iter().map(i64::to_string).collect();
            let parallel: Vec<&str> = g
                .parallel
                .iter()
                .map(|&p| if p { "parallel" } else { "sequential" })
                .collect();
            writeln!(
                f,
                "group {k}: output {{{}}}, tiles {} ({})",
                g.output.join(", "),
                sizes.join(" x "),
                parallel.join(", ")
            )?;
            if g.producers.is_empty() {
                writeln!(f, "  no producer fused")?;
            }
            for p in &g.producers {
                writeln!(
                    f,
                    "  fused {{{}}}: {}",
                    p.statements.join(", "),
                    p.extension
                )?;
                for (array, extents, back) in &p.windows {
                    let e: Vec<String> = extents.iter().map(i64::to_string).collect();
                    writeln!(
                        f,
                        "    {array}: window {}{}",
                        e.join(" x "),
                        if *back { ", written back" } else { "" }
                    )?;
                }
                if p.reserved {
                    writeln!(f, "    instances no tile needs run after the tiles")?;
                }
            }
            for p in &g.over_budget {
                writeln!(
                    f,
                    "  not fused {{{}}}: slicing it ran past its share of the budget",
                    p.join(", ")
                )?;
            }
            for p in &g.too_redundant {
                writeln!(
                    f,
                    "  not fused {{{}}}: its halo is over the redundancy bound",
                    p.join(", ")
                )?;
            }
        }
        Ok(())
    }
}
