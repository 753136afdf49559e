//! Feautrier's multidimensional scheduler (Feautrier, "Some efficient solutions to the
//! affine scheduling problem, Part II: multidimensional time", IJPP 1992).
//!
//! Level by level, for the dependences not yet satisfied (their residual pairs, see
//! [`crate::model`]), one variable `e_k ∈ {0, 1}` per dependence with
//! `φ_T − φ_S ≥ e_k` on its residual (Farkas, recomputed on the residual at each level),
//! and the lexicographic minimum of `(Σ (1 − e_k), coefficients)`: as many dependences as
//! possible strongly satisfied, then the smallest coefficients (innermost iterators
//! first, as in Pluto's order). The satisfied pairs leave the residuals; the next level
//! schedules the rest.
//!
//! Termination: a level that satisfies no dependence must instead make progress in rank
//! (a row linearly independent from the earlier ones for at least one statement that is
//! not full rank, Pluto's lazy progression); when that is impossible too, the
//! strongly connected components of the remaining dependences are separated by a scalar
//! row (which satisfies every dependence between components); otherwise the scheduler
//! reports [`Error::NoLegalSchedule`]. Once every dependence is satisfied, statements
//! that are not full rank get independent rows (statements without dependences are
//! scheduled this way). Every row has non-negative coefficients.
//!
//! Consecutive rows form one permutable band when every row of it has a non-negative
//! distance on every pair left unordered before the band (checked exactly).
//!
//! # Invariants
//! Every row weakly satisfies every pair not strictly ordered by earlier rows.

use pollen_arith::Int;
use pollen_presburger::{Budget, Map};

use crate::ddg::Sccs;
use crate::error::{Error, Result};
use crate::farkas;
use crate::fm::Rows;
use crate::ilp;
use crate::model::{Distance, Edge, Model, Row, RowKind};
use crate::progress;
use crate::vars::{embed, Target, Vars};
use crate::Options;

/// Computes Feautrier's rows for `model`.
pub fn schedule_rows(model: &Model, options: &Options, budget: &mut Budget) -> Result<Vec<Row>> {
    let mut residual: Vec<Map> = model.edges.iter().map(|e| e.relation.clone()).collect();
    let mut satisfied = vec![false; model.edges.len()];
    let mut rows: Vec<Row> = Vec::new();
    let max_dim = model.stmts.iter().map(|s| s.dim).max().unwrap_or(0);
    let limit = 4 * (max_dim + 2) * (model.stmts.len() + 2) + model.edges.len();
    for _ in 0..limit {
        let full = (0..model.stmts.len()).all(|s| model.rank(&rows, s) >= model.stmts[s].dim);
        if full && satisfied.iter().all(|&s| s) {
            return assign_bands(model, rows, budget);
        }
        let remaining: Vec<usize> = (0..model.edges.len()).filter(|&k| !satisfied[k]).collect();
        let row = match level(model, options, &rows, &residual, &remaining, budget)? {
            Some(row) => row,
            None => cut(model, &remaining).ok_or(Error::NoLegalSchedule)?,
        };
        for &k in &remaining {
            let r = model.restrict(&model.edges[k], &residual[k], &row, Distance::Zero)?;
            satisfied[k] = r.is_empty_with(budget)?;
            residual[k] = r;
        }
        rows.push(row);
    }
    Err(Error::NoLegalSchedule)
}

/// One level: the row satisfying the most remaining dependences, or, if none can be
/// satisfied, a row progressing in rank; `None` when neither exists.
fn level(
    model: &Model,
    options: &Options,
    rows: &[Row],
    residual: &[Map],
    remaining: &[usize],
    budget: &mut Budget,
) -> Result<Option<Row>> {
    let dims: Vec<usize> = model.stmts.iter().map(|s| s.dim).collect();
    let m = remaining.len();
    let vars = Vars::new(&dims, 1, m);
    let mut base = Rows::new(vars.n);
    for (j, &k) in remaining.iter().enumerate() {
        let e = &model.edges[k];
        let local = residual_validity(model, e, &residual[k])?;
        let targets = crate::vars::edge_targets(
            &vars,
            e,
            Target::Var(vars.suffix_start + j),
            &|_| Target::Value(Int::zero()),
            Target::Value(Int::zero()),
        );
        embed(&local, &targets, &mut base);
    }
    // z = Σ (1 − e_k), e_k ≤ 1.
    let mut z = vars.zero_row();
    z[1] = Int::one();
    for j in 0..m {
        z[1 + vars.suffix_start + j] = Int::one();
        let mut at_most_one = vars.zero_row();
        at_most_one[0] = Int::one();
        at_most_one[1 + vars.suffix_start + j] = Int::from(-1);
        base.ineqs.push(at_most_one);
    }
    z[0] = Int::from(-(m as i64));
    base.eqs.push(z);
    if let Some(bound) = options.coefficient_bound {
        for v in 1..vars.suffix_start {
            let mut r = vars.zero_row();
            r[0] = Int::from(bound);
            r[1 + v] = Int::from(-1);
            base.ineqs.push(r);
        }
    }
    let kind = RowKind::Loop { band: rows.len() };
    if m > 0 {
        if let Some(sol) = ilp::lexmin(&base, budget)? {
            if sol[0] < Int::from(m as i64) {
                return Ok(Some(vars.row_of(&sol, kind)));
            }
        }
    }
    // No dependence can be satisfied: progress in rank on some statement.
    let not_full: Vec<usize> = (0..model.stmts.len())
        .filter(|&s| model.rank(rows, s) < model.stmts[s].dim)
        .collect();
    if not_full.is_empty() {
        return Ok(None);
    }
    let nontrivial: Vec<Vec<Int>> = not_full.iter().map(|&s| vars.nontrivial_row(s)).collect();
    base.ineqs.push(progress::sum_rows(&nontrivial, 1));
    let mut independence = Vec::new();
    for &s in &not_full {
        independence.push(progress::independence_row(
            model, &vars, rows, s, &base, budget,
        )?);
    }
    base.ineqs.push(progress::sum_rows(&independence, 1));
    Ok(ilp::lexmin(&base, budget)?.map(|sol| vars.row_of(&sol, kind)))
}

/// `φ_T − φ_S − δ ≥ 0` on the residual of edge `e`, over the edge's local unknowns.
fn residual_validity(model: &Model, e: &Edge, residual: &Map) -> Result<Rows> {
    let l = e.layout;
    let (ds, dt) = (model.stmts[e.source].dim, model.stmts[e.target].dim);
    let p = model.n_params;
    let mut out = Rows::new(l.n);
    for b in residual.basic_maps() {
        let sys = b.to_system();
        let zero = || vec![Int::zero(); l.n + 1];
        let mut forms = vec![zero(); sys.n_vars];
        for k in 0..ds {
            forms[p + k][1 + l.source + k] -= &Int::one();
        }
        for k in 0..dt {
            forms[p + ds + k][1 + l.target + k] += &Int::one();
        }
        let mut constant = zero();
        constant[1 + l.target + dt] += &Int::one();
        constant[1 + l.source + ds] -= &Int::one();
        constant[1 + l.delta] = Int::from(-1);
        let v = farkas::nonnegative_on(&sys, &forms, &constant, l.n)?;
        out.eqs.extend(v.eqs);
        out.ineqs.extend(v.ineqs);
    }
    Ok(out)
}

/// A scalar row separating the components of the remaining dependences, if there is
/// more than one component with a dependence between them.
fn cut(model: &Model, remaining: &[usize]) -> Option<Row> {
    let pairs: Vec<(usize, usize)> = remaining
        .iter()
        .map(|&k| (model.edges[k].source, model.edges[k].target))
        .collect();
    let sccs = Sccs::new(model.stmts.len(), &pairs);
    let crosses = pairs.iter().any(|&(a, b)| sccs.scc_of[a] != sccs.scc_of[b]);
    if !crosses {
        return None;
    }
    let coeffs = model
        .stmts
        .iter()
        .enumerate()
        .map(|(s, stmt)| {
            let mut c = vec![Int::zero(); stmt.dim + 1];
            c[stmt.dim] = Int::from(sccs.scc_of[s] as u64);
            c
        })
        .collect();
    Some(Row {
        kind: RowKind::Scalar,
        coeffs,
    })
}

/// Groups consecutive loop rows into permutable bands (exact check).
fn assign_bands(model: &Model, mut rows: Vec<Row>, budget: &mut Budget) -> Result<Vec<Row>> {
    let mut residual: Vec<Map> = model.edges.iter().map(|e| e.relation.clone()).collect();
    let mut band_start: Vec<Map> = residual.clone();
    let mut band: Option<usize> = None;
    for (r, slot) in rows.iter_mut().enumerate() {
        let row = slot.clone();
        match row.kind {
            RowKind::Scalar => band = None,
            RowKind::Loop { .. } => {
                let joins = match band {
                    None => false,
                    Some(_) => weakly_satisfies(model, &band_start, &row, budget)?,
                };
                if !joins {
                    band = Some(r);
                    band_start = residual.clone();
                }
                slot.kind = RowKind::Loop {
                    band: band.expect("a band is open"),
                };
            }
        }
        for (k, e) in model.edges.iter().enumerate() {
            if !residual[k].basic_maps().is_empty() {
                residual[k] = model
                    .restrict(e, &residual[k], &row, Distance::Zero)?
                    .remove_empty_parts(budget)?;
            }
        }
    }
    Ok(rows)
}

/// Whether `row` has a non-negative distance on every pair of `relations`.
fn weakly_satisfies(
    model: &Model,
    relations: &[Map],
    row: &Row,
    budget: &mut Budget,
) -> Result<bool> {
    for (k, e) in model.edges.iter().enumerate() {
        let negative = model.restrict(e, &relations[k], row, Distance::AtMostMinusOne)?;
        if !negative.is_empty_with(budget)? {
            return Ok(false);
        }
    }
    Ok(true)
}
