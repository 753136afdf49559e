/*
 * trisolv.c - forward substitution L*x = b with L lower triangular
 * (PolyBench category "trisolv").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef N
# define N 80
#endif

#define _PB_N n

/* Off-diagonal entries sum to less than half the diagonal, so x stays of
 * the size of b. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(L, N, N, n, n),
                       DATA_TYPE POLYBENCH_1D(x, N, n),
                       DATA_TYPE POLYBENCH_1D(b, N, n))
{
  int i, j;

  for (i = 0; i < n; i++) {
    x[i] = SCALAR_VAL(0.0);
    b[i] = (DATA_TYPE) ((7 * i + 2) % 11) / 11 - SCALAR_VAL(0.25);
    for (j = 0; j < i; j++)
      L[i][j] = (DATA_TYPE) ((i + 3 * j + 1) % 6 - 2) / (DATA_TYPE) (6 * n);
    L[i][i] = SCALAR_VAL(1.0) + (DATA_TYPE) (i % 3) / 3;
    for (j = i + 1; j < n; j++)
      L[i][j] = SCALAR_VAL(0.0);
  }
}

static void kernel_trisolv(int n, DATA_TYPE POLYBENCH_2D(L, N, N, n, n),
                           DATA_TYPE POLYBENCH_1D(x, N, n),
                           DATA_TYPE POLYBENCH_1D(b, N, n))
{
  int i, j;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(L, DATA_TYPE, N, N, n, n);
  POLYBENCH_1D_ARRAY_DECL(x, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(b, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(L), POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(b));
  KERNEL_TIMER_START;
  kernel_trisolv(n, POLYBENCH_ARRAY(L), POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(b));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_1D("x", POLYBENCH_ARRAY(x), n);

  POLYBENCH_FREE_ARRAY(L);
  POLYBENCH_FREE_ARRAY(x);
  POLYBENCH_FREE_ARRAY(b);
  return 0;
}
