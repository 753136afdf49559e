"""Mean over the spatial dimensions (``examples/tensor/global_avg_pool.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import f32, main


def build(s, X):
    from tvm import te

    h = te.reduce_axis((0, s["H"]), name="h")
    w = te.reduce_axis((0, s["W"]), name="w")
    S = te.compute(
        (s["N"], s["C"]), lambda n, c: te.sum(X[n, c, h, w], axis=[h, w]), name="S"
    )
    return te.compute(
        S.shape, lambda n, c: S[n, c] / f32(s["H"]) / f32(s["W"]), name="Y"
    )


main(
    "global_avg_pool",
    {"N": 16, "C": 2048, "H": 7, "W": 7},
    [("X", lambda s: (s["N"], s["C"], s["H"], s["W"]))],
    build,
)
