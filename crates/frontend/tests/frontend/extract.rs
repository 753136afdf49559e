//! Table tests of extraction: the statements, domains and accesses of small snippets,
//! compared semantically with hand-written isl text.

use pollen_scop::{AccessKind, Node};

use crate::common::{assert_accesses, assert_map, assert_set, extracted, scop, wrap};

use AccessKind::{Read, Write};

#[test]
fn a_loop_nest_with_reads_and_writes() {
    let src = wrap(
        "  int i, j;\n  double A[N][M + 1], x;",
        "for (i = 0; i < N; i++)\n  for (j = 0; j < M; j++)\n    A[i][j] = A[i][j + 1] * x + 1.0;",
    );
    let s = scop(&src);
    assert_eq!(s.params, ["N", "M"]);
    assert_eq!(s.statements.len(), 1);
    let st = &s.statements[0];
    assert_eq!(st.name, "S0");
    assert_eq!(st.iterators, ["i", "j"]);
    assert_eq!(st.body, "A[i][j] = A[i][j + 1] * x + 1.0;");
    assert_set(
        &st.domain,
        "[N, M] -> { S0[i, j] : 0 <= i < N and 0 <= j < M }",
    );
    assert_accesses(
        &s,
        "S0",
        &[
            (Read, "[N, M] -> { S0[i, j] -> A[i, j + 1] }"),
            (Read, "[N, M] -> { S0[i, j] -> x[] }"),
            (Write, "[N, M] -> { S0[i, j] -> A[i, j] }"),
        ],
    );
    let arrays: Vec<(&str, &str, Vec<&str>)> = s
        .arrays
        .iter()
        .map(|a| {
            (
                a.name.as_str(),
                a.element_type.as_str(),
                a.extents.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        arrays,
        [("A", "double", vec!["N", "M + 1"]), ("x", "double", vec![])]
    );
}

#[test]
fn compound_assignments_read_their_target_first() {
    let src = wrap(
        "int i; float a[10], b[10], s;",
        "for (i = 0; i < 10; i++) { a[i] += b[i] * s; s *= 2; }",
    );
    let s = scop(&src);
    assert_accesses(
        &s,
        "S0",
        &[
            (Read, "{ S0[i] -> a[i] }"),
            (Read, "{ S0[i] -> b[i] }"),
            (Read, "{ S0[i] -> s[] }"),
            (Write, "{ S0[i] -> a[i] }"),
        ],
    );
    assert_accesses(
        &s,
        "S1",
        &[(Read, "{ S1[i] -> s[] }"), (Write, "{ S1[i] -> s[] }")],
    );
}

#[test]
fn calls_casts_ternaries_and_macros_on_the_right() {
    let src = "#include <math.h>\n#define max_score(a, b) ((a) >= (b) ? (a) : (b))\nstatic void k(int n, DATA_TYPE alpha, DATA_TYPE POLYBENCH_2D(T, N, N, n, n), base POLYBENCH_1D(seq, N, n))\n{\n  int i, j;\n  DATA_TYPE t;\n#pragma scop\n  for (i = 0; i < _PB_N; i++)\n    for (j = 0; j < _PB_N; j++) {\n      T[i][j] = max_score(T[i][j], SQRT_FUN(T[j][i]) + (DATA_TYPE)_PB_N / seq[j]);\n      t = alpha > 0 ? pow(T[i][i], 2.0) : (double) i * SCALAR_VAL(1.5);\n    }\n#pragma endscop\n}\n";
    let s = scop(src);
    assert_eq!(s.params, ["_PB_N"]);
    assert_accesses(
        &s,
        "S0",
        &[
            (Read, "[_PB_N] -> { S0[i, j] -> T[i, j] }"),
            (Read, "[_PB_N] -> { S0[i, j] -> T[j, i] }"),
            (Read, "[_PB_N] -> { S0[i, j] -> seq[j] }"),
            (Write, "[_PB_N] -> { S0[i, j] -> T[i, j] }"),
        ],
    );
    assert_accesses(
        &s,
        "S1",
        &[
            (Read, "[_PB_N] -> { S1[i, j] -> alpha[] }"),
            (Read, "[_PB_N] -> { S1[i, j] -> T[i, i] }"),
            (Write, "[_PB_N] -> { S1[i, j] -> t[] }"),
        ],
    );
    let t = s.array("T").expect("T");
    assert_eq!(
        (t.element_type.as_str(), t.extents.clone()),
        ("DATA_TYPE", vec!["N".to_string(), "N".to_string()])
    );
    assert_eq!(s.array("seq").expect("seq").element_type, "base");
}

#[test]
fn chained_assignments_write_every_target() {
    let s = scop(&wrap("double a, b, k;", "a = b = k;"));
    assert_accesses(
        &s,
        "S0",
        &[
            (Read, "{ S0[] -> k[] }"),
            (Write, "{ S0[] -> b[] }"),
            (Write, "{ S0[] -> a[] }"),
        ],
    );
}

#[test]
fn increments_as_statements() {
    let s = scop(&wrap("int c; int i;", "for (i = 0; i < 4; i++) c++;"));
    assert_accesses(
        &s,
        "S0",
        &[(Read, "{ S0[i] -> c[] }"), (Write, "{ S0[i] -> c[] }")],
    );
}

#[test]
fn decreasing_loops() {
    let s = scop(&wrap(
        "int i, j; double A[N];",
        "for (i = N - 1; i >= 0; i--)\n  for (j = i; j > i - 3; --j)\n    A[i] = A[j];",
    ));
    assert_set(
        &s.statements[0].domain,
        "[N] -> { S0[i, j] : 0 <= i < N and i - 3 < j <= i }",
    );
    let Some(Node::Domain { child, .. }) = Some(&s.schedule.root) else {
        unreachable!()
    };
    let Node::Band(outer) = &**child else {
        panic!("expected a band, found {}", child.kind_name())
    };
    assert_map(
        outer.schedule.maps().next().expect("one"),
        "[N] -> { S0[i, j] -> [-i] }",
    );
    assert!(!outer.permutable && outer.coincident == [false]);
    let Node::Band(inner) = &*outer.child else {
        panic!("expected a band")
    };
    assert_map(
        inner.schedule.maps().next().expect("one"),
        "[N] -> { S0[i, j] -> [-j] }",
    );
    assert!(matches!(*inner.child, Node::Leaf));
}

#[test]
fn strides_and_step_forms() {
    let cases = [
        (
            "for (i = 1; i < N; i += 3) A[i] = 0;",
            "[N] -> { S0[i] : 1 <= i < N and (i - 1) mod 3 = 0 }",
        ),
        (
            "for (i = 1; i < N; i = i + 3) A[i] = 0;",
            "[N] -> { S0[i] : 1 <= i < N and (i - 1) mod 3 = 0 }",
        ),
        (
            "for (i = 1; i < N; i = 2 + i) A[i] = 0;",
            "[N] -> { S0[i] : 1 <= i < N and (i - 1) mod 2 = 0 }",
        ),
        (
            "for (i = N; i > 0; i -= 2) A[i] = 0;",
            "[N] -> { S0[i] : 0 < i <= N and (N - i) mod 2 = 0 }",
        ),
        (
            "for (i = N; i > 0; i = i - 4) A[i] = 0;",
            "[N] -> { S0[i] : 0 < i <= N and (N - i) mod 4 = 0 }",
        ),
        (
            "for (i = N; i > 0; i += -1) A[i] = 0;",
            "[N] -> { S0[i] : 0 < i <= N }",
        ),
        (
            "for (int i = 0; i <= N; ++i) A[i] = 0;",
            "[N] -> { S0[i] : 0 <= i <= N }",
        ),
        (
            "for (i = 0; i < N && 2 * i < M; i++) A[i] = 0;",
            "[N, M] -> { S0[i] : 0 <= i < N and 2i < M }",
        ),
        (
            "for (i = 0; N > i; i++) A[i] = 0;",
            "[N] -> { S0[i] : 0 <= i < N }",
        ),
    ];
    for (body, expected) in cases {
        let s = scop(&wrap("int i; double A[100];", body));
        assert_set(&s.statements[0].domain, expected);
    }
}

#[test]
fn min_max_floord_ceild_bounds() {
    let cases = [
        (
            "for (i = max(0, M - 5); i <= min(N, 2 * M); i++) A[i] = 0;",
            "[M, N] -> { S0[i] : i >= 0 and i >= M - 5 and i <= N and i <= 2M }",
        ),
        (
            "for (i = MAX(0, M); i < MIN(N, 10); i++) A[i] = 0;",
            "[M, N] -> { S0[i] : i >= 0 and i >= M and i < N and i < 10 }",
        ),
        (
            "for (i = floord(M, 2); i < ceild(N, 3); i++) A[i] = 0;",
            "[M, N] -> { S0[i] : M <= 2i + 1 and 3i < N }",
        ),
        (
            "for (i = 0; i <= max(N, M); i++) A[i] = 0;",
            "[N, M] -> { S0[i] : 0 <= i and (i <= N or i <= M) }",
        ),
    ];
    for (body, expected) in cases {
        let s = scop(&wrap("int i; double A[100];", body));
        assert_set(&s.statements[0].domain, expected);
    }
}

#[test]
fn conditions_with_else_or_and_not() {
    let s = scop(&wrap(
        "int i, j; double A[N][N];",
        "for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    if (i == j || !(j > 2 && i != 0))\n      A[i][j] = 1;\n    else if (i + j < N)\n      A[i][j] = 2;\n    else\n      A[i][j] = 3;",
    ));
    let base = "0 <= i < N and 0 <= j < N";
    assert_set(
        &s.statements[0].domain,
        &format!("[N] -> {{ S0[i, j] : {base} and (i = j or j <= 2 or i = 0) }}"),
    );
    assert_set(
        &s.statements[1].domain,
        &format!("[N] -> {{ S1[i, j] : {base} and i != j and j > 2 and i != 0 and i + j < N }}"),
    );
    assert_set(
        &s.statements[2].domain,
        &format!("[N] -> {{ S2[i, j] : {base} and i != j and j > 2 and i != 0 and i + j >= N }}"),
    );
    // A disjunction becomes disjoint pieces (`a`, then `!a && b`), so that no instance
    // lies in two of them.
    let pieces: Vec<pollen_presburger::Set> = s.statements[0]
        .domain
        .basic_sets()
        .map(pollen_presburger::Set::from)
        .collect();
    assert!(pieces.len() > 1);
    for (k, a) in pieces.iter().enumerate() {
        for b in &pieces[k + 1..] {
            assert!(
                a.intersect(b).unwrap().is_empty().unwrap(),
                "{a} and {b} overlap"
            );
        }
    }
}

#[test]
fn parameters_in_order_of_first_appearance_with_exact_names() {
    let s = scop(&wrap(
        "int i, j; double A[100][100];",
        "for (i = _PB_M; i < _PB_N; i++)\n  for (j = N_; j < i + _PB_M; j++)\n    A[i + K][j] = A[i][LEN - 1];",
    ));
    assert_eq!(s.params, ["_PB_M", "_PB_N", "N_", "K", "LEN"]);
    for st in &s.statements {
        assert_eq!(st.domain.space().param_names(), s.params.as_slice());
    }
    assert_accesses(
        &s,
        "S0",
        &[
            (Read, "[LEN, K] -> { S0[i, j] -> A[i, LEN - 1] }"),
            (Write, "[K] -> { S0[i, j] -> A[i + K, j] }"),
        ],
    );
}

#[test]
fn unwritten_integer_scalars_are_parameters() {
    let s = scop(
        "void f(int n, int m, double A[n][m])\n{\n  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)\n      A[i][j] = n + m;\n#pragma endscop\n}\n",
    );
    assert_eq!(s.params, ["n", "m"]);
    assert_set(
        &s.statements[0].domain,
        "[n, m] -> { S0[i, j] : 0 <= i < n and 0 <= j < m }",
    );
    assert_eq!(s.array("A").expect("A").extents, ["n", "m"]);
    // In a right-hand side they are still scalar reads of the variables.
    assert_accesses(
        &s,
        "S0",
        &[
            (Read, "[n, m] -> { S0[i, j] -> n[] }"),
            (Read, "[n, m] -> { S0[i, j] -> m[] }"),
            (Write, "[n, m] -> { S0[i, j] -> A[i, j] }"),
        ],
    );
}

#[test]
fn the_context_is_where_some_instance_runs() {
    let s = scop(&wrap(
        "int i, j; double A[100], B[100];",
        "for (i = 0; i < N; i++) A[i] = 0;\nfor (j = 2; j < M; j++) B[j] = 0;",
    ));
    assert_set(&s.context, "[N, M] -> { : N >= 1 or M >= 3 }");
    let s = scop(&wrap(
        "int i; double A[100], x;",
        "x = 1;\nfor (i = 0; i < N; i++) A[i] = x;",
    ));
    assert_set(&s.context, "[N] -> { : }");
    let s = scop(&wrap(
        "int i; double A[100];",
        "for (i = N; i < N - 1; i++) A[i] = 0;",
    ));
    assert_set(&s.context, "[N] -> { : false }");
}

#[test]
fn the_region_covers_the_pragma_lines() {
    let src = "int x;\nvoid f() {\n  #pragma scop\n  x = 1;\n  #pragma endscop\n  x = 2;\n}\n";
    let x = extracted(src);
    assert_eq!(
        &src[x.region.clone()],
        "  #pragma scop\n  x = 1;\n  #pragma endscop"
    );
}

#[test]
fn comments_and_empty_statements_are_skipped() {
    let s = scop(&wrap(
        "int i; double A[10];",
        "/* a comment */ for (i = 0; i < 10; i++) { // another\n ; A[i] /* inside */ = 0; }",
    ));
    assert_eq!(s.statements.len(), 1);
    assert_eq!(s.statements[0].body, "A[i] /* inside */ = 0;");
}

#[test]
fn empty_regions_and_empty_loops() {
    let s = scop(&wrap("int i;", ""));
    assert!(s.statements.is_empty() && s.params.is_empty());
    assert!(matches!(
        s.schedule.root,
        Node::Domain { ref child, .. } if matches!(**child, Node::Leaf)
    ));
    let s = scop(&wrap(
        "int i, j; double x;",
        "for (i = 0; i < N; i++) ;\nx = 0;",
    ));
    assert_eq!(s.statements.len(), 1);
    let Node::Domain { child, .. } = &s.schedule.root else {
        panic!("no domain root")
    };
    assert!(matches!(**child, Node::Leaf));
}

#[test]
fn subscripts_with_divisions_and_modulos() {
    // The pieces of C's division for negative numerators apply to no instance here and
    // are left out.
    let s = scop(&wrap(
        "int i; double A[100], B[100];",
        "for (i = 0; i < N; i++) A[i / 2] = B[(i + 1) % 3];",
    ));
    assert_accesses(
        &s,
        "S0",
        &[
            (
                Read,
                "[N] -> { S0[i] -> B[o] : i >= -1 and o = (i + 1) mod 3 }",
            ),
            (
                Write,
                "[N] -> { S0[i] -> A[o] : i >= 0 and o = floor(i / 2) }",
            ),
        ],
    );
}

#[test]
fn schedule_tree_structure() {
    let s = scop(&wrap(
        "int i, j; double A[10][10], x;",
        "x = 0;\nfor (i = 0; i < 10; i++) {\n  A[i][0] = x;\n  if (i > 2) {\n    for (j = 0; j < 10; j++) A[i][j] = 1;\n    x = 2;\n  }\n}",
    ));
    let Node::Domain { domain, child } = &s.schedule.root else {
        panic!("no domain root")
    };
    assert_eq!(domain.sets().count(), 4);
    let Node::Sequence(top) = &**child else {
        panic!("expected a sequence, found {}", child.kind_name())
    };
    assert_eq!(top.len(), 2);
    let Node::Filter {
        filter,
        child: loop_node,
    } = &top[1]
    else {
        panic!("expected a filter")
    };
    assert_eq!(filter.sets().count(), 3);
    let Node::Band(band) = &**loop_node else {
        panic!("expected a band")
    };
    let Node::Sequence(body) = &*band.child else {
        panic!("expected a sequence in the loop")
    };
    // The `if` adds no node: its loop and statement join the loop body's sequence.
    assert_eq!(body.len(), 3);
    assert!(matches!(&body[1], Node::Filter { child, .. } if matches!(**child, Node::Band(_))));
}

/// The region alone, without declarations, as in the polyhedral tools' test inputs.
fn fragment(region: &str) -> String {
    format!("#pragma scop\n{region}\n#pragma endscop\n")
}

#[test]
fn undeclared_names_are_arrays_scalars_or_parameters() {
    let s = scop(&fragment(
        "s = 0;\nfor (t = 0; t < T; t++)\n  for (i = 1; i < N - 1; i++) {\n    A[(t + 1) % 2][i] = alpha * (A[t % 2][i - 1] + f(A[t % 2][i + 1]));\n    s += A[t % 2][i] * B[i];\n  }",
    ));
    assert_eq!(s.params, ["T", "N"]);
    let arrays: Vec<(&str, &str, Vec<&str>)> = s
        .arrays
        .iter()
        .map(|a| {
            (
                a.name.as_str(),
                a.element_type.as_str(),
                a.extents.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        arrays,
        [
            ("s", "", vec![]),
            ("A", "", vec!["", ""]),
            ("B", "", vec![""])
        ]
    );
    assert_accesses(&s, "S0", &[(Write, "[T, N] -> { S0[] -> s[] }")]);
    assert_accesses(
        &s,
        "S1",
        &[
            (Read, "[T, N] -> { S1[t, i] -> A[t mod 2, i - 1] : t >= 0 }"),
            (Read, "[T, N] -> { S1[t, i] -> A[t mod 2, i + 1] : t >= 0 }"),
            (
                Write,
                "[T, N] -> { S1[t, i] -> A[(t + 1) mod 2, i] : t >= -1 }",
            ),
        ],
    );
    assert_accesses(
        &s,
        "S2",
        &[
            (Read, "[T, N] -> { S2[t, i] -> s[] }"),
            (Read, "[T, N] -> { S2[t, i] -> A[t mod 2, i] : t >= 0 }"),
            (Read, "[T, N] -> { S2[t, i] -> B[i] }"),
            (Write, "[T, N] -> { S2[t, i] -> s[] }"),
        ],
    );
}

#[test]
fn a_scalar_written_anywhere_is_a_scalar_everywhere() {
    let s = scop(&fragment(
        "for (i = 0; i < N; i++)\n  x[i] = m;\nm = x[0];\nm++;",
    ));
    assert_eq!(s.params, ["N"]);
    assert_accesses(
        &s,
        "S0",
        &[
            (Read, "[N] -> { S0[i] -> m[] }"),
            (Write, "[N] -> { S0[i] -> x[i] }"),
        ],
    );
    assert_accesses(
        &s,
        "S2",
        &[
            (Read, "[N] -> { S2[] -> m[] }"),
            (Write, "[N] -> { S2[] -> m[] }"),
        ],
    );
    assert_eq!(s.array("m").expect("m").extents.len(), 0);
}

#[test]
fn iterators_of_every_signed_integer_type() {
    for ty in [
        "int",
        "long",
        "long long",
        "long int",
        "short",
        "signed char",
        "signed",
        "int64_t",
        "int32_t",
        "ptrdiff_t",
        "intptr_t",
        "ssize_t",
    ] {
        let s = scop(&fragment(&format!(
            "for ({ty} i = 0; i < N; i++)\n  for ({ty} j = i; j < N; j++)\n    A[i][j] = 0;"
        )));
        assert_set(
            &s.statements[0].domain,
            "[N] -> { S0[i, j] : 0 <= i <= j < N }",
        );
    }
}

#[test]
fn scalars_declared_inside_the_region_are_local_zero_dimensional_arrays() {
    let s = scop(&fragment(
        "for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++) {\n    const double t = A[i][j] * 2, u = t + 1;\n    long k;\n    register int m = 3;\n    B[i][j] = t * u + m;\n  }",
    ));
    let bodies: Vec<&str> = s.statements.iter().map(|t| t.body.as_str()).collect();
    assert_eq!(
        bodies,
        [
            "t = A[i][j] * 2;",
            "u = t + 1;",
            "m = 3;",
            "B[i][j] = t * u + m;"
        ]
    );
    assert_accesses(
        &s,
        "S0",
        &[
            (Read, "[N] -> { S0[i, j] -> A[i, j] }"),
            (Write, "[N] -> { S0[i, j] -> t[] }"),
        ],
    );
    assert_accesses(
        &s,
        "S1",
        &[
            (Read, "[N] -> { S1[i, j] -> t[] }"),
            (Write, "[N] -> { S1[i, j] -> u[] }"),
        ],
    );
    let arrays: Vec<(&str, &str, usize, bool)> = s
        .arrays
        .iter()
        .map(|a| {
            (
                a.name.as_str(),
                a.element_type.as_str(),
                a.extents.len(),
                a.local,
            )
        })
        .collect();
    assert_eq!(
        arrays,
        [
            ("t", "double", 0, true),
            ("A", "", 2, false),
            ("u", "double", 0, true),
            ("m", "int", 0, true),
            ("B", "", 2, false),
        ]
    );
}

#[test]
fn one_name_declared_in_two_blocks_is_one_scalar() {
    let s = scop(&fragment(
        "for (i = 0; i < N; i++) { double t = A[i]; B[i] = t; }\nfor (i = 0; i < N; i++) { double t = B[i]; A[i] = t; }",
    ));
    assert_eq!(s.statements.len(), 4);
    assert_eq!(s.arrays.iter().filter(|a| a.name == "t").count(), 1);
}
