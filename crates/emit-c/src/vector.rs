//! Vector accumulators: a reduction over outer loops kept in vector registers.
//!
//! A loop `L` whose body leads, through loops and guards only (a *chain*: each body is
//! one loop or one `if` without `else`), to an innermost vectorisable loop `V` of
//! statement instances, as in a convolution or a matrix product
//! ```text
//!   for (c ...) for (kh ...) for (kw ...)        (L and the chain)
//!     for (w = lo; w <= hi; w++)                  (V)
//!       Y[k][h][w] += P[c][h + kh][w + kw] * Wt[k][c][kh][kw];
//! ```
//! is printed, with [`crate::EmitOptions::vector_registers`], as strips of `V`'s
//! iterations moved outside the chain, each strip's elements of the written arrays
//! held in variables of a vector type across the whole chain:
//! ```text
//!   for (s = lo; s <= hi - (M·N - 1); s += M·N) {      (M vectors of N elements)
//!     acc_m = Y[k][h][s + m·N .. s + m·N + N - 1]       (loaded once)
//!     for (c ...) for (kh ...) for (kw ...)
//!       acc_m += P[c][h + kh][s + m·N + kw ..] * Wt[k][c][kh][kw];
//!     Y[k][h][s + m·N ..] = acc_m                       (stored once)
//!   }
//!   the same with M = 1, then the original nest for the last iterations of V
//! ```
//! The vector type is GCC's `vector_size` extension (gcc and clang), unaligned
//! (`aligned(sizeof(T))`) and `may_alias`, so that its loads and stores are plain
//! element accesses. A chain qualifies when
//! - `V` has stride 1 and bounds that no loop of the chain moves; the loops of the chain
//!   and its guards run the same way for every iteration of `L` (their conditions do
//!   not depend on the chain's iterators, or always hold), so that one guard before the
//!   strips says whether any instance runs, and an element is loaded only when the
//!   chain certainly updates it;
//! - every statement instance of `V` is `R op E` with `op` one of `=`, `+=`, `-=`,
//!   `*=`, `/=`, and `E` made of array references, `+ - * /` and parentheses only (no
//!   literal, whose type could widen the arithmetic; no call); every array referenced
//!   has the element type of `R`'s;
//! - every reference to an array written in `V` (the *accumulators*) has subscripts
//!   that no loop of the chain moves, its last subscript `w + e` (`w` being `V`'s
//!   iterator, with coefficient 1) and the others independent of `w`; two accumulators
//!   of one array differ by a non-zero constant in a subscript other than the last, so
//!   that their strips never overlap;
//! - every other reference either does not depend on `w` (a scalar, broadcast to every
//!   element) or has the others independent of `w` and its last subscript `w + e` (a
//!   vector load) or `a·w + e` with another constant `a` (a vector gathered element by
//!   element in a GNU statement expression); every right-hand side holds a vector
//!   operand.
//!
//! # Why the values are the same
//! The written arrays are only accessed through the accumulators, whose element in
//! lane `j` of a strip is the one of `V`'s iteration `s + j`; the other arrays are only
//! read. So the instances of different iterations of `V` never touch a common written
//! element, and each element sees exactly the operations it saw before, in the same
//! order (the chain's iterations in order, the instances in order), each evaluated
//! lane by lane as before: `acc += a * b` is `acc = acc + (a * b)` element by element.
//! Only the interleaving of different elements' operations changes, and no value
//! depends on it. Distinct arrays never alias (the model's assumption).

use std::collections::BTreeSet;
use std::ops::Range;

use pollen_codegen::apart::affine;
use pollen_codegen::{Ast, Cond, Expr, Loop};
use pollen_scop::{AccessKind, Scop};

use crate::scalar::{declarable, distinct, element_type, instances_only, subscripts, Instance};
use crate::scan;

/// The bytes of one vector (eight `float`s, four `double`s).
pub(crate) const VECTOR_BYTES: usize = 32;

/// The most vector variables a strip holds (registers left for the operands).
pub(crate) const MAX_VARIABLES: usize = 12;

/// The most vectors per accumulator in a strip.
const MAX_GROUPS: usize = 4;

/// The number of iterations of an enclosing loop run side by side (copies of the
/// chain's statements with independent accumulators).
pub(crate) const JAM: usize = 2;

/// One node between `L` and `V`: a loop or a guard.
pub(crate) enum Link<'a> {
    For(&'a Loop),
    If(&'a Cond),
}

/// The chain from `l` down to its innermost vectorisable loop, when `l`'s body is one.
pub(crate) fn chain(l: &Loop) -> Option<(Vec<Link<'_>>, &Loop)> {
    let mut links = vec![Link::For(l)];
    let mut at: &Ast = &l.body;
    loop {
        match unwrap(at) {
            Ast::For(inner) => {
                let mut users = Vec::new();
                if instances_only(&inner.body, &mut users) {
                    return (inner.vectorizable && !users.is_empty()).then_some((links, inner));
                }
                links.push(Link::For(inner));
                at = &inner.body;
            }
            Ast::If {
                cond,
                then,
                otherwise: None,
            } => {
                links.push(Link::If(cond));
                at = then;
            }
            _ => return None,
        }
    }
}

/// The iterators of the chain's loops.
pub(crate) fn iterators<'a>(links: &[Link<'a>]) -> Vec<&'a str> {
    links
        .iter()
        .filter_map(|k| match k {
            Link::For(l) => Some(l.iterator.as_str()),
            Link::If(_) => None,
        })
        .collect()
}

/// The condition under which every iteration of the chain reaches `v` (the chain's
/// loops run and its guards hold), or `None` when the chain does not qualify (see the
/// module documentation).
pub(crate) fn guard(links: &[Link], v: &Loop) -> Option<Cond> {
    let its = iterators(links);
    if !v.stride.is_one()
        || its
            .iter()
            .any(|it| v.lower.mentions(it) || v.upper.mentions(it))
    {
        return None;
    }
    let mut conds = Vec::new();
    for link in links {
        let c = match link {
            Link::For(l) => {
                if !l.stride.is_positive() {
                    return None;
                }
                runs(l)
            }
            Link::If(c) => (*c).clone(),
        };
        if its.iter().any(|it| c.mentions(it)) {
            if !always(&c) {
                return None;
            }
            continue;
        }
        conds.push(c);
    }
    Some(Cond::And(conds))
}

/// `l` runs at least once: `upper - lower >= 0`.
pub(crate) fn runs(l: &Loop) -> Cond {
    Cond::NonNegative(Expr::Add(vec![
        l.upper.clone(),
        Expr::Mul(-pollen_arith::Int::one(), Box::new(l.lower.clone())),
    ]))
}

/// Whether a condition holds whatever the values of its names (its affine forms are
/// constants).
fn always(c: &Cond) -> bool {
    match c {
        Cond::NonNegative(e) => matches!(affine(e), Some((k, t)) if t.is_empty() && k >= 0),
        Cond::Zero(e) => matches!(affine(e), Some((0, t)) if t.is_empty()),
        Cond::And(v) => v.iter().all(always),
        Cond::Or(v) => v.iter().any(always),
    }
}

fn unwrap(ast: &Ast) -> &Ast {
    match ast {
        Ast::Block(children) if children.len() == 1 => unwrap(&children[0]),
        _ => ast,
    }
}

/// What a reference of `V`'s body becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operand {
    /// The vector variable of accumulator `k`.
    Accumulator(usize),
    /// A vector loaded from the strip's elements.
    Lane,
    /// A vector gathered element by element: the last subscript moves by a constant
    /// other than 1 with `V`'s iterator (a strided convolution's input).
    Gather,
    /// The same element in every lane.
    Scalar,
}

/// How the instances of `V` are printed with vector accumulators.
pub(crate) struct Analysis {
    /// The element type of every array referenced.
    pub element_type: String,
    /// The distinct accumulators: the instance and token range of the first reference
    /// to each.
    pub accumulators: Vec<(usize, Range<usize>)>,
    /// Each accumulator's array and subscripts.
    pub elements: Vec<(String, Vec<Expr>)>,
    /// Per instance, its references in order with what each becomes.
    pub operands: Vec<Vec<(Range<usize>, Operand)>>,
}

impl Analysis {
    /// The number of vectors per accumulator in a full strip, with `copies` copies of
    /// each accumulator.
    pub fn groups(&self, copies: usize) -> usize {
        (MAX_VARIABLES / (self.accumulators.len() * copies)).clamp(1, MAX_GROUPS)
    }
}

/// An accumulator found: its first reference's instance and tokens, its element, its
/// array and subscripts.
type Found = (usize, Range<usize>, String, String, Vec<Expr>);

/// The plan for the instances of `V` (iterator `v`) under a chain with iterators
/// `chain`, or `None` when they do not qualify (see the module documentation). The
/// instances must have been built with `v` printed as one name.
pub(crate) fn analyse(
    scop: &Scop,
    instances: &[Instance],
    chain: &[&str],
    v: &str,
) -> Option<Analysis> {
    let written: BTreeSet<&str> = instances
        .iter()
        .flat_map(|i| &i.statement.accesses)
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.array.as_str())
        .collect();
    let moves = |e: &Expr| chain.iter().any(|it| e.mentions(it));
    // The last subscript is `v + e` with `e` free of `v` and of the chain.
    let lane_subscript =
        |e: &Expr| matches!(affine(e), Some((_, terms)) if terms.get(v) == Some(&1)) && !moves(e);
    let mut element: Option<String> = None;
    let mut accumulators: Vec<Found> = Vec::new();
    let mut operands = Vec::new();
    for (k, inst) in instances.iter().enumerate() {
        let (tokens, _) = inst.scanned.as_ref()?;
        let references = all_references(scop, &inst.text, tokens)?;
        let text = |t: usize| &inst.text[tokens[t].range.clone()];
        let lhs = references.first()?;
        if lhs.1.start != 0 {
            return None;
        }
        let op = lhs.1.end;
        if op >= tokens.len() || !["=", "+=", "-=", "*=", "/="].contains(&text(op)) {
            return None;
        }
        let mut next = 1;
        let mut t = op + 1;
        while t < tokens.len() {
            if let Some(r) = references.get(next).filter(|r| r.1.start == t) {
                next += 1;
                t = r.1.end;
                continue;
            }
            let punctuator = tokens[t].kind == scan::TokenKind::Punctuator;
            if !punctuator || !["+", "-", "*", "/", "(", ")"].contains(&text(t)) {
                return None;
            }
            t += 1;
        }
        if next != references.len() {
            return None;
        }
        let mut vector_operand = false;
        let mut classified = Vec::new();
        for (position, (array, range)) in references.iter().enumerate() {
            let decl = scop.array(array)?;
            let ty = element_type(scop, array);
            if !declarable(ty) || ty.contains("const") {
                return None;
            }
            match &element {
                Some(e) if e != ty => return None,
                Some(_) => {}
                None => element = Some(ty.to_string()),
            }
            let dims = decl.extents.len();
            let subs = if dims == 0 {
                Vec::new()
            } else {
                subscripts(inst, tokens, range, dims)?
            };
            let operand = if written.contains(array.as_str()) {
                let (last, rest) = subs.split_last()?;
                if !lane_subscript(last) || rest.iter().any(|e| e.mentions(v) || moves(e)) {
                    return None;
                }
                let key = scan::key(
                    &inst.text,
                    tokens,
                    range.clone(),
                    &inst.statement.iterators,
                    &inst.values,
                );
                let index = match accumulators.iter().position(|a| a.2 == key) {
                    Some(index) => index,
                    None => {
                        let apart = accumulators
                            .iter()
                            .filter(|a| a.3 == *array)
                            .all(|a| distinct(&a.4[..dims - 1], rest));
                        if !apart {
                            return None;
                        }
                        accumulators.push((k, range.clone(), key, array.clone(), subs));
                        accumulators.len() - 1
                    }
                };
                Operand::Accumulator(index)
            } else if subs.iter().all(|e| !e.mentions(v)) {
                Operand::Scalar
            } else {
                let (last, rest) = subs.split_last()?;
                if rest.iter().any(|e| e.mentions(v)) {
                    return None;
                }
                match affine(last).and_then(|(_, terms)| terms.get(v).copied()) {
                    Some(1) => Operand::Lane,
                    Some(_) => Operand::Gather,
                    None => return None,
                }
            };
            if position == 0 && !matches!(operand, Operand::Accumulator(_)) {
                return None;
            }
            if position > 0 && operand != Operand::Scalar {
                vector_operand = true;
            }
            classified.push((range.clone(), operand));
        }
        if !vector_operand {
            return None;
        }
        operands.push(classified);
    }
    if accumulators.is_empty() || accumulators.len() > MAX_VARIABLES {
        return None;
    }
    Some(Analysis {
        element_type: element?,
        elements: accumulators
            .iter()
            .map(|(_, _, _, array, subs)| (array.clone(), subs.clone()))
            .collect(),
        accumulators: accumulators
            .into_iter()
            .map(|(k, range, _, _, _)| (k, range))
            .collect(),
        operands,
    })
}

/// Whether the accumulators of `copies` consecutive iterations of the loop over
/// `iterator` (its value `p + r` in copy `r`) are pairwise distinct elements: for any
/// two of them of one array, some subscript other than the last differs by a non-zero
/// constant. The copies then share no written element, and each element keeps its
/// operations in their order whatever the interleaving of the copies.
pub(crate) fn copies_apart(analysis: &Analysis, iterator: &str, copies: usize) -> bool {
    let shifted: Vec<(usize, &str, Vec<Expr>)> = (0..copies)
        .flat_map(|r| {
            analysis.elements.iter().map(move |(array, subs)| {
                let subs = subs
                    .iter()
                    .map(|e| shift(e, iterator, r as i64))
                    .collect::<Vec<_>>();
                (r, array.as_str(), subs)
            })
        })
        .collect();
    shifted.iter().enumerate().all(|(i, (ri, ai, si))| {
        shifted[i + 1..].iter().all(|(rj, aj, sj)| {
            ai != aj || {
                let n = si.len() - 1;
                // Two accumulators of one copy were already proved apart.
                (ri == rj) || distinct(&si[..n], &sj[..n])
            }
        })
    })
}

/// `e` with `iterator` replaced by `iterator + r`.
fn shift(e: &Expr, iterator: &str, r: i64) -> Expr {
    match e {
        Expr::Var(v) if v == iterator => Expr::Add(vec![
            Expr::Var(v.clone()),
            Expr::Int(pollen_arith::Int::from(r)),
        ]),
        Expr::Var(_) | Expr::Int(_) => e.clone(),
        Expr::Add(terms) => Expr::Add(terms.iter().map(|t| shift(t, iterator, r)).collect()),
        Expr::Mul(k, inner) => Expr::Mul(k.clone(), Box::new(shift(inner, iterator, r))),
        Expr::FloorDiv(inner, d) => Expr::FloorDiv(Box::new(shift(inner, iterator, r)), d.clone()),
        Expr::CeilDiv(inner, d) => Expr::CeilDiv(Box::new(shift(inner, iterator, r)), d.clone()),
        Expr::Mod(inner, d) => Expr::Mod(Box::new(shift(inner, iterator, r)), d.clone()),
        Expr::Min(terms) => Expr::Min(terms.iter().map(|t| shift(t, iterator, r)).collect()),
        Expr::Max(terms) => Expr::Max(terms.iter().map(|t| shift(t, iterator, r)).collect()),
    }
}

/// Every reference of the tokenised `text` to an array or scalar of the scop, in order:
/// an array's element references ([`scan::element_references`], assignment targets
/// included) and a scalar's name; `None` when a name of the scop occurs otherwise.
fn all_references(
    scop: &Scop,
    text: &str,
    tokens: &[scan::Token],
) -> Option<Vec<(String, Range<usize>)>> {
    let names: BTreeSet<&str> = tokens
        .iter()
        .filter(|t| t.kind == scan::TokenKind::Identifier)
        .map(|t| &text[t.range.clone()])
        .collect();
    let mut out = Vec::new();
    for array in &scop.arrays {
        if !names.contains(array.name.as_str()) {
            continue;
        }
        let dims = array.extents.len();
        if dims == 0 {
            for (k, t) in tokens.iter().enumerate() {
                if t.kind == scan::TokenKind::Identifier && text[t.range.clone()] == array.name {
                    out.push((array.name.clone(), k..k + 1));
                }
            }
            continue;
        }
        let found = scan::element_references(text, tokens, &array.name, dims, &BTreeSet::new())?;
        for r in found {
            if r.conditional {
                return None;
            }
            out.push((array.name.clone(), r.tokens));
        }
    }
    out.sort_by_key(|(_, r)| r.start);
    Some(out)
}
