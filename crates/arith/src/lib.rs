//! Exact arithmetic for Pollen: the [`Int`] integer with an `i64` fast path that promotes
//! to a big integer on overflow, the normalized rational [`Rat`], gcd helpers, and small
//! dense integer matrices ([`IntMatrix`]) with the Hermite normal form.
//!
//! This crate knows nothing about sets, programs or loops; it is the numeric foundation of
//! `pollen-presburger`.

pub mod int;
pub mod matrix;
pub mod rat;

pub use int::{ext_gcd, gcd, gcd_slice, lcm, Int, ParseIntError};
pub use matrix::IntMatrix;
pub use rat::Rat;
