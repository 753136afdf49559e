//! `cargo xtask bench polybench`: the example kernels, or the real PolyBench/C 4.2.1
//! suite, optimized by Pollen, timed against `gcc -O3` and, side by side, against Polly
//! and OpenBLAS.
//!
//! By default the kernels are those of `examples/kernels/manifest.txt` (or the ones named
//! on the command line), at their bench size (the manifest's bench flags, chosen so that
//! the original runs 0.5 to 5 s). With `--polybench DIR` (or `$POLLEN_POLYBENCH`, unless
//! `--examples` is given) they are PolyBench/C's 30 kernels (`DIR/utilities/benchmark_list`,
//! `DIR/<category>/.../NAME/NAME.c`; the copy stays where it is), each built with
//! `-I DIR/utilities -I <kernel dir> DIR/utilities/polybench.c -lm -D<SIZE>_DATASET
//! -DPOLYBENCH_TIME` (`--size mini|small|medium|large|extralarge`, default large). For
//! every kernel this command builds and times:
//! - the original under `gcc -O3 -march=native`, the baseline;
//! - Pollen's output (`pollen opt`, the defaults: tiling, parallel loops, smart fusion)
//!   under the same compiler with `-fopenmp`, with `OMP_NUM_THREADS` 1 and 2; every
//!   `pollen opt` call is timed (wall clock), and their sum is reported;
//! - the original under `clang -O3 -march=native -mllvm -polly`, and with
//!   `-mllvm -polly-parallel` (Polly's GNU OpenMP backend, linked with `-lgomp`) on 2
//!   threads. Debian's clang has Polly linked into `libLLVM`, so `-mllvm -polly` is enough
//!   there; where it is not, the plugin `LLVMPolly.so` next to clang's LLVM is loaded with
//!   `-fpass-plugin=` or `-Xclang -load`. A missing clang is installed with `apt-get`
//!   (package `clang`, then `libpolly-<version>-dev` if Polly is still missing) when that
//!   is possible; otherwise the Polly columns are skipped with the reason.
//!
//! Every build is run `--runs` times (default 3 on the examples, 5 on PolyBench), and
//! at least 25 times for a kernel whose original runs under 10 ms; a kernel's time is
//! the minimum over the runs, of the `time` lines its `-DPOLLEN_TIME`
//! build prints on standard error (examples) or of the last line PolyBench's
//! `-DPOLYBENCH_TIME` prints on standard output, so initialisation and output are not
//! timed. The PolyBench table also shows each time's spread, the slowest run over the
//! fastest minus 1, so that noise is visible.
//!
//! Checks: on the examples every variant's checksums (standard output of the timed runs,
//! the worst run counting) are compared with the original's. On PolyBench every build is
//! made a second time at the check size (`--check-size`, default medium) with
//! `-DPOLYBENCH_DUMP_ARRAYS -ffp-contract=off` (no contraction of multiply-adds, so that
//! gcc and clang round alike) and run once with the variant's threads; its arrays
//! (standard error) are compared with those of the original gcc build's check build. A
//! result is equal, close (every number within a relative difference of 1e-6), or a
//! MISMATCH, which is shown in the table and left out of the geometric means (a wrong
//! fast result is not a speedup).
//!
//! OpenBLAS: `benches/polybench/dgemm_openblas.c` times `cblas_dgemm` on gemm's shape
//! (the manifest's bench flags, or the `NI`, `NJ`, `NK` that PolyBench's `gemm.h`
//! defines for the size) with `OPENBLAS_NUM_THREADS` 1 and 2 (`libopenblas-dev` is
//! installed when missing), and the report compares Pollen's gemm in GFLOP/s
//! (2·NI·NJ·NK / time).
//!
//! The targets: Pollen's geometric-mean speedup over `gcc -O3` on 2 threads at least
//! Polly's on 2 threads (over the kernels both run correctly, and no wrong or failed
//! Pollen kernel), Pollen's gemm on 2 threads at least 40% of OpenBLAS's dgemm GFLOP/s on
//! 2 threads, and (PolyBench, whole suite) every kernel optimized by `pollen opt` in less
//! than 5 s in all.
//!
//! Options: `--runs N`, `--no-install` (never call `apt-get`), `--polybench DIR`,
//! `--size S`, `--check-size S`, `--examples`, kernel names. Everything built goes to
//! `target/polybench/` (examples) or `target/polybench-real/` (PolyBench), with the
//! report as `report.txt`, `results.csv` and `results.json`.

use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::formats::{csv_field, json_number, json_string};
use crate::fuzz::cargo;
use crate::polybench_suite::{self, Size};

/// How many times each build runs by default on the examples (its time is the minimum).
const DEFAULT_RUNS: usize = 3;

/// How many times each build runs by default on PolyBench.
const DEFAULT_POLYBENCH_RUNS: usize = 5;

/// A kernel whose original runs in less than this many seconds is timed at least
/// [`SHORT_RUNS`] times, every variant of it: runs of a few milliseconds vary by tens of
/// percent (more at 2 threads, whose second thread may wait for its core).
const SHORT_SECONDS: f64 = 0.01;

/// The least number of runs of a short kernel ([`SHORT_SECONDS`]).
const SHORT_RUNS: usize = 25;

/// The longest one run of a build may take.
const RUN_LIMIT: Duration = Duration::from_secs(180);

/// The largest relative difference of two checksums that still counts as close.
const CLOSE: f64 = 1e-6;

/// The least fraction of OpenBLAS's dgemm GFLOP/s that Pollen's gemm should reach.
const GEMM_TARGET: f64 = 0.40;

/// The most seconds `pollen opt` may take over the whole PolyBench suite.
const OPT_TARGET: f64 = 5.0;

/// The gcc flags of every build.
const GCC_FLAGS: &[&str] = &["-O3", "-march=native"];

/// The flag of every PolyBench check build, gcc's and clang's: no contraction of
/// multiply-adds, so that every build rounds alike.
const NO_CONTRACTION: &str = "-ffp-contract=off";

/// One line of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Kernel {
    name: String,
    category: String,
    /// The `-D` flags of the timing runs.
    bench_flags: Vec<String>,
}

/// Where a run prints the time of its kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Timer {
    /// The last `time <seconds>` line of standard error (`-DPOLLEN_TIME`, the OpenBLAS
    /// program).
    Stderr,
    /// The last non-empty line of standard output (PolyBench's `-DPOLYBENCH_TIME`).
    StdoutLast,
}

impl Timer {
    /// The seconds a run printed.
    fn read(self, stdout: &str, stderr: &str) -> Option<f64> {
        match self {
            Timer::Stderr => kernel_time(stderr),
            Timer::StdoutLast => stdout
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())?
                .trim()
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s >= 0.0),
        }
    }

    /// What a run without its time line failed to print.
    fn missing(self) -> &'static str {
        match self {
            Timer::Stderr => "no `time <seconds>` line on stderr",
            Timer::StdoutLast => "no time (a number) on the last line of stdout",
        }
    }
}

/// How one kernel is built, run and checked.
#[derive(Debug, Clone, PartialEq)]
struct Job {
    name: String,
    /// The original C file.
    source: PathBuf,
    /// The flags of the timed builds before the C file: include directories, defines.
    flags: Vec<String>,
    /// The flags of separate check builds, or `None` where the timed runs' standard
    /// outputs (checksums) are compared.
    check_flags: Option<Vec<String>>,
    /// Further C files of every build (PolyBench's `polybench.c`).
    extra: Vec<PathBuf>,
    /// Where a run prints its time.
    timer: Timer,
}

/// An example kernel of the manifest at its bench size.
fn example_job(kernels_dir: &Path, kernel: &Kernel) -> Job {
    let mut flags = vec![
        "-DPOLLEN_TIME".to_string(),
        "-I".to_string(),
        kernels_dir.to_string_lossy().into_owned(),
    ];
    flags.extend(kernel.bench_flags.iter().cloned());
    Job {
        name: kernel.name.clone(),
        source: kernels_dir.join(format!("{}.c", kernel.name)),
        flags,
        check_flags: None,
        extra: Vec::new(),
        timer: Timer::Stderr,
    }
}

/// A PolyBench kernel timed at `size` and checked at `check`.
fn polybench_job(dir: &Path, name: &str, source: &Path, size: Size, check: Size) -> Job {
    let kernel_dir = source.parent().unwrap_or(dir);
    let includes = vec![
        "-I".to_string(),
        dir.join("utilities").to_string_lossy().into_owned(),
        "-I".to_string(),
        kernel_dir.to_string_lossy().into_owned(),
    ];
    let mut flags = includes.clone();
    flags.extend([format!("-D{}", size.dataset()), "-DPOLYBENCH_TIME".into()]);
    let mut check_flags = includes;
    check_flags.extend([
        format!("-D{}", check.dataset()),
        "-DPOLYBENCH_DUMP_ARRAYS".into(),
        NO_CONTRACTION.into(),
    ]);
    Job {
        name: name.to_string(),
        source: source.to_path_buf(),
        flags,
        check_flags: Some(check_flags),
        extra: vec![dir.join("utilities/polybench.c")],
        timer: Timer::StdoutLast,
    }
}

/// The timed builds besides the original, in table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Pollen1,
    Pollen2,
    Polly,
    PollyParallel,
}

impl Variant {
    const ALL: [Variant; 4] = [
        Variant::Pollen1,
        Variant::Pollen2,
        Variant::Polly,
        Variant::PollyParallel,
    ];

    /// The column header.
    fn title(self) -> &'static str {
        match self {
            Variant::Pollen1 => "Pollen 1T",
            Variant::Pollen2 => "Pollen 2T",
            Variant::Polly => "Polly 1T",
            Variant::PollyParallel => "Polly 2T",
        }
    }

    /// Its name in the CSV and JSON files.
    fn key(self) -> &'static str {
        match self {
            Variant::Pollen1 => "pollen_1t",
            Variant::Pollen2 => "pollen_2t",
            Variant::Polly => "polly_1t",
            Variant::PollyParallel => "polly_2t",
        }
    }

    /// The `OMP_NUM_THREADS` of its runs.
    fn threads(self) -> usize {
        match self {
            Variant::Pollen1 | Variant::Polly => 1,
            Variant::Pollen2 | Variant::PollyParallel => 2,
        }
    }

    /// The name of its executable.
    fn file(self) -> &'static str {
        match self {
            Variant::Pollen1 | Variant::Pollen2 => "pollen",
            Variant::Polly => "polly",
            Variant::PollyParallel => "polly-par",
        }
    }
}

/// How a variant's checksums compare with the original's, from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Check {
    Same,
    Close,
    Mismatch,
}

impl Check {
    /// Its name in the CSV and JSON files.
    fn name(self) -> &'static str {
        match self {
            Check::Same => "same",
            Check::Close => "close",
            Check::Mismatch => "mismatch",
        }
    }
}

/// The fastest and the slowest of a build's runs, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Times {
    min: f64,
    max: f64,
}

impl Times {
    /// The times of some runs (`None` for none).
    fn of(seconds: &[f64]) -> Option<Times> {
        let min = seconds.iter().copied().reduce(f64::min)?;
        let max = seconds.iter().copied().reduce(f64::max)?;
        Some(Times { min, max })
    }

    /// The slowest run over the fastest, minus 1.
    fn spread(self) -> f64 {
        if self.min > 0.0 {
            self.max / self.min - 1.0
        } else {
            0.0
        }
    }
}

/// A spread as a percentage: `+2.4%`, `+31%`.
fn spread_text(times: Times) -> String {
    let percent = 100.0 * times.spread();
    if percent < 10.0 {
        format!("+{percent:.1}%")
    } else {
        format!("+{percent:.0}%")
    }
}

/// Seconds with three or four significant digits: `1.234`, `0.01234`, `1.50e-5` (small
/// PolyBench sizes run for microseconds).
fn seconds_text(s: f64) -> String {
    if s >= 0.1 || s == 0.0 {
        format!("{s:.3}")
    } else if s >= 1e-3 {
        format!("{s:.5}")
    } else {
        format!("{s:.2e}")
    }
}

/// What became of one build of one kernel.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// The times of the runs and its checksums (or arrays) against the original's.
    Timed(Times, Check),
    /// A step failed: the message.
    Failed(String),
    /// Not run: the reason is given once for the whole column.
    Skipped,
}

/// A kernel's results.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    kernel: String,
    /// The original's times, or why it has none.
    original: std::result::Result<Times, String>,
    /// One outcome per [`Variant::ALL`] entry.
    variants: [Outcome; 4],
    /// The wall-clock seconds of `pollen opt` on the kernel, when it succeeded.
    opt_seconds: Option<f64>,
}

/// OpenBLAS's dgemm on gemm's shape: the flops and the minimum seconds on 1 and 2 threads.
#[derive(Debug, Clone, PartialEq)]
struct Blas {
    flops: f64,
    seconds: [std::result::Result<f64, String>; 2],
}

/// The compiler that runs Polly and the flags that turn it on.
#[derive(Debug, Clone)]
struct Polly {
    cc: String,
    /// Flags that load the plugin, empty where Polly is linked into clang.
    load: Vec<String>,
}

impl Polly {
    /// The flags of a Polly build, sequential or parallel.
    fn flags(&self, parallel: bool) -> Vec<String> {
        let mut flags: Vec<String> = GCC_FLAGS.iter().map(|s| s.to_string()).collect();
        flags.extend(self.load.iter().cloned());
        flags.extend(["-mllvm".to_string(), "-polly".to_string()]);
        if parallel {
            flags.extend(["-mllvm".to_string(), "-polly-parallel".to_string()]);
        }
        flags
    }

    /// The command line, for the report.
    fn describe(&self) -> String {
        format!(
            "{} {} (2T: + -mllvm -polly-parallel, linked with -lgomp)",
            self.cc,
            self.flags(false).join(" ")
        )
    }
}

/// The PolyBench run: the directory, the timing size and the check size.
#[derive(Debug, Clone, PartialEq)]
struct PolyBench {
    dir: PathBuf,
    size: Size,
    check_size: Size,
}

/// The options of one run of the command.
#[derive(Debug)]
struct Options {
    runs: usize,
    install: bool,
    names: Vec<String>,
    /// PolyBench/C instead of the example kernels.
    polybench: Option<PolyBench>,
}

/// Runs `cargo xtask bench polybench [--runs N] [--no-install] [--polybench DIR]
/// [--size S] [--check-size S] [--examples] [kernel...]`.
pub fn run(root: &Path, flags: &[String]) -> Result<()> {
    let options = options(flags, polybench_suite::from_env())?;
    let (jobs, out, gemm_shape, suite_size) = match &options.polybench {
        None => {
            let manifest_path = root.join("examples/kernels/manifest.txt");
            let text = std::fs::read_to_string(&manifest_path)
                .with_context(|| format!("cannot read {}", manifest_path.display()))?;
            let all = manifest(&text)?;
            let suite_size = all.len();
            let kernels = select(all, &options.names)?;
            let gemm = kernels.iter().find(|k| k.name == "gemm").map(|gemm| {
                match ["NI", "NJ", "NK"].map(|d| define(&gemm.bench_flags, d)) {
                    [Some(ni), Some(nj), Some(nk)] => Ok([ni, nj, nk]),
                    _ => Err("gemm's bench flags do not give NI, NJ and NK".to_string()),
                }
            });
            let kernels_dir = root.join("examples/kernels");
            let jobs: Vec<Job> = kernels
                .iter()
                .map(|k| example_job(&kernels_dir, k))
                .collect();
            (jobs, root.join("target/polybench"), gemm, suite_size)
        }
        Some(pb) => {
            polybench_suite::check_dir(&pb.dir)?;
            let all = polybench_suite::kernels(&pb.dir)?;
            let suite_size = all.len();
            let picked = select_polybench(&pb.dir, all, &options.names)?;
            let jobs: Vec<Job> = picked
                .iter()
                .map(|(name, file)| polybench_job(&pb.dir, name, file, pb.size, pb.check_size))
                .collect();
            let gemm = jobs
                .iter()
                .find(|j| j.name == "gemm")
                .map(|gemm| polybench_gemm_shape(&gemm.source, pb.size));
            (jobs, root.join("target/polybench-real"), gemm, suite_size)
        }
    };
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    if !works(Command::new("gcc").arg("--version")) {
        bail!("gcc is needed (Debian: apt-get install gcc)");
    }

    let pollen = build_pollen(root)?;
    let polly = find_polly(&out, options.install);
    if let Err(reason) = &polly {
        println!("bench: Polly columns skipped: {reason}");
    }
    let blas = gemm_shape.map(|shape| {
        let timed = shape
            .map_err(anyhow::Error::msg)
            .and_then(|shape| time_openblas(root, &out, shape, options.runs, options.install));
        timed.map_err(|e| {
            println!("bench: OpenBLAS comparison skipped: {e:#}");
            format!("{e:#}")
        })
    });

    let mut rows = Vec::new();
    for job in &jobs {
        let shown: Vec<&String> = job
            .flags
            .iter()
            .filter(|f| f.starts_with("-D") && f.as_str() != "-DPOLLEN_TIME")
            .collect();
        println!(
            "bench: {} ({})",
            job.name,
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        );
        rows.push(bench_kernel(
            &out,
            &pollen,
            polly.as_ref().ok(),
            job,
            options.runs,
        ));
    }
    let setting = Setting {
        polybench: options
            .polybench
            .as_ref()
            .map(|pb| (pb.size, pb.check_size)),
        runs: options.runs,
        suite_size,
        polly_ran: polly.is_ok(),
        polly_note: match &polly {
            Ok(p) => format!("Polly: {}", p.describe()),
            Err(reason) => format!("Polly: skipped ({reason})"),
        },
        blas: blas.as_ref().and_then(|b| b.as_ref().ok()),
        blas_note: blas_note(&blas),
    };
    let text = report(&rows, &setting);
    print!("{text}");
    crate::formats::write_reports(&out, &text, csv(&rows), json(&rows, &setting))
}

/// Why the gemm target cannot be judged, when it cannot.
fn blas_note(blas: &Option<std::result::Result<Blas, String>>) -> Option<String> {
    match blas {
        None => Some("gemm is not among the kernels run".to_string()),
        Some(Err(e)) => Some(format!("OpenBLAS skipped: {e}")),
        Some(Ok(_)) => None,
    }
}

/// Reads the command-line options; `env` is `$POLLEN_POLYBENCH`.
fn options(flags: &[String], env: Option<PathBuf>) -> Result<Options> {
    let mut runs = None;
    let mut install = true;
    let mut names = Vec::new();
    let mut dir = None;
    let mut examples = false;
    let (mut size, mut check_size) = (None, None);
    let mut flags = flags.iter();
    while let Some(flag) = flags.next() {
        let mut value = |what: &str| {
            flags
                .next()
                .cloned()
                .with_context(|| format!("`{flag}` needs {what}"))
        };
        match flag.as_str() {
            "--no-install" => install = false,
            "--examples" => examples = true,
            "--runs" => {
                let n = value("a number")?;
                runs =
                    Some(n.parse().ok().filter(|&n| n > 0).with_context(|| {
                        format!("expected a positive number of runs, found `{n}`")
                    })?);
            }
            "--polybench" => dir = Some(PathBuf::from(value("a directory")?)),
            "--size" => size = Some(Size::parse(&value("a size")?)?),
            "--check-size" => check_size = Some(Size::parse(&value("a size")?)?),
            other if other.starts_with('-') => bail!(
                "unknown option `{other}` (known: --runs N, --no-install, --polybench DIR, --size S, --check-size S, --examples)"
            ),
            name => names.push(name.to_string()),
        }
    }
    if examples && dir.is_some() {
        bail!("--examples and --polybench exclude each other");
    }
    let dir = if examples { None } else { dir.or(env) };
    let polybench = match dir {
        Some(dir) => Some(PolyBench {
            dir,
            size: size.unwrap_or(Size::Large),
            check_size: check_size.unwrap_or(Size::Medium),
        }),
        None if size.is_some() || check_size.is_some() => {
            bail!("--size and --check-size need --polybench DIR (or $POLLEN_POLYBENCH)")
        }
        None => None,
    };
    let runs = runs.unwrap_or(if polybench.is_some() {
        DEFAULT_POLYBENCH_RUNS
    } else {
        DEFAULT_RUNS
    });
    Ok(Options {
        runs,
        install,
        names,
        polybench,
    })
}

/// The PolyBench kernels named on the command line, in the order given (each found
/// under `dir`); the whole suite when none is named.
fn select_polybench(
    dir: &Path,
    all: Vec<(String, PathBuf)>,
    names: &[String],
) -> Result<Vec<(String, PathBuf)>> {
    if names.is_empty() {
        return Ok(all);
    }
    names
        .iter()
        .map(|name| {
            let known = all.iter().find(|(n, _)| n == name).map(|(_, f)| f.clone());
            match known.or_else(|| polybench_suite::find_kernel(dir, name)) {
                Some(file) => Ok((name.clone(), file)),
                None => bail!("no {name}/{name}.c under {}", dir.display()),
            }
        })
        .collect()
}

/// The `NI`, `NJ`, `NK` that PolyBench's `gemm.h` (next to `gemm.c`) defines for `size`.
fn polybench_gemm_shape(gemm: &Path, size: Size) -> std::result::Result<[u64; 3], String> {
    let header = gemm.with_file_name("gemm.h");
    let text = std::fs::read_to_string(&header)
        .map_err(|e| format!("cannot read {}: {e}", header.display()))?;
    let defines = polybench_suite::size_defines(&text, size.dataset());
    let get = |d: &str| defines.iter().find(|(n, _)| n == d).map(|(_, v)| *v);
    match [get("NI"), get("NJ"), get("NK")] {
        [Some(ni), Some(nj), Some(nk)] => Ok([ni, nj, nk]),
        _ => Err(format!(
            "{} does not define NI, NJ and NK for {}",
            header.display(),
            size.dataset()
        )),
    }
}

/// The kernels of a manifest (`name category test-flags bench-flags [# comment]`), in
/// order.
fn manifest(text: &str) -> Result<Vec<Kernel>> {
    let mut kernels = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split_once('#').map_or(line, |(code, _)| code).trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, category, _test, bench] = fields[..] else {
            bail!(
                "manifest line {}: expected 4 fields (name category test-flags bench-flags), found {}",
                number + 1,
                fields.len()
            );
        };
        kernels.push(Kernel {
            name: name.to_string(),
            category: category.to_string(),
            bench_flags: flag_list(bench),
        });
    }
    Ok(kernels)
}

/// A comma-separated flag field; `-` is none.
pub(crate) fn flag_list(field: &str) -> Vec<String> {
    if field == "-" {
        return Vec::new();
    }
    field
        .split(',')
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect()
}

/// The kernels named on the command line, in the order given; all when none is named.
fn select(kernels: Vec<Kernel>, names: &[String]) -> Result<Vec<Kernel>> {
    if names.is_empty() {
        return Ok(kernels);
    }
    names
        .iter()
        .map(|name| {
            kernels
                .iter()
                .find(|k| &k.name == name)
                .cloned()
                .with_context(|| format!("no kernel `{name}` in examples/kernels/manifest.txt"))
        })
        .collect()
}

/// The value of `-DNAME=value` among the flags.
pub(crate) fn define(flags: &[String], name: &str) -> Option<u64> {
    flags.iter().find_map(|f| {
        f.strip_prefix("-D")?
            .strip_prefix(name)?
            .strip_prefix('=')?
            .parse()
            .ok()
    })
}

/// Builds `pollen` in release mode; returns the executable.
pub(crate) fn build_pollen(root: &Path) -> Result<PathBuf> {
    println!("bench: building pollen (release)");
    let status = Command::new(cargo())
        .args(["build", "--release", "--quiet", "-p", "pollen-cli"])
        .current_dir(root)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("building pollen failed");
    }
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => std::env::current_dir()?.join(dir),
        None => root.join("target"),
    };
    let pollen = target.join("release/pollen");
    if !pollen.exists() {
        bail!("no pollen executable at {}", pollen.display());
    }
    Ok(pollen)
}

/// Whether a command runs and succeeds (its output discarded).
pub(crate) fn works(cmd: &mut Command) -> bool {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Installs Debian packages with `apt-get` (updating the package lists and trying again
/// once on failure); fails with the reason when that is impossible.
pub(crate) fn apt_install(packages: &[&str], install: bool) -> std::result::Result<(), String> {
    if !install {
        return Err(format!(
            "--no-install given; install them with `apt-get install {}`",
            packages.join(" ")
        ));
    }
    if !works(Command::new("apt-get").arg("--version")) {
        return Err(format!("no apt-get to install {}", packages.join(" ")));
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        return Err(format!(
            "not root; install them with `sudo apt-get install {}`",
            packages.join(" ")
        ));
    }
    println!(
        "bench: installing {} (apt-get install -y --no-install-recommends)",
        packages.join(" ")
    );
    let attempt = || {
        works(
            Command::new("apt-get")
                .args(["install", "-y", "--no-install-recommends", "-q"])
                .args(packages)
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )
    };
    if attempt() {
        return Ok(());
    }
    println!("bench: apt-get install failed; updating the package lists and trying again");
    if works(Command::new("apt-get").args(["update", "-q"])) && attempt() {
        return Ok(());
    }
    Err(format!("`apt-get install {}` failed", packages.join(" ")))
}

/// The clang names tried for Polly, the newest first (the peer figures are clang 19's),
/// then the distribution's default.
const CLANGS: &[&str] = &[
    "clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14", "clang",
];

/// A clang that runs Polly, parallel code included; installs clang when none is found.
fn find_polly(out: &Path, install: bool) -> std::result::Result<Polly, String> {
    if let Some(p) = probe_clangs(out) {
        return Ok(p);
    }
    let clang_there = CLANGS
        .iter()
        .any(|cc| works(Command::new(cc).arg("--version")));
    if !clang_there {
        apt_install(&["clang"], install)?;
        if let Some(p) = probe_clangs(out) {
            return Ok(p);
        }
    }
    let version = CLANGS.iter().find_map(|cc| {
        let o = Command::new(cc).arg("-dumpversion").output().ok()?;
        let v = String::from_utf8_lossy(&o.stdout).trim().to_string();
        Some(v.split('.').next()?.to_string()).filter(|m| !m.is_empty())
    });
    let Some(version) = version else {
        return Err("no clang found after installing it".to_string());
    };
    apt_install(&[&format!("libpolly-{version}-dev")], install)?;
    probe_clangs(out).ok_or_else(|| {
        format!("clang {version} does not run Polly (-mllvm -polly, nor with LLVMPolly.so)")
    })
}

/// The first clang of [`CLANGS`] that builds and links a loop with Polly's parallel code
/// generation, trying the plugin when Polly is not built in.
fn probe_clangs(out: &Path) -> Option<Polly> {
    let source = out.join("polly-probe.c");
    let program = "double a[64][64];\nint main(void) {\n  for (int i = 0; i < 64; i++)\n    for (int j = 0; j < 64; j++)\n      a[i][j] = i * j;\n  return a[3][5] != 15.0;\n}\n";
    std::fs::write(&source, program).ok()?;
    for cc in CLANGS {
        if !works(Command::new(cc).arg("--version")) {
            continue;
        }
        let mut loads = vec![Vec::new()];
        if let Some(plugin) = polly_plugin(cc) {
            loads.push(vec![format!("-fpass-plugin={plugin}")]);
            loads.push(
                ["-Xclang", "-load", "-Xclang", &plugin]
                    .map(String::from)
                    .to_vec(),
            );
        }
        for load in loads {
            let polly = Polly {
                cc: cc.to_string(),
                load,
            };
            let exe = out.join("polly-probe");
            let built = works(
                Command::new(cc)
                    .args(polly.flags(true))
                    .arg(&source)
                    .arg("-o")
                    .arg(&exe)
                    .arg("-lgomp"),
            );
            if built && works(&mut Command::new(&exe)) {
                return Some(polly);
            }
        }
    }
    None
}

/// `LLVMPolly.so` of the LLVM that a clang belongs to, when it exists: two levels above
/// clang's resource directory (`<llvm>/lib/clang/<version>`).
fn polly_plugin(cc: &str) -> Option<String> {
    let o = Command::new(cc).arg("-print-resource-dir").output().ok()?;
    let resource = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    let plugin = resource.parent()?.parent()?.join("LLVMPolly.so");
    plugin
        .exists()
        .then(|| plugin.to_string_lossy().into_owned())
}

/// Builds `c_file` into `exe` with gcc: `flags`, the headers of `include`, the `-D`
/// size flags `sizes` and the maths library; `what` names the build in an error.
pub(crate) fn gcc_build(
    flags: &[&str],
    include: &Path,
    sizes: &[String],
    c_file: &Path,
    exe: &Path,
    what: &str,
) -> std::result::Result<(), String> {
    let mut cmd = Command::new("gcc");
    cmd.args(flags)
        .arg("-I")
        .arg(include)
        .args(sizes)
        .arg(c_file)
        .arg("-o")
        .arg(exe)
        .arg("-lm");
    compile(cmd, what)
}

/// Runs a compiler, failing with its diagnostics' first lines.
pub(crate) fn compile(mut cmd: Command, what: &str) -> std::result::Result<(), String> {
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if o.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&o.stderr);
    let first: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect();
    Err(format!("{what} failed: {}", first.join(" / ")))
}

/// One run's standard output and standard error.
fn run_once(exe: &Path, env: &[(&str, String)]) -> std::result::Result<(String, String), String> {
    let mut cmd = Command::new(exe);
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    run_logged(cmd, exe)
}

/// Runs a command to its end, or kills it after [`RUN_LIMIT`], with its standard output
/// and standard error going to `logs` with the extensions `stdout` and `stderr`; returns
/// both, or why it failed (the first line of its standard error for a failure status).
pub(crate) fn run_logged(
    mut cmd: Command,
    logs: &Path,
) -> std::result::Result<(String, String), String> {
    let stdout_path = logs.with_extension("stdout");
    let stderr_path = logs.with_extension("stderr");
    let open =
        |p: &Path| File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()));
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .stdout(open(&stdout_path)?)
        .stderr(open(&stderr_path)?)
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > RUN_LIMIT => {
                // The child may have exited meanwhile; either way it is reaped below.
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", RUN_LIMIT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for {program}: {e}")),
        }
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    if !status.success() {
        let first = stderr.lines().next().unwrap_or("");
        return Err(format!("exited with {status}: {first}"));
    }
    Ok((stdout, stderr))
}

/// The seconds of the last `time <seconds>` line.
fn kernel_time(stderr: &str) -> Option<f64> {
    stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("time ")?.trim().parse().ok())
        .next_back()
}

/// The times of `runs` runs and every run's standard output.
fn time_runs(
    exe: &Path,
    threads: usize,
    extra_env: &[(&str, String)],
    runs: usize,
    timer: Timer,
) -> std::result::Result<(Times, Vec<String>), String> {
    let mut env = vec![("OMP_NUM_THREADS", threads.to_string())];
    env.extend(extra_env.iter().cloned());
    let mut seconds = Vec::new();
    let mut outputs = Vec::new();
    for _ in 0..runs {
        let (stdout, stderr) = run_once(exe, &env)?;
        seconds.push(timer.read(&stdout, &stderr).ok_or(timer.missing())?);
        outputs.push(stdout);
    }
    Times::of(&seconds)
        .map(|t| (t, outputs))
        .ok_or_else(|| "no run".to_string())
}

/// The arrays a check build dumps (its standard error), run once on `threads` threads.
fn check_run(exe: &Path, threads: usize) -> std::result::Result<String, String> {
    run_once(exe, &[("OMP_NUM_THREADS", threads.to_string())]).map(|(_, stderr)| stderr)
}

/// Compares a variant's output (checksum lines `name value`, or PolyBench's dumped
/// arrays) with the original's, word by word: the same text, every number within a
/// relative difference of [`CLOSE`] and every other word the same, or a mismatch.
fn compare(original: &str, variant: &str) -> Check {
    if original == variant {
        return Check::Same;
    }
    let a: Vec<&str> = original.split_whitespace().collect();
    let b: Vec<&str> = variant.split_whitespace().collect();
    if a.is_empty() || a.len() != b.len() {
        return Check::Mismatch;
    }
    let close = a.iter().zip(&b).all(|(x, y)| {
        if x == y {
            return true;
        }
        match (x.parse::<f64>(), y.parse::<f64>()) {
            (Ok(x), Ok(y)) if x.is_finite() && y.is_finite() => {
                (x - y).abs() <= CLOSE * x.abs().max(y.abs()).max(f64::MIN_POSITIVE)
            }
            _ => false,
        }
    });
    if close {
        Check::Close
    } else {
        Check::Mismatch
    }
}

/// One build of a kernel: the timed executable and, where the job has them, the check
/// build's.
struct Built {
    timed: PathBuf,
    check: Option<PathBuf>,
}

/// A compiler command: `cc` with `cflags`, the job's timed or check flags, `source`, the
/// job's further files, `-o exe`, `-lm` and `libs`.
fn build_command(
    cc: &str,
    cflags: &[String],
    job: &Job,
    check: bool,
    source: &Path,
    exe: &Path,
    libs: &[&str],
) -> Command {
    let mut cmd = Command::new(cc);
    cmd.args(cflags);
    match (&job.check_flags, check) {
        (Some(flags), true) => cmd.args(flags),
        _ => cmd.args(&job.flags),
    };
    cmd.arg(source)
        .args(&job.extra)
        .arg("-o")
        .arg(exe)
        .arg("-lm")
        .args(libs);
    cmd
}

/// Builds `source` into `dir/file` and, where the job has check builds, into
/// `dir/file-check`.
fn build_twice(
    dir: &Path,
    file: &str,
    what: &str,
    job: &Job,
    make: impl Fn(bool, &Path) -> Command,
) -> std::result::Result<Built, String> {
    let timed = dir.join(file);
    compile(make(false, &timed), what)?;
    let check = match job.check_flags {
        Some(_) => {
            let check = dir.join(format!("{file}-check"));
            compile(make(true, &check), &format!("{what}, check build"))?;
            Some(check)
        }
        None => None,
    };
    Ok(Built { timed, check })
}

/// Builds and times every variant of one kernel.
fn bench_kernel(out: &Path, pollen: &Path, polly: Option<&Polly>, job: &Job, runs: usize) -> Row {
    let dir = out.join(&job.name);
    let mut row = Row {
        kernel: job.name.clone(),
        original: Err(String::new()),
        variants: Variant::ALL.map(|_| Outcome::Skipped),
        opt_seconds: None,
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        row.original = Err(format!("cannot create {}: {e}", dir.display()));
        return row;
    }
    let gcc_flags = |openmp: bool| {
        let mut flags: Vec<String> = GCC_FLAGS.iter().map(|s| s.to_string()).collect();
        if openmp {
            flags.push("-fopenmp".to_string());
        }
        flags
    };

    let original = build_twice(&dir, "original", "gcc (original)", job, |check, exe| {
        build_command("gcc", &gcc_flags(false), job, check, &job.source, exe, &[])
    })
    .and_then(|built| {
        let (times, outputs) = time_runs(&built.timed, 1, &[], runs, job.timer)?;
        let reference = match &built.check {
            None => {
                if outputs.iter().any(|o| *o != outputs[0]) {
                    return Err("the original prints different checksums from run to run".into());
                }
                outputs[0].clone()
            }
            Some(check) => {
                let dump = check_run(check, 1).map_err(|e| format!("check run: {e}"))?;
                if dump.trim().is_empty() {
                    return Err("the check build printed no arrays".into());
                }
                dump
            }
        };
        Ok((times, reference, built.timed))
    });
    let (mut base, reference, original_exe) = match original {
        Ok(r) => r,
        Err(e) => {
            row.original = Err(e);
            return row;
        }
    };
    let runs = if base.min < SHORT_SECONDS && runs < SHORT_RUNS {
        match time_runs(&original_exe, 1, &[], SHORT_RUNS - runs, job.timer) {
            Ok((more, _)) => {
                base = Times {
                    min: base.min.min(more.min),
                    max: base.max.max(more.max),
                };
                SHORT_RUNS
            }
            Err(e) => {
                row.original = Err(e);
                return row;
            }
        }
    } else {
        runs
    };
    row.original = Ok(base);
    println!(
        "  original      {:>9} s  ({})",
        seconds_text(base.min),
        spread_text(base)
    );

    let optimized = dir.join(format!("{}.pollen.c", job.name));
    let started = Instant::now();
    let opt = compile(
        {
            let mut cmd = Command::new(pollen);
            cmd.arg("opt").arg(&job.source).arg("-o").arg(&optimized);
            cmd
        },
        "pollen opt",
    );
    if opt.is_ok() {
        row.opt_seconds = Some(started.elapsed().as_secs_f64());
    }
    let pollen_built = opt.and_then(|()| {
        build_twice(
            &dir,
            Variant::Pollen1.file(),
            "gcc -fopenmp (Pollen)",
            job,
            |check, exe| build_command("gcc", &gcc_flags(true), job, check, &optimized, exe, &[]),
        )
    });

    let polly_built = polly.map(|p| {
        [false, true].map(|parallel| {
            let variant = if parallel {
                Variant::PollyParallel
            } else {
                Variant::Polly
            };
            let libs: &[&str] = if parallel { &["-lgomp"] } else { &[] };
            build_twice(
                &dir,
                variant.file(),
                &format!("{} (Polly)", p.cc),
                job,
                |check, exe| {
                    build_command(
                        &p.cc,
                        &p.flags(parallel),
                        job,
                        check,
                        &job.source,
                        exe,
                        libs,
                    )
                },
            )
        })
    });

    for (slot, variant) in Variant::ALL.into_iter().enumerate() {
        let built = match variant {
            Variant::Pollen1 | Variant::Pollen2 => Some(&pollen_built),
            Variant::Polly => polly_built.as_ref().map(|b| &b[0]),
            Variant::PollyParallel => polly_built.as_ref().map(|b| &b[1]),
        };
        let outcome = match built {
            None => Outcome::Skipped,
            Some(Err(e)) => Outcome::Failed(e.clone()),
            Some(Ok(built)) => run_variant(built, variant.threads(), job, runs, &reference),
        };
        match &outcome {
            Outcome::Timed(t, check) => println!(
                "  {:<13} {:>9} s  ({})  x{:.2}  {check:?}",
                variant.title(),
                seconds_text(t.min),
                spread_text(*t),
                base.min / t.min
            ),
            Outcome::Failed(e) => println!("  {:<13} failed: {e}", variant.title()),
            Outcome::Skipped => {}
        }
        row.variants[slot] = outcome;
    }
    row
}

/// Times one built variant and checks it against the original's `reference` output.
fn run_variant(built: &Built, threads: usize, job: &Job, runs: usize, reference: &str) -> Outcome {
    let (times, outputs) = match time_runs(&built.timed, threads, &[], runs, job.timer) {
        Ok(r) => r,
        Err(e) => return Outcome::Failed(e),
    };
    let check = match &built.check {
        // The worst run counts: a race may show in some runs only.
        None => outputs
            .iter()
            .map(|o| compare(reference, o))
            .max()
            .unwrap_or(Check::Mismatch),
        Some(check) => match check_run(check, threads) {
            Ok(dump) => compare(reference, &dump),
            Err(e) => return Outcome::Failed(format!("check run: {e}")),
        },
    };
    Outcome::Timed(times, check)
}

/// Builds and times `benches/polybench/dgemm_openblas.c` on gemm's shape (`NI`, `NJ`,
/// `NK`), 1 and 2 threads; installs `libopenblas-dev` when it does not build.
fn time_openblas(
    root: &Path,
    out: &Path,
    [ni, nj, nk]: [u64; 3],
    runs: usize,
    install: bool,
) -> Result<Blas> {
    let exe = out.join("dgemm-openblas");
    let build = || {
        let mut cmd = Command::new("gcc");
        cmd.args(GCC_FLAGS)
            .args([
                format!("-DNI={ni}"),
                format!("-DNJ={nj}"),
                format!("-DNK={nk}"),
            ])
            .arg(root.join("benches/polybench/dgemm_openblas.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-lopenblas");
        compile(cmd, "gcc (OpenBLAS dgemm)")
    };
    if let Err(first) = build() {
        println!("bench: the OpenBLAS dgemm program does not build ({first})");
        apt_install(&["libopenblas-dev"], install).map_err(anyhow::Error::msg)?;
        build().map_err(anyhow::Error::msg)?;
    }
    println!("bench: OpenBLAS dgemm, {ni} x {nj} x {nk}");
    let seconds = [1, 2].map(|threads| {
        let r = time_runs(
            &exe,
            threads,
            &[("OPENBLAS_NUM_THREADS", threads.to_string())],
            runs,
            Timer::Stderr,
        )
        .map(|(t, _)| t.min);
        match &r {
            Ok(s) => println!("  {threads} thread(s)   {s:>9.3} s"),
            Err(e) => println!("  {threads} thread(s)   failed: {e}"),
        }
        r
    });
    Ok(Blas {
        flops: 2.0 * (ni * nj * nk) as f64,
        seconds,
    })
}

/// The geometric mean of positive values (`None` for none).
pub(crate) fn geomean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let log_sum: f64 = values.iter().map(|v| v.ln()).sum();
    Some((log_sum / values.len() as f64).exp())
}

/// A variant's speedup over the original, when it ran correctly.
fn speedup(row: &Row, slot: usize) -> Option<f64> {
    match (&row.original, &row.variants[slot]) {
        (Ok(base), Outcome::Timed(t, Check::Same | Check::Close)) if t.min > 0.0 => {
            Some(base.min / t.min)
        }
        _ => None,
    }
}

/// What the report says besides the rows.
struct Setting<'a> {
    /// PolyBench's timing and check sizes; `None` for the example kernels.
    polybench: Option<(Size, Size)>,
    runs: usize,
    /// How many kernels the whole suite has.
    suite_size: usize,
    polly_ran: bool,
    polly_note: String,
    blas: Option<&'a Blas>,
    blas_note: Option<String>,
}

/// The verdict of a row's checks: `ok`, `ok (close)`, `MISMATCH: <variants>` or `-`.
fn status(row: &Row) -> String {
    let wrong: Vec<&str> = Variant::ALL
        .iter()
        .zip(&row.variants)
        .filter(|(_, o)| matches!(o, Outcome::Timed(_, Check::Mismatch)))
        .map(|(v, _)| v.title())
        .collect();
    if !wrong.is_empty() {
        format!("MISMATCH: {}", wrong.join(", "))
    } else if row.original.is_err() {
        "-".to_string()
    } else if row
        .variants
        .iter()
        .any(|o| matches!(o, Outcome::Timed(_, Check::Close)))
    {
        "ok (close)".to_string()
    } else {
        "ok".to_string()
    }
}

/// A row's failed steps, `kernel (build): message`.
fn failures(row: &Row) -> Vec<String> {
    let mut failures = Vec::new();
    if let Err(e) = &row.original {
        failures.push(format!("{} (original): {e}", row.kernel));
    }
    for (v, outcome) in Variant::ALL.iter().zip(&row.variants) {
        if let Outcome::Failed(e) = outcome {
            failures.push(format!("{} ({}): {e}", row.kernel, v.title()));
        }
    }
    failures
}

/// The table, the geometric means and the targets.
fn report(rows: &[Row], s: &Setting) -> String {
    let spread = s.polybench.is_some();
    let mut out = match s.polybench {
        None => {
            String::from("\nspeedups over gcc -O3 -march=native (kernel time, min of the runs)\n")
        }
        Some((size, check)) => format!(
            "\nPolyBench/C 4.2.1 at {}, min of {} runs; +N%: the slowest run over the fastest, minus 1\n\
             speedups over gcc -O3 -march=native (kernel time); arrays checked at {} (-DPOLYBENCH_DUMP_ARRAYS -ffp-contract=off)\n",
            size.name().to_uppercase(),
            s.runs,
            check.name().to_uppercase()
        ),
    };
    let width = if spread { 14 } else { 10 };
    let _ = write!(out, "{:<16} {:>width$}", "kernel", "gcc -O3 s");
    for v in Variant::ALL {
        let _ = write!(out, " {:>width$}", v.title());
    }
    out.push_str(if spread {
        "  arrays\n"
    } else {
        "  checksums\n"
    });
    for row in rows {
        let base = match &row.original {
            Ok(t) if spread => format!("{} {}", seconds_text(t.min), spread_text(*t)),
            Ok(t) => format!("{:.3}", t.min),
            Err(_) => "error".to_string(),
        };
        let _ = write!(out, "{:<16} {base:>width$}", row.kernel);
        for outcome in &row.variants {
            let cell = match (&row.original, outcome) {
                (Ok(b), Outcome::Timed(t, check)) => {
                    let mark = if *check == Check::Mismatch { "!" } else { "" };
                    if spread {
                        format!("{:.2}{mark} {}", b.min / t.min, spread_text(*t))
                    } else {
                        format!("{:.2}{mark}", b.min / t.min)
                    }
                }
                (_, Outcome::Failed(_)) => "error".to_string(),
                _ => "-".to_string(),
            };
            let _ = write!(out, " {cell:>width$}");
        }
        let _ = writeln!(out, "  {}", status(row));
    }
    let _ = write!(out, "{:<16} {:>width$}", "geomean", "");
    for slot in 0..Variant::ALL.len() {
        let values: Vec<f64> = rows.iter().filter_map(|r| speedup(r, slot)).collect();
        let cell = geomean(&values).map_or("-".to_string(), |g| format!("{g:.2}"));
        let _ = write!(out, " {cell:>width$}");
    }
    out.push_str("  (over the kernels each ran correctly)\n");
    out.push_str(if spread {
        "\"!\": arrays differ from the original's (left out of the geomean)\n"
    } else {
        "\"!\": checksums differ from the original's (left out of the geomean)\n"
    });
    let _ = writeln!(out, "{}", s.polly_note);
    let failures: Vec<String> = rows.iter().flat_map(failures).collect();
    if !failures.is_empty() {
        out.push_str("\nfailures:\n");
        for f in &failures {
            let _ = writeln!(out, "  {f}");
        }
    }
    out.push('\n');
    if spread {
        let _ = writeln!(out, "{}", opt_total(rows));
        let _ = writeln!(out, "{}", opt_target(rows, s.suite_size));
    }
    let _ = writeln!(out, "{}", polly_target(rows, s.polly_ran));
    let _ = writeln!(out, "{}", gemm_target(rows, s.blas, s.blas_note.clone()));
    out
}

/// The sum of the `pollen opt` wall times.
fn opt_total(rows: &[Row]) -> String {
    let times: Vec<f64> = rows.iter().filter_map(|r| r.opt_seconds).collect();
    format!(
        "pollen opt: {:.3} s over {} kernels (wall time of each call, summed)",
        times.iter().sum::<f64>(),
        times.len()
    )
}

/// The `pollen opt` target: the whole suite optimized in less than [`OPT_TARGET`]
/// seconds.
fn opt_target(rows: &[Row], suite_size: usize) -> String {
    let head = format!("target: the whole suite optimized by pollen opt in < {OPT_TARGET:.0} s");
    let total: f64 = rows.iter().filter_map(|r| r.opt_seconds).sum();
    let optimized = rows.iter().filter(|r| r.opt_seconds.is_some()).count();
    let failed: Vec<&str> = rows
        .iter()
        .filter(|r| r.original.is_ok() && r.opt_seconds.is_none())
        .map(|r| r.kernel.as_str())
        .collect();
    if !failed.is_empty() {
        return format!(
            "{head}: NOT met (pollen opt failed on: {})",
            failed.join(", ")
        );
    }
    if total >= OPT_TARGET {
        return format!("{head}: {total:.2} s over {optimized} kernels: NOT met");
    }
    if optimized < suite_size {
        return format!(
            "{head}: cannot be judged ({optimized} of the {suite_size} kernels optimized)"
        );
    }
    format!("{head}: {total:.2} s: met")
}

/// The Polly target: Pollen on 2 threads at least Polly on 2 threads, geomean over the
/// kernels both ran correctly, with no wrong or failed Pollen kernel.
fn polly_target(rows: &[Row], polly_ran: bool) -> String {
    let (pollen, polly) = (1, 3);
    let head = "target: Pollen 2T geomean speedup >= Polly 2T";
    if !polly_ran {
        return format!("{head}: cannot be judged (Polly did not run)");
    }
    let bad: Vec<&str> = rows
        .iter()
        .filter(|r| r.original.is_ok() && speedup(r, pollen).is_none())
        .map(|r| r.kernel.as_str())
        .collect();
    let pairs: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((speedup(r, pollen)?, speedup(r, polly)?)))
        .collect();
    let means = (
        geomean(&pairs.iter().map(|p| p.0).collect::<Vec<_>>()),
        geomean(&pairs.iter().map(|p| p.1).collect::<Vec<_>>()),
    );
    let mut line = match means {
        (Some(a), Some(b)) => format!(
            "{head}: {a:.2} vs {b:.2} over {} kernels: {}",
            pairs.len(),
            if bad.is_empty() && a >= b {
                "met"
            } else {
                "NOT met"
            }
        ),
        _ if bad.is_empty() => {
            return format!("{head}: cannot be judged (no kernel ran correctly under both)")
        }
        _ => format!("{head}: NOT met"),
    };
    if !bad.is_empty() {
        line.push_str(&format!(" (Pollen wrong or failed on: {})", bad.join(", ")));
    }
    line
}

/// The gemm target: Pollen's gemm on 2 threads at least 40% of OpenBLAS on 2 threads.
fn gemm_target(rows: &[Row], blas: Option<&Blas>, note: Option<String>) -> String {
    let head = format!(
        "target: Pollen gemm 2T >= {:.0}% of OpenBLAS dgemm 2T GFLOP/s",
        GEMM_TARGET * 100.0
    );
    let Some(blas) = blas else {
        return format!(
            "{head}: cannot be judged ({})",
            note.unwrap_or_else(|| "no OpenBLAS result".to_string())
        );
    };
    let gflops = |s: f64| blas.flops / s / 1e9;
    let gemm = rows.iter().find(|r| r.kernel == "gemm");
    let mut out = String::new();
    for (slot, threads) in [(0, 1), (1, 2)] {
        let pollen = gemm.and_then(|r| speedup(r, slot).map(|_| &r.variants[slot]));
        let pollen = match pollen {
            Some(Outcome::Timed(t, _)) => Some(gflops(t.min)),
            _ => None,
        };
        let blas = blas.seconds[threads - 1].as_ref().ok().map(|s| gflops(*s));
        let shown = |g: Option<f64>| g.map_or("-".to_string(), |g| format!("{g:.2}"));
        out.push_str(&format!(
            "gemm {threads}T: Pollen {} GFLOP/s, OpenBLAS {} GFLOP/s",
            shown(pollen),
            shown(blas)
        ));
        if let (Some(p), Some(b)) = (pollen, blas) {
            out.push_str(&format!(" ({:.0}%)", 100.0 * p / b));
            if threads == 2 {
                let met = p >= GEMM_TARGET * b;
                out.push_str(&format!(
                    "\n{head}: {}",
                    if met { "met" } else { "NOT met" }
                ));
            }
        } else if threads == 2 {
            out.push_str(&format!(
                "\n{head}: cannot be judged (no correct Pollen or OpenBLAS time)"
            ));
        }
        out.push('\n');
    }
    out.pop();
    out
}

/// The results as CSV: one line per kernel, times in seconds (the fastest and the slowest
/// run), empty where none.
fn csv(rows: &[Row]) -> String {
    let mut header = vec!["kernel".to_string(), "gcc_s".into(), "gcc_max_s".into()];
    for v in Variant::ALL {
        for column in ["s", "max_s", "speedup", "check"] {
            header.push(format!("{}_{column}", v.key()));
        }
    }
    header.extend(["pollen_opt_s".to_string(), "check".into(), "errors".into()]);
    let mut out = header.join(",");
    out.push('\n');
    let seconds = |s: f64| format!("{s:.6}");
    for row in rows {
        let mut fields = vec![row.kernel.clone()];
        match &row.original {
            Ok(t) => fields.extend([seconds(t.min), seconds(t.max)]),
            Err(_) => fields.extend([String::new(), String::new()]),
        }
        for (slot, outcome) in row.variants.iter().enumerate() {
            match outcome {
                Outcome::Timed(t, check) => fields.extend([
                    seconds(t.min),
                    seconds(t.max),
                    speedup(row, slot).map_or(String::new(), |s| format!("{s:.4}")),
                    check.name().to_string(),
                ]),
                _ => fields.extend([String::new(), String::new(), String::new(), String::new()]),
            }
        }
        fields.push(row.opt_seconds.map_or(String::new(), seconds));
        fields.push(status(row));
        fields.push(failures(row).join("; "));
        let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// One build's times as a JSON object, with its check and speedup for a variant.
fn json_outcome(outcome: &Outcome, speedup: Option<f64>) -> String {
    match outcome {
        Outcome::Timed(t, check) => format!(
            "{{\"status\": \"timed\", \"seconds\": {}, \"max_seconds\": {}, \"check\": \"{}\", \"speedup\": {}}}",
            json_number(Some(t.min)),
            json_number(Some(t.max)),
            check.name(),
            json_number(speedup)
        ),
        Outcome::Failed(e) => format!("{{\"status\": \"failed\", \"error\": {}}}", json_string(e)),
        Outcome::Skipped => "{\"status\": \"skipped\"}".to_string(),
    }
}

/// The results as JSON.
fn json(rows: &[Row], s: &Setting) -> String {
    let size = |size: Option<Size>| size.map_or("null".to_string(), |z| json_string(z.name()));
    let mut out = format!(
        "{{\n  \"suite\": \"{}\",\n  \"size\": {},\n  \"check_size\": {},\n  \"runs\": {},\n  \"tolerance\": {CLOSE:e},\n  \"kernels\": [",
        if s.polybench.is_some() { "polybench" } else { "examples" },
        size(s.polybench.map(|p| p.0)),
        size(s.polybench.map(|p| p.1)),
        s.runs
    );
    for (k, row) in rows.iter().enumerate() {
        out.push_str(if k == 0 { "\n" } else { ",\n" });
        let gcc = match &row.original {
            Ok(t) => format!(
                "{{\"status\": \"timed\", \"seconds\": {}, \"max_seconds\": {}}}",
                json_number(Some(t.min)),
                json_number(Some(t.max))
            ),
            Err(e) => format!("{{\"status\": \"failed\", \"error\": {}}}", json_string(e)),
        };
        let _ = write!(
            out,
            "    {{\"kernel\": {}, \"gcc\": {gcc}",
            json_string(&row.kernel)
        );
        for (slot, v) in Variant::ALL.into_iter().enumerate() {
            let _ = write!(
                out,
                ", \"{}\": {}",
                v.key(),
                json_outcome(&row.variants[slot], speedup(row, slot))
            );
        }
        let _ = write!(
            out,
            ", \"pollen_opt_seconds\": {}, \"check\": {}}}",
            json_number(row.opt_seconds),
            json_string(&status(row))
        );
    }
    out.push_str("\n  ],\n  \"geomean\": {");
    for (slot, v) in Variant::ALL.into_iter().enumerate() {
        let values: Vec<f64> = rows.iter().filter_map(|r| speedup(r, slot)).collect();
        let _ = write!(
            out,
            "{}\"{}\": {{\"speedup\": {}, \"kernels\": {}}}",
            if slot == 0 { "" } else { ", " },
            v.key(),
            json_number(geomean(&values)),
            values.len()
        );
    }
    let opt: Vec<f64> = rows.iter().filter_map(|r| r.opt_seconds).collect();
    let _ = write!(
        out,
        "}},\n  \"pollen_opt_total_seconds\": {},\n  \"pollen_opt_kernels\": {},\n  \"targets\": [",
        json_number(Some(opt.iter().sum())),
        opt.len()
    );
    let mut targets = Vec::new();
    if s.polybench.is_some() {
        targets.push(opt_target(rows, s.suite_size));
    }
    targets.push(polly_target(rows, s.polly_ran));
    targets.extend(
        gemm_target(rows, s.blas, s.blas_note.clone())
            .lines()
            .map(str::to_string),
    );
    let targets: Vec<String> = targets.iter().map(|t| json_string(t)).collect();
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
    fn manifest_lines_are_read() {
        let text = "# comment\n\n2mm  linear-algebra/kernels  -  -DNI=16,-DNJ=17  # 3.40s\ngemm blas -DNI=4 -DNI=2000,-DNJ=2100,-DNK=2200\n";
        let k = manifest(text).expect("parses");
        assert_eq!(k.len(), 2);
        assert_eq!(k[0].name, "2mm");
        assert_eq!(k[0].category, "linear-algebra/kernels");
        assert_eq!(k[0].bench_flags, ["-DNI=16", "-DNJ=17"]);
        assert_eq!(define(&k[1].bench_flags, "NJ"), Some(2100));
        assert_eq!(define(&k[1].bench_flags, "N"), None);
        assert!(manifest("gemm blas -\n").is_err());
        assert_eq!(flag_list("-"), Vec::<String>::new());
    }

    #[test]
    fn the_real_manifest_has_thirty_kernels_with_bench_flags() {
        let text = include_str!("../../examples/kernels/manifest.txt");
        let k = manifest(text).expect("parses");
        assert_eq!(k.len(), 30);
        assert!(k.iter().all(|k| !k.bench_flags.is_empty()));
        let picked = select(k.clone(), &["jacobi-2d".into(), "gemm".into()]).expect("known");
        assert_eq!(picked[0].name, "jacobi-2d");
        assert_eq!(picked[1].name, "gemm");
        assert!(select(k, &["nope".into()]).is_err());
    }

    #[test]
    fn options_are_read() {
        let o = options(&strings(&["--runs", "1", "gemm", "--no-install"]), None).expect("valid");
        assert_eq!((o.runs, o.install), (1, false));
        assert_eq!(o.names, ["gemm"]);
        assert_eq!(o.polybench, None);
        assert!(options(&strings(&["--runs", "0"]), None).is_err());
        assert!(options(&strings(&["--fast"]), None).is_err());
        assert!(options(&strings(&["--runs"]), None).is_err());
        // The examples run 3 times by default.
        assert_eq!(options(&[], None).expect("valid").runs, DEFAULT_RUNS);
    }

    #[test]
    fn polybench_options_are_read() {
        let o = options(&strings(&["--polybench", "/pb", "atax", "trisolv"]), None).expect("valid");
        let pb = o.polybench.expect("PolyBench");
        assert_eq!(pb.dir, Path::new("/pb"));
        assert_eq!((pb.size, pb.check_size), (Size::Large, Size::Medium));
        // At least 5 runs on PolyBench by default.
        assert_eq!(o.runs, DEFAULT_POLYBENCH_RUNS);
        assert_eq!(o.names, ["atax", "trisolv"]);

        let o = options(
            &strings(&["--size", "small", "--check-size", "mini", "--runs", "2"]),
            Some(PathBuf::from("/env")),
        )
        .expect("valid");
        let pb = o.polybench.expect("PolyBench from the environment");
        assert_eq!(pb.dir, Path::new("/env"));
        assert_eq!((pb.size, pb.check_size), (Size::Small, Size::Mini));
        assert_eq!(o.runs, 2);

        // --polybench wins over the environment; --examples ignores it.
        let o = options(&strings(&["--polybench", "/pb"]), Some("/env".into())).expect("valid");
        assert_eq!(o.polybench.expect("PolyBench").dir, Path::new("/pb"));
        let o = options(&strings(&["--examples"]), Some("/env".into())).expect("valid");
        assert_eq!((o.polybench, o.runs), (None, DEFAULT_RUNS));
        assert!(options(&strings(&["--examples", "--polybench", "/pb"]), None).is_err());
        // Sizes need PolyBench, and must be known.
        assert!(options(&strings(&["--size", "large"]), None).is_err());
        assert!(options(&strings(&["--check-size", "small"]), None).is_err());
        assert!(options(&strings(&["--polybench", "/pb", "--size", "huge"]), None).is_err());
        assert!(options(&strings(&["--polybench"]), None).is_err());
    }

    #[test]
    fn polybench_jobs_build_with_polybench_c_at_two_sizes() {
        let dir = Path::new("/pb");
        let source = dir.join("linear-algebra/kernels/atax/atax.c");
        let job = polybench_job(dir, "atax", &source, Size::Large, Size::Medium);
        assert_eq!(
            job.flags,
            [
                "-I",
                "/pb/utilities",
                "-I",
                "/pb/linear-algebra/kernels/atax",
                "-DLARGE_DATASET",
                "-DPOLYBENCH_TIME"
            ]
        );
        assert_eq!(
            job.check_flags.as_deref().expect("a check build")[4..],
            [
                "-DMEDIUM_DATASET",
                "-DPOLYBENCH_DUMP_ARRAYS",
                "-ffp-contract=off"
            ]
        );
        assert_eq!(job.extra, [dir.join("utilities/polybench.c")]);
        assert_eq!(job.timer, Timer::StdoutLast);

        let cmd = build_command(
            "gcc",
            &strings(&["-O3"]),
            &job,
            true,
            &source,
            Path::new("/out/original-check"),
            &["-lgomp"],
        );
        let args: Vec<String> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args[0], "-O3");
        assert!(
            args.contains(&"-DPOLYBENCH_DUMP_ARRAYS".to_string()),
            "{args:?}"
        );
        assert!(!args.contains(&"-DPOLYBENCH_TIME".to_string()), "{args:?}");
        assert_eq!(
            args[args.len() - 6..],
            [
                "/pb/linear-algebra/kernels/atax/atax.c",
                "/pb/utilities/polybench.c",
                "-o",
                "/out/original-check",
                "-lm",
                "-lgomp"
            ]
        );

        let example = example_job(
            Path::new("/k"),
            &Kernel {
                name: "gemm".into(),
                category: "blas".into(),
                bench_flags: strings(&["-DNI=4"]),
            },
        );
        assert_eq!(example.flags, ["-DPOLLEN_TIME", "-I", "/k", "-DNI=4"]);
        assert_eq!(example.source, Path::new("/k/gemm.c"));
        assert_eq!((example.check_flags, example.timer), (None, Timer::Stderr));
    }

    #[test]
    fn times_and_checksums_are_read() {
        assert_eq!(kernel_time("warning\ntime 1.500000\n"), Some(1.5));
        assert_eq!(kernel_time("nothing\n"), None);
        assert_eq!(Timer::Stderr.read("", "time 2\n"), Some(2.0));
        assert_eq!(
            Timer::StdoutLast.read("hello\n0.012345\n\n", ""),
            Some(0.012345)
        );
        assert_eq!(Timer::StdoutLast.read("0.5 s\n", ""), None);
        assert_eq!(Timer::StdoutLast.read("", "time 1\n"), None);
        assert_eq!(compare("A 1.5\n", "A 1.5\n"), Check::Same);
        assert_eq!(compare("A 1000000\n", "A 1000000.0001\n"), Check::Close);
        assert_eq!(compare("A 1000000\n", "A 1000100\n"), Check::Mismatch);
        assert_eq!(compare("A 1\nB 2\n", "A 1\n"), Check::Mismatch);
        assert_eq!(compare("A 1\n", "B 1\n"), Check::Mismatch);
        assert_eq!(compare("A nan\n", "A 1\n"), Check::Mismatch);
        assert_eq!(compare("", "A 1\n"), Check::Mismatch);
        // The worst of several runs is kept with `max`.
        assert!(Check::Same < Check::Close && Check::Close < Check::Mismatch);
    }

    #[test]
    fn polybench_dumps_are_compared_number_by_number() {
        let dump = "==BEGIN DUMP_ARRAYS==\nbegin dump: y\n0.00 1.50 \n2500000.25 \nend   dump: y\n==END   DUMP_ARRAYS==\n";
        assert_eq!(compare(dump, dump), Check::Same);
        assert_eq!(
            compare(dump, &dump.replace("2500000.25", "2500000.26")),
            Check::Close
        );
        assert_eq!(
            compare(dump, &dump.replace("1.50", "1.51")),
            Check::Mismatch
        );
        assert_eq!(
            compare(dump, &dump.replace("dump: y", "dump: x")),
            Check::Mismatch
        );
        assert_eq!(compare(dump, &dump.replace("0.00 ", "")), Check::Mismatch);
    }

    #[test]
    fn times_have_a_minimum_and_a_spread() {
        let t = Times::of(&[1.1, 1.0, 1.25]).expect("some");
        assert_eq!((t.min, t.max), (1.0, 1.25));
        assert!((t.spread() - 0.25).abs() < 1e-12);
        assert_eq!(spread_text(t), "+25%");
        assert_eq!(
            spread_text(Times {
                min: 2.0,
                max: 2.05
            }),
            "+2.5%"
        );
        assert_eq!(Times::of(&[]), None);
    }

    fn times(s: f64) -> Times {
        Times { min: s, max: s }
    }

    fn row(kernel: &str, base: f64, outcomes: [Option<(f64, Check)>; 4]) -> Row {
        Row {
            kernel: kernel.to_string(),
            original: Ok(times(base)),
            variants: outcomes.map(|t| match t {
                Some((s, c)) => Outcome::Timed(times(s), c),
                None => Outcome::Failed("boom".to_string()),
            }),
            opt_seconds: Some(0.25),
        }
    }

    fn rows() -> Vec<Row> {
        vec![
            row(
                "gemm",
                4.0,
                [
                    Some((2.0, Check::Same)),
                    Some((1.0, Check::Same)),
                    Some((2.0, Check::Close)),
                    Some((1.0, Check::Same)),
                ],
            ),
            row(
                "lu",
                1.0,
                [
                    Some((1.0, Check::Same)),
                    Some((0.25, Check::Same)),
                    Some((0.5, Check::Mismatch)),
                    None,
                ],
            ),
        ]
    }

    fn setting<'a>(polly_ran: bool, blas: Option<&'a Blas>, note: Option<String>) -> Setting<'a> {
        Setting {
            polybench: None,
            runs: 3,
            suite_size: 30,
            polly_ran,
            polly_note: "Polly: clang".into(),
            blas,
            blas_note: note,
        }
    }

    #[test]
    fn report_has_speedups_geomeans_and_targets() {
        let rows = rows();
        let blas = Blas {
            flops: 8e9,
            seconds: [Ok(1.0), Ok(0.5)],
        };
        let r = report(&rows, &setting(true, Some(&blas), None));
        // gemm: 4/2, 4/1, 4/2, 4/1; lu: 1, 4, 2 (wrong), error.
        assert!(r.contains("gemm                  4.000       2.00       4.00       2.00       4.00  ok (close)"), "{r}");
        assert!(r.contains("2.00!"), "{r}");
        assert!(r.contains("MISMATCH: Polly 1T"), "{r}");
        assert!(r.contains("lu (Polly 2T): boom"), "{r}");
        // Geomeans: sqrt(2*1), sqrt(4*4), only gemm's 2, only gemm's 4.
        assert!(
            r.contains("geomean                           1.41       4.00       2.00       4.00"),
            "{r}"
        );
        // Over gemm alone (lu has no correct Polly 2T): 4 vs 4.
        assert!(
            r.contains("Polly 2T: 4.00 vs 4.00 over 1 kernels: met"),
            "{r}"
        );
        // Pollen gemm 2T: 8 GFLOP/s; OpenBLAS 16: 50%.
        assert!(
            r.contains("gemm 2T: Pollen 8.00 GFLOP/s, OpenBLAS 16.00 GFLOP/s (50%)"),
            "{r}"
        );
        assert!(r.contains("40% of OpenBLAS dgemm 2T GFLOP/s: met"), "{r}");
        // The examples' table has no spreads and no pollen opt target.
        assert!(!r.contains("+0.0%"), "{r}");
        assert!(!r.contains("pollen opt"), "{r}");
        let slow_blas = Blas {
            flops: 8e9,
            seconds: [Ok(1.0), Ok(0.1)],
        };
        let r = report(&rows, &setting(true, Some(&slow_blas), None));
        assert!(r.contains("GFLOP/s: NOT met"), "{r}");
        let r = report(
            &rows,
            &setting(
                false,
                None,
                Some("gemm is not among the kernels run".into()),
            ),
        );
        assert!(r.contains("cannot be judged (Polly did not run)"), "{r}");
        assert!(
            r.contains("cannot be judged (gemm is not among the kernels run)"),
            "{r}"
        );
    }

    #[test]
    fn the_polybench_report_shows_spreads_and_the_pollen_opt_time() {
        let mut rows = rows();
        rows[0].original = Ok(Times { min: 4.0, max: 4.1 });
        rows[0].variants[1] = Outcome::Timed(Times { min: 1.0, max: 1.5 }, Check::Same);
        let mut s = setting(true, None, Some("OpenBLAS skipped: x".into()));
        s.polybench = Some((Size::Large, Size::Medium));
        s.runs = 5;
        let r = report(&rows, &s);
        assert!(
            r.contains("PolyBench/C 4.2.1 at LARGE, min of 5 runs"),
            "{r}"
        );
        assert!(r.contains("arrays checked at MEDIUM"), "{r}");
        assert!(
            r.contains("gemm                4.000 +2.5%     2.00 +0.0%      4.00 +50%     2.00 +0.0%     4.00 +0.0%  ok (close)"),
            "{r}"
        );
        assert!(r.contains("2.00! +0.0%"), "{r}");
        assert!(
            r.contains("pollen opt: 0.500 s over 2 kernels (wall time of each call, summed)"),
            "{r}"
        );
        assert!(
            r.contains("in < 5 s: cannot be judged (2 of the 30 kernels optimized)"),
            "{r}"
        );
        assert!(opt_target(&rows, 2).ends_with("0.50 s: met"));
        rows[1].opt_seconds = Some(4.9);
        assert!(opt_target(&rows, 30).ends_with("5.15 s over 2 kernels: NOT met"));
        rows[1].opt_seconds = None;
        assert!(opt_target(&rows, 2).ends_with("NOT met (pollen opt failed on: lu)"));
    }

    #[test]
    fn csv_and_json_hold_the_same_results() {
        let rows = rows();
        let c = csv(&rows);
        let lines: Vec<&str> = c.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "kernel,gcc_s,gcc_max_s,pollen_1t_s,pollen_1t_max_s,pollen_1t_speedup,pollen_1t_check,pollen_2t_s,pollen_2t_max_s,pollen_2t_speedup,pollen_2t_check,polly_1t_s,polly_1t_max_s,polly_1t_speedup,polly_1t_check,polly_2t_s,polly_2t_max_s,polly_2t_speedup,polly_2t_check,pollen_opt_s,check,errors"
        );
        assert!(
            lines[1].starts_with("gemm,4.000000,4.000000,2.000000,2.000000,2.0000,same,"),
            "{c}"
        );
        assert!(
            lines[2].ends_with(
                ",0.500000,0.500000,,mismatch,,,,,0.250000,MISMATCH: Polly 1T,lu (Polly 2T): boom"
            ),
            "{c}"
        );
        let mut s = setting(true, None, None);
        s.polybench = Some((Size::Large, Size::Medium));
        let j = json(&rows, &s);
        assert!(j.contains("\"suite\": \"polybench\""), "{j}");
        assert!(
            j.contains("\"size\": \"large\",\n  \"check_size\": \"medium\""),
            "{j}"
        );
        assert!(j.contains("\"tolerance\": 1e-6"), "{j}");
        assert!(
            j.contains("\"gcc\": {\"status\": \"timed\", \"seconds\": 4, \"max_seconds\": 4}"),
            "{j}"
        );
        assert!(
            j.contains("\"polly_1t\": {\"status\": \"timed\", \"seconds\": 0.5, \"max_seconds\": 0.5, \"check\": \"mismatch\", \"speedup\": null}"),
            "{j}"
        );
        assert!(
            j.contains("\"polly_2t\": {\"status\": \"failed\", \"error\": \"boom\"}"),
            "{j}"
        );
        assert!(
            j.contains("\"pollen_2t\": {\"speedup\": 4, \"kernels\": 2}"),
            "{j}"
        );
        assert!(j.contains("\"pollen_opt_total_seconds\": 0.5"), "{j}");
        assert!(j.contains("\"target: the whole suite optimized"), "{j}");
        assert!(
            json(&rows, &setting(true, None, None)).contains("\"size\": null"),
            "{j}"
        );
        // Balanced braces and brackets.
        let depth = j.chars().try_fold(0i32, |d, c| {
            let d = match c {
                '{' | '[' => d + 1,
                '}' | ']' => d - 1,
                _ => d,
            };
            (d >= 0).then_some(d)
        });
        assert_eq!(depth, Some(0), "{j}");
    }

    #[test]
    fn a_wrong_pollen_kernel_fails_the_polly_target() {
        let rows = vec![row(
            "gemm",
            4.0,
            [
                Some((1.0, Check::Same)),
                Some((1.0, Check::Mismatch)),
                Some((2.0, Check::Same)),
                Some((2.0, Check::Same)),
            ],
        )];
        let r = polly_target(&rows, true);
        assert!(r.contains("NOT met"), "{r}");
        assert!(r.contains("wrong or failed on: gemm"), "{r}");
    }

    #[test]
    fn geomeans() {
        assert_eq!(geomean(&[]), None);
        let g = geomean(&[2.0, 8.0]).expect("some");
        assert!((g - 4.0).abs() < 1e-12, "{g}");
    }
}
