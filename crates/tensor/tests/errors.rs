//! Every kind of error, with its exact position; and malformed text never panics.

use pollen_tensor::{parse, ErrorKind};
use quickcheck::{QuickCheck, TestResult};

/// The error of `text`, which must be rejected with `kind` at `line:column`, and its
/// message.
fn error_at(text: &str, kind: ErrorKind, line: usize, column: usize) -> String {
    match parse(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => {
            assert_eq!(
                (e.kind, e.line(), e.column()),
                (kind, line, column),
                "{e}\nin:\n{text}"
            );
            e.message
        }
    }
}

const HEAD: &str = "param M = 4, N = 3;\ninput A[M, N], v[M];\n";

fn with_head(body: &str) -> String {
    format!("{HEAD}{body}")
}

#[test]
fn syntax_errors() {
    let m = error_at(&with_head("B[i, j] = A[i, j] +;"), ErrorKind::Syntax, 3, 20);
    assert!(m.contains("expected an expression, found `;`"), "{m}");
    error_at(&with_head("B[i, j] = A[i, j]"), ErrorKind::Syntax, 3, 18);
    error_at("param M = 4\ninput A[M];", ErrorKind::Syntax, 2, 1);
    error_at(&with_head("B = A[0, 0];"), ErrorKind::Syntax, 3, 1);
    error_at(&with_head("B[i] = v[i] $ 2.0;"), ErrorKind::Syntax, 3, 13);
    let m = error_at(
        &with_head("B[i, j] = A[i * j, j];"),
        ErrorKind::Syntax,
        3,
        13,
    );
    assert!(m.contains("not affine"), "{m}");
    error_at(&with_head("B[i] = v[i / 2];"), ErrorKind::Syntax, 3, 12);
    error_at(&with_head("B[i] = v[1.5];"), ErrorKind::Syntax, 3, 10);
    error_at(
        &with_head("B[i] = select(v[i], 1.0, 0.0);"),
        ErrorKind::Syntax,
        3,
        19,
    );
    error_at(&with_head("B[i] = sum(v[i]);"), ErrorKind::Syntax, 3, 12);
}

#[test]
fn unknown_names() {
    let m = error_at(
        &with_head("B[i, j] = A[i, j] * Q[i];"),
        ErrorKind::UnknownName,
        3,
        21,
    );
    assert_eq!(m, "unknown tensor `Q`");
    let m = error_at(
        &with_head("B[i] = foo(v[i]);"),
        ErrorKind::UnknownName,
        3,
        8,
    );
    assert_eq!(m, "unknown function `foo`");
    let m = error_at(&with_head("B[i] = M[i];"), ErrorKind::UnknownName, 3, 8);
    assert!(m.contains("parameter, not a tensor"), "{m}");
    let m = error_at(
        &with_head("B[i] = i[0] + v[i];"),
        ErrorKind::UnknownName,
        3,
        8,
    );
    assert!(m.contains("iterator, not a tensor"), "{m}");
    error_at("param M = 2;\ninput A[M, Q];", ErrorKind::UnknownName, 2, 7);
    error_at(&with_head("output A;"), ErrorKind::UnknownName, 3, 8);
    error_at(&with_head("output Z;"), ErrorKind::UnknownName, 3, 8);
    error_at("param M = 2, HO = Z / 2;", ErrorKind::UnknownName, 1, 14);
    error_at(
        &with_head("P = pad(Z, [0], [0], 0.0);"),
        ErrorKind::UnknownName,
        3,
        9,
    );
}

#[test]
fn redefinitions_and_reserved_names() {
    let m = error_at(&with_head("input A[M];"), ErrorKind::Redefinition, 3, 7);
    assert_eq!(m, "`A` is already defined at 2:7");
    error_at(
        &with_head("B[i] = v[i];\nB[i] = v[i];"),
        ErrorKind::Redefinition,
        4,
        1,
    );
    error_at(
        &with_head("B[i, i] = A[i, i];"),
        ErrorKind::Redefinition,
        3,
        6,
    );
    error_at(&with_head("B[M] = v[M];"), ErrorKind::Redefinition, 3, 3);
    error_at(
        &with_head("B[i] = sum(i : N, A[i, i]);"),
        ErrorKind::Redefinition,
        3,
        12,
    );
    error_at(
        &with_head("B[i] = sum(k : N, k : N, A[i, k]);"),
        ErrorKind::Redefinition,
        3,
        19,
    );
    let m = error_at("param float = 3;", ErrorKind::Redefinition, 1, 7);
    assert!(m.contains("reserved"), "{m}");
    error_at(&with_head("main[i] = v[i];"), ErrorKind::Redefinition, 3, 1);
    // A parameter is a `-D` macro seen by operators.h.
    let m = error_at("param M = 2, count = 3;", ErrorKind::Redefinition, 1, 14);
    assert!(m.contains("operators.h"), "{m}");
    error_at(
        &with_head("kernel_x[i] = v[i];"),
        ErrorKind::Redefinition,
        3,
        1,
    );
}

#[test]
fn wrong_numbers_of_indices() {
    let m = error_at(&with_head("B[i] = v[i, 0];"), ErrorKind::Arity, 3, 8);
    assert_eq!(m, "`v` has 1 dimension but is accessed with 2 indices");
    let m = error_at(&with_head("B[i, j] = A[i];"), ErrorKind::Arity, 3, 11);
    assert_eq!(m, "`A` has 2 dimensions but is accessed with 1 index");
}

#[test]
fn shape_errors() {
    // `j` indexes A's second dimension (N) and v (M): elementwise operands of
    // different shapes.
    let m = error_at(
        &with_head("B[i, j] = A[i, j] + v[j];"),
        ErrorKind::Shape,
        3,
        23,
    );
    assert_eq!(
        m,
        "shape mismatch: `j` indexes dimension 1 of `v`, of extent M here but dimension 2 of `A`, \
         of extent N at 3:16"
    );
    let m = error_at(&with_head("B[i, j] = v[i];"), ErrorKind::Shape, 3, 6);
    assert!(m.contains("cannot be inferred"), "{m}");
    error_at(
        &with_head("P = pad(A, [1], [1], 0.0);"),
        ErrorKind::Shape,
        3,
        9,
    );
    error_at(
        &with_head("P = pad(A, [1, -1], [1, 1], 0.0);"),
        ErrorKind::Shape,
        3,
        1,
    );
    error_at(
        "param M = 2;\ninput A[M, M, M, M, M, M];",
        ErrorKind::Shape,
        2,
        7,
    );
    // A program without a computed tensor: reported at the end of the text.
    error_at(HEAD, ErrorKind::Shape, 3, 1);
}

#[test]
fn reduction_axes_outside_their_reduction() {
    let m = error_at(
        &with_head("B[i] = sum(k : N, A[i, k]) + A[i, k];"),
        ErrorKind::Reduction,
        3,
        35,
    );
    assert_eq!(m, "`k` is the axis of a reduction and is used outside it");
    let m = error_at(
        &with_head("B[i] = sum(k : N, sum(l : N, A[i, l]));"),
        ErrorKind::Reduction,
        3,
        19,
    );
    assert!(m.contains("inside a reduction"), "{m}");
    // An axis of one reduction used in another one's extent or body.
    error_at(
        &with_head("B[i] = sum(k : N, A[i, k]) * max(l : N, A[i, k]);"),
        ErrorKind::Reduction,
        3,
        46,
    );
}

#[test]
fn unbound_iterators() {
    let m = error_at(&with_head("B[i] = v[j];"), ErrorKind::Unbound, 3, 10);
    assert!(m.starts_with("iterator `j` is not bound"), "{m}");
    error_at(&with_head("B[i] = v[i] * j;"), ErrorKind::Unbound, 3, 15);
    error_at(&with_head("B[i] = v[i] + v[A];"), ErrorKind::Unbound, 3, 17);
    // Extents are affine in the parameters only.
    error_at(
        &with_head("B[i : M, j : i] = A[i, j];"),
        ErrorKind::UnknownName,
        3,
        10,
    );
}

#[test]
fn out_of_bounds_reads_with_counterexamples() {
    let m = error_at(
        &with_head("B[i : M] = v[i + 1];"),
        ErrorKind::OutOfBounds,
        3,
        12,
    );
    assert!(
        m.starts_with("out-of-bounds access: `v[i + 1]` can read outside the shape [M] of `v`"),
        "{m}"
    );
    // The counterexample: the last row reads one past the end.
    assert!(
        m.contains("with M = 1, N = 1, at i = 0 it reads v[1]"),
        "{m}"
    );
    let m = error_at(
        &with_head("B[i, j : N] = A[i, N - j];"),
        ErrorKind::OutOfBounds,
        3,
        15,
    );
    assert!(m.contains("at i = 0, j = 0 it reads A[0, 1]"), "{m}");
    // An explicit extent larger than the tensor read.
    error_at(
        &with_head("B[i : M + 1] = v[i];"),
        ErrorKind::OutOfBounds,
        3,
        16,
    );
    // In a reduction: `k` runs to M but A has N columns.
    error_at(
        &with_head("B[i] = sum(k : M, A[i, k]);"),
        ErrorKind::OutOfBounds,
        3,
        19,
    );
    // A strided convolution whose output size is one too large.
    let text = "param H = 8, HO = H / 2 + 1;
input X[H], Wt[2];
Y[h : HO] = sum(k : 2, X[2*h + k] * Wt[k]);";
    let m = error_at(text, ErrorKind::OutOfBounds, 3, 24);
    assert!(m.contains("X[2 * h + k]"), "{m}");
    // ... and with the right size, accepted for every H.
    parse(&text.replace("H / 2 + 1", "H / 2")).unwrap();
    // Padding: the padded tensor is larger, reads within it are fine; past it are not.
    let pad =
        "param H = 5;\ninput X[H];\nP = pad(X, [1], [1], 0.0);\nY[h : H] = P[h] + P[h + 2];\n";
    parse(pad).unwrap();
    error_at(
        &pad.replace("P[h + 2]", "P[h + 3]"),
        ErrorKind::OutOfBounds,
        4,
        19,
    );
}

#[test]
fn values_and_limits() {
    error_at("param M = 0;", ErrorKind::Value, 1, 7);
    error_at("param M = 99999999999999999999;", ErrorKind::Value, 1, 11);
    error_at(
        &with_head("B[i] = v[i + 99999999999999999999];"),
        ErrorKind::Value,
        3,
        14,
    );
    error_at(
        &with_head("B[i] = v[9223372036854775807 * 2 * i];"),
        ErrorKind::Value,
        3,
        10,
    );
    error_at("param M = 4, D = M / 0;", ErrorKind::Value, 1, 22);
    let deep = format!("{}v[i]{}", "(".repeat(500), ")".repeat(500));
    error_at(
        &with_head(&format!("B[i] = {deep};")),
        ErrorKind::Limit,
        3,
        208,
    );
    let deep = format!("B[i] = {}v[i];", "-".repeat(1000));
    error_at(&with_head(&deep), ErrorKind::Limit, 3, 208);
}

#[test]
fn positions_count_characters() {
    // A non-ASCII comment before the error on the same line counts one column per
    // character.
    let text = "param M = 2; input A[M];\nB[i] = A[i] + Q[i]; # é\n";
    error_at(text, ErrorKind::UnknownName, 2, 15);
    let text = "# é\nB[i] = é;";
    error_at(text, ErrorKind::Syntax, 2, 8);
}

const VOCABULARY: &[&str] = &[
    "param",
    "input",
    "output",
    "pad",
    "sum",
    "max",
    "min",
    "select",
    "exp",
    "sqrt",
    "erf",
    "M",
    "N",
    "A",
    "B",
    "v",
    "i",
    "j",
    "k",
    "0",
    "1",
    "2",
    "0.5",
    "1e-3",
    "[",
    "]",
    "(",
    ")",
    ",",
    ";",
    ":",
    "=",
    "+",
    "-",
    "*",
    "/",
    "<",
    ">=",
    "==",
    "&&",
    "||",
    "!",
    "f64",
    "#",
    "\n",
    "99999999999999999999",
    "é",
];

#[test]
fn token_soup_never_panics() {
    fn prop(tokens: Vec<u8>) -> TestResult {
        let text: Vec<&str> = tokens
            .iter()
            .map(|t| VOCABULARY[*t as usize % VOCABULARY.len()])
            .collect();
        let text = format!("{HEAD}{}", text.join(" "));
        let _ = parse(&text);
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Vec<u8>) -> TestResult);
}

fn example_sources() -> &'static [String] {
    static SOURCES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SOURCES.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/tensor");
        let mut out: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let path = e.ok()?.path();
                (path.extension()? == "te").then(|| std::fs::read_to_string(path).unwrap())
            })
            .collect();
        out.sort();
        out
    })
}

#[test]
fn mutated_programs_never_panic() {
    assert!(example_sources().len() >= 10);
    fn prop(which: usize, edits: Vec<(u16, u8)>) -> TestResult {
        let sources = example_sources();
        let mut text: Vec<char> = sources[which % sources.len()].chars().collect();
        // A few edits, so that some mutants are still programs.
        for (at, c) in edits.into_iter().take(3) {
            let at = at as usize % (text.len() + 1);
            match c % 3 {
                0 if at < text.len() => {
                    text.remove(at);
                }
                1 => text.insert(
                    at,
                    VOCABULARY[c as usize % VOCABULARY.len()]
                        .chars()
                        .next()
                        .unwrap_or(' '),
                ),
                _ => {
                    if at < text.len() {
                        text[at] = (b' ' + c % 90) as char;
                    }
                }
            }
        }
        let text: String = text.into_iter().collect();
        if let Ok(p) = parse(&text) {
            // Whatever is accepted lowers to C.
            let _ = pollen_tensor::to_c(&p, "mutant");
            ACCEPTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(400)
        .quickcheck(prop as fn(usize, Vec<(u16, u8)>) -> TestResult);
    assert!(ACCEPTED.load(std::sync::atomic::Ordering::Relaxed) > 0);
}

static ACCEPTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[test]
fn nested_parentheses_in_conditions_parse() {
    // A parenthesis in a condition may open a condition or an expression: the parser
    // tries the first and falls back on the second, once per level (quadratic work,
    // not exponential).
    let deep = format!("{}v[i]{}", "(".repeat(150), ")".repeat(150));
    parse(&with_head(&format!(
        "B[i] = select({deep} > 0.0, 1.0, 0.0);"
    )))
    .unwrap();
    let deep = format!("{}v[i] > 0.0{}", "(".repeat(150), ")".repeat(150));
    parse(&with_head(&format!("B[i] = select({deep}, 1.0, 0.0);"))).unwrap();
    error_at(
        &with_head(&format!(
            "B[i] = select({}v[i] > 0.0, 1.0, 0.0);",
            "(".repeat(150)
        )),
        ErrorKind::Syntax,
        3,
        170,
    );
}
