"""Depthwise 3x3 convolution, padding 1 (``examples/tensor/depthwise_conv.te``) in TVM;
see ``tvm_operator.py``."""

from tvm_operator import main, pad


def build(s, X, Wt):
    from tvm import te

    P = pad(X, s, 0.0)
    kh = te.reduce_axis((0, 3), name="kh")
    kw = te.reduce_axis((0, 3), name="kw")
    return te.compute(
        (s["N"], s["C"], s["H"], s["W"]),
        lambda n, c, h, w: te.sum(P[n, c, h + kh, w + kw] * Wt[c, kh, kw], axis=[kh, kw]),
        name="Y",
    )


main(
    "depthwise_conv",
    {"N": 16, "C": 144, "H": 56, "W": 56},
    [
        ("X", lambda s: (s["N"], s["C"], s["H"], s["W"])),
        ("Wt", lambda s: (s["C"], 3, 3)),
    ],
    build,
)
