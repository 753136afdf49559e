//! Every example kernel, scheduled by Pluto and tiled under several option sets: the
//! result passes the independent legality checker and has the expected band structure.

use pollen_scop::ScheduleTree;
use pollen_transform::TileOptions;

use crate::common::{bands, is_legal, kernel, kernel_names, shape, sized, tiled};

/// The number of bands `tile` adds: `levels` per permutable band of at least two members.
fn added_bands(tree: &ScheduleTree, levels: usize) -> usize {
    bands(tree)
        .iter()
        .filter(|b| b.permutable && b.n_members() >= 2)
        .count()
        * levels
}

#[test]
fn every_kernel_tiles_legally_under_every_option_set() {
    let mut options: Vec<(String, TileOptions, usize)> = Vec::new();
    for size in [4, 32] {
        for wavefront in [false, true] {
            for order in [false, true] {
                let label = format!("size {size} wavefront {wavefront} order {order}");
                options.push((label, sized(size, wavefront, order), 1));
            }
        }
    }
    options.push((
        "two levels 4 x 2, wavefront".into(),
        TileOptions {
            sizes: Some(vec![4]),
            second_level: Some(vec![2]),
            wavefront: true,
            ..TileOptions::default()
        },
        2,
    ));
    options.push(("default sizes".into(), TileOptions::default(), 1));
    let mut tiled_bands = 0;
    for name in kernel_names() {
        let k = kernel(&name);
        for (label, opts, levels) in &options {
            let t = tiled(&name, &k, opts);
            assert!(
                is_legal(&t, &k.deps),
                "{name}, {label}: illegal tiled schedule {}",
                shape(&t)
            );
            let added = added_bands(&k.tree, *levels);
            assert_eq!(
                bands(&t).len(),
                bands(&k.tree).len() + added,
                "{name}, {label}: {} -> {}",
                shape(&k.tree),
                shape(&t)
            );
            tiled_bands += added;
        }
    }
    assert!(tiled_bands > 0, "no band was tiled");
}
