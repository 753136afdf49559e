//! `cargo xtask closure [--corpus FILE] [--no-kernels] [--random N] [--budget STEPS]`:
//! Pollen's transitive closures (`Map::transitive_closure`) against isl's, map by map.
//!
//! # The corpus
//! Three sources, joined into `target/closure/corpus.txt` (one isl map per line):
//! - the hand-written maps of `xtask/closure/corpus.txt` (or FILE): the inputs of the
//!   table tests of `crates/presburger/tests/closure.rs`, the examples of the COCOA 2009
//!   and SAS 2011 papers on transitive closures, and the Omega library's classic cases;
//!   a line `## name` starts a section whose name labels the entries that follow;
//! - generated unions of one to three translations in one to three dimensions, on boxes
//!   with constant or parametric bounds, some restricted on both sides (see
//!   [`translations`]);
//! - random maps from a space to itself (`--random N` of them, default
//!   [`RANDOM_MAPS`]): one or two dimensions, up to one parameter, up to two disjuncts
//!   of affine and modulo constraints, from fixed seeds (see [`random_maps`]);
//! - the dependence relations of the kernels of `examples/kernels` (skipped with
//!   `--no-kernels`): each kernel's flow dependences, value-based and memory-based,
//!   computed by `pollen-frontend` and `pollen-deps`, from a statement to itself, one
//!   map per array and, when a statement depends on itself through several arrays,
//!   their union.
//!
//! Maps that print alike are compared once.
//!
//! # The comparison
//! isl computes every closure through `xtask/closure/closure.py` (the `islpy` package,
//! installed on first use into the private virtual environment `target/islpy-venv`
//! shared with `cargo xtask bench presburger`; isl is never a dependency of any crate)
//! and prints it; Pollen reads isl's answer with its own parser and compares it with its
//! own closure by `is_equal` and `is_subset`. Each entry falls in one class:
//! - **both exact**: the two closures must be equal;
//! - **Pollen exact, isl approximate**: isl's over-approximation must contain Pollen's
//!   closure;
//! - **isl exact, Pollen approximate**: Pollen's over-approximation must contain isl's
//!   closure (soundness); whether it is equal is reported;
//! - **both approximate**: whether Pollen's closure is a subset, a superset, equal to or
//!   incomparable with isl's is reported, nothing is required;
//! - **Pollen gave up**, **isl gave up**, **both gave up**: a closure that fails, that a
//!   parser refuses or that exceeds its budget (`--budget STEPS` of Pollen's solver steps,
//!   default [`POLLEN_STEPS`]; [`ISL_OPERATIONS`] of isl's operations) is reported as
//!   such, with the other side's claim;
//! - **undecided**: the comparison itself exceeded its budget.
//!
//! The command fails (non-zero exit) when a requirement does not hold, when Pollen cannot
//! read isl's answer or when Pollen panics; each failure is printed with both closures.
//!
//! # Timing
//! Both sides time the closure alone, on a map read beforehand: the fastest of repeated
//! runs (repeated until they total 50 ms, at most 100 runs). Pollen runs in this process,
//! isl inside `closure.py` (the islpy call included, well below a microsecond). The
//! table gives, per class, the median and the worst (smallest) of `isl time / Pollen
//! time`: at least 1 means Pollen is at least as fast. Timings of a debug build of the
//! xtask (the default of `cargo xtask`) are printed with a warning; `cargo run --release
//! -p xtask -- closure` gives release timings.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use pollen_deps::{Analysis, DepKind};
use pollen_presburger::text::parse_map;
use pollen_presburger::{Budget, Error, Map};

use crate::venv::Venv;

/// The default number of random maps.
pub const RANDOM_MAPS: usize = 60;

/// Pollen's default budget for one closure, in solver steps.
pub const POLLEN_STEPS: u64 = 50_000_000;

/// isl's budget for one closure, in its operations (`isl_ctx_set_max_operations`).
pub const ISL_OPERATIONS: u64 = 20_000_000;

/// The budget of each comparison of two closures, in solver steps.
const COMPARE_STEPS: u64 = 50_000_000;

/// Repetitions of a timed closure stop once they total this many seconds...
const MIN_TOTAL_SECONDS: f64 = 0.05;

/// ... or after this many runs.
const MAX_RUNS: usize = 100;

/// One map of the corpus and where it comes from.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The source: a section of the hand-written corpus, `translations` or
    /// `kernel <name> <statement> <array>`.
    pub label: String,
    /// The map in isl's syntax, on one line.
    pub map: String,
}

/// One side's answer: a closure, whether it claims exactness and the time it took, or
/// why there is none.
#[derive(Clone, Debug)]
pub enum Answer<T> {
    /// The closure, its exactness and the fastest time in seconds.
    Closure {
        /// The closure.
        map: T,
        /// Whether the closure claims to be exact.
        exact: bool,
        /// Seconds, the fastest of repeated runs.
        seconds: f64,
    },
    /// No closure: the error, the budget exceeded, or the map not read.
    GaveUp(String),
    /// The closure panicked (Pollen only): a failure.
    Panicked,
}

impl<T> Answer<T> {
    /// Why the answer has no closure, if it has none.
    fn reason(&self) -> Option<&str> {
        match self {
            Answer::GaveUp(why) => Some(why),
            Answer::Panicked => Some("Pollen panicked"),
            Answer::Closure { .. } => None,
        }
    }
}

/// How two approximate closures compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relation {
    /// The same map.
    Equal,
    /// Pollen's closure is strictly smaller than isl's.
    Subset,
    /// Pollen's closure is strictly larger than isl's.
    Superset,
    /// Neither contains the other.
    Incomparable,
}

/// The class of an entry (the rows of the table).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Both claim exactness.
    BothExact,
    /// Pollen exact, isl over-approximates.
    PollenExact,
    /// isl exact, Pollen over-approximates; whether Pollen's equals isl's.
    IslExact {
        /// Pollen's closure is isl's (exactness not proven).
        equal: bool,
    },
    /// Both over-approximate; how Pollen's compares with isl's.
    BothApproximate(Relation),
    /// Pollen has no closure.
    PollenGaveUp {
        /// isl's claim, `None` when isl gave up too.
        isl_exact: Option<bool>,
    },
    /// isl has no closure; Pollen's claim.
    IslGaveUp {
        /// Pollen's exactness claim.
        pollen_exact: bool,
    },
    /// The comparison exceeded its budget.
    Undecided,
}

impl Class {
    /// The row of the table.
    pub fn name(&self) -> String {
        match self {
            Class::BothExact => "both exact, equal".into(),
            Class::PollenExact => "Pollen exact, isl approximate".into(),
            Class::IslExact { equal: true } => "isl exact, Pollen approximate (= isl)".into(),
            Class::IslExact { equal: false } => "isl exact, Pollen approximate (⊋ isl)".into(),
            Class::BothApproximate(r) => format!(
                "both approximate, Pollen {} isl",
                match r {
                    Relation::Equal => "=",
                    Relation::Subset => "⊊",
                    Relation::Superset => "⊋",
                    Relation::Incomparable => "incomparable with",
                }
            ),
            Class::PollenGaveUp { isl_exact: Some(e) } => format!(
                "Pollen gave up, isl {}",
                if *e { "exact" } else { "approximate" }
            ),
            Class::PollenGaveUp { isl_exact: None } => "both gave up".into(),
            Class::IslGaveUp { pollen_exact } => format!(
                "isl gave up, Pollen {}",
                if *pollen_exact {
                    "exact"
                } else {
                    "approximate"
                }
            ),
            Class::Undecided => "comparison over budget".into(),
        }
    }
}

/// The outcome of one entry: its class, or a failure (a requirement that does not hold).
pub type Verdict = std::result::Result<Class, String>;

/// The command's options.
struct Options {
    corpus: PathBuf,
    kernels: bool,
    random: usize,
    steps: u64,
}

impl Options {
    fn parse(root: &Path, args: &[String]) -> Result<Options> {
        let mut options = Options {
            corpus: root.join("xtask/closure/corpus.txt"),
            kernels: true,
            random: RANDOM_MAPS,
            steps: POLLEN_STEPS,
        };
        let mut rest = args.iter();
        while let Some(flag) = rest.next() {
            match flag.as_str() {
                "--corpus" => match rest.next() {
                    Some(file) => options.corpus = PathBuf::from(file),
                    None => bail!("`--corpus` needs a file"),
                },
                "--no-kernels" => options.kernels = false,
                "--budget" => match rest.next().map(|s| s.parse()) {
                    Some(Ok(n)) => options.steps = n,
                    _ => bail!("`--budget` needs a number of steps"),
                },
                "--random" => match rest.next().map(|s| s.parse()) {
                    Some(Ok(n)) => options.random = n,
                    _ => bail!("`--random` needs a number of maps"),
                },
                other => bail!(
                    "unknown option `{other}` (known: --corpus FILE, --no-kernels, --random N, \
                     --budget STEPS)"
                ),
            }
        }
        Ok(options)
    }
}

/// The rows of the table: per class, the number of maps and the isl/Pollen time ratios.
type Rows = BTreeMap<Class, (usize, Vec<f64>)>;

/// Runs `cargo xtask closure [--corpus FILE] [--no-kernels] [--random N] [--budget STEPS]`.
pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let options = Options::parse(root, args)?;
    let entries = corpus(root, &options)?;
    let dir = root.join("target/closure");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let joined = dir.join("corpus.txt");
    let mut lines = String::new();
    for e in &entries {
        lines.push_str(&format!("# {}\n{}\n", e.label, e.map));
    }
    std::fs::write(&joined, lines).with_context(|| format!("cannot write {}", joined.display()))?;

    let python = islpy_python(root)?;
    println!(
        "closure: {} maps ({}), closures by isl",
        entries.len(),
        joined.display()
    );
    let out = Command::new(python)
        .arg(root.join("xtask/closure/closure.py"))
        .arg(&joined)
        .arg(ISL_OPERATIONS.to_string())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run xtask/closure/closure.py")?;
    if !out.status.success() {
        bail!("xtask/closure/closure.py failed ({})", out.status);
    }
    let theirs = read_isl_answers(&String::from_utf8_lossy(&out.stdout), entries.len())?;

    if cfg!(debug_assertions) {
        println!(
            "closure: warning: Pollen's times come from a debug build; \
             `cargo run --release -p xtask -- closure` gives release timings"
        );
    }
    let steps = options.steps;
    println!("closure: closures by Pollen (budget {steps} steps each)");
    let mut rows = Rows::new();
    let mut failures = Vec::new();
    for (k, (entry, isl)) in entries.iter().zip(theirs).enumerate() {
        let ours = pollen_closure(&entry.map, steps);
        let ratio = match (&ours, &isl) {
            (Answer::Closure { seconds: p, .. }, Answer::Closure { seconds: i, .. }) => {
                Some((*p, *i))
            }
            _ => None,
        };
        let detail = match ratio {
            Some((p, i)) => format!("Pollen {} isl {}", seconds(p), seconds(i)),
            None => [ours.reason(), isl.reason()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("; "),
        };
        match classify(&ours, &isl) {
            Ok(class) => {
                println!("{k:3} {:<44} {detail:<30} [{}]", class.name(), entry.label);
                let row = rows.entry(class).or_default();
                row.0 += 1;
                row.1.extend(ratio.map(|(p, i)| i / p));
            }
            Err(why) => {
                println!("{k:3} FAIL {why} [{}]\n    map: {}", entry.label, entry.map);
                failures.push(k);
            }
        }
    }
    print_table(&rows, failures.len());
    if !failures.is_empty() {
        bail!(
            "{} closures violate a requirement (entries {:?})",
            failures.len(),
            failures
        );
    }
    Ok(())
}

/// The whole corpus: the hand-written maps, the generated ones and the kernels'
/// dependences, each map once.
fn corpus(root: &Path, options: &Options) -> Result<Vec<Entry>> {
    let text = std::fs::read_to_string(&options.corpus)
        .with_context(|| format!("cannot read {}", options.corpus.display()))?;
    let mut entries = read_corpus(&text);
    entries.extend(translations());
    entries.extend(random_maps(options.random));
    if options.kernels {
        entries.extend(kernel_dependences(&root.join("examples/kernels"))?);
    }
    let mut seen = std::collections::BTreeSet::new();
    entries.retain(|e| seen.insert(e.map.clone()));
    Ok(entries)
}

/// Prints the table: per class the number of maps, the median and the smallest
/// isl/Pollen time ratio; then all classes together and the number of failures.
fn print_table(rows: &Rows, failures: usize) {
    println!();
    println!(
        "{:<44} {:>7} {:>13} {:>13}",
        "class", "maps", "median isl/P", "worst isl/P"
    );
    for (class, (count, ratios)) in rows {
        let (median, worst) = summary(ratios);
        println!("{:<44} {count:>7} {median:>13} {worst:>13}", class.name());
    }
    let all: Vec<f64> = rows.values().flat_map(|r| &r.1).copied().collect();
    let (median, worst) = summary(&all);
    println!(
        "{:<44} {:>7} {:>13} {:>13}",
        "all with two closures",
        all.len(),
        median,
        worst
    );
    println!("{:<44} {failures:>7}", "FAIL");
}

/// The median and the smallest ratio, printed, or dashes when there is none.
fn summary(ratios: &[f64]) -> (String, String) {
    if ratios.is_empty() {
        return ("-".into(), "-".into());
    }
    let mut sorted = ratios.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    (format!("{median:.2}"), format!("{:.2}", sorted[0]))
}

/// Seconds printed with a unit.
fn seconds(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1}µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2}ms", s * 1e3)
    } else {
        format!("{s:.2}s")
    }
}

/// The entries of a hand-written corpus: one map per line, `## name` starting a
/// section, other `#` lines and blank lines skipped.
pub fn read_corpus(text: &str) -> Vec<Entry> {
    let mut section = "corpus".to_string();
    let mut entries = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix("##") {
            section = name.trim().to_string();
        } else if !line.is_empty() && !line.starts_with('#') {
            entries.push(Entry {
                label: section.clone(),
                map: line.to_string(),
            });
        }
    }
    entries
}

/// isl's answers, one per entry, from `closure.py`'s output.
fn read_isl_answers(output: &str, n: usize) -> Result<Vec<Answer<String>>> {
    let mut answers = vec![Answer::GaveUp("no answer from isl".to_string()); n];
    for line in output.lines() {
        let mut fields = line.splitn(4, ' ');
        let k: usize = fields
            .next()
            .unwrap_or("")
            .parse()
            .with_context(|| format!("unexpected line from closure.py: {line}"))?;
        let answer = match (fields.next(), fields.next(), fields.next()) {
            (Some("error"), a, b) => Answer::GaveUp(format!(
                "isl: {}",
                [a, b].into_iter().flatten().collect::<Vec<_>>().join(" ")
            )),
            (Some(exact @ ("0" | "1")), Some(time), Some(map)) => Answer::Closure {
                map: map.to_string(),
                exact: exact == "1",
                seconds: time
                    .parse()
                    .with_context(|| format!("unexpected time from closure.py: {line}"))?,
            },
            _ => bail!("unexpected line from closure.py: {line}"),
        };
        if let Some(slot) = answers.get_mut(k) {
            *slot = answer;
        }
    }
    Ok(answers)
}

/// Pollen's closure of `text` within `steps` solver steps, timed.
pub fn pollen_closure(text: &str, steps: u64) -> Answer<Map> {
    let map = match parse_map(text) {
        Ok(map) => map,
        Err(e) => return Answer::GaveUp(format!("Pollen cannot read the map: {e}")),
    };
    let once = || {
        catch_unwind(AssertUnwindSafe(|| {
            map.transitive_closure_with(&mut Budget::new(steps))
        }))
    };
    let start = Instant::now();
    let first = once();
    let mut best = start.elapsed().as_secs_f64();
    let (closure, exact) = match first {
        Ok(Ok(result)) => result,
        Ok(Err(Error::LimitExceeded)) => {
            return Answer::GaveUp(format!("Pollen: budget of {steps} steps exceeded"))
        }
        Ok(Err(e)) => return Answer::GaveUp(format!("Pollen: {e}")),
        Err(_) => return Answer::Panicked,
    };
    let (mut total, mut runs) = (best, 1);
    while total < MIN_TOTAL_SECONDS && runs < MAX_RUNS {
        let start = Instant::now();
        let _ = once();
        let t = start.elapsed().as_secs_f64();
        best = best.min(t);
        total += t;
        runs += 1;
    }
    Answer::Closure {
        map: closure,
        exact,
        seconds: best,
    }
}

/// Classifies an entry from Pollen's closure and isl's printed one (see the module
/// documentation): the class, or why the pair violates a requirement.
pub fn classify(ours: &Answer<Map>, theirs: &Answer<String>) -> Verdict {
    let (p, p_exact) = match ours {
        Answer::Closure { map, exact, .. } => (map, *exact),
        Answer::Panicked => return Err("Pollen panicked".to_string()),
        Answer::GaveUp(_) => {
            return Ok(Class::PollenGaveUp {
                isl_exact: match theirs {
                    Answer::Closure { exact, .. } => Some(*exact),
                    Answer::GaveUp(_) | Answer::Panicked => None,
                },
            })
        }
    };
    let (text, i_exact) = match theirs {
        Answer::Closure { map, exact, .. } => (map, *exact),
        Answer::GaveUp(_) | Answer::Panicked => {
            return Ok(Class::IslGaveUp {
                pollen_exact: p_exact,
            })
        }
    };
    let i = parse_map(text).map_err(|e| format!("Pollen cannot read isl's closure {text}: {e}"))?;
    let mut budget = Budget::new(COMPARE_STEPS);
    let both = |p: &Map, i: &Map, budget: &mut Budget| -> Result<(bool, bool), Error> {
        Ok((p.is_subset_with(i, budget)?, i.is_subset_with(p, budget)?))
    };
    let (p_in_i, i_in_p) = match both(p, &i, &mut budget) {
        Ok(pair) => pair,
        Err(Error::LimitExceeded) => return Ok(Class::Undecided),
        Err(e) => {
            return Err(format!(
                "cannot compare Pollen's {p} with isl's {text}: {e}"
            ))
        }
    };
    let detail = || format!("Pollen {p} (exact: {p_exact}), isl {text} (exact: {i_exact})");
    match (p_exact, i_exact) {
        (true, true) if p_in_i && i_in_p => Ok(Class::BothExact),
        (true, true) => Err(format!("both claim exactness but differ: {}", detail())),
        (true, false) if p_in_i => Ok(Class::PollenExact),
        (true, false) => Err(format!(
            "isl's over-approximation misses part of Pollen's exact closure: {}",
            detail()
        )),
        (false, true) if i_in_p => Ok(Class::IslExact { equal: p_in_i }),
        (false, true) => Err(format!(
            "Pollen's closure misses part of isl's exact closure: {}",
            detail()
        )),
        (false, false) => Ok(Class::BothApproximate(match (p_in_i, i_in_p) {
            (true, true) => Relation::Equal,
            (true, false) => Relation::Subset,
            (false, true) => Relation::Superset,
            (false, false) => Relation::Incomparable,
        })),
    }
}

/// Unions of one to three translations in one to three dimensions on boxes: constant
/// bounds, a parametric upper bound `N` (and `M`), and translations restricted on both
/// sides (domain and range in the box, as dependences are). Deterministic.
pub fn translations() -> Vec<Entry> {
    let names = ["i", "j", "k"];
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut next = |n: u64| rng.below(n) as i64;
    let mut out = Vec::new();
    for dims in 1..=3 {
        for pieces in 1..=3 {
            for variant in 0..4 {
                // 0: constant box; 1: parametric box; 2: both sides in a constant box;
                // 3: both sides in a parametric box with two parameters.
                let params = match variant {
                    1 => "[N] -> ",
                    3 => "[N, M] -> ",
                    _ => "",
                };
                let tuple = names[..dims].join(", ");
                let mut parts = Vec::new();
                for _ in 0..pieces {
                    let d: Vec<i64> = loop {
                        let d: Vec<i64> = (0..dims).map(|_| next(6) - 2).collect();
                        if d.iter().any(|&x| x != 0) {
                            break d;
                        }
                    };
                    let image: Vec<String> = names[..dims]
                        .iter()
                        .zip(&d)
                        .map(|(x, &c)| match c {
                            0 => x.to_string(),
                            c if c > 0 => format!("{x} + {c}"),
                            c => format!("{x} - {}", -c),
                        })
                        .collect();
                    let mut constraints = Vec::new();
                    for (j, x) in names[..dims].iter().enumerate() {
                        let low = next(3);
                        let high = match variant {
                            1 => "N".to_string(),
                            3 if j == 0 => "N".to_string(),
                            3 => "M".to_string(),
                            _ => (low + 3 + next(6)).to_string(),
                        };
                        constraints.push(format!("{low} <= {x} <= {high}"));
                        if variant >= 2 {
                            let y = &image[j];
                            constraints.push(format!("{low} <= {y} <= {high}"));
                        }
                    }
                    parts.push(format!(
                        "[{tuple}] -> [{}] : {}",
                        image.join(", "),
                        constraints.join(" and ")
                    ));
                }
                out.push(Entry {
                    label: format!("translations {dims}-d"),
                    map: format!("{params}{{ {} }}", parts.join("; ")),
                });
            }
        }
    }
    out
}

/// Random maps from a space to itself, seeded with `0..n`: one or two dimensions, no
/// parameter or one, one or two disjuncts of two to four affine constraints over the
/// input, output and parameter (small coefficients, some equalities), sometimes a
/// modulo constraint or a step `y = x + d` with a bounded `d`. Empty maps are skipped.
pub fn random_maps(n: usize) -> Vec<Entry> {
    let mut out = Vec::new();
    for seed in 0..n as u64 {
        let mut rng = XorShift(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let dims = 1 + rng.below(2) as usize;
        let param = rng.below(2) == 1;
        let xs: Vec<String> = (0..dims).map(|j| format!("x{j}")).collect();
        let ys: Vec<String> = (0..dims).map(|j| format!("y{j}")).collect();
        let mut vars: Vec<&str> = xs.iter().chain(&ys).map(String::as_str).collect();
        if param {
            vars.push("p");
        }
        let mut parts = Vec::new();
        for _ in 0..1 + rng.below(2) {
            let mut constraints = Vec::new();
            if rng.below(2) == 1 {
                for (x, y) in xs.iter().zip(&ys) {
                    let d = rng.range(-2, 3);
                    constraints.push(format!("{y} = {x} + {d}"));
                }
            }
            for _ in 0..2 + rng.below(3) {
                let terms: Vec<String> = vars
                    .iter()
                    .filter_map(|v| match rng.range(-2, 2) {
                        0 => None,
                        c => Some(format!("{c}{v}")),
                    })
                    .collect();
                let lhs = if terms.is_empty() {
                    "0".to_string()
                } else {
                    terms.join(" + ")
                };
                let c = rng.range(-5, 5);
                constraints.push(match rng.below(6) {
                    0 => format!("{lhs} + {c} = 0"),
                    1 => format!("({lhs}) mod {} = 0", 2 + rng.below(2)),
                    _ => format!("{lhs} + {c} >= 0"),
                });
            }
            parts.push(format!(
                "[{}] -> [{}] : {}",
                xs.join(", "),
                ys.join(", "),
                constraints.join(" and ")
            ));
        }
        let text = format!(
            "{}{{ {} }}",
            if param { "[p] -> " } else { "" },
            parts.join("; ")
        );
        let Ok(map) = parse_map(&text) else { continue };
        if map.is_empty().unwrap_or(true) {
            continue;
        }
        out.push(Entry {
            label: format!("random {seed}"),
            map: map.to_string(),
        });
    }
    out
}

/// A small deterministic generator (xorshift64).
struct XorShift(u64);

impl XorShift {
    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// A number in `low..=high`.
    fn range(&mut self, low: i64, high: i64) -> i64 {
        low + self.below((high - low + 1) as u64) as i64
    }
}

/// The C files of `dir`, in name order.
pub(crate) fn c_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    Ok(files)
}

/// The flow dependences of the kernels of `dir` from a statement to itself, value-based
/// and memory-based: one entry per relation and, for a statement that depends on itself
/// through several arrays, one for their union.
pub fn kernel_dependences(dir: &Path) -> Result<Vec<Entry>> {
    let mut out = Vec::new();
    for file in c_files(dir)? {
        let name = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let source = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let extracted = pollen_frontend::extract(&source)
            .with_context(|| format!("cannot extract {}", file.display()))?;
        for (analysis, kind) in [
            (Analysis::ValueBased, "value"),
            (Analysis::MemoryBased, "memory"),
        ] {
            let deps = pollen_deps::analyze(&extracted.scop, analysis)
                .with_context(|| format!("cannot analyze {}", file.display()))?;
            let mut per_statement: BTreeMap<&str, Vec<&Map>> = BTreeMap::new();
            for dep in deps.of_kind(DepKind::Flow) {
                if dep.source != dep.target {
                    continue;
                }
                out.push(Entry {
                    label: format!("kernel {name} {kind} {} {}", dep.source, dep.array),
                    map: dep.relation.to_string(),
                });
                per_statement
                    .entry(&dep.source)
                    .or_default()
                    .push(&dep.relation);
            }
            for (statement, relations) in per_statement {
                if relations.len() < 2 {
                    continue;
                }
                let mut union = relations[0].clone();
                for r in &relations[1..] {
                    union = union.union(r)?;
                }
                out.push(Entry {
                    label: format!("kernel {name} {kind} {statement} all arrays"),
                    map: union.coalesce()?.to_string(),
                });
            }
        }
    }
    Ok(out)
}

/// The Python of the private virtual environment with `islpy`, created on first use.
fn islpy_python(root: &Path) -> Result<PathBuf> {
    Venv {
        dir: root.join("target").join("islpy-venv"),
        packages: &["islpy"],
        check: "import islpy",
        by: "closure",
    }
    .python(true)
    .map_err(anyhow::Error::msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn isl(text: &str, exact: bool) -> Answer<String> {
        Answer::Closure {
            map: text.to_string(),
            exact,
            seconds: 1e-6,
        }
    }

    #[test]
    fn an_equal_exact_answer_agrees() {
        let ours = pollen_closure("[N] -> { [i] -> [i + 1] : 0 <= i < N }", POLLEN_STEPS);
        let right = isl("[N] -> { [i] -> [o0] : 0 <= i < o0 <= N }", true);
        assert_eq!(classify(&ours, &right), Ok(Class::BothExact));
        // The same answer claimed approximate by isl.
        let approx = isl("[N] -> { [i] -> [o0] : 0 <= i < o0 <= N }", false);
        assert_eq!(classify(&ours, &approx), Ok(Class::PollenExact));
    }

    #[test]
    fn a_wrong_answer_is_a_failure() {
        let ours = pollen_closure("[N] -> { [i] -> [i + 1] : 0 <= i < N }", POLLEN_STEPS);
        // One path too few (i -> i + 1 only) and one too many (up to N + 1).
        for wrong in [
            "[N] -> { [i] -> [i + 1] : 0 <= i < N }",
            "[N] -> { [i] -> [o0] : 0 <= i < o0 <= N + 1 }",
        ] {
            let verdict = classify(&ours, &isl(wrong, true));
            assert!(
                verdict
                    .as_ref()
                    .is_err_and(|e| e.contains("both claim exactness")),
                "{wrong}: {verdict:?}"
            );
        }
        // An approximation of isl's that misses Pollen's exact closure.
        let small = isl("[N] -> { [i] -> [i + 1] : 0 <= i < N }", false);
        assert!(classify(&ours, &small).is_err());
        assert!(classify(&ours, &isl("{ [i] -> [i] : junk", true)).is_err());
    }

    #[test]
    fn an_approximation_must_contain_the_exact_closure() {
        // Pollen over-approximates (doubling is no translation); isl's answer below is
        // the exact closure, and a larger "exact" answer from isl exposes a closure that
        // would be missing paths.
        let text = "{ [i] -> [2i] : 1 <= i <= 10 }";
        let ours = pollen_closure(text, POLLEN_STEPS);
        assert!(matches!(ours, Answer::Closure { exact: false, .. }));
        let iterated = {
            let a = parse_map(text).unwrap();
            let mut acc = a.clone();
            loop {
                let next = acc.union(&acc.apply_range(&a).unwrap()).unwrap();
                if next.is_subset(&acc).unwrap() {
                    break acc;
                }
                acc = next.coalesce().unwrap();
            }
        };
        let verdict = classify(&ours, &isl(&iterated.to_string(), true));
        assert!(matches!(verdict, Ok(Class::IslExact { .. })), "{verdict:?}");
        let too_big = isl("{ [i] -> [o0] : 0 <= i <= 10 and o0 >= i + 1 }", true);
        assert!(classify(&ours, &too_big)
            .is_err_and(|e| e.contains("misses part of isl's exact closure")));
        let bigger = isl("{ [i] -> [o0] : 0 <= i <= 10 and o0 >= i + 1 }", false);
        assert_eq!(
            classify(&ours, &bigger),
            Ok(Class::BothApproximate(Relation::Subset))
        );
    }

    #[test]
    fn giving_up_is_reported_not_failed() {
        let ours = pollen_closure("{ [i] -> [i + 1] : 0 <= i < 10 }", 1);
        assert!(matches!(ours, Answer::GaveUp(_)));
        assert_eq!(
            classify(&ours, &isl("{ [i] -> [o0] : 0 <= i < o0 <= 10 }", true)),
            Ok(Class::PollenGaveUp {
                isl_exact: Some(true)
            })
        );
        let ours = pollen_closure("{ [i] -> [i + 1] : 0 <= i < 10 }", POLLEN_STEPS);
        assert_eq!(
            classify(&ours, &Answer::GaveUp("isl: out of operations".into())),
            Ok(Class::IslGaveUp { pollen_exact: true })
        );
    }

    #[test]
    fn the_corpus_reads_sections_and_generated_maps_parse() {
        let entries = read_corpus("# c\n## one\n{ [i] -> [i + 1] }\n\n## two\n{ [i] -> [i] }\n");
        assert_eq!(entries.len(), 2);
        assert_eq!(
            (entries[0].label.as_str(), entries[1].label.as_str()),
            ("one", "two")
        );
        let generated = translations();
        assert_eq!(generated.len(), 36);
        let random = random_maps(20);
        assert!(random.len() >= 10, "{random:?}");
        for e in generated.iter().chain(&random) {
            let m = parse_map(&e.map).unwrap_or_else(|err| panic!("{}: {err}", e.map));
            assert!(!m.is_empty().unwrap(), "{}", e.map);
        }
    }

    #[test]
    fn isl_answers_are_read() {
        let answers =
            read_isl_answers("1 1 0.000010 { [i] -> [o0] : o0 > i }\n0 error no\n", 3).unwrap();
        assert!(matches!(&answers[0], Answer::GaveUp(m) if m.contains("no")));
        assert!(
            matches!(&answers[1], Answer::Closure { map, exact: true, .. } if map == "{ [i] -> [o0] : o0 > i }")
        );
        assert!(matches!(&answers[2], Answer::GaveUp(_)));
        assert!(read_isl_answers("x y\n", 1).is_err());
    }
}
