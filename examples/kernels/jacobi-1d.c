/*
 * jacobi-1d.c - 1D Jacobi stencil, three-point averages back and forth
 * between A and B (PolyBench category "jacobi-1d").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef TSTEPS
# define TSTEPS 40
#endif
#ifndef N
# define N 100
#endif

#define _PB_TSTEPS tsteps
#define _PB_N n

static void init_array(int n, DATA_TYPE POLYBENCH_1D(A, N, n),
                       DATA_TYPE POLYBENCH_1D(B, N, n))
{
  int i;

  for (i = 0; i < n; i++) {
    A[i] = (DATA_TYPE) ((5 * i + 1) % 17) / 17;
    B[i] = (DATA_TYPE) ((3 * i + 4) % 19) / 19;
  }
}

static void kernel_jacobi_1d(int tsteps, int n,
                             DATA_TYPE POLYBENCH_1D(A, N, n),
                             DATA_TYPE POLYBENCH_1D(B, N, n))
{
  int t, i;

#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      B[i] = SCALAR_VAL(0.33333) * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < _PB_N - 1; i++)
      A[i] = SCALAR_VAL(0.33333) * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop
}

int main(void)
{
  int tsteps = TSTEPS, n = N;
  POLYBENCH_1D_ARRAY_DECL(A, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(B, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
  KERNEL_TIMER_START;
  kernel_jacobi_1d(tsteps, n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_1D("A", POLYBENCH_ARRAY(A), n);
  KERNEL_OUTPUT_1D("B", POLYBENCH_ARRAY(B), n);

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);
  return 0;
}
