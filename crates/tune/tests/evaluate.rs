//! The evaluator's pieces that need no compiler: the candidates of a space, the
//! comparison of outputs and the program timers.

use pollen_presburger::Budget;
use pollen_search::Limits;
use pollen_tune::evaluate::{
    candidates, compare, output_without_timer, program_timer, space_of, Agreement, Inner,
    SpaceError, TimerLine,
};

const ATAX: &str = "void f(int M, int N, double A[M][N], double x[N], double y[N], double tmp[M]) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    y[i] = 0;
  for (i = 0; i < M; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
#pragma endscop
}
";

#[test]
fn atax_has_the_default_and_three_candidates_per_structure() {
    let s = space_of(ATAX, 0, &Limits::default(), &mut Budget::unlimited()).unwrap();
    assert_eq!(s.structures().len(), 16);
    // The default, then three candidates per structure.
    let all = candidates(&s);
    assert_eq!(all.len(), 1 + 3 * 16);
    assert!(all[0].structure.is_none());
    assert_eq!(all[0].key(), "default");
    assert!(all.iter().enumerate().all(|(k, c)| c.id == k));
    assert_eq!(all[1].inner, Inner::Tiled);
    assert_eq!(all[3].inner, Inner::Original);
    let keys: std::collections::BTreeSet<String> = all.iter().map(|c| c.key()).collect();
    assert_eq!(keys.len(), all.len(), "keys are unique");
}

#[test]
fn space_errors_name_the_region() {
    let err = space_of(ATAX, 1, &Limits::default(), &mut Budget::unlimited()).unwrap_err();
    assert!(matches!(
        err,
        SpaceError::NoRegion {
            region: 1,
            count: 1
        }
    ));
    assert_eq!(err.to_string(), "region 2 asked for, the file has 1");
    let err = space_of("int x;", 0, &Limits::default(), &mut Budget::unlimited()).unwrap_err();
    assert!(matches!(err, SpaceError::Frontend(_)));
    let err = space_of(ATAX, 0, &Limits::default(), &mut Budget::new(100)).unwrap_err();
    assert!(
        matches!(
            err,
            SpaceError::Space(pollen_search::Error::LimitExceeded)
                | SpaceError::Frontend(pollen_frontend::Error::Presburger { .. })
        ),
        "{err:?}"
    );
}

#[test]
fn outputs_compare_exactly_or_within_the_tolerance() {
    assert_eq!(compare("a 1.5\n", "a 1.5\n"), Ok(Agreement::Equal));
    assert_eq!(
        compare("a 1.0000000001\n", "a 1.0000000002\n"),
        Ok(Agreement::Close)
    );
    assert!(compare("a 1.0\n", "a 1.1\n").is_err());
    assert!(compare("a 1.0\n", "b 1.0\n").is_err());
    assert!(compare("a 1.0\n", "a 1.0 2.0\n").is_err());
    let difference = compare("x 1 2 3", "x 1 2 4").unwrap_err();
    assert!(difference.contains("word 4"), "{difference}");
}

#[test]
fn timers_are_found_and_left_out_of_the_output() {
    // Pollen's kernels: `time` lines on standard error.
    assert_eq!(
        program_timer("sum 1\n", "time 0.5\ntime 0.25\n"),
        Some((0.25, TimerLine::Stderr))
    );
    // PolyBench: the last line of standard output.
    assert_eq!(
        program_timer("0.012345\n\n", ""),
        Some((0.012345, TimerLine::StdoutLast))
    );
    assert_eq!(program_timer("sum 1\n", ""), None);
    assert_eq!(
        output_without_timer("sum 1\n", "time 0.5\nnote\n", true),
        "sum 1\n--- stderr ---\nnote\n"
    );
    assert_eq!(
        output_without_timer("a\n0.5\n", "", true),
        "a\n--- stderr ---\n\n"
    );
    assert_eq!(
        output_without_timer("a\n0.5\n", "", false),
        "a\n0.5\n--- stderr ---\n\n"
    );
}
