//! Exact C semantics, checked by brute force: subscripts, conditions and loop bounds
//! with C's truncating `/` and `%` (negative numerators and divisors included), `min`,
//! `max`, `floord`, `ceild` and `?:` are evaluated in Rust (whose `/` and `%` truncate
//! like C's) at every point of a box and compared with the extracted sets; the schedule
//! tree's order is compared with the execution trace of the C code, simulated in Rust.

use pollen_presburger::Int;
use pollen_scop::{AccessKind, Scop};

use crate::common::{accesses_of, assert_trace, points, scop, wrap};

/// C's `floord(a, b)` for `b > 0`.
fn floord(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// C's `ceild(a, b)` for `b > 0`.
fn ceild(a: i64, b: i64) -> i64 {
    -(-a).div_euclid(b)
}

/// The values of `N` tried.
const NS: std::ops::RangeInclusive<i64> = -7..=7;

/// The parameter values of `scop` for `N = n` (the scop may have no parameter).
fn params_for(scop: &Scop, n: i64) -> Vec<i64> {
    assert!(scop.params.len() <= 1 && scop.params.iter().all(|p| p == "N"));
    if scop.params.is_empty() {
        Vec::new()
    } else {
        vec![n]
    }
}

type Value = fn(i64, i64) -> i64;

const SUBSCRIPTS: [(&str, Value); 18] = [
    ("i / 3", |i, _| i / 3),
    ("i % 3", |i, _| i % 3),
    ("(i - N) / 4", |i, n| (i - n) / 4),
    ("-i / 2", |i, _| -i / 2),
    ("i / -3", |i, _| i / -3),
    ("i % -3", |i, _| i % -3),
    ("-i % 4", |i, _| -i % 4),
    ("(2 * i + 1) / 2", |i, _| (2 * i + 1) / 2),
    ("floord(i, 3)", |i, _| floord(i, 3)),
    ("ceild(i - N, 2)", |i, n| ceild(i - n, 2)),
    ("min(i, N - i)", |i, n| i.min(n - i)),
    ("max(i / 2, N % 3)", |i, n| (i / 2).max(n % 3)),
    ("i > N ? i : N / 2", |i, n| if i > n { i } else { n / 2 }),
    ("i / 2 / 2", |i, _| i / 2 / 2),
    ("(i % 4) / 2", |i, _| (i % 4) / 2),
    ("3 * (i / 3) - i % 5 + MIN(i, 2) * 2", |i, _| {
        3 * (i / 3) - i % 5 + i.min(2) * 2
    }),
    ("(N - i) % 7 - (i + N) / 5", |i, n| {
        (n - i) % 7 - (i + n) / 5
    }),
    ("(long) (i * 2 - 1) / 4 + 0x10 - 010", |i, _| {
        (i * 2 - 1) / 4 + 16 - 8
    }),
];

#[test]
fn subscripts_follow_c_semantics() {
    for (e, f) in SUBSCRIPTS {
        let src = wrap(
            "int i; double A[1000];",
            &format!("for (i = -20; i <= 20; i++) A[{e}] = 0;"),
        );
        let s = scop(&src);
        let writes = accesses_of(&s, "S0", AccessKind::Write);
        let relation = &writes[0].1;
        for n in NS {
            for i in -20..=20 {
                let v = f(i, n);
                let mut point: Vec<Int> = params_for(&s, n).into_iter().map(Int::from).collect();
                point.push(Int::from(i));
                for (w, expected) in [(v, true), (v - 1, false), (v + 1, false)] {
                    let mut p = point.clone();
                    p.push(Int::from(w));
                    let found = relation.contains_point(&p).expect("contains");
                    assert_eq!(
                        found, expected,
                        "A[{e}] at N = {n}, i = {i}: C gives {v}, relation {relation} says {w} is {found}"
                    );
                }
            }
        }
    }
}

type Predicate = fn(i64, i64) -> bool;

const CONDITIONS: [(&str, Predicate); 10] = [
    ("i % 3 == 1 && i / 2 < N", |i, n| i % 3 == 1 && i / 2 < n),
    ("!(i < N) || i % 2 != 0", |i, n| i >= n || i % 2 != 0),
    ("i / 4 * 4 == i", |i, _| i / 4 * 4 == i),
    ("(i < 0 ? -i : i) <= N", |i, n| i.abs() <= n),
    ("i", |i, _| i != 0),
    ("!(i - N)", |i, n| i == n),
    ("i >= N / 3 && i <= -N % 4 + 5", |i, n| {
        i >= n / 3 && i <= -n % 4 + 5
    }),
    ("i % 5 - 2 == -(N % 3) || (i > 10 && !(i > 15))", |i, n| {
        i % 5 - 2 == -(n % 3) || (i > 10 && i <= 15)
    }),
    ("max(i, N) / 3 != min(-i, N) % 2", |i, n| {
        i.max(n) / 3 != (-i).min(n) % 2
    }),
    ("i - N ? i > 3 : i < -3", |i, n| {
        if i - n != 0 {
            i > 3
        } else {
            i < -3
        }
    }),
];

#[test]
fn conditions_follow_c_semantics() {
    for (c, f) in CONDITIONS {
        let src = wrap(
            "int i; double A[2];",
            &format!("for (i = -20; i <= 20; i++)\n  if ({c}) A[0] = 0; else A[1] = 0;"),
        );
        let s = scop(&src);
        for n in NS {
            let values = params_for(&s, n);
            let then: Vec<i64> = points(s.statements[0].domain.as_map(), &values)
                .into_iter()
                .map(|p| p[0])
                .collect();
            let other: Vec<i64> = points(s.statements[1].domain.as_map(), &values)
                .into_iter()
                .map(|p| p[0])
                .collect();
            let want: Vec<i64> = (-20..=20).filter(|&i| f(i, n)).collect();
            let want_not: Vec<i64> = (-20..=20).filter(|&i| !f(i, n)).collect();
            assert_eq!(then, want, "if ({c}) at N = {n}");
            assert_eq!(other, want_not, "else of ({c}) at N = {n}");
        }
    }
}

/// A loop header and its Rust simulation: `(start, test, step)`.
type Simulated = (fn(i64) -> i64, fn(i64, i64) -> bool, i64);

const LOOPS: [(&str, Simulated); 10] = [
    ("i = -5; i / 2 < N; i++", (|_| -5, |i, n| i / 2 < n, 1)),
    ("i = 9; -i / 3 < N; i -= 2", (|_| 9, |i, n| -i / 3 < n, -2)),
    (
        "i = N - 3; (i - N) / 2 < 1 && i < 50; i++",
        (|n| n - 3, |i, n| (i - n) / 2 < 1 && i < 50, 1),
    ),
    (
        "i = N / 2; i < (N + 5) / 3; i++",
        (|n| n / 2, |i, n| i < (n + 5) / 3, 1),
    ),
    (
        "i = -N % 3; i <= max(N, 3) / 2; i += 2",
        (|n| -n % 3, |i, n| i <= n.max(3) / 2, 2),
    ),
    (
        "i = (N + 7) / 2; i >= -N / 3; i -= 3",
        (|n| (n + 7) / 2, |i, n| i >= -n / 3, -3),
    ),
    (
        "i = min(N, 2); i > -N && i >= -5; --i",
        (|n| n.min(2), |i, n| i > -n && i >= -5, -1),
    ),
    (
        "int i = floord(N, 4); i < ceild(N, 2) + 3; i = i + 1",
        (|n| floord(n, 4), |i, n| i < ceild(n, 2) + 3, 1),
    ),
    (
        "i = N; i < 12 || i < 2 * N; i = 4 + i",
        (|n| n, |i, n| i < 12 || i < 2 * n, 4),
    ),
    (
        "i = N % 5; i <= N * 2 - 1; i += 5",
        (|n| n % 5, |i, n| i < n * 2, 5),
    ),
];

#[test]
fn loop_bounds_follow_c_semantics() {
    for (header, (start, test, step)) in LOOPS {
        let src = wrap(
            "int i; double A[100];",
            &format!("for ({header}) A[0] = 0;"),
        );
        let s = scop(&src);
        for n in NS {
            let mut want = Vec::new();
            let mut i = start(n);
            while test(i, n) {
                want.push(i);
                i += step;
            }
            want.sort();
            let got: Vec<i64> = points(s.statements[0].domain.as_map(), &params_for(&s, n))
                .into_iter()
                .map(|p| p[0])
                .collect();
            assert_eq!(got, want, "for ({header}) at N = {n}");
        }
    }
}

#[test]
fn schedule_order_of_loops_ifs_and_sequences() {
    let s = scop(&wrap(
        "int i, j; double A[100];",
        "for (i = 0; i < N; i++) {\n  A[i] = 0;\n  for (j = N - 1; j > i; j -= 2)\n    A[j] = 1;\n  if (i % 2 == 0) A[i] = 2; else A[i] = 3;\n}\nA[0] = 4;",
    ));
    for n in 0..=5 {
        let mut trace = Vec::new();
        for i in 0..n {
            trace.push(("S0", vec![i]));
            let mut j = n - 1;
            while j > i {
                trace.push(("S1", vec![i, j]));
                j -= 2;
            }
            trace.push((if i % 2 == 0 { "S2" } else { "S3" }, vec![i]));
        }
        trace.push(("S4", vec![]));
        assert_trace(&s, &[n], &trace);
    }
}

#[test]
fn schedule_order_of_decreasing_and_bounded_loops() {
    let s = scop(&wrap(
        "int i, j, k; double A[100][100];",
        "for (i = N - 1; i >= 0; i--)\n  for (j = i + 1; j < min(N, i + 4); j++) {\n    if (j - 1 >= 0) A[i][j] = 1;\n    for (k = i + 1; k < j; k++) A[i][j] = 2;\n  }",
    ));
    for n in 0..=6 {
        let mut trace = Vec::new();
        for i in (0..n).rev() {
            for j in i + 1..n.min(i + 4) {
                if j > 0 {
                    trace.push(("S0", vec![i, j]));
                }
                for k in i + 1..j {
                    trace.push(("S1", vec![i, j, k]));
                }
            }
        }
        assert_trace(&s, &[n], &trace);
    }
}

#[test]
fn schedule_order_of_sibling_loops_with_strides() {
    let s = scop(&wrap(
        "int t, i; double A[100];",
        "for (t = 0; t < T; t++) {\n  for (i = 1; i < N; i += 2) A[i] = 0;\n  for (i = N; i > 0; i -= 3) A[i] = 1;\n}",
    ));
    assert_eq!(s.params, ["T", "N"]);
    for (t_max, n) in [(0, 3), (2, 0), (2, 7), (3, 4)] {
        let mut trace = Vec::new();
        for t in 0..t_max {
            let mut i = 1;
            while i < n {
                trace.push(("S0", vec![t, i]));
                i += 2;
            }
            let mut i = n;
            while i > 0 {
                trace.push(("S1", vec![t, i]));
                i -= 3;
            }
        }
        assert_trace(&s, &[t_max, n], &trace);
    }
}
