//! `cargo xtask explain-shots`: the pages of `pollen explain` as a browser shows them.
//!
//! Builds `pollen` (release), writes the pages of jacobi-1d and gemm into
//! `target/explain/`, checks that headless Chromium sees as many `<svg>` elements in each
//! page (`--dump-dom`) as the page holds, and saves a screenshot of each
//! (`--screenshot`, 1200×2000) as `docs/explain-<kernel>.png`, the pictures the README
//! links. Chromium (the Debian package `chromium`) is installed with `apt-get` when
//! missing, as root. Each browser run gets a fresh profile directory and no network
//! services. `cargo test` never needs Chromium.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::bench_polybench::apt_install;

/// The kernels shot, with the extra arguments of their pages.
const SHOTS: &[(&str, &[&str])] = &[
    (
        "jacobi-1d",
        &["--tile-sizes", "4", "--params", "_PB_TSTEPS=6,_PB_N=10"],
    ),
    ("gemm", &["--tile-sizes", "4", "--dims", "i,j"]),
];

/// The browser names tried.
const BROWSERS: &[&str] = &["chromium", "chromium-browser", "google-chrome"];

/// Runs the check; `args` may hold `--no-install`.
pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let install = !args.iter().any(|a| a == "--no-install");
    let browser = match find_browser() {
        Some(b) => b,
        None => {
            apt_install(&["chromium"], install).map_err(anyhow::Error::msg)?;
            find_browser().context("chromium was installed but does not run")?
        }
    };
    let status = Command::new("cargo")
        .args(["build", "--release", "-q", "-p", "pollen-cli"])
        .current_dir(root)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("cargo build --release -p pollen-cli failed");
    }
    let pollen = root.join("target/release/pollen");
    let out_dir = root.join("target/explain");
    let docs = root.join("docs");
    fs::create_dir_all(&out_dir)?;
    fs::create_dir_all(&docs)?;
    for (kernel, extra) in SHOTS {
        let page = out_dir.join(format!("{kernel}.html"));
        let source = format!("examples/kernels/{kernel}.c");
        let start = Instant::now();
        let output = Command::new(&pollen)
            .arg("explain")
            .arg(&source)
            .arg("-o")
            .arg(&page)
            .args(*extra)
            .current_dir(root)
            .output()
            .context("cannot run pollen")?;
        if !output.status.success() {
            bail!(
                "pollen explain {kernel} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let elapsed = start.elapsed().as_millis();
        let html = fs::read_to_string(&page)?;
        let expected = html.matches("<svg ").count();
        let url = format!("file://{}", page.canonicalize()?.display());
        let dom = browse(&browser, &["--dump-dom", &url])?;
        let seen = dom.matches("<svg ").count();
        if seen != expected || expected == 0 {
            bail!("{kernel}: the page holds {expected} <svg> elements, the browser sees {seen}");
        }
        let shot = docs.join(format!("explain-{kernel}.png"));
        let _ = fs::remove_file(&shot);
        browse(
            &browser,
            &[
                &format!("--screenshot={}", shot.display()),
                "--window-size=1200,2000",
                &url,
            ],
        )?;
        if !shot.is_file() {
            bail!("{kernel}: no screenshot written to {}", shot.display());
        }
        println!(
            "explain-shots: {kernel}: page in {elapsed} ms, {seen} pictures seen by the browser, {}",
            shot.strip_prefix(root).unwrap_or(&shot).display()
        );
    }
    Ok(())
}

/// The first browser of [`BROWSERS`] that runs.
fn find_browser() -> Option<String> {
    BROWSERS
        .iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(|b| b.to_string())
}

/// Runs the headless browser with a fresh profile and returns its standard output.
fn browse(browser: &str, args: &[&str]) -> Result<String> {
    let profile = fresh_profile()?;
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .with_context(|| format!("cannot run {browser}"))?;
    let _ = fs::remove_dir_all(&profile);
    if !output.status.success() {
        bail!(
            "{browser} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A new empty directory for a browser profile.
fn fresh_profile() -> Result<PathBuf> {
    let base = std::env::temp_dir();
    for n in 0..1000u32 {
        let dir = base.join(format!("pollen-chromium-{}-{n}", std::process::id()));
        if fs::create_dir(&dir).is_ok() {
            return Ok(dir);
        }
    }
    bail!(
        "cannot create a browser profile directory in {}",
        base.display()
    )
}
