"""1x1 convolution, NCHW, stride 2 (``examples/tensor/conv2d_1x1_s2.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import main


def build(s, X, Wt):
    from tvm import te

    c = te.reduce_axis((0, s["C"]), name="c")
    ho, wo = (s["H"] - 1) // 2 + 1, (s["W"] - 1) // 2 + 1
    return te.compute(
        (s["N"], s["K"], ho, wo),
        lambda n, k, h, w: te.sum(X[n, c, 2 * h, 2 * w] * Wt[k, c], axis=c),
        name="Y",
    )


main(
    "conv2d_1x1_s2",
    {"N": 16, "C": 256, "H": 56, "W": 56, "K": 512},
    [
        ("X", lambda s: (s["N"], s["C"], s["H"], s["W"])),
        ("Wt", lambda s: (s["K"], s["C"])),
    ],
    build,
)
