//! The dependence analysis of every loop-nest fragment of `examples/fragments` (regions
//! without declarations, in the style of Pluto's and PPCG's test inputs): each extracts,
//! and its memory-based and value-based dependences agree with the trace oracle at the
//! manifest's test values.

use pollen_deps::oracle::check;
use pollen_deps::{analyze, Analysis};
use pollen_testkit::{fragment_source, fragments};

#[test]
fn every_fragment_agrees_with_its_trace() {
    let all = fragments();
    if std::env::var("FRAGMENT").is_err() {
        assert!(
            all.len() >= 40,
            "expected at least 40 fragments, found {}",
            all.len()
        );
    }
    let mut failures = Vec::new();
    for f in &all {
        let scop = match pollen_frontend::extract(&fragment_source(&f.name)) {
            Ok(e) => e.scop,
            Err(e) => {
                failures.push(format!("{}: extraction failed: {e}", f.name));
                continue;
            }
        };
        if let Err(e) = scop.validate() {
            failures.push(format!("{}: invalid scop: {e}", f.name));
            continue;
        }
        let values = f.param_values(&scop);
        for analysis in [Analysis::MemoryBased, Analysis::ValueBased] {
            let deps = match analyze(&scop, analysis) {
                Ok(d) => d,
                Err(e) => {
                    failures.push(format!("{}: {analysis:?} analysis failed: {e}", f.name));
                    continue;
                }
            };
            match check(&scop, &deps, &values) {
                Ok(trace) if trace.n_instances() == 0 => {
                    failures.push(format!("{}: no instance executes at {values:?}", f.name));
                }
                Ok(_) => {}
                Err(e) => failures.push(format!("{}: {analysis:?}: {e}", f.name)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
