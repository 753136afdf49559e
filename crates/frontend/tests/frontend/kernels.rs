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
