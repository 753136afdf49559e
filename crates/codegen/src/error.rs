//! Errors of code generation and of the AST interpreter.

use std::fmt;

/// An error of code generation or interpretation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A Presburger operation failed (space mismatch, unsupported input, ...).
    Presburger(pollen_presburger::Error),
    /// The program model is inconsistent.
    Scop(pollen_scop::Error),
    /// The schedule tree does not fit the scop (no domain root, a band that does not
    /// schedule an active statement, an extension of the wrong arity, ...).
    InvalidTree(String),
    /// A loop would have no lower or no upper bound: the scheduled instances are
    /// unbounded along schedule dimension `dimension`.
    Unbounded {
        /// The schedule dimension (loop depth, counting band members from 0).
        dimension: usize,
    },
    /// A set could not be written with floor divisions only (an existential variable
    /// survived quantifier elimination).
    Existential,
    /// The work allowed by the options' budget was spent.
    LimitExceeded,
    /// The interpreter met a variable that is neither a parameter nor an enclosing
    /// loop's iterator.
    UnboundVariable(String),
    /// The interpreter met a division, modulo or stride that is not positive, or an
    /// empty minimum or maximum.
    InvalidAst(String),
    /// The interpreter ran more steps (loop iterations, tests and statement instances)
    /// than its limit.
    StepLimit(u64),
    /// A value computed by the interpreter does not fit in 64 bits.
    Overflow,
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
            e => Error::Scop(e),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Presburger(e) => write!(f, "{e}"),
            Error::Scop(e) => write!(f, "{e}"),
            Error::InvalidTree(m) => write!(f, "invalid schedule tree: {m}"),
            Error::Unbounded { dimension } => {
                write!(f, "schedule dimension {dimension} is unbounded")
            }
            Error::Existential => write!(
                f,
                "a set could not be expressed with floor divisions (existential variable)"
            ),
            Error::LimitExceeded => write!(f, "code generation exceeded its budget"),
            Error::UnboundVariable(v) => write!(f, "unbound variable {v}"),
            Error::InvalidAst(m) => write!(f, "invalid AST: {m}"),
            Error::StepLimit(n) => write!(f, "interpretation exceeded {n} steps"),
            Error::Overflow => write!(f, "a value does not fit in 64 bits"),
        }
    }
}

impl std::error::Error for Error {}
