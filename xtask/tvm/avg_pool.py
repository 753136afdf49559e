"""2x2 average pooling, stride 2 (``examples/tensor/avg_pool.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import f32, main


def build(s, X):
    from tvm import te

    kh = te.reduce_axis((0, 2), name="kh")
    kw = te.reduce_axis((0, 2), name="kw")
    S = te.compute(
        (s["N"], s["C"], s["H"] // 2, s["W"] // 2),
        lambda n, c, h, w: te.sum(X[n, c, 2 * h + kh, 2 * w + kw], axis=[kh, kw]),
        name="S",
    )
    return te.compute(S.shape, lambda n, c, h, w: S[n, c, h, w] / f32(4.0), name="Y")


main(
    "avg_pool",
    {"N": 16, "C": 128, "H": 56, "W": 56},
    [("X", lambda s: (s["N"], s["C"], s["H"], s["W"]))],
    build,
)
