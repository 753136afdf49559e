//! The spaces of statement interleavings (fusion structures) of a scop and their
//! legality pruning: the foundation of an iterative search over fusion structures.
//!
//! Source: L.-N. Pouchet, U. Bondhugula, C. Bastoul, A. Cohen, J. Ramanujam,
//! P. Sadayappan, N. Vasilache, *Loop Transformations: Convexity, Pruning and
//! Optimization*, POPL 2011, §2–§4 (digest `shared/digests/pouchet-popl11.md`).
//!
//! - [`encoding`]: the convex 0/1 encodings O (total preorders, one level) and I
//!   (several levels) as Presburger sets; their points are enumerated and counted by
//!   the library's own integer-point enumeration, and decoded into [`FusionStructure`]s
//!   and [`Interleaving`]s ([`structure`]).
//! - [`fusion`]: the joint fusibility test of a set of statements at the outermost
//!   level (Def. 7 with `θ ∈ N`, Farkas through `pollen-sched`), the pairwise M-sets
//!   and Lemma 6's compatible selectors.
//! - [`prune`]: `PruneIllegalInterleavings` at the outermost level, giving F¹ and the
//!   statistics of the paper's Table 1.
//! - [`schedule`]: a legal schedule tree implementing an outer fusion structure.
//! - [`decompose`]: the μ/λ decomposition of a schedule row (§4.3).
//! - [`space`]: [`Space`], the search space of one scop with Table 1's statistics, and
//!   the complete schedule of each of its structures (`OptimizeRec` at depth 1, the
//!   paper's protocol); the `pollen-tune` crate compiles and times them.
//!
//! ```text
//!  Scop + Dependences ──► Problem ──► prune_outer ──► F¹ (Set) ──► FusionStructures
//!                             │             ▲
//!                             └── fusable ──┘   (joint test per connected set)
//! ```
//!
//! # Example
//! ```
//! use pollen_deps::{analyze, Analysis};
//! use pollen_search::{prune_outer, Options, Problem};
//!
//! let c = "void f(int n, double a[n], double b[n]) {
//! #pragma scop
//!   for (int i = 0; i < n; i++)
//!     a[i] = 1;
//!   for (int i = 0; i < n; i++)
//!     b[i] = a[i];
//! #pragma endscop
//! }";
//! let scop = pollen_frontend::extract(c).unwrap().scop;
//! let deps = analyze(&scop, Analysis::MemoryBased).unwrap();
//! let problem = Problem::new(&scop, &deps).unwrap();
//! let f1 = prune_outer(&problem, &Options::default()).unwrap();
//! let all: Vec<String> = f1.structures().unwrap().iter().map(|s| s.to_string()).collect();
//! assert_eq!(all, ["{S0 S1}", "{S0} {S1}"]);
//! ```

pub mod decompose;
pub mod encoding;
pub mod error;
pub mod fusion;
pub mod prune;
pub mod schedule;
pub mod space;
pub mod structure;

pub use encoding::{default_names, Encoding, Relation, SpaceStats};
pub use error::{Error, Result};
pub use fusion::{FusionOptions, Problem, RowKind};
pub use prune::{prune_outer, prune_outer_with, Options, PairOrder, Pruned, SplitMix};
pub use schedule::{embed_outer, optimize_outer, Optimized};
pub use space::{ordered_bell, Limits, ProgramStats, Scheduled, Space};
pub use structure::{lex_precedes, FusionStructure, Interleaving};
