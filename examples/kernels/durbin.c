/*
 * durbin.c - Levinson-Durbin recursion solving the Yule-Walker equations
 * of a symmetric Toeplitz system (PolyBench category "durbin").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef N
# define N 100
#endif

#define _PB_N n

/* r[k] is the off-diagonal k+1 of a Toeplitz matrix with unit diagonal;
 * |r[k]| <= 0.7/(k+2)^2 keeps it diagonally dominant, so every
 * reflection coefficient stays inside (-1, 1). */
static void init_array(int n, DATA_TYPE POLYBENCH_1D(r, N, n))
{
  int k;

  for (k = 0; k < n; k++) {
    DATA_TYPE sign = (k % 3 == 1) ? SCALAR_VAL(-1.0) : SCALAR_VAL(1.0);
    r[k] = sign * SCALAR_VAL(0.7) / ((DATA_TYPE) (k + 2) * (DATA_TYPE) (k + 2));
  }
}

static void kernel_durbin(int n, DATA_TYPE POLYBENCH_1D(r, N, n),
                          DATA_TYPE POLYBENCH_1D(y, N, n))
{
  DATA_TYPE z[N];
  DATA_TYPE alpha;
  DATA_TYPE beta;
  DATA_TYPE sum;
  int i, k;

#pragma scop
  y[0] = -r[0];
  beta = SCALAR_VAL(1.0);
  alpha = -r[0];
  for (k = 1; k < _PB_N; k++) {
    beta = (SCALAR_VAL(1.0) - alpha * alpha) * beta;
    sum = SCALAR_VAL(0.0);
    for (i = 0; i < k; i++) {
      sum += r[k - i - 1] * y[i];
    }
    alpha = -(r[k] + sum) / beta;
    for (i = 0; i < k; i++) {
      z[i] = y[i] + alpha * y[k - i - 1];
    }
    for (i = 0; i < k; i++) {
      y[i] = z[i];
    }
    y[k] = alpha;
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  POLYBENCH_1D_ARRAY_DECL(r, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(r));
  KERNEL_TIMER_START;
  kernel_durbin(n, POLYBENCH_ARRAY(r), POLYBENCH_ARRAY(y));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_1D("y", POLYBENCH_ARRAY(y), n);

  POLYBENCH_FREE_ARRAY(r);
  POLYBENCH_FREE_ARRAY(y);
  return 0;
}
