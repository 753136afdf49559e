//! The checked tensor program: parameters, tensors and the stages that compute them.

use crate::affine::{Affine, ParamExpr};
use crate::builder::Builder;
use crate::error::{err, ErrorKind, Pos, Result};
use crate::expr::{Constant, DType, Expr, ExprKind};

/// A size parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name (also the C macro that sets it).
    pub name: String,
    /// Its default value or its definition.
    pub def: ParamDef,
    /// Where it was declared.
    pub pos: Option<Pos>,
}

/// How a parameter gets its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamDef {
    /// An independent size, `>= 1`, with a default value.
    Value(i64),
    /// A size derived from earlier parameters (an output size).
    Derived(ParamExpr),
}

/// Where a tensor's values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorKind {
    /// An input (placeholder), initialised with deterministic values by the C program.
    Input,
    /// Computed by a [`Compute`] stage.
    Computed,
    /// A padded copy of another tensor ([`Pad`]).
    Padded,
}

/// A tensor: a box of elements `0 <= x_d < shape[d]`, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Its name.
    pub name: String,
    /// The extent of each dimension, affine in the parameters.
    pub shape: Vec<Affine>,
    /// The element type.
    pub dtype: DType,
    /// Where its values come from.
    pub kind: TensorKind,
    /// Where it was declared or defined.
    pub pos: Option<Pos>,
}

impl Tensor {
    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
}

/// `tensor[axes] = body` for every point of the box of the axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Compute {
    /// The tensor defined.
    pub tensor: String,
    /// The left-hand side's iterators with their (given or inferred) extents; the
    /// tensor's shape.
    pub axes: Vec<(String, Affine)>,
    /// The value of each element.
    pub body: Expr,
    /// Where the statement starts.
    pub pos: Option<Pos>,
}

/// `tensor = pad(source, before, after, value)`: a copy of `source` with `before[d]`
/// elements of value `value` before and `after[d]` after it along each dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct Pad {
    /// The padded tensor defined.
    pub tensor: String,
    /// The tensor padded.
    pub source: String,
    /// Padding before each dimension.
    pub before: Vec<i64>,
    /// Padding after each dimension.
    pub after: Vec<i64>,
    /// The value of the padding.
    pub value: Constant,
    /// Where the statement starts.
    pub pos: Option<Pos>,
}

/// One definition of a tensor, in program order.
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    /// A compute statement.
    Compute(Compute),
    /// A padding.
    Pad(Pad),
}

impl Stage {
    /// The tensor it defines.
    pub fn tensor(&self) -> &str {
        match self {
            Stage::Compute(c) => &c.tensor,
            Stage::Pad(p) => &p.tensor,
        }
    }

    /// The tensors it reads, in order of first read.
    pub fn reads(&self) -> Vec<String> {
        match self {
            Stage::Compute(c) => {
                let mut out: Vec<String> = Vec::new();
                c.body.walk(&mut |e| {
                    if let ExprKind::Access { tensor, .. } = &e.kind {
                        if !out.contains(tensor) {
                            out.push(tensor.clone());
                        }
                    }
                });
                out
            }
            Stage::Pad(p) => vec![p.source.clone()],
        }
    }
}

/// A checked tensor program: what [`Builder::build`] and [`crate::parse`] return.
///
/// Every access is within its tensor's shape for all parameter values (independent
/// parameters `>= 1`, derived ones by their definitions), every tensor is defined
/// before it is read, and names are unique.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub(crate) params: Vec<Param>,
    pub(crate) tensors: Vec<Tensor>,
    pub(crate) stages: Vec<Stage>,
    pub(crate) outputs: Vec<String>,
}

impl Program {
    /// A builder for a program.
    pub fn builder() -> Builder {
        Builder::new()
    }

    /// The parameters, in declaration order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The tensors, inputs and computed ones, in declaration order.
    pub fn tensors(&self) -> &[Tensor] {
        &self.tensors
    }

    /// The tensor `name`.
    pub fn tensor(&self, name: &str) -> Option<&Tensor> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// The stages, in program (execution) order.
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// The output tensors: those named by `output`, else the computed tensors no stage
    /// reads.
    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }

    /// The input tensors, in declaration order.
    pub fn inputs(&self) -> impl Iterator<Item = &Tensor> + '_ {
        self.tensors.iter().filter(|t| t.kind == TensorKind::Input)
    }

    /// The value of every parameter: the defaults, replaced by `overrides` (independent
    /// parameters only, each `>= 1`), then the derived ones computed.
    pub fn sizes(&self, overrides: &[(&str, i64)]) -> Result<Sizes> {
        for (name, v) in overrides {
            match self.params.iter().find(|p| p.name == *name) {
                None => {
                    return err(
                        ErrorKind::UnknownName,
                        None,
                        format!("no parameter `{name}`"),
                    )
                }
                Some(Param {
                    def: ParamDef::Derived(_),
                    ..
                }) => {
                    return err(
                        ErrorKind::Value,
                        None,
                        format!("`{name}` is derived from other parameters; it cannot be set"),
                    )
                }
                Some(_) if *v < 1 => {
                    return err(
                        ErrorKind::Value,
                        None,
                        format!("`{name}` must be at least 1"),
                    )
                }
                Some(_) => {}
            }
        }
        let mut values: Vec<(String, i64)> = Vec::new();
        for p in &self.params {
            let v = match &p.def {
                ParamDef::Value(d) => overrides
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == p.name)
                    .map_or(*d, |(_, v)| *v),
                ParamDef::Derived(e) => {
                    let lookup = |n: &str| values.iter().find(|(m, _)| m == n).map(|(_, v)| *v);
                    match e.eval(&lookup) {
                        Some(v) => v,
                        None => {
                            return err(
                                ErrorKind::Value,
                                p.pos,
                                format!("the value of `{}` overflows", p.name),
                            )
                        }
                    }
                }
            };
            values.push((p.name.clone(), v));
        }
        Ok(Sizes { values })
    }

    /// The type an expression of a statement computing a `lhs` tensor is evaluated in:
    /// the widest type of the tensors it reads (a reduction has the type of the tensor
    /// it computes); constants and index values take the type of the operation around
    /// them, and at the top the left-hand side's.
    pub fn natural_type(&self, e: &Expr, lhs: DType) -> Option<DType> {
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Index(_) => None,
            ExprKind::Access { tensor, .. } => self.tensor(tensor).map(|t| t.dtype),
            ExprKind::Reduce(_) => Some(lhs),
            ExprKind::Unary(_, a) => self.natural_type(a, lhs),
            ExprKind::Binary(_, a, b) | ExprKind::Select(_, a, b) => {
                join(self.natural_type(a, lhs), self.natural_type(b, lhs))
            }
        }
    }
}

pub(crate) fn join(a: Option<DType>, b: Option<DType>) -> Option<DType> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.join(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The value of every parameter of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sizes {
    values: Vec<(String, i64)>,
}

impl Sizes {
    /// The value of parameter `name`.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// Every parameter and its value, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> + '_ {
        self.values.iter().map(|(n, v)| (n.as_str(), *v))
    }

    /// The value of an affine expression of the parameters.
    pub fn eval(&self, a: &Affine) -> Option<i64> {
        a.eval(&|n| self.get(n))
    }
}
