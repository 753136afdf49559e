/*
 * pyramid.c - pyramid blending (PolyMage's "Pyramid Blending"): Gaussian pyramids
 * of two images a and b and of a mask (4 levels; each level filters its finer one
 * with [1 2 1]/4 along each dimension and keeps every second point), Laplacian
 * pyramids of a and b (a level minus its coarser level upsampled by linear
 * interpolation), a per-level blend weighted by the mask's pyramid, and the collapse
 * of the blended pyramid (upsample, add) into out; one channel.
 * The finest level has (8 R + 8) x (8 C + 8) points and level l about 1/2^l of that;
 * every stage computes the points whose reads are defined, so the levels shrink a
 * little at their upper ends.
 * A Pollen test pipeline; see README.md in this directory.
 */
#include "pipeline.h"

#ifndef R
# define R 8
#endif
#ifndef C
# define C 12
#endif

static void pyramid(int rows, int cols, float a[8 * rows + 8][8 * cols + 8],
                    float b[8 * rows + 8][8 * cols + 8], float mask[8 * rows + 8][8 * cols + 8],
                    float a_dx1[4 * rows + 3][8 * cols + 8],
                    float a_g1[4 * rows + 3][4 * cols + 3],
                    float a_dx2[2 * rows + 1][4 * cols + 3],
                    float a_g2[2 * rows + 1][2 * cols + 1], float a_dx3[rows][2 * cols + 1],
                    float a_g3[rows][cols], float b_dx1[4 * rows + 3][8 * cols + 8],
                    float b_g1[4 * rows + 3][4 * cols + 3],
                    float b_dx2[2 * rows + 1][4 * cols + 3],
                    float b_g2[2 * rows + 1][2 * cols + 1], float b_dx3[rows][2 * cols + 1],
                    float b_g3[rows][cols], float m_dx1[4 * rows + 3][8 * cols + 8],
                    float m_g1[4 * rows + 3][4 * cols + 3],
                    float m_dx2[2 * rows + 1][4 * cols + 3],
                    float m_g2[2 * rows + 1][2 * cols + 1], float m_dx3[rows][2 * cols + 1],
                    float m_g3[rows][cols], float a_ux0[8 * rows + 5][4 * cols + 3],
                    float a_lap0[8 * rows + 5][8 * cols + 5],
                    float a_ux1[4 * rows + 1][2 * cols + 1],
                    float a_lap1[4 * rows + 1][4 * cols + 1], float a_ux2[2 * rows - 1][cols],
                    float a_lap2[2 * rows - 1][2 * cols - 1],
                    float b_ux0[8 * rows + 5][4 * cols + 3],
                    float b_lap0[8 * rows + 5][8 * cols + 5],
                    float b_ux1[4 * rows + 1][2 * cols + 1],
                    float b_lap1[4 * rows + 1][4 * cols + 1], float b_ux2[2 * rows - 1][cols],
                    float b_lap2[2 * rows - 1][2 * cols - 1],
                    float blend0[8 * rows + 5][8 * cols + 5],
                    float blend1[4 * rows + 1][4 * cols + 1],
                    float blend2[2 * rows - 1][2 * cols - 1], float blend3[rows][cols],
                    float cx2[2 * rows - 1][cols], float col2[2 * rows - 1][2 * cols - 1],
                    float cx1[4 * rows - 3][2 * cols - 1],
                    float col1[4 * rows - 3][4 * cols - 3],
                    float cx0[8 * rows - 7][4 * cols - 3],
                    float out[8 * rows - 7][8 * cols - 7])
{
  int x, y;

#pragma scop
  for (x = 0; x < 4 * rows + 3; x++)
    for (y = 0; y < 8 * cols + 8; y++)
      a_dx1[x][y] = 0.25f * (a[2 * x][y] + 2.0f * a[2 * x + 1][y] + a[2 * x + 2][y]);
  for (x = 0; x < 4 * rows + 3; x++)
    for (y = 0; y < 4 * cols + 3; y++)
      a_g1[x][y] = 0.25f * (a_dx1[x][2 * y] + 2.0f * a_dx1[x][2 * y + 1] + a_dx1[x][2 * y + 2]);
  for (x = 0; x < 2 * rows + 1; x++)
    for (y = 0; y < 4 * cols + 3; y++)
      a_dx2[x][y] = 0.25f * (a_g1[2 * x][y] + 2.0f * a_g1[2 * x + 1][y] + a_g1[2 * x + 2][y]);
  for (x = 0; x < 2 * rows + 1; x++)
    for (y = 0; y < 2 * cols + 1; y++)
      a_g2[x][y] = 0.25f * (a_dx2[x][2 * y] + 2.0f * a_dx2[x][2 * y + 1] + a_dx2[x][2 * y + 2]);
  for (x = 0; x < rows; x++)
    for (y = 0; y < 2 * cols + 1; y++)
      a_dx3[x][y] = 0.25f * (a_g2[2 * x][y] + 2.0f * a_g2[2 * x + 1][y] + a_g2[2 * x + 2][y]);
  for (x = 0; x < rows; x++)
    for (y = 0; y < cols; y++)
      a_g3[x][y] = 0.25f * (a_dx3[x][2 * y] + 2.0f * a_dx3[x][2 * y + 1] + a_dx3[x][2 * y + 2]);
  for (x = 0; x < 4 * rows + 3; x++)
    for (y = 0; y < 8 * cols + 8; y++)
      b_dx1[x][y] = 0.25f * (b[2 * x][y] + 2.0f * b[2 * x + 1][y] + b[2 * x + 2][y]);
  for (x = 0; x < 4 * rows + 3; x++)
    for (y = 0; y < 4 * cols + 3; y++)
      b_g1[x][y] = 0.25f * (b_dx1[x][2 * y] + 2.0f * b_dx1[x][2 * y + 1] + b_dx1[x][2 * y + 2]);
  for (x = 0; x < 2 * rows + 1; x++)
    for (y = 0; y < 4 * cols + 3; y++)
      b_dx2[x][y] = 0.25f * (b_g1[2 * x][y] + 2.0f * b_g1[2 * x + 1][y] + b_g1[2 * x + 2][y]);
  for (x = 0; x < 2 * rows + 1; x++)
    for (y = 0; y < 2 * cols + 1; y++)
      b_g2[x][y] = 0.25f * (b_dx2[x][2 * y] + 2.0f * b_dx2[x][2 * y + 1] + b_dx2[x][2 * y + 2]);
  for (x = 0; x < rows; x++)
    for (y = 0; y < 2 * cols + 1; y++)
      b_dx3[x][y] = 0.25f * (b_g2[2 * x][y] + 2.0f * b_g2[2 * x + 1][y] + b_g2[2 * x + 2][y]);
  for (x = 0; x < rows; x++)
    for (y = 0; y < cols; y++)
      b_g3[x][y] = 0.25f * (b_dx3[x][2 * y] + 2.0f * b_dx3[x][2 * y + 1] + b_dx3[x][2 * y + 2]);
  for (x = 0; x < 4 * rows + 3; x++)
    for (y = 0; y < 8 * cols + 8; y++)
      m_dx1[x][y] = 0.25f * (mask[2 * x][y] + 2.0f * mask[2 * x + 1][y] + mask[2 * x + 2][y]);
  for (x = 0; x < 4 * rows + 3; x++)
    for (y = 0; y < 4 * cols + 3; y++)
      m_g1[x][y] = 0.25f * (m_dx1[x][2 * y] + 2.0f * m_dx1[x][2 * y + 1] + m_dx1[x][2 * y + 2]);
  for (x = 0; x < 2 * rows + 1; x++)
    for (y = 0; y < 4 * cols + 3; y++)
      m_dx2[x][y] = 0.25f * (m_g1[2 * x][y] + 2.0f * m_g1[2 * x + 1][y] + m_g1[2 * x + 2][y]);
  for (x = 0; x < 2 * rows + 1; x++)
    for (y = 0; y < 2 * cols + 1; y++)
      m_g2[x][y] = 0.25f * (m_dx2[x][2 * y] + 2.0f * m_dx2[x][2 * y + 1] + m_dx2[x][2 * y + 2]);
  for (x = 0; x < rows; x++)
    for (y = 0; y < 2 * cols + 1; y++)
      m_dx3[x][y] = 0.25f * (m_g2[2 * x][y] + 2.0f * m_g2[2 * x + 1][y] + m_g2[2 * x + 2][y]);
  for (x = 0; x < rows; x++)
    for (y = 0; y < cols; y++)
      m_g3[x][y] = 0.25f * (m_dx3[x][2 * y] + 2.0f * m_dx3[x][2 * y + 1] + m_dx3[x][2 * y + 2]);
  for (x = 0; x < 8 * rows + 5; x++)
    for (y = 0; y < 4 * cols + 3; y++)
      a_ux0[x][y] = 0.5f * (a_g1[x / 2][y] + a_g1[(x + 1) / 2][y]);
  for (x = 0; x < 8 * rows + 5; x++)
    for (y = 0; y < 8 * cols + 5; y++)
      a_lap0[x][y] = a[x][y] - 0.5f * (a_ux0[x][y / 2] + a_ux0[x][(y + 1) / 2]);
  for (x = 0; x < 4 * rows + 1; x++)
    for (y = 0; y < 2 * cols + 1; y++)
      a_ux1[x][y] = 0.5f * (a_g2[x / 2][y] + a_g2[(x + 1) / 2][y]);
  for (x = 0; x < 4 * rows + 1; x++)
    for (y = 0; y < 4 * cols + 1; y++)
      a_lap1[x][y] = a_g1[x][y] - 0.5f * (a_ux1[x][y / 2] + a_ux1[x][(y + 1) / 2]);
  for (x = 0; x < 2 * rows - 1; x++)
    for (y = 0; y < cols; y++)
      a_ux2[x][y] = 0.5f * (a_g3[x / 2][y] + a_g3[(x + 1) / 2][y]);
  for (x = 0; x < 2 * rows - 1; x++)
    for (y = 0; y < 2 * cols - 1; y++)
      a_lap2[x][y] = a_g2[x][y] - 0.5f * (a_ux2[x][y / 2] + a_ux2[x][(y + 1) / 2]);
  for (x = 0; x < 8 * rows + 5; x++)
    for (y = 0; y < 4 * cols + 3; y++)
      b_ux0[x][y] = 0.5f * (b_g1[x / 2][y] + b_g1[(x + 1) / 2][y]);
  for (x = 0; x < 8 * rows + 5; x++)
    for (y = 0; y < 8 * cols + 5; y++)
      b_lap0[x][y] = b[x][y] - 0.5f * (b_ux0[x][y / 2] + b_ux0[x][(y + 1) / 2]);
  for (x = 0; x < 4 * rows + 1; x++)
    for (y = 0; y < 2 * cols + 1; y++)
      b_ux1[x][y] = 0.5f * (b_g2[x / 2][y] + b_g2[(x + 1) / 2][y]);
  for (x = 0; x < 4 * rows + 1; x++)
    for (y = 0; y < 4 * cols + 1; y++)
      b_lap1[x][y] = b_g1[x][y] - 0.5f * (b_ux1[x][y / 2] + b_ux1[x][(y + 1) / 2]);
  for (x = 0; x < 2 * rows - 1; x++)
    for (y = 0; y < cols; y++)
      b_ux2[x][y] = 0.5f * (b_g3[x / 2][y] + b_g3[(x + 1) / 2][y]);
  for (x = 0; x < 2 * rows - 1; x++)
    for (y = 0; y < 2 * cols - 1; y++)
      b_lap2[x][y] = b_g2[x][y] - 0.5f * (b_ux2[x][y / 2] + b_ux2[x][(y + 1) / 2]);
  for (x = 0; x < 8 * rows + 5; x++)
    for (y = 0; y < 8 * cols + 5; y++)
      blend0[x][y] = mask[x][y] * a_lap0[x][y] + (1.0f - mask[x][y]) * b_lap0[x][y];
  for (x = 0; x < 4 * rows + 1; x++)
    for (y = 0; y < 4 * cols + 1; y++)
      blend1[x][y] = m_g1[x][y] * a_lap1[x][y] + (1.0f - m_g1[x][y]) * b_lap1[x][y];
  for (x = 0; x < 2 * rows - 1; x++)
    for (y = 0; y < 2 * cols - 1; y++)
      blend2[x][y] = m_g2[x][y] * a_lap2[x][y] + (1.0f - m_g2[x][y]) * b_lap2[x][y];
  for (x = 0; x < rows; x++)
    for (y = 0; y < cols; y++)
      blend3[x][y] = m_g3[x][y] * a_g3[x][y] + (1.0f - m_g3[x][y]) * b_g3[x][y];
  for (x = 0; x < 2 * rows - 1; x++)
    for (y = 0; y < cols; y++)
      cx2[x][y] = 0.5f * (blend3[x / 2][y] + blend3[(x + 1) / 2][y]);
  for (x = 0; x < 2 * rows - 1; x++)
    for (y = 0; y < 2 * cols - 1; y++)
      col2[x][y] = blend2[x][y] + 0.5f * (cx2[x][y / 2] + cx2[x][(y + 1) / 2]);
  for (x = 0; x < 4 * rows - 3; x++)
    for (y = 0; y < 2 * cols - 1; y++)
      cx1[x][y] = 0.5f * (col2[x / 2][y] + col2[(x + 1) / 2][y]);
  for (x = 0; x < 4 * rows - 3; x++)
    for (y = 0; y < 4 * cols - 3; y++)
      col1[x][y] = blend1[x][y] + 0.5f * (cx1[x][y / 2] + cx1[x][(y + 1) / 2]);
  for (x = 0; x < 8 * rows - 7; x++)
    for (y = 0; y < 4 * cols - 3; y++)
      cx0[x][y] = 0.5f * (col1[x / 2][y] + col1[(x + 1) / 2][y]);
  for (x = 0; x < 8 * rows - 7; x++)
    for (y = 0; y < 8 * cols - 7; y++)
      out[x][y] = blend0[x][y] + 0.5f * (cx0[x][y / 2] + cx0[x][(y + 1) / 2]);
#pragma endscop
}

int main(void)
{
  int rows = R, cols = C, run;
  float (*a)[8 * C + 8] = (float (*)[8 * C + 8]) pipeline_alloc((long) (8 * R + 8) * (8 * C + 8));
  float (*b)[8 * C + 8] = (float (*)[8 * C + 8]) pipeline_alloc((long) (8 * R + 8) * (8 * C + 8));
  float (*mask)[8 * C + 8] =
      (float (*)[8 * C + 8]) pipeline_alloc((long) (8 * R + 8) * (8 * C + 8));
  float (*a_dx1)[8 * C + 8] =
      (float (*)[8 * C + 8]) pipeline_alloc((long) (4 * R + 3) * (8 * C + 8));
  float (*a_g1)[4 * C + 3] =
      (float (*)[4 * C + 3]) pipeline_alloc((long) (4 * R + 3) * (4 * C + 3));
  float (*a_dx2)[4 * C + 3] =
      (float (*)[4 * C + 3]) pipeline_alloc((long) (2 * R + 1) * (4 * C + 3));
  float (*a_g2)[2 * C + 1] =
      (float (*)[2 * C + 1]) pipeline_alloc((long) (2 * R + 1) * (2 * C + 1));
  float (*a_dx3)[2 * C + 1] = (float (*)[2 * C + 1]) pipeline_alloc((long) R * (2 * C + 1));
  float (*a_g3)[C] = (float (*)[C]) pipeline_alloc((long) R * C);
  float (*b_dx1)[8 * C + 8] =
      (float (*)[8 * C + 8]) pipeline_alloc((long) (4 * R + 3) * (8 * C + 8));
  float (*b_g1)[4 * C + 3] =
      (float (*)[4 * C + 3]) pipeline_alloc((long) (4 * R + 3) * (4 * C + 3));
  float (*b_dx2)[4 * C + 3] =
      (float (*)[4 * C + 3]) pipeline_alloc((long) (2 * R + 1) * (4 * C + 3));
  float (*b_g2)[2 * C + 1] =
      (float (*)[2 * C + 1]) pipeline_alloc((long) (2 * R + 1) * (2 * C + 1));
  float (*b_dx3)[2 * C + 1] = (float (*)[2 * C + 1]) pipeline_alloc((long) R * (2 * C + 1));
  float (*b_g3)[C] = (float (*)[C]) pipeline_alloc((long) R * C);
  float (*m_dx1)[8 * C + 8] =
      (float (*)[8 * C + 8]) pipeline_alloc((long) (4 * R + 3) * (8 * C + 8));
  float (*m_g1)[4 * C + 3] =
      (float (*)[4 * C + 3]) pipeline_alloc((long) (4 * R + 3) * (4 * C + 3));
  float (*m_dx2)[4 * C + 3] =
      (float (*)[4 * C + 3]) pipeline_alloc((long) (2 * R + 1) * (4 * C + 3));
  float (*m_g2)[2 * C + 1] =
      (float (*)[2 * C + 1]) pipeline_alloc((long) (2 * R + 1) * (2 * C + 1));
  float (*m_dx3)[2 * C + 1] = (float (*)[2 * C + 1]) pipeline_alloc((long) R * (2 * C + 1));
  float (*m_g3)[C] = (float (*)[C]) pipeline_alloc((long) R * C);
  float (*a_ux0)[4 * C + 3] =
      (float (*)[4 * C + 3]) pipeline_alloc((long) (8 * R + 5) * (4 * C + 3));
  float (*a_lap0)[8 * C + 5] =
      (float (*)[8 * C + 5]) pipeline_alloc((long) (8 * R + 5) * (8 * C + 5));
  float (*a_ux1)[2 * C + 1] =
      (float (*)[2 * C + 1]) pipeline_alloc((long) (4 * R + 1) * (2 * C + 1));
  float (*a_lap1)[4 * C + 1] =
      (float (*)[4 * C + 1]) pipeline_alloc((long) (4 * R + 1) * (4 * C + 1));
  float (*a_ux2)[C] = (float (*)[C]) pipeline_alloc((long) (2 * R - 1) * C);
  float (*a_lap2)[2 * C - 1] =
      (float (*)[2 * C - 1]) pipeline_alloc((long) (2 * R - 1) * (2 * C - 1));
  float (*b_ux0)[4 * C + 3] =
      (float (*)[4 * C + 3]) pipeline_alloc((long) (8 * R + 5) * (4 * C + 3));
  float (*b_lap0)[8 * C + 5] =
      (float (*)[8 * C + 5]) pipeline_alloc((long) (8 * R + 5) * (8 * C + 5));
  float (*b_ux1)[2 * C + 1] =
      (float (*)[2 * C + 1]) pipeline_alloc((long) (4 * R + 1) * (2 * C + 1));
  float (*b_lap1)[4 * C + 1] =
      (float (*)[4 * C + 1]) pipeline_alloc((long) (4 * R + 1) * (4 * C + 1));
  float (*b_ux2)[C] = (float (*)[C]) pipeline_alloc((long) (2 * R - 1) * C);
  float (*b_lap2)[2 * C - 1] =
      (float (*)[2 * C - 1]) pipeline_alloc((long) (2 * R - 1) * (2 * C - 1));
  float (*blend0)[8 * C + 5] =
      (float (*)[8 * C + 5]) pipeline_alloc((long) (8 * R + 5) * (8 * C + 5));
  float (*blend1)[4 * C + 1] =
      (float (*)[4 * C + 1]) pipeline_alloc((long) (4 * R + 1) * (4 * C + 1));
  float (*blend2)[2 * C - 1] =
      (float (*)[2 * C - 1]) pipeline_alloc((long) (2 * R - 1) * (2 * C - 1));
  float (*blend3)[C] = (float (*)[C]) pipeline_alloc((long) R * C);
  float (*cx2)[C] = (float (*)[C]) pipeline_alloc((long) (2 * R - 1) * C);
  float (*col2)[2 * C - 1] =
      (float (*)[2 * C - 1]) pipeline_alloc((long) (2 * R - 1) * (2 * C - 1));
  float (*cx1)[2 * C - 1] =
      (float (*)[2 * C - 1]) pipeline_alloc((long) (4 * R - 3) * (2 * C - 1));
  float (*col1)[4 * C - 3] =
      (float (*)[4 * C - 3]) pipeline_alloc((long) (4 * R - 3) * (4 * C - 3));
  float (*cx0)[4 * C - 3] =
      (float (*)[4 * C - 3]) pipeline_alloc((long) (8 * R - 7) * (4 * C - 3));
  float (*out)[8 * C - 7] =
      (float (*)[8 * C - 7]) pipeline_alloc((long) (8 * R - 7) * (8 * C - 7));

  pipeline_input(&a[0][0], (long) (8 * R + 8) * (8 * C + 8), 1);
  pipeline_input(&b[0][0], (long) (8 * R + 8) * (8 * C + 8), 2);
  pipeline_input(&mask[0][0], (long) (8 * R + 8) * (8 * C + 8), 3);
  for (run = 0; run < PIPELINE_RUNS; run++) {
    KERNEL_TIMER_START;
    pyramid(rows, cols, a, b, mask, a_dx1, a_g1, a_dx2, a_g2, a_dx3, a_g3, b_dx1, b_g1, b_dx2,
            b_g2, b_dx3, b_g3, m_dx1, m_g1, m_dx2, m_g2, m_dx3, m_g3, a_ux0, a_lap0, a_ux1,
            a_lap1, a_ux2, a_lap2, b_ux0, b_lap0, b_ux1, b_lap1, b_ux2, b_lap2, blend0,
            blend1, blend2, blend3, cx2, col2, cx1, col1, cx0, out);
    KERNEL_TIMER_STOP;
  }
  KERNEL_OUTPUT_2D("out", out, 8 * rows - 7, 8 * cols - 7);

  free(a);
  free(b);
  free(mask);
  free(a_dx1);
  free(a_g1);
  free(a_dx2);
  free(a_g2);
  free(a_dx3);
  free(a_g3);
  free(b_dx1);
  free(b_g1);
  free(b_dx2);
  free(b_g2);
  free(b_dx3);
  free(b_g3);
  free(m_dx1);
  free(m_g1);
  free(m_dx2);
  free(m_g2);
  free(m_dx3);
  free(m_g3);
  free(a_ux0);
  free(a_lap0);
  free(a_ux1);
  free(a_lap1);
  free(a_ux2);
  free(a_lap2);
  free(b_ux0);
  free(b_lap0);
  free(b_ux1);
  free(b_lap1);
  free(b_ux2);
  free(b_lap2);
  free(blend0);
  free(blend1);
  free(blend2);
  free(blend3);
  free(cx2);
  free(col2);
  free(cx1);
  free(col1);
  free(cx0);
  free(out);
  return 0;
}
