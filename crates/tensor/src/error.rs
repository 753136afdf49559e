//! Errors of the tensor front end: every error has a kind, a message and, where the
//! construct at fault has one, its 1-based line and column.

use std::fmt;

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// A 1-based line and column (in characters) of the program text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Pos {
    /// The position at `line`, `column` (both 1-based).
    pub fn new(line: usize, column: usize) -> Pos {
        Pos { line, column }
    }

    /// The line and column of byte offset `at` of `source` (clamped to the text).
    pub fn of_offset(source: &str, at: usize) -> Pos {
        let mut at = at.min(source.len());
        while !source.is_char_boundary(at) {
            at -= 1;
        }
        let before = &source[..at];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |p| p + 1);
        let column = before[line_start..].chars().count() + 1;
        Pos { line, column }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// What is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The text is not a program of the language (a malformed declaration or expression).
    Syntax,
    /// A name that names no tensor, or no parameter where a parameter is expected.
    UnknownName,
    /// A name defined twice, or one that clashes with a keyword, a built-in function or
    /// a name the generated C program uses.
    Redefinition,
    /// A tensor accessed with a number of indices other than its rank.
    Arity,
    /// Shapes that do not fit: an iterator whose extent differs between the tensors it
    /// indexes, an extent that cannot be inferred, a pad of the wrong rank, a rank
    /// outside 1..=5.
    Shape,
    /// A reduction axis used outside its reduction, or a reduction inside a reduction.
    Reduction,
    /// A name used as an iterator that no left-hand side or reduction binds.
    Unbound,
    /// An access that can read outside its tensor, proved by the Presburger library.
    OutOfBounds,
    /// A value outside what the language allows (an integer literal that overflows, a
    /// coefficient overflow, a non-finite constant, a parameter value below 1).
    Value,
    /// The input exceeds a size limit (expression nesting, a set operation's budget).
    Limit,
}

/// Why a tensor program is not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What kind of error.
    pub kind: ErrorKind,
    /// Where the construct at fault starts, when the program came from text (or the
    /// builder was given positions).
    pub pos: Option<Pos>,
    /// What was found and what was expected.
    pub message: String,
}

impl Error {
    /// An error of `kind` at `pos`.
    pub fn new(kind: ErrorKind, pos: Option<Pos>, message: impl Into<String>) -> Error {
        Error {
            kind,
            pos,
            message: message.into(),
        }
    }

    /// The 1-based line, 0 when the error has no position.
    pub fn line(&self) -> usize {
        self.pos.map_or(0, |p| p.line)
    }

    /// The 1-based column, 0 when the error has no position.
    pub fn column(&self) -> usize {
        self.pos.map_or(0, |p| p.column)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(p) => write!(f, "{p}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for Error {}

pub(crate) fn err<T>(kind: ErrorKind, pos: Option<Pos>, message: impl Into<String>) -> Result<T> {
    Err(Error::new(kind, pos, message))
}
