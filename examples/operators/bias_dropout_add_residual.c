/*
 * bias_dropout_add_residual.c - BERT's fused epilogue of an attention or
 * feed-forward output projection: bias add, dropout with a given keep mask
 * (0 or 1 per element, scaled by 1 / (1 - p)) and the residual connection:
 *   Y[b][s][h] = R[b][s][h] + mask[b][s][h] * (X[b][s][h] + bias[h]) * keep
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
# ifndef HIDDEN
#  define HIDDEN 768
# endif
#else
# ifndef BATCH
#  define BATCH 2
# endif
# ifndef SEQ
#  define SEQ 8
# endif
# ifndef HIDDEN
#  define HIDDEN 48
# endif
#endif

#define _PB_BATCH nb
#define _PB_SEQ ns
#define _PB_HIDDEN nh

static void init_array(int nb, int ns, int nh,
                       DATA_TYPE POLYBENCH_3D(X, BATCH, SEQ, HIDDEN, nb, ns, nh),
                       DATA_TYPE POLYBENCH_1D(bias, HIDDEN, nh),
                       DATA_TYPE POLYBENCH_3D(mask, BATCH, SEQ, HIDDEN, nb, ns, nh),
                       DATA_TYPE POLYBENCH_3D(R, BATCH, SEQ, HIDDEN, nb, ns, nh))
{
  int b, s, h;

  for (b = 0; b < nb; b++)
    for (s = 0; s < ns; s++)
      for (h = 0; h < nh; h++) {
        X[b][s][h] = (DATA_TYPE) ((5 * b + 7 * s + 3 * h + 1) % 23) / 23
                     - SCALAR_VAL(0.5);
        /* About one element in ten dropped, as with p = 0.1. */
        mask[b][s][h] = (DATA_TYPE) ((11 * b + 13 * s + 17 * h + 5) % 10 != 0);
        R[b][s][h] = (DATA_TYPE) ((b + 2 * s + 9 * h + 3) % 19) / 19;
      }
  for (h = 0; h < nh; h++)
    bias[h] = (DATA_TYPE) (h % 13) / 13 - SCALAR_VAL(0.5);
}

static void kernel_bias_dropout_add_residual(
    int nb, int ns, int nh, DATA_TYPE keep,
    DATA_TYPE POLYBENCH_3D(X, BATCH, SEQ, HIDDEN, nb, ns, nh),
    DATA_TYPE POLYBENCH_1D(bias, HIDDEN, nh),
    DATA_TYPE POLYBENCH_3D(mask, BATCH, SEQ, HIDDEN, nb, ns, nh),
    DATA_TYPE POLYBENCH_3D(R, BATCH, SEQ, HIDDEN, nb, ns, nh),
    DATA_TYPE POLYBENCH_3D(Y, BATCH, SEQ, HIDDEN, nb, ns, nh))
{
  int b, s, h;

#pragma scop
  for (b = 0; b < _PB_BATCH; b++)
    for (s = 0; s < _PB_SEQ; s++)
      for (h = 0; h < _PB_HIDDEN; h++)
        Y[b][s][h] = R[b][s][h] + mask[b][s][h] * (X[b][s][h] + bias[h]) * keep;
#pragma endscop
}

int main(void)
{
  int nb = BATCH, ns = SEQ, nh = HIDDEN;
  DATA_TYPE keep = SCALAR_VAL(1.0) / (SCALAR_VAL(1.0) - SCALAR_VAL(0.1));
  POLYBENCH_3D_ARRAY_DECL(X, DATA_TYPE, BATCH, SEQ, HIDDEN, nb, ns, nh);
  POLYBENCH_1D_ARRAY_DECL(bias, DATA_TYPE, HIDDEN, nh);
  POLYBENCH_3D_ARRAY_DECL(mask, DATA_TYPE, BATCH, SEQ, HIDDEN, nb, ns, nh);
  POLYBENCH_3D_ARRAY_DECL(R, DATA_TYPE, BATCH, SEQ, HIDDEN, nb, ns, nh);
  POLYBENCH_3D_ARRAY_DECL(Y, DATA_TYPE, BATCH, SEQ, HIDDEN, nb, ns, nh);

  init_array(nb, ns, nh, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(bias),
             POLYBENCH_ARRAY(mask), POLYBENCH_ARRAY(R));
  OPERATOR_TIMER_START;
  kernel_bias_dropout_add_residual(nb, ns, nh, keep, POLYBENCH_ARRAY(X),
                                   POLYBENCH_ARRAY(bias), POLYBENCH_ARRAY(mask),
                                   POLYBENCH_ARRAY(R), POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_3D("Y", POLYBENCH_ARRAY(Y), nb, ns, nh);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(bias);
  POLYBENCH_FREE_ARRAY(mask);
  POLYBENCH_FREE_ARRAY(R);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
