/*
 * unsharp.c - unsharp masking (PolyMage's "Unsharp Mask"): a separable 5-tap
 * binomial blur (blurx, blury), a sharpened image, and a mask that keeps the
 * input where it differs little from the blur; three channels.
 * A Pollen test pipeline; see README.md in this directory.
 */
#include "pipeline.h"

#ifndef R
# define R 64
#endif
#ifndef C
# define C 96
#endif

static void unsharp(int rows, int cols, float img[3][rows + 4][cols + 4],
                    float blurx[3][rows + 4][cols], float blury[3][rows][cols],
                    float sharpen[3][rows][cols], float masked[3][rows][cols])
{
  int c, x, y;

#pragma scop
  for (c = 0; c < 3; c++)
    for (x = 0; x < rows + 4; x++)
      for (y = 0; y < cols; y++)
        blurx[c][x][y] = (img[c][x][y] + 4.0f * img[c][x][y + 1] + 6.0f * img[c][x][y + 2]
                          + 4.0f * img[c][x][y + 3] + img[c][x][y + 4]) / 16.0f;
  for (c = 0; c < 3; c++)
    for (x = 0; x < rows; x++)
      for (y = 0; y < cols; y++)
        blury[c][x][y] = (blurx[c][x][y] + 4.0f * blurx[c][x + 1][y] + 6.0f * blurx[c][x + 2][y]
                          + 4.0f * blurx[c][x + 3][y] + blurx[c][x + 4][y]) / 16.0f;
  for (c = 0; c < 3; c++)
    for (x = 0; x < rows; x++)
      for (y = 0; y < cols; y++)
        sharpen[c][x][y] = img[c][x + 2][y + 2] * 2.0f - blury[c][x][y];
  for (c = 0; c < 3; c++)
    for (x = 0; x < rows; x++)
      for (y = 0; y < cols; y++)
        masked[c][x][y] = (img[c][x + 2][y + 2] - blury[c][x][y] < 0.001f
                           && img[c][x + 2][y + 2] - blury[c][x][y] > -0.001f)
                              ? img[c][x + 2][y + 2] : sharpen[c][x][y];
#pragma endscop
}

int main(void)
{
  int rows = R, cols = C, run;
  float (*img)[R + 4][C + 4] = (float (*)[R + 4][C + 4]) pipeline_alloc(3L * (R + 4) * (C + 4));
  float (*blurx)[R + 4][C] = (float (*)[R + 4][C]) pipeline_alloc(3L * (R + 4) * C);
  float (*blury)[R][C] = (float (*)[R][C]) pipeline_alloc(3L * R * C);
  float (*sharpen)[R][C] = (float (*)[R][C]) pipeline_alloc(3L * R * C);
  float (*masked)[R][C] = (float (*)[R][C]) pipeline_alloc(3L * R * C);

  pipeline_input(&img[0][0][0], 3L * (R + 4) * (C + 4), 2);
  for (run = 0; run < PIPELINE_RUNS; run++) {
    KERNEL_TIMER_START;
    unsharp(rows, cols, img, blurx, blury, sharpen, masked);
    KERNEL_TIMER_STOP;
  }
  KERNEL_OUTPUT_3D("masked", masked, 3, rows, cols);

  free(img);
  free(blurx);
  free(blury);
  free(sharpen);
  free(masked);
  return 0;
}
