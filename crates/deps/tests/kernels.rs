//! The dependence analysis of every test kernel of `examples/kernels`, checked against the
//! trace oracle for three small parameter valuations, memory-based and value-based.

use std::time::{Duration, Instant};

use pollen_deps::oracle::{check, Trace};
use pollen_deps::{analyze, Analysis};
use pollen_presburger::Int;
use pollen_scop::Scop;
use pollen_testkit::{all_kernel_names, kernel_source};

/// Whether parameter values lie in the scop's context.
fn in_context(scop: &Scop, values: &[i64]) -> bool {
    let point: Vec<Int> = values.iter().map(|&v| Int::from(v)).collect();
    scop.context
        .as_map()
        .contains_point(&point)
        .expect("a point of the parameter space")
}

/// Three small valuations of the parameters inside the context: the parameters take
/// different values from {2, 3, 4} (so that swapped parameters show), rotated; where
/// the context refuses one, the next valid point of the box {0..6}ⁿ, smallest first.
fn valuations(scop: &Scop) -> Vec<Vec<i64>> {
    let n = scop.params.len();
    let mut chosen: Vec<Vec<i64>> = Vec::new();
    for shift in 0..3 {
        let v: Vec<i64> = (0..n).map(|k| 2 + ((k + shift) % 3) as i64).collect();
        if in_context(scop, &v) && !chosen.contains(&v) {
            chosen.push(v);
        }
    }
    let mut boxed: Vec<Vec<i64>> = (0..7usize.pow(n as u32))
        .map(|mut code| {
            (0..n)
                .map(|_| {
                    let v = (code % 7) as i64;
                    code /= 7;
                    v
                })
                .collect()
        })
        .collect();
    boxed.sort_by_key(|v| (v.iter().copied().max(), v.iter().sum::<i64>(), v.clone()));
    for v in boxed {
        if chosen.len() >= 3 {
            break;
        }
        if !chosen.contains(&v) && in_context(scop, &v) {
            chosen.push(v);
        }
    }
    chosen
}

#[test]
fn every_kernel_agrees_with_its_trace() {
    let names = all_kernel_names();
    assert!(
        names.len() >= 30,
        "expected the 30 kernels, found {}",
        names.len()
    );
    let mut failures = Vec::new();
    let mut analysis_time = Duration::ZERO;
    for name in &names {
        let source = kernel_source(name);
        let start = Instant::now();
        let scop = match pollen_frontend::extract(&source) {
            Ok(e) => e.scop,
            Err(e) => {
                failures.push(format!("{name}: extraction failed: {e}"));
                continue;
            }
        };
        let extracted = start.elapsed();
        let values = valuations(&scop);
        if values.len() < 3 {
            failures.push(format!(
                "{name}: fewer than three parameter valuations in the context"
            ));
            continue;
        }
        let mut times = Vec::new();
        for analysis in [Analysis::MemoryBased, Analysis::ValueBased] {
            let t = Instant::now();
            let deps = match analyze(&scop, analysis) {
                Ok(d) => d,
                Err(e) => {
                    failures.push(format!("{name}: {analysis:?} analysis failed: {e}"));
                    continue;
                }
            };
            times.push(t.elapsed());
            analysis_time += t.elapsed();
            for v in &values {
                match check(&scop, &deps, v) {
                    Ok(trace) => assert_nonvacuous(name, &trace),
                    Err(e) => failures.push(format!("{name}: {e}")),
                }
            }
        }
        eprintln!(
            "{name}: extraction {extracted:?}, analysis (memory, value) {times:?}, with the \
             oracle {:?}; {:?} = {values:?}",
            start.elapsed(),
            scop.params
        );
    }
    eprintln!("analysis alone, all kernels, both analyses: {analysis_time:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every kernel executes some instance at the chosen values.
fn assert_nonvacuous(name: &str, trace: &Trace) {
    assert!(trace.n_instances() > 0, "{name}: no instance executes");
}
