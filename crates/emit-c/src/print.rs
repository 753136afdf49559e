//! Printing of the loop AST as C statements.
//!
//! Loops are `for (c0 = lower; c0 <= upper; c0++)` (or `c0 += stride`); a body of one
//! statement goes without braces, a block of several with them. `if`/`else` braces the
//! branch before an `else` unless it is one statement call, so that no `else` attaches to
//! the wrong `if`. The outermost loop marked parallel in each nest gets
//! `#pragma omp parallel for`, listing the iterators of the loops inside it as private
//! (every iterator is declared once, at the top of the generated block); a vectorisable
//! loop that is not itself the `omp parallel for` gets the chosen vectorisation pragma.
//! An innermost loop with a scalar replacement plan (module `scalar`) is printed inside
//! the guard of its hoisted loads (the pragma stays right before its `for`), with its
//! shared loads first in its body and its instances inline or as macro calls.

use std::collections::{BTreeMap, BTreeSet};

use pollen_arith::Int;
use pollen_codegen::apart::{affine, Apart, NeverProved};
use pollen_codegen::{Ast, Cond, Expr, Loop};
use pollen_scop::Scop;

use pollen_emit_text::ExprPrinter;

use crate::coalesce;
use crate::error::{Error, Result};
use crate::reduction;
use crate::scalar::{self, Plan, Temporaries};
use crate::scan;
use crate::scan::SelectMacro;
use crate::separable;
use crate::vector::{self, Analysis, Link, Operand};
use crate::{EmitOptions, Vectorize};

/// The indentation of one level.
const INDENT: &str = "  ";

/// The most statement instances of an unrolled window ([`AstPrinter::unrolled_window`]):
/// a 3×3×3 one.
const UNROLLED_WINDOW: u64 = 27;

/// Prints AST nodes, one line at a time, into a string.
pub(crate) struct AstPrinter<'a> {
    pub exprs: ExprPrinter,
    /// The prefix put before every iterator name.
    prefix: &'a str,
    scop: &'a Scop,
    options: &'a EmitOptions,
    /// The macro name of each statement.
    macros: &'a BTreeMap<String, String>,
    /// The indentation of the region.
    base: &'a str,
    /// The names of scalar replacement's temporaries.
    temporaries: Temporaries,
    /// Which element references scalar replacement may take as apart (none unless set).
    pub apart: &'a dyn Apart,
    /// The macros of the file whose arguments are plain values ([`crate::scan::plain_macros`]).
    pub plain_macros: BTreeSet<String>,
    /// The select macros of the file ([`crate::scan::select_macros`]).
    pub select_macros: BTreeMap<String, SelectMacro>,
    /// The calls among whose arguments scalar replacement may replace references
    /// ([`crate::scan::value_calls`]).
    pub value_calls: BTreeSet<String>,
    /// Whether a printed vector nest deinterleaves an operand (it uses the
    /// `pollen_shuffle` macro, [`crate::SHUFFLE_DEFINITION`]).
    pub uses_shuffle: bool,
    /// Declarations printed at the start of a loop's body, by the loop's address
    /// ([`enclosing_loops`]).
    pub declarations: BTreeMap<usize, Vec<String>>,
    /// Set while the rest of a nest printed with vector accumulators is printed (which
    /// must keep its plain form).
    vector_off: bool,
    /// The addresses of the loops being printed with their window unrolled
    /// ([`Self::unrolled_window`]).
    unrolled: BTreeSet<usize>,
    /// The loops joined to their enclosing `omp parallel for` by `collapse(2)`, by
    /// address, with that loop's iterator: printed as plain loops, the pragma needs
    /// them perfectly nested.
    collapsed: BTreeMap<usize, String>,
    pub out: String,
}

/// A nest printed with vector accumulators (module `vector`).
/// A vector type of a vector nest: its name, the name of the constant holding its number
/// of elements, that number when the emitter knows it, and the mask type.
struct Shape<'s> {
    vector_type: &'s str,
    lanes: &'s str,
    count: Option<usize>,
    /// The signed integer vector type of the shuffles' masks (same lanes), when the
    /// nest deinterleaves an operand.
    mask_type: &'s str,
}

/// A jammed vector accumulator nest: the loops between the jammed loop and the loop of
/// the nest, that loop, and the nest (with its copies).
struct Jam<'l> {
    between: Vec<&'l Loop>,
    inner: &'l Loop,
    nest: VectorNest<'l>,
    /// Whether the groups of the jammed loop run inside the loops between
    /// ([`vector::apart_across`]).
    inside: bool,
}

/// Two loops printed as one over the consecutive elements they read (module
/// `coalesce`).
struct Coalesced<'l> {
    inner: &'l Loop,
    plan: Plan,
    reductions: Vec<(String, &'static str)>,
    /// Each instance's C statement, its references read flat.
    texts: Vec<String>,
    /// The arrays read flat, with their ranks.
    rows: BTreeMap<String, usize>,
}

struct VectorNest<'l> {
    links: Vec<Link<'l>>,
    v: &'l Loop,
    guard: Cond,
    analysis: Analysis,
    /// The enclosing loop whose consecutive iterations run side by side, and how many:
    /// its iterator is printed `(p + r)` in copy `r`.
    jam: Option<(String, usize)>,
}

impl VectorNest<'_> {
    /// The number of copies of the chain's statements.
    fn copies(&self) -> usize {
        self.jam.as_ref().map_or(1, |j| j.1)
    }
}

impl<'a> AstPrinter<'a> {
    /// A printer writing at the given base indentation.
    pub fn new(
        exprs: ExprPrinter,
        prefix: &'a str,
        scop: &'a Scop,
        options: &'a EmitOptions,
        macros: &'a BTreeMap<String, String>,
        base: &'a str,
        temporaries: Temporaries,
    ) -> AstPrinter<'a> {
        AstPrinter {
            exprs,
            prefix,
            scop,
            options,
            macros,
            base,
            temporaries,
            apart: &NeverProved,
            plain_macros: BTreeSet::new(),
            select_macros: BTreeMap::new(),
            value_calls: BTreeSet::new(),
            uses_shuffle: false,
            declarations: BTreeMap::new(),
            vector_off: false,
            unrolled: BTreeSet::new(),
            collapsed: BTreeMap::new(),
            out: String::new(),
        }
    }

    /// The printed name of an iterator.
    fn iterator_name(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// Writes one line at `depth` levels below the base indentation.
    pub fn line(&mut self, depth: usize, text: &str) {
        self.out.push_str(self.base);
        for _ in 0..depth {
            self.out.push_str(INDENT);
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Prints `ast` as one C statement (or a sequence of statements, for a block that
    /// is not a loop or branch body) at `depth`; `in_parallel` says whether an enclosing
    /// loop is already an `omp parallel for`.
    pub fn statements(&mut self, ast: &Ast, depth: usize, in_parallel: bool) -> Result<()> {
        match ast {
            Ast::Block(children) => {
                for child in children {
                    self.statements(child, depth, in_parallel)?;
                }
                Ok(())
            }
            Ast::For(l) => self.for_loop(l, depth, in_parallel),
            Ast::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.exprs.cond(cond)?;
                let header = format!("if ({cond})");
                match otherwise {
                    None => self.body(&header, then, depth, in_parallel, false),
                    Some(otherwise) => self.if_else(&header, then, otherwise, depth, in_parallel),
                }
            }
            Ast::User { statement, args } => {
                let call = self.call(statement, args)?;
                self.line(depth, &call);
                Ok(())
            }
        }
    }

    /// `if (...) ... else ...`: both branches braced unless the then-branch is one
    /// statement call (which no `else` can mistake for its `if`).
    fn if_else(
        &mut self,
        header: &str,
        then: &Ast,
        otherwise: &Ast,
        depth: usize,
        in_parallel: bool,
    ) -> Result<()> {
        if matches!(unwrap(then), Ast::User { .. }) {
            self.body(header, then, depth, in_parallel, false)?;
            return self.body("else", otherwise, depth, in_parallel, false);
        }
        self.line(depth, &format!("{header} {{"));
        self.statements(unwrap(then), depth + 1, in_parallel)?;
        self.line(depth, "} else {");
        self.statements(unwrap(otherwise), depth + 1, in_parallel)?;
        self.line(depth, "}");
        Ok(())
    }

    /// `header` then `ast` as its body: on the next lines one level deeper, in braces if
    /// it is several statements (or `brace` asks for them).
    fn body(
        &mut self,
        header: &str,
        ast: &Ast,
        depth: usize,
        in_parallel: bool,
        brace: bool,
    ) -> Result<()> {
        let inner = unwrap(ast);
        if let Ast::For(l) = inner {
            return self.loop_body(header, l, depth, in_parallel, brace);
        }
        if brace || needs_braces(inner) {
            self.line(depth, &format!("{header} {{"));
            self.statements(inner, depth + 1, in_parallel)?;
            self.line(depth, "}");
        } else {
            self.line(depth, header);
            self.statements(inner, depth + 1, in_parallel)?;
        }
        Ok(())
    }

    /// `header` then the loop `l` as its body: braced when asked, when the loop has a
    /// pragma, or when it certainly runs and hoists loads (the braces are then the
    /// block of the loads, which need no guard).
    fn loop_body(
        &mut self,
        header: &str,
        l: &Loop,
        depth: usize,
        in_parallel: bool,
        brace: bool,
    ) -> Result<()> {
        if let Some(c) = self.coalesced(l, in_parallel)? {
            self.line(depth, &format!("{header} {{"));
            self.print_coalesced(l, &c, depth + 1, in_parallel)?;
            self.line(depth, "}");
            return Ok(());
        }
        if let Some(u) = self.unrolled_window(l, in_parallel) {
            self.unrolled.insert(loop_key(&u));
            let result = self.loop_body(header, &u, depth, in_parallel, brace);
            self.unrolled.remove(&loop_key(&u));
            return result;
        }
        if let Some(jam) = self.jammed_vector_nest(l, in_parallel)? {
            self.line(depth, &format!("{header} {{"));
            self.print_jammed_vector_nest(l, jam, depth + 1, in_parallel)?;
            self.line(depth, "}");
            return Ok(());
        }
        if let Some(nest) = self.vector_nest(l, in_parallel)? {
            self.line(depth, &format!("{header} {{"));
            self.print_vector_nest(l, &nest, depth + 1, in_parallel)?;
            self.line(depth, "}");
            return Ok(());
        }
        let plan = self.plan(l, in_parallel)?;
        if self.printed_separable(l, in_parallel, plan.as_ref(), depth, Some(header))? {
            return Ok(());
        }
        let hoists = plan
            .as_ref()
            .is_some_and(|p| !p.hoisted.is_empty() || !p.accumulators.is_empty());
        let open = hoists && self.certainly_runs(l)?;
        if brace || open || self.has_pragma(l, in_parallel) {
            self.line(depth, &format!("{header} {{"));
            self.planned_loop(l, depth + 1, in_parallel, plan.as_ref(), !open)?;
            self.line(depth, "}");
        } else {
            self.line(depth, header);
            self.planned_loop(l, depth + 1, in_parallel, plan.as_ref(), true)?;
        }
        Ok(())
    }

    /// A loop with its pragma and its scalar replacement plan.
    fn for_loop(&mut self, l: &Loop, depth: usize, in_parallel: bool) -> Result<()> {
        if let Some(c) = self.coalesced(l, in_parallel)? {
            return self.print_coalesced(l, &c, depth, in_parallel);
        }
        self.uncoalesced_loop(l, depth, in_parallel)
    }

    /// [`Self::for_loop`] without coalescing `l` with the loop inside it.
    fn uncoalesced_loop(&mut self, l: &Loop, depth: usize, in_parallel: bool) -> Result<()> {
        if let Some(u) = self.unrolled_window(l, in_parallel) {
            self.unrolled.insert(loop_key(&u));
            let result = self.for_loop(&u, depth, in_parallel);
            self.unrolled.remove(&loop_key(&u));
            return result;
        }
        if let Some(jam) = self.jammed_vector_nest(l, in_parallel)? {
            return self.print_jammed_vector_nest(l, jam, depth, in_parallel);
        }
        if let Some(nest) = self.vector_nest(l, in_parallel)? {
            return self.print_vector_nest(l, &nest, depth, in_parallel);
        }
        let plan = self.plan(l, in_parallel)?;
        if self.printed_separable(l, in_parallel, plan.as_ref(), depth, None)? {
            return Ok(());
        }
        self.planned_loop(l, depth, in_parallel, plan.as_ref(), true)
    }

    /// Prints loop `l` in strips when its body is a separable window (module
    /// `separable`), braced after `header` when one is given; whether it did.
    fn printed_separable(
        &mut self,
        l: &Loop,
        in_parallel: bool,
        plan: Option<&Plan>,
        depth: usize,
        header: Option<&str>,
    ) -> Result<bool> {
        let Some(plan) = plan else {
            return Ok(false);
        };
        let Some(window) = self.separable(l, in_parallel, plan) else {
            return Ok(false);
        };
        match header {
            Some(header) => {
                self.line(depth, &format!("{header} {{"));
                self.print_separable(l, plan, &window, depth + 1)?;
                self.line(depth, "}");
            }
            None => self.print_separable(l, plan, &window, depth)?,
        }
        Ok(true)
    }

    /// The separable window of loop `l`'s body (module `separable`), when the options
    /// ask for reassociated reductions with `omp simd`, `l` is an innermost
    /// vectorisable loop of stride 1 inside the `omp parallel for` (or without one),
    /// and its plan holds nothing across the loop and prints every instance inline.
    fn separable(&self, l: &Loop, in_parallel: bool, plan: &Plan) -> Option<separable::Window> {
        if !self.options.reassociate
            || self.options.vectorize != Vectorize::OmpSimd
            || self.vector_off
            || !l.vectorizable
            || !l.stride.is_one()
            || self.is_omp_parallel(l, in_parallel)
            || !plan.hoisted.is_empty()
            || !plan.accumulators.is_empty()
            || self.declarations.contains_key(&loop_key(l))
            || self.collapsed.contains_key(&loop_key(l))
        {
            return None;
        }
        let texts: Vec<String> = plan.instances.iter().cloned().collect::<Option<_>>()?;
        let mut users = Vec::new();
        if !scalar::instances_only(&l.body, &mut users) {
            return None;
        }
        let mut written = BTreeSet::new();
        for (statement, _) in &users {
            let s = self.scop.statement(statement)?;
            written.extend(
                s.accesses
                    .iter()
                    .filter(|a| a.kind == pollen_scop::AccessKind::Write)
                    .map(|a| a.array.clone()),
            );
        }
        let ranks: BTreeMap<String, usize> = self
            .scop
            .arrays
            .iter()
            .map(|a| (a.name.clone(), a.extents.len()))
            .collect();
        let held: Vec<&str> = plan.held.iter().map(|h| h.name.as_str()).collect();
        separable::window(
            &texts,
            &self.iterator_name(&l.iterator),
            &ranks,
            &written,
            &held,
            &self.select_macros,
        )
    }

    /// Loop `l` in strips, each combining its window's rows first (module `separable`).
    fn print_separable(
        &mut self,
        l: &Loop,
        plan: &Plan,
        window: &separable::Window,
        depth: usize,
    ) -> Result<()> {
        let lower = self.exprs.expr(&l.lower)?;
        let upper = self.exprs.expr(&l.upper)?;
        let name = self.iterator_name(&l.iterator);
        let from = self.temporaries.fresh();
        let to = self.temporaries.fresh();
        let rows = self.temporaries.fresh();
        let j = self.temporaries.fresh();
        let last = separable::STRIP - 1;
        let element_type = scalar::element_type(self.scop, &window.array).to_string();
        let it_type = self.options.iterator_type.clone();
        self.line(
            depth,
            &format!(
                "for ({it_type} {from} = {lower}; {from} <= {upper}; {from} += {}) {{",
                separable::STRIP
            ),
        );
        let d = depth + 1;
        self.line(
            d,
            &format!(
                "const {it_type} {to} = ({upper}) < {from} + {last} ? ({upper}) : {from} + {last};"
            ),
        );
        self.line(d, &format!("{element_type} {rows}[{}];", window.buffer()));
        self.line(d, "#pragma omp simd");
        let stretch = window.stride;
        self.line(
            d,
            &format!(
                "for ({it_type} {j} = 0; {j} <= {stretch} * ({to} - {from}) + {}; {j}++) {{",
                window.span() - 1
            ),
        );
        let subscript = window.stretch_subscript(&from, &j);
        let combined = format!("{rows}[{j}]");
        for (k, row) in window.rows.iter().enumerate() {
            let element = format!("{row}[{subscript}]");
            let text = if k == 0 {
                format!("{combined} = {element};")
            } else {
                window.update(&combined, &element)
            };
            self.line(d + 1, &text);
        }
        self.line(d, "}");
        self.line(d, "#pragma omp simd");
        let updates: Vec<String> = (0..window.span())
            .map(|o| {
                let element = format!("{rows}[{stretch} * ({name} - {from}) + {o}]");
                window.update(&window.variable, &element)
            })
            .collect();
        let mut users = Vec::new();
        collect_users(&l.body, &mut users);
        let header = format!("for ({name} = {from}; {name} <= {to}; {name}++) {{");
        self.line(d, &header);
        self.plan_lines(plan, &users, Some((&window.run, updates)), d + 1)?;
        self.line(d, "}");
        self.line(depth, "}");
        Ok(())
    }

    /// A loop with its pragma; with a plan, after its hoisted loads (in a block of their
    /// own when `own_block`, guarded by the loop's running unless it certainly runs;
    /// otherwise the caller has opened the block) and with its body printed by the plan.
    fn planned_loop(
        &mut self,
        l: &Loop,
        depth: usize,
        in_parallel: bool,
        plan: Option<&Plan>,
        own_block: bool,
    ) -> Result<()> {
        if !l.stride.is_positive() {
            return Err(Error::NonPositiveStride(l.stride.to_string()));
        }
        let lower = self.exprs.expr(&l.lower)?;
        let upper = self.exprs.expr(&l.upper)?;
        let name = self.iterator_name(&l.iterator);
        let parallel = self.is_omp_parallel(l, in_parallel);
        let declarations = self.declarations.remove(&loop_key(l));
        // A loop declaring scratch arrays prints its body without the plan, so its
        // elements stay in memory.
        let accumulators = match (plan, &declarations) {
            (Some(p), None) => &p.accumulators[..],
            _ => &[][..],
        };
        let hoisted = plan.map_or(&[][..], |p| &p.hoisted[..]);
        let blocked = own_block && (!hoisted.is_empty() || !accumulators.is_empty());
        if blocked {
            let cond = self.exprs.cond(&runs(l))?;
            let guard = if cond == "1" {
                "{".to_string()
            } else {
                format!("if ({cond}) {{")
            };
            self.line(depth, &guard);
        }
        let depth_of_loop = if blocked { depth + 1 } else { depth };
        for load in hoisted {
            self.line(depth_of_loop, &load.declaration());
        }
        for load in accumulators {
            self.line(depth_of_loop, &load.variable_declaration());
        }
        // A loop inside whose window is unrolled gets `omp simd`: it is not collapsed.
        // One whose iterations are jammed with vector accumulators stays a canonical
        // loop (with the jam's stride) and may be.
        let collapse = parallel
            && declarations.is_none()
            && collapsible(l)
            && !matches!(unwrap(&l.body), Ast::For(inner) if self.unrolled_window(inner, true).is_some());
        if collapse {
            if let Ast::For(inner) = unwrap(&l.body) {
                self.collapsed.insert(loop_key(inner), l.iterator.clone());
            }
        }
        let reductions = match (plan, &declarations) {
            (Some(p), None) if self.reassociating(l, parallel) => {
                reduction::reductions(p, &self.select_macros)
            }
            _ => None,
        };
        match reductions {
            Some(r) => self.line(depth_of_loop, &reduction_pragma(&r)),
            None => self.pragma(l, parallel, collapse, depth_of_loop),
        }
        let step = if l.stride.is_one() {
            format!("{name}++")
        } else {
            format!("{name} += {}", l.stride)
        };
        let header = format!("for ({name} = {lower}; {name} <= {upper}; {step})");
        self.exprs.enter(&l.iterator, &name);
        let result = match (plan, declarations) {
            (_, Some(declarations)) => {
                self.line(depth_of_loop, &format!("{header} {{"));
                for d in &declarations {
                    self.line(depth_of_loop + 1, d);
                }
                let inner = self.statements(&l.body, depth_of_loop + 1, in_parallel || parallel);
                self.line(depth_of_loop, "}");
                inner
            }
            (plan, None) => match plan {
                Some(plan) => self.planned_body(&header, &l.body, plan, depth_of_loop),
                None => self.body(
                    &header,
                    &l.body,
                    depth_of_loop,
                    in_parallel || parallel,
                    false,
                ),
            },
        };
        self.exprs.leave();
        result?;
        for load in accumulators {
            self.line(depth_of_loop, &load.store());
        }
        if blocked {
            self.line(depth, "}");
        }
        Ok(())
    }

    /// Loop `l` and the loop inside it as one loop (module `coalesce`), when the options
    /// ask for reassociated reductions with `omp simd` and the two loops qualify: the
    /// inner one is `l`'s whole body, runs from 0 over bounds that do not depend on `l`,
    /// its body is statement instances whose scalar replacement plan accumulates with
    /// reduction clauses, and those instances read flat.
    fn coalesced<'l>(&mut self, l: &'l Loop, in_parallel: bool) -> Result<Option<Coalesced<'l>>> {
        let Ast::For(inner) = unwrap(&l.body) else {
            return Ok(None);
        };
        let plain = |p: &Self, q: &Loop| {
            q.stride.is_one()
                && !p.collapsed.contains_key(&loop_key(q))
                && !p.declarations.contains_key(&loop_key(q))
                && !p.unrolled.contains(&loop_key(q))
                && !p.is_omp_parallel(q, in_parallel)
        };
        if !self.options.scalar_replacement
            || !self.options.reassociate
            || self.options.vectorize != Vectorize::OmpSimd
            || self.vector_off
            || !plain(self, l)
            || !plain(self, inner)
            || inner.vectorizable
            || affine(&inner.lower) != Some((0, BTreeMap::new()))
            || inner.upper.mentions(&l.iterator)
        {
            return Ok(None);
        }
        let mut users = Vec::new();
        if !scalar::instances_only(&inner.body, &mut users) || users.is_empty() {
            return Ok(None);
        }
        if let (Some(a), Some(b)) = (
            pollen_codegen::trip_count(l),
            pollen_codegen::trip_count(inner),
        ) {
            if a * b < Int::from(reduction::MIN_TRIPS) {
                return Ok(None);
            }
        }
        let saved = self.temporaries.clone();
        let index = self.iterator_name(&l.iterator);
        self.exprs.enter(&l.iterator, &index);
        let found = self.coalesced_in_scope(l, inner, &index);
        self.exprs.leave();
        let found = found?;
        if found.is_none() {
            self.temporaries = saved;
        }
        Ok(found)
    }

    /// [`Self::coalesced`] with `l`'s iterator in scope, printed `index`.
    fn coalesced_in_scope<'l>(
        &mut self,
        l: &Loop,
        inner: &'l Loop,
        index: &str,
    ) -> Result<Option<Coalesced<'l>>> {
        let Some(plan) = self.plan(inner, true)? else {
            return Ok(None);
        };
        if !plan.shared.is_empty() || !plan.held.is_empty() {
            return Ok(None);
        }
        let Some(reductions) = reduction::reductions(&plan, &self.select_macros) else {
            return Ok(None);
        };
        self.exprs
            .enter(&inner.iterator, &self.iterator_name(&inner.iterator));
        let instances = self.instances_calling(&inner.body, true);
        self.exprs.leave();
        let instances = instances?;
        let written: BTreeSet<&str> = instances
            .iter()
            .flat_map(|i| &i.statement.accesses)
            .filter(|a| a.kind == pollen_scop::AccessKind::Write)
            .map(|a| a.array.as_str())
            .collect();
        let mut rows = BTreeMap::new();
        let mut texts = Vec::new();
        for (k, inst) in instances.iter().enumerate() {
            let Some(mut replaced) = coalesce::flat_references(
                self.scop,
                inst,
                (&l.iterator, &inner.iterator),
                index,
                &written,
                &mut rows,
            ) else {
                return Ok(None);
            };
            replaced.extend(plan.replacements.get(k).into_iter().flatten().cloned());
            texts.push(scalar::inline(inst, &replaced));
        }
        if rows.is_empty() {
            return Ok(None);
        }
        Ok(Some(Coalesced {
            inner,
            plan,
            reductions,
            texts,
            rows,
        }))
    }

    /// Prints the coalesced form of `l` (module `coalesce`) where the arrays' rows hold
    /// the inner loop's iterations, and `l` as it is printed otherwise elsewhere.
    fn print_coalesced(
        &mut self,
        l: &Loop,
        c: &Coalesced,
        depth: usize,
        in_parallel: bool,
    ) -> Result<()> {
        let row = self.exprs.expr(&coalesce::plus_one(&c.inner.upper))?;
        let lower = self.exprs.expr(&l.lower)?;
        let after = self.exprs.expr(&coalesce::plus_one(&l.upper))?;
        let index = self.iterator_name(&l.iterator);
        self.line(
            depth,
            &format!("if ({}) {{", coalesce::rows_check(&c.rows, &row)),
        );
        let runs = Cond::And(vec![runs(l), runs(c.inner)]);
        let cond = self.exprs.cond(&runs)?;
        self.line(
            depth + 1,
            &if cond == "1" {
                "{".to_string()
            } else {
                format!("if ({cond}) {{")
            },
        );
        for load in &c.plan.hoisted {
            self.line(depth + 2, &load.declaration());
        }
        for load in &c.plan.accumulators {
            self.line(depth + 2, &load.variable_declaration());
        }
        self.line(depth + 2, &reduction_pragma(&c.reductions));
        let first = if lower == "0" {
            "0".to_string()
        } else {
            format!("{} * {}", coalesce::factor(&lower), coalesce::factor(&row))
        };
        let header = format!(
            "for ({index} = {first}; {index} <= {} * {} - 1; {index}++)",
            coalesce::factor(&after),
            coalesce::factor(&row)
        );
        if c.texts.len() == 1 {
            self.line(depth + 2, &header);
            self.line(depth + 3, &c.texts[0]);
        } else {
            self.line(depth + 2, &format!("{header} {{"));
            for text in &c.texts {
                self.line(depth + 3, text);
            }
            self.line(depth + 2, "}");
        }
        for load in &c.plan.accumulators {
            self.line(depth + 2, &load.store());
        }
        self.line(depth + 1, "}");
        self.line(depth, "} else {");
        self.uncoalesced_loop(l, depth + 1, in_parallel)?;
        self.line(depth, "}");
        Ok(())
    }

    /// The vector accumulator form of the nest of loop `l`, when the options ask for it
    /// and the nest qualifies (module `vector`).
    fn vector_nest<'l>(
        &mut self,
        l: &'l Loop,
        in_parallel: bool,
    ) -> Result<Option<VectorNest<'l>>> {
        if !self.options.vector_registers
            || self.vector_off
            || self.is_omp_parallel(l, in_parallel)
            || self.collapsed.contains_key(&loop_key(l))
        {
            return Ok(None);
        }
        let Some((links, v)) = vector::chain(l) else {
            return Ok(None);
        };
        let busy = |p: &Self, c: &Loop| {
            p.declarations.contains_key(&loop_key(c))
                || (p.options.openmp && c.parallel && !in_parallel)
        };
        let inner_busy = links
            .iter()
            .skip(1)
            .any(|k| matches!(k, Link::For(c) if busy(self, c)));
        if inner_busy || self.declarations.contains_key(&loop_key(l)) || busy(self, v) {
            return Ok(None);
        }
        let Some(guard) = vector::guard(&links, v, self.apart) else {
            return Ok(None);
        };
        let iterators = vector::iterators(&links);
        for it in &iterators {
            let name = self.iterator_name(it);
            self.exprs.enter(it, &name);
        }
        self.exprs.enter(&v.iterator, "pollen_strip_");
        let instances = self.instances(&v.body);
        for _ in 0..=iterators.len() {
            self.exprs.leave();
        }
        let analysis = vector::analyse(
            self.scop,
            &instances?,
            &iterators,
            &v.iterator,
            &self.select_macros,
            self.options.vector_bytes,
        );
        Ok(analysis.map(|analysis| VectorNest {
            links,
            v,
            guard,
            analysis,
            jam: None,
        }))
    }

    /// The vector accumulator nest below loop `p` with consecutive iterations of `p`
    /// side by side, when the options ask for vector accumulators and `p` has stride 1:
    /// `p`'s body leads through loops only (`between`, none of them parallel or with
    /// scratch arrays) to a loop whose vector nest qualifies, no loop or guard below `p`
    /// depends on `p`, and the copies' accumulators are pairwise distinct elements
    /// whatever the iterations of the loops between ([`vector::copies_apart`]).
    ///
    /// When no vector operand mentions `p` ([`vector::Analysis::reads_move_with`]), the
    /// copies share every vector loaded: [`vector::Analysis::shared_copies`] of them (fewer when the
    /// accumulators would not fit), unless a loop between qualifies the same way (the
    /// innermost such loop is jammed). Otherwise only the loop directly around the nest's
    /// loop is jammed, [`vector::JAM`] copies. `p` may be the `omp parallel for` or a
    /// loop collapsed into it: the jammed loop stays a loop in canonical form
    /// ([`Self::print_jammed_vector_nest`]).
    fn jammed_vector_nest<'l>(
        &mut self,
        p: &'l Loop,
        in_parallel: bool,
    ) -> Result<Option<Jam<'l>>> {
        if !self.options.vector_registers
            || self.vector_off
            || !p.stride.is_one()
            || self.declarations.contains_key(&loop_key(p))
        {
            return Ok(None);
        }
        let inside_parallel = in_parallel || self.is_omp_parallel(p, in_parallel);
        self.exprs
            .enter(&p.iterator, &self.iterator_name(&p.iterator));
        let mut entered = 1;
        let mut between: Vec<&'l Loop> = Vec::new();
        let mut at: &'l Ast = &p.body;
        let found = loop {
            let Ast::For(l) = unwrap(at) else {
                break Ok(None);
            };
            match self.vector_nest(l, inside_parallel) {
                Ok(Some(nest)) => break Ok(Some((l, nest))),
                Ok(None) => {}
                Err(e) => break Err(e),
            }
            if self.is_omp_parallel(l, inside_parallel)
                || self.declarations.contains_key(&loop_key(l))
                || self.collapsed.contains_key(&loop_key(l))
                || !l.stride.is_positive()
            {
                break Ok(None);
            }
            between.push(l);
            self.exprs
                .enter(&l.iterator, &self.iterator_name(&l.iterator));
            entered += 1;
            at = &l.body;
        };
        for _ in 0..entered {
            self.exprs.leave();
        }
        let Some((l, mut nest)) = found? else {
            return Ok(None);
        };
        let copies = match jam_copies(&nest, p, &between) {
            Some(copies) => copies,
            None => return Ok(None),
        };
        // A loop between that would be jammed sharing its vectors takes precedence.
        if (0..between.len()).any(|b| {
            !nest.analysis.reads_move_with(&between[b].iterator)
                && between[b].stride.is_one()
                && jam_copies(&nest, between[b], &between[b + 1..]).is_some()
        }) {
            return Ok(None);
        }
        nest.jam = Some((p.iterator.clone(), copies));
        let inside = self.groups_inside(p, &between, &nest.analysis, in_parallel);
        Ok(Some(Jam {
            between,
            inner: l,
            nest,
            inside,
        }))
    }

    /// Whether the groups of a jammed loop `p` may run inside the loops `between` it
    /// and its nest, so that the vectors a group loads (a row of a convolution's input
    /// for every output channel) are reused by the next group from the cache: there
    /// are loops between, no two iterations of `p` write a common element
    /// ([`vector::apart_across`]), and the parallelism stays: when `p` is the `omp
    /// parallel for`, the first loop between is parallel and takes the pragma; when
    /// `p` is collapsed into the loop around it, the first loop between may be
    /// collapsed in its place ([`collapsible`]'s conditions).
    fn groups_inside(
        &self,
        p: &Loop,
        between: &[&Loop],
        analysis: &vector::Analysis,
        in_parallel: bool,
    ) -> bool {
        let Some(first) = between.first() else {
            return false;
        };
        let names: Vec<&str> = between.iter().map(|q| q.iterator.as_str()).collect();
        if !vector::apart_across(analysis, &p.iterator, &names) {
            return false;
        }
        if self.is_omp_parallel(p, in_parallel) {
            return first.parallel;
        }
        match self.collapsed.get(&loop_key(p)) {
            Some(outer) => {
                first.parallel
                    && !first.vectorizable
                    && first.stride.is_one()
                    && !first.lower.mentions(outer)
                    && !first.upper.mentions(outer)
            }
            None => true,
        }
    }

    /// Prints loop `p` as a jammed vector accumulator nest ([`Self::jammed_vector_nest`]):
    /// a loop over groups of `J` consecutive iterations (the copies) around the loops
    /// between, or inside them ([`Jam::inside`]), and in it a full group runs the jammed
    /// nest and the last, partial group its iterations one by one with the plain nest.
    /// The loops stay perfectly nested: outside, the `omp parallel for` that `p` may
    /// carry collapses the first loop between when that one is parallel too
    /// ([`collapsible`]); inside, the first loop between takes that pragma (collapsing
    /// the groups when they follow it directly).
    fn print_jammed_vector_nest(
        &mut self,
        p: &Loop,
        jam: Jam,
        depth: usize,
        in_parallel: bool,
    ) -> Result<()> {
        let Jam {
            between,
            inner,
            nest,
            inside,
        } = jam;
        let copies = nest.copies();
        let parallel = self.is_omp_parallel(p, in_parallel);
        let name = self.iterator_name(&p.iterator);
        // The loops from the outermost printed: the jammed loop's groups, then the
        // loops between; or the loops between, then the groups.
        let opened: Vec<&Loop> = if inside {
            between.iter().copied().chain([p]).collect()
        } else {
            std::iter::once(p).chain(between.iter().copied()).collect()
        };
        if !inside {
            let collapse = parallel && !between.is_empty() && collapsible(p);
            self.pragma(p, parallel, collapse, depth);
        } else if parallel {
            // The first loop between carries the jammed loop's pragma, with the groups
            // collapsed into it when they follow it directly.
            let mut private = self.inner_iterators(&between[0].body);
            private.push(name.clone());
            let collapse = if between.len() == 1 {
                " collapse(2)"
            } else {
                ""
            };
            self.line(
                depth,
                &format!(
                    "#pragma omp parallel for{collapse} private({})",
                    private.join(", ")
                ),
            );
        }
        let mut d = depth;
        let mut entered = 0;
        let mut printed = Ok(());
        for q in opened {
            let header = if std::ptr::eq(q, p) {
                self.groups_header(p, copies)
            } else {
                self.loop_header(q)
            };
            match header {
                Ok(header) => self.line(d, &format!("{header} {{")),
                Err(e) => {
                    printed = Err(e);
                    break;
                }
            }
            self.exprs
                .enter(&q.iterator, &self.iterator_name(&q.iterator));
            entered += 1;
            d += 1;
        }
        let upper = self.exprs.argument(&p.upper);
        let inside_parallel = in_parallel || parallel;
        if let (true, Ok(upper)) = (printed.is_ok(), &upper) {
            self.line(d, &format!("if ({name} <= {upper} - {}) {{", copies - 1));
            printed = self.print_vector_nest(inner, &nest, d + 1, inside_parallel);
        }
        if let (true, Ok(upper)) = (printed.is_ok(), &upper) {
            self.line(d, "} else {");
            let one = self.temporaries.fresh();
            let it_type = self.options.iterator_type.clone();
            self.line(
                d + 1,
                &format!("for ({it_type} {one} = {name}; {one} <= {upper}; {one}++) {{"),
            );
            self.exprs.enter(&p.iterator, &one);
            let single = VectorNest { jam: None, ..nest };
            printed = self.print_vector_nest(inner, &single, d + 2, inside_parallel);
            self.exprs.leave();
            self.line(d + 1, "}");
            self.line(d, "}");
        }
        for _ in 0..entered {
            self.exprs.leave();
        }
        printed?;
        upper?;
        for _ in 0..between.len() + 1 {
            d -= 1;
            self.line(d, "}");
        }
        Ok(())
    }

    /// `for (k = lower; k <= upper; k += copies)`: the groups of a jammed loop `p`.
    fn groups_header(&mut self, p: &Loop, copies: usize) -> Result<String> {
        let lower = self.exprs.expr(&p.lower)?;
        let upper = self.exprs.argument(&p.upper)?;
        let name = self.iterator_name(&p.iterator);
        Ok(format!(
            "for ({name} = {lower}; {name} <= {upper}; {name} += {copies})"
        ))
    }

    /// `for (c = lower; c <= upper; c++)` for loop `q` in the current scope.
    fn loop_header(&mut self, q: &Loop) -> Result<String> {
        let lower = self.exprs.expr(&q.lower)?;
        let upper = self.exprs.expr(&q.upper)?;
        let name = self.iterator_name(&q.iterator);
        let step = if q.stride.is_one() {
            format!("{name}++")
        } else {
            format!("{name} += {}", q.stride)
        };
        Ok(format!("for ({name} = {lower}; {name} <= {upper}; {step})"))
    }

    /// Brings the jammed loop's iterator into scope as copy `r` (`(p + r)`); false when
    /// the nest is not jammed.
    fn enter_copy(&mut self, nest: &VectorNest, r: usize) -> bool {
        match &nest.jam {
            Some((it, _)) => {
                let name = self.iterator_name(it);
                let printed = if r == 0 {
                    name
                } else {
                    format!("({name} + {r})")
                };
                self.exprs.enter(it, &printed);
                true
            }
            None => false,
        }
    }

    /// The statement instances of a body of instances, with the printer's current scope.
    fn instances<'b>(&mut self, body: &'b Ast) -> Result<Vec<scalar::Instance<'b>>>
    where
        'a: 'b,
    {
        self.instances_calling(body, false)
    }

    /// [`Self::instances`], scanned as scalar replacement scans them when `value_calls`
    /// (the references among the arguments of the file's value calls included).
    fn instances_calling<'b>(
        &mut self,
        body: &'b Ast,
        value_calls: bool,
    ) -> Result<Vec<scalar::Instance<'b>>>
    where
        'a: 'b,
    {
        let calls = if value_calls {
            self.value_calls.clone()
        } else {
            BTreeSet::new()
        };
        let mut users = Vec::new();
        collect_users(body, &mut users);
        let dimensions: BTreeMap<String, usize> = self
            .scop
            .arrays
            .iter()
            .map(|a| (a.name.clone(), a.extents.len()))
            .collect();
        let mut out = Vec::new();
        for (statement, args) in users {
            out.push(scalar::instance(
                self.scop,
                &dimensions,
                &mut self.exprs,
                statement,
                args,
                &calls,
            )?);
        }
        Ok(out)
    }

    /// Prints loop `l` as a vector accumulator nest (module `vector`): a block with the
    /// vector type, the strips with as many vectors per accumulator as the plan's
    /// groups, then with one, then `l` itself for the iterations of `V` left.
    fn print_vector_nest(
        &mut self,
        l: &Loop,
        nest: &VectorNest,
        depth: usize,
        in_parallel: bool,
    ) -> Result<()> {
        let ty = nest.analysis.element_type.clone();
        let it_type = self.options.iterator_type.clone();
        self.line(depth, "{");
        let d = depth + 1;
        // The full vector type and a half one for the last lanes, each with its number
        // of elements; with wide vectors (of 8 elements or more) also a quarter one, so
        // that a row of 28 is 16 + 8 + 4, not 16 + 8 and 4 left to the scalar loop.
        let mut types = Vec::new();
        let (full, full_bytes) = nest.analysis.full_vector();
        let part = |d: usize| match (nest.analysis.element_bytes, full) {
            (None, Some(n)) => format!("{} * sizeof({ty})", n / d),
            _ => (nest.analysis.vector_bytes / d).to_string(),
        };
        let mut sizes = vec![(full_bytes, full), (part(2), full.map(|n| n / 2))];
        let quarter =
            nest.analysis.vector_bytes >= vector::WIDE_BYTES && full.is_none_or(|n| n >= 8);
        if quarter {
            sizes.push((part(4), full.map(|n| n / 4)));
        }
        for (bytes, count) in sizes {
            let vector_type = self.temporaries.fresh();
            let lanes = self.temporaries.fresh();
            self.line(
                d,
                &format!(
                    "typedef {ty} {vector_type} __attribute__((vector_size({bytes}), aligned(sizeof({ty})), may_alias));"
                ),
            );
            self.line(
                d,
                &format!(
                    "const {it_type} {lanes} = ({it_type}) (sizeof({vector_type}) / sizeof({ty}));"
                ),
            );
            // The shuffles' mask type: signed integers of the elements' size.
            let mask_type = if nest.analysis.deinterleaves() {
                let name = self.temporaries.fresh();
                let element = vector::mask_element(&ty, nest.analysis.element_bytes);
                self.line(
                    d,
                    &format!("typedef {element} {name} __attribute__((vector_size({bytes})));"),
                );
                name
            } else {
                String::new()
            };
            types.push((vector_type, lanes, count, mask_type));
        }
        let strip = self.temporaries.fresh();
        let lower = self.exprs.expr(&nest.v.lower)?;
        let upper = self.exprs.argument(&nest.v.upper)?;
        self.line(d, &format!("{it_type} {strip} = {lower};"));
        let guard = self.exprs.cond(&nest.guard)?;
        let inner = if guard == "1" {
            d
        } else {
            self.line(d, &format!("if ({guard}) {{"));
            d + 1
        };
        let groups = nest.analysis.groups(nest.copies());
        // Strips of `groups` full vectors, then of half as many, ..., then of one, then
        // one half vector (and one quarter vector).
        let mut phases: Vec<(usize, usize)> =
            std::iter::successors(Some(groups), |&m| (m > 1).then_some(m / 2))
                .map(|m| (m, 0))
                .collect();
        phases.push((1, 1));
        if quarter {
            phases.push((1, 2));
        }
        for (m, t) in phases {
            let (vector_type, lanes, count, mask_type) = &types[t];
            let width = if m == 1 {
                lanes.clone()
            } else {
                format!("{m} * {lanes}")
            };
            // A half or quarter vector covers at most one strip: `if`, not `for`.
            let fits = format!("{strip} <= {upper} - ({width} - 1)");
            let header = if t == 0 {
                format!("for (; {fits}; {strip} += {width}) {{")
            } else {
                format!("if ({fits}) {{")
            };
            self.line(inner, &header);
            let shape = Shape {
                vector_type,
                lanes,
                count: *count,
                mask_type,
            };
            self.vector_strip(nest, m, &strip, &shape, inner + 1)?;
            if t != 0 {
                self.line(inner + 1, &format!("{strip} += {width};"));
            }
            self.line(inner, "}");
        }
        if inner > d {
            self.line(d, "}");
        }
        // The iterations of V left, in the original form.
        let mut rest = l.clone();
        set_vector_lower(&mut rest, &nest.v.iterator, Expr::Var(strip.clone()));
        self.exprs.enter(&strip, &strip);
        self.vector_off = true;
        let mut printed = Ok(());
        for r in 0..nest.copies() {
            let entered = self.enter_copy(nest, r);
            printed = self.for_loop(&rest, d, in_parallel);
            if entered {
                self.exprs.leave();
            }
            if printed.is_err() {
                break;
            }
        }
        self.vector_off = false;
        self.exprs.leave();
        printed?;
        self.line(depth, "}");
        Ok(())
    }

    /// One strip of `m` vectors per accumulator (and copy) starting at `strip`: the
    /// loads, the chain with the vector statements, the stores.
    fn vector_strip(
        &mut self,
        nest: &VectorNest,
        m: usize,
        strip: &str,
        shape: &Shape,
        depth: usize,
    ) -> Result<()> {
        let (vector_type, lanes) = (shape.vector_type, shape.lanes);
        let lane = |g: usize| {
            if g == 0 {
                strip.to_string()
            } else {
                format!("({strip} + {g} * {lanes})")
            }
        };
        let copies = nest.copies();
        let n_acc = nest.analysis.accumulators.len();
        // names[r][a][g]: the variable of accumulator `a` of copy `r`, vector `g`.
        let names: Vec<Vec<Vec<String>>> = (0..copies)
            .map(|_| {
                (0..n_acc)
                    .map(|_| (0..m).map(|_| self.temporaries.fresh()).collect())
                    .collect()
            })
            .collect();
        let its = vector::iterators(&nest.links);
        // The accumulators' element texts, per copy and vector, with the chain's
        // iterators as printed inside it (they do not occur in the accumulators'
        // subscripts).
        let mut addresses: Vec<Vec<Vec<String>>> = vec![vec![Vec::new(); n_acc]; copies];
        for (r, per_copy) in addresses.iter_mut().enumerate() {
            for g in 0..m {
                let entered = self.enter_copy(nest, r);
                self.exprs.enter(&nest.v.iterator, &lane(g));
                for it in &its {
                    let name = self.iterator_name(it);
                    self.exprs.enter(it, &name);
                }
                let instances = self.instances(&nest.v.body);
                for _ in 0..its.len() + 1 + usize::from(entered) {
                    self.exprs.leave();
                }
                let instances = instances?;
                for (a, (k, range)) in nest.analysis.accumulators.iter().enumerate() {
                    per_copy[a].push(element_text(&instances[*k], range));
                }
            }
        }
        let each = |f: &dyn Fn(&str, &str) -> String| {
            let mut lines = Vec::new();
            for r in 0..copies {
                for a in 0..n_acc {
                    for g in 0..m {
                        lines.push(f(&names[r][a][g], &addresses[r][a][g]));
                    }
                }
            }
            lines
        };
        for line in
            each(&|name, address| format!("{vector_type} {name} = *({vector_type} *) &{address};"))
        {
            self.line(depth, &line);
        }
        // The chain.
        let mut d = depth;
        let mut entered = 0;
        for link in &nest.links {
            match link {
                Link::For(c) => {
                    let lower = self.exprs.expr(&c.lower)?;
                    let upper = self.exprs.expr(&c.upper)?;
                    let name = self.iterator_name(&c.iterator);
                    let step = if c.stride.is_one() {
                        format!("{name}++")
                    } else {
                        format!("{name} += {}", c.stride)
                    };
                    self.line(
                        d,
                        &format!("for ({name} = {lower}; {name} <= {upper}; {step}) {{"),
                    );
                    self.exprs.enter(&c.iterator, &name);
                    entered += 1;
                }
                Link::If(cond) => {
                    let cond = self.exprs.cond(cond)?;
                    self.line(d, &format!("if ({cond}) {{"));
                }
            }
            d += 1;
        }
        // statements[r][g]: the instances of copy `r` at vector `g`; gathered[r][g]:
        // the same at element `element` of that vector, for the gathered operands.
        let gathers = nest.analysis.operands.iter().flatten().any(|(_, o)| {
            *o == Operand::Gather
                || (matches!(o, Operand::Deinterleave(_)) && shape.count.is_none())
        });
        let ty = nest.analysis.element_type.clone();
        let (gathered_vector, element) = if gathers {
            (self.temporaries.fresh(), self.temporaries.fresh())
        } else {
            (String::new(), String::new())
        };
        let mut statements = Vec::new();
        let mut gathered = Vec::new();
        for r in 0..copies {
            let mut per_copy = Vec::new();
            let mut per_copy_gathered = Vec::new();
            for g in 0..m {
                for at_element in [false, true] {
                    if at_element && !gathers {
                        continue;
                    }
                    let copy = self.enter_copy(nest, r);
                    let value = if at_element {
                        format!("({} + {element})", lane(g))
                    } else {
                        lane(g)
                    };
                    self.exprs.enter(&nest.v.iterator, &value);
                    let instances = self.instances(&nest.v.body);
                    self.exprs.leave();
                    if copy {
                        self.exprs.leave();
                    }
                    if at_element {
                        per_copy_gathered.push(instances?);
                    } else {
                        per_copy.push(instances?);
                    }
                }
            }
            statements.push(per_copy);
            gathered.push(per_copy_gathered);
        }
        let n_instances = statements[0][0].len();
        for k in 0..n_instances {
            for (r, per_copy) in statements.iter().enumerate() {
                for (g, instances) in per_copy.iter().enumerate() {
                    let inst = &instances[k];
                    let mut replaced = Vec::new();
                    for (range, operand) in &nest.analysis.operands[k] {
                        match operand {
                            Operand::Accumulator(a) => {
                                replaced.push((range.clone(), names[r][*a][g].clone()))
                            }
                            Operand::Lane => {
                                let element = element_text(inst, range);
                                replaced.push((
                                    range.clone(),
                                    format!("(*({vector_type} *) &{element})"),
                                ));
                            }
                            Operand::Gather => {
                                let value = element_text(&gathered[r][g][k], range);
                                replaced.push((
                                    range.clone(),
                                    format!(
                                        "({{ {vector_type} {gathered_vector}; for ({it_type} {element} = 0; {element} < {lanes}; {element}++) {gathered_vector}[{element}] = {value}; {gathered_vector}; }})",
                                        it_type = self.options.iterator_type
                                    ),
                                ));
                            }
                            Operand::Deinterleave(stride) => match shape.count {
                                Some(n) => {
                                    let element = element_text(inst, range);
                                    let text = self.deinterleaved(&element, *stride, n, &ty, shape);
                                    replaced.push((range.clone(), text));
                                }
                                None => {
                                    let value = element_text(&gathered[r][g][k], range);
                                    replaced.push((
                                        range.clone(),
                                        format!(
                                            "({{ {vector_type} {gathered_vector}; for ({it_type} {element} = 0; {element} < {lanes}; {element}++) {gathered_vector}[{element}] = {value}; {gathered_vector}; }})",
                                            it_type = self.options.iterator_type
                                        ),
                                    ));
                                }
                            },
                            Operand::Scalar => {}
                        }
                    }
                    let selects = &nest.analysis.selects[k];
                    let whole = 0..inst.scanned.as_ref().map_or(0, |(t, _)| t.len());
                    let replaced = if selects.is_empty() {
                        replaced
                    } else {
                        replaced.sort_by_key(|(r, _)| r.start);
                        self.with_selects(inst, &replaced, selects, whole, &ty, shape)
                    };
                    let text = scalar::inline(inst, &replaced);
                    self.line(d, &text);
                }
            }
        }
        for _ in 0..entered {
            self.exprs.leave();
        }
        for _ in &nest.links {
            d -= 1;
            self.line(d, "}");
        }
        for line in each(&|name, address| format!("*({vector_type} *) &{address} = {name};")) {
            self.line(depth, &line);
        }
        Ok(())
    }

    /// The vector of the elements `element`, `element + stride`, ... (`n` lanes of
    /// `shape`'s type) as a statement expression: the vectors of [`vector::deinterleave`]
    /// loaded from `&element` on, put together by `pollen_shuffle`.
    fn deinterleaved(
        &mut self,
        element: &str,
        stride: usize,
        n: usize,
        ty: &str,
        shape: &Shape,
    ) -> String {
        self.uses_shuffle = true;
        let vt = shape.vector_type;
        let (starts, shuffles) = vector::deinterleave(stride, n);
        let base = self.temporaries.fresh();
        let mut text = format!("({{ const {ty} *{base} = &{element};");
        let loaded: Vec<String> = starts
            .iter()
            .map(|&b| {
                let name = self.temporaries.fresh();
                let at = if b == 0 {
                    base.clone()
                } else {
                    format!("({base} + {b})")
                };
                text.push_str(&format!(" {vt} {name} = *(const {vt} *) {at};"));
                name
            })
            .collect();
        let mut last = loaded[0].clone();
        for (k, indices) in shuffles.iter().enumerate() {
            let second = loaded.get(k + 1).unwrap_or(&loaded[0]);
            let name = self.temporaries.fresh();
            let indices: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
            text.push_str(&format!(
                " {vt} {name} = pollen_shuffle({last}, {second}, {}, {});",
                shape.mask_type,
                indices.join(", ")
            ));
            last = name;
        }
        text.push_str(&format!(" {last}; }})"));
        text
    }

    /// The replacements of the tokens `within` of instance `inst`: the outermost vector
    /// selects there as vector comparisons and bitwise selects ([`Self::select_text`]),
    /// and the references `refs` (sorted) outside them.
    fn with_selects(
        &mut self,
        inst: &scalar::Instance,
        refs: &[(std::ops::Range<usize>, String)],
        selects: &[vector::Select],
        within: std::ops::Range<usize>,
        ty: &str,
        shape: &Shape,
    ) -> Vec<(std::ops::Range<usize>, String)> {
        let inside = |a: &std::ops::Range<usize>, b: &std::ops::Range<usize>| {
            b.start <= a.start && a.end <= b.end
        };
        let outer: Vec<&vector::Select> = selects
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                inside(&s.range, &within)
                    && !selects.iter().enumerate().any(|(j, o)| {
                        j != *i && inside(&s.range, &o.range) && inside(&o.range, &within)
                    })
            })
            .map(|(_, s)| s)
            .collect();
        let mut out = Vec::new();
        for s in &outer {
            let text = self.select_text(inst, refs, selects, s, ty, shape);
            out.push((s.range.clone(), text));
        }
        for (r, text) in refs {
            if inside(r, &within) && !outer.iter().any(|s| inside(r, &s.range)) {
                out.push((r.clone(), text.clone()));
            }
        }
        out.sort_by_key(|(r, _)| r.start);
        out
    }

    /// A vector select: `P op Q ? X : Y` as a statement expression that computes `P`
    /// and `Q` once (a scalar one broadcast to every lane), the mask `P op Q` (a signed
    /// integer vector of the lanes' size, every bit set where the comparison holds, none
    /// where it does not, a NaN included) and `(X & mask) | (Y & ~mask)` on the bits:
    /// every lane is what the scalar conditional expression gives.
    fn select_text(
        &mut self,
        inst: &scalar::Instance,
        refs: &[(std::ops::Range<usize>, String)],
        selects: &[vector::Select],
        s: &vector::Select,
        ty: &str,
        shape: &Shape,
    ) -> String {
        let (tokens, _) = inst
            .scanned
            .as_ref()
            .expect("analysed instances are scanned");
        let vt = shape.vector_type;
        let it_type = self.options.iterator_type.clone();
        let operand = |p: &mut Self, r: &std::ops::Range<usize>| {
            let replaced = p.with_selects(inst, refs, selects, r.clone(), ty, shape);
            let vector = !replaced.is_empty()
                && refs
                    .iter()
                    .any(|(t, _)| r.start <= t.start && t.end <= r.end);
            let text = scan::substitute(
                &inst.text,
                tokens,
                r.clone(),
                &inst.statement.iterators,
                &inst.values,
                &replaced,
            );
            let name = p.temporaries.fresh();
            let declaration = if vector {
                format!("{vt} {name} = {text};")
            } else {
                let lane = p.temporaries.fresh();
                format!(
                    "{vt} {name}; for ({it_type} {lane} = 0; {lane} < {lanes}; {lane}++) {name}[{lane}] = {text};",
                    lanes = shape.lanes
                )
            };
            (name, declaration)
        };
        let (p, p_declaration) = operand(self, &s.p);
        let (q, q_declaration) = operand(self, &s.q);
        let mask = self.temporaries.fresh();
        let x = if s.if_true_p { &p } else { &q };
        let y = if s.if_false_p { &p } else { &q };
        format!(
            "({{ {p_declaration} {q_declaration} __typeof__({p} {op} {q}) {mask} = {p} {op} {q}; ({vt}) (((__typeof__({mask})) {x} & {mask}) | ((__typeof__({mask})) {y} & ~{mask})); }})",
            op = s.op
        )
    }

    /// Whether the loop runs at least once whatever the parameters and the enclosing
    /// iterators are (its bounds are constants).
    fn certainly_runs(&mut self, l: &Loop) -> Result<bool> {
        Ok(self.exprs.cond(&runs(l))? == "1")
    }

    /// The scalar replacement plan of a loop, when the options ask for it and the loop
    /// has one; nothing is hoisted out of an `omp parallel for`.
    fn plan(&mut self, l: &Loop, in_parallel: bool) -> Result<Option<Plan>> {
        if !self.options.scalar_replacement || !l.stride.is_positive() {
            return Ok(None);
        }
        let parallel = self.is_omp_parallel(l, in_parallel);
        self.exprs
            .enter(&l.iterator, &self.iterator_name(&l.iterator));
        let plan = scalar::plan(
            l,
            self.scop,
            &mut self.exprs,
            scalar::Place {
                hoist: !parallel,
                unrolled: self.unrolled.contains(&loop_key(l)),
            },
            &mut self.temporaries,
            self.apart,
            scalar::Calls {
                plain: &self.plain_macros,
                values: &self.value_calls,
            },
        );
        self.exprs.leave();
        plan
    }

    /// Loop `l` with its window unrolled ([`pollen_codegen::unrolled_body`]), when the
    /// options ask for vector registers and vectorisation and `l` is a parallel loop that
    /// is not itself the `omp parallel for`; its address is recorded in `unrolled`.
    fn unrolled_window(&mut self, l: &Loop, in_parallel: bool) -> Option<Loop> {
        if !self.options.vector_registers
            || self.vector_off
            || self.options.vectorize == Vectorize::None
            || l.vectorizable
            || self.is_omp_parallel(l, in_parallel)
        {
            return None;
        }
        pollen_codegen::unrolled_body(l, UNROLLED_WINDOW)
    }

    /// Whether a loop may be printed with reduction clauses ([`crate::reduction`]): the
    /// options ask for it and for `omp simd`, it is neither the `omp parallel for` nor
    /// already vectorisable, and it does not run a constant number of times below
    /// [`reduction::MIN_TRIPS`].
    fn reassociating(&self, l: &Loop, parallel: bool) -> bool {
        self.options.reassociate
            && self.options.vectorize == Vectorize::OmpSimd
            && !self.vector_off
            && !parallel
            && !l.vectorizable
            && pollen_codegen::trip_count(l).is_none_or(|n| n >= Int::from(reduction::MIN_TRIPS))
    }

    /// The pragma line of a loop, if it has one; `collapse` joins the parallel loop
    /// directly inside it ([`collapsible`]).
    fn pragma(&mut self, l: &Loop, parallel: bool, collapse: bool, depth: usize) {
        if parallel {
            let private = self.inner_iterators(&l.body);
            let mut pragma = "#pragma omp parallel for".to_string();
            if collapse {
                pragma.push_str(" collapse(2)");
            }
            if has_uneven_iterations(&l.body, &l.iterator) {
                pragma.push_str(" schedule(dynamic)");
            }
            if !private.is_empty() {
                pragma.push_str(&format!(" private({})", private.join(", ")));
            }
            self.line(depth, &pragma);
        } else if l.vectorizable {
            match self.options.vectorize {
                Vectorize::OmpSimd => self.line(depth, "#pragma omp simd"),
                Vectorize::Ivdep => self.line(depth, "#pragma GCC ivdep"),
                Vectorize::None => {}
            }
        }
    }

    /// `header` and a loop body printed by its plan: the shared loads, then each
    /// instance inline or as its macro call; braced unless it is one statement.
    fn planned_body(&mut self, header: &str, body: &Ast, plan: &Plan, depth: usize) -> Result<()> {
        let mut users = Vec::new();
        collect_users(body, &mut users);
        let braced = !plan.shared.is_empty() || !plan.held.is_empty() || users.len() != 1;
        self.line(
            depth,
            &if braced {
                format!("{header} {{")
            } else {
                header.to_string()
            },
        );
        self.plan_lines(plan, &users, None, depth + 1)?;
        if braced {
            self.line(depth, "}");
        }
        Ok(())
    }

    /// The lines of a loop body printed by its plan: the shared loads, the held
    /// variables' declarations, each instance of `users` inline or as its macro call,
    /// and the held variables' stores; the instances of `replaced`'s range (when given)
    /// are printed as its lines instead, once, where the range starts.
    fn plan_lines(
        &mut self,
        plan: &Plan,
        users: &[(&str, &[Expr])],
        replaced: Option<(&std::ops::Range<usize>, Vec<String>)>,
        depth: usize,
    ) -> Result<()> {
        for load in &plan.shared {
            self.line(depth, &load.declaration());
        }
        for load in &plan.held {
            self.line(depth, &load.variable_declaration());
        }
        for (k, ((statement, args), inline)) in users.iter().zip(&plan.instances).enumerate() {
            if let Some((range, lines)) = &replaced {
                if k == range.start {
                    for line in lines {
                        self.line(depth, line);
                    }
                }
                if range.contains(&k) {
                    continue;
                }
            }
            let text = match inline {
                Some(text) => text.clone(),
                None => self.call(statement, args)?,
            };
            self.line(depth, &text);
        }
        for load in &plan.held {
            self.line(depth, &load.store());
        }
        Ok(())
    }

    /// Whether the loop gets `#pragma omp parallel for`.
    fn is_omp_parallel(&self, l: &Loop, in_parallel: bool) -> bool {
        self.options.openmp && l.parallel && !in_parallel
    }

    /// Whether a loop is printed after a pragma (which is kept inside braces: a pragma
    /// line is not a statement of its own).
    fn has_pragma(&self, l: &Loop, in_parallel: bool) -> bool {
        self.is_omp_parallel(l, in_parallel)
            || (l.vectorizable && self.options.vectorize != Vectorize::None)
    }

    /// The printed names of the iterators of the loops inside `ast`, in order of first
    /// appearance.
    fn inner_iterators(&self, ast: &Ast) -> Vec<String> {
        let mut names = Vec::new();
        collect_iterators(ast, &mut names);
        names.iter().map(|n| self.iterator_name(n)).collect()
    }

    /// `S0(c0, c1 + 1);` after checking the statement and its arity.
    fn call(&mut self, statement: &str, args: &[Expr]) -> Result<String> {
        crate::scalar::checked_statement(self.scop, statement, args.len())?;
        let mut printed = Vec::new();
        for a in args {
            printed.push(self.exprs.argument(a)?);
        }
        let name = &self.macros[statement];
        Ok(format!("{name}({});", printed.join(", ")))
    }
}

/// The number of copies of `nest` for consecutive iterations of loop `p` with the loops
/// `between` them: none when a bound or guard below `p` depends on it, or when its
/// copies would not fit in the variables or share a written element.
/// [`vector::Analysis::shared_copies`] (else fewer) copies when no vector operand mentions
/// `p`; otherwise
/// [`vector::JAM`], and only with no loop between.
fn jam_copies(nest: &VectorNest, p: &Loop, between: &[&Loop]) -> Option<usize> {
    let it = p.iterator.as_str();
    let moves = nest.guard.mentions(it)
        || nest.v.lower.mentions(it)
        || nest.v.upper.mentions(it)
        || between
            .iter()
            .any(|q| q.lower.mentions(it) || q.upper.mentions(it))
        || nest.links.iter().any(|k| match k {
            Link::For(c) => c.lower.mentions(it) || c.upper.mentions(it),
            Link::If(c) => c.mentions(it),
        });
    if moves {
        return None;
    }
    let shared = !nest.analysis.reads_move_with(it);
    let candidates: Vec<usize> = if shared {
        vec![
            nest.analysis.shared_copies(),
            vector::JAM_SHARED,
            vector::JAM,
        ]
    } else if between.is_empty() {
        vec![vector::JAM]
    } else {
        Vec::new()
    };
    let names: Vec<&str> = between.iter().map(|q| q.iterator.as_str()).collect();
    candidates.into_iter().find(|&copies| {
        nest.analysis.accumulators.len() * copies <= nest.analysis.variables()
            && vector::copies_apart(&nest.analysis, it, copies, &names)
    })
}

/// `#pragma omp simd reduction(+:t0, t2) reduction(max:t1)`: one clause per operator,
/// in order of first use.
fn reduction_pragma(reductions: &[(String, &'static str)]) -> String {
    let mut clauses: Vec<(&str, Vec<&str>)> = Vec::new();
    for (variable, op) in reductions {
        match clauses.iter_mut().find(|(o, _)| o == op) {
            Some((_, vs)) => vs.push(variable),
            None => clauses.push((op, vec![variable])),
        }
    }
    let mut pragma = "#pragma omp simd".to_string();
    for (op, vs) in clauses {
        pragma.push_str(&format!(" reduction({op}:{})", vs.join(", ")));
    }
    pragma
}

/// The text of the tokens `range` of an instance, its iterators replaced by their values.
fn element_text(inst: &scalar::Instance, range: &std::ops::Range<usize>) -> String {
    let (tokens, _) = inst
        .scanned
        .as_ref()
        .expect("analysed instances are scanned");
    scan::substitute(
        &inst.text,
        tokens,
        range.clone(),
        &inst.statement.iterators,
        &inst.values,
        &[],
    )
}

/// Sets the lower bound of the innermost loop over `iterator` inside `l` to `lower`.
fn set_vector_lower(l: &mut Loop, iterator: &str, lower: Expr) {
    fn visit(ast: &mut Ast, iterator: &str, lower: &Expr) {
        match ast {
            Ast::For(l) if l.iterator == iterator => l.lower = lower.clone(),
            Ast::For(l) => visit(&mut l.body, iterator, lower),
            Ast::Block(children) => children.iter_mut().for_each(|c| visit(c, iterator, lower)),
            Ast::If {
                then, otherwise, ..
            } => {
                visit(then, iterator, lower);
                if let Some(o) = otherwise {
                    visit(o, iterator, lower);
                }
            }
            Ast::User { .. } => {}
        }
    }
    visit(&mut l.body, iterator, &lower);
}

/// Whether the iterations of a loop over `iterator` with this body do uneven amounts of
/// work: a loop inside has one bound that moves with `iterator` and one that does not
/// (a triangle, `for (j = i; j < n; j++)`; tiles of a triangle, `for (c1 = c0; ...)`).
/// The default static schedule would hand one thread the long iterations; a dynamic
/// one balances them. A loop both of whose bounds move (a tile's points,
/// `144 * c0 .. 144 * c0 + 143`) runs as many iterations each time.
/// Whether the parallel loop `l` shares its iterations with the loop that is its whole
/// body (`collapse(2)`): that loop is parallel too, has no pragma of its own, a unit
/// stride and bounds that do not depend on `l`'s iterator (the iteration space is a
/// rectangle), and holds loops itself (so nothing is printed between the two headers: no
/// hoisted loads or their guard). A few tile rows then still keep every thread busy:
/// 7 rows of tiles over 2 threads run as 4 and 3, 7 × 8 tiles as 28 and 28.
fn collapsible(l: &Loop) -> bool {
    let Ast::For(inner) = unwrap(&l.body) else {
        return false;
    };
    inner.parallel
        && !inner.vectorizable
        && inner.stride.is_one()
        && !inner.lower.mentions(&l.iterator)
        && !inner.upper.mentions(&l.iterator)
        && holds_loops(&inner.body)
}

/// Whether `ast` is or contains a loop.
fn holds_loops(ast: &Ast) -> bool {
    match ast {
        Ast::For(_) => true,
        Ast::Block(children) => children.iter().any(holds_loops),
        Ast::If {
            then, otherwise, ..
        } => holds_loops(then) || otherwise.as_deref().is_some_and(holds_loops),
        Ast::User { .. } => false,
    }
}

fn has_uneven_iterations(body: &Ast, iterator: &str) -> bool {
    match body {
        Ast::Block(children) => children.iter().any(|c| has_uneven_iterations(c, iterator)),
        Ast::If {
            then, otherwise, ..
        } => {
            has_uneven_iterations(then, iterator)
                || otherwise
                    .as_deref()
                    .is_some_and(|o| has_uneven_iterations(o, iterator))
        }
        Ast::For(inner) => {
            inner.lower.mentions(iterator) != inner.upper.mentions(iterator)
                || has_uneven_iterations(&inner.body, iterator)
        }
        Ast::User { .. } => false,
    }
}

/// The key of a loop in [`AstPrinter::declarations`]: its address, stable while the AST
/// is printed.
fn loop_key(l: &Loop) -> usize {
    l as *const Loop as usize
}

/// The keys of the loops of `ast` whose bodies get a declaration of a scratch array used
/// by `statements`, whose first `tile_args` arguments say which tile an instance belongs
/// to: one iteration of each such loop is one tile (its iterator is a tile argument and
/// no loop inside it holds all of its instances with a tile argument of its own), so the
/// array is fresh for every tile and private to the thread running it. Code generation
/// may split a group's tile loops into pieces (ranges where only some statements run):
/// each piece gets its own declaration. The flag says whether some instance runs under
/// no tile loop (a single tile: the array is then also declared at the top of the
/// block, which the tile loops' own declarations shadow).
pub(crate) fn enclosing_loops(
    ast: &Ast,
    statements: &[String],
    tile_args: usize,
) -> (Vec<usize>, bool) {
    fn count(ast: &Ast, statements: &[String]) -> usize {
        match ast {
            Ast::Block(children) => children.iter().map(|c| count(c, statements)).sum(),
            Ast::For(l) => count(&l.body, statements),
            Ast::If {
                then, otherwise, ..
            } => count(then, statements) + otherwise.as_deref().map_or(0, |o| count(o, statements)),
            Ast::User { statement, .. } => usize::from(statements.contains(statement)),
        }
    }
    fn loops(ast: &Ast) -> Vec<&Loop> {
        match ast {
            Ast::Block(children) => children.iter().flat_map(loops).collect(),
            Ast::For(l) => vec![l],
            Ast::If {
                then, otherwise, ..
            } => {
                let mut out = loops(then);
                if let Some(o) = otherwise {
                    out.extend(loops(o));
                }
                out
            }
            Ast::User { .. } => Vec::new(),
        }
    }
    fn tiles_mention(ast: &Ast, statements: &[String], k: usize, iterator: &str) -> bool {
        match ast {
            Ast::Block(children) => children
                .iter()
                .any(|c| tiles_mention(c, statements, k, iterator)),
            Ast::For(l) => tiles_mention(&l.body, statements, k, iterator),
            Ast::If {
                then, otherwise, ..
            } => {
                tiles_mention(then, statements, k, iterator)
                    || otherwise
                        .as_deref()
                        .is_some_and(|o| tiles_mention(o, statements, k, iterator))
            }
            Ast::User { statement, args } => {
                statements.contains(statement) && args.iter().take(k).any(|a| a.mentions(iterator))
            }
        }
    }
    /// The sites for the instances under `ast` (which are not under a tile loop yet);
    /// false when some of them are under none.
    fn sites(ast: &Ast, statements: &[String], k: usize, out: &mut Vec<usize>) -> bool {
        if count(ast, statements) == 0 {
            return true;
        }
        let inner = loops(ast);
        // Instances outside every loop of `ast` run under no tile loop.
        let in_loops: usize = inner.iter().map(|l| count(&l.body, statements)).sum();
        let mut all = in_loops == count(ast, statements);
        for l in inner {
            if count(&l.body, statements) == 0 {
                continue;
            }
            if tiles_mention(&l.body, statements, k, &l.iterator) {
                // The deepest loop below that still holds all of this one's instances and
                // is a tile loop too.
                let total = count(&l.body, statements);
                let mut site = l;
                let mut at: &Ast = &l.body;
                while let Some(deeper) = loops(at)
                    .into_iter()
                    .find(|d| count(&d.body, statements) == total)
                {
                    if tiles_mention(&deeper.body, statements, k, &deeper.iterator) {
                        site = deeper;
                    }
                    at = &deeper.body;
                }
                out.push(loop_key(site));
            } else if !sites(&l.body, statements, k, out) {
                all = false;
            }
        }
        all
    }
    let mut out = Vec::new();
    let everywhere = sites(ast, statements, tile_args, &mut out);
    (out, !everywhere)
}

/// The condition under which a loop runs: `upper - lower >= 0`.
fn runs(l: &Loop) -> Cond {
    Cond::NonNegative(Expr::Add(vec![
        l.upper.clone(),
        Expr::Mul(-Int::one(), Box::new(l.lower.clone())),
    ]))
}

/// Appends the statement instances of `ast` (a loop body of instances and blocks), in
/// order.
fn collect_users<'a>(ast: &'a Ast, out: &mut Vec<(&'a str, &'a [Expr])>) {
    match ast {
        Ast::Block(children) => {
            for child in children {
                collect_users(child, out);
            }
        }
        Ast::User { statement, args } => out.push((statement, args)),
        Ast::For(_) | Ast::If { .. } => {}
    }
}

/// A block of one statement is that statement.
fn unwrap(ast: &Ast) -> &Ast {
    match ast {
        Ast::Block(children) if children.len() == 1 => unwrap(&children[0]),
        _ => ast,
    }
}

/// Whether a body must be braced: several statements or none.
fn needs_braces(ast: &Ast) -> bool {
    matches!(ast, Ast::Block(children) if children.len() != 1)
}

/// Appends the AST names of the iterators of the loops in `ast`, each once, in order of
/// first appearance.
pub(crate) fn collect_iterators(ast: &Ast, names: &mut Vec<String>) {
    match ast {
        Ast::Block(children) => {
            for child in children {
                collect_iterators(child, names);
            }
        }
        Ast::For(l) => {
            if !names.contains(&l.iterator) {
                names.push(l.iterator.clone());
            }
            collect_iterators(&l.body, names);
        }
        Ast::If {
            then, otherwise, ..
        } => {
            collect_iterators(then, names);
            if let Some(o) = otherwise {
                collect_iterators(o, names);
            }
        }
        Ast::User { .. } => {}
    }
}

/// Appends the names of the statements `ast` executes, each once, in order of first
/// appearance.
pub(crate) fn collect_statements(ast: &Ast, names: &mut Vec<String>) {
    match ast {
        Ast::Block(children) => {
            for child in children {
                collect_statements(child, names);
            }
        }
        Ast::For(l) => collect_statements(&l.body, names),
        Ast::If {
            then, otherwise, ..
        } => {
            collect_statements(then, names);
            if let Some(o) = otherwise {
                collect_statements(o, names);
            }
        }
        Ast::User { statement, .. } => {
            if !names.contains(statement) {
                names.push(statement.clone());
            }
        }
    }
}
