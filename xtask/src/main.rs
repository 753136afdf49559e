//! The workspace's maintenance commands, run as `cargo xtask <command>`.
//!
//! - `tidy`: checks the conventions of the code base that the compiler and clippy do not
//!   (see [`tidy`]);
//! - `fuzz <target> [args...]`: runs one cargo-fuzz target of `fuzz/` on the stable
//!   toolchain (see [`fuzz`]);
//! - `fuzz-smoke [seconds]`: runs every fuzz target for a few seconds;
//! - `bench presburger [--pollen-only] [--fpl DIR [--fpl-cases N]]`: times the Presburger
//!   benchmark corpus (and the FPL benchmark's cases) in Pollen and in isl, side by side,
//!   and the counting corpus in Pollen and in barvinok (see [`mod@bench`]);
//! - `barvinok [--corpus FILE] [--no-kernels]`: Pollen's parametric counts against
//!   barvinok's, by evaluation at many parameter values, on a corpus and the kernels'
//!   statement domains (see [`barvinok`]);
//! - `closure [--corpus FILE] [--no-kernels] [--random N] [--budget STEPS]`: Pollen's transitive
//!   closures against isl's, exactness claims and containment checked, both timed (see
//!   [`closure`]);
//! - `bench deps`, `bench sched`: time extraction and dependence analysis, and
//!   scheduling, of the example kernels (see [`bench_pipeline`]);
//! - `bench polybench [--polybench DIR] [kernel...]`: the example kernels, or PolyBench/C
//!   4.2.1's, optimized by Pollen and timed against `gcc -O3`, Polly and OpenBLAS (see
//!   [`bench_polybench`]);
//! - `bench pipelines [options] [pipeline...]`: the image-processing pipelines of
//!   `examples/pipelines`, each of Pollen's strategies against the original and against
//!   Halide's autoschedulers (see [`bench_pipelines`]);
//! - `bench tensor [options]`: the tensor programs of `examples/tensor` at ResNet-50's
//!   and BERT-base's layer shapes, Pollen's output against the naive program and against
//!   TVM, untuned and tuned by MetaSchedule (see [`bench_tensor`]);
//! - `bench search --polybench DIR [kernel...]`: `pollen search` on PolyBench/C's
//!   kernels at LARGE, the best candidate against `pollen opt`'s default (see
//!   [`bench_search`]);
//! - `bench gpu [options]`: the deep-learning operators of `examples/operators` as
//!   Pollen's OpenCL and CUDA programs, plain, with constraint injection but no explicit
//!   vector types, and with both (see [`bench_gpu`]);
//! - `random-programs [--count N] [--seed S]`: the scheduler and `pollen opt` on generated
//!   random affine programs (see [`random_programs`]);
//! - `explain-shots [--no-install]`: screenshots of `pollen explain`'s pages in headless
//!   Chromium, saved in `docs/` (see [`explain_shots`]).
//!
//! The alias `cargo xtask` is defined in `.cargo/config.toml`. Commands exit with a
//! non-zero status when a check fails.

mod barvinok;
mod bench;
mod bench_answers;
mod bench_gpu;
mod bench_pipeline;
mod bench_pipelines;
mod bench_polybench;
mod bench_search;
mod bench_tensor;
mod cells;
mod closure;
mod explain_shots;
mod formats;
mod fuzz;
mod polybench_suite;
mod random_programs;
mod tidy;
mod venv;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  tidy                      check the code base's conventions (file docs, no ignored
                            tests, no crate-wide lint allows, layering of crates, no
                            floating point in the library crates)
  fuzz <target> [args...]   run a cargo-fuzz target of fuzz/ (args go to `cargo fuzz run`,
                            e.g. `cargo xtask fuzz parse -- -max_total_time=60`)
  fuzz-smoke [seconds]      run every fuzz target briefly (default 5 seconds each)
  bench presburger [--pollen-only] [--fpl DIR [--fpl-cases N]]
                            time the Presburger benchmark corpus in Pollen and in isl
                            (islpy, installed into target/islpy-venv on first use) and
                            its counts (benches/presburger/counts.txt) in Pollen and in
                            barvinok (islpy-barvinok, into target/barvinok-venv); with
                            --fpl, also N (100) cases of each file of the FPL benchmark
                            (Superty/presburger-benchmarks) in DIR
  barvinok [--corpus FILE] [--no-kernels]
                            compare Pollen's parametric counts of the sets of
                            benches/presburger/counts.txt (or FILE) and of the
                            statement domains of examples/kernels with barvinok's
                            (islpy-barvinok, installed into target/barvinok-venv on
                            first use) at every parameter point of a box
  closure [--corpus FILE] [--no-kernels] [--random N] [--budget STEPS]
                            transitive closures of the maps of xtask/closure/corpus.txt
                            (or FILE), of generated unions of translations, of N random
                            maps (default 60) and of the example kernels' flow
                            dependences, by Pollen and by isl
                            (islpy, installed into target/islpy-venv on first use): equal
                            where both claim exactness, Pollen's containing isl's where
                            isl's is exact; counts per class and isl/Pollen time ratios
  bench deps                time extraction and dependence analysis of the 30 kernels of
                            examples/kernels on one core
  bench sched               time Pluto scheduling of the 30 kernels on one core
  bench polybench [--runs N] [--no-install] [--polybench DIR] [--size S]
                  [--check-size S] [--examples] [kernel...]
                            speedups of Pollen's output (1 and 2 threads) and of Polly
                            over gcc -O3 on the kernels at their bench sizes, and gemm
                            against OpenBLAS (clang and libopenblas-dev installed with
                            apt-get when missing); with --polybench DIR (or
                            $POLLEN_POLYBENCH, ignored with --examples) on PolyBench/C
                            4.2.1's 30 kernels at --size (default large), 5 runs (min
                            and spread), arrays checked at --check-size (default
                            medium), the pollen opt time summed; table, CSV and JSON in
                            target/polybench-real/
  bench pipelines [--runs N] [--threads N] [--size test|bench] [--no-install]
                  [pipeline...]
                            the pipelines of examples/pipelines at their bench sizes (or
                            the last test size): the original under gcc -O3 on 1 and N
                            threads (default 2), Pollen's pluto, basteln and polymage
                            strategies on N threads (checksums equal to the original's),
                            Halide's Adams2019, Li2018 and Mullapudi2016 autoschedulers
                            (xtask/halide/, halide from PyPI installed into
                            target/bench-halide/venv on first use); fastest of --runs
                            runs (default 5), Pollen's best against the original and
                            against Halide's best; table, CSV and JSON in
                            target/bench-pipelines/
  bench tensor [--trials N] [--runs N] [--threads N] [--only op,op] [--no-install] [--no-tvm]
                            the operators of examples/tensor at ResNet-50 (batch 1) and
                            BERT-base (128 tokens) layer shapes: the naive program of
                            pollen te (gcc -O3, 1 thread), TVM's default lowering and
                            MetaSchedule with N trials (default 64) (xtask/tvm/, apache-tvm
                            from PyPI installed into target/bench-tvm/venv on first use),
                            pollen opt on N threads (default 2); fastest of --runs runs
                            (default 5), checksums compared, TVM tuned / Pollen per
                            operator and in geomean against the targets; table, CSV and
                            JSON in target/bench-tensor/
  bench search --polybench DIR [--time T] [--runs N] [--threads N] [--jobs J] [kernel...]
                            pollen search on PolyBench/C 4.2.1 kernels (the copy in DIR,
                            or $POLLEN_POLYBENCH) at LARGE: space size, time spent, the
                            original's, the default's and the best candidate's times
                            (default: 10 minutes per kernel on gemver, atax, bicg, mvt,
                            2mm, 3mm, correlation, covariance, doitgen, ludcmp,
                            gramschmidt)
  bench gpu [--size small|large] [--only NAME]... [--runs N] [--cuda] [--nvcc PATH]
            [--no-opencl] [--pollen PATH] [--skip-build] [--csv FILE] [--json FILE]
            [--target-c]
                            the operators of examples/operators as Pollen's OpenCL
                            programs (PoCL) and, with --cuda, CUDA programs (nvcc, the
                            GPU), each in three variants: plain (--no-inject), novec
                            (injection, --no-vector-types) and infl (injection with
                            explicit vector types): times, checksums against gcc -O3,
                            novec/plain and infl/plain speedups; --pollen PATH or
                            --skip-build run it without cargo
  random-programs [--count N] [--seed S]
                            schedule N generated random programs (default 5000, seeds
                            from S, default 0) with Pluto and Feautrier, check every
                            schedule, count the fallbacks, run them through pollen opt
                            and compare the outputs of originals and optimized programs
                            (gcc -fopenmp, 1 and 2 threads)
  explain-shots [--no-install]
                            write pollen explain's pages of jacobi-1d and gemm, check in
                            headless Chromium (installed with apt-get when missing) that
                            every picture is seen, save screenshots in docs/
  help                      print this message";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<()> {
    let root = workspace_root();
    match args.first().map(String::as_str) {
        Some("tidy") => tidy::run(&root),
        Some("fuzz") => match args.get(1) {
            Some(target) => fuzz::run(&root, target, &args[2..]),
            None => bail!("`fuzz` needs a target name; `cargo xtask fuzz-smoke` runs them all"),
        },
        Some("fuzz-smoke") => {
            let seconds = match args.get(1) {
                Some(s) => s
                    .parse()
                    .map_err(|_| anyhow::anyhow!("expected a number of seconds, found `{s}`"))?,
                None => 5,
            };
            fuzz::smoke(&root, seconds)
        }
        Some("barvinok") => barvinok::run(&root, &args[1..]),
        Some("closure") => closure::run(&root, &args[1..]),
        Some("bench") => bench::run(&root, &args[1..]),
        Some("random-programs") => random_programs::run(&root, &args[1..]),
        Some("explain-shots") => explain_shots::run(&root, &args[1..]),
        Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown command `{other}`\n\n{USAGE}"),
        None => bail!("no command given\n\n{USAGE}"),
    }
}

/// The workspace root: the parent of this crate's directory.
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}
