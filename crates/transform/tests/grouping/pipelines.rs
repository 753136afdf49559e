//! The pipelines of the tests: chains, Unsharp Mask, Harris corner detection and blur
//! (Fig. 1 of the paper), and cost functions from tables or pseudo-random values.

use std::collections::BTreeMap;

use pollen_arith::Rat;
use pollen_transform::grouping::{Cost, Dep, Edge, InputRead, Stage, StageGraph, StageId};

/// A chain `s0 → s1 → … → s(n−1)` of one-dimensional stencils.
pub fn chain(n: usize) -> StageGraph {
    let mut g = StageGraph::new(1).unwrap();
    for i in 0..n {
        let mut stage = Stage::new(&format!("s{i}"), vec![1024]);
        if i + 1 == n {
            stage = stage.live_out();
        }
        g.add_stage(stage).unwrap();
    }
    for i in 1..n {
        g.add_edge(Edge::new(i - 1, i, vec![Dep::stencil(-1, 1)]))
            .unwrap();
    }
    g
}

/// A graph from an edge list over `n` one-dimensional stencil stages `v0…`.
pub fn dag(n: usize, edges: &[(usize, usize)]) -> StageGraph {
    let mut g = StageGraph::new(1).unwrap();
    for i in 0..n {
        g.add_stage(Stage::new(&format!("v{i}"), vec![1024]))
            .unwrap();
    }
    for &(a, b) in edges {
        g.add_edge(Edge::new(a, b, vec![Dep::stencil(-1, 1)]))
            .unwrap();
    }
    g
}

fn image(name: &str, extents: Vec<i64>) -> Stage {
    let n = extents.len();
    let mut reuse = vec![1; n];
    if n == 3 {
        // No reuse across colour channels.
        reuse[0] = 0;
    }
    Stage::new(name, extents).with_reuse(reuse)
}

/// Unsharp Mask on a 3 × 2832 × 4256 image: blurx → blury → sharpen → masked, and
/// blury → masked.
pub fn unsharp() -> StageGraph {
    let e = vec![3, 2832, 4256];
    let mut g = StageGraph::new(3).unwrap();
    let img = |deps| InputRead::new("img", deps);
    let zero = Dep::ZERO;
    g.add_stage(image("blurx", e.clone()).reading(img(vec![zero, Dep::stencil(-2, 2), zero])))
        .unwrap();
    g.add_stage(image("blury", e.clone())).unwrap();
    g.add_stage(
        image("sharpen", e.clone())
            .pointwise()
            .reading(img(vec![zero; 3])),
    )
    .unwrap();
    g.add_stage(
        image("masked", e)
            .pointwise()
            .live_out()
            .reading(img(vec![zero; 3])),
    )
    .unwrap();
    g.connect("blurx", "blury", vec![zero, zero, Dep::stencil(-2, 2)])
        .unwrap();
    g.connect("blury", "sharpen", vec![zero; 3]).unwrap();
    g.connect("blury", "masked", vec![zero; 3]).unwrap();
    g.connect("sharpen", "masked", vec![zero; 3]).unwrap();
    g
}

/// Harris corner detection on a 2832 × 4256 image, 11 stages.
pub fn harris() -> StageGraph {
    let e = vec![2832, 4256];
    let mut g = StageGraph::new(2).unwrap();
    let box3 = vec![Dep::stencil(-1, 1), Dep::stencil(-1, 1)];
    let point = vec![Dep::ZERO, Dep::ZERO];
    for name in ["Ix", "Iy"] {
        g.add_stage(image(name, e.clone()).reading(InputRead::new("img", box3.clone())))
            .unwrap();
    }
    for name in ["Ixx", "Iyy", "Ixy"] {
        g.add_stage(image(name, e.clone()).pointwise()).unwrap();
    }
    for name in ["Sxx", "Syy", "Sxy"] {
        g.add_stage(image(name, e.clone())).unwrap();
    }
    for name in ["det", "trace"] {
        g.add_stage(image(name, e.clone()).pointwise()).unwrap();
    }
    g.add_stage(image("harris", e).pointwise().live_out())
        .unwrap();
    let mut edge = |p: &str, c: &str, deps: &Vec<Dep>, references: u32| {
        let (p, c) = (g.find(p).unwrap(), g.find(c).unwrap());
        g.add_edge(Edge::new(p, c, deps.clone()).with_references(references))
            .unwrap();
    };
    edge("Ix", "Ixx", &point, 2);
    edge("Iy", "Iyy", &point, 2);
    edge("Ix", "Ixy", &point, 1);
    edge("Iy", "Ixy", &point, 1);
    edge("Ixx", "Sxx", &box3, 9);
    edge("Iyy", "Syy", &box3, 9);
    edge("Ixy", "Sxy", &box3, 9);
    edge("Sxx", "det", &point, 1);
    edge("Syy", "det", &point, 1);
    edge("Sxy", "det", &point, 2);
    edge("Sxx", "trace", &point, 1);
    edge("Syy", "trace", &point, 1);
    edge("det", "harris", &point, 1);
    edge("trace", "harris", &point, 2);
    g
}

/// The blur of Fig. 1 with R = 2046, C = 2048: blurx over `[c, x, y]` in
/// `3 × R × (C + 2)`, blury in `3 × R × C`, reading blurx at `y − 1 ..= y + 1`.
pub fn blur() -> StageGraph {
    let mut g = StageGraph::new(3).unwrap();
    let x_stencil = vec![Dep::ZERO, Dep::stencil(-1, 1), Dep::ZERO];
    g.add_stage(image("blurx", vec![3, 2046, 2050]).reading(InputRead::new("img", x_stencil)))
        .unwrap();
    g.add_stage(image("blury", vec![3, 2046, 2048]).live_out())
        .unwrap();
    g.connect(
        "blurx",
        "blury",
        vec![Dep::ZERO, Dep::ZERO, Dep::stencil(-1, 1)],
    )
    .unwrap();
    g
}

/// A cost function from a table of group costs (stage names joined by `+`), with
/// `default(size)` for the groups not listed.
pub fn table_cost<'a>(
    graph: &'a StageGraph,
    table: &'a [(&'a str, i64)],
    default: impl Fn(usize) -> i64 + 'a,
) -> impl FnMut(&[StageId]) -> Cost + 'a {
    let table: BTreeMap<String, i64> = table.iter().map(|&(k, v)| (k.to_string(), v)).collect();
    move |group| {
        let key: Vec<&str> = group
            .iter()
            .map(|&s| graph.stages()[s].name.as_str())
            .collect();
        Cost::from_int(
            table
                .get(&key.join("+"))
                .copied()
                .unwrap_or_else(|| default(group.len())),
        )
    }
}

/// A pseudo-random cost in `0..1000` for each group (a hash of the seed and the sorted
/// stage list), so that every group has its own arbitrary cost.
pub fn random_cost(seed: u64) -> impl FnMut(&[StageId]) -> Cost {
    move |group| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
        for &s in group {
            h ^= s as u64 + 1;
            h = h.wrapping_mul(0x0100_0000_01b3);
            h ^= h >> 29;
        }
        Cost::from_int((h % 1000) as i64)
    }
}

/// The cheapest valid grouping by brute force over all set partitions (at most 8
/// stages): its cost, and the number of valid groupings.
pub fn brute_force(graph: &StageGraph, cost: &mut dyn FnMut(&[StageId]) -> Cost) -> (Cost, usize) {
    let n = graph.n_stages();
    let mut best = Cost::Infinite;
    let mut valid = 0;
    let mut labels = vec![0usize; n];
    loop {
        let k = labels.iter().max().map_or(0, |m| m + 1);
        let groups: Vec<Vec<StageId>> = (0..k)
            .map(|b| (0..n).filter(|&s| labels[s] == b).collect())
            .collect();
        if pollen_transform::grouping::check_grouping(graph, &groups).is_ok() {
            valid += 1;
            let total = groups.iter().fold(Cost::zero(), |acc, g| acc + cost(g));
            if total < best {
                best = total;
            }
        }
        if !next_restricted_growth(&mut labels) {
            break;
        }
    }
    (best, valid)
}

/// The next restricted growth string (set partition labels), or false after the last.
fn next_restricted_growth(labels: &mut [usize]) -> bool {
    for i in (1..labels.len()).rev() {
        let max_before = labels[..i].iter().max().copied().unwrap_or(0);
        if labels[i] <= max_before {
            labels[i] += 1;
            for l in labels[i + 1..].iter_mut() {
                *l = 0;
            }
            return true;
        }
    }
    false
}

/// `num / den` as a rational.
pub fn rat(num: i64, den: i64) -> Rat {
    Rat::new(num.into(), den.into())
}
