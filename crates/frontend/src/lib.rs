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
//! - `for` loops `for (i = lb; cond; step)` (or `for (T i = lb; ...)` with `T` a signed
//!   integer type: `int`, `long`, `long long`, `short`, `signed char`, `int64_t`,
//!   `ptrdiff_t`, `intptr_t`, `ssize_t`, a typedef of one; an unsigned iterator is an
//!   error, its wrap-around is outside the model) whose step is
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
//! - declarations of scalars, `double t = A[i][j] * 2;`, `int k;`, `const float a = x,
//!   b;` (type keywords or a type name, `const`, `register` and `restrict` dropped): a
//!   declarator with an initializer is a statement that writes the scalar, its body the
//!   assignment `t = A[i][j] * 2;`; the scalar is a 0-dimensional array of the declared
//!   type marked [`local`](pollen_scop::Array::local) (the code that replaces the region
//!   declares it at its start), as pet models such temporaries, so its dependences keep
//!   the loops around it in order. The scalar is visible to the end of its block; a
//!   declaration may not shadow a name in scope or declared before the region, nor
//!   follow a use of its name, and the declarations of one name in separate blocks must
//!   agree on its type (they are one scalar). Pointers, arrays, functions, `typedef`,
//!   `struct`/`union`/`enum`, `static`/`extern`/`volatile` variables and brace
//!   initializers are errors;
//! - expression statements that assign an array element or a scalar variable with `=` or
//!   a compound operator (`+=`, `*=`, ...), chains such as `a = b = c`, and `x++`-style
//!   statements; their right-hand side may be any C expression without side effects
//!   (calls to functions or macros, casts, ternaries). A call standing alone as a
//!   statement (`printf(...);`) is an error: its effects are unknown.
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
//! directive in it could not be kept in place. [`extract`] reads the first region of a
//! file; [`extract_all`] reads every region, in order, each with the declarations that
//! precede it.
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
//! - An *undeclared array* is a name declared nowhere before the region that the region
//!   uses with subscripts (`A[i][j]`), as in the loop-nest fragments of the polyhedral
//!   tools' test inputs (Pluto, PPCG), which are only a region: its element type and
//!   extents are unknown (an empty
//!   [`Array::element_type`](pollen_scop::Array::element_type) and one empty extent
//!   text per dimension), and every use must give the same number of
//!   subscripts.
//! - An *undeclared scalar* is an undeclared name used without subscripts that the region
//!   writes somewhere (`s = 0; ... s += A[i] * B[i];`): a 0-dimensional array of unknown
//!   type, read wherever it appears in a right-hand side; in a bound, a condition or a
//!   subscript it is data, hence an error.
//! - An undeclared name used both with and without subscripts is an error at its later
//!   use.
//! - A *local scalar* is declared inside the region (above); it is a scalar variable
//!   within its block, and using it after the block closes is an error.
//! - Every other identifier is a *parameter* in bounds, conditions and subscripts (a
//!   symbolic constant or a macro such as `N` or `_PB_N`; its name is kept exactly), and
//!   a value (a macro, a function name or a constant of the surrounding program, not an
//!   access) in a right-hand side. The name called by a call (`sqrt` in `sqrt(x)`) is
//!   never an array or a scalar.
//!
//! Parameters are ordered by their first appearance in the region. A parameter named by
//! a keyword of the set notation (`and`, `or`, `not`, `min`, `max`, `mod`, `floor`, ...,
//! in any case: [`pollen_presburger::text::is_keyword`]) is an error at its first use,
//! since the scop's text form could not name it; an iterator so named is fine (the
//! printers rename dimensions).
//!
//! # The scop
//! - Statements are named `S0`, `S1`, ... in textual order; a domain's dimensions are
//!   named after the C iterators; a statement's body is its exact C text, `;` included
//!   (for a declaration with an initializer, `T t = e;`, the assignment `t = e;`).
//! - The arrays are those declared before the region in order of declaration, then the
//!   scalars the region declares and the undeclared arrays and scalars, in order of first
//!   appearance.
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
mod implicit;
mod lexer;
mod parser;

pub use error::{Error, Result};

/// Whether `word` is a keyword of C (including the common compiler spellings such as
/// `__restrict__`): a name no declaration can take.
pub fn is_c_keyword(word: &str) -> bool {
    decls::is_keyword(word)
}

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
    /// The scalars of the scop whose values no code outside the region uses: those the
    /// region declares, and variables of the enclosing function (not pointers) that no
    /// code of the function outside the region mentions other than their declaration.
    pub dead_after: std::collections::BTreeSet<String>,
}

/// Extracts the first `#pragma scop` region of a C source text, within a budget of
/// 50,000,000 solver steps.
pub fn extract(source: &str) -> Result<Extracted> {
    extract_with(source, &mut Budget::new(build::BUDGET_STEPS))
}

/// [`extract`] within `budget`: a region whose sets need more steps is an
/// [`Error::Presburger`] holding [`pollen_presburger::Error::LimitExceeded`].
pub fn extract_with(source: &str, budget: &mut Budget) -> Result<Extracted> {
    let tokens = lex(source);
    let located = find_region(source, &tokens, 0).and_then(|region| match region {
        Some((open, close)) => extract_region(source, &tokens, open, close, budget),
        None => Err(Fail::new(Kind::Region, 0, "no `#pragma scop` in the file")),
    });
    located.map_err(|f| f.locate(source))
}

/// Extracts every `#pragma scop` region of a C source text, in the order of the file,
/// within a budget of 50,000,000 solver steps for them all.
///
/// Each region is a scop of its own (statements named `S0`, `S1`, ... in each), read
/// with the declarations that precede it; the regions' ranges do not overlap. A file
/// without a region is an error, as for [`extract`], and so is an error in any region.
pub fn extract_all(source: &str) -> Result<Vec<Extracted>> {
    extract_all_with(source, &mut Budget::new(build::BUDGET_STEPS))
}

/// [`extract_all`] within `budget`, shared by the regions.
pub fn extract_all_with(source: &str, budget: &mut Budget) -> Result<Vec<Extracted>> {
    let tokens = lex(source);
    let mut all = Vec::new();
    let mut from = 0;
    loop {
        let region = find_region(source, &tokens, from).map_err(|f| f.locate(source))?;
        let Some((open, close)) = region else {
            break;
        };
        all.push(
            extract_region(source, &tokens, open, close, budget).map_err(|f| f.locate(source))?,
        );
        from = close + 1;
    }
    if all.is_empty() {
        return Err(Fail::new(Kind::Region, 0, "no `#pragma scop` in the file").locate(source));
    }
    Ok(all)
}

/// The scop of the region between the tokens `open` (`#pragma scop`) and `close`
/// (`#pragma endscop`), with the declarations before it.
fn extract_region(
    source: &str,
    tokens: &[Token],
    open: usize,
    close: usize,
    budget: &mut Budget,
) -> R<Extracted> {
    let decls = decls::scan(source, &tokens[..open]);
    let start = tokens[open].start;
    let end = tokens[close].start;
    let stmts = parser::parse_region(source, &tokens[open + 1..close], &decls, end)?;
    let scop = build::build(source, &decls, &stmts, start, budget)?;
    let line_start = source[..start].rfind('\n').map_or(0, |p| p + 1);
    let dead_after = dead_scalars(source, tokens, open, close, &decls, &scop);
    Ok(Extracted {
        scop,
        region: line_start..tokens[close].end,
        dead_after,
    })
}

/// The scalars of `scop` dead outside the region between tokens `open` and `close`
/// ([`Extracted::dead_after`]).
fn dead_scalars(
    source: &str,
    tokens: &[Token],
    open: usize,
    close: usize,
    decls: &decls::Decls,
    scop: &Scop,
) -> std::collections::BTreeSet<String> {
    let text = |t: &Token| &source[t.start..t.end];
    // The enclosing function's body: from the `{` that opened the outermost block before
    // the region to the `}` that closes it after.
    let mut depth = 0usize;
    let mut body_start = None;
    for (k, t) in tokens[..open].iter().enumerate() {
        match text(t) {
            "{" => {
                if depth == 0 {
                    body_start = Some(k);
                }
                depth += 1;
            }
            "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let mut out = std::collections::BTreeSet::new();
    let Some(body_start) = body_start.filter(|_| depth > 0) else {
        return out;
    };
    let mut body_end = tokens.len();
    for (k, t) in tokens.iter().enumerate().skip(close + 1) {
        match text(t) {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    body_end = k;
                    break;
                }
            }
            _ => {}
        }
    }
    let outside = tokens[body_start..open]
        .iter()
        .chain(tokens.get(close + 1..body_end).unwrap_or_default());
    let mentioned: Vec<(&str, usize)> = outside
        .filter(|t| t.kind == TokenKind::Ident)
        .map(|t| (text(t), t.start))
        .collect();
    for a in scop.arrays.iter().filter(|a| a.extents.is_empty()) {
        if a.local {
            out.insert(a.name.clone());
            continue;
        }
        let Some(v) = decls.vars.get(&a.name) else {
            continue;
        };
        if !v.in_function || v.pointer || !v.extents.is_empty() {
            continue;
        }
        if mentioned
            .iter()
            .all(|(name, at)| *name != a.name || *at == v.at)
        {
            out.insert(a.name.clone());
        }
    }
    out
}

/// The indices of the `#pragma scop` and `#pragma endscop` tokens of the first region
/// whose `#pragma scop` is at token `from` or later; `None` when there is none (an error
/// when a `#pragma endscop` follows without one).
fn find_region(source: &str, tokens: &[Token], from: usize) -> R<Option<(usize, usize)>> {
    let words = |t: &Token| directive_words(&source[t.start..t.end]);
    let is_pragma =
        |t: &Token, what: &str| t.kind == TokenKind::Directive && words(t) == ["pragma", what];
    let rest = tokens.get(from..).unwrap_or_default();
    let Some(open) = rest
        .iter()
        .position(|t| is_pragma(t, "scop"))
        .map(|k| k + from)
    else {
        return match rest.iter().find(|t| is_pragma(t, "endscop")) {
            Some(t) => Err(Fail::new(
                Kind::Region,
                t.start,
                "`#pragma endscop` without a preceding `#pragma scop`",
            )),
            None => Ok(None),
        };
    };
    for (k, t) in tokens.iter().enumerate().skip(open + 1) {
        if t.kind != TokenKind::Directive {
            continue;
        }
        if is_pragma(t, "endscop") {
            return Ok(Some((open, k)));
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

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "void f(int n, double A[100], double B[100]) {\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)\n    A[i] = 0;\n#pragma endscop\n  int m = n;\n  #pragma scop\n  for (i = 0; i < m; i++)\n    B[i] = A[i];\n  #pragma endscop\n}\n";

    #[test]
    fn every_region_is_extracted_in_order() {
        let all = extract_all(TWO).unwrap();
        assert_eq!(all.len(), 2);
        assert!(all[0].region.end <= all[1].region.start);
        assert_eq!(all[0].scop.statements[0].body, "A[i] = 0;");
        assert_eq!(all[1].scop.statements[0].body, "B[i] = A[i];");
        assert_eq!(all[1].scop.statements[0].name, "S0");
        // `m`, declared between the regions, is a parameter of the second.
        assert_eq!(all[1].scop.params, ["m"]);
        assert!(TWO[all[1].region.clone()].starts_with("  #pragma scop"));
        assert_eq!(extract(TWO).unwrap().region, all[0].region);
    }

    #[test]
    fn errors_of_later_regions_have_their_position() {
        let bad = TWO.replace("B[i] = A[i];", "while (1) ;");
        let e = extract_all(&bad).unwrap_err();
        assert_eq!(e.line(), 10);
        assert!(extract(&bad).is_ok(), "extract reads the first region only");
        let stray = format!("{TWO}#pragma endscop\n");
        assert_eq!(extract_all(&stray).unwrap_err().line(), 13);
        assert!(extract_all("int x;\n").is_err());
    }
}
