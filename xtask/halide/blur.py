"""blur: ``examples/pipelines/blur.c`` in Halide (see ``halide_pipeline.py``).

A 3x3 box blur, separated: blurx averages three columns, blury three rows of blurx; three
channels.
"""

from halide_pipeline import f32, main


def build(hl, s, inputs):
    img = inputs["img"]
    c, x, y = hl.Var("c"), hl.Var("x"), hl.Var("y")
    blurx, blury = hl.Func("blurx"), hl.Func("blury")
    third = f32(3.0)
    blurx[y, x, c] = (img[y, x, c] + img[y + 1, x, c] + img[y + 2, x, c]) / third
    blury[y, x, c] = (blurx[y, x, c] + blurx[y, x + 1, c] + blurx[y, x + 2, c]) / third
    return [("blury", blury, (3, s["R"], s["C"]))]


if __name__ == "__main__":
    main(
        "blur",
        {"R": 64, "C": 96},
        [("img", lambda s: (3, s["R"] + 2, s["C"] + 2), 1)],
        build,
    )
