//! Array expansion: an array that every iteration of a nest's outer loop fills before it
//! reads it, and that alone orders those iterations, gets one more dimension indexed by
//! the loop's iterator; after the loop, the last iteration's elements are copied back.
//!
//! In
//! ```c
//! for (r = 0; r < R; r++)
//!   for (q = 0; q < Q; q++) {
//!     for (p = 0; p < P; p++) {
//!       sum[p] = 0;
//!       for (s = 0; s < P; s++) sum[p] += A[r][q][s] * C4[s][p];
//!     }
//!     for (p = 0; p < P; p++) A[r][q][p] = sum[p];
//!   }
//! ```
//! `sum` carries no value from one `r` to the next, but its anti and output dependences
//! order every iteration of `r` after the previous one. Written as `sum_x[r][p]`, the `r`
//! loop is parallel; `sum[p] = sum_x[R - 1][p]` after the nest leaves `sum` as it was.
//!
//! # When an array is expanded
//! A nest is an item of the region's outermost sequence that is a loop, increasing, whose
//! iterator is the first iterator of every statement in it. Its loop is made parallel
//! when the dependences between its statements that join different iterations of the
//! loop all go through arrays that can be expanded; then all of those are. An array `a`
//! can be expanded when
//! - it has extents and a declarable element type, and only the nest's statements
//!   access it, each reading it at most once;
//! - every access reaches the same elements in every iteration of the loop (the
//!   subscripts do not involve its iterator), and the elements written are the same set
//!   in every iteration that writes;
//! - every flow dependence through `a` joins instances of one iteration, and every read
//!   of `a` reads a value written in the region (value-based, exactly);
//! - the loop's iterator is at least `0` and at most one of `p`, `p - 1`, `p - 2` for a
//!   parameter `p` (the new dimension's extent), reached by an iteration that writes.
//!
//! # Why the values are kept
//! Each read had as its source the last write of the element before it, in the same
//! iteration `i`; after the rewrite that write is also the last write of the element of
//! `a_x[i]` before the read (other iterations write other rows). The region's final
//! value of an element written in the region is the one written by the last iteration
//! (all iterations that write, write every written element), which is row `last` of
//! `a_x`: the copy-out restores it. Elements the region never writes are not touched.

use std::collections::{BTreeMap, BTreeSet};

use pollen_deps::{DepKind, Dependence};
use pollen_presburger::text::{parse_map, parse_set};
use pollen_presburger::{Budget, DimKind, Int, Map, Set, Space, Tuple, UnionMap, UnionSet};
use pollen_scop::{AccessKind, Array, Band, Node, Scop, Statement};

use super::{
    covered_by, declarable, fresh, indexed_by_first, upper_bound, value_deps, words, Expansion,
};
use crate::error::{Error, Result};

/// The scop with the arrays of its nests that can be expanded (see the module
/// documentation) rewritten, and a statement after each such nest that copies the
/// expanded arrays' last rows back (none for arrays in `dead`, whose values are not
/// needed after the region).
///
/// The expansion is an optimization: when its analysis runs out of steps, nothing is
/// expanded (the stages after it meet their own limits).
pub fn expand_arrays(
    scop: &Scop,
    dead: &BTreeSet<String>,
    budget: &mut Budget,
) -> Result<(Scop, Vec<Expansion>)> {
    match expand(scop, dead, budget) {
        Err(Error::LimitExceeded) => Ok((scop.clone(), Vec::new())),
        other => other,
    }
}

fn expand(
    scop: &Scop,
    dead: &BTreeSet<String>,
    budget: &mut Budget,
) -> Result<(Scop, Vec<Expansion>)> {
    let nests = nests(scop, budget)?;
    let mut plans: Vec<(Nest, Vec<&Array>)> = Vec::new();
    for nest in nests {
        let mut candidates = Vec::new();
        for array in &scop.arrays {
            if candidate(scop, array, &nest.statements, budget)? {
                candidates.push(array);
            }
        }
        if !candidates.is_empty() {
            plans.push((nest, candidates));
        }
    }
    if plans.is_empty() {
        return Ok((scop.clone(), Vec::new()));
    }
    let Some(deps) = value_deps(scop, budget)? else {
        return Ok((scop.clone(), Vec::new()));
    };
    let mut taken = words(scop);
    taken.extend(scop.statements.iter().map(|s| s.name.clone()));
    let mut out = scop.clone();
    let mut expansions = Vec::new();
    let mut copies: BTreeMap<usize, Vec<Statement>> = BTreeMap::new();
    'nests: for (nest, candidates) in &plans {
        let inside: Vec<&Dependence> = deps
            .iter()
            .filter(|d| nest.contains(&d.source) && nest.contains(&d.target))
            .collect();
        let mut crossing: BTreeSet<&str> = BTreeSet::new();
        for d in &inside {
            let same = d.relation.equate(DimKind::In, 0, DimKind::Out, 0)?;
            if !d.relation.is_subset_with(&same, budget)? {
                crossing.insert(d.array.as_str());
            }
        }
        if crossing.is_empty() {
            continue;
        }
        let mut chosen = Vec::new();
        for name in crossing {
            let Some(array) = candidates.iter().find(|a| a.name == name) else {
                continue 'nests;
            };
            let flows: Vec<&Dependence> = inside
                .iter()
                .copied()
                .filter(|d| d.kind == DepKind::Flow && d.array == name)
                .collect();
            match expandable(scop, array, &nest.statements, &flows, budget) {
                Ok(Some(last)) => chosen.push((*array, last)),
                Ok(None) => continue 'nests,
                Err(e) => return Err(e),
            }
        }
        for (array, last) in chosen {
            let expanded = fresh(&format!("{}_x", array.name), &mut taken);
            let users = rewrite(&mut out, &array.name, &expanded)?;
            let mut extents = vec![last.extent.clone()];
            extents.extend(array.extents.iter().cloned());
            out.arrays.push(Array {
                name: expanded.clone(),
                element_type: array.element_type.clone(),
                extents,
                local: true,
            });
            let copy_out = if dead.contains(&array.name) {
                None
            } else {
                let copy = copy_statement(scop, array, &expanded, &last, &mut taken)?;
                let name = copy.name.clone();
                copies.entry(nest.position).or_default().push(copy);
                Some(name)
            };
            expansions.push(Expansion {
                variable: array.name.clone(),
                array: expanded,
                extent: last.extent,
                statements: users,
                copy_out,
            });
        }
    }
    if !copies.is_empty() {
        add_copies(&mut out, copies)?;
        out.validate()
            .map_err(|e| Error::Dependences(format!("array expansion: {e}")))?;
    }
    Ok((out, expansions))
}

/// A loop of the region's outermost sequence (or the region's only loop).
struct Nest {
    /// The loop's position among the outermost items (`0` when there is one).
    position: usize,
    /// The statements inside the loop.
    statements: BTreeSet<String>,
}

impl Nest {
    fn contains(&self, statement: &str) -> bool {
        self.statements.contains(statement)
    }
}

/// The region's outermost loops whose iterator is every inner statement's first one,
/// increasing.
fn nests(scop: &Scop, budget: &mut Budget) -> Result<Vec<Nest>> {
    let mut node = &scop.schedule.root;
    while let Node::Domain { child, .. } | Node::Context { child, .. } = node {
        node = child;
    }
    let items: Vec<(usize, &Node)> = match node {
        Node::Sequence(children) => children
            .iter()
            .enumerate()
            .map(|(k, c)| match c {
                Node::Filter { child, .. } => (k, &**child),
                other => (k, other),
            })
            .collect(),
        other => vec![(0, other)],
    };
    let mut out = Vec::new();
    for (position, item) in items {
        let Node::Band(band) = item else { continue };
        if band.n_members() != 1 {
            continue;
        }
        let mut statements = BTreeSet::new();
        let mut first_iterator = true;
        for member in band.schedule.maps() {
            let Some(s) = member.space().domain_tuple().and_then(|t| t.name()) else {
                first_iterator = false;
                break;
            };
            let Some(statement) = scop.statement(s) else {
                first_iterator = false;
                break;
            };
            let first = first_dimension(scop, statement)?;
            // The band's maps need not carry the domain's constraints.
            let member = member
                .align_params(&scop.params)?
                .intersect_domain(&statement.domain.as_map().align_params(&scop.params)?)?;
            if !member.is_subset_with(&first, budget)? || !first.is_subset_with(&member, budget)? {
                first_iterator = false;
                break;
            }
            statements.insert(statement.name.clone());
        }
        if first_iterator && !statements.is_empty() {
            out.push(Nest {
                position,
                statements,
            });
        }
    }
    Ok(out)
}

/// `{ S[i0, ...] -> [i0] }` on the statement's domain.
fn first_dimension(scop: &Scop, s: &Statement) -> Result<Map> {
    first_dimension_with(&scop.params, s)
}

/// Whether `array` passes the checks that need no dependences: extents, a declarable
/// type, written in the nest, accessed only there, read at most once per statement, and
/// accessed at the same elements in every iteration of the nest's loop.
fn candidate(
    scop: &Scop,
    array: &Array,
    nest: &BTreeSet<String>,
    budget: &mut Budget,
) -> Result<bool> {
    if array.extents.is_empty() || array.extents.iter().any(|e| e.is_empty()) {
        return Ok(false);
    }
    if !declarable(array) {
        return Ok(false);
    }
    let mut written = false;
    for s in &scop.statements {
        let accesses: Vec<_> = s
            .accesses
            .iter()
            .filter(|a| a.array == array.name)
            .collect();
        if accesses.is_empty() {
            continue;
        }
        if !nest.contains(&s.name) {
            return Ok(false);
        }
        let reads = accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Read)
            .count();
        if reads > 1 {
            return Ok(false);
        }
        written |= accesses.iter().any(|a| a.kind == AccessKind::Write);
        let across = across_first(scop, s)?;
        for access in accesses {
            // Instances that differ in the first iterator only reach the same elements.
            let same = access.relation.apply_range(&access.relation.reverse())?;
            if !across.is_subset_with(&same, budget)? {
                return Ok(false);
            }
        }
    }
    Ok(written)
}

/// `{ S[i0, rest] -> S[j0, rest] }` on the statement's domain.
fn across_first(scop: &Scop, s: &Statement) -> Result<Map> {
    let n = s.iterators.len();
    let from: Vec<String> = (0..n).map(|d| format!("i{d}")).collect();
    let mut to = vec!["j0".to_string()];
    to.extend(from.iter().skip(1).cloned());
    let map = parse_map(&format!(
        "[{}] -> {{ {name}[{}] -> {name}[{}] }}",
        scop.params.join(", "),
        from.join(", "),
        to.join(", "),
        name = s.name
    ))?
    .align_params(&scop.params)?;
    let domain = s.domain.as_map().align_params(&scop.params)?;
    Ok(map.intersect_domain(&domain)?.intersect_range(&domain)?)
}

/// The last iteration of the nest's loop (it writes every element written), when `array`
/// can be expanded given the flow dependences through it inside the nest.
fn expandable(
    scop: &Scop,
    array: &Array,
    nest: &BTreeSet<String>,
    flows: &[&Dependence],
    budget: &mut Budget,
) -> Result<Option<super::Bound>> {
    // Flow dependences stay within one iteration.
    for d in flows {
        let same = d.relation.equate(DimKind::In, 0, DimKind::Out, 0)?;
        if !d.relation.is_subset_with(&same, budget)? {
            return Ok(None);
        }
    }
    let users: Vec<&Statement> = scop
        .statements
        .iter()
        .filter(|s| nest.contains(&s.name) && s.accesses.iter().any(|a| a.array == array.name))
        .collect();
    // Every read has its source in the region (one read per statement, so the flows
    // into a statement are the flows into that read).
    for s in &users {
        if !s
            .accesses
            .iter()
            .any(|a| a.array == array.name && a.kind == AccessKind::Read)
        {
            continue;
        }
        let into = flows
            .iter()
            .filter(|d| d.target == s.name)
            .map(|d| &d.relation);
        if !covered_by(&s.domain, into, budget)? {
            return Ok(None);
        }
    }
    // The elements written, by iteration: `{ [i0] -> a[e] }`.
    let mut writes: Option<Map> = None;
    for s in &users {
        let first = first_dimension(scop, s)?;
        for access in s
            .accesses
            .iter()
            .filter(|a| a.array == array.name && a.kind == AccessKind::Write)
        {
            let by_iteration = first.reverse().apply_range(&access.relation)?;
            writes = Some(match writes {
                None => by_iteration,
                Some(w) => w.union(&by_iteration)?,
            });
        }
    }
    let Some(writes) = writes else {
        return Ok(None);
    };
    let iterations = writes.domain();
    let elements = writes.range();
    let every = Map::from_domain_and_range(&iterations, &elements)?;
    if !every.is_subset_with(&writes, budget)? {
        return Ok(None);
    }
    let iterations = Set::from_map(iterations)?;
    let Some(last) = upper_bound(&iterations, &scop.params, budget)? else {
        return Ok(None);
    };
    // Whenever some iteration writes, the last one does.
    let at_last = in_space(&iterations, &scop.params, &format!("x0 = {}", last.last))?;
    let writing = iterations.params();
    let last_writes = iterations.intersect(&at_last)?.params();
    if !writing.is_subset_with(&last_writes, budget)? {
        return Ok(None);
    }
    // Every access lies in rows `0 ..= last`.
    for s in &users {
        let below = s.domain.upper_bound_val(DimKind::Out, 0, &Int::from(-1))?;
        if !below.is_empty_with(budget)? {
            return Ok(None);
        }
        let domain = Set::from_map(s.domain.as_map().align_params(&scop.params)?)?;
        let after = in_space(&domain, &scop.params, &format!("x0 > {}", last.last))?;
        if !domain.intersect(&after)?.is_empty_with(budget)? {
            return Ok(None);
        }
    }
    Ok(Some(last))
}

/// `{ [x0, ...] : constraint }` in the space of `set` (parameters aligned).
fn in_space(set: &Set, params: &[String], constraint: &str) -> Result<Set> {
    let set = Set::from_map(set.as_map().align_params(params)?)?;
    let names: Vec<String> = (0..set.n_dims()).map(|d| format!("x{d}")).collect();
    let parsed = parse_set(&format!(
        "[{}] -> {{ [{}] : {constraint} }}",
        params.join(", "),
        names.join(", ")
    ))?;
    Ok(Set::from_map(
        parsed.into_map().with_space(set.as_map().space().clone()),
    )?)
}

/// Every statement's `array` replaced by `expanded[i]` (`i` its first iterator) in its
/// text and accesses; the statements changed.
fn rewrite(scop: &mut Scop, array: &str, expanded: &str) -> Result<Vec<String>> {
    let mut users = Vec::new();
    let params = scop.params.clone();
    for s in scop.statements.iter_mut() {
        if !s.accesses.iter().any(|a| a.array == array) {
            continue;
        }
        users.push(s.name.clone());
        s.body = indexed_by_first(&s.body, array, expanded, &s.iterators[0]);
        // Without the domain's constraints: the access keeps the form it had.
        let first = first_iterator(&params, s)?;
        for access in s.accesses.iter_mut().filter(|a| a.array == array) {
            let relation = first.flat_range_product(&access.relation)?;
            let space = relation.space().clone();
            let domain = space.domain_tuple().cloned().ok_or_else(|| {
                Error::Dependences(format!("array expansion: access of {array} is not a map"))
            })?;
            let range = Tuple::with_names(Some(expanded.to_string()), vec![None; space.n_out()]);
            access.relation =
                relation.with_space(Space::map(space.param_names().to_vec(), domain, range));
            access.array = expanded.to_string();
        }
    }
    Ok(users)
}

/// `{ S[i0, ...] -> [i0] }` on the statement's domain (empty for a statement outside
/// every loop).
fn first_dimension_with(params: &[String], s: &Statement) -> Result<Map> {
    if s.iterators.is_empty() {
        return Ok(Map::empty(Space::map(
            params.to_vec(),
            Tuple::new(Some(&s.name), &[]),
            Tuple::anonymous(1),
        )));
    }
    Ok(first_iterator(params, s)?.intersect_domain(&s.domain.as_map().align_params(params)?)?)
}

/// `{ S[i0, ...] -> [i0] }` over every point of the statement's space.
fn first_iterator(params: &[String], s: &Statement) -> Result<Map> {
    let dims: Vec<String> = (0..s.iterators.len()).map(|d| format!("i{d}")).collect();
    Ok(parse_map(&format!(
        "[{}] -> {{ {}[{}] -> [i0] }}",
        params.join(", "),
        s.name,
        dims.join(", ")
    ))?
    .align_params(params)?)
}

/// `a[e] = a_x[last][e]` over the elements the region writes.
fn copy_statement(
    scop: &Scop,
    array: &Array,
    expanded: &str,
    last: &super::Bound,
    taken: &mut BTreeSet<String>,
) -> Result<Statement> {
    let mut k = scop.statements.len();
    while taken.contains(&format!("S{k}")) {
        k += 1;
    }
    let name = format!("S{k}");
    taken.insert(name.clone());
    let mut written: Option<Map> = None;
    for s in &scop.statements {
        for access in s
            .accesses
            .iter()
            .filter(|a| a.array == array.name && a.kind == AccessKind::Write)
        {
            let relation = access
                .relation
                .align_params(&scop.params)?
                .intersect_domain(&s.domain.as_map().align_params(&scop.params)?)?;
            let range = relation.range();
            written = Some(match written {
                None => range,
                Some(w) => w.union(&range)?,
            });
        }
    }
    let written = written.ok_or_else(|| {
        Error::Dependences(format!("array expansion: {} is not written", array.name))
    })?;
    let n = written.space().n_out();
    let iterators: Vec<String> = (0..n)
        .map(|d| fresh(&format!("{}_c{d}", array.name), taken))
        .collect();
    let domain = Set::from_map(written.with_space(Space::set(
        scop.params.clone(),
        Tuple::new(
            Some(&name),
            &iterators.iter().map(String::as_str).collect::<Vec<_>>(),
        ),
    )))?;
    let subscripts: String = iterators.iter().map(|i| format!("[{i}]")).collect();
    let body = format!(
        "{}{subscripts} = {expanded}[{}]{subscripts};",
        array.name, last.last
    );
    let params = scop.params.join(", ");
    let dims: Vec<String> = (0..n).map(|d| format!("e{d}")).collect();
    let dims = dims.join(", ");
    let comma = if n == 0 { "" } else { ", " };
    let read = parse_map(&format!(
        "[{params}] -> {{ {name}[{dims}] -> {expanded}[{}{comma}{dims}] }}",
        last.last
    ))?
    .align_params(&scop.params)?
    .intersect_domain(domain.as_map())?;
    let write = parse_map(&format!(
        "[{params}] -> {{ {name}[{dims}] -> {}[{dims}] }}",
        array.name
    ))?
    .align_params(&scop.params)?
    .intersect_domain(domain.as_map())?;
    Ok(Statement {
        name,
        domain,
        iterators,
        accesses: vec![
            pollen_scop::Access {
                kind: AccessKind::Read,
                array: expanded.to_string(),
                relation: read,
            },
            pollen_scop::Access {
                kind: AccessKind::Write,
                array: array.name.clone(),
                relation: write,
            },
        ],
        body,
    })
}

/// The copy statements added to the scop and to its schedule, each right after its nest.
fn add_copies(scop: &mut Scop, copies: BTreeMap<usize, Vec<Statement>>) -> Result<()> {
    let params = scop.params.clone();
    let mut root = std::mem::replace(&mut scop.schedule.root, Node::Leaf);
    let mut holder = &mut root;
    let mut all_copies = UnionSet::empty(params.clone());
    for copy in copies.values().flatten() {
        all_copies.add_set(copy.domain.clone())?;
    }
    loop {
        match holder {
            Node::Domain { domain, child } => {
                *domain = domain.union(&all_copies)?;
                holder = child;
            }
            Node::Context { child, .. } => holder = child,
            _ => break,
        }
    }
    let item = std::mem::replace(holder, Node::Leaf);
    let mut children = match item {
        Node::Sequence(children) => children,
        other => {
            let mut filter = UnionSet::empty(params.clone());
            for s in &scop.statements {
                filter.add_set(s.domain.clone())?;
            }
            vec![Node::filter(filter, other)]
        }
    };
    for (position, statements) in copies.iter().rev() {
        for copy in statements.iter().rev() {
            let node = Node::filter(
                UnionSet::from_set(copy.domain.clone()),
                loops(&params, copy)?,
            );
            children.insert(position + 1, node);
        }
    }
    *holder = Node::Sequence(children);
    scop.schedule.root = root;
    for copies in copies.into_values() {
        scop.statements.extend(copies);
    }
    Ok(())
}

/// One band per dimension of the statement, outermost first, as the front end builds them.
fn loops(params: &[String], s: &Statement) -> Result<Node> {
    let mut node = Node::Leaf;
    let dims: Vec<String> = (0..s.iterators.len()).map(|d| format!("e{d}")).collect();
    for d in (0..dims.len()).rev() {
        let member = parse_map(&format!(
            "[{}] -> {{ {}[{}] -> [{}] }}",
            params.join(", "),
            s.name,
            dims.join(", "),
            dims[d]
        ))?
        .align_params(params)?
        .intersect_domain(s.domain.as_map())?;
        node = Node::Band(Band {
            schedule: UnionMap::from_map(member),
            permutable: false,
            coincident: vec![false],
            child: Box::new(node),
        });
    }
    Ok(node)
}
