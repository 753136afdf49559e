//! The Pollen optimizer as a library: the whole pipeline of `pollen opt`, from C text
//! (or a [`Scop`](pollen_scop::Scop)) to optimized C text, with a report of every
//! decision.
//!
//! [`optimize_source`] reads every `#pragma scop` region of a C file
//! (`pollen-frontend`), optimizes each on its own with [`optimize_scop`] and prints each
//! in place of its region (`pollen-emit-c`); the rest of the file is kept byte for byte.
//! [`optimize_scop`] runs the stages between: value-based dependences (`pollen-deps`), a
//! schedule (`pollen-sched`, Pluto or Feautrier, with a fusion policy), tiling of the
//! permutable bands with wavefronts and unroll-and-jam (`pollen-transform`), the cost
//! model's two checks (smart fusion against no fusion; the tiled schedule against the
//! original loop order, the profitability check), and code generation
//! (`pollen-codegen`). Every schedule is confirmed by the independent legality checker
//! inside the stages.
//!
//! Every choice is a field of [`Options`], whose default is `pollen opt`'s and does no
//! IO. The [`Report`] holds every decision as data (the scop, the dependences, the
//! schedule trees, the tile sizes and their origin, the cost figures compared and the
//! [`Fallback`] used, the loops with their pragmas, the iterator type); its `Display`
//! is the text of `pollen opt --explain`. Errors are typed ([`Error`]), the frontend's
//! with their line and column, the others naming the [`Stage`] and the region.
//!
//! The library does no IO and does not panic on user input. [`Options::budget`] bounds
//! the solver work of every stage ([`DEFAULT_BUDGET`] steps each by default): an input
//! too hard for it is an error naming the stage, never a hang.
//!
//! # Example
//! ```
//! use pollen_driver::{optimize_source, Fallback, Options, Tiling};
//!
//! let source = "\
//! void scale(int n, double A[n][n], double B[n][n]) {
//!   int i, j;
//! #pragma scop
//!   for (i = 0; i < n; i++)
//!     for (j = 0; j < n; j++)
//!       B[j][i] = 2 * A[j][i];
//! #pragma endscop
//! }
//! ";
//! let options = Options {
//!     tiling: Tiling::Off,
//!     ..Options::default()
//! };
//! let optimized = optimize_source(source, &options)?;
//! // The statement is kept as a macro, the loops are interchanged for stride-1 accesses
//! // and the outer one runs in parallel.
//! assert!(optimized.text.contains("#define S0(i, j) B[j][i] = 2 * A[j][i]"));
//! assert!(optimized.text.contains("#pragma omp parallel for"));
//! assert!(optimized.text.starts_with("void scale(int n, double A[n][n], double B[n][n]) {"));
//! let region = &optimized.report.regions[0];
//! assert_eq!(region.scop.summary.statements.len(), 1);
//! assert_eq!(region.scop.fallback, Fallback::None);
//! assert!(optimized.report.to_string().contains("loops:"));
//! # Ok::<(), pollen_driver::Error>(())
//! ```

mod error;
mod options;
mod pipeline;
mod report;

pub use error::{Error, Result, Stage};
pub use options::{
    Algorithm, Fusion, GpuOptions, Options, Strategy, Target, Tiling, Vectorize, DEFAULT_BUDGET,
};
pub use pipeline::{
    optimize_scop, optimize_scop_scheduled, optimize_source, optimize_source_scheduled,
    Coincidence, Optimized, OptimizedScop, ScheduleOf,
};
pub use pollen_deps::DepKind;
pub use pollen_sched::Fallback as SchedulerFallback;
pub use pollen_transform::profit::Cost;
pub use pollen_transform::CacheInfo;
pub use report::{
    Choice, DependenceSummary, Fallback, FusionDecision, IteratorType, LoopItem, LoopLine,
    LoopMark, Profitability, RegionReport, Report, ScopReport, ScopSummary, StatementSummary,
    TileSizes,
};
