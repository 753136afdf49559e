"""C = A B (``examples/tensor/matmul.te``) in TVM; see ``tvm_operator.py``."""

from tvm_operator import main


def build(s, A, B):
    from tvm import te

    k = te.reduce_axis((0, s["K"]), name="k")
    return te.compute((s["M"], s["N"]), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")


main(
    "matmul",
    {"M": 4096, "N": 768, "K": 768},
    [("A", lambda s: (s["M"], s["K"])), ("B", lambda s: (s["K"], s["N"]))],
    build,
)
