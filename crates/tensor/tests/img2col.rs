//! img2col and the fractal GEMM layout (`shared/digests/akg.md` §2.7, test case 8):
//! equation (1) as an exact map, checked point by point against the formula, and the
//! convolutions of `examples/tensor/` computed through img2col and a fractal GEMM in C,
//! whose outputs must equal the interpreter's direct convolution exactly.

use std::path::PathBuf;

use pollen_presburger::{Int, Map};
use pollen_tensor::img2col::{conv_stage, to_c_img2col, FractalShape, Img2colError};
use pollen_tensor::{eval, parse, Program};
use pollen_testkit::cc;

fn shape(hi: i64, k: i64, s: i64, pad: i64) -> FractalShape {
    FractalShape {
        n: 1,
        c1: 1,
        c0: 16,
        hi,
        wi: hi,
        kh: k,
        kw: k,
        stride_h: s,
        stride_w: s,
        pad_h: pad,
        pad_w: pad,
        f: 16,
    }
}

/// Equation (1) evaluated directly.
fn formula(s: &FractalShape, x: [i64; 5]) -> [i64; 5] {
    let wo = s.wo().unwrap();
    let m = x[1] * s.f + x[3];
    [
        x[0],
        x[2] / (s.kh * s.kw),
        (m / wo) * s.stride_h + (x[2] / s.kw) % s.kh - s.pad_h,
        (m % wo) * s.stride_w + x[2] % s.kw - s.pad_w,
        x[4],
    ]
}

fn ints(p: &[Int]) -> Vec<i64> {
    p.iter().map(|v| v.to_i64().unwrap()).collect()
}

/// Every pair of the map is the formula's, and the map has one pair per fractal
/// position of the M x K matrix (rows below M, columns below C1 KH KW C0).
fn check_against_formula(s: &FractalShape, map: &Map) {
    let (m, k) = s.gemm().unwrap();
    let points = map.points().unwrap();
    assert_eq!(points.len() as i64, s.n * m * k);
    for p in &points {
        let p = ints(p);
        let x = [p[0], p[1], p[2], p[3], p[4]];
        assert_eq!(&p[5..], &formula(s, x), "X{x:?}");
    }
}

// Case 8: Hi = Wi = 5, 3x3 kernel, stride 1, no padding: Ho = Wo = 3, M = 9, K = 144,
// and X[n, 0, 5, 4, 7] reads A[n, 0, 2, 3, 7] (output pixel (1, 1), tap (1, 2)).
#[test]
fn equation_one_on_the_digest_example() {
    let s = shape(5, 3, 1, 0);
    assert_eq!((s.ho().unwrap(), s.wo().unwrap()), (3, 3));
    assert_eq!(s.gemm().unwrap(), (9, 144));
    let map = s.index_map().unwrap();
    let image = map
        .intersect_domain(&"{ X[0, 0, 5, 4, 7] }".parse::<Map>().unwrap())
        .unwrap()
        .range();
    let expected: Map = "{ A[0, 0, 2, 3, 7] }".parse().unwrap();
    assert!(image.is_equal(&expected).unwrap(), "{image}");
    check_against_formula(&s, &map);
    // Without padding every position reads inside the input.
    assert!(map.is_equal(&s.reads().unwrap()).unwrap());
}

// Stride 2 and padding 1: Ho = Wo = 3 again, and the border positions read the padding.
#[test]
fn equation_one_with_stride_and_padding() {
    let s = FractalShape {
        n: 2,
        c1: 2,
        c0: 4,
        f: 4,
        ..shape(5, 3, 2, 1)
    };
    assert_eq!((s.ho().unwrap(), s.wo().unwrap()), (3, 3));
    let (m, k) = s.gemm().unwrap();
    assert_eq!((m, k), (9, 2 * 3 * 3 * 4));
    let map = s.index_map().unwrap();
    check_against_formula(&s, &map);
    // Output pixel (0, 0) with tap (0, 0) reads row -1: padding.
    let reads = s.reads().unwrap();
    let inside = reads.points().unwrap().len() as i64;
    let mut expected = 0;
    for p in map.points().unwrap() {
        let p = ints(&p);
        if (0..5).contains(&p[7]) && (0..5).contains(&p[8]) {
            expected += 1;
        }
    }
    assert_eq!(inside, expected);
    assert!(inside < s.n * m * k);
}

// The NCHW form with columns in (c, kh, kw) order, as the lowering to C uses it.
#[test]
fn nchw_map_orders_columns_as_the_sum() {
    let s = FractalShape {
        c1: 3,
        c0: 1,
        f: 4,
        ..shape(4, 3, 1, 1)
    };
    let (m, k) = s.gemm().unwrap();
    assert_eq!((m, k), (16, 27));
    let map = s.nchw_map().unwrap();
    let points = map.points().unwrap();
    assert_eq!(points.len() as i64, m * k);
    for p in points {
        let p = ints(&p);
        let (row, col) = (p[1] * s.f + p[3], p[2] * s.f + p[4]);
        let (c, kh, kw) = (col / 9, (col / 3) % 3, col % 3);
        assert_eq!(
            &p[5..],
            &[p[0], c, (row / 4) + kh - 1, (row % 4) + kw - 1],
            "X{:?}",
            &p[..5]
        );
    }
}

#[test]
fn invalid_shapes_are_refused() {
    let mut s = shape(5, 3, 1, 0);
    s.stride_h = 0;
    assert!(matches!(s.index_map(), Err(Img2colError::InvalidShape(_))));
    let s = shape(2, 5, 1, 0);
    assert!(matches!(s.index_map(), Err(Img2colError::InvalidShape(_))));
    let mut s = shape(5, 3, 1, 0);
    s.pad_w = -1;
    assert!(matches!(s.validate(), Err(Img2colError::InvalidShape(_))));
    let mut s = shape(5, 3, 1, 0);
    s.c1 = i64::MAX / 2;
    assert_eq!(s.index_map().unwrap_err(), Img2colError::Overflow);
    let s = shape(i64::MAX, 3, 1, 1);
    assert_eq!(s.index_map().unwrap_err(), Img2colError::Overflow);
}

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/tensor")
}

fn load(name: &str) -> Program {
    let text = std::fs::read_to_string(examples_dir().join(format!("{name}.te"))).unwrap();
    parse(&text).unwrap()
}

#[test]
fn convolutions_are_recognised_and_other_operators_are_not() {
    let conv = conv_stage(&load("conv2d_3x3_s2")).unwrap();
    assert_eq!((conv.output.as_str(), conv.input.as_str()), ("Y", "P"));
    assert_eq!(conv.stride, (2, 2));
    assert_eq!(conv.reduction.len(), 3);
    let one = conv_stage(&load("conv2d_1x1")).unwrap();
    assert_eq!(
        (one.stride, one.offset, one.reduction.len()),
        ((1, 1), (0, 0), 1)
    );
    for name in ["matmul", "depthwise_conv", "max_pool", "softmax"] {
        assert!(
            matches!(
                conv_stage(&load(name)),
                Err(Img2colError::NotAConvolution(_))
            ),
            "{name}"
        );
    }
    assert!(matches!(
        to_c_img2col(&load("conv2d_1x1"), "c", 0),
        Err(Img2colError::InvalidShape(_))
    ));
}

/// Compiles `text` at `sizes` and returns its `name checksum` lines.
fn run(text: &str, name: &str, sizes: &[(&str, i64)]) -> Vec<(String, f64)> {
    let dir = cc::scratch("tensor-img2col");
    let tag: Vec<String> = sizes.iter().map(|(k, v)| format!("{k}{v}")).collect();
    let source = dir.join(format!("{name}-{}.c", tag.join("")));
    let binary = dir.join(format!("{name}-{}", tag.join("")));
    std::fs::write(&source, text).unwrap();
    let include = format!(
        "-I{}",
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/operators")
            .display()
    );
    let defines: Vec<String> = sizes.iter().map(|(k, v)| format!("-D{k}={v}")).collect();
    let mut flags = vec![
        "-O2",
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-ffp-contract=off",
        &include,
    ];
    flags.extend(defines.iter().map(String::as_str));
    cc::compile(&source, &binary, &flags).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    cc::run(&binary, 1)
        .unwrap()
        .lines()
        .filter_map(|l| {
            // `name checksum magnitude`: the checksum.
            let mut words = l.split_whitespace();
            let n = words.next()?;
            Some((n.to_string(), words.next()?.parse().ok()?))
        })
        .collect()
}

// The four convolutions of the suite through img2col and fractal GEMMs of several block
// sizes (blocks larger than the matrices, dividing them or not): outputs equal to the
// interpreter's direct convolution, bit for bit.
#[test]
fn img2col_gemm_equals_the_direct_convolution() {
    cc::require_gcc();
    let cases: [(&str, &[(&str, i64)]); 5] = [
        (
            "conv2d_3x3",
            &[("N", 2), ("C", 3), ("H", 6), ("W", 5), ("K", 4)],
        ),
        (
            "conv2d_3x3_s2",
            &[("N", 2), ("C", 3), ("H", 7), ("W", 6), ("K", 4)],
        ),
        (
            "conv2d_3x3_s2",
            &[("N", 1), ("C", 2), ("H", 4), ("W", 9), ("K", 2)],
        ),
        (
            "conv2d_1x1",
            &[("N", 2), ("C", 5), ("H", 4), ("W", 3), ("K", 6)],
        ),
        (
            "conv2d_1x1_s2",
            &[("N", 1), ("C", 3), ("H", 4), ("W", 5), ("K", 5)],
        ),
    ];
    for (name, sizes) in cases {
        let p = load(name);
        let values = p.sizes(sizes).unwrap();
        let expected = eval::evaluate(&p, &values).unwrap();
        for f in [1, 4, 16] {
            let text = to_c_img2col(&p, name, f).unwrap();
            assert!(text.contains("img2col"));
            let printed = run(&text, &format!("{name}-f{f}"), sizes);
            assert_eq!(printed.len(), p.outputs().len());
            for (out, got) in printed {
                let want = expected.get(&out).unwrap().checksum();
                assert_eq!(got, want, "{name} f = {f} {sizes:?}: {out}");
            }
        }
    }
}
