/*
 * fused_mul_sub_mul_tensoradd.c - BERT's fused_mul_sub_mul_tensoradd, the
 * running example of Bastoul et al. (CGO 2022, Fig. 2(a)):
 *   X: B[i][k] = f(A[i][k])                 f(a) = alpha * a - beta
 *   Y: C[i][j] = g(C[i][j], B[i][k], D[k][i][j])   g(c, b, d) = c + b * d
 * B and C are both outputs.  Y reads D with k outermost of D's subscripts,
 * so the original order (i, j, k) strides through D by N*N.
 * A Pollen operator; see README.md in this directory.
 */
#include "operators.h"

#ifdef LARGE_DATASET
# ifndef N
#  define N 384
# endif
#else
# ifndef N
#  define N 24
# endif
#endif

#define _PB_N n

static void init_array(int n, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                       DATA_TYPE POLYBENCH_2D(C, N, N, n, n),
                       DATA_TYPE POLYBENCH_3D(D, N, N, N, n, n, n))
{
  int i, j, k;

  *alpha = SCALAR_VAL(1.5);
  *beta = SCALAR_VAL(0.25);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (DATA_TYPE) ((5 * i + 3 * j + 1) % 19) / 19;
      C[i][j] = (DATA_TYPE) ((i + 7 * j + 2) % 13) / 13 - SCALAR_VAL(0.5);
    }
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        D[k][i][j] = (DATA_TYPE) ((3 * k + 5 * i + j + 4) % 23) / 23
                     - SCALAR_VAL(0.5);
}

static void kernel_fused_mul_sub_mul_tensoradd(
    int n, DATA_TYPE alpha, DATA_TYPE beta,
    DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
    DATA_TYPE POLYBENCH_2D(B, N, N, n, n),
    DATA_TYPE POLYBENCH_2D(C, N, N, n, n),
    DATA_TYPE POLYBENCH_3D(D, N, N, N, n, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++)
    for (k = 0; k < _PB_N; k++)
      B[i][k] = alpha * A[i][k] - beta;
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      for (k = 0; k < _PB_N; k++)
        C[i][j] = C[i][j] + B[i][k] * D[k][i][j];
#pragma endscop
}

int main(void)
{
  int n = N;
  DATA_TYPE alpha, beta;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);
  POLYBENCH_2D_ARRAY_DECL(B, DATA_TYPE, N, N, n, n);
  POLYBENCH_2D_ARRAY_DECL(C, DATA_TYPE, N, N, n, n);
  POLYBENCH_3D_ARRAY_DECL(D, DATA_TYPE, N, N, N, n, n, n);

  init_array(n, &alpha, &beta, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(C),
             POLYBENCH_ARRAY(D));
  OPERATOR_TIMER_START;
  kernel_fused_mul_sub_mul_tensoradd(n, alpha, beta, POLYBENCH_ARRAY(A),
                                     POLYBENCH_ARRAY(B), POLYBENCH_ARRAY(C),
                                     POLYBENCH_ARRAY(D));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_2D("B", POLYBENCH_ARRAY(B), n, n);
  OPERATOR_OUTPUT_2D("C", POLYBENCH_ARRAY(C), n, n);

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);
  POLYBENCH_FREE_ARRAY(C);
  POLYBENCH_FREE_ARRAY(D);
  return 0;
}
