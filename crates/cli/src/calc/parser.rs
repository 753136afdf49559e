//! Statements and expressions of the `pollen calc` language, parsed by recursive descent.
//!
//! Grammar (iscc's precedence, tightest first; binary operators are left associative):
//!
//! ```text
//! script     := statement*
//! statement  := IDENT ':=' expr ';' | expr ';'
//! expr       := sum (('=' | '<=' | '<') sum)*
//! sum        := product (('+' | '-') product)*
//! product    := compose ('*' compose)*
//! compose    := prefix ('.' prefix)*
//! prefix     := OPERATOR prefix | postfix        OPERATOR: dom ran lexmin lexmax ...
//! postfix    := primary ('^-1' | '^+' | '^*')*
//! primary    := LITERAL | IDENT | '(' expr ')'
//! ```
//!
//! A statement that does not parse yields an error and the parser resumes after the
//! next `;`, so one bad line does not hide the errors or results of the following ones.
//!
//! # Invariants
//! - Every [`Expr`] carries the span of the token that an error about it should point
//!   to: the operator for operations, the literal or name for atoms.
//! - No expression is deeper than [`MAX_DEPTH`] operators, and parsing never nests
//!   parentheses or prefix operators deeper than that: a deeper statement is an error,
//!   so that neither the parser nor the evaluator can exhaust the stack.

use super::lexer::{tokenize, Span, Token, TokenKind};

/// A prefix operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `dom`: the domain of a map.
    Domain,
    /// `ran`: the range of a map.
    Range,
    /// `lexmin`: the lexicographic minimum (per domain point for maps).
    Lexmin,
    /// `lexmax`: the lexicographic maximum (per domain point for maps).
    Lexmax,
    /// `deltas`: `{ y - x : x -> y }`.
    Deltas,
    /// `coalesce`: a simpler representation of the same points.
    Coalesce,
    /// `sample`: one point, or the empty set.
    Sample,
    /// `card`: the number of points of a set (an integer, or a piecewise
    /// quasi-polynomial in the parameters, infinite where the set is unbounded), or of
    /// a map's range per domain point.
    Card,
    /// `params`: the parameter values for which the operand is non-empty.
    Params,
    /// `complement`: every point of the space not in the operand.
    Complement,
    /// `is_empty`: whether the operand has no point.
    IsEmpty,
    /// Postfix `^-1`: the inverse of a map.
    Reverse,
    /// Postfix `^+`: the transitive closure of a map and whether it is exact.
    TransitiveClosure,
    /// Postfix `^*`: the reflexive transitive closure of a map and whether it is exact.
    ReflexiveClosure,
}

impl UnaryOp {
    /// The prefix operator spelled `word`, if any.
    pub fn from_keyword(word: &str) -> Option<UnaryOp> {
        Some(match word {
            "dom" => UnaryOp::Domain,
            "ran" => UnaryOp::Range,
            "lexmin" => UnaryOp::Lexmin,
            "lexmax" => UnaryOp::Lexmax,
            "deltas" => UnaryOp::Deltas,
            "coalesce" => UnaryOp::Coalesce,
            "sample" => UnaryOp::Sample,
            "card" => UnaryOp::Card,
            "params" => UnaryOp::Params,
            "complement" => UnaryOp::Complement,
            "is_empty" => UnaryOp::IsEmpty,
            _ => return None,
        })
    }

    /// How the operator is written.
    pub fn spelling(self) -> &'static str {
        match self {
            UnaryOp::Domain => "dom",
            UnaryOp::Range => "ran",
            UnaryOp::Lexmin => "lexmin",
            UnaryOp::Lexmax => "lexmax",
            UnaryOp::Deltas => "deltas",
            UnaryOp::Coalesce => "coalesce",
            UnaryOp::Sample => "sample",
            UnaryOp::Card => "card",
            UnaryOp::Params => "params",
            UnaryOp::Complement => "complement",
            UnaryOp::IsEmpty => "is_empty",
            UnaryOp::Reverse => "^-1",
            UnaryOp::TransitiveClosure => "^+",
            UnaryOp::ReflexiveClosure => "^*",
        }
    }
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `+`: union.
    Union,
    /// `*`: intersection.
    Intersect,
    /// `-`: difference.
    Subtract,
    /// `.`: composition (apply the left operand, then the right one).
    Compose,
    /// `=`: equality.
    Equal,
    /// `<=`: subset.
    Subset,
    /// `<`: strict subset.
    StrictSubset,
}

impl BinaryOp {
    /// How the operator is written.
    pub fn spelling(self) -> &'static str {
        match self {
            BinaryOp::Union => "+",
            BinaryOp::Intersect => "*",
            BinaryOp::Subtract => "-",
            BinaryOp::Compose => ".",
            BinaryOp::Equal => "=",
            BinaryOp::Subset => "<=",
            BinaryOp::StrictSubset => "<",
        }
    }
}

/// The deepest expression (in operators and parentheses) a statement may hold.
pub const MAX_DEPTH: usize = 100;

/// An expression and the span its errors point to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// The operator, literal or name.
    pub span: Span,
    /// 1 for an atom, one more than the deepest operand for an operation.
    pub depth: usize,
}

/// The forms of expressions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// A set or map literal in isl syntax.
    Literal(String),
    /// A variable.
    Var(String),
    /// A prefix operator, or the postfix `^-1`.
    Unary(UnaryOp, Box<Expr>),
    /// A binary operator.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `name := expr;`
    Assign {
        /// The variable.
        name: String,
        /// The value.
        expr: Expr,
    },
    /// `expr;` prints the value.
    Print(Expr),
}

/// A syntax error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Where.
    pub span: Span,
    /// What was wrong and what was expected.
    pub message: String,
}

/// Parses a whole script into statements, each parsed or failed on its own.
pub fn parse_script(src: &str) -> Vec<Result<Stmt, ParseError>> {
    let mut parser = Parser {
        tokens: tokenize(src),
        pos: 0,
        nesting: 0,
    };
    let mut statements = Vec::new();
    while parser.peek() != &TokenKind::Eof {
        parser.nesting = 0;
        let statement = parser.statement();
        if statement.is_err() {
            parser.recover();
        }
        statements.push(statement);
    }
    statements
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Open parentheses and prefix operators around the current position.
    nesting: usize,
}

type PResult<T> = Result<T, ParseError>;

impl Parser {
    fn peek(&self) -> &TokenKind {
        &self.tokens[self.pos].kind
    }

    fn peek_at(&self, offset: usize) -> &TokenKind {
        let i = (self.pos + offset).min(self.tokens.len() - 1);
        &self.tokens[i].kind
    }

    fn span(&self) -> Span {
        self.tokens[self.pos].span
    }

    fn advance(&mut self) -> Token {
        let token = self.tokens[self.pos].clone();
        if token.kind != TokenKind::Eof {
            self.pos += 1;
        }
        token
    }

    /// Skips to just after the next `;` (or to the end).
    fn recover(&mut self) {
        loop {
            match self.advance().kind {
                TokenKind::Semi | TokenKind::Eof => return,
                _ => {}
            }
        }
    }

    /// An error at the current token, which is reported if it is itself invalid.
    fn unexpected(&self, expected: &str) -> ParseError {
        let span = self.span();
        let message = match self.peek() {
            TokenKind::Invalid(message) => message.clone(),
            found => format!("expected {expected}, found {}", found.describe()),
        };
        ParseError { span, message }
    }

    /// An operation node, refused beyond [`MAX_DEPTH`].
    fn node(&self, kind: ExprKind, span: Span) -> PResult<Expr> {
        let depth = 1 + match &kind {
            ExprKind::Literal(_) | ExprKind::Var(_) => 0,
            ExprKind::Unary(_, operand) => operand.depth,
            ExprKind::Binary(_, left, right) => left.depth.max(right.depth),
        };
        if depth > MAX_DEPTH {
            return Err(too_deep(span));
        }
        Ok(Expr { kind, span, depth })
    }

    /// Enters a parenthesis or prefix operator, refused beyond [`MAX_DEPTH`].
    fn enter(&mut self) -> PResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(too_deep(self.span()));
        }
        Ok(())
    }

    fn expect(&mut self, kind: &TokenKind, expected: &str) -> PResult<()> {
        if self.peek() == kind {
            self.advance();
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn statement(&mut self) -> PResult<Stmt> {
        let statement = match (self.peek().clone(), self.peek_at(1)) {
            (TokenKind::Ident(name), TokenKind::Assign) => {
                let span = self.span();
                if UnaryOp::from_keyword(&name).is_some() {
                    return Err(ParseError {
                        span,
                        message: format!("`{name}` is an operator and cannot be assigned to"),
                    });
                }
                self.advance();
                self.advance();
                let expr = self.expr()?;
                Stmt::Assign { name, expr }
            }
            _ => Stmt::Print(self.expr()?),
        };
        self.expect(&TokenKind::Semi, "`;` or an operator")?;
        Ok(statement)
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.binary_level(0)
    }

    /// Parses one left-associative level of binary operators (see [`binary_op`]).
    fn binary_level(&mut self, level: usize) -> PResult<Expr> {
        if level == BINARY_LEVELS {
            return self.prefix();
        }
        let mut left = self.binary_level(level + 1)?;
        while let Some(op) = binary_op(self.peek(), level) {
            let span = self.advance().span;
            let right = self.binary_level(level + 1)?;
            left = self.node(ExprKind::Binary(op, Box::new(left), Box::new(right)), span)?;
        }
        Ok(left)
    }

    fn prefix(&mut self) -> PResult<Expr> {
        if let TokenKind::Ident(word) = self.peek() {
            if let Some(op) = UnaryOp::from_keyword(word) {
                let span = self.advance().span;
                self.enter()?;
                let operand = self.prefix()?;
                self.nesting -= 1;
                return self.node(ExprKind::Unary(op, Box::new(operand)), span);
            }
        }
        self.postfix()
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut expr = self.primary()?;
        loop {
            let op = match self.peek() {
                TokenKind::Inverse => UnaryOp::Reverse,
                TokenKind::ClosurePlus => UnaryOp::TransitiveClosure,
                TokenKind::ClosureStar => UnaryOp::ReflexiveClosure,
                _ => break,
            };
            let span = self.advance().span;
            expr = self.node(ExprKind::Unary(op, Box::new(expr)), span)?;
        }
        Ok(expr)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let span = self.span();
        let kind = match self.peek().clone() {
            TokenKind::Literal(text) => ExprKind::Literal(text),
            TokenKind::Ident(name) => ExprKind::Var(name),
            TokenKind::LParen => {
                self.advance();
                self.enter()?;
                let inner = self.expr()?;
                self.nesting -= 1;
                self.expect(&TokenKind::RParen, "`)` or an operator")?;
                return Ok(inner);
            }
            _ => return Err(self.unexpected("a set or map literal, a variable or `(`")),
        };
        self.advance();
        self.node(kind, span)
    }
}

fn too_deep(span: Span) -> ParseError {
    ParseError {
        span,
        message: format!("expression nested too deeply (at most {MAX_DEPTH} levels)"),
    }
}

/// Number of precedence levels of binary operators; the next tighter level is `prefix`.
const BINARY_LEVELS: usize = 4;

/// The binary operator of `token` at precedence `level` (0 loosest: comparisons, then
/// `+ -`, then `*`, then `.`).
fn binary_op(token: &TokenKind, level: usize) -> Option<BinaryOp> {
    match (level, token) {
        (0, TokenKind::Eq) => Some(BinaryOp::Equal),
        (0, TokenKind::Le) => Some(BinaryOp::Subset),
        (0, TokenKind::Lt) => Some(BinaryOp::StrictSubset),
        (1, TokenKind::Plus) => Some(BinaryOp::Union),
        (1, TokenKind::Minus) => Some(BinaryOp::Subtract),
        (2, TokenKind::Star) => Some(BinaryOp::Intersect),
        (3, TokenKind::Dot) => Some(BinaryOp::Compose),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renders an expression fully parenthesised, to check precedence.
    fn show(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Literal(text) => text.clone(),
            ExprKind::Var(name) => name.clone(),
            ExprKind::Unary(UnaryOp::Reverse, operand) => format!("({}^-1)", show(operand)),
            ExprKind::Unary(op, operand) => format!("({} {})", op.spelling(), show(operand)),
            ExprKind::Binary(op, l, r) => format!("({} {} {})", show(l), op.spelling(), show(r)),
        }
    }

    fn parse_one(src: &str) -> Stmt {
        let mut statements = parse_script(src);
        assert_eq!(statements.len(), 1, "{src}");
        statements.pop().unwrap().expect("parses")
    }

    fn expr(src: &str) -> String {
        match parse_one(src) {
            Stmt::Print(e) => show(&e),
            Stmt::Assign { .. } => panic!("not an expression statement"),
        }
    }

    fn first_error(src: &str) -> ParseError {
        parse_script(src)
            .into_iter()
            .find_map(Result::err)
            .expect("an error")
    }

    #[test]
    fn precedence_follows_iscc() {
        assert_eq!(expr("A + B * C;"), "(A + (B * C))");
        assert_eq!(expr("A * B . C;"), "(A * (B . C))");
        assert_eq!(expr("dom A . B;"), "((dom A) . B)");
        assert_eq!(expr("dom A^-1;"), "(dom (A^-1))");
        assert_eq!(expr("card dom A;"), "(card (dom A))");
        assert_eq!(expr("A + B <= C - D;"), "((A + B) <= (C - D))");
        assert_eq!(expr("A = B;"), "(A = B)");
        assert_eq!(expr("A < B;"), "(A < B)");
        assert_eq!(expr("A^-1^-1;"), "((A^-1)^-1)");
    }

    #[test]
    fn binary_operators_associate_left() {
        assert_eq!(expr("A - B - C;"), "((A - B) - C)");
        assert_eq!(expr("A - B + C;"), "((A - B) + C)");
        assert_eq!(expr("A . B . C;"), "((A . B) . C)");
        assert_eq!(expr("A * B * C;"), "((A * B) * C)");
    }

    #[test]
    fn parentheses_group() {
        assert_eq!(expr("(A + B) * C;"), "((A + B) * C)");
        assert_eq!(expr("dom (A . B);"), "(dom (A . B))");
        assert_eq!(expr("(A . B)^-1;"), "((A . B)^-1)");
    }

    #[test]
    fn assignments_and_literals() {
        let stmt = parse_one("S := [N] -> { S[i] : 0 <= i < N } * T;");
        let Stmt::Assign { name, expr } = stmt else {
            panic!("an assignment")
        };
        assert_eq!(name, "S");
        assert_eq!(show(&expr), "([N] -> { S[i] : 0 <= i < N } * T)");
    }

    #[test]
    fn operator_spans_point_at_operators() {
        let Stmt::Print(e) = parse_one("A  +  dom B;") else {
            panic!()
        };
        assert_eq!(e.span, Span { start: 3, end: 4 });
        let ExprKind::Binary(_, _, right) = &e.kind else {
            panic!()
        };
        assert_eq!(right.span, Span { start: 6, end: 9 });
    }

    #[test]
    fn errors_point_at_the_offending_token() {
        let e = first_error("A + ;");
        assert_eq!(e.span.start, 4);
        assert!(
            e.message.contains("expected a set or map literal"),
            "{}",
            e.message
        );
        assert!(e.message.contains("found `;`"), "{}", e.message);

        let e = first_error("A B;");
        assert_eq!(e.span.start, 2);
        assert!(e.message.contains("expected `;`"), "{}", e.message);

        let e = first_error("(A + B;");
        assert_eq!(e.span.start, 6);
        assert!(e.message.contains("expected `)`"), "{}", e.message);

        let e = first_error("dom := A;");
        assert_eq!(e.span.start, 0);
        assert!(e.message.contains("operator"), "{}", e.message);

        let e = first_error("A");
        assert!(
            e.message.contains("found the end of the input"),
            "{}",
            e.message
        );
    }

    #[test]
    fn lexical_errors_are_reported_with_their_own_message() {
        let e = first_error("A := { [i] : i > 0 ;");
        assert_eq!(e.span.start, 5);
        assert!(e.message.contains("missing `}`"), "{}", e.message);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let parens = format!("{}A{};", "(".repeat(100_000), ")".repeat(100_000));
        assert!(first_error(&parens).message.contains("too deeply"));
        let prefix = format!("{}A;", "dom ".repeat(100_000));
        assert!(first_error(&prefix).message.contains("too deeply"));
        let chain = format!("A{};", " + A".repeat(100_000));
        assert!(first_error(&chain).message.contains("too deeply"));
        let postfix = format!("A{};", "^-1".repeat(100_000));
        assert!(first_error(&postfix).message.contains("too deeply"));
        let fine = format!("{}A{};", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert!(parse_script(&fine)[0].is_ok());
        let statements = parse_script(&format!("{parens}\nB;"));
        assert!(statements[1].is_ok());
    }

    #[test]
    fn parsing_resumes_after_the_next_semicolon() {
        let statements = parse_script("A := ;\nB := { [i] };\nC + + ;\nB;");
        assert_eq!(statements.len(), 4);
        assert!(statements[0].is_err());
        assert!(statements[1].is_ok());
        assert!(statements[2].is_err());
        assert!(statements[3].is_ok());
    }
}
