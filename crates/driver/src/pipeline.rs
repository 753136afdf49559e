//! The pipeline: [`optimize_scop`] from a scop to its final schedule tree and loop AST,
//! [`optimize_source`] from C text to optimized C text, every region of the file on its
//! own.
//!
//! The stages: value-based dependences (`pollen-deps`), a schedule (`pollen-sched`,
//! Pluto or Feautrier), tiling of its permutable bands with a wavefront over tiles where
//! no tile loop is parallel (`pollen-transform`), the cost model's two checks (smart
//! fusion against no fusion, the tiled schedule against the original order), loops
//! (`pollen-codegen`) and their text (`pollen-emit-c`).

use std::collections::BTreeSet;

use pollen_codegen::Ast;
use pollen_deps::{Analysis, Dependence};
use pollen_presburger::Budget;
use pollen_scop::{Node, ScheduleTree, Scop};
use pollen_transform::profit::{cost_with, Cost};
use pollen_transform::TileOptions;

use crate::error::{Error, Result, Stage};
use crate::options::{Algorithm, Fusion, Options, Strategy, Target, Tiling, Vectorize};
use crate::report::{
    outline, Choice, DependenceSummary, Fallback, FusionDecision, GpuReport, IteratorType,
    Profitability, RegionReport, Report, ScopReport, ScopSummary, TileSizes,
};

/// The optimized text of a C source and the report of every decision.
#[derive(Clone, Debug)]
pub struct Optimized {
    /// The source with every `#pragma scop` region replaced by its generated code;
    /// every byte outside the regions is kept.
    pub text: String,
    /// The decisions, one entry per region.
    pub report: Report,
}

/// The result of optimizing one scop.
#[derive(Clone, Debug)]
pub struct OptimizedScop {
    /// The final schedule tree (the one the loops follow).
    pub tree: ScheduleTree,
    /// The loops.
    pub ast: Ast,
    /// The decisions.
    pub report: ScopReport,
}

/// Optimizes every `#pragma scop` region of a C source text.
///
/// Each region is extracted with the declarations before it, optimized on its own
/// ([`optimize_scop`]) and printed in place of the region; the rest of the text is
/// kept byte for byte. A file without a region is an [`Error::Frontend`]; an error of a
/// later stage is an [`Error::Region`] naming the region.
pub fn optimize_source(source: &str, options: &Options) -> Result<Optimized> {
    optimize_source_scheduled(source, options, &|_, _| None)
}

/// The caller's choice of a region's schedule in [`optimize_source_scheduled`]: given
/// the region's index (from 0) and its scop, a tree and where its parallel flags come
/// from, or `None` for the scheduler's.
pub type ScheduleOf<'a> = dyn Fn(usize, &Scop) -> Option<(ScheduleTree, Coincidence)> + 'a;

/// [`optimize_source`] where `schedule(index, scop)` may give a region's schedule: a
/// region (numbered from 0 in the file) for which it returns a tree is optimized by
/// [`optimize_scop_scheduled`] with that tree and its [`Coincidence`], the others by
/// [`optimize_scop`]. This is
/// how an iterative search runs the pipeline with a schedule of its own choosing
/// (`pollen-search`).
pub fn optimize_source_scheduled(
    source: &str,
    options: &Options,
    schedule: &ScheduleOf<'_>,
) -> Result<Optimized> {
    let extracted = pollen_frontend::extract_all_with(source, &mut fresh_budget(options))
        .map_err(Error::Frontend)?;
    let mut regions = Vec::with_capacity(extracted.len());
    let mut edits = Vec::new();
    let mut header_placed = false;
    let several = extracted.len() > 1;
    for (index, region) in extracted.into_iter().enumerate() {
        let line = source[..region.region.start].matches('\n').count() + 1;
        let in_region = |error: Error| Error::Region {
            index,
            line,
            error: Box::new(error),
        };
        let (split, residues) = if options.residue_split {
            pollen_transform::residues::split_residues(
                &region.scop,
                &pollen_transform::residues::ResidueOptions::default(),
                &mut fresh_budget(options),
            )
            .map_err(|error| {
                in_region(Error::Transform {
                    stage: Stage::ResidueSplit,
                    error,
                })
            })?
        } else {
            (region.scop.clone(), Vec::new())
        };
        let (expanded, expansions) = if options.scalar_expansion
            && options.strategy == Strategy::Pluto
            && options.target == Target::C
        {
            let stage_error = |error| {
                in_region(Error::Transform {
                    stage: Stage::ScalarExpansion,
                    error,
                })
            };
            let (scalars, mut expansions) = pollen_transform::expand::expand_scalars(
                &split,
                &region.dead_after,
                &mut fresh_budget(options),
            )
            .map_err(stage_error)?;
            let (arrays, more) = pollen_transform::expand::expand_arrays(
                &scalars,
                &region.dead_after,
                &mut fresh_budget(options),
            )
            .map_err(stage_error)?;
            expansions.extend(more);
            (arrays, expansions)
        } else {
            (split, Vec::new())
        };
        let scop = &expanded;
        let mut optimized = match schedule(index, scop) {
            Some((tree, coincidence)) => optimize_scop_scheduled(scop, &tree, coincidence, options),
            None => optimize_scop(scop, options),
        }
        .map_err(in_region)?;
        optimized.report.residues = residues;
        optimized.report.expansions = expansions;
        if several {
            // Kernels of different regions must not share a name (CUDA defines them all
            // at file scope).
            if let Some(gpu) = &mut optimized.report.gpu {
                for kernel in &mut gpu.program.kernels {
                    kernel.name = format!("region{index}_{}", kernel.name);
                }
            }
        }
        let iterator_type = iterator_type(source, region.region.end, scop);
        let code = emit(
            source,
            &region.region,
            scop,
            &optimized,
            iterator_type,
            options,
        )
        .map_err(in_region)?;
        if let Some((at, text)) = code.header {
            // Once per file (the OpenCL header), where the first region asks for it.
            if !header_placed {
                header_placed = true;
                edits.push(Edit {
                    range: at..at,
                    text,
                    order: (index, 0),
                });
            }
        }
        if let Some((at, text)) = code.declarations {
            edits.push(Edit {
                range: at..at,
                text,
                order: (index, 1),
            });
        }
        edits.push(Edit {
            range: region.region.clone(),
            text: code.replacement,
            order: (index, 2),
        });
        regions.push(RegionReport {
            index,
            line,
            range: region.region,
            scop: optimized.report,
            iterator_type,
        });
    }
    // From the end of the file to its start, so that every range still refers to the
    // original text; of edits at one place, the later region's first, so that the
    // earlier region's text ends up before it.
    edits.sort_by(|a, b| {
        (b.range.start, b.range.end, b.order).cmp(&(a.range.start, a.range.end, a.order))
    });
    let mut text = source.to_string();
    for edit in edits {
        text.replace_range(edit.range, &edit.text);
    }
    Ok(Optimized {
        text,
        report: Report {
            name: None,
            regions,
        },
    })
}

/// A change of the source: `range` replaced by `text`.
struct Edit {
    range: std::ops::Range<usize>,
    text: String,
    /// The region and the kind of the edit (header, declarations, the region's code:
    /// of edits at one place, in this order).
    order: (usize, usize),
}

/// The code of one region: what replaces it, and for the GPU targets what goes before
/// the function that holds it and at the top of the file.
struct RegionCode {
    /// Lines the file needs once (the OpenCL header) and the offset they go at.
    header: Option<(usize, String)>,
    /// Declarations (helpers, CUDA kernels) and the offset of the source they go at.
    declarations: Option<(usize, String)>,
    /// The code in place of the region.
    replacement: String,
}

/// The code of one region in the target language.
fn emit(
    source: &str,
    region: &std::ops::Range<usize>,
    scop: &Scop,
    optimized: &OptimizedScop,
    iterator_type: IteratorType,
    options: &Options,
) -> Result<RegionCode> {
    match options.target {
        Target::C => {
            let emit_options = pollen_emit_c::EmitOptions {
                iterator_type: iterator_type.c_name().to_string(),
                openmp: options.parallel,
                vectorize: match options.vectorize {
                    Vectorize::OmpSimd => pollen_emit_c::Vectorize::OmpSimd,
                    Vectorize::Ivdep => pollen_emit_c::Vectorize::Ivdep,
                    Vectorize::None => pollen_emit_c::Vectorize::None,
                },
                banner: true,
                scalar_replacement: options.scalar_replacement,
                vector_registers: options.vector_registers,
                vector_bytes: options.vector_bytes,
                reassociate: options.reassociate,
                vector_math: options.vector_math,
                scratch: optimized
                    .report
                    .fused
                    .iter()
                    .flat_map(|f| &f.scratch)
                    .map(|s| pollen_emit_c::Scratch {
                        name: s.name.clone(),
                        element_type: s.element_type.clone(),
                        extents: s.extents.clone(),
                        statements: s.statements.clone(),
                        tile_args: s.tile_dims,
                    })
                    .collect(),
                relocations: optimized
                    .report
                    .fused
                    .iter()
                    .flat_map(|f| &f.relocations)
                    .map(|r| pollen_emit_c::Relocation {
                        statement: r.statement.clone(),
                        array: r.array.clone(),
                        window: r.window.clone(),
                        origin: r
                            .origin
                            .iter()
                            .map(|l| pollen_emit_c::linear_text(&l.constant, &l.terms))
                            .collect(),
                    })
                    .collect(),
            };
            // A fused program executes its own statements (copies of the region's).
            let executed = optimized.report.fused.as_ref().map_or(scop, |f| &f.scop);
            let replacement = pollen_emit_c::replacement_with(
                source,
                region.clone(),
                executed,
                &optimized.ast,
                &emit_options,
                &pollen_codegen::apart::ByDomains::default(),
            )
            .map_err(Error::Emission)?;
            Ok(RegionCode {
                header: None,
                declarations: None,
                replacement,
            })
        }
        Target::OpenCl | Target::Cuda => {
            let Some(gpu) = &optimized.report.gpu else {
                return Err(Error::GpuMapping(pollen_gpu::Error::InvalidProgram(
                    "the scop was not mapped to the GPU".to_string(),
                )));
            };
            let emit_options = pollen_emit_gpu::EmitOptions::default();
            let parts = if options.target == Target::OpenCl {
                pollen_emit_gpu::opencl_parts(
                    source,
                    region.clone(),
                    scop,
                    &gpu.program,
                    &emit_options,
                )
            } else {
                pollen_emit_gpu::cuda_parts(
                    source,
                    region.clone(),
                    scop,
                    &gpu.program,
                    &emit_options,
                )
            }
            .map_err(Error::GpuEmission)?;
            Ok(RegionCode {
                header: (!parts.header.is_empty())
                    .then_some((parts.header_insertion, parts.header)),
                declarations: Some((parts.insertion, parts.declarations)),
                replacement: parts.replacement,
            })
        }
    }
}

/// Optimizes a scop: dependences, schedule, tiling, the cost model's checks and code
/// generation; the result's tree is the schedule the loops follow.
pub fn optimize_scop(scop: &Scop, options: &Options) -> Result<OptimizedScop> {
    if options.target.is_gpu() {
        return optimize_scop_gpu(scop, options);
    }
    let deps = pollen_deps::analyze_with(scop, Analysis::ValueBased, &mut fresh_budget(options))
        .map_err(Error::Dependences)?;
    if matches!(
        options.strategy,
        Strategy::Basteln | Strategy::Polymage | Strategy::Akg
    ) {
        return optimize_scop_fused(scop, deps, options);
    }
    let deps_slice = deps.as_slice();
    let tile_sizes = tile_sizes(scop, options);

    // Smart fusion is compared with no fusion below; both schedules are independent, so
    // they are computed side by side.
    let (first, split) = if options.fusion == Fusion::Smart {
        let (first, split) = std::thread::scope(|scope| {
            let split = scope.spawn(|| schedule_and_tile(scop, deps_slice, options, Fusion::No));
            let first = schedule_and_tile(scop, deps_slice, options, Fusion::Smart);
            (first, split.join())
        });
        let split = split.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (first?, Some(split?))
    } else {
        (
            schedule_and_tile(scop, deps_slice, options, options.fusion)?,
            None,
        )
    };
    let mut tree = first.final_tree().clone();
    let mut tiled_any = first.tiled_any;
    let mut fallback = Fallback::None;

    // Smart fusion is kept only when it does not make innermost loops stride through
    // memory where distributing the components would not.
    let fusion_decision = if let Some(split) = split {
        let smart = model_cost(scop, &tree, options)?;
        let no_fusion = model_cost(scop, split.final_tree(), options)?;
        // Parallel loops first (a fused nest that runs on one core loses more than its
        // locality brings), then the innermost accesses.
        let prefer_split = no_fusion.parallelizes_more_than(&smart)
            || (!smart.parallelizes_more_than(&no_fusion) && no_fusion.is_better_than(&smart));
        let kept = if prefer_split {
            tree = split.final_tree().clone();
            tiled_any = split.tiled_any;
            fallback = Fallback::NoFusion;
            Choice::Alternative
        } else {
            Choice::Optimized
        };
        Some(FusionDecision {
            smart,
            no_fusion,
            kept,
            no_fusion_schedule: split.final_tree().clone(),
        })
    } else {
        None
    };

    let profitability = profitability_check(
        scop,
        deps_slice,
        &mut tree,
        tiled_any,
        &mut fallback,
        options,
    )?;

    let ast = generate_loops(scop, &tree, options)?;
    let report = ScopReport {
        summary: ScopSummary::of(scop),
        dependences: DependenceSummary::of(&deps),
        algorithm: options.algorithm,
        fusion: options.fusion,
        tile_sizes,
        schedule: first.schedule,
        schedule_given: false,
        clustered: false,
        scheduler_fallbacks: first.fallbacks,
        tiled: first.tiled,
        fusion_decision,
        profitability,
        fallback,
        loops: outline(&ast, options.parallel),
        gpu: None,
        fused: None,
        grouping: None,
        residues: Vec::new(),
        expansions: Vec::new(),
    };
    Ok(OptimizedScop { tree, ast, report })
}

/// [`Strategy::Basteln`]: the stages of an unfused schedule, each output stage tiled
/// with the producers it needs fused into its tiles (`pollen_transform::fused`, which
/// checks the result), then loops over the fused program.
fn optimize_scop_fused(
    scop: &Scop,
    deps: pollen_deps::Dependences,
    options: &Options,
) -> Result<OptimizedScop> {
    let sched_options = pollen_sched::Options {
        algo: match options.algorithm {
            Algorithm::Pluto => pollen_sched::Algo::Pluto,
            Algorithm::Feautrier => pollen_sched::Algo::Feautrier,
        },
        fuse: pollen_sched::Fuse::No,
        budget: options.budget,
        ..Default::default()
    };
    let outcome = strategy_schedule(scop, &deps, &sched_options, options)?;
    let given = match &options.tiling {
        Tiling::Sizes(sizes) => Some(sizes.clone()),
        Tiling::Off | Tiling::FromCache => None,
    };
    let transform_error = |error| Error::Transform {
        stage: Stage::Tiling,
        error,
    };
    let (groups, plan) = if options.strategy == Strategy::Polymage {
        let (groups, plan) = polymage_groups(scop, &deps, &outcome.tree, given.is_none(), options)
            .map_err(transform_error)?;
        (Some(groups), plan)
    } else if options.strategy == Strategy::Akg {
        let groups = akg_groups(scop, &outcome.tree, options).map_err(transform_error)?;
        (Some(groups), None)
    } else {
        (None, None)
    };
    let fuse_options = pollen_transform::fused::FuseOptions {
        tile_sizes: given,
        live_out: options.live_out.clone(),
        groups,
        // Windows of three quarters of the L2 cache (at least twice the L1 data cache):
        // the redundancy bound keeps the groups' halos small, and larger tiles let longer
        // chains of producers in within it. Measured here: the pyramid blend runs in
        // 12.2 ms with 3/4 of L2 against 16.3 ms with 1/2 (its last group falls back
        // from 64 to 32 rows); the camera pipeline 11 ms against 18 ms with 2 x L1;
        // blur, unsharp mask, Harris and the multigrid cycles run as fast with all three.
        footprint_bytes: Some(
            (options.cache.l2_bytes / 4 * 3).max(options.cache.l1_bytes.saturating_mul(2)),
        ),
        // At most half as much again as each tile's share of a producer: measured on
        // the multigrid cycles (twice doubles their time) and the camera pipeline.
        max_redundancy: Some((3, 2)),
        ..pollen_transform::fused::FuseOptions::default()
    };
    let fused = pollen_transform::fused::fuse(
        scop,
        deps.as_slice(),
        &outcome.tree,
        &fuse_options,
        &mut fresh_budget(options),
    )
    .map_err(|error| Error::Transform {
        stage: Stage::Tiling,
        error,
    })?;
    let ast = generate_loops(&fused.scop, &fused.tree, options)?;
    let tile_sizes = match fused.groups.first() {
        Some(g) => TileSizes::Given(g.tile_sizes.clone()),
        None => TileSizes::Off,
    };
    let report = ScopReport {
        summary: ScopSummary::of(scop),
        dependences: DependenceSummary::of(&deps),
        algorithm: options.algorithm,
        fusion: Fusion::No,
        tile_sizes,
        schedule: outcome.tree,
        schedule_given: false,
        clustered: options.strategy == Strategy::Akg,
        scheduler_fallbacks: outcome.fallbacks,
        tiled: Some(fused.tree.clone()),
        fusion_decision: None,
        profitability: Profitability::NotApplicable,
        fallback: Fallback::None,
        loops: outline(&ast, options.parallel),
        gpu: None,
        fused: Some(fused.clone()),
        grouping: plan,
        residues: Vec::new(),
        expansions: Vec::new(),
    };
    Ok(OptimizedScop {
        tree: fused.tree,
        ast,
        report,
    })
}

/// The schedule a strategy starts from: AKG's conservative clustering for
/// [`Strategy::Akg`], the scheduler's with `sched_options` otherwise.
fn strategy_schedule(
    scop: &Scop,
    deps: &pollen_deps::Dependences,
    sched_options: &pollen_sched::Options,
    options: &Options,
) -> Result<pollen_sched::Outcome> {
    if options.strategy == Strategy::Akg {
        let tree =
            pollen_transform::akg::cluster(scop, deps.as_slice(), &mut fresh_budget(options))
                .map_err(|error| Error::Transform {
                    stage: Stage::Tiling,
                    error,
                })?;
        return Ok(pollen_sched::Outcome {
            tree,
            fallbacks: Vec::new(),
            injection: None,
        });
    }
    pollen_sched::schedule_with_report(scop, deps.as_slice(), sched_options)
        .map_err(Error::Scheduling)
}

/// [`Strategy::Akg`]'s groups: the reverse strategy's, over the clustered tree, with the
/// live-out tensors of the options or else the tensors no statement reads.
fn akg_groups(
    scop: &Scop,
    tree: &pollen_scop::ScheduleTree,
    options: &Options,
) -> std::result::Result<Vec<pollen_transform::fused::GroupSpec>, pollen_transform::Error> {
    let live_out = options
        .live_out
        .clone()
        .unwrap_or_else(|| pollen_transform::akg::sinks(scop));
    let spaces = pollen_transform::akg::classify(scop, tree, &live_out)?;
    let groups = pollen_transform::akg::fusion_groups(scop, &spaces, &mut fresh_budget(options))?;
    Ok(groups
        .into_iter()
        .map(|statements| pollen_transform::fused::GroupSpec {
            statements,
            tile_sizes: None,
        })
        .collect())
}

/// [`Strategy::Polymage`]'s groups: the stage graph of the unfused schedule at the
/// estimates, grouped by the DP under the cost model; with `model_tiles`, each group's
/// tile sizes are the model's (innermost-aligned with the output band).
fn polymage_groups(
    scop: &Scop,
    deps: &pollen_deps::Dependences,
    unfused: &ScheduleTree,
    model_tiles: bool,
    options: &Options,
) -> std::result::Result<
    (
        Vec<pollen_transform::fused::GroupSpec>,
        Option<pollen_transform::grouping::Plan>,
    ),
    pollen_transform::Error,
> {
    use pollen_transform::grouping::{self, CostParams, DpOptions, Machine, Weights};
    let grouping_error =
        |e: &dyn std::fmt::Display| pollen_transform::Error::Grouping(e.to_string());
    let mut budget = fresh_budget(options);
    let program = match grouping::stage_graph(
        scop,
        deps.as_slice(),
        unfused,
        &options.estimates,
        options.live_out.as_ref(),
        &mut budget,
    ) {
        Ok(program) => program,
        // No stage the model can describe: nothing is grouped, every stage stays as
        // the unfused schedule has it.
        Err(grouping::from_scop::Error::NoStage { .. }) => return Ok((Vec::new(), None)),
        Err(grouping::from_scop::Error::Transform(e)) => return Err(e),
        Err(e) => return Err(grouping_error(&e)),
    };
    let clamp = |bytes: u64| i64::try_from(bytes).unwrap_or(i64::MAX);
    let params = CostParams {
        machine: Machine {
            l1_bytes: clamp(options.cache.l1_bytes),
            l2_bytes: clamp(options.cache.l2_bytes),
            cores: i64::from(options.cores.max(1)),
            innermost_tile: 256,
        },
        weights: Weights::xeon_normalized(),
        multi_level: false,
    };
    // A DP past these limits hands over to the bounded incremental search.
    let limits = DpOptions {
        max_states: 20_000,
        max_steps: 5_000_000,
        ..DpOptions::default()
    };
    let plan = grouping::plan(&program.graph, &params, &limits).map_err(|e| grouping_error(&e))?;
    let groups = plan
        .grouping
        .groups
        .iter()
        .zip(&plan.costs)
        .map(|(group, cost)| pollen_transform::fused::GroupSpec {
            statements: group
                .iter()
                .flat_map(|&s| program.statements[s].iter().cloned())
                .collect(),
            tile_sizes: (model_tiles && !cost.tiles().is_empty()).then(|| cost.tiles().to_vec()),
        })
        .collect();
    Ok((groups, Some(plan)))
}

/// The profitability check: the original order, its parallel loops marked, replaces
/// `tree` (and `fallback` says so) when tiling (for locality) cost vectorisable
/// innermost loops the original order had. Without a tiled band there is no locality to
/// trade, and the schedule's own parallelism is kept.
fn profitability_check(
    scop: &Scop,
    deps: &[Dependence],
    tree: &mut ScheduleTree,
    tiled_any: bool,
    fallback: &mut Fallback,
    options: &Options,
) -> Result<Profitability> {
    Ok(if !options.profitability {
        Profitability::Disabled
    } else if !tiled_any {
        Profitability::NothingTiled
    } else {
        match pollen_transform::parallelize(deps, &scop.schedule, options.budget) {
            Err(pollen_transform::Error::LimitExceeded) => {
                return Err(Error::Transform {
                    stage: Stage::CostModel,
                    error: pollen_transform::Error::LimitExceeded,
                })
            }
            Err(_) => Profitability::OriginalUnavailable,
            Ok(original) => {
                let before = model_cost(scop, &original, options)?;
                let after = model_cost(scop, tree, options)?;
                let kept = if before.vectorizes_more_than(&after) {
                    *tree = original.clone();
                    *fallback = Fallback::OriginalOrder;
                    Choice::Alternative
                } else {
                    Choice::Optimized
                };
                Profitability::Compared {
                    original: before,
                    optimized: after,
                    kept,
                    original_schedule: Box::new(original),
                }
            }
        }
    })
}

/// Where the parallel loops of a given schedule come from
/// ([`optimize_scop_scheduled`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coincidence {
    /// The bands' coincident flags as given (a scheduler's): the tiling stage's checker
    /// confirms them and clears any it refutes.
    Given,
    /// Every band member is proposed parallel and the checker keeps the flags it
    /// confirms (`pollen_transform::parallelize`), for trees built without flags. On
    /// deep bands of piecewise schedules this costs many more set operations.
    Decided,
}

/// Optimizes a scop along a schedule given by the caller instead of the scheduler's:
/// the tree's parallel loops as `coincidence` says (a tree that violates a dependence
/// is refused by the checker either way), then the tiling, the profitability check (as
/// [`Options::profitability`] says) and code generation of [`optimize_scop`]. [`Options::algorithm`] and [`Options::fusion`] play no part. The
/// GPU targets are refused ([`Error::GpuMapping`]): their schedules come from
/// constraint injection.
pub fn optimize_scop_scheduled(
    scop: &Scop,
    schedule: &ScheduleTree,
    coincidence: Coincidence,
    options: &Options,
) -> Result<OptimizedScop> {
    if options.target.is_gpu() {
        return Err(Error::GpuMapping(pollen_gpu::Error::InvalidProgram(
            "a given schedule is optimized for the C target only".to_string(),
        )));
    }
    let deps = pollen_deps::analyze_with(scop, Analysis::ValueBased, &mut fresh_budget(options))
        .map_err(Error::Dependences)?;
    let deps_slice = deps.as_slice();
    let schedule = match coincidence {
        Coincidence::Given => schedule.clone(),
        Coincidence::Decided => pollen_transform::parallelize(deps_slice, schedule, options.budget)
            .map_err(|error| Error::Transform {
                stage: Stage::Tiling,
                error,
            })?,
    };
    let scheduled = tile_schedule(scop, deps_slice, schedule, Vec::new(), options)?;
    let mut tree = scheduled.final_tree().clone();
    let mut fallback = Fallback::None;
    let profitability = profitability_check(
        scop,
        deps_slice,
        &mut tree,
        scheduled.tiled_any,
        &mut fallback,
        options,
    )?;
    let ast = generate_loops(scop, &tree, options)?;
    let report = ScopReport {
        summary: ScopSummary::of(scop),
        dependences: DependenceSummary::of(&deps),
        algorithm: options.algorithm,
        fusion: options.fusion,
        tile_sizes: tile_sizes(scop, options),
        schedule: scheduled.schedule,
        schedule_given: true,
        clustered: false,
        scheduler_fallbacks: Vec::new(),
        tiled: scheduled.tiled,
        fusion_decision: None,
        profitability,
        fallback,
        loops: outline(&ast, options.parallel),
        gpu: None,
        fused: None,
        grouping: None,
        residues: Vec::new(),
        expansions: Vec::new(),
    };
    Ok(OptimizedScop { tree, ast, report })
}

/// [`optimize_scop`] for the GPU targets: the scheduler steered by constraint injection
/// (with [`crate::GpuOptions::inject`]), bands tiled with the GPU tile sizes and their
/// point loops in the scheduler's order, no CPU cost model, and the loops mapped to
/// blocks and threads (`pollen-gpu`); the mapped program is in the report.
fn optimize_scop_gpu(scop: &Scop, options: &Options) -> Result<OptimizedScop> {
    let deps = pollen_deps::analyze_with(scop, Analysis::ValueBased, &mut fresh_budget(options))
        .map_err(Error::Dependences)?;
    let injecting = options.gpu.inject && options.algorithm == Algorithm::Pluto;
    let (constraint_tree, scenarios) = if injecting {
        let (tree, scenarios) = pollen_sched::inject::gpu::constraint_tree(
            scop,
            &pollen_sched::inject::gpu::TreeOptions::default(),
        )
        .map_err(Error::Scheduling)?;
        (Some(tree), scenarios)
    } else {
        (None, Vec::new())
    };
    let sched_options = pollen_sched::Options {
        algo: match options.algorithm {
            Algorithm::Pluto => pollen_sched::Algo::Pluto,
            Algorithm::Feautrier => pollen_sched::Algo::Feautrier,
        },
        fuse: options.fusion.to_sched(),
        budget: options.budget,
        constraints: constraint_tree.clone(),
        ..Default::default()
    };
    let outcome = strategy_schedule(scop, &deps, &sched_options, options)?;
    let (sizes, tile_sizes) = match &options.tiling {
        Tiling::Off => (None, TileSizes::Off),
        Tiling::Sizes(sizes) => (Some(sizes.clone()), TileSizes::Given(sizes.clone())),
        Tiling::FromCache => (
            Some(vec![options.gpu.tile_size]),
            TileSizes::Gpu(options.gpu.tile_size),
        ),
    };
    let tiled = match sizes {
        None => None,
        Some(sizes) => {
            let tile_options = TileOptions {
                sizes: Some(sizes),
                wavefront: options.parallel,
                intra_tile_order: false,
                coincident_first: true,
                parallel_tiled: Some(2),
                unroll_and_jam: false,
                require_reuse: false,
                budget: options.budget,
                ..TileOptions::default()
            };
            Some(
                pollen_transform::tile(scop, deps.as_slice(), &outcome.tree, &tile_options)
                    .map_err(|error| Error::Transform {
                        stage: Stage::Tiling,
                        error,
                    })?,
            )
        }
    };
    let tree = tiled.clone().unwrap_or_else(|| outcome.tree.clone());
    let ast = generate_loops(scop, &tree, options)?;
    let lanes = if options.gpu.vector_types {
        scenarios
            .iter()
            .filter_map(|s| Some((s.statement.clone(), s.vector_iterator()?)))
            .collect()
    } else {
        Default::default()
    };
    let gpu_options = pollen_gpu::GpuOptions {
        block: options.gpu.block.clone(),
        shared_memory: options.gpu.shared_memory,
        transposed_tiles: options.gpu.transposed_tiles,
        lanes,
        lane_width: options.gpu.lane_width,
        lane_jam: options.gpu.lane_jam,
        ..Default::default()
    };
    let program = pollen_gpu::map(scop, &ast, &gpu_options).map_err(Error::GpuMapping)?;
    let report = ScopReport {
        summary: ScopSummary::of(scop),
        dependences: DependenceSummary::of(&deps),
        algorithm: options.algorithm,
        fusion: options.fusion,
        tile_sizes,
        schedule: outcome.tree,
        schedule_given: false,
        clustered: false,
        scheduler_fallbacks: outcome.fallbacks,
        tiled,
        fusion_decision: None,
        profitability: Profitability::Disabled,
        fallback: Fallback::None,
        loops: outline(&ast, options.parallel),
        fused: None,
        grouping: None,
        residues: Vec::new(),
        expansions: Vec::new(),
        gpu: Some(GpuReport {
            target: options.target,
            scenarios,
            constraint_tree_text: constraint_tree
                .as_ref()
                .map(|tree| tree.named(scop).to_string()),
            constraint_tree,
            injection: outcome.injection,
            program,
        }),
    };
    Ok(OptimizedScop { tree, ast, report })
}

/// A schedule and, with tiling, its tiled form.
struct Scheduled {
    /// The scheduler's tree.
    schedule: ScheduleTree,
    /// The scheduler's fallbacks on the way to it.
    fallbacks: Vec<pollen_sched::Fallback>,
    /// The tiled tree (with tiling on).
    tiled: Option<ScheduleTree>,
    /// Without tiling: the scheduler's tree with its bands' loops ordered.
    ordered: Option<ScheduleTree>,
    /// Whether some band was tiled.
    tiled_any: bool,
}

impl Scheduled {
    /// The tree the rest of the pipeline works on.
    fn final_tree(&self) -> &ScheduleTree {
        self.tiled
            .as_ref()
            .or(self.ordered.as_ref())
            .unwrap_or(&self.schedule)
    }
}

/// Schedules (and tiles) the scop under one fusion policy.
fn schedule_and_tile(
    scop: &Scop,
    deps: &[Dependence],
    options: &Options,
    fusion: Fusion,
) -> Result<Scheduled> {
    let sched_options = pollen_sched::Options {
        algo: match options.algorithm {
            Algorithm::Pluto => pollen_sched::Algo::Pluto,
            Algorithm::Feautrier => pollen_sched::Algo::Feautrier,
        },
        fuse: fusion.to_sched(),
        budget: options.budget,
        ..Default::default()
    };
    let pollen_sched::Outcome {
        tree: schedule,
        fallbacks,
        ..
    } = pollen_sched::schedule_with_report(scop, deps, &sched_options)
        .map_err(Error::Scheduling)?;
    tile_schedule(scop, deps, schedule, fallbacks, options)
}

/// Tiles (or, with tiling off, orders the loops of) `schedule` as the options say.
fn tile_schedule(
    scop: &Scop,
    deps: &[Dependence],
    schedule: ScheduleTree,
    fallbacks: Vec<pollen_sched::Fallback>,
    options: &Options,
) -> Result<Scheduled> {
    let tiling_error = |error| Error::Transform {
        stage: Stage::Tiling,
        error,
    };
    // Fused bands whose statements' own loops sit below them are distributed where that
    // gives stride-1 innermost loops; the rest of the stages work on the split tree.
    let split = pollen_transform::split_for_locality_with(
        scop,
        deps,
        &schedule,
        &mut fresh_budget(options),
    )
    .map_err(tiling_error)?;
    let sizes = match &options.tiling {
        Tiling::Off => {
            // No band is tiled, but permutable bands still get a stride-1 innermost loop.
            let order = TileOptions {
                min_band_depth: usize::MAX,
                lane_innermost: options.vector_registers,
                budget: options.budget,
                ..TileOptions::default()
            };
            let ordered =
                pollen_transform::tile(scop, deps, &split, &order).map_err(tiling_error)?;
            return Ok(Scheduled {
                schedule,
                fallbacks,
                tiled: None,
                ordered: Some(ordered),
                tiled_any: false,
            });
        }
        Tiling::FromCache => None,
        Tiling::Sizes(sizes) => Some(sizes.clone()),
    };
    let tile_options = TileOptions {
        require_reuse: sizes.is_none(),
        sizes,
        lane_innermost: options.vector_registers,
        wavefront: options.parallel,
        unroll_and_jam: options.unroll_and_jam,
        cache: options.cache,
        budget: options.budget,
        ..TileOptions::default()
    };
    let tiled = pollen_transform::tile(scop, deps, &split, &tile_options).map_err(tiling_error)?;
    let tiled_any = band_count(&tiled.root) > band_count(&split.root);
    Ok(Scheduled {
        schedule,
        fallbacks,
        tiled: Some(tiled),
        ordered: None,
        tiled_any,
    })
}

/// The loops of `tree` (statements distributed where their schedules allow, the
/// options' budget).
fn generate_loops(scop: &Scop, tree: &ScheduleTree, options: &Options) -> Result<Ast> {
    let codegen_options = pollen_codegen::Options {
        distribute: true,
        budget: options.budget,
        ..Default::default()
    };
    let mut ast =
        pollen_codegen::generate(scop, tree, &codegen_options).map_err(Error::CodeGeneration)?;
    serialize_inner_parallel_loops(&mut ast);
    Ok(ast)
}

/// Parallel loops without a loop inside that are nested in a sequential loop run
/// sequentially (and stay vectorisable): every iteration of the enclosing loop would
/// open a parallel region, a fork and a join of the threads costing microseconds, for
/// one loop's worth of work (a row of a matrix, a vector update).
fn serialize_inner_parallel_loops(ast: &mut Ast) {
    fn visit(ast: &mut Ast, in_sequential: bool) {
        match ast {
            Ast::Block(children) => children.iter_mut().for_each(|c| visit(c, in_sequential)),
            Ast::If {
                then, otherwise, ..
            } => {
                visit(then, in_sequential);
                if let Some(o) = otherwise {
                    visit(o, in_sequential);
                }
            }
            Ast::For(l) => {
                if l.parallel && in_sequential && !has_loop(&l.body) {
                    l.parallel = false;
                }
                // Below a parallel loop, no loop opens a region of its own.
                if !l.parallel {
                    visit(&mut l.body, true);
                }
            }
            Ast::User { .. } => {}
        }
    }
    fn has_loop(ast: &Ast) -> bool {
        match ast {
            Ast::Block(children) => children.iter().any(has_loop),
            Ast::If {
                then, otherwise, ..
            } => has_loop(then) || otherwise.as_deref().is_some_and(has_loop),
            Ast::For(_) => true,
            Ast::User { .. } => false,
        }
    }
    visit(ast, false);
}

/// The cost model's figures for `tree`.
fn model_cost(scop: &Scop, tree: &ScheduleTree, options: &Options) -> Result<Cost> {
    cost_with(scop, tree, &mut fresh_budget(options)).map_err(|error| Error::Transform {
        stage: Stage::CostModel,
        error,
    })
}

/// A fresh budget of the options' size for one stage.
fn fresh_budget(options: &Options) -> Budget {
    options.budget.map_or_else(Budget::unlimited, Budget::new)
}

/// The tile sizes of the options, and where they come from.
fn tile_sizes(scop: &Scop, options: &Options) -> TileSizes {
    match &options.tiling {
        Tiling::Off => TileSizes::Off,
        Tiling::Sizes(sizes) => TileSizes::Given(sizes.clone()),
        Tiling::FromCache => {
            let element_bytes = scop
                .arrays
                .iter()
                .map(|a| pollen_transform::sizes::element_bytes(&a.element_type))
                .max()
                .unwrap_or(8);
            let by_depth = (2..=4)
                .map(|depth| {
                    let sizes =
                        pollen_transform::default_tile_sizes(&options.cache, element_bytes, depth);
                    (depth, sizes.first().copied().unwrap_or(1))
                })
                .collect();
            let triangular_by_depth = (2..=4)
                .map(|depth| {
                    let sizes = pollen_transform::sizes::default_triangular_tile_sizes(
                        &options.cache,
                        element_bytes,
                        depth,
                    );
                    (depth, sizes.first().copied().unwrap_or(1))
                })
                .collect();
            TileSizes::FromCache {
                l1_bytes: options.cache.l1_bytes,
                l2_bytes: options.cache.l2_bytes,
                element_bytes,
                by_depth,
                triangular_by_depth,
            }
        }
    }
}

/// The number of band nodes of a subtree.
fn band_count(node: &Node) -> usize {
    usize::from(matches!(node, Node::Band(_)))
        + node.children().into_iter().map(band_count).sum::<usize>()
}

/// Words that make an integer type wider than `int`.
const WIDE_TYPE_WORDS: [&str; 6] = [
    "long",
    "int64_t",
    "intptr_t",
    "ptrdiff_t",
    "ssize_t",
    "intmax_t",
];

/// Words that can start a declaration of an integer variable.
const DECLARATION_START: [&str; 14] = [
    "int",
    "long",
    "short",
    "signed",
    "unsigned",
    "const",
    "static",
    "register",
    "volatile",
    "auto",
    "int64_t",
    "intptr_t",
    "ptrdiff_t",
    "ssize_t",
];

/// The C type of the generated iterators: `long` when a declaration before the end of
/// the region (a `;`-, brace- or parenthesis-delimited piece starting with an integer
/// type word) has a type wider than `int` and names one of the scop's iterators or
/// parameters, `int` otherwise. A rough but safe reading: a false `long` only widens the
/// iterators.
pub(crate) fn iterator_type(source: &str, region_end: usize, scop: &Scop) -> IteratorType {
    let mut names: BTreeSet<&str> = scop.params.iter().map(String::as_str).collect();
    for s in &scop.statements {
        names.extend(s.iterators.iter().map(String::as_str));
    }
    let text = source.get(..region_end).unwrap_or(source);
    let declares_wide = |piece: &str| {
        let words: Vec<&str> = piece
            .split(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .filter(|w| !w.is_empty())
            .collect();
        words.first().is_some_and(|w| DECLARATION_START.contains(w))
            && words.iter().any(|w| WIDE_TYPE_WORDS.contains(w))
            && words.iter().any(|w| names.contains(w))
    };
    if text.split([';', '{', '}', '(', ')']).any(declares_wide) {
        IteratorType::Long
    } else {
        IteratorType::Int
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(source: &str, expected: IteratorType) {
        let extracted = pollen_frontend::extract(source).unwrap();
        let found = iterator_type(source, extracted.region.end, &extracted.scop);
        assert_eq!(found, expected, "{source}");
    }

    fn for_loop(iterator: &str, parallel: bool, body: Ast) -> Ast {
        Ast::For(pollen_codegen::Loop {
            iterator: iterator.to_string(),
            lower: pollen_codegen::Expr::int(0),
            upper: pollen_codegen::Expr::var("n"),
            stride: 1.into(),
            body: Box::new(body),
            parallel,
            vectorizable: parallel,
        })
    }

    fn user(statement: &str) -> Ast {
        Ast::User {
            statement: statement.to_string(),
            args: Vec::new(),
        }
    }

    /// The (parallel, vectorizable) flags of the loops, in pre-order.
    fn flags(ast: &Ast, out: &mut Vec<(String, bool, bool)>) {
        match ast {
            Ast::Block(children) => children.iter().for_each(|c| flags(c, out)),
            Ast::If { then, .. } => flags(then, out),
            Ast::For(l) => {
                out.push((l.iterator.clone(), l.parallel, l.vectorizable));
                flags(&l.body, out);
            }
            Ast::User { .. } => {}
        }
    }

    #[test]
    fn inner_parallel_loops_of_sequential_loops_run_sequentially() {
        // for t (sequential) { for a (parallel) S0; for b (parallel) for c (parallel) S1 }
        // for d (parallel) S2; for e (parallel) for f (parallel) S3
        let mut ast = Ast::Block(vec![
            for_loop(
                "t",
                false,
                Ast::Block(vec![
                    for_loop("a", true, user("S0")),
                    for_loop("b", true, for_loop("c", true, user("S1"))),
                ]),
            ),
            for_loop("d", true, user("S2")),
            for_loop("e", true, for_loop("f", true, user("S3"))),
        ]);
        serialize_inner_parallel_loops(&mut ast);
        let mut got = Vec::new();
        flags(&ast, &mut got);
        let want = [
            ("t", false, false),
            // One loop's work per region: sequential, still vectorisable.
            ("a", false, true),
            // A loop nest inside: still one region per t.
            ("b", true, true),
            ("c", true, true),
            // Outermost parallel loops stay parallel.
            ("d", true, true),
            ("e", true, true),
            ("f", true, true),
        ];
        let want: Vec<(String, bool, bool)> = want
            .iter()
            .map(|&(i, p, v)| (i.to_string(), p, v))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn iterator_types() {
        let int = "void f(int n, double A[100]) {\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)\n    A[i] = 0;\n#pragma endscop\n}\n";
        check(int, IteratorType::Int);
        check(&int.replace("int n", "long n"), IteratorType::Long);
        check(&int.replace("int i;", "long int i;"), IteratorType::Long);
        // A long variable that is neither an iterator nor a parameter does not count.
        check(
            &int.replace("int i;", "int i; long count;"),
            IteratorType::Int,
        );
    }
}
