//! The golden-file suite: every script `tests/golden/calc/NAME.iscc` of the repository is
//! run through `pollen calc`, and its standard output, standard error and exit status must
//! equal `NAME.out` exactly (printing is deterministic). `POLLEN_BLESS=1 cargo test -p
//! pollen-cli --test golden` rewrites the `.out` files from the current output, to be
//! reviewed in the diff.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/calc")
}

/// What `pollen calc` prints for a script, as one text: stdout, then stderr and the exit
/// status in marked sections.
fn transcript(script: &Path) -> String {
    let dir = golden_dir();
    let name = script.file_name().expect("script name");
    let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .arg("calc")
        .arg(name)
        .current_dir(&dir)
        .output()
        .expect("run pollen calc");
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
    let bless = std::env::var_os("POLLEN_BLESS").is_some();
    let mut scripts: Vec<PathBuf> = fs::read_dir(golden_dir())
        .expect("tests/golden/calc exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "iscc"))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty(), "no golden scripts found");
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
