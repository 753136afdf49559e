//! Hand-built schedule trees over small programs: strides, tiles, interleavings,
//! statements the tree leaves unordered, extension nodes, options and errors.

use pollen_codegen::{generate, interp, Ast, ContextUse, Error, Options};
use pollen_presburger::text::{parse_union_map, parse_union_set};
use pollen_scop::{Band, Node, ScheduleTree, Scop};

use crate::common::{check, shape};

/// The scop of a C loop nest whose undeclared bound names become parameters.
fn scop_of(body: &str) -> Scop {
    let src = format!("void kernel(void)\n{{\n  int i, j, k;\n  double A[100][100];\n#pragma scop\n{body}\n#pragma endscop\n}}\n");
    pollen_frontend::extract(&src).expect("extraction").scop
}

/// A band node.
fn band(schedule: &str, coincident: &[bool], child: Node) -> Node {
    Node::Band(Band {
        schedule: parse_union_map(schedule).expect("band schedule"),
        permutable: true,
        coincident: coincident.to_vec(),
        child: Box::new(child),
    })
}

/// A tree over the scop's domains.
fn tree(scop: &Scop, child: Node) -> ScheduleTree {
    ScheduleTree {
        root: Node::Domain {
            domain: scop.domains().expect("domains"),
            child: Box::new(child),
        },
    }
}

/// Generates with the default options and checks at a few parameter values.
fn generate_checked(scop: &Scop, tree: &ScheduleTree, values: &[i64]) -> Ast {
    let ast = generate(scop, tree, &Options::default()).expect("generation");
    if std::env::var("SHOW").is_ok() {
        eprintln!("{ast}");
    }
    for &v in values {
        let params: Vec<(String, i64)> = scop.params.iter().map(|p| (p.clone(), v)).collect();
        check(tree, &ast, &params).unwrap_or_else(|e| panic!("{e}\n{ast}"));
    }
    ast
}

#[test]
fn a_stride_from_a_scaled_schedule() {
    let s = scop_of("for (i = 0; i < N; i++)\n  A[i][0] = 0;");
    let t = tree(
        &s,
        band("[N] -> { S0[i] -> [2i + 1] }", &[true], Node::Leaf),
    );
    let ast = generate_checked(&s, &t, &[0, 1, 5, 8]);
    let text = ast.to_string();
    assert_eq!(shape(&ast).guards, 0, "{text}");
    assert!(text.contains("c0 += 2"), "{text}");
    assert!(text.contains("for (c0 = 1;"), "{text}");
}

#[test]
fn interleaved_residue_classes() {
    let s = scop_of("for (i = 0; i < N; i++) {\n  A[i][0] = 0;\n  A[i][1] = 1;\n}");
    let t = tree(
        &s,
        band(
            "[N] -> { S0[i] -> [2i]; S1[i] -> [2i + 1] }",
            &[false],
            Node::Leaf,
        ),
    );
    generate_checked(&s, &t, &[0, 1, 4, 7]);
    let t = tree(
        &s,
        band(
            "[N] -> { S0[i] -> [3i]; S1[i] -> [3N - 3i] }",
            &[false],
            Node::Leaf,
        ),
    );
    generate_checked(&s, &t, &[0, 1, 4, 7]);
}

#[test]
fn tiles_with_partial_tiles() {
    let s = scop_of("for (i = 0; i < N; i++)\n  for (j = 0; j < M; j++)\n    A[i][j] = 0;");
    let point = band(
        "[N, M] -> { S0[i, j] -> [i, j] }",
        &[true, true],
        Node::Leaf,
    );
    let t = tree(
        &s,
        band(
            "[N, M] -> { S0[i, j] -> [floor(i/4), floor(j/4)] }",
            &[true, true],
            point,
        ),
    );
    let ast = generate_checked(&s, &t, &[0, 3, 4, 9]);
    let text = ast.to_string();
    assert_eq!(shape(&ast).guards, 0, "{text}");
    assert_eq!(shape(&ast).loops, 4, "{text}");
    assert!(text.contains("c0 <= floord(N - 1, 4)"), "{text}");
    assert!(
        text.contains("for (c2 = 4 * c0; c2 <= min(N - 1, 4 * c0 + 3); c2++)"),
        "{text}"
    );
}

#[test]
fn a_triangular_tile() {
    let s = scop_of("for (i = 0; i < N; i++)\n  for (j = 0; j <= i; j++)\n    A[i][j] = 0;");
    let point = band("[N] -> { S0[i, j] -> [i, j] }", &[true, true], Node::Leaf);
    let t = tree(
        &s,
        band(
            "[N] -> { S0[i, j] -> [floor(i/3), floor(j/3)] }",
            &[true, true],
            point,
        ),
    );
    let ast = generate_checked(&s, &t, &[0, 1, 5, 7, 10]);
    assert_eq!(shape(&ast).guards, 0, "{ast}");
}

#[test]
fn unordered_instances_get_loops_over_their_iterators() {
    let s = scop_of("for (i = 0; i < N; i++)\n  for (j = i; j < N; j++)\n    A[i][j] = 0;");
    let t = tree(&s, Node::Leaf);
    let ast = generate_checked(&s, &t, &[0, 1, 4]);
    assert_eq!(shape(&ast).loops, 2, "{ast}");
    // Half-scheduled: the band orders j only, i is scanned inside.
    let t = tree(&s, band("[N] -> { S0[i, j] -> [j] }", &[false], Node::Leaf));
    let ast = generate_checked(&s, &t, &[0, 1, 4]);
    assert_eq!(shape(&ast).loops, 2, "{ast}");
}

#[test]
fn an_extension_adds_instances_after_its_prefix() {
    let s = scop_of("for (i = 0; i < N; i++)\n  A[i][0] = 0;");
    let extension = Node::Extension {
        extension: parse_union_map("[N] -> { [i, p] -> C[i] : p = 0 }").expect("extension"),
        child: Box::new(Node::Sequence(vec![
            Node::filter(
                parse_union_set("[N] -> { S0[i] }").expect("filter"),
                Node::Leaf,
            ),
            Node::filter(
                parse_union_set("[N] -> { C[i] }").expect("filter"),
                Node::Leaf,
            ),
        ])),
    };
    // The prefix seen by the extension is [i, 0]: the band, then the outer sequence's
    // first position.
    let t = tree(
        &s,
        band(
            "[N] -> { S0[i] -> [i] }",
            &[false],
            Node::Sequence(vec![Node::filter(
                parse_union_set("[N] -> { S0[i] }").expect("filter"),
                extension,
            )]),
        ),
    );
    let ast = generate(&s, &t, &Options::default()).expect("generation");
    let trace = interp::interpret(&ast, &[("N".into(), 3)]).expect("run");
    let expected: Vec<(String, Vec<i64>)> = (0..3)
        .flat_map(|i| [("S0".to_string(), vec![i]), ("C".to_string(), vec![i])])
        .collect();
    assert_eq!(trace, expected, "{ast}");
}

#[test]
fn context_use() {
    let s = scop_of("for (i = 0; i < N; i++)\n  for (j = 0; j < M; j++)\n    A[i][j] = 0;");
    // No statement runs outside the context: no guard in any mode.
    for mode in [ContextUse::Guard, ContextUse::Assume, ContextUse::Ignore] {
        let options = Options {
            context: mode,
            ..Options::default()
        };
        let ast = generate(&s, &s.schedule, &options).expect("generation");
        assert_eq!(shape(&ast).guards, 0, "{mode:?}\n{ast}");
    }
    // A statement outside any loop runs only when its loop-free condition holds.
    let s = scop_of("for (i = 0; i < N; i++)\n  A[i][0] = 0;\nif (N >= 3)\n  A[0][1] = 1;");
    let guard = generate(&s, &s.schedule, &Options::default()).expect("generation");
    let assume = Options {
        context: ContextUse::Assume,
        ..Options::default()
    };
    let assumed = generate(&s, &s.schedule, &assume).expect("generation");
    for n in [0, 2, 3, 5] {
        let values = [("N".to_string(), n)];
        check(&s.schedule, &guard, &values).unwrap_or_else(|e| panic!("{e}\n{guard}"));
        if n >= 1 {
            check(&s.schedule, &assumed, &values).unwrap_or_else(|e| panic!("{e}\n{assumed}"));
        }
    }
}

#[test]
fn iterators_avoid_the_names_of_the_scop() {
    let s = scop_of("for (i = 0; i < c0; i++)\n  A[i][0] = c1;");
    let ast = generate(&s, &s.schedule, &Options::default()).expect("generation");
    let Ast::For(l) = &ast else {
        panic!("expected a loop:\n{ast}")
    };
    assert!(!l.iterator.starts_with('c'), "{ast}");
    let values = [("c0".to_string(), 4)];
    check(&s.schedule, &ast, &values).unwrap_or_else(|e| panic!("{e}\n{ast}"));
}

#[test]
fn errors_are_typed_not_panics() {
    let s = scop_of("for (i = 0; i < N; i++)\n  A[i][0] = 0;");
    let no_root = ScheduleTree { root: Node::Leaf };
    assert!(matches!(
        generate(&s, &no_root, &Options::default()),
        Err(Error::InvalidTree(_))
    ));
    let wrong = tree(&s, band("[N] -> { T[i] -> [i] }", &[false], Node::Leaf));
    assert!(matches!(
        generate(&s, &wrong, &Options::default()),
        Err(Error::InvalidTree(_))
    ));
    let unbounded = tree(&s, band("[N] -> { S0[i] -> [i] }", &[false], Node::Leaf));
    let s2 = scop_of("for (i = 0; i < N; i++)\n  A[i][0] = 0;");
    assert!(generate(&s2, &unbounded, &Options::default()).is_ok());
    let tiny = Options {
        budget: Some(3),
        ..Options::default()
    };
    let gemm = crate::common::scop("gemm");
    assert_eq!(
        generate(&gemm, &gemm.schedule, &tiny),
        Err(Error::LimitExceeded)
    );
}

#[test]
fn unrolling_keeps_the_trace() {
    let s = scop_of("for (i = 0; i < N; i++)\n  for (j = 0; j < 3; j++)\n    A[i][j] = 0;");
    let options = Options {
        unroll: Some(4),
        ..Options::default()
    };
    let unrolled = generate(&s, &s.schedule, &options).expect("generation");
    assert_eq!(shape(&unrolled).loops, 1, "{unrolled}");
    assert_eq!(shape(&unrolled).calls, 3, "{unrolled}");
    for n in [0, 1, 5] {
        check(&s.schedule, &unrolled, &[("N".to_string(), n)]).unwrap_or_else(|e| panic!("{e}"));
    }
    // Tiles that divide the domain exactly have constant point loops.
    let s = scop_of("for (i = 0; i < 4 * N; i++)\n  A[i][0] = 0;");
    let point = band("[N] -> { S0[i] -> [i] }", &[true], Node::Leaf);
    let t = tree(&s, band("[N] -> { S0[i] -> [floor(i/4)] }", &[true], point));
    let plain = generate(&s, &t, &Options::default()).expect("generation");
    let unrolled = generate(&s, &t, &options).expect("generation");
    assert_eq!(
        (shape(&plain).loops, shape(&unrolled).loops),
        (2, 1),
        "{plain}\n{unrolled}"
    );
    for n in [0, 1, 3] {
        let values = [("N".to_string(), n)];
        assert_eq!(
            interp::interpret(&plain, &values).expect("run"),
            interp::interpret(&unrolled, &values).expect("run"),
            "{unrolled}"
        );
    }
}

/// The loops of an AST, outermost first.
fn loops(ast: &Ast) -> Vec<&pollen_codegen::Loop> {
    match ast {
        Ast::Block(v) => v.iter().flat_map(loops).collect(),
        Ast::For(l) => std::iter::once(l).chain(loops(&l.body)).collect(),
        Ast::If {
            then, otherwise, ..
        } => loops(then)
            .into_iter()
            .chain(otherwise.iter().flat_map(|o| loops(o)))
            .collect(),
        Ast::User { .. } => Vec::new(),
    }
}

#[test]
fn a_wavefront_runs_no_single_iteration_loop() {
    // On the wavefront c0 = i + j, the diagonal S1 has c1 = c0 / 2: one value for even
    // c0, none for odd c0 — a guard, not a (parallel) loop.
    let s = scop_of(
        "for (i = 0; i < N; i++) {\n  for (j = 0; j < i; j++)\n    A[i][j] = 0;\n  A[i][i] = 1;\n}",
    );
    let t = tree(
        &s,
        band(
            "[N] -> { S0[i, j] -> [i + j, j]; S1[i] -> [2i, i] }",
            &[false, true],
            Node::Leaf,
        ),
    );
    let ast = generate_checked(&s, &t, &[0, 1, 2, 5, 8]);
    // Before: a loop over c1 from ceild(c0, 2) to floord(c0, 2) around S1.
    let all = loops(&ast);
    let names: Vec<&str> = all.iter().map(|l| l.iterator.as_str()).collect();
    assert_eq!(names, ["c0", "c1"], "{ast}");
    assert!(
        matches!(&*all[1].body, Ast::User { statement, .. } if statement == "S0"),
        "{ast}"
    );
    assert!(all[1].parallel, "{ast}");
    assert!(ast.to_string().contains("if ("), "{ast}");
}
