//! The README's driver example (`examples/driver.rs`): compiled and run here, and checked
//! to appear in the README unchanged, so that the README never shows code that does not
//! work.

#[path = "../../../examples/driver.rs"]
mod driver;

#[test]
fn the_readme_driver_example_runs() {
    driver::main().expect("the example succeeds");
}

#[test]
fn the_readme_shows_the_example_unchanged() {
    let readme = include_str!("../../../README.md");
    let example = include_str!("../../../examples/driver.rs");
    pollen_testkit::assert_readme_shows(readme, example, "examples/driver.rs");
}
