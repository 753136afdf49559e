//! `pollen opt --vector-registers`: reductions kept in explicit vector variables give
//! exactly the original program's output (tensor operators at sizes that leave every
//! kind of strip and remainder, the example kernels at their default sizes, tiled and
//! untiled), and the form is actually produced where it applies.

use std::path::{Path, PathBuf};
use std::process::Command;

use pollen_testkit::cc;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pollen(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args(args)
        .output()
        .expect("run pollen");
    assert!(
        out.status.success(),
        "pollen {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Builds `source` into `dir` and runs it on 2 threads.
fn build_and_run(dir: &Path, source: &Path, include: &Path, defines: &[&str]) -> String {
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a UTF-8 name");
    let binary = dir.join(format!("{stem}.bin"));
    let include = format!("-I{}", include.display());
    let mut flags = vec![
        "-O2",
        "-ffp-contract=off",
        "-fopenmp",
        "-DPOLLEN_DUMP",
        include.as_str(),
    ];
    flags.extend_from_slice(defines);
    cc::compile(source, &binary, &flags).unwrap_or_else(|e| panic!("{e}"));
    cc::run(&binary, 2).unwrap_or_else(|e| panic!("{e}"))
}

/// Optimizes `input` with `options` into `dir`, checks the output against `expected`
/// and returns the optimized text.
fn check(
    dir: &Path,
    input: &Path,
    tag: &str,
    options: &[&str],
    include: &Path,
    defines: &[&str],
    expected: &str,
) -> String {
    let out = dir.join(format!("{tag}.c"));
    let mut args = vec![
        "opt",
        input.to_str().expect("UTF-8"),
        "-o",
        out.to_str().expect("UTF-8"),
        "--vector-registers",
    ];
    args.extend_from_slice(options);
    pollen(&args);
    let got = build_and_run(dir, &out, include, defines);
    assert!(!expected.is_empty(), "{tag}: no output");
    assert_eq!(
        expected,
        got,
        "{tag} {options:?}: {}",
        cc::first_difference(expected, &got)
    );
    std::fs::read_to_string(&out).unwrap()
}

#[test]
fn tensor_operators_with_vector_accumulators_equal_the_naive_programs() {
    cc::require_gcc();
    let dir = cc::scratch("vector-registers-tensor");
    let include = root().join("examples/operators");
    // Widths of 37 and 13 leave strips of 3 and 1 vectors, a half vector and a scalar rest.
    let cases: &[(&str, &[&str], bool)] = &[
        (
            "conv2d_3x3",
            &["-DN=2", "-DC=3", "-DH=5", "-DW=37", "-DK=5"],
            true,
        ),
        (
            "conv2d_3x3",
            &["-DN=1", "-DC=4", "-DH=3", "-DW=13", "-DK=3"],
            true,
        ),
        ("matmul", &["-DM=7", "-DN=45", "-DK=11"], false),
        (
            "batched_matmul",
            &["-DBATCH=2", "-DM=5", "-DN=37", "-DK=9"],
            false,
        ),
        (
            "conv2d_1x1",
            &["-DN=1", "-DC=6", "-DH=3", "-DW=19", "-DK=5"],
            false,
        ),
        (
            "depthwise_conv",
            &["-DN=1", "-DC=3", "-DH=6", "-DW=37"],
            false,
        ),
    ];
    for (name, defines, applies) in cases {
        let te = root().join(format!("examples/tensor/{name}.te"));
        let naive = dir.join(format!("{name}.c"));
        pollen(&[
            "te",
            te.to_str().expect("UTF-8"),
            "-o",
            naive.to_str().expect("UTF-8"),
        ]);
        let expected = build_and_run(&dir, &naive, &include, defines);
        let variants: &[&[&str]] = if name.starts_with("conv2d_3x3") {
            &[&["--no-tile"], &[]]
        } else {
            &[&["--no-tile"], &[], &["--strategy", "akg"]]
        };
        for (k, options) in variants.iter().enumerate() {
            let text = check(
                &dir,
                &naive,
                &format!("{name}-{k}"),
                options,
                &include,
                defines,
                &expected,
            );
            if *applies && k == 0 {
                // Once for pairs of rows side by side, once for the row left.
                assert!(
                    text.matches("vector_size(").count() >= 2,
                    "{name}: not applied or not jammed\n{text}"
                );
            }
        }
    }
}

#[test]
fn example_kernels_with_vector_accumulators_equal_the_originals() {
    cc::require_gcc();
    let dir = cc::scratch("vector-registers-kernels");
    let kernels = root().join("examples/kernels");
    let mut applied = Vec::new();
    for name in [
        "gemm",
        "2mm",
        "3mm",
        "syrk",
        "syr2k",
        "doitgen",
        "symm",
        "trmm",
        "covariance",
        "correlation",
        "gramschmidt",
        "atax",
        "bicg",
        "mvt",
        "jacobi-2d",
        "fdtd-2d",
        "lu",
    ] {
        let source = kernels.join(format!("{name}.c"));
        let expected = build_and_run(&dir, &source, &kernels, &[]);
        for (k, options) in [&[][..], &["--no-tile"][..]].iter().enumerate() {
            let text = check(
                &dir,
                &source,
                &format!("{name}-{k}"),
                options,
                &kernels,
                &[],
                &expected,
            );
            if text.contains("vector_size(") {
                applied.push(format!("{name} {options:?}"));
            }
        }
    }
    // The form applies to the products at least (their reductions over k).
    assert!(
        applied.iter().any(|a| a.starts_with("2mm")),
        "applied only to {applied:?}"
    );
}

/// A reduction over `k` into `y[i][j]`, reading `x` with stride 2 along `j` (gathered)
/// and `z` with stride 1 (loaded), with a division: 37 columns leave strips of 3 and 1
/// vectors, a half vector and a scalar rest.
const STRIDED: &str = r#"#include <stdio.h>
#ifndef N
# define N 37
#endif
#ifndef K
# define K 11
#endif
#ifndef M
# define M 5
#endif
static float x[K][2 * N + 3], z[K][N], w[M][K], y[M][N];

static void kernel(void)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      y[i][j] = 0.5f * w[i][0];
  for (i = 0; i < M; i++)
    for (k = 0; k < K; k++)
      for (j = 0; j < N; j++)
        y[i][j] = y[i][j] + x[k][2 * j + 1] * w[i][k] - z[k][j] / w[i][k];
#pragma endscop
}

int main(void)
{
  for (int k = 0; k < K; k++)
    for (int j = 0; j < 2 * N + 3; j++)
      x[k][j] = (float) ((k * 7 + j * 3) % 13) / 7.0f - 0.9f;
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++)
      z[k][j] = (float) ((k * 3 + j * 5) % 11) / 3.0f - 1.1f;
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++)
      w[i][k] = (float) ((i * 5 + k * 11) % 17 + 1) / 9.0f;
  kernel();
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      printf("%a\n", y[i][j]);
  return 0;
}
"#;

#[test]
fn gathered_operands_and_divisions_keep_the_results() {
    cc::require_gcc();
    let dir = cc::scratch("vector-registers-strided");
    let source = dir.join("strided.c");
    std::fs::write(&source, STRIDED).unwrap();
    let expected = build_and_run(&dir, &source, &dir, &[]);
    let text = check(
        &dir,
        &source,
        "strided-0",
        &["--no-tile"],
        &dir,
        &[],
        &expected,
    );
    assert!(text.contains("vector_size("), "{text}");
    // `x`, read with stride 2, loaded as two vectors and deinterleaved.
    assert!(
        text.contains("= &x[c1][2 * ") && text.contains("pollen_shuffle("),
        "not deinterleaved\n{text}"
    );
    for defines in [
        &["-DN=5", "-DK=3", "-DM=2"][..],
        &["-DN=64", "-DK=2", "-DM=3"][..],
    ] {
        let expected = build_and_run(&dir, &source, &dir, defines);
        check(
            &dir,
            &source,
            "strided-1",
            &["--no-tile"],
            &dir,
            defines,
            &expected,
        );
    }
}

/// Reductions through selects, with NaNs, signed zeros and ties among the values:
/// `y` a maximum written as a conditional expression over `x` read with stride 2, `z` a
/// minimum through a macro of the file over `x` with stride 3 and `u` with stride 4
/// (with literals), `v` a conditional expression whose values are not in the order of
/// its comparison's operands, `s` a sum over `x` with stride 5 (gathered element by
/// element). 37 columns leave strips of 3 and 1 vectors, a half vector and a scalar
/// rest.
const SELECTS: &str = r#"#include <math.h>
#include <stdio.h>
#define MYMIN(a, b) ((a) < (b) ? (a) : (b))
#ifndef N
# define N 37
#endif
#ifndef K
# define K 7
#endif
#ifndef M
# define M 3
#endif
static float x[K][5 * N + 4], u[K][4 * N + 5], w[M][K], y[M][N], z[M][N], v[M][N], s[M][N];

static float value(int a, int b)
{
  int r = (a * 7 + b * 3) % 13;
  if (r == 5)
    return NAN;
  if (r == 6)
    return -0.0f;
  if (r == 7 || r == 8)
    return 0.0f;
  return (float) r / 7.0f - 0.9f;
}

static void kernel(void)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < M; i++)
    for (k = 0; k < K; k++)
      for (j = 0; j < N; j++)
        y[i][j] = (y[i][j] > x[k][2 * j + 1] ? y[i][j] : x[k][2 * j + 1]);
  for (i = 0; i < M; i++)
    for (k = 0; k < K; k++)
      for (j = 0; j < N; j++)
        z[i][j] = MYMIN(z[i][j], x[k][3 * j] * 0.5f + u[k][4 * j + 1] * w[i][k]) + 2;
  for (i = 0; i < M; i++)
    for (k = 0; k < K; k++)
      for (j = 0; j < N; j++)
        v[i][j] = x[k][j + 2] >= v[i][j] ? v[i][j] : x[k][j + 2];
  for (i = 0; i < M; i++)
    for (k = 0; k < K; k++)
      for (j = 0; j < N; j++)
        s[i][j] += x[k][5 * j + 3] * w[i][k];
#pragma endscop
}

int main(void)
{
  for (int k = 0; k < K; k++) {
    for (int j = 0; j < 5 * N + 4; j++)
      x[k][j] = value(k, j);
    for (int j = 0; j < 4 * N + 5; j++)
      u[k][j] = value(k + 3, j + 1);
  }
  for (int i = 0; i < M; i++) {
    for (int k = 0; k < K; k++)
      w[i][k] = value(i, k + 2);
    for (int j = 0; j < N; j++) {
      y[i][j] = value(i + 1, j);
      z[i][j] = value(i + 2, j);
      v[i][j] = value(i + 4, j);
      s[i][j] = value(i + 5, j);
    }
  }
  kernel();
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      printf("%a %a %a %a\n", y[i][j], z[i][j], v[i][j], s[i][j]);
  return 0;
}
"#;

#[test]
fn selects_and_deinterleaved_operands_keep_the_results() {
    cc::require_gcc();
    let dir = cc::scratch("vector-registers-selects");
    let source = dir.join("selects.c");
    std::fs::write(&source, SELECTS).unwrap();
    let expected = build_and_run(&dir, &source, &dir, &[]);
    assert!(expected.contains("nan") && expected.contains("-0x0p+0"));
    let text = check(
        &dir,
        &source,
        "selects-0",
        &["--no-tile"],
        &dir,
        &[],
        &expected,
    );
    // Every reduction in vector variables: the selects as bitwise selects under a
    // comparison's mask, strides 2 to 4 deinterleaved, stride 5 gathered.
    for array in ["y", "z", "v", "s"] {
        assert!(
            text.contains(&format!(" = *(t0 *) &{array}[")),
            "{array} not in vector accumulators\n{text}"
        );
    }
    assert!(text.contains(" & ~"), "no vector select\n{text}");
    for element in ["&x[c1][2 * ", "&x[c1][3 * ", "&u[c1][4 * "] {
        assert!(
            text.contains(&format!("= {element}")),
            "{element} not deinterleaved\n{text}"
        );
    }
    assert!(
        text.contains("] = x[c1][5 * ("),
        "stride 5 not gathered\n{text}"
    );
    for (k, defines) in [
        &["-DN=5", "-DK=3", "-DM=2"][..],
        &["-DN=64", "-DK=2", "-DM=3"][..],
        &["-DN=3", "-DK=4", "-DM=1"][..],
    ]
    .iter()
    .enumerate()
    {
        let expected = build_and_run(&dir, &source, &dir, defines);
        for (o, options) in [&["--no-tile"][..], &[][..]].iter().enumerate() {
            check(
                &dir,
                &source,
                &format!("selects-{}", 1 + 2 * k + o),
                options,
                &dir,
                defines,
                &expected,
            );
        }
    }
}

#[test]
fn strided_tensor_operators_are_deinterleaved_and_max_pool_selects() {
    cc::require_gcc();
    let dir = cc::scratch("vector-registers-strided-tensor");
    let include = root().join("examples/operators");
    // Widths whose outputs (`(W - 1) / 2 + 1`) leave strips of 3 and 1 vectors, a half
    // vector and a scalar rest.
    let cases: &[(&str, &[&str])] = &[
        ("max_pool", &["-DN=1", "-DC=3", "-DH=13", "-DW=75"]),
        ("max_pool", &["-DN=2", "-DC=2", "-DH=6", "-DW=27"]),
        (
            "conv2d_3x3_s2",
            &["-DN=1", "-DC=3", "-DH=7", "-DW=75", "-DK=3"],
        ),
        (
            "conv2d_1x1_s2",
            &["-DN=1", "-DC=4", "-DH=5", "-DW=27", "-DK=5"],
        ),
    ];
    for (name, defines) in cases {
        let te = root().join(format!("examples/tensor/{name}.te"));
        let naive = dir.join(format!("{name}.c"));
        pollen(&[
            "te",
            te.to_str().expect("UTF-8"),
            "-o",
            naive.to_str().expect("UTF-8"),
        ]);
        let expected = build_and_run(&dir, &naive, &include, defines);
        for (k, options) in [&["--no-tile"][..], &[][..]].iter().enumerate() {
            let text = check(
                &dir,
                &naive,
                &format!("{name}-{k}"),
                options,
                &include,
                defines,
                &expected,
            );
            if k == 0 {
                assert!(
                    text.contains("vector_size(") && text.contains("pollen_shuffle("),
                    "{name}: not deinterleaved\n{text}"
                );
                if *name == "max_pool" {
                    assert!(text.contains(" & ~"), "{name}: no vector select\n{text}");
                }
            }
        }
    }
}

/// `--vector-bytes`: other vector widths give the same results, with vectors of that
/// many bytes (the selects' `float`s) or lanes (max_pool's `DATA_TYPE`, 4-byte lanes
/// assumed for its shuffles), and a width that is not a power of two is refused.
#[test]
fn other_vector_widths_keep_the_results() {
    cc::require_gcc();
    let dir = cc::scratch("vector-registers-widths");
    let source = dir.join("selects.c");
    std::fs::write(&source, SELECTS).unwrap();
    let defines = &["-DN=70", "-DK=3", "-DM=2"][..];
    let expected = build_and_run(&dir, &source, &dir, defines);
    for bytes in ["16", "64"] {
        let text = check(
            &dir,
            &source,
            &format!("selects-{bytes}"),
            &["--no-tile", "--vector-bytes", bytes],
            &dir,
            defines,
            &expected,
        );
        assert!(
            text.contains(&format!("vector_size({bytes})")),
            "no {bytes}-byte vectors\n{text}"
        );
        // Wide vectors also have a quarter vector for the last lanes (N = 70 is
        // 4 × 16 + 4 + 2), narrow ones only a half one (of 8 bytes).
        let quarter = if bytes == "64" { "16" } else { "4" };
        assert_eq!(
            text.contains(&format!("vector_size({quarter})")),
            bytes == "64",
            "{text}"
        );
        assert!(
            text.contains("pollen_shuffle("),
            "not deinterleaved\n{text}"
        );
    }
    let include = root().join("examples/operators");
    let te = root().join("examples/tensor/max_pool.te");
    let naive = dir.join("max_pool.c");
    pollen(&[
        "te",
        te.to_str().expect("UTF-8"),
        "-o",
        naive.to_str().expect("UTF-8"),
    ]);
    let defines = &["-DN=1", "-DC=2", "-DH=9", "-DW=139"][..];
    let expected = build_and_run(&dir, &naive, &include, defines);
    let text = check(
        &dir,
        &naive,
        "max_pool-64",
        &["--no-tile", "--vector-bytes", "64"],
        &include,
        defines,
        &expected,
    );
    assert!(
        text.contains("vector_size(16 * sizeof(DATA_TYPE))"),
        "no 16-lane vectors\n{text}"
    );
    // 70 outputs a row: 4 strips of 16, then a quarter vector of 4 (the half one of 8
    // does not fit), then 2 in the scalar loop.
    assert!(
        text.contains("vector_size(4 * sizeof(DATA_TYPE))"),
        "no quarter vectors\n{text}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args([
            "opt",
            source.to_str().expect("UTF-8"),
            "--vector-registers",
            "--vector-bytes",
            "48",
        ])
        .output()
        .expect("run pollen");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("a vector of 48 bytes"),
        "{stderr}"
    );
}

/// A reduction over `k`, `q`, `r` with the guard `2q + r <= 2` (a 3-tap filter split by
/// the taps' parity, reading a deinterleaved copy): the loop of `r` runs to
/// `min(1, 2 - 2q)`, which is never empty, and the Presburger library proves it, so the
/// vector accumulators hold across the whole reduction, not only its innermost loop.
const PARITY: &str = r#"#include <stdio.h>
#ifndef N
# define N 37
#endif
#ifndef K
# define K 5
#endif
#ifndef M
# define M 3
#endif
static float x[K][2][N + 1], w[M][K][3], y[M][N];

int main(void)
{
  int i, j, k, q, r;
  for (k = 0; k < K; k++)
    for (r = 0; r < 2; r++)
      for (j = 0; j < N + 1; j++)
        x[k][r][j] = (float) ((k * 7 + r * 5 + j * 3) % 11) / 4.0f - 1.1f;
  for (i = 0; i < M; i++)
    for (k = 0; k < K; k++)
      for (r = 0; r < 3; r++)
        w[i][k][r] = (float) ((i + 2 * k + 3 * r) % 7) / 3.0f - 0.9f;
#pragma scop
  for (i = 0; i < M; i++)
    for (k = 0; k < K; k++)
      for (q = 0; q < 2; q++)
        for (r = 0; r < 2; r++)
          if (2 * q + r <= 2)
            for (j = 0; j < N; j++)
              y[i][j] += x[k][r][j + q] * w[i][k][2 * q + r];
#pragma endscop
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      printf("%a\n", y[i][j]);
  return 0;
}
"#;

#[test]
fn accumulators_hold_across_loops_proved_to_run() {
    cc::require_gcc();
    let dir = cc::scratch("vector-registers-parity");
    let source = dir.join("parity.c");
    std::fs::write(&source, PARITY).unwrap();
    let expected = build_and_run(&dir, &source, &dir, &[]);
    let text = check(
        &dir,
        &source,
        "parity-0",
        &["--no-tile"],
        &dir,
        &[],
        &expected,
    );
    // Between the first accumulator's load and the first update: the loops of `k`, `q`
    // and `r`.
    let load = text.find(" = *(t0 *) &y[").expect("vector accumulators");
    let update = load + text[load..].find(" += ").expect("an update");
    let loops = text[load..update].matches("for (").count();
    assert!(loops >= 3, "{loops} loops inside the accumulators\n{text}");
    for defines in [&["-DN=70", "-DK=2"][..], &["-DN=3", "-DK=1", "-DM=1"][..]] {
        let expected = build_and_run(&dir, &source, &dir, defines);
        check(
            &dir,
            &source,
            "parity-1",
            &["--no-tile"],
            &dir,
            defines,
            &expected,
        );
    }
}

const WINDOWS: &str = r#"#include <math.h>
#include <stdio.h>
#define MAX_FUN(x, y) ((x) > (y) ? (x) : (y))
#ifndef N
# define N 29
#endif
static float x[2 * N + 2][2 * N + 2], y[N][N], z[N][N];

int main(void)
{
  int i, j, a, b;
  for (i = 0; i < 2 * N + 2; i++)
    for (j = 0; j < 2 * N + 2; j++)
      x[i][j] = (float) ((i * 7 + j * 3) % 13) / 4.0f - 1.5f;
  x[3][5] = NAN;
  x[4][4] = -0.0f;
  x[2 * N][2 * N - 1] = INFINITY;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      y[i][j] = -INFINITY;
      for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++)
          y[i][j] = MAX_FUN(y[i][j], x[2 * i + a][2 * j + b]);
      z[i][j] = 0.0f;
      for (a = 0; a < 2; a++)
        for (b = 0; b < 2; b++)
          z[i][j] += x[2 * i + a][2 * j + b];
      z[i][j] = z[i][j] / 4.0f;
    }
#pragma endscop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%a %a\n", y[i][j], z[i][j]);
  return 0;
}
"#;

/// A pooling window (3×3 maximum, 2×2 average, stride 2) inside a parallel loop over the
/// output's columns: with vector registers the window's loops are unrolled, the loop
/// over the columns gets `omp simd` (not collapsed into the parallel loop above it) and
/// each output element lives in a variable through an iteration; NaN, infinity and
/// signed zeros in the input, the output bit for bit the original's, at three sizes,
/// under the strategies that keep the window inside.
#[test]
fn pooling_windows_unroll_into_simd_loops() {
    cc::require_gcc();
    let dir = cc::scratch("vector-registers-windows");
    let source = dir.join("windows.c");
    std::fs::write(&source, WINDOWS).unwrap();
    for defines in [&[][..], &["-DN=1"][..], &["-DN=3"][..]] {
        let expected = build_and_run(&dir, &source, &dir, defines);
        for strategy in ["akg", "polymage"] {
            let text = check(
                &dir,
                &source,
                &format!("windows-{strategy}"),
                &["--no-tile", "--strategy", strategy],
                &dir,
                defines,
                &expected,
            );
            let region = &text[text.find("Generated by Pollen").expect("a region")..];
            assert!(region.contains("#pragma omp simd"), "{strategy}\n{region}");
            // Updates of variables (`t0 = MAX_FUN(t0, x[...])`), not macro calls.
            let updates = |pattern: &str| {
                region
                    .lines()
                    .filter(|l| l.trim_start().starts_with('t') && l.contains(pattern))
                    .count()
            };
            assert_eq!(updates(" = MAX_FUN(t"), 9, "{strategy}\n{region}");
            assert_eq!(updates(" += x["), 4, "{strategy}\n{region}");
        }
    }
}

/// A convolution without a batch dimension: no vector operand mentions the output
/// channel, so four channels run side by side sharing each loaded vector of the input,
/// their groups inside the loop over the rows (collapsed with it); a
/// depthwise convolution's input moves with every loop, so only its rows are jammed, two
/// by two. Outputs equal the naive programs' at sizes that leave a partial group of
/// channels (or only one) and a row left over.
#[test]
fn output_channels_share_their_vectors_and_rows_are_jammed() {
    cc::require_gcc();
    let dir = cc::scratch("vector-registers-jam");
    let include = root().join("examples/operators");
    let programs = [
        (
            "conv_rows",
            "param C = 3, H = 9, W = 37, K = 6;
             param HO = (H - 1) / 2 + 1, WO = (W - 1) / 2 + 1;
             input X[C, H, W], Wt[K, C, 3, 3];
             P = pad(X, [0, 1, 1], [0, 1, 1], 0.0);
             Y[k, h : HO, w : WO] = sum(c : C, kh : 3, kw : 3, P[c, 2*h + kh, 2*w + kw] * Wt[k, c, kh, kw]);",
            " += 4) {",
        ),
        (
            "depthwise_rows",
            "param C = 3, H = 9, W = 37;
             input X[C, H, W], Wt[C, 3, 3];
             P = pad(X, [0, 1, 1], [0, 1, 1], 0.0);
             Y[c, h : H, w : W] = sum(kh : 3, kw : 3, P[c, h + kh, w + kw] * Wt[c, kh, kw]);",
            " += 2) {",
        ),
    ];
    for (name, program, jam) in programs {
        let te = dir.join(format!("{name}.te"));
        std::fs::write(&te, program).unwrap();
        let naive = dir.join(format!("{name}.c"));
        pollen(&[
            "te",
            te.to_str().expect("UTF-8"),
            "-o",
            naive.to_str().expect("UTF-8"),
        ]);
        for defines in [&[][..], &["-DH=6", "-DW=20", "-DK=3"][..]] {
            let expected = build_and_run(&dir, &naive, &include, defines);
            for bytes in ["32", "64"] {
                let text = check(
                    &dir,
                    &naive,
                    &format!("{name}-jammed-{bytes}"),
                    &["--no-tile", "--vector-bytes", bytes],
                    &include,
                    defines,
                    &expected,
                );
                let jam = if name == "conv_rows" && bytes == "64" {
                    " += 8) {"
                } else {
                    jam
                };
                assert!(text.contains(jam), "{name}: not jammed ({jam})\n{text}");
                if name == "conv_rows" {
                    // The groups of channels run inside the rows, which take the
                    // pragma and collapse the groups.
                    let lines: Vec<&str> = text.lines().map(str::trim).collect();
                    let at = lines.iter().position(|l| l.contains(jam)).unwrap();
                    assert!(
                        lines[at - 1].starts_with("for (") && lines[at - 2].contains("collapse(2)"),
                        "{name}: the groups are not inside the rows\n{text}"
                    );
                }
            }
        }
    }
}
