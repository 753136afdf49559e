"""T = A B, C = max(T + bias, 0) (``examples/tensor/matmul_bias_relu.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import f32, main


def build(s, A, B, bias):
    from tvm import te

    k = te.reduce_axis((0, s["K"]), name="k")
    T = te.compute((s["M"], s["N"]), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="T")
    return te.compute(T.shape, lambda i, j: te.max(T[i, j] + bias[j], f32(0.0)), name="C")


main(
    "matmul_bias_relu",
    {"M": 64, "N": 48, "K": 32},
    [
        ("A", lambda s: (s["M"], s["K"])),
        ("B", lambda s: (s["K"], s["N"])),
        ("bias", lambda s: (s["N"],)),
    ],
    build,
)
