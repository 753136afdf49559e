//! AKG's polyhedral strategy for fused deep-learning operators (Zhao et al., PLDI 2021,
//! `../shared/digests/akg.md`): tiling of the live-out iteration space and the reverse
//! strategy for its producers' tiles ([`reverse`]), post-tiling fusion under an
//! extension node and the intra-tile split into Cube and Vector paths ([`fusion`]), and
//! promotion of tiles into a memory hierarchy described as data ([`memory`]).

pub mod cluster;
pub mod fusion;
pub mod memory;
pub mod reverse;

pub use cluster::cluster;
pub use fusion::{
    distribute, distribute_local_ub, is_dot_product, post_tiling_fusion, post_tiling_fusion_with,
    units, PostTilingFusion, Unit, LOCAL_UB, SKIPPED,
};
pub use reverse::{
    classify, fusion_groups, instance_count, point_count, producer_tiles, sinks, tile_live_out,
    IterationSpace, LiveOutTiling, ProducerTile, SpaceKind,
};
