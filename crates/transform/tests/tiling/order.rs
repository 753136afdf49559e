//! The order of tiled schedules against brute force (enumerate the instances, sort them by
//! tile then point coordinates computed by hand), and the intra-tile order's parts: the
//! step of an access along a band member and the choice of the innermost member.

use pollen_scop::{ScheduleTree, Scop};
use pollen_transform::order::{access_step, intra_tile_order, lane_innermost, point_order, Step};
use pollen_transform::{tile, TileOptions};

use crate::common::{bands, map, scheduled_instances, tiny_scop};

/// The instances of `S` in the order of the tree's flattened schedule.
fn order_of(tree: &ScheduleTree) -> Vec<Vec<i64>> {
    let schedule = tree.to_union_map().expect("flattening");
    scheduled_instances(&schedule, &[])
        .into_iter()
        .map(|(_, _, i)| i)
        .collect()
}

/// The points of a `[lo, hi)` box in two dimensions sorted by `key`.
fn sorted_box(lo: (i64, i64), hi: (i64, i64), key: impl Fn(i64, i64) -> Vec<i64>) -> Vec<Vec<i64>> {
    let mut points: Vec<(Vec<i64>, Vec<i64>)> = Vec::new();
    for i in lo.0..hi.0 {
        for j in lo.1..hi.1 {
            points.push((key(i, j), vec![i, j]));
        }
    }
    points.sort();
    points.into_iter().map(|(_, p)| p).collect()
}

fn tiled(scop: &Scop, options: &TileOptions) -> ScheduleTree {
    tile(scop, &[], &scop.schedule, options).expect("tiling")
}

fn options(sizes: &[i64], second: Option<&[i64]>, wavefront: bool, order: bool) -> TileOptions {
    TileOptions {
        sizes: Some(sizes.to_vec()),
        second_level: second.map(<[i64]>::to_vec),
        wavefront,
        intra_tile_order: order,
        ..TileOptions::default()
    }
}

const DOMAIN: &str = "{ S[i, j] : -3 <= i < 5 and 0 <= j < 7 }";

#[test]
fn rectangular_tiles_order_instances_by_tile_then_point() {
    let scop = tiny_scop(DOMAIN, &[], "{ S[i, j] -> [i, j] }", &[true, true]);
    let got = order_of(&tiled(&scop, &options(&[2, 3], None, false, false)));
    let want = sorted_box((-3, 0), (5, 7), |i, j| {
        vec![i.div_euclid(2), j.div_euclid(3), i, j]
    });
    assert_eq!(got, want);
}

#[test]
fn skewed_bands_are_tiled_along_their_members() {
    let scop = tiny_scop(DOMAIN, &[], "{ S[i, j] -> [i, i + j] }", &[true, true]);
    let got = order_of(&tiled(&scop, &options(&[3], None, false, false)));
    let want = sorted_box((-3, 0), (5, 7), |i, j| {
        vec![i.div_euclid(3), (i + j).div_euclid(3), i, i + j]
    });
    assert_eq!(got, want);
}

#[test]
fn a_second_level_groups_tiles() {
    let scop = tiny_scop(DOMAIN, &[], "{ S[i, j] -> [i, j] }", &[true, true]);
    let got = order_of(&tiled(&scop, &options(&[2], Some(&[2, 3]), false, false)));
    let want = sorted_box((-3, 0), (5, 7), |i, j| {
        vec![
            i.div_euclid(4),
            j.div_euclid(6),
            i.div_euclid(2),
            j.div_euclid(2),
            i,
            j,
        ]
    });
    assert_eq!(got, want);
}

#[test]
fn a_wavefront_orders_tiles_by_anti_diagonal() {
    let scop = tiny_scop(DOMAIN, &[], "{ S[i, j] -> [i, j] }", &[false, false]);
    let got = order_of(&tiled(&scop, &options(&[2, 3], None, true, false)));
    let want = sorted_box((-3, 0), (5, 7), |i, j| {
        let (ti, tj) = (i.div_euclid(2), j.div_euclid(3));
        vec![ti + tj, tj, i, j]
    });
    assert_eq!(got, want);
}

#[test]
fn the_intra_tile_order_puts_the_stride_one_member_innermost() {
    let column = tiny_scop(
        DOMAIN,
        &[(true, "{ S[i, j] -> A[j, i] }")],
        "{ S[i, j] -> [i, j] }",
        &[true, true],
    );
    let got = order_of(&tiled(&column, &options(&[2, 3], None, false, true)));
    let want = sorted_box((-3, 0), (5, 7), |i, j| {
        vec![i.div_euclid(2), j.div_euclid(3), j, i]
    });
    assert_eq!(got, want);
    let row = tiny_scop(
        DOMAIN,
        &[(true, "{ S[i, j] -> A[i, j] }")],
        "{ S[i, j] -> [i, j] }",
        &[true, true],
    );
    let t = tiled(&row, &options(&[2, 3], None, false, true));
    let original = &bands(&row.schedule)[0].schedule;
    assert!(bands(&t)[1]
        .schedule
        .is_equal(original)
        .expect("comparison"));
}

#[test]
fn access_steps_along_band_members() {
    let gemm = "{ S[i, j, k] -> [i, j, k] }";
    let skewed = "{ S[t, i] -> [t, t + i] }";
    let cases: &[(&str, &str, usize, Step)] = &[
        (gemm, "{ S[i, j, k] -> C[i, j] }", 0, Step::Strided),
        (gemm, "{ S[i, j, k] -> C[i, j] }", 1, Step::Unit),
        (gemm, "{ S[i, j, k] -> C[i, j] }", 2, Step::Invariant),
        (gemm, "{ S[i, j, k] -> A[i, k] }", 2, Step::Unit),
        (gemm, "{ S[i, j, k] -> B[k, j] }", 2, Step::Strided),
        (gemm, "{ S[i, j, k] -> B[k, j] }", 0, Step::Invariant),
        (gemm, "{ S[i, j, k] -> x[] }", 1, Step::Invariant),
        (gemm, "{ S[i, j, k] -> y[j] }", 1, Step::Unit),
        (gemm, "{ S[i, j, k] -> y[2j] }", 1, Step::Strided),
        (gemm, "{ S[i, j, k] -> y[-j] }", 1, Step::Unit),
        (gemm, "{ S[i, j, k] -> D[j, j] }", 1, Step::Strided),
        // One step along t + i with t fixed is one step along i.
        (skewed, "{ S[t, i] -> A[i] }", 1, Step::Unit),
        // One step along t with t + i fixed moves i back by one.
        (skewed, "{ S[t, i] -> A[i] }", 0, Step::Unit),
        (skewed, "{ S[t, i] -> A[t, i] }", 0, Step::Strided),
        // The band fixes only i; j moves freely below it.
        (
            "{ S[i, j] -> [i] }",
            "{ S[i, j] -> A[i, j] }",
            0,
            Step::Strided,
        ),
    ];
    for (schedule, access, member, want) in cases {
        let got = access_step(&map(schedule), &map(access), *member).expect("step");
        assert_eq!(got, *want, "{access} along member {member} of {schedule}");
    }
}

#[test]
fn the_innermost_member_is_the_best_scored_preferring_coincident_ones() {
    /// Scores, strided counts, coincidence, and the expected order.
    type Case<'a> = (&'a [i64], &'a [i64], &'a [bool], &'a [usize]);
    let cases: &[Case] = &[
        // No positive score: keep the order.
        (&[0, -1, 0], &[0, 1, 0], &[true, true, true], &[0, 1, 2]),
        // The highest score goes innermost, the others keep their order.
        (&[3, 1, 0], &[0, 0, 0], &[false, false, false], &[1, 2, 0]),
        // Ties keep the later member.
        (&[2, 2], &[0, 0], &[false, false], &[0, 1]),
        // A coincident member wins over a better non-coincident one.
        (&[1, 3], &[0, 0], &[true, false], &[1, 0]),
        (&[2, 3, -1], &[0, 0, 1], &[true, true, false], &[0, 2, 1]),
        // A member without strided access wins over a coincident one that strides
        // (gesummv: `y[i] += B[i][j] * x[j]`, i parallel, j streams the rows of B).
        (&[1, 2], &[1, 0], &[true, false], &[0, 1]),
    ];
    for (scores, strided, coincident, want) in cases {
        assert_eq!(
            intra_tile_order(scores, strided, coincident),
            want.to_vec(),
            "{scores:?} {strided:?} {coincident:?}"
        );
    }
}

#[test]
fn point_bands_put_a_coincident_member_innermost_when_no_member_scores() {
    type Case<'a> = (&'a [i64], &'a [i64], &'a [bool], &'a [usize]);
    let cases: &[Case] = &[
        // adi's column sweep q[i][j] = f(u[j][i-1..i+1], q[i][j-1]): i parallel, j a
        // recurrence, both score 0; inside a tile i goes innermost (vector loop).
        (&[0, 0], &[3, 3], &[true, false], &[1, 0]),
        // The coincident member scores lower than the innermost one: kept.
        (&[-1, 0], &[2, 1], &[true, false], &[0, 1]),
        // The innermost member is coincident already: kept.
        (&[0, 0], &[1, 1], &[false, true], &[0, 1]),
        // A positive score decides as in the intra-tile order.
        (&[0, 2], &[1, 0], &[true, false], &[0, 1]),
    ];
    for (scores, strided, coincident, want) in cases {
        assert_eq!(
            point_order(scores, strided, coincident),
            want.to_vec(),
            "{scores:?} {strided:?} {coincident:?}"
        );
    }
}

/// The unroll-and-jam marks of a tree, outermost first.
fn jam_marks(node: &pollen_scop::Node) -> Vec<String> {
    let mut out = Vec::new();
    if let pollen_scop::Node::Mark { name, .. } = node {
        out.push(name.clone());
    }
    for c in node.children() {
        out.extend(jam_marks(c));
    }
    out
}

#[test]
fn matrix_products_get_register_tiles_and_copies_get_none() {
    let with_jam = |name: &str| {
        let k = crate::common::kernel(name);
        let options = TileOptions {
            sizes: Some(vec![32]),
            unroll_and_jam: true,
            ..TileOptions::default()
        };
        jam_marks(&crate::common::tiled(name, &k, &options).root)
    };
    // gemm's point band (i, k, j): `B[k][j]` is shared along i, `C[i][j]` along k; the
    // vector loop j is jammed 4 x 4.
    assert_eq!(with_jam("gemm"), vec!["unroll-and-jam 0:4 1:4".to_string()]);
    // syrk's triangular point band (i, j, k) with the reduction over k innermost: the
    // copies along i share `A[j][k]`, those along j `A[i][k]`, and `C[i][j]` is the only
    // element of the written array the k loop touches.
    assert_eq!(with_jam("syrk"), vec!["unroll-and-jam 0:4 1:2".to_string()]);
    // Cholesky's reduction reads the array it writes along k, at `k < j`: never the
    // element it accumulates, so its chains are jammed too.
    assert_eq!(
        with_jam("cholesky"),
        vec!["unroll-and-jam 0:4 1:2".to_string()]
    );
    // So is the triangular solve's `x[i] -= L[i][j] * x[j]` (`j < i`); its `x[i] /=
    // L[i][i]` has one instance per row in the band (`[i, i]`) and does not count.
    assert_eq!(with_jam("trisolv"), vec!["unroll-and-jam 0:4".to_string()]);
    // A reduction whose moving read may reach the accumulated element is not jammed;
    // below the diagonal it is.
    let reduction = |domain: &str| {
        let scop = tiny_scop(
            domain,
            &[
                (false, "{ S[i, j] -> x[j] }"),
                (true, "{ S[i, j] -> x[i] }"),
            ],
            "{ S[i, j] -> [i, j] }",
            &[false, false],
        );
        let options = TileOptions {
            sizes: Some(vec![4]),
            unroll_and_jam: true,
            ..TileOptions::default()
        };
        jam_marks(&tiled(&scop, &options).root)
    };
    assert!(reduction("{ S[i, j] : 0 <= i < 8 and 0 <= j < 8 }").is_empty());
    assert_eq!(
        reduction("{ S[i, j] : 0 <= j < i < 8 }"),
        vec!["unroll-and-jam 0:4".to_string()]
    );
    // jacobi-2d's skewed band shares nothing along its outer members.
    assert_eq!(with_jam("jacobi-2d"), Vec::<String>::new());
    // Off by default.
    let k = crate::common::kernel("gemm");
    let plain = crate::common::tiled("gemm", &k, &crate::common::sized(32, false, true));
    assert!(jam_marks(&plain.root).is_empty());
}

#[test]
fn tiling_reuse_is_found_in_products_and_stencils_but_not_in_matrix_vector_products() {
    let outermost_band_reuse = |name: &str| {
        let k = crate::common::kernel(name);
        bands(&k.tree)
            .iter()
            .filter(|b| b.permutable && b.n_members() >= 2)
            .map(|b| pollen_transform::order::has_tiling_reuse(&k.scop, b).expect("steps"))
            .collect::<Vec<bool>>()
    };
    // gemm: `B[k][j]` is reused along i across a k x j block.
    assert!(outermost_band_reuse("gemm").contains(&true));
    // gesummv: the matrices are read once, `x[j]` is reused across a vector only.
    assert_eq!(outermost_band_reuse("gesummv"), vec![false, false]);
    // jacobi-2d: a skewed band keeps its tiles.
    assert_eq!(outermost_band_reuse("jacobi-2d"), vec![true]);
}

#[test]
fn without_reuse_innermost_bands_stay_untiled_but_jammed_and_sequential_bands_get_tiles() {
    let run = |name: &str, wavefront: bool| {
        let k = crate::common::kernel(name);
        let options = TileOptions {
            require_reuse: true,
            unroll_and_jam: true,
            wavefront,
            ..TileOptions::default()
        };
        let tree = crate::common::tiled(name, &k, &options);
        let grew = bands(&tree).len() > bands(&k.tree).len();
        (grew, jam_marks(&tree.root))
    };
    // gesummv: two matrix-vector products, no reuse to tile for, four rows at a time
    // sharing the loads of `x`.
    let (grew, marks) = run("gesummv", true);
    assert!(!grew);
    assert!(!marks.is_empty());
    // trisolv: no member is parallel; tiles give the wavefront its parallel waves.
    assert!(run("trisolv", true).0);
    assert!(!run("trisolv", false).0);
}

#[test]
fn a_recurrence_beside_a_parallel_member_is_tiled_with_the_parallel_member_innermost() {
    // `p[i][j] = f(p[i][j - 1])`: `j` carries the recurrence, the rows `i` are independent.
    let scop = tiny_scop(
        "{ S[i, j] : 0 <= i < 8 and 1 <= j < 8 }",
        &[
            (false, "{ S[i, j] -> p[i, j - 1] }"),
            (true, "{ S[i, j] -> p[i, j] }"),
        ],
        "{ S[i, j] -> [i, j] }",
        &[true, false],
    );
    let options = TileOptions {
        require_reuse: true,
        ..TileOptions::default()
    };
    let tree = tiled(&scop, &options);
    let found = bands(&tree);
    assert_eq!(found.len(), 2, "{tree:?}");
    let point = found[1].schedule.to_string();
    assert!(point.contains("S[i, j] -> [j, i]"), "{point}");
    // A reduction along `j` (`x[i] += A[i][j]`) is no recurrence: no tiles.
    let scop = tiny_scop(
        "{ S[i, j] : 0 <= i < 8 and 0 <= j < 8 }",
        &[
            (false, "{ S[i, j] -> x[i] }"),
            (false, "{ S[i, j] -> A[i, j] }"),
            (true, "{ S[i, j] -> x[i] }"),
        ],
        "{ S[i, j] -> [i, j] }",
        &[true, false],
    );
    assert_eq!(bands(&tiled(&scop, &options)).len(), 1);
}

#[test]
fn lane_innermost_puts_the_member_of_unit_stride_writes_innermost() {
    // Two reads walk along `i`, the write along `j`: the stride-1 choice takes `i`, the
    // lane choice `j` (the vector accumulators' order), tiled or not.
    let scop = tiny_scop(
        DOMAIN,
        &[
            (true, "{ S[i, j] -> A[i, j] }"),
            (false, "{ S[i, j] -> C[j, i] }"),
            (false, "{ S[i, j] -> D[j, i] }"),
        ],
        "{ S[i, j] -> [i, j] }",
        &[true, true],
    );
    let plain = order_of(&tiled(&scop, &options(&[2, 3], None, false, true)));
    let by_tiles_then = |inner: fn(i64, i64) -> Vec<i64>| {
        sorted_box((-3, 0), (5, 7), move |i, j| {
            let mut key = vec![i.div_euclid(2), j.div_euclid(3)];
            key.extend(inner(i, j));
            key
        })
    };
    assert_eq!(plain, by_tiles_then(|i, j| vec![j, i]));
    let lanes = TileOptions {
        lane_innermost: true,
        ..options(&[2, 3], None, false, true)
    };
    assert_eq!(
        order_of(&tiled(&scop, &lanes)),
        by_tiles_then(|i, j| vec![i, j])
    );
    assert_eq!(
        lane_innermost(&[1, 0], &[false, true], &[true, true]),
        [0, 1]
    );
    // Only a coincident member qualifies.
    assert_eq!(
        lane_innermost(&[1, 0], &[false, true], &[true, false]),
        [1, 0]
    );
}
