//! Helpers shared by the frontend's integration tests: snippet wrapping, semantic set
//! comparison and enumeration of instances at fixed parameter values.

use pollen_frontend::{extract, Extracted};
use pollen_presburger::{DimKind, Int, Map, Set, UnionMap};
use pollen_scop::{AccessKind, Scop};

/// A C function whose locals are `decls` and whose scop region is `body`.
pub fn wrap(decls: &str, body: &str) -> String {
    format!("void kernel(void)\n{{\n{decls}\n#pragma scop\n{body}\n#pragma endscop\n}}\n")
}

/// The scop of `source`, which must extract and validate.
pub fn scop(source: &str) -> Scop {
    extracted(source).scop
}

/// The extraction of `source`, which must succeed and validate.
pub fn extracted(source: &str) -> Extracted {
    let x = extract(source).unwrap_or_else(|e| panic!("extraction failed: {e}\n{source}"));
    x.scop
        .validate()
        .unwrap_or_else(|e| panic!("invalid scop: {e}\n{source}"));
    x
}

/// Asserts that `actual` has the points of the isl text `expected`.
pub fn assert_set(actual: &Set, expected: &str) {
    let e: Set = expected
        .parse()
        .unwrap_or_else(|err| panic!("bad expected set {expected}: {err}"));
    assert!(
        actual.is_equal(&e).expect("comparison"),
        "expected {expected}\n   found {actual}"
    );
}

/// Asserts that `actual` has the pairs of the isl text `expected`.
pub fn assert_map(actual: &Map, expected: &str) {
    let e: Map = expected
        .parse()
        .unwrap_or_else(|err| panic!("bad expected map {expected}: {err}"));
    assert!(
        actual.is_equal(&e).expect("comparison"),
        "expected {expected}\n   found {actual}"
    );
}

/// Asserts the accesses of statement `name`: `(kind, relation)` in order.
pub fn assert_accesses(scop: &Scop, name: &str, expected: &[(AccessKind, &str)]) {
    let s = scop.statement(name).expect("statement");
    let kinds: Vec<AccessKind> = s.accesses.iter().map(|a| a.kind).collect();
    let want: Vec<AccessKind> = expected.iter().map(|e| e.0).collect();
    assert_eq!(kinds, want, "access kinds of {name}");
    for (a, (_, rel)) in s.accesses.iter().zip(expected) {
        assert_map(&a.relation, rel);
    }
}

/// The map with its parameters fixed to `values` (in the scop's order) and projected
/// out.
pub fn at_params(m: &Map, values: &[i64]) -> Map {
    let mut m = m.clone();
    for (k, v) in values.iter().enumerate() {
        m = m.fix_val(DimKind::Param, k, &Int::from(*v)).expect("fix");
    }
    m.project_out(DimKind::Param, 0, values.len())
        .expect("project")
}

/// The integer points of a map (or set) at the given parameter values.
pub fn points(m: &Map, values: &[i64]) -> Vec<Vec<i64>> {
    at_params(m, values)
        .points()
        .expect("points")
        .into_iter()
        .map(|p| p.iter().map(|c| c.to_i64().expect("small")).collect())
        .collect()
}

/// The statement instances in the order of a flattened schedule tree, at the given
/// parameter values: `(statement, iterator values)`.
pub fn schedule_order(schedule: &UnionMap, values: &[i64]) -> Vec<(String, Vec<i64>)> {
    let mut timed = Vec::new();
    for m in schedule.maps() {
        let name = m
            .space()
            .domain_tuple()
            .and_then(|t| t.name())
            .expect("named")
            .to_string();
        let n_in = m.space().n_in();
        for p in points(m, values) {
            timed.push((p[n_in..].to_vec(), name.clone(), p[..n_in].to_vec()));
        }
    }
    timed.sort();
    for w in timed.windows(2) {
        assert_ne!(w[0].0, w[1].0, "two instances share a schedule time");
    }
    timed.into_iter().map(|(_, n, i)| (n, i)).collect()
}

/// Asserts that the scop's instances, in schedule order, are exactly `trace` (what the C
/// code executes at the given parameter values), and that the domains hold exactly the
/// traced instances.
pub fn assert_trace(scop: &Scop, values: &[i64], trace: &[(&str, Vec<i64>)]) {
    let schedule = scop.schedule.to_union_map().expect("to_union_map");
    assert_trace_with(scop, &schedule, values, trace);
}

/// [`assert_trace`] with the scop's flattened schedule already computed.
pub fn assert_trace_with(
    scop: &Scop,
    schedule: &UnionMap,
    values: &[i64],
    trace: &[(&str, Vec<i64>)],
) {
    let got = schedule_order(schedule, values);
    let want: Vec<(String, Vec<i64>)> = trace
        .iter()
        .map(|(n, i)| (n.to_string(), i.clone()))
        .collect();
    assert_eq!(got, want, "schedule order at {values:?}");
    let mut from_domains = Vec::new();
    for s in &scop.statements {
        for p in points(s.domain.as_map(), values) {
            from_domains.push((s.name.clone(), p));
        }
    }
    let mut sorted_want = want.clone();
    sorted_want.sort();
    from_domains.sort();
    assert_eq!(from_domains, sorted_want, "domains at {values:?}");
}

/// The accesses of one kind of statement `name`, as `(array, relation)`.
pub fn accesses_of(scop: &Scop, name: &str, kind: AccessKind) -> Vec<(String, Map)> {
    scop.statement(name)
        .expect("statement")
        .accesses
        .iter()
        .filter(|a| a.kind == kind)
        .map(|a| (a.array.clone(), a.relation.clone()))
        .collect()
}
