/*
 * interpolate.c - multiscale interpolation (PolyMage's "Multiscale Interpolation"):
 * an RGBA image is premultiplied by its alpha channel (d0) and downsampled four
 * times (dx, d: [1 2 1]/4 along each dimension, every second point kept), then
 * interpolated back up level by level: a level's colour plus the upsampled coarser
 * result weighted by the transparency left (i4 is d4), and the result divided by its
 * alpha (out, three channels).
 * The finest level has (16 R + 16) x (16 C + 16) points; every stage computes the
 * points whose reads are defined.
 * A Pollen test pipeline; see README.md in this directory.
 */
#include "pipeline.h"

#ifndef R
# define R 4
#endif
#ifndef C
# define C 6
#endif

static void interpolate(int rows, int cols, float img[4][16 * rows + 16][16 * cols + 16],
                        float d0[4][16 * rows + 16][16 * cols + 16],
                        float dx1[4][8 * rows + 7][16 * cols + 16],
                        float d1[4][8 * rows + 7][8 * cols + 7],
                        float dx2[4][4 * rows + 3][8 * cols + 7],
                        float d2[4][4 * rows + 3][4 * cols + 3],
                        float dx3[4][2 * rows + 1][4 * cols + 3],
                        float d3[4][2 * rows + 1][2 * cols + 1],
                        float dx4[4][rows][2 * cols + 1], float d4[4][rows][cols],
                        float ux3[4][2 * rows - 1][cols],
                        float i3[4][2 * rows - 1][2 * cols - 1],
                        float ux2[4][4 * rows - 3][2 * cols - 1],
                        float i2[4][4 * rows - 3][4 * cols - 3],
                        float ux1[4][8 * rows - 7][4 * cols - 3],
                        float i1[4][8 * rows - 7][8 * cols - 7],
                        float ux0[4][16 * rows - 15][8 * cols - 7],
                        float i0[4][16 * rows - 15][16 * cols - 15],
                        float out[3][16 * rows - 15][16 * cols - 15])
{
  int c, x, y;

#pragma scop
  for (c = 0; c < 4; c++)
    for (x = 0; x < 16 * rows + 16; x++)
      for (y = 0; y < 16 * cols + 16; y++)
        d0[c][x][y] = c < 3 ? img[c][x][y] * img[3][x][y] : img[3][x][y];
  for (c = 0; c < 4; c++)
    for (x = 0; x < 8 * rows + 7; x++)
      for (y = 0; y < 16 * cols + 16; y++)
        dx1[c][x][y] = 0.25f * (d0[c][2 * x][y] + 2.0f * d0[c][2 * x + 1][y]
                                + d0[c][2 * x + 2][y]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 8 * rows + 7; x++)
      for (y = 0; y < 8 * cols + 7; y++)
        d1[c][x][y] = 0.25f * (dx1[c][x][2 * y] + 2.0f * dx1[c][x][2 * y + 1]
                               + dx1[c][x][2 * y + 2]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 4 * rows + 3; x++)
      for (y = 0; y < 8 * cols + 7; y++)
        dx2[c][x][y] = 0.25f * (d1[c][2 * x][y] + 2.0f * d1[c][2 * x + 1][y]
                                + d1[c][2 * x + 2][y]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 4 * rows + 3; x++)
      for (y = 0; y < 4 * cols + 3; y++)
        d2[c][x][y] = 0.25f * (dx2[c][x][2 * y] + 2.0f * dx2[c][x][2 * y + 1]
                               + dx2[c][x][2 * y + 2]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 2 * rows + 1; x++)
      for (y = 0; y < 4 * cols + 3; y++)
        dx3[c][x][y] = 0.25f * (d2[c][2 * x][y] + 2.0f * d2[c][2 * x + 1][y]
                                + d2[c][2 * x + 2][y]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 2 * rows + 1; x++)
      for (y = 0; y < 2 * cols + 1; y++)
        d3[c][x][y] = 0.25f * (dx3[c][x][2 * y] + 2.0f * dx3[c][x][2 * y + 1]
                               + dx3[c][x][2 * y + 2]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < rows; x++)
      for (y = 0; y < 2 * cols + 1; y++)
        dx4[c][x][y] = 0.25f * (d3[c][2 * x][y] + 2.0f * d3[c][2 * x + 1][y]
                                + d3[c][2 * x + 2][y]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < rows; x++)
      for (y = 0; y < cols; y++)
        d4[c][x][y] = 0.25f * (dx4[c][x][2 * y] + 2.0f * dx4[c][x][2 * y + 1]
                               + dx4[c][x][2 * y + 2]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 2 * rows - 1; x++)
      for (y = 0; y < cols; y++)
        ux3[c][x][y] = 0.5f * (d4[c][x / 2][y] + d4[c][(x + 1) / 2][y]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 2 * rows - 1; x++)
      for (y = 0; y < 2 * cols - 1; y++)
        i3[c][x][y] = d3[c][x][y]
                      + (1.0f - d3[3][x][y]) * 0.5f * (ux3[c][x][y / 2] + ux3[c][x][(y + 1) / 2]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 4 * rows - 3; x++)
      for (y = 0; y < 2 * cols - 1; y++)
        ux2[c][x][y] = 0.5f * (i3[c][x / 2][y] + i3[c][(x + 1) / 2][y]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 4 * rows - 3; x++)
      for (y = 0; y < 4 * cols - 3; y++)
        i2[c][x][y] = d2[c][x][y]
                      + (1.0f - d2[3][x][y]) * 0.5f * (ux2[c][x][y / 2] + ux2[c][x][(y + 1) / 2]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 8 * rows - 7; x++)
      for (y = 0; y < 4 * cols - 3; y++)
        ux1[c][x][y] = 0.5f * (i2[c][x / 2][y] + i2[c][(x + 1) / 2][y]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 8 * rows - 7; x++)
      for (y = 0; y < 8 * cols - 7; y++)
        i1[c][x][y] = d1[c][x][y]
                      + (1.0f - d1[3][x][y]) * 0.5f * (ux1[c][x][y / 2] + ux1[c][x][(y + 1) / 2]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 16 * rows - 15; x++)
      for (y = 0; y < 8 * cols - 7; y++)
        ux0[c][x][y] = 0.5f * (i1[c][x / 2][y] + i1[c][(x + 1) / 2][y]);
  for (c = 0; c < 4; c++)
    for (x = 0; x < 16 * rows - 15; x++)
      for (y = 0; y < 16 * cols - 15; y++)
        i0[c][x][y] = d0[c][x][y]
                      + (1.0f - d0[3][x][y]) * 0.5f * (ux0[c][x][y / 2] + ux0[c][x][(y + 1) / 2]);
  for (c = 0; c < 3; c++)
    for (x = 0; x < 16 * rows - 15; x++)
      for (y = 0; y < 16 * cols - 15; y++)
        out[c][x][y] = i0[3][x][y] > 0.0f ? i0[c][x][y] / i0[3][x][y] : 0.0f;
#pragma endscop
}

int main(void)
{
  int rows = R, cols = C, run;
  float (*img)[16 * R + 16][16 * C + 16] =
      (float (*)[16 * R + 16][16 * C + 16])
      pipeline_alloc((long) 4 * (16 * R + 16) * (16 * C + 16));
  float (*d0)[16 * R + 16][16 * C + 16] =
      (float (*)[16 * R + 16][16 * C + 16])
      pipeline_alloc((long) 4 * (16 * R + 16) * (16 * C + 16));
  float (*dx1)[8 * R + 7][16 * C + 16] =
      (float (*)[8 * R + 7][16 * C + 16]) pipeline_alloc((long) 4 * (8 * R + 7) * (16 * C + 16));
  float (*d1)[8 * R + 7][8 * C + 7] =
      (float (*)[8 * R + 7][8 * C + 7]) pipeline_alloc((long) 4 * (8 * R + 7) * (8 * C + 7));
  float (*dx2)[4 * R + 3][8 * C + 7] =
      (float (*)[4 * R + 3][8 * C + 7]) pipeline_alloc((long) 4 * (4 * R + 3) * (8 * C + 7));
  float (*d2)[4 * R + 3][4 * C + 3] =
      (float (*)[4 * R + 3][4 * C + 3]) pipeline_alloc((long) 4 * (4 * R + 3) * (4 * C + 3));
  float (*dx3)[2 * R + 1][4 * C + 3] =
      (float (*)[2 * R + 1][4 * C + 3]) pipeline_alloc((long) 4 * (2 * R + 1) * (4 * C + 3));
  float (*d3)[2 * R + 1][2 * C + 1] =
      (float (*)[2 * R + 1][2 * C + 1]) pipeline_alloc((long) 4 * (2 * R + 1) * (2 * C + 1));
  float (*dx4)[R][2 * C + 1] =
      (float (*)[R][2 * C + 1]) pipeline_alloc((long) 4 * R * (2 * C + 1));
  float (*d4)[R][C] = (float (*)[R][C]) pipeline_alloc((long) 4 * R * C);
  float (*ux3)[2 * R - 1][C] =
      (float (*)[2 * R - 1][C]) pipeline_alloc((long) 4 * (2 * R - 1) * C);
  float (*i3)[2 * R - 1][2 * C - 1] =
      (float (*)[2 * R - 1][2 * C - 1]) pipeline_alloc((long) 4 * (2 * R - 1) * (2 * C - 1));
  float (*ux2)[4 * R - 3][2 * C - 1] =
      (float (*)[4 * R - 3][2 * C - 1]) pipeline_alloc((long) 4 * (4 * R - 3) * (2 * C - 1));
  float (*i2)[4 * R - 3][4 * C - 3] =
      (float (*)[4 * R - 3][4 * C - 3]) pipeline_alloc((long) 4 * (4 * R - 3) * (4 * C - 3));
  float (*ux1)[8 * R - 7][4 * C - 3] =
      (float (*)[8 * R - 7][4 * C - 3]) pipeline_alloc((long) 4 * (8 * R - 7) * (4 * C - 3));
  float (*i1)[8 * R - 7][8 * C - 7] =
      (float (*)[8 * R - 7][8 * C - 7]) pipeline_alloc((long) 4 * (8 * R - 7) * (8 * C - 7));
  float (*ux0)[16 * R - 15][8 * C - 7] =
      (float (*)[16 * R - 15][8 * C - 7]) pipeline_alloc((long) 4 * (16 * R - 15) * (8 * C - 7));
  float (*i0)[16 * R - 15][16 * C - 15] =
      (float (*)[16 * R - 15][16 * C - 15])
      pipeline_alloc((long) 4 * (16 * R - 15) * (16 * C - 15));
  float (*out)[16 * R - 15][16 * C - 15] =
      (float (*)[16 * R - 15][16 * C - 15])
      pipeline_alloc((long) 3 * (16 * R - 15) * (16 * C - 15));

  pipeline_input(&img[0][0][0], (long) (4) * (16 * R + 16) * (16 * C + 16), 5);
  for (run = 0; run < PIPELINE_RUNS; run++) {
    KERNEL_TIMER_START;
    interpolate(rows, cols, img, d0, dx1, d1, dx2, d2, dx3, d3, dx4, d4, ux3, i3, ux2, i2,
                ux1, i1, ux0, i0, out);
    KERNEL_TIMER_STOP;
  }
  KERNEL_OUTPUT_3D("out", out, 3, 16 * rows - 15, 16 * cols - 15);

  free(img);
  free(d0);
  free(dx1);
  free(d1);
  free(dx2);
  free(d2);
  free(dx3);
  free(d3);
  free(dx4);
  free(d4);
  free(ux3);
  free(i3);
  free(ux2);
  free(i2);
  free(ux1);
  free(i1);
  free(ux0);
  free(i0);
  free(out);
  return 0;
}
