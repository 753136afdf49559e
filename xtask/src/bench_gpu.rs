//! `cargo xtask bench gpu`: the deep-learning operators of `examples/operators` as Pollen's
//! OpenCL (and CUDA) programs, without constraint injection, with it but without explicit
//! vector types, and with both, timed against each other and against the original on the
//! CPU (the columns isl / novec / infl of the constraint-injection paper's table).
//!
//! For every operator of `examples/operators/manifest.txt` (or those named by `--only`),
//! at the chosen size set (`--size large`, the default, compiles with `-DLARGE_DATASET`;
//! `--size small` uses the programs' test sizes), this command
//! - builds the original with `gcc -O3 -march=native` and runs it: the reference
//!   checksums (standard output) and the CPU time;
//! - writes three variants of the OpenCL program: `plain`,
//!   `pollen opt FILE --target opencl --no-inject -o NAME_plain.c` (the plain GPU mapping);
//!   `novec`, `pollen opt FILE --target opencl --no-vector-types -o NAME_novec.c` (with the
//!   influence constraints of constraint injection, without explicit vector types); and
//!   `infl`, `pollen opt FILE --target opencl -o NAME_infl.c` (injection with explicit
//!   vector types: groups of iterations per thread, loaded and stored as vectors),
//!   compiles each with `gcc -O2 ... -lOpenCL -lm` and runs it on the OpenCL platform the
//!   program picks (PoCL on a machine without a GPU);
//! - with `--cuda`, the same with `--target cuda` into `NAME_plain.cu`, `NAME_novec.cu` and
//!   `NAME_infl.cu`, compiled by `nvcc -O3 -arch=native` and run on the GPU. nvcc is
//!   `--nvcc PATH`, else `$POLLEN_NVCC`, else `nvcc` on the path, else
//!   `/usr/local/cuda/bin/nvcc`. Without a GPU (`nvidia-smi -L` lists none) the `.cu` files
//!   are still compiled (without `-arch`, which needs a GPU to read) but not run, and the
//!   report says so.
//!
//! Every program is run `--runs` times (default 3) with `$POLLEN_KERNEL_TIME` set; its
//! time is the minimum over the runs of the `POLLEN_KERNEL_TIME <seconds>` lines a CUDA
//! program prints then (its kernels alone, timed by CUDA events: the context is created
//! at start-up and the transfers are left out), or else of the `POLLEN_TIME <seconds>`
//! line (the operators' timer around the region: for an OpenCL program, building the
//! kernels and the transfers included), and every run's
//! checksums are compared with the original's: the same text, close (every checksum
//! within a relative [`CLOSE`] of the original's), or a MISMATCH, which the table marks
//! and which counts as a failure. The tolerance is needed: the operators compute in
//! `float`, a GPU's `exp`, `tanh` and `sqrt` differ from glibc's by a few units in the
//! last place, and a mapping that splits a reduction (a row sum, a channel sum, a dot
//! product) adds in another order; the checksums weigh each element by at most 29 and
//! sum in `double`, so these differences stay orders of magnitude below `1e-4`.
//!
//! A step that fails (`pollen opt` refusing an option or an operator, a compiler error, a
//! crash, a timeout) is recorded for that operator and variant and the bench goes on; the
//! failures are listed under the table and make the command exit with a failure.
//!
//! The table: per operator the CPU time, the plain, novec and infl times of each target,
//! the speedups of novec and of infl over plain (`novec/plain` and `infl/plain`: plain
//! time / the variant's time) and the checksum verdict; then, per target, the run-to-run
//! spread of its timed programs (slowest run / fastest run − 1: the median and the
//! largest, with its operator and variant; a ratio below that spread is noise) and the
//! geometric mean of each speedup over the operators both of its variants ran correctly.
//! `--csv FILE` and `--json FILE` write the same results (the JSON also each program's
//! slowest run, `max_seconds`).
//!
//! The pollen executable is `target/release/pollen`, built here with
//! `cargo build --release -p pollen-cli` unless `--pollen PATH` names one or
//! `--skip-build` says it is already built. With `--pollen` (or `--skip-build`) the
//! command needs no cargo and no network: a GPU machine that has a copy of the
//! repository and the built `target/release/pollen` and `target/release/xtask` runs
//! `target/release/xtask bench gpu --cuda --pollen target/release/pollen` from the
//! repository's root. `--no-opencl` leaves the OpenCL columns out (a GPU machine without
//! an OpenCL platform), and `--target-c` is a check of the harness itself: the C/OpenMP
//! output of `pollen opt FILE` (no target option) stands in for every variant, compiled
//! with `gcc -O2 -fopenmp`.
//!
//! Everything built goes to `target/bench-gpu/<size>/<operator>/`; every program runs in
//! that directory. On a machine with both PoCL and a GPU's OpenCL driver, the OpenCL
//! programs run on the platform they pick (the report lists `clinfo -l`'s platforms).

use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::bench_polybench::{compile, geomean, works};
use crate::formats::{csv_field, json_number, json_string};

/// How many times each program runs by default (its time is the minimum).
const DEFAULT_RUNS: usize = 3;

/// The longest one run of a program may take.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// The largest relative difference of a checksum from the original's that still counts
/// as close (see the module's documentation).
pub const CLOSE: f64 = 1e-4;

/// The command line, for `help` and errors.
pub const USAGE: &str = "bench gpu [--size small|large] [--only NAME]... [--runs N] [--cuda] [--nvcc PATH] [--no-opencl] [--pollen PATH] [--skip-build] [--csv FILE] [--json FILE] [--target-c]";

/// The size set of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Size {
    Small,
    Large,
}

impl Size {
    /// The compiler flags that select it.
    fn flags(self) -> &'static [&'static str] {
        match self {
            Size::Small => &[],
            Size::Large => &["-DLARGE_DATASET"],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Large => "large",
        }
    }
}

/// What a program is generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    OpenCl,
    Cuda,
    /// The C/OpenMP output, for checking the harness (`--target-c`).
    C,
}

impl Target {
    /// The column group's title.
    fn title(self) -> &'static str {
        match self {
            Target::OpenCl => "OpenCL",
            Target::Cuda => "CUDA",
            Target::C => "C/OpenMP",
        }
    }

    /// The name in the CSV and JSON files.
    fn key(self) -> &'static str {
        match self {
            Target::OpenCl => "opencl",
            Target::Cuda => "cuda",
            Target::C => "c",
        }
    }

    /// The extension of the generated file.
    fn extension(self) -> &'static str {
        match self {
            Target::OpenCl => "c",
            Target::Cuda => "cu",
            Target::C => "omp.c",
        }
    }

    /// The arguments of `pollen opt` (besides the file and `-o`) for a variant.
    fn pollen_args(self, variant: Variant) -> Vec<&'static str> {
        let mut args = match self {
            Target::OpenCl => vec!["--target", "opencl"],
            Target::Cuda => vec!["--target", "cuda"],
            Target::C => return Vec::new(),
        };
        match variant {
            Variant::Plain => args.push("--no-inject"),
            Variant::NoVector => args.push("--no-vector-types"),
            Variant::Injected => {}
        }
        args
    }
}

/// Without constraint injection, with it but without explicit vector types, or with both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// `--no-inject`.
    Plain,
    /// `--no-vector-types`: injection without explicit vector types.
    NoVector,
    /// The default: injection with explicit vector types.
    Injected,
}

impl Variant {
    /// Every variant, in the order of the columns (and of a row's cells).
    const ALL: [Variant; 3] = [Variant::Plain, Variant::NoVector, Variant::Injected];

    /// The variants whose speedup over [`Variant::Plain`] is reported.
    const COMPARED: [Variant; 2] = [Variant::NoVector, Variant::Injected];

    /// The suffix of its files and its column title.
    fn suffix(self) -> &'static str {
        match self {
            Variant::Plain => "plain",
            Variant::NoVector => "novec",
            Variant::Injected => "infl",
        }
    }

    /// Its place in [`Variant::ALL`] and in a row's cells.
    fn index(self) -> usize {
        self as usize
    }

    /// The title of its speedup column (`novec/plain`, `infl/plain`).
    fn ratio(self) -> String {
        format!("{}/{}", self.suffix(), Variant::Plain.suffix())
    }
}

/// How a program's checksums compare with the original's, from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Check {
    Same,
    Close,
    Mismatch,
}

impl Check {
    fn name(self) -> &'static str {
        match self {
            Check::Same => "same",
            Check::Close => "close",
            Check::Mismatch => "mismatch",
        }
    }
}

/// What became of one variant of one operator.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// The minimum time in seconds, the worst checksum comparison of the runs and the
    /// maximum time (the spread between the two says how noisy the runs were).
    Timed(f64, Check, f64),
    /// Generated and compiled but not run (no GPU).
    Built,
    /// A step failed: the message.
    Failed(String),
    /// Not attempted: the reason is given once for the whole column.
    Skipped,
}

/// An operator's results.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    operator: String,
    family: String,
    /// The original's minimum time on the CPU, or why there is none.
    cpu: std::result::Result<f64, String>,
    /// Per target of the run (in order), the outcomes of the variants in the order of
    /// [`Variant::ALL`].
    cells: Vec<[Outcome; 3]>,
}

impl Row {
    /// A variant's speedup over the plain one (plain time / its time) for the target in
    /// `slot`, when both ran correctly.
    fn speedup(&self, slot: usize, variant: Variant) -> Option<f64> {
        let cells = &self.cells[slot];
        match (&cells[Variant::Plain.index()], &cells[variant.index()]) {
            (Outcome::Timed(p, cp, _), Outcome::Timed(v, cv, _))
                if *v > 0.0 && *cp != Check::Mismatch && *cv != Check::Mismatch =>
            {
                Some(p / v)
            }
            _ => None,
        }
    }
}

/// One line of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Operator {
    name: String,
    family: String,
}

/// The options of one run of the command.
#[derive(Debug)]
struct Options {
    size: Size,
    only: Vec<String>,
    runs: usize,
    cuda: bool,
    opencl: bool,
    nvcc: Option<PathBuf>,
    pollen: Option<PathBuf>,
    skip_build: bool,
    csv: Option<PathBuf>,
    json: Option<PathBuf>,
    target_c: bool,
}

/// How CUDA programs are built and whether they run.
struct Cuda {
    nvcc: PathBuf,
    /// Whether a GPU is there to run them (and `-arch=native` can be used).
    gpu: bool,
}

/// Runs `cargo xtask bench gpu ...`.
pub fn run(root: &Path, flags: &[String]) -> Result<()> {
    let options = options(flags)?;
    let root = find_root(root)?;
    let operators_dir = root.join("examples/operators");
    let manifest_path = operators_dir.join("manifest.txt");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("cannot read {}", manifest_path.display()))?;
    let operators = select(manifest(&text)?, &options.only)?;
    if !works(Command::new("gcc").arg("--version")) {
        bail!("gcc is needed (Debian: apt-get install gcc)");
    }
    let out = target_dir(&root)
        .join("bench-gpu")
        .join(options.size.name());
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let pollen = pollen_executable(&root, &options)?;

    let mut targets = Vec::new();
    let mut notes = Vec::new();
    if options.target_c {
        targets.push(Target::C);
        notes.push(
            "C/OpenMP: harness check, `pollen opt FILE` (no target option) for every variant"
                .to_string(),
        );
    } else if options.opencl {
        targets.push(Target::OpenCl);
        notes.push(format!("OpenCL: {}", opencl_platforms()));
    }
    let mut cuda = None;
    if options.cuda {
        match find_nvcc(options.nvcc.as_deref()) {
            Ok(nvcc) => {
                let gpu = gpu_present();
                notes.push(format!(
                    "CUDA: {} -O3{}",
                    nvcc.display(),
                    if gpu {
                        " -arch=native, run on the GPU".to_string()
                    } else {
                        ": no NVIDIA GPU (nvidia-smi -L lists none), compiled but not run"
                            .to_string()
                    }
                ));
                targets.push(Target::Cuda);
                cuda = Some(Cuda { nvcc, gpu });
            }
            Err(reason) => {
                println!("bench: CUDA skipped: {reason}");
                notes.push(format!("CUDA: skipped ({reason})"));
            }
        }
    }

    let mut rows = Vec::new();
    for operator in &operators {
        println!(
            "bench: {} ({}, {})",
            operator.name,
            operator.family,
            options.size.name()
        );
        let bench = Bench {
            operators_dir: &operators_dir,
            out: &out,
            pollen: &pollen,
            cuda: cuda.as_ref(),
            size: options.size,
            runs: options.runs,
        };
        rows.push(bench.operator(operator, &targets));
    }

    let report = report(&rows, &targets, options.size, options.runs, &notes);
    print!("{report}");
    if let Some(path) = &options.csv {
        std::fs::write(path, csv(&rows, &targets))
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("bench: wrote {}", path.display());
    }
    if let Some(path) = &options.json {
        std::fs::write(path, json(&rows, &targets, options.size, options.runs))
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("bench: wrote {}", path.display());
    }
    let failed = failures(&rows, &targets).len();
    if failed > 0 {
        bail!("{failed} failure(s), listed above the geomeans");
    }
    Ok(())
}

/// Reads the command-line options.
fn options(flags: &[String]) -> Result<Options> {
    let mut options = Options {
        size: Size::Large,
        only: Vec::new(),
        runs: DEFAULT_RUNS,
        cuda: false,
        opencl: true,
        nvcc: None,
        pollen: None,
        skip_build: false,
        csv: None,
        json: None,
        target_c: false,
    };
    let mut flags = flags.iter();
    while let Some(flag) = flags.next() {
        let mut value = |what: &str| {
            flags
                .next()
                .with_context(|| format!("`{flag}` needs {what}"))
                .cloned()
        };
        match flag.as_str() {
            "--size" => {
                options.size = match value("small or large")?.as_str() {
                    "small" => Size::Small,
                    "large" => Size::Large,
                    other => bail!("`--size` is small or large, not `{other}`"),
                }
            }
            "--only" => options.only.push(value("an operator name")?),
            "--runs" => {
                let n = value("a number")?;
                options.runs =
                    n.parse().ok().filter(|&n| n > 0).with_context(|| {
                        format!("expected a positive number of runs, found `{n}`")
                    })?;
            }
            "--cuda" => options.cuda = true,
            "--no-opencl" => options.opencl = false,
            "--nvcc" => options.nvcc = Some(value("a path")?.into()),
            "--pollen" => options.pollen = Some(value("a path")?.into()),
            "--skip-build" => options.skip_build = true,
            "--csv" => options.csv = Some(value("a file")?.into()),
            "--json" => options.json = Some(value("a file")?.into()),
            "--target-c" => options.target_c = true,
            other => bail!("unknown option `{other}`\nusage: cargo xtask {USAGE}"),
        }
    }
    if !options.opencl && !options.cuda && !options.target_c {
        bail!("nothing to run: `--no-opencl` without `--cuda`");
    }
    Ok(options)
}

/// The repository's root: the workspace this command was built in when it is still
/// there, else the first of the current directory and the executable's directories, with
/// their ancestors, that holds `examples/operators` (a copy of the repository on another
/// machine, run as `target/release/xtask`).
fn find_root(built_in: &Path) -> Result<PathBuf> {
    let holds = |dir: &Path| dir.join("examples/operators/manifest.txt").is_file();
    if holds(built_in) {
        return Ok(built_in.to_path_buf());
    }
    let mut starts = Vec::new();
    if let Ok(dir) = std::env::current_dir() {
        starts.push(dir);
    }
    if let Ok(exe) = std::env::current_exe() {
        starts.extend(exe.parent().map(Path::to_path_buf));
    }
    for start in &starts {
        if let Some(dir) = start.ancestors().find(|d| holds(d)) {
            return Ok(dir.to_path_buf());
        }
    }
    bail!("no examples/operators/manifest.txt in the workspace, the current directory or above it")
}

/// The target directory: `$CARGO_TARGET_DIR` or `target/` at the root.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => std::env::current_dir()
            .map(|cwd| cwd.join(&dir))
            .unwrap_or_else(|_| PathBuf::from(dir)),
        None => root.join("target"),
    }
}

/// The pollen executable: `--pollen`, or the release build (made here unless
/// `--skip-build`).
fn pollen_executable(root: &Path, options: &Options) -> Result<PathBuf> {
    if let Some(path) = &options.pollen {
        if !path.is_file() {
            bail!("no pollen executable at {} (--pollen)", path.display());
        }
        return Ok(path.clone());
    }
    if !options.skip_build {
        return crate::bench_polybench::build_pollen(root);
    }
    let path = target_dir(root).join("release/pollen");
    if !path.is_file() {
        bail!(
            "--skip-build: no pollen executable at {} (build it with `cargo build --release -p pollen-cli` or name one with --pollen)",
            path.display()
        );
    }
    Ok(path)
}

/// The operators of a manifest (`name family description...`), in order.
fn manifest(text: &str) -> Result<Vec<Operator>> {
    let mut operators = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 3 {
            bail!(
                "operators manifest line {}: expected a name, a family and a description",
                number + 1
            );
        }
        operators.push(Operator {
            name: fields[0].to_string(),
            family: fields[1].to_string(),
        });
    }
    Ok(operators)
}

/// The operators named by `--only`, in the order given; all when none is named.
fn select(operators: Vec<Operator>, only: &[String]) -> Result<Vec<Operator>> {
    if only.is_empty() {
        return Ok(operators);
    }
    only.iter()
        .map(|name| {
            operators
                .iter()
                .find(|o| &o.name == name)
                .cloned()
                .with_context(|| {
                    format!(
                        "no operator `{name}` in examples/operators/manifest.txt (known: {})",
                        operators
                            .iter()
                            .map(|o| o.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
        })
        .collect()
}

/// nvcc: the one named, `$POLLEN_NVCC`, `nvcc` on the path, `/usr/local/cuda/bin/nvcc`.
fn find_nvcc(named: Option<&Path>) -> std::result::Result<PathBuf, String> {
    let runs = |p: &Path| works(Command::new(p).arg("--version"));
    if let Some(path) = named {
        return if runs(path) {
            Ok(path.to_path_buf())
        } else {
            Err(format!("--nvcc {} does not run", path.display()))
        };
    }
    if let Some(path) = std::env::var_os("POLLEN_NVCC") {
        let path = PathBuf::from(path);
        return if runs(&path) {
            Ok(path)
        } else {
            Err(format!("POLLEN_NVCC={} does not run", path.display()))
        };
    }
    ["nvcc", "/usr/local/cuda/bin/nvcc"]
        .map(PathBuf::from)
        .into_iter()
        .find(|p| runs(p))
        .ok_or_else(|| {
            "no nvcc (give --nvcc PATH or POLLEN_NVCC, or put it on the path)".to_string()
        })
}

/// Whether `nvidia-smi -L` lists a GPU.
fn gpu_present() -> bool {
    Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GPU"))
}

/// The OpenCL platforms and devices `clinfo -l` lists, on one line, for the report.
fn opencl_platforms() -> String {
    match Command::new("clinfo").arg("-l").output() {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout);
            let lines: Vec<&str> = text
                .lines()
                .map(|l| l.trim_start_matches(|c: char| !c.is_alphanumeric()))
                .filter(|l| !l.is_empty())
                .collect();
            if lines.is_empty() {
                "clinfo -l lists no platform".to_string()
            } else {
                lines.join("; ")
            }
        }
        _ => "platforms unknown (no clinfo)".to_string(),
    }
}

/// What every operator's steps share.
struct Bench<'a> {
    operators_dir: &'a Path,
    out: &'a Path,
    pollen: &'a Path,
    cuda: Option<&'a Cuda>,
    size: Size,
    runs: usize,
}

impl Bench<'_> {
    /// Builds and times the original and every variant of one operator.
    fn operator(&self, operator: &Operator, targets: &[Target]) -> Row {
        let mut row = Row {
            operator: operator.name.clone(),
            family: operator.family.clone(),
            cpu: Err(String::new()),
            cells: targets
                .iter()
                .map(|_| Variant::ALL.map(|_| Outcome::Skipped))
                .collect(),
        };
        let dir = self.out.join(&operator.name);
        // Nothing of an earlier run may stand in for a step that fails in this one.
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            row.cpu = Err(format!("cannot create {}: {e}", dir.display()));
            return row;
        }
        let source = self.operators_dir.join(format!("{}.c", operator.name));
        let original = dir.join("original");
        let mut gcc = Command::new("gcc");
        gcc.args(["-O3", "-march=native"]);
        self.common(&mut gcc);
        gcc.arg(&source).arg("-o").arg(&original).arg("-lm");
        let reference = compile(gcc, "gcc (original)")
            .and_then(|()| time_runs(&original, self.runs))
            .and_then(|(seconds, _, outputs)| {
                if outputs.iter().any(|o| *o != outputs[0]) {
                    return Err("the original prints different checksums from run to run".into());
                }
                Ok((seconds, outputs[0].clone()))
            });
        let reference = match reference {
            Ok((seconds, text)) => {
                println!("  {:<16} {seconds:>11.6} s", "gcc -O3");
                row.cpu = Ok(seconds);
                text
            }
            Err(e) => {
                println!("  original failed: {e}");
                row.cpu = Err(e);
                return row;
            }
        };
        for (slot, &target) in targets.iter().enumerate() {
            for (v, variant) in Variant::ALL.into_iter().enumerate() {
                let outcome = self.variant(&source, &dir, target, variant, &reference);
                let title = format!("{} {}", target.title(), variant.suffix());
                match &outcome {
                    Outcome::Timed(s, check, _) => {
                        println!("  {title:<16} {s:>11.6} s  {}", check.name())
                    }
                    Outcome::Built => println!("  {title:<16} built, not run"),
                    Outcome::Failed(e) => println!("  {title:<16} failed: {e}"),
                    Outcome::Skipped => {}
                }
                row.cells[slot][v] = outcome;
            }
        }
        row
    }

    /// The include directory and the size flags of every build.
    fn common(&self, cmd: &mut Command) {
        cmd.arg("-I")
            .arg(self.operators_dir)
            .args(self.size.flags());
    }

    /// Generates, builds and times one variant.
    fn variant(
        &self,
        source: &Path,
        dir: &Path,
        target: Target,
        variant: Variant,
        reference: &str,
    ) -> Outcome {
        let name = source.file_stem().unwrap_or_default().to_string_lossy();
        let generated = dir.join(format!(
            "{name}_{}.{}",
            variant.suffix(),
            target.extension()
        ));
        let exe = dir.join(format!("{name}_{}_{}", target.key(), variant.suffix()));
        let mut opt = Command::new(self.pollen);
        opt.arg("opt")
            .arg(source)
            .args(target.pollen_args(variant))
            .arg("-o")
            .arg(&generated);
        if let Err(e) = compile(opt, "pollen opt") {
            return Outcome::Failed(e);
        }
        let built = match target {
            Target::OpenCl | Target::C => {
                let mut gcc = Command::new("gcc");
                gcc.arg("-O2");
                if target == Target::C {
                    gcc.arg("-fopenmp");
                }
                self.common(&mut gcc);
                gcc.arg(&generated).arg("-o").arg(&exe);
                if target == Target::OpenCl {
                    gcc.arg("-lOpenCL");
                }
                gcc.arg("-lm");
                compile(gcc, "gcc")
            }
            Target::Cuda => {
                let Some(cuda) = self.cuda else {
                    return Outcome::Skipped;
                };
                let mut nvcc = Command::new(&cuda.nvcc);
                nvcc.arg("-O3");
                if cuda.gpu {
                    nvcc.arg("-arch=native");
                }
                self.common(&mut nvcc);
                nvcc.arg(&generated).arg("-o").arg(&exe);
                compile(nvcc, "nvcc")
            }
        };
        if let Err(e) = built {
            return Outcome::Failed(e);
        }
        if target == Target::Cuda && !self.cuda.is_some_and(|c| c.gpu) {
            return Outcome::Built;
        }
        match time_runs(&exe, self.runs) {
            Ok((seconds, slowest, outputs)) => {
                // The worst run counts: a race may show in some runs only.
                let check = outputs
                    .iter()
                    .map(|o| compare(reference, o, CLOSE))
                    .max()
                    .unwrap_or(Check::Mismatch);
                Outcome::Timed(seconds, check, slowest)
            }
            Err(e) => Outcome::Failed(e),
        }
    }
}

/// The minimum and the maximum `POLLEN_TIME` of `runs` runs and every run's standard
/// output.
fn time_runs(exe: &Path, runs: usize) -> std::result::Result<(f64, f64, Vec<String>), String> {
    let mut best = f64::INFINITY;
    let mut worst = 0.0f64;
    let mut outputs = Vec::new();
    for _ in 0..runs {
        let (seconds, stdout) = run_once(exe)?;
        best = best.min(seconds);
        worst = worst.max(seconds);
        outputs.push(stdout);
    }
    Ok((best, worst, outputs))
}

/// One run, in the executable's directory (where a generated program finds any file it
/// was written with): its time and its standard output; stopped after [`RUN_LIMIT`].
fn run_once(exe: &Path) -> std::result::Result<(f64, String), String> {
    let stdout_path = exe.with_extension("stdout");
    let stderr_path = exe.with_extension("stderr");
    let open =
        |p: &Path| File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()));
    let mut child = Command::new(exe)
        .env("POLLEN_KERNEL_TIME", "1")
        .current_dir(exe.parent().unwrap_or(Path::new(".")))
        .stdout(open(&stdout_path)?)
        .stderr(open(&stderr_path)?)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > RUN_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", RUN_LIMIT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("cannot wait for {}: {e}", exe.display())),
        }
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    if !status.success() {
        let last: Vec<&str> = stderr.lines().rev().take(3).collect();
        let last: Vec<&str> = last.into_iter().rev().collect();
        return Err(format!("exited with {status}: {}", last.join(" / ")));
    }
    let seconds = pollen_time(&stderr).ok_or("no `POLLEN_TIME <seconds>` line on stderr")?;
    Ok((seconds, stdout))
}

/// The kernels' seconds: the sum of the `POLLEN_KERNEL_TIME <seconds>` lines (a CUDA
/// program run with `$POLLEN_KERNEL_TIME` prints one per run of its region: from its
/// first launch to the end of its last kernel), else the last `POLLEN_TIME <seconds>`
/// line (the operator's timer around the region).
fn pollen_time(stderr: &str) -> Option<f64> {
    let seconds = |prefix: &str| -> Vec<f64> {
        stderr
            .lines()
            .filter_map(|l| l.trim().strip_prefix(prefix)?.trim().parse().ok())
            .filter(|t: &f64| t.is_finite() && *t >= 0.0)
            .collect()
    };
    let kernels = seconds("POLLEN_KERNEL_TIME ");
    if !kernels.is_empty() {
        return Some(kernels.iter().sum());
    }
    seconds("POLLEN_TIME ").last().copied()
}

/// Compares a program's checksum lines (`name value...`) with the original's: each value
/// within a relative `tolerance` of the original's counts as close.
fn compare(original: &str, variant: &str, tolerance: f64) -> Check {
    if original == variant {
        return Check::Same;
    }
    // `name value...` lines: the name and each value (an operator's checksum and the
    // checksum of its magnitudes).
    let lines = |s: &str| -> Vec<(String, Vec<String>)> {
        s.lines()
            .filter_map(|l| {
                let mut words = l.split_whitespace();
                let name = words.next()?.to_string();
                let values: Vec<String> = words.map(str::to_string).collect();
                (!values.is_empty()).then_some((name, values))
            })
            .collect()
    };
    let (a, b) = (lines(original), lines(variant));
    if a.is_empty() || a.len() != b.len() {
        return Check::Mismatch;
    }
    let close_value = |va: &String, vb: &String| match (va.parse::<f64>(), vb.parse::<f64>()) {
        (Ok(x), Ok(y)) if x.is_finite() && y.is_finite() => {
            (x - y).abs() <= tolerance * x.abs().max(y.abs()).max(f64::MIN_POSITIVE)
        }
        _ => va == vb,
    };
    let close = a.iter().zip(&b).all(|((na, va), (nb, vb))| {
        na == nb && va.len() == vb.len() && va.iter().zip(vb).all(|(x, y)| close_value(x, y))
    });
    if close {
        Check::Close
    } else {
        Check::Mismatch
    }
}

/// Every failure of a run, `operator (column): message`, in table order.
fn failures(rows: &[Row], targets: &[Target]) -> Vec<String> {
    let mut out = Vec::new();
    for row in rows {
        if let Err(e) = &row.cpu {
            out.push(format!("{} (original): {e}", row.operator));
        }
        for (slot, target) in targets.iter().enumerate() {
            for (v, variant) in Variant::ALL.into_iter().enumerate() {
                let column = format!("{} {}", target.title(), variant.suffix());
                match &row.cells[slot][v] {
                    Outcome::Failed(e) => out.push(format!("{} ({column}): {e}", row.operator)),
                    Outcome::Timed(_, Check::Mismatch, _) => out.push(format!(
                        "{} ({column}): checksums differ from the original's",
                        row.operator
                    )),
                    _ => {}
                }
            }
        }
    }
    out
}

/// A table cell: seconds, `!` after a wrong result.
fn cell(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Timed(s, Check::Mismatch, _) => format!("{s:.6}!"),
        Outcome::Timed(s, _, _) => format!("{s:.6}"),
        Outcome::Built => "built".to_string(),
        Outcome::Failed(_) => "error".to_string(),
        Outcome::Skipped => "-".to_string(),
    }
}

/// The checksum verdict of a row.
fn verdict(row: &Row, targets: &[Target]) -> String {
    let mut wrong = Vec::new();
    let mut close = false;
    let mut checked = false;
    for (slot, target) in targets.iter().enumerate() {
        for (v, variant) in Variant::ALL.into_iter().enumerate() {
            if let Outcome::Timed(_, check, _) = row.cells[slot][v] {
                checked = true;
                close |= check == Check::Close;
                if check == Check::Mismatch {
                    wrong.push(format!("{} {}", target.title(), variant.suffix()));
                }
            }
        }
    }
    if !wrong.is_empty() {
        format!("MISMATCH: {}", wrong.join(", "))
    } else if !checked {
        "-".to_string()
    } else if close {
        "ok (close)".to_string()
    } else {
        "ok".to_string()
    }
}

/// The geometric mean of a variant's speedups over plain for the target in `slot` and how
/// many went in.
fn target_geomean(rows: &[Row], slot: usize, variant: Variant) -> (Option<f64>, usize) {
    let values: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.speedup(slot, variant))
        .collect();
    (geomean(&values), values.len())
}

/// The run-to-run spread of a target's timed cells (slowest run / fastest run − 1): the
/// median and the largest with its operator and variant; `None` without a timed cell of
/// several runs.
fn spread_line(rows: &[Row], slot: usize, title: &str) -> Option<String> {
    let mut spreads: Vec<(f64, String)> = Vec::new();
    for row in rows {
        for (v, variant) in Variant::ALL.into_iter().enumerate() {
            if let Some(Outcome::Timed(fastest, _, slowest)) = row.cells.get(slot).map(|c| &c[v]) {
                if *fastest > 0.0 {
                    let name = format!("{} {}", row.operator, variant.suffix());
                    spreads.push((slowest / fastest - 1.0, name));
                }
            }
        }
    }
    if spreads.is_empty() {
        return None;
    }
    spreads.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median = spreads[spreads.len() / 2].0;
    let (largest, which) = spreads.last()?;
    Some(format!(
        "spread {title} (slowest run / fastest run - 1): median {:.0}%, largest {:.0}% ({which})",
        median * 100.0,
        largest * 100.0
    ))
}

/// The table, the failures and the geometric means.
fn report(rows: &[Row], targets: &[Target], size: Size, runs: usize, notes: &[String]) -> String {
    let mut out = format!(
        "\nGPU operators, {} sizes: seconds, min of {runs} run(s) of POLLEN_KERNEL_TIME (CUDA: kernels alone) or POLLEN_TIME (the region); novec/plain, infl/plain = plain time / the variant's time\n",
        size.name()
    );
    let _ = write!(out, "{:<28} {:<7} {:>11}", "operator", "family", "gcc -O3");
    for target in targets {
        for variant in Variant::ALL {
            let title = format!("{} {}", target.title(), variant.suffix());
            let _ = write!(out, " {title:>15}");
        }
        for variant in Variant::COMPARED {
            let _ = write!(out, " {:>11}", variant.ratio());
        }
    }
    out.push_str("  checksums\n");
    for row in rows {
        let cpu = match &row.cpu {
            Ok(s) => format!("{s:.6}"),
            Err(_) => "error".to_string(),
        };
        let _ = write!(out, "{:<28} {:<7} {cpu:>11}", row.operator, row.family);
        for slot in 0..targets.len() {
            for outcome in &row.cells[slot] {
                let _ = write!(out, " {:>15}", cell(outcome));
            }
            for variant in Variant::COMPARED {
                let speedup = row
                    .speedup(slot, variant)
                    .map_or("-".to_string(), |s| format!("{s:.2}"));
                let _ = write!(out, " {speedup:>11}");
            }
        }
        let _ = writeln!(out, "  {}", verdict(row, targets));
    }
    out.push_str("\"!\": checksums differ from the original's; \"built\": compiled, not run\n");
    for note in notes {
        let _ = writeln!(out, "{note}");
    }
    let failures = failures(rows, targets);
    if !failures.is_empty() {
        let _ = writeln!(out, "\nfailures ({}):", failures.len());
        for f in &failures {
            let _ = writeln!(out, "  {f}");
        }
    }
    out.push('\n');
    for (slot, target) in targets.iter().enumerate() {
        if let Some(line) = spread_line(rows, slot, target.title()) {
            let _ = writeln!(out, "{line}");
        }
    }
    for (slot, target) in targets.iter().enumerate() {
        for variant in Variant::COMPARED {
            let (mean, count) = target_geomean(rows, slot, variant);
            let _ = match mean {
                Some(g) => writeln!(
                    out,
                    "geomean {} {}: {g:.2} over {count} operator(s) both variants ran correctly",
                    target.title(),
                    variant.ratio()
                ),
                None => writeln!(
                    out,
                    "geomean {} {}: - (no operator ran correctly in both variants)",
                    target.title(),
                    variant.ratio()
                ),
            };
        }
    }
    out
}

/// The name of the CSV column of a variant's speedup over plain: `<target>_speedup` for
/// infl (the column's name from before novec was added), `<target>_novec_speedup`.
fn csv_speedup_column(target: Target, variant: Variant) -> String {
    match variant {
        Variant::Injected => format!("{}_speedup", target.key()),
        _ => format!("{}_{}_speedup", target.key(), variant.suffix()),
    }
}

/// The results as CSV: one line per operator, times in seconds, empty where none. The
/// columns: `operator`, `family`, `cpu_s`; per target (`opencl`, `cuda` or `c`) the times
/// `<target>_plain_s`, `<target>_novec_s`, `<target>_infl_s` and the speedups over plain
/// `<target>_speedup` (infl) and `<target>_novec_speedup`; then `checksums` (the verdict)
/// and `errors` (the row's failures, `; ` between them).
fn csv(rows: &[Row], targets: &[Target]) -> String {
    /// The speedup columns, in order.
    const SPEEDUPS: [Variant; 2] = [Variant::Injected, Variant::NoVector];
    let mut header = vec!["operator".to_string(), "family".into(), "cpu_s".into()];
    for &target in targets {
        for variant in Variant::ALL {
            header.push(format!("{}_{}_s", target.key(), variant.suffix()));
        }
        for variant in SPEEDUPS {
            header.push(csv_speedup_column(target, variant));
        }
    }
    header.extend(["checksums".to_string(), "errors".into()]);
    let mut out = header.join(",");
    out.push('\n');
    for row in rows {
        let mut fields = vec![
            row.operator.clone(),
            row.family.clone(),
            row.cpu
                .as_ref()
                .map_or(String::new(), |s| format!("{s:.6}")),
        ];
        for slot in 0..targets.len() {
            for outcome in &row.cells[slot] {
                fields.push(match outcome {
                    Outcome::Timed(s, _, _) => format!("{s:.6}"),
                    _ => String::new(),
                });
            }
            for variant in SPEEDUPS {
                fields.push(
                    row.speedup(slot, variant)
                        .map_or(String::new(), |s| format!("{s:.4}")),
                );
            }
        }
        fields.push(verdict(row, targets));
        let errors: Vec<String> = failures(std::slice::from_ref(row), targets);
        fields.push(errors.join("; "));
        let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// One outcome as a JSON object.
fn json_outcome(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Timed(s, check, slowest) => format!(
            "{{\"status\": \"timed\", \"seconds\": {}, \"checksums\": \"{}\", \"max_seconds\": {}}}",
            json_number(Some(*s)),
            check.name(),
            json_number(Some(*slowest))
        ),
        Outcome::Built => "{\"status\": \"built\"}".to_string(),
        Outcome::Failed(e) => format!("{{\"status\": \"failed\", \"error\": {}}}", json_string(e)),
        Outcome::Skipped => "{\"status\": \"skipped\"}".to_string(),
    }
}

/// The results as JSON: per operator and target the outcomes `"plain"`, `"novec"` and
/// `"injected"` (infl), and the speedups over plain `"speedup"` (infl) and
/// `"novec_speedup"`; per target the geometric means of both with their operator counts.
fn json(rows: &[Row], targets: &[Target], size: Size, runs: usize) -> String {
    let mut out = format!(
        "{{\n  \"size\": \"{}\",\n  \"runs\": {runs},\n  \"tolerance\": {CLOSE:e},\n  \"operators\": [",
        size.name()
    );
    for (k, row) in rows.iter().enumerate() {
        out.push_str(if k == 0 { "\n" } else { ",\n" });
        let _ = write!(
            out,
            "    {{\"operator\": {}, \"family\": {}, \"cpu_seconds\": {}",
            json_string(&row.operator),
            json_string(&row.family),
            json_number(row.cpu.as_ref().ok().copied())
        );
        if let Err(e) = &row.cpu {
            let _ = write!(out, ", \"cpu_error\": {}", json_string(e));
        }
        for (slot, target) in targets.iter().enumerate() {
            let cells = &row.cells[slot];
            let _ = write!(
                out,
                ", \"{}\": {{\"plain\": {}, \"novec\": {}, \"injected\": {}, \"speedup\": {}, \"novec_speedup\": {}}}",
                target.key(),
                json_outcome(&cells[Variant::Plain.index()]),
                json_outcome(&cells[Variant::NoVector.index()]),
                json_outcome(&cells[Variant::Injected.index()]),
                json_number(row.speedup(slot, Variant::Injected)),
                json_number(row.speedup(slot, Variant::NoVector))
            );
        }
        let _ = write!(
            out,
            ", \"checksums\": {}}}",
            json_string(&verdict(row, targets))
        );
    }
    out.push_str("\n  ],\n  \"geomean\": {");
    for (slot, target) in targets.iter().enumerate() {
        let (mean, count) = target_geomean(rows, slot, Variant::Injected);
        let (novec, novec_count) = target_geomean(rows, slot, Variant::NoVector);
        let _ = write!(
            out,
            "{}\"{}\": {{\"speedup\": {}, \"operators\": {count}, \"novec_speedup\": {}, \"novec_operators\": {novec_count}}}",
            if slot == 0 { "" } else { ", " },
            target.key(),
            json_number(mean),
            json_number(novec)
        );
    }
    out.push_str("}\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_are_read() {
        let o = options(&strings(&[
            "--size",
            "small",
            "--only",
            "softmax",
            "--only",
            "layernorm",
            "--runs",
            "2",
            "--cuda",
            "--nvcc",
            "/opt/nvcc",
            "--pollen",
            "p",
            "--skip-build",
            "--csv",
            "a.csv",
            "--json",
            "a.json",
        ]))
        .expect("valid");
        assert_eq!(o.size, Size::Small);
        assert_eq!(o.only, ["softmax", "layernorm"]);
        assert_eq!(o.runs, 2);
        assert!(o.cuda && o.opencl && o.skip_build && !o.target_c);
        assert_eq!(o.nvcc.as_deref(), Some(Path::new("/opt/nvcc")));
        assert_eq!(o.pollen.as_deref(), Some(Path::new("p")));
        assert_eq!(o.csv.as_deref(), Some(Path::new("a.csv")));
        assert_eq!(o.json.as_deref(), Some(Path::new("a.json")));
        let d = options(&[]).expect("defaults");
        assert_eq!(
            (d.size, d.runs, d.cuda, d.opencl),
            (Size::Large, 3, false, true)
        );
        assert!(options(&strings(&["--size", "huge"])).is_err());
        assert!(options(&strings(&["--runs", "0"])).is_err());
        assert!(options(&strings(&["--only"])).is_err());
        assert!(options(&strings(&["--fast"])).is_err());
        assert!(options(&strings(&["--no-opencl"])).is_err());
        assert!(options(&strings(&["--no-opencl", "--cuda"])).is_ok());
    }

    #[test]
    fn the_real_manifest_has_the_operators_of_both_families() {
        let text = include_str!("../../examples/operators/manifest.txt");
        let ops = manifest(text).expect("parses");
        assert!(ops.len() >= 14, "{}", ops.len());
        assert!(ops
            .iter()
            .all(|o| ["bert", "resnet"].contains(&o.family.as_str())));
        assert!(ops.iter().any(|o| o.name == "fused_mul_sub_mul_tensoradd"));
        let picked = select(ops.clone(), &strings(&["softmax", "layernorm"])).expect("known");
        assert_eq!(picked[0].name, "softmax");
        assert_eq!(picked[1].name, "layernorm");
        let e = select(ops, &strings(&["nope"])).expect_err("unknown");
        assert!(
            format!("{e}").contains("known: fused_mul_sub_mul_tensoradd"),
            "{e}"
        );
        assert!(manifest("softmax bert\n").is_err());
    }

    #[test]
    fn the_root_is_found_from_the_current_directory_when_the_built_in_one_is_gone() {
        let built_in = crate::workspace_root();
        assert_eq!(find_root(&built_in).expect("found"), built_in);
        // `cargo test` runs in xtask/, below the workspace's root.
        let found = find_root(Path::new("/nonexistent/pollen")).expect("found");
        assert!(
            found.join("examples/operators/operators.h").is_file(),
            "{found:?}"
        );
    }

    #[test]
    fn pollen_options_per_target_and_variant() {
        assert_eq!(
            Target::OpenCl.pollen_args(Variant::Plain),
            ["--target", "opencl", "--no-inject"]
        );
        assert_eq!(
            Target::OpenCl.pollen_args(Variant::Injected),
            ["--target", "opencl"]
        );
        assert_eq!(
            Target::Cuda.pollen_args(Variant::Plain),
            ["--target", "cuda", "--no-inject"]
        );
        assert_eq!(
            Target::OpenCl.pollen_args(Variant::NoVector),
            ["--target", "opencl", "--no-vector-types"]
        );
        assert_eq!(
            Target::Cuda.pollen_args(Variant::NoVector),
            ["--target", "cuda", "--no-vector-types"]
        );
        assert_eq!(Target::Cuda.extension(), "cu");
        // `--target-c`: every variant is the C/OpenMP output.
        for variant in Variant::ALL {
            assert!(Target::C.pollen_args(variant).is_empty());
        }
        assert_eq!(
            Variant::ALL.map(Variant::suffix),
            ["plain", "novec", "infl"]
        );
        assert_eq!(Variant::ALL.map(Variant::index), [0, 1, 2]);
        assert_eq!(
            Variant::COMPARED.map(Variant::ratio),
            ["novec/plain", "infl/plain"]
        );
        assert_eq!(Size::Large.flags(), ["-DLARGE_DATASET"]);
        assert!(Size::Small.flags().is_empty());
    }

    #[test]
    fn times_and_checksums_are_read() {
        assert_eq!(pollen_time("x\nPOLLEN_TIME 0.001234\n"), Some(0.001234));
        assert_eq!(
            pollen_time("POLLEN_TIME 2.0\nPOLLEN_TIME 0.5\n"),
            Some(0.5),
            "the last line"
        );
        assert_eq!(pollen_time("time 1.5\n"), None);
        assert_eq!(pollen_time("POLLEN_TIME nan\n"), None);
        assert_eq!(
            pollen_time("POLLEN_KERNEL_TIME 0.25\nPOLLEN_KERNEL_TIME 0.5\nPOLLEN_TIME 2.0\n"),
            Some(0.75)
        );
        assert_eq!(compare("A 1.5\n", "A 1.5\n", CLOSE), Check::Same);
        assert_eq!(compare("A 1000\n", "A 1000.01\n", CLOSE), Check::Close);
        assert_eq!(compare("A 1000\n", "A 1001\n", CLOSE), Check::Mismatch);
        assert_eq!(compare("A 1\nB 2\n", "A 1\n", CLOSE), Check::Mismatch);
        assert_eq!(compare("A 1\n", "B 1\n", CLOSE), Check::Mismatch);
        assert_eq!(compare("A 1\n", "A nan\n", CLOSE), Check::Mismatch);
        assert_eq!(compare("A 1 2\n", "A 1 2.00000001\n", CLOSE), Check::Close);
        assert_eq!(compare("A 1 2\n", "A 1 3\n", CLOSE), Check::Mismatch);
        assert_eq!(compare("A 1 2\n", "A 1\n", CLOSE), Check::Mismatch);
        assert_eq!(compare("", "", CLOSE), Check::Same);
        assert_eq!(compare("", "A 1\n", CLOSE), Check::Mismatch);
    }

    fn row(name: &str, cells: Vec<[Outcome; 3]>) -> Row {
        Row {
            operator: name.to_string(),
            family: "bert".to_string(),
            cpu: Ok(1.0),
            cells,
        }
    }

    /// Per target (OpenCL, CUDA) the plain, novec and infl outcomes.
    fn rows() -> Vec<Row> {
        vec![
            row(
                "softmax",
                vec![
                    [
                        Outcome::Timed(0.4, Check::Same, 0.5),
                        Outcome::Timed(0.2, Check::Same, 0.2),
                        Outcome::Timed(0.1, Check::Close, 0.1),
                    ],
                    [
                        Outcome::Timed(0.02, Check::Same, 0.02),
                        Outcome::Timed(0.04, Check::Same, 0.04),
                        Outcome::Timed(0.01, Check::Same, 0.01),
                    ],
                ],
            ),
            row(
                "layernorm",
                vec![
                    [
                        Outcome::Timed(0.3, Check::Same, 0.3),
                        Outcome::Timed(0.15, Check::Same, 0.15),
                        Outcome::Timed(0.3, Check::Mismatch, 0.3),
                    ],
                    [
                        Outcome::Failed("nvcc failed: x".into()),
                        Outcome::Built,
                        Outcome::Built,
                    ],
                ],
            ),
            row(
                "transpose_add",
                vec![
                    [
                        Outcome::Timed(0.9, Check::Same, 0.9),
                        Outcome::Failed("pollen opt failed: y".into()),
                        Outcome::Timed(0.1, Check::Same, 0.1),
                    ],
                    [Outcome::Skipped, Outcome::Skipped, Outcome::Skipped],
                ],
            ),
        ]
    }

    #[test]
    fn the_table_has_times_speedups_verdicts_failures_and_geomeans() {
        let targets = [Target::OpenCl, Target::Cuda];
        let r = report(&rows(), &targets, Size::Small, 3, &["OpenCL: PoCL".into()]);
        let header = r
            .lines()
            .find(|l| l.starts_with("operator"))
            .expect("a header");
        let titles: Vec<&str> = header.split_whitespace().collect();
        assert_eq!(
            titles,
            [
                "operator",
                "family",
                "gcc",
                "-O3",
                "OpenCL",
                "plain",
                "OpenCL",
                "novec",
                "OpenCL",
                "infl",
                "novec/plain",
                "infl/plain",
                "CUDA",
                "plain",
                "CUDA",
                "novec",
                "CUDA",
                "infl",
                "novec/plain",
                "infl/plain",
                "checksums"
            ],
            "{r}"
        );
        let softmax = r.lines().find(|l| l.starts_with("softmax")).expect("a row");
        let fields: Vec<&str> = softmax.split_whitespace().collect();
        assert_eq!(
            fields,
            [
                "softmax", "bert", "1.000000", "0.400000", "0.200000", "0.100000", "2.00", "4.00",
                "0.020000", "0.040000", "0.010000", "0.50", "2.00", "ok", "(close)"
            ],
            "{r}"
        );
        let layernorm = r
            .lines()
            .find(|l| l.starts_with("layernorm"))
            .expect("a row");
        let fields: Vec<&str> = layernorm.split_whitespace().collect();
        assert_eq!(
            fields[3..13],
            [
                "0.300000",
                "0.150000",
                "0.300000!",
                "2.00",
                "-",
                "error",
                "built",
                "built",
                "-",
                "-"
            ],
            "{r}"
        );
        assert!(layernorm.ends_with("MISMATCH: OpenCL infl"), "{r}");
        let transpose = r
            .lines()
            .find(|l| l.starts_with("transpose_add"))
            .expect("a row");
        let fields: Vec<&str> = transpose.split_whitespace().collect();
        assert_eq!(
            fields[3..8],
            ["0.900000", "error", "0.100000", "-", "9.00"],
            "{r}"
        );
        assert!(r.contains("failures (3):"), "{r}");
        assert!(
            r.contains("layernorm (OpenCL infl): checksums differ from the original's"),
            "{r}"
        );
        assert!(r.contains("layernorm (CUDA plain): nvcc failed: x"), "{r}");
        assert!(
            r.contains("transpose_add (OpenCL novec): pollen opt failed: y"),
            "{r}"
        );
        // One run of softmax's plain OpenCL program took 25% longer than its fastest.
        assert!(
            r.contains(
                "spread OpenCL (slowest run / fastest run - 1): median 0%, largest 25% (softmax plain)"
            ),
            "{r}"
        );
        // OpenCL infl: softmax 4 and transpose_add 9 (layernorm is wrong): 6.
        assert!(
            r.contains("geomean OpenCL infl/plain: 6.00 over 2 operator(s)"),
            "{r}"
        );
        // OpenCL novec: softmax 2 and layernorm 2 (transpose_add failed): 2.
        assert!(
            r.contains("geomean OpenCL novec/plain: 2.00 over 2 operator(s)"),
            "{r}"
        );
        assert!(
            r.contains("geomean CUDA infl/plain: 2.00 over 1 operator(s)"),
            "{r}"
        );
        assert!(
            r.contains("geomean CUDA novec/plain: 0.50 over 1 operator(s)"),
            "{r}"
        );
        let geomeans: Vec<&str> = r.lines().filter(|l| l.starts_with("geomean")).collect();
        assert_eq!(geomeans.len(), 4, "{r}");
        assert!(
            geomeans[0].starts_with("geomean OpenCL novec/plain")
                && geomeans[1].starts_with("geomean OpenCL infl/plain")
                && geomeans[2].starts_with("geomean CUDA novec/plain"),
            "{r}"
        );
        assert!(r.contains("OpenCL: PoCL"), "{r}");
        assert_eq!(failures(&rows(), &targets).len(), 3);
        // layernorm on CUDA alone: nothing timed.
        let mut layernorm = rows()[1].clone();
        layernorm.cells.remove(0);
        let none = report(&[layernorm], &targets[1..], Size::Large, 1, &[]);
        assert!(
            none.contains("geomean CUDA infl/plain: - (no operator ran correctly"),
            "{none}"
        );
        assert!(
            none.contains("geomean CUDA novec/plain: - (no operator ran correctly"),
            "{none}"
        );
    }

    #[test]
    fn csv_and_json_hold_the_same_results() {
        let targets = [Target::OpenCl, Target::Cuda];
        let c = csv(&rows(), &targets);
        let lines: Vec<&str> = c.lines().collect();
        assert_eq!(
            lines[0],
            "operator,family,cpu_s,opencl_plain_s,opencl_novec_s,opencl_infl_s,opencl_speedup,opencl_novec_speedup,cuda_plain_s,cuda_novec_s,cuda_infl_s,cuda_speedup,cuda_novec_speedup,checksums,errors"
        );
        assert_eq!(
            lines[1],
            "softmax,bert,1.000000,0.400000,0.200000,0.100000,4.0000,2.0000,0.020000,0.040000,0.010000,2.0000,0.5000,ok (close),"
        );
        assert!(
            lines[2].starts_with(
                "layernorm,bert,1.000000,0.300000,0.150000,0.300000,,2.0000,,,,,,MISMATCH: OpenCL infl,"
            ),
            "{c}"
        );
        assert!(
            lines[3].starts_with("transpose_add,bert,1.000000,0.900000,,0.100000,9.0000,,,,,,,ok,"),
            "{c}"
        );
        assert_eq!(lines.len(), 4);
        let j = json(&rows(), &targets, Size::Small, 3);
        assert!(j.contains("\"size\": \"small\""), "{j}");
        assert!(j.contains("\"tolerance\": 1e-4"), "{j}");
        assert!(
            j.contains("\"opencl\": {\"plain\": {\"status\": \"timed\", \"seconds\": 0.4, \"checksums\": \"same\", \"max_seconds\": 0.5}, \"novec\": {\"status\": \"timed\", \"seconds\": 0.2, \"checksums\": \"same\", \"max_seconds\": 0.2}, \"injected\": {\"status\": \"timed\", \"seconds\": 0.1, \"checksums\": \"close\", \"max_seconds\": 0.1}, \"speedup\": 4, \"novec_speedup\": 2}"),
            "{j}"
        );
        assert!(
            j.contains("\"cuda\": {\"plain\": {\"status\": \"timed\", \"seconds\": 0.02, \"checksums\": \"same\", \"max_seconds\": 0.02}, \"novec\": {\"status\": \"timed\", \"seconds\": 0.04, \"checksums\": \"same\", \"max_seconds\": 0.04}"),
            "{j}"
        );
        assert!(
            j.contains("\"novec\": {\"status\": \"failed\", \"error\": \"pollen opt failed: y\"}"),
            "{j}"
        );
        assert!(
            j.contains("{\"status\": \"failed\", \"error\": \"nvcc failed: x\"}"),
            "{j}"
        );
        // The OpenCL geomeans: `"key": number` pairs up to the object's end.
        let opencl_geomeans = j
            .split_once("\"geomean\": {\"opencl\": {")
            .and_then(|(_, rest)| rest.split_once('}'))
            .map(|(fields, _)| fields)
            .expect("the OpenCL geomeans");
        let geomean = |key: &str| {
            opencl_geomeans
                .split(", ")
                .find_map(|f| f.strip_prefix(&format!("\"{key}\": ")))
                .and_then(|number| number.parse::<f64>().ok())
        };
        let opencl = geomean("speedup").expect("an OpenCL geomean");
        assert!((opencl - 6.0).abs() < 1e-9, "{j}");
        let opencl_novec = geomean("novec_speedup").expect("an OpenCL novec geomean");
        assert!((opencl_novec - 2.0).abs() < 1e-9, "{j}");
        assert_eq!(geomean("operators"), Some(2.0), "{j}");
        assert_eq!(geomean("novec_operators"), Some(2.0), "{j}");
        assert!(
            j.contains("\"cuda\": {\"speedup\": 2, \"operators\": 1, \"novec_speedup\": 0.5, \"novec_operators\": 1}"),
            "{j}"
        );
        // Balanced braces and brackets, outside strings.
        let depth = j.chars().try_fold(0i32, |d, c| {
            let d = match c {
                '{' | '[' => d + 1,
                '}' | ']' => d - 1,
                _ => d,
            };
            (d >= 0).then_some(d)
        });
        assert_eq!(depth, Some(0), "{j}");
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
    }
}
