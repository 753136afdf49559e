//! The mapping of a loop AST to host control and kernels (see the crate documentation
//! for the scheme).

use std::collections::{BTreeMap, BTreeSet};

use pollen_arith::Int;
use pollen_codegen::{Ast, Expr, Loop};
use pollen_scop::{AccessKind, Scop};

use crate::error::{Error, Result};
use crate::extent::{cond_vars, constant_trip, expr_vars, trip_bound, Range};
use crate::program::{
    ArrayKind, DeviceArray, GpuProgram, Host, Kernel, KernelAst, KernelLoop, Lanes, Mapping,
    SharedArray,
};
use crate::promote::{subscripts, Affine, Promoter};

/// The most threads one block may hold.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

/// The options of [`map`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Threads per block, `x` first (one to three entries, each at least 1, product at
    /// most [`MAX_THREADS_PER_BLOCK`]); `None` (the default) chooses them from the
    /// kernel (see [`block_model`]). A kernel uses as many block dimensions as it maps
    /// thread dimensions: extra entries are dropped and missing ones are 1.
    pub block: Option<Vec<u32>>,
    /// The most blocks along one grid dimension (default 65535, CUDA's limit for `y`
    /// and `z`): grid sizes are capped by it. Mapped loops are stride loops, so the
    /// cap costs speed, never correctness.
    pub max_grid: u32,
    /// The number of blocks along a grid dimension whose mapped loop has no trip-count
    /// bound that the host can compute (a triangular loop whose bounds mention an outer
    /// block-mapped iterator): default 32.
    pub default_grid: u32,
    /// Whether reused or transposed tiles of arrays that a kernel only reads are copied
    /// to the block's shared memory (default on; see the crate documentation).
    pub shared_memory: bool,
    /// Whether tiles without reuse whose reads are transposed (the threads along `x`
    /// moving a subscript other than the last) are copied too, when `shared_memory` is
    /// on (default on, as PPCG does for uncoalesced references).
    pub transposed_tiles: bool,
    /// The most bytes of shared memory one block's promoted arrays may take (default
    /// 48 KiB); elements count 8 bytes unless their type is `float`.
    pub shared_memory_bytes: u64,
    /// Statements to run as vector lanes, each with the position of its iterator along
    /// which its references are contiguous (constraint injection's innermost pick):
    /// a thread-mapped `x` loop whose body is such statements only, each with that
    /// iterator equal to the loop's iterator plus a constant, runs groups of
    /// [`GpuOptions::lane_width`] iterations per thread ([`crate::Lanes`]). Empty by
    /// default.
    pub lanes: BTreeMap<String, usize>,
    /// The iterations per lane group (default 4: one 16-byte vector of `float`).
    pub lane_width: u32,
    /// Whether a lane loop's body may hold loops (bounds and guards that do not mention
    /// its iterator): the group is then jammed into them, a register tile of
    /// `lane_width` outputs per thread for a reduction (default off: on an H200 it made
    /// the operators' batched matrix products and 1×1 convolution 1.5× slower, the
    /// lanes' accumulators being accessed with a stride of `lane_width` across a warp).
    pub lane_jam: bool,
}

impl Default for GpuOptions {
    fn default() -> GpuOptions {
        GpuOptions {
            block: None,
            max_grid: 65535,
            default_grid: 32,
            shared_memory: true,
            transposed_tiles: true,
            shared_memory_bytes: 48 * 1024,
            lanes: BTreeMap::new(),
            lane_width: 4,
            lane_jam: false,
        }
    }
}

impl GpuOptions {
    fn validate(&self) -> Result<()> {
        if !matches!(self.lane_width, 2 | 4 | 8) {
            return Err(Error::InvalidOptions(format!(
                "a lane group has 2, 4 or 8 iterations, not {}",
                self.lane_width
            )));
        }
        if self.max_grid == 0 || self.default_grid == 0 {
            return Err(Error::InvalidOptions(
                "grid sizes must be at least 1".to_string(),
            ));
        }
        if let Some(b) = &self.block {
            if b.is_empty() || b.len() > 3 {
                return Err(Error::InvalidOptions(format!(
                    "a block has one to three dimensions, not {}",
                    b.len()
                )));
            }
            if b.contains(&0) {
                return Err(Error::InvalidOptions(
                    "block sizes must be at least 1".to_string(),
                ));
            }
            let product = b.iter().try_fold(1u32, |p, &x| p.checked_mul(x));
            if !matches!(product, Some(p) if p <= MAX_THREADS_PER_BLOCK) {
                return Err(Error::InvalidOptions(format!(
                    "a block holds at most {MAX_THREADS_PER_BLOCK} threads"
                )));
            }
        }
        Ok(())
    }
}

/// The most threads per block that [`block_model`] chooses: a block of 1024 threads may
/// not launch when each thread needs many registers (CUDA's "too many resources
/// requested"), while 256 threads with their thread loops striding over a 32 × 32 tile
/// still keep every warp's `x` contiguous.
pub const MODEL_THREADS_PER_BLOCK: u32 = 256;

/// The block sizes chosen when [`GpuOptions::block`] is `None`, for a kernel with
/// `extents.len()` (one to three) thread dimensions, `x` first, each with a constant
/// bound on the trip counts of its thread loops where there is one (the tile sizes of
/// a tiled band).
///
/// A dimension with a known extent `c` gets `c` threads (between 1 and 1024); the
/// others get the defaults `256` (one dimension), `32 × 8` (two) or `32 × 4 × 2`
/// (three), whose `x` is a multiple of the 32-thread warp. While the product exceeds
/// [`MODEL_THREADS_PER_BLOCK`], the outermost dimension above 1 is halved (rounding up):
/// the threads then stride over the rest of the tile.
pub fn block_model(extents: &[Option<Int>]) -> Vec<u32> {
    let defaults: &[u32] = match extents.len() {
        0 | 1 => &[256],
        2 => &[32, 8],
        _ => &[32, 4, 2],
    };
    let mut sizes: Vec<u32> = defaults
        .iter()
        .enumerate()
        .map(|(d, &default)| match extents.get(d).cloned().flatten() {
            Some(c) => {
                let c = c.max(Int::one()).min(Int::from(MAX_THREADS_PER_BLOCK));
                c.to_i64().and_then(|x| u32::try_from(x).ok()).unwrap_or(1)
            }
            None => default,
        })
        .collect();
    while sizes.iter().map(|&x| u64::from(x)).product::<u64>() > u64::from(MODEL_THREADS_PER_BLOCK)
    {
        match sizes.iter().rposition(|&x| x > 1) {
            Some(d) => sizes[d] = sizes[d].div_ceil(2),
            None => break,
        }
    }
    sizes
}

/// Maps the loop AST of a scop to a GPU program (see the crate documentation).
///
/// Fails on an array or scalar the kernels must hold without a known element type or
/// extent, a statement the scop does not have, an access to an undeclared array, a loop
/// with a non-positive stride, or options outside their ranges; never panics.
pub fn map(scop: &Scop, ast: &Ast, options: &GpuOptions) -> Result<GpuProgram> {
    options.validate()?;
    let mut taken = BTreeSet::new();
    collect_names(ast, &mut taken);
    taken.extend(scop.params.iter().cloned());
    taken.extend(scop.arrays.iter().map(|a| a.name.clone()));
    let mut m = Mapper {
        scop,
        options,
        params: scop.params.iter().cloned().collect(),
        host_iterators: Vec::new(),
        kernels: Vec::new(),
        single: Vec::new(),
        taken,
    };
    let host = m.host(ast)?;
    let arrays = m.arrays()?;
    for k in &mut m.kernels {
        k.arrays = arrays
            .iter()
            .filter(|a| k.arrays.contains(&a.name))
            .map(|a| a.name.clone())
            .collect();
    }
    Ok(GpuProgram {
        arrays,
        host,
        kernels: m.kernels,
    })
}

/// The state of one mapping.
struct Mapper<'a> {
    scop: &'a Scop,
    options: &'a GpuOptions,
    params: BTreeSet<String>,
    /// The host loops around the current point, outermost first.
    host_iterators: Vec<String>,
    kernels: Vec<Kernel>,
    /// Per kernel: whether it runs on one thread (grid 1, block 1) and is launched once
    /// (outside every host loop).
    single: Vec<bool>,
    /// Every name of the AST and the scop, for fresh iterator names.
    taken: BTreeSet<String>,
}

/// One thread dimension's mapped loops: constant trip bounds (`None` where unknown).
type ThreadExtents = Vec<Vec<Option<Int>>>;

impl Mapper<'_> {
    /// The host code of `ast`.
    fn host(&mut self, ast: &Ast) -> Result<Host> {
        if !has_parallel(ast) {
            return Ok(self
                .single_kernel(&[ast])?
                .map_or(Host::Block(vec![]), Host::Launch));
        }
        match ast {
            Ast::Block(children) => {
                let mut out = Vec::new();
                let mut pending: Vec<&Ast> = Vec::new();
                for c in children {
                    if has_parallel(c) {
                        if let Some(k) = self.single_kernel(&pending)? {
                            out.push(Host::Launch(k));
                        }
                        pending.clear();
                        out.push(self.host(c)?);
                    } else {
                        pending.push(c);
                    }
                }
                if let Some(k) = self.single_kernel(&pending)? {
                    out.push(Host::Launch(k));
                }
                Ok(if out.len() == 1 {
                    out.remove(0)
                } else {
                    Host::Block(out)
                })
            }
            Ast::For(l) if l.parallel => Ok(Host::Launch(self.parallel_kernel(l)?)),
            Ast::For(l) => {
                check_stride(l)?;
                self.host_iterators.push(l.iterator.clone());
                let body = self.host(&l.body);
                self.host_iterators.pop();
                Ok(Host::For {
                    iterator: l.iterator.clone(),
                    lower: l.lower.clone(),
                    upper: l.upper.clone(),
                    stride: l.stride.clone(),
                    body: Box::new(body?),
                })
            }
            Ast::If {
                cond,
                then,
                otherwise,
            } => Ok(Host::If {
                cond: cond.clone(),
                then: Box::new(self.host(then)?),
                otherwise: match otherwise {
                    Some(o) => Some(Box::new(self.host(o)?)),
                    None => None,
                },
            }),
            Ast::User { .. } => Ok(self
                .single_kernel(&[ast])?
                .map_or(Host::Block(vec![]), Host::Launch)),
        }
    }

    /// A kernel of one thread running `parts` in order, or `None` when they run no
    /// statement.
    fn single_kernel(&mut self, parts: &[&Ast]) -> Result<Option<usize>> {
        if !parts.iter().any(|p| has_statement(p)) {
            return Ok(None);
        }
        let body = parts
            .iter()
            .map(|p| sequential(p))
            .collect::<Result<Vec<_>>>()?;
        let body = if body.len() == 1 {
            body.into_iter().next().unwrap_or(KernelAst::Block(vec![]))
        } else {
            KernelAst::Block(body)
        };
        Ok(Some(self.finish(
            vec![Expr::int(1)],
            vec![1],
            body,
            true,
        )?))
    }

    /// The kernel that starts at the host-level parallel loop `l`.
    fn parallel_kernel(&mut self, l: &Loop) -> Result<usize> {
        let chain = parallel_chain(l, usize::MAX);
        for c in &chain {
            check_stride(c)?;
        }
        // Block loops: the chain up to a suffix of loops with constant trip counts
        // (the point loops of a tile), at most three.
        let constant = |k: usize| {
            chain[k..]
                .iter()
                .all(|c| constant_trip(&c.lower, &c.upper, &c.stride).is_some())
        };
        let split = (1..chain.len())
            .find(|&k| constant(k))
            .unwrap_or(chain.len());
        // The innermost three loops before the split go to blocks; outer ones (a deep
        // band's batch dimensions) run in every block, before the block loops: the
        // chain's loops are all parallel, so any order of its points is the program's.
        let first = split.saturating_sub(3);
        let outer = &chain[..first];
        let p = split - first;
        let blocks = &chain[first..split];
        let inner = &blocks[p - 1].body;
        let mut names: Vec<String> = chain[..split].iter().map(|c| c.iterator.clone()).collect();
        let wrap = |mut body: KernelAst| {
            for c in outer.iter().rev() {
                body = mapped(c, Mapping::Sequential, body);
            }
            body
        };
        if self.has_thread_loop(inner, &mut names) {
            let mut extents: ThreadExtents = Vec::new();
            let mut items = Vec::new();
            self.uniform(inner, &mut names, &mut items, &mut extents)?;
            strip_trailing_barriers(&mut items);
            let shared = self.promote(&mut items)?;
            let block = self.block_sizes(&extents);
            let nd = block.len();
            let mut body = KernelAst::Block(items);
            self.pad_thread_chains(&mut body, nd);
            let mut grid = vec![Expr::int(1); p];
            for (k, c) in blocks.iter().enumerate().rev() {
                let d = p - 1 - k;
                grid[d] = self.grid_extent(c, &chain[..first + k], None);
                body = mapped(c, Mapping::Block(d as u8), body);
            }
            let index = self.finish(grid, block, wrap(body), false)?;
            if let Some(k) = self.kernels.get_mut(index) {
                k.shared = shared;
            }
            return Ok(index);
        }
        let innermost = blocks[p - 1];
        let extent = constant_trip(&innermost.lower, &innermost.upper, &innermost.stride);
        let lanes = if p == 1 { None } else { self.lanes(innermost) };
        let extent = match &lanes {
            Some(lanes) => {
                let width = Int::from(lanes.width);
                extent.map(|t| t.ceil_div(&width))
            }
            None => extent,
        };
        let block = self.block_sizes(&vec![vec![extent]]);
        let mut body = sequential(&innermost.body)?;
        if p == 1 {
            body = mapped(innermost, Mapping::Global(0), body);
            let grid = vec![self.grid_extent(innermost, &chain[..first], Some(block[0]))];
            return self.finish(grid, block, wrap(body), false);
        }
        body = match lanes {
            Some(lanes) => lane_mapped(innermost, lanes, body),
            None => mapped(innermost, Mapping::Thread(0), body),
        };
        let mut grid = vec![Expr::int(1); p - 1];
        for (k, c) in blocks[..p - 1].iter().enumerate().rev() {
            let d = p - 2 - k;
            grid[d] = self.grid_extent(c, &chain[..first + k], None);
            body = mapped(c, Mapping::Block(d as u8), body);
        }
        self.finish(grid, block, wrap(body), false)
    }

    /// Promotes reused or transposed tiles of the arrays that the kernel whose uniform code is
    /// `items` only reads to shared memory, when the options ask for it; returns the
    /// shared arrays.
    fn promote(&mut self, items: &mut Vec<KernelAst>) -> Result<Vec<SharedArray>> {
        if !self.options.shared_memory {
            return Ok(Vec::new());
        }
        let mut statements = BTreeSet::new();
        items
            .iter()
            .for_each(|i| kernel_statements(i, &mut statements));
        let mut written = BTreeSet::new();
        for s in &statements {
            let stmt = self
                .scop
                .statement(s)
                .ok_or_else(|| Error::UnknownStatement(s.clone()))?;
            for a in &stmt.accesses {
                if a.kind == AccessKind::Write {
                    written.insert(a.array.clone());
                }
            }
        }
        let mut p = Promoter {
            scop: self.scop,
            bytes_left: self.options.shared_memory_bytes,
            transposed_tiles: self.options.transposed_tiles,
            written,
            shared: Vec::new(),
            taken: &mut self.taken,
        };
        p.kernel(items);
        Ok(p.shared)
    }

    /// Whether a parallel loop is reached from `ast` through block-uniform code only.
    fn has_thread_loop(&self, ast: &Ast, names: &mut Vec<String>) -> bool {
        if !self.uniform_header(ast, names) {
            return false;
        }
        match ast {
            Ast::Block(v) => v.iter().any(|c| self.has_thread_loop(c, names)),
            Ast::For(l) if l.parallel => true,
            Ast::For(l) => {
                names.push(l.iterator.clone());
                let found = self.has_thread_loop(&l.body, names);
                names.pop();
                found
            }
            Ast::If {
                then, otherwise, ..
            } => {
                self.has_thread_loop(then, names)
                    || otherwise
                        .as_ref()
                        .is_some_and(|o| self.has_thread_loop(o, names))
            }
            Ast::User { .. } => false,
        }
    }

    /// Whether the bounds or the condition at the head of `ast` mention only
    /// parameters, host iterators and `names` (block-mapped and uniform iterators).
    fn uniform_header(&self, ast: &Ast, names: &[String]) -> bool {
        let mut vars = BTreeSet::new();
        match ast {
            Ast::For(l) => {
                expr_vars(&l.lower, &mut vars);
                expr_vars(&l.upper, &mut vars);
            }
            Ast::If { cond, .. } => cond_vars(cond, &mut vars),
            Ast::Block(_) | Ast::User { .. } => {}
        }
        vars.iter().all(|v| {
            self.params.contains(v) || self.host_iterators.contains(v) || names.contains(v)
        })
    }

    /// The block-uniform code `ast` under the block loops, appended to `out`: thread
    /// chains for its parallel loops, sequential loops and guards around them, and
    /// the rest run by one thread; a barrier after each thread chain and each
    /// single-thread part.
    fn uniform(
        &mut self,
        ast: &Ast,
        names: &mut Vec<String>,
        out: &mut Vec<KernelAst>,
        extents: &mut ThreadExtents,
    ) -> Result<()> {
        if !has_parallel(ast) || !self.uniform_header(ast, names) {
            if has_statement(ast) {
                out.push(KernelAst::SingleThread(Box::new(sequential(ast)?)));
                out.push(KernelAst::Barrier);
            }
            return Ok(());
        }
        match ast {
            Ast::Block(children) => {
                let mut pending: Vec<&Ast> = Vec::new();
                for c in children {
                    if has_parallel(c) && self.uniform_header(c, names) {
                        single_thread(&pending, out)?;
                        pending.clear();
                        self.uniform(c, names, out, extents)?;
                    } else {
                        pending.push(c);
                    }
                }
                single_thread(&pending, out)?;
            }
            Ast::For(l) if l.parallel && !tile_loop_above_points(l) => {
                out.push(self.thread_chain(l, extents)?);
                out.push(KernelAst::Barrier);
            }
            Ast::For(l) => {
                // A sequential loop, or a parallel tile loop above the point loops that
                // go to threads: every thread of the block runs its iterations.
                check_stride(l)?;
                names.push(l.iterator.clone());
                let mut items = Vec::new();
                let r = self.uniform(&l.body, names, &mut items, extents);
                names.pop();
                r?;
                out.push(mapped(l, Mapping::Sequential, KernelAst::Block(items)));
            }
            Ast::If {
                cond,
                then,
                otherwise,
            } => {
                let mut t = Vec::new();
                self.uniform(then, names, &mut t, extents)?;
                let o = match otherwise {
                    Some(o) => {
                        let mut items = Vec::new();
                        self.uniform(o, names, &mut items, extents)?;
                        Some(Box::new(KernelAst::Block(items)))
                    }
                    None => None,
                };
                out.push(KernelAst::If {
                    cond: cond.clone(),
                    then: Box::new(KernelAst::Block(t)),
                    otherwise: o,
                });
            }
            Ast::User { .. } => {}
        }
        Ok(())
    }

    /// The thread loops of the chain of parallel loops starting at `l`: its innermost
    /// three (innermost `x`), the outer ones run by every thread around them (the chain
    /// is parallel, so no barrier is needed between their iterations), everything
    /// inside sequential.
    fn thread_chain(&mut self, l: &Loop, extents: &mut ThreadExtents) -> Result<KernelAst> {
        let chain = parallel_chain(l, usize::MAX);
        for c in &chain {
            check_stride(c)?;
        }
        let first = chain.len().saturating_sub(3);
        let threads = &chain[first..];
        let n = threads.len();
        let mut body = sequential(&threads[n - 1].body)?;
        for (k, c) in threads.iter().enumerate().rev() {
            let d = n - 1 - k;
            if extents.len() <= d {
                extents.resize(d + 1, Vec::new());
            }
            let trip = constant_trip(&c.lower, &c.upper, &c.stride);
            let lanes = if d == 0 { self.lanes(c) } else { None };
            match lanes {
                Some(lanes) => {
                    let width = Int::from(lanes.width);
                    extents[d].push(trip.map(|t| t.ceil_div(&width)));
                    body = lane_mapped(c, lanes, body);
                }
                None => {
                    extents[d].push(trip);
                    body = mapped(c, Mapping::Thread(d as u8), body);
                }
            }
        }
        for c in chain[..first].iter().rev() {
            body = mapped(c, Mapping::Sequential, body);
        }
        Ok(body)
    }

    /// The lane groups of the thread-mapped `x` loop `l`, when [`GpuOptions::lanes`]
    /// asks for them: `l` has stride 1, its body is statements only (with
    /// [`GpuOptions::lane_jam`], also loops and guards whose bounds and conditions do not
    /// mention its iterator), every statement there is one of the options'
    /// statements, with its lane iterator equal to `l`'s iterator plus a constant and
    /// its other iterators not mentioning it, and some statement has a
    /// contiguous array (every reference to it moves by one element per iteration
    /// along its last subscript and stays in the others).
    fn lanes(&self, l: &Loop) -> Option<Lanes> {
        if self.options.lanes.is_empty() || !l.stride.is_one() {
            return None;
        }
        let c = l.iterator.as_str();
        let mut users = Vec::new();
        lane_body(&l.body, c, self.options.lane_jam, &mut users)?;
        let mut contiguous = Vec::new();
        for (statement, args) in users {
            let &position = self.options.lanes.get(statement)?;
            let stmt = self.scop.statement(statement)?;
            let affine: Vec<Affine> = args.iter().map(Affine::of).collect::<Option<_>>()?;
            for (k, a) in affine.iter().enumerate() {
                let coefficient = a.terms.get(c).cloned().unwrap_or_else(Int::zero);
                let wanted = if k == position {
                    Int::one()
                } else {
                    Int::zero()
                };
                if coefficient != wanted {
                    return None;
                }
            }
            let mut arrays: BTreeMap<&str, bool> = BTreeMap::new();
            for access in &stmt.accesses {
                let moves = subscripts(&access.relation, &affine).is_some_and(|subs| {
                    let along = |s: &Affine| s.terms.get(c).cloned().unwrap_or_else(Int::zero);
                    match subs.split_last() {
                        Some((last, rest)) => {
                            along(last).is_one() && rest.iter().all(|s| along(s).is_zero())
                        }
                        None => false,
                    }
                });
                *arrays.entry(access.array.as_str()).or_insert(true) &= moves;
            }
            for (array, moves) in arrays {
                let pair = (statement.to_string(), array.to_string());
                if moves && !contiguous.contains(&pair) {
                    contiguous.push(pair);
                }
            }
        }
        if contiguous.is_empty() {
            return None;
        }
        Some(Lanes {
            width: self.options.lane_width,
            contiguous,
        })
    }

    /// The block sizes of a kernel whose thread loops have these extents per dimension.
    fn block_sizes(&self, extents: &ThreadExtents) -> Vec<u32> {
        let nd = extents.len().clamp(1, 3);
        match &self.options.block {
            Some(b) => (0..nd).map(|d| b.get(d).copied().unwrap_or(1)).collect(),
            None => {
                let dims: Vec<Option<Int>> = (0..nd)
                    .map(|d| {
                        let known: Option<Vec<Int>> = extents
                            .get(d)
                            .map_or(Some(Vec::new()), |v| v.iter().cloned().collect());
                        known.and_then(|v| v.into_iter().max())
                    })
                    .collect();
                block_model(&dims)
            }
        }
    }

    /// Wraps every thread chain of fewer than `nd` dimensions in one-iteration loops
    /// mapped to the missing thread dimensions, so that only the threads whose index
    /// is zero along them run it.
    fn pad_thread_chains(&mut self, ast: &mut KernelAst, nd: usize) {
        match ast {
            KernelAst::Block(v) => v.iter_mut().for_each(|c| self.pad_thread_chains(c, nd)),
            KernelAst::If {
                then, otherwise, ..
            } => {
                self.pad_thread_chains(then, nd);
                if let Some(o) = otherwise {
                    self.pad_thread_chains(o, nd);
                }
            }
            KernelAst::For(l) => {
                let Mapping::Thread(d) = l.mapping else {
                    self.pad_thread_chains(&mut l.body, nd);
                    return;
                };
                for e in usize::from(d) + 1..nd {
                    let inner = std::mem::replace(ast, KernelAst::Block(vec![]));
                    *ast = KernelAst::For(KernelLoop {
                        iterator: self.fresh(&format!("pad{e}")),
                        lower: Expr::int(0),
                        upper: Expr::int(0),
                        stride: Int::one(),
                        mapping: Mapping::Thread(e as u8),
                        lanes: None,
                        body: Box::new(inner),
                    });
                }
            }
            KernelAst::Shared { body, .. } => self.pad_thread_chains(body, nd),
            KernelAst::User { .. }
            | KernelAst::SingleThread(_)
            | KernelAst::Barrier
            | KernelAst::Copy { .. } => {}
        }
    }

    /// A name that clashes with nothing in the AST or the scop.
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 0;
        while self.taken.contains(&name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        name
    }

    /// The number of blocks for the block- or globally mapped loop `l` inside the
    /// block loops `outer` (`threads` threads per block for a global mapping), capped
    /// by the options.
    fn grid_extent(&self, l: &Loop, outer: &[&Loop], threads: Option<u32>) -> Expr {
        let allowed =
            |v: &str| self.params.contains(v) || self.host_iterators.iter().any(|h| h == v);
        let ranges: Vec<Range<'_>> = outer
            .iter()
            .map(|o| Range {
                name: &o.iterator,
                lower: &o.lower,
                upper: &o.upper,
            })
            .collect();
        let cap = Int::from(self.options.max_grid);
        let Some(trips) = trip_bound(&l.lower, &l.upper, &l.stride, &allowed, &ranges) else {
            return Expr::Int(Int::from(self.options.default_grid).min(cap));
        };
        let blocks = match (threads, trips) {
            (Some(t), Expr::Int(c)) => Expr::Int(c.ceil_div(&Int::from(t))),
            (Some(t), e) if t > 1 => Expr::CeilDiv(Box::new(e), Int::from(t)),
            (_, e) => e,
        };
        match blocks {
            Expr::Int(c) => Expr::Int(c.max(Int::one()).min(cap)),
            e => Expr::Min(vec![e, Expr::Int(cap)]),
        }
    }

    /// Records a kernel and returns its index.
    fn finish(
        &mut self,
        grid: Vec<Expr>,
        block: Vec<u32>,
        body: KernelAst,
        single: bool,
    ) -> Result<usize> {
        let mut vars = BTreeSet::new();
        kernel_vars(&body, &mut vars);
        grid.iter().for_each(|g| expr_vars(g, &mut vars));
        let host_iterators = self
            .host_iterators
            .iter()
            .filter(|h| vars.contains(*h))
            .cloned()
            .collect();
        let mut statements = BTreeSet::new();
        kernel_statements(&body, &mut statements);
        let mut arrays = Vec::new();
        for s in &statements {
            let stmt = self
                .scop
                .statement(s)
                .ok_or_else(|| Error::UnknownStatement(s.clone()))?;
            for a in &stmt.accesses {
                if !arrays.contains(&a.array) {
                    arrays.push(a.array.clone());
                }
            }
        }
        let index = self.kernels.len();
        self.kernels.push(Kernel {
            name: format!("kernel{index}"),
            grid,
            block,
            host_iterators,
            arrays,
            body,
            shared: Vec::new(),
        });
        self.single.push(single && self.host_iterators.is_empty());
        Ok(index)
    }

    /// The device arrays: every array or scalar some statement accesses.
    fn arrays(&self) -> Result<Vec<DeviceArray>> {
        let mut read = BTreeSet::new();
        let mut written = BTreeSet::new();
        for s in &self.scop.statements {
            for a in &s.accesses {
                if self.scop.array(&a.array).is_none() {
                    return Err(Error::UnknownArray(a.array.clone()));
                }
                match a.kind {
                    AccessKind::Read => read.insert(a.array.clone()),
                    AccessKind::Write => written.insert(a.array.clone()),
                };
            }
        }
        // The kernels that run each statement.
        let mut runs: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
        for (k, kernel) in self.kernels.iter().enumerate() {
            let mut statements = BTreeSet::new();
            kernel_statements(&kernel.body, &mut statements);
            for s in statements {
                if let Some(stmt) = self.scop.statement(&s) {
                    runs.entry(stmt.name.as_str()).or_default().insert(k);
                }
            }
        }
        let mut out = Vec::new();
        for a in &self.scop.arrays {
            let (r, w) = (read.contains(&a.name), written.contains(&a.name));
            if !r && !w {
                continue;
            }
            let unsupported = |reason: String| Error::UnsupportedArray {
                name: a.name.clone(),
                reason,
            };
            if a.element_type.trim().is_empty() {
                return Err(unsupported("unknown element type".to_string()));
            }
            if let Some(d) = a.extents.iter().position(|e| e.trim().is_empty()) {
                return Err(unsupported(format!("unknown extent {}", d + 1)));
            }
            let kind = if !a.extents.is_empty() {
                ArrayKind::Buffer
            } else if !w {
                ArrayKind::Value
            } else if a.local && self.private(&a.name, &runs) {
                ArrayKind::Private
            } else {
                ArrayKind::ScalarBuffer
            };
            let transferred = !matches!(kind, ArrayKind::Private);
            out.push(DeviceArray {
                name: a.name.clone(),
                element_type: a.element_type.clone(),
                extents: a.extents.clone(),
                kind,
                copy_in: transferred && (r || w),
                copy_out: transferred && w,
            });
        }
        Ok(out)
    }

    /// Whether the local scalar `name` can be a variable of one kernel: every
    /// statement that accesses it runs in the same single-thread kernel, launched once
    /// (one thread runs every access, in the original order of the subtree it came
    /// from, so no value has to cross threads or launches).
    fn private(&self, name: &str, runs: &BTreeMap<&str, BTreeSet<usize>>) -> bool {
        let mut kernels = BTreeSet::new();
        for s in &self.scop.statements {
            if s.accesses.iter().any(|a| a.array == name) {
                match runs.get(s.name.as_str()) {
                    Some(ks) => kernels.extend(ks.iter().copied()),
                    None => return false,
                }
            }
        }
        kernels.len() == 1
            && kernels
                .iter()
                .all(|&k| self.single.get(k).copied().unwrap_or(false))
    }
}

/// The loop `l` with another body and a mapping.
fn mapped(l: &Loop, mapping: Mapping, body: KernelAst) -> KernelAst {
    KernelAst::For(KernelLoop {
        iterator: l.iterator.clone(),
        lower: l.lower.clone(),
        upper: l.upper.clone(),
        stride: l.stride.clone(),
        mapping,
        lanes: None,
        body: Box::new(body),
    })
}

/// The loop `l` mapped to the threads' `x` dimension in lane groups.
fn lane_mapped(l: &Loop, lanes: Lanes, body: KernelAst) -> KernelAst {
    let mut mapped = mapped(l, Mapping::Thread(0), body);
    if let KernelAst::For(k) = &mut mapped {
        k.lanes = Some(lanes);
    }
    mapped
}

/// The statements of the body `ast` of a lane loop over `c`, in order, when it holds
/// statements only, or with `jam` also loops and guards whose bounds and conditions do
/// not mention `c` (the lanes of a group then share them).
fn lane_body<'a>(
    ast: &'a Ast,
    c: &str,
    jam: bool,
    out: &mut Vec<(&'a str, &'a [Expr])>,
) -> Option<()> {
    match ast {
        Ast::Block(v) => v.iter().try_for_each(|a| lane_body(a, c, jam, out)),
        Ast::User { statement, args } => {
            out.push((statement.as_str(), args.as_slice()));
            Some(())
        }
        Ast::For(l) => {
            if !jam || l.lower.mentions(c) || l.upper.mentions(c) {
                return None;
            }
            lane_body(&l.body, c, jam, out)
        }
        Ast::If {
            cond,
            then,
            otherwise,
        } => {
            let mut vars = BTreeSet::new();
            cond_vars(cond, &mut vars);
            if !jam || vars.contains(c) {
                return None;
            }
            lane_body(then, c, jam, out)?;
            match otherwise {
                Some(o) => lane_body(o, c, jam, out),
                None => Some(()),
            }
        }
    }
}

/// The chain of perfectly nested parallel loops from `l` (through blocks of one child),
/// at most `cap` long.
fn parallel_chain(l: &Loop, cap: usize) -> Vec<&Loop> {
    let mut chain = vec![l];
    let mut current = l;
    while chain.len() < cap {
        match only_child(&current.body) {
            Ast::For(n) if n.parallel => {
                chain.push(n);
                current = n;
            }
            _ => break,
        }
    }
    chain
}

/// Whether `l` is a loop without a constant trip count (a tile loop) whose chain of
/// perfectly nested parallel loops ends with loops that have one (the point loops):
/// the threads go to those, and `l` runs in every thread of the block.
fn tile_loop_above_points(l: &Loop) -> bool {
    let chain = parallel_chain(l, usize::MAX);
    let constant = |c: &&Loop| constant_trip(&c.lower, &c.upper, &c.stride).is_some();
    !constant(&l) && chain.last().is_some_and(constant)
}

/// `ast` without the blocks of one child around it.
fn only_child(ast: &Ast) -> &Ast {
    match ast {
        Ast::Block(v) if v.len() == 1 => only_child(&v[0]),
        a => a,
    }
}

/// Appends a single-thread part running `parts` and its barrier, when they run a
/// statement.
fn single_thread(parts: &[&Ast], out: &mut Vec<KernelAst>) -> Result<()> {
    if !parts.iter().any(|p| has_statement(p)) {
        return Ok(());
    }
    let body = parts
        .iter()
        .map(|p| sequential(p))
        .collect::<Result<Vec<_>>>()?;
    out.push(KernelAst::SingleThread(Box::new(KernelAst::Block(body))));
    out.push(KernelAst::Barrier);
    Ok(())
}

/// Drops the barriers at the end of the kernel's uniform code (after its last part,
/// nothing waits for them).
fn strip_trailing_barriers(items: &mut Vec<KernelAst>) {
    loop {
        match items.last_mut() {
            Some(KernelAst::Barrier) => {
                items.pop();
            }
            Some(KernelAst::Block(inner)) => {
                strip_trailing_barriers(inner);
                return;
            }
            _ => return,
        }
    }
}

/// `ast` with every loop sequential.
fn sequential(ast: &Ast) -> Result<KernelAst> {
    Ok(match ast {
        Ast::Block(v) => KernelAst::Block(v.iter().map(sequential).collect::<Result<_>>()?),
        Ast::For(l) => {
            check_stride(l)?;
            mapped(l, Mapping::Sequential, sequential(&l.body)?)
        }
        Ast::If {
            cond,
            then,
            otherwise,
        } => KernelAst::If {
            cond: cond.clone(),
            then: Box::new(sequential(then)?),
            otherwise: match otherwise {
                Some(o) => Some(Box::new(sequential(o)?)),
                None => None,
            },
        },
        Ast::User { statement, args } => KernelAst::User {
            statement: statement.clone(),
            args: args.clone(),
        },
    })
}

fn check_stride(l: &Loop) -> Result<()> {
    if l.stride.is_positive() {
        Ok(())
    } else {
        Err(Error::InvalidAst(format!(
            "the loop over {} has stride {}",
            l.iterator, l.stride
        )))
    }
}

/// Whether `ast` holds a parallel loop.
fn has_parallel(ast: &Ast) -> bool {
    match ast {
        Ast::Block(v) => v.iter().any(has_parallel),
        Ast::For(l) => l.parallel || has_parallel(&l.body),
        Ast::If {
            then, otherwise, ..
        } => has_parallel(then) || otherwise.as_deref().is_some_and(has_parallel),
        Ast::User { .. } => false,
    }
}

/// Whether `ast` runs a statement somewhere.
fn has_statement(ast: &Ast) -> bool {
    match ast {
        Ast::Block(v) => v.iter().any(has_statement),
        Ast::For(l) => has_statement(&l.body),
        Ast::If {
            then, otherwise, ..
        } => has_statement(then) || otherwise.as_deref().is_some_and(has_statement),
        Ast::User { .. } => true,
    }
}

/// Every name `ast` mentions or binds.
fn collect_names(ast: &Ast, out: &mut BTreeSet<String>) {
    match ast {
        Ast::Block(v) => v.iter().for_each(|c| collect_names(c, out)),
        Ast::For(l) => {
            out.insert(l.iterator.clone());
            expr_vars(&l.lower, out);
            expr_vars(&l.upper, out);
            collect_names(&l.body, out);
        }
        Ast::If {
            cond,
            then,
            otherwise,
        } => {
            cond_vars(cond, out);
            collect_names(then, out);
            if let Some(o) = otherwise {
                collect_names(o, out);
            }
        }
        Ast::User { statement, args } => {
            out.insert(statement.clone());
            args.iter().for_each(|a| expr_vars(a, out));
        }
    }
}

/// The variables a kernel's code mentions.
fn kernel_vars(ast: &KernelAst, out: &mut BTreeSet<String>) {
    match ast {
        KernelAst::Block(v) => v.iter().for_each(|c| kernel_vars(c, out)),
        KernelAst::For(l) => {
            expr_vars(&l.lower, out);
            expr_vars(&l.upper, out);
            kernel_vars(&l.body, out);
        }
        KernelAst::If {
            cond,
            then,
            otherwise,
        } => {
            cond_vars(cond, out);
            kernel_vars(then, out);
            if let Some(o) = otherwise {
                kernel_vars(o, out);
            }
        }
        KernelAst::User { args, .. } => args.iter().for_each(|a| expr_vars(a, out)),
        KernelAst::SingleThread(b) => kernel_vars(b, out),
        KernelAst::Barrier => {}
        KernelAst::Copy {
            offset,
            lower,
            upper,
            ..
        } => offset
            .iter()
            .chain(lower)
            .chain(upper)
            .for_each(|e| expr_vars(e, out)),
        KernelAst::Shared { promotions, body } => {
            for (_, offset) in promotions {
                offset.iter().for_each(|e| expr_vars(e, out));
            }
            kernel_vars(body, out);
        }
    }
}

/// The statements a kernel's code runs.
fn kernel_statements(ast: &KernelAst, out: &mut BTreeSet<String>) {
    match ast {
        KernelAst::Block(v) => v.iter().for_each(|c| kernel_statements(c, out)),
        KernelAst::For(l) => kernel_statements(&l.body, out),
        KernelAst::If {
            then, otherwise, ..
        } => {
            kernel_statements(then, out);
            if let Some(o) = otherwise {
                kernel_statements(o, out);
            }
        }
        KernelAst::User { statement, .. } => {
            out.insert(statement.clone());
        }
        KernelAst::SingleThread(b) | KernelAst::Shared { body: b, .. } => kernel_statements(b, out),
        KernelAst::Barrier | KernelAst::Copy { .. } => {}
    }
}
