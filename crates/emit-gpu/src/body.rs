//! Statement bodies printed inside kernels.
//!
//! A statement's C text (comments removed, joined into one line: [`statement_text`])
//! is split into C tokens ([`tokens`]) and rebuilt with every
//! identifier token that names something the kernel holds differently replaced
//! ([`kernel_statement`]):
//! - a statement iterator by its value, parenthesised unless it is an atom;
//! - an array that lives in a flat device buffer, `A[e1][e2][e3]`, by one row-major
//!   subscript `A[((e1) * A_d1 + (e2)) * A_d2 + (e3)]` over the extents passed to the
//!   kernel (a one-dimensional reference keeps its subscript); the subscripts are
//!   rewritten first, so references inside subscripts are flattened too;
//! - a scalar held in a one-element buffer by `name[0]`;
//! - an array or scalar of the program that the kernel does not receive is an error;
//! - a parameter by the kernel argument that holds its value.
//!
//! Names after `.` or `->` are members and stay; so do string and character literals,
//! numbers, and every other name (macros, functions, types, scalars passed by value and
//! the kernel's own variables). Only whole tokens are replaced: `i` is never replaced
//! inside `ii` or `"i"`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::Range;

use pollen_emit_text::{matching_bracket, statement_text, tokens, Token, TokenKind};

use crate::error::{Error, Result};

/// How a name of a statement body is printed in a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rename {
    /// Replaced by this text (an iterator's value, a parameter's argument).
    Text(String),
    /// An array in a flat buffer; the names of its extents after the first.
    Flat(Vec<String>),
    /// A scalar in a one-element buffer: `name[0]`.
    Deref,
    /// An array promoted to shared memory: the shared array's name and the offset of
    /// each dimension, `A[e1][e2]` printed `name[(e1) - (o1)][(e2) - (o2)]`.
    Shared(String, Vec<String>),
    /// An array or scalar of the program that the kernel does not receive: an error.
    Missing,
    /// An array in a flat buffer whose references are a lane group's vector elements
    /// (the names of its extents after the first): each reference is printed as the
    /// placeholder [`lane_placeholder`] of its number in the statement and listed in
    /// the [`LaneRef`]s that [`kernel_statement`] returns.
    Lane(Vec<String>),
}

/// A reference of a [`Rename::Lane`] array in a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LaneRef {
    /// The array.
    pub array: String,
    /// Its flat subscript, as [`Rename::Flat`] prints it.
    pub index: String,
    /// Whether the statement may write it: an assignment operator follows it, or
    /// `++`, `--` or `&` is next to it.
    pub written: bool,
}

/// The text that stands for the lane reference number `n` of a statement: no C text
/// holds the control character it starts and ends with.
pub(crate) fn lane_placeholder(n: usize) -> String {
    format!("\u{1}{n}\u{1}")
}

/// The assignment operators of C.
const ASSIGNMENTS: [&str; 11] = [
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "<<=", ">>=",
];

/// The statement `statement` (its C text `body`) as a kernel prints it, with the names
/// of `names` replaced (see the module documentation), ending with `;`; the references
/// of [`Rename::Lane`] arrays are printed as placeholders and listed in order.
pub(crate) fn kernel_statement(
    statement: &str,
    body: &str,
    names: &BTreeMap<String, Rename>,
) -> Result<(String, Vec<LaneRef>)> {
    let text = statement_text(body);
    let Some(tokens) = tokens(&text) else {
        return Err(Error::UnsupportedStatement {
            statement: statement.to_string(),
            reason: "its text cannot be split into C tokens".to_string(),
        });
    };
    let rewriter = Rewriter {
        statement,
        text: &text,
        tokens: &tokens,
        names,
        lanes: RefCell::new(Vec::new()),
    };
    let printed = format!("{};", rewriter.range(0..tokens.len())?);
    Ok((printed, rewriter.lanes.into_inner()))
}

/// Rebuilds ranges of a statement's tokens.
struct Rewriter<'a> {
    statement: &'a str,
    text: &'a str,
    tokens: &'a [Token],
    names: &'a BTreeMap<String, Rename>,
    /// The references of [`Rename::Lane`] arrays met so far.
    lanes: RefCell<Vec<LaneRef>>,
}

impl Rewriter<'_> {
    /// The text of token `k`.
    fn spelling(&self, k: usize) -> &str {
        &self.text[self.tokens[k].range.clone()]
    }

    /// The tokens `range` rewritten, with the whitespace between them kept.
    fn range(&self, range: Range<usize>) -> Result<String> {
        let mut out = String::new();
        let mut k = range.start;
        while k < range.end {
            if k > range.start {
                out.push_str(&self.text[self.tokens[k - 1].range.end..self.tokens[k].range.start]);
            }
            let (piece, next) = self.token(k, range.end)?;
            out.push_str(&piece);
            k = next;
        }
        Ok(out)
    }

    /// Token `k` rewritten (with its subscripts, for a flattened array) and the index
    /// of the token after what it covered; nothing past `end` is used.
    fn token(&self, k: usize, end: usize) -> Result<(String, usize)> {
        let s = self.spelling(k);
        let member = k > 0 && matches!(self.spelling(k - 1), "." | "->");
        let rename = match self.tokens[k].kind {
            TokenKind::Identifier if !member => self.names.get(s),
            _ => None,
        };
        match rename {
            None => Ok((s.to_string(), k + 1)),
            Some(Rename::Text(t)) => Ok((t.clone(), k + 1)),
            Some(Rename::Deref) => Ok((format!("{s}[0]"), k + 1)),
            Some(Rename::Flat(extents)) => self.flat(k, end, extents),
            Some(Rename::Lane(extents)) => {
                let (reference, next) = self.flat(k, end, extents)?;
                let index = reference[s.len() + 1..reference.len() - 1].to_string();
                let before = k.checked_sub(1).map(|b| self.spelling(b));
                let after = (next < end).then(|| self.spelling(next));
                let written = matches!(before, Some("++" | "--" | "&"))
                    || after.is_some_and(|a| a == "++" || a == "--" || ASSIGNMENTS.contains(&a));
                let mut lanes = self.lanes.borrow_mut();
                let n = lanes.len();
                lanes.push(LaneRef {
                    array: s.to_string(),
                    index,
                    written,
                });
                Ok((lane_placeholder(n), next))
            }
            Some(Rename::Shared(name, offsets)) => self.shared(k, end, name, offsets),
            Some(Rename::Missing) => Err(Error::UnsupportedStatement {
                statement: self.statement.to_string(),
                reason: format!("it uses {s}, which the kernel does not receive"),
            }),
        }
    }

    /// The reference of the flat array at token `k` (with `extents.len() + 1`
    /// subscripts) as one subscript.
    fn flat(&self, k: usize, end: usize, extents: &[String]) -> Result<(String, usize)> {
        let name = self.spelling(k);
        let dimensions = extents.len() + 1;
        let mut subscripts = Vec::with_capacity(dimensions);
        let mut at = k + 1;
        for _ in 0..dimensions {
            let Some(close) = matching_bracket(self.text, self.tokens, at, end) else {
                return Err(Error::UnsupportedStatement {
                    statement: self.statement.to_string(),
                    reason: format!("{name} is used without its {dimensions} subscript(s)"),
                });
            };
            subscripts.push(self.range(at + 1..close)?.trim().to_string());
            at = close + 1;
        }
        let mut index = subscripts[0].clone();
        for (sub, extent) in subscripts[1..].iter().zip(extents) {
            index = format!("({index}) * {extent} + ({sub})");
        }
        Ok((format!("{name}[{index}]"), at))
    }

    /// The reference of the promoted array at token `k` (with `offsets.len()`
    /// subscripts) as a reference to the shared array `shared`.
    fn shared(
        &self,
        k: usize,
        end: usize,
        shared: &str,
        offsets: &[String],
    ) -> Result<(String, usize)> {
        let name = self.spelling(k);
        let mut out = shared.to_string();
        let mut at = k + 1;
        for offset in offsets {
            let Some(close) = matching_bracket(self.text, self.tokens, at, end) else {
                return Err(Error::UnsupportedStatement {
                    statement: self.statement.to_string(),
                    reason: format!("{name} is used without its {} subscript(s)", offsets.len()),
                });
            };
            let sub = self.range(at + 1..close)?;
            out.push_str(&format!("[({}) - ({offset})]", sub.trim()));
            at = close + 1;
        }
        Ok((out, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The printed text of a statement without lane references.
    fn text_of(statement: &str, body: &str, names: &BTreeMap<String, Rename>) -> Result<String> {
        kernel_statement(statement, body, names).map(|(text, _)| text)
    }

    fn names(list: &[(&str, Rename)]) -> BTreeMap<String, Rename> {
        list.iter()
            .map(|(n, r)| (n.to_string(), r.clone()))
            .collect()
    }

    fn text(s: &str) -> Rename {
        Rename::Text(s.to_string())
    }

    fn flat(extents: &[&str]) -> Rename {
        Rename::Flat(extents.iter().map(|e| e.to_string()).collect())
    }

    #[test]
    fn arrays_are_flattened_row_major() {
        let n = names(&[
            ("i", text("c0")),
            ("j", text("(c1 + 1)")),
            ("A", flat(&["A_d1"])),
            ("B", flat(&["B_d1", "B_d2"])),
            ("x", flat(&[])),
        ]);
        assert_eq!(
            text_of("S0", "A[i][j] += B[i][ j ][i - 1] * x[j];", &n),
            Ok("A[(c0) * A_d1 + ((c1 + 1))] += B[((c0) * B_d1 + ((c1 + 1))) * B_d2 + (c0 - 1)] * x[(c1 + 1)];".to_string())
        );
        // References inside subscripts are flattened too.
        let n = names(&[
            ("i", text("c0")),
            ("A", flat(&["A_d1"])),
            ("idx", flat(&[])),
        ]);
        assert_eq!(
            text_of("S0", "A[idx[i]][i] = 1;", &n),
            Ok("A[(idx[c0]) * A_d1 + (c0)] = 1;".to_string())
        );
    }

    #[test]
    fn only_whole_names_outside_literals_and_members_are_replaced() {
        let n = names(&[("i", text("c0")), ("s", Rename::Deref), ("N", text("p_N"))]);
        assert_eq!(
            text_of(
                "S1",
                "s = p.i + q->s + ii + i_1 + \"i s\" + 'i' + i * N; // i\n",
                &n
            ),
            Ok("s[0] = p.i + q->s + ii + i_1 + \"i s\" + 'i' + c0 * p_N;".to_string())
        );
        assert_eq!(
            text_of("S1", "s += SQRT_FUN(s) /* s */\n  * i;", &n),
            Ok("s[0] += SQRT_FUN(s[0]) * c0;".to_string())
        );
    }

    #[test]
    fn unreadable_or_partial_uses_are_errors() {
        let n = names(&[("A", flat(&["A_d1"])), ("B", Rename::Missing)]);
        let reason = |r: Result<String>| match r {
            Err(Error::UnsupportedStatement { reason, .. }) => reason,
            other => panic!("not an unsupported statement: {other:?}"),
        };
        assert!(reason(text_of("S0", "x = A[0];", &n)).contains("A is used without"));
        assert!(reason(text_of("S0", "f(A);", &n)).contains("A is used without"));
        assert!(reason(text_of("S0", "x = A[0][1 + B];", &n)).contains("uses B"));
        assert!(reason(text_of("S0", "x = #y;", &n)).contains("tokens"));
        assert!(reason(text_of("S0", "x = \"open;", &n)).contains("tokens"));
    }
}
