/*
 * floyd-warshall.c - all-pairs shortest paths, relaxing every pair through
 * every intermediate vertex k in turn (PolyBench category "floyd-warshall").
 * A Pollen test kernel; see README.md in this directory.
 */
#if !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
# define DATA_TYPE_IS_INT
#endif
#include "kernel.h"

#ifndef N
# define N 80
#endif

#define _PB_N n

/* Edge weights 1..13, with about a fifth of the pairs unconnected
 * (weight 10000, small enough that two of them still fit an int). */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if (i == j)
        path[i][j] = 0;
      else if ((i + 2 * j) % 5 == 0)
        path[i][j] = 10000;
      else
        path[i][j] = (3 * i + 5 * j) % 13 + 1;
    }
}

static void kernel_floyd_warshall(int n,
                                  DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (k = 0; k < _PB_N; k++) {
    for (i = 0; i < _PB_N; i++)
      for (j = 0; j < _PB_N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j]
                       ? path[i][j] : path[i][k] + path[k][j];
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(path, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(path));
  KERNEL_TIMER_START;
  kernel_floyd_warshall(n, POLYBENCH_ARRAY(path));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("path", POLYBENCH_ARRAY(path), n, n);

  POLYBENCH_FREE_ARRAY(path);
  return 0;
}
