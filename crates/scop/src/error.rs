//! Errors of the program model: invalid models and malformed text.

use std::fmt;

/// An error of the program model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A Presburger operation failed (space mismatch, resource limit, ...).
    Presburger(pollen_presburger::Error),
    /// The model breaks one of its invariants; the message says which.
    Invalid(String),
    /// The text form could not be parsed.
    Parse {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was wrong.
        message: String,
    },
}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl From<pollen_presburger::Error> for Error {
    fn from(e: pollen_presburger::Error) -> Error {
        Error::Presburger(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Presburger(e) => write!(f, "{e}"),
            Error::Invalid(m) => write!(f, "invalid scop: {m}"),
            Error::Parse {
                line,
                column,
                message,
            } => write!(f, "{line}:{column}: {message}"),
        }
    }
}

impl std::error::Error for Error {}
