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
