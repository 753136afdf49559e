//! Kernels printed as OpenCL C or CUDA functions.
//!
//! ```c
//! __kernel void kernel0(DATA_TYPE beta, __global DATA_TYPE *restrict C, long C_d1, long p__PB_NI, long p__PB_NJ, long p__PB_NK)
//! {
//!   long c0, c1;
//!   for (c0 = (long)get_global_id(1); c0 <= p__PB_NI - 1; c0 += (long)get_global_size(1)) {
//!     for (c1 = (long)get_global_id(0); c1 <= p__PB_NJ - 1; c1 += (long)get_global_size(0)) {
//!       C[(c0) * C_d1 + (c1)] *= beta;
//!     }
//!   }
//! }
//! ```
//! - The arguments come in [`Plan::args`] order; buffers are `__global` pointers in
//!   OpenCL and plain pointers in CUDA; extents, parameters and host iterators are
//!   `long`. The loop iterators are `long` variables declared first, then the private
//!   scalars with their element types.
//! - A mapped loop is a stride loop: the thread's first iteration is `lower + index *
//!   stride` and it steps by `count * stride`, where index and count are the block, the
//!   thread or the global thread index and number along the mapped dimension
//!   (OpenCL: `get_group_id`/`get_num_groups`, `get_local_id`/`get_local_size`,
//!   `get_global_id`/`get_global_size`; CUDA: `blockIdx`/`gridDim`,
//!   `threadIdx`/`blockDim`, and `blockIdx * blockDim + threadIdx`/`gridDim * blockDim`).
//! - Every loop and branch body is braced. A single-thread part is guarded by every
//!   thread index of the block being zero; a barrier is
//!   `barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)` or `__syncthreads()`.
//! - Statement instances are printed inline (module `body`).

use std::collections::{BTreeMap, BTreeSet};

use pollen_arith::Int;
use pollen_emit_text::{ExprPrinter, Helper};
use pollen_gpu::{ArrayKind, Kernel, KernelAst, KernelLoop, Mapping};
use pollen_scop::AccessKind;

use crate::body::{self, Rename};
use crate::error::{Error, Result};
use crate::plan::{has_lanes, kernel_iterators, Arg, Plan};

/// The language a kernel is printed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// OpenCL C.
    OpenCl,
    /// CUDA C++.
    Cuda,
}

/// The CUDA name of a dimension.
fn axis(d: u8) -> &'static str {
    match d {
        0 => "x",
        1 => "y",
        _ => "z",
    }
}

impl Dialect {
    /// The index and count of the threads along a mapped loop's dimension.
    fn spread(self, mapping: Mapping) -> Option<(String, String)> {
        Some(match (self, mapping) {
            (_, Mapping::Sequential) => return None,
            (Dialect::OpenCl, Mapping::Block(d)) => (
                format!("(long)get_group_id({d})"),
                format!("(long)get_num_groups({d})"),
            ),
            (Dialect::OpenCl, Mapping::Thread(d)) => (
                format!("(long)get_local_id({d})"),
                format!("(long)get_local_size({d})"),
            ),
            (Dialect::OpenCl, Mapping::Global(d)) => (
                format!("(long)get_global_id({d})"),
                format!("(long)get_global_size({d})"),
            ),
            (Dialect::Cuda, Mapping::Block(d)) => (
                format!("(long)blockIdx.{}", axis(d)),
                format!("(long)gridDim.{}", axis(d)),
            ),
            (Dialect::Cuda, Mapping::Thread(d)) => (
                format!("(long)threadIdx.{}", axis(d)),
                format!("(long)blockDim.{}", axis(d)),
            ),
            (Dialect::Cuda, Mapping::Global(d)) => {
                let a = axis(d);
                (
                    format!("((long)blockIdx.{a} * blockDim.{a} + threadIdx.{a})"),
                    format!("((long)gridDim.{a} * blockDim.{a})"),
                )
            }
        })
    }

    /// The thread index of the block along dimension `d`.
    fn local_id(self, d: usize) -> String {
        match self {
            Dialect::OpenCl => format!("get_local_id({d})"),
            Dialect::Cuda => format!("threadIdx.{}", axis(d as u8)),
        }
    }

    /// A barrier of the block.
    fn barrier(self) -> &'static str {
        match self {
            Dialect::OpenCl => "barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);",
            Dialect::Cuda => "__syncthreads();",
        }
    }

    /// A pointer to device memory of `element` elements, named `name`. Every array has
    /// a buffer of its own, so no two pointer arguments of a kernel overlap: they are
    /// `restrict`, which lets the compilers keep an element a thread updates in a
    /// register across a loop instead of reloading it after every store.
    fn pointer(self, element: &str, name: &str) -> String {
        match self {
            Dialect::OpenCl => format!("__global {element} *restrict {name}"),
            Dialect::Cuda => format!("{element} *__restrict__ {name}"),
        }
    }

    /// The declaration of a shared array of `element`s named `name`.
    fn shared(self, element: &str, name: &str, sizes: &[u64]) -> String {
        let dims: String = sizes.iter().map(|s| format!("[{s}]")).collect();
        match self {
            Dialect::OpenCl => format!("__local {element} {name}{dims};"),
            Dialect::Cuda => format!("__shared__ {element} {name}{dims};"),
        }
    }

    /// The number of threads of the block along dimension `d`.
    fn local_size(self, d: usize) -> String {
        match self {
            Dialect::OpenCl => format!("(long)get_local_size({d})"),
            Dialect::Cuda => format!("(long)blockDim.{}", axis(d as u8)),
        }
    }

    /// The start of a kernel's definition.
    fn qualifier(self) -> &'static str {
        match self {
            Dialect::OpenCl => "__kernel void",
            Dialect::Cuda => "__global__ void",
        }
    }
}

/// One printed kernel and the helpers it uses.
pub(crate) struct Printed {
    /// The definition, lines ending with line breaks.
    pub text: String,
    /// The helpers its expressions call.
    pub helpers: BTreeSet<Helper>,
}

/// Prints a kernel's definition.
pub(crate) fn print(plan: &Plan, kernel: &Kernel, dialect: Dialect) -> Result<Printed> {
    let mut params = Vec::new();
    for arg in plan.args(kernel) {
        params.push(match arg {
            Arg::Array(a) if a.kind == ArrayKind::Value => format!("{} {}", a.element_type, a.name),
            Arg::Array(a) => dialect.pointer(&a.element_type, &a.name),
            Arg::Extent(a, d) => format!("long {}", plan.extent(&a.name, d)),
            Arg::Param(p) => format!("long {}", plan.param(p)),
            Arg::HostIterator(h) => format!("long {}", plan.iterator(h)),
        });
    }
    let mut renames = BTreeMap::new();
    // Every array of the scop and the program is an error unless the kernel receives it.
    let all = plan.scop.arrays.iter().map(|a| &a.name);
    for name in all.chain(plan.program.arrays.iter().map(|a| &a.name)) {
        renames.insert(name.clone(), Rename::Missing);
    }
    for name in &kernel.arrays {
        let Some(a) = plan.arrays.get(name.as_str()) else {
            return Err(Error::UnknownArray(name.clone()));
        };
        match a.kind {
            ArrayKind::Buffer => {
                let extents = (1..a.extents.len())
                    .map(|d| plan.extent(&a.name, d))
                    .collect();
                renames.insert(a.name.clone(), Rename::Flat(extents));
            }
            ArrayKind::ScalarBuffer => {
                renames.insert(a.name.clone(), Rename::Deref);
            }
            ArrayKind::Value | ArrayKind::Private => {
                renames.remove(&a.name);
            }
        }
    }
    for p in &plan.scop.params {
        renames.insert(p.clone(), Rename::Text(plan.param(p)));
    }
    let mut printer = KernelPrinter {
        plan,
        dialect,
        exprs: ExprPrinter::new(plan.kernel_fixed(kernel)),
        renames,
        block_dims: kernel.block.len(),
        kernel,
        lane: None,
        out: String::new(),
    };
    printer.line(
        0,
        &format!(
            "{} {}({})",
            dialect.qualifier(),
            plan.kernel(kernel),
            params.join(", ")
        ),
    );
    printer.line(0, "{");
    let mut iterators = BTreeSet::new();
    kernel_iterators(&kernel.body, &mut iterators)?;
    if !iterators.is_empty() {
        let mut declared: Vec<String> = iterators.iter().map(|i| plan.iterator(i)).collect();
        if has_lanes(&kernel.body) {
            declared.push(plan.shared("lane"));
        }
        printer.line(1, &format!("long {};", declared.join(", ")));
    }
    for name in &kernel.arrays {
        if let Some(a) = plan.arrays.get(name.as_str()) {
            if a.kind == ArrayKind::Private {
                printer.line(1, &format!("{} {};", a.element_type, a.name));
            }
        }
    }
    let mut copy_dims = 0;
    for a in &kernel.shared {
        let global = plan
            .arrays
            .get(a.array.as_str())
            .filter(|g| g.kind == ArrayKind::Buffer && kernel.arrays.contains(&a.array))
            .ok_or_else(|| Error::UnknownArray(a.array.clone()))?;
        if a.sizes.len() != global.extents.len() || a.sizes.contains(&0) {
            return Err(Error::InvalidGeometry(kernel.name.clone()));
        }
        copy_dims = copy_dims.max(a.sizes.len());
        printer.line(
            1,
            &dialect.shared(&a.element_type, &plan.shared(&a.name), &a.sizes),
        );
    }
    if copy_dims > 0 {
        let mut vars = vec![plan.shared("copy_t")];
        for d in 0..copy_dims {
            vars.push(plan.shared(&format!("copy_n{d}")));
            vars.push(plan.shared(&format!("copy_x{d}")));
        }
        printer.line(1, &format!("long {};", vars.join(", ")));
    }
    printer.ast(&kernel.body, 1)?;
    printer.line(0, "}");
    Ok(Printed {
        text: printer.out,
        helpers: printer.exprs.helpers,
    })
}

/// Prints the body of one kernel.
struct KernelPrinter<'a> {
    plan: &'a Plan<'a>,
    dialect: Dialect,
    exprs: ExprPrinter,
    /// How the names of statement bodies are printed (arrays, scalars, parameters).
    renames: BTreeMap<String, Rename>,
    /// The number of block dimensions.
    block_dims: usize,
    /// The kernel printed.
    kernel: &'a Kernel,
    /// Inside a full lane group: its loop and arrays.
    lane: Option<LaneContext>,
    out: String,
}

/// The full lane group being printed.
#[derive(Clone)]
struct LaneContext {
    /// The lane loop's iterator.
    iterator: String,
    /// Its printed name (the group's first iteration).
    printed: String,
    /// The iterations per group.
    width: u32,
    /// The `(statement, array)` pairs moved as vectors.
    contiguous: Vec<(String, String)>,
    /// The loops of the body around the current point.
    inner: usize,
}

impl<'a> KernelPrinter<'a> {
    /// Writes one line at `depth` levels.
    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Prints `ast` as statements at `depth`.
    fn ast(&mut self, ast: &KernelAst, depth: usize) -> Result<()> {
        match ast {
            KernelAst::Block(children) => {
                for c in children {
                    self.ast(c, depth)?;
                }
                Ok(())
            }
            KernelAst::For(l) => self.for_loop(l, depth),
            KernelAst::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.exprs.cond(cond)?;
                self.line(depth, &format!("if ({cond}) {{"));
                self.ast(then, depth + 1)?;
                if let Some(otherwise) = otherwise {
                    self.line(depth, "} else {");
                    self.ast(otherwise, depth + 1)?;
                }
                self.line(depth, "}");
                Ok(())
            }
            KernelAst::User { statement, args } => self.user(statement, args, depth),
            KernelAst::SingleThread(inner) => {
                let first: Vec<String> = (0..self.block_dims)
                    .map(|d| format!("{} == 0", self.dialect.local_id(d)))
                    .collect();
                self.line(depth, &format!("if ({}) {{", first.join(" && ")));
                self.ast(inner, depth + 1)?;
                self.line(depth, "}");
                Ok(())
            }
            KernelAst::Barrier => {
                self.line(depth, self.dialect.barrier());
                Ok(())
            }
            KernelAst::Copy {
                shared,
                offset,
                lower,
                upper,
            } => self.copy(*shared, offset, lower, upper, depth),
            KernelAst::Shared { promotions, body } => {
                let mut saved = Vec::new();
                for (s, offset) in promotions {
                    let a = self.shared_array(*s, offset.len())?;
                    let (array, name) = (a.array.clone(), self.plan.shared(&a.name));
                    if !matches!(self.renames.get(&array), Some(Rename::Flat(_))) {
                        return Err(Error::UnknownArray(array));
                    }
                    let offsets = offset
                        .iter()
                        .map(|e| self.exprs.expr(e))
                        .collect::<std::result::Result<Vec<_>, _>>()?;
                    let old = self
                        .renames
                        .insert(array.clone(), Rename::Shared(name, offsets));
                    saved.push((array, old));
                }
                let r = self.ast(body, depth);
                for (array, old) in saved.into_iter().rev() {
                    match old {
                        Some(o) => self.renames.insert(array, o),
                        None => self.renames.remove(&array),
                    };
                }
                r
            }
        }
    }

    /// The shared array `s` of the kernel, which must have `dims` dimensions.
    fn shared_array(&self, s: usize, dims: usize) -> Result<&'a pollen_gpu::SharedArray> {
        let kernel = self.kernel;
        match kernel.shared.get(s) {
            Some(a) if a.sizes.len() == dims => Ok(a),
            Some(_) => Err(Error::InvalidGeometry(kernel.name.clone())),
            None => Err(Error::UnknownArray(format!(
                "shared array {s} of {}",
                kernel.name
            ))),
        }
    }

    /// A copy of a box of a global array into a shared array by all threads of the
    /// block: the box's elements numbered row-major, thread `t` (linearised over the
    /// block's dimensions, `x` fastest) copying the numbers `t, t + size, ...`.
    fn copy(
        &mut self,
        s: usize,
        offset: &[pollen_codegen::Expr],
        lower: &[pollen_codegen::Expr],
        upper: &[pollen_codegen::Expr],
        depth: usize,
    ) -> Result<()> {
        let a = self.shared_array(s, offset.len())?;
        if lower.len() != offset.len() || upper.len() != offset.len() {
            return Err(Error::InvalidGeometry(self.kernel.name.clone()));
        }
        let plan = self.plan;
        let name = plan.shared(&a.name);
        let n: Vec<String> = (0..offset.len())
            .map(|d| plan.shared(&format!("copy_n{d}")))
            .collect();
        let x: Vec<String> = (0..offset.len())
            .map(|d| plan.shared(&format!("copy_x{d}")))
            .collect();
        let t = plan.shared("copy_t");
        let mut lo = Vec::new();
        for d in 0..offset.len() {
            let l = self.exprs.expr(&lower[d])?;
            let u = self.exprs.expr(&upper[d])?;
            self.line(depth, &format!("{} = ({u}) - ({l}) + 1;", n[d]));
            lo.push(l);
        }
        let positive: Vec<String> = n.iter().map(|v| format!("{v} > 0")).collect();
        self.line(depth, &format!("if ({}) {{", positive.join(" && ")));
        // The thread's index in the block and the block's size.
        let dims = self.block_dims.max(1);
        let mut index = format!("(long){}", self.dialect.local_id(dims - 1));
        for d in (0..dims - 1).rev() {
            index = format!(
                "(long){} + {} * ({index})",
                self.dialect.local_id(d),
                self.dialect.local_size(d)
            );
        }
        let size: Vec<String> = (0..dims).map(|d| self.dialect.local_size(d)).collect();
        self.line(
            depth + 1,
            &format!(
                "for ({t} = {index}; {t} < {}; {t} += {}) {{",
                n.join(" * "),
                size.join(" * ")
            ),
        );
        for d in 0..offset.len() {
            let below = &n[d + 1..];
            let number = if below.is_empty() {
                t.clone()
            } else {
                format!("{t} / ({})", below.join(" * "))
            };
            let number = if d == 0 {
                number
            } else {
                format!("({number}) % {}", n[d])
            };
            self.line(depth + 2, &format!("{} = {} + {number};", x[d], lo[d]));
        }
        let mut target = name;
        for d in 0..offset.len() {
            let o = self.exprs.expr(&offset[d])?;
            target.push_str(&format!("[{} - ({o})]", x[d]));
        }
        let mut source = x[0].clone();
        for (d, v) in x.iter().enumerate().skip(1) {
            source = format!("({source}) * {} + {v}", plan.extent(&a.array, d));
        }
        self.line(depth + 2, &format!("{target} = {}[{source}];", a.array));
        self.line(depth + 1, "}");
        self.line(depth, "}");
        Ok(())
    }

    /// A loop, sequential or a stride loop over the mapped dimension.
    fn for_loop(&mut self, l: &KernelLoop, depth: usize) -> Result<()> {
        if !l.stride.is_positive() {
            return Err(Error::NonPositiveStride(l.stride.to_string()));
        }
        if let Some(lanes) = &l.lanes {
            return self.lane_loop(l, lanes, depth);
        }
        let lower = self.exprs.expr(&l.lower)?;
        let upper = self.exprs.expr(&l.upper)?;
        let c = self.plan.iterator(&l.iterator);
        let times = |s: &Int| {
            if s.is_one() {
                String::new()
            } else {
                format!(" * {s}")
            }
        };
        let header = match self.dialect.spread(l.mapping) {
            None if l.stride.is_one() => format!("for ({c} = {lower}; {c} <= {upper}; {c}++)"),
            None => format!("for ({c} = {lower}; {c} <= {upper}; {c} += {})", l.stride),
            Some((index, count)) => {
                let start = if lower == "0" {
                    format!("{index}{}", times(&l.stride))
                } else {
                    format!("{lower} + {index}{}", times(&l.stride))
                };
                format!(
                    "for ({c} = {start}; {c} <= {upper}; {c} += {count}{})",
                    times(&l.stride)
                )
            }
        };
        self.line(depth, &format!("{header} {{"));
        self.exprs.enter(&l.iterator, &c);
        if let Some(ctx) = &mut self.lane {
            ctx.inner += 1;
        }
        let body = self.ast(&l.body, depth + 1);
        if let Some(ctx) = &mut self.lane {
            ctx.inner -= 1;
        }
        self.exprs.leave();
        body?;
        self.line(depth, "}");
        Ok(())
    }

    /// A thread-mapped loop run in lane groups ([`pollen_gpu::Lanes`]): each thread
    /// steps over groups of `w` iterations. A full group runs the body once, each
    /// statement for all its lanes ([`KernelPrinter::lane_user`]); a partial group runs
    /// its iterations one after the other.
    fn lane_loop(&mut self, l: &KernelLoop, lanes: &pollen_gpu::Lanes, depth: usize) -> Result<()> {
        let width = lanes.width;
        if !l.stride.is_one() || !matches!(width, 2 | 4 | 8) || self.lane.is_some() {
            return Err(Error::InvalidGeometry(self.kernel.name.clone()));
        }
        let Some((index, count)) = self.dialect.spread(l.mapping) else {
            return Err(Error::InvalidGeometry(self.kernel.name.clone()));
        };
        let lower = self.exprs.expr(&l.lower)?;
        let upper = self.exprs.expr(&l.upper)?;
        let c = self.plan.iterator(&l.iterator);
        let start = if lower == "0" {
            format!("{width} * {index}")
        } else {
            format!("{lower} + {width} * {index}")
        };
        self.line(
            depth,
            &format!("for ({c} = {start}; {c} <= {upper}; {c} += {width} * {count}) {{"),
        );
        self.line(
            depth + 1,
            &format!("if ({c} + {} <= {upper}) {{", width - 1),
        );
        self.lane = Some(LaneContext {
            iterator: l.iterator.clone(),
            printed: c.clone(),
            width,
            contiguous: lanes.contiguous.clone(),
            inner: 0,
        });
        self.exprs.enter(&l.iterator, &c);
        let body = self.ast(&l.body, depth + 2);
        self.exprs.leave();
        self.lane = None;
        body?;
        self.line(depth + 1, "} else {");
        let lane = self.plan.shared("lane");
        let last = pollen_codegen::Expr::Min(vec![
            l.upper.clone(),
            pollen_codegen::Expr::Add(vec![
                pollen_codegen::Expr::var(&l.iterator),
                pollen_codegen::Expr::int(i64::from(width) - 1),
            ]),
        ]);
        self.exprs.enter(&l.iterator, &c);
        let last = self.exprs.expr(&last);
        self.exprs.leave();
        self.line(
            depth + 2,
            &format!("for ({lane} = {c}; {lane} <= {}; {lane}++) {{", last?),
        );
        self.exprs.enter(&l.iterator, &lane);
        let body = self.ast(&l.body, depth + 3);
        self.exprs.leave();
        body?;
        self.line(depth + 2, "}");
        self.line(depth + 1, "}");
        self.line(depth, "}");
        Ok(())
    }

    /// A statement instance of a full lane group, for all its lanes: where it has
    /// contiguous references (inside an inner loop, to arrays it does not write), their
    /// vectors are loaded, the statement's arithmetic runs once per lane on their
    /// elements, and its written vector is stored; in CUDA only where every vector's
    /// address is aligned to its size, the lanes' plain statements otherwise.
    fn lane_user(
        &mut self,
        statement: &str,
        args: &[pollen_codegen::Expr],
        depth: usize,
    ) -> Result<()> {
        let Some(ctx) = self.lane.clone() else {
            return Err(Error::InvalidGeometry(self.kernel.name.clone()));
        };
        let Some(s) = self.plan.scop.statement(statement) else {
            return Err(Error::UnknownStatement(statement.to_string()));
        };
        let written: BTreeSet<&str> = s
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Write)
            .map(|a| a.array.as_str())
            .collect();
        let contiguous: BTreeSet<String> = ctx
            .contiguous
            .iter()
            .filter(|(st, a)| st == statement && (ctx.inner == 0 || !written.contains(a.as_str())))
            .map(|(_, a)| a.clone())
            .collect();
        let group = self.lane_group(statement, args, &ctx, &contiguous)?;
        if group.slots.is_empty() {
            for text in &group.lanes {
                self.line(depth, text);
            }
            return Ok(());
        }
        let vector_depth = match self.dialect {
            Dialect::Cuda => {
                let mut guard: Vec<String> = Vec::new();
                for slot in &group.slots {
                    let test = format!(
                        "(size_t)&{}[{}] % sizeof({}) == 0",
                        slot.array,
                        slot.index,
                        self.vector_type(&slot.element_type, ctx.width)
                    );
                    if !guard.contains(&test) {
                        guard.push(test);
                    }
                }
                self.line(depth, &format!("if ({}) {{", guard.join(" && ")));
                depth + 1
            }
            Dialect::OpenCl => {
                self.line(depth, "{");
                depth + 1
            }
        };
        for slot in &group.slots {
            let line = self.slot_declaration(slot, ctx.width);
            self.line(vector_depth, &line);
        }
        for text in &group.lanes {
            self.line(vector_depth, text);
        }
        for slot in group.slots.iter().filter(|s| s.store) {
            let line = self.slot_store(slot, ctx.width);
            self.line(vector_depth, &line);
        }
        if self.dialect == Dialect::Cuda {
            self.line(depth, "} else {");
            let scalar = self.lane_group(statement, args, &ctx, &BTreeSet::new())?;
            for text in &scalar.lanes {
                self.line(depth + 1, text);
            }
        }
        self.line(depth, "}");
        Ok(())
    }

    /// One statement of a lane group: its vector slots (the distinct references to the
    /// `contiguous` arrays) and its text for each lane. A statement that writes a
    /// contiguous reference other than by its leading assignment keeps every reference
    /// scalar.
    fn lane_group(
        &mut self,
        statement: &str,
        args: &[pollen_codegen::Expr],
        ctx: &LaneContext,
        contiguous: &BTreeSet<String>,
    ) -> Result<LaneGroup> {
        let mut vector = !contiguous.is_empty();
        loop {
            let mut slots: Vec<Slot> = Vec::new();
            let mut lane_texts = Vec::new();
            let mut numbering: Vec<usize> = Vec::new();
            let mut usable = true;
            for k in 0..ctx.width {
                let at = if k == 0 {
                    ctx.printed.clone()
                } else {
                    format!("({} + {k})", ctx.printed)
                };
                self.exprs.enter(&ctx.iterator, &at);
                let rendered = self.lane_text(statement, args, vector.then_some(contiguous));
                self.exprs.leave();
                let (mut text, refs) = rendered?;
                if k == 0 {
                    let leading = body::lane_placeholder(0);
                    for (n, r) in refs.iter().enumerate() {
                        if r.written && !(n == 0 && text.starts_with(&leading)) {
                            usable = false;
                        }
                        let found = slots
                            .iter()
                            .position(|s| s.array == r.array && s.index == r.index);
                        let j = match found {
                            Some(j) => j,
                            None => {
                                let element_type = self
                                    .plan
                                    .arrays
                                    .get(r.array.as_str())
                                    .map(|a| a.element_type.clone())
                                    .ok_or_else(|| Error::UnknownArray(r.array.clone()))?;
                                slots.push(Slot {
                                    name: self.plan.shared(&format!("lane_v{}", slots.len())),
                                    array: r.array.clone(),
                                    index: r.index.clone(),
                                    element_type,
                                    load: false,
                                    store: false,
                                });
                                slots.len() - 1
                            }
                        };
                        if r.written {
                            slots[j].store = true;
                            // A compound assignment reads the element too.
                            let op = text[leading.len()..].trim_start();
                            if !op.starts_with('=') || op.starts_with("==") {
                                slots[j].load = true;
                            }
                        } else {
                            slots[j].load = true;
                        }
                        numbering.push(j);
                    }
                }
                if !usable {
                    break;
                }
                if refs.len() != numbering.len() {
                    return Err(Error::InvalidGeometry(self.kernel.name.clone()));
                }
                for (n, &j) in numbering.iter().enumerate() {
                    let element = self.lane_element(&slots[j].name, k);
                    text = text.replace(&body::lane_placeholder(n), &element);
                }
                lane_texts.push(text);
            }
            if usable {
                return Ok(LaneGroup {
                    slots,
                    lanes: lane_texts,
                });
            }
            vector = false;
        }
    }

    /// A statement's text (inline, with the kernel's names) with the references to
    /// `contiguous` arrays (those held in flat buffers) as lane placeholders.
    fn lane_text(
        &mut self,
        statement: &str,
        args: &[pollen_codegen::Expr],
        contiguous: Option<&BTreeSet<String>>,
    ) -> Result<(String, Vec<body::LaneRef>)> {
        let Some(s) = self.plan.scop.statement(statement) else {
            return Err(Error::UnknownStatement(statement.to_string()));
        };
        if s.iterators.len() != args.len() {
            return Err(Error::ArityMismatch {
                statement: statement.to_string(),
                expected: s.iterators.len(),
                found: args.len(),
            });
        }
        let mut renames = self.renames.clone();
        for array in contiguous.into_iter().flatten() {
            if let Some(Rename::Flat(extents)) = renames.get(array.as_str()) {
                let extents = extents.clone();
                renames.insert(array.to_string(), Rename::Lane(extents));
            }
        }
        for (iterator, value) in s.iterators.iter().zip(args) {
            renames.insert(iterator.clone(), Rename::Text(self.exprs.argument(value)?));
        }
        body::kernel_statement(statement, &s.body, &renames)
    }

    /// The vector type of `width` elements of `element`.
    fn vector_type(&self, element: &str, width: u32) -> String {
        format!("pollen_lanes<{element}, {width}>")
    }

    /// Lane `k` of the vector variable `name`.
    fn lane_element(&self, name: &str, k: u32) -> String {
        match self.dialect {
            Dialect::Cuda => format!("{name}.pollen_v[{k}]"),
            Dialect::OpenCl => format!("{name}[{k}]"),
        }
    }

    /// The declaration of a slot's vector variable, loaded from memory when the
    /// statement reads it.
    fn slot_declaration(&self, slot: &Slot, width: u32) -> String {
        let (name, array, index, element) =
            (&slot.name, &slot.array, &slot.index, &slot.element_type);
        match self.dialect {
            Dialect::Cuda => {
                let vector = self.vector_type(element, width);
                if slot.load {
                    format!(
                        "{vector} {name}; {name}.pollen_bits = *(const {vector}::pollen_bits_type *)&{array}[{index}];"
                    )
                } else {
                    format!("{vector} {name};")
                }
            }
            Dialect::OpenCl => {
                if slot.load {
                    format!(
                        "{element} {name}[{width}]; vstore{width}(vload{width}(0, &{array}[{index}]), 0, {name});"
                    )
                } else {
                    format!("{element} {name}[{width}];")
                }
            }
        }
    }

    /// The store of a slot's vector variable to memory.
    fn slot_store(&self, slot: &Slot, width: u32) -> String {
        let (name, array, index) = (&slot.name, &slot.array, &slot.index);
        match self.dialect {
            Dialect::Cuda => format!("pollen_vst(&{array}[{index}], {name}.pollen_bits);"),
            Dialect::OpenCl => {
                format!("vstore{width}(vload{width}(0, {name}), 0, &{array}[{index}]);")
            }
        }
    }

    /// A statement instance, inline (for all lanes inside a lane group).
    fn user(&mut self, statement: &str, args: &[pollen_codegen::Expr], depth: usize) -> Result<()> {
        if self.lane.is_some() {
            return self.lane_user(statement, args, depth);
        }
        // Without contiguous arrays the text has no lane placeholders.
        let (text, _) = self.lane_text(statement, args, None)?;
        self.line(depth, &text);
        Ok(())
    }
}

/// One statement of a lane group, as printed.
struct LaneGroup {
    /// The vector variables, in order of first reference.
    slots: Vec<Slot>,
    /// The statement's text for each lane, its vector references replaced by the lanes'
    /// elements.
    lanes: Vec<String>,
}

/// A vector of consecutive elements that a lane group's statement reads or writes.
struct Slot {
    /// The vector variable.
    name: String,
    /// The array.
    array: String,
    /// The flat subscript of the group's first element.
    index: String,
    /// The array's element type.
    element_type: String,
    /// Whether the statement reads it (loaded before the lanes).
    load: bool,
    /// Whether the statement writes it (stored after the lanes).
    store: bool,
}
