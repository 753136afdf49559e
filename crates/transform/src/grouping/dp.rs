//! The dynamic-programming search over groupings (Algorithm 1 of Jangda and Bondhugula,
//! TOPLAS 2020, with the repair described in the module docs of [`super`]), its bounded
//! incremental form (Algorithm 5), and the sets of vertices it works on.
//!
//! The search runs on a `Dag` of *vertices*, each a set of stages: single stages for
//! [`dp_grouping`], the groups of the previous round for [`incremental_grouping`]. The
//! cost of a group is the caller's cost function applied to the union of its vertices'
//! stages.
//!
//! # Invariants
//!
//! In every state `(open, placed)` of the search, `placed ∪ ⋃open` is closed under
//! predecessors (every predecessor of a placed vertex is placed), the open groups are
//! disjoint from each other and from `placed`, and the graph of all groups formed so far
//! is acyclic. Every grouping the search returns passes [`super::check_grouping`].

use std::collections::{BTreeMap, BTreeSet};

use super::cost::Cost;
use super::graph::{Error, Result, StageGraph, StageId};

/// A set of vertex indices as a bitset (ordered, so it can key a `BTreeMap`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct NodeSet(Vec<u64>);

impl NodeSet {
    pub(crate) fn empty(n: usize) -> NodeSet {
        NodeSet(vec![0; n.div_ceil(64).max(1)])
    }

    pub(crate) fn single(n: usize, v: usize) -> NodeSet {
        let mut s = NodeSet::empty(n);
        s.insert(v);
        s
    }

    pub(crate) fn insert(&mut self, v: usize) {
        self.0[v / 64] |= 1 << (v % 64);
    }

    pub(crate) fn contains(&self, v: usize) -> bool {
        self.0[v / 64] & (1 << (v % 64)) != 0
    }

    pub(crate) fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub(crate) fn union_with(&mut self, other: &NodeSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    pub(crate) fn is_subset(&self, other: &NodeSet) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }

    pub(crate) fn intersects(&self, other: &NodeSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| i * 64 + b)
        })
    }
}

/// The graph the search works on: vertices (sets of stages), their predecessors and
/// successors, reachability, and which vertices are siblings (read a common producer
/// vertex or a common input array).
pub(crate) struct Dag {
    pub(crate) members: Vec<Vec<StageId>>,
    succs: Vec<Vec<usize>>,
    preds: Vec<NodeSet>,
    reach: Vec<NodeSet>,
    siblings: Vec<NodeSet>,
}

impl Dag {
    /// The graph of `groups` (disjoint, covering, acyclic quotient) of `graph`.
    pub(crate) fn from_groups(graph: &StageGraph, groups: &[Vec<StageId>]) -> Dag {
        let n = groups.len();
        let mut owner = vec![0; graph.n_stages()];
        for (v, group) in groups.iter().enumerate() {
            for &s in group {
                owner[s] = v;
            }
        }
        let mut succ_sets = vec![BTreeSet::new(); n];
        let mut preds = vec![NodeSet::empty(n); n];
        for e in graph.edges() {
            let (a, b) = (owner[e.producer], owner[e.consumer]);
            if a != b {
                succ_sets[a].insert(b);
                preds[b].insert(a);
            }
        }
        let succs: Vec<Vec<usize>> = succ_sets
            .into_iter()
            .map(|s| s.into_iter().collect())
            .collect();
        let reach = reachability(&succs);
        let mut siblings = vec![NodeSet::empty(n); n];
        for v in 0..n {
            for w in 0..n {
                let related = preds[v].intersects(&preds[w])
                    || groups[v].iter().any(|&a| {
                        groups[w]
                            .iter()
                            .any(|&b| a != b && shares_input(graph, a, b))
                    });
                if v != w && related {
                    siblings[v].insert(w);
                }
            }
        }
        Dag {
            members: groups.to_vec(),
            succs,
            preds,
            reach,
            siblings,
        }
    }

    fn len(&self) -> usize {
        self.members.len()
    }

    fn stages_of(&self, set: &NodeSet) -> Vec<StageId> {
        let mut stages: Vec<StageId> = set
            .iter()
            .flat_map(|v| self.members[v].iter().copied())
            .collect();
        stages.sort_unstable();
        stages
    }
}

fn shares_input(graph: &StageGraph, a: StageId, b: StageId) -> bool {
    let sa = &graph.stages()[a].inputs;
    graph.stages()[b]
        .inputs
        .iter()
        .any(|r| sa.iter().any(|q| q.array == r.array))
}

/// `reach[v]`: the vertices reachable from `v` by a non-empty path.
fn reachability(succs: &[Vec<usize>]) -> Vec<NodeSet> {
    let n = succs.len();
    let mut reach: Vec<Option<NodeSet>> = vec![None; n];
    fn visit(v: usize, succs: &[Vec<usize>], reach: &mut Vec<Option<NodeSet>>) {
        if reach[v].is_some() {
            return;
        }
        let mut set = NodeSet::empty(succs.len());
        for &w in &succs[v] {
            visit(w, succs, reach);
            set.insert(w);
            if let Some(r) = &reach[w] {
                set.union_with(r);
            }
        }
        reach[v] = Some(set);
    }
    for v in 0..n {
        visit(v, succs, &mut reach);
    }
    reach
        .into_iter()
        .map(|r| r.unwrap_or_else(|| NodeSet::empty(n)))
        .collect()
}

/// Limits and bounds of the grouping search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DpOptions {
    /// The largest number of vertices in a group (`l` of the bounded search); `None`
    /// for no bound.
    pub max_group_size: Option<usize>,
    /// The largest number of memo states before the search gives up with
    /// [`Error::StateLimit`].
    pub max_states: usize,
    /// The largest number of search steps (calls, memo hits included, and enumerated
    /// partitions) before the search gives up with [`Error::StepLimit`].
    pub max_steps: u64,
}

impl Default for DpOptions {
    fn default() -> DpOptions {
        DpOptions {
            max_group_size: None,
            max_states: 1_000_000,
            max_steps: 50_000_000,
        }
    }
}

/// A grouping found by a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grouping {
    /// The groups: stage indices sorted, groups sorted by their first stage.
    pub groups: Vec<Vec<StageId>>,
    /// The sum of the groups' costs.
    pub cost: Cost,
    /// The number of memo states the search created (the dummy source counts as one).
    pub memo_states: usize,
}

type Solution = (Cost, Vec<NodeSet>);

struct Search<'a, F> {
    dag: &'a Dag,
    cost: F,
    group_costs: BTreeMap<NodeSet, Cost>,
    memo: BTreeMap<(Vec<NodeSet>, NodeSet), Solution>,
    options: &'a DpOptions,
    steps: u64,
}

impl<F: FnMut(&[StageId]) -> Cost> Search<'_, F> {
    fn group_cost(&mut self, group: &NodeSet) -> Cost {
        if let Some(c) = self.group_costs.get(group) {
            return c.clone();
        }
        let c = (self.cost)(&self.dag.stages_of(group));
        self.group_costs.insert(group.clone(), c.clone());
        c
    }

    fn step(&mut self) -> Result<()> {
        self.steps += 1;
        if self.steps > self.options.max_steps {
            return Err(Error::StepLimit {
                limit: self.options.max_steps,
            });
        }
        Ok(())
    }

    fn fits(&self, size: usize) -> bool {
        self.options.max_group_size.is_none_or(|l| size <= l)
    }

    /// F(open, placed): the cheapest grouping of every vertex not in `placed`, keeping
    /// the open groups (which may still grow) and the finalized vertices `placed`.
    fn solve(&mut self, open: Vec<NodeSet>, placed: NodeSet) -> Result<Solution> {
        self.step()?;
        let key = (open, placed);
        if let Some(found) = self.memo.get(&key) {
            return Ok(found.clone());
        }
        let (open, placed) = key;
        let dag = self.dag;
        let mut all = placed.clone();
        for h in &open {
            all.union_with(h);
        }
        let eligible = |s: usize| !all.contains(s) && dag.preds[s].is_subset(&all);
        let mut best: Option<Solution> = None;
        // Case I: grow one open group by one successor.
        for (i, h) in open.iter().enumerate() {
            if !self.fits(h.len() + 1) {
                continue;
            }
            let succ: BTreeSet<usize> = h
                .iter()
                .flat_map(|v| dag.succs[v].iter().copied())
                .filter(|&t| !h.contains(t))
                .collect();
            for &s in succ.iter().filter(|&&s| eligible(s)) {
                if closes_cycle(dag, &open, i, &succ, s) {
                    continue;
                }
                let mut grown = h.clone();
                grown.insert(s);
                if self.group_cost(&grown) == Cost::Infinite {
                    continue;
                }
                let mut next = open.clone();
                next[i] = grown;
                next.sort();
                let found = self.solve(next, placed.clone())?;
                keep_better(&mut best, found);
            }
        }
        // Case II: finalize the open groups and recurse on a partition of the frontier.
        let frontier: Vec<usize> = open
            .iter()
            .flat_map(|h| h.iter().flat_map(|v| dag.succs[v].iter().copied()))
            .filter(|&s| eligible(s))
            .collect::<BTreeSet<usize>>()
            .into_iter()
            .collect();
        let mut here = Cost::zero();
        for h in &open {
            here = here + self.group_cost(h);
        }
        if frontier.is_empty() {
            keep_better(&mut best, (here, open.clone()));
        } else {
            for partition in self.partitions(&frontier)? {
                let (rest, groups) = self.solve(partition, all.clone())?;
                let mut grouping = open.clone();
                grouping.extend(groups);
                keep_better(&mut best, (here.clone() + rest, grouping));
            }
        }
        let best = best.unwrap_or((Cost::Infinite, open.clone()));
        self.memo.insert((open, placed), best.clone());
        if self.memo.len() > self.options.max_states {
            return Err(Error::StateLimit {
                limit: self.options.max_states,
            });
        }
        Ok(best)
    }

    /// The partitions of `items` whose blocks are admissible (see [`Self::admissible`]),
    /// each block sorted, blocks sorted.
    fn partitions(&mut self, items: &[usize]) -> Result<Vec<Vec<NodeSet>>> {
        let n = self.dag.len();
        let mut all = Vec::new();
        let mut blocks: Vec<Vec<usize>> = Vec::new();
        self.enumerate(items, 0, &mut blocks, &mut all)?;
        let mut out = Vec::new();
        for partition in all {
            let mut sets = Vec::with_capacity(partition.len());
            let mut admissible = true;
            for block in &partition {
                let mut set = NodeSet::empty(n);
                for &v in block {
                    set.insert(v);
                }
                if !self.admissible(&set) {
                    admissible = false;
                    break;
                }
                sets.push(set);
            }
            if admissible {
                sets.sort();
                out.push(sets);
            }
        }
        Ok(out)
    }

    fn enumerate(
        &mut self,
        items: &[usize],
        next: usize,
        blocks: &mut Vec<Vec<usize>>,
        out: &mut Vec<Vec<Vec<usize>>>,
    ) -> Result<()> {
        if next == items.len() {
            self.step()?;
            out.push(blocks.clone());
            return Ok(());
        }
        let item = items[next];
        for b in 0..blocks.len() {
            if !self.fits(blocks[b].len() + 1) {
                continue;
            }
            blocks[b].push(item);
            self.enumerate(items, next + 1, blocks, out)?;
            blocks[b].pop();
        }
        blocks.push(vec![item]);
        self.enumerate(items, next + 1, blocks, out)?;
        blocks.pop();
        Ok(())
    }

    /// A frontier block may form a group: its vertices are connected through common
    /// producers or inputs, none reaches another (the reachability check of the repair),
    /// and a block of several vertices has a finite cost.
    fn admissible(&mut self, block: &NodeSet) -> bool {
        let vertices: Vec<usize> = block.iter().collect();
        if vertices.len() == 1 {
            return true;
        }
        let dag = self.dag;
        if vertices
            .iter()
            .any(|&a| vertices.iter().any(|&b| a != b && dag.reach[a].contains(b)))
        {
            return false;
        }
        let mut reached = vec![vertices[0]];
        let mut stack = vec![vertices[0]];
        while let Some(v) = stack.pop() {
            for &w in &vertices {
                if !reached.contains(&w) && dag.siblings[v].contains(w) {
                    reached.push(w);
                    stack.push(w);
                }
            }
        }
        reached.len() == vertices.len() && self.group_cost(block) != Cost::Infinite
    }

    /// The search from the source, or from a dummy source joined to every source.
    fn run(&mut self) -> Result<(Solution, usize)> {
        let n = self.dag.len();
        let sources: Vec<usize> = (0..n).filter(|&v| self.dag.preds[v].len() == 0).collect();
        if let [source] = sources[..] {
            let found = self.solve(vec![NodeSet::single(n, source)], NodeSet::empty(n))?;
            return Ok((found, self.memo.len()));
        }
        // The dummy source (cost 0) never grows: its only move is Case II.
        let mut best = None;
        for partition in self.partitions(&sources)? {
            let found = self.solve(partition, NodeSet::empty(n))?;
            keep_better(&mut best, found);
        }
        let best = best.unwrap_or((Cost::Infinite, Vec::new()));
        Ok((best, self.memo.len() + 1))
    }
}

/// Whether adding `s` to the open group `open[i]` (whose successors outside it are
/// `succ`) closes a cycle between groups: some successor `t ≠ s` of the group reaches
/// `s`, where a path entering another open group may leave it from any of its vertices
/// (the group is one vertex of the graph of groups).
///
/// The paper's test follows the edges between stages only. That misses a cycle through
/// another open group: with sources `a`, `b` in the groups `{a}`, `{b}`, edges `a → c`,
/// `b → c`, `a → d`, `b → d`, growing `{b}` by `c` and then `{a}` by `d` makes
/// `{a, d} → {b, c} → {a, d}` although no stage path leads from `c` to `d`.
fn closes_cycle(dag: &Dag, open: &[NodeSet], i: usize, succ: &BTreeSet<usize>, s: usize) -> bool {
    let mut seen = NodeSet::empty(dag.len());
    let mut stack: Vec<usize> = succ.iter().copied().filter(|&t| t != s).collect();
    while let Some(v) = stack.pop() {
        if v == s {
            return true;
        }
        if seen.contains(v) {
            continue;
        }
        seen.insert(v);
        stack.extend(dag.succs[v].iter().copied());
        if let Some(group) = open
            .iter()
            .enumerate()
            .find(|(j, h)| *j != i && h.contains(v))
        {
            stack.extend(group.1.iter());
        }
    }
    false
}

fn keep_better(best: &mut Option<Solution>, found: Solution) {
    if best.as_ref().is_none_or(|b| found.0 < b.0) {
        *best = Some(found);
    }
}

fn search<F: FnMut(&[StageId]) -> Cost>(
    dag: &Dag,
    cost: F,
    options: &DpOptions,
) -> Result<Grouping> {
    if options.max_group_size == Some(0) {
        return Err(Error::InvalidParameter {
            what: "the group size limit must be positive",
        });
    }
    let mut s = Search {
        dag,
        cost,
        group_costs: BTreeMap::new(),
        memo: BTreeMap::new(),
        options,
        steps: 0,
    };
    let ((cost, sets), memo_states) = s.run()?;
    let mut groups: Vec<Vec<StageId>> = sets.iter().map(|h| dag.stages_of(h)).collect();
    groups.sort();
    Ok(Grouping {
        groups,
        cost,
        memo_states,
    })
}

/// The DP grouping of `graph` (Algorithm 1 with the repair) under the cost function
/// `cost`, which maps a group's stages (sorted) to its cost.
pub fn dp_grouping<F: FnMut(&[StageId]) -> Cost>(
    graph: &StageGraph,
    cost: F,
    options: &DpOptions,
) -> Result<Grouping> {
    if graph.n_stages() == 0 {
        return Err(Error::NoStages);
    }
    let singletons: Vec<Vec<StageId>> = (0..graph.n_stages()).map(|s| vec![s]).collect();
    search(&Dag::from_groups(graph, &singletons), cost, options)
}

/// Options of the bounded incremental grouping (Algorithm 5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncrementalOptions {
    /// The group-size limit `l` of the first round (in stages).
    pub initial_limit: usize,
    /// `None`: after the first round, one last round without a limit on the coalesced
    /// graph (the paper's experiments, §7.2). `Some(step)`: Algorithm 5's rounds, each
    /// with limit `step` (in vertices of the coalesced graph), until groups of every size
    /// are possible; `step` must be at least 2.
    pub step: Option<usize>,
    /// The state and step limits of each round (its group bound is ignored).
    pub limits: DpOptions,
}

/// One round of the incremental grouping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// The round's group-size limit, in vertices (`None`: unbounded).
    pub limit: Option<usize>,
    /// The number of vertices the round grouped.
    pub vertices: usize,
    /// The number of groups it formed.
    pub groups: usize,
    /// The memo states it created.
    pub memo_states: usize,
}

/// The result of [`incremental_grouping`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncrementalGrouping {
    /// The final grouping (its `memo_states` is the sum over the rounds).
    pub grouping: Grouping,
    /// The rounds, in order.
    pub rounds: Vec<Round>,
}

/// The bounded incremental grouping (Algorithm 5): a DP with groups of at most `l`
/// vertices, then the groups coalesced into single vertices and grouped again.
///
/// With `initial_limit ≥` the number of stages, this is [`dp_grouping`] (one round).
pub fn incremental_grouping<F: FnMut(&[StageId]) -> Cost>(
    graph: &StageGraph,
    mut cost: F,
    options: &IncrementalOptions,
) -> Result<IncrementalGrouping> {
    let n = graph.n_stages();
    if n == 0 {
        return Err(Error::NoStages);
    }
    if options.initial_limit == 0 || options.step.is_some_and(|s| s < 2) {
        return Err(Error::InvalidParameter {
            what: "the initial limit must be positive and the step at least 2",
        });
    }
    let mut groups: Vec<Vec<StageId>> = (0..n).map(|s| vec![s]).collect();
    let mut limit = Some(options.initial_limit);
    let mut max_size = options.initial_limit;
    let mut rounds = Vec::new();
    let mut total_states = 0;
    loop {
        let dag = Dag::from_groups(graph, &groups);
        let bound = limit.filter(|&l| l < dag.len());
        let round_options = DpOptions {
            max_group_size: bound,
            ..options.limits.clone()
        };
        let found = search(&dag, &mut cost, &round_options)?;
        total_states += found.memo_states;
        rounds.push(Round {
            limit: bound,
            vertices: dag.len(),
            groups: found.groups.len(),
            memo_states: found.memo_states,
        });
        let last = bound.is_none() || max_size >= n;
        groups = found.groups.clone();
        if last {
            return Ok(IncrementalGrouping {
                grouping: Grouping {
                    memo_states: total_states,
                    ..found
                },
                rounds,
            });
        }
        match options.step {
            None => limit = None,
            Some(step) => {
                limit = Some(step);
                max_size = max_size.saturating_mul(step);
            }
        }
    }
}

/// The result of [`greedy_grouping`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GreedyGrouping {
    /// The groups (stage indices sorted, groups sorted by first stage).
    pub groups: Vec<Vec<StageId>>,
    /// The sum of the groups' costs.
    pub cost: Cost,
    /// The number of pairwise merges evaluated (one cost of a merged group each).
    pub evaluations: usize,
    /// The number of candidate groupings considered: the initial one and one per
    /// evaluated merge.
    pub candidates: usize,
}

/// The pairwise greedy grouping of the Halide auto-scheduler (Mullapudi et al. 2016), as
/// the baseline of the DP: from singleton groups, repeatedly evaluate every merge of a
/// producer group with a consumer group that creates no cycle, apply the one with the
/// largest benefit `cost(A) + cost(B) − cost(A ∪ B)` if positive, and stop otherwise.
pub fn greedy_grouping<F: FnMut(&[StageId]) -> Cost>(
    graph: &StageGraph,
    mut cost: F,
) -> Result<GreedyGrouping> {
    let n = graph.n_stages();
    if n == 0 {
        return Err(Error::NoStages);
    }
    let mut groups: Vec<Vec<StageId>> = (0..n).map(|s| vec![s]).collect();
    let mut costs: Vec<Cost> = groups.iter().map(|g| cost(g)).collect();
    let mut evaluations = 0;
    loop {
        let mut owner = vec![0; n];
        for (g, group) in groups.iter().enumerate() {
            for &s in group {
                owner[s] = g;
            }
        }
        let pairs: BTreeSet<(usize, usize)> = graph
            .edges()
            .iter()
            .map(|e| (owner[e.producer], owner[e.consumer]))
            .filter(|(a, b)| a != b)
            .collect();
        let mut best: Option<(Cost, usize, usize, Vec<StageId>, Cost)> = None;
        for (a, b) in pairs {
            if creates_cycle(graph, &groups, a, b) {
                continue;
            }
            let mut merged: Vec<StageId> = groups[a].iter().chain(&groups[b]).copied().collect();
            merged.sort_unstable();
            let merged_cost = cost(&merged);
            evaluations += 1;
            let benefit = match (&costs[a], &costs[b], &merged_cost) {
                (Cost::Finite(x), Cost::Finite(y), Cost::Finite(z)) => Cost::Finite(x + y - z),
                (_, _, Cost::Finite(_)) => Cost::Infinite,
                _ => continue,
            };
            if benefit > Cost::zero() && best.as_ref().is_none_or(|b| benefit > b.0) {
                best = Some((benefit, a, b, merged, merged_cost));
            }
        }
        let Some((_, a, b, merged, merged_cost)) = best else {
            break;
        };
        let (keep, drop) = (a.min(b), a.max(b));
        groups[keep] = merged;
        costs[keep] = merged_cost;
        groups.remove(drop);
        costs.remove(drop);
    }
    let total = costs.into_iter().fold(Cost::zero(), |acc, c| acc + c);
    groups.sort();
    Ok(GreedyGrouping {
        groups,
        cost: total,
        evaluations,
        candidates: evaluations + 1,
    })
}

/// Whether merging groups `a` and `b` closes a cycle: in the graph of groups, a path
/// leads from one to the other through a third group.
fn creates_cycle(graph: &StageGraph, groups: &[Vec<StageId>], a: usize, b: usize) -> bool {
    let mut owner = vec![0; graph.n_stages()];
    for (g, group) in groups.iter().enumerate() {
        for &s in group {
            owner[s] = g;
        }
    }
    let next = |g: usize| -> BTreeSet<usize> {
        graph
            .edges()
            .iter()
            .filter(|e| owner[e.producer] == g && owner[e.consumer] != g)
            .map(|e| owner[e.consumer])
            .collect()
    };
    let through_third = |from: usize, to: usize| {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = next(from).into_iter().filter(|&g| g != to).collect();
        while let Some(g) = stack.pop() {
            if g == to {
                return true;
            }
            if seen.insert(g) {
                stack.extend(next(g));
            }
        }
        false
    };
    through_third(a, b) || through_third(b, a)
}
