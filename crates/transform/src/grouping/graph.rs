//! The stage graph the grouping works on: stages with concrete sizes, and
//! producer→consumer edges whose dependences are given after scaling and alignment.
//!
//! # The common space
//!
//! Every stage of a graph has the graph's number of dimensions `n`. Overlapped tiling
//! needs all stages of a group in one iteration space, the *common space*: dimension `k`
//! of stage `f` is placed on common dimension `align[k]` (a permutation), and its point
//! `x` sits at position `scales[k] · x` there. PolyMage's example (the paper's §2, test
//! P18): `S1(i, j) → (2i, j)` and `S2(x, y) → (4y, x)` is `S1` with `align = [0, 1]`,
//! `scales = [2, 1]` and `S2` with `align = [1, 0]`, `scales = [1, 4]`.
//!
//! # Dependences
//!
//! An edge holds, per *consumer* dimension `k` (so along common dimension
//! `align_c[k]`), the [`Dep`] of the reads: `Dep::Constant { min, max }` when, for every
//! consumer point at common position `s_c` and every producer point at common position
//! `s_p` it reads, `min ≤ s_p − s_c ≤ max`, with `min` and `max` independent of the
//! problem size. A stencil `p(x − 1..x + 1)` at unit scales is `min = −1`, `max = 1`.
//! `Dep::NonConstant` marks reads that no scaling makes constant (data-dependent,
//! non-affine, incommensurate scales): such an edge can never lie inside a group.
//! [`Access::dep`] derives the `Dep` of a scaled read from the scale factors, for up- and
//! down-sampling.
//!
//! # Invariants
//!
//! A [`StageGraph`] is only built through [`StageGraph::add_stage`] and
//! [`StageGraph::add_edge`], which check their arguments: every stage has `n` extents,
//! scales and reuse scores, a permutation as alignment, positive extents, scales and
//! element size and non-negative reuse; every edge joins two existing, distinct stages,
//! has one dependence per consumer dimension with `min ≤ max`, and keeps the graph
//! acyclic. Names are unique.

use std::collections::BTreeSet;
use std::fmt;

/// The index of a stage in its [`StageGraph`] (the order of [`StageGraph::add_stage`]).
pub type StageId = usize;

/// The dependence of a consumer dimension on a producer, after scaling and alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dep {
    /// Producer position minus consumer position lies in `min..=max` (common space).
    Constant {
        /// The smallest offset.
        min: i64,
        /// The largest offset.
        max: i64,
    },
    /// No scaling and alignment makes the dependence constant.
    NonConstant,
}

impl Dep {
    /// The pointwise dependence (offset 0).
    pub const ZERO: Dep = Dep::Constant { min: 0, max: 0 };

    /// A stencil dependence `min..=max` (unit scales).
    pub fn stencil(min: i64, max: i64) -> Dep {
        Dep::Constant { min, max }
    }

    /// Whether the dependence is constant.
    pub fn is_constant(&self) -> bool {
        matches!(self, Dep::Constant { .. })
    }
}

/// A read along one dimension: the consumer point `x` reads the producer points
/// `floor(factor · x / divisor) + k` for `k` in `min_offset..=max_offset`.
///
/// A stencil is `factor = divisor = 1`; down-sampling (`p(2x + k)`) is `factor = 2`;
/// up-sampling (`p(x / 2 + k)`, floor division) is `divisor = 2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Multiplier of the consumer index (positive).
    pub factor: i64,
    /// Divisor of the product (positive, floor division).
    pub divisor: i64,
    /// Smallest constant offset.
    pub min_offset: i64,
    /// Largest constant offset.
    pub max_offset: i64,
}

impl Access {
    /// The stencil read `p(x + min ..= x + max)`.
    pub fn stencil(min_offset: i64, max_offset: i64) -> Access {
        Access {
            factor: 1,
            divisor: 1,
            min_offset,
            max_offset,
        }
    }

    /// The dependence of this read in the common space, when the consumer dimension has
    /// scale `consumer_scale` and the producer dimension `producer_scale`.
    ///
    /// The producer position is `s_p = ps · (floor(a·x / q) + k)` and the consumer's
    /// `s_c = cs · x`. When `ps · a = cs · q`, `s_p − s_c = ps · k − ps · ((a·x) mod q) / q`,
    /// which lies in `[ps · k_min − floor(ps · (q − 1) / q), ps · k_max]`: constant. Any
    /// other pair of scales gives a distance that grows with `x`: `Dep::NonConstant`
    /// (also for non-positive factors or scales, and on overflow).
    pub fn dep(&self, consumer_scale: i64, producer_scale: i64) -> Dep {
        let (a, q, cs, ps) = (self.factor, self.divisor, consumer_scale, producer_scale);
        if a <= 0 || q <= 0 || cs <= 0 || ps <= 0 || self.min_offset > self.max_offset {
            return Dep::NonConstant;
        }
        let commensurate = match (ps.checked_mul(a), cs.checked_mul(q)) {
            (Some(l), Some(r)) => l == r,
            _ => false,
        };
        if !commensurate {
            return Dep::NonConstant;
        }
        let rounding = ps.checked_mul(q - 1).map(|v| v / q);
        match (
            ps.checked_mul(self.min_offset),
            ps.checked_mul(self.max_offset),
            rounding,
        ) {
            (Some(lo), Some(hi), Some(r)) => match lo.checked_sub(r) {
                Some(min) => Dep::Constant { min, max: hi },
                None => Dep::NonConstant,
            },
            _ => Dep::NonConstant,
        }
    }
}

/// A read of an array that no stage of the graph produces (an input image), used for
/// the live-in size of a tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputRead {
    /// The array's name; reads of one name by several stages of a group share data.
    pub array: String,
    /// Bytes per element.
    pub elem_size: i64,
    /// Per consumer dimension, the read in the common space (as an edge's [`Dep`]); a
    /// non-constant read counts the whole span of the group in that dimension.
    pub deps: Vec<Dep>,
    /// Per consumer dimension, the array's scale (positions per element) in the common
    /// space.
    pub scales: Vec<i64>,
}

impl InputRead {
    /// A read of `array` (4-byte elements, unit scales).
    pub fn new(array: &str, deps: Vec<Dep>) -> InputRead {
        let scales = vec![1; deps.len()];
        InputRead {
            array: array.to_string(),
            elem_size: 4,
            deps,
            scales,
        }
    }
}

/// One stage (a PolyMage `Function`) with concrete sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The stage's name (unique in the graph).
    pub name: String,
    /// Per own dimension, the number of points (a parameter estimate).
    pub extents: Vec<i64>,
    /// Per own dimension, the common dimension it is aligned with (a permutation).
    pub align: Vec<usize>,
    /// Per own dimension, the scale: point `x` sits at `scale · x` in the common space.
    pub scales: Vec<i64>,
    /// Bytes per element of the stage's output.
    pub elem_size: i64,
    /// Whether the stage's output is an output of the pipeline.
    pub live_out: bool,
    /// Whether every read the stage makes (of stages and of inputs) is at its own point
    /// after alignment (`Ixx = Ix · Ix`).
    pub pointwise: bool,
    /// Whether the stage has branches, each producing the values of one pointwise
    /// consumer, with non-overlapping references (case (iii) of expression inlining).
    pub disjoint_branches: bool,
    /// Per own dimension, a reuse score (temporal and spatial, self and group) for the
    /// tile-size model; larger means more reuse along that dimension.
    pub reuse: Vec<i64>,
    /// Reads of arrays that no stage produces.
    pub inputs: Vec<InputRead>,
}

impl Stage {
    /// A stage with the given extents, aligned with the common space at unit scales,
    /// 4-byte elements, reuse 1 along every dimension, not live-out, not pointwise.
    pub fn new(name: &str, extents: Vec<i64>) -> Stage {
        let n = extents.len();
        Stage {
            name: name.to_string(),
            align: (0..n).collect(),
            scales: vec![1; n],
            elem_size: 4,
            live_out: false,
            pointwise: false,
            disjoint_branches: false,
            reuse: vec![1; n],
            inputs: Vec::new(),
            extents,
        }
    }

    /// The stage, marked live-out.
    pub fn live_out(mut self) -> Stage {
        self.live_out = true;
        self
    }

    /// The stage, marked pointwise.
    pub fn pointwise(mut self) -> Stage {
        self.pointwise = true;
        self
    }

    /// The stage with its reuse scores.
    pub fn with_reuse(mut self, reuse: Vec<i64>) -> Stage {
        self.reuse = reuse;
        self
    }

    /// The stage with its element size in bytes.
    pub fn with_elem_size(mut self, bytes: i64) -> Stage {
        self.elem_size = bytes;
        self
    }

    /// The stage with its alignment and scales.
    pub fn with_alignment(mut self, align: Vec<usize>, scales: Vec<i64>) -> Stage {
        self.align = align;
        self.scales = scales;
        self
    }

    /// The stage with one more input read.
    pub fn reading(mut self, input: InputRead) -> Stage {
        self.inputs.push(input);
        self
    }

    /// The own dimension placed on common dimension `d`.
    pub(crate) fn own_dim(&self, d: usize) -> usize {
        self.align.iter().position(|&c| c == d).unwrap_or(d)
    }

    /// The stage's span along common dimension `d`: extent times scale.
    pub(crate) fn span(&self, d: usize) -> i64 {
        let k = self.own_dim(d);
        self.extents[k].saturating_mul(self.scales[k])
    }

    /// The scale along common dimension `d`.
    pub(crate) fn scale(&self, d: usize) -> i64 {
        self.scales[self.own_dim(d)]
    }

    /// The reuse score along common dimension `d`.
    pub(crate) fn reuse_at(&self, d: usize) -> i64 {
        self.reuse[self.own_dim(d)]
    }
}

/// A producer→consumer edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The producing stage.
    pub producer: StageId,
    /// The consuming stage.
    pub consumer: StageId,
    /// Per consumer dimension, the dependence in the common space.
    pub deps: Vec<Dep>,
    /// The number of read references the consumer's definition makes to the producer
    /// (`Sxy * Sxy` is 2); expression inlining multiplies them.
    pub references: u32,
}

impl Edge {
    /// An edge with one reference.
    pub fn new(producer: StageId, consumer: StageId, deps: Vec<Dep>) -> Edge {
        Edge {
            producer,
            consumer,
            deps,
            references: 1,
        }
    }

    /// The edge with its reference count.
    pub fn with_references(mut self, references: u32) -> Edge {
        self.references = references;
        self
    }

    /// Whether every dependence of the edge is constant.
    pub fn is_constant(&self) -> bool {
        self.deps.iter().all(Dep::is_constant)
    }

    /// Whether every dependence of the edge is the zero offset.
    pub fn is_pointwise(&self) -> bool {
        self.deps.iter().all(|d| *d == Dep::ZERO)
    }
}

/// An error of the grouping module: invalid input, or a search over its limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The graph has no dimensions.
    NoDimensions,
    /// The graph has no stages.
    NoStages,
    /// A stage index out of range.
    UnknownStage {
        /// The index.
        index: usize,
    },
    /// No stage has this name.
    UnknownName {
        /// The name.
        name: String,
    },
    /// Two stages share a name.
    DuplicateName {
        /// The name.
        name: String,
    },
    /// A per-dimension list of a stage, an edge or a read has the wrong length.
    DimensionMismatch {
        /// The stage concerned (the consumer for an edge).
        stage: String,
        /// What the list holds.
        what: &'static str,
        /// The graph's number of dimensions.
        expected: usize,
        /// The list's length.
        found: usize,
    },
    /// A value that must be positive (extent, scale, element size) or non-negative
    /// (reuse) is not.
    InvalidValue {
        /// The stage concerned.
        stage: String,
        /// What the value is.
        what: &'static str,
        /// The value.
        value: i64,
    },
    /// A stage's alignment is not a permutation of the common dimensions.
    InvalidAlignment {
        /// The stage.
        stage: String,
    },
    /// A constant dependence with `min > max`.
    InvalidDep {
        /// The consumer.
        stage: String,
    },
    /// An edge from a stage to itself.
    SelfEdge {
        /// The stage.
        stage: String,
    },
    /// The edge would close a cycle.
    Cycle {
        /// The producer.
        producer: String,
        /// The consumer.
        consumer: String,
    },
    /// A group-size limit or a machine parameter is not positive.
    InvalidParameter {
        /// The parameter.
        what: &'static str,
    },
    /// A proposed grouping is not valid.
    InvalidGrouping {
        /// Why.
        reason: GroupingFault,
    },
    /// The search created more memo states than allowed.
    StateLimit {
        /// The limit.
        limit: usize,
    },
    /// The search made more recursive steps than allowed.
    StepLimit {
        /// The limit.
        limit: u64,
    },
}

/// Why a grouping is not valid (see [`check_grouping`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupingFault {
    /// A stage is in no group.
    Missing(StageId),
    /// A stage is in two groups (or twice in one).
    Repeated(StageId),
    /// A stage index out of range.
    Unknown(StageId),
    /// A group is empty.
    Empty,
    /// A group is not connected (see [`check_grouping`]).
    Disconnected(usize),
    /// The groups depend on each other in a cycle.
    Cyclic,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDimensions => write!(f, "the stage graph has no dimensions"),
            Error::NoStages => write!(f, "the stage graph has no stages"),
            Error::UnknownStage { index } => write!(f, "no stage with index {index}"),
            Error::UnknownName { name } => write!(f, "no stage named `{name}`"),
            Error::DuplicateName { name } => write!(f, "two stages are named `{name}`"),
            Error::DimensionMismatch {
                stage,
                what,
                expected,
                found,
            } => write!(
                f,
                "stage `{stage}`: {what} has {found} entries, the graph {expected} dimensions"
            ),
            Error::InvalidValue { stage, what, value } => {
                write!(f, "stage `{stage}`: invalid {what} {value}")
            }
            Error::InvalidAlignment { stage } => write!(
                f,
                "stage `{stage}`: the alignment is not a permutation of the dimensions"
            ),
            Error::InvalidDep { stage } => {
                write!(f, "stage `{stage}`: a dependence has min > max")
            }
            Error::SelfEdge { stage } => write!(f, "stage `{stage}` reads itself"),
            Error::Cycle { producer, consumer } => {
                write!(f, "the edge `{producer}` -> `{consumer}` closes a cycle")
            }
            Error::InvalidParameter { what } => write!(f, "invalid parameter: {what}"),
            Error::InvalidGrouping { reason } => write!(f, "invalid grouping: {reason:?}"),
            Error::StateLimit { limit } => {
                write!(f, "the grouping search exceeded {limit} memo states")
            }
            Error::StepLimit { limit } => {
                write!(f, "the grouping search exceeded {limit} steps")
            }
        }
    }
}

impl std::error::Error for Error {}

/// The result type of the grouping module.
pub type Result<T> = std::result::Result<T, Error>;

/// A pipeline DAG of stages (see the module docs for the invariants).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageGraph {
    n_dims: usize,
    stages: Vec<Stage>,
    edges: Vec<Edge>,
}

impl StageGraph {
    /// An empty graph whose stages have `n_dims` dimensions.
    pub fn new(n_dims: usize) -> Result<StageGraph> {
        if n_dims == 0 {
            return Err(Error::NoDimensions);
        }
        Ok(StageGraph {
            n_dims,
            stages: Vec::new(),
            edges: Vec::new(),
        })
    }

    /// The number of dimensions of every stage.
    pub fn n_dims(&self) -> usize {
        self.n_dims
    }

    /// The number of stages.
    pub fn n_stages(&self) -> usize {
        self.stages.len()
    }

    /// The stages, by index.
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// The stage with index `id`.
    pub fn stage(&self, id: StageId) -> Result<&Stage> {
        self.stages.get(id).ok_or(Error::UnknownStage { index: id })
    }

    /// The edges, in insertion order.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The index of the stage named `name`.
    pub fn find(&self, name: &str) -> Option<StageId> {
        self.stages.iter().position(|s| s.name == name)
    }

    /// Adds a stage after checking it; returns its index.
    pub fn add_stage(&mut self, stage: Stage) -> Result<StageId> {
        self.check_stage(&stage)?;
        if self.find(&stage.name).is_some() {
            return Err(Error::DuplicateName { name: stage.name });
        }
        self.stages.push(stage);
        Ok(self.stages.len() - 1)
    }

    /// Adds an edge after checking it (existing distinct stages, one dependence per
    /// consumer dimension, `min ≤ max`, no cycle).
    pub fn add_edge(&mut self, edge: Edge) -> Result<()> {
        let producer = self.stage(edge.producer)?.name.clone();
        let consumer = self.stage(edge.consumer)?.name.clone();
        if edge.producer == edge.consumer {
            return Err(Error::SelfEdge { stage: producer });
        }
        self.check_deps(&consumer, "the edge's dependences", &edge.deps)?;
        if self.reaches(edge.consumer, edge.producer) {
            return Err(Error::Cycle { producer, consumer });
        }
        self.edges.push(edge);
        Ok(())
    }

    /// Adds the edge `producer → consumer` by stage names, one reference.
    pub fn connect(&mut self, producer: &str, consumer: &str, deps: Vec<Dep>) -> Result<()> {
        let unknown = |name: &str| Error::UnknownName {
            name: name.to_string(),
        };
        let p = self.find(producer).ok_or_else(|| unknown(producer))?;
        let c = self.find(consumer).ok_or_else(|| unknown(consumer))?;
        self.add_edge(Edge::new(p, c, deps))
    }

    fn check_stage(&self, stage: &Stage) -> Result<()> {
        let n = self.n_dims;
        let name = &stage.name;
        let lists = [
            ("the extents", stage.extents.len()),
            ("the alignment", stage.align.len()),
            ("the scales", stage.scales.len()),
            ("the reuse scores", stage.reuse.len()),
        ];
        for (what, found) in lists {
            if found != n {
                return Err(Error::DimensionMismatch {
                    stage: name.clone(),
                    what,
                    expected: n,
                    found,
                });
            }
        }
        let invalid = |what, value| Error::InvalidValue {
            stage: name.clone(),
            what,
            value,
        };
        for &e in &stage.extents {
            if e <= 0 {
                return Err(invalid("extent", e));
            }
        }
        for &s in &stage.scales {
            if s <= 0 {
                return Err(invalid("scale", s));
            }
        }
        for &r in &stage.reuse {
            if r < 0 {
                return Err(invalid("reuse score", r));
            }
        }
        if stage.elem_size <= 0 {
            return Err(invalid("element size", stage.elem_size));
        }
        let aligned: BTreeSet<usize> = stage.align.iter().copied().collect();
        if aligned.len() != n || aligned.iter().any(|&d| d >= n) {
            return Err(Error::InvalidAlignment {
                stage: name.clone(),
            });
        }
        for input in &stage.inputs {
            self.check_deps(name, "an input read's dependences", &input.deps)?;
            if input.scales.len() != n {
                return Err(Error::DimensionMismatch {
                    stage: name.clone(),
                    what: "an input read's scales",
                    expected: n,
                    found: input.scales.len(),
                });
            }
            if let Some(&s) = input.scales.iter().find(|&&s| s <= 0) {
                return Err(invalid("input scale", s));
            }
            if input.elem_size <= 0 {
                return Err(invalid("input element size", input.elem_size));
            }
        }
        Ok(())
    }

    fn check_deps(&self, stage: &str, what: &'static str, deps: &[Dep]) -> Result<()> {
        if deps.len() != self.n_dims {
            return Err(Error::DimensionMismatch {
                stage: stage.to_string(),
                what,
                expected: self.n_dims,
                found: deps.len(),
            });
        }
        if deps
            .iter()
            .any(|d| matches!(d, Dep::Constant { min, max } if min > max))
        {
            return Err(Error::InvalidDep {
                stage: stage.to_string(),
            });
        }
        Ok(())
    }

    /// Whether `to` is reachable from `from` along edges (a stage reaches itself).
    pub fn reaches(&self, from: StageId, to: StageId) -> bool {
        let mut seen = vec![false; self.stages.len()];
        let mut stack = vec![from];
        while let Some(v) = stack.pop() {
            if v == to {
                return true;
            }
            if std::mem::replace(&mut seen[v], true) {
                continue;
            }
            stack.extend(
                self.edges
                    .iter()
                    .filter(|e| e.producer == v)
                    .map(|e| e.consumer),
            );
        }
        false
    }

    /// The distinct producers of `id`, sorted.
    pub fn producers(&self, id: StageId) -> Vec<StageId> {
        let set: BTreeSet<StageId> = self
            .edges
            .iter()
            .filter(|e| e.consumer == id)
            .map(|e| e.producer)
            .collect();
        set.into_iter().collect()
    }

    /// The distinct consumers of `id`, sorted.
    pub fn consumers(&self, id: StageId) -> Vec<StageId> {
        let set: BTreeSet<StageId> = self
            .edges
            .iter()
            .filter(|e| e.producer == id)
            .map(|e| e.consumer)
            .collect();
        set.into_iter().collect()
    }

    /// The stages in a topological order (Kahn's algorithm, smallest index first).
    pub fn topological_order(&self) -> Vec<StageId> {
        let n = self.stages.len();
        let mut indegree = vec![0usize; n];
        for e in &self.edges {
            indegree[e.consumer] += 1;
        }
        let mut ready: BTreeSet<StageId> = (0..n).filter(|&v| indegree[v] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(v) = ready.pop_first() {
            order.push(v);
            for e in self.edges.iter().filter(|e| e.producer == v) {
                indegree[e.consumer] -= 1;
                if indegree[e.consumer] == 0 {
                    ready.insert(e.consumer);
                }
            }
        }
        order
    }

    /// Whether `id` is live-out of `group`: marked live-out, or read by a stage outside
    /// the group.
    pub fn is_live_out_of(&self, id: StageId, group: &[StageId]) -> bool {
        self.stages[id].live_out
            || self
                .edges
                .iter()
                .any(|e| e.producer == id && !group.contains(&e.consumer))
    }
}

/// Checks that `groups` is a valid grouping of `graph`: every stage in exactly one
/// group, each group connected, and the graph of groups acyclic.
///
/// A group is *connected* when its stages are connected by the graph's edges between
/// them together with links between stages that read a common producer or a common
/// input array (the siblings a frontier block of the grouping search joins).
pub fn check_grouping(graph: &StageGraph, groups: &[Vec<StageId>]) -> Result<()> {
    let fault = |reason| Err(Error::InvalidGrouping { reason });
    let n = graph.n_stages();
    let mut owner = vec![usize::MAX; n];
    for (g, group) in groups.iter().enumerate() {
        if group.is_empty() {
            return fault(GroupingFault::Empty);
        }
        for &s in group {
            if s >= n {
                return fault(GroupingFault::Unknown(s));
            }
            if owner[s] != usize::MAX {
                return fault(GroupingFault::Repeated(s));
            }
            owner[s] = g;
        }
    }
    if let Some(s) = owner.iter().position(|&o| o == usize::MAX) {
        return fault(GroupingFault::Missing(s));
    }
    for (g, group) in groups.iter().enumerate() {
        if !is_connected(graph, group) {
            return fault(GroupingFault::Disconnected(g));
        }
    }
    // The quotient graph is acyclic iff Kahn's algorithm orders every group.
    let k = groups.len();
    let mut quotient: BTreeSet<(usize, usize)> = BTreeSet::new();
    for e in graph.edges() {
        let (a, b) = (owner[e.producer], owner[e.consumer]);
        if a != b {
            quotient.insert((a, b));
        }
    }
    let mut indegree = vec![0usize; k];
    for &(_, b) in &quotient {
        indegree[b] += 1;
    }
    let mut ready: Vec<usize> = (0..k).filter(|&g| indegree[g] == 0).collect();
    let mut ordered = 0;
    while let Some(g) = ready.pop() {
        ordered += 1;
        for &(a, b) in &quotient {
            if a == g {
                indegree[b] -= 1;
                if indegree[b] == 0 {
                    ready.push(b);
                }
            }
        }
    }
    if ordered != k {
        return fault(GroupingFault::Cyclic);
    }
    Ok(())
}

/// Whether two stages read a common producer or a common input array.
pub(crate) fn are_siblings(graph: &StageGraph, a: StageId, b: StageId) -> bool {
    let pa = graph.producers(a);
    if graph.producers(b).iter().any(|p| pa.contains(p)) {
        return true;
    }
    let sa = &graph.stages()[a].inputs;
    graph.stages()[b]
        .inputs
        .iter()
        .any(|r| sa.iter().any(|q| q.array == r.array))
}

fn is_connected(graph: &StageGraph, group: &[StageId]) -> bool {
    let linked =
        |a: StageId, b: StageId| {
            graph.edges().iter().any(|e| {
                (e.producer == a && e.consumer == b) || (e.producer == b && e.consumer == a)
            }) || are_siblings(graph, a, b)
        };
    let mut reached = vec![group[0]];
    let mut frontier = vec![group[0]];
    while let Some(v) = frontier.pop() {
        for &w in group {
            if !reached.contains(&w) && linked(v, w) {
                reached.push(w);
                frontier.push(w);
            }
        }
    }
    reached.len() == group.len()
}
