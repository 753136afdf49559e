//! The parser of a scop region: statements and C expressions, by recursive descent
//! (expressions by precedence climbing).
//!
//! Statements outside the model that C allows (`while`, `do`, `goto`, `break`,
//! `continue`, `return`, `switch`, labels, declarations of anything but scalars) are
//! reported here, at their keyword, as unsupported. Whether expressions are affine, and what they access, is
//! decided later by the builder.
//!
//! A parenthesised type followed by an operand is a cast: the type is a C type keyword
//! sequence, a type name the declaration scanner learned (a typedef, or a macro such as
//! PolyBench's `DATA_TYPE` used as the type of a declaration), or any identifier that is
//! not a declared variable when an identifier, a constant or `(` follows the `)`.
//!
//! Nesting is limited to [`MAX_NESTING`] levels (statements, parentheses and expression
//! trees alike) so that no input can exhaust the stack.

use std::collections::BTreeMap;

use crate::ast::{BinOp, Expr, ExprKind, ForInit, ForLoop, LocalDecl, Stmt, UnOp};
use crate::decls::{
    is_integer_type, is_keyword, is_qualifier, is_type_word, is_wide_integer_type, Decls,
};
use crate::error::{Fail, Kind, R};
use crate::lexer::{Token, TokenKind};

/// The deepest nesting of statements, parentheses or expression trees accepted.
pub(crate) const MAX_NESTING: usize = 200;

/// Parses the statements of a region: `tokens` are those between the two pragmas and
/// `end` is the offset of `#pragma endscop` (where a truncated statement is reported).
pub(crate) fn parse_region(
    source: &str,
    tokens: &[Token],
    decls: &Decls,
    end: usize,
) -> R<Vec<Stmt>> {
    let mut p = Parser {
        source,
        tokens,
        types: &decls.types,
        decls,
        pos: 0,
        end,
        nesting: 0,
    };
    let mut stmts = Vec::new();
    while p.pos < tokens.len() {
        stmts.push(p.statement()?);
    }
    Ok(stmts)
}

struct Parser<'a> {
    source: &'a str,
    tokens: &'a [Token],
    types: &'a BTreeMap<String, bool>,
    decls: &'a Decls,
    pos: usize,
    end: usize,
    nesting: usize,
}

/// Statement keywords outside the model, with the name of their construct.
const UNSUPPORTED_STATEMENTS: [(&str, &str); 9] = [
    ("while", "`while` loop"),
    ("do", "`do` loop"),
    ("goto", "`goto`"),
    ("break", "`break`"),
    ("continue", "`continue`"),
    ("return", "`return`"),
    ("switch", "`switch`"),
    ("case", "`case` label"),
    ("default", "`default` label"),
];

impl Parser<'_> {
    fn text_at(&self, i: usize) -> &str {
        self.tokens
            .get(i)
            .map_or("", |t| &self.source[t.start..t.end])
    }

    fn peek(&self) -> &str {
        self.text_at(self.pos)
    }

    fn kind_at(&self, i: usize) -> Option<TokenKind> {
        self.tokens.get(i).map(|t| t.kind)
    }

    /// Byte offset of the current token (the region's end when none is left).
    fn here(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.end, |t| t.start)
    }

    /// Byte offset just past the previous token.
    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(self.end, |t| t.end)
    }

    fn describe_current(&self) -> String {
        match self.tokens.get(self.pos) {
            None => "`#pragma endscop`".to_string(),
            Some(t) if t.kind == TokenKind::Unknown => {
                format!("the character `{}`", self.peek())
            }
            Some(_) => format!("`{}`", self.peek()),
        }
    }

    fn syntax<T>(&self, expected: &str) -> R<T> {
        Err(Fail::new(
            Kind::Syntax,
            self.here(),
            format!("expected {expected}, found {}", self.describe_current()),
        ))
    }

    fn expect(&mut self, token: &str) -> R<()> {
        if self.peek() == token && self.kind_at(self.pos) == Some(TokenKind::Punct) {
            self.pos += 1;
            Ok(())
        } else {
            self.syntax(&format!("`{token}`"))
        }
    }

    /// Enters one nesting level.
    fn enter(&mut self) -> R<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(Fail::new(
                Kind::TooComplex,
                self.here(),
                format!("nesting deeper than {MAX_NESTING} levels"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting -= 1;
    }

    fn statement(&mut self) -> R<Stmt> {
        self.enter()?;
        let s = self.statement_inner();
        self.leave();
        s
    }

    fn statement_inner(&mut self) -> R<Stmt> {
        let at = self.here();
        let word = self.peek().to_string();
        if self.kind_at(self.pos) == Some(TokenKind::Ident) {
            if let Some((_, what)) = UNSUPPORTED_STATEMENTS.iter().find(|(k, _)| *k == word) {
                return Err(Fail::new(
                    Kind::Unsupported,
                    at,
                    format!("{what} is outside the polyhedral model"),
                ));
            }
            match word.as_str() {
                "for" => return self.for_loop(),
                "if" => return self.if_statement(),
                "else" => {
                    return Err(Fail::new(Kind::Syntax, at, "`else` without `if`"));
                }
                _ => {}
            }
            if self.declaration_starts() {
                return self.local_declaration();
            }
            if self.text_at(self.pos + 1) == ":" && !is_keyword(&word) {
                return Err(Fail::new(
                    Kind::Unsupported,
                    at,
                    format!("the label `{word}` is outside the polyhedral model"),
                ));
            }
        }
        match self.peek() {
            "{" if self.kind_at(self.pos) == Some(TokenKind::Punct) => {
                self.pos += 1;
                let mut stmts = Vec::new();
                while self.peek() != "}" {
                    if self.pos >= self.tokens.len() {
                        return Err(Fail::new(
                            Kind::Syntax,
                            at,
                            "this block is not closed before `#pragma endscop`",
                        ));
                    }
                    stmts.push(self.statement()?);
                }
                self.pos += 1;
                Ok(Stmt::Block(stmts))
            }
            ";" => {
                self.pos += 1;
                Ok(Stmt::Empty)
            }
            "}" => Err(Fail::new(Kind::Syntax, at, "`}` without a matching `{`")),
            _ => {
                let expr = self.expression()?;
                self.expect(";")?;
                Ok(Stmt::Expr {
                    expr,
                    end: self.prev_end(),
                })
            }
        }
    }

    /// Whether the current tokens start a declaration (`int x`, `DATA_TYPE y`, `double *p`).
    fn declaration_starts(&self) -> bool {
        let w = self.peek();
        if is_type_word(w)
            || is_qualifier(w)
            || matches!(w, "typedef" | "struct" | "union" | "enum")
        {
            return true;
        }
        let next_is_name = self.kind_at(self.pos + 1) == Some(TokenKind::Ident)
            && !is_keyword(self.text_at(self.pos + 1));
        !is_keyword(w) && next_is_name
    }

    fn for_loop(&mut self) -> R<Stmt> {
        let at = self.here();
        self.pos += 1;
        self.expect("(")?;
        let init = if self.peek() == ";" {
            return Err(Fail::new(
                Kind::Loop,
                self.here(),
                "this `for` loop does not initialise its iterator",
            ));
        } else if self.declaration_starts() {
            self.loop_declaration()?
        } else {
            ForInit::Expr(self.expression()?)
        };
        self.expect(";")?;
        if self.peek() == ";" {
            return Err(Fail::new(
                Kind::Loop,
                self.here(),
                "this `for` loop has no condition",
            ));
        }
        let cond = self.expression()?;
        self.expect(";")?;
        if self.peek() == ")" {
            return Err(Fail::new(
                Kind::Loop,
                self.here(),
                "this `for` loop does not step its iterator",
            ));
        }
        let incr = self.expression()?;
        self.expect(")")?;
        let body = self.statement()?;
        Ok(Stmt::For(Box::new(ForLoop {
            at,
            init,
            cond,
            incr,
            body,
        })))
    }

    /// A declaration of scalars inside the region, `T a = e, b;`: one [`LocalDecl`] per
    /// declarator. Pointers, arrays, functions, brace initializers, `typedef`,
    /// `struct`/`union`/`enum` and storage classes other than `register` are outside the
    /// model; the qualifiers `const` and `restrict` are dropped from the type.
    fn local_declaration(&mut self) -> R<Stmt> {
        let at = self.here();
        let unsupported = |at: usize, what: String| {
            Err(Fail::new(
                Kind::Unsupported,
                at,
                format!("{what} inside the scop is outside the polyhedral model (declare it before `#pragma scop`)"),
            ))
        };
        let first = self.peek().to_string();
        if matches!(first.as_str(), "typedef" | "struct" | "union" | "enum") {
            return unsupported(at, format!("a `{first}` declaration"));
        }
        let mut words: Vec<String> = Vec::new();
        while self.kind_at(self.pos) == Some(TokenKind::Ident) {
            let w = self.peek().to_string();
            let named_type = words.len() == 1 && !is_type_word(&words[0]);
            let next_is_name = self.kind_at(self.pos + 1) == Some(TokenKind::Ident)
                && !is_keyword(self.text_at(self.pos + 1));
            if is_qualifier(&w) {
                if !matches!(
                    w.as_str(),
                    "const" | "register" | "auto" | "restrict" | "__restrict" | "__restrict__"
                ) {
                    return unsupported(self.here(), format!("a `{w}` variable declared"));
                }
            } else if (is_type_word(&w) && !named_type)
                || (words.is_empty() && !is_keyword(&w) && next_is_name)
            {
                words.push(w);
            } else {
                break;
            }
            self.pos += 1;
        }
        if words.is_empty() {
            return self.syntax("a type");
        }
        let mut decls = Vec::new();
        loop {
            if self.peek() == "*" {
                return unsupported(self.here(), "a pointer declared".to_string());
            }
            if self.kind_at(self.pos) != Some(TokenKind::Ident) || is_keyword(self.peek()) {
                return self.syntax("the name of the declared variable");
            }
            let name = self.peek().to_string();
            let name_at = self.here();
            self.pos += 1;
            match self.peek() {
                "[" => return unsupported(name_at, format!("the array `{name}` declared")),
                "(" => return unsupported(name_at, format!("the function `{name}` declared")),
                _ => {}
            }
            let init = if self.peek() == "=" {
                self.pos += 1;
                if self.peek() == "{" {
                    return unsupported(self.here(), "a brace initializer".to_string());
                }
                Some(self.assignment()?)
            } else {
                None
            };
            decls.push(LocalDecl {
                element_type: words.join(" "),
                name,
                at: name_at,
                init,
            });
            if self.peek() == "," {
                self.pos += 1;
                continue;
            }
            self.expect(";")?;
            return Ok(Stmt::Decl(decls));
        }
    }

    /// `int i = e` in a `for` header.
    fn loop_declaration(&mut self) -> R<ForInit> {
        let mut words: Vec<String> = Vec::new();
        while self.kind_at(self.pos) == Some(TokenKind::Ident) {
            let w = self.peek().to_string();
            let named_type = words.len() == 1 && !is_type_word(&words[0]);
            let next_is_name = self.kind_at(self.pos + 1) == Some(TokenKind::Ident)
                && !is_keyword(self.text_at(self.pos + 1));
            if is_qualifier(&w) || (is_type_word(&w) && !named_type) {
                if is_type_word(&w) {
                    words.push(w);
                }
            } else if words.is_empty() && !is_keyword(&w) && next_is_name {
                words.push(w);
            } else {
                break;
            }
            self.pos += 1;
        }
        if self.kind_at(self.pos) != Some(TokenKind::Ident) || is_keyword(self.peek()) {
            return self.syntax("the name of the loop iterator");
        }
        let name = self.peek().to_string();
        let at = self.here();
        self.pos += 1;
        self.expect("=")?;
        let value = self.assignment()?;
        if self.peek() == "," {
            return Err(Fail::new(
                Kind::Unsupported,
                self.here(),
                "several declarations in a `for` header are outside the polyhedral model",
            ));
        }
        Ok(ForInit::Declaration {
            name,
            at,
            integer: is_integer_type(&words, self.types),
            value,
        })
    }

    fn if_statement(&mut self) -> R<Stmt> {
        self.pos += 1;
        self.expect("(")?;
        let cond = self.expression()?;
        self.expect(")")?;
        let then = Box::new(self.statement()?);
        let els = if self.peek() == "else" && self.kind_at(self.pos) == Some(TokenKind::Ident) {
            self.pos += 1;
            Some(Box::new(self.statement()?))
        } else {
            None
        };
        Ok(Stmt::If { cond, then, els })
    }

    /// Builds a node, refusing trees higher than [`MAX_NESTING`].
    fn node(&self, kind: ExprKind, start: usize, end: usize) -> R<Expr> {
        let mut e = Expr {
            kind,
            start,
            end,
            height: 1,
        };
        e.height = 1 + e.children().iter().map(|c| c.height).max().unwrap_or(0);
        if e.height > MAX_NESTING {
            return Err(Fail::new(
                Kind::TooComplex,
                start,
                format!("expression nested deeper than {MAX_NESTING} levels"),
            ));
        }
        Ok(e)
    }

    /// A full expression (comma operator included).
    fn expression(&mut self) -> R<Expr> {
        let mut e = self.assignment()?;
        while self.peek() == "," {
            self.pos += 1;
            let r = self.assignment()?;
            let (s, t) = (e.start, r.end);
            e = self.node(ExprKind::Comma(Box::new(e), Box::new(r)), s, t)?;
        }
        Ok(e)
    }

    fn assignment(&mut self) -> R<Expr> {
        self.enter()?;
        let r = self.assignment_inner();
        self.leave();
        r
    }

    fn assignment_inner(&mut self) -> R<Expr> {
        let lhs = self.conditional()?;
        let t = self.peek();
        if self.kind_at(self.pos) != Some(TokenKind::Punct) {
            return Ok(lhs);
        }
        let op = if t == "=" {
            None
        } else if let Some(op) = BinOp::from_compound(t) {
            Some(op)
        } else {
            return Ok(lhs);
        };
        self.pos += 1;
        let rhs = self.assignment()?;
        let (s, e) = (lhs.start, rhs.end);
        self.node(ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)), s, e)
    }

    fn conditional(&mut self) -> R<Expr> {
        let c = self.binary(1)?;
        if self.peek() != "?" {
            return Ok(c);
        }
        self.pos += 1;
        let a = self.expression()?;
        self.expect(":")?;
        let b = self.assignment()?;
        let (s, e) = (c.start, b.end);
        self.node(
            ExprKind::Ternary(Box::new(c), Box::new(a), Box::new(b)),
            s,
            e,
        )
    }

    fn binary(&mut self, min_prec: u8) -> R<Expr> {
        let mut left = self.unary()?;
        loop {
            if self.kind_at(self.pos) != Some(TokenKind::Punct) {
                return Ok(left);
            }
            let Some((op, prec)) = BinOp::from_token(self.peek()) else {
                return Ok(left);
            };
            if prec < min_prec {
                return Ok(left);
            }
            self.pos += 1;
            let right = self.binary(prec + 1)?;
            let (s, e) = (left.start, right.end);
            left = self.node(ExprKind::Binary(op, Box::new(left), Box::new(right)), s, e)?;
        }
    }

    fn unary(&mut self) -> R<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.leave();
        r
    }

    fn unary_inner(&mut self) -> R<Expr> {
        let start = self.here();
        let is_punct = self.kind_at(self.pos) == Some(TokenKind::Punct);
        let op = match self.peek() {
            "-" if is_punct => Some(UnOp::Neg),
            "+" if is_punct => Some(UnOp::Plus),
            "!" if is_punct => Some(UnOp::Not),
            "~" if is_punct => Some(UnOp::BitNot),
            "*" if is_punct => Some(UnOp::Deref),
            "&" if is_punct => Some(UnOp::AddrOf),
            _ => None,
        };
        if let Some(op) = op {
            self.pos += 1;
            let operand = self.unary()?;
            let end = operand.end;
            return self.node(ExprKind::Unary(op, Box::new(operand)), start, end);
        }
        if is_punct && matches!(self.peek(), "++" | "--") {
            let increment = self.peek() == "++";
            self.pos += 1;
            let operand = self.unary()?;
            let end = operand.end;
            return self.node(
                ExprKind::IncDec {
                    increment,
                    operand: Box::new(operand),
                },
                start,
                end,
            );
        }
        if self.peek() == "sizeof" && self.kind_at(self.pos) == Some(TokenKind::Ident) {
            self.pos += 1;
            if let Some((_, after)) = self.cast_type() {
                self.pos = after;
            } else {
                self.unary()?;
            }
            let end = self.prev_end();
            return self.node(ExprKind::Sizeof, start, end);
        }
        if let Some((integer, after)) = self.cast_type() {
            self.pos = after;
            let operand = self.unary()?;
            let end = operand.end;
            return self.node(
                ExprKind::Cast {
                    integer,
                    operand: Box::new(operand),
                },
                start,
                end,
            );
        }
        self.postfix()
    }

    /// If a cast `(type)` starts at the current token: whether the type is an integer
    /// type, and the index after its `)`.
    fn cast_type(&self) -> Option<(bool, usize)> {
        if self.peek() != "(" || self.kind_at(self.pos) != Some(TokenKind::Punct) {
            return None;
        }
        let mut i = self.pos + 1;
        let mut words: Vec<String> = Vec::new();
        let mut named = false;
        while self.kind_at(i) == Some(TokenKind::Ident) {
            let w = self.text_at(i);
            if is_qualifier(w) {
            } else if is_type_word(w) && !named {
                words.push(w.to_string());
            } else if matches!(w, "struct" | "union" | "enum") && words.is_empty() {
                words.push(w.to_string());
                i += 1;
                words.push(self.text_at(i).to_string());
                named = true;
            } else if words.is_empty() && !is_keyword(w) {
                words.push(w.to_string());
                named = true;
            } else {
                return None;
            }
            i += 1;
        }
        if words.is_empty() {
            return None;
        }
        let mut pointer = false;
        while self.text_at(i) == "*" || is_qualifier(self.text_at(i)) {
            pointer |= self.text_at(i) == "*";
            i += 1;
        }
        if self.text_at(i) != ")" {
            return None;
        }
        let after = i + 1;
        if named && words[0] != "struct" && words[0] != "union" && words[0] != "enum" {
            let name = &words[0];
            let known_type = self.types.contains_key(name);
            let operand_follows = matches!(
                self.kind_at(after),
                Some(TokenKind::Ident)
                    | Some(TokenKind::Int)
                    | Some(TokenKind::Float)
                    | Some(TokenKind::Char)
            ) || self.text_at(after) == "(";
            let variable = self.decls.vars.contains_key(name);
            let cast = known_type || (operand_follows && !variable && !pointer);
            if !cast {
                return None;
            }
        }
        Some((!pointer && is_wide_integer_type(&words), after))
    }

    fn postfix(&mut self) -> R<Expr> {
        let mut e = self.primary()?;
        loop {
            let is_punct = self.kind_at(self.pos) == Some(TokenKind::Punct);
            match self.peek() {
                "[" if is_punct => {
                    self.pos += 1;
                    let index = self.expression()?;
                    self.expect("]")?;
                    let (s, t) = (e.start, self.prev_end());
                    e = self.node(ExprKind::Index(Box::new(e), Box::new(index)), s, t)?;
                }
                "(" if is_punct => {
                    self.pos += 1;
                    let mut args = Vec::new();
                    if self.peek() != ")" {
                        loop {
                            args.push(self.assignment()?);
                            if self.peek() == "," {
                                self.pos += 1;
                            } else {
                                break;
                            }
                        }
                    }
                    self.expect(")")?;
                    let (s, t) = (e.start, self.prev_end());
                    e = self.node(ExprKind::Call(Box::new(e), args), s, t)?;
                }
                "." | "->" if is_punct => {
                    self.pos += 1;
                    if self.kind_at(self.pos) != Some(TokenKind::Ident) {
                        return self.syntax("a member name");
                    }
                    self.pos += 1;
                    let (s, t) = (e.start, self.prev_end());
                    e = self.node(ExprKind::Member(Box::new(e)), s, t)?;
                }
                "++" | "--" if is_punct => {
                    let increment = self.peek() == "++";
                    self.pos += 1;
                    let (s, t) = (e.start, self.prev_end());
                    e = self.node(
                        ExprKind::IncDec {
                            increment,
                            operand: Box::new(e),
                        },
                        s,
                        t,
                    )?;
                }
                _ => return Ok(e),
            }
        }
    }

    fn primary(&mut self) -> R<Expr> {
        let Some(&t) = self.tokens.get(self.pos) else {
            return self.syntax("an expression");
        };
        let text = self.peek().to_string();
        let kind = match t.kind {
            TokenKind::Ident if !is_keyword(&text) => ExprKind::Ident(text),
            TokenKind::Int => ExprKind::Int(text),
            TokenKind::Float => ExprKind::Float,
            TokenKind::Char => ExprKind::Char,
            TokenKind::Str => {
                let mut end = t.end;
                self.pos += 1;
                while self.kind_at(self.pos) == Some(TokenKind::Str) {
                    end = self.tokens[self.pos].end;
                    self.pos += 1;
                }
                return self.node(ExprKind::Str, t.start, end);
            }
            TokenKind::Punct if text == "(" => {
                self.pos += 1;
                let inner = self.expression()?;
                self.expect(")")?;
                let mut e = inner;
                e.start = t.start;
                e.end = self.prev_end();
                return Ok(e);
            }
            TokenKind::Directive => {
                return Err(Fail::new(
                    Kind::Region,
                    t.start,
                    "a preprocessor directive inside the scop",
                ));
            }
            _ => return self.syntax("an expression"),
        };
        self.pos += 1;
        self.node(kind, t.start, t.end)
    }
}
