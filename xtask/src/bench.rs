//! `cargo xtask bench presburger`: the Presburger benchmark corpus timed in Pollen and,
//! side by side in the same run, in isl.
//!
//! The corpus is `benches/presburger/corpus.txt` (`class | operation | operands`). Two
//! runners time every entry the same way: `benches/presburger` (a Rust program over
//! `pollen-presburger`, a workspace of its own built in release mode) and
//! `benches/presburger/isl_bench.py` (isl through the `islpy` package, installed on first
//! use into a private virtual environment under `target/islpy-venv`; isl is never a
//! dependency of any crate).
//!
//! # What is measured
//! Every repetition of an entry reads its operands afresh from their text and then runs
//! the operation on them. The runners print `<index> <parse + operation> <operation>` in
//! seconds, means over the repetitions (repeated until 50 ms, parse included, or 10,000
//! repetitions):
//! - **parse + op**, the main column: both libraries do part of the work while reading
//!   (Pollen simplifies every basic map it builds, isl may detect emptiness, equalities
//!   or redundant constraints), so only the sum is a fair comparison of the work an
//!   operation on a textual input costs;
//! - **op**, the operation alone on the freshly parsed operands (a library that does more
//!   at parse time looks faster here).
//!
//! The isl side includes the cost of the islpy calls (well below a microsecond each).
//! This module joins the two runs and prints both columns, per class the median of
//! `isl time / Pollen time` for both (at least 1 means Pollen is at least as fast), and
//! the peak memory of the Pollen run.
//!
//! The class `count` is the counting corpus of `cargo xtask barvinok`
//! (`benches/presburger/counts.txt`, one set per line), timed as `card`: Pollen's
//! `Set::card_parametric` against barvinok's `card`, through the `islpy-barvinok` package
//! in a second private environment (`target/barvinok-venv`; plain islpy has no `card`).
//! The combined corpus is written to `target/bench-presburger/corpus-run.txt` for the
//! runners.
//!
//! isl's runner prints every result once after timing it; the report ends with the
//! comparison of those answers with Pollen's (see [`crate::bench_answers`]).
//!
//! `--pollen-only` skips isl (no Python needed). `--fpl DIR` adds the cases of the FPL
//! benchmark's files in `DIR` (Superty/presburger-benchmarks: a count line, then per case
//! its operand lines and isl's answer; fetch it into a folder outside the repository),
//! up to `--fpl-cases N` (default 100) of each, evenly spread over the file, as classes
//! `fpl-<file>`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::bench_answers;
use crate::fuzz::cargo;
use crate::venv::Venv;

/// The memory the whole Pollen corpus run may use.
const PEAK_MEMORY_TARGET_MIB: u64 = 200;

/// One corpus entry: its class, operation and operands.
struct Entry {
    class: String,
    operation: String,
    operands: Vec<String>,
}

/// Seconds per parse + operation and, when the runner reports it, per operation alone.
type Time = (f64, Option<f64>);

/// What a runner said about an entry.
type Timings = BTreeMap<usize, std::result::Result<Time, String>>;

/// Runs `cargo xtask bench <suite> [--pollen-only]`.
pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let (suite, flags) = match args.split_first() {
        Some((suite, flags)) => (suite.as_str(), flags),
        None => bail!(
            "`bench` needs a suite name; the suites are: presburger, polybench, pipelines, tensor, gpu, search, {}",
            crate::bench_pipeline::suite_names().join(", ")
        ),
    };
    if crate::bench_pipeline::suite_names().contains(&suite) {
        return crate::bench_pipeline::run(root, suite, flags);
    }
    if suite == "polybench" {
        return crate::bench_polybench::run(root, flags);
    }
    if suite == "pipelines" {
        return crate::bench_pipelines::run(root, flags);
    }
    if suite == "tensor" {
        return crate::bench_tensor::run(root, flags);
    }
    if suite == "gpu" {
        return crate::bench_gpu::run(root, flags);
    }
    if suite == "search" {
        return crate::bench_search::run(root, flags);
    }
    if suite != "presburger" {
        bail!(
            "no benchmark suite `{suite}`; the suites are: presburger, polybench, pipelines, tensor, gpu, search, {}",
            crate::bench_pipeline::suite_names().join(", ")
        );
    }
    let mut with_isl = true;
    let mut fpl: Option<PathBuf> = None;
    let mut fpl_cases = DEFAULT_FPL_CASES;
    let mut flags = flags.iter();
    while let Some(flag) = flags.next() {
        match flag.as_str() {
            "--pollen-only" => with_isl = false,
            "--fpl" => {
                let dir = flags.next().context("--fpl needs a folder")?;
                fpl = Some(PathBuf::from(dir));
            }
            "--fpl-cases" => {
                let n = flags.next().context("--fpl-cases needs a number")?;
                fpl_cases =
                    n.parse().ok().filter(|&n: &usize| n > 0).with_context(|| {
                        format!("--fpl-cases needs a positive number, not `{n}`")
                    })?;
            }
            other => {
                bail!("unknown option `{other}` (known: --pollen-only, --fpl DIR, --fpl-cases N)")
            }
        }
    }
    let dir = root.join("benches/presburger");
    let mut corpus = dir.join("corpus.txt");
    let mut text = std::fs::read_to_string(&corpus)
        .with_context(|| format!("cannot read {}", corpus.display()))?;
    if let Some(fpl) = &fpl {
        let (extra, read) = fpl_corpus(fpl, fpl_cases)?;
        if read.is_empty() {
            bail!(
                "no FPL benchmark file ({}) in {}",
                FPL_FILES.map(|(f, _, _)| f).join(", "),
                fpl.display()
            );
        }
        println!(
            "bench: FPL cases from {}: {}",
            fpl.display(),
            read.join(", ")
        );
        text.push_str(&extra);
    }
    let counts = dir.join("counts.txt");
    text.push_str(&count_corpus(
        &std::fs::read_to_string(&counts)
            .with_context(|| format!("cannot read {}", counts.display()))?,
    ));
    let out = root.join("target/bench-presburger");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    corpus = out.join("corpus-run.txt");
    std::fs::write(&corpus, &text).with_context(|| format!("cannot write {}", corpus.display()))?;
    let entries = entries(&text);

    println!("bench: timing {} operations with Pollen", entries.len());
    let mut pollen = Command::new(cargo());
    pollen
        .args(["run", "--release", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .arg("--")
        .arg(&corpus);
    let (pollen, peak_kib) = parse_timings(&output(pollen, "the Pollen runner")?)?;

    let isl = if with_isl {
        let python = islpy_python(root)?;
        println!("bench: timing {} operations with isl", entries.len());
        let mut isl = Command::new(python);
        isl.arg(dir.join("isl_bench.py"))
            .arg(&corpus)
            .args(["--skip", COUNT_OPERATION]);
        let isl_out = output(isl, "the isl runner")?;
        let mut timings = parse_timings(&isl_out)?.0;
        let mut answers = parse_answers(&isl_out);
        let n_counts = entries
            .iter()
            .filter(|e| e.operation == COUNT_OPERATION)
            .count();
        if n_counts > 0 {
            let python = crate::barvinok::barvinok_python(root)?;
            println!("bench: timing {n_counts} counts with barvinok");
            let mut barvinok = Command::new(python);
            barvinok
                .arg(dir.join("isl_bench.py"))
                .arg(&corpus)
                .args(["--only", COUNT_OPERATION]);
            let barvinok_out = output(barvinok, "the barvinok runner")?;
            timings.extend(parse_timings(&barvinok_out)?.0);
            answers.extend(parse_answers(&barvinok_out));
        }
        Some((timings, answers))
    } else {
        None
    };

    print!(
        "{}",
        report(&entries, &pollen, isl.as_ref().map(|(t, _)| t), peak_kib)
    );
    if let Some((_, answers)) = &isl {
        let agreements = answers
            .iter()
            .filter_map(|(&i, theirs)| {
                let e = entries.get(i)?;
                Some((i, bench_answers::compare(&e.operation, &e.operands, theirs)))
            })
            .collect();
        let classes: Vec<&str> = entries.iter().map(|e| e.class.as_str()).collect();
        print!("{}", bench_answers::report(&classes, &agreements));
    }
    Ok(())
}

/// isl's printed answers: `<index> answer <text>` lines.
fn parse_answers(out: &str) -> BTreeMap<usize, String> {
    out.lines()
        .filter_map(|line| {
            let (index, rest) = line.trim().split_once(' ')?;
            let text = rest.strip_prefix("answer ")?;
            Some((index.parse().ok()?, text.trim().to_string()))
        })
        .collect()
}

/// How many cases of each FPL operation class `--fpl` takes by default (every k-th
/// case, evenly over the file).
const DEFAULT_FPL_CASES: usize = 100;

/// The files of the FPL benchmark (Superty/presburger-benchmarks): file name, the
/// corpus operation, and the number of operands of a case.
const FPL_FILES: [(&str, &str, usize); 8] = [
    ("complement.txt", "complement", 1),
    ("coalesce.txt", "coalesce", 1),
    ("eliminate.txt", "compute_divs", 1),
    ("empty.txt", "is_empty", 1),
    ("equal.txt", "is_equal", 2),
    ("intersect.txt", "intersect", 2),
    ("subtract.txt", "subtract", 2),
    ("union.txt", "union", 2),
];

/// Corpus lines (class `fpl-<file stem>`) for up to `cases` cases of each FPL file in
/// `dir` that exists, and the files read with how many cases each gave.
///
/// A file holds the number of cases on its first line, then per case its operands (one
/// line each) and isl's answer (one line), which is not used.
fn fpl_corpus(dir: &Path, cases: usize) -> Result<(String, Vec<String>)> {
    let mut out = String::new();
    let mut read = Vec::new();
    for (file, operation, arity) in FPL_FILES {
        let path = dir.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let class = format!("fpl-{}", file.trim_end_matches(".txt"));
        let lines = fpl_cases(&text, arity, cases)
            .with_context(|| format!("cannot read the FPL cases of {}", path.display()))?;
        read.push(format!("{file} ({} cases)", lines.len()));
        for operands in lines {
            out.push_str(&format!(
                "{class} | {operation} | {}\n",
                operands.join(" | ")
            ));
        }
    }
    Ok((out, read))
}

/// The operands of up to `cases` cases of an FPL file's `text` (cases of `arity` operand
/// lines and one answer line after the count), evenly spread over the file.
fn fpl_cases(text: &str, arity: usize, cases: usize) -> Result<Vec<Vec<String>>> {
    let mut lines = text.lines();
    let count: usize = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .context("the first line is not the number of cases")?;
    let rest: Vec<&str> = lines.collect();
    if rest.len() < count * (arity + 1) {
        bail!(
            "{count} cases of {} lines need {} lines, the file has {}",
            arity + 1,
            count * (arity + 1),
            rest.len()
        );
    }
    let step = count.div_ceil(cases.max(1)).max(1);
    Ok((0..count)
        .step_by(step)
        .map(|k| {
            rest[k * (arity + 1)..k * (arity + 1) + arity]
                .iter()
                .map(|l| l.trim().to_string())
                .collect()
        })
        .collect())
}

/// The operation of the counting class, timed in barvinok on the isl side.
const COUNT_OPERATION: &str = "card";

/// The corpus lines of the class `count`: one `card` per set of the counting corpus
/// (one isl set per line, blank lines and `#` comments skipped).
fn count_corpus(counts: &str) -> String {
    counts
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|set| format!("count | {COUNT_OPERATION} | {set}\n"))
        .collect()
}

/// The entries of a corpus, skipping blank lines and `#` comments, in order.
fn entries(corpus: &str) -> Vec<Entry> {
    corpus
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut fields = l.split('|').map(str::trim);
            Entry {
                class: fields.next().unwrap_or_default().to_string(),
                operation: fields.next().unwrap_or_default().to_string(),
                operands: fields.map(str::to_string).collect(),
            }
        })
        .collect()
}

/// Reads `<index> <seconds> [<seconds of the operation alone>]`, `<index> error <message>`
/// and `peak-kib <n>` lines.
fn parse_timings(out: &str) -> Result<(Timings, Option<u64>)> {
    let mut timings = Timings::new();
    let mut peak = None;
    for line in out.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (first, rest) = line.split_once(' ').unwrap_or((line, ""));
        if rest.starts_with("answer ") {
            // An answer line (see `parse_answers`).
            continue;
        }
        if first == "peak-kib" {
            peak = rest.trim().parse().ok();
            continue;
        }
        let index: usize = first
            .parse()
            .with_context(|| format!("unexpected runner output `{line}`"))?;
        let value = match rest.strip_prefix("error ") {
            Some(message) => Err(message.to_string()),
            None => {
                let bad = || format!("unexpected runner output `{line}`");
                let mut numbers = rest.split_whitespace();
                let total = numbers
                    .next()
                    .with_context(bad)?
                    .parse::<f64>()
                    .with_context(bad)?;
                let op = match numbers.next() {
                    Some(n) => Some(n.parse::<f64>().with_context(bad)?),
                    None => None,
                };
                Ok((total, op))
            }
        };
        timings.insert(index, value);
    }
    Ok((timings, peak))
}

/// The table of times, the per-class medians and the memory line.
fn report(
    entries: &[Entry],
    pollen: &Timings,
    isl: Option<&Timings>,
    peak_kib: Option<u64>,
) -> String {
    let mut out = String::new();
    let micros = |t: Option<f64>| t.map_or("-".to_string(), |s| format!("{:.2}", s * 1e6));
    let ratio = |p: Option<f64>, q: Option<f64>| match (p, q) {
        (Some(p), Some(q)) if p > 0.0 => Some(q / p),
        _ => None,
    };
    let shown = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.2}"));
    out.push_str(&format!(
        "\n{:<4} {:<10} {:<12} | {:>12} {:>12} {:>8} | {:>12} {:>12} {:>8}\n",
        "#",
        "class",
        "operation",
        "pollen (us)",
        "isl (us)",
        "isl/pol",
        "pollen op",
        "isl op",
        "isl/pol"
    ));
    out.push_str(&format!(
        "{:<4} {:<10} {:<12} | {:^34} | {:^34}\n",
        "", "", "", "parse + operation", "operation alone"
    ));
    let mut ratios: BTreeMap<&str, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    let mut errors = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let p = pollen.get(&i);
        let q = isl.and_then(|t| t.get(&i));
        let total = |t: Option<&std::result::Result<Time, String>>| match t {
            Some(Ok((s, _))) => Some(*s),
            _ => None,
        };
        let op = |t: Option<&std::result::Result<Time, String>>| match t {
            Some(Ok((_, s))) => *s,
            _ => None,
        };
        let (r_total, r_op) = (ratio(total(p), total(q)), ratio(op(p), op(q)));
        let class = ratios.entry(entry.class.as_str()).or_default();
        class.0.extend(r_total);
        class.1.extend(r_op);
        for (who, t) in [("pollen", p), ("isl", q)] {
            if let Some(Err(message)) = t {
                errors.push(format!("#{i} {} ({who}): {message}", entry.operation));
            }
        }
        let cell = |t: Option<&std::result::Result<Time, String>>, v: Option<f64>| match t {
            Some(Err(_)) => "error".to_string(),
            _ => micros(v),
        };
        out.push_str(&format!(
            "{:<4} {:<10} {:<12} | {:>12} {:>12} {:>8} | {:>12} {:>12} {:>8}\n",
            i,
            entry.class,
            entry.operation,
            cell(p, total(p)),
            cell(q, total(q)),
            shown(r_total),
            cell(p, op(p)),
            cell(q, op(q)),
            shown(r_op),
        ));
    }
    if isl.is_some() {
        out.push_str(
            "\nper class, median of isl time / Pollen time (barvinok's time for `count`; >= 1: Pollen at least as fast), and the worst operation alone:\n",
        );
        out.push_str(&format!(
            "  {:<14} {:>12} {:>12} {:>12}\n",
            "class", "parse + op", "op alone", "worst op"
        ));
        for (class, (mut totals, mut ops)) in ratios {
            if totals.is_empty() {
                continue;
            }
            let n = totals.len();
            let m_total = median(&mut totals);
            let m_op = (!ops.is_empty()).then(|| median(&mut ops));
            let worst = ops.iter().copied().reduce(f64::min);
            let op_ok = m_op.is_none_or(|m| m >= 1.0);
            let verdict = match (m_total >= 1.0, op_ok) {
                (true, true) => "ok",
                (true, false) => "ok with parsing; operation alone SLOWER than isl",
                (false, _) => "SLOWER than isl",
            };
            out.push_str(&format!(
                "  {class:<14} {m_total:>12.2} {:>12} {:>12}   ({n} operations) {verdict}\n",
                shown(m_op),
                shown(worst)
            ));
        }
    }
    if !errors.is_empty() {
        out.push_str("\nfailed operations:\n");
        for e in errors {
            out.push_str(&format!("  {e}\n"));
        }
    }
    if let Some(kib) = peak_kib {
        let mib = kib / 1024;
        let verdict = if mib < PEAK_MEMORY_TARGET_MIB {
            "ok"
        } else {
            "OVER the target"
        };
        out.push_str(&format!(
            "\npeak memory of the Pollen run: {mib} MiB (target: below {PEAK_MEMORY_TARGET_MIB} MiB) {verdict}\n"
        ));
    }
    out
}

/// The median of non-empty `values` (the mean of the two middle ones for an even count).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The Python of the private virtual environment with `islpy`, created on first use.
fn islpy_python(root: &Path) -> Result<PathBuf> {
    Venv {
        dir: root.join("target").join("islpy-venv"),
        packages: &["islpy"],
        check: "import islpy",
        by: "bench",
    }
    .python(true)
    .map_err(anyhow::Error::msg)
}

/// Runs a command, failing unless it succeeds; returns its standard output.
fn output(mut cmd: Command, what: &str) -> Result<String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run {what}"))?;
    if !out.status.success() {
        bail!("{what} failed ({})", out.status);
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_output_is_read() {
        let (t, peak) =
            parse_timings("0 0.000001500\n1 error unsupported: x\n2 0.5 0.25\npeak-kib 2048\n")
                .expect("parses");
        assert_eq!(t[&0], Ok((0.0000015, None)));
        assert_eq!(t[&2], Ok((0.5, Some(0.25))));
        assert_eq!(t[&1], Err("unsupported: x".to_string()));
        assert_eq!(peak, Some(2048));
        assert!(parse_timings("garbage").is_err());
    }

    #[test]
    fn corpus_entries_skip_comments() {
        let e = entries("# c\n\ndeps | apply_range | { [i] -> [j] } | { [j] -> [k] }\nempty | is_empty | { [i] }\n");
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0].class.as_str(), e[0].operation.as_str()),
            ("deps", "apply_range")
        );
        assert_eq!(
            (e[1].class.as_str(), e[1].operation.as_str()),
            ("empty", "is_empty")
        );
    }

    #[test]
    fn counting_corpus_becomes_card_entries() {
        let text =
            count_corpus("# counts\n\n[N] -> { [i] : 0 <= i < N }\n  { [i] : 0 <= i < 3 }  \n");
        assert_eq!(
            text,
            "count | card | [N] -> { [i] : 0 <= i < N }\ncount | card | { [i] : 0 <= i < 3 }\n"
        );
        let e = entries(&text);
        assert_eq!(e.len(), 2);
        assert!(e
            .iter()
            .all(|e| e.class == "count" && e.operation == COUNT_OPERATION));
    }

    #[test]
    fn report_has_ratios_medians_and_memory() {
        let e = entries("a | x | {}\na | y | {}\na | z | {}\nb | w | {}\n");
        let pollen: Timings = [
            (0, Ok((1.0, Some(0.5)))),
            (1, Ok((1.0, Some(0.5)))),
            (2, Ok((4.0, Some(2.0)))),
            (3, Err("boom".into())),
        ]
        .into_iter()
        .collect();
        let isl: Timings = [
            (0, Ok((2.0, Some(0.5)))),
            (1, Ok((3.0, Some(0.5)))),
            (2, Ok((1.0, Some(0.5)))),
            (3, Ok((1.0, None))),
        ]
        .into_iter()
        .collect();
        let r = report(&e, &pollen, Some(&isl), Some(300 * 1024));
        assert!(
            r.contains(
                "  a                      2.00         1.00         0.25   (3 operations) ok"
            ),
            "{r}"
        );
        assert!(r.contains("#3 w (pollen): boom"), "{r}");
        assert!(
            r.contains("300 MiB (target: below 200 MiB) OVER the target"),
            "{r}"
        );
        let slow: Timings = [
            (0, Ok((0.5, None))),
            (1, Ok((0.5, None))),
            (2, Ok((1.0, None))),
        ]
        .into_iter()
        .collect();
        assert!(report(&e, &pollen, Some(&slow), None).contains("SLOWER than isl"));
    }

    #[test]
    fn fpl_cases_are_read_and_spread() {
        let unary = "4\n{ [i] : i >= 0 }\n{ [i] : i < 0 }\n{ [1] }\nA\n{ [2] }\nB\n{ [3] }\nC\n";
        let all = fpl_cases(unary, 1, 100).expect("reads");
        assert_eq!(all.len(), 4);
        assert_eq!(all[0], vec!["{ [i] : i >= 0 }".to_string()]);
        assert_eq!(all[3], vec!["{ [3] }".to_string()]);
        // Every second case for two of four.
        let two = fpl_cases(unary, 1, 2).expect("reads");
        assert_eq!(
            two,
            vec![
                vec!["{ [i] : i >= 0 }".to_string()],
                vec!["{ [2] }".to_string()]
            ]
        );
        let binary = "1\n{ [i] }\n{ [j] }\n1\n";
        assert_eq!(
            fpl_cases(binary, 2, 10).expect("reads"),
            vec![vec!["{ [i] }".to_string(), "{ [j] }".to_string()]]
        );
        assert!(fpl_cases("3\n{ [i] }\n", 1, 10).is_err());
        assert!(fpl_cases("x\n", 1, 10).is_err());
        // A folder with one file gives corpus lines of its class.
        let dir = std::env::temp_dir().join(format!("pollen-fpl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("folder");
        std::fs::write(dir.join("equal.txt"), binary).expect("file");
        let (text, read) = fpl_corpus(&dir, 10).expect("corpus");
        assert_eq!(text, "fpl-equal | is_equal | { [i] } | { [j] }\n");
        assert_eq!(read, vec!["equal.txt (1 cases)".to_string()]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
