//! Coalesced reductions: two loops printed as one over the consecutive elements they
//! read.
//!
//! A reassociated reduction ([`crate::reduction`]) over short rows, such as a global
//! average pooling's 7 × 7 window,
//! ```text
//!   for (c2 = 0; c2 <= H - 1; c2++)
//!     for (c3 = 0; c3 <= W - 1; c3++)
//!       t0 += X[c0][c1][c2][c3];
//! ```
//! fills few vector lanes per row, and the compiler's partial results per lane cost
//! more than they save. When the inner loop runs from 0 over a bound that does not
//! depend on the outer loop, and every reference that moves with either loop is
//! `A[...][c2][c3]` (the two loops' iterators as the last two subscripts, nothing else
//! of them in the statement) to an array that the loops only read, the rows that the
//! loops read lie one after the other in memory whenever each row of `A` holds exactly
//! the inner loop's iterations. The two loops are then one:
//! ```text
//!   for (c2 = 0; c2 <= H * W - 1; c2++)
//!     t0 += (&X[c0][c1][0][0])[c2];
//! ```
//! the same elements in the same order, so coalescing changes no result by itself; the
//! reduction clause on the one loop reassociates it as it would have the inner loop.
//!
//! Whether a row holds exactly the inner loop's iterations depends on the arrays'
//! declarations (a padded row does not), so the printed code checks it,
//! `sizeof X[0][0][0] == W * sizeof X[0][0][0][0]` (a constant where the extents are),
//! and runs the two loops as they were where it fails.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use pollen_codegen::apart::affine;
use pollen_codegen::Expr;
use pollen_scop::Scop;

use crate::scalar::{self, Instance};
use crate::scan;

/// The references of one statement instance that the coalesced loop reads flat, each as
/// its token range and the text replacing it, with the outer loop's printed iterator
/// `index` as the flat position; the arrays read flat are added to `rows` with their
/// ranks. `None` when the instance does not qualify (module documentation): a
/// reference that moves with the loops is not `A[...][outer][inner]` of a declared
/// array the loops only read (`written`), or an iterator of the loops appears elsewhere.
pub(crate) fn flat_references(
    scop: &Scop,
    inst: &Instance,
    loops: (&str, &str),
    index: &str,
    written: &BTreeSet<&str>,
    rows: &mut BTreeMap<String, usize>,
) -> Option<Vec<(Range<usize>, String)>> {
    let (outer, inner) = loops;
    let (tokens, references) = inst.scanned.as_ref()?;
    let moves = |e: &Expr| e.mentions(outer) || e.mentions(inner);
    let only = |name: &str| Some((0, BTreeMap::from([(name.to_string(), 1)])));
    let mut out = Vec::new();
    for r in references {
        let Some(array) = scop.array(&r.array) else {
            continue;
        };
        let rank = array.extents.len();
        let Some(subscripts) = scalar::subscripts(inst, tokens, &r.tokens, rank) else {
            continue;
        };
        if !subscripts.iter().any(moves) {
            continue;
        }
        if rank < 2
            || written.contains(r.array.as_str())
            || array.extents.iter().any(|e| e.trim().is_empty())
            || affine(&subscripts[rank - 1]) != only(inner)
            || affine(&subscripts[rank - 2]) != only(outer)
            || subscripts[..rank - 2].iter().any(moves)
        {
            return None;
        }
        let (_, after) = scan::linear_subscripts(&inst.text, tokens, r.tokens.start, rank - 2)?;
        let row = scan::substitute(
            &inst.text,
            tokens,
            r.tokens.start..after,
            &inst.statement.iterators,
            &inst.values,
            &[],
        );
        out.push((r.tokens.clone(), format!("(&{row}[0][0])[{index}]")));
        rows.insert(r.array.clone(), rank);
    }
    // Every iterator of the statement whose value moves with the loops is inside a
    // reference read flat.
    for (k, t) in tokens.iter().enumerate() {
        let s = &inst.text[t.range.clone()];
        let Some(i) = inst.statement.iterators.iter().position(|it| it == s) else {
            continue;
        };
        if moves(&inst.args[i]) && !out.iter().any(|(r, _)| r.contains(&k)) {
            return None;
        }
    }
    Some(out)
}

/// The check that each row of the arrays read flat (name and rank) holds `row` elements.
pub(crate) fn rows_check(rows: &BTreeMap<String, usize>, row: &str) -> String {
    rows.iter()
        .map(|(array, rank)| {
            format!(
                "sizeof {array}{} == {} * sizeof {array}{}",
                "[0]".repeat(rank - 1),
                factor(row),
                "[0]".repeat(*rank)
            )
        })
        .collect::<Vec<_>>()
        .join(" && ")
}

/// `e + 1`, with the constant folded where `e` is affine.
pub(crate) fn plus_one(e: &Expr) -> Expr {
    match affine(e) {
        Some((constant, terms)) => {
            let mut sum: Vec<Expr> = terms
                .into_iter()
                .map(|(name, k)| match k {
                    1 => Expr::Var(name),
                    k => Expr::Mul(pollen_arith::Int::from(k), Box::new(Expr::Var(name))),
                })
                .collect();
            if constant + 1 != 0 || sum.is_empty() {
                sum.push(Expr::Int(pollen_arith::Int::from(constant + 1)));
            }
            if sum.len() == 1 {
                sum.pop().expect("one term")
            } else {
                Expr::Add(sum)
            }
        }
        None => Expr::Add(vec![e.clone(), Expr::int(1)]),
    }
}

/// `text` as a factor of a product: parenthesised unless it is a name or a number.
pub(crate) fn factor(text: &str) -> String {
    if text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        text.to_string()
    } else {
        format!("({text})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_more_folds_the_constant_of_affine_bounds() {
        let w_minus_one = Expr::Add(vec![Expr::var("W"), Expr::int(-1)]);
        assert_eq!(plus_one(&w_minus_one), Expr::var("W"));
        assert_eq!(plus_one(&Expr::int(6)), Expr::int(7));
        assert_eq!(
            plus_one(&Expr::Mul(
                pollen_arith::Int::from(2),
                Box::new(Expr::var("N"))
            )),
            Expr::Add(vec![
                Expr::Mul(pollen_arith::Int::from(2), Box::new(Expr::var("N"))),
                Expr::int(1)
            ])
        );
        let min = Expr::Min(vec![Expr::var("a"), Expr::var("b")]);
        assert_eq!(plus_one(&min), Expr::Add(vec![min.clone(), Expr::int(1)]));
    }

    #[test]
    fn rows_are_checked_by_the_sizes_of_the_declared_types() {
        let rows = BTreeMap::from([("X".to_string(), 4), ("Z".to_string(), 2)]);
        assert_eq!(
            rows_check(&rows, "_PB_H - 1"),
            "sizeof X[0][0][0] == (_PB_H - 1) * sizeof X[0][0][0][0] \
             && sizeof Z[0] == (_PB_H - 1) * sizeof Z[0][0]"
        );
        assert_eq!(factor("W"), "W");
        assert_eq!(factor("7"), "7");
        assert_eq!(factor("H * W"), "(H * W)");
    }
}
