//! `pollen search` as a command on the example kernels at their small sizes: a whole
//! search (every candidate built with gcc, checked against the original's printed
//! arrays and timed), its CSV, JSON and best program, a resumed search, the budget,
//! `--explain`, a miscompiled candidate reported as a mismatch, a tensor operator tuned
//! over the default pipeline's tile sizes, tiling and strategies, and its errors. gcc
//! must be installed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pollen_testkit::cc::{require_gcc, scratch};

fn kernel(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/kernels/{name}.c"))
}

/// `pollen search FILE` with the kernels' flags: the timed build with Pollen's timer, the
/// check build printing every element.
fn search(file: &Path, more: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pollen"))
        .arg("search")
        .arg(file)
        .args(["--compiler", "gcc -O1 -fopenmp"])
        .args(["-D", "POLLEN_TIME", "--check-define", "POLLEN_DUMP"])
        .args(["--runs", "1", "--threads", "2", "--quiet"])
        .args(more)
        .output()
        .expect("run pollen")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_whole_search_writes_its_results_and_the_best_program() {
    require_gcc();
    let dir = scratch("search-mvt");
    let csv = dir.join("mvt.csv");
    let json = dir.join("mvt.json");
    let best = dir.join("best.c");
    let out = search(
        &kernel("mvt"),
        &[
            "--jobs",
            "2",
            "--confirm",
            "1",
            "--refine",
            "0",
            "--cutoff",
            "0",
            "--csv",
            csv.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            "-o",
            best.to_str().unwrap(),
        ],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    // The space line, then one row per candidate: the default, its 14 neighbours, five
    // more combinations with vector registers and 3 per structure, less the eight whose
    // program is an earlier one's (vector registers where mvt has no vector
    // accumulators, wide vectors where they change nothing, structures that are the
    // default's schedule).
    assert!(stdout.starts_with("space of "), "{stdout}");
    assert!(stdout.contains("F1: #dim 2 #cst 5 #points 3"), "{stdout}");
    assert!(
        stdout.contains("21 candidates evaluated (0 resumed), 0 not reached, 0 mismatch(es)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("(8 more left out: the same program as an earlier candidate's)"),
        "{stdout}"
    );
    assert!(stdout.contains("best: #"), "{stdout}");
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 22, "{rows}");
    assert!(
        rows.lines()
            .skip(1)
            .all(|l| l.contains(",ok,") || l.contains(",close,") || l.contains(",slow,")),
        "{rows}"
    );
    let json = std::fs::read_to_string(&json).unwrap();
    assert!(json.contains("\"candidates\": ["), "{json}");
    assert_eq!(json.matches("\"key\": ").count(), 21);
    assert!(json.contains("\"same_program\": 8,"), "{json}");

    // The best program is a program: it compiles and prints the original's arrays.
    let build = |source: &Path, exe: &Path| {
        let status = Command::new("gcc")
            .args(["-O1", "-fopenmp", "-DPOLLEN_DUMP", "-I"])
            .arg(kernel("mvt").parent().unwrap())
            .arg(source)
            .arg("-o")
            .arg(exe)
            .arg("-lm")
            .status()
            .unwrap();
        assert!(status.success());
        text(&Command::new(exe).output().unwrap().stdout)
    };
    assert_eq!(
        build(&best, &dir.join("best")),
        build(&kernel("mvt"), &dir.join("original"))
    );

    // Resumed from the CSV: nothing is evaluated again.
    let again = search(
        &kernel("mvt"),
        &[
            "--csv",
            csv.to_str().unwrap(),
            "--resume",
            "--confirm",
            "0",
            "--refine",
            "0",
        ],
    );
    let stdout = text(&again.stdout);
    assert!(again.status.success(), "{stdout}");
    assert!(
        stdout.contains("21 candidates evaluated (21 resumed), 0 not reached"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_budget_limits_the_candidates() {
    require_gcc();
    let out = search(
        &kernel("atax"),
        &[
            "--budget",
            "3",
            "--seed",
            "5",
            "--confirm",
            "0",
            "--refine",
            "0",
        ],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("3 candidates evaluated (0 resumed), 65 not reached"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  0   default") || stdout.contains("  0*  default"),
        "{stdout}"
    );
}

#[test]
fn a_miscompiled_candidate_is_a_listed_mismatch() {
    require_gcc();
    let dir = scratch("search-wrong");
    std::fs::create_dir_all(&dir).unwrap();
    // A compiler that builds every program but replaces candidate 3's by one that
    // prints something else.
    let cc = dir.join("cc.sh");
    std::fs::write(
        &cc,
        "#!/bin/sh\nout=\"\"; prev=\"\"\nfor a in \"$@\"; do [ \"$prev\" = \"-o\" ] && out=\"$a\"; prev=\"$a\"; done\n\
         gcc \"$@\" || exit 1\ncase \"$out\" in */candidate3|*/candidate3-check) printf '#!/bin/sh\\necho wrong\\n' > \"$out\"; chmod +x \"$out\";; esac\n",
    )
    .unwrap();
    let compiler = format!("sh {} -O1 -fopenmp", cc.display());
    let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .arg("search")
        .arg(kernel("mvt"))
        .args(["--compiler", &compiler])
        .args(["-D", "POLLEN_TIME", "--check-define", "POLLEN_DUMP"])
        .args(["--runs", "1", "--confirm", "0", "--refine", "0", "--quiet"])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    let row = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("3 "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(row.contains("mismatch"), "{row}");
    assert!(stdout.contains("1 mismatch(es)"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tensor_operator_is_tuned_over_tile_sizes_tiling_and_strategies() {
    require_gcc();
    let dir = scratch("search-tensor");
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let program = dir.join("max_pool.c");
    let te = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .arg("te")
        .arg(root.join("examples/tensor/max_pool.te"))
        .arg("-o")
        .arg(&program)
        .output()
        .unwrap();
    assert!(te.status.success(), "{}", text(&te.stderr));
    // The operator always prints `POLLEN_TIME` lines, in the check build too: they time
    // it and are no part of its output.
    let include = format!("-I {} -lm", root.join("examples/operators").display());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pollen"));
    cmd.arg("search")
        .arg(&program)
        .args(["--compiler", "gcc -O1 -fopenmp", "--cflags", &include])
        .args(["--check-cflags", "-ffp-contract=off"])
        .args(["--runs", "1", "--threads", "2", "--quiet", "--jobs", "2"])
        .args(["--budget", "19", "--confirm", "0", "--refine", "0"]);
    for size in ["N=1", "C=3", "H=9", "W=10"] {
        cmd.args(["-D", size, "--check-define", size]);
    }
    let out = cmd.output().unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("0 mismatch(es)"), "{stdout}");
    for key in [
        "default tiles=32,256",
        "default no-tiling",
        "default strategy=basteln",
        "default strategy=polymage",
        "default strategy=akg",
        "default vector-registers",
    ] {
        let row = stdout
            .lines()
            .find(|l| l.contains(&format!("{key} ")))
            .unwrap_or_else(|| panic!("no {key}: {stdout}"));
        assert!(row.contains(" ok "), "{row}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_shows_one_candidates_pipeline() {
    let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args([
            "search",
            kernel("gemver").to_str().unwrap(),
            "--explain",
            "21",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("candidate #21 {S0 S1 S2 S3} untiled"),
        "{stderr}"
    );
    assert!(stderr.contains("schedule (given)"), "{stderr}");
    assert!(text(&out.stdout).contains("#define S0("));
    let list = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args(["search", kernel("gemver").to_str().unwrap(), "--list"])
        .output()
        .unwrap();
    let listed = text(&list.stdout);
    // 8 structures of F¹ (digest T13), 3 candidates each, the default, its 14
    // neighbours and five combinations with vector registers.
    assert!(listed.contains("#points 8"), "{listed}");
    assert_eq!(listed.lines().filter(|l| l.starts_with('#')).count(), 44);
    assert!(listed.contains("#1 default vector-registers"), "{listed}");
    assert!(listed.contains("#10 default tiles=16"), "{listed}");

    // A refinement's key names its candidate too.
    let out = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .args([
            "search",
            kernel("gemver").to_str().unwrap(),
            "--explain",
            "{S0 S1 S2} {S3} tiled tiles=32,256 sequential",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("candidate #44 {S0 S1 S2} {S3} tiled tiles=32,256 sequential"),
        "{stderr}"
    );
    assert!(!text(&out.stdout).contains("omp parallel"));
}

#[test]
fn errors_are_reported() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pollen"))
            .args(args)
            .output()
            .unwrap()
    };
    let gemver = kernel("gemver");
    let gemver = gemver.to_str().unwrap();
    let out = run(&["search", gemver, "--explain", "99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("there are 44 candidates"));
    let out = run(&["search", gemver, "--explain", "default tiles=16 tiles=8"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no candidate has that key"));
    let out = run(&["search", gemver, "--region", "2", "--list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the file has 1 region(s)"));
    let out = run(&["search", gemver, "--steps", "100", "--list"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("raise it with --steps"));
    let out = run(&["search", gemver, "--time", "10 parsecs"]);
    assert_eq!(out.status.code(), Some(2));
    // A compiler that does not exist: the original cannot be built.
    let out = run(&[
        "search",
        gemver,
        "--compiler",
        "no-such-compiler-here",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("the original program: build failed"),
        "{}",
        text(&out.stderr)
    );
}
