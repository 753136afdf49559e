//! The variables of one level's ILP and the embedding of an edge's local Farkas
//! constraints into them.
//!
//! The variables are, in objective order: a prefix chosen by the scheduler (Pluto: the
//! distance bound `u_1..u_p, w`; Feautrier: the count of dependences left unsatisfied),
//! then for every statement its iterator coefficients **innermost first** followed by its
//! constant, then a suffix (Feautrier: one satisfaction variable per dependence). The
//! lexicographic minimum over this order prefers, among otherwise equal solutions, zero
//! coefficients on inner iterators, which keeps the original loop order when it is
//! legal (Pluto reverses each statement's iterator coefficients the same way).
//!
//! Every variable is non-negative. In *signed* layouts an iterator coefficient is the
//! difference `c⁺ − c⁻` of two variables; a statement's `c⁻` variables come first (so
//! that a negative coefficient is used only when no non-negative one is as good), then
//! its `c⁺`, then its constant. Constants stay non-negative in both layouts (only their
//! differences matter).
//!
//! # Invariants
//! Every variable of statement `s` lies in `offsets[s] .. offsets[s] + width(s)`; rows
//! have `1 + n` entries.

use pollen_arith::Int;

use crate::fm::Rows;
use crate::model::{Edge, Row, RowKind};

/// The layout of one ILP's variables.
#[derive(Clone, Debug)]
pub struct Vars {
    /// Per statement: the index of its first variable.
    pub offsets: Vec<usize>,
    /// Per statement: its number of iterators.
    pub dims: Vec<usize>,
    /// Whether iterator coefficients may be negative (`c⁺ − c⁻`).
    pub signed: bool,
    /// The number of prefix variables (only bounded from below: the distance bound, or
    /// Feautrier's count of unsatisfied dependences).
    pub prefix: usize,
    /// The index of the first suffix variable.
    pub suffix_start: usize,
    /// The total number of variables.
    pub n: usize,
}

impl Target {
    /// The single ILP variable `v`.
    pub fn var(v: usize) -> Target {
        Target::Vars(vec![(v, 1)])
    }
}

impl Vars {
    /// The layout for statements of dimensions `dims`, with `prefix` variables before
    /// and `suffix` variables after the coefficients.
    pub fn new(dims: &[usize], prefix: usize, suffix: usize, signed: bool) -> Vars {
        let mut offsets = Vec::with_capacity(dims.len());
        let mut next = prefix;
        for &d in dims {
            offsets.push(next);
            next += if signed { 2 * d + 1 } else { d + 1 };
        }
        Vars {
            offsets,
            dims: dims.to_vec(),
            signed,
            prefix,
            suffix_start: next,
            n: next + suffix,
        }
    }

    /// Statement `s`'s coefficient `k` (iterator `k` for `k < dim`, the constant for
    /// `k = dim`) as a combination of variables: `[(variable, factor)]`.
    pub fn coef(&self, s: usize, k: usize) -> Vec<(usize, i64)> {
        let (d, o) = (self.dims[s], self.offsets[s]);
        match (k < d, self.signed) {
            (true, false) => vec![(o + d - 1 - k, 1)],
            (true, true) => vec![(o + 2 * d - 1 - k, 1), (o + d - 1 - k, -1)],
            (false, false) => vec![(o + d, 1)],
            (false, true) => vec![(o + 2 * d, 1)],
        }
    }

    /// Adds `factor` times statement `s`'s coefficient `k` to `row`.
    pub fn add_coef(&self, row: &mut [Int], s: usize, k: usize, factor: &Int) {
        for (v, f) in self.coef(s, k) {
            row[1 + v] += &(factor * &Int::from(f));
        }
    }

    /// The statement a coefficient variable belongs to.
    pub fn statement_of(&self, v: usize) -> Option<usize> {
        if v >= self.suffix_start || self.offsets.first().is_none_or(|&o| v < o) {
            return None;
        }
        Some(self.offsets.partition_point(|&o| o <= v) - 1)
    }

    /// An all-zero row.
    pub fn zero_row(&self) -> Vec<Int> {
        vec![Int::zero(); self.n + 1]
    }

    /// The schedule row of a solution.
    pub fn row_of(&self, solution: &[Int], kind: RowKind) -> Row {
        let coeffs = (0..self.dims.len())
            .map(|s| {
                (0..=self.dims[s])
                    .map(|k| {
                        let mut value = Int::zero();
                        for (v, f) in self.coef(s, k) {
                            value += &(&solution[v] * &Int::from(f));
                        }
                        value
                    })
                    .collect()
            })
            .collect();
        Row { kind, coeffs }
    }

    /// `Σ_k iterator coefficients of s ≥ 1` as a row.
    pub fn nontrivial_row(&self, s: usize) -> Vec<Int> {
        let mut r = self.zero_row();
        for k in 0..self.dims[s] {
            self.add_coef(&mut r, s, k, &Int::one());
        }
        r[0] = Int::from(-1);
        r
    }
}

/// Where a local unknown of an edge goes in the ILP.
#[derive(Clone, Debug)]
pub enum Target {
    /// A combination of ILP variables `[(variable, factor)]`.
    Vars(Vec<(usize, i64)>),
    /// A fixed value.
    Value(Int),
}

/// The targets of an edge's local unknowns: its statements' coefficients, then `δ`, `u`
/// and `w` as given.
pub fn edge_targets(
    vars: &Vars,
    e: &Edge,
    delta: Target,
    u: &dyn Fn(usize) -> Target,
    w: Target,
) -> Vec<Target> {
    let l = e.layout;
    let mut t = vec![Target::Value(Int::zero()); l.n];
    for k in 0..=vars.dims[e.source] {
        t[l.source + k] = Target::Vars(vars.coef(e.source, k));
    }
    for k in 0..=vars.dims[e.target] {
        t[l.target + k] = Target::Vars(vars.coef(e.target, k));
    }
    t[l.delta] = delta;
    for (i, slot) in t[l.u..l.w].iter_mut().enumerate() {
        *slot = u(i);
    }
    t[l.w] = w;
    t
}

/// Rewrites `rows` (over local unknowns) into rows over the ILP variables, appending
/// them to `out`.
pub fn embed(rows: &Rows, targets: &[Target], out: &mut Rows) {
    let convert = |r: &Vec<Int>| {
        let mut g = vec![Int::zero(); out.n + 1];
        g[0] = r[0].clone();
        for (k, a) in r[1..].iter().enumerate() {
            if a.is_zero() {
                continue;
            }
            match &targets[k] {
                Target::Vars(vs) => {
                    for (v, f) in vs {
                        g[1 + v] += &(a * &Int::from(*f));
                    }
                }
                Target::Value(x) => g[0] += &(a * x),
            }
        }
        g
    };
    let eqs: Vec<Vec<Int>> = rows.eqs.iter().map(convert).collect();
    let ineqs: Vec<Vec<Int>> = rows.ineqs.iter().map(convert).collect();
    out.eqs.extend(eqs);
    out.ineqs.extend(ineqs);
}
