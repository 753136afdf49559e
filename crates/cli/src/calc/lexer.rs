//! Tokens of the `pollen calc` language.
//!
//! The language is iscc's: identifiers, the operators `:= ; + * - . = <= < ^-1 ( )`,
//! `#` comments to the end of a line, and set/map literals. A literal is either a
//! brace-balanced `{ ... }` or a parameter list `[ ... ] -> { ... }`, either possibly
//! after isl's `rat:` (a rational set, which the library refuses at `rat`); its text is
//! kept whole and handed to the isl-syntax parser of `pollen-presburger`, so the
//! calculator never needs to understand constraints itself.
//!
//! # Invariants
//! - Every token's span is a byte range of the source; spans are increasing and do not
//!   overlap; the last token is [`TokenKind::Eof`].
//! - A literal's text has exactly the bytes of its source span, except that the bytes
//!   of `#` comments are replaced by spaces. Byte offsets inside the literal therefore
//!   correspond one to one with offsets in the script, and so do line and column
//!   positions up to the comment that ends a line.
//! - Lexing never fails: a character sequence that forms no token becomes a
//!   [`TokenKind::Invalid`] token carrying the error message, so that the parser can
//!   report it and resume at the next `;`.

/// A half-open byte range `start..end` of the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A variable name or an operator keyword such as `dom`.
    Ident(String),
    /// A set or map literal, comments blanked (see the module invariants).
    Literal(String),
    /// `:=`
    Assign,
    /// `;`
    Semi,
    /// `+`
    Plus,
    /// `*`
    Star,
    /// `-`
    Minus,
    /// `.`
    Dot,
    /// `=`
    Eq,
    /// `<=`
    Le,
    /// `<`
    Lt,
    /// `^-1`
    Inverse,
    /// `^+`: the transitive closure.
    ClosurePlus,
    /// `^*`: the reflexive transitive closure.
    ClosureStar,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// Text that forms no token, with the reason.
    Invalid(String),
    /// The end of the source.
    Eof,
}

impl TokenKind {
    /// How the token is named in error messages.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Ident(name) => format!("`{name}`"),
            TokenKind::Literal(_) => "a set or map literal".to_string(),
            TokenKind::Assign => "`:=`".to_string(),
            TokenKind::Semi => "`;`".to_string(),
            TokenKind::Plus => "`+`".to_string(),
            TokenKind::Star => "`*`".to_string(),
            TokenKind::Minus => "`-`".to_string(),
            TokenKind::Dot => "`.`".to_string(),
            TokenKind::Eq => "`=`".to_string(),
            TokenKind::Le => "`<=`".to_string(),
            TokenKind::Lt => "`<`".to_string(),
            TokenKind::Inverse => "`^-1`".to_string(),
            TokenKind::ClosurePlus => "`^+`".to_string(),
            TokenKind::ClosureStar => "`^*`".to_string(),
            TokenKind::LParen => "`(`".to_string(),
            TokenKind::RParen => "`)`".to_string(),
            TokenKind::Invalid(_) => "invalid input".to_string(),
            TokenKind::Eof => "the end of the input".to_string(),
        }
    }
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is.
    pub span: Span,
}

/// Splits a script into tokens (see the module invariants).
pub fn tokenize(src: &str) -> Vec<Token> {
    let mut lexer = Lexer { src, pos: 0 };
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next_token();
        let done = token.kind == TokenKind::Eof;
        tokens.push(token);
        if done {
            return tokens;
        }
    }
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.src[self.pos..].chars().nth(offset)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Skips white space and `#` comments.
    fn skip_trivia(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.bump();
            } else if c == '#' {
                self.skip_comment();
            } else {
                break;
            }
        }
    }

    fn skip_comment(&mut self) {
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            self.bump();
        }
    }

    fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let Some(c) = self.bump() else {
            return self.token(TokenKind::Eof, start);
        };
        let kind = match c {
            ';' => TokenKind::Semi,
            '+' => TokenKind::Plus,
            '*' => TokenKind::Star,
            '-' => TokenKind::Minus,
            '.' => TokenKind::Dot,
            '=' => TokenKind::Eq,
            '(' => TokenKind::LParen,
            ')' => TokenKind::RParen,
            ':' if self.peek() == Some('=') => {
                self.bump();
                TokenKind::Assign
            }
            '<' if self.peek() == Some('=') => {
                self.bump();
                TokenKind::Le
            }
            '<' => TokenKind::Lt,
            '^' => self.inverse(),
            '{' => self.literal_body(start),
            '[' => self.parametric_literal(start),
            c if c.is_ascii_alphabetic() || c == '_' => match self.ident(start) {
                TokenKind::Ident(word) if word.eq_ignore_ascii_case("rat") => self
                    .rational_literal(start)
                    .unwrap_or(TokenKind::Ident(word)),
                kind => kind,
            },
            c => TokenKind::Invalid(format!("unexpected character `{c}`")),
        };
        self.token(kind, start)
    }

    fn token(&self, kind: TokenKind, start: usize) -> Token {
        Token {
            kind,
            span: Span {
                start,
                end: self.pos,
            },
        }
    }

    fn ident(&mut self, start: usize) -> TokenKind {
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '_' || c == '\'' {
                self.bump();
            } else {
                break;
            }
        }
        TokenKind::Ident(self.src[start..self.pos].to_string())
    }

    /// After `rat`: when `:` (not `:=`) follows, the literal `rat: { ... }` (or
    /// `rat: [ ... ] -> { ... }`) starting at `start`, whose reading reports rational
    /// sets as unsupported; `None`, consuming nothing, when `rat` is a variable.
    fn rational_literal(&mut self, start: usize) -> Option<TokenKind> {
        let save = self.pos;
        self.skip_trivia();
        if self.peek() != Some(':') || self.peek_at(1) == Some('=') {
            self.pos = save;
            return None;
        }
        self.bump();
        self.skip_trivia();
        Some(match self.bump() {
            Some('{') => self.literal_body(start),
            Some('[') => self.parametric_literal(start),
            _ => TokenKind::Invalid(
                "unsupported: rational sets (`rat:`), and a `{ ... }` literal expected after `rat:`"
                    .into(),
            ),
        })
    }

    /// Skips `rat:` (and the blanks after it) where it comes next: the literal keeps it,
    /// and its reader refuses it.
    fn skip_rational_mark(&mut self) {
        let rest = &self.src[self.pos..];
        let is_rat = rest.get(..3).is_some_and(|w| w.eq_ignore_ascii_case("rat"))
            && !rest[3..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\'');
        if !is_rat {
            return;
        }
        let save = self.pos;
        self.pos += 3;
        self.skip_trivia();
        if self.peek() == Some(':') && self.peek_at(1) != Some('=') {
            self.bump();
            self.skip_trivia();
        } else {
            self.pos = save;
        }
    }

    /// After `^`: expects `-1`, allowing spaces in between as iscc does.
    fn inverse(&mut self) -> TokenKind {
        let save = self.pos;
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.bump();
        }
        match self.peek() {
            Some('+') => {
                self.bump();
                return TokenKind::ClosurePlus;
            }
            Some('*') => {
                self.bump();
                return TokenKind::ClosureStar;
            }
            _ => {}
        }
        if self.peek() == Some('-') && self.peek_at(1) == Some('1') {
            self.bump();
            self.bump();
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return TokenKind::Inverse;
            }
        }
        self.pos = save;
        TokenKind::Invalid(
            "expected `-1`, `+` or `*` after `^` (the inverse, the transitive closure or the \
             reflexive transitive closure)"
                .into(),
        )
    }

    /// After `{`: scans to the matching `}` and returns the literal.
    fn literal_body(&mut self, start: usize) -> TokenKind {
        let mut depth = 1usize;
        while let Some(c) = self.peek() {
            match c {
                '#' => self.skip_comment(),
                '{' => {
                    depth += 1;
                    self.bump();
                }
                '}' => {
                    depth -= 1;
                    self.bump();
                    if depth == 0 {
                        return TokenKind::Literal(blank_comments(&self.src[start..self.pos]));
                    }
                }
                _ => {
                    self.bump();
                }
            }
        }
        TokenKind::Invalid("unterminated literal: missing `}`".into())
    }

    /// After `[`: a parameter list, `->`, then a `{ ... }` literal.
    fn parametric_literal(&mut self, start: usize) -> TokenKind {
        let mut depth = 1usize;
        while depth > 0 {
            match self.peek() {
                None | Some(';') | Some('{') => {
                    return TokenKind::Invalid("unterminated parameter list: missing `]`".into())
                }
                Some('#') => self.skip_comment(),
                Some(c) => {
                    if c == '[' {
                        depth += 1;
                    } else if c == ']' {
                        depth -= 1;
                    }
                    self.bump();
                }
            }
        }
        self.skip_trivia();
        if !(self.peek() == Some('-') && self.peek_at(1) == Some('>')) {
            return TokenKind::Invalid(
                "expected `->` and a `{ ... }` literal after a parameter list".into(),
            );
        }
        self.bump();
        self.bump();
        self.skip_trivia();
        self.skip_rational_mark();
        if self.peek() != Some('{') {
            return TokenKind::Invalid("expected a `{ ... }` literal after `->`".into());
        }
        self.bump();
        self.literal_body(start)
    }
}

/// Replaces every byte of each `#` comment by a space.
fn blank_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_comment = false;
    for c in text.chars() {
        if c == '\n' {
            in_comment = false;
        } else if c == '#' {
            in_comment = true;
        }
        if in_comment {
            out.push_str(&" ".repeat(c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        tokenize(src).into_iter().map(|t| t.kind).collect()
    }

    fn ident(s: &str) -> TokenKind {
        TokenKind::Ident(s.to_string())
    }

    #[test]
    fn operators_and_identifiers() {
        assert_eq!(
            kinds("A := dom B^-1 . C <= D < E = F + G * H - (I);"),
            vec![
                ident("A"),
                TokenKind::Assign,
                ident("dom"),
                ident("B"),
                TokenKind::Inverse,
                TokenKind::Dot,
                ident("C"),
                TokenKind::Le,
                ident("D"),
                TokenKind::Lt,
                ident("E"),
                TokenKind::Eq,
                ident("F"),
                TokenKind::Plus,
                ident("G"),
                TokenKind::Star,
                ident("H"),
                TokenKind::Minus,
                TokenKind::LParen,
                ident("I"),
                TokenKind::RParen,
                TokenKind::Semi,
                TokenKind::Eof,
            ]
        );
    }

    #[test]
    fn closures_are_postfix_tokens() {
        assert_eq!(
            kinds("A^+ ^* B ^ -1;"),
            vec![
                ident("A"),
                TokenKind::ClosurePlus,
                TokenKind::ClosureStar,
                ident("B"),
                TokenKind::Inverse,
                TokenKind::Semi,
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn comments_are_skipped() {
        assert_eq!(
            kinds("# a comment\nA; # another\n"),
            vec![ident("A"), TokenKind::Semi, TokenKind::Eof]
        );
    }

    #[test]
    fn literals_keep_their_text() {
        let src = "S := [N] -> { S[i] : 0 <= i < N };";
        let tokens = tokenize(src);
        assert_eq!(
            tokens[2].kind,
            TokenKind::Literal("[N] -> { S[i] : 0 <= i < N }".into())
        );
        assert_eq!(
            &src[tokens[2].span.start..tokens[2].span.end],
            "[N] -> { S[i] : 0 <= i < N }"
        );
    }

    #[test]
    fn literals_nest_braces_and_blank_comments() {
        let tokens = tokenize("{ [i] : # note: }\n i > 0 }");
        assert_eq!(
            tokens[0].kind,
            TokenKind::Literal(format!(
                "{{ [i] : {}\n i > 0 }}",
                " ".repeat("# note: }".len())
            ))
        );
        assert_eq!(
            kinds("{ { } }"),
            vec![TokenKind::Literal("{ { } }".into()), TokenKind::Eof]
        );
    }

    #[test]
    fn bad_input_becomes_invalid_tokens() {
        let tokens = tokenize("A := { [i] ");
        assert!(matches!(&tokens[2].kind, TokenKind::Invalid(m) if m.contains("missing `}`")));
        assert_eq!(tokens[2].span.start, 5);
        assert!(matches!(&tokenize("[N] { }")[0].kind, TokenKind::Invalid(m) if m.contains("->")));
        assert!(matches!(&tokenize("A^2")[1].kind, TokenKind::Invalid(m) if m.contains("-1")));
        assert!(matches!(&tokenize("A @ B")[1].kind, TokenKind::Invalid(m) if m.contains('@')));
        assert!(
            matches!(&tokenize("rat: 3;")[0].kind, TokenKind::Invalid(m) if m.contains("rational"))
        );
    }

    #[test]
    fn rational_literals_keep_their_prefix() {
        let src = "A := rat: { [i] : 0 <= 2i <= 3 }; rat : [N] -> { [i] };";
        let tokens = tokenize(src);
        assert_eq!(
            tokens[2].kind,
            TokenKind::Literal("rat: { [i] : 0 <= 2i <= 3 }".into())
        );
        assert_eq!(
            tokens[4].kind,
            TokenKind::Literal("rat : [N] -> { [i] }".into())
        );
        // `rat` stays a variable where no `:` follows, or `:=` does.
        assert_eq!(
            kinds("rat := rat;"),
            vec![
                ident("rat"),
                TokenKind::Assign,
                ident("rat"),
                TokenKind::Semi,
                TokenKind::Eof
            ]
        );
    }
}
