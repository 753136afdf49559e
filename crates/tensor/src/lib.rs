//! A tensor-expression front end: deep-learning operators written as tensor
//! expressions, in the spirit of TVM's `te.compute`, checked exactly and lowered to a C
//! program with a `#pragma scop` region and to Pollen's polyhedral model.
//!
//! A [`Program`] declares size parameters, input tensors and a sequence of stages, each
//! defining one new tensor elementwise (`T[i, j] = ...`), with reductions (`sum`, `max`,
//! `min` over one or several axes) or as a padded copy of another tensor. It is built
//! with the [`Builder`] ([`Program::builder`]) or read from text by [`parse`], which
//! drives the same builder, so both give the same program and the same errors.
//!
//! - [`to_c`] prints the naive C program in the layout of `examples/operators/`: sizes as
//!   `-D`-overridable macros, deterministic inputs, one `#pragma scop` region of loop
//!   nests (a reduction is an initialisation followed by the accumulation in the
//!   innermost loops, as TVM and AKG lower `sum`), checksums of the outputs.
//! - [`to_scop`] gives the polyhedral model of that region (Pollen's C frontend on the
//!   text, so domains and accesses are exactly the frontend's).
//! - [`eval`] is a direct interpreter of the tensor expressions in `f32`/`f64`, the
//!   reference the tests compare the compiled C programs with.
//!
//! # The language
//!
//! ```text
//! # matmul with bias and ReLU
//! param M = 64, N = 48, K = 32;          # sizes: parameters with default values
//! input A[M, K], B[K, N], bias[N];       # element type f32 unless written `: f64`
//! T[i, j] = sum(k : K, A[i, k] * B[k, j]);
//! C[i, j] = max(T[i, j] + bias[j], 0.0);
//! ```
//!
//! Grammar (`#` starts a comment that runs to the end of the line):
//!
//! ```text
//! program  := item*
//! item     := 'param' pdef (',' pdef)* ';'
//!           | 'input' idecl (',' idecl)* ';'
//!           | 'output' NAME (',' NAME)* ';'
//!           | NAME '=' 'pad' '(' NAME ',' ints ',' ints ',' number ')' ';'
//!           | NAME '[' axis (',' axis)* ']' [':' dtype] '=' expr ';'
//! pdef     := NAME '=' size              # an integer >= 1, or derived from earlier ones
//! idecl    := NAME '[' affine (',' affine)* ']' [':' dtype]
//! axis     := NAME [':' affine]          # the extent, when it cannot be inferred
//! dtype    := 'f32' | 'f64'
//! ints     := '[' ['-'] INT (',' ['-'] INT)* ']'
//! expr     := term (('+' | '-') term)*
//! term     := unary (('*' | '/') unary)*
//! unary    := '-' unary | primary
//! primary  := number | NAME '[' affine (',' affine)* ']' | NAME | '(' expr ')'
//!           | ('exp' | 'sqrt' | 'tanh' | 'erf' | 'abs') '(' expr ')'
//!           | ('max' | 'min') '(' expr ',' expr ')'
//!           | ('sum' | 'max' | 'min') '(' raxis (',' raxis)* ',' expr ')'
//!           | 'select' '(' cond ',' expr ',' expr ')'
//! raxis    := NAME ':' affine
//! cond     := cand ('||' cand)* ;  cand := catom ('&&' catom)*
//! catom    := '!' catom | '(' cond ')' | expr ('<' | '<=' | '>' | '>=' | '==' | '!=') expr
//! affine   := integer combination of iterators and parameters: INT, NAME, '+', '-',
//!             '*' with one integer factor, parentheses
//! size     := the same over earlier parameters, plus '/' INT (floor division)
//! ```
//!
//! - **Parameters** are sizes. `param M = 64` is an independent size (at least 1; the
//!   default of the C macro `M`); `param HO = (H - 1) / 2 + 1` is derived from earlier
//!   ones (quasi-affine: integer combinations and floor division by a positive integer),
//!   the usual way to write the output size of a strided convolution.
//! - **Tensors** have 1 to 5 dimensions, extents affine in the parameters, and element
//!   type `f32` (C `DATA_TYPE`) or `f64` (C `double`). Names are unique across
//!   parameters and tensors; keywords, built-ins, C keywords and the names of the
//!   generated C program are reserved.
//! - **A compute statement** `T[i, j] = e` defines `T` over the box of its iterators.
//!   An iterator's extent is inferred from the tensors it indexes as a plain index
//!   (`A[i, k]` gives `i` the extent of `A`'s first dimension; all such uses must agree,
//!   so elementwise operands of different shapes are a shape mismatch: broadcasting is
//!   written out, as in `bias[j]`); `T[h : HO, w : WO] = ...` gives it explicitly. The
//!   element type is that of the widest tensor read unless written (`T[i] : f64 = ...`).
//! - **Indices** are affine in the iterators and the parameters with integer
//!   coefficients (`X[n, c, 2*h + kh, 2*w + kw]`). A name used as a value is that integer
//!   (`sum(h : H, X[b, h]) / H`).
//! - **Reductions** `sum(k : K, e)`, `max(k : K, e)`, `min(k : K, e)`, with one or several
//!   axes (`sum(c : C, kh : 3, kw : 3, ...)`), may appear anywhere in a right-hand side
//!   but not inside one another; their axes are bound inside them only. They accumulate
//!   in the element type of the tensor computed, from 0, minus or plus infinity, over the
//!   axes in lexicographic order.
//! - **Padding** `P = pad(X, [0, 1, 1], [0, 1, 1], 0.0)` defines `P` with extents
//!   `before + extent + after`, equal to `X` shifted by `before` and to the constant
//!   elsewhere. It is lowered as a separate stage: one statement fills `P` with the
//!   constant, a second copies `X` into its interior, so both have exact affine accesses.
//! - **Outputs** are the tensors named by `output`, else the computed tensors no later
//!   statement reads.
//! - **Elementwise functions**: `+ - * /`, unary minus, `exp`, `sqrt`, `tanh`, `erf`,
//!   `abs`, `max(a, b)`, `min(a, b)` and `select(cond, a, b)` with comparisons joined by
//!   `&&`, `||` and `!`. Constants take the type of the operation around them (C's
//!   `SCALAR_VAL(0.5)` in `f32` code).
//!
//! # Checks
//!
//! Every error has an [`ErrorKind`] and the line and column of the construct at fault:
//! unknown tensors, parameters and functions, redefinitions and reserved names, wrong
//! numbers of indices, shape mismatches and extents that cannot be inferred, reduction
//! axes used outside their reduction, unbound iterators, non-affine indices, and
//! out-of-bounds reads, which are proved impossible with `pollen-presburger`: the image
//! of each statement's iteration box under the access must lie in the tensor's box for
//! every parameter value (independent parameters at least 1, derived ones by their
//! definitions); otherwise the error gives an iteration and parameter values that read
//! outside. Nothing panics on malformed text.
//!
//! # Example
//!
//! ```
//! use pollen_tensor::{Axis, DType, Expr, Program};
//!
//! let text = "param M = 64, N = 48, K = 32;
//! input A[M, K], B[K, N], bias[N];
//! T[i, j] = sum(k : K, A[i, k] * B[k, j]);
//! C[i, j] = max(T[i, j] + bias[j], 0.0);
//! ";
//! let parsed = pollen_tensor::parse(text)?;
//!
//! let mut b = Program::builder();
//! let m = b.param("M", 64)?;
//! let n = b.param("N", 48)?;
//! let k = b.param("K", 32)?;
//! let a = b.input("A", vec![m.clone(), k.clone()], DType::F32)?;
//! let bb = b.input("B", vec![k.clone(), n.clone()], DType::F32)?;
//! let bias = b.input("bias", vec![n], DType::F32)?;
//! let t = b.compute(
//!     "T",
//!     vec![Axis::new("i"), Axis::new("j")],
//!     Expr::sum(vec![Axis::range("k", k)], a.at(["i", "k"]) * bb.at(["k", "j"])),
//! )?;
//! b.compute(
//!     "C",
//!     vec![Axis::new("i"), Axis::new("j")],
//!     Expr::max(t.at(["i", "j"]) + bias.at(["j"]), Expr::literal("0.0")),
//! )?;
//! let built = b.build()?;
//! assert!(pollen_tensor::same_program(&parsed, &built));
//! assert_eq!(built.outputs(), ["C"]);
//!
//! let c = pollen_tensor::to_c(&built, "matmul_relu");
//! assert!(c.contains("#pragma scop"));
//! let scop = pollen_tensor::to_scop(&built, "matmul_relu")?;
//! assert_eq!(scop.statements.len(), 3); // init, accumulation, bias + ReLU
//! # Ok::<(), pollen_tensor::Error>(())
//! ```

mod affine;
mod bounds;
mod builder;
mod c;
pub mod error;
pub mod eval;
mod expr;
pub mod img2col;
mod parser;
mod program;

pub use affine::{Affine, ParamExpr};
pub use builder::{is_identifier, is_reserved, Builder, TensorRef, MAX_DEPTH, MAX_RANK};
pub use c::{to_c, to_c_with, to_scop, Lowering, Padding};
pub use error::{Error, ErrorKind, Pos, Result};
pub use expr::{
    Axis, Binary, Compare, Cond, Constant, DType, Expr, ExprKind, Name, Reduce, ReduceOp, Unary,
};
pub use parser::parse;
pub use program::{Compute, Pad, Param, ParamDef, Program, Sizes, Stage, Tensor, TensorKind};

/// Whether two programs are the same up to source positions: the same parameters,
/// tensors, stages and outputs.
pub fn same_program(a: &Program, b: &Program) -> bool {
    strip(a) == strip(b)
}

fn strip(p: &Program) -> Program {
    fn expr(e: &Expr) -> Expr {
        let kind = match &e.kind {
            ExprKind::Access { tensor, indices } => ExprKind::Access {
                tensor: tensor.clone(),
                indices: indices.iter().map(|(a, _)| (a.clone(), None)).collect(),
            },
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(expr(a))),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(*op, Box::new(expr(a)), Box::new(expr(b)))
            }
            ExprKind::Select(c, a, b) => {
                ExprKind::Select(Box::new(cond(c)), Box::new(expr(a)), Box::new(expr(b)))
            }
            ExprKind::Reduce(r) => ExprKind::Reduce(Box::new(Reduce {
                op: r.op,
                axes: r
                    .axes
                    .iter()
                    .map(|a| Axis {
                        name: Name::from(a.name.text.as_str()),
                        extent: a.extent.clone(),
                    })
                    .collect(),
                body: expr(&r.body),
            })),
            k => k.clone(),
        };
        Expr { kind, pos: None }
    }
    fn cond(c: &Cond) -> Cond {
        match c {
            Cond::Compare(op, a, b) => Cond::Compare(*op, expr(a), expr(b)),
            Cond::And(a, b) => Cond::And(Box::new(cond(a)), Box::new(cond(b))),
            Cond::Or(a, b) => Cond::Or(Box::new(cond(a)), Box::new(cond(b))),
            Cond::Not(a) => Cond::Not(Box::new(cond(a))),
        }
    }
    let mut p = p.clone();
    for x in &mut p.params {
        x.pos = None;
    }
    for t in &mut p.tensors {
        t.pos = None;
    }
    for s in &mut p.stages {
        match s {
            Stage::Compute(c) => {
                c.pos = None;
                c.body = expr(&c.body);
            }
            Stage::Pad(x) => x.pos = None,
        }
    }
    p
}
