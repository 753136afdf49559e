/*
 * doitgen.c - multiresolution analysis kernel: every row A[r][q][*] is
 * replaced by A[r][q][*] * C4 (PolyBench category "doitgen").
 * A Pollen test kernel; see README.md in this directory.
 */
#include "kernel.h"

#ifndef NR
# define NR 20
#endif
#ifndef NQ
# define NQ 24
#endif
#ifndef NP
# define NP 30
#endif

#define _PB_NR nr
#define _PB_NQ nq
#define _PB_NP np

static void init_array(int nr, int nq, int np,
                       DATA_TYPE POLYBENCH_3D(A, NR, NQ, NP, nr, nq, np),
                       DATA_TYPE POLYBENCH_2D(C4, NP, NP, np, np))
{
  int i, j, k;

  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        A[i][j][k] = (DATA_TYPE) ((i + 3 * j + 5 * k + 1) % 31) / 31;
  for (i = 0; i < np; i++)
    for (j = 0; j < np; j++)
      C4[i][j] = (DATA_TYPE) ((2 * i + 7 * j + 4) % 19) / (19 * np / 4 + 1);
}

static void kernel_doitgen(int nr, int nq, int np,
                           DATA_TYPE POLYBENCH_3D(A, NR, NQ, NP, nr, nq, np),
                           DATA_TYPE POLYBENCH_2D(C4, NP, NP, np, np),
                           DATA_TYPE POLYBENCH_1D(sum, NP, np))
{
  int r, q, p, s;

#pragma scop
  for (r = 0; r < _PB_NR; r++)
    for (q = 0; q < _PB_NQ; q++) {
      for (p = 0; p < _PB_NP; p++) {
        sum[p] = SCALAR_VAL(0.0);
        for (s = 0; s < _PB_NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < _PB_NP; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}

int main(void)
{
  int nr = NR, nq = NQ, np = NP;
  POLYBENCH_3D_ARRAY_DECL(A, DATA_TYPE, NR, NQ, NP, nr, nq, np);
  POLYBENCH_2D_ARRAY_DECL(C4, DATA_TYPE, NP, NP, np, np);
  POLYBENCH_1D_ARRAY_DECL(sum, DATA_TYPE, NP, np);

  init_array(nr, nq, np, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(C4));
  KERNEL_TIMER_START;
  kernel_doitgen(nr, nq, np, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(C4),
                 POLYBENCH_ARRAY(sum));
  KERNEL_TIMER_STOP;
  KERNEL_OUTPUT_3D("A", POLYBENCH_ARRAY(A), nr, nq, np);
  KERNEL_OUTPUT_1D("sum", POLYBENCH_ARRAY(sum), np);

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(C4);
  POLYBENCH_FREE_ARRAY(sum);
  return 0;
}
