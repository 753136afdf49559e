/*
 * nhwc_to_nchw_scale_add.c - the reverse layout change of a ResNet block's
 * output: NHWC activations scaled per channel and added to the NCHW shortcut
 * (the residual connection), written in NCHW layout:
 *   Y[n][c][h][w] = X[n][h][w][c] * scale[c] + R[n][c][h][w]
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
                       DATA_TYPE POLYBENCH_4D(X, BATCH, HEIGHT, WIDTH, CHANNELS,
                                              nn, nh, nw, nc),
                       DATA_TYPE POLYBENCH_1D(scale, CHANNELS, nc),
                       DATA_TYPE POLYBENCH_4D(R, BATCH, CHANNELS, HEIGHT, WIDTH,
                                              nn, nc, nh, nw))
{
  int n, c, h, w;

  for (n = 0; n < nn; n++)
    for (h = 0; h < nh; h++)
      for (w = 0; w < nw; w++)
        for (c = 0; c < nc; c++)
          X[n][h][w][c] = (DATA_TYPE) ((n + 3 * h + 5 * w + 7 * c + 2) % 29) / 29
                          - SCALAR_VAL(0.5);
  for (n = 0; n < nn; n++)
    for (c = 0; c < nc; c++)
      for (h = 0; h < nh; h++)
        for (w = 0; w < nw; w++)
          R[n][c][h][w] = (DATA_TYPE) ((2 * n + c + 11 * h + 3 * w + 1) % 17) / 17;
  for (c = 0; c < nc; c++)
    scale[c] = SCALAR_VAL(0.5) + (DATA_TYPE) (c % 9) / 9;
}

static void kernel_nhwc_to_nchw_scale_add(
    int nn, int nc, int nh, int nw,
    DATA_TYPE POLYBENCH_4D(X, BATCH, HEIGHT, WIDTH, CHANNELS, nn, nh, nw, nc),
    DATA_TYPE POLYBENCH_1D(scale, CHANNELS, nc),
    DATA_TYPE POLYBENCH_4D(R, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw),
    DATA_TYPE POLYBENCH_4D(Y, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw))
{
  int n, c, h, w;

#pragma scop
  for (n = 0; n < _PB_BATCH; n++)
    for (c = 0; c < _PB_CHANNELS; c++)
      for (h = 0; h < _PB_HEIGHT; h++)
        for (w = 0; w < _PB_WIDTH; w++)
          Y[n][c][h][w] = X[n][h][w][c] * scale[c] + R[n][c][h][w];
#pragma endscop
}

int main(void)
{
  int nn = BATCH, nc = CHANNELS, nh = HEIGHT, nw = WIDTH;
  POLYBENCH_4D_ARRAY_DECL(X, DATA_TYPE, BATCH, HEIGHT, WIDTH, CHANNELS, nn, nh, nw, nc);
  POLYBENCH_1D_ARRAY_DECL(scale, DATA_TYPE, CHANNELS, nc);
  POLYBENCH_4D_ARRAY_DECL(R, DATA_TYPE, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw);
  POLYBENCH_4D_ARRAY_DECL(Y, DATA_TYPE, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw);

  init_array(nn, nc, nh, nw, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(scale),
             POLYBENCH_ARRAY(R));
  OPERATOR_TIMER_START;
  kernel_nhwc_to_nchw_scale_add(nn, nc, nh, nw, POLYBENCH_ARRAY(X),
                                POLYBENCH_ARRAY(scale), POLYBENCH_ARRAY(R),
                                POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_4D("Y", POLYBENCH_ARRAY(Y), nn, nc, nh, nw);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(scale);
  POLYBENCH_FREE_ARRAY(R);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
