//! The repository's thirty PolyBench-style kernels (`examples/kernels/*.c`) extract.

use std::path::PathBuf;

use crate::common::extracted;

#[test]
fn every_example_kernel_extracts() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("examples/kernels") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "c") {
            let source = std::fs::read_to_string(&path).expect("read");
            let x = extracted(&source);
            assert!(
                !x.scop.statements.is_empty(),
                "{} has no statement",
                path.display()
            );
            assert!(source[x.region.clone()]
                .trim_start()
                .starts_with("#pragma scop"));
            assert!(source[x.region.clone()].ends_with("#pragma endscop"));
            x.scop.schedule.to_union_map().expect("schedule");
            names.push(path.file_stem().map(|s| s.to_string_lossy().into_owned()));
        }
    }
    assert_eq!(names.len(), 30, "kernels found: {names:?}");
}

/// Every statement domain of the thirty kernels is counted as a polynomial in the
/// parameters (`Set::card_parametric`), and the polynomial agrees with enumeration at
/// small parameter values: all parameters equal to `v`, and mixed values.
#[test]
fn every_example_statement_domain_counts_as_enumeration_does() {
    use pollen_presburger::{DimKind, Int};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels");
    let mut domains = 0;
    for entry in std::fs::read_dir(&dir).expect("examples/kernels") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "c") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("read");
        let x = extracted(&source);
        for s in &x.scop.statements {
            let count = s
                .domain
                .card_parametric()
                .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), s.domain));
            let n = s.domain.n_params();
            let mut settings: Vec<Vec<i64>> = (0..6).map(|v| vec![v; n]).collect();
            settings.push((0..n as i64).map(|k| 3 + k).collect());
            settings.push((0..n as i64).map(|k| 6 - k).collect());
            for values in settings {
                let mut fixed = s.domain.clone();
                for (k, v) in values.iter().enumerate() {
                    fixed = fixed.fix_val(DimKind::Param, k, &Int::from(*v)).unwrap();
                }
                let fixed = fixed.project_out(DimKind::Param, 0, n).unwrap();
                let params: Vec<Int> = values.iter().map(|&v| Int::from(v)).collect();
                assert_eq!(
                    count.eval(&params).unwrap().finite(),
                    Some(fixed.card().unwrap()),
                    "{}: {} at {values:?}: {count}",
                    path.display(),
                    s.domain
                );
            }
            domains += 1;
        }
    }
    assert!(domains >= 100, "only {domains} statement domains");
}
