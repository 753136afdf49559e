"""unsharp: ``examples/pipelines/unsharp.c`` in Halide (see ``halide_pipeline.py``).

Unsharp masking: a separable 5-tap binomial blur (blurx, blury), a sharpened image, and
a mask that keeps the input where it differs little from the blur; three channels.
"""

from halide_pipeline import f32, main


def build(hl, s, inputs):
    img = inputs["img"]
    c, x, y = hl.Var("c"), hl.Var("x"), hl.Var("y")
    blurx, blury = hl.Func("blurx"), hl.Func("blury")
    sharpen, masked = hl.Func("sharpen"), hl.Func("masked")
    four, six, sixteen = f32(4.0), f32(6.0), f32(16.0)
    blurx[y, x, c] = (
        img[y, x, c]
        + four * img[y + 1, x, c]
        + six * img[y + 2, x, c]
        + four * img[y + 3, x, c]
        + img[y + 4, x, c]
    ) / sixteen
    blury[y, x, c] = (
        blurx[y, x, c]
        + four * blurx[y, x + 1, c]
        + six * blurx[y, x + 2, c]
        + four * blurx[y, x + 3, c]
        + blurx[y, x + 4, c]
    ) / sixteen
    centre = img[y + 2, x + 2, c]
    sharpen[y, x, c] = centre * f32(2.0) - blury[y, x, c]
    masked[y, x, c] = hl.select(
        (centre - blury[y, x, c] < f32(0.001)) & (centre - blury[y, x, c] > f32(-0.001)),
        centre,
        sharpen[y, x, c],
    )
    return [("masked", masked, (3, s["R"], s["C"]))]


if __name__ == "__main__":
    main(
        "unsharp",
        {"R": 64, "C": 96},
        [("img", lambda s: (3, s["R"] + 4, s["C"] + 4), 2)],
        build,
    )
