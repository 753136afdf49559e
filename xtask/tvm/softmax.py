"""Softmax over the last dimension (``examples/tensor/softmax.te``) in TVM; see
``tvm_operator.py``."""

from tvm_operator import main


def build(s, X):
    from tvm import te

    R, S = s["R"], s["S"]
    j = te.reduce_axis((0, S), name="j")
    rowmax = te.compute((R, S), lambda r, i: te.max(X[r, i, j], axis=j), name="rowmax")
    E = te.compute((R, S, S), lambda r, i, j: te.exp(X[r, i, j] - rowmax[r, i]), name="E")
    j2 = te.reduce_axis((0, S), name="j2")
    rowsum = te.compute((R, S), lambda r, i: te.sum(E[r, i, j2], axis=j2), name="rowsum")
    return te.compute((R, S, S), lambda r, i, j: E[r, i, j] / rowsum[r, i], name="Y")


main(
    "softmax",
    {"R": 384, "S": 128},
    [("X", lambda s: (s["R"], s["S"], s["S"]))],
    build,
)
