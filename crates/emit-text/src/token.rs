//! A C tokenizer for one line of statement text.
//!
//! [`tokens`] splits a statement's text (as [`statement_text`](crate::statement_text)
//! makes it: comments removed, one line) into identifiers, preprocessing numbers,
//! string and character literals and punctuators, each with its byte range in the text,
//! so that a caller can rebuild the text with some tokens replaced and the whitespace
//! between them kept. Text it does not read (comments, preprocessor operators, line
//! continuations, unterminated literals, control or non-ASCII characters outside
//! literals) has no tokens.

use std::ops::Range;

/// The lexical class of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
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
pub struct Token {
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
pub fn tokens(text: &str) -> Option<Vec<Token>> {
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

/// The index of the `]` matching the `[` at token `open`, when token `open` is a `[`
/// before `end` and is closed before `end` (`end` is at most `tokens.len()`).
pub fn matching_bracket(text: &str, tokens: &[Token], open: usize, end: usize) -> Option<usize> {
    let spelling = |k: usize| text.get(tokens.get(k)?.range.clone());
    if open >= end || spelling(open) != Some("[") {
        return None;
    }
    let mut depth = 0usize;
    for k in open..end {
        match spelling(k)? {
            "[" => depth += 1,
            "]" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spellings(text: &str) -> Vec<&str> {
        tokens(text)
            .expect("tokenises")
            .iter()
            .map(|t| &text[t.range.clone()])
            .collect()
    }

    #[test]
    fn tokens_of_c_text() {
        assert_eq!(
            spellings("C[i][j]+=alpha*A[i][k]"),
            [
                "C", "[", "i", "]", "[", "j", "]", "+=", "alpha", "*", "A", "[", "i", "]", "[",
                "k", "]"
            ]
        );
        assert_eq!(spellings("x = 1.5e-3+y"), ["x", "=", "1.5e-3", "+", "y"]);
        assert_eq!(spellings("p->a[i]"), ["p", "->", "a", "[", "i", "]"]);
        assert_eq!(
            spellings(r#"s = "a[i]\"" + 'x' + L'\'' + u8"q""#),
            [
                "s",
                "=",
                r#""a[i]\"""#,
                "+",
                "'x'",
                "+",
                r"L'\''",
                "+",
                r#"u8"q""#
            ]
        );
        assert_eq!(spellings("a <<= .5"), ["a", "<<=", ".5"]);
        assert!(tokens("s = \"open").is_none());
        assert!(tokens("a = b // c").is_none());
        assert!(tokens("#x").is_none());
        assert!(tokens("a = é").is_none());
    }

    #[test]
    fn brackets_match_by_depth() {
        let text = "A[B[i]][j] + x";
        let ts = tokens(text).expect("tokenises");
        assert_eq!(matching_bracket(text, &ts, 1, ts.len()), Some(6));
        assert_eq!(matching_bracket(text, &ts, 3, ts.len()), Some(5));
        assert_eq!(matching_bracket(text, &ts, 7, ts.len()), Some(9));
        // Not a `[`, not closed before `end`, or out of range.
        assert_eq!(matching_bracket(text, &ts, 0, ts.len()), None);
        assert_eq!(matching_bracket(text, &ts, 1, 6), None);
        assert_eq!(matching_bracket(text, &ts, 40, 50), None);
    }
}
