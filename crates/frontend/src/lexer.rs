//! The C lexer: tokens with byte spans, comments skipped, preprocessor lines kept whole.
//!
//! The lexer never fails: characters that start no C token become [`TokenKind::Unknown`]
//! tokens, unterminated comments run to the end of the text and unterminated literals to
//! the end of their line. Whoever reads the tokens decides what is an error (the region
//! parser rejects what it does not understand, the declaration scanner skips it).
//!
//! A preprocessor line (a `#` that is the first non-blank character of a line) is one
//! [`TokenKind::Directive`] token running to the end of its logical line (backslash
//! continuations included), not including the line break.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// An identifier or keyword.
    Ident,
    /// An integer constant (C syntax, suffixes included).
    Int,
    /// A floating constant.
    Float,
    /// A string literal.
    Str,
    /// A character constant.
    Char,
    /// An operator or punctuator.
    Punct,
    /// A whole preprocessor line.
    Directive,
    /// A character that starts no C token.
    Unknown,
}

/// A token: its kind and its byte span in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    /// The kind.
    pub kind: TokenKind,
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset just past the last character.
    pub end: usize,
}

/// Punctuators, longest first so that the first match is the longest.
const PUNCTUATORS: [&str; 48] = [
    "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=",
    "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "[", "]", "(", ")", "{", "}", ".", "&", "*",
    "+", "-", "~", "!", "/", "%", "<", ">", "^", "|", "?", ":", ";", "=", ",", "#",
];

/// Splits `source` into tokens.
pub(crate) fn lex(source: &str) -> Vec<Token> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if matches!(c, b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
            i += 1;
            continue;
        }
        if c == b'\\' && matches!(next, Some(b'\n') | Some(b'\r')) {
            i += 1;
            continue;
        }
        if c == b'/' && next == Some(b'/') {
            i = line_end(bytes, i);
            continue;
        }
        if c == b'/' && next == Some(b'*') {
            i = comment_end(bytes, i + 2);
            continue;
        }
        let start = i;
        let kind = if c == b'#' && line_start {
            i = directive_end(bytes, i);
            TokenKind::Directive
        } else if c.is_ascii_alphabetic() || c == b'_' {
            i = scan_while(bytes, i, |b| b.is_ascii_alphanumeric() || b == b'_');
            TokenKind::Ident
        } else if c.is_ascii_digit() || (c == b'.' && next.is_some_and(|b| b.is_ascii_digit())) {
            let (end, float) = scan_number(bytes, i);
            i = end;
            if float {
                TokenKind::Float
            } else {
                TokenKind::Int
            }
        } else if c == b'"' || c == b'\'' {
            i = literal_end(bytes, i);
            if c == b'"' {
                TokenKind::Str
            } else {
                TokenKind::Char
            }
        } else if let Some(p) = PUNCTUATORS
            .iter()
            .find(|p| bytes[i..].starts_with(p.as_bytes()))
        {
            i += p.len();
            TokenKind::Punct
        } else {
            i += 1;
            while i < bytes.len() && !source.is_char_boundary(i) {
                i += 1;
            }
            TokenKind::Unknown
        };
        line_start = false;
        tokens.push(Token {
            kind,
            start,
            end: i,
        });
    }
    tokens
}

/// The index of the line break ending the line that holds `i` (or the text's end).
fn line_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| i + p)
}

/// The index just past the `*/` closing a comment whose body starts at `i`.
fn comment_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i;
    while j + 1 < bytes.len() {
        if bytes[j] == b'*' && bytes[j + 1] == b'/' {
            return j + 2;
        }
        j += 1;
    }
    bytes.len()
}

/// The end of the logical line of a directive starting at `i`: before its line break
/// (and a carriage return preceding it), following backslash continuations and skipping
/// comments.
fn directive_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < bytes.len() {
        match bytes[j] {
            b'\n' => {
                let mut k = j;
                while k > i && bytes[k - 1] == b'\r' {
                    k -= 1;
                }
                if k > i && bytes[k - 1] == b'\\' {
                    j += 1;
                    continue;
                }
                return k;
            }
            b'/' if bytes.get(j + 1) == Some(&b'*') => j = comment_end(bytes, j + 2),
            b'/' if bytes.get(j + 1) == Some(&b'/') => j = line_end(bytes, j),
            _ => j += 1,
        }
    }
    let mut k = bytes.len();
    while k > i && bytes[k - 1] == b'\r' {
        k -= 1;
    }
    k
}

fn scan_while(bytes: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while i < bytes.len() && f(bytes[i]) {
        i += 1;
    }
    i
}

/// Scans a preprocessing number starting at `i`; says whether it is a floating constant.
fn scan_number(bytes: &[u8], start: usize) -> (usize, bool) {
    let hex =
        bytes[start..].len() > 1 && bytes[start] == b'0' && matches!(bytes[start + 1], b'x' | b'X');
    let mut i = start;
    let mut float = false;
    while i < bytes.len() {
        let b = bytes[i];
        let exponent = if hex {
            matches!(b, b'p' | b'P')
        } else {
            matches!(b, b'e' | b'E')
        };
        if exponent && matches!(bytes.get(i + 1), Some(b'+') | Some(b'-')) {
            float = true;
            i += 2;
        } else if b == b'.' || exponent {
            float = true;
            i += 1;
        } else if b.is_ascii_alphanumeric() || b == b'_' {
            i += 1;
        } else {
            break;
        }
    }
    (i, float)
}

/// The end of a string or character literal starting at `i` (its closing quote, or the
/// end of the line when unterminated).
fn literal_end(bytes: &[u8], i: usize) -> usize {
    let quote = bytes[i];
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            b if b == quote => return j + 1,
            _ => j += 1,
        }
    }
    bytes.len()
}

/// The words of a directive's text after its `#`, comments and continuations removed:
/// `#  pragma scop // x` gives `["pragma", "scop"]`.
pub(crate) fn directive_words(text: &str) -> Vec<String> {
    let body = text.strip_prefix('#').unwrap_or(text);
    let mut cleaned = String::new();
    let mut rest = body;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |p| &after[p + 2..]);
            cleaned.push(' ');
        } else if rest.starts_with("//") {
            break;
        } else if let Some(after) = rest.strip_prefix('\\') {
            cleaned.push(' ');
            rest = after;
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            cleaned.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    cleaned.split_whitespace().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_and_texts(source: &str) -> Vec<(TokenKind, &str)> {
        lex(source)
            .into_iter()
            .map(|t| (t.kind, &source[t.start..t.end]))
            .collect()
    }

    #[test]
    fn tokens_comments_and_directives() {
        let src =
            "#include <x.h>\n  # pragma scop /* c */\nA[i] += 1.5e-3 /* x */ + 0x1F; // y\n x<<=2;";
        let toks = kinds_and_texts(src);
        assert_eq!(toks[0], (TokenKind::Directive, "#include <x.h>"));
        assert_eq!(toks[1], (TokenKind::Directive, "# pragma scop /* c */"));
        let rest: Vec<&str> = toks[2..].iter().map(|t| t.1).collect();
        assert_eq!(
            rest,
            ["A", "[", "i", "]", "+=", "1.5e-3", "+", "0x1F", ";", "x", "<<=", "2", ";"]
        );
        assert_eq!(toks[7].0, TokenKind::Float);
        assert_eq!(toks[9].0, TokenKind::Int);
    }

    #[test]
    fn hash_inside_a_line_is_a_punctuator() {
        let toks = kinds_and_texts("a # b");
        assert_eq!(toks[1], (TokenKind::Punct, "#"));
    }

    #[test]
    fn directive_continuations_and_crlf() {
        let src = "#define A \\\r\n 1\r\nx";
        let toks = kinds_and_texts(src);
        assert_eq!(toks[0], (TokenKind::Directive, "#define A \\\r\n 1"));
        assert_eq!(toks[1], (TokenKind::Ident, "x"));
    }

    #[test]
    fn unterminated_and_unknown() {
        let toks = kinds_and_texts("\"abc\n@ é /* never closed");
        assert_eq!(toks[0], (TokenKind::Str, "\"abc"));
        assert_eq!(toks[1], (TokenKind::Unknown, "@"));
        assert_eq!(toks[2], (TokenKind::Unknown, "é"));
        assert_eq!(toks.len(), 3);
    }

    #[test]
    fn words_of_directives() {
        assert_eq!(directive_words("#  pragma   scop // x"), ["pragma", "scop"]);
        assert_eq!(directive_words("#pragma/**/endscop"), ["pragma", "endscop"]);
    }
}
