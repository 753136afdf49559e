//! The walk over the schedule tree that scans the scheduled domains into a loop AST.
//!
//! # State
//! Each *active* statement carries its executed relation `exec: [c0 .. c(d-1)] -> S[i]`:
//! the statement instances still to be executed below the current node, keyed by the
//! values of the schedule dimensions generated so far (band members; sequence positions
//! become blocks, not dimensions). The [`Build`] holds what the enclosing code
//! guarantees (`known`: loop bounds, substituted values and, unless ignored, the
//! context), the expression of each dimension, and the flattened schedule prefix that
//! extension nodes refer to.
//!
//! # Nodes
//! - a filter restricts the active instances; a sequence (or set) generates its children
//!   one after the other in a block; context nodes add to `known`; marks are transparent,
//!   except an `unroll-and-jam` mark above a band, whose loops are then jammed
//!   ([`crate::jam`]);
//!   an extension adds the instances it maps from the prefix;
//! - a band member appends one dimension `c_d = f(i)` to every active relation, splits
//!   the range of `c_d` into consecutive components ([`crate::separate`]), and generates
//!   one loop per component ([`crate::bounds`]) or, for a single value, substitutes it;
//!   a loop that provably runs at most one iteration ([`crate::bounds::at_most_one`])
//!   is no loop either: its first value is substituted, under the guard `lower <= upper`
//!   unless the enclosing code implies it;
//! - at a leaf, each statement gets the exact guard `gist(dom exec, known)` (usually
//!   true) and its arguments, the lexicographic minimum of `exec` as a quasi-affine
//!   function of the dimensions. A statement whose instances the tree does not tell
//!   apart is scanned by extra loops over its own iterators, in order.
//!
//! # Invariant
//! The code generated for a node executes, for every point of `known`, exactly the
//! active instances of that point, in schedule order: loops cover every active instance
//! (their bounds come from a superset), and the guard at each statement is exact
//! relative to everything the enclosing code enforces.

use std::collections::BTreeMap;

use pollen_arith::Int;
use pollen_presburger::{BasicMap, Budget, DimKind, Map, Set, Space, Tuple, UnionMap, UnionSet};
use pollen_scop::marks::parse_unroll_and_jam;
use pollen_scop::{Band, Node, ScheduleTree};

use crate::ast::{Ast, Cond, Expr, Loop};
use crate::bounds::{at_most_one, loop_bounds, relax, union_bounds, Shape};
use crate::error::{Error, Result};
use crate::expr::{aff_expr, row_expr_with_divs, simplify, Names};
use crate::separate::{components, Level, TieKey};
use crate::sets::{
    basic_set, explicit, hull, is_true, lift, lifted_hull, outer_constraints, set_cond,
};
use crate::{ContextUse, Options};

/// A statement with the instances still to execute.
#[derive(Clone, Debug)]
pub(crate) struct Active {
    /// The statement's name.
    pub name: String,
    /// `[c0 .. c(d-1)] -> S[i]`.
    pub exec: Map,
    /// Constraints on the dimensions (of some depth up to `d`) that every instance still
    /// to execute satisfies, kept apart from `exec` when restricting `exec` would only
    /// add constraints (they sharpen the regions of [`Generator::regions`]).
    pub outer: Option<Set>,
}

/// A component of the flattened schedule prefix, for extension nodes.
#[derive(Clone, Copy, Debug)]
enum PrefixDim {
    /// The generated dimension of that index.
    Loop(usize),
    /// A sequence position.
    Const(i64),
}

/// What the code around a node guarantees, and how its dimensions are named.
#[derive(Clone, Debug)]
pub(crate) struct Build {
    /// Constraints enforced by the enclosing code, plus the assumed context.
    pub known: Set,
    /// Constraints enforced by the enclosing code alone (no context).
    pub free: Set,
    /// The expression of each dimension's value.
    pub dims: Vec<Expr>,
    /// The flattened schedule prefix.
    prefix: Vec<PrefixDim>,
    /// Whether the statements here were completed by loops over their iterators.
    completed: bool,
}

impl Build {
    /// The state at the root: `known` and `free` in the parameter space (depth 0).
    pub fn root(known: Set, free: Set) -> Build {
        Build {
            known,
            free,
            dims: Vec::new(),
            prefix: Vec::new(),
            completed: false,
        }
    }
}

/// The generator's configuration and running state.
pub(crate) struct Generator<'a, 'b> {
    pub params: Vec<String>,
    pub options: &'a Options,
    pub budget: &'b mut Budget,
    /// The iterators' name prefix.
    pub prefix: String,
    /// The position of each statement of the scop (leaf order).
    pub order: BTreeMap<String, usize>,
    /// The context, in the parameter space.
    pub context: Set,
    /// Whether some statement may execute outside the context (checked in
    /// [`ContextUse::Guard`] mode).
    pub outside_context: bool,
    /// The parameter values for which some statement call is reached, ignoring the
    /// context ([`ContextUse::Guard`] mode).
    pub reached: Option<Set>,
    /// The statements' full domains, by name.
    pub domains: BTreeMap<String, Set>,
    /// The remaining flat schedule of a statement from band member `k` on, by band
    /// address, member and statement (`None` when it could not be flattened).
    pub rest_cache: BTreeMap<(usize, usize, String), Option<Map>>,
}

impl Generator<'_, '_> {
    /// The AST of `node` for the active statements.
    pub fn node(&mut self, node: &Node, active: Vec<Active>, b: &Build) -> Result<Ast> {
        if active.is_empty() {
            return Ok(Ast::Block(Vec::new()));
        }
        match node {
            Node::Domain { domain, child } => {
                let active = self.filter(active, domain)?;
                self.node(child, active, b)
            }
            Node::Context { context, child } => {
                let mut inner = b.clone();
                let lifted = lift(context, &self.params, b.dims.len())?;
                inner.known = inner.known.intersect(&lifted)?;
                self.node(child, active, &inner)
            }
            // A subtree whose instances run elsewhere (under an extension node).
            Node::Mark { name, .. } if name == pollen_scop::marks::SKIPPED => {
                Ok(Ast::Block(Vec::new()))
            }
            Node::Mark { name, child } => match (parse_unroll_and_jam(name), &**child) {
                (Some(requests), Node::Band(band)) => {
                    let mut ast = self.node(child, active, b)?;
                    let d = b.dims.len();
                    let names: Vec<String> = (0..band.n_members())
                        .map(|m| format!("{}{}", self.prefix, d + m))
                        .collect();
                    let requests: Vec<crate::jam::Request> = requests
                        .into_iter()
                        .filter_map(|(member, factor)| Some((names.get(member)?.clone(), factor)))
                        .collect();
                    ast = crate::jam::jam(ast, &requests, &names);
                    Ok(ast)
                }
                _ => self.node(child, active, b),
            },
            Node::Filter { filter, child } => {
                let active = self.filter(active, filter)?;
                self.node(child, active, b)
            }
            Node::Sequence(children) | Node::Set(children) => {
                let mut out = Vec::new();
                for (position, c) in children.iter().enumerate() {
                    let mut inner = b.clone();
                    let position = i64::try_from(position)
                        .map_err(|_| Error::InvalidTree("too many children".into()))?;
                    inner.prefix.push(PrefixDim::Const(position));
                    out.push(self.node(c, active.clone(), &inner)?);
                }
                Ok(Ast::Block(out))
            }
            Node::Band(band) => self.member(band, 0, active, b),
            Node::Extension { extension, child } => {
                let mut active = active;
                active.extend(self.extension(extension, b)?);
                self.node(child, active, b)
            }
            Node::Leaf => self.leaf(active, b),
        }
    }

    /// The active statements restricted to the instances of `filter`; statements the
    /// filter does not mention, or whose instances it excludes, are dropped.
    fn filter(&mut self, active: Vec<Active>, filter: &UnionSet) -> Result<Vec<Active>> {
        let mut kept = Vec::new();
        for a in active {
            let key = statement_key(&a.exec);
            let Some(f) = filter
                .sets()
                .find(|f| f.space().range_tuple().map(|t| t.key()) == Some(key.clone()))
            else {
                continue;
            };
            let exec = a.exec.intersect_range(f.as_map())?;
            if !exec.is_empty_with(self.budget)? {
                kept.push(Active {
                    name: a.name,
                    exec,
                    outer: a.outer,
                });
            }
        }
        Ok(kept)
    }

    /// The loops of band member `k` and everything below.
    fn member(&mut self, band: &Band, k: usize, active: Vec<Active>, b: &Build) -> Result<Ast> {
        if k == band.n_members() {
            return self.node(&band.child, active, b);
        }
        let d = b.dims.len();
        let known1 = lift(&b.known, &self.params, d + 1)?;
        let mut extended = Vec::with_capacity(active.len());
        let mut sets = Vec::with_capacity(active.len());
        for a in active {
            let f = member_map(band, &a.exec, k)?;
            let exec = a.exec.reverse().flat_range_product(&f)?.reverse();
            let t = Set::from_map(explicit(&exec.domain(), self.budget)?)?;
            let t = t.intersect(&known1)?;
            sets.push(if t.is_empty_with(self.budget)? {
                None
            } else {
                Some(t)
            });
            extended.push(Active {
                name: a.name,
                exec,
                outer: a.outer,
            });
        }
        let regions = self.regions(band, k, &extended, &sets, &known1, d)?;
        let mut keys: Vec<Option<TieKey>> = Vec::with_capacity(extended.len());
        for a in &extended {
            let rest = self.rest_schedule(band, k + 1, &a.name);
            keys.push(rest.map(|m| TieKey {
                rest: constant_outputs(&m),
                order: self.order.get(&a.name).copied().unwrap_or(usize::MAX),
            }));
        }
        let comps = components(
            &regions,
            &sets,
            &keys,
            Level {
                params: &self.params,
                d,
                separate: self.options.separate,
                limit: self.options.separation_limit,
            },
            self.budget,
        )?;
        let free1 = lift(&b.free, &self.params, d + 1)?;
        // The number of components each statement has instances in.
        let shared: Vec<usize> = (0..extended.len())
            .map(|s| comps.iter().filter(|c| c.parts[s].is_some()).count())
            .collect();
        let mut out = Vec::new();
        for c in comps {
            let hull = hull(&c.union, 1 + self.params.len() + d, self.budget)?;
            let names = Names {
                params: &self.params,
                dims: &b.dims,
            };
            let bounds = match loop_bounds(&hull, &known1, d, names, self.budget) {
                Err(Error::Unbounded { .. }) if c.union.as_map().basic_maps().len() > 1 => {
                    let parts = c.union.as_map().basic_maps();
                    union_bounds(parts, &known1, d, names, self.budget)?
                }
                r => r?,
            };
            let single = match &bounds.shape {
                Shape::Range { stride, .. } => at_most_one(
                    &bounds.enforced,
                    stride,
                    &known1,
                    d,
                    self.params.len(),
                    self.budget,
                )?,
                Shape::Fixed(_) => false,
            };
            let enforced = basic_set(bounds.enforced)?;
            let iterator = format!("{}{d}", self.prefix);
            let value = match &bounds.shape {
                Shape::Fixed(v) => v.clone(),
                Shape::Range { lower, .. } if single => lower.clone(),
                Shape::Range { .. } => Expr::Var(iterator.clone()),
            };
            // A single iteration whose range the enclosing code (and the context) imply
            // is non-empty runs unguarded: it then enforces nothing, not even outside
            // the context, which the reach of the statements must see.
            let guarded = single && !self.always_nonempty(&enforced, &known1, b)?;
            let mut inner = b.clone();
            inner.known = known1.intersect(&enforced)?;
            inner.free = if single && !guarded {
                free1.clone()
            } else {
                free1.intersect(&enforced)?
            };
            inner.dims.push(value);
            inner.prefix.push(PrefixDim::Loop(d));
            let mut members = Vec::new();
            for (s, (a, part)) in extended.iter().zip(&c.parts).enumerate() {
                if let Some(part) = part {
                    // A statement in this component only keeps all its instances.
                    let exec = if shared[s] > 1 {
                        a.exec.intersect_domain(part.as_map())?
                    } else {
                        a.exec.clone()
                    };
                    let outer = match &a.outer {
                        Some(o) => lift(o, &self.params, d + 1)?.intersect(part)?,
                        None => part.clone(),
                    };
                    members.push(Active {
                        name: a.name.clone(),
                        exec,
                        outer: Some(outer),
                    });
                }
            }
            let body = self.member(band, k + 1, members, &inner)?;
            if is_empty(&body) {
                continue;
            }
            match bounds.shape {
                Shape::Fixed(_) => out.push(body),
                Shape::Range { lower, upper, .. } if guarded => {
                    let gap = Expr::Add(vec![upper, Expr::Mul(-Int::one(), Box::new(lower))]);
                    out.push(Ast::If {
                        cond: Cond::NonNegative(simplify(gap)),
                        then: Box::new(body),
                        otherwise: None,
                    });
                }
                Shape::Range { .. } if single => out.push(body),
                Shape::Range {
                    lower,
                    upper,
                    stride,
                } => {
                    let parallel = band.coincident.get(k).copied().unwrap_or(false);
                    let vectorizable = parallel && !contains_loop(&body);
                    out.push(Ast::For(Loop {
                        iterator,
                        lower,
                        upper,
                        stride,
                        body: Box::new(body),
                        parallel,
                        vectorizable,
                    }));
                }
            }
        }
        Ok(Ast::Block(out))
    }

    /// Whether what the enclosing code enforces (`b.known`, lifted to `known1`) implies
    /// that the range of the next dimension (`enforced`) has a value.
    fn always_nonempty(&mut self, enforced: &Set, known1: &Set, b: &Build) -> Result<bool> {
        let range = enforced
            .intersect(known1)?
            .project_out(DimKind::Out, b.dims.len(), 1)?;
        Ok(b.known.is_subset_with(&range, self.budget)?)
    }

    /// The regions to separate: with several statements, each statement's region is the
    /// part of the hull of all their ranges that satisfies the constraints of its scheduled
    /// domain involving no deeper dimension — the deeper ones are enforced by its inner
    /// loops, so separating on them would only peel iterations. Otherwise the ranges.
    fn regions(
        &mut self,
        band: &Band,
        k: usize,
        extended: &[Active],
        sets: &[Option<Set>],
        known: &Set,
        d: usize,
    ) -> Result<Vec<Option<Set>>> {
        let present: Vec<&Set> = sets.iter().flatten().collect();
        if present.len() < 2 || !self.options.separate {
            return Ok(sets.to_vec());
        }
        let mut union = present[0].clone();
        for s in &present[1..] {
            union = union.union(s)?;
        }
        let col = 1 + self.params.len() + d;
        // The cover only needs to bound the scanned dimension.
        let parts: Vec<BasicMap> = union
            .as_map()
            .basic_maps()
            .iter()
            .map(|p| relax(p, col))
            .collect();
        let Some(h) = lifted_hull(&parts, Some(col), self.budget)? else {
            return Ok(sets.to_vec());
        };
        let bounded = h.ineqs().iter().any(|r| r[col].is_positive())
            && h.ineqs().iter().any(|r| r[col].is_negative())
            || h.eqs().iter().any(|r| !r[col].is_zero());
        let cover = if bounded {
            basic_set(h)?.intersect(known)?
        } else {
            union
        };
        let mut out = Vec::with_capacity(sets.len());
        for (a, t) in extended.iter().zip(sets) {
            let Some(t) = t else {
                out.push(None);
                continue;
            };
            let region = match self.outer_region(band, k, a, d)? {
                Some(o) => o.intersect(&cover)?,
                None => t.clone(),
            };
            out.push(Some(region));
        }
        Ok(out)
    }

    /// The constraints of the statement's scheduled domain, over the whole remaining
    /// schedule, that involve no dimension after `d`; `None` when the remaining schedule
    /// cannot be flattened or the domain is not convex.
    fn outer_region(&mut self, band: &Band, k: usize, a: &Active, d: usize) -> Result<Option<Set>> {
        let Some(rest) = self.rest_schedule(band, k + 1, &a.name) else {
            return Ok(None);
        };
        // exec has d + 1 dimensions (member k included); rest starts after member k.
        let full = a.exec.reverse().flat_range_product(&rest)?.reverse();
        let scheduled = explicit(&full.domain(), self.budget)?;
        let [b] = scheduled.basic_maps() else {
            return Ok(None);
        };
        let o = basic_set(outer_constraints(b, &self.params, d + 1)?)?;
        match &a.outer {
            Some(known) => Ok(Some(o.intersect(&lift(known, &self.params, d + 1)?)?)),
            None => Ok(Some(o)),
        }
    }

    /// The flat schedule of a statement from band member `k` on (members `k..` of the
    /// band, then its subtree), cached by the band's address (the tree outlives the
    /// generator).
    fn rest_schedule(&mut self, band: &Band, k: usize, name: &str) -> Option<Map> {
        let key = (band as *const Band as usize, k, name.to_string());
        if let Some(r) = self.rest_cache.get(&key) {
            return r.clone();
        }
        let r = self.flatten_rest(band, k, name);
        self.rest_cache.insert(key, r.clone());
        r
    }

    fn flatten_rest(&self, band: &Band, k: usize, name: &str) -> Option<Map> {
        let domain = self.domains.get(name)?;
        let mut schedule = UnionMap::empty(self.params.clone());
        for m in band.schedule.maps() {
            schedule
                .add_map(m.project_out(DimKind::Out, 0, k).ok()?)
                .ok()?;
        }
        let rest = Band {
            schedule,
            permutable: band.permutable,
            coincident: band.coincident.get(k..)?.to_vec(),
            child: band.child.clone(),
        };
        let tree = ScheduleTree {
            root: Node::Domain {
                domain: UnionSet::from_set(domain.clone()),
                child: Box::new(Node::Band(rest)),
            },
        };
        let flat = tree.to_union_map().ok()?;
        let m = flat.maps().next()?.clone();
        Some(m)
    }

    /// The statements of a leaf, in the scop's order.
    fn leaf(&mut self, mut active: Vec<Active>, b: &Build) -> Result<Ast> {
        active.sort_by_key(|a| self.order.get(&a.name).copied().unwrap_or(usize::MAX));
        let mut out = Vec::new();
        for a in active {
            if !b.completed && !a.exec.is_single_valued_with(self.budget)? {
                out.push(self.complete(a, b)?);
            } else {
                out.push(self.user(a, b)?);
            }
        }
        Ok(Ast::Block(out))
    }

    /// Loops over the statement's own iterators, for instances the tree leaves unordered.
    fn complete(&mut self, a: Active, b: &Build) -> Result<Ast> {
        let domain_space = a.exec.space().range_space();
        let n = domain_space.n_dims() - domain_space.n_params();
        let tuple = domain_space
            .range_tuple()
            .cloned()
            .unwrap_or_else(|| Tuple::anonymous(n));
        let space = Space::map(self.params.clone(), tuple, Tuple::anonymous(n));
        let identity = Map::identity(&domain_space).with_space(space);
        let band = Band {
            schedule: UnionMap::from_map(identity),
            permutable: false,
            coincident: vec![false; n],
            child: Box::new(Node::Leaf),
        };
        let mut inner = b.clone();
        inner.completed = true;
        self.member(&band, 0, vec![a], &inner)
    }

    /// One statement call, guarded where the enclosing code does not imply its domain.
    fn user(&mut self, a: Active, b: &Build) -> Result<Ast> {
        let mut dom = Set::from_map(explicit(&a.exec.domain(), self.budget)?)?;
        if dom.as_map().basic_maps().len() > 1 {
            dom = dom.coalesce_with(self.budget)?;
        }
        let guard = dom.gist_with(&b.known, self.budget)?;
        if guard.is_empty_with(self.budget)? {
            return Ok(Ast::Block(Vec::new()));
        }
        let guard = Set::from_map(explicit(guard.as_map(), self.budget)?)?;
        if self.options.context == ContextUse::Guard {
            self.note_reach(&b.free.intersect(&guard)?, b.dims.len())?;
        }
        let params = self.params.clone();
        let names = Names {
            params: &params,
            dims: &b.dims,
        };
        let cond = if guard.plain_is_universe() {
            None
        } else {
            Some(set_cond(&guard, names)?)
        };
        let exec = a.exec.intersect_domain(b.known.as_map())?;
        let call = self.call(&a.name, &exec, &b.known.intersect(&guard)?, names)?;
        Ok(match cond {
            Some(cond) if !is_true(&cond) => Ast::If {
                cond,
                then: Box::new(call),
                otherwise: None,
            },
            _ => call,
        })
    }

    /// Records the parameter values for which a statement call is reached (`reach`,
    /// ignoring the context, at depth `d`) and whether that leaves the context.
    fn note_reach(&mut self, reach: &Set, d: usize) -> Result<()> {
        if !self.outside_context {
            let context = lift(&self.context, &self.params, d)?;
            if !reach.is_subset_with(&context, self.budget)? {
                self.outside_context = true;
            }
        }
        let params = lift(&reach.params(), &self.params, 0)?;
        self.reached = Some(match self.reached.take() {
            None => params,
            Some(r) => r.union(&params)?,
        });
        Ok(())
    }

    /// The call of a statement with its iterators as functions of the dimensions.
    fn call(&mut self, name: &str, exec: &Map, known: &Set, names: Names) -> Result<Ast> {
        if let Some(args) = direct_args(exec, names)? {
            return Ok(Ast::User {
                statement: name.to_string(),
                args,
            });
        }
        let lex = exec.lexmin_pw_with(self.budget)?;
        let pieces = lex.optimum.into_pieces();
        let user = |ma: &pollen_presburger::aff::MultiAff| -> Result<Ast> {
            let args = ma
                .affs()
                .iter()
                .map(|aff| aff_expr(aff, names))
                .collect::<Result<Vec<Expr>>>()?;
            Ok(Ast::User {
                statement: name.to_string(),
                args,
            })
        };
        if pieces.len() == 1 {
            return user(&pieces[0].1);
        }
        for (_, ma) in &pieces {
            if exec.is_subset_with(&ma.to_map(), self.budget)? {
                return user(ma);
            }
        }
        let mut out = Vec::new();
        for (dom, ma) in &pieces {
            let g = dom.gist_with(known, self.budget)?;
            let g = Set::from_map(explicit(g.as_map(), self.budget)?)?;
            out.push(Ast::If {
                cond: set_cond(&g, names)?,
                then: Box::new(user(ma)?),
                otherwise: None,
            });
        }
        Ok(Ast::Block(out))
    }

    /// The instances an extension node adds, as executed relations of the current depth.
    fn extension(&mut self, extension: &UnionMap, b: &Build) -> Result<Vec<Active>> {
        let np = self.params.len();
        let d = b.dims.len();
        let m = b.prefix.len();
        let space = Space::map(
            self.params.clone(),
            Tuple::anonymous(d),
            Tuple::anonymous(m),
        );
        let mut phi = BasicMap::universe(space);
        for (j, p) in b.prefix.iter().enumerate() {
            let mut row = phi.zero_row();
            row[1 + np + d + j] = Int::one();
            match p {
                PrefixDim::Loop(l) => row[1 + np + l] = -Int::one(),
                PrefixDim::Const(v) => row[0] = Int::from(-*v),
            }
            phi.add_eq(row);
        }
        let phi = Map::from_basic(phi);
        let mut out = Vec::new();
        for e in extension.maps() {
            if e.space().n_in() != m {
                return Err(Error::InvalidTree(format!(
                    "an extension maps {} schedule dimensions where the prefix has {m}",
                    e.space().n_in()
                )));
            }
            let e = e.align_params(&self.params)?;
            let range = e
                .space()
                .range_tuple()
                .cloned()
                .unwrap_or_else(|| Tuple::anonymous(0));
            let e = e.with_space(Space::map(self.params.clone(), Tuple::anonymous(m), range));
            let exec = phi.apply_range(&e)?;
            let name = e
                .space()
                .range_tuple()
                .and_then(|t| t.name())
                .unwrap_or_default()
                .to_string();
            out.push(Active {
                name,
                exec,
                outer: None,
            });
        }
        Ok(out)
    }
}

/// The iterators of a statement read off the equalities of its executed relation
/// `[c] -> S[i]` when it is one basic map whose equalities solve for every `i_k` by
/// Gauss-Jordan elimination with unit pivots (the common case: each iterator is an
/// affine function of the dimensions); `None` otherwise.
fn direct_args(exec: &Map, names: Names) -> Result<Option<Vec<Expr>>> {
    let mut common: Option<Vec<Expr>> = None;
    for b in exec.basic_maps() {
        let Some(args) = solve_iterators(b, names)? else {
            return Ok(None);
        };
        match &common {
            Some(c) if *c != args => return Ok(None),
            _ => common = Some(args),
        }
    }
    Ok(common)
}

/// The iterators of one basic map `[c] -> S[i]` by Gauss-Jordan elimination (see
/// [`direct_args`]).
fn solve_iterators(b: &BasicMap, names: Names) -> Result<Option<Vec<Expr>>> {
    let b = b.clone().simplify();
    let space = b.space();
    let n_dims = b.n_dims();
    let first_out = 1 + space.n_params() + space.n_in();
    let n_out = space.n_out();
    let outs = first_out..first_out + n_out;
    // Divs that depend on an iterator (directly or through earlier divs).
    let mut dependent: Vec<bool> = Vec::with_capacity(b.n_div());
    for d in b.divs() {
        let v = match d {
            None => true,
            Some(d) => d.num.iter().enumerate().any(|(c, x)| {
                !x.is_zero() && (outs.contains(&c) || (c > n_dims && dependent[c - 1 - n_dims]))
            }),
        };
        dependent.push(v);
    }
    // Gauss-Jordan elimination of the iterators with unit pivots, over the equalities
    // free of divs that depend on iterators.
    let mut rows: Vec<Vec<Int>> = b
        .eqs()
        .iter()
        .filter(|r| {
            r.iter()
                .enumerate()
                .all(|(c, x)| x.is_zero() || c <= n_dims || !dependent[c - 1 - n_dims])
        })
        .cloned()
        .collect();
    let mut pivots: Vec<usize> = Vec::with_capacity(n_out);
    for k in outs.clone() {
        let Some(p) = (0..rows.len()).find(|&p| !pivots.contains(&p) && rows[p][k].abs().is_one())
        else {
            return Ok(None);
        };
        let pivot = rows[p].clone();
        for (q, row) in rows.iter_mut().enumerate() {
            if q != p && !row[k].is_zero() {
                // row -= (row[k] / pivot[k]) · pivot, with pivot[k] = ±1.
                let factor = &row[k] * &pivot[k];
                for (x, y) in row.iter_mut().zip(&pivot) {
                    *x = &*x - &(&factor * y);
                }
            }
        }
        pivots.push(p);
    }
    let mut args = Vec::with_capacity(n_out);
    for (k, &p) in outs.zip(&pivots) {
        let row = &rows[p];
        // ±i_k + f = 0  =>  i_k = ∓f.
        let factor = -&row[k];
        let mut f: Vec<Int> = row.iter().map(|x| x * &factor).collect();
        f[k] = Int::zero();
        args.push(row_expr_with_divs(&f, n_dims, b.divs(), names)?);
    }
    Ok(Some(args))
}

/// The key of the statement tuple of an executed relation.
fn statement_key(exec: &Map) -> String {
    exec.space()
        .range_tuple()
        .map(|t| t.key())
        .unwrap_or_default()
}

/// Member `k` of the band's schedule of the statement of `exec`: `S[i] -> [f_k(i)]`.
fn member_map(band: &Band, exec: &Map, k: usize) -> Result<Map> {
    let key = statement_key(exec);
    let Some(m) = band
        .schedule
        .maps()
        .find(|m| m.space().domain_tuple().map(|t| t.key()) == Some(key.clone()))
    else {
        return Err(Error::InvalidTree(format!(
            "a band does not schedule the active statement {key}"
        )));
    };
    let n = m.space().n_out();
    if k >= n {
        return Err(Error::InvalidTree(format!(
            "a band of {} members schedules {key} with {n} dimensions",
            band.n_members()
        )));
    }
    let m = m.project_out(DimKind::Out, k + 1, n - k - 1)?;
    Ok(m.project_out(DimKind::Out, 0, k)?)
}

/// Per output of a map `S[i] -> [r0, ...]`, its constant value if every part fixes it to
/// the same one (a sequence position or a constant band member).
fn constant_outputs(m: &Map) -> Vec<Option<Int>> {
    let space = m.space();
    let first = 1 + space.n_params() + space.n_in();
    (first..first + space.n_out())
        .map(|col| {
            let mut value: Option<Int> = None;
            for b in m.basic_maps() {
                let v = b.eqs().iter().find_map(|r| {
                    let only = r
                        .iter()
                        .enumerate()
                        .skip(1)
                        .all(|(c, x)| c == col || x.is_zero());
                    (only && r[col].abs().is_one()).then(|| -&r[0] * &r[col])
                })?;
                match &value {
                    Some(w) if *w != v => return None,
                    _ => value = Some(v),
                }
            }
            value
        })
        .collect()
}

/// Whether an AST executes nothing.
pub(crate) fn is_empty(ast: &Ast) -> bool {
    match ast {
        Ast::Block(v) => v.iter().all(is_empty),
        Ast::For(l) => is_empty(&l.body),
        Ast::If {
            then, otherwise, ..
        } => is_empty(then) && otherwise.as_deref().is_none_or(is_empty),
        Ast::User { .. } => false,
    }
}

/// Whether an AST contains a loop.
pub(crate) fn contains_loop(ast: &Ast) -> bool {
    match ast {
        Ast::Block(v) => v.iter().any(contains_loop),
        Ast::For(_) => true,
        Ast::If {
            then, otherwise, ..
        } => contains_loop(then) || otherwise.as_deref().is_some_and(contains_loop),
        Ast::User { .. } => false,
    }
}
