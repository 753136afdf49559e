//! Recursive-descent parser from tokens to the syntax tree of `ast.rs`.
//!
//! The grammar is isl's (see isl's `isl_input.c` for the reference reader):
//!
//! ```text
//! object     := [ '[' params ']' '->' ] '{' [ piece (';' piece)* [';'] ] '}'
//! params     := param (',' param)*          param := name ['=' expr]
//! piece      := ':' [formula] | tuple ['->' tuple] [(':' | '|') [formula]]
//! tuple      := [name] '[' ( tuple '->' tuple | [element (',' element)*] ) ']'
//! element    := '*' | fresh-name ['=' expr] | expr
//! formula    := disjunction ['implies' disjunction]
//! disjunction:= conjunction (('or' | '||' | '|' | '\/') conjunction)*
//! conjunction:= negated (('and' | '&&' | '&' | '/\') negated)*
//! negated    := ('not' | '!')* conjunct
//! conjunct   := '(' ... ')' | 'exists' ['('] vars ':' formula [')'] | 'true' | 'false' | chain
//! chain      := list (cmp list)+            list := expr (',' expr)*
//! expr       := '-'* factor (('+' | '-') '-'* factor)*
//! factor     := INT ['*'] ['-'] factor | base [postfix]
//! base       := INT | name | '(' expr ')' | '(' conditional ')' | '[' expr ']'
//!             | floor/ceil '(' expr ')' | floord/ceild '(' expr ',' INT ')'
//!             | min/max '(' expr (',' expr)* ')'
//! conditional:= formula '?' expr ':' (conditional | expr)
//! postfix    := ('mod' | '%') INT | ['*' ['-'] INT ('*' ['-'] INT)*] ['/' INT] ['//' INT]
//! ```
//!
//! As in isl, `[e]` is `floor(e)`, `(c ? a : b)` is `a` where the formula `c` holds and
//! `b` elsewhere, and a parameter may be defined by an expression of the parameters
//! before it (`[n, m = 2n]`: a constraint of every piece).
//!
//! As in isl, a tuple element that is an identifier not yet in scope (parameters and the
//! earlier dimensions of the piece) declares a new dimension; any other element is an
//! expression that the new, anonymous dimension equals. A parenthesis at the start of a
//! conjunct may open a formula or an expression; like isl, the parser reads its contents
//! and hands the result back as a *pending* item that the next rule consumes.
//!
//! # Invariants
//! - the parser never reads past the final [`Tok::Eof`];
//! - its recursion and every tree it builds are at most [`MAX_DEPTH`] deep; deeper input is
//!   an [`Error::Parse`](crate::Error::Parse), never a stack overflow.

use pollen_arith::Int;

use super::ast::{
    CmpOp, DimDecl, ExistsVar, Expr, ExprKind, Formula, FormulaKind, Object, Piece, TupleAst,
    TupleBody, MAX_DEPTH,
};
use super::lexer::{Keyword, Pos, Tok, Token};
use crate::error::Result;

/// The construct named by the error of `rat:`.
pub(crate) const RATIONAL_SETS: &str = "rational sets (`rat:`)";

/// An already parsed item standing in front of the next token.
enum Pending {
    Expr(Expr),
    Formula(Formula),
}

/// The parser state.
pub(crate) struct Parser {
    toks: Vec<Token>,
    at: usize,
    pending: Option<Pending>,
    depth: u32,
    /// Parameters and the dimensions declared so far in the current piece.
    scope: Vec<String>,
}

impl Parser {
    /// A parser over a token list ending with [`Tok::Eof`].
    pub fn new(toks: Vec<Token>) -> Parser {
        Parser {
            toks,
            at: 0,
            pending: None,
            depth: 0,
            scope: Vec::new(),
        }
    }

    // ----- token helpers -----

    fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    fn peek_at(&self, k: usize) -> &Tok {
        let i = (self.at + k).min(self.toks.len() - 1);
        &self.toks[i].tok
    }

    fn pos(&self) -> Pos {
        self.toks[self.at.min(self.toks.len() - 1)].pos
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.at.min(self.toks.len() - 1)].clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == tok {
            self.bump();
            true
        } else {
            false
        }
    }

    /// An error at the current token: "expected {what}, found {token}".
    fn unexpected<T>(&self, what: &str) -> Result<T> {
        Err(self
            .pos()
            .error(format!("expected {what}, found {}", self.peek())))
    }

    fn expect(&mut self, tok: &Tok, what: &str) -> Result<Pos> {
        let pos = self.pos();
        if self.eat(tok) {
            Ok(pos)
        } else {
            self.unexpected(what)
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.pos().error(format!(
                "input nested too deeply (more than {MAX_DEPTH} levels)"
            )));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn mk_expr(&self, kind: ExprKind, pos: Pos) -> Result<Expr> {
        let e = Expr::new(kind, pos);
        if e.depth > MAX_DEPTH {
            return Err(pos.error(format!(
                "expression nested too deeply (more than {MAX_DEPTH} levels)"
            )));
        }
        Ok(e)
    }

    fn mk_formula(&self, kind: FormulaKind, pos: Pos) -> Result<Formula> {
        let f = Formula::new(kind, pos);
        if f.depth > MAX_DEPTH {
            return Err(pos.error(format!(
                "formula nested too deeply (more than {MAX_DEPTH} levels)"
            )));
        }
        Ok(f)
    }

    // ----- objects, pieces, tuples -----

    /// Parses a whole object and checks that nothing follows it.
    pub fn parse_object(&mut self) -> Result<Object> {
        self.refuse_rational()?;
        let mut params = Vec::new();
        let mut param_defs = Vec::new();
        let had_params = self.peek() == &Tok::LBracket;
        if had_params {
            self.bump();
            if !self.eat(&Tok::RBracket) {
                loop {
                    let pos = self.pos();
                    let name = match self.peek() {
                        Tok::Ident(n) => n.clone(),
                        _ => return self.unexpected("a parameter name"),
                    };
                    self.bump();
                    if params.contains(&name) {
                        return Err(pos.error(format!("duplicate parameter '{name}'")));
                    }
                    let def = if self.eat(&Tok::Eq) {
                        let def = self.parse_expr()?;
                        if let Some(v) = first_unknown_var(&def, &params) {
                            return Err(def.pos.error(format!(
                                "the definition of parameter '{name}' uses '{v}', which is not an earlier parameter"
                            )));
                        }
                        Some(def)
                    } else {
                        None
                    };
                    params.push(name);
                    param_defs.push(def);
                    if self.eat(&Tok::Comma) {
                        continue;
                    }
                    self.expect(&Tok::RBracket, "']' or ',' after parameter name")?;
                    break;
                }
            }
            self.expect(&Tok::Arrow, "'->' after the parameter list")?;
            self.refuse_rational()?;
        }
        if had_params {
            self.expect(&Tok::LBrace, "'{'")?;
        } else {
            self.expect(&Tok::LBrace, "'{' or '['")?;
        }
        let mut pieces = Vec::new();
        while self.peek() != &Tok::RBrace {
            self.scope = params.clone();
            let piece = self.parse_piece()?;
            let had_formula = piece.formula.is_some();
            pieces.push(piece);
            if self.eat(&Tok::Semi) {
                continue;
            }
            if self.peek() != &Tok::RBrace {
                return if had_formula {
                    self.unexpected("'and', 'or', ';' or '}' after constraint")
                } else {
                    self.unexpected("':', ';' or '}' after tuple")
                };
            }
        }
        self.bump();
        if self.peek() != &Tok::Eof {
            return self.unexpected("end of input after '}'");
        }
        Ok(Object {
            params,
            param_defs,
            pieces,
        })
    }

    /// isl's `rat:` marks a rational set or map, before the object (`rat: { … }`) or
    /// before a piece (`{ rat: [i] : … }`); the library's sets are integer sets, so it is
    /// an [`Error::UnsupportedSyntax`](crate::Error::UnsupportedSyntax) at `rat`.
    fn refuse_rational(&self) -> Result<()> {
        match self.peek() {
            Tok::Kw(Keyword::Unsupported, word) if word.eq_ignore_ascii_case("rat") => {
                Err(self.pos().unsupported(RATIONAL_SETS))
            }
            _ => Ok(()),
        }
    }

    fn next_is_condition_separator(&self) -> bool {
        matches!(self.peek(), Tok::Colon | Tok::OrOp("|"))
    }

    fn parse_piece(&mut self) -> Result<Piece> {
        let pos = self.pos();
        if self.peek() == &Tok::Colon {
            self.bump();
            let formula = self.parse_optional_formula()?;
            return Ok(Piece {
                pos,
                domain: None,
                range: None,
                formula,
            });
        }
        self.refuse_rational()?;
        if !self.next_is_tuple() {
            return self.unexpected("a tuple or ':'");
        }
        let first = self.parse_tuple()?;
        let (domain, range) = if self.eat(&Tok::Arrow) {
            if !self.next_is_tuple() {
                return self.unexpected("a tuple after '->'");
            }
            (Some(first), self.parse_tuple()?)
        } else {
            (None, first)
        };
        let formula = if self.next_is_condition_separator() {
            self.bump();
            self.parse_optional_formula()?
        } else {
            None
        };
        Ok(Piece {
            pos,
            domain,
            range: Some(range),
            formula,
        })
    }

    fn parse_optional_formula(&mut self) -> Result<Option<Formula>> {
        if matches!(self.peek(), Tok::RBrace | Tok::Semi) {
            return Ok(None);
        }
        Ok(Some(self.parse_formula()?))
    }

    fn next_is_tuple(&self) -> bool {
        match self.peek() {
            Tok::LBracket => true,
            Tok::Ident(_) | Tok::Kw(..) => self.peek_at(1) == &Tok::LBracket,
            _ => false,
        }
    }

    /// Whether a wrapped pair `[A[..] -> B[..]]` follows (rather than elements that
    /// start with a floor `[e]`): a tuple whose closing bracket is followed by `->`.
    fn wrapped_tuple_ahead(&self) -> bool {
        if !self.next_is_tuple() {
            return false;
        }
        let mut k = self.at;
        if matches!(self.toks[k].tok, Tok::Ident(_) | Tok::Kw(..)) {
            k += 1;
        }
        let mut depth = 0usize;
        while k < self.toks.len() {
            match self.toks[k].tok {
                Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return self.toks.get(k + 1).is_some_and(|t| t.tok == Tok::Arrow);
                    }
                }
                Tok::Eof => return false,
                _ => {}
            }
            k += 1;
        }
        false
    }

    fn parse_tuple(&mut self) -> Result<TupleAst> {
        self.enter()?;
        let name = match self.peek() {
            Tok::Ident(n) | Tok::Kw(_, n) => {
                let n = n.clone();
                self.bump();
                Some(n)
            }
            _ => None,
        };
        self.expect(&Tok::LBracket, "'['")?;
        let body = if self.wrapped_tuple_ahead() {
            let a = self.parse_tuple()?;
            self.expect(&Tok::Arrow, "'->' inside a wrapped tuple")?;
            if !self.next_is_tuple() {
                return self.unexpected("a tuple after '->'");
            }
            let b = self.parse_tuple()?;
            self.expect(&Tok::RBracket, "']' after wrapped tuple")?;
            TupleBody::Nested(Box::new(a), Box::new(b))
        } else {
            let mut dims = Vec::new();
            if !self.eat(&Tok::RBracket) {
                loop {
                    dims.push(self.parse_tuple_element()?);
                    if self.eat(&Tok::Comma) {
                        continue;
                    }
                    if self.eat(&Tok::RBracket) {
                        break;
                    }
                    return self.unexpected("']' or ',' after tuple element");
                }
            }
            TupleBody::Flat(dims)
        };
        self.leave();
        Ok(TupleAst { name, body })
    }

    fn parse_tuple_element(&mut self) -> Result<DimDecl> {
        match self.peek().clone() {
            Tok::Star => {
                self.bump();
                Ok(DimDecl {
                    name: None,
                    def: None,
                })
            }
            Tok::Ident(name) if !self.scope.contains(&name) => {
                self.bump();
                let def = if self.eat(&Tok::Eq) {
                    Some(self.parse_expr()?)
                } else {
                    None
                };
                self.scope.push(name.clone());
                Ok(DimDecl {
                    name: Some(name),
                    def,
                })
            }
            _ => Ok(DimDecl {
                name: None,
                def: Some(self.parse_expr()?),
            }),
        }
    }

    // ----- formulas -----

    fn parse_formula(&mut self) -> Result<Formula> {
        self.enter()?;
        let pos = self.pos();
        let a = self.parse_disjunction()?;
        let f = if self.peek().is_kw(Keyword::Implies) {
            self.bump();
            let b = self.parse_disjunction()?;
            self.mk_formula(FormulaKind::Implies(Box::new(a), Box::new(b)), pos)?
        } else {
            a
        };
        self.leave();
        Ok(f)
    }

    fn parse_disjunction(&mut self) -> Result<Formula> {
        let pos = self.pos();
        let mut items = vec![self.parse_conjunction()?];
        while matches!(self.peek(), Tok::Kw(Keyword::Or, _) | Tok::OrOp(_)) {
            self.bump();
            items.push(self.parse_conjunction()?);
        }
        if items.len() == 1 {
            return Ok(items.pop().expect("one item"));
        }
        self.mk_formula(FormulaKind::Or(items), pos)
    }

    fn parse_conjunction(&mut self) -> Result<Formula> {
        let pos = self.pos();
        let mut items = vec![self.parse_negated()?];
        while matches!(self.peek(), Tok::Kw(Keyword::And, _) | Tok::AndOp(_)) {
            self.bump();
            items.push(self.parse_negated()?);
        }
        if items.len() == 1 {
            return Ok(items.pop().expect("one item"));
        }
        self.mk_formula(FormulaKind::And(items), pos)
    }

    fn parse_negated(&mut self) -> Result<Formula> {
        let pos = self.pos();
        let mut negate = false;
        while self.pending.is_none() && matches!(self.peek(), Tok::Kw(Keyword::Not, _) | Tok::Bang)
        {
            self.bump();
            negate = !negate;
        }
        let f = self.parse_conjunct()?;
        if negate {
            self.mk_formula(FormulaKind::Not(Box::new(f)), pos)
        } else {
            Ok(f)
        }
    }

    fn next_is_condition_start(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Kw(
                Keyword::Exists | Keyword::Not | Keyword::True | Keyword::False,
                _
            ) | Tok::Bang
        )
    }

    fn parse_conjunct(&mut self) -> Result<Formula> {
        match self.pending.take() {
            Some(Pending::Formula(f)) => return Ok(f),
            Some(Pending::Expr(e)) => {
                self.pending = Some(Pending::Expr(e));
                return self.parse_chain();
            }
            None => {}
        }
        let pos = self.pos();
        match self.peek() {
            Tok::LParen => {
                self.resolve_paren()?;
                self.parse_conjunct()
            }
            Tok::Kw(Keyword::Exists, _) => self.parse_exists(),
            Tok::Kw(Keyword::True, _) => {
                self.bump();
                self.mk_formula(FormulaKind::True, pos)
            }
            Tok::Kw(Keyword::False, _) => {
                self.bump();
                self.mk_formula(FormulaKind::False, pos)
            }
            _ => self.parse_chain(),
        }
    }

    /// Reads a parenthesised formula or expression and leaves it pending.
    fn resolve_paren(&mut self) -> Result<()> {
        self.enter()?;
        let open = self.expect(&Tok::LParen, "'('")?;
        if self.conditional_ahead() {
            let e = self.parse_conditional(open)?;
            self.expect(&Tok::RParen, "')' after the conditional expression")?;
            self.pending = Some(Pending::Expr(e));
            self.leave();
            return Ok(());
        }
        if self.peek() == &Tok::LParen {
            self.resolve_paren()?;
        }
        let is_formula = match &self.pending {
            Some(Pending::Formula(_)) => true,
            Some(Pending::Expr(_)) => false,
            None => self.next_is_condition_start(),
        };
        if is_formula {
            let f = self.parse_formula()?;
            self.expect(&Tok::RParen, "')' after formula")?;
            self.pending = Some(Pending::Formula(f));
        } else {
            let e = self.parse_expr()?;
            if self.eat(&Tok::RParen) {
                self.pending = Some(Pending::Expr(e));
            } else {
                self.pending = Some(Pending::Expr(e));
                let f = self.parse_formula()?;
                self.expect(&Tok::RParen, "')' after formula")?;
                let f = Formula { pos: open, ..f };
                self.pending = Some(Pending::Formula(f));
            }
        }
        self.leave();
        Ok(())
    }

    fn parse_exists(&mut self) -> Result<Formula> {
        let pos = self.pos();
        self.bump();
        let paren = self.eat(&Tok::LParen);
        let mut vars = Vec::new();
        while let Tok::Ident(name) = self.peek().clone() {
            let vpos = self.pos();
            self.bump();
            let def = if self.eat(&Tok::Eq) {
                Some(self.parse_expr()?)
            } else {
                None
            };
            vars.push(ExistsVar {
                name,
                pos: vpos,
                def,
            });
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        if vars.is_empty() && self.peek() != &Tok::Colon {
            return self.unexpected("a variable name after 'exists'");
        }
        self.expect(&Tok::Colon, "':' or ',' after existential variable")?;
        let body = self.parse_formula()?;
        if paren {
            self.expect(&Tok::RParen, "')' closing 'exists'")?;
        }
        self.mk_formula(
            FormulaKind::Exists {
                vars,
                body: Box::new(body),
            },
            pos,
        )
    }

    fn cmp_op(tok: &Tok) -> Option<CmpOp> {
        Some(match tok {
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            Tok::Eq | Tok::EqEq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            Tok::LexLt => CmpOp::LexLt,
            Tok::LexLe => CmpOp::LexLe,
            Tok::LexGt => CmpOp::LexGt,
            Tok::LexGe => CmpOp::LexGe,
            _ => return None,
        })
    }

    fn parse_chain(&mut self) -> Result<Formula> {
        let pos = match &self.pending {
            Some(Pending::Expr(e)) => e.pos,
            _ => self.pos(),
        };
        let mut lists = vec![self.parse_expr_list()?];
        let mut ops = Vec::new();
        while let Some(op) = Self::cmp_op(self.peek()) {
            let opos = self.pos();
            self.bump();
            ops.push((op, opos));
            lists.push(self.parse_expr_list()?);
        }
        if ops.is_empty() {
            return self.unexpected("a comparison operator");
        }
        self.mk_formula(FormulaKind::Chain { lists, ops }, pos)
    }

    fn parse_expr_list(&mut self) -> Result<Vec<Expr>> {
        let mut list = vec![self.parse_expr()?];
        while self.eat(&Tok::Comma) {
            list.push(self.parse_expr()?);
        }
        Ok(list)
    }

    // ----- expressions -----

    /// Parses a sum of terms.
    pub fn parse_expr(&mut self) -> Result<Expr> {
        self.enter()?;
        let pos = match &self.pending {
            Some(Pending::Expr(e)) => e.pos,
            _ => self.pos(),
        };
        let mut negated = false;
        if self.pending.is_none() {
            while self.eat(&Tok::Minus) {
                negated = !negated;
            }
        }
        let mut terms = vec![(negated, self.parse_factor()?)];
        loop {
            let mut sub = match self.peek() {
                Tok::Plus => false,
                Tok::Minus => true,
                _ => break,
            };
            self.bump();
            while self.eat(&Tok::Minus) {
                sub = !sub;
            }
            terms.push((sub, self.parse_factor()?));
        }
        self.leave();
        if terms.len() == 1 && !terms[0].0 {
            return Ok(terms.pop().expect("one term").1);
        }
        self.mk_expr(ExprKind::Sum(terms), pos)
    }

    fn parse_factor(&mut self) -> Result<Expr> {
        self.enter()?;
        let pos = self.pos();
        let base = if let Some(Pending::Expr(e)) = self.pending.take() {
            e
        } else {
            self.parse_base()?
        };
        let e = self.parse_postfix(base, pos)?;
        self.leave();
        Ok(e)
    }

    fn parse_base(&mut self) -> Result<Expr> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                let star = self.peek() == &Tok::Star;
                if star || matches!(self.peek(), Tok::Ident(_)) {
                    if star {
                        self.bump();
                    }
                    let v = if star && self.eat(&Tok::Minus) { -v } else { v };
                    let inner = self.parse_factor()?;
                    return self.mk_expr(ExprKind::Product(vec![Expr::int(v, pos), inner]), pos);
                }
                Ok(Expr::int(v, pos))
            }
            Tok::Ident(name) => {
                self.bump();
                self.mk_expr(ExprKind::Var(name), pos)
            }
            Tok::LParen => {
                self.bump();
                let e = if self.conditional_ahead() {
                    self.parse_conditional(pos)?
                } else {
                    self.parse_expr()?
                };
                self.expect(&Tok::RParen, "')' after expression")?;
                Ok(e)
            }
            Tok::LBracket => {
                self.bump();
                let e = self.parse_expr()?;
                self.expect(
                    &Tok::RBracket,
                    "']' after the expression of '[...]' (floor)",
                )?;
                self.mk_expr(ExprKind::Floor(Box::new(e)), pos)
            }
            Tok::Kw(kw @ (Keyword::Floor | Keyword::Ceil), _) => {
                self.bump();
                self.expect(&Tok::LParen, "'(' after 'floor' or 'ceil'")?;
                let e = Box::new(self.parse_expr()?);
                self.expect(&Tok::RParen, "')' after the argument of 'floor' or 'ceil'")?;
                let kind = if kw == Keyword::Floor {
                    ExprKind::Floor(e)
                } else {
                    ExprKind::Ceil(e)
                };
                self.mk_expr(kind, pos)
            }
            Tok::Kw(kw @ (Keyword::Floord | Keyword::Ceild), _) => {
                self.bump();
                self.expect(&Tok::LParen, "'(' after 'floord' or 'ceild'")?;
                let e = self.parse_expr()?;
                self.expect(&Tok::Comma, "',' before the denominator")?;
                let d = self.parse_denominator()?;
                self.expect(&Tok::RParen, "')' after the denominator")?;
                let q = self.mk_expr(ExprKind::Div(Box::new(e), d), pos)?;
                let kind = if kw == Keyword::Floord {
                    ExprKind::Floor(Box::new(q))
                } else {
                    ExprKind::Ceil(Box::new(q))
                };
                self.mk_expr(kind, pos)
            }
            Tok::Kw(kw @ (Keyword::Min | Keyword::Max), _) => {
                self.bump();
                self.expect(&Tok::LParen, "'(' after 'min' or 'max'")?;
                let args = self.parse_expr_list()?;
                self.expect(
                    &Tok::RParen,
                    "')' or ',' in the arguments of 'min' or 'max'",
                )?;
                let kind = if kw == Keyword::Min {
                    ExprKind::Min(args)
                } else {
                    ExprKind::Max(args)
                };
                self.mk_expr(kind, pos)
            }
            Tok::Kw(Keyword::Unsupported, word) => Err(pos.error(format!(
                "'{word}' is not supported: only integer sets and maps can be read"
            ))),
            _ => self.unexpected("an expression"),
        }
    }

    fn parse_postfix(&mut self, base: Expr, pos: Pos) -> Result<Expr> {
        if matches!(self.peek(), Tok::Kw(Keyword::Mod, _) | Tok::Percent) {
            self.bump();
            let d = self.parse_denominator()?;
            return self.mk_expr(ExprKind::Mod(Box::new(base), d), pos);
        }
        let mut e = base;
        if self.eat(&Tok::Star) {
            let mut factor = Int::one();
            loop {
                let negative = self.eat(&Tok::Minus);
                let Tok::Int(v) = self.peek().clone() else {
                    return self.unexpected("a constant factor after '*'");
                };
                self.bump();
                let v = if negative { -v } else { v };
                factor *= v;
                if !self.eat(&Tok::Star) {
                    break;
                }
            }
            e = self.mk_expr(ExprKind::Product(vec![e, Expr::int(factor, pos)]), pos)?;
        }
        if self.eat(&Tok::Slash) {
            let d = self.parse_denominator()?;
            e = self.mk_expr(ExprKind::Div(Box::new(e), d), pos)?;
        }
        if self.eat(&Tok::SlashSlash) {
            let d = self.parse_denominator()?;
            let q = self.mk_expr(ExprKind::Div(Box::new(e), d), pos)?;
            e = self.mk_expr(ExprKind::Floor(Box::new(q)), pos)?;
        }
        Ok(e)
    }

    /// Whether a `?` follows before the parenthesis that closes the current one: the
    /// contents are a conditional expression.
    fn conditional_ahead(&self) -> bool {
        let mut depth = 0usize;
        for t in &self.toks[self.at..] {
            match t.tok {
                Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace if depth == 0 => return false,
                Tok::RParen | Tok::RBracket | Tok::RBrace => depth -= 1,
                Tok::Question if depth == 0 => return true,
                Tok::Eof => return false,
                _ => {}
            }
        }
        false
    }

    /// `c ? a : b` (the parentheses around it are the caller's); `b` may be another
    /// conditional.
    fn parse_conditional(&mut self, pos: Pos) -> Result<Expr> {
        self.enter()?;
        let condition = self.parse_formula()?;
        self.expect(&Tok::Question, "'?' after the condition")?;
        let then = self.parse_expr()?;
        self.expect(&Tok::Colon, "':' between the branches of '?'")?;
        let otherwise = if self.conditional_ahead() {
            let at = self.pos();
            self.parse_conditional(at)?
        } else {
            self.parse_expr()?
        };
        self.leave();
        self.mk_expr(
            ExprKind::Select(Box::new(condition), Box::new(then), Box::new(otherwise)),
            pos,
        )
    }

    fn parse_denominator(&mut self) -> Result<Int> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                if v.is_zero() {
                    return Err(pos.error("division by zero"));
                }
                Ok(v)
            }
            _ => self.unexpected("a positive integer constant"),
        }
    }
}

/// The first variable of `e` (its condition included) that is not in `known`.
fn first_unknown_var(e: &Expr, known: &[String]) -> Option<String> {
    if let ExprKind::Var(v) = &e.kind {
        return (!known.contains(v)).then(|| v.clone());
    }
    if let ExprKind::Select(c, ..) = &e.kind {
        if let Some(v) = first_unknown_var_in_formula(c, known) {
            return Some(v);
        }
    }
    e.kind.children().find_map(|c| first_unknown_var(c, known))
}

fn first_unknown_var_in_formula(f: &Formula, known: &[String]) -> Option<String> {
    match &f.kind {
        FormulaKind::True | FormulaKind::False => None,
        FormulaKind::Chain { lists, .. } => lists
            .iter()
            .flatten()
            .find_map(|e| first_unknown_var(e, known)),
        FormulaKind::Cmp(a, _, b) => {
            first_unknown_var(a, known).or_else(|| first_unknown_var(b, known))
        }
        FormulaKind::And(v) | FormulaKind::Or(v) => v
            .iter()
            .find_map(|g| first_unknown_var_in_formula(g, known)),
        FormulaKind::Not(g) => first_unknown_var_in_formula(g, known),
        FormulaKind::Implies(a, b) => first_unknown_var_in_formula(a, known)
            .or_else(|| first_unknown_var_in_formula(b, known)),
        FormulaKind::Exists { vars, body } => {
            let mut inner = known.to_vec();
            inner.extend(vars.iter().map(|v| v.name.clone()));
            vars.iter()
                .filter_map(|v| v.def.as_ref())
                .find_map(|d| first_unknown_var(d, &inner))
                .or_else(|| first_unknown_var_in_formula(body, &inner))
        }
    }
}
