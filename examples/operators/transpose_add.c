/*
 * transpose_add.c - BERT's "transpose for scores" of the query projection:
 * the [batch, seq, heads, head_dim] view of the projection's output is
 * reshaped to [batch, heads, seq, head_dim], fused with the projection's
 * bias add and the 1/sqrt(head_dim) scale of the queries:
 *   Q[b][h][s][d] = (P[b][s][h][d] + bias[h][d]) * scale
 * A Pollen operator; see README.md in this directory.
 */
#include "operators.h"

#ifdef LARGE_DATASET
# ifndef BATCH
#  define BATCH 32
# endif
# ifndef SEQ
#  define SEQ 128
# endif
# ifndef HEADS
#  define HEADS 12
# endif
# ifndef HEAD_DIM
#  define HEAD_DIM 64
# endif
#else
# ifndef BATCH
#  define BATCH 2
# endif
# ifndef SEQ
#  define SEQ 8
# endif
# ifndef HEADS
#  define HEADS 3
# endif
# ifndef HEAD_DIM
#  define HEAD_DIM 16
# endif
#endif

#define _PB_BATCH nb
#define _PB_SEQ ns
#define _PB_HEADS nh
#define _PB_HEAD_DIM nd

static void init_array(int nb, int ns, int nh, int nd,
                       DATA_TYPE POLYBENCH_4D(P, BATCH, SEQ, HEADS, HEAD_DIM,
                                              nb, ns, nh, nd),
                       DATA_TYPE POLYBENCH_2D(bias, HEADS, HEAD_DIM, nh, nd))
{
  int b, s, h, d;

  for (b = 0; b < nb; b++)
    for (s = 0; s < ns; s++)
      for (h = 0; h < nh; h++)
        for (d = 0; d < nd; d++)
          P[b][s][h][d] = (DATA_TYPE) ((b + 3 * s + 5 * h + 7 * d + 1) % 29) / 29
                          - SCALAR_VAL(0.5);
  for (h = 0; h < nh; h++)
    for (d = 0; d < nd; d++)
      bias[h][d] = (DATA_TYPE) ((2 * h + d) % 11) / 11;
}

static void kernel_transpose_add(int nb, int ns, int nh, int nd, DATA_TYPE scale,
                                 DATA_TYPE POLYBENCH_4D(P, BATCH, SEQ, HEADS, HEAD_DIM,
                                                        nb, ns, nh, nd),
                                 DATA_TYPE POLYBENCH_2D(bias, HEADS, HEAD_DIM, nh, nd),
                                 DATA_TYPE POLYBENCH_4D(Q, BATCH, HEADS, SEQ, HEAD_DIM,
                                                        nb, nh, ns, nd))
{
  int b, s, h, d;

#pragma scop
  for (b = 0; b < _PB_BATCH; b++)
    for (h = 0; h < _PB_HEADS; h++)
      for (s = 0; s < _PB_SEQ; s++)
        for (d = 0; d < _PB_HEAD_DIM; d++)
          Q[b][h][s][d] = (P[b][s][h][d] + bias[h][d]) * scale;
#pragma endscop
}

int main(void)
{
  int nb = BATCH, ns = SEQ, nh = HEADS, nd = HEAD_DIM;
  DATA_TYPE scale = SCALAR_VAL(1.0) / SQRT_FUN((DATA_TYPE) HEAD_DIM);
  POLYBENCH_4D_ARRAY_DECL(P, DATA_TYPE, BATCH, SEQ, HEADS, HEAD_DIM, nb, ns, nh, nd);
  POLYBENCH_2D_ARRAY_DECL(bias, DATA_TYPE, HEADS, HEAD_DIM, nh, nd);
  POLYBENCH_4D_ARRAY_DECL(Q, DATA_TYPE, BATCH, HEADS, SEQ, HEAD_DIM, nb, nh, ns, nd);

  init_array(nb, ns, nh, nd, POLYBENCH_ARRAY(P), POLYBENCH_ARRAY(bias));
  OPERATOR_TIMER_START;
  kernel_transpose_add(nb, ns, nh, nd, scale, POLYBENCH_ARRAY(P),
                       POLYBENCH_ARRAY(bias), POLYBENCH_ARRAY(Q));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_4D("Q", POLYBENCH_ARRAY(Q), nb, nh, ns, nd);

  POLYBENCH_FREE_ARRAY(P);
  POLYBENCH_FREE_ARRAY(bias);
  POLYBENCH_FREE_ARRAY(Q);
  return 0;
}
