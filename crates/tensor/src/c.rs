//! Lowering to C (the layout of `examples/operators/`) and to a [`Scop`].
//!
//! Each stage becomes one loop nest over its tensor's box, in program order:
//! - an elementwise statement, one assignment;
//! - a statement whose right-hand side is a reduction: the initialisation, then the
//!   reduction's loops (its axes in order, innermost) around the accumulation
//!   (`T[i][j] += ...`, or `T = MAX_FUN(T, ...)`), as TVM and AKG lower `sum`;
//! - a reduction inside a larger expression: the same two statements accumulating in
//!   the tensor itself, then `T[i][j] = f(T[i][j])`; with several reductions, each
//!   accumulates in a temporary array of the tensor's shape (`T_red0`, ...);
//! - a padding: nests that fill the padded tensor's border with the constant, one box
//!   per padded side (along dimension `k`, the slab before or after the source, the
//!   dimensions before `k` over the interior, those after `k` whole: disjoint boxes, no
//!   fill of the interior, which the copy overwrites), then one that copies the source
//!   into its interior; unless it is read in place (below).
//!
//! # Padding read in place
//! [`Lowering::padding`] chooses, for each padding, whether it is materialised (a fill
//! and a copy, above) or read in place. A padding can be read in place when it is not an
//! output, no other padding pads it, and only statements whose whole right-hand side is
//! one reduction read it, with the reduction axes that its indices along padded
//! dimensions mention having constant extents. Each such reduction is then lowered
//! twice, as TVM's and Halide's boundary conditions are split into an interior and a
//! border:
//! - where every term reads inside the source (the output's *interior*: a conjunction of
//!   affine conditions on its iterators, from the reduction axes' constant extents), the
//!   plain nest over the source;
//! - elsewhere (the border, the disjunction of the negated conditions), the nest whose
//!   reads of the padding are *selects*, `(inside ? X[i - 1] : value)`: the very value
//!   the materialised padding holds, so the result is the copy's bit for bit.
//!
//! A padding by zero that a sum reads as a factor of its terms (a convolution's
//! `sum(c, kh, kw, P[n, c, h + kh, w + kw] * Wt[k, c, kh, kw])`) has a cheaper border:
//! a padding element adds `0 · w`, so the accumulation is guarded by the read's being
//! inside the source and the terms that read the padding are left out. That is the
//! copy's result bit for bit where the other factors are finite: a left-out term is a
//! `±0` that the sum, which starts at `+0` and so is never `-0`, does not change (an
//! infinite or NaN factor against the padding would have made the materialised sum NaN).
//!
//! By default ([`Padding::Auto`]) the paddings that only maxima and minima read (a max
//! pooling's) are read in place and the others copied: the optimizer does not yet do
//! well with a sum's border nest (a union of pieces); its default pipeline exceeds its
//! code generation budget on the convolutions of `examples/tensor/`, and untiled it is
//! slower than the copy. [`Padding::InPlace`] reads every padding it can in place,
//! [`Padding::Copy`] none.
//!
//! Parameters are `-D`-overridable macros (`M`). The loops' bounds are `_PB_M`, the name
//! the scop's parameters have: a macro for the size macro, as in PolyBench, so that the
//! C compiler specializes the kernel (and the functions OpenMP outlines from it) for its
//! sizes; with `-DPOLLEN_SCALAR_SIZES`, for the functions' `int` size arguments
//! (`size_M`).

use std::fmt::Write as _;

use pollen_scop::Scop;

use crate::affine::Affine;
use crate::builder::is_identifier;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::init_coefficients;
use crate::expr::{Binary, Cond, DType, Expr, ExprKind, Reduce, ReduceOp, Unary};
use crate::program::{Compute, Pad, ParamDef, Program, Stage, TensorKind};

/// An array of the C program: a tensor or a temporary.
struct Array {
    name: String,
    shape: Vec<Affine>,
    dtype: DType,
}

/// A piece of the region: a statement, a loop nest or a guarded block.
enum Item {
    Stmt(String),
    Loops(Vec<(String, Affine)>, Vec<Item>),
    If(String, Vec<Item>),
}

/// Which paddings [`to_c_with`] reads in place instead of materialising (module
/// documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Padding {
    /// In place where only maxima and minima read the padding, materialised otherwise.
    #[default]
    Auto,
    /// Always materialised: nests that fill the padded tensor's border and one that copies.
    Copy,
    /// In place wherever the reads allow it.
    InPlace,
}

/// How [`to_c_with`] lowers a program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lowering {
    /// Which paddings are read in place (module documentation).
    pub padding: Padding,
}

/// A padding read in place: the padded tensor, its source, the padding before and after
/// each dimension and its value.
struct Inlined {
    tensor: String,
    source: String,
    before: Vec<i64>,
    after: Vec<i64>,
    value: crate::expr::Constant,
    dtype: DType,
}

/// The single access to `tensor` in `e` when it is `e` itself or a factor of a product
/// (through `*` nodes only), and `e` reads `tensor` nowhere else.
fn factor_access<'e>(
    e: &'e Expr,
    tensor: &str,
) -> Option<&'e [(Affine, Option<crate::error::Pos>)]> {
    let mut count = 0;
    e.walk(&mut |x| {
        if matches!(&x.kind, ExprKind::Access { tensor: t, .. } if t == tensor) {
            count += 1;
        }
    });
    if count != 1 {
        return None;
    }
    fn find<'e>(e: &'e Expr, tensor: &str) -> Option<&'e [(Affine, Option<crate::error::Pos>)]> {
        match &e.kind {
            ExprKind::Access { tensor: t, indices } if t == tensor => Some(indices),
            ExprKind::Binary(Binary::Mul, a, b) => find(a, tensor).or_else(|| find(b, tensor)),
            _ => None,
        }
    }
    find(e, tensor)
}

/// The paddings read in place under `mode`: not an output, padded by no other padding,
/// and read only by statements whose whole right-hand side is one reduction, the
/// reduction axes its indices along padded dimensions mention having constant extents;
/// under [`Padding::Auto`], only by maxima and minima.
fn inlined_pads(program: &Program, mode: Padding) -> Vec<Inlined> {
    let mut out = Vec::new();
    if mode == Padding::Copy {
        return out;
    }
    for stage in program.stages() {
        let Stage::Pad(p) = stage else { continue };
        if program.outputs().contains(&p.tensor) {
            continue;
        }
        let padded = |d: usize| p.before[d] != 0 || p.after[d] != 0;
        let in_place = program.stages().iter().all(|s| match s {
            Stage::Pad(q) => q.source != p.tensor,
            Stage::Compute(c) => {
                if !s.reads().contains(&p.tensor) {
                    return true;
                }
                let ExprKind::Reduce(r) = &c.body.kind else {
                    return false;
                };
                if mode == Padding::Auto && r.op == ReduceOp::Sum {
                    return false;
                }
                let mut constant = true;
                r.body.walk(&mut |x| {
                    if let ExprKind::Access { tensor, indices } = &x.kind {
                        if tensor == &p.tensor {
                            constant &= indices.iter().enumerate().all(|(d, (a, _))| {
                                !padded(d)
                                    || r.axes.iter().all(|x| {
                                        a.coefficient(&x.name.text) == 0
                                            || x.extent
                                                .as_ref()
                                                .and_then(Affine::as_constant)
                                                .is_some()
                                    })
                            });
                        }
                    }
                });
                c.body.reductions().len() == 1 && constant
            }
        });
        let dtype = program.tensor(&p.tensor).map(|t| t.dtype);
        if let (true, Some(dtype)) = (in_place, dtype) {
            out.push(Inlined {
                tensor: p.tensor.clone(),
                source: p.source.clone(),
                before: p.before.clone(),
                after: p.after.clone(),
                value: p.value.clone(),
                dtype,
            });
        }
    }
    out
}

/// Whether a sum reads the padding by zero `p` as a factor of its terms only, so that
/// the border's terms that read the padding can be left out (module documentation).
fn guarded_border(r: &Reduce, p: &Inlined) -> bool {
    r.op == ReduceOp::Sum
        && p.value.is_finite()
        && p.value.as_f64() == 0.0
        && factor_access(&r.body, &p.tensor).is_some()
}

fn param_c(name: &str) -> String {
    format!("_PB_{name}")
}

pub(crate) fn affine_c(a: &Affine, program: &Program) -> String {
    a.display_with(&|n| {
        if program.params().iter().any(|p| p.name == n) {
            param_c(n)
        } else {
            n.to_string()
        }
    })
    .to_string()
}

fn affine_macro(a: &Affine) -> String {
    a.to_string()
}

pub(crate) fn c_type(t: DType) -> &'static str {
    match t {
        DType::F32 => "DATA_TYPE",
        DType::F64 => "double",
    }
}

fn scalar(text: &str, t: DType) -> String {
    match t {
        DType::F32 => format!("SCALAR_VAL({text})"),
        DType::F64 => text.to_string(),
    }
}

/// A fresh name with `base` as prefix that no program name uses.
fn fresh(program: &Program, taken: &[String], base: &str) -> String {
    let mut name = base.to_string();
    while program.tensor(&name).is_some()
        || program.params().iter().any(|p| p.name == name)
        || taken.contains(&name)
    {
        name.push('_');
    }
    name
}

/// Precedence of a printed expression: 1 additive, 2 multiplicative, 3 unary, 4 primary.
struct Printed {
    text: String,
    prec: u8,
}

struct Printer<'a> {
    program: &'a Program,
    /// Paddings read in place: their accesses print as the source's.
    inlined: &'a [Inlined],
    /// Whether their accesses print as selects between the source and the padding's
    /// value (a border nest's).
    border: bool,
    lhs: DType,
    /// The text that replaces each reduction, in pre-order.
    reductions: Vec<String>,
    next_reduction: usize,
}

impl Printer<'_> {
    fn expr(&mut self, e: &Expr, ctx: DType) -> Printed {
        let t = self.program.natural_type(e, self.lhs).unwrap_or(ctx);
        let primary = |text: String| Printed { text, prec: 4 };
        match &e.kind {
            ExprKind::Const(c) => primary(scalar(&c.text(), t)),
            ExprKind::Index(a) => {
                primary(format!("(({}) ({}))", c_type(t), affine_c(a, self.program)))
            }
            ExprKind::Access { tensor, indices } => {
                if let Some(p) = self.inlined.iter().find(|p| &p.tensor == tensor) {
                    let mut s = p.source.clone();
                    for ((a, _), b) in indices.iter().zip(&p.before) {
                        let index = a.checked_sub(&Affine::constant(*b)).unwrap_or_default();
                        write!(s, "[{}]", affine_c(&index, self.program)).ok();
                    }
                    let inside = inside_conditions(self.program, p, indices).unwrap_or_default();
                    if self.border && !inside.is_empty() {
                        let value = scalar(&p.value.text(), p.dtype);
                        return primary(format!("({} ? {s} : {value})", inside.join(" && ")));
                    }
                    return primary(s);
                }
                let mut s = tensor.clone();
                for (a, _) in indices {
                    write!(s, "[{}]", affine_c(a, self.program)).ok();
                }
                primary(s)
            }
            ExprKind::Unary(Unary::Neg, a) => {
                let a = self.expr(a, t);
                let inner = if a.prec >= 3 {
                    a.text
                } else {
                    format!("({})", a.text)
                };
                Printed {
                    text: format!("-{inner}"),
                    prec: 3,
                }
            }
            ExprKind::Unary(op, a) => {
                let a = self.expr(a, t).text;
                let f = match (op, t) {
                    (Unary::Exp, DType::F32) => "EXP_FUN",
                    (Unary::Exp, DType::F64) => "exp",
                    (Unary::Sqrt, DType::F32) => "SQRT_FUN",
                    (Unary::Sqrt, DType::F64) => "sqrt",
                    (Unary::Tanh, DType::F32) => "TANH_FUN",
                    (Unary::Tanh, DType::F64) => "tanh",
                    (Unary::Erf, DType::F32) => "ERF_FUN",
                    (Unary::Erf, DType::F64) => "erf",
                    (Unary::Abs, DType::F32) => "ABS_FUN",
                    (Unary::Abs, DType::F64) | (Unary::Neg, _) => "fabs",
                };
                primary(format!("{f}({a})"))
            }
            ExprKind::Binary(op @ (Binary::Max | Binary::Min), a, b) => {
                let a = self.expr(a, t).text;
                let b = self.expr(b, t).text;
                let f = match (op, t) {
                    (Binary::Max, DType::F32) => "MAX_FUN",
                    (Binary::Max, DType::F64) => "fmax",
                    (_, DType::F32) => "MIN_FUN",
                    (_, DType::F64) => "fmin",
                };
                primary(format!("{f}({a}, {b})"))
            }
            ExprKind::Binary(op, a, b) => {
                let (sym, prec) = match op {
                    Binary::Add => ("+", 1),
                    Binary::Sub => ("-", 1),
                    Binary::Mul => ("*", 2),
                    _ => ("/", 2),
                };
                let a = self.expr(a, t);
                let b = self.expr(b, t);
                let left = if a.prec < prec {
                    format!("({})", a.text)
                } else {
                    a.text
                };
                let right = if b.prec <= prec {
                    format!("({})", b.text)
                } else {
                    b.text
                };
                Printed {
                    text: format!("{left} {sym} {right}"),
                    prec,
                }
            }
            ExprKind::Select(c, a, b) => {
                let c = self.cond(c, t);
                let a = self.expr(a, t).text;
                let b = self.expr(b, t).text;
                primary(format!("({c} ? {a} : {b})"))
            }
            ExprKind::Reduce(_) => {
                let text = self
                    .reductions
                    .get(self.next_reduction)
                    .cloned()
                    .unwrap_or_default();
                self.next_reduction += 1;
                primary(text)
            }
        }
    }

    fn cond(&mut self, c: &Cond, ctx: DType) -> String {
        match c {
            Cond::Compare(op, a, b) => {
                let t = crate::program::join(
                    self.program.natural_type(a, self.lhs),
                    self.program.natural_type(b, self.lhs),
                )
                .unwrap_or(ctx);
                let a = self.expr(a, t).text;
                let b = self.expr(b, t).text;
                format!("{a} {} {b}", op.symbol())
            }
            Cond::And(a, b) => format!("({} && {})", self.cond(a, ctx), self.cond(b, ctx)),
            Cond::Or(a, b) => format!("({} || {})", self.cond(a, ctx), self.cond(b, ctx)),
            Cond::Not(a) => format!("!({})", self.cond(a, ctx)),
        }
    }
}

/// The lowered program: arrays and the region's items.
struct Lowered {
    arrays: Vec<Array>,
    items: Vec<Item>,
}

fn element(name: &str, axes: &[(String, Affine)]) -> String {
    let mut s = name.to_string();
    for (a, _) in axes {
        write!(s, "[{a}]").ok();
    }
    s
}

/// The conditions under which a reduction's every term reads padding `p` at `indices`
/// inside its source (the interior: the index's least and greatest values over the
/// reduction's box within the source's); `None` when an axis the index mentions has no
/// constant extent.
fn interior_conditions(
    program: &Program,
    p: &Inlined,
    r: &Reduce,
    indices: &[(Affine, Option<crate::error::Pos>)],
) -> Option<Vec<String>> {
    let source = program.tensor(&p.source)?;
    let mut interior = Vec::new();
    for (d, (a, _)) in indices.iter().enumerate() {
        let (before, after) = (p.before[d], p.after[d]);
        if before == 0 && after == 0 {
            continue;
        }
        // The index's least and greatest values over the reduction's box.
        let (mut low, mut high) = (a.clone(), a.clone());
        for x in &r.axes {
            let k = a.coefficient(&x.name.text);
            if k == 0 {
                continue;
            }
            let last = x
                .extent
                .as_ref()
                .and_then(Affine::as_constant)?
                .checked_sub(1)?;
            let term = Affine::var(x.name.text.as_str()).checked_scale(k)?;
            let (lo, hi) = if k > 0 { (0, last) } else { (last, 0) };
            low = low
                .checked_sub(&term)?
                .checked_add(&Affine::constant(k.checked_mul(lo)?))?;
            high = high
                .checked_sub(&term)?
                .checked_add(&Affine::constant(k.checked_mul(hi)?))?;
        }
        interior.extend(within_source(
            program,
            &source.shape[d],
            before,
            after,
            &low,
            &high,
        )?);
    }
    Some(interior)
}

/// The conditions that an index whose least value is `low` and greatest `high` reads
/// inside a source dimension of extent `extent` padded by `before` and `after`.
fn within_source(
    program: &Program,
    extent: &Affine,
    before: i64,
    after: i64,
    low: &Affine,
    high: &Affine,
) -> Option<Vec<String>> {
    let mut out = Vec::new();
    if before > 0 {
        out.push(format!("{} >= {before}", affine_c(low, program)));
    }
    if after > 0 {
        let last = extent.checked_add(&Affine::constant(before.checked_sub(1)?))?;
        out.push(format!(
            "{} <= {}",
            affine_c(high, program),
            affine_c(&last, program)
        ));
    }
    Some(out)
}

/// The conditions under which the access to padding `p` at `indices` reads inside its
/// source (empty when no dimension is padded).
fn inside_conditions(
    program: &Program,
    p: &Inlined,
    indices: &[(Affine, Option<crate::error::Pos>)],
) -> Option<Vec<String>> {
    let source = program.tensor(&p.source)?;
    let mut inside = Vec::new();
    for (d, (a, _)) in indices.iter().enumerate() {
        inside.extend(within_source(
            program,
            &source.shape[d],
            p.before[d],
            p.after[d],
            a,
            a,
        )?);
    }
    Some(inside)
}

/// The interior conditions of reduction `r` over every access to a padding read in
/// place (each once), and whether its border's accumulation is guarded instead of its
/// reads selected ([`guarded_border`]); `None` when it reads no padding in place or its
/// every access is inside.
fn reduction_split(
    program: &Program,
    r: &Reduce,
    inlined: &[Inlined],
) -> Option<(Vec<String>, Option<Vec<String>>)> {
    let mut interior: Vec<String> = Vec::new();
    let mut read = Vec::new();
    let mut failed = false;
    r.body.walk(&mut |x| {
        if let ExprKind::Access { tensor, indices } = &x.kind {
            if let Some(p) = inlined.iter().find(|p| &p.tensor == tensor) {
                match interior_conditions(program, p, r, indices) {
                    Some(cs) => {
                        for c in cs {
                            if !interior.contains(&c) {
                                interior.push(c);
                            }
                        }
                    }
                    None => failed = true,
                }
                if !read.iter().any(|q: &&Inlined| q.tensor == p.tensor) {
                    read.push(p);
                }
            }
        }
    });
    if failed || interior.is_empty() {
        return None;
    }
    let guard = match read.as_slice() {
        [p] if guarded_border(r, p) => {
            let indices = factor_access(&r.body, &p.tensor)?;
            Some(inside_conditions(program, p, indices)?)
        }
        _ => None,
    };
    Some((interior, guard))
}

/// The negation of each of `conditions` (`a >= b`, `a <= b`).
fn negated(conditions: &[String]) -> Vec<String> {
    conditions
        .iter()
        .map(|c| c.replacen(" >= ", " < ", 1).replacen(" <= ", " > ", 1))
        .collect()
}

/// The statement that accumulates `body` into `acc` by `op` in type `t`.
fn accumulation(op: ReduceOp, t: DType, acc: &str, body: &str) -> String {
    match (op, t) {
        (ReduceOp::Sum, _) => format!("{acc} += {body};"),
        (ReduceOp::Max, DType::F32) => format!("{acc} = MAX_FUN({acc}, {body});"),
        (ReduceOp::Max, DType::F64) => format!("{acc} = fmax({acc}, {body});"),
        (ReduceOp::Min, DType::F32) => format!("{acc} = MIN_FUN({acc}, {body});"),
        (ReduceOp::Min, DType::F64) => format!("{acc} = fmin({acc}, {body});"),
    }
}

fn lower_compute(
    program: &Program,
    c: &Compute,
    arrays: &mut Vec<Array>,
    inlined: &[Inlined],
) -> Item {
    let Some(tensor) = program.tensor(&c.tensor) else {
        return Item::Loops(Vec::new(), Vec::new());
    };
    let lhs = tensor.dtype;
    let axes: Vec<(String, Affine)> = c.axes.clone();
    let target = element(&c.tensor, &axes);
    let reductions = c.body.reductions();
    let mut items = Vec::new();
    let top_level = matches!(c.body.kind, ExprKind::Reduce(_));
    let accumulators: Vec<String> = if reductions.len() <= 1 {
        reductions.iter().map(|_| target.clone()).collect()
    } else {
        let mut taken: Vec<String> = arrays.iter().map(|a| a.name.clone()).collect();
        let mut out = Vec::new();
        for k in 0..reductions.len() {
            let name = fresh(program, &taken, &format!("{}_red{k}", c.tensor));
            taken.push(name.clone());
            arrays.push(Array {
                name: name.clone(),
                shape: tensor.shape.clone(),
                dtype: lhs,
            });
            out.push(element(&name, &axes));
        }
        out
    };
    for (r, acc) in reductions.iter().zip(&accumulators) {
        let init = match r.op {
            ReduceOp::Sum => scalar("0.0", lhs),
            ReduceOp::Max => "-INFINITY".to_string(),
            ReduceOp::Min => "INFINITY".to_string(),
        };
        let init = format!("{acc} = {init};");
        let mut printer = Printer {
            program,
            inlined,
            border: false,
            lhs,
            reductions: Vec::new(),
            next_reduction: 0,
        };
        let body = printer.expr(&r.body, lhs).text;
        let t = program.natural_type(&r.body, lhs).unwrap_or(lhs).join(lhs);
        let update = accumulation(r.op, t, acc, &body);
        let raxes: Vec<(String, Affine)> = r
            .axes
            .iter()
            .map(|a| (a.name.text.clone(), a.extent.clone().unwrap_or_default()))
            .collect();
        let split = if top_level {
            reduction_split(program, r, inlined)
        } else {
            None
        };
        if let Some((interior, guard)) = split {
            // The interior's plain nest, then the border's, whose accumulation is guarded
            // or whose reads of the padding are selects.
            let whole = Item::Loops(
                axes.clone(),
                vec![Item::If(
                    interior.join(" && "),
                    vec![
                        Item::Stmt(init.clone()),
                        Item::Loops(raxes.clone(), vec![Item::Stmt(update.clone())]),
                    ],
                )],
            );
            let accumulate = match guard {
                Some(inside) => Item::If(inside.join(" && "), vec![Item::Stmt(update)]),
                None => {
                    let mut printer = Printer {
                        program,
                        inlined,
                        border: true,
                        lhs,
                        reductions: Vec::new(),
                        next_reduction: 0,
                    };
                    let body = printer.expr(&r.body, lhs).text;
                    Item::Stmt(accumulation(r.op, t, acc, &body))
                }
            };
            let border = Item::Loops(
                axes,
                vec![Item::If(
                    negated(&interior).join(" || "),
                    vec![Item::Stmt(init), Item::Loops(raxes, vec![accumulate])],
                )],
            );
            return Item::Loops(Vec::new(), vec![whole, border]);
        }
        items.push(Item::Stmt(init));
        items.push(Item::Loops(raxes, vec![Item::Stmt(update)]));
    }
    if !top_level {
        let mut printer = Printer {
            program,
            inlined,
            border: false,
            lhs,
            reductions: accumulators,
            next_reduction: 0,
        };
        let value = printer.expr(&c.body, lhs).text;
        items.push(Item::Stmt(format!("{target} = {value};")));
    }
    Item::Loops(axes, items)
}

fn lower_pad(program: &Program, p: &Pad, taken: &[String]) -> Vec<Item> {
    let (Some(padded), Some(source)) = (program.tensor(&p.tensor), program.tensor(&p.source))
    else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for d in 0..padded.rank() {
        let mut all = taken.to_vec();
        all.extend(names.iter().cloned());
        names.push(fresh(program, &all, &format!("d{d}")));
    }
    let value = scalar(&p.value.text(), padded.dtype);
    let copy_axes: Vec<(String, Affine)> = names
        .iter()
        .cloned()
        .zip(source.shape.iter().cloned())
        .collect();
    let mut target = p.tensor.clone();
    for (d, n) in names.iter().enumerate() {
        let index = Affine::var(n.as_str()) + p.before[d];
        write!(target, "[{index}]").ok();
    }
    let copy = format!("{target} = {};", element(&p.source, &copy_axes));
    // The fill writes the border only (the copy writes the interior), as one box per
    // padded side: along dimension `k`, the `before` (or `after`) slab, the dimensions
    // before `k` over the interior, those after it whole.
    let mut items = Vec::new();
    for k in 0..padded.rank() {
        let sides = [
            (p.before[k], Affine::constant(0)),
            (p.after[k], source.shape[k].clone() + p.before[k]),
        ];
        for (width, start) in sides {
            if width <= 0 {
                continue;
            }
            let mut axes = Vec::new();
            let mut target = p.tensor.clone();
            for (d, n) in names.iter().enumerate() {
                let (extent, offset) = match d.cmp(&k) {
                    std::cmp::Ordering::Less => {
                        (source.shape[d].clone(), Affine::constant(p.before[d]))
                    }
                    std::cmp::Ordering::Equal => (Affine::constant(width), start.clone()),
                    std::cmp::Ordering::Greater => (padded.shape[d].clone(), Affine::constant(0)),
                };
                let index = Affine::var(n.as_str()) + offset;
                write!(target, "[{}]", affine_c(&index, program)).ok();
                axes.push((n.clone(), extent));
            }
            items.push(Item::Loops(
                axes,
                vec![Item::Stmt(format!("{target} = {value};"))],
            ));
        }
    }
    items.push(Item::Loops(copy_axes, vec![Item::Stmt(copy)]));
    items
}

fn lower(program: &Program, options: &Lowering) -> Lowered {
    let inlined = inlined_pads(program, options.padding);
    let mut arrays: Vec<Array> = program
        .tensors()
        .iter()
        .filter(|t| !inlined.iter().any(|p| p.tensor == t.name))
        .map(|t| Array {
            name: t.name.clone(),
            shape: t.shape.clone(),
            dtype: t.dtype,
        })
        .collect();
    let mut iterators: Vec<String> = Vec::new();
    for s in program.stages() {
        if let Stage::Compute(c) = s {
            iterators.extend(c.axes.iter().map(|(n, _)| n.clone()));
            for r in c.body.reductions() {
                iterators.extend(r.axes.iter().map(|a| a.name.text.clone()));
            }
        }
    }
    let mut items = Vec::new();
    for s in program.stages() {
        match s {
            Stage::Compute(c) => items.push(lower_compute(program, c, &mut arrays, &inlined)),
            Stage::Pad(p) if inlined.iter().any(|q| q.tensor == p.tensor) => {}
            Stage::Pad(p) => items.extend(lower_pad(program, p, &iterators)),
        }
    }
    Lowered { arrays, items }
}

fn print_items(out: &mut String, items: &[Item], program: &Program, indent: usize) {
    for item in items {
        match item {
            Item::Stmt(s) => {
                writeln!(out, "{:indent$}{s}", "").ok();
            }
            Item::Loops(axes, body) => {
                let mut depth = indent;
                let mut lines = Vec::new();
                for (n, e) in axes {
                    lines.push(format!(
                        "{:depth$}for ({n} = 0; {n} < {}; {n}++)",
                        "",
                        affine_c(e, program)
                    ));
                    depth += 2;
                }
                let braces = body.len() > 1 && !axes.is_empty();
                if braces {
                    if let Some(last) = lines.last_mut() {
                        last.push_str(" {");
                    }
                }
                for line in lines {
                    writeln!(out, "{line}").ok();
                }
                print_items(out, body, program, depth);
                if braces {
                    writeln!(out, "{:w$}}}", "", w = depth - 2).ok();
                }
            }
            Item::If(cond, body) => {
                let braces = body.len() > 1;
                let open = if braces { " {" } else { "" };
                writeln!(out, "{:indent$}if ({cond}){open}", "").ok();
                print_items(out, body, program, indent + 2);
                if braces {
                    writeln!(out, "{:indent$}}}", "").ok();
                }
            }
        }
    }
}

fn collect_iterators(items: &[Item], out: &mut Vec<String>) {
    for item in items {
        match item {
            Item::Loops(axes, body) => {
                for (n, _) in axes {
                    if !out.contains(n) {
                        out.push(n.clone());
                    }
                }
                collect_iterators(body, out);
            }
            Item::If(_, body) => collect_iterators(body, out),
            Item::Stmt(_) => {}
        }
    }
}

fn declarator(a: &Array, program: &Program) -> String {
    let dims: Vec<String> = a.shape.iter().map(affine_macro).collect();
    let runtime: Vec<String> = a.shape.iter().map(|e| affine_c(e, program)).collect();
    format!(
        "{} POLYBENCH_{}D({}, {}, {})",
        c_type(a.dtype),
        a.shape.len(),
        a.name,
        dims.join(", "),
        runtime.join(", ")
    )
}

fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !is_identifier(&s) {
        s = format!("op_{s}");
    }
    s
}

/// The C program of `program`, named `name` (the kernel function is `kernel_<name>`),
/// in the layout of the operators of `examples/operators/`: it includes `operators.h`,
/// so compile it with `-I examples/operators`.
pub fn to_c(program: &Program, name: &str) -> String {
    to_c_with(program, name, &Lowering::default())
}

/// [`to_c`] with the choices of `options`.
pub fn to_c_with(program: &Program, name: &str, options: &Lowering) -> String {
    let name = sanitize(name);
    let lowered = lower(program, options);
    let mut iterators = Vec::new();
    collect_iterators(&lowered.items, &mut iterators);
    let params: Vec<&str> = program.params().iter().map(|p| p.name.as_str()).collect();
    let mut out = String::new();

    writeln!(out, "/*").ok();
    writeln!(
        out,
        " * {name}.c - a tensor program lowered to C by Pollen (`pollen te`)."
    )
    .ok();
    writeln!(
        out,
        " * Outputs: {}. Sizes are macros that -D flags override.",
        program.outputs().join(", ")
    )
    .ok();
    writeln!(
        out,
        " * Compile with -I examples/operators (it includes operators.h)."
    )
    .ok();
    writeln!(out, " */").ok();
    writeln!(out, "#include \"operators.h\"\n").ok();
    // Outputs of double tensors when DATA_TYPE is float.
    let f64_outputs = program
        .outputs()
        .iter()
        .any(|o| program.tensor(o).is_some_and(|t| t.dtype == DType::F64));
    if f64_outputs {
        out.push_str(
            "/* operator_output for double tensors (the same checksum and magnitude), before the size macros. */\n\
             static void tensor_output_f64(const char *name_, const double *data_, long count_)\n\
             {\n  double sum_ = 0.0, magnitude_ = 0.0;\n  long pos_;\n\n\
             \x20 for (pos_ = 0; pos_ < count_; pos_++) {\n\
             \x20   sum_ += data_[pos_] * (double) (1 + pos_ % 29);\n\
             \x20   magnitude_ += fabs(data_[pos_]) * (double) (1 + pos_ % 29);\n\
             \x20 }\n\
             \x20 printf(\"%s %.17g %.17g\\n\", name_, sum_, magnitude_);\n\
             #ifdef POLLEN_DUMP\n\
             \x20 printf(\"begin %s %ld\\n\", name_, count_);\n\
             \x20 for (pos_ = 0; pos_ < count_; pos_++)\n\
             \x20   printf(\"%.17g\\n\", data_[pos_]);\n\
             \x20 printf(\"end %s\\n\", name_);\n\
             #endif\n}\n\n",
        );
    }

    for p in program.params() {
        let value = match &p.def {
            ParamDef::Value(v) => v.to_string(),
            ParamDef::Derived(e) => format!("({})", e.print(&|n| n.to_string(), false)),
        };
        writeln!(out, "#ifndef {0}\n# define {0} {value}\n#endif", p.name).ok();
    }
    // The functions' size arguments, and the loop bounds `_PB_<name>` (the scop's
    // parameters): the size macros, as PolyBench has them, so that the C compiler
    // specializes the kernel for its sizes, or with -DPOLLEN_SCALAR_SIZES the arguments.
    let mut taken = iterators.clone();
    let mut size_args: Vec<String> = Vec::new();
    for p in &params {
        let arg = fresh(program, &taken, &format!("size_{p}"));
        taken.push(arg.clone());
        size_args.push(arg);
    }
    let size_arg = |p: &str| -> String {
        let k = params.iter().position(|q| *q == p).expect("a parameter");
        format!("int {}", size_args[k])
    };
    if !params.is_empty() {
        out.push_str(
            "\n/* Loop bounds: the size macros, constants the C compiler specializes the\n   \
             kernel for, or with -DPOLLEN_SCALAR_SIZES the functions' size arguments. */\n\
             #ifdef POLLEN_SCALAR_SIZES\n",
        );
        for (p, arg) in params.iter().zip(&size_args) {
            writeln!(out, "# define {} {arg}", param_c(p)).ok();
        }
        out.push_str("#else\n");
        for p in &params {
            writeln!(out, "# define {} {p}", param_c(p)).ok();
        }
        out.push_str("#endif\n");
    }
    out.push_str(
        "\n#ifdef DATA_TYPE_IS_DOUBLE\n\
         # define ERF_FUN(x) erf(x)\n\
         # define ABS_FUN(x) fabs(x)\n\
         # define MIN_FUN(x, y) ((x) < (y) ? (x) : (y))\n\
         #else\n\
         # define ERF_FUN(x) erff(x)\n\
         # define ABS_FUN(x) fabsf(x)\n\
         # define MIN_FUN(x, y) ((x) < (y) ? (x) : (y))\n\
         #endif\n\n",
    );

    // Deterministic inputs.
    let inputs: Vec<&Array> = lowered
        .arrays
        .iter()
        .filter(|a| {
            program
                .tensor(&a.name)
                .is_some_and(|t| t.kind == TensorKind::Input)
        })
        .collect();
    let used_in = |arrays: &[&Array]| -> Vec<&str> {
        params
            .iter()
            .copied()
            .filter(|p| {
                arrays
                    .iter()
                    .any(|a| a.shape.iter().any(|e| e.coefficient(p) != 0))
            })
            .collect()
    };
    let init_params = used_in(&inputs);
    let mut args: Vec<String> = init_params.iter().map(|p| size_arg(p)).collect();
    args.extend(inputs.iter().map(|a| declarator(a, program)));
    writeln!(
        out,
        "static void init_array({})\n{{",
        args.join(",\n                       ")
    )
    .ok();
    let max_rank = inputs.iter().map(|a| a.shape.len()).max().unwrap_or(0);
    let mut dims: Vec<String> = Vec::new();
    for d in 0..max_rank {
        let name = fresh(program, &dims, &format!("d{d}"));
        dims.push(name);
    }
    if max_rank > 0 {
        writeln!(out, "  int {};\n", dims.join(", ")).ok();
    }
    for p in &init_params {
        let k = params.iter().position(|q| q == p).expect("a parameter");
        writeln!(out, "  (void) {};", size_args[k]).ok();
    }
    for (t, a) in inputs.iter().enumerate() {
        let mut depth = 2;
        for (d, e) in a.shape.iter().enumerate() {
            writeln!(
                out,
                "{:depth$}for ({x} = 0; {x} < {}; {x}++)",
                "",
                affine_c(e, program),
                x = dims[d]
            )
            .ok();
            depth += 2;
        }
        let (coefs, constant) = init_coefficients(t, a.shape.len());
        let mut sum: Vec<String> = coefs
            .iter()
            .enumerate()
            .map(|(d, c)| format!("{c} * {}", dims[d]))
            .collect();
        sum.push(constant.to_string());
        let target = (0..a.shape.len()).fold(a.name.clone(), |s, d| format!("{s}[{}]", dims[d]));
        writeln!(
            out,
            "{:depth$}{target} = ({}) (({}) % 37) / 9 - {};",
            "",
            c_type(a.dtype),
            sum.join(" + "),
            scalar("2.0", a.dtype)
        )
        .ok();
    }
    out.push_str("}\n\n");

    // The kernel.
    let all: Vec<&Array> = lowered.arrays.iter().collect();
    let mut args: Vec<String> = params.iter().map(|p| size_arg(p)).collect();
    args.extend(all.iter().map(|a| declarator(a, program)));
    let indent = " ".repeat("static void kernel_(".len() + name.len());
    writeln!(
        out,
        "static void kernel_{name}({})\n{{",
        args.join(&format!(",\n{indent}"))
    )
    .ok();
    let mut region = String::new();
    print_items(&mut region, &lowered.items, program, 2);
    if !iterators.is_empty() {
        writeln!(out, "  int {};\n", iterators.join(", ")).ok();
    }
    // With the size macros, the arguments are unused.
    for arg in &size_args {
        writeln!(out, "  (void) {arg};").ok();
    }
    out.push_str("#pragma scop\n");
    out.push_str(&region);
    out.push_str("#pragma endscop\n}\n\n");

    // main.
    out.push_str("int main(void)\n{\n");
    for a in &all {
        let dims: Vec<String> = a.shape.iter().map(affine_macro).collect();
        writeln!(
            out,
            "  POLYBENCH_{}D_ARRAY_DECL({}, {}, {}, {});",
            a.shape.len(),
            a.name,
            c_type(a.dtype),
            dims.join(", "),
            dims.join(", ")
        )
        .ok();
    }
    let mut call: Vec<String> = init_params.iter().map(|p| p.to_string()).collect();
    call.extend(
        inputs
            .iter()
            .map(|a| format!("POLYBENCH_ARRAY({})", a.name)),
    );
    writeln!(out, "\n  init_array({});", call.join(", ")).ok();
    out.push_str("  OPERATOR_TIMER_START;\n");
    let mut call: Vec<String> = params.iter().map(|p| p.to_string()).collect();
    call.extend(all.iter().map(|a| format!("POLYBENCH_ARRAY({})", a.name)));
    writeln!(out, "  kernel_{name}({});", call.join(", ")).ok();
    out.push_str("  OPERATOR_TIMER_STOP;\n");
    for o in program.outputs() {
        let Some(t) = program.tensor(o) else { continue };
        let dims: Vec<String> = t.shape.iter().map(affine_macro).collect();
        if t.dtype == DType::F64 {
            let zeros = "[0]".repeat(t.rank());
            let count: Vec<String> = dims.iter().map(|d| format!("(long) ({d})")).collect();
            writeln!(
                out,
                "  tensor_output_f64(\"{o}\", &(*{o}){zeros}, {});",
                count.join(" * ")
            )
            .ok();
        } else {
            writeln!(
                out,
                "  OPERATOR_OUTPUT_{}D(\"{o}\", POLYBENCH_ARRAY({o}), {});",
                t.rank(),
                dims.join(", ")
            )
            .ok();
        }
    }
    out.push('\n');
    for a in &all {
        writeln!(out, "  POLYBENCH_FREE_ARRAY({});", a.name).ok();
    }
    out.push_str("  return 0;\n}\n");
    out
}

/// The polyhedral model of the program: Pollen's C frontend on the region of
/// [`to_c`]'s text, so its domains, accesses (reads then writes, in execution order)
/// and schedule are exactly the frontend's. Parameters are named `_PB_<name>`.
pub fn to_scop(program: &Program, name: &str) -> Result<Scop> {
    let text = to_c(program, name);
    pollen_frontend::extract(&text)
        .map(|e| e.scop)
        .map_err(|e| {
            Error::new(
                ErrorKind::Limit,
                None,
                format!("extracting the scop of the generated C: {e}"),
            )
        })
}
