"""pyramid: ``examples/pipelines/pyramid.c`` in Halide (see ``halide_pipeline.py``).

Pyramid blending of two images a and b under a mask: Gaussian pyramids of the three
(dx<l> filters rows with [1 2 1]/4 keeping every second one, g<l> the columns; 3 levels
down), Laplacian pyramids of a and b (ux<l>, lap<l>: a level minus its coarser level
upsampled by linear interpolation, ``coarse[x / 2]`` and ``coarse[(x + 1) / 2]``), a
blend per level weighted by the mask's pyramid, and the collapse of the blended pyramid
(cx<l>, col<l>) into out; one channel.
"""

from halide_pipeline import f32, main


def build(hl, s, inputs):
    x, y = hl.Var("x"), hl.Var("y")
    quarter, half, two, one = f32(0.25), f32(0.5), f32(2.0), f32(1.0)

    def down_rows(name, fine):
        dx = hl.Func(name)
        dx[y, x] = quarter * (fine[y, 2 * x] + two * fine[y, 2 * x + 1] + fine[y, 2 * x + 2])
        return dx

    def down_cols(name, dx):
        g = hl.Func(name)
        g[y, x] = quarter * (dx[2 * y, x] + two * dx[2 * y + 1, x] + dx[2 * y + 2, x])
        return g

    def up_rows(name, coarse):
        ux = hl.Func(name)
        ux[y, x] = half * (coarse[y, x // 2] + coarse[y, (x + 1) // 2])
        return ux

    def up_cols(ux):
        return half * (ux[y // 2, x] + ux[(y + 1) // 2, x])

    # Gaussian pyramids: g[p][0] is the input, g[p][l] level l (l = 1..3).
    g = {}
    for p, image in (("a", inputs["a"]), ("b", inputs["b"]), ("m", inputs["mask"])):
        g[p] = [image]
        for level in (1, 2, 3):
            dx = down_rows("%s_dx%d" % (p, level), g[p][-1])
            g[p].append(down_cols("%s_g%d" % (p, level), dx))

    # Laplacian pyramids of a and b, levels 0..2.
    lap = {}
    for p in ("a", "b"):
        lap[p] = []
        for level in (0, 1, 2):
            ux = up_rows("%s_ux%d" % (p, level), g[p][level + 1])
            lp = hl.Func("%s_lap%d" % (p, level))
            lp[y, x] = g[p][level][y, x] - up_cols(ux)
            lap[p].append(lp)

    blend = []
    for level in (0, 1, 2, 3):
        bl = hl.Func("blend%d" % level)
        m = g["m"][level][y, x]
        la = lap["a"][level][y, x] if level < 3 else g["a"][3][y, x]
        lb = lap["b"][level][y, x] if level < 3 else g["b"][3][y, x]
        bl[y, x] = m * la + (one - m) * lb
        blend.append(bl)

    # Collapse: col3 is blend3; col<l> = blend<l> + the upsampled col<l+1>.
    col = blend[3]
    for level in (2, 1, 0):
        cx = up_rows("cx%d" % level, col)
        col = hl.Func("col%d" % level if level else "out")
        col[y, x] = blend[level][y, x] + up_cols(cx)
    return [("out", col, (8 * s["R"] - 7, 8 * s["C"] - 7))]


if __name__ == "__main__":
    shape = lambda s: (8 * s["R"] + 8, 8 * s["C"] + 8)
    main(
        "pyramid",
        {"R": 8, "C": 12},
        [("a", shape, 1), ("b", shape, 2), ("mask", shape, 3)],
        build,
    )
