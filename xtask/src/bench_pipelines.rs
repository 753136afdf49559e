//! `cargo xtask bench pipelines`: the image-processing pipelines of `examples/pipelines`
//! optimized by each of Pollen's strategies, timed against the original C program and
//! against Halide's CPU autoschedulers.
//!
//! For every pipeline of `examples/pipelines/manifest.txt` (or those named on the command
//! line), at its bench size (the manifest's bench flags; `--size test` takes its last test
//! size instead), this command builds and times:
//! - the original under `gcc -O3 -march=native` on 1 thread, and with `-fopenmp` on
//!   `--threads` threads (default 2);
//! - Pollen's output under `gcc -O3 -march=native -fopenmp` on `--threads` threads, for
//!   each strategy: `pollen opt --strategy pluto`, `--strategy basteln --live-out
//!   <outputs>` and `--strategy polymage --live-out <outputs> --estimates <sizes>`, the
//!   outputs being the manifest's and the estimates the size flags given to the scop's
//!   parameters (`int rows = R, cols = C` in `main` gives `rows` the value of `-DR`);
//! - the pipeline in Halide (`xtask/halide/<name>.py`, see `halide_pipeline.py` there)
//!   with each CPU autoscheduler (Adams2019, Li2018, Mullapudi2016), with `parallelism`
//!   and `HL_NUM_THREADS` set to the threads. Halide (`halide` and `numpy` from PyPI) is
//!   installed on first use into a private virtual environment, `target/bench-halide/venv`
//!   (`--no-install` skips that; without it the Halide columns are skipped with the
//!   reason). A pipeline without a Halide script has no Halide columns.
//!
//! Every C program runs once with `-DPIPELINE_RUNS=<--runs>` (default 5) and
//! `-DPOLLEN_TIME`: its time is the fastest of the `time` lines it prints, so that
//! initialisation and first-touch page faults are not timed. The Halide script realizes
//! the pipeline once as a warm-up and then `--runs` times into preallocated outputs and
//! prints the fastest (Halide allocates its intermediate buffers at every run).
//!
//! Checks: every Pollen output must print exactly the original's checksums (one line per
//! output array, see `kernel_output` in `examples/kernels/kernel.h`); otherwise it is
//! marked wrong and its time never counts. Halide compiles with its default float
//! semantics, which contract multiply-adds and replace divisions by constants differently
//! from gcc, so its checksums (computed the same way) must be within a relative
//! difference of [`HALIDE_TOLERANCE`] of the original's. (With `--strict-float`, a
//! script's checksums equal those of the C program built with `-ffp-contract=off`.)
//!
//! The report gives the milliseconds of every build, then, per pipeline, Pollen's best
//! correct strategy against the original on the threads and against Halide's best
//! correct autoscheduler, their geometric means and the targets: Pollen's best at least
//! [`HALIDE_TARGET`] times as fast as Halide's best, and at least [`ORIGINAL_TARGET`]
//! times as fast as the original on 2 threads, in geometric mean. Everything built goes
//! to `target/bench-pipelines/`, with the report as `report.txt`, `results.csv` and
//! `results.json`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::bench_polybench::{
    build_pollen, compile, flag_list, gcc_build, geomean, run_logged, works,
};
use crate::cells::{failures, largest_difference, Cell, Check};
use crate::formats::{csv_field, json_number, json_string};
use crate::venv::Venv;

/// How many timed runs each build makes by default (its time is the fastest).
const DEFAULT_RUNS: usize = 5;

/// The threads of the parallel builds by default.
const DEFAULT_THREADS: usize = 2;

/// The largest relative difference of a Halide checksum from the original's that still
/// counts as correct: the float rounding of contracted multiply-adds and of divisions
/// by constants moves the checksums by about 1e-7 relatively, a wrong row or column of an
/// image by more than 1e-4.
const HALIDE_TOLERANCE: f64 = 1e-5;

/// How much faster than Halide's best autoscheduler Pollen's best strategy should be, in
/// geometric mean.
const HALIDE_TARGET: f64 = 1.2;

/// How much faster than the original on 2 threads Pollen's best strategy should be, in
/// geometric mean.
const ORIGINAL_TARGET: f64 = 3.0;

/// The gcc flags of every build.
const GCC_FLAGS: &[&str] = &["-O3", "-march=native"];

/// Pollen's strategies, in table order.
const STRATEGIES: [&str; 3] = ["pluto", "basteln", "polymage"];

/// Halide's CPU autoschedulers, in table order.
const AUTOSCHEDULERS: [&str; 3] = ["Adams2019", "Li2018", "Mullapudi2016"];

/// The PyPI packages of the Halide environment.
const HALIDE_PACKAGES: &[&str] = &["halide", "numpy"];

/// How many columns a row has: the original on 1 and on N threads, the strategies, the
/// autoschedulers.
const COLUMNS: usize = 2 + STRATEGIES.len() + AUTOSCHEDULERS.len();

/// The first strategy column.
const FIRST_STRATEGY: usize = 2;

/// The first autoscheduler column.
const FIRST_HALIDE: usize = FIRST_STRATEGY + STRATEGIES.len();

/// One line of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pipeline {
    name: String,
    /// The arrays used after the pipeline.
    outputs: Vec<String>,
    /// One flag list per test size.
    test_flags: Vec<Vec<String>>,
    /// The flags of the timing runs.
    bench_flags: Vec<String>,
}

/// Which of the manifest's sizes is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Size {
    Test,
    Bench,
}

impl Size {
    fn name(self) -> &'static str {
        match self {
            Size::Test => "test",
            Size::Bench => "bench",
        }
    }
}

/// The options of one run of the command.
#[derive(Debug)]
struct Options {
    runs: usize,
    threads: usize,
    install: bool,
    size: Size,
    names: Vec<String>,
}

/// A pipeline's results.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    pipeline: String,
    /// The size flags run.
    sizes: Vec<String>,
    /// One cell per column (see [`column_titles`]).
    cells: Vec<Cell>,
}

impl Row {
    /// Pollen's fastest correct strategy: its index and milliseconds.
    fn best_pollen(&self) -> Option<(usize, f64)> {
        best(&self.cells[FIRST_STRATEGY..FIRST_HALIDE])
    }

    /// Halide's fastest correct autoscheduler: its index and milliseconds.
    fn best_halide(&self) -> Option<(usize, f64)> {
        best(&self.cells[FIRST_HALIDE..])
    }

    /// The original on the threads over Pollen's best.
    fn vs_original(&self) -> Option<f64> {
        Some(self.cells[1].correct_ms()? / self.best_pollen()?.1)
    }

    /// Halide's best over Pollen's best.
    fn vs_halide(&self) -> Option<f64> {
        Some(self.best_halide()?.1 / self.best_pollen()?.1)
    }
}

/// The fastest correct cell: its index and milliseconds.
fn best(cells: &[Cell]) -> Option<(usize, f64)> {
    cells
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((i, c.correct_ms()?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// The column headers, for `threads` threads.
fn column_titles(threads: usize) -> Vec<String> {
    let mut titles = vec!["orig 1T".to_string(), format!("orig {threads}T")];
    titles.extend(STRATEGIES.iter().map(|s| s.to_string()));
    titles.extend(AUTOSCHEDULERS.iter().map(|s| s.to_string()));
    titles
}

/// The column names of the CSV and JSON files.
fn column_keys() -> Vec<String> {
    let mut keys = vec!["original_1t".to_string(), "original_nt".to_string()];
    keys.extend(STRATEGIES.iter().map(|s| format!("pollen_{s}")));
    keys.extend(
        AUTOSCHEDULERS
            .iter()
            .map(|s| format!("halide_{}", s.to_lowercase())),
    );
    keys
}

/// Runs `cargo xtask bench pipelines [--runs N] [--threads N] [--size test|bench]
/// [--no-install] [pipeline...]`.
pub fn run(root: &Path, flags: &[String]) -> Result<()> {
    let options = options(flags)?;
    let dir = root.join("examples/pipelines");
    let manifest_path = dir.join("manifest.txt");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("cannot read {}", manifest_path.display()))?;
    let pipelines = select(manifest(&text)?, &options.names)?;
    let out = root.join("target/bench-pipelines");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    if !works(Command::new("gcc").arg("--version")) {
        bail!("gcc is needed (Debian: apt-get install gcc)");
    }
    let pollen = build_pollen(root)?;
    let python = halide_python(root, options.install);
    if let Err(reason) = &python {
        println!("bench: Halide columns skipped: {reason}");
    }

    let mut rows = Vec::new();
    for p in &pipelines {
        let sizes = sizes(p, options.size, options.runs);
        println!("bench: {} ({})", p.name, sizes.join(" "));
        let context = Setup {
            root,
            out: &out,
            pollen: &pollen,
            python: python.as_deref().map_err(String::clone),
            options: &options,
        };
        rows.push(bench_pipeline(&context, p, sizes));
    }
    let text = report(&rows, &options, python.as_ref().err());
    print!("{text}");
    crate::formats::write_reports(&out, &text, csv(&rows), json(&rows, &options))
}

/// Reads the command-line options.
fn options(flags: &[String]) -> Result<Options> {
    let mut options = Options {
        runs: DEFAULT_RUNS,
        threads: DEFAULT_THREADS,
        install: true,
        size: Size::Bench,
        names: Vec::new(),
    };
    let mut flags = flags.iter();
    while let Some(flag) = flags.next() {
        let mut value = |what: &str| {
            flags
                .next()
                .cloned()
                .with_context(|| format!("`{flag}` needs {what}"))
        };
        let positive = |n: String| {
            n.parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .with_context(|| format!("`{flag}` needs a positive number, found `{n}`"))
        };
        match flag.as_str() {
            "--no-install" => options.install = false,
            "--runs" => options.runs = positive(value("a number")?)?,
            "--threads" => options.threads = positive(value("a number")?)?,
            "--size" => {
                options.size = match value("test or bench")?.as_str() {
                    "test" => Size::Test,
                    "bench" => Size::Bench,
                    other => bail!("unknown size `{other}` (known: test, bench)"),
                }
            }
            other if other.starts_with('-') => bail!(
                "unknown option `{other}` (known: --runs N, --threads N, --size test|bench, --no-install)"
            ),
            name => options.names.push(name.to_string()),
        }
    }
    Ok(options)
}

/// The pipelines of a manifest (`name outputs test-flags bench-flags [# comment]`), in
/// order.
fn manifest(text: &str) -> Result<Vec<Pipeline>> {
    let mut pipelines = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split_once('#').map_or(line, |(code, _)| code).trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, outputs, test, bench] = fields[..] else {
            bail!(
                "manifest line {}: expected 4 fields (name outputs test-flags bench-flags), found {}",
                number + 1,
                fields.len()
            );
        };
        pipelines.push(Pipeline {
            name: name.to_string(),
            outputs: outputs.split(',').map(str::to_string).collect(),
            test_flags: test.split('|').map(flag_list).collect(),
            bench_flags: flag_list(bench),
        });
    }
    Ok(pipelines)
}

/// The pipelines named on the command line, in the order given; all when none is named.
fn select(pipelines: Vec<Pipeline>, names: &[String]) -> Result<Vec<Pipeline>> {
    if names.is_empty() {
        return Ok(pipelines);
    }
    names
        .iter()
        .map(|name| {
            pipelines
                .iter()
                .find(|p| &p.name == name)
                .cloned()
                .with_context(|| format!("no pipeline `{name}` in examples/pipelines/manifest.txt"))
        })
        .collect()
}

/// The `-D` flags of a run: the size's flags with `-DPIPELINE_RUNS` set to `runs`.
fn sizes(p: &Pipeline, size: Size, runs: usize) -> Vec<String> {
    let flags = match size {
        Size::Bench => p.bench_flags.clone(),
        Size::Test => p.test_flags.last().cloned().unwrap_or_default(),
    };
    let mut flags: Vec<String> = flags
        .into_iter()
        .filter(|f| !f.starts_with("-DPIPELINE_RUNS="))
        .collect();
    flags.push(format!("-DPIPELINE_RUNS={runs}"));
    flags
}

/// The `NAME=value` pairs of `-DNAME=value` flags, except `PIPELINE_RUNS`.
fn size_values(flags: &[String]) -> Vec<(String, String)> {
    flags
        .iter()
        .filter_map(|f| {
            let (name, value) = f.strip_prefix("-D")?.split_once('=')?;
            (name != "PIPELINE_RUNS").then(|| (name.to_string(), value.to_string()))
        })
        .collect()
}

/// `--estimates` for a pipeline: each size given to the parameter that `source`
/// initialises with it (`int rows = R, cols = C` gives `rows=<R>,cols=<C>`), or to the
/// size's own name when none does.
fn estimates(source: &str, flags: &[String]) -> String {
    let pairs: Vec<String> = size_values(flags)
        .into_iter()
        .map(|(name, value)| format!("{}={value}", parameter_of(source, &name).unwrap_or(name)))
        .collect();
    pairs.join(",")
}

/// The variable initialised with the macro `name` (`ident = name,` or `ident = name;`).
fn parameter_of(source: &str, name: &str) -> Option<String> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    source.match_indices(name).find_map(|(at, _)| {
        let after = source[at + name.len()..].trim_start();
        if !(after.starts_with(',') || after.starts_with(';')) {
            return None;
        }
        let before = source[..at].trim_end().strip_suffix('=')?.trim_end();
        if before.ends_with(['=', '!', '<', '>']) || at > 0 && source[..at].ends_with(is_ident) {
            return None;
        }
        let start = before.rfind(|c: char| !is_ident(c)).map_or(0, |i| i + 1);
        let ident = &before[start..];
        (!ident.is_empty() && !ident.starts_with(|c: char| c.is_ascii_digit()))
            .then(|| ident.to_string())
    })
}

/// What every pipeline's run needs.
struct Setup<'a> {
    root: &'a Path,
    out: &'a Path,
    pollen: &'a Path,
    /// The Python with Halide, or why there is none.
    python: std::result::Result<&'a Path, String>,
    options: &'a Options,
}

/// Builds and times every column of one pipeline.
fn bench_pipeline(cx: &Setup, p: &Pipeline, sizes: Vec<String>) -> Row {
    let mut row = Row {
        pipeline: p.name.clone(),
        sizes: sizes.clone(),
        cells: vec![Cell::Skipped("the original failed".into()); COLUMNS],
    };
    let dir = cx.out.join(&p.name);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        row.cells[0] = Cell::Failed(format!("cannot create {}: {e}", dir.display()));
        return row;
    }
    let pipelines_dir = cx.root.join("examples/pipelines");
    let source = pipelines_dir.join(format!("{}.c", p.name));
    let threads = cx.options.threads;
    let build = |c_file: &Path, exe: &Path, openmp: bool, what: &str| {
        let mut flags = GCC_FLAGS.to_vec();
        if openmp {
            flags.push("-fopenmp");
        }
        flags.push("-DPOLLEN_TIME");
        gcc_build(&flags, &pipelines_dir, &sizes, c_file, exe, what)
    };

    // The original, the reference of the checksums.
    let exe = dir.join("original");
    let original = build(&source, &exe, false, "gcc (original)")
        .and_then(|()| time_c(&exe, 1))
        .and_then(|(ms, stdout)| {
            if checksums(&stdout).is_empty() {
                return Err("the original printed no checksum".to_string());
            }
            Ok((ms, stdout))
        });
    let reference = match original {
        Ok((ms, stdout)) => {
            row.cells[0] = Cell::Timed(ms, Check::Same);
            stdout
        }
        Err(e) => {
            row.cells[0] = Cell::Failed(e);
            return row;
        }
    };
    let exe = dir.join("original-omp");
    row.cells[1] = cell_of(
        build(&source, &exe, true, "gcc -fopenmp (original)")
            .and_then(|()| time_c(&exe, threads))
            .map(|(ms, stdout)| (ms, exact(&reference, &stdout))),
    );
    show(&column_titles(threads)[0], &row.cells[0]);
    show(&column_titles(threads)[1], &row.cells[1]);

    // Pollen's strategies.
    let text = std::fs::read_to_string(&source).unwrap_or_default();
    let outputs = p.outputs.join(",");
    for (k, strategy) in STRATEGIES.iter().enumerate() {
        let optimized = dir.join(format!("{}.{strategy}.c", p.name));
        let mut opt = Command::new(cx.pollen);
        opt.arg("opt").arg(&source).args(["--strategy", strategy]);
        if *strategy != "pluto" {
            opt.args(["--live-out", &outputs]);
        }
        let estimates = estimates(&text, &sizes);
        if *strategy == "polymage" && !estimates.is_empty() {
            opt.args(["--estimates", &estimates]);
        }
        opt.arg("-o").arg(&optimized);
        let exe = dir.join(strategy);
        let cell = cell_of(
            compile(opt, &format!("pollen opt --strategy {strategy}"))
                .and_then(|()| build(&optimized, &exe, true, "gcc -fopenmp (Pollen)"))
                .and_then(|()| time_c(&exe, threads))
                .map(|(ms, stdout)| (ms, exact(&reference, &stdout))),
        );
        show(strategy, &cell);
        row.cells[FIRST_STRATEGY + k] = cell;
    }

    // Halide's autoschedulers.
    let script = cx.root.join(format!("xtask/halide/{}.py", p.name));
    for (k, scheduler) in AUTOSCHEDULERS.iter().enumerate() {
        let cell = match &cx.python {
            Err(reason) => Cell::Skipped(reason.clone()),
            Ok(_) if !script.exists() => {
                Cell::Skipped(format!("no Halide script {}", script.display()))
            }
            Ok(python) => cell_of(
                time_halide(python, &script, scheduler, &sizes, threads, &dir)
                    .map(|(ms, sums)| (ms, close(&reference, &sums))),
            ),
        };
        show(scheduler, &cell);
        row.cells[FIRST_HALIDE + k] = cell;
    }
    row
}

/// A timed build's cell, or its failure.
fn cell_of(result: std::result::Result<(f64, Check), String>) -> Cell {
    match result {
        Ok((ms, check)) => Cell::Timed(ms, check),
        Err(e) => Cell::Failed(e),
    }
}

/// Prints a cell as it is measured.
fn show(title: &str, cell: &Cell) {
    match cell {
        Cell::Timed(ms, check) => {
            let diff = match check {
                Check::Close(d) | Check::Wrong(Some(d)) => format!(" (rel. diff {d:.1e})"),
                _ => String::new(),
            };
            println!(
                "  {title:<14} {:>10} ms  {}{diff}",
                ms_text(*ms),
                check.name()
            );
        }
        Cell::Failed(e) => println!("  {title:<14} failed: {e}"),
        Cell::Skipped(_) => {}
    }
}

/// Runs a C build once on `threads` threads: the fastest of its `time` lines in
/// milliseconds, and its standard output (the checksums).
fn time_c(exe: &Path, threads: usize) -> std::result::Result<(f64, String), String> {
    let mut cmd = Command::new(exe);
    cmd.env("OMP_NUM_THREADS", threads.to_string());
    let (stdout, stderr) = run_logged(cmd, exe)?;
    let ms = fastest(&stderr).ok_or("no `time <seconds>` line on stderr")?;
    Ok((ms * 1e3, stdout))
}

/// The smallest of the `time <seconds>` lines.
fn fastest(stderr: &str) -> Option<f64> {
    stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("time ")?.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .reduce(f64::min)
}

/// Runs a pipeline's Halide script with one autoscheduler: its milliseconds and
/// checksums.
fn time_halide(
    python: &Path,
    script: &Path,
    scheduler: &str,
    sizes: &[String],
    threads: usize,
    dir: &Path,
) -> std::result::Result<(f64, Vec<f64>), String> {
    let mut cmd = Command::new(python);
    cmd.arg(script)
        .args(sizes)
        .args(["--autoscheduler", scheduler, "--threads"])
        .arg(threads.to_string())
        .env("HL_NUM_THREADS", threads.to_string());
    let logs = dir.join(format!("halide-{scheduler}"));
    let stdout = match run_logged(cmd, &logs) {
        Ok((stdout, _)) => stdout,
        Err(e) => {
            // The script names a failing autoscheduler's error on standard output.
            let stdout = std::fs::read_to_string(logs.with_extension("stdout")).unwrap_or_default();
            let said = stdout.lines().find_map(|l| {
                let mut words = l.split_whitespace();
                (words.nth(2) == Some("error")).then(|| words.collect::<Vec<_>>().join(" "))
            });
            return Err(said.unwrap_or(e));
        }
    };
    halide_line(&stdout, scheduler)
}

/// Reads `<pipeline> <autoscheduler> <milliseconds> <checksum>...`.
fn halide_line(stdout: &str, scheduler: &str) -> std::result::Result<(f64, Vec<f64>), String> {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(scheduler))
        .ok_or_else(|| format!("the Halide script printed no line for {scheduler}"))?;
    let numbers: Option<Vec<f64>> = line
        .split_whitespace()
        .skip(2)
        .map(|w| w.parse().ok())
        .collect();
    match numbers.as_deref() {
        Some([ms, sums @ ..]) if !sums.is_empty() => Ok((*ms, sums.to_vec())),
        _ => Err(format!("unexpected Halide output `{line}`")),
    }
}

/// The checksums of a C program's standard output (`name value` lines).
fn checksums(stdout: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1)?.parse().ok())
        .collect()
}

/// A Pollen build's output against the original's: the same text, or wrong.
fn exact(reference: &str, stdout: &str) -> Check {
    if reference == stdout {
        Check::Same
    } else {
        let (a, b) = (checksums(reference), checksums(stdout));
        Check::Wrong((a.len() == b.len()).then(|| largest_difference(&a, &b)))
    }
}

/// Halide's checksums against the original's: close within [`HALIDE_TOLERANCE`], or
/// wrong.
fn close(reference: &str, sums: &[f64]) -> Check {
    let expected = checksums(reference);
    if expected.len() != sums.len() {
        return Check::Wrong(None);
    }
    let d = largest_difference(&expected, sums);
    if d <= HALIDE_TOLERANCE {
        Check::Close(d)
    } else {
        Check::Wrong(Some(d))
    }
}

/// The Python of the private virtual environment with Halide, created on first use.
fn halide_python(root: &Path, install: bool) -> std::result::Result<PathBuf, String> {
    Venv {
        dir: root.join("target/bench-halide/venv"),
        packages: HALIDE_PACKAGES,
        check: "import halide, numpy",
        by: "bench",
    }
    .python(install)
}

/// Milliseconds, or what became of a cell.
fn cell_text(cell: &Cell) -> String {
    cell.text(ms_text)
}

/// Milliseconds with two decimals, or four below 1 ms (the test sizes run for
/// microseconds).
fn ms_text(ms: f64) -> String {
    if ms >= 1.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.4}")
    }
}

/// A ratio with two decimals, or `-`.
fn ratio_text(r: Option<f64>) -> String {
    r.map_or("-".to_string(), |r| format!("{r:.2}"))
}

/// The geometric mean of some ratios of the rows and how many rows have one.
fn mean(rows: &[Row], ratio: impl Fn(&Row) -> Option<f64>) -> (Option<f64>, usize) {
    let values: Vec<f64> = rows.iter().filter_map(ratio).collect();
    (geomean(&values), values.len())
}

/// A target line: Pollen's best at least `target` times as fast as `other` in geometric
/// mean, with no pipeline where Pollen has no correct result.
fn target_line(
    rows: &[Row],
    target: f64,
    other: &str,
    ratio: impl Fn(&Row) -> Option<f64>,
) -> String {
    let head = format!("target: Pollen's best >= {target}x {other} (geomean)");
    let bad: Vec<&str> = rows
        .iter()
        .filter(|r| r.best_pollen().is_none())
        .map(|r| r.pipeline.as_str())
        .collect();
    let mut line = match mean(rows, ratio) {
        (Some(g), n) => format!(
            "{head}: {g:.2} over {n} of {} pipelines: {}",
            rows.len(),
            if bad.is_empty() && g >= target {
                "met"
            } else {
                "NOT met"
            }
        ),
        (None, _) if bad.is_empty() => format!("{head}: cannot be judged (no pipeline has both)"),
        (None, _) => format!("{head}: NOT met"),
    };
    if !bad.is_empty() {
        let _ = write!(line, " (no correct Pollen result on: {})", bad.join(", "));
    }
    line
}

/// The two target lines.
fn targets(rows: &[Row], threads: usize) -> [String; 2] {
    let mut original = target_line(
        rows,
        ORIGINAL_TARGET,
        &format!("original {threads}T"),
        Row::vs_original,
    );
    if threads != 2 {
        original.push_str(" (the target is set for 2 threads)");
    }
    [
        target_line(rows, HALIDE_TARGET, "Halide's best", Row::vs_halide),
        original,
    ]
}

/// The table, the ratios, the geometric means and the targets.
fn report(rows: &[Row], o: &Options, halide_skipped: Option<&String>) -> String {
    let titles = column_titles(o.threads);
    let mut out = format!(
        "\npipelines at {} size, milliseconds (fastest of {} runs); C builds under gcc {}, \
         Pollen's with -fopenmp on {} threads; Halide's autoschedulers with parallelism {}\n",
        o.size.name(),
        o.runs,
        GCC_FLAGS.join(" "),
        o.threads,
        o.threads
    );
    let _ = write!(out, "{:<12}", "pipeline");
    for t in &titles {
        let _ = write!(out, " {t:>13}");
    }
    out.push('\n');
    for row in rows {
        let _ = write!(out, "{:<12}", row.pipeline);
        for cell in &row.cells {
            let _ = write!(out, " {:>13}", cell_text(cell));
        }
        out.push('\n');
    }
    out.push_str("\"!\": checksums differ from the original's (never counted)\n");
    let _ = writeln!(
        out,
        "Pollen's checksums must equal the original's; Halide's must be within a relative \
         difference of {HALIDE_TOLERANCE:e}"
    );
    if let Some(reason) = halide_skipped {
        let _ = writeln!(out, "Halide: skipped ({reason})");
    }

    let _ = writeln!(
        out,
        "\n{:<12} {:>14} {:>16} {:>13} {:>16}",
        "pipeline",
        "Pollen's best",
        "Halide's best",
        format!("orig {}T/best", o.threads),
        "Halide/Pollen"
    );
    for row in rows {
        let pollen = row
            .best_pollen()
            .map_or("-".to_string(), |(k, _)| STRATEGIES[k].to_string());
        let halide = row
            .best_halide()
            .map_or("-".to_string(), |(k, _)| AUTOSCHEDULERS[k].to_string());
        let _ = writeln!(
            out,
            "{:<12} {pollen:>14} {halide:>16} {:>13} {:>16}",
            row.pipeline,
            ratio_text(row.vs_original()),
            ratio_text(row.vs_halide())
        );
    }
    let (g_original, _) = mean(rows, Row::vs_original);
    let (g_halide, _) = mean(rows, Row::vs_halide);
    let _ = writeln!(
        out,
        "{:<12} {:>14} {:>16} {:>13} {:>16}",
        "geomean",
        "",
        "",
        ratio_text(g_original),
        ratio_text(g_halide)
    );

    let halide_diffs: Vec<String> = rows
        .iter()
        .flat_map(|row| {
            row.cells[FIRST_HALIDE..]
                .iter()
                .zip(AUTOSCHEDULERS)
                .filter_map(move |(cell, s)| match cell {
                    Cell::Timed(_, check) => {
                        let d = check.difference()?;
                        Some(format!("{} {s} {d:.1e}", row.pipeline))
                    }
                    _ => None,
                })
        })
        .collect();
    if !halide_diffs.is_empty() {
        let _ = writeln!(
            out,
            "\nHalide checksums, relative difference from the original's: {}",
            halide_diffs.join(", ")
        );
    }

    let failures: Vec<String> = rows
        .iter()
        .flat_map(|row| {
            row.cells
                .iter()
                .zip(&titles)
                .filter_map(move |(cell, title)| match cell {
                    Cell::Failed(e) => Some(format!("{} ({title}): {e}", row.pipeline)),
                    _ => None,
                })
        })
        .collect();
    if !failures.is_empty() {
        out.push_str("\nfailures:\n");
        for f in &failures {
            let _ = writeln!(out, "  {f}");
        }
    }
    out.push('\n');
    for line in targets(rows, o.threads) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The results as CSV: one line per pipeline, milliseconds and checks per column, empty
/// where none.
fn csv(rows: &[Row]) -> String {
    let mut header = vec!["pipeline".to_string(), "sizes".into()];
    for key in column_keys() {
        header.extend([format!("{key}_ms"), format!("{key}_check")]);
    }
    header.extend(
        [
            "best_pollen",
            "best_halide",
            "original_nt_over_pollen",
            "halide_over_pollen",
            "errors",
        ]
        .map(String::from),
    );
    let mut out = header.join(",");
    out.push('\n');
    for row in rows {
        let mut fields = vec![row.pipeline.clone(), row.sizes.join(" ")];
        for cell in &row.cells {
            match cell {
                Cell::Timed(ms, check) => fields.extend([format!("{ms:.4}"), check.name().into()]),
                Cell::Failed(_) => fields.extend([String::new(), "failed".into()]),
                Cell::Skipped(_) => fields.extend([String::new(), "skipped".into()]),
            }
        }
        fields.push(
            row.best_pollen()
                .map_or(String::new(), |(k, _)| STRATEGIES[k].into()),
        );
        fields.push(
            row.best_halide()
                .map_or(String::new(), |(k, _)| AUTOSCHEDULERS[k].into()),
        );
        let ratio = |r: Option<f64>| r.map_or(String::new(), |r| format!("{r:.4}"));
        fields.push(ratio(row.vs_original()));
        fields.push(ratio(row.vs_halide()));
        fields.push(failures(&row.cells));
        let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// The results as JSON.
fn json(rows: &[Row], o: &Options) -> String {
    let mut out = format!(
        "{{\n  \"suite\": \"pipelines\",\n  \"size\": \"{}\",\n  \"runs\": {},\n  \"threads\": {},\n  \"halide_tolerance\": {HALIDE_TOLERANCE:e},\n  \"pipelines\": [",
        o.size.name(),
        o.runs,
        o.threads
    );
    let keys = column_keys();
    for (i, row) in rows.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        let sizes: Vec<String> = row.sizes.iter().map(|s| json_string(s)).collect();
        let _ = write!(
            out,
            "    {{\"pipeline\": {}, \"sizes\": [{}]",
            json_string(&row.pipeline),
            sizes.join(", ")
        );
        for (key, cell) in keys.iter().zip(&row.cells) {
            let _ = write!(out, ", \"{key}\": {}", cell.json("relative_difference"));
        }
        let name = |n: Option<&str>| n.map_or("null".to_string(), json_string);
        let _ = write!(
            out,
            ", \"best_pollen\": {}, \"best_halide\": {}, \"original_nt_over_pollen\": {}, \"halide_over_pollen\": {}}}",
            name(row.best_pollen().map(|(k, _)| STRATEGIES[k])),
            name(row.best_halide().map(|(k, _)| AUTOSCHEDULERS[k])),
            json_number(row.vs_original()),
            json_number(row.vs_halide())
        );
    }
    let (g_original, n_original) = mean(rows, Row::vs_original);
    let (g_halide, n_halide) = mean(rows, Row::vs_halide);
    let _ = write!(
        out,
        "\n  ],\n  \"geomean\": {{\"original_nt_over_pollen\": {{\"ratio\": {}, \"pipelines\": {n_original}}}, \"halide_over_pollen\": {{\"ratio\": {}, \"pipelines\": {n_halide}}}}},\n  \"targets\": [",
        json_number(g_original),
        json_number(g_halide)
    );
    let targets: Vec<String> = targets(rows, o.threads)
        .iter()
        .map(|t| json_string(t))
        .collect();
    let _ = write!(out, "{}]\n}}\n", targets.join(", "));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_real_manifest_is_read() {
        let text = include_str!("../../examples/pipelines/manifest.txt");
        let p = manifest(text).expect("parses");
        assert!(p.len() >= 3);
        let blur = &p[0];
        assert_eq!(blur.name, "blur");
        assert_eq!(blur.outputs, ["blury"]);
        assert_eq!(blur.test_flags.len(), 2);
        assert!(blur.test_flags[0].is_empty());
        assert_eq!(blur.test_flags[1], ["-DR=37", "-DC=53"]);
        assert_eq!(
            sizes(blur, Size::Bench, 3),
            ["-DR=2832", "-DC=4256", "-DPIPELINE_RUNS=3"]
        );
        assert_eq!(
            sizes(blur, Size::Test, 5),
            ["-DR=37", "-DC=53", "-DPIPELINE_RUNS=5"]
        );
        assert!(select(p.clone(), &["nope".into()]).is_err());
        assert_eq!(
            select(p, &["harris".into()]).expect("known")[0].name,
            "harris"
        );
        assert!(manifest("blur blury -\n").is_err());
    }

    #[test]
    fn options_are_read() {
        let o = options(&strings(&[
            "--runs",
            "2",
            "blur",
            "--no-install",
            "--size",
            "test",
        ]))
        .expect("valid");
        assert_eq!(
            (o.runs, o.threads, o.install, o.size),
            (2, 2, false, Size::Test)
        );
        assert_eq!(o.names, ["blur"]);
        let o = options(&[]).expect("valid");
        assert_eq!((o.runs, o.size), (DEFAULT_RUNS, Size::Bench));
        assert!(options(&strings(&["--runs", "0"])).is_err());
        assert!(options(&strings(&["--size", "huge"])).is_err());
        assert!(options(&strings(&["--threads"])).is_err());
        assert!(options(&strings(&["--fast"])).is_err());
    }

    #[test]
    fn estimates_name_the_parameters() {
        let source = "int main(void)\n{\n  int rows = R, cols = C, run;\n  if (x == R) ;\n";
        let flags = strings(&["-DR=2832", "-DC=4256", "-DPIPELINE_RUNS=5"]);
        assert_eq!(estimates(source, &flags), "rows=2832,cols=4256");
        assert_eq!(estimates("int n;", &flags), "R=2832,C=4256");
        for name in ["blur", "unsharp", "harris"] {
            let path = format!(
                "{}/../examples/pipelines/{name}.c",
                env!("CARGO_MANIFEST_DIR")
            );
            let source = std::fs::read_to_string(path).expect("pipeline");
            assert_eq!(estimates(&source, &flags), "rows=2832,cols=4256", "{name}");
        }
    }

    #[test]
    fn outputs_are_read_and_compared() {
        assert_eq!(
            fastest("time 0.5\ntime 0.25\nnoise\ntime 0.75\n"),
            Some(0.25)
        );
        assert_eq!(fastest("nothing"), None);
        let (ms, sums) = halide_line("blur Li2018 12.5 100.5 7\n", "Li2018").expect("a line");
        assert_eq!((ms, sums), (12.5, vec![100.5, 7.0]));
        assert!(halide_line("blur Li2018 error boom\n", "Li2018").is_err());
        assert!(halide_line("blur Adams2019 1 2\n", "Li2018").is_err());
        let reference = "blury 100\n";
        assert_eq!(exact(reference, "blury 100\n"), Check::Same);
        assert_eq!(
            exact(reference, "blury 101\n"),
            Check::Wrong(Some(1.0 / 101.0))
        );
        assert!(matches!(close(reference, &[100.0000001]), Check::Close(_)));
        assert!(matches!(close(reference, &[100.01]), Check::Wrong(Some(_))));
        assert_eq!(close(reference, &[1.0, 2.0]), Check::Wrong(None));
        assert_eq!(largest_difference(&[1.0], &[f64::NAN]), f64::INFINITY);
    }

    fn row(name: &str, cells: [Option<f64>; COLUMNS]) -> Row {
        Row {
            pipeline: name.into(),
            sizes: Vec::new(),
            cells: cells
                .iter()
                .map(|c| match c {
                    Some(ms) => Cell::Timed(*ms, Check::Same),
                    None => Cell::Skipped("-".into()),
                })
                .collect(),
        }
    }

    #[test]
    fn ratios_and_targets() {
        let a = row(
            "a",
            [
                Some(100.0),
                Some(90.0),
                Some(30.0),
                Some(20.0),
                Some(25.0),
                Some(30.0),
                None,
                Some(40.0),
            ],
        );
        let mut b = row(
            "b",
            [
                Some(10.0),
                Some(10.0),
                Some(2.0),
                Some(5.0),
                Some(5.0),
                Some(2.0),
                Some(3.0),
                Some(3.0),
            ],
        );
        assert_eq!(a.best_pollen(), Some((1, 20.0)));
        assert_eq!(a.best_halide(), Some((0, 30.0)));
        assert_eq!(a.vs_original(), Some(4.5));
        assert_eq!(a.vs_halide(), Some(1.5));
        assert_eq!(b.vs_halide(), Some(1.0));
        let rows = [a.clone(), b.clone()];
        let [halide, original] = targets(&rows, 2);
        assert!(
            halide.contains("1.22 over 2 of 2 pipelines: met"),
            "{halide}"
        );
        assert!(
            original.contains("4.74 over 2 of 2 pipelines: met"),
            "{original}"
        );
        // A wrong Pollen result never counts, and fails the targets.
        for k in FIRST_STRATEGY..FIRST_HALIDE {
            b.cells[k] = Cell::Timed(1.0, Check::Wrong(Some(0.5)));
        }
        let rows = [a, b];
        let [halide, _] = targets(&rows, 2);
        assert!(
            halide.contains("over 1 of 2 pipelines: NOT met (no correct Pollen result on: b)"),
            "{halide}"
        );
        let o = options(&[]).expect("valid");
        let text = report(&rows, &o, None);
        assert!(text.contains("1.00!"), "{text}");
        assert!(json(&rows, &o).contains("\"best_pollen\": null"));
        assert!(csv(&rows).lines().count() == 3);
    }
}
