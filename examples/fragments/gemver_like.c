/* rank-2 update followed by two matrix-vector products. */
#pragma scop
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    x[i] = x[i] + 0.5 * A[j][i] * y[j];
for (i = 0; i < N; i++)
  x[i] = x[i] + z[i];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    w[i] = w[i] + 1.5 * A[i][j] * x[j];
#pragma endscop
