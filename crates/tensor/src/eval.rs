//! A direct interpreter of tensor programs: the reference the generated C programs are
//! compared with.
//!
//! It evaluates the expressions themselves (not the lowered loops) at given sizes, in the
//! arithmetic of the C program: each operation in the type [`Program::natural_type`]
//! gives it (`f32` operations rounded to `f32`), reductions accumulating in the element
//! type of the tensor computed over their axes in lexicographic order, `max`/`min` as the
//! C program's `MAX_FUN`/`MIN_FUN` (`x > y ? x : y`, `x < y ? x : y`). Inputs get the values the C program's `init_array` gives them
//! ([`input_value`]). `exp`, `sqrt`, `tanh` and `abs` are the platform's, as in C;
//! `erf` is computed here in `f64` (Rust has no `erf`), so results that go through it
//! agree with C's `erff` only to a few units in the last place.

use crate::affine::Affine;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::{Binary, Cond, DType, Expr, ExprKind, Reduce, ReduceOp, Unary};
use crate::program::{join, Program, Sizes, Stage, TensorKind};

/// The largest number of elements a tensor may have in the interpreter.
pub const MAX_ELEMENTS: usize = 1 << 24;

/// The coefficients `c_d` and the constant `c` of input number `t` (among the inputs, in
/// declaration order) of rank `rank`: element `x` is `((Σ c_d x_d + c) % 37) / 9 - 2`.
pub fn init_coefficients(t: usize, rank: usize) -> (Vec<i64>, i64) {
    const PRIMES: [i64; 7] = [3, 5, 7, 11, 13, 17, 19];
    let coefs = (0..rank)
        .map(|d| PRIMES[(t + 2 * d) % PRIMES.len()])
        .collect();
    (coefs, 2 * t as i64 + 1)
}

/// The value of element `index` of input number `t`, rounded to `dtype` as the C
/// program computes it.
pub fn input_value(t: usize, index: &[i64], dtype: DType) -> f64 {
    let (coefs, constant) = init_coefficients(t, index.len());
    let sum: i64 = coefs.iter().zip(index).map(|(c, x)| c * x).sum::<i64>() + constant;
    let m = sum % 37;
    match dtype {
        DType::F32 => f64::from((m as f32) / 9.0 - 2.0),
        DType::F64 => (m as f64) / 9.0 - 2.0,
    }
}

/// The values of one tensor, row-major, each exactly representable in its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The tensor's name.
    pub name: String,
    /// Its element type.
    pub dtype: DType,
    /// Its extents at the sizes evaluated.
    pub shape: Vec<usize>,
    /// Its elements.
    pub data: Vec<f64>,
}

impl Buffer {
    /// The checksum the C program prints: `Σ x_p * (1 + p % 29)` over positions `p` in
    /// memory order, in `f64`.
    pub fn checksum(&self) -> f64 {
        let mut sum = 0.0;
        for (p, x) in self.data.iter().enumerate() {
            sum += x * (1 + p % 29) as f64;
        }
        sum
    }

    fn offset(&self, index: &[i64]) -> Option<usize> {
        let mut off = 0usize;
        for (x, n) in index.iter().zip(&self.shape) {
            let x = usize::try_from(*x).ok().filter(|x| x < n)?;
            off = off * n + x;
        }
        Some(off)
    }
}

/// Every tensor's values after a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Values {
    /// The tensors, in declaration order.
    pub buffers: Vec<Buffer>,
}

impl Values {
    /// The values of tensor `name`.
    pub fn get(&self, name: &str) -> Option<&Buffer> {
        self.buffers.iter().find(|b| b.name == name)
    }
}

fn round(v: f64, t: DType) -> f64 {
    match t {
        DType::F32 => f64::from(v as f32),
        DType::F64 => v,
    }
}

/// The error function, in `f64` (a series near 0, a continued fraction of `erfc` far
/// from it; about 1e-13 relative error).
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let r = if a <= 2.5 {
        let mut sum = 0.0;
        let mut power = a; // a^(2n+1) / n!
        for n in 0..200 {
            let term = power / (2 * n + 1) as f64;
            sum += if n % 2 == 0 { term } else { -term };
            if term < 1e-17 * sum.abs() {
                break;
            }
            power *= a * a / (n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        let mut k = a;
        for n in (1..=80).rev() {
            k = a + (n as f64 / 2.0) / k;
        }
        1.0 - (-a * a).exp() / std::f64::consts::PI.sqrt() / k
    };
    if x < 0.0 {
        -r
    } else {
        r
    }
}

struct Interp<'a> {
    program: &'a Program,
    sizes: &'a Sizes,
    buffers: Vec<Buffer>,
    env: Vec<(String, i64)>,
    lhs: DType,
}

fn limit(message: String) -> Error {
    Error::new(ErrorKind::Limit, None, message)
}

/// Calls `f` on every point of the box `0 <= x < extents`, in row-major order.
fn for_each_point(extents: &[i64], f: &mut dyn FnMut(&[i64]) -> Result<()>) -> Result<()> {
    if extents.iter().any(|e| *e <= 0) {
        return Ok(());
    }
    let mut x = vec![0i64; extents.len()];
    loop {
        f(&x)?;
        let mut d = extents.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            x[d] += 1;
            if x[d] < extents[d] {
                break;
            }
            x[d] = 0;
        }
    }
}

impl Interp<'_> {
    fn value_of(&self, name: &str) -> Option<i64> {
        self.env
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .or_else(|| self.sizes.get(name))
    }

    fn affine(&self, a: &Affine) -> Result<i64> {
        a.eval(&|n| self.value_of(n))
            .ok_or_else(|| limit(format!("cannot evaluate `{a}`")))
    }

    fn extents(&self, list: &[&Affine]) -> Result<Vec<i64>> {
        list.iter().map(|a| self.affine(a)).collect()
    }

    fn expr(&mut self, e: &Expr, ctx: DType) -> Result<f64> {
        let t = self.program.natural_type(e, self.lhs).unwrap_or(ctx);
        Ok(match &e.kind {
            ExprKind::Const(c) => match t {
                DType::F32 => f64::from(c.as_f32()),
                DType::F64 => c.as_f64(),
            },
            ExprKind::Index(a) => round(self.affine(a)? as f64, t),
            ExprKind::Access { tensor, indices } => {
                let index = indices
                    .iter()
                    .map(|(a, _)| self.affine(a))
                    .collect::<Result<Vec<_>>>()?;
                let b = self
                    .buffers
                    .iter()
                    .find(|b| b.name == *tensor)
                    .ok_or_else(|| limit(format!("`{tensor}` has no values")))?;
                let off = b
                    .offset(&index)
                    .ok_or_else(|| limit(format!("`{tensor}{index:?}` is out of bounds")))?;
                b.data[off]
            }
            ExprKind::Unary(op, a) => {
                let a = self.expr(a, t)?;
                match (op, t) {
                    (Unary::Neg, _) => -a,
                    (Unary::Abs, _) => a.abs(),
                    (Unary::Exp, DType::F32) => f64::from((a as f32).exp()),
                    (Unary::Exp, DType::F64) => a.exp(),
                    (Unary::Sqrt, DType::F32) => f64::from((a as f32).sqrt()),
                    (Unary::Sqrt, DType::F64) => a.sqrt(),
                    (Unary::Tanh, DType::F32) => f64::from((a as f32).tanh()),
                    (Unary::Tanh, DType::F64) => a.tanh(),
                    (Unary::Erf, _) => round(erf(a), t),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.expr(a, t)?;
                let b = self.expr(b, t)?;
                let v = match op {
                    Binary::Add => a + b,
                    Binary::Sub => a - b,
                    Binary::Mul => a * b,
                    Binary::Div => a / b,
                    Binary::Max => greater(a, b),
                    Binary::Min => less(a, b),
                };
                round(v, t)
            }
            ExprKind::Select(c, a, b) => {
                if self.cond(c, t)? {
                    self.expr(a, t)?
                } else {
                    self.expr(b, t)?
                }
            }
            ExprKind::Reduce(r) => self.reduce(r)?,
        })
    }

    fn cond(&mut self, c: &Cond, ctx: DType) -> Result<bool> {
        Ok(match c {
            Cond::Compare(op, a, b) => {
                let t = join(
                    self.program.natural_type(a, self.lhs),
                    self.program.natural_type(b, self.lhs),
                )
                .unwrap_or(ctx);
                let a = self.expr(a, t)?;
                let b = self.expr(b, t)?;
                op.holds(a, b)
            }
            Cond::And(a, b) => self.cond(a, ctx)? && self.cond(b, ctx)?,
            Cond::Or(a, b) => self.cond(a, ctx)? || self.cond(b, ctx)?,
            Cond::Not(a) => !self.cond(a, ctx)?,
        })
    }

    fn reduce(&mut self, r: &Reduce) -> Result<f64> {
        let lhs = self.lhs;
        let mut acc = match r.op {
            ReduceOp::Sum => 0.0,
            ReduceOp::Max => f64::NEG_INFINITY,
            ReduceOp::Min => f64::INFINITY,
        };
        let update_type = self
            .program
            .natural_type(&r.body, lhs)
            .unwrap_or(lhs)
            .join(lhs);
        let extents = r
            .axes
            .iter()
            .map(|a| a.extent.as_ref().map_or(Ok(0), |e| self.affine(e)))
            .collect::<Result<Vec<_>>>()?;
        let names: Vec<String> = r.axes.iter().map(|a| a.name.text.clone()).collect();
        let depth = self.env.len();
        for n in &names {
            self.env.push((n.clone(), 0));
        }
        let result = for_each_point(&extents, &mut |x| {
            for (k, v) in x.iter().enumerate() {
                self.env[depth + k].1 = *v;
            }
            let v = self.expr(&r.body, lhs)?;
            let combined = match r.op {
                ReduceOp::Sum => round(acc + v, update_type),
                ReduceOp::Max => greater(acc, v),
                ReduceOp::Min => less(acc, v),
            };
            acc = round(combined, lhs);
            Ok(())
        });
        self.env.truncate(depth);
        result?;
        Ok(acc)
    }

    fn new_buffer(&self, name: &str, dtype: DType, extents: &[i64]) -> Result<Buffer> {
        let shape: Vec<usize> = extents.iter().map(|e| (*e).max(0) as usize).collect();
        let count = shape
            .iter()
            .try_fold(1usize, |acc, n| acc.checked_mul(*n))
            .filter(|c| *c <= MAX_ELEMENTS)
            .ok_or_else(|| limit(format!("`{name}` has more than {MAX_ELEMENTS} elements")))?;
        Ok(Buffer {
            name: name.to_string(),
            dtype,
            shape,
            data: vec![0.0; count],
        })
    }
}

/// Runs `program` at `sizes` ([`Program::sizes`]): the values of every tensor.
pub fn evaluate(program: &Program, sizes: &Sizes) -> Result<Values> {
    let mut interp = Interp {
        program,
        sizes,
        buffers: Vec::new(),
        env: Vec::new(),
        lhs: DType::F32,
    };
    for (t, input) in program.inputs().enumerate() {
        let extents = interp.extents(&input.shape.iter().collect::<Vec<_>>())?;
        let mut b = interp.new_buffer(&input.name, input.dtype, &extents)?;
        let mut pos = 0;
        for_each_point(&extents, &mut |x| {
            b.data[pos] = input_value(t, x, input.dtype);
            pos += 1;
            Ok(())
        })?;
        interp.buffers.push(b);
    }
    for stage in program.stages() {
        let Some(tensor) = program.tensor(stage.tensor()) else {
            continue;
        };
        debug_assert!(tensor.kind != TensorKind::Input);
        let extents = interp.extents(&tensor.shape.iter().collect::<Vec<_>>())?;
        let mut b = interp.new_buffer(&tensor.name, tensor.dtype, &extents)?;
        match stage {
            Stage::Compute(c) => {
                interp.lhs = tensor.dtype;
                let names: Vec<String> = c.axes.iter().map(|(n, _)| n.clone()).collect();
                let mut pos = 0;
                for_each_point(&extents, &mut |x| {
                    interp.env = names.iter().cloned().zip(x.iter().copied()).collect();
                    let v = interp.expr(&c.body, tensor.dtype)?;
                    b.data[pos] = round(v, tensor.dtype);
                    pos += 1;
                    Ok(())
                })?;
                interp.env.clear();
            }
            Stage::Pad(p) => {
                let value = match tensor.dtype {
                    DType::F32 => f64::from(p.value.as_f32()),
                    DType::F64 => p.value.as_f64(),
                };
                let source = interp
                    .buffers
                    .iter()
                    .find(|s| s.name == p.source)
                    .ok_or_else(|| limit(format!("`{}` has no values", p.source)))?;
                let mut pos = 0;
                for_each_point(&extents, &mut |x| {
                    let inner: Vec<i64> = x.iter().zip(&p.before).map(|(x, b)| x - b).collect();
                    b.data[pos] = source.offset(&inner).map_or(value, |off| source.data[off]);
                    pos += 1;
                    Ok(())
                })?;
            }
        }
        interp.buffers.push(b);
    }
    Ok(Values {
        buffers: interp.buffers,
    })
}

/// `max` as the C program's `MAX_FUN(x, y)`, `x > y ? x : y` (a NaN in `y` is kept).
fn greater(x: f64, y: f64) -> f64 {
    if x > y {
        x
    } else {
        y
    }
}

/// `min` as the C program's `MIN_FUN(x, y)`, `x < y ? x : y`.
fn less(x: f64, y: f64) -> f64 {
    if x < y {
        x
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        let cases = [
            (0.0, 0.0),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (3.0, 0.999_977_909_503_001_4),
            (-1.5, -0.966_105_146_475_310_7),
        ];
        for (x, want) in cases {
            assert!(
                (erf(x) - want).abs() < 1e-13,
                "erf({x}) = {} not {want}",
                erf(x)
            );
        }
    }
}
