//! Tests of the independent legality checker on hand-built domains, dependences and
//! schedule trees, and a brute-force cross-check on random small schedules.

use pollen_deps::{Analysis, DepKind, Dependence};
use pollen_presburger::{Int, Map, Set, UnionMap, UnionSet};
use pollen_sched::legality::{self, Report, Violation, ViolationKind};
use pollen_scop::{Band, Node, ScheduleTree};

// ----- builders -----

fn map(text: &str) -> Map {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn union_set(text: &str) -> UnionSet {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn union_map(text: &str) -> UnionMap {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A dependence whose statements are read from the relation's tuples.
fn dep(kind: DepKind, array: &str, relation: &str) -> Dependence {
    let relation = map(relation);
    let name = |t: Option<&pollen_presburger::Tuple>| t.and_then(|t| t.name()).unwrap().to_string();
    Dependence {
        kind,
        array: array.to_string(),
        source: name(relation.space().domain_tuple()),
        target: name(relation.space().range_tuple()),
        relation,
    }
}

fn band(schedule: &str, permutable: bool, coincident: &[bool], child: Node) -> Node {
    Node::Band(Band {
        schedule: union_map(schedule),
        permutable,
        coincident: coincident.to_vec(),
        child: Box::new(child),
    })
}

fn leaf_band(schedule: &str, permutable: bool, coincident: &[bool]) -> Node {
    band(schedule, permutable, coincident, Node::Leaf)
}

fn filter(set: &str, child: Node) -> Node {
    Node::filter(union_set(set), child)
}

fn tree(domain: &str, child: Node) -> ScheduleTree {
    ScheduleTree {
        root: Node::Domain {
            domain: union_set(domain),
            child: Box::new(child),
        },
    }
}

fn check(deps: &[Dependence], t: &ScheduleTree) -> Report {
    legality::check(deps, t).unwrap_or_else(|e| panic!("check failed: {e}"))
}

fn ints(v: &[i64]) -> Vec<Int> {
    v.iter().map(|&x| Int::from(x)).collect()
}

fn small(v: &Int) -> i64 {
    v.to_i64().expect("small value")
}

/// Asserts that the example of `v` is a pair of its dependence (parameters, source and
/// target fixed) in `deps`.
fn assert_example_in_relation(deps: &[Dependence], v: &Violation) {
    let d = &deps[v.dependence.index];
    let e = &v.example;
    let names: Vec<&str> = e.params.iter().map(|(n, _)| n.as_str()).collect();
    let relation = d
        .relation
        .align_params(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        .unwrap();
    let mut point: Vec<Int> = e.params.iter().map(|(_, v)| v.clone()).collect();
    point.extend(e.source.coords.iter().cloned());
    point.extend(e.target.coords.iter().cloned());
    assert!(
        relation.contains_point(&point).unwrap(),
        "example {e} is not a pair of {}",
        d.relation
    );
}

fn the_param(v: &Violation, name: &str) -> i64 {
    let (_, value) = v
        .example
        .params
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no parameter {name} in {}", v.example));
    small(value)
}

// ----- a recurrence A[i] = A[i - 1] -----

const REC_DOMAIN: &str = "[N] -> { S[i] : 1 <= i < N }";

fn recurrence() -> Vec<Dependence> {
    vec![dep(
        DepKind::Flow,
        "A",
        "[N] -> { S[i] -> S[i + 1] : 1 <= i < N - 1 }",
    )]
}

#[test]
fn recurrence_original_order_is_legal() {
    let t = tree(
        REC_DOMAIN,
        leaf_band("[N] -> { S[i] -> [i] }", true, &[false]),
    );
    let r = check(&recurrence(), &t);
    assert!(r.is_legal(), "{r}");
    assert_eq!(r.to_string(), "legal\n");
}

#[test]
fn recurrence_reversed_is_rejected_with_the_dependence_named() {
    let deps = recurrence();
    let t = tree(
        REC_DOMAIN,
        leaf_band("[N] -> { S[i] -> [-i] }", false, &[false]),
    );
    let r = check(&deps, &t);
    assert_eq!(r.violations.len(), 1, "{r}");
    let v = &r.violations[0];
    assert_eq!(v.kind, ViolationKind::Order { dim: Some(0) });
    assert_eq!(v.dependence.kind, DepKind::Flow);
    assert_eq!(v.dependence.array, "A");
    assert_eq!(
        (v.dependence.source.as_str(), v.dependence.target.as_str()),
        ("S", "S")
    );
    assert_example_in_relation(&deps, v);
    let e = &v.example;
    let x = small(&e.source.coords[0]);
    let y = small(&e.target.coords[0]);
    assert_eq!(y, x + 1);
    assert_eq!(e.source_schedule, Some(ints(&[-x])));
    assert_eq!(e.target_schedule, Some(ints(&[-y])));
    assert!(the_param(v, "N") >= 3);
    let text = r.to_string();
    assert!(text.contains("flow dependence #0 S -> S on A"), "{text}");
    assert!(text.contains("for N = "), "{text}");
}

#[test]
fn flat_schedule_of_the_recurrence() {
    let deps = recurrence();
    let good = legality::check_map(&deps, &union_map("[N] -> { S[i] -> [0, i] }")).unwrap();
    assert!(good.is_legal(), "{good}");
    let same_time = legality::check_map(&deps, &union_map("[N] -> { S[i] -> [0, 0] }")).unwrap();
    assert_eq!(same_time.violations.len(), 1);
    assert_eq!(
        same_time.violations[0].kind,
        ViolationKind::Order { dim: None }
    );
}

#[test]
fn coincident_loop_carrying_the_recurrence_is_rejected() {
    let deps = recurrence();
    let t = tree(
        REC_DOMAIN,
        leaf_band("[N] -> { S[i] -> [i] }", true, &[true]),
    );
    let r = check(&deps, &t);
    assert_eq!(r.violations.len(), 1, "{r}");
    let v = &r.violations[0];
    assert_eq!(
        v.kind,
        ViolationKind::Coincident {
            band: vec![0],
            member: 0,
            dim: 0
        }
    );
    assert_example_in_relation(&deps, v);
    assert!(r.to_string().contains("marked coincident"), "{r}");
}

#[test]
fn coincident_loop_without_dependence_is_legal() {
    // B[i] = A[i]: no dependence between iterations.
    let t = tree(
        REC_DOMAIN,
        leaf_band("[N] -> { S[i] -> [i] }", true, &[true]),
    );
    assert!(check(&[], &t).is_legal());
}

#[test]
fn unscheduled_instances_are_reported() {
    let deps = recurrence();
    // The schedule covers only half of the instances.
    let partial = union_map("[N] -> { S[i] -> [i] : i <= 5 }");
    let r = legality::check_map(&deps, &partial).unwrap();
    assert_eq!(r.violations.len(), 1, "{r}");
    assert_eq!(
        r.violations[0].kind,
        ViolationKind::Unscheduled {
            statement: "S".into()
        }
    );
    let e = &r.violations[0].example;
    assert!(e.source_schedule.is_none() || e.target_schedule.is_none());
    // A schedule without the statement at all.
    let none = union_map("[N] -> { T[i] -> [i] }");
    let r = legality::check_map(&deps, &none).unwrap();
    assert_eq!(r.violations.len(), 1, "{r}");
}

// ----- gemm-like: C[i][j] += A[i][k] * B[k][j] -----

const GEMM_DOMAIN: &str = "[N] -> { S[i, j, k] : 0 <= i < N and 0 <= j < N and 0 <= k < N }";

fn gemm() -> Vec<Dependence> {
    let rel =
        "[N] -> { S[i, j, k] -> S[i, j, k + 1] : 0 <= i < N and 0 <= j < N and 0 <= k < N - 1 }";
    vec![
        dep(DepKind::Flow, "C", rel),
        dep(DepKind::Anti, "C", rel),
        dep(DepKind::Output, "C", rel),
    ]
}

#[test]
fn gemm_original_and_interchanges_are_legal() {
    let deps = gemm();
    for (schedule, coincident) in [
        ("[N] -> { S[i, j, k] -> [i, j, k] }", [true, true, false]),
        ("[N] -> { S[i, j, k] -> [i, k, j] }", [true, false, true]),
        ("[N] -> { S[i, j, k] -> [k, i, j] }", [false, true, true]),
    ] {
        let t = tree(GEMM_DOMAIN, leaf_band(schedule, true, &coincident));
        let r = check(&deps, &t);
        assert!(r.is_legal(), "{schedule}: {r}");
    }
}

#[test]
fn gemm_reduction_loop_marked_coincident_is_rejected() {
    let deps = gemm();
    let t = tree(
        GEMM_DOMAIN,
        leaf_band(
            "[N] -> { S[i, j, k] -> [i, k, j] }",
            true,
            &[true, true, true],
        ),
    );
    let r = check(&deps, &t);
    assert_eq!(r.violations.len(), 3, "{r}");
    for (v, kind) in r
        .violations
        .iter()
        .zip([DepKind::Flow, DepKind::Anti, DepKind::Output])
    {
        assert_eq!(v.dependence.kind, kind);
        assert_eq!(
            v.kind,
            ViolationKind::Coincident {
                band: vec![0],
                member: 1,
                dim: 1
            }
        );
        assert_example_in_relation(&deps, v);
    }
}

#[test]
fn gemm_reversed_reduction_is_rejected() {
    let deps = gemm();
    let t = tree(
        GEMM_DOMAIN,
        leaf_band("[N] -> { S[i, j, k] -> [i, j, -k] }", false, &[false; 3]),
    );
    let r = check(&deps, &t);
    assert_eq!(r.violations.len(), 3, "{r}");
    assert!(r
        .violations
        .iter()
        .all(|v| v.kind == ViolationKind::Order { dim: Some(2) }));
}

// ----- jacobi-1d: S0: B[i] = f(A[i-1], A[i], A[i+1]); S1: A[i] = B[i] -----

const JACOBI_DOMAIN: &str = "[T, N] -> { S0[t, i] : 0 <= t < T and 1 <= i <= N - 2; \
                             S1[t, i] : 0 <= t < T and 1 <= i <= N - 2 }";

fn jacobi() -> Vec<Dependence> {
    let bounds = |last: &str, j: &str| {
        format!("0 <= t and {last} < T and 1 <= i <= N - 2 and 1 <= {j} <= N - 2")
    };
    vec![
        dep(
            DepKind::Flow,
            "B",
            "[T, N] -> { S0[t, i] -> S1[t, i] : 0 <= t < T and 1 <= i <= N - 2 }",
        ),
        dep(
            DepKind::Flow,
            "A",
            &format!(
                "[T, N] -> {{ S1[t, i] -> S0[t + 1, j] : i - 1 <= j <= i + 1 and {} }}",
                bounds("t + 1", "j")
            ),
        ),
        dep(
            DepKind::Anti,
            "A",
            &format!(
                "[T, N] -> {{ S0[t, i] -> S1[t, j] : i - 1 <= j <= i + 1 and {} }}",
                bounds("t", "j")
            ),
        ),
        dep(
            DepKind::Anti,
            "B",
            "[T, N] -> { S1[t, i] -> S0[t + 1, i] : 0 <= t < T - 1 and 1 <= i <= N - 2 }",
        ),
        dep(
            DepKind::Output,
            "B",
            "[T, N] -> { S0[t, i] -> S0[t + 1, i] : 0 <= t < T - 1 and 1 <= i <= N - 2 }",
        ),
        dep(
            DepKind::Output,
            "A",
            "[T, N] -> { S1[t, i] -> S1[t + 1, i] : 0 <= t < T - 1 and 1 <= i <= N - 2 }",
        ),
    ]
}

/// A band over both statements, then S0 before S1.
fn jacobi_fused(schedule: &str, permutable: bool, coincident: &[bool]) -> ScheduleTree {
    tree(
        JACOBI_DOMAIN,
        band(
            schedule,
            permutable,
            coincident,
            Node::Sequence(vec![
                filter("[T, N] -> { S0[t, i] }", Node::Leaf),
                filter("[T, N] -> { S1[t, i] }", Node::Leaf),
            ]),
        ),
    )
}

#[test]
fn jacobi_original_is_legal() {
    let t = tree(
        JACOBI_DOMAIN,
        band(
            "[T, N] -> { S0[t, i] -> [t]; S1[t, i] -> [t] }",
            true,
            &[false],
            Node::Sequence(vec![
                filter(
                    "[T, N] -> { S0[t, i] }",
                    leaf_band("[T, N] -> { S0[t, i] -> [i] }", true, &[true]),
                ),
                filter(
                    "[T, N] -> { S1[t, i] }",
                    leaf_band("[T, N] -> { S1[t, i] -> [i] }", true, &[true]),
                ),
            ]),
        ),
    );
    let r = check(&jacobi(), &t);
    assert!(r.is_legal(), "{r}");
}

#[test]
fn jacobi_original_with_wrong_statement_order_is_rejected() {
    let deps = jacobi();
    let t = tree(
        JACOBI_DOMAIN,
        band(
            "[T, N] -> { S0[t, i] -> [t]; S1[t, i] -> [t] }",
            false,
            &[false],
            Node::Sequence(vec![
                filter(
                    "[T, N] -> { S1[t, i] }",
                    leaf_band("[T, N] -> { S1[t, i] -> [i] }", false, &[false]),
                ),
                filter(
                    "[T, N] -> { S0[t, i] }",
                    leaf_band("[T, N] -> { S0[t, i] -> [i] }", false, &[false]),
                ),
            ]),
        ),
    );
    let r = check(&deps, &t);
    let named: Vec<(DepKind, &str)> = r
        .violations
        .iter()
        .map(|v| (v.dependence.kind, v.dependence.array.as_str()))
        .collect();
    // S0 -> S1 within one time step: the flow on B and the anti on A.
    assert_eq!(
        named,
        vec![(DepKind::Flow, "B"), (DepKind::Anti, "A")],
        "{r}"
    );
    for v in &r.violations {
        assert_eq!(v.kind, ViolationKind::Order { dim: Some(1) });
        assert_example_in_relation(&deps, v);
    }
}

#[test]
fn jacobi_fused_without_shift_is_illegal() {
    // S1[t, i - 1] overwrites A[i - 1] before S0[t, i] reads it.
    let deps = jacobi();
    let t = jacobi_fused(
        "[T, N] -> { S0[t, i] -> [t, i]; S1[t, i] -> [t, i] }",
        false,
        &[false, false],
    );
    let r = check(&deps, &t);
    assert_eq!(r.violations.len(), 1, "{r}");
    let v = &r.violations[0];
    assert_eq!(
        (v.dependence.kind, v.dependence.array.as_str()),
        (DepKind::Anti, "A")
    );
    assert_eq!(v.kind, ViolationKind::Order { dim: Some(1) });
    let e = &v.example;
    assert_eq!(small(&e.target.coords[1]), small(&e.source.coords[1]) - 1);
}

#[test]
fn jacobi_fused_with_shift_is_legal_but_not_permutable() {
    let deps = jacobi();
    let schedule = "[T, N] -> { S0[t, i] -> [t, i]; S1[t, i] -> [t, i + 1] }";
    let plain = check(&deps, &jacobi_fused(schedule, false, &[false, false]));
    assert!(plain.is_legal(), "{plain}");
    let r = check(&deps, &jacobi_fused(schedule, true, &[false, false]));
    // S1[t, i] -> S0[t + 1, i - 1] (flow on A): distance i - 1 - (i + 1) = -2 on the
    // second member; S1[t, i] -> S0[t + 1, i] (anti on B): distance -1.
    let named: Vec<(DepKind, &str)> = r
        .violations
        .iter()
        .map(|v| (v.dependence.kind, v.dependence.array.as_str()))
        .collect();
    assert_eq!(
        named,
        vec![(DepKind::Flow, "A"), (DepKind::Anti, "B")],
        "{r}"
    );
    let v = &r.violations[0];
    assert_eq!(
        v.kind,
        ViolationKind::Permutable {
            band: vec![0],
            member: 1,
            dim: 1
        }
    );
    let (s, t) = (
        v.example.source_schedule.clone().unwrap(),
        v.example.target_schedule.clone().unwrap(),
    );
    assert!(small(&t[1]) < small(&s[1]), "{}", v.example);
    assert_example_in_relation(&deps, v);
    assert!(r.to_string().contains("permutable"), "{r}");
}

#[test]
fn jacobi_skewed_is_legal_and_permutable() {
    let deps = jacobi();
    let schedule = "[T, N] -> { S0[t, i] -> [t, 2t + i]; S1[t, i] -> [t, 2t + i + 1] }";
    let r = check(&deps, &jacobi_fused(schedule, true, &[false, false]));
    assert!(r.is_legal(), "{r}");
    // Neither member is parallel: the time loop carries the flow on A, and the skewed
    // space loop carries the flow on B (distance 1 within one time step).
    let r = check(&deps, &jacobi_fused(schedule, true, &[false, true]));
    assert!(!r.is_legal());
    assert!(r
        .violations
        .iter()
        .all(|v| matches!(v.kind, ViolationKind::Coincident { member: 1, .. })));
    assert!(r
        .violations
        .iter()
        .any(|v| (v.dependence.kind, v.dependence.array.as_str()) == (DepKind::Flow, "B")));
    let r = check(&deps, &jacobi_fused(schedule, true, &[true, false]));
    assert!(r
        .violations
        .iter()
        .all(|v| matches!(v.kind, ViolationKind::Coincident { member: 0, .. })));
    assert!(!r.is_legal());
}

#[test]
fn jacobi_skewed_without_shift_is_illegal() {
    let deps = jacobi();
    let schedule = "[T, N] -> { S0[t, i] -> [t, 2t + i]; S1[t, i] -> [t, 2t + i] }";
    let r = check(&deps, &jacobi_fused(schedule, true, &[false, false]));
    assert!(r
        .violations
        .iter()
        .any(|v| v.kind == ViolationKind::Order { dim: Some(1) }
            && v.dependence.kind == DepKind::Anti));
}

// ----- producer and consumer in sequence -----

const PAIR_DOMAIN: &str = "[N] -> { P[i] : 0 <= i < N; C[i] : 0 <= i < N }";

fn producer_consumer() -> Vec<Dependence> {
    vec![dep(
        DepKind::Flow,
        "B",
        "[N] -> { P[i] -> C[i] : 0 <= i < N }",
    )]
}

fn sequenced(first: &str, second: &str) -> ScheduleTree {
    let part = |s: &str| {
        filter(
            &format!("[N] -> {{ {s}[i] }}"),
            leaf_band(&format!("[N] -> {{ {s}[i] -> [i] }}"), true, &[true]),
        )
    };
    tree(PAIR_DOMAIN, Node::Sequence(vec![part(first), part(second)]))
}

#[test]
fn producer_before_consumer_is_legal() {
    let r = check(&producer_consumer(), &sequenced("P", "C"));
    assert!(r.is_legal(), "{r}");
}

#[test]
fn consumer_before_producer_is_rejected() {
    let deps = producer_consumer();
    let r = check(&deps, &sequenced("C", "P"));
    assert_eq!(r.violations.len(), 1, "{r}");
    let v = &r.violations[0];
    assert_eq!(v.kind, ViolationKind::Order { dim: Some(0) });
    assert_eq!(
        (v.dependence.source.as_str(), v.dependence.target.as_str()),
        ("P", "C")
    );
    let e = &v.example;
    assert_eq!(e.source.statement, "P");
    assert_eq!(e.target.statement, "C");
    assert_eq!(e.source_schedule.as_ref().map(|s| small(&s[0])), Some(1));
    assert_eq!(e.target_schedule.as_ref().map(|s| small(&s[0])), Some(0));
}

#[test]
fn set_node_between_dependent_statements_is_rejected() {
    let deps = producer_consumer();
    let part = |s: &str| {
        filter(
            &format!("[N] -> {{ {s}[i] }}"),
            leaf_band(&format!("[N] -> {{ {s}[i] -> [i] }}"), false, &[false]),
        )
    };
    let t = tree(PAIR_DOMAIN, Node::Set(vec![part("P"), part("C")]));
    let r = check(&deps, &t);
    assert_eq!(r.violations.len(), 1, "{r}");
    assert_eq!(
        r.violations[0].kind,
        ViolationKind::SetOrder {
            node: vec![0],
            source_child: 0,
            target_child: 1
        }
    );
    // Separated by an outer band (consumer one iteration later), the set is fine.
    let shifted = tree(
        PAIR_DOMAIN,
        band(
            "[N] -> { P[i] -> [i]; C[i] -> [i + 1] }",
            false,
            &[false],
            Node::Set(vec![
                filter("[N] -> { P[i] }", Node::Leaf),
                filter("[N] -> { C[i] }", Node::Leaf),
            ]),
        ),
    );
    let r = check(&deps, &shifted);
    assert!(r.is_legal(), "{r}");
}

#[test]
fn fused_producer_consumer_is_parallel() {
    let t = tree(
        PAIR_DOMAIN,
        band(
            "[N] -> { P[i] -> [i]; C[i] -> [i] }",
            true,
            &[true],
            Node::Sequence(vec![
                filter("[N] -> { P[i] }", Node::Leaf),
                filter("[N] -> { C[i] }", Node::Leaf),
            ]),
        ),
    );
    let r = check(&producer_consumer(), &t);
    assert!(r.is_legal(), "{r}");
}

// ----- coincidence decided at the right level -----

const ROWS_DOMAIN: &str = "[N] -> { S[i, j] : 0 <= i < N and 0 <= j < N }";

/// A[i][j] = A[i][j - 1]: carried by j only.
fn along_rows() -> Vec<Dependence> {
    vec![dep(
        DepKind::Flow,
        "A",
        "[N] -> { S[i, j] -> S[i, j + 1] : 0 <= i < N and 0 <= j < N - 1 }",
    )]
}

fn nested(
    outer: &str,
    outer_coincident: bool,
    inner: &str,
    inner_coincident: bool,
) -> ScheduleTree {
    tree(
        ROWS_DOMAIN,
        band(
            outer,
            true,
            &[outer_coincident],
            leaf_band(inner, true, &[inner_coincident]),
        ),
    )
}

#[test]
fn outer_coincident_member_above_the_carrying_level_is_legal() {
    let t = nested(
        "[N] -> { S[i, j] -> [i] }",
        true,
        "[N] -> { S[i, j] -> [j] }",
        false,
    );
    let r = check(&along_rows(), &t);
    assert!(r.is_legal(), "{r}");
}

#[test]
fn inner_coincident_member_carrying_the_dependence_is_rejected() {
    // The whole schedule satisfies the dependence, but only at the inner level: the inner
    // loop is not parallel.
    let t = nested(
        "[N] -> { S[i, j] -> [i] }",
        true,
        "[N] -> { S[i, j] -> [j] }",
        true,
    );
    let r = check(&along_rows(), &t);
    assert_eq!(r.violations.len(), 1, "{r}");
    assert_eq!(
        r.violations[0].kind,
        ViolationKind::Coincident {
            band: vec![0, 0],
            member: 0,
            dim: 1
        }
    );
}

#[test]
fn outer_coincident_member_carrying_the_dependence_is_rejected() {
    // Interchanged: the outer loop over j carries the dependence.
    let t = nested(
        "[N] -> { S[i, j] -> [j] }",
        true,
        "[N] -> { S[i, j] -> [i] }",
        true,
    );
    let r = check(&along_rows(), &t);
    assert_eq!(r.violations.len(), 1, "{r}");
    assert_eq!(
        r.violations[0].kind,
        ViolationKind::Coincident {
            band: vec![0],
            member: 0,
            dim: 0
        }
    );
}

#[test]
fn outer_coincident_member_rejected_for_a_dependence_satisfied_inside() {
    // A[i][j] = A[i - 1][j] + A[i][j - 1]: distances (1, 0) and (0, 1). In the band (i, j)
    // the inner member carries (0, 1), the outer (1, 0): neither is parallel, although the
    // (0, 1) part is satisfied only at the inner level.
    let mut deps = along_rows();
    deps.push(dep(
        DepKind::Flow,
        "A",
        "[N] -> { S[i, j] -> S[i + 1, j] : 0 <= i < N - 1 and 0 <= j < N }",
    ));
    let single = |c: [bool; 2]| {
        tree(
            ROWS_DOMAIN,
            leaf_band("[N] -> { S[i, j] -> [i, j] }", true, &c),
        )
    };
    assert!(check(&deps, &single([false, false])).is_legal());
    let r = check(&deps, &single([true, false]));
    assert_eq!(r.violations.len(), 1, "{r}");
    assert_eq!(r.violations[0].dependence.index, 1);
    let r = check(&deps, &single([false, true]));
    assert_eq!(r.violations.len(), 1, "{r}");
    assert_eq!(r.violations[0].dependence.index, 0);
    // The wavefront (i + j, i): the outer member carries both, the inner one none.
    let wave = tree(
        ROWS_DOMAIN,
        leaf_band("[N] -> { S[i, j] -> [i + j, i] }", true, &[false, true]),
    );
    let r = check(&deps, &wave);
    assert!(r.is_legal(), "{r}");
    let wave_wrong = tree(
        ROWS_DOMAIN,
        leaf_band("[N] -> { S[i, j] -> [i + j, i] }", true, &[true, true]),
    );
    let r = check(&deps, &wave_wrong);
    assert_eq!(r.violations.len(), 2, "{r}");
}

#[test]
fn permutability_ignores_dependences_satisfied_by_outer_bands() {
    // A[i][j] = A[i - 1][j + 1]: distance (1, -1). As one band (i, j) it is not
    // permutable; with i in an outer band, the inner band (j) is.
    let deps = vec![dep(
        DepKind::Flow,
        "A",
        "[N] -> { S[i, j] -> S[i + 1, j - 1] : 0 <= i < N - 1 and 1 <= j < N }",
    )];
    let one = tree(
        ROWS_DOMAIN,
        leaf_band("[N] -> { S[i, j] -> [i, j] }", true, &[false, true]),
    );
    let r = check(&deps, &one);
    assert_eq!(r.violations.len(), 1, "{r}");
    assert!(matches!(
        r.violations[0].kind,
        ViolationKind::Permutable { member: 1, .. }
    ));
    let two = nested(
        "[N] -> { S[i, j] -> [i] }",
        false,
        "[N] -> { S[i, j] -> [j] }",
        true,
    );
    let r = check(&deps, &two);
    assert!(r.is_legal(), "{r}");
}

// ----- parametric violations -----

#[test]
fn shift_by_a_parameter_is_rejected_only_where_it_reverses() {
    // The consumer is scheduled N - 5 iterations earlier: legal iff N <= 5.
    let deps = producer_consumer();
    let body = || {
        band(
            "[N] -> { P[i] -> [i]; C[i] -> [i - N + 5] }",
            false,
            &[false],
            Node::Sequence(vec![
                filter("[N] -> { P[i] }", Node::Leaf),
                filter("[N] -> { C[i] }", Node::Leaf),
            ]),
        )
    };
    let r = check(&deps, &tree(PAIR_DOMAIN, body()));
    assert_eq!(r.violations.len(), 1, "{r}");
    let v = &r.violations[0];
    assert!(the_param(v, "N") >= 6, "{}", v.example);
    assert_eq!(v.kind, ViolationKind::Order { dim: Some(0) });
    assert_example_in_relation(&deps, v);
    // Under a context N <= 5 the schedule is legal.
    let bounded = tree(
        PAIR_DOMAIN,
        Node::Context {
            context: "[N] -> { : N <= 5 }".parse::<Set>().unwrap(),
            child: Box::new(body()),
        },
    );
    let r = check(&deps, &bounded);
    assert!(r.is_legal(), "{r}");
}

#[test]
fn parametric_distance_is_rejected_only_where_the_dependence_exists() {
    // A[i + M] = A[i] for 0 <= i < 10: a dependence of distance M exists iff 1 <= M <= 9.
    let deps = vec![dep(
        DepKind::Flow,
        "A",
        "[M] -> { S[i] -> S[i + M] : 0 <= i and i + M < 10 and M >= 1 }",
    )];
    let t = tree(
        "[M] -> { S[i] : 0 <= i < 10 }",
        leaf_band("[M] -> { S[i] -> [-i] }", false, &[false]),
    );
    let r = check(&deps, &t);
    assert_eq!(r.violations.len(), 1, "{r}");
    let m = the_param(&r.violations[0], "M");
    assert!((1..=9).contains(&m), "{}", r.violations[0].example);
    let e = &r.violations[0].example;
    assert_eq!(small(&e.target.coords[0]) - small(&e.source.coords[0]), m);
}

// ----- errors and budgets -----

#[test]
fn malformed_trees_are_errors() {
    let deps = recurrence();
    let no_root = ScheduleTree { root: Node::Leaf };
    assert_eq!(
        legality::check(&deps, &no_root).unwrap_err(),
        legality::Error::NoDomainRoot
    );
    let arity = tree(
        REC_DOMAIN,
        leaf_band("[N] -> { S[i] -> [i, 0] }", false, &[false]),
    );
    assert!(legality::check(&deps, &arity).is_err());
    let missing = tree(
        REC_DOMAIN,
        leaf_band("[N] -> { T[i] -> [i] }", false, &[false]),
    );
    assert!(legality::check(&deps, &missing).is_err());
}

#[test]
fn a_tiny_budget_is_exhausted() {
    let deps = jacobi();
    let t = jacobi_fused(
        "[T, N] -> { S0[t, i] -> [t, 2t + i]; S1[t, i] -> [t, 2t + i + 1] }",
        true,
        &[false, true],
    );
    let mut budget = pollen_presburger::Budget::new(10);
    assert_eq!(
        legality::check_with(&deps, &t, &mut budget).unwrap_err(),
        legality::Error::LimitExceeded
    );
}

// ----- brute-force cross-check -----

/// A deterministic pseudo-random generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = u64::try_from(hi - lo + 1).unwrap();
        lo + i64::try_from(self.next() % span).unwrap()
    }

    fn coin(&mut self) -> bool {
        (self.next() >> 7) & 1 == 1
    }
}

/// The largest parameter value enumerated; the domains carry `N <= MAX_N`.
const MAX_N: i64 = 3;

/// Two statements S[i, j] and T[i, j] over `0 <= i, j <= N`.
const BF_DOMAIN: &str = "[N] -> { S[i, j] : 0 <= i <= N and 0 <= j <= N and N <= 3; \
                         T[i, j] : 0 <= i <= N and 0 <= j <= N and N <= 3 }";

type Instance = (usize, [i64; 2]);

/// A dependence as isl text and as a predicate `(N, source, target)`.
struct BfDep {
    text: &'static str,
    source: usize,
    target: usize,
    holds: fn(i64, [i64; 2], [i64; 2]) -> bool,
}

fn bf_deps() -> Vec<BfDep> {
    fn inside(n: i64, x: [i64; 2]) -> bool {
        x.iter().all(|&v| (0..=n).contains(&v))
    }
    vec![
        BfDep {
            text: "[N] -> { S[i, j] -> S[i + 1, j] : 0 <= i < N and 0 <= j <= N and N <= 3 }",
            source: 0,
            target: 0,
            holds: |n, x, y| inside(n, x) && inside(n, y) && y == [x[0] + 1, x[1]],
        },
        BfDep {
            text: "[N] -> { S[i, j] -> T[i, j + 1] : 0 <= i <= N and 0 <= j < N and N <= 3 }",
            source: 0,
            target: 1,
            holds: |n, x, y| inside(n, x) && inside(n, y) && y == [x[0], x[1] + 1],
        },
        BfDep {
            text: "[N] -> { T[i, j] -> S[i + 1, j'] : 0 <= i < N and 0 <= j <= N and 0 <= j' <= j and N <= 3 }",
            source: 1,
            target: 0,
            holds: |n, x, y| inside(n, x) && inside(n, y) && y[0] == x[0] + 1 && y[1] <= x[1],
        },
    ]
}

/// An affine function `a*i + b*j + c*N + d` of a statement instance.
#[derive(Clone, Copy)]
struct Affine([i64; 4]);

impl Affine {
    /// A random function; two times in three the iterator `preferred` (0 for `i`, 1 for
    /// `j`) plus a small constant, so that legal schedules are frequent.
    fn random(rng: &mut Rng, preferred: usize) -> Affine {
        if rng.range(0, 2) > 0 {
            let mut a = [0, 0, 0, rng.range(0, 1)];
            a[preferred] = 1;
            return Affine(a);
        }
        Affine([
            rng.range(-1, 2),
            rng.range(-1, 2),
            rng.range(-1, 1),
            rng.range(-1, 1),
        ])
    }

    fn eval(&self, n: i64, x: [i64; 2]) -> i64 {
        self.0[0] * x[0] + self.0[1] * x[1] + self.0[2] * n + self.0[3]
    }

    fn text(&self) -> String {
        format!(
            "{}i + {}j + {}N + {}",
            self.0[0], self.0[1], self.0[2], self.0[3]
        )
        .replace("+ -", "- ")
    }
}

/// A random band: per statement one affine function per member, with flags.
struct BfBand {
    functions: [Vec<Affine>; 2],
    permutable: bool,
    coincident: Vec<bool>,
}

const NAMES: [&str; 2] = ["S", "T"];

impl BfBand {
    /// A random band whose member `k` prefers iterator `first + k`.
    fn random(rng: &mut Rng, members: usize, first: usize, statements: &[usize]) -> BfBand {
        let mut functions = [Vec::new(), Vec::new()];
        for &s in statements {
            functions[s] = (0..members)
                .map(|k| Affine::random(rng, (first + k) % 2))
                .collect();
        }
        BfBand {
            functions,
            permutable: rng.coin(),
            coincident: (0..members).map(|_| rng.coin()).collect(),
        }
    }

    fn node(&self, child: Node) -> Node {
        let parts: Vec<String> = (0..2)
            .filter(|&s| !self.functions[s].is_empty())
            .map(|s| {
                let members: Vec<String> = self.functions[s].iter().map(Affine::text).collect();
                format!("{}[i, j] -> [{}]", NAMES[s], members.join(", "))
            })
            .collect();
        band(
            &format!("[N] -> {{ {} }}", parts.join("; ")),
            self.permutable,
            &self.coincident,
            child,
        )
    }

    fn values(&self, n: i64, (s, x): Instance) -> Vec<i64> {
        self.functions[s].iter().map(|f| f.eval(n, x)).collect()
    }
}

/// One dimension of a flattened schedule: a band member or a sequence position.
#[derive(Clone, Copy)]
enum Dim {
    Member(usize, usize),
    Position,
}

/// A random tree of one of three shapes, with what the brute force needs to know.
struct BfTree {
    bands: Vec<BfBand>,
    /// Per statement, the flattened dimensions.
    dims: [Vec<Dim>; 2],
    /// Per band: the number of dimensions above it and whether it covers both statements.
    placement: Vec<(usize, bool)>,
    tree: ScheduleTree,
}

fn seq_node(children: [Node; 2]) -> Node {
    let [s, t] = children;
    Node::Sequence(vec![
        filter("[N] -> { S[i, j] }", s),
        filter("[N] -> { T[i, j] }", t),
    ])
}

fn random_tree(rng: &mut Rng) -> BfTree {
    use Dim::{Member, Position};
    let both = [0, 1];
    match rng.range(0, 2) {
        0 => {
            let b = BfBand::random(rng, 2, 0, &both);
            let root = b.node(seq_node([Node::Leaf, Node::Leaf]));
            let dims = vec![Member(0, 0), Member(0, 1), Position];
            BfTree {
                bands: vec![b],
                dims: [dims.clone(), dims],
                placement: vec![(0, true)],
                tree: tree(BF_DOMAIN, root),
            }
        }
        1 => {
            let outer = BfBand::random(rng, 1, 0, &both);
            let inner = BfBand::random(rng, 1, 1, &both);
            let root = outer.node(inner.node(seq_node([Node::Leaf, Node::Leaf])));
            let dims = vec![Member(0, 0), Member(1, 0), Position];
            BfTree {
                bands: vec![outer, inner],
                dims: [dims.clone(), dims],
                placement: vec![(0, true), (1, true)],
                tree: tree(BF_DOMAIN, root),
            }
        }
        _ => {
            let outer = BfBand::random(rng, 1, 0, &both);
            let s = BfBand::random(rng, 1, 1, &[0]);
            let t = BfBand::random(rng, 1, 1, &[1]);
            let root = outer.node(seq_node([s.node(Node::Leaf), t.node(Node::Leaf)]));
            BfTree {
                bands: vec![outer, s, t],
                dims: [
                    vec![Member(0, 0), Position, Member(1, 0)],
                    vec![Member(0, 0), Position, Member(2, 0)],
                ],
                placement: vec![(0, true), (2, false), (2, false)],
                tree: tree(BF_DOMAIN, root),
            }
        }
    }
}

impl BfTree {
    /// The flattened schedule vector of an instance.
    fn vector(&self, n: i64, (s, x): Instance) -> Vec<i64> {
        self.dims[s]
            .iter()
            .map(|d| match *d {
                Dim::Member(b, m) => self.bands[b].values(n, (s, x))[m],
                Dim::Position => i64::try_from(s).unwrap(),
            })
            .collect()
    }

    /// The band (index) of statement `s` whose member is the dimension `dim`, if any.
    fn band_at(&self, s: usize, dim: usize) -> Option<usize> {
        match self.dims[s][dim] {
            Dim::Member(b, _) => Some(b),
            Dim::Position => None,
        }
    }

    /// Whether both instances are active at band `b`.
    fn both_active(&self, b: usize, x: Instance, y: Instance) -> bool {
        let (depth, shared) = self.placement[b];
        (shared || x.0 == y.0)
            && self.band_at(x.0, depth) == Some(b)
            && self.band_at(y.0, depth) == Some(b)
    }
}

/// The violations as `(kind, dependence, flattened dimension)` triples, sorted (0 for
/// order violations).
type Summary = Vec<(&'static str, usize, usize)>;

fn summary_of(report: &Report) -> Summary {
    let mut out: Summary = report
        .violations
        .iter()
        .map(|v| match &v.kind {
            ViolationKind::Order { .. } => ("order", v.dependence.index, 0),
            ViolationKind::Coincident { dim, .. } => ("coincident", v.dependence.index, *dim),
            ViolationKind::Permutable { dim, .. } => ("permutable", v.dependence.index, *dim),
            ViolationKind::Unscheduled { .. } => ("unscheduled", v.dependence.index, 0),
            ViolationKind::SetOrder { .. } => ("set", v.dependence.index, 0),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every dependent pair for `N <= MAX_N`, by brute force.
fn bf_pairs(d: &BfDep) -> Vec<(i64, Instance, Instance)> {
    let mut out = Vec::new();
    let box_ = || (-1..=MAX_N + 1).flat_map(|a| (-1..=MAX_N + 1).map(move |b| [a, b]));
    for n in 0..=MAX_N {
        for x in box_() {
            for y in box_() {
                if (d.holds)(n, x, y) {
                    out.push((n, (d.source, x), (d.target, y)));
                }
            }
        }
    }
    out
}

/// The expected violations by comparing schedule vectors directly.
fn brute_force(t: &BfTree, deps: &[BfDep]) -> Summary {
    let mut out = Summary::new();
    for (index, d) in deps.iter().enumerate() {
        for (n, x, y) in bf_pairs(d) {
            let (vx, vy) = (t.vector(n, x), t.vector(n, y));
            if vx >= vy {
                out.push(("order", index, 0));
            }
            for (b, band) in t.bands.iter().enumerate() {
                let (depth, _) = t.placement[b];
                if !t.both_active(b, x, y) || vx[..depth] != vy[..depth] {
                    continue;
                }
                let (bx, by) = (band.values(n, x), band.values(n, y));
                for m in 0..bx.len() {
                    if band.permutable && by[m] < bx[m] {
                        out.push(("permutable", index, depth + m));
                    }
                    if band.coincident[m] && bx[..m] == by[..m] && bx[m] != by[m] {
                        out.push(("coincident", index, depth + m));
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn brute_force_agrees_on_random_schedules() {
    const ROUNDS: usize = 100;
    let deps = bf_deps();
    let dependences: Vec<Dependence> = deps
        .iter()
        .map(|d| dep(DepKind::Flow, "A", d.text))
        .collect();
    // Sanity: the enumerated pairs are exactly the relations' pairs.
    for d in &deps {
        let relation = map(d.text);
        for (n, x, y) in bf_pairs(d) {
            let point = ints(&[n, x.1[0], x.1[1], y.1[0], y.1[1]]);
            assert!(relation.contains_point(&point).unwrap(), "{}", d.text);
        }
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut legal = 0;
    let mut annotated = 0;
    for round in 0..ROUNDS {
        let t = random_tree(&mut rng);
        let report = check(&dependences, &t.tree);
        for v in &report.violations {
            assert_example_in_relation(&dependences, v);
        }
        let expected = brute_force(&t, &deps);
        assert_eq!(summary_of(&report), expected, "round {round}: {}", report);
        legal += usize::from(expected.iter().all(|v| v.0 != "order"));
        annotated += usize::from(expected.iter().any(|v| v.0 != "order"));
    }
    // The random schedules exercise both answers.
    assert!(
        legal > 5 && legal < ROUNDS,
        "{legal} legal orders of {ROUNDS}"
    );
    assert!(
        annotated > 10,
        "{annotated} annotation violations in {ROUNDS} rounds"
    );
}

// ----- with the dependence analysis -----

/// The schedule with its order reversed everywhere: every band member negated and the
/// children of every sequence in reverse order. The first dimension where two instances
/// differ flips, so every dependence is violated.
fn reversed(node: &Node) -> Node {
    match node {
        Node::Band(b) => Node::Band(Band {
            schedule: negated(&b.schedule),
            permutable: b.permutable,
            coincident: b.coincident.clone(),
            child: Box::new(reversed(&b.child)),
        }),
        Node::Sequence(children) => Node::Sequence(children.iter().rev().map(reversed).collect()),
        Node::Set(children) => Node::Set(children.iter().map(reversed).collect()),
        Node::Domain { domain, child } => Node::Domain {
            domain: domain.clone(),
            child: Box::new(reversed(child)),
        },
        Node::Context { context, child } => Node::Context {
            context: context.clone(),
            child: Box::new(reversed(child)),
        },
        Node::Filter { filter, child } => Node::filter(filter.clone(), reversed(child)),
        Node::Mark { name, child } => Node::Mark {
            name: name.clone(),
            child: Box::new(reversed(child)),
        },
        Node::Extension { extension, child } => Node::Extension {
            extension: extension.clone(),
            child: Box::new(reversed(child)),
        },
        Node::Leaf => Node::Leaf,
    }
}

/// Every map of a band schedule followed by `[x] -> [-x]`.
fn negated(schedule: &UnionMap) -> UnionMap {
    let mut out = UnionMap::empty(schedule.param_names().to_vec());
    for m in schedule.maps() {
        let n = m.space().n_out();
        let vars: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
        let negs: Vec<String> = vars.iter().map(|v| format!("-{v}")).collect();
        let negation = map(&format!(
            "{{ [{}] -> [{}] }}",
            vars.join(", "),
            negs.join(", ")
        ));
        out.add_map(m.apply_range(&negation).unwrap()).unwrap();
    }
    out
}

/// Checks that the original schedule of a scop is legal under both analyses and that its
/// reversal violates every dependence.
fn original_legal_and_reversal_rejected(scop: &pollen_scop::Scop, name: &str) -> usize {
    let mut n_deps = 0;
    for analysis in [Analysis::ValueBased, Analysis::MemoryBased] {
        let deps = pollen_deps::analyze(scop, analysis)
            .unwrap_or_else(|e| panic!("{name}: analysis failed: {e}"));
        let deps = deps.as_slice();
        let r = check(deps, &scop.schedule);
        assert!(r.is_legal(), "{name} ({analysis:?}): {r}");
        let back = ScheduleTree {
            root: reversed(&scop.schedule.root),
        };
        let r = check(deps, &back);
        let mut violated: Vec<usize> = r
            .violations
            .iter()
            .filter(|v| matches!(v.kind, ViolationKind::Order { .. }))
            .map(|v| v.dependence.index)
            .collect();
        violated.dedup();
        assert_eq!(
            violated,
            (0..deps.len()).collect::<Vec<_>>(),
            "{name} ({analysis:?}) reversed: {r}"
        );
        for v in &r.violations {
            assert_example_in_relation(deps, v);
        }
        n_deps = n_deps.max(deps.len());
    }
    n_deps
}

const JACOBI_SCOP: &str = r#"# pollen scop
params: [T, N]
context: "[T, N] -> { : T >= 1 and N >= 3 }"
arrays:
  - name: A
    type: double
    extents: [N]
  - name: B
    type: double
    extents: [N]
statements:
  - name: S0
    iterators: [t, i]
    domain: "[T, N] -> { S0[t, i] : 0 <= t < T and 1 <= i <= N - 2 }"
    body: "B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;"
    accesses:
      - read: "[T, N] -> { S0[t, i] -> A[i - 1] }"
      - read: "[T, N] -> { S0[t, i] -> A[i] }"
      - read: "[T, N] -> { S0[t, i] -> A[i + 1] }"
      - write: "[T, N] -> { S0[t, i] -> B[i] }"
  - name: S1
    iterators: [t, i]
    domain: "[T, N] -> { S1[t, i] : 0 <= t < T and 1 <= i <= N - 2 }"
    body: "A[i] = B[i];"
    accesses:
      - read: "[T, N] -> { S1[t, i] -> B[i] }"
      - write: "[T, N] -> { S1[t, i] -> A[i] }"
schedule:
  domain: "[T, N] -> { S0[t, i] : 0 <= t < T and 1 <= i <= N - 2; S1[t, i] : 0 <= t < T and 1 <= i <= N - 2 }"
  child:
    schedule: "[T, N] -> { S0[t, i] -> [t]; S1[t, i] -> [t] }"
    child:
      sequence:
        - filter: "[T, N] -> { S0[t, i] }"
          child:
            schedule: "[T, N] -> { S0[t, i] -> [i] }"
        - filter: "[T, N] -> { S1[t, i] }"
          child:
            schedule: "[T, N] -> { S1[t, i] -> [i] }"
"#;

#[test]
fn analysed_jacobi_original_legal_reversal_rejected_skew_permutable() {
    let scop: pollen_scop::Scop = JACOBI_SCOP.parse().unwrap_or_else(|e| panic!("{e}"));
    assert!(original_legal_and_reversal_rejected(&scop, "jacobi-1d") > 0);
    let deps = pollen_deps::analyze(&scop, Analysis::MemoryBased).unwrap();
    let skewed = "[T, N] -> { S0[t, i] -> [t, 2t + i]; S1[t, i] -> [t, 2t + i + 1] }";
    let r = check(
        deps.as_slice(),
        &jacobi_fused(skewed, true, &[false, false]),
    );
    assert!(r.is_legal(), "{r}");
    let plain = "[T, N] -> { S0[t, i] -> [t, i]; S1[t, i] -> [t, i + 1] }";
    let r = check(deps.as_slice(), &jacobi_fused(plain, true, &[false, false]));
    assert!(!r.is_legal());
    assert!(r
        .violations
        .iter()
        .all(|v| matches!(v.kind, ViolationKind::Permutable { member: 1, .. })));
}

/// The C kernels of `examples/kernels`, by name, in name order.
fn kernels() -> Vec<(String, String)> {
    pollen_testkit::all_kernel_names()
        .into_iter()
        .map(|name| {
            let source = pollen_testkit::kernel_source(&name);
            (name, source)
        })
        .collect()
}

#[test]
fn every_kernel_original_schedule_is_legal_and_its_reversal_is_not() {
    let all = kernels();
    assert!(all.len() >= 30, "{} kernels", all.len());
    let mut with_deps = 0;
    for (name, source) in &all {
        let extracted = pollen_frontend::extract(source).unwrap_or_else(|e| panic!("{name}: {e}"));
        if original_legal_and_reversal_rejected(&extracted.scop, name) > 0 {
            with_deps += 1;
        }
    }
    assert!(with_deps >= 25, "{with_deps} kernels with dependences");
}
