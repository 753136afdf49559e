//! Polyhedral code generation: a schedule tree and the statements' domains become a loop
//! [`ast::Ast`] that executes every statement instance once, in schedule order.
//!
//! [`generate`] walks the tree (`build.rs`): one loop per band member, a block per
//! sequence, filters restricting the active statements. Loop bounds are exact maxima of
//! lower bounds and minima of upper bounds, with floor and ceiling divisions, computed
//! from the projection of the active statements' scheduled domains onto the outer
//! dimensions (`bounds.rs`); statements sharing a loop with different ranges are
//! separated into consecutive loops where their ranges can be ordered (`separate.rs`);
//! a dimension with a single value is substituted instead of looped over, and strides
//! come from divisibility constraints. Statements are called with their original
//! iterators as quasi-affine functions of the loop iterators, and guarded exactly where
//! the enclosing code does not imply their domain; guards are then hoisted out of loops
//! they do not depend on (`post.rs`); loops with a small constant trip count may be
//! unrolled ([`Options::unroll`]), and parallel innermost loops of guarded statements
//! distributed ([`Options::distribute`]). Unroll-and-jam marks from the tiler jam the
//! loops of a band (`jam.rs`).
//!
//! [`interp::interpret`] runs an AST for given parameter values and returns the executed
//! statement instances, which is how the tests check generated code.

pub mod apart;
pub mod ast;
mod bounds;
mod build;
mod display;
mod distribute;
pub mod error;
mod expr;
pub mod interp;
mod jam;
mod names;
mod post;
mod separate;
mod sets;
mod unroll;

pub use ast::{Ast, Cond, Expr, Loop};
pub use error::{Error, Result};
pub use unroll::{trip_count, unrolled_body};

use std::collections::BTreeMap;

use pollen_presburger::{Budget, Map, Set};
use pollen_scop::{Node, ScheduleTree, Scop};

use build::{Active, Build, Generator};
use expr::Names;
use sets::{lift, schedule_space, set_cond};

/// How the scop's context (the parameter values for which the region executes at least
/// one statement instance) is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ContextUse {
    /// The code is generated assuming the context, and wrapped in a test of the context
    /// when it could otherwise execute something for parameter values outside it. The
    /// result is correct for all parameter values (the default).
    #[default]
    Guard,
    /// The code is generated assuming the context and is only correct within it.
    Assume,
    /// The context is not used: the code is correct for all parameter values.
    Ignore,
}

/// The options of [`generate`].
#[derive(Clone, Debug)]
pub struct Options {
    /// The number of elementary steps the Presburger operations may take, or unlimited
    /// (the default); running out gives [`Error::LimitExceeded`].
    pub budget: Option<u64>,
    /// How the scop's context is used (default [`ContextUse::Guard`]).
    pub context: ContextUse,
    /// Whether loops shared by statements with different ranges are split into
    /// consecutive loops with constant statement sets (default on).
    pub separate: bool,
    /// The most pieces one loop is split into by separation; beyond, statements are only
    /// separated where their whole ranges follow each other (default 16).
    pub separation_limit: usize,
    /// Loops that always run a constant number of iterations, at most this many, are
    /// fully unrolled (default none).
    pub unroll: Option<u64>,
    /// Parallel innermost loops whose statements carry guards are split into one loop
    /// per statement, the guards becoming bounds (`distribute.rs`; default off). The
    /// instances then run in an order that differs from the schedule's but keeps every
    /// dependence, since such a loop carries none.
    pub distribute: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            budget: None,
            context: ContextUse::Guard,
            separate: true,
            separation_limit: 16,
            unroll: None,
            distribute: false,
        }
    }
}

/// The loop AST that executes every instance of the tree's domain exactly once, in the
/// lexicographic order of the tree's schedule ([`ScheduleTree::to_union_map`]).
///
/// Loop iterators are named `c0, c1, ...` by schedule dimension (another prefix is
/// chosen when the scop uses such names); loops of coincident band members are marked
/// parallel, and parallel loops without inner loops vectorizable.
pub fn generate(scop: &Scop, tree: &ScheduleTree, options: &Options) -> Result<Ast> {
    let mut budget = options.budget.map_or_else(Budget::unlimited, Budget::new);
    generate_with(scop, tree, options, &mut budget)
}

/// [`generate`] within `budget` (`options.budget` is ignored); running out gives
/// [`Error::LimitExceeded`].
pub fn generate_with(
    scop: &Scop,
    tree: &ScheduleTree,
    options: &Options,
    budget: &mut Budget,
) -> Result<Ast> {
    let Node::Domain { domain, child } = &tree.root else {
        return Err(Error::InvalidTree(
            "the schedule tree has no domain root".into(),
        ));
    };
    let params = scop.params.clone();
    let universe = Set::universe(schedule_space(&params, 0));
    let context = lift(&scop.context, &params, 0)?;
    let mut generator = Generator {
        params: params.clone(),
        options,
        budget,
        prefix: names::iterator_prefix(scop),
        order: scop
            .statements
            .iter()
            .enumerate()
            .map(|(k, s)| (s.name.clone(), k))
            .collect::<BTreeMap<_, _>>(),
        context: context.clone(),
        outside_context: false,
        reached: None,
        domains: BTreeMap::new(),
        rest_cache: BTreeMap::new(),
    };
    let mut active = Vec::new();
    for set in domain.sets() {
        let set = set.align_params(&params)?;
        let name = set
            .space()
            .range_tuple()
            .and_then(|t| t.name())
            .unwrap_or_default()
            .to_string();
        let exec = Map::from_domain_and_range(universe.as_map(), set.as_map())?;
        generator.domains.insert(name.clone(), set.clone());
        active.push(Active {
            name,
            exec,
            outer: None,
        });
    }
    // A union context is assumed through its hull: assuming less is always sound, and a
    // convex context keeps every later set convex.
    let known = match options.context {
        ContextUse::Ignore => universe.clone(),
        ContextUse::Guard | ContextUse::Assume => {
            Set::from(context.simple_hull_with(generator.budget)?)
        }
    };
    let ast = generator.node(child, active, &Build::root(known, universe))?;
    let ast = post::tidy(ast);
    let ast = if options.distribute {
        post::tidy(distribute::distribute(ast))
    } else {
        ast
    };
    let ast = match options.unroll {
        Some(limit) => post::tidy(unroll::unroll(ast, limit)),
        None => ast,
    };
    if options.context == ContextUse::Guard && generator.outside_context && !build::is_empty(&ast) {
        let names = Names {
            params: &params,
            dims: &[],
        };
        let needed = match generator.reached.take() {
            Some(reached) => context.gist_with(&reached, generator.budget)?,
            None => context,
        };
        let needed = Set::from_map(sets::explicit(needed.as_map(), generator.budget)?)?;
        if needed.plain_is_universe() {
            return Ok(ast);
        }
        return Ok(Ast::If {
            cond: set_cond(&needed, names)?,
            then: Box::new(ast),
            otherwise: None,
        });
    }
    Ok(ast)
}
