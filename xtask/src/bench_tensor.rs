//! `cargo xtask bench tensor`: the tensor programs of `examples/tensor` at the layer
//! shapes of ResNet-50 (batch 1) and BERT-base (128 tokens), lowered and optimized by
//! Pollen, timed against the naive C program and against TVM.
//!
//! For every operator of [`OPERATORS`] (or those named with `--only`), at its sizes (the
//! `-D` flags of the table, which override the `.te` file's defaults), this command
//! builds and times:
//! - the naive C program of `pollen te examples/tensor/<name>.te` under
//!   `gcc -O3 -march=native` on 1 thread (it has no parallel loops);
//! - Pollen's output, `pollen opt` of that program, under `gcc -O3 -march=native
//!   -fopenmp` on `--threads` threads (default 2);
//! - Pollen tuned: the fastest program of Pollen's auto-tuner, `pollen search` of that
//!   program with as many candidates as MetaSchedule's trials (`--trials`): `pollen
//!   opt`'s pipeline with other tile sizes (walked member by member), without tiling,
//!   unroll-and-jam or parallel loops, with another strategy (AKG's among them), and the
//!   legal fusion structures; each candidate built with these flags at the operator's
//!   sizes, checked against the naive program and timed by its `POLLEN_TIME` lines
//!   (its log is `search.log`), the fastest then built and timed as Pollen's output is;
//! - the operator in TVM (`xtask/tvm/<name>.py`, see `tvm_operator.py` there), built
//!   from `te.compute` for the host CPU with TVM's default lowering (no schedule) and
//!   tuned by MetaSchedule with `--trials` trials (`max_trials_global`, default 64), on
//!   `TVM_NUM_THREADS=--threads`. TVM ([`TVM_PACKAGES`] from PyPI: `apache-tvm` with
//!   `apache-tvm-ffi` pinned to [`TVM_FFI`], and what MetaSchedule imports) is installed
//!   on first use into a private virtual environment, `target/bench-tvm/venv`
//!   (`--no-install` skips that; without it the TVM columns are skipped with the
//!   reason, as they are with `--no-tvm`).
//!
//! Timing: the C programs run the kernel several times in one process (the call between
//! `OPERATOR_TIMER_START` and `OPERATOR_TIMER_STOP` wrapped in a loop, see
//! [`repeat_kernel`], before `pollen opt` reads the program, which leaves `main` as it
//! is); a build's time is the fastest run, so that initialisation, first-touch page
//! faults and the start of the OpenMP threads are not timed. TVM's `time_evaluator` runs
//! the operator once as a warm-up, then as many times; its time is the fastest too. How
//! many runs an operator gets ([`operator_runs`]): at least `--runs` (default 5), and
//! more for the fast ones, as many as make its naive program's runs last `--run-ms`
//! milliseconds (default 100), up to [`MAX_RUNS`]. A 10 µs kernel's first runs after
//! the program's start are several times slower than the later ones, so that 5 runs
//! would leave its time to chance. Every build of the operator (the naive program,
//! Pollen's, each candidate of Pollen's search, TVM's) makes the same number of runs.
//! Those first times are taken minutes apart, and the machine has slow spells of minutes,
//! so every build is then timed again in further rounds, side by side ([`time_rounds`],
//! `--rounds`, default [`DEFAULT_ROUNDS`] in all), and keeps its fastest time.
//!
//! Pollen's `opt` and `search` get [`POLLEN_FAST`] (`--reassociate --vector-math`)
//! unless `--exact` is given: like TVM, Pollen then vectorises reductions with a partial
//! result per lane and calls the vector variants of `expf`, `tanhf` and `erff`.
//!
//! Checks: the naive program and Pollen's output are built once more with
//! [`CHECK_FLAGS`] (no fused multiply-adds, which gcc forms or not depending on the shape
//! of the loops) and run once. Each output tensor prints a line of its checksum and the
//! checksum of its elements' absolute values (`operator_output` of
//! `examples/operators/operators.h`). TVM reorders and vectorises reductions and has its
//! own `exp`, `erf` and `tanh`, so the difference of its checksums (computed the same way
//! by the script) from the naive program's must be at most [`TVM_TOLERANCE`] times the
//! checksum of the absolute values of its output; so must Pollen's (its search checks
//! every candidate so: `pollen search --tolerance`), and with `--exact` Pollen's
//! checksums must equal the naive program's. A build that fails its check is marked
//! wrong and its time never counts.
//!
//! The report gives the milliseconds of every build, then per operator the naive
//! program's and TVM default's time over Pollen's and TVM tuned's over Pollen tuned's
//! (above 1: Pollen is faster), their geometric means and the targets: Pollen tuned at
//! least as fast as TVM tuned in geometric mean, and at least [`EVERY_TARGET`] times as
//! fast on every operator. Its first line
//! names the CPUs and the load average: on a machine busier than its CPUs, a parallel
//! build waits for threads that are not scheduled (idle OpenMP and TVM threads spin), and
//! its times say little. Everything built goes to `target/bench-tensor/`, with the report
//! as `report.txt`, `results.csv` and `results.json`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::bench_polybench::{build_pollen, compile, gcc_build, geomean, run_logged, works};
use crate::cells::{failures, largest_difference, Cell, Check};
use crate::formats::{csv_field, json_number, json_string};
use crate::venv::Venv;

/// How many timed runs each build makes by default (its time is the fastest).
const DEFAULT_RUNS: usize = 5;

/// The milliseconds an operator's naive runs should take together by default: the
/// faster operators get more runs ([`operator_runs`]).
const DEFAULT_RUN_MS: usize = 100;

/// The most runs of one build.
const MAX_RUNS: usize = 200;

/// How many times every build of an operator is timed by default ([`time_rounds`]).
const DEFAULT_ROUNDS: usize = 4;

/// MetaSchedule's trial budget per operator by default.
const DEFAULT_TRIALS: usize = 64;

/// The threads of the parallel builds by default.
const DEFAULT_THREADS: usize = 2;

/// The largest difference of a TVM checksum from the naive program's that still counts
/// as correct, measured against the checksum of the absolute values of TVM's output (a
/// checksum is a weighted sum of elements of both signs, so it cancels: the difference
/// itself can be a few thousandths of it where the float32 reductions are merely summed
/// in another order or with fused multiply-adds). Those orders move it by 1e-7 of the
/// absolute values or less; one wrong element among a hundred thousand by about 1e-5,
/// a wrong border or row by more.
const TVM_TOLERANCE: f64 = 1e-5;

/// The options of `pollen opt` and `pollen search` with which Pollen, like TVM,
/// reassociates reductions (vectorised with partial results per lane) and calls the
/// vector variants of `expf`, `tanhf` and `erff` (glibc's `libmvec`), unless `--exact`.
const POLLEN_FAST: &[&str] = &["--reassociate", "--vector-math"];

/// How fast Pollen tuned should be against TVM tuned in geometric mean (TVM's
/// milliseconds over Pollen's).
const GEOMEAN_TARGET: f64 = 1.0;

/// How fast Pollen tuned should be against TVM tuned on every operator.
const EVERY_TARGET: f64 = 0.8;

/// The gcc flags of every build.
const GCC_FLAGS: &[&str] = &["-O3", "-march=native"];

/// The further gcc flags of the builds whose checksums are compared: gcc contracts a
/// multiply and an add into a fused multiply-add or not depending on how the loops are
/// vectorised, so the timed builds of two equivalent programs may round differently.
const CHECK_FLAGS: &[&str] = &["-ffp-contract=off"];

/// The version of `apache-tvm-ffi` installed with TVM: later ones crash MetaSchedule
/// when it saves its database.
const TVM_FFI: &str = "apache-tvm-ffi==0.1.14.post1";

/// The PyPI packages of the TVM environment (MetaSchedule needs `cloudpickle` and
/// `psutil` for its builder and runner, `xgboost` for its cost model).
const TVM_PACKAGES: &[&str] = &[
    "apache-tvm",
    TVM_FFI,
    "numpy",
    "cloudpickle",
    "psutil",
    "xgboost-cpu",
];

/// The directory, in an operator's, of TVM's modules as built (`default.so`,
/// `tuned.so`), timed again by the later rounds.
const TVM_LIBS: &str = "tvm-libs";

/// How long one TVM script may run (seconds): building, tuning and timing both modes.
const TVM_LIMIT_S: u64 = 3600;

/// The columns of a row, in table order.
const COLUMNS: [&str; 5] = [
    "naive 1T",
    "TVM default",
    "TVM tuned",
    "Pollen",
    "Pollen tuned",
];

/// The column names of the CSV and JSON files.
const COLUMN_KEYS: [&str; 5] = [
    "naive_1t",
    "tvm_default",
    "tvm_tuned",
    "pollen",
    "pollen_tuned",
];

/// The column of the naive program.
const NAIVE: usize = 0;

/// The column of TVM's default lowering.
const TVM_DEFAULT: usize = 1;

/// The column of MetaSchedule's best.
const TVM_TUNED: usize = 2;

/// The column of Pollen's output.
const POLLEN: usize = 3;

/// The column of the fastest program of Pollen's auto-tuner (`pollen search`).
const POLLEN_TUNED: usize = 4;

/// One operator of the suite: a program of `examples/tensor` at one layer's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Operator {
    /// The program's name (`examples/tensor/<name>.te`, `xtask/tvm/<name>.py`).
    name: &'static str,
    /// Its sizes, as `pollen te`'s macros.
    sizes: &'static [&'static str],
    /// The layer.
    layer: &'static str,
}

/// The suite, in table order.
const OPERATORS: &[Operator] = &[
    Operator {
        name: "matmul",
        sizes: &["-DM=128", "-DN=3072", "-DK=768"],
        layer: "BERT-base feed-forward in, 128 tokens, 768 -> 3072",
    },
    Operator {
        name: "matmul_bias_relu",
        sizes: &["-DM=128", "-DN=768", "-DK=3072"],
        layer: "BERT-base feed-forward out with bias and ReLU, 3072 -> 768",
    },
    Operator {
        name: "batched_matmul",
        sizes: &["-DBATCH=12", "-DM=128", "-DN=128", "-DK=64"],
        layer: "BERT-base attention scores, 12 heads, [128 x 64] x [64 x 128]",
    },
    Operator {
        name: "conv2d_3x3",
        sizes: &["-DN=1", "-DC=64", "-DH=56", "-DW=56", "-DK=64"],
        layer: "ResNet-50 conv2_x 3x3, 64 -> 64 at 56x56",
    },
    Operator {
        name: "conv2d_3x3_s2",
        sizes: &["-DN=1", "-DC=128", "-DH=56", "-DW=56", "-DK=128"],
        layer: "ResNet-50 v1.5 conv3_1 3x3 stride 2, 128 channels, 56 -> 28",
    },
    Operator {
        name: "conv2d_1x1",
        sizes: &["-DN=1", "-DC=256", "-DH=56", "-DW=56", "-DK=64"],
        layer: "ResNet-50 bottleneck 1x1, 256 -> 64 at 56x56",
    },
    Operator {
        name: "conv2d_1x1_s2",
        sizes: &["-DN=1", "-DC=256", "-DH=56", "-DW=56", "-DK=512"],
        layer: "ResNet-50 projection shortcut 1x1 stride 2, 256 -> 512, 56 -> 28",
    },
    Operator {
        name: "depthwise_conv",
        sizes: &["-DN=1", "-DC=144", "-DH=56", "-DW=56"],
        layer: "MobileNetV2 depthwise 3x3, 144 channels at 56x56",
    },
    Operator {
        name: "max_pool",
        sizes: &["-DN=1", "-DC=64", "-DH=112", "-DW=112"],
        layer: "ResNet-50 stem 3x3 max pooling stride 2, 112 -> 56",
    },
    Operator {
        name: "avg_pool",
        sizes: &["-DN=1", "-DC=128", "-DH=56", "-DW=56"],
        layer: "DenseNet-121 transition 2x2 average pooling, 56 -> 28",
    },
    Operator {
        name: "global_avg_pool",
        sizes: &["-DN=1", "-DC=2048", "-DH=7", "-DW=7"],
        layer: "ResNet-50 head, 2048 channels at 7x7",
    },
    Operator {
        name: "softmax",
        sizes: &["-DR=12", "-DS=128"],
        layer: "BERT-base attention softmax, 12 heads of 128 x 128",
    },
    Operator {
        name: "layer_norm",
        sizes: &["-DB=1", "-DS=128", "-DH=768"],
        layer: "BERT-base layer norm, 128 tokens x 768",
    },
    Operator {
        name: "bias_gelu_erf",
        sizes: &["-DT=128", "-DI=3072"],
        layer: "BERT-base feed-forward bias + GELU (erf), 128 x 3072",
    },
    Operator {
        name: "bias_gelu_tanh",
        sizes: &["-DT=128", "-DI=3072"],
        layer: "BERT-base feed-forward bias + GELU (tanh), 128 x 3072",
    },
];

/// The options of one run of the command.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    /// The fewest runs of a build.
    runs: usize,
    /// The milliseconds the naive program's runs should take together
    /// ([`operator_runs`]).
    run_ms: usize,
    trials: usize,
    threads: usize,
    /// How many times every build of an operator is timed ([`time_rounds`]).
    rounds: usize,
    install: bool,
    /// Whether TVM's columns are measured (`--no-tvm`: Pollen's only).
    tvm: bool,
    /// Whether Pollen keeps the naive program's order of every operation and its
    /// C library calls (`--exact`), its checksums then required equal; by default it
    /// reassociates reductions and calls vector math functions as TVM does
    /// ([`POLLEN_FAST`]).
    exact: bool,
    only: Vec<String>,
}

/// An operator's results.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    operator: String,
    /// The layer whose shape it has.
    layer: String,
    /// The size flags run.
    sizes: Vec<String>,
    /// How many runs each build made ([`operator_runs`]).
    runs: usize,
    /// One cell per column of [`COLUMNS`].
    cells: Vec<Cell>,
}

impl Row {
    /// The naive program's time over Pollen's.
    fn vs_naive(&self) -> Option<f64> {
        Some(self.cells[NAIVE].correct_ms()? / self.cells[POLLEN].correct_ms()?)
    }

    /// TVM default's time over Pollen's default (above 1: Pollen is faster).
    fn vs_tvm_default(&self) -> Option<f64> {
        Some(self.cells[TVM_DEFAULT].correct_ms()? / self.cells[POLLEN].correct_ms()?)
    }

    /// TVM tuned's time over Pollen tuned's, each tuned with the same number of trials
    /// (above 1: Pollen is faster).
    fn vs_tvm(&self) -> Option<f64> {
        Some(self.cells[TVM_TUNED].correct_ms()? / self.cells[POLLEN_TUNED].correct_ms()?)
    }
}

/// Runs `cargo xtask bench tensor [--no-install] [--no-tvm] [--trials N] [--runs N]
/// [--run-ms MS] [--rounds N] [--threads N] [--only op,op] [--exact]`.
pub fn run(root: &Path, flags: &[String]) -> Result<()> {
    let options = options(flags)?;
    let operators = select(&options.only)?;
    let out = root.join("target/bench-tensor");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    if !works(Command::new("gcc").arg("--version")) {
        bail!("gcc is needed (Debian: apt-get install gcc)");
    }
    let pollen = build_pollen(root)?;
    let python = if options.tvm {
        tvm_python(root, options.install)
    } else {
        Err("--no-tvm given".to_string())
    };
    if let Err(reason) = &python {
        println!("bench: TVM columns skipped: {reason}");
    }
    let setup = Setup {
        root,
        out: &out,
        pollen: &pollen,
        python: python.as_deref().map_err(String::clone),
        options: &options,
    };
    let mut rows = Vec::new();
    for op in &operators {
        println!("bench: {}: {} ({})", op.name, op.layer, op.sizes.join(" "));
        rows.push(bench_operator(&setup, op));
    }
    let text = report(&rows, &options, python.as_ref().err(), &machine());
    print!("{text}");
    crate::formats::write_reports(&out, &text, csv(&rows), json(&rows, &options))
}

/// Reads the command-line options.
fn options(flags: &[String]) -> Result<Options> {
    let mut options = Options {
        runs: DEFAULT_RUNS,
        run_ms: DEFAULT_RUN_MS,
        trials: DEFAULT_TRIALS,
        threads: DEFAULT_THREADS,
        rounds: DEFAULT_ROUNDS,
        install: true,
        tvm: true,
        exact: false,
        only: Vec::new(),
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
            "--no-tvm" => options.tvm = false,
            "--exact" => options.exact = true,
            "--runs" => options.runs = positive(value("a number")?)?,
            "--run-ms" => options.run_ms = positive(value("a number")?)?,
            "--trials" => options.trials = positive(value("a number")?)?,
            "--threads" => options.threads = positive(value("a number")?)?,
            "--rounds" => options.rounds = positive(value("a number")?)?,
            "--only" => options.only.extend(
                value("operator names")?
                    .split(',')
                    .filter(|n| !n.is_empty())
                    .map(str::to_string),
            ),
            other => bail!(
                "unknown option `{other}` (known: --runs N, --run-ms MS, --rounds N, --trials N, \
                 --threads N, --only op,op, --no-install, --no-tvm, --exact)"
            ),
        }
    }
    Ok(options)
}

/// The operators named with `--only`, in the order given; all when none is named.
fn select(names: &[String]) -> Result<Vec<Operator>> {
    if names.is_empty() {
        return Ok(OPERATORS.to_vec());
    }
    names
        .iter()
        .map(|name| {
            OPERATORS
                .iter()
                .find(|op| op.name == name)
                .copied()
                .with_context(|| {
                    let known: Vec<&str> = OPERATORS.iter().map(|op| op.name).collect();
                    format!("no operator `{name}` (known: {})", known.join(", "))
                })
        })
        .collect()
}

/// The C program with the kernel's call run `TENSOR_RUNS` times (a macro, default 1):
/// the lines from `OPERATOR_TIMER_START;` to `OPERATOR_TIMER_STOP;` of `main` go into a
/// loop, so that every run prints its own time. Every kernel of `pollen te` computes its
/// tensors from the inputs alone (a reduction starts from its initial value), so the
/// outputs of the last run are those of one.
fn repeat_kernel(source: &str) -> std::result::Result<String, String> {
    let lines: Vec<&str> = source.lines().collect();
    let find = |what: &str| {
        lines
            .iter()
            .position(|l| l.trim() == what)
            .ok_or_else(|| format!("no `{what}` line in the C program"))
    };
    let start = find("OPERATOR_TIMER_START;")?;
    let stop = find("OPERATOR_TIMER_STOP;")?;
    if stop < start {
        return Err("`OPERATOR_TIMER_STOP;` comes before `OPERATOR_TIMER_START;`".into());
    }
    let include = lines
        .iter()
        .position(|l| l.starts_with("#include \"operators.h\""))
        .ok_or("no `#include \"operators.h\"` in the C program")?;
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i == start {
            out.push_str("  for (int tensor_run = 0; tensor_run < TENSOR_RUNS; tensor_run++) {\n");
        }
        if (start..=stop).contains(&i) {
            out.push_str("  ");
        }
        out.push_str(line);
        out.push('\n');
        if i == stop {
            out.push_str("  }\n");
        }
        if i == include {
            out.push_str("\n#ifndef TENSOR_RUNS\n# define TENSOR_RUNS 1\n#endif\n");
        }
    }
    Ok(out)
}

/// What every operator's run needs.
struct Setup<'a> {
    root: &'a Path,
    out: &'a Path,
    pollen: &'a Path,
    /// The Python with TVM, or why there is none.
    python: std::result::Result<&'a Path, String>,
    options: &'a Options,
}

/// Builds and times every column of one operator.
fn bench_operator(cx: &Setup, op: &Operator) -> Row {
    let sizes: Vec<String> = op.sizes.iter().map(|s| s.to_string()).collect();
    let mut row = Row {
        operator: op.name.to_string(),
        layer: op.layer.to_string(),
        sizes: sizes.clone(),
        runs: cx.options.runs,
        cells: vec![Cell::Skipped("the naive program failed".into()); COLUMNS.len()],
    };
    let dir = cx.out.join(op.name);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        row.cells[NAIVE] = Cell::Failed(format!("cannot create {}: {e}", dir.display()));
        return row;
    }
    let include = cx.root.join("examples/operators");
    let threads = cx.options.threads;
    // A timed build (`runs` runs), or a checked one (one run, no contraction).
    let build = |c_file: &Path, exe: &Path, openmp: bool, check: bool, runs: usize, what: &str| {
        let runs = format!("-DTENSOR_RUNS={}", if check { 1 } else { runs });
        let mut flags = GCC_FLAGS.to_vec();
        if openmp {
            flags.push("-fopenmp");
        }
        if check {
            flags.extend(CHECK_FLAGS);
        }
        flags.push(&runs);
        gcc_build(&flags, &include, &sizes, c_file, exe, what)
    };

    // The naive program; its checked build's checksums are the reference.
    let program = cx.root.join(format!("examples/tensor/{}.te", op.name));
    let lowered = dir.join(format!("{}.naive.c", op.name));
    let source = dir.join(format!("{}.c", op.name));
    let exe = dir.join("naive");
    let mut te = Command::new(cx.pollen);
    te.arg("te").arg(&program).arg("-o").arg(&lowered);
    let naive = compile(te, "pollen te")
        .and_then(|()| {
            let text = std::fs::read_to_string(&lowered)
                .map_err(|e| format!("cannot read {}: {e}", lowered.display()))?;
            std::fs::write(&source, repeat_kernel(&text)?)
                .map_err(|e| format!("cannot write {}: {e}", source.display()))
        })
        .and_then(|()| build(&source, &exe, false, false, cx.options.runs, "gcc (naive)"))
        .and_then(|()| time_c(&exe, 1))
        .and_then(|(ms, _)| {
            // Timed again with the runs its time calls for.
            let runs = operator_runs(cx.options, ms);
            if runs == cx.options.runs {
                return Ok((runs, ms));
            }
            build(&source, &exe, false, false, runs, "gcc (naive)")?;
            Ok((runs, time_c(&exe, 1)?.0))
        })
        .and_then(|(runs, ms)| {
            let check = dir.join("naive-check");
            build(
                &source,
                &check,
                false,
                true,
                1,
                "gcc -ffp-contract=off (naive)",
            )?;
            let (_, stdout) = time_c(&check, 1)?;
            if checksums(&stdout).is_empty() {
                return Err("the naive program printed no checksum".to_string());
            }
            Ok((runs, ms, stdout))
        });
    let reference = match naive {
        Ok((runs, ms, stdout)) => {
            row.runs = runs;
            row.cells[NAIVE] = Cell::Timed(ms, Check::Same);
            stdout
        }
        Err(e) => {
            row.cells[NAIVE] = Cell::Failed(e);
            show(COLUMNS[NAIVE], &row.cells[NAIVE]);
            return row;
        }
    };
    show(COLUMNS[NAIVE], &row.cells[NAIVE]);
    let expected = checksums(&reference);

    // Pollen's output, and the fastest program of its auto-tuner; each built and timed
    // as the naive program is, and checked against it: exactly with `--exact`, else
    // within TVM's tolerance.
    let runs = row.runs;
    let pollen_cell = |c_file: &Path, name: &str| {
        let exe = dir.join(name);
        let check = dir.join(format!("{name}-check"));
        cell_of(
            build(c_file, &exe, true, false, runs, "gcc -fopenmp (Pollen)")
                .and_then(|()| time_c(&exe, threads))
                .and_then(|(ms, _)| {
                    let what = "gcc -fopenmp -ffp-contract=off (Pollen)";
                    build(c_file, &check, true, true, 1, what)?;
                    let (_, stdout) = time_c(&check, threads)?;
                    let check = if cx.options.exact {
                        compare(&expected, &checksums(&stdout), 0.0)
                    } else {
                        compare_scaled(&expected, &scaled_checksums(&stdout), TVM_TOLERANCE)
                    };
                    Ok((ms, check))
                }),
        )
    };
    let optimized = dir.join(format!("{}.pollen.c", op.name));
    let mut opt = Command::new(cx.pollen);
    opt.arg("opt").arg(&source).arg("-o").arg(&optimized);
    if !cx.options.exact {
        opt.args(POLLEN_FAST);
    }
    row.cells[POLLEN] = match compile(opt, "pollen opt") {
        Ok(()) => pollen_cell(&optimized, "pollen"),
        Err(e) => Cell::Failed(e),
    };
    show(COLUMNS[POLLEN], &row.cells[POLLEN]);
    let tuned = dir.join(format!("{}.tuned.c", op.name));
    row.cells[POLLEN_TUNED] = match search(cx, &source, &tuned, &sizes, runs, &dir) {
        Ok(()) => pollen_cell(&tuned, "pollen-tuned"),
        Err(e) => Cell::Failed(e),
    };
    show(COLUMNS[POLLEN_TUNED], &row.cells[POLLEN_TUNED]);

    // TVM, untuned and tuned.
    let script = cx.root.join(format!("xtask/tvm/{}.py", op.name));
    let tvm = match &cx.python {
        Err(reason) => Err(Cell::Skipped(reason.clone())),
        Ok(_) if !script.exists() => {
            Err(Cell::Skipped(format!("no TVM script {}", script.display())))
        }
        Ok(python) => Ok(run_tvm(
            python, &script, &sizes, cx.options, runs, &dir, None,
        )),
    };
    for (column, mode) in [(TVM_DEFAULT, "default"), (TVM_TUNED, "tuned")] {
        row.cells[column] = match &tvm {
            Err(cell) => cell.clone(),
            Ok(Err(e)) => Cell::Failed(e.clone()),
            Ok(Ok((stdout, note))) => cell_of(
                tvm_line(stdout, mode)
                    .map_err(|e| match note {
                        Some(note) if e.starts_with("the TVM script printed no line") => {
                            format!("{e}: {note}")
                        }
                        _ => e,
                    })
                    .map(|(ms, sums)| (ms, compare_scaled(&expected, &sums, TVM_TOLERANCE))),
            ),
        };
        show(COLUMNS[column], &row.cells[column]);
    }
    let python = cx.python.as_ref().ok().filter(|_| script.exists());
    time_rounds(
        cx,
        &mut row,
        &dir,
        &expected,
        python.map(|p| (*p, script.as_path())),
    );
    row
}

/// Times the operator's builds again in `--rounds` - 1 further rounds, each of which
/// runs every build that was timed and found correct once, one after another (the naive
/// program, Pollen's, Pollen tuned, then TVM's two modules loaded as built), in the
/// reverse order every other round; each build keeps its fastest time. The first times
/// are taken minutes apart (Pollen's before its search, TVM's after MetaSchedule's), and
/// the 2-core machines this runs on have slow spells of minutes; timed side by side in
/// rounds, every build meets the same spells. A build that fails in a later round is
/// marked failed.
fn time_rounds(
    cx: &Setup,
    row: &mut Row,
    dir: &Path,
    expected: &[f64],
    tvm: Option<(&Path, &Path)>,
) {
    let threads = cx.options.threads;
    let timed = |row: &Row, column: usize| row.cells[column].correct_ms().is_some();
    for round in 2..=cx.options.rounds {
        let mut order = vec![
            Rerun::C(NAIVE, "naive", 1),
            Rerun::C(POLLEN, "pollen", threads),
            Rerun::C(POLLEN_TUNED, "pollen-tuned", threads),
            Rerun::Tvm,
        ];
        if round % 2 == 0 {
            order.reverse();
        }
        let mut line = format!("  round {round}:");
        for step in order {
            let results: Vec<(usize, std::result::Result<f64, String>)> = match step {
                Rerun::C(column, name, threads) => {
                    if !timed(row, column) {
                        continue;
                    }
                    vec![(column, time_c(&dir.join(name), threads).map(|(ms, _)| ms))]
                }
                Rerun::Tvm => {
                    let Some((python, script)) = tvm else {
                        continue;
                    };
                    let columns: Vec<usize> = [TVM_DEFAULT, TVM_TUNED]
                        .into_iter()
                        .filter(|&c| timed(row, c))
                        .collect();
                    if columns.is_empty() {
                        continue;
                    }
                    let load = Some(dir.join(TVM_LIBS));
                    let output = run_tvm(
                        python,
                        script,
                        &row.sizes,
                        cx.options,
                        row.runs,
                        dir,
                        load.as_deref(),
                    );
                    columns
                        .into_iter()
                        .map(|c| {
                            let mode = if c == TVM_DEFAULT { "default" } else { "tuned" };
                            let ms = output
                                .as_ref()
                                .map_err(String::clone)
                                .and_then(|(stdout, _)| tvm_line(stdout, mode))
                                .and_then(|(ms, sums)| {
                                    match compare_scaled(expected, &sums, TVM_TOLERANCE) {
                                        Check::Wrong(_) => Err("wrong checksums".to_string()),
                                        _ => Ok(ms),
                                    }
                                });
                            (c, ms)
                        })
                        .collect()
                }
            };
            for (column, result) in results {
                let text = keep_fastest(&mut row.cells[column], round, result);
                let _ = write!(line, " {} {text}", COLUMNS[column]);
            }
        }
        println!("{line}");
    }
    if cx.options.rounds > 1 {
        println!("  fastest of {} rounds:", cx.options.rounds);
        for (column, title) in COLUMNS.iter().enumerate() {
            if timed(row, column) {
                show(title, &row.cells[column]);
            }
        }
    }
}

/// A build that a round of [`time_rounds`] times again: a C program (its column, its
/// executable in the operator's folder, its threads) or TVM's two modules (one run of
/// the script, which loads them).
#[derive(Clone, Copy, Debug)]
enum Rerun {
    C(usize, &'static str, usize),
    Tvm,
}

/// Folds one round's result for a build into its cell: a time below the cell's replaces
/// it (the cell keeps its checksums' verdict), a failure marks the cell failed with the
/// round. The round's text for the build: its time, or `error`.
fn keep_fastest(cell: &mut Cell, round: usize, result: std::result::Result<f64, String>) -> String {
    match result {
        Ok(ms) => {
            if let Cell::Timed(best, _) = cell {
                *best = best.min(ms);
            }
            ms_text(ms)
        }
        Err(e) => {
            *cell = Cell::Failed(format!("round {round}: {e}"));
            "error".to_string()
        }
    }
}

/// Pollen's auto-tuner on the operator's C program: `pollen search` with `--trials`
/// candidates (MetaSchedule's budget), each built with the bench's flags at the
/// operator's sizes and `runs` runs, checked without contraction and timed by its `POLLEN_TIME` lines
/// on `--threads` threads; the fastest goes to `best`. Its log is `search.log`.
fn search(
    cx: &Setup,
    source: &Path,
    best: &Path,
    sizes: &[String],
    runs: usize,
    dir: &Path,
) -> std::result::Result<(), String> {
    let include = cx.root.join("examples/operators");
    let o = cx.options;
    let mut cmd = Command::new(cx.pollen);
    cmd.arg("search")
        .arg(source)
        .arg("-o")
        .arg(best)
        .args(["--budget", &o.trials.to_string()])
        .args([
            "--compiler",
            &format!("gcc {} -fopenmp", GCC_FLAGS.join(" ")),
        ])
        .arg("--cflags")
        .arg(format!("-I {} -lm", include.display()))
        .args(["--check-cflags", &CHECK_FLAGS.join(" ")])
        .args(["--threads", &o.threads.to_string()])
        .args(["--runs", "1", "--jobs", "2", "--quiet"])
        .arg("--work-dir")
        .arg(dir.join("search"))
        .args(["-D", &format!("TENSOR_RUNS={runs}")]);
    if !o.exact {
        cmd.args(POLLEN_FAST)
            .args(["--tolerance", &TVM_TOLERANCE.to_string()]);
    }
    for size in sizes {
        let definition = size.trim_start_matches("-D");
        cmd.args(["-D", definition, "--check-define", definition]);
    }
    let output = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run pollen search: {e}"))?;
    let mut log = output.stdout.clone();
    log.extend_from_slice(&output.stderr);
    let _ = std::fs::write(dir.join("search.log"), &log);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
        return Err(format!(
            "pollen search failed: {}",
            last.unwrap_or("no message")
        ));
    }
    Ok(())
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
                Check::Close(d) | Check::Wrong(Some(d)) => format!(" (diff {d:.1e})"),
                _ => String::new(),
            };
            println!(
                "  {title:<12} {:>10} ms  {}{diff}",
                ms_text(*ms),
                check.name()
            );
        }
        Cell::Failed(e) => println!("  {title:<12} failed: {e}"),
        Cell::Skipped(_) => {}
    }
}

/// Runs a C build once on `threads` threads: the fastest of its `POLLEN_TIME` lines in
/// milliseconds, and its standard output (the checksums).
fn time_c(exe: &Path, threads: usize) -> std::result::Result<(f64, String), String> {
    let mut cmd = Command::new(exe);
    cmd.env("OMP_NUM_THREADS", threads.to_string());
    let (stdout, stderr) = run_logged(cmd, exe)?;
    let ms = fastest(&stderr).ok_or("no `POLLEN_TIME <seconds>` line on stderr")?;
    Ok((ms * 1e3, stdout))
}

/// How many runs each build of an operator makes, given its naive program's fastest
/// run: as many as make the naive runs last `--run-ms` milliseconds together, at least
/// `--runs` and at most [`MAX_RUNS`] (or `--runs`, where that is larger).
fn operator_runs(o: &Options, naive_ms: f64) -> usize {
    let wanted = if naive_ms.is_finite() && naive_ms > 0.0 {
        // Below MAX_RUNS + 1 after the `min`, so the conversion is exact.
        (o.run_ms as f64 / naive_ms).ceil().min(MAX_RUNS as f64) as usize
    } else {
        MAX_RUNS
    };
    wanted.max(o.runs)
}

/// The smallest of the `POLLEN_TIME <seconds>` lines.
fn fastest(stderr: &str) -> Option<f64> {
    stderr
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("POLLEN_TIME ")?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .filter(|s| s.is_finite() && *s >= 0.0)
        .reduce(f64::min)
}

/// Runs an operator's TVM script in both modes: its standard output and, where it did not
/// end well, why; or why it could not run. The modules built are saved in
/// `<dir>/tvm-libs`; with `load`, none is built: those of that directory are timed.
fn run_tvm(
    python: &Path,
    script: &Path,
    sizes: &[String],
    o: &Options,
    runs: usize,
    dir: &Path,
    load: Option<&Path>,
) -> std::result::Result<(String, Option<String>), String> {
    let work = dir.join("tvm-work");
    let mut cmd = Command::new("timeout");
    cmd.arg(TVM_LIMIT_S.to_string())
        .arg(python)
        .arg(script)
        .args(sizes)
        .args(["--mode", "both", "--trials"])
        .arg(o.trials.to_string())
        .arg("--runs")
        .arg(runs.to_string())
        .arg("--threads")
        .arg(o.threads.to_string())
        .arg("--work-dir")
        .arg(&work)
        .env("TVM_NUM_THREADS", o.threads.to_string());
    let logs = match load {
        Some(libs) => {
            cmd.arg("--load").arg(libs);
            dir.join("tvm-rounds")
        }
        None => {
            // MetaSchedule appends to its database: a fresh one per run.
            let _ = std::fs::remove_dir_all(&work);
            cmd.arg("--export").arg(dir.join(TVM_LIBS));
            dir.join("tvm")
        }
    };
    let output = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let _ = std::fs::write(logs.with_extension("stdout"), &stdout);
    let _ = std::fs::write(logs.with_extension("stderr"), &output.stderr);
    // A failing mode says why on its own line and the other mode's line still counts; a
    // mode without a line gets the reason the script stopped.
    let note = if output.status.code() == Some(124) {
        Some(format!("timed out after {TVM_LIMIT_S} s"))
    } else if output.status.success() {
        None
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
        Some(format!(
            "the TVM script failed: {}",
            last.unwrap_or("no message")
        ))
    };
    Ok((stdout, note))
}

/// Reads `<operator> <mode> <milliseconds> <checksum> <magnitude>...` (a checksum and the
/// checksum of the absolute values per output), or the mode's `<operator> <mode> error
/// <message>`: the milliseconds and the pairs.
fn tvm_line(stdout: &str, mode: &str) -> std::result::Result<(f64, Vec<(f64, f64)>), String> {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(mode))
        .ok_or_else(|| format!("the TVM script printed no line for {mode}"))?;
    let words: Vec<&str> = line.split_whitespace().skip(2).collect();
    if words.first() == Some(&"error") {
        return Err(words[1..].join(" "));
    }
    let numbers: Option<Vec<f64>> = words.iter().map(|w| w.parse().ok()).collect();
    match numbers.as_deref() {
        Some([ms, sums @ ..]) if !sums.is_empty() && sums.len() % 2 == 0 => {
            Ok((*ms, sums.chunks(2).map(|pair| (pair[0], pair[1])).collect()))
        }
        _ => Err(format!("unexpected TVM output `{line}`")),
    }
}

/// The checksums of a C program's standard output (`name value` lines).
fn checksums(stdout: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1)?.parse().ok())
        .collect()
}

/// The checksums of a C program's standard output with their magnitudes (`name value
/// magnitude` lines: `operator_output` of `examples/operators/operators.h`).
fn scaled_checksums(stdout: &str) -> Vec<(f64, f64)> {
    stdout
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace().skip(1);
            Some((words.next()?.parse().ok()?, words.next()?.parse().ok()?))
        })
        .collect()
}

/// Checksums against the expected ones: the same, within a relative difference of
/// `tolerance`, or wrong (a different count is wrong).
fn compare(expected: &[f64], sums: &[f64], tolerance: f64) -> Check {
    if expected.len() != sums.len() || expected.is_empty() {
        return Check::Wrong(None);
    }
    let d = largest_difference(expected, sums);
    if d == 0.0 {
        Check::Same
    } else if d <= tolerance {
        Check::Close(d)
    } else {
        Check::Wrong(Some(d))
    }
}

/// TVM's checksums against the expected ones, each difference measured against the
/// checksum of the absolute values of TVM's output (`(checksum, magnitude)` pairs): the
/// same, within `tolerance`, or wrong.
fn compare_scaled(expected: &[f64], sums: &[(f64, f64)], tolerance: f64) -> Check {
    if expected.len() != sums.len() || expected.is_empty() {
        return Check::Wrong(None);
    }
    let d = expected
        .iter()
        .zip(sums)
        .map(|(&e, &(s, magnitude))| {
            if e == s {
                0.0
            } else if e.is_finite() && s.is_finite() && magnitude.is_finite() {
                (e - s).abs() / magnitude.max(f64::MIN_POSITIVE)
            } else {
                f64::INFINITY
            }
        })
        .fold(0.0, f64::max);
    if d == 0.0 {
        Check::Same
    } else if d <= tolerance {
        Check::Close(d)
    } else {
        Check::Wrong(Some(d))
    }
}

/// The Python of the private virtual environment with TVM, created on first use.
fn tvm_python(root: &Path, install: bool) -> std::result::Result<PathBuf, String> {
    Venv {
        dir: root.join("target/bench-tvm/venv"),
        packages: TVM_PACKAGES,
        check: "import tvm, numpy; from tvm.s_tir import meta_schedule",
        by: "bench",
    }
    .python(install)
}

/// Milliseconds, or what became of a cell.
fn cell_text(cell: &Cell) -> String {
    cell.text(ms_text)
}

/// Milliseconds with three decimals, or four below 1 ms.
fn ms_text(ms: f64) -> String {
    if ms >= 1.0 {
        format!("{ms:.3}")
    } else {
        format!("{ms:.4}")
    }
}

/// A ratio with two decimals (four below 0.1), or `-`.
fn ratio_text(r: Option<f64>) -> String {
    match r {
        Some(r) if r < 0.1 => format!("{r:.4}"),
        Some(r) => format!("{r:.2}"),
        None => "-".to_string(),
    }
}

/// The geometric mean of some ratios of the rows and how many rows have one.
fn mean(rows: &[Row], ratio: impl Fn(&Row) -> Option<f64>) -> (Option<f64>, usize) {
    let values: Vec<f64> = rows.iter().filter_map(ratio).collect();
    (geomean(&values), values.len())
}

/// The two target lines: Pollen tuned at least as fast as TVM tuned in geometric mean,
/// and within [`EVERY_TARGET`] of it on every operator. An operator without both a
/// correct Pollen tuned and a correct TVM tuned time fails both.
fn targets(rows: &[Row]) -> [String; 2] {
    let missing: Vec<&str> = rows
        .iter()
        .filter(|r| r.vs_tvm().is_none())
        .map(|r| r.operator.as_str())
        .collect();
    let missing_note = if missing.is_empty() {
        String::new()
    } else {
        format!(
            " (no correct Pollen tuned and TVM tuned pair on: {})",
            missing.join(", ")
        )
    };
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };

    let head = format!(
        "target: Pollen tuned >= {GEOMEAN_TARGET}x TVM tuned (geomean of TVM ms / Pollen ms)"
    );
    let geomean_line = match mean(rows, Row::vs_tvm) {
        (Some(g), n) => format!(
            "{head}: {g:.2} over {n} of {} operators: {}{missing_note}",
            rows.len(),
            verdict(missing.is_empty() && g >= GEOMEAN_TARGET)
        ),
        (None, _) => format!("{head}: NOT met (no operator has both){missing_note}"),
    };

    let below: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let v = r.vs_tvm()?;
            (v < EVERY_TARGET).then(|| format!("{} {v:.2}", r.operator))
        })
        .collect();
    let worst = rows.iter().filter_map(Row::vs_tvm).reduce(f64::min);
    let mut every_line = format!(
        "target: Pollen tuned >= {EVERY_TARGET}x TVM tuned on every operator: worst {}: {}",
        ratio_text(worst),
        verdict(worst.is_some() && missing.is_empty() && below.is_empty())
    );
    if !below.is_empty() {
        let _ = write!(every_line, " (below: {})", below.join(", "));
    }
    every_line.push_str(&missing_note);
    [geomean_line, every_line]
}

/// The CPUs and the load average when the report is written: parallel builds on a busy
/// machine wait for their threads (an idle OpenMP or TVM thread spins), so their times
/// mean little when the load exceeds the CPUs.
fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    if load.is_empty() {
        format!("{cpus} CPUs")
    } else {
        format!("{cpus} CPUs, load average {}", load.join(" "))
    }
}

/// The table, the ratios, the geometric means and the targets; `machine` says what ran
/// them.
fn report(rows: &[Row], o: &Options, tvm_skipped: Option<&String>, machine: &str) -> String {
    let mut out = format!(
        "\ntensor operators, milliseconds (the fastest of each build's runs: as many as make \
         the naive program's runs last {} ms, at least {} and at most {}, in the column \
         `runs` below, in each of {} rounds that time the builds side by side); C builds \
         under gcc {}, the naive \
         program on 1 thread, Pollen's with -fopenmp on {} threads, tuned by `pollen search` \
         with {} candidates; TVM on {} threads, tuned by MetaSchedule with {} trials; \
         {machine}\n",
        o.run_ms,
        o.runs,
        MAX_RUNS.max(o.runs),
        o.rounds,
        GCC_FLAGS.join(" "),
        o.threads,
        o.trials,
        o.threads,
        o.trials
    );
    let _ = write!(out, "{:<17}", "operator");
    for t in COLUMNS {
        let _ = write!(out, " {t:>12}");
    }
    out.push('\n');
    for row in rows {
        let _ = write!(out, "{:<17}", row.operator);
        for cell in &row.cells {
            let _ = write!(out, " {:>12}", cell_text(cell));
        }
        out.push('\n');
    }
    out.push_str("\"!\": checksums differ from the naive program's (never counted)\n");
    if o.exact {
        let _ = writeln!(
            out,
            "Pollen keeps the naive program's order of operations (--exact): its checksums \
             must equal the naive program's (both built again with {}); TVM's must differ \
             from them by at most {TVM_TOLERANCE:e} times the checksum of TVM's absolute values",
            CHECK_FLAGS.join(" ")
        );
    } else {
        let _ = writeln!(
            out,
            "Pollen, like TVM, reassociates reductions and calls vector math functions ({}); \
             the checksums of both must differ from the naive program's (built again with {}) \
             by at most {TVM_TOLERANCE:e} times the checksum of their own absolute values",
            POLLEN_FAST.join(" "),
            CHECK_FLAGS.join(" ")
        );
    }
    if let Some(reason) = tvm_skipped {
        let _ = writeln!(out, "TVM: skipped ({reason})");
    }

    let _ = writeln!(
        out,
        "\n{:<17} {:>15} {:>22} {:>28} {:>5}  sizes",
        "operator", "naive / Pollen", "TVM default / Pollen", "TVM tuned / Pollen tuned", "runs"
    );
    for row in rows {
        let _ = writeln!(
            out,
            "{:<17} {:>15} {:>22} {:>28} {:>5}  {}",
            row.operator,
            ratio_text(row.vs_naive()),
            ratio_text(row.vs_tvm_default()),
            ratio_text(row.vs_tvm()),
            row.runs,
            row.sizes.join(" ")
        );
    }
    let (g_naive, _) = mean(rows, Row::vs_naive);
    let (g_default, _) = mean(rows, Row::vs_tvm_default);
    let (g_tvm, _) = mean(rows, Row::vs_tvm);
    let _ = writeln!(
        out,
        "{:<17} {:>15} {:>22} {:>28}",
        "geomean",
        ratio_text(g_naive),
        ratio_text(g_default),
        ratio_text(g_tvm)
    );
    out.push_str("(time ratios: above 1, Pollen is faster)\n");

    let diffs: Vec<String> = rows
        .iter()
        .flat_map(|row| {
            [TVM_DEFAULT, TVM_TUNED]
                .into_iter()
                .filter_map(move |k| match row.cells[k] {
                    Cell::Timed(_, check) => Some(format!(
                        "{} {} {:.1e}",
                        row.operator,
                        COLUMNS[k],
                        check.difference()?
                    )),
                    _ => None,
                })
        })
        .collect();
    if !diffs.is_empty() {
        let _ = writeln!(
            out,
            "\nTVM checksums, difference from the naive program's over the checksum of the \
             absolute values: {}",
            diffs.join(", ")
        );
    }

    let failures: Vec<String> = rows
        .iter()
        .flat_map(|row| {
            row.cells
                .iter()
                .zip(COLUMNS)
                .filter_map(move |(cell, title)| match cell {
                    Cell::Failed(e) => Some(format!("{} ({title}): {e}", row.operator)),
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
    for line in targets(rows) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The results as CSV: one line per operator, milliseconds and checks per column, empty
/// where none.
fn csv(rows: &[Row]) -> String {
    let mut header = vec![
        "operator".to_string(),
        "layer".into(),
        "sizes".into(),
        "runs".into(),
    ];
    for key in COLUMN_KEYS {
        header.extend([format!("{key}_ms"), format!("{key}_check")]);
    }
    header.extend(
        [
            "naive_over_pollen",
            "tvm_default_over_pollen",
            "tvm_tuned_over_pollen_tuned",
            "errors",
        ]
        .map(String::from),
    );
    let mut out = header.join(",");
    out.push('\n');
    for row in rows {
        let mut fields = vec![
            row.operator.clone(),
            row.layer.clone(),
            row.sizes.join(" "),
            row.runs.to_string(),
        ];
        for cell in &row.cells {
            match cell {
                Cell::Timed(ms, check) => fields.extend([format!("{ms:.4}"), check.name().into()]),
                Cell::Failed(_) => fields.extend([String::new(), "failed".into()]),
                Cell::Skipped(_) => fields.extend([String::new(), "skipped".into()]),
            }
        }
        let ratio = |r: Option<f64>| r.map_or(String::new(), |r| format!("{r:.4}"));
        fields.push(ratio(row.vs_naive()));
        fields.push(ratio(row.vs_tvm_default()));
        fields.push(ratio(row.vs_tvm()));
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
        "{{\n  \"suite\": \"tensor\",\n  \"runs\": {},\n  \"run_ms\": {},\n  \"rounds\": {},\n  \"trials\": {},\n  \"threads\": {},\n  \"tvm_tolerance\": {TVM_TOLERANCE:e},\n  \"operators\": [",
        o.runs, o.run_ms, o.rounds, o.trials, o.threads
    );
    for (i, row) in rows.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        let sizes: Vec<String> = row.sizes.iter().map(|s| json_string(s)).collect();
        let _ = write!(
            out,
            "    {{\"operator\": {}, \"layer\": {}, \"sizes\": [{}], \"runs\": {}",
            json_string(&row.operator),
            json_string(&row.layer),
            sizes.join(", "),
            row.runs
        );
        for (key, cell) in COLUMN_KEYS.iter().zip(&row.cells) {
            let _ = write!(out, ", \"{key}\": {}", cell.json("difference"));
        }
        let _ = write!(
            out,
            ", \"naive_over_pollen\": {}, \"tvm_default_over_pollen\": {}, \
             \"tvm_tuned_over_pollen_tuned\": {}}}",
            json_number(row.vs_naive()),
            json_number(row.vs_tvm_default()),
            json_number(row.vs_tvm())
        );
    }
    let (g_naive, n_naive) = mean(rows, Row::vs_naive);
    let (g_tvm, n_tvm) = mean(rows, Row::vs_tvm);
    let _ = write!(
        out,
        "\n  ],\n  \"geomean\": {{\"naive_over_pollen\": {{\"ratio\": {}, \"operators\": {n_naive}}}, \"tvm_tuned_over_pollen_tuned\": {{\"ratio\": {}, \"operators\": {n_tvm}}}}},\n  \"targets\": [",
        json_number(g_naive),
        json_number(g_tvm)
    );
    let targets: Vec<String> = targets(rows).iter().map(|t| json_string(t)).collect();
    let _ = write!(out, "{}]\n}}\n", targets.join(", "));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_keep_the_fastest_time_and_mark_failures() {
        let mut cell = Cell::Timed(2.0, Check::Same);
        assert_eq!(keep_fastest(&mut cell, 2, Ok(3.0)), ms_text(3.0));
        assert!(matches!(cell, Cell::Timed(ms, Check::Same) if ms == 2.0));
        assert_eq!(keep_fastest(&mut cell, 3, Ok(1.5)), ms_text(1.5));
        assert!(matches!(cell, Cell::Timed(ms, Check::Same) if ms == 1.5));
        assert_eq!(keep_fastest(&mut cell, 4, Err("crashed".into())), "error");
        assert!(matches!(&cell, Cell::Failed(e) if e == "round 4: crashed"));
        // A failed cell stays failed.
        keep_fastest(&mut cell, 5, Ok(0.5));
        assert!(matches!(cell, Cell::Failed(_)));
    }

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_are_read() {
        let o = options(&strings(&[
            "--trials",
            "8",
            "--only",
            "matmul,softmax",
            "--no-install",
            "--runs",
            "3",
            "--run-ms",
            "50",
            "--rounds",
            "2",
        ]))
        .expect("valid");
        assert_eq!(
            o,
            Options {
                runs: 3,
                run_ms: 50,
                trials: 8,
                threads: DEFAULT_THREADS,
                rounds: 2,
                install: false,
                tvm: true,
                exact: false,
                only: strings(&["matmul", "softmax"]),
            }
        );
        let o = options(&[]).expect("valid");
        assert_eq!(
            (o.runs, o.trials, o.threads, o.install),
            (DEFAULT_RUNS, DEFAULT_TRIALS, DEFAULT_THREADS, true)
        );
        assert!(o.only.is_empty());
        assert!(!options(&strings(&["--no-tvm"])).expect("valid").tvm);
        assert!(options(&strings(&["--exact"])).expect("valid").exact);
        assert!(!options(&[]).expect("valid").exact);
        assert!(options(&strings(&["--trials", "0"])).is_err());
        assert!(options(&strings(&["--runs", "many"])).is_err());
        assert!(options(&strings(&["--run-ms", "0"])).is_err());
        assert_eq!(options(&[]).expect("valid").run_ms, DEFAULT_RUN_MS);
        assert_eq!(options(&[]).expect("valid").rounds, DEFAULT_ROUNDS);
        assert!(options(&strings(&["--rounds", "0"])).is_err());
        assert!(options(&strings(&["--only"])).is_err());
        assert!(options(&strings(&["matmul"])).is_err());
        assert!(options(&strings(&["--fast"])).is_err());
    }

    #[test]
    fn operators_are_selected_and_exist() {
        assert_eq!(select(&[]).expect("all").len(), OPERATORS.len());
        let picked = select(&strings(&["softmax", "matmul"])).expect("known");
        assert_eq!(picked[0].name, "softmax");
        assert_eq!(picked[1].name, "matmul");
        assert!(select(&strings(&["conv5x5"])).is_err());
        // Every operator has its program and its TVM script, and sets only the program's
        // parameters.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for op in OPERATORS {
            let program = root.join(format!("examples/tensor/{}.te", op.name));
            let text = std::fs::read_to_string(&program).expect("program");
            assert!(
                root.join(format!("xtask/tvm/{}.py", op.name)).exists(),
                "{}",
                op.name
            );
            for size in op.sizes {
                let name = size
                    .strip_prefix("-D")
                    .and_then(|s| s.split_once('='))
                    .map(|(name, _)| name)
                    .expect("a -DNAME=value flag");
                let declared = text
                    .lines()
                    .filter(|l| l.trim_start().starts_with("param "))
                    .any(|l| {
                        l.contains(&format!(" {name} =")) || l.contains(&format!(", {name} ="))
                    });
                assert!(declared, "{} has no parameter {name}", op.name);
            }
        }
    }

    #[test]
    fn the_kernel_call_is_repeated() {
        let source = "#include \"operators.h\"\n\nint main(void)\n{\n  init();\n  \
                      OPERATOR_TIMER_START;\n  kernel_x(N, A);\n  OPERATOR_TIMER_STOP;\n  \
                      OPERATOR_OUTPUT_1D(\"A\", A, N);\n}\n";
        let out = repeat_kernel(source).expect("rewritten");
        assert!(out.contains("#ifndef TENSOR_RUNS\n# define TENSOR_RUNS 1\n#endif\n"));
        let expected = "  init();\n  for (int tensor_run = 0; tensor_run < TENSOR_RUNS; tensor_run++) {\n    \
                        OPERATOR_TIMER_START;\n    kernel_x(N, A);\n    OPERATOR_TIMER_STOP;\n  }\n  \
                        OPERATOR_OUTPUT_1D";
        assert!(out.contains(expected), "{out}");
        assert!(repeat_kernel("#include \"operators.h\"\nint main(void) {}\n").is_err());
        assert!(repeat_kernel("OPERATOR_TIMER_START;\nOPERATOR_TIMER_STOP;\n").is_err());
        assert!(repeat_kernel(
            "#include \"operators.h\"\nOPERATOR_TIMER_STOP;\nOPERATOR_TIMER_START;\n"
        )
        .is_err());
    }

    #[test]
    fn outputs_are_read_and_compared() {
        assert_eq!(
            fastest("POLLEN_TIME 0.5\nPOLLEN_TIME 0.25\nnoise\nPOLLEN_TIME 0.75\n"),
            Some(0.25)
        );
        assert_eq!(fastest("time 0.1\n"), None);
        assert_eq!(checksums("Y 100.5\nZ -3\n"), [100.5, -3.0]);
        assert_eq!(
            scaled_checksums("Y 100.5 200\nZ -3 4\nnoise\n"),
            [(100.5, 200.0), (-3.0, 4.0)]
        );
        let stdout = "matmul default 12.5 100.5 300\nmatmul tuned 1.25 100.50001 7 -3 4\n";
        assert_eq!(
            tvm_line(stdout, "default"),
            Ok((12.5, vec![(100.5, 300.0)]))
        );
        assert_eq!(
            tvm_line(stdout, "tuned"),
            Ok((1.25, vec![(100.50001, 7.0), (-3.0, 4.0)]))
        );
        assert!(tvm_line("matmul tuned 1.25 100.5\n", "tuned").is_err());
        assert_eq!(
            tvm_line("matmul tuned error no valid schedule\n", "tuned"),
            Err("no valid schedule".to_string())
        );
        assert!(tvm_line("matmul default 1.5\n", "default").is_err());
        assert!(tvm_line(stdout, "other").is_err());

        assert_eq!(compare(&[100.0], &[100.0], 0.0), Check::Same);
        assert_eq!(
            compare(&[100.0], &[101.0], 0.0),
            Check::Wrong(Some(1.0 / 101.0))
        );
        assert!(matches!(
            compare(&[100.0], &[100.001], 1e-4),
            Check::Close(d) if d > 0.0 && d <= 1e-4
        ));
        assert!(matches!(
            compare(&[100.0], &[100.5], 1e-4),
            Check::Wrong(Some(_))
        ));
        // A checksum that cancels: the difference counts against the absolute values.
        assert_eq!(
            compare_scaled(&[-1490.0], &[(-1495.0, 2.0e8)], TVM_TOLERANCE),
            Check::Close(5.0 / 2.0e8)
        );
        assert_eq!(
            compare_scaled(&[-1490.0], &[(-1495.0, 1.0e5)], TVM_TOLERANCE),
            Check::Wrong(Some(5.0 / 1.0e5))
        );
        assert_eq!(
            compare_scaled(&[1.0, 2.0], &[(1.0, 1.0), (2.0, 2.0)], 0.0),
            Check::Same
        );
        assert_eq!(
            compare_scaled(&[1.0], &[(f64::NAN, 1.0)], 1.0),
            Check::Wrong(Some(f64::INFINITY))
        );
        assert_eq!(compare_scaled(&[1.0], &[], 1.0), Check::Wrong(None));
        assert_eq!(compare(&[1.0], &[1.0, 2.0], 1.0), Check::Wrong(None));
        assert_eq!(compare(&[], &[], 1.0), Check::Wrong(None));
        assert_eq!(largest_difference(&[1.0], &[f64::NAN]), f64::INFINITY);
    }

    #[test]
    fn fast_operators_get_more_runs() {
        let o = options(&strings(&["--runs", "5", "--run-ms", "100"])).expect("valid");
        // 100 ms of naive runs: 4 for a 25 ms program, so the minimum, 5.
        assert_eq!(operator_runs(&o, 25.0), 5);
        assert_eq!(operator_runs(&o, 1000.0), 5);
        assert_eq!(operator_runs(&o, 10.0), 10);
        assert_eq!(operator_runs(&o, 3.0), 34);
        // At most MAX_RUNS, however fast.
        assert_eq!(operator_runs(&o, 0.04), MAX_RUNS);
        assert_eq!(operator_runs(&o, 0.0), MAX_RUNS);
        assert_eq!(operator_runs(&o, f64::NAN), MAX_RUNS);
        // `--runs` above MAX_RUNS wins.
        let many = options(&strings(&["--runs", "500"])).expect("valid");
        assert_eq!(operator_runs(&many, 0.04), 500);
    }

    fn row(name: &str, cells: [Option<f64>; 5]) -> Row {
        Row {
            operator: name.into(),
            layer: "a layer".into(),
            sizes: strings(&["-DM=1"]),
            runs: 5,
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
        // naive, TVM default, TVM tuned, Pollen, Pollen tuned.
        let a = row(
            "a",
            [Some(100.0), Some(200.0), Some(10.0), Some(5.0), Some(5.0)],
        );
        let b = row("b", [Some(40.0), None, Some(4.0), Some(9.0), Some(4.5)]);
        assert_eq!(a.vs_naive(), Some(20.0));
        assert_eq!(a.vs_tvm_default(), Some(40.0));
        assert_eq!(b.vs_tvm_default(), None);
        assert_eq!(ratio_text(Some(1.5)), "1.50");
        assert_eq!(ratio_text(Some(0.0014)), "0.0014");
        assert_eq!(ratio_text(None), "-");
        assert_eq!(a.vs_tvm(), Some(2.0));
        assert_eq!(b.vs_tvm(), Some(4.0 / 4.5));
        let [geomean, every] = targets(&[a.clone(), b.clone()]);
        assert!(
            geomean.contains("1.33 over 2 of 2 operators: met"),
            "{geomean}"
        );
        assert!(every.contains("worst 0.89: met"), "{every}");

        // One operator far behind TVM: the geometric mean still passes, not every.
        let c = row("c", [Some(10.0), None, Some(1.0), Some(1.6), Some(1.6)]);
        let [geomean, every] = targets(&[a.clone(), b.clone(), c.clone()]);
        assert!(geomean.ends_with(": met"), "{geomean}");
        assert!(
            every.contains("worst 0.62: NOT met (below: c 0.62)"),
            "{every}"
        );

        // A wrong Pollen tuned result never counts, and fails both targets.
        let mut d = row("d", [Some(10.0), None, Some(100.0), Some(1.0), Some(1.0)]);
        d.cells[POLLEN_TUNED] = Cell::Timed(1.0, Check::Wrong(Some(0.5)));
        assert_eq!(d.vs_tvm(), None);
        let rows = [a, b, d];
        let [geomean, every] = targets(&rows);
        assert!(
            geomean.contains(
                "over 2 of 3 operators: NOT met (no correct Pollen tuned and TVM tuned pair on: d)"
            ),
            "{geomean}"
        );
        assert!(every.contains(": NOT met"), "{every}");
        assert!(targets(&[]).iter().all(|t| t.contains("NOT met")));

        let o = options(&[]).expect("valid");
        let text = report(&rows, &o, None, "2 CPUs, load average 0.5 0.4 0.3");
        assert!(
            text.contains("64 trials; 2 CPUs, load average 0.5"),
            "{text}"
        );
        assert!(text.contains(" 1.000!"), "{text}");
        assert!(text.contains("geomean"), "{text}");
        let csv = csv(&rows);
        assert_eq!(csv.lines().count(), 4);
        let line = csv.lines().nth(1).expect("a");
        assert!(
            line.starts_with("a,a layer,-DM=1,5,100.0000,same,"),
            "{csv}"
        );
        assert!(line.ends_with(",20.0000,40.0000,2.0000,"), "{csv}");
        let json = json(&rows, &o);
        assert!(
            json.contains("\"tvm_tuned_over_pollen_tuned\": 2}"),
            "{json}"
        );
        assert!(json.contains("\"status\": \"skipped\""), "{json}");
        assert!(json.contains("\"layer\": \"a layer\""), "{json}");
        assert!(
            json.contains("\"sizes\": [\"-DM=1\"], \"runs\": 5,"),
            "{json}"
        );
        assert!(
            text.contains("last 100 ms, at least 5 and at most 200"),
            "{text}"
        );
    }
}
