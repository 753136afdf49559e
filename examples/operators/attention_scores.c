/*
 * attention_scores.c - BERT's attention scores, the batched product of the
 * queries with the transposed keys, scaled:
 *   S[b][h][i][j] = scale * sum_d Q[b][h][i][d] * K[b][h][j][d]
 * K is read transposed: the reduction runs along its rows.
 * A Pollen operator; see README.md in this directory.
 */
#include "operators.h"

#ifdef LARGE_DATASET
# ifndef BATCH
#  define BATCH 32
# endif
# ifndef HEADS
#  define HEADS 12
# endif
# ifndef SEQ
#  define SEQ 128
# endif
# ifndef HEAD_DIM
#  define HEAD_DIM 64
# endif
#else
# ifndef BATCH
#  define BATCH 2
# endif
# ifndef HEADS
#  define HEADS 2
# endif
# ifndef SEQ
#  define SEQ 12
# endif
# ifndef HEAD_DIM
#  define HEAD_DIM 8
# endif
#endif

#define _PB_BATCH nb
#define _PB_HEADS nh
#define _PB_SEQ ns
#define _PB_HEAD_DIM nd

static void init_array(int nb, int nh, int ns, int nd,
                       DATA_TYPE POLYBENCH_4D(Q, BATCH, HEADS, SEQ, HEAD_DIM,
                                              nb, nh, ns, nd),
                       DATA_TYPE POLYBENCH_4D(K, BATCH, HEADS, SEQ, HEAD_DIM,
                                              nb, nh, ns, nd))
{
  int b, h, s, d;

  for (b = 0; b < nb; b++)
    for (h = 0; h < nh; h++)
      for (s = 0; s < ns; s++)
        for (d = 0; d < nd; d++) {
          Q[b][h][s][d] = (DATA_TYPE) ((b + 2 * h + 3 * s + 5 * d + 1) % 17) / 17
                          - SCALAR_VAL(0.5);
          K[b][h][s][d] = (DATA_TYPE) ((3 * b + h + 7 * s + 2 * d + 4) % 13) / 13
                          - SCALAR_VAL(0.5);
        }
}

static void kernel_attention_scores(int nb, int nh, int ns, int nd, DATA_TYPE scale,
                                    DATA_TYPE POLYBENCH_4D(Q, BATCH, HEADS, SEQ, HEAD_DIM,
                                                           nb, nh, ns, nd),
                                    DATA_TYPE POLYBENCH_4D(K, BATCH, HEADS, SEQ, HEAD_DIM,
                                                           nb, nh, ns, nd),
                                    DATA_TYPE POLYBENCH_4D(S, BATCH, HEADS, SEQ, SEQ,
                                                           nb, nh, ns, ns))
{
  int b, h, i, j, d;

#pragma scop
  for (b = 0; b < _PB_BATCH; b++)
    for (h = 0; h < _PB_HEADS; h++)
      for (i = 0; i < _PB_SEQ; i++)
        for (j = 0; j < _PB_SEQ; j++) {
          S[b][h][i][j] = SCALAR_VAL(0.0);
          for (d = 0; d < _PB_HEAD_DIM; d++)
            S[b][h][i][j] += Q[b][h][i][d] * K[b][h][j][d];
          S[b][h][i][j] = S[b][h][i][j] * scale;
        }
#pragma endscop
}

int main(void)
{
  int nb = BATCH, nh = HEADS, ns = SEQ, nd = HEAD_DIM;
  DATA_TYPE scale = SCALAR_VAL(1.0) / SQRT_FUN((DATA_TYPE) HEAD_DIM);
  POLYBENCH_4D_ARRAY_DECL(Q, DATA_TYPE, BATCH, HEADS, SEQ, HEAD_DIM, nb, nh, ns, nd);
  POLYBENCH_4D_ARRAY_DECL(K, DATA_TYPE, BATCH, HEADS, SEQ, HEAD_DIM, nb, nh, ns, nd);
  POLYBENCH_4D_ARRAY_DECL(S, DATA_TYPE, BATCH, HEADS, SEQ, SEQ, nb, nh, ns, ns);

  init_array(nb, nh, ns, nd, POLYBENCH_ARRAY(Q), POLYBENCH_ARRAY(K));
  OPERATOR_TIMER_START;
  kernel_attention_scores(nb, nh, ns, nd, scale, POLYBENCH_ARRAY(Q),
                          POLYBENCH_ARRAY(K), POLYBENCH_ARRAY(S));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_4D("S", POLYBENCH_ARRAY(S), nb, nh, ns, ns);

  POLYBENCH_FREE_ARRAY(Q);
  POLYBENCH_FREE_ARRAY(K);
  POLYBENCH_FREE_ARRAY(S);
  return 0;
}
