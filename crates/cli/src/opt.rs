//! `pollen opt`: the whole optimizer on a C file, through the `pollen-driver` library.
//!
//! This module maps the command line onto [`pollen_driver::Options`] (the cache sizes
//! read from the machine: the library does no IO), calls
//! [`pollen_driver::optimize_source`], writes the optimized text to the output and, with
//! `--explain`, the report's text on standard error. Frontend errors are reported as
//! `file:line:column: error: message`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use pollen_driver::{
    Algorithm, CacheInfo, Fusion, GpuOptions, Options, Strategy, Target, Tiling, Vectorize,
};

use crate::budget::{BudgetArg, Steps};
use crate::program::{self, AlgoChoice, FuseChoice};

/// The long help of `pollen opt`.
pub const OPT_HELP: &str = "\
Optimize the `#pragma scop` regions of a C file and write the whole file with each region
replaced by its generated loops; everything outside the regions is kept byte for byte.
Each region is optimized on its own, with the declarations that precede it. A region may
be a loop-nest fragment without declarations (an undeclared name with subscripts is an
array of unknown type and extents, one the region writes is a scalar).

The pipeline: extraction, value-based dependence analysis, scheduling (--algo, --fuse),
tiling of permutable bands (--tile, --tile-sizes; by default the sizes come from the
machine's L1/L2 cache sizes, and bands without a parallel tile loop get a wavefront over
tiles; the point loops of a tile are unrolled and jammed where the copies share loads,
--no-unroll-and-jam), a profitability check (smart fusion is dropped where it leaves
innermost loops striding through memory, and the original loop order is kept, its
parallel loops marked, where the tiled schedule has fewer vectorisable innermost loops;
--always-transform), code generation, and C/OpenMP printing: `#pragma omp parallel for` on the
outermost parallel loop of each nest (--parallel), `#pragma omp simd` (or `GCC ivdep`,
--vectorize) on vectorisable innermost loops. Every schedule is checked by the
independent legality checker, parallel loops included. Statements become macros
(`#define S0(i, j) ...`), so their text is kept as written; the `#pragma scop` lines are
not kept (optimize the original file again, not the output).

Compile the result with OpenMP, e.g. `gcc -O3 -fopenmp`.

--target opencl and --target cuda map the schedule to a GPU instead: the scheduler is
steered by constraint injection (a tree of constraints built from the accesses' strides
asks for stride-1 innermost loops, which become the threads' x dimension, and for
fusion; --no-inject for the plain scheduler), bands are tiled (32 per member unless
--tile-sizes), tile loops become blocks and point loops threads (PPCG's scheme), reused
or transposed tiles of the arrays a kernel only reads are copied to shared memory (not with
--no-shared-memory), the host copies the arrays in, launches the kernels in schedule order and copies the written
arrays back. OpenCL output is a C program with the kernels embedded (`gcc out.c
-lOpenCL -lm`; `$POLLEN_OPENCL_DEVICE` picks a device, else the first GPU, else the
first device); CUDA output is compiled with `nvcc -x cu`. Every mapped program is
checked against the dependences by the mapping's tests.

--explain prints what each stage did on standard error: the statements, the dependences,
the schedule tree, the tiled tree with the tile sizes, the cost model's decisions, and the
loops with their pragmas.

The same pipeline is available to Rust programs as the `pollen-driver` library
(`pollen_driver::optimize_source`), with every flag a field of its `Options` and the
--explain text the `Display` of its structured `Report`.

Examples:
  pollen opt examples/kernels/gemm.c -o gemm.opt.c
  pollen opt examples/kernels/jacobi-1d.c --tile-sizes 64,128 --explain
  pollen opt examples/kernels/lu.c --no-tile --no-parallel
  pollen opt examples/fragments/seidel2d.c --budget 100000000
  pollen opt examples/operators/softmax.c --target cuda -o softmax.cu --explain";

/// The arguments of `pollen opt`.
#[derive(clap::Args, Debug)]
pub struct OptArgs {
    /// The C file.
    pub file: PathBuf,
    /// Where to write the optimized file (standard output when absent or `-`).
    #[arg(short, long, value_name = "OUT.c")]
    pub output: Option<PathBuf>,
    /// Tile permutable bands (the default).
    #[arg(long, overrides_with = "no_tile")]
    pub tile: bool,
    /// Do not tile.
    #[arg(long, overrides_with = "tile")]
    pub no_tile: bool,
    /// Tile sizes, outermost band member first, the last one repeated for further
    /// members (default: from the machine's cache sizes).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "S1,S2,...",
        conflicts_with = "no_tile"
    )]
    pub tile_sizes: Option<Vec<i64>>,
    /// Register tiling: unroll the outer point loops of a tile whose copies share
    /// loads and jam them into the innermost loop (the default).
    #[arg(long, overrides_with = "no_unroll_and_jam")]
    pub unroll_and_jam: bool,
    /// No unroll-and-jam.
    #[arg(long, overrides_with = "unroll_and_jam")]
    pub no_unroll_and_jam: bool,
    /// Mark parallel loops `#pragma omp parallel for` and skew tile bands without a
    /// parallel loop into wavefronts (the default).
    #[arg(long, overrides_with = "no_parallel")]
    pub parallel: bool,
    /// Sequential code: no `omp parallel for`, no wavefront.
    #[arg(long, overrides_with = "parallel")]
    pub no_parallel: bool,
    /// How strongly connected components of the dependence graph are fused.
    #[arg(long, value_enum, default_value = "smart")]
    pub fuse: FuseChoice,
    /// The scheduling algorithm.
    #[arg(long, value_enum, default_value = "pluto")]
    pub algo: AlgoChoice,
    /// The optimization strategy: pluto schedules and tiles the whole region; basteln
    /// tiles each output stage of a pipeline and recomputes the producers it needs
    /// inside its tiles (fused tiling with overlap, intermediates in per-tile
    /// scratchpads; --tile-sizes gives the output tiles, by default the largest whose
    /// windows fit three quarters of L2; producers whose halos would exceed half their
    /// share again stay out); polymage fuses
    /// the groups of stages PolyMage's cost model chooses, with its tile sizes.
    #[arg(long, value_enum, default_value = "pluto")]
    pub strategy: StrategyChoice,
    /// The arrays used after the region (comma-separated), for --strategy basteln:
    /// fused intermediates not listed are kept only in their tiles' scratchpads. By
    /// default every array may be used afterwards, and fused intermediates are also
    /// written back.
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub live_out: Option<Vec<String>>,
    /// Estimates of the parameters for --strategy polymage's cost model, e.g.
    /// `R=2048,C=2048` (a parameter not listed is estimated at 1024).
    #[arg(long, value_delimiter = ',', value_name = "P=V,...", value_parser = parse_estimate)]
    pub estimates: Vec<(String, i64)>,
    /// The pragma of vectorisable innermost loops.
    #[arg(long, value_enum, default_value = "omp-simd")]
    pub vectorize: VectorizeChoice,
    /// Print innermost loops without loading the array elements they reuse into locals
    /// (scalar replacement is the default).
    #[arg(long)]
    pub no_scalar_replacement: bool,
    /// Keep the reductions of outer loops into the elements of an innermost vector loop
    /// in explicit vector variables (gcc/clang `vector_size` types): strips of the vector
    /// loop run outside the reduction loops, each element keeping its operations in
    /// their order.
    #[arg(long)]
    pub vector_registers: bool,
    /// The bytes of one vector of --vector-registers: 32 (AVX, the default), 64
    /// (AVX-512), 16 (SSE, NEON); a power of two from 8 to 128.
    #[arg(long, default_value_t = 32, value_name = "BYTES")]
    pub vector_bytes: usize,
    /// Vectorise innermost loops that only accumulate (sums, products, maxima, minima)
    /// with `omp simd` reduction clauses: the operations run in another order, so
    /// floating-point results may differ in rounding (as under -ffast-math).
    #[arg(long)]
    pub reassociate: bool,
    /// Declare the mathematical functions the statements call (expf, tanhf, erff, ...)
    /// with `omp declare simd`, so that loops calling them vectorise with glibc's
    /// libmvec (x86-64): results may differ in the last bits.
    #[arg(long)]
    pub vector_math: bool,
    /// Keep statements whose subscripts divide an iterator by a constant (`u[x / 2]`)
    /// whole (by default each is split into one statement per residue class of the
    /// iterator, with affine subscripts).
    #[arg(long)]
    pub no_residue_split: bool,
    /// Keep scalars as they are (by default a scalar that every iteration of an outer
    /// loop sets before using it, and that no code outside the region uses, becomes an
    /// array indexed by that loop's iterator, so that the loop can run in parallel; an
    /// array that each iteration of a nest's outer loop fills before reading it gets a
    /// row per iteration, copied back after the nest).
    #[arg(long)]
    pub no_scalar_expansion: bool,
    /// Keep the optimized schedule even where the cost model expects the original loop
    /// order (with its parallel loops marked) to run faster.
    #[arg(long)]
    pub always_transform: bool,
    /// The language of the output: C with OpenMP, OpenCL (a C host program with the
    /// kernels embedded; link with -lOpenCL) or CUDA (a .cu file for nvcc).
    #[arg(long, value_enum, default_value = "c")]
    pub target: TargetChoice,
    /// GPU targets: schedule without constraint injection (the plain scheduler).
    #[arg(long)]
    pub no_inject: bool,
    /// GPU targets: read every array from global memory (by default, reused or
    /// transposed tiles of the arrays a kernel only reads are copied to shared memory
    /// first).
    #[arg(long)]
    pub no_shared_memory: bool,
    /// GPU targets: copy to shared memory only the tiles that threads reuse, not the
    /// transposed ones (read across rows by the threads along x) without reuse.
    #[arg(long)]
    pub no_transposed_tiles: bool,
    /// GPU targets: no explicit vector types (by default, with injection, statements
    /// whose innermost loop is contiguous run groups of 4 iterations per thread, loaded
    /// and stored as vectors where aligned).
    #[arg(long)]
    pub no_vector_types: bool,
    /// GPU targets: threads per block, x first (default: from the tile sizes).
    #[arg(long, value_delimiter = ',', value_name = "X,Y,Z")]
    pub block: Option<Vec<u32>>,
    /// Print what each stage did on standard error.
    #[arg(long)]
    pub explain: bool,
    #[command(flatten)]
    pub budget: BudgetArg,
}

/// The output language, on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TargetChoice {
    /// C with OpenMP.
    C,
    /// OpenCL kernels and a C host program.
    Opencl,
    /// CUDA.
    Cuda,
}

/// The pragma of vectorisable loops, on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum VectorizeChoice {
    /// `#pragma omp simd`.
    OmpSimd,
    /// `#pragma GCC ivdep`.
    Ivdep,
    /// No pragma.
    None,
}

/// Runs `pollen opt`.
pub fn run(args: &OptArgs) -> Result<ExitCode> {
    let path = args.file.as_path();
    let source = crate::tensor::read_source(path)?;
    let optimized = match pollen_driver::optimize_source(&source, &options(args)) {
        Ok(optimized) => optimized,
        Err(e) => return Err(program::driver_error(path, e, args.budget.budget)),
    };
    let mut report = optimized.report;
    report.name = Some(path.display().to_string());
    if args.explain {
        eprint!("{report}");
    }
    match &args.output {
        Some(out) if out.as_os_str() != "-" => {
            std::fs::write(out, &optimized.text)
                .with_context(|| format!("cannot write {}", out.display()))?;
            if args.explain {
                eprintln!("written to {}", out.display());
            }
        }
        _ => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            out.write_all(optimized.text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The optimization strategy of `pollen opt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyChoice {
    /// Schedule and tile the whole region (Pluto or Feautrier).
    Pluto,
    /// Fused tiling of pipelines: output stages tiled, producers recomputed per tile.
    Basteln,
    /// Fused tiling of the groups PolyMage's cost model chooses.
    Polymage,
    /// AKG: conservative clustering, live-out spaces tiled, their producers fused by
    /// the reverse strategy.
    Akg,
}

/// `P=V`: a parameter's estimate.
fn parse_estimate(text: &str) -> std::result::Result<(String, i64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, found `{text}`"))?;
    let value = value
        .trim()
        .parse::<i64>()
        .map_err(|e| format!("the estimate of {name}: {e}"))?;
    Ok((name.trim().to_string(), value))
}

/// The driver's options for the command line: the flags, and the machine's caches.
fn options(args: &OptArgs) -> Options {
    Options {
        strategy: match args.strategy {
            StrategyChoice::Pluto => Strategy::Pluto,
            StrategyChoice::Basteln => Strategy::Basteln,
            StrategyChoice::Polymage => Strategy::Polymage,
            StrategyChoice::Akg => Strategy::Akg,
        },
        estimates: args.estimates.iter().cloned().collect(),
        cores: std::thread::available_parallelism()
            .ok()
            .and_then(|n| u32::try_from(n.get()).ok())
            .unwrap_or(2),
        live_out: args.live_out.as_ref().map(|l| l.iter().cloned().collect()),
        algorithm: match args.algo {
            AlgoChoice::Pluto => Algorithm::Pluto,
            AlgoChoice::Feautrier => Algorithm::Feautrier,
        },
        fusion: match args.fuse {
            FuseChoice::No => Fusion::No,
            FuseChoice::Smart => Fusion::Smart,
            FuseChoice::Max => Fusion::Max,
        },
        tiling: match (&args.tile_sizes, args.no_tile) {
            (_, true) => Tiling::Off,
            (Some(sizes), false) => Tiling::Sizes(sizes.clone()),
            (None, false) => Tiling::FromCache,
        },
        profitability: !args.always_transform,
        unroll_and_jam: !args.no_unroll_and_jam,
        parallel: !args.no_parallel,
        vectorize: match args.vectorize {
            VectorizeChoice::OmpSimd => Vectorize::OmpSimd,
            VectorizeChoice::Ivdep => Vectorize::Ivdep,
            VectorizeChoice::None => Vectorize::None,
        },
        scalar_replacement: !args.no_scalar_replacement,
        vector_registers: args.vector_registers,
        vector_bytes: args.vector_bytes,
        reassociate: args.reassociate,
        vector_math: args.vector_math,
        residue_split: !args.no_residue_split,
        scalar_expansion: !args.no_scalar_expansion,
        target: match args.target {
            TargetChoice::C => Target::C,
            TargetChoice::Opencl => Target::OpenCl,
            TargetChoice::Cuda => Target::Cuda,
        },
        gpu: GpuOptions {
            inject: !args.no_inject,
            block: args.block.clone(),
            shared_memory: !args.no_shared_memory,
            transposed_tiles: !args.no_transposed_tiles,
            vector_types: !args.no_vector_types,
            ..GpuOptions::default()
        },
        cache: machine_cache(),
        budget: match args.budget.budget {
            Steps::Limited(n) => Some(n),
            Steps::Unlimited => None,
        },
    }
}

/// The machine's cache sizes, from
/// `/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}` (data and unified
/// caches); the model's default for a level that cannot be read.
pub fn machine_cache() -> CacheInfo {
    let caches = read_caches(Path::new("/sys/devices/system/cpu/cpu0/cache"));
    let level = |l: u32| caches.iter().find(|(k, _)| *k == l).map(|(_, b)| *b);
    let default = CacheInfo::default();
    CacheInfo {
        l1_bytes: level(1).unwrap_or(default.l1_bytes),
        l2_bytes: level(2).unwrap_or(default.l2_bytes),
        l3_bytes: level(3).or(default.l3_bytes),
    }
}

/// The data and unified caches described under `dir` (`index*/{level,type,size}`), as
/// `(level, bytes)` in level order; empty where nothing can be read.
fn read_caches(dir: &Path) -> Vec<(u32, u64)> {
    let mut caches = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return caches;
    };
    for entry in entries.flatten() {
        let index = entry.path();
        let is_index = index
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("index"));
        let read = |file: &str| std::fs::read_to_string(index.join(file)).ok();
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
        else {
            continue;
        };
        if !is_index || kind.trim() == "Instruction" {
            continue;
        }
        if let (Ok(level), Some(bytes)) = (level.trim().parse(), parse_cache_size(&size)) {
            caches.push((level, bytes));
        }
    }
    caches.sort_unstable();
    caches
}

/// A sysfs cache size such as `48K`, `1024K` or `32M`, in bytes.
fn parse_cache_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let value: u64 = digits.parse().ok()?;
    let scale: u64 = match unit {
        "" | "B" => 1,
        "K" | "KB" | "KiB" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        "G" | "GB" | "GiB" => 1 << 30,
        _ => return None,
    };
    value.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes() {
        assert_eq!(parse_cache_size("48K\n"), Some(48 << 10));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("12Q"), None);
        assert_eq!(parse_cache_size("K"), None);
    }

    #[test]
    fn caches_from_a_sysfs_like_directory() {
        let dir = std::env::temp_dir().join(format!("pollen-caches-{}", std::process::id()));
        let entries = [
            ("index0", "1", "Data", "48K"),
            ("index1", "1", "Instruction", "32K"),
            ("index2", "2", "Unified", "1024K"),
        ];
        for (name, level, kind, size) in entries {
            let d = dir.join(name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), level).unwrap();
            std::fs::write(d.join("type"), kind).unwrap();
            std::fs::write(d.join("size"), size).unwrap();
        }
        assert_eq!(read_caches(&dir), vec![(1, 48 << 10), (2, 1 << 20)]);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(read_caches(&dir).is_empty());
    }
}
