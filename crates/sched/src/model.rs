//! The scheduling problem as the schedulers see it: statements, dependence edges with
//! their cached Farkas constraints, and the schedule rows built so far.
//!
//! A schedule row ([`Row`]) gives every statement `S` an affine function
//! `φ_S(i) = c_S·i + c_S0` of its iterators (no parameter coefficients: like Pluto, the
//! schedulers never produce parametric shifts). A *loop* row comes from an ILP solution;
//! a *scalar* row (all iterator coefficients zero) orders groups of statements, it is a
//! cut between strongly connected components.
//!
//! Each dependence edge keeps its *residual*: the pairs `(x, y)` of the relation on which
//! every row so far has `φ_T(y) = φ_S(x)`. A dependence is *satisfied* when its residual
//! is empty (every pair is strictly ordered by some row), which is decided exactly with
//! the library.
//!
//! # Invariants
//! - `Row::coeffs[s]` has `dim(s) + 1` entries: iterator coefficients, then the constant;
//! - every relation is over the scop's parameters, in order, intersected with the
//!   context, and has no empty basic map;
//! - the residual of an edge is a subset of its relation.

use std::rc::Rc;

use pollen_arith::{Int, IntMatrix};
use pollen_deps::{DepKind, Dependence};
use pollen_presburger::solver::System;
use pollen_presburger::{BasicMap, Budget, Map, Set};
use pollen_scop::Scop;

use crate::error::{Error, Result};
use crate::farkas;
use crate::fm::Rows;

/// One statement to schedule.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// The statement's name (its domain's tuple name).
    pub name: String,
    /// The number of iterators.
    pub dim: usize,
    /// The iteration domain.
    pub domain: Set,
}

/// Whether a row is a loop hyperplane or a scalar (cut) dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A hyperplane found by the ILP, member of band `band`.
    Loop {
        /// The band the row belongs to (bands are numbered in order).
        band: usize,
    },
    /// A constant per statement, ordering groups of statements.
    Scalar,
}

/// One schedule dimension for every statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Loop or scalar.
    pub kind: RowKind,
    /// Per statement: iterator coefficients, then the constant.
    pub coeffs: Vec<Vec<Int>>,
}

impl Row {
    /// Whether statement `s` has only a constant on this row.
    pub fn is_constant_for(&self, s: usize) -> bool {
        let c = &self.coeffs[s];
        c[..c.len() - 1].iter().all(Int::is_zero)
    }
}

/// Where the unknowns of an edge's Farkas constraints live (local numbering).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// First coefficient of the source (its iterators, then its constant).
    pub source: usize,
    /// First coefficient of the target (equal to `source` for a self edge).
    pub target: usize,
    /// The required distance `δ` in `φ_T − φ_S ≥ δ`.
    pub delta: usize,
    /// First parameter coefficient `u` of the distance bound `u·N + w`.
    pub u: usize,
    /// The constant `w` of the distance bound.
    pub w: usize,
    /// Number of unknowns.
    pub n: usize,
}

/// A dependence between two statements, with what the schedulers learn about it.
#[derive(Clone, Debug)]
pub struct Edge {
    /// Source statement index.
    pub source: usize,
    /// Target statement index.
    pub target: usize,
    /// Flow, anti or output.
    pub kind: DepKind,
    /// The array through which the statements depend.
    pub array: String,
    /// The relation (simplified, within the context).
    pub relation: Map,
    /// Local numbering of the Farkas unknowns.
    pub layout: Layout,
}

/// The Farkas constraints of (part of) an edge's relation, over its local unknowns.
#[derive(Clone, Debug)]
pub struct Farkas {
    /// `φ_T − φ_S − δ ≥ 0` on every pair.
    pub validity: Rows,
    /// `u·N + w − (φ_T − φ_S) ≥ 0` on every pair, when asked for.
    pub bounding: Option<Rows>,
}

/// The scheduling problem: statements, edges, parameters.
#[derive(Clone, Debug)]
pub struct Model {
    /// The statements, in the scop's order.
    pub stmts: Vec<Stmt>,
    /// The dependence edges.
    pub edges: Vec<Edge>,
    /// The number of parameters.
    pub n_params: usize,
    /// The upper bound on every coefficient variable, if any.
    pub coefficient_bound: Option<Int>,
}

impl Model {
    /// Builds the model of `scop` and its dependences; `bound` is the upper bound on the
    /// coefficient variables, or `None` for Pluto's rule ([`automatic_bound`]).
    pub fn new(
        scop: &Scop,
        deps: &[Dependence],
        bound: Option<i64>,
        budget: &mut Budget,
    ) -> Result<Model> {
        let stmts: Vec<Stmt> = scop
            .statements
            .iter()
            .map(|s| Stmt {
                name: s.name.clone(),
                dim: s.domain.n_dims(),
                domain: s.domain.clone(),
            })
            .collect();
        let n_params = scop.params.len();
        let mut edges = Vec::new();
        for d in deps {
            let index = |name: &str| {
                stmts
                    .iter()
                    .position(|s| s.name == name)
                    .ok_or_else(|| Error::UnknownStatement(name.to_string()))
            };
            let (source, target) = (index(&d.source)?, index(&d.target)?);
            let relation = prepare_relation(
                scop,
                &d.relation,
                &stmts[source].domain,
                &stmts[target].domain,
                budget,
            )?;
            if relation.basic_maps().is_empty() {
                continue;
            }
            let layout = layout_of(&stmts, n_params, source, target);
            edges.push(Edge {
                source,
                target,
                kind: d.kind,
                array: d.array.clone(),
                relation,
                layout,
            });
        }
        let coefficient_bound = match bound {
            Some(b) => Some(Int::from(b)),
            None => automatic_bound(&stmts),
        };
        Ok(Model {
            stmts,
            edges,
            n_params,
            coefficient_bound,
        })
    }

    /// The dependences as scheduled: the relations within the context and the domains.
    pub fn dependences(&self) -> Vec<Dependence> {
        self.edges
            .iter()
            .map(|e| Dependence {
                kind: e.kind,
                array: e.array.clone(),
                source: self.stmts[e.source].name.clone(),
                target: self.stmts[e.target].name.clone(),
                relation: e.relation.clone(),
            })
            .collect()
    }

    /// The Farkas constraints of edge `e` on `relation` (a subset of its relation), the
    /// distance bound included when `bounding` holds.
    pub fn farkas(&self, e: &Edge, relation: &Map, bounding: bool) -> Result<Farkas> {
        edge_farkas(self, e, relation, bounding)
    }

    /// The rank of statement `s`'s iterator coefficients over the loop rows of `rows`.
    pub fn rank(&self, rows: &[Row], s: usize) -> usize {
        let h = self.loop_matrix(rows, s);
        if h.is_empty() {
            0
        } else {
            IntMatrix::from_rows(h).rank()
        }
    }

    /// The iterator coefficients of statement `s` on the loop rows of `rows`.
    pub fn loop_matrix(&self, rows: &[Row], s: usize) -> Vec<Vec<Int>> {
        let d = self.stmts[s].dim;
        rows.iter()
            .filter(|r| matches!(r.kind, RowKind::Loop { .. }))
            .map(|r| r.coeffs[s][..d].to_vec())
            .filter(|r| r.iter().any(|c| !c.is_zero()))
            .collect()
    }

    /// The row `φ_T(y) − φ_S(x)` of edge `e` for `row`, over the columns of the edge
    /// relation's basic map `b` (`[const | params | in | out | divs]`).
    pub fn distance_row(&self, e: &Edge, row: &Row, b: &BasicMap) -> Vec<Int> {
        let mut out = b.zero_row();
        let (ds, dt) = (self.stmts[e.source].dim, self.stmts[e.target].dim);
        let (cs, ct) = (&row.coeffs[e.source], &row.coeffs[e.target]);
        let first_in = 1 + self.n_params;
        for k in 0..ds {
            out[first_in + k] = -&cs[k];
        }
        for k in 0..dt {
            out[first_in + ds + k] = ct[k].clone();
        }
        out[0] = &ct[dt] - &cs[ds];
        out
    }

    /// The distance of edge `e` on `row` when it does not depend on the instances:
    /// both statements constant on the row.
    pub fn constant_distance(&self, e: &Edge, row: &Row) -> Option<Int> {
        if row.is_constant_for(e.source) && row.is_constant_for(e.target) {
            let (ds, dt) = (self.stmts[e.source].dim, self.stmts[e.target].dim);
            Some(&row.coeffs[e.target][dt] - &row.coeffs[e.source][ds])
        } else {
            None
        }
    }

    /// The part of `relation` (a subset of edge `e`'s relation) where `row`'s distance
    /// `φ_T − φ_S` satisfies `constraint` against zero.
    pub fn restrict(
        &self,
        e: &Edge,
        relation: &Map,
        row: &Row,
        constraint: Distance,
    ) -> Result<Map> {
        if let Some(d) = self.constant_distance(e, row) {
            let keep = match constraint {
                Distance::Zero => d.is_zero(),
                Distance::AtLeastOne => d.is_positive(),
                Distance::AtMostMinusOne => d.is_negative(),
            };
            return Ok(if keep {
                relation.clone()
            } else {
                Map::empty(relation.space().clone())
            });
        }
        let mut parts = Vec::new();
        for b in relation.basic_maps() {
            let mut b = b.clone();
            let mut r = self.distance_row(e, row, &b);
            match constraint {
                Distance::Zero => b.add_eq(r),
                Distance::AtLeastOne => {
                    r[0] = &r[0] - &Int::one();
                    b.add_ineq(r);
                }
                Distance::AtMostMinusOne => {
                    let mut n: Vec<Int> = r.iter().map(|c| -c).collect();
                    n[0] = &n[0] - &Int::one();
                    b.add_ineq(n);
                }
            }
            if !b.is_obviously_empty() {
                parts.push(b);
            }
        }
        Ok(Map::from_parts(relation.space().clone(), parts)?)
    }
}

/// What the rows built so far leave of every edge: its residual (the pairs on which
/// every row has distance zero), whether it is satisfied (empty residual), and the
/// Farkas constraints of the residual, recomputed only when the residual shrinks.
#[derive(Clone, Debug)]
pub struct Tracker {
    /// Per edge: the pairs not yet strictly ordered.
    pub residual: Vec<Map>,
    /// Per edge: whether its residual is empty.
    pub satisfied: Vec<bool>,
    /// Per edge: how many times its residual has shrunk.
    version: Vec<usize>,
    /// Per edge: the Farkas constraints of a version of its residual.
    cache: Vec<Option<(usize, Rc<Farkas>)>>,
}

impl Tracker {
    /// Nothing ordered yet.
    pub fn new(model: &Model) -> Tracker {
        let n = model.edges.len();
        Tracker {
            residual: model.edges.iter().map(|e| e.relation.clone()).collect(),
            satisfied: vec![false; n],
            version: vec![0; n],
            cache: vec![None; n],
        }
    }

    /// Whether every edge is satisfied.
    pub fn all_satisfied(&self) -> bool {
        self.satisfied.iter().all(|&s| s)
    }

    /// Takes a new row into account. Every row must have a non-negative distance on
    /// the residuals (a legal row).
    pub fn update(&mut self, model: &Model, row: &Row, budget: &mut Budget) -> Result<()> {
        for (k, e) in model.edges.iter().enumerate() {
            if self.satisfied[k] {
                continue;
            }
            if let Some(d) = model.constant_distance(e, row) {
                if d.is_positive() {
                    self.satisfied[k] = true;
                    self.residual[k] = Map::empty(self.residual[k].space().clone());
                    self.version[k] += 1;
                }
                continue;
            }
            let ahead = model.restrict(e, &self.residual[k], row, Distance::AtLeastOne)?;
            if ahead.is_empty_with(budget)? {
                continue;
            }
            let r = model
                .restrict(e, &self.residual[k], row, Distance::Zero)?
                .remove_empty_parts(budget)?;
            self.satisfied[k] = r.basic_maps().is_empty();
            self.residual[k] = r;
            self.version[k] += 1;
        }
        Ok(())
    }

    /// The Farkas constraints of edge `k`'s residual (with the distance bound when
    /// `bounding` holds).
    pub fn farkas(&mut self, model: &Model, k: usize, bounding: bool) -> Result<Rc<Farkas>> {
        if let Some((v, f)) = &self.cache[k] {
            if *v == self.version[k] && (f.bounding.is_some() || !bounding) {
                return Ok(Rc::clone(f));
            }
        }
        let f = Rc::new(model.farkas(&model.edges[k], &self.residual[k], bounding)?);
        self.cache[k] = Some((self.version[k], Rc::clone(&f)));
        Ok(f)
    }
}

/// A condition on a row's dependence distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distance {
    /// `φ_T − φ_S = 0`.
    Zero,
    /// `φ_T − φ_S ≥ 1`.
    AtLeastOne,
    /// `φ_T − φ_S ≤ −1`.
    AtMostMinusOne,
}

/// Pluto's default bound on the coefficients: the largest constant term of the domains'
/// constraints minus one when that is at least 10 (literal loop bounds), so that shifts
/// and skews proportional to a loop's extent are not explored; no bound otherwise.
pub fn automatic_bound(stmts: &[Stmt]) -> Option<Int> {
    let mut largest = Int::zero();
    for s in stmts {
        for b in s.domain.as_map().basic_maps() {
            for r in b.eqs().iter().chain(b.ineqs()) {
                if r[0] > largest {
                    largest = r[0].clone();
                }
            }
        }
    }
    let bound = largest - Int::one();
    (bound >= Int::from(10)).then_some(bound)
}

/// The relation of a dependence over the scop's parameters, within the context and the
/// statements' domains (`source`, `target`), simplified, without empty parts.
fn prepare_relation(
    scop: &Scop,
    relation: &Map,
    source: &Set,
    target: &Set,
    budget: &mut Budget,
) -> Result<Map> {
    let r = relation.align_params(&scop.params)?;
    let context = scop.context.align_params(&scop.params)?;
    let r = r.intersect_params(context.as_map())?;
    let r = r.intersect_domain(source.as_map())?;
    let r = r.intersect_range(target.as_map())?;
    let r = r.remove_empty_parts(budget)?;
    // Further simplification (equalities, redundant constraints) was measured to cost
    // more than it saves in the Farkas eliminations.
    let r = r.coalesce_with(budget)?;
    Ok(r)
}

/// The local numbering of the unknowns of an edge from `s` to `t`.
fn layout_of(stmts: &[Stmt], n_params: usize, s: usize, t: usize) -> Layout {
    let source = 0;
    let target = if s == t { 0 } else { stmts[s].dim + 1 };
    let after = if s == t {
        stmts[s].dim + 1
    } else {
        stmts[s].dim + stmts[t].dim + 2
    };
    Layout {
        source,
        target,
        delta: after,
        u: after + 1,
        w: after + 1 + n_params,
        n: after + 2 + n_params,
    }
}

/// The validity and (optionally) bounding constraints of edge `e` on `relation`, over
/// the edge's local unknowns.
fn edge_farkas(model: &Model, e: &Edge, relation: &Map, with_bounding: bool) -> Result<Farkas> {
    let l = e.layout;
    let (ds, dt) = (model.stmts[e.source].dim, model.stmts[e.target].dim);
    let p = model.n_params;
    let mut validity = Rows::new(l.n);
    let mut bounding = Rows::new(l.n);
    for b in relation.basic_maps() {
        let sys: System = b.to_system();
        let n_cols = sys.n_vars;
        let zero = || vec![Int::zero(); l.n + 1];
        // Validity: φ_T(y) − φ_S(x) − δ.
        let mut forms = vec![zero(); n_cols];
        let mut bound_forms = vec![zero(); n_cols];
        for (i, f) in bound_forms.iter_mut().enumerate().take(p) {
            f[1 + l.u + i] = Int::one();
        }
        for k in 0..ds {
            forms[p + k][1 + l.source + k] -= &Int::one();
            bound_forms[p + k][1 + l.source + k] += &Int::one();
        }
        for k in 0..dt {
            forms[p + ds + k][1 + l.target + k] += &Int::one();
            bound_forms[p + ds + k][1 + l.target + k] -= &Int::one();
        }
        let mut constant = zero();
        let mut bound_constant = zero();
        constant[1 + l.target + dt] += &Int::one();
        constant[1 + l.source + ds] -= &Int::one();
        constant[1 + l.delta] = Int::from(-1);
        bound_constant[1 + l.target + dt] -= &Int::one();
        bound_constant[1 + l.source + ds] += &Int::one();
        bound_constant[1 + l.w] = Int::one();
        let v = farkas::nonnegative_on(&sys, &forms, &constant, l.n)?;
        validity.eqs.extend(v.eqs);
        validity.ineqs.extend(v.ineqs);
        if with_bounding {
            // The bound is a cost, not a legality condition: it assumes non-negative
            // parameters, so that `u·N` can bound distances that grow with a parameter
            // on which this relation places no lower bound.
            let mut sys = sys.clone();
            for i in 0..p {
                let mut r = vec![Int::zero(); sys.n_vars + 1];
                r[1 + i] = Int::one();
                sys.ineqs.push(r);
            }
            let bd = farkas::nonnegative_on(&sys, &bound_forms, &bound_constant, l.n)?;
            bounding.eqs.extend(bd.eqs);
            bounding.ineqs.extend(bd.ineqs);
        }
    }
    let prune = |rows: Rows| Rows {
        n: rows.n,
        eqs: rows.eqs,
        ineqs: crate::fm::prune(rows.ineqs),
    };
    Ok(Farkas {
        validity: prune(validity),
        bounding: with_bounding.then(|| prune(bounding)),
    })
}
