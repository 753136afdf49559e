//! Shared helpers of the search tests: small programs as C text, their problems, and an
//! independent exact check of fusing rows.

use pollen_arith::Int;
use pollen_deps::{analyze, Analysis, Dependences};
use pollen_presburger::Budget;
use pollen_scop::Scop;
use pollen_search::fusion::Edge;
use pollen_search::Problem;

/// The problem of the scop of `c` (one `#pragma scop` region), memory-based
/// dependences as in the paper.
pub fn problem(c: &str) -> Problem {
    parts(c).2
}

/// The scop of `c`, its memory-based dependences and its problem.
pub fn parts(c: &str) -> (Scop, Dependences, Problem) {
    let scop = pollen_frontend::extract(c).expect("extract").scop;
    let deps = analyze(&scop, Analysis::MemoryBased).expect("deps");
    let problem = Problem::new(&scop, &deps).expect("problem");
    (scop, deps, problem)
}

/// A C function around a scop body over square `N × N` arrays named in `arrays`
/// (two-dimensional) and `vectors` (one-dimensional).
pub fn program(arrays: &[&str], vectors: &[&str], body: &str) -> String {
    let mut params = vec!["int N".to_string()];
    params.extend(arrays.iter().map(|a| format!("double {a}[N][N]")));
    params.extend(vectors.iter().map(|v| format!("double {v}[N]")));
    format!(
        "void f({}) {{\n  int i, j, k, l;\n#pragma scop\n{body}\n#pragma endscop\n}}\n",
        params.join(", ")
    )
}

/// Whether some instance pair of `edge` runs backwards under the rows `(θ, c)` of its
/// source and target: an exact integer test on the dependence relation.
pub fn violated(edge: &Edge, source: (&[i64], i64), target: (&[i64], i64)) -> bool {
    let p = edge.relation.space().n_params();
    let (ds, dt) = (source.0.len(), target.0.len());
    for b in edge.relation.basic_maps() {
        // Θ_s(x) − Θ_t(y) − 1 ≥ 0.
        let mut row = b.zero_row();
        row[0] = Int::from(source.1 - target.1 - 1);
        for k in 0..ds {
            row[1 + p + k] += &Int::from(source.0[k]);
        }
        for k in 0..dt {
            row[1 + p + ds + k] -= &Int::from(target.0[k]);
        }
        let mut b = b.clone();
        b.add_ineq(row);
        if !b.is_empty(&mut Budget::unlimited()).expect("emptiness") {
            return true;
        }
    }
    false
}

pub const THREE_MAT_MAT: &str = "
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    for (k = 0; k < N; k++)
      C[i][j] = C[i][j] + A[i][k] * B[k][j];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    for (k = 0; k < N; k++)
      F[i][j] = F[i][j] + D[i][k] * E[k][j];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    for (k = 0; k < N; k++)
      G[i][j] = G[i][j] + C[i][k] * F[k][j];";

pub fn three_mat_mat_c() -> String {
    program(&["A", "B", "C", "D", "E", "F", "G"], &[], THREE_MAT_MAT)
}

pub fn three_mat_mat() -> Problem {
    problem(&three_mat_mat_c())
}

pub const MATVEC_CHAIN: &str = "
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    x[i] = x[i] + A[i][j] * b[j];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    y[i] = y[i] + B[i][j] * x[j];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    z[i] = z[i] + C[i][j] * y[j];";

pub fn matvec_chain_c() -> String {
    program(&["A", "B", "C"], &["b", "x", "y", "z"], MATVEC_CHAIN)
}

pub fn matvec_chain() -> Problem {
    problem(&matvec_chain_c())
}

/// atax as the digest describes it (PolyBench's, with the initialisation of y).
pub const ATAX: &str = "
for (i = 0; i < N; i++)
  y[i] = 0;
for (i = 0; i < N; i++) {
  tmp[i] = 0;
  for (j = 0; j < N; j++)
    tmp[i] = tmp[i] + A[i][j] * x[j];
  for (j = 0; j < N; j++)
    y[j] = y[j] + A[i][j] * tmp[i];
}";

pub fn atax_c() -> String {
    program(&["A"], &["x", "y", "tmp"], ATAX)
}

pub fn atax() -> Problem {
    problem(&atax_c())
}

/// bicg as the digest describes it: s initialised in its own loop, q in the main one.
pub const BICG: &str = "
for (i = 0; i < N; i++)
  s[i] = 0;
for (i = 0; i < N; i++) {
  q[i] = 0;
  for (j = 0; j < N; j++) {
    s[j] = s[j] + r[i] * A[i][j];
    q[i] = q[i] + A[i][j] * p[j];
  }
}";

pub fn bicg_c() -> String {
    program(&["A"], &["s", "q", "r", "p"], BICG)
}

pub fn bicg() -> Problem {
    problem(&bicg_c())
}

/// gemver as the digest describes it: four statements, seven loops.
pub const GEMVER: &str = "
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    x[i] = x[i] + beta * A[j][i] * y[j];
for (i = 0; i < N; i++)
  x[i] = x[i] + z[i];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    w[i] = w[i] + alpha * A[i][j] * x[j];";

pub fn gemver() -> Problem {
    problem(&gemver_c())
}

pub fn gemver_c() -> String {
    program(
        &["A"],
        &["u1", "v1", "u2", "v2", "x", "y", "z", "w"],
        GEMVER,
    )
    .replace("int N,", "int N, double alpha, double beta,")
}

/// doitgen as the digest describes it: three statements under the r, q loops.
pub const DOITGEN: &str = "
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++) {
    for (k = 0; k < N; k++) {
      sum[i][j][k] = 0;
      for (l = 0; l < N; l++)
        sum[i][j][k] = sum[i][j][k] + A[i][j][l] * C4[l][k];
    }
    for (k = 0; k < N; k++)
      A[i][j][k] = sum[i][j][k];
  }";

pub fn doitgen() -> Problem {
    problem(&doitgen_c())
}

pub fn doitgen_c() -> String {
    program(&["C4"], &[], DOITGEN)
        .replace("int N,", "int N, double A[N][N][N], double sum[N][N][N],")
}

/// The structures of a pruned space, printed (`{S0 S1} {S2}`), in its order.
pub fn structure_names(pruned: &pollen_search::Pruned) -> Vec<String> {
    pruned
        .structures()
        .unwrap()
        .iter()
        .map(|s| s.to_string())
        .collect()
}
