//! Times stages of the optimizer on C files: `pollen-bench-pipeline <stage> FILE.c...`.
//!
//! Stages:
//! - `deps`: extraction, then both dependence analyses (value-based flow with anti and
//!   output, and memory-based flow);
//! - `sched`: Pluto scheduling (smart fusion) of the extracted scop with its value-based
//!   dependences, which are computed once, outside the timing.
//!
//! For every file it reads the source once, then repeats the stage until 200 ms have
//! passed or 1,000 repetitions, and prints `<file> <seconds>` with the fastest repetition,
//! so that a busy machine disturbs the figures as little as possible. A file the stage
//! fails on prints `<file> error <message>`.

use std::time::{Duration, Instant};

use pollen_deps::Analysis;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((stage, files)) = args.split_first() else {
        eprintln!("usage: pollen-bench-pipeline deps FILE.c...");
        std::process::exit(2);
    };
    if stage != "deps" && stage != "sched" {
        eprintln!("unknown stage `{stage}` (known: deps, sched)");
        std::process::exit(2);
    }
    for file in files {
        let source = match std::fs::read_to_string(file) {
            Ok(s) => s,
            Err(e) => {
                println!("{file} error cannot read: {e}");
                continue;
            }
        };
        let timing = if stage == "deps" {
            time(|| deps_stage(&source))
        } else {
            sched_timing(&source)
        };
        match timing {
            Ok(seconds) => println!("{file} {seconds:.6}"),
            Err(e) => println!("{file} error {e}"),
        }
    }
}

/// Extraction and both dependence analyses.
fn deps_stage(source: &str) -> Result<(), String> {
    let extracted = pollen_frontend::extract(source).map_err(|e| e.to_string())?;
    for analysis in [Analysis::ValueBased, Analysis::MemoryBased] {
        pollen_deps::analyze(&extracted.scop, analysis).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Pluto scheduling alone, timed on a scop and dependences prepared once.
fn sched_timing(source: &str) -> Result<f64, String> {
    let extracted = pollen_frontend::extract(source).map_err(|e| e.to_string())?;
    let deps =
        pollen_deps::analyze(&extracted.scop, Analysis::ValueBased).map_err(|e| e.to_string())?;
    let options = pollen_sched::Options::default();
    time(|| {
        pollen_sched::schedule(&extracted.scop, deps.as_slice(), &options)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
}

/// The fastest of repeated runs of `stage`, in seconds.
fn time(mut stage: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    let started = Instant::now();
    let mut best = Duration::MAX;
    for _ in 0..1000 {
        let t = Instant::now();
        stage()?;
        best = best.min(t.elapsed());
        if started.elapsed() > Duration::from_millis(200) {
            break;
        }
    }
    Ok(best.as_secs_f64())
}
