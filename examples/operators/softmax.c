/*
 * softmax.c - BERT's attention softmax over the last dimension of the
 * [batch * heads, seq, seq] scores: per row the maximum, the exponentials of
 * the shifted scores and their sum, then the division by the sum.
 * A Pollen operator; see README.md in this directory.
 */
#include "operators.h"

#ifdef LARGE_DATASET
# ifndef ROWS
#  define ROWS 384 /* batch 32 x 12 heads */
# endif
# ifndef SEQ
#  define SEQ 128
# endif
#else
# ifndef ROWS
#  define ROWS 6
# endif
# ifndef SEQ
#  define SEQ 16
# endif
#endif

#define _PB_ROWS nr
#define _PB_SEQ ns

static void init_array(int nr, int ns,
                       DATA_TYPE POLYBENCH_3D(X, ROWS, SEQ, SEQ, nr, ns, ns))
{
  int r, i, j;

  for (r = 0; r < nr; r++)
    for (i = 0; i < ns; i++)
      for (j = 0; j < ns; j++)
        X[r][i][j] = (DATA_TYPE) ((5 * r + 3 * i + 7 * j + 2) % 37) / 9
                     - SCALAR_VAL(2.0);
}

static void kernel_softmax(int nr, int ns,
                           DATA_TYPE POLYBENCH_3D(X, ROWS, SEQ, SEQ, nr, ns, ns),
                           DATA_TYPE POLYBENCH_2D(rowmax, ROWS, SEQ, nr, ns),
                           DATA_TYPE POLYBENCH_2D(rowsum, ROWS, SEQ, nr, ns),
                           DATA_TYPE POLYBENCH_3D(Y, ROWS, SEQ, SEQ, nr, ns, ns))
{
  int r, i, j;

#pragma scop
  for (r = 0; r < _PB_ROWS; r++)
    for (i = 0; i < _PB_SEQ; i++) {
      rowmax[r][i] = X[r][i][0];
      for (j = 1; j < _PB_SEQ; j++)
        rowmax[r][i] = MAX_FUN(rowmax[r][i], X[r][i][j]);
      rowsum[r][i] = SCALAR_VAL(0.0);
      for (j = 0; j < _PB_SEQ; j++) {
        Y[r][i][j] = EXP_FUN(X[r][i][j] - rowmax[r][i]);
        rowsum[r][i] += Y[r][i][j];
      }
      for (j = 0; j < _PB_SEQ; j++)
        Y[r][i][j] = Y[r][i][j] / rowsum[r][i];
    }
#pragma endscop
}

int main(void)
{
  int nr = ROWS, ns = SEQ;
  POLYBENCH_3D_ARRAY_DECL(X, DATA_TYPE, ROWS, SEQ, SEQ, nr, ns, ns);
  POLYBENCH_2D_ARRAY_DECL(rowmax, DATA_TYPE, ROWS, SEQ, nr, ns);
  POLYBENCH_2D_ARRAY_DECL(rowsum, DATA_TYPE, ROWS, SEQ, nr, ns);
  POLYBENCH_3D_ARRAY_DECL(Y, DATA_TYPE, ROWS, SEQ, SEQ, nr, ns, ns);

  init_array(nr, ns, POLYBENCH_ARRAY(X));
  OPERATOR_TIMER_START;
  kernel_softmax(nr, ns, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(rowmax),
                 POLYBENCH_ARRAY(rowsum), POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_2D("rowmax", POLYBENCH_ARRAY(rowmax), nr, ns);
  OPERATOR_OUTPUT_2D("rowsum", POLYBENCH_ARRAY(rowsum), nr, ns);
  OPERATOR_OUTPUT_3D("Y", POLYBENCH_ARRAY(Y), nr, ns, ns);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(rowmax);
  POLYBENCH_FREE_ARRAY(rowsum);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
