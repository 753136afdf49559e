//! The search loop against an evaluator that runs nothing: a table of candidate
//! outputs and times. Checks the order, the budget, resumed results, mismatches and
//! failures, the cutoff, the confirmation rounds, and that a timing run never overlaps
//! any other step.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use pollen_search::FusionStructure;
use pollen_tune::evaluate::{Build, Candidate, Evaluator, Failure, Inner, Knobs, Measured, Step};
use pollen_tune::results::{from_csv, to_csv, to_json};
use pollen_tune::tuner::{order, search, Config, Event, Status};

/// What the fake program of a candidate does.
#[derive(Clone, Copy)]
enum Behaviour {
    /// Prints the original's output and takes this many seconds.
    Fast(f64),
    /// Prints something else.
    Wrong,
    /// Fails to build.
    NoBuild,
}

struct Fake {
    behaviour: HashMap<usize, Behaviour>,
    original_seconds: f64,
    /// Wall-clock seconds of every run beyond its timer's (a set-up the timer leaves out).
    overhead: f64,
    /// Steps running now (generate, build, run) and timing runs running now.
    busy: AtomicUsize,
    timing: AtomicUsize,
    overlaps: AtomicUsize,
    measured: Mutex<Vec<String>>,
    /// Candidates whose program is another candidate's text.
    same_as: HashMap<usize, usize>,
    /// Milliseconds that generating a candidate's program takes beyond the step's.
    generating: HashMap<usize, u64>,
}

impl Fake {
    fn new(behaviour: HashMap<usize, Behaviour>) -> Fake {
        Fake {
            behaviour,
            original_seconds: 1.0,
            overhead: 0.0,
            busy: AtomicUsize::new(0),
            timing: AtomicUsize::new(0),
            overlaps: AtomicUsize::new(0),
            measured: Mutex::new(Vec::new()),
            same_as: HashMap::new(),
            generating: HashMap::new(),
        }
    }

    /// The program text of candidate `id`.
    fn text(&self, id: usize) -> String {
        format!("candidate{}", self.same_as.get(&id).copied().unwrap_or(id))
    }

    fn id(name: &str) -> Option<usize> {
        name.strip_prefix("candidate")?.parse().ok()
    }

    fn step<T>(&self, f: impl FnOnce() -> T) -> T {
        self.busy.fetch_add(1, Ordering::SeqCst);
        if self.timing.load(Ordering::SeqCst) > 0 {
            self.overlaps.fetch_add(1, Ordering::SeqCst);
        }
        std::thread::sleep(Duration::from_millis(1));
        let out = f();
        self.busy.fetch_sub(1, Ordering::SeqCst);
        out
    }
}

impl Evaluator for Fake {
    fn generate(&self, candidate: Option<&Candidate>) -> Result<String, Failure> {
        self.step(|| {
            if let Some(ms) = candidate.and_then(|c| self.generating.get(&c.id)) {
                std::thread::sleep(Duration::from_millis(*ms));
            }
            Ok(candidate.map_or("original".to_string(), |c| self.text(c.id)))
        })
    }

    fn build(&self, name: &str, text: &str) -> Result<Build, Failure> {
        self.step(|| {
            if let Some(id) = Fake::id(name) {
                assert_eq!(self.text(id), text);
            }
            if let Some(Behaviour::NoBuild) = Fake::id(name).and_then(|i| self.behaviour.get(&i)) {
                return Err(Failure::new(Step::Build, "no"));
            }
            Ok(Build {
                check: PathBuf::from(name),
                timed: PathBuf::from(name),
            })
        })
    }

    fn run(&self, build: &Build) -> Result<String, Failure> {
        self.step(|| {
            let name = build.check.display().to_string();
            Ok(match Fake::id(&name).and_then(|i| self.behaviour.get(&i)) {
                Some(Behaviour::Wrong) => "sum 2.5\n".to_string(),
                _ => "sum 1.5\n".to_string(),
            })
        })
    }

    fn measure(&self, build: &Build, limit: Option<Duration>) -> Result<Measured, Failure> {
        self.timing.fetch_add(1, Ordering::SeqCst);
        if self.busy.load(Ordering::SeqCst) > 0 || self.timing.load(Ordering::SeqCst) > 1 {
            self.overlaps.fetch_add(1, Ordering::SeqCst);
        }
        std::thread::sleep(Duration::from_millis(1));
        let name = build.timed.display().to_string();
        self.measured.lock().unwrap().push(name.clone());
        let seconds = match Fake::id(&name).and_then(|i| self.behaviour.get(&i)) {
            Some(Behaviour::Fast(s)) => *s,
            _ => self.original_seconds,
        };
        self.timing.fetch_sub(1, Ordering::SeqCst);
        let wall = seconds + self.overhead;
        Ok(match limit {
            Some(l) if wall > l.as_secs_f64() => Measured::Stopped(l.as_secs_f64()),
            _ => Measured::Seconds { seconds, wall },
        })
    }
}

fn candidates(n: usize) -> Vec<Candidate> {
    let names: Vec<String> = (0..2).map(|i| format!("S{i}")).collect();
    let mut out = vec![Candidate {
        id: 0,
        structure: None,
        inner: Inner::Tiled,
        knobs: Knobs::default(),
    }];
    let structures = [
        FusionStructure::from_ranks(&[0, 0], names.clone()).unwrap(),
        FusionStructure::from_ranks(&[0, 1], names.clone()).unwrap(),
        FusionStructure::from_ranks(&[1, 0], names).unwrap(),
    ];
    'outer: for s in structures {
        for inner in Inner::ALL {
            if out.len() == n {
                break 'outer;
            }
            out.push(Candidate {
                id: out.len(),
                structure: Some(s.clone()),
                inner,
                knobs: Knobs::default(),
            });
        }
    }
    out
}

fn config() -> Config {
    Config {
        jobs: 3,
        runs: 2,
        confirm: 0,
        ..Config::default()
    }
}

/// No local refinement.
fn none(_: &Candidate) -> Vec<Candidate> {
    Vec::new()
}

#[test]
fn the_order_starts_with_the_default_and_depends_on_the_seed_only() {
    let all = candidates(10);
    let a = order(&all, 7);
    assert_eq!(a[0], 0);
    assert_eq!(a, order(&all, 7));
    let mut sorted = a.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..10).collect::<Vec<_>>());
    assert!(
        (1..20).any(|seed| order(&all, seed) != a),
        "the seed changes the order"
    );
}

#[test]
fn the_fastest_correct_candidate_wins_and_wrong_ones_are_listed() {
    let all = candidates(10);
    let behaviour = HashMap::from([
        (0, Behaviour::Fast(0.5)),
        (3, Behaviour::Fast(0.2)),
        (4, Behaviour::Wrong),
        (5, Behaviour::NoBuild),
        // Faster than any, but wrong: never timed.
        (6, Behaviour::Wrong),
        (7, Behaviour::Fast(0.3)),
    ]);
    let fake = Fake::new(behaviour);
    let mut events = 0;
    let results = search(&all, &none, &fake, &config(), &HashMap::new(), &mut |_| {
        events += 1
    })
    .unwrap();
    assert_eq!(results.outcomes.len(), 10);
    assert_eq!(results.not_reached, 0);
    assert_eq!(results.baseline.seconds, 1.0);
    let best = results.best().unwrap();
    assert_eq!(best.candidate.id, 3);
    assert_eq!(best.status.seconds(), Some(0.2));
    let mismatched: Vec<usize> = results.mismatches().map(|o| o.candidate.id).collect();
    assert_eq!(mismatched.len(), 2);
    assert!(mismatched.contains(&4) && mismatched.contains(&6));
    let failed = results
        .outcomes
        .iter()
        .find(|o| o.candidate.id == 5)
        .unwrap();
    assert!(matches!(&failed.status, Status::Failed(f) if f.step == Step::Build));
    // Wrong programs were never timed.
    let measured = fake.measured.lock().unwrap();
    assert!(!measured
        .iter()
        .any(|m| m == "candidate4" || m == "candidate6"));
    // One baseline, ten starts and ten ends.
    assert_eq!(events, 21);
    assert_eq!(
        fake.overlaps.load(Ordering::SeqCst),
        0,
        "a timing run overlapped"
    );
}

/// Candidates 2 and 3 print candidate 1's program: of the three, only the first
/// reached is built, run and timed; the other two are left out, and the budget of five
/// reaches two more candidates in their stead, also when the budget is spent while
/// their programs are still being generated (slowly, here).
#[test]
fn a_program_seen_before_is_left_out_and_costs_no_budget() {
    let all = candidates(9);
    let mut fake = Fake::new(HashMap::new());
    fake.same_as = HashMap::from([(2, 1), (3, 1)]);
    fake.generating = HashMap::from([(2, 40), (3, 40)]);
    let cfg = Config {
        budget: Some(5),
        seed: 3,
        ..config()
    };
    let results = search(&all, &none, &fake, &cfg, &HashMap::new(), &mut |_| {}).unwrap();
    let order = order(&all, cfg.seed);
    let first_of_three = *order.iter().find(|k| [1, 2, 3].contains(*k)).unwrap();
    let reached = order.iter().position(|k| [1, 2, 3].contains(k)).unwrap();
    assert!(
        reached < 5,
        "the three are reached within the budget: {order:?}"
    );
    assert_eq!(results.same_program, 2);
    assert_eq!(results.outcomes.len(), 5);
    assert_eq!(results.not_reached, 9 - 5 - 2);
    let ids: Vec<usize> = results.outcomes.iter().map(|o| o.candidate.id).collect();
    assert!(ids.contains(&first_of_three), "{ids:?}");
    assert_eq!(
        ids.iter().filter(|k| [1, 2, 3].contains(*k)).count(),
        1,
        "{ids:?}"
    );
    let measured = fake.measured.lock().unwrap();
    assert_eq!(
        measured
            .iter()
            .filter(|m| m.as_str() == "candidate1"
                || m.as_str() == "candidate2"
                || m.as_str() == "candidate3")
            .count(),
        cfg.runs,
        "one of the three timed, {} runs: {measured:?}",
        cfg.runs
    );
}

#[test]
fn a_budget_stops_the_search_and_the_default_always_runs() {
    let all = candidates(10);
    let fake = Fake::new(HashMap::new());
    let cfg = Config {
        budget: Some(4),
        ..config()
    };
    let results = search(&all, &none, &fake, &cfg, &HashMap::new(), &mut |_| {}).unwrap();
    assert_eq!(results.outcomes.len(), 4);
    assert_eq!(results.not_reached, 6);
    assert!(results.default_outcome().is_some());
    let expected: Vec<usize> = order(&all, cfg.seed).into_iter().take(4).collect();
    let mut got: Vec<usize> = results.outcomes.iter().map(|o| o.candidate.id).collect();
    got.sort_unstable();
    let mut expected_sorted = expected.clone();
    expected_sorted.sort_unstable();
    assert_eq!(got, expected_sorted);
}

#[test]
fn slow_candidates_are_stopped_at_the_cutoff() {
    let all = candidates(4);
    // The default first sets the best at 0.1 s; candidate 2 takes 10 s.
    let behaviour = HashMap::from([(0, Behaviour::Fast(0.1)), (2, Behaviour::Fast(10.0))]);
    let fake = Fake::new(behaviour);
    let cfg = Config {
        jobs: 1,
        cutoff: Some(3.0),
        ..config()
    };
    let results = search(&all, &none, &fake, &cfg, &HashMap::new(), &mut |_| {}).unwrap();
    let slow = results
        .outcomes
        .iter()
        .find(|o| o.candidate.id == 2)
        .unwrap();
    assert!(
        matches!(slow.status, Status::Slow { .. }),
        "{:?}",
        slow.status
    );
}

#[test]
fn the_cutoff_allows_for_the_set_up_the_timer_leaves_out() {
    // Every run spends 5 s setting up, outside the timer: a candidate at twice the
    // default's time is timed, one at a hundred times is stopped.
    let all = candidates(4);
    let behaviour = HashMap::from([
        (0, Behaviour::Fast(0.1)),
        (1, Behaviour::Fast(0.2)),
        (2, Behaviour::Fast(10.0)),
        (3, Behaviour::Fast(0.1)),
    ]);
    let mut fake = Fake::new(behaviour);
    fake.overhead = 5.0;
    let cfg = Config {
        jobs: 1,
        cutoff: Some(3.0),
        ..config()
    };
    let results = search(&all, &none, &fake, &cfg, &HashMap::new(), &mut |_| {}).unwrap();
    let status = |id: usize| {
        results
            .outcomes
            .iter()
            .find(|o| o.candidate.id == id)
            .unwrap()
            .status
            .clone()
    };
    assert_eq!(status(1).seconds(), Some(0.2));
    assert!(matches!(status(2), Status::Slow { .. }), "{:?}", status(2));
}

#[test]
fn confirmation_rounds_time_the_finalists_again() {
    let all = candidates(6);
    let behaviour = HashMap::from([(0, Behaviour::Fast(0.5)), (2, Behaviour::Fast(0.25))]);
    let fake = Fake::new(behaviour);
    let cfg = Config {
        confirm: 4,
        finalists: 1,
        ..config()
    };
    let mut confirming = Vec::new();
    let results = search(&all, &none, &fake, &cfg, &HashMap::new(), &mut |e| {
        if let Event::Confirming(c) = e {
            confirming = c.iter().map(|c| c.id).collect();
        }
    })
    .unwrap();
    confirming.sort_unstable();
    assert_eq!(confirming, [0, 2]);
    for o in &results.outcomes {
        let Status::Timed { runs, .. } = &o.status else {
            panic!("{:?}", o.status);
        };
        let expected = if [0, 2].contains(&o.candidate.id) {
            2 + 4
        } else {
            2
        };
        assert_eq!(runs.len(), expected, "{}", o.candidate);
    }
}

#[test]
fn a_resumed_search_reuses_its_csv() {
    let all = candidates(7);
    let behaviour = HashMap::from([(1, Behaviour::Fast(0.25)), (3, Behaviour::Wrong)]);
    let fake = Fake::new(behaviour.clone());
    let cfg = Config {
        budget: Some(4),
        ..config()
    };
    let first = search(&all, &none, &fake, &cfg, &HashMap::new(), &mut |_| {}).unwrap();
    let csv = to_csv(&first);
    assert!(csv.starts_with(pollen_tune::results::CSV_HEADER));
    let known = from_csv(&csv).unwrap();
    assert_eq!(known.len(), 4);
    let json = to_json(&first);
    assert!(json.contains("\"original_seconds\": 1.000000"));

    let again = Fake::new(behaviour);
    let second = search(
        &all,
        &none,
        &again,
        &Config {
            budget: None,
            ..cfg
        },
        &known,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(second.outcomes.len(), 7);
    assert_eq!(second.outcomes.iter().filter(|o| o.resumed).count(), 4);
    // Only the three candidates not in the CSV were timed now.
    let measured = again.measured.lock().unwrap();
    let candidates_timed: std::collections::BTreeSet<&String> = measured
        .iter()
        .filter(|m| m.starts_with("candidate"))
        .collect();
    assert!(candidates_timed.len() <= 3, "{candidates_timed:?}");
    for o in second.outcomes.iter().filter(|o| o.resumed) {
        assert_eq!(&o.status, known.get(&o.candidate.key()).unwrap());
    }
}

#[test]
fn csv_rejects_foreign_files_and_quotes_fields() {
    assert!(from_csv("").is_err());
    assert!(from_csv("a,b\n1,2\n").is_err());
    let header = pollen_tune::results::CSV_HEADER;
    let text = format!(
        "{header}\n1,{{S0 S1}} tiled,mismatch,,,,,\"word 3: `1,5`, the original has \"\"2\"\"\"\n"
    );
    let known = from_csv(&text).unwrap();
    assert_eq!(
        known.get("{S0 S1} tiled"),
        Some(&Status::Mismatch(
            "word 3: `1,5`, the original has \"2\"".to_string()
        ))
    );
    let bad = format!("{header}\n1,x,ok,notanumber,,,,\n");
    assert!(from_csv(&bad).is_err());
}

#[test]
fn the_refinement_descends_from_the_fastest_candidates() {
    // Without a time or budget, refinement starts when the list is done. One job, so
    // the ids of the added candidates are known: #3 is the fastest of the list; its
    // neighbours are #4 (faster) and #5; #4's neighbour #6 is faster still; #6 has none.
    let all = candidates(4);
    let behaviour = HashMap::from([
        (0, Behaviour::Fast(0.5)),
        (3, Behaviour::Fast(0.4)),
        (4, Behaviour::Fast(0.3)),
        (5, Behaviour::Fast(0.6)),
        (6, Behaviour::Fast(0.2)),
    ]);
    let fake = Fake::new(behaviour);
    let chain = |c: &Candidate| -> Vec<Candidate> {
        let with = |sizes: &[i64]| Candidate {
            knobs: Knobs {
                tile_sizes: Some(sizes.to_vec()),
                ..c.knobs.clone()
            },
            ..c.clone()
        };
        match c.knobs.tile_sizes.as_deref() {
            None => vec![with(&[16]), with(&[32])],
            Some([16]) => vec![with(&[16, 64]), with(&[32])],
            _ => Vec::new(),
        }
    };
    let cfg = Config {
        jobs: 1,
        refine: 1,
        ..config()
    };
    let mut added = Vec::new();
    let results = search(&all, &chain, &fake, &cfg, &HashMap::new(), &mut |e| {
        if let Event::Added(a) = e {
            added.push(a.iter().map(|c| (c.id, c.key())).collect::<Vec<_>>());
        }
    })
    .unwrap();
    assert_eq!(
        added,
        [
            vec![
                (4, "{S0 S1} original-order tiles=16".to_string()),
                (5, "{S0 S1} original-order tiles=32".to_string())
            ],
            // #4's second neighbour is #5 again: queued once only.
            vec![(6, "{S0 S1} original-order tiles=16,64".to_string())],
        ]
    );
    assert_eq!(results.outcomes.len(), 7);
    assert_eq!(results.not_reached, 0);
    let best = results.best().unwrap();
    assert_eq!(best.candidate.id, 6);
    assert_eq!(results.default_outcome().unwrap().candidate.id, 0);
}

#[test]
fn without_refinement_nothing_is_added() {
    let all = candidates(4);
    let fake = Fake::new(HashMap::from([(3, Behaviour::Fast(0.1))]));
    let cfg = Config {
        refine: 0,
        ..config()
    };
    let results = search(
        &all,
        &pollen_tune::evaluate::neighbours,
        &fake,
        &cfg,
        &HashMap::new(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(results.outcomes.len(), 4);
    // With it, the fastest's neighbours are tried.
    let fake = Fake::new(HashMap::from([(3, Behaviour::Fast(0.1))]));
    let results = search(
        &all,
        &pollen_tune::evaluate::neighbours,
        &fake,
        &config(),
        &HashMap::new(),
        &mut |_| {},
    )
    .unwrap();
    assert!(results.outcomes.len() > 4);
    assert!(results
        .outcomes
        .iter()
        .any(|o| o.candidate.key() == "{S0 S1} original-order sequential"));
}

#[test]
fn sub_millisecond_times_keep_their_digits() {
    use pollen_tune::results::seconds_text;
    assert_eq!(seconds_text(1.5), "1.5000");
    assert_eq!(seconds_text(0.0123), "0.0123");
    assert_eq!(seconds_text(0.001234), "0.001234");
    assert_eq!(seconds_text(0.0000456), "4.560e-5");
    assert_eq!(seconds_text(0.0), "0.0000");
}
