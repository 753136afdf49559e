/*
 * vcycle.c - one multigrid V-cycle for the 2-D Poisson equation (PolyMage's
 * "Jacobi2D-V" multigrid benchmark, with 4-4-4 smoothing): on three levels,
 * 4 weighted-Jacobi pre-smoothing steps (pre<l>_k; from a zero guess on the coarser
 * levels), the residual (res<l>_k), its full-weighting restriction to the next
 * coarser level (rhs<l>_k: coarse i reads fine 2 i - 1 .. 2 i + 1), 4 Jacobi steps
 * on the coarsest level (sm2_k), bilinear interpolation of the coarse result (ip<l>_k:
 * fine i reads coarse i / 2 and (i + 1) / 2), the correction (cor<l>_k) and 4
 * post-smoothing steps; every step writes its own array.
 * The fine grid has 4 N + 84 points along each dimension (v, the initial guess, and f,
 * the right-hand side); every stage computes the points whose reads are defined, so
 * the grids lose a few points at their edges per step (u, the result, keeps
 * the points 40 .. 4 N + 40).
 * A Pollen test pipeline; see README.md in this directory.
 */
#include "pipeline.h"

#ifndef N
# define N 8
#endif

static void vcycle(int n, float v[4 * n + 84][4 * n + 84], float f[4 * n + 84][4 * n + 84],
                   float pre0_1[4 * n + 83][4 * n + 83], float pre0_2[4 * n + 82][4 * n + 82],
                   float pre0_3[4 * n + 81][4 * n + 81], float pre0_4[4 * n + 80][4 * n + 80],
                   float res0_1[4 * n + 79][4 * n + 79], float rhs1_1[2 * n + 39][2 * n + 39],
                   float pre1_1[2 * n + 39][2 * n + 39], float pre1_2[2 * n + 38][2 * n + 38],
                   float pre1_3[2 * n + 37][2 * n + 37], float pre1_4[2 * n + 36][2 * n + 36],
                   float res1_1[2 * n + 35][2 * n + 35], float rhs2_1[n + 17][n + 17],
                   float sm2_1[n + 17][n + 17], float sm2_2[n + 16][n + 16],
                   float sm2_3[n + 15][n + 15], float sm2_4[n + 14][n + 14],
                   float ip1_1[2 * n + 27][2 * n + 27], float cor1_1[2 * n + 27][2 * n + 27],
                   float post1_1[2 * n + 26][2 * n + 26], float post1_2[2 * n + 25][2 * n + 25],
                   float post1_3[2 * n + 24][2 * n + 24], float post1_4[2 * n + 23][2 * n + 23],
                   float ip0_1[4 * n + 45][4 * n + 45], float cor0_1[4 * n + 45][4 * n + 45],
                   float post0_1[4 * n + 44][4 * n + 44], float post0_2[4 * n + 43][4 * n + 43],
                   float post0_3[4 * n + 42][4 * n + 42], float u[4 * n + 41][4 * n + 41])
{
  int x, y;

#pragma scop
  for (x = 1; x < 4 * n + 83; x++)
    for (y = 1; y < 4 * n + 83; y++)
      pre0_1[x][y] = v[x][y]
                     + 0.8f * (0.25f * (f[x][y] + v[x - 1][y] + v[x + 1][y] + v[x][y - 1]
                                        + v[x][y + 1])
                               - v[x][y]);
  for (x = 2; x < 4 * n + 82; x++)
    for (y = 2; y < 4 * n + 82; y++)
      pre0_2[x][y] = pre0_1[x][y]
                     + 0.8f * (0.25f * (f[x][y] + pre0_1[x - 1][y] + pre0_1[x + 1][y]
                                        + pre0_1[x][y - 1] + pre0_1[x][y + 1])
                               - pre0_1[x][y]);
  for (x = 3; x < 4 * n + 81; x++)
    for (y = 3; y < 4 * n + 81; y++)
      pre0_3[x][y] = pre0_2[x][y]
                     + 0.8f * (0.25f * (f[x][y] + pre0_2[x - 1][y] + pre0_2[x + 1][y]
                                        + pre0_2[x][y - 1] + pre0_2[x][y + 1])
                               - pre0_2[x][y]);
  for (x = 4; x < 4 * n + 80; x++)
    for (y = 4; y < 4 * n + 80; y++)
      pre0_4[x][y] = pre0_3[x][y]
                     + 0.8f * (0.25f * (f[x][y] + pre0_3[x - 1][y] + pre0_3[x + 1][y]
                                        + pre0_3[x][y - 1] + pre0_3[x][y + 1])
                               - pre0_3[x][y]);
  for (x = 5; x < 4 * n + 79; x++)
    for (y = 5; y < 4 * n + 79; y++)
      res0_1[x][y] = f[x][y]
                     - (4.0f * pre0_4[x][y] - pre0_4[x - 1][y] - pre0_4[x + 1][y]
                        - pre0_4[x][y - 1] - pre0_4[x][y + 1]);
  for (x = 3; x < 2 * n + 39; x++)
    for (y = 3; y < 2 * n + 39; y++)
      rhs1_1[x][y] = 0.0625f * (4.0f * res0_1[2 * x][2 * y]
                     + 2.0f * (res0_1[2 * x - 1][2 * y] + res0_1[2 * x + 1][2 * y]
                               + res0_1[2 * x][2 * y - 1] + res0_1[2 * x][2 * y + 1])
                     + res0_1[2 * x - 1][2 * y - 1] + res0_1[2 * x - 1][2 * y + 1]
                     + res0_1[2 * x + 1][2 * y - 1] + res0_1[2 * x + 1][2 * y + 1]);
  for (x = 3; x < 2 * n + 39; x++)
    for (y = 3; y < 2 * n + 39; y++)
      pre1_1[x][y] = 0.2f * 4.0f * rhs1_1[x][y];
  for (x = 4; x < 2 * n + 38; x++)
    for (y = 4; y < 2 * n + 38; y++)
      pre1_2[x][y] = pre1_1[x][y]
                     + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + pre1_1[x - 1][y]
                                        + pre1_1[x + 1][y] + pre1_1[x][y - 1] + pre1_1[x][y + 1])
                               - pre1_1[x][y]);
  for (x = 5; x < 2 * n + 37; x++)
    for (y = 5; y < 2 * n + 37; y++)
      pre1_3[x][y] = pre1_2[x][y]
                     + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + pre1_2[x - 1][y]
                                        + pre1_2[x + 1][y] + pre1_2[x][y - 1] + pre1_2[x][y + 1])
                               - pre1_2[x][y]);
  for (x = 6; x < 2 * n + 36; x++)
    for (y = 6; y < 2 * n + 36; y++)
      pre1_4[x][y] = pre1_3[x][y]
                     + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + pre1_3[x - 1][y]
                                        + pre1_3[x + 1][y] + pre1_3[x][y - 1] + pre1_3[x][y + 1])
                               - pre1_3[x][y]);
  for (x = 7; x < 2 * n + 35; x++)
    for (y = 7; y < 2 * n + 35; y++)
      res1_1[x][y] = rhs1_1[x][y]
                     - 0.25f * (4.0f * pre1_4[x][y] - pre1_4[x - 1][y] - pre1_4[x + 1][y]
                                - pre1_4[x][y - 1] - pre1_4[x][y + 1]);
  for (x = 4; x < n + 17; x++)
    for (y = 4; y < n + 17; y++)
      rhs2_1[x][y] = 0.0625f * (4.0f * res1_1[2 * x][2 * y]
                     + 2.0f * (res1_1[2 * x - 1][2 * y] + res1_1[2 * x + 1][2 * y]
                               + res1_1[2 * x][2 * y - 1] + res1_1[2 * x][2 * y + 1])
                     + res1_1[2 * x - 1][2 * y - 1] + res1_1[2 * x - 1][2 * y + 1]
                     + res1_1[2 * x + 1][2 * y - 1] + res1_1[2 * x + 1][2 * y + 1]);
  for (x = 4; x < n + 17; x++)
    for (y = 4; y < n + 17; y++)
      sm2_1[x][y] = 0.2f * 16.0f * rhs2_1[x][y];
  for (x = 5; x < n + 16; x++)
    for (y = 5; y < n + 16; y++)
      sm2_2[x][y] = sm2_1[x][y]
                    + 0.8f * (0.25f * (16.0f * rhs2_1[x][y] + sm2_1[x - 1][y] + sm2_1[x + 1][y]
                                       + sm2_1[x][y - 1] + sm2_1[x][y + 1])
                              - sm2_1[x][y]);
  for (x = 6; x < n + 15; x++)
    for (y = 6; y < n + 15; y++)
      sm2_3[x][y] = sm2_2[x][y]
                    + 0.8f * (0.25f * (16.0f * rhs2_1[x][y] + sm2_2[x - 1][y] + sm2_2[x + 1][y]
                                       + sm2_2[x][y - 1] + sm2_2[x][y + 1])
                              - sm2_2[x][y]);
  for (x = 7; x < n + 14; x++)
    for (y = 7; y < n + 14; y++)
      sm2_4[x][y] = sm2_3[x][y]
                    + 0.8f * (0.25f * (16.0f * rhs2_1[x][y] + sm2_3[x - 1][y] + sm2_3[x + 1][y]
                                       + sm2_3[x][y - 1] + sm2_3[x][y + 1])
                              - sm2_3[x][y]);
  for (x = 14; x < 2 * n + 27; x++)
    for (y = 14; y < 2 * n + 27; y++)
      ip1_1[x][y] = 0.25f * (sm2_4[x / 2][y / 2] + sm2_4[(x + 1) / 2][y / 2]
                    + sm2_4[x / 2][(y + 1) / 2] + sm2_4[(x + 1) / 2][(y + 1) / 2]);
  for (x = 14; x < 2 * n + 27; x++)
    for (y = 14; y < 2 * n + 27; y++)
      cor1_1[x][y] = pre1_4[x][y] + ip1_1[x][y];
  for (x = 15; x < 2 * n + 26; x++)
    for (y = 15; y < 2 * n + 26; y++)
      post1_1[x][y] = cor1_1[x][y]
                      + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + cor1_1[x - 1][y]
                                         + cor1_1[x + 1][y] + cor1_1[x][y - 1] + cor1_1[x][y + 1])
                                - cor1_1[x][y]);
  for (x = 16; x < 2 * n + 25; x++)
    for (y = 16; y < 2 * n + 25; y++)
      post1_2[x][y] = post1_1[x][y]
                      + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + post1_1[x - 1][y]
                                         + post1_1[x + 1][y] + post1_1[x][y - 1]
                      + post1_1[x][y + 1])
                                - post1_1[x][y]);
  for (x = 17; x < 2 * n + 24; x++)
    for (y = 17; y < 2 * n + 24; y++)
      post1_3[x][y] = post1_2[x][y]
                      + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + post1_2[x - 1][y]
                                         + post1_2[x + 1][y] + post1_2[x][y - 1]
                      + post1_2[x][y + 1])
                                - post1_2[x][y]);
  for (x = 18; x < 2 * n + 23; x++)
    for (y = 18; y < 2 * n + 23; y++)
      post1_4[x][y] = post1_3[x][y]
                      + 0.8f * (0.25f * (4.0f * rhs1_1[x][y] + post1_3[x - 1][y]
                                         + post1_3[x + 1][y] + post1_3[x][y - 1]
                      + post1_3[x][y + 1])
                                - post1_3[x][y]);
  for (x = 36; x < 4 * n + 45; x++)
    for (y = 36; y < 4 * n + 45; y++)
      ip0_1[x][y] = 0.25f * (post1_4[x / 2][y / 2] + post1_4[(x + 1) / 2][y / 2]
                    + post1_4[x / 2][(y + 1) / 2] + post1_4[(x + 1) / 2][(y + 1) / 2]);
  for (x = 36; x < 4 * n + 45; x++)
    for (y = 36; y < 4 * n + 45; y++)
      cor0_1[x][y] = pre0_4[x][y] + ip0_1[x][y];
  for (x = 37; x < 4 * n + 44; x++)
    for (y = 37; y < 4 * n + 44; y++)
      post0_1[x][y] = cor0_1[x][y]
                      + 0.8f * (0.25f * (f[x][y] + cor0_1[x - 1][y] + cor0_1[x + 1][y]
                                         + cor0_1[x][y - 1] + cor0_1[x][y + 1])
                                - cor0_1[x][y]);
  for (x = 38; x < 4 * n + 43; x++)
    for (y = 38; y < 4 * n + 43; y++)
      post0_2[x][y] = post0_1[x][y]
                      + 0.8f * (0.25f * (f[x][y] + post0_1[x - 1][y] + post0_1[x + 1][y]
                                         + post0_1[x][y - 1] + post0_1[x][y + 1])
                                - post0_1[x][y]);
  for (x = 39; x < 4 * n + 42; x++)
    for (y = 39; y < 4 * n + 42; y++)
      post0_3[x][y] = post0_2[x][y]
                      + 0.8f * (0.25f * (f[x][y] + post0_2[x - 1][y] + post0_2[x + 1][y]
                                         + post0_2[x][y - 1] + post0_2[x][y + 1])
                                - post0_2[x][y]);
  for (x = 40; x < 4 * n + 41; x++)
    for (y = 40; y < 4 * n + 41; y++)
      u[x][y] = post0_3[x][y]
                + 0.8f * (0.25f * (f[x][y] + post0_3[x - 1][y] + post0_3[x + 1][y]
                                   + post0_3[x][y - 1] + post0_3[x][y + 1])
                          - post0_3[x][y]);
#pragma endscop
}

int main(void)
{
  int n = N, run;
  float (*v)[4 * N + 84] =
      (float (*)[4 * N + 84]) pipeline_alloc((long) (4 * N + 84) * (4 * N + 84));
  float (*f)[4 * N + 84] =
      (float (*)[4 * N + 84]) pipeline_alloc((long) (4 * N + 84) * (4 * N + 84));
  float (*pre0_1)[4 * N + 83] =
      (float (*)[4 * N + 83]) pipeline_alloc((long) (4 * N + 83) * (4 * N + 83));
  float (*pre0_2)[4 * N + 82] =
      (float (*)[4 * N + 82]) pipeline_alloc((long) (4 * N + 82) * (4 * N + 82));
  float (*pre0_3)[4 * N + 81] =
      (float (*)[4 * N + 81]) pipeline_alloc((long) (4 * N + 81) * (4 * N + 81));
  float (*pre0_4)[4 * N + 80] =
      (float (*)[4 * N + 80]) pipeline_alloc((long) (4 * N + 80) * (4 * N + 80));
  float (*res0_1)[4 * N + 79] =
      (float (*)[4 * N + 79]) pipeline_alloc((long) (4 * N + 79) * (4 * N + 79));
  float (*rhs1_1)[2 * N + 39] =
      (float (*)[2 * N + 39]) pipeline_alloc((long) (2 * N + 39) * (2 * N + 39));
  float (*pre1_1)[2 * N + 39] =
      (float (*)[2 * N + 39]) pipeline_alloc((long) (2 * N + 39) * (2 * N + 39));
  float (*pre1_2)[2 * N + 38] =
      (float (*)[2 * N + 38]) pipeline_alloc((long) (2 * N + 38) * (2 * N + 38));
  float (*pre1_3)[2 * N + 37] =
      (float (*)[2 * N + 37]) pipeline_alloc((long) (2 * N + 37) * (2 * N + 37));
  float (*pre1_4)[2 * N + 36] =
      (float (*)[2 * N + 36]) pipeline_alloc((long) (2 * N + 36) * (2 * N + 36));
  float (*res1_1)[2 * N + 35] =
      (float (*)[2 * N + 35]) pipeline_alloc((long) (2 * N + 35) * (2 * N + 35));
  float (*rhs2_1)[N + 17] = (float (*)[N + 17]) pipeline_alloc((long) (N + 17) * (N + 17));
  float (*sm2_1)[N + 17] = (float (*)[N + 17]) pipeline_alloc((long) (N + 17) * (N + 17));
  float (*sm2_2)[N + 16] = (float (*)[N + 16]) pipeline_alloc((long) (N + 16) * (N + 16));
  float (*sm2_3)[N + 15] = (float (*)[N + 15]) pipeline_alloc((long) (N + 15) * (N + 15));
  float (*sm2_4)[N + 14] = (float (*)[N + 14]) pipeline_alloc((long) (N + 14) * (N + 14));
  float (*ip1_1)[2 * N + 27] =
      (float (*)[2 * N + 27]) pipeline_alloc((long) (2 * N + 27) * (2 * N + 27));
  float (*cor1_1)[2 * N + 27] =
      (float (*)[2 * N + 27]) pipeline_alloc((long) (2 * N + 27) * (2 * N + 27));
  float (*post1_1)[2 * N + 26] =
      (float (*)[2 * N + 26]) pipeline_alloc((long) (2 * N + 26) * (2 * N + 26));
  float (*post1_2)[2 * N + 25] =
      (float (*)[2 * N + 25]) pipeline_alloc((long) (2 * N + 25) * (2 * N + 25));
  float (*post1_3)[2 * N + 24] =
      (float (*)[2 * N + 24]) pipeline_alloc((long) (2 * N + 24) * (2 * N + 24));
  float (*post1_4)[2 * N + 23] =
      (float (*)[2 * N + 23]) pipeline_alloc((long) (2 * N + 23) * (2 * N + 23));
  float (*ip0_1)[4 * N + 45] =
      (float (*)[4 * N + 45]) pipeline_alloc((long) (4 * N + 45) * (4 * N + 45));
  float (*cor0_1)[4 * N + 45] =
      (float (*)[4 * N + 45]) pipeline_alloc((long) (4 * N + 45) * (4 * N + 45));
  float (*post0_1)[4 * N + 44] =
      (float (*)[4 * N + 44]) pipeline_alloc((long) (4 * N + 44) * (4 * N + 44));
  float (*post0_2)[4 * N + 43] =
      (float (*)[4 * N + 43]) pipeline_alloc((long) (4 * N + 43) * (4 * N + 43));
  float (*post0_3)[4 * N + 42] =
      (float (*)[4 * N + 42]) pipeline_alloc((long) (4 * N + 42) * (4 * N + 42));
  float (*u)[4 * N + 41] =
      (float (*)[4 * N + 41]) pipeline_alloc((long) (4 * N + 41) * (4 * N + 41));

  pipeline_input(&v[0][0], (long) (4 * N + 84) * (4 * N + 84), 11);
  pipeline_input(&f[0][0], (long) (4 * N + 84) * (4 * N + 84), 12);
  for (run = 0; run < PIPELINE_RUNS; run++) {
    KERNEL_TIMER_START;
    vcycle(n, v, f, pre0_1, pre0_2, pre0_3, pre0_4, res0_1, rhs1_1, pre1_1, pre1_2, pre1_3,
           pre1_4, res1_1, rhs2_1, sm2_1, sm2_2, sm2_3, sm2_4, ip1_1, cor1_1, post1_1,
           post1_2, post1_3, post1_4, ip0_1, cor0_1, post0_1, post0_2, post0_3, u);
    KERNEL_TIMER_STOP;
  }
  KERNEL_OUTPUT_2D("u", u, 4 * n + 41, 4 * n + 41);

  free(v);
  free(f);
  free(pre0_1);
  free(pre0_2);
  free(pre0_3);
  free(pre0_4);
  free(res0_1);
  free(rhs1_1);
  free(pre1_1);
  free(pre1_2);
  free(pre1_3);
  free(pre1_4);
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
  free(post1_3);
  free(post1_4);
  free(ip0_1);
  free(cor0_1);
  free(post0_1);
  free(post0_2);
  free(post0_3);
  free(u);
  return 0;
}
