//! From the syntax tree of a region to a [`Scop`]: names, domains, accesses, the
//! original schedule tree and the context.
//!
//! Identifiers are classified as the crate documentation describes (loop iterators,
//! variables, parameters); parameters are collected in a first pass, in order of first
//! appearance, so that every set is built over the final parameter list. Each loop and
//! each `if` branch pushes its constraints (a disjunction over the parameters and the
//! iterators of its depth); a statement's domain is the conjunction of those in scope.

use std::collections::BTreeSet;

use pollen_arith::Int;
use pollen_presburger::{BasicMap, Budget, DivDef, Map, Set, Space, Tuple, UnionMap, UnionSet};
use pollen_scop::{Access, AccessKind, Array, Band, Node, ScheduleTree, Scop, Statement};

use crate::affine::{add_scaled, check_size, entry, quote, shift, unit, Conj, Dnf, Eval, Row};
use crate::ast::{BinOp, Expr, ExprKind, ForInit, ForLoop, LocalDecl, Stmt, UnOp};
use crate::decls::{Decls, VarDecl};
use crate::error::{Fail, Kind, R};

/// The budget of steps shared by the Presburger operations of one extraction by
/// [`crate::extract`] ([`crate::extract_with`] takes the caller's).
pub(crate) const BUDGET_STEPS: u64 = 50_000_000;

/// Builds the scop of the parsed region within `budget`. `region_start` locates errors
/// that belong to no construct.
pub(crate) fn build(
    source: &str,
    decls: &Decls,
    stmts: &[Stmt],
    region_start: usize,
    budget: &mut Budget,
) -> R<Scop> {
    let mut iterators = BTreeSet::new();
    let mut written = BTreeSet::new();
    collect_names(stmts, &mut iterators, &mut written);
    let decls = &crate::implicit::extend(source, decls, stmts, &iterators, &written)?;
    let mut b = Builder {
        source,
        decls,
        params: Vec::new(),
        iterators,
        written,
        loops: Vec::new(),
        levels: Vec::new(),
        statements: Vec::new(),
        touched: BTreeSet::new(),
        budget,
        keyword_param: None,
    };
    let mut enclosing = Vec::new();
    b.collect_params(stmts, &mut enclosing);
    if let Some((name, at)) = b.keyword_param.take() {
        return Err(Fail::new(
            Kind::Name,
            at,
            format!(
                "the parameter `{name}` is named by a keyword of the set notation \
                 (and, or, not, implies, exists, mod, floor, ceil, min, max, true, false, ...), \
                 which cannot name a parameter of the scop's sets: rename it"
            ),
        ));
    }
    let mut items = Vec::new();
    for s in stmts {
        b.statement(s, &mut items)?;
    }
    b.finish(items, region_start)
}

/// The names used as loop iterators anywhere, and the names written by statements.
fn collect_names(stmts: &[Stmt], iterators: &mut BTreeSet<String>, written: &mut BTreeSet<String>) {
    for s in stmts {
        match s {
            Stmt::For(f) => {
                if let Some(name) = loop_iterator(f) {
                    iterators.insert(name.to_string());
                }
                collect_names(std::slice::from_ref(&f.body), iterators, written);
            }
            Stmt::If { then, els, .. } => {
                collect_names(std::slice::from_ref(then), iterators, written);
                if let Some(e) = els {
                    collect_names(std::slice::from_ref(e), iterators, written);
                }
            }
            Stmt::Block(v) => collect_names(v, iterators, written),
            Stmt::Expr { expr, .. } => collect_written(expr, written),
            Stmt::Decl(list) => {
                for d in list {
                    if let Some(init) = &d.init {
                        written.insert(d.name.clone());
                        collect_written(init, written);
                    }
                }
            }
            Stmt::Empty => {}
        }
    }
}

/// The base names of everything `e` assigns.
fn collect_written(e: &Expr, written: &mut BTreeSet<String>) {
    let target = match &e.kind {
        ExprKind::Assign(_, lhs, _) => Some(lhs),
        ExprKind::IncDec { operand, .. } => Some(operand),
        _ => None,
    };
    if let Some(mut t) = target.map(|t| &**t) {
        while let ExprKind::Index(base, _) = &t.kind {
            t = base;
        }
        if let Some(name) = t.ident() {
            written.insert(name.to_string());
        }
    }
    for c in e.children() {
        collect_written(c, written);
    }
}

/// The iterator a loop initialises, if its initialisation has the expected form.
fn loop_iterator(f: &ForLoop) -> Option<&str> {
    match &f.init {
        ForInit::Declaration { name, .. } => Some(name),
        ForInit::Expr(e) => match &e.kind {
            ExprKind::Assign(None, lhs, _) => lhs.ident(),
            _ => None,
        },
    }
}

/// A statement or a loop of the schedule tree under construction (an `if` adds its
/// branches' items to the list that holds it).
enum Item {
    Statement(usize),
    Loop {
        depth: usize,
        decreasing: bool,
        statements: Vec<usize>,
        children: Vec<Item>,
    },
}

impl Item {
    fn statements(&self) -> Vec<usize> {
        match self {
            Item::Statement(s) => vec![*s],
            Item::Loop { statements, .. } => statements.clone(),
        }
    }
}

/// An enclosing loop.
struct LoopLevel {
    name: String,
}

/// The constraints of an enclosing loop or `if` branch, over the frame of its depth.
struct Level {
    n_dims: usize,
    dnf: Dnf,
}

/// One access of a statement before its relation is built.
struct Ref<'e> {
    array: String,
    subscripts: Vec<&'e Expr>,
    at: usize,
}

struct Builder<'a, 'b> {
    source: &'a str,
    decls: &'a Decls,
    params: Vec<String>,
    iterators: BTreeSet<String>,
    written: BTreeSet<String>,
    loops: Vec<LoopLevel>,
    levels: Vec<Level>,
    statements: Vec<Statement>,
    touched: BTreeSet<String>,
    budget: &'b mut Budget,
    /// The first parameter named by a keyword of the set notation, and where it is
    /// first used.
    keyword_param: Option<(String, usize)>,
}

impl Builder<'_, '_> {
    fn n_params(&self) -> usize {
        self.params.len()
    }

    /// Whether the declared variable `name` is a parameter: a signed integer scalar never
    /// written by the region nor used as a loop iterator.
    fn is_integer_constant(&self, decl: &VarDecl) -> bool {
        decl.integer && !self.written.contains(&decl.name) && !self.iterators.contains(&decl.name)
    }

    /// Whether `name`, used in a bound, condition or subscript under the loops
    /// `enclosing`, is a parameter.
    fn is_param(&self, name: &str, enclosing: &[String]) -> bool {
        if enclosing.iter().any(|n| n == name) || self.iterators.contains(name) {
            return false;
        }
        match self.decls.vars.get(name) {
            Some(decl) => self.is_integer_constant(decl),
            None => true,
        }
    }

    // ----- parameters in order of first appearance -----

    fn collect_params(&mut self, stmts: &[Stmt], enclosing: &mut Vec<String>) {
        for s in stmts {
            match s {
                Stmt::For(f) => {
                    let value = match &f.init {
                        ForInit::Declaration { value, .. } => Some(value),
                        ForInit::Expr(e) => match &e.kind {
                            ExprKind::Assign(None, _, rhs) => Some(&**rhs),
                            _ => None,
                        },
                    };
                    if let Some(v) = value {
                        self.affine_params(v, enclosing);
                    }
                    let name = loop_iterator(f).unwrap_or("").to_string();
                    enclosing.push(name);
                    self.affine_params(&f.cond, enclosing);
                    self.collect_params(std::slice::from_ref(&f.body), enclosing);
                    enclosing.pop();
                }
                Stmt::If { cond, then, els } => {
                    self.affine_params(cond, enclosing);
                    self.collect_params(std::slice::from_ref(then), enclosing);
                    if let Some(e) = els {
                        self.collect_params(std::slice::from_ref(e), enclosing);
                    }
                }
                Stmt::Block(v) => self.collect_params(v, enclosing),
                Stmt::Expr { expr, .. } => self.subscript_params(expr, enclosing),
                Stmt::Decl(list) => {
                    for init in list.iter().filter_map(|d| d.init.as_ref()) {
                        self.subscript_params(init, enclosing);
                    }
                }
                Stmt::Empty => {}
            }
        }
    }

    /// Records the parameters of an affine expression.
    fn affine_params(&mut self, e: &Expr, enclosing: &[String]) {
        match &e.kind {
            ExprKind::Ident(name) => {
                if self.is_param(name, enclosing) && !self.params.contains(name) {
                    if self.keyword_param.is_none() && pollen_presburger::text::is_keyword(name) {
                        self.keyword_param = Some((name.clone(), e.start));
                    }
                    self.params.push(name.clone());
                }
            }
            ExprKind::Call(_, args) => {
                for a in args {
                    self.affine_params(a, enclosing);
                }
            }
            _ => {
                for c in e.children() {
                    self.affine_params(c, enclosing);
                }
            }
        }
    }

    /// Records the parameters of the subscripts in a statement.
    fn subscript_params(&mut self, e: &Expr, enclosing: &[String]) {
        if let ExprKind::Index(base, index) = &e.kind {
            self.subscript_params(base, enclosing);
            self.affine_params(index, enclosing);
            return;
        }
        for c in e.children() {
            self.subscript_params(c, enclosing);
        }
    }

    // ----- evaluation frames -----

    /// The column of identifier `name` in a bound, condition or subscript under the
    /// `depth` outermost enclosing loops.
    fn resolve(&self, e: &Expr, name: &str, depth: usize) -> R<usize> {
        if let Some(k) = self.loops[..depth].iter().rposition(|l| l.name == name) {
            return Ok(1 + self.n_params() + k);
        }
        if self.iterators.contains(name) {
            return Err(Fail::new(
                Kind::Name,
                e.start,
                format!("the loop iterator `{name}` is used outside its loop"),
            ));
        }
        if let Some(decl) = self.decls.vars.get(name) {
            if !self.is_integer_constant(decl) {
                let why = if self.written.contains(name) {
                    "a variable the scop writes"
                } else {
                    "a variable that is not a signed integer scalar"
                };
                return Err(Fail::new(
                    Kind::NonAffine,
                    e.start,
                    format!("`{name}` is {why}: bounds, conditions and subscripts must not depend on data"),
                ));
            }
        }
        match self.params.iter().position(|p| p == name) {
            Some(k) => Ok(1 + k),
            None => Err(Fail::new(
                Kind::NonAffine,
                e.start,
                format!("`{name}` cannot be used here"),
            )),
        }
    }

    /// Runs `f` with an evaluator over the parameters, the `depth` outermost loop
    /// iterators and `n_out` further dimensions.
    fn with_eval<T>(&self, depth: usize, n_out: usize, f: impl FnOnce(&Eval) -> R<T>) -> R<T> {
        let resolve = |e: &Expr, name: &str| self.resolve(e, name, depth);
        let eval = Eval {
            source: self.source,
            base: 1 + self.n_params() + depth + n_out,
            resolve: &resolve,
        };
        f(&eval)
    }

    // ----- the walk -----

    fn statement(&mut self, s: &Stmt, items: &mut Vec<Item>) -> R<()> {
        match s {
            Stmt::Block(v) => {
                for s in v {
                    self.statement(s, items)?;
                }
                Ok(())
            }
            Stmt::Empty => Ok(()),
            Stmt::If { cond, then, els } => {
                let depth = self.loops.len();
                let yes = self.with_eval(depth, 0, |ev| ev.condition(cond, false))?;
                let yes = self.feasible(&[Conj::default()], &yes, depth, cond.start)?;
                let no = self.with_eval(depth, 0, |ev| ev.condition(cond, true))?;
                let no = self.feasible(&[Conj::default()], &no, depth, cond.start)?;
                self.levels.push(Level {
                    n_dims: depth,
                    dnf: yes,
                });
                self.statement(then, items)?;
                self.levels.pop();
                if let Some(e) = els {
                    self.levels.push(Level {
                        n_dims: depth,
                        dnf: no,
                    });
                    self.statement(e, items)?;
                    self.levels.pop();
                }
                Ok(())
            }
            Stmt::For(f) => self.for_loop(f, items),
            Stmt::Expr { expr, end } => {
                let k = self.assignment(expr, *end)?;
                items.push(Item::Statement(k));
                Ok(())
            }
            Stmt::Decl(list) => {
                for d in list {
                    if let Some(init) = &d.init {
                        let k = self.declaration(d, init)?;
                        items.push(Item::Statement(k));
                    }
                }
                Ok(())
            }
        }
    }

    fn for_loop(&mut self, f: &ForLoop, items: &mut Vec<Item>) -> R<()> {
        let (name, init) = self.loop_header(f)?;
        let step = self.loop_step(f, &name)?;
        let depth = self.loops.len();
        let n = self.n_params();
        let init = self.with_eval(depth, 0, |ev| ev.value(init))?;
        // An error abandons the whole builder, so the stacks need no unwinding.
        self.loops.push(LoopLevel { name: name.clone() });
        let cond = self.with_eval(depth + 1, 0, |ev| ev.condition(&f.cond, false))?;
        let base = 1 + n + depth + 1;
        let x = 1 + n + depth;
        let start = loop_start(init, x, base, step);
        self.check_loop_condition(f, &name, &start, &cond, step, depth)?;
        let dnf = self.feasible(&start, &cond, depth + 1, f.at)?;
        self.levels.push(Level {
            n_dims: depth + 1,
            dnf,
        });
        let mut children = Vec::new();
        self.statement(&f.body, &mut children)?;
        self.levels.pop();
        self.loops.pop();
        let statements: Vec<usize> = children.iter().flat_map(Item::statements).collect();
        if !statements.is_empty() {
            items.push(Item::Loop {
                depth,
                decreasing: step < 0,
                statements,
                children,
            });
        }
        Ok(())
    }

    /// Checks that the condition of loop `f` (already pushed as the innermost loop, at
    /// `depth`) bounds its iterator and never becomes true again once false, so that the
    /// iterations are exactly the values from the start that satisfy it: by the syntax of
    /// the condition when it shrinks monotonically, otherwise by testing that no
    /// iteration follows one that fails the condition.
    fn check_loop_condition(
        &mut self,
        f: &ForLoop,
        name: &str,
        start: &[Conj],
        cond: &[Conj],
        step: i64,
        depth: usize,
    ) -> R<()> {
        let n = self.n_params();
        let (x, base) = (1 + n + depth, 1 + n + depth + 1);
        match condition_shape(cond, x, base, step > 0, name) {
            Shape::Monotone => Ok(()),
            Shape::Unbounded(message) => Err(Fail::new(Kind::Loop, f.cond.start, message)),
            Shape::Unknown => {
                let failed = self.with_eval(depth + 1, 0, |ev| ev.condition(&f.cond, true))?;
                let here = self.feasible(start, cond, depth + 1, f.cond.start)?;
                let before: Dnf = start
                    .iter()
                    .map(|c| substitute_shift(c, x, -step))
                    .collect();
                let before_failed: Dnf = failed
                    .iter()
                    .map(|c| substitute_shift(c, x, -step))
                    .collect();
                let previous = self.feasible(&before, &before_failed, depth + 1, f.cond.start)?;
                let gaps = self.feasible(&here, &previous, depth + 1, f.cond.start)?;
                let space = Space::set(self.params.clone(), Tuple::anonymous(depth + 1));
                let err = self.presburger(f.cond.start);
                let map = to_map(space, &gaps, base).map_err(&err)?;
                let map = map.remove_empty_parts(self.budget).map_err(&err)?;
                if map.basic_maps().is_empty() {
                    Ok(())
                } else {
                    Err(Fail::new(
                        Kind::Loop,
                        f.cond.start,
                        format!(
                            "the condition of this loop is not monotone in `{name}`: it can become true again after failing as `{name}` {}",
                            if step > 0 { "grows" } else { "decreases" }
                        ),
                    ))
                }
            }
        }
    }

    /// The iterator of a loop and its initial value.
    fn loop_header<'f>(&self, f: &'f ForLoop) -> R<(String, &'f Expr)> {
        let (name, at, value) = match &f.init {
            ForInit::Declaration {
                name,
                at,
                integer,
                value,
            } => {
                if !integer {
                    return Err(Fail::new(
                        Kind::Loop,
                        *at,
                        format!("the loop iterator `{name}` must have a signed integer type (unsigned arithmetic wraps around, outside the model)"),
                    ));
                }
                (name.clone(), *at, value)
            }
            ForInit::Expr(e) => match &e.kind {
                ExprKind::Assign(None, lhs, rhs) if lhs.ident().is_some() => {
                    let name = lhs.ident().unwrap_or("").to_string();
                    if let Some(decl) = self.decls.vars.get(&name) {
                        if !decl.integer {
                            return Err(Fail::new(
                                Kind::Loop,
                                lhs.start,
                                format!(
                                    "the loop iterator `{name}` is declared `{}`, not as a signed integer scalar",
                                    decl.element_type
                                ),
                            ));
                        }
                    }
                    (name, lhs.start, &**rhs)
                }
                _ => {
                    return Err(Fail::new(
                        Kind::Loop,
                        e.start,
                        format!(
                            "the initialisation `{}` of a `for` loop must assign its iterator (`i = ...`)",
                            quote(self.source, e)
                        ),
                    ))
                }
            },
        };
        if self.loops.iter().any(|l| l.name == name) {
            return Err(Fail::new(
                Kind::Name,
                at,
                format!("`{name}` is already the iterator of an enclosing loop"),
            ));
        }
        Ok((name, value))
    }

    /// The constant step of a loop's increment (negative for decreasing loops).
    fn loop_step(&self, f: &ForLoop, name: &str) -> R<i64> {
        let e = &f.incr;
        let bad = || {
            Fail::new(
                Kind::Loop,
                e.start,
                format!(
                    "the increment `{}` must be `{name}++`, `{name}--`, `{name} += c`, `{name} -= c` or `{name} = {name} + c` with an integer constant c",
                    quote(self.source, e)
                ),
            )
        };
        let is_it = |x: &Expr| x.ident() == Some(name);
        let step = match &e.kind {
            ExprKind::IncDec { increment, operand } if is_it(operand) => {
                if *increment {
                    1
                } else {
                    -1
                }
            }
            ExprKind::Assign(Some(op @ (BinOp::Add | BinOp::Sub)), lhs, rhs) if is_it(lhs) => {
                let c = self.constant(rhs).ok_or_else(bad)?;
                if *op == BinOp::Add {
                    c
                } else {
                    c.checked_neg().ok_or_else(bad)?
                }
            }
            ExprKind::Assign(None, lhs, rhs) if is_it(lhs) => match &rhs.kind {
                ExprKind::Binary(BinOp::Add, a, b) if is_it(a) => {
                    self.constant(b).ok_or_else(bad)?
                }
                ExprKind::Binary(BinOp::Add, a, b) if is_it(b) => {
                    self.constant(a).ok_or_else(bad)?
                }
                ExprKind::Binary(BinOp::Sub, a, b) if is_it(a) => self
                    .constant(b)
                    .and_then(i64::checked_neg)
                    .ok_or_else(bad)?,
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        };
        if step == 0 {
            return Err(Fail::new(
                Kind::Loop,
                e.start,
                "this loop steps its iterator by 0",
            ));
        }
        Ok(step)
    }

    /// The value of an integer constant expression.
    fn constant(&self, e: &Expr) -> Option<i64> {
        let resolve = |e: &Expr, _: &str| -> R<usize> {
            Err(Fail::new(Kind::NonAffine, e.start, "not a constant"))
        };
        let eval = Eval {
            source: self.source,
            base: 1,
            resolve: &resolve,
        };
        let pw = eval.value(e).ok()?;
        match pw.as_slice() {
            [p] if p.guard.eqs.is_empty()
                && p.guard.ineqs.is_empty()
                && p.value.iter().skip(1).all(Int::is_zero) =>
            {
                entry(&p.value, 0).to_i64()
            }
            _ => None,
        }
    }

    // ----- statements -----

    /// Builds the statement of an expression statement and returns its index.
    fn assignment(&mut self, expr: &Expr, end: usize) -> R<usize> {
        let (reads, writes) = self.statement_accesses(expr)?;
        let body = self.source.get(expr.start..end).unwrap_or("").to_string();
        self.add_statement(reads, writes, body, expr.start)
    }

    /// Builds the statement of a scalar declared with an initializer, `T t = e;`: the
    /// write of `t` by `e`, whose body is the assignment `t = e;` (the declaration itself
    /// goes to the start of the code that replaces the region).
    fn declaration(&mut self, d: &LocalDecl, init: &Expr) -> R<usize> {
        let mut reads = Vec::new();
        self.reads(init, &mut reads)?;
        let writes = vec![Ref {
            array: d.name.clone(),
            subscripts: Vec::new(),
            at: d.at,
        }];
        let body = format!(
            "{} = {};",
            d.name,
            self.source.get(init.start..init.end).unwrap_or("")
        );
        self.add_statement(reads, writes, body, d.at)
    }

    /// Adds the statement with these accesses and body under the current loops and
    /// branches; returns its index.
    fn add_statement(
        &mut self,
        reads: Vec<Ref>,
        writes: Vec<Ref>,
        body: String,
        at: usize,
    ) -> R<usize> {
        let index = self.statements.len();
        let name = format!("S{index}");
        let depth = self.loops.len();
        let iterators: Vec<String> = self.loops.iter().map(|l| l.name.clone()).collect();
        let domain = self.domain(&name, &iterators, at)?;
        let mut accesses = Vec::new();
        for (kind, list) in [(AccessKind::Read, reads), (AccessKind::Write, writes)] {
            for r in list {
                let relation = self.relation(&name, &iterators, depth, &r, &domain)?;
                self.touched.insert(r.array.clone());
                accesses.push(Access {
                    kind,
                    array: r.array,
                    relation,
                });
            }
        }
        self.statements.push(Statement {
            name,
            domain,
            iterators,
            accesses,
            body,
        });
        Ok(index)
    }

    /// The reads (in order) and writes of a statement.
    fn statement_accesses<'e>(&self, e: &'e Expr) -> R<(Vec<Ref<'e>>, Vec<Ref<'e>>)> {
        match &e.kind {
            ExprKind::Assign(op, lhs, rhs) => {
                let target = self.target(lhs)?;
                let mut reads = Vec::new();
                if op.is_some() {
                    reads.push(Ref {
                        array: target.array.clone(),
                        subscripts: target.subscripts.clone(),
                        at: target.at,
                    });
                }
                let mut writes = Vec::new();
                if let ExprKind::Assign(..) = rhs.kind {
                    let (r, w) = self.statement_accesses(rhs)?;
                    reads.extend(r);
                    writes.extend(w);
                } else {
                    self.reads(rhs, &mut reads)?;
                }
                writes.push(target);
                Ok((reads, writes))
            }
            ExprKind::IncDec { operand, .. } => {
                let target = self.target(operand)?;
                let read = Ref {
                    array: target.array.clone(),
                    subscripts: target.subscripts.clone(),
                    at: target.at,
                };
                Ok((vec![read], vec![target]))
            }
            ExprKind::Call(..) => Err(self.outside_model(
                e,
                "the function call statement",
                " (its effects are unknown)",
            )),
            ExprKind::Comma(..) => Err(self.outside_model(
                e,
                "the comma expression",
                " (write one statement per assignment)",
            )),
            _ => Err(Fail::new(
                Kind::Unsupported,
                e.start,
                format!(
                    "the expression statement `{}` assigns nothing",
                    quote(self.source, e)
                ),
            )),
        }
    }

    /// The element or scalar an assignment writes.
    fn target<'e>(&self, lhs: &'e Expr) -> R<Ref<'e>> {
        match &lhs.kind {
            ExprKind::Ident(name) => {
                if self.iterators.contains(name) {
                    return Err(Fail::new(
                        Kind::Name,
                        lhs.start,
                        format!("the loop iterator `{name}` is written by a statement"),
                    ));
                }
                let Some(decl) = self.decls.vars.get(name) else {
                    return Err(Fail::new(
                        Kind::Name,
                        lhs.start,
                        format!("`{name}` is written but not declared before the scop (an undeclared name is a parameter, which cannot be written)"),
                    ));
                };
                self.scalar_ref(lhs, name, decl)
            }
            ExprKind::Index(..) => self.array_ref(lhs),
            _ => Err(self.unsupported_operand(lhs, "assignment to")),
        }
    }

    /// A scalar variable used as a value.
    fn scalar_ref<'e>(&self, e: &'e Expr, name: &str, decl: &VarDecl) -> R<Ref<'e>> {
        if decl.pointer {
            return Err(Fail::new(
                Kind::Unsupported,
                e.start,
                format!("the pointer `{name}` is used as a value; pointers are outside the polyhedral model"),
            ));
        }
        if !decl.extents.is_empty() {
            return Err(Fail::new(
                Kind::Name,
                e.start,
                format!(
                    "the array `{name}` is used without its {} subscripts",
                    decl.extents.len()
                ),
            ));
        }
        Ok(Ref {
            array: name.to_string(),
            subscripts: Vec::new(),
            at: e.start,
        })
    }

    /// An array element reference `A[e1]..[en]`.
    fn array_ref<'e>(&self, e: &'e Expr) -> R<Ref<'e>> {
        let mut subscripts = Vec::new();
        let mut base = e;
        while let ExprKind::Index(b, index) = &base.kind {
            subscripts.push(&**index);
            base = b;
        }
        subscripts.reverse();
        let Some(name) = base.ident() else {
            return Err(Fail::new(
                Kind::Unsupported,
                e.start,
                format!(
                    "`{}` indexes something other than a named array (pointer arithmetic is outside the polyhedral model)",
                    quote(self.source, e)
                ),
            ));
        };
        if self.iterators.contains(name) {
            return Err(Fail::new(
                Kind::Name,
                base.start,
                format!("the loop iterator `{name}` is used as an array"),
            ));
        }
        let Some(decl) = self.decls.vars.get(name) else {
            return Err(Fail::new(
                Kind::Name,
                base.start,
                format!("the array `{name}` is not declared before the scop"),
            ));
        };
        if decl.pointer {
            return Err(Fail::new(
                Kind::Unsupported,
                base.start,
                format!("the pointer `{name}` is indexed; pointers are outside the polyhedral model (declare it as an array)"),
            ));
        }
        if decl.extents.len() != subscripts.len() {
            return Err(Fail::new(
                Kind::Name,
                e.start,
                format!(
                    "`{name}` has {} dimensions but `{}` gives {} subscripts",
                    decl.extents.len(),
                    quote(self.source, e),
                    subscripts.len()
                ),
            ));
        }
        Ok(Ref {
            array: name.to_string(),
            subscripts,
            at: e.start,
        })
    }

    /// The error "`what` \`e\` is outside the polyhedral model`hint`", at `e`.
    fn outside_model(&self, e: &Expr, what: &str, hint: &str) -> Fail {
        Fail::new(
            Kind::Unsupported,
            e.start,
            format!(
                "{what} `{}` is outside the polyhedral model{hint}",
                quote(self.source, e)
            ),
        )
    }

    fn unsupported_operand(&self, e: &Expr, context: &str) -> Fail {
        let q = quote(self.source, e);
        let what = match &e.kind {
            ExprKind::Unary(UnOp::Deref, _) => "a pointer dereference",
            ExprKind::Unary(UnOp::AddrOf, _) => "taking an address",
            ExprKind::Member(_) => "a structure member",
            _ => "an expression that is not a variable or an array element",
        };
        Fail::new(
            Kind::Unsupported,
            e.start,
            format!("{context} `{q}`: {what} is outside the polyhedral model"),
        )
    }

    /// The reads of a right-hand side, left to right.
    fn reads<'e>(&self, e: &'e Expr, out: &mut Vec<Ref<'e>>) -> R<()> {
        match &e.kind {
            ExprKind::Ident(name) => {
                let depth = self.loops.len();
                if self.loops[..depth].iter().any(|l| &l.name == name) {
                    return Ok(());
                }
                if self.iterators.contains(name) {
                    return Err(Fail::new(
                        Kind::Name,
                        e.start,
                        format!("the loop iterator `{name}` is used outside its loop"),
                    ));
                }
                if let Some(decl) = self.decls.vars.get(name) {
                    out.push(self.scalar_ref(e, name, decl)?);
                }
                Ok(())
            }
            ExprKind::Index(..) => {
                out.push(self.array_ref(e)?);
                Ok(())
            }
            ExprKind::Call(f, args) => {
                match f.ident() {
                    Some(name) if !self.decls.vars.contains_key(name) => {}
                    _ => return Err(self.outside_model(f, "the call through", "")),
                }
                for a in args {
                    self.reads(a, out)?;
                }
                Ok(())
            }
            ExprKind::Unary(UnOp::Deref | UnOp::AddrOf, _) | ExprKind::Member(_) => {
                Err(self.unsupported_operand(e, "the value"))
            }
            ExprKind::IncDec { .. } | ExprKind::Assign(..) => Err(Fail::new(
                Kind::Unsupported,
                e.start,
                format!(
                    "the assignment `{}` inside an expression is outside the polyhedral model",
                    quote(self.source, e)
                ),
            )),
            ExprKind::Comma(..) => Err(self.outside_model(e, "the comma expression", "")),
            ExprKind::Sizeof => Ok(()),
            _ => {
                for c in e.children() {
                    self.reads(c, out)?;
                }
                Ok(())
            }
        }
    }

    // ----- sets -----

    fn presburger(&self, at: usize) -> impl Fn(pollen_presburger::Error) -> Fail {
        move |e| Fail::presburger(at, e)
    }

    /// The conjunctions of a disjunct of `a` and one of `b` (over the parameters and
    /// `n_dims` iterators) that have integer points: pruning as the disjunctions of
    /// nested loops and branches multiply keeps them to the feasible combinations.
    fn feasible(&mut self, a: &[Conj], b: &[Conj], n_dims: usize, at: usize) -> R<Dnf> {
        let base = 1 + self.n_params() + n_dims;
        let space = Space::set(self.params.clone(), Tuple::anonymous(n_dims));
        let err = self.presburger(at);
        let mut out = Vec::new();
        for x in a {
            for y in b {
                let c = x.and(y, base).0;
                let part = to_basic_map(&space, &c, base).map_err(&err)?;
                if !part.is_empty(self.budget).map_err(&err)? {
                    out.push(c);
                }
            }
            check_size(out.len(), at)?;
        }
        Ok(out)
    }

    /// The domain of a statement under the current loops and branches.
    fn domain(&mut self, name: &str, iterators: &[String], at: usize) -> R<Set> {
        let depth = iterators.len();
        let n = self.n_params();
        let base = 1 + n + depth;
        let levels: Vec<Dnf> = self
            .levels
            .iter()
            .map(|level| {
                level
                    .dnf
                    .iter()
                    .map(|c| c.shifted(1 + n + level.n_dims, depth - level.n_dims))
                    .collect()
            })
            .collect();
        let mut dnf = vec![Conj::default()];
        for embedded in &levels {
            dnf = self.feasible(&dnf, embedded, depth, at)?;
        }
        let names: Vec<&str> = iterators.iter().map(String::as_str).collect();
        let space = Space::set(self.params.clone(), Tuple::new(Some(name), &names));
        let map = to_map(space, &dnf, base).map_err(self.presburger(at))?;
        let map = self.clean(map, at)?;
        Set::from_map(map).map_err(self.presburger(at))
    }

    /// The relation of one access, without the parts that apply to no instance of the
    /// statement's domain (the pieces of a division by the sign of a numerator that the
    /// domain keeps positive, for instance); the rest is not restricted to the domain.
    fn relation(
        &mut self,
        name: &str,
        iterators: &[String],
        depth: usize,
        r: &Ref,
        domain: &Set,
    ) -> R<Map> {
        let n = self.n_params();
        let rank = r.subscripts.len();
        let base = 1 + n + depth + rank;
        let mut dnf = vec![Conj::default()];
        for (k, s) in r.subscripts.iter().enumerate() {
            let pw = self.with_eval(depth, rank, |ev| ev.value(s))?;
            let out = unit(1 + n + depth + k);
            let pieces: Dnf = pw
                .into_iter()
                .map(|p| {
                    let mut g = p.guard;
                    g.eqs.push(add_scaled(&out, &Int::from(-1), &p.value));
                    g
                })
                .collect();
            dnf = self.feasible(&dnf, &pieces, depth + rank, s.start)?;
        }
        let names: Vec<&str> = iterators.iter().map(String::as_str).collect();
        let space = Space::map(
            self.params.clone(),
            Tuple::new(Some(name), &names),
            Tuple::with_names(Some(r.array.clone()), vec![None; rank]),
        );
        let err = self.presburger(r.at);
        let map = to_map(space.clone(), &dnf, base).map_err(&err)?;
        let map = self.clean(map, r.at)?;
        if map.basic_maps().len() < 2 {
            return Ok(map);
        }
        let mut kept = Vec::new();
        for b in map.basic_maps() {
            let part = Map::from_basic(b.clone());
            let used = part.intersect_domain(domain.as_map()).map_err(&err)?;
            if !used.is_empty_with(self.budget).map_err(&err)? {
                kept.push(b.clone());
            }
        }
        Map::from_parts(space, kept).map_err(&err)
    }

    /// Drops empty parts and coalesces.
    fn clean(&mut self, map: Map, at: usize) -> R<Map> {
        let map = map
            .remove_empty_parts(self.budget)
            .map_err(self.presburger(at))?;
        map.coalesce_with(self.budget).map_err(self.presburger(at))
    }

    // ----- the scop -----

    fn finish(mut self, items: Vec<Item>, region_start: usize) -> R<Scop> {
        let err = self.presburger(region_start);
        let mut all = UnionSet::empty(self.params.clone());
        for s in &self.statements {
            all.add_set(s.domain.clone()).map_err(&err)?;
        }
        let context = self.context().map_err(&err)?;
        let child = self.node_for_list(&items).map_err(&err)?;
        let schedule = ScheduleTree {
            root: Node::Domain {
                domain: all,
                child: Box::new(child),
            },
        };
        let mut arrays: Vec<&VarDecl> = self
            .touched
            .iter()
            .filter_map(|n| self.decls.vars.get(n))
            .collect();
        arrays.sort_by_key(|d| (d.at, d.name.clone()));
        let arrays = arrays
            .into_iter()
            .map(|d| Array {
                name: d.name.clone(),
                element_type: d.element_type.clone(),
                extents: d.extents.clone(),
                local: d.local,
            })
            .collect();
        Ok(Scop {
            params: self.params,
            context,
            arrays,
            statements: self.statements,
            schedule,
        })
    }

    /// The parameter values for which some statement instance runs: the union of the
    /// parameter projections of the domains, each added only when it is not already
    /// covered (statements of one loop nest share their projection).
    fn context(&mut self) -> pollen_presburger::Result<Set> {
        let mut context = Set::empty(Space::params(self.params.clone()));
        for s in &self.statements {
            let params = s.domain.params().align_params(&self.params)?;
            if params.is_subset_with(&context, self.budget)? {
                continue;
            }
            let union = context.union(&params)?;
            let union = Set::from_map(union.as_map().remove_empty_parts(self.budget)?)?;
            context = union.coalesce_with(self.budget)?;
        }
        Ok(context)
    }

    /// The union of the domains of the given statements.
    fn filter(&self, statements: &[usize]) -> pollen_presburger::Result<UnionSet> {
        let mut u = UnionSet::empty(self.params.clone());
        for &k in statements {
            u.add_set(self.statements[k].domain.clone())?;
        }
        Ok(u)
    }

    fn node_for_list(&self, items: &[Item]) -> pollen_presburger::Result<Node> {
        match items {
            [] => Ok(Node::Leaf),
            [one] => self.node_for_item(one),
            _ => {
                let mut children = Vec::new();
                for it in items {
                    let filter = self.filter(&it.statements())?;
                    children.push(Node::filter(filter, self.node_for_item(it)?));
                }
                Ok(Node::Sequence(children))
            }
        }
    }

    fn node_for_item(&self, item: &Item) -> pollen_presburger::Result<Node> {
        match item {
            Item::Statement(_) => Ok(Node::Leaf),
            Item::Loop {
                depth,
                decreasing,
                statements,
                children,
            } => {
                let mut schedule = UnionMap::empty(self.params.clone());
                for &k in statements {
                    schedule.add_map(self.band_member(
                        &self.statements[k],
                        *depth,
                        *decreasing,
                    )?)?;
                }
                Ok(Node::Band(Band {
                    schedule,
                    permutable: false,
                    coincident: vec![false],
                    child: Box::new(self.node_for_list(children)?),
                }))
            }
        }
    }

    /// `{ S[.., i, ..] -> [i] }` (or `[-i]`) for the iterator at `depth`.
    fn band_member(
        &self,
        s: &Statement,
        depth: usize,
        decreasing: bool,
    ) -> pollen_presburger::Result<Map> {
        let n = self.n_params();
        let names: Vec<&str> = s.iterators.iter().map(String::as_str).collect();
        let space = Space::map(
            self.params.clone(),
            Tuple::new(Some(&s.name), &names),
            Tuple::anonymous(1),
        );
        let width = 1 + n + s.iterators.len() + 1;
        let mut row = vec![Int::zero(); width];
        row[width - 1] = Int::one();
        row[1 + n + depth] = Int::from(if decreasing { 1 } else { -1 });
        let b = BasicMap::from_parts(space.clone(), Vec::new(), vec![row], Vec::new())?;
        Map::from_parts(space, vec![b])
    }
}

/// The constraints of a loop's start on its iterator (column `x`, locals from `base`):
/// per piece of the initial value `v`, `x >= v` (`x <= v` for a negative step) and, for
/// a step `s` other than ±1, `x - v` a multiple of `s`.
fn loop_start(init: crate::affine::Pw, x: usize, base: usize, step: i64) -> Dnf {
    let mut start = Vec::new();
    for p in init {
        let mut g = p.guard.shifted(base - 1, 1);
        let v = shift(&p.value, base - 1, 1);
        let diff = if step > 0 {
            add_scaled(&unit(x), &Int::from(-1), &v)
        } else {
            add_scaled(&v, &Int::from(-1), &unit(x))
        };
        g.ineqs.push(diff.clone());
        let m = Int::from(step.unsigned_abs());
        if !m.is_one() {
            let col = base + g.locals.len();
            g.locals.push(crate::affine::Local {
                num: diff.clone(),
                den: m.clone(),
            });
            g.eqs.push(add_scaled(&diff, &-m, &unit(col)));
        }
        start.push(g);
    }
    start
}

/// What the syntax of a loop condition says about the iterations it allows.
enum Shape {
    /// Every disjunct only shrinks as the iterator moves in the loop's direction: the
    /// iterations are exactly the values from the start that satisfy the condition.
    Monotone,
    /// Every disjunct bounds the iterator but some constraint does not shrink
    /// (a truncating division or modulo of the iterator, an equality): whether the
    /// condition can become true again after failing needs the exact test.
    Unknown,
    /// Some disjunct does not bound the iterator: the loop would not terminate.
    Unbounded(String),
}

/// The shape of a loop condition over the iterator at column `x` (locals from `base`).
fn condition_shape(dnf: &[Conj], x: usize, base: usize, increasing: bool, name: &str) -> Shape {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Dir {
        Zero,
        Up,
        Down,
        Mixed,
    }
    fn join(a: Dir, b: Dir) -> Dir {
        match (a, b) {
            (Dir::Zero, d) | (d, Dir::Zero) => d,
            (a, b) if a == b => a,
            _ => Dir::Mixed,
        }
    }
    fn times(d: Dir, c: &Int) -> Dir {
        match (d, c.signum()) {
            (_, 0) | (Dir::Zero, _) => Dir::Zero,
            (Dir::Mixed, _) => Dir::Mixed,
            (d, s) if s > 0 => d,
            (Dir::Up, _) => Dir::Down,
            _ => Dir::Up,
        }
    }
    let direction = |row: &[Int], locals: &[Dir]| {
        let mut d = times(Dir::Up, &entry(row, x));
        for (k, l) in locals.iter().enumerate() {
            d = join(d, times(*l, &entry(row, base + k)));
        }
        d
    };
    let shrinking = if increasing { Dir::Down } else { Dir::Up };
    let mut shape = Shape::Monotone;
    for conj in dnf {
        let mut locals = Vec::new();
        for l in &conj.locals {
            let d = direction(&l.num, &locals);
            locals.push(d);
        }
        let mut bounded = false;
        for row in &conj.ineqs {
            match direction(row, &locals) {
                Dir::Zero => {}
                d if d == shrinking => bounded = true,
                _ => shape = Shape::Unknown,
            }
        }
        let fixed = conj.eqs.iter().any(|r| direction(r, &locals) != Dir::Zero);
        if fixed {
            shape = Shape::Unknown;
        }
        if !bounded {
            let message = if fixed {
                format!("the condition of this loop fixes `{name}` by an equality; use an `if`")
            } else {
                format!(
                    "the condition of this loop does not bound `{name}` {} (the loop would not terminate)",
                    if increasing { "from above" } else { "from below" }
                )
            };
            return Shape::Unbounded(message);
        }
    }
    shape
}

/// The conjunction with the column `x` replaced by `x + delta`.
fn substitute_shift(c: &Conj, x: usize, delta: i64) -> Conj {
    let delta = Int::from(delta);
    let moved = |r: &Row| {
        let mut r = r.clone();
        let change = &delta * &entry(&r, x);
        if let Some(first) = r.first_mut() {
            *first = &*first + &change;
        }
        r
    };
    Conj {
        locals: c
            .locals
            .iter()
            .map(|l| crate::affine::Local {
                num: moved(&l.num),
                den: l.den.clone(),
            })
            .collect(),
        eqs: c.eqs.iter().map(moved).collect(),
        ineqs: c.ineqs.iter().map(moved).collect(),
    }
}

/// The map of the disjunction `dnf` over `space`, whose locals start at column `base`.
fn to_map(space: Space, dnf: &[Conj], base: usize) -> pollen_presburger::Result<Map> {
    let parts = dnf
        .iter()
        .map(|c| to_basic_map(&space, c, base))
        .collect::<pollen_presburger::Result<Vec<_>>>()?;
    Map::from_parts(space, parts)
}

/// The basic map of the conjunction `c` over `space`, whose locals start at `base`.
fn to_basic_map(space: &Space, c: &Conj, base: usize) -> pollen_presburger::Result<BasicMap> {
    let width = base + c.locals.len();
    let pad = |r: &Row| {
        let mut r = r.clone();
        r.resize(width, Int::zero());
        r
    };
    let divs = c
        .locals
        .iter()
        .map(|l| {
            Some(DivDef {
                num: pad(&l.num),
                den: l.den.clone(),
            })
        })
        .collect();
    let eqs = c.eqs.iter().map(pad).collect();
    let ineqs = c.ineqs.iter().map(pad).collect();
    BasicMap::from_parts(space.clone(), divs, eqs, ineqs)
}
