//! The last rungs of the scheduling ladder: the original schedule's dimensions, for the
//! statements whose dependences the schedulers leave unsatisfied.
//!
//! The original schedule is always legal: flattened (see
//! [`pollen_scop::ScheduleTree::to_union_map`]), it orders every dependence pair
//! lexicographically. So after any prefix of legal rows (each with a non-negative
//! distance on the pairs the earlier rows leave unordered, the schedulers' invariant),
//! appending the original dimensions `o_1, o_2, ...` one at a time keeps every row
//! legal: on the pairs left unordered by the prefix and by `o_1 .. o_{d-1}`, the original
//! order says `o_d ≥ 0`. Once every original dimension is appended, every dependence is
//! satisfied. This is the fallback Pluto takes when its search fails (it resorts to the
//! original schedule for what it could not transform).
//!
//! The searches get stuck after choices that are legal but lead nowhere: Pluto's first
//! band can make two statements full rank while a cycle of dependences between them
//! (e.g. writes `B[i + 1][j + 4]` and `B[j + 4][i]` of one array) keeps distance zero on
//! every row, so that no linearly independent hyperplane is left and no cut separates a
//! cycle; Feautrier's greedy row can give a statement a dependent row after which no row
//! both respects the remaining pairs and makes progress. Both are found by the random
//! programs of `pollen_testkit::random` (see `tests/fallback.rs`).
//!
//! Only the statements incident to an unsatisfied dependence (the statements that
//! *resist*) take the original dimension; every other statement gets the constant 0,
//! which changes nothing for it: every dependence with a statement that does not resist
//! is already satisfied.
//!
//! # Invariants
//! Every row of [`original_rows`] has, per statement, as many coefficients as the
//! statement has iterators, plus a constant.

use std::fmt;

use pollen_arith::Int;
use pollen_presburger::DimKind;
use pollen_scop::Scop;

use crate::error::{Error, Result};
use crate::model::{Model, Row, RowKind};

/// A step of the fallback ladder that a schedule took, in the order taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// Pluto found no hyperplane for the next band and separated strongly connected
    /// components of the unsatisfied dependences by a scalar dimension (distribution).
    CutComponents {
        /// The schedule dimension of the cut (0 is the outermost).
        level: usize,
        /// The number of components at that point.
        components: usize,
    },
    /// Non-negative coefficients admitted no legal hyperplane: the search went on with
    /// signed iterator coefficients from schedule dimension `level` (0: from scratch).
    NegativeCoefficients {
        /// The first dimension searched with signed coefficients.
        level: usize,
    },
    /// The scheduler could go no further: the statements that resist took the original
    /// schedule's dimension `original_level` as schedule dimension `level`.
    OriginalDimension {
        /// The statements (their names) that took it.
        statements: Vec<String>,
        /// The new schedule's dimension (0 is the outermost).
        level: usize,
        /// The dimension of the flattened original schedule.
        original_level: usize,
    },
    /// Every original dimension was needed: the statements that resisted keep their
    /// original order below the rows found before.
    OriginalOrder {
        /// The statements (their names).
        statements: Vec<String>,
    },
}

impl fmt::Display for Fallback {
    /// One line for a driver's `--explain`, e.g. `dimension 2: S0, S1 take dimension 0 of
    /// the original schedule`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fallback::CutComponents { level, components } => write!(
                f,
                "dimension {level}: no hyperplane, {components} components cut apart"
            ),
            Fallback::NegativeCoefficients { level } => write!(
                f,
                "dimension {level}: no hyperplane with non-negative coefficients, signed ones from here"
            ),
            Fallback::OriginalDimension {
                statements,
                level,
                original_level,
            } => write!(
                f,
                "dimension {level}: {} take dimension {original_level} of the original schedule",
                statements.join(", ")
            ),
            Fallback::OriginalOrder { statements } => write!(
                f,
                "{} keep their original order below the rows found",
                statements.join(", ")
            ),
        }
    }
}

/// The flattened original schedule of `scop` as rows over the model's statements (one
/// loop row per dimension where some statement has an iterator, a scalar row
/// otherwise).
///
/// Fails with [`Error::NoLegalSchedule`] when a dimension of the original schedule is not
/// an integer affine function of one statement's iterators (parametric or quasi-affine
/// schedules, which the frontend never builds).
pub fn original_rows(scop: &Scop, model: &Model) -> Result<Vec<Row>> {
    let flat = scop.schedule.to_union_map()?;
    let mut per_stmt: Vec<Vec<Vec<Int>>> = Vec::with_capacity(model.stmts.len());
    let mut n_rows = 0;
    for stmt in &model.stmts {
        let map = flat
            .maps()
            .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(stmt.name.as_str()))
            .ok_or(Error::NoLegalSchedule)?;
        let [bmap] = map.basic_maps() else {
            return Err(Error::NoLegalSchedule);
        };
        let n_out = map.space().n_out();
        let mut dims = Vec::with_capacity(n_out);
        for k in 0..n_out {
            dims.push(affine_output(bmap, stmt.dim, k).ok_or(Error::NoLegalSchedule)?);
        }
        n_rows = n_rows.max(n_out);
        per_stmt.push(dims);
    }
    let rows = (0..n_rows)
        .map(|k| {
            let coeffs: Vec<Vec<Int>> = per_stmt
                .iter()
                .zip(&model.stmts)
                .map(|(dims, stmt)| {
                    dims.get(k)
                        .cloned()
                        .unwrap_or_else(|| vec![Int::zero(); stmt.dim + 1])
                })
                .collect();
            let loop_row = coeffs
                .iter()
                .any(|c| c[..c.len() - 1].iter().any(|x| !x.is_zero()));
            Row {
                kind: if loop_row {
                    RowKind::Loop { band: usize::MAX }
                } else {
                    RowKind::Scalar
                },
                coeffs,
            }
        })
        .collect();
    Ok(rows)
}

/// Output dimension `k` of a single-valued affine basic map as iterator coefficients and a
/// constant: an equality `a·t_k + c·i + c_0 = 0` with `a = ±1` and no other output,
/// parameter or div.
fn affine_output(bmap: &pollen_presburger::BasicMap, n_in: usize, k: usize) -> Option<Vec<Int>> {
    let out_col = bmap.dim_col(DimKind::Out, k);
    let n_out = bmap.space().n_out();
    let n_params = bmap.space().param_names().len();
    'eqs: for eq in bmap.eqs() {
        let a = &eq[out_col];
        if !(a.is_one() || (-a).is_one()) {
            continue;
        }
        for j in (0..n_out).filter(|&j| j != k) {
            if !eq[bmap.dim_col(DimKind::Out, j)].is_zero() {
                continue 'eqs;
            }
        }
        for p in 0..n_params {
            if !eq[bmap.dim_col(DimKind::Param, p)].is_zero() {
                continue 'eqs;
            }
        }
        for d in 0..bmap.n_div() {
            if !eq[bmap.div_col(d)].is_zero() {
                continue 'eqs;
            }
        }
        // t_k = -(c·i + c_0) / a, with a = ±1.
        let neg = -a;
        let mut c: Vec<Int> = (0..n_in)
            .map(|i| &eq[bmap.dim_col(DimKind::In, i)] * &neg)
            .collect();
        c.push(&eq[0] * &neg);
        return Some(c);
    }
    None
}

/// The statements incident to an edge that `satisfied` says is not satisfied, in order.
pub fn resisting(model: &Model, satisfied: &[bool]) -> Vec<usize> {
    let mut on = vec![false; model.stmts.len()];
    for (e, &sat) in model.edges.iter().zip(satisfied) {
        if !sat {
            on[e.source] = true;
            on[e.target] = true;
        }
    }
    (0..on.len()).filter(|&s| on[s]).collect()
}

/// `row` restricted to the statements `which` (the others get the constant 0), of kind
/// `kind` if some statement keeps an iterator coefficient, scalar otherwise.
pub fn restricted(model: &Model, row: &Row, which: &[usize], band: usize) -> Row {
    let coeffs: Vec<Vec<Int>> = (0..model.stmts.len())
        .map(|s| {
            if which.contains(&s) {
                row.coeffs[s].clone()
            } else {
                vec![Int::zero(); model.stmts[s].dim + 1]
            }
        })
        .collect();
    let loop_row = which.iter().any(|&s| !row.is_constant_for(s));
    Row {
        kind: if loop_row {
            RowKind::Loop { band }
        } else {
            RowKind::Scalar
        },
        coeffs,
    }
}

/// The names of statements.
pub fn names(model: &Model, which: &[usize]) -> Vec<String> {
    which.iter().map(|&s| model.stmts[s].name.clone()).collect()
}
