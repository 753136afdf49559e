/*
 * transpose_reduce_channel.c - the mean over the channels of NCHW activations
 * (the channel pooling of spatial attention), written output-first as a
 * framework's reference does: the reduction over c runs innermost and reads
 * X transposed, H*W elements apart:
 *   Y[n][h][w] = (sum_c X[n][c][h][w]) / C
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
                                              nn, nc, nh, nw))
{
  int n, c, h, w;

  for (n = 0; n < nn; n++)
    for (c = 0; c < nc; c++)
      for (h = 0; h < nh; h++)
        for (w = 0; w < nw; w++)
          X[n][c][h][w] = (DATA_TYPE) ((7 * n + 3 * c + h + 5 * w + 2) % 23) / 23
                          - SCALAR_VAL(0.25);
}

static void kernel_transpose_reduce_channel(
    int nn, int nc, int nh, int nw,
    DATA_TYPE POLYBENCH_4D(X, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw),
    DATA_TYPE POLYBENCH_3D(Y, BATCH, HEIGHT, WIDTH, nn, nh, nw))
{
  int n, c, h, w;

#pragma scop
  for (n = 0; n < _PB_BATCH; n++)
    for (h = 0; h < _PB_HEIGHT; h++)
      for (w = 0; w < _PB_WIDTH; w++) {
        Y[n][h][w] = SCALAR_VAL(0.0);
        for (c = 0; c < _PB_CHANNELS; c++)
          Y[n][h][w] += X[n][c][h][w];
        Y[n][h][w] = Y[n][h][w] / (DATA_TYPE) _PB_CHANNELS;
      }
#pragma endscop
}

int main(void)
{
  int nn = BATCH, nc = CHANNELS, nh = HEIGHT, nw = WIDTH;
  POLYBENCH_4D_ARRAY_DECL(X, DATA_TYPE, BATCH, CHANNELS, HEIGHT, WIDTH, nn, nc, nh, nw);
  POLYBENCH_3D_ARRAY_DECL(Y, DATA_TYPE, BATCH, HEIGHT, WIDTH, nn, nh, nw);

  init_array(nn, nc, nh, nw, POLYBENCH_ARRAY(X));
  OPERATOR_TIMER_START;
  kernel_transpose_reduce_channel(nn, nc, nh, nw, POLYBENCH_ARRAY(X),
                                  POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_3D("Y", POLYBENCH_ARRAY(Y), nn, nh, nw);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
