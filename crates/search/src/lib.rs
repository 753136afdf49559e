//! The spaces of statement interleavings (fusion structures) of a scop and their
//! legality pruning: the foundation of an iterative search over fusion structures.
//!
//! Source: L.-N. Pouchet, U. Bondhugula, C. Bastoul, A. Cohen, J. Ramanujam,
//! P. Sadayappan, N. Vasilache, *Loop Transformations: Convexity, Pruning and
//! Optimization*, POPL 2011, §2–§4 (digest `shared/digests/pouchet-popl11.md`).
//!
//! - [`encoding`]: the convex 0/1 encodings O (total preorders, one level) and I
//!   (several levels) as Presburger sets; their points are enumerated and counted by
//!   the library's own integer-point enumeration, and decoded into [`FusionStructure`]s
//!   and [`Interleaving`]s ([`structure`]).
//! - [`decompose`]: the μ/λ decomposition of a schedule row (§4.3).

pub mod decompose;
pub mod encoding;
pub mod error;
pub mod structure;

pub use encoding::{default_names, Encoding, Relation, SpaceStats};
pub use error::{Error, Result};
pub use structure::{lex_precedes, FusionStructure, Interleaving};
