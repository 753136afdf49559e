//! The search space of one scop and the schedule of each of its points: the paper's
//! `OptimizeRec` with `maxExploreDepth = 1`, the protocol of its experiments.
//!
//! Pouchet et al., POPL 2011, Fig. 4 (§4.4) and §5; digest
//! `shared/digests/pouchet-popl11.md` §2.10. [`Space::new`] builds the pruned space F¹
//! of legal outer fusion structures (memory-based dependences, as in the paper), with
//! the statistics of the paper's Table 1 for O and F¹. [`Space::schedule`] turns a point
//! of F¹ into a complete schedule tree: the classes run in the structure's order (the
//! scalar row `Θ_2` of `embedInterleaving`), each class is scheduled by Pluto with
//! maximal fusion below its outer loop (`computeOptimizedSchedule` followed by
//! `finalizeOptimizedSchedule`, which the paper also completes with maximal fusion), and
//! a class the scheduler does not keep under one outer loop gets the plain fused
//! subtree of [`crate::embed_outer`] (its fusing row over the original schedule).
//! Tiling and parallelisation are the driver's (`pollen_driver::optimize_scop_scheduled`).
//!
//! # Invariants
//! - `structures` lists the points of F¹ once each, in the order of
//!   [`crate::Pruned::structures`] (maximal fusion first);
//! - every tree [`Space::schedule`] returns runs the statements of the scop, each once.

use pollen_arith::Int;
use pollen_deps::{Analysis, Dependences};
use pollen_presburger::Budget;
use pollen_scop::{ScheduleTree, Scop};

use crate::error::{Error, Result};
use crate::fusion::{FusionOptions, Problem};
use crate::prune::{prune_outer_with, Options, Pruned};
use crate::schedule::optimize_outer;
use crate::structure::FusionStructure;
use crate::SpaceStats;

/// The counts of the program that the paper's Table 1 lists beside the spaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramStats {
    /// `#loops`: the loops of the original schedule (one per band member of the
    /// original tree, counted once however many statements it holds).
    pub loops: usize,
    /// `#stmts`.
    pub statements: usize,
    /// `#refs`: the array and scalar references, reads and writes.
    pub references: usize,
}

/// The space of one scop: its dependences, the pruned outer fusion structures and the
/// statistics of O and F¹.
#[derive(Clone, Debug)]
pub struct Space {
    scop: Scop,
    deps: Dependences,
    problem: Problem,
    pruned: Pruned,
    structures: Vec<FusionStructure>,
    sampled: bool,
    f1_counted: bool,
    program: ProgramStats,
    o_stats: SpaceStats,
    f1_stats: SpaceStats,
}

impl Space {
    /// The space of `scop`, computed within `budget` (dependences, pruning and the
    /// enumeration of F¹), with the default [`Limits`].
    pub fn new(scop: &Scop, budget: &mut Budget) -> Result<Space> {
        Space::with_limits(scop, &Limits::default(), budget)
    }

    /// [`Space::new`] with the given limits on the structures kept and counted.
    pub fn with_limits(scop: &Scop, limits: &Limits, budget: &mut Budget) -> Result<Space> {
        let deps =
            pollen_deps::analyze_with(scop, Analysis::MemoryBased, budget).map_err(
                |e| match e {
                    pollen_deps::Error::LimitExceeded => Error::LimitExceeded,
                    other => Error::Dependences(other.to_string()),
                },
            )?;
        let problem = Problem::new(scop, &deps)?;
        let pruned = prune_outer_with(&problem, &Options::default(), budget)?;
        let (structures, complete) =
            pruned.structures_sample(limits.structures, limits.seed, budget)?;
        let (f1_points, f1_counted) = if complete {
            (Int::from(structures.len() as i64), true)
        } else {
            match pruned.count_up_to(limits.count, budget)? {
                Some(n) => (n, true),
                None => (Int::from(limits.count as i64), false),
            }
        };
        let f1_stats = SpaceStats {
            points: f1_points,
            ..pruned.stats_without_points()
        };
        let n = scop.statements.len();
        let o_stats = SpaceStats {
            dims: n * n.saturating_sub(1),
            constraints: o_constraints(n),
            points: ordered_bell(n),
        };
        Ok(Space {
            program: program_stats(scop),
            scop: scop.clone(),
            deps,
            problem,
            pruned,
            structures,
            sampled: !complete,
            f1_counted,
            o_stats,
            f1_stats,
        })
    }

    /// Whether [`Space::structures`] is a sample of F¹ (F¹ has more structures than
    /// [`Limits::structures`]).
    pub fn sampled(&self) -> bool {
        self.sampled
    }

    /// Whether `f1_stats().points` is the number of points of F¹ (`false`: F¹ has more
    /// than that many, [`Limits::count`]).
    pub fn f1_counted(&self) -> bool {
        self.f1_counted
    }

    /// The scop.
    pub fn scop(&self) -> &Scop {
        &self.scop
    }

    /// The memory-based dependences the space was pruned with.
    pub fn dependences(&self) -> &Dependences {
        &self.deps
    }

    /// The fusion problem (statements, dependence edges).
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The pruned space F¹.
    pub fn pruned(&self) -> &Pruned {
        &self.pruned
    }

    /// The points of F¹ (or a sample of them, [`Space::sampled`]), maximal fusion first.
    pub fn structures(&self) -> &[FusionStructure] {
        &self.structures
    }

    /// `#loops`, `#stmts`, `#refs`.
    pub fn program(&self) -> &ProgramStats {
        &self.program
    }

    /// Table 1's `#dim`, `#cst`, `#points` of O (every total preorder of the
    /// statements), from their closed forms: `n(n−1)` variables, `5·C(n,2) + 7·C(n,3)`
    /// constraints and the ordered Bell number of points (the tests check them against
    /// the encoding).
    pub fn o_stats(&self) -> &SpaceStats {
        &self.o_stats
    }

    /// Table 1's `#dim`, `#cst`, `#points` of F¹.
    pub fn f1_stats(&self) -> &SpaceStats {
        &self.f1_stats
    }

    /// The complete schedule tree of `structure` (a point of F¹; any legal outer
    /// structure is accepted), with `budget` steps for each class's scheduler run.
    /// Fails with [`Error::Backward`] or [`Error::NotFusable`] for a structure outside
    /// F¹.
    pub fn schedule(&self, structure: &FusionStructure, budget: Option<u64>) -> Result<Scheduled> {
        let sched = pollen_sched::Options {
            fuse: pollen_sched::Fuse::Max,
            budget,
            ..pollen_sched::Options::default()
        };
        let optimized = optimize_outer(
            &self.scop,
            &self.deps,
            &self.problem,
            structure,
            &FusionOptions::default(),
            &sched,
        )?;
        Ok(Scheduled {
            tree: optimized.tree,
            optimized: optimized.optimized,
        })
    }
}

/// Bounds on the enumeration of F¹, which grows exponentially with independent
/// statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most structures kept; past it, a sample of this many (default 2,000).
    pub structures: usize,
    /// The seed of the sample.
    pub seed: u64,
    /// The most points counted (default 1,000,000).
    pub count: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            structures: 2_000,
            seed: 1,
            count: 1_000_000,
        }
    }
}

impl Space {
    /// The tree of `structure` without optimisation below the outer level: each class
    /// under its fusing row, then its statements' original schedule
    /// ([`crate::embed_outer`]).
    pub fn embed(&self, structure: &FusionStructure) -> Result<ScheduleTree> {
        crate::schedule::embed_outer(
            &self.scop,
            &self.problem,
            structure,
            &FusionOptions::default(),
        )
    }
}

/// The schedule of one point of the space.
#[derive(Clone, Debug)]
pub struct Scheduled {
    /// The tree.
    pub tree: ScheduleTree,
    /// Per class: whether Pluto scheduled it (`false`: the plain fused subtree).
    pub optimized: Vec<bool>,
}

/// `5·C(n,2) + 7·C(n,3)`: O's constraints (4 bounds and an exclusion per pair, 7
/// transitivity rows per triple).
pub fn o_constraints(n: usize) -> usize {
    let pairs = n * n.saturating_sub(1) / 2;
    let triples = n * n.saturating_sub(1) * n.saturating_sub(2) / 6;
    5 * pairs + 7 * triples
}

/// The ordered Bell (Fubini) number of `n`: the number of total preorders of `n`
/// elements, `a(n) = Σ_{k=1..n} C(n,k)·a(n−k)`, `a(0) = 1`.
pub fn ordered_bell(n: usize) -> Int {
    // Pascal's triangle, row by row, beside the sequence.
    let mut binomials: Vec<Int> = vec![Int::one()];
    let mut a: Vec<Int> = vec![Int::one()];
    for m in 1..=n {
        let mut next = vec![Int::one(); m + 1];
        for k in 1..m {
            next[k] = &binomials[k - 1] + &binomials[k];
        }
        binomials = next;
        let mut total = Int::zero();
        for k in 1..=m {
            total += &(&binomials[k] * &a[m - k]);
        }
        a.push(total);
    }
    a.swap_remove(n)
}

/// The counts of Table 1's first columns.
fn program_stats(scop: &Scop) -> ProgramStats {
    let references = scop
        .statements
        .iter()
        .map(|s| s.accesses.len())
        .sum::<usize>();
    ProgramStats {
        loops: loops(&scop.schedule.root),
        statements: scop.statements.len(),
        references,
    }
}

/// The band members of a subtree (each a loop of the original program).
fn loops(node: &pollen_scop::Node) -> usize {
    let own = match node {
        pollen_scop::Node::Band(b) => b.coincident.len(),
        _ => 0,
    };
    own + node.children().into_iter().map(loops).sum::<usize>()
}
