//! Errors of the dependence analysis.

use std::fmt;

use crate::DepKind;

/// An error of the dependence analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A Presburger operation failed (space mismatch, unsupported input, ...).
    Presburger(pollen_presburger::Error),
    /// The analysis needed more steps than its budget allowed
    /// ([`crate::analyze_with`]).
    LimitExceeded,
    /// The scop is malformed (its schedule cannot be flattened, ...).
    Scop(pollen_scop::Error),
    /// The original schedule does not order the named statement.
    Unscheduled {
        /// The statement's name.
        statement: String,
    },
    /// A dependence names a statement that is not in the statement list.
    UnknownStatement {
        /// The name.
        name: String,
    },
    /// A dependence relation is not a map from its source statement to its target
    /// statement over the parameters of the other relations.
    Malformed {
        /// The dependence's kind.
        kind: DepKind,
        /// Its array.
        array: String,
        /// Its source statement.
        source: String,
        /// Its target statement.
        target: String,
    },
    /// Two dependences have the same kind, array, source and target.
    Duplicate {
        /// The dependence's kind.
        kind: DepKind,
        /// Its array.
        array: String,
        /// Its source statement.
        source: String,
        /// Its target statement.
        target: String,
    },
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

impl From<pollen_scop::Error> for Error {
    fn from(e: pollen_scop::Error) -> Error {
        match e {
            pollen_scop::Error::Presburger(p) => Error::from(p),
            other => Error::Scop(other),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Presburger(e) => write!(f, "{e}"),
            Error::LimitExceeded => write!(f, "dependence analysis exceeded its budget"),
            Error::Scop(e) => write!(f, "{e}"),
            Error::Unscheduled { statement } => {
                write!(f, "the schedule does not order statement {statement}")
            }
            Error::UnknownStatement { name } => write!(f, "unknown statement {name}"),
            Error::Malformed {
                kind,
                array,
                source,
                target,
            } => write!(
                f,
                "the {kind:?} dependence {source} -> {target} through {array} is not a map \
                 from {source} to {target} over the common parameters"
            ),
            Error::Duplicate {
                kind,
                array,
                source,
                target,
            } => write!(
                f,
                "two {kind:?} dependences {source} -> {target} through {array}"
            ),
        }
    }
}

impl std::error::Error for Error {}
