//! The syntax tree of the isl text syntax, as produced by the parser.
//!
//! Identifiers are kept as strings; the lowering (`lower.rs`) resolves them against the
//! scopes of parameters, tuple dimensions and existential variables. Sums, conjunctions
//! and disjunctions are n-ary so that long inputs do not produce deep trees.
//!
//! # Invariants
//! - `depth` of every node is 1 + the largest `depth` of its children; the parser refuses
//!   to build a node deeper than [`MAX_DEPTH`], so every recursion over a tree (lowering,
//!   dropping) is bounded.

use pollen_arith::Int;

use super::lexer::Pos;

/// The deepest syntax tree the parser builds (and its deepest recursion).
pub(crate) const MAX_DEPTH: u32 = 100;

/// An expression node.
#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
    pub depth: u32,
}

/// The kinds of expression nodes.
#[derive(Clone, Debug)]
pub(crate) enum ExprKind {
    /// An integer literal.
    Int(Int),
    /// A named variable.
    Var(String),
    /// A column of the basic map being built (only created by the lowering).
    Col(usize),
    /// A sum of terms, each possibly negated (`true` = subtracted).
    Sum(Vec<(bool, Expr)>),
    /// A product; all factors but one must be constant.
    Product(Vec<Expr>),
    /// Exact (rational) division by a positive constant.
    Div(Box<Expr>, Int),
    /// `floor(e)`.
    Floor(Box<Expr>),
    /// `ceil(e)`.
    Ceil(Box<Expr>),
    /// `e mod n` with a positive constant `n`.
    Mod(Box<Expr>, Int),
    /// `min(e1, ..., en)`.
    Min(Vec<Expr>),
    /// `max(e1, ..., en)`.
    Max(Vec<Expr>),
    /// `(c ? a : b)`: `a` where `c` holds, else `b`.
    Select(Box<Formula>, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// A node whose depth is computed from its children.
    pub fn new(kind: ExprKind, pos: Pos) -> Expr {
        let condition = match &kind {
            ExprKind::Select(c, ..) => c.depth,
            _ => 0,
        };
        let depth = 1 + kind
            .children()
            .map(|c| c.depth)
            .max()
            .unwrap_or(0)
            .max(condition);
        Expr { kind, pos, depth }
    }

    /// An integer literal.
    pub fn int(v: Int, pos: Pos) -> Expr {
        Expr::new(ExprKind::Int(v), pos)
    }
}

impl ExprKind {
    /// The direct children.
    pub fn children(&self) -> Box<dyn Iterator<Item = &Expr> + '_> {
        match self {
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::Col(_) => Box::new(std::iter::empty()),
            ExprKind::Sum(v) => Box::new(v.iter().map(|(_, e)| e)),
            ExprKind::Product(v) | ExprKind::Min(v) | ExprKind::Max(v) => Box::new(v.iter()),
            ExprKind::Div(e, _) | ExprKind::Floor(e) | ExprKind::Ceil(e) | ExprKind::Mod(e, _) => {
                Box::new(std::iter::once(&**e))
            }
            ExprKind::Select(_, a, b) => Box::new([&**a, &**b].into_iter()),
        }
    }
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    LexLt,
    LexLe,
    LexGt,
    LexGe,
}

impl CmpOp {
    /// Whether the operator compares whole lists lexicographically.
    pub fn is_lex(self) -> bool {
        matches!(
            self,
            CmpOp::LexLt | CmpOp::LexLe | CmpOp::LexGt | CmpOp::LexGe
        )
    }
}

/// A formula node.
#[derive(Clone, Debug)]
pub(crate) struct Formula {
    pub kind: FormulaKind,
    pub pos: Pos,
    pub depth: u32,
}

/// An existentially quantified variable, optionally defined (`e = floor(i / 2)`).
#[derive(Clone, Debug)]
pub(crate) struct ExistsVar {
    pub name: String,
    pub pos: Pos,
    pub def: Option<Expr>,
}

/// The kinds of formula nodes.
#[derive(Clone, Debug)]
pub(crate) enum FormulaKind {
    True,
    False,
    /// `l0 op0 l1 op1 l2 ...` where every `li` is a list of expressions.
    Chain {
        lists: Vec<Vec<Expr>>,
        ops: Vec<(CmpOp, Pos)>,
    },
    /// One comparison of two expressions (built by the lowering).
    Cmp(Box<Expr>, CmpOp, Box<Expr>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
    Not(Box<Formula>),
    Implies(Box<Formula>, Box<Formula>),
    Exists {
        vars: Vec<ExistsVar>,
        body: Box<Formula>,
    },
}

impl Formula {
    /// A node whose depth is computed from its children.
    pub fn new(kind: FormulaKind, pos: Pos) -> Formula {
        let depth = 1 + match &kind {
            FormulaKind::True | FormulaKind::False => 0,
            FormulaKind::Chain { lists, .. } => {
                lists.iter().flatten().map(|e| e.depth).max().unwrap_or(0)
            }
            FormulaKind::Cmp(a, _, b) => a.depth.max(b.depth),
            FormulaKind::And(v) | FormulaKind::Or(v) => {
                v.iter().map(|f| f.depth).max().unwrap_or(0)
            }
            FormulaKind::Not(f) => f.depth,
            FormulaKind::Implies(a, b) => a.depth.max(b.depth),
            FormulaKind::Exists { vars, body } => vars
                .iter()
                .filter_map(|v| v.def.as_ref().map(|d| d.depth))
                .max()
                .unwrap_or(0)
                .max(body.depth),
        };
        Formula { kind, pos, depth }
    }
}

/// A dimension declared by a tuple element.
#[derive(Clone, Debug)]
pub(crate) struct DimDecl {
    /// The name, when the element introduced a new variable.
    pub name: Option<String>,
    /// The defining expression (`[i + 1]`, `[j = 2i]`), if any.
    pub def: Option<Expr>,
}

/// A tuple: an optional name and either a flat list of dimensions or a wrapped pair.
#[derive(Clone, Debug)]
pub(crate) struct TupleAst {
    pub name: Option<String>,
    pub body: TupleBody,
}

/// The body of a tuple.
#[derive(Clone, Debug)]
pub(crate) enum TupleBody {
    Flat(Vec<DimDecl>),
    Nested(Box<TupleAst>, Box<TupleAst>),
}

impl TupleAst {
    /// The dimensions, flattened in order.
    pub fn dims(&self) -> Vec<&DimDecl> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a DimDecl>) {
        match &self.body {
            TupleBody::Flat(d) => out.extend(d.iter()),
            TupleBody::Nested(a, b) => {
                a.collect(out);
                b.collect(out);
            }
        }
    }
}

/// One `;`-separated piece of an object: `tuple [-> tuple] [: formula]` or `: formula`.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    pub pos: Pos,
    /// The input tuple of a map.
    pub domain: Option<TupleAst>,
    /// The tuple of a set or the output tuple of a map; `None` for a parameter domain.
    pub range: Option<TupleAst>,
    pub formula: Option<Formula>,
}

/// A whole object: parameters and pieces.
#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub params: Vec<String>,
    /// The definitions of the parameters defined in the list (`[n, m = 2n]`), by
    /// position in `params`.
    pub param_defs: Vec<Option<Expr>>,
    pub pieces: Vec<Piece>,
}
