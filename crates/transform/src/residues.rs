//! Residue splitting: a statement whose subscripts divide an iterator by a constant
//! (`u[x / 2]`, `u[(y + 1) / 2]`: up-sampling, the interleaving of Bayer planes) becomes
//! one statement per residue class of its iterators, `x = m x' + r` for every residue
//! `0 <= r < m`, in which each subscript is affine without division.
//!
//! In the original, neighbouring instances read the same element or the next one in
//! turn (`u[y / 2]` for `y = 0, 1, 2, 3, ...` reads `u[0], u[0], u[1], u[1], ...`), which
//! a C compiler vectorizes, if at all, with gathers. After the split each statement
//! reads with unit stride (`u[y']` and `u[y' + 1]` for the odd `y = 2y' + 1`) and writes
//! with a constant stride, and the pieces of a statement are independent statements the
//! scheduler fuses back into one loop nest.
//!
//! An iterator the text compares (`c == 0 ? ... : ...`) whose domain holds only a few
//! constant values (`0 <= c <= 2`: the channels of an image) is split the same way, by
//! its number of values, so that each piece has one value and the comparison a constant
//! outcome: the C compiler drops the branches instead of computing all of them.
//!
//! The split is exact and changes no arithmetic: instance `S[m x' + r]` of the original
//! is instance `S_r[x']` of its piece, which runs the original text with `x` replaced by
//! `(m * (x) + r)` (a C compiler folds `x % 2` and `x / 2` of such an expression); the
//! original schedule orders the pieces' instances as it ordered the original ones, so the
//! dependences of the split program are the original's, renamed.

use std::collections::BTreeSet;

use pollen_presburger::{Budget, DimKind, Int, Map, Set, UnionMap, UnionSet};
use pollen_scop::{Access, Band, Node, ScheduleTree, Scop, Statement};

use crate::error::Result;

/// The choices of [`split_residues`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResidueOptions {
    /// The largest divisor an iterator is split by.
    pub max_modulus: i64,
    /// The most pieces one statement is split into (the product of its moduli).
    pub max_pieces: i64,
    /// Whether iterators the text compares are split by their values too (see the
    /// module documentation).
    pub values: bool,
}

impl Default for ResidueOptions {
    fn default() -> ResidueOptions {
        ResidueOptions {
            max_modulus: 4,
            max_pieces: 16,
            values: true,
        }
    }
}

/// One statement split by residues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// The original statement.
    pub statement: String,
    /// Per iterator, its modulus (1: not split).
    pub moduli: Vec<(String, i64)>,
    /// The pieces: the new statements' names, with their residues per iterator.
    pub pieces: Vec<(String, Vec<i64>)>,
}

/// `scop` with every statement whose subscripts divide its iterators by constants split
/// into its residue classes (see the module documentation), and the splits made; the
/// same scop and no split when nothing divides. A statement is left whole when a
/// modulus exceeds [`ResidueOptions::max_modulus`], its pieces would exceed
/// [`ResidueOptions::max_pieces`], or a subscript still divides after the split (a
/// division involving a parameter, say), or its text cannot be rewritten.
pub fn split_residues(
    scop: &Scop,
    options: &ResidueOptions,
    budget: &mut Budget,
) -> Result<(Scop, Vec<Split>)> {
    let mut taken: BTreeSet<String> = scop.statements.iter().map(|s| s.name.clone()).collect();
    let mut statements = Vec::with_capacity(scop.statements.len());
    let mut splits = Vec::new();
    // Per split statement: each piece's name and `{ piece[x'] -> S[m x' + r] }`.
    let mut pieces_of: Vec<(String, Vec<(String, Map)>)> = Vec::new();
    for s in &scop.statements {
        let mut moduli = moduli(s);
        if options.values {
            for (k, values) in compared_values(s, options.max_modulus, budget)?
                .into_iter()
                .enumerate()
            {
                moduli[k] = lcm(moduli[k], values);
            }
        }
        let pieces: i64 = moduli.iter().product();
        if pieces == 1
            || moduli.iter().any(|&m| m > options.max_modulus)
            || pieces > options.max_pieces
        {
            statements.push(s.clone());
            continue;
        }
        match split_statement(scop, s, &moduli, &mut taken, budget)? {
            Some((new, maps, split)) => {
                statements.extend(new);
                pieces_of.push((s.name.clone(), maps));
                splits.push(split);
            }
            None => statements.push(s.clone()),
        }
    }
    if splits.is_empty() {
        return Ok((scop.clone(), splits));
    }
    let root = rewrite_node(&scop.schedule.root, &pieces_of)?;
    let out = Scop {
        params: scop.params.clone(),
        context: scop.context.clone(),
        arrays: scop.arrays.clone(),
        statements,
        schedule: ScheduleTree { root },
    };
    Ok((out, splits))
}

/// Per iterator of `s`, the least modulus that makes every division of its subscripts
/// by that iterator exact: for `floor((c x + ...) / d)`, `d / gcd(c, d)`.
fn moduli(s: &Statement) -> Vec<i64> {
    let n = s.iterators.len();
    let mut out = vec![1i64; n];
    for a in &s.accesses {
        for b in a.relation.basic_maps() {
            if b.space().n_in() != n {
                continue;
            }
            for def in b.divs().iter().flatten() {
                for (k, m) in out.iter_mut().enumerate() {
                    let c = &def.num[b.dim_col(DimKind::In, k)];
                    if c.is_zero() {
                        continue;
                    }
                    let (Some(c), Some(d)) = (c.to_i64(), def.den.to_i64()) else {
                        *m = i64::MAX;
                        continue;
                    };
                    let step = d / gcd(c.abs(), d);
                    *m = lcm(*m, step);
                }
            }
        }
    }
    out
}

/// Per iterator of `s`, the number of its values `u + 1` when its text compares the
/// iterator (`c == 0 ? ... : ...`, `c < 3 ? ...`) and its domain keeps it within
/// `0 ..= u` for a constant `u < max`; 1 otherwise. Splitting by that count gives one
/// piece per value, in which the comparison has a constant outcome.
fn compared_values(s: &Statement, max: i64, budget: &mut Budget) -> Result<Vec<i64>> {
    let mut out = vec![1i64; s.iterators.len()];
    let toks = scan(&s.body);
    let spelling = |k: usize| &s.body[toks[k].1.clone()];
    let compared = |name: &str| {
        (0..toks.len()).any(|k| {
            toks[k].0 == Kind::Identifier
                && spelling(k) == name
                && [k.checked_sub(1), Some(k + 1)]
                    .into_iter()
                    .flatten()
                    .any(|j| {
                        j < toks.len()
                            && matches!(spelling(j), "==" | "!=" | "<" | "<=" | ">" | ">=")
                    })
        })
    };
    for (k, name) in s.iterators.iter().enumerate() {
        if !compared(name) {
            continue;
        }
        let below = s.domain.upper_bound_val(DimKind::Out, k, &Int::from(-1))?;
        if !below.is_empty_with(budget)? {
            continue;
        }
        for u in 0..max {
            let above = s
                .domain
                .lower_bound_val(DimKind::Out, k, &Int::from(u + 1))?;
            if above.is_empty_with(budget)? {
                out[k] = u + 1;
                break;
            }
        }
    }
    Ok(out)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: i64, b: i64) -> i64 {
    if a == i64::MAX || b == i64::MAX {
        return i64::MAX;
    }
    (a / gcd(a, b)).saturating_mul(b)
}

type Pieces = (Vec<Statement>, Vec<(String, Map)>, Split);

/// The pieces of `s` by `moduli`, or `None` when a piece's subscripts still divide or
/// its text cannot be rewritten.
fn split_statement(
    scop: &Scop,
    s: &Statement,
    moduli: &[i64],
    taken: &mut BTreeSet<String>,
    budget: &mut Budget,
) -> Result<Option<Pieces>> {
    let mut residues: Vec<Vec<i64>> = vec![Vec::new()];
    for &m in moduli {
        residues = residues
            .into_iter()
            .flat_map(|r| {
                (0..m).map(move |v| {
                    let mut r = r.clone();
                    r.push(v);
                    r
                })
            })
            .collect();
    }
    let mut new = Vec::new();
    let mut maps = Vec::new();
    let mut pieces = Vec::new();
    for r in residues {
        let split: Vec<i64> = r
            .iter()
            .zip(moduli)
            .filter(|(_, &m)| m > 1)
            .map(|(&v, _)| v)
            .collect();
        let name = fresh_name(&s.name, &split, taken);
        let to_original = residue_map(&scop.params, &name, &s.name, moduli, &r)?;
        let back = to_original.reverse();
        let domain = s.domain.apply(&back)?.coalesce_with(budget)?;
        if domain.is_empty_with(budget)? {
            continue;
        }
        let mut accesses = Vec::with_capacity(s.accesses.len());
        for a in &s.accesses {
            let relation = to_original
                .apply_range(&a.relation)?
                .intersect_domain(domain.as_map())?
                .coalesce_with(budget)?;
            if relation.basic_maps().iter().any(|b| b.n_div() > 0) {
                return Ok(None);
            }
            accesses.push(Access {
                kind: a.kind,
                array: a.array.clone(),
                relation,
            });
        }
        let Some(body) = substitute(&s.body, &s.iterators, moduli, &r) else {
            return Ok(None);
        };
        let body = fold_divisions(&body, &name, &s.iterators, &scop.params, &domain, budget)?;
        taken.insert(name.clone());
        new.push(Statement {
            name: name.clone(),
            domain,
            iterators: s.iterators.clone(),
            accesses,
            body,
        });
        maps.push((name.clone(), to_original));
        pieces.push((name, r));
    }
    let split = Split {
        statement: s.name.clone(),
        moduli: s
            .iterators
            .iter()
            .cloned()
            .zip(moduli.iter().copied())
            .collect(),
        pieces,
    };
    Ok(Some((new, maps, split)))
}

/// `S_r_s` for the residues `r, s` of the split iterators, made unique among `taken`.
fn fresh_name(base: &str, r: &[i64], taken: &BTreeSet<String>) -> String {
    let suffix: Vec<String> = r.iter().map(i64::to_string).collect();
    let mut name = format!("{base}_{}", suffix.join("_"));
    while taken.contains(&name) {
        name.push('r');
    }
    name
}

/// `[params] -> { piece[x0, ..] -> original[m0 x0 + r0, ..] }`.
fn residue_map(
    params: &[String],
    piece: &str,
    original: &str,
    moduli: &[i64],
    r: &[i64],
) -> Result<Map> {
    let vars: Vec<String> = (0..moduli.len()).map(|k| format!("x{k}")).collect();
    let images: Vec<String> = vars
        .iter()
        .zip(moduli.iter().zip(r))
        .map(|(v, (m, r))| format!("{m}{v} + {r}"))
        .collect();
    let text = format!(
        "[{}] -> {{ {piece}[{}] -> {original}[{}] }}",
        params.join(", "),
        vars.join(", "),
        images.join(", ")
    );
    Ok(text.parse::<Map>()?)
}

/// The lexical class of a token of statement text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Identifier,
    /// A number, a string or character literal: never an iterator.
    Literal,
    Punctuator,
}

/// The tokens of a statement's C text with their byte ranges: identifiers, numbers
/// (`1.5e-3f`), string and character literals, and punctuators (two-character
/// comparison and shift operators as one). Comments are whitespace.
pub(crate) fn scan(text: &str) -> Vec<(Kind, std::ops::Range<usize>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() {
        let c = b[k];
        let start = k;
        if c.is_ascii_whitespace() {
            k += 1;
            continue;
        }
        if c == b'/' && b.get(k + 1) == Some(&b'/') {
            while k < b.len() && b[k] != b'\n' {
                k += 1;
            }
            continue;
        }
        if c == b'/' && b.get(k + 1) == Some(&b'*') {
            k += 2;
            while k < b.len() && !(b[k] == b'*' && b.get(k + 1) == Some(&b'/')) {
                k += 1;
            }
            k = (k + 2).min(b.len());
            continue;
        }
        let kind = if c == b'_' || c.is_ascii_alphabetic() {
            while k < b.len() && (b[k] == b'_' || b[k].is_ascii_alphanumeric()) {
                k += 1;
            }
            Kind::Identifier
        } else if c.is_ascii_digit() || (c == b'.' && b.get(k + 1).is_some_and(u8::is_ascii_digit))
        {
            // A preprocessing number: digits, letters, `.`, and signs after an exponent.
            k += 1;
            while k < b.len() {
                let d = b[k];
                let sign =
                    (d == b'+' || d == b'-') && matches!(b[k - 1], b'e' | b'E' | b'p' | b'P');
                if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || sign {
                    k += 1;
                } else {
                    break;
                }
            }
            Kind::Literal
        } else if c == b'"' || c == b'\'' {
            k += 1;
            while k < b.len() && b[k] != c {
                k += if b[k] == b'\\' { 2 } else { 1 };
            }
            k = (k + 1).min(b.len());
            Kind::Literal
        } else {
            let two = text.get(k..k + 2).unwrap_or("");
            k += if matches!(
                two,
                "==" | "!=" | "<=" | ">=" | "->" | "<<" | ">>" | "&&" | "||"
            ) {
                2
            } else {
                1
            };
            Kind::Punctuator
        };
        out.push((kind, start..k.min(b.len())));
    }
    out
}

/// `body` with every use of a split iterator `x` (modulus `m`, residue `r`) replaced by
/// `(m * (x) + r)`.
fn substitute(body: &str, iterators: &[String], moduli: &[i64], r: &[i64]) -> Option<String> {
    let toks = scan(body);
    let mut out = String::with_capacity(body.len() + 16);
    let mut at = 0;
    for (k, (kind, range)) in toks.iter().enumerate() {
        if *kind != Kind::Identifier {
            continue;
        }
        let word = &body[range.clone()];
        let Some(j) = iterators.iter().position(|i| i == word) else {
            continue;
        };
        if moduli[j] == 1 {
            continue;
        }
        // A member name (`p.x`, `p->x`) is not the iterator.
        if k > 0 && matches!(&body[toks[k - 1].1.clone()], "." | "->") {
            continue;
        }
        out.push_str(&body[at..range.start]);
        out.push_str(&format!("({} * ({word}) + {})", moduli[j], r[j]));
        at = range.end;
    }
    out.push_str(&body[at..]);
    Some(out)
}

/// `body` with every division and remainder of a parenthesised affine integer
/// expression by a positive integer literal, `(e) / d` or `(e) % d`, replaced by its
/// value as an affine expression, where the piece's `domain` proves `e >= 0` (so C's
/// truncating division is the floor) and `d` divides every coefficient of `e`'s
/// variables: `(2 * (y) + 1) / 2` becomes `(y)`, `((2 * (y) + 1) + 1) / 2` becomes
/// `(y + 1)` and `(2 * (x) + 1) % 2` becomes `(1)`.
///
/// After a residue split these are the divisions the split made exact; a C compiler
/// folds them only when it can prove `e >= 0` itself, and otherwise vectorizes the
/// subscripts with gathers. An operand is taken only where C's precedence makes the
/// parenthesised group the whole left operand (`a * (e) / d` and casts are left alone),
/// and only when the group holds nothing but the statement's iterators, the parameters,
/// integer literals, `+`, `-` and products by constants.
fn fold_divisions(
    body: &str,
    piece: &str,
    iterators: &[String],
    params: &[String],
    domain: &Set,
    budget: &mut Budget,
) -> Result<String> {
    let mut body = body.to_string();
    // Each fold removes a `/` or `%`: at most that many rounds.
    let mut skip = 0usize;
    loop {
        let toks = scan(&body);
        let text = |k: usize| &body[toks[k].1.clone()];
        let mut found = None;
        let mut seen = 0usize;
        for k in 1..toks.len().saturating_sub(1) {
            if !matches!(text(k), "/" | "%") {
                continue;
            }
            seen += 1;
            if seen <= skip {
                continue;
            }
            let Some(d) = integer_literal(text(k + 1)) else {
                skip += 1;
                continue;
            };
            let Some(open) = group_before(&toks, &body, k) else {
                skip += 1;
                continue;
            };
            let vars: Vec<&str> = iterators.iter().chain(params).map(String::as_str).collect();
            let Some(e) = affine_of(&toks[open + 1..k - 1], &body, &vars) else {
                skip += 1;
                continue;
            };
            found = Some((open, k, d, e));
            break;
        }
        let Some((open, k, d, (coeffs, constant))) = found else {
            return Ok(body);
        };
        let divides = d > 0 && coeffs.iter().all(|c| c % d == 0);
        if !divides
            || !non_negative(
                piece,
                iterators.len(),
                params,
                &coeffs,
                constant,
                domain,
                budget,
            )?
        {
            skip += 1;
            continue;
        }
        let names: Vec<&str> = iterators.iter().chain(params).map(String::as_str).collect();
        let value = if text(k) == "/" {
            let quotient: Vec<i64> = coeffs.iter().map(|c| c / d).collect();
            affine_text(&quotient, constant.div_euclid(d), &names)
        } else {
            constant.rem_euclid(d).to_string()
        };
        let range = toks[open].1.start..toks[k + 1].1.end;
        body.replace_range(range, &format!("({value})"));
    }
}

/// The value of a decimal integer literal without suffix, when positive.
fn integer_literal(word: &str) -> Option<i64> {
    if !word.bytes().all(|b| b.is_ascii_digit()) || word.starts_with('0') {
        return None;
    }
    word.parse().ok().filter(|&d: &i64| d > 0)
}

/// The index of the `(` opening the parenthesised group that ends just before token
/// `k` (a `/` or `%`), when that group is the whole left operand of the operator: the
/// token before it binds more loosely than `/` (an opening bracket, a comma, a binary
/// `+` or `-`, a comparison, an assignment, `?` or `:`), or there is none.
fn group_before(toks: &[(Kind, std::ops::Range<usize>)], body: &str, k: usize) -> Option<usize> {
    let text = |j: usize| &body[toks[j].1.clone()];
    if text(k - 1) != ")" {
        return None;
    }
    let mut depth = 0i64;
    let mut j = k - 1;
    let open = loop {
        match text(j) {
            ")" => depth += 1,
            "(" => {
                depth -= 1;
                if depth == 0 {
                    break j;
                }
            }
            _ => {}
        }
        j = j.checked_sub(1)?;
    };
    if open == 0 {
        return Some(open);
    }
    let before = text(open - 1);
    let loose = matches!(
        before,
        "[" | "(" | "," | "?" | ":" | "=" | "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||"
    );
    let binary = matches!(before, "+" | "-")
        && open >= 2
        && (toks[open - 2].0 != Kind::Punctuator || matches!(text(open - 2), ")" | "]"));
    (loose || binary).then_some(open)
}

/// The affine expression the tokens spell over `vars` (coefficients per variable and
/// the constant), when they hold nothing but `vars`, integer literals, parentheses,
/// `+`, `-` and products with a constant factor; `None` otherwise or on overflow.
fn affine_of(
    toks: &[(Kind, std::ops::Range<usize>)],
    body: &str,
    vars: &[&str],
) -> Option<(Vec<i64>, i64)> {
    struct P<'a> {
        toks: &'a [(Kind, std::ops::Range<usize>)],
        body: &'a str,
        vars: &'a [&'a str],
        at: usize,
    }
    type Affine = (Vec<i64>, i64);
    impl P<'_> {
        fn peek(&self) -> Option<&str> {
            self.toks.get(self.at).map(|t| &self.body[t.1.clone()])
        }
        fn expr(&mut self) -> Option<Affine> {
            let mut acc = self.term()?;
            while let Some(op) = self.peek().filter(|t| matches!(*t, "+" | "-")) {
                let sign = if op == "+" { 1 } else { -1 };
                self.at += 1;
                let t = self.term()?;
                acc = add(&acc, &scale(&t, sign)?)?;
            }
            Some(acc)
        }
        fn term(&mut self) -> Option<Affine> {
            let mut acc = self.factor()?;
            while self.peek() == Some("*") {
                self.at += 1;
                let f = self.factor()?;
                acc = if acc.0.iter().all(|&c| c == 0) {
                    scale(&f, acc.1)?
                } else if f.0.iter().all(|&c| c == 0) {
                    scale(&acc, f.1)?
                } else {
                    return None;
                };
            }
            Some(acc)
        }
        fn factor(&mut self) -> Option<Affine> {
            let word = self.peek()?.to_string();
            self.at += 1;
            match word.as_str() {
                "-" => scale(&self.factor()?, -1),
                "+" => self.factor(),
                "(" => {
                    let e = self.expr()?;
                    (self.peek() == Some(")")).then_some(())?;
                    self.at += 1;
                    Some(e)
                }
                "0" => Some((vec![0; self.vars.len()], 0)),
                w => {
                    if let Some(v) = integer_literal(w) {
                        return Some((vec![0; self.vars.len()], v));
                    }
                    let j = self.vars.iter().position(|v| *v == w)?;
                    let mut c = vec![0; self.vars.len()];
                    c[j] = 1;
                    Some((c, 0))
                }
            }
        }
    }
    fn scale(a: &Affine, f: i64) -> Option<Affine> {
        let c: Option<Vec<i64>> = a.0.iter().map(|x| x.checked_mul(f)).collect();
        Some((c?, a.1.checked_mul(f)?))
    }
    fn add(a: &Affine, b: &Affine) -> Option<Affine> {
        let c: Option<Vec<i64>> =
            a.0.iter()
                .zip(&b.0)
                .map(|(x, y)| x.checked_add(*y))
                .collect();
        Some((c?, a.1.checked_add(b.1)?))
    }
    let mut p = P {
        toks,
        body,
        vars,
        at: 0,
    };
    let e = p.expr()?;
    (p.at == toks.len()).then_some(e)
}

/// Whether `coeffs · (iterators, params) + constant >= 0` on all of `domain`.
fn non_negative(
    piece: &str,
    n_iterators: usize,
    params: &[String],
    coeffs: &[i64],
    constant: i64,
    domain: &Set,
    budget: &mut Budget,
) -> Result<bool> {
    let dims: Vec<String> = (0..n_iterators).map(|k| format!("x{k}")).collect();
    let names: Vec<&str> = dims
        .iter()
        .map(String::as_str)
        .chain(params.iter().map(String::as_str))
        .collect();
    let text = format!(
        "[{}] -> {{ {piece}[{}] : {} < 0 }}",
        params.join(", "),
        dims.join(", "),
        affine_text(coeffs, constant, &names)
    );
    let negative = text.parse::<Set>()?.intersect(domain)?;
    Ok(negative.is_empty_with(budget)?)
}

/// `coeffs · names + constant` as C (and isl) text: `y + 1`, `2 * x - 3`, `0`.
fn affine_text(coeffs: &[i64], constant: i64, names: &[&str]) -> String {
    let mut out = String::new();
    for (c, name) in coeffs.iter().zip(names) {
        if *c == 0 {
            continue;
        }
        let magnitude = c.unsigned_abs();
        let term = if magnitude == 1 {
            name.to_string()
        } else {
            format!("{magnitude} * {name}")
        };
        if out.is_empty() {
            out = if *c < 0 { format!("-{term}") } else { term };
        } else {
            out.push_str(if *c < 0 { " - " } else { " + " });
            out.push_str(&term);
        }
    }
    if out.is_empty() {
        return constant.to_string();
    }
    if constant != 0 {
        out.push_str(if constant < 0 { " - " } else { " + " });
        out.push_str(&constant.unsigned_abs().to_string());
    }
    out
}

/// `node` with each split statement's instances replaced by its pieces' in every
/// domain, filter, band and extension.
fn rewrite_node(node: &Node, pieces_of: &[(String, Vec<(String, Map)>)]) -> Result<Node> {
    let child = |c: &Node| -> Result<Box<Node>> { Ok(Box::new(rewrite_node(c, pieces_of)?)) };
    Ok(match node {
        Node::Domain { domain, child: c } => Node::Domain {
            domain: rewrite_set(domain, pieces_of)?,
            child: child(c)?,
        },
        Node::Context { context, child: c } => Node::Context {
            context: context.clone(),
            child: child(c)?,
        },
        Node::Band(b) => Node::Band(Band {
            schedule: rewrite_domain_of(&b.schedule, pieces_of)?,
            permutable: b.permutable,
            coincident: b.coincident.clone(),
            child: child(&b.child)?,
        }),
        Node::Sequence(cs) => Node::Sequence(
            cs.iter()
                .map(|c| rewrite_node(c, pieces_of))
                .collect::<Result<_>>()?,
        ),
        Node::Set(cs) => Node::Set(
            cs.iter()
                .map(|c| rewrite_node(c, pieces_of))
                .collect::<Result<_>>()?,
        ),
        Node::Filter { filter, child: c } => Node::Filter {
            filter: rewrite_set(filter, pieces_of)?,
            child: child(c)?,
        },
        Node::Mark { name, child: c } => Node::Mark {
            name: name.clone(),
            child: child(c)?,
        },
        Node::Extension {
            extension,
            child: c,
        } => Node::Extension {
            extension: rewrite_range_of(extension, pieces_of)?,
            child: child(c)?,
        },
        Node::Leaf => Node::Leaf,
    })
}

fn pieces<'a>(
    name: Option<&str>,
    pieces_of: &'a [(String, Vec<(String, Map)>)],
) -> Option<&'a [(String, Map)]> {
    let name = name?;
    pieces_of
        .iter()
        .find(|(s, _)| s == name)
        .map(|(_, p)| p.as_slice())
}

fn rewrite_set(set: &UnionSet, pieces_of: &[(String, Vec<(String, Map)>)]) -> Result<UnionSet> {
    let mut out = UnionSet::empty(set.param_names().to_vec());
    for s in set.sets() {
        let name = s
            .space()
            .range_tuple()
            .and_then(|t| t.name())
            .map(str::to_string);
        match pieces(name.as_deref(), pieces_of) {
            Some(ps) => {
                for (_, to_original) in ps {
                    out.add_set(s.apply(&to_original.reverse())?)?;
                }
            }
            None => out.add_set(s)?,
        }
    }
    Ok(out)
}

/// `{ S[i] -> t }` becomes `{ S_r[x'] -> t(m x' + r) }` for each piece.
fn rewrite_domain_of(m: &UnionMap, pieces_of: &[(String, Vec<(String, Map)>)]) -> Result<UnionMap> {
    let mut out = UnionMap::empty(m.param_names().to_vec());
    for x in m.maps() {
        let name = x.space().domain_tuple().and_then(|t| t.name());
        match pieces(name, pieces_of) {
            Some(ps) => {
                for (_, to_original) in ps {
                    out.add_map(to_original.apply_range(x)?)?;
                }
            }
            None => out.add_map(x.clone())?,
        }
    }
    Ok(out)
}

/// `{ o -> S[i] }` becomes `{ o -> S_r[x'] }` for each piece.
fn rewrite_range_of(m: &UnionMap, pieces_of: &[(String, Vec<(String, Map)>)]) -> Result<UnionMap> {
    let mut out = UnionMap::empty(m.param_names().to_vec());
    for x in m.maps() {
        let name = x.space().range_tuple().and_then(|t| t.name());
        match pieces(name, pieces_of) {
            Some(ps) => {
                for (_, to_original) in ps {
                    out.add_map(x.apply_range(&to_original.reverse())?)?;
                }
            }
            None => out.add_map(x.clone())?,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moduli_and_text() {
        assert_eq!(gcd(6, 4), 2);
        assert_eq!(lcm(2, 3), 6);
        assert_eq!(
            substitute(
                "a[x][y] = u[x][y / 2] + p.y;",
                &["x".into(), "y".into()],
                &[1, 2],
                &[0, 1]
            )
            .as_deref(),
            Some("a[x][(2 * (y) + 1)] = u[x][(2 * (y) + 1) / 2] + p.y;")
        );
        // Numbers, literals and comments are not iterators.
        assert_eq!(
            substitute(
                "a[y] = 1e-3f * y + \"y\"[0] /* y */ + 'y';",
                &["y".into()],
                &[2],
                &[0]
            )
            .as_deref(),
            Some("a[(2 * (y) + 0)] = 1e-3f * (2 * (y) + 0) + \"y\"[0] /* y */ + 'y';")
        );
        let kinds: Vec<Kind> = scan("c<=2?x:-y").into_iter().map(|(k, _)| k).collect();
        assert_eq!(kinds.len(), 8);
        assert_eq!(kinds[1], Kind::Punctuator);
        assert_eq!(fresh_name("S1", &[0, 1], &BTreeSet::new()), "S1_0_1");
        let taken = BTreeSet::from(["S1_0".to_string()]);
        assert_eq!(fresh_name("S1", &[0], &taken), "S1_0r");
    }

    fn fold(body: &str, domain: &str) -> String {
        let domain: Set = domain.parse().unwrap();
        let iterators = ["x".to_string(), "y".to_string()];
        fold_divisions(
            body,
            "S",
            &iterators,
            &["n".to_string()],
            &domain,
            &mut Budget::unlimited(),
        )
        .unwrap()
    }

    #[test]
    fn exact_divisions_of_non_negative_groups_are_folded() {
        let domain = "[n] -> { S[x, y] : 0 <= x < n and 0 <= y < n }";
        assert_eq!(
            fold(
                "a[x] = u[(2 * (y) + 1) / 2] + u[((2 * (y) + 1) + 1) / 2];",
                domain
            ),
            "a[x] = u[(y)] + u[(y + 1)];"
        );
        assert_eq!(fold("a[(2 * (x) + 1) % 2] = 0;", domain), "a[(1)] = 0;");
        assert_eq!(
            fold("a[(4 * x - 2 * n + 2 * n + 7) / 2] = 0;", domain),
            "a[(2 * x + 3)] = 0;"
        );
        // Nested: the inner division is folded first, then the outer one.
        assert_eq!(
            fold("a[((4 * (x) + 2) / 2 + 2 * y) / 2] = 0;", domain),
            "a[(x + y)] = 0;"
        );
    }

    #[test]
    fn divisions_that_are_not_provably_exact_floors_stay() {
        let domain = "[n] -> { S[x, y] : -2 <= x < n and 0 <= y < n }";
        for body in [
            // The group may be negative: C truncates, the floor would differ.
            "a[(2 * (x) + 1) / 2] = 0;",
            // The divisor does not divide the coefficient.
            "a[(3 * (y) + 1) / 2] = 0;",
            // `a * (e) / 2` is `(a * (e)) / 2`; a cast binds tighter than `/`.
            "a[n * (2 * (y) + 1) / 2] = 0;",
            "b = (float)(2 * (y)) / 2;",
            "b = -(2 * (y)) / 2;",
            "b = !(2 * (y)) / 2;",
            // Not an integer literal, not an affine group.
            "b = (2 * (y)) / 2.0f;",
            "b = (2 * (y)) / 2u;",
            "b = (2 * y * y) / 2;",
            "b = (2 * c[y]) / 2;",
            "b = f(2 * y) / 2;",
        ] {
            assert_eq!(fold(body, domain), body, "{body}");
        }
        // A binary minus before the group is looser than `/`.
        assert_eq!(fold("b = y - (2 * (y)) / 2;", domain), "b = y - (y);");
    }
}
