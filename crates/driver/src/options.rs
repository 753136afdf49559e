//! The choices of one optimizer run ([`Options`]), each an explicit value with a
//! documented default. Building the default does no IO: the cache sizes default to
//! [`CacheInfo::default`], and a caller that knows the machine's fills them in.

use pollen_transform::CacheInfo;

/// Every choice the pipeline makes on the caller's behalf.
///
/// The defaults are those of `pollen opt`: Pluto with smart fusion, tiling with sizes
/// from the cache model, unroll-and-jam, the profitability check, OpenMP parallel loops,
/// `#pragma omp simd`, scalar replacement, C output, [`DEFAULT_BUDGET`] per stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The optimization strategy: the whole program scheduled and tiled (Pluto or
    /// Feautrier), or pipelines tiled at their outputs with producers fused into the
    /// tiles (basteln).
    pub strategy: Strategy,
    /// The arrays whose values are used after the region, for [`Strategy::Basteln`]:
    /// intermediates not listed live only in their tiles' scratchpads. `None` (the
    /// default) means every array may be used afterwards.
    pub live_out: Option<std::collections::BTreeSet<String>>,
    /// Estimates of the parameters' values, for [`Strategy::Polymage`]'s cost model
    /// (a parameter not listed is estimated at 1024).
    pub estimates: std::collections::BTreeMap<String, i64>,
    /// The number of cores the code runs on, for [`Strategy::Polymage`]'s cost model
    /// (default 2; the `pollen` tool reads the machine's).
    pub cores: u32,
    /// The scheduling algorithm.
    pub algorithm: Algorithm,
    /// How the strongly connected components of the dependence graph are fused. With
    /// [`Fusion::Smart`], the cost model may fall back to no fusion
    /// ([`crate::FusionDecision`]).
    pub fusion: Fusion,
    /// Whether and with which sizes permutable bands are tiled.
    pub tiling: Tiling,
    /// The profitability check: keep the original loop order (its parallel loops
    /// marked) where the cost model expects it to vectorise more than the tiled schedule.
    /// `pollen opt --always-transform` turns it off.
    pub profitability: bool,
    /// Register tiling: the outer point loops of a tile whose copies share loads are
    /// unrolled and jammed into the innermost loop (only with tiling).
    pub unroll_and_jam: bool,
    /// Parallel loops get `#pragma omp parallel for`, and tile bands without a parallel
    /// member are skewed into wavefronts.
    pub parallel: bool,
    /// The pragma of vectorisable innermost loops.
    pub vectorize: Vectorize,
    /// Array reads of innermost loops loaded once into scalars where that saves loads.
    pub scalar_replacement: bool,
    /// Reductions of outer loops into the elements of an innermost vector loop are kept
    /// in explicit vector variables across those loops (strips of the vector loop moved
    /// outside them; `pollen_emit_c::EmitOptions::vector_registers`), and every
    /// permutable band puts innermost the coincident member along which its writes have
    /// unit stride (`pollen_transform::TileOptions::lane_innermost`), so that a
    /// reduction's loops run outside its output's lanes. Off by default;
    /// `pollen opt --vector-registers` turns it on.
    pub vector_registers: bool,
    /// The bytes of one vector of [`Options::vector_registers`]
    /// (`pollen_emit_c::EmitOptions::vector_bytes`): 32 by default (AVX), 64 for
    /// AVX-512; `pollen opt --vector-bytes`.
    pub vector_bytes: usize,
    /// Innermost loops that only accumulate (a sum, a product, a maximum or a minimum
    /// into elements that the loop does not move) are vectorised with reduction clauses
    /// (`pollen_emit_c::EmitOptions::reassociate`): their floating-point operations run
    /// in another order, so results may differ in rounding, as under TVM's or `-ffast-math`'s
    /// reductions. Off by default; `pollen opt --reassociate` turns it on.
    pub reassociate: bool,
    /// The mathematical functions the statements call are declared with their vector
    /// variants (`pollen_emit_c::EmitOptions::vector_math`: glibc's `libmvec` on
    /// x86-64), so that loops calling `expf` or `tanhf` vectorise; results may differ in
    /// the last bits. Off by default; `pollen opt --vector-math` turns it on.
    pub vector_math: bool,
    /// Statements whose subscripts divide an iterator by a constant (`u[x / 2]`) are
    /// split into one statement per residue class of the iterator, with affine
    /// subscripts (`pollen_transform::residues`), and so is one whose text compares an
    /// iterator with a few constant values (`c == 0 ? ...`), by value, before anything
    /// else; applies to the
    /// regions of [`optimize_source`](crate::optimize_source) (a caller of
    /// [`optimize_scop`](crate::optimize_scop) splits the scop itself).
    /// `pollen opt --no-residue-split` turns it off.
    pub residue_split: bool,
    /// Scalars that every iteration of an outer loop sets before using them, and whose
    /// values no code outside the region uses, become arrays indexed by that loop's
    /// iterator (`pollen_transform::expand`), so that they no longer keep the loop
    /// sequential; applies to the regions of [`optimize_source`](crate::optimize_source)
    /// under [`Strategy::Pluto`] and the C target. Arrays that every iteration of a
    /// nest's outer loop fills before reading them, and that alone keep that loop
    /// sequential, get a row per iteration the same way, copied back after the nest
    /// (`pollen_transform::expand::expand_arrays`). `pollen opt --no-scalar-expansion`
    /// turns both off.
    pub scalar_expansion: bool,
    /// The language the generated code is printed in.
    pub target: Target,
    /// The choices of the GPU targets (ignored for C).
    pub gpu: GpuOptions,
    /// The cache sizes the default tile sizes are computed from. The default is the
    /// model's ([`CacheInfo::default`]); the `pollen` tool reads the machine's.
    pub cache: CacheInfo,
    /// The number of elementary solver steps ([`pollen_presburger::Budget`]) each stage
    /// may take (extraction, dependence analysis, scheduling, tiling and its legality
    /// check, each run of the cost model, the original order's parallel loops, code
    /// generation), each stage afresh; `None` is unlimited. Running out is an error of
    /// that stage ([`Error::is_limit_exceeded`](crate::Error::is_limit_exceeded)). The
    /// default is [`DEFAULT_BUDGET`].
    pub budget: Option<u64>,
}

/// The default budget of a stage, in solver steps: about 20 times what the most
/// demanding stage of the example kernels needs (ARCHITECTURE.md, "Budgets"), so that a
/// pathological input stops within seconds.
pub const DEFAULT_BUDGET: u64 = 25_000_000;

impl Default for Options {
    fn default() -> Options {
        Options {
            strategy: Strategy::Pluto,
            live_out: None,
            estimates: std::collections::BTreeMap::new(),
            cores: 2,
            algorithm: Algorithm::Pluto,
            fusion: Fusion::Smart,
            tiling: Tiling::FromCache,
            profitability: true,
            unroll_and_jam: true,
            parallel: true,
            vectorize: Vectorize::OmpSimd,
            scalar_replacement: true,
            vector_registers: false,
            vector_bytes: 32,
            reassociate: false,
            vector_math: false,
            residue_split: true,
            scalar_expansion: true,
            target: Target::C,
            gpu: GpuOptions::default(),
            cache: CacheInfo::default(),
            budget: Some(DEFAULT_BUDGET),
        }
    }
}

/// How a region is optimized.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strategy {
    /// The whole region scheduled at once ([`Options::algorithm`], [`Options::fusion`]),
    /// its permutable bands tiled.
    Pluto,
    /// Fused tiling of producer–consumer pipelines (`pollen_transform::fused`): each
    /// output stage is tiled ([`Options::tiling`]'s sizes, or the largest tiles whose
    /// windows fit three quarters of [`Options::cache`]'s L2) and the producers it
    /// needs are recomputed inside its tiles, their values kept in scratchpads; a
    /// producer whose windows would hold more than 3/2 of its share of a tile stays
    /// out of the group.
    Basteln,
    /// Fused tiling of the groups PolyMage's model chooses
    /// (`pollen_transform::grouping`: the DP over groupings, the cost of Eq. 2 with the
    /// normalised Xeon weights, the tile-size model for [`Options::cache`] and
    /// [`Options::cores`], at [`Options::estimates`]); given tile sizes
    /// ([`Options::tiling`]) replace the model's.
    Polymage,
    /// AKG's strategy (`pollen_transform::akg`): the loop nests conservatively
    /// clustered, each live-out space (writing a tensor of [`Options::live_out`], or
    /// one no statement reads) tiled and the intermediate spaces its tiles read fused
    /// into them by the reverse strategy, through fused tiling with per-tile buffers
    /// (`pollen_transform::fused`, which checks the result).
    Akg,
}

impl Strategy {
    /// Every strategy, the default first.
    pub const ALL: [Strategy; 4] = [
        Strategy::Pluto,
        Strategy::Basteln,
        Strategy::Polymage,
        Strategy::Akg,
    ];

    /// The name, in lower case.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Pluto => "pluto",
            Strategy::Basteln => "basteln",
            Strategy::Polymage => "polymage",
            Strategy::Akg => "akg",
        }
    }
}

/// The scheduling algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Pluto: permutable bands minimising dependence distances.
    Pluto,
    /// Feautrier: as many dependences strongly satisfied per dimension as possible.
    Feautrier,
}

impl Algorithm {
    /// The name, in lower case (`pluto`, `feautrier`).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Pluto => "pluto",
            Algorithm::Feautrier => "feautrier",
        }
    }
}

/// The fusion policy of the scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fusion {
    /// Distribute every strongly connected component.
    No,
    /// Fuse components of the same dimensionality (kept only where the cost model does
    /// not prefer distributing them).
    Smart,
    /// Fuse wherever a common hyperplane exists.
    Max,
}

impl Fusion {
    /// The name, in lower case (`no`, `smart`, `max`).
    pub fn name(self) -> &'static str {
        match self {
            Fusion::No => "no",
            Fusion::Smart => "smart",
            Fusion::Max => "max",
        }
    }

    pub(crate) fn to_sched(self) -> pollen_sched::Fuse {
        match self {
            Fusion::No => pollen_sched::Fuse::No,
            Fusion::Smart => pollen_sched::Fuse::Smart,
            Fusion::Max => pollen_sched::Fuse::Max,
        }
    }
}

/// Whether permutable bands are tiled, and the sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tiling {
    /// No tiling; permutable bands still get a stride-1 innermost loop.
    Off,
    /// Sizes from the cache model ([`Options::cache`]), only for bands where tiling
    /// brings reuse closer.
    FromCache,
    /// These sizes, outermost band member first, the last one repeated for further
    /// members; every permutable band of two members or more is tiled.
    Sizes(Vec<i64>),
}

/// The pragma of vectorisable innermost loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vectorize {
    /// `#pragma omp simd`.
    OmpSimd,
    /// `#pragma GCC ivdep`.
    Ivdep,
    /// No pragma.
    None,
}

/// The language of the generated code, each printed by its `pollen-emit-*` crate in the
/// emission stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// C with OpenMP pragmas (`pollen-emit-c`).
    C,
    /// OpenCL: the kernels and a host program in C (`pollen-emit-gpu`).
    OpenCl,
    /// CUDA: a `.cu` file with the kernels and the host code (`pollen-emit-gpu`).
    Cuda,
}

impl Target {
    /// Whether the target is a GPU language (OpenCL or CUDA): the pipeline maps the
    /// schedule to blocks and threads ([`GpuOptions`]).
    pub fn is_gpu(self) -> bool {
        matches!(self, Target::OpenCl | Target::Cuda)
    }

    /// The name, in lower case (`c`, `opencl`, `cuda`).
    pub fn name(self) -> &'static str {
        match self {
            Target::C => "c",
            Target::OpenCl => "opencl",
            Target::Cuda => "cuda",
        }
    }
}

/// The choices of the GPU targets ([`Target::OpenCl`], [`Target::Cuda`]).
///
/// On a GPU target the pipeline differs from the C one: the scheduler is steered by
/// constraint injection ([`GpuOptions::inject`]), permutable bands are tiled with
/// [`GpuOptions::tile_size`] unless [`Options::tiling`] gives sizes or is off, the
/// point loops keep the scheduler's order (it decides which loop the threads of a warp
/// share), there is no unroll-and-jam and no comparison with the original order (the
/// CPU cost model does not apply), and the loops are mapped to blocks and threads by
/// `pollen-gpu`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Constraint injection (Bastoul et al., CGO 2022): a tree of constraints built from
    /// the accesses' strides asks the scheduler for stride-1 innermost loops (mapped to
    /// the threads' `x` dimension) and for fusion, with the plain schedule as the last
    /// fallback (default on).
    pub inject: bool,
    /// The tile size of every band member when [`Options::tiling`] is
    /// [`Tiling::FromCache`] (the cache model is a CPU model): default 32, PPCG's.
    pub tile_size: i64,
    /// Threads per block, `x` first; `None` (the default) lets the mapping choose from
    /// the tile sizes.
    pub block: Option<Vec<u32>>,
    /// Reused or transposed tiles of the arrays a kernel only reads are copied to the
    /// block's shared memory (`pollen_gpu::GpuOptions::shared_memory`; default on).
    pub shared_memory: bool,
    /// With `shared_memory`, also the transposed tiles without reuse
    /// (`pollen_gpu::GpuOptions::transposed_tiles`; default on).
    pub transposed_tiles: bool,
    /// Explicit vector types, with injection: a statement whose scenario's innermost
    /// pick is contiguous for some of its loads or stores (the paper's vector-type
    /// dimension) runs groups of [`GpuOptions::lane_width`] iterations of its
    /// thread-mapped `x` loop per thread, its contiguous references loaded and stored
    /// as one vector where aligned (`pollen_gpu::Lanes`; default on). Without
    /// injection there are no scenarios, and so no vector types.
    pub vector_types: bool,
    /// The iterations per vector (default 4: 16 bytes of `float`).
    pub lane_width: u32,
    /// Lane groups also over thread loops whose bodies hold loops, jammed into them
    /// (`pollen_gpu::GpuOptions::lane_jam`; default off).
    pub lane_jam: bool,
}

impl Default for GpuOptions {
    fn default() -> GpuOptions {
        GpuOptions {
            inject: true,
            tile_size: 32,
            block: None,
            shared_memory: true,
            transposed_tiles: true,
            vector_types: true,
            lane_width: 4,
            lane_jam: false,
        }
    }
}
