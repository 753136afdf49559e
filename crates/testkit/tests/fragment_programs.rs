//! The fragment harness on every fragment of `examples/fragments`: the program
//! [`fragment_program`] builds around the original region compiles with gcc (with the
//! undefined-behaviour sanitizer, whose bounds checks catch an array declared too small),
//! runs, and prints one finite checksum per array and scalar; and the frontend reads the
//! program back to the same statements, so that it is a valid input of `pollen opt`.
//! gcc must be installed.

use std::path::Path;

use pollen_testkit::cc::{compile, require_gcc, run, scratch};
use pollen_testkit::{fragment_program, fragment_source, fragments, region_text};

/// The flags of the harness programs: bounds and overflow checks that abort.
const FLAGS: [&str; 4] = [
    "-O1",
    "-fsanitize=undefined",
    "-fno-sanitize-recover=all",
    "-Wno-unknown-pragmas",
];

/// Builds, compiles and runs the harness of one fragment.
fn check_fragment(name: &str, values: &[(&str, i64)], dir: &Path) -> Result<(), String> {
    let source = fragment_source(name);
    let scop = pollen_frontend::extract(&source)
        .map_err(|e| format!("extraction: {e}"))?
        .scop;
    let region = region_text(&source).ok_or("no region")?;
    let program = fragment_program(region, &scop, values)?;
    let again = pollen_frontend::extract(&program)
        .map_err(|e| format!("the harness does not extract: {e}\n{program}"))?
        .scop;
    let bodies = |s: &pollen_scop::Scop| -> Vec<String> {
        s.statements.iter().map(|t| t.body.clone()).collect()
    };
    if bodies(&again) != bodies(&scop) {
        return Err("the harness extracts to other statements".to_string());
    }
    let path = dir.join(format!("{name}.c"));
    std::fs::write(&path, &program).map_err(|e| e.to_string())?;
    let binary = dir.join(name);
    compile(&path, &binary, &FLAGS)?;
    let output = run(&binary, 1)?;
    let names: Vec<&str> = output
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    let expected: Vec<&str> = scop
        .arrays
        .iter()
        .filter(|a| !a.local)
        .map(|a| a.name.as_str())
        .collect();
    if names != expected {
        return Err(format!("prints {names:?}, expected {expected:?}"));
    }
    if output.contains("nan") || output.contains("inf") {
        return Err(format!("a checksum is not finite:\n{output}"));
    }
    Ok(())
}

#[test]
fn every_fragment_runs_in_its_harness() {
    require_gcc();
    let dir = scratch("fragments");
    let mut failures = Vec::new();
    for f in fragments() {
        if let Err(e) = check_fragment(&f.name, &f.value_refs(), &dir) {
            failures.push(format!("{}: {e}", f.name));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn negative_subscripts_are_reported() {
    let source = "#pragma scop\nfor (i = 0; i < N; i++)\n  A[i - 1] = 0;\n#pragma endscop\n";
    let scop = pollen_frontend::extract(source).expect("extracts").scop;
    let e = fragment_program(region_text(source).expect("region"), &scop, &[("N", 4)])
        .expect_err("a negative subscript");
    assert!(e.contains("A: subscript 0 reaches -1"), "{e}");
    let e = fragment_program("", &scop, &[]).expect_err("no value of N");
    assert!(e.contains("no value for the parameter N"), "{e}");
}

#[test]
fn the_region_text_is_between_the_pragma_lines() {
    let source = "/* x */\n#pragma scop\na[0] = 1;\nb = 2;\n#pragma endscop\n";
    assert_eq!(region_text(source), Some("a[0] = 1;\nb = 2;\n"));
    assert_eq!(region_text("int x;\n"), None);
}
