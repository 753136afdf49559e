//! The searches: memo-state counts, optimality on chains, validity on the graph that
//! breaks the literal algorithm, the greedy baseline, the bounded incremental search, and
//! the graph's input checks.

use pollen_transform::grouping::{
    check_grouping, dp_grouping, greedy_grouping, incremental_grouping, Cost, Dep, DpOptions, Edge,
    Error, IncrementalOptions, Stage, StageGraph,
};

use crate::pipelines::{brute_force, chain, dag, harris, random_cost, table_cost, unsharp};

fn names(graph: &StageGraph, groups: &[Vec<usize>]) -> Vec<Vec<String>> {
    groups
        .iter()
        .map(|g| g.iter().map(|&s| graph.stages()[s].name.clone()).collect())
        .collect()
}

/// P1: a chain of n stages has 2^(n−1) valid groupings (n = 5: 16).
#[test]
fn p1_chain_groupings() {
    for n in 1..=7 {
        let g = chain(n);
        let (_, valid) = brute_force(&g, &mut random_cost(1));
        assert_eq!(valid, 1 << (n - 1), "n = {n}");
    }
    assert_eq!(brute_force(&chain(5), &mut random_cost(1)).1, 16);
}

/// P2: the DP creates n(n+1)/2 memo states on a chain of n (4 → 10, 5 → 15).
#[test]
fn p2_chain_memo_states() {
    for n in 1..=10 {
        let found = dp_grouping(&chain(n), random_cost(7), &DpOptions::default()).unwrap();
        assert_eq!(found.memo_states, n * (n + 1) / 2, "n = {n}");
    }
    let four = dp_grouping(&chain(4), random_cost(3), &DpOptions::default()).unwrap();
    let five = dp_grouping(&chain(5), random_cost(3), &DpOptions::default()).unwrap();
    assert_eq!((four.memo_states, five.memo_states), (10, 15));
}

/// P3: on chains the DP finds the optimum over all 2^(n−1) segmentations.
#[test]
fn p3_chain_optimal() {
    for n in 1..=8 {
        for seed in 0..25 {
            let g = chain(n);
            let found = dp_grouping(&g, random_cost(seed), &DpOptions::default()).unwrap();
            let (best, _) = brute_force(&g, &mut random_cost(seed));
            assert_eq!(found.cost, best, "n = {n}, seed = {seed}");
            check_grouping(&g, &found.groups).unwrap();
        }
    }
}

/// P6: Unsharp Mask: exactly 10 memo states; from {blurx, blury} merging masked is
/// rejected (masked is reachable from sharpen), so a grouping that would make
/// {blurx, blury, masked} a group is never returned however cheap that group.
#[test]
fn p6_unsharp_memo_states_and_cycle_check() {
    let g = unsharp();
    let found = dp_grouping(&g, random_cost(11), &DpOptions::default()).unwrap();
    assert_eq!(found.memo_states, 10);
    let table = [("blurx+blury+masked", -1000), ("blurx+blury+sharpen", 5)];
    let found = dp_grouping(
        &g,
        table_cost(&g, &table, |k| 10 * k as i64),
        &DpOptions::default(),
    )
    .unwrap();
    check_grouping(&g, &found.groups).unwrap();
    assert_eq!(
        names(&g, &found.groups),
        vec![vec!["blurx", "blury", "sharpen"], vec!["masked"]]
    );
    assert_eq!(found.cost, Cost::from_int(15));
    for seed in 0..200 {
        let found = dp_grouping(&g, random_cost(seed), &DpOptions::default()).unwrap();
        let (best, _) = brute_force(&g, &mut random_cost(seed));
        assert_eq!(found.cost, best, "seed {seed}");
    }
}

/// P7: a 4-stage pipeline enumerates 10 groupings (Minifluxdiv's count in Table 9; its
/// DAG is not given, the 4-chain and Unsharp Mask both give 10).
#[test]
fn p7_four_stage_pipelines() {
    let chain4 = dp_grouping(&chain(4), random_cost(5), &DpOptions::default()).unwrap();
    let unsharp = dp_grouping(&unsharp(), random_cost(5), &DpOptions::default()).unwrap();
    assert_eq!((chain4.memo_states, unsharp.memo_states), (10, 10));
}

/// P8: on A → B → C → D with A → D every output is valid (the literal algorithm places
/// D twice for some costs).
#[test]
fn p8_repaired_output_is_valid() {
    let g = dag(4, &[(0, 1), (1, 2), (2, 3), (0, 3)]);
    for seed in 0..1000 {
        let found = dp_grouping(&g, random_cost(seed), &DpOptions::default()).unwrap();
        check_grouping(&g, &found.groups).unwrap();
        let total = found
            .groups
            .iter()
            .fold(Cost::zero(), |acc, h| acc + random_cost(seed)(h));
        assert_eq!(total, found.cost, "seed {seed}");
    }
}

/// P9: Harris (11 stages, two sources joined by a dummy): the paper reports 104
/// groupings, the literal algorithm 3,671 memo states; the repaired search creates its
/// own count (recorded here to notice changes), and its grouping is valid.
#[test]
fn p9_harris_enumeration() {
    let g = harris();
    let found = dp_grouping(&g, random_cost(2), &DpOptions::default()).unwrap();
    check_grouping(&g, &found.groups).unwrap();
    assert_eq!(found.memo_states, HARRIS_MEMO_STATES);
}

const HARRIS_MEMO_STATES: usize = 492;

/// P4: the pairwise greedy evaluates at most n(n−1)/2 merges on a chain, and considers
/// at most 1 + n(n−1)/2 groupings (n = 5: 10 and 11, reached when every merge pays).
#[test]
fn p4_greedy_bound() {
    let g = chain(5);
    let found = greedy_grouping(&g, |_: &[usize]| Cost::from_int(1)).unwrap();
    assert_eq!((found.evaluations, found.candidates), (10, 11));
    assert_eq!(found.groups, vec![vec![0, 1, 2, 3, 4]]);
    for seed in 0..50 {
        let found = greedy_grouping(&g, random_cost(seed)).unwrap();
        assert!(found.evaluations <= 10 && found.candidates <= 11);
        check_grouping(&g, &found.groups).unwrap();
    }
}

/// P5: costs under which {D, E} is the best first pairwise merge while {{A,B,C,D},{E}}
/// is the best grouping: the DP finds it, the greedy does not.
#[test]
fn p5_greedy_misses_what_dp_finds() {
    let mut g = StageGraph::new(1).unwrap();
    for name in ["A", "B", "C", "D", "E"] {
        g.add_stage(Stage::new(name, vec![64])).unwrap();
    }
    for (p, c) in [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E")] {
        g.connect(p, c, vec![Dep::ZERO]).unwrap();
    }
    let table = [("D+E", 12), ("A+B+C+D", 10)];
    let default = |k: usize| if k == 1 { 10 } else { 10 * k as i64 + 5 };
    let dp = dp_grouping(&g, table_cost(&g, &table, default), &DpOptions::default()).unwrap();
    assert_eq!(
        names(&g, &dp.groups),
        vec![vec!["A", "B", "C", "D"], vec!["E"]]
    );
    assert_eq!(dp.cost, Cost::from_int(20));
    let greedy = greedy_grouping(&g, table_cost(&g, &table, default)).unwrap();
    assert_eq!(
        names(&g, &greedy.groups),
        vec![vec!["A"], vec!["B"], vec!["C"], vec!["D", "E"]]
    );
    assert_eq!(greedy.cost, Cost::from_int(42));
}

/// P15 (search side): a non-constant dependence keeps its stages apart.
#[test]
fn p15_non_constant_edge_is_never_inside_a_group() {
    let mut g = chain(3);
    let extra = g.add_stage(Stage::new("gather", vec![1024])).unwrap();
    g.add_edge(Edge::new(2, extra, vec![Dep::NonConstant]))
        .unwrap();
    let params = pollen_transform::grouping::CostParams::xeon();
    let found = dp_grouping(
        &g,
        pollen_transform::grouping::model_cost(&g, &params),
        &DpOptions::default(),
    )
    .unwrap();
    assert!(found.groups.iter().any(|h| h == &vec![extra]));
    check_grouping(&g, &found.groups).unwrap();
}

/// P23: with an initial limit of at least |V| the incremental grouping is the DP.
#[test]
fn p23_incremental_with_large_limit_is_dp() {
    for (g, seed) in [(harris(), 1), (unsharp(), 2), (chain(6), 3)] {
        let dp = dp_grouping(&g, random_cost(seed), &DpOptions::default()).unwrap();
        let options = IncrementalOptions {
            initial_limit: g.n_stages(),
            step: None,
            limits: DpOptions::default(),
        };
        let inc = incremental_grouping(&g, random_cost(seed), &options).unwrap();
        assert_eq!(inc.grouping, dp);
        assert_eq!(inc.rounds.len(), 1);
    }
}

/// P24: in a bounded round no group exceeds the limit; the rounds end with a valid
/// grouping (last round unbounded, or Algorithm 5's steps).
#[test]
fn p24_bounded_rounds() {
    let g = harris();
    for limit in 1..=4 {
        let bounded = dp_grouping(
            &g,
            random_cost(9),
            &DpOptions {
                max_group_size: Some(limit),
                ..DpOptions::default()
            },
        )
        .unwrap();
        assert!(bounded.groups.iter().all(|h| h.len() <= limit));
        check_grouping(&g, &bounded.groups).unwrap();
        for step in [None, Some(2), Some(3)] {
            let options = IncrementalOptions {
                initial_limit: limit,
                step,
                limits: DpOptions::default(),
            };
            let inc = incremental_grouping(&g, random_cost(9), &options).unwrap();
            check_grouping(&g, &inc.grouping.groups).unwrap();
            assert_eq!(inc.rounds[0].limit, Some(limit));
            assert_eq!(inc.rounds[0].vertices, 11);
            if step.is_none() {
                assert_eq!(inc.rounds.len(), 2);
                assert_eq!(inc.rounds[1].limit, None);
            }
        }
    }
    let chain8 = chain(8);
    let options = IncrementalOptions {
        initial_limit: 2,
        step: Some(2),
        limits: DpOptions::default(),
    };
    let inc = incremental_grouping(&chain8, |_: &[usize]| Cost::from_int(1), &options).unwrap();
    // Rounds with limits 2, 2, 2 (max sizes 2, 4, 8): one group in the end.
    let limits: Vec<_> = inc.rounds.iter().map(|r| (r.limit, r.vertices)).collect();
    assert_eq!(limits, vec![(Some(2), 8), (Some(2), 4), (None, 2)]);
    assert_eq!(inc.grouping.groups, vec![(0..8).collect::<Vec<_>>()]);
}

/// The state and step limits stop the search with an error.
#[test]
fn limits_are_errors() {
    let g = harris();
    let few_states = DpOptions {
        max_states: 5,
        ..DpOptions::default()
    };
    assert_eq!(
        dp_grouping(&g, random_cost(0), &few_states),
        Err(Error::StateLimit { limit: 5 })
    );
    let few_steps = DpOptions {
        max_steps: 20,
        ..DpOptions::default()
    };
    assert_eq!(
        dp_grouping(&g, random_cost(0), &few_steps),
        Err(Error::StepLimit { limit: 20 })
    );
    let zero = DpOptions {
        max_group_size: Some(0),
        ..DpOptions::default()
    };
    assert!(matches!(
        dp_grouping(&g, random_cost(0), &zero),
        Err(Error::InvalidParameter { .. })
    ));
}

/// Bad graphs are typed errors.
#[test]
fn graph_errors() {
    assert_eq!(StageGraph::new(0), Err(Error::NoDimensions));
    let mut g = StageGraph::new(2).unwrap();
    assert!(matches!(
        g.add_stage(Stage::new("a", vec![4])),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        g.add_stage(Stage::new("a", vec![4, 0])),
        Err(Error::InvalidValue { .. })
    ));
    assert!(matches!(
        g.add_stage(Stage::new("a", vec![4, 4]).with_alignment(vec![0, 0], vec![1, 1])),
        Err(Error::InvalidAlignment { .. })
    ));
    let a = g.add_stage(Stage::new("a", vec![4, 4])).unwrap();
    let b = g.add_stage(Stage::new("b", vec![4, 4])).unwrap();
    assert!(matches!(
        g.add_stage(Stage::new("a", vec![4, 4])),
        Err(Error::DuplicateName { .. })
    ));
    let zero = vec![Dep::ZERO, Dep::ZERO];
    assert!(matches!(
        g.add_edge(Edge::new(a, 7, zero.clone())),
        Err(Error::UnknownStage { index: 7 })
    ));
    assert!(matches!(
        g.add_edge(Edge::new(a, a, zero.clone())),
        Err(Error::SelfEdge { .. })
    ));
    assert!(matches!(
        g.add_edge(Edge::new(
            a,
            b,
            vec![Dep::Constant { min: 1, max: 0 }, Dep::ZERO]
        )),
        Err(Error::InvalidDep { .. })
    ));
    g.add_edge(Edge::new(a, b, zero.clone())).unwrap();
    assert!(matches!(
        g.add_edge(Edge::new(b, a, zero)),
        Err(Error::Cycle { .. })
    ));
    assert!(matches!(
        g.connect("a", "nope", vec![Dep::ZERO; 2]),
        Err(Error::UnknownName { .. })
    ));
    let empty = StageGraph::new(1).unwrap();
    assert_eq!(
        dp_grouping(&empty, random_cost(0), &DpOptions::default()),
        Err(Error::NoStages)
    );
}
