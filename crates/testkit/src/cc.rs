//! Compiling and running C programs in tests: a scratch directory per test run, gcc with
//! the flags a test names, a binary run at a number of OpenMP threads, and the first
//! difference between two outputs for the failure report. gcc must be installed; every
//! failure is an `Err` with what gcc or the program printed, so that a test can collect
//! the failures of many programs before it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh scratch directory `pollen-<name>-<pid>` under the system's temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pollen-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// Panics at once, with a clear message, when gcc cannot be run.
pub fn require_gcc() {
    let found = Command::new("gcc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "gcc is needed by this test (it compiles C programs with -fopenmp); install gcc"
    );
}

/// Compiles `source` into `binary` with gcc and `flags` (linked with `-lm`).
pub fn compile(source: &Path, binary: &Path, flags: &[&str]) -> Result<(), String> {
    let output = Command::new("gcc")
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(binary)
        .arg("-lm")
        .output()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "gcc failed on {}:\n{}",
            source.display(),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Runs a binary with `threads` OpenMP threads; its standard output.
pub fn run(binary: &Path, threads: u32) -> Result<String, String> {
    let output = Command::new(binary)
        .env("OMP_NUM_THREADS", threads.to_string())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} exited with {} at {threads} thread(s):\n{}",
            binary.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|_| "output is not UTF-8".to_string())
}

/// The first line where two outputs differ, for a failure report.
pub fn first_difference(expected: &str, actual: &str) -> String {
    for (k, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            return format!("line {}: expected `{e}`, got `{a}`", k + 1);
        }
    }
    format!(
        "{} lines expected, {} printed",
        expected.lines().count(),
        actual.lines().count()
    )
}
