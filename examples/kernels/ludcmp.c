/*
 * ludcmp.c - LU factorisation followed by forward and backward
 * substitution, solving A*x = b (PolyBench category "ludcmp").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef N
# define N 80
#endif

#define _PB_N n

/* A strictly diagonally dominant matrix and a right-hand side in [0, 1]. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                       DATA_TYPE POLYBENCH_1D(b, N, n),
                       DATA_TYPE POLYBENCH_1D(x, N, n),
                       DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j;

  for (i = 0; i < n; i++) {
    b[i] = (DATA_TYPE) ((3 * i + 1) % 10) / 10;
    x[i] = SCALAR_VAL(0.0);
    y[i] = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++) {
      A[i][j] = (DATA_TYPE) ((i + 4 * j + 2) % 7) / (DATA_TYPE) (7 * n)
                - SCALAR_VAL(0.2) / (DATA_TYPE) n;
      if (i == j)
        A[i][j] += SCALAR_VAL(1.5) + (DATA_TYPE) (i % 5) / 5;
    }
  }
}

static void kernel_ludcmp(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                          DATA_TYPE POLYBENCH_1D(b, N, n),
                          DATA_TYPE POLYBENCH_1D(x, N, n),
                          DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j, k;
  DATA_TYPE w;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++) {
        w -= A[i][k] * A[k][j];
      }
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < _PB_N; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++) {
        w -= A[i][k] * A[k][j];
      }
      A[i][j] = w;
    }
  }
  for (i = 0; i < _PB_N; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = _PB_N - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < _PB_N; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);
  POLYBENCH_1D_ARRAY_DECL(b, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(x, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(b), POLYBENCH_ARRAY(x),
             POLYBENCH_ARRAY(y));
  KERNEL_TIMER_START;
  kernel_ludcmp(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(b), POLYBENCH_ARRAY(x),
                POLYBENCH_ARRAY(y));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("A", POLYBENCH_ARRAY(A), n, n);
  KERNEL_OUTPUT_1D("y", POLYBENCH_ARRAY(y), n);
  KERNEL_OUTPUT_1D("x", POLYBENCH_ARRAY(x), n);

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(b);
  POLYBENCH_FREE_ARRAY(x);
  POLYBENCH_FREE_ARRAY(y);
  return 0;
}
