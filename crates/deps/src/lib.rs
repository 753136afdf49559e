//! Dependence analysis: which statement instances must stay ordered.
//!
//! A dependence relates a source instance to a later target instance that accesses the same
//! array element, at least one of the two writing it. Flow (read after write), anti (write
//! after read) and output (write after write) dependences are computed exactly as relations
//! between instances; flow dependences also in their value-based form, where each read is
//! paired only with the last write before it.
//!
//! # Invariants
//! - every relation is over the scop's parameters and relates instances of the domains;
//! - every pair `x -> y` of a relation has `x` strictly before `y` in the original
//!   schedule.

use pollen_presburger::Map;

/// The kind of a dependence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepKind {
    /// Read after write: the target reads what the source wrote.
    Flow,
    /// Write after read: the target overwrites what the source read.
    Anti,
    /// Write after write.
    Output,
}

/// How flow dependences are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Analysis {
    /// Each read depends only on the last write of its element before it.
    ValueBased,
    /// Each read depends on every earlier write of its element.
    MemoryBased,
}

/// One dependence relation between two statements through one array.
#[derive(Clone, Debug)]
pub struct Dependence {
    /// Flow, anti or output.
    pub kind: DepKind,
    /// The array through which the statements depend.
    pub array: String,
    /// The source statement's name.
    pub source: String,
    /// The target statement's name.
    pub target: String,
    /// `{ S[i] -> T[j] : ... }`, never empty.
    pub relation: Map,
}
