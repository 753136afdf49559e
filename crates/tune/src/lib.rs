//! Iterative compilation over the interleaving search space of `pollen-search`: the
//! machinery of `pollen search`.
//!
//! Pouchet et al., POPL 2011, §5 (digest `shared/digests/pouchet-popl11.md` §2.10,
//! "Protocol"): every point of F¹ is turned into a complete program, compiled, run and
//! timed, and the fastest is kept. This crate measures, so it is the one place above
//! the exact library crates where time is a floating-point number of seconds.
//!
//! - [`evaluate`]: a [`Candidate`](evaluate::Candidate) (a fusion structure and how its
//!   classes are scheduled, or `pollen opt`'s default, with the pipeline's parameters:
//!   tile sizes, tiling at all, unroll-and-jam, parallel loops, the strategy) and the
//!   four steps of its
//!   evaluation, generate → build → run → measure, behind the
//!   [`Evaluator`](evaluate::Evaluator) trait; [`Local`](evaluate::Local) does them on
//!   this machine (the driver prints, a C compiler builds, the program runs). Another
//!   implementation could hand a batch of candidates to a cluster's scheduler.
//! - [`tuner`]: the search loop: the original's output and time first, then the
//!   candidates in a seeded order, several built and checked at once, every timing run
//!   alone, a cutoff for slow candidates, a budget of candidates or time, resumed
//!   results, a local refinement of the fastest (their neighbours tried next),
//!   confirmation rounds for the finalists.
//! - [`results`]: the results as a table, as CSV (which a search resumes from) and as
//!   JSON.
//!
//! ```text
//!  source ─► Space (pollen-search) ─► candidates ─► search ─┬─► generate (pollen-driver)
//!                                                           ├─► build    (cc)
//!                                                           ├─► run      (compare with the original)
//!                                                           └─► measure  (alone)
//! ```
//!
//! # Example
//! ```
//! use pollen_presburger::Budget;
//! use pollen_search::Limits;
//! use pollen_tune::evaluate::{candidates, space_of};
//!
//! let c = "void f(int n, double a[n], double b[n]) {
//! #pragma scop
//!   for (int i = 0; i < n; i++)
//!     a[i] = 1;
//!   for (int i = 0; i < n; i++)
//!     b[i] = a[i];
//! #pragma endscop
//! }";
//! let space = space_of(c, 0, &Limits::default(), &mut Budget::unlimited()).unwrap();
//! let keys: Vec<String> = candidates(&space).iter().map(|c| c.key()).collect();
//! assert_eq!(keys[0], "default");
//! // Vector registers: alone, with no tiling, without unroll-and-jam (each also with
//! // wide vectors), and untiled in the original loop order (AKG's strategy).
//! assert_eq!(keys[1], "default vector-registers");
//! assert_eq!(keys[2], "default vector-registers wide-vectors");
//! assert_eq!(keys[3], "default no-tiling vector-registers");
//! assert_eq!(keys[4], "default no-tiling vector-registers wide-vectors");
//! assert_eq!(keys[5], "default no-unroll-and-jam vector-registers");
//! assert_eq!(keys[6], "default no-unroll-and-jam vector-registers wide-vectors");
//! assert_eq!(keys[7], "default strategy=akg no-tiling vector-registers");
//! // The rest of the default pipeline with one parameter changed.
//! assert_eq!(keys[8], "default no-unroll-and-jam");
//! assert_eq!(keys[9], "default sequential");
//! assert_eq!(keys[10], "default tiles=16");
//! assert_eq!(keys[16], "default no-tiling");
//! assert_eq!(keys[19], "default strategy=akg");
//! // Then three candidates per fusion structure.
//! assert_eq!(keys[20], "{S0 S1} tiled");
//! assert_eq!(keys.len(), 1 + 14 + 5 + 3 * 2);
//! ```

pub mod evaluate;
pub mod results;
pub mod tuner;
