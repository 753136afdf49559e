/*
 * wcycle.c - one multigrid W-cycle for the 2-D Poisson equation (PolyMage's
 * "Jacobi2D-W" multigrid benchmark, with 2-2-2 smoothing): on three levels,
 * 2 weighted-Jacobi pre-smoothing steps (pre<l>_k; from a zero guess on the coarser
 * levels), the residual (res<l>_k), its full-weighting restriction to the next
 * coarser level (rhs<l>_k: coarse i reads fine 2 i - 1 .. 2 i + 1), 2 Jacobi steps
 * on the coarsest level (sm2_k), bilinear interpolation of the coarse result (ip<l>_k:
 * fine i reads coarse i / 2 and (i + 1) / 2), the correction (cor<l>_k) and 2
 * post-smoothing steps; every step writes its own array.
 * Each coarse level is visited twice per visit of its finer level (gamma = 2):
 * level 1 twice, level 2 four times, each later visit starting from the result of
 * the one before.
 * The fine grid has 4 N + 108 points along each dimension (v, the initial guess, and f,
 * the right-hand side); every stage computes the points whose reads are defined, so
 * the grids lose a few points at their edges per step (u, the result, keeps
 * the points 54 .. 4 N + 54).
 * A Pollen test pipeline; see README.md in this directory.
 */
#include "pipeline.h"

#ifndef N
# define N 8
#endif

static void wcycle(int n, float v[4 * n + 108][4 * n + 108], float f[4 * n + 108][4 * n + 108],
                   float pre0_1[4 * n + 107][4 * n + 107],
                   float pre0_2[4 * n + 106][4 * n + 106],
                   float res0_1[4 * n + 105][4 * n + 105], float rhs1_1[2 * n + 52][2 * n + 52],
                   float pre1_1[2 * n + 52][2 * n + 52], float pre1_2[2 * n + 51][2 * n + 51],
                   float res1_1[2 * n + 50][2 * n + 50], float rhs2_1[n + 25][n + 25],
                   float sm2_1[n + 25][n + 25], float sm2_2[n + 24][n + 24],
                   float sm2_3[n + 23][n + 23], float sm2_4[n + 22][n + 22],
                   float ip1_1[2 * n + 43][2 * n + 43], float cor1_1[2 * n + 43][2 * n + 43],
                   float post1_1[2 * n + 42][2 * n + 42], float post1_2[2 * n + 41][2 * n + 41],
                   float pre1_3[2 * n + 40][2 * n + 40], float pre1_4[2 * n + 39][2 * n + 39],
                   float res1_2[2 * n + 38][2 * n + 38], float rhs2_2[n + 19][n + 19],
                   float sm2_5[n + 19][n + 19], float sm2_6[n + 18][n + 18],
                   float sm2_7[n + 17][n + 17], float sm2_8[n + 16][n + 16],
                   float ip1_2[2 * n + 31][2 * n + 31], float cor1_2[2 * n + 31][2 * n + 31],
                   float post1_3[2 * n + 30][2 * n + 30], float post1_4[2 * n + 29][2 * n + 29],
                   float ip0_1[4 * n + 57][4 * n + 57], float cor0_1[4 * n + 57][4 * n + 57],
                   float post0_1[4 * n + 56][4 * n + 56], float u[4 * n + 55][4 * n + 55])
{
  int x, y;

#pragma scop
  for (x = 1; x < 4 * n + 107; x++)
    for (y = 1; y < 4 * n + 107; y++)
      pre0_1[x][y] = v[x][y]
                     + 0.8f * (0.25f * (f[x][y] + v[x - 1][y] + v[x + 1][y] + v[x][y - 1]
                                        + v[x][y + 1])
                               - v[x][y]);
  for (x = 2; x < 4 * n + 106; x++)
    for (y = 2; y < 4 * n + 106; y++)
      pre0_2[x][y] = pre0_1[x][y]
                     + 0.8f * (0.25f * (f[x][y] + pre0_1[x - 1][y] + pre0_1[x + 1][y]
                                        + pre0_1[x][y - 1] + pre0_1[x][y + 1])
                               - pre0_1[x][y]);
  for (x = 3; x < 4 * n + 105; x++)
    for (y = 3; y < 4 * n + 105; y++)
      res0_1[x][y] = f[x][y]
                     - (4.0f * pre0_2[x][y] - pre0_2[x - 1][y] - pre0_2[x + 1][y]
                        - pre0_2[x][y - 1] - pre0_2[x][y + 1]);
  for (x = 2; x < 2 * n + 52; x++)
    for (y = 2; y < 2 * n + 52; y++)
      rhs1_1[x][y] = 0.0625f * (4.0f * res0_1[2 * x][2 * y]
                     + 2.0f * (res0_1[2 * x - 1][2 * y] + res0_1[2 * x + 1][2 * y]
                               + res0_1[2 * x][2 * y - 1] + res0_1[2 * x][2 * y + 1])
                     + res0_1[2 * x - 1][2 * y - 1] + res0_1[2 * x - 1][2 * y + 1]
                     + res0_1[2 * x + 1][2 * y - 1] + res0_1[2 * x + 1][2 * y + 1]);
  for (x = 2; x < 2 * n + 52; x++)
    for (y = 2; y < 2 * n + 52; y++)
      pre1_1[x][y] = 0.2f * 4.0f * rhs1_1[x][y];
  for (x = 3; x < 2 * n + 51; x++)
    for (y = 3; y < 2 * n + 51; y++)
      pre1_2[x][y] = pre1_1[x][y]
                     + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + pre1_1[x - 1][y]
                                        + pre1_1[x + 1][y] + pre1_1[x][y - 1] + pre1_1[x][y + 1])
                               - pre1_1[x][y]);
  for (x = 4; x < 2 * n + 50; x++)
    for (y = 4; y < 2 * n + 50; y++)
      res1_1[x][y] = rhs1_1[x][y]
                     - 0.25f * (4.0f * pre1_2[x][y] - pre1_2[x - 1][y] - pre1_2[x + 1][y]
                                - pre1_2[x][y - 1] - pre1_2[x][y + 1]);
  for (x = 3; x < n + 25; x++)
    for (y = 3; y < n + 25; y++)
      rhs2_1[x][y] = 0.0625f * (4.0f * res1_1[2 * x][2 * y]
                     + 2.0f * (res1_1[2 * x - 1][2 * y] + res1_1[2 * x + 1][2 * y]
                               + res1_1[2 * x][2 * y - 1] + res1_1[2 * x][2 * y + 1])
                     + res1_1[2 * x - 1][2 * y - 1] + res1_1[2 * x - 1][2 * y + 1]
                     + res1_1[2 * x + 1][2 * y - 1] + res1_1[2 * x + 1][2 * y + 1]);
  for (x = 3; x < n + 25; x++)
    for (y = 3; y < n + 25; y++)
      sm2_1[x][y] = 0.2f * 16.0f * rhs2_1[x][y];
  for (x = 4; x < n + 24; x++)
    for (y = 4; y < n + 24; y++)
      sm2_2[x][y] = sm2_1[x][y]
                    + 0.8f * (0.25f * (16.0f * rhs2_1[x][y] + sm2_1[x - 1][y] + sm2_1[x + 1][y]
                                       + sm2_1[x][y - 1] + sm2_1[x][y + 1])
                              - sm2_1[x][y]);
  for (x = 5; x < n + 23; x++)
    for (y = 5; y < n + 23; y++)
      sm2_3[x][y] = sm2_2[x][y]
                    + 0.8f * (0.25f * (16.0f * rhs2_1[x][y] + sm2_2[x - 1][y] + sm2_2[x + 1][y]
                                       + sm2_2[x][y - 1] + sm2_2[x][y + 1])
                              - sm2_2[x][y]);
  for (x = 6; x < n + 22; x++)
    for (y = 6; y < n + 22; y++)
      sm2_4[x][y] = sm2_3[x][y]
                    + 0.8f * (0.25f * (16.0f * rhs2_1[x][y] + sm2_3[x - 1][y] + sm2_3[x + 1][y]
                                       + sm2_3[x][y - 1] + sm2_3[x][y + 1])
                              - sm2_3[x][y]);
  for (x = 12; x < 2 * n + 43; x++)
    for (y = 12; y < 2 * n + 43; y++)
      ip1_1[x][y] = 0.25f * (sm2_4[x / 2][y / 2] + sm2_4[(x + 1) / 2][y / 2]
                    + sm2_4[x / 2][(y + 1) / 2] + sm2_4[(x + 1) / 2][(y + 1) / 2]);
  for (x = 12; x < 2 * n + 43; x++)
    for (y = 12; y < 2 * n + 43; y++)
      cor1_1[x][y] = pre1_2[x][y] + ip1_1[x][y];
  for (x = 13; x < 2 * n + 42; x++)
    for (y = 13; y < 2 * n + 42; y++)
      post1_1[x][y] = cor1_1[x][y]
                      + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + cor1_1[x - 1][y]
                                         + cor1_1[x + 1][y] + cor1_1[x][y - 1] + cor1_1[x][y + 1])
                                - cor1_1[x][y]);
  for (x = 14; x < 2 * n + 41; x++)
    for (y = 14; y < 2 * n + 41; y++)
      post1_2[x][y] = post1_1[x][y]
                      + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + post1_1[x - 1][y]
                                         + post1_1[x + 1][y] + post1_1[x][y - 1]
                      + post1_1[x][y + 1])
                                - post1_1[x][y]);
  for (x = 15; x < 2 * n + 40; x++)
    for (y = 15; y < 2 * n + 40; y++)
      pre1_3[x][y] = post1_2[x][y]
                     + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + post1_2[x - 1][y]
                                        + post1_2[x + 1][y] + post1_2[x][y - 1]
                     + post1_2[x][y + 1])
                               - post1_2[x][y]);
  for (x = 16; x < 2 * n + 39; x++)
    for (y = 16; y < 2 * n + 39; y++)
      pre1_4[x][y] = pre1_3[x][y]
                     + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + pre1_3[x - 1][y]
                                        + pre1_3[x + 1][y] + pre1_3[x][y - 1] + pre1_3[x][y + 1])
                               - pre1_3[x][y]);
  for (x = 17; x < 2 * n + 38; x++)
    for (y = 17; y < 2 * n + 38; y++)
      res1_2[x][y] = rhs1_1[x][y]
                     - 0.25f * (4.0f * pre1_4[x][y] - pre1_4[x - 1][y] - pre1_4[x + 1][y]
                                - pre1_4[x][y - 1] - pre1_4[x][y + 1]);
  for (x = 9; x < n + 19; x++)
    for (y = 9; y < n + 19; y++)
      rhs2_2[x][y] = 0.0625f * (4.0f * res1_2[2 * x][2 * y]
                     + 2.0f * (res1_2[2 * x - 1][2 * y] + res1_2[2 * x + 1][2 * y]
                               + res1_2[2 * x][2 * y - 1] + res1_2[2 * x][2 * y + 1])
                     + res1_2[2 * x - 1][2 * y - 1] + res1_2[2 * x - 1][2 * y + 1]
                     + res1_2[2 * x + 1][2 * y - 1] + res1_2[2 * x + 1][2 * y + 1]);
  for (x = 9; x < n + 19; x++)
    for (y = 9; y < n + 19; y++)
      sm2_5[x][y] = 0.2f * 16.0f * rhs2_2[x][y];
  for (x = 10; x < n + 18; x++)
    for (y = 10; y < n + 18; y++)
      sm2_6[x][y] = sm2_5[x][y]
                    + 0.8f * (0.25f * (16.0f * rhs2_2[x][y] + sm2_5[x - 1][y] + sm2_5[x + 1][y]
                                       + sm2_5[x][y - 1] + sm2_5[x][y + 1])
                              - sm2_5[x][y]);
  for (x = 11; x < n + 17; x++)
    for (y = 11; y < n + 17; y++)
      sm2_7[x][y] = sm2_6[x][y]
                    + 0.8f * (0.25f * (16.0f * rhs2_2[x][y] + sm2_6[x - 1][y] + sm2_6[x + 1][y]
                                       + sm2_6[x][y - 1] + sm2_6[x][y + 1])
                              - sm2_6[x][y]);
  for (x = 12; x < n + 16; x++)
    for (y = 12; y < n + 16; y++)
      sm2_8[x][y] = sm2_7[x][y]
                    + 0.8f * (0.25f * (16.0f * rhs2_2[x][y] + sm2_7[x - 1][y] + sm2_7[x + 1][y]
                                       + sm2_7[x][y - 1] + sm2_7[x][y + 1])
                              - sm2_7[x][y]);
  for (x = 24; x < 2 * n + 31; x++)
    for (y = 24; y < 2 * n + 31; y++)
      ip1_2[x][y] = 0.25f * (sm2_8[x / 2][y / 2] + sm2_8[(x + 1) / 2][y / 2]
                    + sm2_8[x / 2][(y + 1) / 2] + sm2_8[(x + 1) / 2][(y + 1) / 2]);
  for (x = 24; x < 2 * n + 31; x++)
    for (y = 24; y < 2 * n + 31; y++)
      cor1_2[x][y] = pre1_4[x][y] + ip1_2[x][y];
  for (x = 25; x < 2 * n + 30; x++)
    for (y = 25; y < 2 * n + 30; y++)
      post1_3[x][y] = cor1_2[x][y]
                      + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + cor1_2[x - 1][y]
                                         + cor1_2[x + 1][y] + cor1_2[x][y - 1] + cor1_2[x][y + 1])
                                - cor1_2[x][y]);
  for (x = 26; x < 2 * n + 29; x++)
    for (y = 26; y < 2 * n + 29; y++)
      post1_4[x][y] = post1_3[x][y]
                      + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + post1_3[x - 1][y]
                                         + post1_3[x + 1][y] + post1_3[x][y - 1]
                      + post1_3[x][y + 1])
                                - post1_3[x][y]);
  for (x = 52; x < 4 * n + 57; x++)
    for (y = 52; y < 4 * n + 57; y++)
      ip0_1[x][y] = 0.25f * (post1_4[x / 2][y / 2] + post1_4[(x + 1) / 2][y / 2]
                    + post1_4[x / 2][(y + 1) / 2] + post1_4[(x + 1) / 2][(y + 1) / 2]);
  for (x = 52; x < 4 * n + 57; x++)
    for (y = 52; y < 4 * n + 57; y++)
      cor0_1[x][y] = pre0_2[x][y] + ip0_1[x][y];
  for (x = 53; x < 4 * n + 56; x++)
    for (y = 53; y < 4 * n + 56; y++)
      post0_1[x][y] = cor0_1[x][y]
                      + 0.8f * (0.25f * (f[x][y] + cor0_1[x - 1][y] + cor0_1[x + 1][y]
                                         + cor0_1[x][y - 1] + cor0_1[x][y + 1])
                                - cor0_1[x][y]);
  for (x = 54; x < 4 * n + 55; x++)
    for (y = 54; y < 4 * n + 55; y++)
      u[x][y] = post0_1[x][y]
                + 0.8f * (0.25f * (f[x][y] + post0_1[x - 1][y] + post0_1[x + 1][y]
                                   + post0_1[x][y - 1] + post0_1[x][y + 1])
                          - post0_1[x][y]);
#pragma endscop
}

int main(void)
{
  int n = N, run;
  float (*v)[4 * N + 108] =
      (float (*)[4 * N + 108]) pipeline_alloc((long) (4 * N + 108) * (4 * N + 108));
  float (*f)[4 * N + 108] =
      (float (*)[4 * N + 108]) pipeline_alloc((long) (4 * N + 108) * (4 * N + 108));
  float (*pre0_1)[4 * N + 107] =
      (float (*)[4 * N + 107]) pipeline_alloc((long) (4 * N + 107) * (4 * N + 107));
  float (*pre0_2)[4 * N + 106] =
      (float (*)[4 * N + 106]) pipeline_alloc((long) (4 * N + 106) * (4 * N + 106));
  float (*res0_1)[4 * N + 105] =
      (float (*)[4 * N + 105]) pipeline_alloc((long) (4 * N + 105) * (4 * N + 105));
  float (*rhs1_1)[2 * N + 52] =
      (float (*)[2 * N + 52]) pipeline_alloc((long) (2 * N + 52) * (2 * N + 52));
  float (*pre1_1)[2 * N + 52] =
      (float (*)[2 * N + 52]) pipeline_alloc((long) (2 * N + 52) * (2 * N + 52));
  float (*pre1_2)[2 * N + 51] =
      (float (*)[2 * N + 51]) pipeline_alloc((long) (2 * N + 51) * (2 * N + 51));
  float (*res1_1)[2 * N + 50] =
      (float (*)[2 * N + 50]) pipeline_alloc((long) (2 * N + 50) * (2 * N + 50));
  float (*rhs2_1)[N + 25] = (float (*)[N + 25]) pipeline_alloc((long) (N + 25) * (N + 25));
  float (*sm2_1)[N + 25] = (float (*)[N + 25]) pipeline_alloc((long) (N + 25) * (N + 25));
  float (*sm2_2)[N + 24] = (float (*)[N + 24]) pipeline_alloc((long) (N + 24) * (N + 24));
  float (*sm2_3)[N + 23] = (float (*)[N + 23]) pipeline_alloc((long) (N + 23) * (N + 23));
  float (*sm2_4)[N + 22] = (float (*)[N + 22]) pipeline_alloc((long) (N + 22) * (N + 22));
  float (*ip1_1)[2 * N + 43] =
      (float (*)[2 * N + 43]) pipeline_alloc((long) (2 * N + 43) * (2 * N + 43));
  float (*cor1_1)[2 * N + 43] =
      (float (*)[2 * N + 43]) pipeline_alloc((long) (2 * N + 43) * (2 * N + 43));
  float (*post1_1)[2 * N + 42] =
      (float (*)[2 * N + 42]) pipeline_alloc((long) (2 * N + 42) * (2 * N + 42));
  float (*post1_2)[2 * N + 41] =
      (float (*)[2 * N + 41]) pipeline_alloc((long) (2 * N + 41) * (2 * N + 41));
  float (*pre1_3)[2 * N + 40] =
      (float (*)[2 * N + 40]) pipeline_alloc((long) (2 * N + 40) * (2 * N + 40));
  float (*pre1_4)[2 * N + 39] =
      (float (*)[2 * N + 39]) pipeline_alloc((long) (2 * N + 39) * (2 * N + 39));
  float (*res1_2)[2 * N + 38] =
      (float (*)[2 * N + 38]) pipeline_alloc((long) (2 * N + 38) * (2 * N + 38));
  float (*rhs2_2)[N + 19] = (float (*)[N + 19]) pipeline_alloc((long) (N + 19) * (N + 19));
  float (*sm2_5)[N + 19] = (float (*)[N + 19]) pipeline_alloc((long) (N + 19) * (N + 19));
  float (*sm2_6)[N + 18] = (float (*)[N + 18]) pipeline_alloc((long) (N + 18) * (N + 18));
  float (*sm2_7)[N + 17] = (float (*)[N + 17]) pipeline_alloc((long) (N + 17) * (N + 17));
  float (*sm2_8)[N + 16] = (float (*)[N + 16]) pipeline_alloc((long) (N + 16) * (N + 16));
  float (*ip1_2)[2 * N + 31] =
      (float (*)[2 * N + 31]) pipeline_alloc((long) (2 * N + 31) * (2 * N + 31));
  float (*cor1_2)[2 * N + 31] =
      (float (*)[2 * N + 31]) pipeline_alloc((long) (2 * N + 31) * (2 * N + 31));
  float (*post1_3)[2 * N + 30] =
      (float (*)[2 * N + 30]) pipeline_alloc((long) (2 * N + 30) * (2 * N + 30));
  float (*post1_4)[2 * N + 29] =
      (float (*)[2 * N + 29]) pipeline_alloc((long) (2 * N + 29) * (2 * N + 29));
  float (*ip0_1)[4 * N + 57] =
      (float (*)[4 * N + 57]) pipeline_alloc((long) (4 * N + 57) * (4 * N + 57));
  float (*cor0_1)[4 * N + 57] =
      (float (*)[4 * N + 57]) pipeline_alloc((long) (4 * N + 57) * (4 * N + 57));
  float (*post0_1)[4 * N + 56] =
      (float (*)[4 * N + 56]) pipeline_alloc((long) (4 * N + 56) * (4 * N + 56));
  float (*u)[4 * N + 55] =
      (float (*)[4 * N + 55]) pipeline_alloc((long) (4 * N + 55) * (4 * N + 55));

  pipeline_input(&v[0][0], (long) (4 * N + 108) * (4 * N + 108), 11);
  pipeline_input(&f[0][0], (long) (4 * N + 108) * (4 * N + 108), 12);
  for (run = 0; run < PIPELINE_RUNS; run++) {
    KERNEL_TIMER_START;
    wcycle(n, v, f, pre0_1, pre0_2, res0_1, rhs1_1, pre1_1, pre1_2, res1_1, rhs2_1, sm2_1,
           sm2_2, sm2_3, sm2_4, ip1_1, cor1_1, post1_1, post1_2, pre1_3, pre1_4, res1_2,
           rhs2_2, sm2_5, sm2_6, sm2_7, sm2_8, ip1_2, cor1_2, post1_3, post1_4, ip0_1, cor0_1,
           post0_1, u);
    KERNEL_TIMER_STOP;
  }
  KERNEL_OUTPUT_2D("u", u, 4 * n + 55, 4 * n + 55);

  free(v);
  free(f);
  free(pre0_1);
  free(pre0_2);
  free(res0_1);
  free(rhs1_1);
  free(pre1_1);
  free(pre1_2);
  free(res1_1);
  free(rhs2_1);
  free(sm2_1);
  free(sm2_2);
  free(sm2_3);
  free(sm2_4);
  free(ip1_1);
  free(cor1_1);
  free(post1_1);
  free(post1_2);
  free(pre1_3);
  free(pre1_4);
  free(res1_2);
  free(rhs2_2);
  free(sm2_5);
  free(sm2_6);
  free(sm2_7);
  free(sm2_8);
  free(ip1_2);
  free(cor1_2);
  free(post1_3);
  free(post1_4);
  free(ip0_1);
  free(cor0_1);
  free(post0_1);
  free(u);
  return 0;
}
