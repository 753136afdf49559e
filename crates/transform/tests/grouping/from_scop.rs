//! The stage graph of real programs (`grouping::from_scop`): C programs read by the
//! frontend, scheduled by Pluto without fusion, turned into stage graphs, and grouped by
//! the DP under the cost model.

use std::collections::{BTreeMap, BTreeSet};

use pollen_deps::{analyze, Analysis};
use pollen_presburger::Budget;
use pollen_transform::grouping::from_scop::{element_size, Error};
use pollen_transform::grouping::{
    check_grouping, plan, stage_graph, CostParams, Dep, DpOptions, Edge, ProgramStages, StageGraph,
};

/// The stage graph of the region of `c`, with the parameters at `estimates`.
fn stages_of(c: &str, estimates: &[(&str, i64)], live_out: Option<&[&str]>) -> ProgramStages {
    try_stages_of(c, estimates, live_out).unwrap()
}

fn try_stages_of(
    c: &str,
    estimates: &[(&str, i64)],
    live_out: Option<&[&str]>,
) -> Result<ProgramStages, Error> {
    let scop = pollen_frontend::extract(c).unwrap().scop;
    let deps = analyze(&scop, Analysis::ValueBased).unwrap();
    let options = pollen_sched::Options {
        fuse: pollen_sched::Fuse::No,
        ..Default::default()
    };
    let tree = pollen_sched::schedule(&scop, deps.as_slice(), &options).unwrap();
    let estimates: BTreeMap<String, i64> =
        estimates.iter().map(|(p, v)| (p.to_string(), *v)).collect();
    let live: Option<BTreeSet<String>> =
        live_out.map(|l| l.iter().map(|a| a.to_string()).collect());
    stage_graph(
        &scop,
        deps.as_slice(),
        &tree,
        &estimates,
        live.as_ref(),
        &mut Budget::new(50_000_000),
    )
}

/// The edge `producer → consumer`.
fn edge<'a>(g: &'a StageGraph, producer: &str, consumer: &str) -> &'a Edge {
    let (p, c) = (g.find(producer).unwrap(), g.find(consumer).unwrap());
    g.edges()
        .iter()
        .find(|e| e.producer == p && e.consumer == c)
        .unwrap_or_else(|| panic!("no edge {producer} -> {consumer}"))
}

fn stencil(min: i64, max: i64) -> Dep {
    Dep::stencil(min, max)
}

const BLUR: &str = "void blur(int n, int m, float in[n][m], float blurx[n][m], float blury[n][m]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m - 1; j++)
      blurx[i][j] = (in[i][j - 1] + in[i][j] + in[i][j + 1]) / 3;
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      blury[i][j] = (blurx[i - 1][j] + blurx[i][j] + blurx[i + 1][j]) / 3;
#pragma endscop
}";

const UNSHARP: &str = "void unsharp(int R, int C, float img[R][C], float blurx[R][C], float blury[R][C], float sharpen[R][C], float masked[R][C]) {
#pragma scop
  for (int i = 0; i < R; i++)
    for (int j = 2; j < C - 2; j++)
      blurx[i][j] = (img[i][j - 2] + 4 * img[i][j - 1] + 6 * img[i][j] + 4 * img[i][j + 1] + img[i][j + 2]) / 16;
  for (int i = 2; i < R - 2; i++)
    for (int j = 2; j < C - 2; j++)
      blury[i][j] = (blurx[i - 2][j] + 4 * blurx[i - 1][j] + 6 * blurx[i][j] + 4 * blurx[i + 1][j] + blurx[i + 2][j]) / 16;
  for (int i = 2; i < R - 2; i++)
    for (int j = 2; j < C - 2; j++)
      sharpen[i][j] = img[i][j] * 3 - blury[i][j] * 2;
  for (int i = 2; i < R - 2; i++)
    for (int j = 2; j < C - 2; j++)
      masked[i][j] = img[i][j] - blury[i][j] < 1 ? img[i][j] : sharpen[i][j];
#pragma endscop
}";

const SAMPLING: &str = "void sampling(int n, float in[2 * n + 2][2 * n + 2], float a[2 * n + 2][2 * n + 2], float down[n][n], float up[2 * n][2 * n]) {
#pragma scop
  for (int i = 0; i < 2 * n + 2; i++)
    for (int j = 0; j < 2 * n + 2; j++)
      a[i][j] = in[i][j] * 2;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      down[i][j] = (a[2 * i][2 * j] + a[2 * i + 1][2 * j] + a[2 * i + 2][2 * j + 1]) / 3;
  for (int i = 0; i < 2 * n; i++)
    for (int j = 0; j < 2 * n; j++)
      up[i][j] = down[i / 2][j / 2];
#pragma endscop
}";

const PRODUCT: &str = "void product(int n, float in[n][n], float t[n][n], float c[n][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      t[i][j] = in[i][j] + 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        c[i][j] = c[i][j] + t[i][k] * t[k][j];
#pragma endscop
}";

/// Groups `g` with the DP under the Xeon model, checks the grouping and prints it.
fn grouped(g: &StageGraph) -> Vec<Vec<String>> {
    let p = plan(g, &CostParams::xeon(), &DpOptions::default()).unwrap();
    check_grouping(g, &p.grouping.groups).unwrap();
    println!("{p}");
    p.names
}

/// Blur: blurx reads the input `in` along `j` (`{-1, 1}`), blury reads blurx along `i`.
/// The offsets are those of the subscripts (the band points are the loop counters), so
/// the edge is `{-1, 1}` along `i` and `{0, 0}` along `j`.
#[test]
fn blur() {
    let p = stages_of(BLUR, &[("n", 2048), ("m", 1024)], None);
    let g = &p.graph;
    assert_eq!(g.n_dims(), 2);
    assert_eq!(p.statements, vec![vec!["S0"], vec!["S1"]]);
    assert!(p.skipped.is_empty());
    let names: Vec<&str> = g.stages().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["blurx", "blury"]);
    let (bx, by) = (&g.stages()[0], &g.stages()[1]);
    assert_eq!(bx.extents, vec![2048, 1022]);
    assert_eq!(by.extents, vec![2046, 1022]);
    assert_eq!(
        (bx.scales.clone(), by.scales.clone()),
        (vec![1, 1], vec![1, 1])
    );
    assert_eq!((bx.elem_size, by.elem_size), (4, 4));
    assert_eq!((bx.live_out, by.live_out), (false, true));
    assert!(!bx.pointwise && !by.pointwise);
    // Every read varies along both dimensions: only the innermost's spatial point.
    assert_eq!(bx.reuse, vec![0, 1]);
    let e = edge(g, "blurx", "blury");
    assert_eq!(e.deps, vec![stencil(-1, 1), Dep::ZERO]);
    assert_eq!(e.references, 3);
    assert_eq!(g.edges().len(), 1);
    assert_eq!(bx.inputs.len(), 1);
    assert_eq!(bx.inputs[0].array, "in");
    assert_eq!(bx.inputs[0].deps, vec![Dep::ZERO, stencil(-1, 1)]);
    assert_eq!(bx.inputs[0].scales, vec![1, 1]);
    assert_eq!(bx.inputs[0].elem_size, 4);
    assert!(by.inputs.is_empty());
    let groups = grouped(g);
    assert_eq!(groups.concat().len(), 2);
    // The same program gives the same graph.
    assert_eq!(stages_of(BLUR, &[("n", 2048), ("m", 1024)], None), p);
}

#[test]
fn unsharp() {
    let estimates = [("R", 1536), ("C", 2560)];
    let p = stages_of(UNSHARP, &estimates, None);
    let g = &p.graph;
    let names: Vec<&str> = g.stages().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["blurx", "blury", "sharpen", "masked"]);
    assert_eq!(g.stages()[0].extents, vec![1536, 2556]);
    for s in &g.stages()[1..] {
        assert_eq!(s.extents, vec![1532, 2556]);
    }
    assert_eq!(
        edge(g, "blurx", "blury").deps,
        vec![stencil(-2, 2), Dep::ZERO]
    );
    assert_eq!(edge(g, "blurx", "blury").references, 5);
    for (a, b) in [
        ("blury", "sharpen"),
        ("blury", "masked"),
        ("sharpen", "masked"),
    ] {
        assert_eq!(edge(g, a, b).deps, vec![Dep::ZERO, Dep::ZERO], "{a} -> {b}");
    }
    assert_eq!(g.edges().len(), 4);
    let pointwise: Vec<bool> = g.stages().iter().map(|s| s.pointwise).collect();
    assert_eq!(pointwise, [false, false, true, true]);
    let live: Vec<bool> = g.stages().iter().map(|s| s.live_out).collect();
    assert_eq!(live, [false, false, false, true]);
    // img is read by blurx, sharpen and masked.
    let readers: Vec<usize> = g.stages().iter().map(|s| s.inputs.len()).collect();
    assert_eq!(readers, [1, 0, 1, 1]);
    assert_eq!(
        g.stages()[0].inputs[0].deps,
        vec![Dep::ZERO, stencil(-2, 2)]
    );
    // Named live-out arrays.
    let named = stages_of(UNSHARP, &estimates, Some(&["sharpen", "masked"]));
    let live: Vec<bool> = named.graph.stages().iter().map(|s| s.live_out).collect();
    assert_eq!(live, [false, false, true, true]);
    let groups = grouped(g);
    assert_eq!(groups.concat().len(), 4);
}

/// Down-sampling (`down(i) = a(2i + k)`) gives `down` scale 2; up-sampling
/// (`up(i) = down(i / 2)`) brings the scale back to 1.
#[test]
fn sampling() {
    let p = stages_of(SAMPLING, &[("n", 512)], None);
    let g = &p.graph;
    let names: Vec<&str> = g.stages().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "down", "up"]);
    let scales: Vec<Vec<i64>> = g.stages().iter().map(|s| s.scales.clone()).collect();
    assert_eq!(scales, [vec![1, 1], vec![2, 2], vec![1, 1]]);
    assert_eq!(g.stages()[1].extents, vec![512, 512]);
    assert_eq!(g.stages()[2].extents, vec![1024, 1024]);
    // down(x) at 2x reads a at 2x .. 2x + 2 (rows) and 2x .. 2x + 1 (columns).
    assert_eq!(
        edge(g, "a", "down").deps,
        vec![stencil(0, 2), stencil(0, 1)]
    );
    // up(x) at x reads down(floor(x / 2)) at 2 floor(x / 2), that is x - 1 or x.
    assert_eq!(
        edge(g, "down", "up").deps,
        vec![stencil(-1, 0), stencil(-1, 0)]
    );
    assert!(g.stages()[0].pointwise);
    let groups = grouped(g);
    assert_eq!(groups.concat().len(), 3);
}

/// A matrix product reads whole rows and columns of its producer: no scaling makes the
/// dependence constant, so the stages are never grouped. The two-dimensional producer
/// is padded to the product's three dimensions.
#[test]
fn product() {
    let p = stages_of(PRODUCT, &[("n", 256)], None);
    let g = &p.graph;
    assert_eq!(g.n_dims(), 3);
    let (t, c) = (&g.stages()[0], &g.stages()[1]);
    assert_eq!(t.extents, vec![1, 256, 256]);
    assert_eq!(c.extents, vec![256, 256, 256]);
    let e = edge(g, "t", "c");
    assert_eq!(e.deps, vec![Dep::NonConstant; 3]);
    assert_eq!(e.references, 2);
    // c[i][j] does not vary along k, t[i][k] along j, t[k][j] along i; k is innermost.
    assert_eq!(c.reuse, vec![1, 1, 2]);
    assert_eq!(t.reuse, vec![0, 0, 1]);
    // c reads itself: no input read, no self edge.
    assert!(c.inputs.is_empty());
    assert_eq!(
        grouped(g),
        vec![vec!["t".to_string()], vec!["c".to_string()]]
    );
}

const SHARED: &str = "void shared(int n, float in[n], float a[n], float b[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = in[i];
  for (int i = 0; i < n; i++)
    a[i] = a[i] + 1;
  for (int i = 1; i < n - 1; i++)
    b[i] = a[i - 1] + a[i + 1];
#pragma endscop
}";

/// Stages writing a common array are left out; what they write is an input of the
/// others.
#[test]
fn skipped_stages_and_inputs() {
    let p = stages_of(SHARED, &[("n", 100)], None);
    assert_eq!(p.skipped.len(), 2);
    assert_eq!(p.skipped[0].0, vec!["S0"]);
    assert!(p.skipped[0].1.contains("`a` is also written"));
    let g = &p.graph;
    assert_eq!(g.n_stages(), 1);
    assert_eq!(p.statements, vec![vec!["S2"]]);
    let b = &g.stages()[0];
    assert_eq!(b.name, "b");
    assert_eq!(b.extents, vec![98]);
    assert_eq!(b.inputs.len(), 1);
    assert_eq!(b.inputs[0].array, "a");
    assert_eq!(b.inputs[0].deps, vec![stencil(-1, 1)]);
    assert!(b.live_out);
}

#[test]
fn errors() {
    let e = try_stages_of(BLUR, &[("n", -3)], None).unwrap_err();
    assert_eq!(
        e,
        Error::OutsideContext {
            values: vec![("n".into(), -3), ("m".into(), 1024)]
        }
    );
    assert!(e.to_string().contains("n = -3, m = 1024"));
    let e = try_stages_of(BLUR, &[("x", 3)], None).unwrap_err();
    assert_eq!(e, Error::UnknownParameter { name: "x".into() });
    // A budget too small is an error, not a panic.
    let scop = pollen_frontend::extract(UNSHARP).unwrap().scop;
    let deps = analyze(&scop, Analysis::ValueBased).unwrap();
    let options = pollen_sched::Options {
        fuse: pollen_sched::Fuse::No,
        ..Default::default()
    };
    let tree = pollen_sched::schedule(&scop, deps.as_slice(), &options).unwrap();
    let r = stage_graph(
        &scop,
        deps.as_slice(),
        &tree,
        &BTreeMap::new(),
        None,
        &mut Budget::new(10),
    );
    assert!(matches!(
        r,
        Err(Error::Transform(pollen_transform::Error::LimitExceeded))
    ));
}

#[test]
fn element_sizes() {
    assert_eq!(element_size("float"), 4);
    assert_eq!(element_size("int"), 4);
    assert_eq!(element_size("unsigned int"), 4);
    assert_eq!(element_size("double"), 8);
    assert_eq!(element_size("long"), 8);
    assert_eq!(element_size("unsigned char"), 1);
    assert_eq!(element_size("short"), 2);
    assert_eq!(element_size("struct pixel"), 8);
}

/// PolyMage's Table 1: the DP enumerates 10 groupings of Unsharp Mask (4 stages, one
/// with two successors); the example pipeline's graph gives the same count.
#[test]
fn the_example_unsharp_mask_enumerates_table_1s_ten_groupings() {
    let source = std::fs::read_to_string(pollen_testkit::pipelines_dir().join("unsharp.c"))
        .expect("examples/pipelines/unsharp.c");
    let p = stages_of(
        &source,
        &[("rows", 2832), ("cols", 4256)],
        Some(&["masked"]),
    );
    assert_eq!(p.graph.n_stages(), 4);
    let result = plan(&p.graph, &CostParams::xeon(), &DpOptions::default()).unwrap();
    assert_eq!(result.grouping.memo_states, 10);
    check_grouping(&p.graph, &result.grouping.groups).unwrap();
}
