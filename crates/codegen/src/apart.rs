//! Whether two element references of the statement instances in a loop body can ever be
//! the same element.
//!
//! The C emitter keeps elements of written arrays in variables across an innermost loop
//! (a reduction's accumulator) or through one iteration of its body, which is only
//! right when every other reference to the array in the body misses those elements.
//! The emitter is a printer: it asks the question through [`Apart`], and its caller
//! chooses the answer. [`NeverProved`] proves nothing (the emitter then relies on its
//! own textual test alone); [`ByDomains`] proves it with the Presburger library.
//!
//! # The question
//! Two references, each of an instance of the loop body: a statement, its arguments (the
//! values of the statement's iterators, affine in the loop iterators and the
//! parameters) and the reference's subscripts (likewise). They are *apart* when no
//! values of the iterators and parameters put both instances' arguments inside their
//! statements' domains and make every pair of subscripts equal. Every instance of an
//! innermost body of instances runs in each iteration of the loop, so two references
//! that are apart never touch the same element in one iteration, and an invariant
//! reference (the same element in every iteration) that is apart from a moving one is
//! never touched by it in any iteration. Identifiers that are neither iterators nor
//! parameters (macros, constants) stand for any value.

use std::collections::{BTreeMap, BTreeSet};

use pollen_presburger::text::{parse_map, parse_set};
use pollen_presburger::{Budget, Set};
use pollen_scop::{Scop, Statement};

use crate::Expr;

/// One element reference of a statement instance.
#[derive(Clone, Copy, Debug)]
pub struct Element<'a> {
    /// The instance's statement.
    pub statement: &'a Statement,
    /// The values of the statement's iterators.
    pub args: &'a [Expr],
    /// The reference's subscripts, over the loop iterators and the parameters.
    pub subscripts: &'a [Expr],
}

/// An answer to "can these two references be the same element?".
pub trait Apart {
    /// Whether `a` and `b` are proved never to be the same element (see the module
    /// documentation); `false` when that is not known.
    fn apart(&self, scop: &Scop, a: Element, b: Element) -> bool;

    /// Whether `goal >= 0` at every integer point (every value of every name) where each
    /// expression of `context` is `>= 0`; `false` when that is not known. The emitter
    /// asks it of the loops between a reduction's accumulators and their innermost loop:
    /// that each runs at least once whatever the iterations of those around it.
    fn implied(&self, context: &[Expr], goal: &Expr) -> bool {
        let _ = (context, goal);
        false
    }
}

/// Proves nothing: every pair may meet.
#[derive(Clone, Copy, Debug, Default)]
pub struct NeverProved;

impl Apart for NeverProved {
    fn apart(&self, _: &Scop, _: Element, _: Element) -> bool {
        false
    }
}

/// Proves with the Presburger library that the set of iterator and parameter values at
/// which both instances run and all subscripts agree is empty, within a budget of
/// solver steps (over it, or with an argument or subscript that is not affine, nothing
/// is proved).
#[derive(Clone, Copy, Debug)]
pub struct ByDomains {
    /// The solver steps one question may take.
    pub steps: u64,
}

impl Default for ByDomains {
    fn default() -> ByDomains {
        ByDomains { steps: 200_000 }
    }
}

impl Apart for ByDomains {
    fn apart(&self, scop: &Scop, a: Element, b: Element) -> bool {
        meeting_points(scop, a, b)
            .and_then(|points| points.is_empty_with(&mut Budget::new(self.steps)).ok())
            .unwrap_or(false)
    }

    fn implied(&self, context: &[Expr], goal: &Expr) -> bool {
        counterexamples(context, goal)
            .and_then(|points| points.is_empty_with(&mut Budget::new(self.steps)).ok())
            .unwrap_or(false)
    }
}

/// The integer points where every expression of `context` is `>= 0` and `goal < 0`, or
/// `None` when the question cannot be put (not affine, names the set syntax cannot hold,
/// a library error).
fn counterexamples(context: &[Expr], goal: &Expr) -> Option<Set> {
    let forms: Vec<Affine> = context.iter().map(affine).collect::<Option<_>>()?;
    let goal = affine(goal)?;
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for (_, terms) in forms.iter().chain(std::iter::once(&goal)) {
        names.extend(terms.keys().map(String::as_str));
    }
    if !names.iter().all(|n| plain_name(n)) {
        return None;
    }
    let mut constraints: Vec<String> = forms.iter().map(|f| format!("{} >= 0", text(f))).collect();
    constraints.push(format!("{} < 0", text(&goal)));
    let tuple = names.into_iter().collect::<Vec<_>>().join(", ");
    parse_set(&format!("{{ [{tuple}] : {} }}", constraints.join(" and "))).ok()
}

/// An affine expression: the constant and the coefficient of each name.
type Affine = (i128, BTreeMap<String, i128>);

/// The values of the iterators (and parameters) at which both instances run and their
/// subscripts agree, or `None` when the question cannot be put (not affine, names the
/// set syntax cannot hold, a library error).
fn meeting_points(scop: &Scop, a: Element, b: Element) -> Option<Set> {
    if a.subscripts.len() != b.subscripts.len() {
        return None;
    }
    let forms = |es: &[Expr]| -> Option<Vec<Affine>> { es.iter().map(affine).collect() };
    let (args_a, args_b) = (forms(a.args)?, forms(b.args)?);
    let (subs_a, subs_b) = (forms(a.subscripts)?, forms(b.subscripts)?);
    let mut variables: BTreeSet<&str> = BTreeSet::new();
    for (_, terms) in args_a.iter().chain(&args_b).chain(&subs_a).chain(&subs_b) {
        for v in terms.keys() {
            if !scop.params.contains(v) {
                variables.insert(v);
            }
        }
    }
    let names = variables
        .iter()
        .copied()
        .chain(scop.params.iter().map(String::as_str));
    for v in names {
        if !plain_name(v) {
            return None;
        }
    }
    let params = scop.params.join(", ");
    let tuple = variables.iter().copied().collect::<Vec<_>>().join(", ");
    let mut points = parse_set(&format!("[{params}] -> {{ [{tuple}] }}")).ok()?;
    for (statement, args) in [(a.statement, &args_a), (b.statement, &args_b)] {
        let outs: Vec<String> = (0..args.len()).map(|d| format!("pollen_o{d}")).collect();
        let equalities: Vec<String> = outs
            .iter()
            .zip(args.iter())
            .map(|(o, e)| format!("{o} = {}", text(e)))
            .collect();
        let constraints = if equalities.is_empty() {
            String::new()
        } else {
            format!(" : {}", equalities.join(" and "))
        };
        let map = parse_map(&format!(
            "[{params}] -> {{ [{tuple}] -> {}[{}]{constraints} }}",
            statement.name,
            outs.join(", ")
        ))
        .ok()?;
        let domain = statement.domain.as_map().align_params(&scop.params).ok()?;
        let inside = Set::from_map(map.intersect_range(&domain).ok()?.domain()).ok()?;
        points = points.intersect(&inside).ok()?;
    }
    let equal: Vec<String> = subs_a
        .iter()
        .zip(&subs_b)
        .map(|(x, y)| format!("{} = {}", text(x), text(y)))
        .collect();
    if !equal.is_empty() {
        let same = parse_set(&format!(
            "[{params}] -> {{ [{tuple}] : {} }}",
            equal.join(" and ")
        ))
        .ok()?;
        points = points.intersect(&same).ok()?;
    }
    Some(points)
}

/// Whether a name can stand in the set syntax as it is: an identifier that is not a
/// keyword of the syntax and not one of the names this module makes up.
fn plain_name(name: &str) -> bool {
    const KEYWORDS: [&str; 10] = [
        "and", "or", "not", "exists", "mod", "floor", "ceil", "min", "max", "true",
    ];
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
        && !name.starts_with("pollen_o")
}

/// `c + k*v + ...` in the set syntax.
fn text((constant, terms): &Affine) -> String {
    let mut out = constant.to_string();
    for (v, k) in terms {
        out.push_str(&format!(" + {k}*{v}"));
    }
    out
}

/// The affine form of an expression, when it is one (sums, integer multiples, names and
/// integers).
pub fn affine(e: &Expr) -> Option<(i128, BTreeMap<String, i128>)> {
    let mut terms = BTreeMap::new();
    let constant = affine_into(e, 1, &mut terms)?;
    terms.retain(|_, c| *c != 0);
    Some((constant, terms))
}

fn affine_into(e: &Expr, factor: i128, terms: &mut BTreeMap<String, i128>) -> Option<i128> {
    let int = |c: &pollen_arith::Int| c.to_string().parse::<i128>().ok();
    match e {
        Expr::Int(c) => factor.checked_mul(int(c)?),
        Expr::Var(v) => {
            let t = terms.entry(v.clone()).or_insert(0);
            *t = t.checked_add(factor)?;
            Some(0)
        }
        Expr::Add(es) => es.iter().try_fold(0i128, |acc, x| {
            acc.checked_add(affine_into(x, factor, terms)?)
        }),
        Expr::Mul(c, x) => affine_into(x, factor.checked_mul(int(c)?)?, terms),
        _ => None,
    }
}
