/*
 * batchnorm_apply.c - inference-time batch normalisation of NCHW activations
 * with per-channel statistics: the per-channel factor and shift first, then
 *   Y[n][c][h][w] = X[n][c][h][w] * factor[c] + shift[c]
 * with factor = gamma / sqrt(var + eps) and shift = beta - mean * factor.
 * A Pollen operator; see README.md in this directory.
 */
#include "operators.h"

#ifdef LARGE_DATASET
# ifndef BATCH
#  define BATCH 16
# endif
# ifndef CHANNELS
#  define CHANNELS 256
# endif
# ifndef HEIGHT
#  define HEIGHT 56
# endif
# ifndef WIDTH
#  define WIDTH 56
# endif
#else
# ifndef BATCH
#  define BATCH 2
# endif
# ifndef CHANNELS
#  define CHANNELS 8
# endif
# ifndef HEIGHT
#  define HEIGHT 6
# endif
# ifndef WIDTH
#  define WIDTH 5
# endif
#endif

#define _PB_BATCH nn
#define _PB_CHANNELS nc
#define _PB_HEIGHT nh
#define _PB_WIDTH nw

static void init_array(int nn, int nc, int nh, int nw,
                       DATA_TYPE POLYBENCH_4D(X, BATCH, CHANNELS, HEIGHT, WIDTH,
                                              nn, nc, nh, nw),
                       DATA_TYPE POLYBENCH_1D(gamma, CHANNELS, nc),
                       DATA_TYPE POLYBENCH_1D(beta, CHANNELS, nc),
                       DATA_TYPE POLYBENCH_1D(mean, CHANNELS, nc),
                       DATA_TYPE POLYBENCH_1D(var, CHANNELS, nc))
{
  int n, c, h, w;

  for (n = 0; n < nn; n++)
    for (c = 0; c < nc; c++)
      for (h = 0; h < nh; h++)
        for (w = 0; w < nw; w++)
          X[n][c][h][w] = (DATA_TYPE) ((5 * n + c + 3 * h + 7 * w + 1) % 37) / 37;
  for (c = 0; c < nc; c++) {
    gamma[c] = SCALAR_VAL(0.75) + (DATA_TYPE) (c % 5) / 10;
    beta[c] = (DATA_TYPE) (c % 3) / 6 - SCALAR_VAL(0.1);
    mean[c] = SCALAR_VAL(0.5) + (DATA_TYPE) (c % 7) / 70;
    var[c] = SCALAR_VAL(0.1) + (DATA_TYPE) (c % 11) / 110;
  }
}

static void kernel_batchnorm_apply(
    int nn, int nc, int nh, int nw, DATA_TYPE eps,
    DATA_TYPE POLYBENCH_4D(X, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw),
    DATA_TYPE POLYBENCH_1D(gamma, CHANNELS, nc),
    DATA_TYPE POLYBENCH_1D(beta, CHANNELS, nc),
    DATA_TYPE POLYBENCH_1D(mean, CHANNELS, nc),
    DATA_TYPE POLYBENCH_1D(var, CHANNELS, nc),
    DATA_TYPE POLYBENCH_1D(factor, CHANNELS, nc),
    DATA_TYPE POLYBENCH_1D(shift, CHANNELS, nc),
    DATA_TYPE POLYBENCH_4D(Y, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw))
{
  int n, c, h, w;

#pragma scop
  for (c = 0; c < _PB_CHANNELS; c++) {
    factor[c] = gamma[c] / SQRT_FUN(var[c] + eps);
    shift[c] = beta[c] - mean[c] * factor[c];
  }
  for (n = 0; n < _PB_BATCH; n++)
    for (c = 0; c < _PB_CHANNELS; c++)
      for (h = 0; h < _PB_HEIGHT; h++)
        for (w = 0; w < _PB_WIDTH; w++)
          Y[n][c][h][w] = X[n][c][h][w] * factor[c] + shift[c];
#pragma endscop
}

int main(void)
{
  int nn = BATCH, nc = CHANNELS, nh = HEIGHT, nw = WIDTH;
  DATA_TYPE eps = SCALAR_VAL(1e-5);
  POLYBENCH_4D_ARRAY_DECL(X, DATA_TYPE, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw);
  POLYBENCH_1D_ARRAY_DECL(gamma, DATA_TYPE, CHANNELS, nc);
  POLYBENCH_1D_ARRAY_DECL(beta, DATA_TYPE, CHANNELS, nc);
  POLYBENCH_1D_ARRAY_DECL(mean, DATA_TYPE, CHANNELS, nc);
  POLYBENCH_1D_ARRAY_DECL(var, DATA_TYPE, CHANNELS, nc);
  POLYBENCH_1D_ARRAY_DECL(factor, DATA_TYPE, CHANNELS, nc);
  POLYBENCH_1D_ARRAY_DECL(shift, DATA_TYPE, CHANNELS, nc);
  POLYBENCH_4D_ARRAY_DECL(Y, DATA_TYPE, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw);

  init_array(nn, nc, nh, nw, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(gamma),
             POLYBENCH_ARRAY(beta), POLYBENCH_ARRAY(mean), POLYBENCH_ARRAY(var));
  OPERATOR_TIMER_START;
  kernel_batchnorm_apply(nn, nc, nh, nw, eps, POLYBENCH_ARRAY(X),
                         POLYBENCH_ARRAY(gamma), POLYBENCH_ARRAY(beta),
                         POLYBENCH_ARRAY(mean), POLYBENCH_ARRAY(var),
                         POLYBENCH_ARRAY(factor), POLYBENCH_ARRAY(shift),
                         POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_1D("factor", POLYBENCH_ARRAY(factor), nc);
  OPERATOR_OUTPUT_1D("shift", POLYBENCH_ARRAY(shift), nc);
  OPERATOR_OUTPUT_4D("Y", POLYBENCH_ARRAY(Y), nn, nc, nh, nw);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(gamma);
  POLYBENCH_FREE_ARRAY(beta);
  POLYBENCH_FREE_ARRAY(mean);
  POLYBENCH_FREE_ARRAY(var);
  POLYBENCH_FREE_ARRAY(factor);
  POLYBENCH_FREE_ARRAY(shift);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
