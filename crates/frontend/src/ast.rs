//! The syntax tree of a scop region: statements and C expressions with byte spans.

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinOp {
    /// The operator for a binary token, with its precedence (higher binds tighter).
    pub(crate) fn from_token(t: &str) -> Option<(BinOp, u8)> {
        Some(match t {
            "||" => (BinOp::Or, 1),
            "&&" => (BinOp::And, 2),
            "|" => (BinOp::BitOr, 3),
            "^" => (BinOp::BitXor, 4),
            "&" => (BinOp::BitAnd, 5),
            "==" => (BinOp::Eq, 6),
            "!=" => (BinOp::Ne, 6),
            "<" => (BinOp::Lt, 7),
            ">" => (BinOp::Gt, 7),
            "<=" => (BinOp::Le, 7),
            ">=" => (BinOp::Ge, 7),
            "<<" => (BinOp::Shl, 8),
            ">>" => (BinOp::Shr, 8),
            "+" => (BinOp::Add, 9),
            "-" => (BinOp::Sub, 9),
            "*" => (BinOp::Mul, 10),
            "/" => (BinOp::Div, 10),
            "%" => (BinOp::Rem, 10),
            _ => return None,
        })
    }

    /// The operator's C spelling.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::BitAnd => "&",
            BinOp::BitXor => "^",
            BinOp::BitOr => "|",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// The operator of a compound assignment token (`+=` gives `Add`).
    pub(crate) fn from_compound(t: &str) -> Option<BinOp> {
        let op = t.strip_suffix('=')?;
        if matches!(op, "" | "=" | "!" | "<" | ">") {
            return None;
        }
        BinOp::from_token(op).map(|(op, _)| op)
    }
}

/// A prefix operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `*p`
    Deref,
    /// `&x`
    AddrOf,
}

/// An expression with its byte span and the height of its tree.
#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset just past the last character.
    pub end: usize,
    /// 1 for a leaf, one more than the highest child otherwise.
    pub height: usize,
}

/// The kinds of expressions.
#[derive(Clone, Debug)]
pub(crate) enum ExprKind {
    /// An identifier.
    Ident(String),
    /// An integer constant, as written.
    Int(String),
    /// A floating constant.
    Float,
    /// A character constant.
    Char,
    /// A string literal.
    Str,
    /// `a[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `f(args)`
    Call(Box<Expr>, Vec<Expr>),
    /// `s.x` or `p->x`
    Member(Box<Expr>),
    /// A prefix operator.
    Unary(UnOp, Box<Expr>),
    /// `++x`, `x++`, `--x`, `x--`.
    IncDec {
        /// `++` rather than `--`.
        increment: bool,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a = b` (`None`) or `a op= b` (`Some(op)`).
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(type) x`
    Cast {
        /// Whether the cast leaves every `int` value unchanged (a signed integer type at
        /// least as wide as `int`).
        integer: bool,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a, b`
    Comma(Box<Expr>, Box<Expr>),
    /// `sizeof x` or `sizeof(type)`.
    Sizeof,
}

impl Expr {
    /// The children, left to right.
    pub(crate) fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Ident(_)
            | ExprKind::Int(_)
            | ExprKind::Float
            | ExprKind::Char
            | ExprKind::Str
            | ExprKind::Sizeof => Vec::new(),
            ExprKind::Index(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Comma(a, b) => vec![a, b],
            ExprKind::Call(f, args) => std::iter::once(&**f).chain(args.iter()).collect(),
            ExprKind::Member(a)
            | ExprKind::Unary(_, a)
            | ExprKind::IncDec { operand: a, .. }
            | ExprKind::Cast { operand: a, .. } => vec![a],
            ExprKind::Ternary(a, b, c) => vec![a, b, c],
        }
    }

    /// The identifier, if the expression is one.
    pub(crate) fn ident(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Ident(name) => Some(name),
            _ => None,
        }
    }
}

/// How a `for` loop starts.
#[derive(Clone, Debug)]
pub(crate) enum ForInit {
    /// `int i = e`: the iterator is declared by the loop.
    Declaration {
        /// The iterator.
        name: String,
        /// Byte offset of the iterator's name.
        at: usize,
        /// Whether the declared type is a signed integer type.
        integer: bool,
        /// The initial value.
        value: Expr,
    },
    /// An expression (normally `i = e`).
    Expr(Expr),
}

/// A `for` loop.
#[derive(Clone, Debug)]
pub(crate) struct ForLoop {
    /// Byte offset of the `for` keyword.
    pub at: usize,
    pub init: ForInit,
    pub cond: Expr,
    pub incr: Expr,
    pub body: Stmt,
}

/// A statement of the region.
#[derive(Clone, Debug)]
pub(crate) enum Stmt {
    /// A `for` loop.
    For(Box<ForLoop>),
    /// `if (cond) then else els`.
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    /// `{ ... }`
    Block(Vec<Stmt>),
    /// An expression statement; `end` is just past its `;`.
    Expr { expr: Expr, end: usize },
    /// The declaration of scalars, `double t = e;` or `int k, l;`, one item per
    /// declarator.
    Decl(Vec<LocalDecl>),
    /// `;`
    Empty,
}

/// A scalar declared inside the region (one declarator of a declaration).
#[derive(Clone, Debug)]
pub(crate) struct LocalDecl {
    /// The type as written, qualifiers such as `const` dropped (`double`, `long int`).
    pub element_type: String,
    /// The declared name.
    pub name: String,
    /// Byte offset of the name.
    pub at: usize,
    /// The initializer, if any.
    pub init: Option<Expr>,
}
