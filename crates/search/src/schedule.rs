//! A schedule tree that implements an outer fusion structure: the paper's
//! `embedInterleaving` followed by a plain completion.
//!
//! Pouchet et al., POPL 2011, Fig. 4 (§4.4; digest `shared/digests/pouchet-popl11.md`
//! §2.10). The tree is a sequence with one filter per class of the structure, in
//! order (the scalar row `Θ_{2d}` of the paper); under a class of several statements,
//! a one-member band holding their fusing row from [`Problem::fusing_rows`] (the
//! lexicographically smallest one: the first statement's outer coefficients first);
//! then, for every class, the original schedule of its statements as one band.
//!
//! Legality: dependences between classes go forward (the structure is checked against
//! them), dependences inside a class are weakly satisfied by the fusing row, and the
//! original schedule orders what the row leaves equal. No optimisation happens below
//! the outer level: that is the place of the paper's `computeOptimizedSchedule` (a
//! Pluto search within each class that keeps the fused row). [`optimize_outer`] comes
//! close: it schedules every class on its own with `pollen-sched` and keeps the result
//! where the scheduler fuses the class under one outer band. The tests run
//! `pollen_sched::legality::check` on every tree built from F¹.
//!
//! # Invariants
//! - every statement of the scop is in exactly one filter, in the structure's order;
//! - a class's band schedules only the class's statements.

use pollen_arith::Int;
use pollen_deps::{Dependence, Dependences};
use pollen_presburger::text::parse_map;
use pollen_presburger::{Map, UnionMap, UnionSet};
use pollen_scop::{Band, Node, ScheduleTree, Scop};

use crate::error::{Error, Result};
use crate::fusion::{FusionOptions, Problem};
use crate::structure::FusionStructure;

/// The schedule tree of `scop` that runs the classes of `structure` one after the
/// other, each class fused under one outer loop. Fails with [`Error::Backward`] when a
/// dependence goes from a class to an earlier one and with [`Error::NotFusable`] when a
/// class has no fusing row.
pub fn embed_outer(
    scop: &Scop,
    problem: &Problem,
    structure: &FusionStructure,
    options: &FusionOptions,
) -> Result<ScheduleTree> {
    check_structure(scop, problem, structure)?;
    let original = scop.schedule.to_union_map()?;
    let children = structure
        .classes()
        .iter()
        .map(|class| plain_class(scop, problem, &original, class, options))
        .collect::<Result<Vec<Node>>>()?;
    assemble(scop, children)
}

/// A schedule tree for `structure` optimized below the outer level, and which classes
/// the scheduler optimized.
#[derive(Clone, Debug)]
pub struct Optimized {
    /// The schedule tree.
    pub tree: ScheduleTree,
    /// Per class of the structure: whether its subtree is the scheduler's (`true`) or
    /// the plain one of [`embed_outer`] (`false`, when the scheduler did not keep the
    /// class under one outer loop or found no schedule).
    pub optimized: Vec<bool>,
}

/// Like [`embed_outer`], with every class scheduled on its own by `pollen-sched`
/// (`sched` options, on the class's statements and the dependences among them) where
/// the result keeps the class under one outer band; the classes run in the structure's
/// order, so dependences between them need no care. This is the paper's
/// `computeOptimizedSchedule` without its fixed outer row: the scheduler chooses the
/// fused row itself. [`Error::LimitExceeded`] from the scheduler is passed on; any
/// other failure falls back to the plain class subtree.
pub fn optimize_outer(
    scop: &Scop,
    deps: &Dependences,
    problem: &Problem,
    structure: &FusionStructure,
    options: &FusionOptions,
    sched: &pollen_sched::Options,
) -> Result<Optimized> {
    check_structure(scop, problem, structure)?;
    let original = scop.schedule.to_union_map()?;
    let mut children = Vec::new();
    let mut optimized = Vec::new();
    for class in structure.classes() {
        match scheduled_class(scop, deps, class, sched)? {
            Some(node) => {
                children.push(Node::filter(domains(scop, class)?, node));
                optimized.push(true);
            }
            None => {
                children.push(plain_class(scop, problem, &original, class, options)?);
                optimized.push(false);
            }
        }
    }
    Ok(Optimized {
        tree: assemble(scop, children)?,
        optimized,
    })
}

/// The scheduler's subtree for `class` (below its domain and context nodes), when its
/// top is one band over every statement of the class. (Whether the band's first member
/// varies with every statement's iterators is not checked: the scheduler's rows are
/// linearly independent hyperplanes, constant only for a statement whose dimensions
/// are all scheduled already.)
fn scheduled_class(
    scop: &Scop,
    deps: &Dependences,
    class: &[usize],
    sched: &pollen_sched::Options,
) -> Result<Option<Node>> {
    let names: Vec<&str> = class
        .iter()
        .map(|&s| scop.statements[s].name.as_str())
        .collect();
    let mut sub = scop.clone();
    sub.statements = class.iter().map(|&s| scop.statements[s].clone()).collect();
    let inside: Vec<Dependence> = deps
        .iter()
        .filter(|d| names.contains(&d.source.as_str()) && names.contains(&d.target.as_str()))
        .cloned()
        .collect();
    let tree = match pollen_sched::schedule(&sub, &inside, sched) {
        Ok(tree) => tree,
        Err(pollen_sched::Error::LimitExceeded) => return Err(Error::LimitExceeded),
        Err(_) => return Ok(None),
    };
    let mut node = tree.root;
    loop {
        match node {
            Node::Domain { child, .. } | Node::Context { child, .. } => node = *child,
            Node::Band(b) => {
                let covered = b.schedule.maps().count() == class.len() && !b.coincident.is_empty();
                return Ok(covered.then_some(Node::Band(b)));
            }
            _ => return Ok(None),
        }
    }
}

/// Fails unless `structure` is over the problem's statements and every dependence
/// goes from a class to itself or a later one.
fn check_structure(scop: &Scop, problem: &Problem, structure: &FusionStructure) -> Result<()> {
    if structure.names() != problem.names() || scop.statements.len() != problem.n_statements() {
        return Err(Error::NotAPartition);
    }
    let ranks = structure.ranks();
    if let Some(e) = problem
        .edges()
        .iter()
        .find(|e| ranks[e.source] > ranks[e.target])
    {
        return Err(Error::Backward {
            source: problem.names()[e.source].clone(),
            target: problem.names()[e.target].clone(),
        });
    }
    Ok(())
}

/// The filter of `class` over its fusing row (for several statements) and its original
/// schedule.
fn plain_class(
    scop: &Scop,
    problem: &Problem,
    original: &UnionMap,
    class: &[usize],
    options: &FusionOptions,
) -> Result<Node> {
    let mut node = Node::Band(Band {
        schedule: restricted(scop, original, class)?,
        permutable: false,
        coincident: vec![false; original_width(original)],
        child: Box::new(Node::Leaf),
    });
    if class.len() > 1 {
        let Some(rows) = problem.fusing_rows(class, options)? else {
            return Err(Error::NotFusable {
                statements: class.iter().map(|&s| problem.names()[s].clone()).collect(),
            });
        };
        let mut schedule = UnionMap::empty(scop.params.clone());
        for (&s, row) in class.iter().zip(&rows) {
            schedule.add_map(row_map(scop, s, &row.iterators, &row.constant)?)?;
        }
        node = Node::Band(Band {
            schedule,
            permutable: true,
            coincident: vec![false],
            child: Box::new(node),
        });
    }
    Ok(Node::filter(domains(scop, class)?, node))
}

/// The tree running `children` (filters) in sequence.
fn assemble(scop: &Scop, mut children: Vec<Node>) -> Result<ScheduleTree> {
    let body = if children.len() == 1 {
        children.pop().unwrap_or(Node::Leaf)
    } else {
        Node::Sequence(children)
    };
    Ok(ScheduleTree {
        root: Node::Domain {
            domain: scop.domains()?,
            child: Box::new(Node::Context {
                context: scop.context.clone(),
                child: Box::new(body),
            }),
        },
    })
}

/// The number of output dimensions of the flattened original schedule.
fn original_width(original: &UnionMap) -> usize {
    original
        .maps()
        .map(|m| m.space().n_out())
        .max()
        .unwrap_or(0)
}

/// The union of the domains of `class`.
fn domains(scop: &Scop, class: &[usize]) -> Result<UnionSet> {
    let mut out = UnionSet::empty(scop.params.clone());
    for &s in class {
        out.add_set(scop.statements[s].domain.clone())?;
    }
    Ok(out)
}

/// The original schedule of the statements of `class`.
fn restricted(scop: &Scop, original: &UnionMap, class: &[usize]) -> Result<UnionMap> {
    Ok(original.intersect_domain(&domains(scop, class)?)?)
}

/// `{ S[i0, …] -> [θ·i + c] }` for statement `s`.
fn row_map(scop: &Scop, s: usize, iterators: &[Int], constant: &Int) -> Result<Map> {
    let st = &scop.statements[s];
    let vars: Vec<String> = (0..iterators.len()).map(|k| format!("i{k}")).collect();
    let mut terms: Vec<String> = iterators
        .iter()
        .zip(&vars)
        .filter(|(c, _)| !c.is_zero())
        .map(|(c, v)| format!("{c}{v}"))
        .collect();
    terms.push(constant.to_string());
    let text = format!(
        "[{}] -> {{ {}[{}] -> [{}] }}",
        scop.params.join(", "),
        st.name,
        vars.join(", "),
        terms.join(" + ")
    );
    Ok(parse_map(&text)?)
}
