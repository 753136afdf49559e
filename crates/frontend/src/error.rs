//! Errors of the C frontend: every error names the construct at fault and carries the
//! 1-based line and column where it starts.

use std::fmt;

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Why a C file could not be turned into a scop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The text of the region is not C the frontend can read (a malformed statement or
    /// expression).
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What was found and what was expected.
        message: String,
    },
    /// A C construct outside the polyhedral model (`while`, `goto`, `return`, pointers,
    /// function-call statements, declarations inside the region, ...).
    Unsupported {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The construct.
        message: String,
    },
    /// A loop bound, condition or subscript that is not quasi-affine in the loop
    /// iterators and the parameters (products of iterators, array elements, variables).
    NonAffine {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The offending expression.
        message: String,
    },
    /// An identifier used in a way its declaration (or the lack of one) does not allow:
    /// an undeclared name used both with and without subscripts or with different
    /// numbers of subscripts, a write to a parameter or a loop iterator, an iterator used
    /// outside its loop, a wrong number of subscripts.
    Name {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The identifier and what is wrong with its use.
        message: String,
    },
    /// A loop whose iterations cannot be described exactly: no increment of its iterator
    /// by a non-zero constant, or a condition that does not bound the iterator
    /// monotonically.
    Loop {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong with the loop.
        message: String,
    },
    /// The `#pragma scop` / `#pragma endscop` region is missing or malformed, or holds a
    /// preprocessor directive.
    Region {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong with the region.
        message: String,
    },
    /// The input exceeds a size limit of the frontend (nesting depth, number of pieces of
    /// a piecewise bound).
    TooComplex {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// Which limit.
        message: String,
    },
    /// A Presburger operation on the extracted sets failed (e.g. its step budget ran out).
    Presburger {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The library's error.
        error: pollen_presburger::Error,
    },
}

impl Error {
    /// The 1-based line where the offending construct starts.
    pub fn line(&self) -> usize {
        self.position().0
    }

    /// The 1-based column (in characters) where the offending construct starts.
    pub fn column(&self) -> usize {
        self.position().1
    }

    /// The message, without the position.
    pub fn message(&self) -> String {
        match self {
            Error::Syntax { message, .. }
            | Error::Unsupported { message, .. }
            | Error::NonAffine { message, .. }
            | Error::Name { message, .. }
            | Error::Loop { message, .. }
            | Error::Region { message, .. }
            | Error::TooComplex { message, .. } => message.clone(),
            Error::Presburger { error, .. } => format!("set operation failed: {error}"),
        }
    }

    fn position(&self) -> (usize, usize) {
        match self {
            Error::Syntax { line, column, .. }
            | Error::Unsupported { line, column, .. }
            | Error::NonAffine { line, column, .. }
            | Error::Name { line, column, .. }
            | Error::Loop { line, column, .. }
            | Error::Region { line, column, .. }
            | Error::TooComplex { line, column, .. }
            | Error::Presburger { line, column, .. } => (*line, *column),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line(), self.column(), self.message())
    }
}

impl std::error::Error for Error {}

/// The kind of an internal failure, before its byte offset becomes a line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Syntax,
    Unsupported,
    NonAffine,
    Name,
    Loop,
    Region,
    TooComplex,
}

/// An error located by byte offset, as the crate's internals produce it.
#[derive(Clone, Debug)]
pub(crate) struct Fail {
    kind: Kind,
    at: usize,
    message: String,
    presburger: Option<pollen_presburger::Error>,
}

/// The internal result type.
pub(crate) type R<T> = std::result::Result<T, Fail>;

impl Fail {
    /// A failure of the given kind at byte offset `at`.
    pub(crate) fn new(kind: Kind, at: usize, message: impl Into<String>) -> Fail {
        Fail {
            kind,
            at,
            message: message.into(),
            presburger: None,
        }
    }

    /// A failed Presburger operation on the sets of the construct at `at`.
    pub(crate) fn presburger(at: usize, error: pollen_presburger::Error) -> Fail {
        Fail {
            kind: Kind::TooComplex,
            at,
            message: String::new(),
            presburger: Some(error),
        }
    }

    /// The public error, with the offset turned into a line and column of `source`.
    pub(crate) fn locate(self, source: &str) -> Error {
        let (line, column) = line_column(source, self.at);
        let message = self.message;
        if let Some(error) = self.presburger {
            return Error::Presburger {
                line,
                column,
                error,
            };
        }
        match self.kind {
            Kind::Syntax => Error::Syntax {
                line,
                column,
                message,
            },
            Kind::Unsupported => Error::Unsupported {
                line,
                column,
                message,
            },
            Kind::NonAffine => Error::NonAffine {
                line,
                column,
                message,
            },
            Kind::Name => Error::Name {
                line,
                column,
                message,
            },
            Kind::Loop => Error::Loop {
                line,
                column,
                message,
            },
            Kind::Region => Error::Region {
                line,
                column,
                message,
            },
            Kind::TooComplex => Error::TooComplex {
                line,
                column,
                message,
            },
        }
    }
}

/// The 1-based line and character column of byte offset `at` (clamped to the text).
pub(crate) fn line_column(source: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}
