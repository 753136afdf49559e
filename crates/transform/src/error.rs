//! Errors of the schedule transformations.

use std::fmt;

use pollen_sched::legality;

/// An error of the transformations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A Presburger operation failed.
    Presburger(pollen_presburger::Error),
    /// The schedule tree could not be read (e.g. it has no domain root).
    Scop(pollen_scop::Error),
    /// The legality checker could not run to completion.
    Check(legality::Error),
    /// A tile size is not positive, or a size list is empty.
    InvalidTileSize {
        /// The offending value (0 for an empty list).
        size: i64,
    },
    /// Two tile sizes multiply beyond `i64` (second-level tiling).
    TileSizeOverflow,
    /// The transformed schedule does not pass the legality checker: the input tree's band
    /// annotations did not hold, or a transformation is wrong. The report lists the
    /// violations.
    Illegal(legality::Report),
    /// The budget ran out.
    LimitExceeded,
    /// A fused program does not compute what the original computes (the differences).
    NotEquivalent(String),
    /// The dependences of a transformed program could not be computed.
    Dependences(String),
    /// The stage graph or the grouping search failed (the message says why).
    Grouping(String),
    /// The schedule tree does not have the shape a transformation expects (the message
    /// says what is missing).
    UnsupportedTree(String),
    /// A tensor's tile does not fit the buffer it is promoted to.
    CapacityExceeded {
        /// The buffer (memory level).
        level: String,
        /// The tensor promoted.
        tensor: String,
        /// The bytes the tile needs (all tiles promoted to the level so far).
        needed: u64,
        /// The bytes the level offers to promotion.
        available: u64,
    },
    /// A memory hierarchy names no level that may hold the operand.
    NoPlacement {
        /// The tensor.
        tensor: String,
        /// The operand's role.
        role: String,
    },
    /// A memory hierarchy is malformed (the message says why).
    InvalidHierarchy(String),
    /// A tile's footprint on a tensor has no box of constant extents.
    UnboundedFootprint {
        /// The tensor.
        tensor: String,
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
            e => Error::Scop(e),
        }
    }
}

impl From<legality::Error> for Error {
    fn from(e: legality::Error) -> Error {
        match e {
            legality::Error::LimitExceeded => Error::LimitExceeded,
            e => Error::Check(e),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Presburger(e) => write!(f, "{e}"),
            Error::Scop(e) => write!(f, "{e}"),
            Error::Check(e) => write!(f, "legality check failed: {e}"),
            Error::InvalidTileSize { size } => {
                write!(f, "invalid tile size {size}: sizes must be positive")
            }
            Error::TileSizeOverflow => write!(f, "tile sizes overflow"),
            Error::Illegal(report) => {
                write!(f, "the transformed schedule is illegal: {report}")
            }
            Error::LimitExceeded => write!(f, "the transformation exceeded its budget"),
            Error::NotEquivalent(d) => {
                write!(f, "the fused program differs from the original: {d}")
            }
            Error::Dependences(e) => write!(f, "dependence analysis failed: {e}"),
            Error::Grouping(e) => write!(f, "grouping failed: {e}"),
            Error::UnsupportedTree(e) => write!(f, "unsupported schedule tree: {e}"),
            Error::CapacityExceeded {
                level,
                tensor,
                needed,
                available,
            } => write!(
                f,
                "the tile of {tensor} does not fit {level}: {needed} bytes needed, {available} available"
            ),
            Error::NoPlacement { tensor, role } => {
                write!(f, "no memory level may hold {tensor} ({role})")
            }
            Error::InvalidHierarchy(e) => write!(f, "invalid memory hierarchy: {e}"),
            Error::UnboundedFootprint { tensor } => {
                write!(f, "the tile's footprint on {tensor} has no constant-size box")
            }
        }
    }
}

impl std::error::Error for Error {}
