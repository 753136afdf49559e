//! The dynamic checker: a mapped program simulated at concrete parameter values and
//! compared with the scop's domains and dependences.
//!
//! It shares no logic with the mapping. The host's control runs with exact integers;
//! each launch evaluates its grid (every size clamped to at least 1) and runs the
//! kernel's code for every block and every thread of the block, with the stride-loop
//! semantics of [`Mapping`]: a loop mapped to block (thread) dimension `d` runs, in block
//! `b` of `n` (thread `t` of `n`), the iterations numbered `b, b + n, ...` (`t, t + n,
//! ...`) counted from the first; a globally mapped loop uses the global index and the
//! global number of threads; [`KernelAst::SingleThread`] runs only in the thread whose
//! indices are all zero; [`KernelAst::Barrier`] starts a new *phase* of the thread.
//! Every statement instance is recorded with its launch, block, thread, phase and
//! position in its thread's order ([`Placement`]). Then:
//!
//! - every instance of each statement's domain (enumerated with `pollen-presburger` at
//!   the parameter values) must run exactly once, and nothing else may run;
//! - for every pair of every dependence relation, the source must run before the target:
//!   in an earlier launch, or in the same block of the same launch either in the same
//!   thread at an earlier position or in an earlier phase; a dependence through a
//!   [`ArrayKind::Private`] scalar must stay within one thread of one launch;
//! - every thread of a block must pass the same number of barriers in a launch;
//! - a kernel sees only the parameters and the host iterators it lists (another name
//!   is an [`Error::UnboundVariable`]);
//! - every array a statement accesses must be on the device (a [`ArrayKind::Value`]
//!   never written) and listed by each kernel that runs the statement;
//! - shared memory: a [`KernelAst::Copy`] must run in block-uniform code (outside
//!   thread-mapped loops and single-thread parts) and identically in every thread of
//!   the block, its box must fit its shared array, and it must start a later phase
//!   than every read of the previous contents; every read of a promoted array by a
//!   statement inside a [`KernelAst::Shared`] scope, at the elements that the scop's
//!   access relation gives at that instance (enumerated, not taken from the mapping),
//!   must lie in the box of the block's last copy of that shared array with the same
//!   offset, copied in an earlier phase (a barrier between); no statement of a kernel
//!   may write an array the kernel promotes.
//!
//! Everything is counted against a step limit: threads started, loop iterations, tests,
//! statement instances and enumerated points.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use pollen_arith::Int;
use pollen_codegen::{Cond, Expr};
use pollen_deps::{DepKind, Dependence};
use pollen_presburger::{Budget, DimKind, Map};
use pollen_scop::{AccessKind, Scop};

use crate::error::{Error, Result};
use crate::program::{
    ArrayKind, GpuProgram, Host, KernelAst, KernelLoop, Lanes, Mapping, SharedArray,
};

/// The step limit of [`check`].
pub const DEFAULT_CHECK_LIMIT: u64 = 50_000_000;

/// The most violations a report lists (all are counted).
pub const MAX_LISTED_VIOLATIONS: usize = 100;

/// A statement instance: the statement's name and its iterators' values.
pub type Instance = (String, Vec<i64>);

/// Where and when a statement instance ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The launch, numbered from 0 in the host's order.
    pub launch: usize,
    /// The launched kernel's index.
    pub kernel: usize,
    /// The block's coordinates, `x` first (1 for missing dimensions).
    pub block: [i64; 3],
    /// The thread's coordinates in its block, `x` first.
    pub thread: [i64; 3],
    /// The number of barriers the thread had passed.
    pub phase: u64,
    /// The number of statement instances the thread had run before in this launch.
    pub position: u64,
}

/// One way in which a mapped program is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// An instance of a domain never runs.
    Missing(Instance),
    /// An instance runs more than once.
    Duplicate {
        /// The instance.
        instance: Instance,
        /// Its first run.
        first: Placement,
        /// A later run.
        again: Placement,
    },
    /// Something runs that no domain holds.
    NotInDomain {
        /// The instance.
        instance: Instance,
        /// Where it ran.
        at: Placement,
    },
    /// A dependence pair whose source is not ordered before its target.
    Race {
        /// The dependence's index in the list given to [`check`].
        dependence: usize,
        /// Its kind.
        kind: DepKind,
        /// The array through which the instances depend.
        array: String,
        /// Whether the array is a [`ArrayKind::Private`] scalar (then the pair must
        /// run in one thread).
        private: bool,
        /// The source instance and where it ran.
        source: (Instance, Placement),
        /// The target instance and where it ran.
        target: (Instance, Placement),
    },
    /// The threads of a block pass different numbers of barriers in a launch.
    DivergentBarriers {
        /// The launch.
        launch: usize,
        /// The kernel's index.
        kernel: usize,
        /// The block.
        block: [i64; 3],
        /// The fewest barriers a thread of the block passed.
        fewest: u64,
        /// The most.
        most: u64,
    },
    /// A statement accesses an array the program does not hold.
    ArrayNotOnDevice(String),
    /// A statement writes an array passed by value.
    ValueWritten(String),
    /// A kernel runs a statement accessing an array it does not list.
    ArrayNotInKernel {
        /// The kernel's name.
        kernel: String,
        /// The array.
        array: String,
    },
    /// A statement inside a shared scope reads an element of a promoted array that the
    /// block's last copy did not load (no copy, another offset, or outside its box).
    SharedNotCopied {
        /// The global array.
        array: String,
        /// The element read.
        element: Vec<i64>,
        /// The instance.
        instance: Instance,
        /// Where it ran.
        at: Placement,
    },
    /// A statement reads a shared copy in the phase that copied it: no barrier between.
    SharedReadBeforeBarrier {
        /// The global array.
        array: String,
        /// The instance.
        instance: Instance,
        /// Where it ran.
        at: Placement,
    },
    /// A copy overwrites a shared array in the phase of a read of its earlier contents.
    CopyOverwritesReads {
        /// The kernel's name.
        kernel: String,
        /// The global array.
        array: String,
        /// The launch.
        launch: usize,
        /// The block.
        block: [i64; 3],
    },
    /// A copy that is not block-uniform: inside a thread-mapped loop or a single-thread
    /// part, or run differently by the threads of a block.
    DivergentCopy {
        /// The kernel's name.
        kernel: String,
        /// The launch.
        launch: usize,
        /// The block.
        block: [i64; 3],
    },
    /// A copy whose box (minus its offset) exceeds its shared array.
    CopyOutsideShared {
        /// The kernel's name.
        kernel: String,
        /// The global array.
        array: String,
        /// The first and last element of the box.
        lower: Vec<i64>,
        /// The last element.
        upper: Vec<i64>,
    },
    /// A statement of a kernel writes an array that the kernel promotes.
    PromotedArrayWritten {
        /// The kernel's name.
        kernel: String,
        /// The array.
        array: String,
        /// The statement.
        statement: String,
    },
}

/// What [`check`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// The first [`MAX_LISTED_VIOLATIONS`] violations.
    pub violations: Vec<Violation>,
    /// The number of violations found.
    pub violation_count: usize,
    /// The statement instances run.
    pub instances: usize,
    /// The kernel launches.
    pub launches: usize,
    /// The dependence pairs checked.
    pub dependence_pairs: usize,
}

impl CheckReport {
    /// Whether no violation was found.
    pub fn is_ok(&self) -> bool {
        self.violation_count == 0
    }

    fn add(&mut self, v: Violation) {
        self.violation_count += 1;
        if self.violations.len() < MAX_LISTED_VIOLATIONS {
            self.violations.push(v);
        }
    }
}

/// Checks `program` against the scop's domains and the dependences `deps` at the
/// parameter values `params` (one per parameter of the scop), within
/// [`DEFAULT_CHECK_LIMIT`] steps. Violations are reported as data; errors mean the
/// check could not be made (a malformed program, a missing parameter, the limit).
pub fn check(
    scop: &Scop,
    deps: &[Dependence],
    program: &GpuProgram,
    params: &[(String, i64)],
) -> Result<CheckReport> {
    check_with_limit(scop, deps, program, params, DEFAULT_CHECK_LIMIT)
}

/// [`check`] with an explicit step limit.
pub fn check_with_limit(
    scop: &Scop,
    deps: &[Dependence],
    program: &GpuProgram,
    params: &[(String, i64)],
    limit: u64,
) -> Result<CheckReport> {
    for p in &scop.params {
        if !params.iter().any(|(n, _)| n == p) {
            return Err(Error::MissingParameter(p.clone()));
        }
    }
    let mut report = CheckReport::default();
    // The access relations to promoted arrays, with the parameters fixed.
    let promoted: BTreeSet<&str> = program
        .kernels
        .iter()
        .flat_map(|k| k.shared.iter().map(|a| a.array.as_str()))
        .collect();
    let mut relations = HashMap::new();
    for stmt in &scop.statements {
        for (k, a) in stmt.accesses.iter().enumerate() {
            if promoted.contains(a.array.as_str()) {
                relations.insert((stmt.name.clone(), k), fix_params(&a.relation, params)?);
            }
        }
    }
    for kernel in &program.kernels {
        if kernel.shared.is_empty() {
            continue;
        }
        let mut statements = BTreeSet::new();
        statements_of(&kernel.body, &mut statements);
        for s in &statements {
            let Some(stmt) = scop.statement(s) else {
                continue;
            };
            for a in &stmt.accesses {
                if a.kind == AccessKind::Write && kernel.shared.iter().any(|x| x.array == a.array) {
                    report.add(Violation::PromotedArrayWritten {
                        kernel: kernel.name.clone(),
                        array: a.array.clone(),
                        statement: s.clone(),
                    });
                }
            }
        }
    }
    let mut sim = Sim {
        scop,
        relations,
        program,
        env: params
            .iter()
            .map(|(n, v)| (n.clone(), Int::from(*v)))
            .collect(),
        n_params: params.len(),
        steps: 0,
        limit,
        launches: 0,
        runs: HashMap::new(),
        kernel_statements: BTreeMap::new(),
        group: None,
        report: &mut report,
    };
    sim.host(&program.host)?;
    let launches = sim.launches;
    let runs = std::mem::take(&mut sim.runs);
    let kernel_statements = std::mem::take(&mut sim.kernel_statements);
    let steps = sim.steps;
    report.launches = launches;
    report.instances = runs.len();
    let mut budget = Budget::new(limit.saturating_sub(steps));
    let spent = |e: pollen_presburger::Error| match e {
        pollen_presburger::Error::LimitExceeded => Error::StepLimit(limit),
        e => Error::Presburger(e),
    };

    // (a) every domain instance exactly once, nothing else.
    let mut domain: HashSet<Instance> = HashSet::new();
    for s in &scop.statements {
        let set = fix_params(s.domain.as_map(), params)?;
        set.foreach_point_with(
            |p| {
                let values = to_i64(p).map_err(|_| {
                    pollen_presburger::Error::Unsupported(
                        "a domain point does not fit in 64 bits".to_string(),
                    )
                })?;
                domain.insert((s.name.clone(), values));
                Ok(())
            },
            &mut budget,
        )
        .map_err(spent)?;
    }
    let mut missing: Vec<&Instance> = domain.iter().filter(|i| !runs.contains_key(*i)).collect();
    missing.sort();
    for i in missing {
        report.add(Violation::Missing(i.clone()));
    }
    let mut extra: Vec<(&Instance, &Placement)> =
        runs.iter().filter(|(i, _)| !domain.contains(*i)).collect();
    extra.sort_by(|a, b| a.0.cmp(b.0));
    for (i, at) in extra {
        report.add(Violation::NotInDomain {
            instance: i.clone(),
            at: at.clone(),
        });
    }

    // (b) every dependence pair ordered.
    let private: BTreeSet<&str> = program
        .arrays
        .iter()
        .filter(|a| a.kind == ArrayKind::Private)
        .map(|a| a.name.as_str())
        .collect();
    for (index, d) in deps.iter().enumerate() {
        let relation = fix_params(&d.relation, params)?;
        let n_in = relation.space().n_in();
        let is_private = private.contains(d.array.as_str());
        let mut races = Vec::new();
        let mut pairs = 0usize;
        relation
            .foreach_point_with(
                |p| {
                    pairs += 1;
                    let values = to_i64(p).map_err(|_| {
                        pollen_presburger::Error::Unsupported(
                            "a dependence pair does not fit in 64 bits".to_string(),
                        )
                    })?;
                    let source = (d.source.clone(), values[..n_in].to_vec());
                    let target = (d.target.clone(), values[n_in..].to_vec());
                    if let (Some(a), Some(b)) = (runs.get(&source), runs.get(&target)) {
                        if !ordered(a, b, is_private) {
                            races.push(Violation::Race {
                                dependence: index,
                                kind: d.kind,
                                array: d.array.clone(),
                                private: is_private,
                                source: (source, a.clone()),
                                target: (target, b.clone()),
                            });
                        }
                    }
                    Ok(())
                },
                &mut budget,
            )
            .map_err(spent)?;
        report.dependence_pairs += pairs;
        for r in races {
            report.add(r);
        }
    }

    // (d) the arrays.
    for s in &scop.statements {
        for a in &s.accesses {
            match program.arrays.iter().find(|x| x.name == a.array) {
                None => report.add(Violation::ArrayNotOnDevice(a.array.clone())),
                Some(x) if x.kind == ArrayKind::Value && a.kind == AccessKind::Write => {
                    report.add(Violation::ValueWritten(a.array.clone()))
                }
                Some(_) => {}
            }
        }
    }
    for (k, statements) in &kernel_statements {
        let Some(kernel) = program.kernels.get(*k) else {
            continue;
        };
        let mut wanted = BTreeSet::new();
        for s in statements {
            if let Some(stmt) = scop.statement(s) {
                wanted.extend(stmt.accesses.iter().map(|a| a.array.clone()));
            }
        }
        for a in wanted {
            if !kernel.arrays.contains(&a) {
                report.add(Violation::ArrayNotInKernel {
                    kernel: kernel.name.clone(),
                    array: a,
                });
            }
        }
    }
    Ok(report)
}

/// Whether the run `a` of a dependence source is ordered before the run `b` of its
/// target.
fn ordered(a: &Placement, b: &Placement, private: bool) -> bool {
    let same_thread = a.launch == b.launch && a.block == b.block && a.thread == b.thread;
    if same_thread && a.position < b.position {
        return true;
    }
    if private {
        return false;
    }
    a.launch < b.launch || (a.launch == b.launch && a.block == b.block && a.phase < b.phase)
}

/// `m` with its parameters fixed to their values and projected out.
fn fix_params(m: &Map, params: &[(String, i64)]) -> Result<Map> {
    let names = m.space().param_names().to_vec();
    let mut out = m.clone();
    for (k, n) in names.iter().enumerate() {
        let v = params
            .iter()
            .find(|(p, _)| p == n)
            .map(|(_, v)| *v)
            .ok_or_else(|| Error::MissingParameter(n.clone()))?;
        out = out.fix_val(DimKind::Param, k, &Int::from(v))?;
    }
    Ok(out.project_out(DimKind::Param, 0, names.len())?)
}

fn to_i64(p: &[Int]) -> Result<Vec<i64>> {
    p.iter()
        .map(|x| x.to_i64().ok_or(Error::Overflow))
        .collect()
}

/// The statements `ast` runs.
fn statements_of(ast: &KernelAst, out: &mut BTreeSet<String>) {
    match ast {
        KernelAst::Block(v) => v.iter().for_each(|c| statements_of(c, out)),
        KernelAst::For(l) => statements_of(&l.body, out),
        KernelAst::If {
            then, otherwise, ..
        } => {
            statements_of(then, out);
            if let Some(o) = otherwise {
                statements_of(o, out);
            }
        }
        KernelAst::User { statement, .. } => {
            out.insert(statement.clone());
        }
        KernelAst::SingleThread(b) | KernelAst::Shared { body: b, .. } => statements_of(b, out),
        KernelAst::Barrier | KernelAst::Copy { .. } => {}
    }
}

/// The simulation's state.
struct Sim<'a> {
    scop: &'a Scop,
    /// The access relations to promoted arrays by statement and access index, with the
    /// parameters fixed.
    relations: HashMap<(String, usize), Map>,
    program: &'a GpuProgram,
    /// The bindings of parameters, host iterators and kernel iterators, innermost last.
    env: Vec<(String, Int)>,
    /// The number of parameters at the start of `env`.
    n_params: usize,
    steps: u64,
    limit: u64,
    launches: usize,
    runs: HashMap<Instance, Placement>,
    /// The statements each kernel ran.
    kernel_statements: BTreeMap<usize, BTreeSet<String>>,
    /// The lane group being run: the lane loop's iterator and the group's values; each
    /// statement instance inside runs once per value.
    group: Option<(String, Vec<Int>)>,
    report: &'a mut CheckReport,
}

/// One thread of a launch.
struct Thread {
    launch: usize,
    kernel: usize,
    grid: [i64; 3],
    dims: [i64; 3],
    block: [i64; 3],
    thread: [i64; 3],
    phase: u64,
    position: u64,
    /// How many thread-mapped or global loops and single-thread parts enclose the
    /// current point.
    divergent: u32,
    /// The last copy into each shared array of the kernel.
    copies: Vec<Option<Copied>>,
    /// The copies run, in order: shared index, phase, offset, box.
    copy_log: Vec<CopyEvent>,
    /// The active promotions, innermost last: shared index and offset.
    scopes: Vec<(usize, Vec<Int>)>,
}

/// A copy as a thread ran it: the shared index, the phase, the offset and the box.
type CopyEvent = (usize, u64, Vec<Int>, Vec<Int>, Vec<Int>);

/// A copy into a shared array as one thread saw it.
struct Copied {
    phase: u64,
    offset: Vec<Int>,
    lower: Vec<Int>,
    upper: Vec<Int>,
    /// The latest phase in which the thread read it.
    last_read: Option<u64>,
}

impl Sim<'_> {
    fn step(&mut self) -> Result<()> {
        self.steps += 1;
        if self.steps > self.limit {
            return Err(Error::StepLimit(self.limit));
        }
        Ok(())
    }

    fn host(&mut self, h: &Host) -> Result<()> {
        match h {
            Host::Block(v) => v.iter().try_for_each(|c| self.host(c)),
            Host::For {
                iterator,
                lower,
                upper,
                stride,
                body,
            } => {
                if !stride.is_positive() {
                    return Err(Error::InvalidProgram(format!(
                        "the host loop over {iterator} has stride {stride}"
                    )));
                }
                let mut v = self.eval(lower)?;
                let up = self.eval(upper)?;
                while v <= up {
                    self.step()?;
                    self.env.push((iterator.clone(), v.clone()));
                    let r = self.host(body);
                    self.env.pop();
                    r?;
                    v = &v + stride;
                }
                Ok(())
            }
            Host::If {
                cond,
                then,
                otherwise,
            } => {
                self.step()?;
                if self.test(cond)? {
                    self.host(then)
                } else if let Some(o) = otherwise {
                    self.host(o)
                } else {
                    Ok(())
                }
            }
            Host::Launch(k) => self.launch(*k),
        }
    }

    fn launch(&mut self, k: usize) -> Result<()> {
        let program = self.program;
        let kernel = program.kernels.get(k).ok_or_else(|| {
            Error::InvalidProgram(format!("launch of kernel {k}, which does not exist"))
        })?;
        if kernel.grid.is_empty() || kernel.grid.len() > 3 {
            return Err(Error::InvalidProgram(format!(
                "{} has a grid of {} dimensions",
                kernel.name,
                kernel.grid.len()
            )));
        }
        if kernel.block.is_empty() || kernel.block.len() > 3 || kernel.block.contains(&0) {
            return Err(Error::InvalidProgram(format!(
                "{} has the block sizes {:?}",
                kernel.name, kernel.block
            )));
        }
        // The kernel sees the parameters and the host iterators it lists, no others.
        let mut env: Vec<(String, Int)> = self.env[..self.n_params].to_vec();
        for h in &kernel.host_iterators {
            env.push((h.clone(), self.eval(&Expr::Var(h.clone()))?));
        }
        let host_env = std::mem::replace(&mut self.env, env);
        let result = self.run_launch(k);
        self.env = host_env;
        result
    }

    /// Runs every thread of every block of a launch of kernel `k`.
    fn run_launch(&mut self, k: usize) -> Result<()> {
        let program = self.program;
        let Some(kernel) = program.kernels.get(k) else {
            return Ok(());
        };
        let mut grid = [1i64; 3];
        for (d, g) in kernel.grid.iter().enumerate() {
            let v = self.eval(g)?.max(Int::one());
            grid[d] = v.to_i64().ok_or(Error::Overflow)?;
        }
        let mut dims = [1i64; 3];
        for (d, b) in kernel.block.iter().enumerate() {
            dims[d] = i64::from(*b);
        }
        let launch = self.launches;
        self.launches += 1;
        for bz in 0..grid[2] {
            for by in 0..grid[1] {
                for bx in 0..grid[0] {
                    let mut barriers: Option<(u64, u64)> = None;
                    let mut first_log = None;
                    let mut copies_diverge = false;
                    for tz in 0..dims[2] {
                        for ty in 0..dims[1] {
                            for tx in 0..dims[0] {
                                self.step()?;
                                let mut t = Thread {
                                    launch,
                                    kernel: k,
                                    grid,
                                    dims,
                                    block: [bx, by, bz],
                                    thread: [tx, ty, tz],
                                    phase: 0,
                                    position: 0,
                                    divergent: 0,
                                    copies: (0..kernel.shared.len()).map(|_| None).collect(),
                                    copy_log: Vec::new(),
                                    scopes: Vec::new(),
                                };
                                self.kernel(&kernel.body, &mut t)?;
                                match &first_log {
                                    None => first_log = Some(std::mem::take(&mut t.copy_log)),
                                    Some(log) if *log != t.copy_log && !copies_diverge => {
                                        copies_diverge = true;
                                        self.report.add(Violation::DivergentCopy {
                                            kernel: kernel.name.clone(),
                                            launch,
                                            block: [bx, by, bz],
                                        });
                                    }
                                    Some(_) => {}
                                }
                                barriers = Some(match barriers {
                                    None => (t.phase, t.phase),
                                    Some((lo, hi)) => (lo.min(t.phase), hi.max(t.phase)),
                                });
                            }
                        }
                    }
                    if let Some((fewest, most)) = barriers {
                        if fewest != most {
                            self.report.add(Violation::DivergentBarriers {
                                launch,
                                kernel: k,
                                block: [bx, by, bz],
                                fewest,
                                most,
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn kernel(&mut self, a: &KernelAst, t: &mut Thread) -> Result<()> {
        match a {
            KernelAst::Block(v) => v.iter().try_for_each(|c| self.kernel(c, t)),
            KernelAst::For(l) => self.kernel_loop(l, t),
            KernelAst::If {
                cond,
                then,
                otherwise,
            } => {
                self.step()?;
                if self.test(cond)? {
                    self.kernel(then, t)
                } else if let Some(o) = otherwise {
                    self.kernel(o, t)
                } else {
                    Ok(())
                }
            }
            KernelAst::User { statement, args } => match self.group.clone() {
                Some((iterator, values)) => {
                    for v in values {
                        self.env.push((iterator.clone(), v));
                        let r = self.user(statement, args, t);
                        self.env.pop();
                        r?;
                    }
                    Ok(())
                }
                None => self.user(statement, args, t),
            },
            KernelAst::SingleThread(b) => {
                if t.thread == [0, 0, 0] {
                    t.divergent += 1;
                    let r = self.kernel(b, t);
                    t.divergent -= 1;
                    r
                } else {
                    Ok(())
                }
            }
            KernelAst::Barrier => {
                t.phase += 1;
                Ok(())
            }
            KernelAst::Copy {
                shared,
                offset,
                lower,
                upper,
            } => self.copy(*shared, offset, lower, upper, t),
            KernelAst::Shared { promotions, body } => {
                let n = t.scopes.len();
                for (s, offset) in promotions {
                    self.shared_array(t, *s, offset.len())?;
                    let offset = offset.iter().map(|e| self.eval(e)).collect::<Result<_>>()?;
                    t.scopes.push((*s, offset));
                }
                let r = self.kernel(body, t);
                t.scopes.truncate(n);
                r
            }
        }
    }

    fn kernel_loop(&mut self, l: &KernelLoop, t: &mut Thread) -> Result<()> {
        if !l.stride.is_positive() {
            return Err(Error::InvalidProgram(format!(
                "the kernel loop over {} has stride {}",
                l.iterator, l.stride
            )));
        }
        let dim = |d: u8| -> Result<usize> {
            let d = usize::from(d);
            if d < 3 {
                Ok(d)
            } else {
                Err(Error::InvalidProgram(format!(
                    "the loop over {} is mapped to dimension {d}",
                    l.iterator
                )))
            }
        };
        // The first iteration's number and the distance between this thread's ones.
        let int = Int::from;
        let (first, every) = match l.mapping {
            Mapping::Sequential => (Int::zero(), Int::one()),
            Mapping::Block(d) => {
                let d = dim(d)?;
                (int(t.block[d]), int(t.grid[d]))
            }
            Mapping::Thread(d) => {
                let d = dim(d)?;
                (int(t.thread[d]), int(t.dims[d]))
            }
            Mapping::Global(d) => {
                let d = dim(d)?;
                (
                    &(&int(t.block[d]) * &int(t.dims[d])) + &int(t.thread[d]),
                    &int(t.grid[d]) * &int(t.dims[d]),
                )
            }
        };
        if let Some(lanes) = &l.lanes {
            return self.lane_loop(l, lanes, first, every, t);
        }
        let lower = self.eval(&l.lower)?;
        let upper = self.eval(&l.upper)?;
        let mut v = &lower + &(&first * &l.stride);
        let jump = &every * &l.stride;
        let spread = !matches!(l.mapping, Mapping::Sequential | Mapping::Block(_));
        if spread {
            t.divergent += 1;
        }
        let mut result = Ok(());
        while v <= upper {
            if let Err(e) = self.step() {
                result = Err(e);
                break;
            }
            self.env.push((l.iterator.clone(), v.clone()));
            let r = self.kernel(&l.body, t);
            self.env.pop();
            if r.is_err() {
                result = r;
                break;
            }
            v = &v + &jump;
        }
        if spread {
            t.divergent -= 1;
        }
        result
    }

    /// One statement instance, recorded with its placement.
    fn user(&mut self, statement: &str, args: &[Expr], t: &mut Thread) -> Result<()> {
        self.step()?;
        let values = args
            .iter()
            .map(|a| self.eval(a)?.to_i64().ok_or(Error::Overflow))
            .collect::<Result<Vec<i64>>>()?;
        let at = Placement {
            launch: t.launch,
            kernel: t.kernel,
            block: t.block,
            thread: t.thread,
            phase: t.phase,
            position: t.position,
        };
        t.position += 1;
        self.kernel_statements
            .entry(t.kernel)
            .or_default()
            .insert(statement.to_string());
        let instance = (statement.to_string(), values);
        if !t.scopes.is_empty() {
            self.shared_reads(statement, &instance, &at, t)?;
        }
        match self.runs.get(&instance) {
            Some(first) => {
                let first = first.clone();
                self.report.add(Violation::Duplicate {
                    instance,
                    first,
                    again: at,
                });
            }
            None => {
                self.runs.insert(instance, at);
            }
        }
        Ok(())
    }

    /// A thread-mapped loop run in lane groups: thread number `first` of `every` runs
    /// the groups `first, first + every, ...`; each group runs the body once, every
    /// statement instance in it for each of the group's iterations in turn.
    fn lane_loop(
        &mut self,
        l: &KernelLoop,
        lanes: &Lanes,
        first: Int,
        every: Int,
        t: &mut Thread,
    ) -> Result<()> {
        let invalid = |why: &str| {
            Err(Error::InvalidProgram(format!(
                "the lane loop over {} {why}",
                l.iterator
            )))
        };
        if !matches!(l.mapping, Mapping::Thread(_)) {
            return invalid("is not mapped to threads");
        }
        if lanes.width < 2 || !l.stride.is_one() {
            return invalid("needs stride 1 and groups of two iterations or more");
        }
        if self.group.is_some() {
            return invalid("lies in another lane group");
        }
        if !lane_body(&l.body, &l.iterator) {
            return invalid(
                "holds more than loops, guards and statements, or bounds or guards that depend on it",
            );
        }
        let width = Int::from(lanes.width);
        let lower = self.eval(&l.lower)?;
        let upper = self.eval(&l.upper)?;
        let mut start = &lower + &(&first * &width);
        let jump = &every * &width;
        t.divergent += 1;
        let mut result = Ok(());
        while start <= upper {
            if let Err(e) = self.step() {
                result = Err(e);
                break;
            }
            let mut values = Vec::new();
            let mut v = start.clone();
            while v <= upper && v < &start + &width {
                values.push(v.clone());
                v = &v + &Int::one();
            }
            self.group = Some((l.iterator.clone(), values));
            // The body's bounds and guards do not mention the iterator; it is bound to
            // the group's first value all the same.
            self.env.push((l.iterator.clone(), start.clone()));
            let r = self.kernel(&l.body, t);
            self.env.pop();
            self.group = None;
            if r.is_err() {
                result = r;
                break;
            }
            start = &start + &jump;
        }
        t.divergent -= 1;
        result
    }

    /// The shared array `s` of the running kernel, which must have `dims` dimensions.
    fn shared_array(&self, t: &Thread, s: usize, dims: usize) -> Result<&'_ SharedArray> {
        let program = self.program;
        let kernel = program
            .kernels
            .get(t.kernel)
            .ok_or_else(|| Error::InvalidProgram(format!("kernel {} is missing", t.kernel)))?;
        match kernel.shared.get(s) {
            Some(a) if a.sizes.len() == dims => Ok(a),
            _ => Err(Error::InvalidProgram(format!(
                "{} uses shared array {s} with {dims} dimensions, which it does not declare",
                kernel.name
            ))),
        }
    }

    /// A copy into shared array `s`, as thread `t` runs it.
    fn copy(
        &mut self,
        s: usize,
        offset: &[Expr],
        lower: &[Expr],
        upper: &[Expr],
        t: &mut Thread,
    ) -> Result<()> {
        self.step()?;
        let a = self.shared_array(t, s, offset.len())?.clone();
        if lower.len() != offset.len() || upper.len() != offset.len() {
            return Err(Error::InvalidProgram(format!(
                "a copy into {} has boxes of different dimensions",
                a.name
            )));
        }
        let kernel = self.program.kernels[t.kernel].name.clone();
        let eval = |v: &[Expr]| v.iter().map(|e| self.eval(e)).collect::<Result<Vec<Int>>>();
        let (offset, lower, upper) = (eval(offset)?, eval(lower)?, eval(upper)?);
        if t.divergent > 0 {
            self.report.add(Violation::DivergentCopy {
                kernel: kernel.clone(),
                launch: t.launch,
                block: t.block,
            });
        }
        if let Some(Some(Copied {
            last_read: Some(p), ..
        })) = t.copies.get(s)
        {
            if *p >= t.phase {
                self.report.add(Violation::CopyOverwritesReads {
                    kernel: kernel.clone(),
                    array: a.array.clone(),
                    launch: t.launch,
                    block: t.block,
                });
            }
        }
        let empty = lower.iter().zip(&upper).any(|(l, u)| l > u);
        let fits =
            lower
                .iter()
                .zip(&upper)
                .zip(&offset)
                .zip(&a.sizes)
                .all(|(((l, u), o), size)| {
                    let size = Int::from(*size);
                    !(l - o).is_negative() && (u - o) < size
                });
        if !empty && !fits {
            let ints = |v: &[Int]| v.iter().map(|x| x.to_i64().unwrap_or(i64::MAX)).collect();
            self.report.add(Violation::CopyOutsideShared {
                kernel,
                array: a.array.clone(),
                lower: ints(&lower),
                upper: ints(&upper),
            });
        }
        t.copy_log
            .push((s, t.phase, offset.clone(), lower.clone(), upper.clone()));
        if let Some(slot) = t.copies.get_mut(s) {
            *slot = Some(Copied {
                phase: t.phase,
                offset,
                lower,
                upper,
                last_read: None,
            });
        }
        Ok(())
    }

    /// Checks the reads of promoted arrays by the statement instance `instance` at `at`
    /// against the thread's copies.
    fn shared_reads(
        &mut self,
        statement: &str,
        instance: &Instance,
        at: &Placement,
        t: &mut Thread,
    ) -> Result<()> {
        let Some(stmt) = self.scop.statement(statement) else {
            return Ok(());
        };
        let program = self.program;
        let Some(kernel) = program.kernels.get(t.kernel) else {
            return Ok(());
        };
        let mut seen = BTreeSet::new();
        for (s, offset) in t.scopes.iter().rev() {
            let Some(a) = kernel.shared.get(*s) else {
                continue;
            };
            if !seen.insert(a.array.as_str()) {
                continue;
            }
            for (k, access) in stmt.accesses.iter().enumerate() {
                if access.array != a.array || access.kind != AccessKind::Read {
                    continue;
                }
                let elements = self.elements(statement, k, &instance.1)?;
                let copied = t.copies.get_mut(*s).and_then(Option::as_mut);
                let mut before_barrier = false;
                let mut outside = Vec::new();
                match copied {
                    None => outside = elements,
                    Some(c) => {
                        for x in elements {
                            let inside = c.offset == *offset
                                && x.len() == c.lower.len()
                                && x.iter()
                                    .zip(c.lower.iter().zip(&c.upper))
                                    .all(|(v, (l, u))| l <= &Int::from(*v) && &Int::from(*v) <= u);
                            if !inside {
                                outside.push(x);
                            }
                        }
                        before_barrier = c.phase >= t.phase;
                        c.last_read = Some(c.last_read.map_or(t.phase, |p| p.max(t.phase)));
                    }
                }
                for element in outside {
                    self.report.add(Violation::SharedNotCopied {
                        array: a.array.clone(),
                        element,
                        instance: instance.clone(),
                        at: at.clone(),
                    });
                }
                if before_barrier {
                    self.report.add(Violation::SharedReadBeforeBarrier {
                        array: a.array.clone(),
                        instance: instance.clone(),
                        at: at.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The elements that access `k` of `statement` touches at the iterator values
    /// `values`, from its access relation.
    fn elements(&mut self, statement: &str, k: usize, values: &[i64]) -> Result<Vec<Vec<i64>>> {
        let Some(relation) = self.relations.get(&(statement.to_string(), k)) else {
            return Ok(Vec::new());
        };
        let mut m = relation.clone();
        if m.space().n_in() != values.len() {
            return Err(Error::InvalidProgram(format!(
                "{statement} runs with {} values for {} iterators",
                values.len(),
                m.space().n_in()
            )));
        }
        for (i, v) in values.iter().enumerate() {
            m = m.fix_val(DimKind::In, i, &Int::from(*v))?;
        }
        let n_in = values.len();
        let mut out = Vec::new();
        let mut budget = Budget::new(self.limit.saturating_sub(self.steps));
        let limit = self.limit;
        m.foreach_point_with(
            |p| {
                let values = to_i64(&p[n_in..]).map_err(|_| {
                    pollen_presburger::Error::Unsupported(
                        "an element does not fit in 64 bits".to_string(),
                    )
                })?;
                out.push(values);
                Ok(())
            },
            &mut budget,
        )
        .map_err(|e| match e {
            pollen_presburger::Error::LimitExceeded => Error::StepLimit(limit),
            e => Error::Presburger(e),
        })?;
        self.steps += out.len() as u64;
        Ok(out)
    }

    fn test(&mut self, c: &Cond) -> Result<bool> {
        Ok(match c {
            Cond::NonNegative(e) => !self.eval(e)?.is_negative(),
            Cond::Zero(e) => self.eval(e)?.is_zero(),
            Cond::And(v) => {
                for x in v {
                    if !self.test(x)? {
                        return Ok(false);
                    }
                }
                true
            }
            Cond::Or(v) => {
                for x in v {
                    if self.test(x)? {
                        return Ok(true);
                    }
                }
                false
            }
        })
    }

    fn eval(&self, e: &Expr) -> Result<Int> {
        let divisor = |d: &Int| {
            if d.is_positive() {
                Ok(d.clone())
            } else {
                Err(Error::InvalidProgram(format!("division by {d}")))
            }
        };
        Ok(match e {
            Expr::Int(c) => c.clone(),
            Expr::Var(v) => self
                .env
                .iter()
                .rev()
                .find(|(n, _)| n == v)
                .map(|(_, x)| x.clone())
                .ok_or_else(|| Error::UnboundVariable(v.clone()))?,
            Expr::Add(v) => {
                let mut s = Int::zero();
                for x in v {
                    s = &s + &self.eval(x)?;
                }
                s
            }
            Expr::Mul(c, x) => c * &self.eval(x)?,
            Expr::FloorDiv(x, d) => self.eval(x)?.floor_div(&divisor(d)?),
            Expr::CeilDiv(x, d) => self.eval(x)?.ceil_div(&divisor(d)?),
            Expr::Mod(x, d) => self.eval(x)?.mod_floor(&divisor(d)?),
            Expr::Min(v) | Expr::Max(v) => {
                let mut best: Option<Int> = None;
                for x in v {
                    let y = self.eval(x)?;
                    best = Some(match best {
                        None => y,
                        Some(b) if matches!(e, Expr::Min(_)) => b.min(y),
                        Some(b) => b.max(y),
                    });
                }
                best.ok_or_else(|| Error::InvalidProgram("an empty min or max".to_string()))?
            }
        })
    }
}

/// Whether `ast` may be the body of a lane loop over `c`: loops, guards and statements
/// only, no bound or guard mentioning `c`.
fn lane_body(ast: &KernelAst, c: &str) -> bool {
    match ast {
        KernelAst::Block(v) => v.iter().all(|a| lane_body(a, c)),
        KernelAst::User { .. } => true,
        KernelAst::For(l) => {
            l.lanes.is_none()
                && !l.lower.mentions(c)
                && !l.upper.mentions(c)
                && lane_body(&l.body, c)
        }
        KernelAst::If {
            cond,
            then,
            otherwise,
        } => {
            !cond_mentions(cond, c)
                && lane_body(then, c)
                && otherwise.as_deref().is_none_or(|o| lane_body(o, c))
        }
        _ => false,
    }
}

/// Whether the condition mentions the variable `c`.
fn cond_mentions(cond: &Cond, c: &str) -> bool {
    match cond {
        Cond::NonNegative(e) | Cond::Zero(e) => e.mentions(c),
        Cond::And(v) | Cond::Or(v) => v.iter().any(|x| cond_mentions(x, c)),
    }
}
