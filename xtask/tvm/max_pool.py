"""3x3 max pooling, padding 1, stride 2 (``examples/tensor/max_pool.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import main, pad


def build(s, X):
    from tvm import te

    P = pad(X, s, -3.0e38)
    kh = te.reduce_axis((0, 3), name="kh")
    kw = te.reduce_axis((0, 3), name="kw")
    ho, wo = (s["H"] - 1) // 2 + 1, (s["W"] - 1) // 2 + 1
    return te.compute(
        (s["N"], s["C"], ho, wo),
        lambda n, c, h, w: te.max(P[n, c, 2 * h + kh, 2 * w + kw], axis=[kh, kw]),
        name="Y",
    )


main(
    "max_pool",
    {"N": 16, "C": 64, "H": 112, "W": 112},
    [("X", lambda s: (s["N"], s["C"], s["H"], s["W"]))],
    build,
)
