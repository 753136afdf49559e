//! Scalar expansion (`pollen_transform::expand`): which scalars become arrays, and that
//! the rewritten scop no longer orders the expanded loop's iterations through them.

use pollen_deps::{analyze, Analysis};
use pollen_presburger::{Budget, DimKind};
use pollen_transform::expand::expand_scalars;

/// A recursive filter over the rows of `x`; `before` and `after` go around the region,
/// `init` sets the scalars in each row.
fn filter(init: &str, after: &str) -> String {
    format!(
        "void f(int W, int H, double x[W][H], double y[W][H], double a, double b)
{{
  int i, j;
  double ym1, xm1;
#pragma scop
  for (i = 0; i < W; i++) {{
{init}
    for (j = 0; j < H; j++) {{
      y[i][j] = a * x[i][j] + b * ym1 + xm1;
      xm1 = x[i][j];
      ym1 = y[i][j];
    }}
  }}
#pragma endscop
{after}
}}
"
    )
}

const INIT: &str = "    ym1 = 0.0;\n    xm1 = 0.0;";

/// The expansions of the first region of `source`: (scalar, array, extent, statements).
fn expansions(source: &str) -> (pollen_scop::Scop, Vec<(String, String, String, usize)>) {
    let extracted = pollen_frontend::extract(source).expect("extracts");
    let (scop, expansions) = expand_scalars(
        &extracted.scop,
        &extracted.dead_after,
        &mut Budget::new(10_000_000),
    )
    .expect("expands");
    let listed = expansions
        .into_iter()
        .map(|e| (e.variable, e.array, e.extent, e.statements.len()))
        .collect();
    (scop, listed)
}

#[test]
fn a_filters_scalars_become_arrays_along_the_rows() {
    let (scop, found) = expansions(&filter(INIT, ""));
    assert_eq!(
        found,
        [
            ("ym1".to_string(), "ym1_x".to_string(), "W".to_string(), 3),
            ("xm1".to_string(), "xm1_x".to_string(), "W".to_string(), 3),
        ]
    );
    let bodies: Vec<&str> = scop.statements.iter().map(|s| s.body.as_str()).collect();
    assert!(bodies.contains(&"ym1_x[i] = 0.0;"), "{bodies:?}");
    assert!(
        bodies.contains(&"y[i][j] = a * x[i][j] + b * ym1_x[i] + xm1_x[i];"),
        "{bodies:?}"
    );
    let declared: Vec<(&str, &[String], bool)> = scop
        .arrays
        .iter()
        .filter(|a| a.name.ends_with("_x"))
        .map(|a| (a.name.as_str(), &a.extents[..], a.local))
        .collect();
    assert_eq!(declared.len(), 2);
    assert!(declared.iter().all(|(_, e, local)| *e == ["W"] && *local));
    // No dependence of the new scop joins two rows: the row loop is parallel.
    for dep in analyze(&scop, Analysis::MemoryBased)
        .expect("dependences")
        .iter()
    {
        let same_row = dep
            .relation
            .equate(DimKind::In, 0, DimKind::Out, 0)
            .expect("equate");
        assert!(
            dep.relation.is_subset(&same_row).expect("subset"),
            "{} {:?} -> {} through {}",
            dep.source,
            dep.kind,
            dep.target,
            dep.array
        );
    }
}

#[test]
fn scalars_whose_values_cross_rows_or_leave_the_region_stay() {
    // Not set in each row: the first read of a row sees the previous row's value.
    let (_, found) = expansions(&filter("    ym1 = 0.0;", ""));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "ym1");
    // Read after the region.
    let (_, found) = expansions(&filter(INIT, "  y[0][0] = ym1;"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "xm1");
    // A variable of the file, which other functions may read.
    let global = filter(INIT, "").replace("  double ym1, xm1;\n", "  double xm1;\n");
    let global = format!("double ym1;\n{global}");
    let (_, found) = expansions(&global);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "xm1");
    // Read in every row but never set: the value comes from before the region.
    let read_only = filter(INIT, "").replace("      ym1 = y[i][j];\n", "");
    let read_only = read_only.replace("    ym1 = 0.0;\n", "");
    let (_, found) = expansions(&read_only);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "xm1");
    // A sum over the rows carries its value from row to row.
    let sum = "void f(int W, double x[W], double y[W])
{
  int i;
  double s;
#pragma scop
  s = 0.0;
  for (i = 0; i < W; i++) {
    s = s + x[i];
    y[i] = s;
  }
#pragma endscop
}
";
    let (_, found) = expansions(sum);
    assert!(found.is_empty(), "{found:?}");
    // A temporary of one iteration of a single loop.
    let temporary = sum
        .replace("  s = 0.0;\n", "")
        .replace("s = s + x[i];", "s = 2 * x[i];");
    let (_, found) = expansions(&temporary);
    assert!(found.is_empty(), "{found:?}");
}

const DOITGEN: &str =
    "void f(int R, int Q, int P, double A[R][Q][P], double C4[P][P], double sum[P])
{
  int r, q, p, s;
#pragma scop
  for (r = 0; r < R; r++)
    for (q = 0; q < Q; q++) {
      for (p = 0; p < P; p++) {
        sum[p] = 0.0;
        for (s = 0; s < P; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < P; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}
";

#[test]
fn an_array_filled_in_every_iteration_gets_a_row_per_iteration() {
    let extracted = pollen_frontend::extract(DOITGEN).expect("extracts");
    let (scop, found) = pollen_transform::expand::expand_arrays(
        &extracted.scop,
        &extracted.dead_after,
        &mut Budget::new(10_000_000),
    )
    .expect("expands");
    assert_eq!(found.len(), 1, "{found:?}");
    let e = &found[0];
    assert_eq!(
        (e.variable.as_str(), e.array.as_str(), e.extent.as_str()),
        ("sum", "sum_x", "R")
    );
    assert_eq!(e.statements, ["S0", "S1", "S2"]);
    assert_eq!(e.copy_out.as_deref(), Some("S3"));
    let bodies: Vec<&str> = scop.statements.iter().map(|s| s.body.as_str()).collect();
    assert_eq!(
        bodies,
        [
            "sum_x[r][p] = 0.0;",
            "sum_x[r][p] += A[r][q][s] * C4[s][p];",
            "A[r][q][p] = sum_x[r][p];",
            "sum[sum_c0] = sum_x[R - 1][sum_c0];",
        ]
    );
    let expanded = scop.array("sum_x").expect("declared");
    assert_eq!(expanded.extents, ["R", "P"]);
    assert!(expanded.local);
    // The copy runs over the elements written, after the nest, when the nest runs.
    let copy = scop.statement("S3").expect("copy statement");
    let expected = pollen_presburger::text::parse_set(
        "[R, Q, P] -> { S3[e] : R >= 1 and Q >= 1 and 0 <= e < P }",
    )
    .unwrap();
    assert!(copy.domain.is_equal(&expected).unwrap(), "{}", copy.domain);
    // No dependence between the nest's statements joins two iterations of `r`.
    for dep in analyze(&scop, Analysis::MemoryBased)
        .expect("dependences")
        .iter()
        .filter(|d| d.source != "S3" && d.target != "S3")
    {
        let same = dep
            .relation
            .equate(DimKind::In, 0, DimKind::Out, 0)
            .unwrap();
        assert!(dep.relation.is_subset(&same).unwrap(), "{dep:?}");
    }
}

/// `(expansions, bodies)` of `expand_arrays` on the first region of `source`.
fn array_expansions(source: &str) -> (usize, Vec<String>) {
    let extracted = pollen_frontend::extract(source).expect("extracts");
    let (scop, found) = pollen_transform::expand::expand_arrays(
        &extracted.scop,
        &extracted.dead_after,
        &mut Budget::new(10_000_000),
    )
    .expect("expands");
    (
        found.len(),
        scop.statements.iter().map(|s| s.body.clone()).collect(),
    )
}

#[test]
fn arrays_that_carry_values_or_leave_the_loop_parallel_stay() {
    // A value read in the next iteration of `r`: the loop must stay ordered.
    let carried = DOITGEN.replace("sum[p] = 0.0;", "sum[p] = sum[p] * 0.5;");
    assert_eq!(array_expansions(&carried).0, 0);
    // Subscripts that move with `r`: each iteration has its own elements already.
    let own = "void f(int R, int P, double A[R][P], double t[R][P])
{
  int r, p;
#pragma scop
  for (r = 0; r < R; r++) {
    for (p = 0; p < P; p++)
      t[r][p] = A[r][p] * 2.0;
    for (p = 0; p < P; p++)
      A[r][p] = t[r][p] + 1.0;
  }
#pragma endscop
}
";
    assert_eq!(array_expansions(own).0, 0);
    // Another array orders the iterations too (a running total): expanding `sum` would
    // not make the loop parallel.
    let total = DOITGEN
        .replace("double sum[P])", "double sum[P], double total[P])")
        .replace(
            "A[r][q][p] = sum[p];",
            "{ A[r][q][p] = sum[p]; total[p] += sum[p]; }",
        );
    let (n, bodies) = array_expansions(&total);
    assert_eq!(n, 0, "{bodies:?}");
    // Only some iterations write: the last one need not hold every element.
    let partial = DOITGEN.replace("sum[p] = 0.0;", "if (r % 2 == 0) sum[p] = 0.0;");
    assert_eq!(array_expansions(&partial).0, 0);
}
