//! Subtraction and complement.

use crate::error::{Error, Result};
use crate::map::Map;

impl Map {
    /// `self ∖ other`.
    pub fn subtract(&self, _other: &Map) -> Result<Map> {
        Err(Error::Unsupported("subtract".into()))
    }
}
