//! The programs of `examples/tensor/`: each is parsed, lowered to C, compiled with gcc at
//! the two size sets of the manifest and run; every output's checksum must equal the
//! interpreter's (exactly, or within 1e-5 relative for programs that call `erf`).
//! `$TENSOR_PROGRAM` restricts the run to one program.

use std::path::PathBuf;

use pollen_tensor::{parse, to_c_with, to_scop, ExprKind, Lowering, Padding, Program, Stage};
use pollen_testkit::cc;

mod common;

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/tensor")
}

/// Parameter values, `NAME=value`.
type Sizes = Vec<(String, i64)>;

/// `(name, [sizes1, sizes2])` for every line of the manifest.
fn manifest() -> Vec<(String, Vec<Sizes>)> {
    let text = std::fs::read_to_string(examples_dir().join("manifest.txt")).expect("manifest");
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let sizes = words[1..3]
            .iter()
            .map(|set| {
                set.split(',')
                    .map(|kv| {
                        let (k, v) = kv.split_once('=').expect("NAME=value");
                        (k.to_string(), v.parse().expect("an integer size"))
                    })
                    .collect()
            })
            .collect();
        out.push((words[0].to_string(), sizes));
    }
    if let Ok(only) = std::env::var("TENSOR_PROGRAM") {
        out.retain(|(n, _)| *n == only);
    }
    out
}

fn load(name: &str) -> Program {
    let path = examples_dir().join(format!("{name}.te"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    parse(&text).unwrap_or_else(|e| panic!("{name}.te:{e}"))
}

#[test]
fn every_program_matches_the_interpreter_at_both_sizes() {
    cc::require_gcc();
    let programs = manifest();
    assert!(programs.len() >= 15 || std::env::var("TENSOR_PROGRAM").is_ok());
    let mut failures = Vec::new();
    for (name, size_sets) in &programs {
        let p = load(name);
        for (k, sizes) in size_sets.iter().enumerate() {
            failures.extend(common::check_against_interpreter(
                &p,
                name,
                sizes,
                &format!("s{}", k + 1),
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_program_has_a_scop_with_one_statement_per_lowered_statement() {
    for (name, _) in manifest() {
        let p = load(&name);
        let scop = to_scop(&p, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Counted with every padding materialised (read in place, a padding has no
        // statement and its readers two nests each).
        let copied = to_c_with(
            &p,
            &name,
            &Lowering {
                padding: Padding::Copy,
            },
        );
        let copied = pollen_frontend::extract(&copied)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .scop;
        let mut expected = 0;
        for s in p.stages() {
            expected += match s {
                // A box of the border per padded side, then the copy.
                Stage::Pad(pad) => {
                    1 + pad
                        .before
                        .iter()
                        .chain(&pad.after)
                        .filter(|&&w| w > 0)
                        .count()
                }
                Stage::Compute(c) => {
                    let r = c.body.reductions().len();
                    if matches!(c.body.kind, ExprKind::Reduce(_)) {
                        2
                    } else {
                        2 * r + 1
                    }
                }
            };
        }
        assert_eq!(copied.statements.len(), expected, "{name}");
        let params: Vec<String> = p
            .params()
            .iter()
            .map(|x| format!("_PB_{}", x.name))
            .collect();
        assert!(
            scop.params.iter().all(|x| params.contains(x)),
            "{name}: {:?}",
            scop.params
        );
    }
}
