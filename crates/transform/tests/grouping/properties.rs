//! Random small graphs against brute force: the DP's grouping is always valid (each
//! stage in exactly one group, groups connected, the graph of groups acyclic), its cost
//! is the sum of its groups' costs and never below the exhaustive optimum, and on chains
//! it is the optimum. Seeded (`POLLEN_QC_SEED=<n>` explores others).

use std::sync::atomic::{AtomicUsize, Ordering};

use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

use pollen_transform::grouping::{
    check_grouping, dp_grouping, greedy_grouping, incremental_grouping, Cost, DpOptions,
    IncrementalOptions, StageGraph,
};

use crate::pipelines::{brute_force, chain, dag, random_cost};

/// A random DAG of 1 to 7 stages (edges from lower to higher index) and a cost seed.
#[derive(Clone, Debug)]
struct RandomDag {
    n: usize,
    edges: Vec<(usize, usize)>,
    seed: u64,
}

impl Arbitrary for RandomDag {
    fn arbitrary(g: &mut Gen) -> RandomDag {
        let n = 1 + usize::arbitrary(g) % 7;
        let density = 1 + u8::arbitrary(g) % 3;
        let mut edges = Vec::new();
        for b in 1..n {
            for a in 0..b {
                if u8::arbitrary(g) % 4 < density {
                    edges.push((a, b));
                }
            }
        }
        RandomDag {
            n,
            edges,
            seed: u64::arbitrary(g),
        }
    }
}

fn check<A: quickcheck::Testable>(tests: u64, prop: A) {
    let seed = std::env::var("POLLEN_QC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_2024_u64);
    QuickCheck::new()
        .rng(Gen::from_size_and_seed(100, seed))
        .tests(tests)
        .max_tests(tests * 4)
        .quickcheck(prop);
}

fn total(groups: &[Vec<usize>], seed: u64) -> Cost {
    let mut cost = random_cost(seed);
    groups.iter().fold(Cost::zero(), |acc, h| acc + cost(h))
}

static CHECKED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn dp_is_valid_and_bounded_by_brute_force() {
    fn prop(d: RandomDag) -> TestResult {
        let g: StageGraph = dag(d.n, &d.edges);
        let found = match dp_grouping(&g, random_cost(d.seed), &DpOptions::default()) {
            Ok(found) => found,
            Err(e) => return TestResult::error(format!("{e}")),
        };
        if let Err(e) = check_grouping(&g, &found.groups) {
            return TestResult::error(format!("{e}: {:?} {:?}", found.groups, d));
        }
        if total(&found.groups, d.seed) != found.cost {
            return TestResult::error("cost is not the sum of the groups' costs");
        }
        let (best, _) = brute_force(&g, &mut random_cost(d.seed));
        if found.cost < best {
            return TestResult::error("below the exhaustive optimum");
        }
        let limited = DpOptions {
            max_group_size: Some(2),
            ..DpOptions::default()
        };
        match dp_grouping(&g, random_cost(d.seed), &limited) {
            Ok(b) if b.groups.iter().all(|h| h.len() <= 2) => {
                if check_grouping(&g, &b.groups).is_err() {
                    return TestResult::error("bounded grouping invalid");
                }
            }
            _ => return TestResult::error("bounded search failed"),
        }
        let options = IncrementalOptions {
            initial_limit: d.n,
            step: None,
            limits: DpOptions::default(),
        };
        match incremental_grouping(&g, random_cost(d.seed), &options) {
            Ok(inc) if inc.grouping == found => {}
            _ => return TestResult::error("incremental with l = |V| differs from the DP"),
        }
        match greedy_grouping(&g, random_cost(d.seed)) {
            Ok(greedy) if check_grouping(&g, &greedy.groups).is_ok() => {}
            _ => return TestResult::error("greedy grouping invalid"),
        }
        CHECKED.fetch_add(1, Ordering::SeqCst);
        TestResult::passed()
    }
    check(300, prop as fn(RandomDag) -> TestResult);
    let checked = CHECKED.load(Ordering::SeqCst);
    assert!(checked >= 300, "only {checked} random graphs were checked");
}

static CHAINS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn dp_is_optimal_on_chains() {
    fn prop(n: u8, seed: u64) -> TestResult {
        let n = 1 + (n % 8) as usize;
        let g = chain(n);
        let found = dp_grouping(&g, random_cost(seed), &DpOptions::default()).unwrap();
        let (best, valid) = brute_force(&g, &mut random_cost(seed));
        if valid != 1 << (n - 1) || found.cost != best || found.memo_states != n * (n + 1) / 2 {
            return TestResult::error(format!("n = {n}: {} vs {best}", found.cost));
        }
        CHAINS.fetch_add(1, Ordering::SeqCst);
        TestResult::passed()
    }
    check(200, prop as fn(u8, u64) -> TestResult);
    let checked = CHAINS.load(Ordering::SeqCst);
    assert!(checked >= 200, "only {checked} chains were checked");
}
