//! iscc's forms of counts beyond a bounded set's: the number of range points of a map
//! per domain point (`{ [i] -> i : 1 <= i <= 9 }`) and the infinite count of an
//! unbounded set (`{ infty }`), each checked against enumeration in two boxes and read
//! back from its printed form.

use pollen_presburger::{
    Error, Extended, Int, Map, Polynomial, PwPolynomial, PwQPolynomial, Rat, Set,
};

fn ints(values: &[i64]) -> Vec<Int> {
    values.iter().map(|&v| Int::from(v)).collect()
}

/// The points of `s` whose leading coordinates are `fixed` and whose other
/// coordinates lie in `[-r, r]`.
fn points_in_box(s: &Set, fixed: &[i64], r: i64) -> i64 {
    pollen_presburger::oracle::count_in_box(s, fixed, -r, r)
}

/// The count of `s` at `fixed` by enumeration: the points in the box of radius 12,
/// infinite when the box of radius 24 holds more (the sets below have their bounded
/// parts inside the first box and their unbounded parts reaching into it).
fn oracle(s: &Set, fixed: &[i64]) -> Extended<Int> {
    let small = points_in_box(s, fixed, 12);
    let large = points_in_box(s, fixed, 24);
    if small == large {
        Extended::Finite(Int::from(small))
    } else {
        Extended::Infinity
    }
}

/// Every point of the box `[-4, 8]^n`.
fn box_points(n: usize) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|p| {
                (-4..=8).map(move |v| {
                    let mut q = p.clone();
                    q.push(v);
                    q
                })
            })
            .collect();
    }
    out
}

/// `c` and its printed form read back agree with `oracle` of `s` at every point of the
/// box over the first `n_fixed` coordinates, and the print is a fixed point.
fn check_against(c: &PwQPolynomial, s: &Set, n_fixed: usize, what: &str) {
    let printed = c.to_string();
    let again: PwQPolynomial = printed
        .parse()
        .unwrap_or_else(|e| panic!("{what}: {printed}: {e}"));
    assert_eq!(again.to_string(), printed, "{what}");
    for p in box_points(n_fixed) {
        let expect = oracle(s, &p);
        let point = ints(&p);
        assert_eq!(
            c.eval(&point).unwrap(),
            expect,
            "{what} at {p:?}: {printed}"
        );
        assert_eq!(
            again.eval(&point).unwrap(),
            expect,
            "{what} at {p:?}: {printed}"
        );
    }
}

fn check_map(text: &str, printed: &str) {
    let m: Map = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    let c = m
        .card_range_parametric()
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(c.to_string(), printed, "{text}");
    let n_fixed = m.space().n_params() + m.space().n_in();
    check_against(&c, &Set::from_map(m.wrap()).unwrap(), n_fixed, text);
}

fn check_set(text: &str, printed: &str) {
    let s: Set = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    let c = s
        .card_parametric()
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(c.to_string(), printed, "{text}");
    check_against(&c, &s, s.n_params(), text);
}

#[test]
fn map_counts_per_domain_point() {
    check_map(
        "{ [i] -> [j] : 0 <= j < i < 10 }",
        "{ [i] -> i : 1 <= i <= 9 }",
    );
    check_map(
        "[N] -> { [i] -> [j] : 0 <= j < i < N }",
        "[N] -> { [i] -> i : 1 <= i < N }",
    );
    check_map(
        "{ [i] -> [j] : exists e : j = 2e and 0 <= j <= i }",
        "{ [i] -> (1 + floor((i)/2)) : i >= 0 }",
    );
    check_map(
        "[N] -> { S[i] -> T[j] : 0 <= i < N and i <= 3j <= N }",
        "[N] -> { S[i] -> (1 - i + floor((2 * i)/3) + floor((N)/3)) : N >= -3*floor((-i)/3) and 0 <= i < N }",
    );
    check_map(
        "{ [i, j] -> [k] : 0 <= i <= 5 and 0 <= j <= 5 and 0 <= k <= i + j and k mod 2 = 0 }",
        "{ [i, j] -> (1 + floor((i + j)/2)) : 0 <= i <= 5 and 0 <= j <= 5 }",
    );
    check_map("{ [i] -> [j] : 1 = 0 }", "{ [i] -> 0 }");
    check_map(
        "{ A[i] -> B[j] : 0 <= j < i < 5; A[i] -> B[j] : j = 7 and 0 <= i < 3 }",
        "{ A[i] -> i : 3 <= i <= 4; A[i] -> (1 + i) : 1 <= i <= 2; A[i] -> 1 : i = 0 }",
    );
}

#[test]
fn unbounded_sets_count_infinity() {
    check_set("{ [i] : i >= 0 }", "{ infty }");
    check_set("{ [i, j] : 0 <= i < 5 }", "{ infty }");
    check_set("{ [i, j] : 0 <= i <= j }", "{ infty }");
    check_set("{ [i] : i >= 0; [i] : -5 <= i < 0 }", "{ infty }");
    check_set("[N] -> { [i] : i >= N }", "[N] -> { infty }");
    check_set("[N] -> { [i, j] : i + j <= N }", "[N] -> { infty }");
    // Bounded for some parameter values only.
    check_set(
        "[N] -> { [i] : 0 <= i and (N <= 0 or i < N) }",
        "[N] -> { N : N >= 1; infty : N <= 0 }",
    );
    check_set(
        "[N] -> { [i, j] : 0 <= i <= 3 and 0 <= j and (j <= N or N < 0) }",
        "[N] -> { (4 + 4 * N) : N >= 0; infty : N <= -1 }",
    );
    // Per domain point of a map.
    check_map("{ [i] -> [j] : j >= i }", "{ [i] -> infty }");
    check_map(
        "{ [i] -> [j] : 0 <= j and (i < 0 or j < i) }",
        "{ [i] -> i : i >= 1; [i] -> infty : i <= -1 }",
    );
    // A sum of a positive constant is infinite as a count is; other sums over an
    // unbounded set are refused.
    let s: Set = "{ [i] : i >= 0 }".parse().unwrap();
    let two = s
        .sum_parametric(&Polynomial::constant(1, Rat::from(2)))
        .unwrap();
    assert_eq!(two.to_string(), "{ infty }");
    match s.sum_parametric(&Polynomial::var(1, 0)) {
        Err(Error::Unsupported(m)) => assert!(m.contains("unbounded"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(two.to_polynomial().is_none());
}

#[test]
fn infinity_reads_back_and_evaluates_to_a_typed_value() {
    let c: PwQPolynomial = "{ infty }".parse().unwrap();
    assert_eq!(c.eval(&[]).unwrap(), Extended::Infinity);
    assert_eq!(c.value(&[]).unwrap(), Extended::Infinity);
    assert_eq!(c.to_string(), "{ infty }");
    assert_eq!(c.eval(&[]).unwrap().to_string(), "infty");
    let c: PwQPolynomial = "[N] -> { infty : N <= 0; N : N > 0 }".parse().unwrap();
    assert_eq!(c.to_string(), "[N] -> { N : N >= 1; infty : N <= 0 }");
    assert_eq!(c.eval(&ints(&[-1])).unwrap(), Extended::Infinity);
    assert_eq!(c.eval(&ints(&[3])).unwrap(), Extended::Finite(Int::from(3)));
    assert!(!c.infinite_domain().is_empty().unwrap());
    let c: PwQPolynomial = "{ [i] -> infty : i < 0; [i] -> i : i >= 0 }"
        .parse()
        .unwrap();
    assert_eq!(
        c.to_string(),
        "{ [i] -> i : i >= 0; [i] -> infty : i <= -1 }"
    );
    assert_eq!(c.eval(&ints(&[-2])).unwrap(), Extended::Infinity);
    assert_eq!(c.eval(&ints(&[0])).unwrap(), Extended::Finite(Int::zero()));
    // Infinity absorbs what is added to it.
    let sum = c
        .add_with(&"{ [j] -> 5 }".parse().unwrap(), &mut Default::default())
        .unwrap();
    assert_eq!(sum.eval(&ints(&[-2])).unwrap(), Extended::Infinity);
    assert_eq!(
        sum.eval(&ints(&[2])).unwrap(),
        Extended::Finite(Int::from(7))
    );
}

#[test]
fn domain_forms_read_back() {
    for text in [
        "{ [i] -> i : 1 <= i <= 9 }",
        "[N] -> { S[i, j] -> (1 + floor((N + i)/2) * j) : 0 <= i < N and j >= i }",
        "{ [i] -> 0 }",
        "[N] -> { [i] -> 0 }",
        "{ [] -> 3 }",
        "[N] -> { [i] -> (N - i) : exists (e: i = 2e) and 0 <= i <= N }",
    ] {
        let c: PwQPolynomial = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        let printed = c.to_string();
        let again: PwQPolynomial = printed.parse().unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert_eq!(again.to_string(), printed, "{text}");
    }
    // Dimension names may differ between pieces: they are positions.
    let c: PwQPolynomial = "{ [i] -> i : i > 0; [j] -> -j : j < 0 }".parse().unwrap();
    assert_eq!(
        c.to_string(),
        "{ [i] -> i : i >= 1; [i] -> (-i) : i <= -1 }"
    );
    assert_eq!(
        c.eval(&ints(&[-3])).unwrap(),
        Extended::Finite(Int::from(3))
    );
}

/// The error of reading `text`: (line, column, message).
fn read_error(text: &str) -> (usize, usize, String) {
    match text.parse::<PwQPolynomial>() {
        Err(Error::Parse {
            line,
            column,
            message,
        }) => (line, column, message),
        other => panic!("{text}: expected a parse error, got {other:?}"),
    }
}

#[test]
fn bad_domain_forms_are_positioned_errors() {
    for (text, column, message) in [
        ("{ infty + 1 }", 3, "'infty' only as the whole value"),
        ("{ [i] -> i : i > 0; 1 }", 20, "a piece over"),
        ("[i] -> { [i] -> i }", 11, "named like a parameter"),
        ("{ [i, i] -> i }", 7, "duplicate dimension 'i'"),
        ("{ [i] -> j }", 10, "unknown parameter 'j'"),
        ("{ [i + 1] -> i }", 4, "expected a dimension name"),
        ("{ [i] -> i : i > }", 18, "expected"),
        ("{ [i] -> i : rat: i > 0 }", 14, "'rat' is not supported"),
        ("{ [[i] -> j] -> i }", 11, "expected a domain tuple"),
    ] {
        let (line, c, m) = read_error(text);
        assert_eq!((line, c), (1, column), "{text}: {m}");
        assert!(m.contains(message), "{text}: {m}");
    }
    // A polynomial of the parameters has neither.
    assert!("{ [i] -> i }".parse::<PwPolynomial>().is_err());
    let e = "{ infty }".parse::<PwPolynomial>().unwrap_err();
    assert!(e.to_string().contains("infty"), "{e}");
}
