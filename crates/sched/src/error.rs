//! Errors of the schedulers.

use std::fmt;

/// An error of the schedulers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A Presburger operation failed (space mismatch, unsupported input, ...).
    Presburger(pollen_presburger::Error),
    /// The program model is inconsistent (e.g. a dependence names an unknown statement).
    Scop(pollen_scop::Error),
    /// A dependence refers to a statement the scop does not have.
    UnknownStatement(String),
    /// An injected constraint names an iterator the statement does not have.
    NoSuchIterator {
        /// The statement.
        statement: String,
        /// The iterator position.
        iterator: usize,
    },
    /// An injected constraint at tree depth `depth` names the later dimension `dim`.
    LaterDimension {
        /// The node's depth.
        depth: usize,
        /// The dimension named.
        dim: usize,
    },
    /// The independent legality checker could not run.
    Legality(crate::legality::Error),
    /// The computed schedule failed the independent legality check (a bug of the
    /// scheduler); the report says where.
    Illegal(Box<crate::legality::Report>),
    /// No legal schedule satisfying the dependences was found.
    NoLegalSchedule,
    /// The work allowed by the options' budget was spent.
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

impl From<crate::legality::Error> for Error {
    fn from(e: crate::legality::Error) -> Error {
        match e {
            crate::legality::Error::LimitExceeded => Error::LimitExceeded,
            e => Error::Legality(e),
        }
    }
}

impl From<pollen_scop::Error> for Error {
    fn from(e: pollen_scop::Error) -> Error {
        match e {
            pollen_scop::Error::Presburger(p) => Error::from(p),
            e => Error::Scop(e),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Presburger(e) => write!(f, "{e}"),
            Error::Scop(e) => write!(f, "{e}"),
            Error::UnknownStatement(s) => write!(f, "a dependence names the unknown statement {s}"),
            Error::NoSuchIterator {
                statement,
                iterator,
            } => {
                write!(f, "statement {statement} has no iterator {iterator}")
            }
            Error::LaterDimension { depth, dim } => write!(
                f,
                "a constraint at depth {depth} names the later schedule dimension {dim}"
            ),
            Error::Legality(e) => write!(f, "legality check: {e:?}"),
            Error::Illegal(r) => write!(
                f,
                "the computed schedule violates {} condition(s) of the legality check",
                r.violations.len()
            ),
            Error::NoLegalSchedule => write!(f, "no legal schedule found"),
            Error::LimitExceeded => write!(f, "scheduling exceeded its budget"),
        }
    }
}

impl std::error::Error for Error {}
