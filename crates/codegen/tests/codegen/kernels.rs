//! Every example kernel, under its original schedule, Pluto's (smart and maximal
//! fusion) and Feautrier's: the generated
//! code executes each domain instance exactly once, in schedule order, at several
//! parameter valuations inside the context and one outside it.

use std::time::Instant;

use pollen_codegen::{generate, Options};

use pollen_sched::{Algo, Fuse};
use pollen_scop::{ScheduleTree, Scop};

use crate::common::{check, in_context, kernel_names, pluto, scop, shape, valuations};

/// Another schedule of the scop (value-based dependences), if the scheduler finds one.
fn other_schedule(scop: &Scop, algo: Algo, fuse: Fuse) -> Option<ScheduleTree> {
    let deps = pollen_deps::analyze(scop, pollen_deps::Analysis::ValueBased).expect("deps");
    let options = pollen_sched::Options {
        algo,
        fuse,
        ..pollen_sched::Options::default()
    };
    pollen_sched::schedule(scop, deps.as_slice(), &options).ok()
}

#[test]
fn every_kernel_under_four_schedules() {
    let mut failures = Vec::new();
    for name in kernel_names() {
        let scop = scop(&name);
        let trees = [
            ("original", Some(scop.schedule.clone())),
            ("pluto", Some(pluto(&scop))),
            (
                "feautr",
                other_schedule(&scop, Algo::Feautrier, Fuse::Smart),
            ),
            ("maxfuse", other_schedule(&scop, Algo::Pluto, Fuse::Max)),
        ];
        for (label, tree) in trees {
            let Some(tree) = tree else {
                eprintln!("{name:16} {label:8} no schedule");
                continue;
            };
            let t = Instant::now();
            let ast = match generate(&scop, &tree, &Options::default()) {
                Ok(a) => a,
                Err(e) => {
                    failures.push(format!("{name} {label}: generation failed: {e}"));
                    continue;
                }
            };
            let dt = t.elapsed().as_secs_f64();
            let s = shape(&ast);
            eprintln!(
                "{name:16} {label:8} {dt:7.3}s loops={} guards={} calls={}",
                s.loops, s.guards, s.calls
            );
            if std::env::var("SHOW").is_ok() {
                eprintln!("{ast}");
            }
            let mut inside = 0;
            let mut vals = valuations(&scop);
            vals.push(scop.params.iter().map(|p| (p.clone(), 1)).collect());
            for values in vals {
                if in_context(&scop, &values) {
                    inside += 1;
                }
                if let Err(e) = check(&tree, &ast, &values) {
                    failures.push(format!("{name} {label} at {values:?}: {e}\n{ast}"));
                    break;
                }
            }
            if inside == 0 {
                failures.push(format!("{name}: no tested valuation lies in the context"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
