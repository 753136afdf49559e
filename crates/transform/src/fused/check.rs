//! The independent check of a fused program: it computes what the original computes.
//!
//! [`check`] reasons on the fused program as a new program, with the library, and uses
//! nothing of its construction but the declared [`Origin`] of each statement and the
//! statements of each group. Its parts:
//!
//! 1. **Inside a tile.** For each group, the tile coordinates become parameters: the
//!    group's statements with their first iterators fixed to them form a small program
//!    (the subtree below the tile band, the scratch arrays without their tile indices).
//!    Its value-based dataflow, every source mapped to the original statement it copies,
//!    must equal the original's dataflow restricted to the tile's instances, for every
//!    read whose original source belongs to the group; every read of a scratch array
//!    must have a source in the tile; every write-back must store the value of the
//!    original's last writer of its element. This holds for all tiles at once, the tile
//!    coordinates being symbolic.
//! 2. **Across tiles.** No element of a global array is written by two tiles of a
//!    group, nor read by a tile and written by another: the tiles run in any order, in
//!    parallel.
//! 3. **Coverage.** The copies of each output statement run each original instance
//!    exactly once.
//! 4. **Between units** (the filters of the top-level sequence: groups, and stages kept
//!    as they were): no dependence of the original (flow, anti and output) runs
//!    backwards, so that several units writing an element leave the original's last
//!    value; a flow dependence into a unit whose every copy of the target reads the
//!    array from its tile's window is the unit's own (part 1 checks it), as with a
//!    stage that several groups recompute. Every live-out array is written exactly
//!    where the original writes it.
//!
//! With the statements' texts unchanged up to the relocation of array references into
//! their windows (whose offsets keep every index inside its window, by construction of
//! the windows), these facts mean every value the fused program computes or leaves in
//! memory is the original's.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use pollen_arith::Int;
use pollen_deps::{analyze_with, Analysis, DepKind, Dependence};
use pollen_presburger::{BasicMap, Budget, DimKind, Map, Set, Space, Tuple, UnionMap, UnionSet};
use pollen_scop::{Access, AccessKind, Array, Band, Node, ScheduleTree, Scop, Statement};

use super::Fused;
use crate::error::{Error, Result};

/// What a statement of a fused program computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// It is the original statement of the same name (possibly on fewer instances).
    Same,
    /// A copy of `statement` whose first `tile_dims` iterators are tile coordinates.
    Copy {
        /// The original statement.
        statement: String,
        /// The number of tile coordinates before the original iterators.
        tile_dims: usize,
    },
    /// It copies the window `scratch` of a tile back into `array`; its first
    /// `tile_dims` iterators are tile coordinates, the others the element's indices.
    WriteBack {
        /// The original array.
        array: String,
        /// The scratch array read.
        scratch: String,
        /// The number of tile coordinates.
        tile_dims: usize,
    },
}

/// The outcome of [`check`]: the differences found, each in words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The differences.
    pub differences: Vec<String>,
}

impl Outcome {
    /// Whether the programs compute the same values.
    pub fn is_equivalent(&self) -> bool {
        self.differences.is_empty()
    }

    /// `Ok` when equivalent, otherwise [`Error::NotEquivalent`].
    pub fn into_result(self) -> Result<()> {
        if self.is_equivalent() {
            Ok(())
        } else {
            Err(Error::NotEquivalent(self.to_string()))
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.differences.join("; "))
    }
}

/// Checks that `fused` computes what `original` computes (see the module
/// documentation). `live_out` names the arrays used after the region (`None`: all).
pub fn check(
    original: &Scop,
    deps: &[Dependence],
    fused: &Fused,
    live_out: Option<&BTreeSet<String>>,
    budget: &mut Budget,
) -> Result<Outcome> {
    let mut outcome = Outcome::default();
    let mut taken: BTreeSet<String> = original.statements.iter().map(|s| s.name.clone()).collect();
    taken.extend(fused.scop.statements.iter().map(|s| s.name.clone()));
    taken.extend(original.params.iter().cloned());
    // The original's last writers of the written-back arrays, read by sinks.
    let backed: BTreeSet<&str> = fused
        .origins
        .values()
        .filter_map(|o| match o {
            Origin::WriteBack { array, .. } => Some(array.as_str()),
            _ => None,
        })
        .collect();
    let sinks = sinks(original, &backed, &taken, budget)?;
    let mut flows: Vec<Dependence> = deps
        .iter()
        .filter(|d| d.kind == DepKind::Flow)
        .cloned()
        .collect();
    if !sinks.is_empty() {
        let with_ends = with_sinks(original, &sinks)?;
        let ends = analyze_with(&with_ends, Analysis::ValueBased, budget).map_err(deps_error)?;
        flows.extend(
            ends.as_slice()
                .iter()
                .filter(|d| d.kind == DepKind::Flow && sinks.iter().any(|e| e.name == d.target))
                .cloned(),
        );
    }
    let units = units(&fused.tree);

    for group in &fused.groups {
        in_tile(
            original,
            fused,
            &group.statements,
            &flows,
            &sinks,
            &taken,
            budget,
            &mut outcome,
        )?;
        across_tiles(fused, &group.statements, budget, &mut outcome)?;
    }
    coverage(original, fused, budget, &mut outcome)?;
    between_units(
        original,
        fused,
        &units,
        deps,
        live_out,
        budget,
        &mut outcome,
    )?;
    Ok(outcome)
}

/// The statements of each filter of the top-level sequence, in order.
fn units(tree: &ScheduleTree) -> Vec<BTreeSet<String>> {
    let Node::Domain { child, .. } = &tree.root else {
        return Vec::new();
    };
    match &**child {
        Node::Sequence(children) => children
            .iter()
            .map(|c| match c {
                Node::Filter { filter, .. } => filter.sets().filter_map(|s| name_of(&s)).collect(),
                _ => BTreeSet::new(),
            })
            .collect(),
        Node::Filter { filter, .. } => vec![filter.sets().filter_map(|s| name_of(&s)).collect()],
        _ => Vec::new(),
    }
}

fn name_of(s: &Set) -> Option<String> {
    s.space()
        .range_tuple()
        .and_then(|t| t.name())
        .map(str::to_string)
}

fn domain_name(m: &Map) -> Option<&str> {
    m.space().domain_tuple().and_then(|t| t.name())
}

/// The number of tile coordinates of a statement of the fused program.
fn tile_dims(fused: &Fused, name: &str) -> usize {
    match fused.origins.get(name) {
        Some(Origin::Copy { tile_dims, .. }) | Some(Origin::WriteBack { tile_dims, .. }) => {
            *tile_dims
        }
        _ => 0,
    }
}

/// The original statement a statement of the fused program computes instances of.
fn original_of(fused: &Fused, name: &str) -> Option<String> {
    match fused.origins.get(name) {
        Some(Origin::Copy { statement, .. }) => Some(statement.clone()),
        Some(Origin::Same) | None => Some(name.to_string()),
        Some(Origin::WriteBack { .. }) => None,
    }
}

/// `{ new[o, i] -> S[i] }` on the new statement's domain (`o`: its tile coordinates).
fn to_original(fused: &Fused, original: &Scop, name: &str) -> Result<Option<Map>> {
    let Some(s) = fused.scop.statement(name) else {
        return Ok(None);
    };
    let Some(o) = original_of(fused, name).and_then(|n| original.statement(&n)) else {
        return Ok(None);
    };
    let k = tile_dims(fused, name);
    let projected = s.domain.identity()?.project_out(DimKind::Out, 0, k)?;
    Ok(Some(rename_range(
        &projected,
        o.domain.space().range_tuple(),
    )))
}

fn rename_range(m: &Map, tuple: Option<&Tuple>) -> Map {
    let n = m.space().n_out();
    let space = Space::map(
        m.space().param_names().to_vec(),
        m.space()
            .domain_tuple()
            .cloned()
            .unwrap_or_else(|| Tuple::anonymous(m.space().n_in())),
        tuple.cloned().unwrap_or_else(|| Tuple::anonymous(n)),
    );
    m.clone().with_space(space)
}

/// Part 1: the dataflow inside one tile of a group.
#[allow(clippy::too_many_arguments)]
fn in_tile(
    original: &Scop,
    fused: &Fused,
    statements: &[String],
    flows: &[Dependence],
    sinks: &[Statement],
    taken: &BTreeSet<String>,
    budget: &mut Budget,
    outcome: &mut Outcome,
) -> Result<()> {
    let Some(k) = statements.iter().map(|s| tile_dims(fused, s)).max() else {
        return Ok(());
    };
    let mut tile_params = Vec::with_capacity(k);
    for j in 0..k {
        let mut name = format!("tile{j}");
        while taken.contains(&name) {
            name.insert(0, '_');
        }
        tile_params.push(name);
    }
    let mut params = original.params.clone();
    params.extend(tile_params.iter().cloned());
    let Some(program) = tile_program(fused, statements, &params, k, budget)? else {
        outcome.differences.push(format!(
            "the group of {} is not under one tile band",
            statements.join(", ")
        ));
        return Ok(());
    };
    let inside = match single_assignment_flows(&program, budget)? {
        Some(flows) => flows,
        None => analyze_with(&program, Analysis::ValueBased, budget)
            .map_err(deps_error)?
            .as_slice()
            .to_vec(),
    };
    let group_originals: BTreeSet<String> = statements
        .iter()
        .filter_map(|s| original_of(fused, s))
        .collect();
    let scratch_of: BTreeMap<&str, &str> = fused
        .scratch
        .iter()
        .map(|s| (s.name.as_str(), s.array.as_str()))
        .collect();
    // { tile statement -> its original } maps, over the extended parameters.
    let mut origin_maps: BTreeMap<String, (String, Map)> = BTreeMap::new();
    for s in &program.statements {
        if let Some(o) = original_of(fused, &s.name).and_then(|n| original.statement(&n)) {
            let m = rename_range(&s.domain.identity()?, o.domain.space().range_tuple());
            origin_maps.insert(s.name.clone(), (o.name.clone(), m));
        }
    }
    let mut actual: BTreeMap<(String, String, String), Map> = BTreeMap::new();
    // The elements of each (reader, array) that the reader's sources in the tile wrote:
    // `{ reader[i] -> A[x] }`.
    let mut sourced: BTreeMap<(String, String), Map> = BTreeMap::new();
    for d in inside.iter().filter(|d| d.kind == DepKind::Flow) {
        let array = scratch_of
            .get(d.array.as_str())
            .copied()
            .unwrap_or(&d.array);
        let reverse = d.relation.reverse();
        if let Some(w) = program.statement(&d.source) {
            for x in w
                .accesses
                .iter()
                .filter(|x| x.kind == AccessKind::Write && x.array == d.array)
            {
                let written = x.relation.intersect_domain(w.domain.as_map())?;
                add(
                    &mut sourced,
                    (d.target.clone(), d.array.clone()),
                    reverse.apply_range(&written)?,
                )?;
            }
        }
        let Some((source, m)) = origin_maps.get(&d.source) else {
            outcome.differences.push(format!(
                "{} reads {} from {}, which computes no original instance",
                d.target, d.array, d.source
            ));
            continue;
        };
        add(
            &mut actual,
            (d.target.clone(), array.to_string(), source.clone()),
            reverse.apply_range(m)?,
        )?;
    }
    // Every element read of a scratch array was written by a source in the tile.
    for s in &program.statements {
        for a in s.accesses.iter().filter(|a| a.kind == AccessKind::Read) {
            if !scratch_of.contains_key(a.array.as_str()) {
                continue;
            }
            let reads = a.relation.intersect_domain(s.domain.as_map())?;
            let covered = match sourced.get(&(s.name.clone(), a.array.clone())) {
                Some(m) => reads.is_subset_with(m, budget)?,
                None => reads.is_empty_with(budget)?,
            };
            if !covered {
                outcome.differences.push(format!(
                    "{} reads elements of {} that its tile does not compute",
                    s.name, a.array
                ));
            }
        }
    }
    // Expected, from the original's dataflow restricted to the group's sources.
    let mut expected: BTreeMap<(String, String, String), Map> = BTreeMap::new();
    for s in &program.statements {
        let target_flows: Vec<&Dependence> = match fused.origins.get(&s.name) {
            Some(Origin::WriteBack { array, .. }) => flows
                .iter()
                .filter(|d| {
                    d.kind == DepKind::Flow
                        && d.array == *array
                        && sinks.iter().any(|e| e.name == d.target)
                })
                .collect(),
            _ => match origin_maps.get(&s.name) {
                Some((o, _)) => flows
                    .iter()
                    .filter(|d| d.kind == DepKind::Flow && d.target == *o)
                    .collect(),
                None => Vec::new(),
            },
        };
        for d in target_flows {
            if !group_originals.contains(&d.source) {
                continue;
            }
            let relation = d.relation.align_params(&params)?;
            let to = match fused.origins.get(&s.name) {
                // W[x] reads what END_A[x] reads.
                Some(Origin::WriteBack { .. }) => {
                    rename_range(&s.domain.identity()?, relation.space().range_tuple())
                }
                _ => origin_maps[&s.name].1.clone(),
            };
            add(
                &mut expected,
                (s.name.clone(), d.array.clone(), d.source.clone()),
                to.apply_range(&relation.reverse())?,
            )?;
        }
    }
    let keys: BTreeSet<(String, String, String)> =
        actual.keys().chain(expected.keys()).cloned().collect();
    for key in keys {
        let same = match (actual.get(&key), expected.get(&key)) {
            (Some(a), Some(e)) => a.is_equal_with(e, budget)?,
            (Some(m), None) | (None, Some(m)) => m.is_empty_with(budget)?,
            (None, None) => true,
        };
        if !same {
            outcome.differences.push(format!(
                "inside a tile, {} reads values of {} from instances of {} other than the original's",
                key.0, key.1, key.2
            ));
        }
    }
    Ok(())
}

/// The value-based flows of a program in which every element is written at most once
/// (pipelines' stages and windows): each read's source is the element's only writer,
/// `read ∘ write⁻¹`, provided the writer runs first, which is checked against the
/// program's schedule. `None` when some element is written twice, or a writer would
/// not run first (the general analysis decides then).
fn single_assignment_flows(program: &Scop, budget: &mut Budget) -> Result<Option<Vec<Dependence>>> {
    let mut writes: BTreeMap<&str, Vec<(&Statement, Map)>> = BTreeMap::new();
    for s in &program.statements {
        for a in s.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
            let w = a.relation.intersect_domain(s.domain.as_map())?;
            writes.entry(a.array.as_str()).or_default().push((s, w));
        }
    }
    for list in writes.values() {
        for (k, (_, w)) in list.iter().enumerate() {
            if !w.is_injective_with(budget)? {
                return Ok(None);
            }
            for (_, v) in &list[k + 1..] {
                if !w.range().intersect(&v.range())?.is_empty_with(budget)? {
                    return Ok(None);
                }
            }
        }
    }
    let schedule = program.schedule.to_union_map()?;
    let mut out = Vec::new();
    for r in &program.statements {
        for a in r.accesses.iter().filter(|a| a.kind == AccessKind::Read) {
            let Some(list) = writes.get(a.array.as_str()) else {
                continue;
            };
            let read = a.relation.intersect_domain(r.domain.as_map())?;
            for (w, write) in list {
                // { writer -> reader }
                let relation = write.apply_range(&read.reverse())?;
                if relation.is_empty_with(budget)? {
                    continue;
                }
                let time_of = |name: &str| schedule.maps().find(|m| domain_name(m) == Some(name));
                let (Some(tw), Some(tr)) = (time_of(&w.name), time_of(&r.name)) else {
                    return Ok(None);
                };
                if tw.space().n_out() != tr.space().n_out() {
                    return Ok(None);
                }
                let (tw, tr) = (anonymous_times(tw), anonymous_times(tr));
                // Both times, compared: the writer must come strictly first.
                let times = relation
                    .reverse()
                    .apply_range(&tw)?
                    .reverse()
                    .apply_range(&tr)?;
                let space = times.domain().space().clone();
                if times.space().n_in() != times.space().n_out() {
                    return Ok(None);
                }
                let not_before = Map::lex_lt(&space, false).reverse();
                if !times.intersect(&not_before)?.is_empty_with(budget)? {
                    return Ok(None);
                }
                out.push(Dependence {
                    kind: DepKind::Flow,
                    array: a.array.clone(),
                    source: w.name.clone(),
                    target: r.name.clone(),
                    relation,
                });
            }
        }
    }
    Ok(Some(out))
}

/// A schedule map with an anonymous range, so that two statements' times compare.
fn anonymous_times(m: &Map) -> Map {
    rename_range(m, None)
}

/// The group's statements with their tile coordinates fixed to `params`' last `k`
/// parameters, scheduled by the subtree below the group's tile band.
fn tile_program(
    fused: &Fused,
    statements: &[String],
    params: &[String],
    k: usize,
    budget: &mut Budget,
) -> Result<Option<Scop>> {
    let Some(band) = tile_band(&fused.tree.root, statements) else {
        return Ok(None);
    };
    let np = params.len() - k;
    // Tile coordinates are the first `k` set (or input) dimensions, whose columns follow
    // the parameters' in both layouts.
    let fix = |m: &Map| -> Result<Map> {
        let m = m.align_params(params)?;
        let space = m.space().clone();
        let mut b = BasicMap::universe(space.clone());
        let first = 1 + params.len();
        for j in 0..k {
            let mut row = b.zero_row();
            row[first + j] = Int::one();
            row[1 + np + j] = -Int::one();
            b.add_eq(row);
        }
        let constrained = m.intersect(&Map::from_basic(b))?;
        let kind = if space.is_map() {
            DimKind::In
        } else {
            DimKind::Out
        };
        Ok(constrained.project_out(kind, 0, k)?)
    };
    let mut scop_statements = Vec::new();
    let mut domain = UnionSet::empty(params.to_vec());
    for name in statements {
        let Some(s) = fused.scop.statement(name) else {
            continue;
        };
        let d = Set::from_map(fix(s.domain.as_map())?)?;
        if d.is_empty_with(budget)? {
            continue;
        }
        let mut accesses = Vec::new();
        for a in &s.accesses {
            let mut relation = fix(&a.relation)?;
            let scratch = fused.scratch.iter().any(|x| x.name == a.array);
            if scratch {
                relation = relation.project_out(DimKind::Out, 0, k)?;
            }
            accesses.push(Access {
                kind: a.kind,
                array: a.array.clone(),
                relation,
            });
        }
        domain.add_set(d.clone())?;
        scop_statements.push(Statement {
            name: s.name.clone(),
            domain: d,
            iterators: s.iterators[k.min(s.iterators.len())..].to_vec(),
            accesses,
            body: s.body.clone(),
        });
    }
    let arrays: Vec<Array> = fused
        .scop
        .arrays
        .iter()
        .map(|a| {
            let mut a = a.clone();
            if fused.scratch.iter().any(|x| x.name == a.name) {
                a.extents = a.extents[k.min(a.extents.len())..].to_vec();
            }
            a
        })
        .collect();
    let child = fix_node(&band.child, &fix)?;
    let schedule = ScheduleTree {
        root: Node::Domain {
            domain,
            child: Box::new(child),
        },
    };
    Ok(Some(Scop {
        params: params.to_vec(),
        context: Set::from_map(fused.scop.context.as_map().align_params(params)?)?,
        arrays,
        statements: scop_statements,
        schedule,
    }))
}

/// The tile band over the group's statements.
fn tile_band<'a>(node: &'a Node, statements: &[String]) -> Option<&'a Band> {
    match node {
        Node::Band(b) => {
            let covers = b
                .schedule
                .maps()
                .any(|m| domain_name(m).is_some_and(|n| statements.iter().any(|s| s == n)));
            if covers {
                Some(b)
            } else {
                tile_band(&b.child, statements)
            }
        }
        other => other
            .children()
            .into_iter()
            .find_map(|c| tile_band(c, statements)),
    }
}

/// A subtree with every map and filter passed through `fix`.
fn fix_node(node: &Node, fix: &dyn Fn(&Map) -> Result<Map>) -> Result<Node> {
    Ok(match node {
        Node::Band(b) => {
            let mut schedule = UnionMap::empty(Vec::new());
            let mut first = true;
            for m in b.schedule.maps() {
                let f = fix(m)?;
                if first {
                    schedule = UnionMap::empty(f.space().param_names().to_vec());
                    first = false;
                }
                schedule.add_map(f)?;
            }
            Node::Band(Band {
                schedule,
                permutable: b.permutable,
                coincident: b.coincident.clone(),
                child: Box::new(fix_node(&b.child, fix)?),
            })
        }
        Node::Filter { filter, child } => {
            let mut out: Option<UnionSet> = None;
            for s in filter.sets() {
                let f = Set::from_map(fix(s.as_map())?)?;
                match &mut out {
                    None => out = Some(UnionSet::from_set(f)),
                    Some(u) => u.add_set(f)?,
                }
            }
            Node::Filter {
                filter: out.unwrap_or_else(|| UnionSet::empty(Vec::new())),
                child: Box::new(fix_node(child, fix)?),
            }
        }
        Node::Sequence(children) => Node::Sequence(
            children
                .iter()
                .map(|c| fix_node(c, fix))
                .collect::<Result<_>>()?,
        ),
        Node::Set(children) => Node::Set(
            children
                .iter()
                .map(|c| fix_node(c, fix))
                .collect::<Result<_>>()?,
        ),
        Node::Mark { name, child } => Node::Mark {
            name: name.clone(),
            child: Box::new(fix_node(child, fix)?),
        },
        Node::Leaf => Node::Leaf,
        Node::Domain { .. } | Node::Context { .. } | Node::Extension { .. } => {
            return Err(Error::Scop(pollen_scop::Error::Invalid(
                "a tile holds a domain, context or extension node".into(),
            )))
        }
    })
}

/// `{ [o] -> A[x] }` of the accesses of `kind` to global arrays by the group, per array.
fn by_tile(
    fused: &Fused,
    statements: &[String],
    kind: AccessKind,
) -> Result<BTreeMap<String, Map>> {
    let mut out: BTreeMap<String, Map> = BTreeMap::new();
    for name in statements {
        let Some(s) = fused.scop.statement(name) else {
            continue;
        };
        let k = tile_dims(fused, name);
        let n = s.iterators.len() - k;
        for a in s.accesses.iter().filter(|a| a.kind == kind) {
            if fused.scratch.iter().any(|x| x.name == a.array) {
                continue;
            }
            let m = a.relation.intersect_domain(s.domain.as_map())?;
            let m = m.project_out(DimKind::In, k, n)?;
            let space = Space::map(
                m.space().param_names().to_vec(),
                Tuple::anonymous(k),
                m.space()
                    .range_tuple()
                    .cloned()
                    .unwrap_or_else(|| Tuple::anonymous(m.space().n_out())),
            );
            let m = m.with_space(space);
            add(&mut out, a.array.clone(), m)?;
        }
    }
    Ok(out)
}

/// Part 2: no element written by two tiles, or written by one and read by another.
fn across_tiles(
    fused: &Fused,
    statements: &[String],
    budget: &mut Budget,
    outcome: &mut Outcome,
) -> Result<()> {
    let writes = by_tile(fused, statements, AccessKind::Write)?;
    let reads = by_tile(fused, statements, AccessKind::Read)?;
    for (array, w) in &writes {
        let tiles = Space::set(
            w.space().param_names().to_vec(),
            Tuple::anonymous(w.space().n_in()),
        );
        let before = Map::lex_lt(&tiles, true);
        let shared = w.apply_range(&w.reverse())?;
        let mut conflict = !shared.intersect(&before)?.is_empty_with(budget)?;
        if let Some(r) = reads.get(array) {
            let read_written = r.apply_range(&w.reverse())?;
            conflict |= !read_written.intersect(&before)?.is_empty_with(budget)?;
            conflict |= !read_written
                .intersect(&before.reverse())?
                .is_empty_with(budget)?;
        }
        if conflict {
            outcome.differences.push(format!(
                "two tiles of the group of {} access the same element of {array}, one writing it",
                statements.join(", ")
            ));
        }
    }
    Ok(())
}

/// Part 3: the copies of an output statement run each of its instances once.
fn coverage(
    original: &Scop,
    fused: &Fused,
    budget: &mut Budget,
    outcome: &mut Outcome,
) -> Result<()> {
    for group in &fused.groups {
        let mut images: BTreeMap<String, Map> = BTreeMap::new();
        for name in &group.statements {
            let Some(o) = original_of(fused, name) else {
                continue;
            };
            if !group.output.contains(&o) {
                continue;
            }
            if let Some(m) = to_original(fused, original, name)? {
                add(&mut images, o, m)?;
            }
        }
        for o in &group.output {
            let Some(s) = original.statement(o) else {
                continue;
            };
            let ok = match images.get(o) {
                Some(m) => {
                    m.is_injective_with(budget)?
                        && Set::from_map(m.range())?.is_equal_with(&s.domain, budget)?
                }
                None => s.domain.is_empty_with(budget)?,
            };
            if !ok {
                outcome.differences.push(format!(
                    "the tiles of {o} do not run each of its instances exactly once"
                ));
            }
        }
    }
    Ok(())
}

/// Part 4: the order of the units, and the final values where units write the same
/// elements.
#[allow(clippy::too_many_arguments)]
fn between_units(
    original: &Scop,
    fused: &Fused,
    units: &[BTreeSet<String>],
    deps: &[Dependence],
    live_out: Option<&BTreeSet<String>>,
    budget: &mut Budget,
    outcome: &mut Outcome,
) -> Result<()> {
    // The original instances each unit runs, per original statement.
    let mut runs: Vec<BTreeMap<String, Set>> = Vec::with_capacity(units.len());
    // Per unit and original statement: the arrays that every copy of it in the unit
    // reads from its tile's window (values the unit computes itself, which part 1
    // checks), never from memory.
    let mut windowed: Vec<BTreeMap<String, BTreeSet<String>>> = Vec::with_capacity(units.len());
    for unit in units {
        let mut w: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for name in unit {
            let Some(o) = original_of(fused, name) else {
                continue;
            };
            let arrays: BTreeSet<String> = fused
                .relocations
                .iter()
                .filter(|r| &r.statement == name)
                .map(|r| r.array.clone())
                .collect();
            let merged = match w.remove(&o) {
                Some(old) => old.intersection(&arrays).cloned().collect(),
                None => arrays,
            };
            w.insert(o, merged);
        }
        windowed.push(w);
    }
    for unit in units {
        let mut m: BTreeMap<String, Set> = BTreeMap::new();
        for name in unit {
            let Some(map) = to_original(fused, original, name)? else {
                continue;
            };
            let Some(o) = original_of(fused, name) else {
                continue;
            };
            let r = Set::from_map(map.range())?;
            let merged = match m.remove(&o) {
                Some(old) => old.union(&r)?,
                None => r,
            };
            m.insert(o, merged);
        }
        runs.push(m);
    }
    for d in deps {
        // A dependence whose source runs in a later unit than its target runs
        // backwards.
        for (u, early) in runs.iter().enumerate() {
            if d.kind == DepKind::Flow
                && windowed[u]
                    .get(&d.target)
                    .is_some_and(|arrays| arrays.contains(&d.array))
            {
                continue;
            }
            for later in &runs[u + 1..] {
                let (Some(source), Some(target)) = (later.get(&d.source), early.get(&d.target))
                else {
                    continue;
                };
                let backwards = d
                    .relation
                    .intersect_domain(source.as_map())?
                    .intersect_range(target.as_map())?;
                if !backwards.is_empty_with(budget)? {
                    outcome.differences.push(format!(
                        "the {} dependence of {} on {} through {} runs backwards",
                        format!("{:?}", d.kind).to_lowercase(),
                        d.target,
                        d.source,
                        d.array
                    ));
                }
            }
        }
    }
    // Arrays written where the original writes them, the final values from the last
    // unit that writes each element.
    for a in &original.arrays {
        let before = written(original, &a.name)?;
        let after = written(&fused.scop, &a.name)?;
        let live = live_out.is_none_or(|l| l.contains(&a.name));
        let same = match (&before, &after) {
            (Some(b), Some(n)) if live => n.is_equal_with(b, budget)?,
            (Some(b), Some(n)) => n.is_subset_with(b, budget)?,
            (None, Some(n)) => n.is_empty_with(budget)?,
            (Some(b), None) if live => b.is_empty_with(budget)?,
            _ => true,
        };
        if !same {
            outcome.differences.push(format!(
                "{} is not written at the elements the original writes",
                a.name
            ));
        }
    }
    Ok(())
}

fn add<K: Ord>(into: &mut BTreeMap<K, Map>, key: K, value: Map) -> Result<()> {
    let merged = match into.remove(&key) {
        Some(old) => old.union(&value)?,
        None => value,
    };
    into.insert(key, merged);
    Ok(())
}

fn deps_error(e: pollen_deps::Error) -> Error {
    match e {
        pollen_deps::Error::LimitExceeded => Error::LimitExceeded,
        e => Error::Dependences(e.to_string()),
    }
}

/// The elements of `array` that `scop` writes, or `None` when it writes none.
fn written(scop: &Scop, array: &str) -> Result<Option<Set>> {
    let all: BTreeSet<String> = scop.statements.iter().map(|s| s.name.clone()).collect();
    written_by(scop, array, &all)
}

/// The elements of `array` that the statements `names` of `scop` write.
fn written_by(scop: &Scop, array: &str, names: &BTreeSet<String>) -> Result<Option<Set>> {
    let mut out: Option<Map> = None;
    for s in scop.statements.iter().filter(|s| names.contains(&s.name)) {
        for a in s
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Write && a.array == array)
        {
            let r = a.relation.intersect_domain(s.domain.as_map())?.range();
            out = Some(match out {
                None => r,
                Some(o) => o.union(&r)?,
            });
        }
    }
    Ok(match out {
        Some(m) => Some(Set::from_map(m)?),
        None => None,
    })
}

/// One sink per array the original writes: `END_A[x]` reads every element written.
fn sinks(
    original: &Scop,
    arrays: &BTreeSet<&str>,
    taken: &BTreeSet<String>,
    budget: &mut Budget,
) -> Result<Vec<Statement>> {
    let mut out = Vec::new();
    for a in &original.arrays {
        if a.local || !arrays.contains(a.name.as_str()) {
            continue;
        }
        let Some(elements) = written(original, &a.name)? else {
            continue;
        };
        if elements.is_empty_with(budget)? {
            continue;
        }
        let mut name = format!("END_{}", a.name);
        while taken.contains(&name) {
            name.push('_');
        }
        let n = a.extents.len();
        let space = Space::set(
            original.params.clone(),
            Tuple::with_names(Some(name.clone()), vec![None; n]),
        );
        let domain = Set::from_map(elements.into_map().with_space(space))?;
        let read = rename_range(
            &domain.identity()?,
            Some(&Tuple::with_names(Some(a.name.clone()), vec![None; n])),
        );
        out.push(Statement {
            name,
            domain,
            iterators: (0..n).map(|d| format!("e{d}")).collect(),
            accesses: vec![Access {
                kind: AccessKind::Read,
                array: a.name.clone(),
                relation: read,
            }],
            body: String::new(),
        });
    }
    Ok(out)
}

/// `scop` with the sinks appended after everything.
fn with_sinks(scop: &Scop, sinks: &[Statement]) -> Result<Scop> {
    let mut out = scop.clone();
    let Node::Domain { domain, child } = &scop.schedule.root else {
        return Err(Error::Scop(pollen_scop::Error::Invalid(
            "the schedule tree has no domain root".into(),
        )));
    };
    if sinks.is_empty() {
        return Ok(out);
    }
    let mut all = domain.clone();
    let mut ends = UnionSet::empty(scop.params.clone());
    for s in sinks {
        all.add_set(s.domain.clone())?;
        ends.add_set(s.domain.clone())?;
        out.statements.push(s.clone());
    }
    out.schedule = ScheduleTree {
        root: Node::Domain {
            domain: all,
            child: Box::new(Node::Sequence(vec![
                Node::filter(domain.clone(), (**child).clone()),
                Node::filter(ends, Node::Leaf),
            ])),
        },
    };
    Ok(out)
}
