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

use std::collections::BTreeMap;
use std::ops::Range;

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
}

/// The statement's C text as one line: without its final `;`, comments removed and line
/// breaks (with the whitespace around them) replaced by one space.
pub(crate) fn statement_text(body: &str) -> String {
    let text = strip_comments(body);
    let text = join_lines(&text);
    let text = text.trim();
    let text = text.strip_suffix(';').unwrap_or(text);
    text.trim_end().to_string()
}

/// The statement `statement` (its C text `body`) as a kernel prints it, with the names
/// of `names` replaced (see the module documentation), ending with `;`.
pub(crate) fn kernel_statement(
    statement: &str,
    body: &str,
    names: &BTreeMap<String, Rename>,
) -> Result<String> {
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
    };
    Ok(format!("{};", rewriter.range(0..tokens.len())?))
}

/// Rebuilds ranges of a statement's tokens.
struct Rewriter<'a> {
    statement: &'a str,
    text: &'a str,
    tokens: &'a [Token],
    names: &'a BTreeMap<String, Rename>,
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
            let Some(close) = self.matching_bracket(at, end) else {
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
            let Some(close) = self.matching_bracket(at, end) else {
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

    /// The index of the `]` matching the `[` at token `open`, if token `open` (before
    /// `end`) is a `[` closed before `end`.
    fn matching_bracket(&self, open: usize, end: usize) -> Option<usize> {
        if open >= end || self.spelling(open) != "[" {
            return None;
        }
        let mut depth = 0usize;
        for k in open..end {
            match self.spelling(k) {
                "[" => depth += 1,
                "]" => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// The text with every comment replaced by a line break (a `//` comment by the one
/// that ends it), string and character literals
/// left alone.
fn strip_comments(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        let next = chars.get(k + 1).copied();
        if c == '/' && next == Some('*') {
            k += 2;
            while k < chars.len() && !(chars[k] == '*' && chars.get(k + 1) == Some(&'/')) {
                k += 1;
            }
            k += 2;
            // A line break, so that the whitespace around the comment becomes one space.
            out.push('\n');
        } else if c == '/' && next == Some('/') {
            while k < chars.len() && chars[k] != '\n' {
                k += 1;
            }
        } else if c == '"' || c == '\'' {
            k = copy_literal(&chars, k, &mut out);
        } else {
            out.push(c);
            k += 1;
        }
    }
    out
}

/// Copies the string or character literal starting at `start` (escapes included) and
/// returns the index after it.
fn copy_literal(chars: &[char], start: usize, out: &mut String) -> usize {
    let quote = chars[start];
    out.push(quote);
    let mut k = start + 1;
    while k < chars.len() {
        let c = chars[k];
        out.push(c);
        k += 1;
        if c == '\\' {
            if let Some(&escaped) = chars.get(k) {
                out.push(escaped);
                k += 1;
            }
        } else if c == quote || c == '\n' {
            break;
        }
    }
    k
}

/// Line continuations removed, and every run of whitespace that holds a line break
/// replaced by one space.
fn join_lines(text: &str) -> String {
    let text = text.replace("\\\r\n", "").replace("\\\n", "");
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            run.push(c);
            continue;
        }
        flush_whitespace(&mut out, &mut run);
        out.push(c);
    }
    flush_whitespace(&mut out, &mut run);
    out
}

/// Appends a whitespace run as is, or as one space if it holds a line break.
fn flush_whitespace(out: &mut String, run: &mut String) {
    if run.contains('\n') || run.contains('\r') {
        out.push(' ');
    } else {
        out.push_str(run);
    }
    run.clear();
}

/// The lexical class of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// A name (keywords included).
    Identifier,
    /// A preprocessing number: `1`, `0x1f`, `2.5e-3`.
    Number,
    /// A string or character literal, with its prefix.
    Literal,
    /// An operator or punctuator.
    Punctuator,
}

/// One token: its class and its byte range in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    /// The class.
    pub kind: TokenKind,
    /// The bytes of the text it covers.
    pub range: Range<usize>,
}

/// The punctuators of three and two characters, longest first.
const LONG_PUNCTUATORS: [&str; 23] = [
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##",
];

/// The prefixes of string and character literals.
const LITERAL_PREFIXES: [&str; 4] = ["L", "u", "U", "u8"];

/// The tokens of `text`, or `None` when it holds something this scanner does not read
/// (comments, preprocessor operators, line continuations, unterminated literals,
/// non-ASCII characters outside literals).
pub(crate) fn tokens(text: &str) -> Option<Vec<Token>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        let c = bytes[k];
        let start = k;
        let kind = if c.is_ascii_whitespace() {
            k += 1;
            continue;
        } else if c == b'_' || c.is_ascii_alphabetic() {
            k = word_end(bytes, k);
            if matches!(bytes.get(k), Some(b'\'' | b'"'))
                && LITERAL_PREFIXES.contains(&&text[start..k])
            {
                k = literal_end(bytes, k)?;
                TokenKind::Literal
            } else {
                TokenKind::Identifier
            }
        } else if c.is_ascii_digit()
            || (c == b'.' && bytes.get(k + 1).is_some_and(u8::is_ascii_digit))
        {
            k = number_end(bytes, k);
            TokenKind::Number
        } else if c == b'\'' || c == b'"' {
            k = literal_end(bytes, k)?;
            TokenKind::Literal
        } else if unreadable(bytes, k) {
            return None;
        } else {
            k += punctuator_len(&text[k..]);
            TokenKind::Punctuator
        };
        out.push(Token {
            kind,
            range: start..k,
        });
    }
    Some(out)
}

/// Whether the byte at `k` starts something the scanner does not read: a comment, a
/// preprocessor operator, a line continuation, a control or non-ASCII character.
fn unreadable(bytes: &[u8], k: usize) -> bool {
    let c = bytes[k];
    c == b'#'
        || c == b'\\'
        || !c.is_ascii()
        || c.is_ascii_control()
        || (c == b'/' && matches!(bytes.get(k + 1), Some(b'/' | b'*')))
}

/// The end of the identifier starting at `k`.
fn word_end(bytes: &[u8], mut k: usize) -> usize {
    while k < bytes.len() && (bytes[k] == b'_' || bytes[k].is_ascii_alphanumeric()) {
        k += 1;
    }
    k
}

/// The end of the preprocessing number starting at `k`: digits, letters, `_`, `.`, and
/// a sign after an exponent letter.
fn number_end(bytes: &[u8], mut k: usize) -> usize {
    while k < bytes.len() {
        let c = bytes[k];
        let sign = (c == b'+' || c == b'-') && matches!(bytes[k - 1], b'e' | b'E' | b'p' | b'P');
        if c == b'_' || c == b'.' || c.is_ascii_alphanumeric() || sign {
            k += 1;
        } else {
            break;
        }
    }
    k
}

/// The end of the literal whose opening quote is at `k` (escapes skipped), or `None`
/// when it is not closed on the line.
fn literal_end(bytes: &[u8], k: usize) -> Option<usize> {
    let quote = bytes[k];
    let mut k = k + 1;
    while k < bytes.len() {
        match bytes[k] {
            b'\\' => k += 2,
            b'\n' => return None,
            c if c == quote => return Some(k + 1),
            _ => k += 1,
        }
    }
    None
}

/// The length of the punctuator at the start of `rest` (non-empty, ASCII first byte).
fn punctuator_len(rest: &str) -> usize {
    LONG_PUNCTUATORS
        .iter()
        .find(|p| rest.starts_with(*p))
        .map_or(1, |p| p.len())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            kernel_statement("S0", "A[i][j] += B[i][ j ][i - 1] * x[j];", &n),
            Ok("A[(c0) * A_d1 + ((c1 + 1))] += B[((c0) * B_d1 + ((c1 + 1))) * B_d2 + (c0 - 1)] * x[(c1 + 1)];".to_string())
        );
        // References inside subscripts are flattened too.
        let n = names(&[
            ("i", text("c0")),
            ("A", flat(&["A_d1"])),
            ("idx", flat(&[])),
        ]);
        assert_eq!(
            kernel_statement("S0", "A[idx[i]][i] = 1;", &n),
            Ok("A[(idx[c0]) * A_d1 + (c0)] = 1;".to_string())
        );
    }

    #[test]
    fn only_whole_names_outside_literals_and_members_are_replaced() {
        let n = names(&[("i", text("c0")), ("s", Rename::Deref), ("N", text("p_N"))]);
        assert_eq!(
            kernel_statement(
                "S1",
                "s = p.i + q->s + ii + i_1 + \"i s\" + 'i' + i * N; // i\n",
                &n
            ),
            Ok("s[0] = p.i + q->s + ii + i_1 + \"i s\" + 'i' + c0 * p_N;".to_string())
        );
        assert_eq!(
            kernel_statement("S1", "s += SQRT_FUN(s) /* s */\n  * i;", &n),
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
        assert!(reason(kernel_statement("S0", "x = A[0];", &n)).contains("A is used without"));
        assert!(reason(kernel_statement("S0", "f(A);", &n)).contains("A is used without"));
        assert!(reason(kernel_statement("S0", "x = A[0][1 + B];", &n)).contains("uses B"));
        assert!(reason(kernel_statement("S0", "x = #y;", &n)).contains("tokens"));
        assert!(reason(kernel_statement("S0", "x = \"open;", &n)).contains("tokens"));
    }
}
