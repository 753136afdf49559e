//! Parametric counting (`Set::card_parametric`) of sets with unit coefficients (the
//! counts are polynomials): closed forms of loop-nest domains, iscc's printed form,
//! unions, chambers of `min`/`max` bounds, the refusals, and random sets against
//! brute-force counts at many parameter values. Quasi-polynomial counts are tested in
//! `quasi.rs`.

use pollen_presburger::{Error, Extended, Int, Set};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

fn set(text: &str) -> Set {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The points of `s` at parameter values `params` inside the box `[-r, r]^d`.
fn brute_force(s: &Set, params: &[i64], r: i64) -> i64 {
    pollen_presburger::oracle::count_in_box(s, params, -r, r)
}

fn count_at(text: &str, params: &[i64]) -> i64 {
    let c = set(text).card_parametric().unwrap();
    let p: Vec<Int> = params.iter().map(|&v| Int::from(v)).collect();
    c.eval(&p).unwrap().finite().unwrap().to_i64().unwrap()
}

#[test]
fn the_triangle_prints_as_iscc_does() {
    let c = set("[N] -> { [i, j] : 0 <= j <= i < N }")
        .card_parametric()
        .unwrap();
    assert_eq!(
        c.to_string(),
        "[N] -> { ((1/2) * N + (1/2) * N^2) : N >= 1 }"
    );
    for n in -3..20 {
        let expect = if n >= 1 { n * (n + 1) / 2 } else { 0 };
        assert_eq!(
            c.eval(&[Int::from(n)]).unwrap(),
            Extended::Finite(Int::from(expect)),
            "N = {n}"
        );
    }
}

#[test]
fn closed_forms_of_loop_nests() {
    // A tetrahedron: N(N+1)(N+2)/6.
    for n in 0..9 {
        assert_eq!(
            count_at("[N] -> { [i, j, k] : 0 <= k <= j <= i < N }", &[n]),
            n * (n + 1) * (n + 2) / 6
        );
    }
    // gemm's statement domain: NI·NJ·NK where all are positive.
    let gemm = "[NI, NJ, NK] -> { S[i, j, k] : 0 <= i < NI and 0 <= j < NJ and 0 <= k < NK }";
    for (a, b, c) in [(3, 4, 5), (1, 1, 1), (0, 4, 5), (7, -1, 2), (10, 20, 30)] {
        let expect = if a > 0 && b > 0 && c > 0 {
            a * b * c
        } else {
            0
        };
        assert_eq!(count_at(gemm, &[a, b, c]), expect);
    }
    // A band (trisolv-like lower triangle with an offset) and a strip.
    for n in -2..12 {
        assert_eq!(
            count_at("[N] -> { [i, j] : 0 <= i < N and i - 2 <= j <= i }", &[n]),
            brute_force(
                &set("[N] -> { [i, j] : 0 <= i < N and i - 2 <= j <= i }"),
                &[n],
                14
            ),
            "N = {n}"
        );
    }
    // A set without parameters: one constant, never enumerated.
    let big = set("{ [i, j] : 0 <= i < 1000000000 and 0 <= j < 1000000000 }")
        .card_parametric()
        .unwrap();
    assert_eq!(big.to_string(), "{ 1000000000000000000 }");
    assert_eq!(
        set("{ [i] : 0 <= i < 0 }")
            .card_parametric()
            .unwrap()
            .to_string(),
        "{ 0 }"
    );
}

#[test]
fn min_and_max_bounds_split_into_chambers() {
    let text = "[N, M] -> { [i] : 0 <= i < N and i < M and i >= M - 5 }";
    let s = set(text);
    let c = s.card_parametric().unwrap();
    for n in -2..9 {
        for m in -2..12 {
            let p = [Int::from(n), Int::from(m)];
            assert_eq!(
                c.eval(&p).unwrap().finite().unwrap().to_i64().unwrap(),
                brute_force(&s, &[n, m], 15),
                "N = {n}, M = {m}: {c}"
            );
        }
    }
    // The chambers are disjoint: one piece holds each parameter point at most.
    for n in -2..9 {
        for m in -2..12 {
            let p = [Int::from(n), Int::from(m)];
            let holding = c
                .pieces()
                .iter()
                .filter(|(d, _)| d.contains_point(&p).unwrap())
                .count();
            assert!(holding <= 1, "N = {n}, M = {m}: {c}");
        }
    }
}

#[test]
fn unions_are_counted_once_per_point() {
    let text = "[N] -> { [i] : 0 <= i < N; [i] : 5 <= i < 2N; [i, j] : 0 <= i, j < N }";
    // Two spaces: count the one-dimensional part.
    let one = "[N] -> { [i] : 0 <= i < N; [i] : 5 <= i < 2N }";
    let s = set(one);
    let c = s.card_parametric().unwrap();
    for n in -2..10 {
        assert_eq!(
            c.eval(&[Int::from(n)])
                .unwrap()
                .finite()
                .unwrap()
                .to_i64()
                .unwrap(),
            brute_force(&s, &[n], 25),
            "N = {n}: {c}"
        );
    }
    assert!(
        text.parse::<Set>().is_err(),
        "a union of spaces is not a set"
    );
}

#[test]
fn what_remains_out_of_reach_is_refused() {
    for (text, why) in [
        // Coprime coefficients above the residue-class limit on both dimensions.
        (
            "[N] -> { [i, j] : 0 <= 9967i and 9967i <= 9973j <= N }",
            "residue classes",
        ),
    ] {
        match set(text).card_parametric() {
            Err(Error::Unsupported(m)) => assert!(m.contains(why), "{text}: {m}"),
            other => panic!("{text}: {other:?}"),
        }
    }
}

/// A random bounded set in `[N] -> { [x0, x1] }` with unit coefficients on the
/// dimensions: each dimension between bounds affine in `N` and the outer dimension,
/// inside the box `[-6, 6]`.
#[derive(Clone, Debug)]
struct RandomSet(String);

impl Arbitrary for RandomSet {
    fn arbitrary(g: &mut Gen) -> RandomSet {
        let small = |g: &mut Gen| i64::from(u8::arbitrary(g) % 7) - 3;
        let unit = |g: &mut Gen| i64::from(u8::arbitrary(g) % 3) - 1;
        let mut constraints = vec!["-6 <= x0 <= 6".to_string(), "-6 <= x1 <= 6".to_string()];
        for _ in 0..1 + usize::arbitrary(g) % 4 {
            let k = usize::arbitrary(g) % 2;
            let sign = if bool::arbitrary(g) { "" } else { "-" };
            let outer = if k == 1 {
                format!(" + {}*x0", unit(g))
            } else {
                String::new()
            };
            constraints.push(format!(
                "{sign}x{k} + {}*N{outer} + {} >= 0",
                unit(g),
                small(g)
            ));
        }
        let disjunct = constraints.join(" and ");
        let text = if bool::arbitrary(g) {
            format!("[N] -> {{ [x0, x1] : {disjunct} }}")
        } else {
            format!(
                "[N] -> {{ [x0, x1] : {disjunct}; [x0, x1] : 0 <= x0 <= N and x0 <= x1 <= {} }}",
                small(g) + 3
            )
        };
        RandomSet(text)
    }
}

static COUNTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[test]
fn random_sets_count_as_brute_force_does() {
    fn prop(s: RandomSet) -> TestResult {
        let parsed = set(&s.0);
        let c = match parsed.card_parametric() {
            Ok(c) => c,
            Err(e) => panic!("{}: {e}", s.0),
        };
        COUNTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        for n in -4..8 {
            let got = c
                .eval(&[Int::from(n)])
                .unwrap()
                .finite()
                .unwrap()
                .to_i64()
                .unwrap();
            assert_eq!(
                got,
                brute_force(&parsed, &[n], 7),
                "{} at N = {n}: {c}",
                s.0
            );
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(150)
        .quickcheck(prop as fn(RandomSet) -> TestResult);
    let counted = COUNTED.load(std::sync::atomic::Ordering::SeqCst);
    assert!(counted >= 100, "only {counted} random sets were counted");
}

#[test]
fn sums_of_polynomials_over_sets() {
    use pollen_presburger::{Polynomial, Rat};
    // Variables: N, then i, j.
    let (n, i, j) = (
        Polynomial::var(3, 0),
        Polynomial::var(3, 1),
        Polynomial::var(3, 2),
    );
    let f = n
        .mul(&i)
        .add(&j.mul(&j).scale(&Rat::from(3)))
        .sub(&Polynomial::constant(
            3,
            Rat::new(Int::from(1), Int::from(2)),
        ));
    for text in [
        "[N] -> { [i, j] : 0 <= j <= i < N }",
        "[N] -> { [i, j] : 0 <= i < N and -2 <= j <= 3 and j <= i }",
        "[N] -> { [i, j] : 0 <= i < N and i <= j < 2N; [i, j] : -3 <= i < 0 and 0 <= j <= N }",
    ] {
        let s = set(text);
        let total = s.sum_parametric(&f).unwrap();
        for v in -2..7 {
            let mut expect = Rat::zero();
            for a in -8..=16 {
                for b in -8..=16 {
                    let point = [Int::from(v), Int::from(a), Int::from(b)];
                    if s.contains_point(&point).unwrap() {
                        expect += f.eval(&point);
                    }
                }
            }
            assert_eq!(
                total.value(&[Int::from(v)]).unwrap(),
                Extended::Finite(expect),
                "{text} at N = {v}"
            );
        }
    }
    // The wrong number of variables is an error.
    assert!(set("[N] -> { [i] : 0 <= i < N }")
        .sum_parametric(&f)
        .is_err());
}

#[test]
fn printed_counts_read_back() {
    use pollen_presburger::PwPolynomial;
    for text in [
        "[N] -> { [i, j] : 0 <= j <= i < N }",
        "[N, M] -> { [i] : 0 <= i < N and i < M and i >= M - 5 }",
        "[N] -> { [i, j, k] : 0 <= k <= j <= i < N }",
        "[N] -> { [i] : 0 <= i < N; [i] : 5 <= i < 2N }",
        "{ [i, j] : 0 <= i < 1000 and 0 <= j < 1000 }",
        "[N] -> { [i] : 0 <= i < N and N = 5 }",
    ] {
        let c = set(text).card_parametric().unwrap();
        let printed = c.to_string();
        let again: PwPolynomial = printed.parse().unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert_eq!(again.to_string(), printed, "{text}");
        let n = c.params().len();
        for v in -3..9 {
            for w in -3..9 {
                let p: Vec<Int> = [v, w][..n].iter().map(|&x| Int::from(x)).collect();
                assert_eq!(
                    c.eval(&p).unwrap(),
                    Extended::Finite(again.eval(&p).unwrap()),
                    "{printed} at {p:?}"
                );
            }
        }
    }
    // iscc's other spellings, and errors with positions.
    let c: PwPolynomial = "[N] -> { (1/2 * N + 1/2 * N^2) : N > 0 }".parse().unwrap();
    assert_eq!(
        c.to_string(),
        "[N] -> { ((1/2) * N + (1/2) * N^2) : N >= 1 }"
    );
    let c: PwPolynomial = "[N, M] -> { 2*(N - M)^2 - (N*M)/3 }".parse().unwrap();
    assert_eq!(
        c.value(&[Int::from(4), Int::from(1)]).unwrap(),
        pollen_presburger::Rat::new(Int::from(50), Int::from(3))
    );
    for (bad, column, message) in [
        ("[N] -> { N * K }", 14, "unknown parameter 'K'"),
        ("[N] -> { N / N }", 14, "division by a non-constant"),
        ("[N] -> { N : N >= }", 19, "expected an expression"),
        ("[N] -> { N ^ }", 14, "expected an exponent"),
    ] {
        match bad.parse::<PwPolynomial>() {
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
}

#[test]
fn reading_counts_never_panics() {
    use pollen_presburger::PwPolynomial;
    const PARTS: [&str; 18] = [
        "[N]", "->", "{", "}", "(", ")", "N", "M", "1/2", "*", "+", "-", "^", "2", ":", ";", " ",
        "\u{a0}é",
    ];
    fn prop(picks: Vec<u8>) -> bool {
        let text: String = picks
            .iter()
            .map(|&k| PARTS[k as usize % PARTS.len()])
            .collect();
        let _ = text.parse::<PwPolynomial>();
        true
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Vec<u8>) -> bool);
}

#[test]
fn powers_of_powers_are_a_limit() {
    use pollen_presburger::PwPolynomial;
    let e = "[N] -> { ((N + 1)^64)^64 }"
        .parse::<PwPolynomial>()
        .unwrap_err();
    assert!(e.to_string().contains("degree above 256"), "{e}");
    let ok: PwPolynomial = "[N] -> { ((N + 1)^2)^3 }".parse().unwrap();
    assert_eq!(ok.eval(&[Int::from(1)]).unwrap(), Int::from(64));
}
