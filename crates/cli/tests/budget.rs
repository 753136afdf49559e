//! Budgets on the command line: the steps each stage of `pollen opt` (default options,
//! extraction included) and of `pollen sched` (every algorithm and fusion policy) needs
//! on the example kernels,
//! against the default budget, and the resource-limit error (message and exit status 3)
//! of every command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pollen_deps::Analysis;
use pollen_presburger::Budget;
use pollen_transform::TileOptions;

/// `pollen::budget::DEFAULT_STEPS` (the binary's constant; keep the two equal).
const DEFAULT_STEPS: u64 = 25_000_000;

/// The factor by which the default budget must exceed what any kernel's stage needs.
const MARGIN: u64 = 20;

fn kernel(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/kernels/{name}.c"))
}

fn pollen(args: &[&str], stdin: &str) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run pollen");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("pollen ends")
}

/// Steps spent by `f` on an (almost) unlimited budget.
fn steps<T>(f: impl FnOnce(&mut Budget) -> T) -> (T, u64) {
    let mut budget = Budget::new(u64::MAX);
    let out = f(&mut budget);
    let left = budget.remaining().expect("a limited budget");
    (out, u64::MAX - left)
}

#[test]
fn kernel_stages_fit_the_default_budget_with_a_margin() {
    let stages = [
        "deps",
        "sched",
        "tile",
        "parallelize",
        "codegen",
        "cost",
        "extract",
    ];
    let mut max: [(u64, String); 7] = Default::default();
    let mut note = |stage: usize, used: u64, name: &str| {
        if used > max[stage].0 {
            max[stage] = (used, name.to_string());
        }
    };
    for name in pollen_testkit::kernel_names() {
        let source = pollen_testkit::kernel_source(&name);
        let (extracted, used) = steps(|b| pollen_frontend::extract_with(&source, b));
        note(6, used, &name);
        let scop = extracted.unwrap_or_else(|e| panic!("{name}: {e}")).scop;
        let (deps, used) = steps(|b| pollen_deps::analyze_with(&scop, Analysis::ValueBased, b));
        note(0, used, &name);
        let deps = deps.unwrap_or_else(|e| panic!("{name}: {e}"));
        let algos = [
            (pollen_sched::Algo::Pluto, pollen_sched::Fuse::Smart),
            (pollen_sched::Algo::Pluto, pollen_sched::Fuse::No),
            (pollen_sched::Algo::Pluto, pollen_sched::Fuse::Max),
            (pollen_sched::Algo::Feautrier, pollen_sched::Fuse::Smart),
        ];
        for (algo, fuse) in algos {
            let options = pollen_sched::Options {
                algo,
                fuse,
                wavefront: fuse == pollen_sched::Fuse::Max,
                ..Default::default()
            };
            let (tree, used) =
                steps(|b| pollen_sched::schedule_with(&scop, deps.as_slice(), &options, b));
            note(1, used, &name);
            let tree = tree.unwrap_or_else(|e| panic!("{name}: {e}"));
            if algo != pollen_sched::Algo::Pluto || fuse == pollen_sched::Fuse::Max {
                // `pollen sched` only: `pollen opt` tiles Pluto's smart and unfused
                // schedules by default.
                continue;
            }
            let options = TileOptions {
                wavefront: true,
                unroll_and_jam: true,
                require_reuse: true,
                ..TileOptions::default()
            };
            let (tiled, used) =
                steps(|b| pollen_transform::tile_with(&scop, deps.as_slice(), &tree, &options, b));
            note(2, used, &name);
            let tiled = tiled.unwrap_or_else(|e| panic!("{name}: {e}"));
            let codegen = pollen_codegen::Options {
                distribute: true,
                ..Default::default()
            };
            for t in [&tree, &tiled] {
                let (ast, used) = steps(|b| pollen_codegen::generate_with(&scop, t, &codegen, b));
                note(4, used, &name);
                ast.unwrap_or_else(|e| panic!("{name}: {e}"));
                let (cost, used) = steps(|b| pollen_transform::profit::cost_with(&scop, t, b));
                note(5, used, &name);
                cost.unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
        let (_, used) =
            steps(|b| pollen_transform::parallelize_with(deps.as_slice(), &scop.schedule, b));
        note(3, used, &name);
    }
    for (stage, (used, name)) in stages.iter().zip(&max) {
        println!("{stage}: at most {used} steps ({name})");
    }
    for (stage, (used, name)) in stages.iter().zip(&max) {
        assert!(
            used * MARGIN <= DEFAULT_STEPS,
            "{stage} of {name} needs {used} steps, more than 1/{MARGIN} of the default budget"
        );
    }
}

fn assert_limit(out: &Output, stage: &str, steps: u64) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "resource limit: {stage} exceeded its budget of {steps} steps (raise it with --budget)"
        )),
        "{stderr}"
    );
}

#[test]
fn calc_counts_huge_sets_and_stops_on_a_huge_enumeration() {
    let out = pollen(
        &["calc"],
        "card { [i, j] : 0 <= i < 1000000000 and 0 <= j < 1000000000 };\n",
    );
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1000000000000000000\n"
    );
    // Not a box, but counted by summation.
    let out = pollen(
        &["calc", "--budget", "100000"],
        "card { [i, j] : 0 <= i < 1000000000 and 0 <= j < 1000000000 \
         and i + j <= 1500000000 };\ncard { [i] : exists e : i = 3e and 0 <= i < 1000000000000000 };\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "875000000749999999\n333333333333334\n"
    );
    // Coprime coefficients beyond the summation's residue classes: enumerated.
    let script = "card { [i, j] : 0 <= 9967i <= 9973j <= 1000000000000000 };\n\
                  card { [i] : 0 <= i < 10 };\n";
    let out = pollen(&["calc", "--budget", "100000"], script);
    assert_limit(&out, "`card`", 100000);
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("<stdin>:1:1: error: "));
    // The next statement still runs, with a budget of its own.
    assert_eq!(String::from_utf8_lossy(&out.stdout), "10\n");
}

#[test]
fn calc_budget_unlimited_and_errors_in_the_option() {
    let out = pollen(
        &["calc", "--budget", "unlimited"],
        "card { [i] : 0 <= i < 7 };\n",
    );
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "7\n");
    let out = pollen(&["calc", "--budget", "lots"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`unlimited`"));
}

/// The steps extraction and dependence analysis of kernel `name` need.
fn front_steps(name: &str) -> (u64, u64) {
    let source = pollen_testkit::kernel_source(name);
    let (extracted, extraction) = steps(|b| pollen_frontend::extract_with(&source, b));
    let scop = extracted.unwrap().scop;
    let (_, deps) = steps(|b| pollen_deps::analyze_with(&scop, Analysis::ValueBased, b));
    (extraction, deps)
}

#[test]
fn every_command_stops_with_the_stage_that_ran_out() {
    let gemm = kernel("gemm");
    let gemm = gemm.to_str().unwrap();
    for command in ["scop", "deps", "sched", "opt"] {
        let out = pollen(&[command, gemm, "--budget", "10"], "");
        assert_limit(&out, "extraction", 10);
    }
    // A budget that extraction fits in but dependence analysis does not.
    let (extraction, deps) = front_steps("gemm");
    assert!(extraction < deps, "{extraction} {deps}");
    let budget = extraction.to_string();
    for command in ["deps", "sched", "opt"] {
        let out = pollen(&[command, gemm, "--budget", &budget], "");
        assert_limit(&out, "dependence analysis", extraction);
    }
}

#[test]
fn scheduling_stops_with_its_message() {
    // A budget that extraction and dependence analysis of jacobi-2d fit in but its
    // scheduling does not.
    let file = kernel("jacobi-2d");
    let file = file.to_str().unwrap();
    let (extraction, deps) = front_steps("jacobi-2d");
    let limit = extraction.max(deps);
    let out = pollen(&["sched", file, "--budget", &limit.to_string()], "");
    assert_limit(&out, "scheduling", limit);
}
