//! Scheduling of 200 generated random affine programs (`pollen_testkit::random`, seeds
//! 0 to 199): every program gets a schedule from Pluto (smart fusion) and from
//! Feautrier, and every schedule passes the independent legality check. Programs are
//! handled on two threads; every failure is reported at the end with its seed.

use std::sync::Mutex;

use pollen_sched::{legality, schedule_with_report, Algo, Fuse, Options};
use pollen_testkit::random::{random_program, Size};
use pollen_testkit::value_deps;

/// The number of programs.
const COUNT: u64 = 200;

/// The failures of one program under every scheduler configuration in `configs`.
fn check_seed(seed: u64, configs: &[(Algo, Fuse)]) -> Vec<String> {
    let program = random_program(seed, Size::default());
    let scop = match pollen_frontend::extract(&program.file()) {
        Ok(extracted) => extracted.scop,
        Err(e) => return vec![format!("seed {seed}: extraction: {e}")],
    };
    let deps = value_deps(&scop);
    let mut failures = Vec::new();
    for &(algo, fuse) in configs {
        let options = Options {
            algo,
            fuse,
            ..Options::default()
        };
        match schedule_with_report(&scop, &deps, &options) {
            Ok(outcome) => match legality::check(&deps, &outcome.tree) {
                Ok(report) if report.is_legal() => {}
                Ok(report) => failures.push(format!(
                    "seed {seed} {algo:?} {fuse:?}: illegal schedule: {:?}",
                    report.violations
                )),
                Err(e) => failures.push(format!("seed {seed} {algo:?} {fuse:?}: checker: {e:?}")),
            },
            Err(e) => failures.push(format!("seed {seed} {algo:?} {fuse:?}: {e}")),
        }
    }
    failures
}

#[test]
fn random_programs_get_legal_schedules() {
    let configs = [(Algo::Pluto, Fuse::Smart), (Algo::Feautrier, Fuse::Smart)];
    let queue = Mutex::new(0..COUNT);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let next = queue.lock().expect("queue").next();
                let Some(seed) = next else { break };
                let found = check_seed(seed, &configs);
                failures.lock().expect("failures").extend(found);
            });
        }
    });
    let mut failures = failures.into_inner().expect("failures");
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} failure(s) over {COUNT} programs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
