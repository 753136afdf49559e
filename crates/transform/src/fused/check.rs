//! The independent check of a fused program: same dataflow as the original, and
//! confirmed parallel tile loops.
//!
//! [`check`] compares value-based dataflow. A sink statement `END_A[x]` reading every
//! element that the original writes is appended to both programs, for every array
//! `A` that may be live out, so that the final value of each element is a read like any
//! other. Then for every statement `t` of the fused program, every array `A` and every
//! original statement `S`, the map `{ t[..] -> S[i] }` from `t`'s instances to the
//! original instances whose values they read must be the same when computed
//!
//! - from the fused program: the sources of `t`'s reads of `A` (and of `A`'s scratch
//!   arrays), each mapped to the instance it copies; a write-back's value is that of the
//!   source of its read;
//! - from the original: `t`'s instances mapped to the instances they copy, then to their
//!   sources in the original.
//!
//! Equal maps mean that every read (and every final value) of the fused program receives
//! the value of the same computation as in the original, or no value written inside the
//! region in both; since every copy evaluates its original's text, the results are the
//! same. In addition, no array of the original may be written at an element the
//! original does not write.
//!
//! `confirm_parallel` computes the fused program's own dependences and lets the
//! legality checker confirm every band member flagged coincident; refuted flags are
//! cleared.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use pollen_deps::{analyze_with, Analysis, DepKind, Dependence};
use pollen_presburger::{Budget, Map, Set, Space, Tuple, UnionSet};
use pollen_sched::legality::{self, ViolationKind};
use pollen_scop::{Access, AccessKind, Node, ScheduleTree, Scop, Statement};

use super::Fused;
use crate::error::{Error, Result};

/// What a statement of a fused program computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// It is the original statement of the same name.
    Same,
    /// A copy of `statement` whose first `tile_dims` iterators are tile coordinates.
    Copy {
        /// The original statement.
        statement: String,
        /// The number of tile coordinates before the original iterators.
        tile_dims: usize,
    },
    /// It copies the window `scratch` back into `array`.
    WriteBack {
        /// The original array.
        array: String,
        /// The scratch array read.
        scratch: String,
    },
}

/// The outcome of [`check`]: the differences found, each in words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The differences.
    pub differences: Vec<String>,
}

impl Outcome {
    /// Whether the programs compute the same values.
    pub fn is_equivalent(&self) -> bool {
        self.differences.is_empty()
    }

    /// `Ok` when equivalent, otherwise [`Error::NotEquivalent`].
    pub fn into_result(self) -> Result<()> {
        if self.is_equivalent() {
            Ok(())
        } else {
            Err(Error::NotEquivalent(self.to_string()))
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.differences.join("; "))
    }
}

/// Checks that `fused` computes what `original` computes (see the module
/// documentation). `live_out` names the arrays used after the region (`None`: all).
pub fn check(
    original: &Scop,
    fused: &Fused,
    live_out: Option<&BTreeSet<String>>,
    budget: &mut Budget,
) -> Result<Outcome> {
    let mut outcome = Outcome::default();
    let mut taken: BTreeSet<String> = original.statements.iter().map(|s| s.name.clone()).collect();
    taken.extend(fused.scop.statements.iter().map(|s| s.name.clone()));
    let sinks = sinks(original, live_out, &taken, budget)?;
    let before = analyze_with(&with_sinks(original, &sinks)?, Analysis::ValueBased, budget)
        .map_err(deps_error)?;
    let after = analyze_with(
        &with_sinks(&fused.scop, &sinks)?,
        Analysis::ValueBased,
        budget,
    )
    .map_err(deps_error)?;
    let scratch_of: BTreeMap<&str, &str> = fused
        .scratch
        .iter()
        .map(|s| (s.name.as_str(), s.array.as_str()))
        .collect();
    let array_of = |a: &str| scratch_of.get(a).copied().unwrap_or(a).to_string();
    let origin = |name: &str| -> Origin {
        if sinks.iter().any(|s| s.name == name) {
            return Origin::Same;
        }
        fused.origins.get(name).cloned().unwrap_or(Origin::Same)
    };
    let statement_of = |new: &Scop, name: &str| -> Option<Statement> {
        new.statement(name)
            .cloned()
            .or_else(|| sinks.iter().find(|s| s.name == name).cloned())
    };
    // { new[..] -> original[..] }.
    let to_original = |name: &str| -> Result<Option<(String, Map)>> {
        let Some(s) = statement_of(&fused.scop, name) else {
            return Ok(None);
        };
        Ok(match origin(name) {
            Origin::Same => Some((name.to_string(), s.domain.identity()?)),
            Origin::Copy {
                statement,
                tile_dims,
            } => {
                let Some(o) = original.statement(&statement) else {
                    return Ok(None);
                };
                let m = drop_prefix(&s.domain, tile_dims, o)?;
                Some((statement, m))
            }
            Origin::WriteBack { .. } => None,
        })
    };
    // The value a write-back stores: { W[o, x] -> S[i] }.
    let mut stored: BTreeMap<String, BTreeMap<String, Map>> = BTreeMap::new();
    for d in after.as_slice().iter().filter(|d| d.kind == DepKind::Flow) {
        if !matches!(origin(&d.target), Origin::WriteBack { .. }) {
            continue;
        }
        if let Some((s, m)) = to_original(&d.source)? {
            let v = d.relation.reverse().apply_range(&m)?;
            merge(stored.entry(d.target.clone()).or_default(), s, v)?;
        }
    }
    // Actual: (target, array, source) -> { t -> S[i] }.
    let mut actual: BTreeMap<(String, String, String), Map> = BTreeMap::new();
    for d in after.as_slice().iter().filter(|d| d.kind == DepKind::Flow) {
        if matches!(origin(&d.target), Origin::WriteBack { .. }) {
            continue;
        }
        let array = array_of(&d.array);
        let reverse = d.relation.reverse();
        let sources: Vec<(String, Map)> = match origin(&d.source) {
            Origin::WriteBack { .. } => stored
                .get(&d.source)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default(),
            _ => to_original(&d.source)?.into_iter().collect(),
        };
        for (s, m) in sources {
            let v = reverse.apply_range(&m)?;
            let key = (d.target.clone(), array.clone(), s);
            match actual.remove(&key) {
                Some(old) => actual.insert(key, old.union(&v)?),
                None => actual.insert(key, v),
            };
        }
    }
    // Expected, from the original's flow.
    let mut flows: BTreeMap<String, Vec<&Dependence>> = BTreeMap::new();
    for d in before.as_slice().iter().filter(|d| d.kind == DepKind::Flow) {
        flows.entry(d.target.clone()).or_default().push(d);
    }
    let mut expected: BTreeMap<(String, String, String), Map> = BTreeMap::new();
    let targets: Vec<String> = fused
        .scop
        .statements
        .iter()
        .map(|s| s.name.clone())
        .chain(sinks.iter().map(|s| s.name.clone()))
        .collect();
    for t in &targets {
        let Some((orig, m)) = to_original(t)? else {
            continue;
        };
        for d in flows.get(&orig).into_iter().flatten() {
            let v = m.apply_range(&d.relation.reverse())?;
            let key = (t.clone(), d.array.clone(), d.source.clone());
            match expected.remove(&key) {
                Some(old) => expected.insert(key, old.union(&v)?),
                None => expected.insert(key, v),
            };
        }
    }
    let keys: BTreeSet<&(String, String, String)> = actual.keys().chain(expected.keys()).collect();
    for key in keys {
        let same = match (actual.get(key), expected.get(key)) {
            (Some(a), Some(e)) => a.is_equal_with(e, budget)?,
            (Some(m), None) | (None, Some(m)) => m.is_empty_with(budget)?,
            (None, None) => true,
        };
        if !same {
            outcome.differences.push(format!(
                "{} reads different values of {} from {}",
                key.0, key.1, key.2
            ));
        }
    }
    // No element written that the original does not write.
    for a in &original.arrays {
        let original_writes = written(original, &a.name)?;
        let new_writes = written(&fused.scop, &a.name)?;
        if let (Some(n), o) = (new_writes, original_writes) {
            let inside = match o {
                Some(o) => n.is_subset_with(&o, budget)?,
                None => n.is_empty_with(budget)?,
            };
            if !inside {
                outcome.differences.push(format!(
                    "{} is written at elements the original does not write",
                    a.name
                ));
            }
        }
    }
    Ok(outcome)
}

/// Clears the coincident flags of `fused.tree` that its own dependences refute and
/// stores the tree back into the scop; errors when the tree violates anything else.
pub(crate) fn confirm_parallel(fused: &mut Fused, budget: &mut Budget) -> Result<()> {
    for _ in 0..64 {
        fused.scop.schedule = fused.tree.clone();
        let deps = analyze_with(&fused.scop, Analysis::MemoryBased, budget).map_err(deps_error)?;
        let report = legality::check_with(deps.as_slice(), &fused.tree, budget)?;
        if report.is_legal() {
            for g in &mut fused.groups {
                g.parallel = tile_flags(&fused.tree, &g.output, &fused.origins)
                    .unwrap_or_else(|| g.parallel.clone());
            }
            return Ok(());
        }
        let mut cleared = false;
        for v in &report.violations {
            match &v.kind {
                ViolationKind::Coincident { band, member, .. } => {
                    if let Some(Node::Band(b)) = node_at(&mut fused.tree.root, band) {
                        if b.coincident.get(*member) == Some(&true) {
                            b.coincident[*member] = false;
                            cleared = true;
                        }
                    }
                }
                _ => return Err(Error::Illegal(report)),
            }
        }
        if !cleared {
            return Err(Error::Illegal(report));
        }
    }
    Err(Error::LimitExceeded)
}

/// The coincident flags of the tile band over the copies of `output`.
fn tile_flags(
    tree: &ScheduleTree,
    output: &[String],
    origins: &BTreeMap<String, Origin>,
) -> Option<Vec<bool>> {
    fn walk(node: &Node, wanted: &dyn Fn(&str) -> bool) -> Option<Vec<bool>> {
        match node {
            Node::Band(b) => {
                let covers = b.schedule.maps().any(|m| {
                    m.space()
                        .domain_tuple()
                        .and_then(|t| t.name())
                        .is_some_and(wanted)
                });
                if covers {
                    return Some(b.coincident.clone());
                }
                walk(&b.child, wanted)
            }
            other => other.children().into_iter().find_map(|c| walk(c, wanted)),
        }
    }
    let wanted = |name: &str| matches!(origins.get(name), Some(Origin::Copy { statement, .. }) if output.contains(statement));
    walk(&tree.root, &wanted)
}

/// The node at `path` (child indices from the root).
fn node_at<'a>(node: &'a mut Node, path: &[usize]) -> Option<&'a mut Node> {
    let Some((&first, rest)) = path.split_first() else {
        return Some(node);
    };
    let child: &mut Node = match node {
        Node::Domain { child, .. }
        | Node::Context { child, .. }
        | Node::Filter { child, .. }
        | Node::Mark { child, .. }
        | Node::Extension { child, .. } => (first == 0).then_some(&mut **child)?,
        Node::Band(b) => (first == 0).then_some(&mut *b.child)?,
        Node::Sequence(children) | Node::Set(children) => children.get_mut(first)?,
        Node::Leaf => return None,
    };
    node_at(child, rest)
}

fn deps_error(e: pollen_deps::Error) -> Error {
    match e {
        pollen_deps::Error::LimitExceeded => Error::LimitExceeded,
        e => Error::Dependences(e.to_string()),
    }
}

fn merge(into: &mut BTreeMap<String, Map>, key: String, value: Map) -> Result<()> {
    match into.remove(&key) {
        Some(old) => {
            into.insert(key, old.union(&value)?);
        }
        None => {
            into.insert(key, value);
        }
    }
    Ok(())
}

/// `{ copy[o, i] -> S[i] }` on the copy's domain.
fn drop_prefix(domain: &Set, k: usize, s: &Statement) -> Result<Map> {
    let n = s.iterators.len();
    let id = domain.identity()?;
    let projected = id.project_out(pollen_presburger::DimKind::Out, 0, k)?;
    let range = s
        .domain
        .space()
        .range_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(n));
    let space = Space::map(
        projected.space().param_names().to_vec(),
        projected
            .space()
            .domain_tuple()
            .cloned()
            .unwrap_or_else(|| Tuple::anonymous(k + n)),
        range,
    );
    Ok(projected.with_space(space))
}

/// The elements of `array` that `scop` writes, or `None` when it writes none.
fn written(scop: &Scop, array: &str) -> Result<Option<Set>> {
    let mut out: Option<Map> = None;
    for s in &scop.statements {
        for a in s
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Write && a.array == array)
        {
            let r = a.relation.intersect_domain(s.domain.as_map())?.range();
            out = Some(match out {
                None => r,
                Some(o) => o.union(&r)?,
            });
        }
    }
    Ok(match out {
        Some(m) => Some(Set::from_map(m)?),
        None => None,
    })
}

/// One sink per array the original writes and that may be live out.
fn sinks(
    original: &Scop,
    live_out: Option<&BTreeSet<String>>,
    taken: &BTreeSet<String>,
    budget: &mut Budget,
) -> Result<Vec<Statement>> {
    let mut out = Vec::new();
    for a in &original.arrays {
        if a.local || live_out.is_some_and(|l| !l.contains(&a.name)) {
            continue;
        }
        let Some(elements) = written(original, &a.name)? else {
            continue;
        };
        if elements.is_empty_with(budget)? {
            continue;
        }
        let mut name = format!("END_{}", a.name);
        while taken.contains(&name) {
            name.push('_');
        }
        let n = a.extents.len();
        let space = Space::set(
            original.params.clone(),
            Tuple::with_names(Some(name.clone()), vec![None; n]),
        );
        let domain = Set::from_map(elements.into_map().with_space(space))?;
        let read = domain.identity()?;
        let read_space = Space::map(
            original.params.clone(),
            read.space()
                .domain_tuple()
                .cloned()
                .unwrap_or_else(|| Tuple::anonymous(n)),
            Tuple::with_names(Some(a.name.clone()), vec![None; n]),
        );
        out.push(Statement {
            name,
            domain,
            iterators: (0..n).map(|d| format!("e{d}")).collect(),
            accesses: vec![Access {
                kind: AccessKind::Read,
                array: a.name.clone(),
                relation: read.with_space(read_space),
            }],
            body: String::new(),
        });
    }
    Ok(out)
}

/// `scop` with the sinks appended after everything.
fn with_sinks(scop: &Scop, sinks: &[Statement]) -> Result<Scop> {
    let mut out = scop.clone();
    let Node::Domain { domain, child } = &scop.schedule.root else {
        return Err(Error::Scop(pollen_scop::Error::Invalid(
            "the schedule tree has no domain root".into(),
        )));
    };
    if sinks.is_empty() {
        return Ok(out);
    }
    let mut all = domain.clone();
    let mut ends = UnionSet::empty(scop.params.clone());
    for s in sinks {
        all.add_set(s.domain.clone())?;
        ends.add_set(s.domain.clone())?;
        out.statements.push(s.clone());
    }
    out.schedule = ScheduleTree {
        root: Node::Domain {
            domain: all,
            child: Box::new(Node::Sequence(vec![
                Node::filter(domain.clone(), (**child).clone()),
                Node::filter(ends, Node::Leaf),
            ])),
        },
    };
    Ok(out)
}
