/*
 * gramschmidt.c - QR decomposition A = Q*R by modified Gram-Schmidt;
 * A is overwritten (PolyBench category "gramschmidt").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef M
# define M 50
#endif
#ifndef N
# define N 40
#endif

#define _PB_M m
#define _PB_N n

/* A strong diagonal over small entries keeps the columns independent
 * (M >= N assumed); R and Q start at zero. */
static void init_array(int m, int n,
                       DATA_TYPE POLYBENCH_2D(A, M, N, m, n),
                       DATA_TYPE POLYBENCH_2D(R, N, N, n, n),
                       DATA_TYPE POLYBENCH_2D(Q, M, N, m, n))
{
  int i, j;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (DATA_TYPE) ((3 * i + 7 * j + 1) % 10) / 10;
      if (i == j)
        A[i][j] += SCALAR_VAL(4.0);
      Q[i][j] = SCALAR_VAL(0.0);
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i][j] = SCALAR_VAL(0.0);
}

static void kernel_gramschmidt(int m, int n,
                               DATA_TYPE POLYBENCH_2D(A, M, N, m, n),
                               DATA_TYPE POLYBENCH_2D(R, N, N, n, n),
                               DATA_TYPE POLYBENCH_2D(Q, M, N, m, n))
{
  int i, j, k;
  DATA_TYPE nrm;

#pragma scop
  for (k = 0; k < _PB_N; k++) {
    nrm = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = SQRT_FUN(nrm);
    for (i = 0; i < _PB_M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < _PB_N; j++) {
      R[k][j] = SCALAR_VAL(0.0);
      for (i = 0; i < _PB_M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < _PB_M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}

int main(void)
{
  int m = M, n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, M, N, m, n);
  POLYBENCH_2D_ARRAY_DECL(R, DATA_TYPE, N, N, n, n);
  POLYBENCH_2D_ARRAY_DECL(Q, DATA_TYPE, M, N, m, n);

  init_array(m, n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(R), POLYBENCH_ARRAY(Q));
  KERNEL_TIMER_START;
  kernel_gramschmidt(m, n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(R),
                     POLYBENCH_ARRAY(Q));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("A", POLYBENCH_ARRAY(A), m, n);
  KERNEL_OUTPUT_2D("R", POLYBENCH_ARRAY(R), n, n);
  KERNEL_OUTPUT_2D("Q", POLYBENCH_ARRAY(Q), m, n);

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(R);
  POLYBENCH_FREE_ARRAY(Q);
  return 0;
}
