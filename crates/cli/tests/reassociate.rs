//! `pollen opt --reassociate --vector-math`: the loops that only accumulate get `omp simd`
//! reduction clauses, the mathematical functions the statements call are declared with
//! their vector variants, and the output stays within rounding of the original's,
//! element by element (tensor operators at small sizes, tiled and untiled); without the
//! options nothing of it is printed and the output is bit for bit the original's.

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

/// Builds `source` into `dir` with every element dumped and runs it on 2 threads.
fn build_and_run(dir: &Path, source: &Path, defines: &[&str]) -> String {
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a UTF-8 name");
    let binary = dir.join(format!("{stem}.bin"));
    let include = format!("-I{}", root().join("examples/operators").display());
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

/// The dumped elements of an output: `begin`/`end` lines kept as words, every other line
/// a number.
fn elements(output: &str) -> Vec<Result<f64, String>> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in output.lines() {
        if line.starts_with("begin ") {
            inside = true;
            out.push(Err(line.to_string()));
        } else if line.starts_with("end ") {
            inside = false;
            out.push(Err(line.to_string()));
        } else if inside {
            out.push(line.parse().map_err(|_| line.to_string()));
        }
    }
    out
}

/// Every element within `1e-5` of the original's (relative, or absolute below 1).
fn assert_close(tag: &str, expected: &str, got: &str) {
    let (e, g) = (elements(expected), elements(got));
    assert!(e.len() > 2, "{tag}: nothing dumped");
    assert_eq!(e.len(), g.len(), "{tag}: element counts differ");
    for (k, (x, y)) in e.iter().zip(&g).enumerate() {
        match (x, y) {
            (Ok(x), Ok(y)) => assert!(
                (x - y).abs() <= 1e-5 * x.abs().max(1.0),
                "{tag}: element {k}: {y}, the original has {x}"
            ),
            _ => assert_eq!(x, y, "{tag}: line {k}"),
        }
    }
}

/// The naive C program of `examples/tensor/<name>.te`, written into `dir`.
fn naive(dir: &Path, name: &str) -> PathBuf {
    let te = root().join(format!("examples/tensor/{name}.te"));
    let out = dir.join(format!("{name}.c"));
    pollen(&[
        "te",
        te.to_str().expect("UTF-8"),
        "-o",
        out.to_str().expect("UTF-8"),
    ]);
    out
}

/// `pollen opt` of `input` with `options` into `dir`: the text and the output.
fn optimized(
    dir: &Path,
    input: &Path,
    tag: &str,
    options: &[&str],
    defines: &[&str],
) -> (String, String) {
    let out = dir.join(format!("{tag}.c"));
    let mut args = vec![
        "opt",
        input.to_str().expect("UTF-8"),
        "-o",
        out.to_str().expect("UTF-8"),
    ];
    args.extend_from_slice(options);
    pollen(&args);
    let text = std::fs::read_to_string(&out).expect("written");
    (text.clone(), build_and_run(dir, &out, defines))
}

#[test]
fn reductions_and_math_calls_vectorise_within_rounding() {
    cc::require_gcc();
    let dir = cc::scratch("reassociate");
    // (program, sizes, the reduction clauses and declared functions expected untiled)
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "layer_norm",
            &["-DB=2", "-DS=5", "-DH=37"],
            &["reduction(+:", "SQRT_FUN(t"],
        ),
        (
            "softmax",
            &["-DR=3", "-DS=29"],
            &[
                "reduction(max:",
                "reduction(+:",
                "extern float expf(float);",
            ],
        ),
        (
            "global_avg_pool",
            &["-DN=2", "-DC=5", "-DH=3", "-DW=19"],
            &[
                "reduction(+:",
                "sizeof X[0][0][0] == _PB_W * sizeof X[0][0][0][0]",
                "[0][0])[c",
            ],
        ),
        (
            "bias_gelu_tanh",
            &["-DT=3", "-DI=45"],
            &["extern float tanhf(float);", "extern double tanh(double);"],
        ),
    ];
    for (name, defines, expected_text) in cases {
        let source = naive(&dir, name);
        let expected = build_and_run(&dir, &source, defines);
        for (k, options) in [&["--no-tile"][..], &[], &["--strategy", "akg"]]
            .iter()
            .enumerate()
        {
            let tag = format!("{name}-{k}");
            let mut fast = vec!["--reassociate", "--vector-math"];
            fast.extend_from_slice(options);
            let (text, got) = optimized(&dir, &source, &format!("{tag}-fast"), &fast, defines);
            assert_close(&format!("{tag} {fast:?}"), &expected, &got);
            if k == 0 {
                for needle in *expected_text {
                    assert!(text.contains(needle), "{tag}: no `{needle}` in\n{text}");
                }
            }
            // Without the options: no clause, no declaration, and the same bits.
            let (text, got) = optimized(&dir, &source, &format!("{tag}-exact"), options, defines);
            assert!(
                !text.contains("reduction(") && !text.contains("declare simd"),
                "{tag}"
            );
            assert_eq!(
                expected,
                got,
                "{tag}: {}",
                cc::first_difference(&expected, &got)
            );
        }
    }
}

#[test]
fn math_calls_compile_to_the_vector_variants() {
    cc::require_gcc();
    let dir = cc::scratch("vector-math");
    let source = naive(&dir, "softmax");
    let out = dir.join("softmax-vector-math.c");
    pollen(&[
        "opt",
        source.to_str().expect("UTF-8"),
        "-o",
        out.to_str().expect("UTF-8"),
        "--no-tile",
        "--vector-math",
    ]);
    let include = format!("-I{}", root().join("examples/operators").display());
    let assembly = Command::new("gcc")
        .args(["-O2", "-fopenmp", &include, "-S", "-o", "-"])
        .arg(&out)
        .output()
        .expect("run gcc");
    assert!(
        assembly.status.success(),
        "{}",
        String::from_utf8_lossy(&assembly.stderr)
    );
    let text = String::from_utf8_lossy(&assembly.stdout);
    // The vector function ABI's name of a vector `expf`: `_ZGV<isa>N<lanes>v_expf`.
    assert!(
        text.lines()
            .any(|l| l.contains("call") && l.contains("v_expf")),
        "no call of a vector expf"
    );
}

#[test]
fn short_constant_windows_keep_their_order() {
    cc::require_gcc();
    let dir = cc::scratch("reassociate-windows");
    // A 3x3 max pooling: its window loops run 3 times, too few for a reduction clause;
    // tiled (the default) and untiled, the output is then bit for bit the original's.
    let defines = &["-DN=1", "-DC=3", "-DH=9", "-DW=21"];
    let source = naive(&dir, "max_pool");
    let expected = build_and_run(&dir, &source, defines);
    for (k, options) in [&["--reassociate"][..], &["--reassociate", "--no-tile"]]
        .iter()
        .enumerate()
    {
        let (text, got) = optimized(&dir, &source, &format!("max_pool-{k}"), options, defines);
        assert!(!text.contains("reduction("), "{options:?}:\n{text}");
        assert_eq!(expected, got, "{}", cc::first_difference(&expected, &got));
    }
}

/// A sum over whole rows of an array is one loop over the rows' elements where each row
/// holds exactly the inner loop's iterations, and stays two loops where the rows are
/// padded (the padding holds values that would change the sums); the sums of small
/// integers are exact in any order, so the outputs equal the original's.
#[test]
fn sums_over_whole_rows_run_as_one_loop_where_rows_are_not_padded() {
    cc::require_gcc();
    let dir = cc::scratch("reassociate-rows");
    for pad in [0, 3] {
        let program = format!(
            "#include <stdio.h>\n\
             #define N 6\n#define H 5\n#define W 9\n\
             float X[N][H][W + {pad}];\nfloat Y[N];\n\n\
             static void kernel(int n, int h, int w)\n{{\n  int i, j, k;\n\
             #pragma scop\n\
             \x20 for (i = 0; i < n; i++) {{\n\
             \x20   Y[i] = 0;\n\
             \x20   for (j = 0; j < h; j++)\n\
             \x20     for (k = 0; k < w; k++)\n\
             \x20       Y[i] += X[i][j][k];\n\
             \x20 }}\n\
             #pragma endscop\n}}\n\n\
             int main(void)\n{{\n  int i, j, k;\n\
             \x20 for (i = 0; i < N; i++)\n\
             \x20   for (j = 0; j < H; j++)\n\
             \x20     for (k = 0; k < W + {pad}; k++)\n\
             \x20       X[i][j][k] = (float) ((7 * i + 5 * j + 3 * k) % 11) - (k >= W ? 1000.0f : 0.0f);\n\
             \x20 kernel(N, H, W);\n\
             \x20 for (i = 0; i < N; i++)\n\
             \x20   printf(\"%.1f\\n\", Y[i]);\n\
             \x20 return 0;\n}}\n"
        );
        let source = dir.join(format!("rows{pad}.c"));
        std::fs::write(&source, program).expect("written");
        let expected = build_and_run(&dir, &source, &[]);
        let (text, got) = optimized(
            &dir,
            &source,
            &format!("rows{pad}-fast"),
            &["--reassociate", "--no-tile"],
            &[],
        );
        assert!(
            text.contains("if (sizeof X[0][0] == w * sizeof X[0][0][0]) {")
                && text.contains("+= (&X[c0][0][0])[c1];")
                && text.contains("} else {"),
            "pad {pad}: {text}"
        );
        assert_eq!(expected, got, "pad {pad}: {text}");
    }
}

/// With vector registers, a pooling window's rows are combined first, over the
/// stretch of the input row under a strip of outputs, then under each output
/// (`pollen_emit_c`'s separable windows): a maximum stays bit for bit the original's
/// (no NaN or signed zero among the inputs), an average within rounding; rows wider
/// than a strip (550 outputs, strips of 256) and padded borders included (AKG's
/// strategy, which holds each window in a variable).
#[test]
fn pooling_windows_combine_their_rows_first() {
    cc::require_gcc();
    let dir = cc::scratch("reassociate-separable");
    let cases: &[(&str, &[&str])] = &[
        ("max_pool", &["-DN=1", "-DC=3", "-DH=9", "-DW=21"]),
        ("max_pool", &["-DN=1", "-DC=2", "-DH=5", "-DW=1101"]),
        ("avg_pool", &["-DN=2", "-DC=3", "-DH=6", "-DW=22"]),
        ("avg_pool", &["-DN=1", "-DC=2", "-DH=4", "-DW=1100"]),
    ];
    for (k, (name, defines)) in cases.iter().enumerate() {
        let source = naive(&dir, name);
        let expected = build_and_run(&dir, &source, defines);
        let tag = format!("{name}-{k}");
        let args = [
            "--reassociate",
            "--vector-registers",
            "--no-tile",
            "--strategy",
            "akg",
        ];
        let (text, got) = optimized(&dir, &source, &tag, &args, defines);
        let combined = text
            .lines()
            .any(|l| l.contains("] = X[c0][c1][2 * c") && l.trim_start().starts_with('t'));
        assert!(combined, "{tag}: no combined rows in\n{text}");
        if *name == "max_pool" {
            assert_eq!(
                expected,
                got,
                "{tag}: {}",
                cc::first_difference(&expected, &got)
            );
        } else {
            assert_close(&tag, &expected, &got);
        }
        // Without --reassociate the window keeps its order: the same bits.
        let exact: Vec<&str> = args[1..].to_vec();
        let (text, got) = optimized(&dir, &source, &format!("{tag}-exact"), &exact, defines);
        assert!(!text.contains(" += 256)"), "{tag}: {text}");
        assert_eq!(
            expected,
            got,
            "{tag}: {}",
            cc::first_difference(&expected, &got)
        );
    }
}
