/*
 * nussinov.c - Nussinov's dynamic program for RNA secondary structure:
 * the maximum number of base pairs of every subsequence, a triangular
 * max-plus recurrence (PolyBench category "nussinov").
 * A Pollen test kernel; see README.md in this directory.
 */
#if !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
# define DATA_TYPE_IS_INT
#endif
#include "kernel.h"

#ifndef N
# define N 100
#endif

#define _PB_N n

/* Bases are coded 0..3; a pair matches when the codes sum to 3. */
typedef char base;

#define match(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1) >= (s2) ? (s1) : (s2))

static void init_array(int n, base POLYBENCH_1D(seq, N, n),
                       DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++) {
    seq[i] = (base) ((5 * (i % 11) + i / 3) % 4);
    for (j = 0; j < n; j++)
      table[i][j] = 0;
  }
}

static void kernel_nussinov(int n, base POLYBENCH_1D(seq, N, n),
                            DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = _PB_N - 1; i >= 0; i--) {
    for (j = i + 1; j < _PB_N; j++) {
      if (j - 1 >= 0)
        table[i][j] = max_score(table[i][j], table[i][j - 1]);
      if (i + 1 < _PB_N)
        table[i][j] = max_score(table[i][j], table[i + 1][j]);
      if (j - 1 >= 0 && i + 1 < _PB_N) {
        if (i < j - 1)
          table[i][j] = max_score(table[i][j],
                                  table[i + 1][j - 1] + match(seq[i], seq[j]));
        else
          table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
      }
      for (k = i + 1; k < j; k++) {
        table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
      }
    }
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  POLYBENCH_1D_ARRAY_DECL(seq, base, N, n);
  POLYBENCH_2D_ARRAY_DECL(table, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(seq), POLYBENCH_ARRAY(table));
  KERNEL_TIMER_START;
  kernel_nussinov(n, POLYBENCH_ARRAY(seq), POLYBENCH_ARRAY(table));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_2D("table", POLYBENCH_ARRAY(table), n, n);

  POLYBENCH_FREE_ARRAY(seq);
  POLYBENCH_FREE_ARRAY(table);
  return 0;
}
