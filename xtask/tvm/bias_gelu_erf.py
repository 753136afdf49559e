"""Bias, then GELU with erf (``examples/tensor/bias_gelu_erf.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import f32, main


def build(s, X, bias):
    from tvm import te

    U = te.compute((s["T"], s["I"]), lambda t, i: X[t, i] + bias[i], name="U")
    return te.compute(
        U.shape,
        lambda t, i: f32(0.5)
        * U[t, i]
        * (f32(1.0) + te.erf(U[t, i] * f32(0.7071067811865476))),
        name="Y",
    )


main(
    "bias_gelu_erf",
    {"T": 4096, "I": 3072},
    [("X", lambda s: (s["T"], s["I"])), ("bias", lambda s: (s["I"],))],
    build,
)
