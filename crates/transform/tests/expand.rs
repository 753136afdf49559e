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
        .map(|e| (e.scalar, e.array, e.extent, e.statements.len()))
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
