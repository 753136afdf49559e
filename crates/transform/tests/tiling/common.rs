//! Helpers shared by the tiling tests: the example kernels through the pipeline up to
//! scheduling, hand-built scops and trees, tree shapes, band lookups and enumeration of
//! flattened schedules.

use std::collections::BTreeMap;

use pollen_deps::Dependence;
use pollen_presburger::{DimKind, Int, Map, Set, UnionMap, UnionSet};
use pollen_sched::legality;
use pollen_scop::{Access, AccessKind, Array, Band, Node, ScheduleTree, Scop, Statement};
use pollen_transform::{tile, TileOptions};

/// A kernel with its dependences and Pluto's schedule.
pub struct Kernel {
    pub scop: Scop,
    pub deps: Vec<Dependence>,
    pub tree: ScheduleTree,
}

pub use pollen_testkit::{bands, kernel_names};

/// Extracts, analyses (value-based) and schedules (Pluto, default options) a kernel.
pub fn kernel(name: &str) -> Kernel {
    let scop = pollen_testkit::kernel_scop(name);
    let deps = pollen_testkit::value_deps(&scop);
    let tree = pollen_testkit::pluto_with(&scop, &deps);
    Kernel { scop, deps, tree }
}

/// Tiles a kernel's schedule, panicking with the kernel's name on error.
pub fn tiled(name: &str, k: &Kernel, options: &TileOptions) -> ScheduleTree {
    tile(&k.scop, &k.deps, &k.tree, options).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Tile options with uniform sizes.
pub fn sized(size: i64, wavefront: bool, intra_tile_order: bool) -> TileOptions {
    TileOptions {
        sizes: Some(vec![size]),
        wavefront,
        intra_tile_order,
        ..TileOptions::default()
    }
}

/// Whether the tree passes the independent legality checker; violations are printed.
pub fn is_legal(tree: &ScheduleTree, deps: &[Dependence]) -> bool {
    let report = legality::check(deps, tree).expect("legality check");
    for v in &report.violations {
        eprintln!("violation: {v}");
    }
    report.is_legal()
}

/// A short structural description of a tree: `PB3(ttf)` for a permutable band of three
/// members (coincidence per member), `Q[..]` for a sequence, `S[..]` for a set.
pub fn shape(tree: &ScheduleTree) -> String {
    fn visit(n: &Node) -> String {
        let own = match n {
            Node::Band(b) => {
                let flags: String = b
                    .coincident
                    .iter()
                    .map(|&c| if c { 't' } else { 'f' })
                    .collect();
                let p = if b.permutable { "P" } else { "" };
                format!("{p}B{}({flags})", b.n_members())
            }
            Node::Sequence(cs) | Node::Set(cs) => {
                let parts: Vec<String> = cs.iter().map(visit).collect();
                let kind = if matches!(n, Node::Set(_)) { "S" } else { "Q" };
                return format!("{kind}[{}]", parts.join(" | "));
            }
            _ => String::new(),
        };
        let inner: Vec<String> = n.children().into_iter().map(visit).collect();
        let inner = inner.join(" ");
        match (own.is_empty(), inner.is_empty()) {
            (true, _) => inner,
            (false, true) => own,
            (false, false) => format!("{own} {inner}"),
        }
    }
    visit(&tree.root)
}

/// A map parsed from isl text.
pub fn map(text: &str) -> Map {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A union map parsed from isl text.
pub fn union_map(text: &str) -> UnionMap {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A dependence whose statements are read from the relation's tuples.
pub fn dep(array: &str, relation: &str) -> Dependence {
    let relation = map(relation);
    let name = |t: Option<&pollen_presburger::Tuple>| {
        t.and_then(|t| t.name()).expect("named tuple").to_string()
    };
    Dependence {
        kind: pollen_deps::DepKind::Flow,
        array: array.to_string(),
        source: name(relation.space().domain_tuple()),
        target: name(relation.space().range_tuple()),
        relation,
    }
}

/// A one-statement scop without parameters: `S[i, j]` over `domain`, with the given
/// accesses (`(is_write, relation)`) to 2-d `double` arrays, and a one-band schedule
/// tree with the band `schedule`.
pub fn tiny_scop(
    domain: &str,
    accesses: &[(bool, &str)],
    schedule: &str,
    coincident: &[bool],
) -> Scop {
    let domain: Set = domain.parse().expect("domain");
    let mut arrays: Vec<Array> = Vec::new();
    let mut list = Vec::new();
    for &(write, text) in accesses {
        let relation = map(text);
        let array = relation
            .space()
            .range_tuple()
            .and_then(|t| t.name())
            .expect("array name")
            .to_string();
        if arrays.iter().all(|a| a.name != array) {
            arrays.push(Array {
                name: array.clone(),
                element_type: "double".into(),
                extents: vec!["8".into(); relation.space().n_out()],
                local: false,
            });
        }
        list.push(Access {
            kind: if write {
                AccessKind::Write
            } else {
                AccessKind::Read
            },
            array,
            relation,
        });
    }
    let tree = ScheduleTree {
        root: Node::Domain {
            domain: UnionSet::from_set(domain.clone()),
            child: Box::new(Node::Band(Band {
                schedule: union_map(schedule),
                permutable: true,
                coincident: coincident.to_vec(),
                child: Box::new(Node::Leaf),
            })),
        },
    };
    Scop {
        params: Vec::new(),
        context: "{ : }".parse().expect("context"),
        arrays,
        statements: vec![Statement {
            name: "S".into(),
            domain,
            iterators: vec!["i".into(), "j".into()],
            accesses: list,
            body: "S(i, j);".into(),
        }],
        schedule: tree,
    }
}

/// The instances of every statement of a flattened schedule with their schedule
/// vectors, for the given parameter values (by name), in schedule order.
pub fn scheduled_instances(
    schedule: &UnionMap,
    values: &[(String, i64)],
) -> Vec<(Vec<i64>, String, Vec<i64>)> {
    let by_name: BTreeMap<&str, i64> = values.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let mut all = Vec::new();
    for m in schedule.maps() {
        let name = m
            .space()
            .domain_tuple()
            .and_then(|t| t.name())
            .unwrap_or_default()
            .to_string();
        let mut fixed = m.clone();
        for (k, p) in m.space().param_names().iter().enumerate() {
            let v = by_name.get(p.as_str()).expect("parameter value");
            fixed = fixed
                .fix_val(DimKind::Param, k, &Int::from(*v))
                .expect("fix");
        }
        let n_params = m.space().n_params();
        let n_in = m.space().n_in();
        let fixed = fixed
            .project_out(DimKind::Param, 0, n_params)
            .expect("projection");
        for p in fixed.points().expect("points") {
            let p: Vec<i64> = p.iter().map(|x| x.to_i64().expect("small")).collect();
            all.push((p[n_in..].to_vec(), name.clone(), p[..n_in].to_vec()));
        }
    }
    all.sort();
    all
}
