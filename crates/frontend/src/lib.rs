//! The C frontend: extraction of the `#pragma scop` region of a C file into a [`Scop`].
//!
//! [`extract`] reads the first region between a `#pragma scop` line and the next
//! `#pragma endscop` line, and the declarations visible where it starts, and builds the
//! polyhedral model: parameters, statements with their iteration domains and ordered
//! access relations, the arrays they touch, the original schedule tree and the context.
//! It does no IO and never panics; everything outside the model is an [`Error`] naming
//! the construct, with its line and column.
//!
//! # What the region may hold
//! - `for` loops `for (i = lb; cond; step)` (or `for (int i = lb; ...)`) whose step is
//!   `i++`, `++i`, `i--`, `--i`, `i += c`, `i -= c` or `i = i + c` (`c` a non-zero integer
//!   constant), whose start `lb` is quasi-affine in the outer iterators and the
//!   parameters, and whose condition is a quasi-affine condition that bounds `i` in the
//!   loop's direction (`i < N`, `i <= min(N, j + 2) && 2 * i < M`, `i >= 0` for a
//!   decreasing loop, ...) and never becomes true again once it failed (checked from
//!   its syntax, or exactly when the syntax does not tell, as for `i / 2 < N`); the
//!   iterations are then the values from the start, in steps, that satisfy it;
//! - `if` and `if`-`else` with quasi-affine conditions built from comparisons, `&&`, `||`
//!   and `!`;
//! - blocks `{ ... }` and empty statements;
//! - expression statements that assign an array element or a scalar variable with `=` or
//!   a compound operator (`+=`, `*=`, ...), chains such as `a = b = c`, and `x++`-style
//!   statements; their right-hand side may be any C expression without side effects
//!   (calls to functions or macros, casts, ternaries).
//!
//! Quasi-affine expressions are built from integer constants, loop iterators,
//! parameters, `+`, `-`, multiplication by a constant, C's `/` and `%` by a non-zero
//! constant (truncating toward zero, modelled exactly), `min`/`max`/`MIN`/`MAX`,
//! `floord`/`ceild` by a positive constant, casts to `int`, `long` and other signed
//! integer types at least as wide as `int`, and `?:`. C integer arithmetic is assumed not
//! to overflow.
//!
//! Comments are skipped everywhere. Preprocessor lines inside the region (other
//! `#pragma`s included) are errors: the region is replaced by generated code, and a
//! directive in it could not be kept in place. Only the first region of a file is read.
//!
//! # Identifiers
//! - A *loop iterator* is the iterator of an enclosing `for`. Using the iterator of a
//!   loop that does not enclose the use (its value after the loop), or writing an
//!   iterator, is an error.
//! - A *variable* is declared before the region: a global, a parameter of the function
//!   holding the region, or one of its locals (the declarations visible at the
//!   `#pragma scop` line, PolyBench's `POLYBENCH_<n>D(A, N1, .., Nn, n1, .., nn)`
//!   declarators included). In a right-hand side, a scalar variable is a read of a
//!   0-dimensional array and an array element a read of the array; in a bound, a
//!   condition or a subscript a variable is an error (data-dependent), except a scalar
//!   of a signed C integer type that the region never writes: its value is fixed while the
//!   region runs, so it is a parameter (like `n` in `void f(int n, double A[n])`).
//! - Every other identifier is a *parameter* in bounds, conditions and subscripts (a
//!   symbolic constant or a macro such as `N` or `_PB_N`; its name is kept exactly), and
//!   a value (a macro or a function name) in a right-hand side. Writing one is an error.
//!
//! Parameters are ordered by their first appearance in the region.
//!
//! # The scop
//! - Statements are named `S0`, `S1`, ... in textual order; a domain's dimensions are
//!   named after the C iterators; a statement's body is its exact C text, `;` included.
//! - A statement's accesses are its reads, left to right (a compound assignment first
//!   reads its left side; every array element and scalar variable of the right-hand side
//!   is read, call arguments included), then its writes.
//! - The context is the set of parameter values for which at least one statement
//!   instance executes (the union of the parameter projections of the domains).
//! - The schedule tree is a domain node over all statements, then per list of several
//!   items a sequence of filters, per loop a band of one member (`[i]`, or `[-i]` for a
//!   decreasing loop) that is neither permutable nor coincident; an `if` adds no node
//!   (its branches' items join the enclosing list); loops without statements are left
//!   out.
//!
//! # Example
//! ```
//! let source = "void f(double A[100]) {\n  int i;\n#pragma scop\n  for (i = 0; i < N; i++)\n    A[i] = A[i] / 2;\n#pragma endscop\n}\n";
//! let extracted = pollen_frontend::extract(source)?;
//! let scop = &extracted.scop;
//! assert_eq!(scop.params, ["N"]);
//! assert_eq!(scop.statements[0].body, "A[i] = A[i] / 2;");
//! assert_eq!(scop.statements[0].domain.to_string(), "[N] -> { S0[i] : 0 <= i < N }");
//! assert!(source[extracted.region].starts_with("#pragma scop"));
//! # Ok::<(), pollen_frontend::Error>(())
//! ```

mod affine;
mod ast;
mod build;
mod decls;
pub mod error;
mod lexer;
mod parser;

pub use error::{Error, Result};

use std::ops::Range;

use pollen_presburger::Budget;
use pollen_scop::Scop;

use crate::error::{Fail, Kind, R};
use crate::lexer::{directive_words, lex, Token, TokenKind};

/// The scop of a C file and where it came from.
#[derive(Clone, Debug)]
pub struct Extracted {
    /// The polyhedral model of the region.
    pub scop: Scop,
    /// The byte range of the region in the source: from the first byte of the line that
    /// holds `#pragma scop` (its indentation included) to the end of the `#pragma
    /// endscop` directive, its line break excluded. Replacing this range replaces the
    /// region and both pragma lines.
    pub region: Range<usize>,
}

/// Extracts the first `#pragma scop` region of a C source text, within a budget of
/// 50,000,000 solver steps.
pub fn extract(source: &str) -> Result<Extracted> {
    extract_with(source, &mut Budget::new(build::BUDGET_STEPS))
}

/// [`extract`] within `budget`: a region whose sets need more steps is an
/// [`Error::Presburger`] holding [`pollen_presburger::Error::LimitExceeded`].
pub fn extract_with(source: &str, budget: &mut Budget) -> Result<Extracted> {
    extract_located(source, budget).map_err(|f| f.locate(source))
}

fn extract_located(source: &str, budget: &mut Budget) -> R<Extracted> {
    let tokens = lex(source);
    let (open, close) = find_region(source, &tokens)?;
    let decls = decls::scan(source, &tokens[..open]);
    let start = tokens[open].start;
    let end = tokens[close].start;
    let stmts = parser::parse_region(source, &tokens[open + 1..close], &decls, end)?;
    let scop = build::build(source, &decls, &stmts, start, budget)?;
    let line_start = source[..start].rfind('\n').map_or(0, |p| p + 1);
    Ok(Extracted {
        scop,
        region: line_start..tokens[close].end,
    })
}

/// The indices of the `#pragma scop` and `#pragma endscop` tokens of the first region.
fn find_region(source: &str, tokens: &[Token]) -> R<(usize, usize)> {
    let words = |t: &Token| directive_words(&source[t.start..t.end]);
    let is_pragma =
        |t: &Token, what: &str| t.kind == TokenKind::Directive && words(t) == ["pragma", what];
    let Some(open) = tokens.iter().position(|t| is_pragma(t, "scop")) else {
        let at = tokens
            .iter()
            .find(|t| is_pragma(t, "endscop"))
            .map_or(0, |t| t.start);
        let message = if at > 0 {
            "`#pragma endscop` without a preceding `#pragma scop`"
        } else {
            "no `#pragma scop` in the file"
        };
        return Err(Fail::new(Kind::Region, at, message));
    };
    for (k, t) in tokens.iter().enumerate().skip(open + 1) {
        if t.kind != TokenKind::Directive {
            continue;
        }
        if is_pragma(t, "endscop") {
            return Ok((open, k));
        }
        let message = if is_pragma(t, "scop") {
            "a second `#pragma scop` before the `#pragma endscop` of the first".to_string()
        } else {
            format!(
                "the preprocessor directive `{}` inside the scop (only comments may accompany its statements)",
                words(t).join(" ")
            )
        };
        return Err(Fail::new(Kind::Region, t.start, message));
    }
    Err(Fail::new(
        Kind::Region,
        tokens[open].start,
        "`#pragma scop` without a matching `#pragma endscop`",
    ))
}
