//! `pollen opt` end to end on 200 generated random affine programs
//! (`pollen_testkit::random`, seeds 0 to 199): every program is optimized, and the
//! optimized programs, compiled with `gcc -O1 -fopenmp`, print exactly what the originals
//! print (exact checksums of every array) with 1 and 2 OpenMP threads.
//!
//! Each generated program is one function `prog_<seed>`; all originals go into one C file
//! and all optimized functions into another, so that gcc runs twice in all. `pollen opt`
//! runs on each program's own file, two at a time. gcc must be installed: without it the
//! test fails and says so.

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use pollen_testkit::cc::{self, require_gcc, run};
use pollen_testkit::random::{batch_file, differing, function_of, random_program, Program, Size};

/// The number of programs.
const COUNT: u64 = 200;

/// Optimizes one program with `pollen opt`: the program with its optimized function, or
/// the error.
fn optimize(program: &Program, dir: &Path) -> Result<Program, String> {
    let source = dir.join(format!("{}.c", program.name));
    let optimized = dir.join(format!("{}.opt.c", program.name));
    std::fs::write(&source, program.file()).map_err(|e| format!("cannot write: {e}"))?;
    let output = Command::new(env!("CARGO_BIN_EXE_pollen"))
        .arg("opt")
        .arg(&source)
        .arg("-o")
        .arg(&optimized)
        .output()
        .map_err(|e| format!("cannot run pollen: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "pollen opt failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let text = std::fs::read_to_string(&optimized).map_err(|e| format!("cannot read: {e}"))?;
    let function = function_of(&text, &program.name)
        .ok_or_else(|| "the optimized file lost the function's markers".to_string())?;
    Ok(Program {
        function,
        ..program.clone()
    })
}

/// Compiles a C file with `gcc -O1 -fopenmp`.
fn compile(source: &Path, binary: &Path) -> Result<(), String> {
    cc::compile(source, binary, &["-O1", "-fopenmp"])
}

#[test]
fn optimized_random_programs_print_what_the_originals_print() {
    require_gcc();
    let dir = cc::scratch("random-opt");
    let programs: Vec<Program> = (0..COUNT)
        .map(|seed| random_program(seed, Size::default()))
        .collect();
    let queue = Mutex::new(programs.iter());
    let optimized = Mutex::new(Vec::new());
    let mut failures = Vec::new();
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let next = queue.lock().expect("queue").next();
                let Some(program) = next else { break };
                match optimize(program, &dir) {
                    Ok(p) => optimized.lock().expect("optimized").push(p),
                    Err(e) => errors
                        .lock()
                        .expect("errors")
                        .push(format!("{}: {e}", program.name)),
                }
            });
        }
    });
    failures.extend(errors.into_inner().expect("errors"));
    let mut optimized = optimized.into_inner().expect("optimized");
    let order = |p: &Program| programs.iter().position(|q| q.name == p.name);
    optimized.sort_by_key(order);
    let kept: Vec<Program> = programs
        .iter()
        .filter(|p| optimized.iter().any(|q| q.name == p.name))
        .cloned()
        .collect();

    let original_c = dir.join("originals.c");
    let optimized_c = dir.join("optimized.c");
    std::fs::write(&original_c, batch_file(&kept)).expect("write the originals");
    std::fs::write(&optimized_c, batch_file(&optimized)).expect("write the optimized");
    let (original_bin, optimized_bin) = (dir.join("originals"), dir.join("optimized"));
    compile(&original_c, &original_bin).unwrap_or_else(|e| panic!("{e}"));
    compile(&optimized_c, &optimized_bin).unwrap_or_else(|e| panic!("{e}"));
    let expected = run(&original_bin, 1).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        expected.lines().count(),
        7 * kept.len(),
        "every original program prints its seven checksums"
    );
    for threads in [1, 2] {
        match run(&optimized_bin, threads) {
            Ok(actual) => {
                for name in differing(&expected, &actual) {
                    failures.push(format!("{name}: differs at {threads} thread(s)"));
                }
            }
            Err(e) => failures.push(format!("optimized programs at {threads} thread(s): {e}")),
        }
    }
    failures.sort();
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        failures.is_empty(),
        "{} failure(s) over {COUNT} programs (files kept in {}):\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n")
    );
}
