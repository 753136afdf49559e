//! Typed errors and the operation budget shared by every algorithm of the library.

use std::fmt;

/// Result type of the library.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in a library call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The operation needed more work than its [`Budget`] allowed.
    LimitExceeded,
    /// Two operands live in incompatible spaces.
    SpaceMismatch {
        /// What the operation was.
        operation: &'static str,
        /// The left operand's space, printed.
        left: String,
        /// The right operand's space, printed.
        right: String,
    },
    /// The text could not be parsed.
    Parse {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What went wrong and what was expected.
        message: String,
    },
    /// The text uses a construct of isl's syntax that the library does not model, such
    /// as rational sets (`rat:`): valid isl, refused at its place.
    UnsupportedSyntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The construct, as the message names it (``rational sets (`rat:`)``).
        construct: String,
    },
    /// The operation does not apply to this input (e.g. summing a polynomial over an
    /// unbounded set).
    Unsupported(String),
    /// An optimum does not exist because the objective is unbounded.
    Unbounded,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::LimitExceeded => write!(f, "resource limit exceeded"),
            Error::SpaceMismatch {
                operation,
                left,
                right,
            } => write!(f, "space mismatch in {operation}: {left} vs {right}"),
            Error::Parse {
                line,
                column,
                message,
            } => write!(f, "{line}:{column}: {message}"),
            Error::UnsupportedSyntax {
                line,
                column,
                construct,
            } => write!(f, "{line}:{column}: unsupported: {construct}"),
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::Unbounded => write!(f, "unbounded optimum"),
        }
    }
}

impl std::error::Error for Error {}

/// A count of elementary steps an operation may still take.
///
/// Algorithms call [`Budget::tick`] in their inner loops; once the budget is spent
/// every further tick fails with [`Error::LimitExceeded`]. [`Budget::unlimited`]
/// never fails.
#[derive(Clone, Debug)]
pub struct Budget {
    remaining: Option<u64>,
}

impl Budget {
    /// A budget that never runs out.
    pub fn unlimited() -> Self {
        Budget { remaining: None }
    }

    /// A budget of `steps` elementary steps.
    pub fn new(steps: u64) -> Self {
        Budget {
            remaining: Some(steps),
        }
    }

    /// Spends `steps`; fails once nothing is left.
    pub fn tick(&mut self, steps: u64) -> Result<()> {
        match &mut self.remaining {
            None => Ok(()),
            Some(left) if *left >= steps => {
                *left -= steps;
                Ok(())
            }
            Some(left) => {
                *left = 0;
                Err(Error::LimitExceeded)
            }
        }
    }

    /// Steps left, `None` when unlimited.
    pub fn remaining(&self) -> Option<u64> {
        self.remaining
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::unlimited()
    }
}
