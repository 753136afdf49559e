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
//!   ([`TileOptions::wavefront`]).
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

pub mod error;
pub mod maps;
pub mod order;
pub mod sizes;
pub mod tiling;

pub use error::{Error, Result};
pub use sizes::{default_tile_sizes, default_two_level_tile_sizes, CacheInfo};
pub use tiling::{tile, TileOptions};
