"""3x3 convolution, NCHW, padding 1, stride 1 (``examples/tensor/conv2d_3x3.te``) in
TVM; see ``tvm_operator.py``."""

from tvm_operator import main, pad


def build(s, X, Wt):
    from tvm import te

    P = pad(X, s, 0.0)
    c = te.reduce_axis((0, s["C"]), name="c")
    kh = te.reduce_axis((0, 3), name="kh")
    kw = te.reduce_axis((0, 3), name="kw")
    return te.compute(
        (s["N"], s["K"], s["H"], s["W"]),
        lambda n, k, h, w: te.sum(
            P[n, c, h + kh, w + kw] * Wt[k, c, kh, kw], axis=[c, kh, kw]
        ),
        name="Y",
    )


main(
    "conv2d_3x3",
    {"N": 16, "C": 64, "H": 56, "W": 56, "K": 64},
    [
        ("X", lambda s: (s["N"], s["C"], s["H"], s["W"])),
        ("Wt", lambda s: (s["K"], s["C"], 3, 3)),
    ],
    build,
)
