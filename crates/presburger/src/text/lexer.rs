//! Tokens of the isl text syntax and the lexer that produces them.
//!
//! The token set follows isl's `isl_stream.c`: identifiers are ASCII letters, digits and
//! `_` (not starting with a digit) optionally followed by primes (`i'`); integer literals
//! are unsigned decimal digit strings of any length (read exactly with [`Int`]'s
//! `FromStr`); keywords (`exists and or not implies mod floor ceil floord ceild min max
//! true false` and the unsupported `infty infinity nan rat`) are recognised without regard
//! to case; `#` starts a comment that runs to the end of the line.
//!
//! # Invariants
//! - positions are 1-based lines and columns counted in `char`s, already shifted by the
//!   caller's offset (see [`lex`]);
//! - the token list always ends with exactly one [`Tok::Eof`];
//! - lexing never panics: an unexpected character is an [`Error::Parse`].

use std::fmt;

use pollen_arith::Int;

use crate::error::{Error, Result};

/// A position in the source text (1-based, offset already applied).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pos {
    /// Line.
    pub line: usize,
    /// Column, in characters.
    pub col: usize,
}

impl Pos {
    /// A parse error at this position.
    pub fn error(self, message: impl Into<String>) -> Error {
        Error::Parse {
            line: self.line,
            column: self.col,
            message: message.into(),
        }
    }

    /// An [`Error::UnsupportedSyntax`] for `construct` at this position.
    pub fn unsupported(self, construct: impl Into<String>) -> Error {
        Error::UnsupportedSyntax {
            line: self.line,
            column: self.col,
            construct: construct.into(),
        }
    }
}

/// Keywords, matched without regard to case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keyword {
    Exists,
    And,
    Or,
    Not,
    Implies,
    Mod,
    Floor,
    Ceil,
    Floord,
    Ceild,
    Min,
    Max,
    True,
    False,
    /// `infty`, `infinity`, `nan`, `rat`: keywords of isl that this parser rejects.
    Unsupported,
}

/// Every word that isl treats as a keyword (lower case); printers must not use them as names.
pub const KEYWORDS: &[&str] = &[
    "exists", "and", "or", "not", "implies", "mod", "floor", "ceil", "floord", "ceild", "min",
    "max", "true", "false", "infty", "infinity", "nan", "rat",
];

fn keyword(word: &str) -> Option<Keyword> {
    let lower = word.to_ascii_lowercase();
    Some(match lower.as_str() {
        "exists" => Keyword::Exists,
        "and" => Keyword::And,
        "or" => Keyword::Or,
        "not" => Keyword::Not,
        "implies" => Keyword::Implies,
        "mod" => Keyword::Mod,
        "floor" => Keyword::Floor,
        "ceil" => Keyword::Ceil,
        "floord" => Keyword::Floord,
        "ceild" => Keyword::Ceild,
        "min" => Keyword::Min,
        "max" => Keyword::Max,
        "true" => Keyword::True,
        "false" => Keyword::False,
        "infty" | "infinity" | "nan" | "rat" => Keyword::Unsupported,
        _ => return None,
    })
}

/// One token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An identifier.
    Ident(String),
    /// An unsigned integer literal.
    Int(Int),
    /// A keyword, with its spelling in the source.
    Kw(Keyword, String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Semi,
    Colon,
    /// `?` of a conditional expression `(c ? a : b)`.
    Question,
    Plus,
    Minus,
    Star,
    Slash,
    /// `//`: integer division.
    SlashSlash,
    Percent,
    Arrow,
    /// `=`.
    Eq,
    /// `==`.
    EqEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LexLt,
    LexLe,
    LexGt,
    LexGe,
    /// `&`, `&&` or `/\`.
    AndOp(&'static str),
    /// `|`, `||` or `\/`.
    OrOp(&'static str),
    /// `!`.
    Bang,
    /// End of input.
    Eof,
}

impl Tok {
    /// Whether the token is the keyword `kw`.
    pub fn is_kw(&self, kw: Keyword) -> bool {
        matches!(self, Tok::Kw(k, _) if *k == kw)
    }
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s: &str = match self {
            Tok::Ident(s) | Tok::Kw(_, s) => return write!(f, "'{s}'"),
            Tok::Int(v) => return write!(f, "'{v}'"),
            Tok::Eof => return write!(f, "end of input"),
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Semi => ";",
            Tok::Colon => ":",
            Tok::Question => "?",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::SlashSlash => "//",
            Tok::Percent => "%",
            Tok::Arrow => "->",
            Tok::Eq => "=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::LexLt => "<<",
            Tok::LexLe => "<<=",
            Tok::LexGt => ">>",
            Tok::LexGe => ">>=",
            Tok::AndOp(s) | Tok::OrOp(s) => s,
            Tok::Bang => "!",
        };
        write!(f, "'{s}'")
    }
}

/// A token with its position.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it starts.
    pub pos: Pos,
}

/// Whether `c` may start an identifier.
pub fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// Whether `c` may continue an identifier (before its trailing primes).
pub fn is_ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `s` is a valid identifier that is not a keyword.
pub fn is_plain_identifier(s: &str) -> bool {
    let body = s.trim_end_matches('\'');
    let mut chars = body.chars();
    match chars.next() {
        Some(c) if is_ident_start(c) => {}
        _ => return false,
    }
    chars.all(is_ident_continue) && keyword(s).is_none()
}

/// Splits `text` into tokens; the first character is at (`line`, `col`).
pub(crate) fn lex(text: &str, line: usize, col: usize) -> Result<Vec<Token>> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let (mut line, mut col) = (line, col);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            col = 1;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            col += 1;
            i += 1;
            continue;
        }
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let pos = Pos { line, col };
        let next = chars.get(i + 1).copied();
        let next2 = chars.get(i + 2).copied();
        let (tok, len) = if is_ident_start(c) {
            let mut j = i + 1;
            while j < chars.len() && is_ident_continue(chars[j]) {
                j += 1;
            }
            while j < chars.len() && chars[j] == '\'' {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            let tok = match keyword(&word) {
                Some(k) => Tok::Kw(k, word),
                None => Tok::Ident(word),
            };
            (tok, j - i)
        } else if c.is_ascii_digit() {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let digits: String = chars[i..j].iter().collect();
            let value = digits
                .parse::<Int>()
                .map_err(|_| pos.error(format!("invalid integer literal '{digits}'")))?;
            (Tok::Int(value), j - i)
        } else {
            match (c, next, next2) {
                ('(', _, _) => (Tok::LParen, 1),
                (')', _, _) => (Tok::RParen, 1),
                ('[', _, _) => (Tok::LBracket, 1),
                (']', _, _) => (Tok::RBracket, 1),
                ('{', _, _) => (Tok::LBrace, 1),
                ('}', _, _) => (Tok::RBrace, 1),
                (',', _, _) => (Tok::Comma, 1),
                (';', _, _) => (Tok::Semi, 1),
                (':', _, _) => (Tok::Colon, 1),
                ('?', _, _) => (Tok::Question, 1),
                ('+', _, _) => (Tok::Plus, 1),
                ('-', Some('>'), _) => (Tok::Arrow, 2),
                ('-', _, _) => (Tok::Minus, 1),
                ('*', _, _) => (Tok::Star, 1),
                ('/', Some('/'), _) => (Tok::SlashSlash, 2),
                ('/', Some('\\'), _) => (Tok::AndOp("/\\"), 2),
                ('/', _, _) => (Tok::Slash, 1),
                ('\\', Some('/'), _) => (Tok::OrOp("\\/"), 2),
                ('%', _, _) => (Tok::Percent, 1),
                ('=', Some('='), _) => (Tok::EqEq, 2),
                ('=', _, _) => (Tok::Eq, 1),
                ('!', Some('='), _) => (Tok::Ne, 2),
                ('!', _, _) => (Tok::Bang, 1),
                ('<', Some('<'), Some('=')) => (Tok::LexLe, 3),
                ('<', Some('<'), _) => (Tok::LexLt, 2),
                ('<', Some('='), _) => (Tok::Le, 2),
                ('<', _, _) => (Tok::Lt, 1),
                ('>', Some('>'), Some('=')) => (Tok::LexGe, 3),
                ('>', Some('>'), _) => (Tok::LexGt, 2),
                ('>', Some('='), _) => (Tok::Ge, 2),
                ('>', _, _) => (Tok::Gt, 1),
                ('&', Some('&'), _) => (Tok::AndOp("&&"), 2),
                ('&', _, _) => (Tok::AndOp("&"), 1),
                ('|', Some('|'), _) => (Tok::OrOp("||"), 2),
                ('|', _, _) => (Tok::OrOp("|"), 1),
                _ => return Err(pos.error(format!("unexpected character {c:?}"))),
            }
        };
        tokens.push(Token { tok, pos });
        i += len;
        col += len;
    }
    tokens.push(Token {
        tok: Tok::Eof,
        pos: Pos { line, col },
    });
    Ok(tokens)
}
