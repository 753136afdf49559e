//! Pluto's own regression cases (the loop nests of `test/*.c` in Pluto's repository and
//! the domains and dependences of its `test_libpluto.c`), with the transformations its
//! `FileCheck` lines record for the default options (smart fusion, no tiling): the
//! flattened schedule tree must equal Pluto's `T(S)` (statements renumbered from 0, the
//! scalar dimensions as sequence positions). Every schedule also passes the independent
//! legality checker.

use pollen_deps::{analyze, Analysis, DepKind, Dependence};
use pollen_presburger::text::parse_union_map;
use pollen_presburger::{Map, Set};
use pollen_sched::{legality, schedule, Options};
use pollen_scop::{Node, ScheduleTree, Scop};

/// Extracts `source`, analyses it, schedules it with the default options and checks
/// legality.
fn schedule_c(source: &str) -> ScheduleTree {
    let scop = pollen_frontend::extract(source).unwrap().scop;
    let deps = analyze(&scop, Analysis::ValueBased).unwrap();
    let tree = schedule(&scop, deps.as_slice(), &Options::default()).unwrap();
    let report = legality::check(deps.as_slice(), &tree).unwrap();
    assert!(report.is_legal(), "{:?}", report.violations);
    tree
}

/// Whether the flattened schedule of `tree` equals `expected` (over any parameters).
fn check(tree: &ScheduleTree, expected: &str) {
    let got = tree.to_union_map().unwrap();
    let want = parse_union_map(expected).unwrap();
    let same = got.maps().count() == want.maps().count()
        && want.maps().all(|w| {
            let key = w.space().domain_tuple().map(|t| t.key());
            got.maps()
                .any(|g| g.space().domain_tuple().map(|t| t.key()) == key && same_function(g, w))
        });
    assert!(same, "got {got}\nwant {want}");
}

/// Whether two schedule maps agree on the domain of the first.
fn same_function(got: &Map, want: &Map) -> bool {
    let want = want.align_params(got.space().param_names()).unwrap();
    let want = want.intersect_domain(&got.domain()).unwrap();
    got.space().n_out() == want.space().n_out() && got.is_equal(&want).unwrap()
}

#[test]
fn multi_statement_stencil_sequence_is_shifted_and_fused() {
    // Pluto: T(S1) = (i, 0), T(S2) = (i+1, 1), ..., T(S5) = (i+4, 4).
    let tree = schedule_c(
        "double a0[1000], a1[1000], a2[1000], a3[1000], a4[1000], a5[1000];
         void f(int n) {
           int i;
         #pragma scop
           for (i = 1; i < n - 1; i++) a1[i] = a0[i - 1] + a0[i] + a0[i + 1];
           for (i = 2; i < n - 2; i++) a2[i] = a1[i - 1] + a1[i] + a1[i + 1];
           for (i = 3; i < n - 3; i++) a3[i] = a2[i - 1] + a2[i] + a2[i + 1];
           for (i = 4; i < n - 4; i++) a4[i] = a3[i - 1] + a3[i] + a3[i + 1];
           for (i = 5; i < n - 5; i++) a5[i] = a4[i - 1] + a4[i] + a4[i + 1];
         #pragma endscop
         }",
    );
    check(
        &tree,
        "{ S0[i] -> [i, 0]; S1[i] -> [i + 1, 1]; S2[i] -> [i + 2, 2]; \
           S3[i] -> [i + 3, 3]; S4[i] -> [i + 4, 4] }",
    );
}

#[test]
fn shift_aligns_two_statements() {
    // Pluto test/shift.c: T(S1) = (i, j, 1), T(S2) = (i, j+1, 0).
    let tree = schedule_c(
        "double a[100][100], b[100][100];
         void f(int n) {
           int i, j;
         #pragma scop
           for (i = 0; i < n; i++)
             for (j = 0; j < n; j++) {
               a[i][j] = b[i][j - 1] + a[i][j - 1];
               b[i][j] = a[i - 1][j + 1] + b[i - 1][j];
             }
         #pragma endscop
         }",
    );
    check(
        &tree,
        "{ S0[i, j] -> [i, j, 1]; S1[i, j] -> [i, j + 1, 0] }",
    );
}

#[test]
fn loops_of_different_extents_fuse() {
    // Pluto test/multi-loop-param.c: T(S1) = (i, 0), T(S2) = (i, 1), T(S3) = (i, 2).
    let tree = schedule_c(
        "double a[100], b[100];
         void f(int N, int M, int L) {
           int i;
         #pragma scop
           for (i = 0; i < N; i++) a[i] = b[i];
           for (i = 0; i < M; i++) a[i] = b[i];
           for (i = 0; i < L; i++) a[i] = b[i];
         #pragma endscop
         }",
    );
    check(
        &tree,
        "{ S0[i] -> [i, 0]; S1[i] -> [i, 1]; S2[i] -> [i, 2] }",
    );
}

#[test]
fn cost_function_prefers_the_skew_with_constant_distances() {
    // Pluto test/costfunc.c: T(S1) = (i+j, i).
    let tree = schedule_c(
        "double a[100][100];
         void f(int N) {
           int i, j;
         #pragma scop
           for (i = 0; i < N; i++)
             for (j = 1; j < N; j++)
               a[i][j] = a[j][i] + a[i][j - 1];
         #pragma endscop
         }",
    );
    check(&tree, "{ S0[i, j] -> [i + j, i] }");
}

#[test]
fn polynomial_product_is_skewed() {
    // Pluto test/polynomial.c: T(S2) = (1, i+j, i).
    let tree = schedule_c(
        "double a[100], b[100], c[200];
         void f(int n) {
           int i, j;
         #pragma scop
           for (i = 0; i < 2 * n; i++) c[i] = 0;
           for (i = 0; i < n; i++)
             for (j = 0; j < n; j++)
               c[i + j] = c[i + j] + a[i] * b[j];
         #pragma endscop
         }",
    );
    check(&tree, "{ S0[i] -> [0, i, 0]; S1[i, j] -> [1, i + j, i] }");
}

#[test]
fn seidel_is_skewed_twice() {
    // Pluto test/seidel.c: T(S1) = (t, t+i, 2t+i+j).
    let tree = schedule_c(
        "double a[1000][1000];
         void f(int T, int N) {
           int t, i, j;
         #pragma scop
           for (t = 0; t <= T - 1; t++)
             for (i = 1; i <= N - 2; i++)
               for (j = 1; j <= N - 2; j++)
                 a[i][j] = (a[i - 1][j - 1] + a[i - 1][j] + a[i - 1][j + 1]
                          + a[i][j - 1] + a[i][j] + a[i][j + 1]
                          + a[i + 1][j - 1] + a[i + 1][j] + a[i + 1][j + 1]) / 9.0;
         #pragma endscop
         }",
    );
    check(&tree, "{ S0[t, i, j] -> [t, t + i, 2t + i + j] }");
}

#[test]
fn imperfect_jacobi_1d() {
    // Pluto test/jacobi-1d-imper.c: T(S1) = (t, 2t+i, 0), T(S2) = (t, 2t+i+1, 1).
    let tree = schedule_c(
        "double a[1000], b[1000];
         void f(int T, int N) {
           int t, i;
         #pragma scop
           for (t = 0; t < T; t++) {
             for (i = 2; i < N - 1; i++) b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
             for (i = 2; i < N - 1; i++) a[i] = b[i];
           }
         #pragma endscop
         }",
    );
    check(
        &tree,
        "{ S0[t, i] -> [t, 2t + i, 0]; S1[t, i] -> [t, 2t + i + 1, 1] }",
    );
}

#[test]
fn imperfect_jacobi_2d() {
    // Pluto test/jacobi-2d-imper.c: T(S1) = (t, 2t+i, 2t+j), T(S2) = (t, 2t+i+1, 2t+j+1).
    let tree = schedule_c(
        "double a[1000][1000], b[1000][1000];
         void f(int T, int N) {
           int t, i, j;
         #pragma scop
           for (t = 0; t < T; t++) {
             for (i = 2; i < N - 1; i++)
               for (j = 2; j < N - 1; j++)
                 b[i][j] = 0.2 * (a[i][j] + a[i][j - 1] + a[i][1 + j] + a[1 + i][j] + a[i - 1][j]);
             for (i = 2; i < N - 1; i++)
               for (j = 2; j < N - 1; j++)
                 a[i][j] = b[i][j];
           }
         #pragma endscop
         }",
    );
    check(
        &tree,
        "{ S0[t, i, j] -> [t, 2t + i, 2t + j]; S1[t, i, j] -> [t, 2t + i + 1, 2t + j + 1] }",
    );
}

#[test]
fn heat_2d_with_modulo_subscripts() {
    // Pluto test/heat-2d.c: T(S1) = (t, t+i, t+j); the dependences go through floor
    // divisions.
    let tree = schedule_c(
        "double A[2][1002][1002];
         void f(int T, int N) {
         #pragma scop
           for (int t = 0; t < T; t++)
             for (int i = 1; i < N + 1; i++)
               for (int j = 1; j < N + 1; j++)
                 A[(t + 1) % 2][i][j] = 0.125 * (A[t % 2][i + 1][j] - 2.0 * A[t % 2][i][j]
                     + A[t % 2][i - 1][j]) + 0.125 * (A[t % 2][i][j + 1]
                     - 2.0 * A[t % 2][i][j] + A[t % 2][i][j - 1]) + A[t % 2][i][j];
         #pragma endscop
         }",
    );
    check(&tree, "{ S0[t, i, j] -> [t, t + i, t + j] }");
}

#[test]
fn fdtd_2d_pluto_version() {
    // Pluto test/fdtd-2d.c: T(S1) = (t, t+j, t), T(S2) = T(S3) = (t, t+j, t+i),
    // T(S4) = (t, t+j+1, t+i+1).
    let tree = schedule_c(
        "double ex[100][101], ey[101][100], hz[100][100];
         void f(int tmax, int nx, int ny) {
           int t, i, j;
         #pragma scop
           for (t = 0; t < tmax; t++) {
             for (j = 0; j < ny; j++) ey[0][j] = t;
             for (i = 1; i < nx; i++)
               for (j = 0; j < ny; j++)
                 ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
             for (i = 0; i < nx; i++)
               for (j = 1; j < ny; j++)
                 ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
             for (i = 0; i < nx; i++)
               for (j = 0; j < ny; j++)
                 hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
           }
         #pragma endscop
         }",
    );
    check(
        &tree,
        "{ S0[t, j] -> [t, t + j, t]; S1[t, i, j] -> [t, t + j, t + i]; \
           S2[t, i, j] -> [t, t + j, t + i]; S3[t, i, j] -> [t, t + j + 1, t + i + 1] }",
    );
}

#[test]
fn matrix_products_keep_the_original_order() {
    // Pluto test/matmul.c and test/tss1.c: T(S1) = (i, j, k).
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
    check(&tree, "{ S0[i, j, k] -> [i, j, k] }");
    let tree = schedule_c(
        "double A[100][100], B[100][100], C[100][100];
         void f(int M, int N, int K) {
           int i, j, k;
         #pragma scop
           for (i = 0; i < M; i++)
             for (j = 0; j < N; j++) {
               C[i][j] = 0.0f;
               for (k = 0; k < K; k++)
                 C[i][j] = C[i][j] + A[i][k] * B[k][j];
             }
         #pragma endscop
         }",
    );
    check(
        &tree,
        "{ S0[i, j] -> [0, i, j, 0]; S1[i, j, k] -> [1, i, j, k] }",
    );
}

#[test]
fn wavefront_and_reduction_keep_the_original_order() {
    // Pluto test/wavefront.c and test/seq.c: T(S1) = (i, j).
    let tree = schedule_c(
        "double a[100][100];
         void f(int N) {
           int i, j;
         #pragma scop
           for (i = 1; i < N; i++)
             for (j = 1; j < N; j++)
               a[i][j] = a[i - 1][j] + a[i][j - 1];
         #pragma endscop
         }",
    );
    check(&tree, "{ S0[i, j] -> [i, j] }");
    let tree = schedule_c(
        "double a[100][100], s;
         void f(int N, int M) {
           int i, j;
         #pragma scop
           for (i = 0; i < N; i++)
             for (j = 0; j < M; j++)
               s += a[i][j];
         #pragma endscop
         }",
    );
    check(&tree, "{ S0[i, j] -> [i, j] }");
}

#[test]
fn two_matrix_multiplications_fuse_by_dimensionality() {
    // Pluto test/intratileopt5.c (2mm): T(S1) = (0, i, j, 1, 0), T(S2) = (1, i, j, 0, k),
    // T(S3) = (0, i, j, 0, 0), T(S4) = (1, i, k, 1, j).
    let tree = schedule_c(
        "double tmp[100][100], A[100][100], B[100][100], C[100][100], D[100][100];
         void f(int _PB_NI, int _PB_NJ, int _PB_NK, int _PB_NL) {
           int i, j, k;
         #pragma scop
           for (i = 0; i < _PB_NI; i++)
             for (j = 0; j < _PB_NJ; j++) {
               tmp[i][j] = 0.0;
               for (k = 0; k < _PB_NK; ++k)
                 tmp[i][j] += A[i][k] * B[k][j];
             }
           for (i = 0; i < _PB_NI; i++)
             for (j = 0; j < _PB_NL; j++) {
               D[i][j] *= 1.0;
               for (k = 0; k < _PB_NJ; ++k)
                 D[i][j] += tmp[i][k] * C[k][j];
             }
         #pragma endscop
         }",
    );
    check(
        &tree,
        "{ S0[i, j] -> [0, i, j, 1, 0]; S1[i, j, k] -> [1, i, j, 0, k]; \
           S2[i, j] -> [0, i, j, 0, 0]; S3[i, j, k] -> [1, i, k, 1, j] }",
    );
}

// ----- test_libpluto.c: domains and dependences given as isl text -----

/// A scop of the given domains (no accesses) and flow dependences split per pair of
/// statements, restricted to the domains (Pluto's cases relate a few instances outside
/// them).
fn from_isl(domains: &str, deps: &str) -> (Scop, Vec<Dependence>) {
    let domains: pollen_presburger::UnionSet = domains.parse().unwrap();
    let params = domains.param_names().to_vec();
    let mut statements = Vec::new();
    for set in domains.sets() {
        let set = set.align_params(&params).unwrap();
        let name = set
            .space()
            .range_tuple()
            .and_then(|t| t.name())
            .unwrap()
            .to_string();
        statements.push(pollen_scop::Statement {
            iterators: (0..set.n_dims()).map(|k| format!("i{k}")).collect(),
            name,
            domain: set,
            accesses: Vec::new(),
            body: String::new(),
        });
    }
    statements.sort_by(|a, b| a.name.cmp(&b.name));
    let mut context = Set::universe(pollen_presburger::Space::params(params.clone()));
    for s in &statements {
        context = context.intersect(&s.domain.params()).unwrap();
    }
    let deps_map = parse_union_map(deps).unwrap();
    let mut out = Vec::new();
    let domain_of = |name: &str| {
        statements
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .domain
            .clone()
    };
    for m in deps_map.maps() {
        let name =
            |t: Option<&pollen_presburger::Tuple>| t.and_then(|t| t.name()).unwrap().to_string();
        out.push(Dependence {
            kind: DepKind::Flow,
            array: "M".into(),
            source: name(m.space().domain_tuple()),
            target: name(m.space().range_tuple()),
            relation: m
                .intersect_domain(domain_of(&name(m.space().domain_tuple())).as_map())
                .and_then(|r| r.intersect_range(domain_of(&name(m.space().range_tuple())).as_map()))
                .unwrap(),
        });
    }
    let scop = Scop {
        params,
        context,
        arrays: Vec::new(),
        statements,
        schedule: ScheduleTree { root: Node::Leaf },
    };
    (scop, out)
}

fn schedule_isl(domains: &str, deps: &str) -> ScheduleTree {
    let (scop, deps) = from_isl(domains, deps);
    let tree = schedule(&scop, &deps, &Options::default()).unwrap();
    let report = legality::check(&deps, &tree).unwrap();
    assert!(report.is_legal(), "{:?}", report.violations);
    tree
}

#[test]
fn libpluto_case_1_cuts_between_components_of_different_depth() {
    // T(S1) = (i0, 0, 0), T(S2) = (i0, 1, i1), T(S3) = (i0, 2, 0).
    let tree = schedule_isl(
        "[n] -> { S_1[i0, i1] : 0 <= i0 <= 99 and 0 <= i1 <= 99; S_0[i0] : 0 <= i0 <= 99; \
                  S_2[i0] : 0 <= i0 <= 99 }",
        "[n] -> { S_1[i0, 99] -> S_0[1 + i0] : 0 <= i0 <= 98; \
                  S_1[i0, i1] -> S_1[i0, 1 + i1] : 0 <= i0 <= 99 and 0 <= i1 <= 98; \
                  S_1[i0, 99] -> S_1[1 + i0, 0] : 0 <= i0 <= 98; \
                  S_0[i0] -> S_1[i0, 0] : 0 <= i0 <= 99; \
                  S_2[i0] -> S_1[1 + i0, 0] : 0 <= i0 <= 98; \
                  S_0[i0] -> S_2[i0] : 0 <= i0 <= 99; \
                  S_1[i0, 99] -> S_2[i0] : 0 <= i0 <= 99 }",
    );
    check(
        &tree,
        "{ S_0[i0] -> [i0, 0, 0]; S_1[i0, i1] -> [i0, 1, i1]; S_2[i0] -> [i0, 2, 0] }",
    );
}

#[test]
fn libpluto_case_4_skews_for_a_zero_distance() {
    // Dependence (1, -1): T(S1) = (i0+i1, i0).
    let tree = schedule_isl(
        "[R, T] -> { S_0[i0, i1] : 0 <= i0 <= T and 0 < i1 <= R - 1 }",
        "[R, T] -> { S_0[i0, i1] -> S_0[i0 + 1, i1 - 1] : 1 <= i0 <= T and 1 <= i1 <= R - 2 }",
    );
    check(&tree, "{ S_0[i0, i1] -> [i0 + i1, i0] }");
}

#[test]
fn libpluto_case_5_shifts_the_consumer() {
    // T(S1) = (i0, i1, 0), T(S2) = (i0+1, i1+1, 1).
    let tree = schedule_isl(
        "[R, T] -> { S_0[i0, i1] : 0 <= i0 <= T and 0 <= i1 <= R - 1; \
                     S_1[i0, i1] : 0 <= i0 <= T and 0 <= i1 <= R - 1 }",
        "[R, T] -> { S_0[i0, i1] -> S_1[i0 - 1, i1 - 1] : 1 <= i0 <= T and 1 <= i1 <= R - 2; \
                     S_0[i0, i1] -> S_1[i0 - 1, i1] : 1 <= i0 <= T and 1 <= i1 <= R - 2; \
                     S_0[i0, i1] -> S_1[i0 - 1, i1 + 1] : 1 <= i0 <= T and 1 <= i1 <= R - 2 }",
    );
    check(
        &tree,
        "{ S_0[i0, i1] -> [i0, i1, 0]; S_1[i0, i1] -> [i0 + 1, i1 + 1, 1] }",
    );
}

#[test]
fn libpluto_case_2_dependences_through_divisions() {
    // Existentially quantified dependences over seven parameters. Pluto's test (run with
    // diamond tiling) records T(S1) = (i0, 1024i0), T(S2) = (i0, 1024i0+i1); without
    // tiling the distance bound prefers the interchanged band (the first parameter's
    // coefficient in `u` is then zero), so only the legal two-member band is checked.
    let tree = schedule_isl(
        "[p_0, p_1, p_2, p_3, p_4, p_5, p_7] -> { S_1[i0, i1] : i0 >= 0 and i0 <= p_0 and \
           i1 >= 0 and i1 <= p_3 and p_2 >= 0; S_0[i0] : i0 >= 0 and i0 <= p_0 }",
        "[p_0, p_1, p_2, p_3, p_4, p_5, p_7] -> { S_0[i0] -> S_1[o0, o1] : \
           (exists (e0 = floor((p_7)/8): 8o1 = -p_5 + p_7 + 8192i0 - 8192o0 and 8e0 = p_7 and \
           i0 >= 0 and o0 <= p_0 and 8192o0 >= -8p_3 - p_5 + p_7 + 8192i0 and \
           8192o0 <= -p_5 + p_7 + 8192i0 and p_2 >= 0 and o0 >= 1 + i0)); \
           S_1[i0, i1] -> S_0[o0] : (exists (e0 = floor((p_1)/8), e1 = floor((p_4)/8), \
           e2 = floor((-p_1 + p_7)/8184): 8192o0 = p_5 - p_7 + 8192i0 + 8i1 and 8e0 = p_1 and \
           8e1 = p_4 and 8184e2 = -p_1 + p_7 and i1 >= 0 and \
           8i1 <= 8192p_0 - p_5 + p_7 - 8192i0 and \
           8184i1 >= 1024 + 1024p_1 - 1023p_5 - p_7 - 8380416i0 and p_2 >= 0 and \
           p_7 <= -1 + p_5 and 8i1 >= 1 + 8p_3 + p_4 - p_5 - 8192i0 and i1 <= p_3 and \
           i0 >= 0 and 8i1 >= 8192 - p_5 + p_7)) }",
    );
    let Node::Domain { child, .. } = &tree.root else {
        panic!("no domain")
    };
    let Node::Band(band) = &**child else {
        panic!("no band")
    };
    assert_eq!(band.n_members(), 2);
    assert!(band.permutable);
}
