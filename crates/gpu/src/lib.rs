//! Mapping of optimized schedules to GPUs, in the manner of PPCG.
//!
//! The input is the loop AST of a scop (`pollen-codegen`), whose loops carry the
//! parallelism that the scheduler proved; the output is a [`GpuProgram`]: the host's
//! control flow around kernel launches, the kernels with their loops mapped to blocks
//! and threads, and the arrays with the transfers they need. The OpenCL and CUDA
//! emitters (`pollen-emit-gpu`) print it.
//!
//! # The mapping ([`map()`])
//!
//! [`map()`] walks the AST from the top, on the host:
//!
//! - A loop marked parallel starts a kernel. Its *block loops* P are the chain of
//!   perfectly nested parallel loops from there (through blocks of one child), up to a
//!   suffix of loops whose trip counts are bounded by constants (the point loops of a
//!   tile), at most three. Under P, the code is *block-uniform* as long as its bounds
//!   and conditions mention only parameters, host iterators, iterators of P and of
//!   uniform sequential loops; the parallel loops reached through uniform code are the
//!   *thread loops*, each starting a chain of at most three perfectly nested parallel
//!   loops.
//!   - With thread loops: P → [`Mapping::Block`] (innermost `x` = 0), each thread
//!     chain → [`Mapping::Thread`] (innermost `x`), everything inside a thread chain
//!     [`Mapping::Sequential`]. Uniform sequential loops and guards stay around them
//!     (run by every thread of the block); uniform code without parallel loops runs in
//!     one thread ([`KernelAst::SingleThread`]). A [`KernelAst::Barrier`] follows every
//!     thread chain and every single-thread part, so that consecutive parts, and the
//!     iterations of a uniform loop around them, are ordered; the barriers at the end
//!     of the kernel's code are dropped. A chain of fewer thread dimensions than the
//!     kernel's block is wrapped in one-iteration loops mapped to the missing thread
//!     dimensions (`for (pad1 = 0; pad1 <= 0; pad1++) // thread y`), so that only the
//!     threads of index 0 along them run it.
//!     This is the tile-loops-to-blocks, point-loops-to-threads structure of a tiled
//!     band: for tiled gemm, the i and j tile loops go to blocks, the k tile loop runs
//!     in every thread with a barrier after each iteration, the i point loop goes to
//!     threads and the k and j point loops run inside each thread.
//!   - Without: the innermost loop of P goes to [`Mapping::Thread`] `x` and the
//!     others to blocks; a single loop goes to [`Mapping::Global`] `x`.
//! - A sequential loop, a guard or a block that holds a parallel loop stays on the host
//!   ([`Host::For`], [`Host::If`], [`Host::Block`]); consecutive host-level parts
//!   without a parallel loop become one kernel of one thread (grid 1, block 1).
//!
//! - Lane groups: with [`GpuOptions::lanes`] (the statements whose innermost loop
//!   constraint injection found contiguous, with that loop's iterator), a thread `x`
//!   loop of stride 1 whose body is such statements only, each with that iterator equal
//!   to the loop's iterator plus a constant, gets [`Lanes`] of
//!   [`GpuOptions::lane_width`] iterations: each thread runs whole groups, and the
//!   `(statement, array)` pairs whose every reference moves by one element per
//!   iteration along the array's last subscript (from the access relations) are listed
//!   for the emitters to load and store as vectors. The block's `x` extent is then the
//!   tile's trip count divided by the width.
//!
//! Mapped loops are stride loops (see [`KernelLoop`]), so the sizes decide speed only.
//! The grid size of a block- or globally mapped loop is a bound on its trip count
//! that the host can compute: for a lower operand `l` and an upper operand `u` of its
//! `max`/`min` bounds whose difference, once linear terms are collected, mentions only
//! parameters and host iterators, `floor((u - l) / stride) + 1` (divided by the block
//! size, rounding up, for a global mapping), where the iterators of outer block loops
//! may first be replaced by the bounds of their loops that maximise the difference
//! (a triangular loop `c1 = c0 .. N - 1` under `c0 = 0 .. N - 1` gets `N`); the minimum
//! of the usable pairs, a constant where one is; capped by [`GpuOptions::max_grid`], and
//! [`GpuOptions::default_grid`] where no pair is usable. Block sizes are
//! [`GpuOptions::block`] when given, else [`block_model`]: the thread loops' constant
//! trip counts (the tile sizes), else `256`, `32 × 8` or `32 × 4 × 2`.
//!
//! The arrays ([`DeviceArray`]): every array or scalar some statement accesses, in
//! scop order. Arrays with dimensions are buffers; scalars only read are passed by
//! value; written scalars are one-element buffers, except a scalar the region declares
//! ([`pollen_scop::Array::local`]) whose every access runs in one single-thread kernel
//! launched once, which becomes a variable of that kernel ([`ArrayKind::Private`]; a
//! local scalar that threads or launches share stays a buffer, since its value could
//! cross them). What the kernels
//! write is copied out; what they read or write is copied in (a kernel may write an
//! array only in part, and the copy keeps the elements it does not write). An array or
//! scalar without a known element type or extent is an error
//! ([`Error::UnsupportedArray`]). `Display` prints a program as pseudo-code.
//!
//! # Shared memory
//!
//! With [`GpuOptions::shared_memory`] (the default), reused or transposed tiles of the
//! arrays that a kernel only reads are copied to the block's shared memory (OpenCL `__local`, CUDA
//! `__shared__`), in the manner of PPCG. The points of promotion are the kernel's
//! block-uniform sequential loops that hold thread loops (the `k` tile loop of tiled
//! gemm), or the kernel's code below its block loops when it has none. At a point `L`,
//! an array `A` that no statement of the kernel writes is promoted when every read of
//! `A` by the statements below `L`:
//! - lies under loops only (no guard between `L` and the statement), whose bounds
//!   mention no iterator of a loop below `L`;
//! - has, in each subscript dimension (from the scop's access relation, one affine
//!   function per dimension, composed with the statement's iterator values), at most
//!   one iterator of a loop below `L`, with coefficient ±1; that loop has stride 1 and
//!   a constant trip-count window `l ..= l + c - 1` (a lower operand `l` and an upper
//!   operand `l + c - 1` of its `max`/`min` bounds: a tile's point loop); the rest of
//!   the subscript is block-uniform (parameters, host, block and uniform iterators);
//!
//! and the reads are translates of each other by constants (the same loop bounds and
//! signs per dimension, subscripts differing by constants), so that together they
//! cover a box of constant size per iteration of `L`: per dimension `c` plus the
//! spread of the constants (1 plus the spread without a loop). `A` is promoted when
//! that box has reuse (some loop around some read, of trip count other than 1, is
//! missing from the read's subscripts: the box holds fewer elements than the reads
//! make) or is *transposed* (some read's thread-`x` loop moves a subscript other than
//! the last, and not the last, which another loop moves: the threads of a warp would
//! read elements a row apart,
//! one memory transaction each, where the copy reads the box row by row, consecutive
//! threads taking consecutive elements; PPCG promotes such uncoalesced references
//! too; not with [`GpuOptions::transposed_tiles`] off), and fits what is left of [`GpuOptions::shared_memory_bytes`] for the block
//! (elements of 8 bytes unless their type is `float`); arrays are taken in scop order,
//! each at the outermost point where it qualifies.
//!
//! A promoted array gets a [`SharedArray`] of the box's sizes in [`Kernel::shared`]
//! (a transposed box's rows padded to an odd length, so that a warp reading down a
//! column meets distinct banks).
//! `L`'s body becomes: a [`KernelAst::Copy`] of the box per promoted array, guarded by
//! every loop around the reads being non-empty; a barrier; a [`KernelAst::Shared`]
//! scope holding the old body, in which the reads use the copy; and a barrier at the
//! end when the body does not already end with one (the next iteration's copy must
//! wait for the reads of this one). The copy loads exactly the elements between the
//! loops' real bounds (evaluated at run time), from `max(lower) + rest` to
//! `min(upper) + rest` per dimension; its offset (the shared array's first element)
//! is the window's start `l + rest`. Since the first and last element of every
//! dimension are read by some statement instance whenever every loop runs, every
//! element copied lies between elements the program reads: no read out of the
//! array's bounds. A copy or a stencil whose reads each use all the loops around them,
//! the last subscript moving with the threads along `x`, has neither reuse nor a
//! transposed read and stays in global memory.
//!
//! # The checker ([`check()`])
//!
//! An independent dynamic check that shares no logic with the mapping: the program is
//! simulated at concrete parameter values (host control, launches in order, every
//! block and thread of each launch with the stride-loop semantics of each mapping, a
//! lane group's statements one after the other over the group's iterations), each
//! statement instance recorded with its launch, block, thread, barrier phase and
//! position in its thread's order; then every domain instance must run exactly once,
//! every pair of every dependence must be ordered (an earlier launch, or the same
//! block with the same thread and an earlier position, or the same block and an
//! earlier phase), and the threads of a block must pass the same number of barriers.
//! Shared memory is checked too: each thread's copies are simulated (the box and
//! offset evaluated at the copy), and every read of a promoted array inside a
//! [`KernelAst::Shared`] scope, at the elements the scop's access relation gives at
//! that instance, must lie in the box of the block's last copy with the same offset,
//! copied in an earlier barrier phase; a copy must run in block-uniform code, the same
//! in every thread, fit its shared array and start a later phase than the reads of
//! the previous contents; and no statement of the kernel may write a promoted array.
//! Violations come back as data ([`CheckReport`]); the simulation and the enumerations
//! run under a step limit.
//!
//! # Example
//!
//! ```
//! use pollen_gpu::{check, map, GpuOptions, Mapping};
//!
//! let source = "
//! void scale(int n, double A[100][100], double B[100][100]) {
//! #pragma scop
//!   for (int i = 0; i < n; i++)
//!     for (int j = 0; j < n; j++)
//!       A[i][j] = 2 * B[i][j];
//! #pragma endscop
//! }";
//! let scop = pollen_frontend::extract(source).unwrap().scop;
//! let deps = pollen_deps::analyze(&scop, pollen_deps::Analysis::ValueBased).unwrap();
//! let tree = pollen_sched::schedule(&scop, deps.as_slice(), &Default::default()).unwrap();
//! let ast = pollen_codegen::generate(&scop, &tree, &Default::default()).unwrap();
//! let program = map(&scop, &ast, &GpuOptions::default()).unwrap();
//! // i on blocks, j on the threads of each block.
//! let text = program.to_string();
//! assert!(text.contains("// block x") && text.contains("// thread x"));
//! let report = check(&scop, deps.as_slice(), &program, &[("n".to_string(), 7)]).unwrap();
//! assert!(report.is_ok());
//! assert_eq!(report.instances, 49);
//! ```

mod check;
mod display;
mod error;
mod extent;
mod map;
mod program;
mod promote;

pub use check::{
    check, check_with_limit, CheckReport, Instance, Placement, Violation, DEFAULT_CHECK_LIMIT,
    MAX_LISTED_VIOLATIONS,
};
pub use error::{Error, Result};
pub use map::{block_model, map, GpuOptions, MAX_THREADS_PER_BLOCK, MODEL_THREADS_PER_BLOCK};
pub use program::{
    ArrayKind, DeviceArray, GpuProgram, Host, Kernel, KernelAst, KernelLoop, Lanes, Mapping,
    SharedArray,
};
