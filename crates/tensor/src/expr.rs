//! Tensor expressions: the right-hand sides of compute statements.
//!
//! An [`Expr`] is a tree of constants, tensor accesses, index values, elementwise
//! operations, `select` and reductions; every node may carry the [`Pos`] it was written
//! at, which errors report. The constructors and the `+ - * /` and unary `-` operators
//! build trees without positions; [`Expr::at`] sets one.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::affine::Affine;
use crate::error::Pos;

/// The element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum DType {
    /// 32-bit IEEE float (C `DATA_TYPE`, `float` unless `-DDATA_TYPE_IS_DOUBLE`).
    #[default]
    F32,
    /// 64-bit IEEE float (C `double`).
    F64,
}

impl DType {
    /// The wider of two types (C's usual arithmetic conversions).
    pub fn join(self, other: DType) -> DType {
        self.max(other)
    }

    /// The type's name in the language, `f32` or `f64`.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }
}

/// A name and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The identifier.
    pub text: String,
    /// Where it was written, if known.
    pub pos: Option<Pos>,
}

impl Name {
    /// `text` written at `pos`.
    pub fn at(text: impl Into<String>, pos: Pos) -> Name {
        Name {
            text: text.into(),
            pos: Some(pos),
        }
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name {
            text: text.to_string(),
            pos: None,
        }
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        Name { text, pos: None }
    }
}

/// An iteration axis: a left-hand side iterator or a reduction axis, ranging over
/// `0 <= name < extent`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The iterator.
    pub name: Name,
    /// The extent, affine in the parameters; `None` on a left-hand side asks for it to be
    /// inferred from the tensors the iterator indexes.
    pub extent: Option<Affine>,
}

impl Axis {
    /// An axis whose extent is inferred (left-hand sides only).
    pub fn new(name: impl Into<Name>) -> Axis {
        Axis {
            name: name.into(),
            extent: None,
        }
    }

    /// An axis `0 <= name < extent`.
    pub fn range(name: impl Into<Name>, extent: impl Into<Affine>) -> Axis {
        Axis {
            name: name.into(),
            extent: Some(extent.into()),
        }
    }
}

/// A floating-point constant, kept as its decimal text so that the C compiler and the
/// interpreter round the same decimal to the element type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constant {
    text: String,
}

impl Constant {
    /// The constant written as `text` (digits, an optional fraction and exponent).
    pub fn from_text(text: &str) -> Constant {
        Constant {
            text: text.to_string(),
        }
    }

    /// The constant `v` (its shortest decimal form that reads back as `v`).
    pub fn new(v: f64) -> Constant {
        Constant {
            text: format!("{v:?}"),
        }
    }

    /// The decimal text, with a fraction or exponent (`2` is `2.0`), as C reads it.
    pub fn text(&self) -> String {
        if self.text.contains(['.', 'e', 'E']) || !self.is_finite() {
            self.text.clone()
        } else {
            format!("{}.0", self.text)
        }
    }

    /// Whether the text is a finite number.
    pub fn is_finite(&self) -> bool {
        self.text.parse::<f64>().is_ok_and(f64::is_finite)
            && self
                .text
                .bytes()
                .all(|b| b.is_ascii_digit() || b".eE+-".contains(&b))
    }

    /// The value rounded to `f64`.
    pub fn as_f64(&self) -> f64 {
        self.text.parse().unwrap_or(f64::NAN)
    }

    /// The value rounded (once, from the decimal) to `f32`.
    pub fn as_f32(&self) -> f32 {
        self.text.parse().unwrap_or(f32::NAN)
    }
}

/// A unary elementwise function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unary {
    /// `-x`.
    Neg,
    /// `exp(x)`.
    Exp,
    /// `sqrt(x)`.
    Sqrt,
    /// `tanh(x)`.
    Tanh,
    /// `erf(x)`, the error function.
    Erf,
    /// `abs(x)`.
    Abs,
}

impl Unary {
    /// The function's name in the language (`-` for negation).
    pub fn name(self) -> &'static str {
        match self {
            Unary::Neg => "-",
            Unary::Exp => "exp",
            Unary::Sqrt => "sqrt",
            Unary::Tanh => "tanh",
            Unary::Erf => "erf",
            Unary::Abs => "abs",
        }
    }
}

/// A binary elementwise operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binary {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`.
    Div,
    /// `max(a, b)`.
    Max,
    /// `min(a, b)`.
    Min,
}

/// A comparison of two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compare {
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
}

impl Compare {
    /// The operator's text.
    pub fn symbol(self) -> &'static str {
        match self {
            Compare::Lt => "<",
            Compare::Le => "<=",
            Compare::Gt => ">",
            Compare::Ge => ">=",
            Compare::Eq => "==",
            Compare::Ne => "!=",
        }
    }

    /// The comparison of two numbers (IEEE: false with a NaN, except `!=`).
    pub fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Compare::Lt => a < b,
            Compare::Le => a <= b,
            Compare::Gt => a > b,
            Compare::Ge => a >= b,
            Compare::Eq => a == b,
            Compare::Ne => a != b,
        }
    }
}

/// The condition of a `select`.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    /// `a op b`.
    Compare(Compare, Expr, Expr),
    /// `a && b`.
    And(Box<Cond>, Box<Cond>),
    /// `a || b`.
    Or(Box<Cond>, Box<Cond>),
    /// `!a`.
    Not(Box<Cond>),
}

impl Cond {
    /// `a && b`.
    pub fn and(self, other: Cond) -> Cond {
        Cond::And(Box::new(self), Box::new(other))
    }

    /// `a || b`.
    pub fn or(self, other: Cond) -> Cond {
        Cond::Or(Box::new(self), Box::new(other))
    }

    /// `!a`.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Cond {
        Cond::Not(Box::new(self))
    }

    /// The expressions the comparisons compare, left to right.
    pub fn operands(&self) -> Vec<&Expr> {
        match self {
            Cond::Compare(_, a, b) => vec![a, b],
            Cond::And(a, b) | Cond::Or(a, b) => {
                let mut v = a.operands();
                v.extend(b.operands());
                v
            }
            Cond::Not(a) => a.operands(),
        }
    }
}

/// The combining operation of a reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum, from 0.
    Sum,
    /// Maximum, from minus infinity.
    Max,
    /// Minimum, from plus infinity.
    Min,
}

impl ReduceOp {
    /// The reduction's name in the language.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
        }
    }
}

/// A reduction `op(k1 : E1, ..., kn : En, body)` over the box of its axes, in
/// lexicographic order of the axes (the first outermost).
#[derive(Clone, Debug, PartialEq)]
pub struct Reduce {
    /// How values combine.
    pub op: ReduceOp,
    /// The reduction axes, each with an extent.
    pub axes: Vec<Axis>,
    /// The value reduced.
    pub body: Expr,
}

/// The shape of an expression node.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A floating-point constant.
    Const(Constant),
    /// An integer expression of iterators and parameters used as a value.
    Index(Affine),
    /// A read of a tensor element; each index is affine in the iterators and parameters.
    Access {
        /// The tensor read.
        tensor: String,
        /// One index per dimension, each with its position.
        indices: Vec<(Affine, Option<Pos>)>,
    },
    /// A unary function.
    Unary(Unary, Box<Expr>),
    /// A binary operation.
    Binary(Binary, Box<Expr>, Box<Expr>),
    /// `select(cond, a, b)`: `a` where the condition holds, else `b`.
    Select(Box<Cond>, Box<Expr>, Box<Expr>),
    /// A reduction.
    Reduce(Box<Reduce>),
}

/// An expression node and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The node.
    pub kind: ExprKind,
    /// Its position, if known.
    pub pos: Option<Pos>,
}

impl Expr {
    fn node(kind: ExprKind) -> Expr {
        Expr { kind, pos: None }
    }

    /// The same node at `pos`.
    pub fn at(mut self, pos: Pos) -> Expr {
        self.pos = Some(pos);
        self
    }

    /// The constant `v`.
    pub fn constant(v: f64) -> Expr {
        Expr::node(ExprKind::Const(Constant::new(v)))
    }

    /// A constant given by its decimal text (`"0.044715"`), rounded once to its type.
    pub fn literal(text: &str) -> Expr {
        Expr::node(ExprKind::Const(Constant::from_text(text)))
    }

    /// An integer expression of iterators and parameters as a value (`Expr::index("H")`
    /// is the parameter `H` as a number).
    pub fn index(value: impl Into<Affine>) -> Expr {
        Expr::node(ExprKind::Index(value.into()))
    }

    /// The element `tensor[indices]`.
    pub fn access<I: Into<Affine>>(tensor: &str, indices: impl IntoIterator<Item = I>) -> Expr {
        Expr::node(ExprKind::Access {
            tensor: tensor.to_string(),
            indices: indices.into_iter().map(|i| (i.into(), None)).collect(),
        })
    }

    /// A unary function of `self`.
    pub fn unary(self, op: Unary) -> Expr {
        Expr::node(ExprKind::Unary(op, Box::new(self)))
    }

    /// A binary operation.
    pub fn binary(op: Binary, a: Expr, b: Expr) -> Expr {
        Expr::node(ExprKind::Binary(op, Box::new(a), Box::new(b)))
    }

    /// `exp(self)`.
    pub fn exp(self) -> Expr {
        self.unary(Unary::Exp)
    }

    /// `sqrt(self)`.
    pub fn sqrt(self) -> Expr {
        self.unary(Unary::Sqrt)
    }

    /// `tanh(self)`.
    pub fn tanh(self) -> Expr {
        self.unary(Unary::Tanh)
    }

    /// `erf(self)`.
    pub fn erf(self) -> Expr {
        self.unary(Unary::Erf)
    }

    /// `abs(self)`.
    pub fn abs(self) -> Expr {
        self.unary(Unary::Abs)
    }

    /// `max(self, other)`, elementwise.
    pub fn max(self, other: Expr) -> Expr {
        Expr::binary(Binary::Max, self, other)
    }

    /// `min(self, other)`, elementwise.
    pub fn min(self, other: Expr) -> Expr {
        Expr::binary(Binary::Min, self, other)
    }

    /// `select(cond, a, b)`.
    pub fn select(cond: Cond, a: Expr, b: Expr) -> Expr {
        Expr::node(ExprKind::Select(Box::new(cond), Box::new(a), Box::new(b)))
    }

    /// A reduction of `body` over `axes` (each an [`Axis::range`]).
    pub fn reduce(op: ReduceOp, axes: Vec<Axis>, body: Expr) -> Expr {
        Expr::node(ExprKind::Reduce(Box::new(Reduce { op, axes, body })))
    }

    /// `sum(axes, body)`.
    pub fn sum(axes: Vec<Axis>, body: Expr) -> Expr {
        Expr::reduce(ReduceOp::Sum, axes, body)
    }

    /// `max(axes, body)`, the reduction.
    pub fn max_over(axes: Vec<Axis>, body: Expr) -> Expr {
        Expr::reduce(ReduceOp::Max, axes, body)
    }

    /// `min(axes, body)`, the reduction.
    pub fn min_over(axes: Vec<Axis>, body: Expr) -> Expr {
        Expr::reduce(ReduceOp::Min, axes, body)
    }

    /// `self < other`.
    pub fn lt(self, other: Expr) -> Cond {
        Cond::Compare(Compare::Lt, self, other)
    }

    /// `self <= other`.
    pub fn le(self, other: Expr) -> Cond {
        Cond::Compare(Compare::Le, self, other)
    }

    /// `self > other`.
    pub fn gt(self, other: Expr) -> Cond {
        Cond::Compare(Compare::Gt, self, other)
    }

    /// `self >= other`.
    pub fn ge(self, other: Expr) -> Cond {
        Cond::Compare(Compare::Ge, self, other)
    }

    /// `self == other`.
    pub fn equals(self, other: Expr) -> Cond {
        Cond::Compare(Compare::Eq, self, other)
    }

    /// The direct sub-expressions, left to right (a select's condition operands first).
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Index(_) | ExprKind::Access { .. } => Vec::new(),
            ExprKind::Unary(_, a) => vec![a],
            ExprKind::Binary(_, a, b) => vec![a, b],
            ExprKind::Select(c, a, b) => {
                let mut v = c.operands();
                v.push(a);
                v.push(b);
                v
            }
            ExprKind::Reduce(r) => vec![&r.body],
        }
    }

    /// Calls `f` on every node, parents before children, left to right.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    /// The reductions in the expression, in pre-order.
    pub fn reductions(&self) -> Vec<&Reduce> {
        let mut out = Vec::new();
        self.walk(&mut |e| {
            if let ExprKind::Reduce(r) = &e.kind {
                out.push(&**r);
            }
        });
        out
    }
}

impl From<f64> for Expr {
    fn from(v: f64) -> Expr {
        Expr::constant(v)
    }
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:expr) => {
        impl<T: Into<Expr>> $trait<T> for Expr {
            type Output = Expr;
            fn $method(self, rhs: T) -> Expr {
                Expr::binary($op, self, rhs.into())
            }
        }
    };
}

binary_operator!(Add, add, Binary::Add);
binary_operator!(Sub, sub, Binary::Sub);
binary_operator!(Mul, mul, Binary::Mul);
binary_operator!(Div, div, Binary::Div);

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.unary(Unary::Neg)
    }
}
