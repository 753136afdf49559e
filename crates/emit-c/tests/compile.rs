//! The emitted C compiled and run with gcc: the helper macros against exact integer
//! arithmetic, and gemm printed from hand-built ASTs (the original order, a tiled order
//! with partial tiles, and unrolled-and-jammed loops whose scalar replacement loads each
//! element once) against the original program, at 1 and 2 threads; the scalar
//! replacement's code draws no warning from `gcc -Wall -Wextra`.
//!
//! gcc must be installed: a missing compiler fails these tests with a message saying so.

use std::path::{Path, PathBuf};
use std::process::Command;

use pollen_arith::Int;
use pollen_codegen::{Ast, Expr, Loop};
use pollen_emit_c::{emit, EmitOptions, Helper};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pollen-emit-c-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// Compiles `source` into `binary` with gcc and the given flags.
fn compile(source: &Path, binary: &Path, flags: &[&str]) {
    let output = Command::new("gcc")
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(binary)
        .arg("-lm")
        .output()
        .unwrap_or_else(|e| panic!("cannot run gcc (is it installed?): {e}"));
    assert!(
        output.status.success(),
        "gcc failed on {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs a binary with `threads` OpenMP threads and returns its standard output.
fn run(binary: &Path, threads: u32) -> String {
    let output = Command::new(binary)
        .env("OMP_NUM_THREADS", threads.to_string())
        .output()
        .expect("run the compiled program");
    assert!(output.status.success(), "{} failed", binary.display());
    String::from_utf8(output.stdout).expect("utf-8 output")
}

#[test]
fn helpers_compute_exact_divisions_and_extrema() {
    let helpers = [
        Helper::Floord,
        Helper::Ceild,
        Helper::Mod,
        Helper::Min,
        Helper::Max,
    ];
    let mut program = String::from("#include <stdio.h>\n");
    for h in helpers {
        program.push_str(&h.definition());
        // A second definition is skipped by its guard.
        program.push_str(&h.definition());
    }
    program.push_str(
        "int main(void) {\n  int n, d;\n  for (n = -20; n <= 20; n++)\n    for (d = 1; d <= 7; d++)\n      printf(\"%d %d %d %d %d %d %d\\n\", n, d, pollen_floord(n, d), pollen_ceild(n, d), pollen_mod(n, d), pollen_min(n, d - 3), pollen_max(n, d - 3));\n  return 0;\n}\n",
    );
    let dir = scratch("helpers");
    let source = dir.join("helpers.c");
    let binary = dir.join("helpers");
    std::fs::write(&source, program).unwrap();
    compile(&source, &binary, &["-O1", "-Wall", "-Werror"]);
    let mut expected = String::new();
    for n in -20i64..=20 {
        for d in 1i64..=7 {
            let (ni, di) = (Int::from(n), Int::from(d));
            expected.push_str(&format!(
                "{n} {d} {} {} {} {} {}\n",
                ni.floor_div(&di),
                ni.ceil_div(&di),
                ni.mod_floor(&di),
                n.min(d - 3),
                n.max(d - 3)
            ));
        }
    }
    assert_eq!(run(&binary, 1), expected);
    let _ = std::fs::remove_dir_all(dir);
}

fn int(v: i64) -> Expr {
    Expr::Int(Int::from(v))
}

fn var(name: &str) -> Expr {
    Expr::Var(name.to_string())
}

fn add(terms: Vec<Expr>) -> Expr {
    Expr::Add(terms)
}

fn mul(k: i64, e: Expr) -> Expr {
    Expr::Mul(Int::from(k), Box::new(e))
}

fn for_loop(iterator: &str, lower: Expr, upper: Expr, body: Ast, parallel: bool) -> Ast {
    Ast::For(Loop {
        iterator: iterator.to_string(),
        lower,
        upper,
        stride: Int::one(),
        body: Box::new(body),
        parallel,
        vectorizable: false,
    })
}

/// A loop with stride 2 (serial).
fn by_two(iterator: &str, lower: Expr, upper: Expr, body: Ast) -> Ast {
    match for_loop(iterator, lower, upper, body, false) {
        Ast::For(mut l) => {
            l.stride = Int::from(2);
            Ast::For(l)
        }
        other => other,
    }
}

/// The innermost j loop of gemm's product, vectorisable, running the instances
/// `S1(i, k, j)` for each `(i, k)` of `copies`.
fn j_loop(copies: &[(Expr, Expr)]) -> Ast {
    let body = copies
        .iter()
        .map(|(i, k)| user("S1", vec![i.clone(), k.clone(), var("c2")]))
        .collect();
    match for_loop(
        "c2",
        int(0),
        add(vec![var("_PB_NJ"), int(-1)]),
        Ast::Block(body),
        false,
    ) {
        Ast::For(mut l) => {
            l.vectorizable = true;
            Ast::For(l)
        }
        other => other,
    }
}

fn user(statement: &str, args: Vec<Expr>) -> Ast {
    Ast::User {
        statement: statement.to_string(),
        args,
    }
}

/// The loops over one tile dimension: `t` from 0 to `floor((N - 1) / 8)`, and the point
/// loop `p` from `8t` to `min(N - 1, 8t + 7)`.
fn tile(t: &str, p: &str, n: &str, body: Ast, parallel: bool) -> Ast {
    let n_minus_1 = add(vec![var(n), int(-1)]);
    for_loop(
        t,
        int(0),
        Expr::FloorDiv(Box::new(n_minus_1.clone()), Int::from(8)),
        for_loop(
            p,
            mul(8, var(t)),
            Expr::Min(vec![n_minus_1, add(vec![mul(8, var(t)), int(7)])]),
            body,
            false,
        ),
        parallel,
    )
}

/// gemm with `C *= beta` first for all (i, j), then the product tiled 8x8x8 in
/// (i, j, k) order with the i tile loop parallel.
fn gemm_tiled() -> Ast {
    let scale = for_loop(
        "c0",
        int(0),
        add(vec![var("_PB_NI"), int(-1)]),
        for_loop(
            "c1",
            int(0),
            add(vec![var("_PB_NJ"), int(-1)]),
            user("S0", vec![var("c0"), var("c1")]),
            false,
        ),
        true,
    );
    let product = tile(
        "c0",
        "c3",
        "_PB_NI",
        tile(
            "c1",
            "c4",
            "_PB_NJ",
            tile(
                "c2",
                "c5",
                "_PB_NK",
                user("S1", vec![var("c3"), var("c5"), var("c4")]),
                false,
            ),
            false,
        ),
        true,
    );
    // The tile loops come first, then the point loops: reorder the nest.
    let product = reorder_tiles(product);
    Ast::Block(vec![scale, product])
}

/// Turns `t0 { p0 { t1 { p1 { t2 { p2 { S } } } } } }` into `t0 t1 t2 p0 p1 p2 S`.
fn reorder_tiles(ast: Ast) -> Ast {
    let mut loops = Vec::new();
    let mut node = ast;
    let statement = loop {
        match node {
            Ast::For(mut l) => {
                let body = std::mem::replace(&mut l.body, Box::new(Ast::Block(vec![])));
                loops.push(l);
                node = *body;
            }
            other => break other,
        }
    };
    let order = [0, 2, 4, 1, 3, 5];
    let mut result = statement;
    for &k in order.iter().rev() {
        let mut l = loops[k].clone();
        l.body = Box::new(result);
        result = Ast::For(l);
    }
    result
}

#[test]
fn gemm_from_hand_built_asts_matches_the_original() {
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels");
    let source = std::fs::read_to_string(kernels.join("gemm.c")).unwrap();
    let extracted = pollen_frontend::extract(&source).unwrap();
    let dir = scratch("gemm");
    let include = format!("-I{}", kernels.display());
    let flags = [
        "-O2",
        "-fopenmp",
        "-DPOLLEN_DUMP",
        "-DNI=37",
        "-DNJ=29",
        "-DNK=21",
        include.as_str(),
    ];
    let original = dir.join("original");
    compile(&kernels.join("gemm.c"), &original, &flags);
    let expected = run(&original, 1);
    let options = EmitOptions::default();
    let out = emit(
        &source,
        extracted.region,
        &extracted.scop,
        &gemm_tiled(),
        &options,
    )
    .unwrap();
    assert!(
        out.contains("#pragma omp parallel for private(c1, c2, c3, c4, c5)"),
        "{out}"
    );
    let path = dir.join("gemm-tiled.c");
    std::fs::write(&path, out).unwrap();
    let binary = dir.join("tiled");
    compile(&path, &binary, &flags);
    for threads in [1, 2] {
        assert_eq!(run(&binary, threads), expected, "{threads} threads");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// gemm with `C *= beta` first, then the product in (i, k, j) order with i and k
/// unrolled by 2 and jammed into the j loop, and the remainders of odd sizes:
/// `for (i = 0; i <= NI - 2; i += 2) { for (k = 0; k <= NK - 2; k += 2) for (j)
/// { S1(i, k, j); S1(i + 1, k, j); S1(i, k + 1, j); S1(i + 1, k + 1, j); }
/// for (k = 2 floor(NK / 2); k <= NK - 1; k++) for (j) { S1(i, k, j); S1(i + 1, k, j); } }
/// for (i = 2 floor(NI / 2); i <= NI - 1; i++) for (k) for (j) S1(i, k, j);`
fn gemm_jammed() -> Ast {
    let scale = for_loop(
        "c0",
        int(0),
        add(vec![var("_PB_NI"), int(-1)]),
        for_loop(
            "c1",
            int(0),
            add(vec![var("_PB_NJ"), int(-1)]),
            user("S0", vec![var("c0"), var("c1")]),
            false,
        ),
        true,
    );
    let i = var("c0");
    let i1 = add(vec![var("c0"), int(1)]);
    let k = var("c1");
    let k1 = add(vec![var("c1"), int(1)]);
    let even = |n: &str| mul(2, Expr::FloorDiv(Box::new(var(n)), Int::from(2)));
    let pairs = by_two(
        "c0",
        int(0),
        add(vec![var("_PB_NI"), int(-2)]),
        Ast::Block(vec![
            by_two(
                "c1",
                int(0),
                add(vec![var("_PB_NK"), int(-2)]),
                j_loop(&[
                    (i.clone(), k.clone()),
                    (i1.clone(), k.clone()),
                    (i.clone(), k1.clone()),
                    (i1.clone(), k1),
                ]),
            ),
            for_loop(
                "c1",
                even("_PB_NK"),
                add(vec![var("_PB_NK"), int(-1)]),
                j_loop(&[(i.clone(), k.clone()), (i1, k.clone())]),
                false,
            ),
        ]),
    );
    let pairs = match pairs {
        Ast::For(mut l) => {
            l.parallel = true;
            Ast::For(l)
        }
        other => other,
    };
    let rest = for_loop(
        "c0",
        even("_PB_NI"),
        add(vec![var("_PB_NI"), int(-1)]),
        for_loop(
            "c1",
            int(0),
            add(vec![var("_PB_NK"), int(-1)]),
            j_loop(&[(i, k)]),
            false,
        ),
        true,
    );
    Ast::Block(vec![scale, pairs, rest])
}

/// The warnings of gcc about `source`, except those about the kernel's own iterators,
/// which the generated code replaces and leaves unused.
fn warnings(source: &Path, flags: &[&str]) -> Vec<String> {
    let output = Command::new("gcc")
        .env("LC_ALL", "C")
        .args(flags)
        .args(["-Wall", "-Wextra", "-c", "-o", "/dev/null"])
        .arg(source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run gcc (is it installed?): {e}"));
    assert!(output.status.success(), "gcc rejects {}", source.display());
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|l| l.contains("warning:"))
        .filter(|l| {
            !["i", "j", "k"]
                .iter()
                .any(|v| l.contains(&format!("unused variable '{v}'")))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn jammed_gemm_with_scalar_replacement_matches_the_original() {
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels");
    let source = std::fs::read_to_string(kernels.join("gemm.c")).unwrap();
    let extracted = pollen_frontend::extract(&source).unwrap();
    let dir = scratch("gemm-jammed");
    let include = format!("-I{}", kernels.display());
    let flags = [
        "-O3",
        "-fopenmp",
        "-DPOLLEN_DUMP",
        "-DNI=37",
        "-DNJ=29",
        "-DNK=21",
        include.as_str(),
    ];
    let original = dir.join("original");
    compile(&kernels.join("gemm.c"), &original, &flags);
    let expected = run(&original, 1);
    let out = emit(
        &source,
        extracted.region,
        &extracted.scop,
        &gemm_jammed(),
        &EmitOptions::default(),
    )
    .unwrap();
    // Each element of A once per (i, k) before the j loop, each element of B once per j.
    for load in [
        "const DATA_TYPE t0 = A[c0][c1];",
        "const DATA_TYPE t3 = A[(c0 + 1)][(c1 + 1)];",
        "const DATA_TYPE t4 = B[c1][c2];",
        "const DATA_TYPE t5 = B[(c1 + 1)][c2];",
    ] {
        assert!(out.contains(load), "{load}\n{out}");
    }
    assert!(out.contains("C[(c0 + 1)][c2] += alpha * t3 * t5;"), "{out}");
    let path = dir.join("gemm-jammed.c");
    std::fs::write(&path, &out).unwrap();
    assert_eq!(warnings(&path, &flags), Vec::<String>::new(), "{out}");
    let binary = dir.join("jammed");
    compile(&path, &binary, &flags);
    for threads in [1, 2] {
        assert_eq!(run(&binary, threads), expected, "{threads} threads");
    }
    let _ = std::fs::remove_dir_all(dir);
}
