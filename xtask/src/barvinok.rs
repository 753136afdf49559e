//! `cargo xtask barvinok [--corpus FILE]`: Pollen's parametric counts
//! (`Set::card_parametric`) against barvinok's, by evaluation.
//!
//! The corpus (default `benches/presburger/counts.txt`) holds one isl set per line; the
//! statement domains of the kernels of `examples/kernels` are added to it (all thirty
//! PolyBench kernels, as the repository writes them) unless `--no-kernels` is given.
//! barvinok counts every set through `xtask/barvinok/card.py` (the `islpy-barvinok`
//! package, installed on first use into a private virtual environment under
//! `target/barvinok-venv`; barvinok is never a dependency of any crate) and prints the
//! counts in iscc's syntax; Pollen reads them with `PwQPolynomial::from_str` and
//! compares both counts at every parameter point of a box (all points for up to two
//! parameters, a fixed pseudo-random sample for more). The command fails when a count
//! differs somewhere, when barvinok's count cannot be read, or when Pollen refuses a
//! set that barvinok counts; printed forms are only reported, as both tools choose
//! their own (equivalent) pieces and floors.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use pollen_presburger::{Int, PwQPolynomial, Set};

use crate::venv::Venv;

/// The parameter values tried: every integer of `[LOW, HIGH]`.
const LOW: i64 = -8;
const HIGH: i64 = 40;

/// Points tried for three parameters or more.
const SAMPLES: usize = 2000;

/// Runs `cargo xtask barvinok [--corpus FILE] [--no-kernels]`.
pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let mut corpus = root.join("benches/presburger/counts.txt");
    let mut kernels = true;
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        match flag.as_str() {
            "--corpus" => match rest.next() {
                Some(file) => corpus = PathBuf::from(file),
                None => bail!("`--corpus` needs a file"),
            },
            "--no-kernels" => kernels = false,
            other => bail!("unknown option `{other}` (known: --corpus FILE, --no-kernels)"),
        }
    }
    let text = std::fs::read_to_string(&corpus)
        .with_context(|| format!("cannot read {}", corpus.display()))?;
    let mut entries: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    if kernels {
        let domains = statement_domains(&root.join("examples/kernels"))?;
        println!(
            "barvinok: with the {} statement domains of examples/kernels",
            domains.len()
        );
        entries.extend(domains);
    }
    // The whole corpus, for barvinok's side.
    let out_dir = root.join("target/barvinok");
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    let corpus = out_dir.join("corpus.txt");
    std::fs::write(&corpus, entries.join("\n") + "\n")
        .with_context(|| format!("cannot write {}", corpus.display()))?;

    let python = barvinok_python(root)?;
    println!("barvinok: counting {} sets with barvinok", entries.len());
    let out = Command::new(python)
        .arg(root.join("xtask/barvinok/card.py"))
        .arg(&corpus)
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run xtask/barvinok/card.py")?;
    if !out.status.success() {
        bail!("xtask/barvinok/card.py failed ({})", out.status);
    }
    let counts = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut theirs: Vec<Option<String>> = vec![None; entries.len()];
    for line in counts.lines() {
        let (index, count) = line.split_once(' ').unwrap_or((line, ""));
        let k: usize = index
            .parse()
            .with_context(|| format!("unexpected line from card.py: {line}"))?;
        if let Some(slot) = theirs.get_mut(k) {
            *slot = Some(count.to_string());
        }
    }

    let mut failures = 0;
    let mut same_text = 0;
    for (k, (set, count)) in entries.iter().zip(&theirs).enumerate() {
        let verdict = compare(set, count.as_deref());
        match &verdict {
            Ok(Verdict { points, same }) => {
                same_text += usize::from(*same);
                println!(
                    "{k:3} agree at {points} points{}: {set}",
                    if *same { ", printed alike" } else { "" }
                );
            }
            Err(why) => {
                failures += 1;
                println!("{k:3} FAIL {why}: {set}");
            }
        }
    }
    println!(
        "barvinok: {} of {} counts agree ({same_text} printed alike)",
        entries.len() - failures,
        entries.len()
    );
    if failures > 0 {
        bail!("{failures} counts differ from barvinok's");
    }
    Ok(())
}

/// The statement domains of the kernels of `dir` (their C files, in name order), as
/// isl sets, without repeats.
fn statement_domains(dir: &Path) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for file in crate::closure::c_files(dir)? {
        let source = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let extracted = pollen_frontend::extract(&source)
            .with_context(|| format!("cannot extract {}", file.display()))?;
        for s in &extracted.scop.statements {
            let text = s.domain.to_string();
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    Ok(out)
}

/// The outcome of a comparison that agrees.
pub(crate) struct Verdict {
    points: usize,
    same: bool,
}

/// Compares Pollen's count of `set` with barvinok's printed count.
pub(crate) fn compare(set: &str, theirs: Option<&str>) -> std::result::Result<Verdict, String> {
    let theirs = theirs.ok_or("no answer from barvinok")?;
    if let Some(message) = theirs.strip_prefix("error ") {
        return Err(format!("barvinok failed: {message}"));
    }
    let parsed: Set = set
        .parse()
        .map_err(|e| format!("Pollen cannot read the set: {e}"))?;
    let ours = parsed
        .card_parametric()
        .map_err(|e| format!("Pollen refuses: {e}"))?;
    let reread: PwQPolynomial = theirs
        .parse()
        .map_err(|e| format!("Pollen cannot read barvinok's {theirs}: {e}"))?;
    if reread.params() != ours.params() {
        return Err(format!(
            "parameters [{}] and [{}]",
            ours.params().join(", "),
            reread.params().join(", ")
        ));
    }
    let points = parameter_points(ours.params().len());
    for p in &points {
        let a = ours.value(p).map_err(|e| e.to_string())?;
        let b = reread.value(p).map_err(|e| e.to_string())?;
        if a != b {
            return Err(format!(
                "at {p:?}: Pollen {a} ({ours}), barvinok {b} ({theirs})"
            ));
        }
    }
    Ok(Verdict {
        points: points.len(),
        same: ours.to_string() == reread.to_string(),
    })
}

/// Every point of `[LOW, HIGH]^n` for `n <= 2`, else a fixed pseudo-random sample.
fn parameter_points(n: usize) -> Vec<Vec<Int>> {
    let width = (HIGH - LOW + 1) as u64;
    let total = width.checked_pow(n as u32).unwrap_or(u64::MAX);
    if n <= 2 {
        return (0..total)
            .map(|mut k| {
                (0..n)
                    .map(|_| {
                        let v = LOW + (k % width) as i64;
                        k /= width;
                        Int::from(v)
                    })
                    .collect()
            })
            .collect();
    }
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    (0..SAMPLES)
        .map(|_| {
            (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    Int::from(LOW + (state % width) as i64)
                })
                .collect()
        })
        .collect()
}

/// The Python of the private virtual environment with `islpy-barvinok`, created on
/// first use.
pub(crate) fn barvinok_python(root: &Path) -> Result<PathBuf> {
    Venv {
        dir: root.join("target").join("barvinok-venv"),
        packages: &["islpy-barvinok"],
        check: "import islpy; islpy.Set('{ [i] : 0 <= i < 2 }').card()",
        by: "barvinok",
    }
    .python(true)
    .map_err(anyhow::Error::msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_points_cover_the_box() {
        let points = parameter_points(2);
        assert_eq!(points.len(), 49 * 49);
        assert!(points.contains(&vec![Int::from(LOW), Int::from(HIGH)]));
        assert_eq!(parameter_points(0), vec![Vec::<Int>::new()]);
        assert_eq!(parameter_points(3).len(), SAMPLES);
    }

    #[test]
    fn a_wrong_count_is_reported() {
        let set = "[N] -> { [i] : 0 <= 2i <= N }";
        assert!(compare(set, Some("[N] -> { (1 + floor((N)/2)) : N >= 0 }")).is_ok());
        let wrong = compare(set, Some("[N] -> { floor((N)/2) : N >= 0 }"));
        assert!(wrong.is_err_and(|e| e.contains("at [")));
        assert!(compare(set, Some("error no")).is_err());
        assert!(compare(set, None).is_err());
    }
}
