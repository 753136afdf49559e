/*
 * harris.c - Harris corner detection (PolyMage's "Harris Corner"): Sobel
 * derivatives Ix and Iy of a grayscale image, their products Ixx, Iyy, Ixy,
 * 3x3 box sums Sxx, Syy, Sxy, and the response det - 0.04 trace^2.
 * A Pollen test pipeline; see README.md in this directory.
 */
#include "pipeline.h"

#ifndef R
# define R 64
#endif
#ifndef C
# define C 96
#endif

static void harris(int rows, int cols, float img[rows + 4][cols + 4],
                   float ix[rows + 2][cols + 2], float iy[rows + 2][cols + 2],
                   float ixx[rows + 2][cols + 2], float iyy[rows + 2][cols + 2],
                   float ixy[rows + 2][cols + 2], float sxx[rows][cols],
                   float syy[rows][cols], float sxy[rows][cols], float response[rows][cols])
{
  int x, y;

#pragma scop
  for (x = 0; x < rows + 2; x++)
    for (y = 0; y < cols + 2; y++)
      ix[x][y] = (img[x][y + 2] - img[x][y]) + 2.0f * (img[x + 1][y + 2] - img[x + 1][y])
                 + (img[x + 2][y + 2] - img[x + 2][y]);
  for (x = 0; x < rows + 2; x++)
    for (y = 0; y < cols + 2; y++)
      iy[x][y] = (img[x + 2][y] - img[x][y]) + 2.0f * (img[x + 2][y + 1] - img[x][y + 1])
                 + (img[x + 2][y + 2] - img[x][y + 2]);
  for (x = 0; x < rows + 2; x++)
    for (y = 0; y < cols + 2; y++)
      ixx[x][y] = ix[x][y] * ix[x][y];
  for (x = 0; x < rows + 2; x++)
    for (y = 0; y < cols + 2; y++)
      iyy[x][y] = iy[x][y] * iy[x][y];
  for (x = 0; x < rows + 2; x++)
    for (y = 0; y < cols + 2; y++)
      ixy[x][y] = ix[x][y] * iy[x][y];
  for (x = 0; x < rows; x++)
    for (y = 0; y < cols; y++)
      sxx[x][y] = ixx[x][y] + ixx[x][y + 1] + ixx[x][y + 2] + ixx[x + 1][y] + ixx[x + 1][y + 1]
                  + ixx[x + 1][y + 2] + ixx[x + 2][y] + ixx[x + 2][y + 1] + ixx[x + 2][y + 2];
  for (x = 0; x < rows; x++)
    for (y = 0; y < cols; y++)
      syy[x][y] = iyy[x][y] + iyy[x][y + 1] + iyy[x][y + 2] + iyy[x + 1][y] + iyy[x + 1][y + 1]
                  + iyy[x + 1][y + 2] + iyy[x + 2][y] + iyy[x + 2][y + 1] + iyy[x + 2][y + 2];
  for (x = 0; x < rows; x++)
    for (y = 0; y < cols; y++)
      sxy[x][y] = ixy[x][y] + ixy[x][y + 1] + ixy[x][y + 2] + ixy[x + 1][y] + ixy[x + 1][y + 1]
                  + ixy[x + 1][y + 2] + ixy[x + 2][y] + ixy[x + 2][y + 1] + ixy[x + 2][y + 2];
  for (x = 0; x < rows; x++)
    for (y = 0; y < cols; y++)
      response[x][y] = (sxx[x][y] * syy[x][y] - sxy[x][y] * sxy[x][y])
                       - 0.04f * (sxx[x][y] + syy[x][y]) * (sxx[x][y] + syy[x][y]);
#pragma endscop
}

int main(void)
{
  int rows = R, cols = C, run;
  float (*img)[C + 4] = (float (*)[C + 4]) pipeline_alloc((R + 4L) * (C + 4));
  float (*ix)[C + 2] = (float (*)[C + 2]) pipeline_alloc((R + 2L) * (C + 2));
  float (*iy)[C + 2] = (float (*)[C + 2]) pipeline_alloc((R + 2L) * (C + 2));
  float (*ixx)[C + 2] = (float (*)[C + 2]) pipeline_alloc((R + 2L) * (C + 2));
  float (*iyy)[C + 2] = (float (*)[C + 2]) pipeline_alloc((R + 2L) * (C + 2));
  float (*ixy)[C + 2] = (float (*)[C + 2]) pipeline_alloc((R + 2L) * (C + 2));
  float (*sxx)[C] = (float (*)[C]) pipeline_alloc((long) R * C);
  float (*syy)[C] = (float (*)[C]) pipeline_alloc((long) R * C);
  float (*sxy)[C] = (float (*)[C]) pipeline_alloc((long) R * C);
  float (*response)[C] = (float (*)[C]) pipeline_alloc((long) R * C);

  pipeline_input(&img[0][0], (R + 4L) * (C + 4), 3);
  for (run = 0; run < PIPELINE_RUNS; run++) {
    KERNEL_TIMER_START;
    harris(rows, cols, img, ix, iy, ixx, iyy, ixy, sxx, syy, sxy, response);
    KERNEL_TIMER_STOP;
  }
  KERNEL_OUTPUT_2D("response", response, rows, cols);

  free(img);
  free(ix);
  free(iy);
  free(ixx);
  free(iyy);
  free(ixy);
  free(sxx);
  free(syy);
  free(sxy);
  free(response);
  return 0;
}
