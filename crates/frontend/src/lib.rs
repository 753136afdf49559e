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
//!   parameters, and whose condition is a quasi-affine condition that shrinks
//!   monotonically as `i` moves in the loop's direction and bounds `i` (`i < N`,
//!   `i <= min(N, j + 2) && 2 * i < M`, `i >= 0` for a decreasing loop, ...);
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
//! `floord`/`ceild` by a positive constant, casts to integer types and `?:`.
//!
//! Preprocessor lines inside the region are errors. Comments are skipped everywhere.
//! Identifiers are classified as described in the `build` module: loop iterators,
//! variables declared before the region (scalars and arrays, with PolyBench's
//! `POLYBENCH_<n>D` declarators understood) and parameters (everything else).
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

mod affine;
mod ast;
mod build;
mod decls;
pub mod error;
mod lexer;
mod parser;

pub use error::{Error, Result};

use std::ops::Range;

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

/// Extracts the first `#pragma scop` region of a C source text.
pub fn extract(source: &str) -> Result<Extracted> {
    extract_located(source).map_err(|f| f.locate(source))
}

fn extract_located(source: &str) -> R<Extracted> {
    let tokens = lex(source);
    let (open, close) = find_region(source, &tokens)?;
    let decls = decls::scan(source, &tokens[..open]);
    let start = tokens[open].start;
    let end = tokens[close].start;
    let stmts = parser::parse_region(source, &tokens[open + 1..close], &decls, end)?;
    let scop = build::build(source, &decls, &stmts, start)?;
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
