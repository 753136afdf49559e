//! Fused tiling with recomputation (`pollen_transform::fused`): the footprints and tile
//! shapes of the basteln digest's worked example, the structure of fused pipelines, and
//! the checker refusing broken fused programs.

use std::collections::BTreeSet;

use pollen_deps::{analyze, Analysis, Dependence};
use pollen_presburger::{Budget, DimKind, Int, Map, Set};
use pollen_scop::{Node, ScheduleTree, Scop};
use pollen_transform::fused::{check, fuse, FuseOptions, Fused};

/// A C region's scop, its dependences and its unfused Pluto schedule.
fn program(body: &str, params: &str) -> (Scop, Vec<Dependence>, ScheduleTree) {
    let c = format!("void f({params}) {{\n#pragma scop\n{body}\n#pragma endscop\n}}\n");
    let scop = pollen_frontend::extract(&c).expect("extract").scop;
    let deps = analyze(&scop, Analysis::ValueBased).expect("deps");
    let options = pollen_sched::Options {
        fuse: pollen_sched::Fuse::No,
        ..Default::default()
    };
    let tree = pollen_sched::schedule(&scop, deps.as_slice(), &options).expect("schedule");
    let deps = deps.as_slice().to_vec();
    (scop, deps, tree)
}

fn fused(program: &(Scop, Vec<Dependence>, ScheduleTree), options: &FuseOptions) -> Fused {
    fuse(
        &program.0,
        &program.1,
        &program.2,
        options,
        &mut Budget::unlimited(),
    )
    .expect("fuse")
}

/// The digest's running example without its reduction loops: quantisation, then a 3x3
/// convolution written out (KH = KW = 3), output `C` of size (H-2) x (W-2).
const CONV: &str = "\
for (h = 0; h < H; h++)
  for (w = 0; w < W; w++)
    A[h][w] = 2 * X[h][w];
for (h = 0; h <= H - 3; h++)
  for (w = 0; w <= W - 3; w++)
    C[h][w] = A[h][w] + A[h][w+1] + A[h][w+2] + A[h+1][w] + A[h+1][w+1] + A[h+1][w+2]
            + A[h+2][w] + A[h+2][w+1] + A[h+2][w+2];";
const CONV_PARAMS: &str = "int H, int W, double X[H][W], double A[H][W], double C[H][W]";

/// The producer instances `S0[h, w]` of tile `(o0, o1)` at sizes `H = W = n`.
fn tile_shape(f: &Fused, n: i64, o: [i64; 2]) -> Vec<(i64, i64)> {
    let e: &Map = f.groups[0].producers[0]
        .extension
        .maps()
        .next()
        .expect("one extension");
    let mut m = e.clone();
    for p in 0..2 {
        m = m.fix_val(DimKind::Param, p, &Int::from(n)).expect("fix");
    }
    for (k, v) in o.iter().enumerate() {
        m = m.fix_val(DimKind::In, k, &Int::from(*v)).expect("fix");
    }
    let m = m.project_out(DimKind::Param, 0, 2).expect("project");
    let range = Set::from_map(m.range()).expect("range");
    range
        .points()
        .expect("points")
        .into_iter()
        .map(|p| (p[0].to_i64().unwrap(), p[1].to_i64().unwrap()))
        .collect()
}

fn rectangle(
    rows: std::ops::RangeInclusive<i64>,
    cols: std::ops::RangeInclusive<i64>,
) -> Vec<(i64, i64)> {
    rows.flat_map(|r| cols.clone().map(move |c| (r, c)))
        .collect()
}

#[test]
fn the_digest_footprints_and_overlapped_tile_shapes() {
    let p = program(CONV, CONV_PARAMS);
    let options = FuseOptions {
        tile_sizes: Some(vec![2, 2]),
        live_out: Some(BTreeSet::from(["C".to_string()])),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    assert_eq!(f.groups.len(), 1, "{f}");
    assert_eq!(f.groups[0].producers.len(), 1, "{f}");
    // H = W = 6, 2 x 2 tiles: the blue tile (1, 0) needs A[2..5][0..3], the red tile
    // (1, 1) A[2..5][2..5]; they share A[2..5][2..3] (eqs. 13 and 15).
    assert_eq!(tile_shape(&f, 6, [1, 0]), rectangle(2..=5, 0..=3));
    assert_eq!(tile_shape(&f, 6, [1, 1]), rectangle(2..=5, 2..=5));
    // The partial-tile correction: H = W = 7 has 3 x 3 tiles, and tile (2, 2) needs
    // A[4..6][4..6] only.
    assert_eq!(tile_shape(&f, 7, [2, 2]), rectangle(4..=6, 4..=6));
    // The window of A: (2 + 3 - 1) x (2 + 3 - 1), not written back (A is not live out).
    let window = &f.groups[0].producers[0].windows[0];
    assert_eq!(window, &("A".to_string(), vec![4, 4], false));
    assert_eq!(f.scratch.len(), 1);
    assert!(f.scop.statements.iter().all(|s| !s.name.ends_with("_back")));
    // Every A the program reads is a window element: no statement writes A itself.
    assert!(f
        .scop
        .statements
        .iter()
        .flat_map(|s| &s.accesses)
        .all(|a| a.array != "A"));
}

#[test]
fn live_out_intermediates_are_written_back_once() {
    let p = program(CONV, CONV_PARAMS);
    let f = fused(&p, &FuseOptions::default());
    assert!(f.groups[0].producers[0].windows[0].2, "{f}");
    let back: Vec<_> = f
        .scop
        .statements
        .iter()
        .filter(|s| s.name.starts_with("A_back"))
        .collect();
    assert_eq!(back.len(), 1);
    // The write-back's domain projected on the elements is A's whole extent, each
    // element once.
    let element = back[0]
        .domain
        .identity()
        .unwrap()
        .project_out(DimKind::Out, 0, 2)
        .unwrap();
    assert!(element.is_injective().unwrap());
}

const BLUR: &str = "\
for (x = 0; x < R + 2; x++)
  for (y = 0; y < C; y++)
    bx[x][y] = (img[x][y] + img[x][y+1] + img[x][y+2]) / 3;
for (x = 0; x < R; x++)
  for (y = 0; y < C; y++)
    by[x][y] = (bx[x][y] + bx[x+1][y] + bx[x+2][y]) / 3;";
const BLUR_PARAMS: &str = "int R, int C, float img[R+2][C+2], float bx[R+2][C], float by[R][C]";

#[test]
fn blur_fuses_into_one_group_with_a_window_of_the_halo() {
    let p = program(BLUR, BLUR_PARAMS);
    let f = fused(&p, &FuseOptions::default());
    assert_eq!(f.groups.len(), 1, "{f}");
    assert_eq!(f.groups[0].tile_sizes, vec![32, 256]);
    assert_eq!(f.groups[0].parallel, vec![true, true]);
    // 32 rows of output need 34 rows of bx (PolyMage's Fig. 3: 64 + 2).
    assert_eq!(f.scratch[0].extents, vec![34, 256], "{f}");
    assert_eq!(f.scratch[0].element_type, "float");
    // The consumer reads the window, shifted by the tile's origin (32 o0, 256 o1); its
    // text is the original's, the emitter relocates the references.
    let consumer = f.scop.statement("S1_t").expect("copy of S1");
    assert_eq!(consumer.body, p.0.statement("S1").unwrap().body);
    let r = f
        .relocations
        .iter()
        .find(|r| r.statement == "S1_t")
        .expect("a relocation");
    assert_eq!((r.array.as_str(), r.window.as_str()), ("bx", "bx_tile"));
    let origin: Vec<(i64, Vec<(String, i64)>)> = r
        .origin
        .iter()
        .map(|l| {
            (
                l.constant.to_i64().unwrap(),
                l.terms
                    .iter()
                    .map(|(n, c)| (n.clone(), c.to_i64().unwrap()))
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        origin,
        vec![
            (0, vec![("o0".to_string(), 32)]),
            (0, vec![("o1".to_string(), 256)])
        ]
    );
}

#[test]
fn a_stage_reading_whole_rows_is_not_fused() {
    // A matrix product reads a whole row of its producer per output element: the
    // window would be as large as the array.
    let p = program(
        "for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    T[i][j] = 2 * A[i][j];\n\
         for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    for (k = 0; k < N; k++)\n      D[i][j] += T[i][k] * B[k][j];",
        "int N, double A[N][N], double B[N][N], double T[N][N], double D[N][N]",
    );
    let f = fused(&p, &FuseOptions::default());
    assert!(f.groups.iter().all(|g| g.producers.is_empty()), "{f}");
}

/// The checker's verdict on a fused program.
fn verdict(
    p: &(Scop, Vec<Dependence>, ScheduleTree),
    f: &Fused,
    live: Option<&BTreeSet<String>>,
) -> check::Outcome {
    check::check(&p.0, &p.1, f, live, &mut Budget::unlimited()).expect("check runs")
}

#[test]
fn the_checker_refuses_a_tile_that_computes_too_little() {
    let p = program(BLUR, BLUR_PARAMS);
    let mut f = fused(&p, &FuseOptions::default());
    assert!(verdict(&p, &f, None).is_equivalent());
    // Drop the producer's last halo row from every tile.
    let s = f
        .scop
        .statements
        .iter_mut()
        .find(|s| s.name == "S0_t")
        .expect("producer copy");
    let smaller =
        pollen_presburger::text::parse_set("[R, C] -> { S0_t[o0, o1, x, y] : x <= 32 o0 + 32 }")
            .expect("set");
    s.domain = s.domain.intersect(&smaller).expect("intersect");
    let outcome = verdict(&p, &f, None);
    assert!(!outcome.is_equivalent());
    assert!(
        outcome
            .differences
            .iter()
            .any(|d| d.contains("does not compute")),
        "{outcome}"
    );
}

#[test]
fn the_checker_refuses_outputs_run_twice_and_units_out_of_order() {
    let p = program(BLUR, BLUR_PARAMS);
    let f = fused(&p, &FuseOptions::default());
    // The output's copies on tiles one row too high as well: instances run twice.
    let mut twice = f.clone();
    let s = twice
        .scop
        .statements
        .iter_mut()
        .find(|s| s.name == "S1_t")
        .expect("output copy");
    let lower = pollen_presburger::text::parse_set(
        "[R, C] -> { S1_t[o0, o1, x, y] : 0 <= x < R and 0 <= y < C and 32 o0 <= x + 32 <= 32 o0 + 63 and 256 o1 <= y <= 256 o1 + 255 and o0 >= 0 }",
    )
    .expect("set");
    s.domain = s.domain.union(&lower).expect("union");
    let outcome = verdict(&p, &twice, None);
    assert!(
        outcome
            .differences
            .iter()
            .any(|d| d.contains("exactly once")),
        "{outcome}"
    );

    // A consumer run before its producer. Every tile of `b` reads `a[0]`: the window of
    // `a` would grow with N, so the producer stays a unit of its own, before the group;
    // swap the two units.
    let q = program(
        "for (x = 0; x < N; x++)\n  a[x] = 2 * in[x];\nfor (x = 0; x < N; x++)\n  b[x] = a[x] + a[0];",
        "int N, float in[N], float a[N], float b[N]",
    );
    let options = FuseOptions {
        tile_sizes: Some(vec![4]),
        live_out: None,
        ..FuseOptions::default()
    };
    let mut g = fused(&q, &options);
    assert!(verdict(&q, &g, None).is_equivalent());
    let Node::Domain { child, .. } = &mut g.tree.root else {
        panic!("domain root");
    };
    let Node::Sequence(units) = &mut **child else {
        panic!("sequence of units: {}", g.tree);
    };
    assert_eq!(units.len(), 2, "{}", g.tree);
    units.reverse();
    let outcome = verdict(&q, &g, None);
    assert!(
        outcome.differences.iter().any(|d| d.contains("backwards")),
        "{outcome}"
    );
}

#[test]
fn unfused_stages_keep_their_statements() {
    // Independent stages: nothing to slice, both tiled on their own.
    let p = program(
        "for (x = 0; x < N; x++)\n  a[x] = 2 * in[x];\nfor (x = 0; x < N; x++)\n  b[x] = in[x] + 1;",
        "int N, float in[N], float a[N], float b[N]",
    );
    let f = fused(&p, &FuseOptions::default());
    assert_eq!(f.groups.len(), 2, "{f}");
    assert!(f.groups.iter().all(|g| g.producers.is_empty()));
    assert!(verdict(&p, &f, None).is_equivalent());
}

#[test]
fn a_given_grouping_decides_what_is_fused() {
    use pollen_transform::fused::GroupSpec;
    let p = program(BLUR, BLUR_PARAMS);
    let spec = |groups: &[&[&str]], sizes: Option<Vec<i64>>| FuseOptions {
        groups: Some(
            groups
                .iter()
                .map(|g| GroupSpec {
                    statements: g.iter().map(|s| s.to_string()).collect(),
                    tile_sizes: sizes.clone(),
                })
                .collect(),
        ),
        ..FuseOptions::default()
    };
    let apart = fused(&p, &spec(&[&["S0"], &["S1"]], None));
    assert_eq!(apart.groups.len(), 2, "{apart}");
    assert!(apart.groups.iter().all(|g| g.producers.is_empty()));
    let together = fused(&p, &spec(&[&["S0", "S1"]], Some(vec![8, 64])));
    assert_eq!(together.groups.len(), 1, "{together}");
    assert_eq!(together.groups[0].tile_sizes, vec![8, 64]);
    assert_eq!(together.scratch[0].extents, vec![10, 64]);
    // A stage in no group is left as it was.
    let alone = fused(&p, &spec(&[&["S1"]], None));
    assert_eq!(alone.groups.len(), 1);
    assert!(alone.scop.statement("S0").is_some(), "{alone}");
}

/// The digest's running example as printed (Figure 1(a)): quantisation, a convolution
/// with its initialisation and reduction loops, and a ReLU over its output.
const RUNNING: &str = "\
for (h = 0; h < H; h++)
  for (w = 0; w < W; w++)
    A[h][w] = 2 * X[h][w];
for (h = 0; h <= H - 3; h++)
  for (w = 0; w <= W - 3; w++) {
    C[h][w] = 0;
    for (kh = 0; kh < 3; kh++)
      for (kw = 0; kw < 3; kw++)
        C[h][w] += A[h+kh][w+kw] * B[kh][kw];
  }
for (h = 0; h <= H - 3; h++)
  for (w = 0; w <= W - 3; w++)
    C[h][w] = C[h][w] > 0 ? C[h][w] : 0;";

#[test]
fn the_running_example_pre_fuses_the_convolution_and_slices_the_quantisation() {
    let p = program(
        RUNNING,
        "int H, int W, double X[H][W], double A[H][W], double B[3][3], double C[H][W]",
    );
    let options = FuseOptions {
        tile_sizes: Some(vec![2, 2]),
        live_out: Some(BTreeSet::from(["C".to_string()])),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    // Algorithm 1 gives ({S0}, {S1, S2, S3}); the quantisation is then fused into the
    // convolution's tiles: one group.
    assert_eq!(f.groups.len(), 1, "{f}");
    let mut output = f.groups[0].output.clone();
    output.sort();
    assert_eq!(output, vec!["S1", "S2", "S3"], "{f}");
    assert_eq!(f.groups[0].producers.len(), 1, "{f}");
    assert_eq!(f.groups[0].producers[0].statements, vec!["S0"]);
    // The window of A (KH = KW = 3): A_local[T2 + KH - 1][T3 + KW - 1], not written
    // back (only C is live out); the reserved set (20) is empty at these sizes.
    assert_eq!(
        f.groups[0].producers[0].windows,
        vec![("A".to_string(), vec![4, 4], false)]
    );
    // The tile shapes of eq. (15) at H = W = 6.
    assert_eq!(tile_shape(&f, 6, [1, 0]), rectangle(2..=5, 0..=3));
    assert_eq!(tile_shape(&f, 6, [1, 1]), rectangle(2..=5, 2..=5));
}

#[test]
fn dead_arrays_of_the_output_stage_live_in_windows() {
    // Unsharp mask's last three stages merge (quasi-identities) into the output stage;
    // with only `out` live, `by` and `sh` are kept per tile and never written whole.
    let p = program(
        "for (x = 0; x < R + 4; x++)\n  for (y = 0; y < C; y++)\n    bx[x][y] = img[x][y] + img[x][y+4];\n\
         for (x = 0; x < R; x++)\n  for (y = 0; y < C; y++)\n    by[x][y] = bx[x][y] + bx[x+4][y];\n\
         for (x = 0; x < R; x++)\n  for (y = 0; y < C; y++)\n    sh[x][y] = 2 * img[x+2][y+2] - by[x][y];\n\
         for (x = 0; x < R; x++)\n  for (y = 0; y < C; y++)\n    out[x][y] = sh[x][y] > 0 ? sh[x][y] : by[x][y];",
        "int R, int C, float img[R+4][C+4], float bx[R+4][C], float by[R][C], float sh[R][C], float out[R][C]",
    );
    let options = FuseOptions {
        live_out: Some(BTreeSet::from(["out".to_string()])),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    assert_eq!(f.groups.len(), 1, "{f}");
    let mut windows: Vec<(&str, &[i64])> = f
        .scratch
        .iter()
        .map(|s| (s.array.as_str(), s.extents.as_slice()))
        .collect();
    windows.sort();
    assert_eq!(
        windows,
        vec![
            ("bx", &[36, 256][..]),
            ("by", &[32, 256][..]),
            ("sh", &[32, 256][..])
        ]
    );
    let written: BTreeSet<&str> = f
        .scop
        .statements
        .iter()
        .flat_map(|s| &s.accesses)
        .filter(|a| a.kind == pollen_scop::AccessKind::Write)
        .map(|a| a.array.as_str())
        .collect();
    assert!(written.contains("out") && !written.contains("by") && !written.contains("sh"));
    // With every array live, they are written as before.
    let all = fused(&p, &FuseOptions::default());
    assert!(all.scratch.iter().all(|s| s.array == "bx"), "{all}");
}

#[test]
fn without_sizes_the_largest_tiles_whose_windows_fit_are_taken() {
    let p = program(BLUR, BLUR_PARAMS);
    // 128 floats a row: (T + 2) * 128 * 4 bytes must fit.
    for (limit, outer) in [
        (40_000, 64),
        (20_000, 32),
        (10_000, 16),
        (9_000, 8),
        (1_000, 1),
    ] {
        let options = FuseOptions {
            footprint_bytes: Some(limit),
            ..FuseOptions::default()
        };
        let f = fused(&p, &options);
        assert_eq!(
            f.groups[0].tile_sizes,
            vec![outer, 128],
            "limit {limit}: {f}"
        );
        if outer > 1 {
            let bytes: i64 = f.scratch[0].extents.iter().product::<i64>() * 4;
            assert!(bytes as u64 <= limit, "{bytes} > {limit}");
        }
    }
}

/// The pairs `(tile, instance)` of a producer's extension at the parameter values
/// `params`, one-dimensional tiles and instances.
fn extension_points(f: &Fused, producer: &str, params: &[i64]) -> Vec<(i64, i64)> {
    let e = f.groups[0]
        .producers
        .iter()
        .find(|p| p.statements.iter().any(|s| s == producer))
        .expect("the producer is fused")
        .extension
        .maps()
        .next()
        .expect("one extension")
        .clone();
    let mut m = e;
    for (k, v) in params.iter().enumerate() {
        m = m.fix_val(DimKind::Param, k, &Int::from(*v)).expect("fix");
    }
    let m = m
        .project_out(DimKind::Param, 0, params.len())
        .expect("project");
    m.points()
        .expect("points")
        .into_iter()
        .map(|p| (p[0].to_i64().unwrap(), p[1].to_i64().unwrap()))
        .collect()
}

fn ranges(points: &[(i64, i64)]) -> Vec<(i64, i64, i64)> {
    let mut out: Vec<(i64, i64, i64)> = Vec::new();
    for &(t, x) in points {
        match out.last_mut() {
            Some((tile, _, hi)) if *tile == t && *hi + 1 == x => *hi = x,
            _ => out.push((t, x, x)),
        }
    }
    out
}

#[test]
fn t6_recomputation_counts_of_the_running_example() {
    let p = program(
        RUNNING,
        "int H, int W, double X[H][W], double A[H][W], double B[3][3], double C[H][W]",
    );
    let options = FuseOptions {
        tile_sizes: Some(vec![2, 2]),
        live_out: Some(BTreeSet::from(["C".to_string()])),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    let e = f.groups[0].producers[0]
        .extension
        .maps()
        .next()
        .unwrap()
        .clone();
    for (n, executions, points) in [(6, 64, 36), (7, 121, 49)] {
        let mut m = e.clone();
        for k in 0..2 {
            m = m.fix_val(DimKind::Param, k, &Int::from(n)).unwrap();
        }
        let m = m.project_out(DimKind::Param, 0, 2).unwrap();
        assert_eq!(m.points().unwrap().len(), executions, "H = W = {n}");
        let range = Set::from_map(m.range()).unwrap();
        assert_eq!(range.points().unwrap().len(), points);
    }
    // The reserved set (20) is empty: no instance of the quantisation runs outside the
    // tiles.
    assert!(!f.groups[0].producers[0].reserved, "{f}");
}

#[test]
fn t7_a_scattered_tile_shape_keeps_the_rest_in_place() {
    let p = program(
        "for (i = 0; i < 16; i++)\n  A[i] = 3 * X[i];\nfor (j = 0; j < 8; j++)\n  B[j] = A[2 * j];",
        "double X[16], double A[16], double B[8]",
    );
    let options = FuseOptions {
        tile_sizes: Some(vec![4]),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    assert_eq!(
        extension_points(&f, "S0", &[]),
        vec![
            (0, 0),
            (0, 2),
            (0, 4),
            (0, 6),
            (1, 8),
            (1, 10),
            (1, 12),
            (1, 14)
        ]
    );
    // A is live out: its odd elements are computed after the tiles.
    assert!(f.groups[0].producers[0].reserved, "{f}");
    let reserved = f.scop.statement("S0").expect("the reserved instances");
    let odd: Vec<i64> = reserved
        .domain
        .points()
        .unwrap()
        .into_iter()
        .map(|p| p[0].to_i64().unwrap())
        .collect();
    assert_eq!(odd, (1..16).step_by(2).collect::<Vec<_>>());
}

#[test]
fn t8_backward_slicing_through_a_chain() {
    let p = program(
        "for (i = 0; i < 16; i++)\n  A[i] = X[i];\n\
         for (i = 1; i < 15; i++)\n  B[i] = A[i-1] + A[i] + A[i+1];\n\
         for (i = 2; i < 14; i++)\n  C[i] = B[i-1] + B[i] + B[i+1];",
        "double X[16], double A[16], double B[16], double C[16]",
    );
    let options = FuseOptions {
        tile_sizes: Some(vec![4]),
        live_out: Some(BTreeSet::from(["C".to_string()])),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    assert_eq!(f.groups.len(), 1, "{f}");
    // Sb is sliced before Sa (the visit order of Algorithm 2).
    let order: Vec<&str> = f.groups[0]
        .producers
        .iter()
        .map(|p| p.statements[0].as_str())
        .collect();
    assert_eq!(
        order,
        vec!["S0", "S1"],
        "producers in the order a tile runs them"
    );
    assert_eq!(
        ranges(&extension_points(&f, "S1", &[])),
        vec![(0, 1, 4), (1, 3, 8), (2, 7, 12), (3, 11, 14)]
    );
    assert_eq!(
        ranges(&extension_points(&f, "S0", &[])),
        vec![(0, 0, 5), (1, 2, 9), (2, 6, 13), (3, 10, 15)]
    );
    assert!(f.groups[0].producers.iter().all(|p| !p.reserved));
}

#[test]
fn a_producer_that_leaves_elements_its_consumer_reads_is_not_fused() {
    // c reads a[0], which the producer never writes (a live-in value): the consumer's
    // references would all go to the window, where a[0] is not.
    let p = program(
        "for (i = 1; i < N; i++)\n  a[i] = b[i] * 3;\nfor (i = 1; i < N - 1; i++)\n  c[i] = a[i + 1] - a[i - 1];",
        "int N, double a[N], double b[N], double c[N]",
    );
    let options = FuseOptions {
        tile_sizes: Some(vec![4]),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    assert!(f.groups.iter().all(|g| g.producers.is_empty()), "{f}");
    assert!(verdict(&p, &f, None).is_equivalent());
}

/// Two five-point stencils after a copy, every array but the last one dead.
const CROSS: &str = "\
for (x = 0; x < N; x++)
  for (y = 0; y < N; y++)
    A[x][y] = X[x][y];
for (x = 1; x < N - 1; x++)
  for (y = 1; y < N - 1; y++)
    B[x][y] = A[x][y] + A[x-1][y] + A[x+1][y] + A[x][y-1] + A[x][y+1];
for (x = 2; x < N - 2; x++)
  for (y = 2; y < N - 2; y++)
    C[x][y] = B[x][y] + B[x-1][y] + B[x+1][y] + B[x][y-1] + B[x][y+1];";
const CROSS_PARAMS: &str = "int N, double X[N][N], double A[N][N], double B[N][N], double C[N][N]";

#[test]
fn chained_cross_stencils_compute_rectangular_tiles() {
    let p = program(CROSS, CROSS_PARAMS);
    let options = FuseOptions {
        tile_sizes: Some(vec![4, 4]),
        live_out: Some(BTreeSet::from(["C".to_string()])),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    assert_eq!(f.groups.len(), 1, "{f}");
    assert_eq!(f.groups[0].producers.len(), 2, "{f}");
    // The exact points a tile needs of A are a cross widened twice (a diamond clipped
    // by the domain); the tile computes their bounding box, one piece.
    for producer in &f.groups[0].producers {
        for e in producer.extension.maps() {
            assert_eq!(e.basic_maps().len(), 1, "{e}");
        }
    }
    // Tile (1, 1) of C covers [4, 7] x [4, 7]: B's box is [3, 8]^2, A's [2, 9]^2.
    let n = 16;
    assert_eq!(tile_shape_of(&f, "S0", n, [1, 1]), rectangle(2..=9, 2..=9));
    assert_eq!(tile_shape_of(&f, "S1", n, [1, 1]), rectangle(3..=8, 3..=8));
    // At the border the box is clipped by the producer's domain: tile (0, 0) of C
    // covers [2, 3]^2.
    assert_eq!(tile_shape_of(&f, "S1", n, [0, 0]), rectangle(1..=4, 1..=4));
    assert_eq!(tile_shape_of(&f, "S0", n, [0, 0]), rectangle(0..=5, 0..=5));
}

/// The instances of `producer` that tile `o` computes, at `N = n` (one parameter).
fn tile_shape_of(f: &Fused, producer: &str, n: i64, o: [i64; 2]) -> Vec<(i64, i64)> {
    let e = f.groups[0]
        .producers
        .iter()
        .find(|p| p.statements.iter().any(|s| s == producer))
        .expect("the producer is fused")
        .extension
        .maps()
        .next()
        .expect("one extension")
        .clone();
    let mut m = e.fix_val(DimKind::Param, 0, &Int::from(n)).expect("fix");
    for (k, v) in o.iter().enumerate() {
        m = m.fix_val(DimKind::In, k, &Int::from(*v)).expect("fix");
    }
    let m = m.project_out(DimKind::Param, 0, 1).expect("project");
    Set::from_map(m.range())
        .expect("range")
        .points()
        .expect("points")
        .into_iter()
        .map(|p| (p[0].to_i64().unwrap(), p[1].to_i64().unwrap()))
        .collect()
}

#[test]
fn reserved_instances_read_what_the_tiles_wrote_back() {
    // The tiles compute B at even positions and all of A; B's odd elements, live out,
    // are computed after the tiles, from A's elements that the tiles wrote back.
    let p = program(
        "for (i = 0; i < 16; i++)\n  A[i] = 3 * X[i];\n\
         for (i = 0; i < 15; i++)\n  B[i] = A[i] + A[i + 1];\n\
         for (j = 0; j < 7; j++)\n  C[j] = B[2 * j];",
        "double X[16], double A[16], double B[15], double C[7]",
    );
    let options = FuseOptions {
        tile_sizes: Some(vec![4]),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    assert_eq!(f.groups[0].producers.len(), 2, "{f}");
    let b = f.groups[0]
        .producers
        .iter()
        .find(|x| x.statements == ["S1"])
        .expect("B is fused");
    assert!(b.reserved, "{f}");
    // The reserved instances come after the group's tile loop in the schedule.
    let Node::Domain { child, .. } = &f.tree.root else {
        panic!("a domain root");
    };
    let Node::Sequence(units) = child.as_ref() else {
        panic!("a sequence of units: {}", f.tree);
    };
    let position = |name: &str| {
        units
            .iter()
            .position(|u| {
                matches!(u, Node::Filter { filter, .. } if filter.sets().any(|s| {
                    s.space().range_tuple().and_then(|t| t.name()) == Some(name)
                }))
            })
            .expect("the statement has a unit")
    };
    assert!(position("S1") > position("S1_t"), "{}", f.tree);
}

#[test]
fn a_producer_too_costly_to_slice_stays_out_of_the_group() {
    // With smaller and smaller budgets, each run either fuses, fuses fewer producers
    // and says which ones ran past their share, or fails with the typed limit; every
    // result it gives passes the checker.
    let p = program(CROSS, CROSS_PARAMS);
    let options = FuseOptions {
        tile_sizes: Some(vec![4, 4]),
        live_out: Some(BTreeSet::from(["C".to_string()])),
        ..FuseOptions::default()
    };
    let mut left_out = 0;
    let mut steps = 4_000_000u64;
    while steps > 100 {
        match fuse(&p.0, &p.1, &p.2, &options, &mut Budget::new(steps)) {
            Ok(f) => {
                let g = f.groups.last().expect("C's group");
                assert_eq!(g.output, ["S2"], "{f}");
                if !g.over_budget.is_empty() {
                    left_out += 1;
                    assert!(f.to_string().contains("ran past its share"), "{f}");
                }
                let outcome = verdict(&p, &f, options.live_out.as_ref());
                assert!(outcome.is_equivalent(), "{steps} steps: {f}");
            }
            Err(pollen_transform::Error::LimitExceeded) => {}
            Err(e) => panic!("{steps} steps: {e}"),
        }
        steps = steps * 4 / 5;
    }
    assert!(left_out > 0, "some budget leaves a producer out");
}

#[test]
fn a_channel_member_with_few_values_is_tiled_whole() {
    // Three channels of an image read one channel-less producer: tiles over all three
    // channels compute the producer once per tile instead of once per channel.
    let p = program(
        "for (x = 0; x < R; x++)\n  for (y = 0; y < C; y++)\n    g[x][y] = 2 * img[x][y];\n\
         for (c = 0; c < 3; c++)\n  for (x = 0; x < R - 1; x++)\n    for (y = 0; y < C; y++)\n      \
         out[c][x][y] = w[c] * (g[x][y] + g[x + 1][y]);",
        "int R, int C, float img[R][C], float g[R][C], float w[3], float out[3][R][C]",
    );
    let options = FuseOptions {
        footprint_bytes: Some(64 * 1024),
        live_out: Some(BTreeSet::from(["out".to_string()])),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    let g = f.groups.last().expect("out's group");
    assert_eq!(g.producers.len(), 1, "{f}");
    assert_eq!(g.tile_sizes[0], 3, "{f}");
    assert_eq!(g.tile_sizes[2], 128, "{f}");
}

/// The three-stage chain of T8: `A` copies `X`, `B` and `C` are 3-point stencils.
const CHAIN: &str = "for (i = 0; i < 16; i++)\n  A[i] = X[i];\n\
                     for (i = 1; i < 15; i++)\n  B[i] = A[i-1] + A[i] + A[i+1];\n\
                     for (i = 2; i < 14; i++)\n  C[i] = B[i-1] + B[i] + B[i+1];";
const CHAIN_PARAMS: &str = "double X[16], double A[16], double B[16], double C[16]";

#[test]
fn a_producer_with_too_large_a_halo_stays_out_of_the_group() {
    // Tiles of 4 outputs: B's window holds 6 elements per 4 of its share (1.5), A's 8
    // (2). Bounded at 3/2, B is fused and A is not; A then runs as a stage of its own.
    let p = program(CHAIN, CHAIN_PARAMS);
    let bounded = |bound| FuseOptions {
        tile_sizes: Some(vec![4]),
        live_out: Some(BTreeSet::from(["C".to_string()])),
        max_redundancy: bound,
        ..FuseOptions::default()
    };
    let windows = |f: &Fused| -> Vec<(String, Vec<i64>)> {
        f.groups
            .iter()
            .flat_map(|g| &g.producers)
            .flat_map(|s| &s.windows)
            .map(|(a, e, _)| (a.clone(), e.clone()))
            .collect()
    };
    let f = fused(&p, &bounded(Some((3, 2))));
    let last = f.groups.last().expect("C's group");
    assert_eq!(last.output, ["S2"], "{f}");
    assert_eq!(last.producers.len(), 1, "{f}");
    assert_eq!(last.producers[0].statements, ["S1"], "{f}");
    assert!(windows(&f).contains(&("B".to_string(), vec![6])), "{f}");
    assert!(!windows(&f).iter().any(|(a, _)| a == "A"), "{f}");
    assert_eq!(last.too_redundant, [vec!["S0".to_string()]], "{f}");
    assert!(f
        .to_string()
        .contains("not fused {S0}: its halo is over the redundancy bound"));
    // Just under 2, A stays out; at 2 it comes in.
    let f = fused(&p, &bounded(Some((199, 100))));
    assert_eq!(f.groups.last().unwrap().producers.len(), 1, "{f}");
    let f = fused(&p, &bounded(Some((2, 1))));
    assert_eq!(f.groups.last().unwrap().producers.len(), 2, "{f}");
    assert!(windows(&f).contains(&("A".to_string(), vec![8])), "{f}");
    // Unbounded (the default), as T8.
    let f = fused(&p, &bounded(None));
    assert_eq!(f.groups.len(), 1, "{f}");
    assert_eq!(f.groups[0].producers.len(), 2, "{f}");
}

/// A pyramid in miniature: `P` is computed from the input alone, downsampled into `D`,
/// and read again, at full resolution, by the output with the upsampled `D`.
const TWO_READERS: &str = "\
for (x = 0; x < 2 * N; x++)
  for (y = 0; y < M; y++)
    P[x][y] = 2 * X[x][y];
for (x = 0; x < N; x++)
  for (y = 0; y < M; y++)
    D[x][y] = P[2 * x][y] + P[2 * x + 1][y];
for (x = 0; x < N; x++)
  for (y = 0; y < M; y++)
    E[x][y] = D[x][y] * 3;
for (x = 0; x < 2 * N; x++)
  for (y = 0; y < M; y++)
    O[x][y] = P[x][y] + E[x / 2][y];";
const TWO_READERS_PARAMS: &str =
    "int N, int M, double X[2 * N][M], double P[2 * N][M], double D[N][M], double E[N][M], double O[2 * N][M]";

/// The statements of `f` that run instances of the original statement `s`.
fn statements_running(f: &Fused, s: &str) -> usize {
    f.scop
        .statements
        .iter()
        .filter(|t| match f.origins.get(&t.name) {
            Some(check::Origin::Copy { statement, .. }) => statement == s,
            Some(check::Origin::Same) | None => t.name == s,
            Some(_) => false,
        })
        .count()
}

#[test]
fn a_stage_of_inputs_read_by_two_groups_is_recomputed_by_both() {
    let p = program(TWO_READERS, TWO_READERS_PARAMS);
    // Groups of one stage (D and E, a quasi-identity, make one): O's group and D's.
    // P is read by both and computed from X alone: each computes its own copy, and P
    // never runs whole.
    let options = FuseOptions {
        tile_sizes: Some(vec![4, 8]),
        live_out: Some(BTreeSet::from(["O".to_string()])),
        max_stages: 1,
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    let recomputing: Vec<&Vec<String>> = f
        .groups
        .iter()
        .filter(|g| g.producers.iter().any(|s| s.statements == ["S0"]))
        .map(|g| &g.output)
        .collect();
    assert_eq!(recomputing.len(), 2, "{f}");
    assert!(
        recomputing.iter().any(|o| o.contains(&"S1".to_string())),
        "{f}"
    );
    assert!(
        recomputing.iter().any(|o| o.contains(&"S3".to_string())),
        "{f}"
    );
    assert!(f.groups.iter().all(|g| g.output != ["S0"]), "{f}");
    let copies = statements_running(&f, "S0");
    assert_eq!(
        copies, 2,
        "one copy of P per recomputing group, none outside: {f}"
    );
    assert!(
        verdict(&p, &f, options.live_out.as_ref()).is_equivalent(),
        "{f}"
    );
    // With every array live, P must be stored: it is computed once, by one group.
    let all_live = FuseOptions {
        live_out: None,
        ..options
    };
    let f = fused(&p, &all_live);
    let copies = statements_running(&f, "S0");
    assert_eq!(copies, 1, "{f}");
}

/// basteln's T14: `A` (a stencil of `T`, another stage's array) feeds two outputs,
/// `B` from its first half and `C` from `A` at `OFF` and after. With `OFF = N` the two
/// read disjoint halves of `A` (Algorithm 4's case (21)); with `OFF = N - 2` they
/// overlap.
fn two_outputs(offset: &str) -> String {
    format!(
        "\
for (i = 0; i < 2 * N + 1; i++)
  T[i] = X[i] + 1;
for (i = 0; i < 2 * N; i++)
  A[i] = T[i] + T[i + 1];
for (i = 0; i < N - 1; i++)
  B[i] = A[i] + A[i + 1];
for (i = 0; i < N - 1; i++)
  C[i] = A[{offset} + i] + A[{offset} + i + 1];"
    )
}
const TWO_OUTPUTS_PARAMS: &str =
    "int N, double X[2 * N + 1], double T[2 * N + 1], double A[2 * N], double B[N], double C[N]";

/// Tiles of 4, `B` and `C` live after the region.
fn outputs_live() -> FuseOptions {
    FuseOptions {
        tile_sizes: Some(vec![4]),
        live_out: Some(BTreeSet::from(["B".to_string(), "C".to_string()])),
        ..FuseOptions::default()
    }
}

/// `A` (`S1`) is computed by no group's tiles, once, whole, and `f` is equivalent to
/// the original.
fn computed_once_whole(
    p: &(Scop, Vec<Dependence>, ScheduleTree),
    f: &Fused,
    live: Option<&BTreeSet<String>>,
) {
    assert!(groups_computing(f, "S1").is_empty(), "{f}");
    assert_eq!(statements_running(f, "S1"), 1, "{f}");
    assert!(verdict(p, f, live).is_equivalent(), "{f}");
}

/// The groups of `f` that compute instances of statement `s` in their tiles.
fn groups_computing<'a>(f: &'a Fused, s: &str) -> Vec<&'a Vec<String>> {
    f.groups
        .iter()
        .filter(|g| {
            g.producers
                .iter()
                .any(|p| p.statements.iter().any(|t| t == s))
        })
        .map(|g| &g.output)
        .collect()
}

#[test]
fn t14_a_producer_read_in_disjoint_parts_is_computed_by_each_output() {
    let p = program(&two_outputs("N"), TWO_OUTPUTS_PARAMS);
    let options = outputs_live();
    let f = fused(&p, &options);
    // A (S1) is computed by both output groups, in disjoint parts, and never whole.
    let computing = groups_computing(&f, "S1");
    assert_eq!(computing.len(), 2, "{f}");
    assert!(f.groups.iter().all(|g| g.output != ["S1"]), "{f}");
    assert_eq!(statements_running(&f, "S1"), 2, "{f}");
    // The instances each group computes, at N = 10: A[0..9] for B (reads A[0..9]) and
    // A[10..19] for C, without a common one.
    let mut parts: Vec<Vec<i64>> = f
        .groups
        .iter()
        .filter_map(|g| g.producers.iter().find(|p| p.statements == ["S1"]))
        .map(|p| {
            let mut m = p.extension.maps().next().expect("one extension").clone();
            m = m.fix_val(DimKind::Param, 0, &Int::from(10)).expect("fix");
            let m = m.project_out(DimKind::Param, 0, 1).expect("project");
            let mut xs: Vec<i64> = m
                .points()
                .expect("points")
                .into_iter()
                .map(|p| p[1].to_i64().unwrap())
                .collect();
            xs.sort_unstable();
            xs.dedup();
            xs
        })
        .collect();
    parts.sort();
    assert_eq!(
        parts,
        [(0..10).collect::<Vec<i64>>(), (10..20).collect()],
        "{f}"
    );
    assert!(
        verdict(&p, &f, options.live_out.as_ref()).is_equivalent(),
        "{f}"
    );
}

#[test]
fn t14_a_producer_read_in_overlapping_parts_is_not_fused() {
    let p = program(&two_outputs("N - 2"), TWO_OUTPUTS_PARAMS);
    let options = outputs_live();
    let f = fused(&p, &options);
    // Case (c): A is computed once, whole, by no output's tiles.
    computed_once_whole(&p, &f, options.live_out.as_ref());
    // With A live, it is stored whole, and is not shared either.
    let p = program(&two_outputs("N"), TWO_OUTPUTS_PARAMS);
    let f = fused(
        &p,
        &FuseOptions {
            tile_sizes: Some(vec![4]),
            live_out: None,
            ..FuseOptions::default()
        },
    );
    computed_once_whole(&p, &f, None);
}

#[test]
fn t14_a_shared_producer_one_consumer_cannot_take_is_computed_whole() {
    // C's loop is a recurrence: no parallel member, no tiles, so it cannot compute its
    // part of A. B's group then must not compute A either: A runs once, whole.
    let body = "\
for (i = 0; i < 2 * N + 1; i++)
  T[i] = X[i] + 1;
for (i = 0; i < 2 * N; i++)
  A[i] = T[i] + T[i + 1];
for (i = 0; i < N - 1; i++)
  B[i] = A[i] + A[i + 1];
for (i = 1; i < N - 1; i++)
  C[i] = C[i - 1] + A[N + i];";
    let p = program(body, TWO_OUTPUTS_PARAMS);
    let options = outputs_live();
    let f = fused(&p, &options);
    computed_once_whole(&p, &f, options.live_out.as_ref());
}

/// basteln's T14 (b), the attention pattern in miniature: one producer `T`, then two
/// outputs reading it identically at each point (the paper's two products of one
/// elementwise result, here with constant windows).
const SIBLINGS: &str = "\
for (i = 0; i < N; i++)
  for (j = 0; j < M + 1; j++)
    T[i][j] = X[i][j] * 2;
for (i = 0; i < N; i++)
  for (j = 0; j < M; j++)
    P[i][j] = T[i][j] * U[i][j] + T[i][j + 1];
for (i = 0; i < N; i++)
  for (j = 0; j < M; j++)
    Q[i][j] = T[i][j] - V[i][j] * T[i][j + 1];";
const SIBLINGS_PARAMS: &str = "int N, int M, double X[N + 1][M + 1], double T[N + 1][M + 1], \
     double U[N][M], double V[N][M], double P[N][M], double Q[N][M]";

#[test]
fn t14_sibling_outputs_reading_a_producer_identically_share_one_group() {
    let p = program(SIBLINGS, SIBLINGS_PARAMS);
    let options = FuseOptions {
        tile_sizes: Some(vec![4, 4]),
        live_out: Some(BTreeSet::from(["P".to_string(), "Q".to_string()])),
        ..FuseOptions::default()
    };
    let f = fused(&p, &options);
    // Both outputs are the output of one group, which computes T once per tile.
    let outputs: Vec<&Vec<String>> = f.groups.iter().map(|g| &g.output).collect();
    assert_eq!(outputs.len(), 1, "{f}");
    assert_eq!(outputs[0].len(), 2, "{f}");
    assert_eq!(groups_computing(&f, "S0").len(), 1, "{f}");
    assert_eq!(statements_running(&f, "S0"), 1, "{f}");
    assert!(
        verdict(&p, &f, options.live_out.as_ref()).is_equivalent(),
        "{f}"
    );
    // Reading T at other points (Q one row down), they stay two groups, and T, computed
    // from the input alone, is recomputed by both.
    let shifted = SIBLINGS
        .replace(
            "Q[i][j] = T[i][j] - V[i][j] * T[i][j + 1]",
            "Q[i][j] = T[i + 1][j] - V[i][j]",
        )
        .replace(
            "i < N; i++)\n  for (j = 0; j < M + 1",
            "i < N + 1; i++)\n  for (j = 0; j < M + 1",
        );
    let p = program(&shifted, SIBLINGS_PARAMS);
    let f = fused(&p, &options);
    assert_eq!(f.groups.len(), 2, "{f}");
    assert_eq!(groups_computing(&f, "S0").len(), 2, "{f}");
    assert!(
        verdict(&p, &f, options.live_out.as_ref()).is_equivalent(),
        "{f}"
    );
}
