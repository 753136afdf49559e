//! The GPU targets end to end: every example kernel and every operator optimized for
//! OpenCL ([`Target::OpenCl`], constraint injection on; the operators also without
//! it), compiled with gcc, run on the machine's OpenCL (PoCL on the CPU), and its
//! printed checksums compared with the original C program's; and every one optimized
//! for CUDA and compiled by `nvcc --ptx` when nvcc is installed (the test says so and
//! goes on without it). Tiles of arrays in shared memory are among what runs (gemm's
//! and several others').
//!
//! The outputs are equal digit for digit: each thread runs its statement instances in
//! the order of the schedule, no reduction is split, and the kernels are built with
//! contraction into fused multiply-adds off. The one exception is a statement that
//! calls a transcendental function (`exp`, `pow`, `tanh`, ...): OpenCL's and the C
//! library's are not correctly rounded and differ in the last place, so those programs'
//! checksums must agree to one part in 10^7 (the operators are single precision).

use std::path::{Path, PathBuf};

use pollen_driver::{optimize_source, GpuOptions, Options, Target};
use pollen_presburger::Int;
use pollen_testkit::cc::{self, first_difference};
use pollen_testkit::{gpu, kernel_names, kernel_source, kernels_dir};
use pollen_testkit::{operator_names, operator_source, operators_dir};

/// The words of a statement that call a function that is not correctly rounded.
const TRANSCENDENTAL: [&str; 8] = [
    "EXP_FUN", "POW_FUN", "TANH_FUN", "exp", "pow", "tanh", "erf", "log",
];

/// A printed decimal number as an exact mantissa and power of ten.
fn decimal(text: &str) -> Option<(Int, i64)> {
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let value: Int = format!("{whole}{fraction}").parse().ok()?;
    Some((value, exponent - fraction.len() as i64))
}

/// Whether two printed numbers differ by at most one part in 10^7 of the first.
fn close(a: &str, b: &str) -> bool {
    let (Some((ma, ea)), Some((mb, eb))) = (decimal(a), decimal(b)) else {
        return false;
    };
    let low = ea.min(eb);
    let scale = |m: Int, from: i64| m * Int::from(10).pow((from - low) as u32);
    let (a, b) = (scale(ma, ea), scale(mb, eb));
    (a.clone() - b).abs() * Int::from(10).pow(7) <= a.abs()
}

#[test]
fn close_numbers() {
    assert!(close("6000.5045619267039", "6000.5045537161641"));
    assert!(close("-1.5e-07", "-1.50000001e-07"));
    assert!(!close("6000.50", "6000.51"));
    assert!(!close("75.885135222567314", "-245.81763716351799"));
}

/// Whether two outputs print the same names with close values, line by line.
fn close_outputs(expected: &str, actual: &str) -> bool {
    pollen_testkit::cc::close_lines(expected, actual, close)
}

/// One program to check: its name, source and include directory.
struct Case {
    name: String,
    source: String,
    include: PathBuf,
}

fn cases() -> Vec<Case> {
    let kernels = kernel_names().into_iter().map(|name| Case {
        source: kernel_source(&name),
        name,
        include: kernels_dir(),
    });
    let operators = operator_names().into_iter().map(|name| Case {
        source: operator_source(&name),
        name,
        include: operators_dir(),
    });
    kernels.chain(operators).collect()
}

fn options(target: Target, inject: bool) -> Options {
    Options {
        target,
        gpu: GpuOptions {
            inject,
            ..GpuOptions::default()
        },
        ..Options::default()
    }
}

/// The pipeline's variants run on OpenCL: `plain` (no injection), `injected` (the
/// default: injection with vector types) and `jammed` (lane groups jammed into inner
/// loops too).
fn variant_options(tag: &str) -> Options {
    let mut o = options(Target::OpenCl, tag != "plain");
    o.gpu.lane_jam = tag == "jammed";
    o
}

/// Optimizes one program for OpenCL, runs it and compares its output with the
/// original's; the failure, if any, else whether its kernels use shared memory.
fn check_opencl(case: &Case, tag: &str, dir: &Path) -> Result<bool, String> {
    let name = &case.name;
    let optimized = optimize_source(&case.source, &variant_options(tag))
        .map_err(|e| format!("{name} ({tag}): {e}"))?;
    let original = dir.join(format!("{name}.c"));
    let translated = dir.join(format!("{name}-{tag}.c"));
    std::fs::write(&original, &case.source).map_err(|e| e.to_string())?;
    std::fs::write(&translated, &optimized.text).map_err(|e| e.to_string())?;
    let include = format!("-I{}", case.include.display());
    let flags = ["-O2", "-Wno-unknown-pragmas", include.as_str()];
    let reference = dir.join(format!("{name}-reference"));
    let device = dir.join(format!("{name}-{tag}"));
    cc::compile(&original, &reference, &flags).map_err(|e| format!("{name}: {e}"))?;
    gpu::compile_opencl(&translated, &device, &flags)
        .map_err(|e| format!("{name} ({tag}): {e}"))?;
    let expected = cc::run(&reference, 1)?;
    let actual = cc::run(&device, 1).map_err(|e| format!("{name} ({tag}): {e}"))?;
    let shared = optimized.text.contains("__local ");
    if expected == actual {
        return Ok(shared);
    }
    let region = pollen_testkit::region_text(&case.source).unwrap_or("");
    let transcendental = TRANSCENDENTAL.iter().any(|f| {
        region
            .split(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .any(|w| w == *f || w.strip_suffix('f') == Some(f))
    });
    if transcendental && close_outputs(&expected, &actual) {
        return Ok(shared);
    }
    Err(format!(
        "{name} ({tag}): the output differs: {}",
        first_difference(&expected, &actual)
    ))
}

/// Runs `work` on every item with two workers (the test machines have few cores).
fn in_parallel<T: Sync>(items: &[T], work: impl Fn(&T) -> Vec<String> + Sync) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut failures = Vec::new();
                    while let Some(item) =
                        items.get(next.fetch_add(1, std::sync::atomic::Ordering::SeqCst))
                    {
                        failures.extend(work(item));
                    }
                    failures
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[test]
fn every_kernel_and_operator_runs_on_opencl_with_the_original_results() {
    cc::require_gcc();
    gpu::require_opencl();
    let cases = cases();
    assert!(cases.len() >= 44, "{} programs", cases.len());
    let dir = cc::scratch("driver-opencl");
    let promoted = std::sync::Mutex::new(Vec::new());
    let failures = in_parallel(&cases, |case| {
        let operator = case.include == operators_dir();
        let mut failures = Vec::new();
        for tag in ["injected", "plain", "jammed"] {
            if tag == "injected" || operator {
                match check_opencl(case, tag, &dir) {
                    Ok(true) => promoted
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(case.name.clone()),
                    Ok(false) => {}
                    Err(e) => failures.push(e),
                }
            }
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Tiles in shared memory are part of what ran: gemm's A and B tiles among others.
    let promoted = promoted.into_inner().unwrap_or_else(|e| e.into_inner());
    assert!(
        promoted.iter().any(|n| n == "gemm") && promoted.len() >= 5,
        "programs with shared memory: {promoted:?}"
    );
}

#[test]
fn every_kernel_and_operator_compiles_as_cuda() {
    let Some(nvcc) = gpu::nvcc() else {
        eprintln!("nvcc not found (set POLLEN_NVCC): no CUDA file is compiled");
        return;
    };
    let cases = cases();
    let dir = cc::scratch("driver-cuda");
    let failures = in_parallel(&cases, |case| {
        let name = &case.name;
        let optimized = match optimize_source(&case.source, &options(Target::Cuda, true)) {
            Ok(o) => o,
            Err(e) => return vec![format!("{name}: {e}")],
        };
        let cu = dir.join(format!("{name}.cu"));
        let ptx = dir.join(format!("{name}.ptx"));
        if let Err(e) = std::fs::write(&cu, &optimized.text) {
            return vec![e.to_string()];
        }
        let include = format!("-I{}", case.include.display());
        let (Some(cu), Some(ptx)) = (cu.to_str(), ptx.to_str()) else {
            return vec!["a non-UTF-8 scratch path".to_string()];
        };
        gpu::run_nvcc(&nvcc, &["--ptx", include.as_str(), cu, "-o", ptx])
            .err()
            .map(|e| format!("{name}: {e}"))
            .into_iter()
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Three regions in two functions, two of them in the same function: the kernels of
/// each region keep their own names, the prelude comes once before each function, and
/// the program computes what the original does.
const THREE_REGIONS: &str = r#"#include <stdio.h>
#define N 40
static double A[N][N], B[N][N];
static void first(void)
{
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      B[j][i] = A[j][i] + 1;
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i][j] * 0.5 + B[j][i];
#pragma endscop
}
static void second(void)
{
  int i, j;
#pragma scop
  for (i = 1; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i - 1][j] * 0.25 + B[i][j];
#pragma endscop
}
int main(void)
{
  int i, j;
  double sum = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (double) ((i * 7 + j * 3) % 11) / 11;
  first();
  second();
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += A[i][j] * (1 + (i + j) % 5) + B[i][j];
  printf("sum %.17g\n", sum);
  return 0;
}
"#;

#[test]
fn several_regions_of_one_file_on_opencl_and_cuda() {
    cc::require_gcc();
    gpu::require_opencl();
    let dir = cc::scratch("driver-gpu-regions");
    let case = Case {
        name: "three-regions".to_string(),
        source: THREE_REGIONS.to_string(),
        include: dir.clone(),
    };
    check_opencl(&case, "injected", &dir).unwrap();
    let opencl = optimize_source(THREE_REGIONS, &options(Target::OpenCl, true)).unwrap();
    assert_eq!(opencl.report.regions.len(), 3);
    assert_eq!(
        opencl.text.matches("pollen_cl_open(pollen_source").count(),
        3
    );
    let cuda = optimize_source(THREE_REGIONS, &options(Target::Cuda, true)).unwrap();
    for region in 0..3 {
        assert!(
            cuda.text
                .contains(&format!("__global__ void region{region}_kernel0(")),
            "{}",
            cuda.text
        );
    }
    if let Some(nvcc) = gpu::nvcc() {
        let cu = dir.join("three-regions.cu");
        let object = dir.join("three-regions.o");
        std::fs::write(&cu, &cuda.text).unwrap();
        gpu::run_nvcc(
            &nvcc,
            &["-c", cu.to_str().unwrap(), "-o", object.to_str().unwrap()],
        )
        .unwrap();
    }
}
