/*
 * nchw_to_nhwc_bias_relu.c - a ResNet-side layout change fused with the
 * epilogue of a convolution: the NCHW activations are written in NHWC
 * layout with a per-channel bias and a ReLU:
 *   Y[n][h][w][c] = max(X[n][c][h][w] + bias[c], 0)
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
                       DATA_TYPE POLYBENCH_1D(bias, CHANNELS, nc))
{
  int n, c, h, w;

  for (n = 0; n < nn; n++)
    for (c = 0; c < nc; c++)
      for (h = 0; h < nh; h++)
        for (w = 0; w < nw; w++)
          X[n][c][h][w] = (DATA_TYPE) ((3 * n + 5 * c + 7 * h + w + 1) % 31) / 31
                          - SCALAR_VAL(0.5);
  for (c = 0; c < nc; c++)
    bias[c] = (DATA_TYPE) (c % 7) / 14 - SCALAR_VAL(0.2);
}

static void kernel_nchw_to_nhwc_bias_relu(
    int nn, int nc, int nh, int nw,
    DATA_TYPE POLYBENCH_4D(X, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw),
    DATA_TYPE POLYBENCH_1D(bias, CHANNELS, nc),
    DATA_TYPE POLYBENCH_4D(Y, BATCH, HEIGHT, WIDTH, CHANNELS, nn, nh, nw, nc))
{
  int n, c, h, w;

#pragma scop
  for (n = 0; n < _PB_BATCH; n++)
    for (h = 0; h < _PB_HEIGHT; h++)
      for (w = 0; w < _PB_WIDTH; w++)
        for (c = 0; c < _PB_CHANNELS; c++)
          Y[n][h][w][c] = MAX_FUN(X[n][c][h][w] + bias[c], SCALAR_VAL(0.0));
#pragma endscop
}

int main(void)
{
  int nn = BATCH, nc = CHANNELS, nh = HEIGHT, nw = WIDTH;
  POLYBENCH_4D_ARRAY_DECL(X, DATA_TYPE, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw);
  POLYBENCH_1D_ARRAY_DECL(bias, DATA_TYPE, CHANNELS, nc);
  POLYBENCH_4D_ARRAY_DECL(Y, DATA_TYPE, BATCH, HEIGHT, WIDTH, CHANNELS, nn, nh, nw, nc);

  init_array(nn, nc, nh, nw, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(bias));
  OPERATOR_TIMER_START;
  kernel_nchw_to_nhwc_bias_relu(nn, nc, nh, nw, POLYBENCH_ARRAY(X),
                                POLYBENCH_ARRAY(bias), POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_4D("Y", POLYBENCH_ARRAY(Y), nn, nh, nw, nc);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(bias);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
