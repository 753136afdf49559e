//! The window of an array inside a tile: a box of constant extents whose origin is an
//! affine function of the tile coordinates.
//!
//! For a footprint `W = { [o] -> A[x] }` and each dimension `d` of `A`, the origin
//! `g_d(o)` is one of the pieces of the exact minimum of `x_d` over `W(o)` (a
//! piecewise affine function: at the border tiles the domain clamps it). A piece
//! qualifies when it has no division, and `x_d - g_d(o)` is at least 0 for every pair
//! `(o, x)` of `W` (over all tiles and parameter values) and bounded above by a
//! constant; the qualifying piece with the smallest extent is taken. The interior
//! tiles' piece always qualifies when the footprint's width along `d` is a constant.

use pollen_arith::Int;
use pollen_presburger::{Budget, DimKind, Map, Set};

use crate::error::Result;

/// The window along one dimension: `x_d - origin(o)` lies in `[0, extent)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Extent {
    /// The origin's coefficients: constant, then one per parameter, then one per tile
    /// coordinate.
    pub constant: Int,
    pub params: Vec<Int>,
    pub tile: Vec<Int>,
    /// The number of elements.
    pub extent: i64,
}

/// The window of `footprint` (`{ [o] -> A[x] }` over the parameters) along every
/// dimension of `A`, or `None` when some dimension has no constant-size window.
pub(crate) fn window(footprint: &Map, budget: &mut Budget) -> Result<Option<Vec<Extent>>> {
    let n = footprint.space().n_out();
    let mut out = Vec::with_capacity(n);
    for d in 0..n {
        match along(footprint, d, budget)? {
            Some(e) => out.push(e),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// The window along dimension `d`.
fn along(footprint: &Map, d: usize, budget: &mut Budget) -> Result<Option<Extent>> {
    let n = footprint.space().n_out();
    let k = footprint.space().n_in();
    let np = footprint.space().n_params();
    // { [o] -> [x_d] }
    let column = footprint
        .project_out(DimKind::Out, d + 1, n - d - 1)?
        .project_out(DimKind::Out, 0, d)?;
    if column.is_empty_with(budget)? {
        return Ok(None);
    }
    let lowest = column.lexmin_pw_with(budget)?;
    let mut best: Option<Extent> = None;
    for (_, piece) in lowest.optimum.pieces() {
        let Some(aff) = piece.affs().first() else {
            continue;
        };

        if aff.n_div() != 0 || !aff.den().is_one() {
            continue;
        }
        let num = aff.num();
        if num.len() != 1 + np + k {
            continue;
        }
        let candidate = Extent {
            constant: num[0].clone(),
            params: num[1..1 + np].to_vec(),
            tile: num[1 + np..].to_vec(),
            extent: 0,
        };
        if best
            .as_ref()
            .is_some_and(|b| b.constant == candidate.constant && b.tile == candidate.tile)
        {
            continue;
        }
        let Some(extent) = spread(&column, &piece.to_map(), budget)? else {
            continue;
        };
        if best.as_ref().is_none_or(|b| extent < b.extent) {
            best = Some(Extent {
                extent,
                ..candidate
            });
        }
    }
    Ok(best)
}

/// With `origin = { [o] -> [g(o)] }`, the number of values `x - g(o)` spans over the
/// pairs of `column = { [o] -> [x] }` when they all lie in `[0, c)` for a constant `c`.
fn spread(column: &Map, origin: &Map, budget: &mut Budget) -> Result<Option<i64>> {
    // { [o] -> [[g] -> [x]] }: each pair formed at one tile; their differences x - g.
    let pairs = origin.range_product(column)?;
    let differences = Set::from_map(pairs.range())?.unwrap()?.deltas()?;
    let differences = Set::from_map(differences)?;
    // Over all parameter values at once.
    let np = differences.space().n_params();
    let differences = differences.project_out(DimKind::Param, 0, np)?;
    let low = differences.dim_min_with(0, budget);
    let high = differences.dim_max_with(0, budget);
    let (Ok(low), Ok(high)) = (low, high) else {
        return Ok(None);
    };
    let mut min: Option<Int> = None;
    for (_, a) in low.pieces() {
        let Some(v) = a.constant_value() else {
            return Ok(None);
        };
        min = Some(min.map_or(v.clone(), |m| if v < m { v } else { m }));
    }
    let mut max: Option<Int> = None;
    for (_, a) in high.pieces() {
        let Some(v) = a.constant_value() else {
            return Ok(None);
        };
        max = Some(max.map_or(v.clone(), |m| if v > m { v } else { m }));
    }
    match (min, max) {
        (Some(min), Some(max)) if !min.is_negative() => {
            Ok(max.to_i64().and_then(|m| m.checked_add(1)))
        }
        _ => Ok(None),
    }
}
