//! The [`StageGraph`] of a real program: the stages of an unfused schedule, with their
//! sizes at given parameter values, and the dependences between them after alignment and
//! scaling.
//!
//! [`stage_graph`] reads a [`Scop`], its dependences and a schedule tree without fusion
//! (Pluto with `Fuse::No`), and builds the plain-data graph that the grouping search
//! ([`dp_grouping`](super::dp_grouping), [`plan`](super::plan)) works on.
//!
//! # Stages
//!
//! The stages are those of the fused tiling (`fused`): the filters of the tree's
//! top-level sequence, each with its own band. A stage is *modelled* (becomes a
//! [`Stage`] of the graph) when its band has members and is permutable (it can be
//! tiled), every statement of the stage has a schedule in the band, the stage writes at
//! least one array, no other stage writes its arrays (PolyMage's functions are
//! single-assignment), and it has instances at the parameter estimates with a bounded
//! box. Other stages are listed in [`ProgramStages::skipped`] with the reason; what they
//! write counts, for the modelled stages, as an input array computed elsewhere.
//!
//! A stage is named after the arrays it writes (`blurx`, or `a+b` for two); its
//! statements are in [`ProgramStages::statements`], in the order of the graph.
//!
//! # Band points and the common space
//!
//! Every statement `S` of a stage has a band schedule `φ_S`; the stage's *band points*
//! are the values `φ_S(i)` over the statements' domains. The graph has as many
//! dimensions `n` as the deepest modelled band. A stage of `m < n` members is padded on
//! the outside: its band point `p` becomes `(0, …, 0, p)`, so that innermost members
//! meet (the columns of two images are aligned with each other, and a two-dimensional
//! stage sits under the channel dimension of a three-dimensional one). The padding
//! dimensions have extent 1. Own dimension `k` is always common dimension `k` (the
//! alignment is the identity); only the scales vary.
//!
//! # Extents and element sizes
//!
//! The parameters are fixed at `estimates`; a parameter missing from it gets
//! [`DEFAULT_ESTIMATE`]. The estimates must satisfy the scop's context
//! ([`Error::OutsideContext`]) and name only parameters ([`Error::UnknownParameter`]).
//! A stage's extent along a dimension is the number of values of its band box there
//! (`max − min + 1` over all its statements). Its element size is the sum of the sizes
//! of the element types of the arrays it writes ([`element_size`]).
//!
//! # Dependences and scales
//!
//! For each flow dependence between two modelled stages, the *read relation*
//! `R = φ_T⁻¹ ; reads_T ; writes_S⁻¹ ; φ_S` maps a band point of the consumer `T`'s
//! stage to the band points of the producer `S`'s stage that wrote the values it reads
//! (all writers of those elements, so the update statements of a reduction too). `R` is
//! intersected with the context and split per common dimension `d` into
//! `R_d = { [c_d] -> [p_d] }`. Along `d` the read is classified as an [`Access`]:
//!
//! - `p_d − a·c_d` bounded by constants (over all parameter values: the parameters are
//!   projected out before the minimum and maximum are taken) for `a` in
//!   `1..=`[`MAX_RATE`]: a stencil (`a = 1`) or a down-sampling read `p(a·x + k)`;
//! - otherwise `q·p_d − c_d` bounded for `q` in `2..=MAX_RATE`: an up-sampling read
//!   `p(x / q + k)`, with `k` from `ceil(lo / q)` to `ceil(hi / q)`;
//! - otherwise none: the dependence is [`Dep::NonConstant`].
//!
//! Scales follow the reads: a stage without producers has scale 1; along each
//! dimension, a consumer takes the scale that makes its first classified read (producers
//! in graph order) commensurate (`scale_c = scale_p · a / q`), or 1 without one. Input
//! arrays take the scale that makes each read commensurate. Scales are rationals until
//! all are known, then multiplied, per dimension, by the least common multiple of their
//! denominators. Each edge's [`Dep`] is then [`Access::dep`] at the final scales: a read
//! that does not fit the scales (a consumer reading two producers at different rates)
//! becomes `NonConstant`.
//!
//! For a blur `blury[i][j] = blurx[i-1][j] + blurx[i][j] + blurx[i+1][j]` the edge
//! `blurx → blury` is `{-1, 1}` along `i` and `{0, 0}` along `j`: the offsets are those of
//! the program's subscripts, with no shift of the band points.
//!
//! Reads of arrays no modelled stage writes are [`InputRead`]s, one per stage and array,
//! classified in the same way: the array's subscripts are aligned with the common
//! dimensions from the inside (the last subscript with the last dimension; missing ones
//! are read at 0, the outer subscripts beyond `n` are dropped).
//!
//! # Flags
//!
//! - **Live-out**: with `live_out = Some(arrays)`, a stage is live-out when it writes one
//!   of `arrays`; with `None`, when no modelled stage reads it. A stage read by a skipped
//!   stage is live-out either way (its values are used outside the graph).
//! - **Pointwise** (as [`Stage::pointwise`] defines it): every read the stage makes, of
//!   stages and of input arrays, is [`Dep::ZERO`] in every dimension.
//! - **Reuse**: along a band dimension, one point per read access (of every statement of
//!   the stage) whose element does not change along that dimension, plus one for the
//!   innermost dimension (spatial reuse); 0 along padding dimensions.
//!
//! Everything is deterministic: stages in sequence order, maps and sets ordered, no hash
//! order. The solver calls share the caller's [`Budget`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use pollen_arith::{Int, Rat};
use pollen_deps::{DepKind, Dependence};
use pollen_presburger::{Budget, DimKind, Map, Set, Space, Tuple};
use pollen_scop::{AccessKind, ScheduleTree, Scop, Statement};

use super::graph::{self, Access, Dep, Edge, InputRead, Stage, StageGraph};
use crate::fused::build;
use crate::maps::{anonymous_range, linear_map};

/// The value of a parameter missing from the estimates.
pub const DEFAULT_ESTIMATE: i64 = 1024;

/// The largest factor or divisor tried when classifying a scaled read.
pub const MAX_RATE: i64 = 4;

/// A program's stage graph, and the stages left out of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramStages {
    /// The graph of the modelled stages.
    pub graph: StageGraph,
    /// Per stage of the graph (by [`StageId`](super::StageId)), its statements.
    pub statements: Vec<Vec<String>>,
    /// The stages that cannot be modelled: their statements and the reason.
    pub skipped: Vec<(Vec<String>, String)>,
}

/// An error of [`stage_graph`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A Presburger operation failed, the budget ran out (`LimitExceeded`), or the
    /// schedule tree could not be read.
    Transform(crate::Error),
    /// The graph rejected a stage or an edge.
    Graph(graph::Error),
    /// The estimates name something that is not a parameter of the scop.
    UnknownParameter {
        /// The name.
        name: String,
    },
    /// The parameter values (estimates and defaults) violate the scop's context.
    OutsideContext {
        /// Every parameter with its value.
        values: Vec<(String, i64)>,
    },
    /// No stage can be modelled.
    NoStage {
        /// Every stage with the reason it was left out.
        skipped: Vec<(Vec<String>, String)>,
    },
    /// A scale does not fit in an `i64`.
    ScaleOverflow,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Transform(e) => write!(f, "{e}"),
            Error::Graph(e) => write!(f, "{e}"),
            Error::UnknownParameter { name } => {
                write!(f, "the estimates name `{name}`, which is not a parameter")
            }
            Error::OutsideContext { values } => {
                let v: Vec<String> = values.iter().map(|(p, v)| format!("{p} = {v}")).collect();
                write!(
                    f,
                    "the parameter values {} violate the context",
                    v.join(", ")
                )
            }
            Error::NoStage { skipped } => {
                write!(f, "no stage can be modelled")?;
                for (statements, why) in skipped {
                    write!(f, "; {{{}}}: {why}", statements.join(", "))?;
                }
                Ok(())
            }
            Error::ScaleOverflow => write!(f, "a stage's scale overflows"),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::Error> for Error {
    fn from(e: crate::Error) -> Error {
        Error::Transform(e)
    }
}

impl From<pollen_presburger::Error> for Error {
    fn from(e: pollen_presburger::Error) -> Error {
        Error::Transform(crate::Error::from(e))
    }
}

impl From<pollen_scop::Error> for Error {
    fn from(e: pollen_scop::Error) -> Error {
        Error::Transform(crate::Error::from(e))
    }
}

impl From<graph::Error> for Error {
    fn from(e: graph::Error) -> Error {
        Error::Graph(e)
    }
}

/// The result type of [`stage_graph`].
pub type Result<T> = std::result::Result<T, Error>;

/// The size in bytes of one element of C type `element_type`: 1 for `char` types and
/// `(u)int8_t`, 2 for `short` and `(u)int16_t`, 4 for `float`, `int`, `unsigned` and
/// `(u)int32_t`, 8 for `double`, `long`, `long long`, `size_t` and `(u)int64_t`, and 8
/// for any other type (the largest scalar).
pub fn element_size(element_type: &str) -> i64 {
    let words: Vec<&str> = element_type
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "signed" | "unsigned"))
        .collect();
    match words.as_slice() {
        ["char"] | ["int8_t"] | ["uint8_t"] => 1,
        ["short"] | ["short", "int"] | ["int16_t"] | ["uint16_t"] => 2,
        ["float"] | ["int"] | [] | ["int32_t"] | ["uint32_t"] => 4,
        _ => 8,
    }
}

/// The stage graph of `scop` under `unfused`, a schedule tree without fusion whose
/// top-level filters are the stages (see the module docs), with the parameters at
/// `estimates` and the live-out arrays `live_out` (`None`: the stages no other stage
/// reads). `deps` are the scop's dependences; the flow ones say which stage reads which.
pub fn stage_graph(
    scop: &Scop,
    deps: &[Dependence],
    unfused: &ScheduleTree,
    estimates: &BTreeMap<String, i64>,
    live_out: Option<&BTreeSet<String>>,
    budget: &mut Budget,
) -> Result<ProgramStages> {
    let values = parameter_values(scop, estimates, budget)?;
    let context = scop.context.align_params(&scop.params)?;
    let stages = build::stages(unfused)?;

    let mut writers: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (k, s) in stages.iter().enumerate() {
        for name in &s.statements {
            for a in &statement(scop, name)?.accesses {
                if a.kind == AccessKind::Write {
                    writers.entry(a.array.clone()).or_default().insert(k);
                }
            }
        }
    }

    // The modelled stages, with their unpadded band maps and boxes.
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut skipped: Vec<(Vec<String>, String)> = Vec::new();
    let mut modelled_of: Vec<Option<usize>> = vec![None; stages.len()];
    for (k, s) in stages.iter().enumerate() {
        match candidate(scop, s, &writers, &values, budget)? {
            Ok(c) => {
                modelled_of[k] = Some(candidates.len());
                candidates.push(c);
            }
            Err(why) => skipped.push((s.statements.clone(), why)),
        }
    }
    let Some(n) = candidates.iter().map(|c| c.members).max() else {
        return Err(Error::NoStage { skipped });
    };

    // Band maps padded to n dimensions.
    for c in &mut candidates {
        let pad = padding(c.members, n);
        for phi in c.phi.values_mut() {
            *phi = phi.apply_range(&pad)?;
        }
    }

    // Flow between stages: (source stage, target stage) -> (target statement, array,
    // source statement).
    let stage_of: BTreeMap<&str, usize> = stages
        .iter()
        .enumerate()
        .flat_map(|(k, s)| s.statements.iter().map(move |n| (n.as_str(), k)))
        .collect();
    let mut flows: BTreeMap<(usize, usize), BTreeSet<Flow>> = BTreeMap::new();
    let mut read_outside: BTreeSet<usize> = BTreeSet::new();
    for d in deps.iter().filter(|d| d.kind == DepKind::Flow) {
        let (Some(&s), Some(&t)) = (
            stage_of.get(d.source.as_str()),
            stage_of.get(d.target.as_str()),
        ) else {
            continue;
        };
        if s == t {
            continue;
        }
        match (modelled_of[s], modelled_of[t]) {
            (Some(ps), Some(pt)) => {
                flows.entry((ps, pt)).or_default().insert((
                    d.target.clone(),
                    d.array.clone(),
                    d.source.clone(),
                ));
            }
            (Some(ps), None) => {
                read_outside.insert(ps);
            }
            _ => {}
        }
    }
    let modelled_writes: BTreeSet<&str> = candidates
        .iter()
        .flat_map(|c| c.writes.iter().map(String::as_str))
        .collect();

    // Per edge, the read relation's access along every dimension.
    let mut edges: Vec<(usize, usize, Vec<Option<Access>>, u32)> = Vec::new();
    for (&(p, c), triples) in &flows {
        let mut relation: Option<Map> = None;
        let mut references: BTreeSet<(String, String)> = BTreeSet::new();
        for (target, array, source) in triples {
            let t = statement(scop, target)?;
            let s = statement(scop, source)?;
            let (Some(phi_t), Some(phi_s)) =
                (candidates[c].phi.get(target), candidates[p].phi.get(source))
            else {
                continue;
            };
            for read in t
                .accesses
                .iter()
                .filter(|a| a.kind == AccessKind::Read && &a.array == array)
            {
                for write in s
                    .accesses
                    .iter()
                    .filter(|a| a.kind == AccessKind::Write && &a.array == array)
                {
                    let written = write.relation.intersect_domain(s.domain.as_map())?;
                    let r = phi_t
                        .reverse()
                        .apply_range(&read.relation)?
                        .apply_range(&written.reverse())?
                        .apply_range(phi_s)?;
                    relation = Some(match relation {
                        None => r,
                        Some(q) => q.union(&r)?,
                    });
                }
            }
            references.insert((target.clone(), array.clone()));
        }
        let Some(relation) = relation else {
            continue;
        };
        let relation = relation.intersect_params(context.as_map())?;
        if relation.is_empty_with(budget)? {
            continue;
        }
        let count: usize = references
            .iter()
            .map(|(target, array)| {
                statement(scop, target).map(|t| {
                    t.accesses
                        .iter()
                        .filter(|a| a.kind == AccessKind::Read && &a.array == array)
                        .count()
                })
            })
            .sum::<Result<usize>>()?;
        let accesses = (0..n)
            .map(|d| classify(&relation, d, budget))
            .collect::<Result<Vec<_>>>()?;
        edges.push((
            p,
            c,
            accesses,
            u32::try_from(count.max(1)).unwrap_or(u32::MAX),
        ));
    }

    // Per stage, its reads of input arrays: array -> access per dimension.
    let mut inputs: Vec<BTreeMap<String, Vec<Option<Access>>>> =
        vec![BTreeMap::new(); candidates.len()];
    for (k, c) in candidates.iter().enumerate() {
        let mut relations: BTreeMap<String, Map> = BTreeMap::new();
        for (name, phi) in &c.phi {
            let t = statement(scop, name)?;
            for read in t.accesses.iter().filter(|a| a.kind == AccessKind::Read) {
                if modelled_writes.contains(read.array.as_str()) {
                    continue;
                }
                let r = phi.reverse().apply_range(&read.relation)?;
                let r = to_common(&r, n)?;
                let r = match relations.get(&read.array) {
                    Some(q) => q.union(&r)?,
                    None => r,
                };
                relations.insert(read.array.clone(), r);
            }
        }
        for (array, r) in relations {
            let r = r.intersect_params(context.as_map())?;
            if r.is_empty_with(budget)? {
                continue;
            }
            let accesses = (0..n)
                .map(|d| classify(&r, d, budget))
                .collect::<Result<Vec<_>>>()?;
            inputs[k].insert(array, accesses);
        }
    }

    // Scales: rationals in graph order, then integers per dimension.
    let one = Rat::from(1);
    let mut scales: Vec<Vec<Rat>> = vec![vec![one.clone(); n]; candidates.len()];
    for c in 0..candidates.len() {
        let row: Vec<Rat> = (0..n)
            .map(|d| {
                let first = edges
                    .iter()
                    .filter(|e| e.1 == c)
                    .find_map(|e| e.2[d].map(|a| (e.0, a)));
                match first {
                    Some((p, a)) => {
                        scales[p][d].clone() * Rat::from(a.factor) / Rat::from(a.divisor)
                    }
                    None => one.clone(),
                }
            })
            .collect();
        scales[c] = row;
    }
    let input_scales: Vec<BTreeMap<String, Vec<Rat>>> = inputs
        .iter()
        .enumerate()
        .map(|(c, reads)| {
            reads
                .iter()
                .map(|(array, accesses)| {
                    let s = (0..n)
                        .map(|d| match accesses[d] {
                            Some(a) => {
                                scales[c][d].clone() * Rat::from(a.divisor) / Rat::from(a.factor)
                            }
                            None => one.clone(),
                        })
                        .collect();
                    (array.clone(), s)
                })
                .collect()
        })
        .collect();
    let mut multipliers = vec![Int::one(); n];
    for (d, m) in multipliers.iter_mut().enumerate() {
        for s in scales
            .iter()
            .map(|s| &s[d])
            .chain(input_scales.iter().flat_map(|i| i.values().map(|s| &s[d])))
        {
            *m = m.lcm(s.denom());
        }
    }
    let integer = |r: &Rat, d: usize| -> Result<i64> {
        let v = r.clone() * Rat::from_int(multipliers[d].clone());
        if !v.is_integer() {
            return Err(Error::ScaleOverflow);
        }
        v.numer().to_i64().ok_or(Error::ScaleOverflow)
    };
    let final_scales: Vec<Vec<i64>> = scales
        .iter()
        .map(|s| {
            (0..n)
                .map(|d| integer(&s[d], d))
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?;

    // The graph.
    let mut graph = StageGraph::new(n)?;
    let mut statements = Vec::with_capacity(candidates.len());
    let mut pointwise = vec![true; candidates.len()];
    let mut deps_of: Vec<(usize, usize, Vec<Dep>, u32)> = Vec::new();
    for (p, c, accesses, references) in &edges {
        let deps: Vec<Dep> = (0..n)
            .map(|d| match accesses[d] {
                Some(a) => a.dep(final_scales[*c][d], final_scales[*p][d]),
                None => Dep::NonConstant,
            })
            .collect();
        if deps.iter().any(|d| *d != Dep::ZERO) {
            pointwise[*c] = false;
        }
        deps_of.push((*p, *c, deps, *references));
    }
    let has_consumer: BTreeSet<usize> = deps_of.iter().map(|e| e.0).collect();
    for (k, c) in candidates.iter().enumerate() {
        let mut reads = Vec::new();
        for (array, accesses) in &inputs[k] {
            let scales_in = &input_scales[k][array];
            let mut deps = Vec::with_capacity(n);
            let mut in_scales = Vec::with_capacity(n);
            for d in 0..n {
                let s = integer(&scales_in[d], d)?;
                in_scales.push(s);
                deps.push(match accesses[d] {
                    Some(a) => a.dep(final_scales[k][d], s),
                    None => Dep::NonConstant,
                });
            }
            if deps.iter().any(|d| *d != Dep::ZERO) {
                pointwise[k] = false;
            }
            reads.push(InputRead {
                array: array.clone(),
                elem_size: scop
                    .array(array)
                    .map_or(8, |a| element_size(&a.element_type)),
                deps,
                scales: in_scales,
            });
        }
        let live = read_outside.contains(&k)
            || match live_out {
                Some(names) => c.writes.iter().any(|a| names.contains(a)),
                None => !has_consumer.contains(&k),
            };
        let mut extents = vec![1; n - c.members];
        extents.extend(&c.extents);
        let reuse = reuse(scop, c, n, budget)?;
        let elem_size = c
            .writes
            .iter()
            .map(|a| scop.array(a).map_or(8, |x| element_size(&x.element_type)))
            .sum();
        let mut stage = Stage::new(&c.name, extents)
            .with_alignment((0..n).collect(), final_scales[k].clone())
            .with_elem_size(elem_size)
            .with_reuse(reuse);
        stage.live_out = live;
        stage.pointwise = pointwise[k];
        stage.inputs = reads;
        graph.add_stage(stage)?;
        statements.push(c.statements.clone());
    }
    for (p, c, deps, references) in deps_of {
        graph.add_edge(Edge::new(p, c, deps).with_references(references))?;
    }
    Ok(ProgramStages {
        graph,
        statements,
        skipped,
    })
}

/// A flow between two stages: the target statement, the array and the source statement.
type Flow = (String, String, String);

/// A stage that can be modelled.
struct Candidate {
    statements: Vec<String>,
    name: String,
    /// The number of band members.
    members: usize,
    /// Per statement, `{ S[i] -> [p] }` on its domain (padded to the graph's dimensions
    /// once these are known).
    phi: BTreeMap<String, Map>,
    /// The band box's extents (unpadded).
    extents: Vec<i64>,
    /// The arrays the stage writes.
    writes: BTreeSet<String>,
}

/// `stage` as a candidate, or the reason it cannot be modelled.
fn candidate(
    scop: &Scop,
    stage: &build::Stage,
    writers: &BTreeMap<String, BTreeSet<usize>>,
    values: &[Int],
    budget: &mut Budget,
) -> Result<std::result::Result<Candidate, String>> {
    let Some(band) = stage.band() else {
        return Ok(Err("the stage has no band".into()));
    };
    if !band.permutable {
        return Ok(Err("the stage's band is not permutable".into()));
    }
    let members = band.n_members();
    let mut writes = BTreeSet::new();
    let mut phi = BTreeMap::new();
    let mut points: Option<Set> = None;
    for name in &stage.statements {
        let s = statement(scop, name)?;
        for a in s.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
            if writers.get(&a.array).is_some_and(|w| w.len() > 1) {
                return Ok(Err(format!(
                    "array `{}` is also written by another stage",
                    a.array
                )));
            }
            writes.insert(a.array.clone());
        }
        let Some(m) = band
            .schedule
            .maps()
            .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(name))
        else {
            return Ok(Err(format!(
                "statement `{name}` has no schedule in the band"
            )));
        };
        let m = anonymous_range(&m.intersect_domain(s.domain.as_map())?);
        let image = fix_params(&s.domain.apply(&m)?, &scop.params, values)?;
        points = Some(match points {
            None => image,
            Some(p) => p.union(&image)?,
        });
        phi.insert(name.clone(), m);
    }
    if writes.is_empty() {
        return Ok(Err("the stage writes no array".into()));
    }
    let Some(points) = points else {
        return Ok(Err("the stage has no statement".into()));
    };
    if points.is_empty_with(budget)? {
        return Ok(Err("the stage has no instance at the estimates".into()));
    }
    let mut extents = Vec::with_capacity(members);
    for d in 0..members {
        let (Some(low), Some(high)) = (
            bound(&points, d, false, budget)?,
            bound(&points, d, true, budget)?,
        ) else {
            return Ok(Err(format!(
                "the band box is unbounded along dimension {d} at the estimates"
            )));
        };
        match high.checked_sub(low).and_then(|e| e.checked_add(1)) {
            Some(e) if e > 0 => extents.push(e),
            _ => return Ok(Err(format!("the extent along dimension {d} overflows"))),
        }
    }
    Ok(Ok(Candidate {
        statements: stage.statements.clone(),
        name: writes.iter().cloned().collect::<Vec<_>>().join("+"),
        members,
        phi,
        extents,
        writes,
    }))
}

/// The parameter values, in the scop's order: the estimates, [`DEFAULT_ESTIMATE`] for
/// the others; checked against the context.
fn parameter_values(
    scop: &Scop,
    estimates: &BTreeMap<String, i64>,
    budget: &mut Budget,
) -> Result<Vec<Int>> {
    if let Some(name) = estimates.keys().find(|p| !scop.params.contains(p)) {
        return Err(Error::UnknownParameter { name: name.clone() });
    }
    let values: Vec<i64> = scop
        .params
        .iter()
        .map(|p| estimates.get(p).copied().unwrap_or(DEFAULT_ESTIMATE))
        .collect();
    let ints: Vec<Int> = values.iter().map(|&v| Int::from(v)).collect();
    let context = scop.context.align_params(&scop.params)?;
    if fix_params(&context, &scop.params, &ints)?.is_empty_with(budget)? {
        return Err(Error::OutsideContext {
            values: scop.params.iter().cloned().zip(values).collect(),
        });
    }
    Ok(ints)
}

/// `set` with its parameters fixed at `values` (in the order of `params`) and then
/// projected out.
fn fix_params(set: &Set, params: &[String], values: &[Int]) -> Result<Set> {
    let mut s = set.align_params(params)?;
    for (i, v) in values.iter().enumerate() {
        s = s.fix_val(DimKind::Param, i, v)?;
    }
    Ok(s.project_out(DimKind::Param, 0, params.len())?)
}

/// The minimum (or maximum) of dimension `d` of `set`, a constant over all parameter
/// values; `None` when unbounded or not constant.
fn bound(set: &Set, d: usize, max: bool, budget: &mut Budget) -> Result<Option<i64>> {
    let np = set.n_params();
    let set = set.project_out(DimKind::Param, 0, np)?;
    let opt = if max {
        set.dim_max_with(d, budget)
    } else {
        set.dim_min_with(d, budget)
    };
    let pw = match opt {
        Ok(pw) => pw,
        Err(pollen_presburger::Error::Unbounded) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut best: Option<Int> = None;
    for (_, aff) in pw.pieces() {
        let Some(v) = aff.constant_value() else {
            return Ok(None);
        };
        best = Some(match best {
            None => v,
            Some(b) if (max && v > b) || (!max && v < b) => v,
            Some(b) => b,
        });
    }
    Ok(best.and_then(|b| b.to_i64()))
}

/// `{ [x] -> [0, …, 0, x] }` from `m` to `n` dimensions.
fn padding(m: usize, n: usize) -> Map {
    let rows: Vec<Vec<i64>> = (0..n)
        .map(|r| {
            (0..m)
                .map(|j| i64::from(r >= n - m && r - (n - m) == j))
                .collect()
        })
        .collect();
    linear_map(&rows, m)
}

/// A read relation `{ [p] -> A[x] }` with its array subscripts aligned with the `n`
/// common dimensions from the inside, as an anonymous map.
fn to_common(r: &Map, n: usize) -> Result<Map> {
    let r = anonymous_range(r);
    let k = r.space().n_out();
    let r = if k > n {
        r.project_out(DimKind::Out, 0, k - n)?
    } else {
        r
    };
    let k = r.space().n_out();
    Ok(if k < n {
        anonymous_range(&r.apply_range(&padding(k, n))?)
    } else {
        r
    })
}

/// The read of `relation` (`{ [c] -> [p] }`, `n` dimensions each) along dimension `d`,
/// as an [`Access`], or `None` when no scaling makes it constant.
fn classify(relation: &Map, d: usize, budget: &mut Budget) -> Result<Option<Access>> {
    let n_in = relation.space().n_in();
    let n_out = relation.space().n_out();
    let space = Space::map(
        relation.space().param_names().to_vec(),
        Tuple::anonymous(n_in),
        Tuple::anonymous(n_out),
    );
    let r = relation
        .clone()
        .with_space(space)
        .project_out(DimKind::In, d + 1, n_in - d - 1)?
        .project_out(DimKind::In, 0, d)?
        .project_out(DimKind::Out, d + 1, n_out - d - 1)?
        .project_out(DimKind::Out, 0, d)?;
    for a in 1..=MAX_RATE {
        // p - a c
        let shifted = r.apply_domain(&linear_map(&[vec![a]], 1))?;
        if let Some((lo, hi)) = spread(&shifted, budget)? {
            return Ok(Some(Access {
                factor: a,
                divisor: 1,
                min_offset: lo,
                max_offset: hi,
            }));
        }
    }
    for q in 2..=MAX_RATE {
        // q p - c
        let scaled = r.apply_range(&linear_map(&[vec![q]], 1))?;
        if let Some((lo, hi)) = spread(&scaled, budget)? {
            let (qi, lo, hi) = (Int::from(q), Int::from(lo), Int::from(hi));
            let (Some(min), Some(max)) = (lo.ceil_div(&qi).to_i64(), hi.ceil_div(&qi).to_i64())
            else {
                continue;
            };
            return Ok(Some(Access {
                factor: 1,
                divisor: q,
                min_offset: min,
                max_offset: max,
            }));
        }
    }
    Ok(None)
}

/// The smallest and largest value of `y − x` over `{ [x] -> [y] }` and all parameter
/// values, when both are constants.
fn spread(m: &Map, budget: &mut Budget) -> Result<Option<(i64, i64)>> {
    let deltas = Set::from_map(m.deltas()?)?;
    match (
        bound(&deltas, 0, false, budget)?,
        bound(&deltas, 0, true, budget)?,
    ) {
        (Some(lo), Some(hi)) => Ok(Some((lo, hi))),
        _ => Ok(None),
    }
}

/// The reuse scores of candidate `c` in a graph of `n` dimensions (see the module docs).
fn reuse(scop: &Scop, c: &Candidate, n: usize, budget: &mut Budget) -> Result<Vec<i64>> {
    let mut scores = vec![0i64; n];
    let pad = n - c.members;
    for (name, phi) in &c.phi {
        let s = statement(scop, name)?;
        for read in s.accesses.iter().filter(|a| a.kind == AccessKind::Read) {
            let q = phi.reverse().apply_range(&read.relation)?;
            for (d, score) in scores.iter_mut().enumerate().skip(pad) {
                if q.project_out(DimKind::In, d, 1)?
                    .is_single_valued_with(budget)?
                {
                    *score += 1;
                }
            }
        }
    }
    if let Some(last) = scores.last_mut() {
        *last += 1;
    }
    Ok(scores)
}

fn statement<'a>(scop: &'a Scop, name: &str) -> Result<&'a Statement> {
    scop.statement(name).ok_or_else(|| {
        Error::Transform(crate::Error::Scop(pollen_scop::Error::Invalid(format!(
            "the schedule names the unknown statement {name}"
        ))))
    })
}
