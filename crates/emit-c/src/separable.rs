//! Separable windows: a pooling window's reduction split into its rows' sums and the
//! sums of those along the row.
//!
//! An unrolled pooling window (module `print`) updates one variable once per element
//! of a rectangle of an array that the loop only reads, the last subscript moving with
//! the innermost loop by the window's stride:
//! ```text
//!   #pragma omp simd
//!   for (c3 = 0; c3 <= 27; c3++) {
//!     DATA_TYPE t0 = Y[c1][c2][c3];
//!     t0 = SCALAR_VAL(0.0);
//!     t0 += X[c1][2 * c2 + 0][2 * c3 + 0];
//!     t0 += X[c1][2 * c2 + 0][2 * c3 + 1];
//!     t0 += X[c1][2 * c2 + 1][2 * c3 + 0];
//!     t0 += X[c1][2 * c2 + 1][2 * c3 + 1];
//!     t0 = t0 / SCALAR_VAL(4.0);
//!     Y[c1][c2][c3] = t0;
//!   }
//! ```
//! Vectorised as it stands, every update takes the even or odd elements of its row
//! apart with a permutation of its own (four for a 2 × 2 window, nine for a 3 × 3 one),
//! and the permutations bound the loop's speed. Combining the window's rows first,
//! element by element over the stretch of the row that the loop reads, then the
//! combined row's elements under each output, needs as many permutations as the window
//! has columns:
//! ```text
//!   for (int t1 = 0; t1 <= 27; t1 += 256) {
//!     const int t2 = 27 < t1 + 255 ? 27 : t1 + 255;
//!     DATA_TYPE t3[512];
//!     #pragma omp simd
//!     for (int t4 = 0; t4 <= 2 * (t2 - t1) + 1; t4++) {
//!       t3[t4] = X[c1][2 * c2 + 0][2 * t1 + t4];
//!       t3[t4] += X[c1][2 * c2 + 1][2 * t1 + t4];
//!     }
//!     #pragma omp simd
//!     for (c3 = t1; c3 <= t2; c3++) {
//!       DATA_TYPE t0 = Y[c1][c2][c3];
//!       t0 = SCALAR_VAL(0.0);
//!       t0 += t3[2 * (c3 - t1) + 0];
//!       t0 += t3[2 * (c3 - t1) + 1];
//!       t0 = t0 / SCALAR_VAL(4.0);
//!       Y[c1][c2][c3] = t0;
//!     }
//!   }
//! ```
//! The loop runs in strips of at most [`STRIP`] iterations so that the combined row
//! fits a buffer of constant size on the stack (the strip's variables are of
//! [`crate::EmitOptions::iterator_type`]). The window's elements are combined in
//! another order (rows first), so a sum rounds differently and a maximum may return
//! another NaN or signed zero: like reduction clauses ([`crate::reduction`]), this is
//! only done when reductions may be reassociated.
//!
//! The window qualifies when its updates are consecutive statements of the body, all
//! `v += R;` or all `v = M(v, R);` (or `M(R, v)`) for the same variable `v` held
//! through the iteration and the same select macro `M` of a maximum or a minimum, each
//! `R` one reference to an array the body does not write, whose subscripts but the
//! last do not move with the loop, whose last subscripts are `s * i + e + o` (the
//! loop's iterator `i`, the same stride `s` > 0 and expression `e` for all, a constant
//! `o`), and whose elements form a rectangle: at least two rows (the subscripts but the
//! last) with the same at least two consecutive offsets `o` each, as many as the
//! stride or more (so that the combined stretch reads nothing between the windows).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use pollen_emit_text::tokens;

use crate::scan::{self, Linear, SelectMacro};

/// The most iterations of one strip of the loop.
pub(crate) const STRIP: i128 = 256;

/// The fewest updates of a window that is split.
const MIN_UPDATES: usize = 4;

/// Stands for the variable in an update's [`Window::form`].
const VARIABLE: char = '\u{1}';
/// Stands for the window's element in an update's [`Window::form`].
const ELEMENT: char = '\u{2}';

/// A separable window of a loop's body (module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    /// The instances of the body that are the window's updates.
    pub run: Range<usize>,
    /// The updates' common text, with [`VARIABLE`] for the variable and [`ELEMENT`] for
    /// the window's element.
    pub form: String,
    /// The updated variable.
    pub variable: String,
    /// The window's rows, in order of first update: the reference up to its last
    /// subscript (`X[c1][2 * c2 + 0]`).
    pub rows: Vec<String>,
    /// The array read.
    pub array: String,
    /// The stride of the last subscript along the loop.
    pub stride: i128,
    /// The smallest and the largest offset of the last subscript.
    pub offsets: (i128, i128),
    /// The rest of the last subscript, without the loop's iterator and the constant,
    /// printed (`` or `4 * c5`).
    pub rest: String,
}

impl Window {
    /// The update of `variable` by `element`, in the window's form.
    pub fn update(&self, variable: &str, element: &str) -> String {
        self.form
            .replace(VARIABLE, variable)
            .replace(ELEMENT, element)
    }

    /// The number of elements of the combined stretch of a strip of `STRIP` iterations.
    pub fn buffer(&self) -> i128 {
        self.stride * (STRIP - 1) + self.span()
    }

    /// The number of consecutive offsets of a row.
    pub fn span(&self) -> i128 {
        self.offsets.1 - self.offsets.0 + 1
    }

    /// The subscript of a row's element `j` of the stretch starting at iteration `from`:
    /// `s * from + e + omin + j`.
    pub fn stretch_subscript(&self, from: &str, j: &str) -> String {
        let mut terms = vec![scaled(self.stride, from)];
        if !self.rest.is_empty() {
            terms.push(self.rest.clone());
        }
        if self.offsets.0 != 0 {
            terms.push(self.offsets.0.to_string());
        }
        terms.push(j.to_string());
        terms.join(" + ")
    }
}

/// `k * name`, or `name` for 1.
fn scaled(k: i128, name: &str) -> String {
    if k == 1 {
        name.to_string()
    } else {
        format!("{k} * {name}")
    }
}

/// One update of a window: its form, its reference's row (text and subscripts), and its
/// last subscript.
struct Update {
    form: String,
    variable: String,
    array: String,
    row_text: String,
    row: Vec<Linear>,
    last: Linear,
}

/// The separable window among the body's instance texts (module documentation): the
/// loop's printed iterator, the ranks of the declared arrays, the arrays the body
/// writes, the variables held through an iteration and the select macros.
pub(crate) fn window(
    texts: &[String],
    iterator: &str,
    ranks: &BTreeMap<String, usize>,
    written: &BTreeSet<String>,
    held: &[&str],
    macros: &BTreeMap<String, SelectMacro>,
) -> Option<Window> {
    let updates: Vec<Option<Update>> = texts
        .iter()
        .map(|t| update(t, iterator, ranks, written, held, macros))
        .collect();
    // The first run of consecutive updates of one form.
    let mut start = 0;
    while start < updates.len() {
        let Some(first) = &updates[start] else {
            start += 1;
            continue;
        };
        let mut end = start + 1;
        while end < updates.len()
            && updates[end]
                .as_ref()
                .is_some_and(|u| u.form == first.form && u.array == first.array)
        {
            end += 1;
        }
        if end - start >= MIN_UPDATES {
            let run: Vec<&Update> = updates[start..end].iter().flatten().collect();
            return rectangle(&run, iterator).map(|w| Window {
                run: start..end,
                ..w
            });
        }
        start = end;
    }
    None
}

/// The window of a run of updates of one form when they read a rectangle.
fn rectangle(run: &[&Update], iterator: &str) -> Option<Window> {
    let first = run[0];
    let (_, first_terms) = &first.last;
    let stride = *first_terms.get(iterator)?;
    if stride <= 0 {
        return None;
    }
    let rest: BTreeMap<&String, &i128> =
        first_terms.iter().filter(|(n, _)| *n != iterator).collect();
    let mut rows: Vec<(&Vec<Linear>, &str, BTreeSet<i128>)> = Vec::new();
    for u in run {
        let (offset, terms) = &u.last;
        let same_rest = terms.get(iterator) == Some(&stride)
            && terms
                .iter()
                .filter(|(n, _)| *n != iterator)
                .eq(rest.iter().map(|(n, k)| (*n, *k)));
        if !same_rest {
            return None;
        }
        match rows.iter_mut().find(|(r, _, _)| **r == u.row) {
            Some((_, _, offsets)) => {
                if !offsets.insert(*offset) {
                    return None;
                }
            }
            None => rows.push((&u.row, &u.row_text, BTreeSet::from([*offset]))),
        }
    }
    let offsets = &rows[0].2;
    let (lo, hi) = (*offsets.first()?, *offsets.last()?);
    let span = hi - lo + 1;
    if rows.len() < 2
        || span < 2
        || span < stride
        || offsets.len() as i128 != span
        || rows.iter().any(|(_, _, o)| o != offsets)
    {
        return None;
    }
    Some(Window {
        run: 0..0,
        form: first.form.clone(),
        variable: first.variable.clone(),
        rows: rows.iter().map(|(_, t, _)| t.to_string()).collect(),
        array: first.array.clone(),
        stride,
        offsets: (lo, hi),
        rest: rest
            .iter()
            .map(|(n, k)| scaled(**k, n))
            .collect::<Vec<_>>()
            .join(" + "),
    })
}

/// One instance's text as an update of a window: `v += R;` or `v = M(v, R);` (or
/// `M(R, v)`) for a held variable `v`, a select macro `M` and a reference `R` to a
/// declared array the body does not write, whose subscripts but the last do not
/// mention the loop's iterator.
fn update(
    text: &str,
    iterator: &str,
    ranks: &BTreeMap<String, usize>,
    written: &BTreeSet<String>,
    held: &[&str],
    macros: &BTreeMap<String, SelectMacro>,
) -> Option<Update> {
    let ts = tokens(text)?;
    let s: Vec<&str> = ts.iter().map(|t| &text[t.range.clone()]).collect();
    let variable = *held.iter().find(|v| s.first() == Some(*v))?;
    // The one reference to an array.
    let mut found = None;
    for (k, word) in s.iter().enumerate() {
        if ranks.contains_key(*word) && s.get(k + 1) == Some(&"[") {
            if found.is_some() {
                return None;
            }
            found = Some(k);
        }
    }
    let k = found?;
    let array = s[k];
    if written.contains(array) {
        return None;
    }
    let rank = ranks[array];
    if rank == 0 {
        return None;
    }
    let (subscripts, after) = scan::linear_subscripts(text, &ts, k, rank)?;
    let (_, row_end) = scan::linear_subscripts(text, &ts, k, rank - 1)?;
    if subscripts[..rank - 1]
        .iter()
        .any(|(_, terms)| terms.contains_key(iterator))
        || s[k..after].iter().any(|w| held.contains(w))
    {
        return None;
    }
    // The form, with the variable and the element replaced.
    let mut shape: Vec<&str> = Vec::new();
    let mut form = String::new();
    let mut at = 0;
    while at < s.len() {
        if at > 0 {
            form.push_str(&text[ts[at - 1].range.end..ts[at].range.start]);
        }
        if at == k {
            form.push(ELEMENT);
            shape.push("R");
            // The whitespace before the token after the reference.
            at = after;
            if at < s.len() {
                form.push_str(&text[ts[after - 1].range.end..ts[at].range.start]);
            }
            if at < s.len() {
                push_token(&mut form, &mut shape, s[at], variable);
                at += 1;
            }
            continue;
        }
        push_token(&mut form, &mut shape, s[at], variable);
        at += 1;
    }
    let select = |m: &str| macros.get(m).is_some_and(|m| m.if_true != m.if_false);
    let fits = match shape[..] {
        ["V", "+=", "R", ";"] => true,
        ["V", "=", m, "(", "V", ",", "R", ")", ";"]
        | ["V", "=", m, "(", "R", ",", "V", ")", ";"] => select(m),
        _ => false,
    };
    if !fits {
        return None;
    }
    Some(Update {
        form,
        variable: variable.to_string(),
        array: array.to_string(),
        row_text: s_text(text, &ts, k, row_end),
        row: subscripts[..rank - 1].to_vec(),
        last: subscripts[rank - 1].clone(),
    })
}

/// Appends a token to a form and its shape: the variable as [`VARIABLE`] and `V`.
fn push_token<'s>(form: &mut String, shape: &mut Vec<&'s str>, token: &'s str, variable: &str) {
    if token == variable {
        form.push(VARIABLE);
        shape.push("V");
    } else {
        form.push_str(token);
        shape.push(token);
    }
}

/// The text of tokens `from..to`.
fn s_text(text: &str, ts: &[pollen_emit_text::Token], from: usize, to: usize) -> String {
    text[ts[from].range.start..ts[to - 1].range.end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn macros() -> BTreeMap<String, SelectMacro> {
        BTreeMap::from([(
            "MAX_FUN".to_string(),
            SelectMacro {
                op: "<",
                p: 0,
                if_true: 1,
                if_false: 0,
            },
        )])
    }

    fn find(texts: &[&str], iterator: &str) -> Option<Window> {
        let texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        let ranks = BTreeMap::from([("X".to_string(), 3), ("Y".to_string(), 3)]);
        let written = BTreeSet::from(["Y".to_string()]);
        window(&texts, iterator, &ranks, &written, &["t0"], &macros())
    }

    #[test]
    fn an_average_pooling_window_is_split_into_rows() {
        let w = find(
            &[
                "t0 = SCALAR_VAL(0.0);",
                "t0 += X[c1][2 * c2 + 0][2 * c3 + 0];",
                "t0 += X[c1][2 * c2 + 0][2 * c3 + 1];",
                "t0 += X[c1][2 * c2 + 1][2 * c3 + 0];",
                "t0 += X[c1][2 * c2 + 1][2 * c3 + 1];",
                "t0 = t0 / SCALAR_VAL(4.0);",
            ],
            "c3",
        )
        .expect("separable");
        assert_eq!(w.run, 1..5);
        assert_eq!(w.rows, ["X[c1][2 * c2 + 0]", "X[c1][2 * c2 + 1]"]);
        assert_eq!((w.stride, w.offsets, w.rest.as_str()), (2, (0, 1), ""));
        assert_eq!(w.update("t0", "B[j]"), "t0 += B[j];");
        assert_eq!(w.stretch_subscript("t1", "t4"), "2 * t1 + t4");
        assert_eq!(w.buffer(), 2 * 255 + 2);
    }

    #[test]
    fn a_max_pooling_window_keeps_its_macro_and_offsets() {
        let texts: Vec<String> = (0..3)
            .flat_map(|r| {
                (0..3).map(move |o| {
                    format!("t0 = MAX_FUN(t0, X[c1][2 * c6 + {r} - 1][4 * c5 + 2 * c7 + {o} - 1]);")
                })
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(|t| t.as_str()).collect();
        let w = find(&refs, "c7").expect("separable");
        assert_eq!(w.run, 0..9);
        assert_eq!(w.rows.len(), 3);
        assert_eq!(
            (w.stride, w.offsets, w.rest.as_str()),
            (2, (-1, 1), "4 * c5")
        );
        assert_eq!(
            w.update("B[j]", "X[0][0][j]"),
            "B[j] = MAX_FUN(B[j], X[0][0][j]);"
        );
        assert_eq!(w.stretch_subscript("b", "j"), "2 * b + 4 * c5 + -1 + j");
    }

    #[test]
    fn other_bodies_are_left_alone() {
        let avg = |texts: &[&str]| find(texts, "c3");
        // Products, not single elements.
        assert_eq!(
            avg(&[
                "t0 += X[c1][c2][c3 + 0] * 2;",
                "t0 += X[c1][c2][c3 + 1] * 2;",
                "t0 += X[c1][c2 + 1][c3 + 0] * 2;",
                "t0 += X[c1][c2 + 1][c3 + 1] * 2;",
            ]),
            None
        );
        // A written array.
        assert_eq!(
            avg(&[
                "t0 += Y[c1][c2][c3 + 0];",
                "t0 += Y[c1][c2][c3 + 1];",
                "t0 += Y[c1][c2 + 1][c3 + 0];",
                "t0 += Y[c1][c2 + 1][c3 + 1];",
            ]),
            None
        );
        // A row that moves with the loop.
        assert_eq!(
            avg(&[
                "t0 += X[c1][c3][c3 + 0];",
                "t0 += X[c1][c3][c3 + 1];",
                "t0 += X[c1][c3 + 1][c3 + 0];",
                "t0 += X[c1][c3 + 1][c3 + 1];",
            ]),
            None
        );
        // Not a rectangle: the second row lacks an offset.
        assert_eq!(
            avg(&[
                "t0 += X[c1][c2][c3 + 0];",
                "t0 += X[c1][c2][c3 + 1];",
                "t0 += X[c1][c2][c3 + 2];",
                "t0 += X[c1][c2 + 1][c3 + 0];",
                "t0 += X[c1][c2 + 1][c3 + 2];",
            ]),
            None
        );
        // A stride wider than the window would read between the windows.
        assert_eq!(
            avg(&[
                "t0 += X[c1][c2][3 * c3 + 0];",
                "t0 += X[c1][c2][3 * c3 + 1];",
                "t0 += X[c1][c2 + 1][3 * c3 + 0];",
                "t0 += X[c1][c2 + 1][3 * c3 + 1];",
            ]),
            None
        );
        // A variable that is not held, and a subtraction.
        assert_eq!(
            avg(&[
                "t9 += X[c1][c2][c3 + 0];",
                "t9 += X[c1][c2][c3 + 1];",
                "t9 += X[c1][c2 + 1][c3 + 0];",
                "t9 += X[c1][c2 + 1][c3 + 1];",
            ]),
            None
        );
        assert_eq!(
            avg(&[
                "t0 -= X[c1][c2][c3 + 0];",
                "t0 -= X[c1][c2][c3 + 1];",
                "t0 -= X[c1][c2 + 1][c3 + 0];",
                "t0 -= X[c1][c2 + 1][c3 + 1];",
            ]),
            None
        );
        // One row only.
        assert_eq!(
            avg(&[
                "t0 += X[c1][c2][c3 + 0];",
                "t0 += X[c1][c2][c3 + 1];",
                "t0 += X[c1][c2][c3 + 2];",
                "t0 += X[c1][c2][c3 + 3];",
            ]),
            None
        );
    }
}
