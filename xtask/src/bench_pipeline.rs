//! `cargo xtask bench deps` and `cargo xtask bench sched`: the optimizer's stages timed
//! on the example kernels of `examples/kernels/`.
//!
//! The runner `benches/pipeline` (a workspace of its own, built in release mode) times
//! each kernel's stage as the fastest of repeated runs; it runs pinned to one core with
//! `taskset` when that is available. This module prints the per-kernel times, the total,
//! the slowest kernel and whether the total meets the stage's target.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::fuzz::cargo;

/// A stage of the pipeline and the total time all kernels may take.
struct Suite {
    name: &'static str,
    what: &'static str,
    target_seconds: f64,
}

const SUITES: &[Suite] = &[
    Suite {
        name: "deps",
        what: "extraction and all dependence kinds (value-based and memory-based)",
        target_seconds: 2.0,
    },
    Suite {
        name: "sched",
        what: "Pluto scheduling (smart fusion; dependences computed beforehand)",
        target_seconds: 5.0,
    },
];

/// The names of the pipeline suites.
pub fn suite_names() -> Vec<&'static str> {
    SUITES.iter().map(|s| s.name).collect()
}

/// Runs `cargo xtask bench <suite>` for a pipeline suite.
pub fn run(root: &Path, suite: &str, flags: &[String]) -> Result<()> {
    let Some(suite) = SUITES.iter().find(|s| s.name == suite) else {
        bail!("no pipeline suite `{suite}`");
    };
    if let Some(flag) = flags.first() {
        bail!("unknown option `{flag}` for `bench {}`", suite.name);
    }
    let kernels = kernels(root)?;
    let dir = root.join("benches/pipeline");
    println!("bench: building the pipeline runner (release)");
    let status = Command::new(cargo())
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(dir.join("target"))
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("building the pipeline runner failed");
    }
    let runner = dir.join("target/release/pollen-bench-pipeline");
    let mut cmd = if which("taskset") {
        let mut c = Command::new("taskset");
        c.args(["-c", "0"]).arg(&runner);
        c
    } else {
        Command::new(&runner)
    };
    cmd.arg(suite.name).args(&kernels);
    println!(
        "bench: {} for {} kernels, one core",
        suite.what,
        kernels.len()
    );
    let out = cmd.output().context("cannot run the pipeline runner")?;
    if !out.status.success() {
        bail!(
            "the pipeline runner failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let rows = parse(&String::from_utf8_lossy(&out.stdout))?;
    print!("{}", report(suite, &rows));
    Ok(())
}

/// `examples/kernels/*.c`, sorted.
fn kernels(root: &Path) -> Result<Vec<PathBuf>> {
    let dir = root.join("examples/kernels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    Ok(files)
}

fn which(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// One kernel's result: its name and seconds, or the error message.
type Row = (String, std::result::Result<f64, String>);

/// Reads `<file> <seconds>` and `<file> error <message>` lines.
fn parse(out: &str) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for line in out.lines().filter(|l| !l.trim().is_empty()) {
        let (file, rest) = line
            .split_once(' ')
            .with_context(|| format!("unexpected runner output `{line}`"))?;
        let name = Path::new(file)
            .file_stem()
            .map_or(file.to_string(), |s| s.to_string_lossy().into_owned());
        let value = match rest.strip_prefix("error ") {
            Some(message) => Err(message.to_string()),
            None => Ok(rest
                .trim()
                .parse::<f64>()
                .with_context(|| format!("unexpected runner output `{line}`"))?),
        };
        rows.push((name, value));
    }
    Ok(rows)
}

/// The table, the total against the target and the slowest kernel.
fn report(suite: &Suite, rows: &[Row]) -> String {
    let mut out = format!("{:<18} {:>12}\n", "kernel", "ms");
    let mut total = 0.0;
    let mut slowest: Option<(&str, f64)> = None;
    let mut failures = 0;
    for (name, value) in rows {
        match value {
            Ok(seconds) => {
                out.push_str(&format!("{name:<18} {:>12.3}\n", seconds * 1e3));
                total += seconds;
                if slowest.is_none_or(|(_, s)| *seconds > s) {
                    slowest = Some((name, *seconds));
                }
            }
            Err(message) => {
                failures += 1;
                out.push_str(&format!("{name:<18} {:>12}  {message}\n", "error"));
            }
        }
    }
    out.push_str(&format!(
        "total: {:.3} s for {} kernels ({} failed); target < {} s: {}\n",
        total,
        rows.len(),
        failures,
        suite.target_seconds,
        if failures == 0 && total < suite.target_seconds {
            "met"
        } else {
            "NOT met"
        }
    ));
    if let Some((name, seconds)) = slowest {
        out.push_str(&format!(
            "slowest: {name} ({:.1} ms, {:.0}% of the total)\n",
            seconds * 1e3,
            100.0 * seconds / total.max(f64::MIN_POSITIVE)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_lines_are_read_and_reported() {
        let rows = parse("examples/kernels/gemm.c 0.0010\nk/lu.c error 1:2: bad\n").unwrap();
        assert_eq!(rows[0], ("gemm".to_string(), Ok(0.001)));
        assert_eq!(rows[1], ("lu".to_string(), Err("1:2: bad".to_string())));
        let text = report(&SUITES[0], &rows);
        assert!(text.contains("gemm"), "{text}");
        assert!(
            text.contains("total: 0.001 s for 2 kernels (1 failed)"),
            "{text}"
        );
        assert!(text.contains("NOT met"), "{text}");
        assert!(text.contains("slowest: gemm"), "{text}");
    }
}
