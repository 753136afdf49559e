//! `cargo xtask bench search`: `pollen search` on PolyBench/C 4.2.1 kernels at their
//! LARGE size, the best candidate against `pollen opt`'s default.
//!
//! PolyBench/C is not part of the repository: give the directory of an unpacked copy
//! with `--polybench DIR` (or `$POLLEN_POLYBENCH`). For every kernel (by default the
//! eleven of the interleaving search's evaluation: gemver, atax, bicg, mvt, 2mm, 3mm,
//! correlation, covariance, doitgen, ludcmp, gramschmidt), the command runs
//!
//! ```text
//! pollen search KERNEL.c --compiler 'gcc -O3 -march=native -fopenmp'
//!     --cflags '-I utilities utilities/polybench.c -lm'
//!     -D LARGE_DATASET -D POLYBENCH_TIME
//!     --check-define MEDIUM_DATASET --check-define POLYBENCH_DUMP_ARRAYS
//!     --check-cflags -ffp-contract=off --threads 2 --time 10m --json ... --csv ...
//! ```
//!
//! in the PolyBench directory: each candidate's arrays at the MEDIUM size, printed by
//! PolyBench's dump and compiled without contraction of multiply-adds (so that the
//! original and every candidate round alike), must equal the original's before it is
//! timed at the LARGE size by PolyBench's timer, on `--threads` threads. The table
//! gives per kernel the size of the space (F¹ and the candidates), the time spent, the
//! original's, the default's and the best candidate's times, and best/default; a
//! candidate whose output differs is a failure of the run. Everything goes to
//! `target/bench-search/`. Options: `--time T` (per kernel, default 10m), `--runs N`
//! (default 3), `--threads N` (default 2), `--jobs J` (default 2), kernel names.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::bench_polybench::{build_pollen, geomean};
use crate::polybench_suite::{self, find_kernel};

/// The kernels run by default.
const KERNELS: [&str; 11] = [
    "gemver",
    "atax",
    "bicg",
    "mvt",
    "2mm",
    "3mm",
    "correlation",
    "covariance",
    "doitgen",
    "ludcmp",
    "gramschmidt",
];

/// The options.
struct Options {
    polybench: PathBuf,
    time: String,
    runs: usize,
    threads: usize,
    jobs: usize,
    names: Vec<String>,
}

fn options(flags: &[String]) -> Result<Options> {
    let mut polybench = polybench_suite::from_env();
    let mut time = "10m".to_string();
    let (mut runs, mut threads, mut jobs) = (3, 2, 2);
    let mut names = Vec::new();
    let mut it = flags.iter();
    while let Some(flag) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .with_context(|| format!("{name} needs a value"))
        };
        let number = |text: String, name: &str| -> Result<usize> {
            text.parse()
                .with_context(|| format!("{name}: expected a number, found `{text}`"))
        };
        match flag.as_str() {
            "--polybench" => polybench = Some(PathBuf::from(value("--polybench")?)),
            "--time" => time = value("--time")?,
            "--runs" => runs = number(value("--runs")?, "--runs")?,
            "--threads" => threads = number(value("--threads")?, "--threads")?,
            "--jobs" => jobs = number(value("--jobs")?, "--jobs")?,
            other if other.starts_with('-') => bail!(
                "unknown option `{other}` (known: --polybench DIR, --time T, --runs N, --threads N, --jobs J)"
            ),
            name => names.push(name.to_string()),
        }
    }
    let Some(polybench) = polybench else {
        bail!("give the PolyBench/C 4.2.1 directory with --polybench DIR (or $POLLEN_POLYBENCH)");
    };
    polybench_suite::check_dir(&polybench)?;
    if names.is_empty() {
        names = KERNELS.iter().map(|s| s.to_string()).collect();
    }
    Ok(Options {
        polybench,
        time,
        runs,
        threads,
        jobs,
        names,
    })
}

/// One kernel's row.
struct Row {
    name: String,
    space: String,
    candidates: usize,
    evaluated: usize,
    mismatches: usize,
    elapsed: f64,
    original: Option<f64>,
    default: Option<f64>,
    best: Option<f64>,
    best_key: String,
    error: Option<String>,
}

/// Runs the benchmark.
pub fn run(root: &Path, flags: &[String]) -> Result<()> {
    let options = options(flags)?;
    let pollen = build_pollen(root)?;
    let out = root.join("target/bench-search");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut rows = Vec::new();
    for name in &options.names {
        let Some(file) = find_kernel(&options.polybench, name) else {
            bail!("no {name}/{name}.c under {}", options.polybench.display());
        };
        println!("bench: searching {name} (up to {})", options.time);
        rows.push(search_kernel(&pollen, &options, &out, name, &file));
    }
    print!("{}", report(&rows, &options));
    if rows.iter().any(|r| r.mismatches > 0 || r.error.is_some()) {
        bail!("a kernel failed or a candidate's output differed from the original's");
    }
    Ok(())
}

fn search_kernel(pollen: &Path, options: &Options, out: &Path, name: &str, file: &Path) -> Row {
    let json = out.join(format!("{name}.json"));
    let csv = out.join(format!("{name}.csv"));
    let _ = std::fs::remove_file(&json);
    let mut row = Row {
        name: name.to_string(),
        space: String::new(),
        candidates: 0,
        evaluated: 0,
        mismatches: 0,
        elapsed: 0.0,
        original: None,
        default: None,
        best: None,
        best_key: String::new(),
        error: None,
    };
    let output = Command::new(pollen)
        .current_dir(&options.polybench)
        .arg("search")
        .arg(file)
        .args(["--compiler", "gcc -O3 -march=native -fopenmp"])
        .args(["--cflags", "-I utilities utilities/polybench.c -lm"])
        .args(["-D", "LARGE_DATASET", "-D", "POLYBENCH_TIME"])
        .args(["--check-define", "MEDIUM_DATASET"])
        .args(["--check-define", "POLYBENCH_DUMP_ARRAYS"])
        .args(["--check-cflags", "-ffp-contract=off"])
        .args(["--threads", &options.threads.to_string()])
        .args(["--jobs", &options.jobs.to_string()])
        .args(["--runs", &options.runs.to_string()])
        .args(["--time", &options.time])
        .arg("--work-dir")
        .arg(out.join(format!("{name}-builds")))
        .arg("--json")
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .arg("--quiet")
        .output();
    let output = match output {
        Ok(o) => o,
        Err(e) => {
            row.error = Some(format!("cannot run pollen: {e}"));
            return row;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    std::fs::write(out.join(format!("{name}.txt")), stdout.as_bytes()).ok();
    if let Some(first) = stdout.lines().next() {
        if let Some(at) = first.find("F1:") {
            row.space = first[at..]
                .split('|')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
        }
    }
    row.candidates = stdout
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.trim_end_matches('*').parse::<usize>().is_ok())
        })
        .count();
    let Ok(text) = std::fs::read_to_string(&json) else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        row.error = Some(format!(
            "no results ({}): {}",
            output.status,
            stderr.lines().last().unwrap_or("")
        ));
        return row;
    };
    let number = |key: &str| -> Option<f64> { field(&text, key)?.parse().ok() };
    row.original = number("original_seconds");
    row.default = number("default_seconds");
    row.elapsed = number("elapsed_seconds").unwrap_or(0.0);
    row.mismatches = text.matches("\"status\": \"mismatch\"").count();
    row.evaluated = text.matches("\"key\": ").count();
    let not_reached = number("not_reached").unwrap_or(0.0) as usize;
    let same_program = number("same_program").unwrap_or(0.0) as usize;
    row.candidates = row.evaluated + not_reached + same_program;
    if let Some(best) = field(&text, "best").and_then(|b| b.parse::<usize>().ok()) {
        let marker = format!("{{\"id\": {best}, ");
        if let Some(at) = text.find(&marker) {
            let line = &text[at..];
            row.best = field(line, "seconds").and_then(|s| s.parse().ok());
            row.best_key = field(line, "key").unwrap_or_default();
        }
    }
    row
}

/// The value of `"key": value` (a number, `null` or a string without escapes) after
/// the start of `text`.
fn field(text: &str, key: &str) -> Option<String> {
    let pattern = format!("\"{key}\": ");
    let at = text.find(&pattern)? + pattern.len();
    let rest = &text[at..];
    if let Some(s) = rest.strip_prefix('"') {
        return Some(s[..s.find('"')?].to_string());
    }
    let end = rest.find([',', '\n', '}']).unwrap_or(rest.len());
    let value = rest[..end].trim();
    (value != "null").then(|| value.to_string())
}

fn report(rows: &[Row], options: &Options) -> String {
    let mut out = format!(
        "\nPolyBench/C 4.2.1 LARGE, {} threads, up to {} per kernel, {} runs (min), gcc -O3 -march=native -fopenmp\n",
        options.threads, options.time, options.runs
    );
    out.push_str(&format!(
        "{:<12} {:>10} {:>11} {:>9} {:>10} {:>10} {:>10} {:>9}  {}\n",
        "kernel",
        "F1 points",
        "candidates",
        "time (s)",
        "original",
        "default",
        "best",
        "best/def",
        "best candidate"
    ));
    let mut ratios = Vec::new();
    let secs = |v: Option<f64>| v.map_or("-".to_string(), |s| format!("{s:.4}"));
    for r in rows {
        let ratio = match (r.default, r.best) {
            (Some(d), Some(b)) if b > 0.0 => Some(d / b),
            _ => None,
        };
        if let Some(x) = ratio {
            ratios.push(x);
        }
        let points = r
            .space
            .split("#points")
            .nth(1)
            .map(|p| p.trim().to_string())
            .unwrap_or_else(|| "-".to_string());
        out.push_str(&format!(
            "{:<12} {:>10} {:>11} {:>9.1} {:>10} {:>10} {:>10} {:>9}  {}{}{}\n",
            r.name,
            points,
            format!("{}/{}", r.evaluated, r.candidates),
            r.elapsed,
            secs(r.original),
            secs(r.default),
            secs(r.best),
            ratio.map_or("-".to_string(), |x| format!("{x:.2}x")),
            r.best_key,
            if r.mismatches > 0 {
                format!("  MISMATCHES: {}", r.mismatches)
            } else {
                String::new()
            },
            r.error
                .as_ref()
                .map_or(String::new(), |e| format!("  ERROR: {e}"))
        ));
    }
    let wins = ratios.iter().filter(|&&x| x >= 1.2).count();
    out.push_str(&format!(
        "best/default: geomean {}, at least 1.2x on {} of {} kernels, never below 1.0x: {}\n",
        geomean(&ratios).map_or("-".to_string(), |g| format!("{g:.2}x")),
        wins,
        ratios.len(),
        ratios.iter().all(|&x| x >= 1.0)
    ));
    out
}
