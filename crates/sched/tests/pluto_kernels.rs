//! Pluto on the kernels of `examples/kernels` (extracted by the frontend, value-based
//! dependences): every schedule passes the independent legality checker, known band
//! structures and fusion structures are found, and the whole set is scheduled quickly.

use std::time::Instant;

use pollen_deps::Dependence;
use pollen_sched::{legality, schedule, Fuse, Options};
use pollen_scop::{Node, ScheduleTree, Scop};
use pollen_testkit::{all_kernel_names, kernel_scop, value_deps};

/// The scop and value-based dependences of a kernel.
fn kernel(name: &str) -> (Scop, Vec<Dependence>) {
    let scop = kernel_scop(name);
    let deps = value_deps(&scop);
    (scop, deps)
}

/// Schedules a kernel and checks the result with the independent checker.
fn run(name: &str, options: &Options) -> ScheduleTree {
    let (scop, deps) = kernel(name);
    let tree = schedule(&scop, &deps, options).unwrap_or_else(|e| panic!("{name}: {e}"));
    let report = legality::check(&deps, &tree).unwrap();
    assert!(report.is_legal(), "{name}: {:?}", report.violations);
    tree
}

/// A short description of a tree: `B3(ttf)` for a band of three members with their
/// coincidence, `Q[..|..]` for a sequence, `{S0,S1}` for a filter.
fn shape(tree: &ScheduleTree) -> String {
    fn visit(n: &Node) -> String {
        match n {
            Node::Domain { child, .. } => visit(child),
            Node::Band(b) => {
                let flags: String = b
                    .coincident
                    .iter()
                    .map(|&c| if c { 't' } else { 'f' })
                    .collect();
                let child = visit(&b.child);
                let me = format!("B{}({flags})", b.n_members());
                if child.is_empty() {
                    me
                } else {
                    format!("{me} {child}")
                }
            }
            Node::Sequence(cs) => {
                format!(
                    "Q[{}]",
                    cs.iter().map(visit).collect::<Vec<_>>().join(" | ")
                )
            }
            Node::Filter { filter, child } => {
                let mut names: Vec<String> = filter
                    .sets()
                    .map(|s| {
                        s.space()
                            .range_tuple()
                            .and_then(|t| t.name())
                            .unwrap_or("?")
                            .to_string()
                    })
                    .collect();
                names.sort_by_key(|n| (n.len(), n.clone()));
                let inner = visit(child);
                let me = format!("{{{}}}", names.join(","));
                if inner.is_empty() {
                    me
                } else {
                    format!("{me} {inner}")
                }
            }
            Node::Leaf => String::new(),
            other => format!("<{}>", other.kind_name()),
        }
    }
    visit(&tree.root)
}

fn fuse(fuse: Fuse) -> Options {
    Options {
        fuse,
        ..Options::default()
    }
}

#[test]
fn every_kernel_is_scheduled_legally_and_quickly() {
    let names = all_kernel_names();
    assert_eq!(names.len(), 30);
    let mut total = 0.0;
    for name in &names {
        let (scop, deps) = kernel(name);
        let start = Instant::now();
        let tree =
            schedule(&scop, &deps, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        total += start.elapsed().as_secs_f64();
        let report = legality::check(&deps, &tree).unwrap();
        assert!(report.is_legal(), "{name}: {:?}", report.violations);
        eprintln!("{name:16} {}", shape(&tree));
    }
    eprintln!("scheduling time, all kernels: {total:.3} s");
    if !cfg!(debug_assertions) {
        assert!(total < 5.0, "scheduling all kernels took {total:.3} s");
    }
}

/// `(kernel, policy, shape)`: the fusion structures Pluto's heuristics give (the
/// components numbered as Pluto's Kosaraju search does, `cut_scc_dim_based` first under
/// smart fusion, `cut_conservative` under max fusion, all components cut before every
/// band under no fusion).
const FUSION: &[(&str, Fuse, &str)] = &[
    // 2mm under smart fusion is Pluto's test/intratileopt5.c: the two initialisations
    // (2-d) fuse, then the two products (3-d) fuse on i, S3's loops interchanged.
    ("2mm", Fuse::Smart, "Q[{S0,S2} B2(tt) Q[{S2} | {S0}] | {S1,S3} B2(tf) Q[{S1} B1(f) | {S3} B1(t)]]"),
    ("2mm", Fuse::No, "Q[{S2} B2(tt) | {S0} B2(tt) | {S1} B3(ttf) | {S3} B3(ttf)]"),
    ("2mm", Fuse::Max, "B2(tf) Q[{S0,S2} Q[{S2} | {S0}] | {S1,S3} Q[{S1} B1(f) | {S3} B1(t)]]"),
    // The cut between S1 and S5 ends the scheduler's first band for every statement;
    // S3's product, alone in its component, keeps one 3-deep permutable band.
    ("3mm", Fuse::Smart, "Q[{S2,S4} B2(tt) | {S3} B3(ttf) | {S0} B2(tt) | {S1,S5} B2(tf) Q[{S1} B1(f) | {S5} B1(t)]]"),
    ("3mm", Fuse::No, "Q[{S4} B2(tt) | {S2} B2(tt) | {S3} B3(ttf) | {S0} B2(tt) | {S1} B3(ttf) | {S5} B3(ttf)]"),
    ("3mm", Fuse::Max, "B2(ff) Q[{S2,S4} | {S3} B1(f) | {S0} | {S1,S5} Q[{S1} B1(f) | {S5} B1(t)]]"),
    // gemver: the update of A and the product with its transpose fuse (A's loops
    // interchanged), as in the Pluto paper (PLDI 2008, §6).
    ("gemver", Fuse::Smart, "Q[{S0,S1} B2(tf) Q[{S0} | {S1}] | {S2} B1(t) | {S3} B2(tf)]"),
    ("gemver", Fuse::No, "Q[{S0} B2(tt) | {S1} B2(tf) | {S2} B1(t) | {S3} B2(tf)]"),
    ("gemver", Fuse::Max, "B1(f) Q[{S0,S1} B1(f) Q[{S0} | {S1}] | {S2} | {S3} B1(t)]"),
    // atax and bicg: consecutive components alternate between one and two dimensions,
    // so smart fusion distributes everything, like no fusion.
    ("atax", Fuse::Smart, "Q[{S1} B1(t) | {S2} B2(tf) | {S0} B1(t) | {S3} B2(tf)]"),
    ("atax", Fuse::No, "Q[{S1} B1(t) | {S2} B2(tf) | {S0} B1(t) | {S3} B2(tf)]"),
    ("atax", Fuse::Max, "B1(f) Q[{S1} | {S2} B1(f) | {S0} | {S3} B1(t)]"),
    ("bicg", Fuse::Smart, "Q[{S1} B1(t) | {S3} B2(tf) | {S0} B1(t) | {S2} B2(tf)]"),
    ("bicg", Fuse::No, "Q[{S1} B1(t) | {S3} B2(tf) | {S0} B1(t) | {S2} B2(tf)]"),
    ("bicg", Fuse::Max, "B2(tf) Q[{S1} | {S3} | {S0} | {S2}]"),
    // mvt: the two products fuse (one band, the second loops interchanged).
    ("mvt", Fuse::Smart, "B2(tf)"),
    ("mvt", Fuse::No, "Q[{S1} B2(tf) | {S0} B2(tf)]"),
];

#[test]
fn fusion_structures_under_each_policy() {
    for &(name, policy, want) in FUSION {
        let tree = run(name, &fuse(policy));
        assert_eq!(shape(&tree), want, "{name} under {policy:?}");
    }
}

/// `(kernel, shape)` under the default options: band depths of the solvers and the
/// stencils.
const BANDS: &[(&str, &str)] = &[
    ("gemm", "Q[{S0} B2(tt) | {S1} B3(ttf)]"),
    ("lu", "B3(fff)"),
    ("cholesky", "B3(fff)"),
    // k carries every dependence between the (i, j) planes; i and j form a band.
    ("floyd-warshall", "B1(f) B2(ff)"),
    ("jacobi-1d", "B2(ff) Q[{S0} | {S1}]"),
    ("jacobi-2d", "B3(fff)"),
    ("seidel-2d", "B3(fff)"),
    ("heat-3d", "B4(ffft)"),
    ("fdtd-2d", "B3(fff)"),
];

#[test]
fn band_depths() {
    for &(name, want) in BANDS {
        let tree = run(name, &Options::default());
        assert_eq!(shape(&tree), want, "{name}");
    }
}

#[test]
fn stencils_are_skewed_as_pluto_skews_them() {
    // Pluto's test/jacobi-2d-imper.c and test/seidel.c transformations, and the
    // heat-3d analogue of jacobi-2d.
    let cases = [
        (
            "jacobi-2d",
            "{ S0[t, i, j] -> [t, 2t + i, 2t + j]; S1[t, i, j] -> [t, 2t + i + 1, 2t + j + 1] }",
        ),
        ("seidel-2d", "{ S0[t, i, j] -> [t, t + i, 2t + i + j] }"),
        (
            "heat-3d",
            "{ S0[t, i, j, k] -> [t, 2t + i, 2t + j, 2t + k]; \
               S1[t, i, j, k] -> [t, 2t + i + 1, 2t + j + 1, 2t + k + 1] }",
        ),
    ];
    for (name, want) in cases {
        let tree = run(name, &Options::default());
        let Node::Domain { child, .. } = &tree.root else {
            panic!()
        };
        let Node::Band(band) = &**child else {
            panic!("{name}: no outer band")
        };
        let want = pollen_presburger::text::parse_union_map(want).unwrap();
        let want = want
            .map_each(|m| m.align_params(band.schedule.param_names()))
            .unwrap();
        assert!(
            band.schedule.is_equal(&want).unwrap(),
            "{name}: {}",
            band.schedule
        );
    }
}
