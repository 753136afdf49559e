//! Garbage in, an error out: random bytes, random token soups and mutations of valid
//! programs never make the frontend panic, and what it accepts is a valid scop.

use pollen_frontend::extract;

use crate::common::wrap;

/// A small deterministic generator (SplitMix64) so that every run tries the same inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Extracts `source` and checks what comes back.
fn survive(source: &str) {
    match extract(source) {
        Ok(x) => {
            x.scop
                .validate()
                .unwrap_or_else(|e| panic!("invalid scop {e} from\n{source}"));
            assert!(x.region.start <= x.region.end && x.region.end <= source.len());
        }
        Err(e) => {
            let lines = source.split('\n').count();
            assert!(
                e.line() >= 1 && e.line() <= lines && e.column() >= 1,
                "position {}:{} outside the text of {lines} lines: {e}",
                e.line(),
                e.column()
            );
        }
    }
}

const VALID: [&str; 4] = [
    "for (i = 0; i < N; i++)\n  for (j = max(0, i - 2); j <= min(N, i + 2); j += 2)\n    if (i % 2 == 0 && j / 3 != i || !(i > j))\n      A[i][j] = B[j] * x + sqrt(A[j][i]);\n    else\n      x += (double) i;",
    "for (i = N - 1; i >= 0; i--) {\n  y = 0;\n  for (j = i + 1; j < N; j++)\n    y -= A[i][j] * B[j];\n  B[i] = y / A[i][i];\n}",
    "x = y = SCALAR_VAL(1.0) / (DATA_TYPE)N;\nfor (int k = floord(N, 2); k < ceild(N * 3, 4); ++k) B[k] = x > 0 ? B[k] : -B[k];",
    "for (i = 0; i < N; i++) { B[i] = 0; for (j = 0; j < i; j++) B[i] += A[i][j]; }",
];

const DECLS: &str = "int i, j; double x, y, A[N][N], B[N];";

const VOCABULARY: [&str; 46] = [
    "for",
    "if",
    "else",
    "while",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "=",
    "+=",
    "++",
    "--",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "&&",
    "||",
    "!",
    "+",
    "-",
    "*",
    "/",
    "%",
    "?",
    ":",
    "i",
    "j",
    "N",
    "A",
    "B",
    "x",
    "0",
    "1",
    "-7",
    "2.5",
    "min",
    "\n#pragma endscop\n",
    "\n#pragma scop\n",
    "/*",
];

#[test]
fn random_characters() {
    let mut rng = Rng(1);
    let alphabet: Vec<char> =
        "#pragma scop endscop\n\r{}()[];=+-*/%<>!&|?:,.'\"\\ iAN01x\t/*é€😀\u{0}"
            .chars()
            .collect();
    for _ in 0..600 {
        let len = rng.below(200);
        let text: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        survive(&text);
        survive(&wrap(DECLS, &text));
    }
}

#[test]
fn token_soups() {
    let mut rng = Rng(2);
    for _ in 0..1500 {
        let n = rng.below(40);
        let body: Vec<&str> = (0..n)
            .map(|_| VOCABULARY[rng.below(VOCABULARY.len())])
            .collect();
        survive(&wrap(DECLS, &body.join(" ")));
    }
}

#[test]
fn mutations_of_valid_programs() {
    let mut rng = Rng(3);
    for v in VALID {
        survive(&wrap(DECLS, v));
        assert!(extract(&wrap(DECLS, v)).is_ok(), "{v}");
    }
    for _ in 0..1500 {
        let v = VALID[rng.below(VALID.len())];
        let mut chars: Vec<char> = v.chars().collect();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(chars.len());
            match rng.below(4) {
                0 => {
                    let len = 1 + rng.below(6);
                    chars.drain(at..(at + len).min(chars.len()));
                }
                1 => {
                    let word = VOCABULARY[rng.below(VOCABULARY.len())];
                    for (k, c) in word.chars().enumerate() {
                        chars.insert(at + k, c);
                    }
                }
                2 => {
                    let len = 1 + rng.below(10);
                    let piece: Vec<char> = chars[at..(at + len).min(chars.len())].to_vec();
                    let to = rng.below(chars.len());
                    for (k, c) in piece.into_iter().enumerate() {
                        chars.insert(to + k, c);
                    }
                }
                _ => {
                    let other = ['(', ')', '-', '0', 'i', ';', '{', '}'][rng.below(8)];
                    chars[at] = other;
                }
            }
            if chars.is_empty() {
                break;
            }
        }
        let text: String = chars.into_iter().collect();
        survive(&wrap(DECLS, &text));
    }
}

#[test]
fn adversarial_sizes() {
    let n = 20_000;
    survive(&wrap(DECLS, &"(".repeat(n)));
    survive(&wrap(DECLS, &"{".repeat(n)));
    survive(&wrap(DECLS, &format!("x = {};", "-".repeat(n))));
    survive(&wrap(DECLS, &format!("x = y{};", " + y".repeat(n))));
    survive(&wrap(DECLS, &format!("B[i{}] = 0;", " + 1".repeat(n))));
    survive(&wrap(DECLS, &"if (N > 0) ".repeat(n)));
    survive(&wrap(DECLS, &format!("x = {}9;", "9".repeat(100))));
    survive(&wrap(DECLS, "for (i = 0; i < 99999999999999999; i += 4611686018427387903) B[i * 9223372036854775807 / 3] = 0;"));
    survive(&"/*".repeat(n));
    survive(&format!(
        "{}\n#pragma scop\nx = 1;\n#pragma endscop\n",
        "int ".repeat(n)
    ));
    survive(&format!(
        "void f({}\n#pragma scop\n#pragma endscop\n",
        "int a, ".repeat(n)
    ));
}

#[test]
fn long_expressions_below_the_limit_are_accepted() {
    let terms = 150;
    let rhs: Vec<String> = (0..terms).map(|k| format!("B[i + {k}]")).collect();
    let src = wrap(
        DECLS,
        &format!("for (i = 0; i < N; i++) x = {};", rhs.join(" + ")),
    );
    let x = extract(&src).expect("a long sum");
    assert_eq!(x.scop.statements[0].accesses.len(), terms + 1);
}
