"""1x1 convolution, NCHW, stride 1 (``examples/tensor/conv2d_1x1.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import main


def build(s, X, Wt):
    from tvm import te

    c = te.reduce_axis((0, s["C"]), name="c")
    return te.compute(
        (s["N"], s["K"], s["H"], s["W"]),
        lambda n, k, h, w: te.sum(X[n, c, h, w] * Wt[k, c], axis=c),
        name="Y",
    )


main(
    "conv2d_1x1",
    {"N": 16, "C": 256, "H": 56, "W": 56, "K": 64},
    [
        ("X", lambda s: (s["N"], s["C"], s["H"], s["W"])),
        ("Wt", lambda s: (s["K"], s["C"])),
    ],
    build,
)
