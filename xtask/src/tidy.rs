//! `cargo xtask tidy`: the conventions of the code base that the compiler and clippy do
//! not check.
//!
//! 1. Every Rust file under `crates/` and `xtask/` starts with a `//!` doc saying what it
//!    holds.
//! 2. No test is switched off with an `ignore` attribute, and no lint is silenced for a
//!    whole file or crate with an inner `allow` attribute (in every Rust file of the
//!    workspace, `fuzz/`, `tests/` and `benches/` included).
//! 3. Layering: each library crate depends only on the Pollen crates below it in the
//!    pipeline (`arith` < `presburger` < `scop` < `frontend`, `deps` < `sched` <
//!    `transform`, `search`; `scop` < `codegen` < `emit-text` < `emit-c`, `emit-gpu`;
//!    `codegen`, `deps` < `gpu` < `emit-gpu`; `deps` < `draw`; `frontend` < `tensor`;
//!    every stage < `driver`),
//!    so that `arith` and `presburger` know
//!    nothing about programs and emitters make no Presburger calls. Tests may also run the
//!    earlier stages of the pipeline (`[dev-dependencies]`).
//! 4. No floating point in the library crates before the emitters: the words `f32` and
//!    `f64` do not occur in their code (the tensor front end excepted: its programs
//!    compute in floating point).
//!
//! Checks 2 and 4 look at code only: the text of `//` comments is skipped, so that docs
//! may talk about what is forbidden.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// One broken rule at one place.
#[derive(Debug, PartialEq, Eq)]
struct Violation {
    path: PathBuf,
    line: usize,
    message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// The directories whose Rust files are checked, relative to the root.
const RUST_DIRS: &[&str] = &["crates", "xtask", "fuzz", "tests", "benches"];
/// The directories whose Rust files must start with a `//!` doc.
const DOC_DIRS: &[&str] = &["crates", "xtask"];
/// One library crate's place in the layering: the Pollen crates it may depend on (itself
/// included: a crate may enable its own features for its tests) and those its tests may
/// use besides. Every crate listed here is also free of floating point unless it is
/// marked `floats` (a front end whose programs compute in floating point).
struct Layer {
    dir: &'static str,
    dependencies: &'static [&'static str],
    dev_dependencies: &'static [&'static str],
    floats: bool,
}

const ARITH: &[&str] = &["pollen-arith"];
const PRESBURGER: &[&str] = &["pollen-presburger", "pollen-arith"];
const SCOP: &[&str] = &["pollen-scop", "pollen-presburger", "pollen-arith"];
const FRONTEND: &[&str] = &[
    "pollen-frontend",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];
const DEPS: &[&str] = &[
    "pollen-deps",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];
const SCHED: &[&str] = &[
    "pollen-sched",
    "pollen-deps",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];

const CODEGEN: &[&str] = &[
    "pollen-codegen",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];
const TRANSFORM: &[&str] = &[
    "pollen-transform",
    "pollen-sched",
    "pollen-deps",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];
/// The C text both emitters print: tokens, comments, names, quasi-affine expressions.
const EMIT_TEXT: &[&str] = &["pollen-emit-text", "pollen-codegen", "pollen-arith"];
const EMIT_C: &[&str] = &[
    "pollen-emit-c",
    "pollen-emit-text",
    "pollen-codegen",
    "pollen-scop",
    "pollen-arith",
];

/// The GPU mapping: above code generation (it maps the loops of the AST) and the
/// dependence analysis (its checker replays them).
const GPU: &[&str] = &[
    "pollen-gpu",
    "pollen-codegen",
    "pollen-deps",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];

/// The OpenCL and CUDA printers: a GPU mapping's kernels and host code, no Presburger
/// calls.
const EMIT_GPU: &[&str] = &[
    "pollen-emit-gpu",
    "pollen-emit-text",
    "pollen-gpu",
    "pollen-codegen",
    "pollen-scop",
    "pollen-arith",
];

/// The interleaving search spaces: above the scheduler, whose Farkas linearisation the
/// fusion test uses.
const SEARCH: &[&str] = &[
    "pollen-search",
    "pollen-sched",
    "pollen-deps",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];

/// The driver: the whole pipeline, above every stage.
const DRIVER: &[&str] = &[
    "pollen-driver",
    "pollen-emit-c",
    "pollen-emit-gpu",
    "pollen-gpu",
    "pollen-codegen",
    "pollen-transform",
    "pollen-sched",
    "pollen-deps",
    "pollen-frontend",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];

/// The pictures of `pollen explain`: sets, dependences, schedules and trees, drawn.
const DRAW: &[&str] = &[
    "pollen-draw",
    "pollen-deps",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];

/// The test support crate: a dev-dependency of the others, above the scheduler.
const TESTKIT: &[&str] = &[
    "pollen-testkit",
    "pollen-frontend",
    "pollen-deps",
    "pollen-sched",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];

/// The tensor-expression front end: above the C frontend, whose scops it gives.
const TENSOR: &[&str] = &[
    "pollen-tensor",
    "pollen-frontend",
    "pollen-scop",
    "pollen-presburger",
    "pollen-arith",
];

const LAYERS: &[Layer] = &[
    Layer {
        dir: "crates/arith",
        dependencies: ARITH,
        dev_dependencies: &[],
        floats: false,
    },
    Layer {
        dir: "crates/presburger",
        dependencies: PRESBURGER,
        dev_dependencies: &[],
        floats: false,
    },
    Layer {
        dir: "crates/scop",
        dependencies: SCOP,
        dev_dependencies: &[],
        floats: false,
    },
    Layer {
        dir: "crates/frontend",
        dependencies: FRONTEND,
        dev_dependencies: &[],
        floats: false,
    },
    Layer {
        dir: "crates/deps",
        dependencies: DEPS,
        dev_dependencies: &["pollen-frontend", "pollen-testkit"],
        floats: false,
    },
    Layer {
        dir: "crates/sched",
        dependencies: SCHED,
        dev_dependencies: &["pollen-frontend", "pollen-testkit"],
        floats: false,
    },
    Layer {
        dir: "crates/transform",
        dependencies: TRANSFORM,
        dev_dependencies: &["pollen-frontend", "pollen-codegen", "pollen-testkit"],
        floats: false,
    },
    Layer {
        dir: "crates/codegen",
        dependencies: CODEGEN,
        dev_dependencies: &[
            "pollen-frontend",
            "pollen-deps",
            "pollen-sched",
            "pollen-transform",
            "pollen-testkit",
        ],
        floats: false,
    },
    Layer {
        dir: "crates/emit-text",
        dependencies: EMIT_TEXT,
        dev_dependencies: &[],
        floats: false,
    },
    Layer {
        dir: "crates/emit-c",
        dependencies: EMIT_C,
        dev_dependencies: &[
            "pollen-frontend",
            "pollen-deps",
            "pollen-sched",
            "pollen-transform",
            "pollen-presburger",
        ],
        floats: false,
    },
    Layer {
        dir: "crates/gpu",
        dependencies: GPU,
        dev_dependencies: &[
            "pollen-frontend",
            "pollen-sched",
            "pollen-transform",
            "pollen-testkit",
        ],
        floats: false,
    },
    Layer {
        dir: "crates/emit-gpu",
        dependencies: EMIT_GPU,
        dev_dependencies: &[
            "pollen-frontend",
            "pollen-deps",
            "pollen-sched",
            "pollen-transform",
            "pollen-testkit",
        ],
        floats: false,
    },
    Layer {
        dir: "crates/search",
        dependencies: SEARCH,
        dev_dependencies: &["pollen-frontend"],
        floats: false,
    },
    Layer {
        dir: "crates/driver",
        dependencies: DRIVER,
        dev_dependencies: &["pollen-testkit"],
        floats: false,
    },
    Layer {
        dir: "crates/draw",
        dependencies: DRAW,
        dev_dependencies: &["pollen-frontend", "pollen-transform", "pollen-testkit"],
        floats: false,
    },
    Layer {
        dir: "crates/testkit",
        dependencies: TESTKIT,
        dev_dependencies: &[],
        floats: false,
    },
    Layer {
        dir: "crates/tensor",
        dependencies: TENSOR,
        dev_dependencies: &["pollen-testkit"],
        floats: true,
    },
];

/// Runs every check on the workspace at `root`.
pub fn run(root: &Path) -> Result<()> {
    let mut violations = Vec::new();
    for dir in RUST_DIRS {
        let needs_doc = DOC_DIRS.contains(dir);
        for path in rust_files(&root.join(dir))? {
            let text = fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            if needs_doc {
                violations.extend(check_file_doc(&rel, &text));
            }
            violations.extend(check_attributes(&rel, &text));
        }
    }
    for layer in LAYERS {
        let crate_dir = root.join(layer.dir);
        let manifest = crate_dir.join("Cargo.toml");
        if let Ok(text) = fs::read_to_string(&manifest) {
            let rel = manifest.strip_prefix(root).unwrap_or(&manifest);
            violations.extend(check_dependencies(rel, &text, layer));
        }
        if layer.floats {
            continue;
        }
        for path in rust_files(&crate_dir)? {
            let text = fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let rel = path.strip_prefix(root).unwrap_or(&path);
            violations.extend(check_no_float(rel, &text));
        }
    }
    for v in &violations {
        eprintln!("{v}");
    }
    if !violations.is_empty() {
        bail!("tidy found {} problem(s)", violations.len());
    }
    println!("tidy: ok");
    Ok(())
}

/// The `.rs` files below `dir`, sorted, skipping `target` and hidden directories; none
/// when `dir` does not exist.
fn rust_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    if dir.is_dir() {
        collect_rust_files(dir, &mut files)?;
    }
    files.sort();
    Ok(files)
}

fn collect_rust_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if entry.file_type()?.is_dir() {
            if name != "target" && !name.starts_with('.') {
                collect_rust_files(&path, files)?;
            }
        } else if name.ends_with(".rs") {
            files.push(path);
        }
    }
    Ok(())
}

/// Rule 1: the file starts with a `//!` line.
fn check_file_doc(path: &Path, text: &str) -> Option<Violation> {
    if text.starts_with("//!") {
        None
    } else {
        Some(Violation {
            path: path.to_path_buf(),
            line: 1,
            message: "a Rust file starts with a `//!` doc saying what it holds".into(),
        })
    }
}

/// The code of a line, without a trailing `//` comment.
fn code_of(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// Rule 2: no `ignore` attribute, no inner `allow` attribute.
fn check_attributes(path: &Path, text: &str) -> Vec<Violation> {
    // Spelled in pieces so that this file passes its own check.
    let ignore = concat!("#[", "ignore");
    let inner_allow = concat!("#!", "[allow");
    let mut violations = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code: String = code_of(line).split_whitespace().collect();
        let message = if code.contains(ignore) {
            "tests are not switched off with an ignore attribute: fix them or delete them"
        } else if code.contains(inner_allow) {
            "no file- or crate-wide allow attributes: fix the lint, or allow it on one item with a reason"
        } else {
            continue;
        };
        violations.push(Violation {
            path: path.to_path_buf(),
            line: i + 1,
            message: message.into(),
        });
    }
    violations
}

/// Rule 4: the words `f32` and `f64` do not occur in code.
fn check_no_float(path: &Path, text: &str) -> Vec<Violation> {
    let mut violations = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = code_of(line);
        for word in ["f32", "f64"] {
            if contains_word(code, word) {
                violations.push(Violation {
                    path: path.to_path_buf(),
                    line: i + 1,
                    message: format!("no floating point (`{word}`) in the exact arithmetic crates"),
                });
            }
        }
    }
    violations
}

/// Whether `word` occurs in `text` not preceded by a letter or `_` (a number suffix such
/// as `1.0f64` counts) and not followed by an identifier character.
fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphabetic() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Rule 3: every dependency on a Pollen crate (by name, by `package =` rename or by
/// `path`) is allowed by the crate's layer.
fn check_dependencies(path: &Path, manifest: &str, layer: &Layer) -> Vec<Violation> {
    let mut violations = Vec::new();
    for dep in dependencies(manifest) {
        let pollen_name = dep.name.starts_with("pollen")
            || dep.value.contains("package = \"pollen")
            || dep.value.contains("path");
        let allowed = layer.dependencies.contains(&dep.name.as_str())
            || (dep.dev && layer.dev_dependencies.contains(&dep.name.as_str()));
        if pollen_name && !allowed {
            let mut names: Vec<&str> = layer.dependencies.to_vec();
            if dep.dev {
                names.extend(layer.dev_dependencies);
            }
            violations.push(Violation {
                path: path.to_path_buf(),
                line: dep.line,
                message: format!(
                    "no dependency on `{}` here: {} sits below it in the layering \
                     (allowed Pollen dependencies: {})",
                    dep.name,
                    layer.dir,
                    names.join(", ")
                ),
            });
        }
    }
    violations
}

/// A dependency entry of a manifest.
struct Dependency {
    name: String,
    value: String,
    line: usize,
    /// Whether it is in a `dev-dependencies` table.
    dev: bool,
}

/// The dependency entries of all dependency tables of a manifest, read line by line:
/// `name = ...` lines inside `[*dependencies]` tables and `[*dependencies.name]` tables.
fn dependencies(manifest: &str) -> Vec<Dependency> {
    let mut deps: Vec<Dependency> = Vec::new();
    let mut in_table = false;
    let mut in_dep_table = false;
    let mut dev = false;
    for (i, raw) in manifest.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            let header = line.trim_matches(|c| c == '[' || c == ']').trim();
            in_table = header.ends_with("dependencies");
            in_dep_table = false;
            dev = header.contains("dev-dependencies");
            if let Some((table, name)) = header.rsplit_once('.') {
                if table.ends_with("dependencies") && !in_table {
                    in_dep_table = true;
                    deps.push(Dependency {
                        name: name.trim().trim_matches('"').to_string(),
                        value: String::new(),
                        line: i + 1,
                        dev,
                    });
                }
            }
        } else if in_dep_table {
            if let Some(dep) = deps.last_mut() {
                dep.value.push_str(line);
                dep.value.push('\n');
            }
        } else if in_table {
            if let Some((name, value)) = line.split_once('=') {
                let name = name.trim();
                let name = name.split('.').next().unwrap_or(name).trim_matches('"');
                deps.push(Dependency {
                    name: name.to_string(),
                    value: value.trim().to_string(),
                    line: i + 1,
                    dev,
                });
            }
        }
    }
    deps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("f.rs")
    }

    #[test]
    fn file_doc_is_required() {
        assert!(check_file_doc(p(), "//! Does things.\nfn f() {}\n").is_none());
        assert!(check_file_doc(p(), "// Not a doc.\n").is_some());
        assert!(check_file_doc(p(), "\n//! Late.\n").is_some());
    }

    #[test]
    fn ignore_and_inner_allow_are_refused() {
        let ignored = format!("#[test]\n{}]\nfn t() {{}}\n", concat!("#[", "ignore"));
        let v = check_attributes(p(), &ignored);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].line, 2);
        let ignored_reason = format!("{} = \"slow\"]\n", concat!("#[", "ignore"));
        assert_eq!(check_attributes(p(), &ignored_reason).len(), 1);
        let allowed = format!("{}(dead_code)]\n", concat!("#!", "[allow"));
        assert_eq!(check_attributes(p(), &allowed).len(), 1);
        let spaced = format!("{} (dead_code)]\n", concat!("#! ", "[allow"));
        assert_eq!(check_attributes(p(), &spaced).len(), 1);
    }

    #[test]
    fn comments_and_item_allows_are_fine() {
        let text = format!(
            "// never use {}] here\n#[allow(clippy::too_many_arguments)] // reason\nfn f() {{}}\n",
            concat!("#[", "ignore")
        );
        assert!(check_attributes(p(), &text).is_empty());
    }

    #[test]
    fn floats_are_found_in_code_only() {
        assert_eq!(check_no_float(p(), "let x: f64 = 1.0;\n").len(), 1);
        assert_eq!(check_no_float(p(), "let x = 1.0f32;\n").len(), 1);
        assert_eq!(check_no_float(p(), "fn g(v: Vec<f32>) {}\n").len(), 1);
        assert!(check_no_float(p(), "// no f64 here\n").is_empty());
        assert!(check_no_float(p(), "let f64x = 1; let xf64 = 2; let f_f64 = 3;\n").is_empty());
    }

    #[test]
    fn core_crates_depend_on_core_crates_only() {
        let manifest = r#"
[package]
name = "pollen-presburger"

[dependencies]
pollen-arith.workspace = true
quickcheck = { workspace = true, optional = true }
pollen-scop = { path = "../scop" }

[dev-dependencies]
quickcheck.workspace = true
pollen-presburger = { path = ".", features = ["fuzzing"] }

[dev-dependencies.pollen-codegen]
path = "../codegen"

[target.'cfg(unix)'.dependencies]
renamed = { package = "pollen-deps", version = "0.1" }
"#;
        let v = check_dependencies(
            Path::new("crates/presburger/Cargo.toml"),
            manifest,
            &LAYERS[1],
        );
        let names: Vec<usize> = v.iter().map(|v| v.line).collect();
        assert_eq!(names, vec![8, 14, 18], "{v:?}");
        assert!(v[0].message.contains("pollen-scop"));
    }

    #[test]
    fn tests_may_read_kernels_through_the_frontend() {
        let manifest = r#"
[dependencies]
pollen-scop.workspace = true
pollen-frontend.workspace = true

[dev-dependencies]
pollen-frontend.workspace = true
pollen-sched.workspace = true
"#;
        let deps = LAYERS.iter().find(|l| l.dir == "crates/deps").unwrap();
        let v = check_dependencies(Path::new("crates/deps/Cargo.toml"), manifest, deps);
        let lines: Vec<usize> = v.iter().map(|v| v.line).collect();
        assert_eq!(lines, vec![4, 8], "{v:?}");
    }

    #[test]
    fn words_have_boundaries() {
        assert!(contains_word("a f64", "f64"));
        assert!(contains_word("<f64>", "f64"));
        assert!(contains_word("2f64", "f64"));
        assert!(!contains_word("af64", "f64"));
        assert!(!contains_word("f641", "f64"));
    }
}
