//! Every error of the frontend, with its kind, line, column and message.

use pollen_frontend::{extract, Error};

use crate::common::wrap;

/// The kinds of errors, to compare without the fields.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum K {
    Syntax,
    Unsupported,
    NonAffine,
    Name,
    Loop,
    Region,
    TooComplex,
}

fn kind(e: &Error) -> K {
    match e {
        Error::Syntax { .. } => K::Syntax,
        Error::Unsupported { .. } => K::Unsupported,
        Error::NonAffine { .. } => K::NonAffine,
        Error::Name { .. } => K::Name,
        Error::Loop { .. } => K::Loop,
        Error::Region { .. } => K::Region,
        Error::TooComplex { .. } => K::TooComplex,
        Error::Presburger { .. } => panic!("unexpected Presburger error {e}"),
    }
}

/// Asserts that `source` fails with an error of kind `k` at `line:column` whose message
/// contains `needle`.
fn check(source: &str, k: K, line: usize, column: usize, needle: &str) {
    let e = match extract(source) {
        Ok(_) => panic!("expected an error for\n{source}"),
        Err(e) => e,
    };
    let text = e.to_string();
    assert_eq!(
        (kind(&e), e.line(), e.column()),
        (k, line, column),
        "error `{text}` for\n{source}"
    );
    assert!(
        text.contains(needle),
        "`{text}` does not mention `{needle}`"
    );
    assert_eq!(text, format!("{line}:{column}: {}", e.message()));
}

/// The declarations every snippet may use.
const DECLS: &str = "int i, j; double x, y, A[N][N], B[N]; double *p; unsigned u;";

/// `check` on a region body wrapped after [`DECLS`]: the body starts on line 5.
fn body(region: &str, k: K, line: usize, column: usize, needle: &str) {
    check(&wrap(DECLS, region), k, line, column, needle);
}

#[test]
fn non_affine_subscripts_and_bounds() {
    body(
        "for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    A[i * j][0] = 0;",
        K::NonAffine,
        7,
        7,
        "product `i * j`",
    );
    body(
        "for (i = 0; i < N; i++) A[B[i]][0] = 0;",
        K::NonAffine,
        5,
        27,
        "array element `B[i]`",
    );
    body(
        "for (i = 0; i < N; i++) B[i / N] = 0;",
        K::NonAffine,
        5,
        27,
        "division by a non-zero integer constant",
    );
    body(
        "for (i = 0; i < N; i++) B[i % 0] = 0;",
        K::NonAffine,
        5,
        27,
        "non-zero",
    );
    body(
        "for (i = 0; i < 2.5; i++) x = 0;",
        K::NonAffine,
        5,
        17,
        "floating-point constant `2.5`",
    );
    body(
        "for (i = 0; i < f(N); i++) x = 0;",
        K::NonAffine,
        5,
        17,
        "call `f(N)`",
    );
    body(
        "for (i = 0; i < x; i++) x = 0;",
        K::NonAffine,
        5,
        17,
        "`x` is a variable the scop writes",
    );
    body(
        "for (i = 0; i < y; i++) x = 0;",
        K::NonAffine,
        5,
        17,
        "`y` is a variable that is not a signed integer scalar",
    );
    body(
        "for (i = 0; i < u; i++) x = 0;",
        K::NonAffine,
        5,
        17,
        "`u` is a variable that is not a signed integer scalar",
    );
    body(
        "for (i = 0; i < N; i++) B[(unsigned) i] = 0;",
        K::NonAffine,
        5,
        27,
        "cast `(unsigned) i` is not to a signed integer type",
    );
    body("if (x > 0) y = 1;", K::NonAffine, 5, 5, "`x`");
    body(
        "for (i = 0; i < N; i++) B[i < 3] = 0;",
        K::NonAffine,
        5,
        27,
        "used as an integer value",
    );
    body(
        "for (i = 0; i < N; i++) B[i << 1] = 0;",
        K::NonAffine,
        5,
        27,
        "operator `<<`",
    );
    body(
        "for (i = 0; i < N; i++) B[floord(i, -2)] = 0;",
        K::NonAffine,
        5,
        27,
        "positive divisor",
    );
    body(
        "for (i = 0; i < N; i++) B[99999999999999999999] = 0;",
        K::NonAffine,
        5,
        27,
        "integer constant",
    );
}

#[test]
fn constructs_outside_the_model() {
    body("while (1) x = 0;", K::Unsupported, 5, 1, "`while` loop");
    body(
        "x = 0;\n  do x = 1; while (0);",
        K::Unsupported,
        6,
        3,
        "`do` loop",
    );
    body("goto end;", K::Unsupported, 5, 1, "`goto`");
    body(
        "for (i = 0; i < N; i++) { if (i > 2) break; }",
        K::Unsupported,
        5,
        38,
        "`break`",
    );
    body(
        "for (i = 0; i < N; i++) continue;",
        K::Unsupported,
        5,
        25,
        "`continue`",
    );
    body("return;", K::Unsupported, 5, 1, "`return`");
    body(
        "switch (N) { case 1: x = 0; }",
        K::Unsupported,
        5,
        1,
        "`switch`",
    );
    body(
        "foo(x);",
        K::Unsupported,
        5,
        1,
        "function call statement `foo(x)`",
    );
    body("x + 1;", K::Unsupported, 5, 1, "assigns nothing");
    body("*p = 1;", K::Unsupported, 5, 1, "pointer dereference");
    body(
        "for (i = 0; i < N; i++) p[i] = 0;",
        K::Unsupported,
        5,
        25,
        "pointer `p`",
    );
    body("x = *p;", K::Unsupported, 5, 5, "pointer dereference");
    body(
        "x = y + (y = 2);",
        K::Unsupported,
        5,
        9,
        "assignment `(y = 2)` inside an expression",
    );
    body("x = y++;", K::Unsupported, 5, 5, "inside an expression");
    body("x = 1, y = 2;", K::Unsupported, 5, 1, "comma");
    body(
        "double *z = 0;",
        K::Unsupported,
        5,
        8,
        "a pointer declared inside the scop is outside the polyhedral model",
    );
    body(
        "double z[4];",
        K::Unsupported,
        5,
        8,
        "the array `z` declared inside the scop",
    );
    body(
        "static double z = 0;",
        K::Unsupported,
        5,
        1,
        "a `static` variable declared inside the scop",
    );
    body(
        "struct s { int a; } z;",
        K::Unsupported,
        5,
        1,
        "a `struct` declaration inside the scop",
    );
    body(
        "typedef int z;",
        K::Unsupported,
        5,
        1,
        "a `typedef` declaration inside the scop",
    );
    body(
        "double z = {0};",
        K::Unsupported,
        5,
        12,
        "a brace initializer inside the scop",
    );
    body(
        "printf(\"%f\", x);",
        K::Unsupported,
        5,
        1,
        "the function call statement `printf(\"%f\", x)` is outside the polyhedral model",
    );
    body("L: x = 1;", K::Unsupported, 5, 1, "label `L`");
    body("s.f = 1;", K::Unsupported, 5, 1, "structure member");
    body("x = p;", K::Unsupported, 5, 5, "pointer `p`");
    body("x = (*fp)(y);", K::Unsupported, 5, 5, "call through");
}

#[test]
fn misused_names() {
    body(
        "for (i = 0; i < N; i++) i = 3;",
        K::Name,
        5,
        25,
        "loop iterator `i` is written",
    );
    body(
        "Q[0] = 1;\nx = Q;",
        K::Name,
        6,
        5,
        "`Q` is used both with and without subscripts (here and on line 5)",
    );
    body(
        "x = Q + 1;\nQ[0] = 1;",
        K::Name,
        6,
        1,
        "`Q` is used both with and without subscripts",
    );
    body(
        "x = Q[0];\nQ[0][1] = 1;",
        K::Name,
        6,
        1,
        "`Q` is used with 2 subscripts here and with 1 before",
    );
    body(
        "for (i = 0; i < M; i++) B[i] = 0;\nM = 3;",
        K::NonAffine,
        5,
        17,
        "`M` is a variable the scop writes",
    );
    body(
        "for (i = 0; i < N; i++) B[Q[i]] = 0;",
        K::NonAffine,
        5,
        27,
        "",
    );
    body(
        "for (i = 0; i < N; i++) B[i] = 0;\nB[i] = 1;",
        K::Name,
        6,
        3,
        "loop iterator `i` is used outside its loop",
    );
    body(
        "for (i = 0; i < N; i++) B[i] = 0;\nx = i;",
        K::Name,
        6,
        5,
        "used outside its loop",
    );
    // A parameter named by a keyword of the set notation (`or`, `MAX`) could not be
    // written in the scop's text form; iterators so named are fine (they are renamed).
    body(
        "for (i = 0; i < N; i++) B[i] = A[i][or];",
        K::Name,
        5,
        37,
        "the parameter `or` is named by a keyword of the set notation",
    );
    body(
        "for (i = 0; i < MAX; i++) B[i] = 0;",
        K::Name,
        5,
        17,
        "the parameter `MAX` is named by a keyword",
    );
    body(
        "for (i = 0; i < N; i++)\n  for (i = 0; i < N; i++) x = 0;",
        K::Name,
        6,
        8,
        "`i` is already the iterator of an enclosing loop",
    );
    body(
        "for (i = 0; i < N; i++) A[i] = 0;",
        K::Name,
        5,
        25,
        "`A` has 2 dimensions but `A[i]` gives 1 subscripts",
    );
    body(
        "x = B;",
        K::Name,
        5,
        5,
        "array `B` is used without its 1 subscripts",
    );
    body(
        "for (j = 0; j < N; j++) x = j[0];",
        K::Name,
        5,
        29,
        "iterator `j` is used as an array",
    );
    body(
        "x = j[0];",
        K::Name,
        5,
        5,
        "`j` has 0 dimensions but `j[0]` gives 1 subscripts",
    );
}

#[test]
fn loops_outside_the_model() {
    body(
        "for (; i < N; i++) x = 0;",
        K::Loop,
        5,
        6,
        "does not initialise its iterator",
    );
    body(
        "for (i = 0;; i++) x = 0;",
        K::Loop,
        5,
        12,
        "has no condition",
    );
    body(
        "for (i = 0; i < N;) x = 0;",
        K::Loop,
        5,
        19,
        "does not step its iterator",
    );
    body("for (i = 0; i < N; i += 0) x = 0;", K::Loop, 5, 20, "by 0");
    body(
        "for (i = 0; i < N; i *= 2) x = 0;",
        K::Loop,
        5,
        20,
        "increment `i *= 2`",
    );
    body(
        "for (i = 0; i < N; j++) x = 0;",
        K::Loop,
        5,
        20,
        "increment `j++`",
    );
    body(
        "for (i = 0; i < N; i += N) x = 0;",
        K::Loop,
        5,
        20,
        "integer constant",
    );
    body(
        "for (i = 0; i > -5; i++) x = 0;",
        K::Loop,
        5,
        13,
        "does not bound `i` from above",
    );
    body(
        "for (i = N; i < 5; i--) x = 0;",
        K::Loop,
        5,
        13,
        "does not bound `i` from below",
    );
    body(
        "for (i = 0; i < N || i > 9; i++) x = 0;",
        K::Loop,
        5,
        13,
        "does not bound",
    );
    body(
        "for (i = 0; i < N && i % 3 != 2; i++) x = 0;",
        K::Loop,
        5,
        13,
        "not monotone in `i`: it can become true again",
    );
    body(
        "for (i = 9; i >= 0 && i / 2 != 2; i--) x = 0;",
        K::Loop,
        5,
        13,
        "true again after failing as `i` decreases",
    );
    body(
        "for (i = 0; N > 0; i++) x = 0;",
        K::Loop,
        5,
        13,
        "does not bound `i` from above",
    );
    body(
        "for (i = 0; i == 0; i++) x = 0;",
        K::Loop,
        5,
        13,
        "equality",
    );
    body(
        "for (unsigned k = 0; k < N; k++) y = 0;",
        K::Loop,
        5,
        15,
        "signed integer type",
    );
    body(
        "for (u = 0; u < N; u++) y = 0;",
        K::Loop,
        5,
        6,
        "declared `unsigned`",
    );
    body(
        "for (x = 0; x < N; x++) y = 0;",
        K::Loop,
        5,
        6,
        "declared `double`",
    );
    body(
        "for (double d = 0; d < N; d++) y = 0;",
        K::Loop,
        5,
        13,
        "integer type",
    );
    body(
        "for (i = 0, j = 0; i < N; i++) y = 0;",
        K::Loop,
        5,
        6,
        "must assign its iterator",
    );
}

#[test]
fn malformed_regions() {
    check(
        "int x;\nvoid f() { x = 1; }\n",
        K::Region,
        1,
        1,
        "no `#pragma scop`",
    );
    check(
        "void f() {\n  #pragma scop\n  x = 1;\n}\n",
        K::Region,
        2,
        3,
        "without a matching `#pragma endscop`",
    );
    check(
        "void f() {\n#pragma endscop\n}\n",
        K::Region,
        2,
        1,
        "without a preceding `#pragma scop`",
    );
    body(
        "x = 1;\n#define Y 2\ny = 1;",
        K::Region,
        6,
        1,
        "directive `define Y 2`",
    );
    body(
        "#pragma scop\nx = 1;",
        K::Region,
        5,
        1,
        "second `#pragma scop`",
    );
    body(
        "#pragma omp parallel for\nfor (i = 0; i < N; i++) x = 1;",
        K::Region,
        5,
        1,
        "directive `pragma omp parallel for`",
    );
}

#[test]
fn syntax_errors() {
    body("B[i = 0;", K::Syntax, 5, 8, "expected `]`, found `;`");
    body("{ x = 1;", K::Syntax, 5, 1, "block is not closed");
    body("x = 1; }", K::Syntax, 5, 8, "`}` without a matching `{`");
    body("else x = 1;", K::Syntax, 5, 1, "`else` without `if`");
    body(
        "x = ;",
        K::Syntax,
        5,
        5,
        "expected an expression, found `;`",
    );
    body(
        "x = 1",
        K::Syntax,
        6,
        1,
        "expected `;`, found `#pragma endscop`",
    );
    body("x = 1 @ 2;", K::Syntax, 5, 7, "the character `@`");
    body("if x > 1) y = 0;", K::Syntax, 5, 4, "expected `(`");
}

#[test]
fn limits() {
    let deep = format!("x = {}1{};", "(".repeat(300), ")".repeat(300));
    // Every parenthesis costs two levels; the statement and the assignment three more.
    body(&deep, K::TooComplex, 5, 4 + 100, "nesting deeper than");
    let blocks = format!("{}x = 1;{}", "{".repeat(300), "}".repeat(300));
    body(&blocks, K::TooComplex, 5, 201, "nesting deeper than");
    // Eleven nested `min`s of distinct parameters: 2^11 pieces, none of them empty.
    let mut e = "P0".to_string();
    for k in 1..=11 {
        e = format!("min({e}, P{k})");
    }
    body(
        &format!("for (i = 0; i < N; i++) B[{e}] = 0;"),
        K::TooComplex,
        5,
        27,
        "more than 1024 pieces",
    );
    let disjuncts: Vec<String> = (0..11)
        .map(|k| format!("(i == {k} || i == -{k})"))
        .collect();
    body(
        &format!(
            "for (i = 0; i < N; i++) if ({}) x = 0;",
            disjuncts.join(" && ")
        ),
        K::TooComplex,
        5,
        29,
        "more than 1024 pieces",
    );
}

#[test]
fn positions_count_characters_not_bytes() {
    check(
        "/* é è */ int x;\nvoid f() {\n#pragma scop\n/* ü */ x = Q[0] + Q;\n#pragma endscop\n}\n",
        K::Name,
        4,
        20,
        "`Q`",
    );
}

#[test]
fn unsigned_iterators_are_refused() {
    for ty in [
        "unsigned",
        "unsigned int",
        "size_t",
        "unsigned long",
        "uint64_t",
    ] {
        body(
            &format!("for ({ty} k = 0; k < N; k++) B[k] = 0;"),
            K::Loop,
            5,
            7 + ty.len(),
            "the loop iterator `k` must have a signed integer type",
        );
    }
}

#[test]
fn misused_declarations_inside_the_region() {
    body(
        "double x = 1;",
        K::Name,
        5,
        8,
        "`x` is declared before the scop and again inside it",
    );
    body(
        "for (k = 0; k < N; k++) { double t = B[k]; B[k] = t; }\nB[0] = t;",
        K::Name,
        6,
        8,
        "`t` is used outside the block that declares it",
    );
    body(
        "for (k = 0; k < N; k++) { double t = B[k]; { double t = 1; } }",
        K::Name,
        5,
        53,
        "`t` is declared again while its first declaration is in scope",
    );
    body(
        "t = 1;\ndouble t = 2;",
        K::Name,
        6,
        8,
        "`t` is used before its declaration",
    );
    body(
        "for (k = 0; k < N; k++) { double t = B[k]; }\nfor (k = 0; k < N; k++) { float t = B[k]; }",
        K::Name,
        6,
        33,
        "`t` is declared with the types `double` and `float`",
    );
    body(
        "for (k = 0; k < N; k++) { int m = k + 1; B[m] = 0; }",
        K::NonAffine,
        5,
        44,
        "`m` is a variable the scop writes",
    );
    body(
        "for (k = 0; k < N; k++) { double t = B[k]; B[k] = t[0]; }",
        K::Name,
        5,
        51,
        "`t` has 0 dimensions",
    );
}
