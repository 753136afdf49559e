//! Tests of tiling: every example kernel tiled under several options passes the legality
//! checker; band structures, flags and intra-tile orders on known kernels; the flattened
//! order of tiled bands against brute force; generated code of tiled kernels run by the
//! interpreter; the default tile-size model.

mod codegen;
mod common;
mod kernels;
mod known;
mod order;
mod sizes;
mod split;
