//! Expression inlining: Harris (P19), live-outs (P20), and the composed graph.

use pollen_transform::grouping::{
    check_grouping, dp_grouping, expression_inlining, model_cost, plan, CostParams, Dep, DpOptions,
    Edge, Stage, StageGraph, Weights,
};

use crate::pipelines::{harris, unsharp};

/// P19: on Harris, Ixx, Iyy, Ixy, det and trace are inlined, leaving Ix, Iy, Sxx, Syy,
/// Sxy and harris (the box sums have two consumers, or are referred to several times by
/// their one pointwise consumer, and stay).
#[test]
fn p19_harris_inlining() {
    let g = harris();
    let result = expression_inlining(&g).unwrap();
    let mut inlined: Vec<&str> = result
        .inlined
        .iter()
        .map(|&s| g.stages()[s].name.as_str())
        .collect();
    inlined.sort_unstable();
    assert_eq!(inlined, vec!["Ixx", "Ixy", "Iyy", "det", "trace"]);
    let left: Vec<&str> = result
        .graph
        .stages()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(left, vec!["Ix", "Iy", "Sxx", "Syy", "Sxy", "harris"]);
    assert_eq!(result.origin, vec![0, 1, 5, 6, 7, 10]);
    let r = &result.graph;
    let edge = |p: &str, c: &str| {
        let (p, c) = (r.find(p).unwrap(), r.find(c).unwrap());
        r.edges()
            .iter()
            .find(|e| e.producer == p && e.consumer == c)
            .cloned()
    };
    // Sxx sums Ix · Ix over a 3 × 3 box; harris reads Sxx once through det and twice
    // through trace.
    let sxx = edge("Ix", "Sxx").unwrap();
    assert_eq!(sxx.deps, vec![Dep::stencil(-1, 1), Dep::stencil(-1, 1)]);
    assert_eq!(sxx.references, 18);
    assert_eq!(edge("Sxx", "harris").unwrap().references, 3);
    assert_eq!(edge("Sxy", "harris").unwrap().references, 2);
    assert!(edge("Iy", "Sxy").is_some());
    assert!(!r.stages()[r.find("Sxx").unwrap()].pointwise);
    assert!(r.stages()[r.find("harris").unwrap()].pointwise);
    // The remaining graph groups validly under the model.
    let params = CostParams::xeon();
    let found = dp_grouping(r, model_cost(r, &params), &DpOptions::default()).unwrap();
    check_grouping(r, &found.groups).unwrap();
}

/// P20: a pointwise live-out is never inlined.
#[test]
fn p20_live_outs_stay() {
    let mut g = StageGraph::new(1).unwrap();
    g.add_stage(Stage::new("a", vec![10])).unwrap();
    g.add_stage(Stage::new("b", vec![10]).pointwise().live_out())
        .unwrap();
    g.add_stage(Stage::new("c", vec![10]).pointwise().live_out())
        .unwrap();
    // `a` is read twice by its one pointwise consumer: not inlined either.
    g.add_edge(Edge::new(0, 1, vec![Dep::ZERO]).with_references(2))
        .unwrap();
    g.add_edge(Edge::new(1, 2, vec![Dep::ZERO])).unwrap();
    let result = expression_inlining(&g).unwrap();
    assert!(result.inlined.is_empty());
    assert_eq!(result.graph, g);
    // Unsharp Mask: sharpen (pointwise) goes into masked; masked (live-out) stays.
    let u = unsharp();
    let result = expression_inlining(&u).unwrap();
    assert_eq!(result.inlined, vec![u.find("sharpen").unwrap()]);
    let masked = result.graph.find("masked").unwrap();
    let reads = &result.graph.stages()[masked].inputs;
    assert_eq!(reads.len(), 1);
    assert_eq!(
        result.graph.producers(masked),
        vec![result.graph.find("blury").unwrap()]
    );
}

/// Case (iii): a stage whose branches feed pointwise consumers with disjoint references
/// is inlined into all of them; without the flag it stays.
#[test]
fn disjoint_branches() {
    let build = |disjoint: bool| {
        let mut g = StageGraph::new(1).unwrap();
        let mut p = Stage::new("p", vec![10]);
        p.disjoint_branches = disjoint;
        g.add_stage(Stage::new("src", vec![10])).unwrap();
        g.add_stage(p).unwrap();
        g.add_stage(Stage::new("even", vec![10]).pointwise().live_out())
            .unwrap();
        g.add_stage(Stage::new("odd", vec![10]).pointwise().live_out())
            .unwrap();
        g.add_edge(Edge::new(0, 1, vec![Dep::stencil(-1, 1)]))
            .unwrap();
        g.add_edge(Edge::new(1, 2, vec![Dep::ZERO])).unwrap();
        g.add_edge(Edge::new(1, 3, vec![Dep::ZERO])).unwrap();
        g
    };
    assert_eq!(expression_inlining(&build(true)).unwrap().inlined, vec![1]);
    assert!(expression_inlining(&build(false))
        .unwrap()
        .inlined
        .is_empty());
}

/// The model on Harris after inlining: with Table 3's weights the six stages fuse into
/// one group with L1 tiles of 5 × 256 (P11's tile); with Table 2's weights the
/// subtracted cleanup term (up to 100 · 15 per group) outweighs the others, and every
/// stage stays alone.
#[test]
fn harris_under_the_model() {
    let r = expression_inlining(&harris()).unwrap().graph;
    let normalized = CostParams {
        weights: Weights::xeon_normalized(),
        ..CostParams::xeon()
    };
    let p = plan(&r, &normalized, &DpOptions::default()).unwrap();
    assert_eq!(p.grouping.groups, vec![(0..6).collect::<Vec<_>>()]);
    assert_eq!(p.costs[0].tiles(), &[5, 256]);
    assert_eq!(p.grouping.memo_states, 56);
    let raw = plan(&r, &CostParams::xeon(), &DpOptions::default()).unwrap();
    assert_eq!(raw.grouping.groups.len(), 6);
}
