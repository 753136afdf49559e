//! Golden SVG pictures: a triangle, jacobi-1d's dependences, its original, skewed and
//! tiled schedules, and gemm's tiles. Each picture must equal
//! `tests/golden/draw/NAME.svg` byte for byte and parse as XML;
//! `POLLEN_BLESS=1 cargo test -p pollen-draw --test golden` rewrites the files from the
//! current output, to be reviewed in the diff.

use std::fs;
use std::path::{Path, PathBuf};

use pollen_deps::DepKind;
use pollen_draw::{
    band_groups, dependences_svg, domain_svg, relation_svg, schedule_svg, scheduled_space_svg,
    tiles_svg, Error, Slice, View,
};
use pollen_presburger::text::{parse_map, parse_set};
use pollen_scop::ScheduleTree;
use pollen_testkit::{kernel_scop, pluto_with, value_deps};
use pollen_transform::{tile, TileOptions};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/draw")
}

/// Checks that `svg` is well-formed XML with one `<svg>` root, then compares it with
/// the golden file (or rewrites the file under `POLLEN_BLESS=1`).
fn check(name: &str, svg: &str) {
    assert_eq!(count_svg_elements(svg), 1, "{name}: one <svg> element");
    let path = golden_dir().join(format!("{name}.svg"));
    if std::env::var_os("POLLEN_BLESS").is_some() {
        fs::create_dir_all(golden_dir()).expect("create the golden directory");
        fs::write(&path, svg).expect("write the golden file");
        return;
    }
    let expected = fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing {} (run with POLLEN_BLESS=1)", path.display()));
    assert!(
        expected == svg,
        "{name}: the picture differs from {} (POLLEN_BLESS=1 rewrites it)",
        path.display()
    );
}

/// The number of `<svg>` elements of an XML text; panics on malformed XML.
fn count_svg_elements(text: &str) -> usize {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut count = 0;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(e)) if e.name().as_ref() == b"svg" => count += 1,
            Ok(quick_xml::events::Event::Eof) => return count,
            Ok(_) => {}
            Err(e) => panic!("malformed XML at {}: {e}", reader.buffer_position()),
        }
    }
}

fn tiled(name: &str, sizes: Vec<i64>) -> (ScheduleTree, ScheduleTree) {
    let scop = kernel_scop(name);
    let deps = value_deps(&scop);
    let tree = pluto_with(&scop, &deps);
    let options = TileOptions {
        sizes: Some(sizes),
        unroll_and_jam: false,
        ..TileOptions::default()
    };
    let tiled = tile(&scop, &deps, &tree, &options).expect("tiling");
    (tree, tiled)
}

#[test]
fn triangle() {
    let set = parse_set("{ S[i, j] : 0 <= j <= i < 6 }").unwrap();
    let svg = domain_svg(&set, &View::default()).unwrap();
    assert_eq!(svg.matches("<circle").count(), 21);
    check("triangle", &svg);
}

#[test]
fn triangle_with_parameters_and_a_fixed_dimension() {
    let set = parse_set("[N] -> { S[i, j, k] : 0 <= j <= i < N and 0 <= k < 3 }").unwrap();
    let view = View {
        params: vec![("N".into(), 4)],
        fixed: vec![("k".into(), 2)],
        ..View::default()
    };
    let svg = domain_svg(&set, &view).unwrap();
    assert_eq!(svg.matches("<circle").count(), 10);
    assert!(svg.contains("k = 2"));
    let view = View {
        dims: Some(("i".into(), "k".into())),
        params: vec![("N".into(), 4)],
        ..View::default()
    };
    // j fixed to 0 (the first point), i and k drawn: 4 × 3 points.
    let svg = domain_svg(&set, &view).unwrap();
    assert_eq!(svg.matches("<circle").count(), 12);
}

#[test]
fn point_limit_and_unknown_dimensions() {
    let set = parse_set("[N] -> { S[i, j] : 0 <= i, j < N }").unwrap();
    let view = View {
        params: vec![("N".into(), 100)],
        max_points: 500,
        ..View::default()
    };
    assert_eq!(
        domain_svg(&set, &view),
        Err(Error::TooManyPoints {
            what: "points",
            limit: 500
        })
    );
    let view = View {
        dims: Some(("i".into(), "q".into())),
        ..View::default()
    };
    assert_eq!(
        domain_svg(&set, &view),
        Err(Error::UnknownDimension("q".into()))
    );
    let unbounded = parse_set("{ S[i] : i >= 0 }").unwrap();
    assert!(matches!(
        domain_svg(&unbounded, &View::default()),
        Err(Error::Presburger(_))
    ));
}

#[test]
fn a_relation_in_isl_syntax() {
    let map =
        parse_map("[N] -> { S[i, j] -> S[i + 1, j - 1] : 0 <= i < N - 1 and 1 <= j < N }").unwrap();
    let view = View {
        params: vec![("N".into(), 4)],
        first_targets_only: false,
        ..View::default()
    };
    let svg = relation_svg(&map, DepKind::Flow, &view).unwrap();
    // The pairs with both ends in the 4 × 4 square: i < 3 and 1 <= j.
    assert_eq!(svg.matches("marker-end").count(), 9);
    assert_eq!(svg.matches("<circle").count(), 14);
    let two = parse_map("{ A[i] -> B[i, j] : 0 <= i < 3 and 0 <= j <= i }").unwrap();
    let svg = relation_svg(&two, DepKind::Anti, &View::default()).unwrap();
    assert!(svg.contains("anti dependence"));
}

#[test]
fn jacobi_1d_dependences() {
    let scop = kernel_scop("jacobi-1d");
    let deps = value_deps(&scop);
    let view = View {
        params: vec![("_PB_TSTEPS".into(), 4), ("_PB_N".into(), 8)],
        ..View::default()
    };
    let slice = Slice::of_scop(&scop, &view).unwrap();
    assert_eq!(slice.len(), 2 * 4 * 6);
    let svg = dependences_svg(&slice, &deps, &view).unwrap();
    assert!(svg.contains("flow dependence") && svg.contains("anti dependence"));
    check("jacobi-1d-deps", &svg);
}

#[test]
fn jacobi_1d_schedules_and_tiles() {
    let scop = kernel_scop("jacobi-1d");
    let deps = value_deps(&scop);
    let view = View {
        params: vec![("_PB_TSTEPS".into(), 4), ("_PB_N".into(), 8)],
        ..View::default()
    };
    let slice = Slice::of_scop(&scop, &view).unwrap();
    let original = scop.schedule.to_union_map().unwrap();
    let svg = schedule_svg(&slice, &original, "original schedule", &view).unwrap();
    // Every point numbered once, 1 to 48.
    for n in 1..=48 {
        assert!(svg.contains(&format!(">{n}</text>")), "{n}");
    }
    check("jacobi-1d-original", &svg);
    let (skewed, tiled_tree) = tiled("jacobi-1d", vec![4]);
    let skewed_map = skewed.to_union_map().unwrap();
    let svg = schedule_svg(&slice, &skewed_map, "new schedule", &view).unwrap();
    check("jacobi-1d-skewed", &svg);
    let svg = scheduled_space_svg(&slice, &skewed_map, &deps, "new schedule space", &view).unwrap();
    check("jacobi-1d-skewed-space", &svg);
    let svg = tiles_svg(&slice, &tiled_tree, None, &view).unwrap();
    check("jacobi-1d-tiles", &svg);
    let svg = tiles_svg(&slice, &tiled_tree, Some(&skewed_map), &view).unwrap();
    check("jacobi-1d-tiles-space", &svg);
}

#[test]
fn gemm_tiles() {
    let scop = kernel_scop("gemm");
    let view = View {
        dims: Some(("i".into(), "j".into())),
        ..View::default()
    };
    let slice = Slice::of_scop(&scop, &view).unwrap();
    let (_, tiled_tree) = tiled("gemm", vec![4]);
    // The initialisation and the product are distributed: two tile bands.
    let groups = band_groups(&tiled_tree);
    assert_eq!(groups, vec![vec!["S0".to_string()], vec!["S1".to_string()]]);
    let svg = tiles_svg(&slice.select(&groups[1]), &tiled_tree, None, &view).unwrap();
    // 8 × 8 points of the (i, j) plane (k = 0) in 2 × 2 tiles of 4 × 4.
    assert!(svg.contains("4 tiles"), "{svg}");
    assert!(svg.contains("k = 0"), "{svg}");
    check("gemm-tiles", &svg);
}
