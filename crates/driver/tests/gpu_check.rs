//! The GPU pipeline's mapped programs against the independent checker of `pollen-gpu`:
//! for every example kernel and operator, with constraint injection and without, tiled
//! with small tiles (so that several tiles, blocks and barrier phases occur at small
//! parameter values), the program runs every statement instance once, orders every
//! dependence pair (launch order, thread order or a barrier between), and reaches its
//! barriers uniformly.

use pollen_driver::{optimize_scop, GpuOptions, Options, Target, Tiling};
use pollen_scop::Scop;
use pollen_testkit::{kernel_names, operator_names, operator_source, value_deps};

/// Parameter values for the checker: each parameter `base + k mod 3`, when the context
/// admits them.
fn valuation(scop: &Scop, base: i64) -> Option<Vec<(String, i64)>> {
    let values: Vec<(String, i64)> = scop
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| (p.clone(), base + (k as i64 % 3)))
        .collect();
    let point: Vec<pollen_presburger::Int> = values
        .iter()
        .map(|(_, v)| pollen_presburger::Int::from(*v))
        .collect();
    scop.context
        .contains_point(&point)
        .expect("context test")
        .then_some(values)
}

/// Maps `scop` for OpenCL with and without injection and checks both programs.
fn check(name: &str, scop: &Scop) -> Vec<String> {
    let deps = value_deps(scop);
    let mut failures = Vec::new();
    for inject in [true, false] {
        for sizes in [vec![3], vec![4, 2]] {
            let options = Options {
                target: Target::OpenCl,
                tiling: Tiling::Sizes(sizes.clone()),
                gpu: GpuOptions {
                    inject,
                    block: Some(vec![2, 2]),
                    ..GpuOptions::default()
                },
                ..Options::default()
            };
            let optimized = match optimize_scop(scop, &options) {
                Ok(o) => o,
                Err(e) => {
                    failures.push(format!("{name} (inject {inject}, tiles {sizes:?}): {e}"));
                    continue;
                }
            };
            let program = &optimized.report.gpu.as_ref().expect("GPU report").program;
            for base in [5] {
                let Some(params) = valuation(scop, base) else {
                    continue;
                };
                let report = match pollen_gpu::check(scop, &deps, program, &params) {
                    Ok(report) => report,
                    Err(e) => {
                        failures.push(format!(
                            "{name} (inject {inject}, tiles {sizes:?}, params {params:?}): {e}"
                        ));
                        continue;
                    }
                };
                if !report.is_ok() {
                    failures.push(format!(
                        "{name} (inject {inject}, tiles {sizes:?}, params {params:?}): {} violation(s), first {:?}\n{program}",
                        report.violation_count,
                        report.violations.first()
                    ));
                }
            }
        }
    }
    failures
}

#[test]
fn every_kernel_maps_to_a_program_the_checker_accepts() {
    let mut failures = Vec::new();
    for name in kernel_names() {
        failures.extend(check(&name, &pollen_testkit::kernel_scop(&name)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_operator_maps_to_a_program_the_checker_accepts() {
    let mut failures = Vec::new();
    for name in operator_names() {
        let source = operator_source(&name);
        let scop = pollen_frontend::extract(&source).expect("extract").scop;
        failures.extend(check(&name, &scop));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
