//! A trace oracle for the dependence analysis, for fixed parameter values.
//!
//! [`Trace::new`] runs a scop abstractly: it enumerates every statement instance
//! (fixing the parameters and scanning each domain), sorts the instances by their
//! flattened original schedule vectors, and interprets the accesses of each instance in
//! order (all reads, then all writes), keeping per array element the instances that read
//! and wrote it so far. The dependence pairs follow from the definitions:
//! - memory-based flow: every earlier write of an element before a read of it;
//! - anti: every earlier read before a write; output: every earlier write before a write
//!   (an instance never depends on itself);
//! - value-based flow: the last write of the element before the read.
//!
//! [`check`] compares the relations of a [`Dependences`] evaluated at the same values
//! (parameters fixed, pairs enumerated) with the trace and reports the first difference.
//! The oracle shares no code with [`crate::analyze`]: it uses no composition, no
//! lexicographic order relation and no lexmax, only enumeration and sorting.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use pollen_presburger::{DimKind, Int, Map};
use pollen_scop::{AccessKind, Scop};

use crate::{Analysis, DepKind, Dependences};

/// One dependence pair of statement instances, with its kind and array.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pair {
    /// The kind (flow pairs are value-based or memory-based by context).
    pub kind: DepKind,
    /// The array.
    pub array: String,
    /// The source statement's name.
    pub source: String,
    /// The source instance's iterator values.
    pub source_point: Vec<Int>,
    /// The target statement's name.
    pub target: String,
    /// The target instance's iterator values.
    pub target_point: Vec<Int>,
}

impl fmt::Display for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let point = |p: &[Int]| {
            p.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(
            f,
            "{:?} through {}: {}[{}] -> {}[{}]",
            self.kind,
            self.array,
            self.source,
            point(&self.source_point),
            self.target,
            point(&self.target_point)
        )
    }
}

/// What went wrong while tracing or comparing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OracleError {
    /// A Presburger operation failed (e.g. an unbounded domain cannot be enumerated).
    Presburger(pollen_presburger::Error),
    /// The scop's schedule could not be flattened.
    Scop(pollen_scop::Error),
    /// The analysis under test failed.
    Analysis(crate::Error),
    /// The number of parameter values differs from the number of parameters.
    ParamCount {
        /// The scop's parameters.
        expected: usize,
        /// The values given.
        found: usize,
    },
    /// The parameter values are outside the scop's context.
    OutsideContext {
        /// The values.
        params: Vec<i64>,
    },
    /// A statement is missing from the schedule or the dependences' statement list.
    UnknownStatement {
        /// Its name.
        name: String,
    },
    /// An instance has no schedule vector or several.
    ScheduleNotFunction {
        /// The statement.
        statement: String,
        /// The instance.
        point: Vec<Int>,
    },
    /// Two instances have the same schedule vector.
    ScheduleNotInjective {
        /// The common schedule vector.
        time: Vec<Int>,
    },
    /// The analysis holds an empty relation.
    EmptyRelation {
        /// Its kind.
        kind: DepKind,
        /// Its array.
        array: String,
        /// Its source statement.
        source: String,
        /// Its target statement.
        target: String,
    },
    /// The analysis and the trace disagree on a pair.
    Mismatch(Box<Mismatch>),
}

/// A pair on which the analysis and the trace disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The parameter values.
    pub params: Vec<i64>,
    /// How flow dependences were computed.
    pub analysis: Analysis,
    /// The first pair (in [`Pair`] order) found in only one of the two.
    pub pair: Pair,
    /// Whether the pair is in the analysis' relations (and not in the trace).
    pub in_analysis: bool,
    /// The analysis' relation of the pair's kind, array, source and target, printed, if
    /// there is one.
    pub relation: Option<String>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (yes, no) = if self.in_analysis {
            ("the analysis", "the trace")
        } else {
            ("the trace", "the analysis")
        };
        write!(
            f,
            "{:?} at parameters {:?}: {} is in {yes} but not in {no}",
            self.analysis, self.params, self.pair
        )?;
        match &self.relation {
            Some(r) => write!(f, "; the analysis' relation is {r}"),
            None => write!(f, "; the analysis has no such relation"),
        }
    }
}

impl From<pollen_presburger::Error> for OracleError {
    fn from(e: pollen_presburger::Error) -> OracleError {
        OracleError::Presburger(e)
    }
}

impl From<pollen_scop::Error> for OracleError {
    fn from(e: pollen_scop::Error) -> OracleError {
        OracleError::Scop(e)
    }
}

impl From<crate::Error> for OracleError {
    fn from(e: crate::Error) -> OracleError {
        OracleError::Analysis(e)
    }
}

impl fmt::Display for OracleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OracleError::Presburger(e) => write!(f, "{e}"),
            OracleError::Scop(e) => write!(f, "{e}"),
            OracleError::Analysis(e) => write!(f, "analysis failed: {e}"),
            OracleError::ParamCount { expected, found } => {
                write!(f, "{found} parameter values for {expected} parameters")
            }
            OracleError::OutsideContext { params } => {
                write!(f, "parameter values {params:?} are outside the context")
            }
            OracleError::UnknownStatement { name } => write!(f, "unknown statement {name}"),
            OracleError::ScheduleNotFunction { statement, point } => write!(
                f,
                "instance {statement}{point:?} does not have exactly one schedule vector"
            ),
            OracleError::ScheduleNotInjective { time } => {
                write!(f, "two instances share the schedule vector {time:?}")
            }
            OracleError::EmptyRelation {
                kind,
                array,
                source,
                target,
            } => write!(
                f,
                "the {kind:?} relation {source} -> {target} through {array} is empty"
            ),
            OracleError::Mismatch(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for OracleError {}

/// One statement instance of the trace.
struct Instance {
    statement: usize,
    point: Vec<Int>,
    time: Vec<Int>,
}

/// The instances reading and writing one array element so far.
#[derive(Default)]
struct Cell {
    readers: Vec<usize>,
    writers: Vec<usize>,
}

/// The dependence pairs of a scop's execution for fixed parameter values.
#[derive(Clone, Debug)]
pub struct Trace {
    n_instances: usize,
    /// Memory-based flow, anti and output pairs.
    memory: BTreeSet<Pair>,
    /// Value-based flow pairs.
    value_flow: BTreeSet<Pair>,
}

impl Trace {
    /// Runs the scop for the parameter values `params` (in [`Scop::params`] order), which
    /// must lie in the context.
    pub fn new(scop: &Scop, params: &[i64]) -> Result<Trace, OracleError> {
        check_params(scop, params)?;
        let instances = instances_in_order(scop, params)?;
        let accesses = instance_accesses(scop, params)?;
        let mut cells: BTreeMap<(String, Vec<Int>), Cell> = BTreeMap::new();
        let mut memory = BTreeSet::new();
        let mut value_flow = BTreeSet::new();
        let pair = |kind: DepKind, array: &str, source: usize, target: usize| Pair {
            kind,
            array: array.to_string(),
            source: scop.statements[instances[source].statement].name.clone(),
            source_point: instances[source].point.clone(),
            target: scop.statements[instances[target].statement].name.clone(),
            target_point: instances[target].point.clone(),
        };
        for (now, instance) in instances.iter().enumerate() {
            let key = (instance.statement, instance.point.clone());
            let Some(events) = accesses.get(&key) else {
                continue;
            };
            for (array, element) in &events.reads {
                let cell = cells.entry((array.clone(), element.clone())).or_default();
                for &w in &cell.writers {
                    memory.insert(pair(DepKind::Flow, array, w, now));
                }
                if let Some(&last) = cell.writers.last() {
                    value_flow.insert(pair(DepKind::Flow, array, last, now));
                }
                cell.readers.push(now);
            }
            for (array, element) in &events.writes {
                let cell = cells.entry((array.clone(), element.clone())).or_default();
                for &r in cell.readers.iter().filter(|&&r| r != now) {
                    memory.insert(pair(DepKind::Anti, array, r, now));
                }
                for &w in cell.writers.iter().filter(|&&w| w != now) {
                    memory.insert(pair(DepKind::Output, array, w, now));
                }
                if cell.writers.last() != Some(&now) {
                    cell.writers.push(now);
                }
            }
        }
        Ok(Trace {
            n_instances: instances.len(),
            memory,
            value_flow,
        })
    }

    /// Number of statement instances executed.
    pub fn n_instances(&self) -> usize {
        self.n_instances
    }

    /// The dependence pairs under the given analysis.
    pub fn pairs(&self, analysis: Analysis) -> BTreeSet<Pair> {
        match analysis {
            Analysis::MemoryBased => self.memory.clone(),
            Analysis::ValueBased => self
                .memory
                .iter()
                .filter(|p| p.kind != DepKind::Flow)
                .chain(self.value_flow.iter())
                .cloned()
                .collect(),
        }
    }
}

/// Fails unless there is one value per parameter and they lie in the context.
fn check_params(scop: &Scop, params: &[i64]) -> Result<(), OracleError> {
    if params.len() != scop.params.len() {
        return Err(OracleError::ParamCount {
            expected: scop.params.len(),
            found: params.len(),
        });
    }
    let values: Vec<Int> = params.iter().map(|&v| Int::from(v)).collect();
    let context = scop.context.as_map().align_params(&scop.params)?;
    if !context.contains_point(&values)? {
        return Err(OracleError::OutsideContext {
            params: params.to_vec(),
        });
    }
    Ok(())
}

/// The map with its parameters (named as in `names`) fixed to `values` and removed.
fn fix_params(map: &Map, names: &[String], values: &[i64]) -> Result<Map, OracleError> {
    let mut m = map.align_params(names)?;
    for (k, v) in values.iter().enumerate() {
        m = m.fix_val(DimKind::Param, k, &Int::from(*v))?;
    }
    Ok(m.project_out(DimKind::Param, 0, names.len())?)
}

/// The points of each statement's domain.
fn domain_points(scop: &Scop, params: &[i64]) -> Result<Vec<Map>, OracleError> {
    scop.statements
        .iter()
        .map(|s| fix_params(s.domain.as_map(), &scop.params, params))
        .collect()
}

/// Every instance with its schedule vector, in schedule order.
fn instances_in_order(scop: &Scop, params: &[i64]) -> Result<Vec<Instance>, OracleError> {
    let flat = scop.schedule.to_union_map()?;
    let domains = domain_points(scop, params)?;
    let mut instances = Vec::new();
    for (k, s) in scop.statements.iter().enumerate() {
        let schedule = flat
            .maps()
            .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(s.name.as_str()))
            .ok_or_else(|| OracleError::UnknownStatement {
                name: s.name.clone(),
            })?;
        let schedule = fix_params(schedule, &scop.params, params)?.intersect_domain(&domains[k])?;
        let n = s.domain.n_dims();
        let mut times: BTreeMap<Vec<Int>, Vec<Vec<Int>>> = BTreeMap::new();
        for p in schedule.points()? {
            let (point, time) = p.split_at(n);
            times.entry(point.to_vec()).or_default().push(time.to_vec());
        }
        for point in domains[k].points()? {
            let time = match times.remove(&point) {
                Some(mut t) if t.len() == 1 => t.pop().expect("one vector"),
                _ => {
                    return Err(OracleError::ScheduleNotFunction {
                        statement: s.name.clone(),
                        point,
                    })
                }
            };
            instances.push(Instance {
                statement: k,
                point,
                time,
            });
        }
    }
    instances.sort_by(|a, b| a.time.cmp(&b.time));
    if let Some(w) = instances.windows(2).find(|w| w[0].time == w[1].time) {
        return Err(OracleError::ScheduleNotInjective {
            time: w[0].time.clone(),
        });
    }
    Ok(instances)
}

/// The elements one instance reads and writes, in access order.
#[derive(Default)]
struct Events {
    reads: Vec<(String, Vec<Int>)>,
    writes: Vec<(String, Vec<Int>)>,
}

/// The accessed elements of every instance, keyed by statement index and point.
fn instance_accesses(
    scop: &Scop,
    params: &[i64],
) -> Result<BTreeMap<(usize, Vec<Int>), Events>, OracleError> {
    let domains = domain_points(scop, params)?;
    let mut all: BTreeMap<(usize, Vec<Int>), Events> = BTreeMap::new();
    for (k, s) in scop.statements.iter().enumerate() {
        let n = s.domain.n_dims();
        for a in &s.accesses {
            let relation =
                fix_params(&a.relation, &scop.params, params)?.intersect_domain(&domains[k])?;
            for p in relation.points()? {
                let (point, element) = p.split_at(n);
                let events = all.entry((k, point.to_vec())).or_default();
                let list = match a.kind {
                    AccessKind::Read => &mut events.reads,
                    AccessKind::Write => &mut events.writes,
                };
                list.push((a.array.clone(), element.to_vec()));
            }
        }
    }
    Ok(all)
}

/// The pairs of the relations of `deps` at the parameter values.
fn analysis_pairs(deps: &Dependences, params: &[i64]) -> Result<BTreeSet<Pair>, OracleError> {
    let mut pairs = BTreeSet::new();
    for d in deps.iter() {
        if d.relation.is_empty()? {
            return Err(OracleError::EmptyRelation {
                kind: d.kind,
                array: d.array.clone(),
                source: d.source.clone(),
                target: d.target.clone(),
            });
        }
        let n = d.relation.space().n_in();
        let fixed = fix_params(&d.relation, deps.param_names(), params)?;
        for p in fixed.points()? {
            let (x, y) = p.split_at(n);
            pairs.insert(Pair {
                kind: d.kind,
                array: d.array.clone(),
                source: d.source.clone(),
                source_point: x.to_vec(),
                target: d.target.clone(),
                target_point: y.to_vec(),
            });
        }
    }
    Ok(pairs)
}

/// Compares the dependences `deps` of `scop` with its trace at the parameter values
/// `params` (in [`Scop::params`] order, inside the context); returns the trace.
pub fn check(scop: &Scop, deps: &Dependences, params: &[i64]) -> Result<Trace, OracleError> {
    let trace = Trace::new(scop, params)?;
    let expected = trace.pairs(deps.analysis());
    let found = analysis_pairs(deps, params)?;
    let first = expected.symmetric_difference(&found).next().cloned();
    if let Some(pair) = first {
        let in_analysis = found.contains(&pair);
        let relation = deps
            .get(pair.kind, &pair.array, &pair.source, &pair.target)
            .map(|r| r.to_string());
        return Err(OracleError::Mismatch(Box::new(Mismatch {
            params: params.to_vec(),
            analysis: deps.analysis(),
            pair,
            in_analysis,
            relation,
        })));
    }
    Ok(trace)
}

/// Runs [`crate::analyze`] with both analyses and checks each against the trace at every
/// parameter valuation of `valuations`; returns the number of dependence pairs checked.
pub fn check_analyze(scop: &Scop, valuations: &[&[i64]]) -> Result<usize, OracleError> {
    let mut checked = 0;
    for analysis in [Analysis::MemoryBased, Analysis::ValueBased] {
        let deps = crate::analyze(scop, analysis)?;
        for params in valuations {
            let trace = check(scop, &deps, params)?;
            checked += trace.pairs(analysis).len();
        }
    }
    Ok(checked)
}
