"""Per batch C = A B (``examples/tensor/batched_matmul.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import main


def build(s, A, B):
    from tvm import te

    k = te.reduce_axis((0, s["K"]), name="k")
    return te.compute(
        (s["BATCH"], s["M"], s["N"]),
        lambda b, i, j: te.sum(A[b, i, k] * B[b, k, j], axis=k),
        name="C",
    )


main(
    "batched_matmul",
    {"BATCH": 384, "M": 128, "N": 64, "K": 128},
    [
        ("A", lambda s: (s["BATCH"], s["M"], s["K"])),
        ("B", lambda s: (s["BATCH"], s["K"], s["N"])),
    ],
    build,
)
