/*
 * camera.c - a camera pipeline (PolyMage's "Camera Pipeline", after Halide's): a raw
 * Bayer mosaic (GRBG) is cleared of hot pixels (each value clamped to the range of
 * its four same-colour neighbours), split into its four colour planes, demosaicked
 * (green at the red and blue sites along the smaller gradient, then red and blue at
 * the other sites from their neighbours and the green differences), interleaved back
 * into full-resolution red, green and blue, colour corrected by a constant 3x3 matrix,
 * mapped through a tone curve (a table of 9 knots, read at a data-dependent position
 * by comparisons and linear interpolation) and sharpened.
 * The raw image has (2 R + 12) x (2 C + 12) points, each plane about R x C; every
 * stage computes the points whose reads are defined.
 * A Pollen test pipeline; see README.md in this directory.
 */
#include "pipeline.h"

#ifndef R
# define R 16
#endif
#ifndef C
# define C 24
#endif

static void camera(int rows, int cols, float raw[2 * rows + 12][2 * cols + 12],
                   float lo[2 * rows + 8][2 * cols + 8], float hi[2 * rows + 8][2 * cols + 8],
                   float denoised[2 * rows + 8][2 * cols + 8], float gr[rows + 4][cols + 4],
                   float r[rows + 4][cols + 4], float b[rows + 4][cols + 4],
                   float gb[rows + 4][cols + 4], float g_r[rows + 3][cols + 2],
                   float g_b[rows + 2][cols + 3], float r_gr[rows + 2][cols + 1],
                   float b_gr[rows + 1][cols + 2], float r_gb[rows + 1][cols + 1],
                   float b_gb[rows + 1][cols + 1], float r_b[rows + 1][cols + 1],
                   float b_r[rows + 1][cols + 1], float red[2 * rows + 2][2 * cols + 2],
                   float green[2 * rows + 2][2 * cols + 2],
                   float blue[2 * rows + 2][2 * cols + 2],
                   float corrected[3][2 * rows + 2][2 * cols + 2], float curve[9],
                   float pos[3][2 * rows + 2][2 * cols + 2],
                   float toned[3][2 * rows + 2][2 * cols + 2],
                   float sharpened[3][2 * rows][2 * cols])
{
  int c, k, x, y;

#pragma scop
  for (x = 0; x < 2 * rows + 8; x++)
    for (y = 0; y < 2 * cols + 8; y++)
      lo[x][y] = pipeline_min(pipeline_min(raw[x][y + 2], raw[x + 4][y + 2]),
                              pipeline_min(raw[x + 2][y], raw[x + 2][y + 4]));
  for (x = 0; x < 2 * rows + 8; x++)
    for (y = 0; y < 2 * cols + 8; y++)
      hi[x][y] = pipeline_max(pipeline_max(raw[x][y + 2], raw[x + 4][y + 2]),
                              pipeline_max(raw[x + 2][y], raw[x + 2][y + 4]));
  for (x = 0; x < 2 * rows + 8; x++)
    for (y = 0; y < 2 * cols + 8; y++)
      denoised[x][y] = pipeline_min(pipeline_max(raw[x + 2][y + 2], lo[x][y]), hi[x][y]);
  for (x = 0; x < rows + 4; x++)
    for (y = 0; y < cols + 4; y++)
      gr[x][y] = denoised[2 * x][2 * y];
  for (x = 0; x < rows + 4; x++)
    for (y = 0; y < cols + 4; y++)
      r[x][y] = denoised[2 * x][2 * y + 1];
  for (x = 0; x < rows + 4; x++)
    for (y = 0; y < cols + 4; y++)
      b[x][y] = denoised[2 * x + 1][2 * y];
  for (x = 0; x < rows + 4; x++)
    for (y = 0; y < cols + 4; y++)
      gb[x][y] = denoised[2 * x + 1][2 * y + 1];
  for (x = 0; x < rows + 3; x++)
    for (y = 0; y < cols + 2; y++)
      g_r[x][y] = fabsf(gr[x + 1][y + 1] - gr[x + 1][y + 2])
                  < fabsf(gb[x][y + 1] - gb[x + 1][y + 1])
                  ? 0.5f * (gr[x + 1][y + 1] + gr[x + 1][y + 2])
                  : 0.5f * (gb[x][y + 1] + gb[x + 1][y + 1]);
  for (x = 0; x < rows + 2; x++)
    for (y = 0; y < cols + 3; y++)
      g_b[x][y] = fabsf(gb[x + 1][y] - gb[x + 1][y + 1])
                  < fabsf(gr[x + 1][y + 1] - gr[x + 2][y + 1])
                  ? 0.5f * (gb[x + 1][y] + gb[x + 1][y + 1])
                  : 0.5f * (gr[x + 1][y + 1] + gr[x + 2][y + 1]);
  for (x = 0; x < rows + 2; x++)
    for (y = 0; y < cols + 1; y++)
      r_gr[x][y] = gr[x + 2][y + 2] + 0.5f * (r[x + 2][y + 1] + r[x + 2][y + 2])
                   - 0.5f * (g_r[x + 1][y] + g_r[x + 1][y + 1]);
  for (x = 0; x < rows + 1; x++)
    for (y = 0; y < cols + 2; y++)
      b_gr[x][y] = gr[x + 2][y + 2] + 0.5f * (b[x + 1][y + 2] + b[x + 2][y + 2])
                   - 0.5f * (g_b[x][y + 1] + g_b[x + 1][y + 1]);
  for (x = 0; x < rows + 1; x++)
    for (y = 0; y < cols + 1; y++)
      r_gb[x][y] = gb[x + 2][y + 2] + 0.5f * (r[x + 2][y + 2] + r[x + 3][y + 2])
                   - 0.5f * (g_r[x + 1][y + 1] + g_r[x + 2][y + 1]);
  for (x = 0; x < rows + 1; x++)
    for (y = 0; y < cols + 1; y++)
      b_gb[x][y] = gb[x + 2][y + 2] + 0.5f * (b[x + 2][y + 2] + b[x + 2][y + 3])
                   - 0.5f * (g_b[x + 1][y + 1] + g_b[x + 1][y + 2]);
  for (x = 0; x < rows + 1; x++)
    for (y = 0; y < cols + 1; y++)
      r_b[x][y] = g_b[x + 1][y + 1]
                  + 0.25f * (r[x + 2][y + 1] + r[x + 2][y + 2] + r[x + 3][y + 1] + r[x + 3][y + 2])
                  - 0.25f * (g_r[x + 1][y] + g_r[x + 1][y + 1] + g_r[x + 2][y]
                             + g_r[x + 2][y + 1]);
  for (x = 0; x < rows + 1; x++)
    for (y = 0; y < cols + 1; y++)
      b_r[x][y] = g_r[x + 1][y + 1]
                  + 0.25f * (b[x + 1][y + 2] + b[x + 1][y + 3] + b[x + 2][y + 2] + b[x + 2][y + 3])
                  - 0.25f * (g_b[x][y + 1] + g_b[x][y + 2] + g_b[x + 1][y + 1]
                             + g_b[x + 1][y + 2]);
  for (x = 0; x < 2 * rows + 2; x++)
    for (y = 0; y < 2 * cols + 2; y++)
      red[x][y] = x % 2 == 0 ? (y % 2 == 0 ? r_gr[x / 2][y / 2] : r[x / 2 + 2][y / 2 + 2])
                  : (y % 2 == 0 ? r_b[x / 2][y / 2] : r_gb[x / 2][y / 2]);
  for (x = 0; x < 2 * rows + 2; x++)
    for (y = 0; y < 2 * cols + 2; y++)
      green[x][y] = x % 2 == 0
                    ? (y % 2 == 0 ? gr[x / 2 + 2][y / 2 + 2] : g_r[x / 2 + 1][y / 2 + 1])
                    : (y % 2 == 0 ? g_b[x / 2 + 1][y / 2 + 1] : gb[x / 2 + 2][y / 2 + 2]);
  for (x = 0; x < 2 * rows + 2; x++)
    for (y = 0; y < 2 * cols + 2; y++)
      blue[x][y] = x % 2 == 0 ? (y % 2 == 0 ? b_gr[x / 2][y / 2] : b_r[x / 2][y / 2])
                   : (y % 2 == 0 ? b[x / 2 + 2][y / 2 + 2] : b_gb[x / 2][y / 2]);
  for (c = 0; c < 3; c++)
    for (x = 0; x < 2 * rows + 2; x++)
      for (y = 0; y < 2 * cols + 2; y++)
        corrected[c][x][y] = c == 0 ? 1.6f * red[x][y] - 0.4f * green[x][y] - 0.2f * blue[x][y]
                             : c == 1 ? -0.3f * red[x][y] + 1.5f * green[x][y] - 0.2f * blue[x][y]
                             : -0.1f * red[x][y] - 0.5f * green[x][y] + 1.6f * blue[x][y];
  for (k = 0; k < 9; k++)
    curve[k] = powf(k * 0.125f, 0.45f);
  for (c = 0; c < 3; c++)
    for (x = 0; x < 2 * rows + 2; x++)
      for (y = 0; y < 2 * cols + 2; y++)
        pos[c][x][y] = pipeline_min(pipeline_max(8.0f * corrected[c][x][y], 0.0f), 8.0f);
  for (c = 0; c < 3; c++)
    for (x = 0; x < 2 * rows + 2; x++)
      for (y = 0; y < 2 * cols + 2; y++)
        toned[c][x][y] = pos[c][x][y] < 1.0f
                         ? curve[0] + pos[c][x][y] * (curve[1] - curve[0])
                         : pos[c][x][y] < 2.0f
                         ? curve[1] + (pos[c][x][y] - 1.0f) * (curve[2] - curve[1])
                         : pos[c][x][y] < 3.0f
                         ? curve[2] + (pos[c][x][y] - 2.0f) * (curve[3] - curve[2])
                         : pos[c][x][y] < 4.0f
                         ? curve[3] + (pos[c][x][y] - 3.0f) * (curve[4] - curve[3])
                         : pos[c][x][y] < 5.0f
                         ? curve[4] + (pos[c][x][y] - 4.0f) * (curve[5] - curve[4])
                         : pos[c][x][y] < 6.0f
                         ? curve[5] + (pos[c][x][y] - 5.0f) * (curve[6] - curve[5])
                         : pos[c][x][y] < 7.0f
                         ? curve[6] + (pos[c][x][y] - 6.0f) * (curve[7] - curve[6])
                         : curve[7] + (pos[c][x][y] - 7.0f) * (curve[8] - curve[7]);
  for (c = 0; c < 3; c++)
    for (x = 0; x < 2 * rows; x++)
      for (y = 0; y < 2 * cols; y++)
        sharpened[c][x][y] = 2.0f * toned[c][x + 1][y + 1]
                             - 0.25f * (toned[c][x][y + 1] + toned[c][x + 2][y + 1]
                                        + toned[c][x + 1][y] + toned[c][x + 1][y + 2]);
#pragma endscop
}

int main(void)
{
  int rows = R, cols = C, run;
  float (*raw)[2 * C + 12] =
      (float (*)[2 * C + 12]) pipeline_alloc((long) (2 * R + 12) * (2 * C + 12));
  float (*lo)[2 * C + 8] = (float (*)[2 * C + 8]) pipeline_alloc((long) (2 * R + 8) * (2 * C + 8));
  float (*hi)[2 * C + 8] = (float (*)[2 * C + 8]) pipeline_alloc((long) (2 * R + 8) * (2 * C + 8));
  float (*denoised)[2 * C + 8] =
      (float (*)[2 * C + 8]) pipeline_alloc((long) (2 * R + 8) * (2 * C + 8));
  float (*gr)[C + 4] = (float (*)[C + 4]) pipeline_alloc((long) (R + 4) * (C + 4));
  float (*r)[C + 4] = (float (*)[C + 4]) pipeline_alloc((long) (R + 4) * (C + 4));
  float (*b)[C + 4] = (float (*)[C + 4]) pipeline_alloc((long) (R + 4) * (C + 4));
  float (*gb)[C + 4] = (float (*)[C + 4]) pipeline_alloc((long) (R + 4) * (C + 4));
  float (*g_r)[C + 2] = (float (*)[C + 2]) pipeline_alloc((long) (R + 3) * (C + 2));
  float (*g_b)[C + 3] = (float (*)[C + 3]) pipeline_alloc((long) (R + 2) * (C + 3));
  float (*r_gr)[C + 1] = (float (*)[C + 1]) pipeline_alloc((long) (R + 2) * (C + 1));
  float (*b_gr)[C + 2] = (float (*)[C + 2]) pipeline_alloc((long) (R + 1) * (C + 2));
  float (*r_gb)[C + 1] = (float (*)[C + 1]) pipeline_alloc((long) (R + 1) * (C + 1));
  float (*b_gb)[C + 1] = (float (*)[C + 1]) pipeline_alloc((long) (R + 1) * (C + 1));
  float (*r_b)[C + 1] = (float (*)[C + 1]) pipeline_alloc((long) (R + 1) * (C + 1));
  float (*b_r)[C + 1] = (float (*)[C + 1]) pipeline_alloc((long) (R + 1) * (C + 1));
  float (*red)[2 * C + 2] =
      (float (*)[2 * C + 2]) pipeline_alloc((long) (2 * R + 2) * (2 * C + 2));
  float (*green)[2 * C + 2] =
      (float (*)[2 * C + 2]) pipeline_alloc((long) (2 * R + 2) * (2 * C + 2));
  float (*blue)[2 * C + 2] =
      (float (*)[2 * C + 2]) pipeline_alloc((long) (2 * R + 2) * (2 * C + 2));
  float (*corrected)[2 * R + 2][2 * C + 2] =
      (float (*)[2 * R + 2][2 * C + 2]) pipeline_alloc((long) 3 * (2 * R + 2) * (2 * C + 2));
  float *curve = pipeline_alloc(9);
  float (*pos)[2 * R + 2][2 * C + 2] =
      (float (*)[2 * R + 2][2 * C + 2]) pipeline_alloc((long) 3 * (2 * R + 2) * (2 * C + 2));
  float (*toned)[2 * R + 2][2 * C + 2] =
      (float (*)[2 * R + 2][2 * C + 2]) pipeline_alloc((long) 3 * (2 * R + 2) * (2 * C + 2));
  float (*sharpened)[2 * R][2 * C] =
      (float (*)[2 * R][2 * C]) pipeline_alloc((long) 3 * (2 * R) * (2 * C));

  pipeline_input(&raw[0][0], (long) (2 * R + 12) * (2 * C + 12), 7);
  for (run = 0; run < PIPELINE_RUNS; run++) {
    KERNEL_TIMER_START;
    camera(rows, cols, raw, lo, hi, denoised, gr, r, b, gb, g_r, g_b, r_gr, b_gr, r_gb, b_gb,
           r_b, b_r, red, green, blue, corrected, curve, pos, toned, sharpened);
    KERNEL_TIMER_STOP;
  }
  KERNEL_OUTPUT_3D("sharpened", sharpened, 3, 2 * rows, 2 * cols);

  free(raw);
  free(lo);
  free(hi);
  free(denoised);
  free(gr);
  free(r);
  free(b);
  free(gb);
  free(g_r);
  free(g_b);
  free(r_gr);
  free(b_gr);
  free(r_gb);
  free(b_gb);
  free(r_b);
  free(b_r);
  free(red);
  free(green);
  free(blue);
  free(corrected);
  free(curve);
  free(pos);
  free(toned);
  free(sharpened);
  return 0;
}
