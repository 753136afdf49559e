//! Quasi-affine evaluation of C expressions into constraint systems.
//!
//! Expressions are evaluated over a frame of columns `[1 | vars | locals]`: the constant,
//! the frame's variables (parameters, iterators and, for access relations, the array
//! indices) and local floor-division variables. A value is piecewise ([`Pw`]): pieces
//! whose guards ([`Conj`]) partition the space, each with an affine value row. A
//! condition is a disjunction of conjunctions ([`Dnf`]).
//!
//! Every C operation is modelled exactly:
//! - `min`, `max` (and `MIN`, `MAX`) split into two pieces;
//! - `floord(e, d)` is `floor(e / d)` and `ceild(e, d)` is `-floor(-e / d)`, for an
//!   integer constant `d > 0`;
//! - C's `e / d` truncates toward zero: it is `floor(e / |d|)` where `e >= 0` and
//!   `-floor(-e / |d|)` where `e < 0` (negated when `d < 0`), two pieces unless the
//!   value is constant or divisible; `e % d` is `e - (e / d) * d` with the same split;
//! - `c ? a : b` takes the pieces of `a` under `c` and those of `b` under `!c`;
//! - negation is pushed down to the comparisons (`!(a < b)` is `a >= b`, `a != b` is
//!   `a < b || a > b`), so conditions need no complement.
//!
//! The numbers of pieces and of disjuncts are capped ([`MAX_PIECES`]): nested `min`s
//! and `||`s multiply them.

use pollen_arith::Int;

use crate::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::error::{Fail, Kind, R};

/// The most pieces (or disjuncts) one expression or condition may have.
pub(crate) const MAX_PIECES: usize = 1024;

/// A row of coefficients over `[1 | vars | locals]`; missing trailing entries are zero.
pub(crate) type Row = Vec<Int>;

/// A local variable `floor(num / den)`.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    /// The numerator, over the columns before this local.
    pub num: Row,
    /// The positive denominator.
    pub den: Int,
}

/// A conjunction of constraints `row = 0` and `row >= 0` with its own locals.
#[derive(Clone, Debug, Default)]
pub(crate) struct Conj {
    pub locals: Vec<Local>,
    pub eqs: Vec<Row>,
    pub ineqs: Vec<Row>,
}

/// One piece of a piecewise value.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    pub guard: Conj,
    pub value: Row,
}

/// A piecewise quasi-affine value.
pub(crate) type Pw = Vec<Piece>;

/// A disjunction of conjunctions.
pub(crate) type Dnf = Vec<Conj>;

/// The entry `i` of a row.
pub(crate) fn entry(row: &[Int], i: usize) -> Int {
    row.get(i).cloned().unwrap_or_else(Int::zero)
}

/// `a + f·b`.
pub(crate) fn add_scaled(a: &[Int], f: &Int, b: &[Int]) -> Row {
    let n = a.len().max(b.len());
    (0..n).map(|i| entry(a, i) + f * &entry(b, i)).collect()
}

/// `f·a`.
pub(crate) fn scale(a: &[Int], f: &Int) -> Row {
    a.iter().map(|x| x * f).collect()
}

/// The row with a single 1 at column `col`.
pub(crate) fn unit(col: usize) -> Row {
    let mut r = vec![Int::zero(); col + 1];
    r[col] = Int::one();
    r
}

/// Whether only the constant entry can be non-zero.
fn is_constant(row: &[Int]) -> bool {
    row.iter().skip(1).all(Int::is_zero)
}

/// The row with `by` zero columns inserted at column `at`.
pub(crate) fn shift(row: &[Int], at: usize, by: usize) -> Row {
    if row.len() <= at || by == 0 {
        return row.to_vec();
    }
    let mut r = row[..at].to_vec();
    r.extend(std::iter::repeat_n(Int::zero(), by));
    r.extend_from_slice(&row[at..]);
    r
}

impl Conj {
    /// The conjunction with `by` zero columns inserted at column `at` of every row.
    pub(crate) fn shifted(&self, at: usize, by: usize) -> Conj {
        Conj {
            locals: self
                .locals
                .iter()
                .map(|l| Local {
                    num: shift(&l.num, at, by),
                    den: l.den.clone(),
                })
                .collect(),
            eqs: self.eqs.iter().map(|r| shift(r, at, by)).collect(),
            ineqs: self.ineqs.iter().map(|r| shift(r, at, by)).collect(),
        }
    }

    /// The conjunction of `self` and `other` over a frame whose locals start at `base`,
    /// and the amount by which `other`'s local columns moved.
    pub(crate) fn and(&self, other: &Conj, base: usize) -> (Conj, usize) {
        let offset = self.locals.len();
        let moved = other.shifted(base, offset);
        let mut c = self.clone();
        c.locals.extend(moved.locals);
        c.eqs.extend(moved.eqs);
        c.ineqs.extend(moved.ineqs);
        (c, offset)
    }

    /// Adds the local `floor(num / den)` (`den > 0`) and returns the row of its value;
    /// an exact division needs no local.
    fn floor_div(&mut self, num: &[Int], den: &Int, base: usize) -> Row {
        if den.is_one() {
            return num.to_vec();
        }
        if num.iter().all(|c| den.divides(c)) {
            return num.iter().map(|c| c.exact_div(den)).collect();
        }
        if is_constant(num) {
            return vec![entry(num, 0).floor_div(den)];
        }
        let col = base + self.locals.len();
        self.locals.push(Local {
            num: num.to_vec(),
            den: den.clone(),
        });
        unit(col)
    }
}

impl Conj {
    /// Drops the constant constraints that hold; `false` if one fails (the conjunction
    /// is then empty).
    fn settle(&mut self) -> bool {
        let constant = |r: &Row| r.iter().skip(1).all(Int::is_zero);
        if self
            .eqs
            .iter()
            .any(|r| constant(r) && !entry(r, 0).is_zero())
            || self
                .ineqs
                .iter()
                .any(|r| constant(r) && entry(r, 0).is_negative())
        {
            return false;
        }
        self.eqs.retain(|r| !constant(r));
        self.ineqs.retain(|r| !constant(r));
        true
    }
}

/// Adds a piece unless a constant constraint of its guard fails.
fn keep(out: &mut Pw, mut piece: Piece) {
    if piece.guard.settle() {
        out.push(piece);
    }
}

/// Adds a conjunction unless one of its constant constraints fails.
fn keep_conj(out: &mut Dnf, mut conj: Conj) {
    if conj.settle() {
        out.push(conj);
    }
}

/// All conjunctions of one disjunct of `a` and one of `b`.
pub(crate) fn dnf_and(a: &[Conj], b: &[Conj], base: usize, at: usize) -> R<Dnf> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            keep_conj(&mut out, x.and(y, base).0);
        }
        check_size(out.len(), at)?;
    }
    Ok(out)
}

pub(crate) fn check_size(n: usize, at: usize) -> R<()> {
    if n > MAX_PIECES {
        return Err(Fail::new(
            Kind::TooComplex,
            at,
            format!("this expression splits into more than {MAX_PIECES} pieces (nested min, max, divisions or disjunctions)"),
        ));
    }
    Ok(())
}

/// How identifiers become columns: `Ok(col)` for a frame variable, or the error that
/// their use in an affine expression is.
pub(crate) type Resolve<'a> = dyn Fn(&Expr, &str) -> R<usize> + 'a;

/// Evaluates expressions of one frame.
pub(crate) struct Eval<'a> {
    /// The source, for error messages.
    pub source: &'a str,
    /// `1 + number of frame variables`: the column of the first local.
    pub base: usize,
    /// The columns of identifiers.
    pub resolve: &'a Resolve<'a>,
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    fn negated(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
        }
    }

    fn of(op: BinOp) -> Option<Cmp> {
        Some(match op {
            BinOp::Lt => Cmp::Lt,
            BinOp::Le => Cmp::Le,
            BinOp::Gt => Cmp::Gt,
            BinOp::Ge => Cmp::Ge,
            BinOp::Eq => Cmp::Eq,
            BinOp::Ne => Cmp::Ne,
            _ => return None,
        })
    }
}

/// The value of a C integer constant (decimal, octal or hexadecimal, with suffixes).
pub(crate) fn parse_c_int(text: &str) -> Option<i64> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        return i64::from_str_radix(hex, 16).ok();
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return i64::from_str_radix(&digits[1..], 8).ok();
    }
    digits.parse().ok()
}

/// C's `a / b` (truncation toward zero) for `b != 0`.
fn c_div(a: &Int, b: &Int) -> Int {
    let q = a.abs().floor_div(&b.abs());
    if a.is_negative() != b.is_negative() {
        -q
    } else {
        q
    }
}

impl Eval<'_> {
    /// A short quote of the expression's text for messages.
    pub(crate) fn quote(&self, e: &Expr) -> String {
        quote(self.source, e)
    }

    fn non_affine<T>(&self, e: &Expr, what: String) -> R<T> {
        Err(Fail::new(Kind::NonAffine, e.start, what))
    }

    /// The piecewise value of `e`.
    pub(crate) fn value(&self, e: &Expr) -> R<Pw> {
        let pw = self.value_inner(e)?;
        check_size(pw.len(), e.start)?;
        Ok(pw)
    }

    fn value_inner(&self, e: &Expr) -> R<Pw> {
        let single = |value: Row| {
            vec![Piece {
                guard: Conj::default(),
                value,
            }]
        };
        match &e.kind {
            ExprKind::Int(text) => match parse_c_int(text) {
                Some(v) => Ok(single(vec![Int::from(v)])),
                None => self.non_affine(
                    e,
                    format!("`{text}` is not an integer constant the frontend can represent"),
                ),
            },
            ExprKind::Ident(name) => Ok(single(unit((self.resolve)(e, name)?))),
            ExprKind::Unary(UnOp::Plus, a) => self.value(a),
            ExprKind::Unary(UnOp::Neg, a) => Ok(self
                .value(a)?
                .into_iter()
                .map(|p| Piece {
                    value: scale(&p.value, &Int::from(-1)),
                    guard: p.guard,
                })
                .collect()),
            ExprKind::Cast {
                integer: true,
                operand,
            } => self.value(operand),
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let f = Int::from(if *op == BinOp::Add { 1 } else { -1 });
                self.combine(e, a, b, |va, vb| Ok(add_scaled(va, &f, vb)))
            }
            ExprKind::Binary(BinOp::Mul, a, b) => self.combine(e, a, b, |va, vb| {
                if is_constant(va) {
                    Ok(scale(vb, &entry(va, 0)))
                } else if is_constant(vb) {
                    Ok(scale(va, &entry(vb, 0)))
                } else {
                    self.non_affine(
                        e,
                        format!(
                            "the product `{}` is not affine: one factor must be an integer constant",
                            self.quote(e)
                        ),
                    )
                }
            }),
            ExprKind::Binary(op @ (BinOp::Div | BinOp::Rem), a, b) => {
                let d = self.constant_divisor(e, b)?;
                let pw = self.value(a)?;
                if *op == BinOp::Div {
                    self.truncated_div(pw, &d, e.start)
                } else {
                    self.truncated_rem(pw, &d, e.start)
                }
            }
            ExprKind::Call(f, args) => self.call(e, f, args),
            ExprKind::Ternary(c, a, b) => {
                let mut out = Vec::new();
                for (cond, branch) in [(self.condition(c, false)?, a), (self.condition(c, true)?, b)]
                {
                    let pw = self.value(branch)?;
                    for g in &cond {
                        for p in &pw {
                            let (guard, offset) = g.and(&p.guard, self.base);
                            keep(&mut out, Piece {
                                guard,
                                value: shift(&p.value, self.base, offset),
                            });
                        }
                        check_size(out.len(), e.start)?;
                    }
                }
                Ok(out)
            }
            _ => self.non_affine(e, self.describe_non_affine(e)),
        }
    }

    /// Why `e` is no affine expression, naming its construct.
    fn describe_non_affine(&self, e: &Expr) -> String {
        let q = self.quote(e);
        match &e.kind {
            ExprKind::Index(..) => format!(
                "the array element `{q}` in a bound, condition or subscript is data-dependent, not affine"
            ),
            ExprKind::Float => format!("the floating-point constant `{q}` is not an integer"),
            ExprKind::Cast { .. } => format!("the cast `{q}` is not to a signed integer type at least as wide as `int`"),
            ExprKind::Unary(UnOp::Deref | UnOp::AddrOf, _) => {
                format!("the pointer expression `{q}` is outside the polyhedral model")
            }
            ExprKind::Binary(
                BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::Eq
                | BinOp::Ne
                | BinOp::And
                | BinOp::Or,
                ..,
            )
            | ExprKind::Unary(UnOp::Not, _) => {
                format!("the condition `{q}` is used as an integer value")
            }
            ExprKind::Binary(op, ..) => format!(
                "the operator `{}` in `{q}` is not affine",
                op.symbol()
            ),
            ExprKind::Assign(..) | ExprKind::IncDec { .. } => {
                format!("the assignment `{q}` inside an expression is outside the polyhedral model")
            }
            _ => format!("`{q}` is not an affine expression"),
        }
    }

    /// Combines the pieces of `a` and `b` pairwise with `f` on their values.
    fn combine(&self, e: &Expr, a: &Expr, b: &Expr, f: impl Fn(&[Int], &[Int]) -> R<Row>) -> R<Pw> {
        let pa = self.value(a)?;
        let pb = self.value(b)?;
        let mut out = Vec::new();
        for x in &pa {
            for y in &pb {
                let (guard, offset) = x.guard.and(&y.guard, self.base);
                let vb = shift(&y.value, self.base, offset);
                keep(
                    &mut out,
                    Piece {
                        value: f(&x.value, &vb)?,
                        guard,
                    },
                );
            }
            check_size(out.len(), e.start)?;
        }
        Ok(out)
    }

    /// The value of `d`, which must be a non-zero integer constant dividing `e`.
    fn constant_divisor(&self, e: &Expr, d: &Expr) -> R<Int> {
        let pw = self.value(d);
        if let Ok(pw) = &pw {
            if let [p] = pw.as_slice() {
                if p.guard.eqs.is_empty()
                    && p.guard.ineqs.is_empty()
                    && is_constant(&p.value)
                    && !entry(&p.value, 0).is_zero()
                {
                    return Ok(entry(&p.value, 0));
                }
            }
        }
        self.non_affine(
            e,
            format!(
                "`{}` is not affine: only division by a non-zero integer constant is",
                self.quote(e)
            ),
        )
    }

    /// C's truncating `pw / d`.
    fn truncated_div(&self, pw: Pw, d: &Int, at: usize) -> R<Pw> {
        let m = d.abs();
        let sign = Int::from(if d.is_negative() { -1 } else { 1 });
        let mut out = Vec::new();
        for p in pw {
            if is_constant(&p.value) {
                let v = vec![c_div(&entry(&p.value, 0), d)];
                keep(
                    &mut out,
                    Piece {
                        guard: p.guard,
                        value: v,
                    },
                );
            } else if p.value.iter().all(|c| m.divides(c)) {
                let v: Row = p.value.iter().map(|c| c.exact_div(&m)).collect();
                keep(
                    &mut out,
                    Piece {
                        guard: p.guard,
                        value: scale(&v, &sign),
                    },
                );
            } else {
                let mut nonneg = p.guard.clone();
                nonneg.ineqs.push(p.value.clone());
                let q = nonneg.floor_div(&p.value, &m, self.base);
                keep(
                    &mut out,
                    Piece {
                        guard: nonneg,
                        value: scale(&q, &sign),
                    },
                );
                let mut neg = p.guard;
                let minus = scale(&p.value, &Int::from(-1));
                neg.ineqs
                    .push(add_scaled(&minus, &Int::from(-1), &[Int::one()]));
                let q = neg.floor_div(&minus, &m, self.base);
                keep(
                    &mut out,
                    Piece {
                        guard: neg,
                        value: scale(&q, &(-sign.clone())),
                    },
                );
            }
            check_size(out.len(), at)?;
        }
        Ok(out)
    }

    /// C's `pw % d`: `pw - (pw / d) * d`, whose sign follows `pw`.
    fn truncated_rem(&self, pw: Pw, d: &Int, at: usize) -> R<Pw> {
        let m = d.abs();
        let mut out = Vec::new();
        for p in pw {
            if is_constant(&p.value) {
                let a = entry(&p.value, 0);
                let r = &a - &(c_div(&a, d) * d);
                keep(
                    &mut out,
                    Piece {
                        guard: p.guard,
                        value: vec![r],
                    },
                );
            } else if p.value.iter().all(|c| m.divides(c)) {
                keep(
                    &mut out,
                    Piece {
                        guard: p.guard,
                        value: vec![Int::zero()],
                    },
                );
            } else {
                let mut nonneg = p.guard.clone();
                nonneg.ineqs.push(p.value.clone());
                let q = nonneg.floor_div(&p.value, &m, self.base);
                keep(
                    &mut out,
                    Piece {
                        value: add_scaled(&p.value, &-m.clone(), &q),
                        guard: nonneg,
                    },
                );
                let mut neg = p.guard;
                let minus = scale(&p.value, &Int::from(-1));
                neg.ineqs
                    .push(add_scaled(&minus, &Int::from(-1), &[Int::one()]));
                let q = neg.floor_div(&minus, &m, self.base);
                keep(
                    &mut out,
                    Piece {
                        value: add_scaled(&p.value, &m, &q),
                        guard: neg,
                    },
                );
            }
            check_size(out.len(), at)?;
        }
        Ok(out)
    }

    fn call(&self, e: &Expr, f: &Expr, args: &[Expr]) -> R<Pw> {
        let name = f.ident().unwrap_or("");
        match (name, args) {
            ("min" | "MIN" | "max" | "MAX", [a, b]) => {
                let is_min = matches!(name, "min" | "MIN");
                let pa = self.value(a)?;
                let pb = self.value(b)?;
                let mut out = Vec::new();
                for x in &pa {
                    for y in &pb {
                        let (guard, offset) = x.guard.and(&y.guard, self.base);
                        let vb = shift(&y.value, self.base, offset);
                        let b_minus_a = add_scaled(&vb, &Int::from(-1), &x.value);
                        let a_minus_b = scale(&b_minus_a, &Int::from(-1));
                        // a <= b: min is a, max is b; b < a: min is b, max is a.
                        let va = x.value.clone();
                        let (first, second) = if is_min { (va, vb) } else { (vb, va) };
                        let mut g1 = guard.clone();
                        g1.ineqs.push(b_minus_a);
                        keep(&mut out, Piece {
                            guard: g1,
                            value: first,
                        });
                        let mut g2 = guard;
                        g2.ineqs
                            .push(add_scaled(&a_minus_b, &Int::from(-1), &[Int::one()]));
                        keep(&mut out, Piece {
                            guard: g2,
                            value: second,
                        });
                    }
                    check_size(out.len(), e.start)?;
                }
                Ok(out)
            }
            ("floord" | "ceild", [a, b]) => {
                let d = self.constant_divisor(e, b)?;
                if d.is_negative() {
                    return self.non_affine(
                        e,
                        format!("`{}` needs a positive divisor", self.quote(e)),
                    );
                }
                let ceil = name == "ceild";
                let mut out = Vec::new();
                for mut p in self.value(a)? {
                    let num = if ceil {
                        scale(&p.value, &Int::from(-1))
                    } else {
                        p.value.clone()
                    };
                    let q = p.guard.floor_div(&num, &d, self.base);
                    keep(&mut out, Piece {
                        value: if ceil { scale(&q, &Int::from(-1)) } else { q },
                        guard: p.guard,
                    });
                }
                Ok(out)
            }
            _ => self.non_affine(
                e,
                format!(
                    "the call `{}` is not affine (bounds, conditions and subscripts may only call min, max, MIN, MAX, floord and ceild, with two arguments)",
                    self.quote(e)
                ),
            ),
        }
    }

    /// The condition `e` (or its negation) as a disjunction of conjunctions.
    pub(crate) fn condition(&self, e: &Expr, negate: bool) -> R<Dnf> {
        let dnf = self.condition_inner(e, negate)?;
        check_size(dnf.len(), e.start)?;
        Ok(dnf)
    }

    fn condition_inner(&self, e: &Expr, negate: bool) -> R<Dnf> {
        match &e.kind {
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let conjunction = (*op == BinOp::And) != negate;
                let da = self.condition(a, negate)?;
                let db = self.condition(b, negate)?;
                if conjunction {
                    dnf_and(&da, &db, self.base, e.start)
                } else {
                    // `a or b` as `a or (not a and b)`: disjoint pieces. Overlapping
                    // ones would multiply in every relation built from the domain
                    // (a pair of statements' instances, the dependences' lexicographic
                    // maxima), while disjoint pieces of different statements meet
                    // only where they really overlap.
                    let not_a = self.condition(a, !negate)?;
                    let rest = dnf_and(&not_a, &db, self.base, e.start)?;
                    Ok(da.into_iter().chain(rest).collect())
                }
            }
            ExprKind::Unary(UnOp::Not, a) => self.condition(a, !negate),
            ExprKind::Binary(op, a, b) if Cmp::of(*op).is_some() => {
                let cmp = Cmp::of(*op).unwrap_or(Cmp::Eq);
                let cmp = if negate { cmp.negated() } else { cmp };
                let pa = self.value(a)?;
                let pb = self.value(b)?;
                self.compare(&pa, &pb, cmp, e.start)
            }
            ExprKind::Ternary(c, a, b) => {
                let yes = dnf_and(
                    &self.condition(c, false)?,
                    &self.condition(a, negate)?,
                    self.base,
                    e.start,
                )?;
                let no = dnf_and(
                    &self.condition(c, true)?,
                    &self.condition(b, negate)?,
                    self.base,
                    e.start,
                )?;
                Ok(yes.into_iter().chain(no).collect())
            }
            _ => {
                let pa = self.value(e)?;
                let zero = vec![Piece {
                    guard: Conj::default(),
                    value: vec![Int::zero()],
                }];
                let cmp = if negate { Cmp::Eq } else { Cmp::Ne };
                self.compare(&pa, &zero, cmp, e.start)
            }
        }
    }

    /// `a cmp b` over all pairs of pieces.
    fn compare(&self, pa: &[Piece], pb: &[Piece], cmp: Cmp, at: usize) -> R<Dnf> {
        let mut out = Vec::new();
        for x in pa {
            for y in pb {
                let (guard, offset) = x.guard.and(&y.guard, self.base);
                let vb = shift(&y.value, self.base, offset);
                let b_minus_a = add_scaled(&vb, &Int::from(-1), &x.value);
                let a_minus_b = scale(&b_minus_a, &Int::from(-1));
                let minus_one = [Int::from(-1)];
                let strict = |r: &Row| add_scaled(r, &Int::one(), &minus_one);
                let mut push = |rows: Vec<Row>, eq: bool| {
                    let mut g = guard.clone();
                    if eq {
                        g.eqs.extend(rows);
                    } else {
                        g.ineqs.extend(rows);
                    }
                    keep_conj(&mut out, g);
                };
                match cmp {
                    Cmp::Lt => push(vec![strict(&b_minus_a)], false),
                    Cmp::Le => push(vec![b_minus_a], false),
                    Cmp::Gt => push(vec![strict(&a_minus_b)], false),
                    Cmp::Ge => push(vec![a_minus_b], false),
                    Cmp::Eq => push(vec![b_minus_a], true),
                    Cmp::Ne => {
                        push(vec![strict(&b_minus_a)], false);
                        push(vec![strict(&a_minus_b)], false);
                    }
                }
            }
            check_size(out.len(), at)?;
        }
        Ok(out)
    }
}

/// A short quote of an expression's source text (whitespace runs collapsed).
pub(crate) fn quote(source: &str, e: &Expr) -> String {
    let text = source.get(e.start..e.end).unwrap_or("");
    let words: Vec<&str> = text.split_whitespace().collect();
    let joined = words.join(" ");
    if joined.chars().count() > 60 {
        let cut: String = joined.chars().take(57).collect();
        format!("{cut}...")
    } else {
        joined
    }
}
