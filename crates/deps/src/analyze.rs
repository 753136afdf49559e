//! Exact dependence analysis of a scop: memory-based flow, anti and output dependences,
//! and value-based flow dependences by parametric lexicographic maximum.
//!
//! # Method
//! Let `A_S`, `A_T` be two accesses to the same array, by statements `S` and `T`, at
//! least one a write, and `θ_S`, `θ_T` the flattened original schedules
//! ([`pollen_scop::ScheduleTree::to_union_map`]). The memory-based dependence is
//!
//! ```text
//! { S[x] -> T[y] : x ∈ D_S, y ∈ D_T, A_S(x) = A_T(y), θ_S(x) ≺ θ_T(y) }
//! ```
//!
//! computed as the conflict relation `A_S ; A_T⁻¹` intersected with the precedence
//! relation `θ_S ; ≺ ; θ_T⁻¹`, one basic map per level of the lexicographic order. The
//! levels that the constant dimensions of the two schedules (the positions in sequences)
//! rule out are left out before any composition, and a pair of statements that no level
//! orders (a later statement of a sequence before an earlier one, outside any common
//! loop) is skipped altogether. The order is strict, so an instance never depends on
//! itself: its reads precede its writes.
//!
//! Value-based flow follows Feautrier's *Dataflow analysis of array and scalar
//! references* (IJPP 1991) in the form isl's `isl_union_access_info_compute_flow` takes
//! when all writers are handled together: for one read access `R` of `T`, every
//! memory-based flow relation `M_W` from a write access `W` of a statement `S_W` is mapped
//! into the common schedule space, `T[y] -> θ_{S_W}(x)`. The flattened schedule is
//! injective and its constant dimensions tell the statements apart, so the union of these
//! maps relates each read instance to the schedule vectors of all earlier writes of its
//! element, and its exact parametric lexicographic maximum ([`Map::lexmax_with`]) is the
//! last of them. Mapping it back through each `θ_{S_W}⁻¹` gives the last writer of each
//! read instance, for every parameter value. Anti and output dependences stay
//! memory-based.
//!
//! Repeated accesses of a statement (the same array element, read twice) are analysed
//! once. The relation of each pair of accesses is coalesced on its own (typically its
//! levels of the lexicographic order fuse); the union over the access pairs of two
//! statements is not coalesced again: pieces from different accesses rarely fuse, and
//! trying costs more than the rest of the analysis (seidel-2d: 13 pieces, 50 ms to save
//! none beyond the per-pair fusions). Every step is exact over the integers.
//!
//! # Invariants
//! - a domain whose parameter domain does not lie in the scop's context is intersected
//!   with the context first (with its simple hull when the context is a union), so every
//!   relation is exact for every parameter value of the context and holds no pair for
//!   parameter values outside its hull;
//! - the flattened schedule is assumed injective (every instance has its own time), as
//!   the frontend's `2d+1` schedules are.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use pollen_presburger::{BasicMap, Budget, DimKind, Int, Map, Set, Space};
use pollen_scop::{AccessKind, Scop, Statement};

use crate::{Analysis, DepKind, Dependence, Dependences, Error, Result};

/// The dependences of a scop, exactly (see the module documentation). Fails on a scop
/// that breaks the invariants of [`Scop::validate`].
pub fn analyze(scop: &Scop, analysis: Analysis) -> Result<Dependences> {
    analyze_with(scop, analysis, &mut Budget::unlimited())
}

/// [`analyze`] within a budget of solver steps.
pub fn analyze_with(scop: &Scop, analysis: Analysis, budget: &mut Budget) -> Result<Dependences> {
    scop.validate()?;
    let model = Model::new(scop, budget)?;
    let mut relations = Relations::new();
    let mut precedence = BTreeMap::new();
    for refs in model.accesses_by_array().values() {
        for read_flow in memory_dependences(&model, refs, &mut precedence, &mut relations, budget)?
        {
            match analysis {
                Analysis::MemoryBased => {
                    for (writer, relation) in read_flow.writers {
                        relations.add(
                            DepKind::Flow,
                            writer,
                            read_flow.reader,
                            read_flow.array,
                            relation,
                        )?;
                    }
                }
                Analysis::ValueBased => {
                    last_writers(&model, &read_flow, &mut relations, budget)?;
                }
            }
        }
    }
    relations.into_dependences(&model, analysis)
}

/// One access with its relation restricted to the statement's domain.
struct AccessRef<'s> {
    statement: usize,
    kind: AccessKind,
    array: &'s str,
    relation: Map,
}

/// A scop prepared for the analysis: domains within the context, schedule maps and
/// accesses restricted to them.
struct Model<'s> {
    scop: &'s Scop,
    /// Per statement, `{ S[x] -> [t] }` on `D_S ∩ context`.
    schedules: Vec<Map>,
    /// Per statement, `D_S ∩ context`.
    domains: Vec<Map>,
    /// Per statement, the constant dimensions of its schedule.
    constants: Vec<Vec<Option<Int>>>,
    /// Every access, statement by statement, in order.
    accesses: Vec<AccessRef<'s>>,
}

impl<'s> Model<'s> {
    fn new(scop: &'s Scop, budget: &mut Budget) -> Result<Model<'s>> {
        let flat = scop.schedule.to_union_map()?;
        let context = convex_context(scop, budget)?;
        let mut schedules = Vec::with_capacity(scop.statements.len());
        let mut domains = Vec::with_capacity(scop.statements.len());
        let mut accesses = Vec::new();
        for (k, s) in scop.statements.iter().enumerate() {
            let domain = within_context(s, &scop.context, &context, budget)?;
            let schedule = flat
                .maps()
                .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(s.name.as_str()))
                .ok_or_else(|| Error::Unscheduled {
                    statement: s.name.clone(),
                })?;
            schedules.push(schedule.intersect_domain(&domain)?);
            let first = accesses.len();
            for a in &s.accesses {
                let relation = a.relation.intersect_domain(&domain)?;
                let repeated = accesses[first..].iter().any(|b: &AccessRef| {
                    b.kind == a.kind && b.array == a.array && same_parts(&b.relation, &relation)
                });
                if !repeated {
                    accesses.push(AccessRef {
                        statement: k,
                        kind: a.kind,
                        array: &a.array,
                        relation,
                    });
                }
            }
            domains.push(domain);
        }
        Ok(Model {
            scop,
            domains,
            constants: schedules.iter().map(constant_dims).collect(),
            schedules,
            accesses,
        })
    }

    /// The accesses grouped by array (arrays with no write are left out).
    fn accesses_by_array(&self) -> BTreeMap<&'s str, Vec<&AccessRef<'s>>> {
        let mut by_array: BTreeMap<&str, Vec<&AccessRef>> = BTreeMap::new();
        for a in &self.accesses {
            by_array.entry(a.array).or_default().push(a);
        }
        by_array.retain(|_, refs| refs.iter().any(|a| a.kind == AccessKind::Write));
        by_array
    }

    /// `{ S[x] -> T[y] : θ_S(x) ≺ θ_T(y) }`, cached per statement pair; `None` when no
    /// instance of `S` precedes one of `T` (the schedules' constant dimensions decide it).
    fn precedence<'c>(
        &self,
        source: usize,
        target: usize,
        cache: &'c mut BTreeMap<(usize, usize), Option<Map>>,
    ) -> Result<Option<&'c Map>> {
        let before = match cache.entry((source, target)) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let (s, t) = (&self.schedules[source], &self.schedules[target]);
                let levels = precedence_levels(&self.constants[source], &self.constants[target]);
                let before = if levels.is_empty() {
                    None
                } else {
                    let time = s.range().space().clone();
                    let order = lex_levels(&time, &levels);
                    Some(s.apply_range(&order)?.apply_range(&t.reverse())?)
                };
                e.insert(before)
            }
        };
        Ok(before.as_ref())
    }
}

/// A level of the lexicographic order between two schedule vectors `t` and `t'`: the
/// first `level` dimensions are equal and then `t'` is strictly greater at `level`
/// (`strict`), or, for a level where the two are different constants, the first `level`
/// dimensions are equal and nothing more is required.
type Level = (usize, bool);

/// The levels at which an instance scheduled with constant dimensions `source` can
/// precede one with constant dimensions `target` (`None`: not a constant). Scanning from
/// the outermost dimension: equal constants cannot order the instances (go deeper); a
/// non-constant dimension can (a strict level); the first pair of different constants
/// ends the scan, with a level that holds whenever the prefix is equal if the source's
/// constant is the smaller, and no level otherwise.
fn precedence_levels(source: &[Option<Int>], target: &[Option<Int>]) -> Vec<Level> {
    let mut levels = Vec::new();
    for (l, (a, b)) in source.iter().zip(target).enumerate() {
        match (a, b) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) => {
                if a < b {
                    levels.push((l, false));
                }
                return levels;
            }
            _ => levels.push((l, true)),
        }
    }
    levels
}

/// The union of the given levels of the lexicographic order on a set space, as a map
/// `{ t -> t' }`.
fn lex_levels(time: &Space, levels: &[Level]) -> Map {
    let space = Space::map_from(time, time);
    let n = time.n_dims();
    let mut order = Map::empty(space.clone());
    for &(level, strict) in levels {
        let mut b = BasicMap::universe(space.clone());
        for k in 0..level {
            let mut row = b.zero_row();
            row[b.dim_col(DimKind::In, k)] = Int::one();
            row[b.dim_col(DimKind::Out, k)] = -Int::one();
            b.add_eq(row);
        }
        if strict && level < n {
            // t'_level - t_level - 1 >= 0
            let mut row = b.zero_row();
            row[0] = -Int::one();
            row[b.dim_col(DimKind::In, level)] = -Int::one();
            row[b.dim_col(DimKind::Out, level)] = Int::one();
            b.add_ineq(row);
        }
        order.push(b);
    }
    order
}

/// Per output dimension of a schedule map, its value when one equality of its single
/// basic map fixes it to a constant.
fn constant_dims(schedule: &Map) -> Vec<Option<Int>> {
    let n = schedule.space().n_out();
    let mut constants = vec![None; n];
    let [b] = schedule.basic_maps() else {
        return constants;
    };
    for row in b.eqs() {
        let mut nonzero = row.iter().enumerate().skip(1).filter(|(_, c)| !c.is_zero());
        let (Some((col, coefficient)), None) = (nonzero.next(), nonzero.next()) else {
            continue;
        };
        let first_out = b.dim_col(DimKind::Out, 0);
        if (first_out..first_out + n).contains(&col) && coefficient.divides(&row[0]) {
            // coefficient * t + c = 0
            constants[col - first_out] = Some((-&row[0]).exact_div(coefficient));
        }
    }
    constants
}

/// The statement's domain restricted to the context: itself when its parameter domain
/// already lies in the context (always so for the frontend's contexts, which are the union
/// of the domains' parameter domains), otherwise intersected with `convex`, the context
/// as one basic set. Leaving out implied parameter constraints keeps every relation built
/// from the domain free of them.
fn within_context(
    statement: &Statement,
    context: &Set,
    convex: &Map,
    budget: &mut Budget,
) -> Result<Map> {
    let domain = statement.domain.as_map();
    if statement.domain.params().is_subset_with(context, budget)? {
        Ok(domain.clone())
    } else {
        Ok(domain.intersect_params(convex)?)
    }
}

/// The context as one basic set: itself when it coalesces to one, otherwise its simple
/// hull. Intersecting the domains with a union would multiply the pieces of every
/// relation by its size in each operand (3mm's context of three pieces gave 81-piece
/// intermediate relations); the hull keeps one piece and still holds every parameter
/// value of the context, where the relations are therefore exact.
fn convex_context(scop: &Scop, budget: &mut Budget) -> Result<Map> {
    let context = scop.context.as_map().coalesce_with(budget)?;
    if context.basic_maps().len() <= 1 {
        return Ok(context);
    }
    Ok(Map::from_basic(context.simple_hull_with(budget)?))
}

/// Whether two maps have syntactically the same parts (after simplification), a cheap
/// sufficient test for equality that catches repeated accesses such as the two reads of
/// `A[i]` in `A[i] * A[i]`.
fn same_parts(a: &Map, b: &Map) -> bool {
    let (pa, pb) = (a.basic_maps(), b.basic_maps());
    pa.len() == pb.len()
        && pa.iter().zip(pb).all(|(x, y)| {
            x.space() == y.space()
                && x.eqs() == y.eqs()
                && x.ineqs() == y.ineqs()
                && x.divs() == y.divs()
        })
}

/// The memory-based flow dependences into one read access, per writing statement.
struct ReadFlow<'s> {
    reader: usize,
    array: &'s str,
    /// The writing statements with their non-empty memory-based relations `S_W -> T`, in
    /// access order.
    writers: Vec<(usize, Map)>,
}

/// The dependence kind between an earlier access of kind `first` and a later one of kind
/// `second`, if any.
fn kind_of(first: AccessKind, second: AccessKind) -> Option<DepKind> {
    match (first, second) {
        (AccessKind::Write, AccessKind::Read) => Some(DepKind::Flow),
        (AccessKind::Read, AccessKind::Write) => Some(DepKind::Anti),
        (AccessKind::Write, AccessKind::Write) => Some(DepKind::Output),
        (AccessKind::Read, AccessKind::Read) => None,
    }
}

/// The memory-based dependences between the accesses `refs` to one array: anti and
/// output ones go to `relations`, flow ones are returned per read access.
fn memory_dependences<'s>(
    model: &Model<'s>,
    refs: &[&AccessRef<'s>],
    precedence: &mut BTreeMap<(usize, usize), Option<Map>>,
    relations: &mut Relations<'s>,
    budget: &mut Budget,
) -> Result<Vec<ReadFlow<'s>>> {
    let mut flows = Vec::new();
    for target in refs {
        let mut writers = Vec::new();
        for source in refs {
            let Some(kind) = kind_of(source.kind, target.kind) else {
                continue;
            };
            let conflict = source.relation.apply_range(&target.relation.reverse())?;
            if conflict.is_obviously_empty() {
                continue;
            }
            let Some(before) = model.precedence(source.statement, target.statement, precedence)?
            else {
                continue;
            };
            let relation = conflict.intersect(before)?.remove_empty_parts(budget)?;
            if relation.is_obviously_empty() {
                continue;
            }
            let relation = relation.coalesce_with(budget)?;
            if kind == DepKind::Flow {
                writers.push((source.statement, relation));
            } else {
                relations.add(
                    kind,
                    source.statement,
                    target.statement,
                    target.array,
                    relation,
                )?;
            }
        }
        if !writers.is_empty() {
            flows.push(ReadFlow {
                reader: target.statement,
                array: target.array,
                writers,
            });
        }
    }
    Ok(flows)
}

/// The value-based flow dependences into one read access: each read instance paired with
/// the last of its memory-based sources, found as a lexicographic maximum in the common
/// schedule space.
fn last_writers<'s>(
    model: &Model<'s>,
    flow: &ReadFlow<'s>,
    relations: &mut Relations<'s>,
    budget: &mut Budget,
) -> Result<()> {
    let mut candidates: Option<Map> = None;
    for (writer, relation) in &flow.writers {
        let times = relation.reverse().apply_range(&model.schedules[*writer])?;
        candidates = Some(match candidates {
            None => times,
            Some(c) => c.union(&times)?,
        });
    }
    let Some(candidates) = candidates else {
        return Ok(());
    };
    // The last writer is a function of the read instance, so it may be found piece by
    // piece of the reader's domain (a domain that is a union, from an `if` with `||` or
    // an `else`): each piece's problem meets only the writes into that piece, where the
    // whole union's would compare every piece's candidates with every other's.
    let pieces = model.domains[flow.reader].basic_maps();
    let last = if pieces.len() > 1 && candidates.basic_maps().len() > pieces.len() {
        let mut last = Map::empty(candidates.space().clone());
        for piece in pieces {
            let piece = Map::from_basic(piece.clone());
            let part = candidates
                .intersect_domain(&piece)?
                .remove_empty_parts(budget)?;
            if !part.is_obviously_empty() {
                last = last.union(&part.lexmax_with(budget)?)?;
            }
        }
        last
    } else {
        candidates.lexmax_with(budget)?
    };
    let mut writers: Vec<usize> = flow.writers.iter().map(|(w, _)| *w).collect();
    writers.sort_unstable();
    writers.dedup();
    for writer in writers {
        let relation = last
            .apply_range(&model.schedules[writer].reverse())?
            .reverse()
            .remove_empty_parts(budget)?;
        if !relation.is_obviously_empty() {
            let relation = relation.coalesce_with(budget)?;
            relations.add(DepKind::Flow, writer, flow.reader, flow.array, relation)?;
        }
    }
    Ok(())
}

/// The relations found so far, keyed by kind, source, target and array.
struct Relations<'s> {
    by_key: BTreeMap<(DepKind, usize, usize, &'s str), Map>,
}

impl<'s> Relations<'s> {
    fn new() -> Relations<'s> {
        Relations {
            by_key: BTreeMap::new(),
        }
    }

    /// Unites `relation` with the one of the same key.
    fn add(
        &mut self,
        kind: DepKind,
        source: usize,
        target: usize,
        array: &'s str,
        relation: Map,
    ) -> Result<()> {
        let key = (kind, source, target, array);
        let merged = match self.by_key.remove(&key) {
            Some(old) => old.union(&relation)?,
            None => relation,
        };
        self.by_key.insert(key, merged);
        Ok(())
    }

    /// The relations as [`Dependences`].
    fn into_dependences(self, model: &Model<'s>, analysis: Analysis) -> Result<Dependences> {
        let scop = model.scop;
        let mut deps = Vec::with_capacity(self.by_key.len());
        for ((kind, source, target, array), relation) in self.by_key {
            deps.push(Dependence {
                kind,
                array: array.to_string(),
                source: scop.statements[source].name.clone(),
                target: scop.statements[target].name.clone(),
                relation,
            });
        }
        Dependences::new(
            scop.params.clone(),
            scop.statements.iter().map(|s| s.name.clone()).collect(),
            analysis,
            deps,
        )
    }
}
