//! Constraint injection: a tree of extra constraints steers Pluto (the innermost loop of
//! gemm, the digest's fused operator), infeasible branches fall back to the next
//! alternative, and a wholly infeasible tree leaves the plain schedule.

use pollen_deps::{analyze, Analysis, Dependences};
use pollen_sched::{
    legality, schedule, Coefficient, ConstraintNode, ConstraintTree, Error, Fuse,
    InjectedConstraint, Options,
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
    let (scop, deps) = model(source);
    let tree = schedule(&scop, deps.as_slice(), options).unwrap();
    let report = legality::check(deps.as_slice(), &tree).unwrap();
    assert!(report.is_legal(), "{:?}", report.violations);
    tree
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
    let steered = run(GEMM, &with_tree(tree, Fuse::Smart));
    same(&steered, "S1", "{ S1[i, k, j] -> [1, i, k, j] }");
}

#[test]
fn infeasible_first_branch_falls_back_to_the_second() {
    // Branch 1 asks for i alone outermost, which jacobi-1d's dependences forbid; branch 2
    // asks for t alone, which holds.
    let i_first = ConstraintNode::leaf(vec![fix("S0", 0, 0, 0), fix("S0", 0, 1, 1)]);
    let t_first = ConstraintNode::leaf(vec![fix("S0", 0, 0, 1), fix("S0", 0, 1, 0)]);
    let tree = ConstraintTree::new(vec![i_first, t_first]);
    let steered = run(JACOBI_1D, &with_tree(tree, Fuse::Smart));
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
    let plain = run(JACOBI_1D, &Options::default());
    let steered = run(JACOBI_1D, &with_tree(tree, Fuse::Smart));
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
    let steered = run(FUSED_OPERATOR, &with_tree(tree.clone(), Fuse::Smart));
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
    let steered = run(
        FUSED_OPERATOR,
        &with_tree(ConstraintTree::new(roots), Fuse::Smart),
    );
    // Distributed nests (smart fusion), j innermost with coefficient 1 in Y.
    same(&steered, "S1", "{ S1[i, j, k] -> [1, i, k, j] }");
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
    let steered = run(FUSED_OPERATOR, &with_tree(tree, Fuse::Smart));
    same(&steered, "S1", "{ S1[i, j, k] -> [1, i, k, j] }");
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
    let steered = run(JACOBI_1D, &with_tree(tree, Fuse::Smart));
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
