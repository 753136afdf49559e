//! The cost model: tile sizes (P10–P13), the cleanup term (P14), infinite costs (P15),
//! blur's halo and redundant work (P16, P17), scaling (P18), the L1/L2 decision (P22),
//! the weight presets (P26) and the explanation.

use pollen_arith::Int;
use pollen_transform::grouping::{
    cleanup_term, compute_tile_sizes, cost_for_cache_size, expression_inlining, group_cost, halos,
    plan, tile_work, Access, CacheLevel, Cost, CostParams, Dep, DpOptions, Edge, Machine, Stage,
    StageGraph, Weights,
};

use crate::pipelines::{blur, harris, rat, unsharp};

/// P10: Harris after inlining (6 buffers of floats), L2 = 256 KiB, 16 cores, a
/// 2832 × 4256 image, innermost 256: 65,536 floats per tile, 42.67 × 256, floored 42 × 256.
#[test]
fn p10_harris_l2_tiles() {
    let points = rat(65536 * 4, 6 * 4);
    assert_eq!(
        compute_tile_sizes(&points, &[2832, 4256], &[1, 1], 256),
        vec![42, 256]
    );
    let inlined = expression_inlining(&harris()).unwrap().graph;
    let group: Vec<usize> = (0..inlined.n_stages()).collect();
    let params = CostParams::xeon();
    let l2 = cost_for_cache_size(&inlined, &group, 256 * 1024, &params).unwrap();
    assert_eq!(l2.tile_footprint, 262144);
    assert_eq!(l2.tiles, vec![42, 256]);
}

/// P11: the same with L1 = 32 KiB: 5.33 × 256, floored 5 × 256; the two-level tile is
/// 42 × 5 × 256 (an L2 tile of 42 × 256 holding L1 tiles of 5 × 256; the choice of two
/// levels is tested in P22).
#[test]
fn p11_harris_l1_and_two_level_tiles() {
    let points = rat(8192 * 4, 6 * 4);
    assert_eq!(
        compute_tile_sizes(&points, &[2832, 4256], &[1, 1], 256),
        vec![5, 256]
    );
    let inlined = expression_inlining(&harris()).unwrap().graph;
    let group: Vec<usize> = (0..inlined.n_stages()).collect();
    let params = CostParams::xeon();
    let l1 = cost_for_cache_size(&inlined, &group, 32 * 1024, &params).unwrap();
    assert_eq!(l1.tiles, vec![5, 256]);
}

/// P12: Unsharp Mask's L1 tile 5 × 256: 8,192 floats over 2 buffers, the 3 channels
/// untiled (no reuse across channels), 256 innermost.
#[test]
fn p12_unsharp_l1_tile() {
    let points = rat(8192 * 4, 2 * 4);
    assert_eq!(
        compute_tile_sizes(&points, &[3, 2832, 4256], &[0, 1, 1], 256),
        vec![3, 5, 256]
    );
}

/// P13: three dimensions, 131,072 points over 2 buffers, reuse (1, 2, ·), 3000³,
/// innermost 256: (11.31, 22.63, 256), floored (11, 22, 256).
#[test]
fn p13_three_dimensional_tiles() {
    let points = rat(131072, 2);
    let tiles = compute_tile_sizes(&points, &[3000, 3000, 3000], &[1, 2, 1], 256);
    assert_eq!(tiles, vec![11, 22, 256]);
    assert!(tiles.iter().product::<i64>() <= 65536);
}

/// The decided corner cases of the tile-size model: one dimension, no reuse anywhere,
/// sizes clamped to the extents and to at least 1.
#[test]
fn tile_size_corner_cases() {
    assert_eq!(
        compute_tile_sizes(&rat(5000, 1), &[4096], &[1], 256),
        vec![4096]
    );
    assert_eq!(
        compute_tile_sizes(&rat(5000, 1), &[100], &[1], 256),
        vec![100]
    );
    assert_eq!(compute_tile_sizes(&rat(1, 2), &[100], &[1], 256), vec![1]);
    assert_eq!(
        compute_tile_sizes(&rat(256 * 64, 1), &[1000, 1000, 1000], &[0, 0, 0], 256),
        vec![8, 8, 256]
    );
    assert_eq!(
        compute_tile_sizes(&rat(100, 1), &[1000, 10], &[1, 1], 256),
        vec![10, 10]
    );
    assert_eq!(
        compute_tile_sizes(&rat(1, 1), &[1000, 1000], &[1, 1], 256),
        vec![1, 256]
    );
    // A zero-reuse dimension too large for the budget is cut to 1.
    assert_eq!(
        compute_tile_sizes(&rat(256 * 16, 1), &[100, 1000, 1000], &[0, 1, 1], 256),
        vec![1, 16, 256]
    );
}

/// P14: (n_tiles + P − 1) mod P for P = 16 and 16, 17, 31, 32, 33 tiles.
#[test]
fn p14_cleanup_term() {
    let terms: Vec<i64> = [16, 17, 31, 32, 33]
        .iter()
        .map(|&n| cleanup_term(&Int::from(n), 16))
        .collect();
    assert_eq!(terms, vec![15, 0, 14, 15, 0]);
}

/// P15: a group with a dependence that cannot be made constant costs infinity;
/// incommensurate scales give a non-constant dependence.
#[test]
fn p15_non_constant_costs_infinity() {
    let mut g = StageGraph::new(1).unwrap();
    g.add_stage(Stage::new("p", vec![100])).unwrap();
    g.add_stage(Stage::new("c", vec![100]).live_out()).unwrap();
    g.add_edge(Edge::new(0, 1, vec![Dep::NonConstant])).unwrap();
    let params = CostParams::xeon();
    assert_eq!(
        group_cost(&g, &[0, 1], &params).unwrap().cost,
        Cost::Infinite
    );
    assert!(group_cost(&g, &[0], &params).unwrap().cost < Cost::Infinite);
    let downsample = Access {
        factor: 2,
        ..Access::stencil(0, 0)
    };
    assert_eq!(downsample.dep(1, 1), Dep::NonConstant);
}

/// P16, P17: blur with 3 × 64 × 64 tiles: blurx has a halo of 1 on both sides along y
/// only, computes 3 · 64 · 66 points per tile, 384 of them redundant; 2048 / 64 = 32
/// tiles per dimension.
#[test]
fn p16_p17_blur_halo_and_redundant_work() {
    let g = blur();
    let halos = halos(&g, &[0, 1]).unwrap();
    assert_eq!(halos[&0].left, vec![0, 0, 1]);
    assert_eq!(halos[&0].right, vec![0, 0, 1]);
    assert_eq!(halos[&1].left, vec![0, 0, 0]);
    let (computation, overlap) = tile_work(&g, &[0, 1], &[3, 64, 64]).unwrap();
    assert_eq!(overlap, rat(384, 1));
    assert_eq!(computation, rat(3 * 64 * 66 + 3 * 64 * 64, 1));
    assert_eq!(g.stages()[1].extents[2] / 64, 32);
    assert_eq!(tile_work(&g, &[0, 1], &[64, 64]), None);
    assert_eq!(tile_work(&g, &[0, 1], &[3, 0, 64]), None);
}

/// P18: scaling and alignment: S1(i, j) → (2i, j) and S2(x, y) → (4y, x); S2 reading
/// S1(2y, x) is constant after scaling; up- and down-sampling reads.
#[test]
fn p18_scaling_and_alignment() {
    let mut g = StageGraph::new(2).unwrap();
    let s1 = Stage::new("S1", vec![100, 100]).with_alignment(vec![0, 1], vec![2, 1]);
    let s2 = Stage::new("S2", vec![100, 50]).with_alignment(vec![1, 0], vec![1, 4]);
    g.add_stage(s1).unwrap();
    g.add_stage(s2).unwrap();
    // S2's x reads S1's j (offset 0); S2's y reads S1's i at 2y.
    let along_x = Access::stencil(0, 0).dep(1, 1);
    let along_y = Access {
        factor: 2,
        ..Access::stencil(0, 0)
    }
    .dep(4, 2);
    assert_eq!((along_x, along_y), (Dep::ZERO, Dep::ZERO));
    g.add_edge(Edge::new(0, 1, vec![along_x, along_y])).unwrap();
    assert!(group_cost(&g, &[0, 1], &CostParams::xeon()).unwrap().cost < Cost::Infinite);
    // Down-sampling p(2x − 1 ..= 2x + 1): consumer scale 2.
    let down = Access {
        factor: 2,
        ..Access::stencil(-1, 1)
    };
    assert_eq!(down.dep(2, 1), Dep::stencil(-1, 1));
    // Up-sampling p(x / 2): producer scale 2, the floor gives −1 ..= 0.
    let up = Access {
        divisor: 2,
        ..Access::stencil(0, 0)
    };
    assert_eq!(up.dep(1, 2), Dep::stencil(-1, 0));
    assert_eq!(up.dep(1, 1), Dep::NonConstant);
}

/// P22: L1 tiles are kept while their overlap does not exceed their volume, otherwise
/// the tiles are sized for L2.
#[test]
fn p22_l1_or_l2() {
    let g = blur();
    let params = CostParams::xeon();
    let small_halo = group_cost(&g, &[0, 1], &params).unwrap();
    assert_eq!(small_halo.level, CacheLevel::L1);
    let t = small_halo.terms.as_ref().unwrap();
    assert!(t.overlap <= t.tile_volume);
    // A deep stencil chain: the L1 tile's halos exceed the tile.
    let mut deep = StageGraph::new(2).unwrap();
    for i in 0..6 {
        let mut stage = Stage::new(&format!("s{i}"), vec![4096, 4096]);
        if i == 5 {
            stage = stage.live_out();
        }
        deep.add_stage(stage).unwrap();
        if i > 0 {
            let wide = vec![Dep::stencil(-3, 3), Dep::stencil(-3, 3)];
            deep.add_edge(Edge::new(i - 1, i, wide)).unwrap();
        }
    }
    let group: Vec<usize> = (0..6).collect();
    let l1 = cost_for_cache_size(&deep, &group, params.machine.l1_bytes, &params).unwrap();
    assert!(l1.overlap > l1.tile_volume);
    let chosen = group_cost(&deep, &group, &params).unwrap();
    assert_eq!(chosen.level, CacheLevel::L2);
    assert_eq!(chosen.inner_tiles, None);
    let multi = CostParams {
        multi_level: true,
        ..CostParams::xeon()
    };
    let two = group_cost(&deep, &group, &multi).unwrap();
    assert_eq!(two.inner_tiles, Some(l1.tiles.clone()));
}

/// P26: the weight presets of Tables 2 and 3.
#[test]
fn p26_weights() {
    let w = Weights::xeon();
    assert_eq!(
        (w.locality, w.cleanup, w.overlap, w.spread),
        (rat(1, 1), rat(100, 1), rat(46875, 1), rat(3, 2))
    );
    let w = Weights::opteron();
    assert_eq!(
        (w.locality, w.cleanup, w.overlap, w.spread),
        (rat(3, 10), rat(100, 1), rat(46875, 1), rat(2, 1))
    );
    let w = Weights::xeon_normalized();
    assert_eq!(
        (w.locality, w.cleanup, w.overlap, w.spread),
        (rat(4704, 100), rat(1, 1), rat(1318, 100), rat(3357, 100))
    );
    let w = Weights::opteron_normalized();
    assert_eq!(
        (w.locality, w.cleanup, w.overlap, w.spread),
        (rat(1411, 100), rat(1, 1), rat(1318, 100), rat(4476, 100))
    );
}

/// The terms of one group, by hand: blur fused, L1 on the Xeon.
#[test]
fn blur_terms() {
    let g = blur();
    let t = cost_for_cache_size(&g, &[0, 1], 32 * 1024, &CostParams::xeon()).unwrap();
    // 8 bytes per point of both buffers: 4096 points; the channels stay whole (3 ≤ 16),
    // 16 / 3 rows.
    assert_eq!(t.tiles, vec![3, 5, 256]);
    assert_eq!(t.tile_footprint, 32768);
    assert_eq!(t.cleanup, cleanup_term(&t.n_tiles, 16));
    assert_eq!(t.overlap, rat(3 * 5 * 2, 1));
    assert_eq!(t.live_out, rat(3 * 5 * 256, 1));
    // img read by blurx: 3 × (5 + 2) × (256 + 2).
    assert_eq!(t.live_in, rat(3 * 7 * 258, 1));
    assert_eq!(t.spread, rat(2, 3 * 2050));
}

/// Invalid machines are errors; the explanation lists groups, tiles and terms.
#[test]
fn plan_and_explain() {
    let bad = CostParams {
        machine: Machine {
            cores: 0,
            ..Machine::xeon()
        },
        ..CostParams::xeon()
    };
    assert!(plan(&blur(), &bad, &DpOptions::default()).is_err());
    let p = plan(&unsharp(), &CostParams::xeon(), &DpOptions::default()).unwrap();
    let text = p.to_string();
    assert!(text.starts_with(&format!(
        "grouping: {} group(s), cost {}, 10 memo state(s)\n",
        p.grouping.groups.len(),
        p.grouping.cost
    )));
    for (i, names) in p.names.iter().enumerate() {
        assert!(text.contains(&format!("group {i} [{}]: cost ", names.join(", "))));
    }
    assert!(text.contains("tiles 3x"));
    assert!(text.contains("cleanup"));
    let again = plan(&unsharp(), &CostParams::xeon(), &DpOptions::default()).unwrap();
    assert_eq!(again.to_string(), text);
}
