//! `pollen opt` end to end on every kernel of `examples/kernels/`: the optimized program,
//! compiled with `gcc -O3 -fopenmp`, prints exactly what the original prints (checksums
//! and, with `-DPOLLEN_DUMP`, every element) with 1 and 2 OpenMP threads.
//!
//! The kernels run at their small default sizes (the manifest's test flags), optimized
//! three times: with the default options (tile sizes from the machine's caches, which at
//! these sizes leaves one tile or a few), with small tiles of sizes 4 and 8 so that every
//! kernel runs through many full and partial tiles and wavefronts, with the basteln
//! strategy's fused tiling on tiles of 4 and 8, and with AKG's (conservative clustering,
//! live-out spaces tiled by 4 and 8). `$KERNEL_VARIANT` (names separated by commas)
//! restricts the run to those variants. Kernels are handled two at a time; every failure is reported at the end. gcc must be installed: without it
//! the test fails and says so.

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use pollen_testkit::cc::{self, first_difference, require_gcc, run};
use pollen_testkit::kernels_dir;

/// The manifest's kernels with their test flags.
fn manifest() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(kernels_dir().join("manifest.txt")).expect("manifest");
    let mut kernels = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 3 {
            continue;
        }
        let flags = if fields[2] == "-" {
            Vec::new()
        } else {
            fields[2].split(',').map(str::to_string).collect()
        };
        kernels.push((fields[0].to_string(), flags));
    }
    kernels
}

/// Compiles a kernel (original or optimized) into `binary` with its test flags.
fn compile(source: &Path, binary: &Path, flags: &[String]) -> Result<(), String> {
    let include = format!("-I{}", kernels_dir().display());
    let mut all = vec!["-O3", "-fopenmp", "-DPOLLEN_DUMP", include.as_str()];
    all.extend(flags.iter().map(String::as_str));
    cc::compile(source, binary, &all)
}

/// The `pollen opt` variants each kernel is checked with: a name and the options.
const VARIANTS: [(&str, &[&str]); 4] = [
    ("default", &[]),
    ("tiles-4-8", &["--tile-sizes", "4,8"]),
    ("basteln", &["--strategy", "basteln", "--tile-sizes", "4,8"]),
    ("akg", &["--strategy", "akg", "--tile-sizes", "4,8"]),
];

/// The variants to run: all, or those `$KERNEL_VARIANT` names.
fn variants() -> Vec<(&'static str, &'static [&'static str])> {
    match std::env::var("KERNEL_VARIANT") {
        Ok(names) => {
            let names: Vec<&str> = names.split(',').map(str::trim).collect();
            VARIANTS
                .into_iter()
                .filter(|(v, _)| names.contains(v))
                .collect()
        }
        Err(_) => VARIANTS.to_vec(),
    }
}

/// Optimizes, compiles and runs one kernel in every variant; the failures.
fn check_kernel(name: &str, flags: &[String], dir: &Path) -> Vec<String> {
    let source = kernels_dir().join(format!("{name}.c"));
    let original_binary = dir.join(format!("{name}.orig"));
    let expected =
        match compile(&source, &original_binary, flags).and_then(|()| run(&original_binary, 1)) {
            Ok(text) if !text.trim().is_empty() => text,
            Ok(_) => return vec![format!("{name}: the original program printed nothing")],
            Err(message) => return vec![format!("{name}: original: {message}")],
        };
    let mut failures = Vec::new();
    for (variant, options) in variants() {
        if let Err(message) = check_variant(name, flags, dir, variant, options, &expected) {
            failures.push(format!("{name} ({variant}): {message}"));
        }
    }
    failures
}

/// Optimizes one kernel with `options`, compiles and runs it; an error message when it
/// fails or its output differs from `expected`.
fn check_variant(
    name: &str,
    flags: &[String],
    dir: &Path,
    variant: &str,
    options: &[&str],
    expected: &str,
) -> Result<(), String> {
    let source = kernels_dir().join(format!("{name}.c"));
    let optimized = dir.join(format!("{name}.{variant}.c"));
    let output = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .arg("opt")
        .arg(&source)
        .args(options)
        .arg("-o")
        .arg(&optimized)
        .output()
        .map_err(|e| format!("cannot run pollen: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "pollen opt failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let optimized_binary = dir.join(format!("{name}.{variant}"));
    compile(&optimized, &optimized_binary, flags)?;
    for threads in [1, 2] {
        let actual = run(&optimized_binary, threads)?;
        if actual != expected {
            return Err(format!(
                "the optimized program differs at {threads} thread(s): {} (kept in {})",
                first_difference(expected, &actual),
                optimized.display()
            ));
        }
    }
    Ok(())
}

#[test]
fn optimized_kernels_print_what_the_originals_print() {
    require_gcc();
    let kernels = manifest();
    assert_eq!(kernels.len(), 30, "the manifest lists the 30 kernels");
    let dir = cc::scratch("opt-kernels");
    let queue = Mutex::new(kernels.iter());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let next = queue.lock().expect("queue").next();
                let Some((name, flags)) = next else { break };
                let found = check_kernel(name, flags, &dir);
                failures.lock().expect("failures").extend(found);
            });
        }
    });
    let mut failures = failures.into_inner().expect("failures");
    failures.sort();
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        failures.is_empty(),
        "{} failure(s) over {} kernels:\n{}",
        failures.len(),
        kernels.len(),
        failures.join("\n")
    );
}
