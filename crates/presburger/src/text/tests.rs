//! Tests of the isl text syntax: round trips, semantics against direct evaluation, error
//! positions and messages, and properties (no panic on token soup; random formulas read
//! back to the points a direct evaluator accepts).

use pollen_arith::Int;
use quickcheck::{Arbitrary, Gen};

use super::*;
use crate::bmap::BasicMap;
use crate::error::Budget;
use crate::space::{Space, Tuple};

// ----- helpers -----

/// Whether `b` contains `point`, evaluating known divisions directly and asking the
/// solver only when existentials remain.
fn basic_contains(b: &BasicMap, point: &[Int]) -> bool {
    if b.has_existentials() {
        return b
            .contains_point(point, &mut Budget::unlimited())
            .expect("membership test");
    }
    let mut values: Vec<Int> = std::iter::once(Int::one())
        .chain(point.iter().cloned())
        .collect();
    let dot = |row: &[Int], values: &[Int]| -> Int {
        row.iter()
            .zip(values)
            .fold(Int::zero(), |acc, (a, x)| acc + a * x)
    };
    for d in b.divs().iter().flatten() {
        let v = dot(&d.num, &values).floor_div(&d.den);
        values.push(v);
    }
    b.eqs().iter().all(|r| dot(r, &values).is_zero())
        && b.ineqs().iter().all(|r| !dot(r, &values).is_negative())
}

fn map_contains(m: &Map, point: &[Int]) -> bool {
    m.basic_maps().iter().any(|b| basic_contains(b, point))
}

/// Every point of the box `[-r, r]^n`, calling `f` on each.
fn for_each_point(n: usize, r: i64, mut f: impl FnMut(&[Int])) {
    let mut p = vec![-r; n];
    loop {
        let pt: Vec<Int> = p.iter().map(|&v| Int::from(v)).collect();
        f(&pt);
        let mut k = 0;
        loop {
            if k == n {
                return;
            }
            p[k] += 1;
            if p[k] <= r {
                break;
            }
            p[k] = -r;
            k += 1;
        }
    }
}

/// A box radius keeping the number of points small.
fn radius(n: usize) -> i64 {
    match n {
        0..=2 => 6,
        3 => 4,
        4 => 3,
        _ => 2,
    }
}

fn assert_same_points(a: &Map, b: &Map, context: &str) {
    assert!(
        a.space().tuples_match(b.space()),
        "{context}: spaces differ: {} vs {}",
        a.space(),
        b.space()
    );
    assert_eq!(
        a.space().param_names(),
        b.space().param_names(),
        "{context}"
    );
    let n = a.space().n_dims();
    for_each_point(n, radius(n), |p| {
        assert_eq!(
            map_contains(a, p),
            map_contains(b, p),
            "{context}: membership of {p:?} differs"
        );
    });
}

/// The maps of a parsed object, keyed by tuples.
fn maps_of(p: &Parsed) -> Vec<Map> {
    match p {
        Parsed::Set(s) => vec![s.as_map().clone()],
        Parsed::Map(m) => vec![m.clone()],
        Parsed::UnionSet(u) => u.as_union_map().maps().cloned().collect(),
        Parsed::UnionMap(u) => u.maps().cloned().collect(),
    }
}

fn kind(p: &Parsed) -> &'static str {
    match p {
        Parsed::Set(_) => "set",
        Parsed::Map(_) => "map",
        Parsed::UnionSet(_) => "union set",
        Parsed::UnionMap(_) => "union map",
    }
}

/// Parses `text`, prints it, parses the print and checks: same kind, same points, and
/// that printing is a fixed point after one round. Returns the first print.
fn round_trip(text: &str) -> String {
    let first = parse_object(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let printed = first.to_string();
    let second =
        parse_object(&printed).unwrap_or_else(|e| panic!("{text} printed as {printed}: {e}"));
    assert_eq!(kind(&first), kind(&second), "{text} printed as {printed}");
    let (a, b) = (maps_of(&first), maps_of(&second));
    assert_eq!(a.len(), b.len(), "{text} printed as {printed}");
    for (x, y) in a.iter().zip(&b) {
        assert_same_points(x, y, &format!("{text} printed as {printed}"));
    }
    assert_eq!(second.to_string(), printed, "printing {text} is not stable");
    printed
}

/// Checks that `text` is the set of points `p` (params then dims) satisfying `pred`.
fn check_set(text: &str, pred: impl Fn(&[i64]) -> bool) {
    let m = parse_map(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let n = m.space().n_dims();
    for_each_point(n, radius(n), |p| {
        let v: Vec<i64> = p.iter().map(|x| x.to_i64().expect("small")).collect();
        assert_eq!(map_contains(&m, p), pred(&v), "{text}: point {v:?}");
    });
}

fn check_error(text: &str, line: usize, column: usize, message: &str) {
    match parse_object(text) {
        Err(Error::Parse {
            line: l,
            column: c,
            message: m,
        }) => {
            assert_eq!((l, c), (line, column), "{text}: position of error '{m}'");
            assert!(
                m.contains(message),
                "{text}: message '{m}' lacks '{message}'"
            );
        }
        other => panic!("{text}: expected a parse error, got {other:?}"),
    }
}

/// `text` names rational sets at `line:column`: an unsupported construct, not a
/// syntax error, and the same from every reader.
fn check_unsupported(text: &str, line: usize, column: usize) {
    let expect = Error::UnsupportedSyntax {
        line,
        column,
        construct: "rational sets (`rat:`)".into(),
    };
    assert_eq!(parse_object(text).err(), Some(expect.clone()), "{text}");
    assert_eq!(parse_map(text).err(), Some(expect.clone()), "{text}");
    assert_eq!(
        expect.to_string(),
        format!("{line}:{column}: unsupported: rational sets (`rat:`)")
    );
}

fn int(v: i64) -> Int {
    Int::from(v)
}

// ----- round trips -----

#[test]
fn round_trips() {
    let inputs = [
        "[N, M] -> { S[i, j] -> T[o0] : 0 <= i < N and o0 = i + j and exists (e0: j = 2e0) }",
        "{ [i] : i <= 0 or (i >= 5 and i <= 9) }",
        "{ S[i] : false }",
        "[N] -> { : N >= 0 }",
        "[N] -> { : }",
        "[N] -> { : false }",
        "{ S[i] -> [i]; T[j] -> [j, 0] }",
        "{ A[i] : 0 <= i < 3; B[i, j] : i = j; C[] }",
        "{ [i, 2i] }",
        "{ [i, i] }",
        "[N] -> { [N] }",
        "{ S[i] -> [i + 1, 0] }",
        "{ [[i] -> [j]] : i < j }",
        "{ A[B[i] -> C[j, k]] -> D[[l] -> [m]] : i + j + k = l - m }",
        "{ [] }",
        "{ }",
        "[N] -> { }",
        "{ [i] : i mod 3 = 1 }",
        "{ [i] : i % 3 = 1 }",
        "{ [i, j] : (i + j) mod 4 = 2 and 0 <= i, j <= 8 }",
        "{ [i] : floor(i/3) = 2 }",
        "{ [i] : floord(i, 3) = 2 }",
        "{ [i] : ceild(i, 3) = 2 }",
        "{ [i] : i // 3 = 2 }",
        "{ [i] : ceil(i/3) >= 2 }",
        "{ [i, j] : floor((i + floor(j/2))/3) >= 1 }",
        "{ [i, j] : 0 <= i, j < 10 }",
        "{ [i] : i <= min(5, 7) }",
        "{ [i] : i >= max(0, 2) and i <= 10 }",
        "{ [i] -> [o] : o = min(i, 10) }",
        "{ [i] -> [max(i, 0, 2i - 5)] }",
        "{ [i] : not (0 <= i <= 10) }",
        "{ [i] : i != 3 and 0 <= i <= 5 }",
        "{ [x] : x = 1180591620717411303424 }",
        "{ [x, y] : x = 1180591620717411303424y }",
        "{ [x, y] : 1180591620717411303424x <= y + 1180591620717411303425 }",
        "{ [i] : exists e: i = 3e + 1 }",
        "{ [i, j] : exists (e: 2e <= i and 3e >= j) }",
        "{ [i, j] : exists (e, f: 2e <= i and 3e >= j and 5f = e + 1) }",
        "{ [i] : exists (e = floor(i/2): 2e = i) }",
        "{ [i] : 0 <= i <= 10 implies i = 5 }",
        "{ [i, j] : i, j << 1, 2 and 0 <= i, j <= 3 }",
        "{ [i, j] : i, j <<= 1, 2 and 0 <= i, j <= 3 }",
        "{ [i, j] : i, j >> 1, 2 and 0 <= i, j <= 3 }",
        "{ [i, j] : i, j >>= 1, 2 and 0 <= i, j <= 3 }",
        "{ [i] -> [floor(i/2)] }",
        "{ [i] -> [(i) mod 4] }",
        "{ [i] : ((i) + 1 >= 0) }",
        "{ [i] : ((i >= 0) and (i <= 3)) }",
        "{ [i] : i >= 0 && i <= 3 || i = 7 }",
        "{ [i] : i >= 0 & !(i > 3) | i = 7 }",
        "{ [i] : i >= 0 /\\ i <= 3 \\/ i = 7 }",
        "{ [i] : true }",
        "{ [i] : false or i = 2 }",
        "{ [i] : -(i - 4) >= 0 and -i <= 2 }",
        "{ [i] : 2*i >= 3 and i*2 <= 11 and 2 * -i >= -20 }",
        "{ [i] : i/2 >= 1 }",
        "{ [i] : i == 3 }",
        "{ [i] | i > 2 }",
        "{ [i, *] }",
        "{ [i, j = i + 1] }",
        "[N, M] -> { [i] : N <= i <= M and M <= 100 }",
        "[N] -> { [i] : 0 <= i < N <= 100 }",
        "{ [i] : i = 0; [i] : i = 5 }",
        "{ [i] -> [j] : j = i + 1; [i] -> [j] : j = i - 1 }",
        "{ [i] : 0 <= i <= 3; }",
        "# a comment\n{ [i] : i = 1 } # trailing comment",
        "{ [i] : i >= 0 and (i <= 2 or i >= 8) and i <= 10 }",
        "{ [i] : exists (e: e >= 0 and i = 4e) or exists (e: e < 0 and i = 6e) }",
        "{ [i] : floor((i + 1)/2) = floor(i/2) }",
        "{ [i] : 3*floor((i)/3) = i - 1 }",
        "{ [i'] : i' > 0 }",
        "{ S_1[i] }",
    ];
    for text in inputs {
        round_trip(text);
    }
}

#[test]
fn printed_forms() {
    let cases = [
        (
            "[N, M] -> { S[i, j] -> T[o0] : 0 <= i < N and o0 = i + j }",
            "[N, M] -> { S[i, j] -> T[o0 = i + j] : 0 <= i < N }",
        ),
        (
            "{ [i] : i <= 0 or (i >= 5 and i <= 9) }",
            "{ [i] : i <= 0 or 5 <= i <= 9 }",
        ),
        ("{ S[i] : false }", "{ S[i] : false }"),
        ("{ S[i] : i > 0 and i < 0 }", "{ S[i] : false }"),
        ("[N] -> { : N >= 0 }", "[N] -> { : N >= 0 }"),
        ("[N] -> { : }", "[N] -> { : }"),
        ("{ S[i] }", "{ S[i] }"),
        ("{ }", "{ }"),
        ("[N] -> { [N] }", "[N] -> { [N] }"),
        ("{ [i, i] }", "{ [i, i] }"),
        ("{ [i] -> [i] }", "{ [i] -> [i] }"),
        ("{ [i] : floor(i/3) = 2 }", "{ [i] : floor((i)/3) = 2 }"),
        ("{ [i] : i mod 3 = 1 }", "{ [i] : (i) mod 3 = 1 }"),
        (
            "{ [i] : 3*floor((i)/3) <= i - 1 }",
            "{ [i] : (i) mod 3 >= 1 }",
        ),
        (
            "{ [i, j] : exists (k: i = 4k) and (i + j) mod 3 = 0 }",
            "{ [i, j] : (i) mod 4 = 0 and (i + j) mod 3 = 0 }",
        ),
        ("{ [i] -> [i mod 4] }", "{ [i] -> [(i) mod 4] }"),
        (
            "{ [i] -> [o] : o = floor(i/2) }",
            "{ [i] -> [o = floor((i)/2)] }",
        ),
        ("{ [i, j] : j < i + N }", ""),
        (
            "[N] -> { [i] : i >= N + 1 and i <= 2N - 1 }",
            "[N] -> { [i] : N < i < 2N }",
        ),
        (
            "{ [x] : x = 1180591620717411303424 }",
            "{ [x = 1180591620717411303424] }",
        ),
        (
            "{ [x, y] : x = 1180591620717411303424y }",
            "{ [x, y] : 1180591620717411303424y = x }",
        ),
        (
            "{ S[i] -> [i]; T[j] -> [j, 0] }",
            "{ S[i] -> [i]; T[j] -> [j, 0] }",
        ),
        (
            "{ [i, j] : exists (e: 2e <= i and 3e >= j) }",
            "{ [i, j] : exists (e0: i >= 2e0 and j <= 3e0) }",
        ),
    ];
    for (text, expect) in cases {
        if expect.is_empty() {
            assert!(parse_object(text).is_err(), "{text}");
            continue;
        }
        assert_eq!(
            parse_object(text).expect(text).to_string(),
            expect,
            "{text}"
        );
    }
}

// ----- semantics -----

#[test]
fn semantics_of_operators() {
    check_set("{ [i] : i mod 3 = 1 }", |p| p[0].rem_euclid(3) == 1);
    // As in isl, `%` binds to the factor: `-i % 4` is `-(i % 4)`.
    check_set("{ [i] : -i % 4 = -3 }", |p| p[0].rem_euclid(4) == 3);
    check_set("{ [i] : (-i) % 4 = 3 }", |p| (-p[0]).rem_euclid(4) == 3);
    check_set("{ [i] : floor(i/3) = 1 }", |p| p[0].div_euclid(3) == 1);
    check_set("{ [i] : ceil(i/3) = 1 }", |p| -((-p[0]).div_euclid(3)) == 1);
    check_set("{ [i] : floord(2i + 1, 4) <= -1 }", |p| {
        (2 * p[0] + 1).div_euclid(4) <= -1
    });
    check_set("{ [i] : i // 2 = -2 }", |p| p[0].div_euclid(2) == -2);
    check_set("{ [i] : i/2 >= 1 }", |p| p[0] >= 2);
    check_set("{ [i] : i/2 > 1 }", |p| p[0] > 2);
    check_set("{ [i, j] : 0 <= i, j < 3 }", |p| {
        (0..3).contains(&p[0]) && (0..3).contains(&p[1])
    });
    check_set("{ [i, j] : i < j <= 2 }", |p| p[0] < p[1] && p[1] <= 2);
    check_set("{ [i] : i != 2 }", |p| p[0] != 2);
    check_set("{ [i] : not (i = 2 or i = 4) }", |p| p[0] != 2 && p[0] != 4);
    check_set("{ [i] : not i >= 2 and i >= -1 }", |p| {
        (-1..2).contains(&p[0])
    });
    check_set("{ [i] : not not i >= 2 }", |p| p[0] >= 2);
    check_set("{ [i] : i > 0 implies i > 3 }", |p| p[0] <= 0 || p[0] > 3);
    check_set("{ [i] : i > 0 implies i > 3 or i = 1 }", |p| {
        p[0] <= 0 || p[0] > 3 || p[0] == 1
    });
    check_set("{ [i] : i >= min(2, 5) }", |p| p[0] >= 2);
    check_set("{ [i, j] : i <= min(j, 3) }", |p| p[0] <= p[1].min(3));
    check_set("{ [i, j] : i >= min(j, 3) }", |p| p[0] >= p[1].min(3));
    check_set("{ [i, j] : i <= max(j, 3) }", |p| p[0] <= p[1].max(3));
    check_set("{ [i, j] : i = max(j, -j) }", |p| p[0] == p[1].abs());
    check_set("{ [i, j] : i != max(j, 1) }", |p| p[0] != p[1].max(1));
    check_set("{ [i, j] : min(i, j) mod 2 = 0 }", |p| {
        p[0].min(p[1]).rem_euclid(2) == 0
    });
    check_set("{ [i, j] : -2 * min(i, j) + 1 >= 0 }", |p| {
        -2 * p[0].min(p[1]) + 1 >= 0
    });
    check_set("{ [i, j] : floor(max(i, j)/2) <= 1 }", |p| {
        p[0].max(p[1]).div_euclid(2) <= 1
    });
    check_set("{ [i, j] : not (i < min(j, 2)) }", |p| p[0] >= p[1].min(2));
    check_set("{ [i, j] : i, j << 1, 2 }", |p| (p[0], p[1]) < (1, 2));
    check_set("{ [i, j] : i, j <<= 1, 2 }", |p| (p[0], p[1]) <= (1, 2));
    check_set("{ [i, j] : i, j >> 1, 2 }", |p| (p[0], p[1]) > (1, 2));
    check_set("{ [i, j] : i, j >>= 1, 2 }", |p| (p[0], p[1]) >= (1, 2));
    check_set("{ [i, j] : not (i, j << 1, 2) }", |p| {
        (p[0], p[1]) >= (1, 2)
    });
    check_set("{ [i] : exists e: i = 3e + 1 }", |p| {
        p[0].rem_euclid(3) == 1
    });
    check_set("{ [i] : exists (e = floor(i/2): 2e = i) }", |p| {
        p[0] % 2 == 0
    });
    check_set("{ [i, j] : exists (e: 2e <= i and 3e >= j) }", |p| {
        (-20..20).any(|e| 2 * e <= p[0] && 3 * e >= p[1])
    });
    check_set("[N] -> { [i] : 0 <= i < N <= 3 }", |p| {
        0 <= p[1] && p[1] < p[0] && p[0] <= 3
    });
    check_set("[N] -> { [N] }", |p| p[1] == p[0]);
    check_set("{ [i, i] }", |p| p[0] == p[1]);
    check_set("{ [i, 2i + 1] }", |p| p[1] == 2 * p[0] + 1);
    check_set("{ [i, j = i + 1] }", |p| p[1] == p[0] + 1);
    check_set("{ [i] -> [min(i, 2)] }", |p| p[1] == p[0].min(2));
    check_set("{ [i] -> [i mod 3] }", |p| p[1] == p[0].rem_euclid(3));
    check_set("{ [[i] -> [j]] : j = i + 1 }", |p| p[1] == p[0] + 1);
    check_set(
        "{ [i] : 1180591620717411303424i >= 1180591620717411303424 }",
        |p| p[0] >= 1,
    );
    check_set("{ [i] : i >= 0 and (i <= 2 or i >= 5) and i < 7 }", |p| {
        (0..=2).contains(&p[0]) || (5..7).contains(&p[0])
    });
}

#[test]
fn kinds_and_spaces() {
    assert!(matches!(parse_object("{ [i] }").unwrap(), Parsed::Set(_)));
    assert!(matches!(
        parse_object("[N] -> { : N > 0 }").unwrap(),
        Parsed::Set(_)
    ));
    assert!(matches!(
        parse_object("{ [i] -> [j] }").unwrap(),
        Parsed::Map(_)
    ));
    assert!(matches!(
        parse_object("{ A[i]; B[i] }").unwrap(),
        Parsed::UnionSet(_)
    ));
    assert!(matches!(
        parse_object("{ A[i]; A[j] : j > 0 }").unwrap(),
        Parsed::Set(_)
    ));
    assert!(matches!(
        parse_object("{ A[i] -> B[]; A[i] -> C[] }").unwrap(),
        Parsed::UnionMap(_)
    ));
    assert!(matches!(parse_object("{ }").unwrap(), Parsed::UnionSet(_)));

    let s = parse_set("[N] -> { S[i, j] : 0 <= i < N }").unwrap();
    assert_eq!(s.space().param_names(), ["N".to_string()]);
    assert_eq!(s.space().range_tuple().unwrap().name(), Some("S"));
    assert_eq!(s.space().range_tuple().unwrap().dim_name(1), Some("j"));
    assert_eq!(s.n_dims(), 2);

    let m = parse_map("{ A[[i] -> [j]] -> [k, l] }").unwrap();
    assert_eq!(m.space().n_in(), 2);
    assert_eq!(m.space().n_out(), 2);
    assert!(m.space().domain_tuple().unwrap().nested().is_some());

    // Parameter-only, set and map objects through every entry point.
    assert!(parse_map("{ [i] }").is_ok());
    assert!(parse_set("{ [i] -> [j] }").is_err());
    assert!(parse_set("{ A[i]; B[i] }").is_err());
    assert!(parse_union_set("{ A[i]; B[i] }").unwrap().sets().count() == 2);
    assert!(parse_union_set("{ A[i] -> B[i] }").is_err());
    assert_eq!(
        parse_union_map("{ A[i] -> B[i]; C[] -> D[] }")
            .unwrap()
            .n_maps(),
        2
    );
    assert_eq!(parse_union_map("{ }").unwrap().n_maps(), 0);
    assert_eq!(parse_union_map("{ A[i] }").unwrap().n_maps(), 1);

    let b = parse_basic_set("{ [i] : 0 <= i <= 5 }").unwrap();
    assert_eq!(b.as_basic_map().ineqs().len(), 2);
    assert!(parse_basic_set("{ [i] : i = 0 or i = 5 }").is_err());
    assert!(parse_basic_map("{ [i] -> [j] : false }")
        .unwrap()
        .is_obviously_empty());

    let via_trait: Map = "{ [i] -> [i + 1] }".parse().unwrap();
    assert_eq!(via_trait.space().n_out(), 1);
    let u: UnionSet = "{ A[i]; B[j] }".parse().unwrap();
    assert_eq!(u.sets().count(), 2);
    let p: Parsed = "{ [i] }".parse().unwrap();
    assert_eq!(p.to_string(), "{ [i] }");
}

#[test]
fn union_with_parameters() {
    let u = parse_union_map("[N] -> { S[i] -> T[j] : j = i + N; U[i] -> T[j] : j = 2i }").unwrap();
    let printed = u.to_string();
    assert!(printed.starts_with("[N] -> { "), "{printed}");
    let again = parse_union_map(&printed).unwrap();
    assert_eq!(again.to_string(), printed);
}

// ----- printing of programmatically built objects -----

#[test]
fn printer_generates_fresh_names() {
    // Dimension names that clash with parameters, repeat, or are keywords are replaced.
    let tuple = Tuple::with_names(
        Some("S".into()),
        vec![
            Some("N".into()),
            Some("x".into()),
            Some("x".into()),
            Some("and".into()),
            None,
            Some("i1".into()),
        ],
    );
    let space = Space::set(vec!["N".into()], tuple);
    let names = space_dim_names(&space);
    assert_eq!(names, ["N", "i0", "x", "i2", "i3", "i4", "i1"]);
    let mut b = BasicMap::universe(space.clone());
    let mut row = b.zero_row();
    row[1] = int(1);
    row[2] = int(-1);
    b.add_ineq(row);
    let printed = b.to_string();
    assert_eq!(printed, "[N] -> { S[i0, x, i2, i3, i4, i1] : i0 <= N }");
    let m = parse_map(&printed).unwrap();
    assert_same_points(&Map::from_basic(b), &m, &printed);

    // Generated names that are taken get primes, as in isl.
    let tuple = Tuple::with_names(None, vec![None, Some("i0".into())]);
    let space = Space::set(vec!["o0".into()], tuple);
    assert_eq!(space_dim_names(&space), ["o0", "i0'", "i0"]);
    let tuple = Tuple::with_names(None, vec![None, Some("i0".into()), Some("i0'".into())]);
    let space = Space::set(vec![], tuple);
    assert_eq!(space_dim_names(&space), ["i0''", "i0", "i0'"]);
    let space = Space::map(
        vec![],
        Tuple::anonymous(1),
        Tuple::new(Some("T"), &["o0_1"]),
    );
    let space = space.with_params(vec!["o0".into()]);
    assert_eq!(space_dim_names(&space), ["o0", "i0", "o0_1"]);
}

#[test]
fn printer_existentials_and_divs() {
    // { [i, j] : exists e: 2e <= i and 3e >= j } with e kept existential, plus a known div
    // floor((i + e)/2) that depends on it and a known div floor(j/3) that does not.
    let space = Space::set(vec![], Tuple::new(None, &["i", "j"]));
    let mut b = BasicMap::universe(space);
    let e = b.add_div(None);
    let mut r = b.zero_row();
    r[1] = int(1);
    r[e] = int(-2);
    b.add_ineq(r);
    let mut r = b.zero_row();
    r[2] = int(-1);
    r[e] = int(3);
    b.add_ineq(r);
    let mut num = b.zero_row();
    num[1] = int(1);
    num[e] = int(1);
    let d = b.add_div(Some(crate::bmap::DivDef { num, den: int(2) }));
    let mut r = b.zero_row();
    r[d] = int(1);
    r[0] = int(5);
    b.add_ineq(r);
    let mut num = b.zero_row();
    num[2] = int(1);
    let q = b.add_known_div(num, int(3));
    let mut r = b.zero_row();
    r[q] = int(2);
    r[1] = int(-1);
    b.add_ineq(r);
    let printed = b.to_string();
    assert_eq!(
        printed,
        "{ [i, j] : i <= 2*floor((j)/3) and exists (e0: i >= 2e0 and j <= 3e0 and floor((i + e0)/2) >= -5) }"
    );
    let m = parse_map(&printed).unwrap();
    assert_same_points(&Map::from_basic(b), &m, &printed);
}

// ----- dimensions fixed by equalities, printed inside the tuple -----

#[test]
fn folded_tuples() {
    // What isl prints for the same objects, but for the order of the terms (constant
    // last) and of the pieces (first appearance).
    let cases = [
        ("{ [i, j] : i = 1 and j = 2 }", "{ [i = 1, j = 2] }"),
        ("{ [1, 2] }", "{ [1, 2] }"),
        (
            "[N] -> { S[i, j] -> S[i - 1, j] }",
            "[N] -> { S[i, j] -> S[i - 1, j] }",
        ),
        (
            "[N] -> { S[i, j] : i = 0 and j = 0 and N >= 1 }",
            "[N] -> { S[i = 0, j = 0] : N >= 1 }",
        ),
        (
            "[N] -> { S[i, j] -> S[i2, j2] : i2 = i - 1 and j2 = j }",
            "[N] -> { S[i, j] -> S[i2 = i - 1, j2 = j] }",
        ),
        ("{ [i, j] : j = 2i }", "{ [i, j = 2i] }"),
        ("{ [i, j] : i = 2j }", "{ [i, j] : 2j = i }"),
        ("{ [i, j] : 2j = i + 1 }", "{ [i, j] : 2j = i + 1 }"),
        (
            "[N] -> { S[i] -> T[j] : i = N and j = i + 1 }",
            "[N] -> { S[i = N] -> T[j = N + 1] }",
        ),
        (
            "[N] -> { S[i, k] -> T[j] : k = i + N }",
            "[N] -> { S[i, k = N + i] -> T[j] }",
        ),
        (
            "[N] -> { [i, j] : i = N and j > i }",
            "[N] -> { [i = N, j] : j > N }",
        ),
        (
            "{ [[i] -> [j]] -> [k] : j = i + 1 and k = i }",
            "{ [[i] -> [j = i + 1]] -> [k = i] }",
        ),
        (
            "{ [i] -> [floor(i/2), i mod 3] }",
            "{ [i] -> [floor((i)/2), (i) mod 3] }",
        ),
        ("{ [i] -> [2*floor(i/2)] }", "{ [i] -> [2*floor((i)/2)] }"),
        (
            "{ [i] -> [o] : o = floor(i/2) and o >= 1 }",
            "{ [i] -> [o = floor((i)/2)] : floor((i)/2) >= 1 }",
        ),
        (
            "{ [i] -> [j] : j = i and j mod 2 = 0 }",
            "{ [i] -> [j = i] : (i) mod 2 = 0 }",
        ),
        (
            "{ [i] -> [j] : exists e : j = 3e and e = i + 1 }",
            "{ [i] -> [j = 3i + 3] }",
        ),
        (
            "{ [i] -> [j, k] : exists e : j = e + i and k = e and 0 <= e <= 3 }",
            "{ [i] -> [j, k = -i + j] : i <= j <= i + 3 }",
        ),
        // Disjuncts: one piece per distinct tuple, in order of first appearance.
        ("{ [i] : i = 1 or i >= 5 }", "{ [i = 1]; [i] : i >= 5 }"),
        ("{ [i] : i >= 5; [1] }", "{ [i] : i >= 5; [i = 1] }"),
        // The names are those of the first piece, as in isl.
        ("{ [1]; [i] : i >= 5 }", "{ [1]; [i0] : i0 >= 5 }"),
        ("{ [i, 0]; [1, j] }", "{ [i, 0]; [i = 1, i1] }"),
        (
            "{ [i, j] : j = 0 and (i < 0 or i > 5) }",
            "{ [i, j = 0] : i <= -1 or i >= 6 }",
        ),
        (
            "{ [i, j] : (i = 0 and j >= 3) or (i = 0 and j <= -3) or i = 1 }",
            "{ [i = 0, j] : j >= 3 or j <= -3; [i = 1, j] }",
        ),
        (
            "{ [i, j, k] : k = i + j and (i >= 0 or j >= 0) }",
            "{ [i, j, k = i + j] : i >= 0 or j >= 0 }",
        ),
        (
            "{ A[i] -> B[i, 0]; C[j] -> D[j + 1] : j >= 0 }",
            "{ A[i] -> B[i, 0]; C[j] -> D[j + 1] : j >= 0 }",
        ),
    ];
    for (text, expect) in cases {
        assert_eq!(round_trip(text), expect, "{text}");
        assert_eq!(round_trip(expect), expect, "{expect}");
    }
    // Pieces of one space, whatever their tuples print, make one map.
    let s = parse_set("{ [1]; [i] : i >= 5; [i = 3] }").unwrap();
    assert_eq!(s.as_map().basic_maps().len(), 3);
    check_set("{ [1]; [i] : i >= 5; [i = 3] }", |p| {
        p[0] == 1 || p[0] == 3 || p[0] >= 5
    });
    // A disjunct that another one with fewer constraints covers is left out, as the
    // reader would drop it.
    assert_eq!(
        round_trip("{ [i, 0] : i >= 0 or (i >= 0 and i <= 3) }"),
        "{ [i, 0] : i >= 0 }"
    );
}

/// Prints `m`, compares with `expect`, and checks that the text reads back to the same
/// points and prints the same.
#[track_caller]
fn check_printed(m: &Map, expect: &str) {
    let printed = m.to_string();
    assert_eq!(printed, expect);
    let again = parse_map(&printed).unwrap_or_else(|e| panic!("{printed}: {e}"));
    assert_same_points(m, &again, &printed);
    assert_eq!(again.to_string(), printed, "printing is not stable");
}

/// A row of `b`'s width with the given `(column, value)` entries.
fn row_of(b: &BasicMap, entries: &[(usize, i64)]) -> Vec<Int> {
    let mut r = b.zero_row();
    for &(c, v) in entries {
        r[c] = int(v);
    }
    r
}

#[test]
fn folding_unreduced_basic_maps() {
    // Equalities not in reduced form: the folded dimension is substituted elsewhere.
    let mut b = BasicMap::universe(Space::set_anonymous(2));
    b.add_eq(row_of(&b, &[(0, -1), (1, 1)]));
    b.add_eq(row_of(&b, &[(0, -1), (1, -1), (2, 1)]));
    check_printed(&Map::from_basic(b), "{ [1, 2] }");

    // A division over a folded dimension.
    let mut b = BasicMap::universe(Space::set_anonymous(2));
    b.add_eq(row_of(&b, &[(0, -1), (1, 1)]));
    let mut num = b.zero_row();
    num[1] = int(1);
    num[2] = int(1);
    let q = b.add_known_div(num, int(2));
    b.add_eq(row_of(&b, &[(1, 1), (2, 1), (q, -2)]));
    check_printed(&Map::from_basic(b), "{ [1, i1] : (i1 + 1) mod 2 = 0 }");

    // A named dimension used by an inequality.
    let space = Space::set(vec![], Tuple::new(None, &["i", "j"]));
    let mut b = BasicMap::universe(space);
    b.add_eq(row_of(&b, &[(1, 1)]));
    b.add_ineq(row_of(&b, &[(1, -1), (2, 1)]));
    check_printed(&Map::from_basic(b), "{ [i = 0, j] : j >= 0 }");

    // Not folded: an existential in the equality, a division over a later dimension, a
    // non-unit coefficient.
    let space = Space::set(vec![], Tuple::new(None, &["i"]));
    let mut b = BasicMap::universe(space);
    let e = b.add_div(None);
    b.add_eq(row_of(&b, &[(1, 1), (e, -2)]));
    let printed = b.to_string();
    assert_eq!(printed, "{ [i] : exists (e0: i = 2e0) }");
    let again = parse_map(&printed).unwrap();
    assert_same_points(&Map::from_basic(b), &again, &printed);
    let space = Space::set(vec![], Tuple::new(None, &["a", "b"]));
    let mut b = BasicMap::universe(space);
    let mut num = b.zero_row();
    num[2] = int(1);
    let q = b.add_known_div(num, int(3));
    b.add_eq(row_of(&b, &[(1, 1), (q, -1)]));
    check_printed(&Map::from_basic(b), "{ [a, b] : a = floor((b)/3) }");

    // Folding `b = floor(a/3)` rewrites `floor(b/2)`, the first local, over the second:
    // the locals are renumbered.
    let space = Space::set(vec![], Tuple::new(None, &["a", "b"]));
    let mut b = BasicMap::universe(space);
    let mut num = b.zero_row();
    num[2] = int(1);
    let q0 = b.add_known_div(num, int(2));
    let mut num = b.zero_row();
    num[1] = int(1);
    let q1 = b.add_known_div(num, int(3));
    b.add_eq(row_of(&b, &[(2, 1), (q1, -1)]));
    b.add_ineq(row_of(&b, &[(q0, 1)]));
    check_printed(
        &Map::from_basic(b),
        "{ [a, b = floor((a)/3)] : floor((floor((a)/3))/2) >= 0 }",
    );

    // Not folded: the substitution would turn `floor((a + b)/2)` into `a`, a local the
    // reader would not create.
    let space = Space::set(vec![], Tuple::new(None, &["a", "b"]));
    let mut b = BasicMap::universe(space);
    let mut num = b.zero_row();
    num[1] = int(1);
    num[2] = int(1);
    let q = b.add_known_div(num, int(2));
    b.add_eq(row_of(&b, &[(1, 1), (2, -1)]));
    b.add_ineq(row_of(&b, &[(q, 1)]));
    let printed = b.to_string();
    assert_eq!(printed, "{ [a, b] : b = a and floor((a + b)/2) >= 0 }");
    let again = parse_map(&printed).unwrap();
    assert_same_points(&Map::from_basic(b), &again, &printed);
}

#[test]
fn inverted_maps_keep_readable_names() {
    let reversed = |text: &str| parse_map(text).unwrap().reverse();
    check_printed(
        &reversed("[N] -> { S[i, j] -> S[i - 1, j] }"),
        "[N] -> { S[i0, i1] -> S[i = i0 + 1, j = i1] }",
    );
    check_printed(
        &reversed("{ S[i, j] -> S[i', j'] : i' = i + 1 and j' = j }"),
        "{ S[i', j'] -> S[i = i' - 1, j = j'] }",
    );
    check_printed(
        &reversed("{ S[i, j] -> S[i + 1, j] : i > 0 }"),
        "{ S[i0, i1] -> S[i = i0 - 1, j = i1] : i0 >= 2 }",
    );
    // The generated name of the domain is taken by the range: it gets a prime.
    check_printed(
        &reversed("{ [i0] -> [i0 + 1] }"),
        "{ [i0'] -> [i0 = i0' - 1] }",
    );
    check_printed(
        &reversed("{ [i] -> [o] : o > i }"),
        "{ [o] -> [i] : i < o }",
    );

    // Tuples with the same names: the range's are replaced, and a fixed dimension shows
    // its value only, never a name of the other tuple.
    let s = parse_set("{ S[i, j] }").unwrap();
    let identity = Map::identity(s.space());
    check_printed(&identity, "{ S[i, j] -> S[i, j] }");
    check_printed(&identity.reverse(), "{ S[i, j] -> S[i, j] }");
    let lt = Map::lex_lt(s.space(), true);
    check_printed(
        &lt,
        "{ S[i, j] -> S[o0, o1] : o0 > i; S[i, j] -> S[o0 = i, o1] : o1 > j }",
    );
    check_printed(
        &lt.reverse(),
        "{ S[i, j] -> S[o0, o1] : o0 < i; S[i, j] -> S[o0 = i, o1] : o1 < j }",
    );
}

#[test]
fn helpers() {
    let names: Vec<String> = ["N", "i", "floor((i)/2)"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let row = [int(-1), int(1), int(-2), int(3)];
    assert_eq!(
        affine_to_string(&row, &names),
        "N - 2i + 3*floor((i)/2) - 1"
    );
    assert_eq!(
        affine_to_string(&[int(0), int(0), int(0), int(0)], &names),
        "0"
    );
    assert_eq!(affine_to_string(&[int(7)], &names), "7");
    assert_eq!(
        affine_to_string(&[int(-7), int(0), int(-1)], &names),
        "-i - 7"
    );
    assert_eq!(
        constraint_to_string(&[int(-1), int(0), int(1)], false, &names, 2),
        "i >= 1"
    );
    assert_eq!(
        constraint_to_string(&[int(-1), int(1), int(-1)], false, &names, 2),
        "i < N"
    );
    assert_eq!(
        constraint_to_string(&[int(0), int(1), int(-1)], true, &names, 2),
        "i = N"
    );
    assert_eq!(
        constraint_to_string(&[int(-1), int(0), int(0)], false, &names, 2),
        "-1 >= 0"
    );
    let rows = vec![
        (vec![int(0), int(0), int(1)], false),
        (vec![int(-1), int(1), int(-1)], false),
    ];
    assert_eq!(constraints_to_strings(&rows, &names, 2), ["0 <= i < N"]);
}

// ----- errors -----

#[test]
fn error_positions_and_messages() {
    check_error("", 1, 1, "expected '{' or '[', found end of input");
    check_error("   \n  ", 2, 3, "expected '{' or '[', found end of input");
    check_error("{ [i] : i > }", 1, 13, "expected an expression, found '}'");
    check_error(
        "{ [i, j x] }",
        1,
        9,
        "expected ']' or ',' after tuple element, found 'x'",
    );
    check_error("[N] -> { [i] : i < K }", 1, 20, "unknown identifier 'K'");
    check_error(
        "{ [i] : i >= 0\n   and j < 3 }",
        2,
        8,
        "unknown identifier 'j'",
    );
    check_error(
        "{ [i] : i * j >= 0 }",
        1,
        13,
        "expected a constant factor after '*', found 'j'",
    );
    check_error("{ [i] : floor(i/0) = 1 }", 1, 17, "division by zero");
    check_error(
        "{ [i] : i = 1 } x",
        1,
        17,
        "expected end of input after '}', found 'x'",
    );
    check_error("[N, N] -> { [i] }", 1, 5, "duplicate parameter 'N'");
    check_error(
        "{ [i] : exists (i: i = 0) }",
        1,
        17,
        "existential variable 'i' is already defined",
    );
    check_error(
        "{ [i] : exists (e, e: e = 0) }",
        1,
        20,
        "existential variable 'e' is already defined",
    );
    check_error("{ [i] : i @ 3 }", 1, 11, "unexpected character '@'");
    check_error("{ [é] }", 1, 4, "unexpected character 'é'");
    check_error(
        "{ [i]; [i] -> [j] }",
        1,
        8,
        "cannot combine a set and a map",
    );
    check_error("{ : N > 0; [i] }", 1, 5, "unknown identifier 'N'");
    check_error(
        "[N] -> { : N > 0; [i] }",
        1,
        19,
        "cannot combine a parameter domain",
    );
    check_error(
        "{ [i] : (i >= 0 }",
        1,
        17,
        "expected ')' after formula, found '}'",
    );
    check_error(
        "{ [i] : i >= 0 and }",
        1,
        20,
        "expected an expression, found '}'",
    );
    check_error(
        "{ [i] : i >= 0 [ }",
        1,
        16,
        "expected 'and', 'or', ';' or '}' after constraint, found '['",
    );
    check_error(
        "{ [i] : i }",
        1,
        11,
        "expected a comparison operator, found '}'",
    );
    check_error("{ [i] : infty > i }", 1, 9, "'infty' is not supported");
    check_error(
        "{ [i] : i, i << 1 }",
        1,
        14,
        "lexicographic comparison of lists of different lengths",
    );
    check_error("{ [i] : i = 1 ; [j] : j = 2 ", 1, 29, "found end of input");
    check_error(
        "{ [i] -> : i = 1 }",
        1,
        10,
        "expected a tuple after '->', found ':'",
    );
    check_error(
        "[N] { [i] }",
        1,
        5,
        "expected '->' after the parameter list, found '{'",
    );
    // `[i]` is a floor (isl's `[e]`) unless the bracket is followed by `->`.
    check_error(
        "{ [[i] [j]] }",
        1,
        8,
        "expected ']' or ',' after tuple element, found '['",
    );
    check_error(
        "{ [[i] -> [j] x] }",
        1,
        15,
        "expected ']' after wrapped tuple, found 'x'",
    );
    check_error(
        "{ [i] : floor(i) mod j = 0 }",
        1,
        22,
        "expected a positive integer constant, found 'j'",
    );
    check_error(
        "{ [i] : min() = 0 }",
        1,
        13,
        "expected an expression, found ')'",
    );
    check_error(
        "{ [i] : exists : }",
        1,
        18,
        "expected an expression, found '}'",
    );
    check_error(
        "{ [i] : exists (e: e = i }",
        1,
        26,
        "expected ')' closing 'exists'",
    );
}

#[test]
fn error_offsets() {
    match parse_object_at("{ [i] : i < K }", 10, 5) {
        Err(Error::Parse { line, column, .. }) => assert_eq!((line, column), (10, 17)),
        other => panic!("{other:?}"),
    }
    match parse_object_at("{ [i] :\n i < K }", 10, 5) {
        Err(Error::Parse { line, column, .. }) => assert_eq!((line, column), (11, 6)),
        other => panic!("{other:?}"),
    }
    assert!(parse_object_at("{ [i] }", 3, 3).is_ok());
}

#[test]
fn negated_quantifiers() {
    // Complements of quantified formulas go through `Map::subtract`.
    check_set("{ [i] : not (exists e: i = 2e) and 0 <= i < 6 }", |p| {
        (0..6).contains(&p[0]) && p[0] % 2 != 0
    });
    check_set("{ [i] : not not (exists e: i = 3e) }", |p| p[0] % 3 == 0);
    check_set("{ [i, j] : not (exists e: i = 2e + j) }", |p| {
        (p[0] - p[1]) % 2 != 0
    });
    check_set("[N] -> { [i] : (exists e: i = 3e) implies i > N }", |p| {
        p[1] % 3 != 0 || p[1] > p[0]
    });
    // The negated formula uses the existential variable of the enclosing formula.
    check_set(
        "{ [i, j] : exists e: (e = j and not (exists f: e = 2f + i)) }",
        |p| (p[1] - p[0]) % 2 != 0,
    );
    check_set(
        "{ [i] : exists (e: 0 <= e <= 2 and not (exists f: e + i = 3f)) and i >= 0 }",
        |p| p[0] >= 0,
    );
    check_set(
        "{ [i] : exists (e: i = 2e and not (exists f: e = 2f)) }",
        |p| p[0].rem_euclid(4) == 2,
    );
    check_set("[N] -> { : not (exists e: N = 2e) }", |p| p[0] % 2 != 0);
}

#[test]
fn limits_are_errors_not_crashes() {
    let deep_parens = format!("{{ [i] : {}i{} >= 0 }}", "(".repeat(5000), ")".repeat(5000));
    check_error(&deep_parens, 1, 108, "nested too deeply");
    let deep_not = format!("{{ [i] : {}i >= 0 }}", "not ".repeat(20000));
    assert!(parse_object(&deep_not).is_ok());
    let minus = format!("{{ [i] : {}i >= 0 }}", "-".repeat(20000));
    assert!(parse_object(&minus).is_ok());
    let floors = format!(
        "{{ [i] : {}i{} >= 0 }}",
        "floor(".repeat(500),
        ")".repeat(500)
    );
    assert!(matches!(parse_object(&floors), Err(Error::Parse { .. })));
    let exists = format!(
        "{{ [i] : {} i = 0 }}",
        (0..500)
            .map(|k| format!("exists e{k}:"))
            .collect::<String>()
    );
    assert!(matches!(parse_object(&exists), Err(Error::Parse { .. })));
    let products = format!("{{ [i] : {}i >= 0 }}", "2*".repeat(1000));
    assert!(matches!(parse_object(&products), Err(Error::Parse { .. })));
    let long_sum = format!("{{ [i] : {}i >= 0 }}", "i + ".repeat(20000));
    assert!(parse_object(&long_sum).is_ok());
    // 2^12 disjuncts from a conjunction of disjunctions.
    let blowup = format!(
        "{{ [i, j] : {} }}",
        (0..12)
            .map(|k| format!("(i >= {k} or j >= {k})"))
            .collect::<Vec<_>>()
            .join(" and ")
    );
    assert!(matches!(parse_object(&blowup), Err(Error::Parse { .. })));
    let minmax = format!(
        "{{ [i] : i <= {} }}",
        (0..60)
            .map(|k| format!("min(i, {k})"))
            .collect::<Vec<_>>()
            .join(" + ")
    );
    assert!(matches!(parse_object(&minmax), Err(Error::Parse { .. })));
    let big = format!("{{ [i] : i = {} }}", "9".repeat(2000));
    assert!(parse_object(&big).is_ok());
}

// ----- properties -----

/// A string of isl tokens.
#[derive(Clone, Debug)]
struct TokenSoup(String);

const SOUP: &[&str] = &[
    "{",
    "}",
    "?",
    "rat",
    "[",
    "]",
    "(",
    ")",
    "->",
    ":",
    ";",
    ",",
    "and",
    "or",
    "not",
    "exists",
    "implies",
    "i",
    "j",
    "N",
    "e",
    "0",
    "1",
    "2",
    "7",
    "=",
    "==",
    "<=",
    "<",
    ">=",
    ">",
    "!=",
    "<<",
    ">>=",
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "mod",
    "floor",
    "ceil",
    "floord",
    "min",
    "max",
    "true",
    "false",
    "|",
    "||",
    "&",
    "!",
    "1180591620717411303424",
    "é",
    "\n",
    "#",
    "*",
    "S",
    "[N] ->",
    "{ [i] : ",
    "{ [i, j] -> [k] : ",
    " }",
    "rat",
    "infty",
    "'",
    "\"",
];

impl Arbitrary for TokenSoup {
    fn arbitrary(g: &mut Gen) -> TokenSoup {
        let n = usize::arbitrary(g) % 40;
        let mut s = String::new();
        if bool::arbitrary(g) {
            s.push_str("[N] -> { [i, j] : ");
        }
        for _ in 0..n {
            s.push_str(g.choose(SOUP).copied().unwrap_or("i"));
            s.push(' ');
        }
        if bool::arbitrary(g) {
            s.push('}');
        }
        TokenSoup(s)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = TokenSoup>> {
        let words: Vec<String> = self.0.split(' ').map(str::to_string).collect();
        Box::new((0..words.len()).map(move |k| {
            let mut w = words.clone();
            w.remove(k);
            TokenSoup(w.join(" "))
        }))
    }
}

#[test]
fn parser_never_panics_on_token_soup() {
    fn prop(s: TokenSoup) -> bool {
        if let Ok(p) = parse_object(&s.0) {
            // Whatever parses must print to something that parses again.
            let printed = p.to_string();
            assert!(
                parse_object(&printed).is_ok(),
                "{} printed as {printed}",
                s.0
            );
        }
        true
    }
    crate::oracle::seeded_quickcheck(100)
        .tests(400)
        .quickcheck(prop as fn(TokenSoup) -> bool);
}

/// A random expression over `N` (index 0), `i` (1), `j` (2), with its own evaluator.
#[derive(Clone, Debug)]
enum GenExpr {
    Const(i64),
    Var(usize, i64),
    Sum(Box<GenExpr>, Box<GenExpr>, bool),
    Floor(Box<GenExpr>, i64),
    Ceil(Box<GenExpr>, i64),
    Mod(Box<GenExpr>, i64),
    Min(Box<GenExpr>, Box<GenExpr>),
    Max(Box<GenExpr>, Box<GenExpr>),
    /// `[e/d]`, isl's other spelling of the floor.
    Bracket(Box<GenExpr>, i64),
    /// `(a < b ? c : d)`.
    Select([Box<GenExpr>; 4]),
}

const VARS: [&str; 3] = ["N", "i", "j"];

impl GenExpr {
    fn gen(g: &mut Gen, depth: u32) -> GenExpr {
        let small = |g: &mut Gen| i64::from(u8::arbitrary(g) % 7) - 3;
        let den = |g: &mut Gen| i64::from(u8::arbitrary(g) % 3) + 2;
        let choice = if depth == 0 {
            u8::arbitrary(g) % 2
        } else {
            u8::arbitrary(g) % 10
        };
        match choice {
            0 => GenExpr::Const(small(g)),
            1 => GenExpr::Var(usize::arbitrary(g) % 3, small(g)),
            2 => GenExpr::Sum(
                Box::new(GenExpr::gen(g, depth - 1)),
                Box::new(GenExpr::gen(g, depth - 1)),
                bool::arbitrary(g),
            ),
            3 => GenExpr::Floor(Box::new(GenExpr::gen(g, depth - 1)), den(g)),
            4 => GenExpr::Ceil(Box::new(GenExpr::gen(g, depth - 1)), den(g)),
            5 => GenExpr::Mod(Box::new(GenExpr::gen(g, depth - 1)), den(g)),
            6 => GenExpr::Min(
                Box::new(GenExpr::gen(g, depth - 1)),
                Box::new(GenExpr::gen(g, depth - 1)),
            ),
            7 => GenExpr::Max(
                Box::new(GenExpr::gen(g, depth - 1)),
                Box::new(GenExpr::gen(g, depth - 1)),
            ),
            8 => GenExpr::Bracket(Box::new(GenExpr::gen(g, depth - 1)), den(g)),
            _ => GenExpr::Select([(); 4].map(|()| Box::new(GenExpr::gen(g, depth - 1)))),
        }
    }

    fn text(&self) -> String {
        match self {
            GenExpr::Const(c) => format!("{c}"),
            GenExpr::Var(v, 1) => VARS[*v].to_string(),
            GenExpr::Var(v, c) => format!("{c}*{}", VARS[*v]),
            GenExpr::Sum(a, b, sub) => format!(
                "({} {} {})",
                a.text(),
                if *sub { "-" } else { "+" },
                b.text()
            ),
            GenExpr::Floor(a, d) => format!("floor(({})/{d})", a.text()),
            GenExpr::Ceil(a, d) => format!("ceil(({})/{d})", a.text()),
            GenExpr::Mod(a, d) => format!("({}) mod {d}", a.text()),
            GenExpr::Min(a, b) => format!("min({}, {})", a.text(), b.text()),
            GenExpr::Max(a, b) => format!("max({}, {})", a.text(), b.text()),
            GenExpr::Bracket(a, d) => format!("[({})/{d}]", a.text()),
            GenExpr::Select([a, b, c, d]) => format!(
                "({} < {} ? {} : {})",
                a.text(),
                b.text(),
                c.text(),
                d.text()
            ),
        }
    }

    fn eval(&self, p: &[i64]) -> i64 {
        match self {
            GenExpr::Const(c) => *c,
            GenExpr::Var(v, c) => c * p[*v],
            GenExpr::Sum(a, b, sub) => a.eval(p) + if *sub { -b.eval(p) } else { b.eval(p) },
            GenExpr::Floor(a, d) => a.eval(p).div_euclid(*d),
            GenExpr::Ceil(a, d) => -(-a.eval(p)).div_euclid(*d),
            GenExpr::Mod(a, d) => a.eval(p).rem_euclid(*d),
            GenExpr::Min(a, b) => a.eval(p).min(b.eval(p)),
            GenExpr::Max(a, b) => a.eval(p).max(b.eval(p)),
            GenExpr::Bracket(a, d) => a.eval(p).div_euclid(*d),
            GenExpr::Select([a, b, c, d]) => {
                if a.eval(p) < b.eval(p) {
                    c.eval(p)
                } else {
                    d.eval(p)
                }
            }
        }
    }
}

/// A random formula with its own evaluator.
#[derive(Clone, Debug)]
enum GenFormula {
    Cmp(GenExpr, &'static str, GenExpr),
    And(Box<GenFormula>, Box<GenFormula>),
    Or(Box<GenFormula>, Box<GenFormula>),
    Not(Box<GenFormula>),
    Implies(Box<GenFormula>, Box<GenFormula>),
    /// `exists e: expr = d·e + r`.
    Divisible(GenExpr, i64, i64),
    Const(bool),
}

impl GenFormula {
    fn gen(g: &mut Gen, depth: u32) -> GenFormula {
        let ops = ["<", "<=", ">", ">=", "=", "!="];
        let choice = if depth == 0 { 0 } else { u8::arbitrary(g) % 8 };
        let edepth = u32::from(u8::arbitrary(g) % 3);
        match choice {
            0 | 1 => GenFormula::Cmp(
                GenExpr::gen(g, edepth),
                g.choose(&ops).copied().unwrap_or("<"),
                GenExpr::gen(g, edepth),
            ),
            2 => GenFormula::And(
                Box::new(GenFormula::gen(g, depth - 1)),
                Box::new(GenFormula::gen(g, depth - 1)),
            ),
            3 => GenFormula::Or(
                Box::new(GenFormula::gen(g, depth - 1)),
                Box::new(GenFormula::gen(g, depth - 1)),
            ),
            4 => GenFormula::Not(Box::new(GenFormula::gen(g, depth - 1))),
            5 => GenFormula::Implies(
                Box::new(GenFormula::gen(g, depth - 1)),
                Box::new(GenFormula::gen(g, depth - 1)),
            ),
            6 => GenFormula::Divisible(
                GenExpr::gen(g, 1),
                i64::from(u8::arbitrary(g) % 3) + 2,
                i64::from(u8::arbitrary(g) % 3),
            ),
            _ => GenFormula::Const(bool::arbitrary(g)),
        }
    }

    fn text(&self) -> String {
        match self {
            GenFormula::Cmp(a, op, b) => format!("{} {op} {}", a.text(), b.text()),
            GenFormula::And(a, b) => format!("({} and {})", a.text(), b.text()),
            GenFormula::Or(a, b) => format!("({} or {})", a.text(), b.text()),
            GenFormula::Not(a) => format!("not ({})", a.text()),
            GenFormula::Implies(a, b) => format!("(({}) implies ({}))", a.text(), b.text()),
            GenFormula::Divisible(e, d, r) => format!("(exists (e: {} = {d}e + {r}))", e.text()),
            GenFormula::Const(b) => b.to_string(),
        }
    }

    fn eval(&self, p: &[i64]) -> bool {
        match self {
            GenFormula::Cmp(a, op, b) => {
                let (x, y) = (a.eval(p), b.eval(p));
                match *op {
                    "<" => x < y,
                    "<=" => x <= y,
                    ">" => x > y,
                    ">=" => x >= y,
                    "=" => x == y,
                    _ => x != y,
                }
            }
            GenFormula::And(a, b) => a.eval(p) && b.eval(p),
            GenFormula::Or(a, b) => a.eval(p) || b.eval(p),
            GenFormula::Not(a) => !a.eval(p),
            GenFormula::Implies(a, b) => !a.eval(p) || b.eval(p),
            GenFormula::Divisible(e, d, r) => (e.eval(p) - r).rem_euclid(*d) == 0,
            GenFormula::Const(b) => *b,
        }
    }
}

impl Arbitrary for GenFormula {
    fn arbitrary(g: &mut Gen) -> GenFormula {
        GenFormula::gen(g, 3)
    }
}

#[test]
fn random_formulas_mean_what_they_say() {
    fn prop(f: GenFormula) -> bool {
        let text = format!("[N] -> {{ [i, j] : {} }}", f.text());
        let m = match parse_map(&text) {
            Ok(m) => m,
            // Too large an expansion.
            Err(Error::Parse { message, .. }) if message.contains("too") => return true,
            Err(e) => panic!("{text}: {e}"),
        };
        let printed = m.to_string();
        let again =
            parse_map(&printed).unwrap_or_else(|e| panic!("{text} printed as {printed}: {e}"));
        assert_eq!(again.to_string(), printed, "printing {text} is not stable");
        for_each_point(3, 3, |p| {
            let v: Vec<i64> = p.iter().map(|x| x.to_i64().expect("small")).collect();
            let want = f.eval(&v);
            assert_eq!(map_contains(&m, p), want, "{text} at {v:?}");
            assert_eq!(
                map_contains(&again, p),
                want,
                "{text} printed as {printed} at {v:?}"
            );
        });
        true
    }
    crate::oracle::seeded_quickcheck(100)
        .tests(500)
        .quickcheck(prop as fn(GenFormula) -> bool);
}

/// A random union of conjunctions over `[N] -> { [i, j] -> [k, l] }`, rich in
/// equalities that fix a dimension (so in tuples printed with values).
#[derive(Clone, Debug)]
struct GenPieces(String);

impl Arbitrary for GenPieces {
    fn arbitrary(g: &mut Gen) -> GenPieces {
        const NAMES: [&str; 5] = ["N", "i", "j", "k", "l"];
        let small = |g: &mut Gen| i64::from(u8::arbitrary(g) % 5) - 2;
        // An affine expression over the first `n` names.
        let affine = |g: &mut Gen, n: usize| {
            let mut e = format!("{}", small(g));
            for name in NAMES.iter().take(n) {
                let c = small(g);
                if c != 0 {
                    e.push_str(&format!(" + {c}*{name}"));
                }
            }
            e
        };
        let atom = |g: &mut Gen| {
            let d = 1 + usize::arbitrary(g) % 4;
            match u8::arbitrary(g) % 6 {
                0 | 1 => format!("{} = {}", NAMES[d], affine(g, d)),
                2 => format!("{} = floor(({})/2)", NAMES[d], affine(g, d)),
                3 => format!("{} >= {}", affine(g, 5), small(g)),
                4 => format!("{} <= {}", NAMES[d], affine(g, d)),
                _ => format!("2*{} = {}", NAMES[d], affine(g, d)),
            }
        };
        let n = 1 + usize::arbitrary(g) % 3;
        let disjuncts: Vec<String> = (0..n)
            .map(|_| {
                let m = usize::arbitrary(g) % 4;
                let atoms: Vec<String> = (0..m).map(|_| atom(g)).collect();
                if atoms.is_empty() {
                    "true".to_string()
                } else {
                    atoms.join(" and ")
                }
            })
            .collect();
        let text = if bool::arbitrary(g) {
            format!(
                "[N] -> {{ [i, j] -> [k, l] : ({}) }}",
                disjuncts.join(") or (")
            )
        } else {
            let pieces: Vec<String> = disjuncts
                .iter()
                .map(|d| format!("[i, j] -> [k, l] : {d}"))
                .collect();
            format!("[N] -> {{ {} }}", pieces.join("; "))
        };
        GenPieces(text)
    }
}

#[test]
fn random_pieces_fold_and_read_back() {
    fn prop(p: GenPieces) -> bool {
        let m = parse_map(&p.0).unwrap_or_else(|e| panic!("{}: {e}", p.0));
        let printed = m.to_string();
        let again =
            parse_map(&printed).unwrap_or_else(|e| panic!("{} printed as {printed}: {e}", p.0));
        assert_same_points(&m, &again, &format!("{} printed as {printed}", p.0));
        assert_eq!(again.to_string(), printed, "printing {} is not stable", p.0);
        true
    }
    crate::oracle::seeded_quickcheck(100)
        .tests(500)
        .quickcheck(prop as fn(GenPieces) -> bool);
}

// ----- isl's other spellings: `[e]`, `(c ? a : b)`, defined parameters -----

#[test]
fn brackets_are_floors() {
    check_set("{ [i] : 0 <= [i/3] <= 1 }", |p| {
        (0..=1).contains(&p[0].div_euclid(3))
    });
    check_set("{ [i] : 2 * [i/3] = [i/2] }", |p| {
        2 * p[0].div_euclid(3) == p[0].div_euclid(2)
    });
    check_set("{ [i, j] : [(i + [j/2])/3] = [(j + [i/4])/5] }", |p| {
        (p[0] + p[1].div_euclid(2)).div_euclid(3) == (p[1] + p[0].div_euclid(4)).div_euclid(5)
    });
    assert_eq!(
        round_trip("{ [i] -> [[i/2]] }"),
        round_trip("{ [i] -> [floor(i/2)] }")
    );
}

#[test]
fn conditional_expressions() {
    check_set("[N] -> { [i] : 0 <= i <= (N > 2 ? N : 2) }", |p| {
        0 <= p[1] && p[1] <= p[0].max(2)
    });
    // At the start of a conjunct, and nested in the second branch.
    check_set("[N] -> { [i] : (N > 2 ? N : 2) >= i >= 0 }", |p| {
        0 <= p[1] && p[1] <= p[0].max(2)
    });
    check_set("{ [i, j] : j = (i > 2 ? 2 : i < -2 ? -2 : i) }", |p| {
        p[1] == p[0].clamp(-2, 2)
    });
    check_set(
        "{ [i, j] : (i > 0 and j > 0 ? i + j : (i - j) / 2) = 2 }",
        |p| {
            if p[0] > 0 && p[1] > 0 {
                p[0] + p[1] == 2
            } else {
                p[0] - p[1] == 4
            }
        },
    );
    check_set("{ [i] : ((i > 2) ? i : 0) = 0 }", |p| p[0] <= 2);
    check_set("{ [i] : min(i, (i > 0 ? 1 : 0)) = 1 }", |p| p[0] >= 1);
    check_set("{ [i, j] : j = 3 * (i >= 0 ? i : -i) - 1 }", |p| {
        p[1] == 3 * p[0].abs() - 1
    });
    // In a tuple: the map of |i|.
    let m = parse_map("{ [i] -> [(i >= 0 ? i : -i)] }").unwrap();
    for_each_point(2, 4, |p| {
        let v: Vec<i64> = p.iter().map(|x| x.to_i64().unwrap()).collect();
        assert_eq!(map_contains(&m, p), v[1] == v[0].abs(), "{v:?}");
    });
    round_trip("{ [i] -> [(i > 2 ? 2 : i)] }");
}

#[test]
fn parameters_defined_in_the_list() {
    check_set("[N, M = N + 1] -> { [i] : 0 <= i < M }", |p| {
        p[1] == p[0] + 1 && 0 <= p[2] && p[2] <= p[0]
    });
    check_set("[N, M = [N/2]] -> { [i] : i = M }", |p| {
        p[1] == p[0].div_euclid(2) && p[2] == p[1]
    });
    let a = parse_map("[N, M = 2N] -> { [i] : i < M }").unwrap();
    let b = parse_map("[N, M] -> { [i] : M = 2N and i < M }").unwrap();
    assert_same_points(&a, &b, "a defined parameter");
    round_trip("[N, M = N + 1] -> { [i] : 0 <= i < M; [i, j] : i = j = M }");
}

#[test]
fn errors_of_the_other_spellings() {
    check_unsupported("{ rat: [i] : 0 <= 2i <= 3 }", 1, 3);
    check_unsupported("rat: { [i] : 0 <= 2i <= 3 }", 1, 1);
    check_unsupported("[N] -> rat: { [i] : 0 <= 2i <= N }", 1, 8);
    check_unsupported("[N] -> { [i] : i = N; rat: [i] : 0 <= 2i <= N }", 1, 23);
    check_unsupported("\n  RAT : { [i] -> [j] }", 2, 3);
    check_error(
        "[N = M, M] -> { [i] }",
        1,
        6,
        "the definition of parameter 'N' uses 'M', which is not an earlier parameter",
    );
    check_error(
        "{ [i] : i = (i > 0 ? 1) }",
        1,
        23,
        "expected ':' between the branches of '?', found ')'",
    );
    check_error(
        "{ [i] : i = (i > 0 ? 1 : 0 }",
        1,
        28,
        "expected ')' after expression, found '}'",
    );
    check_error(
        "{ [i] -> [j] : j = [i/2 }",
        1,
        25,
        "expected ']' after the expression of '[...]' (floor), found '}'",
    );
    check_error(
        "{ [i] : i = (1 ? 1 : 0) }",
        1,
        16,
        "expected a comparison operator, found '?'",
    );
}

#[test]
fn prints_with_several_divisions_read_back_to_the_same_print() {
    for text in [
        "{ [i, j] : exists (a = floor(i/3), b = floor(j/5), c = floor((a + b)/7) : i = 3a and j = 5b and a + b = 7c) and 0 <= i, j <= 100 }",
        "{ [i] : [i/2] + [i/3] >= [i/5] + 3 and -20 <= i <= 20 }",
        "{ [i, j] : [(i + [j/2])/3] = [(j + [i/4])/5] and 0 <= i, j <= 30 }",
        "{ [i, j, k] : i mod 2 = 0 and j mod 3 = 1 and k mod 5 = 2 and [(i + j + k)/7] >= 1 }",
        "[N] -> { [i] -> [[i/2], [(i + N)/3], [[i/2]/2]] : 0 <= i < N }",
    ] {
        round_trip(text);
    }
}
