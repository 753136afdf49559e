/*
 * lu.c - in-place LU factorisation without pivoting, unit L below the
 * diagonal and U on and above it (PolyBench category "lu").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef N
# define N 80
#endif

#define _PB_N n

/* Strictly diagonally dominant by rows and columns, so elimination without
 * pivoting is stable. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (DATA_TYPE) ((2 * i + 5 * j + 3) % 9) / (DATA_TYPE) (9 * n)
                - SCALAR_VAL(0.3) / (DATA_TYPE) n;
      if (i == j)
        A[i][j] += SCALAR_VAL(2.0) + (DATA_TYPE) (i % 4) / 4;
    }
}

static void kernel_lu(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++) {
        A[i][j] -= A[i][k] * A[k][j];
      }
      A[i][j] /= A[j][j];
    }
    for (j = i; j < _PB_N; j++) {
      for (k = 0; k < i; k++) {
        A[i][j] -= A[i][k] * A[k][j];
      }
    }
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));
  KERNEL_TIMER_START;
  kernel_lu(n, POLYBENCH_ARRAY(A));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("A", POLYBENCH_ARRAY(A), n, n);

  POLYBENCH_FREE_ARRAY(A);
  return 0;
}
