//! The report of an optimizer run: every decision as data ([`Report`], one
//! [`RegionReport`] per `#pragma scop` region, each with its [`ScopReport`]), and its
//! `Display`, the text `pollen opt --explain` prints.
//!
//! The decisions are enums and structs, not text, so that a search over schedules or a
//! graphical front end can read them: the tile sizes and where they came from
//! ([`TileSizes`]), the cost figures compared for the fusion choice
//! ([`FusionDecision`]) and for the profitability check ([`Profitability`]), the
//! fallback used ([`Fallback`]), the loops with their pragmas ([`LoopLine`]) and the
//! iterator type ([`IteratorType`]).

use std::fmt;
use std::ops::Range;

use pollen_codegen::Ast;
use pollen_deps::{DepKind, Dependences};
use pollen_scop::{ScheduleTree, Scop};
use pollen_transform::profit::Cost;

use crate::options::{Algorithm, Fusion, Target};

/// The report of [`crate::optimize_source`]: one entry per region, in file order.
#[derive(Clone, Debug)]
pub struct Report {
    /// The name of the source (a file path) used in the explanation; the library leaves
    /// it `None`, a caller that knows the name sets it.
    pub name: Option<String>,
    /// The regions, in the order of the file.
    pub regions: Vec<RegionReport>,
}

/// What happened to one `#pragma scop` region.
#[derive(Clone, Debug)]
pub struct RegionReport {
    /// The region's index in the file, from 0.
    pub index: usize,
    /// The 1-based line of its `#pragma scop`.
    pub line: usize,
    /// The byte range of the source that the generated code replaced.
    pub range: Range<usize>,
    /// The decisions of the optimizer on the region's scop.
    pub scop: ScopReport,
    /// The C type of the generated iterators.
    pub iterator_type: IteratorType,
}

/// The decisions of [`crate::optimize_scop`] on one scop, in pipeline order.
#[derive(Clone, Debug)]
pub struct ScopReport {
    /// The extracted statements, parameters and arrays.
    pub summary: ScopSummary,
    /// The value-based dependence relations (kind, statements, array).
    pub dependences: Vec<DependenceSummary>,
    /// The scheduling algorithm used.
    pub algorithm: Algorithm,
    /// The fusion policy asked for.
    pub fusion: Fusion,
    /// The tile sizes and where they came from ([`TileSizes::Off`] without tiling).
    pub tile_sizes: TileSizes,
    /// The scheduler's tree under the fusion policy asked for, before tiling; or the
    /// caller's tree, its parallel loops marked, when [`ScopReport::schedule_given`].
    pub schedule: ScheduleTree,
    /// Whether the schedule was given by the caller
    /// ([`optimize_scop_scheduled`](crate::optimize_scop_scheduled)) rather than computed.
    pub schedule_given: bool,
    /// Whether the schedule is AKG's conservative clustering of the loop nests
    /// ([`Strategy::Akg`](crate::Strategy::Akg)) rather than the scheduler's.
    pub clustered: bool,
    /// The steps of the scheduler's fallback ladder that this tree took (components
    /// cut apart, signed coefficients, dimensions of the original schedule), in order.
    pub scheduler_fallbacks: Vec<pollen_sched::Fallback>,
    /// That tree tiled (with tiling on).
    pub tiled: Option<ScheduleTree>,
    /// The comparison of smart fusion with no fusion (with [`Fusion::Smart`] only).
    pub fusion_decision: Option<FusionDecision>,
    /// The profitability check of the optimized schedule against the original order.
    pub profitability: Profitability,
    /// Which schedule was kept in the end.
    pub fallback: Fallback,
    /// The generated loops with their pragmas, one line per loop, branch and
    /// statement call.
    pub loops: Vec<LoopLine>,
    /// The GPU targets' injection and mapping (`None` for C).
    pub gpu: Option<GpuReport>,
    /// The fused program of [`Strategy::Basteln`](crate::Strategy::Basteln): its groups,
    /// tile sizes, extensions and scratchpads (`None` for the other strategies). Its
    /// scop, not the region's, is the one the loops execute.
    pub fused: Option<pollen_transform::fused::Fused>,
    /// [`Strategy::Polymage`](crate::Strategy::Polymage)'s grouping: the groups the
    /// model chose, with their costs and tiles (`None` for the other strategies).
    pub grouping: Option<pollen_transform::grouping::Plan>,
    /// The statements split by residues before optimization
    /// ([`Options::residue_split`](crate::Options::residue_split)).
    pub residues: Vec<pollen_transform::residues::Split>,
    /// The scalars made into arrays before optimization
    /// ([`Options::scalar_expansion`](crate::Options::scalar_expansion)).
    pub expansions: Vec<pollen_transform::expand::Expansion>,
}

/// The statements, parameters and arrays of a scop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopSummary {
    /// The statements, in textual order.
    pub statements: Vec<StatementSummary>,
    /// The parameters.
    pub params: Vec<String>,
    /// The arrays' names.
    pub arrays: Vec<String>,
}

/// One statement of a scop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementSummary {
    /// Its name (`S0`, ...).
    pub name: String,
    /// Its iterators, outermost first.
    pub iterators: Vec<String>,
    /// Its C text.
    pub body: String,
}

/// One dependence relation, without the relation itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DependenceSummary {
    /// Flow, anti or output.
    pub kind: DepKind,
    /// The source statement.
    pub source: String,
    /// The target statement.
    pub target: String,
    /// The array.
    pub array: String,
}

/// The tile sizes and where they came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TileSizes {
    /// No tiling.
    Off,
    /// The sizes given in the options.
    Given(Vec<i64>),
    /// Sizes from the cache model.
    FromCache {
        /// The L1 data cache, in bytes.
        l1_bytes: u64,
        /// The L2 cache, in bytes.
        l2_bytes: u64,
        /// The largest array element, in bytes.
        element_bytes: u64,
        /// `(band members, size of each)` for bands of 2, 3 and 4 members.
        by_depth: Vec<(usize, i64)>,
        /// The same for triangular bands (a member's range depends on another's).
        triangular_by_depth: Vec<(usize, i64)>,
    },
    /// The GPU targets' size for every band member ([`crate::GpuOptions::tile_size`]).
    Gpu(i64),
}

/// What the GPU targets did on top of the common stages: the constraint injection that
/// steered the scheduler, and the mapping of the loops to blocks and threads.
#[derive(Clone, Debug)]
pub struct GpuReport {
    /// The target language.
    pub target: Target,
    /// The per-statement scenarios of the injection's cost model (innermost loops
    /// wanted, with their costs); empty without injection.
    pub scenarios: Vec<pollen_sched::inject::gpu::Scenario>,
    /// The constraint tree given to the scheduler (with injection on).
    pub constraint_tree: Option<pollen_sched::ConstraintTree>,
    /// The tree as printed with the statements' iterator names.
    pub constraint_tree_text: Option<String>,
    /// What the injection did: the node that held (or the plain schedule), and the
    /// rungs of its fallback ladder.
    pub injection: Option<pollen_sched::inject::InjectionReport>,
    /// The mapped program: host control, kernels, device arrays and transfers.
    pub program: pollen_gpu::GpuProgram,
}

/// Which of two schedules was kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The first one named (smart fusion; the optimized schedule).
    Optimized,
    /// The alternative (no fusion; the original order).
    Alternative,
}

/// The comparison of smart fusion with no fusion by the cost model: smart fusion is
/// dropped where it leaves innermost loops striding through memory where distributing
/// the components would not.
#[derive(Clone, Debug)]
pub struct FusionDecision {
    /// The cost of the smart-fusion schedule (tiled when tiling).
    pub smart: Cost,
    /// The cost of the schedule without fusion (tiled when tiling).
    pub no_fusion: Cost,
    /// [`Choice::Optimized`]: smart fusion kept; [`Choice::Alternative`]: no fusion.
    pub kept: Choice,
    /// The schedule without fusion (tiled when tiling).
    pub no_fusion_schedule: ScheduleTree,
}

/// The profitability check: the original loop order with its parallel loops marked is
/// kept where tiling (for locality) cost vectorisable innermost loops it had.
#[derive(Clone, Debug)]
pub enum Profitability {
    /// Turned off in the options (`--always-transform`).
    Disabled,
    /// No band was tiled: there is no locality to trade, the schedule's own parallelism
    /// is kept.
    NothingTiled,
    /// The parallel loops of the original order could not be computed; the optimized
    /// schedule is kept.
    OriginalUnavailable,
    /// The strategy does not compare with the original order
    /// ([`Strategy::Basteln`](crate::Strategy::Basteln)).
    NotApplicable,
    /// The two schedules were compared.
    Compared {
        /// The cost of the original order with its parallel loops.
        original: Cost,
        /// The cost of the optimized schedule.
        optimized: Cost,
        /// [`Choice::Alternative`] when the original order was kept.
        kept: Choice,
        /// The original order with its parallel loops.
        original_schedule: Box<ScheduleTree>,
    },
}

/// Which schedule the generated code follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// The scheduler's, under the fusion policy asked for (tiled when tiling).
    None,
    /// The schedule without fusion, smart fusion being dropped by the cost model.
    NoFusion,
    /// The original loop order with its parallel loops marked (profitability check).
    OriginalOrder,
}

/// One line of the loop outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopLine {
    /// The nesting depth, from 0.
    pub depth: usize,
    /// What the line is.
    pub item: LoopItem,
}

/// A loop, a branch or a statement call of the generated code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopItem {
    /// A loop with its iterator and the pragma or mark it gets.
    For {
        /// The iterator (`c0`, ...).
        iterator: String,
        /// Its mark.
        mark: LoopMark,
    },
    /// The then-branch of a condition.
    If,
    /// The else-branch of a condition.
    Else,
    /// A statement instance.
    Statement(String),
}

/// How a loop is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopMark {
    /// Sequential.
    None,
    /// `#pragma omp parallel for`: the outermost parallel loop of its nest.
    OmpParallelFor,
    /// Vectorisable (the vectorisation pragma of the options).
    Simd,
    /// Parallel, inside a parallel loop or with parallelism off.
    Parallel,
}

/// The C type of the generated iterators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IteratorType {
    /// `int`.
    Int,
    /// `long`: a declaration before the region's end gives an iterator or a parameter a
    /// type wider than `int`.
    Long,
}

impl IteratorType {
    /// The C type's name.
    pub fn c_name(self) -> &'static str {
        match self {
            IteratorType::Int => "int",
            IteratorType::Long => "long",
        }
    }
}

impl ScopSummary {
    /// The summary of `scop`.
    pub fn of(scop: &Scop) -> ScopSummary {
        ScopSummary {
            statements: scop
                .statements
                .iter()
                .map(|s| StatementSummary {
                    name: s.name.clone(),
                    iterators: s.iterators.clone(),
                    body: s.body.clone(),
                })
                .collect(),
            params: scop.params.clone(),
            arrays: scop.arrays.iter().map(|a| a.name.clone()).collect(),
        }
    }
}

impl DependenceSummary {
    /// The summaries of `deps`, in their order.
    pub fn of(deps: &Dependences) -> Vec<DependenceSummary> {
        deps.iter()
            .map(|d| DependenceSummary {
                kind: d.kind,
                source: d.source.clone(),
                target: d.target.clone(),
                array: d.array.clone(),
            })
            .collect()
    }
}

impl ScopReport {
    /// The number of dependence relations of `kind`.
    pub fn dependence_count(&self, kind: DepKind) -> usize {
        self.dependences.iter().filter(|d| d.kind == kind).count()
    }

    /// Writes the explanation, its first line naming the scop `heading`.
    fn explain(&self, f: &mut fmt::Formatter<'_>, heading: &str) -> fmt::Result {
        self.explain_scop(f, heading)?;
        for split in &self.residues {
            let by: Vec<String> = split
                .moduli
                .iter()
                .filter(|(_, m)| *m > 1)
                .map(|(i, m)| format!("{i} mod {m}"))
                .collect();
            let pieces: Vec<&str> = split.pieces.iter().map(|(p, _)| p.as_str()).collect();
            writeln!(
                f,
                "residues: {} split by {} into {}",
                split.statement,
                by.join(", "),
                pieces.join(", ")
            )?;
        }
        for e in &self.expansions {
            write!(
                f,
                "expansion: {} in {} became {}[{}]",
                e.variable,
                e.statements.join(", "),
                e.array,
                e.extent
            )?;
            match &e.copy_out {
                Some(copy) => writeln!(f, ", copied back by {copy}")?,
                None => writeln!(f)?,
            }
        }
        self.explain_deps(f)?;
        match &self.tile_sizes {
            TileSizes::Off => {}
            TileSizes::Given(sizes) => {
                writeln!(f, "tiling: sizes {sizes:?} (from --tile-sizes)")?;
            }
            TileSizes::FromCache {
                l1_bytes,
                l2_bytes,
                element_bytes,
                by_depth,
                triangular_by_depth,
            } => {
                let list = |sizes: &[(usize, i64)]| {
                    sizes
                        .iter()
                        .map(|(depth, size)| format!("{depth} members: {size}"))
                        .collect::<Vec<String>>()
                        .join(", ")
                };
                writeln!(
                    f,
                    "tiling: sizes from the caches (L1 {} KiB, L2 {} KiB; {element_bytes}-byte elements): {}; triangular bands {}",
                    l1_bytes >> 10,
                    l2_bytes >> 10,
                    list(by_depth),
                    list(triangular_by_depth)
                )?;
            }
            TileSizes::Gpu(size) => {
                writeln!(f, "tiling: size {size} for every band member (GPU target)")?;
            }
        }
        if let Some(gpu) = &self.gpu {
            gpu.explain_injection(f)?;
        }
        let title = if self.schedule_given {
            "schedule (given)".to_string()
        } else if self.clustered {
            "schedule (conservative clustering of the loop nests)".to_string()
        } else {
            format!(
                "schedule ({}, {} fusion)",
                self.algorithm.name(),
                self.fusion.name()
            )
        };
        write_tree(f, &title, &self.schedule)?;
        for fallback in &self.scheduler_fallbacks {
            writeln!(f, "scheduler fallback: {fallback}")?;
        }
        if let Some(plan) = &self.grouping {
            write!(f, "{plan}")?;
        }
        if let Some(fused) = &self.fused {
            write!(f, "{fused}")?;
            for s in &fused.scratch {
                let extents: Vec<String> = s.extents.iter().map(i64::to_string).collect();
                writeln!(
                    f,
                    "scratch {} {}[{}] holds {}'s window for {}",
                    s.element_type,
                    s.name,
                    extents.join("]["),
                    s.array,
                    s.statements.join(", ")
                )?;
            }
            write_tree(f, "fused schedule", &fused.tree)?;
        } else if let Some(tiled) = &self.tiled {
            write_tree(f, "tiled schedule", tiled)?;
        }
        if self.tile_sizes == TileSizes::Off {
            writeln!(f, "tiling: off")?;
        }
        if let Some(d) = &self.fusion_decision {
            let (fused, split) = (&d.smart, &d.no_fusion);
            if d.kept == Choice::Alternative {
                writeln!(
                    f,
                    "fusion: smart fusion gives {fused}, no fusion {split}: components not fused"
                )?;
                write_tree(
                    f,
                    "schedule without fusion (tiled when tiling)",
                    &d.no_fusion_schedule,
                )?;
            } else if fused != split {
                writeln!(
                    f,
                    "fusion: smart fusion gives {fused}, no fusion {split}: fused"
                )?;
            }
        }
        if let Profitability::Compared {
            original,
            optimized,
            kept: Choice::Alternative,
            original_schedule,
        } = &self.profitability
        {
            writeln!(
                f,
                "profitability: the original order gives {original}, the optimized schedule {optimized}: original order kept (--always-transform overrides)"
            )?;
            write_tree(
                f,
                "original schedule with parallel loops",
                original_schedule,
            )?;
        }
        writeln!(f, "loops:")?;
        for line in &self.loops {
            let indent = "  ".repeat(line.depth + 1);
            match &line.item {
                LoopItem::For { iterator, mark } => {
                    let mark = match mark {
                        LoopMark::None => "",
                        LoopMark::OmpParallelFor => " [omp parallel for]",
                        LoopMark::Simd => " [simd]",
                        LoopMark::Parallel => " [parallel]",
                    };
                    writeln!(f, "{indent}for {iterator}{mark}")?;
                }
                LoopItem::If => writeln!(f, "{indent}if")?,
                LoopItem::Else => writeln!(f, "{indent}else")?,
                LoopItem::Statement(name) => writeln!(f, "{indent}{name}")?,
            }
        }
        if let Some(gpu) = &self.gpu {
            writeln!(f, "gpu mapping ({}):", gpu.target.name())?;
            for line in gpu.program.to_string().lines() {
                writeln!(f, "  {line}")?;
            }
        }
        Ok(())
    }

    /// The `extract:` lines.
    fn explain_scop(&self, f: &mut fmt::Formatter<'_>, heading: &str) -> fmt::Result {
        let s = &self.summary;
        writeln!(
            f,
            "extract: {heading}: {} statement(s), parameters [{}], arrays [{}]",
            s.statements.len(),
            s.params.join(", "),
            s.arrays.join(", ")
        )?;
        for st in &s.statements {
            writeln!(
                f,
                "  {}[{}]: {}",
                st.name,
                st.iterators.join(", "),
                st.body.split_whitespace().collect::<Vec<_>>().join(" ")
            )?;
        }
        Ok(())
    }

    /// The `dependences` lines.
    fn explain_deps(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "dependences (value-based): {} relation(s): flow {}, anti {}, output {}",
            self.dependences.len(),
            self.dependence_count(DepKind::Flow),
            self.dependence_count(DepKind::Anti),
            self.dependence_count(DepKind::Output)
        )?;
        for d in &self.dependences {
            let kind = match d.kind {
                DepKind::Flow => "flow",
                DepKind::Anti => "anti",
                DepKind::Output => "output",
            };
            writeln!(
                f,
                "  {kind} {} -> {} through {}",
                d.source, d.target, d.array
            )?;
        }
        Ok(())
    }
}

/// A schedule tree under a title, indented.
fn write_tree(f: &mut fmt::Formatter<'_>, title: &str, tree: &ScheduleTree) -> fmt::Result {
    writeln!(f, "{title}:")?;
    for line in tree.to_string().lines() {
        writeln!(f, "  {line}")?;
    }
    Ok(())
}

/// The outline of `ast`: one line per loop, branch and statement call; with `parallel`,
/// the outermost parallel loop of each nest is the `omp parallel for`.
pub(crate) fn outline(ast: &Ast, parallel: bool) -> Vec<LoopLine> {
    let mut lines = Vec::new();
    outline_into(ast, 0, parallel, false, &mut lines);
    lines
}

fn outline_into(
    ast: &Ast,
    depth: usize,
    parallel: bool,
    in_parallel: bool,
    out: &mut Vec<LoopLine>,
) {
    let line = |item| LoopLine { depth, item };
    match ast {
        Ast::Block(children) => {
            for child in children {
                outline_into(child, depth, parallel, in_parallel, out);
            }
        }
        Ast::For(l) => {
            let omp = parallel && l.parallel && !in_parallel;
            let mark = if omp {
                LoopMark::OmpParallelFor
            } else if l.vectorizable {
                LoopMark::Simd
            } else if l.parallel {
                LoopMark::Parallel
            } else {
                LoopMark::None
            };
            out.push(line(LoopItem::For {
                iterator: l.iterator.clone(),
                mark,
            }));
            outline_into(&l.body, depth + 1, parallel, in_parallel || omp, out);
        }
        Ast::If {
            then, otherwise, ..
        } => {
            out.push(line(LoopItem::If));
            outline_into(then, depth + 1, parallel, in_parallel, out);
            if let Some(o) = otherwise {
                out.push(line(LoopItem::Else));
                outline_into(o, depth + 1, parallel, in_parallel, out);
            }
        }
        Ast::User { statement, .. } => out.push(line(LoopItem::Statement(statement.clone()))),
    }
}

impl GpuReport {
    /// The `injection` lines: the scenarios, the tree and the node that held.
    fn explain_injection(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(text) = &self.constraint_tree_text else {
            return writeln!(f, "injection: off (the plain scheduler)");
        };
        writeln!(f, "injection: scenarios (innermost loop last, with costs):")?;
        for scenario in &self.scenarios {
            writeln!(f, "  {scenario}")?;
        }
        let vector: Vec<String> = self
            .scenarios
            .iter()
            .filter_map(|s| {
                let k = s.vector_iterator()?;
                Some(format!("{} {}", s.statement, s.iterators.get(k)?))
            })
            .collect();
        if !vector.is_empty() {
            writeln!(
                f,
                "injection: vector-type loops (contiguous innermost picks): {}",
                vector.join(", ")
            )?;
        }
        writeln!(
            f,
            "injection: constraint tree (siblings in priority order):"
        )?;
        for line in text.lines() {
            writeln!(f, "  {line}")?;
        }
        match &self.injection {
            Some(report) => {
                match &report.held {
                    Some(path) => {
                        let path: Vec<String> = path.iter().map(usize::to_string).collect();
                        writeln!(f, "injection: node #{} held", path.join("."))?;
                    }
                    None => writeln!(f, "injection: no node held: the plain schedule")?,
                }
                for step in &report.steps {
                    writeln!(f, "injection ladder: {step}")?;
                }
            }
            None => writeln!(f, "injection: not run by this scheduler")?,
        }
        Ok(())
    }
}

impl fmt::Display for ScopReport {
    /// The explanation of one scop, as `pollen opt --explain` prints a region's, without
    /// the emission line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.explain(f, "scop")
    }
}

impl fmt::Display for Report {
    /// The text of `pollen opt --explain`: per region, the statements, the dependences,
    /// the tile sizes, the schedule trees, the fusion and profitability decisions that
    /// changed the schedule, the loops with their pragmas and the iterator type.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let several = self.regions.len() > 1;
        for region in &self.regions {
            let place = format!("region {} (line {})", region.index + 1, region.line);
            let heading = match &self.name {
                Some(name) if several => format!("{name}, {place}"),
                Some(name) => name.clone(),
                None => place,
            };
            region.scop.explain(f, &heading)?;
            writeln!(
                f,
                "emit: iterators of type {}",
                region.iterator_type.c_name()
            )?;
        }
        Ok(())
    }
}
