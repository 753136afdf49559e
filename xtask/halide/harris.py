"""harris: ``examples/pipelines/harris.c`` in Halide (see ``halide_pipeline.py``).

Harris corner detection: Sobel derivatives Ix and Iy of a grayscale image, their products
Ixx, Iyy, Ixy, 3x3 box sums Sxx, Syy, Sxy, and the response det - 0.04 trace^2.
"""

from halide_pipeline import f32, main


def build(hl, s, inputs):
    img = inputs["img"]
    x, y = hl.Var("x"), hl.Var("y")
    names = "ix iy ixx iyy ixy sxx syy sxy response".split()
    ix, iy, ixx, iyy, ixy, sxx, syy, sxy, response = [hl.Func(n) for n in names]
    two = f32(2.0)
    ix[y, x] = (
        (img[y + 2, x] - img[y, x])
        + two * (img[y + 2, x + 1] - img[y, x + 1])
        + (img[y + 2, x + 2] - img[y, x + 2])
    )
    iy[y, x] = (
        (img[y, x + 2] - img[y, x])
        + two * (img[y + 1, x + 2] - img[y + 1, x])
        + (img[y + 2, x + 2] - img[y + 2, x])
    )
    ixx[y, x] = ix[y, x] * ix[y, x]
    iyy[y, x] = iy[y, x] * iy[y, x]
    ixy[y, x] = ix[y, x] * iy[y, x]

    def box(f):
        return (
            f[y, x] + f[y + 1, x] + f[y + 2, x]
            + f[y, x + 1] + f[y + 1, x + 1] + f[y + 2, x + 1]
            + f[y, x + 2] + f[y + 1, x + 2] + f[y + 2, x + 2]
        )

    sxx[y, x] = box(ixx)
    syy[y, x] = box(iyy)
    sxy[y, x] = box(ixy)
    trace = sxx[y, x] + syy[y, x]
    response[y, x] = (sxx[y, x] * syy[y, x] - sxy[y, x] * sxy[y, x]) - f32(0.04) * trace * trace
    return [("response", response, (s["R"], s["C"]))]


if __name__ == "__main__":
    main(
        "harris",
        {"R": 64, "C": 96},
        [("img", lambda s: (s["R"] + 4, s["C"] + 4), 3)],
        build,
    )
