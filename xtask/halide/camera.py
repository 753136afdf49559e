"""camera: ``examples/pipelines/camera.c`` in Halide (see ``halide_pipeline.py``).

A camera pipeline: hot pixels of a raw GRBG Bayer mosaic clamped to the range of their
four same-colour neighbours (lo, hi, denoised), the four colour planes (gr, r, b, gb),
demosaicking (g_r, g_b along the smaller gradient, then r_gr, b_gr, r_gb, b_gb, r_b,
b_r), the interleaved full-resolution red, green and blue, a 3x3 colour correction, a
tone curve of 9 knots (curve, computed in the pipeline as C does) read at the
data-dependent position pos by the same chain of comparisons as C (``select``), and a
sharpening.
"""

from halide_pipeline import f32, main


def build(hl, s, inputs):
    raw = inputs["raw"]
    c, k, x, y = hl.Var("c"), hl.Var("k"), hl.Var("x"), hl.Var("y")
    names = (
        "lo hi denoised gr r b gb g_r g_b r_gr b_gr r_gb b_gb r_b b_r red green blue"
        " corrected curve pos toned sharpened"
    ).split()
    (lo, hi, denoised, gr, r, b, gb, g_r, g_b, r_gr, b_gr, r_gb, b_gb, r_b, b_r, red, green,
     blue, corrected, curve, pos, toned, sharpened) = [hl.Func(n) for n in names]
    half, quarter = f32(0.5), f32(0.25)

    lo[y, x] = hl.min(
        hl.min(raw[y + 2, x], raw[y + 2, x + 4]), hl.min(raw[y, x + 2], raw[y + 4, x + 2])
    )
    hi[y, x] = hl.max(
        hl.max(raw[y + 2, x], raw[y + 2, x + 4]), hl.max(raw[y, x + 2], raw[y + 4, x + 2])
    )
    denoised[y, x] = hl.min(hl.max(raw[y + 2, x + 2], lo[y, x]), hi[y, x])
    gr[y, x] = denoised[2 * y, 2 * x]
    r[y, x] = denoised[2 * y + 1, 2 * x]
    b[y, x] = denoised[2 * y, 2 * x + 1]
    gb[y, x] = denoised[2 * y + 1, 2 * x + 1]
    g_r[y, x] = hl.select(
        hl.abs(gr[y + 1, x + 1] - gr[y + 2, x + 1]) < hl.abs(gb[y + 1, x] - gb[y + 1, x + 1]),
        half * (gr[y + 1, x + 1] + gr[y + 2, x + 1]),
        half * (gb[y + 1, x] + gb[y + 1, x + 1]),
    )
    g_b[y, x] = hl.select(
        hl.abs(gb[y, x + 1] - gb[y + 1, x + 1]) < hl.abs(gr[y + 1, x + 1] - gr[y + 1, x + 2]),
        half * (gb[y, x + 1] + gb[y + 1, x + 1]),
        half * (gr[y + 1, x + 1] + gr[y + 1, x + 2]),
    )
    r_gr[y, x] = (
        gr[y + 2, x + 2]
        + half * (r[y + 1, x + 2] + r[y + 2, x + 2])
        - half * (g_r[y, x + 1] + g_r[y + 1, x + 1])
    )
    b_gr[y, x] = (
        gr[y + 2, x + 2]
        + half * (b[y + 2, x + 1] + b[y + 2, x + 2])
        - half * (g_b[y + 1, x] + g_b[y + 1, x + 1])
    )
    r_gb[y, x] = (
        gb[y + 2, x + 2]
        + half * (r[y + 2, x + 2] + r[y + 2, x + 3])
        - half * (g_r[y + 1, x + 1] + g_r[y + 1, x + 2])
    )
    b_gb[y, x] = (
        gb[y + 2, x + 2]
        + half * (b[y + 2, x + 2] + b[y + 3, x + 2])
        - half * (g_b[y + 1, x + 1] + g_b[y + 2, x + 1])
    )
    r_b[y, x] = (
        g_b[y + 1, x + 1]
        + quarter * (r[y + 1, x + 2] + r[y + 2, x + 2] + r[y + 1, x + 3] + r[y + 2, x + 3])
        - quarter * (g_r[y, x + 1] + g_r[y + 1, x + 1] + g_r[y, x + 2] + g_r[y + 1, x + 2])
    )
    b_r[y, x] = (
        g_r[y + 1, x + 1]
        + quarter * (b[y + 2, x + 1] + b[y + 3, x + 1] + b[y + 2, x + 2] + b[y + 3, x + 2])
        - quarter * (g_b[y + 1, x] + g_b[y + 2, x] + g_b[y + 1, x + 1] + g_b[y + 2, x + 1])
    )
    # C: x / 2 and y / 2 of non-negative iterators; x % 2 == 0 picks the site.
    hx, hy = x // 2, y // 2
    even_x, even_y = x % 2 == 0, y % 2 == 0
    red[y, x] = hl.select(
        even_x,
        hl.select(even_y, r_gr[hy, hx], r[hy + 2, hx + 2]),
        hl.select(even_y, r_b[hy, hx], r_gb[hy, hx]),
    )
    green[y, x] = hl.select(
        even_x,
        hl.select(even_y, gr[hy + 2, hx + 2], g_r[hy + 1, hx + 1]),
        hl.select(even_y, g_b[hy + 1, hx + 1], gb[hy + 2, hx + 2]),
    )
    blue[y, x] = hl.select(
        even_x,
        hl.select(even_y, b_gr[hy, hx], b_r[hy, hx]),
        hl.select(even_y, b[hy + 2, hx + 2], b_gb[hy, hx]),
    )
    rd, gn, bl = red[y, x], green[y, x], blue[y, x]
    corrected[y, x, c] = hl.select(
        c == 0,
        f32(1.6) * rd - f32(0.4) * gn - f32(0.2) * bl,
        c == 1,
        f32(-0.3) * rd + f32(1.5) * gn - f32(0.2) * bl,
        f32(-0.1) * rd - f32(0.5) * gn + f32(1.6) * bl,
    )
    # powf: Halide's float pow is its own approximation, a last bit away from libm's
    # powf at some knots; pow in double rounded to float gives powf's 9 values.
    curve[k] = hl.f32(hl.pow(hl.f64(hl.f32(k) * f32(0.125)), hl.f64(f32(0.45))))
    pos[y, x, c] = hl.min(hl.max(f32(8.0) * corrected[y, x, c], f32(0.0)), f32(8.0))
    p = pos[y, x, c]
    knots = [curve[i] for i in range(9)]
    # C's chain: the first knot i with p < i + 1 (i < 7), else the last segment.
    tone = knots[7] + (p - f32(7.0)) * (knots[8] - knots[7])
    for i in reversed(range(7)):
        offset = p if i == 0 else p - f32(float(i))
        segment = knots[i] + offset * (knots[i + 1] - knots[i])
        tone = hl.select(p < f32(float(i + 1)), segment, tone)
    toned[y, x, c] = tone
    sharpened[y, x, c] = f32(2.0) * toned[y + 1, x + 1, c] - quarter * (
        toned[y + 1, x, c] + toned[y + 1, x + 2, c] + toned[y, x + 1, c] + toned[y + 2, x + 1, c]
    )
    return [("sharpened", sharpened, (3, 2 * s["R"], 2 * s["C"]))]


if __name__ == "__main__":
    main(
        "camera",
        {"R": 16, "C": 24},
        [("raw", lambda s: (2 * s["R"] + 12, 2 * s["C"] + 12), 7)],
        build,
    )
