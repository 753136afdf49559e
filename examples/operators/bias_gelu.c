/*
 * bias_gelu.c - BERT's fused bias add and GELU on the feed-forward
 * intermediate [batch, seq, inter] tensor, with the tanh approximation:
 *   U = X + bias,  Y = 0.5 * U * (1 + tanh(sqrt(2/pi) * (U + 0.044715 U^3)))
 * U is kept as an output (training saves it for the backward pass).
 * A Pollen operator; see README.md in this directory.
 */
#include "operators.h"

#ifdef LARGE_DATASET
# ifndef BATCH
#  define BATCH 32
# endif
# ifndef SEQ
#  define SEQ 128
# endif
# ifndef INTER
#  define INTER 3072
# endif
#else
# ifndef BATCH
#  define BATCH 2
# endif
# ifndef SEQ
#  define SEQ 8
# endif
# ifndef INTER
#  define INTER 64
# endif
#endif

#define _PB_BATCH nb
#define _PB_SEQ ns
#define _PB_INTER ni

static void init_array(int nb, int ns, int ni,
                       DATA_TYPE POLYBENCH_3D(X, BATCH, SEQ, INTER, nb, ns, ni),
                       DATA_TYPE POLYBENCH_1D(bias, INTER, ni))
{
  int b, s, i;

  for (b = 0; b < nb; b++)
    for (s = 0; s < ns; s++)
      for (i = 0; i < ni; i++)
        X[b][s][i] = (DATA_TYPE) ((3 * b + 5 * s + 7 * i + 1) % 41) / 10
                     - SCALAR_VAL(2.0);
  for (i = 0; i < ni; i++)
    bias[i] = (DATA_TYPE) (i % 9) / 9 - SCALAR_VAL(0.5);
}

static void kernel_bias_gelu(int nb, int ns, int ni,
                             DATA_TYPE POLYBENCH_3D(X, BATCH, SEQ, INTER, nb, ns, ni),
                             DATA_TYPE POLYBENCH_1D(bias, INTER, ni),
                             DATA_TYPE POLYBENCH_3D(U, BATCH, SEQ, INTER, nb, ns, ni),
                             DATA_TYPE POLYBENCH_3D(Y, BATCH, SEQ, INTER, nb, ns, ni))
{
  int b, s, i;

#pragma scop
  for (b = 0; b < _PB_BATCH; b++)
    for (s = 0; s < _PB_SEQ; s++)
      for (i = 0; i < _PB_INTER; i++) {
        U[b][s][i] = X[b][s][i] + bias[i];
        Y[b][s][i] = SCALAR_VAL(0.5) * U[b][s][i]
                     * (SCALAR_VAL(1.0)
                        + TANH_FUN(SCALAR_VAL(0.7978845608)
                                   * (U[b][s][i] + SCALAR_VAL(0.044715)
                                      * U[b][s][i] * U[b][s][i] * U[b][s][i])));
      }
#pragma endscop
}

int main(void)
{
  int nb = BATCH, ns = SEQ, ni = INTER;
  POLYBENCH_3D_ARRAY_DECL(X, DATA_TYPE, BATCH, SEQ, INTER, nb, ns, ni);
  POLYBENCH_1D_ARRAY_DECL(bias, DATA_TYPE, INTER, ni);
  POLYBENCH_3D_ARRAY_DECL(U, DATA_TYPE, BATCH, SEQ, INTER, nb, ns, ni);
  POLYBENCH_3D_ARRAY_DECL(Y, DATA_TYPE, BATCH, SEQ, INTER, nb, ns, ni);

  init_array(nb, ns, ni, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(bias));
  OPERATOR_TIMER_START;
  kernel_bias_gelu(nb, ns, ni, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(bias),
                   POLYBENCH_ARRAY(U), POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_3D("U", POLYBENCH_ARRAY(U), nb, ns, ni);
  OPERATOR_OUTPUT_3D("Y", POLYBENCH_ARRAY(Y), nb, ns, ni);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(bias);
  POLYBENCH_FREE_ARRAY(U);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
