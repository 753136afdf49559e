//! Exact parametric integer sets and maps (Presburger arithmetic).

pub mod error;
pub mod solver;

pub use error::{Budget, Error, Result};
