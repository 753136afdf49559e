/*
 * blur.c - a 3x3 box blur, separated: blurx averages three columns, blury
 * three rows of blurx (PolyMage's running example, Fig. 1 of the TOPLAS
 * 2020 paper), on a three-channel image.
 * A Pollen test pipeline; see README.md in this directory.
 */
#include "pipeline.h"

#ifndef R
# define R 64
#endif
#ifndef C
# define C 96
#endif

static void blur(int rows, int cols, float img[3][rows + 2][cols + 2],
                 float blurx[3][rows + 2][cols], float blury[3][rows][cols])
{
  int c, x, y;

#pragma scop
  for (c = 0; c < 3; c++)
    for (x = 0; x < rows + 2; x++)
      for (y = 0; y < cols; y++)
        blurx[c][x][y] = (img[c][x][y] + img[c][x][y + 1] + img[c][x][y + 2]) / 3.0f;
  for (c = 0; c < 3; c++)
    for (x = 0; x < rows; x++)
      for (y = 0; y < cols; y++)
        blury[c][x][y] = (blurx[c][x][y] + blurx[c][x + 1][y] + blurx[c][x + 2][y]) / 3.0f;
#pragma endscop
}

int main(void)
{
  int rows = R, cols = C, run;
  float (*img)[R + 2][C + 2] = (float (*)[R + 2][C + 2]) pipeline_alloc(3L * (R + 2) * (C + 2));
  float (*blurx)[R + 2][C] = (float (*)[R + 2][C]) pipeline_alloc(3L * (R + 2) * C);
  float (*blury)[R][C] = (float (*)[R][C]) pipeline_alloc(3L * R * C);

  pipeline_input(&img[0][0][0], 3L * (R + 2) * (C + 2), 1);
  for (run = 0; run < PIPELINE_RUNS; run++) {
    KERNEL_TIMER_START;
    blur(rows, cols, img, blurx, blury);
    KERNEL_TIMER_STOP;
  }
  KERNEL_OUTPUT_3D("blury", blury, 3, rows, cols);

  free(img);
  free(blurx);
  free(blury);
  return 0;
}
