/*
 * batched_matmul.c - a batched matrix product [batch, m, k] x [batch, k, n],
 * as BERT's attention context (probabilities [batch * heads, seq, seq] times
 * values [batch * heads, seq, head_dim]):
 *   C[b][i][j] = sum_k A[b][i][k] * B[b][k][j]
 * A Pollen operator; see README.md in this directory.
 */
#include "operators.h"

#ifdef LARGE_DATASET
# ifndef NBATCH
#  define NBATCH 384 /* batch 32 x 12 heads */
# endif
# ifndef NI
#  define NI 128
# endif
# ifndef NJ
#  define NJ 64
# endif
# ifndef NK
#  define NK 128
# endif
#else
# ifndef NBATCH
#  define NBATCH 3
# endif
# ifndef NI
#  define NI 10
# endif
# ifndef NJ
#  define NJ 8
# endif
# ifndef NK
#  define NK 12
# endif
#endif

#define _PB_NBATCH nbatch
#define _PB_NI ni
#define _PB_NJ nj
#define _PB_NK nk

static void init_array(int nbatch, int ni, int nj, int nk,
                       DATA_TYPE POLYBENCH_3D(A, NBATCH, NI, NK, nbatch, ni, nk),
                       DATA_TYPE POLYBENCH_3D(B, NBATCH, NK, NJ, nbatch, nk, nj))
{
  int b, i, j, k;

  for (b = 0; b < nbatch; b++) {
    for (i = 0; i < ni; i++)
      for (k = 0; k < nk; k++)
        A[b][i][k] = (DATA_TYPE) ((b + 3 * i + 5 * k + 1) % 19) / 19;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        B[b][k][j] = (DATA_TYPE) ((2 * b + 7 * k + j + 3) % 23) / 23
                     - SCALAR_VAL(0.5);
  }
}

static void kernel_batched_matmul(int nbatch, int ni, int nj, int nk,
                                  DATA_TYPE POLYBENCH_3D(A, NBATCH, NI, NK,
                                                         nbatch, ni, nk),
                                  DATA_TYPE POLYBENCH_3D(B, NBATCH, NK, NJ,
                                                         nbatch, nk, nj),
                                  DATA_TYPE POLYBENCH_3D(C, NBATCH, NI, NJ,
                                                         nbatch, ni, nj))
{
  int b, i, j, k;

#pragma scop
  for (b = 0; b < _PB_NBATCH; b++)
    for (i = 0; i < _PB_NI; i++)
      for (j = 0; j < _PB_NJ; j++) {
        C[b][i][j] = SCALAR_VAL(0.0);
        for (k = 0; k < _PB_NK; k++)
          C[b][i][j] += A[b][i][k] * B[b][k][j];
      }
#pragma endscop
}

int main(void)
{
  int nbatch = NBATCH, ni = NI, nj = NJ, nk = NK;
  POLYBENCH_3D_ARRAY_DECL(A, DATA_TYPE, NBATCH, NI, NK, nbatch, ni, nk);
  POLYBENCH_3D_ARRAY_DECL(B, DATA_TYPE, NBATCH, NK, NJ, nbatch, nk, nj);
  POLYBENCH_3D_ARRAY_DECL(C, DATA_TYPE, NBATCH, NI, NJ, nbatch, ni, nj);

  init_array(nbatch, ni, nj, nk, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
  OPERATOR_TIMER_START;
  kernel_batched_matmul(nbatch, ni, nj, nk, POLYBENCH_ARRAY(A),
                        POLYBENCH_ARRAY(B), POLYBENCH_ARRAY(C));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_3D("C", POLYBENCH_ARRAY(C), nbatch, ni, nj);

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);
  POLYBENCH_FREE_ARRAY(C);
  return 0;
}
