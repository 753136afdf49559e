/*
 * conv1x1_nhwc.c - a ResNet-50 bottleneck's pointwise (1x1) convolution in
 * NHWC layout, with HWIO weights ([in channels][out channels] for 1x1) and a
 * bias, as a loop nest: output dimensions outside, the reduction inside:
 *   Y[n][h][w][k] = bias[k] + sum_c X[n][h][w][c] * Wt[c][k]
 * A Pollen operator; see README.md in this directory.
 */
#include "operators.h"

#ifdef LARGE_DATASET
# ifndef BATCH
#  define BATCH 16
# endif
# ifndef HEIGHT
#  define HEIGHT 56
# endif
# ifndef WIDTH
#  define WIDTH 56
# endif
# ifndef IN_CHANNELS
#  define IN_CHANNELS 64
# endif
# ifndef OUT_CHANNELS
#  define OUT_CHANNELS 256
# endif
#else
# ifndef BATCH
#  define BATCH 2
# endif
# ifndef HEIGHT
#  define HEIGHT 6
# endif
# ifndef WIDTH
#  define WIDTH 5
# endif
# ifndef IN_CHANNELS
#  define IN_CHANNELS 8
# endif
# ifndef OUT_CHANNELS
#  define OUT_CHANNELS 12
# endif
#endif

#define _PB_BATCH nn
#define _PB_HEIGHT nh
#define _PB_WIDTH nw
#define _PB_IN_CHANNELS nc
#define _PB_OUT_CHANNELS nk

static void init_array(int nn, int nh, int nw, int nc, int nk,
                       DATA_TYPE POLYBENCH_4D(X, BATCH, HEIGHT, WIDTH, IN_CHANNELS,
                                              nn, nh, nw, nc),
                       DATA_TYPE POLYBENCH_2D(Wt, IN_CHANNELS, OUT_CHANNELS, nc, nk),
                       DATA_TYPE POLYBENCH_1D(bias, OUT_CHANNELS, nk))
{
  int n, h, w, c, k;

  for (n = 0; n < nn; n++)
    for (h = 0; h < nh; h++)
      for (w = 0; w < nw; w++)
        for (c = 0; c < nc; c++)
          X[n][h][w][c] = (DATA_TYPE) ((3 * n + 5 * h + w + 7 * c + 1) % 19) / 19;
  for (c = 0; c < nc; c++)
    for (k = 0; k < nk; k++)
      Wt[c][k] = (DATA_TYPE) ((2 * c + 3 * k + 5) % 17) / 17 - SCALAR_VAL(0.5);
  for (k = 0; k < nk; k++)
    bias[k] = (DATA_TYPE) (k % 5) / 10;
}

static void kernel_conv1x1_nhwc(
    int nn, int nh, int nw, int nc, int nk,
    DATA_TYPE POLYBENCH_4D(X, BATCH, HEIGHT, WIDTH, IN_CHANNELS, nn, nh, nw, nc),
    DATA_TYPE POLYBENCH_2D(Wt, IN_CHANNELS, OUT_CHANNELS, nc, nk),
    DATA_TYPE POLYBENCH_1D(bias, OUT_CHANNELS, nk),
    DATA_TYPE POLYBENCH_4D(Y, BATCH, HEIGHT, WIDTH, OUT_CHANNELS, nn, nh, nw, nk))
{
  int n, h, w, c, k;

#pragma scop
  for (n = 0; n < _PB_BATCH; n++)
    for (h = 0; h < _PB_HEIGHT; h++)
      for (w = 0; w < _PB_WIDTH; w++)
        for (k = 0; k < _PB_OUT_CHANNELS; k++) {
          Y[n][h][w][k] = bias[k];
          for (c = 0; c < _PB_IN_CHANNELS; c++)
            Y[n][h][w][k] += X[n][h][w][c] * Wt[c][k];
        }
#pragma endscop
}

int main(void)
{
  int nn = BATCH, nh = HEIGHT, nw = WIDTH, nc = IN_CHANNELS, nk = OUT_CHANNELS;
  POLYBENCH_4D_ARRAY_DECL(X, DATA_TYPE, BATCH, HEIGHT, WIDTH, IN_CHANNELS,
                          nn, nh, nw, nc);
  POLYBENCH_2D_ARRAY_DECL(Wt, DATA_TYPE, IN_CHANNELS, OUT_CHANNELS, nc, nk);
  POLYBENCH_1D_ARRAY_DECL(bias, DATA_TYPE, OUT_CHANNELS, nk);
  POLYBENCH_4D_ARRAY_DECL(Y, DATA_TYPE, BATCH, HEIGHT, WIDTH, OUT_CHANNELS,
                          nn, nh, nw, nk);

  init_array(nn, nh, nw, nc, nk, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(Wt),
             POLYBENCH_ARRAY(bias));
  OPERATOR_TIMER_START;
  kernel_conv1x1_nhwc(nn, nh, nw, nc, nk, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(Wt),
                      POLYBENCH_ARRAY(bias), POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_4D("Y", POLYBENCH_ARRAY(Y), nn, nh, nw, nk);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(Wt);
  POLYBENCH_FREE_ARRAY(bias);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
