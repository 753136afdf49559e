//! Vector variants of the C library's mathematical functions
//! ([`crate::EmitOptions::vector_math`]).
//!
//! A loop that calls `expf` is not vectorised by gcc unless the function is declared
//! with `#pragma omp declare simd`: the compiler then calls the vector variant of the
//! vector ABI (`_ZGVdN8v_expf` for eight `float`s under AVX2, `_ZGVeN16v_expf` under
//! AVX-512), which glibc's `libmvec` provides on x86-64 and which `-lm` links. glibc's
//! headers declare them so only under `-ffast-math`: the vector variants are accurate
//! to a few units in the last place, not correctly rounded like the scalar ones, so
//! results may differ in the last bits. The emitter declares the functions that the
//! region's statements call (by name, or through the operators' macros `EXP_FUN` and the
//! like), for both `float` and `double`, at the top of the generated block.

use std::collections::BTreeSet;

use pollen_emit_text::{statement_text, tokens, TokenKind};
use pollen_scop::Scop;

/// The functions declared, each with the names that call it: glibc's `libmvec` has their
/// vector variants for `float` and `double` (since 2.22: `exp`, `log`, `pow`, `sin`,
/// `cos`; since 2.35: `tanh`, `erf`).
const FUNCTIONS: [(&str, usize, [&str; 3]); 7] = [
    ("exp", 1, ["exp", "expf", "EXP_FUN"]),
    ("log", 1, ["log", "logf", "LOG_FUN"]),
    ("pow", 2, ["pow", "powf", "POW_FUN"]),
    ("sin", 1, ["sin", "sinf", "SIN_FUN"]),
    ("cos", 1, ["cos", "cosf", "COS_FUN"]),
    ("tanh", 1, ["tanh", "tanhf", "TANH_FUN"]),
    ("erf", 1, ["erf", "erff", "ERF_FUN"]),
];

/// The declarations (lines) of the vector variants of the functions that `scop`'s
/// statements call, in the order of [`FUNCTIONS`].
pub(crate) fn declarations(scop: &Scop) -> Vec<String> {
    let mut called: BTreeSet<String> = BTreeSet::new();
    for s in &scop.statements {
        let text = statement_text(&s.body);
        let Some(ts) = tokens(&text) else { continue };
        for (k, t) in ts.iter().enumerate() {
            let followed_by_call = ts.get(k + 1).is_some_and(|n| &text[n.range.clone()] == "(");
            if t.kind == TokenKind::Identifier && followed_by_call {
                called.insert(text[t.range.clone()].to_string());
            }
        }
    }
    let mut out = Vec::new();
    for (name, arity, callers) in FUNCTIONS {
        if !callers.iter().any(|c| called.contains(*c)) {
            continue;
        }
        for (ty, suffix) in [("double", ""), ("float", "f")] {
            let params = vec![ty; arity].join(", ");
            out.push("#pragma omp declare simd notinbranch".to_string());
            out.push(format!("extern {ty} {name}{suffix}({params});"));
        }
    }
    out
}
