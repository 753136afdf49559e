//! Rectangular tiling of permutable bands, with an optional second level, a wavefront over
//! the tiles and the intra-tile loop order; the result is confirmed by the independent
//! legality checker.
//!
//! # The transformation
//! A permutable band `f = (f_0, ..., f_{n-1})` with at least
//! [`TileOptions::min_band_depth`] members becomes
//! ```text
//!   [second-level tile band  floor(f_k / (s_k·t_k))]     (with TileOptions::second_level)
//!    tile band               floor(f_k / s_k)
//!     [mark unroll-and-jam]  (with TileOptions::unroll_and_jam, when it pays)
//!     point band             f_{order[0]}, ..., f_{order[n-1]}
//!      the band's original subtree (tiled in turn)
//! ```
//! Tiling a permutable band is legal (Irigoin and Triolet, *Supernode partitioning*,
//! POPL 1988): every dependence has non-negative distances on every member, hence on
//! every `floor(f_k / s)`; the tile bands and the point band are permutable again (within
//! a tile, the point band's members keep their non-negative distances, so any order of
//! them is legal, which is what lets [`crate::order`] choose the innermost loop).
//!
//! # Parallelism
//! A member's coincident flag is only proposed here: tile member `k` and point member
//! `k` inherit the flag of original member `k`. Whether a loop of the *tiled* schedule is
//! parallel is then decided by [`legality::check`] on the final tree: every flag it
//! refutes is cleared and the tree checked again. (Coincidence does not always survive
//! tiling: a dependence of distance `(1, 1)` leaves `f_1` parallel among the instances
//! with equal `f_0`, but two instances in one tile row can sit in adjacent tile columns.)
//!
//! # Wavefront
//! With [`TileOptions::wavefront`], every outermost tile band of at least two members left
//! without a coincident member by the check (stencils: every member carries a dependence,
//! or the parallel member's parallelism did not survive tiling, as in heat-3d), and not
//! itself inside the loops of another band (there, every iteration of the enclosing loop
//! would pay the wavefront's start-up and synchronisation, as in floyd-warshall), is then
//! skewed `(T_0, T_1, ...) -> (T_0 + T_1, T_1, ...)`: a dependence with tile distance
//! `(d_0, d_1, ...) ≥ 0` and `d_0 + d_1 = 0` has `d_1 = 0`, so `T_1` is parallel within a
//! wavefront `T_0 + T_1` (pipelined parallelism over tiles). The skew is unimodular, so
//! the band stays permutable. The tree is checked again, and a skew whose `T_1` the
//! checker does not confirm is undone.
//!
//! # Invariant
//! Every tree returned by [`tile`] passes [`legality::check`] with the given dependences,
//! flags included; otherwise [`tile`] returns [`Error::Illegal`] with the report.

use std::collections::BTreeMap;

use pollen_deps::Dependence;
use pollen_presburger::{Budget, Map, UnionMap};
use pollen_sched::legality::{self, ViolationKind};
use pollen_scop::marks::unroll_and_jam_name;
use pollen_scop::{Band, Node, ScheduleTree, Scop};

use crate::error::{Error, Result};
use crate::maps::{compose, permutation_map, tile_map, wavefront_map};
use crate::order::{
    carries_recurrence_in, extend_prefix, has_tiling_reuse_in, intra_tile_order,
    invariant_read_of_written_array, is_triangular_in, keeps_outer_loops_in, lane_innermost,
    member_steps_in, point_order, register_tiling_in, strided_with_spatial_reuse,
    writes_unit_stride_in, Prefix,
};
use crate::sizes::{
    default_tile_sizes, default_triangular_tile_sizes, default_two_level_tile_sizes, element_bytes,
    CacheInfo,
};

/// The options of [`tile`].
#[derive(Clone, Debug)]
pub struct TileOptions {
    /// Tile sizes per band member, the last value repeated for further members; `None`
    /// chooses them from [`TileOptions::cache`] ([`crate::sizes`]).
    pub sizes: Option<Vec<i64>>,
    /// Second-level tile sizes per member, in units of first-level tiles (as Pluto's
    /// `--l2tile`), the last value repeated; `None` tiles once.
    pub second_level: Option<Vec<i64>>,
    /// Skew the outermost tile band of bands without a parallel member into a wavefront
    /// (default off).
    pub wavefront: bool,
    /// Choose the innermost point loop for stride-1 accesses (default on).
    pub intra_tile_order: bool,
    /// Order the members of every permutable band, tile and point bands alike, with
    /// the coincident (parallel) members first, each group in the band's order
    /// (default off; overrides [`TileOptions::intra_tile_order`]). The GPU mapping's
    /// order: the parallel tile loops become blocks, the parallel point loops threads
    /// (the innermost of them, the scheduler's innermost parallel member, the threads'
    /// `x`), and the sequential members run inside them.
    pub coincident_first: bool,
    /// Tile only the last `k` coincident members of each band (in the band's order)
    /// with the sizes; the other coincident members get tiles of size 1 (default
    /// `None`: every member tiled). The GPU mapping's choice: the threads of a block go
    /// to the innermost parallel point loops, and a deep band's outer parallel
    /// dimensions (batch, heads) spread over blocks instead of inside a tile.
    pub parallel_tiled: Option<usize>,
    /// Put innermost, in every permutable band (tiled or not) without bands below it,
    /// the last coincident member along which every write of the band has unit stride
    /// ([`crate::order::lane_innermost`]), ahead of the stride-1 choice (default off):
    /// the order the emitter's vector accumulators need, a reduction's loops outside
    /// the loop over its output's lanes even where its reads stride.
    pub lane_innermost: bool,
    /// Register tiling: mark point bands whose loops gain from unroll-and-jam
    /// ([`crate::order::register_tiling`]) for code generation (default off).
    pub unroll_and_jam: bool,
    /// Tile only bands where tiling can bring reuse closer
    /// ([`crate::order::has_tiling_reuse`]; default off: every permutable band).
    pub require_reuse: bool,
    /// Tile only bands with at least this many members (default 2: a one-member band
    /// gains no locality from tiling).
    pub min_band_depth: usize,
    /// The cache sizes for the default tile sizes.
    pub cache: CacheInfo,
    /// The number of elementary steps the legality check may take, or unlimited.
    pub budget: Option<u64>,
}

impl Default for TileOptions {
    fn default() -> TileOptions {
        TileOptions {
            sizes: None,
            second_level: None,
            wavefront: false,
            intra_tile_order: true,
            coincident_first: false,
            parallel_tiled: None,
            lane_innermost: false,
            unroll_and_jam: false,
            require_reuse: false,
            min_band_depth: 2,
            cache: CacheInfo::default(),
            budget: None,
        }
    }
}

/// Tiles every permutable band of `tree` with at least `options.min_band_depth` members
/// (see the module documentation) and returns the new tree, checked against `deps`.
///
/// `scop` provides the accesses (intra-tile order) and the element types (default sizes).
pub fn tile(
    scop: &Scop,
    deps: &[Dependence],
    tree: &ScheduleTree,
    options: &TileOptions,
) -> Result<ScheduleTree> {
    let mut budget = match options.budget {
        Some(steps) => Budget::new(steps),
        None => Budget::unlimited(),
    };
    tile_with(scop, deps, tree, options, &mut budget)
}

/// [`tile`] within `budget` (the access-step queries and the legality checks spend it;
/// `options.budget` is ignored). Running out gives [`Error::LimitExceeded`].
pub fn tile_with(
    scop: &Scop,
    deps: &[Dependence],
    tree: &ScheduleTree,
    options: &TileOptions,
    budget: &mut Budget,
) -> Result<ScheduleTree> {
    for list in [&options.sizes, &options.second_level]
        .into_iter()
        .flatten()
    {
        check_sizes(list)?;
    }
    let mut tiler = Tiler {
        scop,
        options,
        budget: &mut *budget,
        outermost_tile_bands: Vec::new(),
        prefix: Prefix::new(),
    };
    let root = tiler.node(&tree.root, &mut Vec::new())?;
    let outermost_tile_bands = tiler.outermost_tile_bands;
    let mut tiled = ScheduleTree { root };
    let mut checker = Checker { deps, budget };
    checker.settle(&mut tiled, &Wavefronts::new())?;
    if options.wavefront {
        let wavefronts = add_wavefronts(&mut tiled, &outermost_tile_bands)?;
        if !wavefronts.is_empty() {
            checker.settle(&mut tiled, &wavefronts)?;
        }
    }
    Ok(tiled)
}

/// `tree` with the coincident flag of every band member decided exactly: all flags are
/// proposed and [`legality::check`] clears the ones it refutes (e.g. to run the original
/// schedule with its parallel loops marked). Fails with [`Error::Illegal`] when `tree`
/// violates a dependence or a band marked permutable is not.
pub fn parallelize(
    deps: &[Dependence],
    tree: &ScheduleTree,
    budget: Option<u64>,
) -> Result<ScheduleTree> {
    let mut budget = match budget {
        Some(steps) => Budget::new(steps),
        None => Budget::unlimited(),
    };
    parallelize_with(deps, tree, &mut budget)
}

/// [`parallelize`] within `budget`; running out gives [`Error::LimitExceeded`].
pub fn parallelize_with(
    deps: &[Dependence],
    tree: &ScheduleTree,
    budget: &mut Budget,
) -> Result<ScheduleTree> {
    fn propose(node: &mut Node) {
        if let Node::Band(band) = node {
            band.coincident.iter_mut().for_each(|c| *c = true);
        }
        match node {
            Node::Domain { child, .. }
            | Node::Context { child, .. }
            | Node::Filter { child, .. }
            | Node::Mark { child, .. }
            | Node::Extension { child, .. } => propose(child),
            Node::Band(band) => propose(&mut band.child),
            Node::Sequence(children) | Node::Set(children) => children.iter_mut().for_each(propose),
            Node::Leaf => {}
        }
    }
    let mut out = tree.clone();
    propose(&mut out.root);
    let mut checker = Checker { deps, budget };
    checker.settle(&mut out, &Wavefronts::new())?;
    Ok(out)
}

/// The members' order with the coincident ones first, each group in its order.
/// Whether a band lies in the subtree.
fn has_band_below(node: &Node) -> bool {
    matches!(node, Node::Band(_)) || node.children().into_iter().any(has_band_below)
}

fn coincident_first(coincident: &[bool]) -> Vec<usize> {
    let (mut first, rest): (Vec<usize>, Vec<usize>) =
        (0..coincident.len()).partition(|&k| coincident[k]);
    first.extend(rest);
    first
}

/// Rejects an empty size list and non-positive sizes.
fn check_sizes(sizes: &[i64]) -> Result<()> {
    if sizes.is_empty() {
        return Err(Error::InvalidTileSize { size: 0 });
    }
    match sizes.iter().find(|&&s| s < 1) {
        Some(&size) => Err(Error::InvalidTileSize { size }),
        None => Ok(()),
    }
}

/// `sizes` extended (last value repeated) or cut to `n` members.
fn per_member(sizes: &[i64], n: usize) -> Vec<i64> {
    (0..n).map(|k| sizes[k.min(sizes.len() - 1)]).collect()
}

/// The wavefront skews made, by band position: the tile band's schedule before the skew,
/// to restore if the checker refutes the parallel member.
type Wavefronts = BTreeMap<Vec<usize>, UnionMap>;

/// The tree rewriter.
struct Tiler<'a, 'b> {
    scop: &'a Scop,
    options: &'a TileOptions,
    /// Spent by the access-step queries.
    budget: &'b mut Budget,
    /// The positions of the outermost tile band of every tiled band.
    outermost_tile_bands: Vec<Vec<usize>>,
    /// The input tree's bands around the node being rewritten (held fixed by the
    /// access-step queries).
    prefix: Prefix,
}

impl Tiler<'_, '_> {
    /// The rewritten subtree of `node`, which sits at `path` (child indices from the
    /// root) in the new tree.
    fn node(&mut self, node: &Node, path: &mut Vec<usize>) -> Result<Node> {
        let tiled = match node {
            Node::Band(b) => self.is_tiled(b)?,
            _ => false,
        };
        Ok(match node {
            Node::Band(b) if tiled => self.tile_band(b, path)?,
            Node::Band(b) => {
                // An untiled permutable band still gets the stride-1 member innermost.
                let order = if b.permutable {
                    self.member_order(b)?
                } else {
                    (0..b.n_members()).collect()
                };
                let mut band = Band {
                    schedule: map_each(&b.schedule, |m| compose(m, &permutation_map(&order)))?,
                    permutable: b.permutable,
                    coincident: order.iter().map(|&k| b.coincident[k]).collect(),
                    child: Box::new(Node::Leaf),
                };
                // An innermost band's loops are register tiled as a tile's point loops
                // are (the whole band is one tile).
                let jam = if self.options.unroll_and_jam
                    && b.permutable
                    && self.options.min_band_depth != usize::MAX
                    && !has_band_below(&b.child)
                {
                    register_tiling_in(self.scop, &band, &self.prefix, self.budget)?
                } else {
                    Vec::new()
                };
                if !jam.is_empty() {
                    path.push(0);
                }
                band.child = Box::new(self.below(b, |tiler| tiler.child(&b.child, path, 0))?);
                if !jam.is_empty() {
                    path.pop();
                }
                let node = Node::Band(band);
                if jam.is_empty() {
                    node
                } else {
                    Node::Mark {
                        name: unroll_and_jam_name(&jam),
                        child: Box::new(node),
                    }
                }
            }
            Node::Domain { domain, child } => Node::Domain {
                domain: domain.clone(),
                child: Box::new(self.child(child, path, 0)?),
            },
            Node::Context { context, child } => Node::Context {
                context: context.clone(),
                child: Box::new(self.child(child, path, 0)?),
            },
            Node::Filter { filter, child } => Node::Filter {
                filter: filter.clone(),
                child: Box::new(self.child(child, path, 0)?),
            },
            Node::Mark { name, child } => Node::Mark {
                name: name.clone(),
                child: Box::new(self.child(child, path, 0)?),
            },
            Node::Extension { extension, child } => Node::Extension {
                extension: extension.clone(),
                child: Box::new(self.child(child, path, 0)?),
            },
            Node::Sequence(children) => Node::Sequence(self.children(children, path)?),
            Node::Set(children) => Node::Set(self.children(children, path)?),
            Node::Leaf => Node::Leaf,
        })
    }

    /// `f` run with the prefix extended by `band` (for the band's subtree).
    fn below<T>(&mut self, band: &Band, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let inner = extend_prefix(&self.prefix, band)?;
        let outer = std::mem::replace(&mut self.prefix, inner);
        let result = f(self);
        self.prefix = outer;
        result
    }

    /// The rewritten child number `index` of the node at `path`.
    fn child(&mut self, child: &Node, path: &mut Vec<usize>, index: usize) -> Result<Node> {
        path.push(index);
        let result = self.node(child, path);
        path.pop();
        result
    }

    fn children(&mut self, children: &[Node], path: &mut Vec<usize>) -> Result<Vec<Node>> {
        let mut out = Vec::with_capacity(children.len());
        for (k, c) in children.iter().enumerate() {
            out.push(self.child(c, path, k)?);
        }
        Ok(out)
    }

    /// The order of a permutable band's members with the best stride-1 member innermost
    /// ([`intra_tile_order`]), or the identity when that choice is off.
    fn member_order(&mut self, band: &Band) -> Result<Vec<usize>> {
        self.ordered(band, false)
    }

    /// [`Tiler::member_order`] for the point band of a tile ([`point_order`]).
    fn point_member_order(&mut self, band: &Band) -> Result<Vec<usize>> {
        self.ordered(band, true)
    }

    fn ordered(&mut self, band: &Band, point: bool) -> Result<Vec<usize>> {
        if self.options.coincident_first {
            return Ok(coincident_first(&band.coincident));
        }
        // The members of a band with loops below it are not the innermost loops: the
        // strides of its accesses along them say nothing about vectorization.
        if !self.options.intra_tile_order || band.n_members() < 2 || has_band_below(&band.child) {
            return Ok((0..band.n_members()).collect());
        }
        let steps = member_steps_in(self.scop, band, &self.prefix, self.budget)?;
        let scores: Vec<i64> = steps.iter().map(|(u, s)| u - s).collect();
        let strided: Vec<i64> = steps.iter().map(|(_, s)| *s).collect();
        if self.options.lane_innermost {
            let lanes = writes_unit_stride_in(self.scop, band, &self.prefix, self.budget)?;
            if lanes.iter().zip(&band.coincident).any(|(l, c)| *l && *c) {
                let order = if point {
                    point_order(&scores, &strided, &band.coincident)
                } else {
                    intra_tile_order(&scores, &strided, &band.coincident)
                };
                return Ok(lane_innermost(&order, &lanes, &band.coincident));
            }
        }
        if !point {
            return Ok(intra_tile_order(&scores, &strided, &band.coincident));
        }
        let order = point_order(&scores, &strided, &band.coincident);
        Ok(match self.across_recurrence(band, &order, &scores)? {
            Some(b) => (0..band.n_members())
                .filter(|&m| m != b)
                .chain([b])
                .collect(),
            None => order,
        })
    }

    /// The coincident member (the best scored, the later on ties) to run innermost
    /// instead of the innermost member of `order` when that one carries a recurrence
    /// ([`carries_recurrence_in`]): inside a tile, the iterations of a parallel member
    /// are independent, so the innermost loop vectorises (or at least overlaps its
    /// iterations) across the recurrence's rows, and the tile keeps the cache lines its
    /// strided accesses bring in for the recurrence's next steps.
    fn across_recurrence(
        &mut self,
        band: &Band,
        order: &[usize],
        scores: &[i64],
    ) -> Result<Option<usize>> {
        let innermost = order[order.len() - 1];
        if !carries_recurrence_in(self.scop, band, &self.prefix, innermost, self.budget)? {
            return Ok(None);
        }
        Ok((0..band.n_members())
            .filter(|&m| band.coincident[m])
            .max_by_key(|&m| (scores[m], m)))
    }

    /// Whether `band` is tiled.
    fn is_tiled(&mut self, band: &Band) -> Result<bool> {
        if !band.permutable || band.n_members() < self.options.min_band_depth.max(1) {
            return Ok(false);
        }
        // The statements' shared outer loops, untouched, with loops below them: tiled,
        // they keep whole inner loops inside each point iteration, so no footprint
        // shrinks, and their parallel tile loop has fewer iterations than the parallel
        // loop itself. (Skewed or fused bands keep their tiles.)
        if self.options.require_reuse
            && has_band_below(&band.child)
            && keeps_outer_loops_in(band, &self.prefix, self.budget)?
        {
            return Ok(false);
        }
        if self.options.require_reuse
            && !has_tiling_reuse_in(self.scop, band, &self.prefix, self.budget)?
        {
            // Without reuse to bring closer, tiles still pay where the stride-1 order
            // moves the outermost parallel member inwards: the tile loop of that member
            // stays outside, one parallel loop around the band instead of one per
            // iteration of the loops now outside it.
            let order = self.member_order(band)?;
            let first_parallel = |order: &[usize]| order.iter().position(|&k| band.coincident[k]);
            let identity: Vec<usize> = (0..band.n_members()).collect();
            if first_parallel(&order) > first_parallel(&identity) {
                return Ok(true);
            }
            // An innermost recurrence beside a parallel member: tiles let the point
            // loops run across the recurrence's rows.
            let steps = member_steps_in(self.scop, band, &self.prefix, self.budget)?;
            let scores: Vec<i64> = steps.iter().map(|(u, s)| u - s).collect();
            if self.across_recurrence(band, &order, &scores)?.is_some() {
                return Ok(true);
            }
            // A band without a parallel member runs sequentially untiled; its tiles
            // run as a wavefront, the tiles of one wave in parallel.
            if self.options.wavefront && band.coincident.iter().all(|c| !c) {
                return Ok(true);
            }
            // Cache lines of a strided innermost access serve the next iterations of
            // the member along which they are consecutive while tiles keep them.
            let innermost = order[order.len() - 1];
            if strided_with_spatial_reuse(self.scop, band, &self.prefix, innermost, self.budget)? {
                return Ok(true);
            }
            // An innermost loop that reads an element it may overwrite vectorises in
            // the tiles that do not hold the overwriting iteration.
            return invariant_read_of_written_array(
                self.scop,
                band,
                &self.prefix,
                innermost,
                self.budget,
            );
        }
        Ok(true)
    }

    /// The tile bands and the point band replacing `band`, which sits at `path`.
    fn tile_band(&mut self, band: &Band, path: &mut Vec<usize>) -> Result<Node> {
        let levels = self.level_sizes(band)?;
        let order = self.point_member_order(band)?;
        let mut point = Band {
            schedule: map_each(&band.schedule, |m| compose(m, &permutation_map(&order)))?,
            permutable: true,
            coincident: order.iter().map(|&k| band.coincident[k]).collect(),
            child: Box::new(Node::Leaf),
        };
        let jam = if self.options.unroll_and_jam {
            register_tiling_in(self.scop, &point, &self.prefix, self.budget)?
        } else {
            Vec::new()
        };
        // The point band's child sits below the tile bands, the point band and the mark.
        let depth = path.len();
        let mark = usize::from(!jam.is_empty());
        path.resize(depth + levels.len() + 1 + mark, 0);
        let child = self.below(band, |tiler| tiler.node(&band.child, path));
        path.truncate(depth);
        point.child = Box::new(child?);
        let mut node = Node::Band(point);
        if !jam.is_empty() {
            node = Node::Mark {
                name: unroll_and_jam_name(&jam),
                child: Box::new(node),
            };
        }
        // With `coincident_first`, the tile loops are ordered as the point loops.
        let tile_order: Vec<usize> = if self.options.coincident_first {
            order.clone()
        } else {
            (0..band.n_members()).collect()
        };
        for (level, sizes) in levels.iter().enumerate().rev() {
            let tile_band = Band {
                schedule: map_each(&band.schedule, |m| {
                    compose(
                        &compose(m, &tile_map(sizes))?,
                        &permutation_map(&tile_order),
                    )
                })?,
                permutable: true,
                coincident: tile_order.iter().map(|&k| band.coincident[k]).collect(),
                child: Box::new(node),
            };
            if level == 0 {
                self.outermost_tile_bands.push(path.clone());
            }
            node = Node::Band(tile_band);
        }
        Ok(node)
    }

    /// The cumulative tile sizes of each tile band, outermost first, in iterations of the
    /// original members.
    fn level_sizes(&mut self, band: &Band) -> Result<Vec<Vec<i64>>> {
        let n = band.n_members();
        let first = match (&self.options.sizes, &self.options.second_level) {
            (Some(sizes), _) => per_member(sizes, n),
            (None, Some(_)) => {
                default_two_level_tile_sizes(&self.options.cache, self.element_bytes(band), n).0
            }
            (None, None) => {
                let bytes = self.element_bytes(band);
                if is_triangular_in(self.scop, band, &self.prefix, self.budget)? {
                    default_triangular_tile_sizes(&self.options.cache, bytes, n)
                } else {
                    default_tile_sizes(&self.options.cache, bytes, n)
                }
            }
        };
        let mut first = first;
        if let Some(k) = self.options.parallel_tiled {
            let coincident: Vec<usize> = (0..n).filter(|&m| band.coincident[m]).collect();
            for &m in &coincident[..coincident.len().saturating_sub(k)] {
                first[m] = 1;
            }
        }
        let Some(second) = &self.options.second_level else {
            return Ok(vec![first]);
        };
        let outer = first
            .iter()
            .zip(per_member(second, n))
            .map(|(a, b)| a.checked_mul(b).ok_or(Error::TileSizeOverflow))
            .collect::<Result<Vec<i64>>>()?;
        Ok(vec![outer, first])
    }

    /// The largest element size of the arrays accessed by the statements of `band`.
    fn element_bytes(&self, band: &Band) -> u64 {
        let mut bytes = None;
        for m in band.schedule.maps() {
            let name = m.space().domain_tuple().and_then(|t| t.name());
            let Some(s) = name.and_then(|name| self.scop.statement(name)) else {
                continue;
            };
            for a in &s.accesses {
                if let Some(array) = self.scop.array(&a.array) {
                    let b = element_bytes(&array.element_type);
                    bytes = Some(bytes.map_or(b, |x: u64| x.max(b)));
                }
            }
        }
        bytes.unwrap_or(8)
    }
}

/// `f` applied to every map of a union map.
fn map_each(u: &UnionMap, f: impl Fn(&Map) -> Result<Map>) -> Result<UnionMap> {
    let mut out = UnionMap::empty(u.param_names().to_vec());
    for m in u.maps() {
        out.add_map(f(m)?)?;
    }
    Ok(out)
}

/// Skews every tile band at `paths` into a wavefront when it has at least two members and
/// no coincident member (flags as confirmed by the checker), proposing its second member as
/// coincident; returns the skews made.
fn add_wavefronts(tree: &mut ScheduleTree, paths: &[Vec<usize>]) -> Result<Wavefronts> {
    let mut made = Wavefronts::new();
    for path in paths {
        if below_a_band(&tree.root, path) {
            continue;
        }
        let Some(Node::Band(band)) = node_at_mut(&mut tree.root, path) else {
            continue;
        };
        let n = band.n_members();
        if n < 2 || band.coincident.iter().any(|&c| c) {
            continue;
        }
        let skewed = map_each(&band.schedule, |m| compose(m, &wavefront_map(n)))?;
        made.insert(path.clone(), std::mem::replace(&mut band.schedule, skewed));
        band.coincident[1] = true;
    }
    Ok(made)
}

/// Whether the node at `path` lies below a band node (inside the loops of another band).
fn below_a_band(node: &Node, path: &[usize]) -> bool {
    let Some((&first, rest)) = path.split_first() else {
        return false;
    };
    if matches!(node, Node::Band(_)) {
        return true;
    }
    match node.children().get(first) {
        Some(child) => below_a_band(child, rest),
        None => false,
    }
}

/// Checks `tree` and clears the coincident flags the checker refutes; any other
/// violation is an error ([`Error::Illegal`]).
pub(crate) fn settle_flags(
    deps: &[Dependence],
    tree: &mut ScheduleTree,
    budget: &mut Budget,
) -> Result<()> {
    Checker { deps, budget }.settle(tree, &Wavefronts::new())
}

/// The legality checker with its dependences and budget.
struct Checker<'a, 'b> {
    deps: &'a [Dependence],
    budget: &'b mut Budget,
}

impl Checker<'_, '_> {
    /// Checks the tree, clears every coincident flag the checker refutes (undoing a
    /// wavefront of `wavefronts` whose parallel member is refuted) and checks again; any
    /// other violation is an error.
    fn settle(&mut self, tree: &mut ScheduleTree, wavefronts: &Wavefronts) -> Result<()> {
        const ROUNDS: usize = 3;
        for round in 0..ROUNDS {
            let report = legality::check_with(self.deps, tree, self.budget)?;
            if report.is_legal() {
                return Ok(());
            }
            let only_flags = report
                .violations
                .iter()
                .all(|v| matches!(v.kind, ViolationKind::Coincident { .. }));
            if !only_flags || round + 1 == ROUNDS {
                return Err(Error::Illegal(report));
            }
            for v in &report.violations {
                if let ViolationKind::Coincident { band, member, .. } = &v.kind {
                    clear_flag(tree, band, *member, wavefronts);
                }
            }
        }
        Ok(())
    }
}

/// Clears the coincident flag of `member` of the band at `path`; for a wavefront band
/// whose parallel member is refuted, restores the unskewed schedule (whose members are
/// all non-coincident).
fn clear_flag(tree: &mut ScheduleTree, path: &[usize], member: usize, wavefronts: &Wavefronts) {
    let Some(Node::Band(band)) = node_at_mut(&mut tree.root, path) else {
        return;
    };
    if let Some(flag) = band.coincident.get_mut(member) {
        *flag = false;
    }
    if member == 1 {
        if let Some(unskewed) = wavefronts.get(path) {
            band.schedule = unskewed.clone();
            band.coincident.iter_mut().for_each(|c| *c = false);
        }
    }
}

/// The node at `path` (child indices from `node`).
pub(crate) fn node_at_mut<'a>(node: &'a mut Node, path: &[usize]) -> Option<&'a mut Node> {
    let Some((&first, rest)) = path.split_first() else {
        return Some(node);
    };
    let child = match node {
        Node::Domain { child, .. }
        | Node::Context { child, .. }
        | Node::Filter { child, .. }
        | Node::Mark { child, .. }
        | Node::Extension { child, .. } => (first == 0).then_some(&mut **child),
        Node::Band(b) => (first == 0).then_some(&mut *b.child),
        Node::Sequence(children) | Node::Set(children) => children.get_mut(first),
        Node::Leaf => None,
    }?;
    node_at_mut(child, rest)
}
