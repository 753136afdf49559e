//! The loop AST that code generation produces and the emitters print.
//!
//! Expressions are quasi-affine over the loop iterators and the parameters: sums,
//! multiplications by constants, floor and ceiling divisions and modulo by positive
//! constants, minimum and maximum. Conditions are conjunctions and disjunctions of
//! comparisons with zero. A [`Ast::User`] node executes one statement instance: the
//! statement's name and the value of each of its original iterators.
//!
//! # Invariants
//! - divisors of [`Expr::FloorDiv`], [`Expr::CeilDiv`] and [`Expr::Mod`] are positive;
//! - [`Expr::Min`] and [`Expr::Max`] have at least one operand;
//! - a loop's `stride` is positive and the loop runs `lower, lower + stride, ...` while
//!   the iterator is at most `upper` (both bounds inclusive).

use pollen_arith::Int;

/// A quasi-affine integer expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A constant.
    Int(Int),
    /// A loop iterator or a parameter, by name.
    Var(String),
    /// The sum of the operands.
    Add(Vec<Expr>),
    /// A constant times an expression.
    Mul(Int, Box<Expr>),
    /// `floor(e / d)` with `d > 0`.
    FloorDiv(Box<Expr>, Int),
    /// `ceil(e / d)` with `d > 0`.
    CeilDiv(Box<Expr>, Int),
    /// The non-negative remainder `e mod d` with `d > 0`.
    Mod(Box<Expr>, Int),
    /// The minimum of the operands.
    Min(Vec<Expr>),
    /// The maximum of the operands.
    Max(Vec<Expr>),
}

impl Expr {
    /// The variable `name`.
    pub fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    /// The constant `k`.
    pub fn int(k: i64) -> Expr {
        Expr::Int(Int::from(k))
    }

    /// Whether the expression mentions the variable `name`.
    pub fn mentions(&self, name: &str) -> bool {
        match self {
            Expr::Int(_) => false,
            Expr::Var(v) => v == name,
            Expr::Add(es) | Expr::Min(es) | Expr::Max(es) => es.iter().any(|e| e.mentions(name)),
            Expr::Mul(_, e) | Expr::FloorDiv(e, _) | Expr::CeilDiv(e, _) | Expr::Mod(e, _) => {
                e.mentions(name)
            }
        }
    }
}

/// A condition on the iterators and parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `e >= 0`.
    NonNegative(Expr),
    /// `e == 0`.
    Zero(Expr),
    /// All of them (true when empty).
    And(Vec<Cond>),
    /// Any of them (false when empty).
    Or(Vec<Cond>),
}

impl Cond {
    /// Whether the condition mentions the variable `name`.
    pub fn mentions(&self, name: &str) -> bool {
        match self {
            Cond::NonNegative(e) | Cond::Zero(e) => e.mentions(name),
            Cond::And(w) | Cond::Or(w) => w.iter().any(|c| c.mentions(name)),
        }
    }
}

/// A `for` loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The iterator's name (`c0`, `c1`, ...).
    pub iterator: String,
    /// The first value.
    pub lower: Expr,
    /// The last value (inclusive).
    pub upper: Expr,
    /// The increment, positive.
    pub stride: Int,
    /// The body.
    pub body: Box<Ast>,
    /// No two iterations depend on each other: the loop may run in parallel
    /// (`#pragma omp parallel for` when it is the outermost parallel loop).
    pub parallel: bool,
    /// An innermost parallel loop whose iterations may be vectorised (`#pragma omp simd`).
    pub vectorizable: bool,
}

/// A node of the loop AST.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ast {
    /// Children executed in order.
    Block(Vec<Ast>),
    /// A loop.
    For(Loop),
    /// A guarded subtree.
    If {
        /// The guard.
        cond: Cond,
        /// Executed when the guard holds.
        then: Box<Ast>,
        /// Executed otherwise, if present.
        otherwise: Option<Box<Ast>>,
    },
    /// One instance of a statement: its name and the values of its original iterators.
    User {
        /// The statement's name (`S0`, ...).
        statement: String,
        /// One expression per original iterator, outermost first.
        args: Vec<Expr>,
    },
}
