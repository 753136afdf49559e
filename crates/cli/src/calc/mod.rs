//! `pollen calc`: an iscc-like calculator over integer sets and maps.
//!
//! A script is a sequence of statements, `X := <expr>;` (assignment) or `<expr>;`
//! (print the value on one line). The language is split into a [`lexer`], a
//! [`parser`] and an evaluator ([`eval`]); this module runs a script statement by
//! statement and reports errors as `file:line:column: error: message`.
//!
//! # Invariants
//! - A failing statement never stops the script: its error is reported, the statement
//!   has no effect (an assignment leaves the variable as it was), and the next statement
//!   runs.
//! - Values go to `out`, one line each, in statement order; errors go to `err`.

pub mod eval;
pub mod lexer;
pub mod parser;

use std::io::{self, Write};

use crate::budget::Steps;

/// How a script run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Number of statements that failed.
    pub errors: usize,
    /// Number of those that ran out of their budget.
    pub limits: usize,
}

impl Outcome {
    /// Whether every statement succeeded.
    pub fn success(self) -> bool {
        self.errors == 0
    }
}

/// Runs a script, each statement within a budget of `steps`; `file_name` prefixes error
/// positions.
pub fn run(
    src: &str,
    file_name: &str,
    steps: Steps,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Outcome> {
    let mut env = eval::Env::with_steps(steps);
    let mut errors = 0;
    let mut limits = 0;
    for statement in parser::parse_script(src) {
        let result = match statement {
            Ok(statement) => env.exec(src, &statement),
            Err(e) => Err(eval::EvalError::at(src, e.span.start, e.message)),
        };
        match result {
            Ok(Some(value)) => writeln!(out, "{value}")?,
            Ok(None) => {}
            Err(e) => {
                errors += 1;
                limits += usize::from(e.limit);
                writeln!(
                    err,
                    "{file_name}:{}:{}: error: {}",
                    e.line, e.column, e.message
                )?;
            }
        }
    }
    Ok(Outcome { errors, limits })
}

/// The 1-based line and column (counted in characters) of a byte offset.
pub fn line_column(src: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_script(src: &str) -> (String, String, Outcome) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let outcome =
            run(src, "t.iscc", Steps::default(), &mut out, &mut err).expect("writes succeed");
        let text = |bytes| String::from_utf8(bytes).expect("utf-8");
        (text(out), text(err), outcome)
    }

    #[test]
    fn values_and_errors_go_to_their_streams_in_order() {
        let (out, err, outcome) =
            run_script("A := { [i] : 0 <= i < 3 };\ncard A;\ndom A;\nA := ;\nA = A;\n");
        assert_eq!(out, "3\nTrue\n");
        assert_eq!(
            err,
            "t.iscc:3:1: error: `dom` needs a map, found a set\n\
             t.iscc:4:6: error: expected a set or map literal, a variable or `(`, found `;`\n"
        );
        assert_eq!(
            outcome,
            Outcome {
                errors: 2,
                limits: 0
            }
        );
        assert!(!outcome.success());
    }

    #[test]
    fn an_empty_script_succeeds() {
        let (out, err, outcome) = run_script("# nothing\n\n");
        assert_eq!((out.as_str(), err.as_str()), ("", ""));
        assert!(outcome.success());
    }

    #[test]
    fn line_column_counts_characters() {
        let src = "ab\ncdé f\n";
        assert_eq!(line_column(src, 0), (1, 1));
        assert_eq!(line_column(src, 2), (1, 3));
        assert_eq!(line_column(src, 3), (2, 1));
        assert_eq!(line_column(src, 8), (2, 5));
        assert_eq!(line_column(src, 100), (3, 1));
    }
}
