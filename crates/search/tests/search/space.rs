//! The search space of a scop: Table 1's statistics, the schedules of the structures
//! (checked by the independent legality checker) and the sampled enumeration of a
//! large F¹.

use pollen_arith::Int;
use pollen_presburger::Budget;
use pollen_sched::legality;
use pollen_search::encoding::Encoding;
use pollen_search::space::o_constraints;
use pollen_search::{ordered_bell, Limits, Space};

use crate::common::{atax_c, gemver_c, program};

fn space(c: &str) -> Space {
    let scop = pollen_frontend::extract(c).unwrap().scop;
    Space::new(&scop, &mut Budget::unlimited()).unwrap()
}

#[test]
fn o_closed_forms_equal_the_encoding() {
    for n in 1..=5 {
        let stats = Encoding::new(n, 1).unwrap().stats().unwrap();
        assert_eq!(stats.dims, n * (n - 1), "n = {n}");
        assert_eq!(stats.constraints, o_constraints(n), "n = {n}");
        assert_eq!(stats.points, ordered_bell(n), "n = {n}");
    }
    // T3: the ordered Bell numbers, n = 14 included.
    let expected = [1, 1, 3, 13, 75, 541, 4683, 47293, 545835];
    for (n, e) in expected.iter().enumerate() {
        assert_eq!(ordered_bell(n), Int::from(*e as i64));
    }
    assert_eq!(ordered_bell(14).to_string(), "10641342970443");
    // T2.
    assert_eq!(o_constraints(14), 3003);
}

#[test]
fn atax_space_has_table_1s_counts() {
    let s = space(&atax_c());
    let p = s.program();
    assert_eq!((p.loops, p.statements, p.references), (4, 4, 10));
    assert_eq!(s.o_stats().dims, 12);
    assert_eq!(s.o_stats().constraints, 58);
    assert_eq!(s.o_stats().points, Int::from(75));
    assert_eq!(s.f1_stats().points, Int::from(16));
    assert!(s.f1_counted() && !s.sampled());
    assert_eq!(s.structures().len(), 16);
}

#[test]
fn every_candidate_schedule_is_legal() {
    for c in [atax_c(), gemver_c()] {
        let s = space(&c);
        for structure in s.structures() {
            for tree in [
                s.schedule(structure, None).unwrap().tree,
                s.embed(structure).unwrap(),
            ] {
                let report = legality::check(s.dependences().as_slice(), &tree).unwrap();
                assert!(report.is_legal(), "{structure}: {report:?}");
            }
        }
    }
}

/// `n` independent statements each writing its own array, with a chain of
/// dependences through `B` between the first two.
fn independent(n: usize) -> String {
    let arrays: Vec<String> = (0..n).map(|k| format!("X{k}")).collect();
    let refs: Vec<&str> = arrays.iter().map(String::as_str).collect();
    let mut body = String::new();
    for a in &arrays {
        body.push_str(&format!("for (i = 0; i < N; i++)\n  {a}[i] = i;\n"));
    }
    program(&[], &refs, &body)
}

#[test]
fn a_large_f1_is_sampled_and_the_sample_depends_on_the_seed() {
    let scop = pollen_frontend::extract(&independent(8)).unwrap().scop;
    let limits = Limits {
        structures: 50,
        seed: 3,
        count: 1_000,
    };
    let s = Space::with_limits(&scop, &limits, &mut Budget::unlimited()).unwrap();
    // Every total preorder of 8 independent statements is legal: 545835 > 1000.
    assert!(s.sampled());
    assert!(!s.f1_counted());
    assert_eq!(s.f1_stats().points, Int::from(1_000));
    assert_eq!(s.structures().len(), 50);
    let again = Space::with_limits(&scop, &limits, &mut Budget::unlimited()).unwrap();
    assert_eq!(
        s.structures(),
        again.structures(),
        "the sample is reproducible"
    );
    let other = Space::with_limits(
        &scop,
        &Limits { seed: 4, ..limits },
        &mut Budget::unlimited(),
    )
    .unwrap();
    assert_ne!(s.structures(), other.structures());
    // A sample holds distinct structures.
    let distinct: std::collections::BTreeSet<Vec<usize>> =
        s.structures().iter().map(|x| x.ranks()).collect();
    assert_eq!(distinct.len(), 50);
    // A small space is enumerated whole.
    let small = pollen_frontend::extract(&independent(3)).unwrap().scop;
    let whole = Space::with_limits(&small, &limits, &mut Budget::unlimited()).unwrap();
    assert!(!whole.sampled());
    assert_eq!(whole.f1_stats().points, Int::from(13));
}

#[test]
fn a_budget_stops_the_space() {
    let scop = pollen_frontend::extract(&independent(8)).unwrap().scop;
    let err = Space::new(&scop, &mut Budget::new(1_000)).unwrap_err();
    assert_eq!(err, pollen_search::Error::LimitExceeded);
}
