//! The scheduler's options and errors: the wavefront, negative coefficients for
//! reversed loops, the coefficient bound, the work budget and malformed dependences.

use pollen_deps::{analyze, Analysis, DepKind, Dependence, Dependences};
use pollen_sched::{legality, schedule, schedule_with_report, Error, Fallback, Options};
use pollen_scop::{Node, ScheduleTree, Scop};

fn model(source: &str) -> (Scop, Dependences) {
    let scop = pollen_frontend::extract(source).unwrap().scop;
    let deps = analyze(&scop, Analysis::ValueBased).unwrap();
    (scop, deps)
}

fn run(source: &str, options: &Options) -> ScheduleTree {
    let (scop, deps) = model(source);
    let tree = schedule(&scop, deps.as_slice(), options).unwrap();
    let report = legality::check(deps.as_slice(), &tree).unwrap();
    assert!(report.is_legal(), "{:?}", report.violations);
    tree
}

fn outer_band(tree: &ScheduleTree) -> &pollen_scop::Band {
    let Node::Domain { child, .. } = &tree.root else {
        panic!("no domain")
    };
    let Node::Band(b) = &**child else {
        panic!("no outer band")
    };
    b
}

const SEIDEL: &str = "double a[100][100];
    void f(int T, int N) {
      int t, i, j;
    #pragma scop
      for (t = 0; t <= T - 1; t++)
        for (i = 1; i <= N - 2; i++)
          for (j = 1; j <= N - 2; j++)
            a[i][j] = (a[i - 1][j - 1] + a[i - 1][j] + a[i - 1][j + 1] + a[i][j - 1]
                     + a[i][j] + a[i][j + 1] + a[i + 1][j - 1] + a[i + 1][j]
                     + a[i + 1][j + 1]) / 9.0;
    #pragma endscop
    }";

#[test]
fn wavefront_makes_the_second_member_parallel() {
    let plain = run(SEIDEL, &Options::default());
    assert_eq!(outer_band(&plain).coincident, vec![false, false, false]);
    let options = Options {
        wavefront: true,
        ..Options::default()
    };
    let waved = run(SEIDEL, &options);
    let band = outer_band(&waved);
    assert!(band.permutable);
    assert!(!band.coincident[0]);
    assert!(band.coincident[1], "{:?}", band.coincident);
    // The first member is the sum of the first two of (t, t + i, 2t + i + j).
    let want: pollen_presburger::UnionMap = "{ S0[t, i, j] -> [2t + i, t + i, 2t + i + j] }"
        .parse()
        .unwrap();
    let want = want
        .map_each(|m| m.align_params(band.schedule.param_names()))
        .unwrap();
    assert!(band.schedule.is_equal(&want).unwrap(), "{}", band.schedule);
}

#[test]
fn wavefront_leaves_parallel_bands_alone() {
    const MATMUL: &str = "double A[9][9], B[9][9], C[9][9];
        void f(int N) {
          int i, j, k;
        #pragma scop
          for (i = 0; i < N; i++)
            for (j = 0; j < N; j++)
              for (k = 0; k < N; k++)
                C[i][j] += A[i][k] * B[k][j];
        #pragma endscop
        }";
    let options = Options {
        wavefront: true,
        ..Options::default()
    };
    let plain = run(MATMUL, &Options::default());
    let waved = run(MATMUL, &options);
    assert!(waved
        .to_union_map()
        .unwrap()
        .is_equal(&plain.to_union_map().unwrap())
        .unwrap());
}

#[test]
fn reversed_loop_gets_a_negative_coefficient() {
    // Each element depends on the next one: the loop runs downwards, and no schedule with
    // non-negative coefficients orders it.
    let tree = run(
        "double a[100];
         void f(int N) {
           int i;
         #pragma scop
           for (i = N - 2; i >= 0; i--) a[i] = a[i + 1];
         #pragma endscop
         }",
        &Options::default(),
    );
    let want: pollen_presburger::UnionMap = "{ S0[i] -> [-i] }".parse().unwrap();
    let got = tree.to_union_map().unwrap();
    let want = want
        .map_each(|m| m.align_params(got.param_names()))
        .unwrap();
    let want = want.intersect_domain(&got.domain()).unwrap();
    assert!(got.is_equal(&want).unwrap(), "{got}");
}

#[test]
fn negative_coefficients_from_the_start_keep_non_negative_optima() {
    // gemm's schedule has non-negative coefficients; allowing negative ones changes
    // nothing, the negative parts being minimised first.
    let gemm = std::fs::read_to_string(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels/gemm.c"),
    )
    .unwrap();
    let plain = run(&gemm, &Options::default());
    let signed = run(
        &gemm,
        &Options {
            negative_coefficients: true,
            ..Options::default()
        },
    );
    assert!(signed
        .to_union_map()
        .unwrap()
        .is_equal(&plain.to_union_map().unwrap())
        .unwrap());
}

const JACOBI_1D: &str = "double A[1000], B[1000];
    void f(int T, int N) {
      int t, i;
    #pragma scop
      for (t = 0; t < T; t++) {
        for (i = 1; i < N - 1; i++) B[i] = 0.33 * (A[i - 1] + A[i] + A[i + 1]);
        for (i = 1; i < N - 1; i++) A[i] = 0.33 * (B[i - 1] + B[i] + B[i + 1]);
      }
    #pragma endscop
    }";

#[test]
fn coefficient_bound_forbids_the_skew_by_two() {
    // With coefficients at most 1 jacobi-1d cannot be skewed by 2t: t alone is the first
    // band, then i (shifted for S1) within a time step.
    let bounded = run(
        JACOBI_1D,
        &Options {
            coefficient_bound: Some(1),
            ..Options::default()
        },
    );
    assert_eq!(outer_band(&bounded).n_members(), 1);
    let want: pollen_presburger::UnionMap = "{ S0[t, i] -> [t, i, 0]; S1[t, i] -> [t, i + 1, 1] }"
        .parse()
        .unwrap();
    let got = bounded.to_union_map().unwrap();
    let want = want
        .map_each(|m| m.align_params(got.param_names()))
        .unwrap();
    let want = want.intersect_domain(&got.domain()).unwrap();
    assert!(got.is_equal(&want).unwrap(), "{got}");
}

#[test]
fn zero_bound_admits_no_hyperplane_and_falls_back_to_the_original_order() {
    let (scop, deps) = model(JACOBI_1D);
    let options = Options {
        coefficient_bound: Some(0),
        ..Options::default()
    };
    let outcome = schedule_with_report(&scop, deps.as_slice(), &options).unwrap();
    assert!(
        outcome
            .fallbacks
            .iter()
            .any(|f| matches!(f, Fallback::OriginalOrder { .. })),
        "{:?}",
        outcome.fallbacks
    );
    let got = outcome.tree.to_union_map().unwrap();
    let original = scop.schedule.to_union_map().unwrap();
    assert!(got.is_equal(&original).unwrap(), "{got}");
}

#[test]
fn small_budget_is_exceeded() {
    let (scop, deps) = model(SEIDEL);
    let options = Options {
        budget: Some(10),
        ..Options::default()
    };
    assert_eq!(
        schedule(&scop, deps.as_slice(), &options).unwrap_err(),
        Error::LimitExceeded
    );
}

#[test]
fn dependence_on_an_unknown_statement_is_an_error() {
    let (scop, _) = model(SEIDEL);
    let relation: pollen_presburger::Map = "{ S7[i] -> S0[t, i, j] }".parse().unwrap();
    let deps = vec![Dependence {
        kind: DepKind::Flow,
        array: "a".into(),
        source: "S7".into(),
        target: "S0".into(),
        relation,
    }];
    assert_eq!(
        schedule(&scop, &deps, &Options::default()).unwrap_err(),
        Error::UnknownStatement("S7".into())
    );
}
