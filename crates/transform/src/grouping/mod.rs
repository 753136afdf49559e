//! PolyMage's grouping of pipeline stages: which stages to fuse under overlapped tiling,
//! and with which tile sizes, after Jangda and Bondhugula, "An Effective Fusion and Tile
//! Size Model for PolyMage", ACM TOPLAS 42(3), 2020.
//!
//! The module works on plain data: a [`StageGraph`] of stages (PolyMage's functions) with
//! concrete sizes, and producer→consumer edges whose dependences are already given after
//! scaling and alignment ([`graph`]). The search and the model make no Presburger calls;
//! [`stage_graph`] builds the graph of a program ([`from_scop`]).
//!
//! - [`dp_grouping`]: the dynamic-programming search over groupings (Algorithm 1), with
//!   the repair below; [`incremental_grouping`] bounds the group size and coalesces
//!   (Algorithm 5); [`greedy_grouping`] is the Halide-style pairwise greedy baseline.
//! - [`group_cost`]: the cost of a group and its tile sizes (Eq. 2, Algorithm 2,
//!   [`compute_tile_sizes`]), an exact rational model ([`cost`]).
//! - [`expression_inlining`]: which stages to inline (Algorithm 3).
//! - [`plan`]: inlining aside, the DP under the model, with each group's cost terms; its
//!   `Display` is the explanation printed for `--explain`.
//!
//! # The recurrence
//!
//! A state of the search is a set `G = {H_1, …, H_n}` of disjoint *open* groups. `F(G)`
//! is the cheapest grouping of `G` and everything after it in which the groups of `G` may
//! still grow but are never split or merged with each other. Two moves:
//!
//! - **Case I** (grow): add to one group `H_i` a successor `s` of it. The move is
//!   rejected when another successor `t` of `H_i` reaches `s`: the path `H_i → t → s`
//!   would become a cycle between groups. A move to a group of infinite cost is not
//!   made (the paper's ∞ "prevents the merge").
//! - **Case II** (finalize): pay `Σ COST(H_i)`, and continue with every partition of the
//!   *frontier* (the successors of the groups) as the new open groups.
//!
//! `F(G)` is the minimum over all moves; with no successor left, it is `Σ COST(H_i)`.
//! The search starts from the source; with several sources, from a dummy source of cost
//! 0 whose only move is Case II over the sources. States are memoized: on a chain of `n`
//! stages there are `n(n+1)/2` of them, and the optimum equals the best of all `2^(n−1)`
//! segmentations.
//!
//! # The repair
//!
//! Read literally, Case II forgets the stages finalized before, so a stage reachable
//! along two paths can be placed twice, and a partition block can hold two stages with a
//! third, outside, on a path between them. The search here therefore:
//!
//! 1. carries the set `placed` of finalized stages and memoizes on `(G, placed)`;
//! 2. lets a stage enter (by Case I or into a frontier) only when all its predecessors
//!    are placed, which keeps `placed ∪ ⋃G` closed under predecessors, so every stage is
//!    placed exactly once;
//! 3. applies the reachability test to every block of a Case II partition (with rule 2 a
//!    frontier holds no path between its stages; the test guards the invariant);
//! 4. runs Case I's cycle test on the graph of groups, where a path that enters another
//!    open group may leave it from any of its stages. Following stage edges only, as the
//!    paper does, misses `{a, d} → {b, c} → {a, d}` after growing `{b}` by `c` and `{a}`
//!    by `d` (edges `a → c`, `b → c`, `a → d`, `b → d`).
//!
//! A block of several frontier stages must also be connected through common producers
//! or input arrays (siblings that share data); the paper enumerates every partition, but
//! a block of unrelated stages shares nothing to reuse, and keeping it out keeps every
//! group connected. Ties between equal costs keep the first grouping found, in the
//! fixed order of the sets involved (bitsets ordered as integers): no hash order reaches
//! a result. The search is bounded by [`DpOptions::max_states`] and
//! [`DpOptions::max_steps`] and reports [`Error::StateLimit`] or [`Error::StepLimit`]
//! rather than running on.

pub mod cost;
pub mod dp;
pub mod from_scop;
pub mod graph;
pub mod inline;

use std::fmt;

pub use cost::{
    cleanup_term, compute_tile_sizes, cost_for_cache_size, group_cost, halos, model_cost,
    tile_work, CacheLevel, Cost, CostParams, CostTerms, GroupCost, Halo, Machine, Weights,
};
pub use dp::{
    dp_grouping, greedy_grouping, incremental_grouping, DpOptions, GreedyGrouping, Grouping,
    IncrementalGrouping, IncrementalOptions, Round,
};
pub use from_scop::{stage_graph, ProgramStages};
pub use graph::{
    check_grouping, Access, Dep, Edge, Error, GroupingFault, InputRead, Result, Stage, StageGraph,
    StageId,
};
pub use inline::{expression_inlining, Inlining};

/// A grouping under the cost model, with every group's cost and tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The grouping the DP found.
    pub grouping: Grouping,
    /// Per group (in the order of `grouping.groups`), its cost and tiles.
    pub costs: Vec<GroupCost>,
    /// Per group, the names of its stages.
    pub names: Vec<Vec<String>>,
}

/// Groups `graph` with the DP under the cost model `params`, and costs every group. When
/// the DP reaches its state or step limit, the bounded incremental grouping takes over
/// (Algorithm 5: groups of at most 4 stages, then of at most 4 coalesced vertices, until
/// every grouping is possible); when that too reaches a limit, the pairwise greedy
/// merging (`greedy_grouping`) decides.
pub fn plan(graph: &StageGraph, params: &CostParams, options: &DpOptions) -> Result<Plan> {
    // An invalid machine makes every group fail; report it once, here.
    params.machine.check()?;
    let grouping = match dp_grouping(graph, model_cost(graph, params), options) {
        // Long pipelines: the bounded incremental search (Algorithm 5), groups of at
        // most 8 stages first, then the coalesced graph without a bound.
        Err(Error::StateLimit { .. } | Error::StepLimit { .. }) => {
            let incremental = IncrementalOptions {
                initial_limit: 4,
                step: Some(4),
                limits: options.clone(),
            };
            match incremental_grouping(graph, model_cost(graph, params), &incremental) {
                Ok(found) => found.grouping,
                // Still too many: the pairwise greedy merges (polynomial).
                Err(Error::StateLimit { .. } | Error::StepLimit { .. }) => {
                    let greedy = greedy_grouping(graph, model_cost(graph, params))?;
                    Grouping {
                        groups: greedy.groups,
                        cost: greedy.cost,
                        memo_states: 0,
                    }
                }
                Err(e) => return Err(e),
            }
        }
        other => other?,
    };
    let mut costs = Vec::with_capacity(grouping.groups.len());
    let mut names = Vec::with_capacity(grouping.groups.len());
    for group in &grouping.groups {
        costs.push(group_cost(graph, group, params)?);
        names.push(
            group
                .iter()
                .map(|&s| graph.stages()[s].name.clone())
                .collect(),
        );
    }
    Ok(Plan {
        grouping,
        costs,
        names,
    })
}

fn sizes(tiles: &[i64]) -> String {
    tiles
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "grouping: {} group(s), cost {}, {} memo state(s)",
            self.grouping.groups.len(),
            self.grouping.cost,
            self.grouping.memo_states
        )?;
        for (i, (names, cost)) in self.names.iter().zip(&self.costs).enumerate() {
            write!(f, "group {i} [{}]: cost {}", names.join(", "), cost.cost)?;
            let Some(t) = &cost.terms else {
                writeln!(f, " (a dependence is not constant)")?;
                continue;
            };
            write!(f, ", {:?} tiles {}", cost.level, sizes(&t.tiles))?;
            if let Some(inner) = &cost.inner_tiles {
                write!(f, " holding L1 tiles {}", sizes(inner))?;
            }
            writeln!(f)?;
            let d = |r| cost::decimal(r, 3);
            writeln!(
                f,
                "  live-in {} + live-out {} over computation {}; overlap {} ({} of the tile footprint of {} bytes); {} tiles, cleanup {}; spread {}",
                d(&t.live_in),
                d(&t.live_out),
                d(&t.computation),
                d(&t.overlap),
                d(&t.relative_overlap),
                t.tile_footprint,
                t.n_tiles,
                t.cleanup,
                d(&t.spread)
            )?;
        }
        Ok(())
    }
}
