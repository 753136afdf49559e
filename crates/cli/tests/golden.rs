//! The golden-file suite: every script `tests/golden/calc/NAME.iscc` of the repository is
//! run through `pollen calc`, and every command line `tests/golden/cli/NAME.args` (the
//! arguments of `pollen`, whitespace-separated, paths relative to that directory) is run
//! as is; standard output, standard error and exit status must equal `NAME.out` exactly
//! (printing is deterministic). `POLLEN_BLESS=1 cargo test -p pollen-cli --test golden`
//! rewrites the `.out` files from the current output, to be reviewed in the diff.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn golden_dir(suite: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden")
        .join(suite)
}

/// The arguments of `pollen` for a golden input: `calc NAME.iscc` for a script, the
/// file's words for a `.args` file.
fn arguments(input: &Path) -> Vec<String> {
    if input.extension().is_some_and(|x| x == "args") {
        let text = fs::read_to_string(input).expect("read the arguments");
        text.split_whitespace().map(str::to_string).collect()
    } else {
        let name = input.file_name().expect("script name");
        vec!["calc".into(), name.to_string_lossy().into_owned()]
    }
}

/// What `pollen` prints for a golden input, as one text: stdout, then stderr and the
/// exit status in marked sections.
fn transcript(input: &Path) -> String {
    let dir = input.parent().expect("golden files live in a directory");
    let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args(arguments(input))
        .current_dir(dir)
        .output()
        .expect("run pollen");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !stderr.is_empty() {
        text.push_str("--- stderr\n");
        text.push_str(&stderr);
    }
    text.push_str(&format!(
        "--- exit status {}\n",
        out.status.code().unwrap_or(-1)
    ));
    text
}

#[test]
fn golden_calc_scripts() {
    check_suite("calc", "iscc");
}

#[test]
fn golden_command_lines() {
    check_suite("cli", "args");
}

fn check_suite(suite: &str, extension: &str) {
    let bless = std::env::var_os("POLLEN_BLESS").is_some();
    let mut scripts: Vec<PathBuf> = fs::read_dir(golden_dir(suite))
        .expect("the golden directory exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty(), "no golden inputs found in {suite}");
    let mut failures = Vec::new();
    for script in &scripts {
        let actual = transcript(script);
        let expected_path = script.with_extension("out");
        if bless {
            fs::write(&expected_path, &actual).expect("write golden file");
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- actual\n{actual}",
                script.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "golden output differs (POLLEN_BLESS=1 rewrites it):\n{}",
        failures.join("\n")
    );
}
