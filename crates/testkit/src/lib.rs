//! Test support shared by the test suites of the Pollen crates (a dev-dependency only):
//! listing and loading the example kernels of `examples/kernels` and the deep-learning
//! operators of `examples/operators`, the Pluto pipeline
//! (value-based dependences, default options), small schedule tree helpers, the
//! loop-nest fragments of `examples/fragments` with the harness that makes a complete C
//! program of a region ([`fragment_program`]), a generator of random affine programs
//! ([`random`]), compiling and running C programs ([`cc`]), and the OpenCL and CUDA
//! toolchains ([`gpu`]).
//!
//! Every function panics on failure, naming the kernel where there is one: these are
//! helpers for tests, where a panic is the failure report.

pub mod cc;
mod fragments;
pub mod gpu;

pub use fragments::{
    fragment_program, fragment_source, fragments, fragments_dir, region_text, Fragment,
};

use std::path::PathBuf;

pub mod random;

use pollen_deps::{analyze, Analysis, Dependence};
use pollen_sched::{schedule, Options};
use pollen_scop::{Band, Node, ScheduleTree, Scop};

/// The directory of the example kernels, `examples/kernels` at the repository's root.
pub fn kernels_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels")
}

/// The names of all example kernels (their `.c` files without the extension), sorted.
pub fn all_kernel_names() -> Vec<String> {
    c_file_stems(&kernels_dir())
}

/// The names of the example kernels, sorted, or only `$KERNEL` when that is set.
pub fn kernel_names() -> Vec<String> {
    let mut names = all_kernel_names();
    if let Ok(only) = std::env::var("KERNEL") {
        names.retain(|n| *n == only);
    }
    names
}

/// The C source of an example kernel.
pub fn kernel_source(name: &str) -> String {
    let path = kernels_dir().join(format!("{name}.c"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The scop the frontend extracts from an example kernel.
pub fn kernel_scop(name: &str) -> Scop {
    pollen_frontend::extract(&kernel_source(name))
        .unwrap_or_else(|e| panic!("{name}: extraction: {e}"))
        .scop
}

/// The directory of the image-processing and multigrid pipelines, `examples/pipelines`
/// at the repository's root.
pub fn pipelines_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/pipelines")
}

/// The directory of the deep-learning operators, `examples/operators` at the repository's
/// root.
pub fn operators_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/operators")
}

/// The names of the operators (their `.c` files without the extension), sorted, or only
/// `$OPERATOR` when that is set.
pub fn operator_names() -> Vec<String> {
    let mut names = c_file_stems(&operators_dir());
    if let Ok(only) = std::env::var("OPERATOR") {
        names.retain(|n| *n == only);
    }
    names
}

/// The C source of an operator.
pub fn operator_source(name: &str) -> String {
    let path = operators_dir().join(format!("{name}.c"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The names of the `.c` files of a directory without the extension, sorted.
fn c_file_stems(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let p = e.expect("directory entry").path();
            (p.extension().and_then(|x| x.to_str()) == Some("c"))
                .then(|| p.file_stem().and_then(|s| s.to_str()).map(str::to_string))
                .flatten()
        })
        .collect();
    names.sort();
    names
}

/// The value-based dependences of a scop.
pub fn value_deps(scop: &Scop) -> Vec<Dependence> {
    analyze(scop, Analysis::ValueBased)
        .expect("dependences")
        .as_slice()
        .to_vec()
}

/// The Pluto schedule of a scop for the given dependences, with the default options.
pub fn pluto_with(scop: &Scop, deps: &[Dependence]) -> ScheduleTree {
    schedule(scop, deps, &Options::default()).expect("schedule")
}

/// The Pluto schedule of a scop: value-based dependences, default options.
pub fn pluto(scop: &Scop) -> ScheduleTree {
    pluto_with(scop, &value_deps(scop))
}

/// The bands of a tree in depth-first order.
pub fn bands(tree: &ScheduleTree) -> Vec<&Band> {
    fn visit<'a>(n: &'a Node, out: &mut Vec<&'a Band>) {
        if let Node::Band(b) = n {
            out.push(b);
        }
        for c in n.children() {
            visit(c, out);
        }
    }
    let mut out = Vec::new();
    visit(&tree.root, &mut out);
    out
}

/// Panics unless `readme` shows the example program `example` (`name` in messages)
/// without its leading `//!` header, as a ```` ```rust ```` block: README examples are
/// real programs that tests compile and run, and this keeps the README's copy true.
pub fn assert_readme_shows(readme: &str, example: &str, name: &str) {
    let code: String = example
        .lines()
        .skip_while(|l| l.starts_with("//!") || l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        readme.contains(&format!("```rust\n{code}```")),
        "README.md must show {name} (without its `//!` header) in a rust block"
    );
}
