//! Quasi-polynomial counts (`Set::card_parametric` of sets with strides, divisions,
//! existentials and non-unit coefficients): a table of known closed forms, brute-force
//! counts at many random parameter values for strided loops, tiles and triangles with
//! non-unit slopes, random sets with strides and non-unit coefficients, sums,
//! print → parse → print round trips, and the reader's errors.

use pollen_presburger::{
    Error, Extended, Int, Polynomial, PwQPolynomial, QuasiPolynomial, Rat, Set,
};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

fn set(text: &str) -> Set {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn ints(values: &[i64]) -> Vec<Int> {
    values.iter().map(|&v| Int::from(v)).collect()
}

/// The points of `s` at parameter values `params` inside the box `[lo, hi]^d`.
fn brute_force(s: &Set, params: &[i64], lo: i64, hi: i64) -> i64 {
    pollen_presburger::oracle::count_in_box(s, params, lo, hi)
}

/// A small deterministic generator of parameter values (xorshift).
struct Values(u64);

impl Values {
    fn next_in(&mut self, lo: i64, hi: i64) -> i64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        lo + (self.0 % (hi - lo + 1) as u64) as i64
    }
}

fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// Known closed forms: the set, its printed count, and the count as a function of the
/// parameters, checked at every parameter point of a range.
#[test]
fn known_closed_forms() {
    type Form = fn(&[i64]) -> i64;
    let table: [(&str, &str, Form); 10] = [
        (
            "[N] -> { [i] : 0 <= 2i <= N }",
            "[N] -> { (1 + floor((N)/2)) : N >= 0 }",
            |p| if p[0] >= 0 { 1 + floor_div(p[0], 2) } else { 0 },
        ),
        (
            "[N] -> { [i] : 0 <= i < N and i mod 2 = 0 }",
            "[N] -> { floor((1 + N)/2) : N >= 1 }",
            |p| if p[0] >= 1 { floor_div(p[0] + 1, 2) } else { 0 },
        ),
        (
            "[N] -> { [i] : exists (e : i = 3e) and 0 <= i < N }",
            "[N] -> { floor((2 + N)/3) : N >= 1 }",
            |p| if p[0] >= 1 { floor_div(p[0] + 2, 3) } else { 0 },
        ),
        (
            "[N] -> { [i] : 0 <= i < N and i mod 3 = 0 }",
            "[N] -> { floor((2 + N)/3) : N >= 1 }",
            |p| if p[0] >= 1 { floor_div(p[0] + 2, 3) } else { 0 },
        ),
        (
            "[N] -> { [i] : 1 <= 4i <= N }",
            "[N] -> { floor((N)/4) : N >= 4 }",
            |p| if p[0] >= 4 { floor_div(p[0], 4) } else { 0 },
        ),
        (
            "[N] -> { [i] : 2i = N and i >= 0 }",
            "[N] -> { 1 : N >= 0 and (N) mod 2 = 0 }",
            |p| i64::from(p[0] >= 0 && p[0] % 2 == 0),
        ),
        (
            // A strided loop `for (i = 3; i <= N; i += 5)`.
            "[N] -> { [i] : 3 <= i <= N and (i - 3) mod 5 = 0 }",
            "[N] -> { floor((2 + N)/5) : N >= 3 }",
            |p| {
                if p[0] >= 3 {
                    floor_div(p[0] - 3, 5) + 1
                } else {
                    0
                }
            },
        ),
        (
            // A tiled loop: one tile per point.
            "[N] -> { [t, i] : 32t <= i <= 32t + 31 and 0 <= i < N }",
            "[N] -> { N : N >= 1 }",
            |p| p[0].max(0),
        ),
        (
            // The tiles themselves.
            "[N] -> { [t] : exists (i : 32t <= i <= 32t + 31 and 0 <= i < N) }",
            "[N] -> { floor((31 + N)/32) : N >= 1 }",
            |p| {
                if p[0] >= 1 {
                    floor_div(p[0] + 31, 32)
                } else {
                    0
                }
            },
        ),
        ("[N, M] -> { [i] : 0 <= 3i <= N and 2i <= M }", "", |p| {
            if p[0] >= 0 && p[1] >= 0 {
                1 + floor_div(p[0], 3).min(floor_div(p[1], 2))
            } else {
                0
            }
        }),
    ];
    for (text, printed, form) in table {
        let c = set(text).card_parametric().unwrap();
        if !printed.is_empty() {
            assert_eq!(c.to_string(), printed, "{text}");
        }
        let two = c.params().len() == 2;
        for n in -12..40 {
            for m in if two { -5..20 } else { 0..1 } {
                let p: Vec<i64> = if two { vec![n, m] } else { vec![n] };
                assert_eq!(
                    c.eval(&ints(&p))
                        .unwrap()
                        .finite()
                        .unwrap()
                        .to_i64()
                        .unwrap(),
                    form(&p),
                    "{text} at {p:?}: {c}"
                );
            }
        }
    }
}

/// The common shapes against brute force at random parameter values inside a box.
#[test]
fn common_shapes_count_as_brute_force_does() {
    let cases: [(&str, i64, i64, i64, i64); 9] = [
        // (set, parameter range, enumeration box)
        ("[N] -> { [i] : 0 <= 2i <= N }", -10, 80, -5, 45),
        (
            "[N] -> { [i] : 0 <= i < N and i mod 2 = 0 }",
            -10,
            80,
            -5,
            85,
        ),
        (
            "[N] -> { [i] : 5 <= i <= N and (i + 1) mod 4 = 0 }",
            -10,
            80,
            -5,
            85,
        ),
        (
            "[N] -> { [t, i] : 32t <= i <= 32t + 31 and 0 <= i < N }",
            -5,
            100,
            -2,
            100,
        ),
        (
            "[N] -> { [t, i] : 8t <= i <= 8t + 7 and 0 <= i < N and i <= 20 }",
            -5,
            40,
            -4,
            42,
        ),
        (
            "[N] -> { [i, j] : 0 <= i < N and 0 <= 2j <= i }",
            -5,
            30,
            -2,
            32,
        ),
        (
            "[N] -> { [i, j] : 0 <= i < N and 0 <= 3j <= 2i }",
            -5,
            30,
            -2,
            32,
        ),
        (
            "[N] -> { [i, j] : 0 <= i < N and i <= 2j <= 3i + 1 and j < N }",
            -5,
            25,
            -2,
            40,
        ),
        (
            "[N] -> { [i, j] : 0 <= i <= N and exists (e : j = 2e and i <= j <= 2i) }",
            -5,
            25,
            -2,
            52,
        ),
    ];
    let mut values = Values(0x9e37_79b9_7f4a_7c15);
    for (text, p_lo, p_hi, lo, hi) in cases {
        let s = set(text);
        let c = s
            .card_parametric()
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        for _ in 0..12 {
            let n = values.next_in(p_lo, p_hi);
            assert_eq!(
                c.eval(&ints(&[n]))
                    .unwrap()
                    .finite()
                    .unwrap()
                    .to_i64()
                    .unwrap(),
                brute_force(&s, &[n], lo, hi),
                "{text} at N = {n}: {c}"
            );
        }
    }
    // Two parameters: a strided rectangle and a tiled band.
    for text in [
        "[N, M] -> { [i, j] : 0 <= 2i < N and 0 <= 3j <= M + i }",
        "[N, M] -> { [t, i] : 4t <= i <= 4t + 3 and M <= i < N }",
    ] {
        let s = set(text);
        let c = s
            .card_parametric()
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        for _ in 0..25 {
            let n = values.next_in(-4, 20);
            let m = values.next_in(-6, 14);
            assert_eq!(
                c.eval(&ints(&[n, m]))
                    .unwrap()
                    .finite()
                    .unwrap()
                    .to_i64()
                    .unwrap(),
                brute_force(&s, &[n, m], -8, 21),
                "{text} at N = {n}, M = {m}: {c}"
            );
        }
    }
}

#[test]
fn large_non_parametric_counts_are_not_enumerated() {
    for (text, expect) in [
        (
            "{ [i] : 0 <= 2i <= 1000000000000000000 }",
            "{ 500000000000000001 }",
        ),
        (
            "{ [i, j] : 0 <= i < 1000000000 and 0 <= 3j <= i and j mod 7 = 0 }",
            "",
        ),
        (
            "{ [t, i] : 1024t <= i <= 1024t + 1023 and 0 <= i < 1000000000000000000 }",
            "{ 1000000000000000000 }",
        ),
    ] {
        let start = std::time::Instant::now();
        let c = set(text).card_parametric().unwrap();
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "{text}: {:?}",
            start.elapsed()
        );
        if !expect.is_empty() {
            assert_eq!(c.to_string(), expect, "{text}");
        }
        assert!(c.pieces().len() <= 1, "{text}: {c}");
    }
    // j = 7k with 0 <= 21k <= i < 10^9: Σ_i (floor(i / 21) + 1).
    let c = set("{ [i, j] : 0 <= i < 1000000000 and 0 <= 3j <= i and j mod 7 = 0 }")
        .card_parametric()
        .unwrap();
    let n: i128 = 1_000_000_000;
    let q = n / 21;
    let r = n % 21;
    // Σ_{i < n} floor(i / 21) = 21·q(q-1)/2 + r·q.
    let expect = 21 * q * (q - 1) / 2 + r * q + n;
    assert_eq!(c.eval(&[]).unwrap().to_string(), expect.to_string());
}

/// A random bounded set in `[N] -> { [x0, x1] }` with non-unit coefficients and
/// strides: constraints `a·x0 + b·x1 + c·N + d >= 0` with small `a`, `b`, inside the
/// box `[-6, 6]`, and sometimes a stride `x mod m = r` or an existential multiple.
#[derive(Clone, Debug)]
struct RandomSet(String);

impl Arbitrary for RandomSet {
    fn arbitrary(g: &mut Gen) -> RandomSet {
        let small = |g: &mut Gen| i64::from(u8::arbitrary(g) % 9) - 4;
        let coefficient = |g: &mut Gen| i64::from(u8::arbitrary(g) % 7) - 3;
        let mut constraints = vec!["-6 <= x0 <= 6".to_string(), "-6 <= x1 <= 6".to_string()];
        for _ in 0..1 + usize::arbitrary(g) % 3 {
            constraints.push(format!(
                "{}*x0 + {}*x1 + {}*N + {} >= 0",
                coefficient(g),
                coefficient(g),
                i64::from(u8::arbitrary(g) % 3) - 1,
                small(g)
            ));
        }
        match u8::arbitrary(g) % 4 {
            0 => constraints.push(format!(
                "x{} mod {} = {}",
                usize::arbitrary(g) % 2,
                2 + u8::arbitrary(g) % 3,
                u8::arbitrary(g) % 2
            )),
            1 => constraints.push(format!(
                "exists (e : x{} = {}e + N)",
                usize::arbitrary(g) % 2,
                2 + u8::arbitrary(g) % 2
            )),
            _ => {}
        }
        RandomSet(format!(
            "[N] -> {{ [x0, x1] : {} }}",
            constraints.join(" and ")
        ))
    }
}

static COUNTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static REFUSED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[test]
fn random_strided_sets_count_as_brute_force_does() {
    fn prop(s: RandomSet) -> TestResult {
        let parsed = set(&s.0);
        let c = match parsed.card_parametric() {
            Ok(c) => c,
            Err(Error::Unsupported(_)) => {
                REFUSED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                return TestResult::discard();
            }
            Err(e) => panic!("{}: {e}", s.0),
        };
        COUNTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        for n in -5..8 {
            assert_eq!(
                c.eval(&ints(&[n]))
                    .unwrap()
                    .finite()
                    .unwrap()
                    .to_i64()
                    .unwrap(),
                brute_force(&parsed, &[n], -7, 7),
                "{} at N = {n}: {c}",
                s.0
            );
        }
        // The printed count reads back to the same function.
        let printed = c.to_string();
        let again: PwQPolynomial = printed
            .parse()
            .unwrap_or_else(|e| panic!("{}: {printed}: {e}", s.0));
        for n in -5..8 {
            assert_eq!(
                again.eval(&ints(&[n])).unwrap(),
                c.eval(&ints(&[n])).unwrap(),
                "{printed} at N = {n}"
            );
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(120)
        .max_tests(200)
        .quickcheck(prop as fn(RandomSet) -> TestResult);
    let counted = COUNTED.load(std::sync::atomic::Ordering::SeqCst);
    let refused = REFUSED.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        counted >= 110 && refused * 10 <= counted,
        "{counted} random sets counted, {refused} refused"
    );
}

#[test]
fn sums_over_strided_sets() {
    // Variables: N, then i, j.
    let (n, i, j) = (
        Polynomial::var(3, 0),
        Polynomial::var(3, 1),
        Polynomial::var(3, 2),
    );
    let f = n.mul(&i).add(&j.mul(&j).scale(&Rat::from(3))).sub(&i);
    for text in [
        "[N] -> { [i, j] : 0 <= 2i <= N and 0 <= j <= i }",
        "[N] -> { [i, j] : 0 <= i < N and 0 <= 3j <= i and j mod 2 = 0 }",
        "[N] -> { [i, j] : 4i <= j <= 4i + 3 and 0 <= j < N }",
    ] {
        let s = set(text);
        let total = s.sum_parametric(&f).unwrap();
        for v in -2..20 {
            let mut expect = Rat::zero();
            for a in -2..=20 {
                for b in -2..=20 {
                    let point = ints(&[v, a, b]);
                    if s.contains_point(&point).unwrap() {
                        expect += f.eval(&point);
                    }
                }
            }
            assert_eq!(
                total.value(&ints(&[v])).unwrap(),
                Extended::Finite(expect),
                "{text} at N = {v}: {total}"
            );
        }
    }
}

#[test]
fn printed_quasi_polynomials_read_back() {
    for text in [
        "[N] -> { [i] : 0 <= 2i <= N }",
        "[N] -> { [i] : 0 <= i < N and i mod 3 = 0 }",
        "[N] -> { [t, i] : 32t <= i <= 32t + 31 and 0 <= i < N }",
        "[N] -> { [i, j] : 0 <= i < N and 0 <= 3j <= 2i }",
        "[N, M] -> { [i] : 0 <= 3i <= N and 2i <= M }",
        "[N] -> { [i] : 2i = N and i >= 0 }",
        "[N] -> { [i] : 0 <= i < N and (i mod 3 = 0 or i mod 2 = 0) }",
    ] {
        let c = set(text).card_parametric().unwrap();
        let printed = c.to_string();
        let again: PwQPolynomial = printed.parse().unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert_eq!(again.to_string(), printed, "{text}");
        let n = c.params().len();
        for v in -4..40 {
            for w in -3..9 {
                let p = ints(&[v, w][..n]);
                assert_eq!(
                    c.eval(&p).unwrap(),
                    again.eval(&p).unwrap(),
                    "{printed} at {p:?}"
                );
            }
        }
    }
    // barvinok's spellings: the same function, normalised.
    let c: PwQPolynomial = "[N] -> { (1 + floor((N)/2)) : N >= 0 }".parse().unwrap();
    let d: PwQPolynomial = "[N] -> { (floor((N + 2)/2)) : N >= 0 }".parse().unwrap();
    assert_eq!(c.to_string(), d.to_string());
    let e: PwQPolynomial = "[N] -> { floor((3N + 5)/2) - N - 2 }".parse().unwrap();
    assert_eq!(e.to_string(), "[N] -> { floor((1 + N)/2) }");
    // Nested floors, products and powers.
    let text = "[N, M] -> { (N * floor((M + floor(N/3))/2)^2 - 1/2) : M >= 0 }";
    let q: PwQPolynomial = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    for n in -7..7 {
        for m in -3..7 {
            let inner = floor_div(m + floor_div(n, 3), 2);
            let expect = if m >= 0 {
                Rat::from(n * inner * inner) - Rat::new(Int::from(1), Int::from(2))
            } else {
                Rat::zero()
            };
            assert_eq!(
                q.value(&ints(&[n, m])).unwrap(),
                Extended::Finite(expect),
                "{q} at {n}, {m}"
            );
        }
    }
    let again: PwQPolynomial = q.to_string().parse().unwrap();
    assert_eq!(again.to_string(), q.to_string());
}

#[test]
fn quasi_polynomial_arithmetic() {
    let parse = |t: &str| -> QuasiPolynomial {
        let c: PwQPolynomial = t.parse().unwrap_or_else(|e| panic!("{t}: {e}"));
        c.pieces()[0].1.clone()
    };
    let a = parse("[N] -> { floor(N/2) + N }");
    let b = parse("[N] -> { floor((N + 1)/2) - 3 }");
    let sum = a.add(&b);
    let product = a.mul(&b);
    for n in -9..9 {
        let (x, y) = (floor_div(n, 2) + n, floor_div(n + 1, 2) - 3);
        let p = ints(&[n]);
        assert_eq!(sum.eval(&p), Rat::from(x + y));
        assert_eq!(product.eval(&p), Rat::from(x * y));
    }
    // floor(N/2) + floor((N + 1)/2) = N is not recognised, but the floors are shared.
    assert_eq!(a.add(&a).floors().len(), 1);
    assert!(a.sub(&a).is_zero());
    assert_eq!(
        parse("[N] -> { floor((2N + 2)/4) }").to_string(),
        parse("[N] -> { floor((N + 1)/2) }").to_string()
    );
}

#[test]
fn reading_quasi_polynomials_reports_positions() {
    for (bad, column, message) in [
        (
            "[N] -> { floor(N * N) }",
            16,
            "a floor of a non-affine expression",
        ),
        ("[N] -> { floor(N / 2 }", 22, "expected ')'"),
        ("[N] -> { floor(K) }", 16, "unknown parameter 'K'"),
        ("[N] -> { floor }", 10, "unknown parameter 'floor'"),
        ("[N] -> { N / floor(N) }", 14, "division by a non-constant"),
    ] {
        match bad.parse::<PwQPolynomial>() {
            Err(Error::Parse {
                column: c,
                message: m,
                ..
            }) => {
                assert!(m.contains(message), "{bad}: {m}");
                assert_eq!(c, column, "{bad}: {m}");
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    // A polynomial has no floors.
    match "[N] -> { floor(N/2) }".parse::<pollen_presburger::PwPolynomial>() {
        Err(Error::Parse {
            column, message, ..
        }) => {
            assert_eq!(column, 10);
            assert!(message.contains("floor"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn reading_quasi_polynomials_never_panics() {
    const PARTS: [&str; 20] = [
        "[N]", "->", "{", "}", "(", ")", "N", "floor", "1/2", "*", "+", "-", "^", "2", ":", ";",
        " ", "/", "\u{a0}é", "3",
    ];
    fn prop(picks: Vec<u8>) -> bool {
        let text: String = picks
            .iter()
            .map(|&k| PARTS[k as usize % PARTS.len()])
            .collect();
        let _ = text.parse::<PwQPolynomial>();
        true
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Vec<u8>) -> bool);
}

#[test]
fn budgets_bound_counting() {
    use pollen_presburger::Budget;
    let s = set("[N] -> { [i, j] : 0 <= i < N and 0 <= 3j <= 2i }");
    let mut budget = Budget::new(3);
    match s.card_parametric_with(&mut budget) {
        Err(Error::LimitExceeded) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn range_counts_of_maps_per_domain_point() {
    use pollen_presburger::Map;
    for text in [
        "[N] -> { S[i] -> T[j] : 0 <= i < N and i <= 2j <= N }",
        "[N] -> { [i] -> [j, k] : 0 <= i < N and 0 <= 3j <= i and 0 <= k <= j }",
        "[N] -> { [t] -> [i] : 32t <= i <= 32t + 31 and 0 <= i < N }",
    ] {
        let m: Map = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        let c = m
            .card_range_parametric()
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(c.params(), ["N"], "{text}: {c}");
        assert_eq!(c.space().n_dims(), 2, "{text}: {c}");
        let wrapped = m.wrap();
        for n in -3..30 {
            for i in -3..30 {
                // The range points of (N, i), enumerated.
                let mut expect = 0;
                let n_out = m.space().n_out();
                let range: Vec<Vec<i64>> = if n_out == 1 {
                    (-3..35).map(|j| vec![j]).collect()
                } else {
                    (-1..12)
                        .flat_map(|j| (-1..12).map(move |k| vec![j, k]))
                        .collect()
                };
                for r in range {
                    let point: Vec<Int> = [n, i].iter().chain(&r).map(|&v| Int::from(v)).collect();
                    if wrapped.contains_point(&point).unwrap() {
                        expect += 1;
                    }
                }
                assert_eq!(
                    c.eval(&ints(&[n, i]))
                        .unwrap()
                        .finite()
                        .unwrap()
                        .to_i64()
                        .unwrap(),
                    expect,
                    "{text} at N = {n}, i = {i}: {c}"
                );
            }
        }
    }
    // Domain dimension names are kept where free, replaced where they are taken.
    let m: Map = "[i] -> { [i0] -> [j] : 0 <= j < i0 + i }".parse().unwrap();
    let c = m.card_range_parametric().unwrap();
    assert_eq!(c.params(), ["i"]);
    assert_eq!(c.variable_names(), ["i", "i0"]);
    assert_eq!(c.to_string(), "[i] -> { [i0] -> (i + i0) : i0 > -i }");
    // An anonymous dimension whose generated name is a parameter's.
    let m: Map = "[i0] -> { [2i0] -> [j] : 0 <= j < i0 }".parse().unwrap();
    let c = m.card_range_parametric().unwrap();
    assert_eq!(c.variable_names(), ["i0", "i0_0"]);
    assert_eq!(
        c.to_string().parse::<PwQPolynomial>().unwrap().to_string(),
        c.to_string()
    );
}

#[test]
fn wrapped_domains_stay_wrapped() {
    let m: pollen_presburger::Map =
        "[N] -> { [[i] -> [j]] -> [k] : 0 <= i < j < N and 0 <= k < i }"
            .parse()
            .unwrap();
    let c = m.card_range_parametric().unwrap();
    let text = c.to_string();
    assert!(text.starts_with("[N] -> { [[i] -> [j]] -> i"), "{text}");
    let back: PwQPolynomial = text.parse().unwrap();
    assert_eq!(back.to_string(), text);
    assert_eq!(back.space(), c.space(), "{text}");
    for n in 0..8 {
        for i in -1..8 {
            for j in -1..8 {
                let expect = if 0 <= i && i < j && j < n { i } else { 0 };
                let at = ints(&[n, i, j]);
                assert_eq!(c.value(&at).unwrap().finite(), Some(Rat::from(expect)));
                assert_eq!(back.value(&at).unwrap().finite(), Some(Rat::from(expect)));
            }
        }
    }
    // Names and nesting are read alike, and a name is used once across both halves.
    let named = "[N] -> { S[A[i] -> B[j, k]] -> (i + j) : 0 <= i < N }";
    let q: PwQPolynomial = named.parse().unwrap();
    assert_eq!(q.to_string(), named);
    let e = "[N] -> { [[i] -> [i]] -> i }"
        .parse::<PwQPolynomial>()
        .unwrap_err();
    assert!(e.to_string().contains("duplicate dimension 'i'"), "{e}");
}

#[test]
fn union_functions_hold_one_member_per_domain_space() {
    use pollen_presburger::{Budget, Map, UnionPwQPolynomial};
    let maps = [
        "[N] -> { A[i] -> B[j] : 0 <= j < i < N }",
        "[N] -> { C[i] -> D[j] : 0 <= i, j < N }",
        // The domain tuple of the first, with another dimension name.
        "[N] -> { A[k] -> D[j] : 0 <= j < 2 and 0 <= k < N }",
    ];
    let mut u = UnionPwQPolynomial::empty(vec!["N".into()]);
    let mut budget = Budget::unlimited();
    for text in maps {
        let m: Map = text.parse().unwrap();
        let c = m.card_range_parametric().unwrap();
        u = u.add_with(&c, &mut budget).unwrap();
    }
    assert_eq!(u.members().len(), 2, "{u}");
    let text = u.to_string();
    let back: UnionPwQPolynomial = text.parse().unwrap();
    assert_eq!(back.to_string(), text);
    for f in [&u, &back] {
        let a = f
            .members()
            .iter()
            .find(|m| m.space().to_string().contains("A"))
            .unwrap();
        let c = f
            .members()
            .iter()
            .find(|m| m.space().to_string().contains("C"))
            .unwrap();
        for n in 0..7 {
            for i in -2..9 {
                let in_a = (0..n).contains(&i);
                let expect_a = if in_a { i + 2 } else { 0 };
                let expect_c = if in_a { n } else { 0 };
                let at = ints(&[n, i]);
                assert_eq!(
                    a.value(&at).unwrap().finite(),
                    Some(Rat::from(expect_a)),
                    "{f}"
                );
                assert_eq!(
                    c.value(&at).unwrap().finite(),
                    Some(Rat::from(expect_c)),
                    "{f}"
                );
            }
        }
    }
    // Other parameters are refused; a single member reads and prints as alone.
    let other: PwQPolynomial = "[M] -> { [i] -> M }".parse().unwrap();
    assert!(u.add_with(&other, &mut budget).is_err());
    let one: UnionPwQPolynomial = "[N] -> { [i] -> N : 0 <= i < N }".parse().unwrap();
    assert_eq!(one.members().len(), 1);
    assert_eq!(one.to_string(), "[N] -> { [i] -> N : 0 <= i < N }");
    // Errors point into the whole text, also in a later member.
    let e = "[N] -> { A[i] -> i; C[i] -> i +* 2 }"
        .parse::<UnionPwQPolynomial>()
        .unwrap_err();
    match e {
        Error::Parse { line, column, .. } => assert_eq!((line, column), (1, 32), "{e}"),
        other => panic!("{other}"),
    }
}

#[test]
fn reading_is_bounded() {
    let deep = format!(
        "[N] -> {{ {}N{} }}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let e = deep.parse::<PwQPolynomial>().unwrap_err();
    assert!(e.to_string().contains("nesting deeper"), "{e}");
    let signs = format!("[N] -> {{ {}N }}", "-".repeat(100_000));
    let e = signs.parse::<PwQPolynomial>().unwrap_err();
    assert!(e.to_string().contains("nesting deeper"), "{e}");
    let floors = format!(
        "[N] -> {{ {}N{} }}",
        "floor(".repeat(100_000),
        ")".repeat(100_000)
    );
    let e = floors.parse::<PwQPolynomial>().unwrap_err();
    assert!(e.to_string().contains("nesting deeper"), "{e}");
    let start = std::time::Instant::now();
    let wide = "[N, M, K] -> { (N + M + K + floor(N/2) + floor(M/3) + floor(K/5) + 1)^64 }";
    let e = wide.parse::<PwQPolynomial>().unwrap_err();
    assert!(e.to_string().contains("more than"), "{e}");
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    // Nested floors within the limit read as usual.
    let ok: PwQPolynomial = "[N] -> { floor((floor((N)/2))/3) }".parse().unwrap();
    assert_eq!(
        ok.eval(&ints(&[13])).unwrap(),
        Extended::Finite(Int::from(2))
    );
}
