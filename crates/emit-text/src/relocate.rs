//! Array references moved to another array with shifted subscripts.
//!
//! [`relocate`] rewrites every reference `A[e1]...[en]` of a statement's text to an array
//! listed in its table into `B[(e1) - (o1)]...[(en) - (on)]`: the same element of a
//! smaller array `B` that holds the window of `A` starting at `(o1, ..., on)`. Fused
//! tiling uses it for the scratchpads of a tile's intermediate values. References inside
//! subscripts are relocated too; names after `.` or `->` are members and stay; every
//! other token is kept with the whitespace between tokens.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::token::{matching_bracket, tokens, Token, TokenKind};

/// Where the references to one array go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relocation {
    /// The array the references are printed to.
    pub name: String,
    /// The C text of each dimension's offset, one per subscript.
    pub offsets: Vec<String>,
}

/// `text` (one line of C, as [`statement_text`](crate::statement_text) makes it) with the
/// references to the arrays of `table` relocated; `None` when the text cannot be split
/// into tokens or a relocated array is used without all of its subscripts.
pub fn relocate(text: &str, table: &BTreeMap<String, Relocation>) -> Option<String> {
    let tokens = tokens(text)?;
    let pass = Pass {
        text,
        tokens: &tokens,
        table,
    };
    pass.range(0..tokens.len())
}

struct Pass<'a> {
    text: &'a str,
    tokens: &'a [Token],
    table: &'a BTreeMap<String, Relocation>,
}

impl Pass<'_> {
    fn spelling(&self, k: usize) -> &str {
        &self.text[self.tokens[k].range.clone()]
    }

    /// The tokens of `range` rewritten, the whitespace between them kept.
    fn range(&self, range: Range<usize>) -> Option<String> {
        let mut out = String::new();
        let mut k = range.start;
        while k < range.end {
            if k > range.start {
                out.push_str(&self.text[self.tokens[k - 1].range.end..self.tokens[k].range.start]);
            }
            let member = k > 0 && matches!(self.spelling(k - 1), "." | "->");
            let target = match self.tokens[k].kind {
                TokenKind::Identifier if !member => self.table.get(self.spelling(k)),
                _ => None,
            };
            match target {
                None => {
                    out.push_str(self.spelling(k));
                    k += 1;
                }
                Some(r) => {
                    out.push_str(&r.name);
                    let mut at = k + 1;
                    for offset in &r.offsets {
                        let close = matching_bracket(self.text, self.tokens, at, range.end)?;
                        let subscript = self.range(at + 1..close)?;
                        out.push_str(&format!("[({}) - ({offset})]", subscript.trim()));
                        at = close + 1;
                    }
                    k = at;
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(entries: &[(&str, &str, &[&str])]) -> BTreeMap<String, Relocation> {
        entries
            .iter()
            .map(|(from, to, offsets)| {
                (
                    from.to_string(),
                    Relocation {
                        name: to.to_string(),
                        offsets: offsets.iter().map(|o| o.to_string()).collect(),
                    },
                )
            })
            .collect()
    }

    #[test]
    fn references_are_shifted_into_the_window() {
        let t = table(&[("bx", "bx_tile", &["32 * o0 - 1", "0"])]);
        assert_eq!(
            relocate("by[x][y] = (bx[x][y] + bx[x+1][ y ]) / 3.0f;", &t).as_deref(),
            Some("by[x][y] = (bx_tile[(x) - (32 * o0 - 1)][(y) - (0)] + bx_tile[(x+1) - (32 * o0 - 1)][(y) - (0)]) / 3.0f;")
        );
    }

    #[test]
    fn nested_references_members_and_missing_subscripts() {
        let t = table(&[("A", "L", &["k"])]);
        assert_eq!(
            relocate("B[A[i]] = s.A + p->A;", &t).as_deref(),
            Some("B[L[(i) - (k)]] = s.A + p->A;")
        );
        assert_eq!(relocate("x = A + 1;", &t), None);
        assert_eq!(relocate("x = A[1;", &t), None);
    }
}
