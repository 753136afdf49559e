//! Dependence analysis of hand-built scops: exact expected relations for the simplest
//! ones, and agreement with the trace oracle for several parameter values for all.

use pollen_deps::oracle::{self, check_analyze, Trace};
use pollen_deps::{analyze, Analysis, DepKind, Dependence, Dependences};
use pollen_presburger::{Map, Set, UnionMap, UnionSet};
use pollen_scop::{Access, AccessKind, Array, Band, Node, ScheduleTree, Scop, Statement};

// ----- building scops -----

/// A statement: name, domain, then accesses as `(kind, relation)` in execution order.
fn stmt(params: &[&str], domain: &str, accesses: &[(AccessKind, &str)]) -> Statement {
    let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
    let domain: Set = domain.parse().expect("domain parses");
    let domain = domain
        .align_params(&params)
        .expect("domain over the params");
    let name = domain
        .space()
        .range_tuple()
        .and_then(|t| t.name())
        .expect("named domain")
        .to_string();
    let n = domain.n_dims();
    let accesses = accesses
        .iter()
        .map(|(kind, text)| {
            let relation: Map = text.parse().expect("access parses");
            let relation = relation
                .align_params(&params)
                .expect("access over the params");
            let array = relation
                .space()
                .range_tuple()
                .and_then(|t| t.name())
                .expect("named array")
                .to_string();
            Access {
                kind: *kind,
                array,
                relation,
            }
        })
        .collect();
    Statement {
        name,
        domain,
        iterators: (0..n).map(|k| format!("c{k}")).collect(),
        accesses,
        body: String::new(),
    }
}

/// A scop from its parameters, context, statements and schedule tree (below the domain
/// node).
fn scop(params: &[&str], context: &str, statements: Vec<Statement>, tree: Node) -> Scop {
    let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
    let context: Set = context.parse().expect("context parses");
    let context = context
        .align_params(&params)
        .expect("context over the params");
    let mut arrays: Vec<Array> = Vec::new();
    let mut domain = UnionSet::empty(params.clone());
    for s in &statements {
        domain.add_set(s.domain.clone()).expect("domain");
        for a in &s.accesses {
            if !arrays.iter().any(|x| x.name == a.array) {
                arrays.push(Array {
                    name: a.array.clone(),
                    element_type: "double".into(),
                    extents: vec!["N".into(); a.relation.space().n_out()],
                    local: false,
                });
            }
        }
    }
    let scop = Scop {
        params,
        context,
        arrays,
        statements,
        schedule: ScheduleTree {
            root: Node::Domain {
                domain,
                child: Box::new(tree),
            },
        },
    };
    scop.validate().expect("valid scop");
    scop
}

/// A band of one schedule per statement, in isl's union map syntax.
fn band(schedule: &str, child: Node) -> Node {
    let schedule: UnionMap = schedule.parse().expect("band parses");
    let n = schedule.maps().next().map_or(0, |m| m.space().n_out());
    Node::Band(Band {
        schedule,
        permutable: false,
        coincident: vec![false; n],
        child: Box::new(child),
    })
}

/// A sequence of filters, each given as a union set text.
fn seq(children: Vec<(&str, Node)>) -> Node {
    Node::Sequence(
        children
            .into_iter()
            .map(|(f, c)| Node::filter(f.parse().expect("filter parses"), c))
            .collect(),
    )
}

const R: AccessKind = AccessKind::Read;
const W: AccessKind = AccessKind::Write;

// ----- checking -----

/// The oracle agrees with both analyses at every valuation, and the trace has pairs.
fn agrees(scop: &Scop, valuations: &[&[i64]]) {
    match check_analyze(scop, valuations) {
        Ok(n) => assert!(n > 0, "the traces have no dependence at all"),
        Err(e) => panic!("{e}"),
    }
}

/// The relation of a kind, array, source and target equals `expected` (isl syntax);
/// `None` means there must be no such relation.
fn expect_relation(
    deps: &Dependences,
    kind: DepKind,
    array: &str,
    source: &str,
    target: &str,
    expected: Option<&str>,
) {
    let found = deps.get(kind, array, source, target);
    match (found, expected) {
        (None, None) => {}
        (Some(r), None) => panic!("unexpected {kind:?} {source} -> {target} via {array}: {r}"),
        (None, Some(e)) => panic!("missing {kind:?} {source} -> {target} via {array}: {e}"),
        (Some(r), Some(e)) => {
            let e: Map = e.parse().expect("expected relation parses");
            assert!(
                r.is_equal(&e).expect("comparable"),
                "{kind:?} {source} -> {target} via {array}: found {r}, expected {e}"
            );
        }
    }
}

// ----- the scops -----

/// `for (i = 1; i < N; i++) A[i] = A[i - 1];`
fn recurrence() -> Scop {
    let p = &["N"];
    scop(
        p,
        "[N] -> { : N >= 1 }",
        vec![stmt(
            p,
            "[N] -> { S[i] : 1 <= i < N }",
            &[
                (R, "[N] -> { S[i] -> A[i - 1] }"),
                (W, "[N] -> { S[i] -> A[i] }"),
            ],
        )],
        band("[N] -> { S[i] -> [i] }", Node::Leaf),
    )
}

#[test]
fn recurrence_relations() {
    let s = recurrence();
    for analysis in [Analysis::ValueBased, Analysis::MemoryBased] {
        let deps = analyze(&s, analysis).unwrap();
        expect_relation(
            &deps,
            DepKind::Flow,
            "A",
            "S",
            "S",
            Some("[N] -> { S[i] -> S[i + 1] : 1 <= i < N - 1 }"),
        );
        expect_relation(&deps, DepKind::Anti, "A", "S", "S", None);
        expect_relation(&deps, DepKind::Output, "A", "S", "S", None);
        assert_eq!(deps.len(), 1);
    }
    agrees(&s, &[&[1], &[2], &[5]]);
}

/// The recurrence under a context stricter than its domain, a union: the relations are
/// restricted to the context's hull.
#[test]
fn context_restricts_relations() {
    let mut s = recurrence();
    s.context = "[N] -> { : 5 <= N <= 7 or N >= 10 }".parse().unwrap();
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    expect_relation(
        &deps,
        DepKind::Flow,
        "A",
        "S",
        "S",
        Some("[N] -> { S[i] -> S[i + 1] : 1 <= i < N - 1 and N >= 5 }"),
    );
    agrees(&s, &[&[5], &[7], &[10]]);
}

/// `for (i = 0; i < N; i++) A[i] = A[i + 1];` (anti only).
#[test]
fn forward_read_is_anti() {
    let p = &["N"];
    let s = scop(
        p,
        "[N] -> { : N >= 0 }",
        vec![stmt(
            p,
            "[N] -> { S[i] : 0 <= i < N }",
            &[
                (R, "[N] -> { S[i] -> A[i + 1] }"),
                (W, "[N] -> { S[i] -> A[i] }"),
            ],
        )],
        band("[N] -> { S[i] -> [i] }", Node::Leaf),
    );
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    expect_relation(&deps, DepKind::Flow, "A", "S", "S", None);
    expect_relation(
        &deps,
        DepKind::Anti,
        "A",
        "S",
        "S",
        Some("[N] -> { S[i] -> S[i + 1] : 0 <= i < N - 1 }"),
    );
    agrees(&s, &[&[0], &[2], &[4]]);
}

/// `for (i = N - 2; i >= 0; i--) A[i] = A[i + 1];`: a decreasing loop, schedule `[-i]`.
#[test]
fn decreasing_loop() {
    let p = &["N"];
    let s = scop(
        p,
        "[N] -> { : N >= 1 }",
        vec![stmt(
            p,
            "[N] -> { S[i] : 0 <= i <= N - 2 }",
            &[
                (R, "[N] -> { S[i] -> A[i + 1] }"),
                (W, "[N] -> { S[i] -> A[i] }"),
            ],
        )],
        band("[N] -> { S[i] -> [-i] }", Node::Leaf),
    );
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    expect_relation(
        &deps,
        DepKind::Flow,
        "A",
        "S",
        "S",
        Some("[N] -> { S[i] -> S[i - 1] : 1 <= i <= N - 2 }"),
    );
    expect_relation(&deps, DepKind::Anti, "A", "S", "S", None);
    agrees(&s, &[&[1], &[3], &[6]]);
}

/// gemm: `C[i][j] *= beta; for k: C[i][j] += A[i][k] * B[k][j];`
fn gemm() -> Scop {
    let p = &["NI", "NJ", "NK"];
    scop(
        p,
        "[NI, NJ, NK] -> { : NI >= 0 and NJ >= 0 and NK >= 0 }",
        vec![
            stmt(
                p,
                "[NI, NJ] -> { S0[i, j] : 0 <= i < NI and 0 <= j < NJ }",
                &[
                    (R, "{ S0[i, j] -> C[i, j] }"),
                    (W, "{ S0[i, j] -> C[i, j] }"),
                ],
            ),
            stmt(
                p,
                "[NI, NJ, NK] -> { S1[i, j, k] : 0 <= i < NI and 0 <= j < NJ and 0 <= k < NK }",
                &[
                    (R, "{ S1[i, j, k] -> C[i, j] }"),
                    (R, "{ S1[i, j, k] -> A[i, k] }"),
                    (R, "{ S1[i, j, k] -> B[k, j] }"),
                    (W, "{ S1[i, j, k] -> C[i, j] }"),
                ],
            ),
        ],
        band(
            "{ S0[i, j] -> [i]; S1[i, j, k] -> [i] }",
            band(
                "{ S0[i, j] -> [j]; S1[i, j, k] -> [j] }",
                seq(vec![
                    ("{ S0[i, j] }", Node::Leaf),
                    (
                        "{ S1[i, j, k] }",
                        band("{ S1[i, j, k] -> [k] }", Node::Leaf),
                    ),
                ]),
            ),
        ),
    )
}

#[test]
fn gemm_relations() {
    let s = gemm();
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    expect_relation(
        &deps,
        DepKind::Flow,
        "C",
        "S0",
        "S1",
        Some(
            "[NI, NJ, NK] -> { S0[i, j] -> S1[i, j, 0] : 0 <= i < NI and 0 <= j < NJ and NK >= 1 }",
        ),
    );
    expect_relation(
        &deps,
        DepKind::Flow,
        "C",
        "S1",
        "S1",
        Some(
            "[NI, NJ, NK] -> { S1[i, j, k] -> S1[i, j, k + 1] : 0 <= i < NI and 0 <= j < NJ \
             and 0 <= k < NK - 1 }",
        ),
    );
    expect_relation(&deps, DepKind::Flow, "C", "S1", "S0", None);
    expect_relation(&deps, DepKind::Flow, "A", "S1", "S1", None);
    let memory = analyze(&s, Analysis::MemoryBased).unwrap();
    expect_relation(
        &memory,
        DepKind::Flow,
        "C",
        "S1",
        "S1",
        Some(
            "[NI, NJ, NK] -> { S1[i, j, k] -> S1[i, j, k'] : 0 <= i < NI and 0 <= j < NJ \
             and 0 <= k < k' < NK }",
        ),
    );
    agrees(&s, &[&[1, 1, 1], &[2, 3, 2], &[3, 2, 4]]);
}

/// `s = 0; for (i = 0; i < N; i++) s += A[i]; B = s;` with a 0-dimensional `s`.
fn accumulator() -> Scop {
    let p = &["N"];
    scop(
        p,
        "[N] -> { : N >= 0 }",
        vec![
            stmt(p, "{ S0[] }", &[(W, "{ S0[] -> s[] }")]),
            stmt(
                p,
                "[N] -> { S1[i] : 0 <= i < N }",
                &[
                    (R, "{ S1[i] -> s[] }"),
                    (R, "{ S1[i] -> A[i] }"),
                    (W, "{ S1[i] -> s[] }"),
                ],
            ),
            stmt(
                p,
                "{ S2[] }",
                &[(R, "{ S2[] -> s[] }"), (W, "{ S2[] -> B[] }")],
            ),
        ],
        seq(vec![
            ("{ S0[] }", Node::Leaf),
            ("[N] -> { S1[i] }", band("{ S1[i] -> [i] }", Node::Leaf)),
            ("{ S2[] }", Node::Leaf),
        ]),
    )
}

#[test]
fn accumulator_relations() {
    let s = accumulator();
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    let flow = |src, dst, e| expect_relation(&deps, DepKind::Flow, "s", src, dst, e);
    flow("S0", "S1", Some("[N] -> { S0[] -> S1[0] : N >= 1 }"));
    flow(
        "S1",
        "S1",
        Some("[N] -> { S1[i] -> S1[i + 1] : 0 <= i < N - 1 }"),
    );
    flow("S1", "S2", Some("[N] -> { S1[N - 1] -> S2[] : N >= 1 }"));
    flow("S0", "S2", Some("[N] -> { S0[] -> S2[] : N = 0 }"));
    expect_relation(
        &deps,
        DepKind::Output,
        "s",
        "S1",
        "S1",
        Some("[N] -> { S1[i] -> S1[i'] : 0 <= i < i' < N }"),
    );
    expect_relation(
        &deps,
        DepKind::Anti,
        "s",
        "S1",
        "S1",
        Some("[N] -> { S1[i] -> S1[i'] : 0 <= i < i' < N }"),
    );
    agrees(&s, &[&[0], &[1], &[4]]);
}

/// `for i: B[i] = A[i]; for i: C[i] = B[i] + B[i + 1];`
#[test]
fn producer_consumer() {
    let p = &["N"];
    let s = scop(
        p,
        "[N] -> { : N >= 1 }",
        vec![
            stmt(
                p,
                "[N] -> { P[i] : 0 <= i < N }",
                &[(R, "{ P[i] -> A[i] }"), (W, "{ P[i] -> B[i] }")],
            ),
            stmt(
                p,
                "[N] -> { Q[i] : 0 <= i < N }",
                &[
                    (R, "{ Q[i] -> B[i] }"),
                    (R, "{ Q[i] -> B[i + 1] }"),
                    (W, "{ Q[i] -> C[i] }"),
                ],
            ),
        ],
        seq(vec![
            ("[N] -> { P[i] }", band("{ P[i] -> [i] }", Node::Leaf)),
            ("[N] -> { Q[i] }", band("{ Q[i] -> [i] }", Node::Leaf)),
        ]),
    );
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    expect_relation(
        &deps,
        DepKind::Flow,
        "B",
        "P",
        "Q",
        Some("[N] -> { P[i] -> Q[i'] : 0 <= i < N and i - 1 <= i' <= i and i' >= 0 }"),
    );
    assert_eq!(deps.len(), 1);
    let graph = deps.graph();
    assert_eq!(graph.sccs(), &[vec![0], vec![1]]);
    assert!(!graph.has_self_dependence(0));
    assert_eq!(graph.edges_between_sccs(0, 1).count(), 1);
    assert_eq!(graph.edges_between_sccs(1, 0).count(), 0);
    agrees(&s, &[&[1], &[2], &[5]]);
}

/// jacobi-1d: `for t: { for i: B[i] = A[i-1] + A[i] + A[i+1]; for i: A[i] = B[i]; }`
fn jacobi_1d() -> Scop {
    let p = &["T", "N"];
    scop(
        p,
        "[T, N] -> { : T >= 1 and N >= 3 }",
        vec![
            stmt(
                p,
                "[T, N] -> { S0[t, i] : 0 <= t < T and 1 <= i <= N - 2 }",
                &[
                    (R, "{ S0[t, i] -> A[i - 1] }"),
                    (R, "{ S0[t, i] -> A[i] }"),
                    (R, "{ S0[t, i] -> A[i + 1] }"),
                    (W, "{ S0[t, i] -> B[i] }"),
                ],
            ),
            stmt(
                p,
                "[T, N] -> { S1[t, i] : 0 <= t < T and 1 <= i <= N - 2 }",
                &[(R, "{ S1[t, i] -> B[i] }"), (W, "{ S1[t, i] -> A[i] }")],
            ),
        ],
        band(
            "{ S0[t, i] -> [t]; S1[t, i] -> [t] }",
            seq(vec![
                (
                    "[T, N] -> { S0[t, i] }",
                    band("{ S0[t, i] -> [i] }", Node::Leaf),
                ),
                (
                    "[T, N] -> { S1[t, i] }",
                    band("{ S1[t, i] -> [i] }", Node::Leaf),
                ),
            ]),
        ),
    )
}

#[test]
fn jacobi_1d_relations() {
    let s = jacobi_1d();
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    expect_relation(
        &deps,
        DepKind::Flow,
        "B",
        "S0",
        "S1",
        Some("[T, N] -> { S0[t, i] -> S1[t, i] : 0 <= t < T and 1 <= i <= N - 2 }"),
    );
    expect_relation(
        &deps,
        DepKind::Flow,
        "A",
        "S1",
        "S0",
        Some(
            "[T, N] -> { S1[t, i] -> S0[t + 1, i'] : 0 <= t < T - 1 and 1 <= i <= N - 2 \
             and 1 <= i' <= N - 2 and i - 1 <= i' <= i + 1 }",
        ),
    );
    let graph = deps.graph();
    assert_eq!(graph.sccs(), &[vec![0, 1]]);
    agrees(&s, &[&[1, 3], &[2, 4], &[3, 5]]);
}

/// seidel-2d: `for t, i, j: A[i][j] = (A[i-1][j-1] + ... + A[i+1][j+1]) / 9;` in place.
#[test]
fn seidel_2d() {
    let p = &["T", "N"];
    let mut reads = Vec::new();
    let texts: Vec<String> = (-1..=1)
        .flat_map(|di| (-1..=1).map(move |dj| (di, dj)))
        .map(|(di, dj)| format!("{{ S[t, i, j] -> A[i + ({di}), j + ({dj})] }}"))
        .collect();
    for t in &texts {
        reads.push((R, t.as_str()));
    }
    reads.push((W, "{ S[t, i, j] -> A[i, j] }"));
    let s = scop(
        p,
        "[T, N] -> { : T >= 1 and N >= 3 }",
        vec![stmt(
            p,
            "[T, N] -> { S[t, i, j] : 0 <= t < T and 1 <= i <= N - 2 and 1 <= j <= N - 2 }",
            &reads,
        )],
        band("{ S[t, i, j] -> [t, i, j] }", Node::Leaf),
    );
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    // The in-place update reads the values of the current sweep above and to the left.
    let flow = deps.get(DepKind::Flow, "A", "S", "S").expect("flow");
    let sample: Map = "[T, N] -> { S[0, 1, 1] -> S[0, 1, 2] : T >= 1 and N >= 4 }"
        .parse()
        .unwrap();
    assert!(sample.is_subset(flow).unwrap());
    agrees(&s, &[&[1, 3], &[2, 4], &[2, 5]]);
}

/// lu: `for k: { for i > k: A[i][k] /= A[k][k]; for i > k, j > k: A[i][j] -= A[i][k] * A[k][j]; }`
#[test]
fn lu_triangular() {
    let p = &["N"];
    let s = scop(
        p,
        "[N] -> { : N >= 1 }",
        vec![
            stmt(
                p,
                "[N] -> { S0[k, i] : 0 <= k < N and k < i < N }",
                &[
                    (R, "{ S0[k, i] -> A[i, k] }"),
                    (R, "{ S0[k, i] -> A[k, k] }"),
                    (W, "{ S0[k, i] -> A[i, k] }"),
                ],
            ),
            stmt(
                p,
                "[N] -> { S1[k, i, j] : 0 <= k < N and k < i < N and k < j < N }",
                &[
                    (R, "{ S1[k, i, j] -> A[i, j] }"),
                    (R, "{ S1[k, i, j] -> A[i, k] }"),
                    (R, "{ S1[k, i, j] -> A[k, j] }"),
                    (W, "{ S1[k, i, j] -> A[i, j] }"),
                ],
            ),
        ],
        band(
            "{ S0[k, i] -> [k]; S1[k, i, j] -> [k] }",
            band(
                "{ S0[k, i] -> [i]; S1[k, i, j] -> [i] }",
                seq(vec![
                    ("{ S0[k, i] }", Node::Leaf),
                    (
                        "{ S1[k, i, j] }",
                        band("{ S1[k, i, j] -> [j] }", Node::Leaf),
                    ),
                ]),
            ),
        ),
    );
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    expect_relation(
        &deps,
        DepKind::Flow,
        "A",
        "S0",
        "S1",
        Some("[N] -> { S0[k, i] -> S1[k, i, j] : 0 <= k and k < i < N and k < j < N }"),
    );
    agrees(&s, &[&[1], &[3], &[4]]);
}

/// Statements under conditions, two writers of one element and a read of both:
/// `for i: { if (i % 2 == 0) A[i] = A[i - 2]; if (i >= M) A[i] = 0; x = A[i]; }`
#[test]
fn statements_under_if() {
    let p = &["N", "M"];
    let s = scop(
        p,
        "[N, M] -> { : N >= 0 }",
        vec![
            stmt(
                p,
                "[N] -> { S0[i] : 0 <= i < N and i mod 2 = 0 }",
                &[(R, "{ S0[i] -> A[i - 2] }"), (W, "{ S0[i] -> A[i] }")],
            ),
            stmt(
                p,
                "[N, M] -> { S1[i] : 0 <= i < N and i >= M }",
                &[(W, "{ S1[i] -> A[i] }")],
            ),
            stmt(
                p,
                "[N] -> { S2[i] : 0 <= i < N }",
                &[(R, "{ S2[i] -> A[i] }"), (W, "{ S2[i] -> x[] }")],
            ),
        ],
        band(
            "{ S0[i] -> [i]; S1[i] -> [i]; S2[i] -> [i] }",
            seq(vec![
                ("[N] -> { S0[i] }", Node::Leaf),
                ("[N, M] -> { S1[i] }", Node::Leaf),
                ("[N] -> { S2[i] }", Node::Leaf),
            ]),
        ),
    );
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    expect_relation(
        &deps,
        DepKind::Flow,
        "A",
        "S0",
        "S2",
        Some("[N, M] -> { S0[i] -> S2[i] : 0 <= i < N and i mod 2 = 0 and i < M }"),
    );
    expect_relation(
        &deps,
        DepKind::Flow,
        "A",
        "S1",
        "S2",
        Some("[N, M] -> { S1[i] -> S2[i] : 0 <= i < N and i >= M }"),
    );
    expect_relation(
        &deps,
        DepKind::Flow,
        "A",
        "S1",
        "S0",
        Some("[N, M] -> { S1[i] -> S0[i + 2] : i >= M and 0 <= i < N - 2 and i mod 2 = 0 }"),
    );
    agrees(&s, &[&[0, 0], &[5, 2], &[6, 3], &[4, 7], &[5, -1]]);
}

// ----- the oracle itself -----

#[test]
fn oracle_detects_wrong_relations() {
    let s = recurrence();
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    let wrong: Map = "[N] -> { S[i] -> S[i + 2] : 1 <= i < N - 2 }"
        .parse()
        .unwrap();
    let forged = Dependences::new(
        deps.param_names().to_vec(),
        deps.statements().to_vec(),
        Analysis::ValueBased,
        vec![Dependence {
            kind: DepKind::Flow,
            array: "A".into(),
            source: "S".into(),
            target: "S".into(),
            relation: wrong,
        }],
    )
    .unwrap();
    assert!(oracle::check(&s, &deps, &[4]).is_ok());
    let err = oracle::check(&s, &forged, &[4]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("S[1] -> S[2]"), "{text}");
    assert!(matches!(err, oracle::OracleError::Mismatch(m) if !m.in_analysis));
    assert!(matches!(
        oracle::check(&s, &deps, &[0]),
        Err(oracle::OracleError::OutsideContext { .. })
    ));
}

#[test]
fn oracle_trace_counts() {
    let s = accumulator();
    let trace = Trace::new(&s, &[3]).unwrap();
    assert_eq!(trace.n_instances(), 5);
    // value-based flow: S0->S1[0], S1[0]->S1[1], S1[1]->S1[2], S1[2]->S2
    let flows = trace
        .pairs(Analysis::ValueBased)
        .into_iter()
        .filter(|p| p.kind == DepKind::Flow)
        .count();
    assert_eq!(flows, 4);
}

// ----- the graph -----

#[test]
fn sccs_are_topologically_ordered() {
    let params = vec!["N".to_string()];
    let names: Vec<String> = ["S0", "S1", "S2", "S3"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let dep = |src: &str, dst: &str| Dependence {
        kind: DepKind::Flow,
        array: "A".into(),
        source: src.into(),
        target: dst.into(),
        relation: format!("[N] -> {{ {src}[i] -> {dst}[i] : 0 <= i < N }}")
            .parse()
            .unwrap(),
    };
    let deps = Dependences::new(
        params.clone(),
        names.clone(),
        Analysis::ValueBased,
        vec![
            dep("S1", "S0"),
            dep("S0", "S1"),
            dep("S2", "S0"),
            dep("S3", "S3"),
        ],
    )
    .unwrap();
    let graph = deps.graph();
    assert_eq!(graph.sccs(), &[vec![2], vec![0, 1], vec![3]]);
    assert!(graph.has_self_dependence(3));
    assert!(!graph.has_self_dependence(0));
    assert_eq!(graph.scc_of(1), 1);
    assert_eq!(graph.edges_between_sccs(0, 1).count(), 1);
    assert_eq!(graph.successors(0), vec![1]);
    // canonical order: kind, source, target, array
    let order: Vec<(&str, &str)> = deps
        .iter()
        .map(|d| (d.source.as_str(), d.target.as_str()))
        .collect();
    assert_eq!(
        order,
        vec![("S0", "S1"), ("S1", "S0"), ("S2", "S0"), ("S3", "S3")]
    );
    // duplicates and unknown statements are refused
    assert!(Dependences::new(
        params.clone(),
        names.clone(),
        Analysis::ValueBased,
        vec![dep("S1", "S0"), dep("S1", "S0")]
    )
    .is_err());
    assert!(Dependences::new(params, names, Analysis::ValueBased, vec![dep("S1", "S9")]).is_err());
}

/// nussinov: a decreasing outer loop, conditional statements and a triangular inner
/// reduction, all updating `table[i][j]`.
#[test]
fn nussinov() {
    let p = &["N"];
    let t = "table";
    let s = scop(
        p,
        "[N] -> { : N >= 1 }",
        vec![
            stmt(
                p,
                "[N] -> { S0[i, j] : 0 <= i < N and i < j < N and j >= 1 }",
                &[
                    (R, "{ S0[i, j] -> table[i, j] }"),
                    (R, "{ S0[i, j] -> table[i, j - 1] }"),
                    (W, "{ S0[i, j] -> table[i, j] }"),
                ],
            ),
            stmt(
                p,
                "[N] -> { S1[i, j] : 0 <= i < N and i < j < N and i + 1 < N }",
                &[
                    (R, "{ S1[i, j] -> table[i, j] }"),
                    (R, "{ S1[i, j] -> table[i + 1, j] }"),
                    (W, "{ S1[i, j] -> table[i, j] }"),
                ],
            ),
            stmt(
                p,
                "[N] -> { S2[i, j] : 0 <= i < N and i < j < N and j >= 1 and i + 1 < N \
                 and i < j - 1 }",
                &[
                    (R, "{ S2[i, j] -> table[i, j] }"),
                    (R, "{ S2[i, j] -> table[i + 1, j - 1] }"),
                    (R, "{ S2[i, j] -> seq[i] }"),
                    (R, "{ S2[i, j] -> seq[j] }"),
                    (W, "{ S2[i, j] -> table[i, j] }"),
                ],
            ),
            stmt(
                p,
                "[N] -> { S3[i, j] : 0 <= i < N and i < j < N and j >= 1 and i + 1 < N \
                 and i >= j - 1 }",
                &[
                    (R, "{ S3[i, j] -> table[i, j] }"),
                    (R, "{ S3[i, j] -> table[i + 1, j - 1] }"),
                    (W, "{ S3[i, j] -> table[i, j] }"),
                ],
            ),
            stmt(
                p,
                "[N] -> { S4[i, j, k] : 0 <= i < N and i < j < N and i < k < j }",
                &[
                    (R, "{ S4[i, j, k] -> table[i, j] }"),
                    (R, "{ S4[i, j, k] -> table[i, k] }"),
                    (R, "{ S4[i, j, k] -> table[k + 1, j] }"),
                    (W, "{ S4[i, j, k] -> table[i, j] }"),
                ],
            ),
        ],
        band(
            "{ S0[i, j] -> [-i]; S1[i, j] -> [-i]; S2[i, j] -> [-i]; S3[i, j] -> [-i]; \
             S4[i, j, k] -> [-i] }",
            band(
                "{ S0[i, j] -> [j]; S1[i, j] -> [j]; S2[i, j] -> [j]; S3[i, j] -> [j]; \
                 S4[i, j, k] -> [j] }",
                seq(vec![
                    ("{ S0[i, j] }", Node::Leaf),
                    ("{ S1[i, j] }", Node::Leaf),
                    ("{ S2[i, j] }", Node::Leaf),
                    ("{ S3[i, j] }", Node::Leaf),
                    (
                        "{ S4[i, j, k] }",
                        band("{ S4[i, j, k] -> [k] }", Node::Leaf),
                    ),
                ]),
            ),
        ),
    );
    let deps = analyze(&s, Analysis::ValueBased).unwrap();
    // S0 at (i, j) reads table[i][j - 1], last written at (i, j - 1) by S3 when that is
    // the first j of row i (no k loop, no S2), and by the last S4 otherwise.
    expect_relation(&deps, DepKind::Flow, t, "S1", "S0", None);
    expect_relation(
        &deps,
        DepKind::Flow,
        t,
        "S3",
        "S0",
        Some("[N] -> { S3[i, j] -> S0[i, j + 1] : j = i + 1 and 0 <= i and i + 2 < N }"),
    );
    expect_relation(
        &deps,
        DepKind::Flow,
        t,
        "S4",
        "S0",
        Some(
            "[N] -> { S4[i, j, k] -> S0[i, j + 1] : k = j - 1 and 0 <= i and i + 2 <= j < N - 1 }",
        ),
    );
    agrees(&s, &[&[1], &[4], &[6]]);
}

#[test]
fn unscheduled_statement_is_an_error() {
    let mut s = recurrence();
    s.statements.push(stmt(
        &["N"],
        "[N] -> { T[i] : 0 <= i < N }",
        &[(W, "{ T[i] -> A[i] }")],
    ));
    assert!(analyze(&s, Analysis::ValueBased).is_err());
}
