//! The fallback ladder of the schedulers on the smallest programs where the search gets
//! stuck, found by the random program generator (`pollen_testkit::random`): every program
//! gets a legal schedule, and [`pollen_sched::schedule_with_report`] says which fallbacks
//! were taken.

use pollen_sched::{legality, schedule, schedule_with_report, Algo, Fallback, Fuse, Options};
use pollen_testkit::value_deps;

/// A C function around a scop region.
fn program(region: &str) -> String {
    format!(
        "void f(int n, double A0[n + 4], double A1[n + 4], double A2[n + 4],\n       double B0[n + 4][n + 4], double B1[n + 4][n + 4], double s0, double r0[1])\n{{\n  int i, j, k;\n#pragma scop\n{region}#pragma endscop\n}}\n"
    )
}

/// Schedules `region` with `algo` and `fuse`; checks the result with the independent
/// checker and returns the fallbacks taken.
fn fallbacks(region: &str, algo: Algo, fuse: Fuse) -> Vec<Fallback> {
    let scop = pollen_frontend::extract(&program(region))
        .expect("extraction")
        .scop;
    let deps = value_deps(&scop);
    let options = Options {
        algo,
        fuse,
        ..Options::default()
    };
    let outcome = schedule_with_report(&scop, &deps, &options).expect("a schedule");
    let report = legality::check(&deps, &outcome.tree).expect("the checker runs");
    assert!(report.is_legal(), "illegal schedule: {report:?}");
    let tree = schedule(&scop, &deps, &options).expect("a schedule");
    assert_eq!(
        tree.to_union_map().expect("flattens").to_string(),
        outcome.tree.to_union_map().expect("flattens").to_string(),
        "schedule and schedule_with_report agree"
    );
    outcome.fallbacks
}

/// Two statements whose writes of `B0` depend on each other in both directions (one
/// strongly connected component). Maximal fusion's first band, `(i | j + 3, j + 4 | i)`,
/// makes both statements full rank with distance zero on both dependences: no hyperplane
/// is left (none is linearly independent) and no cut exists (a cycle). The statements
/// take the original schedule's dimensions until the dependences are satisfied.
const CROSSED_WRITES: &str = "\
  for (i = 0; i < n; i++)
    for (j = 0; j < i; j++) {
      B0[i + 1][j + 4] = 0.125 * A1[i + 2];
      B0[j + 4][i] = 0.375 * A0[j + 3] + 0.375 * A0[i + 4];
    }
";

#[test]
fn crossed_writes_fall_back_to_the_original_dimensions() {
    for fuse in [Fuse::No, Fuse::Smart, Fuse::Max] {
        let taken = fallbacks(CROSSED_WRITES, Algo::Pluto, fuse);
        assert!(
            taken.iter().any(|f| matches!(
                f,
                Fallback::OriginalDimension { statements, level: 2, original_level: 0 }
                    if statements == &["S0", "S1"]
            )),
            "{fuse:?}: {taken:?}"
        );
    }
}

/// The same cycle of output dependences in a 3-deep nest (from seed 709): Pluto's first
/// band `(k + 1, i + 2, j | i, i + k, j)` is full rank for both statements and leaves the
/// cycle at distance zero.
const CROSSED_WRITES_3D: &str = "\
  for (i = 1; i < n; i++)
    for (j = 0; j < i; j++)
      for (k = 1; k < n; k++) {
        B1[2][k + 3] = 0.125 * s0 + 0.125 * r0[0];
        B1[k][i + 2] = 0.125 * A1[k + 1] + 0.375 * A1[i];
      }
";

#[test]
fn crossed_writes_in_three_dimensions_fall_back_to_the_original_dimensions() {
    for fuse in [Fuse::No, Fuse::Smart, Fuse::Max] {
        let taken = fallbacks(CROSSED_WRITES_3D, Algo::Pluto, fuse);
        assert!(
            taken
                .iter()
                .any(|f| matches!(f, Fallback::OriginalDimension { level: 3, .. })),
            "{fuse:?}: {taken:?}"
        );
    }
    assert_eq!(
        fallbacks(CROSSED_WRITES_3D, Algo::Feautrier, Fuse::Smart),
        []
    );
}

/// Feautrier's dead end (from seed 2216): after `(i | i)` and `(k | j)`, the row that
/// satisfies the most dependences gives `S1` the dependent `i + 2`; then no row both
/// keeps the remaining pairs of the `S0 <-> S1` cycle in order and makes progress, and no
/// cut exists. The original dimensions `i` and `j` order enough pairs for the search to
/// finish.
const FEAUTRIER_DEAD_END: &str = "\
  for (i = 1; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 1; k < n; k++) {
        A2[j] = 0.5 * s0 + 0.25 * B0[k][j + 1];
        B0[j][i + 3] = 0.25 * B0[1][i + 3] + 0.5 * A1[i + 1];
      }
";

#[test]
fn feautrier_dead_end_falls_back_to_the_original_dimensions() {
    let taken = fallbacks(FEAUTRIER_DEAD_END, Algo::Feautrier, Fuse::Smart);
    assert_eq!(
        taken,
        [
            Fallback::OriginalDimension {
                statements: vec!["S0".into(), "S1".into()],
                level: 3,
                original_level: 0
            },
            Fallback::OriginalDimension {
                statements: vec!["S0".into(), "S1".into()],
                level: 4,
                original_level: 1
            }
        ]
    );
    for fuse in [Fuse::No, Fuse::Smart, Fuse::Max] {
        let taken = fallbacks(FEAUTRIER_DEAD_END, Algo::Pluto, fuse);
        assert!(
            !taken
                .iter()
                .any(|f| matches!(f, Fallback::OriginalDimension { .. })),
            "{fuse:?}: {taken:?}"
        );
    }
}

#[test]
fn fallbacks_print_one_line_each() {
    let f = Fallback::OriginalDimension {
        statements: vec!["S0".into(), "S1".into()],
        level: 2,
        original_level: 0,
    };
    assert_eq!(
        f.to_string(),
        "dimension 2: S0, S1 take dimension 0 of the original schedule"
    );
}

#[test]
fn feautrier_orders_crossed_writes_without_fallback() {
    assert_eq!(fallbacks(CROSSED_WRITES, Algo::Feautrier, Fuse::Smart), []);
}
