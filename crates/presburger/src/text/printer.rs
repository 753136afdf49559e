//! Printing in isl's text syntax: [`Display`](fmt::Display) for basic maps, maps, sets and
//! unions, and helpers that other printers (affine functions, the command line) reuse.
//!
//! The output is canonical and deterministic for a given object, parses back (with this
//! crate's parser and with isl) to the same set of integer points, and reads like isl's
//! (`isl_output.c` prints the same forms):
//!
//! - `[N, M] -> { S[i, j] -> T[i + j] : 0 <= i < N and exists (e0: j = 2e0) }`;
//! - a dimension that an equality fixes with a unit coefficient, in terms of parameters,
//!   earlier dimensions and floor divisions of those, is printed inside the tuple:
//!   `{ [1, 2] }`, `S[i, j] -> S[i - 1, j]`, `[i = 0, j] : j >= 0` (with `name =` when
//!   the dimension has a name of its own, as isl does); it is then substituted in the
//!   other constraints and divisions, and the equality is not printed again;
//! - dimension names come from the space when they are valid identifiers, not keywords
//!   and not already taken (by a parameter or an earlier dimension); otherwise fresh names
//!   are generated: `i0, i1, …` for set and input dimensions, `o0, …` for output
//!   dimensions, `e0, …` for existentials, each made unique with primes (`i0'`) if
//!   needed, as isl does;
//! - known floor divisions are printed inline as `floor((expr)/d)`, or as `(expr) mod d`
//!   when a constraint holds `expr - d·floor((expr)/d)`; existential locals are
//!   bound by one `exists (e0, e1: …)` per disjunct that holds exactly the constraints that
//!   depend on them;
//! - every constraint is solved for its last variable (column order: parameters, inputs,
//!   outputs, locals): `x >= lower`, `x <= upper`, `c·x = rest`; a lower and an upper bound
//!   of the same variable with the same coefficient are chained (`0 <= i < N`); a bound
//!   with a non-constant side prefers the strict form when that removes a `± 1`;
//! - the basic maps of a map whose tuples print alike share one piece, their disjuncts
//!   joined by ` or ` (a disjunct with several constraints in parentheses); pieces with
//!   different tuples are joined by `;` in order of first appearance
//!   (`{ [i = 1]; [i] : i >= 5 }`); a disjunct that another one with fewer constraints
//!   covers, or that visibly has no point, is left out, as the reader would do; the empty
//!   map prints `false` and keeps its space.
//!
//! Parameter and tuple names are printed as they are; a space whose parameter or tuple
//! names are not identifiers cannot be printed in a parseable way.

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};

use pollen_arith::{gcd_slice, Int};

use super::lexer::{is_plain_identifier, KEYWORDS};
use crate::bmap::{normalize_div, BasicMap, DivDef};
use crate::map::Map;
use crate::set::{BasicSet, Set};
use crate::space::{Space, Tuple, Tuples};
use crate::union::{UnionMap, UnionSet};

/// Whether `name` is already used, keywords included (keywords match without case).
fn taken(name: &str, used: &BTreeSet<String>) -> bool {
    used.contains(name) || KEYWORDS.contains(&name.to_ascii_lowercase().as_str())
}

/// `base`, or `base'`, `base''`, … (as isl marks a clash): the first that is not taken.
fn fresh_name(base: &str, used: &BTreeSet<String>) -> String {
    let mut name = base.to_string();
    while taken(&name, used) {
        name.push('\'');
    }
    name
}

/// The names under which the dimensions of `space` are printed: parameters first, then
/// input and output (or set) dimensions, all distinct and valid identifiers (parameters
/// excepted, which are printed as they are).
pub fn space_dim_names(space: &Space) -> Vec<String> {
    dim_names_and_origin(space).0
}

/// [`space_dim_names`], with, per tuple dimension (parameters excluded), whether its
/// printed name is the space's own name (`false` for a generated one).
fn dim_names_and_origin(space: &Space) -> (Vec<String>, Vec<bool>) {
    let mut used: BTreeSet<String> = space.param_names().iter().cloned().collect();
    let mut wanted: Vec<(Option<String>, String)> = Vec::new();
    let mut push_tuple = |t: &Tuple, prefix: &str| {
        for k in 0..t.n_dims() {
            wanted.push((t.dim_name(k).map(str::to_string), format!("{prefix}{k}")));
        }
    };
    match space.tuples() {
        Tuples::Params => {}
        Tuples::Set(t) => push_tuple(t, "i"),
        Tuples::Map(d, r) => {
            push_tuple(d, "i");
            push_tuple(r, "o");
        }
    }
    let mut kept: Vec<Option<String>> = Vec::with_capacity(wanted.len());
    for (name, _) in &wanted {
        match name {
            Some(n) if is_plain_identifier(n) && !taken(n, &used) => {
                used.insert(n.clone());
                kept.push(Some(n.clone()));
            }
            _ => kept.push(None),
        }
    }
    let mut names = space.param_names().to_vec();
    let mut own = Vec::with_capacity(kept.len());
    for (k, (_, generated)) in kept.into_iter().zip(&wanted) {
        own.push(k.is_some());
        let name = match k {
            Some(n) => n,
            None => {
                let n = fresh_name(generated, &used);
                used.insert(n.clone());
                n
            }
        };
        names.push(name);
    }
    (names, own)
}

/// Writes `coef · name` as a term of a sum (`first`: no leading ` + `).
fn write_term(out: &mut String, coef: &Int, name: &str, first: bool) {
    let negative = coef.is_negative();
    match (first, negative) {
        (true, true) => out.push('-'),
        (true, false) => {}
        (false, true) => out.push_str(" - "),
        (false, false) => out.push_str(" + "),
    }
    let abs = coef.abs();
    if !abs.is_one() {
        let _ = write!(out, "{abs}");
        if !is_plain_identifier(name) {
            out.push('*');
        }
    }
    out.push_str(name);
}

/// The affine expression `row[0] + Σ row[i]·names[i-1]`, constant last (`2i - j + 1`).
///
/// `row` has the constant first, as constraint rows of a [`BasicMap`]; `names[i]` names
/// column `i + 1`. A name that is not a plain identifier (e.g. `floor((i)/2)`) gets an
/// explicit `*` after its coefficient. A non-zero coefficient without a name prints as
/// `_c<column>`.
pub fn affine_to_string(row: &[Int], names: &[String]) -> String {
    let mut out = String::new();
    let mut first = true;
    for (i, c) in row.iter().enumerate().skip(1) {
        if c.is_zero() {
            continue;
        }
        match names.get(i - 1) {
            Some(n) => write_term(&mut out, c, n, first),
            None => write_term(&mut out, c, &format!("_c{i}"), first),
        }
        first = false;
    }
    let c = row.first().cloned().unwrap_or_else(Int::zero);
    if first {
        let _ = write!(out, "{c}");
    } else if c.is_negative() {
        let _ = write!(out, " - {}", c.abs());
    } else if !c.is_zero() {
        let _ = write!(out, " + {c}");
    }
    out
}

/// Which side of its subject a constraint bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    Eq,
    Lower,
    Upper,
}

/// A constraint solved for its last variable: `coef · x (≥ | ≤ | =) rhs`, `coef > 0`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Bound {
    subject: usize,
    side: Side,
    coef: Int,
    rhs: Vec<Int>,
}

/// Solves a constraint row for its last dimension (columns `1..=n_dims`), or for its
/// first local when it involves no dimension (so that the local printed first is the
/// earliest one, which keeps printing stable through a re-parse); `None` for a constant
/// row.
fn solve(row: &[Int], is_eq: bool, n_dims: usize) -> Option<Bound> {
    let n_dims = n_dims.min(row.len().saturating_sub(1));
    let subject = (1..=n_dims)
        .rev()
        .chain(n_dims + 1..row.len())
        .find(|&i| !row[i].is_zero())?;
    let c = row[subject].clone();
    // row = c·x + rest; solve c·x (op) -rest.
    let mut rest: Vec<Int> = row.to_vec();
    rest[subject] = Int::zero();
    let (side, coef, rhs) = if is_eq {
        if c.is_negative() {
            (Side::Eq, -c, rest)
        } else {
            (Side::Eq, c, rest.iter().map(|v| -v).collect())
        }
    } else if c.is_positive() {
        (Side::Lower, c, rest.iter().map(|v| -v).collect())
    } else {
        (Side::Upper, -c, rest)
    };
    Some(Bound {
        subject,
        side,
        coef,
        rhs,
    })
}

fn is_constant(row: &[Int]) -> bool {
    row.iter().skip(1).all(Int::is_zero)
}

/// `rhs + delta` as a string.
fn shifted(rhs: &[Int], delta: i64, names: &[String]) -> String {
    let mut r = rhs.to_vec();
    r[0] = &r[0] + Int::from(delta);
    affine_to_string(&r, names)
}

/// The lower-bound half `L <= ` or `L - 1 < ` (strict when that removes a `+ k`).
fn lower_text(rhs: &[Int], names: &[String]) -> (String, &'static str) {
    if !is_constant(rhs) && rhs[0].is_positive() {
        (shifted(rhs, -1, names), "<")
    } else {
        (affine_to_string(rhs, names), "<=")
    }
}

/// The upper-bound half ` <= U` or ` < U + 1`.
fn upper_text(rhs: &[Int], names: &[String]) -> (&'static str, String) {
    if !is_constant(rhs) && rhs[0].is_negative() {
        ("<", shifted(rhs, 1, names))
    } else {
        ("<=", affine_to_string(rhs, names))
    }
}

fn subject_text(b: &Bound, names: &[String]) -> String {
    let mut s = String::new();
    let name = names
        .get(b.subject - 1)
        .cloned()
        .unwrap_or_else(|| format!("_c{}", b.subject));
    write_term(&mut s, &b.coef, &name, true);
    s
}

/// One constraint `row = 0` (`is_eq`) or `row >= 0` over the columns named by `names`,
/// solved for its last dimension (the columns `1..=n_dims`; later columns are locals).
pub fn constraint_to_string(row: &[Int], is_eq: bool, names: &[String], n_dims: usize) -> String {
    match solve(row, is_eq, n_dims) {
        None => {
            let op = if is_eq { "=" } else { ">=" };
            format!("{} {op} 0", affine_to_string(row, names))
        }
        Some(b) => bound_text(&b, names),
    }
}

fn bound_text(b: &Bound, names: &[String]) -> String {
    let x = subject_text(b, names);
    match b.side {
        Side::Eq => format!("{x} = {}", affine_to_string(&b.rhs, names)),
        Side::Lower => {
            let (l, op) = lower_text(&b.rhs, names);
            let op = if op == "<" { ">" } else { ">=" };
            format!("{x} {op} {l}")
        }
        Side::Upper => {
            let (op, u) = upper_text(&b.rhs, names);
            format!("{x} {op} {u}")
        }
    }
}

/// The constraints (`(row, is_eq)`) as a list of conjuncts, chaining matching bounds;
/// `n_dims` as for [`constraint_to_string`].
pub fn constraints_to_strings(
    rows: &[(Vec<Int>, bool)],
    names: &[String],
    n_dims: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut bounds = Vec::new();
    let mut constants = Vec::new();
    for (row, is_eq) in rows {
        match solve(row, *is_eq, n_dims) {
            Some(b) => bounds.push(b),
            None => constants.push((row.clone(), *is_eq)),
        }
    }
    constants.sort();
    for (row, is_eq) in constants {
        out.push(constraint_to_string(&row, is_eq, names, n_dims));
    }
    bounds.sort();
    bounds.dedup();
    let mut used = vec![false; bounds.len()];
    for i in 0..bounds.len() {
        if used[i] {
            continue;
        }
        used[i] = true;
        let b = &bounds[i];
        if b.side == Side::Lower {
            let partner = (i + 1..bounds.len()).find(|&j| {
                !used[j]
                    && bounds[j].subject == b.subject
                    && bounds[j].side == Side::Upper
                    && bounds[j].coef == b.coef
            });
            if let Some(j) = partner {
                used[j] = true;
                let (l, lop) = lower_text(&b.rhs, names);
                let (uop, u) = upper_text(&bounds[j].rhs, names);
                out.push(format!("{l} {lop} {} {uop} {u}", subject_text(b, names)));
                continue;
            }
        }
        out.push(bound_text(b, names));
    }
    out
}

/// The printing names of the columns `1..` of `b`: the given dimension names, then for
/// each local either its inline `floor((num)/den)` or a fresh existential name.
///
/// Returns the names and, per local, whether it is an existential (or a division that
/// depends on one).
pub fn column_names(b: &BasicMap, dim_names: &[String]) -> (Vec<String>, Vec<bool>) {
    let mut used: BTreeSet<String> = dim_names.iter().cloned().collect();
    let mut names = dim_names.to_vec();
    let n_dims = b.n_dims();
    let mut depends = Vec::with_capacity(b.n_div());
    let mut n_exists = 0;
    for (k, d) in b.divs().iter().enumerate() {
        match d {
            None => {
                let n = fresh_name(&format!("e{n_exists}"), &used);
                n_exists += 1;
                used.insert(n.clone());
                names.push(n);
                depends.push(true);
            }
            Some(def) => {
                let limit = (1 + n_dims + k).min(def.num.len());
                let num = &def.num[..limit];
                names.push(format!(
                    "floor(({})/{})",
                    affine_to_string(num, &names),
                    def.den
                ));
                let dep =
                    (0..k).any(|j| depends[j] && !num.get(1 + n_dims + j).is_none_or(Int::is_zero));
                depends.push(dep);
            }
        }
    }
    (names, depends)
}

/// The conjuncts of one basic map (empty for the universe); `["false"]` when a constant
/// constraint is violated.
fn basic_conjuncts(b: &BasicMap, dim_names: &[String]) -> Vec<String> {
    if b.is_obviously_empty() {
        return vec!["false".to_string()];
    }
    let (names, depends) = column_names(b, dim_names);
    let n_dims = b.n_dims();
    let uses_exists = |row: &[Int]| {
        depends
            .iter()
            .enumerate()
            .any(|(k, d)| *d && !row.get(1 + n_dims + k).is_none_or(Int::is_zero))
    };
    let mut outer = Vec::new();
    let mut inner = Vec::new();
    for (row, is_eq) in b
        .eqs()
        .iter()
        .map(|r| (r, true))
        .chain(b.ineqs().iter().map(|r| (r, false)))
    {
        if uses_exists(row) {
            inner.push((row.clone(), is_eq));
        } else {
            outer.push((row.clone(), is_eq));
        }
    }
    // Names and rows extended by one `(num) mod den` column per local (unused for
    // existentials), so that `i - 4*floor((i)/4) = 0` prints as `(i) mod 4 = 0`.
    let ext_names = with_mod_names(b, &names);
    let extend = |rows: Vec<(Vec<Int>, bool)>| -> Vec<(Vec<Int>, bool)> {
        rows.into_iter()
            .map(|(r, is_eq)| (with_mod_terms(&r, b), is_eq))
            .collect()
    };
    let (outer, inner) = (extend(outer), extend(inner));
    let names = ext_names;
    let mut out = constraints_to_strings(&outer, &names, n_dims);
    if !inner.is_empty() {
        // The existentials that the inner constraints need, directly or through divisions.
        let uses = |row: &[Int], k: usize| !row.get(1 + n_dims + k).is_none_or(Int::is_zero);
        let n_cols = b.n_cols();
        let mut needed: Vec<bool> = (0..b.n_div())
            .map(|k| {
                inner
                    .iter()
                    .any(|(row, _)| uses(row, k) || !row.get(n_cols + k).is_none_or(Int::is_zero))
            })
            .collect();
        for k in (0..b.n_div()).rev() {
            if let (true, Some(d)) = (needed[k], &b.divs()[k]) {
                for (j, flag) in needed.iter_mut().enumerate().take(k) {
                    *flag |= uses(&d.num, j);
                }
            }
        }
        let vars: Vec<&str> = (0..b.n_div())
            .filter(|&k| needed[k] && b.divs()[k].is_none())
            .map(|k| names[n_dims + k].as_str())
            .collect();
        let body = constraints_to_strings(&inner, &names, n_dims).join(" and ");
        if vars.is_empty() {
            out.push(body);
        } else {
            out.push(format!("exists ({}: {body})", vars.join(", ")));
        }
    }
    out
}

/// `names` (the names of the columns of `b`) followed by one `(num) mod den` name per
/// local of `b` (a placeholder for existentials), naming the columns that
/// [`with_mod_terms`] adds.
fn with_mod_names(b: &BasicMap, names: &[String]) -> Vec<String> {
    let n_dims = b.n_dims();
    let mut ext_names = names.to_vec();
    for (k, d) in b.divs().iter().enumerate() {
        ext_names.push(match d {
            Some(d) => format!(
                "({}) mod {}",
                affine_to_string(&d.num[..(1 + n_dims + k).min(d.num.len())], names),
                d.den
            ),
            None => format!("_mod{k}"),
        });
    }
    ext_names
}

/// `row` extended by one column per local of `b`, where a term `±(num - den·q)` of a
/// known local `q = floor(num/den)` is moved to the local's `mod` column whenever that
/// leaves fewer terms.
fn with_mod_terms(row: &[Int], b: &BasicMap) -> Vec<Int> {
    let n = row.len();
    let mut best: Vec<Int> = row.to_vec();
    best.resize(n + b.n_div(), Int::zero());
    let terms = |r: &[Int]| r.iter().skip(1).filter(|c| !c.is_zero()).count();
    for (k, d) in b.divs().iter().enumerate() {
        let Some(d) = d else { continue };
        let col = b.div_col(k);
        if col >= n || d.num.len() > n {
            continue;
        }
        let sign = if best[col] == -&d.den {
            Int::one()
        } else if best[col] == d.den {
            -Int::one()
        } else {
            continue;
        };
        let mut cand = best.clone();
        for (c, v) in cand.iter_mut().zip(&d.num) {
            *c = &*c - &(&sign * v);
        }
        cand[col] = Int::zero();
        cand[n + k] = sign;
        if terms(&cand) < terms(&best) {
            best = cand;
        }
    }
    best
}

/// Writes a tuple, taking its dimension names from `names`.
fn write_tuple<'a>(out: &mut String, t: &Tuple, names: &mut impl Iterator<Item = &'a String>) {
    if let Some(n) = t.name() {
        out.push_str(n);
    }
    match t.nested() {
        Some((a, b)) => {
            out.push('[');
            write_tuple(out, a, names);
            out.push_str(" -> ");
            write_tuple(out, b, names);
            out.push(']');
        }
        None => {
            out.push('[');
            for k in 0..t.n_dims() {
                if k > 0 {
                    out.push_str(", ");
                }
                if let Some(n) = names.next() {
                    out.push_str(n);
                }
            }
            out.push(']');
        }
    }
}

/// The tuples of a space (`S[i] -> T[o0]`), empty for a parameter domain.
fn tuples_text(space: &Space, names: &[String]) -> String {
    let mut out = String::new();
    let mut it = names[space.n_params()..].iter();
    match space.tuples() {
        Tuples::Params => {}
        Tuples::Set(t) => write_tuple(&mut out, t, &mut it),
        Tuples::Map(d, r) => {
            write_tuple(&mut out, d, &mut it);
            out.push_str(" -> ");
            write_tuple(&mut out, r, &mut it);
        }
    }
    out
}

/// A basic map prepared for printing: the dimensions that an equality fixes, printed
/// as expressions inside the tuple, and what is left to print after the `:`.
struct Folded {
    /// Per tuple dimension (parameters excluded), the row `[c, a_1, …]` of the affine
    /// expression `c + Σ a_i·column_i` that the dimension equals, when it is printed
    /// inside the tuple.
    exprs: Vec<Option<Vec<Int>>>,
    /// The basic map without the equalities that fix those dimensions, and with the
    /// dimensions substituted by their expressions in every other constraint and
    /// division, so that nothing else refers to them.
    rest: BasicMap,
    /// Whether the basic map has visibly no point (a constant constraint that fails, or
    /// an equality whose coefficients' gcd does not divide its constant): it is then
    /// left out of a union.
    empty: bool,
}

/// Which locals of `divs` could be printed at tuple column `col` (an inline
/// `floor((num)/den)` over the parameters, the dimensions before `col` and other such
/// locals). `n_dims` is the number of parameter and dimension columns.
fn divs_printable_at(divs: &[Option<DivDef>], col: usize, n_dims: usize) -> Vec<bool> {
    let mut ok: Vec<bool> = Vec::with_capacity(divs.len());
    for d in divs {
        let printable = d.as_ref().is_some_and(|d| {
            d.num.iter().enumerate().skip(1).all(|(c, v)| {
                v.is_zero() || c < col || (c > n_dims && ok.get(c - n_dims - 1) == Some(&true))
            })
        });
        ok.push(printable);
    }
    ok
}

/// Whether the equality `row` can give the value of dimension column `col` inside the
/// tuple: a unit coefficient on `col`, no later dimension, and only locals printable
/// there.
fn fixes(row: &[Int], col: usize, n_dims: usize, divs: &[Option<DivDef>]) -> bool {
    if !row[col].abs().is_one() || row[col + 1..=n_dims].iter().any(|c| !c.is_zero()) {
        return false;
    }
    let printable = divs_printable_at(divs, col, n_dims);
    (0..divs.len()).all(|k| printable[k] || row.get(n_dims + 1 + k).is_none_or(Int::is_zero))
}

/// `row + row[col]·value`, with `row[col]` then zero: column `col` replaced by the
/// expression `value` (which has no entry at `col`). Returns whether `row` changed.
fn substitute_column(row: &mut [Int], value: &[Int], col: usize) -> bool {
    if row[col].is_zero() {
        return false;
    }
    let f = std::mem::take(&mut row[col]);
    for (r, v) in row.iter_mut().zip(value) {
        *r = &*r + &(&f * v);
    }
    true
}

/// A constraint row divided by the gcd of its coefficients (the constant rounded down
/// for an inequality), or `None` when it holds trivially.
fn normalized(mut row: Vec<Int>, is_eq: bool) -> Option<Vec<Int>> {
    let g = gcd_slice(&row[1..]);
    if g.is_zero() {
        let trivial = if is_eq {
            row[0].is_zero()
        } else {
            !row[0].is_negative()
        };
        return if trivial { None } else { Some(row) };
    }
    if is_eq {
        if g.divides(&row[0]) {
            for c in row.iter_mut() {
                *c = c.exact_div(&g);
            }
        }
    } else {
        row[0] = row[0].floor_div(&g);
        for c in row[1..].iter_mut() {
            *c = c.exact_div(&g);
        }
    }
    Some(row)
}

/// The constraints and locals of a basic map while its dimensions are folded.
#[derive(Clone)]
struct Work {
    /// Number of parameter and dimension columns.
    n_dims: usize,
    eqs: Vec<Vec<Int>>,
    ineqs: Vec<Vec<Int>>,
    divs: Vec<Option<DivDef>>,
    /// Per tuple dimension, its value when folded (see [`Folded::exprs`]).
    exprs: Vec<Option<Vec<Int>>>,
}

impl Work {
    /// The work with dimension column `col` folded through the equality `eqs[i]`, its
    /// value substituted everywhere; `None` when the definitions of the locals would
    /// not stay in the form the reader gives them (a division that becomes a plain
    /// expression, or a copy of another, which the reader would remove) or would
    /// depend on each other in a cycle.
    fn folded(&self, col: usize, i: usize) -> Option<Work> {
        let mut w = self.clone();
        let unit = w.eqs.remove(i);
        let sign = if unit[col].is_negative() {
            Int::one()
        } else {
            -Int::one()
        };
        let mut value: Vec<Int> = unit.iter().map(|c| &sign * c).collect();
        value[col] = Int::zero();
        let subst = |rows: Vec<Vec<Int>>, is_eq: bool| -> Vec<Vec<Int>> {
            rows.into_iter()
                .filter_map(|mut r| {
                    if substitute_column(&mut r, &value, col) {
                        normalized(r, is_eq)
                    } else {
                        Some(r)
                    }
                })
                .collect()
        };
        w.eqs = subst(w.eqs, true);
        w.ineqs = subst(w.ineqs, false);
        for e in w.exprs.iter_mut().flatten() {
            substitute_column(e, &value, col);
        }
        for k in 0..w.divs.len() {
            let Some(d) = w.divs[k].as_mut() else {
                continue;
            };
            if !substitute_column(&mut d.num, &value, col) {
                continue;
            }
            let (num, den) = normalize_div(std::mem::take(&mut d.num), d.den.clone());
            if den.is_one() || num[1..].iter().all(Int::is_zero) {
                return None;
            }
            let copy =
                w.divs.iter().enumerate().any(|(j, e)| {
                    j != k && e.as_ref().is_some_and(|e| e.den == den && e.num == num)
                });
            if copy {
                return None;
            }
            w.divs[k] = Some(DivDef { num, den });
        }
        let order = w.dependency_order()?;
        let n_params = w.n_dims - w.exprs.len();
        w.exprs[col - 1 - n_params] = Some(value);
        w.reorder(&order);
        Some(w)
    }

    /// The locals in an order where each comes after those its definition uses,
    /// keeping the current order where it can; `None` for a cycle.
    fn dependency_order(&self) -> Option<Vec<usize>> {
        let n = self.divs.len();
        let uses = |k: usize, j: usize| {
            self.divs[k]
                .as_ref()
                .is_some_and(|d| !d.num[self.n_dims + 1 + j].is_zero())
        };
        let mut placed = vec![false; n];
        let mut order = Vec::with_capacity(n);
        while order.len() < n {
            let next = (0..n).find(|&k| !placed[k] && (0..n).all(|j| placed[j] || !uses(k, j)))?;
            placed[next] = true;
            order.push(next);
        }
        Some(order)
    }

    /// The locals renumbered in `order` (old indices, each once, each after the
    /// locals its definition uses), in the constraints, definitions and values.
    fn reorder(&mut self, order: &[usize]) {
        if order.iter().enumerate().all(|(t, &k)| t == k) {
            return;
        }
        let n_dims = self.n_dims;
        let permute = |row: &[Int]| -> Vec<Int> {
            let mut r = row[..=n_dims].to_vec();
            r.extend(order.iter().map(|&k| row[n_dims + 1 + k].clone()));
            r
        };
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            *r = permute(r);
        }
        for r in self.exprs.iter_mut().flatten() {
            *r = permute(r);
        }
        self.divs = order
            .iter()
            .map(|&k| {
                self.divs[k].as_ref().map(|d| DivDef {
                    num: permute(&d.num),
                    den: d.den.clone(),
                })
            })
            .collect();
    }

    /// The order in which the reader creates the locals from the printed text: first
    /// those of the tuple values, term by term (a local after the locals of its
    /// definition, a `mod` after the plain locals of the same value), then the others
    /// in their current order (after the locals they use).
    fn reader_order(&self) -> Vec<usize> {
        let n = self.divs.len();
        let mut order: Vec<usize> = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        fn visit(k: usize, w: &Work, placed: &mut [bool], order: &mut Vec<usize>) {
            if placed[k] {
                return;
            }
            placed[k] = true;
            if let Some(d) = &w.divs[k] {
                for j in 0..w.divs.len() {
                    if !d.num[w.n_dims + 1 + j].is_zero() {
                        visit(j, w, placed, order);
                    }
                }
            }
            order.push(k);
        }
        if let Ok(tmp) = BasicMap::from_parts(
            Space::set_anonymous(self.n_dims),
            self.divs.clone(),
            Vec::new(),
            Vec::new(),
        ) {
            for e in self.exprs.iter().flatten() {
                let ext = with_mod_terms(e, &tmp);
                for k in 0..n {
                    if !ext[self.n_dims + 1 + k].is_zero() {
                        visit(k, self, &mut placed, &mut order);
                    }
                }
                for k in 0..n {
                    if !ext.get(self.n_dims + 1 + n + k).is_none_or(Int::is_zero) {
                        visit(k, self, &mut placed, &mut order);
                    }
                }
            }
        }
        for k in 0..n {
            visit(k, self, &mut placed, &mut order);
        }
        order
    }
}

/// Finds, dimension by dimension in tuple order, an equality giving its value in terms
/// of parameters, earlier dimensions and locals of those (see [`fixes`] and
/// [`Work::folded`]); such a dimension is printed as that value inside the tuple, as
/// isl does, and substituted everywhere else. The choice depends only on the
/// constraints, never on names.
///
/// The locals are renumbered in the order in which the reader meets them in the
/// printed text (tuple first). Since the reader simplifies what it reads, the basic map
/// that the text describes (the values as equalities, the substituted constraints, the
/// renumbered locals) is simplified and folded again, for a few rounds or until nothing
/// changes, so that a re-read map prints the same.
fn fold(b: &BasicMap) -> Folded {
    let n_params = b.space().n_params();
    let n_dims = b.n_dims();
    let unfolded = || Folded {
        exprs: vec![None; n_dims - n_params],
        rest: b.clone(),
        empty: visibly_empty(b.eqs(), b.ineqs()),
    };
    if b.eqs().is_empty() || visibly_empty(b.eqs(), b.ineqs()) {
        return unfolded();
    }
    let in_reader_order = |mut w: Work| {
        let order = w.reader_order();
        w.reorder(&order);
        w
    };
    let mut w = in_reader_order(fold_once(b));
    for _round in 0..3 {
        if w.exprs.iter().all(Option::is_none) {
            break;
        }
        let mut eqs = w.eqs.clone();
        for (k, e) in w.exprs.iter().enumerate() {
            if let Some(value) = e {
                let mut row: Vec<Int> = value.iter().map(|c| -c).collect();
                row[1 + n_params + k] = Int::one();
                eqs.push(row);
            }
        }
        let Ok(described) =
            BasicMap::from_parts(b.space().clone(), w.divs.clone(), eqs, w.ineqs.clone())
        else {
            break;
        };
        let next = in_reader_order(fold_once(&described.simplify()));
        let same = next.exprs == w.exprs
            && next.divs == w.divs
            && next.eqs == w.eqs
            && next.ineqs == w.ineqs;
        w = next;
        if same {
            break;
        }
    }
    if w.exprs.iter().all(Option::is_none) {
        return unfolded();
    }
    let empty = visibly_empty(&w.eqs, &w.ineqs);
    match BasicMap::from_parts(b.space().clone(), w.divs, w.eqs, w.ineqs) {
        Ok(rest) => Folded {
            exprs: w.exprs,
            rest,
            empty,
        },
        Err(_) => unfolded(),
    }
}

/// One round of [`fold`]: the dimensions folded while some can be (a substitution can
/// make a local printable at an earlier dimension, so passes repeat).
fn fold_once(b: &BasicMap) -> Work {
    let n_params = b.space().n_params();
    let n_dims = b.n_dims();
    let mut w = Work {
        n_dims,
        eqs: b.eqs().to_vec(),
        ineqs: b.ineqs().to_vec(),
        divs: b.divs().to_vec(),
        exprs: vec![None; n_dims - n_params],
    };
    if visibly_empty(b.eqs(), b.ineqs()) {
        return w;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for col in 1 + n_params..=n_dims {
            if w.exprs[col - 1 - n_params].is_some() {
                continue;
            }
            let next = (0..w.eqs.len())
                .filter(|&i| fixes(&w.eqs[i], col, n_dims, &w.divs))
                .find_map(|i| w.folded(col, i));
            if let Some(next) = next {
                w = next;
                changed = true;
            }
        }
    }
    w
}

/// Whether the constraints visibly have no integer solution: a constant constraint
/// that fails, or an equality whose coefficients' gcd does not divide its constant.
fn visibly_empty(eqs: &[Vec<Int>], ineqs: &[Vec<Int>]) -> bool {
    eqs.iter().any(|r| !gcd_slice(&r[1..]).divides(&r[0]))
        || ineqs
            .iter()
            .any(|r| r[0].is_negative() && r[1..].iter().all(Int::is_zero))
}

/// The pieces `tuples : condition` that print the basic maps of one map in `space`.
///
/// Each basic map is folded (see [`fold`]) and printed with its own tuples; basic maps
/// whose tuples print the same share one piece, their conditions joined by ` or `, in
/// order of first appearance. A folded dimension is written `name = value` when its
/// name is declared by the text (the space's own name, or a generated one that the
/// first piece writes), and `value` alone otherwise, so that a re-read map gets the
/// same names and prints the same.
fn map_pieces(space: &Space, parts: &[BasicMap]) -> Vec<String> {
    let (names, own) = dim_names_and_origin(space);
    let n_params = space.n_params();
    if parts.is_empty() {
        return vec![piece(tuples_text(space, &names), "false".to_string())];
    }
    let folded: Vec<Folded> = parts.iter().map(fold).filter(|f| !f.empty).collect();
    if folded.is_empty() {
        return vec![piece(tuples_text(space, &names), "false".to_string())];
    }
    let declared: Vec<bool> = own
        .iter()
        .zip(&folded[0].exprs)
        .map(|(own, e)| *own || e.is_none())
        .collect();
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut texts: Vec<Vec<String>> = Vec::with_capacity(folded.len());
    for (index, f) in folded.iter().enumerate() {
        let (cols, _) = column_names(&f.rest, &names);
        let ext = with_mod_names(&f.rest, &cols);
        let mut elements = names.clone();
        for (k, e) in f.exprs.iter().enumerate() {
            if let Some(e) = e {
                let value = affine_to_string(&with_mod_terms(e, &f.rest), &ext);
                let element = &mut elements[n_params + k];
                *element = if declared[k] {
                    format!("{element} = {value}")
                } else {
                    value
                };
            }
        }
        let tuples = tuples_text(space, &elements);
        texts.push(basic_conjuncts(&f.rest, &names));
        match groups.iter_mut().find(|(t, _)| *t == tuples) {
            Some((_, g)) => g.push(index),
            None => groups.push((tuples, vec![index])),
        }
    }
    groups
        .into_iter()
        .map(|(tuples, members)| {
            let atom_lists: Vec<Option<Vec<String>>> = members
                .iter()
                .map(|&i| {
                    let rest = &folded[i].rest;
                    (members.len() > 1 && !rest.has_existentials()).then(|| atoms(rest, &names))
                })
                .collect();
            let kept: Vec<usize> = (0..members.len())
                .filter(|&i| {
                    !(0..members.len()).any(|j| {
                        j != i && covers(atom_lists[j].as_deref(), atom_lists[i].as_deref(), j < i)
                    })
                })
                .map(|i| members[i])
                .collect();
            let mut conditions: Vec<Vec<String>> = kept.iter().map(|&i| texts[i].clone()).collect();
            let condition = match conditions.len() {
                1 => conditions.pop().unwrap_or_default().join(" and "),
                _ => conditions
                    .into_iter()
                    .map(|c| match c.len() {
                        1 => c.into_iter().next().unwrap_or_default(),
                        _ => format!("({})", c.join(" and ")),
                    })
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            piece(tuples, condition)
        })
        .collect()
}

/// The constraints of `b` printed one by one (no chaining), over the names of its
/// columns: what the reader turns back into one atom each.
fn atoms(b: &BasicMap, names: &[String]) -> Vec<String> {
    let (cols, _) = column_names(b, names);
    let ext = with_mod_names(b, &cols);
    let rows = b.eqs().iter().map(|r| (r, true));
    let mut out: Vec<String> = rows
        .chain(b.ineqs().iter().map(|r| (r, false)))
        .map(|(r, is_eq)| constraint_to_string(&with_mod_terms(r, b), is_eq, &ext, b.n_dims()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether the disjunct with constraints `a` covers the one with constraints `b`, in a
/// piece where both have the same tuples (`first`: `a` comes before `b`): `a` has no
/// constraint that `b` lacks, so `b` adds no point. The reader drops such a disjunct
/// of an `or`, so the printer leaves it out too; `None` (a disjunct with existentials,
/// which the reader keeps apart) covers nothing and is covered by nothing but the
/// unconstrained disjunct. Of two disjuncts with the same constraints, the first is
/// kept.
fn covers(a: Option<&[String]>, b: Option<&[String]>, first: bool) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            let within = |x: &[String], y: &[String]| x.iter().all(|c| y.contains(c));
            within(a, b) && (first || !within(b, a))
        }
        (Some(a), None) => a.is_empty(),
        _ => false,
    }
}

/// `tuples : condition`, leaving out what is empty.
fn piece(tuples: String, condition: String) -> String {
    match (tuples.is_empty(), condition.is_empty()) {
        (true, true) => ":".to_string(),
        (true, false) => format!(": {condition}"),
        (false, true) => tuples,
        (false, false) => format!("{tuples} : {condition}"),
    }
}

fn params_prefix(params: &[String]) -> String {
    if params.is_empty() {
        String::new()
    } else {
        format!("[{}] -> ", params.join(", "))
    }
}

/// The whole object text for pieces over a common parameter list.
fn object_text(params: &[String], pieces: &[String]) -> String {
    if pieces.is_empty() {
        return format!("{}{{ }}", params_prefix(params));
    }
    format!("{}{{ {} }}", params_prefix(params), pieces.join("; "))
}

impl fmt::Display for BasicMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pieces = map_pieces(self.space(), std::slice::from_ref(self));
        f.write_str(&object_text(self.space().param_names(), &pieces))
    }
}

/// The pieces of `m` as printed, read back and printed again until the text no longer
/// changes, so that `print(parse(print(x))) == print(x)`.
///
/// One round is enough unless a piece has two divisions or more: the reader numbers
/// the locals in the order it meets them in the text, which may differ from the
/// columns the text was printed from, and the terms of the second print then come in
/// another order. The rounds stop at a fixed point; in a cycle, the least text of the
/// cycle is taken (any print of the cycle leads back to the same cycle, hence to the
/// same text). At most [`STABLE_ROUNDS`] rounds.
fn stable_pieces(m: &Map) -> Vec<String> {
    let pieces = map_pieces(m.space(), m.basic_maps());
    if m.basic_maps().iter().all(|b| b.divs().len() < 2) {
        return pieces;
    }
    let params = m.space().param_names();
    let mut seen: Vec<(String, Vec<String>)> = vec![(object_text(params, &pieces), pieces)];
    for _ in 0..STABLE_ROUNDS {
        let Some((text, _)) = seen.last() else {
            break;
        };
        let Ok(again) = super::parse_map(text) else {
            break;
        };
        let pieces = map_pieces(again.space(), again.basic_maps());
        let next = object_text(again.space().param_names(), &pieces);
        if let Some(at) = seen.iter().position(|(t, _)| *t == next) {
            // A fixed point (the last text) or a cycle from `at` on: its least text.
            return seen
                .drain(at..)
                .min_by(|a, b| a.0.cmp(&b.0))
                .map(|(_, p)| p)
                .unwrap_or_default();
        }
        seen.push((next, pieces));
    }
    seen.pop().map(|(_, p)| p).unwrap_or_default()
}

/// The most rounds of [`stable_pieces`].
const STABLE_ROUNDS: usize = 8;

impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pieces = stable_pieces(self);
        f.write_str(&object_text(self.space().param_names(), &pieces))
    }
}

impl fmt::Display for BasicSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_basic_map(), f)
    }
}

impl fmt::Display for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_map(), f)
    }
}

impl fmt::Display for UnionMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pieces: Vec<String> = self.maps().flat_map(stable_pieces).collect();
        f.write_str(&object_text(self.param_names(), &pieces))
    }
}

impl fmt::Display for UnionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_union_map(), f)
    }
}
