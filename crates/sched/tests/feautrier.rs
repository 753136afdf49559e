//! Feautrier's scheduler: known one-dimensional and multidimensional schedules, statements
//! without dependences, and legality on every kernel.

use pollen_deps::{analyze, Analysis};
use pollen_presburger::text::parse_union_map;
use pollen_sched::{legality, schedule, Algo, Options};
use pollen_scop::{Node, ScheduleTree};

fn feautrier() -> Options {
    Options {
        algo: Algo::Feautrier,
        ..Options::default()
    }
}

fn schedule_c(source: &str) -> ScheduleTree {
    let scop = pollen_frontend::extract(source).unwrap().scop;
    let deps = analyze(&scop, Analysis::ValueBased).unwrap();
    let tree = schedule(&scop, deps.as_slice(), &feautrier()).unwrap();
    let report = legality::check(deps.as_slice(), &tree).unwrap();
    assert!(report.is_legal(), "{:?}", report.violations);
    tree
}

fn first_band(tree: &ScheduleTree) -> &pollen_scop::Band {
    let Node::Domain { child, .. } = &tree.root else {
        panic!("no domain")
    };
    let Node::Band(b) = &**child else {
        panic!("no outer band")
    };
    b
}

fn flat_is(tree: &ScheduleTree, want: &str) {
    let got = tree.to_union_map().unwrap();
    let want = parse_union_map(want).unwrap();
    let want = want
        .map_each(|m| m.align_params(got.param_names()))
        .unwrap();
    let domain = got.domain();
    let want = want.intersect_domain(&domain).unwrap();
    assert!(got.is_equal(&want).unwrap(), "got {got}\nwant {want}");
}

#[test]
fn recurrence_gets_a_one_dimensional_schedule() {
    let tree = schedule_c(
        "double a[100];
         void f(int N) {
           int i;
         #pragma scop
           for (i = 1; i < N; i++) a[i] = a[i - 1];
         #pragma endscop
         }",
    );
    flat_is(&tree, "{ S0[i] -> [i] }");
}

#[test]
fn matrix_product_puts_the_reduction_first() {
    // Every dependence is carried by k: the first level satisfies all of them with k,
    // the loops on i and j follow and are parallel.
    let tree = schedule_c(
        "double A[100][100], B[100][100], C[100][100];
         void f(int M, int N, int K) {
           int i, j, k;
         #pragma scop
           for (i = 0; i < M; i++)
             for (j = 0; j < N; j++)
               for (k = 0; k < K; k++)
                 C[i][j] = C[i][j] + A[i][k] * B[k][j];
         #pragma endscop
         }",
    );
    flat_is(&tree, "{ S0[i, j, k] -> [k, i, j] }");
    let b = first_band(&tree);
    assert_eq!(b.coincident, vec![false, true, true]);
}

#[test]
fn two_statements_in_one_loop_are_interleaved_by_time() {
    // S0(i) -> S1(i) and S1(i) -> S0(i + 1): one dimension with 2i, 2i + 1 satisfies both.
    let tree = schedule_c(
        "double a[100], b[100];
         void f(int N) {
           int i;
         #pragma scop
           for (i = 1; i < N; i++) {
             a[i] = b[i - 1];
             b[i] = a[i];
           }
         #pragma endscop
         }",
    );
    flat_is(&tree, "{ S0[i] -> [2i]; S1[i] -> [2i + 1] }");
}

#[test]
fn statements_without_dependences_are_scheduled() {
    let tree = schedule_c(
        "double a[100][100], b[100], s;
         void f(int N) {
           int i, j;
         #pragma scop
           s = 0;
           for (i = 0; i < N; i++)
             for (j = 0; j < N; j++)
               a[i][j] = 1;
           for (i = 0; i < N; i++)
             b[i] = 2;
         #pragma endscop
         }",
    );
    // Every instance gets its own date.
    let flat = tree.to_union_map().unwrap();
    for m in flat.maps() {
        assert!(m.is_injective().unwrap(), "{m}");
    }
}

#[test]
fn every_kernel_is_legal() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("c"))
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let scop = pollen_frontend::extract(&text).unwrap().scop;
        let deps = analyze(&scop, Analysis::ValueBased).unwrap();
        let tree = schedule(&scop, deps.as_slice(), &feautrier())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let report = legality::check(deps.as_slice(), &tree).unwrap();
        assert!(
            report.is_legal(),
            "{}: {:?}",
            path.display(),
            report.violations
        );
    }
}
