//! Printing in isl's text syntax: [`Display`](fmt::Display) for basic maps, maps, sets and
//! unions, and helpers that other printers (affine functions, the command line) reuse.
//!
//! The output is canonical and deterministic for a given object, parses back (with this
//! crate's parser and with isl) to the same set of integer points, and reads like isl's:
//!
//! - `[N, M] -> { S[i, j] -> T[o0] : 0 <= i < N and o0 = i + j and exists (e0: j = 2e0) }`;
//! - dimension names come from the space when they are valid identifiers, not keywords
//!   and not already taken (by a parameter or an earlier dimension); otherwise fresh names
//!   are generated: `i0, i1, …` for set and input dimensions, `o0, …` for output
//!   dimensions, `e0, …` for existentials, each made unique with a `_k` suffix if needed;
//! - known floor divisions are printed inline as `floor((expr)/d)`, or as `(expr) mod d`
//!   when a constraint holds `expr - d·floor((expr)/d)`; existential locals are
//!   bound by one `exists (e0, e1: …)` per disjunct that holds exactly the constraints that
//!   depend on them;
//! - every constraint is solved for its last variable (column order: parameters, inputs,
//!   outputs, locals): `x >= lower`, `x <= upper`, `c·x = rest`; a lower and an upper bound
//!   of the same variable with the same coefficient are chained (`0 <= i < N`); a bound
//!   with a non-constant side prefers the strict form when that removes a `± 1`;
//! - a map with several basic maps prints its disjuncts joined by ` or ` (a disjunct with
//!   several constraints in parentheses); the empty map prints `false` and keeps its space.
//!
//! Parameter and tuple names are printed as they are; a space whose parameter or tuple
//! names are not identifiers cannot be printed in a parseable way.

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};

use pollen_arith::Int;

use super::lexer::{is_plain_identifier, KEYWORDS};
use crate::bmap::BasicMap;
use crate::map::Map;
use crate::set::{BasicSet, Set};
use crate::space::{Space, Tuple, Tuples};
use crate::union::{UnionMap, UnionSet};

/// Whether `name` is already used, keywords included (keywords match without case).
fn taken(name: &str, used: &BTreeSet<String>) -> bool {
    used.contains(name) || KEYWORDS.contains(&name.to_ascii_lowercase().as_str())
}

/// `base`, or `base_1`, `base_2`, … : the first that is not taken.
fn fresh_name(base: &str, used: &BTreeSet<String>) -> String {
    if !taken(base, used) {
        return base.to_string();
    }
    (1..)
        .map(|k| format!("{base}_{k}"))
        .find(|n| !taken(n, used))
        .unwrap_or_else(|| base.to_string())
}

/// The names under which the dimensions of `space` are printed: parameters first, then
/// input and output (or set) dimensions, all distinct and valid identifiers (parameters
/// excepted, which are printed as they are).
pub fn space_dim_names(space: &Space) -> Vec<String> {
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
    for (k, (_, generated)) in kept.into_iter().zip(&wanted) {
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
    names
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
    let mut ext_names = names.clone();
    for (k, d) in b.divs().iter().enumerate() {
        ext_names.push(match d {
            Some(d) => format!(
                "({}) mod {}",
                affine_to_string(&d.num[..(1 + n_dims + k).min(d.num.len())], &names),
                d.den
            ),
            None => format!("_mod{k}"),
        });
    }
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

/// One piece `tuples : disjunct or disjunct …` for the given basic maps of one space.
fn piece_text(space: &Space, parts: &[BasicMap]) -> String {
    let names = space_dim_names(space);
    let tuples = tuples_text(space, &names);
    let condition = match parts {
        [] => "false".to_string(),
        [b] => basic_conjuncts(b, &names).join(" and "),
        _ => parts
            .iter()
            .map(|b| {
                let c = basic_conjuncts(b, &names);
                match c.len() {
                    0 => "true".to_string(),
                    1 => c.into_iter().next().unwrap_or_default(),
                    _ => format!("({})", c.join(" and ")),
                }
            })
            .collect::<Vec<_>>()
            .join(" or "),
    };
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
        let piece = piece_text(self.space(), std::slice::from_ref(self));
        f.write_str(&object_text(self.space().param_names(), &[piece]))
    }
}

impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let piece = piece_text(self.space(), self.basic_maps());
        f.write_str(&object_text(self.space().param_names(), &[piece]))
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
        let pieces: Vec<String> = self
            .maps()
            .map(|m| piece_text(m.space(), m.basic_maps()))
            .collect();
        f.write_str(&object_text(self.param_names(), &pieces))
    }
}

impl fmt::Display for UnionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_union_map(), f)
    }
}
