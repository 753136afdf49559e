//! The expression-inlining decision (Algorithm 3, §5.1 of Jangda and Bondhugula, TOPLAS
//! 2020), as a decision on the stage graph: which stages are inlined into their
//! consumers, and the graph that remains. The code transformation is left to the
//! code generator.
//!
//! A stage that is not live-out is inlined into all its consumers when
//! - (i) it is pointwise; or
//! - (ii) it has one consumer, that consumer is pointwise and refers to it once (a
//!   second reference would evaluate the stage's stencil twice per point: redundant
//!   computation, which the paper's inlining does not add); or
//! - (iii) it has several consumers, all pointwise, and its branches each produce the
//!   values of one consumer with non-overlapping references
//!   ([`Stage::disjoint_branches`](super::Stage::disjoint_branches)).
//!
//! The passes repeat, in topological order, until nothing changes. Inlining `g` into `f`
//! replaces every edge `p → g` by `p → f`, composing the offsets (`f` reads `g` at
//! `a..=b`, `g` reads `p` at `c..=d`: `f` reads `p` at `a + c ..= b + d`) and multiplying
//! the reference counts; `f` stays pointwise only if `g` was, and inherits `g`'s input
//! reads. A live-out is never inlined (test P20).

use super::graph::{Dep, Edge, InputRead, Result, Stage, StageGraph, StageId};

/// The outcome of [`expression_inlining`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inlining {
    /// The inlined stages (indices of the input graph), in the order they were inlined.
    pub inlined: Vec<StageId>,
    /// The graph of the remaining stages.
    pub graph: StageGraph,
    /// For each stage of `graph`, its index in the input graph.
    pub origin: Vec<StageId>,
}

/// Decides which stages of `graph` to inline (see the module docs).
pub fn expression_inlining(graph: &StageGraph) -> Result<Inlining> {
    let mut stages: Vec<Stage> = graph.stages().to_vec();
    let mut edges: Vec<Edge> = graph.edges().to_vec();
    let mut alive = vec![true; stages.len()];
    let mut inlined = Vec::new();
    let order = graph.topological_order();
    let mut work = true;
    while work {
        work = false;
        for &node in &order {
            if !alive[node] || stages[node].live_out {
                continue;
            }
            let mut consumers: Vec<StageId> = edges
                .iter()
                .filter(|e| e.producer == node)
                .map(|e| e.consumer)
                .collect();
            consumers.sort_unstable();
            consumers.dedup();
            if consumers.is_empty() || !should_inline(node, &consumers, &stages, &edges) {
                continue;
            }
            inline(node, &mut stages, &mut edges);
            alive[node] = false;
            inlined.push(node);
            work = true;
        }
    }
    let origin: Vec<StageId> = (0..stages.len()).filter(|&s| alive[s]).collect();
    let mut index = vec![usize::MAX; stages.len()];
    let mut remaining = StageGraph::new(graph.n_dims())?;
    for &s in &origin {
        index[s] = remaining.add_stage(stages[s].clone())?;
    }
    for e in edges {
        let mut e = e;
        e.producer = index[e.producer];
        e.consumer = index[e.consumer];
        remaining.add_edge(e)?;
    }
    Ok(Inlining {
        inlined,
        graph: remaining,
        origin,
    })
}

fn should_inline(node: StageId, consumers: &[StageId], stages: &[Stage], edges: &[Edge]) -> bool {
    if stages[node].pointwise {
        return true;
    }
    let all_pointwise = consumers.iter().all(|&c| stages[c].pointwise);
    if let [consumer] = consumers {
        let references: u32 = edges
            .iter()
            .filter(|e| e.producer == node && e.consumer == *consumer)
            .map(|e| e.references)
            .sum();
        return all_pointwise && references == 1;
    }
    stages[node].disjoint_branches && all_pointwise
}

/// Composes `outer` (consumer reads node, per consumer dimension) with `inner` (node
/// reads something, per node dimension), along the common dimensions.
fn compose(consumer: &Stage, node: &Stage, outer: &[Dep], inner: &[Dep]) -> Vec<Dep> {
    outer
        .iter()
        .enumerate()
        .map(|(k, &o)| {
            let d = consumer.align[k];
            match (o, inner[node.own_dim(d)]) {
                (Dep::Constant { min: a, max: b }, Dep::Constant { min: c, max: d }) => {
                    match (a.checked_add(c), b.checked_add(d)) {
                        (Some(min), Some(max)) => Dep::Constant { min, max },
                        _ => Dep::NonConstant,
                    }
                }
                _ => Dep::NonConstant,
            }
        })
        .collect()
}

fn hull(a: &[Dep], b: &[Dep]) -> Vec<Dep> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| match (x, y) {
            (Dep::Constant { min: a, max: b }, Dep::Constant { min: c, max: d }) => Dep::Constant {
                min: a.min(c),
                max: b.max(d),
            },
            _ => Dep::NonConstant,
        })
        .collect()
}

fn inline(node: StageId, stages: &mut [Stage], edges: &mut Vec<Edge>) {
    let outgoing: Vec<Edge> = edges
        .iter()
        .filter(|e| e.producer == node)
        .cloned()
        .collect();
    let incoming: Vec<Edge> = edges
        .iter()
        .filter(|e| e.consumer == node)
        .cloned()
        .collect();
    edges.retain(|e| e.producer != node && e.consumer != node);
    let node_stage = stages[node].clone();
    for out in &outgoing {
        let c = out.consumer;
        for inc in &incoming {
            let deps = compose(&stages[c], &node_stage, &out.deps, &inc.deps);
            let references = out.references.saturating_mul(inc.references);
            match edges
                .iter_mut()
                .find(|e| e.producer == inc.producer && e.consumer == c)
            {
                Some(existing) => {
                    existing.deps = hull(&existing.deps, &deps);
                    existing.references = existing.references.saturating_add(references);
                }
                None => edges.push(Edge {
                    producer: inc.producer,
                    consumer: c,
                    deps,
                    references,
                }),
            }
        }
        for input in &node_stage.inputs {
            let deps = compose(&stages[c], &node_stage, &out.deps, &input.deps);
            let consumer = &stages[c];
            let scales = (0..consumer.align.len())
                .map(|k| input.scales[node_stage.own_dim(consumer.align[k])])
                .collect();
            let read = InputRead {
                array: input.array.clone(),
                elem_size: input.elem_size,
                deps,
                scales,
            };
            let consumer = &mut stages[c];
            match consumer.inputs.iter_mut().find(|r| r.array == read.array) {
                Some(existing) => existing.deps = hull(&existing.deps, &read.deps),
                None => consumer.inputs.push(read),
            }
        }
        let pointwise = stages[c].pointwise && node_stage.pointwise;
        stages[c].pointwise = pointwise;
    }
}
