//! Hand-tiled schedule trees: every band of a kernel's schedule becomes a tile band
//! `floor(f / size)` over a point band `f`; the generated code is checked as for the
//! plain schedules, with tiles that do not divide the parameters.

use pollen_codegen::{generate, Options};
use pollen_presburger::{Map, Space, Tuple};
use pollen_scop::{Band, Node, ScheduleTree};

use crate::common::{check, kernel_names, pluto, scop, shape, valuations};

/// `{ [x0, ..] -> [floor(x0 / size), ..] }` with `n` dimensions.
fn tile_map(params: &[String], n: usize, size: i64) -> Map {
    let xs: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
    let tiles: Vec<String> = xs.iter().map(|x| format!("floor({x}/{size})")).collect();
    let text = format!(
        "[{}] -> {{ [{}] -> [{}] }}",
        params.join(", "),
        xs.join(", "),
        tiles.join(", ")
    );
    let m: Map = text.parse().expect("tile map");
    let space = Space::map(params.to_vec(), Tuple::anonymous(n), Tuple::anonymous(n));
    m.with_space(space)
}

/// The tree with every band split into a tile band over a point band.
pub fn tiled(node: &Node, params: &[String], size: i64) -> Node {
    match node {
        Node::Band(b) => {
            let n = b.n_members();
            let point = Node::Band(Band {
                schedule: b.schedule.clone(),
                permutable: b.permutable,
                coincident: b.coincident.clone(),
                child: Box::new(tiled(&b.child, params, size)),
            });
            if n == 0 {
                return point;
            }
            let t = tile_map(params, n, size);
            let schedule = b.schedule.map_each(|m| m.apply_range(&t)).expect("tiles");
            Node::Band(Band {
                schedule,
                permutable: b.permutable,
                coincident: b.coincident.clone(),
                child: Box::new(point),
            })
        }
        Node::Domain { domain, child } => Node::Domain {
            domain: domain.clone(),
            child: Box::new(tiled(child, params, size)),
        },
        Node::Context { context, child } => Node::Context {
            context: context.clone(),
            child: Box::new(tiled(child, params, size)),
        },
        Node::Filter { filter, child } => Node::Filter {
            filter: filter.clone(),
            child: Box::new(tiled(child, params, size)),
        },
        Node::Mark { name, child } => Node::Mark {
            name: name.clone(),
            child: Box::new(tiled(child, params, size)),
        },
        Node::Extension { extension, child } => Node::Extension {
            extension: extension.clone(),
            child: Box::new(tiled(child, params, size)),
        },
        Node::Sequence(v) => Node::Sequence(v.iter().map(|c| tiled(c, params, size)).collect()),
        Node::Set(v) => Node::Set(v.iter().map(|c| tiled(c, params, size)).collect()),
        Node::Leaf => Node::Leaf,
    }
}

#[test]
fn every_kernel_tiled_by_four() {
    let mut failures = Vec::new();
    for name in kernel_names() {
        let scop = scop(&name);
        let tree = ScheduleTree {
            root: tiled(&pluto(&scop).root, &scop.params, 4),
        };
        let t = std::time::Instant::now();
        let ast = match generate(&scop, &tree, &Options::default()) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{name}: generation failed: {e}"));
                continue;
            }
        };
        let s = shape(&ast);
        eprintln!(
            "{name:16} tiled {:7.3}s loops={} guards={} calls={}",
            t.elapsed().as_secs_f64(),
            s.loops,
            s.guards,
            s.calls
        );
        if std::env::var("SHOW").is_ok() {
            eprintln!("{ast}");
        }
        for values in valuations(&scop) {
            if let Err(e) = check(&tree, &ast, &values) {
                failures.push(format!("{name} tiled at {values:?}: {e}\n{ast}"));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
