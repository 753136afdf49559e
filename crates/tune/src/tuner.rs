//! The search loop: every candidate generated, built, run and compared with the
//! original, then timed; the fastest kept.
//!
//! - The original program is built, run (its output is the reference) and timed first,
//!   then the candidates in a reproducible order: the default (`pollen opt`'s) first,
//!   the others shuffled by [`Config::seed`] (a budget of N candidates then samples the
//!   space evenly).
//! - Up to [`Config::jobs`] candidates are generated, built and checked at once. Timing
//!   runs are exclusive: while one runs, no other step of the search runs (a
//!   reader-writer lock: the other steps share it, a timing run holds it alone).
//! - A candidate's time is the minimum of [`Config::runs`] runs. A run that exceeds
//!   [`Config::cutoff`] times the best time so far is stopped and the candidate marked
//!   slow (it cannot be the best). The limit is on the run's wall clock, so it adds the
//!   most that a run's wall clock has exceeded its timer (a program that times only its
//!   kernel spends the rest setting up).
//! - Only candidates whose output agrees with the original's are timed; the others are
//!   reported as mismatches with the first difference.
//! - Results already known (a resumed search, by [`Candidate::key`]) are not
//!   evaluated again; nor is a candidate whose generated program is the same text as an
//!   earlier one's (a parameter that changes nothing in that program): it is left out,
//!   counted in [`Results::same_program`], and does not count against the budget.
//! - Local refinement ([`Config::refine`]): past [`Config::refine_after`] of the time
//!   (or of the budget, or once the list is done), the fastest candidates' neighbours
//!   (the same candidate with one pipeline parameter changed, given by the caller) go
//!   to the front of the queue, each candidate refined once: a greedy descent from the
//!   best points of the space.
//! - At the end, [`Config::confirm`] rounds time the default and the fastest
//!   candidates again in turn, so that the best and the default are compared over
//!   the same number of interleaved runs.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::evaluate::{
    compare, compare_within, Agreement, Build, Candidate, Evaluator, Failure, Measured, Step,
};

/// The choices of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Candidates generated, built and checked at once.
    pub jobs: usize,
    /// Timed runs per candidate (the minimum counts).
    pub runs: usize,
    /// The most candidates evaluated (the default included); `None`: all.
    pub budget: Option<usize>,
    /// No candidate is started after this much time; `None`: no limit.
    pub time: Option<Duration>,
    /// The seed of the order of the candidates after the default.
    pub seed: u64,
    /// A timed run longer than `cutoff` times the best time so far is stopped.
    pub cutoff: Option<f64>,
    /// Rounds of confirmation at the end: the default and the [`Config::finalists`]
    /// fastest candidates are timed once more each, round after round, and their runs
    /// added to their earlier ones, so that the best is not merely the luckiest run.
    pub confirm: usize,
    /// The fastest candidates confirmed besides the default.
    pub finalists: usize,
    /// The fastest candidates whose neighbours are queued at a time; 0: no local
    /// refinement.
    pub refine: usize,
    /// The fraction of [`Config::time`] (else of [`Config::budget`]) after which the
    /// neighbours of the fastest go before the rest of the list; without either limit,
    /// refinement starts when the list is done.
    pub refine_after: f64,
    /// With `Some(t)`, a printed number agrees when it differs from the original's by at
    /// most `t` times the largest magnitude among the numbers of its line in the
    /// original's output ([`crate::evaluate::compare_within`]): the check of candidates
    /// that reassociate reductions, whose rounding differs. `None` (the default): within
    /// [`crate::evaluate::CLOSE`] of the number itself.
    pub line_tolerance: Option<f64>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            jobs: 1,
            runs: 3,
            budget: None,
            time: None,
            seed: 1,
            cutoff: Some(4.0),
            confirm: 3,
            finalists: 3,
            refine: 3,
            refine_after: 0.5,
            line_tolerance: None,
        }
    }
}

/// What became of one candidate.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Output agreed with the original's; the minimum time and every run's.
    Timed {
        /// How the output agreed.
        agreement: Agreement,
        /// The minimum of the runs, in seconds.
        seconds: f64,
        /// Every run's seconds.
        runs: Vec<f64>,
    },
    /// Output agreed, but a run exceeded the cutoff: slower than this many seconds.
    Slow {
        /// How the output agreed.
        agreement: Agreement,
        /// The time after which the run was stopped.
        after: f64,
    },
    /// The output differs from the original's: a bug of the optimizer, listed.
    Mismatch(String),
    /// A step failed.
    Failed(Failure),
}

impl Status {
    /// The time of a timed candidate.
    pub fn seconds(&self) -> Option<f64> {
        match self {
            Status::Timed { seconds, .. } => Some(*seconds),
            _ => None,
        }
    }

    /// A short name: `ok`, `close`, `slow`, `mismatch`, `failed`.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Timed {
                agreement: Agreement::Equal,
                ..
            } => "ok",
            Status::Timed { .. } => "close",
            Status::Slow { .. } => "slow",
            Status::Mismatch(_) => "mismatch",
            Status::Failed(_) => "failed",
        }
    }
}

/// One candidate's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The candidate.
    pub candidate: Candidate,
    /// What became of it.
    pub status: Status,
    /// Whether the result comes from a resumed search.
    pub resumed: bool,
}

/// The original program's run.
#[derive(Clone, Debug, PartialEq)]
pub struct Baseline {
    /// Its output (the reference).
    pub output: String,
    /// Its time (minimum of the runs).
    pub seconds: f64,
}

/// What the search tells its observer.
#[derive(Clone, Debug)]
pub enum Event<'a> {
    /// The original was timed.
    Baseline(&'a Baseline),
    /// The confirmation rounds start, over these candidates.
    Confirming(&'a [Candidate]),
    /// Candidates were added to the queue by the local refinement.
    Added(&'a [Candidate]),
    /// A candidate was started.
    Started(&'a Candidate),
    /// A candidate is done.
    Finished(&'a Outcome),
}

/// The whole result.
#[derive(Clone, Debug)]
pub struct Results {
    /// The original's run.
    pub baseline: Baseline,
    /// The candidates evaluated (or resumed), in the order they finished.
    pub outcomes: Vec<Outcome>,
    /// The candidates not reached within the budget or the time (of the list and of
    /// the refinement's additions).
    pub not_reached: usize,
    /// The candidates whose program was the same text as an earlier candidate's: not
    /// built, run or timed again, and not counted against the budget (a parameter that
    /// changes nothing in a program, such as wide vectors where no vector accumulator
    /// applies).
    pub same_program: usize,
    /// The search's wall time.
    pub elapsed: Duration,
}

impl Results {
    /// The fastest timed outcome.
    pub fn best(&self) -> Option<&Outcome> {
        self.outcomes
            .iter()
            .filter(|o| o.status.seconds().is_some())
            .min_by(|a, b| {
                let (x, y) = (a.status.seconds(), b.status.seconds());
                x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal)
            })
    }

    /// The default candidate's outcome.
    pub fn default_outcome(&self) -> Option<&Outcome> {
        self.outcomes.iter().find(|o| o.candidate.is_default())
    }

    /// The outcomes whose output differs from the original's.
    pub fn mismatches(&self) -> impl Iterator<Item = &Outcome> {
        self.outcomes
            .iter()
            .filter(|o| matches!(o.status, Status::Mismatch(_)))
    }
}

/// The order the candidates are evaluated in: the default pipeline's (the default and
/// its variants) first, the rest by a Fisher–Yates shuffle driven by SplitMix64 from
/// `seed`.
pub fn order(candidates: &[Candidate], seed: u64) -> Vec<usize> {
    let mut rest: Vec<usize> = (0..candidates.len())
        .filter(|&i| candidates[i].structure.is_some())
        .collect();
    pollen_search::SplitMix(seed).shuffle(&mut rest);
    let mut out: Vec<usize> = (0..candidates.len())
        .filter(|&i| candidates[i].structure.is_none())
        .collect();
    out.extend(rest);
    out
}

/// The neighbours of a candidate for the local refinement (e.g.
/// [`crate::evaluate::neighbours`]; ids are assigned by the search).
pub type Neighbours<'a> = &'a (dyn Fn(&Candidate) -> Vec<Candidate> + Sync);

/// Runs the search. `known` holds results of a resumed search by key; `observe` hears
/// every event (from the worker threads, one at a time).
pub fn search(
    candidates: &[Candidate],
    neighbours: Neighbours<'_>,
    evaluator: &dyn Evaluator,
    config: &Config,
    known: &HashMap<String, Status>,
    observe: &mut (dyn FnMut(Event<'_>) + Send),
) -> Result<Results, Failure> {
    let start = Instant::now();
    let quiet = RwLock::new(());
    let settled = Condvar::new();
    let runs = config.runs.max(1);

    // The original: its output is the reference and its time the baseline.
    let original = evaluator.generate(None)?;
    let build = evaluator.build("original", &original)?;
    let output = evaluator.run(&build)?;
    let mut seconds = f64::INFINITY;
    let mut overhead: f64 = 0.0;
    for _ in 0..runs {
        match evaluator.measure(&build, None)? {
            Measured::Seconds { seconds: s, wall } => {
                seconds = seconds.min(s);
                overhead = overhead.max(wall - s);
            }
            Measured::Stopped(after) => {
                return Err(Failure::new(
                    Step::Measure,
                    format!("the original was stopped after {after} s"),
                ))
            }
        }
    }
    let baseline = Baseline { output, seconds };
    observe(Event::Baseline(&baseline));

    // The programs of the candidates a resumed search already knows, before any is
    // evaluated: a candidate that the earlier search left out as the same program as one
    // of them is left out again, whichever of the two comes first in the queue (with
    // several jobs, the earlier search may have evaluated the later one).
    let programs: HashSet<String> = candidates
        .iter()
        .filter(|c| known.contains_key(&c.key()))
        .filter_map(|c| evaluator.generate(Some(c)).ok())
        .collect();
    let shared = Mutex::new(Shared {
        outcomes: Vec::new(),
        builds: HashMap::new(),
        best: None,
        overhead,
        started: 0,
        generating: 0,
        observe,
        queue: order(candidates, config.seed).into_iter().collect(),
        seen: candidates.iter().map(Candidate::key).collect(),
        refined: HashSet::new(),
        programs,
        same_program: 0,
        all: candidates.to_vec(),
        next_id: candidates.iter().map(|c| c.id + 1).max().unwrap_or(0),
    });
    let deadline = config.time.map(|t| start + t);
    let refine_from = |s: &Shared<'_>| -> bool {
        let fraction = config.refine_after.clamp(0.0, 1.0);
        match (config.time, config.budget) {
            (Some(t), _) => start.elapsed() >= t.mul_f64(fraction),
            (None, Some(b)) => s.started as f64 >= b as f64 * fraction,
            (None, None) => s.queue.is_empty(),
        }
    };
    let take = || -> Option<Candidate> {
        let mut s = shared.lock().ok()?;
        loop {
            if config.refine > 0 && (s.queue.is_empty() || refine_from(&s)) {
                s.refine(config.refine, neighbours);
            }
            let index = s.queue.pop_front()?;
            let candidate = s.all[index].clone();
            if let Some(status) = known.get(&candidate.key()) {
                // Its program, so that a candidate left out as the same program in the
                // search resumed is left out again (the list's were generated first).
                if index >= candidates.len() {
                    if let Ok(text) = evaluator.generate(Some(&candidate)) {
                        s.programs.insert(text);
                    }
                }
                s.record(Outcome {
                    candidate,
                    status: status.clone(),
                    resumed: true,
                });
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            if config.budget.is_some_and(|b| s.started >= b) {
                if s.generating == 0 {
                    return None;
                }
                // A candidate being generated may give its start back: wait for it.
                s.queue.push_front(index);
                s = settled.wait_timeout(s, Duration::from_millis(50)).ok()?.0;
                continue;
            }
            s.started += 1;
            s.generating += 1;
            (s.observe)(Event::Started(&candidate));
            return Some(candidate);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..config.jobs.max(1) {
            scope.spawn(|| {
                while let Some(candidate) = take() {
                    let Some((status, build)) = evaluate(
                        &candidate, evaluator, &baseline, runs, config, &quiet, &shared, &settled,
                    ) else {
                        continue;
                    };
                    if let Ok(mut s) = shared.lock() {
                        if let Some(build) = build {
                            s.builds.insert(candidate.id, build);
                        }
                        s.record(Outcome {
                            candidate,
                            status,
                            resumed: false,
                        });
                    }
                }
            });
        }
    });
    let mut shared = shared
        .into_inner()
        .map_err(|_| Failure::new(Step::Measure, "a search thread panicked"))?;
    confirm(evaluator, config, &mut shared);
    let done: HashSet<usize> = shared.outcomes.iter().map(|o| o.candidate.id).collect();
    Ok(Results {
        baseline,
        not_reached: shared.all.len() - done.len() - shared.same_program,
        same_program: shared.same_program,
        outcomes: shared.outcomes,
        elapsed: start.elapsed(),
    })
}

/// The confirmation rounds ([`Config::confirm`]): the default and the fastest
/// candidates timed again, one run each per round, in turn; a candidate from a resumed
/// search is built again first. A failure leaves a candidate's earlier runs as they
/// are.
fn confirm(evaluator: &dyn Evaluator, config: &Config, shared: &mut Shared<'_>) {
    if config.confirm == 0 {
        return;
    }
    let mut chosen: Vec<usize> = fastest(&shared.outcomes)
        .into_iter()
        .take(config.finalists)
        .collect();
    if let Some(k) = shared
        .outcomes
        .iter()
        .position(|o| o.candidate.is_default() && o.status.seconds().is_some())
    {
        if !chosen.contains(&k) {
            chosen.push(k);
        }
    }
    if chosen.len() < 2 {
        return;
    }
    let finalists: Vec<Candidate> = chosen
        .iter()
        .map(|&k| shared.outcomes[k].candidate.clone())
        .collect();
    (shared.observe)(Event::Confirming(&finalists));
    for candidate in &finalists {
        if let std::collections::hash_map::Entry::Vacant(entry) = shared.builds.entry(candidate.id)
        {
            let built = evaluator
                .generate(Some(candidate))
                .and_then(|text| evaluator.build(&format!("candidate{}", candidate.id), &text));
            if let Ok(build) = built {
                entry.insert(build);
            }
        }
    }
    for _ in 0..config.confirm {
        for &k in &chosen {
            let id = shared.outcomes[k].candidate.id;
            let Some(build) = shared.builds.get(&id) else {
                continue;
            };
            if let Ok(Measured::Seconds { seconds: s, .. }) = evaluator.measure(build, None) {
                if let Status::Timed { seconds, runs, .. } = &mut shared.outcomes[k].status {
                    runs.push(s);
                    *seconds = seconds.min(s);
                }
            }
        }
    }
}

/// The positions of the timed outcomes, fastest first.
fn fastest(outcomes: &[Outcome]) -> Vec<usize> {
    let mut timed: Vec<(f64, usize)> = outcomes
        .iter()
        .enumerate()
        .filter_map(|(k, o)| Some((o.status.seconds()?, k)))
        .collect();
    timed.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    timed.into_iter().map(|(_, k)| k).collect()
}

/// The state the workers share.
struct Shared<'o> {
    outcomes: Vec<Outcome>,
    /// The builds of the candidates evaluated, by id (for the confirmation rounds).
    builds: HashMap<usize, Build>,
    best: Option<f64>,
    /// The most that a run's wall clock exceeded its timer's seconds.
    overhead: f64,
    started: usize,
    /// Started candidates whose program is still being generated (any of them may turn
    /// out the same program as an earlier one and give its start back).
    generating: usize,
    observe: &'o mut (dyn FnMut(Event<'_>) + Send),
    /// Every candidate, the list's and the refinement's, by position.
    all: Vec<Candidate>,
    /// The positions in `all` still to evaluate, in order.
    queue: VecDeque<usize>,
    /// The keys of every candidate in `all`.
    seen: HashSet<String>,
    /// The keys of the candidates whose neighbours were queued.
    refined: HashSet<String>,
    /// The program texts generated so far.
    programs: HashSet<String>,
    /// The candidates skipped as the same program as an earlier one.
    same_program: usize,
    /// The id of the next candidate added.
    next_id: usize,
}

impl Shared<'_> {
    /// Queues, at the front, the unseen neighbours of the `count` fastest candidates not
    /// refined yet (among the fastest `count`: a candidate outside them waits until it
    /// is one of them).
    fn refine(&mut self, count: usize, neighbours: Neighbours<'_>) {
        let mut added = Vec::new();
        for k in fastest(&self.outcomes).into_iter().take(count) {
            let candidate = self.outcomes[k].candidate.clone();
            if !self.refined.insert(candidate.key()) {
                continue;
            }
            for mut n in neighbours(&candidate) {
                if self.seen.insert(n.key()) {
                    n.id = self.next_id;
                    self.next_id += 1;
                    added.push(n);
                }
            }
        }
        if added.is_empty() {
            return;
        }
        // Front of the queue, in their order.
        for c in added.iter().rev() {
            self.queue.push_front(self.all.len());
            self.all.push(c.clone());
        }
        (self.observe)(Event::Added(&added));
    }

    fn record(&mut self, outcome: Outcome) {
        if let Some(s) = outcome.status.seconds() {
            self.best = Some(self.best.map_or(s, |b| b.min(s)));
        }
        (self.observe)(Event::Finished(&outcome));
        self.outcomes.push(outcome);
    }
}

/// One candidate through the four steps; `None` when its program is the same text as
/// an earlier candidate's (counted in [`Shared::same_program`], its start given back to
/// the budget). `settled` is told once the candidate's generation is over.
#[allow(clippy::too_many_arguments)]
fn evaluate(
    candidate: &Candidate,
    evaluator: &dyn Evaluator,
    baseline: &Baseline,
    runs: usize,
    config: &Config,
    quiet: &RwLock<()>,
    shared: &Mutex<Shared<'_>>,
    settled: &Condvar,
) -> Option<(Status, Option<Build>)> {
    let generated = {
        let _shared = quiet.read();
        evaluator.generate(Some(candidate))
    };
    let same = match shared.lock() {
        Ok(mut s) => {
            s.generating -= 1;
            let same = generated
                .as_ref()
                .is_ok_and(|text| !s.programs.insert(text.clone()));
            if same {
                s.started -= 1;
                s.same_program += 1;
            }
            same
        }
        Err(_) => false,
    };
    settled.notify_all();
    if same {
        return None;
    }
    let text = match generated {
        Ok(text) => text,
        Err(failure) => return Some((Status::Failed(failure), None)),
    };
    Some(measure(
        candidate, &text, evaluator, baseline, runs, config, quiet, shared,
    ))
}

/// A generated candidate's build, check and timed runs.
#[allow(clippy::too_many_arguments)]
fn measure(
    candidate: &Candidate,
    text: &str,
    evaluator: &dyn Evaluator,
    baseline: &Baseline,
    runs: usize,
    config: &Config,
    quiet: &RwLock<()>,
    shared: &Mutex<Shared<'_>>,
) -> (Status, Option<Build>) {
    let checked = {
        let _shared = quiet.read();
        prepare(candidate, text, evaluator, baseline, config.line_tolerance)
    };
    let (build, agreement) = match checked {
        Ok(Ok(pair)) => pair,
        Ok(Err(difference)) => return (Status::Mismatch(difference), None),
        Err(failure) => return (Status::Failed(failure), None),
    };
    let mut times = Vec::new();
    for _ in 0..runs {
        let (best, overhead) = shared
            .lock()
            .map(|s| (s.best, s.overhead))
            .unwrap_or((None, 0.0));
        let limit = config.cutoff.zip(best).map(|(factor, best)| {
            Duration::from_secs_f64((best * factor).max(0.05) + overhead.max(0.0) + 0.5)
        });
        let measured = {
            let _alone = quiet.write();
            evaluator.measure(&build, limit)
        };
        match measured {
            Ok(Measured::Seconds { seconds, wall }) => {
                times.push(seconds);
                if let Ok(mut s) = shared.lock() {
                    s.overhead = s.overhead.max(wall - seconds);
                }
            }
            Ok(Measured::Stopped(after)) => return (Status::Slow { agreement, after }, None),
            Err(failure) => return (Status::Failed(failure), None),
        }
    }
    let seconds = times.iter().copied().fold(f64::INFINITY, f64::min);
    let status = Status::Timed {
        agreement,
        seconds,
        runs: times,
    };
    (status, Some(build))
}

/// Build, run and compare: the build and the agreement, or the difference.
fn prepare(
    candidate: &Candidate,
    text: &str,
    evaluator: &dyn Evaluator,
    baseline: &Baseline,
    line_tolerance: Option<f64>,
) -> Result<Result<(Build, Agreement), String>, Failure> {
    let build = evaluator.build(&format!("candidate{}", candidate.id), text)?;
    let output = evaluator.run(&build)?;
    let agreement = match line_tolerance {
        None => compare(&baseline.output, &output),
        Some(t) => compare_within(&baseline.output, &output, t),
    };
    Ok(agreement.map(|agreement| (build, agreement)))
}
