/*
 * correlation.c - correlation matrix of the M columns of an N x M data
 * matrix (PolyBench category "correlation").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef M
# define M 60
#endif
#ifndef N
# define N 70
#endif

#define _PB_M m
#define _PB_N n

/* Columns with distinct means and spreads; column 3 is constant, which
 * exercises the near-zero deviation guard. */
static void init_array(int m, int n, DATA_TYPE *float_n,
                       DATA_TYPE POLYBENCH_2D(data, N, M, n, m))
{
  int i, j;

  *float_n = (DATA_TYPE) n;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      if (j == 3 % m)
        data[i][j] = SCALAR_VAL(2.5);
      else
        data[i][j] = (DATA_TYPE) ((i * (j + 1) + 3 * j) % 23) / 4
                     + (DATA_TYPE) (j % 5);
    }
}

static void kernel_correlation(int m, int n, DATA_TYPE float_n,
                               DATA_TYPE POLYBENCH_2D(data, N, M, n, m),
                               DATA_TYPE POLYBENCH_2D(corr, M, M, m, m),
                               DATA_TYPE POLYBENCH_1D(mean, M, m),
                               DATA_TYPE POLYBENCH_1D(stddev, M, m))
{
  int i, j, k;
  DATA_TYPE eps = SCALAR_VAL(0.1);

#pragma scop
  for (j = 0; j < _PB_M; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (j = 0; j < _PB_M; j++) {
    stddev[j] = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_N; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = SQRT_FUN(stddev[j]);
    stddev[j] = stddev[j] <= eps ? SCALAR_VAL(1.0) : stddev[j];
  }
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_M; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= SQRT_FUN(float_n) * stddev[j];
    }
  for (i = 0; i < _PB_M - 1; i++) {
    corr[i][i] = SCALAR_VAL(1.0);
    for (j = i + 1; j < _PB_M; j++) {
      corr[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_N; k++)
        corr[i][j] += (data[k][i] * data[k][j]);
      corr[j][i] = corr[i][j];
    }
  }
  corr[_PB_M - 1][_PB_M - 1] = SCALAR_VAL(1.0);
#pragma endscop
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE float_n;
  POLYBENCH_2D_ARRAY_DECL(data, DATA_TYPE, N, M, n, m);
  POLYBENCH_2D_ARRAY_DECL(corr, DATA_TYPE, M, M, m, m);
  POLYBENCH_1D_ARRAY_DECL(mean, DATA_TYPE, M, m);
  POLYBENCH_1D_ARRAY_DECL(stddev, DATA_TYPE, M, m);

  init_array(m, n, &float_n, POLYBENCH_ARRAY(data));
  KERNEL_TIMER_START;
  kernel_correlation(m, n, float_n, POLYBENCH_ARRAY(data),
                     POLYBENCH_ARRAY(corr), POLYBENCH_ARRAY(mean),
                     POLYBENCH_ARRAY(stddev));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("corr", POLYBENCH_ARRAY(corr), m, m);
  KERNEL_OUTPUT_2D("data", POLYBENCH_ARRAY(data), n, m);
  KERNEL_OUTPUT_1D("mean", POLYBENCH_ARRAY(mean), m);
  KERNEL_OUTPUT_1D("stddev", POLYBENCH_ARRAY(stddev), m);

  POLYBENCH_FREE_ARRAY(data);
  POLYBENCH_FREE_ARRAY(corr);
  POLYBENCH_FREE_ARRAY(mean);
  POLYBENCH_FREE_ARRAY(stddev);
  return 0;
}
