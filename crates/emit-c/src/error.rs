//! Errors of the C emitter.

use std::fmt;
use std::ops::Range;

use pollen_emit_text::ExprError;

/// An error of the C emitter: the AST, the scop and the region do not fit together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The region is not a range of character boundaries of the source.
    InvalidRegion(Range<usize>),
    /// A user node names a statement the scop does not have.
    UnknownStatement(String),
    /// A statement's references to an array cannot be moved into its window (the text
    /// cannot be split into tokens, or the array is used without all its subscripts).
    Relocation {
        /// The statement.
        statement: String,
        /// The array.
        array: String,
    },
    /// A user node gives a statement another number of values than it has iterators.
    ArityMismatch {
        /// The statement.
        statement: String,
        /// Its number of iterators.
        expected: usize,
        /// The number of values given.
        found: usize,
    },
    /// An expression names neither an enclosing loop's iterator nor a parameter.
    UnknownName(String),
    /// A division or modulo by a non-positive constant.
    NonPositiveDivisor(String),
    /// A minimum or maximum without operands.
    EmptyMinMax,
    /// A loop stride that is not positive.
    NonPositiveStride(String),
    /// A loop iterator or a statement name that is not a C identifier.
    NotAnIdentifier(String),
    /// A vector width ([`crate::EmitOptions::vector_bytes`]) that is not a power of two
    /// from 8 to 128 bytes.
    VectorWidth(usize),
}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidRegion(r) => write!(
                f,
                "the region {}..{} is not a range of the source text",
                r.start, r.end
            ),
            Error::UnknownStatement(s) => write!(f, "the AST executes the unknown statement {s}"),
            Error::Relocation { statement, array } => write!(
                f,
                "the references of {statement} to {array} cannot be moved into its window"
            ),
            Error::ArityMismatch {
                statement,
                expected,
                found,
            } => write!(
                f,
                "the AST gives {found} iterator values to {statement}, which has {expected}"
            ),
            Error::UnknownName(n) => write!(
                f,
                "the AST uses {n}, neither an enclosing loop's iterator nor a parameter"
            ),
            Error::NonPositiveDivisor(d) => {
                write!(f, "the AST divides by the non-positive constant {d}")
            }
            Error::EmptyMinMax => write!(f, "the AST has a minimum or maximum without operands"),
            Error::NonPositiveStride(s) => {
                write!(f, "the AST has a loop with the non-positive stride {s}")
            }
            Error::NotAnIdentifier(s) => write!(f, "`{s}` is not a C identifier"),
            Error::VectorWidth(b) => write!(
                f,
                "a vector of {b} bytes: the width must be a power of two from 8 to 128"
            ),
        }
    }
}

impl std::error::Error for Error {}

impl From<ExprError> for Error {
    fn from(e: ExprError) -> Error {
        match e {
            ExprError::UnknownName(n) => Error::UnknownName(n),
            ExprError::NonPositiveDivisor(d) => Error::NonPositiveDivisor(d),
            ExprError::EmptyMinMax => Error::EmptyMinMax,
        }
    }
}
