//! The driver on every loop-nest fragment of `examples/fragments` (regions without
//! declarations, in the style of the polyhedral tools' own test inputs): each fragment is
//! made a complete program by the test harness ([`fragment_program`]), optimized by
//! [`optimize_source`] under several option sets, and the optimized program, compiled
//! with gcc and OpenMP, prints what the original prints at 1 and 2 threads. gcc must be
//! installed.

use std::path::Path;

use pollen_driver::{optimize_source, Fusion, Options, Strategy, Tiling};
use pollen_testkit::cc::{compile, first_difference, require_gcc, run, scratch};
use pollen_testkit::{fragment_program, fragment_source, fragments, region_text, Fragment};

/// The option sets each fragment is optimized with: a name and the options.
fn variants() -> Vec<(&'static str, Options)> {
    vec![
        ("default", Options::default()),
        (
            "tiles-4",
            Options {
                tiling: Tiling::Sizes(vec![4]),
                ..Options::default()
            },
        ),
        (
            "max-fusion-untiled",
            Options {
                tiling: Tiling::Off,
                fusion: Fusion::Max,
                ..Options::default()
            },
        ),
        (
            "basteln-tiles-4",
            Options {
                strategy: Strategy::Basteln,
                tiling: Tiling::Sizes(vec![4]),
                ..Options::default()
            },
        ),
        (
            "polymage",
            Options {
                strategy: Strategy::Polymage,
                ..Options::default()
            },
        ),
    ]
}

const FLAGS: [&str; 3] = ["-O1", "-fopenmp", "-Wno-unknown-pragmas"];

/// Compiles `source` as `dir/stem.c` and runs it at 1 and 2 threads; both outputs must
/// agree, and the output is returned.
fn build_and_run(source: &str, stem: &str, dir: &Path) -> Result<String, String> {
    let path = dir.join(format!("{stem}.c"));
    let binary = dir.join(stem);
    std::fs::write(&path, source).map_err(|e| e.to_string())?;
    compile(&path, &binary, &FLAGS)?;
    let one = run(&binary, 1)?;
    let two = run(&binary, 2)?;
    if one != two {
        return Err(format!(
            "{stem}: 1 and 2 threads differ: {}",
            first_difference(&one, &two)
        ));
    }
    Ok(one)
}

/// Checks one fragment in every variant; the failures.
fn check_fragment(fragment: &Fragment, dir: &Path) -> Vec<String> {
    let name = &fragment.name;
    let source = fragment_source(name);
    let prepare = || -> Result<String, String> {
        let scop = pollen_frontend::extract(&source)
            .map_err(|e| format!("extraction: {e}"))?
            .scop;
        let region = region_text(&source).ok_or("no region")?;
        fragment_program(region, &scop, &fragment.value_refs())
    };
    let program = match prepare() {
        Ok(p) => p,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let expected = match build_and_run(&program, name, dir) {
        Ok(out) => out,
        Err(e) => return vec![format!("{name} (original): {e}")],
    };
    let mut failures = Vec::new();
    for (variant, options) in variants() {
        let optimized = match optimize_source(&program, &options) {
            Ok(o) => o.text,
            Err(e) => {
                failures.push(format!("{name} ({variant}): pollen: {e}"));
                continue;
            }
        };
        match build_and_run(&optimized, &format!("{name}.{variant}"), dir) {
            Ok(out) if out == expected => {}
            Ok(out) => failures.push(format!(
                "{name} ({variant}): {}",
                first_difference(&expected, &out)
            )),
            Err(e) => failures.push(format!("{name} ({variant}): {e}")),
        }
    }
    failures
}

#[test]
fn optimized_fragments_compute_what_the_originals_compute() {
    require_gcc();
    let dir = scratch("driver-fragments");
    let all = fragments();
    if std::env::var_os("FRAGMENT").is_none() {
        assert!(all.len() >= 40, "only {} fragments", all.len());
    }
    let failures: Vec<String> = all.iter().flat_map(|f| check_fragment(f, &dir)).collect();
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
