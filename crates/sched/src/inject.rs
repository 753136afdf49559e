//! Constraint injection: an ordered tree of extra constraints on the schedule
//! coefficients, tried in priority order with fallbacks (Bastoul et al., "Optimizing GPU
//! deep learning operators with polyhedral scheduling constraint injection", CGO 2022;
//! digest `shared/digests/constraint-injection.md`, §2.3–2.4).
//!
//! A [`ConstraintTree`] holds alternatives for the first schedule dimension; a node at
//! depth `d` holds affine constraints over the coefficients of dimensions `0..=d` of any
//! statements, and its children are the alternatives for dimension `d + 1`, siblings in
//! decreasing priority. *Dimension* counts the hyperplanes the ILP computes (loop rows);
//! the scalar dimensions that order strongly connected components are not counted.
//! Coefficients of earlier dimensions are known when dimension `d` is computed and enter
//! as constants; parameter coefficients are always zero (the scheduler makes no
//! parametric shifts), so a constraint on one is a constraint on zero.
//!
//! The search is a depth-first traversal of the tree, each node being tried on a copy of
//! the scheduler's state (the dependences left, the rows, the band), with this fallback
//! ladder when a node's constraints admit no hyperplane:
//! 1. when every dependence is already satisfied, the progression constraints (non-trivial,
//!    linearly independent rows) are dropped and the node retried;
//! 2. the next sibling is tried (the state restored);
//! 3. once every sibling has failed, the siblings are tried again with the current band
//!    closed early where that drops satisfied dependences from the validity constraints;
//! 4. the search backtracks to the next sibling of an ancestor (rows of deeper dimensions
//!    withdrawn);
//! 5. when the whole tree fails, all strongly connected components of the dependence
//!    graph are separated by a scalar dimension and the tree is tried once more;
//! 6. finally the schedule is computed without influence.
//!
//! The scheduler's own reactions (closing a full band, cutting components when no
//! hyperplane exists at all, switching to lazy progression) happen as without influence:
//! a node is only held responsible when the plain problem has a solution and the
//! constrained one does not. When a leaf's dimension has been found, influence ends and
//! the remaining dimensions are scheduled normally; a leaf after which the schedule
//! cannot be completed counts as failed.

use pollen_arith::Int;
use pollen_presburger::Budget;

use crate::error::{Error, Result};
use crate::fallback::Fallback;
use crate::fm::Rows;
use crate::model::{Model, Row, RowKind};
use crate::pluto::{Advance, Influence, Pluto, State};
use crate::Options;

/// One schedule coefficient: of statement `statement`, schedule dimension `dim`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coefficient {
    /// The statement's name.
    pub statement: String,
    /// The schedule dimension (the `dim`-th hyperplane computed by the ILP).
    pub dim: usize,
    /// Which coefficient of that dimension.
    pub kind: CoefficientKind,
}

/// Which coefficient of a schedule dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoefficientKind {
    /// The coefficient of the statement's `k`-th iterator (outermost is 0).
    Iterator(usize),
    /// The coefficient of the `k`-th parameter (always zero in computed schedules).
    Parameter(usize),
    /// The constant.
    Constant,
}

impl Coefficient {
    /// The coefficient of iterator `k` of `statement` at dimension `dim`.
    pub fn iterator(statement: &str, dim: usize, k: usize) -> Coefficient {
        Coefficient {
            statement: statement.to_string(),
            dim,
            kind: CoefficientKind::Iterator(k),
        }
    }

    /// The constant of `statement` at dimension `dim`.
    pub fn constant(statement: &str, dim: usize) -> Coefficient {
        Coefficient {
            statement: statement.to_string(),
            dim,
            kind: CoefficientKind::Constant,
        }
    }
}

/// `Σ factor·coefficient + constant = 0` (equality) or `≥ 0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InjectedConstraint {
    /// The terms.
    pub terms: Vec<(Coefficient, i64)>,
    /// The constant term.
    pub constant: i64,
    /// Whether the constraint is an equality (otherwise `≥ 0`).
    pub equality: bool,
}

impl InjectedConstraint {
    /// `Σ terms + constant = 0`.
    pub fn eq(terms: Vec<(Coefficient, i64)>, constant: i64) -> InjectedConstraint {
        InjectedConstraint {
            terms,
            constant,
            equality: true,
        }
    }

    /// `Σ terms + constant ≥ 0`.
    pub fn ge(terms: Vec<(Coefficient, i64)>, constant: i64) -> InjectedConstraint {
        InjectedConstraint {
            terms,
            constant,
            equality: false,
        }
    }

    /// `coefficient = value`.
    pub fn fix(coefficient: Coefficient, value: i64) -> InjectedConstraint {
        InjectedConstraint::eq(vec![(coefficient, 1)], -value)
    }
}

/// A node: constraints for its dimension and the alternatives for the next one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstraintNode {
    /// Constraints over the coefficients of this node's dimension and earlier ones.
    pub constraints: Vec<InjectedConstraint>,
    /// Alternatives for the next dimension, highest priority first.
    pub children: Vec<ConstraintNode>,
}

impl ConstraintNode {
    /// A node with constraints and children.
    pub fn new(
        constraints: Vec<InjectedConstraint>,
        children: Vec<ConstraintNode>,
    ) -> ConstraintNode {
        ConstraintNode {
            constraints,
            children,
        }
    }

    /// A leaf.
    pub fn leaf(constraints: Vec<InjectedConstraint>) -> ConstraintNode {
        ConstraintNode::new(constraints, Vec::new())
    }
}

/// The alternatives for the first dimension, highest priority first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstraintTree {
    /// The depth-0 nodes.
    pub roots: Vec<ConstraintNode>,
}

impl ConstraintTree {
    /// A tree with the given depth-0 alternatives.
    pub fn new(roots: Vec<ConstraintNode>) -> ConstraintTree {
        ConstraintTree { roots }
    }

    /// A single chain of nodes, one per dimension.
    pub fn chain(levels: Vec<Vec<InjectedConstraint>>) -> ConstraintTree {
        let mut node: Option<ConstraintNode> = None;
        for constraints in levels.into_iter().rev() {
            node = Some(ConstraintNode::new(constraints, node.into_iter().collect()));
        }
        ConstraintTree {
            roots: node.into_iter().collect(),
        }
    }
}

/// Computes the Pluto rows of `model`, honouring `options.constraints`, and the
/// fallbacks taken; `signed` allows negative iterator coefficients, `original` (the
/// original schedule's rows) lets a stuck search fall back to them.
pub fn schedule_rows(
    model: &Model,
    options: &Options,
    signed: bool,
    original: Option<Vec<Row>>,
    budget: &mut Budget,
) -> Result<(Vec<Row>, Vec<Fallback>)> {
    let mut pluto = Pluto::new(model, options, budget.clone(), signed);
    if let Some(original) = original {
        pluto = pluto.with_original(original);
    }
    let outcome = run(&mut pluto, options);
    *budget = pluto.budget();
    outcome.map(|st| (st.rows, st.fallbacks))
}

fn run(pluto: &mut Pluto<'_>, options: &Options) -> Result<State> {
    let initial = pluto.initial_state()?;
    if let Some(tree) = &options.constraints {
        check_names(pluto.model, tree)?;
        if let Some(st) = search(pluto, &initial, &tree.roots, 0)? {
            return Ok(st);
        }
        let mut split = initial.clone();
        if pluto.cut_all_components(&mut split)? {
            if let Some(st) = search(pluto, &split, &tree.roots, 0)? {
                return Ok(st);
            }
        }
    }
    let mut st = initial;
    pluto.complete(&mut st)?;
    Ok(st)
}

/// Every statement a constraint names exists.
fn check_names(model: &Model, tree: &ConstraintTree) -> Result<()> {
    fn visit(model: &Model, node: &ConstraintNode) -> Result<()> {
        for c in &node.constraints {
            for (coef, _) in &c.terms {
                if !model.stmts.iter().any(|s| s.name == coef.statement) {
                    return Err(Error::UnknownStatement(coef.statement.clone()));
                }
            }
        }
        node.children.iter().try_for_each(|n| visit(model, n))
    }
    tree.roots.iter().try_for_each(|n| visit(model, n))
}

/// The depth-first search over `nodes` (alternatives for dimension `depth`) from `st`:
/// a completed state, or `None` when no alternative works.
fn search(
    pluto: &mut Pluto<'_>,
    st: &State,
    nodes: &[ConstraintNode],
    depth: usize,
) -> Result<Option<State>> {
    for break_band in [false, true] {
        for node in nodes {
            let mut s = st.clone();
            let rows = influence_rows(pluto, &s, node, depth)?;
            let influence = Influence { rows, break_band };
            match pluto.advance(&mut s, Some(&influence)) {
                Ok(Advance::Appended) => {}
                Ok(Advance::Blocked | Advance::Complete) | Err(Error::NoLegalSchedule) => continue,
                Err(e) => return Err(e),
            }
            if node.children.is_empty() {
                match pluto.complete(&mut s) {
                    Ok(()) => return Ok(Some(s)),
                    Err(Error::NoLegalSchedule) => continue,
                    Err(e) => return Err(e),
                }
            }
            if let Some(done) = search(pluto, &s, &node.children, depth + 1)? {
                return Ok(Some(done));
            }
        }
    }
    Ok(None)
}

/// The constraints of `node` over the ILP variables of dimension `depth`, earlier
/// dimensions' coefficients replaced by their values in `st`.
fn influence_rows(
    pluto: &Pluto<'_>,
    st: &State,
    node: &ConstraintNode,
    depth: usize,
) -> Result<Rows> {
    let model = pluto.model;
    let vars = &pluto.vars;
    let loop_rows: Vec<&Row> = st
        .rows
        .iter()
        .filter(|r| matches!(r.kind, RowKind::Loop { .. }))
        .collect();
    let mut rows = Rows::new(vars.n);
    for c in &node.constraints {
        let mut r = vars.zero_row();
        r[0] = Int::from(c.constant);
        for (coef, factor) in &c.terms {
            let s = model
                .stmts
                .iter()
                .position(|x| x.name == coef.statement)
                .ok_or_else(|| Error::UnknownStatement(coef.statement.clone()))?;
            let dim = model.stmts[s].dim;
            let k = match coef.kind {
                CoefficientKind::Iterator(k) if k < dim => k,
                CoefficientKind::Iterator(k) => {
                    return Err(Error::NoSuchIterator {
                        statement: coef.statement.clone(),
                        iterator: k,
                    })
                }
                CoefficientKind::Parameter(_) => continue,
                CoefficientKind::Constant => dim,
            };
            let factor = Int::from(*factor);
            if coef.dim == depth {
                vars.add_coef(&mut r, s, k, &factor);
            } else if coef.dim < depth {
                let value = &loop_rows[coef.dim].coeffs[s][k];
                r[0] += &(&factor * value);
            } else {
                return Err(Error::LaterDimension {
                    depth,
                    dim: coef.dim,
                });
            }
        }
        if c.equality {
            rows.eqs.push(r);
        } else {
            rows.ineqs.push(r);
        }
    }
    Ok(rows)
}
