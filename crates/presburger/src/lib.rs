//! Exact parametric integer sets and maps (Presburger arithmetic).
//!
//! The vocabulary follows isl: a [`Space`] names parameters and tuples; a [`BasicMap`]
//! is one conjunction of affine constraints with local (floor-division or existential)
//! variables; a [`Map`] is a finite union of basic maps in one space; [`Set`] and
//! [`BasicSet`] are their set-space newtypes; [`UnionMap`] and [`UnionSet`] hold several
//! spaces at once. Every answer is exact over the integers.

pub mod aff;
pub mod bmap;
pub mod count;
pub mod enumerate;
pub mod error;
pub mod lexmin;
pub mod map;
pub mod ops;
#[cfg(any(test, feature = "fuzzing"))]
pub mod oracle;
pub mod point;
pub mod set;
pub mod solver;
pub mod space;
pub mod text;
pub mod union;

pub use bmap::{BasicMap, DivDef};
pub use count::{
    Extended, Floor, Polynomial, PwPolynomial, PwQPolynomial, QuasiPolynomial, UnionPwQPolynomial,
};
pub use error::{Budget, Error, Result};
pub use map::{Map, MAX_PARTS};
pub use point::Point;
pub use pollen_arith::{Int, Rat};
pub use set::{BasicSet, Set};
pub use space::{DimKind, Space, Tuple, Tuples};
pub use union::{UnionMap, UnionSet};
