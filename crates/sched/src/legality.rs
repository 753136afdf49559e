//! The independent legality checker: does a schedule respect every dependence, and are
//! its band annotations (coincident members, permutable bands) true?
//!
//! The checker decides everything on the integer sets themselves, with set operations of
//! `pollen-presburger` (composition, intersection with lexicographic orders, emptiness and
//! sampling). It shares no code with the scheduler's Farkas formulation: a bug there
//! cannot hide a bug here. Every violation comes with a concrete pair of dependent
//! instances and the parameter values for which it occurs.
//!
//! What is checked, for a schedule tree `T` with flattened schedule `θ`
//! ([`ScheduleTree::to_union_map`]) and dependences `x → y`:
//! - **order**: `θ(x) ≺ θ(y)` strictly (lexicographically) for every dependent pair, and
//!   every instance of a dependence is scheduled;
//! - **coincidence**: for every band member flagged coincident, every dependent pair whose
//!   instances are both active at the band and which agree on every schedule dimension
//!   before the member (outer bands, sequence positions and the band's earlier members)
//!   has equal values on the member: the member's loop is parallel;
//! - **permutability**: for every band flagged permutable, every dependent pair whose
//!   instances are both active at the band and which agree on every schedule dimension
//!   above the band has a non-negative distance on every member;
//! - **set nodes**: instances in different children of a [`Node::Set`] (whose order is
//!   free) that agree on the schedule dimensions above it do not depend on each other.
//!
//! Pairs that the outer dimensions order backwards are reported by the order check, not
//! again by the annotation checks.
//!
//! # Invariants
//! - a [`Report`] lists violations in a deterministic order: order violations by
//!   dependence, then tree violations in depth-first tree order;
//! - every [`Example`] is a pair of the dependence relation (within the context of the
//!   tree's root), and its schedule vectors are the schedule's values at the two instances.

use std::collections::BTreeMap;
use std::fmt;

use pollen_deps::{DepKind, Dependence};
use pollen_presburger::{Budget, DimKind, Int, Map, Set, Space, Tuple, UnionMap, UnionSet};
use pollen_scop::{Band, Node, ScheduleTree};

/// Errors of the legality checker (as opposed to violations, which are part of a
/// [`Report`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The budget ran out before the check finished.
    LimitExceeded,
    /// A set operation failed.
    Presburger(pollen_presburger::Error),
    /// The schedule tree could not be flattened.
    Scop(pollen_scop::Error),
    /// The schedule tree does not start with a domain node.
    NoDomainRoot,
    /// A dependence relation is not a map between two named statement tuples.
    MalformedDependence {
        /// The dependence's position in the list.
        index: usize,
    },
    /// A band does not schedule a statement active at it.
    BandMissingStatement {
        /// The band's position in the tree (child indices from the root).
        band: Vec<usize>,
        /// The statement.
        statement: String,
    },
    /// A band's schedule for a statement has a different number of dimensions than the
    /// band has members.
    BandArity {
        /// The band's position in the tree.
        band: Vec<usize>,
        /// The statement.
        statement: String,
        /// The band's number of members (`coincident.len()`).
        members: usize,
        /// The number of output dimensions of the statement's schedule.
        dims: usize,
    },
    /// An extension node's map does not start at the outer schedule dimensions.
    ExtensionArity {
        /// The extension's position in the tree.
        node: Vec<usize>,
    },
}

/// The result type of the checker.
pub type Result<T> = std::result::Result<T, Error>;

impl From<pollen_presburger::Error> for Error {
    fn from(e: pollen_presburger::Error) -> Error {
        match e {
            pollen_presburger::Error::LimitExceeded => Error::LimitExceeded,
            e => Error::Presburger(e),
        }
    }
}

impl From<pollen_scop::Error> for Error {
    fn from(e: pollen_scop::Error) -> Error {
        match e {
            pollen_scop::Error::Presburger(e) => Error::from(e),
            e => Error::Scop(e),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::LimitExceeded => write!(f, "the legality check exceeded its budget"),
            Error::Presburger(e) => write!(f, "{e}"),
            Error::Scop(e) => write!(f, "{e}"),
            Error::NoDomainRoot => write!(f, "the schedule tree has no domain root"),
            Error::MalformedDependence { index } => write!(
                f,
                "dependence #{index} is not a map between two statement tuples"
            ),
            Error::BandMissingStatement { band, statement } => write!(
                f,
                "the band at {} does not schedule the active statement {statement}",
                TreePath(band)
            ),
            Error::BandArity {
                band,
                statement,
                members,
                dims,
            } => write!(
                f,
                "the band at {} has {members} members but schedules {statement} with {dims} dimensions",
                TreePath(band)
            ),
            Error::ExtensionArity { node } => write!(
                f,
                "the extension at {} does not start at its outer schedule dimensions",
                TreePath(node)
            ),
        }
    }
}

impl std::error::Error for Error {}

/// The dependence a violation is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DependenceRef {
    /// Its position in the list given to the checker.
    pub index: usize,
    /// Flow, anti or output.
    pub kind: DepKind,
    /// The array.
    pub array: String,
    /// The source statement.
    pub source: String,
    /// The target statement.
    pub target: String,
}

/// One statement instance, e.g. `S1[3, 2]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The statement's name (its tuple name).
    pub statement: String,
    /// The values of its iterators.
    pub coords: Vec<Int>,
}

/// A concrete dependent pair that shows a violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    /// The parameter values, by name.
    pub params: Vec<(String, Int)>,
    /// The source instance.
    pub source: Instance,
    /// The target instance.
    pub target: Instance,
    /// The schedule vector of the source (for band checks: the outer dimensions followed
    /// by the band's members); `None` when the instance is not scheduled.
    pub source_schedule: Option<Vec<Int>>,
    /// The schedule vector of the target, as for the source.
    pub target_schedule: Option<Vec<Int>>,
}

/// What a violation breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// The target is not scheduled strictly after the source. `dim` is the first
    /// schedule dimension where the target's value is smaller in the example, `None` when
    /// both instances get the same schedule vector.
    Order {
        /// The first dimension where the target comes first.
        dim: Option<usize>,
    },
    /// An instance of the dependence is not scheduled at all.
    Unscheduled {
        /// The statement whose instance is missing.
        statement: String,
    },
    /// A band member flagged coincident carries the dependence.
    Coincident {
        /// The band's position in the tree (child indices from the root).
        band: Vec<usize>,
        /// The member (0-based within the band).
        member: usize,
        /// The member's dimension in the flattened schedule.
        dim: usize,
    },
    /// A band flagged permutable has a negative dependence distance on a member.
    Permutable {
        /// The band's position in the tree.
        band: Vec<usize>,
        /// The member (0-based within the band).
        member: usize,
        /// The member's dimension in the flattened schedule.
        dim: usize,
    },
    /// Two children of a set node (order free) depend on each other.
    SetOrder {
        /// The set node's position in the tree.
        node: Vec<usize>,
        /// The child holding the source instance.
        source_child: usize,
        /// The child holding the target instance.
        target_child: usize,
    },
}

/// One violated condition, with the dependence and a witness pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// What is violated.
    pub kind: ViolationKind,
    /// The dependence.
    pub dependence: DependenceRef,
    /// A concrete violating pair.
    pub example: Example,
}

/// The outcome of a check: every violation found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The violations, in a deterministic order.
    pub violations: Vec<Violation>,
}

impl Report {
    /// Whether no violation was found.
    pub fn is_legal(&self) -> bool {
        self.violations.is_empty()
    }
}

/// Checks a schedule tree: the order of its flattened schedule and its band annotations.
pub fn check(deps: &[Dependence], tree: &ScheduleTree) -> Result<Report> {
    check_with(deps, tree, &mut Budget::unlimited())
}

/// [`check`] within a budget.
pub fn check_with(deps: &[Dependence], tree: &ScheduleTree, budget: &mut Budget) -> Result<Report> {
    let Node::Domain { .. } = &tree.root else {
        return Err(Error::NoDomainRoot);
    };
    let schedule = tree.to_union_map()?;
    let context = root_context(&tree.root)?;
    let deps = prepared(deps, context.as_ref())?;
    let mut report = Report {
        violations: order_violations(&deps, &schedule, budget)?,
    };
    let mut walker = Walker {
        deps: &deps,
        budget,
        violations: Vec::new(),
    };
    walker.walk(&tree.root, &mut Vec::new(), Active::new())?;
    report.violations.append(&mut walker.violations);
    Ok(report)
}

/// Checks a flat schedule `{ S[i] -> [t1, ..., tn] }`: every dependence must go forward
/// in its lexicographic order. Statements with fewer dimensions are padded with zeros.
pub fn check_map(deps: &[Dependence], schedule: &UnionMap) -> Result<Report> {
    check_map_with(deps, schedule, &mut Budget::unlimited())
}

/// [`check_map`] within a budget.
pub fn check_map_with(
    deps: &[Dependence],
    schedule: &UnionMap,
    budget: &mut Budget,
) -> Result<Report> {
    let deps = prepared(deps, None)?;
    Ok(Report {
        violations: order_violations(&deps, schedule, budget)?,
    })
}

// ----- dependences -----

/// A dependence with its relation restricted to the tree's context and the keys of its
/// tuples.
struct Prepared {
    id: DependenceRef,
    relation: Map,
    source_key: String,
    target_key: String,
}

/// Restricts every dependence to `context` and identifies its tuples.
fn prepared(deps: &[Dependence], context: Option<&Set>) -> Result<Vec<Prepared>> {
    let mut out = Vec::with_capacity(deps.len());
    for (index, d) in deps.iter().enumerate() {
        let space = d.relation.space();
        let (Some(source), Some(target)) = (space.domain_tuple(), space.range_tuple()) else {
            return Err(Error::MalformedDependence { index });
        };
        if !space.is_map() || source.name().is_none() || target.name().is_none() {
            return Err(Error::MalformedDependence { index });
        }
        let relation = match context {
            Some(c) => d.relation.intersect_params(c.as_map())?,
            None => d.relation.clone(),
        };
        out.push(Prepared {
            id: DependenceRef {
                index,
                kind: d.kind,
                array: d.array.clone(),
                source: d.source.clone(),
                target: d.target.clone(),
            },
            source_key: source.key(),
            target_key: target.key(),
            relation,
        });
    }
    Ok(out)
}

/// The parameter constraints of the context nodes that hold for the whole tree (those
/// reached from the root before any branching).
fn root_context(root: &Node) -> Result<Option<Set>> {
    let mut context: Option<Set> = None;
    let mut node = root;
    loop {
        match node {
            Node::Context { context: c, child } => {
                context = Some(match context {
                    Some(old) => old.intersect(c)?,
                    None => c.clone(),
                });
                node = child;
            }
            Node::Domain { child, .. } | Node::Mark { child, .. } => node = child,
            Node::Band(b) => node = &b.child,
            _ => return Ok(context),
        }
    }
}

// ----- the order check -----

/// The order violations of every dependence under the flat schedule.
fn order_violations(
    deps: &[Prepared],
    schedule: &UnionMap,
    budget: &mut Budget,
) -> Result<Vec<Violation>> {
    let by_statement = padded_by_statement(schedule)?;
    let mut out = Vec::new();
    for d in deps {
        let source = by_statement.get(&d.source_key);
        let target = by_statement.get(&d.target_key);
        if let Some(v) = unscheduled(d, source, target, budget)? {
            out.push(v);
        }
        let (Some(source), Some(target)) = (source, target) else {
            continue;
        };
        let depth = source.space().n_out();
        let backwards = pairs_related(source, &lex_ge(depth), target)?;
        let bad = d.relation.intersect(&backwards)?;
        if let Some(example) = example(&bad, source, target, budget)? {
            let dim = first_backward_dim(&example);
            out.push(Violation {
                kind: ViolationKind::Order { dim },
                dependence: d.id.clone(),
                example,
            });
        }
    }
    Ok(out)
}

/// The schedule of every statement keyed by its tuple, with anonymous range tuples
/// padded with zeros to the deepest statement's number of dimensions.
fn padded_by_statement(schedule: &UnionMap) -> Result<BTreeMap<String, Map>> {
    let depth = schedule
        .maps()
        .map(|m| m.space().n_out())
        .max()
        .unwrap_or(0);
    let mut out: BTreeMap<String, Map> = BTreeMap::new();
    for m in schedule.maps() {
        let Some(key) = m.space().domain_tuple().map(Tuple::key) else {
            continue;
        };
        let mut m = anonymous_range(m);
        let pad = depth - m.space().n_out();
        if pad > 0 {
            m = m.flat_range_product(&constant_map(&m, &vec![0; pad])?)?;
        }
        let merged = match out.remove(&key) {
            Some(old) => old.union(&m)?,
            None => m,
        };
        out.insert(key, merged);
    }
    Ok(out)
}

/// A violation for dependent pairs whose source or target the schedule does not cover.
fn unscheduled(
    d: &Prepared,
    source: Option<&Map>,
    target: Option<&Map>,
    budget: &mut Budget,
) -> Result<Option<Violation>> {
    let mut covered = d.relation.clone();
    if let Some(s) = source {
        covered = covered.intersect_domain(&s.domain())?;
    }
    if let Some(t) = target {
        covered = covered.intersect_range(&t.domain())?;
    }
    let missing = match (source, target) {
        (Some(_), Some(_)) => d.relation.subtract_with(&covered, budget)?,
        _ => d.relation.clone(),
    };
    let Some(point) = missing.sample_with(budget)? else {
        return Ok(None);
    };
    let example = example_at(&missing, &point, source, target, budget)?;
    let source_missing = example.source_schedule.is_none();
    let statement = if source_missing {
        example.source.statement.clone()
    } else {
        example.target.statement.clone()
    };
    Ok(Some(Violation {
        kind: ViolationKind::Unscheduled { statement },
        dependence: d.id.clone(),
        example,
    }))
}

/// The first dimension where the target's schedule value is below the source's, `None`
/// when the vectors are equal (or unknown).
fn first_backward_dim(example: &Example) -> Option<usize> {
    let (Some(s), Some(t)) = (&example.source_schedule, &example.target_schedule) else {
        return None;
    };
    s.iter().zip(t).position(|(a, b)| a != b)
}

// ----- relations on schedule values -----

/// The set space of `n` anonymous dimensions with no parameters.
fn value_space(n: usize) -> Space {
    Space::set(Vec::new(), Tuple::anonymous(n))
}

/// `{ [a] -> [b] : a ≽ b }` on `n` dimensions.
fn lex_ge(n: usize) -> Map {
    Map::lex_lt(&value_space(n), false).reverse()
}

/// `{ [a] -> [b] : a > b }` on one dimension.
fn greater() -> Map {
    Map::lex_lt(&value_space(1), true).reverse()
}

/// `{ [a] -> [b] : a ≠ b }` on one dimension.
fn different() -> Result<Map> {
    let less = Map::lex_lt(&value_space(1), true);
    Ok(less.union(&less.reverse())?)
}

/// `{ x -> y : f(x) rel g(y) }` for two functions with anonymous ranges.
fn pairs_related(f: &Map, rel: &Map, g: &Map) -> Result<Map> {
    Ok(f.apply_range(rel)?.apply_range(&g.reverse())?)
}

/// `{ x -> y : f(x) = g(y) }`.
fn pairs_equal(f: &Map, g: &Map) -> Result<Map> {
    Ok(f.apply_range(&g.reverse())?)
}

/// The map with its range tuple replaced by an anonymous one of the same arity.
fn anonymous_range(m: &Map) -> Map {
    let space = m.space();
    let domain = space
        .domain_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(0));
    let anonymous = Space::map(
        space.param_names().to_vec(),
        domain,
        Tuple::anonymous(space.n_out()),
    );
    m.clone().with_space(anonymous)
}

/// `{ S[i] -> [c1, ..., cn] }` over the domain tuple of `m` (a map from a statement).
fn constant_map(m: &Map, values: &[i64]) -> Result<Map> {
    let space = m.space();
    let domain = space
        .domain_tuple()
        .cloned()
        .unwrap_or_else(|| Tuple::anonymous(0));
    let space = Space::map(
        space.param_names().to_vec(),
        domain,
        Tuple::anonymous(values.len()),
    );
    let mut c = Map::universe(space);
    for (k, v) in values.iter().enumerate() {
        c = c.fix_val(DimKind::Out, k, &Int::from(*v))?;
    }
    Ok(c)
}

/// `{ S[i] -> [f_k(i)] }`: member `k` of a band schedule.
fn member(band: &Map, k: usize) -> Result<Map> {
    let n = band.space().n_out();
    let m = band
        .project_out(DimKind::Out, k + 1, n - k - 1)?
        .project_out(DimKind::Out, 0, k)?;
    Ok(anonymous_range(&m))
}

// ----- examples -----

/// A sample pair of `pairs` (a subset of a dependence) with the schedule vectors of
/// `source` and `target` at it; `None` when `pairs` is empty.
fn example(
    pairs: &Map,
    source: &Map,
    target: &Map,
    budget: &mut Budget,
) -> Result<Option<Example>> {
    let Some(point) = pairs.sample_with(budget)? else {
        return Ok(None);
    };
    Ok(Some(example_at(
        pairs,
        &point,
        Some(source),
        Some(target),
        budget,
    )?))
}

/// The example for a point (params, in, out) of `pairs`.
fn example_at(
    pairs: &Map,
    point: &[Int],
    source: Option<&Map>,
    target: Option<&Map>,
    budget: &mut Budget,
) -> Result<Example> {
    let space = pairs.space();
    let (np, n_in) = (space.n_params(), space.n_in());
    let names = space.param_names();
    let params = &point[..np];
    let x = &point[np..np + n_in];
    let y = &point[np + n_in..];
    let name = |t: Option<&Tuple>| t.and_then(Tuple::name).unwrap_or_default().to_string();
    let source_schedule = match source {
        Some(f) => value_at(f, names, params, x, budget)?,
        None => None,
    };
    let target_schedule = match target {
        Some(f) => value_at(f, names, params, y, budget)?,
        None => None,
    };
    Ok(Example {
        params: names.iter().cloned().zip(params.iter().cloned()).collect(),
        source: Instance {
            statement: name(space.domain_tuple()),
            coords: x.to_vec(),
        },
        target: Instance {
            statement: name(space.range_tuple()),
            coords: y.to_vec(),
        },
        source_schedule,
        target_schedule,
    })
}

/// A value of `f` at the instance `x` for the given parameter values (`names` must hold
/// every parameter of `f`).
fn value_at(
    f: &Map,
    names: &[String],
    params: &[Int],
    x: &[Int],
    budget: &mut Budget,
) -> Result<Option<Vec<Int>>> {
    let mut at = f.align_params(names)?;
    for (i, v) in params.iter().enumerate() {
        at = at.fix_val(DimKind::Param, i, v)?;
    }
    for (i, v) in x.iter().enumerate() {
        at = at.fix_val(DimKind::In, i, v)?;
    }
    let skip = names.len() + x.len();
    Ok(at.sample_with(budget)?.map(|p| p[skip..].to_vec()))
}

// ----- the tree walk -----

/// The outer schedule `{ S[i] -> [outer dims] }` of every statement active at a node,
/// keyed by the statement's tuple.
type Active = BTreeMap<String, Map>;

/// Walks a schedule tree, checking band annotations and set nodes.
struct Walker<'a> {
    deps: &'a [Prepared],
    budget: &'a mut Budget,
    violations: Vec<Violation>,
}

impl Walker<'_> {
    /// Checks the subtree at `node` (at position `path`) with the active outer schedules.
    fn walk(&mut self, node: &Node, path: &mut Vec<usize>, active: Active) -> Result<()> {
        match node {
            Node::Leaf => Ok(()),
            Node::Domain { domain, child } => {
                let active = domain_prefixes(domain)?;
                self.descend(child, path, 0, active)
            }
            Node::Context { context, child } => {
                let mut restricted = Active::new();
                for (k, p) in active {
                    restricted.insert(k, p.intersect_params(context.as_map())?);
                }
                self.descend(child, path, 0, restricted)
            }
            Node::Mark { child, .. } => self.descend(child, path, 0, active),
            Node::Filter { filter, child } => {
                let active = filtered(&active, filter)?;
                self.descend(child, path, 0, active)
            }
            Node::Band(band) => {
                let schedules = self.band_schedules(band, path, &active)?;
                self.check_band(band, path, &active, &schedules)?;
                let mut inner = Active::new();
                for (k, p) in &active {
                    inner.insert(k.clone(), p.flat_range_product(&schedules[k])?);
                }
                self.descend(&band.child, path, 0, inner)
            }
            Node::Sequence(children) | Node::Set(children) => {
                if matches!(node, Node::Set(_)) {
                    self.check_set(children, path, &active)?;
                }
                for (position, c) in children.iter().enumerate() {
                    let numbered = numbered(&active, position)?;
                    self.descend(c, path, position, numbered)?;
                }
                Ok(())
            }
            Node::Extension { extension, child } => {
                let active = extended(active, extension, path)?;
                self.descend(child, path, 0, active)
            }
        }
    }

    /// Walks child number `index` of the node at `path`.
    fn descend(
        &mut self,
        child: &Node,
        path: &mut Vec<usize>,
        index: usize,
        active: Active,
    ) -> Result<()> {
        path.push(index);
        let result = self.walk(child, path, active);
        path.pop();
        result
    }

    /// The band's schedule of every active statement, restricted to its active instances,
    /// with an anonymous range.
    fn band_schedules(&self, band: &Band, path: &[usize], active: &Active) -> Result<Active> {
        let mut out = Active::new();
        for (key, prefix) in active {
            let Some(m) = band
                .schedule
                .maps()
                .find(|m| m.space().domain_tuple().map(Tuple::key).as_ref() == Some(key))
            else {
                return Err(Error::BandMissingStatement {
                    band: path.to_vec(),
                    statement: statement_name(prefix),
                });
            };
            if m.space().n_out() != band.n_members() {
                return Err(Error::BandArity {
                    band: path.to_vec(),
                    statement: statement_name(prefix),
                    members: band.n_members(),
                    dims: m.space().n_out(),
                });
            }
            out.insert(
                key.clone(),
                anonymous_range(&m.intersect_domain(&prefix.domain())?),
            );
        }
        Ok(out)
    }

    /// Checks the coincident members and the permutability of a band.
    fn check_band(
        &mut self,
        band: &Band,
        path: &[usize],
        active: &Active,
        schedules: &Active,
    ) -> Result<()> {
        let wants_coincidence = band.coincident.iter().any(|&c| c);
        if !band.permutable && !wants_coincidence {
            return Ok(());
        }
        let depth = active.values().next().map_or(0, |p| p.space().n_out());
        for d in self.deps {
            let (Some(ps), Some(pt)) = (active.get(&d.source_key), active.get(&d.target_key))
            else {
                continue;
            };
            let (bs, bt) = (&schedules[&d.source_key], &schedules[&d.target_key]);
            let outer_equal = intersect(&d.relation, &pairs_equal(ps, pt)?, self.budget)?;
            if outer_equal.is_empty_with(self.budget)? {
                continue;
            }
            let full_s = ps.flat_range_product(bs)?;
            let full_t = pt.flat_range_product(bt)?;
            let mut earlier_equal = outer_equal.clone();
            for k in 0..band.n_members() {
                let (ms, mt) = (member(bs, k)?, member(bt, k)?);
                let site = (path, k, depth + k);
                if band.permutable {
                    let negative = intersect(
                        &outer_equal,
                        &pairs_related(&ms, &greater(), &mt)?,
                        self.budget,
                    )?;
                    if let Some(example) = example(&negative, &full_s, &full_t, self.budget)? {
                        self.violations
                            .push(band_violation(d, site, false, example));
                    }
                }
                if band.coincident[k] {
                    let carried = intersect(
                        &earlier_equal,
                        &pairs_related(&ms, &different()?, &mt)?,
                        self.budget,
                    )?;
                    if let Some(example) = example(&carried, &full_s, &full_t, self.budget)? {
                        self.violations.push(band_violation(d, site, true, example));
                    }
                }
                if k + 1 < band.n_members() && band.coincident[k + 1..].iter().any(|&c| c) {
                    earlier_equal =
                        intersect(&earlier_equal, &pairs_equal(&ms, &mt)?, self.budget)?;
                }
            }
        }
        Ok(())
    }

    /// Checks that no dependence links two different children of a set node among
    /// instances that the outer dimensions do not separate.
    fn check_set(&mut self, children: &[Node], path: &[usize], active: &Active) -> Result<()> {
        let parts: Vec<Active> = children
            .iter()
            .map(|c| match c {
                Node::Filter { filter, .. } => filtered(active, filter),
                _ => Ok(active.clone()),
            })
            .collect::<Result<_>>()?;
        for d in self.deps {
            for (i, from) in parts.iter().enumerate() {
                let Some(ps) = from.get(&d.source_key) else {
                    continue;
                };
                for (j, to) in parts.iter().enumerate() {
                    let Some(pt) = to.get(&d.target_key) else {
                        continue;
                    };
                    if i == j {
                        continue;
                    }
                    let linked = d.relation.intersect(&pairs_equal(ps, pt)?)?;
                    if let Some(example) = example(&linked, ps, pt, self.budget)? {
                        self.violations.push(Violation {
                            kind: ViolationKind::SetOrder {
                                node: path.to_vec(),
                                source_child: i,
                                target_child: j,
                            },
                            dependence: d.id.clone(),
                            example,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// A coincidence (`coincident` true) or permutability violation at `(band path, member,
/// flattened dimension)`.
fn band_violation(
    d: &Prepared,
    (path, member, dim): (&[usize], usize, usize),
    coincident: bool,
    example: Example,
) -> Violation {
    let band = path.to_vec();
    let kind = if coincident {
        ViolationKind::Coincident { band, member, dim }
    } else {
        ViolationKind::Permutable { band, member, dim }
    };
    Violation {
        kind,
        dependence: d.id.clone(),
        example,
    }
}

/// The statement name of an outer schedule's domain tuple.
fn statement_name(prefix: &Map) -> String {
    prefix
        .space()
        .domain_tuple()
        .and_then(Tuple::name)
        .unwrap_or_default()
        .to_string()
}

/// `{ S[i] -> [] }` on every set of the domain.
fn domain_prefixes(domain: &UnionSet) -> Result<Active> {
    let mut out = Active::new();
    for set in domain.sets() {
        let Some(tuple) = set.space().range_tuple().cloned() else {
            continue;
        };
        let space = Space::map(
            set.space().param_names().to_vec(),
            tuple.clone(),
            Tuple::anonymous(0),
        );
        let prefix = Map::universe(space).intersect_domain(set.as_map())?;
        out.insert(tuple.key(), prefix);
    }
    Ok(out)
}

/// The outer schedules restricted to the instances of a filter; statements the filter
/// does not mention are dropped.
fn filtered(active: &Active, filter: &UnionSet) -> Result<Active> {
    let mut out = Active::new();
    for set in filter.sets() {
        let Some(key) = set.space().range_tuple().map(Tuple::key) else {
            continue;
        };
        if let Some(p) = active.get(&key) {
            let restricted = p.intersect_domain(set.as_map())?;
            if !restricted.is_obviously_empty() {
                out.insert(key, restricted);
            }
        }
    }
    Ok(out)
}

/// The outer schedules extended by the position of a sequence (or set) child.
fn numbered(active: &Active, position: usize) -> Result<Active> {
    let position = i64::try_from(position).unwrap_or(i64::MAX);
    let mut out = Active::new();
    for (k, p) in active {
        out.insert(
            k.clone(),
            p.flat_range_product(&constant_map(p, &[position])?)?,
        );
    }
    Ok(out)
}

/// The outer schedules with the instances an extension node adds.
fn extended(mut active: Active, extension: &UnionMap, path: &[usize]) -> Result<Active> {
    let depth = active.values().next().map(|p| p.space().n_out());
    for m in extension.maps() {
        if depth.is_some_and(|d| d != m.space().n_in()) {
            return Err(Error::ExtensionArity {
                node: path.to_vec(),
            });
        }
        let added = anonymous_range(&m.reverse());
        let Some(key) = added.space().domain_tuple().map(Tuple::key) else {
            continue;
        };
        let merged = match active.remove(&key) {
            Some(old) => old.union(&added)?,
            None => added,
        };
        active.insert(key, merged);
    }
    Ok(active)
}

// ----- printing -----

/// A tree position printed as `/0/1/2` (the root is `/`).
struct TreePath<'a>(&'a [usize]);

impl fmt::Display for TreePath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return write!(f, "/");
        }
        for i in self.0 {
            write!(f, "/{i}")?;
        }
        Ok(())
    }
}

/// A vector printed as `[1, 2, 3]`.
struct Vector<'a>(&'a [Int]);

impl fmt::Display for Vector<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[")?;
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{v}")?;
        }
        write!(f, "]")
    }
}

impl fmt::Display for DependenceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            DepKind::Flow => "flow",
            DepKind::Anti => "anti",
            DepKind::Output => "output",
        };
        write!(
            f,
            "{kind} dependence #{} {} -> {} on {}",
            self.index, self.source, self.target, self.array
        )
    }
}

impl fmt::Display for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.statement, Vector(&self.coords))
    }
}

impl fmt::Display for Example {
    /// `S[1] (schedule [1, 0]) -> T[0] (schedule [0, 1]) for N = 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.source)?;
        match &self.source_schedule {
            Some(s) => write!(f, " (schedule {})", Vector(s))?,
            None => write!(f, " (not scheduled)")?,
        }
        write!(f, " -> {}", self.target)?;
        match &self.target_schedule {
            Some(s) => write!(f, " (schedule {})", Vector(s))?,
            None => write!(f, " (not scheduled)")?,
        }
        for (i, (name, value)) in self.params.iter().enumerate() {
            let sep = if i == 0 { " for " } else { ", " };
            write!(f, "{sep}{name} = {value}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.dependence;
        match &self.kind {
            ViolationKind::Order { dim: Some(dim) } => write!(
                f,
                "{d} is violated: the target runs first (schedule dimension {dim})"
            )?,
            ViolationKind::Order { dim: None } => write!(
                f,
                "{d} is violated: source and target get the same schedule vector"
            )?,
            ViolationKind::Unscheduled { statement } => write!(
                f,
                "{d} involves instances of {statement} that the schedule does not cover"
            )?,
            ViolationKind::Coincident { band, member, dim } => write!(
                f,
                "member {member} of the band at {} (schedule dimension {dim}) is marked coincident but carries {d}",
                TreePath(band)
            )?,
            ViolationKind::Permutable { band, member, dim } => write!(
                f,
                "the band at {} is marked permutable but {d} has a negative distance on member {member} (schedule dimension {dim})",
                TreePath(band)
            )?,
            ViolationKind::SetOrder {
                node,
                source_child,
                target_child,
            } => write!(
                f,
                "children {source_child} and {target_child} of the set node at {} are unordered but linked by {d}",
                TreePath(node)
            )?,
        }
        write!(f, ", e.g. {}", self.example)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.violations.is_empty() {
            return writeln!(f, "legal");
        }
        writeln!(f, "{} violation(s):", self.violations.len())?;
        for v in &self.violations {
            writeln!(f, "- {v}")?;
        }
        Ok(())
    }
}

/// `a ∩ b` with the pairs of pieces charged to the budget before they are built and the
/// empty pieces dropped: pieces multiply with every schedule member intersected, and
/// most products of piecewise schedules are empty.
fn intersect(a: &Map, b: &Map, budget: &mut Budget) -> Result<Map> {
    let pairs = (a.basic_maps().len() as u64).saturating_mul(b.basic_maps().len() as u64);
    budget.tick(pairs)?;
    Ok(a.intersect(b)?.remove_empty_parts(budget)?)
}
