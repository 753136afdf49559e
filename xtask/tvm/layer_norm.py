"""Layer normalisation (``examples/tensor/layer_norm.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import f32, main


def build(s, X, gamma, beta):
    from tvm import te

    B, S, H = s["B"], s["S"], s["H"]
    h = te.reduce_axis((0, H), name="h")
    total = te.compute((B, S), lambda b, t: te.sum(X[b, t, h], axis=h), name="total")
    mean = te.compute((B, S), lambda b, t: total[b, t] / f32(H), name="mean")
    h2 = te.reduce_axis((0, H), name="h2")
    squares = te.compute(
        (B, S),
        lambda b, t: te.sum((X[b, t, h2] - mean[b, t]) * (X[b, t, h2] - mean[b, t]), axis=h2),
        name="squares",
    )
    var = te.compute((B, S), lambda b, t: squares[b, t] / f32(H), name="var")
    return te.compute(
        (B, S, H),
        lambda b, t, i: (X[b, t, i] - mean[b, t]) / te.sqrt(var[b, t] + f32(1e-5)) * gamma[i]
        + beta[i],
        name="Y",
    )


main(
    "layer_norm",
    {"B": 32, "S": 128, "H": 768},
    [
        ("X", lambda s: (s["B"], s["S"], s["H"])),
        ("gamma", lambda s: (s["H"],)),
        ("beta", lambda s: (s["H"],)),
    ],
    build,
)
