//! Lowering of the constructs the example programs do not all use: mixed element types,
//! `select` with compound conditions, `min` reductions, index values, several
//! reductions in one expression (temporary arrays), reductions under functions; and the
//! scop of a matrix product against a handwritten C version's.

mod common;

use pollen_presburger::Set;
use pollen_scop::AccessKind;
use pollen_tensor::{
    parse, to_c, to_c_with, to_scop, Axis, DType, Expr, Lowering, Padding, Program,
};

fn sizes(list: &[(&str, i64)]) -> Vec<(String, i64)> {
    list.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn check(name: &str, text: &str, size_sets: &[&[(&str, i64)]]) {
    check_lowering(name, text, size_sets, &Lowering::default());
}

fn check_lowering(name: &str, text: &str, size_sets: &[&[(&str, i64)]], lowering: &Lowering) {
    pollen_testkit::cc::require_gcc();
    let p = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut failures = Vec::new();
    for (k, s) in size_sets.iter().enumerate() {
        failures.extend(common::check_lowering_against_interpreter(
            &p,
            name,
            &sizes(s),
            &format!("s{k}"),
            lowering,
        ));
    }
    assert!(
        failures.is_empty(),
        "{}\n{}",
        failures.join("\n"),
        to_c(&p, name)
    );
}

#[test]
fn mixed_element_types_round_as_c_does() {
    check(
        "mixed",
        "param M = 5;
         input A[M] : f64, B[M];
         C[i] = A[i] * B[i] + 0.1;          # double arithmetic, the constant a double
         D[i] = B[i] * 0.1 + 1e-3;          # float arithmetic, float constants
         E[i] : f64 = B[i] / 3.0;           # float division, stored as double
         F[i] = sum(k : M, A[k] * B[i]) - D[i];   # f64 accumulation
         output C, D, E, F;",
        &[&[("M", 5)], &[("M", 17)]],
    );
}

#[test]
fn select_min_abs_index_values_and_negation() {
    check(
        "misc",
        "param N = 6, M = 4;
         input X[N, M];
         Y[i, j] = select(X[i, j] > 0.0 && !(X[i, j] >= 1.5) || i == j, X[i, j], -X[i, j] * 2.0);
         Z[i] = min(j : M, abs(X[i, j] - 0.25)) + i / N;
         W[i, j] = min(X[i, j], 0.5) + (N - j) * 0.5 - (-1.0);
         output Y, Z, W;",
        &[&[("N", 6), ("M", 4)], &[("N", 3), ("M", 9)]],
    );
}

#[test]
fn several_reductions_in_one_expression_use_temporaries() {
    let text = "param N = 5, M = 7;
         input X[N, M];
         Y[i] = exp(max(j : M, X[i, j])) - sum(j : M, X[i, j] * X[i, j]) / M + min(j : M, X[i, j]);
         Z[i] = sqrt(sum(j : M, X[i, j] * X[i, j]));";
    check(
        "reductions",
        text,
        &[&[("N", 5), ("M", 7)], &[("N", 2), ("M", 1)]],
    );
    let c = to_c(&parse(text).unwrap(), "reductions");
    assert!(c.contains("Y_red0[i] = -INFINITY;"), "{c}");
    assert!(c.contains("Y_red1[i] += X[i][j] * X[i][j];"), "{c}");
    assert!(
        c.contains("Y[i] = EXP_FUN(Y_red0[i]) - Y_red1[i] / ((DATA_TYPE) (_PB_M)) + Y_red2[i];"),
        "{c}"
    );
    assert!(c.contains("Z[i] = SQRT_FUN(Z[i]);"), "{c}");
}

#[test]
fn padding_keeps_the_interior_and_fills_the_border() {
    check(
        "pad",
        "param H = 4, W = 3;
         input X[H, W];
         P = pad(X, [1, 2], [3, 0], -1.5);
         Y[i, j] = P[i, j] * 2.0;",
        &[&[("H", 4), ("W", 3)], &[("H", 1), ("W", 1)]],
    );
    // The fill writes the border only, one box per padded side (1 row before, 3 after,
    // 2 columns before the interior rows, none after), the copy the interior.
    let p = parse(
        "param H = 4, W = 3;
         input X[H, W];
         P = pad(X, [1, 2], [3, 0], -1.5);
         Y[i, j] = P[i, j] * 2.0;",
    )
    .expect("parse");
    let c = to_c(&p, "pad");
    let fills: Vec<&str> = c
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("P[") && l.contains("-1.5"))
        .collect();
    assert_eq!(
        fills,
        [
            "P[d0][d1] = SCALAR_VAL(-1.5);",
            "P[d0 + _PB_H + 1][d1] = SCALAR_VAL(-1.5);",
            "P[d0 + 1][d1] = SCALAR_VAL(-1.5);",
        ],
        "{c}"
    );
    assert!(c.contains("for (d0 = 0; d0 < 3; d0++)"), "{c}");
    assert!(c.contains("for (d1 = 0; d1 < 2; d1++)"), "{c}");
    // Without padding, only the copy.
    check(
        "pad_none",
        "param H = 4, W = 3;
         input X[H, W];
         P = pad(X, [0, 0], [0, 0], 7.0);
         Y[i, j] = P[i, j] + 1.0;",
        &[&[("H", 4), ("W", 3)]],
    );
}

/// With `Padding::InPlace`, a padding by zero that only a sum reads, as a factor, is read
/// in place: an interior nest and a guarded border nest, equal to the interpreter's
/// values at sizes where the interior is empty, a single point or most of the output;
/// paddings read by other reductions, or by another value, are read through selects;
/// a padding read elementwise is still a copy, and so is every padding under
/// `Padding::Copy` and a sum's under the default.
#[test]
fn padding_read_in_place_by_sums() {
    let in_place = Lowering {
        padding: Padding::InPlace,
    };
    let conv = "param H = 9, W = 11, K = 3, C = 2;
         param HO = H / 2 + 1, WO = (W - 1) / 2 + 1;
         input X[C, H, W], Wt[K, C, 3, 4];
         P = pad(X, [0, 1, 2], [0, 2, 1], 0.0);
         Y[k, h : HO, w : WO] = sum(c : C, a : 3, b : 4, Wt[k, c, a, b] * (2.0 * P[c, 2*h + a, 2*w + b]));";
    check_lowering(
        "pad_conv",
        conv,
        &[
            &[("H", 9), ("W", 11), ("K", 3), ("C", 2)],
            &[("H", 1), ("W", 1), ("K", 2), ("C", 1)],
            &[("H", 2), ("W", 3), ("K", 1), ("C", 3)],
            &[("H", 30), ("W", 41), ("K", 2), ("C", 2)],
        ],
        &in_place,
    );
    let p = parse(conv).unwrap();
    let text = to_c_with(&p, "pad_conv", &in_place);
    assert!(!text.contains("P["), "{text}");
    assert!(
        text.contains("X[c][2 * h + a - 1][2 * w + b - 2]"),
        "{text}"
    );
    assert!(text.contains(" || ") && text.contains(" && "), "{text}");
    assert!(
        !text.contains(" ? X["),
        "a guarded border, not selects\n{text}"
    );
    for copy in [
        to_c(&p, "pad_conv"),
        to_c_with(
            &p,
            "pad_conv",
            &Lowering {
                padding: Padding::Copy,
            },
        ),
    ] {
        assert!(copy.contains("P[c][2 * h + a][2 * w + b]"), "{copy}");
    }
    let selected = [
        (
            "pad_by_one",
            "param H = 5;
             input X[H];
             P = pad(X, [1], [1], 1.0);
             Y[h : H] = sum(a : 3, P[h + a]);",
        ),
        (
            "pad_summed_not_a_factor",
            "param H = 5;
             input X[H];
             P = pad(X, [1], [1], 0.0);
             Y[h : H] = sum(a : 3, P[h + a] + 1.0);",
        ),
        (
            "pad_read_twice",
            "param H = 5;
             input X[H], V[H];
             P = pad(X, [2], [1], 0.0);
             Y[h : H] = sum(a : 3, P[h + a] * P[h + 3 - a] * V[h]);",
        ),
        (
            "pad_in_a_maximum",
            "param H = 5;
             input X[H];
             P = pad(X, [1], [1], 0.0);
             Y[h : H] = max(a : 3, P[h + a]);",
        ),
    ];
    for (name, program) in selected {
        check_lowering(
            name,
            program,
            &[&[("H", 5)], &[("H", 1)], &[("H", 2)]],
            &in_place,
        );
        let text = to_c_with(&parse(program).unwrap(), name, &in_place);
        assert!(
            !text.contains("P[") && text.contains(" ? X["),
            "{name}\n{text}"
        );
    }
    let elementwise = "param H = 5;
         input X[H], V[H];
         P = pad(X, [1], [1], 0.0);
         Y[h : H] = sum(a : 3, P[h + a] * V[h]);
         Z[h : H] = P[h + 1] + 1.0;";
    check_lowering(
        "pad_read_elementwise",
        elementwise,
        &[&[("H", 5)], &[("H", 1)]],
        &in_place,
    );
    let text = to_c_with(
        &parse(elementwise).unwrap(),
        "pad_read_elementwise",
        &in_place,
    );
    assert!(text.contains("P[h + a]"), "{text}");
}

/// By default a padding that only maxima and minima read (a max pooling's, by a large
/// negative value; a minimum's by a value that wins over some inputs) is read in place
/// through selects, equal to the interpreter's values with a border at every side and at
/// sizes with an empty interior; a sum's is copied.
#[test]
fn pooling_reads_its_padding_in_place_by_default() {
    let pool = "param N = 2, C = 3, H = 9, W = 8;
         param HO = (H - 1) / 2 + 1, WO = (W - 1) / 2 + 1;
         input X[N, C, H, W];
         P = pad(X, [0, 0, 1, 1], [0, 0, 1, 1], -3.0e38);
         Q = pad(X, [0, 0, 2, 1], [0, 0, 0, 1], 0.5);
         Y[n, c, h : HO, w : WO] = max(kh : 3, kw : 3, P[n, c, 2*h + kh, 2*w + kw]);
         Z[n, c, h : HO, w : WO] = min(kh : 3, kw : 3, Q[n, c, 2*h + kh, 2*w + kw]);";
    check_lowering(
        "pool_in_place",
        pool,
        &[
            &[("N", 2), ("C", 3), ("H", 9), ("W", 8)],
            &[("N", 1), ("C", 1), ("H", 1), ("W", 2)],
            &[("N", 1), ("C", 2), ("H", 3), ("W", 3)],
        ],
        &Lowering::default(),
    );
    let text = to_c(&parse(pool).unwrap(), "pool_in_place");
    assert!(
        !text.contains("P[") && text.contains(" : SCALAR_VAL(-3.0e38))"),
        "{text}"
    );
    assert!(
        !text.contains("Q[") && text.contains(" : SCALAR_VAL(0.5))"),
        "{text}"
    );
    let conv = "param H = 5;
         input X[H], V[3];
         P = pad(X, [1], [1], 0.0);
         Y[h : H] = sum(a : 3, P[h + a] * V[a]);";
    assert!(to_c(&parse(conv).unwrap(), "conv").contains("P[h + a]"));
}

const MATMUL_BY_HAND: &str = "
void kernel_matmul(int _PB_M, int _PB_N, int _PB_K, float A[64][32], float B[32][48], float C[64][48])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < _PB_M; i++)
    for (j = 0; j < _PB_N; j++) {
      C[i][j] = 0.0f;
      for (k = 0; k < _PB_K; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
#pragma endscop
}
";

#[test]
fn the_matmul_scop_equals_a_handwritten_versions() {
    let p = parse(
        "param M = 64, N = 48, K = 32;
         input A[M, K], B[K, N];
         C[i, j] = sum(k : K, A[i, k] * B[k, j]);",
    )
    .unwrap();
    let ours = to_scop(&p, "matmul").unwrap();
    let theirs = pollen_frontend::extract(MATMUL_BY_HAND).unwrap().scop;
    assert_eq!(ours.params, theirs.params);
    assert_eq!(ours.statements.len(), 2);
    assert_eq!(ours.statements.len(), theirs.statements.len());
    for (a, b) in ours.statements.iter().zip(&theirs.statements) {
        assert!(
            a.domain.is_equal(&b.domain).unwrap(),
            "{} vs {}",
            a.domain,
            b.domain
        );
        assert_eq!(a.iterators, b.iterators);
        assert_eq!(a.accesses.len(), b.accesses.len());
        for (x, y) in a.accesses.iter().zip(&b.accesses) {
            assert_eq!((x.kind, &x.array), (y.kind, &y.array));
            assert!(
                x.relation.is_equal(&y.relation).unwrap(),
                "{} vs {}",
                x.relation,
                y.relation
            );
        }
    }
    // The domains and accesses written out.
    let expected: Set = "[_PB_M, _PB_N, _PB_K] -> { S1[i, j, k] : 0 <= i < _PB_M and 0 <= j < _PB_N and 0 <= k < _PB_K }"
        .parse()
        .unwrap();
    assert!(ours.statements[1].domain.is_equal(&expected).unwrap());
    let reads: Vec<String> = ours.statements[1]
        .accesses
        .iter()
        .map(|a| format!("{:?} {}", a.kind, a.relation))
        .collect();
    assert_eq!(ours.statements[1].accesses[0].kind, AccessKind::Read);
    assert_eq!(reads.len(), 4, "{reads:?}"); // C (+=), A, B, then the write of C
    let original: Vec<String> = theirs
        .schedule
        .to_union_map()
        .unwrap()
        .maps()
        .map(|m| m.to_string())
        .collect();
    let lowered: Vec<String> = ours
        .schedule
        .to_union_map()
        .unwrap()
        .maps()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(original, lowered);
}

#[test]
fn the_builder_and_the_parser_give_the_same_strided_convolution() {
    let text = "param N = 2, C = 3, H = 7, W = 6, K = 4;
        param HO = (H - 1) / 2 + 1, WO = (W - 1) / 2 + 1;
        input X[N, C, H, W], Wt[K, C, 3, 3];
        P = pad(X, [0, 0, 1, 1], [0, 0, 1, 1], 0.0);
        Y[n, k, h : HO, w : WO] = sum(c : C, kh : 3, kw : 3, P[n, c, 2*h + kh, 2*w + kw] * Wt[k, c, kh, kw]);";
    let parsed = parse(text).unwrap();

    use pollen_tensor::{Affine, ParamExpr};
    let out_size = |p: &str| {
        ParamExpr::Add(
            Box::new(ParamExpr::FloorDiv(
                Box::new(ParamExpr::Sub(
                    Box::new(ParamExpr::Param(p.into())),
                    Box::new(ParamExpr::Int(1)),
                )),
                2,
            )),
            Box::new(ParamExpr::Int(1)),
        )
    };
    let mut b = Program::builder();
    let n = b.param("N", 2).unwrap();
    let c = b.param("C", 3).unwrap();
    let h = b.param("H", 7).unwrap();
    let w = b.param("W", 6).unwrap();
    let k = b.param("K", 4).unwrap();
    let ho = b.derived_param("HO", out_size("H")).unwrap();
    let wo = b.derived_param("WO", out_size("W")).unwrap();
    let x = b.input("X", vec![n, c.clone(), h, w], DType::F32).unwrap();
    let wt = b
        .input("Wt", vec![k, c.clone(), 3.into(), 3.into()], DType::F32)
        .unwrap();
    let p = b
        .pad(
            "P",
            x.name(),
            vec![0, 0, 1, 1],
            vec![0, 0, 1, 1],
            pollen_tensor::Constant::from_text("0.0"),
        )
        .unwrap();
    let v = |s: &str| Affine::var(s);
    let body = Expr::sum(
        vec![
            Axis::range("c", c),
            Axis::range("kh", 3),
            Axis::range("kw", 3),
        ],
        p.at([v("n"), v("c"), 2 * v("h") + v("kh"), 2 * v("w") + v("kw")])
            * wt.at(["k", "c", "kh", "kw"]),
    );
    b.compute(
        "Y",
        vec![
            Axis::new("n"),
            Axis::new("k"),
            Axis::range("h", ho),
            Axis::range("w", wo),
        ],
        body,
    )
    .unwrap();
    let built = b.build().unwrap();
    assert!(pollen_tensor::same_program(&parsed, &built));
    assert_eq!(to_c(&parsed, "conv"), to_c(&built, "conv"));
}

#[test]
fn program_names_do_not_clash_with_the_generated_c() {
    // Parameters become macros and tensors arrays: names the generated program uses for
    // its own loops and helpers must not change its meaning.
    check(
        "names",
        "param d0 = 3, d1 = 4, x = 2;
         input pos[d0, d1], count[x] : f64;
         data[i, j] = pos[i, j] * 2.0;
         P = pad(data, [1, 0], [0, 1], 0.5);
         name[i : d0 + 1, j : d1 + 1] : f64 = P[i, j] + count[0] + sum(d2 : x, count[d2]);",
        &[
            &[("d0", 3), ("d1", 4), ("x", 2)],
            &[("d0", 1), ("d1", 2), ("x", 5)],
        ],
    );
}
