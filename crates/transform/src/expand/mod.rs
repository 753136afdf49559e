//! Scalar expansion: a scalar that every iteration of an outer loop sets before it uses
//! it becomes an array indexed by that loop's iterator, so that the scalar no longer
//! orders the loop's iterations.
//!
//! In a recursive filter
//! ```c
//! for (i = 0; i < W; i++) {
//!   ym1 = 0;
//!   for (j = 0; j < H; j++) { y[i][j] = a * x[i][j] + b * ym1; ym1 = y[i][j]; }
//! }
//! ```
//! the scalar `ym1` carries a value from `j` to `j + 1` only, but its anti and output
//! dependences order every iteration of `i` after the previous one. Written as
//! `ym1_x[i]` it leaves the `i` loop parallel, and lets a scheduler move `i` inward.
//!
//! # When a scalar is expanded
//! The scalar `s` must be written in the region and dead outside it (the caller says
//! which are: a variable of the enclosing function that no code outside the region
//! mentions, or one the region declares). An analysis that runs out of its budget
//! expands nothing. Its accesses fall into webs: statements joined by the value-based flow
//! dependences through `s`. A web is expanded along the first iterator of its
//! statements when
//! - every flow dependence of the web joins instances with equal first iterators (the
//!   value never crosses an iteration of that loop);
//! - every read of `s` in the web reads a value written in the region (no read of the
//!   value `s` had before it);
//! - every statement of the web has the first iterator bounded by `0` below and by one
//!   affine expression of the parameters above, the same for all (the array's extent);
//! - some statement of the web lies in an inner loop too (the scalar carries a value
//!   through the iterations of an inner loop, as a filter's state does).
//!
//! # Why the values are kept
//! Each read had as its source the last write of `s` before it; that write has the
//! same first iterator and belongs to the same web, so it is also the last write of
//! `s_x[i]` before the read, and no other web touches `s_x`. The dependences of the
//! rewritten scop (through `s_x[i]`) order the new program, and `s`'s final value is not
//! needed. Each web gets an array of its own.

use std::collections::{BTreeMap, BTreeSet};

use pollen_deps::{Analysis, DepKind};
use pollen_presburger::text::parse_map;
use pollen_presburger::{Budget, DimKind, Int, Map, Set};
use pollen_scop::{AccessKind, Array, Scop};

use crate::error::{Error, Result};

mod arrays;

pub use arrays::expand_arrays;

/// One web of a scalar, or one array, made into an array with one more dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// The scalar or array.
    pub variable: String,
    /// The array that replaces it in the web's statements, indexed by their first
    /// iterator (then by the array's own subscripts).
    pub array: String,
    /// The extent of the new first dimension, C text over the parameters.
    pub extent: String,
    /// The web's statements.
    pub statements: Vec<String>,
    /// The statement that copies the last iteration's elements back into the array
    /// after the loop, when its values are needed after the region.
    pub copy_out: Option<String>,
}

/// The scop with the webs of the `dead` scalars that can be expanded (see the module
/// documentation) rewritten: the statements' text and accesses refer to the new arrays,
/// which the scop lists as arrays the region declares ([`Array::local`]).
pub fn expand_scalars(
    scop: &Scop,
    dead: &BTreeSet<String>,
    budget: &mut Budget,
) -> Result<(Scop, Vec<Expansion>)> {
    let written = |name: &str| {
        scop.statements.iter().any(|s| {
            s.accesses
                .iter()
                .any(|a| a.array == name && a.kind == AccessKind::Write)
        })
    };
    let candidates: Vec<&Array> = scop
        .arrays
        .iter()
        .filter(|a| {
            a.extents.is_empty() && dead.contains(&a.name) && declarable(a) && written(&a.name)
        })
        .collect();
    if candidates.is_empty() {
        return Ok((scop.clone(), Vec::new()));
    }
    // The expansion is an optimization: when its analysis runs out of steps, nothing is
    // expanded (the stages after it meet their own limits).
    let Some(deps) = value_deps(scop, budget)? else {
        return Ok((scop.clone(), Vec::new()));
    };
    let mut taken: BTreeSet<String> = words(scop);
    let mut out = scop.clone();
    let mut expansions = Vec::new();
    for scalar in candidates {
        let flows: Vec<_> = deps
            .iter()
            .filter(|d| d.kind == DepKind::Flow && d.array == scalar.name)
            .collect();
        let users: Vec<&str> = scop
            .statements
            .iter()
            .filter(|s| s.accesses.iter().any(|a| a.array == scalar.name))
            .map(|s| s.name.as_str())
            .collect();
        for web in webs(
            &users,
            flows.iter().map(|d| (d.source.as_str(), d.target.as_str())),
        ) {
            let web_flows: Vec<(&str, &Map)> = flows
                .iter()
                .filter(|d| web.contains(&d.source.as_str()))
                .map(|d| (d.target.as_str(), &d.relation))
                .collect();
            let extent = match expandable(scop, &scalar.name, &web, &web_flows, budget) {
                Ok(Some(extent)) => extent,
                Ok(None) | Err(Error::LimitExceeded) => continue,
                Err(e) => return Err(e),
            };
            let array = fresh(&format!("{}_x", scalar.name), &mut taken);
            rewrite(&mut out, &scalar.name, &array, &web)?;
            out.arrays.push(Array {
                name: array.clone(),
                element_type: scalar.element_type.clone(),
                extents: vec![extent.clone()],
                local: true,
            });
            expansions.push(Expansion {
                variable: scalar.name.clone(),
                array,
                extent,
                statements: web.iter().map(|s| s.to_string()).collect(),
                copy_out: None,
            });
        }
    }
    Ok((out, expansions))
}

/// Whether the element type is words only (a declaration can be printed).
fn declarable(a: &Array) -> bool {
    let words: Vec<&str> = a.element_type.split_whitespace().collect();
    !words.is_empty()
        && words.iter().all(|w| {
            w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !w.starts_with(|c: char| c.is_ascii_digit())
        })
        && !words.contains(&"const")
        && !words.contains(&"volatile")
}

/// The statements joined by the flow dependences, as groups (union-find).
fn webs<'a>(
    users: &[&'a str],
    flows: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<Vec<&'a str>> {
    let mut parent: Vec<usize> = (0..users.len()).collect();
    fn root(parent: &mut [usize], mut k: usize) -> usize {
        while parent[k] != k {
            parent[k] = parent[parent[k]];
            k = parent[k];
        }
        k
    }
    let index = |s: &str| users.iter().position(|u| *u == s);
    for (a, b) in flows {
        if let (Some(a), Some(b)) = (index(a), index(b)) {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra] = rb;
        }
    }
    let mut groups: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for (k, u) in users.iter().enumerate() {
        let r = root(&mut parent, k);
        groups.entry(r).or_default().push(u);
    }
    groups.into_values().collect()
}

/// The extent of the expansion of a web, when the web can be expanded.
fn expandable(
    scop: &Scop,
    scalar: &str,
    web: &[&str],
    flows: &[(&str, &Map)],
    budget: &mut Budget,
) -> Result<Option<String>> {
    let statements: Vec<_> = web.iter().filter_map(|s| scop.statement(s)).collect();
    if statements.len() != web.len() || statements.iter().any(|s| s.iterators.is_empty()) {
        return Ok(None);
    }
    // The scalar must live across an inner loop (a recurrence within each iteration):
    // a temporary of one iteration of a single loop would cost an array as long as the
    // loop for what a private variable does.
    if statements.iter().all(|s| s.iterators.len() < 2) {
        return Ok(None);
    }
    // Flow dependences stay within one iteration of the first loop.
    for (_, relation) in flows {
        let same = relation.equate(DimKind::In, 0, DimKind::Out, 0)?;
        if !relation.is_subset_with(&same, budget)? {
            return Ok(None);
        }
    }
    // Every read of the scalar has a source in the region.
    for s in &statements {
        let reads = s
            .accesses
            .iter()
            .any(|a| a.array == scalar && a.kind == AccessKind::Read);
        if !reads {
            continue;
        }
        let into = flows.iter().filter(|(t, _)| *t == s.name).map(|(_, r)| *r);
        if !covered_by(&s.domain, into, budget)? {
            return Ok(None);
        }
    }
    // The first iterator lies in [0, e(params)] for one `e` shared by the statements.
    let mut extent: Option<String> = None;
    for s in &statements {
        let below = s.domain.upper_bound_val(DimKind::Out, 0, &Int::from(-1))?;
        if !below.is_empty_with(budget)? {
            return Ok(None);
        }
        let Some(Bound { extent: e, .. }) = upper_bound(&s.domain, &scop.params, budget)? else {
            return Ok(None);
        };
        match &extent {
            None => extent = Some(e),
            Some(other) if *other == e => {}
            Some(_) => return Ok(None),
        }
    }
    Ok(extent)
}

/// The largest value of a set's first dimension, as C text over one parameter.
struct Bound {
    /// `last + 1`: the extent of an array indexed by the dimension.
    extent: String,
    /// `p`, `p - 1` or `p - 2` for a parameter `p`.
    last: String,
}

/// The array extent `e` (C text) when every point of `domain` has its first dimension
/// at most `e - 1`, and some has it equal, with `e - 1` one of `p`, `p - 1`, `p - 2` for a
/// parameter `p`; checked exactly.
fn upper_bound(domain: &Set, params: &[String], budget: &mut Budget) -> Result<Option<Bound>> {
    let domain = Set::from_map(domain.as_map().align_params(params)?)?;
    let names: Vec<String> = (0..domain.n_dims()).map(|d| format!("x{d}")).collect();
    let in_domain_space = |constraint: &str| -> Result<Set> {
        let set = pollen_presburger::text::parse_set(&format!(
            "[{}] -> {{ [{}] : {constraint} }}",
            params.join(", "),
            names.join(", ")
        ))?;
        Ok(Set::from_map(
            set.into_map().with_space(domain.as_map().space().clone()),
        )?)
    };
    for p in params {
        for c in 0..=2i64 {
            let bound = if c == 0 {
                p.clone()
            } else {
                format!("{p} - {c}")
            };
            let above = in_domain_space(&format!("x0 > {bound}"))?;
            if !domain.intersect(&above)?.is_empty_with(budget)? {
                continue;
            }
            let at = in_domain_space(&format!("x0 = {bound}"))?;
            if domain.intersect(&at)?.is_empty_with(budget)? {
                continue;
            }
            let extent = match c {
                0 => format!("{p} + 1"),
                1 => p.clone(),
                _ => format!("{p} - 1"),
            };
            return Ok(Some(Bound {
                extent,
                last: bound,
            }));
        }
    }
    Ok(None)
}

/// The scop's words: array, parameter and iterator names and every identifier of the
/// statements' text.
fn words(scop: &Scop) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = scop.arrays.iter().map(|a| a.name.clone()).collect();
    out.extend(scop.params.iter().cloned());
    for s in &scop.statements {
        out.extend(s.iterators.iter().cloned());
        for (kind, range) in crate::residues::scan(&s.body) {
            if kind == crate::residues::Kind::Identifier {
                out.insert(s.body[range].to_string());
            }
        }
    }
    out
}

/// `stem`, or `stem1`, `stem2`, ...: the first that is not taken (then it is).
fn fresh(stem: &str, taken: &mut BTreeSet<String>) -> String {
    let mut name = stem.to_string();
    let mut k = 1;
    while taken.contains(&name) {
        name = format!("{stem}{k}");
        k += 1;
    }
    taken.insert(name.clone());
    name
}

/// The value-based dependences of `scop`, or `None` when their analysis runs out of
/// steps.
fn value_deps(scop: &Scop, budget: &mut Budget) -> Result<Option<pollen_deps::Dependences>> {
    match pollen_deps::analyze_with(scop, Analysis::ValueBased, budget) {
        Ok(deps) => Ok(Some(deps)),
        Err(pollen_deps::Error::LimitExceeded)
        | Err(pollen_deps::Error::Presburger(pollen_presburger::Error::LimitExceeded)) => Ok(None),
        Err(e) => Err(Error::Dependences(e.to_string())),
    }
}

/// Whether every instance of `domain` is the target of one of the flow relations `into`.
fn covered_by<'a>(
    domain: &Set,
    into: impl Iterator<Item = &'a Map>,
    budget: &mut Budget,
) -> Result<bool> {
    let mut covered: Option<Map> = None;
    for relation in into {
        let range = relation.range();
        covered = Some(match covered {
            None => range,
            Some(c) => c.union(&range)?,
        });
    }
    match covered {
        Some(covered) => Ok(domain.as_map().is_subset_with(&covered, budget)?),
        None => Ok(false),
    }
}

/// `body` with every use of the variable `name` (not a member of a struct) replaced by
/// `array[first]`: `sum[p]` becomes `sum_x[r][p]`.
fn indexed_by_first(body: &str, name: &str, array: &str, first: &str) -> String {
    let tokens = crate::residues::scan(body);
    let mut out = String::with_capacity(body.len() + 16);
    let mut at = 0;
    for (k, (kind, range)) in tokens.iter().enumerate() {
        if *kind != crate::residues::Kind::Identifier || body[range.clone()] != *name {
            continue;
        }
        let member = k > 0 && matches!(&body[tokens[k - 1].1.clone()], "." | "->");
        if member {
            continue;
        }
        out.push_str(&body[at..range.start]);
        out.push_str(&format!("{array}[{first}]"));
        at = range.end;
    }
    out.push_str(&body[at..]);
    out
}

/// The web's statements with the scalar replaced by `array[i]` (`i` each statement's
/// first iterator) in their text and accesses.
fn rewrite(scop: &mut Scop, scalar: &str, array: &str, web: &[&str]) -> Result<()> {
    let params = scop.params.join(", ");
    for s in scop
        .statements
        .iter_mut()
        .filter(|s| web.contains(&s.name.as_str()))
    {
        s.body = indexed_by_first(&s.body, scalar, array, &s.iterators[0]);
        let dims: Vec<String> = (0..s.iterators.len()).map(|d| format!("i{d}")).collect();
        for access in s.accesses.iter_mut().filter(|a| a.array == scalar) {
            let map = parse_map(&format!(
                "[{params}] -> {{ {}[{}] -> {array}[i0] }}",
                s.name,
                dims.join(", ")
            ))?;
            let map = map.align_params(&scop.params)?;
            let domain = access.relation.domain();
            access.relation = map.intersect_domain(&domain)?;
            access.array = array.to_string();
        }
    }
    Ok(())
}
