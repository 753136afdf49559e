//! Tests of `ScheduleTree::to_union_map`: the flattened schedule of bands, sequences,
//! filters, marks, contexts, extensions and set nodes, compared with hand-written union
//! maps (`is_equal`) and with the execution order of the loop nests the trees describe
//! (instances enumerated and sorted by their schedule times).

use pollen_presburger::{DimKind, Int, Map, UnionMap, UnionSet};
use pollen_scop::{Band, Error, Node, ScheduleTree};

fn uset(text: &str) -> UnionSet {
    pollen_presburger::text::parse_union_set(text).expect("test union set")
}

fn umap(text: &str) -> UnionMap {
    pollen_presburger::text::parse_union_map(text).expect("test union map")
}

fn band(schedule: &str, child: Node) -> Node {
    let schedule = umap(schedule);
    let n = schedule.maps().next().map_or(0, |m| m.space().n_out());
    Node::Band(Band {
        schedule,
        permutable: false,
        coincident: vec![false; n],
        child: Box::new(child),
    })
}

fn filter(filter: &str, child: Node) -> Node {
    Node::filter(uset(filter), child)
}

fn tree(domain: &str, child: Node) -> ScheduleTree {
    ScheduleTree {
        root: Node::Domain {
            domain: uset(domain),
            child: Box::new(child),
        },
    }
}

/// Asserts that the flattened tree equals `expected`, statement by statement.
fn check(tree: &ScheduleTree, expected: &str) {
    let got = tree.to_union_map().expect("flattens");
    let expected = umap(expected);
    assert_eq!(
        got.n_maps(),
        expected.n_maps(),
        "statements: got {got}, expected {expected}"
    );
    for m in expected.maps() {
        let key = m.space().tuples_key();
        let g = got
            .get(&key)
            .unwrap_or_else(|| panic!("no schedule for {key} in {got}"));
        assert!(
            g.is_equal(m).expect("comparable"),
            "{key}: got {g}, expected {m}"
        );
    }
    assert!(got.is_equal(&expected).expect("comparable"));
}

/// The statement instances of a flattened schedule (parameters fixed to `params`), as
/// `(statement, iteration vector)` in the order of their schedule times. Also checks
/// that every instance has exactly one time and that no two instances share one.
fn execution_order(schedule: &UnionMap, params: &[i64]) -> Vec<(String, Vec<i64>)> {
    let mut timed: Vec<(Vec<i64>, String, Vec<i64>)> = Vec::new();
    for m in schedule.maps() {
        let name = m
            .space()
            .domain_tuple()
            .and_then(|t| t.name())
            .expect("named statement")
            .to_string();
        let mut fixed: Map = m.clone();
        for (k, v) in params.iter().enumerate() {
            fixed = fixed
                .fix_val(DimKind::Param, k, &Int::from(*v))
                .expect("fix");
        }
        let fixed = fixed
            .project_out(DimKind::Param, 0, params.len())
            .expect("project");
        let n_in = fixed.space().n_in();
        for p in fixed.points().expect("bounded") {
            let p: Vec<i64> = p
                .iter()
                .map(|x| x.to_string().parse().expect("small"))
                .collect();
            timed.push((p[n_in..].to_vec(), name.clone(), p[..n_in].to_vec()));
        }
    }
    timed.sort();
    for w in timed.windows(2) {
        assert_ne!(w[0].0, w[1].0, "two instances at one time: {w:?}");
    }
    let instances: Vec<(String, Vec<i64>)> = timed
        .iter()
        .map(|(_, s, i)| (s.clone(), i.clone()))
        .collect();
    let mut distinct = instances.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), instances.len(), "an instance has two times");
    instances
}

const GEMM_DOMAIN: &str = "[NI, NJ, NK] -> { S0[i, j] : 0 <= i < NI and 0 <= j < NJ; S1[i, j, k] : 0 <= i < NI and 0 <= j < NJ and 0 <= k < NK }";

/// `for i { for j { S0; for k S1 } }` as pet writes it: a sequence at every level
/// (2d+1).
fn gemm_2d_plus_1() -> ScheduleTree {
    let p = "[NI, NJ, NK] -> ";
    let both = format!("{p}{{ S0[i, j]; S1[i, j, k] }}");
    let innermost = Node::Sequence(vec![
        filter(&format!("{p}{{ S0[i, j] }}"), Node::Leaf),
        filter(
            &format!("{p}{{ S1[i, j, k] }}"),
            band(&format!("{p}{{ S1[i, j, k] -> [k] }}"), Node::Leaf),
        ),
    ]);
    let j_loop = Node::Sequence(vec![filter(
        &both,
        band(
            &format!("{p}{{ S0[i, j] -> [j]; S1[i, j, k] -> [j] }}"),
            innermost,
        ),
    )]);
    let i_loop = Node::Sequence(vec![filter(
        &both,
        band(
            &format!("{p}{{ S0[i, j] -> [i]; S1[i, j, k] -> [i] }}"),
            j_loop,
        ),
    )]);
    tree(GEMM_DOMAIN, i_loop)
}

/// The loop order of gemm, written directly.
fn gemm_loops(ni: i64, nj: i64, nk: i64) -> Vec<(String, Vec<i64>)> {
    let mut order = Vec::new();
    for i in 0..ni {
        for j in 0..nj {
            order.push(("S0".to_string(), vec![i, j]));
            for k in 0..nk {
                order.push(("S1".to_string(), vec![i, j, k]));
            }
        }
    }
    order
}

#[test]
fn gemm_2d_plus_1_flattens_with_sequence_positions_and_padding() {
    check(
        &gemm_2d_plus_1(),
        "[NI, NJ, NK] -> { S0[i, j] -> [0, i, 0, j, 0, 0] : 0 <= i < NI and 0 <= j < NJ; \
         S1[i, j, k] -> [0, i, 0, j, 1, k] : 0 <= i < NI and 0 <= j < NJ and 0 <= k < NK }",
    );
}

#[test]
fn gemm_2d_plus_1_orders_instances_as_the_loops() {
    let schedule = gemm_2d_plus_1().to_union_map().expect("flattens");
    for (ni, nj, nk) in [(2, 3, 2), (1, 1, 3), (3, 2, 1)] {
        assert_eq!(
            execution_order(&schedule, &[ni, nj, nk]),
            gemm_loops(ni, nj, nk)
        );
    }
}

#[test]
fn one_band_for_a_loop_nest_then_a_sequence() {
    let p = "[NI, NJ, NK] -> ";
    let t = tree(
        GEMM_DOMAIN,
        band(
            &format!("{p}{{ S0[i, j] -> [i, j]; S1[i, j, k] -> [i, j] }}"),
            Node::Sequence(vec![
                filter(&format!("{p}{{ S0[i, j] }}"), Node::Leaf),
                filter(
                    &format!("{p}{{ S1[i, j, k] }}"),
                    band(&format!("{p}{{ S1[i, j, k] -> [k] }}"), Node::Leaf),
                ),
            ]),
        ),
    );
    check(
        &t,
        "[NI, NJ, NK] -> { S0[i, j] -> [i, j, 0, 0] : 0 <= i < NI and 0 <= j < NJ; \
         S1[i, j, k] -> [i, j, 1, k] : 0 <= i < NI and 0 <= j < NJ and 0 <= k < NK }",
    );
    let schedule = t.to_union_map().expect("flattens");
    assert_eq!(execution_order(&schedule, &[2, 2, 2]), gemm_loops(2, 2, 2));
}

#[test]
fn decreasing_loop_runs_backwards() {
    let t = tree(
        "[N] -> { S0[i] : 0 <= i < N }",
        band("[N] -> { S0[i] -> [-i] }", Node::Leaf),
    );
    check(&t, "[N] -> { S0[i] -> [-i] : 0 <= i < N }");
    let order = execution_order(&t.to_union_map().expect("flattens"), &[4]);
    let expected: Vec<(String, Vec<i64>)> = (0..4).rev().map(|i| ("S0".into(), vec![i])).collect();
    assert_eq!(order, expected);
}

#[test]
fn filters_restrict_instances_and_drop_statements() {
    // for i: if (i < 2) S0 else S1  --  the filters split the instances of the domain.
    let t = tree(
        "{ S0[i] : 0 <= i < 5; S1[i] : 0 <= i < 5 }",
        band(
            "{ S0[i] -> [i]; S1[i] -> [i] }",
            Node::Sequence(vec![
                filter("{ S0[i] : i < 2 }", Node::Leaf),
                filter("{ S1[i] : i >= 2 }", Node::Leaf),
            ]),
        ),
    );
    check(
        &t,
        "{ S0[i] -> [i, 0] : 0 <= i < 2; S1[i] -> [i, 1] : 2 <= i < 5 }",
    );
}

#[test]
fn marks_and_contexts_are_transparent() {
    let inner = || band("[N] -> { S0[i] -> [i] }", Node::Leaf);
    let plain = tree("[N] -> { S0[i] : 0 <= i < N }", inner());
    let annotated = tree(
        "[N] -> { S0[i] : 0 <= i < N }",
        Node::Context {
            context: "[N] -> { : N >= 2 }".parse().expect("set"),
            child: Box::new(Node::Mark {
                name: "kernel".into(),
                child: Box::new(inner()),
            }),
        },
    );
    let a = plain.to_union_map().expect("flattens");
    let b = annotated.to_union_map().expect("flattens");
    assert!(a.is_equal(&b).expect("comparable"), "{a} vs {b}");
    check(&annotated, "[N] -> { S0[i] -> [i] : 0 <= i < N }");
}

#[test]
fn set_nodes_order_their_children_in_some_order() {
    let t = tree(
        "{ S0[i] : 0 <= i < 3; S1[i] : 0 <= i < 3 }",
        Node::Set(vec![
            filter("{ S0[i] }", band("{ S0[i] -> [i] }", Node::Leaf)),
            filter("{ S1[i] }", band("{ S1[i] -> [i] }", Node::Leaf)),
        ]),
    );
    let schedule = t.to_union_map().expect("flattens");
    // Any order of the two children is correct; every instance gets one distinct time
    // and each child keeps its own loop order.
    let order = execution_order(&schedule, &[]);
    assert_eq!(order.len(), 6);
    for name in ["S0", "S1"] {
        let own: Vec<i64> = order
            .iter()
            .filter(|(s, _)| s == name)
            .map(|(_, i)| i[0])
            .collect();
        assert_eq!(own, vec![0, 1, 2]);
    }
}

#[test]
fn extension_instances_are_scheduled_below_the_outer_band() {
    // Tiles of two iterations of S0; before each tile, two copies C[t, c].
    let t = tree(
        "{ S0[i] : 0 <= i < 4 }",
        band(
            "{ S0[i] -> [floor(i/2)] }",
            Node::Extension {
                extension: umap("{ [t] -> C[t, c] : 0 <= t < 2 and 0 <= c < 2 }"),
                child: Box::new(Node::Sequence(vec![
                    filter("{ C[t, c] }", band("{ C[t, c] -> [c] }", Node::Leaf)),
                    filter("{ S0[i] }", band("{ S0[i] -> [i] }", Node::Leaf)),
                ])),
            },
        ),
    );
    check(
        &t,
        "{ C[t, c] -> [t, 0, c] : 0 <= t < 2 and 0 <= c < 2; \
         S0[i] -> [floor(i/2), 1, i] : 0 <= i < 4 }",
    );
    let order = execution_order(&t.to_union_map().expect("flattens"), &[]);
    let expected: Vec<(String, Vec<i64>)> = vec![
        ("C".into(), vec![0, 0]),
        ("C".into(), vec![0, 1]),
        ("S0".into(), vec![0]),
        ("S0".into(), vec![1]),
        ("C".into(), vec![1, 0]),
        ("C".into(), vec![1, 1]),
        ("S0".into(), vec![2]),
        ("S0".into(), vec![3]),
    ];
    assert_eq!(order, expected);
}

#[test]
fn a_tree_of_only_a_domain_schedules_everything_at_time_zero_depth() {
    let t = tree("{ S0[i] : 0 <= i < 3 }", Node::Leaf);
    check(&t, "{ S0[i] -> [] : 0 <= i < 3 }");
}

#[test]
fn malformed_trees_are_errors() {
    let no_domain = ScheduleTree {
        root: band("{ S0[i] -> [i] }", Node::Leaf),
    };
    assert!(matches!(no_domain.to_union_map(), Err(Error::Invalid(_))));
    // The band does not schedule S1, which is active below it.
    let missing = tree(
        "{ S0[i] : 0 <= i < 3; S1[i] : 0 <= i < 3 }",
        band("{ S0[i] -> [i] }", Node::Leaf),
    );
    assert!(matches!(missing.to_union_map(), Err(Error::Invalid(_))));
    // An extension whose domain is not the outer schedule.
    let extension = tree(
        "{ S0[i] : 0 <= i < 3 }",
        band(
            "{ S0[i] -> [i] }",
            Node::Extension {
                extension: umap("{ [t, u] -> C[t] : 0 <= t < 2 and u = 0 }"),
                child: Box::new(Node::Leaf),
            },
        ),
    );
    assert!(matches!(extension.to_union_map(), Err(Error::Invalid(_))));
}

#[test]
fn filters_without_parameters_apply_to_parametric_domains() {
    // isl writes filters such as `{ S1[i] }` without the parameters of the domain.
    let t = tree(
        "[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N; S1[i] : 0 <= i < N }",
        Node::Sequence(vec![
            filter(
                "[N] -> { S0[i, j] }",
                band("[N] -> { S0[i, j] -> [i, j] }", Node::Leaf),
            ),
            filter(
                "{ S1[i] : i >= 1 }",
                band("{ S1[i] -> [i, 0] }", Node::Leaf),
            ),
        ]),
    );
    check(
        &t,
        "[N] -> { S0[i, j] -> [0, i, j] : 0 <= i < N and 0 <= j < N; \
         S1[i] -> [1, i, 0] : 1 <= i < N }",
    );
}

/// A statement whose domain is a union keeps its pieces through the filters of nested
/// sequences: each filter holds the whole domain, so the flattened schedule has as many
/// pieces as the domain, not that number to the power of the filters.
#[test]
fn a_union_domain_keeps_its_pieces_under_nested_filters() {
    let domain = "{ S[i, j] : 0 <= i < 10 and 0 <= j < 10 and (i = 0 or j = 0 or i = 9 or j = 9) }";
    let mut node = band("{ S[i, j] -> [j] }", Node::Leaf);
    for _ in 0..4 {
        node = Node::Sequence(vec![filter(domain, node)]);
    }
    let t = tree(domain, band("{ S[i, j] -> [i] }", node));
    let schedule = t.to_union_map().expect("flattens");
    let pieces = uset(domain)
        .sets()
        .next()
        .expect("one set")
        .basic_sets()
        .count();
    assert!(pieces > 1);
    let got = schedule.maps().next().expect("one map");
    assert_eq!(got.basic_maps().len(), pieces, "{got}");
    check(
        &t,
        "{ S[i, j] -> [i, 0, 0, 0, 0, j] : 0 <= i < 10 and 0 <= j < 10 and (i = 0 or j = 0 or i = 9 or j = 9) }",
    );
}
