//! Every example kernel, scheduled by Pluto (untiled, and tiled by 4 with wavefronts)
//! (also generated with distributed innermost loops, as the pipeline does) and in its
//! original order with its parallel loops marked, mapped with several block
//! sizes and grid caps, and checked by the dynamic checker at small parameter values:
//! every instance runs once and every dependence is ordered.

use pollen_gpu::{check, map, GpuOptions};

use crate::common::{ast, distributed_ast, kernel_names, scheduled, tiled, valuations};

#[test]
fn every_kernel_maps_and_checks() {
    let options = [
        GpuOptions::default(),
        GpuOptions {
            block: Some(vec![2, 2]),
            ..GpuOptions::default()
        },
        GpuOptions {
            block: Some(vec![3]),
            max_grid: 2,
            ..GpuOptions::default()
        },
    ];
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in kernel_names() {
        let (scop, deps, tree) = scheduled(&name);
        let original =
            pollen_transform::parallelize(&deps, &scop.schedule, None).expect("parallel flags");
        let tiled = tiled(&scop, &deps, &tree, 4);
        let asts = [
            ("untiled", ast(&scop, &tree)),
            ("tiled", ast(&scop, &tiled)),
            ("distributed", distributed_ast(&scop, &tiled)),
            ("original", ast(&scop, &original)),
        ];
        let values = valuations(&scop);
        assert!(!values.is_empty(), "{name}: no valuation in the context");
        for (label, ast) in &asts {
            for (k, o) in options.iter().enumerate() {
                let program = match map(&scop, ast, o) {
                    Ok(p) => p,
                    Err(e) => {
                        failures.push(format!("{name} {label} options {k}: {e}"));
                        continue;
                    }
                };
                if std::env::var("SHOW").is_ok() {
                    eprintln!("== {name} {label} options {k}\n{program}");
                }
                for v in &values {
                    match check(&scop, &deps, &program, v) {
                        Ok(r) if r.is_ok() => checked += 1,
                        Ok(r) => failures.push(format!(
                            "{name} {label} options {k} at {v:?}: {} violations, first {:?}\n{program}",
                            r.violation_count,
                            r.violations.first()
                        )),
                        Err(e) => failures.push(format!("{name} {label} options {k} at {v:?}: {e}")),
                    }
                }
            }
        }
    }
    eprintln!("{checked} checks passed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
