//! Dependence analysis: which statement instances must stay ordered.
//!
//! A dependence relates a source instance to a later target instance that accesses the same
//! array element, at least one of the two writing it. Flow (read after write), anti (write
//! after read) and output (write after write) dependences are computed exactly as relations
//! between instances ([`analyze()`]); flow dependences also in their value-based form, where
//! each read is paired only with the last write before it. [`DependenceGraph`] is the graph
//! of statements these relations induce, with its strongly connected components.
//!
//! The module `oracle` (feature `oracle`, and tests) recomputes the same pairs for fixed
//! parameter values from an execution trace, sharing no code with [`analyze()`].
//!
//! # Invariants
//! - every relation is over the scop's parameters and relates instances of the domains;
//! - every pair `x -> y` of a relation has `x` strictly before `y` in the original
//!   schedule;
//! - a [`Dependences`] holds at most one relation per kind, array, source and target, none
//!   of them empty, in the order of [`Dependences::iter`].

mod analyze;
pub mod error;
mod graph;
#[cfg(any(test, feature = "oracle"))]
pub mod oracle;

pub use analyze::{analyze, analyze_with};
pub use error::{Error, Result};
pub use graph::{DependenceGraph, Edge};

use pollen_presburger::{Map, UnionMap};

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

impl DepKind {
    /// The three kinds, in their order in [`Dependences`].
    pub const ALL: [DepKind; 3] = [DepKind::Flow, DepKind::Anti, DepKind::Output];
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

/// The dependences of a scop: one relation per kind, array, source and target statement.
///
/// # Invariants
/// - every relation maps the tuple of its source statement to that of its target, over
///   [`Dependences::param_names`];
/// - no two relations share kind, array, source and target; they are ordered by kind
///   (flow, anti, output), then source and target in statement order, then array name.
#[derive(Clone, Debug)]
pub struct Dependences {
    params: Vec<String>,
    statements: Vec<String>,
    analysis: Analysis,
    deps: Vec<Dependence>,
}

impl Dependences {
    /// Dependences from their relations, checked and put in canonical order. `statements`
    /// lists the statement names in scop order; every relation must be a map from its
    /// source statement's tuple to its target's, and no two may share kind, array, source
    /// and target. Relations are aligned to `params`.
    pub fn new(
        params: Vec<String>,
        statements: Vec<String>,
        analysis: Analysis,
        deps: Vec<Dependence>,
    ) -> Result<Dependences> {
        let mut checked = Vec::with_capacity(deps.len());
        for mut d in deps {
            let position = |name: &str| {
                statements
                    .iter()
                    .position(|s| s == name)
                    .ok_or_else(|| Error::UnknownStatement {
                        name: name.to_string(),
                    })
            };
            let (s, t) = (position(&d.source)?, position(&d.target)?);
            let malformed = || Error::Malformed {
                kind: d.kind,
                array: d.array.clone(),
                source: d.source.clone(),
                target: d.target.clone(),
            };
            let space = d.relation.space();
            let names_match = space.is_map()
                && space.domain_tuple().and_then(|t| t.name()) == Some(d.source.as_str())
                && space.range_tuple().and_then(|t| t.name()) == Some(d.target.as_str());
            if !names_match {
                return Err(malformed());
            }
            d.relation = d.relation.align_params(&params).map_err(|_| malformed())?;
            checked.push(((d.kind, s, t, d.array.clone()), d));
        }
        checked.sort_by(|a, b| a.0.cmp(&b.0));
        for w in checked.windows(2) {
            if w[0].0 == w[1].0 {
                let d = &w[1].1;
                return Err(Error::Duplicate {
                    kind: d.kind,
                    array: d.array.clone(),
                    source: d.source.clone(),
                    target: d.target.clone(),
                });
            }
        }
        Ok(Dependences {
            params,
            statements,
            analysis,
            deps: checked.into_iter().map(|(_, d)| d).collect(),
        })
    }

    /// The parameters of every relation.
    pub fn param_names(&self) -> &[String] {
        &self.params
    }

    /// The statement names, in scop order (the nodes of [`Dependences::graph`]).
    pub fn statements(&self) -> &[String] {
        &self.statements
    }

    /// How flow dependences were computed.
    pub fn analysis(&self) -> Analysis {
        self.analysis
    }

    /// The relations, in canonical order.
    pub fn iter(&self) -> std::slice::Iter<'_, Dependence> {
        self.deps.iter()
    }

    /// The relations as a slice, in canonical order.
    pub fn as_slice(&self) -> &[Dependence] {
        &self.deps
    }

    /// Number of relations.
    pub fn len(&self) -> usize {
        self.deps.len()
    }

    /// Whether there is no dependence at all.
    pub fn is_empty(&self) -> bool {
        self.deps.is_empty()
    }

    /// The relations of one kind.
    pub fn of_kind(&self, kind: DepKind) -> impl Iterator<Item = &Dependence> {
        self.deps.iter().filter(move |d| d.kind == kind)
    }

    /// The relations from `source` to `target` (statement names), all kinds and arrays.
    pub fn between<'a>(
        &'a self,
        source: &'a str,
        target: &'a str,
    ) -> impl Iterator<Item = &'a Dependence> + 'a {
        self.deps
            .iter()
            .filter(move |d| d.source == source && d.target == target)
    }

    /// The relation of one kind, array, source and target, if there is one.
    pub fn get(&self, kind: DepKind, array: &str, source: &str, target: &str) -> Option<&Map> {
        self.deps
            .iter()
            .find(|d| {
                d.kind == kind && d.array == array && d.source == source && d.target == target
            })
            .map(|d| &d.relation)
    }

    /// The union of the relations of one kind (all arrays).
    pub fn union(&self, kind: DepKind) -> UnionMap {
        self.union_of(self.of_kind(kind))
    }

    /// The union of all relations, every kind: the pairs any legal schedule must keep in
    /// order.
    pub fn union_all(&self) -> UnionMap {
        self.union_of(self.deps.iter())
    }

    fn union_of<'a>(&self, deps: impl Iterator<Item = &'a Dependence>) -> UnionMap {
        let mut u = UnionMap::empty(self.params.clone());
        for d in deps {
            u.add_map(d.relation.clone())
                .expect("relations share the parameters and have named tuples");
        }
        u
    }

    /// The dependence graph over the statements.
    pub fn graph(&self) -> DependenceGraph {
        DependenceGraph::new(self)
    }
}

impl<'a> IntoIterator for &'a Dependences {
    type Item = &'a Dependence;
    type IntoIter = std::slice::Iter<'a, Dependence>;

    fn into_iter(self) -> Self::IntoIter {
        self.deps.iter()
    }
}
