//! The driver on every deep-learning operator of `examples/operators`: each program
//! builds cleanly with `gcc -std=c99 -Wall -Wextra -Werror` (its large sizes too, and as
//! C++ where g++ is installed), runs and prints finite checksums and its `POLLEN_TIME`
//! line; the frontend reads its one region with every array's element type and extents
//! known (what a GPU host program needs to allocate and copy them); and the program
//! [`optimize_source`] makes of it with the default options prints the same checksums at
//! 1 and 2 OpenMP threads. gcc must be installed.

use std::path::Path;
use std::process::Command;

use pollen_driver::{optimize_source, Options};
use pollen_testkit::cc::{compile, first_difference, require_gcc, run, scratch};
use pollen_testkit::{operator_names, operator_source, operators_dir};

/// The warnings every operator must build without.
const STRICT: [&str; 5] = ["-O2", "-std=c99", "-Wall", "-Wextra", "-Werror"];

/// `-I examples/operators`, for the optimized files written elsewhere.
fn include() -> String {
    format!("-I{}", operators_dir().display())
}

/// Whether a compiler driver runs.
fn available(compiler: &str) -> bool {
    Command::new(compiler)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether `text` is a finite number as `printf` writes one (`-12.5`, `1.5e-07`; not
/// `nan` or `inf`).
fn is_number(text: &str) -> bool {
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (text, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mantissa = mantissa.strip_prefix('-').unwrap_or(mantissa);
    let mantissa_ok = match mantissa.split_once('.') {
        Some((whole, fraction)) => {
            (digits(whole) || whole.is_empty())
                && (digits(fraction) || fraction.is_empty())
                && !(whole.is_empty() && fraction.is_empty())
        }
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

#[test]
fn numbers_are_recognised() {
    for yes in ["0", "-12.5", "1.5e-07", "3.25E+10", "0.000024", "7."] {
        assert!(is_number(yes), "{yes}");
    }
    for no in [
        "nan", "-inf", "inf", "", "-", ".", "1e", "1.2.3", "x1", "1e5x",
    ] {
        assert!(!is_number(no), "{no}");
    }
}

/// Runs a binary once; its standard output, after checking that it printed checksum
/// lines with finite values and a `POLLEN_TIME <seconds>` line on standard error.
fn run_checked(binary: &Path) -> Result<String, String> {
    let output = Command::new(binary)
        .env("OMP_NUM_THREADS", "1")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("exited with {}: {stderr}", output.status));
    }
    if stdout.trim().is_empty() {
        return Err("printed no checksum".into());
    }
    for line in stdout.lines() {
        let value = line.split_whitespace().nth(1);
        if !value.is_some_and(is_number) {
            return Err(format!(
                "not a `name checksum` line with a finite value: `{line}`"
            ));
        }
    }
    let timed = stderr.lines().any(|l| {
        l.strip_prefix("POLLEN_TIME ")
            .is_some_and(|t| is_number(t) && !t.starts_with('-'))
    });
    if !timed {
        return Err(format!(
            "no `POLLEN_TIME <seconds>` line on stderr: `{stderr}`"
        ));
    }
    Ok(stdout)
}

/// Checks one operator; the failures.
fn check_operator(name: &str, dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let path = operators_dir().join(format!("{name}.c"));
    let source = operator_source(name);

    let syntax = |flags: &[&str], compiler: &str| -> Result<(), String> {
        let o = Command::new(compiler)
            .args(flags)
            .arg("-fsyntax-only")
            .arg(&path)
            .output()
            .map_err(|e| format!("cannot run {compiler}: {e}"))?;
        if o.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&o.stderr).into_owned())
        }
    };
    let mut large = STRICT.to_vec();
    large.push("-DLARGE_DATASET");
    if let Err(e) = syntax(&large, "gcc") {
        failures.push(format!("{name}: -DLARGE_DATASET does not compile:\n{e}"));
    }
    let cxx = [
        "-x",
        "c++",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unknown-pragmas",
    ];
    if available("g++") {
        if let Err(e) = syntax(&cxx, "g++") {
            failures.push(format!("{name}: does not compile as C++:\n{e}"));
        }
    }

    match pollen_frontend::extract_all(&source) {
        Ok(regions) if regions.len() == 1 => {
            let scop = &regions[0].scop;
            if scop.statements.is_empty() {
                failures.push(format!("{name}: the region has no statement"));
            }
            for array in scop.arrays.iter().filter(|a| !a.extents.is_empty()) {
                if array.element_type != "DATA_TYPE" || array.extents.iter().any(String::is_empty) {
                    failures.push(format!(
                        "{name}: array {} has type `{}` and extents {:?}",
                        array.name, array.element_type, array.extents
                    ));
                }
            }
        }
        Ok(regions) => failures.push(format!("{name}: {} regions, not one", regions.len())),
        Err(e) => failures.push(format!("{name}: extraction: {e}")),
    }

    let original = dir.join(format!("{name}.orig"));
    let mut flags = STRICT.to_vec();
    let include = include();
    flags.push(&include);
    let expected = match compile(&path, &original, &flags).and_then(|()| run_checked(&original)) {
        Ok(out) => out,
        Err(e) => {
            failures.push(format!("{name} (original): {e}"));
            return failures;
        }
    };
    let optimized = match optimize_source(&source, &Options::default()) {
        Ok(o) => o.text,
        Err(e) => {
            failures.push(format!("{name}: optimize_source: {e}"));
            return failures;
        }
    };
    let optimized_path = dir.join(format!("{name}.opt.c"));
    let binary = dir.join(format!("{name}.opt"));
    let built = std::fs::write(&optimized_path, &optimized)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            compile(
                &optimized_path,
                &binary,
                &["-O2", "-fopenmp", "-Wno-unknown-pragmas", &include],
            )
        });
    if let Err(e) = built {
        failures.push(format!("{name} (optimized): {e}"));
        return failures;
    }
    for threads in [1, 2] {
        match run(&binary, threads) {
            Ok(out) if out == expected => {}
            Ok(out) => failures.push(format!(
                "{name} (optimized, {threads} thread(s)): {}",
                first_difference(&expected, &out)
            )),
            Err(e) => failures.push(format!("{name} (optimized): {e}")),
        }
    }
    failures
}

#[test]
fn every_operator_builds_runs_and_keeps_its_checksums_when_optimized() {
    require_gcc();
    let names = operator_names();
    assert!(!names.is_empty(), "no operator in examples/operators");
    let dir = scratch("operators");
    let failures: Vec<String> = names
        .iter()
        .flat_map(|name| check_operator(name, &dir))
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_manifest_lists_every_operator_once_with_its_family() {
    let text = std::fs::read_to_string(operators_dir().join("manifest.txt")).expect("manifest.txt");
    let mut listed: Vec<String> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert!(
            fields.len() >= 3,
            "name, family and a description: `{line}`"
        );
        assert!(
            ["bert", "resnet"].contains(&fields[1]),
            "family bert or resnet: `{line}`"
        );
        listed.push(fields[0].to_string());
    }
    let mut sorted = listed.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), listed.len(), "an operator is listed twice");
    let mut files = operator_names();
    if std::env::var("OPERATOR").is_ok() {
        sorted.retain(|n| files.contains(n));
    }
    files.sort();
    assert_eq!(sorted, files, "manifest.txt and the .c files differ");
    assert!(
        std::env::var("OPERATOR").is_ok() || files.len() >= 14,
        "{} operators",
        files.len()
    );
}
