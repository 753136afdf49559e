//! Schedule trees: the execution order of statement instances as a tree of bands,
//! sequences and filters (isl's schedule trees).
//!
//! A [`ScheduleTree`] starts at a [`Node::Domain`] holding every statement instance it
//! orders. Below it, a [`Band`] maps each active instance to a vector of integers (its
//! members); a [`Node::Sequence`] orders its [`Node::Filter`] children one after the other;
//! a [`Node::Set`] leaves their order free; [`Node::Mark`] and [`Node::Context`] annotate;
//! an [`Node::Extension`] adds instances (copies, used by fused tiling) scheduled after its
//! outer band members. [`ScheduleTree::to_union_map`] flattens a tree to one
//! lexicographically ordered schedule map.
//!
//! # Invariants
//! - every band's schedule maps each statement it covers to an anonymous tuple with
//!   `coincident.len()` dimensions;
//! - the children of a sequence or a set are filters.

use pollen_arith::Int;
use pollen_presburger::{DimKind, Map, Set, Space, Tuple, UnionMap, UnionSet};

use crate::{Error, Result, Scop};

/// A schedule tree.
#[derive(Clone, Debug)]
pub struct ScheduleTree {
    /// The root, normally a [`Node::Domain`].
    pub root: Node,
}

/// A node of a schedule tree.
#[derive(Clone, Debug)]
pub enum Node {
    /// The statement instances scheduled by the subtree.
    Domain {
        /// The instances.
        domain: UnionSet,
        /// The subtree.
        child: Box<Node>,
    },
    /// Parameter constraints that hold in the subtree.
    Context {
        /// A parameter set.
        context: Set,
        /// The subtree.
        child: Box<Node>,
    },
    /// A multi-dimensional affine schedule of the active instances.
    Band(Band),
    /// The children (filters) execute one after the other.
    Sequence(Vec<Node>),
    /// The children (filters) execute in any order.
    Set(Vec<Node>),
    /// Restricts the active instances of the subtree.
    Filter {
        /// The instances kept.
        filter: UnionSet,
        /// The subtree.
        child: Box<Node>,
    },
    /// A named annotation.
    Mark {
        /// The mark's name.
        name: String,
        /// The subtree.
        child: Box<Node>,
    },
    /// Adds instances, given as a map from the outer schedule dimensions to instances.
    Extension {
        /// `{ [outer schedule] -> S[i] }`.
        extension: UnionMap,
        /// The subtree.
        child: Box<Node>,
    },
    /// The end of a branch.
    Leaf,
}

/// A band: consecutive schedule dimensions that are tiled, permuted and parallelised
/// together.
#[derive(Clone, Debug)]
pub struct Band {
    /// `{ S[i, j] -> [f1(i, j), ..., fn(i, j)] }` for every statement the band covers.
    pub schedule: UnionMap,
    /// Whether every order of the members is legal (the band can be tiled).
    pub permutable: bool,
    /// Per member: whether it carries no dependence (the member's loop is parallel).
    pub coincident: Vec<bool>,
    /// The subtree.
    pub child: Box<Node>,
}

impl Band {
    /// The number of members (schedule dimensions).
    pub fn n_members(&self) -> usize {
        self.coincident.len()
    }
}

impl Node {
    /// Wraps a node into a filter.
    pub fn filter(filter: UnionSet, child: Node) -> Node {
        Node::Filter {
            filter,
            child: Box::new(child),
        }
    }

    /// The node's children, in order.
    pub fn children(&self) -> Vec<&Node> {
        match self {
            Node::Domain { child, .. }
            | Node::Context { child, .. }
            | Node::Filter { child, .. }
            | Node::Mark { child, .. }
            | Node::Extension { child, .. } => vec![child],
            Node::Band(b) => vec![&b.child],
            Node::Sequence(children) | Node::Set(children) => children.iter().collect(),
            Node::Leaf => Vec::new(),
        }
    }

    /// The kind of the node as a word, as in isl's text form (`band`, `sequence`, ...).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Node::Domain { .. } => "domain",
            Node::Context { .. } => "context",
            Node::Band(_) => "band",
            Node::Sequence(_) => "sequence",
            Node::Set(_) => "set",
            Node::Filter { .. } => "filter",
            Node::Mark { .. } => "mark",
            Node::Extension { .. } => "extension",
            Node::Leaf => "leaf",
        }
    }
}

/// The schedule built so far for one statement: the outer dimensions as a map on the
/// statement's whole space, and the instances still active. Keeping the two apart keeps
/// the domain's constraints (and divs) out of every product, where they would multiply;
/// they meet once, at the leaf.
#[derive(Clone, Debug)]
struct Prefix {
    /// `{ S[i] -> [outer dims] }`, not restricted to the active instances.
    schedule: Map,
    /// The active instances, a set as a map.
    active: Map,
}

impl Prefix {
    fn key(&self) -> String {
        self.active
            .space()
            .range_tuple()
            .map(|t| t.key())
            .unwrap_or_default()
    }

    /// The prefix with `dims` appended to its schedule.
    fn extended(&self, dims: &Map) -> Result<Prefix> {
        Ok(Prefix {
            schedule: self.schedule.flat_range_product(dims)?,
            active: self.active.clone(),
        })
    }

    fn finish(self) -> Result<Map> {
        Ok(self.schedule.intersect_domain(&self.active)?)
    }
}

impl ScheduleTree {
    /// The tree's domain (the instances of its root domain node).
    pub fn domain(&self) -> Option<&UnionSet> {
        match &self.root {
            Node::Domain { domain, .. } => Some(domain),
            _ => None,
        }
    }

    /// The tree as one schedule map `{ S[i] -> [t1, ..., tn] }`: band members and the
    /// positions of sequence children, outermost first, padded with zeros to a common
    /// number of dimensions so that all statements are ordered by one lexicographic order.
    pub fn to_union_map(&self) -> Result<UnionMap> {
        let Node::Domain { domain, child } = &self.root else {
            return Err(Error::Invalid(
                "the schedule tree has no domain root".into(),
            ));
        };
        let mut prefixes = Vec::new();
        for set in domain.sets() {
            prefixes.push(empty_prefix(&set));
        }
        let mut finished = Vec::new();
        flatten(child, prefixes, &mut finished)?;
        let leaves = finished
            .into_iter()
            .map(Prefix::finish)
            .collect::<Result<Vec<Map>>>()?;
        let depth = leaves.iter().map(|m| m.space().n_out()).max().unwrap_or(0);
        let mut all = UnionMap::empty(domain.param_names().to_vec());
        for m in leaves {
            let pad = depth - m.space().n_out();
            let m = if pad == 0 {
                m
            } else {
                let zeros = constant_map(&m.domain(), &vec![0; pad])?;
                m.flat_range_product(&zeros)?
            };
            all.add_map(m)?;
        }
        Ok(all)
    }

    /// Checks the structural invariants, and that the root domain holds the domain of
    /// every statement of `scop`.
    pub fn validate(&self, scop: &Scop) -> Result<()> {
        let Some(domain) = self.domain() else {
            return Err(Error::Invalid(
                "the schedule tree has no domain root".into(),
            ));
        };
        for s in &scop.statements {
            let covered = domain
                .sets()
                .any(|d| d.space().range_tuple().and_then(|t| t.name()) == Some(s.name.as_str()));
            if !covered {
                return Err(Error::Invalid(format!(
                    "the schedule does not cover statement {}",
                    s.name
                )));
            }
        }
        validate_node(&self.root)
    }
}

fn validate_node(node: &Node) -> Result<()> {
    match node {
        Node::Band(b) => {
            for m in b.schedule.maps() {
                if m.space().n_out() != b.n_members() {
                    return Err(Error::Invalid(format!(
                        "a band of {} members schedules {} with {} dimensions",
                        b.n_members(),
                        m.space()
                            .domain_tuple()
                            .map(|t| t.to_string())
                            .unwrap_or_default(),
                        m.space().n_out()
                    )));
                }
            }
        }
        Node::Sequence(children) | Node::Set(children)
            if children.iter().any(|c| !matches!(c, Node::Filter { .. })) =>
        {
            return Err(Error::Invalid(format!(
                "a child of a {} node is not a filter",
                node.kind_name()
            )));
        }
        _ => {}
    }
    node.children().into_iter().try_for_each(validate_node)
}

/// The empty prefix of a set's instances: `{ S[i] -> [] }`, all of them active.
fn empty_prefix(set: &Set) -> Prefix {
    let space = set.space();
    let tuple = space
        .range_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(0));
    let map_space = Space::map(space.param_names().to_vec(), tuple, Tuple::anonymous(0));
    Prefix {
        schedule: Map::universe(map_space),
        active: set.as_map().clone(),
    }
}

/// `{ S[i] -> [c1, ..., cn] }` on the whole space of the set `domain` (as a map).
fn constant_map(domain: &Map, values: &[i64]) -> Result<Map> {
    let space = domain.space();
    let tuple = space
        .range_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(0));
    let map_space = Space::map(
        space.param_names().to_vec(),
        tuple,
        Tuple::anonymous(values.len()),
    );
    let mut m = Map::universe(map_space);
    for (k, v) in values.iter().enumerate() {
        m = m.fix_val(DimKind::Out, k, &Int::from(*v))?;
    }
    Ok(m)
}

fn statement_key(m: &Map) -> String {
    m.space()
        .domain_tuple()
        .map(|t| t.key())
        .unwrap_or_default()
}

/// Restricts each prefix to the instances of `filter`, dropping the statements it
/// excludes. A filter that holds all the active instances leaves them as they are:
/// intersecting two unions multiplies their pieces, so a statement whose domain is a
/// union of k pieces, under a filter of its whole domain at each of d sequences, would
/// otherwise reach k^(d+1) pieces.
fn filter_prefixes(prefixes: &[Prefix], filter: &UnionSet) -> Result<Vec<Prefix>> {
    let mut kept = Vec::new();
    for p in prefixes {
        let key = p.key();
        for f in filter.sets() {
            if f.space().range_tuple().map(|t| t.key()) == Some(key.clone()) {
                let f = f.as_map();
                let active = if f.basic_maps().len() > 1 && p.active.is_subset(f)? {
                    p.active.clone()
                } else {
                    p.active.intersect(f)?
                };
                if !active.is_obviously_empty() {
                    kept.push(Prefix {
                        schedule: p.schedule.clone(),
                        active,
                    });
                }
            }
        }
    }
    Ok(kept)
}

fn flatten(node: &Node, prefixes: Vec<Prefix>, leaves: &mut Vec<Prefix>) -> Result<()> {
    match node {
        Node::Leaf => {
            leaves.extend(prefixes);
            Ok(())
        }
        Node::Domain { child, .. } | Node::Context { child, .. } | Node::Mark { child, .. } => {
            flatten(child, prefixes, leaves)
        }
        Node::Filter { filter, child } => {
            flatten(child, filter_prefixes(&prefixes, filter)?, leaves)
        }
        Node::Band(band) => {
            let mut extended = Vec::new();
            for p in prefixes {
                let key = p.key();
                let Some(members) = band.schedule.maps().find(|m| statement_key(m) == key) else {
                    return Err(Error::Invalid(format!(
                        "a band does not schedule the active statement {key}"
                    )));
                };
                extended.push(p.extended(members)?);
            }
            flatten(&band.child, extended, leaves)
        }
        Node::Sequence(children) | Node::Set(children) => {
            for (position, c) in children.iter().enumerate() {
                let position = i64::try_from(position).expect("fewer than 2^63 children");
                let mut numbered = Vec::new();
                for p in &prefixes {
                    let constant = constant_map(&p.active, &[position])?;
                    numbered.push(p.extended(&constant)?);
                }
                flatten(c, numbered, leaves)?;
            }
            Ok(())
        }
        Node::Extension { extension, child } => {
            let mut all = prefixes;
            let depth = all.first().map(|p| p.schedule.space().n_out());
            for m in extension.maps() {
                if depth.is_some_and(|d| d != m.space().n_in()) {
                    return Err(Error::Invalid(
                        "an extension's domain does not match its outer schedule dimensions".into(),
                    ));
                }
                all.push(Prefix {
                    schedule: m.reverse(),
                    active: m.range(),
                });
            }
            flatten(child, all, leaves)
        }
    }
}
