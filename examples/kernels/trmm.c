/*
 * trmm.c - B := alpha*A^T*B with A unit lower triangular
 * (PolyBench category "trmm").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef M
# define M 40
#endif
#ifndef N
# define N 50
#endif

#define _PB_M m
#define _PB_N n

static void init_array(int m, int n, DATA_TYPE *alpha,
                       DATA_TYPE POLYBENCH_2D(A, M, M, m, m),
                       DATA_TYPE POLYBENCH_2D(B, M, N, m, n))
{
  int i, j;

  *alpha = SCALAR_VAL(1.125);
  for (i = 0; i < m; i++) {
    for (j = 0; j < i; j++)
      A[i][j] = (DATA_TYPE) ((3 * i + j + 2) % 11) / (11 * 2);
    A[i][i] = SCALAR_VAL(1.0);
    for (j = i + 1; j < m; j++)
      A[i][j] = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++)
      B[i][j] = (DATA_TYPE) ((i + 6 * j + 1) % 17) / 17 - SCALAR_VAL(0.5);
  }
}

static void kernel_trmm(int m, int n, DATA_TYPE alpha,
                        DATA_TYPE POLYBENCH_2D(A, M, M, m, m),
                        DATA_TYPE POLYBENCH_2D(B, M, N, m, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_M; i++)
    for (j = 0; j < _PB_N; j++) {
      for (k = i + 1; k < _PB_M; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE alpha;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, M, M, m, m);
  POLYBENCH_2D_ARRAY_DECL(B, DATA_TYPE, M, N, m, n);

  init_array(m, n, &alpha, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
  KERNEL_TIMER_START;
  kernel_trmm(m, n, alpha, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("B", POLYBENCH_ARRAY(B), m, n);

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);
  return 0;
}
