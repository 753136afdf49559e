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

/// Whether two outputs of `name value...` lines agree line by line: the same number of
/// lines, and on each the same name and as many values, each pair `close`; a line
/// without values must be equal.
pub fn close_lines(expected: &str, actual: &str, close: impl Fn(&str, &str) -> bool) -> bool {
    expected.lines().count() == actual.lines().count()
        && expected.lines().zip(actual.lines()).all(|(e, a)| {
            let (ew, aw): (Vec<&str>, Vec<&str>) = (
                e.split_whitespace().collect(),
                a.split_whitespace().collect(),
            );
            match (ew.split_first(), aw.split_first()) {
                (Some((ne, ve)), Some((na, va))) if ve.len() == va.len() && !ve.is_empty() => {
                    ne == na && ve.iter().zip(va).all(|(x, y)| close(x, y))
                }
                _ => e == a,
            }
        })
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

#[cfg(test)]
mod tests {
    use super::close_lines;

    #[test]
    fn lines_of_values_compare_value_by_value() {
        // Integers within one of each other.
        let near = |a: &str, b: &str| {
            let (x, y): (i64, i64) = (a.parse().unwrap(), b.parse().unwrap());
            (x - y).abs() <= 1
        };
        let expected = "Y 100 200\nZ 3 4\n";
        assert!(close_lines(expected, expected, near));
        assert!(close_lines(expected, "Y 101 200\nZ 3 4\n", near));
        // The second value counts too, and so do names, counts of values and of lines.
        assert!(!close_lines(expected, "Y 100 202\nZ 3 4\n", near));
        assert!(!close_lines(expected, "W 100 200\nZ 3 4\n", near));
        assert!(!close_lines(expected, "Y 100\nZ 3 4\n", near));
        assert!(!close_lines(expected, "Y 100 200\n", near));
        // A line without values must be equal.
        assert!(close_lines("done\n", "done\n", near));
        assert!(!close_lines("done\n", "over\n", near));
    }
}
