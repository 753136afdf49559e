/*
 * channel_shuffle.c - the channel shuffle of ShuffleNet and grouped-
 * convolution networks: the channels of NCHW activations, viewed as
 * [groups][channels per group], are transposed to [channels per group]
 * [groups], a permutation of the 5-D view's dimensions (n, g, c, h, w) to
 * (n, c, g, h, w):
 *   Y[n][c][g][h][w] = X[n][g][c][h][w]
 * A Pollen operator; see README.md in this directory.
 */
#include "operators.h"

#ifdef LARGE_DATASET
# ifndef BATCH
#  define BATCH 16
# endif
# ifndef GROUPS
#  define GROUPS 8
# endif
# ifndef GROUP_CHANNELS
#  define GROUP_CHANNELS 32
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
# ifndef GROUPS
#  define GROUPS 3
# endif
# ifndef GROUP_CHANNELS
#  define GROUP_CHANNELS 4
# endif
# ifndef HEIGHT
#  define HEIGHT 5
# endif
# ifndef WIDTH
#  define WIDTH 4
# endif
#endif

#define _PB_BATCH nn
#define _PB_GROUPS ng
#define _PB_GROUP_CHANNELS nc
#define _PB_HEIGHT nh
#define _PB_WIDTH nw

static void init_array(int nn, int ng, int nc, int nh, int nw,
                       DATA_TYPE POLYBENCH_5D(X, BATCH, GROUPS, GROUP_CHANNELS,
                                              HEIGHT, WIDTH, nn, ng, nc, nh, nw))
{
  int n, g, c, h, w;

  for (n = 0; n < nn; n++)
    for (g = 0; g < ng; g++)
      for (c = 0; c < nc; c++)
        for (h = 0; h < nh; h++)
          for (w = 0; w < nw; w++)
            X[n][g][c][h][w] =
                (DATA_TYPE) ((n + 7 * g + 3 * c + 5 * h + 2 * w + 1) % 41) / 41;
}

static void kernel_channel_shuffle(
    int nn, int ng, int nc, int nh, int nw,
    DATA_TYPE POLYBENCH_5D(X, BATCH, GROUPS, GROUP_CHANNELS, HEIGHT, WIDTH,
                           nn, ng, nc, nh, nw),
    DATA_TYPE POLYBENCH_5D(Y, BATCH, GROUP_CHANNELS, GROUPS, HEIGHT, WIDTH,
                           nn, nc, ng, nh, nw))
{
  int n, g, c, h, w;

#pragma scop
  for (n = 0; n < _PB_BATCH; n++)
    for (c = 0; c < _PB_GROUP_CHANNELS; c++)
      for (g = 0; g < _PB_GROUPS; g++)
        for (h = 0; h < _PB_HEIGHT; h++)
          for (w = 0; w < _PB_WIDTH; w++)
            Y[n][c][g][h][w] = X[n][g][c][h][w];
#pragma endscop
}

int main(void)
{
  int nn = BATCH, ng = GROUPS, nc = GROUP_CHANNELS, nh = HEIGHT, nw = WIDTH;
  POLYBENCH_5D_ARRAY_DECL(X, DATA_TYPE, BATCH, GROUPS, GROUP_CHANNELS, HEIGHT,
                          WIDTH, nn, ng, nc, nh, nw);
  POLYBENCH_5D_ARRAY_DECL(Y, DATA_TYPE, BATCH, GROUP_CHANNELS, GROUPS, HEIGHT,
                          WIDTH, nn, nc, ng, nh, nw);

  init_array(nn, ng, nc, nh, nw, POLYBENCH_ARRAY(X));
  OPERATOR_TIMER_START;
  kernel_channel_shuffle(nn, ng, nc, nh, nw, POLYBENCH_ARRAY(X),
                         POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_5D("Y", POLYBENCH_ARRAY(Y), nn, nc, ng, nh, nw);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
