//! Helpers shared by the integration tests: compiling a program's C and reading its
//! checksums, comparing them with the interpreter.

use std::path::PathBuf;

use pollen_tensor::{eval, to_c_with, ExprKind, Lowering, Program, Stage, Unary};
use pollen_testkit::cc;

pub fn operators_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/operators")
}

fn uses_erf(p: &Program) -> bool {
    let mut found = false;
    for s in p.stages() {
        if let Stage::Compute(c) = s {
            c.body.walk(&mut |e| {
                if matches!(e.kind, ExprKind::Unary(Unary::Erf, _)) {
                    found = true;
                }
            });
        }
    }
    found
}

/// Compiles and runs the C program of `p` at `sizes` (and again with
/// `-DPOLLEN_SCALAR_SIZES`, which must print the same); the checksums of its `name
/// checksum magnitude` lines.
fn run_c(
    p: &Program,
    name: &str,
    sizes: &[(String, i64)],
    tag: &str,
    lowering: &Lowering,
) -> Result<Vec<(String, f64)>, String> {
    let dir = cc::scratch("tensor-programs");
    let source = dir.join(format!("{name}-{tag}.c"));
    let binary = dir.join(format!("{name}-{tag}"));
    std::fs::write(&source, to_c_with(p, name, lowering)).map_err(|e| e.to_string())?;
    let include = format!("-I{}", operators_dir().display());
    let defines: Vec<String> = sizes.iter().map(|(k, v)| format!("-D{k}={v}")).collect();
    // A padding read in place has an interior nest that sizes this small can leave
    // empty: gcc then infers from the arrays' extents that its loops would read out of
    // bounds, without seeing that their guard never holds, and warns.
    let mut flags = vec![
        "-O2",
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-aggressive-loop-optimizations",
        "-ffp-contract=off",
        &include,
    ];
    flags.extend(defines.iter().map(String::as_str));
    cc::compile(&source, &binary, &flags)?;
    let output = cc::run(&binary, 1)?;
    // The loop bounds as the size arguments instead of the size macros: the same run.
    flags.push("-DPOLLEN_SCALAR_SIZES");
    let scalar = dir.join(format!("{name}-{tag}-scalar-sizes"));
    cc::compile(&source, &scalar, &flags)?;
    let scalar_output = cc::run(&scalar, 1)?;
    if scalar_output != output {
        return Err(format!(
            "with -DPOLLEN_SCALAR_SIZES it prints {scalar_output:?}, without {output:?}"
        ));
    }
    Ok(output
        .lines()
        .filter_map(|l| {
            // `name checksum magnitude`: the checksum.
            let mut words = l.split_whitespace();
            let n = words.next()?;
            Some((n.to_string(), words.next()?.parse().ok()?))
        })
        .collect())
}

/// Compiles and runs `p` at `sizes` and compares every output with the interpreter
/// (exactly unless the program calls `erf`); the differences found.
#[allow(dead_code)] // each test binary includes this module; some call only the variant
pub fn check_against_interpreter(
    p: &Program,
    name: &str,
    sizes: &[(String, i64)],
    tag: &str,
) -> Vec<String> {
    check_lowering_against_interpreter(p, name, sizes, tag, &Lowering::default())
}

/// [`check_against_interpreter`] with the program lowered with `lowering`.
pub fn check_lowering_against_interpreter(
    p: &Program,
    name: &str,
    sizes: &[(String, i64)],
    tag: &str,
    lowering: &Lowering,
) -> Vec<String> {
    let mut failures = Vec::new();
    let exact = !uses_erf(p);
    let overrides: Vec<(&str, i64)> = sizes.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let values = p.sizes(&overrides).expect("sizes");
    let expected = eval::evaluate(p, &values).expect("evaluation");
    let printed = match run_c(p, name, sizes, tag, lowering) {
        Ok(lines) => lines,
        Err(e) => return vec![format!("{name} ({tag}): {e}")],
    };
    let names: Vec<&str> = printed.iter().map(|(n, _)| n.as_str()).collect();
    if names != p.outputs() {
        return vec![format!(
            "{name}: printed {names:?}, outputs {:?}",
            p.outputs()
        )];
    }
    for (out, got) in &printed {
        let want = expected.get(out).expect("an output's values").checksum();
        let ok = if exact {
            *got == want
        } else {
            (got - want).abs() <= 1e-5 * want.abs().max(1.0)
        };
        if !ok {
            failures.push(format!(
                "{name} ({tag}): {out} is {got:?} in C, {want:?} interpreted"
            ));
        }
    }
    failures
}
