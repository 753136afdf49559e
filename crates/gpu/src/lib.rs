//! Mapping of optimized schedules to GPUs, in the manner of PPCG.
//!
//! The input is the loop AST of a scop (`pollen-codegen`), whose loops carry the
//! parallelism that the scheduler proved; the output is a [`GpuProgram`]: the host's
//! control flow around kernel launches, the kernels with their loops mapped to blocks
//! and threads, and the arrays with the transfers they need. The OpenCL and CUDA
//! emitters (`pollen-emit-gpu`) print it.

mod check;
mod display;
mod error;
mod extent;
mod map;
mod program;

pub use check::{
    check, check_with_limit, CheckReport, Instance, Placement, Violation, DEFAULT_CHECK_LIMIT,
    MAX_LISTED_VIOLATIONS,
};
pub use error::{Error, Result};
pub use map::{block_model, map, GpuOptions, MAX_THREADS_PER_BLOCK};
pub use program::{
    ArrayKind, DeviceArray, GpuProgram, Host, Kernel, KernelAst, KernelLoop, Mapping,
};
