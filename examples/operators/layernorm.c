/*
 * layernorm.c - BERT's layer normalisation over the hidden dimension of a
 * [batch, seq, hidden] tensor: per token the mean and the variance, then
 *   Y[b][s][h] = gamma[h] * (X[b][s][h] - mean) / sqrt(var + eps) + beta[h]
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
                       DATA_TYPE POLYBENCH_1D(gamma, HIDDEN, nh),
                       DATA_TYPE POLYBENCH_1D(beta, HIDDEN, nh))
{
  int b, s, h;

  for (b = 0; b < nb; b++)
    for (s = 0; s < ns; s++)
      for (h = 0; h < nh; h++)
        X[b][s][h] = (DATA_TYPE) ((7 * b + 3 * s + 11 * h + 1) % 31) / 31
                     + (DATA_TYPE) (s % 5) / 4;
  for (h = 0; h < nh; h++) {
    gamma[h] = SCALAR_VAL(0.5) + (DATA_TYPE) (h % 7) / 7;
    beta[h] = (DATA_TYPE) (h % 5) / 5 - SCALAR_VAL(0.25);
  }
}

static void kernel_layernorm(int nb, int ns, int nh, DATA_TYPE eps,
                             DATA_TYPE POLYBENCH_3D(X, BATCH, SEQ, HIDDEN, nb, ns, nh),
                             DATA_TYPE POLYBENCH_1D(gamma, HIDDEN, nh),
                             DATA_TYPE POLYBENCH_1D(beta, HIDDEN, nh),
                             DATA_TYPE POLYBENCH_2D(mean, BATCH, SEQ, nb, ns),
                             DATA_TYPE POLYBENCH_2D(var, BATCH, SEQ, nb, ns),
                             DATA_TYPE POLYBENCH_3D(Y, BATCH, SEQ, HIDDEN, nb, ns, nh))
{
  int b, s, h;

#pragma scop
  for (b = 0; b < _PB_BATCH; b++)
    for (s = 0; s < _PB_SEQ; s++) {
      mean[b][s] = SCALAR_VAL(0.0);
      for (h = 0; h < _PB_HIDDEN; h++)
        mean[b][s] += X[b][s][h];
      mean[b][s] = mean[b][s] / (DATA_TYPE) _PB_HIDDEN;
      var[b][s] = SCALAR_VAL(0.0);
      for (h = 0; h < _PB_HIDDEN; h++)
        var[b][s] += (X[b][s][h] - mean[b][s]) * (X[b][s][h] - mean[b][s]);
      var[b][s] = var[b][s] / (DATA_TYPE) _PB_HIDDEN;
      for (h = 0; h < _PB_HIDDEN; h++)
        Y[b][s][h] = gamma[h] * (X[b][s][h] - mean[b][s])
                     / SQRT_FUN(var[b][s] + eps) + beta[h];
    }
#pragma endscop
}

int main(void)
{
  int nb = BATCH, ns = SEQ, nh = HIDDEN;
  DATA_TYPE eps = SCALAR_VAL(1e-5);
  POLYBENCH_3D_ARRAY_DECL(X, DATA_TYPE, BATCH, SEQ, HIDDEN, nb, ns, nh);
  POLYBENCH_1D_ARRAY_DECL(gamma, DATA_TYPE, HIDDEN, nh);
  POLYBENCH_1D_ARRAY_DECL(beta, DATA_TYPE, HIDDEN, nh);
  POLYBENCH_2D_ARRAY_DECL(mean, DATA_TYPE, BATCH, SEQ, nb, ns);
  POLYBENCH_2D_ARRAY_DECL(var, DATA_TYPE, BATCH, SEQ, nb, ns);
  POLYBENCH_3D_ARRAY_DECL(Y, DATA_TYPE, BATCH, SEQ, HIDDEN, nb, ns, nh);

  init_array(nb, ns, nh, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(gamma),
             POLYBENCH_ARRAY(beta));
  OPERATOR_TIMER_START;
  kernel_layernorm(nb, ns, nh, eps, POLYBENCH_ARRAY(X), POLYBENCH_ARRAY(gamma),
                   POLYBENCH_ARRAY(beta), POLYBENCH_ARRAY(mean),
                   POLYBENCH_ARRAY(var), POLYBENCH_ARRAY(Y));
  OPERATOR_TIMER_STOP;
  OPERATOR_OUTPUT_2D("mean", POLYBENCH_ARRAY(mean), nb, ns);
  OPERATOR_OUTPUT_2D("var", POLYBENCH_ARRAY(var), nb, ns);
  OPERATOR_OUTPUT_3D("Y", POLYBENCH_ARRAY(Y), nb, ns, nh);

  POLYBENCH_FREE_ARRAY(X);
  POLYBENCH_FREE_ARRAY(gamma);
  POLYBENCH_FREE_ARRAY(beta);
  POLYBENCH_FREE_ARRAY(mean);
  POLYBENCH_FREE_ARRAY(var);
  POLYBENCH_FREE_ARRAY(Y);
  return 0;
}
