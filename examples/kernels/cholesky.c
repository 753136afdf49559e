/*
 * cholesky.c - in-place Cholesky factorisation A = L*L^T of a symmetric
 * positive definite matrix, L in the lower triangle
 * (PolyBench category "cholesky").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef N
# define N 80
#endif

#define _PB_N n

/* Symmetric and strictly diagonally dominant with a positive diagonal,
 * hence positive definite. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      int d = i > j ? i - j : j - i;
      if (d == 0)
        A[i][j] = (DATA_TYPE) (2 + i % 3) + (DATA_TYPE) (n) / 4;
      else
        A[i][j] = (DATA_TYPE) ((i + j) % 5 + 1) / ((DATA_TYPE) 5 * d * d);
    }
}

static void kernel_cholesky(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++) {
        A[i][j] -= A[i][k] * A[j][k];
      }
      A[i][j] /= A[j][j];
    }
    for (k = 0; k < i; k++) {
      A[i][i] -= A[i][k] * A[i][k];
    }
    A[i][i] = SQRT_FUN(A[i][i]);
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));
  KERNEL_TIMER_START;
  kernel_cholesky(n, POLYBENCH_ARRAY(A));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("A", POLYBENCH_ARRAY(A), n, n);

  POLYBENCH_FREE_ARRAY(A);
  return 0;
}
