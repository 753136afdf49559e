//! The builder of [`Program`]s: the Rust API of the language, and what the parser calls.
//!
//! Every method checks what it adds at once (names, ranks, shapes, bounds), so that the
//! first error of a text program is the first one in the text.

use std::collections::HashMap;

use crate::affine::{Affine, ParamExpr};
use crate::bounds;
use crate::error::{err, Error, ErrorKind, Pos, Result};
use crate::expr::{Axis, Constant, DType, Expr, ExprKind, Name};
use crate::program::{Compute, Pad, Param, ParamDef, Program, Stage, Tensor, TensorKind};

/// The largest rank of a tensor (the C layout's declarators go up to five dimensions).
pub const MAX_RANK: usize = 5;

/// The deepest expression the checks accept.
pub const MAX_DEPTH: usize = 200;

/// Words a name may not be, besides C's keywords: the language's keywords and built-ins
/// and the names the generated C program and its header use.
const RESERVED: &[&str] = &[
    // the language
    "param",
    "input",
    "output",
    "pad",
    "sum",
    "max",
    "min",
    "select",
    "exp",
    "sqrt",
    "tanh",
    "erf",
    "abs",
    "f32",
    "f64",
    // C names that are no keywords of C (those are `pollen_frontend::is_c_keyword`)
    "bool",
    "true",
    "false",
    // the generated program, operators.h and the C library names they use
    "main",
    "init_array",
    "DATA_TYPE",
    "DATA_PRINTF_MODIFIER",
    "SCALAR_VAL",
    "SQRT_FUN",
    "EXP_FUN",
    "TANH_FUN",
    "MAX_FUN",
    "MIN_FUN",
    "POW_FUN",
    "ERF_FUN",
    "ABS_FUN",
    "DATA_TYPE_IS_DOUBLE",
    "DATA_TYPE_IS_FLOAT",
    "LARGE_DATASET",
    "POLLEN_DUMP",
    "POLLEN_TIME",
    "POLLEN_USE_C99_PROTO",
    "POLLEN_OPERATORS_H",
    "operator_alloc",
    "operator_free",
    "OPERATOR_ALIGN",
    "OPERATOR_MALLOC",
    "operator_output",
    "operator_now",
    "operator_timer",
    "tensor_output_f64",
    "expf",
    "sqrtf",
    "tanhf",
    "erff",
    "fabsf",
    "fabs",
    "fmaxf",
    "fmax",
    "fminf",
    "fmin",
    "powf",
    "pow",
    "INFINITY",
    "NAN",
    "HUGE_VAL",
    "NULL",
    "EOF",
    "FILE",
    "free",
    "calloc",
    "malloc",
    "exit",
    "printf",
    "fprintf",
    "stdin",
    "stdout",
    "stderr",
    "size_t",
    "timespec",
    "clock_gettime",
    "CLOCK_MONOTONIC",
    "isnan",
    "isinf",
    "signbit",
    "errno",
    "assert",
];

/// Words a parameter may not be: parameters are also macros that `-D` flags define
/// before `operators.h` is included, whose functions use these names.
const RESERVED_PARAMS: &[&str] = &[
    "count", "size", "block", "name", "data", "sum", "pos", "now", "start", "stop", "tv_sec",
    "tv_nsec",
];

/// Prefixes a name may not start with (the generated C program's names).
const RESERVED_PREFIXES: &[&str] = &["POLYBENCH", "OPERATOR", "kernel_", "pollen_"];

/// A tensor of a program being built: its name and rank, to write accesses with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorRef {
    name: String,
    rank: usize,
}

impl TensorRef {
    /// The tensor's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tensor's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The element `self[indices]`.
    pub fn at<I: Into<Affine>>(&self, indices: impl IntoIterator<Item = I>) -> Expr {
        Expr::access(&self.name, indices)
    }
}

/// What a name denotes in the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Global {
    Param,
    Tensor,
}

/// Builds a [`Program`] statement by statement; see the crate documentation for an
/// example.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    params: Vec<Param>,
    tensors: Vec<Tensor>,
    stages: Vec<Stage>,
    outputs: Vec<String>,
    globals: HashMap<String, (Global, Option<Pos>)>,
}

/// Whether `name` is an identifier of the language: a letter, then letters, digits and
/// underscores.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `name` is reserved (a keyword, a built-in or a name of the generated C).
pub fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
        || pollen_frontend::is_c_keyword(name)
        || RESERVED_PREFIXES.iter().any(|p| name.starts_with(p))
}

fn check_identifier(name: &Name, what: &str) -> Result<()> {
    if !is_identifier(&name.text) {
        return err(
            ErrorKind::Syntax,
            name.pos,
            format!("`{}` is not a valid {what} name", name.text),
        );
    }
    if is_reserved(&name.text) {
        return err(
            ErrorKind::Redefinition,
            name.pos,
            format!(
                "`{}` is reserved (a keyword, a built-in or a name of the generated C program)",
                name.text
            ),
        );
    }
    Ok(())
}

fn check_param_name(name: &Name) -> Result<()> {
    if RESERVED_PARAMS.contains(&name.text.as_str()) {
        return err(
            ErrorKind::Redefinition,
            name.pos,
            format!(
                "`{}` cannot be a parameter: `-D{}=...` would change operators.h, which uses the name",
                name.text, name.text
            ),
        );
    }
    Ok(())
}

fn at(pos: Option<Pos>) -> String {
    pos.map_or(String::new(), |p| format!(" at {p}"))
}

/// One read of a tensor, with the statement's iterators around it.
struct Site {
    tensor: String,
    indices: Vec<Affine>,
    pos: Option<Pos>,
    iterators: Vec<(String, Affine)>,
}

/// The extent an iterator was found to index, and where.
struct Inferred {
    extent: Affine,
    pos: Option<Pos>,
    what: String,
}

/// The checks of one compute statement's body.
struct BodyCheck<'a> {
    builder: &'a Builder,
    lhs: &'a [Axis],
    /// The axes of the enclosing reductions.
    scope: Vec<(String, Affine)>,
    /// Every reduction axis of the body.
    reduction_axes: Vec<String>,
    inferred: HashMap<String, Inferred>,
    sites: Vec<Site>,
}

impl BodyCheck<'_> {
    fn name_in_index(&self, name: &str, pos: Option<Pos>) -> Result<()> {
        if self.lhs.iter().any(|a| a.name.text == name) || self.scope.iter().any(|(n, _)| n == name)
        {
            return Ok(());
        }
        match self.builder.globals.get(name) {
            Some((Global::Param, _)) => return Ok(()),
            Some((Global::Tensor, _)) => {
                return err(
                    ErrorKind::Unbound,
                    pos,
                    format!("`{name}` is a tensor, not an iterator or a parameter"),
                )
            }
            None => {}
        }
        if self.reduction_axes.iter().any(|n| n == name) {
            return err(
                ErrorKind::Reduction,
                pos,
                format!("`{name}` is the axis of a reduction and is used outside it"),
            );
        }
        err(
            ErrorKind::Unbound,
            pos,
            format!(
                "iterator `{name}` is not bound: it is neither an iterator of the left-hand side, \
                 the axis of an enclosing reduction nor a parameter"
            ),
        )
    }

    fn affine(&self, a: &Affine, pos: Option<Pos>) -> Result<()> {
        for n in a.names() {
            self.name_in_index(n, pos)?;
        }
        Ok(())
    }

    fn expr(&mut self, e: &Expr, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return err(
                ErrorKind::Limit,
                e.pos,
                format!("expression nested deeper than {MAX_DEPTH}"),
            );
        }
        match &e.kind {
            ExprKind::Const(c) => {
                if !c.is_finite() {
                    return err(
                        ErrorKind::Value,
                        e.pos,
                        format!("the constant `{}` is not a finite number", c.text()),
                    );
                }
            }
            ExprKind::Index(a) => self.affine(a, e.pos)?,
            ExprKind::Access { tensor, indices } => self.access(e, tensor, indices)?,
            ExprKind::Unary(_, a) => self.expr(a, depth + 1)?,
            ExprKind::Binary(_, a, b) => {
                self.expr(a, depth + 1)?;
                self.expr(b, depth + 1)?;
            }
            ExprKind::Select(c, a, b) => {
                for x in c.operands() {
                    self.expr(x, depth + 1)?;
                }
                self.expr(a, depth + 1)?;
                self.expr(b, depth + 1)?;
            }
            ExprKind::Reduce(r) => {
                if !self.scope.is_empty() {
                    return err(
                        ErrorKind::Reduction,
                        e.pos,
                        "a reduction inside a reduction: give all the axes to one reduction, \
                         as in `sum(k : K, l : L, ...)`",
                    );
                }
                if r.axes.is_empty() {
                    return err(
                        ErrorKind::Syntax,
                        e.pos,
                        "a reduction needs at least one axis",
                    );
                }
                let mut axes: Vec<(String, Affine)> = Vec::new();
                for axis in &r.axes {
                    let name = &axis.name;
                    check_identifier(name, "reduction axis")?;
                    if self.builder.globals.contains_key(&name.text)
                        || self.lhs.iter().any(|a| a.name.text == name.text)
                        || axes.iter().any(|(n, _)| *n == name.text)
                    {
                        return err(
                            ErrorKind::Redefinition,
                            name.pos,
                            format!("`{}` is already defined", name.text),
                        );
                    }
                    let Some(extent) = &axis.extent else {
                        return err(
                            ErrorKind::Shape,
                            name.pos,
                            format!("reduction axis `{}` needs an extent", name.text),
                        );
                    };
                    self.builder.check_extent(extent, name.pos)?;
                    axes.push((name.text.clone(), extent.clone()));
                }
                self.scope = axes;
                let result = self.expr(&r.body, depth + 1);
                self.scope.clear();
                result?;
            }
        }
        Ok(())
    }

    fn access(&mut self, e: &Expr, tensor: &str, indices: &[(Affine, Option<Pos>)]) -> Result<()> {
        let Some(t) = self.builder.tensors.iter().find(|t| t.name == tensor) else {
            let message = match self.builder.globals.get(tensor) {
                Some((Global::Param, _)) => format!("`{tensor}` is a parameter, not a tensor"),
                _ if self.lhs.iter().any(|a| a.name.text == tensor) => {
                    format!("`{tensor}` is an iterator, not a tensor")
                }
                _ => format!("unknown tensor `{tensor}`"),
            };
            return err(ErrorKind::UnknownName, e.pos, message);
        };
        if indices.len() != t.rank() {
            return err(
                ErrorKind::Arity,
                e.pos,
                format!(
                    "`{tensor}` has {} dimension{} but is accessed with {} ind{}",
                    t.rank(),
                    if t.rank() == 1 { "" } else { "s" },
                    indices.len(),
                    if indices.len() == 1 { "ex" } else { "ices" }
                ),
            );
        }
        for (d, (index, pos)) in indices.iter().enumerate() {
            let pos = pos.or(e.pos);
            self.affine(index, pos)?;
            let Some(var) = index.as_var() else { continue };
            let Some(axis) = self.lhs.iter().find(|a| a.name.text == var) else {
                continue;
            };
            if axis.extent.is_some() {
                continue;
            }
            let extent = &t.shape[d];
            let what = format!("dimension {} of `{tensor}`, of extent {extent}", d + 1);
            match self.inferred.get(var) {
                Some(first) if first.extent != *extent => {
                    return err(
                        ErrorKind::Shape,
                        pos,
                        format!(
                            "shape mismatch: `{var}` indexes {what} here but {}{}",
                            first.what,
                            at(first.pos)
                        ),
                    )
                }
                Some(_) => {}
                None => {
                    self.inferred.insert(
                        var.to_string(),
                        Inferred {
                            extent: extent.clone(),
                            pos,
                            what,
                        },
                    );
                }
            }
        }
        self.sites.push(Site {
            tensor: tensor.to_string(),
            indices: indices.iter().map(|(a, _)| a.clone()).collect(),
            pos: e.pos,
            iterators: self.scope.clone(),
        });
        Ok(())
    }
}

impl Builder {
    /// An empty program.
    pub fn new() -> Builder {
        Builder::default()
    }

    fn declare(&mut self, name: &Name, what: &str, kind: Global) -> Result<()> {
        check_identifier(name, what)?;
        if let Some((_, pos)) = self.globals.get(&name.text) {
            return err(
                ErrorKind::Redefinition,
                name.pos,
                format!("`{}` is already defined{}", name.text, at(*pos)),
            );
        }
        self.globals.insert(name.text.clone(), (kind, name.pos));
        Ok(())
    }

    fn check_extent(&self, extent: &Affine, pos: Option<Pos>) -> Result<()> {
        for n in extent.names() {
            if !matches!(self.globals.get(n), Some((Global::Param, _))) {
                return err(
                    ErrorKind::UnknownName,
                    pos,
                    format!("extents are affine in the parameters, and `{n}` is not a parameter"),
                );
            }
        }
        Ok(())
    }

    fn check_rank(rank: usize, name: &Name) -> Result<()> {
        if rank == 0 || rank > MAX_RANK {
            return err(
                ErrorKind::Shape,
                name.pos,
                format!(
                    "`{}` has {rank} dimensions; a tensor has 1 to {MAX_RANK}",
                    name.text
                ),
            );
        }
        Ok(())
    }

    /// Declares an independent size parameter with its default value (at least 1); the
    /// parameter as an affine expression, for shapes and indices.
    pub fn param(&mut self, name: impl Into<Name>, default: i64) -> Result<Affine> {
        let name = name.into();
        if default < 1 {
            return err(
                ErrorKind::Value,
                name.pos,
                format!("the default of `{}` must be at least 1", name.text),
            );
        }
        check_param_name(&name)?;
        self.declare(&name, "parameter", Global::Param)?;
        self.params.push(Param {
            name: name.text.clone(),
            def: ParamDef::Value(default),
            pos: name.pos,
        });
        Ok(Affine::var(name.text))
    }

    /// Declares a parameter derived from earlier ones (`HO = (H - 1) / 2 + 1`).
    pub fn derived_param(&mut self, name: impl Into<Name>, def: ParamExpr) -> Result<Affine> {
        let name = name.into();
        for n in def.names() {
            if !matches!(self.globals.get(n), Some((Global::Param, _))) {
                return err(
                    ErrorKind::UnknownName,
                    name.pos,
                    format!(
                        "`{n}` in the definition of `{}` is not an earlier parameter",
                        name.text
                    ),
                );
            }
        }
        if def.eval(&|_| Some(1)).is_none() {
            return err(
                ErrorKind::Value,
                name.pos,
                format!(
                    "the definition of `{}` divides by a non-positive number or overflows",
                    name.text
                ),
            );
        }
        check_param_name(&name)?;
        self.declare(&name, "parameter", Global::Param)?;
        self.params.push(Param {
            name: name.text.clone(),
            def: ParamDef::Derived(def),
            pos: name.pos,
        });
        Ok(Affine::var(name.text))
    }

    /// Declares an input tensor of the given shape (extents affine in the parameters).
    pub fn input(
        &mut self,
        name: impl Into<Name>,
        shape: Vec<Affine>,
        dtype: DType,
    ) -> Result<TensorRef> {
        let name = name.into();
        check_identifier(&name, "tensor")?;
        Self::check_rank(shape.len(), &name)?;
        for extent in &shape {
            self.check_extent(extent, name.pos)?;
        }
        self.declare(&name, "tensor", Global::Tensor)?;
        self.tensors.push(Tensor {
            name: name.text.clone(),
            shape,
            dtype,
            kind: TensorKind::Input,
            pos: name.pos,
        });
        Ok(TensorRef {
            rank: self.tensors.last().map_or(0, Tensor::rank),
            name: name.text,
        })
    }

    /// `name[axes] = body`, with the element type of the tensors `body` reads (`f64` if
    /// any is, else `f32`).
    pub fn compute(
        &mut self,
        name: impl Into<Name>,
        axes: Vec<Axis>,
        body: Expr,
    ) -> Result<TensorRef> {
        self.compute_typed(name, axes, None, body)
    }

    /// `name[axes] : dtype = body`; `dtype` `None` infers the type as
    /// [`Builder::compute`] does.
    ///
    /// Checks that the name is new, the axes distinct and their extents affine in the
    /// parameters (an axis without an extent takes that of the tensor dimensions it
    /// indexes as a plain index, which must agree), that every tensor read is defined
    /// with that rank, that every index is affine in the bound iterators and the
    /// parameters, that reductions are not nested and their axes used inside them only,
    /// and that every read stays inside its tensor for all parameter values.
    pub fn compute_typed(
        &mut self,
        name: impl Into<Name>,
        axes: Vec<Axis>,
        dtype: Option<DType>,
        body: Expr,
    ) -> Result<TensorRef> {
        let name = name.into();
        check_identifier(&name, "tensor")?;
        if let Some((_, pos)) = self.globals.get(&name.text) {
            return err(
                ErrorKind::Redefinition,
                name.pos,
                format!("`{}` is already defined{}", name.text, at(*pos)),
            );
        }
        Self::check_rank(axes.len(), &name)?;
        for (k, axis) in axes.iter().enumerate() {
            check_identifier(&axis.name, "iterator")?;
            if self.globals.contains_key(&axis.name.text)
                || axes[..k].iter().any(|a| a.name.text == axis.name.text)
            {
                return err(
                    ErrorKind::Redefinition,
                    axis.name.pos,
                    format!("`{}` is already defined", axis.name.text),
                );
            }
            if let Some(extent) = &axis.extent {
                self.check_extent(extent, axis.name.pos)?;
            }
        }
        let mut reduction_axes = Vec::new();
        body.walk(&mut |e| {
            if let ExprKind::Reduce(r) = &e.kind {
                reduction_axes.extend(r.axes.iter().map(|a| a.name.text.clone()));
            }
        });
        let mut check = BodyCheck {
            builder: self,
            lhs: &axes,
            scope: Vec::new(),
            reduction_axes,
            inferred: HashMap::new(),
            sites: Vec::new(),
        };
        check.expr(&body, 0)?;
        let BodyCheck {
            mut inferred,
            sites,
            ..
        } = check;
        let mut resolved: Vec<(String, Affine)> = Vec::new();
        for axis in &axes {
            let extent = match &axis.extent {
                Some(e) => e.clone(),
                None => match inferred.remove(&axis.name.text) {
                    Some(i) => i.extent,
                    None => {
                        return err(
                            ErrorKind::Shape,
                            axis.name.pos,
                            format!(
                                "the extent of `{0}` cannot be inferred (no tensor read has `{0}` \
                                 as a plain index); write `{0} : EXTENT`",
                                axis.name.text
                            ),
                        )
                    }
                },
            };
            resolved.push((axis.name.text.clone(), extent));
        }
        for site in &sites {
            let Some(tensor) = self.tensors.iter().find(|t| t.name == site.tensor) else {
                continue;
            };
            let mut iterators = resolved.clone();
            iterators.extend(site.iterators.iter().cloned());
            bounds::check_access(&self.params, &iterators, tensor, &site.indices, site.pos)?;
        }
        let dtype = dtype.unwrap_or_else(|| {
            let mut t = DType::F32;
            body.walk(&mut |e| {
                if let ExprKind::Access { tensor, .. } = &e.kind {
                    if let Some(x) = self.tensors.iter().find(|x| x.name == *tensor) {
                        t = t.join(x.dtype);
                    }
                }
            });
            t
        });
        self.declare(&name, "tensor", Global::Tensor)?;
        self.tensors.push(Tensor {
            name: name.text.clone(),
            shape: resolved.iter().map(|(_, e)| e.clone()).collect(),
            dtype,
            kind: TensorKind::Computed,
            pos: name.pos,
        });
        self.stages.push(Stage::Compute(Compute {
            tensor: name.text.clone(),
            axes: resolved,
            body,
            pos: name.pos,
        }));
        Ok(TensorRef {
            rank: axes.len(),
            name: name.text,
        })
    }

    /// `name = pad(source, before, after, value)`: a tensor of shape
    /// `before[d] + shape[d] + after[d]` holding `source` at offset `before` and `value`
    /// elsewhere. Paddings are non-negative integers, one per dimension.
    pub fn pad(
        &mut self,
        name: impl Into<Name>,
        source: impl Into<Name>,
        before: Vec<i64>,
        after: Vec<i64>,
        value: Constant,
    ) -> Result<TensorRef> {
        let name = name.into();
        let source = source.into();
        check_identifier(&name, "tensor")?;
        if let Some((_, pos)) = self.globals.get(&name.text) {
            return err(
                ErrorKind::Redefinition,
                name.pos,
                format!("`{}` is already defined{}", name.text, at(*pos)),
            );
        }
        let Some(src) = self.tensors.iter().find(|t| t.name == source.text).cloned() else {
            return err(
                ErrorKind::UnknownName,
                source.pos,
                format!("unknown tensor `{}`", source.text),
            );
        };
        for (what, list) in [("before", &before), ("after", &after)] {
            if list.len() != src.rank() {
                return err(
                    ErrorKind::Shape,
                    source.pos,
                    format!(
                        "`{}` has {} dimensions but the padding {what} it has {} entries",
                        src.name,
                        src.rank(),
                        list.len()
                    ),
                );
            }
            if list.iter().any(|p| *p < 0) {
                return err(ErrorKind::Shape, name.pos, "paddings are non-negative");
            }
        }
        if !value.is_finite() {
            return err(
                ErrorKind::Value,
                name.pos,
                format!(
                    "the padding value `{}` is not a finite number",
                    value.text()
                ),
            );
        }
        let mut shape = Vec::new();
        for (d, extent) in src.shape.iter().enumerate() {
            let grown = extent
                .checked_add(&Affine::constant(before[d]))
                .and_then(|e| e.checked_add(&Affine::constant(after[d])));
            match grown {
                Some(e) => shape.push(e),
                None => return err(ErrorKind::Value, name.pos, "the padded extent overflows"),
            }
        }
        self.declare(&name, "tensor", Global::Tensor)?;
        self.tensors.push(Tensor {
            name: name.text.clone(),
            shape,
            dtype: src.dtype,
            kind: TensorKind::Padded,
            pos: name.pos,
        });
        self.stages.push(Stage::Pad(Pad {
            tensor: name.text.clone(),
            source: src.name.clone(),
            before,
            after,
            value,
            pos: name.pos,
        }));
        Ok(TensorRef {
            rank: src.rank(),
            name: name.text,
        })
    }

    /// Marks a computed tensor as an output of the program.
    pub fn output(&mut self, name: impl Into<Name>) -> Result<()> {
        let name = name.into();
        match self.tensors.iter().find(|t| t.name == name.text) {
            None => err(
                ErrorKind::UnknownName,
                name.pos,
                format!("unknown tensor `{}`", name.text),
            ),
            Some(t) if t.kind == TensorKind::Input => err(
                ErrorKind::UnknownName,
                name.pos,
                format!("`{}` is an input; outputs are computed tensors", name.text),
            ),
            Some(_) => {
                if !self.outputs.contains(&name.text) {
                    self.outputs.push(name.text);
                }
                Ok(())
            }
        }
    }

    /// The program. Its outputs are those marked by [`Builder::output`], else every
    /// computed tensor that no stage reads; a program that computes nothing is an error.
    pub fn build(self) -> Result<Program> {
        let mut outputs = self.outputs;
        if outputs.is_empty() {
            let read: Vec<String> = self.stages.iter().flat_map(Stage::reads).collect();
            outputs = self
                .stages
                .iter()
                .map(|s| s.tensor().to_string())
                .filter(|t| !read.contains(t))
                .collect();
        }
        if outputs.is_empty() {
            return Err(Error::new(
                ErrorKind::Shape,
                None,
                "the program computes no tensor",
            ));
        }
        Ok(Program {
            params: self.params,
            tensors: self.tensors,
            stages: self.stages,
            outputs,
        })
    }
}
