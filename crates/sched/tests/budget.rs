//! Scheduling within a budget: a tiny budget stops it with `Error::LimitExceeded`,
//! through `schedule_with` as through `Options::budget`.

use pollen_presburger::Budget;
use pollen_sched::{schedule, schedule_with, Algo, Error, Options};

#[test]
fn a_tiny_budget_stops_the_schedulers() {
    let scop = pollen_testkit::kernel_scop("gemm");
    let deps = pollen_testkit::value_deps(&scop);
    for algo in [Algo::Pluto, Algo::Feautrier] {
        let options = Options {
            algo,
            ..Default::default()
        };
        let e = schedule_with(&scop, &deps, &options, &mut Budget::new(10)).unwrap_err();
        assert_eq!(e, Error::LimitExceeded);
        assert_eq!(e.to_string(), "scheduling exceeded its budget");
        let options = Options {
            budget: Some(10),
            ..options
        };
        assert_eq!(
            schedule(&scop, &deps, &options).unwrap_err(),
            Error::LimitExceeded
        );
    }
}

#[test]
fn an_ample_budget_gives_the_unlimited_schedule() {
    let scop = pollen_testkit::kernel_scop("jacobi-2d");
    let deps = pollen_testkit::value_deps(&scop);
    let options = Options::default();
    let mut budget = Budget::new(10_000_000);
    let limited = schedule_with(&scop, &deps, &options, &mut budget).unwrap();
    let unlimited = schedule(&scop, &deps, &options).unwrap();
    assert_eq!(limited.to_string(), unlimited.to_string());
    assert!(
        budget.remaining().unwrap() < 10_000_000,
        "scheduling spends steps"
    );
}

#[test]
fn a_tiny_budget_stops_the_legality_checker() {
    let scop = pollen_testkit::kernel_scop("gemm");
    let deps = pollen_testkit::value_deps(&scop);
    let e = pollen_sched::legality::check_with(&deps, &scop.schedule, &mut Budget::new(10))
        .unwrap_err();
    assert_eq!(e, pollen_sched::legality::Error::LimitExceeded);
}
