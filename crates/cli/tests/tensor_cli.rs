//! `pollen te` and `pollen opt` on tensor programs: the naive C program of a `.te` file
//! and its optimized version compile and print the same checksums.

use std::path::{Path, PathBuf};
use std::process::Command;

use pollen_testkit::cc;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pollen(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args(args)
        .output()
        .expect("run pollen");
    assert!(
        out.status.success(),
        "pollen {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn build_and_run(source: &Path, defines: &[&str], openmp: bool) -> String {
    let binary = source.with_extension("bin");
    let include = format!("-I{}", root().join("examples/operators").display());
    let mut flags = vec!["-O2", "-ffp-contract=off", include.as_str()];
    if openmp {
        flags.push("-fopenmp");
    }
    flags.extend_from_slice(defines);
    cc::compile(source, &binary, &flags).unwrap_or_else(|e| panic!("{e}"));
    cc::run(&binary, 2).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn tensor_programs_lower_and_optimize_to_the_same_results() {
    cc::require_gcc();
    let dir = cc::scratch("tensor-cli");
    let cases: &[(&str, &[&str])] = &[
        ("softmax", &["-DR=3", "-DS=9"]),
        (
            "conv2d_3x3_s2",
            &["-DN=2", "-DC=3", "-DH=7", "-DW=6", "-DK=4"],
        ),
        ("layer_norm", &["-DB=2", "-DS=3", "-DH=10"]),
    ];
    for (name, defines) in cases {
        let te = root().join(format!("examples/tensor/{name}.te"));
        let te = te.to_str().expect("a UTF-8 path");
        let naive = dir.join(format!("{name}.c"));
        let optimized = dir.join(format!("{name}.opt.c"));
        let naive_str = naive.to_str().expect("a UTF-8 path");
        pollen(&["te", te, "-o", naive_str]);
        assert_eq!(
            std::fs::read_to_string(&naive).unwrap(),
            pollen(&["te", te])
        );
        pollen(&["opt", te, "-o", optimized.to_str().expect("a UTF-8 path")]);
        let expected = build_and_run(&naive, defines, false);
        let got = build_and_run(&optimized, defines, true);
        assert!(!expected.is_empty(), "{name}: no output");
        assert_eq!(
            expected,
            got,
            "{name}: {}",
            cc::first_difference(&expected, &got)
        );
    }
}

#[test]
fn errors_in_tensor_programs_are_located() {
    let dir = cc::scratch("tensor-cli-errors");
    let bad = dir.join("bad.te");
    std::fs::write(&bad, "param M = 4;\ninput A[M];\nB[i] = A[i] + Q[i];\n").unwrap();
    for command in ["te", "opt", "scop"] {
        let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
            .args([command, bad.to_str().expect("a UTF-8 path")])
            .output()
            .expect("run pollen");
        assert_eq!(out.status.code(), Some(1), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.ends_with("bad.te:3:15: error: unknown tensor `Q`\n"),
            "{command}: {stderr}"
        );
    }
}

/// Runs pollen; its standard output and error together (`--explain` writes to the
/// latter).
fn pollen_explain(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args(args)
        .output()
        .expect("run pollen");
    assert!(
        out.status.success(),
        "pollen {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut text = String::from_utf8(out.stdout).expect("UTF-8");
    text.push_str(&String::from_utf8(out.stderr).expect("UTF-8"));
    text
}

/// The programs of `examples/tensor/` with the first size set of the manifest, as `-D`
/// flags.
fn suite() -> Vec<(String, Vec<String>)> {
    let manifest = std::fs::read_to_string(root().join("examples/tensor/manifest.txt")).unwrap();
    manifest
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let defines = words[1].split(',').map(|kv| format!("-D{kv}")).collect();
            (words[0].to_string(), defines)
        })
        .collect()
}

#[test]
fn akg_strategy_computes_what_the_naive_operators_compute() {
    cc::require_gcc();
    let dir = cc::scratch("tensor-cli-akg");
    let programs = suite();
    assert!(programs.len() >= 15);
    let mut one_kernel = false;
    for (name, defines) in &programs {
        let te = root().join(format!("examples/tensor/{name}.te"));
        let te = te.to_str().expect("a UTF-8 path");
        let naive = dir.join(format!("{name}.c"));
        let optimized = dir.join(format!("{name}.akg.c"));
        pollen(&["te", te, "-o", naive.to_str().unwrap()]);
        let report = pollen_explain(&[
            "opt",
            "--strategy",
            "akg",
            "--explain",
            te,
            "-o",
            optimized.to_str().unwrap(),
        ]);
        assert!(
            report.contains("schedule (conservative clustering of the loop nests)"),
            "{name}: {report}"
        );
        // The bias addition and GELU form one cluster, tiled as one kernel.
        if name == "bias_gelu_tanh" {
            one_kernel = report.contains("group 0: output {S0, S1}");
        }
        let defines: Vec<&str> = defines.iter().map(String::as_str).collect();
        let expected = build_and_run(&naive, &defines, false);
        let got = build_and_run(&optimized, &defines, true);
        assert!(!expected.is_empty(), "{name}: no output");
        assert_eq!(
            expected,
            got,
            "{name}: {}",
            cc::first_difference(&expected, &got)
        );
    }
    assert!(one_kernel);
}
