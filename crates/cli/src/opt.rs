//! `pollen opt`: the whole optimizer on a C file.
//!
//! The `#pragma scop` region is extracted (`pollen-frontend`), its value-based
//! dependences computed (`pollen-deps`), a new schedule found (`pollen-sched`, Pluto or
//! Feautrier), its permutable bands tiled with a wavefront over tiles where no tile loop
//! is parallel (`pollen-transform`, sizes from `--tile-sizes` or from the machine's
//! caches), loops generated (`pollen-codegen`) and printed in place of the region
//! (`pollen-emit-c`), with `#pragma omp parallel for` on the outermost parallel loop of
//! each nest and `#pragma omp simd` on vectorisable innermost loops. Everything outside
//! the region is kept byte for byte. `--explain` reports every stage on standard error.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use pollen_codegen::Ast;
use pollen_deps::{Analysis, DepKind, Dependences};
use pollen_emit_c::{EmitOptions, Vectorize};
use pollen_scop::ScheduleTree;
use pollen_scop::Scop;
use pollen_transform::profit::{cost_with, Cost};
use pollen_transform::{CacheInfo, TileOptions};

use crate::budget::{BudgetArg, LimitError, Steps};
use crate::program::{self, AlgoChoice, FuseChoice};

/// The long help of `pollen opt`.
pub const OPT_HELP: &str = "\
Optimize the `#pragma scop` region of a C file and write the whole file with the region
replaced by the generated loops; everything outside the region is kept byte for byte.

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

--explain prints what each stage did on standard error: the statements, the dependences,
the schedule tree, the tiled tree with the tile sizes, and the loops with their pragmas.

Examples:
  pollen opt examples/kernels/gemm.c -o gemm.opt.c
  pollen opt examples/kernels/jacobi-1d.c --tile-sizes 64,128 --explain
  pollen opt examples/kernels/lu.c --no-tile --no-parallel";

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
    /// The pragma of vectorisable innermost loops.
    #[arg(long, value_enum, default_value = "omp-simd")]
    pub vectorize: VectorizeChoice,
    /// Print innermost loops without loading the array elements they reuse into locals
    /// (scalar replacement is the default).
    #[arg(long)]
    pub no_scalar_replacement: bool,
    /// Keep the optimized schedule even where the cost model expects the original loop
    /// order (with its parallel loops marked) to run faster.
    #[arg(long)]
    pub always_transform: bool,
    /// Print what each stage did on standard error.
    #[arg(long)]
    pub explain: bool,
    #[command(flatten)]
    pub budget: BudgetArg,
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
    let mut explain = Explain::new(args.explain);
    let text = optimize(args, &mut explain)?;
    match &args.output {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::write(path, &text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            explain.say(format_args!("written to {}\n", path.display()));
        }
        _ => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The optimized file's text.
fn optimize(args: &OptArgs, explain: &mut Explain) -> Result<String> {
    let path = args.file.as_path();
    let source =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let steps = args.budget.budget;
    let extracted = program::read_scop(path, steps)?;
    let scop = &extracted.scop;
    explain.scop(path, scop);

    let deps = program::analyze(path, scop, Analysis::ValueBased, steps)?;
    explain.deps(&deps);

    let tiling = !args.no_tile;
    let parallel = !args.no_parallel;
    let fuse = match args.fuse {
        FuseChoice::No => pollen_sched::Fuse::No,
        FuseChoice::Smart => pollen_sched::Fuse::Smart,
        FuseChoice::Max => pollen_sched::Fuse::Max,
    };
    let cache = machine_cache();
    if tiling {
        explain.tile_sizes(scop, args.tile_sizes.as_deref(), &cache);
    }
    // Schedules (and tiles) the scop under one fusion policy; says whether some band was
    // tiled.
    let optimize =
        |fuse: pollen_sched::Fuse, explain: &mut Explain| -> Result<(ScheduleTree, bool)> {
            let sched_options = pollen_sched::Options {
                algo: match args.algo {
                    AlgoChoice::Pluto => pollen_sched::Algo::Pluto,
                    AlgoChoice::Feautrier => pollen_sched::Algo::Feautrier,
                },
                fuse,
                ..Default::default()
            };
            let tree = program::schedule(path, scop, &deps, &sched_options, steps)?;
            explain.tree(
                &format!("schedule ({:?}, {:?} fusion)", args.algo, fuse).to_lowercase(),
                &tree,
            );
            if !tiling {
                // No band is tiled, but permutable bands still get a stride-1 innermost
                // loop.
                let options = TileOptions {
                    min_band_depth: usize::MAX,
                    ..TileOptions::default()
                };
                let ordered = pollen_transform::tile_with(
                    scop,
                    deps.as_slice(),
                    &tree,
                    &options,
                    &mut steps.budget(),
                )
                .map_err(|e| transform_error(e, "ordering the loops of", path, steps))?;
                return Ok((ordered, false));
            }
            let options = TileOptions {
                sizes: args.tile_sizes.clone(),
                wavefront: parallel,
                unroll_and_jam: !args.no_unroll_and_jam,
                require_reuse: args.tile_sizes.is_none(),
                cache,
                ..TileOptions::default()
            };
            let tiled = pollen_transform::tile_with(
                scop,
                deps.as_slice(),
                &tree,
                &options,
                &mut steps.budget(),
            )
            .map_err(|e| transform_error(e, "tiling the schedule of", path, steps))?;
            explain.tree("tiled schedule", &tiled);
            let any = band_count(&tiled.root) > band_count(&tree.root);
            Ok((tiled, any))
        };
    let (mut tree, mut tiled_any) = optimize(fuse, explain)?;
    if !tiling {
        explain.say(format_args!("tiling: off\n"));
    }
    // Smart fusion is kept only when it does not make innermost loops stride through
    // memory where distributing the components would not.
    if fuse == pollen_sched::Fuse::Smart {
        let fused = cost_of(scop, &tree, path, steps)?;
        let mut quiet = Explain::new(false);
        let (split, split_tiled) = optimize(pollen_sched::Fuse::No, &mut quiet)?;
        let distributed = cost_of(scop, &split, path, steps)?;
        if distributed.is_better_than(&fused) {
            explain.say(format_args!(
                "fusion: smart fusion gives {fused}, no fusion {distributed}: components not fused\n"
            ));
            explain.tree("schedule without fusion (tiled when tiling)", &split);
            tree = split;
            tiled_any = split_tiled;
        } else if distributed != fused {
            explain.say(format_args!(
                "fusion: smart fusion gives {fused}, no fusion {distributed}: fused\n"
            ));
        }
    }

    // The original order, its parallel loops marked, when tiling (for locality) cost
    // vectorisable innermost loops the original order had. Without a tiled band there is
    // no locality to trade, and the schedule's own parallelism is kept.
    if !args.always_transform && tiled_any {
        if let Ok(original) =
            pollen_transform::parallelize_with(deps.as_slice(), &scop.schedule, &mut steps.budget())
        {
            let before = cost_of(scop, &original, path, steps)?;
            let after = cost_of(scop, &tree, path, steps)?;
            if before.vectorizes_more_than(&after) {
                explain.say(format_args!(
                    "profitability: the original order gives {before}, the optimized schedule {after}: original order kept (--always-transform overrides)\n"
                ));
                explain.tree("original schedule with parallel loops", &original);
                tree = original;
            }
        }
    }

    let codegen_options = pollen_codegen::Options {
        distribute: true,
        ..Default::default()
    };
    let ast = pollen_codegen::generate_with(scop, &tree, &codegen_options, &mut steps.budget())
        .map_err(|e| match e {
            pollen_codegen::Error::LimitExceeded => {
                LimitError::new("code generation", steps).into()
            }
            e => anyhow::Error::new(e)
                .context(format!("code generation for {} failed", path.display())),
        })?;
    explain.loops(&ast, parallel);

    let options = EmitOptions {
        iterator_type: iterator_type(&source, extracted.region.end, scop).to_string(),
        openmp: parallel,
        vectorize: match args.vectorize {
            VectorizeChoice::OmpSimd => Vectorize::OmpSimd,
            VectorizeChoice::Ivdep => Vectorize::Ivdep,
            VectorizeChoice::None => Vectorize::None,
        },
        banner: true,
        scalar_replacement: !args.no_scalar_replacement,
    };
    explain.say(format_args!(
        "emit: iterators of type {}\n",
        options.iterator_type
    ));
    pollen_emit_c::emit(&source, extracted.region, scop, &ast, &options)
        .with_context(|| format!("printing the code for {} failed", path.display()))
}

/// The cost model's verdict on `tree` within a budget of `steps`.
fn cost_of(scop: &Scop, tree: &ScheduleTree, path: &Path, steps: Steps) -> Result<Cost> {
    cost_with(scop, tree, &mut steps.budget()).map_err(|e| match e {
        pollen_transform::Error::LimitExceeded => LimitError::new("the cost model", steps).into(),
        e => anyhow::Error::new(e).context(format!("the cost model failed on {}", path.display())),
    })
}

/// A tiling error: a [`LimitError`] when the budget ran out, else `what` `path` failed.
fn transform_error(
    e: pollen_transform::Error,
    what: &str,
    path: &Path,
    steps: Steps,
) -> anyhow::Error {
    match e {
        pollen_transform::Error::LimitExceeded => LimitError::new("tiling", steps).into(),
        e => anyhow::Error::new(e).context(format!("{what} {} failed", path.display())),
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

/// Words that make an integer type wider than `int`.
const WIDE_TYPE_WORDS: [&str; 6] = [
    "long",
    "int64_t",
    "intptr_t",
    "ptrdiff_t",
    "ssize_t",
    "intmax_t",
];

/// Words that can start a declaration of an integer variable.
const DECLARATION_START: [&str; 14] = [
    "int",
    "long",
    "short",
    "signed",
    "unsigned",
    "const",
    "static",
    "register",
    "volatile",
    "auto",
    "int64_t",
    "intptr_t",
    "ptrdiff_t",
    "ssize_t",
];

/// The C type of the generated iterators: `long` when a declaration before the end of
/// the region (a `;`-, brace- or parenthesis-delimited piece starting with an integer
/// type word) has a type wider than `int` and names one of the scop's iterators or
/// parameters, `int` otherwise. A rough but safe reading: a false `long` only widens the
/// iterators.
pub fn iterator_type(source: &str, region_end: usize, scop: &Scop) -> &'static str {
    let mut names: BTreeSet<&str> = scop.params.iter().map(String::as_str).collect();
    for s in &scop.statements {
        names.extend(s.iterators.iter().map(String::as_str));
    }
    let text = source.get(..region_end).unwrap_or(source);
    let declares_wide = |piece: &str| {
        let words: Vec<&str> = piece
            .split(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .filter(|w| !w.is_empty())
            .collect();
        words.first().is_some_and(|w| DECLARATION_START.contains(w))
            && words.iter().any(|w| WIDE_TYPE_WORDS.contains(w))
            && words.iter().any(|w| names.contains(w))
    };
    if text.split([';', '{', '}', '(', ')']).any(declares_wide) {
        "long"
    } else {
        "int"
    }
}

/// The `--explain` report, written to standard error as the stages run.
struct Explain {
    on: bool,
}

impl Explain {
    fn new(on: bool) -> Explain {
        Explain { on }
    }

    /// Writes a piece of the report.
    fn say(&self, text: std::fmt::Arguments<'_>) {
        if self.on {
            eprint!("{text}");
        }
    }

    /// The extracted statements, parameters and arrays.
    fn scop(&self, path: &Path, scop: &Scop) {
        if !self.on {
            return;
        }
        let mut out = format!(
            "extract: {}: {} statement(s), parameters [{}], arrays [{}]\n",
            path.display(),
            scop.statements.len(),
            scop.params.join(", "),
            scop.arrays
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        for s in &scop.statements {
            let _ = writeln!(
                out,
                "  {}[{}]: {}",
                s.name,
                s.iterators.join(", "),
                s.body.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }
        self.say(format_args!("{out}"));
    }

    /// The number of dependence relations of each kind.
    fn deps(&self, deps: &Dependences) {
        if !self.on {
            return;
        }
        let count = |kind: DepKind| deps.iter().filter(|d| d.kind == kind).count();
        let mut out = format!(
            "dependences (value-based): {} relation(s): flow {}, anti {}, output {}\n",
            deps.as_slice().len(),
            count(DepKind::Flow),
            count(DepKind::Anti),
            count(DepKind::Output)
        );
        for d in deps.iter() {
            let kind = match d.kind {
                DepKind::Flow => "flow",
                DepKind::Anti => "anti",
                DepKind::Output => "output",
            };
            let _ = writeln!(
                out,
                "  {kind} {} -> {} through {}",
                d.source, d.target, d.array
            );
        }
        self.say(format_args!("{out}"));
    }

    /// A schedule tree under a title.
    fn tree(&self, title: &str, tree: &pollen_scop::ScheduleTree) {
        if !self.on {
            return;
        }
        let mut out = format!("{title}:\n");
        for line in tree.to_string().lines() {
            let _ = writeln!(out, "  {line}");
        }
        self.say(format_args!("{out}"));
    }

    /// Where the tile sizes come from.
    fn tile_sizes(&self, scop: &Scop, sizes: Option<&[i64]>, cache: &CacheInfo) {
        if !self.on {
            return;
        }
        match sizes {
            Some(sizes) => self.say(format_args!(
                "tiling: sizes {:?} (from --tile-sizes)\n",
                sizes
            )),
            None => {
                let element = scop
                    .arrays
                    .iter()
                    .map(|a| pollen_transform::sizes::element_bytes(&a.element_type))
                    .max()
                    .unwrap_or(8);
                let by_depth: Vec<String> = (2..=4)
                    .map(|depth| {
                        let sizes = pollen_transform::default_tile_sizes(cache, element, depth);
                        format!("{depth} members: {}", sizes[0])
                    })
                    .collect();
                self.say(format_args!(
                    "tiling: sizes from the caches (L1 {} KiB, L2 {} KiB; {element}-byte elements): {}\n",
                    cache.l1_bytes >> 10,
                    cache.l2_bytes >> 10,
                    by_depth.join(", ")
                ));
            }
        }
    }

    /// The loop nest outline with the pragmas the loops get.
    fn loops(&self, ast: &Ast, parallel: bool) {
        if !self.on {
            return;
        }
        let mut out = String::from("loops:\n");
        outline(ast, 1, parallel, false, &mut out);
        self.say(format_args!("{out}"));
    }
}

/// One line per loop (`for c0 [omp parallel for]`) and statement call, indented by depth.
fn outline(ast: &Ast, depth: usize, parallel: bool, in_parallel: bool, out: &mut String) {
    let indent = "  ".repeat(depth);
    match ast {
        Ast::Block(children) => {
            for child in children {
                outline(child, depth, parallel, in_parallel, out);
            }
        }
        Ast::For(l) => {
            let omp = parallel && l.parallel && !in_parallel;
            let mark = if omp {
                " [omp parallel for]"
            } else if l.vectorizable {
                " [simd]"
            } else if l.parallel {
                " [parallel]"
            } else {
                ""
            };
            let _ = writeln!(out, "{indent}for {}{mark}", l.iterator);
            outline(&l.body, depth + 1, parallel, in_parallel || omp, out);
        }
        Ast::If {
            then, otherwise, ..
        } => {
            let _ = writeln!(out, "{indent}if");
            outline(then, depth + 1, parallel, in_parallel, out);
            if let Some(o) = otherwise {
                let _ = writeln!(out, "{indent}else");
                outline(o, depth + 1, parallel, in_parallel, out);
            }
        }
        Ast::User { statement, .. } => {
            let _ = writeln!(out, "{indent}{statement}");
        }
    }
}

/// The number of band nodes of a subtree.
fn band_count(node: &pollen_scop::Node) -> usize {
    usize::from(matches!(node, pollen_scop::Node::Band(_)))
        + node.children().into_iter().map(band_count).sum::<usize>()
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

    fn scop_of(source: &str) -> (Scop, usize) {
        let extracted = pollen_frontend::extract(source).unwrap();
        (extracted.scop, extracted.region.end)
    }

    #[test]
    fn iterator_types() {
        let int = "void f(int n, double A[100]) {\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)\n    A[i] = 0;\n#pragma endscop\n}\n";
        let (scop, end) = scop_of(int);
        assert_eq!(iterator_type(int, end, &scop), "int");
        let long_param = int.replace("int n", "long n");
        let (scop, end) = scop_of(&long_param);
        assert_eq!(iterator_type(&long_param, end, &scop), "long");
        let long_iterator = int.replace("int i;", "long int i;");
        let (scop, end) = scop_of(&long_iterator);
        assert_eq!(iterator_type(&long_iterator, end, &scop), "long");
        // A long variable that is neither an iterator nor a parameter does not count.
        let unrelated = int.replace("int i;", "int i; long count;");
        let (scop, end) = scop_of(&unrelated);
        assert_eq!(iterator_type(&unrelated, end, &scop), "int");
    }
}
