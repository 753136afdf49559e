//! The mapped program: host control, kernels and the arrays they share, as plain data
//! that the OpenCL and CUDA emitters print.
//!
//! Every loop of a kernel says how its iterations are spread ([`Mapping`]). A loop mapped
//! to a block or thread dimension is printed as a *stride loop*: thread `t` of `n` runs
//! the iterations `lower + t·stride, lower + (t + n)·stride, …` up to `upper`. That is
//! correct whatever the grid and block sizes are, so the sizes in [`Kernel::grid`] and
//! [`Kernel::block`] only decide speed; every iteration of a mapped loop runs exactly
//! once.
//!
//! # Shared memory
//!
//! A kernel may hold tiles of arrays that it only reads in the block's shared memory
//! (OpenCL `__local`, CUDA `__shared__`): [`Kernel::shared`] declares them, a
//! [`KernelAst::Copy`] run by all threads of the block loads a box of the array into
//! one, and inside a [`KernelAst::Shared`] scope every reference to the promoted array
//! reads the copy instead: the element `A[x1][x2]` is `shared[x1 - o1][x2 - o2]`, where
//! `o` is the offset the scope and the copy share. The mapping places the copy at the
//! start of a block-uniform sequential loop's body (or of the kernel's code below the
//! block loops), then a [`KernelAst::Barrier`], then the scope with the rest of the
//! body; the barrier that ends every iteration keeps the next iteration's copy after
//! the reads of this one. No statement of the kernel writes a promoted array, so the
//! copy holds the values the statements would read from global memory.

use pollen_arith::Int;
use pollen_codegen::{Cond, Expr};

/// A scop mapped to a GPU: the host's control flow around kernel launches, the kernels,
/// and the arrays that live on the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuProgram {
    /// The arrays and scalars of the scop that the kernels use, in scop order.
    pub arrays: Vec<DeviceArray>,
    /// The host's control flow: loops and conditions over parameters and host
    /// iterators, with kernel launches at the leaves.
    pub host: Host,
    /// The kernels, launched by [`Host::Launch`] by index.
    pub kernels: Vec<Kernel>,
}

/// How an array (or scalar) of the scop is held and moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceArray {
    /// The C name in the source.
    pub name: String,
    /// The C element type as written (e.g. `DATA_TYPE`).
    pub element_type: String,
    /// The C text of each extent, outermost first (empty for a scalar).
    pub extents: Vec<String>,
    /// How the kernels receive it.
    pub kind: ArrayKind,
    /// Whether its contents are copied to the device before the first launch (it is
    /// read, or written only in part, by the kernels).
    pub copy_in: bool,
    /// Whether its contents are copied back after the last launch (the kernels write it).
    pub copy_out: bool,
}

/// How a kernel receives an array or scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayKind {
    /// A device buffer holding the whole array, indexed row-major from its extents.
    Buffer,
    /// A scalar that the kernels only read: passed by value as an argument.
    Value,
    /// A scalar that some kernel writes: a device buffer of one element.
    ScalarBuffer,
    /// A scalar that the region declares itself and that every thread uses only between
    /// its own write and reads: a variable of the kernel, never transferred.
    Private,
}

/// The host's control flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    /// Children in order.
    Block(Vec<Host>),
    /// A sequential loop on the host; its iterator is passed to the kernels inside.
    For {
        /// The iterator's name.
        iterator: String,
        /// The first value.
        lower: Expr,
        /// The last value (inclusive).
        upper: Expr,
        /// The increment, positive.
        stride: Int,
        /// The body.
        body: Box<Host>,
    },
    /// A guarded part.
    If {
        /// The guard, over parameters and host iterators.
        cond: Cond,
        /// Run when the guard holds.
        then: Box<Host>,
        /// Run otherwise.
        otherwise: Option<Box<Host>>,
    },
    /// A launch of `kernels[index]`; launches complete in order.
    Launch(usize),
}

/// One kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The kernel's name (`kernel0`, ...).
    pub name: String,
    /// The number of blocks (work-groups) per grid dimension, `x` first: expressions
    /// over the parameters and [`Kernel::host_iterators`]; at least one, at most three.
    /// Each is evaluated on the host and clamped to at least 1.
    pub grid: Vec<Expr>,
    /// The number of threads (work-items) per block dimension, `x` first; at least one
    /// entry, at most three, product at most 1024.
    pub block: Vec<u32>,
    /// The host loop iterators that the kernel reads, passed as arguments.
    pub host_iterators: Vec<String>,
    /// The names of the [`GpuProgram::arrays`] the kernel uses, in program order.
    pub arrays: Vec<String>,
    /// The kernel's code, run by every thread of every block.
    pub body: KernelAst,
    /// The arrays of the block's shared memory, indexed by [`KernelAst::Copy::shared`]
    /// and [`KernelAst::Shared::promotions`] (empty without promotion).
    pub shared: Vec<SharedArray>,
}

/// A box of a global array held in the block's shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedArray {
    /// The name of the shared array, distinct from every name of the kernel.
    pub name: String,
    /// The name of the global array (one of [`GpuProgram::arrays`], a buffer) whose
    /// elements it holds.
    pub array: String,
    /// The C element type, the global array's.
    pub element_type: String,
    /// The number of elements per dimension (one per dimension of the global array),
    /// outermost first: the box's, except that the last may be one more (rows of an odd
    /// length, so that a warp reading down a column meets no bank twice).
    pub sizes: Vec<u64>,
}

/// The loops and statements of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelAst {
    /// Children in order.
    Block(Vec<KernelAst>),
    /// A loop, spread over blocks or threads as its mapping says.
    For(KernelLoop),
    /// A guarded subtree.
    If {
        /// The guard.
        cond: Cond,
        /// Run when the guard holds.
        then: Box<KernelAst>,
        /// Run otherwise.
        otherwise: Option<Box<KernelAst>>,
    },
    /// One statement instance: the statement's name and its original iterators' values.
    User {
        /// The statement's name.
        statement: String,
        /// One value per original iterator, outermost first.
        args: Vec<Expr>,
    },
    /// Run by the first thread of each block only (every thread index zero); the other
    /// threads skip it. Code between mapped loops that every thread would otherwise
    /// repeat.
    SingleThread(Box<KernelAst>),
    /// A barrier of the block: every thread of the block waits until all have reached
    /// it, and their writes to memory are visible to each other after it. Only where
    /// every thread of the block reaches it the same number of times.
    Barrier,
    /// All threads of the block together copy the elements `x` of the global array of
    /// `kernel.shared[shared]` with `lower[d] <= x[d] <= upper[d]` in every dimension
    /// `d` (none when some `lower[d] > upper[d]`) to `shared[x - offset]`, each element
    /// once, spread over the threads. Only in block-uniform code (every thread of the
    /// block reaches it with the same values), followed by a barrier before the reads.
    Copy {
        /// The index in [`Kernel::shared`].
        shared: usize,
        /// The index of the shared array's first element in the global array, per
        /// dimension.
        offset: Vec<Expr>,
        /// The first element copied, per dimension.
        lower: Vec<Expr>,
        /// The last element copied, per dimension (inclusive).
        upper: Vec<Expr>,
    },
    /// A scope in which every reference of a statement to the global array of
    /// `kernel.shared[s]`, for each `(s, offset)` of `promotions`, reads the shared
    /// array at the subscripts minus `offset` (evaluated on entry to the scope).
    Shared {
        /// The promoted arrays: the index in [`Kernel::shared`] and the offset per
        /// dimension.
        promotions: Vec<(usize, Vec<Expr>)>,
        /// The code inside the scope.
        body: Box<KernelAst>,
    },
}

/// A loop of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelLoop {
    /// The iterator's name.
    pub iterator: String,
    /// The first value.
    pub lower: Expr,
    /// The last value (inclusive).
    pub upper: Expr,
    /// The increment, positive.
    pub stride: Int,
    /// How its iterations are spread.
    pub mapping: Mapping,
    /// With `Some`, each thread of a [`Mapping::Thread`] loop runs groups of
    /// consecutive iterations as vector lanes (see [`Lanes`]); `None` for every other
    /// loop.
    pub lanes: Option<Lanes>,
    /// The body.
    pub body: Box<KernelAst>,
}

/// The iterations of a thread-mapped loop run in groups of [`Lanes::width`]: thread `t`
/// of `n` runs the groups `t, t + n, ...`, group `g` being the iterations `g·w, ...,
/// g·w + w − 1` counted from the first (those up to the loop's last value). The loop's
/// body holds loops, guards and statements only, and no bound or guard there mentions
/// the loop's iterator: a group runs the body once, with each statement instance run
/// for all the group's iterations (in order) before the next one, as if the loop were
/// unrolled by `w` and jammed into its body. A thread loop's iterations are
/// independent, so any such order is the program's. The emitters load and store the
/// [`Lanes::contiguous`] references of a full group as one vector where the address is
/// aligned for it (inside an inner loop, only the arrays the statement does not write:
/// the compilers keep a reduction's elements in registers across that loop), and run a
/// partial group one iteration after the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lanes {
    /// The iterations per group (2 or more); the loop's stride is 1.
    pub width: u32,
    /// The `(statement, array)` pairs of the body whose every reference moves by one
    /// element per iteration along the array's last subscript and stays in the others,
    /// so that a group's references to one element sequence are `width` consecutive
    /// elements.
    pub contiguous: Vec<(String, String)>,
}

/// How the iterations of a kernel loop are spread over the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// Every thread runs every iteration, in order.
    Sequential,
    /// Block `b` of `n` along grid dimension `d` (0 = `x`) runs iterations `b, b + n, ...`
    /// (counted from the first); all threads of the block run them.
    Block(u8),
    /// Thread `t` of `n` along block dimension `d` runs iterations `t, t + n, ...`.
    Thread(u8),
    /// The global thread index along dimension `d` (block index times block size plus
    /// thread index) of the global number of threads `n` runs iterations `g, g + n, ...`.
    Global(u8),
}
