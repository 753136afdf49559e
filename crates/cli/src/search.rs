//! `pollen search`: iterative compilation over the legal outer fusion structures of a
//! region (`pollen-search`): the space and its statistics, then every candidate
//! generated, compiled, run, checked against the original's output and timed, with a
//! progress bar, a results table, CSV and JSON, and the fastest program written out.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use pollen_driver::{Options, Tiling};
use pollen_tune::evaluate::{
    by_key, candidates, neighbours_in, space_of, Local, SpaceError, Timer, Toolchain, Walk,
};
use pollen_tune::results::{from_csv, seconds_text, table, to_csv, to_json};
use pollen_tune::tuner::{search, Config, Event, Status};

use crate::budget::{LimitError, Steps};

/// `print!` that returns the write error (a closed pipe) instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        write!(std::io::stdout().lock(), $($arg)*)?
    };
}

/// `println!` that returns the write error instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout().lock(), $($arg)*)?
    };
}

/// The long help of `pollen search`.
pub const SEARCH_HELP: &str = "\
Search the legal outer fusion structures of a C file's `#pragma scop` region for the
fastest program (iterative compilation, Pouchet et al., POPL 2011).

The space: every total preorder of the statements (O), pruned to the legal outer
fusion structures (F1) by the dependences (a dependence never goes backwards across a
distribution) and by an exact joint fusibility test of every dependence-connected set
of statements. Its statistics are printed first (the columns of the paper's Table 1).
Each structure becomes a complete schedule: the classes run in order, each scheduled
by Pluto with maximal fusion inside its outer loop and tiled, or the same untiled, or
each class's statements in their original loop order under the class's fused outer
loop (three candidates per structure); the `pollen opt` pipeline parallelises and
generates each. `pollen opt`'s own default is candidate 0, followed by its neighbours:
the same pipeline with one parameter changed (tile sizes 16, 32, 64, 128, 32x256 or
64x512 instead of the cache model's, no unroll-and-jam, no parallel loops, no tiling,
or another strategy: basteln, polymage, akg). From the middle of --time or --budget on
(or once the list is done), the neighbours of the --refine fastest candidates so far
go first, each candidate refined once, so that the search descends from its best
points; their keys name them (`{S0 S1} tiled tiles=64`); given tile sizes have as
neighbours the same sizes with one member doubled or halved, so that the search walks
the tile sizes member by member (`default tiles=32,64,256`; a cube such as `tiles=32`
spelled out first for as many members as loops surround the deepest statement, written
without the trailing members that repeat: `tiles=32,32,32,64,32`).

Each candidate is compiled with --compiler (the words before the source file; --cflags
words after it; -D definitions), run once and its output (standard output and error,
the timer's lines left out) compared with the original program's: equal, or close
(numbers within a relative 1e-6, as compilers contract multiply-adds differently in
different loops); any other difference is listed as a mismatch and never timed. Then it
is timed --runs times (the minimum counts) by its own timer (the fastest `time
<seconds>` or `POLLEN_TIME <seconds>` line on standard error, or PolyBench's
-DPOLYBENCH_TIME line on standard output) or else the
wall clock (--timer wall forces it). --check-define gives the check build other
definitions than the timed one (e.g. a smaller size with PolyBench's
-DPOLYBENCH_DUMP_ARRAYS).

Up to --jobs candidates are generated, built and checked at once; a timing run always
runs alone. A timed run longer than --cutoff times the best so far is stopped. The
candidates after the default are visited in an order shuffled by --seed; --budget N
stops after N candidates, --time T after T (e.g. 600, 10m). --csv FILE writes the results
after every candidate, and --resume reads them back first, so an interrupted search goes
on where it stopped. The results table (time, speedup over the original and over the
default) goes to standard output at the end.

Examples:
  pollen search examples/kernels/atax.c -D POLLEN_TIME -D LARGE --cflags '-I examples/kernels -lm' -o atax.best.c
  pollen search atax.c --compiler 'gcc -O3 -march=native -fopenmp' \\
      --cflags '-I utilities utilities/polybench.c -lm' -D LARGE_DATASET -D POLYBENCH_TIME \\
      --check-define MEDIUM_DATASET --check-define POLYBENCH_DUMP_ARRAYS --threads 2 --time 10m
  pollen search examples/kernels/gemver.c --explain 3
  pollen search examples/kernels/gemver.c --explain '{S0 S1 S2} {S3} tiled tiles=32,256 sequential'";

/// The arguments of `pollen search`.
#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// The C file.
    pub file: PathBuf,
    /// Where to write the fastest candidate's program.
    #[arg(short, long, value_name = "BEST.c")]
    pub output: Option<PathBuf>,
    /// The region searched, from 1 (needed when the file has several).
    #[arg(long, value_name = "K")]
    pub region: Option<usize>,
    /// The most candidates evaluated, the default included.
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// No candidate is started after this time (seconds, or with a unit: 90s, 10m, 1h).
    #[arg(long, value_name = "T", value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// Candidates generated, built and checked at once.
    #[arg(long, short = 'j', default_value_t = 1, value_name = "J")]
    pub jobs: usize,
    /// The compiler and its flags, before the source file.
    #[arg(
        long,
        default_value = "cc -O3 -march=native -fopenmp",
        value_name = "CMD"
    )]
    pub compiler: String,
    /// Words after the source file (more sources, include directories, libraries).
    #[arg(
        long,
        default_value = "-lm",
        value_name = "FLAGS",
        allow_hyphen_values = true
    )]
    pub cflags: String,
    /// A definition of the timed build (`NAME` or `NAME=VALUE`), repeatable.
    #[arg(short = 'D', long = "define", value_name = "NAME[=V]")]
    pub defines: Vec<String>,
    /// A definition of the check build, repeatable; when absent the timed build is
    /// also the check build.
    #[arg(long = "check-define", value_name = "NAME[=V]")]
    pub check_defines: Vec<String>,
    /// Compiler flags of the check build only (e.g. `-ffp-contract=off`).
    #[arg(
        long,
        default_value = "",
        value_name = "FLAGS",
        allow_hyphen_values = true
    )]
    pub check_cflags: String,
    /// Every candidate vectorises the loops that only accumulate with reduction clauses
    /// (`pollen opt --reassociate`): its output is then compared with the original's
    /// within --tolerance, not exactly.
    #[arg(long)]
    pub reassociate: bool,
    /// Every candidate declares the mathematical functions it calls with their vector
    /// variants (`pollen opt --vector-math`): its output is then compared with the
    /// original's within --tolerance, not exactly.
    #[arg(long)]
    pub vector_math: bool,
    /// With --reassociate or --vector-math, the largest difference of a printed number from the
    /// original's, as a share of the largest magnitude among the numbers of its line in
    /// the original's output (print a checksum next to the checksum of the absolute
    /// values, and the difference is measured against the latter).
    #[arg(long, default_value_t = 1e-5, value_name = "REL")]
    pub tolerance: f64,
    /// Rounds of confirmation: the default and the 3 fastest candidates timed again
    /// in turn at the end.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub confirm: usize,
    /// Timed runs per candidate (the minimum counts).
    #[arg(long, default_value_t = 3, value_name = "R")]
    pub runs: usize,
    /// `OMP_NUM_THREADS` of every run (inherited when absent).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// How runs are timed.
    #[arg(long, value_enum, default_value = "auto")]
    pub timer: TimerChoice,
    /// Stop a timed run longer than this many times the best time so far (0: never).
    #[arg(long, default_value_t = 4.0, value_name = "F")]
    pub cutoff: f64,
    /// The seed of the visiting order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Local refinement: the N fastest candidates' neighbours (tile sizes,
    /// unroll-and-jam, parallel loops changed one at a time) are tried next, each
    /// candidate once, from the middle of --time or --budget on (0: none).
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub refine: usize,
    /// Write the results as CSV to FILE, after every candidate.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Read the results of an earlier search from the --csv file first.
    #[arg(long, requires = "csv")]
    pub resume: bool,
    /// Write the results as JSON to FILE at the end.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Where the builds go (default: a fresh directory under the system's temporary
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Print the space and the candidates, and stop.
    #[arg(long)]
    pub list: bool,
    /// Print candidate K's pipeline (the driver's report) and its program, and stop: K is
    /// a number of --list or a key of the results (`"default tiles=16"`, also the
    /// refinement's).
    #[arg(long, value_name = "K")]
    pub explain: Option<String>,
    /// Solver steps per stage of the space and of the default candidate (as `pollen
    /// opt --budget`), or `unlimited`.
    #[arg(long, default_value = "25000000", value_name = "N|unlimited")]
    pub steps: Steps,
    /// Solver steps per stage of every other candidate, or `unlimited`: a candidate that
    /// needs more fails (listed) instead of taking minutes.
    #[arg(long, default_value = "10000000", value_name = "N|unlimited")]
    pub candidate_steps: Steps,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// `--timer`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerChoice {
    /// The program's own timer when it prints one, else the wall clock.
    Auto,
    /// The wall clock of the whole process.
    Wall,
}

/// `90`, `90s`, `10m`, `1h`.
fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((at, _)) => t.split_at(at),
        None => (t, "s"),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (e.g. 600, 90s, 10m, 1h)"))?;
    let factor = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("unknown unit `{unit}` (s, m, h)")),
    };
    if !(value.is_finite() && value >= 0.0) {
        return Err(format!("`{text}` is not a duration"));
    }
    Ok(Duration::from_secs_f64(value * factor))
}

/// Runs `pollen search`.
pub fn run(args: &SearchArgs) -> Result<ExitCode> {
    let path = args.file.as_path();
    let source =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let budget_steps = match args.steps {
        Steps::Limited(n) => Some(n),
        Steps::Unlimited => None,
    };
    let regions = pollen_frontend::extract_all(&source)
        .map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))?
        .len();
    let region = match (args.region, regions) {
        (Some(k), n) if k == 0 || k > n => bail!("--region {k}: the file has {n} region(s)"),
        (Some(k), _) => k - 1,
        (None, 1) => 0,
        (None, n) => bail!("the file has {n} regions: choose one with --region K"),
    };
    let started = Instant::now();
    let limits = pollen_search::Limits {
        seed: args.seed,
        ..pollen_search::Limits::default()
    };
    let space = match space_of(&source, region, &limits, &mut args.steps.budget()) {
        Ok(space) => space,
        Err(SpaceError::Space(pollen_search::Error::LimitExceeded))
        | Err(SpaceError::Frontend(pollen_frontend::Error::Presburger {
            error: pollen_presburger::Error::LimitExceeded,
            ..
        })) => {
            return Err(LimitError::new("building the search space", args.steps)
                .raised_by("--steps")
                .into())
        }
        Err(e) => bail!("{}: {e}", path.display()),
    };
    let space_time = started.elapsed();
    // The most band members a tiled candidate can have: the loops around the deepest
    // statement (given tile sizes are walked member by member over as many).
    let members = space
        .scop()
        .statements
        .iter()
        .map(|s| s.iterators.len())
        .max()
        .unwrap_or(0);
    let program = space.program();
    let (o, f1) = (space.o_stats(), space.f1_stats());
    outln!(
        "space of {} (region {}): #loops {} #stmts {} #refs {} | O: #dim {} #cst {} #points {} | F1: #dim {} #cst {} #points {}{} | built in {:.2} s{}",
        path.display(),
        region + 1,
        program.loops,
        program.statements,
        program.references,
        o.dims,
        o.constraints,
        o.points,
        f1.dims,
        f1.constraints,
        if space.f1_counted() { "" } else { "> " },
        f1.points,
        space_time.as_secs_f64(),
        if space.sampled() {
            format!("; {} structures sampled", space.structures().len())
        } else {
            String::new()
        }
    );
    let options = Options {
        cache: crate::opt::machine_cache(),
        budget: budget_steps,
        tiling: Tiling::FromCache,
        reassociate: args.reassociate,
        vector_math: args.vector_math,
        ..Options::default()
    };
    let all = candidates(&space);
    let dir = match &args.work_dir {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(format!("pollen-search-{}", std::process::id())),
    };
    let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let mut env = Vec::new();
    if let Some(t) = args.threads {
        env.push(("OMP_NUM_THREADS".to_string(), t.to_string()));
    }
    let evaluator = Local {
        source: source.clone(),
        region,
        space,
        options,
        candidate_budget: match args.candidate_steps {
            Steps::Limited(n) => Some(n),
            Steps::Unlimited => None,
        },
        toolchain: Toolchain {
            compiler: words(&args.compiler),
            extra: words(&args.cflags),
            defines: args.defines.clone(),
            check_defines: (!args.check_defines.is_empty()).then(|| args.check_defines.clone()),
            check_flags: words(&args.check_cflags),
            include: vec![std::path::absolute(path)
                .ok()
                .and_then(|p| p.parent().map(PathBuf::from))
                .unwrap_or_else(|| PathBuf::from("."))],
        },
        dir: dir.clone(),
        env,
        timer: match args.timer {
            TimerChoice::Auto => Timer::Auto,
            TimerChoice::Wall => Timer::Wall,
        },
        run_limit: Duration::from_secs(600),
    };
    if args.list {
        for c in &all {
            outln!("{c}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(k) = &args.explain {
        let candidate = match k.trim().parse::<usize>() {
            Ok(n) => all.get(n).cloned().ok_or_else(|| {
                anyhow::anyhow!(
                    "--explain {n}: there are {} candidates (0 to {})",
                    all.len(),
                    all.len() - 1
                )
            })?,
            Err(_) => by_key(&all, k).ok_or_else(|| {
                anyhow::anyhow!(
                    "--explain `{k}`: no candidate has that key (see --list; a variant is a listed key followed by tiles=S1,S2,.., no-unroll-and-jam, sequential, in that order)"
                )
            })?,
        };
        let candidate = &candidate;
        let optimized = evaluator
            .optimize(candidate)
            .map_err(|f| anyhow::anyhow!("candidate {candidate}: {f}"))?;
        let mut report = optimized.report;
        report.name = Some(format!("{} candidate {candidate}", path.display()));
        eprint!("{report}");
        out!("{}", optimized.text);
        return Ok(ExitCode::SUCCESS);
    }

    let known = match (&args.csv, args.resume) {
        (Some(csv), true) if csv.exists() => {
            let text = std::fs::read_to_string(csv)
                .with_context(|| format!("cannot read {}", csv.display()))?;
            from_csv(&text).map_err(|e| anyhow::anyhow!("{}: {e}", csv.display()))?
        }
        _ => HashMap::new(),
    };
    let config = Config {
        jobs: args.jobs.max(1),
        runs: args.runs.max(1),
        budget: args.budget,
        time: args.time,
        seed: args.seed,
        cutoff: (args.cutoff > 0.0).then_some(args.cutoff),
        confirm: args.confirm,
        finalists: 3,
        refine: args.refine,
        line_tolerance: (args.reassociate || args.vector_math).then_some(args.tolerance),
        ..Config::default()
    };
    let total = match args.budget {
        Some(b) => b.min(all.len()),
        None => all.len(),
    };
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} candidates, {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message("timing the original");
    let mut best: Option<f64> = None;
    let mut partial: Vec<pollen_tune::tuner::Outcome> = Vec::new();
    let mut original = None;
    let csv_path = args.csv.clone();
    let time_limit = args.time;
    let search_start = Instant::now();
    let mut observe = |event: Event<'_>| match event {
        Event::Baseline(b) => {
            original = Some(b.clone());
            bar.println(format!("original: {} s", seconds_text(b.seconds)));
            bar.set_message("searching");
        }
        Event::Confirming(finalists) => {
            let names: Vec<String> = finalists.iter().map(|c| format!("#{}", c.id)).collect();
            bar.set_message(format!("confirming {}", names.join(", ")));
        }
        Event::Added(added) => bar.inc_length(added.len() as u64),
        Event::Started(c) => {
            bar.set_message(format!("running {c}{}", left(time_limit, search_start)))
        }
        Event::Finished(o) => {
            bar.inc(1);
            if let Some(s) = o.status.seconds() {
                best = Some(best.map_or(s, |b: f64| b.min(s)));
            }
            if !matches!(o.status, Status::Timed { .. }) {
                bar.println(format!("{}: {}", o.candidate, o.status.name()));
            }
            bar.set_message(format!(
                "best {}{}",
                best.map_or("-".to_string(), |b| format!("{} s", seconds_text(b))),
                left(time_limit, search_start)
            ));
            partial.push(o.clone());
            if let (Some(csv), Some(baseline)) = (&csv_path, &original) {
                let snapshot = pollen_tune::tuner::Results {
                    baseline: baseline.clone(),
                    outcomes: partial.clone(),
                    not_reached: 0,
                    same_program: 0,
                    elapsed: search_start.elapsed(),
                };
                // A failed intermediate write is reported by the final one.
                let _ = std::fs::write(csv, to_csv(&snapshot));
            }
        }
    };
    let walk = Walk {
        members,
        reassociating: args.reassociate,
    };
    let neighbours = |c: &pollen_tune::evaluate::Candidate| neighbours_in(c, &walk);
    let results = search(&all, &neighbours, &evaluator, &config, &known, &mut observe)
        .map_err(|f| anyhow::anyhow!("the original program: {f}"))?;
    bar.finish_and_clear();
    out!("{}", table(&results));
    let mismatches: Vec<_> = results.mismatches().collect();
    let same = match results.same_program {
        0 => String::new(),
        n => format!(" ({n} more left out: the same program as an earlier candidate's)"),
    };
    outln!(
        "{} candidates evaluated ({} resumed), {} not reached, {} mismatch(es), in {:.1} s{same}",
        results.outcomes.len(),
        results.outcomes.iter().filter(|o| o.resumed).count(),
        results.not_reached,
        mismatches.len(),
        results.elapsed.as_secs_f64()
    );
    if let Some(csv) = &args.csv {
        std::fs::write(csv, to_csv(&results))
            .with_context(|| format!("cannot write {}", csv.display()))?;
    }
    if let Some(json) = &args.json {
        std::fs::write(json, to_json(&results))
            .with_context(|| format!("cannot write {}", json.display()))?;
    }
    match results.best() {
        Some(best) => {
            let default = results.default_outcome().and_then(|d| d.status.seconds());
            outln!(
                "best: {} {} s ({:.2}x the original{})",
                best.candidate,
                seconds_text(best.status.seconds().unwrap_or(f64::NAN)),
                results.baseline.seconds / best.status.seconds().unwrap_or(f64::NAN),
                default.map_or(String::new(), |d| format!(
                    ", {:.2}x the default",
                    d / best.status.seconds().unwrap_or(f64::NAN)
                ))
            );
            if let Some(out) = &args.output {
                let text = evaluator
                    .optimize(&best.candidate)
                    .map_err(|f| anyhow::anyhow!("{f}"))?
                    .text;
                std::fs::write(out, text)
                    .with_context(|| format!("cannot write {}", out.display()))?;
                outln!("written to {}", out.display());
            }
        }
        None => {
            outln!("no candidate was timed");
        }
    }
    if args.work_dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    std::io::stdout().flush()?;
    Ok(if mismatches.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `, 5m 3s left` when there is a time limit.
fn left(limit: Option<Duration>, start: Instant) -> String {
    match limit {
        Some(t) => {
            let rest = t.saturating_sub(start.elapsed()).as_secs();
            format!(", {}m {:02}s left", rest / 60, rest % 60)
        }
        None => String::new(),
    }
}
