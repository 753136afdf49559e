//! Shared helpers of the mapping tests: the example kernels through Pluto, tiling and
//! code generation, and the parameter values they are checked at.

use pollen_codegen::Ast;
use pollen_deps::Dependence;
use pollen_presburger::Int;
use pollen_scop::{ScheduleTree, Scop};
use pollen_transform::TileOptions;

pub use pollen_testkit::{kernel_names, kernel_scop, pluto_with, value_deps};

/// A kernel's scop, value-based dependences and Pluto schedule.
pub fn scheduled(name: &str) -> (Scop, Vec<Dependence>, ScheduleTree) {
    let scop = kernel_scop(name);
    let deps = value_deps(&scop);
    let tree = pluto_with(&scop, &deps);
    (scop, deps, tree)
}

/// The tree tiled with the given size for every member, tile bands without a parallel
/// member skewed into wavefronts as the pipeline does for parallel code (checked by
/// the tiler).
pub fn tiled(scop: &Scop, deps: &[Dependence], tree: &ScheduleTree, size: i64) -> ScheduleTree {
    let options = TileOptions {
        sizes: Some(vec![size]),
        wavefront: true,
        ..TileOptions::default()
    };
    pollen_transform::tile(scop, deps, tree, &options).expect("tiling")
}

/// The loop AST of a tree.
pub fn ast(scop: &Scop, tree: &ScheduleTree) -> Ast {
    pollen_codegen::generate(scop, tree, &pollen_codegen::Options::default()).expect("codegen")
}

/// The loop AST of a tree as the pipeline generates it: parallel innermost loops of
/// guarded statements distributed.
pub fn distributed_ast(scop: &Scop, tree: &ScheduleTree) -> Ast {
    let options = pollen_codegen::Options {
        distribute: true,
        ..Default::default()
    };
    pollen_codegen::generate(scop, tree, &options).expect("codegen")
}

/// Parameter valuations inside the context: every parameter in 5..7.
pub fn valuations(scop: &Scop) -> Vec<Vec<(String, i64)>> {
    let n = scop.params.len();
    let patterns: Vec<Vec<i64>> = vec![
        (0..n).map(|k| 5 + (k as i64 % 3)).collect(),
        (0..n).map(|k| 7 - (k as i64 % 3)).collect(),
    ];
    patterns
        .into_iter()
        .map(|v| scop.params.iter().cloned().zip(v).collect::<Vec<_>>())
        .filter(|v| in_context(scop, v))
        .collect()
}

/// Whether the valuation lies in the scop's context.
pub fn in_context(scop: &Scop, values: &[(String, i64)]) -> bool {
    let point: Vec<Int> = values.iter().map(|(_, v)| Int::from(*v)).collect();
    scop.context.contains_point(&point).expect("context test")
}
