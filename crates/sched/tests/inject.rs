//! Constraint injection: a tree of extra constraints steers Pluto (the innermost loop of
//! gemm, the digest's fused operator), infeasible branches fall back to the next
//! alternative, and a wholly infeasible tree leaves the plain schedule; the report says
//! which node held and which rungs of the ladder were taken. The GPU builder
//! (Algorithm 2) gives its cost model's picks and a tree that steers the fused operator
//! and transposes.

use pollen_arith::Rat;
use pollen_deps::{analyze, Analysis, Dependences};
use pollen_sched::inject::gpu::{self, Size, StatementInfo, ThreadTerm, TreeOptions, VariantKind};
use pollen_sched::{
    legality, schedule, schedule_with_report, Algo, Coefficient, ConstraintNode, ConstraintTree,
    Error, Fuse, InjectedConstraint, InjectionReport, InjectionStep, Options,
};
use pollen_scop::{Node, ScheduleTree, Scop};

const GEMM: &str = "double A[100][100], B[100][100], C[100][100], alpha, beta;
    void f(int NI, int NJ, int NK) {
      int i, j, k;
    #pragma scop
      for (i = 0; i < NI; i++) {
        for (j = 0; j < NJ; j++)
          C[i][j] *= beta;
        for (k = 0; k < NK; k++)
          for (j = 0; j < NJ; j++)
            C[i][j] += alpha * A[i][k] * B[k][j];
      }
    #pragma endscop
    }";

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

/// The running example of the constraint-injection paper (digest §6.1): X produces B,
/// Y reduces over k with the bad stride D[k][i][j].
const FUSED_OPERATOR: &str = "double A[64][64], B[64][64], C[64][64], D[64][64][64];
    void f(int N) {
      int i, j, k;
    #pragma scop
      for (i = 0; i < N; i++)
        for (k = 0; k < N; k++)
          B[i][k] = A[i][k] * 2.0;
      for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
          for (k = 0; k < N; k++)
            C[i][j] = C[i][j] + B[i][k] * D[k][i][j];
    #pragma endscop
    }";

fn model(source: &str) -> (Scop, Dependences) {
    let scop = pollen_frontend::extract(source).unwrap().scop;
    let deps = analyze(&scop, Analysis::ValueBased).unwrap();
    (scop, deps)
}

fn run(source: &str, options: &Options) -> ScheduleTree {
    run_with_report(source, options).0
}

/// The schedule (checked legal) and the injection's report.
fn run_with_report(source: &str, options: &Options) -> (ScheduleTree, Option<InjectionReport>) {
    let (scop, deps) = model(source);
    let outcome = schedule_with_report(&scop, deps.as_slice(), options).unwrap();
    let report = legality::check(deps.as_slice(), &outcome.tree).unwrap();
    assert!(report.is_legal(), "{:?}", report.violations);
    (outcome.tree, outcome.injection)
}

/// The report's node that held.
fn held(report: &Option<InjectionReport>) -> Option<Vec<usize>> {
    report.as_ref().expect("a report").held.clone()
}

fn steps(report: &Option<InjectionReport>) -> Vec<InjectionStep> {
    report.as_ref().expect("a report").steps.clone()
}

fn with_tree(tree: ConstraintTree, fuse: Fuse) -> Options {
    Options {
        fuse,
        constraints: Some(tree),
        ..Options::default()
    }
}

fn iter(statement: &str, dim: usize, k: usize) -> Coefficient {
    Coefficient::iterator(statement, dim, k)
}

fn fix(statement: &str, dim: usize, k: usize, value: i64) -> InjectedConstraint {
    InjectedConstraint::fix(iter(statement, dim, k), value)
}

/// The schedule of `statement` in the flattened tree.
fn flat(tree: &ScheduleTree, statement: &str) -> pollen_presburger::Map {
    tree.to_union_map()
        .unwrap()
        .maps()
        .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(statement))
        .unwrap()
        .clone()
}

fn same(tree: &ScheduleTree, statement: &str, want: &str) {
    let got = flat(tree, statement);
    let want: pollen_presburger::Map = want.parse().unwrap();
    let want = want
        .align_params(got.space().param_names())
        .unwrap()
        .intersect_domain(&got.domain())
        .unwrap();
    assert!(
        got.is_equal(&want).unwrap(),
        "{statement}: got {got}, want {want}"
    );
}

#[test]
fn gemm_innermost_member_forced_to_j() {
    // Plain Pluto makes k innermost for the product (i, j, k). Keeping j out of the first
    // two dimensions and putting it in the third gives the stride-1 innermost j.
    let plain = run(GEMM, &Options::default());
    same(&plain, "S1", "{ S1[i, k, j] -> [1, i, j, k] }");
    let tree = ConstraintTree::chain(vec![
        vec![fix("S1", 0, 2, 0)],
        vec![fix("S1", 1, 2, 0)],
        vec![fix("S1", 2, 2, 1)],
    ]);
    let (steered, report) = run_with_report(GEMM, &with_tree(tree, Fuse::Smart));
    same(&steered, "S1", "{ S1[i, k, j] -> [1, i, k, j] }");
    assert_eq!(held(&report), Some(vec![0, 0, 0]));
    assert_eq!(steps(&report), vec![]);
}

#[test]
fn infeasible_first_branch_falls_back_to_the_second() {
    // Branch 1 asks for i alone outermost, which jacobi-1d's dependences forbid; branch 2
    // asks for t alone, which holds.
    let i_first = ConstraintNode::leaf(vec![fix("S0", 0, 0, 0), fix("S0", 0, 1, 1)]);
    let t_first = ConstraintNode::leaf(vec![fix("S0", 0, 0, 1), fix("S0", 0, 1, 0)]);
    let tree = ConstraintTree::new(vec![i_first, t_first]);
    let (steered, report) = run_with_report(JACOBI_1D, &with_tree(tree, Fuse::Smart));
    assert_eq!(held(&report), Some(vec![1]));
    assert_eq!(
        steps(&report),
        vec![InjectionStep::NodeFailed { path: vec![0] }]
    );
    let Node::Domain { child, .. } = &steered.root else {
        panic!()
    };
    let Node::Band(band) = &**child else { panic!() };
    let s0 = band
        .schedule
        .maps()
        .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some("S0"))
        .unwrap()
        .clone();
    let want: pollen_presburger::Map = "{ S0[t, i] -> [t, 2t + i] }".parse().unwrap();
    let want = want.align_params(s0.space().param_names()).unwrap();
    assert!(s0.is_equal(&want).unwrap(), "{s0}");
}

#[test]
fn wholly_infeasible_tree_leaves_the_plain_schedule() {
    // i alone outermost, or a coefficient 5 on i with t absent: both illegal.
    let tree = ConstraintTree::new(vec![
        ConstraintNode::leaf(vec![fix("S0", 0, 0, 0), fix("S0", 0, 1, 1)]),
        ConstraintNode::leaf(vec![fix("S0", 0, 0, 0), fix("S0", 0, 1, 5)]),
    ]);
    let (plain, none) = run_with_report(JACOBI_1D, &Options::default());
    assert_eq!(none, None);
    let (steered, report) = run_with_report(JACOBI_1D, &with_tree(tree, Fuse::Smart));
    assert_eq!(held(&report), None);
    assert_eq!(
        steps(&report).last(),
        Some(&InjectionStep::WithoutInfluence)
    );
    assert!(steered
        .to_union_map()
        .unwrap()
        .is_equal(&plain.to_union_map().unwrap())
        .unwrap());
}

/// Branch 1 of the digest's Fig. 3(b): X and Y share their first two dimensions, j is
/// absent from them, and the third dimension of Y is exactly j.
fn fusion_branch() -> Vec<Vec<InjectedConstraint>> {
    let shared = |d: usize| {
        vec![
            InjectedConstraint::eq(vec![(iter("S0", d, 0), 1), (iter("S1", d, 0), -1)], 0),
            InjectedConstraint::eq(vec![(iter("S0", d, 1), 1), (iter("S1", d, 2), -1)], 0),
            InjectedConstraint::eq(
                vec![
                    (Coefficient::constant("S0", d), 1),
                    (Coefficient::constant("S1", d), -1),
                ],
                0,
            ),
            fix("S1", d, 1, 0),
        ]
    };
    vec![shared(0), shared(1), vec![fix("S1", 2, 1, 1)]]
}

#[test]
fn fused_operator_follows_the_first_branch() {
    // Plain smart fusion distributes X and Y (different depths) and keeps Y's (i, j, k).
    let plain = run(FUSED_OPERATOR, &Options::default());
    same(&plain, "S1", "{ S1[i, j, k] -> [1, i, j, k] }");
    // Branch 1 gives Y the dimensions of X, (i, k), and j innermost.
    let tree = ConstraintTree::chain(fusion_branch());
    let (steered, report) = run_with_report(FUSED_OPERATOR, &with_tree(tree.clone(), Fuse::Smart));
    assert_eq!(held(&report), Some(vec![0, 0, 0]));
    same(&steered, "S0", "{ S0[i, k] -> [0, i, k, 0] }");
    same(&steered, "S1", "{ S1[i, j, k] -> [1, i, k, j] }");
    // Under maximal fusion the shared dimensions also fuse the nests (Fig. 2(c)): X,
    // then the j loop of Y, inside (i, k).
    let fused = run(FUSED_OPERATOR, &with_tree(tree, Fuse::Max));
    same(&fused, "S0", "{ S0[i, k] -> [i, k, 0, 0] }");
    same(&fused, "S1", "{ S1[i, j, k] -> [i, k, j, 1] }");
}

#[test]
fn fused_operator_falls_back_to_the_vectorisation_branch() {
    // Branch 1 with a contradiction added at depth 0 (X's i coefficient both 1 and 2);
    // branch 2 only keeps j out of the first two dimensions of Y and puts it third.
    let mut branch1 = fusion_branch();
    branch1[0].push(fix("S0", 0, 0, 1));
    branch1[0].push(fix("S0", 0, 0, 2));
    let branch2 = vec![
        vec![fix("S1", 0, 1, 0)],
        vec![fix("S1", 1, 1, 0)],
        vec![fix("S1", 2, 1, 1)],
    ];
    let mut roots = ConstraintTree::chain(branch1).roots;
    roots.extend(ConstraintTree::chain(branch2).roots);
    let (steered, report) = run_with_report(
        FUSED_OPERATOR,
        &with_tree(ConstraintTree::new(roots), Fuse::Smart),
    );
    // Distributed nests (smart fusion), j innermost with coefficient 1 in Y.
    same(&steered, "S1", "{ S1[i, j, k] -> [1, i, k, j] }");
    assert_eq!(held(&report), Some(vec![1, 0, 0]));
    assert_eq!(
        steps(&report),
        vec![InjectionStep::NodeFailed { path: vec![0] }]
    );
}

#[test]
fn deeper_tree_than_needed_drops_progression() {
    // X is full rank after two dimensions; the tree still constrains X at depth 2 and 3:
    // the extra dimensions are computed without progression constraints, not refused.
    let mut levels = fusion_branch();
    levels.push(vec![InjectedConstraint::fix(
        Coefficient::constant("S0", 3),
        0,
    )]);
    let tree = ConstraintTree::chain(levels);
    let (steered, report) = run_with_report(FUSED_OPERATOR, &with_tree(tree, Fuse::Smart));
    same(&steered, "S1", "{ S1[i, j, k] -> [1, i, k, j] }");
    assert_eq!(held(&report), Some(vec![0, 0, 0, 0]));
    assert_eq!(
        steps(&report),
        vec![InjectionStep::ProgressionDropped {
            path: vec![0, 0, 0, 0]
        }]
    );
}

#[test]
fn unknown_statements_and_iterators_are_errors() {
    let (scop, deps) = model(JACOBI_1D);
    let tree = ConstraintTree::chain(vec![vec![fix("S9", 0, 0, 1)]]);
    assert_eq!(
        schedule(&scop, deps.as_slice(), &with_tree(tree, Fuse::Smart)).unwrap_err(),
        Error::UnknownStatement("S9".into())
    );
    let tree = ConstraintTree::chain(vec![vec![fix("S0", 0, 7, 1)]]);
    assert!(matches!(
        schedule(&scop, deps.as_slice(), &with_tree(tree, Fuse::Smart)),
        Err(Error::NoSuchIterator { .. })
    ));
    let tree = ConstraintTree::chain(vec![vec![fix("S0", 1, 0, 1)]]);
    assert!(matches!(
        schedule(&scop, deps.as_slice(), &with_tree(tree, Fuse::Smart)),
        Err(Error::LaterDimension { depth: 0, dim: 1 })
    ));
}

#[test]
fn a_conflict_with_permutability_breaks_the_band() {
    // jacobi-1d: t outermost, then i unskewed. In the band of t the dependences from one
    // time step to the next forbid i alone; once the band is broken only the pairs of
    // the same time step remain, and i (shifted for S1) is legal.
    let t_only = |s: &str| vec![fix(s, 0, 0, 1), fix(s, 0, 1, 0)];
    let i_only = |s: &str| vec![fix(s, 1, 0, 0), fix(s, 1, 1, 1)];
    let tree = ConstraintTree::chain(vec![
        [t_only("S0"), t_only("S1")].concat(),
        [i_only("S0"), i_only("S1")].concat(),
    ]);
    let (steered, report) = run_with_report(JACOBI_1D, &with_tree(tree, Fuse::Smart));
    // The band is broken before any backtracking: the first pass at depth 1 fails, the
    // retry closing the band holds.
    assert_eq!(held(&report), Some(vec![0, 0]));
    assert_eq!(
        steps(&report),
        vec![
            InjectionStep::NodeFailed { path: vec![0, 0] },
            InjectionStep::BandBreakingRetry { parent: vec![0] },
            InjectionStep::BandBroken { path: vec![0, 0] },
        ]
    );
    let Node::Domain { child, .. } = &steered.root else {
        panic!()
    };
    let Node::Band(outer) = &**child else {
        panic!()
    };
    assert_eq!(outer.n_members(), 1);
    let Node::Band(inner) = &*outer.child else {
        panic!("no second band")
    };
    assert_eq!(inner.n_members(), 1);
    same(&steered, "S0", "{ S0[t, i] -> [t, i, 0] }");
    same(&steered, "S1", "{ S1[t, i] -> [t, i + 1, 1] }");
}

/// The running example over parametric arrays (`N×N`, `N×N×N`), for exact strides.
const FUSED_OPERATOR_N: &str = "void f(int N, double A[N][N], double B[N][N], double C[N][N],
        double D[N][N][N]) {
      int i, j, k;
    #pragma scop
      for (i = 0; i < N; i++)
        for (k = 0; k < N; k++)
          B[i][k] = A[i][k] * 2.0;
      for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
          for (k = 0; k < N; k++)
            C[i][j] = C[i][j] + B[i][k] * D[k][i][j];
    #pragma endscop
    }";

const TRANSPOSE_2D: &str = "void f(int N, int M, float A[N][M], float B[M][N], float c[M]) {
      int i, j;
    #pragma scop
      for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
          B[j][i] = A[i][j] + c[j];
    #pragma endscop
    }";

/// NHWC to NCHW with a bias per channel: the store is contiguous along w, the load along c.
const TRANSPOSE_NHWC: &str = "void f(int N, int H, int W, int C, float in[N][H][W][C],
        float out[N][C][H][W], float bias[C]) {
      int n, h, w, c;
    #pragma scop
      for (n = 0; n < N; n++)
        for (h = 0; h < H; h++)
          for (w = 0; w < W; w++)
            for (c = 0; c < C; c++)
              out[n][c][h][w] = in[n][h][w][c] + bias[c];
    #pragma endscop
    }";

fn scop_of(source: &str) -> Scop {
    pollen_frontend::extract(source).unwrap().scop
}

fn info(scop: &Scop, statement: &str) -> StatementInfo {
    StatementInfo::new(scop, scop.statement(statement).unwrap()).unwrap()
}

fn builder_options(tree: ConstraintTree, fuse: Fuse) -> Options {
    with_tree(tree, fuse)
}

fn rat(n: i64) -> Rat {
    Rat::from(n)
}

#[test]
fn strides_of_the_running_example() {
    // Digest §6.2: along j, C 1, B 0, D 1; along k, C 0, B 1, D N²; along i, N each.
    let scop = scop_of(FUSED_OPERATOR_N);
    let y = info(&scop, "S1");
    assert_eq!(y.iterators, ["i", "j", "k"]);
    let n = Size::unknown("N");
    let nn = n.mul(&n);
    let by_array = |array: &str, kind: pollen_scop::AccessKind| {
        y.accesses
            .iter()
            .find(|a| a.array == array && a.kind == kind)
            .unwrap()
            .strides
            .clone()
    };
    use pollen_scop::AccessKind::{Read, Write};
    let one = Size::constant(1);
    let zero = Size::zero();
    assert_eq!(by_array("C", Write), [n.clone(), one.clone(), zero.clone()]);
    assert_eq!(by_array("C", Read), [n.clone(), one.clone(), zero.clone()]);
    assert_eq!(by_array("B", Read), [n.clone(), zero.clone(), one.clone()]);
    assert_eq!(by_array("D", Read), [n.clone(), one, nn.clone()]);
    assert_eq!(nn.to_string(), "N*N");
    // Unknown extents exceed every constant; more unknown factors exceed fewer.
    assert_eq!(nn.compare(&n), std::cmp::Ordering::Greater);
    assert_eq!(
        n.compare(&Size::constant(1_i64 << 40)),
        std::cmp::Ordering::Greater
    );
    assert_eq!(
        Size::constant(2).compare(&Size::constant(1)),
        std::cmp::Ordering::Greater
    );
    assert_eq!(zero.compare(&Size::constant(1)), std::cmp::Ordering::Less);
    assert_eq!(Size::from_extent(" 64 "), Size::constant(64));
    assert_eq!(Size::from_extent("N + 1").to_string(), "(N + 1)");
    // The trip counts are parametric.
    assert!(y.trip_counts.iter().all(|t| t.as_constant().is_none()));
}

#[test]
fn cost_picks_j_innermost_for_y() {
    let scop = scop_of(FUSED_OPERATOR_N);
    let y = info(&scop, "S1");
    let w = TreeOptions::default().weights;
    let l = rat(1024);
    // j: V_w = {C}, V_r = {C, B, D}, M = 1, C = {C_w, C_r, D}: 5 + 9 + 1 + 3.
    let j = y.cost(&w, 1, &l, true);
    assert_eq!(j.value, rat(18));
    assert_eq!(j.vanishing, None);
    // k: V_w = {C} (invariant), V_r = {C, B}, M = 1, C = {B}: 5 + 6 + 1 + 1.
    assert_eq!(y.cost(&w, 2, &l, true).value, rat(13));
    // i: all strides N: only w3/M = 1/N (|C| counts a short minimum stride only),
    // smaller than any cost with a constant stride in the mix.
    let i = y.cost(&w, 0, &l, true);
    assert_eq!(i.value, rat(0));
    assert_eq!(i.vanishing, Some((rat(1), Size::unknown("N"))));
    assert_eq!(i.to_string(), "0 + 1/N");
    assert_eq!(y.best(&w, &[], &l, true).map(|b| b.0), Some(1));
    // Away from the innermost position the vectorizable accesses do not count.
    assert_eq!(y.cost(&w, 1, &l, false).value, rat(4));
    // best never returns a chosen iterator, and nothing once all are chosen.
    assert_eq!(y.best(&w, &[1], &l, true).map(|b| b.0), Some(2));
    assert_eq!(y.best(&w, &[1, 2], &l, false).map(|b| b.0), Some(0));
    assert_eq!(y.best(&w, &[0, 1, 2], &l, false), None);
    // The scenario: j, then k (1 + 1: B is contiguous along k, beating 0 + 1/N for
    // i), then i: Fig. 2(c)'s order.
    let s = y.scenario(&TreeOptions::default());
    assert_eq!(s.dims(), [0, 2, 1]);
    assert_eq!(
        s.to_string(),
        "S1 [i, k, j]: j 18 (L 1024), k 2 (L 0), i 0 + 1/N (L 0)"
    );
    // Under other weights (w3 alone), the smallest stride wins and ties go inner.
    let only_w3 = TreeOptions {
        weights: [0, 0, 1, 0, 0].map(Rat::from),
        ..TreeOptions::default()
    };
    assert_eq!(y.scenario(&only_w3).dims(), [0, 1, 2]);
}

#[test]
fn scenarios_pick_at_most_max_dims_and_divide_the_thread_budget() {
    let source = "float A[4][8][16][32], B[4][8][16][32];
        void f() {
          int a, b, c, d;
        #pragma scop
          for (a = 0; a < 4; a++)
            for (b = 0; b < 8; b++)
              for (c = 0; c < 16; c++)
                for (d = 0; d < 32; d++)
                  B[a][b][c][d] = A[a][b][c][d];
        #pragma endscop
        }";
    let scop = scop_of(source);
    let s0 = info(&scop, "S0");
    assert_eq!(s0.trip_counts, [4, 8, 16, 32].map(Size::constant).to_vec());
    // As printed, w5·F·L_s/N favours the smallest dimension: a (1024/4 = 256), then b
    // (L_s = 256: 256/8), then c (L_s = 32: 32/16).
    let s = s0.scenario(&TreeOptions::default());
    assert_eq!(s.dims(), [2, 1, 0]);
    let budgets: Vec<Rat> = s.picks.iter().map(|p| p.threads.clone()).collect();
    assert_eq!(budgets, [rat(1024), rat(256), rat(32)]);
    let inv = |n: i64| Rat::new(1.into(), n.into());
    // a: 1/4096 + 2 + 256 (its strides, 4096, are not vectorizable).
    assert_eq!(s.picks[0].cost.value, inv(4096) + rat(258));
    // Read as N/L_s (the share of the thread budget), d comes first: 5 + 3 + 1 + 2 +
    // 32/1024; then c (16/32) over b (8/32); then b, 8 no longer fitting in L_s = 2.
    let share = TreeOptions {
        thread_term: ThreadTerm::Contribution,
        ..TreeOptions::default()
    };
    let s = s0.scenario(&share);
    assert_eq!(s.picks.len(), 3);
    assert_eq!(s.dims(), [1, 2, 3]);
    let budgets: Vec<Rat> = s.picks.iter().map(|p| p.threads.clone()).collect();
    assert_eq!(budgets, [rat(1024), rat(32), rat(2)]);
    assert_eq!(s.picks[0].cost.value, rat(11) + inv(32));
    assert_eq!(s.picks[1].cost.value, inv(32) + rat(2) + inv(2));
    assert_eq!(s.picks[2].cost.value, inv(512) + rat(2));
    // At most max_dims, and never more than the iterators.
    let two = TreeOptions {
        max_dims: 2,
        ..share.clone()
    };
    assert_eq!(s0.scenario(&two).dims(), [2, 3]);
    let many = TreeOptions {
        max_dims: 9,
        ..share
    };
    assert_eq!(s0.scenario(&many).dims(), [0, 1, 2, 3]);
}

#[test]
fn builder_tree_of_the_running_example() {
    let scop = scop_of(FUSED_OPERATOR);
    let options = TreeOptions::default();
    let (tree, scenarios) = gpu::constraint_tree(&scop, &options).unwrap();
    let printed: Vec<String> = scenarios.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        printed,
        [
            "S0 [i, k]: k 11 (L 1024), i 129/64 (L 0)",
            "S1 [k, i, j]: j 18 (L 1024), i 257/64 (L 0), k 2 (L 0)",
        ]
    );
    let kinds: Vec<VariantKind> = gpu::variants(&scenarios, &options)
        .into_iter()
        .map(|v| v.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            VariantKind::Fused {
                group: vec!["S0".into(), "S1".into()]
            },
            VariantKind::Scenarios,
            VariantKind::Innermost,
            VariantKind::Statement("S1".into()),
            VariantKind::StatementInnermost("S1".into()),
            VariantKind::Statement("S0".into()),
            VariantKind::StatementInnermost("S0".into()),
        ]
    );
    // Branch 1 is the digest's Fig. 3(b) branch 1 with X's scenario.
    let text = tree.named(&scop).to_string();
    let branch1: Vec<&str> = text.lines().take(15).collect();
    assert_eq!(
        branch1,
        [
            "#0",
            "  T[S0,0,i] - T[S1,0,i] = 0",
            "  T[S0,0,k] - T[S1,0,k] = 0",
            "  T[S0,0,c] - T[S1,0,c] = 0",
            "  T[S0,0,k] = 0",
            "  T[S0,0,i] = 1",
            "  T[S1,0,j] = 0",
            "  #0.0",
            "    T[S0,1,i] - T[S1,1,i] = 0",
            "    T[S0,1,k] - T[S1,1,k] = 0",
            "    T[S0,1,c] - T[S1,1,c] = 0",
            "    T[S0,1,k] = 1",
            "    T[S1,1,j] = 0",
            "    #0.0.0 (leaf)",
            "      T[S1,2,j] = 1",
        ]
    );
    assert_eq!(tree.roots.len(), 7);
    // Unnamed, positions are printed.
    assert!(tree.to_string().contains("T[S1,2,1] = 1"));
}

#[test]
fn builder_tree_gives_the_fused_operator_of_fig_2c() {
    let scop = scop_of(FUSED_OPERATOR);
    let (tree, _) = gpu::constraint_tree(&scop, &TreeOptions::default()).unwrap();
    // Smart fusion: distributed nests, but Y shares (i, k) with X and has j innermost.
    let (steered, report) =
        run_with_report(FUSED_OPERATOR, &builder_options(tree.clone(), Fuse::Smart));
    assert_eq!(held(&report), Some(vec![0, 0, 0]));
    assert_eq!(steps(&report), vec![]);
    same(&steered, "S0", "{ S0[i, k] -> [0, i, k, 0] }");
    same(&steered, "S1", "{ S1[i, j, k] -> [1, i, k, j] }");
    // Maximal fusion: Fig. 2(c) itself.
    let (fused, report) = run_with_report(FUSED_OPERATOR, &builder_options(tree, Fuse::Max));
    assert_eq!(held(&report), Some(vec![0, 0, 0]));
    same(&fused, "S0", "{ S0[i, k] -> [i, k, 0, 0] }");
    same(&fused, "S1", "{ S1[i, j, k] -> [i, k, j, 1] }");
}

/// `tree` with a contradiction (X's constant both 0 and 1 at dimension 0) added to the
/// roots `which`.
fn spoiled(mut tree: ConstraintTree, which: &[usize]) -> ConstraintTree {
    for &k in which {
        let c = &mut tree.roots[k].constraints;
        c.push(InjectedConstraint::fix(Coefficient::constant("S0", 0), 0));
        c.push(InjectedConstraint::fix(Coefficient::constant("S0", 0), 1));
    }
    tree
}

#[test]
fn builder_tree_falls_back_to_the_scenario_branch() {
    let scop = scop_of(FUSED_OPERATOR);
    let (tree, _) = gpu::constraint_tree(&scop, &TreeOptions::default()).unwrap();
    let tree = spoiled(tree, &[0]);
    let (steered, report) = run_with_report(FUSED_OPERATOR, &builder_options(tree, Fuse::Smart));
    assert_eq!(held(&report), Some(vec![1, 0, 0]));
    assert_eq!(
        steps(&report),
        vec![InjectionStep::NodeFailed { path: vec![0] }]
    );
    // Both scenarios: X (i, k); Y (k, i, j), j innermost with coefficient 1.
    same(&steered, "S0", "{ S0[i, k] -> [0, i, k, 0] }");
    same(&steered, "S1", "{ S1[i, j, k] -> [1, k, i, j] }");
}

#[test]
fn wholly_infeasible_builder_tree_leaves_the_plain_schedule() {
    let scop = scop_of(FUSED_OPERATOR);
    let (tree, _) = gpu::constraint_tree(&scop, &TreeOptions::default()).unwrap();
    let all: Vec<usize> = (0..tree.roots.len()).collect();
    let tree = spoiled(tree, &all);
    let plain = run(FUSED_OPERATOR, &Options::default());
    let (steered, report) = run_with_report(FUSED_OPERATOR, &builder_options(tree, Fuse::Smart));
    assert_eq!(held(&report), None);
    let steps = steps(&report);
    assert_eq!(steps.last(), Some(&InjectionStep::WithoutInfluence));
    for k in &all {
        assert!(steps.contains(&InjectionStep::NodeFailed { path: vec![*k] }));
    }
    assert!(steered
        .to_union_map()
        .unwrap()
        .is_equal(&plain.to_union_map().unwrap())
        .unwrap());
}

#[test]
fn depth_first_order_and_restored_state() {
    // gemm: below a root fixing i outermost, the children are tried in order: a
    // contradiction first, then j second.
    let contradiction = vec![fix("S1", 1, 0, 0), fix("S1", 1, 0, 1)];
    let j_second = vec![fix("S1", 1, 2, 1), fix("S1", 1, 0, 0), fix("S1", 1, 1, 0)];
    let i_first = vec![fix("S1", 0, 0, 1), fix("S1", 0, 1, 0), fix("S1", 0, 2, 0)];
    let tree = ConstraintTree::new(vec![ConstraintNode::new(
        i_first.clone(),
        vec![
            ConstraintNode::leaf(contradiction.clone()),
            ConstraintNode::leaf(j_second.clone()),
        ],
    )]);
    let (steered, report) = run_with_report(GEMM, &with_tree(tree, Fuse::Smart));
    assert_eq!(held(&report), Some(vec![0, 1]));
    assert_eq!(
        steps(&report),
        vec![InjectionStep::NodeFailed { path: vec![0, 0] }]
    );
    // The failed sibling leaves no trace: the same as the second child alone.
    let alone = ConstraintTree::chain(vec![i_first, j_second]);
    let direct = run(GEMM, &with_tree(alone, Fuse::Smart));
    assert!(steered
        .to_union_map()
        .unwrap()
        .is_equal(&direct.to_union_map().unwrap())
        .unwrap());
    same(&steered, "S1", "{ S1[i, k, j] -> [1, i, j, k] }");
}

#[test]
fn backtracking_withdraws_the_rows_of_the_failed_subtree() {
    // Root 0 holds (k outermost for the product) but its only child is contradictory;
    // root 1 holds: the schedule is the one of root 1 alone, nothing of root 0 left.
    let k_first = vec![fix("S1", 0, 0, 0), fix("S1", 0, 1, 1), fix("S1", 0, 2, 0)];
    let contradiction = vec![fix("S1", 1, 0, 0), fix("S1", 1, 0, 1)];
    let tree = ConstraintTree::new(vec![
        ConstraintNode::new(k_first, vec![ConstraintNode::leaf(contradiction)]),
        ConstraintNode::new(
            vec![fix("S1", 0, 2, 0)],
            vec![ConstraintNode::new(
                vec![fix("S1", 1, 2, 0)],
                vec![ConstraintNode::leaf(vec![fix("S1", 2, 2, 1)])],
            )],
        ),
    ]);
    let (steered, report) = run_with_report(GEMM, &with_tree(tree, Fuse::Smart));
    assert_eq!(held(&report), Some(vec![1, 0, 0]));
    let steps = steps(&report);
    assert_eq!(
        steps.first(),
        Some(&InjectionStep::NodeFailed { path: vec![0, 0] })
    );
    assert!(steps.contains(&InjectionStep::Backtracked { from: vec![0] }));
    same(&steered, "S1", "{ S1[i, k, j] -> [1, i, k, j] }");
}

#[test]
fn influence_ends_at_a_leaf() {
    // A leaf at dimension 0 (k outermost for the product); the rest is plain Pluto.
    let tree = ConstraintTree::chain(vec![vec![
        fix("S1", 0, 0, 0),
        fix("S1", 0, 1, 1),
        fix("S1", 0, 2, 0),
    ]]);
    let (steered, report) = run_with_report(GEMM, &with_tree(tree, Fuse::Smart));
    assert_eq!(held(&report), Some(vec![0]));
    // Dimension 1 (after the scalar) is k, the later ones are Pluto's own (i, j).
    same(&steered, "S1", "{ S1[i, k, j] -> [1, k, i, j] }");
}

#[test]
fn transpose_gets_the_contiguous_store_innermost() {
    let scop = scop_of(TRANSPOSE_2D);
    let s0 = info(&scop, "S0");
    let w = TreeOptions::default().weights;
    // i: store 1, load M, c 0: 5 + 3 + 1 + 1; j: store N, load 1, c 1: 6 + 1 + 2.
    assert_eq!(s0.cost(&w, 0, &rat(1024), true).value, rat(10));
    assert_eq!(s0.cost(&w, 1, &rat(1024), true).value, rat(9));
    let (tree, scenarios) = gpu::constraint_tree(&scop, &TreeOptions::default()).unwrap();
    assert_eq!(scenarios[0].dims(), [1, 0]);
    let plain = run(TRANSPOSE_2D, &Options::default());
    same(&plain, "S0", "{ S0[i, j] -> [i, j] }");
    let (steered, report) = run_with_report(TRANSPOSE_2D, &with_tree(tree, Fuse::Smart));
    assert_eq!(held(&report), Some(vec![0, 0]));
    same(&steered, "S0", "{ S0[i, j] -> [j, i] }");
}

#[test]
fn nhwc_to_nchw_gets_w_innermost() {
    let scop = scop_of(TRANSPOSE_NHWC);
    let (tree, scenarios) = gpu::constraint_tree(&scop, &TreeOptions::default()).unwrap();
    assert_eq!(
        scenarios[0].to_string(),
        "S0 [h, c, w]: w 10 (L 1024), c 3 (L 0), h 0 + 1/W (L 0)"
    );
    let plain = run(TRANSPOSE_NHWC, &Options::default());
    same(&plain, "S0", "{ S0[n, h, w, c] -> [n, h, w, c] }");
    let (steered, report) = run_with_report(TRANSPOSE_NHWC, &with_tree(tree, Fuse::Smart));
    assert_eq!(held(&report), Some(vec![0, 0, 0, 0]));
    // The store out[n][c][h][w] is contiguous along the innermost loop.
    same(&steered, "S0", "{ S0[n, h, w, c] -> [n, h, c, w] }");
}

#[test]
fn shared_prefixes_keep_the_priority_order() {
    use gpu::{tree_of, Variant};
    let a = vec![fix("S0", 0, 0, 1)];
    let b = vec![fix("S0", 1, 1, 1)];
    let c = vec![fix("S0", 1, 0, 1)];
    let chain = |levels: Vec<Vec<InjectedConstraint>>| Variant {
        kind: VariantKind::Scenarios,
        levels,
    };
    // [a, b] and [a, c] share a; [a] alone ends a chain and is not shared; [b] after
    // [a, c] starts a new root.
    let tree = tree_of(&[
        chain(vec![a.clone(), b.clone()]),
        chain(vec![a.clone(), c.clone()]),
        chain(vec![a.clone()]),
        chain(vec![vec![], b.clone(), vec![]]),
    ]);
    let want = ConstraintTree::new(vec![
        ConstraintNode::new(
            a.clone(),
            vec![ConstraintNode::leaf(b.clone()), ConstraintNode::leaf(c)],
        ),
        ConstraintNode::leaf(a),
        ConstraintNode::new(vec![], vec![ConstraintNode::leaf(b)]),
    ]);
    assert_eq!(tree, want);
    // At most max_scenarios alternatives.
    let scop = scop_of(FUSED_OPERATOR);
    let options = TreeOptions {
        max_scenarios: 2,
        ..TreeOptions::default()
    };
    let (tree, _) = gpu::constraint_tree(&scop, &options).unwrap();
    assert_eq!(tree.roots.len(), 2);
}

#[test]
fn feautrier_and_plain_runs_report_no_injection() {
    let (_, report) = run_with_report(
        FUSED_OPERATOR,
        &Options {
            algo: Algo::Feautrier,
            ..Options::default()
        },
    );
    assert_eq!(report, None);
}

#[test]
fn builder_trees_on_the_kernels_give_legal_schedules() {
    // Every kernel of examples/kernels, scheduled under its builder tree: no error, a
    // legal schedule, and a report (a leaf that held or the plain schedule).
    let mut held_somewhere = 0;
    for name in pollen_testkit::all_kernel_names() {
        let scop = pollen_testkit::kernel_scop(&name);
        let deps = pollen_testkit::value_deps(&scop);
        let (tree, scenarios) = gpu::constraint_tree(&scop, &TreeOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(tree.roots.len() <= 8, "{name}");
        for s in &scenarios {
            assert!(s.picks.len() <= 3, "{name}: {s}");
        }
        let outcome = schedule_with_report(&scop, &deps, &builder_options(tree, Fuse::Smart))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let report = legality::check(&deps, &outcome.tree).unwrap();
        assert!(report.is_legal(), "{name}: {:?}", report.violations);
        let injection = outcome.injection.expect("a report");
        println!(
            "{name}: {}",
            injection.to_string().lines().next().unwrap_or("")
        );
        if injection.held.is_some() {
            held_somewhere += 1;
        } else {
            assert_eq!(
                injection.steps.last(),
                Some(&InjectionStep::WithoutInfluence),
                "{name}"
            );
        }
    }
    assert!(held_somewhere > 0);
}

#[test]
fn gemm_is_not_fused_against_its_vector_dimension() {
    // C[i][j] *= beta (S0) would lead a fused group, but sharing (i, j) with the product
    // would push the product's innermost pick j outwards: no fused alternative.
    let scop = scop_of(GEMM);
    let options = TreeOptions::default();
    let scenarios = gpu::scenarios(&scop, &options).unwrap();
    let printed: Vec<String> = scenarios.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        printed,
        [
            "S0 [i, j]: j 14 (L 1024), i 201/100 (L 0)",
            "S1 [k, i, j]: j 21 (L 1024), i 301/100 (L 0), k 2 (L 0)",
        ]
    );
    let variants = gpu::variants(&scenarios, &options);
    assert_eq!(variants[0].kind, VariantKind::Scenarios);
    let (tree, _) = gpu::constraint_tree(&scop, &options).unwrap();
    let (steered, report) = run_with_report(GEMM, &builder_options(tree, Fuse::Smart));
    assert_eq!(held(&report), Some(vec![0, 0, 0]));
    same(&steered, "S0", "{ S0[i, j] -> [0, i, j, 0] }");
    same(&steered, "S1", "{ S1[i, k, j] -> [1, k, i, j] }");
}

const BATCHNORM: &str = "void f(int N, int C, int H, int W, float X[N][C][H][W],
        float Y[N][C][H][W], float gamma[C], float factor[C]) {
      int n, c, h, w;
    #pragma scop
      for (c = 0; c < C; c++)
        factor[c] = gamma[c] * 2;
      for (n = 0; n < N; n++)
        for (c = 0; c < C; c++)
          for (h = 0; h < H; h++)
            for (w = 0; w < W; w++)
              Y[n][c][h][w] = X[n][c][h][w] * factor[c];
    #pragma endscop
    }";

#[test]
fn no_fused_alternative_against_a_members_scenario() {
    // S1's scenario puts c on its third loop, under h; fusing it with S0 (over c) would
    // pull c outermost, so the builder offers no fused alternative.
    let scop = scop_of(BATCHNORM);
    let options = TreeOptions::default();
    let scenarios = gpu::scenarios(&scop, &options).unwrap();
    let s1 = scenarios.iter().find(|s| s.statement == "S1").unwrap();
    assert_eq!(
        s1.to_string(),
        "S1 [h, c, w]: w 14 (L 1024), c 2 (L 0), h 0 + 1/W (L 0)"
    );
    let variants = gpu::variants(&scenarios, &options);
    assert!(!variants.is_empty());
    assert!(
        variants
            .iter()
            .all(|v| !matches!(v.kind, VariantKind::Fused { .. })),
        "{:?}",
        variants
            .iter()
            .map(|v| v.kind.to_string())
            .collect::<Vec<_>>()
    );
    // The running example keeps its fused alternative (Fig. 3(b)).
    let running = scop_of(FUSED_OPERATOR_N);
    let scenarios = gpu::scenarios(&running, &options).unwrap();
    assert!(matches!(
        gpu::variants(&scenarios, &options)[0].kind,
        VariantKind::Fused { .. }
    ));
}
