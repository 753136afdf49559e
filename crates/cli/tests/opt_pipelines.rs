//! Every strategy of `pollen opt` end to end on the pipelines of `examples/pipelines/`:
//! the optimized program, compiled with `gcc -O3 -fopenmp -DPOLLEN_DUMP`, prints exactly
//! what the original prints (every element, bit for bit) at every test size of the
//! manifest, with 1 and 2 OpenMP threads.
//!
//! Strategies: the default (Pluto); basteln with every array live out (fused
//! intermediates written back) and with the manifest's outputs only (intermediates in
//! windows), with its default tiles and with small ones (many partial and overlapping
//! tiles); PolyMage's grouping with the manifest's outputs; AKG's clustering and reverse
//! strategy with every array live out and with the outputs only. `$PIPELINE_VARIANT`
//! (names separated by commas) restricts the run to those variants. Pipelines are
//! handled two at a time; every failure is reported at the end. gcc must be installed: without it the
//! test fails and says so.
//!
//! Every run of `pollen opt` has the default budget (25,000,000 solver steps per stage),
//! and every variant must finish within it: running out (exit status 3) is a failure
//! like any other.

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use pollen_testkit::cc::{self, first_difference, require_gcc, run};
use pollen_testkit::pipelines_dir;

/// One line of the manifest.
struct Pipeline {
    name: String,
    outputs: String,
    /// One flag list per test size.
    sizes: Vec<Vec<String>>,
}

fn manifest() -> Vec<Pipeline> {
    let text = std::fs::read_to_string(pipelines_dir().join("manifest.txt")).expect("manifest");
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        assert_eq!(fields.len(), 4, "four fields: {line}");
        let sizes = fields[2]
            .split('|')
            .map(|size| {
                if size == "-" {
                    Vec::new()
                } else {
                    size.split(',').map(str::to_string).collect()
                }
            })
            .collect();
        out.push(Pipeline {
            name: fields[0].to_string(),
            outputs: fields[1].to_string(),
            sizes,
        });
    }
    out
}

/// The `pollen opt` variants: a name and the options (`{out}` stands for the outputs).
const VARIANTS: [(&str, &[&str]); 7] = [
    ("pluto", &[]),
    ("basteln", &["--strategy", "basteln"]),
    (
        "basteln-live",
        &["--strategy", "basteln", "--live-out", "{out}"],
    ),
    (
        "basteln-small",
        &[
            "--strategy",
            "basteln",
            "--live-out",
            "{out}",
            "--tile-sizes",
            "1,3,7",
        ],
    ),
    (
        "polymage",
        &["--strategy", "polymage", "--live-out", "{out}"],
    ),
    ("akg", &["--strategy", "akg"]),
    ("akg-live", &["--strategy", "akg", "--live-out", "{out}"]),
];

/// The variants to run: all, or those `$PIPELINE_VARIANT` names.
fn variants() -> Vec<(&'static str, &'static [&'static str])> {
    match std::env::var("PIPELINE_VARIANT") {
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

fn compile(source: &Path, binary: &Path, flags: &[String]) -> Result<(), String> {
    let include = format!("-I{}", pipelines_dir().display());
    let mut all = vec!["-O3", "-fopenmp", "-DPOLLEN_DUMP", include.as_str()];
    all.extend(flags.iter().map(String::as_str));
    cc::compile(source, binary, &all)
}

/// Optimizes one pipeline in every variant and checks it at every size; the failures.
fn check_pipeline(p: &Pipeline, dir: &Path) -> Vec<String> {
    let source = pipelines_dir().join(format!("{}.c", p.name));
    let mut failures = Vec::new();
    let mut expected = Vec::new();
    for (k, flags) in p.sizes.iter().enumerate() {
        let binary = dir.join(format!("{}.orig{k}", p.name));
        match compile(&source, &binary, flags).and_then(|()| run(&binary, 1)) {
            Ok(text) if !text.trim().is_empty() => expected.push(text),
            Ok(_) => return vec![format!("{}: the original printed nothing", p.name)],
            Err(e) => return vec![format!("{}: original: {e}", p.name)],
        }
    }
    for (variant, options) in variants() {
        let optimized = dir.join(format!("{}.{variant}.c", p.name));
        let args: Vec<String> = options
            .iter()
            .map(|o| o.replace("{out}", &p.outputs))
            .collect();
        let output = Command::new(env!("CARGO_BIN_EXE_pollen"))
            .arg("opt")
            .arg(&source)
            .args(&args)
            .arg("-o")
            .arg(&optimized)
            .output();
        match output {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                failures.push(format!(
                    "{} ({variant}): pollen opt failed:\n{}",
                    p.name,
                    String::from_utf8_lossy(&o.stderr)
                ));
                continue;
            }
            Err(e) => {
                failures.push(format!("{} ({variant}): cannot run pollen: {e}", p.name));
                continue;
            }
        }
        for (k, flags) in p.sizes.iter().enumerate() {
            let binary = dir.join(format!("{}.{variant}{k}", p.name));
            if let Err(e) = compile(&optimized, &binary, flags) {
                failures.push(format!("{} ({variant}): {e}", p.name));
                continue;
            }
            for threads in [1, 2] {
                match run(&binary, threads) {
                    Ok(actual) if actual == expected[k] => {}
                    Ok(actual) => failures.push(format!(
                        "{} ({variant}, size {k}, {threads} thread(s)): {} (kept in {})",
                        p.name,
                        first_difference(&expected[k], &actual),
                        optimized.display()
                    )),
                    Err(e) => failures.push(format!("{} ({variant}): {e}", p.name)),
                }
            }
        }
    }
    failures
}

#[test]
fn every_strategy_computes_what_the_original_pipeline_computes() {
    require_gcc();
    let pipelines = manifest();
    assert!(pipelines.len() >= 3, "the manifest lists the pipelines");
    assert!(
        pipelines.iter().all(|p| p.sizes.len() >= 2),
        "two test sizes each"
    );
    let dir = cc::scratch("opt-pipelines");
    let queue = Mutex::new(pipelines.iter());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let next = queue.lock().expect("queue").next();
                let Some(p) = next else { break };
                let found = check_pipeline(p, &dir);
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
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
