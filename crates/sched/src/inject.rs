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
//!
//! An [`InjectionReport`] (in [`crate::Outcome::injection`]) gives the path of the leaf
//! that held, or none when the schedule is the plain one, and the rungs taken, in order.
//! [`gpu`] builds trees from a scop's accesses with the paper's cost model (Algorithm 2).

pub mod gpu;

use std::fmt;

use pollen_arith::Int;
use pollen_presburger::Budget;
use pollen_scop::Scop;

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

impl ConstraintTree {
    /// The tree printed with the iterator and parameter names of `scop` (see the
    /// [`Display`](fmt::Display) implementation, which prints positions instead).
    pub fn named<'a>(&'a self, scop: &'a Scop) -> impl fmt::Display + 'a {
        Named { tree: self, scop }
    }
}

struct Named<'a> {
    tree: &'a ConstraintTree,
    scop: &'a Scop,
}

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tree(f, self.tree, Some(self.scop))
    }
}

impl fmt::Display for ConstraintTree {
    /// One line per node, its path (`#0.1`: sibling indices from the roots, 0 the highest
    /// priority), then one line per constraint, e.g. `T[S1,0,1] = 0` (coefficient of the
    /// iterator at position 1 of `S1` at dimension 0; `c` is the constant, `p0` the first
    /// parameter), children indented below.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tree(f, self, None)
    }
}

fn write_tree(
    f: &mut fmt::Formatter<'_>,
    tree: &ConstraintTree,
    scop: Option<&Scop>,
) -> fmt::Result {
    fn node(
        f: &mut fmt::Formatter<'_>,
        n: &ConstraintNode,
        path: &mut Vec<usize>,
        scop: Option<&Scop>,
    ) -> fmt::Result {
        let indent = "  ".repeat(path.len() - 1);
        let kind = if n.children.is_empty() { " (leaf)" } else { "" };
        writeln!(f, "{indent}{}{kind}", Path(path))?;
        for c in &n.constraints {
            writeln!(f, "{indent}  {}", constraint_text(c, scop))?;
        }
        for (k, child) in n.children.iter().enumerate() {
            path.push(k);
            node(f, child, path, scop)?;
            path.pop();
        }
        Ok(())
    }
    if tree.roots.is_empty() {
        return writeln!(f, "(empty tree)");
    }
    for (k, root) in tree.roots.iter().enumerate() {
        node(f, root, &mut vec![k], scop)?;
    }
    Ok(())
}

/// `coef` as `T[S1,0,j]` (names from `scop` when given and known, positions otherwise).
fn coefficient_text(coef: &Coefficient, scop: Option<&Scop>) -> String {
    let stmt = scop.and_then(|s| s.statement(&coef.statement));
    let which = match coef.kind {
        CoefficientKind::Iterator(k) => stmt
            .and_then(|s| s.iterators.get(k).cloned())
            .unwrap_or_else(|| k.to_string()),
        CoefficientKind::Parameter(k) => scop
            .and_then(|s| s.params.get(k).cloned())
            .unwrap_or_else(|| format!("p{k}")),
        CoefficientKind::Constant => "c".to_string(),
    };
    format!("T[{},{},{}]", coef.statement, coef.dim, which)
}

/// `c` as `T[S0,0,i] - T[S1,0,i] = 0`: the terms on the left, the constant on the right.
fn constraint_text(c: &InjectedConstraint, scop: Option<&Scop>) -> String {
    let mut out = String::new();
    for (k, (coef, factor)) in c.terms.iter().enumerate() {
        let magnitude = factor.unsigned_abs();
        let sign = match (k, *factor < 0) {
            (0, false) => "",
            (0, true) => "-",
            (_, false) => " + ",
            (_, true) => " - ",
        };
        out.push_str(sign);
        if magnitude != 1 {
            out.push_str(&format!("{magnitude}*"));
        }
        out.push_str(&coefficient_text(coef, scop));
    }
    if c.terms.is_empty() {
        out.push('0');
    }
    let relation = if c.equality { "=" } else { ">=" };
    let rhs = -i128::from(c.constant);
    format!("{out} {relation} {rhs}")
}

/// What the constraint injection did for a schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InjectionReport {
    /// The path (sibling indices from the roots, `0` the highest priority at each depth)
    /// of the deepest node that held: the leaf whose chain of constraints the schedule
    /// satisfies. `None` when no chain held and the schedule was computed without
    /// influence.
    pub held: Option<Vec<usize>>,
    /// The steps of the fallback ladder taken, in order.
    pub steps: Vec<InjectionStep>,
}

/// A step of the injection's fallback ladder (see the [module](self) documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InjectionStep {
    /// Rung 1: the node at `path` held once the progression constraints were dropped
    /// (every dependence was already satisfied).
    ProgressionDropped {
        /// The node.
        path: Vec<usize>,
    },
    /// Rung 2: the node at `path` admitted no hyperplane (or, for a leaf, no completion
    /// of the schedule); its next sibling, if any, is tried.
    NodeFailed {
        /// The node.
        path: Vec<usize>,
    },
    /// Rung 3: every alternative below `parent` (the empty path: the roots) failed; they
    /// are tried again with the open band closed early where that helps.
    BandBreakingRetry {
        /// The parent of the alternatives.
        parent: Vec<usize>,
    },
    /// The node at `path` held once the open band was closed (rung 3).
    BandBroken {
        /// The node.
        path: Vec<usize>,
    },
    /// Rung 4: no alternative below the node at `from` worked; the search backtracks to
    /// its next sibling (the rows of its dimension and deeper withdrawn).
    Backtracked {
        /// The node whose subtree failed.
        from: Vec<usize>,
    },
    /// Rung 5: the whole tree failed; every strongly connected component was separated
    /// by a scalar dimension and the tree is tried once more.
    ComponentsSplit,
    /// Rung 6: the tree failed altogether; the schedule is computed without influence.
    WithoutInfluence,
}

impl fmt::Display for InjectionStep {
    /// One line for `--explain`, e.g. `node #0.1 failed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InjectionStep::ProgressionDropped { path } => write!(
                f,
                "node {} held without progression constraints",
                Path(path)
            ),
            InjectionStep::NodeFailed { path } => write!(f, "node {} failed", Path(path)),
            InjectionStep::BandBreakingRetry { parent } => {
                write!(
                    f,
                    "alternatives below {} retried, the band closed early",
                    Path(parent)
                )
            }
            InjectionStep::BandBroken { path } => {
                write!(f, "node {} held once the band was closed", Path(path))
            }
            InjectionStep::Backtracked { from } => {
                write!(f, "no alternative below {}: backtracked", Path(from))
            }
            InjectionStep::ComponentsSplit => {
                write!(f, "tree failed: components split, tree retried")
            }
            InjectionStep::WithoutInfluence => {
                write!(f, "tree failed: scheduled without influence")
            }
        }
    }
}

impl fmt::Display for InjectionReport {
    /// The node that held, then one line per step.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.held {
            Some(path) => writeln!(f, "held: {}", Path(path))?,
            None => writeln!(f, "held: none (plain schedule)")?,
        }
        for step in &self.steps {
            writeln!(f, "  {step}")?;
        }
        Ok(())
    }
}

/// A node's path as printed: `#` then the sibling indices joined by dots (`#` alone is
/// the root, above the depth-0 alternatives).
pub(crate) struct Path<'a>(pub(crate) &'a [usize]);

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#")?;
        for (k, i) in self.0.iter().enumerate() {
            if k > 0 {
                write!(f, ".")?;
            }
            write!(f, "{i}")?;
        }
        Ok(())
    }
}

/// Computes the Pluto rows of `model`, honouring `options.constraints`, the fallbacks
/// taken and, when there is a constraint tree, what the injection did; `signed` allows
/// negative iterator coefficients, `original` (the original schedule's rows) lets a
/// stuck search fall back to them.
pub fn schedule_rows(
    model: &Model,
    options: &Options,
    signed: bool,
    original: Option<Vec<Row>>,
    budget: &mut Budget,
) -> Result<(Vec<Row>, Vec<Fallback>, Option<InjectionReport>)> {
    let mut pluto = Pluto::new(model, options, budget.clone(), signed);
    if let Some(original) = original {
        pluto = pluto.with_original(original);
    }
    let outcome = run(&mut pluto, options);
    *budget = pluto.budget();
    outcome.map(|(st, report)| (st.rows, st.fallbacks, report))
}

fn run(pluto: &mut Pluto<'_>, options: &Options) -> Result<(State, Option<InjectionReport>)> {
    let initial = pluto.initial_state()?;
    let mut report = None;
    if let Some(tree) = &options.constraints {
        check_names(pluto.model, tree)?;
        let mut search = Search {
            pluto,
            report: InjectionReport::default(),
        };
        if let Some(st) = search.search(&initial, &tree.roots, &mut Vec::new())? {
            return Ok((st, Some(search.report)));
        }
        let mut split = initial.clone();
        if search.pluto.cut_all_components(&mut split)? {
            search.report.steps.push(InjectionStep::ComponentsSplit);
            if let Some(st) = search.search(&split, &tree.roots, &mut Vec::new())? {
                return Ok((st, Some(search.report)));
            }
        }
        search.report.steps.push(InjectionStep::WithoutInfluence);
        report = Some(search.report);
    }
    let mut st = initial;
    pluto.complete(&mut st)?;
    Ok((st, report))
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

/// The depth-first search, with its report.
struct Search<'p, 'a> {
    pluto: &'p mut Pluto<'a>,
    report: InjectionReport,
}

impl Search<'_, '_> {
    /// The search over `nodes` (the alternatives below the node at `path`, for dimension
    /// `path.len()`) from `st`: a completed state, or `None` when no alternative works.
    /// `path` is left as it was given.
    fn search(
        &mut self,
        st: &State,
        nodes: &[ConstraintNode],
        path: &mut Vec<usize>,
    ) -> Result<Option<State>> {
        let depth = path.len();
        for break_band in [false, true] {
            if break_band && !nodes.is_empty() {
                self.report.steps.push(InjectionStep::BandBreakingRetry {
                    parent: path.clone(),
                });
            }
            for (index, node) in nodes.iter().enumerate() {
                path.push(index);
                let found = self.try_node(st, node, depth, break_band, path);
                path.pop();
                if let Some(done) = found? {
                    return Ok(Some(done));
                }
            }
        }
        Ok(None)
    }

    /// `node` (at `path`, of dimension `depth`) and its subtree from `st`.
    fn try_node(
        &mut self,
        st: &State,
        node: &ConstraintNode,
        depth: usize,
        break_band: bool,
        path: &mut Vec<usize>,
    ) -> Result<Option<State>> {
        let mut s = st.clone();
        let rows = influence_rows(self.pluto, &s, node, depth)?;
        let influence = Influence { rows, break_band };
        let failed = |report: &mut InjectionReport, path: &[usize]| {
            report.steps.push(InjectionStep::NodeFailed {
                path: path.to_vec(),
            });
        };
        match self.pluto.advance(&mut s, Some(&influence)) {
            Ok(Advance::Appended) => {}
            Ok(Advance::Blocked | Advance::Complete) | Err(Error::NoLegalSchedule) => {
                failed(&mut self.report, path);
                return Ok(None);
            }
            Err(e) => return Err(e),
        }
        if s.held.without_progression {
            self.report
                .steps
                .push(InjectionStep::ProgressionDropped { path: path.clone() });
        }
        if s.held.band_broken {
            self.report
                .steps
                .push(InjectionStep::BandBroken { path: path.clone() });
        }
        if node.children.is_empty() {
            return match self.pluto.complete(&mut s) {
                Ok(()) => {
                    self.report.held = Some(path.clone());
                    Ok(Some(s))
                }
                Err(Error::NoLegalSchedule) => {
                    failed(&mut self.report, path);
                    Ok(None)
                }
                Err(e) => Err(e),
            };
        }
        let found = self.search(&s, &node.children, path)?;
        if found.is_none() {
            self.report
                .steps
                .push(InjectionStep::Backtracked { from: path.clone() });
        }
        Ok(found)
    }
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
