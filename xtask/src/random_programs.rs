//! `cargo xtask random-programs [--count N] [--seed S]`: the scheduler and the whole
//! `pollen opt` pipeline on many generated random affine programs
//! (`pollen_testkit::random`).
//!
//! For the seeds `S .. S + N` (default 0 and 5000): every program is scheduled in process
//! by Pluto (no, smart and maximal fusion) and Feautrier ([`pollen_sched::schedule_with_report`]), each
//! schedule is checked by the independent legality checker and the fallbacks taken are
//! counted by kind; then every program goes through `pollen opt` (the `pollen` binary,
//! built first), and originals and optimized programs are compiled in batches (one C
//! file of up to 250 functions each, `gcc -O1 -fopenmp`) and their outputs compared at 1
//! and 2 OpenMP threads. The figures are printed at the end with the seeds of every
//! failure; the command fails when there is one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use pollen_sched::{legality, schedule_with_report, Algo, Fallback, Fuse, Options};
use pollen_testkit::random::{batch_file, differing, function_of, random_program, Program, Size};

use crate::fuzz::cargo;

/// Programs per compiled C file.
const BATCH: usize = 250;

/// The scheduler configurations every program is scheduled with.
const CONFIGS: [(Algo, Fuse); 4] = [
    (Algo::Pluto, Fuse::No),
    (Algo::Pluto, Fuse::Smart),
    (Algo::Pluto, Fuse::Max),
    (Algo::Feautrier, Fuse::Smart),
];

/// The counts of a run.
#[derive(Default)]
struct Figures {
    generated: usize,
    scheduled: usize,
    legal: usize,
    /// Per configuration and fallback kind: the number of schedules that took it.
    fallbacks: BTreeMap<String, usize>,
    /// Per configuration: the number of schedules that took no fallback.
    plain: BTreeMap<String, usize>,
    /// The schedules that took the original schedule's dimensions: seed and configuration.
    original: Vec<String>,
    optimized: usize,
    identical: [usize; 2],
    failures: Vec<String>,
}

/// Runs the command.
pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let (count, first) = parse_args(args)?;
    let seeds: Vec<u64> = (first..first + count).collect();
    let mut figures = Figures {
        generated: seeds.len(),
        ..Figures::default()
    };
    println!(
        "random-programs: scheduling {count} programs (seeds {first} to {})",
        first + count - 1
    );
    schedule_all(&seeds, &mut figures);
    println!("random-programs: building pollen");
    let status = Command::new(cargo())
        .args(["build", "--quiet", "-p", "pollen-cli"])
        .current_dir(root)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("building pollen failed");
    }
    let pollen = root.join("target/debug/pollen");
    let dir = std::env::temp_dir().join(format!("pollen-random-programs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).context("cannot create a scratch directory")?;
    for (k, chunk) in seeds.chunks(BATCH).enumerate() {
        println!(
            "random-programs: pollen opt, gcc and runs of seeds {} to {}",
            chunk[0],
            chunk[chunk.len() - 1]
        );
        optimize_batch(&pollen, &dir, k, chunk, &mut figures)?;
    }
    print_figures(&figures);
    if figures.failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    } else {
        bail!(
            "{} failure(s); files kept in {}",
            figures.failures.len(),
            dir.display()
        )
    }
}

/// `--count N` and `--seed S`.
fn parse_args(args: &[String]) -> Result<(u64, u64)> {
    let (mut count, mut seed) = (5000u64, 0u64);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .with_context(|| format!("`{flag}` needs a value"))?;
        let number: u64 = value
            .parse()
            .with_context(|| format!("expected a number after `{flag}`, found `{value}`"))?;
        match flag.as_str() {
            "--count" if number > 0 => count = number,
            "--seed" => seed = number,
            _ => bail!("unknown option `{flag}` (expected --count N with N > 0 or --seed S)"),
        }
    }
    Ok((count, seed))
}

/// The short name of a fallback's kind.
fn kind(f: &Fallback) -> &'static str {
    match f {
        Fallback::CutComponents { .. } => "cut-components",
        Fallback::NegativeCoefficients { .. } => "negative-coefficients",
        Fallback::OriginalDimension { .. } => "original-dimension",
        Fallback::OriginalOrder { .. } => "original-order",
    }
}

/// Schedules every program with every configuration, two programs at a time.
fn schedule_all(seeds: &[u64], figures: &mut Figures) {
    let queue = Mutex::new(seeds.iter());
    let shared = Mutex::new(std::mem::take(figures));
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let next = queue.lock().expect("queue").next().copied();
                let Some(seed) = next else { break };
                let results = schedule_one(seed);
                let mut f = shared.lock().expect("figures");
                for (config, result) in results {
                    match result {
                        Ok((legal, kinds)) => {
                            f.scheduled += 1;
                            if legal {
                                f.legal += 1;
                            } else {
                                f.failures
                                    .push(format!("seed {seed} {config}: illegal schedule"));
                            }
                            if kinds.is_empty() {
                                *f.plain.entry(config.clone()).or_default() += 1;
                            }
                            if kinds.contains(&"original-dimension") {
                                f.original.push(format!("{seed} {config}"));
                            }
                            for k in kinds {
                                *f.fallbacks.entry(format!("{config} {k}")).or_default() += 1;
                            }
                        }
                        Err(e) => f.failures.push(format!("seed {seed} {config}: {e}")),
                    }
                }
            });
        }
    });
    *figures = shared.into_inner().expect("figures");
}

/// Whether a schedule is legal and the distinct fallback kinds it took, or the error.
type ScheduleResult = std::result::Result<(bool, Vec<&'static str>), String>;

/// One program under every configuration: per configuration, whether the schedule is
/// legal and the distinct fallback kinds taken, or the error.
fn schedule_one(seed: u64) -> Vec<(String, ScheduleResult)> {
    let program = random_program(seed, Size::default());
    let scop = match pollen_frontend::extract(&program.file()) {
        Ok(extracted) => extracted.scop,
        Err(e) => return vec![("extraction".to_string(), Err(e.to_string()))],
    };
    let deps = match pollen_deps::analyze(&scop, pollen_deps::Analysis::ValueBased) {
        Ok(deps) => deps.as_slice().to_vec(),
        Err(e) => return vec![("dependences".to_string(), Err(e.to_string()))],
    };
    CONFIGS
        .iter()
        .map(|&(algo, fuse)| {
            let config = format!("{algo:?}/{fuse:?}").to_lowercase();
            let options = Options {
                algo,
                fuse,
                ..Options::default()
            };
            let result = schedule_with_report(&scop, &deps, &options)
                .map_err(|e| e.to_string())
                .and_then(|outcome| {
                    let legal = legality::check(&deps, &outcome.tree)
                        .map_err(|e| format!("checker: {e:?}"))?
                        .is_legal();
                    let mut kinds: Vec<&'static str> = outcome.fallbacks.iter().map(kind).collect();
                    kinds.sort_unstable();
                    kinds.dedup();
                    Ok((legal, kinds))
                });
            (config, result)
        })
        .collect()
}

/// `pollen opt` on each program of a batch (two at a time), then one compilation of the
/// originals and one of the optimized programs, run and compared.
fn optimize_batch(
    pollen: &Path,
    dir: &Path,
    batch: usize,
    seeds: &[u64],
    figures: &mut Figures,
) -> Result<()> {
    let programs: Vec<Program> = seeds
        .iter()
        .map(|&s| random_program(s, Size::default()))
        .collect();
    let queue = Mutex::new(programs.iter());
    let done = Mutex::new(Vec::new());
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let next = queue.lock().expect("queue").next();
                let Some(program) = next else { break };
                match optimize(pollen, dir, program) {
                    Ok(p) => done.lock().expect("done").push(p),
                    Err(e) => errors
                        .lock()
                        .expect("errors")
                        .push(format!("{}: {e}", program.name)),
                }
            });
        }
    });
    figures
        .failures
        .extend(errors.into_inner().expect("errors"));
    let mut optimized = done.into_inner().expect("done");
    optimized.sort_by_key(|p| programs.iter().position(|q| q.name == p.name));
    figures.optimized += optimized.len();
    let kept: Vec<Program> = programs
        .iter()
        .filter(|p| optimized.iter().any(|q| q.name == p.name))
        .cloned()
        .collect();
    let original_c = dir.join(format!("originals-{batch}.c"));
    let optimized_c = dir.join(format!("optimized-{batch}.c"));
    std::fs::write(&original_c, batch_file(&kept))?;
    std::fs::write(&optimized_c, batch_file(&optimized))?;
    let original_bin = dir.join(format!("originals-{batch}"));
    let optimized_bin = dir.join(format!("optimized-{batch}"));
    compile(&original_c, &original_bin)?;
    compile(&optimized_c, &optimized_bin)?;
    let expected = output(&original_bin, 1)?;
    for (slot, threads) in [1u32, 2].into_iter().enumerate() {
        let actual = output(&optimized_bin, threads)?;
        let differ = differing(&expected, &actual);
        figures.identical[slot] += kept.len() - differ.len();
        for name in differ {
            figures
                .failures
                .push(format!("{name}: output differs at {threads} thread(s)"));
        }
    }
    Ok(())
}

/// One program through `pollen opt`: the program with its optimized function.
fn optimize(pollen: &Path, dir: &Path, program: &Program) -> std::result::Result<Program, String> {
    let source = dir.join(format!("{}.c", program.name));
    let target = dir.join(format!("{}.opt.c", program.name));
    std::fs::write(&source, program.file()).map_err(|e| e.to_string())?;
    let out = Command::new(pollen)
        .arg("opt")
        .arg(&source)
        .arg("-o")
        .arg(&target)
        .output()
        .map_err(|e| format!("cannot run pollen: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "pollen opt failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = std::fs::read_to_string(&target).map_err(|e| e.to_string())?;
    let function = function_of(&text, &program.name)
        .ok_or_else(|| "the optimized file lost the function's markers".to_string())?;
    let _ = std::fs::remove_file(&source);
    let _ = std::fs::remove_file(&target);
    Ok(Program {
        function,
        ..program.clone()
    })
}

/// `gcc -O1 -fopenmp source -o binary`.
fn compile(source: &Path, binary: &PathBuf) -> Result<()> {
    let out = Command::new("gcc")
        .args(["-O1", "-fopenmp"])
        .arg(source)
        .arg("-o")
        .arg(binary)
        .output()
        .context("cannot run gcc")?;
    if !out.status.success() {
        bail!(
            "gcc failed on {}:\n{}",
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// The standard output of `binary` with `threads` OpenMP threads.
fn output(binary: &Path, threads: u32) -> Result<String> {
    let out = Command::new(binary)
        .env("OMP_NUM_THREADS", threads.to_string())
        .output()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    if !out.status.success() {
        bail!("{} exited with {}", binary.display(), out.status);
    }
    Ok(String::from_utf8(out.stdout)?)
}

fn print_figures(f: &Figures) {
    let n_configs = CONFIGS.len();
    println!();
    println!("programs generated:                 {}", f.generated);
    println!(
        "schedules computed:                 {} of {} ({} configurations: pluto no/smart/max fusion, feautrier)",
        f.scheduled,
        f.generated * n_configs,
        n_configs
    );
    println!("schedules legal (independent check): {}", f.legal);
    for (config, count) in &f.plain {
        println!("  {config}: {count} schedules without fallback");
    }
    println!("schedules taking a fallback, by kind:");
    for (key, count) in &f.fallbacks {
        println!("  {key}: {count}");
    }
    if !f.original.is_empty() {
        let mut seeds = f.original.clone();
        seeds.sort();
        println!("schedules with original dimensions (seed configuration):");
        for s in seeds {
            println!("  {s}");
        }
    }
    println!("programs through pollen opt:        {}", f.optimized);
    println!("optimized outputs identical, 1 thread:  {}", f.identical[0]);
    println!("optimized outputs identical, 2 threads: {}", f.identical[1]);
    println!("failures: {}", f.failures.len());
    for failure in &f.failures {
        println!("  {failure}");
    }
}
