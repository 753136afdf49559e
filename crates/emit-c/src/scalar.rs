//! Scalar replacement of array reads in innermost loops.
//!
//! gcc outlines an `omp parallel for` region into a function and forgets there that
//! distinct arrays do not alias: in `for (c5 ...) C[c3][c5] += alpha * A[c3][c4] *
//! B[c4][c5];` it reloads `A[c3][c4]` in every iteration, and when several instances
//! share an innermost body it reloads `B[c4][c5]` for each, since the stores to `C` might
//! change them. The polyhedral model (and every dependence Pollen computes) already
//! assumes that distinct arrays never alias, so loading these values once is legal
//! exactly when the schedule is.
//!
//! For an innermost loop `L` whose body is statement instances only (no `if`), with `W`
//! the arrays written by any of them, the references to other arrays (module `scan`)
//! are instantiated with the printed iterator values of their instance; equal texts are
//! the same element.
//! - A reference whose subscripts do not depend on `L`'s iterator is loaded once, before
//!   `L`, into a `const` temporary, inside a guard `if (lower <= upper) { ... }` so that
//!   the load only happens when `L` runs (and the statements read the element). The loop
//!   that is itself `omp parallel for` hoists nothing.
//! - A reference that depends on the iterator but occurs at least twice in the body is
//!   loaded once at the start of the body.
//! - Take an array of `W` whose every reference in the body is a plain element
//!   reference (subscripts of one token: iterators, parameters, literals). Its references
//!   that do not depend on the iterator are its held elements, any two different texts
//!   being provably different elements (a subscript differs by a non-zero constant).
//!   Each of its references that depends on the iterator must be proved never to be a
//!   held element by the caller's oracle ([`pollen_codegen::apart`]: with
//!   `ByDomains`, no iteration within the statements' domains has all subscripts
//!   agree, `x[c1]` against `x[c0]` when `c1 < c0`). The
//!   held elements are then touched by `L` only through the invariant references: each
//!   lives in a variable declared and loaded before `L` (with the hoisted loads, in the
//!   same guard) and is stored back after it; one that `L` only reads is a hoisted
//!   constant. A reduction `C[i][j] +=
//!   ... A[i][k] ...` over `k` then runs in registers, and the jammed copies of it
//!   (`C[i][j]`, `C[i + 1][j]`, ...) are independent chains. Not in the loop that is
//!   itself `omp parallel for`, nor in a vectorisable one, nor in a loop declaring
//!   scratch arrays.
//! - An element of an array of `W` that the body assigns and references in two instances,
//!   in a body that also reads elements of that array it never assigns, provably other
//!   elements (as above, or by the oracle), is held in a variable through one iteration: loaded at the
//!   start of the body, stored at its end. The compiler can then keep the reads in
//!   registers across the stores (trmm's `B[i][j] += A[k][i] * B[k][j]` jammed over
//!   `k`).
//! - The instances that use a temporary are printed inline: the statement's text with
//!   the iterators replaced by their parenthesised values (what the macro expansion
//!   gives) and the references by the temporaries. The others keep the macro call.
//!
//! Only loads and stores move: every arithmetic expression is evaluated as before, in
//! the same order, so results are bit for bit the same. Temporaries are declared in the innermost
//! block around their uses (private to each OpenMP thread) and each is used.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use pollen_codegen::apart::{affine, Apart, Element};
use pollen_codegen::{Ast, Expr, Loop};
use pollen_scop::{AccessKind, Scop, Statement};

use pollen_emit_text::{is_identifier, statement_text, ExprPrinter};

use crate::error::{Error, Result};
use crate::scan::{self, Names, Reference, Token};

/// One temporary: `const <element_type> <name> = <reference>;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Load {
    /// The temporary's name.
    pub name: String,
    /// The C element type of the array.
    pub element_type: String,
    /// The instantiated reference.
    pub reference: String,
}

impl Load {
    /// The declaration of the temporary, with its `;`.
    pub fn declaration(&self) -> String {
        let qualifier = if self.element_type.split(' ').any(|w| w == "const") {
            ""
        } else {
            "const "
        };
        format!(
            "{qualifier}{} {} = {};",
            self.element_type, self.name, self.reference
        )
    }
}

impl Load {
    /// The declaration of a variable holding the element across the loop, with its `;`.
    pub fn variable_declaration(&self) -> String {
        format!("{} {} = {};", self.element_type, self.name, self.reference)
    }

    /// The store of the variable back into its element, with its `;`.
    pub fn store(&self) -> String {
        format!("{} = {};", self.reference, self.name)
    }
}

/// How one innermost loop is printed with scalar replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The loads before the loop, in the guard.
    pub hoisted: Vec<Load>,
    /// The elements of written arrays held in variables across the loop: loaded before
    /// it with the hoisted loads, stored back after it.
    pub accumulators: Vec<Load>,
    /// The loads at the start of the body.
    pub shared: Vec<Load>,
    /// The elements of written arrays held in variables through one iteration of the
    /// body: declared and loaded at its start (after the shared loads) and stored back
    /// at its end.
    pub held: Vec<Load>,
    /// One entry per statement instance of the body, in order: the inline C statement
    /// (with its `;`), or `None` for the macro call.
    pub instances: Vec<Option<String>>,
    /// One entry per statement instance: the references replaced in it (token ranges
    /// of its text, in order) and their temporaries.
    pub replacements: Vec<Vec<(Range<usize>, String)>>,
}

/// Fresh names for temporaries: a stem that no word of the file extends with digits,
/// and a counter.
#[derive(Clone, Debug)]
pub(crate) struct Temporaries {
    stem: String,
    next: usize,
}

impl Temporaries {
    /// Names `t0`, `t1`, ... (or `p_t0`, ...): the first stem of the candidates that no
    /// word of `taken` extends with digits only.
    pub fn new(taken: &BTreeSet<String>) -> Temporaries {
        let extends = |stem: &str| {
            taken.iter().any(|w| {
                w.strip_prefix(stem).is_some_and(|rest| {
                    !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_digit())
                })
            })
        };
        let mut stem = ["t", "p_t", "pollen_t", "pollen_gen_t"]
            .into_iter()
            .find(|s| !extends(s))
            .unwrap_or("pollen_gen_t")
            .to_string();
        while extends(&stem) {
            stem.push('_');
        }
        Temporaries { stem, next: 0 }
    }

    /// The next name.
    pub(crate) fn fresh(&mut self) -> String {
        let name = format!("{}{}", self.stem, self.next);
        self.next += 1;
        name
    }
}

/// One statement instance of the body: its statement, printed iterator values and, when
/// its text could be scanned, its tokens and replaceable references.
pub(crate) struct Instance<'a> {
    pub statement: &'a Statement,
    pub args: &'a [Expr],
    pub values: Vec<String>,
    pub text: String,
    pub scanned: Option<(Vec<Token>, Vec<Reference>)>,
}

/// A replaceable reference of an instance: the instance, the reference's index among
/// its references, and its element (the instantiated text with normalised spacing).
struct Occurrence {
    instance: usize,
    reference: usize,
    key: String,
}

/// Where the loop of a plan is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// Whether loads may be hoisted before the loop (not out of an `omp parallel for`).
    pub hoist: bool,
    /// Whether the loop's body is an unrolled window (module `print`), whose updated
    /// elements are held through an iteration even when it reads no other element of
    /// their arrays ([`held`]).
    pub unrolled: bool,
}

/// What the file's calls do with their arguments.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Calls<'a> {
    /// The macros whose arguments are plain values ([`scan::plain_macros`]): an element
    /// reference among them can stand for a variable.
    pub plain: &'a BTreeSet<String>,
    /// The functions and macros that evaluate each argument once, as a value
    /// ([`scan::value_calls`]): references among their arguments can be loaded ahead.
    pub values: &'a BTreeSet<String>,
}

/// The plan for loop `l`, whose iterator the expression printer has in scope, or `None`
/// when nothing is replaced (not an innermost loop of statement instances, or no
/// reference to replace). `place` says whether loads may move before the loop.
pub(crate) fn plan(
    l: &Loop,
    scop: &Scop,
    exprs: &mut ExprPrinter,
    place: Place,
    temporaries: &mut Temporaries,
    apart: &dyn Apart,
    calls: Calls,
) -> Result<Option<Plan>> {
    let Place { hoist, unrolled } = place;
    let Calls {
        plain,
        values: calls,
    } = calls;
    let mut users = Vec::new();
    if !instances_only(&l.body, &mut users) || users.is_empty() {
        return Ok(None);
    }
    let dimensions: BTreeMap<String, usize> = scop
        .arrays
        .iter()
        .map(|a| (a.name.clone(), a.extents.len()))
        .collect();
    let mut instances = Vec::new();
    for (statement, args) in users {
        instances.push(instance(scop, &dimensions, exprs, statement, args, calls)?);
    }
    let written = written_arrays(&instances);
    let occurrences = occurrences(scop, &instances, &written);
    // A vectorisable loop carries no dependence, so it accumulates nothing; under
    // `omp simd` a variable updated by every iteration would need a reduction clause.
    let accumulated = if hoist && !l.vectorizable {
        accumulated(scop, &instances, &written, &l.iterator, apart, plain)
    } else {
        Vec::new()
    };
    let skip: BTreeSet<&str> = accumulated.iter().map(|a| a.array.as_str()).collect();
    let held = held(scop, &instances, &written, &skip, apart, plain, unrolled);
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for o in &occurrences {
        *counts.entry(&o.key).or_default() += 1;
    }

    // The replaced elements in order of first occurrence: whether each is hoisted, and
    // its first occurrence (whose text the load uses).
    let mut elements: Vec<(&str, bool, &Occurrence)> = Vec::new();
    for o in &occurrences {
        if elements.iter().any(|(key, _, _)| *key == o.key) {
            continue;
        }
        let inst = &instances[o.instance];
        let (tokens, references) = inst.scanned.as_ref().expect("occurrences are scanned");
        let invariant = hoist && !depends_on(inst, tokens, &references[o.reference], &l.iterator);
        if invariant || counts[o.key.as_str()] >= 2 {
            elements.push((&o.key, invariant, o));
        }
    }
    if elements.is_empty() && accumulated.is_empty() && held.is_empty() {
        return Ok(None);
    }
    let mut plan = Plan {
        hoisted: Vec::new(),
        accumulators: Vec::new(),
        shared: Vec::new(),
        held: Vec::new(),
        instances: vec![None; instances.len()],
        replacements: Vec::new(),
    };
    // Hoisted loads first, then shared ones, each in order of first occurrence.
    let mut names: BTreeMap<&str, String> = BTreeMap::new();
    for hoisted in [true, false] {
        for (key, _, o) in elements.iter().filter(|e| e.1 == hoisted) {
            let load = load(
                scop,
                &instances[o.instance],
                o.reference,
                temporaries.fresh(),
            );
            names.insert(key, load.name.clone());
            if hoisted {
                plan.hoisted.push(load);
            } else {
                plan.shared.push(load);
            }
        }
    }
    let mut replacements: Vec<Vec<(Range<usize>, String)>> = vec![Vec::new(); instances.len()];
    for o in &occurrences {
        if let Some(name) = names.get(o.key.as_str()) {
            let (_, references) = instances[o.instance]
                .scanned
                .as_ref()
                .expect("occurrences are scanned");
            replacements[o.instance].push((references[o.reference].tokens.clone(), name.clone()));
        }
    }
    // The accumulated elements, then the held ones, in order of first occurrence.
    let mut variables: BTreeMap<String, String> = BTreeMap::new();
    // An invariant element the loop never assigns is only read: a constant before it.
    let assigned: BTreeSet<&str> = accumulated
        .iter()
        .filter(|a| a.assigned)
        .map(|a| a.key.as_str())
        .collect();
    let accumulated = accumulated.iter().map(|a| (a, false));
    for (a, is_held) in accumulated.chain(held.iter().map(|a| (a, true))) {
        let name = match variables.get(&a.key) {
            Some(name) => name.clone(),
            None => {
                let inst = &instances[a.instance];
                let (tokens, _) = inst.scanned.as_ref().expect("accumulated are scanned");
                let load = Load {
                    name: temporaries.fresh(),
                    element_type: element_type(scop, &a.array).to_string(),
                    reference: scan::substitute(
                        &inst.text,
                        tokens,
                        a.tokens.clone(),
                        &inst.statement.iterators,
                        &inst.values,
                        &[],
                    ),
                };
                variables.insert(a.key.clone(), load.name.clone());
                let name = load.name.clone();
                if is_held {
                    plan.held.push(load);
                } else if !assigned.contains(a.key.as_str()) {
                    plan.hoisted.push(load);
                } else {
                    plan.accumulators.push(load);
                }
                name
            }
        };
        replacements[a.instance].push((a.tokens.clone(), name));
    }
    for (k, inst) in instances.iter().enumerate() {
        if !replacements[k].is_empty() {
            plan.instances[k] = Some(inline(inst, &replacements[k]));
        }
    }
    plan.replacements = replacements;
    Ok(Some(plan))
}

/// An element reference of an accumulated array: its instance, array, token range and
/// element (the instantiated text).
struct Accumulated {
    instance: usize,
    array: String,
    tokens: Range<usize>,
    key: String,
    /// Whether this reference is assigned.
    assigned: bool,
}

/// The references to the elements of written arrays that can live in variables across
/// loop `iterator`: every reference to such an array in the body is an element
/// reference ([`scan::element_references`]) whose subscripts (iterators, parameters and
/// literals) do not depend on the loop, and any two distinct texts are provably distinct
/// elements (some subscript differs by a non-zero constant). Such an array is touched
/// in the loop only through these elements, and distinct arrays never alias (the
/// model's assumption), so loading them before the loop and storing them after it
/// changes no value: the loop's reduction chains then run in registers.
fn accumulated(
    scop: &Scop,
    instances: &[Instance],
    written: &BTreeSet<&str>,
    iterator: &str,
    apart: &dyn Apart,
    plain: &BTreeSet<String>,
) -> Vec<Accumulated> {
    let mut out = Vec::new();
    'arrays: for array in written {
        let Some(uses) = element_uses(scop, instances, array, plain) else {
            continue;
        };
        let mut found = Vec::new();
        let mut elements: Vec<(String, Vec<Expr>, usize)> = Vec::new();
        // The references that move with the loop: instance and subscripts.
        let mut moving: Vec<(usize, Vec<Expr>)> = Vec::new();
        // The elements referenced where the reference is certainly evaluated.
        let mut certain: BTreeSet<String> = BTreeSet::new();
        for u in uses {
            if u.subscripts.iter().any(|e| e.mentions(iterator)) {
                moving.push((u.instance, u.subscripts));
                continue;
            }
            if !elements.iter().any(|(other, _, _)| *other == u.key) {
                if elements.iter().any(|(_, e, _)| !distinct(e, &u.subscripts)) {
                    continue 'arrays;
                }
                elements.push((u.key.clone(), u.subscripts, u.instance));
            }
            if !u.conditional {
                certain.insert(u.key.clone());
            }
            found.push(Accumulated {
                instance: u.instance,
                array: array.to_string(),
                tokens: u.tokens,
                key: u.key,
                assigned: u.assigned,
            });
        }
        // An element is loaded before the loop only when the loop certainly accesses it.
        if found.is_empty() || elements.iter().any(|(key, _, _)| !certain.contains(key)) {
            continue;
        }
        // Every moving reference must miss every held element, in every iteration.
        for (k, m) in &moving {
            for (_, e, at) in &elements {
                let a = (&instances[*at], &e[..]);
                if !never_equal(apart, scop, (&instances[*k], m), a) {
                    continue 'arrays;
                }
            }
        }
        out.extend(found);
    }
    out
}

/// The references to elements of written arrays (not in `skip`) that can live in a
/// variable through one iteration of the body: every reference to such an array in the body is an element reference
/// ([`element_uses`]); an element it assigns and references in at least two statement
/// instances is held when every other element it references in the body is provably a
/// different one in every iteration ([`distinct`], [`never_equal`]). The references to
/// the held elements are then the only accesses to them in an iteration, so loading
/// them at its start and storing them at its end changes no value:
/// `sum[c5] += ...` four times in a jammed body becomes one load, four additions in a
/// register and one store.
fn held(
    scop: &Scop,
    instances: &[Instance],
    written: &BTreeSet<&str>,
    skip: &BTreeSet<&str>,
    apart: &dyn Apart,
    plain: &BTreeSet<String>,
    unrolled: bool,
) -> Vec<Accumulated> {
    let mut out = Vec::new();
    for array in written {
        if skip.contains(array) {
            continue;
        }
        let Some(references) = element_uses(scop, instances, array, plain) else {
            continue;
        };
        let certain: BTreeSet<&str> = references
            .iter()
            .filter(|u| !u.conditional)
            .map(|u| u.key.as_str())
            .collect();
        // The distinct elements, each with its first reference.
        let mut elements: Vec<(&str, usize, &[Expr])> = Vec::new();
        for u in &references {
            if !elements.iter().any(|e| e.0 == u.key.as_str()) {
                elements.push((&u.key, u.instance, &u.subscripts));
            }
        }
        // Without an element that the body reads and never assigns, the compiler already
        // keeps the assigned ones in registers through an iteration (measured: holding
        // them in variables then only slows jammed vector loops down). Not so in the
        // body of an unrolled window (`unrolled`): it stores the element again after
        // each of its many updates, since a later read of another array might be it.
        let assigns = |key: &str| references.iter().any(|u| u.key == key && u.assigned);
        if !unrolled && elements.iter().all(|e| assigns(e.0)) {
            continue;
        }
        for (key, k, element) in &elements {
            // Within one statement the compiler keeps the element in a register itself.
            let statements: BTreeSet<usize> = references
                .iter()
                .filter(|u| u.key == *key)
                .map(|u| u.instance)
                .collect();
            if statements.len() < 2 {
                continue;
            }
            let apart = elements.iter().all(|(other, j, e)| {
                other == key
                    || distinct(element, e)
                    || never_equal(apart, scop, (&instances[*k], element), (&instances[*j], e))
            });
            if !apart {
                continue;
            }
            // An element the body only reads may be read under a condition only (and
            // need not exist otherwise); one it assigns is accessed in every iteration.
            if !assigns(key) || !certain.contains(*key) {
                continue;
            }
            for u in references.iter().filter(|u| u.key == *key) {
                out.push(Accumulated {
                    instance: u.instance,
                    array: array.to_string(),
                    tokens: u.tokens.clone(),
                    key: u.key.clone(),
                    assigned: true,
                });
            }
        }
    }
    out
}

/// One reference to an element of an array in the body.
struct ElementUse {
    /// The instance.
    instance: usize,
    /// Its token range in the instance's text.
    tokens: Range<usize>,
    /// The element (the instantiated text).
    key: String,
    /// Its subscripts over the loop iterators, the parameters and literals.
    subscripts: Vec<Expr>,
    /// Whether it may not be evaluated.
    conditional: bool,
    /// Whether it is assigned.
    assigned: bool,
}

/// Every reference to `array` in the instances, or `None` unless the array's elements
/// can live in variables (declarable, not `const`, at least one dimension) and every
/// reference to it is a plain element reference with linear subscripts
/// ([`scan::element_references`], the `plain` macros' arguments allowed), every instance
/// that accesses it having one.
fn element_uses(
    scop: &Scop,
    instances: &[Instance],
    array: &str,
    plain: &BTreeSet<String>,
) -> Option<Vec<ElementUse>> {
    let decl = scop.array(array)?;
    let dimensions = decl.extents.len();
    if dimensions == 0 || !declarable(&decl.element_type) || decl.element_type.contains("const") {
        return None;
    }
    let mut out = Vec::new();
    for (k, inst) in instances.iter().enumerate() {
        let (tokens, _) = inst.scanned.as_ref()?;
        let found = scan::element_references(&inst.text, tokens, array, dimensions, plain)?;
        let accessed = inst.statement.accesses.iter().any(|a| a.array == array);
        if accessed && found.is_empty() {
            return None;
        }
        for reference in found {
            let range = reference.tokens;
            let subscripts = subscripts(inst, tokens, &range, dimensions)?;
            out.push(ElementUse {
                instance: k,
                key: scan::key(
                    &inst.text,
                    tokens,
                    range.clone(),
                    &inst.statement.iterators,
                    &inst.values,
                ),
                assigned: assigned(&inst.text, tokens, &range),
                tokens: range,
                subscripts,
                conditional: reference.conditional,
            });
        }
    }
    Some(out)
}

/// Whether the element reference `range` is assigned: followed by an assignment
/// operator or `++`/`--`, or preceded by `++`/`--`.
fn assigned(text: &str, tokens: &[Token], range: &Range<usize>) -> bool {
    const ASSIGNMENTS: [&str; 13] = [
        "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "++", "--",
    ];
    let after = tokens.get(range.end).map(|t| &text[t.range.clone()]);
    let before = range
        .start
        .checked_sub(1)
        .map(|k| &text[tokens[k].range.clone()]);
    after.is_some_and(|s| ASSIGNMENTS.contains(&s)) || matches!(before, Some("++" | "--"))
}

/// Whether the oracle proves two element references of instances apart.
fn never_equal(
    apart: &dyn Apart,
    scop: &Scop,
    (ia, sa): (&Instance, &[Expr]),
    (ib, sb): (&Instance, &[Expr]),
) -> bool {
    let a = Element {
        statement: ia.statement,
        args: ia.args,
        subscripts: sa,
    };
    let b = Element {
        statement: ib.statement,
        args: ib.args,
        subscripts: sb,
    };
    apart.apart(scop, a, b)
}

/// The subscripts of the element reference `range` (`name [ s ] [ s ] ...`, each linear:
/// [`scan::linear_subscripts`]) as expressions over the instance's iterator values, the
/// parameters and literals.
pub(crate) fn subscripts(
    inst: &Instance,
    tokens: &[Token],
    range: &Range<usize>,
    dimensions: usize,
) -> Option<Vec<Expr>> {
    let (linear, _) = scan::linear_subscripts(&inst.text, tokens, range.start, dimensions)?;
    linear
        .into_iter()
        .map(|(constant, terms)| {
            let mut sum = vec![Expr::Int(pollen_arith::Int::from(constant))];
            for (name, k) in terms {
                // An iterator's value in the instance, or a parameter or constant: the
                // same value in every instance.
                let value = match inst.statement.iterators.iter().position(|it| *it == name) {
                    Some(i) => inst.args[i].clone(),
                    None if is_identifier(&name) => Expr::Var(name),
                    None => return None,
                };
                sum.push(Expr::Mul(pollen_arith::Int::from(k), Box::new(value)));
            }
            Some(Expr::Add(sum))
        })
        .collect()
}

/// Whether two elements certainly differ: some subscript differs by a non-zero constant.
pub(crate) fn distinct(a: &[Expr], b: &[Expr]) -> bool {
    a.iter().zip(b).any(|(x, y)| match (affine(x), affine(y)) {
        (Some((cx, tx)), Some((cy, ty))) => tx == ty && cx != cy,
        _ => false,
    })
}

/// The load of an instance's reference (its index among the instance's references)
/// into the temporary `name`.
fn load(scop: &Scop, inst: &Instance, reference: usize, name: String) -> Load {
    let (tokens, references) = inst.scanned.as_ref().expect("loaded instances are scanned");
    let r = &references[reference];
    Load {
        name,
        element_type: element_type(scop, &r.array).to_string(),
        reference: scan::substitute(
            &inst.text,
            tokens,
            r.tokens.clone(),
            &inst.statement.iterators,
            &inst.values,
            &[],
        ),
    }
}

/// Appends the statement instances of `ast` in execution order; false when it holds a
/// loop or a branch.
pub(crate) fn instances_only<'a>(ast: &'a Ast, out: &mut Vec<(&'a str, &'a [Expr])>) -> bool {
    match ast {
        Ast::Block(children) => children.iter().all(|c| instances_only(c, out)),
        Ast::User { statement, args } => {
            out.push((statement, args));
            true
        }
        Ast::For(_) | Ast::If { .. } => false,
    }
}

/// The statement named by a call of the AST, checked to take `n_args` arguments.
pub(crate) fn checked_statement<'a>(
    scop: &'a Scop,
    statement: &str,
    n_args: usize,
) -> Result<&'a Statement> {
    let Some(s) = scop.statement(statement) else {
        return Err(Error::UnknownStatement(statement.to_string()));
    };
    if s.iterators.len() != n_args {
        return Err(Error::ArityMismatch {
            statement: statement.to_string(),
            expected: s.iterators.len(),
            found: n_args,
        });
    }
    Ok(s)
}

/// One instance: the statement (checked against the AST), its printed values, its
/// macro text, and its tokens and references when the text can be scanned.
pub(crate) fn instance<'a>(
    scop: &'a Scop,
    dimensions: &BTreeMap<String, usize>,
    exprs: &mut ExprPrinter,
    statement: &str,
    args: &'a [Expr],
    calls: &BTreeSet<String>,
) -> Result<Instance<'a>> {
    let s = checked_statement(scop, statement, args.len())?;
    let mut values = Vec::new();
    for a in args {
        values.push(exprs.argument(a)?);
    }
    let text = statement_text(&s.body);
    let names = Names {
        arrays: dimensions,
        iterators: &s.iterators,
        params: &scop.params,
        calls,
    };
    let scanned = scan::tokens(&text).and_then(|tokens| {
        let references = scan::references(&text, &tokens, names)?;
        Some((tokens, references))
    });
    Ok(Instance {
        statement: s,
        args,
        values,
        text,
        scanned,
    })
}

/// The arrays (and scalars) written by any of the instances.
fn written_arrays<'a>(instances: &[Instance<'a>]) -> BTreeSet<&'a str> {
    instances
        .iter()
        .flat_map(|i| &i.statement.accesses)
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.array.as_str())
        .collect()
}

/// The replaceable references of the instances, in order: those to arrays that no
/// instance writes, whose element type can be declared.
fn occurrences(scop: &Scop, instances: &[Instance], written: &BTreeSet<&str>) -> Vec<Occurrence> {
    let mut out = Vec::new();
    for (k, inst) in instances.iter().enumerate() {
        let Some((tokens, references)) = &inst.scanned else {
            continue;
        };
        for (j, r) in references.iter().enumerate() {
            if written.contains(r.array.as_str()) || !declarable(element_type(scop, &r.array)) {
                continue;
            }
            // A reference that may not be evaluated is loaded only when it is an element
            // the array certainly has.
            if r.conditional && !constant_in_bounds(scop, &inst.text, tokens, r) {
                continue;
            }
            out.push(Occurrence {
                instance: k,
                reference: j,
                key: scan::key(
                    &inst.text,
                    tokens,
                    r.tokens.clone(),
                    &inst.statement.iterators,
                    &inst.values,
                ),
            });
        }
    }
    out
}

/// Whether every subscript of `r` is an integer literal below the array's extent, an
/// integer literal too (`curve[3]` of `float curve[9]`).
fn constant_in_bounds(scop: &Scop, text: &str, tokens: &[Token], r: &Reference) -> bool {
    let Some(array) = scop.array(&r.array) else {
        return false;
    };
    let literal = |s: &str| s.trim().parse::<u64>().ok();
    // name [ literal ] [ literal ] ...: three tokens per dimension after the name.
    let subscripts: Vec<&str> = tokens[r.tokens.clone()]
        .iter()
        .map(|t| &text[t.range.clone()])
        .collect();
    if subscripts.len() != 1 + 3 * array.extents.len() {
        return false;
    }
    array.extents.iter().enumerate().all(|(d, extent)| {
        let at = 1 + 3 * d;
        subscripts[at] == "["
            && subscripts[at + 2] == "]"
            && matches!(
                (literal(subscripts[at + 1]), literal(extent)),
                (Some(i), Some(n)) if i < n
            )
    })
}

/// The element type of an array (empty for an unknown one).
pub(crate) fn element_type<'a>(scop: &'a Scop, array: &str) -> &'a str {
    scop.array(array).map_or("", |a| a.element_type.as_str())
}

/// Whether a temporary of this element type can be declared as `const <type> t`:
/// words only (`unsigned long`, `DATA_TYPE`), not `volatile` (whose loads must stay).
pub(crate) fn declarable(element_type: &str) -> bool {
    let words: Vec<&str> = element_type.split_whitespace().collect();
    !words.is_empty() && words.iter().all(|w| is_identifier(w)) && !words.contains(&"volatile")
}

/// Whether the reference's subscripts depend on `iterator`: one of the statement's
/// iterators in them has a value that mentions it.
fn depends_on(inst: &Instance, tokens: &[Token], r: &Reference, iterator: &str) -> bool {
    tokens[r.tokens.clone()].iter().any(|t| {
        let s = &inst.text[t.range.clone()];
        inst.statement
            .iterators
            .iter()
            .position(|it| it == s)
            .is_some_and(|i| inst.args[i].mentions(iterator))
    })
}

/// The instance's C statement with its iterators replaced by their values and the given
/// references (token range, temporary) by temporaries.
pub(crate) fn inline(inst: &Instance, replacements: &[(Range<usize>, String)]) -> String {
    let (tokens, _) = inst
        .scanned
        .as_ref()
        .expect("replaced instances are scanned");
    let mut replaced: Vec<(Range<usize>, String)> = replacements.to_vec();
    replaced.sort_by_key(|(r, _)| r.start);
    let text = scan::substitute(
        &inst.text,
        tokens,
        0..tokens.len(),
        &inst.statement.iterators,
        &inst.values,
        &replaced,
    );
    format!("{text};")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(words: &[&str]) -> BTreeSet<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn temporary_names_avoid_the_files_words() {
        let mut t = Temporaries::new(&taken(&["tmp", "t", "tx1", "c0"]));
        assert_eq!(t.fresh(), "t0");
        assert_eq!(t.fresh(), "t1");
        let mut t = Temporaries::new(&taken(&["t12", "p_t"]));
        assert_eq!(t.fresh(), "p_t0");
        let mut t = Temporaries::new(&taken(&["t1", "p_t2", "pollen_t3", "pollen_gen_t4"]));
        assert_eq!(t.fresh(), "pollen_gen_t_0");
    }

    #[test]
    fn declarations() {
        let load = |ty: &str| Load {
            name: "t0".into(),
            element_type: ty.into(),
            reference: "A[c0][(c1 + 1)]".into(),
        };
        assert_eq!(
            load("DATA_TYPE").declaration(),
            "const DATA_TYPE t0 = A[c0][(c1 + 1)];"
        );
        assert_eq!(
            load("const float").declaration(),
            "const float t0 = A[c0][(c1 + 1)];"
        );
        assert!(declarable("unsigned long"));
        assert!(!declarable("volatile double"));
        assert!(!declarable("double *"));
        assert!(!declarable(""));
    }

    #[test]
    fn elements_are_distinct_when_a_subscript_differs_by_a_constant() {
        let v = |n: &str| Expr::Var(n.to_string());
        let plus = |n: &str, k: i64| Expr::Add(vec![v(n), Expr::Int(pollen_arith::Int::from(k))]);
        // C[c3][c4] and C[c3 + 1][c4], C[c3][c4 + 1]: distinct.
        assert!(distinct(&[v("c3"), v("c4")], &[plus("c3", 1), v("c4")]));
        assert!(distinct(&[v("c3"), v("c4")], &[v("c3"), plus("c4", 1)]));
        // C[c3][c4] and C[c4][c3] may be the same element; so may C[c3][0] and C[c3][N].
        assert!(!distinct(&[v("c3"), v("c4")], &[v("c4"), v("c3")]));
        assert!(!distinct(
            &[v("c3"), Expr::Int(pollen_arith::Int::from(0))],
            &[v("c3"), v("N")]
        ));
        assert!(!distinct(&[v("c3")], &[v("c3")]));
    }

    #[test]
    fn accumulators_declare_and_store_back() {
        let load = Load {
            name: "t3".into(),
            element_type: "DATA_TYPE".into(),
            reference: "C[c3][(c4 + 1)]".into(),
        };
        assert_eq!(
            load.variable_declaration(),
            "DATA_TYPE t3 = C[c3][(c4 + 1)];"
        );
        assert_eq!(load.store(), "C[c3][(c4 + 1)] = t3;");
    }

    #[test]
    fn mentions_looks_inside_every_operation() {
        let v = |n: &str| Expr::Var(n.to_string());
        let e = Expr::Min(vec![
            Expr::Add(vec![v("N"), Expr::Int(pollen_arith::Int::from(-1))]),
            Expr::FloorDiv(
                Box::new(Expr::Mul(pollen_arith::Int::from(2), Box::new(v("c5")))),
                pollen_arith::Int::from(3),
            ),
        ]);
        assert!(e.mentions("c5"));
        assert!(!e.mentions("c4"));
        assert!(e.mentions("N"));
    }
}
