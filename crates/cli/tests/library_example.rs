//! The README's library example (`examples/library.rs`): compiled and run here, and
//! checked to appear in the README unchanged, so that the README never shows code that
//! does not work.

#[path = "../../../examples/library.rs"]
mod library;

#[test]
fn the_readme_library_example_runs() {
    library::main().expect("the example succeeds");
}

#[test]
fn the_readme_shows_the_example_unchanged() {
    let readme = include_str!("../../../README.md");
    let example = include_str!("../../../examples/library.rs");
    pollen_testkit::assert_readme_shows(readme, example, "examples/library.rs");
}
