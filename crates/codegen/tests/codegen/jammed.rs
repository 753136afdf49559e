//! Register tiling and loop distribution: every kernel's Pluto schedule tiled by
//! `pollen-transform` with unroll-and-jam marks (tiles of 4, so that the parameters 4..7
//! leave both full groups and remainders), generated with parallel guarded loops
//! distributed. The order differs from the band's lexicographic order on purpose, so
//! the check is semantic: every domain instance runs exactly once, and every
//! memory-based dependence (flow, anti, output) has its source before its target.

use std::collections::BTreeMap;

use pollen_codegen::{generate, interp, Ast, Options};
use pollen_presburger::Set;
use pollen_scop::{Node, ScheduleTree, Scop};
use pollen_transform::{tile, TileOptions};

use crate::common::{kernel_names, points, scop, valuations};

/// The number of unroll-and-jam marks of a tree.
fn marks(node: &Node) -> usize {
    let own =
        usize::from(matches!(node, Node::Mark { name, .. } if name.starts_with("unroll-and-jam")));
    own + node.children().iter().map(|c| marks(c)).sum::<usize>()
}

/// Checks the trace of `ast`: each instance of `scop` once, dependences in order.
fn check(
    scop: &Scop,
    deps: &[pollen_deps::Dependence],
    ast: &Ast,
    values: &[(String, i64)],
) -> Result<(), String> {
    let trace = interp::interpret(ast, values).map_err(|e| e.to_string())?;
    let mut position: BTreeMap<(String, Vec<i64>), usize> = BTreeMap::new();
    for (k, inst) in trace.iter().enumerate() {
        if position.insert(inst.clone(), k).is_some() {
            return Err(format!("executed {inst:?} twice"));
        }
    }
    let mut expected = 0;
    for s in &scop.statements {
        for p in points(&s.domain, values) {
            if !position.contains_key(&(s.name.clone(), p.clone())) {
                return Err(format!("never executed {}{p:?}", s.name));
            }
            expected += 1;
        }
    }
    if expected != trace.len() {
        return Err(format!(
            "{} instances executed, {expected} expected",
            trace.len()
        ));
    }
    for d in deps {
        let n_in = d.relation.space().n_in();
        let pairs = Set::from_map(d.relation.wrap()).map_err(|e| e.to_string())?;
        for p in points(&pairs, values) {
            let source = (d.source.clone(), p[..n_in].to_vec());
            let target = (d.target.clone(), p[n_in..].to_vec());
            if position[&source] >= position[&target] {
                return Err(format!(
                    "{:?} dependence on {} from {source:?} to {target:?} runs backwards",
                    d.kind, d.array
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn every_kernel_jammed_and_distributed_keeps_its_dependences() {
    let options = TileOptions {
        sizes: Some(vec![4]),
        unroll_and_jam: true,
        ..TileOptions::default()
    };
    let mut failures = Vec::new();
    let mut jammed = Vec::new();
    for name in kernel_names() {
        let scop = scop(&name);
        let deps = pollen_deps::analyze(&scop, pollen_deps::Analysis::MemoryBased).expect("deps");
        let pluto =
            pollen_sched::schedule(&scop, deps.as_slice(), &pollen_sched::Options::default())
                .expect("schedule");
        let tree: ScheduleTree = match tile(&scop, deps.as_slice(), &pluto, &options) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{name:16} not tiled: {e}");
                continue;
            }
        };
        let n = marks(&tree.root);
        if n > 0 {
            jammed.push(name.clone());
        }
        let options = Options {
            distribute: true,
            ..Options::default()
        };
        let ast = match generate(&scop, &tree, &options) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{name}: generation failed: {e}"));
                continue;
            }
        };
        eprintln!("{name:16} {n} unroll-and-jam mark(s)");

        for values in valuations(&scop).into_iter().take(2) {
            if let Err(e) = check(&scop, deps.as_slice(), &ast, &values) {
                failures.push(format!("{name} at {values:?}: {e}\n{ast}"));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The matrix products get register tiles.
    for product in ["gemm", "3mm"] {
        if kernel_names().iter().any(|k| k == product) {
            assert!(
                jammed.iter().any(|k| k == product),
                "{product} was not jammed"
            );
        }
    }
}
