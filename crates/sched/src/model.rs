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
    /// The relation (simplified, within the context).
    pub relation: Map,
    /// Local numbering of the Farkas unknowns.
    pub layout: Layout,
    /// `φ_T − φ_S − δ ≥ 0` on the relation, over the local unknowns (computed lazily).
    pub validity: Option<Rows>,
    /// `u·N + w − (φ_T − φ_S) ≥ 0` on the relation, over the local unknowns (lazily).
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
}

impl Model {
    /// Builds the model of `scop` and its dependences.
    pub fn new(scop: &Scop, deps: &[Dependence], budget: &mut Budget) -> Result<Model> {
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
            let relation = prepare_relation(scop, &d.relation, budget)?;
            if relation.basic_maps().is_empty() {
                continue;
            }
            let layout = layout_of(&stmts, n_params, source, target);
            edges.push(Edge {
                source,
                target,
                kind: d.kind,
                relation,
                layout,
                validity: None,
                bounding: None,
            });
        }
        Ok(Model {
            stmts,
            edges,
            n_params,
        })
    }

    /// Computes the Farkas constraints of every edge that does not have them yet.
    pub fn ensure_farkas(&mut self) -> Result<()> {
        for k in 0..self.edges.len() {
            if self.edges[k].validity.is_none() {
                let (v, b) = edge_farkas(self, &self.edges[k])?;
                self.edges[k].validity = Some(v);
                self.edges[k].bounding = Some(b);
            }
        }
        Ok(())
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

/// The relation of a dependence over the scop's parameters, within the context and the
/// statements' domains, simplified, without empty parts.
fn prepare_relation(scop: &Scop, relation: &Map, budget: &mut Budget) -> Result<Map> {
    let r = relation.align_params(&scop.params)?;
    let context = scop.context.align_params(&scop.params)?;
    let r = r.intersect_params(context.as_map())?;
    let r = r.remove_empty_parts(budget)?;
    let r = r.coalesce_with(budget)?;
    let r = r.detect_equalities_with(budget)?;
    let r = r.remove_redundancies_with(budget)?;
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

/// The validity and bounding constraints of one edge (over its local unknowns).
fn edge_farkas(model: &Model, e: &Edge) -> Result<(Rows, Rows)> {
    let l = e.layout;
    let (ds, dt) = (model.stmts[e.source].dim, model.stmts[e.target].dim);
    let p = model.n_params;
    let mut validity = Rows::new(l.n);
    let mut bounding = Rows::new(l.n);
    for b in e.relation.basic_maps() {
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
        let bd = farkas::nonnegative_on(&sys, &bound_forms, &bound_constant, l.n)?;
        validity.eqs.extend(v.eqs);
        validity.ineqs.extend(v.ineqs);
        bounding.eqs.extend(bd.eqs);
        bounding.ineqs.extend(bd.ineqs);
    }
    Ok((validity, bounding))
}
