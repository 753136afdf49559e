//! The README's example of the optimizer as a library: a C nest optimized by
//! `pollen_driver::optimize_source`. `crates/driver/tests/readme_example.rs` runs it and
//! checks that the README shows this code unchanged.

use pollen_driver::{optimize_source, Fallback, Options, Tiling};

/// Optimizes a small C nest and reads the report.
pub fn main() -> pollen_driver::Result<()> {
    let source = "void f(int n, double A[n][n], double B[n][n]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[j][i] = A[j][i] + 1;
#pragma endscop
}
";
    let options = Options {
        tiling: Tiling::Sizes(vec![32]),
        ..Options::default()
    };
    let optimized = optimize_source(source, &options)?;
    assert!(optimized.text.contains("#pragma omp parallel for"));

    // One report per `#pragma scop` region: every decision as data, and as text.
    let region = &optimized.report.regions[0];
    assert_eq!(region.scop.fallback, Fallback::None);
    eprint!("{}", optimized.report);
    println!("{}", optimized.text);
    Ok(())
}
