"""vcycle: ``examples/pipelines/vcycle.c`` in Halide (see ``halide_pipeline.py``).

One multigrid V-cycle for the 2-D Poisson equation with 4-4-4 smoothing on three levels:
weighted-Jacobi pre-smoothing (pre<l>_k; from a zero guess on the coarser levels, whose
first step is 0.2 * 4^l * rhs), the residual (res<l>_k), its full-weighting restriction
(rhs<l>_k: coarse i reads fine 2 i - 1 .. 2 i + 1), smoothing on the coarsest level
(sm2_k), bilinear interpolation of the coarse result (ip<l>_k: fine i reads coarse i / 2
and (i + 1) / 2), the correction (cor<l>_k) and post-smoothing; one Func per step, as
the C program writes one array per step.

Every Func is defined everywhere, its formula being C's: the points that C computes
read only points that C computed before, so they get C's values. The output u is C's
whole array, whose points below 40 along either dimension C leaves at zero.
``Multigrid`` holds the steps, shared with ``wcycle.py``.
"""

from halide_pipeline import f32, main


class Multigrid:
    """The steps of vcycle.c and wcycle.c, each a new Func over ``(y, x)`` (C's
    ``a[x][y]``) with C's arithmetic."""

    def __init__(self, hl):
        self.hl = hl
        self.x, self.y = hl.Var("x"), hl.Var("y")

    def func(self, name, value):
        f = self.hl.Func(name)
        f[self.y, self.x] = value
        return f

    def neighbours(self, u):
        """C's ``u[x - 1][y] + u[x + 1][y] + u[x][y - 1] + u[x][y + 1]``, as a list."""
        x, y = self.x, self.y
        return [u[y, x - 1], u[y, x + 1], u[y - 1, x], u[y + 1, x]]

    def jacobi(self, u, rhs):
        """A weighted-Jacobi step's value: ``u + 0.8f * (0.25f * (rhs + <neighbours>) -
        u)``, ``rhs`` the right-hand side's term at ``(y, x)`` (``f[x][y]``, ``4.0f *
        rhs1_1[x][y]``, ...)."""
        x, y = self.x, self.y
        total = rhs
        for n in self.neighbours(u):
            total = total + n
        return u[y, x] + f32(0.8) * (f32(0.25) * total - u[y, x])

    def smooth(self, name, u, rhs):
        return self.func(name, self.jacobi(u, rhs))

    def start(self, name, rhs, scale):
        """The first step from a zero guess: ``0.2f * <scale>f * rhs[x][y]``."""
        return self.func(name, f32(0.2) * f32(scale) * rhs[self.y, self.x])

    def laplacian(self, u):
        """``4.0f * u[x][y] - u[x - 1][y] - u[x + 1][y] - u[x][y - 1] - u[x][y + 1]``."""
        total = f32(4.0) * u[self.y, self.x]
        for n in self.neighbours(u):
            total = total - n
        return total

    def residual(self, name, rhs, u, weight=None):
        """``rhs - (<laplacian>)`` on the fine level (``weight`` None), else
        ``rhs - <weight>f * (<laplacian>)``; ``rhs`` an expression at ``(y, x)``."""
        lap = self.laplacian(u)
        return self.func(name, rhs - (lap if weight is None else f32(weight) * lap))

    def restrict(self, name, res):
        """Full weighting: ``0.0625f * (4.0f * r[2x][2y] + 2.0f * (<4 edge neighbours>)
        + <4 corners>)``."""
        x2, y2 = 2 * self.x, 2 * self.y
        edges = res[y2, x2 - 1] + res[y2, x2 + 1] + res[y2 - 1, x2] + res[y2 + 1, x2]
        total = f32(4.0) * res[y2, x2] + f32(2.0) * edges
        for corner in (
            res[y2 - 1, x2 - 1],
            res[y2 + 1, x2 - 1],
            res[y2 - 1, x2 + 1],
            res[y2 + 1, x2 + 1],
        ):
            total = total + corner
        return self.func(name, f32(0.0625) * total)

    def interpolate(self, name, coarse):
        """Bilinear: ``0.25f * (c[x/2][y/2] + c[(x+1)/2][y/2] + c[x/2][(y+1)/2] +
        c[(x+1)/2][(y+1)/2])`` (C division of non-negative values)."""
        x0, x1 = self.x // 2, (self.x + 1) // 2
        y0, y1 = self.y // 2, (self.y + 1) // 2
        return self.func(
            name,
            f32(0.25) * (coarse[y0, x0] + coarse[y0, x1] + coarse[y1, x0] + coarse[y1, x1]),
        )

    def correct(self, name, u, ip):
        return self.func(name, u[self.y, self.x] + ip[self.y, self.x])

    def output(self, name, value, first):
        """C's output array: ``value`` from ``first`` on along both dimensions, the
        zeros C leaves below."""
        inside = (self.x >= first) & (self.y >= first)
        return self.func(name, self.hl.select(inside, value, f32(0.0)))


def build(hl, s, inputs):
    v, f = inputs["v"], inputs["f"]
    mg = Multigrid(hl)
    x, y = mg.x, mg.y
    fine_rhs = f[y, x]

    u = v
    for k in (1, 2, 3, 4):
        u = mg.smooth("pre0_%d" % k, u, fine_rhs)
    pre0 = u
    res0 = mg.residual("res0_1", fine_rhs, pre0)
    rhs1 = mg.restrict("rhs1_1", res0)
    rhs1_term = f32(4.0) * rhs1[y, x]
    u = mg.start("pre1_1", rhs1, 4.0)
    for k in (2, 3, 4):
        u = mg.smooth("pre1_%d" % k, u, rhs1_term)
    pre1 = u
    res1 = mg.residual("res1_1", rhs1[y, x], pre1, 0.25)
    rhs2 = mg.restrict("rhs2_1", res1)
    rhs2_term = f32(16.0) * rhs2[y, x]
    u = mg.start("sm2_1", rhs2, 16.0)
    for k in (2, 3, 4):
        u = mg.smooth("sm2_%d" % k, u, rhs2_term)
    ip1 = mg.interpolate("ip1_1", u)
    u = mg.correct("cor1_1", pre1, ip1)
    for k in (1, 2, 3, 4):
        u = mg.smooth("post1_%d" % k, u, rhs1_term)
    ip0 = mg.interpolate("ip0_1", u)
    u = mg.correct("cor0_1", pre0, ip0)
    for k in (1, 2, 3):
        u = mg.smooth("post0_%d" % k, u, fine_rhs)
    n = s["N"]
    u = mg.output("u", mg.jacobi(u, fine_rhs), 40)
    return [("u", u, (4 * n + 41, 4 * n + 41))]


if __name__ == "__main__":
    grid = lambda s: (4 * s["N"] + 84, 4 * s["N"] + 84)
    main("vcycle", {"N": 8}, [("v", grid, 11), ("f", grid, 12)], build)
