/* a data-dependent value read (indirect data, affine control). */
#pragma scop
for (i = 0; i < N; i++)
  y[i] = x[i] > 0.5 ? x[i] * w[i] : -x[i];
#pragma endscop
