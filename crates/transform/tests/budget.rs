//! Tiling, parallelization, the access-step queries and the cost model within a budget:
//! a tiny budget stops them with `Error::LimitExceeded`.

use pollen_presburger::Budget;
use pollen_transform::{parallelize_with, tile, tile_with, Error, TileOptions};

#[test]
fn a_tiny_budget_stops_tiling() {
    let scop = pollen_testkit::kernel_scop("gemm");
    let deps = pollen_testkit::value_deps(&scop);
    let tree = pollen_testkit::pluto_with(&scop, &deps);
    let options = TileOptions::default();
    let e = tile_with(&scop, &deps, &tree, &options, &mut Budget::new(10)).unwrap_err();
    assert_eq!(e, Error::LimitExceeded);
    assert_eq!(e.to_string(), "the transformation exceeded its budget");
    let options = TileOptions {
        budget: Some(10),
        ..TileOptions::default()
    };
    assert_eq!(
        tile(&scop, &deps, &tree, &options).unwrap_err(),
        Error::LimitExceeded
    );
}

#[test]
fn a_tiny_budget_stops_parallelization() {
    let scop = pollen_testkit::kernel_scop("gemm");
    let deps = pollen_testkit::value_deps(&scop);
    let e = parallelize_with(&deps, &scop.schedule, &mut Budget::new(10)).unwrap_err();
    assert_eq!(e, Error::LimitExceeded);
}

#[test]
fn an_ample_budget_tiles_as_without_one() {
    let scop = pollen_testkit::kernel_scop("jacobi-2d");
    let deps = pollen_testkit::value_deps(&scop);
    let tree = pollen_testkit::pluto_with(&scop, &deps);
    let options = TileOptions::default();
    let limited = tile_with(&scop, &deps, &tree, &options, &mut Budget::new(10_000_000)).unwrap();
    let unlimited = tile(&scop, &deps, &tree, &options).unwrap();
    assert_eq!(limited.to_string(), unlimited.to_string());
}

#[test]
fn a_tiny_budget_stops_the_cost_model_and_the_step_queries() {
    let scop = pollen_testkit::kernel_scop("gemm");
    let tree = pollen_testkit::pluto(&scop);
    let e = pollen_transform::profit::cost_with(&scop, &tree, &mut Budget::new(1)).unwrap_err();
    assert_eq!(e, Error::LimitExceeded);
    let band = pollen_testkit::bands(&tree)[0];
    let e =
        pollen_transform::order::member_steps_with(&scop, band, &mut Budget::new(1)).unwrap_err();
    assert_eq!(e, Error::LimitExceeded);
    let unlimited = pollen_transform::order::member_steps(&scop, band).unwrap();
    let limited =
        pollen_transform::order::member_steps_with(&scop, band, &mut Budget::new(1_000_000))
            .unwrap();
    assert_eq!(limited, unlimited);
}
