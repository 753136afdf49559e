"""interpolate: ``examples/pipelines/interpolate.c`` in Halide (see ``halide_pipeline.py``).

Multiscale interpolation of an RGBA image: d0 premultiplies the colours by alpha, four
downsamplings (dx<l> filters rows with [1 2 1]/4 keeping every second one, d<l> the
columns), then level by level back up (ux<l> upsamples rows by linear interpolation,
``coarse[x / 2]`` and ``coarse[(x + 1) / 2]``; i<l> adds the upsampled columns, weighted
by the transparency left, to the level's colour; i4 is d4), and out divides the colours
by alpha; four channels, three out.
"""

from halide_pipeline import f32, main


def build(hl, s, inputs):
    img = inputs["img"]
    c, x, y = hl.Var("c"), hl.Var("x"), hl.Var("y")
    quarter, half, two, one = f32(0.25), f32(0.5), f32(2.0), f32(1.0)

    d = [hl.Func("d0")]
    d[0][y, x, c] = hl.select(c < 3, img[y, x, c] * img[y, x, 3], img[y, x, 3])
    for level in (1, 2, 3, 4):
        fine = d[-1]
        dx, dl = hl.Func("dx%d" % level), hl.Func("d%d" % level)
        dx[y, x, c] = quarter * (
            fine[y, 2 * x, c] + two * fine[y, 2 * x + 1, c] + fine[y, 2 * x + 2, c]
        )
        dl[y, x, c] = quarter * (dx[2 * y, x, c] + two * dx[2 * y + 1, x, c] + dx[2 * y + 2, x, c])
        d.append(dl)

    coarse = d[4]
    for level in (3, 2, 1, 0):
        ux, il = hl.Func("ux%d" % level), hl.Func("i%d" % level)
        ux[y, x, c] = half * (coarse[y, x // 2, c] + coarse[y, (x + 1) // 2, c])
        il[y, x, c] = d[level][y, x, c] + (one - d[level][y, x, 3]) * half * (
            ux[y // 2, x, c] + ux[(y + 1) // 2, x, c]
        )
        coarse = il

    out = hl.Func("out")
    alpha = coarse[y, x, 3]
    out[y, x, c] = hl.select(alpha > f32(0.0), coarse[y, x, c] / alpha, f32(0.0))
    return [("out", out, (3, 16 * s["R"] - 15, 16 * s["C"] - 15))]


if __name__ == "__main__":
    main(
        "interpolate",
        {"R": 4, "C": 6},
        [("img", lambda s: (4, 16 * s["R"] + 16, 16 * s["C"] + 16), 5)],
        build,
    )
