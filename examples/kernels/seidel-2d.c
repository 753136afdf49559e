/*
 * seidel-2d.c - 2D Gauss-Seidel stencil, nine-point averages in place
 * (PolyBench category "seidel-2d").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef TSTEPS
# define TSTEPS 20
#endif
#ifndef N
# define N 40
#endif

#define _PB_TSTEPS tsteps
#define _PB_N n

static void init_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE) ((3 * i + 4 * j + 2) % 16) / 4;
}

static void kernel_seidel_2d(int tsteps, int n,
                             DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int t, i, j;

#pragma scop
  for (t = 0; t <= _PB_TSTEPS - 1; t++)
    for (i = 1; i <= _PB_N - 2; i++)
      for (j = 1; j <= _PB_N - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1])
                  / SCALAR_VAL(9.0);
#pragma endscop
}

int main(void)
{
  int tsteps = TSTEPS, n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));
  KERNEL_TIMER_START;
  kernel_seidel_2d(tsteps, n, POLYBENCH_ARRAY(A));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("A", POLYBENCH_ARRAY(A), n, n);

  POLYBENCH_FREE_ARRAY(A);
  return 0;
}
