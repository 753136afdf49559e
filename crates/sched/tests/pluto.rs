//! Pluto on hand-built kernels: known band structures, skews and fusion, each schedule
//! checked for legality exactly.

mod common;

use common::{band_is, bands, is_legal, memory_deps, scop, shape, Stmt};
use pollen_sched::{schedule, Fuse, Options};
use pollen_scop::Scop;

fn gemm() -> Scop {
    scop(
        &["NI", "NJ", "NK"],
        "[NI, NJ, NK] -> { : NI >= 1 and NJ >= 1 and NK >= 1 }",
        &[
            Stmt {
                domain: "[NI, NJ] -> { S0[i, j] : 0 <= i < NI and 0 <= j < NJ }",
                schedule: "{ S0[i, j] -> [i, 0, j, 0] }",
                accesses: &[
                    (false, "{ S0[i, j] -> C[i, j] }"),
                    (true, "{ S0[i, j] -> C[i, j] }"),
                ],
            },
            Stmt {
                domain:
                    "[NI, NJ, NK] -> { S1[i, k, j] : 0 <= i < NI and 0 <= k < NK and 0 <= j < NJ }",
                schedule: "{ S1[i, k, j] -> [i, 1, k, j] }",
                accesses: &[
                    (false, "{ S1[i, k, j] -> C[i, j] }"),
                    (false, "{ S1[i, k, j] -> A[i, k] }"),
                    (false, "{ S1[i, k, j] -> B[k, j] }"),
                    (true, "{ S1[i, k, j] -> C[i, j] }"),
                ],
            },
        ],
    )
}

fn jacobi_1d() -> Scop {
    scop(
        &["T", "N"],
        "[T, N] -> { : T >= 1 and N >= 3 }",
        &[
            Stmt {
                domain: "[T, N] -> { S0[t, i] : 0 <= t < T and 1 <= i <= N - 2 }",
                schedule: "{ S0[t, i] -> [t, 0, i] }",
                accesses: &[
                    (false, "{ S0[t, i] -> A[i - 1] }"),
                    (false, "{ S0[t, i] -> A[i] }"),
                    (false, "{ S0[t, i] -> A[i + 1] }"),
                    (true, "{ S0[t, i] -> B[i] }"),
                ],
            },
            Stmt {
                domain: "[T, N] -> { S1[t, i] : 0 <= t < T and 1 <= i <= N - 2 }",
                schedule: "{ S1[t, i] -> [t, 1, i] }",
                accesses: &[
                    (false, "{ S1[t, i] -> B[i - 1] }"),
                    (false, "{ S1[t, i] -> B[i] }"),
                    (false, "{ S1[t, i] -> B[i + 1] }"),
                    (true, "{ S1[t, i] -> A[i] }"),
                ],
            },
        ],
    )
}

/// Schedules `scop` with its memory-based dependences under `options`, checks legality.
fn run(scop: &Scop, options: &Options) -> pollen_scop::ScheduleTree {
    let deps = memory_deps(scop);
    let tree = schedule(scop, &deps, options).unwrap();
    assert!(is_legal(&tree, &deps), "illegal schedule {}", shape(&tree));
    tree
}

fn fuse(fuse: Fuse) -> Options {
    Options {
        fuse,
        ..Options::default()
    }
}

#[test]
fn gemm_smartfuse_distributes_the_initialisation() {
    // Pluto's smart fusion separates components of different dimensionality first.
    let tree = run(&gemm(), &Options::default());
    assert_eq!(shape(&tree), "Q[{S0} B2(tt) | {S1} B3(ttf)]");
    let b = bands(&tree);
    assert!(b[1].permutable);
    assert!(band_is(b[0], "{ S0[i, j] -> [i, j] }"));
    assert!(band_is(b[1], "{ S1[i, k, j] -> [i, j, k] }"));
}

#[test]
fn gemm_maxfuse_is_one_permutable_band_with_two_parallel_loops() {
    let tree = run(&gemm(), &fuse(Fuse::Max));
    assert_eq!(shape(&tree), "B3(ttf) Q[{S0} | {S1}]");
    let b = bands(&tree);
    assert!(b[0].permutable);
    assert!(band_is(
        b[0],
        "{ S0[i, j] -> [i, j, 0]; S1[i, k, j] -> [i, j, k] }"
    ));
}

#[test]
fn gemm_nofuse_distributes() {
    let tree = run(&gemm(), &fuse(Fuse::No));
    assert_eq!(shape(&tree), "Q[{S0} B2(tt) | {S1} B3(ttf)]");
}

#[test]
fn jacobi_1d_is_skewed_into_a_permutable_band() {
    // Pluto's test/jacobi-1d-imper.c: T(S1) = (t, 2t+i, 0), T(S2) = (t, 2t+i+1, 1).
    let tree = run(&jacobi_1d(), &Options::default());
    assert_eq!(shape(&tree), "B2(ff) Q[{S0} | {S1}]");
    let b = bands(&tree);
    assert!(band_is(
        b[0],
        "{ S0[t, i] -> [t, 2t + i]; S1[t, i] -> [t, 2t + i + 1] }"
    ));
}
