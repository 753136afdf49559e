//! `cargo xtask fuzz` and `cargo xtask fuzz-smoke`: cargo-fuzz on the stable toolchain.
//!
//! cargo-fuzz builds with `-Z` flags (sanitizers, coverage instrumentation) that only a
//! nightly compiler accepts. Setting `RUSTC_BOOTSTRAP=1` lets the pinned stable
//! compiler accept them, so the fuzz targets of `fuzz/` (a workspace of its own) run
//! without a second toolchain. cargo-fuzz itself is installed with `cargo install` when
//! it is missing.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// Runs one fuzz target; `args` are passed to `cargo fuzz run <target>` unchanged.
pub fn run(root: &Path, target: &str, args: &[String]) -> Result<()> {
    prepare(root)?;
    let targets = list_targets(root)?;
    if !targets.iter().any(|t| t == target) {
        bail!(
            "no fuzz target `{target}`; the targets are: {}",
            targets.join(", ")
        );
    }
    let mut cmd = cargo_fuzz(root);
    cmd.arg("run").arg(target);
    corpus_args(root, target, &mut cmd)?;
    cmd.args(args);
    status(cmd, &format!("cargo fuzz run {target}"))
}

/// Builds every fuzz target, then runs each for `seconds`.
pub fn smoke(root: &Path, seconds: u64) -> Result<()> {
    prepare(root)?;
    let targets = list_targets(root)?;
    if targets.is_empty() {
        bail!("fuzz/ has no fuzz targets");
    }
    let mut build = cargo_fuzz(root);
    build.arg("build");
    status(build, "cargo fuzz build")?;
    for target in &targets {
        println!("fuzz-smoke: {target} for {seconds}s");
        let mut cmd = cargo_fuzz(root);
        cmd.arg("run").arg(target);
        corpus_args(root, target, &mut cmd)?;
        cmd.arg("--").arg(format!("-max_total_time={seconds}"));
        status(cmd, &format!("cargo fuzz run {target}"))?;
    }
    println!("fuzz-smoke: {} target(s) ok", targets.len());
    Ok(())
}

/// When `fuzz/seeds/<target>/` holds seed inputs, passes the target's working corpus
/// (`fuzz/corpus/<target>/`, where new inputs go) and the seeds as corpus directories.
fn corpus_args(root: &Path, target: &str, cmd: &mut Command) -> Result<()> {
    let seeds = root.join("fuzz/seeds").join(target);
    if seeds.is_dir() {
        let corpus = root.join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&corpus)
            .with_context(|| format!("cannot create {}", corpus.display()))?;
        cmd.arg(corpus).arg(seeds);
    }
    Ok(())
}

/// Checks that `fuzz/` exists and installs cargo-fuzz if it is missing.
fn prepare(root: &Path) -> Result<()> {
    if !root.join("fuzz").join("Cargo.toml").is_file() {
        bail!("no fuzz/Cargo.toml in {}", root.display());
    }
    let installed = Command::new(cargo())
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        println!("xtask: installing cargo-fuzz");
        let mut cmd = Command::new(cargo());
        cmd.args(["install", "cargo-fuzz", "--locked"]);
        status(cmd, "cargo install cargo-fuzz")?;
    }
    Ok(())
}

/// The names of the fuzz targets, from `cargo fuzz list`.
fn list_targets(root: &Path) -> Result<Vec<String>> {
    let output = cargo_fuzz(root)
        .arg("list")
        .output()
        .context("cannot run `cargo fuzz list`")?;
    if !output.status.success() {
        bail!(
            "`cargo fuzz list` failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}

/// `cargo fuzz` in the workspace root with the stable-toolchain settings.
fn cargo_fuzz(root: &Path) -> Command {
    let mut cmd = Command::new(cargo());
    cmd.arg("fuzz")
        .current_dir(root)
        .env("RUSTC_BOOTSTRAP", "1")
        // The workspace's target directory is not the fuzz workspace's.
        .env_remove("CARGO_TARGET_DIR");
    cmd
}

/// The cargo that runs this command (the same toolchain), or `cargo` from the path.
pub(crate) fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// Runs a command and fails unless it succeeds.
pub(crate) fn status(mut cmd: Command, what: &str) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot run `{what}`"))?;
    if !status.success() {
        bail!("`{what}` failed ({status})");
    }
    Ok(())
}
