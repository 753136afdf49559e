//! Tiling of known kernels and hand-built cases: band structures, flags, wavefronts,
//! flags refuted by the checker, errors.

use pollen_presburger::{DimKind, Map};
use pollen_sched::legality;
use pollen_scop::{Band, ScheduleTree};
use pollen_transform::{tile, Error, TileOptions};

use crate::common::{bands, dep, is_legal, kernel, map, shape, sized, tiled, tiny_scop};

/// The schedule of statement `name` in a band.
fn statement_map<'a>(band: &'a Band, name: &str) -> &'a Map {
    band.schedule
        .maps()
        .find(|m| m.space().domain_tuple().and_then(|t| t.name()) == Some(name))
        .unwrap_or_else(|| panic!("the band does not schedule {name}"))
}

/// Member `k` of a band map, as a one-dimensional map.
fn member(m: &Map, k: usize) -> Map {
    let n = m.space().n_out();
    m.project_out(DimKind::Out, k + 1, n - k - 1)
        .and_then(|m| m.project_out(DimKind::Out, 0, k))
        .expect("projection")
}

/// `{ [x0, ..] -> [floor(x0 / size), ..] }` on `n` dimensions, from isl text.
fn tile_text(n: usize, size: i64) -> Map {
    let xs: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
    let tiles: Vec<String> = xs.iter().map(|x| format!("floor({x}/{size})")).collect();
    map(&format!(
        "{{ [{}] -> [{}] }}",
        xs.join(", "),
        tiles.join(", ")
    ))
}

/// `{ [y0, y1, ..] -> [y0 + y1, y1, ..] }` on `n` dimensions, from isl text.
fn skew_text(n: usize) -> Map {
    let ys: Vec<String> = (0..n).map(|k| format!("y{k}")).collect();
    let mut out = ys.clone();
    out[0] = "y0 + y1".into();
    map(&format!(
        "{{ [{}] -> [{}] }}",
        ys.join(", "),
        out.join(", ")
    ))
}

fn equal(a: &Map, b: &Map) -> bool {
    a.is_equal(b).expect("comparison")
}

#[test]
fn gemm_tiles_into_three_deep_tile_and_point_bands_with_j_innermost() {
    let k = kernel("gemm");
    let t = tiled("gemm", &k, &sized(32, false, true));
    assert!(is_legal(&t, &k.deps));
    let original = bands(&k.tree)
        .into_iter()
        .find(|b| b.n_members() == 3)
        .expect("a 3-deep band");
    let deep: Vec<&Band> = bands(&t)
        .into_iter()
        .filter(|b| b.n_members() == 3)
        .collect();
    assert_eq!(deep.len(), 2, "{}", shape(&t));
    let (tiles, points) = (deep[0], deep[1]);
    assert!(tiles.permutable && points.permutable);
    assert_eq!(&tiles.coincident[..2], &[true, true], "{}", shape(&t));
    assert!(
        !tiles.coincident[2],
        "the reduction's tile loop is not parallel"
    );
    // The tile band is the original band divided by 32.
    let f = statement_map(original, "S1");
    let expected_tiles = f.apply_range(&tile_text(3, 32)).expect("composition");
    assert!(equal(statement_map(tiles, "S1"), &expected_tiles));
    // The point band is a permutation of the original members, with j innermost.
    let p = statement_map(points, "S1");
    assert!(equal(&member(p, 2), &map("{ S1[i, k, j] -> [j] }")));
    let mut originals: Vec<Map> = (0..3).map(|m| member(f, m)).collect();
    for m in 0..3 {
        let found = originals.iter().position(|o| equal(o, &member(p, m)));
        originals.remove(found.expect("a member of the original band"));
    }
    assert!(points.coincident[2], "j is parallel inside a tile");
}

#[test]
fn without_intra_tile_order_the_point_band_is_the_original_band() {
    let k = kernel("gemm");
    let t = tiled("gemm", &k, &sized(32, false, false));
    let original = bands(&k.tree)
        .into_iter()
        .find(|b| b.n_members() == 3)
        .expect("a 3-deep band");
    let points = bands(&t)
        .into_iter()
        .filter(|b| b.n_members() == 3)
        .nth(1)
        .expect("point band");
    assert!(points
        .schedule
        .is_equal(&original.schedule)
        .expect("comparison"));
    assert_eq!(points.coincident, original.coincident);
}

/// The first band with at least two members of a tree (the stencils' main band).
fn first_deep_band(tree: &ScheduleTree) -> &Band {
    bands(tree)
        .into_iter()
        .find(|b| b.n_members() >= 2)
        .expect("a band of two members or more")
}

#[test]
fn stencils_get_a_parallel_tile_loop_from_the_wavefront() {
    for name in ["jacobi-1d", "jacobi-2d", "seidel-2d", "heat-3d", "fdtd-2d"] {
        let k = kernel(name);
        let plain = tiled(name, &k, &sized(16, false, true));
        let tiles = first_deep_band(&plain);
        assert!(
            tiles.coincident.iter().all(|c| !c),
            "{name}: a tile loop is parallel without a wavefront: {}",
            shape(&plain)
        );
        let wave = tiled(name, &k, &sized(16, true, true));
        assert!(is_legal(&wave, &k.deps), "{name}");
        let skewed = first_deep_band(&wave);
        assert!(
            skewed.coincident[1],
            "{name}: the second tile member is not parallel: {}",
            shape(&wave)
        );
        let n = skewed.n_members();
        for m in tiles.schedule.maps() {
            let name_s = m.space().domain_tuple().and_then(|t| t.name()).unwrap();
            let expected = m.apply_range(&skew_text(n)).expect("composition");
            assert!(
                equal(statement_map(skewed, name_s), &expected),
                "{name}: the wavefront is not (T0 + T1, T1, ...)"
            );
        }
    }
}

#[test]
fn jacobi_2d_wavefront_makes_the_second_tile_member_coincident() {
    let k = kernel("jacobi-2d");
    let t = tiled("jacobi-2d", &k, &sized(32, true, false));
    let tiles = first_deep_band(&t);
    assert_eq!(tiles.n_members(), 3, "{}", shape(&t));
    assert!(tiles.coincident[1] && !tiles.coincident[0], "{}", shape(&t));
}

/// `S[i, j]` on an 8 x 8 square with the dependence `(i, j) -> (i + 1, j + 1)`: member
/// `j` is parallel among the instances with equal `i`, but not across tiles.
fn diagonal() -> (pollen_scop::Scop, Vec<pollen_deps::Dependence>) {
    let scop = tiny_scop(
        "{ S[i, j] : 0 <= i < 8 and 0 <= j < 8 }",
        &[
            (false, "{ S[i, j] -> A[i - 1, j - 1] }"),
            (true, "{ S[i, j] -> A[i, j] }"),
        ],
        "{ S[i, j] -> [i, j] }",
        &[false, true],
    );
    let deps = vec![dep(
        "A",
        "{ S[i, j] -> S[i + 1, j + 1] : 0 <= i < 7 and 0 <= j < 7 }",
    )];
    (scop, deps)
}

#[test]
fn a_coincident_flag_refuted_on_the_tiles_is_cleared() {
    let (scop, deps) = diagonal();
    assert!(is_legal(&scop.schedule, &deps), "the input flags hold");
    let t = tile(&scop, &deps, &scop.schedule, &sized(4, false, false)).expect("tiling");
    let b = bands(&t);
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].coincident, vec![false, false], "tile band");
    assert_eq!(b[1].coincident, vec![false, true], "point band");
    let report = legality::check(&deps, &t).expect("check");
    assert!(report.is_legal());
}

#[test]
fn a_wavefront_is_added_once_the_tile_band_has_no_parallel_member() {
    let (scop, deps) = diagonal();
    let t = tile(&scop, &deps, &scop.schedule, &sized(4, true, false)).expect("tiling");
    let b = bands(&t);
    assert_eq!(b[0].coincident, vec![false, true], "{}", shape(&t));
    let expected = map("{ S[i, j] -> [floor(i/4) + floor(j/4), floor(j/4)] }");
    assert!(equal(statement_map(b[0], "S"), &expected));
}

#[test]
fn a_band_wrongly_marked_permutable_is_an_error() {
    let scop = tiny_scop(
        "{ S[i, j] : 0 <= i < 8 and 0 <= j < 8 }",
        &[(true, "{ S[i, j] -> A[i, j] }")],
        "{ S[i, j] -> [i, j] }",
        &[false, false],
    );
    let deps = vec![dep(
        "A",
        "{ S[i, j] -> S[i + 1, j - 1] : 0 <= i < 7 and 1 <= j < 8 }",
    )];
    match tile(&scop, &deps, &scop.schedule, &sized(4, false, false)) {
        Err(Error::Illegal(report)) => assert!(!report.is_legal()),
        other => panic!("expected an illegal schedule, got {other:?}"),
    }
}

#[test]
fn invalid_sizes_are_errors() {
    let (scop, deps) = diagonal();
    let cases: Vec<(TileOptions, i64)> = vec![
        (sized(0, false, false), 0),
        (
            TileOptions {
                sizes: Some(vec![4, -2]),
                ..TileOptions::default()
            },
            -2,
        ),
        (
            TileOptions {
                sizes: Some(Vec::new()),
                ..TileOptions::default()
            },
            0,
        ),
        (
            TileOptions {
                second_level: Some(vec![0]),
                ..TileOptions::default()
            },
            0,
        ),
    ];
    for (options, size) in cases {
        assert_eq!(
            tile(&scop, &deps, &scop.schedule, &options).err(),
            Some(Error::InvalidTileSize { size })
        );
    }
    let huge = TileOptions {
        sizes: Some(vec![i64::MAX / 2]),
        second_level: Some(vec![3]),
        ..TileOptions::default()
    };
    assert_eq!(
        tile(&scop, &deps, &scop.schedule, &huge).err(),
        Some(Error::TileSizeOverflow)
    );
}

#[test]
fn one_member_bands_are_tiled_only_when_asked() {
    let scop = tiny_scop(
        "{ S[i, j] : 0 <= i < 8 and 0 <= j < 8 }",
        &[(true, "{ S[i, j] -> A[i, j] }")],
        "{ S[i, j] -> [i] }",
        &[true],
    );
    let t = tile(&scop, &[], &scop.schedule, &sized(4, false, true)).expect("tiling");
    assert_eq!(bands(&t).len(), 1);
    let options = TileOptions {
        min_band_depth: 1,
        ..sized(4, false, true)
    };
    let t = tile(&scop, &[], &scop.schedule, &options).expect("tiling");
    assert_eq!(bands(&t).len(), 2);
    assert!(equal(
        statement_map(bands(&t)[0], "S"),
        &map("{ S[i, j] -> [floor(i/4)] }")
    ));
}

#[test]
fn the_original_schedule_gets_exact_parallel_flags() {
    let k = crate::common::kernel("jacobi-1d");
    let original = pollen_transform::parallelize(&k.deps, &k.scop.schedule, None)
        .expect("the original schedule is legal");
    // The time loop carries every dependence; the two space loops inside it are parallel.
    let flags: Vec<Vec<bool>> = bands(&original)
        .iter()
        .map(|b| b.coincident.clone())
        .collect();
    assert_eq!(flags, vec![vec![false], vec![true], vec![true]]);
    assert!(is_legal(&original, &k.deps));
}

#[test]
fn no_wavefront_inside_the_loops_of_another_band() {
    // floyd-warshall: the (i, j) tile band sits inside the sequential k loop; a wavefront
    // there would synchronise at every k.
    let k = crate::common::kernel("floyd-warshall");
    let with = tiled("floyd-warshall", &k, &sized(16, true, true));
    let without = tiled("floyd-warshall", &k, &sized(16, false, true));
    let flat = |t: &ScheduleTree| t.to_union_map().expect("flattening").to_string();
    assert_eq!(flat(&with), flat(&without));
    // jacobi-2d's time-tiled band is outermost: it gets its wavefront.
    let k = crate::common::kernel("jacobi-2d");
    let with = tiled("jacobi-2d", &k, &sized(16, true, true));
    let without = tiled("jacobi-2d", &k, &sized(16, false, true));
    assert_ne!(flat(&with), flat(&without));
}
