//! The errors of the driver: one variant per stage of the pipeline, each holding the
//! stage crate's own typed error, and the region of the file it happened in.

use std::fmt;

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// A stage of the pipeline, as named in errors and in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Reading the `#pragma scop` regions (`pollen-frontend`).
    Extraction,
    /// Splitting statements by the residues of their iterators
    /// (`pollen_transform::residues`).
    ResidueSplit,
    /// Scalar expansion (`pollen_transform::expand`).
    ScalarExpansion,
    /// Value-based dependence analysis (`pollen-deps`).
    Dependences,
    /// Scheduling (`pollen-sched`).
    Scheduling,
    /// Tiling, or choosing the loop order of untiled bands (`pollen-transform`).
    Tiling,
    /// The cost model comparing two schedules (`pollen_transform::profit`).
    CostModel,
    /// Code generation (`pollen-codegen`).
    CodeGeneration,
    /// Mapping the loops to GPU blocks and threads (`pollen-gpu`).
    GpuMapping,
    /// Printing the code in the target language (`pollen-emit-c`).
    Emission,
}

impl Stage {
    /// The stage's name in messages (`tiling`, `code generation`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Extraction => "extraction",
            Stage::ResidueSplit => "residue splitting",
            Stage::ScalarExpansion => "scalar expansion",
            Stage::Dependences => "dependence analysis",
            Stage::Scheduling => "scheduling",
            Stage::Tiling => "tiling",
            Stage::CostModel => "the cost model",
            Stage::CodeGeneration => "code generation",
            Stage::GpuMapping => "GPU mapping",
            Stage::Emission => "emission",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why the optimizer could not optimize a program.
#[derive(Debug)]
pub enum Error {
    /// The C text is outside what the frontend reads; the error has the line and column
    /// ([`pollen_frontend::Error::line`], [`pollen_frontend::Error::column`]).
    Frontend(pollen_frontend::Error),
    /// The dependence analysis failed (or ran out of budget).
    Dependences(pollen_deps::Error),
    /// The scheduler failed (or ran out of budget).
    Scheduling(pollen_sched::Error),
    /// A transformation failed: tiling or loop ordering ([`Stage::Tiling`]) or the cost
    /// model ([`Stage::CostModel`]).
    Transform {
        /// The stage.
        stage: Stage,
        /// What went wrong.
        error: pollen_transform::Error,
    },
    /// Code generation failed (or ran out of budget).
    CodeGeneration(pollen_codegen::Error),
    /// Mapping the loops to GPU blocks and threads failed (an array a kernel needs has
    /// no known type or extents, say).
    GpuMapping(pollen_gpu::Error),
    /// Printing the code failed.
    Emission(pollen_emit_c::Error),
    /// Printing OpenCL or CUDA failed.
    GpuEmission(pollen_emit_gpu::Error),
    /// A stage failed on one region of a file with `#pragma scop` regions.
    Region {
        /// The region's index in the file, from 0.
        index: usize,
        /// The 1-based line of its `#pragma scop`.
        line: usize,
        /// The stage's error.
        error: Box<Error>,
    },
}

impl Error {
    /// The stage that failed.
    pub fn stage(&self) -> Stage {
        match self {
            Error::Frontend(_) => Stage::Extraction,
            Error::Dependences(_) => Stage::Dependences,
            Error::Scheduling(_) => Stage::Scheduling,
            Error::Transform { stage, .. } => *stage,
            Error::CodeGeneration(_) => Stage::CodeGeneration,
            Error::GpuMapping(_) => Stage::GpuMapping,
            Error::Emission(_) | Error::GpuEmission(_) => Stage::Emission,
            Error::Region { error, .. } => error.stage(),
        }
    }

    /// Whether a solver budget ran out (the input may be fine with a larger one).
    pub fn is_limit_exceeded(&self) -> bool {
        use pollen_presburger::Error::LimitExceeded as Presburger;
        match self {
            Error::Frontend(e) => matches!(
                e,
                pollen_frontend::Error::Presburger {
                    error: Presburger,
                    ..
                }
            ),
            Error::Emission(_) | Error::GpuEmission(_) => false,
            Error::Dependences(e) => matches!(
                e,
                pollen_deps::Error::LimitExceeded | pollen_deps::Error::Presburger(Presburger)
            ),
            Error::Scheduling(e) => matches!(
                e,
                pollen_sched::Error::LimitExceeded
                    | pollen_sched::Error::Presburger(Presburger)
                    | pollen_sched::Error::Legality(pollen_sched::legality::Error::LimitExceeded)
            ),
            Error::Transform { error, .. } => matches!(
                error,
                pollen_transform::Error::LimitExceeded
                    | pollen_transform::Error::Presburger(Presburger)
            ),
            Error::CodeGeneration(e) => matches!(
                e,
                pollen_codegen::Error::LimitExceeded
                    | pollen_codegen::Error::Presburger(Presburger)
            ),
            Error::GpuMapping(_) => false,
            Error::Region { error, .. } => error.is_limit_exceeded(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stage = self.stage();
        match self {
            Error::Frontend(e) => write!(f, "{}:{}: {}", e.line(), e.column(), e.message()),
            Error::Dependences(e) => write!(f, "{stage} failed: {e}"),
            Error::Scheduling(e) => write!(f, "{stage} failed: {e}"),
            Error::Transform { error, .. } => write!(f, "{stage} failed: {error}"),
            Error::CodeGeneration(e) => write!(f, "{stage} failed: {e}"),
            Error::GpuMapping(e) => write!(f, "{stage} failed: {e}"),
            Error::Emission(e) => write!(f, "{stage} failed: {e}"),
            Error::GpuEmission(e) => write!(f, "{stage} failed: {e}"),
            Error::Region { index, line, error } => {
                write!(f, "region {} (line {line}): {error}", index + 1)
            }
        }
    }
}

impl std::error::Error for Error {}
