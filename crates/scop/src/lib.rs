//! The polyhedral program model, as inert data.
//!
//! A [`Scop`] (static control part) is what the frontend extracts from a C loop nest and
//! what every later stage reads: the parameters and their context, the arrays, the
//! statements with their iteration domains and ordered access relations, and the original
//! execution order as a [`ScheduleTree`]. This crate holds no analysis: dependences live in
//! `pollen-deps`, scheduling in `pollen-sched`.
//!
//! # Invariants
//! - every domain, access relation and schedule is over exactly the parameters
//!   [`Scop::params`], in that order;
//! - statement names are distinct and each statement's domain is a set whose tuple is named
//!   after the statement, with one dimension per surrounding loop ([`Statement::iterators`]);
//! - each access relation maps the statement's tuple to a tuple named after the array, with
//!   one output dimension per array dimension (scalars are 0-dimensional arrays);
//! - an array the region declares itself ([`Array::local`]) has every extent known;
//! - the original schedule orders every statement instance of the domains exactly once.

pub mod error;
pub mod marks;
pub mod text;
pub mod tree;

pub use error::{Error, Result};
pub use tree::{Band, Node, ScheduleTree};

use pollen_presburger::{Map, Set, UnionMap, UnionSet};

/// A static control part: a region of affine loops and statements.
#[derive(Clone, Debug)]
pub struct Scop {
    /// The parameters (symbolic constants such as `N` or `_PB_N`), in a fixed order.
    pub params: Vec<String>,
    /// The parameter values for which the region executes at least one statement instance,
    /// a set in the parameter space.
    pub context: Set,
    /// The arrays (and scalars) the statements access, in order of declaration.
    pub arrays: Vec<Array>,
    /// The statements, in textual order.
    pub statements: Vec<Statement>,
    /// The original execution order.
    pub schedule: ScheduleTree,
}

/// An array (or a scalar, with no dimensions) accessed by the region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    /// The C name.
    pub name: String,
    /// The C element type as written, e.g. `double` or `DATA_TYPE`; empty when unknown
    /// (an array or scalar the region uses without declaring it).
    pub element_type: String,
    /// The C text of each dimension's extent, e.g. `["NI", "NJ"]`, one entry per
    /// dimension (empty for scalars); an entry is empty when the extent is unknown (an
    /// undeclared array has `["", ""]`).
    pub extents: Vec<String>,
    /// Whether the region itself declares it (a scalar temporary such as `double t =
    /// A[i] * 2;` inside a loop body, or an array a transformation adds, such as an
    /// expanded scalar): it exists only while the region runs, and code that replaces the
    /// region declares it (with [`Array::element_type`] and its extents) at its start.
    pub local: bool,
}

/// Whether an access reads or writes memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessKind {
    /// The statement reads the element.
    Read,
    /// The statement writes the element.
    Write,
}

/// One memory access of a statement.
#[derive(Clone, Debug)]
pub struct Access {
    /// Read or write.
    pub kind: AccessKind,
    /// The accessed array's name.
    pub array: String,
    /// The access relation `{ S[i, j] -> A[f(i, j)] }`.
    pub relation: Map,
}

/// One statement of the region.
#[derive(Clone, Debug)]
pub struct Statement {
    /// The statement's name (`S0`, `S1`, ...), also its domain's tuple name.
    pub name: String,
    /// The iteration domain `{ S[i, j] : ... }`.
    pub domain: Set,
    /// The C names of the surrounding loop iterators, outermost first.
    pub iterators: Vec<String>,
    /// The accesses in execution order: every read of an instance happens before its
    /// writes.
    pub accesses: Vec<Access>,
    /// The C text of the statement, e.g. `C[i][j] += alpha * A[i][k] * B[k][j];`.
    pub body: String,
}

impl Scop {
    /// The statement with the given name.
    pub fn statement(&self, name: &str) -> Option<&Statement> {
        self.statements.iter().find(|s| s.name == name)
    }

    /// The array with the given name.
    pub fn array(&self, name: &str) -> Option<&Array> {
        self.arrays.iter().find(|a| a.name == name)
    }

    /// The union of all statement domains.
    pub fn domains(&self) -> Result<UnionSet> {
        let mut all = UnionSet::empty(self.params.clone());
        for s in &self.statements {
            all.add_set(s.domain.clone())?;
        }
        Ok(all)
    }

    /// The union of the access relations of the given kind, each restricted to its
    /// statement's domain.
    pub fn accesses(&self, kind: AccessKind) -> Result<UnionMap> {
        let mut all = UnionMap::empty(self.params.clone());
        for s in &self.statements {
            for a in s.accesses.iter().filter(|a| a.kind == kind) {
                all.add_map(a.relation.intersect_domain(s.domain.as_map())?)?;
            }
        }
        Ok(all)
    }

    /// Checks the invariants listed in the crate documentation.
    pub fn validate(&self) -> Result<()> {
        if let Some(a) = self
            .arrays
            .iter()
            .find(|a| a.local && a.extents.iter().any(|e| e.trim().is_empty()))
        {
            return Err(Error::Invalid(format!(
                "the local array {} has an unknown extent",
                a.name
            )));
        }
        for (k, s) in self.statements.iter().enumerate() {
            if self.statements[..k].iter().any(|t| t.name == s.name) {
                return Err(Error::Invalid(format!(
                    "duplicate statement name {}",
                    s.name
                )));
            }
            let space = s.domain.space();
            let tuple = space.range_tuple();
            if tuple.and_then(|t| t.name()) != Some(s.name.as_str()) {
                return Err(Error::Invalid(format!(
                    "the domain of {} is not a set named {}",
                    s.name, s.name
                )));
            }
            if space.param_names() != self.params.as_slice() {
                return Err(Error::Invalid(format!(
                    "the domain of {} is not over the parameters of the scop",
                    s.name
                )));
            }
            if s.domain.n_dims() != s.iterators.len() {
                return Err(Error::Invalid(format!(
                    "the domain of {} has {} dimensions for {} iterators",
                    s.name,
                    s.domain.n_dims(),
                    s.iterators.len()
                )));
            }
            for a in &s.accesses {
                let Some(array) = self.array(&a.array) else {
                    return Err(Error::Invalid(format!(
                        "{} accesses the undeclared array {}",
                        s.name, a.array
                    )));
                };
                let aspace = a.relation.space();
                let ok = aspace.is_map()
                    && aspace.domain_tuple().and_then(|t| t.name()) == Some(s.name.as_str())
                    && aspace.n_in() == s.iterators.len()
                    && aspace.range_tuple().and_then(|t| t.name()) == Some(array.name.as_str())
                    && aspace.n_out() == array.extents.len()
                    && aspace.param_names() == self.params.as_slice();
                if !ok {
                    return Err(Error::Invalid(format!(
                        "an access of {} to {} is not a map from {}[..{}] to {}[..{}] over the scop's parameters",
                        s.name,
                        a.array,
                        s.name,
                        s.iterators.len(),
                        array.name,
                        array.extents.len()
                    )));
                }
            }
        }
        self.schedule.validate(self)
    }
}
