//! Times the benchmark corpus (`corpus.txt`) with `pollen-presburger`, for
//! `cargo xtask bench presburger`; `isl_bench.py` does the same with isl.
//!
//! Usage: `pollen-bench-presburger <corpus>`. Output, one line per corpus entry and then
//! one for memory:
//!
//! ```text
//! <index> <seconds per parse + operation> <seconds per operation alone>
//! <index> error <message>
//! peak-kib <peak resident memory in KiB>
//! ```
//!
//! Both runners time alike. Every repetition parses the operands afresh from their text
//! and then runs the operation on them; the first number is the time of both together
//! (the fair comparison: each library may do part of the work while parsing — Pollen
//! simplifies every basic map it builds, isl may already detect emptiness or equalities),
//! the second the time of the operation alone, on the freshly parsed operands. An entry
//! is repeated until it has run (parse included) for 50 ms or 10,000 times; the numbers
//! are means over the repetitions.
//!
//! With the environment variable `POLLEN_BENCH_REPS=<n>`, every entry runs exactly `n`
//! times instead (for deterministic profiles, e.g. under `valgrind --tool=callgrind`).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use pollen_presburger::text::{parse_object, Parsed};
use pollen_presburger::{Map, Result, Set};

/// One operation of the corpus: `class | operation | operand [| operand]`.
struct Entry {
    operation: String,
    operands: Vec<String>,
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: pollen-bench-presburger <corpus>");
        return ExitCode::from(2);
    };
    let corpus = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    for (index, entry) in entries(&corpus).iter().enumerate() {
        match time(entry) {
            Ok((total, op)) => println!("{index} {total:.9} {op:.9}"),
            Err(message) => println!("{index} error {message}"),
        }
    }
    if let Some(kib) = peak_memory_kib() {
        println!("peak-kib {kib}");
    }
    ExitCode::SUCCESS
}

/// The entries of a corpus, skipping blank lines and `#` comments.
fn entries(corpus: &str) -> Vec<Entry> {
    corpus
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let fields: Vec<String> = l.split('|').map(|f| f.trim().to_string()).collect();
            Entry {
                operation: fields.get(1).cloned().unwrap_or_default(),
                operands: fields.iter().skip(2).cloned().collect(),
            }
        })
        .collect()
}

/// Seconds per parse of the operands plus run of the entry's operation, and seconds per
/// run of the operation alone.
fn time(entry: &Entry) -> std::result::Result<(f64, f64), String> {
    let mut total = Duration::ZERO;
    let mut op = Duration::ZERO;
    let mut repetitions = 0u32;
    let fixed: Option<u32> = std::env::var("POLLEN_BENCH_REPS")
        .ok()
        .and_then(|n| n.parse().ok());
    let more = |total: Duration, repetitions: u32| match fixed {
        Some(n) => repetitions < n,
        None => total < Duration::from_millis(50) && repetitions < 10_000,
    };
    while more(total, repetitions) {
        let start = Instant::now();
        let operands = entry
            .operands
            .iter()
            .map(|text| operand(text))
            .collect::<Result<Vec<Map>>>()
            .map_err(|e| format!("operand: {e}"))?;
        let parsed = Instant::now();
        run(&entry.operation, &operands)?;
        let done = Instant::now();
        total += done - start;
        op += done - parsed;
        repetitions += 1;
    }
    let per = |d: Duration| d.as_secs_f64() / f64::from(repetitions);
    Ok((per(total), per(op)))
}

/// An operand as a map (a set is a map without input tuple).
fn operand(text: &str) -> Result<Map> {
    match parse_object(text)? {
        Parsed::Set(s) => Ok(s.into_map()),
        Parsed::Map(m) => Ok(m),
        Parsed::UnionSet(_) | Parsed::UnionMap(_) => Err(pollen_presburger::Error::Unsupported(
            "the corpus holds sets and maps in one space".into(),
        )),
    }
}

/// Runs one operation; its result is dropped. Never inlined, so that profilers can
/// attribute the operation alone (`valgrind --toggle-collect=*::run`).
#[inline(never)]
fn run(operation: &str, operands: &[Map]) -> std::result::Result<(), String> {
    let Some(a) = operands.first() else {
        return Err("no operand".into());
    };
    let second = || {
        operands
            .get(1)
            .ok_or_else(|| format!("`{operation}` needs two operands"))
    };
    let outcome = match operation {
        "apply_range" => a.apply_range(second()?).map(drop),
        "intersect" => a.intersect(second()?).map(drop),
        "union" => a.union(second()?).map(drop),
        "subtract" => a.subtract(second()?).map(drop),
        "is_empty" => a.is_empty().map(drop),
        "is_subset" => a.is_subset(second()?).map(drop),
        "is_equal" => a.is_equal(second()?).map(drop),
        "lexmin" => a.lexmin().map(drop),
        "lexmax" => a.lexmax().map(drop),
        "coalesce" => a.coalesce().map(drop),
        "deltas" => a.deltas().map(drop),
        "transitive_closure" => a.transitive_closure().map(drop),
        "complement" => a.complement().map(drop),
        "compute_divs" => a.compute_divs().map(drop),
        "card" => Set::from_map(a.clone()).and_then(|s| s.card_parametric().map(drop)),
        other => return Err(format!("unknown operation `{other}`")),
    };
    outcome.map_err(|e| e.to_string())
}

/// The peak resident memory of this process (Linux), in KiB.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
