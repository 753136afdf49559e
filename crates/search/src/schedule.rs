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
//! Pluto search within each class) in a later step. The tests run
//! `pollen_sched::legality::check` on every tree built from F¹.
//!
//! # Invariants
//! - every statement of the scop is in exactly one filter, in the structure's order;
//! - a class's band schedules only the class's statements.

use pollen_arith::Int;
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
    let original = scop.schedule.to_union_map()?;
    let mut children = Vec::new();
    for class in structure.classes() {
        let mut node = Node::Band(Band {
            schedule: restricted(scop, &original, class)?,
            permutable: false,
            coincident: vec![false; original_width(&original)],
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
        children.push(Node::filter(domains(scop, class)?, node));
    }
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
