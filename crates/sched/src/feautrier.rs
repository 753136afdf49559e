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
//! Rows on which every statement that is not yet full rank progresses (a non-trivial
//! row linearly independent from its earlier rows, see [`crate::progress`]) are
//! preferred when they satisfy as many dependences as some row does at all; otherwise
//! any row satisfying the most dependences is taken (statements may then get a
//! constant).
//!
//! Termination: a level that satisfies no dependence must instead make progress in rank
//! (every statement that is not full rank if possible, else at least one); when that is
//! impossible too, the strongly connected components of the remaining dependences are
//! separated by a scalar row (which satisfies every dependence between components);
//! otherwise, when the caller passes the original schedule's rows, the statements that
//! resist take its next dimension (see [`crate::fallback`]), and without them the
//! scheduler reports [`Error::NoLegalSchedule`]. Once every dependence is
//! satisfied, statements that are not full rank get independent rows (statements
//! without dependences are scheduled this way). Coefficients are non-negative unless
//! the caller allows signed ones.
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
use crate::fallback::{self, Fallback};
use crate::fm::Rows;
use crate::ilp;
use crate::model::{Distance, Model, Row, RowKind, Tracker};
use crate::progress;
use crate::vars::{embed, Target, Vars};

/// Computes Feautrier's rows for `model` and the fallbacks taken; `original` (the
/// original schedule's rows) lets it fall back to them where it is stuck.
pub fn schedule_rows(
    model: &Model,
    signed: bool,
    original: Option<&[Row]>,
    budget: &mut Budget,
) -> Result<(Vec<Row>, Vec<Fallback>)> {
    let mut tracker = Tracker::new(model);
    let mut rows: Vec<Row> = Vec::new();
    let mut fallbacks = Vec::new();
    let mut original_taken = 0;
    let max_dim = model.stmts.iter().map(|s| s.dim).max().unwrap_or(0);
    let limit = 4 * (max_dim + 2) * (model.stmts.len() + 2)
        + model.edges.len()
        + original.map_or(0, <[Row]>::len);
    for _ in 0..limit {
        let full = (0..model.stmts.len()).all(|s| model.rank(&rows, s) >= model.stmts[s].dim);
        if full && tracker.all_satisfied() {
            return Ok((assign_bands(model, rows, budget)?, fallbacks));
        }
        let remaining: Vec<usize> = (0..model.edges.len())
            .filter(|&k| !tracker.satisfied[k])
            .collect();
        let row = match level(model, signed, &rows, &mut tracker, &remaining, budget)? {
            Some(row) => row,
            None => match cut(model, &remaining) {
                Some((row, components)) => {
                    fallbacks.push(Fallback::CutComponents {
                        level: rows.len(),
                        components,
                    });
                    row
                }
                None => {
                    let next = original
                        .and_then(|o| o.get(original_taken))
                        .ok_or(Error::NoLegalSchedule)?;
                    let mut which = fallback::resisting(model, &tracker.satisfied);
                    if which.is_empty() {
                        which = (0..model.stmts.len())
                            .filter(|&s| model.rank(&rows, s) < model.stmts[s].dim)
                            .collect();
                    }
                    fallbacks.push(Fallback::OriginalDimension {
                        statements: fallback::names(model, &which),
                        level: rows.len(),
                        original_level: original_taken,
                    });
                    original_taken += 1;
                    if original.is_some_and(|o| original_taken == o.len()) {
                        fallbacks.push(Fallback::OriginalOrder {
                            statements: fallback::names(model, &which),
                        });
                    }
                    fallback::restricted(model, next, &which, rows.len())
                }
            },
        };
        tracker.update(model, &row, budget)?;
        rows.push(row);
    }
    Err(Error::NoLegalSchedule)
}

/// One level: the row satisfying the most remaining dependences (preferring rows on
/// which every statement that is not full rank progresses), or, if none can be
/// satisfied, a row progressing in rank; `None` when neither exists.
fn level(
    model: &Model,
    signed: bool,
    rows: &[Row],
    tracker: &mut Tracker,
    remaining: &[usize],
    budget: &mut Budget,
) -> Result<Option<Row>> {
    let dims: Vec<usize> = model.stmts.iter().map(|s| s.dim).collect();
    let m = remaining.len();
    let vars = Vars::new(&dims, 1, m, signed);
    let mut base = Rows::new(vars.n);
    for (j, &k) in remaining.iter().enumerate() {
        let e = &model.edges[k];
        let farkas = tracker.farkas(model, k, false)?;
        let targets = crate::vars::edge_targets(
            &vars,
            e,
            Target::var(vars.suffix_start + j),
            &|_| Target::Value(Int::zero()),
            Target::Value(Int::zero()),
        );
        embed(&farkas.validity, &targets, &mut base);
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
    if let Some(bound) = &model.coefficient_bound {
        for v in 1..vars.suffix_start {
            let mut r = vars.zero_row();
            r[0] = bound.clone();
            r[1 + v] = Int::from(-1);
            base.ineqs.push(r);
        }
    }
    let base = ilp::simplify(base);
    let kind = RowKind::Loop { band: rows.len() };
    let not_full: Vec<usize> = (0..model.stmts.len())
        .filter(|&s| model.rank(rows, s) < model.stmts[s].dim)
        .collect();
    let m = Int::from(m as i64);
    let progressing = |lazy: bool, budget: &mut Budget| -> Result<Option<Vec<Int>>> {
        if not_full.is_empty() {
            return Ok(None);
        }
        progress::lexmin_progressing(model, &vars, rows, &base, &not_full, lazy, budget)
    };
    // The most dependences satisfied, every statement that is not full rank progressing;
    let eager = progressing(false, budget)?;
    if let Some(sol) = &eager {
        if sol[0] < m {
            return Ok(Some(vars.row_of(sol, kind)));
        }
    }
    // otherwise the most dependences satisfied by any row;
    if !m.is_zero() {
        if let Some(sol) = ilp::lexmin(&base, budget)? {
            if sol[0] < m {
                return Ok(Some(vars.row_of(&sol, kind)));
            }
        }
    }
    // otherwise progress in rank, on every statement or at least on one.
    if let Some(sol) = eager {
        return Ok(Some(vars.row_of(&sol, kind)));
    }
    Ok(progressing(true, budget)?.map(|sol| vars.row_of(&sol, kind)))
}

/// A scalar row separating the components of the remaining dependences and their
/// number, if there is more than one component with a dependence between them.
fn cut(model: &Model, remaining: &[usize]) -> Option<(Row, usize)> {
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
    Some((
        Row {
            kind: RowKind::Scalar,
            coeffs,
        },
        sccs.n_sccs,
    ))
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
