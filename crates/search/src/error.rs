//! Errors of the interleaving search spaces.

use std::fmt;

/// An error of the search-space construction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A Presburger operation failed (space mismatch, unsupported input, ...).
    Presburger(pollen_presburger::Error),
    /// The Farkas linearisation of a fusion test failed.
    Sched(pollen_sched::Error),
    /// More statements than the encodings handle.
    TooManyStatements {
        /// The number of statements asked for.
        n: usize,
        /// The largest number supported.
        max: usize,
    },
    /// A space of interleavings needs at least one level.
    NoLevel,
    /// A dependence names a statement the scop does not have.
    UnknownStatement(String),
    /// A point has the wrong number of coordinates for its encoding.
    WrongLength {
        /// The number of variables of the encoding.
        expected: usize,
        /// The number of coordinates given.
        got: usize,
    },
    /// A point's `p`, `e` values do not describe a total preorder (at the given level,
    /// counted from 0), or a deeper level does not refine the level above it.
    NotAnInterleaving {
        /// The level, counted from 0.
        level: usize,
    },
    /// A group of statements names an index out of range or one statement twice.
    BadGroup(Vec<usize>),
    /// A fusion structure does not partition the statements `0..n`.
    NotAPartition,
    /// The program model is inconsistent (its schedule cannot be flattened, ...).
    Scop(pollen_scop::Error),
    /// A structure runs the target of a dependence in a class before its source's.
    Backward {
        /// The dependence's source statement.
        source: String,
        /// Its target.
        target: String,
    },
    /// A class of a structure has no fusing row.
    NotFusable {
        /// The statements of the class.
        statements: Vec<String>,
    },
    /// The dependence analysis failed.
    Dependences(String),
    /// The work allowed by the budget was spent.
    LimitExceeded,
}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl From<pollen_presburger::Error> for Error {
    fn from(e: pollen_presburger::Error) -> Error {
        match e {
            pollen_presburger::Error::LimitExceeded => Error::LimitExceeded,
            e => Error::Presburger(e),
        }
    }
}

impl From<pollen_sched::Error> for Error {
    fn from(e: pollen_sched::Error) -> Error {
        match e {
            pollen_sched::Error::LimitExceeded => Error::LimitExceeded,
            e => Error::Sched(e),
        }
    }
}

impl From<pollen_scop::Error> for Error {
    fn from(e: pollen_scop::Error) -> Error {
        Error::Scop(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Presburger(e) => write!(f, "{e}"),
            Error::Sched(e) => write!(f, "{e}"),
            Error::TooManyStatements { n, max } => {
                write!(f, "{n} statements, at most {max} are supported")
            }
            Error::NoLevel => write!(f, "a space of interleavings needs at least one level"),
            Error::UnknownStatement(s) => write!(f, "unknown statement `{s}`"),
            Error::WrongLength { expected, got } => {
                write!(
                    f,
                    "a point of {got} coordinates, the encoding has {expected}"
                )
            }
            Error::NotAnInterleaving { level } => {
                write!(f, "the point is not an interleaving at level {level}")
            }
            Error::BadGroup(g) => write!(f, "not a set of statement indices: {g:?}"),
            Error::NotAPartition => write!(f, "not an ordered partition of the statements"),
            Error::Scop(e) => write!(f, "{e}"),
            Error::Backward { source, target } => {
                write!(f, "a dependence from {source} to {target} runs backwards")
            }
            Error::NotFusable { statements } => {
                write!(f, "{{{}}} cannot be fused", statements.join(" "))
            }
            Error::Dependences(e) => write!(f, "dependence analysis: {e}"),
            Error::LimitExceeded => write!(f, "resource limit exceeded"),
        }
    }
}

impl std::error::Error for Error {}
