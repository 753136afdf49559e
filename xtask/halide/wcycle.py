"""wcycle: ``examples/pipelines/wcycle.c`` in Halide (see ``halide_pipeline.py``).

One multigrid W-cycle for the 2-D Poisson equation with 2-2-2 smoothing on three levels,
each coarse level visited twice per visit of its finer level (level 1 twice, level 2
four times, each visit starting from the result of the one before): the steps of
``vcycle.py`` (``Multigrid``), one Func per step as the C program writes one array per
step. The output u is C's whole array, whose points below 54 along either dimension C
leaves at zero.
"""

from halide_pipeline import f32, main
from vcycle import Multigrid


def build(hl, s, inputs):
    v, f = inputs["v"], inputs["f"]
    mg = Multigrid(hl)
    x, y = mg.x, mg.y
    fine_rhs = f[y, x]

    pre0_1 = mg.smooth("pre0_1", v, fine_rhs)
    pre0_2 = mg.smooth("pre0_2", pre0_1, fine_rhs)
    res0_1 = mg.residual("res0_1", fine_rhs, pre0_2)
    rhs1_1 = mg.restrict("rhs1_1", res0_1)
    rhs1_term = f32(4.0) * rhs1_1[y, x]

    # Level 1, first visit: 2 pre-smoothing steps, level 2 twice (sm2_1 .. sm2_4),
    # correction, 2 post-smoothing steps.
    pre1_1 = mg.start("pre1_1", rhs1_1, 4.0)
    pre1_2 = mg.smooth("pre1_2", pre1_1, rhs1_term)
    res1_1 = mg.residual("res1_1", rhs1_1[y, x], pre1_2, 0.25)
    rhs2_1 = mg.restrict("rhs2_1", res1_1)
    rhs2_term = f32(16.0) * rhs2_1[y, x]
    u = mg.start("sm2_1", rhs2_1, 16.0)
    for k in (2, 3, 4):
        u = mg.smooth("sm2_%d" % k, u, rhs2_term)
    ip1_1 = mg.interpolate("ip1_1", u)
    cor1_1 = mg.correct("cor1_1", pre1_2, ip1_1)
    post1_1 = mg.smooth("post1_1", cor1_1, rhs1_term)
    post1_2 = mg.smooth("post1_2", post1_1, rhs1_term)

    # Level 1, second visit, from the first one's result (sm2_5 .. sm2_8).
    pre1_3 = mg.smooth("pre1_3", post1_2, rhs1_term)
    pre1_4 = mg.smooth("pre1_4", pre1_3, rhs1_term)
    res1_2 = mg.residual("res1_2", rhs1_1[y, x], pre1_4, 0.25)
    rhs2_2 = mg.restrict("rhs2_2", res1_2)
    rhs2_term = f32(16.0) * rhs2_2[y, x]
    u = mg.start("sm2_5", rhs2_2, 16.0)
    for k in (6, 7, 8):
        u = mg.smooth("sm2_%d" % k, u, rhs2_term)
    ip1_2 = mg.interpolate("ip1_2", u)
    cor1_2 = mg.correct("cor1_2", pre1_4, ip1_2)
    post1_3 = mg.smooth("post1_3", cor1_2, rhs1_term)
    post1_4 = mg.smooth("post1_4", post1_3, rhs1_term)

    ip0_1 = mg.interpolate("ip0_1", post1_4)
    cor0_1 = mg.correct("cor0_1", pre0_2, ip0_1)
    post0_1 = mg.smooth("post0_1", cor0_1, fine_rhs)
    n = s["N"]
    u = mg.output("u", mg.jacobi(post0_1, fine_rhs), 54)
    return [("u", u, (4 * n + 55, 4 * n + 55))]


if __name__ == "__main__":
    grid = lambda s: (4 * s["N"] + 108, 4 * s["N"] + 108)
    main("wcycle", {"N": 8}, [("v", grid, 11), ("f", grid, 12)], build)
