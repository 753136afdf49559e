//! Every kernel's Pluto schedule tiled by `pollen-transform` (small tiles so that the
//! test parameters leave partial tiles; two levels; wavefronts over tiles): the
//! generated code executes each domain instance once, in schedule order.

use pollen_codegen::{generate, Options};
use pollen_transform::{tile, TileOptions};

use crate::common::{check, kernel_names, scop, shape, valuations};

#[test]
fn every_kernel_tiled_by_the_transform_crate() {
    let variants = [
        (
            "tile3",
            TileOptions {
                sizes: Some(vec![3]),
                ..TileOptions::default()
            },
        ),
        (
            "2level",
            TileOptions {
                sizes: Some(vec![2]),
                second_level: Some(vec![2]),
                ..TileOptions::default()
            },
        ),
        (
            "wavefront",
            TileOptions {
                sizes: Some(vec![4]),
                wavefront: true,
                ..TileOptions::default()
            },
        ),
    ];
    let mut failures = Vec::new();
    for name in kernel_names() {
        let scop = scop(&name);
        let deps = pollen_deps::analyze(&scop, pollen_deps::Analysis::ValueBased).expect("deps");
        let pluto =
            pollen_sched::schedule(&scop, deps.as_slice(), &pollen_sched::Options::default())
                .expect("schedule");
        for (label, options) in &variants {
            let tree = match tile(&scop, deps.as_slice(), &pluto, options) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("{name:16} {label:9} not tiled: {e}");
                    continue;
                }
            };
            let t = std::time::Instant::now();
            let ast = match generate(&scop, &tree, &Options::default()) {
                Ok(a) => a,
                Err(e) => {
                    failures.push(format!("{name} {label}: generation failed: {e}"));
                    continue;
                }
            };
            let s = shape(&ast);
            eprintln!(
                "{name:16} {label:9} {:7.3}s loops={} guards={} calls={}",
                t.elapsed().as_secs_f64(),
                s.loops,
                s.guards,
                s.calls
            );
            if std::env::var("SHOW").is_ok() {
                eprintln!("{ast}");
            }
            for values in valuations(&scop).into_iter().take(2) {
                if let Err(e) = check(&tree, &ast, &values) {
                    failures.push(format!("{name} {label} at {values:?}: {e}\n{ast}"));
                    break;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
