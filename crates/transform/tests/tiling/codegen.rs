//! Generated code of tiled kernels, run by the code generator's interpreter: every
//! statement instance executes exactly once, in the order of the tiled schedule.

use std::collections::BTreeMap;

use pollen_codegen::{generate, interp, Options};
use pollen_presburger::Int;
use pollen_scop::{ScheduleTree, Scop};
use pollen_transform::TileOptions;

use crate::common::{kernel, kernel_names, scheduled_instances, shape, sized, tiled};

/// Parameter valuations in the scop's context: every parameter in 4..=7 (a few tiles of
/// size 4 and partial tiles).
fn valuations(scop: &Scop) -> Vec<Vec<(String, i64)>> {
    let n = scop.params.len();
    let patterns: Vec<Vec<i64>> = vec![
        (0..n).map(|k| 5 + (k as i64 % 3)).collect(),
        (0..n).map(|k| 7 - (k as i64 % 4)).collect(),
    ];
    patterns
        .into_iter()
        .filter(|values| {
            let point: Vec<Int> = values.iter().map(|&v| Int::from(v)).collect();
            scop.context.contains_point(&point).expect("context test")
        })
        .map(|v| scop.params.iter().cloned().zip(v).collect())
        .collect()
}

/// Runs the generated code of `tree` and compares its trace with the instances of the
/// tree's flattened schedule: each exactly once, in non-decreasing schedule order.
fn check_execution(
    scop: &Scop,
    tree: &ScheduleTree,
    values: &[(String, i64)],
) -> Result<(), String> {
    let ast = generate(scop, tree, &Options::default()).map_err(|e| format!("codegen: {e}"))?;
    let trace = interp::interpret(&ast, values).map_err(|e| format!("interpreter: {e}"))?;
    let schedule = tree.to_union_map().map_err(|e| e.to_string())?;
    let mut expected: BTreeMap<(String, Vec<i64>), Vec<i64>> =
        scheduled_instances(&schedule, values)
            .into_iter()
            .map(|(t, name, iters)| ((name, iters), t))
            .collect();
    let total = expected.len();
    let mut previous: Option<Vec<i64>> = None;
    for instance in &trace {
        let Some(t) = expected.remove(instance) else {
            return Err(format!("{instance:?} executed twice or outside the domain"));
        };
        if previous.as_ref().is_some_and(|p| t < *p) {
            return Err(format!("{instance:?} at {t:?} runs after {previous:?}"));
        }
        previous = Some(t);
    }
    if let Some(missing) = expected.keys().next() {
        return Err(format!(
            "{missing:?} never executed ({} of {total})",
            expected.len()
        ));
    }
    Ok(())
}

fn check_all(options: &TileOptions, label: &str) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for name in kernel_names() {
        let k = kernel(&name);
        let t = tiled(&name, &k, options);
        for values in valuations(&k.scop) {
            runs += 1;
            if let Err(e) = check_execution(&k.scop, &t, &values) {
                failures.push(format!("{name} {values:?}: {e}\n  {}", shape(&t)));
            }
        }
    }
    assert!(failures.is_empty(), "{label}:\n{}", failures.join("\n"));
    assert!(runs > 0);
}

#[test]
fn tiled_kernels_execute_every_instance_once_in_schedule_order() {
    check_all(&sized(4, false, true), "size 4, intra-tile order");
}

#[test]
fn wavefront_tiled_kernels_execute_every_instance_once_in_schedule_order() {
    check_all(&sized(3, true, true), "size 3, wavefront");
}

#[test]
fn two_level_tiled_kernels_execute_every_instance_once_in_schedule_order() {
    let options = TileOptions {
        sizes: Some(vec![2]),
        second_level: Some(vec![2]),
        ..TileOptions::default()
    };
    check_all(&options, "two levels 2 x 2");
}

/// The points of `set` at the parameter values `values` (in the set's parameter order).
fn points_at(set: &pollen_presburger::Set, values: &[(String, i64)]) -> Vec<Vec<i64>> {
    use pollen_presburger::DimKind;
    let mut s = set.clone();
    let names: Vec<String> = s.space().param_names().to_vec();
    for (k, name) in names.iter().enumerate() {
        let v = values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .expect("parameter value");
        s = s.fix_val(DimKind::Param, k, &Int::from(v)).expect("fix");
    }
    let s = s
        .project_out(DimKind::Param, 0, names.len())
        .expect("projection");
    s.points()
        .expect("points")
        .iter()
        .map(|p| p.iter().map(|x| x.to_i64().expect("small")).collect())
        .collect()
}

/// The number of loops of `ast` whose body is exactly `copies` statement instances (no
/// guard, no loop): the jammed, guard-free innermost loops.
fn guard_free_jammed_loops(ast: &pollen_codegen::Ast, copies: usize) -> usize {
    use pollen_codegen::Ast;
    match ast {
        Ast::Block(v) => v.iter().map(|c| guard_free_jammed_loops(c, copies)).sum(),
        Ast::For(l) => {
            let own = match &*l.body {
                Ast::Block(v) => {
                    v.len() == copies && v.iter().all(|c| matches!(c, Ast::User { .. }))
                }
                _ => false,
            };
            usize::from(own) + guard_free_jammed_loops(&l.body, copies)
        }
        Ast::If {
            then, otherwise, ..
        } => {
            guard_free_jammed_loops(then, copies)
                + otherwise
                    .as_deref()
                    .map_or(0, |o| guard_free_jammed_loops(o, copies))
        }
        Ast::User { .. } => 0,
    }
}

#[test]
fn triangular_bands_are_jammed_guard_free_and_keep_every_dependence() {
    // syrk and syr2k: reductions over k inside the triangle j <= i; trmm and covariance:
    // triangles whose innermost loop is the vector loop (4 x 4 copies).
    for (name, copies) in [("syrk", 8), ("syr2k", 8), ("trmm", 16), ("covariance", 16)] {
        let k = kernel(name);
        let options = TileOptions {
            sizes: Some(vec![8]),
            unroll_and_jam: true,
            ..TileOptions::default()
        };
        let tree = tiled(name, &k, &options);
        assert!(crate::common::is_legal(&tree, &k.deps), "{name}");
        let memory =
            pollen_deps::analyze(&k.scop, pollen_deps::Analysis::MemoryBased).expect("dependences");
        assert!(crate::common::is_legal(&tree, memory.as_slice()), "{name}");
        let ast = generate(&k.scop, &tree, &Options::default()).expect("codegen");
        assert!(
            guard_free_jammed_loops(&ast, copies) > 0,
            "{name}: no guard-free loop of {copies} copies\n{ast}"
        );
        // Sizes that leave full groups of copies, remainders and diagonal tiles.
        for n in [9, 13, 18] {
            let values: Vec<(String, i64)> = k.scop.params.iter().map(|p| (p.clone(), n)).collect();
            let trace = interp::interpret(&ast, &values).expect("interpreter");
            let mut position: BTreeMap<(String, Vec<i64>), usize> = BTreeMap::new();
            for (at, instance) in trace.iter().enumerate() {
                assert!(
                    position.insert(instance.clone(), at).is_none(),
                    "{name}: {instance:?} twice"
                );
            }
            let expected: usize = k
                .scop
                .statements
                .iter()
                .map(|s| points_at(&s.domain, &values).len())
                .sum();
            assert_eq!(trace.len(), expected, "{name} at {n}");
            for d in memory.as_slice() {
                let n_in = d.relation.space().n_in();
                let pairs = pollen_presburger::Set::from_map(d.relation.wrap()).expect("wrap");
                for p in points_at(&pairs, &values) {
                    let source = (d.source.clone(), p[..n_in].to_vec());
                    let target = (d.target.clone(), p[n_in..].to_vec());
                    assert!(
                        position[&source] < position[&target],
                        "{name} at {n}: {:?} dependence from {source:?} to {target:?} runs backwards",
                        d.kind
                    );
                }
            }
        }
    }
}
