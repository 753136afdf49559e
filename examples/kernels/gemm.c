/*
 * gemm.c - C := alpha*A*B + beta*C (PolyBench category "gemm").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef NI
# define NI 40
#endif
#ifndef NJ
# define NJ 50
#endif
#ifndef NK
# define NK 60
#endif

#define _PB_NI ni
#define _PB_NJ nj
#define _PB_NK nk

static void init_array(int ni, int nj, int nk,
                       DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE POLYBENCH_2D(C, NI, NJ, ni, nj),
                       DATA_TYPE POLYBENCH_2D(A, NI, NK, ni, nk),
                       DATA_TYPE POLYBENCH_2D(B, NK, NJ, nk, nj))
{
  int i, j;

  *alpha = SCALAR_VAL(1.25);
  *beta = SCALAR_VAL(0.75);
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (DATA_TYPE) ((3 * i + 5 * j + 1) % 23) / 23;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE) ((7 * i + j + 2) % 19) / 19 - SCALAR_VAL(0.5);
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE) ((i + 11 * j + 3) % 17) / 17;
}

static void kernel_gemm(int ni, int nj, int nk,
                        DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE POLYBENCH_2D(C, NI, NJ, ni, nj),
                        DATA_TYPE POLYBENCH_2D(A, NI, NK, ni, nk),
                        DATA_TYPE POLYBENCH_2D(B, NK, NJ, nk, nj))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_NI; i++) {
    for (j = 0; j < _PB_NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_NK; k++) {
      for (j = 0; j < _PB_NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
  }
#pragma endscop
}

int main(void)
{
  int ni = NI, nj = NJ, nk = NK;
  DATA_TYPE alpha, beta;
  POLYBENCH_2D_ARRAY_DECL(C, DATA_TYPE, NI, NJ, ni, nj);
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, NI, NK, ni, nk);
  POLYBENCH_2D_ARRAY_DECL(B, DATA_TYPE, NK, NJ, nk, nj);

  init_array(ni, nj, nk, &alpha, &beta, POLYBENCH_ARRAY(C),
             POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
  KERNEL_TIMER_START;
  kernel_gemm(ni, nj, nk, alpha, beta, POLYBENCH_ARRAY(C),
              POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("C", POLYBENCH_ARRAY(C), ni, nj);

  POLYBENCH_FREE_ARRAY(C);
  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);
  return 0;
}
