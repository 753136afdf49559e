//! Names the region uses without a declaration before it: arrays and scalars of unknown
//! type, as in the loop-nest fragments that polyhedral tools (pet, Pluto, PPCG) read.
//!
//! One pass over the region records, for every identifier that is neither declared
//! before the region nor a loop iterator, its subscripted uses (with their number of
//! subscripts) and its other uses (call targets excepted: `f(x)` uses `x`, not `f`).
//! Then, as pet decides:
//! - a name used with subscripts is an array of unknown element type and unknown extents
//!   (one empty extent text per dimension); every use must give the same number of
//!   subscripts, and the name must not also be used without them;
//! - a name used without subscripts that the region writes is a scalar of unknown type
//!   (a 0-dimensional array) everywhere, so that reading it in a bound or a subscript is
//!   the data-dependent use it is;
//! - every other name stays what it was: a parameter in bounds, conditions and
//!   subscripts, a value (a macro or a function name) in a right-hand side.
//!
//! The same pass follows the scalars the region declares itself (`double t = ...;`)
//! through its blocks: a use of one outside the block that declares it, a declaration
//! that shadows a name in scope or one declared before the region, or that follows a use
//! of its name, is an error. They become local 0-dimensional arrays of their declared
//! type.
//!
//! The result is the declarations of the region's start extended with these implicit
//! ones, so that the builder treats both alike.

use std::collections::{BTreeMap, BTreeSet};

use crate::ast::{Expr, ExprKind, ForInit, LocalDecl, Stmt};
use crate::decls::{Decls, VarDecl};
use crate::error::{Fail, Kind, R};

/// How an undeclared name is used.
#[derive(Default)]
struct Uses {
    /// The first subscripted use: its number of subscripts and byte offset.
    subscripted: Option<(usize, usize)>,
    /// The byte offset of the first use without subscripts.
    plain: Option<usize>,
}

/// The declarations `decls` extended with the implicit arrays and scalars of the region
/// `stmts` of `source`; `iterators` are the loop iterators and `written` the names the
/// region writes.
pub(crate) fn extend(
    source: &str,
    decls: &Decls,
    stmts: &[Stmt],
    iterators: &BTreeSet<String>,
    written: &BTreeSet<String>,
) -> R<Decls> {
    let mut walker = Walker {
        source,
        decls,
        iterators,
        uses: BTreeMap::new(),
        order: Vec::new(),
        locals: BTreeMap::new(),
        scopes: vec![Vec::new()],
    };
    walker.statements(stmts)?;
    let Walker {
        uses,
        order,
        locals,
        ..
    } = walker;
    let mut extended = decls.clone();
    for (name, (element_type, at)) in locals {
        extended.vars.insert(
            name.clone(),
            VarDecl {
                name,
                element_type,
                extents: Vec::new(),
                pointer: false,
                integer: false,
                at,
                local: true,
                in_function: true,
            },
        );
    }
    for name in order {
        let u = &uses[&name];
        let (extents, at) = match (u.subscripted, u.plain) {
            (Some((rank, at)), None) => (vec![String::new(); rank], at),
            (None, Some(at)) if written.contains(&name) => (Vec::new(), at),
            _ => continue,
        };
        extended.vars.insert(
            name.clone(),
            VarDecl {
                name,
                element_type: String::new(),
                extents,
                pointer: false,
                integer: false,
                at,
                local: false,
                in_function: false,
            },
        );
    }
    Ok(extended)
}

struct Walker<'a> {
    source: &'a str,
    decls: &'a Decls,
    iterators: &'a BTreeSet<String>,
    uses: BTreeMap<String, Uses>,
    /// The undeclared names in order of first use.
    order: Vec<String>,
    /// The scalars the region declares: their type and the offset of their first
    /// declaration.
    locals: BTreeMap<String, (String, usize)>,
    /// The names declared in each open block, outermost first.
    scopes: Vec<Vec<String>>,
}

impl Walker<'_> {
    fn statements(&mut self, stmts: &[Stmt]) -> R<()> {
        for s in stmts {
            self.statement(s)?;
        }
        Ok(())
    }

    fn statement(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::For(f) => {
                match &f.init {
                    ForInit::Declaration { value, .. } => self.expr(value)?,
                    ForInit::Expr(e) => self.expr(e)?,
                }
                self.expr(&f.cond)?;
                self.expr(&f.incr)?;
                self.scoped(&f.body)
            }
            Stmt::If { cond, then, els } => {
                self.expr(cond)?;
                self.scoped(then)?;
                match els {
                    Some(e) => self.scoped(e),
                    None => Ok(()),
                }
            }
            Stmt::Block(v) => {
                self.scopes.push(Vec::new());
                self.statements(v)?;
                self.scopes.pop();
                Ok(())
            }
            Stmt::Expr { expr, .. } => self.expr(expr),
            Stmt::Decl(list) => {
                for d in list {
                    if let Some(init) = &d.init {
                        self.expr(init)?;
                    }
                    self.declare(d)?;
                }
                Ok(())
            }
            Stmt::Empty => Ok(()),
        }
    }

    /// A statement in a scope of its own (the body of a loop, a branch).
    fn scoped(&mut self, s: &Stmt) -> R<()> {
        self.scopes.push(Vec::new());
        let r = self.statement(s);
        self.scopes.pop();
        r
    }

    /// Whether the region's declaration of `name` is in scope.
    fn visible(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.iter().any(|n| n == name))
    }

    /// Records the declaration of a scalar in the innermost open block. The scalars of
    /// one name declared in blocks that do not overlap are one 0-dimensional array (the
    /// blocks never run at once); a declaration may not shadow another name, nor give a
    /// name another type, nor follow a use of the name.
    fn declare(&mut self, d: &LocalDecl) -> R<()> {
        let name = d.name.as_str();
        let fail = |message: String| Err(Fail::new(Kind::Name, d.at, message));
        if self.decls.vars.contains_key(name) {
            return fail(format!("`{name}` is declared before the scop and again inside it; use another name for the temporary"));
        }
        if self.iterators.contains(name) {
            return fail(format!(
                "`{name}` is a loop iterator and is declared inside the scop"
            ));
        }
        if self.visible(name) {
            return fail(format!(
                "`{name}` is declared again while its first declaration is in scope"
            ));
        }
        if self.uses.contains_key(name) {
            return fail(format!("`{name}` is used before its declaration"));
        }
        if let Some((ty, _)) = self.locals.get(name) {
            if *ty != d.element_type {
                return fail(format!(
                    "`{name}` is declared with the types `{ty}` and `{}`",
                    d.element_type
                ));
            }
        } else {
            self.locals
                .insert(name.to_string(), (d.element_type.clone(), d.at));
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(name.to_string());
        }
        Ok(())
    }

    /// Whether `name` is a scalar the region declares, in scope at its use at `at`; an
    /// error for a use outside the declaring block.
    fn local(&self, name: &str, at: usize) -> R<bool> {
        if !self.locals.contains_key(name) {
            return Ok(false);
        }
        if self.visible(name) {
            return Ok(true);
        }
        Err(Fail::new(
            Kind::Name,
            at,
            format!("`{name}` is used outside the block that declares it"),
        ))
    }

    /// Whether `name` is neither declared before the region nor a loop iterator.
    fn undeclared(&self, name: &str) -> bool {
        !self.decls.vars.contains_key(name) && !self.iterators.contains(name)
    }

    fn entry(&mut self, name: &str) -> &mut Uses {
        if !self.uses.contains_key(name) {
            self.order.push(name.to_string());
        }
        self.uses.entry(name.to_string()).or_default()
    }

    fn expr(&mut self, e: &Expr) -> R<()> {
        match &e.kind {
            ExprKind::Index(..) => {
                let mut base = e;
                let mut rank = 0;
                while let ExprKind::Index(b, index) = &base.kind {
                    self.expr(index)?;
                    rank += 1;
                    base = b;
                }
                match base.ident() {
                    Some(name) if self.local(name, base.start)? => Ok(()),
                    Some(name) if self.undeclared(name) => self.subscripted(name, rank, base.start),
                    Some(_) => Ok(()),
                    None => self.expr(base),
                }
            }
            ExprKind::Ident(name) => {
                if !self.local(name, e.start)? && self.undeclared(name) {
                    self.plain(name, e.start)?;
                }
                Ok(())
            }
            ExprKind::Call(f, args) => {
                if f.ident().is_none() {
                    self.expr(f)?;
                }
                for a in args {
                    self.expr(a)?;
                }
                Ok(())
            }
            _ => {
                for c in e.children() {
                    self.expr(c)?;
                }
                Ok(())
            }
        }
    }

    fn subscripted(&mut self, name: &str, rank: usize, at: usize) -> R<()> {
        let u = self.entry(name);
        if let Some(plain) = u.plain {
            return Err(both(self.source, name, at, plain));
        }
        match u.subscripted {
            None => u.subscripted = Some((rank, at)),
            Some((first, _)) if first != rank => {
                return Err(Fail::new(
                    Kind::Name,
                    at,
                    format!("`{name}` is used with {rank} subscripts here and with {first} before (an undeclared array has one number of dimensions)"),
                ));
            }
            Some(_) => {}
        }
        Ok(())
    }

    fn plain(&mut self, name: &str, at: usize) -> R<()> {
        let u = self.entry(name);
        if let Some((_, first)) = u.subscripted {
            return Err(both(self.source, name, at, first));
        }
        u.plain.get_or_insert(at);
        Ok(())
    }
}

/// The error for an undeclared name used both with and without subscripts, at the later
/// use; `earlier` is the byte offset of the first use of the other kind.
fn both(source: &str, name: &str, at: usize, earlier: usize) -> Fail {
    let line = source.get(..earlier).map_or(0, |s| s.matches('\n').count()) + 1;
    Fail::new(
        Kind::Name,
        at,
        format!("the undeclared name `{name}` is used both with and without subscripts (here and on line {line}): it cannot be an array and a scalar at once"),
    )
}
