//! `cargo xtask bench polybench`: the example kernels optimized by Pollen, timed against
//! `gcc -O3` and, side by side, against Polly and OpenBLAS.
//!
//! For every kernel of `examples/kernels/manifest.txt` (or the ones named on the command
//! line), at its bench size (the manifest's bench flags, chosen so that the original runs
//! 0.5 to 5 s), this command builds and times:
//! - the original under `gcc -O3 -march=native`, the baseline;
//! - Pollen's output (`pollen opt`, the defaults: tiling, parallel loops, smart fusion)
//!   under the same compiler with `-fopenmp`, with `OMP_NUM_THREADS` 1 and 2;
//! - the original under `clang -O3 -march=native -mllvm -polly`, and with
//!   `-mllvm -polly-parallel` (Polly's GNU OpenMP backend, linked with `-lgomp`) on 2
//!   threads. Debian's clang has Polly linked into `libLLVM`, so `-mllvm -polly` is enough
//!   there; where it is not, the plugin `LLVMPolly.so` next to clang's LLVM is loaded with
//!   `-fpass-plugin=` or `-Xclang -load`. A missing clang is installed with `apt-get`
//!   (package `clang`, then `libpolly-<version>-dev` if Polly is still missing) when that
//!   is possible; otherwise the Polly columns are skipped with the reason.
//!
//! Every build is run 3 times (`--runs`); a kernel's time is the minimum of the `time`
//! lines its `-DPOLLEN_TIME` build prints, so initialisation and output are not timed.
//! Every variant's checksums (standard output) are compared with the original's: equal,
//! close (relative difference at most 1e-6, as different compilers contract
//! multiply-adds differently), or a MISMATCH, which is shown in the table and left out of
//! the geometric means (a wrong fast result is not a speedup).
//!
//! OpenBLAS: `benches/polybench/dgemm_openblas.c` times `cblas_dgemm` on gemm's bench
//! shape with `OPENBLAS_NUM_THREADS` 1 and 2 (`libopenblas-dev` is installed when
//! missing), and the report compares Pollen's gemm in GFLOP/s (2·NI·NJ·NK / time).
//!
//! The targets: Pollen's geometric-mean speedup over `gcc -O3` on 2 threads at least
//! Polly's on 2 threads (over the kernels both run correctly, and no wrong or failed
//! Pollen kernel), and Pollen's gemm on 2 threads at least 40% of OpenBLAS's dgemm
//! GFLOP/s on 2 threads.
//!
//! Options: `--runs N` (default 3), `--no-install` (never call `apt-get`), kernel names.
//! Everything built goes to `target/polybench/`.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::fuzz::cargo;

/// How many times each build runs by default (its time is the minimum).
const DEFAULT_RUNS: usize = 3;

/// The longest one run of a build may take.
const RUN_LIMIT: Duration = Duration::from_secs(180);

/// The largest relative difference of two checksums that still counts as close.
const CLOSE: f64 = 1e-6;

/// The least fraction of OpenBLAS's dgemm GFLOP/s that Pollen's gemm should reach.
const GEMM_TARGET: f64 = 0.40;

/// The gcc flags of every build.
const GCC_FLAGS: &[&str] = &["-O3", "-march=native"];

/// One line of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Kernel {
    name: String,
    category: String,
    /// The `-D` flags of the timing runs.
    bench_flags: Vec<String>,
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

/// What became of one build of one kernel.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// The minimum kernel time in seconds and its checksums against the original's.
    Timed(f64, Check),
    /// A step failed: the message.
    Failed(String),
    /// Not run: the reason is given once for the whole column.
    Skipped,
}

/// A kernel's results.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    kernel: String,
    /// The original's minimum time, or why it has none.
    original: std::result::Result<f64, String>,
    /// One outcome per [`Variant::ALL`] entry.
    variants: [Outcome; 4],
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

/// The options of one run of the command.
struct Options {
    runs: usize,
    install: bool,
    names: Vec<String>,
}

/// Runs `cargo xtask bench polybench [--runs N] [--no-install] [kernel...]`.
pub fn run(root: &Path, flags: &[String]) -> Result<()> {
    let options = options(flags)?;
    let manifest_path = root.join("examples/kernels/manifest.txt");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("cannot read {}", manifest_path.display()))?;
    let kernels = select(manifest(&text)?, &options.names)?;
    let out = root.join("target/polybench");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    if !works(Command::new("gcc").arg("--version")) {
        bail!("gcc is needed (Debian: apt-get install gcc)");
    }

    let pollen = build_pollen(root)?;
    let polly = find_polly(&out, options.install);
    if let Err(reason) = &polly {
        println!("bench: Polly columns skipped: {reason}");
    }
    let gemm = kernels.iter().find(|k| k.name == "gemm");
    let blas = match gemm {
        Some(gemm) => match time_openblas(root, &out, gemm, options.runs, options.install) {
            Ok(blas) => Some(Ok(blas)),
            Err(e) => {
                println!("bench: OpenBLAS comparison skipped: {e:#}");
                Some(Err(format!("{e:#}")))
            }
        },
        None => None,
    };

    let mut rows = Vec::new();
    for kernel in &kernels {
        println!("bench: {} ({})", kernel.name, kernel.bench_flags.join(" "));
        rows.push(bench_kernel(
            root,
            &out,
            &pollen,
            polly.as_ref().ok(),
            kernel,
            options.runs,
        ));
    }
    let polly_note = match &polly {
        Ok(p) => format!("Polly: {}", p.describe()),
        Err(reason) => format!("Polly: skipped ({reason})"),
    };
    let gemm_blas = match (&blas, gemm) {
        (Some(Ok(b)), Some(_)) => Some(b),
        _ => None,
    };
    print!(
        "{}",
        report(
            &rows,
            polly.is_ok(),
            &polly_note,
            gemm_blas,
            blas_note(&blas)
        )
    );
    Ok(())
}

/// Why the gemm target cannot be judged, when it cannot.
fn blas_note(blas: &Option<std::result::Result<Blas, String>>) -> Option<String> {
    match blas {
        None => Some("gemm is not among the kernels run".to_string()),
        Some(Err(e)) => Some(format!("OpenBLAS skipped: {e}")),
        Some(Ok(_)) => None,
    }
}

/// Reads the command-line options.
fn options(flags: &[String]) -> Result<Options> {
    let mut options = Options {
        runs: DEFAULT_RUNS,
        install: true,
        names: Vec::new(),
    };
    let mut flags = flags.iter();
    while let Some(flag) = flags.next() {
        match flag.as_str() {
            "--no-install" => options.install = false,
            "--runs" => {
                let n = flags.next().context("`--runs` needs a number")?;
                options.runs =
                    n.parse().ok().filter(|&n| n > 0).with_context(|| {
                        format!("expected a positive number of runs, found `{n}`")
                    })?;
            }
            other if other.starts_with('-') => {
                bail!("unknown option `{other}` (known: --runs N, --no-install)")
            }
            name => options.names.push(name.to_string()),
        }
    }
    Ok(options)
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
fn flag_list(field: &str) -> Vec<String> {
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
fn define(flags: &[String], name: &str) -> Option<u64> {
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

/// The clang names tried for Polly, the distribution's default first.
const CLANGS: &[&str] = &[
    "clang", "clang-14", "clang-15", "clang-16", "clang-17", "clang-18", "clang-19",
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

/// One timed run's output: the kernel's seconds and its standard output.
fn run_once(
    exe: &Path,
    env: &[(&str, String)],
    scratch: &Path,
) -> std::result::Result<(f64, String), String> {
    let stdout_path = scratch.with_extension("stdout");
    let stderr_path = scratch.with_extension("stderr");
    let open =
        |p: &Path| File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()));
    let mut child = Command::new(exe)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(open(&stdout_path)?)
        .stderr(open(&stderr_path)?)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
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
            Err(e) => return Err(format!("cannot wait for {}: {e}", exe.display())),
        }
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    if !status.success() {
        let first = stderr.lines().next().unwrap_or("");
        return Err(format!("exited with {status}: {first}"));
    }
    let seconds = kernel_time(&stderr).ok_or("no `time <seconds>` line on stderr")?;
    Ok((seconds, stdout))
}

/// The seconds of the last `time <seconds>` line.
fn kernel_time(stderr: &str) -> Option<f64> {
    stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("time ")?.trim().parse().ok())
        .next_back()
}

/// The minimum time of `runs` runs and every run's standard output.
fn time_runs(
    exe: &Path,
    threads: usize,
    extra_env: &[(&str, String)],
    runs: usize,
) -> std::result::Result<(f64, Vec<String>), String> {
    let mut env = vec![("OMP_NUM_THREADS", threads.to_string())];
    env.extend(extra_env.iter().cloned());
    let mut best = f64::INFINITY;
    let mut outputs = Vec::new();
    for _ in 0..runs {
        let (seconds, stdout) = run_once(exe, &env, exe)?;
        best = best.min(seconds);
        outputs.push(stdout);
    }
    Ok((best, outputs))
}

/// Compares a variant's checksum lines (`name value`) with the original's.
fn compare(original: &str, variant: &str) -> Check {
    if original == variant {
        return Check::Same;
    }
    let lines = |s: &str| -> Vec<(String, String)> {
        s.lines()
            .filter_map(|l| {
                let (name, value) = l.trim().split_once(' ')?;
                Some((name.to_string(), value.trim().to_string()))
            })
            .collect()
    };
    let (a, b) = (lines(original), lines(variant));
    if a.is_empty() || a.len() != b.len() {
        return Check::Mismatch;
    }
    let close = a.iter().zip(&b).all(|((na, va), (nb, vb))| {
        if na != nb {
            return false;
        }
        match (va.parse::<f64>(), vb.parse::<f64>()) {
            (Ok(x), Ok(y)) if x.is_finite() && y.is_finite() => {
                (x - y).abs() <= CLOSE * x.abs().max(y.abs()).max(f64::MIN_POSITIVE)
            }
            _ => va == vb,
        }
    });
    if close {
        Check::Close
    } else {
        Check::Mismatch
    }
}

/// Builds and times every variant of one kernel.
fn bench_kernel(
    root: &Path,
    out: &Path,
    pollen: &Path,
    polly: Option<&Polly>,
    kernel: &Kernel,
    runs: usize,
) -> Row {
    let kernels_dir = root.join("examples/kernels");
    let source = kernels_dir.join(format!("{}.c", kernel.name));
    let dir = out.join(&kernel.name);
    let mut row = Row {
        kernel: kernel.name.clone(),
        original: Err(String::new()),
        variants: Variant::ALL.map(|_| Outcome::Skipped),
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        row.original = Err(format!("cannot create {}: {e}", dir.display()));
        return row;
    }
    let common = |cmd: &mut Command| {
        cmd.arg("-DPOLLEN_TIME")
            .arg("-I")
            .arg(&kernels_dir)
            .args(&kernel.bench_flags);
    };
    let gcc = |src: &Path, exe: &Path, openmp: bool| {
        let mut cmd = Command::new("gcc");
        cmd.args(GCC_FLAGS);
        if openmp {
            cmd.arg("-fopenmp");
        }
        common(&mut cmd);
        cmd.arg(src).arg("-o").arg(exe).arg("-lm");
        cmd
    };

    let original_exe = dir.join("original");
    let original = compile(gcc(&source, &original_exe, false), "gcc (original)")
        .and_then(|()| time_runs(&original_exe, 1, &[], runs))
        .and_then(|(base, outputs)| {
            if outputs.iter().any(|o| *o != outputs[0]) {
                return Err("the original prints different checksums from run to run".into());
            }
            Ok((base, outputs[0].clone()))
        });
    let (base, reference) = match original {
        Ok(r) => r,
        Err(e) => {
            row.original = Err(e);
            return row;
        }
    };
    row.original = Ok(base);
    println!("  original      {base:>9.3} s");

    let optimized = dir.join(format!("{}.pollen.c", kernel.name));
    let pollen_exe = dir.join(Variant::Pollen1.file());
    let pollen_built = compile(
        {
            let mut cmd = Command::new(pollen);
            cmd.arg("opt").arg(&source).arg("-o").arg(&optimized);
            cmd
        },
        "pollen opt",
    )
    .and_then(|()| compile(gcc(&optimized, &pollen_exe, true), "gcc -fopenmp (Pollen)"));

    let polly_built = polly.map(|p| {
        [false, true].map(|parallel| {
            let variant = if parallel {
                Variant::PollyParallel
            } else {
                Variant::Polly
            };
            let mut cmd = Command::new(&p.cc);
            cmd.args(p.flags(parallel));
            common(&mut cmd);
            cmd.arg(&source)
                .arg("-o")
                .arg(dir.join(variant.file()))
                .arg("-lm");
            if parallel {
                cmd.arg("-lgomp");
            }
            compile(cmd, &format!("{} (Polly)", p.cc))
        })
    });

    for (slot, variant) in Variant::ALL.into_iter().enumerate() {
        let built = match variant {
            Variant::Pollen1 | Variant::Pollen2 => Some(pollen_built.clone()),
            Variant::Polly => polly_built.as_ref().map(|b| b[0].clone()),
            Variant::PollyParallel => polly_built.as_ref().map(|b| b[1].clone()),
        };
        let outcome = match built {
            None => Outcome::Skipped,
            Some(Err(e)) => Outcome::Failed(e),
            Some(Ok(())) => {
                match time_runs(&dir.join(variant.file()), variant.threads(), &[], runs) {
                    Ok((seconds, outputs)) => {
                        // The worst run counts: a race may show in some runs only.
                        let check = outputs.iter().map(|o| compare(&reference, o)).max();
                        Outcome::Timed(seconds, check.unwrap_or(Check::Mismatch))
                    }
                    Err(e) => Outcome::Failed(e),
                }
            }
        };
        match &outcome {
            Outcome::Timed(s, check) => println!(
                "  {:<13} {s:>9.3} s  x{:.2}  {check:?}",
                variant.title(),
                base / s
            ),
            Outcome::Failed(e) => println!("  {:<13} failed: {e}", variant.title()),
            Outcome::Skipped => {}
        }
        row.variants[slot] = outcome;
    }
    row
}

/// Builds and times `benches/polybench/dgemm_openblas.c` on gemm's bench shape, 1 and
/// 2 threads; installs `libopenblas-dev` when it does not build.
fn time_openblas(
    root: &Path,
    out: &Path,
    gemm: &Kernel,
    runs: usize,
    install: bool,
) -> Result<Blas> {
    let dims = ["NI", "NJ", "NK"].map(|d| define(&gemm.bench_flags, d));
    let [Some(ni), Some(nj), Some(nk)] = dims else {
        bail!("gemm's bench flags do not give NI, NJ and NK");
    };
    let exe = out.join("dgemm-openblas");
    let build = || {
        let mut cmd = Command::new("gcc");
        cmd.args(GCC_FLAGS)
            .args(&gemm.bench_flags)
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
        )
        .map(|(s, _)| s);
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
        (Ok(base), Outcome::Timed(s, Check::Same | Check::Close)) if *s > 0.0 => Some(base / s),
        _ => None,
    }
}

/// The table, the geometric means and the two targets.
fn report(
    rows: &[Row],
    polly_ran: bool,
    polly_note: &str,
    blas: Option<&Blas>,
    blas_note: Option<String>,
) -> String {
    let mut out =
        String::from("\nspeedups over gcc -O3 -march=native (kernel time, min of the runs)\n");
    out.push_str(&format!("{:<16} {:>10}", "kernel", "gcc -O3 s"));
    for v in Variant::ALL {
        out.push_str(&format!(" {:>10}", v.title()));
    }
    out.push_str("  checksums\n");
    let mut failures = Vec::new();
    for row in rows {
        let base = match &row.original {
            Ok(s) => format!("{s:.3}"),
            Err(e) => {
                failures.push(format!("{} (original): {e}", row.kernel));
                "error".to_string()
            }
        };
        out.push_str(&format!("{:<16} {base:>10}", row.kernel));
        let mut wrong = Vec::new();
        for (slot, v) in Variant::ALL.into_iter().enumerate() {
            let cell = match (&row.original, &row.variants[slot]) {
                (Ok(b), Outcome::Timed(s, check)) => {
                    if *check == Check::Mismatch {
                        wrong.push(v.title());
                    }
                    let mark = if *check == Check::Mismatch { "!" } else { "" };
                    format!("{:.2}{mark}", b / s)
                }
                (_, Outcome::Failed(e)) => {
                    failures.push(format!("{} ({}): {e}", row.kernel, v.title()));
                    "error".to_string()
                }
                _ => "-".to_string(),
            };
            out.push_str(&format!(" {cell:>10}"));
        }
        let status = if !wrong.is_empty() {
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
        };
        out.push_str(&format!("  {status}\n"));
    }
    out.push_str(&format!("{:<16} {:>10}", "geomean", ""));
    for slot in 0..Variant::ALL.len() {
        let values: Vec<f64> = rows.iter().filter_map(|r| speedup(r, slot)).collect();
        let cell = geomean(&values).map_or("-".to_string(), |g| format!("{g:.2}"));
        out.push_str(&format!(" {cell:>10}"));
    }
    out.push_str("  (over the kernels each ran correctly)\n");
    out.push_str("\"!\": checksums differ from the original's (left out of the geomean)\n");
    out.push_str(&format!("{polly_note}\n"));
    if !failures.is_empty() {
        out.push_str("\nfailures:\n");
        for f in &failures {
            out.push_str(&format!("  {f}\n"));
        }
    }
    out.push_str(&format!("\n{}\n", polly_target(rows, polly_ran)));
    out.push_str(&format!("{}\n", gemm_target(rows, blas, blas_note)));
    out
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
            Some(Outcome::Timed(s, _)) => Some(gflops(*s)),
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let o = options(&[
            "--runs".into(),
            "1".into(),
            "gemm".into(),
            "--no-install".into(),
        ])
        .expect("valid");
        assert_eq!((o.runs, o.install), (1, false));
        assert_eq!(o.names, ["gemm"]);
        assert!(options(&["--runs".into(), "0".into()]).is_err());
        assert!(options(&["--fast".into()]).is_err());
    }

    #[test]
    fn times_and_checksums_are_read() {
        assert_eq!(kernel_time("warning\ntime 1.500000\n"), Some(1.5));
        assert_eq!(kernel_time("nothing\n"), None);
        assert_eq!(compare("A 1.5\n", "A 1.5\n"), Check::Same);
        assert_eq!(compare("A 1000000\n", "A 1000000.0001\n"), Check::Close);
        assert_eq!(compare("A 1000000\n", "A 1000100\n"), Check::Mismatch);
        assert_eq!(compare("A 1\nB 2\n", "A 1\n"), Check::Mismatch);
        assert_eq!(compare("A 1\n", "B 1\n"), Check::Mismatch);
        assert_eq!(compare("A nan\n", "A 1\n"), Check::Mismatch);
        // The worst of several runs is kept with `max`.
        assert!(Check::Same < Check::Close && Check::Close < Check::Mismatch);
    }

    fn row(kernel: &str, base: f64, times: [Option<(f64, Check)>; 4]) -> Row {
        Row {
            kernel: kernel.to_string(),
            original: Ok(base),
            variants: times.map(|t| match t {
                Some((s, c)) => Outcome::Timed(s, c),
                None => Outcome::Failed("boom".to_string()),
            }),
        }
    }

    #[test]
    fn report_has_speedups_geomeans_and_targets() {
        let rows = vec![
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
        ];
        let blas = Blas {
            flops: 8e9,
            seconds: [Ok(1.0), Ok(0.5)],
        };
        let r = report(&rows, true, "Polly: clang", Some(&blas), None);
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
        let slow_blas = Blas {
            flops: 8e9,
            seconds: [Ok(1.0), Ok(0.1)],
        };
        let r = report(&rows, true, "", Some(&slow_blas), None);
        assert!(r.contains("GFLOP/s: NOT met"), "{r}");
        let r = report(
            &rows,
            false,
            "",
            None,
            Some("gemm is not among the kernels run".into()),
        );
        assert!(r.contains("cannot be judged (Polly did not run)"), "{r}");
        assert!(
            r.contains("cannot be judged (gemm is not among the kernels run)"),
            "{r}"
        );
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
