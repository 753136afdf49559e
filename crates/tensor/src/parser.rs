//! The text language: a lexer and a recursive-descent parser that drives the
//! [`Builder`], so that text and API programs are checked alike (the grammar is in the
//! crate documentation).

use crate::affine::{Affine, ParamExpr};
use crate::builder::{Builder, MAX_DEPTH};
use crate::error::{err, Error, ErrorKind, Pos, Result};
use crate::expr::{
    Axis, Binary, Compare, Cond, Constant, DType, Expr, ExprKind, Name, ReduceOp, Unary,
};
use crate::program::Program;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int(String),
    Float(String),
    Punct(&'static str),
    End,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    at: usize,
}

const PUNCTS: &[&str] = &[
    "<=", ">=", "==", "!=", "&&", "||", "[", "]", "(", ")", ",", ";", ":", "=", "+", "-", "*", "/",
    "<", ">", "!",
];

fn lex(source: &str) -> Result<Vec<Token>> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    'outer: while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(source[start..i].to_string()),
                at: start,
            });
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            let mut float = false;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if i < bytes.len() && bytes[i] == b'.' {
                float = true;
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                let mut j = i + 1;
                if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
                    j += 1;
                }
                if j < bytes.len() && bytes[j].is_ascii_digit() {
                    float = true;
                    i = j;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            if i < bytes.len() && (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') {
                return err(
                    ErrorKind::Syntax,
                    Some(Pos::of_offset(source, start)),
                    "a number runs into a name",
                );
            }
            let text = source[start..i].to_string();
            out.push(Token {
                tok: if float {
                    Tok::Float(text)
                } else {
                    Tok::Int(text)
                },
                at: start,
            });
            continue;
        }
        for p in PUNCTS {
            if source[i..].starts_with(p) {
                out.push(Token {
                    tok: Tok::Punct(p),
                    at: i,
                });
                i += p.len();
                continue 'outer;
            }
        }
        let ch = source[i..].chars().next().unwrap_or('?');
        return err(
            ErrorKind::Syntax,
            Some(Pos::of_offset(source, i)),
            format!("unexpected character `{ch}`"),
        );
    }
    out.push(Token {
        tok: Tok::End,
        at: source.len(),
    });
    Ok(out)
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Int(s) | Tok::Float(s) => format!("`{s}`"),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::End => "the end of the text".to_string(),
    }
}

struct Parser<'a> {
    source: &'a str,
    tokens: Vec<Token>,
    next: usize,
    depth: usize,
    builder: Builder,
}

/// Reads a program in the tensor language and checks it.
pub fn parse(source: &str) -> Result<Program> {
    let tokens = lex(source)?;
    let mut p = Parser {
        source,
        tokens,
        next: 0,
        depth: 0,
        builder: Builder::new(),
    };
    while p.peek() != &Tok::End {
        p.item()?;
    }
    let end = p.pos_here();
    p.builder.build().map_err(|mut e| {
        e.pos = e.pos.or(Some(end));
        e
    })
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.tokens[self.next.min(self.tokens.len() - 1)].tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.tokens[(self.next + k).min(self.tokens.len() - 1)].tok
    }

    fn pos_here(&self) -> Pos {
        let at = self.tokens[self.next.min(self.tokens.len() - 1)].at;
        Pos::of_offset(self.source, at)
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.next.min(self.tokens.len() - 1)].clone();
        if self.next < self.tokens.len() - 1 {
            self.next += 1;
        }
        t
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn syntax<T>(&self, message: impl Into<String>) -> Result<T> {
        err(ErrorKind::Syntax, Some(self.pos_here()), message)
    }

    fn expect(&mut self, p: &str) -> Result<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.syntax(format!("expected `{p}`, found {}", describe(self.peek())))
        }
    }

    fn ident(&mut self, what: &str) -> Result<Name> {
        let pos = self.pos_here();
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(Name::at(s, pos))
            }
            t => self.syntax(format!("expected {what}, found {}", describe(&t))),
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(
                ErrorKind::Limit,
                Some(self.pos_here()),
                format!("expression nested deeper than {MAX_DEPTH}"),
            );
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn integer(&mut self) -> Result<i64> {
        let pos = self.pos_here();
        let negative = self.eat("-");
        match self.peek().clone() {
            Tok::Int(s) => {
                self.bump();
                let text = if negative { format!("-{s}") } else { s };
                text.parse().map_err(|_| {
                    Error::new(
                        ErrorKind::Value,
                        Some(pos),
                        format!("the integer `{text}` is too large"),
                    )
                })
            }
            t => self.syntax(format!("expected an integer, found {}", describe(&t))),
        }
    }

    fn item(&mut self) -> Result<()> {
        let start = self.pos_here();
        let Tok::Ident(word) = self.peek().clone() else {
            return self.syntax(format!(
                "expected a declaration or a statement, found {}",
                describe(self.peek())
            ));
        };
        match word.as_str() {
            "param" => {
                self.bump();
                loop {
                    let name = self.ident("a parameter name")?;
                    self.expect("=")?;
                    let def = self.param_expr()?;
                    if def.names().is_empty() {
                        match def.eval(&|_| None) {
                            Some(v) => self.builder.param(name, v)?,
                            None => return err(ErrorKind::Value, name.pos, "the value overflows"),
                        };
                    } else {
                        self.builder.derived_param(name, def)?;
                    }
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(";")
            }
            "input" => {
                self.bump();
                loop {
                    let name = self.ident("a tensor name")?;
                    self.expect("[")?;
                    let mut shape = vec![self.affine()?.0];
                    while self.eat(",") {
                        shape.push(self.affine()?.0);
                    }
                    self.expect("]")?;
                    let dtype = self.dtype()?;
                    self.builder.input(name, shape, dtype.unwrap_or_default())?;
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(";")
            }
            "output" => {
                self.bump();
                loop {
                    let name = self.ident("a tensor name")?;
                    self.builder.output(name)?;
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(";")
            }
            _ => {
                let name = self.ident("a tensor name")?;
                if self.eat("=") {
                    if self.peek() == &Tok::Ident("pad".into())
                        && self.peek_at(1) == &Tok::Punct("(")
                    {
                        return self.pad(name);
                    }
                    return err(
                        ErrorKind::Syntax,
                        Some(start),
                        format!(
                            "`{}` needs its iterators: `{}[i, j, ...] = ...`",
                            name.text, name.text
                        ),
                    );
                }
                self.expect("[")?;
                let mut axes = vec![self.lhs_axis()?];
                while self.eat(",") {
                    axes.push(self.lhs_axis()?);
                }
                self.expect("]")?;
                let dtype = self.dtype()?;
                self.expect("=")?;
                let body = self.expr()?;
                self.expect(";")?;
                self.builder.compute_typed(name, axes, dtype, body)?;
                Ok(())
            }
        }
    }

    fn pad(&mut self, name: Name) -> Result<()> {
        self.bump(); // pad
        self.expect("(")?;
        let source = self.ident("the tensor to pad")?;
        self.expect(",")?;
        let before = self.int_list()?;
        self.expect(",")?;
        let after = self.int_list()?;
        self.expect(",")?;
        let value = self.constant()?;
        self.expect(")")?;
        self.expect(";")?;
        self.builder.pad(name, source, before, after, value)?;
        Ok(())
    }

    fn int_list(&mut self) -> Result<Vec<i64>> {
        self.expect("[")?;
        let mut out = vec![self.integer()?];
        while self.eat(",") {
            out.push(self.integer()?);
        }
        self.expect("]")?;
        Ok(out)
    }

    /// A possibly negated number, as a constant.
    fn constant(&mut self) -> Result<Constant> {
        let negative = self.eat("-");
        match self.peek().clone() {
            Tok::Int(s) | Tok::Float(s) => {
                self.bump();
                let text = if negative { format!("-{s}") } else { s };
                Ok(Constant::from_text(&text))
            }
            t => self.syntax(format!("expected a number, found {}", describe(&t))),
        }
    }

    fn dtype(&mut self) -> Result<Option<DType>> {
        if !self.eat(":") {
            return Ok(None);
        }
        match self.peek().clone() {
            Tok::Ident(s) if s == "f32" => {
                self.bump();
                Ok(Some(DType::F32))
            }
            Tok::Ident(s) if s == "f64" => {
                self.bump();
                Ok(Some(DType::F64))
            }
            t => self.syntax(format!("expected `f32` or `f64`, found {}", describe(&t))),
        }
    }

    fn lhs_axis(&mut self) -> Result<Axis> {
        let name = self.ident("an iterator")?;
        if self.eat(":") {
            let (extent, _) = self.affine()?;
            Ok(Axis::range(name, extent))
        } else {
            Ok(Axis::new(name))
        }
    }

    // ---- integer expressions ------------------------------------------------

    /// An affine expression and where it starts.
    fn affine(&mut self) -> Result<(Affine, Pos)> {
        let pos = self.pos_here();
        self.enter()?;
        let mut acc = self.affine_term()?;
        loop {
            let sign = if self.eat("+") {
                1
            } else if self.eat("-") {
                -1
            } else {
                break;
            };
            let t = self.affine_term()?;
            acc = t
                .checked_scale(sign)
                .and_then(|t| acc.checked_add(&t))
                .ok_or_else(|| Error::new(ErrorKind::Value, Some(pos), "coefficient overflow"))?;
        }
        self.leave();
        Ok((acc, pos))
    }

    fn affine_term(&mut self) -> Result<Affine> {
        let pos = self.pos_here();
        let mut acc = self.affine_factor()?;
        loop {
            if self.eat("*") {
                let rhs = self.affine_factor()?;
                let product = match (acc.as_constant(), rhs.as_constant()) {
                    (Some(k), _) => rhs.checked_scale(k),
                    (_, Some(k)) => acc.checked_scale(k),
                    _ => {
                        return err(
                            ErrorKind::Syntax,
                            Some(pos),
                            format!(
                                "the product `({acc}) * ({rhs})` is not affine: one factor must be \
                                 an integer constant"
                            ),
                        )
                    }
                };
                acc = product.ok_or_else(|| {
                    Error::new(ErrorKind::Value, Some(pos), "coefficient overflow")
                })?;
            } else if self.is("/") {
                return self.syntax(
                    "division is not allowed in an index or extent (use a derived parameter)",
                );
            } else {
                return Ok(acc);
            }
        }
    }

    fn affine_factor(&mut self) -> Result<Affine> {
        let pos = self.pos_here();
        match self.peek().clone() {
            Tok::Int(s) => {
                self.bump();
                s.parse::<i64>().map(Affine::constant).map_err(|_| {
                    Error::new(
                        ErrorKind::Value,
                        Some(pos),
                        format!("the integer `{s}` is too large"),
                    )
                })
            }
            Tok::Ident(s) => {
                self.bump();
                if self.is("[") || self.is("(") {
                    return err(
                        ErrorKind::Syntax,
                        Some(pos),
                        format!(
                            "`{s}`: indices and extents are affine in iterators and parameters"
                        ),
                    );
                }
                Ok(Affine::var(s))
            }
            Tok::Punct("(") => {
                self.bump();
                let (a, _) = self.affine()?;
                self.expect(")")?;
                Ok(a)
            }
            Tok::Punct("-") => {
                self.bump();
                self.enter()?;
                let a = self.affine_factor()?;
                self.leave();
                a.checked_scale(-1)
                    .ok_or_else(|| Error::new(ErrorKind::Value, Some(pos), "coefficient overflow"))
            }
            Tok::Float(s) => err(
                ErrorKind::Syntax,
                Some(pos),
                format!("`{s}`: indices and extents are integers"),
            ),
            t => self.syntax(format!(
                "expected an index expression, found {}",
                describe(&t)
            )),
        }
    }

    fn param_expr(&mut self) -> Result<ParamExpr> {
        self.enter()?;
        let mut acc = self.param_term()?;
        loop {
            if self.eat("+") {
                acc = ParamExpr::Add(Box::new(acc), Box::new(self.param_term()?));
            } else if self.eat("-") {
                acc = ParamExpr::Sub(Box::new(acc), Box::new(self.param_term()?));
            } else {
                break;
            }
        }
        self.leave();
        Ok(acc)
    }

    fn param_term(&mut self) -> Result<ParamExpr> {
        let pos = self.pos_here();
        let mut acc = self.param_factor()?;
        loop {
            if self.eat("*") {
                let rhs = self.param_factor()?;
                let constant = |e: &ParamExpr| {
                    if e.names().is_empty() {
                        e.eval(&|_| None)
                    } else {
                        None
                    }
                };
                acc =
                    match (constant(&acc), constant(&rhs)) {
                        (Some(k), _) => ParamExpr::Scale(k, Box::new(rhs)),
                        (_, Some(k)) => ParamExpr::Scale(k, Box::new(acc)),
                        _ => return err(
                            ErrorKind::Syntax,
                            Some(pos),
                            "a product of parameters is not affine: one factor must be an integer",
                        ),
                    };
            } else if self.eat("/") {
                let at = self.pos_here();
                let d = self.integer()?;
                if d <= 0 {
                    return err(
                        ErrorKind::Value,
                        Some(at),
                        "division by a non-positive number",
                    );
                }
                acc = ParamExpr::FloorDiv(Box::new(acc), d);
            } else {
                return Ok(acc);
            }
        }
    }

    fn param_factor(&mut self) -> Result<ParamExpr> {
        let pos = self.pos_here();
        match self.peek().clone() {
            Tok::Int(s) => {
                self.bump();
                s.parse::<i64>().map(ParamExpr::Int).map_err(|_| {
                    Error::new(
                        ErrorKind::Value,
                        Some(pos),
                        format!("the integer `{s}` is too large"),
                    )
                })
            }
            Tok::Ident(s) => {
                self.bump();
                Ok(ParamExpr::Param(s))
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.param_expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Punct("-") => {
                self.bump();
                self.enter()?;
                let e = self.param_factor()?;
                self.leave();
                Ok(ParamExpr::Scale(-1, Box::new(e)))
            }
            t => self.syntax(format!("expected a size, found {}", describe(&t))),
        }
    }

    // ---- value expressions --------------------------------------------------

    fn expr(&mut self) -> Result<Expr> {
        self.enter()?;
        let pos = self.pos_here();
        let mut acc = self.term()?;
        loop {
            let op = if self.eat("+") {
                Binary::Add
            } else if self.eat("-") {
                Binary::Sub
            } else {
                break;
            };
            let rhs = self.term()?;
            acc = Expr::binary(op, acc, rhs).at(pos);
        }
        self.leave();
        Ok(acc)
    }

    fn term(&mut self) -> Result<Expr> {
        let pos = self.pos_here();
        let mut acc = self.unary()?;
        loop {
            let op = if self.eat("*") {
                Binary::Mul
            } else if self.eat("/") {
                Binary::Div
            } else {
                break;
            };
            let rhs = self.unary()?;
            acc = Expr::binary(op, acc, rhs).at(pos);
        }
        Ok(acc)
    }

    fn unary(&mut self) -> Result<Expr> {
        let pos = self.pos_here();
        if self.eat("-") {
            self.enter()?;
            let e = self.unary()?;
            self.leave();
            return Ok((-e).at(pos));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr> {
        let pos = self.pos_here();
        match self.peek().clone() {
            Tok::Int(s) | Tok::Float(s) => {
                self.bump();
                Ok(Expr::literal(&s).at(pos))
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Ident(name) => {
                self.bump();
                if self.is("[") {
                    return self.access(name, pos);
                }
                if self.is("(") {
                    return self.call(&name, pos);
                }
                Ok(Expr::index(Affine::var(name)).at(pos))
            }
            t => self.syntax(format!("expected an expression, found {}", describe(&t))),
        }
    }

    fn access(&mut self, tensor: String, pos: Pos) -> Result<Expr> {
        self.expect("[")?;
        let mut indices = Vec::new();
        loop {
            let (a, p) = self.affine()?;
            indices.push((a, Some(p)));
            if !self.eat(",") {
                break;
            }
        }
        self.expect("]")?;
        Ok(Expr {
            kind: ExprKind::Access { tensor, indices },
            pos: Some(pos),
        })
    }

    /// Whether a reduction axis `name :` starts here.
    fn at_axis(&self) -> bool {
        matches!(self.peek(), Tok::Ident(_)) && self.peek_at(1) == &Tok::Punct(":")
    }

    fn call(&mut self, name: &str, pos: Pos) -> Result<Expr> {
        self.expect("(")?;
        self.enter()?;
        let e = match name {
            "exp" | "sqrt" | "tanh" | "erf" | "abs" => {
                let op = match name {
                    "exp" => Unary::Exp,
                    "sqrt" => Unary::Sqrt,
                    "tanh" => Unary::Tanh,
                    "erf" => Unary::Erf,
                    _ => Unary::Abs,
                };
                self.expr()?.unary(op)
            }
            "sum" | "max" | "min" if self.at_axis() => {
                let op = match name {
                    "sum" => ReduceOp::Sum,
                    "max" => ReduceOp::Max,
                    _ => ReduceOp::Min,
                };
                let mut axes = Vec::new();
                while self.at_axis() {
                    let axis = self.ident("a reduction axis")?;
                    self.expect(":")?;
                    let (extent, _) = self.affine()?;
                    axes.push(Axis::range(axis, extent));
                    self.expect(",")?;
                }
                let body = self.expr()?;
                Expr::reduce(op, axes, body)
            }
            "sum" => {
                return self.syntax("`sum` takes its axes first: `sum(k : K, ...)`");
            }
            "max" | "min" => {
                let a = self.expr()?;
                self.expect(",")?;
                let b = self.expr()?;
                if name == "max" {
                    a.max(b)
                } else {
                    a.min(b)
                }
            }
            "select" => {
                let c = self.cond()?;
                self.expect(",")?;
                let a = self.expr()?;
                self.expect(",")?;
                let b = self.expr()?;
                Expr::select(c, a, b)
            }
            _ => {
                return err(
                    ErrorKind::UnknownName,
                    Some(pos),
                    format!("unknown function `{name}`"),
                )
            }
        };
        self.leave();
        self.expect(")")?;
        Ok(e.at(pos))
    }

    fn cond(&mut self) -> Result<Cond> {
        self.enter()?;
        let mut acc = self.cond_and()?;
        while self.eat("||") {
            acc = acc.or(self.cond_and()?);
        }
        self.leave();
        Ok(acc)
    }

    fn cond_and(&mut self) -> Result<Cond> {
        let mut acc = self.cond_atom()?;
        while self.eat("&&") {
            acc = acc.and(self.cond_atom()?);
        }
        Ok(acc)
    }

    fn cond_atom(&mut self) -> Result<Cond> {
        if self.eat("!") {
            self.enter()?;
            let c = self.cond_atom()?;
            self.leave();
            return Ok(c.not());
        }
        if self.is("(") {
            // A parenthesised condition, or an expression that starts with `(`.
            let save = self.next;
            let depth = self.depth;
            self.bump();
            if let Ok(c) = self.cond() {
                if self.eat(")") && !self.at_compare() && !self.at_arith() {
                    return Ok(c);
                }
            }
            self.next = save;
            self.depth = depth;
        }
        let a = self.expr()?;
        let op = match self.peek() {
            Tok::Punct("<") => Compare::Lt,
            Tok::Punct("<=") => Compare::Le,
            Tok::Punct(">") => Compare::Gt,
            Tok::Punct(">=") => Compare::Ge,
            Tok::Punct("==") => Compare::Eq,
            Tok::Punct("!=") => Compare::Ne,
            t => {
                let t = describe(t);
                return self.syntax(format!("expected a comparison, found {t}"));
            }
        };
        self.bump();
        let b = self.expr()?;
        Ok(Cond::Compare(op, a, b))
    }

    fn at_compare(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Punct("<" | "<=" | ">" | ">=" | "==" | "!=")
        )
    }

    fn at_arith(&self) -> bool {
        matches!(self.peek(), Tok::Punct("+" | "-" | "*" | "/"))
    }
}
