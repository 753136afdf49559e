//! Errors of the GPU emitters.

use std::fmt;
use std::ops::Range;

use pollen_emit_text::ExprError;

/// An error of the GPU emitters: the mapped program, the scop and the source do not fit
/// together, or the program asks for something the emitters cannot print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The region is not a range of character boundaries of the source.
    InvalidRegion(Range<usize>),
    /// The region is not inside a top-level definition (a function), so there is no
    /// place before it for the kernels and the prelude.
    NoEnclosingDefinition,
    /// A kernel body names a statement the scop does not have.
    UnknownStatement(String),
    /// A statement instance gives another number of values than the statement has
    /// iterators.
    ArityMismatch {
        /// The statement.
        statement: String,
        /// Its number of iterators.
        expected: usize,
        /// The number of values given.
        found: usize,
    },
    /// An expression names neither an enclosing loop's iterator, a host iterator passed
    /// to the kernel, nor a parameter; or a kernel receives a host iterator that is no
    /// host loop's.
    UnknownName(String),
    /// A launch or a kernel names an array, or an index, that the program does not have.
    UnknownArray(String),
    /// A launch of a kernel index that the program does not have.
    UnknownKernel(usize),
    /// A division or modulo by a non-positive constant.
    NonPositiveDivisor(String),
    /// A minimum or maximum without operands.
    EmptyMinMax,
    /// A loop stride that is not positive.
    NonPositiveStride(String),
    /// A name (iterator, statement, kernel, array) that is not a C identifier.
    NotAnIdentifier(String),
    /// An array or scalar whose element type is not known (the region uses it without
    /// declaring it): its buffer or argument cannot be declared.
    UnknownElementType(String),
    /// An array with an extent that is not known: its buffer cannot be sized.
    UnknownExtent(String),
    /// An array whose [`ArrayKind`](pollen_gpu::ArrayKind) does not fit its number of
    /// dimensions (a scalar kind for an array, or a buffer of no dimension).
    KindMismatch(String),
    /// A kernel's grid or block has no dimension, more than three, a block size of
    /// zero or more than 1024 threads, or a loop is mapped to a dimension above 2.
    InvalidGeometry(String),
    /// A statement's text cannot be rewritten for a kernel: it cannot be tokenised, or
    /// it uses an array without all its subscripts (a pointer or a row of it).
    UnsupportedStatement {
        /// The statement.
        statement: String,
        /// What is wrong.
        reason: String,
    },
    /// The source already uses a name that the emitted prelude defines.
    ReservedName(String),
    /// Two generated names coincide (a kernel name given twice, say).
    DuplicateName(String),
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
            Error::NoEnclosingDefinition => {
                write!(f, "the region is not inside a function definition")
            }
            Error::UnknownStatement(s) => {
                write!(f, "a kernel executes the unknown statement {s}")
            }
            Error::ArityMismatch {
                statement,
                expected,
                found,
            } => write!(
                f,
                "a kernel gives {found} iterator values to {statement}, which has {expected}"
            ),
            Error::UnknownName(n) => write!(
                f,
                "{n} is neither an enclosing loop's iterator, a host iterator nor a parameter"
            ),
            Error::UnknownArray(a) => write!(f, "the program has no array {a}"),
            Error::UnknownKernel(k) => {
                write!(f, "the host launches kernel {k}, which is not there")
            }
            Error::NonPositiveDivisor(d) => {
                write!(f, "an expression divides by the non-positive constant {d}")
            }
            Error::EmptyMinMax => {
                write!(f, "an expression has a minimum or maximum without operands")
            }
            Error::NonPositiveStride(s) => {
                write!(f, "a loop has the non-positive stride {s}")
            }
            Error::NotAnIdentifier(s) => write!(f, "`{s}` is not a C identifier"),
            Error::UnknownElementType(a) => {
                write!(f, "the element type of {a} is not known")
            }
            Error::UnknownExtent(a) => write!(f, "an extent of {a} is not known"),
            Error::KindMismatch(a) => write!(
                f,
                "the way {a} is passed to the kernels does not fit its number of dimensions"
            ),
            Error::InvalidGeometry(k) => write!(
                f,
                "kernel {k} has an invalid grid, block or mapped dimension"
            ),
            Error::UnsupportedStatement { statement, reason } => {
                write!(
                    f,
                    "statement {statement} cannot be printed in a kernel: {reason}"
                )
            }
            Error::ReservedName(n) => write!(
                f,
                "the source uses {n}, a name that the emitted prelude defines"
            ),
            Error::DuplicateName(n) => write!(f, "the generated name {n} is used twice"),
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
