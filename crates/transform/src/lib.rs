//! Schedule tree transformations after scheduling: tiling of permutable bands.
//!
//! [`tile`] rewrites every permutable band of a schedule tree (from `pollen-sched`) into
//! tile bands and a point band ([`tiling`]):
//! - rectangular tiles, sizes from [`TileOptions::sizes`] or a cache model
//!   ([`sizes::default_tile_sizes`], fed with the machine's cache sizes by the caller);
//! - an optional second level of tiles ([`TileOptions::second_level`]);
//! - the point band's innermost member chosen for stride-1, vectorisable accesses
//!   ([`order`]);
//! - pipelined parallelism for bands without a parallel member: a wavefront over tiles
//!   ([`TileOptions::wavefront`]);
//! - register tiling: unroll-and-jam marks on point bands whose loops share loads
//!   ([`TileOptions::unroll_and_jam`], [`order::register_tiling`]).
//!
//! [`profit`] compares candidate trees of one scop by how their innermost loops walk
//! memory (the driver's fusion decision).
//!
//! Parallelism is decided on the final tiled tree: the coincident flags proposed while
//! tiling are confirmed (or cleared) by the independent checker
//! [`pollen_sched::legality::check`], and every tree [`tile`] returns passes it.
//!
//! ```text
//!   schedule tree ──► tiling: tile bands (floor(f / s)), point band (order), wavefront
//!                        │
//!                        ▼
//!                  legality::check ──► clear refuted coincident flags ──► check again
//! ```
//!
//! # Example
//! ```
//! use pollen_deps::{analyze, Analysis};
//! use pollen_transform::{tile, TileOptions};
//!
//! let c = "void f(int n, double A[n][n], double B[n][n]) {
//! #pragma scop
//!   for (int i = 0; i < n; i++)
//!     for (int j = 0; j < n; j++)
//!       B[j][i] = A[j][i] + 1;
//! #pragma endscop
//! }";
//! let scop = pollen_frontend::extract(c).unwrap().scop;
//! let deps = analyze(&scop, Analysis::ValueBased).unwrap();
//! let tree = pollen_sched::schedule(&scop, deps.as_slice(), &Default::default()).unwrap();
//! let options = TileOptions { sizes: Some(vec![32]), ..TileOptions::default() };
//! let tiled = tile(&scop, deps.as_slice(), &tree, &options).unwrap();
//! // { S0[i, j] -> [floor(i/32), floor(j/32), j, i] } (up to the scheduler's choice of
//! // members): 32 x 32 tiles, and inside a tile the loop over `i` (stride 1 in `A[j][i]`
//! // and `B[j][i]`) innermost.
//! let schedule = tiled.to_union_map().unwrap();
//! assert_eq!(schedule.maps().next().unwrap().space().n_out(), 4);
//! assert!(pollen_sched::legality::check(deps.as_slice(), &tiled).unwrap().is_legal());
//! ```

pub mod akg;
pub mod error;
pub mod expand;
pub mod fused;
pub mod grouping;
pub mod maps;
pub mod order;
pub mod profit;
pub mod residues;
pub mod sizes;
pub mod split;
pub mod tiling;

pub use error::{Error, Result};
pub use sizes::{default_tile_sizes, default_two_level_tile_sizes, CacheInfo};
pub use split::{split_for_locality, split_for_locality_with};
pub use tiling::{parallelize, parallelize_with, tile, tile_with, TileOptions};
