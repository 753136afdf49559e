//! The errors of the mapping ([`crate::map()`]) and of the checker ([`crate::check()`]).

use std::fmt;

/// Everything that can go wrong when mapping a program or checking a mapped one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// An array or scalar that a kernel must hold cannot be declared on the device.
    UnsupportedArray {
        /// The array's C name.
        name: String,
        /// What is missing (e.g. `unknown element type`, `unknown extent 2`).
        reason: String,
    },
    /// The AST or the program calls a statement the scop does not have.
    UnknownStatement(String),
    /// A statement accesses an array the scop does not declare.
    UnknownArray(String),
    /// The options are outside their documented ranges (block sizes of zero, more than
    /// three block dimensions, more than 1024 threads per block, a zero grid cap).
    InvalidOptions(String),
    /// The AST handed to the mapping is malformed (a loop with a non-positive stride, an
    /// empty minimum or maximum, ...).
    InvalidAst(String),
    /// The checker met a malformed program (a launch of a kernel that does not exist, a
    /// mapping to a dimension above 2, a division by a non-positive number, ...).
    InvalidProgram(String),
    /// The checker met a variable that is neither a parameter, a host iterator nor an
    /// enclosing loop's iterator.
    UnboundVariable(String),
    /// A parameter of the scop has no value in the checker's parameter list.
    MissingParameter(String),
    /// A value computed by the checker does not fit in 64 bits.
    Overflow,
    /// The checker's simulation or enumeration took more steps than its limit.
    StepLimit(u64),
    /// A Presburger operation failed (enumerating a domain or a dependence).
    Presburger(pollen_presburger::Error),
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
            Error::UnsupportedArray { name, reason } => {
                write!(f, "the array {name} cannot live on the device: {reason}")
            }
            Error::UnknownStatement(s) => write!(f, "unknown statement {s}"),
            Error::UnknownArray(a) => write!(f, "access to the undeclared array {a}"),
            Error::InvalidOptions(m) => write!(f, "invalid GPU options: {m}"),
            Error::InvalidAst(m) => write!(f, "invalid loop AST: {m}"),
            Error::InvalidProgram(m) => write!(f, "invalid GPU program: {m}"),
            Error::UnboundVariable(v) => write!(f, "unbound variable {v}"),
            Error::MissingParameter(p) => write!(f, "no value for the parameter {p}"),
            Error::Overflow => write!(f, "a value does not fit in 64 bits"),
            Error::StepLimit(n) => write!(f, "the check needs more than {n} steps"),
            Error::Presburger(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}
